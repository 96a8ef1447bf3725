/*
 * Per-instance morph state and set-weights (spec: SetMorphWeightsEXT): blend,
 * store the weights, re-upload the whole vertex buffer once through the
 * device interface; on any error nothing changes.
 */
#include "morph/morph_fixture.h"

#include <stdlib.h>

typedef struct rig {
    fixture_triangle f;
    cna_null_device *null_dev;
    const cna_device *dev;
    cna_morph_instance *inst;
    cna_buffer_id vb;
} rig;

static int rig_setup(void **state)
{
    rig *r = calloc(1, sizeof *r);
    if (!r) return -1;
    fixture_triangle_init(&r->f);
    if (cna_null_device_create(NULL, &r->null_dev, NULL) != CNA_OK) return -1;
    r->dev = cna_null_device_interface(r->null_dev);
    if (cna_morph_instance_create(&r->f.data, NULL, &r->inst, NULL) != CNA_OK) return -1;
    size_t size;
    cna_buffer_desc desc = {0};
    desc.kind = CNA_BUFFER_KIND_VERTEX;
    desc.usage = CNA_BUFFER_USAGE_DYNAMIC;
    desc.data = cna_morph_instance_vertices(r->inst, &size);
    desc.size = size;
    if (cna_device_create_buffer(r->dev, &desc, &r->vb, NULL) != CNA_OK) return -1;
    cna_morph_instance_bind_vertex_buffer(r->inst, r->vb);
    *state = r;
    return 0;
}

static int rig_teardown(void **state)
{
    rig *r = *state;
    cna_morph_instance_free(r->inst);
    cna_device_destroy_buffer(r->dev, r->vb);
    cna_null_device_free(r->null_dev);
    free(r);
    return 0;
}

static void a_new_instance_holds_the_base_pose_and_zero_weights(void **state)
{
    rig *r = *state;
    size_t count, size;
    const float *w = cna_morph_instance_weights(r->inst, &count);
    assert_int_equal(count, 2);
    assert_float_exact(w[0], 0.0f);
    assert_float_exact(w[1], 0.0f);
    const void *v = cna_morph_instance_vertices(r->inst, &size);
    assert_int_equal(size, 96);
    assert_memory_equal(v, r->f.base, 96);
    assert_ptr_equal(cna_morph_instance_data(r->inst), &r->f.data);
    assert_int_equal(cna_morph_instance_vertex_buffer(r->inst), r->vb);
}

static void set_weights_uploads_the_whole_buffer_exactly_once(void **state)
{
    rig *r = *state;
    cna_error err;
    const float w[2] = {1.0f, 1.0f};
    assert_int_equal(cna_morph_set_weights(r->inst, w, 2, r->dev, &err), CNA_OK);

    cna_null_device_stats s;
    cna_null_device_get_stats(r->null_dev, &s);
    assert_int_equal(s.create_count, 1);
    assert_int_equal(s.upload_count, 1);
    assert_int_equal(s.last_upload_buffer, r->vb);
    assert_int_equal(s.last_upload_offset, 0);
    assert_int_equal(s.last_upload_size, 96);

    unsigned char expected[96];
    assert_int_equal(cna_morph_blend(&r->f.data, w, 2, expected, sizeof expected, NULL), CNA_OK);
    size_t size;
    const void *uploaded = cna_null_device_last_upload(r->null_dev, &size);
    assert_int_equal(size, 96);
    assert_memory_equal(uploaded, expected, 96);
    assert_memory_equal(cna_null_device_buffer_contents(r->null_dev, r->vb, NULL), expected, 96);
    assert_memory_equal(cna_morph_instance_vertices(r->inst, NULL), expected, 96);
    /* the spec's vertex 0 */
    assert_float_exact(fixture_get(uploaded, 0), 2.0f);
    assert_float_exact(fixture_get(uploaded, 8), 1.0f);
}

static void set_weights_stores_the_weights(void **state)
{
    rig *r = *state;
    const float w[2] = {0.25f, -0.75f};
    assert_int_equal(cna_morph_set_weights(r->inst, w, 2, r->dev, NULL), CNA_OK);
    size_t count;
    const float *cur = cna_morph_instance_weights(r->inst, &count);
    assert_int_equal(count, 2);
    assert_float_exact(cur[0], 0.25f);
    assert_float_exact(cur[1], -0.75f);
}

static void every_call_uploads_once_more(void **state)
{
    rig *r = *state;
    const float a[2] = {1.0f, 0.0f}, b[2] = {0.0f, 0.0f};
    assert_int_equal(cna_morph_set_weights(r->inst, a, 2, r->dev, NULL), CNA_OK);
    assert_int_equal(cna_morph_set_weights(r->inst, b, 2, r->dev, NULL), CNA_OK);
    cna_null_device_stats s;
    cna_null_device_get_stats(r->null_dev, &s);
    assert_int_equal(s.upload_count, 2);
    /* back to zero weights: the base bytes again */
    assert_memory_equal(cna_null_device_last_upload(r->null_dev, NULL), r->f.base, 96);
}

