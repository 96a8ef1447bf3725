/*
 * EXT_meshopt_compression's OCTAHEDRAL filter, as the reader decodes it
 * (cna__meshopt_octahedral_filter, src/gltf/meshopt.c): with correctly
 * rounded operations only, so the same bytes on every CPU.
 *   - 16-bit elements: meshoptimizer's own decoder (square root and
 *     division) bit for bit, on random elements;
 *   - 8-bit elements: every one of the 2^24 possible elements within one
 *     unit of meshoptimizer's decoder, which in Debian's 0.18 uses an
 *     estimate of the inverse square root (its last unit differs between
 *     Intel and AMD CPUs), and elements where that estimate rounds the other
 *     way decode to the exact result, fixed here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <meshoptimizer.h>

#include "gltf/gltf_internal.h"

static void test_16_bit_elements_decode_as_meshoptimizer_does(void **state)
{
    (void)state;
    enum { N = 1 << 18 };
    uint8_t *a = malloc((size_t)N * 8), *b = malloc((size_t)N * 8);
    assert_non_null(a);
    assert_non_null(b);
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < (size_t)N * 8; ++i) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        a[i] = (uint8_t)s;
    }
    memcpy(b, a, (size_t)N * 8);
    cna__meshopt_octahedral_filter(a, N, 8);
    meshopt_decodeFilterOct(b, N, 8);
    assert_memory_equal(a, b, (size_t)N * 8);
    free(a);
    free(b);
}

static void test_8_bit_elements_are_within_one_unit_of_meshoptimizer(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 24;
    uint8_t *a = malloc(n * 4), *b = malloc(n * 4);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < n; ++i) {
        a[4 * i + 0] = (uint8_t)i;
        a[4 * i + 1] = (uint8_t)(i >> 8);
        a[4 * i + 2] = (uint8_t)(i >> 16);
        a[4 * i + 3] = (uint8_t)(i * 7);
    }
    memcpy(b, a, n * 4);
    cna__meshopt_octahedral_filter(a, n, 4);
    meshopt_decodeFilterOct(b, n, 4);
    for (size_t i = 0; i < n * 4; ++i) {
        const int d = (int)(int8_t)a[i] - (int)(int8_t)b[i];
        if (d < -1 || d > 1 || (i % 4 == 3 && d != 0))
            fail_msg("element %zu, byte %zu: %d against meshoptimizer's %d", i / 4, i % 4, (int8_t)a[i],
                     (int8_t)b[i]);
    }
    free(a);
    free(b);
}

/* Elements whose exact result an inverse square root estimate can round to
 * the neighbouring integer (x·s within about 4e-4 relative of a half):
 * e.g. (-68, 106, 31) gives x = 75, y = -37, z = -143 and x·s =
 * 127·75/sqrt(27443) = 57.4977..., so 57. */
static void test_8_bit_elements_near_a_half_decode_exactly(void **state)
{
    (void)state;
    static const int8_t cases[][6] = {
        {-68, 106, 31, 57, -28, -110}, {-65, -38, 36, 3, 50, -117}, {-64, -86, 38, 49, 27, -114},
        {61, -78, 48, -39, 17, -120},  {47, 65, 54, -23, 15, -124},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        uint8_t p[4] = {(uint8_t)cases[c][0], (uint8_t)cases[c][1], (uint8_t)cases[c][2], 0xA5};
        cna__meshopt_octahedral_filter(p, 1, 4);
        assert_int_equal((int8_t)p[0], cases[c][3]);
        assert_int_equal((int8_t)p[1], cases[c][4]);
        assert_int_equal((int8_t)p[2], cases[c][5]);
        assert_int_equal(p[3], 0xA5);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_16_bit_elements_decode_as_meshoptimizer_does),
        cmocka_unit_test(test_8_bit_elements_are_within_one_unit_of_meshoptimizer),
        cmocka_unit_test(test_8_bit_elements_near_a_half_decode_exactly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
