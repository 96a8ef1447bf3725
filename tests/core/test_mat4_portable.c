/*
 * The portable 4x4 determinant and inverse (src/core/mat4_portable.h) give
 * the bits of cglm's SSE2 code, which cna_mat4_inverse uses on x86-64: on
 * random matrices of many magnitudes, rigid transforms and special values,
 * bit for bit. Built where cglm has SSE2 code (x86-64), which the
 * comparison needs; elsewhere the test checks the fixed cases' bits only.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <cglm/cglm.h>

#include "core/mat4_portable.h"

static uint32_t bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* A float in [-2^e, 2^e) with e from -8 to 8, or 0, 1 or -1 now and then. */
static float value(void)
{
    const uint32_t r = next();
    if ((r & 31u) == 0) return 0.0f;
    if ((r & 31u) == 1) return 1.0f;
    if ((r & 31u) == 2) return -1.0f;
    const float u = (float)(next() & 0xFFFFFFu) / 16777216.0f * 2.0f - 1.0f;
    return ldexpf(u, (int)(r >> 8) % 17 - 8);
}

#if defined(__SSE__) || defined(__SSE2__)
static void check(const float m[16])
{
    mat4 a, inv;
    memcpy(a, m, sizeof a);
    float mine[16];
    cna__mat4_inverse_portable(m, mine);
    glm_mat4_inv(a, inv);
    /* a NaN's sign and payload are not compared: which operand's NaN an
     * addition returns is the compiler's choice (cna_mat4_inverse refuses
     * non-finite results) */
    const float d0 = cna__mat4_det_portable(m), d1 = glm_mat4_det(a);
    if (!(isnan(d0) && isnan(d1))) assert_int_equal(bits(d0), bits(d1));
    for (int i = 0; i < 16; ++i) {
        const float x = mine[i], y = ((const float *)inv)[i];
        if (!(isnan(x) && isnan(y))) assert_int_equal(bits(x), bits(y));
    }
}

static void test_random_matrices_match_cglm_sse2(void **state)
{
    (void)state;
    float m[16];
    for (int n = 0; n < 200000; ++n) {
        for (int i = 0; i < 16; ++i) m[i] = value();
        if (n % 2) m[3] = m[7] = m[11] = 0.0f, m[15] = 1.0f; /* affine, as transforms are */
        check(m);
    }
}

static void test_special_values_match_cglm_sse2(void **state)
{
    (void)state;
    const float specials[] = {0.0f, -0.0f, 1e-38f, 1e-45f, 3e38f, INFINITY, -INFINITY, NAN};
    float m[16];
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; ++k) {
        for (int i = 0; i < 16; ++i) {
            for (int j = 0; j < 16; ++j) m[j] = (j % 5 == 0) ? 1.0f : 0.25f * (float)j;
            m[i] = specials[k];
            check(m);
        }
    }
}
#endif

/* A rigid transform (a rotation about z by 0.5 rad, a translation): its
 * inverse's bits, as cglm's SSE2 code gives them on x86-64. */
static void test_fixed_transform(void **state)
{
    (void)state;
    const float c = 0.87758256f, s = 0.47942554f;
    const float m[16] = {c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 1.5f, -2.0f, 0.25f, 1};
    float inv[16];
    cna__mat4_inverse_portable(m, inv);
    const uint32_t expect[16] = {0x3f60a940u, 0xbef57744u, 0x00000000u, 0x80000000u,
                                 0x3ef57744u, 0x3f60a940u, 0x80000000u, 0x00000000u,
                                 0x80000000u, 0x80000000u, 0x3f800000u, 0x80000000u,
                                 0xbeb70d38u, 0x401e5afdu, 0xbe800000u, 0x3f800000u};
    for (int i = 0; i < 16; ++i) assert_int_equal(bits(inv[i]), expect[i]);
    assert_int_equal(bits(cna__mat4_det_portable(m)), 0x3f800000u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#if defined(__SSE__) || defined(__SSE2__)
        cmocka_unit_test(test_random_matrices_match_cglm_sse2),
        cmocka_unit_test(test_special_values_match_cglm_sse2),
#endif
        cmocka_unit_test(test_fixed_transform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
