/*
 * Exact CPU morph blending (include/cna/morph.h, "Exact blend"; spec:
 * BlendMorphTargetsEXT).
 *
 * The vertices are processed in blocks of BLOCK, with a fixed scratch on the
 * stack (3 KiB, it stays in L1; nothing is allocated). Per block:
 *   1. the block's base bytes are copied to the output (every byte outside
 *      the morphed slots is then final);
 *   2. per kind (position, normal, tangent direction) the weighted deltas of
 *      every active target are summed, in target order, into a float scratch:
 *        sum[3v + c] = sum[3v + c] + w[t] * delta_t[3v + c]
 *      a contiguous loop the compiler vectorises (fixed-size inner loops, so
 *      even -O2's cheap vectoriser takes them);
 *   3. positions: out = base + sum, vertex by vertex;
 *      directions: four vertices at a time with SSE2 when available (the
 *      sums transposed to x, y, z lanes, base + sum normalised with
 *      correctly rounded sqrt and division, in the scalar order, so the bits
 *      equal the scalar path's), the rest vertex by vertex.
 * CNA_NO_SIMD (defined at compile time) removes the SSE2 path; the scalar
 * path is always compiled, and the tests compare the two bit for bit
 * (cna__morph_blend_path).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "morph_internal.h"

#if !defined(CNA_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64))
#define CNA__MORPH_SSE2 1
#include <emmintrin.h>
#else
#define CNA__MORPH_SSE2 0
#endif

enum { BLOCK = 256, KIND_POSITION = 0, KIND_NORMAL = 1, KIND_TANGENT = 2 };

static const cna_morph_deltas *deltas_of(const cna_morph_target *t, int kind)
{
    return kind == KIND_POSITION ? &t->positions : kind == KIND_NORMAL ? &t->normals
                                                                       : &t->tangents;
}

static int32_t slot_offset(const cna_morph_layout *l, int kind)
{
    return kind == KIND_POSITION ? l->position_offset
           : kind == KIND_NORMAL ? l->normal_offset
                                 : l->tangent_offset;
}

/* Up to four dense targets in one pass over the scratch:
 *   sum[i] = (((sum[i] + w0*a[i]) + w1*b[i]) + w2*c[i]) + w3*d[i]
 * which rounds exactly as adding the targets one after the other (the
 * documented order), with a quarter of the scratch traffic. Groups of 16
 * vertices (48 floats, a fixed trip count the vectoriser takes whole), then
 * the rest. */
typedef struct dense_group {
    const float *src[4];
    float w[4];
    int count;
    bool fresh; /* the scratch holds nothing yet: start from 0.0f instead of reading it */
} dense_group;

/* Each kernel has two copies of its loops, so that neither tests `fresh`
 * per element: the first group of a block starts from 0.0f (the value the
 * scratch would hold), later groups from the scratch. */
static void accumulate_1(float *restrict sum, const float *restrict a, float w0, size_t end,
                         bool fresh)
{
    size_t i = 0;
    if (fresh) {
        for (; i + 48 <= end; i += 48)
            for (size_t j = i; j < i + 48; j++) sum[j] = 0.0f + w0 * a[j];
        for (; i < end; i++) sum[i] = 0.0f + w0 * a[i];
    } else {
        for (; i + 48 <= end; i += 48)
            for (size_t j = i; j < i + 48; j++) sum[j] = sum[j] + w0 * a[j];
        for (; i < end; i++) sum[i] = sum[i] + w0 * a[i];
    }
}

static void accumulate_2(float *restrict sum, const float *restrict a, const float *restrict b,
                         float w0, float w1, size_t end, bool fresh)
{
    size_t i = 0;
    if (fresh) {
        for (; i + 48 <= end; i += 48)
            for (size_t j = i; j < i + 48; j++) sum[j] = 0.0f + w0 * a[j] + w1 * b[j];
        for (; i < end; i++) sum[i] = 0.0f + w0 * a[i] + w1 * b[i];
    } else {
        for (; i + 48 <= end; i += 48)
            for (size_t j = i; j < i + 48; j++) sum[j] = sum[j] + w0 * a[j] + w1 * b[j];
        for (; i < end; i++) sum[i] = sum[i] + w0 * a[i] + w1 * b[i];
    }
}

static void accumulate_3(float *restrict sum, const float *restrict a, const float *restrict b,
                         const float *restrict c, float w0, float w1, float w2, size_t end,
                         bool fresh)
{
    size_t i = 0;
    if (fresh) {
        for (; i + 48 <= end; i += 48)
            for (size_t j = i; j < i + 48; j++) sum[j] = 0.0f + w0 * a[j] + w1 * b[j] + w2 * c[j];
        for (; i < end; i++) sum[i] = 0.0f + w0 * a[i] + w1 * b[i] + w2 * c[i];
    } else {
        for (; i + 48 <= end; i += 48)
            for (size_t j = i; j < i + 48; j++)
                sum[j] = sum[j] + w0 * a[j] + w1 * b[j] + w2 * c[j];
        for (; i < end; i++) sum[i] = sum[i] + w0 * a[i] + w1 * b[i] + w2 * c[i];
    }
}

