/*
 * Inconsistent hand-built carriers and wrong weights are refused with an
 * error naming the array and the values; nothing is written, nothing is read
 * out of bounds (the arrays here are exactly as long as they claim, so
 * AddressSanitizer would catch a stray read).
 */
#include "morph/morph_fixture.h"

#include <stdio.h>

/* Blend must fail with `code` and `message`, leaving `out` untouched. */
static void expect_refusal(const cna_morph_target_data *data, const float *w, size_t n,
                           cna_result code, const char *message)
{
    unsigned char out[256];
    unsigned char before[256];
    memset(out, 0xAB, sizeof out);
    memcpy(before, out, sizeof out);
    cna_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(cna_morph_blend(data, w, n, out, sizeof out, &err), code);
    assert_int_equal(err.code, code);
    assert_string_equal(err.message, message);
    assert_memory_equal(out, before, sizeof out);
    /* validation alone says the same, and so does creating an instance */
    if (w == NULL || n == data->target_count) {
        cna_error err2;
        cna_morph_instance *inst = (cna_morph_instance *)(uintptr_t)1;
        cna_result r = cna_morph_target_data_validate(data, &err2);
        if (r != CNA_OK) {
            assert_string_equal(err2.message, message);
            assert_int_equal(cna_morph_instance_create(data, NULL, &inst, &err2), code);
            assert_true(inst == (cna_morph_instance *)(uintptr_t)1);
        }
    }
}

static const float w2[2] = {1.0f, 1.0f};

static void too_few_weights_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    expect_refusal(&f.data, w2, 1, CNA_ERROR_INVALID_ARGUMENT,
                   "weights: 1 given for 2 targets; exactly 2 are required (no padding, no "
                   "truncation)");
}

static void too_many_weights_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    const float w3[3] = {1.0f, 1.0f, 0.0f};
    expect_refusal(&f.data, w3, 3, CNA_ERROR_INVALID_ARGUMENT,
                   "weights: 3 given for 2 targets; exactly 2 are required (no padding, no "
                   "truncation)");
}

static void a_weight_that_is_not_finite_is_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    const float wn[2] = {1.0f, NAN};
    expect_refusal(&f.data, wn, 2, CNA_ERROR_INVALID_ARGUMENT, "weights[1]: nan is not finite");
    const float wi[2] = {-INFINITY, 0.0f};
    expect_refusal(&f.data, wi, 2, CNA_ERROR_INVALID_ARGUMENT, "weights[0]: -inf is not finite");
}

static void null_weights_with_a_count_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    expect_refusal(&f.data, NULL, 2, CNA_ERROR_INVALID_ARGUMENT, "weights: NULL with count 2");
}

static void a_dense_delta_array_of_the_wrong_length_is_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    const float two[6] = {1, 0, 0, 1, 0, 0};
    f.targets[1].normals = cna_morph_deltas_dense(two, 2);
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "targets[1].normals: 2 deltas; expected 0 or vertex_count 3");
    f.targets[1].normals = cna_morph_deltas_dense(NULL, 0);
    const float four[12] = {0};
    f.targets[0].positions = cna_morph_deltas_dense(four, 4);
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "targets[0].positions: 4 deltas; expected 0 or vertex_count 3");
}

static void a_short_tangent_delta_array_is_refused(void **state)
{
    (void)state;
    unsigned char base[3 * 48] = {0};
    const float one[3] = {1, 0, 0};
    cna_morph_target target;
    memset(&target, 0, sizeof target);
    target.tangents = cna_morph_deltas_dense(one, 1);
    cna_morph_target_data data = {0};
    assert_int_equal(cna_morph_layout_canonical(48, &data.layout, NULL), CNA_OK);
    data.base_vertices = base;
    data.base_size = sizeof base;
    data.vertex_count = 3;
    data.targets = &target;
    data.target_count = 1;
    const float w = 1.0f;
    expect_refusal(&data, &w, 1, CNA_ERROR_INVALID_ARGUMENT,
                   "targets[0].tangents: 1 deltas; expected 0 or vertex_count 3");
}

