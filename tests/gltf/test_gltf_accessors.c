/*
 * Accessor reads: every component type, normalized integer
 * conversion by the glTF 2.0 formulas, byteOffset and byteStride (interleaved
 * and tight), matrix column padding, accessors without bufferView (zeros),
 * sparse accessors on zeros and on a bufferView, KHR_mesh_quantization, and
 * the argument checks of the read functions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gltf/gltf_test_util.h"

#define DOC_HEAD "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%d,\"uri\":\"@BUF@\"}],"

/* Load a document whose JSON has a %d for the buffer's byteLength. */
static cna_gltf_document *load_doc(const char *json_fmt, const uint8_t *bytes, size_t n)
{
    char json[4096];
    snprintf(json, sizeof json, json_fmt, (int)n);
    return tu_expect_ok(json, bytes, n);
}

static void expect_doc_error(const char *json_fmt, const uint8_t *bytes, size_t n, const char *message)
{
    char json[4096];
    snprintf(json, sizeof json, json_fmt, (int)n);
    tu_expect_error(json, bytes, n, CNA_ERROR_INVALID_DATA, message);
}

static void expect_floats(const cna_gltf_document *doc, int32_t accessor, const float *expected, size_t n)
{
    float out[64];
    cna_error err;
    assert_int_equal(cna_gltf_accessor_float_count(doc, accessor), n);
    assert_int_equal(cna_gltf_accessor_read_floats(doc, accessor, out, 64, &err), CNA_OK);
    for (size_t i = 0; i < n; i++)
        if (out[i] != expected[i]) fail_msg("accessors[%d][%zu]: %.9g, expected %.9g", (int)accessor, i, (double)out[i], (double)expected[i]);
    /* the per-element read agrees with the bulk read */
    size_t comps = cna_gltf_type_component_count(doc->accessors[accessor].type);
    for (size_t e = 0; e < doc->accessors[accessor].count; e++) {
        float one[16];
        assert_int_equal(cna_gltf_accessor_read_element_floats(doc, accessor, e, one, 16, &err), CNA_OK);
        assert_memory_equal(one, out + e * comps, comps * sizeof(float));
    }
}

/* ------------------------------------------------------------ component types */

static const char COMPONENTS_JSON[] = DOC_HEAD
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
    "\"accessors\":["
    "{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5120,\"normalized\":true,\"count\":4,\"type\":\"SCALAR\"},"
    "{\"bufferView\":0,\"byteOffset\":4,\"componentType\":5121,\"normalized\":true,\"count\":4,\"type\":\"SCALAR\"},"
    "{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5122,\"normalized\":true,\"count\":4,\"type\":\"SCALAR\"},"
    "{\"bufferView\":0,\"byteOffset\":16,\"componentType\":5123,\"normalized\":true,\"count\":2,\"type\":\"SCALAR\"},"
    "{\"bufferView\":0,\"byteOffset\":20,\"componentType\":5125,\"count\":2,\"type\":\"SCALAR\"},"
    "{\"bufferView\":0,\"byteOffset\":28,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
    "{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5120,\"count\":4,\"type\":\"SCALAR\"},"
    "{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5122,\"count\":4,\"type\":\"SCALAR\"},"
    "{\"bufferView\":0,\"byteOffset\":4,\"componentType\":5121,\"count\":4,\"type\":\"SCALAR\"}]}";

static void component_bytes(uint8_t *b)
{
    const int8_t sb[4] = {-128, -127, 0, 127};
    memcpy(b, sb, 4);
    const uint8_t ub[4] = {0, 255, 128, 1};
    memcpy(b + 4, ub, 4);
    const int16_t ss[4] = {-32768, -32767, 0, 32767};
    for (int i = 0; i < 4; i++) tu_put_u16(b + 8 + 2 * i, (uint16_t)ss[i]);
    tu_put_u16(b + 16, 0);
    tu_put_u16(b + 18, 65535);
    tu_put_u32(b + 20, 4000000000u);
    tu_put_u32(b + 24, 7);
    tu_put_f32(b + 28, 1.5f);
    tu_put_f32(b + 32, -2.25f);
}

static void test_normalized_signed_byte_is_c_over_127_clamped_at_minus_one(void **state)
{
    (void)state;
    uint8_t b[36];
    component_bytes(b);
    cna_gltf_document *doc = load_doc(COMPONENTS_JSON, b, sizeof b);
    const float expected[4] = {-1.0f, -1.0f, 0.0f, 1.0f};
    expect_floats(doc, 0, expected, 4);
    cna_gltf_document_free(doc);
}

