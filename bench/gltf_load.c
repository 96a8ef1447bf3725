/*
 * bench/gltf_load.c — glTF load time and throughput for every valid corpus model.
 *
 * For each .gltf/.glb under tests/data/corpus/valid (or the files given on the
 * command line) it measures two things:
 *   file    cna_gltf_load_file + cna_gltf_document_free: what an application
 *           pays, file reads (from the page cache) included;
 *   memory  cna_gltf_load_memory + free, with the file and its external
 *           buffers already in memory (served by a resolver): parsing,
 *           validation and copying alone.
 * Method: tools/benchkit/bench.h — each figure is the median of 7 runs (--runs,
 * at least 5), one run repeating the load for at least 0.5 s (--seconds), with
 * the fastest and slowest run as [min-max]. MB/s = bytes / median time, where
 * bytes = the .gltf/.glb plus its external buffers (images are not read by the
 * reader and are not counted); 1 MB = 10^6 B. In the memory form the resolver
 * answers image URIs with "exists" without bytes (the reader never reads them).
 *
 * Usage: bench_gltf_load [--seconds S] [--runs N]   (docs/benchmarks.md, "glTF reader alone")
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cna/gltf.h"
#include "benchkit/bench.h"

#define DEFAULT_RUNS 7

static const char *const default_models[] = {
    "AnimatedMorphCube/AnimatedMorphCube.gltf",
    "BoxAnimated/box_animated.gltf",
    "InterpolationTest/interpolation_test.gltf",
    "MorphStressTest/MorphStressTest.gltf",
    "RiggedSimple/rigged_simple.gltf",
    "RobotExpressive/robot.glb",
    "SimpleMorph/SimpleMorph.gltf",
    "SimpleSkin/simple_skin.gltf",
    "Triangle/triangle.gltf",
};

/* ------------------------------------------------------------ inputs */

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

/* A model and its external buffers, preloaded. */
#define MAX_EXTERNAL 16
typedef struct model {
    const char *path;
    unsigned char *bytes;
    size_t size;
    size_t total_bytes; /* size + external buffer file sizes */
    size_t external_count;
    char *external_uri[MAX_EXTERNAL];
    unsigned char *external_bytes[MAX_EXTERNAL];
    size_t external_size[MAX_EXTERNAL];
    int failures; /* timed loads that failed (must stay 0) */
} model;

static cna_result serve_preloaded(void *user_data, cna_gltf_uri_kind kind, const char *uri,
                                  const void **data, size_t *size, cna_error *err)
{
    const model *m = user_data;
    for (size_t i = 0; i < m->external_count; i++) {
        if (strcmp(m->external_uri[i], uri) == 0) {
            *data = m->external_bytes[i];
            *size = m->external_size[i];
            return CNA_OK;
        }
    }
    if (kind == CNA_GLTF_URI_IMAGE) { /* the reader only asks whether it exists */
        *data = NULL;
        *size = 0;
        return CNA_OK;
    }
    if (err) {
        err->code = CNA_ERROR_IO;
        snprintf(err->message, sizeof err->message, "bench: %s not preloaded", uri);
    }
    return CNA_ERROR_IO;
}

static void model_free(model *m)
{
    free(m->bytes);
    for (size_t i = 0; i < m->external_count; i++) {
        free(m->external_uri[i]);
        free(m->external_bytes[i]);
    }
}

/* Loads the model once from its file to learn its external buffers, then
 * preloads them. Returns 0, or 1 with a message on stderr. */
