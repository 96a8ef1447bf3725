/*
 * Packing one glTF primitive into the canonical interleaved layout
 * (docs/vertex-layouts.md): file vertex order, indices as lists, skin
 * influences (four largest kept, renormalised, JOINTS rewritten from joint
 * ordinals to palette indices), the flat-normal split, morph deltas.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/mesh_internal.h"

/* Tolerance on a vertex's weight sum before it is renormalised: |1 - sum| > 1e-3. */
#define WEIGHT_SUM_TOLERANCE 1e-3

typedef struct pack_ctx {
    const cna_allocator *alloc;
    const cna__pack_input *in;
    const cna_gltf_primitive *prim;
    char where[160];     /* "meshes[0].primitives[1] (nodes[3])" */
    cna_error *err;
} pack_ctx;

static cna_result oom(pack_ctx *c)
{
    return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", c->where);
}

/* Read every element of an accessor as floats into a new array of `count`
 * floats (count must equal the accessor's float count). */
static cna_result read_floats(pack_ctx *c, int32_t accessor, size_t count, float **out)
{
    if (cna_gltf_accessor_float_count(c->in->doc, accessor) != count)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: accessors[%d] has %zu components; expected %zu", c->where,
                          (int)accessor, cna_gltf_accessor_float_count(c->in->doc, accessor), count);
    float *v = cna__calloc(c->alloc, count, sizeof *v);
    if (!v) return oom(c);
    cna_result r = cna_gltf_accessor_read_floats(c->in->doc, accessor, v, count, c->err);
    if (r) {
        cna__free(c->alloc, v);
        cna__error_prefix(c->err, "%s", c->where);
        return r;
    }
    *out = v;
    return CNA_OK;
}

static cna_result read_uints(pack_ctx *c, int32_t accessor, size_t count, uint32_t **out)
{
    if (cna_gltf_accessor_float_count(c->in->doc, accessor) != count)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: accessors[%d] has %zu components; expected %zu", c->where,
                          (int)accessor, cna_gltf_accessor_float_count(c->in->doc, accessor), count);
    uint32_t *v = cna__calloc(c->alloc, count, sizeof *v);
    if (!v) return oom(c);
    cna_result r = cna_gltf_accessor_read_uints(c->in->doc, accessor, v, count, c->err);
    if (r) {
        cna__free(c->alloc, v);
        cna__error_prefix(c->err, "%s", c->where);
        return r;
    }
    *out = v;
    return CNA_OK;
}

static size_t components_of(pack_ctx *c, int32_t accessor)
{
    return cna_gltf_type_component_count(c->in->doc->accessors[accessor].type);
}

/* Write `comps` floats per vertex at `offset`, reading `src_comps` per vertex. */
static void scatter(unsigned char *dst, size_t stride, int32_t offset, const float *src,
                    size_t src_comps, size_t comps, size_t n)
{
    for (size_t v = 0; v < n; v++) memcpy(dst + v * stride + offset, src + v * src_comps, comps * 4);
}

/* ------------------------------------------------------------------ indices */

static void note_dropped(pack_ctx *c, cna__pack_diag *d, size_t dropped, size_t count,
                         const char *what)
{
    if (dropped == 0) return;
    if (d->dropped_indices == 0)
        snprintf(d->dropped_message, sizeof d->dropped_message,
                 "%s: %zu indices (mode %s) do not form whole %s; the last %zu are ignored",
                 c->where, count, cna_gltf_primitive_mode_name(c->prim->mode), what, dropped);
    d->dropped_indices += dropped;
}

