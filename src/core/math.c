/*
 * Math over cglm in cna's convention (column-major, column vectors).
 * Each formula is written in our convention with the spec's row-vector form
 * beside it; see docs/conventions.md.
 */
#include <math.h>
#include <string.h>

#define CGLM_ALL_UNALIGNED 1
#include <cglm/cglm.h>

#include "cna/math.h"
#include "core/mat4_portable.h"
#include "core/quat_norm.h"
#include "core/trig_poly.h"

cna_vec3 cna_vec3_make(float x, float y, float z)
{
    cna_vec3 v = {x, y, z};
    return v;
}
cna_vec3 cna_vec3_zero(void) { return cna_vec3_make(0.0f, 0.0f, 0.0f); }
cna_vec3 cna_vec3_one(void) { return cna_vec3_make(1.0f, 1.0f, 1.0f); }

/* a + (b - a)·t, the form XNA's Vector3.Lerp uses. t = 0 gives a exactly. */
cna_vec3 cna_vec3_lerp(cna_vec3 a, cna_vec3 b, float t)
{
    return cna_vec3_make(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
}

cna_quat cna_quat_make(float x, float y, float z, float w)
{
    cna_quat q = {x, y, z, w};
    return q;
}
cna_quat cna_quat_identity(void) { return cna_quat_make(0.0f, 0.0f, 0.0f, 1.0f); }

cna_quat cna_quat_normalize(cna_quat q)
{
    float len = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (!(len > 0.0f) || !isfinite(len)) return cna_quat_identity();
    float inv = 1.0f / len;
    return cna_quat_make(q.x * inv, q.y * inv, q.z * inv, q.w * inv);
}

/* ------------------------------------------------------------------ sin, acos
 * cna's own sine and arc cosine (include/cna/math.h): IEEE binary64
 * arithmetic only (+ - * / and sqrt, each correctly rounded; no fused
 * multiply-add: the build uses -ffp-contract=off), one rounding to float at
 * the end, so the same bits on every IEEE machine, whatever the C library. */

/* The double nearest pi, and pi = PI_1 + PI_2 + PI_3 (Cody-Waite): PI_1 and
 * PI_2 have 30 significant bits, so k·PI_1 and k·PI_2 are exact for integers
 * |k| < 2^23. */
#define PI_HI 3.141592653589793116
#define PI_1 0x1.921fb54p+1
#define PI_2 0x1.10b46118p-29
#define PI_3 0x1.313198a2e037p-60
#define PIO2 1.5707963267948966192
/* Adding and subtracting 1.5 * 2^52 rounds a double below 2^51 to the
 * nearest integer (ties to even). */
#define ROUND_MAGIC 6755399441055744.0

/* sin(r) for |r| <= pi/2 + tiny (src/core/trig_poly.h). */
static double sin_poly(double r)
{
    const double r2 = r * r;
    double p = CNA__SIN_C0;
    p = p * r2 + CNA__SIN_C1;
    p = p * r2 + CNA__SIN_C2;
    p = p * r2 + CNA__SIN_C3;
    p = p * r2 + CNA__SIN_C4;
    p = p * r2 + CNA__SIN_C5;
    p = p * r2 + CNA__SIN_C6;
    return r + r * (r2 * p);
}

float cna_sinf(float x)
{
    if (x == 0.0f) return x; /* sin(±0) = ±0 (the polynomial would give +0 for -0) */
    const double xd = (double)x;
    if (fabs(xd) <= PIO2) return (float)sin_poly(xd);
    if (!(fabs(xd) < 0x1p50)) return isnan(x) || isinf(x) ? x - x : 0.0f;
    /* x = k·pi + r with k the nearest integer to x/pi, |r| <= pi/2 (+ rounding);
     * sin(x) = (-1)^k sin(r) */
    const double k = (xd * (1.0 / PI_HI) + ROUND_MAGIC) - ROUND_MAGIC;
    const double r = ((xd - k * PI_1) - k * PI_2) - k * PI_3;
    const double half = k * 0.5;
    const bool odd = ((half + ROUND_MAGIC) - ROUND_MAGIC) != half;
    const double s = sin_poly(r);
    return (float)(odd ? -s : s);
}

/* asin(z) for 0 <= z <= 0.5 (src/core/trig_poly.h). */
static double asin_poly(double z)
{
    const double z2 = z * z;
    double p = CNA__ASIN_C0;
    p = p * z2 + CNA__ASIN_C1;
    p = p * z2 + CNA__ASIN_C2;
    p = p * z2 + CNA__ASIN_C3;
    p = p * z2 + CNA__ASIN_C4;
    p = p * z2 + CNA__ASIN_C5;
    p = p * z2 + CNA__ASIN_C6;
    p = p * z2 + CNA__ASIN_C7;
    p = p * z2 + CNA__ASIN_C8;
    p = p * z2 + CNA__ASIN_C9;
    p = p * z2 + CNA__ASIN_C10;
    return z + z * (z2 * p);
}

float cna_acosf(float x)
{
    const double xd = (double)x;
    const double ax = fabs(xd);
    if (isnan(x)) return x;
    if (ax > 1.0) return NAN;
    if (ax <= 0.5) return (float)(PIO2 - (xd < 0.0 ? -asin_poly(ax) : asin_poly(ax)));
    /* acos |x| = 2 asin(sqrt((1 - |x|) / 2)); acos(-|x|) = pi - acos |x| */
    const double a = 2.0 * asin_poly(sqrt((1.0 - ax) * 0.5));
    return (float)(xd < 0.0 ? PI_HI - a : a);
}

/* Shortest-arc slerp. cglm 0.8's glm_quat_slerp falls back to a lerp towards
 * the un-negated target for nearly opposite quaternions, which passes through
 * zero, so this one is ours (same formula as XNA's Quaternion.Slerp, with
 * cna_sinf and cna_acosf for the trigonometry). */
cna_quat cna_quat_slerp(cna_quat a, cna_quat b, float t)
{
    float d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    float sign = 1.0f;
    if (d < 0.0f) {
        d = -d;
        sign = -1.0f;
    }
    float wa, wb;
    if (d > 1.0f - 1e-6f) {
        wa = 1.0f - t;
        wb = t * sign;
    } else {
        float theta = cna_acosf(d);
        float inv_sin = 1.0f / cna_sinf(theta);
        wa = cna_sinf((1.0f - t) * theta) * inv_sin;
        wb = cna_sinf(t * theta) * inv_sin * sign;
    }
    if (t == 0.0f) return a; /* exact hold at the first key */
    return cna_quat_make(a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb,
                         a.w * wa + b.w * wb);
}

void cna_mat4_identity(cna_mat4 *out)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    out->m[0] = out->m[5] = out->m[10] = out->m[15] = 1.0f;
}

