/*
 * Reference CPU skinning (include/cna/skinning.h): linear blend skinning with
 * four influences, in the exact arithmetic the header documents.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "cna/skinning.h"
#include "core/internal.h"
#include "model/skinning_internal.h"

/* CNA_NO_SIMD (defined at compile time) removes the SSE2 code below; the
 * scalar code is always compiled (and tested: cna__skin_vertices_fast_path). */
#include "core/simd.h"
#if CNA__SIMD_SSE2
#define CNA__SKIN_SSE2 1
#include <emmintrin.h>
#else
#define CNA__SKIN_SSE2 0
#endif

/* The AVX2 + FMA kernel: compiled (gcc / clang on x86) with a per-function
 * target attribute, never for the whole file, and run only when the CPU has
 * both (cpu_has_avx2_fma). */
#if CNA__SKIN_SSE2 && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define CNA__SKIN_AVX2 1
#include <immintrin.h>
#define CNA__AVX2_FMA __attribute__((target("avx2,fma")))
#else
#define CNA__SKIN_AVX2 0
#endif

cna_result cna_skinning_layout_canonical(uint32_t stride, cna_skinning_layout *out,
                                         cna_error *err)
{
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: NULL");
    cna_skinning_layout l;
    l.stride = stride;
    l.position_offset = 0;
    l.normal_offset = 12;
    switch (stride) {
    case 52:
    case 56: l.tangent_offset = -1; l.joints_offset = 32; break;
    case 68: l.tangent_offset = 32; l.joints_offset = 48; break;
    case 76: l.tangent_offset = 32; l.joints_offset = 56; break;
    case 80: l.tangent_offset = 32; l.joints_offset = 60; break;
    default:
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "stride: %u is not a canonical skinned stride (52, 56, 68, 76, 80)",
                          (unsigned)stride);
    }
    l.weights_offset = l.joints_offset + 4;
    *out = l;
    return CNA_OK;
}

static cna_result check_slot(const cna_skinning_layout *l, int32_t offset, size_t size,
                             bool required, const char *name, cna_error *err)
{
    if (offset < 0) {
        if (!required) return CNA_OK;
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layout.%s: %d; this slot is required",
                          name, (int)offset);
    }
    if ((size_t)offset + size > l->stride)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "layout.%s: %d + %zu bytes exceeds stride %u", name, (int)offset, size,
                          (unsigned)l->stride);
    return CNA_OK;
}

/* The largest palette index among count vertices' four joint bytes (count > 0). */
static uint8_t max_joint(const unsigned char *v, size_t count, size_t stride, int32_t offset)
{
    v += offset;
#if CNA__SKIN_SSE2
    __m128i acc = _mm_setzero_si128();
    size_t i = 0;
    for (; i + 4 <= count; i += 4, v += 4 * stride) { /* four vertices' joints in one register */
        int32_t j0, j1, j2, j3;
        memcpy(&j0, v, sizeof j0);
        memcpy(&j1, v + stride, sizeof j1);
        memcpy(&j2, v + 2 * stride, sizeof j2);
        memcpy(&j3, v + 3 * stride, sizeof j3);
        const __m128i j01 = _mm_unpacklo_epi32(_mm_cvtsi32_si128(j0), _mm_cvtsi32_si128(j1));
        const __m128i j23 = _mm_unpacklo_epi32(_mm_cvtsi32_si128(j2), _mm_cvtsi32_si128(j3));
        acc = _mm_max_epu8(acc, _mm_unpacklo_epi64(j01, j23));
    }
    acc = _mm_max_epu8(acc, _mm_srli_si128(acc, 8));
    acc = _mm_max_epu8(acc, _mm_srli_si128(acc, 4));
    for (; i < count; i++, v += stride) {
        int32_t j;
        memcpy(&j, v, sizeof j);
        acc = _mm_max_epu8(acc, _mm_cvtsi32_si128(j));
    }
    acc = _mm_max_epu8(acc, _mm_srli_epi32(acc, 16));
    acc = _mm_max_epu8(acc, _mm_srli_epi32(acc, 8));
    return (uint8_t)(_mm_cvtsi128_si32(acc) & 0xFF);
#else
    uint8_t m = 0;
    for (size_t i = 0; i < count; i++, v += stride)
        for (int k = 0; k < 4; k++) m = v[k] > m ? v[k] : m;
    return m;
#endif
}

/* *reach (when not NULL): how many palette entries, from the first, the
 * vertices' joint indices can name (the largest index + 1, or all when
 * that was not computed; at most 256). */
static cna_result check_inputs(const cna_skinning_layout *l, const void *vertices, size_t count,
                               const cna_mat4 *palette, size_t palette_count, size_t *bytes,
                               size_t *reach, cna_error *err)
{
    if (reach) *reach = palette_count < 256 ? palette_count : 256;
    if (!l) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layout: NULL");
    if (l->stride == 0) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layout.stride: 0");
    cna_result r;
    if ((r = check_slot(l, l->position_offset, 12, true, "position_offset", err)) ||
        (r = check_slot(l, l->normal_offset, 12, false, "normal_offset", err)) ||
        (r = check_slot(l, l->tangent_offset, 16, false, "tangent_offset", err)) ||
        (r = check_slot(l, l->joints_offset, 4, true, "joints_offset", err)) ||
        (r = check_slot(l, l->weights_offset, 16, true, "weights_offset", err)))
        return r;
    if (!cna__mul_size(count, l->stride, bytes))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "vertex_count: %zu * stride %u overflows", count, (unsigned)l->stride);
    if (count > 0 && !vertices)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "vertices: NULL with vertex_count %zu",
                          count);
    if (palette_count > 0 && !palette)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "palette: NULL with palette_count %zu",
                          palette_count);
    if (palette_count > UINT8_MAX || count == 0) return CNA_OK; /* every index is below it */
    const uint8_t top = max_joint(vertices, count, l->stride, l->joints_offset);
    if (top < palette_count) {
        if (reach) *reach = (size_t)top + 1;
        return CNA_OK;
    }
    const unsigned char *v = vertices;
    for (size_t i = 0; i < count; i++, v += l->stride) {
        uint8_t j[4];
        memcpy(j, v + l->joints_offset, sizeof j);
        for (int k = 0; k < 4; k++)
            if (j[k] >= palette_count)
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                                  "vertices[%zu].joints[%d]: palette index %u is not below "
                                  "palette_count %zu",
                                  i, k, (unsigned)j[k], palette_count);
    }
    return CNA_OK;
}

/* sum = sum + w · (M · (x, y, z, h)), row by row in the documented order. */
static void accumulate(float sum[3], const cna_mat4 *M, const float x[3], bool point, float w)
{
    const float *m = M->m;
    for (int r = 0; r < 3; r++) {
        float c = m[r] * x[0] + m[4 + r] * x[1];
        c = c + m[8 + r] * x[2];
        if (point) c = c + m[12 + r];
        sum[r] = sum[r] + w * c;
    }
}

static void normalize_or_keep(float v[3])
{
    const float len2 = (v[0] * v[0] + v[1] * v[1]) + v[2] * v[2];
    if (!(len2 > 0.0f) || !(len2 <= FLT_MAX)) return;
    const float len = sqrtf(len2);
    if (!(len > 0.0f)) return;
    v[0] = v[0] / len;
    v[1] = v[1] / len;
    v[2] = v[2] / len;
}

/* Skin the 3-float slot at `offset` of one vertex into out3. */
static void skin_slot(const unsigned char *vertex, int32_t offset, const uint8_t j[4],
                      const float w[4], const cna_mat4 *palette, bool point, float out3[3])
{
    float x[3];
    memcpy(x, vertex + offset, sizeof x);
    out3[0] = out3[1] = out3[2] = 0.0f;
    for (int i = 0; i < 4; i++) {
        if (w[i] == 0.0f) continue;
        accumulate(out3, &palette[j[i]], x, point, w[i]);
    }
    if (!point) normalize_or_keep(out3);
}

static void read_influences(const cna_skinning_layout *l, const unsigned char *vertex,
                            uint8_t j[4], float w[4])
{
    memcpy(j, vertex + l->joints_offset, 4);
    memcpy(w, vertex + l->weights_offset, 4 * sizeof(float));
}

cna_result cna_skin_vertices(const cna_skinning_layout *layout, const void *vertices,
                             size_t vertex_count, const cna_mat4 *palette, size_t palette_count,
                             void *out, size_t out_size, cna_error *err)
{
    size_t bytes = 0;
    cna_result r = check_inputs(layout, vertices, vertex_count, palette, palette_count, &bytes, NULL, err);
    if (r != CNA_OK) return r;
    if (out_size < bytes)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out: %zu bytes; %zu vertices of stride %u need %zu", out_size,
                          vertex_count, (unsigned)layout->stride, bytes);
    if (bytes == 0) return CNA_OK;
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: NULL");
    const uintptr_t o = (uintptr_t)out, b = (uintptr_t)vertices;
    if (o < b + bytes && b < o + bytes)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: overlaps vertices (%zu bytes)",
                          bytes);
    memcpy(out, vertices, bytes);
    const unsigned char *in = vertices;
    unsigned char *dst = out;
    const size_t stride = layout->stride;
    for (size_t v = 0; v < vertex_count; v++, in += stride, dst += stride) {
        uint8_t j[4];
        float w[4], res[3];
        read_influences(layout, in, j, w);
        skin_slot(in, layout->position_offset, j, w, palette, true, res);
        memcpy(dst + layout->position_offset, res, sizeof res);
        if (layout->normal_offset >= 0) {
            skin_slot(in, layout->normal_offset, j, w, palette, false, res);
            memcpy(dst + layout->normal_offset, res, sizeof res);
        }
        if (layout->tangent_offset >= 0) {
            skin_slot(in, layout->tangent_offset, j, w, palette, false, res);
            memcpy(dst + layout->tangent_offset, res, sizeof res); /* w (handedness) kept */
        }
    }
    return CNA_OK;
}

cna_result cna_skin_positions(const cna_skinning_layout *layout, const void *vertices,
                              size_t vertex_count, const cna_mat4 *palette, size_t palette_count,
                              float *out_xyz, size_t out_count, cna_error *err)
{
    size_t bytes = 0, floats = 0;
    cna_result r = check_inputs(layout, vertices, vertex_count, palette, palette_count, &bytes, NULL, err);
    if (r != CNA_OK) return r;
    if (!cna__mul_size(vertex_count, 3, &floats) || out_count < floats)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out_count: %zu floats; %zu vertices need 3 each", out_count,
                          vertex_count);
    if (floats == 0) return CNA_OK;
    if (!out_xyz) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out_xyz: NULL");
    const uintptr_t o = (uintptr_t)out_xyz, b = (uintptr_t)vertices;
    if (o < b + bytes && b < o + floats * sizeof(float))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out_xyz: overlaps vertices");
    const unsigned char *in = vertices;
    for (size_t v = 0; v < vertex_count; v++, in += layout->stride) {
        uint8_t j[4];
        float w[4];
        read_influences(layout, in, j, w);
        skin_slot(in, layout->position_offset, j, w, palette, true, out_xyz + 3 * v);
    }
    return CNA_OK;
}

