/*
 * Truncation loops: every valid .glb and every
 * external .bin of the valid corpus, cut at every byte offset (for files
 * above 16 KiB: every offset of the first and last 4 KiB and every 997th
 * byte), is refused with the exact expected result code and leaks nothing;
 * small .gltf texts are cut the same way. Run under ASan + UBSan + LSan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gltf/gltf_test_util.h"

#define DENSE_LIMIT 16384u
#define EDGE 4096u
#define STRIDE 997u

/* The offsets to cut at: all of them for small sizes, a dense sample for large ones. */
static bool cut_here(size_t cut, size_t size)
{
    if (size <= DENSE_LIMIT) return true;
    return cut < EDGE || cut >= size - EDGE || cut % STRIDE == 0;
}

static void expect_refused(const uint8_t *data, size_t size, cna_result code, const cna_gltf_options *opts,
                           const char *what, size_t cut)
{
    cna_gltf_document *doc = NULL;
    cna_error err;
    cna_result r = cna_gltf_load_memory(data, size, opts, &doc, &err);
    if (r != code)
        fail_msg("%s cut at %zu: expected %s, got %s: %s", what, cut, cna_result_name(code), cna_result_name(r),
                 r ? err.message : "(loaded)");
    assert_null(doc);
    assert_int_equal(err.code, code);
    assert_true(err.message[0] != '\0');
}

static uint8_t *read_valid(const char *rel, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", VALID_DIR, rel);
    return tu_read_file(path, size);
}

/* ------------------------------------------------------------ .glb */

static void test_truncated_glb_is_refused_at_every_offset(void **state)
{
    (void)state;
    size_t size;
    uint8_t *glb = read_valid("RobotExpressive/robot.glb", &size);
    size_t tested = 0;
    for (size_t cut = 0; cut < size; cut++) {
        if (!cut_here(cut, size)) continue;
        uint8_t *copy = (uint8_t *)malloc(cut ? cut : 1); /* exact-size copy: ASan sees any overread */
        assert_non_null(copy);
        memcpy(copy, glb, cut);
        expect_refused(copy, cut, CNA_ERROR_PARSE, NULL, "robot.glb", cut);
        free(copy);
        tested++;
    }
    assert_true(tested > 2 * EDGE);
    free(glb);
}

/* The header's length patched to the cut, so the chunk checks are reached:
 * only the cut right after the JSON chunk is a well-formed container (without
 * BIN, so buffer 0 has no data); every other cut is a container error. */
static void test_truncated_glb_with_consistent_header_is_refused(void **state)
{
    (void)state;
    size_t size;
    uint8_t *glb = read_valid("RobotExpressive/robot.glb", &size);
    size_t json_end = 20 + ((size_t)glb[12] | (size_t)glb[13] << 8 | (size_t)glb[14] << 16 | (size_t)glb[15] << 24);
    for (size_t cut = 12; cut < size; cut++) {
        if (!cut_here(cut, size) && cut != json_end) continue;
        uint8_t *copy = (uint8_t *)malloc(cut);
        assert_non_null(copy);
        memcpy(copy, glb, cut);
        tu_put_u32(copy + 8, (uint32_t)cut);
        expect_refused(copy, cut, cut == json_end ? CNA_ERROR_INVALID_DATA : CNA_ERROR_PARSE, NULL, "robot.glb (header patched)",
                       cut);
        free(copy);
    }
    free(glb);
}

/* ------------------------------------------------------------ external .bin */

typedef struct bin_server {
    const char *folder;     /* model folder under valid/ */
    const char *truncated;  /* the URI served cut */
    size_t cut;
    struct {
        char uri[128];
        uint8_t *bytes;
        size_t size;
    } cache[4];             /* files read once, served many times */
} bin_server;

static cna_result serve(void *user, cna_gltf_uri_kind kind, const char *uri, const void **data, size_t *size,
                        cna_error *err)
{
    bin_server *s = (bin_server *)user;
    (void)err;
    if (kind == CNA_GLTF_URI_IMAGE) return CNA_OK; /* images: existence only */
    size_t i = 0;
    while (i < 4 && s->cache[i].bytes && strcmp(s->cache[i].uri, uri) != 0) i++;
    assert_true(i < 4);
    if (!s->cache[i].bytes) {
        char rel[512];
        snprintf(rel, sizeof rel, "%s/%s", s->folder, uri);
        snprintf(s->cache[i].uri, sizeof s->cache[i].uri, "%s", uri);
        s->cache[i].bytes = read_valid(rel, &s->cache[i].size);
    }
    size_t n = strcmp(uri, s->truncated) == 0 ? s->cut : s->cache[i].size;
    /* an exact-size copy, so that ASan sees any read past the cut */
    uint8_t *copy = (uint8_t *)malloc(n ? n : 1);
    assert_non_null(copy);
    memcpy(copy, s->cache[i].bytes, n);
    *data = copy;
    *size = n;
    return CNA_OK;
}

