/*
 * Exact CPU morph blending (include/cna/morph.h, "Exact blend"; spec:
 * BlendMorphTargetsEXT). Three code paths write the same bytes
 * (cna__morph_path in morph_internal.h; tests/morph/test_morph_paths.c
 * compares each with the scalar one bit for bit):
 *
 * Block path (scalar, and SSE2 with simd): the vertices are processed in
 * blocks of BLOCK, with a fixed scratch on the stack (3 KiB, it stays in L1;
 * nothing is allocated). Per block:
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
 *
 * AVX path (x86-64, chosen at run time when the CPU has AVX; the code is
 * compiled for AVX with a target attribute, the rest of the library stays
 * baseline): eight vertices at a time with nothing in memory between the
 * deltas and the output; see "AVX path" below. It takes the canonical
 * layouts and up to MAX_OPS active targets per kind; the block path does
 * the rest and the last count % 8 vertices.
 *
 * Zero-weight targets are skipped everywhere; a sparse target costs its
 * entries (plus one comparison per group of eight), not the vertex count.
 * CNA_NO_SIMD (defined at compile time) removes the SSE2 and AVX paths; the
 * scalar path is always compiled.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "morph_internal.h"

#include "core/simd.h"
#if CNA__SIMD_SSE2
#define CNA__MORPH_SSE2 1
#include <emmintrin.h>
#else
#define CNA__MORPH_SSE2 0
#endif
/* The AVX path: x86-64 with gcc or clang (target attributes, runtime check). */
#if CNA__MORPH_SSE2 && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CNA__MORPH_AVX 1
#include <immintrin.h>
#else
#define CNA__MORPH_AVX 0
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

/* The block path (scalar, or SSE2 directions with simd) for the vertices
 * [first, count); `active` says which kinds some active target carries. */