/* ------------------------------------------------------------------ fast path
 *
 * cna_skin_vertices_fast: the same checks and refusals as cna_skin_vertices
 * (check_inputs and check_out, shared), then per vertex:
 *   B = sum_i w[i] · M_i (the 4x4 as four columns; only the top three rows
 *       are used; an influence of weight exactly 0 adds nothing)
 *   p' = B · (p, 1), n' = normalize(B · (n, 0)), t' = normalize(B · (t, 0))
 * which is the reference formula re-associated (one blended matrix instead
 * of four transformed points), so it rounds differently; the header gives
 * the bound. Three kernels compute it:
 * SSE2 kernel: a column of B is (w0·m0 + w1·m1) + (w2·m2 + w3·m3), four
 * lanes at once; B · x is (b0·x + b1·y) + (b2·z [+ b3]). Directions are
 * normalised two vertices at a time with a reciprocal square root estimate
 * refined by one Newton-Raphson step. For the canonical layouts the
 * offsets are compile-time constants, each vertex's bytes are copied in the
 * loop (all but the position and normal, which are written whole), and when
 * every palette entry a byte index can reach is finite a zero-weight
 * influence is multiplied by 0 (adding a zero) instead of tested; otherwise
 * (other layouts, or a non-finite entry) a zero weight selects a zero
 * matrix, so the entry is never read, as in the reference.
 * AVX2 + FMA kernel (run when the CPU has both): the same structure, with
 * B's columns two by two in 256-bit registers, (c0 c1) and (c2 c3), each
 * the fused chain ((w0·m0 + w1·m1) + w2·m2) + w3·m3 (4 instructions per
 * pair of columns); B · x = b0·x + (b1·y + (b2·z [+ b3])) as fused
 * multiply-adds of broadcast x, y, z; the directions of two vertices
 * normalised in one 256-bit register (rsqrt + one Newton step). Canonical
 * layouts with a finite palette: each palette entry addressed by a byte
 * load and a shift (no zero test), position and normal from one 32-byte
 * load into (p' | B · (n, 0)) in one register (vertex_pn_avx2), 16-byte
 * stores per slot and the rest of each vertex copied in 32-byte moves; the
 * bytes a wide store or copy puts past a slot (the next slot's, or the next
 * vertex's first 28 bytes) are rewritten right after, and the last vertex
 * is copied exactly, so nothing outside out is written.
 * Scalar kernel: the same B (sequential sum, zero weights skipped), then
 * 1 / sqrtf and three multiplies.
 * Every kernel: a squared length that is 0, subnormal or not finite takes
 * the reference's normalize_or_keep.
 * CNA_NO_SIMD (defined at compile time) removes the SSE2 and AVX2 kernels;
 * the scalar kernel is always compiled and the tests run every kernel the
 * build and the machine have (cna__skin_vertices_fast_path). */

/* Kernel numbers of the test and benchmark hooks below. */
enum { KERNEL_SCALAR = 0, KERNEL_SSE2 = 1, KERNEL_AVX2 = 2, KERNEL_COUNT = 3 };

/* Test and benchmark hooks: src/model/skinning_internal.h. */

#if CNA__SKIN_SSE2
/* The canonical layouts as constants (cna_skinning_layout_canonical): a
 * SIMD kernel given one of these folds its offsets into its instructions. */
static const cna_skinning_layout k52 = {52, 0, 12, -1, 32, 36}, k56 = {56, 0, 12, -1, 32, 36},
                                 k68 = {68, 0, 12, 32, 48, 52}, k76 = {76, 0, 12, 32, 56, 60},
                                 k80 = {80, 0, 12, 32, 60, 64};

/* The canonical layout constant equal to l, or NULL. */
static const cna_skinning_layout *canonical_constant(const cna_skinning_layout *l)
{
    const cna_skinning_layout *k = NULL;
    switch (l->stride) {
    case 52: k = &k52; break;
    case 56: k = &k56; break;
    case 68: k = &k68; break;
    case 76: k = &k76; break;
    case 80: k = &k80; break;
    default: return NULL;
    }
    return k->position_offset == l->position_offset && k->normal_offset == l->normal_offset &&
                   k->tangent_offset == l->tangent_offset &&
                   k->joints_offset == l->joints_offset && k->weights_offset == l->weights_offset
               ? k
               : NULL;
}
#endif

/* Scalar kernel. b[4 * c + r]: row r (0..2) of column c of the blend. */
static void blend_scalar(const cna_mat4 *palette, const uint8_t j[4], const float w[4],
                         float b[16])
{
    for (int k = 0; k < 16; k++) b[k] = 0.0f;
    for (int i = 0; i < 4; i++) {
        if (w[i] == 0.0f) continue;
        const float *m = palette[j[i]].m;
        for (int k = 0; k < 16; k++) b[k] = b[k] + w[i] * m[k];
    }
}

/* r = B · (x, h) for the 3 floats x at src (h = 1 when point, else 0). */
static void apply_scalar(const float b[16], const unsigned char *src, bool point, float r[3])
{
    float x[3];
    memcpy(x, src, sizeof x);
    for (int c = 0; c < 3; c++) {
        r[c] = b[c] * x[0] + b[4 + c] * x[1] + b[8 + c] * x[2];
        if (point) r[c] = r[c] + b[12 + c];
    }
}

/* B · (x, h) from src to dst, a direction (not point) normalised when `normalize`. */
static void transform_scalar_to(const float b[16], const unsigned char *src, unsigned char *dst,
                                bool point, bool normalize)
{
    float r[3];
    apply_scalar(b, src, point, r);
    if (!point && normalize) {
        const float len2 = (r[0] * r[0] + r[1] * r[1]) + r[2] * r[2];
        if (len2 >= FLT_MIN && len2 <= FLT_MAX) {
            const float inv = 1.0f / sqrtf(len2);
            r[0] *= inv;
            r[1] *= inv;
            r[2] *= inv;
        } else {
            normalize_or_keep(r);
        }
    }
    memcpy(dst, r, sizeof r);
}

static void transform_scalar(const float b[16], const unsigned char *src, unsigned char *dst,
                             bool point)
{
    transform_scalar_to(b, src, dst, point, true);
}

static void skin_fast_scalar(const cna_skinning_layout *l, const unsigned char *in,
                             unsigned char *dst, size_t count, const cna_mat4 *palette)
{
    const size_t stride = l->stride;
    for (size_t v = 0; v < count; v++, in += stride, dst += stride) {
        uint8_t j[4];
        float w[4], b[16];
        read_influences(l, in, j, w);
        blend_scalar(palette, j, w, b);
        transform_scalar(b, in + l->position_offset, dst + l->position_offset, true);
        if (l->normal_offset >= 0)
            transform_scalar(b, in + l->normal_offset, dst + l->normal_offset, false);
        if (l->tangent_offset >= 0)
            transform_scalar(b, in + l->tangent_offset, dst + l->tangent_offset, false);
    }
}

#if CNA__SKIN_SSE2
/* Lanes 0..2 of v to dst (12 bytes; dst needs no alignment). */
static inline void store3(unsigned char *dst, __m128 v)
{
    _mm_storel_epi64((__m128i *)(void *)dst, _mm_castps_si128(v));
    const float z = _mm_cvtss_f32(_mm_movehl_ps(v, v));
    memcpy(dst + 8, &z, sizeof z);
}

/* Lane i of x in every lane (pshufd: one instruction, no register copy). */
#define CNA__SPLAT(x, i) \
    _mm_castsi128_ps(_mm_shuffle_epi32(_mm_castps_si128(x), (i) * 0x55))

/* The 3 floats at src in lanes 0..2: one 16-byte load when `wide` (the slot
 * has 4 bytes after it inside the vertex), else three scalar reads. */
static inline __m128 load3(const unsigned char *src, bool wide)
{
    if (wide) return _mm_loadu_ps((const float *)(const void *)src);
    float x[3];
    memcpy(x, src, sizeof x);
    return _mm_setr_ps(x[0], x[1], x[2], 0.0f);
}

/* B · (x, h): h = 1 adds the translation column. */
static inline __m128 apply(const __m128 b[4], __m128 x, bool point)
{
    const __m128 r = _mm_add_ps(_mm_mul_ps(b[0], CNA__SPLAT(x, 0)),
                                _mm_mul_ps(b[1], CNA__SPLAT(x, 1)));
    const __m128 z = _mm_mul_ps(b[2], CNA__SPLAT(x, 2));
    return _mm_add_ps(r, point ? _mm_add_ps(z, b[3]) : z);
}

/* Normalise r (lanes 0..2) into dst. */
static inline void finish_direction(__m128 r, unsigned char *dst)
{
    const __m128 sq = _mm_mul_ps(r, r);
    const __m128 len2 = _mm_add_ss(_mm_add_ss(sq, CNA__SPLAT(sq, 1)), CNA__SPLAT(sq, 2));
    /* FLT_MIN <= len2 <= FLT_MAX (so positive and normal) as one unsigned
     * compare of its bits: 0x00800000 is FLT_MIN's, 0x7F7FFFFF FLT_MAX's. */
    const uint32_t bits = (uint32_t)_mm_cvtsi128_si32(_mm_castps_si128(len2));
    if (bits - 0x00800000u <= 0x7F7FFFFFu - 0x00800000u) {
        /* e = rsqrt estimate (relative error <= 1.5 · 2^-12); one Newton step
         * e · (1.5 - ((0.5 · len2) · e) · e) squares that error. */
        const __m128 e = _mm_rsqrt_ss(len2);
        const __m128 h = _mm_mul_ss(_mm_mul_ss(_mm_mul_ss(_mm_set_ss(0.5f), len2), e), e);
        __m128 inv = _mm_mul_ss(e, _mm_sub_ss(_mm_set_ss(1.5f), h));
        inv = CNA__SPLAT(inv, 0);
        store3(dst, _mm_mul_ps(r, inv));
    } else {
        float v[4];
        _mm_storeu_ps(v, r);
        normalize_or_keep(v);
        memcpy(dst, v, 3 * sizeof(float));
    }
}

/* finish_direction for two directions at once (the squared lengths in lanes
 * 0 and 1; the same arithmetic per lane). */