static void accumulate_4(float *restrict sum, const float *restrict a, const float *restrict b,
                         const float *restrict c, const float *restrict d, float w0, float w1,
                         float w2, float w3, size_t end, bool fresh)
{
    size_t i = 0;
    if (fresh) {
        for (; i + 48 <= end; i += 48)
            for (size_t j = i; j < i + 48; j++)
                sum[j] = 0.0f + w0 * a[j] + w1 * b[j] + w2 * c[j] + w3 * d[j];
        for (; i < end; i++) sum[i] = 0.0f + w0 * a[i] + w1 * b[i] + w2 * c[i] + w3 * d[i];
    } else {
        for (; i + 48 <= end; i += 48)
            for (size_t j = i; j < i + 48; j++)
                sum[j] = sum[j] + w0 * a[j] + w1 * b[j] + w2 * c[j] + w3 * d[j];
        for (; i < end; i++) sum[i] = sum[i] + w0 * a[i] + w1 * b[i] + w2 * c[i] + w3 * d[i];
    }
}

/* Add a group's targets (in order) for the block's vertices [v0, v0 + n). */
static void flush_group(float *sum, dense_group *g, size_t v0, size_t n)
{
    const size_t o = 3 * v0, end = 3 * n;
    const float *const *s = g->src;
    const float *w = g->w;
    const bool f = g->fresh;
    switch (g->count) {
    case 1: accumulate_1(sum, s[0] + o, w[0], end, f); break;
    case 2: accumulate_2(sum, s[0] + o, s[1] + o, w[0], w[1], end, f); break;
    case 3: accumulate_3(sum, s[0] + o, s[1] + o, s[2] + o, w[0], w[1], w[2], end, f); break;
    case 4:
        accumulate_4(sum, s[0] + o, s[1] + o, s[2] + o, s[3] + o, w[0], w[1], w[2], w[3], end,
                     f);
        break;
    default: return;
    }
    g->count = 0;
    g->fresh = false;
}

