/*
 * Two-bone and aim IK (include/cna/ik.h), in float; chain IK in double. The
 * definitions are ozz-animation 0.16's IKTwoBoneJob and IKAimJob, written
 * here in our own terms (docs/ik.md gives the formulas):
 *   vectors are brought into a joint's space by its inverse matrix;
 *   from_to(u, v) is the shortest rotation taking direction u onto v;
 *   corrections are applied as local rotation · correction.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cna/ik.h"
#include "core/internal.h"
#include "core/simd.h"
#if CNA__SIMD_SSE2
#include <emmintrin.h>
#endif

typedef struct dv3 {
    double x, y, z;
} dv3;
typedef struct dq {
    double x, y, z, w;
} dq;

static inline dv3 v3(double x, double y, double z)
{
    dv3 r = {x, y, z};
    return r;
}
static inline dv3 vf(cna_vec3 v) { return v3(v.x, v.y, v.z); }
static inline dv3 sub(dv3 a, dv3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline dv3 scale(dv3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static inline double dot(dv3 a, dv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline dv3 cross(dv3 a, dv3 b) { return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
static inline double len2(dv3 a) { return dot(a, a); }

static inline dq qid(void)
{
    dq q = {0, 0, 0, 1};
    return q;
}
static inline dq qmul(dq a, dq b)
{
    dq r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return r;
}
static inline dq qnorm(dq q)
{
    const double l = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (!(l > 0)) return qid();
    const double il = 1.0 / l;
    dq r = {q.x * il, q.y * il, q.z * il, q.w * il};
    return r;
}
/* unit axis, angle */
static inline dq axis_angle(dv3 axis, double angle)
{
    const double s = sin(angle * 0.5);
    dq q = {axis.x * s, axis.y * s, axis.z * s, cos(angle * 0.5)};
    return q;
}
/* The shortest rotation taking the direction of u onto that of v; for
 * opposite directions a half turn about an axis perpendicular to u. */
static dq from_to(dv3 u, dv3 v)
{
    const double nn = sqrt(len2(u) * len2(v));
    double w = nn + dot(u, v);
    dv3 a;
    if (w < 1e-6 * nn) {
        w = 0.0;
        a = fabs(u.x) > fabs(u.z) ? v3(-u.y, u.x, 0.0) : v3(0.0, -u.z, u.y);
    } else {
        a = cross(u, v);
    }
    dq q = {a.x, a.y, a.z, w};
    return qnorm(q);
}

/* A 4x4 affine matrix in double, column-major as cna_mat4. */
typedef struct dm4 {
    double m[16];
} dm4;

static dm4 dm_of(const cna_mat4 *a)
{
    dm4 r;
    for (int i = 0; i < 16; i++) r.m[i] = a->m[i];
    return r;
}
static inline dv3 dm_point(const dm4 *a, dv3 p)
{
    return v3(a->m[0] * p.x + a->m[4] * p.y + a->m[8] * p.z + a->m[12],
              a->m[1] * p.x + a->m[5] * p.y + a->m[9] * p.z + a->m[13],
              a->m[2] * p.x + a->m[6] * p.y + a->m[10] * p.z + a->m[14]);
}
static inline dv3 dm_origin(const dm4 *a) { return v3(a->m[12], a->m[13], a->m[14]); }

/* Inverse of an affine matrix (the 3x3 part inverted, the translation
 * carried); false when the 3x3 part is singular. */
static bool dm_inverse(dm4 *out, const dm4 *a)
{
    const double *m = a->m;
    const double c00 = m[5] * m[10] - m[9] * m[6], c01 = m[9] * m[2] - m[1] * m[10], c02 = m[1] * m[6] - m[5] * m[2];
    const double det = m[0] * c00 + m[4] * c01 + m[8] * c02;
    if (!(fabs(det) > 1e-30) || !isfinite(det)) return false;
    const double id = 1.0 / det;
    double r[16] = {0};
    r[0] = c00 * id;
    r[1] = c01 * id;
    r[2] = c02 * id;
    r[4] = (m[8] * m[6] - m[4] * m[10]) * id;
    r[5] = (m[0] * m[10] - m[8] * m[2]) * id;
    r[6] = (m[4] * m[2] - m[0] * m[6]) * id;
    r[8] = (m[4] * m[9] - m[8] * m[5]) * id;
    r[9] = (m[8] * m[1] - m[0] * m[9]) * id;
    r[10] = (m[0] * m[5] - m[4] * m[1]) * id;
    r[15] = 1.0;
    for (int k = 0; k < 3; k++) r[12 + k] = -(r[k] * m[12] + r[4 + k] * m[13] + r[8 + k] * m[14]);
    for (int i = 0; i < 16; i++) out->m[i] = r[i];
    return true;
}

static cna_quat to_float(dq q)
{
    if (q.w < 0) { /* w >= 0: the same rotation, so that a weight lerps the short way */
        q.x = -q.x;
        q.y = -q.y;
        q.z = -q.z;
        q.w = -q.w;
    }
    return cna_quat_make((float)q.x, (float)q.y, (float)q.z, (float)q.w);
}