static void blend_blocks(const cna_morph_target_data *d, const float *w, unsigned char *out,
                         const bool active[3], size_t first, bool simd)
{
    const unsigned char *base = d->base_vertices;
    const size_t stride = d->layout.stride;
    const size_t count = d->vertex_count;
    float sum[3 * BLOCK];
    for (size_t v0 = first; v0 < count; v0 += BLOCK) {
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
}

#if CNA__MORPH_AVX
/* ------------------------------------------------------------------ AVX path
 * Eight vertices (a group) at a time, nothing in memory between the deltas
 * and the output. Per kind, the active targets' deltas are summed in target
 * order in three registers holding the 24 floats x0 y0 z0 x1 ... z7 of the
 * group, exactly as the scalar path sums them (0 + w0*d0, then + w1*d1, ...:
 * the same operations per float, so the same bits). A sparse target adds in
 * its place in that order: a group it lists whole is eight consecutive
 * triples (added like a dense target's), a group it lists in part goes
 * through memory one vertex at a time, and a group no sparse target lists
 * (next_sparse) runs the dense targets only. The sums are then transposed to
 * x, y, z lanes and the result computed lane-wise in the scalar order
 * (base + sum; directions normalised with correctly rounded sqrt and
 * division, base lanes kept where the scalar path keeps them). Two forms:
 *   rows     position at 0 and/or a direction at 12 (every canonical layout):
 *            the first 32 bytes of the eight vertices are eight registers, an
 *            8x8 transpose gives position and normal lanes, a second one the
 *            rows back, stored whole; at stride 32 that is the whole vertex
 *            (nothing else is copied), else the group is copied first;
 *   windows  any other slot (the PBR tangent at 32, custom layouts): the
 *            group is copied first, then per slot four floats per vertex (xyz
 *            and the next float) are loaded, transposed, computed, transposed
 *            back and stored, the fourth float being the base bytes it was
 *            loaded from; slots are stored in increasing offset order, so a
 *            fourth float that overlaps the next slot is overwritten by that
 *            slot's own store. Needs offset + 16 <= stride.
 * Dense deltas too many to stay in L2 are prefetched PREFETCH_GROUPS groups
 * ahead. More than MAX_OPS active targets of a kind, a stride that is not a
 * multiple of 4 or a slot too close to the end of the vertex send the whole
 * blend to the block path, which also does the last count % 8 vertices.
 * AVX without FMA (the multiply and the add stay two roundings). */
enum { MAX_OPS = 32, PREFETCH_GROUPS = 8 };

/* Compiled for AVX whatever the build's baseline; only called after the
 * run-time check (cna__morph_path_available). */
#define AVX_FN __attribute__((target("avx")))
#define AVX_INLINE __attribute__((target("avx"), always_inline)) static inline

typedef struct blend_op {
    const float *values;
    const uint32_t *indices; /* NULL: dense */
    size_t count;
    size_t next;        /* sparse: first entry not yet added */
    size_t next_vertex; /* sparse: its vertex (SIZE_MAX: none left) */
    float w;
} blend_op;

typedef struct kind_plan {
    size_t offset;
    bool direction;
    size_t op_count;
    bool prefetch; /* the dense deltas are too many to stay in L2: prefetch them */
    /* The first vertex any sparse op still has to add (SIZE_MAX: none); a
     * group below it needs only the dense ops, in their order. */
    size_t next_sparse;
    size_t dense_count;
    const float *dense_values[MAX_OPS];
    float dense_weights[MAX_OPS];
    blend_op ops[MAX_OPS];
} kind_plan;

AVX_INLINE __m256 load8(const float *p) { return _mm256_loadu_ps(p); }

/* Four floats at any byte address. */
AVX_INLINE __m128 loadu4(const unsigned char *p)
{
    return _mm_loadu_ps((const float *)(const void *)p);
}
AVX_INLINE void storeu4(unsigned char *p, __m128 v) { _mm_storeu_ps((float *)(void *)p, v); }

/* Rows of four floats at p, p + stride, ... (vertices 0..7) as x, y, z, e lanes. */
AVX_INLINE void gather8(const unsigned char *p, size_t stride, __m256 *x, __m256 *y, __m256 *z,
                        __m256 *e)
{
    /* addresses p + {0, 1, 2, 3} * stride and p4 = p + 4 * stride + the same:
     * one addressing mode each */
    const unsigned char *p4 = p + 4 * stride;
    const size_t s3 = 3 * stride;
    const __m256 r0 = _mm256_insertf128_ps(_mm256_castps128_ps256(loadu4(p)), loadu4(p4), 1);
    const __m256 r1 =
        _mm256_insertf128_ps(_mm256_castps128_ps256(loadu4(p + stride)), loadu4(p4 + stride), 1);
    const __m256 r2 = _mm256_insertf128_ps(_mm256_castps128_ps256(loadu4(p + 2 * stride)),
                                           loadu4(p4 + 2 * stride), 1);
    const __m256 r3 =
        _mm256_insertf128_ps(_mm256_castps128_ps256(loadu4(p + s3)), loadu4(p4 + s3), 1);
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    *x = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    *y = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    *z = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    *e = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/* The inverse of gather8: x, y, z, e lanes stored as rows of four floats. */
AVX_INLINE void scatter8(unsigned char *p, size_t stride, __m256 x, __m256 y, __m256 z, __m256 e)
{
    unsigned char *p4 = p + 4 * stride;
    const size_t s3 = 3 * stride;
    const __m256 u0 = _mm256_unpacklo_ps(x, y), u1 = _mm256_unpackhi_ps(x, y);
    const __m256 u2 = _mm256_unpacklo_ps(z, e), u3 = _mm256_unpackhi_ps(z, e);
    const __m256 r0 = _mm256_shuffle_ps(u0, u2, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 r1 = _mm256_shuffle_ps(u0, u2, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 r2 = _mm256_shuffle_ps(u1, u3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 r3 = _mm256_shuffle_ps(u1, u3, _MM_SHUFFLE(3, 2, 3, 2));
    storeu4(p, _mm256_castps256_ps128(r0));
    storeu4(p + stride, _mm256_castps256_ps128(r1));
    storeu4(p + 2 * stride, _mm256_castps256_ps128(r2));
    storeu4(p + s3, _mm256_castps256_ps128(r3));
    storeu4(p4, _mm256_extractf128_ps(r0, 1));
    storeu4(p4 + stride, _mm256_extractf128_ps(r1, 1));
    storeu4(p4 + 2 * stride, _mm256_extractf128_ps(r2, 1));
    storeu4(p4 + s3, _mm256_extractf128_ps(r3, 1));
}

/* mask ? a : b, lane-wise, by bits (so no value is touched). */
AVX_INLINE __m256 select8(__m256 mask, __m256 a, __m256 b)
{
    return _mm256_or_ps(_mm256_and_ps(mask, a), _mm256_andnot_ps(mask, b));
}

/* The lanes of one kind of one group (windows form). `moved` is all-zero
 * when nothing is to be stored (a direction whose sums are all zero); for
 * positions it is all-ones. */
typedef struct group_lanes {
    __m256 x, y, z;    /* base + sum */
    __m256 bx, by, bz; /* the base */
    __m256 e;          /* the fourth float after the slot (base bytes) */
    __m256 moved;
} group_lanes;

/* sum += w * (24 consecutive floats at src): eight vertices' triples. */
#define CNA__ADD_TRIPLES(w, src)                                                                   \
    do {                                                                                           \
        a0 = _mm256_add_ps(a0, _mm256_mul_ps(w, load8(src)));                                      \
        a1 = _mm256_add_ps(a1, _mm256_mul_ps(w, load8((src) + 8)));                                \
        a2 = _mm256_add_ps(a2, _mm256_mul_ps(w, load8((src) + 16)));                               \
    } while (0)

/* The sums of one kind for eight vertices [v0, v0 + 8), in target order,
 * as x, y, z lanes. */
AVX_INLINE void sums8(kind_plan *plan, size_t v0, __m256 *sx, __m256 *sy, __m256 *sz)
{
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0;
    if (v0 + 8 <= plan->next_sparse) {
        for (size_t i = 0; i < plan->dense_count; i++) {
            const __m256 w = _mm256_set1_ps(plan->dense_weights[i]);
            const float *src = plan->dense_values[i] + 3 * v0;
            if (plan->prefetch) {
                /* 96 bytes a group: two lines, PREFETCH_GROUPS groups ahead (a
                 * prefetch past the end of the array never faults) */
                const char *ahead = (const char *)(src + 24 * PREFETCH_GROUPS);
                _mm_prefetch(ahead, _MM_HINT_T0);
                _mm_prefetch(ahead + 64, _MM_HINT_T0);
            }
            CNA__ADD_TRIPLES(w, src);
        }
    } else {
        size_t next_sparse = SIZE_MAX;
        for (size_t i = 0; i < plan->op_count; i++) {
            blend_op *op = &plan->ops[i];
            if (!op->indices) {
                const __m256 w = _mm256_set1_ps(op->w);
                CNA__ADD_TRIPLES(w, op->values + 3 * v0);
                continue;
            }
            if (op->next_vertex >= v0 + 8) { /* nothing here (SIZE_MAX: done) */
                if (op->next_vertex < next_sparse) next_sparse = op->next_vertex;
                continue;
            }
            size_t j = op->next;
            if (j + 8 <= op->count && op->indices[j + 7] == v0 + 7 && op->next_vertex == v0) {
                /* the whole group is listed (the indices strictly increase):
                 * eight consecutive triples, added as dense ones */
                const __m256 w = _mm256_set1_ps(op->w);
                CNA__ADD_TRIPLES(w, op->values + 3 * j);
                j += 8;
            } else {
                /* some of the eight: through memory, one vertex at a time */
                float s[24];
                _mm256_storeu_ps(s, a0);
                _mm256_storeu_ps(s + 8, a1);
                _mm256_storeu_ps(s + 16, a2);
                do {
                    float *f = s + 3 * (op->indices[j] - v0);
                    const float *src = op->values + 3 * j;
                    f[0] = f[0] + op->w * src[0];
                    f[1] = f[1] + op->w * src[1];
                    f[2] = f[2] + op->w * src[2];
                    j++;
                } while (j < op->count && op->indices[j] < v0 + 8);
                a0 = _mm256_loadu_ps(s);
                a1 = _mm256_loadu_ps(s + 8);
                a2 = _mm256_loadu_ps(s + 16);
            }
            op->next = j;
            op->next_vertex = j < op->count ? op->indices[j] : SIZE_MAX;
            if (op->next_vertex < next_sparse) next_sparse = op->next_vertex;
        }
        plan->next_sparse = next_sparse;
    }
    /* x0 y0 z0 x1 ... z7 -> x, y, z lanes (as finish_directions4_sse2, per half) */
    const __m256 m03 = _mm256_permute2f128_ps(a0, a1, 0x30);
    const __m256 m14 = _mm256_permute2f128_ps(a0, a2, 0x21);
    const __m256 m25 = _mm256_permute2f128_ps(a1, a2, 0x30);
    const __m256 xy = _mm256_shuffle_ps(m14, m25, _MM_SHUFFLE(2, 1, 3, 2));
    const __m256 yz = _mm256_shuffle_ps(m03, m14, _MM_SHUFFLE(1, 0, 2, 1));
    *sx = _mm256_shuffle_ps(m03, xy, _MM_SHUFFLE(2, 0, 3, 0));
    *sy = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
    *sz = _mm256_shuffle_ps(yz, m25, _MM_SHUFFLE(3, 0, 3, 1));
}

/* One kind of eight vertices [v0, v0 + 8) through 16-byte windows: the
 * sums, the base slots, base + sum. */
AVX_INLINE void kind8_sum(kind_plan *plan, size_t v0, const unsigned char *base_slot, size_t stride,
                          group_lanes *g)
{
    __m256 sx, sy, sz;
    sums8(plan, v0, &sx, &sy, &sz);
    if (plan->direction) {
        const __m256 zero = _mm256_setzero_ps();
        g->moved = _mm256_or_ps(_mm256_or_ps(_mm256_cmp_ps(sx, zero, _CMP_NEQ_UQ),
                                             _mm256_cmp_ps(sy, zero, _CMP_NEQ_UQ)),
                                _mm256_cmp_ps(sz, zero, _CMP_NEQ_UQ));
        if (_mm256_movemask_ps(g->moved) == 0) return; /* the copied base bytes stay */
    } else {
        g->moved = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    }
    gather8(base_slot, stride, &g->bx, &g->by, &g->bz, &g->e);
    g->x = _mm256_add_ps(g->bx, sx);
    g->y = _mm256_add_ps(g->by, sy);
    g->z = _mm256_add_ps(g->bz, sz);
}

/* Then normalise (directions) and store. */
AVX_INLINE void kind8_store(const group_lanes *g, bool direction, unsigned char *out_slot,
                            size_t stride)
{
    if (!direction) {
        scatter8(out_slot, stride, g->x, g->y, g->z, g->e);
        return;
    }
    if (_mm256_movemask_ps(g->moved) == 0) return;
    const __m256 x = g->x, y = g->y, z = g->z, zero = _mm256_setzero_ps();
    /* (x*x + y*y) + z*z, the scalar order */
    const __m256 len2 =
        _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(y, y)), _mm256_mul_ps(z, z));
    const __m256 valid = _mm256_and_ps(_mm256_cmp_ps(len2, zero, _CMP_GT_OQ),
                                       _mm256_cmp_ps(len2, _mm256_set1_ps(FLT_MAX), _CMP_LE_OQ));
    const __m256 keep = _mm256_and_ps(g->moved, valid);
    if (_mm256_movemask_ps(keep) == 0) return;
    /* Lanes outside `keep` divide by 0 or inf harmlessly (exceptions are
     * masked) and take the base lanes. */
    const __m256 len = _mm256_sqrt_ps(len2);
    scatter8(out_slot, stride, select8(keep, _mm256_div_ps(x, len), g->bx),
             select8(keep, _mm256_div_ps(y, len), g->by),
             select8(keep, _mm256_div_ps(z, len), g->bz), g->e);
}

/* Copy n bytes, n a multiple of 32 (8 * stride, stride a multiple of 4). */
AVX_INLINE void copy_group(unsigned char *dst, const unsigned char *src, size_t n)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(src + i + 32));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), a);
        _mm256_storeu_si256((__m256i *)(void *)(dst + i + 32), b);
    }
    if (i < n)
        _mm256_storeu_si256((__m256i *)(void *)(dst + i),
                            _mm256_loadu_si256((const __m256i *)(const void *)(src + i)));
}

