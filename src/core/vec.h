/*
 * src/core/vec.h — cna's SIMD vocabulary (not installed).
 *
 * What: two small vector types and the operations cna's kernels use on them:
 *   vf4  four floats  (one 128-bit register)
 *   vf8  eight floats (one 256-bit register, or two 128-bit ones)
 * A kernel is written once on these operations and compiled once per
 * implementation; the caller picks the compiled kernel at run time.
 *
 * Which implementation a translation unit gets (decided once, here):
 *   - scalar (plain float arrays): where CNA_NO_SIMD is defined, where the
 *     compiler does not target SSE2, or where the file defines
 *     CNA__VEC_SCALAR before including this header (the scalar instance of
 *     a kernel in a SIMD build, for the tests and the benchmarks);
 *   - AVX2 + FMA: where the compiler targets both (__AVX2__ and __FMA__:
 *     the src/<layer>/ *_avx2.c files, which the build compiles with
 *     -mavx2 -mfma and whose kernels run only on a CPU that has both,
 *     cna__cpu_has_avx2_fma in core/simd.h);
 *   - SSE2 otherwise (x86-64's baseline).
 * CNA__VEC_IMPL says which: CNA__VEC_SCALAR_IMPL, CNA__VEC_SSE2_IMPL or
 * CNA__VEC_AVX2_IMPL.
 *
 * Rounding rules (what a kernel may rely on):
 *   - add, sub, mul, div and sqrt round correctly, per lane, in every
 *     implementation: the same inputs give the same bits everywhere;
 *   - fmadd(a, b, c) = a · b + c and fnmadd(a, b, c) = c - a · b are fused
 *     (one rounding) in the AVX2 + FMA implementation only, two roundings
 *     elsewhere. A kernel that must give the same bits on every path
 *     (the player, sampling, morph blending) never uses them; the kernels
 *     with a stated tolerance (skinning's fast path) may;
 *   - rsqrt_est is an estimate: relative error <= 1.5 · 2^-12 with SSE2 and
 *     AVX2 (their rsqrtps), 1 / sqrtf (correctly rounded twice) in the
 *     scalar implementation. Its bits are implementation-defined: Intel
 *     and AMD processors return different values within that bound, so no
 *     result whose bits are promised may depend on it. Only kernels with a
 *     stated tolerance use it, refined by a Newton-Raphson step, and their
 *     tests replace it by emulations across the whole bound (the skinning
 *     kernel's CNA__SKIN_RSQRT_EST4 / 8);
 *   - loads, stores, shuffles, and/or and copies move bits unchanged.
 * Everything is always inline; no state, no allocation.
 */
#ifndef CNA_CORE_VEC_H
#define CNA_CORE_VEC_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define CNA__VEC_SCALAR_IMPL 0
#define CNA__VEC_SSE2_IMPL 1
#define CNA__VEC_AVX2_IMPL 2

#if defined(CNA__VEC_SCALAR) || defined(CNA_NO_SIMD) || !(defined(__SSE2__) || defined(_M_X64))
#define CNA__VEC_IMPL CNA__VEC_SCALAR_IMPL
#elif defined(__AVX2__) && defined(__FMA__)
#define CNA__VEC_IMPL CNA__VEC_AVX2_IMPL
#include <immintrin.h>
#else
#define CNA__VEC_IMPL CNA__VEC_SSE2_IMPL
#include <emmintrin.h>
#endif

#if defined(__GNUC__)
#define CNA__VEC static inline __attribute__((always_inline))
#else
#define CNA__VEC static inline
#endif

/* The float at p (any alignment). */
CNA__VEC float cna__loadf(const void *p)
{
    float f;
    memcpy(&f, p, sizeof f);
    return f;
}

/* A hint to fetch the cache line at p (no fault, any address). */
CNA__VEC void cna__prefetch(const void *p)
{
#if defined(__GNUC__)
    __builtin_prefetch(p, 0, 3);
#else
    (void)p;
#endif
}

/* A float's bits, and the float of given bits. */
CNA__VEC uint32_t cna__bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}
CNA__VEC float cna__from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* Whether x is positive, normal and finite (FLT_MIN <= x <= FLT_MAX): one
 * unsigned compare of its bits (NaN, zero, subnormal, negative and inf fail). */
CNA__VEC int cna__is_normal_positive(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b - 0x00800000u <= 0x7F7FFFFFu - 0x00800000u;
}

/* ------------------------------------------------------------------ scalar */
#if CNA__VEC_IMPL == CNA__VEC_SCALAR_IMPL
typedef struct vf4 {
    float f[4];
} vf4;
typedef struct vf8 {
    float f[8];
} vf8;

#define CNA__LANES4(expr) \
    vf4 r_;               \
    for (int i = 0; i < 4; i++) r_.f[i] = (expr); \
    return r_
#define CNA__LANES8(expr) \
    vf8 r_;               \
    for (int i = 0; i < 8; i++) r_.f[i] = (expr); \
    return r_

CNA__VEC vf4 vf4_loadu(const void *p) { vf4 r; memcpy(r.f, p, sizeof r.f); return r; }
CNA__VEC vf4 vf4_load1(const void *p) { CNA__LANES4(cna__loadf(p)); }
CNA__VEC void vf4_storeu(void *p, vf4 v) { memcpy(p, v.f, sizeof v.f); }
CNA__VEC void vf4_store3(void *p, vf4 v) { memcpy(p, v.f, 3 * sizeof(float)); }
CNA__VEC vf4 vf4_zero(void) { CNA__LANES4(0.0f); }
CNA__VEC vf4 vf4_set1(float x) { CNA__LANES4(x); }
CNA__VEC float vf4_first(vf4 a) { return a.f[0]; }
CNA__VEC vf4 vf4_add(vf4 a, vf4 b) { CNA__LANES4(a.f[i] + b.f[i]); }
CNA__VEC vf4 vf4_sub(vf4 a, vf4 b) { CNA__LANES4(a.f[i] - b.f[i]); }
CNA__VEC vf4 vf4_mul(vf4 a, vf4 b) { CNA__LANES4(a.f[i] * b.f[i]); }
CNA__VEC vf4 vf4_fmadd(vf4 a, vf4 b, vf4 c) { CNA__LANES4(a.f[i] * b.f[i] + c.f[i]); }
CNA__VEC vf4 vf4_fnmadd(vf4 a, vf4 b, vf4 c) { CNA__LANES4(c.f[i] - a.f[i] * b.f[i]); }
CNA__VEC vf4 vf4_rsqrt_est(vf4 a) { CNA__LANES4(1.0f / sqrtf(a.f[i])); }
CNA__VEC vf4 vf4_splat(vf4 a, int k) { CNA__LANES4(a.f[k]); }
CNA__VEC vf4 vf4_with_w(vf4 a, vf4 b) { a.f[3] = b.f[3]; return a; }

