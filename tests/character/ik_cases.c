/*
 * The pose-edit stage and the IK solvers (include/cna/character.h "pose
 * edit", include/cna/ik.h), run by test_character's main.
 *
 * Solvers: the expected corrections of ozz-animation's own IK tests (their
 * setups and values restated here, as rotations about the axes), and the
 * geometric promises checked by formulas computed here in double
 * precision: the end lands on the target, the bone lengths and the chain's
 * root stay, the mid joint lies in the pole's plane, an unreachable target
 * stretches the chain toward it, soften and twist follow their formulas,
 * the weight follows nlerp(identity, q, w).
 * Pose edit: on RobotExpressive, an edit recomputes exactly the edited
 * subtree (every other bone and palette entry keeps its bits), outputs
 * agree with absolute = absolute[parent] · local and skin = world ·
 * inverse_bind; weight 0 changes nothing; a pose-edit callback gives what
 * the same calls made by hand give, also inside a crowd's update; editing
 * allocates nothing after the first; bad input is refused with exact
 * messages and changes nothing.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cna/cna.h"

#define PI 3.14159265358979323846

/* ------------------------------------------------------------------ double helpers */

typedef struct { double m[16]; } D4; /* column-major, as cna_mat4 */

static D4 d_of(const cna_mat4 *a)
{
    D4 r;
    for (int i = 0; i < 16; i++) r.m[i] = a->m[i];
    return r;
}

static D4 d_mul(D4 a, D4 b)
{
    D4 r;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a.m[k * 4 + row] * b.m[c * 4 + k];
            r.m[c * 4 + row] = s;
        }
    return r;
}

/* inverse of an affine matrix by cofactors */
static D4 d_inv(D4 a)
{
    const double *m = a.m;
    D4 r = {{0}};
    const double det = m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
                       m[8] * (m[1] * m[6] - m[5] * m[2]);
    r.m[0] = (m[5] * m[10] - m[9] * m[6]) / det;
    r.m[1] = (m[9] * m[2] - m[1] * m[10]) / det;
    r.m[2] = (m[1] * m[6] - m[5] * m[2]) / det;
    r.m[4] = (m[8] * m[6] - m[4] * m[10]) / det;
    r.m[5] = (m[0] * m[10] - m[8] * m[2]) / det;
    r.m[6] = (m[4] * m[2] - m[0] * m[6]) / det;
    r.m[8] = (m[4] * m[9] - m[8] * m[5]) / det;
    r.m[9] = (m[8] * m[1] - m[0] * m[9]) / det;
    r.m[10] = (m[0] * m[5] - m[4] * m[1]) / det;
    for (int k = 0; k < 3; k++) r.m[12 + k] = -(r.m[k] * m[12] + r.m[4 + k] * m[13] + r.m[8 + k] * m[14]);
    r.m[15] = 1;
    return r;
}

/* rotation matrix of quaternion (x, y, z, w), normalised */
static D4 d_rot(double x, double y, double z, double w)
{
    const double l = sqrt(x * x + y * y + z * z + w * w);
    x /= l, y /= l, z /= l, w /= l;
    D4 r = {{1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0, 2 * (x * y - z * w),
             1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0, 2 * (x * z + y * w), 2 * (y * z - x * w),
             1 - 2 * (x * x + y * y), 0, 0, 0, 0, 1}};
    return r;
}
static D4 d_q(cna_quat q) { return d_rot(q.x, q.y, q.z, q.w); }

static void d_origin(D4 a, double out[3])
{
    out[0] = a.m[12];
    out[1] = a.m[13];
    out[2] = a.m[14];
}
static double dist3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* the angle between two vectors, atan2(|a × b|, a · b): exact near 0
 * whatever their lengths */
static double angle_between(const double a[3], const double b[3])
{
    const double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}

/* a float matrix T · R(axis, angle) · S(s) (the axis need not be unit) */
static cna_mat4 trs(double tx, double ty, double tz, double ax, double ay, double az, double angle, double sx,
                    double sy, double sz)
{
    cna_mat4 out;
    const double l = sqrt(ax * ax + ay * ay + az * az);
    const double s = l > 0 ? sin(angle / 2) / l : 0;
    cna_mat4_compose(&out, cna_vec3_make((float)tx, (float)ty, (float)tz),
                     cna_quat_make((float)(ax * s), (float)(ay * s), (float)(az * s), (float)cos(angle / 2)),
                     cna_vec3_make((float)sx, (float)sy, (float)sz));
    return out;
}
static cna_mat4 ident(void) { return trs(0, 0, 0, 1, 0, 0, 0, 1, 1, 1); }
static cna_mat4 mat_mul(const cna_mat4 *a, const cna_mat4 *b)
{
    cna_mat4 r;
    cna_mat4_mul(&r, a, b);
    return r;
}

/* q equals the rotation (axis, angle) within tol, q and -q being one rotation */
static void assert_rotation(cna_quat q, double ax, double ay, double az, double angle, double tol, int line)
{
    const double l = sqrt(ax * ax + ay * ay + az * az);
    const double s = l > 0 ? sin(angle / 2) / l : 0;
    const double e[4] = {ax * s, ay * s, az * s, cos(angle / 2)};
    const double g[4] = {q.x, q.y, q.z, q.w};
    double plus = 0, minus = 0;
    for (int i = 0; i < 4; i++) {
        plus = fmax(plus, fabs(g[i] - e[i]));
        minus = fmax(minus, fabs(g[i] + e[i]));
    }
    if (fmin(plus, minus) > tol) {
        print_error("line %d: (%g %g %g %g) is not the rotation (%g %g %g %g)\n", line, g[0], g[1], g[2], g[3], e[0],
                    e[1], e[2], e[3]);
        fail();
    }
}
#define ASSERT_ROT(q, ax, ay, az, angle, tol) assert_rotation(q, ax, ay, az, angle, tol, __LINE__)
#define ASSERT_ID(q, tol) assert_rotation(q, 1, 0, 0, 0, tol, __LINE__)

/* the chain after the corrections (as ozz's tests rebuild it):
 *   start' = start · R(qs), mid' = start' · (inverse(start) · mid) · R(qm),
 *   end' = mid' · (inverse(mid) · end) */
typedef struct { D4 start, mid, end; } Chain;
static Chain corrected(const cna_mat4 *s, const cna_mat4 *m, const cna_mat4 *e, cna_quat qs, cna_quat qm)
{
    Chain c;
    const D4 S = d_of(s), M = d_of(m), E = d_of(e);
    c.start = d_mul(S, d_q(qs));
    c.mid = d_mul(d_mul(c.start, d_mul(d_inv(S), M)), d_q(qm));
    c.end = d_mul(c.mid, d_mul(d_inv(M), E));
    return c;
}

/* ozz's tests' chain: start at the origin, mid at (0, 1, 0) turned a
 * quarter about z, end at (1, 1, 0); mid axis (0, 0, 1) */
static cna_mat4 base_start(void) { return ident(); }
static cna_mat4 base_mid(void) { return trs(0, 1, 0, 0, 0, 1, PI / 2, 1, 1, 1); }
static cna_mat4 base_end(void) { return trs(1, 1, 0, 1, 0, 0, 0, 1, 1, 1); }

static bool solve2(cna_ik_two_bone *ik, const cna_mat4 *s, const cna_mat4 *m, const cna_mat4 *e, cna_quat *qs,
                   cna_quat *qm)
{
    bool reached = false;
    cna_error err;
    assert_int_equal(cna_ik_two_bone_solve(ik, s, m, e, qs, qm, &reached, &err), CNA_OK);
    return reached;
}

/* ------------------------------------------------------------------ two-bone: ozz's expected values */

