/*
 * The GLB container from memory: 12-byte header (magic,
 * version 2, total length), JSON chunk first, optional BIN chunk, unknown
 * chunks skipped, every length and padding checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gltf/gltf_test_util.h"

#define CHUNK_JSON 0x4E4F534Au
#define CHUNK_BIN 0x004E4942u

static const char GLB_JSON[] =
    "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%d}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0.5,1],"
    "\"max\":[3,3.5,4]}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]}";

typedef struct glb {
    uint8_t data[1024];
    size_t size;
} glb;

static void glb_begin(glb *g, uint32_t version)
{
    memcpy(g->data, "glTF", 4);
    tu_put_u32(g->data + 4, version);
    g->size = 12;
}

/* Append a chunk, padded with `pad` to a multiple of 4 unless raw_len is given. */
static void glb_chunk(glb *g, uint32_t type, const void *data, size_t n, uint8_t pad)
{
    size_t padded = (n + 3) & ~(size_t)3;
    tu_put_u32(g->data + g->size, (uint32_t)padded);
    tu_put_u32(g->data + g->size + 4, type);
    memcpy(g->data + g->size + 8, data, n);
    memset(g->data + g->size + 8 + n, pad, padded - n);
    g->size += 8 + padded;
}

static void glb_end(glb *g)
{
    tu_put_u32(g->data + 8, (uint32_t)g->size);
}

static void triangle_bin(uint8_t *bin)
{
    for (int i = 0; i < 9; i++) tu_put_f32(bin + 4 * i, (float)i * 0.5f);
}

/* header + JSON (byteLength bin_declared) + BIN of bin_size bytes + optional extra chunk */
static void build(glb *g, int bin_declared, size_t bin_size, bool extra)
{
    char json[1024];
    snprintf(json, sizeof json, GLB_JSON, bin_declared);
    uint8_t bin[64];
    memset(bin, 0, sizeof bin);
    triangle_bin(bin);
    glb_begin(g, 2);
    glb_chunk(g, CHUNK_JSON, json, strlen(json), ' ');
    glb_chunk(g, CHUNK_BIN, bin, bin_size, 0);
    if (extra) glb_chunk(g, 0x12345678u, "skip me", 7, 0);
    glb_end(g);
}

static void expect_glb_error(const glb *g, cna_result code, const char *message)
{
    cna_gltf_document *doc = NULL;
    cna_error err;
    cna_result r = cna_gltf_load_memory(g->data, g->size, NULL, &doc, &err);
    if (r != code || strcmp(err.message, message) != 0)
        fail_msg("expected %s \"%s\"\n     got %s \"%s\"", cna_result_name(code), message, cna_result_name(r),
                 err.message);
    assert_null(doc);
}

static void test_glb_from_memory_uses_the_bin_chunk(void **state)
{
    (void)state;
    glb g;
    build(&g, 36, 36, false);
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(g.data, g.size, NULL, &doc, &err), CNA_OK);
    assert_true(doc->is_glb);
    assert_int_equal(doc->buffers[0].source, CNA_GLTF_SOURCE_GLB_BIN);
    assert_null(doc->buffers[0].uri);
    float xyz[9];
    assert_int_equal(cna_gltf_accessor_read_floats(doc, 0, xyz, 9, &err), CNA_OK);
    for (int i = 0; i < 9; i++) assert_true(xyz[i] == (float)i * 0.5f);
    memset(g.data, 0, sizeof g.data); /* the document keeps its own copy */
    assert_int_equal(cna_gltf_accessor_read_floats(doc, 0, xyz, 9, &err), CNA_OK);
    assert_true(xyz[8] == 4.0f);
    cna_gltf_document_free(doc);
}

static void test_unknown_chunks_are_skipped(void **state)
{
    (void)state;
    glb g;
    build(&g, 36, 36, true);
    cna_gltf_document *doc = NULL;
    assert_int_equal(cna_gltf_load_memory(g.data, g.size, NULL, &doc, NULL), CNA_OK);
    cna_gltf_document_free(doc);
}

static void test_bin_chunk_padding_up_to_three_bytes_is_accepted(void **state)
{
    (void)state;
    glb g;
    build(&g, 37, 37, false); /* 37 bytes declared, the chunk padded to 40 */
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(g.data, g.size, NULL, &doc, &err), CNA_OK);
    assert_int_equal(doc->buffers[0].byte_length, 37);
    assert_int_equal(doc->diagnostic_count, 0);
    cna_gltf_document_free(doc);
    build(&g, 36, 40, false); /* 4 bytes more than declared: a diagnostic */
    assert_int_equal(cna_gltf_load_memory(g.data, g.size, NULL, &doc, &err), CNA_OK);
    tu_expect_diag(doc, CNA_GLTF_DIAG_BUFFER_LONGER, 1, "buffers[0]: 40 bytes of data, more than byteLength 36");
    cna_gltf_document_free(doc);
}

static void test_bin_chunk_shorter_than_the_buffer_is_refused(void **state)
{
    (void)state;
    glb g;
    build(&g, 40, 36, false);
    expect_glb_error(&g, CNA_ERROR_INVALID_DATA, "buffers[0].byteLength: 40 exceeds the GLB BIN chunk (36 bytes)");
}