static inline void finish_pair(__m128 a, __m128 b, unsigned char *da, unsigned char *db)
{
    const __m128 sa = _mm_mul_ps(a, a), sb = _mm_mul_ps(b, b);
    const __m128 lo = _mm_unpacklo_ps(sa, sb); /* a0 b0 a1 b1 */
    const __m128 hi = _mm_unpackhi_ps(sa, sb); /* a2 b2 a3 b3 */
    const __m128 len2 = _mm_add_ps(_mm_add_ps(lo, _mm_movehl_ps(lo, lo)), hi);
    /* both in [FLT_MIN, FLT_MAX]: bits > 0x007FFFFF and < 0x7F800000 as signed */
    const __m128i bits = _mm_castps_si128(len2);
    const __m128i ok = _mm_and_si128(_mm_cmpgt_epi32(bits, _mm_set1_epi32(0x007FFFFF)),
                                     _mm_cmplt_epi32(bits, _mm_set1_epi32(0x7F800000)));
    if ((_mm_movemask_epi8(ok) & 0xFF) != 0xFF) {
        finish_direction(a, da);
        finish_direction(b, db);
        return;
    }
    const __m128 e = _mm_rsqrt_ps(len2);
    const __m128 h = _mm_mul_ps(_mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), len2), e), e);
    const __m128 inv = _mm_mul_ps(e, _mm_sub_ps(_mm_set1_ps(1.5f), h));
    store3(da, _mm_mul_ps(a, CNA__SPLAT(inv, 0)));
    store3(db, _mm_mul_ps(b, CNA__SPLAT(inv, 1)));
}

/* Read by an influence of weight exactly 0 instead of its palette entry
 * (0 · 0 adds nothing, and the entry is never read, as in the reference). */
static _Alignas(16) const float zero_matrix[16];

/* w_bits: the weight's bits; w == 0 (either sign) exactly when no bit but
 * the sign is set (an integer test, so the choice compiles to a select). */
static inline const float *influence_matrix(const cna_mat4 *palette, uint8_t j, uint32_t w_bits,
                                           bool skip_zero)
{
    /* byte arithmetic: lets the compiler fold base + 64 · j into the loads */
    const float *m = (const float *)(const void *)((const unsigned char *)palette +
                                                   (size_t)j * sizeof(cna_mat4));
    if (!skip_zero) return m;
    return (w_bits << 1) != 0 ? m : zero_matrix;
}

/* 4 floats at m; `aligned` (m 16-byte aligned) lets the load fold into the multiply. */
static inline __m128 load4(const float *m, bool aligned)
{
    return aligned ? _mm_load_ps(m) : _mm_loadu_ps(m);
}

/* (w0 · m0[c] + w1 · m1[c]) + (w2 · m2[c] + w3 · m3[c]), column c. */
static inline __m128 blend_column(const float *m0, const float *m1, const float *m2,
                                  const float *m3, __m128 s0, __m128 s1, __m128 s2, __m128 s3,
                                  int c, bool aligned)
{
    const __m128 a01 = _mm_add_ps(_mm_mul_ps(s0, load4(m0 + c, aligned)),
                                  _mm_mul_ps(s1, load4(m1 + c, aligned)));
    const __m128 a23 = _mm_add_ps(_mm_mul_ps(s2, load4(m2 + c, aligned)),
                                  _mm_mul_ps(s3, load4(m3 + c, aligned)));
    return _mm_add_ps(a01, a23);
}

/* The blend B of one vertex whose joints and weights are at j_src, w_src. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void blend_sse2(const unsigned char *j_src, const unsigned char *w_src,
                              const cna_mat4 *palette, bool skip_zero, bool aligned, __m128 b[4])
{
    const __m128 wv = _mm_loadu_ps((const float *)(const void *)w_src);
    uint8_t j[4];
    uint32_t wb[4];
    memcpy(j, j_src, sizeof j);
    memcpy(wb, w_src, sizeof wb);
    const float *m0 = influence_matrix(palette, j[0], wb[0], skip_zero);
    const float *m1 = influence_matrix(palette, j[1], wb[1], skip_zero);
    const float *m2 = influence_matrix(palette, j[2], wb[2], skip_zero);
    const float *m3 = influence_matrix(palette, j[3], wb[3], skip_zero);
    const __m128 s0 = CNA__SPLAT(wv, 0), s1 = CNA__SPLAT(wv, 1);
    const __m128 s2 = CNA__SPLAT(wv, 2), s3 = CNA__SPLAT(wv, 3);
    b[0] = blend_column(m0, m1, m2, m3, s0, s1, s2, s3, 0, aligned);
    b[1] = blend_column(m0, m1, m2, m3, s0, s1, s2, s3, 4, aligned);
    b[2] = blend_column(m0, m1, m2, m3, s0, s1, s2, s3, 8, aligned);
    b[3] = blend_column(m0, m1, m2, m3, s0, s1, s2, s3, 12, aligned);
}

/* One vertex: copy (when copy > 0), blend, write p'; the unnormalised
 * directions B · (n, 0), B · (t, 0) to *n, *t (when present). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void vertex_sse2(const cna_skinning_layout *l, const unsigned char *in,
                               unsigned char *dst, const cna_mat4 *palette, bool has_n,
                               bool has_t, size_t copy, bool skip_zero, bool aligned, __m128 *n,
                               __m128 *t)
{
    const size_t stride = l->stride;
    const int32_t po = l->position_offset, no = l->normal_offset, to = l->tangent_offset;
    const int32_t jo = l->joints_offset, wo = l->weights_offset;
    /* position then normal at the start (the canonical layouts): those 24
     * bytes are all written below, so the copy starts after them */
    const bool pn_first = po == 0 && has_n && no == 12;
    if (copy) memcpy(dst + (pn_first ? 24 : 0), in + (pn_first ? 24 : 0), copy - (pn_first ? 24 : 0));
    __m128 b[4];
    blend_sse2(in + jo, in + wo, palette, skip_zero, aligned, b);
    const __m128 p = apply(b, load3(in + po, (size_t)po + 16 <= stride), true);
    if (pn_first) /* 16 bytes: the 4th lands on normal.x, written after */
        _mm_storeu_ps((float *)(void *)dst, p);
    else
        store3(dst + po, p);
    *n = has_n ? apply(b, load3(in + no, (size_t)no + 16 <= stride), false) : b[0];
    *t = has_t ? apply(b, load3(in + to, (size_t)to + 16 <= stride), false) : b[0];
}

/* One kernel instantiated per slot set (has_n, has_t constant) and, for the
 * canonical strides, per copy size: copy > 0 copies each vertex's `copy`
 * (= stride) bytes in the loop (a fixed-size copy, inlined); copy = 0 means
 * the caller copied the whole buffer first. skip_zero = false multiplies a
 * zero-weight influence's matrix by 0 instead of skipping it: only when the
 * whole palette is finite, where that adds a zero (palette_is_finite).
 * aligned: the palette is 16-byte aligned (aligned loads). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void skin_fast_sse2_kernel(const cna_skinning_layout *l, const unsigned char *in,
                                         unsigned char *dst, size_t count,
                                         const cna_mat4 *palette, bool has_n, bool has_t,
                                         size_t copy, bool skip_zero, bool aligned)
{
    const size_t stride = copy ? copy : l->stride;
    const int32_t no = l->normal_offset, to = l->tangent_offset;
    size_t v = 0;
    for (; v + 2 <= count; v += 2, in += 2 * stride, dst += 2 * stride) {
        __m128 n0, t0, n1, t1;
        vertex_sse2(l, in, dst, palette, has_n, has_t, copy, skip_zero, aligned, &n0, &t0);
        vertex_sse2(l, in + stride, dst + stride, palette, has_n, has_t, copy, skip_zero,
                    aligned, &n1, &t1);
        if (has_n) finish_pair(n0, n1, dst + no, dst + stride + no);
        if (has_t) finish_pair(t0, t1, dst + to, dst + stride + to);
    }
    if (v < count) {
        __m128 n0, t0;
        vertex_sse2(l, in, dst, palette, has_n, has_t, copy, skip_zero, aligned, &n0, &t0);
        if (has_n) finish_direction(n0, dst + no);
        if (has_t) finish_direction(t0, dst + to);
    }
}

/* Whether all entries of the palette are finite (then 0 · M = 0). */
static bool palette_is_finite(const cna_mat4 *palette, size_t count)
{
    const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF));
    const __m128 max = _mm_set1_ps(FLT_MAX);
    __m128 ok = _mm_castsi128_ps(_mm_set1_epi32(-1));
    if (count > 256) count = 256; /* joint indices are bytes: no other entry is read */
    for (size_t i = 0; i < count; i++)
        for (int c = 0; c < 16; c += 4) /* NaN compares false */
            ok = _mm_and_ps(ok, _mm_cmple_ps(_mm_and_ps(_mm_loadu_ps(palette[i].m + c), abs_mask),
                                             max));
    return _mm_movemask_ps(ok) == 0xF;
}

/* Kernel for canonical layout k (a constant), finite palette. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void skin_canonical(const cna_skinning_layout *k, const unsigned char *in,
                                  unsigned char *dst, size_t count, const cna_mat4 *palette,
                                  bool aligned)
{
    if (aligned)
        skin_fast_sse2_kernel(k, in, dst, count, palette, k->normal_offset >= 0,
                              k->tangent_offset >= 0, k->stride, false, true);
    else
        skin_fast_sse2_kernel(k, in, dst, count, palette, k->normal_offset >= 0,
                              k->tangent_offset >= 0, k->stride, false, false);
}

/* Returns false when it did not skin (the caller then copies the whole
 * buffer and calls skin_fast_sse2). */
static bool skin_fast_sse2_canonical(const cna_skinning_layout *l, const unsigned char *in,
                                     unsigned char *dst, size_t count, const cna_mat4 *palette,
                                     size_t palette_count)
{
    const cna_skinning_layout *k = canonical_constant(l);
    if (!k || !palette_is_finite(palette, palette_count)) return false;
    const bool aligned = ((uintptr_t)palette & 15) == 0;
    switch (k->stride) {
    case 52: skin_canonical(&k52, in, dst, count, palette, aligned); return true;
    case 56: skin_canonical(&k56, in, dst, count, palette, aligned); return true;
    case 68: skin_canonical(&k68, in, dst, count, palette, aligned); return true;
    case 76: skin_canonical(&k76, in, dst, count, palette, aligned); return true;
    case 80: skin_canonical(&k80, in, dst, count, palette, aligned); return true;
    default: return false;
    }
}

static void skin_fast_sse2(const cna_skinning_layout *l, const unsigned char *in,
                           unsigned char *dst, size_t count, const cna_mat4 *palette)
{
    const bool has_n = l->normal_offset >= 0, has_t = l->tangent_offset >= 0;
    if (has_n && has_t) skin_fast_sse2_kernel(l, in, dst, count, palette, true, true, 0, true, false);
    else if (has_n) skin_fast_sse2_kernel(l, in, dst, count, palette, true, false, 0, true, false);
    else if (has_t) skin_fast_sse2_kernel(l, in, dst, count, palette, false, true, 0, true, false);
    else skin_fast_sse2_kernel(l, in, dst, count, palette, false, false, 0, true, false);
}
#endif