static void two_bone_start_corrections_hold_under_any_parent(void **state)
{
    (void)state;
    const cna_mat4 parents[] = {
        ident(),                                     /* none */
        trs(0, 1, 0, 1, 0, 0, 0, 1, 1, 1),           /* up */
        trs(0, 0, 0, 0, 1, 0, PI / 3, 1, 1, 1),      /* rotated */
        trs(0, 0, 0, 1, 0, 0, 0, 2, 2, 2),           /* uniformly scaled */
        trs(0, 0, 0, 1, 0, 0, 0, 1, 2, 1),           /* non-uniformly scaled */
        trs(0, 0, 0, 1, 0, 0, 0, -3, -3, -3),        /* mirrored */
    };
    for (size_t i = 0; i < sizeof parents / sizeof parents[0]; i++) {
        const cna_mat4 s0 = base_start(), m0 = base_mid(), e0 = base_end();
        const cna_mat4 s = mat_mul(&parents[i], &s0), m = mat_mul(&parents[i], &m0), e = mat_mul(&parents[i], &e0);
        cna_ik_two_bone ik = cna_ik_two_bone_defaults();
        ik.pole = cna_mat4_transform_vector(&parents[i], cna_vec3_make(0, 1, 0));
        cna_quat qs, qm;
        const struct { float x, y, z; double ax, ay, az, angle; } cases[] = {
            {1, 1, 0, 1, 0, 0, 0},         /* no correction */
            {0, 1, 1, 0, 1, 0, -PI / 2},   /* 90 */
            {-1, 1, 0, 0, 1, 0, PI},       /* 180 behind */
            {0, 1, -1, 0, 1, 0, PI / 2},   /* 270 */
        };
        for (size_t k = 0; k < 4; k++) {
            ik.target = cna_mat4_transform_point(&parents[i], cna_vec3_make(cases[k].x, cases[k].y, cases[k].z));
            assert_true(solve2(&ik, &s, &m, &e, &qs, &qm));
            ASSERT_ROT(qs, cases[k].ax, cases[k].ay, cases[k].az, cases[k].angle, 2e-6);
            ASSERT_ID(qm, 2e-6);
            const Chain c = corrected(&s, &m, &e, qs, qm);
            double end[3];
            const double t[3] = {ik.target.x, ik.target.y, ik.target.z};
            d_origin(c.end, end);
            assert_true(dist3(end, t) < 1e-5);
        }
    }
}

static void two_bone_pole_turns_the_chain_plane(void **state)
{
    (void)state;
    const cna_mat4 s = base_start(), m = base_mid(), e = base_end();
    const struct { float px, py, pz, tx, ty, tz; double ax, ay, az, angle; } cases[] = {
        {0, 1, 0, 1, 1, 0, 1, 0, 0, 0},          /* pole y */
        {0, 0, 1, 1, 0, 1, 1, 0, 0, PI / 2},     /* pole z */
        {0, 0, -1, 1, 0, -1, 1, 0, 0, -PI / 2},  /* pole -z */
        {1, 0, 0, 1, -1, 0, 0, 0, 1, -PI / 2},   /* pole x */
        {-1, 0, 0, -1, 1, 0, 0, 0, 1, PI / 2},   /* pole -x */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cna_ik_two_bone ik = cna_ik_two_bone_defaults();
        ik.pole = cna_vec3_make(cases[k].px, cases[k].py, cases[k].pz);
        ik.target = cna_vec3_make(cases[k].tx, cases[k].ty, cases[k].tz);
        cna_quat qs, qm;
        assert_true(solve2(&ik, &s, &m, &e, &qs, &qm));
        ASSERT_ROT(qs, cases[k].ax, cases[k].ay, cases[k].az, cases[k].angle, 2e-6);
        ASSERT_ID(qm, 2e-6);
    }
}

static void two_bone_soften_weight_twist_and_mid_axis_as_ozz(void **state)
{
    (void)state;
    const cna_mat4 s = base_start(), m = base_mid(), e = base_end();
    cna_quat qs, qm;
    cna_ik_two_bone ik = cna_ik_two_bone_defaults();
    /* soften: reachable at full length; with soften 0.5, reachable up to 1, not beyond */
    ik.target = cna_vec3_make(2, 0, 0);
    assert_true(solve2(&ik, &s, &m, &e, &qs, &qm));
    ASSERT_ROT(qs, 0, 0, 1, -PI / 2, 2e-6);
    ASSERT_ROT(qm, 0, 0, 1, PI / 2, 2e-6);
    const struct { float x, soften; bool reached; } soft[] = {
        {1.0f, 0.5f, true}, {0.8f, 0.5f, true}, {1.2f, 0.5f, false}, {1.2f, 0.0f, false}, {2.0f, 0.5f, false},
        {3.0f, 1.0f, false},
    };
    for (size_t k = 0; k < sizeof soft / sizeof soft[0]; k++) {
        ik.target = cna_vec3_make(soft[k].x, 0, 0);
        ik.soften = soft[k].soften;
        assert_int_equal(solve2(&ik, &s, &m, &e, &qs, &qm), soft[k].reached);
        /* the end lands at the softened distance along the target's line:
         *   d = da + ds · (1 - 3^4 / ((|t| - da) / ds + 3)^4), da = 2 · soften, ds = 2 - da */
        const double da = 2.0 * soft[k].soften, ds = 2.0 - da, lt = soft[k].x;
        double want = lt;
        if (lt > da && ds > 0) want = da + ds * (1 - 81.0 / pow((lt - da) / ds + 3.0, 4));
        if (want > 2.0) want = 2.0;
        const Chain c = corrected(&s, &m, &e, qs, qm);
        double end[3];
        d_origin(c.end, end);
        assert_true(fabs(end[0] - want) < 1e-5 && fabs(end[1]) < 1e-5 && fabs(end[2]) < 1e-5);
    }
    /* weight: 1, above 1, 0, below 0, 0.5 */
    ik = cna_ik_two_bone_defaults();
    ik.target = cna_vec3_make(2, 0, 0);
    const float weights[] = {1.0f, 1.1f, 0.0f, -0.1f, 0.5f};
    for (size_t k = 0; k < 5; k++) {
        ik.weight = weights[k];
        const bool reached = solve2(&ik, &s, &m, &e, &qs, &qm);
        const double w = weights[k] > 1 ? 1 : weights[k] < 0 ? 0 : weights[k];
        assert_int_equal(reached, w >= 1);
        ASSERT_ROT(qs, 0, 0, 1, -PI / 2 * w, 2e-6);
        ASSERT_ROT(qm, 0, 0, 1, PI / 2 * w, 2e-6);
    }
    /* the weight rule: nlerp(identity, q, w) of the full corrections */
    ik.weight = 1.0f;
    cna_quat fs, fm;
    solve2(&ik, &s, &m, &e, &fs, &fm);
    ik.weight = 0.3f;
    solve2(&ik, &s, &m, &e, &qs, &qm);
    const double w = 0.3f;
    double l[4] = {fs.x * w, fs.y * w, fs.z * w, 1 + (fs.w - 1) * w};
    double n = sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2] + l[3] * l[3]);
    assert_true(fabs(qs.x - l[0] / n) < 1e-6 && fabs(qs.y - l[1] / n) < 1e-6 && fabs(qs.z - l[2] / n) < 1e-6 &&
                fabs(qs.w - l[3] / n) < 1e-6);
    /* twist: 0, pi/2, pi, 2pi about the start-to-target line (1, 1, 0) */
    ik = cna_ik_two_bone_defaults();
    ik.target = cna_vec3_make(1, 1, 0);
    const float twists[] = {0.0f, (float)(PI / 2), (float)PI, (float)(2 * PI)};
    for (size_t k = 0; k < 4; k++) {
        ik.twist = twists[k];
        assert_true(solve2(&ik, &s, &m, &e, &qs, &qm));
        ASSERT_ROT(qs, 1, 1, 0, twists[k], 2e-6);
        ASSERT_ID(qm, 2e-6);
    }
    /* mid axis: the negative axis bends the other way; aligned joints */
    ik = cna_ik_two_bone_defaults();
    ik.target = cna_vec3_make(1, 1, 0);
    ik.mid_axis = cna_vec3_make(0, 0, -1);
    assert_true(solve2(&ik, &s, &m, &e, &qs, &qm));
    ASSERT_ROT(qs, 0, 1, 0, PI, 2e-6);
    ASSERT_ROT(qm, 0, 0, 1, PI, 2e-6);
    ik.mid_axis = cna_vec3_make(0, 0, 1);
    const cna_mat4 aligned_end = trs(0, 2, 0, 1, 0, 0, 0, 1, 1, 1);
    assert_true(solve2(&ik, &s, &m, &aligned_end, &qs, &qm));
    ASSERT_ID(qs, 2e-6);
    ASSERT_ROT(qm, 0, 0, 1, -PI / 2, 2e-6);
    /* aligned joints and target: reachable at 2, not at 3, no correction either way */
    const cna_mat4 lm = trs(1, 0, 0, 1, 0, 0, 0, 1, 1, 1), le = trs(2, 0, 0, 1, 0, 0, 0, 1, 1, 1);
    ik.target = cna_vec3_make(2, 0, 0);
    assert_true(solve2(&ik, &s, &lm, &le, &qs, &qm));
    ASSERT_ID(qs, 2e-6);
    ASSERT_ID(qm, 2e-6);
    ik.target = cna_vec3_make(3, 0, 0);
    assert_false(solve2(&ik, &s, &lm, &le, &qs, &qm));
    ASSERT_ID(qs, 2e-6);
    ASSERT_ID(qm, 2e-6);
    /* a target at the start: the mid joint folds back by -90 degrees */
    ik.target = cna_vec3_make(0, 0, 0);
    solve2(&ik, &s, &m, &e, &qs, &qm);
    ASSERT_ID(qs, 2e-6);
    ASSERT_ROT(qm, 0, 0, 1, -PI / 2, 2e-6);
    /* zero scale: identity corrections */
    const cna_mat4 zero = trs(0, 0, 0, 1, 0, 0, 0, 0, 0, 0);
    assert_false(solve2(&ik, &zero, &zero, &zero, &qs, &qm));
    ASSERT_ID(qs, 0);
    ASSERT_ID(qm, 0);
}

