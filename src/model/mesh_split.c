/*
 * Split palettes (cna_import_options.split_palettes): a packed primitive of
 * a skin with more joints than a skinned draw takes (CNA_EFFECT_MAX_BONES)
 * becomes sub-parts whose vertices use at most that many palette entries
 * each. Greedy, in the order of each primitive's lowest palette index
 * among the influences that weigh (file order among equals): a triangle (segment, point) joins the current
 * sub-part while the union of its vertices' palette indices fits; otherwise
 * the next sub-part starts with it. Palette indices go parent before child,
 * so this order keeps neighbouring joints together whatever order an
 * optimiser left the triangles in. A vertex used by several
 * sub-parts is copied into each; every joint byte is rewritten to its
 * index in the sub-part's palette, every other byte is kept. The vertices
 * no primitive uses ("spare" vertices) come last, in vertex order, each an
 * item of one vertex and no index, grouped by the same rule, so that each
 * is skinned by some sub-part (a group of spare vertices alone has no
 * indices).
 */
#include <string.h>

#include "cna/effect.h"
#include "model/mesh_internal.h"

/* The largest primitive: a triangle, 3 vertices of 4 influences. */
#define MAX_PRIMITIVE_JOINTS 12

typedef struct split_ctx {
    const cna_allocator *alloc, *out_alloc;
    const cna__packed *p;
    size_t joint_count, corners;
    size_t prims;            /* items below it are primitives, the others spare vertices */
    uint32_t *spare;         /* the spare vertices, item prims + j being spare[j] */
    size_t *joint_mark;      /* joint_count: the group that last counted the joint (1-based) */
    int32_t *sub_of;         /* joint_count: its sub-palette index in the current group */
    size_t *vertex_mark;     /* p->vertex_count: the group that last took the vertex */
    uint32_t *local_of;      /* p->vertex_count: its index in that group */
    uint32_t *gathered;      /* p->index_count: the packed vertices of the current group */
    size_t *order;           /* the primitives in grouping order */
    float *dense;            /* 3 floats per gathered vertex */
} split_ctx;

/* The vertices of item `i`: a primitive's corners, or one spare vertex. */
static size_t item_vertices(const split_ctx *s, size_t i, uint32_t out[3])
{
    if (i >= s->prims) {
        out[0] = s->spare[i - s->prims];
        return 1;
    }
    for (size_t c = 0; c < s->corners; c++) out[c] = s->p->indices[i * s->corners + c];
    return s->corners;
}

/* The distinct palette indices of item `i` (all four influences of each vertex). */
static size_t primitive_joints(const split_ctx *s, size_t i, uint32_t out[MAX_PRIMITIVE_JOINTS])
{
    size_t n = 0;
    uint32_t vs[3];
    const size_t nv = item_vertices(s, i, vs);
    for (size_t c = 0; c < nv; c++) {
        const uint32_t v = vs[c];
        for (size_t k = 0; k < 4; k++) {
            const uint32_t j = s->p->palette[4 * (size_t)v + k];
            size_t d = 0;
            while (d < n && out[d] != j) d++;
            if (d == n) out[n++] = j;
        }
    }
    return n;
}

static void free_deltas(const cna_allocator *a, cna_morph_deltas *d)
{
    cna__free(a, (void *)d->values);
    cna__free(a, (void *)d->indices);
    memset(d, 0, sizeof *d);
}

static void free_sub_part(const cna_allocator *a, cna__sub_part *sp, size_t target_count)
{
    cna__free(a, sp->vertices);
    cna__free(a, sp->indices);
    cna__free(a, sp->source_vertex);
    cna__free(a, sp->packed_vertex);
    cna__free(a, sp->palette_map);
    for (size_t t = 0; sp->targets && t < target_count; t++) {
        free_deltas(a, &sp->targets[t].positions);
        free_deltas(a, &sp->targets[t].normals);
        free_deltas(a, &sp->targets[t].tangents);
    }
    cna__free(a, sp->targets);
    memset(sp, 0, sizeof *sp);
}

/* The deltas of the sub-part's vertices (n gathered, group mark g), kept as
 * the packer keeps them: none when nothing moves, dense when more than half
 * of the vertices move, else sparse. false when out of memory. */
