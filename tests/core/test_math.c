/*
 * Math in cna's convention (column-major, column vectors): product order,
 * TRS compose/decompose, inverse, shortest-arc slerp, cna's own sin and acos.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "cna/math.h"

static void assert_near(float a, float b, float eps, const char *what, const char *file, int line)
{
    if (!(fabsf(a - b) <= eps)) {
        print_error("%s: %.9g, expected %.9g (within %g)\n", what, (double)a, (double)b, (double)eps);
        _fail(file, line);
    }
}
#define assert_near(a, b, eps) assert_near((a), (b), (eps), #a, __FILE__, __LINE__)

static void assert_matrix_near(const cna_mat4 *a, const cna_mat4 *b, float eps)
{
    for (int i = 0; i < 16; ++i) assert_near(a->m[i], b->m[i], eps);
}

/* A 90° rotation about z, written out: column 0 (the image of x) is (0, 1, 0). */
static cna_mat4 rot_z90(void)
{
    cna_mat4 r = {{0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    return r;
}

static cna_quat axis_angle(float x, float y, float z, float radians)
{
    const float len = sqrtf(x * x + y * y + z * z);
    const float s = sinf(radians * 0.5f) / len;
    return cna_quat_make(x * s, y * s, z * s, cosf(radians * 0.5f));
}

static void test_translation_is_stored_in_elements_12_to_14(void **state)
{
    (void)state;
    cna_mat4 t;
    cna_mat4_translation(&t, cna_vec3_make(1, 2, 3));
    const cna_mat4 expected = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1}};
    assert_memory_equal(&t, &expected, sizeof t);
}

static void test_product_applies_its_right_factor_first(void **state)
{
    (void)state;
    cna_mat4 t, tr, rt;
    cna_mat4_translation(&t, cna_vec3_make(1, 0, 0));
    const cna_mat4 r = rot_z90();
    cna_mat4_mul(&tr, &t, &r); /* ours T · R == spec R * T: rotate, then translate */
    cna_mat4_mul(&rt, &r, &t);
    const cna_vec3 p = cna_mat4_transform_point(&tr, cna_vec3_make(1, 0, 0));
    assert_true(p.x == 1.0f && p.y == 1.0f && p.z == 0.0f);
    const cna_vec3 q = cna_mat4_transform_point(&rt, cna_vec3_make(1, 0, 0));
    assert_true(q.x == 0.0f && q.y == 2.0f && q.z == 0.0f);
    /* T · R keeps T's translation column */
    assert_true(tr.m[12] == 1.0f && tr.m[13] == 0.0f && tr.m[14] == 0.0f);
}

static void test_product_output_may_alias_an_input(void **state)
{
    (void)state;
    cna_mat4 t, expected;
    cna_mat4_translation(&t, cna_vec3_make(1, 2, 3));
    const cna_mat4 r = rot_z90();
    cna_mat4_mul(&expected, &t, &r);
    cna_mat4 a = t;
    cna_mat4_mul(&a, &a, &r);
    assert_memory_equal(&a, &expected, sizeof a);
    cna_mat4 b = r;
    cna_mat4_mul(&b, &t, &b);
    assert_memory_equal(&b, &expected, sizeof b);
}

static void test_compose_is_translation_times_rotation_times_scale(void **state)
{
    (void)state;
    const cna_vec3 tv = cna_vec3_make(1, -2, 3);
    const cna_quat q = axis_angle(1, 2, 3, 0.7f);
    const cna_vec3 sv = cna_vec3_make(2, 3, 0.5f);
    cna_mat4 m, t, r, s, rs, trs;
    cna_mat4_compose(&m, tv, q, sv);
    cna_mat4_translation(&t, tv);
    cna_mat4_compose(&r, cna_vec3_zero(), q, cna_vec3_one());
    cna_mat4_compose(&s, cna_vec3_zero(), cna_quat_identity(), sv);
    cna_mat4_mul(&rs, &r, &s);
    cna_mat4_mul(&trs, &t, &rs);
    assert_matrix_near(&m, &trs, 1e-6f);
    /* with the identity rotation the result is exact: diag(s) and t */
    cna_mat4_compose(&m, tv, cna_quat_identity(), sv);
    const cna_mat4 expected = {{2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0.5f, 0, 1, -2, 3, 1}};
    assert_memory_equal(&m, &expected, sizeof m);
}