/* The primitive's indices (or 0..n-1) as a list of its topology. */
static cna_result build_indices(pack_ctx *c, uint32_t **out, size_t *out_count,
                                cna__topology *topology, cna__pack_diag *d)
{
    const cna_gltf_primitive *p = c->prim;
    size_t count;
    uint32_t *raw = NULL;
    if (p->indices >= 0) {
        count = c->in->doc->accessors[p->indices].count;
        cna_result r = read_uints(c, p->indices, count, &raw);
        if (r) return r;
    } else {
        count = p->vertex_count;
        raw = cna__calloc(c->alloc, count, sizeof *raw);
        if (!raw) return oom(c);
        for (size_t i = 0; i < count; i++) raw[i] = (uint32_t)i;
    }
    size_t n = 0;
    uint32_t *list = NULL;
    switch (p->mode) {
    case CNA_GLTF_MODE_POINTS:
        *topology = CNA__TOPOLOGY_POINTS;
        *out = raw;
        *out_count = count;
        return CNA_OK;
    case CNA_GLTF_MODE_TRIANGLES:
        *topology = CNA__TOPOLOGY_TRIANGLES;
        note_dropped(c, d, count % 3, count, "triangles");
        *out = raw;
        *out_count = count - count % 3;
        return CNA_OK;
    case CNA_GLTF_MODE_LINES:
        *topology = CNA__TOPOLOGY_LINES;
        note_dropped(c, d, count % 2, count, "segments");
        *out = raw;
        *out_count = count - count % 2;
        return CNA_OK;
    case CNA_GLTF_MODE_TRIANGLE_STRIP:
    case CNA_GLTF_MODE_TRIANGLE_FAN: {
        *topology = CNA__TOPOLOGY_TRIANGLES;
        const size_t tris = count >= 3 ? count - 2 : 0;
        note_dropped(c, d, count < 3 ? count : 0, count, "triangles");
        list = cna__calloc(c->alloc, tris, 3 * sizeof *list);
        if (!list) break;
        for (size_t i = 0; i < tris; i++) {
            uint32_t *t = list + 3 * i;
            if (p->mode == CNA_GLTF_MODE_TRIANGLE_FAN) {
                /* glTF 2.0: p_i = {v_{i+1}, v_{i+2}, v_0} */
                t[0] = raw[i + 1], t[1] = raw[i + 2], t[2] = raw[0];
            } else if (i % 2 == 0) {
                /* p_i = {v_i, v_{i+1}, v_{i+2}} for even i */
                t[0] = raw[i], t[1] = raw[i + 1], t[2] = raw[i + 2];
            } else {
                /* p_i = {v_i, v_{i+2}, v_{i+1}} for odd i (keeps the winding) */
                t[0] = raw[i], t[1] = raw[i + 2], t[2] = raw[i + 1];
            }
        }
        n = 3 * tris;
        break;
    }
    case CNA_GLTF_MODE_LINE_STRIP:
    case CNA_GLTF_MODE_LINE_LOOP: {
        *topology = CNA__TOPOLOGY_LINES;
        const bool loop = p->mode == CNA_GLTF_MODE_LINE_LOOP;
        const size_t segs = count >= 2 ? (loop ? count : count - 1) : 0;
        note_dropped(c, d, count < 2 ? count : 0, count, "segments");
        list = cna__calloc(c->alloc, segs, 2 * sizeof *list);
        if (!list) break;
        for (size_t i = 0; i < segs; i++) {
            list[2 * i] = raw[i];
            list[2 * i + 1] = raw[(i + 1) % count];
        }
        n = 2 * segs;
        break;
    }
    default:
        cna__free(c->alloc, raw);
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: mode %d is not a primitive mode",
                          c->where, (int)p->mode);
    }
    cna__free(c->alloc, raw);
    if (!list) return oom(c);
    *out = list;
    *out_count = n;
    return CNA_OK;
}

/* ------------------------------------------------------------------ influences */

typedef struct influence {
    uint32_t joint;   /* joint ordinal, as in the file */
    float weight;
    int32_t set;      /* JOINTS_<set> */
    int32_t slot;     /* component 0..3 */
} influence;