/* First j with indices[j] >= v (indices strictly increase). */
static size_t lower_bound(const uint32_t *indices, size_t count, size_t v)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (indices[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void accumulate_sparse(float *sum, const cna_morph_deltas *dl, float w, size_t v0,
                              size_t n)
{
    size_t j = lower_bound(dl->indices, dl->count, v0);
    for (; j < dl->count && dl->indices[j] < v0 + n; j++) {
        float *s = sum + 3 * (dl->indices[j] - v0);
        const float *src = dl->values + 3 * j;
        s[0] = s[0] + w * src[0];
        s[1] = s[1] + w * src[1];
        s[2] = s[2] + w * src[2];
    }
}

/* One float at any byte address (a single load or store once compiled). */
static inline float load_f(const unsigned char *p)
{
    float f;
    memcpy(&f, p, sizeof f);
    return f;
}
static inline void store_f(unsigned char *p, float f) { memcpy(p, &f, sizeof f); }

/* position = base + sum (the base is already in the output slot) */
static void write_positions(unsigned char *slot, size_t n, size_t stride, const float *sum)
{
    for (size_t v = 0; v < n; v++, slot += stride) {
        store_f(slot + 0, load_f(slot + 0) + sum[3 * v + 0]);
        store_f(slot + 4, load_f(slot + 4) + sum[3 * v + 1]);
        store_f(slot + 8, load_f(slot + 8) + sum[3 * v + 2]);
    }
}

/* direction = normalise(base + sum) for one vertex, in the slot; the base
 * bytes are kept when sum is (0,0,0) or when base + sum has no direction
 * (length zero or not finite). Only xyz: a tangent's w is never touched. */
static void finish_direction_scalar(unsigned char *p, const float *s)
{
    if (s[0] == 0.0f && s[1] == 0.0f && s[2] == 0.0f) return;
    const float x = load_f(p + 0) + s[0];
    const float y = load_f(p + 4) + s[1];
    const float z = load_f(p + 8) + s[2];
    const float len2 = x * x + y * y + z * z;
    if (!(len2 > 0.0f) || !(len2 <= FLT_MAX)) return;
    const float len = sqrtf(len2);
    store_f(p + 0, x / len);
    store_f(p + 4, y / len);
    store_f(p + 8, z / len);
}

#if CNA__MORPH_SSE2
/* The same for four vertices at once: sqrt and division are correctly
 * rounded in SSE2 as in scalar code and the operations run in the same
 * order, so the bits are the scalar path's. */
static void finish_directions4_sse2(unsigned char *p, size_t stride, const float *sum)
{
    unsigned char *const p0 = p, *const p1 = p + stride, *const p2 = p1 + stride,
                         *const p3 = p2 + stride;
    /* sums: 12 floats x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3 -> x, y, z lanes */
    const __m128 a = _mm_loadu_ps(sum), b = _mm_loadu_ps(sum + 4), c = _mm_loadu_ps(sum + 8);
    const __m128 x2y2x3y3 = _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 1, 3, 2));
    const __m128 y0z0y1z1 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 2, 1));
    const __m128 sx = _mm_shuffle_ps(a, x2y2x3y3, _MM_SHUFFLE(2, 0, 3, 0));
    const __m128 sy = _mm_shuffle_ps(y0z0y1z1, x2y2x3y3, _MM_SHUFFLE(3, 1, 2, 0));
    const __m128 sz = _mm_shuffle_ps(y0z0y1z1, c, _MM_SHUFFLE(3, 0, 3, 1));
    const __m128 zero = _mm_setzero_ps();
    const __m128 moved = _mm_or_ps(_mm_or_ps(_mm_cmpneq_ps(sx, zero), _mm_cmpneq_ps(sy, zero)),
                                   _mm_cmpneq_ps(sz, zero));
    if (_mm_movemask_ps(moved) == 0) return;
    const __m128 x = _mm_add_ps(_mm_setr_ps(load_f(p0), load_f(p1), load_f(p2), load_f(p3)), sx);
    const __m128 y = _mm_add_ps(
        _mm_setr_ps(load_f(p0 + 4), load_f(p1 + 4), load_f(p2 + 4), load_f(p3 + 4)), sy);
    const __m128 z = _mm_add_ps(
        _mm_setr_ps(load_f(p0 + 8), load_f(p1 + 8), load_f(p2 + 8), load_f(p3 + 8)), sz);
    /* (x*x + y*y) + z*z, the scalar order */
    const __m128 len2 =
        _mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z));
    const __m128 valid =
        _mm_and_ps(_mm_cmpgt_ps(len2, zero), _mm_cmple_ps(len2, _mm_set1_ps(FLT_MAX)));
    const int mask = _mm_movemask_ps(_mm_and_ps(moved, valid));
    /* Lanes outside the mask divide by 0 or inf harmlessly (exceptions are
     * masked) and are not stored. */
    const __m128 len = _mm_sqrt_ps(len2);
    float rx[4], ry[4], rz[4];
    _mm_storeu_ps(rx, _mm_div_ps(x, len));
    _mm_storeu_ps(ry, _mm_div_ps(y, len));
    _mm_storeu_ps(rz, _mm_div_ps(z, len));
    unsigned char *const lanes[4] = {p0, p1, p2, p3};
    for (int k = 0; k < 4; k++) {
        if (!(mask & (1 << k))) continue;
        store_f(lanes[k] + 0, rx[k]);
        store_f(lanes[k] + 4, ry[k]);
        store_f(lanes[k] + 8, rz[k]);
    }
}
#endif

static void write_directions(unsigned char *slot, size_t n, size_t stride, const float *sum,
                             bool simd)
{
    size_t v = 0;
#if CNA__MORPH_SSE2
    if (simd)
        for (; v + 4 <= n; v += 4) finish_directions4_sse2(slot + v * stride, stride, sum + 3 * v);
#else
    (void)simd;
#endif
    for (; v < n; v++) finish_direction_scalar(slot + v * stride, sum + 3 * v);
}

bool cna__morph_has_simd(void) { return CNA__MORPH_SSE2 != 0; }

/* Normalise a in place; false (a unchanged) when its length is zero or not finite. */
static bool normalize3(float a[3])
{
    float len2 = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
    if (!(len2 > 0.0f) || !(len2 <= FLT_MAX)) return false;
    float len = sqrtf(len2);
    a[0] = a[0] / len;
    a[1] = a[1] / len;
    a[2] = a[2] / len;
    return true;
}

static bool kind_active(const cna_morph_target_data *d, const float *w, int kind)
{
    if (slot_offset(&d->layout, kind) < 0) return false;
    for (size_t t = 0; t < d->target_count; t++)
        if (w[t] != 0.0f && deltas_of(&d->targets[t], kind)->count > 0) return true;
    return false;
}

static void load3(float v[3], const unsigned char *p) { memcpy(v, p, 3 * sizeof(float)); }
static void store3(unsigned char *p, const float v[3]) { memcpy(p, v, 3 * sizeof(float)); }