static bool gather_deltas(split_ctx *s, const cna_morph_deltas *src, size_t g, size_t n, cna_morph_deltas *out)
{
    *out = cna_morph_deltas_dense(NULL, 0);
    if (src->count == 0 || n == 0) return true;
    memset(s->dense, 0, n * 3 * sizeof *s->dense);
    if (src->indices) {
        for (size_t e = 0; e < src->count; e++) {
            const uint32_t v = src->indices[e];
            if (v < s->p->vertex_count && s->vertex_mark[v] == g)
                memcpy(s->dense + 3 * (size_t)s->local_of[v], src->values + 3 * e, 3 * sizeof(float));
        }
    } else {
        for (size_t l = 0; l < n; l++)
            memcpy(s->dense + 3 * l, src->values + 3 * (size_t)s->gathered[l], 3 * sizeof(float));
    }
    size_t moving = 0;
    for (size_t l = 0; l < n; l++)
        if (s->dense[3 * l] != 0.0f || s->dense[3 * l + 1] != 0.0f || s->dense[3 * l + 2] != 0.0f) moving++;
    if (moving == 0) return true;
    if (moving > n / 2) {
        float *values = (float *)cna__calloc(s->out_alloc, n, 3 * sizeof *values);
        if (!values) return false;
        memcpy(values, s->dense, n * 3 * sizeof *values);
        *out = cna_morph_deltas_dense(values, n);
        return true;
    }
    uint32_t *idx = (uint32_t *)cna__calloc(s->out_alloc, moving, sizeof *idx);
    float *values = (float *)cna__calloc(s->out_alloc, moving, 3 * sizeof *values);
    if (!idx || !values) {
        cna__free(s->out_alloc, idx);
        cna__free(s->out_alloc, values);
        return false;
    }
    size_t e = 0;
    for (size_t l = 0; l < n; l++)
        if (s->dense[3 * l] != 0.0f || s->dense[3 * l + 1] != 0.0f || s->dense[3 * l + 2] != 0.0f) {
            idx[e] = (uint32_t)l;
            memcpy(values + 3 * e, s->dense + 3 * l, 3 * sizeof *values);
            e++;
        }
    *out = cna_morph_deltas_sparse(idx, values, moving);
    return true;
}

/* Build sub-part `sp` from primitives [first, end), group mark g (1-based). */
/* The sort key of primitive `i`: its lowest palette index among the
 * influences that weigh (an exporter may fill unused influences with joint
 * 0 at weight 0), else among all. */
static uint32_t lowest_joint(const split_ctx *s, size_t i)
{
    const cna__packed *p = s->p;
    uint32_t low = UINT32_MAX, any = UINT32_MAX;
    for (size_t c = 0; c < s->corners; c++) {
        const uint32_t v = p->indices[i * s->corners + c];
        const unsigned char *vx = p->vertices + (size_t)v * p->format.stride;
        for (size_t k = 0; k < 4; k++) {
            const uint32_t j = p->palette[4 * (size_t)v + k];
            float w = 0.0f;
            if (p->format.weights >= 0) memcpy(&w, vx + p->format.weights + 4 * (int32_t)k, sizeof w);
            if (j < any) any = j;
            if (w > 0.0f && j < low) low = j;
        }
    }
    if (low == UINT32_MAX) low = any == UINT32_MAX ? 0 : any;
    return low < s->joint_count ? low : (uint32_t)(s->joint_count - 1);
}