#if CNA__SKIN_AVX2
/* Whether this CPU runs the AVX2 + FMA kernel (the compiler's CPU
 * detection also checks that the OS saves the 256-bit registers). */
static bool cpu_has_avx2_fma(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

#define CNA__AVX2_INLINE CNA__AVX2_FMA __attribute__((always_inline)) static inline

/* The float at src in all four lanes (one broadcast load). */
CNA__AVX2_INLINE __m128 bcast_avx2(const unsigned char *src)
{
    float f;
    memcpy(&f, src, sizeof f);
    return _mm_set1_ps(f);
}

/* 1 / sqrt(len2) in every lane: estimate e, then e · (1.5 - ((0.5 · len2) · e) · e)
 * (in that order: e · e alone could underflow for len2 near FLT_MAX). */
CNA__AVX2_INLINE __m256 rsqrt_newton_avx2(__m256 len2)
{
    const __m256 e = _mm256_rsqrt_ps(len2);
    const __m256 he = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), len2), e);
    return _mm256_mul_ps(e, _mm256_fnmadd_ps(he, e, _mm256_set1_ps(1.5f)));
}

/* The same arithmetic on four lanes (so one direction normalises to the same
 * bits alone or in a pair). */
CNA__AVX2_INLINE __m128 rsqrt_newton_avx2_128(__m128 len2)
{
    const __m128 e = _mm_rsqrt_ps(len2);
    const __m128 he = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), len2), e);
    return _mm_mul_ps(e, _mm_fnmadd_ps(he, e, _mm_set1_ps(1.5f)));
}

/* Lanes 0..2 of r normalised (lane 3 arbitrary). */
CNA__AVX2_INLINE __m128 normalize_one_avx2(__m128 r)
{
    const __m128 sq = _mm_mul_ps(r, r);
    const __m128 len2 = _mm_add_ps(_mm_add_ps(sq, _mm_permute_ps(sq, 0x55)),
                                   _mm_permute_ps(sq, 0xAA));
    const float l2 = _mm_cvtss_f32(len2);
    if (l2 >= FLT_MIN && l2 <= FLT_MAX)
        return _mm_mul_ps(r, _mm_permute_ps(rsqrt_newton_avx2_128(len2), 0x00));
    float v[4];
    _mm_storeu_ps(v, r);
    normalize_or_keep(v);
    return _mm_loadu_ps(v);
}

/* a and b normalised (lanes 0..2), two at once. */
CNA__AVX2_INLINE void normalize_pair_avx2(__m128 *a, __m128 *b)
{
    const __m256 v = _mm256_insertf128_ps(_mm256_castps128_ps256(*a), *b, 1);
    const __m256 sq = _mm256_mul_ps(v, v);
    const __m256 len2 = _mm256_add_ps(_mm256_add_ps(sq, _mm256_permute_ps(sq, 0x55)),
                                      _mm256_permute_ps(sq, 0xAA));
    /* both squared lengths (lanes 0 and 4) in [FLT_MIN, FLT_MAX], that is
     * their bits b in [0x00800000, 0x7F7FFFFF] (NaN and negative outside):
     * b - 0x00800000 below 0x7F000000 unsigned; with both sides' sign bits
     * flipped, as signed: b + 0x7F800000 below -0x01000000 (0xFF000000) */
    const __m256i bad = _mm256_cmpgt_epi32(
        _mm256_add_epi32(_mm256_castps_si256(len2), _mm256_set1_epi32(0x7F800000)),
        _mm256_set1_epi32(-0x01000001));
    if (_mm256_movemask_ps(_mm256_castsi256_ps(bad)) & 0x11) {
        *a = normalize_one_avx2(*a);
        *b = normalize_one_avx2(*b);
        return;
    }
    const __m256 r = _mm256_mul_ps(v, _mm256_permute_ps(rsqrt_newton_avx2(len2), 0x00));
    *a = _mm256_castps256_ps128(r);
    *b = _mm256_extractf128_ps(r, 1);
}

/* The palette as the AVX2 kernels read it. The loops copy it into a local
 * first, so that their stores (through byte pointers, which may alias
 * anything) do not make the compiler reload the pointer per vertex. */
typedef struct skin_palette {
    const cna_mat4 *palette;
} skin_palette;

/* One vertex's blend B: columns 0, 1 in *B01 and 2, 3 in *B23. */
CNA__AVX2_INLINE void blend_avx2(const cna_skinning_layout *l, const unsigned char *in,
                                 const skin_palette *pal, bool skip_zero, __m256 *B01,
                                 __m256 *B23)
{
    const float *m0, *m1, *m2, *m3;
    if (skip_zero) {
        uint8_t j[4];
        uint32_t wb[4];
        memcpy(j, in + l->joints_offset, sizeof j);
        memcpy(wb, in + l->weights_offset, sizeof wb);
        m0 = influence_matrix(pal->palette, j[0], wb[0], true);
        m1 = influence_matrix(pal->palette, j[1], wb[1], true);
        m2 = influence_matrix(pal->palette, j[2], wb[2], true);
        m3 = influence_matrix(pal->palette, j[3], wb[3], true);
    } else { /* one byte load and one shift per index (a pointer table or
              * taking one 32-bit word apart measured slower) */
        const unsigned char *jb = in + l->joints_offset;
        const unsigned char *base = (const unsigned char *)pal->palette;
        m0 = (const float *)(const void *)(base + ((size_t)jb[0] << 6));
        m1 = (const float *)(const void *)(base + ((size_t)jb[1] << 6));
        m2 = (const float *)(const void *)(base + ((size_t)jb[2] << 6));
        m3 = (const float *)(const void *)(base + ((size_t)jb[3] << 6));
    }
    /* the weights: one 16-byte load into both halves, then in-lane splats */
    const __m256 ww = _mm256_broadcast_ps((const __m128 *)(const void *)(in + l->weights_offset));
    const __m256 s0 = _mm256_permute_ps(ww, 0x00), s1 = _mm256_permute_ps(ww, 0x55);
    const __m256 s2 = _mm256_permute_ps(ww, 0xAA), s3 = _mm256_permute_ps(ww, 0xFF);
    __m256 b01 = _mm256_mul_ps(s0, _mm256_loadu_ps(m0));
    __m256 b23 = _mm256_mul_ps(s0, _mm256_loadu_ps(m0 + 8));
    b01 = _mm256_fmadd_ps(s1, _mm256_loadu_ps(m1), b01);
    b23 = _mm256_fmadd_ps(s1, _mm256_loadu_ps(m1 + 8), b23);
    b01 = _mm256_fmadd_ps(s2, _mm256_loadu_ps(m2), b01);
    b23 = _mm256_fmadd_ps(s2, _mm256_loadu_ps(m2 + 8), b23);
    b01 = _mm256_fmadd_ps(s3, _mm256_loadu_ps(m3), b01);
    b23 = _mm256_fmadd_ps(s3, _mm256_loadu_ps(m3 + 8), b23);
    *B01 = b01;
    *B23 = b23;
}

/* One vertex of any layout: p' and the unnormalised directions B · (n, 0),
 * B · (t, 0) (lanes 0..2; when present). */
CNA__AVX2_INLINE void vertex_avx2(const cna_skinning_layout *l, const unsigned char *in,
                                  const skin_palette *pal, bool has_n, bool has_t,
                                  bool skip_zero, __m128 *p, __m128 *n, __m128 *t)
{
    __m256 b01, b23;
    blend_avx2(l, in, pal, skip_zero, &b01, &b23);
    const __m128 b0 = _mm256_castps256_ps128(b01), b1 = _mm256_extractf128_ps(b01, 1);
    const __m128 b2 = _mm256_castps256_ps128(b23), b3 = _mm256_extractf128_ps(b23, 1);
    const unsigned char *x = in + l->position_offset;
    *p = _mm_fmadd_ps(b0, bcast_avx2(x),
                      _mm_fmadd_ps(b1, bcast_avx2(x + 4), _mm_fmadd_ps(b2, bcast_avx2(x + 8), b3)));
    if (has_n) {
        x = in + l->normal_offset;
        *n = _mm_fmadd_ps(b0, bcast_avx2(x),
                          _mm_fmadd_ps(b1, bcast_avx2(x + 4), _mm_mul_ps(b2, bcast_avx2(x + 8))));
    } else {
        *n = b0;
    }
    if (has_t) {
        x = in + l->tangent_offset;
        *t = _mm_fmadd_ps(b0, bcast_avx2(x),
                          _mm_fmadd_ps(b1, bcast_avx2(x + 4), _mm_mul_ps(b2, bcast_avx2(x + 8))));
    } else {
        *t = b0;
    }
}

/* Lanes 0..2 of v to dst (12 bytes). */
CNA__AVX2_INLINE void store3_avx2(unsigned char *dst, __m128 v)
{
    _mm_storel_epi64((__m128i *)(void *)dst, _mm_castps_si128(v));
    const float z = _mm_cvtss_f32(_mm_movehl_ps(v, v));
    memcpy(dst + 8, &z, sizeof z);
}

CNA__AVX2_INLINE void write_rest_avx2(const cna_skinning_layout *l, const unsigned char *in,
                                      unsigned char *dst, __m128 t, bool has_t, bool exact);

/* Write one skinned vertex (directions already normalised).
 * canonical (l is one of k52..k80, so position 0, normal 12, tangent 32 or
 * none): p' and n' as 16-byte stores (p's 4th lane lands on normal.x, n's on
 * bytes 24..27), then bytes 24..stride-1 copied from the input (restoring
 * 24..27), then t' with the input's w. The copy is exact when `exact`, else
 * in 32-byte moves that may run up to 28 bytes into the next vertex, which
 * the caller writes afterwards (its p' and n' stores cover bytes 0..27).
 * Otherwise out already holds a copy of the input and each present slot
 * gets 12 bytes. */
CNA__AVX2_INLINE void write_avx2(const cna_skinning_layout *l, const unsigned char *in,
                                 unsigned char *dst, __m128 p, __m128 n, __m128 t, bool has_n,
                                 bool has_t, bool canonical, bool exact)
{
    if (!canonical) {
        store3_avx2(dst + l->position_offset, p);
        if (has_n) store3_avx2(dst + l->normal_offset, n);
        if (has_t) store3_avx2(dst + l->tangent_offset, t);
        return;
    }
    _mm_storeu_ps((float *)(void *)dst, p);
    _mm_storeu_ps((float *)(void *)(dst + 12), n);
    write_rest_avx2(l, in, dst, t, has_t, exact);
}

/* A canonical vertex after its 16-byte p' and n' stores: bytes 24..stride-1
 * copied (exact or in 32-byte moves, as write_avx2 says), then t' with the
 * input's w. */