/* 8x8 transpose of the named variables r0..r7 into c0..c7 (c_j = lane j of
 * r0..r7, in order); its own inverse. A macro, so that every value stays in
 * a register. */
#define CNA__TRANSPOSE8(r0, r1, r2, r3, r4, r5, r6, r7, c0, c1, c2, c3, c4, c5, c6, c7)            \
    do {                                                                                           \
        const __m256 t0_ = _mm256_unpacklo_ps(r0, r1), t1_ = _mm256_unpackhi_ps(r0, r1);           \
        const __m256 t2_ = _mm256_unpacklo_ps(r2, r3), t3_ = _mm256_unpackhi_ps(r2, r3);           \
        const __m256 t4_ = _mm256_unpacklo_ps(r4, r5), t5_ = _mm256_unpackhi_ps(r4, r5);           \
        const __m256 t6_ = _mm256_unpacklo_ps(r6, r7), t7_ = _mm256_unpackhi_ps(r6, r7);           \
        const __m256 s0_ = _mm256_shuffle_ps(t0_, t2_, _MM_SHUFFLE(1, 0, 1, 0));                   \
        const __m256 s1_ = _mm256_shuffle_ps(t0_, t2_, _MM_SHUFFLE(3, 2, 3, 2));                   \
        const __m256 s2_ = _mm256_shuffle_ps(t1_, t3_, _MM_SHUFFLE(1, 0, 1, 0));                   \
        const __m256 s3_ = _mm256_shuffle_ps(t1_, t3_, _MM_SHUFFLE(3, 2, 3, 2));                   \
        const __m256 s4_ = _mm256_shuffle_ps(t4_, t6_, _MM_SHUFFLE(1, 0, 1, 0));                   \
        const __m256 s5_ = _mm256_shuffle_ps(t4_, t6_, _MM_SHUFFLE(3, 2, 3, 2));                   \
        const __m256 s6_ = _mm256_shuffle_ps(t5_, t7_, _MM_SHUFFLE(1, 0, 1, 0));                   \
        const __m256 s7_ = _mm256_shuffle_ps(t5_, t7_, _MM_SHUFFLE(3, 2, 3, 2));                   \
        c0 = _mm256_permute2f128_ps(s0_, s4_, 0x20);                                               \
        c1 = _mm256_permute2f128_ps(s1_, s5_, 0x20);                                               \
        c2 = _mm256_permute2f128_ps(s2_, s6_, 0x20);                                               \
        c3 = _mm256_permute2f128_ps(s3_, s7_, 0x20);                                               \
        c4 = _mm256_permute2f128_ps(s0_, s4_, 0x31);                                               \
        c5 = _mm256_permute2f128_ps(s1_, s5_, 0x31);                                               \
        c6 = _mm256_permute2f128_ps(s2_, s6_, 0x31);                                               \
        c7 = _mm256_permute2f128_ps(s3_, s7_, 0x31);                                               \
    } while (0)