/* ------------------------------------------------------------------ two-bone: geometry */

static void two_bone_reaches_keeps_lengths_root_and_pole_plane(void **state)
{
    (void)state;
    /* an arbitrary chain: bones of 1.3 and 0.9, turned and moved */
    const cna_mat4 s = trs(0.5, 1.2, -0.3, 0.3, 1, 0.2, 0.7, 1, 1, 1);
    const cna_mat4 ml = trs(0, 1.3, 0, 1, 0, 0, 0.4, 1, 1, 1), el = trs(0, 0.9, 0, 1, 0, 0, 0, 1, 1, 1);
    const cna_mat4 m = mat_mul(&s, &ml), e = mat_mul(&m, &el);
    double s0[3], m0[3], e0[3];
    d_origin(d_of(&s), s0);
    d_origin(d_of(&m), m0);
    d_origin(d_of(&e), e0);
    const double la = dist3(s0, m0), lb = dist3(m0, e0);
    /* the mid axis: the chain's bending axis in the mid joint's space */
    cna_ik_two_bone ik = cna_ik_two_bone_defaults();
    ik.mid_axis = cna_vec3_make(1, 0, 0);
    const float targets[][3] = {{1.1f, 2.0f, 0.4f}, {-0.2f, 0.9f, 1.2f}, {0.9f, 0.4f, -0.8f}};
    const float poles[][3] = {{0, 0, 1}, {1, 0, 0}, {0.3f, 0.5f, -1}};
    for (size_t k = 0; k < 3; k++) {
        ik.target = cna_vec3_make(targets[k][0], targets[k][1], targets[k][2]);
        ik.pole = cna_vec3_make(poles[k][0], poles[k][1], poles[k][2]);
        cna_quat qs, qm;
        assert_true(solve2(&ik, &s, &m, &e, &qs, &qm));
        const Chain c = corrected(&s, &m, &e, qs, qm);
        double s1[3], m1[3], e1[3];
        d_origin(c.start, s1);
        d_origin(c.mid, m1);
        d_origin(c.end, e1);
        const double t[3] = {targets[k][0], targets[k][1], targets[k][2]};
        assert_true(dist3(e1, t) < 1e-5);
        assert_true(fabs(dist3(s1, m1) - la) < 1e-6 && fabs(dist3(m1, e1) - lb) < 1e-6);
        assert_true(dist3(s1, s0) == 0.0);
        /* the mid joint in the plane of start->target and the pole, on the pole's side */
        const double d[3] = {t[0] - s1[0], t[1] - s1[1], t[2] - s1[2]};
        const double p[3] = {poles[k][0], poles[k][1], poles[k][2]};
        const double nrm[3] = {d[1] * p[2] - d[2] * p[1], d[2] * p[0] - d[0] * p[2], d[0] * p[1] - d[1] * p[0]};
        const double nl = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        const double v[3] = {m1[0] - s1[0], m1[1] - s1[1], m1[2] - s1[2]};
        assert_true(fabs((v[0] * nrm[0] + v[1] * nrm[1] + v[2] * nrm[2]) / nl) < 1e-5);
        const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], pd = p[0] * d[0] + p[1] * d[1] + p[2] * d[2];
        const double side = (v[0] * (p[0] - d[0] * pd / dd) + v[1] * (p[1] - d[1] * pd / dd) +
                             v[2] * (p[2] - d[2] * pd / dd));
        assert_true(side > 0);
    }
    /* out of reach: straight toward the target, not reached */
    ik.target = cna_vec3_make(4, 3, 2);
    cna_quat qs, qm;
    assert_false(solve2(&ik, &s, &m, &e, &qs, &qm));
    const Chain c = corrected(&s, &m, &e, qs, qm);
    double e1[3];
    d_origin(c.end, e1);
    const double t[3] = {4, 3, 2};
    const double dt = dist3(s0, t), de = dist3(s0, e1);
    assert_true(fabs(de - (la + lb)) < 1e-5);
    for (int i = 0; i < 3; i++) assert_true(fabs((e1[i] - s0[i]) / de - (t[i] - s0[i]) / dt) < 1e-5);
}

/* ------------------------------------------------------------------ aim */

static cna_quat aim(cna_ik_aim *ik, const cna_mat4 *joint, bool *reached)
{
    cna_quat q;
    cna_error err;
    assert_int_equal(cna_ik_aim_solve(ik, joint, &q, reached, &err), CNA_OK);
    return q;
}

static void aim_corrections_are_ozzs(void **state)
{
    (void)state;
    bool reached;
    const cna_mat4 parents[] = {
        ident(), trs(0, 1, 0, 1, 0, 0, 0, 1, 1, 1), trs(0, 0, 0, 0, 1, 0, PI / 3, 1, 1, 1),
        trs(0, 0, 0, 1, 0, 0, 0, 2, 2, 2), trs(0, 0, 0, 1, 0, 0, 0, 1, 2, 1), trs(0, 0, 0, 1, 0, 0, 0, -3, -3, -3),
    };
    const struct { float x, y, z; double ax, ay, az, angle; } cases[] = {
        {1, 0, 0, 1, 0, 0, 0}, {-1, 0, 0, 0, 1, 0, PI}, {0, 0, 1, 0, 1, 0, -PI / 2}, {0, 0, -1, 0, 1, 0, PI / 2},
        {1, 1, 0, 0, 0, 1, PI / 4}, {2, 2, 0, 0, 0, 1, PI / 4},
    };
    for (size_t i = 0; i < 6; i++) {
        cna_ik_aim ik = cna_ik_aim_defaults();
        ik.pole = cna_mat4_transform_vector(&parents[i], cna_vec3_make(0, 1, 0));
        for (size_t k = 0; k < 6; k++) {
            ik.target = cna_mat4_transform_point(&parents[i], cna_vec3_make(cases[k].x, cases[k].y, cases[k].z));
            ASSERT_ROT(aim(&ik, &parents[i], &reached), cases[k].ax, cases[k].ay, cases[k].az, cases[k].angle, 2e-6);
            assert_true(reached);
        }
    }
    const cna_mat4 j = ident();
    cna_ik_aim ik = cna_ik_aim_defaults();
    ik.target = cna_vec3_make(1, 0, 0);
    /* forward axis -x and z */
    ik.forward = cna_vec3_make(-1, 0, 0);
    ASSERT_ROT(aim(&ik, &j, &reached), 0, 1, 0, PI, 2e-6);
    ik.forward = cna_vec3_make(0, 0, 1);
    ASSERT_ROT(aim(&ik, &j, &reached), 0, 1, 0, PI / 2, 2e-6);
    /* up -y and z */
    ik.forward = cna_vec3_make(1, 0, 0);
    ik.up = cna_vec3_make(0, -1, 0);
    ASSERT_ROT(aim(&ik, &j, &reached), 1, 0, 0, PI, 2e-6);
    ik.up = cna_vec3_make(0, 0, 1);
    ASSERT_ROT(aim(&ik, &j, &reached), 1, 0, 0, -PI / 2, 2e-6);
    /* pole -y and z */
    ik.up = cna_vec3_make(0, 1, 0);
    ik.pole = cna_vec3_make(0, -1, 0);
    ASSERT_ROT(aim(&ik, &j, &reached), 1, 0, 0, PI, 2e-6);
    ik.pole = cna_vec3_make(0, 0, 1);
    ASSERT_ROT(aim(&ik, &j, &reached), 1, 0, 0, PI / 2, 2e-6);
    /* twist pi, -pi, pi/2 with pole y; pi/2 with pole z */
    ik.pole = cna_vec3_make(0, 1, 0);
    const float tw[] = {(float)PI, (float)-PI, (float)(PI / 2)};
    const double tw_want[] = {PI, PI, PI / 2};
    for (size_t k = 0; k < 3; k++) {
        ik.twist = tw[k];
        ASSERT_ROT(aim(&ik, &j, &reached), 1, 0, 0, tw_want[k], 2e-6);
    }
    ik.pole = cna_vec3_make(0, 0, 1);
    ik.twist = (float)(PI / 2);
    ASSERT_ROT(aim(&ik, &j, &reached), 1, 0, 0, PI, 2e-6);
    /* target along up or pole */
    ik = cna_ik_aim_defaults();
    const float ys[] = {1, 2, -2};
    for (size_t k = 0; k < 3; k++) {
        ik.target = cna_vec3_make(0, ys[k], 0);
        ASSERT_ROT(aim(&ik, &j, &reached), 0, 0, 1, ys[k] > 0 ? PI / 2 : -PI / 2, 2e-6);
    }
    /* a target at the joint: no correction */
    ik.target = cna_vec3_make(0, 0, 0);
    ASSERT_ID(aim(&ik, &j, &reached), 0);
    /* weight: 1, 2, 0.5, 0, -0.5 */
    ik.target = cna_vec3_make(0, 0, 1);
    const float weights[] = {1, 2, 0.5f, 0, -0.5f};
    for (size_t k = 0; k < 5; k++) {
        ik.weight = weights[k];
        const double w = weights[k] > 1 ? 1 : weights[k] < 0 ? 0 : weights[k];
        ASSERT_ROT(aim(&ik, &j, &reached), 0, 1, 0, -PI / 2 * w, 2e-6);
    }
}