CNA__VEC vf8 vf8_loadu(const void *p) { vf8 r; memcpy(r.f, p, sizeof r.f); return r; }
CNA__VEC vf8 vf8_broadcast4(const void *p)
{
    vf8 r;
    memcpy(r.f, p, 4 * sizeof(float));
    memcpy(r.f + 4, p, 4 * sizeof(float));
    return r;
}
CNA__VEC void vf8_storeu(void *p, vf8 v) { memcpy(p, v.f, sizeof v.f); }
CNA__VEC vf8 vf8_zero(void) { CNA__LANES8(0.0f); }
CNA__VEC vf8 vf8_set1(float x) { CNA__LANES8(x); }
CNA__VEC vf8 vf8_add(vf8 a, vf8 b) { CNA__LANES8(a.f[i] + b.f[i]); }
CNA__VEC vf8 vf8_sub(vf8 a, vf8 b) { CNA__LANES8(a.f[i] - b.f[i]); }
CNA__VEC vf8 vf8_mul(vf8 a, vf8 b) { CNA__LANES8(a.f[i] * b.f[i]); }
CNA__VEC vf8 vf8_fmadd(vf8 a, vf8 b, vf8 c) { CNA__LANES8(a.f[i] * b.f[i] + c.f[i]); }
CNA__VEC vf8 vf8_fnmadd(vf8 a, vf8 b, vf8 c) { CNA__LANES8(c.f[i] - a.f[i] * b.f[i]); }
CNA__VEC vf8 vf8_rsqrt_est(vf8 a) { CNA__LANES8(1.0f / sqrtf(a.f[i])); }
CNA__VEC vf8 vf8_splat_halves(vf8 a, int k) { CNA__LANES8(a.f[(i & 4) + k]); }
CNA__VEC vf8 vf8_splat2(vf8 a, int lo, int hi) { CNA__LANES8(a.f[i < 4 ? lo : hi]); }
CNA__VEC vf4 vf8_lo(vf8 a) { vf4 r; memcpy(r.f, a.f, sizeof r.f); return r; }
CNA__VEC vf4 vf8_hi(vf8 a) { vf4 r; memcpy(r.f, a.f + 4, sizeof r.f); return r; }
CNA__VEC vf8 vf8_join(vf4 lo, vf4 hi)
{
    vf8 r;
    memcpy(r.f, lo.f, sizeof lo.f);
    memcpy(r.f + 4, hi.f, sizeof hi.f);
    return r;
}
CNA__VEC vf8 vf8_dup_lo(vf8 a) { return vf8_join(vf8_lo(a), vf8_lo(a)); }
CNA__VEC vf8 vf8_dup_hi(vf8 a) { return vf8_join(vf8_hi(a), vf8_hi(a)); }
CNA__VEC vf8 vf8_hi_zero(vf8 a) { return vf8_join(vf8_hi(a), vf4_zero()); }
CNA__VEC vf8 vf8_his(vf8 a, vf8 b) { return vf8_join(vf8_hi(a), vf8_hi(b)); }
/* bit k set: lane k is positive, normal and finite */
CNA__VEC int vf8_normal_mask(vf8 a)
{
    int m = 0;
    for (int i = 0; i < 8; i++) m |= cna__is_normal_positive(a.f[i]) << i;
    return m;
}
/* whether every lane of (a - a), or-ed over the calls, is +0: the inputs finite */
CNA__VEC vf8 vf8_or_self_diff(vf8 acc, vf8 a)
{
    for (int i = 0; i < 8; i++) {
        uint32_t x, y;
        const float d = a.f[i] - a.f[i];
        memcpy(&x, &acc.f[i], sizeof x);
        memcpy(&y, &d, sizeof y);
        x |= y;
        memcpy(&acc.f[i], &x, sizeof x);
    }
    return acc;
}
CNA__VEC int vf8_bits_zero(vf8 a)
{
    for (int i = 0; i < 8; i++) {
        uint32_t x;
        memcpy(&x, &a.f[i], sizeof x);
        if (x) return 0;
    }
    return 1;
}
/* 32 bytes from src to dst, unchanged (no alignment needed) */
CNA__VEC void cna__copy32(void *dst, const void *src) { memcpy(dst, src, 32); }
/* eight packed x, y, z triples (24 floats at v) as x, y, z lanes, and back */
/* (v may be only byte-aligned: copied, never dereferenced as float) */
CNA__VEC void vf8_load_xyz8(const float *v, vf8 *x, vf8 *y, vf8 *z)
{
    float t[24];
    memcpy(t, v, sizeof t);
    for (int i = 0; i < 8; i++) {
        x->f[i] = t[3 * i];
        y->f[i] = t[3 * i + 1];
        z->f[i] = t[3 * i + 2];
    }
}
CNA__VEC void vf8_store_xyz8(float *v, vf8 x, vf8 y, vf8 z)
{
    float t[24];
    for (int i = 0; i < 8; i++) {
        t[3 * i] = x.f[i];
        t[3 * i + 1] = y.f[i];
        t[3 * i + 2] = z.f[i];
    }
    memcpy(v, t, sizeof t);
}

/* masks: a lane's bits all ones (true) or all zeros (false) */
CNA__VEC float cna__mask_lane(int t)
{
    const uint32_t b = t ? 0xFFFFFFFFu : 0u;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}
CNA__VEC vf4 vf4_setr(float a, float b, float c, float d)
{
    vf4 r = {{a, b, c, d}};
    return r;
}
CNA__VEC vf4 vf4_div(vf4 a, vf4 b) { CNA__LANES4(a.f[i] / b.f[i]); }
CNA__VEC vf4 vf4_sqrt(vf4 a) { CNA__LANES4(sqrtf(a.f[i])); }
CNA__VEC vf4 vf4_cmpneq(vf4 a, vf4 b) { CNA__LANES4(cna__mask_lane(!(a.f[i] == b.f[i]))); }
CNA__VEC vf4 vf4_cmpgt(vf4 a, vf4 b) { CNA__LANES4(cna__mask_lane(a.f[i] > b.f[i])); }
CNA__VEC vf4 vf4_cmple(vf4 a, vf4 b) { CNA__LANES4(cna__mask_lane(a.f[i] <= b.f[i])); }
CNA__VEC vf4 vf4_and(vf4 a, vf4 b) { CNA__LANES4(cna__from_bits(cna__bits(a.f[i]) & cna__bits(b.f[i]))); }
CNA__VEC vf4 vf4_or(vf4 a, vf4 b) { CNA__LANES4(cna__from_bits(cna__bits(a.f[i]) | cna__bits(b.f[i]))); }
CNA__VEC int vf4_movemask(vf4 a)
{
    int m = 0;
    for (int i = 0; i < 4; i++) m |= (int)(cna__bits(a.f[i]) >> 31) << i;
    return m;
}
CNA__VEC void vf4_load_xyz4(const float *v, vf4 *x, vf4 *y, vf4 *z)
{
    float t[12];
    memcpy(t, v, sizeof t);
    for (int i = 0; i < 4; i++) {
        x->f[i] = t[3 * i];
        y->f[i] = t[3 * i + 1];
        z->f[i] = t[3 * i + 2];
    }
}
CNA__VEC vf8 vf8_div(vf8 a, vf8 b) { CNA__LANES8(a.f[i] / b.f[i]); }
CNA__VEC vf8 vf8_sqrt(vf8 a) { CNA__LANES8(sqrtf(a.f[i])); }
CNA__VEC vf8 vf8_cmpneq(vf8 a, vf8 b) { CNA__LANES8(cna__mask_lane(!(a.f[i] == b.f[i]))); }
CNA__VEC vf8 vf8_cmpgt(vf8 a, vf8 b) { CNA__LANES8(cna__mask_lane(a.f[i] > b.f[i])); }
CNA__VEC vf8 vf8_cmple(vf8 a, vf8 b) { CNA__LANES8(cna__mask_lane(a.f[i] <= b.f[i])); }
CNA__VEC vf8 vf8_and(vf8 a, vf8 b) { CNA__LANES8(cna__from_bits(cna__bits(a.f[i]) & cna__bits(b.f[i]))); }
CNA__VEC vf8 vf8_or(vf8 a, vf8 b) { CNA__LANES8(cna__from_bits(cna__bits(a.f[i]) | cna__bits(b.f[i]))); }
CNA__VEC vf8 vf8_select(vf8 m, vf8 a, vf8 b)
{
    CNA__LANES8(cna__from_bits((cna__bits(m.f[i]) & cna__bits(a.f[i])) |
                               (~cna__bits(m.f[i]) & cna__bits(b.f[i]))));
}
CNA__VEC vf8 vf8_all_ones(void) { CNA__LANES8(cna__mask_lane(1)); }
CNA__VEC int vf8_movemask(vf8 a)
{
    int m = 0;
    for (int i = 0; i < 8; i++) m |= (int)(cna__bits(a.f[i]) >> 31) << i;
    return m;
}
/* 24 floats x0 y0 z0 x1 ... z7 held in three vectors, as x, y, z lanes */
CNA__VEC void vf8_xyz_lanes(vf8 a0, vf8 a1, vf8 a2, vf8 *x, vf8 *y, vf8 *z)
{
    float v[24];
    memcpy(v, a0.f, 32);
    memcpy(v + 8, a1.f, 32);
    memcpy(v + 16, a2.f, 32);
    vf8_load_xyz8(v, x, y, z);
}
/* rows of four floats at p + i * stride (i = 0..7) as x, y, z, e lanes, and back */
CNA__VEC void vf8_rows4_to_lanes(const unsigned char *p, size_t stride, vf8 *x, vf8 *y, vf8 *z,
                                 vf8 *e)
{
    for (int i = 0; i < 8; i++) {
        float r[4];
        memcpy(r, p + (size_t)i * stride, sizeof r);
        x->f[i] = r[0];
        y->f[i] = r[1];
        z->f[i] = r[2];
        e->f[i] = r[3];
    }
}
CNA__VEC void vf8_lanes_to_rows4(unsigned char *p, size_t stride, vf8 x, vf8 y, vf8 z, vf8 e)
{
    for (int i = 0; i < 8; i++) {
        const float r[4] = {x.f[i], y.f[i], z.f[i], e.f[i]};
        memcpy(p + (size_t)i * stride, r, sizeof r);
    }
}
/* cj = lane j of r0..r7: an 8x8 transpose, its own inverse */
CNA__VEC void vf8_transpose8(vf8 r0, vf8 r1, vf8 r2, vf8 r3, vf8 r4, vf8 r5, vf8 r6, vf8 r7,
                             vf8 *c0, vf8 *c1, vf8 *c2, vf8 *c3, vf8 *c4, vf8 *c5, vf8 *c6,
                             vf8 *c7)
{
    const vf8 r[8] = {r0, r1, r2, r3, r4, r5, r6, r7};
    vf8 *const c[8] = {c0, c1, c2, c3, c4, c5, c6, c7};
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 8; i++) c[j]->f[i] = r[i].f[j];
}
CNA__VEC vf4 vf4_xor(vf4 a, vf4 b) { CNA__LANES4(cna__from_bits(cna__bits(a.f[i]) ^ cna__bits(b.f[i]))); }
/* (a1 a0 a3 a2) and (a2 a3 a0 a1) */
CNA__VEC vf4 vf4_swap_pairs(vf4 a) { CNA__LANES4(a.f[i ^ 1]); }
CNA__VEC vf4 vf4_swap_halves(vf4 a) { CNA__LANES4(a.f[i ^ 2]); }
/* a 4x4 transpose within each half of r0..r3 (lane j of half h of rk goes
 * to lane k of half h of rj) */