static void test_compose_then_decompose_round_trips(void **state)
{
    (void)state;
    const struct {
        cna_vec3 t;
        cna_quat r;
        cna_vec3 s;
    } cases[4] = {
        {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}},
        {{-4, 0.5f, 9}, {0, 0, 0.38268343f, 0.92387953f}, {2, 2, 2}},
        {{0, 0, -50}, {0.5f, -0.5f, 0.5f, 0.5f}, {0.25f, 3, 1.5f}},
        {{7, 7, 7}, {0.18257419f, 0.36514837f, 0.54772256f, 0.73029674f}, {1, 0.01f, 100}},
    };
    for (int c = 0; c < 4; ++c) {
        cna_mat4 m;
        cna_mat4_compose(&m, cases[c].t, cases[c].r, cases[c].s);
        cna_vec3 t, s;
        cna_quat r;
        assert_true(cna_mat4_decompose(&m, &t, &r, &s));
        assert_true(t.x == cases[c].t.x && t.y == cases[c].t.y && t.z == cases[c].t.z);
        assert_near(s.x, cases[c].s.x, 1e-4f * cases[c].s.x);
        assert_near(s.y, cases[c].s.y, 1e-4f * cases[c].s.y);
        assert_near(s.z, cases[c].s.z, 1e-4f * cases[c].s.z);
        /* q and -q are the same rotation */
        const float sign = (r.x * cases[c].r.x + r.y * cases[c].r.y + r.z * cases[c].r.z +
                            r.w * cases[c].r.w) < 0.0f ? -1.0f : 1.0f;
        assert_near(sign * r.x, cases[c].r.x, 1e-5f);
        assert_near(sign * r.y, cases[c].r.y, 1e-5f);
        assert_near(sign * r.z, cases[c].r.z, 1e-5f);
        assert_near(sign * r.w, cases[c].r.w, 1e-5f);
        cna_mat4 again;
        cna_mat4_compose(&again, t, r, s);
        assert_matrix_near(&again, &m, 1e-4f);
    }
}

static void test_decompose_carries_a_reflection_in_a_negative_x_scale(void **state)
{
    (void)state;
    cna_mat4 m;
    cna_mat4_compose(&m, cna_vec3_make(1, 2, 3), cna_quat_identity(), cna_vec3_make(-2, 3, 4));
    cna_vec3 t, s;
    cna_quat r;
    assert_true(cna_mat4_decompose(&m, &t, &r, &s));
    assert_true(s.x == -2.0f && s.y == 3.0f && s.z == 4.0f);
    assert_near(fabsf(r.w), 1.0f, 1e-6f);
    cna_mat4 again;
    cna_mat4_compose(&again, t, r, s);
    assert_matrix_near(&again, &m, 1e-6f);
}

static void test_decompose_refuses_zero_scale_and_non_finite_matrices(void **state)
{
    (void)state;
    cna_mat4 m;
    cna_mat4_compose(&m, cna_vec3_make(1, 2, 3), cna_quat_identity(), cna_vec3_make(1, 0, 1));
    cna_vec3 t, s;
    cna_quat r;
    assert_false(cna_mat4_decompose(&m, &t, &r, &s));
    assert_true(t.x == 1.0f && t.y == 2.0f && t.z == 3.0f);
    assert_true(r.w == 1.0f && s.x == 1.0f && s.y == 1.0f && s.z == 1.0f);
    cna_mat4_identity(&m);
    m.m[5] = NAN;
    assert_false(cna_mat4_decompose(&m, &t, &r, &s));
}

static void test_inverse_times_matrix_is_identity(void **state)
{
    (void)state;
    cna_mat4 m, inv, p, id;
    cna_mat4_compose(&m, cna_vec3_make(3, -1, 2), axis_angle(1, 1, 0, 1.1f), cna_vec3_make(2, 0.5f, 4));
    assert_true(cna_mat4_inverse(&inv, &m));
    cna_mat4_identity(&id);
    cna_mat4_mul(&p, &m, &inv);
    assert_matrix_near(&p, &id, 1e-5f);
    cna_mat4_mul(&p, &inv, &m);
    assert_matrix_near(&p, &id, 1e-5f);
    /* the inverse of T(0, 0, 50) is T(0, 0, -50) */
    cna_mat4 t, expected;
    cna_mat4_translation(&t, cna_vec3_make(0, 0, 50));
    cna_mat4_translation(&expected, cna_vec3_make(0, 0, -50));
    assert_true(cna_mat4_inverse(&t, &t)); /* in place */
    assert_matrix_near(&t, &expected, 0.0f);
}