/* q with w >= 0, then nlerp(identity, q, weight) for weight < 1. */
static dq weighted(dq q, double weight)
{
    if (q.w < 0) {
        q.x = -q.x;
        q.y = -q.y;
        q.z = -q.z;
        q.w = -q.w;
    }
    if (weight >= 1.0) return q;
    const double t = weight > 0.0 ? weight : 0.0;
    dq r = {q.x * t, q.y * t, q.z * t, 1.0 + (q.w - 1.0) * t};
    return qnorm(r);
}

/* ------------------------------------------------------------------ float
 * Two-bone and aim IK compute in float (the corrections are floats and the
 * joints' matrices are): the same formulas as the double helpers above,
 * inlined, vectors in SSE2 lanes (below), the 3x3 inverses by one division
 * each, and the dependency chains short: the mid correction's effect on the
 * end by Rodrigues from vectors ready before its angle, the plane's
 * reference turned by the shortest rotation scaled rather than normalised. */

/* always inlined: the solvers are a few hundred operations, and a call per
 * helper would cost as much as the arithmetic */
#define FI static inline __attribute__((always_inline))

/* sqrtf without the C library's errno path (the same IEEE square root) */
#if CNA__SIMD_SSE2
FI float fsqrt(float x) { return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x))); }
#else
FI float fsqrt(float x) { return sqrtf(x); }
#endif

typedef struct fv3 {
    float x, y, z;
} fv3;
typedef struct fq {
    float x, y, z, w;
} fq;

FI fv3 f3(float x, float y, float z)
{
    fv3 r = {x, y, z};
    return r;
}
FI float fclamp1(float x) { return x < -1.0f ? -1.0f : x > 1.0f ? 1.0f : x; }
FI float fmax0(float x) { return x > 0.0f ? x : 0.0f; }
FI fq fqid(void)
{
    fq q = {0, 0, 0, 1};
    return q;
}
FI fq fqmul(fq a, fq b)
{
    fq r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return r;
}
FI fq fqnorm(fq q)
{
    const float l2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(l2 > 0.0f)) return fqid();
    const float il = 1.0f / fsqrt(l2);
    fq r = {q.x * il, q.y * il, q.z * il, q.w * il};
    return r;
}
FI fq faxis_angle(fv3 axis, float angle)
{
    const float s = sinf(angle * 0.5f);
    fq q = {axis.x * s, axis.y * s, axis.z * s, cosf(angle * 0.5f)};
    return q;
}
FI fq faxis_cos(fv3 axis, float c)
{
    const float s = fsqrt(fmax0(0.5f * (1.0f - c)));
    fq q = {axis.x * s, axis.y * s, axis.z * s, fsqrt(fmax0(0.5f * (1.0f + c)))};
    return q;
}
FI fq fweighted(fq q, float weight)
{
    if (q.w < 0.0f) {
        q.x = -q.x;
        q.y = -q.y;
        q.z = -q.z;
        q.w = -q.w;
    }
    if (weight >= 1.0f) return q;
    const float t = weight > 0.0f ? weight : 0.0f;
    fq r = {q.x * t, q.y * t, q.z * t, 1.0f + (q.w - 1.0f) * t};
    return fqnorm(r);
}
FI cna_quat fq_out(fq q)
{
    if (q.w < 0.0f) return (cna_quat){-q.x, -q.y, -q.z, -q.w};
    return (cna_quat){q.x, q.y, q.z, q.w};
}

/* x · 0 is 0 for a finite x and NaN otherwise */
static inline bool finite3(cna_vec3 v) { return v.x * 0.0f + v.y * 0.0f + v.z * 0.0f == 0.0f; }

static cna_result check_vec(const char *what, const char *name, cna_vec3 v, bool nonzero, cna_error *err)
{
    if (!finite3(v)) {
        const char *c = !isfinite(v.x) ? "x" : !isfinite(v.y) ? "y" : "z";
        const double bad = !isfinite(v.x) ? v.x : !isfinite(v.y) ? v.y : v.z;
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: %s.%s is %g, not finite", what, name, c, bad);
    }
    if (nonzero && v.x == 0.0f && v.y == 0.0f && v.z == 0.0f)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: %s is zero-length", what, name);
    return CNA_OK;
}

static cna_result check_float(const char *what, const char *name, float v, cna_error *err)
{
    if (!isfinite(v)) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: %s is %g, not finite", what, name, v);
    return CNA_OK;
}

static cna_result check_matrix(const char *what, const char *name, const cna_mat4 *m, cna_error *err)
{
    if (!m) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", what, name);
    /* a float is finite when its exponent is not all ones: adding one to the
     * exponent field carries into the sign bit only then (independent
     * integer operations, where a sum of m[i] · 0 would be a chain of adds) */
    uint32_t bits[16], any = 0;
    memcpy(bits, m->m, sizeof bits);
    for (int i = 0; i < 16; i++) any |= (bits[i] & 0x7f800000u) + 0x00800000u;
    if (!(any & 0x80000000u)) return CNA_OK;
    for (int i = 0; i < 16; i++)
        if (!isfinite(m->m[i]))
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: %s.m[%d] is %g, not finite", what, name, i,
                              m->m[i]);
    return CNA_OK;
}

/* ------------------------------------------------------------------ two-bone */

