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
 * Group path (the AVX path of cna__morph_path; x86-64 with gcc or clang,
 * chosen at run time when the CPU has AVX2 and FMA): eight vertices at a
 * time with nothing in memory between the deltas and the output
 * (morph_group.inc, written on the SIMD vocabulary of core/vec.h and
 * compiled for AVX2 + FMA, without any multiply-add). It takes the
 * canonical layouts and up to CNA__MORPH_MAX_OPS active targets per kind;
 * the block path does the rest and the last count % 8 vertices.
 *
 * Zero-weight targets are skipped everywhere; a sparse target costs its
 * entries (plus one comparison per group of eight), not the vertex count.
 * CNA_NO_SIMD (defined at compile time) removes the SSE2 and group paths;
 * the scalar path is always compiled.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "morph_internal.h"

#include "core/simd.h"
#include "core/vec.h"
#include "morph/morph_group.h"

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

/* The same for four vertices at once (the SSE2 path): sqrt and division
 * round correctly in every implementation of the vocabulary and the
 * operations run in the scalar order, so the bits are the scalar path's. */
static void finish_directions4(unsigned char *p, size_t stride, const float *sum)
{
    unsigned char *const p0 = p, *const p1 = p + stride, *const p2 = p1 + stride,
                         *const p3 = p2 + stride;
    vf4 sx, sy, sz;
    vf4_load_xyz4(sum, &sx, &sy, &sz);
    const vf4 zero = vf4_zero();
    const vf4 moved =
        vf4_or(vf4_or(vf4_cmpneq(sx, zero), vf4_cmpneq(sy, zero)), vf4_cmpneq(sz, zero));
    if (vf4_movemask(moved) == 0) return;
    const vf4 x = vf4_add(vf4_setr(load_f(p0), load_f(p1), load_f(p2), load_f(p3)), sx);
    const vf4 y =
        vf4_add(vf4_setr(load_f(p0 + 4), load_f(p1 + 4), load_f(p2 + 4), load_f(p3 + 4)), sy);
    const vf4 z =
        vf4_add(vf4_setr(load_f(p0 + 8), load_f(p1 + 8), load_f(p2 + 8), load_f(p3 + 8)), sz);
    /* (x*x + y*y) + z*z, the scalar order */
    const vf4 len2 = vf4_add(vf4_add(vf4_mul(x, x), vf4_mul(y, y)), vf4_mul(z, z));
    const vf4 valid = vf4_and(vf4_cmpgt(len2, zero), vf4_cmple(len2, vf4_set1(FLT_MAX)));
    const int mask = vf4_movemask(vf4_and(moved, valid));
    /* Lanes outside the mask divide by 0 or inf harmlessly (exceptions are
     * masked) and are not stored. */
    const vf4 len = vf4_sqrt(len2);
    float rx[4], ry[4], rz[4];
    vf4_storeu(rx, vf4_div(x, len));
    vf4_storeu(ry, vf4_div(y, len));
    vf4_storeu(rz, vf4_div(z, len));
    unsigned char *const lanes[4] = {p0, p1, p2, p3};
    for (int k = 0; k < 4; k++) {
        if (!(mask & (1 << k))) continue;
        store_f(lanes[k] + 0, rx[k]);
        store_f(lanes[k] + 4, ry[k]);
        store_f(lanes[k] + 8, rz[k]);
    }
}

static void write_directions(unsigned char *slot, size_t n, size_t stride, const float *sum,
                             bool simd)
{
    size_t v = 0;
    if (simd)
        for (; v + 4 <= n; v += 4) finish_directions4(slot + v * stride, stride, sum + 3 * v);
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

/* The group path's instance (NULL: not in this build). */
static void (*const group_path)(const cna_morph_target_data *, cna__morph_plan *, int,
                                unsigned char *, size_t) =
#if CNA__SIMD_AVX2
    cna__morph_groups_avx2;
#else
    NULL;
#endif

/* ------------------------------------------------------------------ group path
 * Eight vertices at a time in registers (morph_group.inc, compiled for
 * AVX2 + FMA; see there). More than CNA__MORPH_MAX_OPS active targets of a
 * kind, a stride that is not a multiple of 4 or a slot too close to the end
 * of the vertex send the whole blend to the block path, which also does the
 * last count % 8 vertices. */
/* Plan the active kinds in increasing slot offset order; false when the
 * layout or the number of active targets does not suit the group path. */
static bool plan_groups(const cna_morph_target_data *d, const float *w, const bool active[3],
                     cna__morph_plan plans[3], int *plan_count)
{
    const size_t stride = d->layout.stride;
    if (stride % 4 != 0) return false;
    int n = 0;
    for (int k = 0; k < 3; k++) {
        if (!active[k]) continue;
        const size_t offset = (size_t)slot_offset(&d->layout, k);
        if (offset % 4 != 0 || offset + 16 > stride) return false;
        cna__morph_plan *p = &plans[n];
        p->offset = offset;
        p->direction = k != KIND_POSITION;
        p->op_count = 0;
        p->dense_count = 0;
        p->next_sparse = SIZE_MAX;
        for (size_t t = 0; t < d->target_count; t++) {
            const cna_morph_deltas *dl = deltas_of(&d->targets[t], k);
            if (w[t] == 0.0f || dl->count == 0) continue;
            if (p->op_count == CNA__MORPH_MAX_OPS) return false;
            cna__morph_op *op = &p->ops[p->op_count++];
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
            cna__morph_plan tmp = plans[i];
            plans[i] = plans[i - 1];
            plans[i - 1] = tmp;
        }
        n++;
    }
    *plan_count = n;
    return true;
}


bool cna__morph_path_available(cna__morph_path path)
{
    switch (path) {
    case CNA__MORPH_PATH_SCALAR: return true;
    case CNA__MORPH_PATH_SSE2: return CNA__SIMD_SSE2 != 0;
    case CNA__MORPH_PATH_AVX: return group_path != NULL && cna__cpu_has_avx2_fma();
    default: return false;
    }
}

bool cna__morph_has_simd(void) { return CNA__SIMD_SSE2 != 0; }

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
    if (path == CNA__MORPH_PATH_AVX && count >= 8) {
        cna__morph_plan plans[3];
        int plan_count = 0;
        if (plan_groups(d, w, active, plans, &plan_count)) {
            first = count - count % 8;
            group_path(d, plans, plan_count, out, first);
        }
    }
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