typedef struct skin_sets {
    size_t count;
    int32_t *set;         /* set numbers, ascending */
    uint32_t **joints;    /* 4n per set */
    float **weights;      /* 4n per set */
} skin_sets;

static void skin_sets_free(pack_ctx *c, skin_sets *s)
{
    for (size_t i = 0; i < s->count; i++) {
        if (s->joints) cna__free(c->alloc, s->joints[i]);
        if (s->weights) cna__free(c->alloc, s->weights[i]);
    }
    cna__free(c->alloc, s->set);
    cna__free(c->alloc, s->joints);
    cna__free(c->alloc, s->weights);
    memset(s, 0, sizeof *s);
}

static cna_result skin_sets_read(pack_ctx *c, skin_sets *s)
{
    const cna_gltf_primitive *p = c->prim;
    const size_t n = p->vertex_count;
    memset(s, 0, sizeof *s);
    size_t count = 0;
    for (size_t i = 0; i < p->attribute_count; i++)
        if (p->attributes[i].kind == CNA_GLTF_ATTRIBUTE_JOINTS) count++;
    if (count == 0)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: skinned by skins[%d], but the primitive has no JOINTS_0", c->where,
                          (int)c->in->skin);
    s->set = cna__calloc(c->alloc, count, sizeof *s->set);
    s->joints = cna__calloc(c->alloc, count, sizeof *s->joints);
    s->weights = cna__calloc(c->alloc, count, sizeof *s->weights);
    if (!s->set || !s->joints || !s->weights) {
        skin_sets_free(c, s);
        return oom(c);
    }
    /* set numbers in ascending order (JOINTS_0 first), whatever the file order */
    for (size_t i = 0; i < p->attribute_count; i++) {
        const cna_gltf_attribute *a = &p->attributes[i];
        if (a->kind != CNA_GLTF_ATTRIBUTE_JOINTS) continue;
        size_t k = s->count++;
        while (k > 0 && s->set[k - 1] > a->set) {
            s->set[k] = s->set[k - 1];
            k--;
        }
        s->set[k] = a->set;
    }
    for (size_t i = 0; i < s->count; i++) {
        const int32_t ja = cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_JOINTS, s->set[i]);
        const int32_t wa = cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_WEIGHTS, s->set[i]);
        if (wa < 0) {
            skin_sets_free(c, s);
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: JOINTS_%d has no WEIGHTS_%d",
                              c->where, (int)s->set[i], (int)s->set[i]);
        }
        cna_result r = read_uints(c, ja, 4 * n, &s->joints[i]);
        if (!r) r = read_floats(c, wa, 4 * n, &s->weights[i]);
        if (r) {
            skin_sets_free(c, s);
            return r;
        }
        /* A negative weight is an error in glTF 2.0 (a vertex pulled away from a
         * joint); refused even when the weights sum to one. */
        for (size_t k = 0; k < 4 * n; k++) {
            if (s->weights[i][k] < 0.0f) {
                const double w = (double)s->weights[i][k];
                const int set = (int)s->set[i];
                skin_sets_free(c, s);
                return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                                  "%s: WEIGHTS_%d vertex %zu has a negative weight %.9g", c->where, set,
                                  k / 4, w);
            }
        }
    }
    return CNA_OK;
}

/* The four kept influences of vertex v: all of them with one set; otherwise
 * the four largest weights (ties: the earlier set and slot), in set/slot
 * order. Returns whether an influence with a non-zero weight was dropped and
 * the number of non-zero influences in *nonzero. */