static void test_normalized_unsigned_byte_is_c_over_255(void **state)
{
    (void)state;
    uint8_t b[36];
    component_bytes(b);
    cna_gltf_document *doc = load_doc(COMPONENTS_JSON, b, sizeof b);
    const float expected[4] = {0.0f, 1.0f, 128.0f / 255.0f, 1.0f / 255.0f};
    expect_floats(doc, 1, expected, 4);
    assert_true(expected[2] > 0.50196f && expected[2] < 0.50197f);
    cna_gltf_document_free(doc);
}

static void test_normalized_short_is_c_over_32767_clamped_at_minus_one(void **state)
{
    (void)state;
    uint8_t b[36];
    component_bytes(b);
    cna_gltf_document *doc = load_doc(COMPONENTS_JSON, b, sizeof b);
    const float expected[4] = {-1.0f, -1.0f, 0.0f, 1.0f};
    expect_floats(doc, 2, expected, 4);
    cna_gltf_document_free(doc);
}

static void test_normalized_unsigned_short_is_c_over_65535(void **state)
{
    (void)state;
    uint8_t b[36];
    component_bytes(b);
    cna_gltf_document *doc = load_doc(COMPONENTS_JSON, b, sizeof b);
    const float expected[2] = {0.0f, 1.0f};
    expect_floats(doc, 3, expected, 2);
    cna_gltf_document_free(doc);
}

static void test_unnormalized_integers_convert_to_their_value(void **state)
{
    (void)state;
    uint8_t b[36];
    component_bytes(b);
    cna_gltf_document *doc = load_doc(COMPONENTS_JSON, b, sizeof b);
    const float uints[2] = {4000000000.0f, 7.0f};
    expect_floats(doc, 4, uints, 2);
    const float floats[2] = {1.5f, -2.25f};
    expect_floats(doc, 5, floats, 2);
    const float bytes[4] = {-128.0f, -127.0f, 0.0f, 127.0f};
    expect_floats(doc, 6, bytes, 4);
    const float shorts[4] = {-32768.0f, -32767.0f, 0.0f, 32767.0f};
    expect_floats(doc, 7, shorts, 4);
    cna_gltf_document_free(doc);
}

static void test_read_uints_gives_raw_unsigned_values(void **state)
{
    (void)state;
    uint8_t b[36];
    component_bytes(b);
    cna_gltf_document *doc = load_doc(COMPONENTS_JSON, b, sizeof b);
    uint32_t out[4];
    cna_error err;
    assert_int_equal(cna_gltf_accessor_read_uints(doc, 8, out, 4, &err), CNA_OK);
    assert_int_equal(out[1], 255);
    assert_int_equal(out[2], 128);
    assert_int_equal(cna_gltf_accessor_read_uints(doc, 1, out, 4, &err), CNA_OK); /* normalized ignored */
    assert_int_equal(out[1], 255);
    assert_int_equal(cna_gltf_accessor_read_uints(doc, 4, out, 4, &err), CNA_OK);
    assert_true(out[0] == 4000000000u && out[1] == 7u);
    assert_int_equal(cna_gltf_accessor_read_element_uints(doc, 3, 1, out, 1, &err), CNA_OK);
    assert_int_equal(out[0], 65535);
    cna_gltf_document_free(doc);
}