static void test_inverse_of_a_singular_matrix_fails_and_leaves_output(void **state)
{
    (void)state;
    cna_mat4 singular, out, before;
    cna_mat4_compose(&singular, cna_vec3_zero(), cna_quat_identity(), cna_vec3_make(1, 0, 1));
    cna_mat4_translation(&out, cna_vec3_make(9, 9, 9));
    before = out;
    assert_false(cna_mat4_inverse(&out, &singular));
    assert_memory_equal(&out, &before, sizeof out);
    cna_mat4 bad;
    cna_mat4_identity(&bad);
    bad.m[0] = INFINITY;
    assert_false(cna_mat4_inverse(&out, &bad));
    assert_memory_equal(&out, &before, sizeof out);
}

static void test_slerp_at_zero_returns_the_first_quaternion_exactly(void **state)
{
    (void)state;
    const cna_quat a = axis_angle(0, 1, 0, 0.3f);
    const cna_quat b = axis_angle(1, 0, 0, 2.0f);
    const cna_quat neg_b = cna_quat_make(-b.x, -b.y, -b.z, -b.w);
    cna_quat r = cna_quat_slerp(a, b, 0.0f);
    assert_memory_equal(&r, &a, sizeof r);
    r = cna_quat_slerp(a, neg_b, 0.0f); /* also through the shortest-arc flip */
    assert_memory_equal(&r, &a, sizeof r);
}

static void test_slerp_at_one_returns_the_second_up_to_sign(void **state)
{
    (void)state;
    const cna_quat a = axis_angle(0, 1, 0, 0.3f);
    const cna_quat b = axis_angle(1, 0, 0, 2.0f);
    const cna_quat bs[2] = {b, cna_quat_make(-b.x, -b.y, -b.z, -b.w)};
    for (int i = 0; i < 2; ++i) {
        const cna_quat r = cna_quat_slerp(a, bs[i], 1.0f);
        const float sign = (r.w * b.w + r.x * b.x + r.y * b.y + r.z * b.z) < 0 ? -1.0f : 1.0f;
        assert_near(sign * r.x, b.x, 1e-6f);
        assert_near(sign * r.y, b.y, 1e-6f);
        assert_near(sign * r.z, b.z, 1e-6f);
        assert_near(sign * r.w, b.w, 1e-6f);
    }
}

static void test_slerp_treats_q_and_minus_q_as_the_same_rotation(void **state)
{
    (void)state;
    const cna_quat a = axis_angle(0, 0, 1, 0.5f);
    const cna_quat b = axis_angle(0, 1, 1, 2.5f);
    const cna_quat neg_b = cna_quat_make(-b.x, -b.y, -b.z, -b.w);
    for (float t = 0.0f; t <= 1.0f; t += 0.125f) {
        const cna_quat r1 = cna_quat_slerp(a, b, t);
        const cna_quat r2 = cna_quat_slerp(a, neg_b, t);
        assert_memory_equal(&r1, &r2, sizeof r1);
    }
}

static void test_slerp_takes_the_shortest_arc(void **state)
{
    (void)state;
    /* -R(90° about z) is the same rotation; halfway from identity is R(45°), not R(-135°) */
    const cna_quat a = cna_quat_identity();
    const cna_quat b = cna_quat_make(0, 0, -0.70710678f, -0.70710678f);
    const cna_quat r = cna_quat_slerp(a, b, 0.5f);
    assert_near(r.x, 0.0f, 0.0f);
    assert_near(r.y, 0.0f, 0.0f);
    assert_near(r.z, 0.38268343f, 1e-6f);
    assert_near(r.w, 0.92387953f, 1e-6f);
    /* nearly opposite quaternions (the same rotation) do not pass through zero */
    const cna_quat q = axis_angle(1, 2, 3, 1.0f);
    const cna_quat nq = cna_quat_make(-q.x, -q.y, -q.z, -q.w + 1e-7f);
    const cna_quat h = cna_quat_slerp(q, nq, 0.5f);
    assert_near(sqrtf(h.x * h.x + h.y * h.y + h.z * h.z + h.w * h.w), 1.0f, 1e-5f);
}

