/*
 * The device interface and the null device: argument checks of the
 * cna_device_* wrappers, what the null device records, range uploads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cna/device.h"

typedef struct dev_fixture {
    cna_null_device *null_dev;
    const cna_device *dev;
} dev_fixture;

static int setup(void **state)
{
    static dev_fixture f;
    if (cna_null_device_create(NULL, &f.null_dev, NULL) != CNA_OK) return -1;
    f.dev = cna_null_device_interface(f.null_dev);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    dev_fixture *f = *state;
    cna_null_device_free(f->null_dev); /* frees live buffers too (LeakSanitizer checks) */
    return 0;
}

static cna_buffer_id create(const cna_device *dev, const void *data, size_t size)
{
    cna_buffer_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.data = data;
    desc.size = size;
    cna_buffer_id id = 0;
    assert_int_equal(cna_device_create_buffer(dev, &desc, &id, NULL), CNA_OK);
    assert_true(id != 0);
    return id;
}

static void a_created_buffer_holds_its_initial_bytes(void **state)
{
    dev_fixture *f = *state;
    const unsigned char bytes[5] = {1, 2, 3, 4, 5};
    cna_buffer_id a = create(f->dev, bytes, 5);
    cna_buffer_id b = create(f->dev, NULL, 3);
    assert_true(a != b);
    size_t size;
    assert_memory_equal(cna_null_device_buffer_contents(f->null_dev, a, &size), bytes, 5);
    assert_int_equal(size, 5);
    const unsigned char zeros[3] = {0};
    assert_memory_equal(cna_null_device_buffer_contents(f->null_dev, b, &size), zeros, 3);
    cna_null_device_stats s;
    cna_null_device_get_stats(f->null_dev, &s);
    assert_int_equal(s.create_count, 2);
    assert_int_equal(s.upload_count, 0);
    assert_int_equal(s.live_buffer_count, 2);
    assert_int_equal(s.last_upload_buffer, 0);
    assert_null(cna_null_device_last_upload(f->null_dev, &size));
    assert_int_equal(size, 0);
}

static void a_range_upload_replaces_only_that_range_and_is_recorded(void **state)
{
    dev_fixture *f = *state;
    const unsigned char bytes[6] = {1, 2, 3, 4, 5, 6};
    cna_buffer_id a = create(f->dev, bytes, 6);
    const unsigned char patch[2] = {9, 8};
    assert_int_equal(cna_device_set_buffer_data(f->dev, a, 3, patch, 2, NULL), CNA_OK);
    const unsigned char expected[6] = {1, 2, 3, 9, 8, 6};
    assert_memory_equal(cna_null_device_buffer_contents(f->null_dev, a, NULL), expected, 6);
    cna_null_device_stats s;
    cna_null_device_get_stats(f->null_dev, &s);
    assert_int_equal(s.upload_count, 1);
    assert_int_equal(s.last_upload_buffer, a);
    assert_int_equal(s.last_upload_offset, 3);
    assert_int_equal(s.last_upload_size, 2);
    size_t size;
    assert_memory_equal(cna_null_device_last_upload(f->null_dev, &size), patch, 2);
    assert_int_equal(size, 2);
}

