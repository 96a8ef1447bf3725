/*
 * cna_gl's functions that return no cna_result accept NULL without a GL
 * context: those returning nothing do nothing, the queries return "", 0 or
 * NULL, as cna/gl.h says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cna/gl.h"

static void gl_functions_accept_null(void **state)
{
    (void)state;
    cna_gl_context_free(NULL);
    assert_string_equal(cna_gl_context_renderer(NULL), "");
    assert_int_equal(cna_gl_context_width(NULL), 0);
    assert_int_equal(cna_gl_context_height(NULL), 0);
    assert_null(cna_gl_context_device(NULL));
    cna_gl_light light = cna_gl_light_default();
    cna_gl_set_light(NULL, &light);
    cna_gl_set_light(NULL, NULL);
    const float rgba[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    cna_gl_begin_frame(NULL, rgba);
    cna_gl_begin_frame(NULL, NULL);
    cna_gl_release_model_textures(NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gl_functions_accept_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