/* Face normals from the morphed positions, tangents re-orthogonalised. */
static void recompute_flat_normals(const cna_morph_target_data *d, unsigned char *out)
{
    const size_t stride = d->layout.stride;
    const size_t po = (size_t)d->layout.position_offset, no = (size_t)d->layout.normal_offset;
    const int32_t to = d->layout.tangent_offset;
    for (size_t i = 0; i + 2 < d->triangle_index_count; i += 3) {
        const uint32_t *tri = d->triangle_indices + i;
        float p0[3], p1[3], p2[3];
        load3(p0, out + tri[0] * stride + po);
        load3(p1, out + tri[1] * stride + po);
        load3(p2, out + tri[2] * stride + po);
        float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        if (!normalize3(n)) continue;
        for (int k = 0; k < 3; k++) {
            unsigned char *vertex = out + tri[k] * stride;
            store3(vertex + no, n);
            if (to < 0) continue;
            float t[3];
            load3(t, vertex + to);
            float dot = n[0] * t[0] + n[1] * t[1] + n[2] * t[2];
            float u[3] = {t[0] - n[0] * dot, t[1] - n[1] * dot, t[2] - n[2] * dot};
            if (normalize3(u)) store3(vertex + to, u);
        }
    }
}

void cna__morph_blend_unchecked(const cna_morph_target_data *d, const float *w,
                                unsigned char *out)
{
    cna__morph_blend_path(d, w, out, true);
}

void cna__morph_blend_path(const cna_morph_target_data *d, const float *w, unsigned char *out,
                           bool simd)
{
    const unsigned char *base = d->base_vertices;
    const size_t stride = d->layout.stride;
    const size_t count = d->vertex_count;

    bool active[3], any_kind = false, any_weight = false;
    for (int k = 0; k < 3; k++) any_kind |= (active[k] = kind_active(d, w, k));
    for (size_t t = 0; t < d->target_count; t++) any_weight |= w[t] != 0.0f;
    const bool flat = d->recompute_flat_normals && any_weight;

    if (!any_kind) {
        if (count > 0) memcpy(out, base, count * stride);
        if (flat) recompute_flat_normals(d, out);
        return;
    }

    float sum[3 * BLOCK];
    for (size_t v0 = 0; v0 < count; v0 += BLOCK) {
        const size_t n = count - v0 < BLOCK ? count - v0 : BLOCK;
        unsigned char *block = out + v0 * stride;
        memcpy(block, base + v0 * stride, n * stride);
        for (int k = 0; k < 3; k++) {
            if (!active[k]) continue;
            /* The scratch starts at +0.0f: the first dense group reads 0.0f instead
             * of memory; a sparse target first clears it. */
            dense_group group;
            group.count = 0;
            group.fresh = true;
            for (size_t t = 0; t < d->target_count; t++) {
                const cna_morph_deltas *dl = deltas_of(&d->targets[t], k);
                if (w[t] == 0.0f || dl->count == 0) continue;
                if (dl->indices) {
                    flush_group(sum, &group, v0, n); /* keep the target order */
                    if (group.fresh) memset(sum, 0, 3 * n * sizeof(float));
                    group.fresh = false;
                    accumulate_sparse(sum, dl, w[t], v0, n);
                    continue;
                }
                group.src[group.count] = dl->values;
                group.w[group.count] = w[t];
                if (++group.count == 4) flush_group(sum, &group, v0, n);
            }
            flush_group(sum, &group, v0, n);
            unsigned char *slot = block + (size_t)slot_offset(&d->layout, k);
            if (k == KIND_POSITION) write_positions(slot, n, stride, sum);
            else write_directions(slot, n, stride, sum, simd);
        }
    }
    if (flat) recompute_flat_normals(d, out);
}

cna_result cna_morph_blend(const cna_morph_target_data *data, const float *weights,
                           size_t weight_count, void *out, size_t out_size, cna_error *err)
{
    cna_result r = cna_morph_target_data_validate(data, err);
    if (r != CNA_OK) return r;
    if ((r = cna__morph_check_weights(data, weights, weight_count, err)) != CNA_OK) return r;
    const size_t size = data->base_size;
    if (out_size < size)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out: %zu bytes; the blend writes %zu (vertex_count %zu * stride %u)",
                          out_size, size, data->vertex_count, (unsigned)data->layout.stride);
    if (size == 0) return CNA_OK;
    if (!out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: NULL with out_size %zu",
                          out_size);
    const uintptr_t o = (uintptr_t)out, b = (uintptr_t)data->base_vertices;
    if (o < b + size && b < o + size)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out: overlaps base_vertices (%zu bytes)", size);
    cna__morph_blend_unchecked(data, weights, out);
    return CNA_OK;
}