static void wrong_weight_counts_change_nothing_and_upload_nothing(void **state)
{
    rig *r = *state;
    const float first[2] = {0.5f, 0.5f};
    assert_int_equal(cna_morph_set_weights(r->inst, first, 2, r->dev, NULL), CNA_OK);
    unsigned char before[96];
    memcpy(before, cna_morph_instance_vertices(r->inst, NULL), 96);

    const float w3[3] = {1.0f, 1.0f, 1.0f};
    cna_error err;
    assert_int_equal(cna_morph_set_weights(r->inst, w3, 1, r->dev, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "weights: 1 given for 2 targets; exactly 2 are required "
                                     "(no padding, no truncation)");
    assert_int_equal(cna_morph_set_weights(r->inst, w3, 3, r->dev, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "weights: 3 given for 2 targets; exactly 2 are required "
                                     "(no padding, no truncation)");

    cna_null_device_stats s;
    cna_null_device_get_stats(r->null_dev, &s);
    assert_int_equal(s.upload_count, 1);
    const float *cur = cna_morph_instance_weights(r->inst, NULL);
    assert_float_exact(cur[0], 0.5f);
    assert_float_exact(cur[1], 0.5f);
    assert_memory_equal(cna_morph_instance_vertices(r->inst, NULL), before, 96);
}

static void a_failed_upload_changes_nothing(void **state)
{
    rig *r = *state;
    const float first[2] = {1.0f, 0.0f};
    assert_int_equal(cna_morph_set_weights(r->inst, first, 2, r->dev, NULL), CNA_OK);
    unsigned char before[96];
    memcpy(before, cna_morph_instance_vertices(r->inst, NULL), 96);

    cna_null_device_fail_next(r->null_dev, CNA_ERROR_OUT_OF_MEMORY);
    const float w[2] = {1.0f, 1.0f};
    cna_error err;
    assert_int_equal(cna_morph_set_weights(r->inst, w, 2, r->dev, &err), CNA_ERROR_OUT_OF_MEMORY);
    assert_string_equal(err.message,
                        "morph instance: upload of 96 bytes to buffer 1: null device: "
                        "set_buffer_data failed as requested (out-of-memory)");
    const float *cur = cna_morph_instance_weights(r->inst, NULL);
    assert_float_exact(cur[0], 1.0f);
    assert_float_exact(cur[1], 0.0f);
    assert_memory_equal(cna_morph_instance_vertices(r->inst, NULL), before, 96);
    assert_memory_equal(cna_null_device_buffer_contents(r->null_dev, r->vb, NULL), before, 96);
    cna_null_device_stats s;
    cna_null_device_get_stats(r->null_dev, &s);
    assert_int_equal(s.upload_count, 1);
}

static void uploading_without_a_bound_buffer_is_refused(void **state)
{
    rig *r = *state;
    cna_morph_instance_bind_vertex_buffer(r->inst, 0);
    const float w[2] = {1.0f, 1.0f};
    cna_error err;
    assert_int_equal(cna_morph_set_weights(r->inst, w, 2, r->dev, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "morph instance: no vertex buffer bound to upload to");
    assert_memory_equal(cna_morph_instance_vertices(r->inst, NULL), r->f.base, 96);
    assert_float_exact(cna_morph_instance_weights(r->inst, NULL)[0], 0.0f);
}

static void a_null_device_argument_blends_on_the_cpu_only(void **state)
{
    rig *r = *state;
    const float w[2] = {1.0f, 1.0f};
    assert_int_equal(cna_morph_set_weights(r->inst, w, 2, NULL, NULL), CNA_OK);
    assert_float_exact(fixture_get(cna_morph_instance_vertices(r->inst, NULL), 0), 2.0f);
    assert_float_exact(cna_morph_instance_weights(r->inst, NULL)[1], 1.0f);
    cna_null_device_stats s;
    cna_null_device_get_stats(r->null_dev, &s);
    assert_int_equal(s.upload_count, 0);
}

static void initial_weights_are_blended_at_creation(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    const float init[2] = {0.0f, 0.5f};
    f.data.initial_weights = init;
    f.data.initial_weight_count = 2;
    cna_morph_instance *inst;
    assert_int_equal(cna_morph_instance_create(&f.data, NULL, &inst, NULL), CNA_OK);
    assert_float_exact(fixture_get(cna_morph_instance_vertices(inst, NULL), 0), 1.0f);
    assert_float_exact(cna_morph_instance_weights(inst, NULL)[1], 0.5f);
    assert_int_equal(cna_morph_instance_vertex_buffer(inst), 0);
    cna_morph_instance_free(inst);
    cna_morph_instance_free(NULL);
}

static size_t hook_allocs, hook_frees;
static void *counting_alloc(void *user, size_t size)
{
    (void)user;
    hook_allocs++;
    return malloc(size);
}
static void counting_free(void *user, void *ptr)
{
    (void)user;
    hook_frees++;
    free(ptr);
}

static void set_weights_allocates_nothing_and_the_instance_uses_its_allocator(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    cna_allocator a = {counting_alloc, counting_free, NULL};
    hook_allocs = hook_frees = 0;
    cna_morph_instance *inst;
    assert_int_equal(cna_morph_instance_create(&f.data, &a, &inst, NULL), CNA_OK);
    const size_t after_create = hook_allocs;
    assert_true(after_create > 0);
    const float w[2] = {1.0f, 0.5f};
    for (int i = 0; i < 10; i++)
        assert_int_equal(cna_morph_set_weights(inst, w, 2, NULL, NULL), CNA_OK);
    assert_int_equal(hook_allocs, after_create);
    cna_morph_instance_free(inst);
    assert_int_equal(hook_frees, hook_allocs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_new_instance_holds_the_base_pose_and_zero_weights,
                                        rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(set_weights_uploads_the_whole_buffer_exactly_once,
                                        rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(set_weights_stores_the_weights, rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(every_call_uploads_once_more, rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(wrong_weight_counts_change_nothing_and_upload_nothing,
                                        rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(a_failed_upload_changes_nothing, rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(uploading_without_a_bound_buffer_is_refused, rig_setup,
                                        rig_teardown),
        cmocka_unit_test_setup_teardown(a_null_device_argument_blends_on_the_cpu_only, rig_setup,
                                        rig_teardown),
        cmocka_unit_test(initial_weights_are_blended_at_creation),
        cmocka_unit_test(set_weights_allocates_nothing_and_the_instance_uses_its_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
