/*
 * The version: cna_version() is the headers' CNA_VERSION_STRING, the string is
 * the three numeric macros joined by dots, and the build's cna.pc (whose
 * version CMake reads from the same header) carries the same version.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cna/cna.h"

static void test_cna_version_returns_the_headers_version_string(void **state)
{
    (void)state;
    assert_string_equal(cna_version(), CNA_VERSION_STRING);
}

static void test_version_string_is_major_dot_minor_dot_patch(void **state)
{
    (void)state;
    char expected[64];
    snprintf(expected, sizeof expected, "%d.%d.%d", CNA_VERSION_MAJOR, CNA_VERSION_MINOR,
             CNA_VERSION_PATCH);
    assert_string_equal(CNA_VERSION_STRING, expected);
}

static void test_build_pkg_config_file_has_the_same_version(void **state)
{
    (void)state;
    FILE *f = fopen(CNA_BINARY_DIR "/cna.pc", "r");
    if (!f) fail_msg("cannot open %s", CNA_BINARY_DIR "/cna.pc");
    char line[256], version[64] = "";
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Version: %63s", version) == 1) found++;
    fclose(f);
    assert_int_equal(found, 1);
    assert_string_equal(version, CNA_VERSION_STRING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cna_version_returns_the_headers_version_string),
        cmocka_unit_test(test_version_string_is_major_dot_minor_dot_patch),
        cmocka_unit_test(test_build_pkg_config_file_has_the_same_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