static bool select_influences(const skin_sets *s, size_t v, influence kept[4], size_t *nonzero)
{
    influence all[4 * 64];
    size_t n = 0;
    *nonzero = 0;
    for (size_t i = 0; i < s->count && i < 64; i++)
        for (int k = 0; k < 4; k++) {
            influence f = {s->joints[i][4 * v + (size_t)k], s->weights[i][4 * v + (size_t)k],
                           s->set[i], k};
            all[n++] = f;
            if (f.weight != 0.0f) (*nonzero)++;
        }
    if (n == 4) {
        memcpy(kept, all, 4 * sizeof *kept);
        return false;
    }
    bool picked[4 * 64] = {false};
    for (int k = 0; k < 4; k++) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < n; i++)
            if (!picked[i] && (best == SIZE_MAX || all[i].weight > all[best].weight)) best = i;
        picked[best] = true;
    }
    bool dropped = false;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (picked[i]) kept[m++] = all[i];
        else if (all[i].weight != 0.0f) dropped = true;
    }
    return dropped;
}

static void format_weights(char *buf, size_t size, const influence f[4])
{
    snprintf(buf, size, "(%.9g, %.9g, %.9g, %.9g)", (double)f[0].weight, (double)f[1].weight,
             (double)f[2].weight, (double)f[3].weight);
}

/* Normalise the kept weights: w_i = (float)(w_i / sum), sum in double;
 * a zero (or non-finite, or negative) sum gives (1, 0, 0, 0). */
static void normalize_weights(influence f[4], double sum)
{
    if (!(sum > 0.0) || !isfinite(sum)) {
        for (int k = 0; k < 4; k++) f[k].weight = k == 0 ? 1.0f : 0.0f;
        return;
    }
    for (int k = 0; k < 4; k++) f[k].weight = (float)((double)f[k].weight / sum);
}

static cna_result write_influences(pack_ctx *c, const skin_sets *s, const cna__vertex_format *fmt,
                                   unsigned char *vertices, uint32_t *wide, cna__pack_diag *d)
{
    const size_t n = c->prim->vertex_count;
    const size_t stride = fmt->stride;
    for (size_t v = 0; v < n; v++) {
        influence f[4];
        memset(f, 0, sizeof f);
        size_t nonzero = 0;
        const bool dropped = select_influences(s, v, f, &nonzero);
        const double sum = (double)f[0].weight + (double)f[1].weight + (double)f[2].weight +
                           (double)f[3].weight;
        if (dropped) {
            if (d->truncated == 0) {
                char w[128];
                format_weights(w, sizeof w, f);
                int cut = snprintf(d->truncated_message, sizeof d->truncated_message,
                         "%s: vertex %zu has %zu influences; the 4 largest %s are kept and "
                         "renormalised",
                         c->where, v, nonzero, w);
                (void)cut; /* a long message is cut, by design */
            }
            d->truncated++;
            normalize_weights(f, sum);
        } else if (!(fabs(1.0 - sum) <= WEIGHT_SUM_TOLERANCE)) {
            if (d->renormalized == 0) {
                char w[128];
                format_weights(w, sizeof w, f);
                int cut = snprintf(d->renormalized_message, sizeof d->renormalized_message,
                         "%s: the weights %s of vertex %zu sum to %.9g; normalised%s", c->where, w,
                         v, sum, sum > 0.0 ? "" : " to (1, 0, 0, 0)");
                (void)cut; /* a long message is cut, by design */
            }
            d->renormalized++;
            normalize_weights(f, sum);
        }
        uint8_t palette[4];
        float weights[4];
        for (int k = 0; k < 4; k++) {
            uint32_t ordinal = f[k].joint;
            weights[k] = f[k].weight;
            if (ordinal >= c->in->joint_count) {
                if (f[k].weight == 0.0f) {
                    palette[k] = 0; /* an unused influence: any valid index will do */
                    if (wide) wide[4 * v + (size_t)k] = 0;
                    continue;
                }
                return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                                  "%s: JOINTS_%d of vertex %zu, component %d: joint %u is not "
                                  "below the joint count %zu of skins[%d]",
                                  c->where, (int)f[k].set, v, (int)f[k].slot, (unsigned)ordinal,
                                  c->in->joint_count, (int)c->in->skin);
            }
            const int32_t p = c->in->ordinal_to_palette[ordinal];
            if (wide && p >= 0 && (size_t)p < c->in->joint_count) {
                wide[4 * v + (size_t)k] = (uint32_t)p; /* the split writes the byte */
                palette[k] = 0;
                continue;
            }
            if (p < 0 || p > 255)
                return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                                  "%s: JOINTS_%d of vertex %zu, component %d: joint %u maps to "
                                  "palette index %d, which does not fit a byte",
                                  c->where, (int)f[k].set, v, (int)f[k].slot, (unsigned)ordinal,
                                  (int)p);
            palette[k] = (uint8_t)p;
        }
        memcpy(vertices + v * stride + fmt->joints, palette, 4);
        memcpy(vertices + v * stride + fmt->weights, weights, sizeof weights);
    }
    return CNA_OK;
}