/* The slerp formula of cna/math.h in double precision from the same float
 * inputs (same shortest-arc flip and the same nearly-parallel threshold on
 * the float dot product). */
static void slerp_double(cna_quat a, cna_quat b, float t, double out[4])
{
    const float df = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    double d = (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w;
    double sign = 1.0;
    if (d < 0.0) {
        d = -d;
        sign = -1.0;
    }
    double wa = 1.0 - t, wb = t * sign;
    if (!(fabsf(df) > 1.0f - 1e-6f)) {
        const double theta = acos(d);
        wa = sin((1.0 - t) * theta) / sin(theta);
        wb = sin(t * theta) / sin(theta) * sign;
    }
    const double qa[4] = {a.x, a.y, a.z, a.w}, qb[4] = {b.x, b.y, b.z, b.w};
    for (int i = 0; i < 4; ++i) out[i] = qa[i] * wa + qb[i] * wb;
}

/* A small deterministic generator (xorshift32), floats in [lo, hi]. */
static float next_float(uint32_t *s, float lo, float hi)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

static void test_slerp_is_within_2e_7_of_double_precision_slerp(void **state)
{
    (void)state;
    uint32_t s = 12345u;
    double worst = 0.0;
    for (int i = 0; i < 20000; ++i) {
        const cna_quat a = cna_quat_normalize(cna_quat_make(
            next_float(&s, -1, 1), next_float(&s, -1, 1), next_float(&s, -1, 1), next_float(&s, -1, 1)));
        /* angles between the keys from 1e-4 rad (the linear branch) to pi */
        const float angle = powf(10.0f, next_float(&s, -4.0f, 0.5f));
        const cna_quat r = axis_angle(next_float(&s, -1, 1), next_float(&s, -1, 1),
                                      next_float(&s, -1, 1) + 0.01f, angle);
        const cna_quat b = cna_quat_make(r.w * a.x + r.x * a.w + r.y * a.z - r.z * a.y,
                                         r.w * a.y - r.x * a.z + r.y * a.w + r.z * a.x,
                                         r.w * a.z + r.x * a.y - r.y * a.x + r.z * a.w,
                                         r.w * a.w - r.x * a.x - r.y * a.y - r.z * a.z);
        const float t = i % 7 == 0 ? 1.0f : next_float(&s, 0.0f, 1.0f);
        const cna_quat q = cna_quat_slerp(a, i % 2 ? cna_quat_make(-b.x, -b.y, -b.z, -b.w) : b, t);
        double e[4];
        slerp_double(a, i % 2 ? cna_quat_make(-b.x, -b.y, -b.z, -b.w) : b, t, e);
        const float got[4] = {q.x, q.y, q.z, q.w};
        for (int k = 0; k < 4; ++k)
            if (fabs((double)got[k] - e[k]) > worst) worst = fabs((double)got[k] - e[k]);
    }
    if (!(worst <= 2e-7)) {
        print_error("largest difference %.3g above 2e-7\n", worst);
        fail();
    }
}

static void test_sinf_is_within_one_ulp_of_sin(void **state)
{
    (void)state;
    for (float x = -1000.0f; x <= 1000.0f; x += 0.0137f) {
        const float expected = (float)sin((double)x);
        const float got = cna_sinf(x);
        if (got != expected) assert_true(got == nextafterf(expected, 2.0f) || got == nextafterf(expected, -2.0f));
    }
}

static void test_sinf_keeps_signed_zero_and_gives_nan_for_infinity(void **state)
{
    (void)state;
    const float nz = cna_sinf(-0.0f), pz = cna_sinf(0.0f);
    assert_true(nz == 0.0f && signbit(nz));
    assert_true(pz == 0.0f && !signbit(pz));
    assert_true(isnan(cna_sinf(INFINITY)));
    assert_true(isnan(cna_sinf(-INFINITY)));
    assert_true(isnan(cna_sinf(NAN)));
}

static void test_acosf_is_within_one_ulp_of_acos_and_exact_at_the_ends(void **state)
{
    (void)state;
    for (float x = -1.0f; x <= 1.0f; x += 0.00037f) {
        const float expected = (float)acos((double)x);
        const float got = cna_acosf(x);
        if (got != expected) assert_true(got == nextafterf(expected, 4.0f) || got == nextafterf(expected, -1.0f));
    }
    assert_true(cna_acosf(1.0f) == 0.0f);
    assert_true(cna_acosf(-1.0f) == (float)acos(-1.0));
    assert_true(cna_acosf(0.0f) == (float)acos(0.0));
    assert_true(isnan(cna_acosf(1.0000001f)));
    assert_true(isnan(cna_acosf(NAN)));
}

static void test_normalize_returns_identity_for_zero_or_non_finite(void **state)
{
    (void)state;
    cna_quat q = cna_quat_normalize(cna_quat_make(0, 0, 0, 0));
    assert_true(q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && q.w == 1.0f);
    q = cna_quat_normalize(cna_quat_make(NAN, 0, 0, 1));
    assert_true(q.w == 1.0f && q.x == 0.0f);
    q = cna_quat_normalize(cna_quat_make(0, 0, 3, 4));
    assert_true(q.z == 0.6f && q.w == 0.8f);
}

static void test_vector_lerp_hits_both_ends(void **state)
{
    (void)state;
    const cna_vec3 a = cna_vec3_make(1, -2, 3), b = cna_vec3_make(5, 6, -7);
    cna_vec3 v = cna_vec3_lerp(a, b, 0.0f);
    assert_memory_equal(&v, &a, sizeof v);
    v = cna_vec3_lerp(a, b, 1.0f);
    assert_memory_equal(&v, &b, sizeof v);
    v = cna_vec3_lerp(a, b, 0.5f);
    assert_true(v.x == 3.0f && v.y == 2.0f && v.z == -2.0f);
}

static void test_transform_point_translates_and_vector_does_not(void **state)
{
    (void)state;
    cna_mat4 m, r = rot_z90(), t;
    cna_mat4_translation(&t, cna_vec3_make(10, 20, 30));
    cna_mat4_mul(&m, &t, &r);
    const cna_vec3 p = cna_mat4_transform_point(&m, cna_vec3_make(1, 0, 0));
    assert_true(p.x == 10.0f && p.y == 21.0f && p.z == 30.0f);
    const cna_vec3 v = cna_mat4_transform_vector(&m, cna_vec3_make(1, 0, 0));
    assert_true(v.x == 0.0f && v.y == 1.0f && v.z == 0.0f);
}

static void test_is_identity_compares_exactly(void **state)
{
    (void)state;
    cna_mat4 m;
    cna_mat4_identity(&m);
    assert_true(cna_mat4_is_identity(&m));
    m.m[12] = 1e-30f;
    assert_false(cna_mat4_is_identity(&m));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_translation_is_stored_in_elements_12_to_14),
        cmocka_unit_test(test_product_applies_its_right_factor_first),
        cmocka_unit_test(test_product_output_may_alias_an_input),
        cmocka_unit_test(test_compose_is_translation_times_rotation_times_scale),
        cmocka_unit_test(test_compose_then_decompose_round_trips),
        cmocka_unit_test(test_decompose_carries_a_reflection_in_a_negative_x_scale),
        cmocka_unit_test(test_decompose_refuses_zero_scale_and_non_finite_matrices),
        cmocka_unit_test(test_inverse_times_matrix_is_identity),
        cmocka_unit_test(test_inverse_of_a_singular_matrix_fails_and_leaves_output),
        cmocka_unit_test(test_slerp_at_zero_returns_the_first_quaternion_exactly),
        cmocka_unit_test(test_slerp_at_one_returns_the_second_up_to_sign),
        cmocka_unit_test(test_slerp_treats_q_and_minus_q_as_the_same_rotation),
        cmocka_unit_test(test_slerp_takes_the_shortest_arc),
        cmocka_unit_test(test_slerp_is_within_2e_7_of_double_precision_slerp),
        cmocka_unit_test(test_sinf_is_within_one_ulp_of_sin),
        cmocka_unit_test(test_sinf_keeps_signed_zero_and_gives_nan_for_infinity),
        cmocka_unit_test(test_acosf_is_within_one_ulp_of_acos_and_exact_at_the_ends),
        cmocka_unit_test(test_normalize_returns_identity_for_zero_or_non_finite),
        cmocka_unit_test(test_vector_lerp_hits_both_ends),
        cmocka_unit_test(test_transform_point_translates_and_vector_does_not),
        cmocka_unit_test(test_is_identity_compares_exactly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