static void test_read_uints_refuses_signed_and_float_components(void **state)
{
    (void)state;
    uint8_t b[36];
    component_bytes(b);
    cna_gltf_document *doc = load_doc(COMPONENTS_JSON, b, sizeof b);
    uint32_t out[4] = {9, 9, 9, 9};
    cna_error err;
    assert_int_equal(cna_gltf_accessor_read_uints(doc, 5, out, 4, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "accessors[5]: componentType FLOAT cannot be read as unsigned integers");
    assert_int_equal(cna_gltf_accessor_read_uints(doc, 0, out, 4, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "accessors[0]: componentType BYTE cannot be read as unsigned integers");
    assert_int_equal(out[0], 9);
    cna_gltf_document_free(doc);
}

static void test_read_arguments_are_checked_and_nothing_is_written(void **state)
{
    (void)state;
    uint8_t b[36];
    component_bytes(b);
    cna_gltf_document *doc = load_doc(COMPONENTS_JSON, b, sizeof b);
    float out[4] = {9, 9, 9, 9};
    cna_error err;
    assert_int_equal(cna_gltf_accessor_read_floats(doc, 9, out, 4, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "accessor 9 is out of range (9 accessors)");
    assert_int_equal(cna_gltf_accessor_read_floats(doc, -1, out, 4, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_gltf_accessor_read_floats(NULL, 0, out, 4, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_gltf_accessor_read_floats(doc, 0, NULL, 4, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_gltf_accessor_read_floats(doc, 0, out, 3, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "accessors[0]: out_count 3 is smaller than 4");
    assert_int_equal(cna_gltf_accessor_read_element_floats(doc, 0, 4, out, 4, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "accessors[0]: element 4 is out of range (count 4)");
    assert_int_equal(cna_gltf_accessor_read_element_floats(doc, 0, 0, out, 0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_true(out[0] == 9.0f && out[3] == 9.0f);
    assert_int_equal(cna_gltf_accessor_float_count(doc, 9), 0);
    assert_int_equal(cna_gltf_accessor_float_count(NULL, 0), 0);
    cna_gltf_document_free(doc);
}

/* ------------------------------------------------------------ layout */

static const char INTERLEAVED_JSON[] = DOC_HEAD
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":72,\"byteStride\":24},{\"buffer\":0,\"byteOffset\":72,\"byteLength\":36}],"
    "\"accessors\":["
    "{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,1,2],\"max\":[6,7,8]},"
    "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
    "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,1,2],\"max\":[6,7,8]},"
    "{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1}},{\"attributes\":{\"POSITION\":2,\"NORMAL\":3}}]}],"
    "\"nodes\":[{\"mesh\":0}]}";

static void interleaved_bytes(uint8_t *b)
{
    for (int v = 0; v < 3; v++) {
        for (int k = 0; k < 3; k++) {
            tu_put_f32(b + 24 * v + 4 * k, (float)(v * 3 + k));             /* position */
            tu_put_f32(b + 24 * v + 12 + 4 * k, (float)(100 + v * 3 + k));  /* normal */
            tu_put_f32(b + 72 + 12 * v + 4 * k, (float)(v * 3 + k));        /* tight copy of positions */
        }
    }
}

static void test_interleaved_attributes_follow_the_stride(void **state)
{
    (void)state;
    uint8_t b[108];
    interleaved_bytes(b);
    cna_gltf_document *doc = load_doc(INTERLEAVED_JSON, b, sizeof b);
    assert_int_equal(doc->accessors[0].byte_stride, 24);
    const float pos[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    const float nrm[9] = {100, 101, 102, 103, 104, 105, 106, 107, 108};
    expect_floats(doc, 0, pos, 9);
    expect_floats(doc, 1, nrm, 9);
    cna_gltf_document_free(doc);
}

static void test_tightly_packed_attribute_reads_the_same_values(void **state)
{
    (void)state;
    uint8_t b[108];
    interleaved_bytes(b);
    cna_gltf_document *doc = load_doc(INTERLEAVED_JSON, b, sizeof b);
    assert_int_equal(doc->accessors[2].byte_stride, 12);
    const float pos[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    expect_floats(doc, 2, pos, 9);
    cna_gltf_document_free(doc);
}

static void test_accessor_without_buffer_view_reads_zeros(void **state)
{
    (void)state;
    uint8_t b[108];
    interleaved_bytes(b);
    cna_gltf_document *doc = load_doc(INTERLEAVED_JSON, b, sizeof b);
    assert_int_equal(doc->accessors[3].buffer_view, -1);
    const float zeros[9] = {0};
    expect_floats(doc, 3, zeros, 9);
    cna_gltf_document_free(doc);
}

static void test_matrix_columns_are_padded_to_four_bytes(void **state)
{
    (void)state;
    /* MAT2 of bytes: each 2-byte column starts on a 4-byte boundary; the last
     * element needs no trailing padding (14 bytes for 2 elements). */
    uint8_t b[16] = {1, 2, 0, 0, 3, 4, 0, 0, 5, 6, 0, 0, 7, 8, 0, 0};
    static const char json[] = DOC_HEAD "\"bufferViews\":[{\"buffer\":0,\"byteLength\":14}],"
                                        "\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":2,\"type\":\"MAT2\"}]}";
    cna_gltf_document *doc = load_doc(json, b, sizeof b);
    assert_int_equal(doc->accessors[0].element_size, 8);
    const float expected[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    expect_floats(doc, 0, expected, 8);
    cna_gltf_document_free(doc);
}

/* ------------------------------------------------------------ sparse */

static const char SPARSE_JSON[] = DOC_HEAD
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16},{\"buffer\":0,\"byteOffset\":16,\"byteLength\":4},"
    "{\"buffer\":0,\"byteOffset\":20,\"byteLength\":8}],"
    "\"accessors\":["
    "{\"componentType\":5126,\"count\":5,\"type\":\"SCALAR\",\"sparse\":{\"count\":2,"
    "\"indices\":{\"bufferView\":1,\"componentType\":5121},\"values\":{\"bufferView\":2}}}]}";

static void sparse_bytes(uint8_t *b)
{
    for (int i = 0; i < 4; i++) tu_put_f32(b + 4 * i, (float)(i + 1)); /* base 1 2 3 4 */
    b[16] = 1, b[17] = 3; /* u8 indices 1 3 */
    b[18] = b[19] = 0;
    tu_put_f32(b + 20, 7.0f);
    tu_put_f32(b + 24, 9.0f);
}

static void test_sparse_accessor_on_zeros(void **state)
{
    (void)state;
    uint8_t b[28];
    sparse_bytes(b);
    cna_gltf_document *doc = load_doc(SPARSE_JSON, b, sizeof b);
    assert_true(doc->accessors[0].is_sparse);
    const float expected[5] = {0, 7, 0, 9, 0};
    expect_floats(doc, 0, expected, 5);
    cna_gltf_document_free(doc);
}

static const char SPARSE_ON_VIEW_JSON[] = DOC_HEAD
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16},{\"buffer\":0,\"byteOffset\":16,\"byteLength\":4},"
    "{\"buffer\":0,\"byteOffset\":20,\"byteLength\":8}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\",\"sparse\":{\"count\":2,"
    "\"indices\":{\"bufferView\":1,\"componentType\":5123},\"values\":{\"bufferView\":2}}}]}";

static void test_sparse_accessor_on_a_buffer_view(void **state)
{
    (void)state;
    uint8_t b[28];
    sparse_bytes(b);
    tu_put_u16(b + 16, 0); /* u16 indices 0 2 */
    tu_put_u16(b + 18, 2);
    cna_gltf_document *doc = load_doc(SPARSE_ON_VIEW_JSON, b, sizeof b);
    const float expected[4] = {7, 2, 9, 4};
    expect_floats(doc, 0, expected, 4);
    cna_gltf_document_free(doc);
}

static void test_sparse_indices_must_increase(void **state)
{
    (void)state;
    uint8_t b[28];
    sparse_bytes(b);
    tu_put_u16(b + 16, 3);
    tu_put_u16(b + 18, 1);
    expect_doc_error(SPARSE_ON_VIEW_JSON, b, sizeof b,
                     "accessors[0].sparse.indices: indices must increase (3 then 1 at entry 1)");
}

static void test_sparse_indices_must_be_below_count(void **state)
{
    (void)state;
    uint8_t b[28];
    sparse_bytes(b);
    tu_put_u16(b + 16, 0);
    tu_put_u16(b + 18, 4);
    expect_doc_error(SPARSE_ON_VIEW_JSON, b, sizeof b,
                     "accessors[0].sparse.indices: index 4 at entry 1 is not below the accessor count 4");
}

static void test_sparse_count_must_not_exceed_accessor_count(void **state)
{
    (void)state;
    uint8_t b[28];
    sparse_bytes(b);
    char *json = tu_edit(SPARSE_ON_VIEW_JSON, "\"sparse\":{\"count\":2", "\"sparse\":{\"count\":5");
    expect_doc_error(json, b, sizeof b, "accessors[0].sparse.count: 5; must be between 1 and the accessor count 4");
    free(json);
}

static void test_sparse_values_beyond_their_view_are_refused(void **state)
{
    (void)state;
    uint8_t b[28];
    sparse_bytes(b);
    char *json = tu_edit(SPARSE_ON_VIEW_JSON, "\"values\":{\"bufferView\":2}", "\"values\":{\"bufferView\":2,\"byteOffset\":4}");
    expect_doc_error(json, b, sizeof b,
                     "accessors[0].sparse.values: sparse values needs 8 bytes at byteOffset 4, past the end of bufferViews[2] "
                     "(8 bytes)");
    free(json);
}

static void test_sparse_buffer_view_must_not_have_a_stride(void **state)
{
    (void)state;
    uint8_t b[28];
    sparse_bytes(b);
    char *json = tu_edit(SPARSE_ON_VIEW_JSON, "\"byteOffset\":20,\"byteLength\":8}", "\"byteOffset\":20,\"byteLength\":8,\"byteStride\":4}");
    expect_doc_error(json, b, sizeof b, "accessors[0].sparse.values: bufferViews[2] must not define byteStride");
    free(json);
}

/* ------------------------------------------------------------ KHR_mesh_quantization */

static const char QUANTIZED_JSON[] = DOC_HEAD
    "@EXT@\"bufferViews\":[{\"buffer\":0,\"byteLength\":24,\"byteStride\":8}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5122,\"normalized\":true,\"count\":3,\"type\":\"VEC3\","
    "\"min\":[0,-1,-1],\"max\":[1,0,0]}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]}";

static void quantized_bytes(uint8_t *b)
{
    memset(b, 0, 24);
    const int16_t v[9] = {32767, -32767, 0, 16384, 0, -32768, 1, 2, 3};
    for (int e = 0; e < 3; e++)
        for (int k = 0; k < 3; k++) tu_put_u16(b + 8 * e + 2 * k, (uint16_t)v[e * 3 + k]);
}

static void test_quantized_position_needs_mesh_quantization(void **state)
{
    (void)state;
    uint8_t b[24];
    quantized_bytes(b);
    char *fmt = tu_edit(QUANTIZED_JSON, "@EXT@", ""), json[2048];
    snprintf(json, sizeof json, fmt, 24);
    free(fmt);
    tu_expect_error(json, b, 24, CNA_ERROR_INVALID_DATA,
                    "meshes[0].primitives[0].attributes.POSITION: accessors[0] is VEC3 normalized SHORT; expected VEC3 FLOAT");
}

static void test_quantized_position_loads_with_mesh_quantization(void **state)
{
    (void)state;
    uint8_t b[24];
    quantized_bytes(b);
    char *fmt = tu_edit(QUANTIZED_JSON, "@EXT@", "\"extensionsUsed\":[\"KHR_mesh_quantization\"],"), json[2048];
    snprintf(json, sizeof json, fmt, 24);
    free(fmt);
    cna_gltf_document *doc = tu_expect_ok(json, b, 24);
    const float expected[9] = {1.0f, -1.0f, 0.0f, 16384.0f / 32767.0f, 0.0f, -1.0f,
                               1.0f / 32767.0f, 2.0f / 32767.0f, 3.0f / 32767.0f};
    expect_floats(doc, 0, expected, 9);
    cna_gltf_document_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalized_signed_byte_is_c_over_127_clamped_at_minus_one),
        cmocka_unit_test(test_normalized_unsigned_byte_is_c_over_255),
        cmocka_unit_test(test_normalized_short_is_c_over_32767_clamped_at_minus_one),
        cmocka_unit_test(test_normalized_unsigned_short_is_c_over_65535),
        cmocka_unit_test(test_unnormalized_integers_convert_to_their_value),
        cmocka_unit_test(test_read_uints_gives_raw_unsigned_values),
        cmocka_unit_test(test_read_uints_refuses_signed_and_float_components),
        cmocka_unit_test(test_read_arguments_are_checked_and_nothing_is_written),
        cmocka_unit_test(test_interleaved_attributes_follow_the_stride),
        cmocka_unit_test(test_tightly_packed_attribute_reads_the_same_values),
        cmocka_unit_test(test_accessor_without_buffer_view_reads_zeros),
        cmocka_unit_test(test_matrix_columns_are_padded_to_four_bytes),
        cmocka_unit_test(test_sparse_accessor_on_zeros),
        cmocka_unit_test(test_sparse_accessor_on_a_buffer_view),
        cmocka_unit_test(test_sparse_indices_must_increase),
        cmocka_unit_test(test_sparse_indices_must_be_below_count),
        cmocka_unit_test(test_sparse_count_must_not_exceed_accessor_count),
        cmocka_unit_test(test_sparse_values_beyond_their_view_are_refused),
        cmocka_unit_test(test_sparse_buffer_view_must_not_have_a_stride),
        cmocka_unit_test(test_quantized_position_needs_mesh_quantization),
        cmocka_unit_test(test_quantized_position_loads_with_mesh_quantization),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