/* forward from the offset point onto the target, up in the pole plane */
static void aim_points_the_offset_forward_at_the_target_with_up_in_the_pole_plane(void **state)
{
    (void)state;
    const cna_mat4 j = trs(0.2, 1.5, -0.4, 0.2, 0.9, 0.3, 1.1, 1, 1, 1);
    cna_ik_aim ik = cna_ik_aim_defaults();
    ik.forward = cna_vec3_make(0, 0, 1);
    ik.up = cna_vec3_make(0, 1, 0);
    ik.offset = cna_vec3_make(0.1f, 0.2f, 0.05f);
    ik.pole = cna_vec3_make(0, 1, 0);
    const float targets[][3] = {{2, 1, 1}, {-1, 2.5f, 0.3f}, {0.5f, 0.2f, -2}};
    for (size_t k = 0; k < 3; k++) {
        ik.target = cna_vec3_make(targets[k][0], targets[k][1], targets[k][2]);
        bool reached;
        const cna_quat q = aim(&ik, &j, &reached);
        assert_true(reached);
        const D4 a = d_mul(d_of(&j), d_q(q));
        /* the ray from the offset point along forward passes through the target */
        const double o[3] = {a.m[0] * 0.1f + a.m[4] * 0.2f + a.m[8] * 0.05f + a.m[12],
                             a.m[1] * 0.1f + a.m[5] * 0.2f + a.m[9] * 0.05f + a.m[13],
                             a.m[2] * 0.1f + a.m[6] * 0.2f + a.m[10] * 0.05f + a.m[14]};
        const double f[3] = {a.m[8], a.m[9], a.m[10]}, up[3] = {a.m[4], a.m[5], a.m[6]};
        const double t[3] = {targets[k][0] - o[0], targets[k][1] - o[1], targets[k][2] - o[2]};
        assert_true(angle_between(f, t) < 1e-5);
        /* up in the plane of joint->target and the pole */
        const double d[3] = {targets[k][0] - a.m[12], targets[k][1] - a.m[13], targets[k][2] - a.m[14]};
        const double n[3] = {d[1] * 0 - d[2] * 1, d[2] * 0 - d[0] * 0, d[0] * 1 - d[1] * 0};
        const double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        assert_true(fabs((up[0] * n[0] + up[1] * n[1] + up[2] * n[2]) / nl) < 1e-5);
    }
    /* an offset farther from the forward line than the target: not reached, no correction */
    ik.offset = cna_vec3_make(5, 0, 0);
    ik.target = cna_vec3_make(1, 1, 1);
    bool reached = true;
    ASSERT_ID(aim(&ik, &j, &reached), 0);
    assert_false(reached);
}

static void aim_limits_are_never_exceeded(void **state)
{
    (void)state;
    const cna_mat4 j = ident();
    cna_ik_aim ik = cna_ik_aim_defaults();
    ik.cone = 0.5f;
    ik.twist_min = -0.2f;
    ik.twist_max = 0.3f;
    const float targets[][3] = {{0, 0, 1}, {-1, 0.2f, 0}, {1, 0.1f, 0.1f}, {0.3f, -1, 0.2f}};
    for (size_t k = 0; k < 4; k++) {
        for (float tw = -3.0f; tw <= 3.0f; tw += 1.5f) {
            ik.target = cna_vec3_make(targets[k][0], targets[k][1], targets[k][2]);
            ik.twist = tw;
            bool reached;
            const cna_quat q = aim(&ik, &j, &reached);
            const D4 r = d_q(q);
            /* swing: the angle of forward (x) before and after */
            assert_true(acos(fmax(-1.0, fmin(1.0, r.m[0]))) <= 0.5 + 1e-6);
            /* twist: q = swing · twist with twist about x: its angle 2 atan2(q·x, w) */
            double x = q.x, w = q.w;
            if (w < 0) x = -x, w = -w;
            const double angle = 2 * atan2(x, w);
            /* the twist part alone: remove the swing (shortest arc x -> r·x) */
            const double fx = r.m[0], fy = r.m[1], fz = r.m[2];
            const double sw[4] = {0, -fz, fy, 1 + fx}; /* from_to(x, f), unnormalised */
            const double sn = sqrt(sw[1] * sw[1] + sw[2] * sw[2] + sw[3] * sw[3]);
            /* twist = conj(swing) · q */
            const double a[4] = {-sw[0] / sn, -sw[1] / sn, -sw[2] / sn, sw[3] / sn};
            const double b[4] = {q.x, q.y, q.z, q.w};
            const double tx = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
            const double tw4 = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
            const double twist = 2 * atan2(tw4 < 0 ? -tx : tx, fabs(tw4));
            (void)angle;
            assert_true(twist >= -0.2 - 1e-5 && twist <= 0.3 + 1e-5);
        }
    }
    /* within the limits, the limits change nothing */
    cna_ik_aim free_ik = cna_ik_aim_defaults();
    free_ik.target = cna_vec3_make(1, 0.2f, 0.1f);
    ik.target = free_ik.target;
    ik.twist = 0;
    bool reached;
    const cna_quat a = aim(&free_ik, &j, &reached), b = aim(&ik, &j, &reached);
    assert_true(fabs(a.x - b.x) < 1e-6 && fabs(a.y - b.y) < 1e-6 && fabs(a.z - b.z) < 1e-6 && fabs(a.w - b.w) < 1e-6);
}