CNA__VEC void vf8_transpose4_halves(vf8 *r0, vf8 *r1, vf8 *r2, vf8 *r3)
{
    vf8 *const r[4] = {r0, r1, r2, r3};
    vf8 c[4];
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 4; k++) {
            c[j].f[k] = r[k]->f[j];
            c[j].f[4 + k] = r[k]->f[4 + j];
        }
    for (int j = 0; j < 4; j++) *r[j] = c[j];
}
#undef CNA__LANES4
#undef CNA__LANES8

/* ------------------------------------------------------------------ SSE2 and AVX2 + FMA: vf4
 * (one 128-bit register in both; the few operations that differ are marked) */
#else
typedef __m128 vf4;

/* Lane k of a in every lane (k a constant once inlined). */
#if CNA__VEC_IMPL == CNA__VEC_AVX2_IMPL
CNA__VEC vf4 vf4_splat(vf4 a, int k)
{
    switch (k) {
    case 0: return _mm_permute_ps(a, 0x00);
    case 1: return _mm_permute_ps(a, 0x55);
    case 2: return _mm_permute_ps(a, 0xAA);
    default: return _mm_permute_ps(a, 0xFF);
    }
}
#else
CNA__VEC vf4 vf4_splat(vf4 a, int k)
{
    const __m128i i = _mm_castps_si128(a);
    switch (k) {
    case 0: return _mm_castsi128_ps(_mm_shuffle_epi32(i, 0x00));
    case 1: return _mm_castsi128_ps(_mm_shuffle_epi32(i, 0x55));
    case 2: return _mm_castsi128_ps(_mm_shuffle_epi32(i, 0xAA));
    default: return _mm_castsi128_ps(_mm_shuffle_epi32(i, 0xFF));
    }
}
#endif
CNA__VEC vf4 vf4_loadu(const void *p) { return _mm_loadu_ps((const float *)p); }
CNA__VEC vf4 vf4_load1(const void *p) { return _mm_set1_ps(cna__loadf(p)); }
CNA__VEC void vf4_storeu(void *p, vf4 v) { _mm_storeu_ps((float *)p, v); }
CNA__VEC void vf4_store3(void *p, vf4 v)
{
    _mm_storel_epi64((__m128i *)p, _mm_castps_si128(v));
    const float z = _mm_cvtss_f32(_mm_movehl_ps(v, v));
    memcpy((unsigned char *)p + 8, &z, sizeof z);
}
CNA__VEC vf4 vf4_zero(void) { return _mm_setzero_ps(); }
CNA__VEC vf4 vf4_set1(float x) { return _mm_set1_ps(x); }
CNA__VEC float vf4_first(vf4 a) { return _mm_cvtss_f32(a); }
CNA__VEC vf4 vf4_add(vf4 a, vf4 b) { return _mm_add_ps(a, b); }
CNA__VEC vf4 vf4_sub(vf4 a, vf4 b) { return _mm_sub_ps(a, b); }
CNA__VEC vf4 vf4_mul(vf4 a, vf4 b) { return _mm_mul_ps(a, b); }
#if CNA__VEC_IMPL == CNA__VEC_AVX2_IMPL
CNA__VEC vf4 vf4_fmadd(vf4 a, vf4 b, vf4 c) { return _mm_fmadd_ps(a, b, c); }
CNA__VEC vf4 vf4_fnmadd(vf4 a, vf4 b, vf4 c) { return _mm_fnmadd_ps(a, b, c); }
CNA__VEC vf4 vf4_with_w(vf4 a, vf4 b) { return _mm_blend_ps(a, b, 0x8); }
#else
CNA__VEC vf4 vf4_fmadd(vf4 a, vf4 b, vf4 c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
CNA__VEC vf4 vf4_fnmadd(vf4 a, vf4 b, vf4 c) { return _mm_sub_ps(c, _mm_mul_ps(a, b)); }
CNA__VEC vf4 vf4_with_w(vf4 a, vf4 b)
{
    return _mm_shuffle_ps(a, _mm_unpackhi_ps(a, b), _MM_SHUFFLE(3, 0, 1, 0));
}
#endif
CNA__VEC vf4 vf4_rsqrt_est(vf4 a) { return _mm_rsqrt_ps(a); }
CNA__VEC vf4 vf4_setr(float a, float b, float c, float d) { return _mm_setr_ps(a, b, c, d); }
CNA__VEC vf4 vf4_div(vf4 a, vf4 b) { return _mm_div_ps(a, b); }
CNA__VEC vf4 vf4_sqrt(vf4 a) { return _mm_sqrt_ps(a); }
CNA__VEC vf4 vf4_cmpneq(vf4 a, vf4 b) { return _mm_cmpneq_ps(a, b); }
CNA__VEC vf4 vf4_cmpgt(vf4 a, vf4 b) { return _mm_cmpgt_ps(a, b); }
CNA__VEC vf4 vf4_cmple(vf4 a, vf4 b) { return _mm_cmple_ps(a, b); }
CNA__VEC vf4 vf4_and(vf4 a, vf4 b) { return _mm_and_ps(a, b); }
CNA__VEC vf4 vf4_or(vf4 a, vf4 b) { return _mm_or_ps(a, b); }
CNA__VEC int vf4_movemask(vf4 a) { return _mm_movemask_ps(a); }
CNA__VEC vf4 vf4_xor(vf4 a, vf4 b) { return _mm_xor_ps(a, b); }
CNA__VEC vf4 vf4_swap_pairs(vf4 a) { return _mm_shuffle_ps(a, a, _MM_SHUFFLE(2, 3, 0, 1)); }
CNA__VEC vf4 vf4_swap_halves(vf4 a) { return _mm_shuffle_ps(a, a, _MM_SHUFFLE(1, 0, 3, 2)); }
/* four triples x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3 in a, b, c as x, y, z lanes */
CNA__VEC void cna__xyz4_lanes(__m128 a, __m128 b, __m128 c, __m128 *x, __m128 *y, __m128 *z)
{
    const __m128 x2y2x3y3 = _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 1, 3, 2));
    const __m128 y0z0y1z1 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 2, 1));
    *x = _mm_shuffle_ps(a, x2y2x3y3, _MM_SHUFFLE(2, 0, 3, 0));
    *y = _mm_shuffle_ps(y0z0y1z1, x2y2x3y3, _MM_SHUFFLE(3, 1, 2, 0));
    *z = _mm_shuffle_ps(y0z0y1z1, c, _MM_SHUFFLE(3, 0, 3, 1));
}
CNA__VEC void vf4_load_xyz4(const float *v, vf4 *x, vf4 *y, vf4 *z)
{
    cna__xyz4_lanes(_mm_loadu_ps(v), _mm_loadu_ps(v + 4), _mm_loadu_ps(v + 8), x, y, z);
}

/* ------------------------------------------------------------------ SSE2: vf8 as two halves */
#if CNA__VEC_IMPL == CNA__VEC_SSE2_IMPL
typedef struct vf8 {
    __m128 lo, hi;
} vf8;