static void release(void *user, const void *data, size_t size)
{
    (void)user;
    (void)size;
    free((void *)(uintptr_t)data);
}

static void server_free(bin_server *s)
{
    for (size_t i = 0; i < 4; i++) free(s->cache[i].bytes);
}

static void truncate_bin(const char *folder, const char *gltf, const char *bin)
{
    char rel[512];
    snprintf(rel, sizeof rel, "%s/%s", folder, gltf);
    size_t json_size, bin_size;
    uint8_t *json = read_valid(rel, &json_size);
    snprintf(rel, sizeof rel, "%s/%s", folder, bin);
    free(read_valid(rel, &bin_size));
    bin_server s;
    memset(&s, 0, sizeof s);
    s.folder = folder;
    s.truncated = bin;
    s.cut = bin_size;
    cna_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.resolve = serve;
    opts.release = release;
    opts.resolver_user_data = &s;
    cna_gltf_document *doc = NULL;
    assert_int_equal(cna_gltf_load_memory(json, json_size, &opts, &doc, NULL), CNA_OK); /* uncut: loads */
    cna_gltf_document_free(doc);
    for (size_t cut = 0; cut < bin_size; cut++) {
        if (!cut_here(cut, bin_size)) continue;
        s.cut = cut;
        expect_refused(json, json_size, CNA_ERROR_INVALID_DATA, &opts, bin, cut);
    }
    server_free(&s);
    free(json);
}

static void test_truncated_external_bins_are_refused_at_every_offset(void **state)
{
    (void)state;
    truncate_bin("Triangle", "triangle.gltf", "triangle.bin");
    truncate_bin("SimpleMorph", "SimpleMorph.gltf", "simpleMorphGeometry.bin");
    truncate_bin("SimpleMorph", "SimpleMorph.gltf", "simpleMorphAnimation.bin");
    truncate_bin("AnimatedMorphCube", "AnimatedMorphCube.gltf", "AnimatedMorphCube.bin");
    truncate_bin("InterpolationTest", "interpolation_test.gltf", "interpolation_test.bin");
    truncate_bin("MorphStressTest", "MorphStressTest.gltf", "MorphStressTest.bin");
}

static void test_truncated_bin_error_names_the_buffer_and_sizes(void **state)
{
    (void)state;
    size_t json_size;
    uint8_t *json = read_valid("Triangle/triangle.gltf", &json_size);
    bin_server s;
    memset(&s, 0, sizeof s);
    s.folder = "Triangle";
    s.truncated = "triangle.bin";
    s.cut = 43;
    cna_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.resolve = serve;
    opts.release = release;
    opts.resolver_user_data = &s;
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(json, json_size, &opts, &doc, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "buffers[0]: 43 bytes of data, fewer than byteLength 44");
    server_free(&s);
    free(json);
}

/* ------------------------------------------------------------ .gltf text */

static bool only_whitespace(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\n' && p[i] != '\r' && p[i] != '\t') return false;
    return true;
}

static void test_truncated_gltf_json_is_refused_at_every_offset(void **state)
{
    (void)state;
    const char *files[] = {"SimpleSkin/simple_skin.gltf", "AnimatedMorphCube/AnimatedMorphCube.gltf"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t size;
        uint8_t *text = read_valid(files[f], &size);
        cna_gltf_options opts;
        memset(&opts, 0, sizeof opts);
        bin_server s;
        memset(&s, 0, sizeof s);
        s.folder = f == 0 ? "SimpleSkin" : "AnimatedMorphCube";
        s.truncated = "";
        opts.resolve = serve;
        opts.release = release;
        opts.resolver_user_data = &s;
        for (size_t cut = 0; cut < size; cut++) {
            uint8_t *copy = (uint8_t *)malloc(cut ? cut : 1);
            assert_non_null(copy);
            memcpy(copy, text, cut);
            if (cut > 0 && only_whitespace(text + cut, size - cut)) {
                cna_gltf_document *doc = NULL;
                assert_int_equal(cna_gltf_load_memory(copy, cut, &opts, &doc, NULL), CNA_OK);
                cna_gltf_document_free(doc);
            } else {
                expect_refused(copy, cut, CNA_ERROR_PARSE, &opts, files[f], cut);
            }
            free(copy);
        }
        server_free(&s);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_glb_is_refused_at_every_offset),
        cmocka_unit_test(test_truncated_glb_with_consistent_header_is_refused),
        cmocka_unit_test(test_truncated_external_bins_are_refused_at_every_offset),
        cmocka_unit_test(test_truncated_bin_error_names_the_buffer_and_sizes),
        cmocka_unit_test(test_truncated_gltf_json_is_refused_at_every_offset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