CNA__AVX2_INLINE void write_rest_avx2(const cna_skinning_layout *l, const unsigned char *in,
                                      unsigned char *dst, __m128 t, bool has_t, bool exact)
{
    const size_t rest = (size_t)l->stride - 24;
    if (exact) {
        memcpy(dst + 24, in + 24, rest);
    } else {
        for (size_t k = 0; k < rest; k += 32)
            _mm256_storeu_si256((__m256i *)(void *)(dst + 24 + k),
                                _mm256_loadu_si256((const __m256i *)(const void *)(in + 24 + k)));
    }
    if (has_t)
        _mm_storeu_ps((float *)(void *)(dst + 32),
                      _mm_blend_ps(t, _mm_loadu_ps((const float *)(const void *)(in + 32)), 0x8));
}

/* One vertex of a canonical layout (position at 0, normal at 12: one
 * 32-byte load holds both): (p' | B · (n, 0)) in one register, as
 * (b0|b0)·(px|nx) + ((b1|b1)·(py|ny) + ((b2|b2)·(pz|nz) + (b3|0))), and the
 * unnormalised B · (t, 0) when has_t. */
CNA__AVX2_INLINE __m256 vertex_pn_avx2(const cna_skinning_layout *l, const unsigned char *in,
                                       const skin_palette *pal, bool has_t, __m128 *t)
{
    __m256 b01, b23;
    blend_avx2(l, in, pal, false, &b01, &b23);
    const __m256 pn = _mm256_loadu_ps((const float *)(const void *)in); /* px py pz nx ny nz . . */
    const __m256 x = _mm256_permutevar8x32_ps(pn, _mm256_setr_epi32(0, 0, 0, 0, 3, 3, 3, 3));
    const __m256 y = _mm256_permutevar8x32_ps(pn, _mm256_setr_epi32(1, 1, 1, 1, 4, 4, 4, 4));
    const __m256 z = _mm256_permutevar8x32_ps(pn, _mm256_setr_epi32(2, 2, 2, 2, 5, 5, 5, 5));
    const __m256 c0 = _mm256_permute2f128_ps(b01, b01, 0x00); /* (b0|b0) */
    const __m256 c1 = _mm256_permute2f128_ps(b01, b01, 0x11); /* (b1|b1) */
    const __m256 c2 = _mm256_permute2f128_ps(b23, b23, 0x00); /* (b2|b2) */
    const __m256 c3 = _mm256_permute2f128_ps(b23, b23, 0x81); /* (b3|0) */
    if (has_t) {
        const unsigned char *ts = in + l->tangent_offset;
        *t = _mm_fmadd_ps(_mm256_castps256_ps128(c0), bcast_avx2(ts),
                          _mm_fmadd_ps(_mm256_castps256_ps128(c1), bcast_avx2(ts + 4),
                                       _mm_mul_ps(_mm256_castps256_ps128(c2),
                                                  bcast_avx2(ts + 8))));
    } else {
        *t = _mm256_castps256_ps128(c0);
    }
    return _mm256_fmadd_ps(c0, x, _mm256_fmadd_ps(c1, y, _mm256_fmadd_ps(c2, z, c3)));
}

/* The two directions in v's halves normalised (lanes 0..2 of each). */
CNA__AVX2_INLINE __m256 normalize2_avx2(__m256 v)
{
    const __m256 sq = _mm256_mul_ps(v, v);
    const __m256 len2 = _mm256_add_ps(_mm256_add_ps(sq, _mm256_permute_ps(sq, 0x55)),
                                      _mm256_permute_ps(sq, 0xAA));
    /* both squared lengths (lanes 0 and 4) in [FLT_MIN, FLT_MAX], that is
     * their bits b in [0x00800000, 0x7F7FFFFF] (NaN and negative outside):
     * b - 0x00800000 below 0x7F000000 unsigned; with both sides' sign bits
     * flipped, as signed: b + 0x7F800000 below -0x01000000 (0xFF000000) */
    const __m256i bad = _mm256_cmpgt_epi32(
        _mm256_add_epi32(_mm256_castps_si256(len2), _mm256_set1_epi32(0x7F800000)),
        _mm256_set1_epi32(-0x01000001));
    if (_mm256_movemask_ps(_mm256_castsi256_ps(bad)) & 0x11) {
        const __m128 a = normalize_one_avx2(_mm256_castps256_ps128(v));
        const __m128 b = normalize_one_avx2(_mm256_extractf128_ps(v, 1));
        return _mm256_insertf128_ps(_mm256_castps128_ps256(a), b, 1);
    }
    return _mm256_mul_ps(v, _mm256_permute_ps(rsqrt_newton_avx2(len2), 0x00));
}

/* Two vertices of a canonical layout (l one of k52..k80): skin, normalise,
 * write p' and n' (16-byte stores: p's 4th lane lands on normal.x, n's on
 * bytes 24..27), copy bytes 24..stride-1 (restoring 24..27; exact for the
 * second vertex when `exact_b`, else 32-byte moves that may run up to 28
 * bytes into the next vertex, which is written afterwards: its p' and n'
 * stores cover its bytes 0..27), then t' with the input's w. */
CNA__AVX2_INLINE void pair_pn_avx2(const cna_skinning_layout *l, const unsigned char *in,
                                   unsigned char *dst, const skin_palette *pal, bool has_t,
                                   bool exact_b)
{
    const size_t stride = l->stride;
    __m128 ta, tb;
    const __m256 ra = vertex_pn_avx2(l, in, pal, has_t, &ta);
    const __m256 rb = vertex_pn_avx2(l, in + stride, pal, has_t, &tb);
    const __m256 n = normalize2_avx2(_mm256_permute2f128_ps(ra, rb, 0x31)); /* (na|nb) */
    if (has_t) normalize_pair_avx2(&ta, &tb);
    _mm_storeu_ps((float *)(void *)dst, _mm256_castps256_ps128(ra));
    _mm_storeu_ps((float *)(void *)(dst + 12), _mm256_castps256_ps128(n));
    write_rest_avx2(l, in, dst, ta, has_t, false);
    _mm_storeu_ps((float *)(void *)(dst + stride), _mm256_castps256_ps128(rb));
    _mm_storeu_ps((float *)(void *)(dst + stride + 12), _mm256_extractf128_ps(n, 1));
    write_rest_avx2(l, in + stride, dst + stride, tb, has_t, exact_b);
}

/* Two vertices (in, in + stride): skin, normalise, write; the second one's
 * copy exact when `exact_b` (the first one's never needs to be). */
CNA__AVX2_INLINE void pair_avx2(const cna_skinning_layout *l, const unsigned char *in,
                                unsigned char *dst, const skin_palette *palette, bool has_n,
                                bool has_t, bool canonical, bool skip_zero, bool exact_b)
{
    const size_t stride = l->stride;
    __m128 pa, na, ta, pb, nb, tb;
    vertex_avx2(l, in, palette, has_n, has_t, skip_zero, &pa, &na, &ta);
    vertex_avx2(l, in + stride, palette, has_n, has_t, skip_zero, &pb, &nb, &tb);
    if (has_n) normalize_pair_avx2(&na, &nb);
    if (has_t) normalize_pair_avx2(&ta, &tb);
    write_avx2(l, in, dst, pa, na, ta, has_n, has_t, canonical, false);
    write_avx2(l, in + stride, dst + stride, pb, nb, tb, has_n, has_t, canonical, exact_b);
}

/* The AVX2 loop, instantiated per slot set and layout (canonical: l is one
 * of k52..k80 and the caller copies nothing; else out holds a copy of the
 * input already). skip_zero as in the SSE2 kernel. */
CNA__AVX2_INLINE void skin_avx2_kernel(const cna_skinning_layout *l, const unsigned char *in,
                                       unsigned char *dst, size_t count,
                                       const skin_palette *palette_arg, bool has_n, bool has_t,
                                       bool canonical, bool skip_zero)
{
    const skin_palette local = *palette_arg, *palette = &local;
    const size_t stride = l->stride;
    size_t v = 0;
    /* pairs followed by at least one more vertex: every copy may run over */
    for (; v + 3 <= count; v += 2, in += 2 * stride, dst += 2 * stride) {
        if (canonical) pair_pn_avx2(l, in, dst, palette, has_t, false);
        else pair_avx2(l, in, dst, palette, has_n, has_t, canonical, skip_zero, false);
    }
    if (count - v == 2) {
        if (canonical) pair_pn_avx2(l, in, dst, palette, has_t, true);
        else pair_avx2(l, in, dst, palette, has_n, has_t, canonical, skip_zero, true);
    } else if (count - v == 1) {
        __m128 p, n, t;
        vertex_avx2(l, in, palette, has_n, has_t, skip_zero, &p, &n, &t);
        if (has_n) n = normalize_one_avx2(n);
        if (has_t) t = normalize_one_avx2(t);
        write_avx2(l, in, dst, p, n, t, has_n, has_t, canonical, true);
    }
}

CNA__AVX2_FMA static void skin_avx2_52(const unsigned char *in, unsigned char *dst, size_t count,
                                       const skin_palette *palette)
{
    skin_avx2_kernel(&k52, in, dst, count, palette, true, false, true, false);
}

CNA__AVX2_FMA static void skin_avx2_56(const unsigned char *in, unsigned char *dst, size_t count,
                                       const skin_palette *palette)
{
    skin_avx2_kernel(&k56, in, dst, count, palette, true, false, true, false);
}

CNA__AVX2_FMA static void skin_avx2_68(const unsigned char *in, unsigned char *dst, size_t count,
                                       const skin_palette *palette)
{
    skin_avx2_kernel(&k68, in, dst, count, palette, true, true, true, false);
}

CNA__AVX2_FMA static void skin_avx2_76(const unsigned char *in, unsigned char *dst, size_t count,
                                       const skin_palette *palette)
{
    skin_avx2_kernel(&k76, in, dst, count, palette, true, true, true, false);
}

CNA__AVX2_FMA static void skin_avx2_80(const unsigned char *in, unsigned char *dst, size_t count,
                                       const skin_palette *palette)
{
    skin_avx2_kernel(&k80, in, dst, count, palette, true, true, true, false);
}

/* Any valid layout or palette (out already holds a copy of the input). */
CNA__AVX2_FMA static void skin_avx2_generic(const cna_skinning_layout *l, const unsigned char *in,
                                            unsigned char *dst, size_t count,
                                            const cna_mat4 *palette_in)
{
    skin_palette pal_struct;
    pal_struct.palette = palette_in;
    const skin_palette *palette = &pal_struct;
    const bool has_n = l->normal_offset >= 0, has_t = l->tangent_offset >= 0;
    if (has_n && has_t) skin_avx2_kernel(l, in, dst, count, palette, true, true, false, true);
    else if (has_n) skin_avx2_kernel(l, in, dst, count, palette, true, false, false, true);
    else if (has_t) skin_avx2_kernel(l, in, dst, count, palette, false, true, false, true);
    else skin_avx2_kernel(l, in, dst, count, palette, false, false, false, true);
}