CNA__VEC vf8 vf8_join(vf4 lo, vf4 hi) { vf8 r = {lo, hi}; return r; }
CNA__VEC vf4 vf8_lo(vf8 a) { return a.lo; }
CNA__VEC vf4 vf8_hi(vf8 a) { return a.hi; }
CNA__VEC vf8 vf8_loadu(const void *p)
{
    return vf8_join(_mm_loadu_ps((const float *)p), _mm_loadu_ps((const float *)p + 4));
}
CNA__VEC vf8 vf8_broadcast4(const void *p)
{
    const __m128 v = _mm_loadu_ps((const float *)p);
    return vf8_join(v, v);
}
CNA__VEC void vf8_storeu(void *p, vf8 v)
{
    _mm_storeu_ps((float *)p, v.lo);
    _mm_storeu_ps((float *)p + 4, v.hi);
}
#define CNA__HALVES(expr_lo, expr_hi) return vf8_join(expr_lo, expr_hi)
CNA__VEC vf8 vf8_zero(void) { CNA__HALVES(_mm_setzero_ps(), _mm_setzero_ps()); }
CNA__VEC vf8 vf8_set1(float x) { CNA__HALVES(_mm_set1_ps(x), _mm_set1_ps(x)); }
CNA__VEC vf8 vf8_add(vf8 a, vf8 b) { CNA__HALVES(_mm_add_ps(a.lo, b.lo), _mm_add_ps(a.hi, b.hi)); }
CNA__VEC vf8 vf8_sub(vf8 a, vf8 b) { CNA__HALVES(_mm_sub_ps(a.lo, b.lo), _mm_sub_ps(a.hi, b.hi)); }
CNA__VEC vf8 vf8_mul(vf8 a, vf8 b) { CNA__HALVES(_mm_mul_ps(a.lo, b.lo), _mm_mul_ps(a.hi, b.hi)); }
CNA__VEC vf8 vf8_fmadd(vf8 a, vf8 b, vf8 c)
{
    CNA__HALVES(vf4_fmadd(a.lo, b.lo, c.lo), vf4_fmadd(a.hi, b.hi, c.hi));
}
CNA__VEC vf8 vf8_fnmadd(vf8 a, vf8 b, vf8 c)
{
    CNA__HALVES(vf4_fnmadd(a.lo, b.lo, c.lo), vf4_fnmadd(a.hi, b.hi, c.hi));
}
CNA__VEC vf8 vf8_rsqrt_est(vf8 a) { CNA__HALVES(_mm_rsqrt_ps(a.lo), _mm_rsqrt_ps(a.hi)); }
CNA__VEC vf8 vf8_splat_halves(vf8 a, int k) { CNA__HALVES(vf4_splat(a.lo, k), vf4_splat(a.hi, k)); }
CNA__VEC vf8 vf8_splat2(vf8 a, int lo, int hi)
{
    CNA__HALVES(vf4_splat(lo < 4 ? a.lo : a.hi, lo & 3), vf4_splat(hi < 4 ? a.lo : a.hi, hi & 3));
}
CNA__VEC vf8 vf8_dup_lo(vf8 a) { CNA__HALVES(a.lo, a.lo); }
CNA__VEC vf8 vf8_dup_hi(vf8 a) { CNA__HALVES(a.hi, a.hi); }
CNA__VEC vf8 vf8_hi_zero(vf8 a) { CNA__HALVES(a.hi, _mm_setzero_ps()); }
CNA__VEC vf8 vf8_his(vf8 a, vf8 b) { CNA__HALVES(a.hi, b.hi); }
#undef CNA__HALVES
/* bits b in [0x00800000, 0x7F7FFFFF]: b + 0x7F800000 (sign bits flipped on
 * both sides) not above -0x01000001 as signed */
