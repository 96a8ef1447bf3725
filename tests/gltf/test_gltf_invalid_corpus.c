/*
 * The glTF reader over the whole corpus of malformed and edge-case files
 * (tests/data/corpus/invalid: the glTF validator's test set and Assimp's
 * broken glTF models) and, loaded from memory through a resolver, over every
 * valid model.
 *
 * Rules checked: every invalid-corpus file either
 * loads or is refused with a result code other than CNA_OK, the same code in
 * the error, a non-empty message and no document; each takes under one second
 * (a correctness bound: a reader that spins on hostile input is broken; this
 * is not a benchmark); and the walk finds exactly the 389 model files the
 * corpus holds, so the test cannot pass on an empty or half-copied folder.
 * Run under ASan + UBSan + LeakSanitizer by scripts/test.sh (build-asan/).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>

#include "win_compat.h"

#include "cna/gltf.h"

#define INVALID_DIR CNA_TEST_DATA_DIR "/corpus/invalid"
#define VALID_DIR CNA_TEST_DATA_DIR "/corpus/valid"

/* Model files in the corpus, counted when it was copied (corpus/MANIFEST.md). */
#define VALIDATOR_MODEL_FILES 372 /* 335 .gltf + 37 .glb */
#define ASSIMP_MODEL_FILES 17     /* 15 .gltf + 2 .glb */
#define VALID_MODEL_FILES 9

/* ------------------------------------------------------------ file lists */

typedef struct path_list {
    char **paths;
    size_t count, capacity;
} path_list;

static int path_list_push(path_list *list, const char *path)
{
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? list->capacity * 2 : 64;
        char **bigger = realloc(list->paths, cap * sizeof *bigger);
        if (!bigger) return -1;
        list->paths = bigger;
        list->capacity = cap;
    }
    size_t len = strlen(path);
    char *copy = malloc(len + 1);
    if (!copy) return -1;
    memcpy(copy, path, len + 1);
    list->paths[list->count++] = copy;
    return 0;
}

static void path_list_free(path_list *list)
{
    for (size_t i = 0; i < list->count; i++) free(list->paths[i]);
    free(list->paths);
    memset(list, 0, sizeof *list);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Appends every *.gltf / *.glb under dir (recursively, symbolic links not
 * followed) to list. Returns 0, or -1 on an I/O or memory error. */
static int collect_models(const char *dir, path_list *list)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        size_t len = strlen(dir) + 1 + strlen(e->d_name) + 1;
        char *path = malloc(len);
        if (!path) {
            rc = -1;
            break;
        }
        snprintf(path, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0)
            rc = -1;
        else if (S_ISDIR(st.st_mode))
            rc = collect_models(path, list);
        else if (S_ISREG(st.st_mode) && (ends_with(path, ".gltf") || ends_with(path, ".glb")))
            rc = path_list_push(list, path);
        free(path);
    }
    closedir(d);
    return rc;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t count_under(const path_list *list, const char *prefix)
{
    size_t n = 0, len = strlen(prefix);
    for (size_t i = 0; i < list->count; i++)
        if (strncmp(list->paths[i], prefix, len) == 0) n++;
    return n;
}

/* ------------------------------------------------------------ one pass over the invalid corpus */

typedef struct load_outcome {
    cna_result result;
    cna_result error_code;    /* err.code after the call */
    size_t message_length;    /* strlen(err.message) after the call */
    int document_set;         /* *out non-NULL after a refused load */
    double seconds;
} load_outcome;