static void null_delta_values_with_a_count_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    f.targets[0].positions = cna_morph_deltas_dense(NULL, 3);
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "targets[0].positions.values: NULL with count 3");
}

static void null_targets_with_a_count_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    f.data.targets = NULL;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "targets: NULL with target_count 2");
}

static void a_sparse_index_out_of_range_is_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    const uint32_t idx[2] = {0, 3};
    const float vals[6] = {1, 0, 0, 1, 0, 0};
    f.targets[0].positions = cna_morph_deltas_sparse(idx, vals, 2);
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "targets[0].positions.indices[1]: vertex 3 out of range (vertex_count 3)");
}

static void sparse_indices_that_do_not_increase_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    const uint32_t idx[3] = {0, 2, 2};
    const float vals[9] = {0};
    f.targets[1].normals = cna_morph_deltas_sparse(idx, vals, 3);
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "targets[1].normals.indices[2]: vertex 2 does not increase after indices[1] "
                   "= 2");
}

static void more_sparse_deltas_than_vertices_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    const uint32_t idx[4] = {0, 1, 2, 3};
    const float vals[12] = {0};
    f.targets[0].positions = cna_morph_deltas_sparse(idx, vals, 4);
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "targets[0].positions: 4 sparse deltas for vertex_count 3");
}

static void deltas_without_a_layout_slot_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    const float t[9] = {0};
    f.targets[1].tangents = cna_morph_deltas_dense(t, 3); /* stride 32 has no tangent */
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "targets[1].tangents: 3 deltas but the layout has no tangent slot");
}

static void base_bytes_of_the_wrong_size_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    f.data.base_size = 90;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "base_size: 90 bytes; vertex_count 3 * stride 32 = 96");
}

static void null_base_bytes_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    f.data.base_vertices = NULL;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "base_vertices: NULL with base_size 96");
}

static void a_vertex_size_that_overflows_is_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    f.data.vertex_count = SIZE_MAX / 16;
    char expected[128];
    snprintf(expected, sizeof expected, "base_size: vertex_count %zu * stride 32 overflows",
             SIZE_MAX / 16);
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT, expected);
}

static void a_stride_too_small_for_the_offsets_is_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    f.data.layout.stride = 20;
    f.data.base_size = 60;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "layout.normal_offset: 12 + 12 bytes exceed stride 20");
    f.data.layout.stride = 0;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT, "layout.stride: 0");
}

static void overlapping_or_negative_slots_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    f.data.layout.normal_offset = 8;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "layout: normal slot (offset 8, 12 bytes) overlaps position slot (offset 0, "
                   "12 bytes)");
    f.data.layout.normal_offset = -2;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "layout.normal_offset: -2 (must be -1 or a byte offset)");
}

static void initial_weights_of_the_wrong_count_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    const float w1 = 0.5f;
    f.data.initial_weights = &w1;
    f.data.initial_weight_count = 1;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "initial_weights: 1 given for 2 targets; expected 0 or 2");
    const float wn[2] = {0.0f, INFINITY};
    f.data.initial_weights = wn;
    f.data.initial_weight_count = 2;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "initial_weights[1]: inf is not finite");
}

static void flat_normals_without_a_normal_slot_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    f.targets[1].normals = cna_morph_deltas_dense(NULL, 0);
    f.data.layout.normal_offset = -1;
    f.data.recompute_flat_normals = true;
    const uint32_t tri[3] = {0, 1, 2};
    f.data.triangle_indices = tri;
    f.data.triangle_index_count = 3;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "recompute_flat_normals: the layout has no normal slot");
}

static void bad_triangle_indices_are_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    f.data.recompute_flat_normals = true;
    const uint32_t tri[4] = {0, 1, 3, 0};
    f.data.triangle_indices = tri;
    f.data.triangle_index_count = 3;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "triangle_indices[2]: vertex 3 out of range (vertex_count 3)");
    f.data.triangle_index_count = 4;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "triangle_indices: 4 indices is not a multiple of 3");
    f.data.triangle_indices = NULL;
    f.data.triangle_index_count = 3;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "triangle_indices: NULL with triangle_index_count 3");
}