/* ------------------------------------------------------------------ attributes */

static uint8_t color_byte(float c)
{
    if (!(c > 0.0f)) return 0;  /* also NaN */
    if (c >= 1.0f) return 255;
    return (uint8_t)lrintf(c * 255.0f);
}

/* Fill every component of the base vertices except joints and weights. */
static cna_result write_attributes(pack_ctx *c, const cna__vertex_format *fmt, bool tangent_file,
                                   unsigned char *vb)
{
    const cna_gltf_primitive *p = c->prim;
    const size_t n = p->vertex_count, stride = fmt->stride;
    const int32_t pos = cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_POSITION, 0);
    const int32_t nrm = cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_NORMAL, 0);
    const int32_t tan = cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_TANGENT, 0);
    const int32_t uv0 = cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_TEXCOORD, 0);
    const int32_t uv1 = cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_TEXCOORD, 1);
    const int32_t col = cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_COLOR, 0);
    float *tmp = NULL;
    cna_result r;
    if (pos >= 0) {
        if ((r = read_floats(c, pos, 3 * n, &tmp))) return r;
        if (c->in->unit_scale != 1.0f)
            for (size_t i = 0; i < 3 * n; i++) tmp[i] = tmp[i] * c->in->unit_scale;
        scatter(vb, stride, fmt->position, tmp, 3, 3, n);
        cna__free(c->alloc, tmp);
    }
    if (nrm >= 0) {
        if ((r = read_floats(c, nrm, 3 * n, &tmp))) return r;
        scatter(vb, stride, fmt->normal, tmp, 3, 3, n);
        cna__free(c->alloc, tmp);
    }
    if (uv0 >= 0) {
        if ((r = read_floats(c, uv0, 2 * n, &tmp))) return r;
        scatter(vb, stride, fmt->texcoord0, tmp, 2, 2, n);
        cna__free(c->alloc, tmp);
    }
    if (fmt->tangent >= 0) {
        if (tangent_file) {
            if ((r = read_floats(c, tan, 4 * n, &tmp))) return r;
            scatter(vb, stride, fmt->tangent, tmp, 4, 4, n);
            cna__free(c->alloc, tmp);
        } else {
            /* no authored tangent: direction (0,0,0), handedness +1 */
            const float none[4] = {0.0f, 0.0f, 0.0f, 1.0f};
            for (size_t v = 0; v < n; v++) memcpy(vb + v * stride + fmt->tangent, none, sizeof none);
        }
    }
    if (fmt->texcoord1 >= 0 && uv1 >= 0) {
        if ((r = read_floats(c, uv1, 2 * n, &tmp))) return r;
        scatter(vb, stride, fmt->texcoord1, tmp, 2, 2, n);
        cna__free(c->alloc, tmp);
    }
    if (fmt->color >= 0) {
        const size_t comps = col >= 0 ? components_of(c, col) : 0;
        if (col >= 0 && (comps == 3 || comps == 4)) {
            if ((r = read_floats(c, col, comps * n, &tmp))) return r;
            for (size_t v = 0; v < n; v++) {
                const float *s = tmp + v * comps;
                const uint8_t rgba[4] = {color_byte(s[0]), color_byte(s[1]), color_byte(s[2]),
                                         comps == 4 ? color_byte(s[3]) : (uint8_t)255};
                memcpy(vb + v * stride + fmt->color, rgba, 4);
            }
            cna__free(c->alloc, tmp);
        } else {
            const uint8_t white[4] = {255, 255, 255, 255};
            for (size_t v = 0; v < n; v++) memcpy(vb + v * stride + fmt->color, white, 4);
        }
    }
    return CNA_OK;
}