typedef struct corpus_run {
    path_list files;
    load_outcome *outcomes;
    size_t loaded, refused;
} corpus_run;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int setup_invalid_corpus(void **state)
{
    corpus_run *run = calloc(1, sizeof *run);
    if (!run) return -1;
    if (collect_models(INVALID_DIR, &run->files) != 0) {
        path_list_free(&run->files);
        free(run);
        return -1;
    }
    qsort(run->files.paths, run->files.count, sizeof *run->files.paths, compare_paths);
    run->outcomes = calloc(run->files.count ? run->files.count : 1, sizeof *run->outcomes);
    if (!run->outcomes) {
        path_list_free(&run->files);
        free(run);
        return -1;
    }
    for (size_t i = 0; i < run->files.count; i++) {
        cna_gltf_document *doc = NULL;
        cna_error err;
        memset(&err, 0, sizeof err);
        double t0 = now_seconds();
        cna_result r = cna_gltf_load_file(run->files.paths[i], NULL, &doc, &err);
        double t1 = now_seconds();
        load_outcome *o = &run->outcomes[i];
        o->result = r;
        o->seconds = t1 - t0;
        if (r == CNA_OK) {
            run->loaded++;
            cna_gltf_document_free(doc);
        } else {
            run->refused++;
            o->error_code = err.code;
            o->message_length = strnlen(err.message, sizeof err.message);
            o->document_set = doc != NULL;
        }
    }
    size_t slowest = 0;
    for (size_t i = 1; i < run->files.count; i++)
        if (run->outcomes[i].seconds > run->outcomes[slowest].seconds) slowest = i;
    print_message("invalid corpus: %zu files, %zu load, %zu refused; slowest %.4f s (%s)\n",
                  run->files.count, run->loaded, run->refused,
                  run->files.count ? run->outcomes[slowest].seconds : 0.0,
                  run->files.count ? run->files.paths[slowest] : "-");
    *state = run;
    return 0;
}

static int teardown_invalid_corpus(void **state)
{
    corpus_run *run = *state;
    if (run) {
        path_list_free(&run->files);
        free(run->outcomes);
        free(run);
    }
    return 0;
}

static void test_invalid_corpus_walk_finds_every_model_file(void **state)
{
    const corpus_run *run = *state;
    assert_int_equal(count_under(&run->files, INVALID_DIR "/validator/"), VALIDATOR_MODEL_FILES);
    assert_int_equal(count_under(&run->files, INVALID_DIR "/assimp/"), ASSIMP_MODEL_FILES);
    assert_int_equal(run->files.count, VALIDATOR_MODEL_FILES + ASSIMP_MODEL_FILES);
    assert_int_equal(run->loaded + run->refused, run->files.count);
}

/* The outcome counts docs/gltf-reader.md states: a change of the reader
 * that makes a file load or be refused differently shows here, and the
 * docs are updated with it. */
static void test_invalid_corpus_outcomes_are_the_documented_counts(void **state)
{
    const corpus_run *run = *state;
    size_t by_code[CNA_ERROR_LIMIT + 1] = {0};
    for (size_t i = 0; i < run->files.count; i++)
        if (run->outcomes[i].result != CNA_OK && run->outcomes[i].error_code <= CNA_ERROR_LIMIT)
            by_code[run->outcomes[i].error_code]++;
    assert_int_equal(run->files.count, 389);
    assert_int_equal(run->loaded, 219);
    assert_int_equal(run->refused, 170);
    assert_int_equal(by_code[CNA_ERROR_INVALID_DATA], 133);
    assert_int_equal(by_code[CNA_ERROR_PARSE], 28);
    assert_int_equal(by_code[CNA_ERROR_UNSUPPORTED], 5);
    assert_int_equal(by_code[CNA_ERROR_IO], 4);
}