cna_ik_two_bone cna_ik_two_bone_defaults(void)
{
    cna_ik_two_bone ik = {{0, 0, 0}, {0, 1, 0}, {0, 0, 1}, 1.0f, 1.0f, 0.0f};
    return ik;
}

static cna_result check_two_bone(const cna_ik_two_bone *ik, cna_error *err)
{
    static const char what[] = "two-bone IK";
    cna_result r;
    if ((r = check_vec(what, "target", ik->target, false, err)) != CNA_OK) return r;
    if ((r = check_vec(what, "pole", ik->pole, true, err)) != CNA_OK) return r;
    if ((r = check_vec(what, "mid_axis", ik->mid_axis, true, err)) != CNA_OK) return r;
    if ((r = check_float(what, "weight", ik->weight, err)) != CNA_OK) return r;
    if ((r = check_float(what, "soften", ik->soften, err)) != CNA_OK) return r;
    return check_float(what, "twist", ik->twist, err);
}

/* Every one of n floats at p finite (n a multiple of 4): the test of
 * check_matrix, on the bytes. */
FI bool finite_floats(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
#if CNA__SIMD_SSE2 /* four at a time: an exponent of all ones is inf or NaN */
    const __m128i e = _mm_set1_epi32(0x7f800000);
    __m128i bad = _mm_setzero_si128();
    for (size_t i = 0; i < n; i += 4) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + 4 * i));
        bad = _mm_or_si128(bad, _mm_cmpeq_epi32(_mm_and_si128(v, e), e));
    }
    return _mm_movemask_epi8(bad) == 0;
#else
    uint32_t any = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, b + 4 * i, 4);
        any |= (bits & 0x7f800000u) + 0x00800000u;
    }
    return !(any & 0x80000000u);
#endif
}
FI bool zero3(cna_vec3 v) { return v.x == 0.0f && v.y == 0.0f && v.z == 0.0f; }

/* 3-vectors in the first three of four float lanes (the fourth is ignored),
 * SSE2 where there is SSE2: each lane computes what the scalar code
 * (CNA_NO_SIMD) computes, in the same order, so both give the same bits. */