static void triangle_indices_are_ignored_without_the_flat_switch(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    const uint32_t tri[3] = {0, 1, 9};
    f.data.triangle_indices = tri;
    f.data.triangle_index_count = 3;
    assert_int_equal(cna_morph_target_data_validate(&f.data, NULL), CNA_OK);
}

static void a_weight_track_for_another_target_count_is_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    const float times[1] = {0.0f}, values[3] = {0, 0, 0};
    cna_morph_weight_track track = {0};
    track.times = times;
    track.key_count = 1;
    track.target_count = 3;
    track.values = values;
    f.data.weight_track = &track;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "weight_track: 3 weights per key for 2 targets");
    const float bad_times[2] = {0.5f, 0.25f}, values2[4] = {0};
    track.times = bad_times;
    track.key_count = 2;
    track.target_count = 2;
    track.values = values2;
    expect_refusal(&f.data, w2, 2, CNA_ERROR_INVALID_ARGUMENT,
                   "weight_track: times[1]: 0.25 does not increase after times[0] = 0.5");
}

static void an_output_too_small_or_overlapping_is_refused(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    unsigned char out[95];
    cna_error err;
    assert_int_equal(cna_morph_blend(&f.data, w2, 2, out, sizeof out, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "out: 95 bytes; the blend writes 96 (vertex_count 3 * stride 32)");
    assert_int_equal(cna_morph_blend(&f.data, w2, 2, NULL, 96, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "out: NULL with out_size 96");
    unsigned char copy[96 + 32];
    memcpy(copy, f.base, 96);
    f.data.base_vertices = copy;
    assert_int_equal(cna_morph_blend(&f.data, w2, 2, copy + 32, 96, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "out: overlaps base_vertices (96 bytes)");
}

static void a_null_carrier_is_refused(void **state)
{
    (void)state;
    cna_error err;
    assert_int_equal(cna_morph_target_data_validate(NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "morph: NULL data");
    assert_int_equal(cna_morph_blend_size(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(too_few_weights_are_refused),
        cmocka_unit_test(too_many_weights_are_refused),
        cmocka_unit_test(a_weight_that_is_not_finite_is_refused),
        cmocka_unit_test(null_weights_with_a_count_are_refused),
        cmocka_unit_test(a_dense_delta_array_of_the_wrong_length_is_refused),
        cmocka_unit_test(a_short_tangent_delta_array_is_refused),
        cmocka_unit_test(null_delta_values_with_a_count_are_refused),
        cmocka_unit_test(null_targets_with_a_count_are_refused),
        cmocka_unit_test(a_sparse_index_out_of_range_is_refused),
        cmocka_unit_test(sparse_indices_that_do_not_increase_are_refused),
        cmocka_unit_test(more_sparse_deltas_than_vertices_are_refused),
        cmocka_unit_test(deltas_without_a_layout_slot_are_refused),
        cmocka_unit_test(base_bytes_of_the_wrong_size_are_refused),
        cmocka_unit_test(null_base_bytes_are_refused),
        cmocka_unit_test(a_vertex_size_that_overflows_is_refused),
        cmocka_unit_test(a_stride_too_small_for_the_offsets_is_refused),
        cmocka_unit_test(overlapping_or_negative_slots_are_refused),
        cmocka_unit_test(initial_weights_of_the_wrong_count_are_refused),
        cmocka_unit_test(flat_normals_without_a_normal_slot_are_refused),
        cmocka_unit_test(bad_triangle_indices_are_refused),
        cmocka_unit_test(triangle_indices_are_ignored_without_the_flat_switch),
        cmocka_unit_test(a_weight_track_for_another_target_count_is_refused),
        cmocka_unit_test(an_output_too_small_or_overlapping_is_refused),
        cmocka_unit_test(a_null_carrier_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