/* Whether palette[0..reach-1] are all finite (x - x is 0 exactly for every
 * finite x, NaN otherwise); sets pal on the way. */
CNA__AVX2_FMA static bool palette_finite_avx2(const cna_mat4 *palette, size_t reach,
                                               skin_palette *pal)
{
    __m256 acc = _mm256_setzero_ps();
    pal->palette = palette;
    for (size_t i = 0; i < reach; i++) {
        const __m256 a = _mm256_loadu_ps(palette[i].m), b = _mm256_loadu_ps(palette[i].m + 8);
        acc = _mm256_or_ps(acc, _mm256_or_ps(_mm256_sub_ps(a, a), _mm256_sub_ps(b, b)));
    }
    return _mm256_testz_si256(_mm256_castps_si256(acc), _mm256_castps_si256(acc)) != 0;
}

/* The AVX2 kernel on count > 0 vertices (checks done; reach: check_inputs'). */
static void skin_fast_avx2(const cna_skinning_layout *l, const unsigned char *in,
                           unsigned char *dst, size_t count, const cna_mat4 *palette,
                           size_t reach, size_t bytes)
{
    const cna_skinning_layout *k = canonical_constant(l);
    skin_palette pal;
    if (k && palette_finite_avx2(palette, reach, &pal)) {
        switch (k->stride) {
        case 52: skin_avx2_52(in, dst, count, &pal); return;
        case 56: skin_avx2_56(in, dst, count, &pal); return;
        case 68: skin_avx2_68(in, dst, count, &pal); return;
        case 76: skin_avx2_76(in, dst, count, &pal); return;
        case 80: skin_avx2_80(in, dst, count, &pal); return;
        default: break;
        }
    }
    memcpy(dst, in, bytes);
    skin_avx2_generic(l, in, dst, count, palette);
}
#endif /* CNA__SKIN_AVX2 */

/* The output checks of cna_skin_vertices (after check_inputs). */
static cna_result check_out(const cna_skinning_layout *layout, const void *vertices,
                            size_t vertex_count, const void *out, size_t out_size, size_t bytes,
                            cna_error *err)
{
    if (out_size < bytes)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out: %zu bytes; %zu vertices of stride %u need %zu", out_size,
                          vertex_count, (unsigned)layout->stride, bytes);
    if (bytes == 0) return CNA_OK;
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: NULL");
    const uintptr_t o = (uintptr_t)out, b = (uintptr_t)vertices;
    if (o < b + bytes && b < o + bytes)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: overlaps vertices (%zu bytes)",
                          bytes);
    return CNA_OK;
}

bool cna__skin_fast_kernel_supported(int kernel)
{
    switch (kernel) {
    case KERNEL_SCALAR: return true;
    case KERNEL_SSE2: return CNA__SKIN_SSE2 != 0;
#if CNA__SKIN_AVX2
    case KERNEL_AVX2: return cpu_has_avx2_fma();
#endif
    default: return false;
    }
}

int cna__skin_fast_kernel(void)
{
    for (int k = KERNEL_COUNT - 1; k > 0; k--)
        if (cna__skin_fast_kernel_supported(k)) return k;
    return KERNEL_SCALAR;
}

const char *cna__skin_fast_kernel_name(int kernel)
{
    static const char *const names[KERNEL_COUNT] = {"scalar", "SSE2", "AVX2+FMA"};
    return kernel >= 0 && kernel < KERNEL_COUNT ? names[kernel] : NULL;
}

/* The fast path with a supported kernel. */
static cna_result skin_fast(const cna_skinning_layout *layout, const void *vertices,
                            size_t vertex_count, const cna_mat4 *palette, size_t palette_count,
                            void *out, size_t out_size, int kernel, cna_error *err)
{
    size_t bytes = 0, reach = 0;
    cna_result r =
        check_inputs(layout, vertices, vertex_count, palette, palette_count, &bytes, &reach, err);
    if (r != CNA_OK) return r;
    if ((r = check_out(layout, vertices, vertex_count, out, out_size, bytes, err)) != CNA_OK)
        return r;
    if (bytes == 0) return CNA_OK;
    switch (kernel) {
#if CNA__SKIN_AVX2
    case KERNEL_AVX2:
        skin_fast_avx2(layout, vertices, out, vertex_count, palette, reach, bytes);
        return CNA_OK;
#endif
#if CNA__SKIN_SSE2
    case KERNEL_SSE2:
        if (!skin_fast_sse2_canonical(layout, vertices, out, vertex_count, palette, reach)) {
            memcpy(out, vertices, bytes);
            skin_fast_sse2(layout, vertices, out, vertex_count, palette);
        }
        return CNA_OK;
#endif
    default:
        memcpy(out, vertices, bytes);
        skin_fast_scalar(layout, vertices, out, vertex_count, palette);
        return CNA_OK;
    }
}

cna_result cna__skin_vertices_fast_path(const cna_skinning_layout *layout, const void *vertices,
                                        size_t vertex_count, const cna_mat4 *palette,
                                        size_t palette_count, void *out, size_t out_size,
                                        int kernel, cna_error *err)
{
    if (!cna__skin_fast_kernel_supported(kernel))
        return cna__error(err, CNA_ERROR_UNSUPPORTED,
                          "kernel: %d is not supported by this build or CPU", kernel);
    return skin_fast(layout, vertices, vertex_count, palette, palette_count, out, out_size, kernel,
                     err);
}

cna_result cna_skin_vertices_fast(const cna_skinning_layout *layout, const void *vertices,
                                  size_t vertex_count, const cna_mat4 *palette,
                                  size_t palette_count, void *out, size_t out_size, cna_error *err)
{
    /* no cached choice (no state): the CPU feature test is a few loads */
    return skin_fast(layout, vertices, vertex_count, palette, palette_count, out, out_size,
                     cna__skin_fast_kernel(), err);
}

/* ------------------------------------------------------------ streams
 *
 * cna_skin_streams: cna_skin_vertices_fast's arithmetic (the same blend,
 * transforms and normalisation, in the same kernels chosen by the same
 * rules, so the same bits), reading only each vertex's skinned slots,
 * joints and weights, and writing only p', n', t' into the caller's
 * streams: nothing is copied. The loops are the fast path's less its copy.
 * Packed position and normal streams (stride 12) take 16-byte stores whose
 * 4th lane lands on the next vertex's slot, written right after; the last
 * vertex of a call gets exact 12-byte stores, so nothing outside the
 * streams' (vertex_count - 1) * stride + 12 bytes is written. */

/* The streams as the kernels use them: vertex 0's slot and the stride of
 * each (n, t NULL when the layout has no such slot). */
typedef struct stream_out {
    unsigned char *p, *n, *t;
    size_t ps, ns, ts;
    bool normalize;
} stream_out;

/* The names one stream's messages use. */
typedef struct stream_names {
    const char *buffer, *size, *stride, *slot, *what;
} stream_names;

static const stream_names position_names = {"positions", "positions_size", "position_stride",
                                            "position_offset", "positions"};
static const stream_names normal_names = {"normals", "normals_size", "normal_stride",
                                          "normal_offset", "normals"};
static const stream_names tangent_names = {"tangents", "tangents_size", "tangent_stride",
                                           "tangent_offset", "tangents"};

/* One stream's checks. slot: the layout's offset for it (-1: absent);
 * width: its slot's bytes; in_bytes: the vertices' bytes at `vertices`.
 * *stride: the stride to use (0 made packed); *span: the bytes it covers
 * (0 when it writes nothing). */
static cna_result check_stream(const void *buf, size_t size, uint32_t stride_in, size_t width,
                               int32_t slot, const stream_names *nm, size_t count,
                               const void *vertices, size_t in_bytes, size_t *stride,
                               size_t *span, cna_error *err)
{
    *stride = stride_in ? stride_in : width;
    *span = 0;
    if (slot < 0) {
        if (buf)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "out.%s: not NULL, but layout.%s is -1 (no %s to skin)",
                              nm->buffer, nm->slot, nm->what);
        return CNA_OK;
    }
    if (stride_in != 0 && stride_in < width)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out.%s: %u; at least %zu (or 0 for packed)", nm->stride,
                          (unsigned)stride_in, width);
    if (count == 0) return CNA_OK;
    if (!buf) {
        if (nm == &position_names)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "out.positions: NULL with vertex_count %zu", count);
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out.%s: NULL; layout.%s is %d (set it to -1 to skip the %s)",
                          nm->buffer, nm->slot, (int)slot, nm->what);
    }
    size_t need = 0;
    if (!cna__mul_size(count - 1, *stride, &need) || !cna__add_size(need, width, &need))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out.%s: %zu vertices at stride %zu overflow", nm->stride, count,
                          *stride);
    if (size < need)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out.%s: %zu bytes; %zu vertices at stride %zu need %zu", nm->size,
                          size, count, *stride, need);
    const uintptr_t o = (uintptr_t)buf, b = (uintptr_t)vertices;
    if (o < b + in_bytes && b < o + need)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out.%s: overlaps vertices",
                          nm->buffer);
    *span = need;
    return CNA_OK;
}

/* Whether two streams' slots share a byte: a's slots are [a + v·s, + aw)
 * for v < count within a's span, b's likewise. Spans apart: no. Same
 * stride and more than one vertex: the slots interleave without meeting
 * exactly when b starts d bytes into a's period with aw <= d and
 * d + bw <= stride (d = (b - a) mod stride). Anything else meets. */
static bool streams_meet(uintptr_t a, size_t a_span, size_t a_stride, size_t aw, uintptr_t b,
                         size_t b_span, size_t b_stride, size_t bw)
{
    if (a_span == 0 || b_span == 0 || a + a_span <= b || b + b_span <= a) return false;
    if (a_stride != b_stride || a_span == aw) return true; /* one vertex: its slots meet */
    const size_t s = a_stride;
    const size_t d = b >= a ? (size_t)(b - a) % s : (s - (size_t)(a - b) % s) % s;
    return !(d >= aw && d + bw <= s);
}

