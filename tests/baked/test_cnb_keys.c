/*
 * The .cnb reader's key checks (times >= 0 and non-decreasing, the 10 floats
 * of every key finite): the scalar path and, where the build has it, the
 * SSE2 path give the answer of a plain per-key, per-float reference, on
 * random arrays of keys with one damaged time or value at every position,
 * and on values at the edges of finiteness (largest finite, subnormal, -0,
 * every infinity and NaN pattern) and times whose bytes look like
 * non-finite floats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "baked/cnb_internal.h"

/* The rule as the reader states it, one key and one float at a time. */
static bool reference(const cna_keyframe *keys, size_t n)
{
    int64_t last = 0;
    for (size_t k = 0; k < n; k++) {
        if (keys[k].ticks < last) return false;
        last = keys[k].ticks;
        uint32_t bits[10];
        memcpy(bits, &keys[k].translation, sizeof bits);
        for (int i = 0; i < 10; i++)
            if ((bits[i] & 0x7f800000u) == 0x7f800000u) return false;
    }
    return true;
}

static uint32_t next(uint32_t *rng)
{
    *rng = *rng * 1103515245u + 12345u;
    return *rng >> 8;
}

/* A finite float's bits: random, or one of the edge cases. */
static uint32_t finite_bits(uint32_t *rng)
{
    static const uint32_t edge[] = {0x00000000u, 0x80000000u, 0x7f7fffffu, 0xff7fffffu, 0x00000001u,
                                    0x807fffffu, 0x7f000000u, 0x3f800000u};
    uint32_t r = next(rng);
    if (r % 4 == 0) return edge[next(rng) % (sizeof edge / sizeof edge[0])];
    uint32_t bits = next(rng) ^ (next(rng) << 16);
    if ((bits & 0x7f800000u) == 0x7f800000u) bits &= ~0x00800000u; /* exponent 0xfe */
    return bits;
}

/* A non-finite float's bits: an infinity or a NaN, either sign. */
static uint32_t nonfinite_bits(uint32_t *rng)
{
    uint32_t mantissa = next(rng) % 3 == 0 ? 0 : (next(rng) ^ (next(rng) << 12)) & 0x007fffffu;
    return 0x7f800000u | mantissa | (next(rng) % 2 ? 0x80000000u : 0);
}

static void fill(cna_keyframe *keys, size_t n, uint32_t *rng)
{
    memset(keys, 0, n * sizeof *keys);
    int64_t t = 0;
    for (size_t k = 0; k < n; k++) {
        t += (int64_t)(next(rng) % 3); /* equal times are allowed */
        if (next(rng) % 16 == 0 && t < 0x7f8000007f800000LL) t = 0x7f8000007f800000LL; /* bytes of two infinities */
        keys[k].ticks = t;
        uint32_t bits[10];
        for (int i = 0; i < 10; i++) bits[i] = finite_bits(rng);
        memcpy(&keys[k].translation, bits, sizeof bits);
    }
}

static void check(const cna_keyframe *keys, size_t n, bool simd)
{
    assert_int_equal(cna__cnb_keys_ok_path(keys, n, simd), reference(keys, n));
}

static void run_paths(bool simd)
{
    enum { MAX = 37 };
    cna_keyframe *keys = malloc(MAX * sizeof *keys);
    assert_non_null(keys);
    uint32_t rng = 12345;
    for (size_t n = 0; n <= MAX; n++) {
        for (int round = 0; round < 8; round++) {
            fill(keys, n, &rng);
            check(keys, n, simd);
            assert_true(reference(keys, n));
            for (size_t k = 0; k < n; k++) {
                for (int i = 0; i < 10; i++) { /* one non-finite float at each place */
                    cna_keyframe saved = keys[k];
                    uint32_t bits = nonfinite_bits(&rng);
                    memcpy((unsigned char *)&keys[k].translation + 4 * i, &bits, 4);
                    assert_false(reference(keys, n));
                    check(keys, n, simd);
                    keys[k] = saved;
                }
                int64_t saved = keys[k].ticks;
                keys[k].ticks = -1 - (int64_t)(next(&rng) % 4); /* negative */
                check(keys, n, simd);
                assert_false(cna__cnb_keys_ok_path(keys, n, simd));
                keys[k].ticks = saved;
                if (k > 0 && keys[k - 1].ticks > 0) { /* below the previous key's time */
                    keys[k].ticks = keys[k - 1].ticks - 1;
                    check(keys, n, simd);
                    assert_false(cna__cnb_keys_ok_path(keys, n, simd));
                    keys[k].ticks = saved;
                }
            }
            check(keys, n, simd);
        }
    }
    free(keys);
}

static void the_scalar_path_equals_the_reference(void **state)
{
    (void)state;
    run_paths(false);
}

/* Not built in a CNA_NO_SIMD build, which has no SIMD path (the last test checks it). */
#if !defined(CNA_NO_SIMD)
static void the_simd_path_equals_the_reference(void **state)
{
    (void)state;
    if (!cna__cnb_keys_simd()) skip();
    run_paths(true);
}
#endif

/* x86-64 builds have the SIMD path, except CNA_NO_SIMD builds. */
static void x86_64_builds_have_the_simd_path(void **state)
{
    (void)state;
#if defined(CNA_NO_SIMD)
    assert_false(cna__cnb_keys_simd());
#elif defined(__x86_64__) || defined(_M_X64)
    assert_true(cna__cnb_keys_simd());
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_scalar_path_equals_the_reference),
#if !defined(CNA_NO_SIMD)
        cmocka_unit_test(the_simd_path_equals_the_reference),
#endif
        cmocka_unit_test(x86_64_builds_have_the_simd_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