static int model_open(model *m, const char *path)
{
    memset(m, 0, sizeof *m);
    m->path = path;
    m->bytes = read_whole(path, &m->size);
    if (!m->bytes) {
        fprintf(stderr, "bench_gltf_load: cannot read %s\n", path);
        return 1;
    }
    cna_gltf_document *doc = NULL;
    cna_error err;
    if (cna_gltf_load_file(path, NULL, &doc, &err) != CNA_OK) {
        fprintf(stderr, "bench_gltf_load: %s: %s\n", path, err.message);
        return 1;
    }
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    m->total_bytes = m->size;
    int rc = 0;
    for (size_t b = 0; b < doc->buffer_count && rc == 0; b++) {
        const cna_gltf_buffer *buf = &doc->buffers[b];
        if (buf->source != CNA_GLTF_SOURCE_EXTERNAL || !buf->uri) continue;
        if (m->external_count == MAX_EXTERNAL) {
            fprintf(stderr, "bench_gltf_load: %s: more than %d external buffers\n", path, MAX_EXTERNAL);
            rc = 1;
            break;
        }
        size_t uri_len = strlen(buf->uri);
        char *file = malloc(dir_len + uri_len + 1);
        char *uri = malloc(uri_len + 1);
        if (!file || !uri) {
            free(file);
            free(uri);
            rc = 1;
            break;
        }
        memcpy(file, path, dir_len);
        memcpy(file + dir_len, buf->uri, uri_len + 1);
        memcpy(uri, buf->uri, uri_len + 1);
        size_t n = m->external_count;
        m->external_uri[n] = uri;
        m->external_bytes[n] = read_whole(file, &m->external_size[n]);
        m->external_count++;
        if (!m->external_bytes[n]) {
            fprintf(stderr, "bench_gltf_load: cannot read %s\n", file);
            rc = 1;
        } else {
            m->total_bytes += m->external_size[n];
        }
        free(file);
    }
    cna_gltf_document_free(doc);
    return rc;
}

static void op_load_file(void *ctx)
{
    model *m = ctx;
    cna_gltf_document *doc = NULL;
    if (cna_gltf_load_file(m->path, NULL, &doc, NULL) != CNA_OK) m->failures++;
    bench_keep(doc);
    cna_gltf_document_free(doc);
}

static void op_load_memory(void *ctx)
{
    model *m = ctx;
    cna_gltf_options opts = {0};
    opts.resolve = serve_preloaded;
    opts.resolver_user_data = m;
    cna_gltf_document *doc = NULL;
    if (cna_gltf_load_memory(m->bytes, m->size, &opts, &doc, NULL) != CNA_OK) m->failures++;
    bench_keep(doc);
    cna_gltf_document_free(doc);
}

/* ------------------------------------------------------------ main */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int main(int argc, char **argv)
{
    double seconds = BENCH_DEFAULT_SECONDS;
    int runs = DEFAULT_RUNS;
    if (bench_parse_args(argc, argv, &seconds, &runs) != 0) return 2;
    size_t count = sizeof default_models / sizeof default_models[0];
    printf("glTF load: median of %d runs (each >= %.2f s of repeated loads) [min-max]; "
           "MB/s = (file + external buffers) / median\n\n",
           runs, seconds);
    printf("| %-26s | %10s | %-28s | %8s | %-28s | %8s |\n", "file", "bytes", "load_file ms [min-max]",
           "MB/s", "load_memory ms [min-max]", "MB/s");
    printf("|%s|%s|%s|%s|%s|%s|\n", "----------------------------", "-----------:",
           "------------------------------", "---------:", "------------------------------",
           "---------:");
    int failed = 0;
    for (size_t i = 0; i < count; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/corpus/valid/%s", CNA_TEST_DATA_DIR, default_models[i]);
        model m;
        if (model_open(&m, path) != 0) {
            model_free(&m);
            failed = 1;
            continue;
        }
        bench_stats file_stats = bench_measure(op_load_file, &m, runs, seconds);
        bench_stats memory_stats = bench_measure(op_load_memory, &m, runs, seconds);
        if (m.failures) {
            fprintf(stderr, "bench_gltf_load: %s: %d timed loads failed\n", path, m.failures);
            model_free(&m);
            failed = 1;
            continue;
        }
        char file_col[64], memory_col[64];
        snprintf(file_col, sizeof file_col, "%.4f [%.4f-%.4f]", file_stats.median * 1e3,
                 file_stats.min * 1e3, file_stats.max * 1e3);
        snprintf(memory_col, sizeof memory_col, "%.4f [%.4f-%.4f]", memory_stats.median * 1e3,
                 memory_stats.min * 1e3, memory_stats.max * 1e3);
        printf("| %-26s | %10zu | %-28s | %8.1f | %-28s | %8.1f |\n", base_name(path), m.total_bytes,
               file_col, bench_rate((double)m.total_bytes, file_stats.median) / 1e6, memory_col,
               bench_rate((double)m.total_bytes, memory_stats.median) / 1e6);
        fflush(stdout);
        model_free(&m);
    }
    return failed;
}