#if CNA__SIMD_SSE2
typedef __m128 v4;
FI v4 v4_set(float x, float y, float z) { return _mm_setr_ps(x, y, z, 0.0f); }
FI v4 v4_load(const float *p) { return _mm_loadu_ps(p); } /* p[0..2]; p[3] read, ignored */
FI float v4_x(v4 a) { return _mm_cvtss_f32(a); }
FI float v4_y(v4 a) { return _mm_cvtss_f32(_mm_shuffle_ps(a, a, 0x55)); }
FI float v4_z(v4 a) { return _mm_cvtss_f32(_mm_movehl_ps(a, a)); }
FI v4 v4_add(v4 a, v4 b) { return _mm_add_ps(a, b); }
FI v4 v4_sub(v4 a, v4 b) { return _mm_sub_ps(a, b); }
FI v4 v4_scale(v4 a, float s) { return _mm_mul_ps(a, _mm_set1_ps(s)); }
FI v4 v4_neg(v4 a) { return _mm_xor_ps(a, _mm_set1_ps(-0.0f)); }
/* (a.y b.z - a.z b.y, a.z b.x - a.x b.z, a.x b.y - a.y b.x) */
FI v4 v4_cross(v4 a, v4 b)
{
    const v4 a1 = _mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 0, 2, 1)), b1 = _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 0, 2, 1));
    const v4 a2 = _mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 1, 0, 2)), b2 = _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 1, 0, 2));
    return _mm_sub_ps(_mm_mul_ps(a1, b2), _mm_mul_ps(a2, b1));
}
/* a.x b.x + a.y b.y + a.z b.z, added in that order */
FI float v4_dot(v4 a, v4 b)
{
    const v4 m = _mm_mul_ps(a, b);
    return _mm_cvtss_f32(_mm_add_ss(_mm_add_ss(m, _mm_shuffle_ps(m, m, 0x55)), _mm_movehl_ps(m, m)));
}
/* k0 v.x + k1 v.y + k2 v.z, added in that order */
FI v4 v4_comb(v4 k0, v4 k1, v4 k2, v4 v)
{
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(k0, _mm_shuffle_ps(v, v, 0x00)), _mm_mul_ps(k1, _mm_shuffle_ps(v, v, 0x55))),
                      _mm_mul_ps(k2, _mm_shuffle_ps(v, v, 0xaa)));
}
/* the columns of the 3x3 matrix with rows r0, r1, r2 */
FI void v4_transpose(v4 r0, v4 r1, v4 r2, v4 *k0, v4 *k1, v4 *k2)
{
    const v4 z = _mm_setzero_ps();
    const v4 t0 = _mm_unpacklo_ps(r0, r1), t1 = _mm_unpackhi_ps(r0, r1); /* r0x r1x r0y r1y, r0z r1z . . */
    const v4 t2 = _mm_unpacklo_ps(r2, z), t3 = _mm_unpackhi_ps(r2, z);   /* r2x 0 r2y 0, r2z 0 . . */
    *k0 = _mm_movelh_ps(t0, t2);
    *k1 = _mm_movehl_ps(t2, t0);
    *k2 = _mm_movelh_ps(t1, t3);
}
#else
typedef struct v4 {
    float x, y, z;
} v4;
FI v4 v4_set(float x, float y, float z) { return (v4){x, y, z}; }
FI v4 v4_load(const float *p) { return (v4){p[0], p[1], p[2]}; }
FI float v4_x(v4 a) { return a.x; }
FI float v4_y(v4 a) { return a.y; }
FI float v4_z(v4 a) { return a.z; }
FI v4 v4_add(v4 a, v4 b) { return (v4){a.x + b.x, a.y + b.y, a.z + b.z}; }
FI v4 v4_sub(v4 a, v4 b) { return (v4){a.x - b.x, a.y - b.y, a.z - b.z}; }
FI v4 v4_scale(v4 a, float s) { return (v4){a.x * s, a.y * s, a.z * s}; }
FI v4 v4_neg(v4 a) { return (v4){-a.x, -a.y, -a.z}; }
FI v4 v4_cross(v4 a, v4 b) { return (v4){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
FI float v4_dot(v4 a, v4 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
FI v4 v4_comb(v4 k0, v4 k1, v4 k2, v4 v)
{
    return (v4){k0.x * v.x + k1.x * v.y + k2.x * v.z, k0.y * v.x + k1.y * v.y + k2.y * v.z,
                k0.z * v.x + k1.z * v.y + k2.z * v.z};
}
FI void v4_transpose(v4 r0, v4 r1, v4 r2, v4 *k0, v4 *k1, v4 *k2)
{
    *k0 = (v4){r0.x, r1.x, r2.x};
    *k1 = (v4){r0.y, r1.y, r2.y};
    *k2 = (v4){r0.z, r1.z, r2.z};
}
#endif
FI v4 v4_of(cna_vec3 v) { return v4_set(v.x, v.y, v.z); }
FI float v4_len2(v4 a) { return v4_dot(a, a); }
FI fv3 fv3_of(v4 a) { return f3(v4_x(a), v4_y(a), v4_z(a)); }

/* An affine matrix's 3x3 columns and origin. */
typedef struct vm {
    v4 c0, c1, c2, o;
} vm;
FI vm vm_load(const cna_mat4 *a)
{
    vm r = {v4_load(a->m), v4_load(a->m + 4), v4_load(a->m + 8), v4_load(a->m + 12)};
    return r;
}
FI v4 vm_vector(const vm *a, v4 v) { return v4_comb(a->c0, a->c1, a->c2, v); }

/* The inverse of an affine matrix: the 3x3 part's columns (rows c1 × c2,
 * c2 × c0, c0 × c1 over the determinant, one division) and the matrix's
 * origin: inverse · p = k · (p - origin). false when singular. */
typedef struct vinv {
    v4 k0, k1, k2, o;
} vinv;
FI bool vinverse(vinv *out, const vm *a)
{
    const v4 r0 = v4_cross(a->c1, a->c2), r1 = v4_cross(a->c2, a->c0), r2 = v4_cross(a->c0, a->c1);
    const float det = v4_x(a->c0) * v4_x(r0) + v4_x(a->c1) * v4_x(r1) + v4_x(a->c2) * v4_x(r2);
    if (!(fabsf(det) > 1e-30f) || !isfinite(det)) return false;
    const float id = 1.0f / det;
    v4_transpose(v4_scale(r0, id), v4_scale(r1, id), v4_scale(r2, id), &out->k0, &out->k1, &out->k2);
    out->o = a->o;
    return true;
}
FI v4 vinv_vector(const vinv *a, v4 p) { return v4_comb(a->k0, a->k1, a->k2, p); }
/* inverse · p as k · (p - origin): the difference first, so that a point near
 * the joint keeps its relative precision (k · p + t would cancel two terms the
 * size of the model's coordinates) */
FI v4 vinv_point(const vinv *a, v4 p) { return vinv_vector(a, v4_sub(p, a->o)); }

/* q · v · conj(q) for any q: |q|² times v rotated by q's rotation,
 * (w² - u·u) v + 2 (u·v) u + 2 w (u × v) */
FI v4 v4_sandwich(fq q, v4 v)
{
    const v4 u = v4_set(q.x, q.y, q.z);
    return v4_add(v4_add(v4_scale(v, q.w * q.w - v4_len2(u)), v4_scale(u, 2.0f * v4_dot(u, v))),
                  v4_scale(v4_cross(u, v), 2.0f * q.w));
}

/* The shortest rotation taking the direction of u onto that of v, as from_to
 * gives it (*unit), and the same quaternion scaled by 1 / (|u| |v|) (*scaled,
 * |scaled|² <= 4; for opposite directions the unit one; identity where u or
 * v is zero), which turns a vector into the same direction as *unit and is
 * ready a division earlier. nn is |u| |v| (sqrt(|u|² |v|²), computed
 * from u and v: near a half turn w = nn + u·v cancels, and any other
 * rounding of nn would turn the rotation). */
FI void v4_from_to_nn(v4 u, v4 v, float nn, fq *unit, fq *scaled)
{
    const float w = nn + v4_dot(u, v);
    if (w < 1e-6f * nn) { /* opposite: a half turn about an axis perpendicular to u */
        const float ux = v4_x(u), uy = v4_y(u), uz = v4_z(u);
        const fv3 a = fabsf(ux) > fabsf(uz) ? f3(-uy, ux, 0.0f) : f3(0.0f, -uz, uy);
        *unit = *scaled = fqnorm((fq){a.x, a.y, a.z, 0.0f});
        return;
    }
    const v4 a = v4_cross(u, v);
    const fq q = {v4_x(a), v4_y(a), v4_z(a), w};
    *unit = fqnorm(q);
    if (nn > 0.0f) {
        const float s = 1.0f / nn;
        *scaled = (fq){q.x * s, q.y * s, q.z * s, q.w * s};
    } else {
        *scaled = fqid();
    }
}

cna_result cna_ik_two_bone_solve(const cna_ik_two_bone *ik, const cna_mat4 *start, const cna_mat4 *mid,
                                 const cna_mat4 *end, cna_quat *start_correction, cna_quat *mid_correction,
                                 bool *reached, cna_error *err)
{
    static const char what[] = "two-bone IK";
    if (!ik || !start_correction || !mid_correction)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", what,
                          !ik ? "ik" : !start_correction ? "start_correction" : "mid_correction");
    /* the checks' common case at once (every value finite, pole and mid_axis
     * not zero); otherwise one by one, naming the first bad value */
    _Static_assert(sizeof(cna_ik_two_bone) == 12 * sizeof(float), "cna_ik_two_bone is 12 floats");
    if (!start || !mid || !end || !finite_floats(ik, 12) || zero3(ik->pole) || zero3(ik->mid_axis) ||
        !finite_floats(start->m, 16) || !finite_floats(mid->m, 16) || !finite_floats(end->m, 16)) {
        cna_result r;
        if ((r = check_two_bone(ik, err)) != CNA_OK) return r;
        if ((r = check_matrix(what, "start", start, err)) != CNA_OK) return r;
        if ((r = check_matrix(what, "mid", mid, err)) != CNA_OK) return r;
        if ((r = check_matrix(what, "end", end, err)) != CNA_OK) return r;
    }

    bool ok = false;
    fq qs = fqid(), qm = fqid();
    const vm ms = vm_load(start), mm = vm_load(mid);
    vinv inv_s, inv_m;
    if (ik->weight > 0.0f && vinverse(&inv_s, &ms) && vinverse(&inv_m, &mm)) {
        /* the bones in the mid joint's space (_m) and the start joint's (_s) */
        const v4 eo = v4_load(end->m + 12);
        const v4 a_m = vinv_vector(&inv_m, v4_sub(mm.o, ms.o)); /* start -> mid */
        const v4 b_m = vinv_point(&inv_m, eo);                  /* mid -> end */
        const v4 a_s = vinv_point(&inv_s, mm.o);                /* start -> mid */
        const v4 c_s = vinv_point(&inv_s, eo);                  /* start -> end */
        const v4 b_s = v4_sub(c_s, a_s);
        const float la2 = v4_len2(a_s), lb2 = v4_len2(b_s), lc2 = v4_len2(c_s);
        const float la = fsqrt(la2), lb = fsqrt(lb2);
        /* the target, softened beyond soften · (la + lb):
         *   alpha = (d - da) / ds, d' = da + ds · (1 - 3^4 / (alpha + 3)^4) */
        v4 t_s = vinv_point(&inv_s, v4_of(ik->target));
        float lt2 = v4_len2(t_s);
        const float lt = fsqrt(lt2);
        const float chain = la + lb;
        const float soften = ik->soften < 0.0f ? 0.0f : ik->soften > 1.0f ? 1.0f : ik->soften;
        const float da = chain * soften, ds = chain - da;
        if (lt > da && lt > 0.0f && ds > 0.0f) {
            const float alpha = (lt - da) / ds;
            const float op = (alpha + 3.0f) * (alpha + 3.0f);
            const float ratio = 81.0f / (op * op);
            const float lt_soft = da + ds - ds * ratio;
            t_s = v4_scale(t_s, lt_soft / lt);
            lt2 = lt_soft * lt_soft;
        }
        ok = !(lt > da) && lt > fabsf(la - lb);
        /* the mid joint's axis, and for the corrected end below the axis and
         * axis × b_m brought into the start joint's space (Rodrigues: the mid
         * correction by angle d turns b_m into
         * b_m cos d + (axis × b_m) sin d + axis (axis · b_m) (1 - cos d)) */
        const v4 axis = v4_scale(v4_of(ik->mid_axis), 1.0f / fsqrt(v4_len2(v4_of(ik->mid_axis))));
        const v4 axis_s = vinv_vector(&inv_s, vm_vector(&mm, axis));
        const v4 turn_s = vinv_vector(&inv_s, vm_vector(&mm, v4_cross(axis, b_m)));
        const float along = v4_dot(axis, b_m);
        v4 b_s_after = b_s;
        /* the mid joint: the interior angle from the law of cosines, now and wanted */
        if (la2 > 0.0f && lb2 > 0.0f) {
            const float half_rl = 0.5f / (la * lb);
            const float cos_want = fclamp1((la2 + lb2 - lt2) * half_rl);
            const float cos_now = fclamp1((la2 + lb2 - lc2) * half_rl);
            /* the rotation by acos(cos_want) - now, now = ±acos(cos_now) (negative
             * when bent the wrong way round the axis), from the half angles:
             * cos(x/2) = sqrt((1 + cos x) / 2), sin(x/2) = sqrt((1 - cos x) / 2) */
            const float cw = fsqrt(0.5f * (1.0f + cos_want)), sw = fsqrt(0.5f * (1.0f - cos_want));
            const float cn = fsqrt(0.5f * (1.0f + cos_now));
            float sn = fsqrt(0.5f * (1.0f - cos_now));
            if (v4_dot(v4_cross(a_m, axis), b_m) < 0.0f) sn = -sn;
            const float s_half = sw * cn - cw * sn, c_half = cw * cn + sw * sn;
            const v4 qv = v4_scale(axis, s_half);
            qm = (fq){v4_x(qv), v4_y(qv), v4_z(qv), c_half};
            const float cos_d = c_half * c_half - s_half * s_half, sin_d = 2.0f * s_half * c_half;
            b_s_after = v4_add(v4_add(v4_scale(b_s, cos_d), v4_scale(turn_s, sin_d)),
                               v4_scale(axis_s, along * 2.0f * s_half * s_half));
        }
        /* the start joint: the end onto the target, then the chain's plane onto the pole's */
        const v4 pole_s = vinv_vector(&inv_s, v4_of(ik->pole));
        const v4 c_s_after = v4_add(a_s, b_s_after);
        fq onto, scaled;
        v4_from_to_nn(c_s_after, t_s, fsqrt(v4_len2(c_s_after) * v4_len2(t_s)), &onto, &scaled);
        qs = onto;
        if (lt2 > 0.0f) {
            const v4 ref_n = v4_cross(t_s, pole_s);
            const v4 joint_n = v4_sandwich(scaled, axis_s); /* along onto(axis_s) */
            const float lr2 = v4_len2(ref_n), lj2 = v4_len2(joint_n);
            const v4 line = v4_scale(t_s, 1.0f / fsqrt(lt2));
            fq plane = fqid();
            if (lr2 > 0.0f && lj2 > 0.0f) {
                const float c = fclamp1(v4_dot(ref_n, joint_n) / fsqrt(lr2 * lj2));
                plane = faxis_cos(fv3_of(v4_dot(joint_n, pole_s) < 0.0f ? v4_neg(line) : line), c);
            }
            qs = fqmul(plane, onto);
            if (ik->twist != 0.0f) qs = fqmul(faxis_angle(fv3_of(line), ik->twist), qs);
        }
        qs = fweighted(qs, ik->weight);
        qm = fweighted(qm, ik->weight);
    }
    *start_correction = fq_out(qs);
    *mid_correction = fq_out(qm);
    if (reached) *reached = ok && ik->weight >= 1.0f;
    return CNA_OK;
}

/* ------------------------------------------------------------------ aim */

cna_ik_aim cna_ik_aim_defaults(void)
{
    const float pi = 3.14159265358979323846f;
    cna_ik_aim ik = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}, {0, 1, 0}, 0.0f, 1.0f, pi, -pi, pi};
    return ik;
}