CNA__VEC int cna__normal_mask4(__m128 a)
{
    const __m128i bad = _mm_cmpgt_epi32(_mm_add_epi32(_mm_castps_si128(a), _mm_set1_epi32(0x7F800000)),
                                        _mm_set1_epi32(-0x01000001));
    return ~_mm_movemask_ps(_mm_castsi128_ps(bad)) & 0xF;
}
CNA__VEC int vf8_normal_mask(vf8 a) { return cna__normal_mask4(a.lo) | cna__normal_mask4(a.hi) << 4; }
CNA__VEC vf8 vf8_or_self_diff(vf8 acc, vf8 a)
{
    return vf8_join(_mm_or_ps(acc.lo, _mm_sub_ps(a.lo, a.lo)),
                    _mm_or_ps(acc.hi, _mm_sub_ps(a.hi, a.hi)));
}
CNA__VEC int vf8_bits_zero(vf8 a)
{
    const __m128i o = _mm_castps_si128(_mm_or_ps(a.lo, a.hi));
    return _mm_movemask_epi8(_mm_cmpeq_epi32(o, _mm_setzero_si128())) == 0xFFFF;
}
CNA__VEC void cna__copy32(void *dst, const void *src)
{
    const __m128i a = _mm_loadu_si128((const __m128i *)src);
    const __m128i b = _mm_loadu_si128((const __m128i *)src + 1);
    _mm_storeu_si128((__m128i *)dst, a);
    _mm_storeu_si128((__m128i *)dst + 1, b);
}
/* four packed triples (12 floats: x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3) as lanes */
CNA__VEC void cna__store_xyz4(float *v, __m128 x, __m128 y, __m128 z)
{
    const __m128 x0x2y0y2 = _mm_shuffle_ps(x, y, _MM_SHUFFLE(2, 0, 2, 0));
    const __m128 y1y3z1z3 = _mm_shuffle_ps(y, z, _MM_SHUFFLE(3, 1, 3, 1));
    const __m128 z0z2x1x3 = _mm_shuffle_ps(z, x, _MM_SHUFFLE(3, 1, 2, 0));
    _mm_storeu_ps(v, _mm_shuffle_ps(x0x2y0y2, z0z2x1x3, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm_storeu_ps(v + 4, _mm_shuffle_ps(y1y3z1z3, x0x2y0y2, _MM_SHUFFLE(3, 1, 2, 0)));
    _mm_storeu_ps(v + 8, _mm_shuffle_ps(z0z2x1x3, y1y3z1z3, _MM_SHUFFLE(3, 1, 3, 1)));
}
CNA__VEC void vf8_load_xyz8(const float *v, vf8 *x, vf8 *y, vf8 *z)
{
    vf4_load_xyz4(v, &x->lo, &y->lo, &z->lo);
    vf4_load_xyz4(v + 12, &x->hi, &y->hi, &z->hi);
}
CNA__VEC void vf8_store_xyz8(float *v, vf8 x, vf8 y, vf8 z)
{
    cna__store_xyz4(v, x.lo, y.lo, z.lo);
    cna__store_xyz4(v + 12, x.hi, y.hi, z.hi);
}

#define CNA__HALVES(expr_lo, expr_hi) return vf8_join(expr_lo, expr_hi)
CNA__VEC vf8 vf8_div(vf8 a, vf8 b) { CNA__HALVES(_mm_div_ps(a.lo, b.lo), _mm_div_ps(a.hi, b.hi)); }
CNA__VEC vf8 vf8_sqrt(vf8 a) { CNA__HALVES(_mm_sqrt_ps(a.lo), _mm_sqrt_ps(a.hi)); }
CNA__VEC vf8 vf8_cmpneq(vf8 a, vf8 b) { CNA__HALVES(_mm_cmpneq_ps(a.lo, b.lo), _mm_cmpneq_ps(a.hi, b.hi)); }
CNA__VEC vf8 vf8_cmpgt(vf8 a, vf8 b) { CNA__HALVES(_mm_cmpgt_ps(a.lo, b.lo), _mm_cmpgt_ps(a.hi, b.hi)); }
CNA__VEC vf8 vf8_cmple(vf8 a, vf8 b) { CNA__HALVES(_mm_cmple_ps(a.lo, b.lo), _mm_cmple_ps(a.hi, b.hi)); }
CNA__VEC vf8 vf8_and(vf8 a, vf8 b) { CNA__HALVES(_mm_and_ps(a.lo, b.lo), _mm_and_ps(a.hi, b.hi)); }
CNA__VEC vf8 vf8_or(vf8 a, vf8 b) { CNA__HALVES(_mm_or_ps(a.lo, b.lo), _mm_or_ps(a.hi, b.hi)); }
CNA__VEC vf8 vf8_select(vf8 m, vf8 a, vf8 b)
{
    CNA__HALVES(_mm_or_ps(_mm_and_ps(m.lo, a.lo), _mm_andnot_ps(m.lo, b.lo)),
                _mm_or_ps(_mm_and_ps(m.hi, a.hi), _mm_andnot_ps(m.hi, b.hi)));
}
CNA__VEC vf8 vf8_all_ones(void)
{
    const __m128 t = _mm_castsi128_ps(_mm_set1_epi32(-1));
    CNA__HALVES(t, t);
}
#undef CNA__HALVES
CNA__VEC int vf8_movemask(vf8 a) { return _mm_movemask_ps(a.lo) | _mm_movemask_ps(a.hi) << 4; }
CNA__VEC void vf8_transpose4_halves(vf8 *r0, vf8 *r1, vf8 *r2, vf8 *r3)
{
    _MM_TRANSPOSE4_PS(r0->lo, r1->lo, r2->lo, r3->lo);
    _MM_TRANSPOSE4_PS(r0->hi, r1->hi, r2->hi, r3->hi);
}
CNA__VEC void vf8_xyz_lanes(vf8 a0, vf8 a1, vf8 a2, vf8 *x, vf8 *y, vf8 *z)
{
    cna__xyz4_lanes(a0.lo, a0.hi, a1.lo, &x->lo, &y->lo, &z->lo);
    cna__xyz4_lanes(a1.hi, a2.lo, a2.hi, &x->hi, &y->hi, &z->hi);
}
/* rows of four floats at p + i * stride (i = 0..7) as x, y, z, e lanes, and back */
CNA__VEC void vf8_rows4_to_lanes(const unsigned char *p, size_t stride, vf8 *x, vf8 *y, vf8 *z,
                                 vf8 *e)
{
    for (int h = 0; h < 2; h++, p += 4 * stride) {
        __m128 r0 = _mm_loadu_ps((const float *)p), r1 = _mm_loadu_ps((const float *)(p + stride));
        __m128 r2 = _mm_loadu_ps((const float *)(p + 2 * stride));
        __m128 r3 = _mm_loadu_ps((const float *)(p + 3 * stride));
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        *(h ? &x->hi : &x->lo) = r0;
        *(h ? &y->hi : &y->lo) = r1;
        *(h ? &z->hi : &z->lo) = r2;
        *(h ? &e->hi : &e->lo) = r3;
    }
}
CNA__VEC void vf8_lanes_to_rows4(unsigned char *p, size_t stride, vf8 x, vf8 y, vf8 z, vf8 e)
{
    for (int h = 0; h < 2; h++, p += 4 * stride) {
        __m128 r0 = h ? x.hi : x.lo, r1 = h ? y.hi : y.lo, r2 = h ? z.hi : z.lo, r3 = h ? e.hi : e.lo;
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        _mm_storeu_ps((float *)p, r0);
        _mm_storeu_ps((float *)(p + stride), r1);
        _mm_storeu_ps((float *)(p + 2 * stride), r2);
        _mm_storeu_ps((float *)(p + 3 * stride), r3);
    }
}
/* cj = lane j of r0..r7: four 4x4 transposes */
CNA__VEC void vf8_transpose8(vf8 r0, vf8 r1, vf8 r2, vf8 r3, vf8 r4, vf8 r5, vf8 r6, vf8 r7,
                             vf8 *c0, vf8 *c1, vf8 *c2, vf8 *c3, vf8 *c4, vf8 *c5, vf8 *c6,
                             vf8 *c7)
{
    __m128 a0 = r0.lo, a1 = r1.lo, a2 = r2.lo, a3 = r3.lo; /* rows 0-3, columns 0-3 */
    __m128 b0 = r4.lo, b1 = r5.lo, b2 = r6.lo, b3 = r7.lo; /* rows 4-7, columns 0-3 */
    __m128 e0 = r0.hi, e1 = r1.hi, e2 = r2.hi, e3 = r3.hi; /* rows 0-3, columns 4-7 */
    __m128 d0 = r4.hi, d1 = r5.hi, d2 = r6.hi, d3 = r7.hi; /* rows 4-7, columns 4-7 */
    _MM_TRANSPOSE4_PS(a0, a1, a2, a3);
    _MM_TRANSPOSE4_PS(b0, b1, b2, b3);
    _MM_TRANSPOSE4_PS(e0, e1, e2, e3);
    _MM_TRANSPOSE4_PS(d0, d1, d2, d3);
    *c0 = vf8_join(a0, b0);
    *c1 = vf8_join(a1, b1);
    *c2 = vf8_join(a2, b2);
    *c3 = vf8_join(a3, b3);
    *c4 = vf8_join(e0, d0);
    *c5 = vf8_join(e1, d1);
    *c6 = vf8_join(e2, d2);
    *c7 = vf8_join(e3, d3);
}

/* ------------------------------------------------------------------ AVX2 + FMA: vf8 */
#else
typedef __m256 vf8;

CNA__VEC vf8 vf8_loadu(const void *p) { return _mm256_loadu_ps((const float *)p); }
CNA__VEC vf8 vf8_broadcast4(const void *p) { return _mm256_broadcast_ps((const __m128 *)p); }
CNA__VEC void vf8_storeu(void *p, vf8 v) { _mm256_storeu_ps((float *)p, v); }
CNA__VEC vf8 vf8_zero(void) { return _mm256_setzero_ps(); }
CNA__VEC vf8 vf8_set1(float x) { return _mm256_set1_ps(x); }
CNA__VEC vf8 vf8_add(vf8 a, vf8 b) { return _mm256_add_ps(a, b); }
CNA__VEC vf8 vf8_sub(vf8 a, vf8 b) { return _mm256_sub_ps(a, b); }
CNA__VEC vf8 vf8_mul(vf8 a, vf8 b) { return _mm256_mul_ps(a, b); }
CNA__VEC vf8 vf8_fmadd(vf8 a, vf8 b, vf8 c) { return _mm256_fmadd_ps(a, b, c); }
CNA__VEC vf8 vf8_fnmadd(vf8 a, vf8 b, vf8 c) { return _mm256_fnmadd_ps(a, b, c); }
CNA__VEC vf8 vf8_rsqrt_est(vf8 a) { return _mm256_rsqrt_ps(a); }
CNA__VEC vf8 vf8_splat_halves(vf8 a, int k)
{
    switch (k) {
    case 0: return _mm256_permute_ps(a, 0x00);
    case 1: return _mm256_permute_ps(a, 0x55);
    case 2: return _mm256_permute_ps(a, 0xAA);
    default: return _mm256_permute_ps(a, 0xFF);
    }
}
CNA__VEC vf8 vf8_splat2(vf8 a, int lo, int hi)
{
    return _mm256_permutevar8x32_ps(a, _mm256_setr_epi32(lo, lo, lo, lo, hi, hi, hi, hi));
}
CNA__VEC vf4 vf8_lo(vf8 a) { return _mm256_castps256_ps128(a); }
CNA__VEC vf4 vf8_hi(vf8 a) { return _mm256_extractf128_ps(a, 1); }
CNA__VEC vf8 vf8_join(vf4 lo, vf4 hi) { return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1); }
CNA__VEC vf8 vf8_dup_lo(vf8 a) { return _mm256_permute2f128_ps(a, a, 0x00); }
CNA__VEC vf8 vf8_dup_hi(vf8 a) { return _mm256_permute2f128_ps(a, a, 0x11); }
CNA__VEC vf8 vf8_hi_zero(vf8 a) { return _mm256_permute2f128_ps(a, a, 0x81); }
CNA__VEC vf8 vf8_his(vf8 a, vf8 b) { return _mm256_permute2f128_ps(a, b, 0x31); }
/* bits b in [0x00800000, 0x7F7FFFFF]: b + 0x7F800000 (sign bits flipped on
 * both sides) not above -0x01000001 as signed */
CNA__VEC int vf8_normal_mask(vf8 a)
{
    const __m256i bad = _mm256_cmpgt_epi32(
        _mm256_add_epi32(_mm256_castps_si256(a), _mm256_set1_epi32(0x7F800000)),
        _mm256_set1_epi32(-0x01000001));
    return ~_mm256_movemask_ps(_mm256_castsi256_ps(bad)) & 0xFF;
}
CNA__VEC vf8 vf8_or_self_diff(vf8 acc, vf8 a) { return _mm256_or_ps(acc, _mm256_sub_ps(a, a)); }
CNA__VEC int vf8_bits_zero(vf8 a)
{
    return _mm256_testz_si256(_mm256_castps_si256(a), _mm256_castps_si256(a)) != 0;
}
CNA__VEC void cna__copy32(void *dst, const void *src)
{
    _mm256_storeu_si256((__m256i *)dst, _mm256_loadu_si256((const __m256i *)src));
}
CNA__VEC void vf8_load_xyz8(const float *v, vf8 *x, vf8 *y, vf8 *z)
{
    const __m256 m03 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(v)),
                                            _mm_loadu_ps(v + 12), 1); /* x0 y0 z0 x1 | x4 y4 z4 x5 */
    const __m256 m14 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(v + 4)),
                                            _mm_loadu_ps(v + 16), 1); /* y1 z1 x2 y2 | y5 .. */
    const __m256 m25 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(v + 8)),
                                            _mm_loadu_ps(v + 20), 1); /* z2 x3 y3 z3 | z6 .. */
    const __m256 xy = _mm256_shuffle_ps(m14, m25, _MM_SHUFFLE(2, 1, 3, 2)); /* x2 y2 x3 y3 */
    const __m256 yz = _mm256_shuffle_ps(m03, m14, _MM_SHUFFLE(1, 0, 2, 1)); /* y0 z0 y1 z1 */
    *x = _mm256_shuffle_ps(m03, xy, _MM_SHUFFLE(2, 0, 3, 0));
    *y = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
    *z = _mm256_shuffle_ps(yz, m25, _MM_SHUFFLE(3, 0, 3, 1));
}
CNA__VEC void vf8_store_xyz8(float *v, vf8 x, vf8 y, vf8 z)
{
    const __m256 rxy = _mm256_shuffle_ps(x, y, _MM_SHUFFLE(2, 0, 2, 0)); /* x0 x2 y0 y2 */
    const __m256 ryz = _mm256_shuffle_ps(y, z, _MM_SHUFFLE(3, 1, 3, 1)); /* y1 y3 z1 z3 */
    const __m256 rzx = _mm256_shuffle_ps(z, x, _MM_SHUFFLE(3, 1, 2, 0)); /* z0 z2 x1 x3 */
    const __m256 o03 = _mm256_shuffle_ps(rxy, rzx, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 o14 = _mm256_shuffle_ps(ryz, rxy, _MM_SHUFFLE(3, 1, 2, 0));
    const __m256 o25 = _mm256_shuffle_ps(rzx, ryz, _MM_SHUFFLE(3, 1, 3, 1));
    _mm_storeu_ps(v, _mm256_castps256_ps128(o03));
    _mm_storeu_ps(v + 4, _mm256_castps256_ps128(o14));
    _mm_storeu_ps(v + 8, _mm256_castps256_ps128(o25));
    _mm_storeu_ps(v + 12, _mm256_extractf128_ps(o03, 1));
    _mm_storeu_ps(v + 16, _mm256_extractf128_ps(o14, 1));
    _mm_storeu_ps(v + 20, _mm256_extractf128_ps(o25, 1));
}
CNA__VEC vf8 vf8_div(vf8 a, vf8 b) { return _mm256_div_ps(a, b); }
CNA__VEC vf8 vf8_sqrt(vf8 a) { return _mm256_sqrt_ps(a); }
CNA__VEC vf8 vf8_cmpneq(vf8 a, vf8 b) { return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ); }
CNA__VEC vf8 vf8_cmpgt(vf8 a, vf8 b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
CNA__VEC vf8 vf8_cmple(vf8 a, vf8 b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
CNA__VEC vf8 vf8_and(vf8 a, vf8 b) { return _mm256_and_ps(a, b); }
CNA__VEC vf8 vf8_or(vf8 a, vf8 b) { return _mm256_or_ps(a, b); }
CNA__VEC vf8 vf8_select(vf8 m, vf8 a, vf8 b)
{
    return _mm256_or_ps(_mm256_and_ps(m, a), _mm256_andnot_ps(m, b));
}
CNA__VEC vf8 vf8_all_ones(void) { return _mm256_castsi256_ps(_mm256_set1_epi32(-1)); }
CNA__VEC int vf8_movemask(vf8 a) { return _mm256_movemask_ps(a); }
CNA__VEC void vf8_transpose4_halves(vf8 *r0, vf8 *r1, vf8 *r2, vf8 *r3)
{
    const __m256 t0 = _mm256_unpacklo_ps(*r0, *r1), t1 = _mm256_unpacklo_ps(*r2, *r3);
    const __m256 t2 = _mm256_unpackhi_ps(*r0, *r1), t3 = _mm256_unpackhi_ps(*r2, *r3);
    *r0 = _mm256_shuffle_ps(t0, t1, 0x44);
    *r1 = _mm256_shuffle_ps(t0, t1, 0xEE);
    *r2 = _mm256_shuffle_ps(t2, t3, 0x44);
    *r3 = _mm256_shuffle_ps(t2, t3, 0xEE);
}
CNA__VEC void vf8_xyz_lanes(vf8 a0, vf8 a1, vf8 a2, vf8 *x, vf8 *y, vf8 *z)
{
    const __m256 m03 = _mm256_permute2f128_ps(a0, a1, 0x30);
    const __m256 m14 = _mm256_permute2f128_ps(a0, a2, 0x21);
    const __m256 m25 = _mm256_permute2f128_ps(a1, a2, 0x30);
    const __m256 xy = _mm256_shuffle_ps(m14, m25, _MM_SHUFFLE(2, 1, 3, 2));
    const __m256 yz = _mm256_shuffle_ps(m03, m14, _MM_SHUFFLE(1, 0, 2, 1));
    *x = _mm256_shuffle_ps(m03, xy, _MM_SHUFFLE(2, 0, 3, 0));
    *y = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
    *z = _mm256_shuffle_ps(yz, m25, _MM_SHUFFLE(3, 0, 3, 1));
}
/* rows of four floats at p + i * stride (i = 0..7) as x, y, z, e lanes, and back */
CNA__VEC void vf8_rows4_to_lanes(const unsigned char *p, size_t stride, vf8 *x, vf8 *y, vf8 *z,
                                 vf8 *e)
{
    /* addresses p + {0, 1, 2, 3} * stride and p4 = p + 4 * stride + the same */
    const unsigned char *p4 = p + 4 * stride;
    const size_t s3 = 3 * stride;
#define CNA__ROWS(a, b) _mm256_insertf128_ps(_mm256_castps128_ps256(vf4_loadu(a)), vf4_loadu(b), 1)
    const __m256 r0 = CNA__ROWS(p, p4), r1 = CNA__ROWS(p + stride, p4 + stride);
    const __m256 r2 = CNA__ROWS(p + 2 * stride, p4 + 2 * stride), r3 = CNA__ROWS(p + s3, p4 + s3);
#undef CNA__ROWS
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    *x = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    *y = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    *z = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    *e = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}
CNA__VEC void vf8_lanes_to_rows4(unsigned char *p, size_t stride, vf8 x, vf8 y, vf8 z, vf8 e)
{
    unsigned char *p4 = p + 4 * stride;
    const size_t s3 = 3 * stride;
    const __m256 u0 = _mm256_unpacklo_ps(x, y), u1 = _mm256_unpackhi_ps(x, y);
    const __m256 u2 = _mm256_unpacklo_ps(z, e), u3 = _mm256_unpackhi_ps(z, e);
    const __m256 r0 = _mm256_shuffle_ps(u0, u2, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 r1 = _mm256_shuffle_ps(u0, u2, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 r2 = _mm256_shuffle_ps(u1, u3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 r3 = _mm256_shuffle_ps(u1, u3, _MM_SHUFFLE(3, 2, 3, 2));
    vf4_storeu(p, _mm256_castps256_ps128(r0));
    vf4_storeu(p + stride, _mm256_castps256_ps128(r1));
    vf4_storeu(p + 2 * stride, _mm256_castps256_ps128(r2));
    vf4_storeu(p + s3, _mm256_castps256_ps128(r3));
    vf4_storeu(p4, _mm256_extractf128_ps(r0, 1));
    vf4_storeu(p4 + stride, _mm256_extractf128_ps(r1, 1));
    vf4_storeu(p4 + 2 * stride, _mm256_extractf128_ps(r2, 1));
    vf4_storeu(p4 + s3, _mm256_extractf128_ps(r3, 1));
}
/* cj = lane j of r0..r7: an 8x8 transpose, its own inverse */
CNA__VEC void vf8_transpose8(vf8 r0, vf8 r1, vf8 r2, vf8 r3, vf8 r4, vf8 r5, vf8 r6, vf8 r7,
                             vf8 *c0, vf8 *c1, vf8 *c2, vf8 *c3, vf8 *c4, vf8 *c5, vf8 *c6,
                             vf8 *c7)
{
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    *c0 = _mm256_permute2f128_ps(s0, s4, 0x20);
    *c1 = _mm256_permute2f128_ps(s1, s5, 0x20);
    *c2 = _mm256_permute2f128_ps(s2, s6, 0x20);
    *c3 = _mm256_permute2f128_ps(s3, s7, 0x20);
    *c4 = _mm256_permute2f128_ps(s0, s4, 0x31);
    *c5 = _mm256_permute2f128_ps(s1, s5, 0x31);
    *c6 = _mm256_permute2f128_ps(s2, s6, 0x31);
    *c7 = _mm256_permute2f128_ps(s3, s7, 0x31);
}
#endif
#endif

/* ------------------------------------------------------------------ more vf4
 * vf4_cmpeq: all ones where a == b (ordered: NaN is never equal);
 * vf4_cmplt: all ones where a < b; vf4_select(m, a, b): a where m, else b
 * (bit for bit); vf4_with_x(a, b): a with lane 0 of b (vf4_with_w's
 * counterpart); vf4_reverse: (a3 a2 a1 a0); vf4_yzxw / vf4_zxyw: lanes
 * (1 2 0 3) and (2 0 1 3), the shuffles of a cross product;
 * vf4_transpose4: lane j of rk goes to lane k of rj, in place. SSE2 and
 * AVX2 hold a vf4 in one 128-bit register alike (AVX2 only encodes the same
 * operations with VEX), so they share one implementation. */
#if CNA__VEC_IMPL == CNA__VEC_SCALAR_IMPL
CNA__VEC vf4 cna__vf4_lanes(vf4 a, int i0, int i1, int i2, int i3)
{
    vf4 r = {{a.f[i0], a.f[i1], a.f[i2], a.f[i3]}};
    return r;
}
CNA__VEC vf4 vf4_cmpeq(vf4 a, vf4 b)
{
    vf4 r;
    for (int i = 0; i < 4; i++) r.f[i] = cna__mask_lane(a.f[i] == b.f[i]);
    return r;
}
CNA__VEC vf4 vf4_cmplt(vf4 a, vf4 b)
{
    vf4 r;
    for (int i = 0; i < 4; i++) r.f[i] = cna__mask_lane(a.f[i] < b.f[i]);
    return r;
}
CNA__VEC vf4 vf4_select(vf4 m, vf4 a, vf4 b)
{
    vf4 r;
    for (int i = 0; i < 4; i++)
        r.f[i] = cna__from_bits((cna__bits(m.f[i]) & cna__bits(a.f[i])) |
                                (~cna__bits(m.f[i]) & cna__bits(b.f[i])));
    return r;
}
CNA__VEC vf4 vf4_with_x(vf4 a, vf4 b) { a.f[0] = b.f[0]; return a; }
CNA__VEC vf4 vf4_reverse(vf4 a) { return cna__vf4_lanes(a, 3, 2, 1, 0); }
CNA__VEC vf4 vf4_yzxw(vf4 a) { return cna__vf4_lanes(a, 1, 2, 0, 3); }
CNA__VEC vf4 vf4_zxyw(vf4 a) { return cna__vf4_lanes(a, 2, 0, 1, 3); }
CNA__VEC void vf4_transpose4(vf4 *r0, vf4 *r1, vf4 *r2, vf4 *r3)
{
    vf4 *const r[4] = {r0, r1, r2, r3};
    vf4 c[4];
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 4; k++) c[j].f[k] = r[k]->f[j];
    for (int j = 0; j < 4; j++) *r[j] = c[j];
}
#else
CNA__VEC vf4 vf4_cmpeq(vf4 a, vf4 b) { return _mm_cmpeq_ps(a, b); }
CNA__VEC vf4 vf4_cmplt(vf4 a, vf4 b) { return _mm_cmplt_ps(a, b); }
CNA__VEC vf4 vf4_select(vf4 m, vf4 a, vf4 b) { return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)); }
CNA__VEC vf4 vf4_with_x(vf4 a, vf4 b) { return _mm_move_ss(a, b); }
CNA__VEC vf4 vf4_reverse(vf4 a) { return _mm_shuffle_ps(a, a, _MM_SHUFFLE(0, 1, 2, 3)); }
CNA__VEC vf4 vf4_yzxw(vf4 a) { return _mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 0, 2, 1)); }
CNA__VEC vf4 vf4_zxyw(vf4 a) { return _mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 1, 0, 2)); }
CNA__VEC void vf4_transpose4(vf4 *r0, vf4 *r1, vf4 *r2, vf4 *r3) { _MM_TRANSPOSE4_PS(*r0, *r1, *r2, *r3); }
#endif

