/*
 * Exact CPU morph blending (include/cna/morph.h, "Exact blend"; spec:
 * BlendMorphTargetsEXT).
 *
 * The vertices are processed in blocks of BLOCK. Per block and per kind
 * (position, normal, tangent direction) the weighted deltas of every active
 * target are summed into a small float scratch on the stack,
 *   sum[3v + c] += w[t] * delta_t[3v + c],
 * a contiguous loop over 3 * BLOCK floats that the compiler vectorises; then
 * one pass copies the block's base bytes and writes base + sum into the
 * slots. The scratch stays in L1, nothing is allocated.
 */
#include <math.h>
#include <string.h>

#include "morph_internal.h"

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

/* sum[i] += w * src[i] over a full block: a fixed trip count, so the loop
 * vectorises without a scalar epilogue. */
static void accumulate_full(float *restrict sum, const float *restrict src, float w)
{
    for (size_t i = 0; i < 3 * (size_t)BLOCK; i++) sum[i] += w * src[i];
}

static void accumulate_part(float *restrict sum, const float *restrict src, float w, size_t n)
{
    for (size_t i = 0; i < 3 * n; i++) sum[i] += w * src[i];
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
        s[0] += w * src[0];
        s[1] += w * src[1];
        s[2] += w * src[2];
    }
}

/* position = base + sum */
static void write_positions(unsigned char *out, size_t n, size_t stride, const float *sum)
{
    for (size_t v = 0; v < n; v++, out += stride) {
        float p[3];
        memcpy(p, out, sizeof p);
        p[0] = p[0] + sum[3 * v + 0];
        p[1] = p[1] + sum[3 * v + 1];
        p[2] = p[2] + sum[3 * v + 2];
        memcpy(out, p, sizeof p);
    }
}

/* Normalise a in place; false (a unchanged) when its length is zero or not finite. */
static bool normalize3(float a[3])
{
    float len2 = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
    if (!(len2 > 0.0f) || isinf(len2)) return false;
    float len = sqrtf(len2);
    a[0] = a[0] / len;
    a[1] = a[1] / len;
    a[2] = a[2] / len;
    return true;
}

/* direction = normalise(base + sum), the base bytes kept when sum is (0,0,0)
 * or the result has no direction. Only xyz: a tangent's w is never touched. */
static void write_directions(unsigned char *out, size_t n, size_t stride, const float *sum)
{
    for (size_t v = 0; v < n; v++, out += stride) {
        const float *s = sum + 3 * v;
        if (s[0] == 0.0f && s[1] == 0.0f && s[2] == 0.0f) continue;
        float d[3];
        memcpy(d, out, sizeof d);
        d[0] = d[0] + s[0];
        d[1] = d[1] + s[1];
        d[2] = d[2] + s[2];
        if (normalize3(d)) memcpy(out, d, sizeof d);
    }
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
            memset(sum, 0, 3 * n * sizeof(float));
            for (size_t t = 0; t < d->target_count; t++) {
                const cna_morph_deltas *dl = deltas_of(&d->targets[t], k);
                if (w[t] == 0.0f || dl->count == 0) continue;
                if (dl->indices) accumulate_sparse(sum, dl, w[t], v0, n);
                else if (n == BLOCK) accumulate_full(sum, dl->values + 3 * v0, w[t]);
                else accumulate_part(sum, dl->values + 3 * v0, w[t], n);
            }
            unsigned char *slot = block + (size_t)slot_offset(&d->layout, k);
            if (k == KIND_POSITION) write_positions(slot, n, stride, sum);
            else write_directions(slot, n, stride, sum);
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