static cna_result check_aim(const cna_ik_aim *ik, cna_error *err)
{
    static const char what[] = "aim IK";
    const float pi = 3.14159265358979323846f;
    cna_result r;
    if ((r = check_vec(what, "target", ik->target, false, err)) != CNA_OK) return r;
    if ((r = check_vec(what, "forward", ik->forward, true, err)) != CNA_OK) return r;
    if ((r = check_vec(what, "up", ik->up, true, err)) != CNA_OK) return r;
    if ((r = check_vec(what, "offset", ik->offset, false, err)) != CNA_OK) return r;
    if ((r = check_vec(what, "pole", ik->pole, true, err)) != CNA_OK) return r;
    if ((r = check_float(what, "twist", ik->twist, err)) != CNA_OK) return r;
    if ((r = check_float(what, "weight", ik->weight, err)) != CNA_OK) return r;
    if (!(ik->cone > 0.0f && ik->cone <= pi))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: cone %g is outside (0, pi]", what, ik->cone);
    if (!(ik->twist_min >= -pi && ik->twist_min <= ik->twist_max && ik->twist_max <= pi))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "%s: twist range [%g, %g] is not within [-pi, pi] with min <= max", what, ik->twist_min,
                          ik->twist_max);
    return CNA_OK;
}

/* Limits on a correction q (joint space) for forward axis f (unit): split
 * q = swing · twist, twist about f, swing about an axis perpendicular to f;
 * the twist's angle clamped to [tmin, tmax], the swing's to cone. */