/* ------------------------------------------------------------------ bytes
 * vu8: sixteen unsigned bytes. vu8_words4: the four bytes at each of a, b,
 * c, d (any alignment) as words 0..3; vu8_max: bytewise maximum;
 * vu8_max_byte: the largest of the sixteen. */
#if CNA__VEC_IMPL == CNA__VEC_SCALAR_IMPL
typedef struct vu8 {
    uint8_t b[16];
} vu8;
CNA__VEC vu8 vu8_zero(void)
{
    vu8 r;
    memset(r.b, 0, sizeof r.b);
    return r;
}
CNA__VEC vu8 vu8_words4(const void *a, const void *b, const void *c, const void *d)
{
    vu8 r;
    memcpy(r.b, a, 4);
    memcpy(r.b + 4, b, 4);
    memcpy(r.b + 8, c, 4);
    memcpy(r.b + 12, d, 4);
    return r;
}
CNA__VEC vu8 vu8_max(vu8 a, vu8 b)
{
    for (int i = 0; i < 16; i++) a.b[i] = a.b[i] > b.b[i] ? a.b[i] : b.b[i];
    return a;
}
CNA__VEC uint8_t vu8_max_byte(vu8 a)
{
    uint8_t m = 0;
    for (int i = 0; i < 16; i++) m = a.b[i] > m ? a.b[i] : m;
    return m;
}
#else
typedef __m128i vu8;
CNA__VEC vu8 vu8_zero(void) { return _mm_setzero_si128(); }
CNA__VEC __m128i cna__word(const void *p)
{
    int32_t w;
    memcpy(&w, p, sizeof w);
    return _mm_cvtsi32_si128(w);
}
CNA__VEC vu8 vu8_words4(const void *a, const void *b, const void *c, const void *d)
{
    return _mm_unpacklo_epi64(_mm_unpacklo_epi32(cna__word(a), cna__word(b)),
                              _mm_unpacklo_epi32(cna__word(c), cna__word(d)));
}
CNA__VEC vu8 vu8_max(vu8 a, vu8 b) { return _mm_max_epu8(a, b); }
CNA__VEC uint8_t vu8_max_byte(vu8 a)
{
    a = _mm_max_epu8(a, _mm_srli_si128(a, 8));
    a = _mm_max_epu8(a, _mm_srli_si128(a, 4));
    a = _mm_max_epu8(a, _mm_srli_epi32(a, 16));
    a = _mm_max_epu8(a, _mm_srli_epi32(a, 8));
    return (uint8_t)(_mm_cvtsi128_si32(a) & 0xFF);
}
#endif