static void test_invalid_corpus_file_loads_or_is_refused_with_code_and_message(void **state)
{
    const corpus_run *run = *state;
    size_t bad = 0;
    for (size_t i = 0; i < run->files.count; i++) {
        const load_outcome *o = &run->outcomes[i];
        if (o->result == CNA_OK) continue;
        int ok = o->result > CNA_OK && o->result < CNA_RESULT_COUNT && o->error_code == o->result &&
                 o->message_length > 0 && o->message_length < CNA_ERROR_MESSAGE_MAX && !o->document_set;
        if (!ok) {
            print_error("%s: result %d, err.code %d, message length %zu, document %s\n",
                        run->files.paths[i], (int)o->result, (int)o->error_code, o->message_length,
                        o->document_set ? "set" : "unset");
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

static void test_invalid_corpus_file_loads_or_is_refused_within_one_second(void **state)
{
    const corpus_run *run = *state;
    size_t slow = 0;
    for (size_t i = 0; i < run->files.count; i++) {
        if (run->outcomes[i].seconds >= 1.0) {
            print_error("%s: %.3f s\n", run->files.paths[i], run->outcomes[i].seconds);
            slow++;
        }
    }
    assert_int_equal(slow, 0);
}

/* ------------------------------------------------------------ valid corpus through the resolver */

/* Reads a whole file; NULL on failure. */
static unsigned char *read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *data = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = malloc((size_t)len + 1);
        if (data && fread(data, 1, (size_t)len, f) != (size_t)len) {
            free(data);
            data = NULL;
        }
    }
    fclose(f);
    if (data) *size = (size_t)len;
    return data;
}

typedef struct test_resolver {
    char dir[1024];     /* the model's folder, with a trailing '/' */
    size_t resolved;    /* successful answers */
    size_t released;    /* release callbacks */
} test_resolver;

static cna_result resolve_in_dir(void *user_data, cna_gltf_uri_kind kind, const char *uri,
                                 const void **data, size_t *size, cna_error *err)
{
    test_resolver *res = user_data;
    char path[2048];
    snprintf(path, sizeof path, "%s%s", res->dir, uri);
    unsigned char *bytes = read_whole(path, size);
    if (!bytes) {
        if (err) {
            err->code = CNA_ERROR_IO;
            snprintf(err->message, sizeof err->message, "test resolver: cannot read %.400s", path);
        }
        return CNA_ERROR_IO;
    }
    (void)kind;
    *data = bytes;
    res->resolved++;
    return CNA_OK;
}

static void release_bytes(void *user_data, const void *data, size_t size)
{
    test_resolver *res = user_data;
    (void)size;
    free((void *)data);
    res->released++;
}

static void test_valid_corpus_loads_from_memory_through_resolver_as_from_file(void **state)
{
    (void)state;
    path_list files = {0};
    assert_int_equal(collect_models(VALID_DIR, &files), 0);
    assert_int_equal(files.count, VALID_MODEL_FILES);
    for (size_t i = 0; i < files.count; i++) {
        const char *path = files.paths[i];
        size_t size = 0;
        unsigned char *bytes = read_whole(path, &size);
        assert_non_null(bytes);

        test_resolver res = {{0}, 0, 0};
        const char *slash = strrchr(path, '/');
        assert_non_null(slash);
        assert_true((size_t)(slash - path) + 2 < sizeof res.dir);
        memcpy(res.dir, path, (size_t)(slash - path) + 1);
        cna_gltf_options opts = {0};
        opts.resolve = resolve_in_dir;
        opts.release = release_bytes;
        opts.resolver_user_data = &res;

        cna_gltf_document *from_memory = NULL, *from_file = NULL;
        cna_error err;
        cna_result r = cna_gltf_load_memory(bytes, size, &opts, &from_memory, &err);
        if (r != CNA_OK) print_error("%s: %s\n", path, err.message);
        assert_int_equal(r, CNA_OK);
        free(bytes);
        r = cna_gltf_load_file(path, NULL, &from_file, &err);
        if (r != CNA_OK) print_error("%s: %s\n", path, err.message);
        assert_int_equal(r, CNA_OK);

        assert_int_equal(res.released, res.resolved);
        assert_int_equal(from_memory->buffer_count, from_file->buffer_count);
        for (size_t b = 0; b < from_file->buffer_count; b++) {
            assert_int_equal(from_memory->buffers[b].byte_length, from_file->buffers[b].byte_length);
            assert_memory_equal(from_memory->buffers[b].data, from_file->buffers[b].data,
                                from_file->buffers[b].byte_length);
        }
        assert_int_equal(from_memory->accessor_count, from_file->accessor_count);
        assert_int_equal(from_memory->node_count, from_file->node_count);
        assert_int_equal(from_memory->mesh_count, from_file->mesh_count);
        assert_int_equal(from_memory->skin_count, from_file->skin_count);
        assert_int_equal(from_memory->animation_count, from_file->animation_count);
        assert_int_equal(from_memory->diagnostic_count, from_file->diagnostic_count);
        cna_gltf_document_free(from_memory);
        cna_gltf_document_free(from_file);
    }
    path_list_free(&files);
}

int main(void)
{
    const struct CMUnitTest invalid_tests[] = {
        cmocka_unit_test(test_invalid_corpus_walk_finds_every_model_file),
        cmocka_unit_test(test_invalid_corpus_outcomes_are_the_documented_counts),
        cmocka_unit_test(test_invalid_corpus_file_loads_or_is_refused_with_code_and_message),
        cmocka_unit_test(test_invalid_corpus_file_loads_or_is_refused_within_one_second),
    };
    const struct CMUnitTest valid_tests[] = {
        cmocka_unit_test(test_valid_corpus_loads_from_memory_through_resolver_as_from_file),
    };
    int failed = cmocka_run_group_tests_name("invalid corpus", invalid_tests, setup_invalid_corpus,
                                             teardown_invalid_corpus);
    failed += cmocka_run_group_tests_name("valid corpus from memory", valid_tests, NULL, NULL);
    return failed;
}