static dq limit(dq q, dv3 f, double cone, double tmin, double tmax)
{
    const double pi = 3.14159265358979323846;
    if (cone >= pi && tmin <= -pi && tmax >= pi) return q;
    if (q.w < 0) {
        q.x = -q.x;
        q.y = -q.y;
        q.z = -q.z;
        q.w = -q.w;
    }
    const double p = q.x * f.x + q.y * f.y + q.z * f.z;
    dq twist = {f.x * p, f.y * p, f.z * p, q.w};
    const double tl = sqrt(p * p + q.w * q.w);
    if (tl > 1e-12) {
        twist.x /= tl;
        twist.y /= tl;
        twist.z /= tl;
        twist.w /= tl;
    } else {
        twist = qid(); /* a half turn of swing: no twist to speak of */
    }
    const dq twist_inv = {-twist.x, -twist.y, -twist.z, twist.w};
    dq swing = qmul(q, twist_inv);
    double angle = 2.0 * atan2(twist.x * f.x + twist.y * f.y + twist.z * f.z, twist.w); /* in (-pi, pi] */
    if (angle > tmax) angle = tmax;
    if (angle < tmin) angle = tmin;
    twist = axis_angle(f, angle);
    if (swing.w < 0) {
        swing.x = -swing.x;
        swing.y = -swing.y;
        swing.z = -swing.z;
        swing.w = -swing.w;
    }
    const double sl = sqrt(swing.x * swing.x + swing.y * swing.y + swing.z * swing.z);
    const double swing_angle = 2.0 * atan2(sl, swing.w);
    if (swing_angle > cone && sl > 0.0) swing = axis_angle(scale(v3(swing.x, swing.y, swing.z), 1.0 / sl), cone);
    return qnorm(qmul(swing, twist));
}