/* ------------------------------------------------------------------ 32-bit integers
 * vi4: four int32 lanes (two's complement). cmpeq / cmpgt (signed): all
 * ones where true; vi4_any: whether any bit of any lane is set. */
#if CNA__VEC_IMPL == CNA__VEC_SCALAR_IMPL
typedef struct vi4 {
    int32_t i[4];
} vi4;
#define CNA__ILANES(expr) \
    vi4 r_;               \
    for (int k = 0; k < 4; k++) r_.i[k] = (expr); \
    return r_
CNA__VEC vi4 vi4_loadu(const void *p) { vi4 r; memcpy(r.i, p, sizeof r.i); return r; }
CNA__VEC vi4 vi4_zero(void) { CNA__ILANES(0); }
CNA__VEC vi4 vi4_set1(int32_t x) { CNA__ILANES(x); }
CNA__VEC vi4 vi4_setr(int32_t a, int32_t b, int32_t c, int32_t d)
{
    vi4 r = {{a, b, c, d}};
    return r;
}
CNA__VEC vi4 vi4_add(vi4 a, vi4 b) { CNA__ILANES((int32_t)((uint32_t)a.i[k] + (uint32_t)b.i[k])); }
CNA__VEC vi4 vi4_and(vi4 a, vi4 b) { CNA__ILANES(a.i[k] & b.i[k]); }
CNA__VEC vi4 vi4_or(vi4 a, vi4 b) { CNA__ILANES(a.i[k] | b.i[k]); }
CNA__VEC vi4 vi4_cmpeq(vi4 a, vi4 b) { CNA__ILANES(a.i[k] == b.i[k] ? -1 : 0); }
CNA__VEC vi4 vi4_cmpgt(vi4 a, vi4 b) { CNA__ILANES(a.i[k] > b.i[k] ? -1 : 0); }
CNA__VEC int vi4_any(vi4 a) { return (a.i[0] | a.i[1] | a.i[2] | a.i[3]) != 0; }
#undef CNA__ILANES
#else
typedef __m128i vi4;
CNA__VEC vi4 vi4_loadu(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
CNA__VEC vi4 vi4_zero(void) { return _mm_setzero_si128(); }
CNA__VEC vi4 vi4_set1(int32_t x) { return _mm_set1_epi32(x); }
CNA__VEC vi4 vi4_setr(int32_t a, int32_t b, int32_t c, int32_t d) { return _mm_setr_epi32(a, b, c, d); }
CNA__VEC vi4 vi4_add(vi4 a, vi4 b) { return _mm_add_epi32(a, b); }
CNA__VEC vi4 vi4_and(vi4 a, vi4 b) { return _mm_and_si128(a, b); }
CNA__VEC vi4 vi4_or(vi4 a, vi4 b) { return _mm_or_si128(a, b); }
CNA__VEC vi4 vi4_cmpeq(vi4 a, vi4 b) { return _mm_cmpeq_epi32(a, b); }
CNA__VEC vi4 vi4_cmpgt(vi4 a, vi4 b) { return _mm_cmpgt_epi32(a, b); }
CNA__VEC int vi4_any(vi4 a) { return _mm_movemask_epi8(_mm_cmpeq_epi32(a, _mm_setzero_si128())) != 0xFFFF; }
#endif

/* ------------------------------------------------------------------ doubles
 * vd4: four doubles. vd4_cmple: all ones where a <= b; vd4_select(m, a, b):
 * a where m, else b; vd4_from_vf4 / vf4_from_vd4: each lane converted
 * (float to double exactly, double to float rounded to nearest). */
#if CNA__VEC_IMPL == CNA__VEC_SCALAR_IMPL
typedef struct vd4 {
    double d[4];
} vd4;
#define CNA__DLANES(expr) \
    vd4 r_;               \
    for (int k = 0; k < 4; k++) r_.d[k] = (expr); \
    return r_
CNA__VEC uint64_t cna__dbits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}
CNA__VEC double cna__dfrom(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}
CNA__VEC vd4 vd4_loadu(const double *p) { vd4 r; memcpy(r.d, p, sizeof r.d); return r; }
CNA__VEC vd4 vd4_set1(double x) { CNA__DLANES(x); }
CNA__VEC vd4 vd4_add(vd4 a, vd4 b) { CNA__DLANES(a.d[k] + b.d[k]); }
CNA__VEC vd4 vd4_sub(vd4 a, vd4 b) { CNA__DLANES(a.d[k] - b.d[k]); }
CNA__VEC vd4 vd4_mul(vd4 a, vd4 b) { CNA__DLANES(a.d[k] * b.d[k]); }
CNA__VEC vd4 vd4_sqrt(vd4 a) { CNA__DLANES(sqrt(a.d[k])); }
CNA__VEC vd4 vd4_cmple(vd4 a, vd4 b) { CNA__DLANES(cna__dfrom(a.d[k] <= b.d[k] ? ~(uint64_t)0 : 0)); }
CNA__VEC vd4 vd4_select(vd4 m, vd4 a, vd4 b)
{
    CNA__DLANES(cna__dfrom((cna__dbits(m.d[k]) & cna__dbits(a.d[k])) |
                           (~cna__dbits(m.d[k]) & cna__dbits(b.d[k]))));
}
CNA__VEC vd4 vd4_from_vf4(vf4 a) { CNA__DLANES((double)a.f[k]); }
CNA__VEC vf4 vf4_from_vd4(vd4 a)
{
    vf4 r;
    for (int k = 0; k < 4; k++) r.f[k] = (float)a.d[k];
    return r;
}
#undef CNA__DLANES
#elif CNA__VEC_IMPL == CNA__VEC_SSE2_IMPL
typedef struct vd4 {
    __m128d lo, hi;
} vd4;
#define CNA__DHALVES(lo_, hi_) \
    vd4 r_ = {lo_, hi_};        \
    return r_