static void an_upload_outside_the_buffer_is_refused_and_changes_nothing(void **state)
{
    dev_fixture *f = *state;
    const unsigned char bytes[4] = {1, 2, 3, 4};
    cna_buffer_id a = create(f->dev, bytes, 4);
    const unsigned char patch[3] = {9, 9, 9};
    cna_error err;
    assert_int_equal(cna_device_set_buffer_data(f->dev, a, 2, patch, 3, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "null device: buffer 1: range of 3 bytes at offset 2 exceeds its 4 bytes");
    assert_int_equal(cna_device_set_buffer_data(f->dev, a, SIZE_MAX, patch, 3, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_memory_equal(cna_null_device_buffer_contents(f->null_dev, a, NULL), bytes, 4);
    cna_null_device_stats s;
    cna_null_device_get_stats(f->null_dev, &s);
    assert_int_equal(s.upload_count, 0);
}

static void unknown_and_destroyed_buffers_are_refused(void **state)
{
    dev_fixture *f = *state;
    const unsigned char bytes[4] = {1, 2, 3, 4};
    cna_buffer_id a = create(f->dev, bytes, 4);
    cna_device_destroy_buffer(f->dev, a);
    cna_device_destroy_buffer(f->dev, a);  /* ignored */
    cna_device_destroy_buffer(f->dev, 77); /* ignored */
    cna_error err;
    assert_int_equal(cna_device_set_buffer_data(f->dev, a, 0, bytes, 4, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "null device: buffer 1: no such buffer");
    assert_int_equal(cna_device_set_buffer_data(f->dev, 0, 0, bytes, 4, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "device: set_buffer_data: buffer id 0 is not a buffer");
    assert_null(cna_null_device_buffer_contents(f->null_dev, a, NULL));
    cna_null_device_stats s;
    cna_null_device_get_stats(f->null_dev, &s);
    assert_int_equal(s.destroy_count, 1);
    assert_int_equal(s.live_buffer_count, 0);
    /* ids are not reused */
    assert_int_equal(create(f->dev, bytes, 4), a + 1);
}

static void the_wrappers_check_their_arguments(void **state)
{
    dev_fixture *f = *state;
    cna_buffer_desc desc;
    memset(&desc, 0, sizeof desc);
    cna_buffer_id id = 42;
    cna_error err;
    assert_int_equal(cna_device_create_buffer(NULL, &desc, &id, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "device: NULL device");
    assert_int_equal(cna_device_create_buffer(f->dev, NULL, &id, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "device: create_buffer: NULL desc");
    desc.kind = CNA_BUFFER_KIND_COUNT;
    assert_int_equal(cna_device_create_buffer(f->dev, &desc, &id, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "device: create_buffer: kind 3 is not a cna_buffer_kind");
    desc.kind = CNA_BUFFER_KIND_INDEX;
    desc.usage = (cna_buffer_usage)-1;
    assert_int_equal(cna_device_create_buffer(f->dev, &desc, &id, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "device: create_buffer: usage -1 is not a cna_buffer_usage");
    assert_int_equal(id, 42);
    cna_buffer_id a = create(f->dev, NULL, 4);
    assert_int_equal(cna_device_set_buffer_data(f->dev, a, 0, NULL, 4, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "device: set_buffer_data(buffer 1): NULL data with size 4");
    cna_device empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(cna_device_set_buffer_data(&empty, a, 0, NULL, 0, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "device: no set_buffer_data hook");
    cna_device_destroy_buffer(&empty, a); /* no hook: nothing happens */
    cna_device_destroy_buffer(NULL, a);
}

static void an_armed_failure_fails_the_next_call_only(void **state)
{
    dev_fixture *f = *state;
    cna_null_device_fail_next(f->null_dev, CNA_ERROR_OUT_OF_MEMORY);
    cna_buffer_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.size = 4;
    cna_buffer_id id = 0;
    cna_error err;
    assert_int_equal(cna_device_create_buffer(f->dev, &desc, &id, &err), CNA_ERROR_OUT_OF_MEMORY);
    assert_string_equal(err.message,
                        "null device: create_buffer failed as requested (out-of-memory)");
    assert_int_equal(id, 0);
    assert_int_equal(cna_device_create_buffer(f->dev, &desc, &id, &err), CNA_OK);
    cna_null_device_stats s;
    cna_null_device_get_stats(f->null_dev, &s);
    assert_int_equal(s.create_count, 1);
}

/* A hand-written device: what the wrappers pass and how they report a
 * failing hook that wrote no message, or a "successful" id 0. */
typedef struct spy {
    cna_buffer_desc seen;
    cna_buffer_id give;
    cna_result result;
} spy;

static cna_result spy_create(void *user, const cna_buffer_desc *desc, cna_buffer_id *out,
                             cna_error *err)
{
    (void)err;
    spy *s = user;
    s->seen = *desc;
    if (s->result == CNA_OK) *out = s->give;
    return s->result;
}

static void a_custom_device_gets_resolved_defaults_and_quiet_failures_get_a_message(void **state)
{
    (void)state;
    spy s;
    memset(&s, 0, sizeof s);
    cna_device dev;
    memset(&dev, 0, sizeof dev);
    dev.user_data = &s;
    dev.create_buffer = spy_create;
    cna_buffer_desc desc;
    memset(&desc, 0, sizeof desc);
    cna_buffer_id id = 0;
    cna_error err;
    s.give = 5;
    assert_int_equal(cna_device_create_buffer(&dev, &desc, &id, &err), CNA_OK);
    assert_int_equal(id, 5);
    assert_int_equal(s.seen.kind, CNA_BUFFER_KIND_VERTEX);
    assert_int_equal(s.seen.usage, CNA_BUFFER_USAGE_STATIC);
    s.give = 0;
    id = 9;
    assert_int_equal(cna_device_create_buffer(&dev, &desc, &id, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "device: create_buffer returned buffer id 0");
    assert_int_equal(id, 9);
    s.result = CNA_ERROR_LIMIT;
    assert_int_equal(cna_device_create_buffer(&dev, &desc, &id, &err), CNA_ERROR_LIMIT);
    assert_string_equal(err.message, "device: create_buffer failed (limit)");
}

static void a_null_device_pointer_is_harmless(void **state)
{
    (void)state;
    cna_null_device_free(NULL);
    assert_null(cna_null_device_interface(NULL));
    cna_null_device_stats s;
    memset(&s, 0xFF, sizeof s);
    cna_null_device_get_stats(NULL, &s);
    assert_int_equal(s.create_count, 0);
    assert_null(cna_null_device_last_upload(NULL, NULL));
    assert_int_equal(cna_null_device_create(NULL, NULL, NULL), CNA_ERROR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_created_buffer_holds_its_initial_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(a_range_upload_replaces_only_that_range_and_is_recorded,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            an_upload_outside_the_buffer_is_refused_and_changes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_and_destroyed_buffers_are_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(the_wrappers_check_their_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(an_armed_failure_fails_the_next_call_only, setup,
                                        teardown),
        cmocka_unit_test(a_custom_device_gets_resolved_defaults_and_quiet_failures_get_a_message),
        cmocka_unit_test(a_null_device_pointer_is_harmless),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