static void test_header_length_must_match_the_data_size(void **state)
{
    (void)state;
    glb g;
    build(&g, 36, 36, false);
    char message[128];
    snprintf(message, sizeof message, "GLB: header length %zu differs from the data size %zu", g.size, g.size + 4);
    g.size += 4;
    expect_glb_error(&g, CNA_ERROR_PARSE, message);
}

static void test_short_header_is_refused(void **state)
{
    (void)state;
    glb g;
    glb_begin(&g, 2);
    g.size = 11;
    expect_glb_error(&g, CNA_ERROR_PARSE, "GLB: 11 bytes; the header needs 12");
}

static void test_version_other_than_2_is_unsupported(void **state)
{
    (void)state;
    glb g;
    build(&g, 36, 36, false);
    tu_put_u32(g.data + 4, 1);
    expect_glb_error(&g, CNA_ERROR_UNSUPPORTED, "GLB: container version 1 is not supported (2 only)");
}

static void test_first_chunk_must_be_json(void **state)
{
    (void)state;
    glb g;
    uint8_t bin[36] = {0};
    glb_begin(&g, 2);
    glb_chunk(&g, CHUNK_BIN, bin, sizeof bin, 0);
    glb_end(&g);
    expect_glb_error(&g, CNA_ERROR_PARSE, "GLB: first chunk has type 0x004E4942; expected JSON");
}

static void test_chunk_length_must_be_a_multiple_of_four(void **state)
{
    (void)state;
    glb g;
    build(&g, 36, 36, false);
    uint32_t json_len = (uint32_t)g.data[12] | (uint32_t)g.data[13] << 8;
    tu_put_u32(g.data + 12, json_len - 1);
    char message[128];
    snprintf(message, sizeof message, "GLB: chunk 0 length %u is not a multiple of 4", json_len - 1);
    expect_glb_error(&g, CNA_ERROR_PARSE, message);
}

static void test_chunk_longer_than_the_container_is_refused(void **state)
{
    (void)state;
    glb g;
    build(&g, 36, 36, false);
    size_t bin_header = g.size - 36 - 8;
    tu_put_u32(g.data + bin_header, 40);
    expect_glb_error(&g, CNA_ERROR_PARSE, "GLB: chunk 1 length 40 exceeds the 36 bytes left in the container");
    tu_put_u32(g.data + bin_header, 0xFFFFFFFCu);
    expect_glb_error(&g, CNA_ERROR_PARSE, "GLB: chunk 1 length 4294967292 exceeds the 36 bytes left in the container");
}

static void test_cut_chunk_header_is_refused(void **state)
{
    (void)state;
    glb g;
    build(&g, 36, 36, false);
    g.size -= 40; /* drop the BIN chunk's data and half its header */
    glb_end(&g);
    char message[128];
    snprintf(message, sizeof message, "GLB: chunk 1 header at byte %zu is cut off (4 bytes left)", g.size - 4);
    expect_glb_error(&g, CNA_ERROR_PARSE, message);
}

static void test_second_json_chunk_is_refused(void **state)
{
    (void)state;
    glb g;
    build(&g, 36, 36, false);
    glb_chunk(&g, CHUNK_JSON, "{}  ", 4, ' ');
    glb_end(&g);
    expect_glb_error(&g, CNA_ERROR_PARSE, "GLB: chunk 2 is a second JSON chunk");
}

static void test_glb_buffer_0_without_uri_needs_a_bin_chunk(void **state)
{
    (void)state;
    char json[1024];
    snprintf(json, sizeof json, GLB_JSON, 36);
    glb g;
    glb_begin(&g, 2);
    glb_chunk(&g, CHUNK_JSON, json, strlen(json), ' ');
    glb_end(&g);
    expect_glb_error(&g, CNA_ERROR_INVALID_DATA, "buffers[0]: no uri, but the GLB has no BIN chunk to hold its 36 bytes");
}

static void test_empty_json_chunk_is_refused(void **state)
{
    (void)state;
    glb g;
    glb_begin(&g, 2);
    glb_chunk(&g, CHUNK_JSON, "", 0, ' ');
    glb_end(&g);
    expect_glb_error(&g, CNA_ERROR_PARSE, "GLB: the JSON chunk is empty");
}

/* ------------------------------------------------------------ from a file */

/* cna_gltf_load_file reads a GLB in pieces (the JSON chunk apart from the
 * rest); every container, whole or damaged, must give what load_memory gives
 * for the same bytes, through the allocator hooks, without a leak. */