void cna_mat4_translation(cna_mat4 *out, cna_vec3 v)
{
    if (!out) return;
    cna_mat4_identity(out);
    out->m[12] = v.x;
    out->m[13] = v.y;
    out->m[14] = v.z;
}

/* out = a · b in our convention (spec: b * a). */
void cna_mat4_mul(cna_mat4 *out, const cna_mat4 *a, const cna_mat4 *b)
{
    if (!out || !a || !b) return;
    mat4 ma, mb, r;
    memcpy(ma, a->m, sizeof ma);
    memcpy(mb, b->m, sizeof mb);
    glm_mat4_mul(ma, mb, r);
    memcpy(out->m, r, sizeof r);
}

/* out = T(t) · R(r) · S(s)   (spec: Matrix.CreateScale(s) * CreateFromQuaternion(r) * CreateTranslation(t)).
 * Column c of R·S is column c of R(r) times s[c]; column 3 is (t, 1). */
void cna_mat4_compose(cna_mat4 *out, cna_vec3 t, cna_quat r, cna_vec3 s)
{
    if (!out) return;
    /* glm_quat_mat4's arithmetic, with the norm summed in one order on every
     * target (core/quat_norm.h) */
    const float x = r.x, y = r.y, z = r.z, w = r.w;
    const float norm = cna__quat_norm(x, y, z, w);
    const float k = norm > 0.0f ? 2.0f / norm : 0.0f;
    const float xx = k * x * x, xy = k * x * y, wx = k * w * x;
    const float yy = k * y * y, yz = k * y * z, wy = k * w * y;
    const float zz = k * z * z, xz = k * x * z, wz = k * w * z;
    out->m[0] = (1.0f - yy - zz) * s.x;
    out->m[1] = (xy + wz) * s.x;
    out->m[2] = (xz - wy) * s.x;
    out->m[4] = (xy - wz) * s.y;
    out->m[5] = (1.0f - xx - zz) * s.y;
    out->m[6] = (yz + wx) * s.y;
    out->m[8] = (xz + wy) * s.z;
    out->m[9] = (yz - wx) * s.z;
    out->m[10] = (1.0f - xx - yy) * s.z;
    out->m[3] = out->m[7] = out->m[11] = 0.0f;
    out->m[12] = t.x;
    out->m[13] = t.y;
    out->m[14] = t.z;
    out->m[15] = 1.0f;
}