static bool build_group(split_ctx *s, size_t first, size_t end, size_t g, cna__sub_part *sp)
{
    /* first..end are positions in s->order */
    const cna__packed *p = s->p;
    const size_t stride = p->format.stride;
    /* the sub-palette: the group's palette indices, ascending */
    int32_t palette[CNA_EFFECT_MAX_BONES + MAX_PRIMITIVE_JOINTS];
    size_t pc = 0;
    size_t n = 0;
    for (size_t o = first; o < end; o++) {
        const size_t i = s->order[o];
        uint32_t joints[MAX_PRIMITIVE_JOINTS];
        const size_t jn = primitive_joints(s, i, joints);
        for (size_t d = 0; d < jn; d++) {
            if (s->joint_mark[joints[d]] == g) continue;
            s->joint_mark[joints[d]] = g;
            size_t at = pc++;
            while (at > 0 && palette[at - 1] > (int32_t)joints[d]) {
                palette[at] = palette[at - 1];
                at--;
            }
            palette[at] = (int32_t)joints[d];
        }
        uint32_t vs[3];
        const size_t nv = item_vertices(s, i, vs);
        for (size_t c = 0; c < nv; c++) {
            const uint32_t v = vs[c];
            if (s->vertex_mark[v] == g) continue;
            s->vertex_mark[v] = g;
            s->local_of[v] = (uint32_t)n;
            s->gathered[n++] = v;
        }
    }
    if (pc == 0) palette[pc++] = 0; /* an empty primitive: a palette of one entry */
    for (size_t k = 0; k < pc; k++) s->sub_of[palette[k]] = (int32_t)k;
    size_t real = 0; /* the primitives among the items (they come before the spare vertices) */
    for (size_t o = first; o < end; o++) real += s->order[o] < s->prims;
    const size_t ic = real * s->corners;
    sp->vertices = (unsigned char *)cna__calloc(s->out_alloc, n ? n : 1, stride);
    sp->indices = (uint32_t *)cna__calloc(s->out_alloc, ic ? ic : 1, sizeof *sp->indices);
    sp->source_vertex = (uint32_t *)cna__calloc(s->out_alloc, n ? n : 1, sizeof *sp->source_vertex);
    sp->packed_vertex = (uint32_t *)cna__calloc(s->out_alloc, n ? n : 1, sizeof *sp->packed_vertex);
    sp->palette_map = (int32_t *)cna__calloc(s->out_alloc, pc, sizeof *sp->palette_map);
    sp->targets = p->target_count
                      ? (cna_morph_target *)cna__calloc(s->out_alloc, p->target_count, sizeof *sp->targets)
                      : NULL;
    if (!sp->vertices || !sp->indices || !sp->source_vertex || !sp->packed_vertex || !sp->palette_map ||
        (p->target_count && !sp->targets))
        return false;
    sp->vertex_count = n;
    sp->index_count = ic;
    sp->palette_count = pc;
    memcpy(sp->palette_map, palette, pc * sizeof *palette);
    for (size_t l = 0; l < n; l++) {
        const uint32_t v = s->gathered[l];
        unsigned char *dst = sp->vertices + l * stride;
        memcpy(dst, p->vertices + (size_t)v * stride, stride);
        for (size_t k = 0; k < 4; k++) dst[p->format.joints + (int32_t)k] = (unsigned char)s->sub_of[p->palette[4 * (size_t)v + k]];
        sp->source_vertex[l] = p->source_vertex ? p->source_vertex[v] : v;
        sp->packed_vertex[l] = v;
    }
    for (size_t o = first; o < first + real; o++)
        for (size_t c = 0; c < s->corners; c++)
            sp->indices[(o - first) * s->corners + c] = s->local_of[p->indices[s->order[o] * s->corners + c]];
    for (size_t t = 0; t < p->target_count; t++)
        if (!gather_deltas(s, &p->targets[t].positions, g, n, &sp->targets[t].positions) ||
            !gather_deltas(s, &p->targets[t].normals, g, n, &sp->targets[t].normals) ||
            !gather_deltas(s, &p->targets[t].tangents, g, n, &sp->targets[t].tangents))
            return false;
    return true;
}