/* The first 32 bytes of each vertex (position at 0, normal at 12, then the
 * first texcoord) as one row each: eight rows, one 8x8 transpose, the
 * position and normal lanes computed, transposed back, eight 32-byte
 * stores. For stride 32 that is the whole vertex (no copy); otherwise the
 * group is copied first and the rows overwrite their 32 bytes. */
AVX_FN static void rows8_avx(kind_plan *position, kind_plan *normal, size_t v0,
                             const unsigned char *b, unsigned char *o, size_t stride)
{
#define CNA__ROW(i) _mm256_loadu_ps((const float *)(const void *)(b + (i)*stride))
    __m256 c0, c1, c2, c3, c4, c5, c6, c7;
    CNA__TRANSPOSE8(CNA__ROW(0), CNA__ROW(1), CNA__ROW(2), CNA__ROW(3), CNA__ROW(4), CNA__ROW(5),
                    CNA__ROW(6), CNA__ROW(7), c0, c1, c2, c3, c4, c5, c6, c7);
#undef CNA__ROW
    if (position) {
        __m256 sx, sy, sz;
        sums8(position, v0, &sx, &sy, &sz);
        c0 = _mm256_add_ps(c0, sx);
        c1 = _mm256_add_ps(c1, sy);
        c2 = _mm256_add_ps(c2, sz);
    }
    if (normal) {
        __m256 sx, sy, sz;
        sums8(normal, v0, &sx, &sy, &sz);
        const __m256 zero = _mm256_setzero_ps();
        const __m256 moved = _mm256_or_ps(_mm256_or_ps(_mm256_cmp_ps(sx, zero, _CMP_NEQ_UQ),
                                                       _mm256_cmp_ps(sy, zero, _CMP_NEQ_UQ)),
                                          _mm256_cmp_ps(sz, zero, _CMP_NEQ_UQ));
        if (_mm256_movemask_ps(moved) != 0) {
            const __m256 x = _mm256_add_ps(c3, sx), y = _mm256_add_ps(c4, sy),
                         z = _mm256_add_ps(c5, sz);
            const __m256 len2 = _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(y, y)), _mm256_mul_ps(z, z));
            const __m256 keep = _mm256_and_ps(
                moved, _mm256_and_ps(_mm256_cmp_ps(len2, zero, _CMP_GT_OQ),
                                     _mm256_cmp_ps(len2, _mm256_set1_ps(FLT_MAX), _CMP_LE_OQ)));
            if (_mm256_movemask_ps(keep) != 0) {
                const __m256 len = _mm256_sqrt_ps(len2);
                c3 = select8(keep, _mm256_div_ps(x, len), c3);
                c4 = select8(keep, _mm256_div_ps(y, len), c4);
                c5 = select8(keep, _mm256_div_ps(z, len), c5);
            }
        }
    }
    __m256 r0, r1, r2, r3, r4, r5, r6, r7;
    CNA__TRANSPOSE8(c0, c1, c2, c3, c4, c5, c6, c7, r0, r1, r2, r3, r4, r5, r6, r7);
    float *f = (float *)(void *)o;
    const size_t s = stride / sizeof(float);
    _mm256_storeu_ps(f, r0);
    _mm256_storeu_ps(f + s, r1);
    _mm256_storeu_ps(f + 2 * s, r2);
    _mm256_storeu_ps(f + 3 * s, r3);
    _mm256_storeu_ps(f + 4 * s, r4);
    _mm256_storeu_ps(f + 5 * s, r5);
    _mm256_storeu_ps(f + 6 * s, r6);
    _mm256_storeu_ps(f + 7 * s, r7);
}