static void ik_bad_input_is_refused_with_its_name(void **state)
{
    (void)state;
    const cna_mat4 s = base_start(), m = base_mid(), e = base_end();
    cna_quat qs = cna_quat_make(9, 9, 9, 9), qm = qs;
    bool reached = true;
    cna_error err;
    cna_ik_two_bone ik = cna_ik_two_bone_defaults();
    ik.target = cna_vec3_make(1, NAN, 0);
    assert_int_equal(cna_ik_two_bone_solve(&ik, &s, &m, &e, &qs, &qm, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "two-bone IK: target.y is nan, not finite");
    ik = cna_ik_two_bone_defaults();
    ik.pole = cna_vec3_make(0, 0, 0);
    assert_int_equal(cna_ik_two_bone_solve(&ik, &s, &m, &e, &qs, &qm, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "two-bone IK: pole is zero-length");
    ik = cna_ik_two_bone_defaults();
    ik.mid_axis = cna_vec3_make(0, 0, 0);
    assert_int_equal(cna_ik_two_bone_solve(&ik, &s, &m, &e, &qs, &qm, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "two-bone IK: mid_axis is zero-length");
    ik = cna_ik_two_bone_defaults();
    ik.weight = INFINITY;
    assert_int_equal(cna_ik_two_bone_solve(&ik, &s, &m, &e, &qs, &qm, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "two-bone IK: weight is inf, not finite");
    ik = cna_ik_two_bone_defaults();
    assert_int_equal(cna_ik_two_bone_solve(&ik, &s, NULL, &e, &qs, &qm, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "two-bone IK: mid is NULL");
    assert_true(qs.x == 9 && qm.w == 9 && reached); /* nothing written */
    cna_ik_aim a = cna_ik_aim_defaults();
    cna_quat q = qs;
    a.forward = cna_vec3_make(0, 0, 0);
    assert_int_equal(cna_ik_aim_solve(&a, &s, &q, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "aim IK: forward is zero-length");
    a = cna_ik_aim_defaults();
    a.up = cna_vec3_make(0, 0, 0);
    assert_int_equal(cna_ik_aim_solve(&a, &s, &q, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "aim IK: up is zero-length");
    a = cna_ik_aim_defaults();
    a.target = cna_vec3_make(INFINITY, 0, 0);
    assert_int_equal(cna_ik_aim_solve(&a, &s, &q, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "aim IK: target.x is inf, not finite");
    a = cna_ik_aim_defaults();
    a.cone = 4;
    assert_int_equal(cna_ik_aim_solve(&a, &s, &q, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "aim IK: cone 4 is outside (0, pi]");
    a = cna_ik_aim_defaults();
    a.twist_min = 0.5f;
    a.twist_max = 0.25f;
    assert_int_equal(cna_ik_aim_solve(&a, &s, &q, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "aim IK: twist range [0.5, 0.25] is not within [-pi, pi] with min <= max");
    assert_true(q.x == 9 && reached);
}

/* ------------------------------------------------------------------ the character's pose edit */

#define ROBOT CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb"

typedef struct { size_t allocs; } counter;
static void *count_alloc(void *user, size_t size)
{
    ((counter *)user)->allocs++;
    return malloc(size);
}
static void count_free(void *user, void *p)
{
    (void)user;
    free(p);
}

static cna_model *robot(void)
{
    cna_model *m = NULL;
    cna_error err;
    assert_int_equal(cna_model_load_file(ROBOT, NULL, &m, &err), CNA_OK);
    return m;
}

static cna_character *walking(const cna_model *m, counter *count, double seconds)
{
    cna_character_options o;
    memset(&o, 0, sizeof o);
    if (count) {
        o.allocator.alloc = count_alloc;
        o.allocator.free = count_free;
        o.allocator.user_data = count;
    }
    cna_character *c = NULL;
    cna_error err;
    size_t walk;
    assert_int_equal(cna_character_create(m, &o, &c, &err), CNA_OK);
    assert_int_equal(cna_model_find_animation(m, "Robot_Walking", &walk, &err), CNA_OK);
    assert_int_equal(cna_character_play(c, (long)walk, &err), CNA_OK);
    assert_int_equal(cna_character_seek(c, seconds, &err), CNA_OK);
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    return c;
}

/* Every output of the character: absolutes, the skin's worlds and palette. */
typedef struct {
    cna_mat4 abs[64], world[64], skin[64];
} snapshot;
static void snap(const cna_character *c, snapshot *s)
{
    const cna_model *m = cna_character_model(c);
    assert_true(m->bone_count <= 64 && m->skins[0].joint_count <= 64);
    memset(s, 0, sizeof *s);
    for (size_t b = 0; b < m->bone_count; b++) s->abs[b] = *cna_character_absolute_transform(c, b);
    memcpy(s->world, cna_character_world_transforms(c, 0), m->skins[0].joint_count * sizeof(cna_mat4));
    memcpy(s->skin, cna_character_skin_transforms(c, 0), m->skins[0].joint_count * sizeof(cna_mat4));
}

static bool in_subtree(const cna_model *m, int32_t root, int32_t b)
{
    for (; b >= 0; b = m->bones[b].parent)
        if (b == root) return true;
    return false;
}

static double max_diff(const cna_mat4 *a, const D4 *b)
{
    double d = 0;
    for (int i = 0; i < 16; i++) d = fmax(d, fabs(a->m[i] - b->m[i]));
    return d;
}

/* every bone: absolute = absolute[parent] · local; every joint: skin = world · inverse_bind,
 * world = absolute[mesh_node]^-1 · absolute (the robot's mesh nodes are at the armature) */
static void assert_consistent(const cna_character *c)
{
    const cna_model *m = cna_character_model(c);
    for (size_t b = 0; b < m->bone_count; b++) {
        const int32_t p = m->bones[b].parent;
        D4 want = d_of(cna_character_bone_transform(c, b));
        if (p >= 0) want = d_mul(d_of(cna_character_absolute_transform(c, (size_t)p)), want);
        assert_true(max_diff(cna_character_absolute_transform(c, b), &want) < 1e-5);
    }
    const cna_model_skin *s = &m->skins[0];
    const cna_mat4 *world = cna_character_world_transforms(c, 0), *skin = cna_character_skin_transforms(c, 0);
    const D4 inv_mesh = d_inv(d_of(cna_character_absolute_transform(c, (size_t)s->mesh_node)));
    for (size_t p = 0; p < s->joint_count; p++) {
        const D4 w = d_mul(inv_mesh, d_of(cna_character_absolute_transform(c, (size_t)s->palette_to_node[p])));
        assert_true(max_diff(&world[p], &w) < 1e-5);
        const D4 k = d_mul(d_of(&world[p]), d_of(&s->data.inverse_bind_pose[p]));
        assert_true(max_diff(&skin[p], &k) < 1e-5);
    }
}

/* glTF's palette, computed here: skin[p] = inverse(absolute[mesh_node]) ·
 * absolute[joint] · inverse_bind[p], for every skin; every bone's absolute
 * = absolute[parent] · local; each split part's sub-palette gathered. */
static void assert_gltf_palettes(const cna_character *c, const char *name)
{
    const cna_model *m = cna_character_model(c);
    for (size_t b = 0; b < m->bone_count; b++) {
        const int32_t p = m->bones[b].parent;
        D4 want = d_of(cna_character_bone_transform(c, b));
        if (p >= 0) want = d_mul(d_of(cna_character_absolute_transform(c, (size_t)p)), want);
        if (max_diff(cna_character_absolute_transform(c, b), &want) > 1e-4) {
            print_error("%s: bone %zu's absolute is not absolute[parent] · local\n", name, b);
            fail();
        }
    }
    for (size_t k = 0; k < m->skin_count; k++) {
        const cna_model_skin *s = &m->skins[k];
        const cna_mat4 *skin = cna_character_skin_transforms(c, k);
        const D4 inv_mesh = d_inv(d_of(cna_character_absolute_transform(c, (size_t)s->mesh_node)));
        for (size_t p = 0; p < s->joint_count; p++) {
            if (s->palette_to_node[p] < 0) continue;
            const D4 w = d_mul(d_mul(inv_mesh, d_of(cna_character_absolute_transform(c, (size_t)s->palette_to_node[p]))),
                               d_of(&s->data.inverse_bind_pose[p]));
            if (max_diff(&skin[p], &w) > 1e-4) {
                print_error("%s: skins[%zu] palette[%zu] is not glTF's\n", name, k, p);
                fail();
            }
        }
    }
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++) {
            const cna_model_part *part = &m->meshes[i].parts[k];
            if (!part->palette_map || m->meshes[i].skin < 0) continue;
            size_t n = 0;
            const cna_mat4 *sub = cna_character_part_palette(c, i, k, &n);
            const cna_mat4 *skin = cna_character_skin_transforms(c, (size_t)m->meshes[i].skin);
            for (size_t e = 0; e < n; e++) assert_memory_equal(&sub[e], &skin[part->palette_map[e]], sizeof(cna_mat4));
        }
}

/* On every skinned fixture, each joint rotated in turn: glTF's palettes
 * hold after each edit (nested skeletons, folded nodes, instances, moving
 * prefixes, split palettes), or the edit is refused with its reason and
 * changes nothing. */
static void every_joint_of_every_skinned_fixture_edits_consistently(void **state)
{
    (void)state;
    static const char *const files[] = {
        "corpus/valid/RiggedSimple/rigged_simple.gltf", "corpus/valid/SimpleSkin/simple_skin.gltf",
        "fixtures/skin-mesh-node-transform.gltf",        "fixtures/skin-armature-ancestor.gltf",
        "fixtures/skin-ordered-joints.gltf",             "fixtures/skin-reversed-joints.gltf",
        "fixtures/skin-two-instances.gltf",              "fixtures/skin-folded-node.gltf",
        "fixtures/skin-animated-ancestor.gltf",          "fixtures/skin-nested.gltf",
        "fixtures/skin-animated-mesh-node.gltf",         "fixtures/split-two-skins.gltf",
        "fixtures/split-shared-skin.gltf",
    };
    size_t edited = 0, refused = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, files[f]);
        cna_import_options o;
        memset(&o, 0, sizeof o);
        o.split_palettes = true;
        cna_model *m = NULL;
        cna_error err;
        assert_int_equal(cna_model_load_file(path, &o, &m, &err), CNA_OK);
        cna_character *c = NULL;
        assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
        /* (a folded node's own motion is not played, a documented
         * limit of folding: such a file is edited at rest) */
        if (m->animation_count > 0 && !cna_model_find_diagnostic(m, "animated-node-folded"))
            assert_int_equal(cna_character_play(c, 0, &err), CNA_OK);
        assert_int_equal(cna_character_seek(c, 0.3, &err), CNA_OK);
        assert_int_equal(cna_character_pose(c, &err), CNA_OK);
        assert_gltf_palettes(c, files[f]);
        /* every bone of the small rigs; of the split ones (hundreds of joints), a spread of 24 */
        const size_t stride = m->bone_count / 24 + 1;
        for (size_t b = 0; b < m->bone_count; b += stride) {
            assert_int_equal(cna_character_pose(c, &err), CNA_OK);
            cna_mat4 *abs = (cna_mat4 *)malloc(m->bone_count * sizeof(cna_mat4));
            assert_int_equal(cna_character_copy_absolute_transforms(c, abs, m->bone_count, &err), CNA_OK);
            const double h = sqrt(0.5);
            const cna_result r =
                cna_character_rotate_joint(c, b, cna_quat_make((float)(0.3 * h), 0, (float)(0.3 * h), (float)sqrt(1 - 0.09)), &err);
            if (r == CNA_OK) {
                edited++;
                assert_gltf_palettes(c, files[f]);
                for (size_t x = 0; x < m->bone_count; x++)
                    if (!in_subtree(m, (int32_t)b, (int32_t)x))
                        assert_memory_equal(&abs[x], cna_character_absolute_transform(c, x), sizeof(cna_mat4));
            } else {
                refused++;
                assert_int_equal(r, CNA_ERROR_INVALID_ARGUMENT);
                assert_true(strstr(err.message, "not a joint of any skin") ||
                            strstr(err.message, "apart from its skeleton"));
                for (size_t x = 0; x < m->bone_count; x++)
                    assert_memory_equal(&abs[x], cna_character_absolute_transform(c, x), sizeof(cna_mat4));
            }
            free(abs);
        }
        cna_character_free(c);
        cna_model_free(m);
    }
    assert_true(edited > 0 && refused > 0);
    print_message("%zu joints edited, %zu bones refused\n", edited, refused);
}

static void an_edit_recomputes_only_the_edited_subtree(void **state)
{
    (void)state;
    cna_model *m = robot();
    counter count = {0};
    cna_character *c = walking(m, &count, 0.3);
    cna_error err;
    const int32_t arm = cna_model_find_bone(m, "UpperArm.L");
    assert_true(arm >= 0);
    snapshot before, after;
    snap(c, &before);
    /* weight 0: not a bit changes (and nothing is allocated) */
    const cna_mat4 local = trs(0.1, 0.2, 0.3, 1, 1, 0, 0.8, 1, 1, 1);
    assert_int_equal(cna_character_set_joint_local(c, (size_t)arm, &local, 0.0f, &err), CNA_OK);
    snap(c, &after);
    assert_memory_equal(&before, &after, sizeof before);
    /* weight 1: the local is the one written; its subtree moves, nothing else does */
    const size_t allocs = count.allocs;
    assert_int_equal(cna_character_set_joint_local(c, (size_t)arm, &local, 1.0f, &err), CNA_OK);
    assert_int_equal(count.allocs, allocs + 1); /* the first edit: one byte per bone */
    assert_memory_equal(cna_character_bone_transform(c, (size_t)arm), &local, sizeof local);
    snap(c, &after);
    const cna_model_skin *s = &m->skins[0];
    for (size_t b = 0; b < m->bone_count; b++) {
        const bool moved = memcmp(&before.abs[b], &after.abs[b], sizeof(cna_mat4)) != 0;
        if (!in_subtree(m, arm, (int32_t)b)) assert_false(moved);
        else if ((int32_t)b == arm) assert_true(moved);
    }
    for (size_t p = 0; p < s->joint_count; p++)
        if (!in_subtree(m, arm, s->palette_to_node[p]))
            assert_memory_equal(&before.skin[p], &after.skin[p], sizeof(cna_mat4));
        else
            assert_memory_not_equal(&before.skin[p], &after.skin[p], sizeof(cna_mat4));
    assert_consistent(c);
    /* a blend: lerp of translations, slerp of rotations, between the pose's and the written */
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    cna_vec3 t0, s0, t1, s1;
    cna_quat r0, r1;
    cna_mat4_decompose(cna_character_bone_transform(c, (size_t)arm), &t0, &r0, &s0);
    cna_mat4_decompose(&local, &t1, &r1, &s1);
    assert_int_equal(cna_character_set_joint_local(c, (size_t)arm, &local, 0.25f, &err), CNA_OK);
    const cna_mat4 *blended = cna_character_bone_transform(c, (size_t)arm);
    assert_true(fabs(blended->m[12] - (t0.x + (t1.x - t0.x) * 0.25)) < 1e-6);
    assert_true(fabs(blended->m[13] - (t0.y + (t1.y - t0.y) * 0.25)) < 1e-6);
    cna_vec3 tb, sb;
    cna_quat rb;
    cna_mat4_decompose(blended, &tb, &rb, &sb);
    double dotq = (double)r0.x * r1.x + (double)r0.y * r1.y + (double)r0.z * r1.z + (double)r0.w * r1.w;
    const double sign = dotq < 0 ? -1 : 1;
    dotq = fabs(dotq);
    const double th = acos(fmin(1.0, dotq));
    const double wa = sin(0.75 * th) / sin(th), wb = sin(0.25 * th) / sin(th) * sign;
    const double want[4] = {r0.x * wa + r1.x * wb, r0.y * wa + r1.y * wb, r0.z * wa + r1.z * wb,
                            r0.w * wa + r1.w * wb};
    const double dq = fabs(rb.x * want[0] + rb.y * want[1] + rb.z * want[2] + rb.w * want[3]);
    assert_true(dq > 1 - 1e-6);
    assert_consistent(c);
    /* the next pose starts from the animation again */
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    snap(c, &after);
    assert_memory_equal(&before, &after, sizeof before);
    assert_int_equal(count.allocs, allocs + 1);
    cna_character_free(c);
    cna_model_free(m);
}

static void two_bone_and_aim_ik_on_the_robot(void **state)
{
    (void)state;
    cna_model *m = robot();
    counter count = {0};
    cna_character *c = walking(m, &count, 0.5);
    cna_error err;
    const int32_t start = cna_model_find_bone(m, "UpperArm.L"), mid = cna_model_find_bone(m, "LowerArm.L"),
                  end = cna_model_find_bone(m, "Palm2.L");
    double s0[3], m0[3], e0[3];
    d_origin(d_of(cna_character_absolute_transform(c, (size_t)start)), s0);
    d_origin(d_of(cna_character_absolute_transform(c, (size_t)mid)), m0);
    d_origin(d_of(cna_character_absolute_transform(c, (size_t)end)), e0);
    const double la = dist3(s0, m0), lb = dist3(m0, e0);
    /* the target: 80% of the chain's reach from the shoulder, sideways and down */
    const double dir[3] = {0.6, -0.64, 0.48};
    const double reach = 0.8 * (la + lb);
    const float t[3] = {(float)(s0[0] + dir[0] * reach), (float)(s0[1] + dir[1] * reach),
                        (float)(s0[2] + dir[2] * reach)};
    cna_ik_two_bone ik = cna_ik_two_bone_defaults();
    ik.target = cna_vec3_make(t[0], t[1], t[2]);
    ik.pole = cna_vec3_make(0, 0, -1);
    /* the mid joint bends about its own axis: find it from the pose (the
     * normal of the arm's plane, in the elbow's space) */
    const D4 mw = d_of(cna_character_absolute_transform(c, (size_t)mid));
    const double u[3] = {s0[0] - m0[0], s0[1] - m0[1], s0[2] - m0[2]}, v[3] = {e0[0] - m0[0], e0[1] - m0[1], e0[2] - m0[2]};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    const D4 inv = d_inv(mw);
    const double ax[3] = {inv.m[0] * n[0] + inv.m[4] * n[1] + inv.m[8] * n[2],
                          inv.m[1] * n[0] + inv.m[5] * n[1] + inv.m[9] * n[2],
                          inv.m[2] * n[0] + inv.m[6] * n[1] + inv.m[10] * n[2]};
    ik.mid_axis = cna_vec3_make((float)ax[0], (float)ax[1], (float)ax[2]);
    snapshot before;
    snap(c, &before);
    bool reached = false;
    assert_int_equal(cna_character_two_bone_ik(c, "Palm2.L", &ik, &reached, &err), CNA_OK);
    assert_true(reached);
    double s1[3], m1[3], e1[3];
    d_origin(d_of(cna_character_absolute_transform(c, (size_t)start)), s1);
    d_origin(d_of(cna_character_absolute_transform(c, (size_t)mid)), m1);
    d_origin(d_of(cna_character_absolute_transform(c, (size_t)end)), e1);
    const double td[3] = {t[0], t[1], t[2]};
    const double size = 6.0; /* the robot is about 6 units tall */
    assert_true(dist3(e1, td) < 1e-5 * size);
    assert_true(fabs(dist3(s1, m1) - la) < 1e-6 * size && fabs(dist3(m1, e1) - lb) < 1e-6 * size);
    assert_true(dist3(s1, s0) == 0.0);
    assert_consistent(c);
    for (size_t b = 0; b < m->bone_count; b++)
        if (!in_subtree(m, start, (int32_t)b))
            assert_memory_equal(&before.abs[b], cna_character_absolute_transform(c, b), sizeof(cna_mat4));
    /* aim the head's +z at a point in front; up stays in the pole plane */
    cna_ik_aim a = cna_ik_aim_defaults();
    a.forward = cna_vec3_make(0, 0, 1);
    a.up = cna_vec3_make(0, 1, 0);
    a.target = cna_vec3_make(2, 4, 5);
    assert_int_equal(cna_character_aim_ik(c, "Head", &a, &reached, &err), CNA_OK);
    assert_true(reached);
    const int32_t head = cna_model_find_bone(m, "Head");
    const D4 h = d_of(cna_character_absolute_transform(c, (size_t)head));
    const double d[3] = {2 - h.m[12], 4 - h.m[13], 5 - h.m[14]}, hf[3] = {h.m[8], h.m[9], h.m[10]};
    assert_true(angle_between(hf, d) < 1e-5);
    assert_consistent(c);
    /* weight 0: not a bit */
    snap(c, &before);
    ik.weight = 0;
    a.weight = 0;
    assert_int_equal(cna_character_two_bone_ik(c, "Palm2.L", &ik, &reached, &err), CNA_OK);
    assert_false(reached);
    assert_int_equal(cna_character_aim_ik(c, "Head", &a, &reached, &err), CNA_OK);
    snapshot after;
    snap(c, &after);
    assert_memory_equal(&before, &after, sizeof before);
    cna_character_free(c);
    cna_model_free(m);
}

typedef struct { cna_ik_two_bone ik; cna_ik_aim aim; int calls; } editor_state;
static cna_result editor(cna_character *c, void *user, cna_error *err)
{
    editor_state *s = (editor_state *)user;
    s->calls++;
    cna_result r = cna_character_two_bone_ik(c, "Palm2.L", &s->ik, NULL, err);
    return r != CNA_OK ? r : cna_character_aim_ik(c, "Head", &s->aim, NULL, err);
}

static void a_pose_edit_callback_equals_the_calls_by_hand_also_in_a_crowd(void **state)
{
    (void)state;
    cna_model *m = robot();
    cna_error err;
    editor_state es;
    es.ik = cna_ik_two_bone_defaults();
    es.ik.target = cna_vec3_make(1.5f, 3.0f, 1.0f);
    es.ik.pole = cna_vec3_make(0, 0, -1);
    es.aim = cna_ik_aim_defaults();
    es.aim.forward = cna_vec3_make(0, 0, 1);
    es.aim.target = cna_vec3_make(-1, 4, 5);
    es.calls = 0;
    counter count = {0};
    cna_character *hand = walking(m, NULL, 0.0), *cb = walking(m, &count, 0.0), *crowd_c = walking(m, NULL, 0.0);
    assert_int_equal(cna_character_set_pose_edit(cb, editor, &es, &err), CNA_OK);
    assert_int_equal(cna_character_set_pose_edit(crowd_c, editor, &es, &err), CNA_OK);
    cna_crowd *crowd = NULL;
    assert_int_equal(cna_crowd_create(NULL, &crowd, &err), CNA_OK);
    const size_t allocs = count.allocs;
    for (int frame = 0; frame < 5; frame++) {
        assert_int_equal(cna_character_update(hand, 0.1, &err), CNA_OK);
        assert_int_equal(editor(hand, &es, &err), CNA_OK);
        assert_int_equal(cna_character_update(cb, 0.1, &err), CNA_OK);
        cna_character *one[1] = {crowd_c};
        assert_int_equal(cna_crowd_update_characters(crowd, one, 1, 0.1, &err), CNA_OK);
        snapshot a, b, k;
        snap(hand, &a);
        snap(cb, &b);
        snap(crowd_c, &k);
        assert_memory_equal(&a, &b, sizeof a);
        assert_memory_equal(&a, &k, sizeof a);
    }
    assert_int_equal(es.calls, 5 * 3);
    assert_int_equal(count.allocs, allocs); /* posing and editing allocate nothing */
    /* an error of the edit is the pose's */
    es.ik.target = cna_vec3_make(NAN, 0, 0);
    assert_int_equal(cna_character_pose(cb, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "two-bone IK: target.x is nan, not finite");
    assert_int_equal(cna_character_set_pose_edit(cb, NULL, NULL, &err), CNA_OK);
    assert_int_equal(cna_character_pose(cb, &err), CNA_OK);
    cna_crowd_free(crowd);
    cna_character_free(hand);
    cna_character_free(cb);
    cna_character_free(crowd_c);
    cna_model_free(m);
}

static void pose_edit_bad_input_names_the_joint_and_changes_nothing(void **state)
{
    (void)state;
    cna_model *m = robot();
    cna_character *c = walking(m, NULL, 0.2);
    cna_error err;
    snapshot before, after;
    snap(c, &before);
    cna_ik_two_bone ik = cna_ik_two_bone_defaults();
    assert_int_equal(cna_character_two_bone_ik(c, "Tail", &ik, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "joint \"Tail\": no such joint");
    assert_int_equal(cna_character_two_bone_ik(c, "Bone", &ik, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "joint \"Bone\": two-bone IK needs a parent and a grandparent; it has no grandparent");
    assert_int_equal(cna_character_two_bone_ik(c, "RobotArmature", &ik, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "joint \"RobotArmature\": two-bone IK needs a parent and a grandparent; it has neither");
    ik.target = cna_vec3_make(0, INFINITY, 0);
    assert_int_equal(cna_character_two_bone_ik(c, "Palm2.L", &ik, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "two-bone IK: target.y is inf, not finite");
    ik = cna_ik_two_bone_defaults();
    ik.mid_axis = cna_vec3_make(0, 0, 0);
    assert_int_equal(cna_character_two_bone_ik(c, "Palm2.L", &ik, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "two-bone IK: mid_axis is zero-length");
    cna_ik_aim a = cna_ik_aim_defaults();
    a.forward = cna_vec3_make(0, 0, 0);
    assert_int_equal(cna_character_aim_ik(c, "Head", &a, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "aim IK: forward is zero-length");
    /* a bone no skin poses */
    const int32_t armature = cna_model_find_bone(m, "RobotArmature");
    const cna_mat4 id = ident();
    char want[160];
    snprintf(want, sizeof want, "bone %d \"RobotArmature\": not a joint of any skin; only joints can be edited",
             (int)armature);
    assert_int_equal(cna_character_set_joint_local(c, (size_t)armature, &id, 1.0f, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, want);
    const int32_t head = cna_model_find_bone(m, "Head");
    snprintf(want, sizeof want, "bone %d \"Head\": weight 1.5 is outside 0..1", (int)head);
    assert_int_equal(cna_character_set_joint_local(c, (size_t)head, &id, 1.5f, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, want);
    cna_mat4 bad = id;
    bad.m[5] = NAN;
    snprintf(want, sizeof want, "bone %d \"Head\": the local transform is not finite", (int)head);
    assert_int_equal(cna_character_set_joint_local(c, (size_t)head, &bad, 1.0f, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, want);
    snprintf(want, sizeof want, "bone %d \"Head\": the correction's length 2 is not 1", (int)head);
    assert_int_equal(cna_character_rotate_joint(c, (size_t)head, cna_quat_make(0, 0, 0, 2), &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, want);
    assert_int_equal(cna_character_set_joint_local(c, 999, &id, 1.0f, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "pose edit: bone 999 is outside the model's 58 bones");
    assert_int_equal(cna_character_set_joint_local(NULL, 0, &id, 1.0f, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_character_set_pose_edit(NULL, editor, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    snap(c, &after);
    assert_memory_equal(&before, &after, sizeof before);
    cna_character_free(c);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ chain (CCD) */

/* a chain of n unit bones up +y from the origin, each joint turned a little */
static void straight_chain(cna_mat4 *w, size_t n)
{
    w[0] = trs(0, 0, 0, 0, 0, 1, 0.1, 1, 1, 1);
    for (size_t i = 1; i < n; i++) {
        const cna_mat4 local = trs(0, 1, 0, 1, 0, 1, 0.05 * (double)i, 1, 1, 1);
        w[i] = mat_mul(&w[i - 1], &local);
    }
}

/* the chain rebuilt with the corrections, parents first:
 *   world'[0] = world[0] · R(q0), world'[k] = world'[k-1] · (inverse(world[k-1]) · world[k]) · R(qk) */
static void rebuild(const cna_mat4 *w, size_t n, const cna_quat *q, D4 *out)
{
    out[0] = d_mul(d_of(&w[0]), d_q(q[0]));
    for (size_t k = 1; k < n; k++) {
        D4 local = d_mul(d_inv(d_of(&w[k - 1])), d_of(&w[k]));
        out[k] = d_mul(out[k - 1], local);
        if (k < n - 1) out[k] = d_mul(out[k], d_q(q[k]));
    }
}

static void chain_ik_reaches_within_limits_and_keeps_lengths(void **state)
{
    (void)state;
    enum { N = 6 };
    cna_mat4 w[N];
    straight_chain(w, N);
    const cna_mat4 *ptr[N];
    for (size_t i = 0; i < N; i++) ptr[i] = &w[i];
    cna_ik_chain ik = cna_ik_chain_defaults();
    cna_quat q[N - 1];
    bool reached = false;
    cna_error err;
    D4 out[N];
    const float targets[][3] = {{2, 3, 1}, {-1.5f, 2, -2}, {0.5f, -1, 3}};
    for (size_t t = 0; t < 3; t++) {
        ik.target = cna_vec3_make(targets[t][0], targets[t][1], targets[t][2]);
        ik.iterations = 200;
        assert_int_equal(cna_ik_chain_solve(&ik, ptr, N, q, &reached, &err), CNA_OK);
        assert_true(reached);
        rebuild(w, N, q, out);
        double e[3], p0[3], p1[3];
        const double td[3] = {targets[t][0], targets[t][1], targets[t][2]};
        d_origin(out[N - 1], e);
        assert_true(dist3(e, td) < 1e-4 + 1e-6);
        for (size_t k = 1; k < N; k++) {
            d_origin(out[k - 1], p0);
            d_origin(out[k], p1);
            assert_true(fabs(dist3(p0, p1) - 1.0) < 1e-6);
        }
        d_origin(out[0], p0);
        assert_true(p0[0] == 0 && p0[1] == 0 && p0[2] == 0);
    }
    /* out of reach (the chain is 5 long): not reached, stretched toward it */
    ik.target = cna_vec3_make(8, 6, 0);
    ik.iterations = 1000;
    assert_int_equal(cna_ik_chain_solve(&ik, ptr, N, q, &reached, &err), CNA_OK);
    assert_false(reached);
    rebuild(w, N, q, out);
    double e[3];
    d_origin(out[N - 1], e);
    const double t10[3] = {8, 6, 0};
    assert_true(fabs(dist3(e, t10) - 5.0) < 1e-3);
    /* limits: hinges about z of at most 0.3 rad each, never exceeded */
    cna_ik_joint_limit limits[N - 1];
    for (size_t k = 0; k < N - 1; k++) {
        limits[k].axis = cna_vec3_make(0, 0, 1);
        limits[k].max_angle = 0.3f;
    }
    ik.limits = limits;
    ik.iterations = 50;
    const float far[][3] = {{3, 2, 0}, {-4, 0, 1}, {0, -3, 2}};
    for (size_t t = 0; t < 3; t++) {
        ik.target = cna_vec3_make(far[t][0], far[t][1], far[t][2]);
        assert_int_equal(cna_ik_chain_solve(&ik, ptr, N, q, &reached, &err), CNA_OK);
        for (size_t k = 0; k < N - 1; k++) {
            assert_true(fabs(q[k].x) < 1e-7 && fabs(q[k].y) < 1e-7);
            assert_true(2 * atan2(fabs(q[k].z), q[k].w) <= 0.3 + 1e-6);
        }
    }
    /* weight 0: no correction */
    ik.limits = NULL;
    ik.weight = 0;
    ik.target = cna_vec3_make(2, 3, 1);
    assert_int_equal(cna_ik_chain_solve(&ik, ptr, N, q, &reached, &err), CNA_OK);
    assert_false(reached);
    for (size_t k = 0; k < N - 1; k++) ASSERT_ID(q[k], 0);
    /* bad input */
    ik = cna_ik_chain_defaults();
    assert_int_equal(cna_ik_chain_solve(&ik, ptr, 1, q, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "chain IK: count 1 is outside 2..33");
    ik.iterations = 0;
    assert_int_equal(cna_ik_chain_solve(&ik, ptr, N, q, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "chain IK: iterations 0 is outside 1..1000");
    ik = cna_ik_chain_defaults();
    ik.tolerance = 0;
    assert_int_equal(cna_ik_chain_solve(&ik, ptr, N, q, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "chain IK: tolerance 0 is not above 0");
    ik = cna_ik_chain_defaults();
    limits[2].max_angle = 4;
    ik.limits = limits;
    assert_int_equal(cna_ik_chain_solve(&ik, ptr, N, q, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "chain IK: limits[2].max_angle 4 is outside 0..pi");
    ik = cna_ik_chain_defaults();
    ik.target = cna_vec3_make(0, 0, NAN);
    assert_int_equal(cna_ik_chain_solve(&ik, ptr, N, q, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "chain IK: target.z is nan, not finite");
}

static void chain_ik_on_the_robots_spine(void **state)
{
    (void)state;
    cna_model *m = robot();
    cna_character *c = walking(m, NULL, 0.4);
    cna_error err;
    const int32_t head = cna_model_find_bone(m, "Head"), torso = cna_model_find_bone(m, "Torso");
    const cna_mat4 *h = cna_character_absolute_transform(c, (size_t)head);
    cna_ik_chain ik = cna_ik_chain_defaults();
    ik.target = cna_vec3_make(h->m[12] + 0.4f, h->m[13] - 0.3f, h->m[14] + 0.5f);
    ik.iterations = 100;
    snapshot before;
    snap(c, &before);
    bool reached = false;
    assert_int_equal(cna_character_chain_ik(c, "Head", 3, &ik, &reached, &err), CNA_OK);
    assert_true(reached);
    const cna_mat4 *h2 = cna_character_absolute_transform(c, (size_t)head);
    const double e[3] = {h2->m[12], h2->m[13], h2->m[14]}, t[3] = {ik.target.x, ik.target.y, ik.target.z};
    assert_true(dist3(e, t) < 1e-4 + 1e-5);
    assert_consistent(c);
    const int32_t abdomen = cna_model_find_bone(m, "Abdomen");
    for (size_t b = 0; b < m->bone_count; b++)
        if (!in_subtree(m, abdomen, (int32_t)b))
            assert_memory_equal(&before.abs[b], cna_character_absolute_transform(c, b), sizeof(cna_mat4));
    (void)torso;
    assert_int_equal(cna_character_chain_ik(c, "Head", 9, &ik, &reached, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "joint \"Head\": a chain of 9 needs 9 ancestors; it has 7");
    cna_character_free(c);
    cna_model_free(m);
}

int cna_test_ik_run(void);
int cna_test_ik_run(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_bone_start_corrections_hold_under_any_parent),
        cmocka_unit_test(two_bone_pole_turns_the_chain_plane),
        cmocka_unit_test(two_bone_soften_weight_twist_and_mid_axis_as_ozz),
        cmocka_unit_test(two_bone_reaches_keeps_lengths_root_and_pole_plane),
        cmocka_unit_test(aim_corrections_are_ozzs),
        cmocka_unit_test(aim_points_the_offset_forward_at_the_target_with_up_in_the_pole_plane),
        cmocka_unit_test(aim_limits_are_never_exceeded),
        cmocka_unit_test(ik_bad_input_is_refused_with_its_name),
        cmocka_unit_test(an_edit_recomputes_only_the_edited_subtree),
        cmocka_unit_test(every_joint_of_every_skinned_fixture_edits_consistently),
        cmocka_unit_test(two_bone_and_aim_ik_on_the_robot),
        cmocka_unit_test(a_pose_edit_callback_equals_the_calls_by_hand_also_in_a_crowd),
        cmocka_unit_test(pose_edit_bad_input_names_the_joint_and_changes_nothing),
        cmocka_unit_test(chain_ik_reaches_within_limits_and_keeps_lengths),
        cmocka_unit_test(chain_ik_on_the_robots_spine),
    };
    return cmocka_run_group_tests_name("pose edit and IK", tests, NULL, NULL);
}