cna_result cna__split_palettes(const cna_allocator *alloc, const cna_allocator *out_alloc,
                               const cna__packed *p, size_t joint_count, size_t max_palette,
                               const char *what, cna__sub_part **parts, size_t *count, cna_error *err)
{
    if (!p || !p->palette || joint_count == 0 || max_palette < MAX_PRIMITIVE_JOINTS ||
        max_palette > CNA_EFFECT_MAX_BONES || !parts || !count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: split: bad arguments", what);
    split_ctx s;
    memset(&s, 0, sizeof s);
    s.alloc = alloc;
    s.out_alloc = out_alloc;
    s.p = p;
    s.joint_count = joint_count;
    s.corners = p->topology == CNA__TOPOLOGY_TRIANGLES ? 3 : p->topology == CNA__TOPOLOGY_LINES ? 2 : 1;
    const size_t prims = p->index_count / s.corners;
    const size_t nv = p->vertex_count ? p->vertex_count : 1;
    s.prims = prims;
    s.joint_mark = (size_t *)cna__calloc(alloc, joint_count, sizeof *s.joint_mark);
    s.sub_of = (int32_t *)cna__calloc(alloc, joint_count, sizeof *s.sub_of);
    s.vertex_mark = (size_t *)cna__calloc(alloc, nv, sizeof *s.vertex_mark);
    s.local_of = (uint32_t *)cna__calloc(alloc, nv, sizeof *s.local_of);
    s.spare = (uint32_t *)cna__calloc(alloc, nv, sizeof *s.spare);
    /* the spare vertices: those no primitive uses (vertex_mark as scratch) */
    size_t spares = 0;
    if (s.vertex_mark && s.spare) {
        for (size_t k = 0; k < prims * s.corners; k++) s.vertex_mark[p->indices[k]] = 1;
        for (size_t v = 0; v < p->vertex_count; v++)
            if (!s.vertex_mark[v]) s.spare[spares++] = (uint32_t)v;
        memset(s.vertex_mark, 0, nv * sizeof *s.vertex_mark);
    }
    const size_t items = prims + spares, most = p->index_count + spares; /* most vertices in one group */
    s.gathered = (uint32_t *)cna__calloc(alloc, most ? most : 1, sizeof *s.gathered);
    s.dense = (float *)cna__calloc(alloc, most ? most : 1, 3 * sizeof *s.dense);
    size_t *starts = (size_t *)cna__calloc(alloc, items + 2, sizeof *starts);
    s.order = (size_t *)cna__calloc(alloc, items ? items : 1, sizeof *s.order);
    size_t *bucket = (size_t *)cna__calloc(alloc, joint_count + 1, sizeof *bucket);
    cna__sub_part *out = NULL;
    size_t groups = 0;
    bool ok = s.joint_mark && s.sub_of && s.vertex_mark && s.local_of && s.spare && s.gathered && s.dense && starts &&
              s.order && bucket;
    if (ok) {
        /* The grouping order: a stable counting sort by the lowest palette index. */
        for (size_t i = 0; i < prims; i++) {
            const uint32_t low = lowest_joint(&s, i);
            bucket[low + 1]++;
        }
        for (size_t j = 0; j < joint_count; j++) bucket[j + 1] += bucket[j];
        for (size_t i = 0; i < prims; i++) {
            const uint32_t low = lowest_joint(&s, i);
            s.order[bucket[low]++] = i;
        }
        for (size_t j = 0; j < spares; j++) s.order[prims + j] = prims + j; /* then the spare vertices */
        /* Pass 1: where each group starts (joint_mark holds group numbers 1, 2, ...). */
        size_t g = 1, used = 0;
        starts[0] = 0;
        for (size_t o = 0; o < items; o++) {
            const size_t i = s.order[o];
            uint32_t joints[MAX_PRIMITIVE_JOINTS];
            const size_t jn = primitive_joints(&s, i, joints);
            size_t fresh = 0;
            for (size_t d = 0; d < jn; d++)
                if (s.joint_mark[joints[d]] != g) fresh++;
            if (used + fresh > max_palette) {
                starts[g++] = o;
                used = 0;
                fresh = jn;
            }
            for (size_t d = 0; d < jn; d++) s.joint_mark[joints[d]] = g;
            used += fresh;
        }
        groups = g;
        starts[groups] = items;
        /* Pass 2: the sub-parts, group marks continuing after pass 1's. */
        out = (cna__sub_part *)cna__calloc(out_alloc, groups, sizeof *out);
        ok = out != NULL;
        for (size_t k = 0; ok && k < groups; k++)
            ok = build_group(&s, starts[k], starts[k + 1], groups + 1 + k, &out[k]);
    }
    cna__free(alloc, s.joint_mark);
    cna__free(alloc, s.sub_of);
    cna__free(alloc, s.vertex_mark);
    cna__free(alloc, s.local_of);
    cna__free(alloc, s.spare);
    cna__free(alloc, s.gathered);
    cna__free(alloc, s.dense);
    cna__free(alloc, starts);
    cna__free(alloc, s.order);
    cna__free(alloc, bucket);
    if (!ok) {
        for (size_t k = 0; out && k < groups; k++) free_sub_part(out_alloc, &out[k], p->target_count);
        cna__free(out_alloc, out);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    }
    *parts = out;
    *count = groups;
    return CNA_OK;
}