static void expect_file_matches_memory(const uint8_t *data, size_t n)
{
    char path[] = "cna_glb_test_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);

    tu_alloc_state s = {0, -1, 0};
    cna_gltf_options o;
    memset(&o, 0, sizeof o);
    o.allocator.alloc = tu_counting_alloc;
    o.allocator.free = tu_counting_free;
    o.allocator.user_data = &s;
    cna_gltf_document *from_file = NULL, *from_memory = NULL;
    cna_error e_file, e_memory;
    memset(&e_file, 0, sizeof e_file);
    memset(&e_memory, 0, sizeof e_memory);
    cna_result r_file = cna_gltf_load_file(path, &o, &from_file, &e_file);
    cna_result r_memory = cna_gltf_load_memory(n ? data : (const uint8_t *)"", n, NULL, &from_memory, &e_memory);
    remove(path);
    if (r_file != r_memory || (r_file && strcmp(e_file.message, e_memory.message) != 0))
        fail_msg("%zu bytes: file %s \"%s\", memory %s \"%s\"", n, cna_result_name(r_file), e_file.message,
                 cna_result_name(r_memory), e_memory.message);
    if (!r_file) {
        assert_true(s.count > 0);
        assert_int_equal(from_file->is_glb, from_memory->is_glb);
        assert_int_equal(from_file->buffer_count, from_memory->buffer_count);
        for (size_t b = 0; b < from_file->buffer_count; b++) {
            const cna_gltf_buffer *x = &from_file->buffers[b], *y = &from_memory->buffers[b];
            assert_int_equal(x->byte_length, y->byte_length);
            assert_true(x->byte_length == 0 || memcmp(x->data, y->data, x->byte_length) == 0);
        }
        assert_int_equal(from_file->diagnostic_count, from_memory->diagnostic_count);
    }
    cna_gltf_document_free(from_file);
    cna_gltf_document_free(from_memory);
    assert_int_equal(s.live, 0);
}

static void test_glb_from_a_file_matches_memory_whole_and_damaged(void **state)
{
    (void)state;
    glb g;
    build(&g, 36, 36, true);
    const size_t json_end = 20 + ((size_t)g.data[12] | (size_t)g.data[13] << 8);
    expect_file_matches_memory(g.data, g.size);
    for (size_t cut = 0; cut < g.size; cut++) {
        glb c = g;
        expect_file_matches_memory(c.data, cut); /* header length now wrong */
        if (cut >= 12) {
            tu_put_u32(c.data + 8, (uint32_t)cut); /* header consistent: the chunk checks */
            expect_file_matches_memory(c.data, cut);
        }
    }
    const size_t fields[] = {4, 8, 12, 16, json_end, json_end + 4, json_end + 44, json_end + 48};
    const uint32_t values[] = {0, 1, 3, 4, 0x4E4F534Au, 0x004E4942u, 0xFFFFFFFCu, (uint32_t)g.size};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
            glb c = g;
            tu_put_u32(c.data + fields[i], values[k]);
            expect_file_matches_memory(c.data, c.size);
            tu_put_u32(c.data + fields[i], values[k] + (uint32_t)json_end);
            expect_file_matches_memory(c.data, c.size);
        }
    }
}

static void test_glb_from_a_file_out_of_memory_at_every_allocation(void **state)
{
    (void)state;
    glb g;
    build(&g, 36, 36, false);
    char path[] = "cna_glb_test_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(g.data, 1, g.size, f), g.size);
    assert_int_equal(fclose(f), 0);
    for (long fail_at = 0;; fail_at++) {
        tu_alloc_state s = {0, fail_at, 0};
        cna_gltf_options o;
        memset(&o, 0, sizeof o);
        o.allocator.alloc = tu_counting_alloc;
        o.allocator.free = tu_counting_free;
        o.allocator.user_data = &s;
        cna_gltf_document *doc = NULL;
        cna_error err;
        cna_result r = cna_gltf_load_file(path, &o, &doc, &err);
        cna_gltf_document_free(doc);
        assert_int_equal(s.live, 0);
        if (r == CNA_OK) {
            assert_true(fail_at >= s.count);
            break;
        }
        assert_int_equal(r, CNA_ERROR_OUT_OF_MEMORY);
        assert_null(doc);
    }
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glb_from_memory_uses_the_bin_chunk),
        cmocka_unit_test(test_unknown_chunks_are_skipped),
        cmocka_unit_test(test_bin_chunk_padding_up_to_three_bytes_is_accepted),
        cmocka_unit_test(test_bin_chunk_shorter_than_the_buffer_is_refused),
        cmocka_unit_test(test_header_length_must_match_the_data_size),
        cmocka_unit_test(test_short_header_is_refused),
        cmocka_unit_test(test_version_other_than_2_is_unsupported),
        cmocka_unit_test(test_first_chunk_must_be_json),
        cmocka_unit_test(test_chunk_length_must_be_a_multiple_of_four),
        cmocka_unit_test(test_chunk_longer_than_the_container_is_refused),
        cmocka_unit_test(test_cut_chunk_header_is_refused),
        cmocka_unit_test(test_second_json_chunk_is_refused),
        cmocka_unit_test(test_glb_buffer_0_without_uri_needs_a_bin_chunk),
        cmocka_unit_test(test_empty_json_chunk_is_refused),
        cmocka_unit_test(test_glb_from_a_file_matches_memory_whole_and_damaged),
        cmocka_unit_test(test_glb_from_a_file_out_of_memory_at_every_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