/* m = T · R · S: translation is column 3; scale is the length of columns 0..2;
 * R is the columns divided by their scale (spec: Matrix.Decompose). */
bool cna_mat4_decompose(const cna_mat4 *m, cna_vec3 *t, cna_quat *r, cna_vec3 *s)
{
    if (!m || !t || !r || !s) return false;
    *t = cna_vec3_make(m->m[12], m->m[13], m->m[14]);
    *r = cna_quat_identity();
    *s = cna_vec3_one();
    for (int i = 0; i < 16; ++i)
        if (!isfinite(m->m[i])) return false;
    vec3 col[3];
    float sc[3];
    for (int c = 0; c < 3; ++c) {
        glm_vec3_copy((float *)&m->m[c * 4], col[c]);
        sc[c] = glm_vec3_norm(col[c]);
        if (!(sc[c] > 0.0f)) return false;
    }
    vec3 cross;
    glm_vec3_cross(col[0], col[1], cross);
    if (glm_vec3_dot(cross, col[2]) < 0.0f) sc[0] = -sc[0]; /* reflection: negative x scale */
    mat4 rot = GLM_MAT4_IDENTITY_INIT;
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row) rot[c][row] = col[c][row] / sc[c];
    versor q;
    glm_mat4_quat(rot, q);
    *r = cna_quat_normalize(cna_quat_make(q[0], q[1], q[2], q[3]));
    *s = cna_vec3_make(sc[0], sc[1], sc[2]);
    return true;
}

bool cna_mat4_inverse(cna_mat4 *out, const cna_mat4 *m)
{
    if (!out || !m) return false;
    for (int i = 0; i < 16; ++i)
        if (!isfinite(m->m[i])) return false;
    mat4 a, inv;
    memcpy(a, m->m, sizeof a);
#if defined(__SSE__) || defined(__SSE2__)
    /* cglm's SSE2 code (the condition is cglm's) */
    float det = glm_mat4_det(a);
    if (!(fabsf(det) >= 1e-30f) || !isfinite(det)) return false;
    glm_mat4_inv_precise(a, inv);
#else
    /* elsewhere its operations in its order (core/mat4_portable.h), not cglm's
     * scalar code, whose bits differ */
    float det = cna__mat4_det_portable(m->m);
    if (!(fabsf(det) >= 1e-30f) || !isfinite(det)) return false;
    cna__mat4_inverse_portable(m->m, &inv[0][0]);
#endif
    for (int i = 0; i < 16; ++i)
        if (!isfinite(((float *)inv)[i])) return false;
    memcpy(out->m, inv, sizeof inv);
    return true;
}

/* m · (p, 1)   (spec: Vector3.Transform(p, m)). */
cna_vec3 cna_mat4_transform_point(const cna_mat4 *m, cna_vec3 p)
{
    if (!m) return cna_vec3_make(0.0f, 0.0f, 0.0f);
    const float *a = m->m;
    return cna_vec3_make(a[0] * p.x + a[4] * p.y + a[8] * p.z + a[12],
                         a[1] * p.x + a[5] * p.y + a[9] * p.z + a[13],
                         a[2] * p.x + a[6] * p.y + a[10] * p.z + a[14]);
}

/* m · (v, 0)   (spec: Vector3.TransformNormal(v, m)). */
cna_vec3 cna_mat4_transform_vector(const cna_mat4 *m, cna_vec3 v)
{
    if (!m) return cna_vec3_make(0.0f, 0.0f, 0.0f);
    const float *a = m->m;
    return cna_vec3_make(a[0] * v.x + a[4] * v.y + a[8] * v.z, a[1] * v.x + a[5] * v.y + a[9] * v.z,
                         a[2] * v.x + a[6] * v.y + a[10] * v.z);
}

bool cna_mat4_is_identity(const cna_mat4 *m)
{
    if (!m) return false;
    cna_mat4 id;
    cna_mat4_identity(&id);
    for (int i = 0; i < 16; ++i)
        if (m->m[i] != id.m[i]) return false;
    return true;
}