cna_result cna_ik_aim_solve(const cna_ik_aim *ik, const cna_mat4 *joint, cna_quat *correction, bool *reached,
                            cna_error *err)
{
    static const char what[] = "aim IK";
    const float pi = 3.14159265358979323846f;
    if (!ik || !correction)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", what, !ik ? "ik" : "correction");
    /* the checks' common case at once; otherwise one by one, naming the first bad value */
    _Static_assert(sizeof(cna_ik_aim) == 20 * sizeof(float), "cna_ik_aim is 20 floats");
    if (!joint || !finite_floats(ik, 20) || zero3(ik->forward) || zero3(ik->up) || zero3(ik->pole) ||
        !(ik->cone > 0.0f && ik->cone <= pi) ||
        !(ik->twist_min >= -pi && ik->twist_min <= ik->twist_max && ik->twist_max <= pi) ||
        !finite_floats(joint->m, 16)) {
        cna_result r;
        if ((r = check_aim(ik, err)) != CNA_OK) return r;
        if ((r = check_matrix(what, "joint", joint, err)) != CNA_OK) return r;
    }
    const vm mj = vm_load(joint);
    vinv inv;
    fq q = fqid();
    bool ok = false;
    if (vinverse(&inv, &mj)) {
        const v4 t = vinv_point(&inv, v4_of(ik->target));
        const float lt2 = v4_len2(t);
        const v4 f = v4_scale(v4_of(ik->forward), 1.0f / fsqrt(v4_len2(v4_of(ik->forward))));
        /* the offset point aims at t when the forward axis is
         * offset + f · (sqrt(|t|^2 - h^2) - f · offset), h the offset's distance from the forward line */
        const v4 o = v4_of(ik->offset);
        const float along = v4_dot(f, o);
        const float h2 = v4_len2(o) - along * along;
        ok = !(h2 > lt2);
        if (ok && lt2 > 0.0f) {
            const v4 fo = v4_add(o, v4_scale(f, fsqrt(lt2 - h2) - along));
            fq onto, scaled;
            v4_from_to_nn(fo, t, fsqrt(v4_len2(fo) * lt2), &onto, &scaled);
            const v4 up_after = v4_sandwich(scaled, v4_of(ik->up)); /* along onto(up) */
            const v4 pole = vinv_vector(&inv, v4_of(ik->pole));
            const v4 ref_n = v4_cross(pole, t), joint_n = v4_cross(up_after, t);
            const float lr2 = v4_len2(ref_n), lj2 = v4_len2(joint_n);
            const v4 line = v4_scale(t, 1.0f / fsqrt(lt2));
            fq plane = fqid();
            if (lr2 > 0.0f && lj2 > 0.0f) {
                const float c = fclamp1(v4_dot(joint_n, ref_n) / fsqrt(lr2 * lj2));
                plane = faxis_cos(fv3_of(v4_dot(ref_n, up_after) < 0.0f ? v4_neg(line) : line), c);
            }
            q = fqmul(plane, onto);
            if (ik->twist != 0.0f) q = fqmul(faxis_angle(fv3_of(line), ik->twist), q);
            q = fweighted(q, ik->weight);
            if (!(ik->cone >= pi && ik->twist_min <= -pi && ik->twist_max >= pi)) {
                const dq d = limit((dq){q.x, q.y, q.z, q.w}, v3(v4_x(f), v4_y(f), v4_z(f)), ik->cone, ik->twist_min,
                                   ik->twist_max);
                q = (fq){(float)d.x, (float)d.y, (float)d.z, (float)d.w};
            }
        }
    }
    *correction = fq_out(q);
    if (reached) *reached = ok;
    return CNA_OK;
}

/* ------------------------------------------------------------------ chain (CCD) */

cna_ik_chain cna_ik_chain_defaults(void)
{
    cna_ik_chain ik = {{0, 0, 0}, 16u, 1e-4f, 1.0f, NULL};
    return ik;
}

static dm4 dm_mul(const dm4 *a, const dm4 *b)
{
    dm4 r;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a->m[k * 4 + row] * b->m[c * 4 + k];
            r.m[c * 4 + row] = s;
        }
    return r;
}