AVX_FN static void blend_groups_avx(const cna_morph_target_data *d, kind_plan *plans,
                                    int plan_count, unsigned char *out, size_t end)
{
    const unsigned char *base = d->base_vertices;
    const size_t stride = d->layout.stride;
    /* the rows form: position and normal (those active) at 0 and 12 */
    kind_plan *position = NULL, *normal = NULL;
    int first = 0;
    for (; first < plan_count; first++) {
        kind_plan *p = &plans[first];
        if (p->offset == 0 && !p->direction)
            position = p;
        else if (p->offset == 12 && p->direction)
            normal = p;
        else
            break;
    }
    const bool rows = stride >= 32 && first > 0;
    if (!rows) first = 0;
    for (size_t v0 = 0; v0 < end; v0 += 8) {
        const unsigned char *b = base + v0 * stride;
        unsigned char *o = out + v0 * stride;
        if (!rows || stride > 32) copy_group(o, b, 8 * stride);
        if (rows) rows8_avx(position, normal, v0, b, o, stride);
        for (int k = first; k < plan_count; k++) {
            group_lanes g;
            kind8_sum(&plans[k], v0, b + plans[k].offset, stride, &g);
            kind8_store(&g, plans[k].direction, o + plans[k].offset, stride);
        }
    }
}