/* ------------------------------------------------------------------ flat split */

/* Every triangle corner becomes its own vertex: vertex k = file vertex
 * indices[k], indices become 0..count-1, normals per face. The file
 * vertices no triangle uses follow, in file order, each once (drawn by no
 * index, but skinned and morphed like the others, so that every vertex of
 * the POSITION accessor has its posed position). */
static cna_result split_flat(pack_ctx *c, cna__packed *p)
{
    const size_t stride = p->format.stride, count = p->index_count, file_n = p->vertex_count;
    unsigned char *used = cna__calloc(c->alloc, file_n ? file_n : 1, 1);
    if (!used) return oom(c);
    size_t extra = file_n;
    for (size_t k = 0; k < count; k++)
        if (!used[p->indices[k]]) used[p->indices[k]] = 1, extra--;
    const size_t total = count + extra;
    unsigned char *vb = cna__calloc(c->alloc, total ? total : 1, stride);
    uint32_t *src = cna__calloc(c->alloc, total ? total : 1, sizeof *src);
    uint32_t *wide = p->palette ? cna__calloc(c->alloc, total ? total : 1, 4 * sizeof *wide) : NULL;
    if (!vb || !src || (p->palette && !wide)) {
        cna__free(c->alloc, used);
        cna__free(c->alloc, vb);
        cna__free(c->alloc, src);
        cna__free(c->alloc, wide);
        return oom(c);
    }
    for (size_t k = 0; k < count; k++) {
        memcpy(vb + k * stride, p->vertices + (size_t)p->indices[k] * stride, stride);
        if (wide) memcpy(wide + 4 * k, p->palette + 4 * (size_t)p->indices[k], 4 * sizeof *wide);
        src[k] = p->indices[k];
        p->indices[k] = (uint32_t)k;
    }
    for (size_t v = 0, k = count; v < file_n; v++) {
        if (used[v]) continue;
        memcpy(vb + k * stride, p->vertices + v * stride, stride);
        if (wide) memcpy(wide + 4 * k, p->palette + 4 * v, 4 * sizeof *wide);
        src[k++] = (uint32_t)v;
    }
    cna__free(c->alloc, used);
    if (wide) {
        cna__free(c->alloc, p->palette);
        p->palette = wide;
    }
    for (size_t k = 0; k + 2 < count; k += 3) {
        float q[3][3], n[3];
        for (int i = 0; i < 3; i++) memcpy(q[i], vb + (k + (size_t)i) * stride, sizeof q[i]);
        cna__flat_normal(q[0], q[1], q[2], n);
        for (int i = 0; i < 3; i++)
            memcpy(vb + (k + (size_t)i) * stride + p->format.normal, n, sizeof n);
    }
    cna__free(c->alloc, p->vertices);
    p->vertices = vb;
    p->source_vertex = src;
    p->vertex_count = total;
    p->flat_normals = true;
    return CNA_OK;
}

/* ------------------------------------------------------------------ morph deltas */

static cna_result keep_block(pack_ctx *c, cna__packed *p, void *block)
{
    if (!block) return CNA_OK;
    void **grown = cna__calloc(c->alloc, p->block_count + 1, sizeof *grown);
    if (!grown) {
        cna__free(c->alloc, block);
        return oom(c);
    }
    if (p->block_count) memcpy(grown, p->blocks, p->block_count * sizeof *grown);
    cna__free(c->alloc, p->blocks);
    p->blocks = grown;
    p->blocks[p->block_count++] = block;
    return CNA_OK;
}