/* Every check of cna_skin_streams; fills *o and *reach (check_inputs'). */
static cna_result check_streams(const cna_skinning_layout *layout, const void *vertices,
                                size_t count, const cna_mat4 *palette, size_t palette_count,
                                const cna_skinning_streams *out, stream_out *o, size_t *reach,
                                cna_error *err)
{
    size_t bytes = 0;
    cna_result r =
        check_inputs(layout, vertices, count, palette, palette_count, &bytes, reach, err);
    if (r != CNA_OK) return r;
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: NULL");
    if (out->flags & ~(uint32_t)CNA_SKIN_NO_RENORMALIZE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out.flags: 0x%x has unknown bits (known: CNA_SKIN_NO_RENORMALIZE 0x1)",
                          (unsigned)out->flags);
    const void *bufs[3] = {out->positions, out->normals, out->tangents};
    const size_t sizes[3] = {out->positions_size, out->normals_size, out->tangents_size};
    const uint32_t strides[3] = {out->position_stride, out->normal_stride, out->tangent_stride};
    const size_t widths[3] = {12, 12, 16};
    const int32_t slots[3] = {layout->position_offset, layout->normal_offset,
                              layout->tangent_offset};
    const stream_names *names[3] = {&position_names, &normal_names, &tangent_names};
    size_t stride[3], span[3];
    for (int s = 0; s < 3; s++)
        if ((r = check_stream(bufs[s], sizes[s], strides[s], widths[s], slots[s], names[s], count,
                              vertices, bytes, &stride[s], &span[s], err)) != CNA_OK)
            return r;
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (streams_meet((uintptr_t)bufs[a], span[a], stride[a], widths[a],
                             (uintptr_t)bufs[b], span[b], stride[b], widths[b]))
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out.%s: overlaps out.%s",
                                  names[b]->buffer, names[a]->buffer);
    o->p = (unsigned char *)out->positions;
    o->n = layout->normal_offset >= 0 ? (unsigned char *)out->normals : NULL;
    o->t = layout->tangent_offset >= 0 ? (unsigned char *)out->tangents : NULL;
    o->ps = stride[0];
    o->ns = stride[1];
    o->ts = stride[2];
    o->normalize = (out->flags & CNA_SKIN_NO_RENORMALIZE) == 0;
    return CNA_OK;
}

/* The scalar kernel (skin_fast_scalar's arithmetic). */
static void streams_scalar(const cna_skinning_layout *l, const unsigned char *in, size_t count,
                           const cna_mat4 *palette, const stream_out *o)
{
    for (size_t v = 0; v < count; v++, in += l->stride) {
        uint8_t j[4];
        float w[4], b[16];
        read_influences(l, in, j, w);
        blend_scalar(palette, j, w, b);
        transform_scalar_to(b, in + l->position_offset, o->p + v * o->ps, true, true);
        if (o->n)
            transform_scalar_to(b, in + l->normal_offset, o->n + v * o->ns, false, o->normalize);
        if (o->t) {
            unsigned char *t = o->t + v * o->ts;
            transform_scalar_to(b, in + l->tangent_offset, t, false, o->normalize);
            memcpy(t + 12, in + l->tangent_offset + 12, sizeof(float)); /* w kept */
        }
    }
}

#if CNA__SKIN_SSE2
/* One vertex of the SSE2 stream kernel: blend, p' to its stream, the
 * unnormalised directions to *n, *t (when present; the tangent's w written). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void streams_vertex_sse2(const cna_skinning_layout *l, const unsigned char *in,
                                       const cna_mat4 *palette, const stream_out *o, size_t v,
                                       bool has_n, bool has_t, bool skip_zero, bool aligned,
                                       __m128 *n, __m128 *t)
{
    const size_t stride = l->stride;
    const int32_t po = l->position_offset, no = l->normal_offset, to = l->tangent_offset;
    __m128 b[4];
    blend_sse2(in + l->joints_offset, in + l->weights_offset, palette, skip_zero, aligned, b);
    store3(o->p + v * o->ps, apply(b, load3(in + po, (size_t)po + 16 <= stride), true));
    if (has_n) *n = apply(b, load3(in + no, (size_t)no + 16 <= stride), false);
    if (has_t) {
        *t = apply(b, load3(in + to, (size_t)to + 16 <= stride), false);
        memcpy(o->t + v * o->ts + 12, in + to + 12, sizeof(float)); /* w kept */
    }
}

/* Directions a (vertex v) and b (vertex v + 1, when `two`) to dst's stream. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void streams_finish_sse2(__m128 a, __m128 b, unsigned char *dst, size_t stride,
                                       size_t v, bool two, bool normalize)
{
    unsigned char *da = dst + v * stride, *db = da + stride;
    if (!normalize) {
        store3(da, a);
        if (two) store3(db, b);
    } else if (two) {
        finish_pair(a, b, da, db);
    } else {
        finish_direction(a, da);
    }
}

/* The SSE2 kernel (skin_fast_sse2_kernel's arithmetic; directions
 * normalised two vertices at a time as there), one instance per slot set. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void streams_sse2_kernel(const cna_skinning_layout *l, const unsigned char *in,
                                       size_t count, const cna_mat4 *palette,
                                       const stream_out *o, bool has_n, bool has_t,
                                       bool skip_zero, bool aligned)
{
    const size_t stride = l->stride;
    for (size_t v = 0; v < count; v += 2, in += 2 * stride) {
        const bool two = v + 1 < count;
        __m128 n0 = _mm_setzero_ps(), t0 = n0, n1 = n0, t1 = n0;
        streams_vertex_sse2(l, in, palette, o, v, has_n, has_t, skip_zero, aligned, &n0, &t0);
        if (two)
            streams_vertex_sse2(l, in + stride, palette, o, v + 1, has_n, has_t, skip_zero,
                                aligned, &n1, &t1);
        if (has_n) streams_finish_sse2(n0, n1, o->n, o->ns, v, two, o->normalize);
        if (has_t) streams_finish_sse2(t0, t1, o->t, o->ts, v, two, o->normalize);
    }
}

/* Instances: (normal, tangent) x (zero weights multiplied or skipped). */
static void streams_sse2_any(const cna_skinning_layout *l, const unsigned char *in, size_t count,
                             const cna_mat4 *palette, const stream_out *o, bool skip_zero,
                             bool aligned)
{
    const bool has_n = o->n != NULL, has_t = o->t != NULL;
    if (!skip_zero && aligned) {
        if (has_t) streams_sse2_kernel(l, in, count, palette, o, true, true, false, true);
        else streams_sse2_kernel(l, in, count, palette, o, true, false, false, true);
    } else if (!skip_zero) {
        if (has_t) streams_sse2_kernel(l, in, count, palette, o, true, true, false, false);
        else streams_sse2_kernel(l, in, count, palette, o, true, false, false, false);
    } else if (has_n && has_t) {
        streams_sse2_kernel(l, in, count, palette, o, true, true, true, false);
    } else if (has_n) {
        streams_sse2_kernel(l, in, count, palette, o, true, false, true, false);
    } else if (has_t) {
        streams_sse2_kernel(l, in, count, palette, o, false, true, true, false);
    } else {
        streams_sse2_kernel(l, in, count, palette, o, false, false, true, false);
    }
}

static void streams_sse2(const cna_skinning_layout *l, const unsigned char *in, size_t count,
                         const cna_mat4 *palette, size_t reach, const stream_out *o)
{
    /* the fast path's choice: a canonical layout (it always has normals)
     * with a finite palette multiplies zero weights, anything else skips them */
    if (canonical_constant(l) && palette_is_finite(palette, reach))
        streams_sse2_any(l, in, count, palette, o, false, ((uintptr_t)palette & 15) == 0);
    else
        streams_sse2_any(l, in, count, palette, o, true, false);
}
#endif /* CNA__SKIN_SSE2 */

#if CNA__SKIN_AVX2
/* A 12-byte slot: 16 bytes when `wide` (the next 4 are written later). */
CNA__AVX2_INLINE void store_slot_avx2(unsigned char *dst, __m128 v, bool wide)
{
    if (wide) _mm_storeu_ps((float *)(void *)dst, v);
    else store3_avx2(dst, v);
}

/* t' (lanes 0..2 of t) with the input tangent's w, 16 bytes. */
CNA__AVX2_INLINE void store_tangent_avx2(unsigned char *dst, __m128 t, const unsigned char *src)
{
    _mm_storeu_ps((float *)(void *)dst,
                  _mm_blend_ps(t, _mm_loadu_ps((const float *)(const void *)src), 0x8));
}

/* The 3 floats at d (no alignment needed) normalised in place (normalize_one_avx2). */
CNA__AVX2_INLINE void normalize3_avx2(unsigned char *d)
{
    float x[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    memcpy(x, d, 3 * sizeof(float));
    store3_avx2(d, normalize_one_avx2(_mm_loadu_ps(x)));
}

/* Eight packed x, y, z directions at v (24 floats) normalised in place,
 * each lane exactly as normalize_one_avx2 does it (same operations in the
 * same order, so the same bits), eight at a time: the triples are
 * transposed into x, y, z registers and back (three loads, three inserts
 * and five shuffles each way). A squared length out of [FLT_MIN, FLT_MAX]
 * in any lane sends the eight through normalize_one_avx2. */
CNA__AVX2_INLINE void normalize8_avx2(float *v)
{
    const __m256 m03 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(v)),
                                            _mm_loadu_ps(v + 12), 1); /* x0 y0 z0 x1 | x4 y4 z4 x5 */
    const __m256 m14 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(v + 4)),
                                            _mm_loadu_ps(v + 16), 1); /* y1 z1 x2 y2 | y5 .. */
    const __m256 m25 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(v + 8)),
                                            _mm_loadu_ps(v + 20), 1); /* z2 x3 y3 z3 | z6 .. */
    const __m256 xy = _mm256_shuffle_ps(m14, m25, _MM_SHUFFLE(2, 1, 3, 2)); /* x2 y2 x3 y3 */
    const __m256 yz = _mm256_shuffle_ps(m03, m14, _MM_SHUFFLE(1, 0, 2, 1)); /* y0 z0 y1 z1 */
    __m256 x = _mm256_shuffle_ps(m03, xy, _MM_SHUFFLE(2, 0, 3, 0));         /* x0 x1 x2 x3 */
    __m256 y = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));          /* y0 y1 y2 y3 */
    __m256 z = _mm256_shuffle_ps(yz, m25, _MM_SHUFFLE(3, 0, 3, 1));         /* z0 z1 z2 z3 */
    const __m256 len2 =
        _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(y, y)), _mm256_mul_ps(z, z));
    /* every lane in [FLT_MIN, FLT_MAX]: normalize_pair_avx2's test */
    const __m256i bad = _mm256_cmpgt_epi32(
        _mm256_add_epi32(_mm256_castps_si256(len2), _mm256_set1_epi32(0x7F800000)),
        _mm256_set1_epi32(-0x01000001));
    if (!_mm256_testz_si256(bad, bad)) {
        for (int i = 0; i < 8; i++) normalize3_avx2((unsigned char *)(v + 3 * i));
        return;
    }
    const __m256 inv = rsqrt_newton_avx2(len2);
    x = _mm256_mul_ps(x, inv);
    y = _mm256_mul_ps(y, inv);
    z = _mm256_mul_ps(z, inv);
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