CNA__VEC vd4 vd4_loadu(const double *p) { CNA__DHALVES(_mm_loadu_pd(p), _mm_loadu_pd(p + 2)); }
CNA__VEC vd4 vd4_set1(double x) { CNA__DHALVES(_mm_set1_pd(x), _mm_set1_pd(x)); }
CNA__VEC vd4 vd4_add(vd4 a, vd4 b) { CNA__DHALVES(_mm_add_pd(a.lo, b.lo), _mm_add_pd(a.hi, b.hi)); }
CNA__VEC vd4 vd4_sub(vd4 a, vd4 b) { CNA__DHALVES(_mm_sub_pd(a.lo, b.lo), _mm_sub_pd(a.hi, b.hi)); }
CNA__VEC vd4 vd4_mul(vd4 a, vd4 b) { CNA__DHALVES(_mm_mul_pd(a.lo, b.lo), _mm_mul_pd(a.hi, b.hi)); }
CNA__VEC vd4 vd4_sqrt(vd4 a) { CNA__DHALVES(_mm_sqrt_pd(a.lo), _mm_sqrt_pd(a.hi)); }
CNA__VEC vd4 vd4_cmple(vd4 a, vd4 b) { CNA__DHALVES(_mm_cmple_pd(a.lo, b.lo), _mm_cmple_pd(a.hi, b.hi)); }
CNA__VEC vd4 vd4_select(vd4 m, vd4 a, vd4 b)
{
    CNA__DHALVES(_mm_or_pd(_mm_and_pd(m.lo, a.lo), _mm_andnot_pd(m.lo, b.lo)),
                 _mm_or_pd(_mm_and_pd(m.hi, a.hi), _mm_andnot_pd(m.hi, b.hi)));
}
CNA__VEC vd4 vd4_from_vf4(vf4 a) { CNA__DHALVES(_mm_cvtps_pd(a), _mm_cvtps_pd(_mm_movehl_ps(a, a))); }
CNA__VEC vf4 vf4_from_vd4(vd4 a) { return _mm_movelh_ps(_mm_cvtpd_ps(a.lo), _mm_cvtpd_ps(a.hi)); }
#undef CNA__DHALVES
#else
typedef __m256d vd4;
CNA__VEC vd4 vd4_loadu(const double *p) { return _mm256_loadu_pd(p); }
CNA__VEC vd4 vd4_set1(double x) { return _mm256_set1_pd(x); }
CNA__VEC vd4 vd4_add(vd4 a, vd4 b) { return _mm256_add_pd(a, b); }
CNA__VEC vd4 vd4_sub(vd4 a, vd4 b) { return _mm256_sub_pd(a, b); }
CNA__VEC vd4 vd4_mul(vd4 a, vd4 b) { return _mm256_mul_pd(a, b); }
CNA__VEC vd4 vd4_sqrt(vd4 a) { return _mm256_sqrt_pd(a); }
CNA__VEC vd4 vd4_cmple(vd4 a, vd4 b) { return _mm256_cmp_pd(a, b, _CMP_LE_OS); }
CNA__VEC vd4 vd4_select(vd4 m, vd4 a, vd4 b) { return _mm256_blendv_pd(b, a, m); }
CNA__VEC vd4 vd4_from_vf4(vf4 a) { return _mm256_cvtps_pd(a); }
CNA__VEC vf4 vf4_from_vd4(vd4 a) { return _mm256_cvtpd_ps(a); }
#endif

/* vd2: two doubles (the paired sine of the slerp). vd2_from_vf4: lanes 0
 * and 1 converted; vf4_from_vd2: both rounded to float into lanes 0 and 1
 * (lanes 2 and 3 zero). */
#if CNA__VEC_IMPL == CNA__VEC_SCALAR_IMPL
typedef struct vd2 {
    double d[2];
} vd2;
CNA__VEC vd2 vd2_set1(double x) { vd2 r = {{x, x}}; return r; }
CNA__VEC vd2 vd2_add(vd2 a, vd2 b) { vd2 r = {{a.d[0] + b.d[0], a.d[1] + b.d[1]}}; return r; }
CNA__VEC vd2 vd2_mul(vd2 a, vd2 b) { vd2 r = {{a.d[0] * b.d[0], a.d[1] * b.d[1]}}; return r; }
CNA__VEC vd2 vd2_from_vf4(vf4 a) { vd2 r = {{(double)a.f[0], (double)a.f[1]}}; return r; }
CNA__VEC vf4 vf4_from_vd2(vd2 a) { return vf4_setr((float)a.d[0], (float)a.d[1], 0.0f, 0.0f); }
#else
typedef __m128d vd2;
CNA__VEC vd2 vd2_set1(double x) { return _mm_set1_pd(x); }
CNA__VEC vd2 vd2_add(vd2 a, vd2 b) { return _mm_add_pd(a, b); }
CNA__VEC vd2 vd2_mul(vd2 a, vd2 b) { return _mm_mul_pd(a, b); }
CNA__VEC vd2 vd2_from_vf4(vf4 a) { return _mm_cvtps_pd(a); }
CNA__VEC vf4 vf4_from_vd2(vd2 a) { return _mm_cvtpd_ps(a); }
#endif

#endif /* CNA_CORE_VEC_H */