/* Read one kind of deltas (3 floats per file vertex), expand it through the
 * split map, and store it as none (all zero), sparse (at most half the
 * vertices move) or dense. */
static cna_result build_deltas(pack_ctx *c, cna__packed *p, int32_t accessor, float scale,
                               cna_morph_deltas *out)
{
    const size_t file_n = c->prim->vertex_count;
    float *file = NULL;
    cna_result r = read_floats(c, accessor, 3 * file_n, &file);
    if (r) return r;
    if (scale != 1.0f)
        for (size_t i = 0; i < 3 * file_n; i++) file[i] = file[i] * scale;
    const size_t n = p->vertex_count;
    float *dense = file;
    if (p->source_vertex) {
        dense = cna__calloc(c->alloc, n, 3 * sizeof *dense);
        if (!dense) {
            cna__free(c->alloc, file);
            return oom(c);
        }
        for (size_t v = 0; v < n; v++) memcpy(dense + 3 * v, file + 3 * (size_t)p->source_vertex[v], 12);
        cna__free(c->alloc, file);
    }
    size_t moving = 0;
    for (size_t v = 0; v < n; v++)
        if (dense[3 * v] != 0.0f || dense[3 * v + 1] != 0.0f || dense[3 * v + 2] != 0.0f) moving++;
    if (moving == 0) {
        cna__free(c->alloc, dense);
        *out = cna_morph_deltas_dense(NULL, 0);
        return CNA_OK;
    }
    if (moving > n / 2) {
        if ((r = keep_block(c, p, dense))) return r;
        *out = cna_morph_deltas_dense(dense, n);
        return CNA_OK;
    }
    uint32_t *idx = cna__calloc(c->alloc, moving, sizeof *idx);
    float *vals = cna__calloc(c->alloc, moving, 3 * sizeof *vals);
    if (!idx || !vals) {
        cna__free(c->alloc, idx);
        cna__free(c->alloc, vals);
        cna__free(c->alloc, dense);
        return oom(c);
    }
    size_t j = 0;
    for (size_t v = 0; v < n; v++)
        if (dense[3 * v] != 0.0f || dense[3 * v + 1] != 0.0f || dense[3 * v + 2] != 0.0f) {
            idx[j] = (uint32_t)v;
            memcpy(vals + 3 * j, dense + 3 * v, 12);
            j++;
        }
    cna__free(c->alloc, dense);
    if ((r = keep_block(c, p, idx))) {
        cna__free(c->alloc, vals);
        return r;
    }
    if ((r = keep_block(c, p, vals))) return r;
    *out = cna_morph_deltas_sparse(idx, vals, moving);
    return CNA_OK;
}

static cna_result build_targets(pack_ctx *c, cna__packed *p)
{
    const cna_gltf_primitive *prim = c->prim;
    if (prim->target_count == 0) return CNA_OK;
    p->targets = cna__calloc(c->alloc, prim->target_count, sizeof *p->targets);
    if (!p->targets) return oom(c);
    p->target_count = prim->target_count;
    const bool base_normals = !p->flat_normals &&
                              cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_NORMAL, 0) >= 0;
    for (size_t t = 0; t < prim->target_count; t++) {
        const cna_gltf_morph_target *src = &prim->targets[t];
        cna_morph_target *dst = &p->targets[t];
        cna_result r = CNA_OK;
        if (src->position >= 0) r = build_deltas(c, p, src->position, c->in->unit_scale, &dst->positions);
        /* Normal and tangent deltas only move attributes the file authored: a
         * flat-normal part recomputes its normals, and a default tangent has
         * no direction to morph. */
        if (!r && src->normal >= 0 && base_normals) r = build_deltas(c, p, src->normal, 1.0f, &dst->normals);
        if (!r && src->tangent >= 0 && p->tangent_from_file)
            r = build_deltas(c, p, src->tangent, 1.0f, &dst->tangents);
        if (r) return r;
    }
    return CNA_OK;
}