/* Plan the active kinds in increasing slot offset order; false when the
 * layout or the number of active targets does not suit the AVX path. */
static bool plan_avx(const cna_morph_target_data *d, const float *w, const bool active[3],
                     kind_plan plans[3], int *plan_count)
{
    const size_t stride = d->layout.stride;
    if (stride % 4 != 0) return false;
    int n = 0;
    for (int k = 0; k < 3; k++) {
        if (!active[k]) continue;
        const size_t offset = (size_t)slot_offset(&d->layout, k);
        if (offset % 4 != 0 || offset + 16 > stride) return false;
        kind_plan *p = &plans[n];
        p->offset = offset;
        p->direction = k != KIND_POSITION;
        p->op_count = 0;
        p->dense_count = 0;
        p->next_sparse = SIZE_MAX;
        for (size_t t = 0; t < d->target_count; t++) {
            const cna_morph_deltas *dl = deltas_of(&d->targets[t], k);
            if (w[t] == 0.0f || dl->count == 0) continue;
            if (p->op_count == MAX_OPS) return false;
            blend_op *op = &p->ops[p->op_count++];
            op->values = dl->values;
            op->indices = dl->indices;
            op->count = dl->count;
            op->next = 0;
            op->next_vertex = dl->indices ? dl->indices[0] : 0;
            op->w = w[t];
            if (dl->indices) {
                if (dl->indices[0] < p->next_sparse) p->next_sparse = dl->indices[0];
            } else {
                p->dense_values[p->dense_count] = dl->values;
                p->dense_weights[p->dense_count++] = w[t];
            }
        }
        /* dense deltas beyond about half of L2: fetch them ahead */
        p->prefetch = p->dense_count * d->vertex_count * 12 > (size_t)512 * 1024;
        /* insertion by offset (at most three) */
        for (int i = n; i > 0 && plans[i - 1].offset > plans[i].offset; i--) {
            kind_plan tmp = plans[i];
            plans[i] = plans[i - 1];
            plans[i - 1] = tmp;
        }
        n++;
    }
    *plan_count = n;
    return true;
}