/* count packed x, y, z directions at v normalised in place (normalize_one_avx2's bits). */
CNA__AVX2_INLINE void normalize_block_avx2(float *v, size_t count)
{
    size_t i = 0;
    for (; i + 8 <= count; i += 8) normalize8_avx2(v + 3 * i);
    for (; i < count; i++) normalize3_avx2((unsigned char *)(v + 3 * i));
}

/* Vertices per block of the canonical stream loop: its directions are
 * normalised block by block, after the block's blends. */
enum { STREAM_BLOCK = 64 };

/* A canonical layout (position 0, normal 12, tangent 32 or none; joints
 * and weights where `k` says) with a finite palette: the fast path's
 * canonical arithmetic (vertex_pn_avx2; vertex_avx2 for a last, unpaired
 * vertex) without its copy, in blocks: each block's p' go to their stream,
 * its unnormalised directions to the normal stream when packed (else to a
 * block buffer) and to a tangent block buffer, then (normalize) the
 * block's directions are normalised eight at a time, away from the blend's
 * dependency chains, and the buffered ones written out. packed: position
 * and normal strides 12 (16-byte stores, the last vertex of the call
 * excepted). */
CNA__AVX2_INLINE void streams_avx2_canonical(const cna_skinning_layout *k,
                                             const unsigned char *in, size_t count,
                                             const skin_palette *pal_arg, const stream_out *o,
                                             bool has_t, bool normalize, bool packed)
{
    /* local copies: the stores below cannot change them */
    const cna_skinning_layout l = *k;
    const skin_palette pal = *pal_arg;
    const stream_out out = *o;
    const size_t stride = l.stride;
    const size_t ps = packed ? 12 : out.ps, ns = packed ? 12 : out.ns, ts = out.ts;
    /* where the unnormalised n' go: the stream itself unless they are to
     * be normalised and it is not packed (then a block buffer) */
    const bool n_direct = packed || !normalize;
    const size_t nds = n_direct ? ns : 12;
    float nbuf[3 * STREAM_BLOCK + 1], tbuf[3 * STREAM_BLOCK + 1]; /* + 1: a wide store's lane */
    const bool odd = (count & 1) != 0;
    for (size_t b0 = 0; b0 < count; b0 += STREAM_BLOCK) {
        const size_t m = count - b0 < STREAM_BLOCK ? count - b0 : STREAM_BLOCK;
        const unsigned char *src = in + b0 * stride;
        unsigned char *p = out.p + b0 * ps;
        unsigned char *nd = n_direct ? out.n + b0 * ns : (unsigned char *)nbuf;
        float *tb = tbuf;
        unsigned char *t = has_t ? out.t + b0 * ts : NULL;
        /* the call's last vertex (exact stores; vertex_avx2 when unpaired) after the loop */
        const size_t loop_m = b0 + m == count ? m - 1 : m;
        const unsigned char *const end = src + loop_m * stride;
        for (; src != end; src += stride, p += ps, nd += nds) {
            __m128 tv;
            const __m256 r = vertex_pn_avx2(&l, src, &pal, has_t, &tv);
            store_slot_avx2(p, _mm256_castps256_ps128(r), packed);
            store_slot_avx2(nd, _mm256_extractf128_ps(r, 1), n_direct ? packed : true);
            if (has_t && normalize) {
                _mm_storeu_ps(tb, tv);
                tb += 3;
            } else if (has_t) {
                store_tangent_avx2(t, tv, src + l.tangent_offset);
                t += ts;
            }
        }
        if (loop_m < m) {
            __m128 pv, nv, tv;
            if (odd) {
                vertex_avx2(&l, src, &pal, true, has_t, false, &pv, &nv, &tv);
            } else {
                const __m256 r = vertex_pn_avx2(&l, src, &pal, has_t, &tv);
                pv = _mm256_castps256_ps128(r);
                nv = _mm256_extractf128_ps(r, 1);
            }
            store3_avx2(p, pv);
            store_slot_avx2(nd, nv, !n_direct);
            if (has_t && normalize) _mm_storeu_ps(tb, tv);
            else if (has_t) store_tangent_avx2(t, tv, src + l.tangent_offset);
        }
        if (!normalize) continue;
        float *nb = n_direct ? (float *)(void *)(out.n + b0 * ns) : nbuf;
        normalize_block_avx2(nb, m);
        if (!n_direct)
            for (size_t i = 0; i < m; i++) memcpy(out.n + (b0 + i) * ns, nbuf + 3 * i, 12);
        if (has_t) {
            normalize_block_avx2(tbuf, m);
            src = in + b0 * stride + l.tangent_offset;
            t = out.t + b0 * ts;
            for (size_t i = 0; i < m; i++, src += stride, t += ts) {
                memcpy(t, tbuf + 3 * i, 12);
                memcpy(t + 12, src + 12, sizeof(float)); /* w kept */
            }
        }
    }
}

/* One instance per (tangent, normalise, packed). */
#define CNA__STREAMS_AVX2(name, has_t, normalize, packed)                                       \
    CNA__AVX2_FMA static void name(const cna_skinning_layout *k, const unsigned char *in,     \
                                   size_t count, const skin_palette *pal, const stream_out *o) \
    {                                                                                           \
        streams_avx2_canonical(k, in, count, pal, o, has_t, normalize, packed);                \
    }
CNA__STREAMS_AVX2(streams_avx2_pn, false, true, true)
CNA__STREAMS_AVX2(streams_avx2_pn_raw, false, false, true)
CNA__STREAMS_AVX2(streams_avx2_pn_strided, false, true, false)
CNA__STREAMS_AVX2(streams_avx2_pn_raw_strided, false, false, false)
CNA__STREAMS_AVX2(streams_avx2_pnt, true, true, true)
CNA__STREAMS_AVX2(streams_avx2_pnt_raw, true, false, true)
CNA__STREAMS_AVX2(streams_avx2_pnt_strided, true, true, false)
CNA__STREAMS_AVX2(streams_avx2_pnt_raw_strided, true, false, false)
#undef CNA__STREAMS_AVX2

/* Any valid layout or palette (skin_avx2_kernel's generic loop: a zero
 * weight selects a zero matrix; exact stores). */
CNA__AVX2_FMA static void streams_avx2_generic(const cna_skinning_layout *l,
                                               const unsigned char *in, size_t count,
                                               const cna_mat4 *palette_in, const stream_out *o)
{
    skin_palette pal;
    pal.palette = palette_in;
    const size_t stride = l->stride;
    const bool has_n = o->n != NULL, has_t = o->t != NULL;
    for (size_t v = 0; v < count; v += 2, in += 2 * stride) {
        const bool two = v + 1 < count;
        __m128 pa, na, ta, pb = _mm_setzero_ps(), nb = pb, tb = pb;
        vertex_avx2(l, in, &pal, has_n, has_t, true, &pa, &na, &ta);
        if (two) vertex_avx2(l, in + stride, &pal, has_n, has_t, true, &pb, &nb, &tb);
        if (o->normalize && two) {
            if (has_n) normalize_pair_avx2(&na, &nb);
            if (has_t) normalize_pair_avx2(&ta, &tb);
        } else if (o->normalize) {
            if (has_n) na = normalize_one_avx2(na);
            if (has_t) ta = normalize_one_avx2(ta);
        }
        const __m128 ps[2] = {pa, pb}, ns[2] = {na, nb}, ts[2] = {ta, tb};
        for (size_t i = 0; i < (two ? 2u : 1u); i++) {
            store3_avx2(o->p + (v + i) * o->ps, ps[i]);
            if (has_n) store3_avx2(o->n + (v + i) * o->ns, ns[i]);
            if (has_t)
                store_tangent_avx2(o->t + (v + i) * o->ts, ts[i],
                                   in + i * stride + l->tangent_offset);
        }
    }
}

/* The AVX2 kernel on count > 0 vertices (skin_fast_avx2's choice of loop). */
static void streams_avx2(const cna_skinning_layout *l, const unsigned char *in, size_t count,
                         const cna_mat4 *palette, size_t reach, const stream_out *o)
{
    const cna_skinning_layout *k = canonical_constant(l);
    skin_palette pal;
    if (k && palette_finite_avx2(palette, reach, &pal)) {
        const bool packed = o->ps == 12 && o->ns == 12;
        if (k->tangent_offset < 0) {
            if (o->normalize) (packed ? streams_avx2_pn : streams_avx2_pn_strided)(k, in, count, &pal, o);
            else (packed ? streams_avx2_pn_raw : streams_avx2_pn_raw_strided)(k, in, count, &pal, o);
        } else {
            if (o->normalize) (packed ? streams_avx2_pnt : streams_avx2_pnt_strided)(k, in, count, &pal, o);
            else (packed ? streams_avx2_pnt_raw : streams_avx2_pnt_raw_strided)(k, in, count, &pal, o);
        }
        return;
    }
    streams_avx2_generic(l, in, count, palette, o);
}
#endif /* CNA__SKIN_AVX2 */

static cna_result skin_streams(const cna_skinning_layout *layout, const void *vertices,
                               size_t vertex_count, const cna_mat4 *palette,
                               size_t palette_count, const cna_skinning_streams *out, int kernel,
                               cna_error *err)
{
    stream_out o;
    size_t reach = 0;
    cna_result r = check_streams(layout, vertices, vertex_count, palette, palette_count, out, &o,
                                 &reach, err);
    if (r != CNA_OK || vertex_count == 0) return r;
    switch (kernel) {
#if CNA__SKIN_AVX2
    case KERNEL_AVX2: streams_avx2(layout, vertices, vertex_count, palette, reach, &o); break;
#endif
#if CNA__SKIN_SSE2
    case KERNEL_SSE2: streams_sse2(layout, vertices, vertex_count, palette, reach, &o); break;
#endif
    default: streams_scalar(layout, vertices, vertex_count, palette, &o); break;
    }
    return CNA_OK;
}

cna_result cna__skin_streams_path(const cna_skinning_layout *layout, const void *vertices,
                                  size_t vertex_count, const cna_mat4 *palette,
                                  size_t palette_count, const cna_skinning_streams *out,
                                  int kernel, cna_error *err)
{
    if (!cna__skin_fast_kernel_supported(kernel))
        return cna__error(err, CNA_ERROR_UNSUPPORTED,
                          "kernel: %d is not supported by this build or CPU", kernel);
    return skin_streams(layout, vertices, vertex_count, palette, palette_count, out, kernel, err);
}

cna_result cna_skin_streams(const cna_skinning_layout *layout, const void *vertices,
                            size_t vertex_count, const cna_mat4 *palette, size_t palette_count,
                            const cna_skinning_streams *out, cna_error *err)
{
    return skin_streams(layout, vertices, vertex_count, palette, palette_count, out,
                        cna__skin_fast_kernel(), err);
}