/* ------------------------------------------------------------------ the primitive */

void cna__packed_release(const cna_allocator *alloc, cna__packed *p)
{
    if (!p) return;
    cna__free(alloc, p->vertices);
    cna__free(alloc, p->indices);
    cna__free(alloc, p->source_vertex);
    cna__free(alloc, p->palette);
    cna__free(alloc, p->targets);
    for (size_t i = 0; i < p->block_count; i++) cna__free(alloc, p->blocks[i]);
    cna__free(alloc, p->blocks);
    memset(p, 0, sizeof *p);
}

cna_result cna__pack_primitive(const cna_allocator *alloc, const cna__pack_input *in,
                               cna__packed *out, cna_error *err)
{
    if (!in || !in->doc || !out || in->mesh < 0 || (size_t)in->mesh >= in->doc->mesh_count ||
        in->primitive < 0 ||
        (size_t)in->primitive >= in->doc->meshes[in->mesh].primitive_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "pack: bad mesh or primitive index");
    if (in->ordinal_to_palette == NULL && in->joint_count > 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "pack: joint map NULL with %zu joints",
                          in->joint_count);
    pack_ctx c = {alloc, in, &in->doc->meshes[in->mesh].primitives[in->primitive], {0}, err};
    snprintf(c.where, sizeof c.where, "meshes[%d].primitives[%d] (nodes[%d])", (int)in->mesh,
             (int)in->primitive, (int)in->node);
    const cna_gltf_primitive *prim = c.prim;
    const bool skinned = in->ordinal_to_palette != NULL;
    const bool has_pos = cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_POSITION, 0) >= 0;
    const bool has_nrm = cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_NORMAL, 0) >= 0;
    const bool has_tan = cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_TANGENT, 0) >= 0;
    const bool has_uv1 = cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_TEXCOORD, 1) >= 0;
    const bool has_col = cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_COLOR, 0) >= 0;

    cna__packed p;
    memset(&p, 0, sizeof p);
    /* glTF 2.0: without normals, flat normals are computed and the file's
     * tangents are ignored. */
    p.tangent_from_file = has_tan && has_nrm;
    const uint32_t stride = cna__vertex_stride_select(skinned, p.tangent_from_file, has_uv1, has_col);
    cna__vertex_format_for_stride(stride, &p.format);
    p.vertex_count = prim->vertex_count;

    cna_result r = build_indices(&c, &p.indices, &p.index_count, &p.topology, &p.diag);
    if (r) return r;
    p.vertices = cna__calloc(alloc, p.vertex_count, stride);
    if (!p.vertices) r = oom(&c);
    if (!r) r = write_attributes(&c, &p.format, p.tangent_from_file, p.vertices);
    if (!r && skinned) {
        skin_sets sets;
        r = skin_sets_read(&c, &sets);
        if (!r && in->wide_palette) {
            p.palette = cna__calloc(alloc, p.vertex_count ? p.vertex_count : 1, 4 * sizeof *p.palette);
            if (!p.palette) {
                skin_sets_free(&c, &sets);
                r = oom(&c);
            }
        }
        if (!r) {
            r = write_influences(&c, &sets, &p.format, p.vertices, p.palette, &p.diag);
            skin_sets_free(&c, &sets);
        }
    }
    if (!r && !has_nrm && has_pos && p.topology == CNA__TOPOLOGY_TRIANGLES) r = split_flat(&c, &p);
    if (!r) r = build_targets(&c, &p);
    if (r) {
        cna__packed_release(alloc, &p);
        return r;
    }
    *out = p;
    return CNA_OK;
}