static bool cpu_has_avx(void) { return __builtin_cpu_supports("avx") != 0; }
#endif /* CNA__MORPH_AVX */

bool cna__morph_path_available(cna__morph_path path)
{
    switch (path) {
    case CNA__MORPH_PATH_SCALAR: return true;
    case CNA__MORPH_PATH_SSE2: return CNA__MORPH_SSE2 != 0;
    case CNA__MORPH_PATH_AVX:
#if CNA__MORPH_AVX
        return cpu_has_avx();
#else
        return false;
#endif
    default: return false;
    }
}

bool cna__morph_has_simd(void) { return CNA__MORPH_SSE2 != 0; }

cna__morph_path cna__morph_best_path(void)
{
    if (cna__morph_path_available(CNA__MORPH_PATH_AVX)) return CNA__MORPH_PATH_AVX;
    if (cna__morph_path_available(CNA__MORPH_PATH_SSE2)) return CNA__MORPH_PATH_SSE2;
    return CNA__MORPH_PATH_SCALAR;
}

void cna__morph_blend_unchecked(const cna_morph_target_data *d, const float *w,
                                unsigned char *out)
{
    cna__morph_blend_with(d, w, out, cna__morph_best_path());
}

void cna__morph_blend_path(const cna_morph_target_data *d, const float *w, unsigned char *out,
                           bool simd)
{
    cna__morph_blend_with(d, w, out, simd ? cna__morph_best_path() : CNA__MORPH_PATH_SCALAR);
}

void cna__morph_blend_with(const cna_morph_target_data *d, const float *w, unsigned char *out,
                           cna__morph_path path)
{
    const unsigned char *base = d->base_vertices;
    const size_t stride = d->layout.stride;
    const size_t count = d->vertex_count;
    if (!cna__morph_path_available(path)) path = CNA__MORPH_PATH_SCALAR;

    bool active[3], any_kind = false, any_weight = false;
    for (int k = 0; k < 3; k++) any_kind |= (active[k] = kind_active(d, w, k));
    for (size_t t = 0; t < d->target_count; t++) any_weight |= w[t] != 0.0f;
    const bool flat = d->recompute_flat_normals && any_weight;

    if (!any_kind) {
        if (count > 0) memcpy(out, base, count * stride);
        if (flat) recompute_flat_normals(d, out);
        return;
    }

    size_t first = 0;
#if CNA__MORPH_AVX
    if (path == CNA__MORPH_PATH_AVX && count >= 8) {
        kind_plan plans[3];
        int plan_count = 0;
        if (plan_avx(d, w, active, plans, &plan_count)) {
            first = count - count % 8;
            blend_groups_avx(d, plans, plan_count, out, first);
        }
    }
#endif
    blend_blocks(d, w, out, active, first, path != CNA__MORPH_PATH_SCALAR);
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