static dm4 dm_rotation(dq q)
{
    const double x = q.x, y = q.y, z = q.z, w = q.w;
    dm4 r = {{1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0, 2 * (x * y - z * w),
              1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0, 2 * (x * z + y * w), 2 * (y * z - x * w),
              1 - 2 * (x * x + y * y), 0, 0, 0, 0, 1}};
    return r;
}

static dq qconj(dq q)
{
    dq r = {-q.x, -q.y, -q.z, q.w};
    return r;
}

/* A joint's total correction q within its limit: about the hinge axis only
 * (the twist of q about it), then its angle at most max_angle. */
static dq limit_joint(dq q, const cna_ik_joint_limit *l)
{
    if (!l) return q;
    if (q.w < 0) q = (dq){-q.x, -q.y, -q.z, -q.w};
    const dv3 axis = vf(l->axis);
    const double al2 = len2(axis);
    if (al2 > 0) {
        const dv3 a = scale(axis, 1.0 / sqrt(al2));
        const double p = q.x * a.x + q.y * a.y + q.z * a.z;
        const dq t = {a.x * p, a.y * p, a.z * p, q.w};
        q = qnorm(t);
    }
    const double s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    const double angle = 2.0 * atan2(s, q.w);
    if (angle > l->max_angle && s > 0) q = axis_angle(scale(v3(q.x, q.y, q.z), 1.0 / s), l->max_angle);
    return q;
}

cna_result cna_ik_chain_solve(const cna_ik_chain *ik, const cna_mat4 *const *joints, size_t count,
                              cna_quat *corrections, bool *reached, cna_error *err)
{
    static const char what[] = "chain IK";
    const double pi = 3.14159265358979323846;
    if (!ik || !joints || !corrections)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", what,
                          !ik ? "ik" : !joints ? "joints" : "corrections");
    if (count < 2 || count > CNA_IK_CHAIN_MAX + 1)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: count %zu is outside 2..%d", what, count,
                          CNA_IK_CHAIN_MAX + 1);
    cna_result r;
    if ((r = check_vec(what, "target", ik->target, false, err)) != CNA_OK) return r;
    if ((r = check_float(what, "weight", ik->weight, err)) != CNA_OK) return r;
    if (ik->iterations < 1 || ik->iterations > 1000)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: iterations %u is outside 1..1000", what,
                          ik->iterations);
    if (!(ik->tolerance > 0.0f) || !isfinite(ik->tolerance))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: tolerance %g is not above 0", what, ik->tolerance);
    for (size_t i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "joints[%zu]", i);
        if ((r = check_matrix(what, name, joints[i], err)) != CNA_OK) return r;
    }
    for (size_t i = 0; ik->limits && i + 1 < count; i++) {
        char name[40];
        snprintf(name, sizeof name, "limits[%zu].axis", i);
        if ((r = check_vec(what, name, ik->limits[i].axis, false, err)) != CNA_OK) return r;
        if (!(ik->limits[i].max_angle >= 0.0f && ik->limits[i].max_angle <= (float)pi))
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: limits[%zu].max_angle %g is outside 0..pi", what,
                              i, ik->limits[i].max_angle);
    }
    const size_t moved = count - 1;
    dm4 world[CNA_IK_CHAIN_MAX + 1];
    dq total[CNA_IK_CHAIN_MAX];
    for (size_t i = 0; i < count; i++) world[i] = dm_of(joints[i]);
    for (size_t i = 0; i < moved; i++) total[i] = qid();
    const dv3 target = vf(ik->target);
    const double weight = ik->weight > 1.0f ? 1.0 : ik->weight < 0.0f ? 0.0 : (double)ik->weight;
    bool ok = len2(sub(dm_origin(&world[moved]), target)) <= (double)ik->tolerance * ik->tolerance;
    for (unsigned it = 0; it < ik->iterations && !ok && weight > 0.0; it++) {
        for (size_t k = moved; k-- > 0;) {
            dm4 inv;
            if (!dm_inverse(&inv, &world[k])) continue;
            const dv3 e = dm_point(&inv, dm_origin(&world[moved])), t = dm_point(&inv, target);
            if (!(len2(e) > 0.0) || !(len2(t) > 0.0)) continue;
            dq c = weighted(from_to(e, t), weight);
            const dq limited = limit_joint(qmul(total[k], c), ik->limits ? &ik->limits[k] : NULL);
            c = qmul(qconj(total[k]), limited);
            total[k] = limited;
            /* world[k] · R(c), and the joints below moved with it:
             * world[j] = world[k] · R(c) · inverse(world[k]) · world[j] */
            const dm4 rot = dm_rotation(c);
            const dm4 turned = dm_mul(&world[k], &rot);
            const dm4 delta = dm_mul(&turned, &inv);
            for (size_t j = k + 1; j < count; j++) world[j] = dm_mul(&delta, &world[j]);
            world[k] = turned;
        }
        ok = len2(sub(dm_origin(&world[moved]), target)) <= (double)ik->tolerance * ik->tolerance;
    }
    for (size_t i = 0; i < moved; i++) corrections[i] = to_float(total[i]);
    if (reached) *reached = ok && weight >= 1.0;
    return CNA_OK;
}
