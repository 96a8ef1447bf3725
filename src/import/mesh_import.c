/*
 * The mesh import (model_internal.h, step 3): every part of every mesh gets
 * its packed vertices, indices, declaration, morph carrier and weight
 * tracks; every mesh its bounding sphere (of the loaded morph pose, blended
 * into scratch memory: the model keeps no blended bytes).
 *
 * Placements of one primitive (one glTF mesh instanced by several nodes,
 * with the same glTF skin or none) share one copy of the packed vertices,
 * indices, source map and morph deltas: the first placement's; each gets its
 * own part and morph carrier (its own initial weights).
 *
 * Ownership: every array lives in the model's arena, so cna_model_free
 * releases it on every refusal path too.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cna/player.h"
#include "cna/skinning.h"
#include "model/mesh_internal.h"
#include "model/model_internal.h"

static cna_result oom(cna_error *err)
{
    return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (meshes)");
}

static void *arena_hook_alloc(void *user, size_t size) { return cna__arena_alloc(user, size); }
static void arena_hook_free(void *user, void *ptr)
{
    (void)user;
    (void)ptr; /* freed with the arena */
}

/* A copy of `size` bytes in the arena (NULL source with size 0: an empty array). */
static void *arena_copy(cna__arena *arena, const void *src, size_t size)
{
    void *p = cna__arena_alloc(arena, size ? size : 1);
    if (p && size) memcpy(p, src, size);
    return p;
}

static cna_primitive_type primitive_type_of(cna__topology t)
{
    switch (t) {
    case CNA__TOPOLOGY_LINES: return CNA_PRIMITIVE_TYPE_LINE_LIST;
    case CNA__TOPOLOGY_POINTS: return CNA_PRIMITIVE_TYPE_POINT_LIST;
    default: return CNA_PRIMITIVE_TYPE_TRIANGLE_LIST;
    }
}

/* ------------------------------------------------------------------ weight tracks */

/* Per glTF mesh: the weight-track array (one entry per animation), built once
 * and shared by every part of every placement of that mesh. */
typedef struct track_cache {
    const cna_morph_weight_track *const **by_mesh; /* doc mesh_count entries, NULL = not built */
} track_cache;

static cna_result tracks_for_mesh(cna__import_ctx *ctx, track_cache *cache, int32_t gltf_mesh,
                                  const cna_morph_weight_track *const **out, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    if (cache->by_mesh[gltf_mesh]) {
        *out = cache->by_mesh[gltf_mesh];
        return CNA_OK;
    }
    const size_t anims = doc->animation_count;
    const cna_morph_weight_track **tracks =
        (const cna_morph_weight_track **)cna__arena_calloc(ctx->arena, anims ? anims : 1,
                                                           sizeof *tracks);
    if (!tracks) return oom(err);
    const cna_allocator arena_alloc = {arena_hook_alloc, arena_hook_free, ctx->arena};
    for (size_t a = 0; a < anims; a++) {
        cna__owned_track *t = NULL;
        cna_result r = cna__weight_track_build(&arena_alloc, doc, (int32_t)a, gltf_mesh, &t, err);
        if (r) return r;
        tracks[a] = t ? &t->track : NULL;
    }
    cache->by_mesh[gltf_mesh] = tracks;
    *out = tracks;
    return CNA_OK;
}

/* ------------------------------------------------------------------ morph carrier */

static cna_result copy_deltas(cna__arena *arena, const cna_morph_deltas *src, cna_morph_deltas *dst)
{
    *dst = *src;
    if (src->count == 0) return CNA_OK;
    float *values = (float *)arena_copy(arena, src->values, src->count * 3 * sizeof(float));
    if (!values) return CNA_ERROR_OUT_OF_MEMORY;
    dst->values = values;
    if (src->indices) {
        uint32_t *idx = (uint32_t *)arena_copy(arena, src->indices, src->count * sizeof(uint32_t));
        if (!idx) return CNA_ERROR_OUT_OF_MEMORY;
        dst->indices = idx;
    }
    return CNA_OK;
}

/* The initial weights of a placement: the node's own, else the mesh's. */
static const float *initial_weights(const cna_gltf_document *doc, const cna_model_mesh *mesh)
{
    const cna_gltf_node *node = &doc->nodes[mesh->gltf_node];
    const cna_gltf_mesh *gm = &doc->meshes[mesh->gltf_mesh];
    if (node->weights && node->weight_count == gm->target_count) return node->weights;
    return gm->weights;
}

/* The morph carrier of a part: `src` (target_count targets) copied into
 * the arena, or used as they are when `in_arena` (a sub-part's). */
static cna_result build_morph(cna__import_ctx *ctx, const cna_model_mesh *mesh, cna_model_part *part,
                              const cna_morph_target *src, size_t target_count, bool in_arena,
                              bool flat_normals, const cna_morph_weight_track *const *tracks, cna_error *err)
{
    cna__arena *arena = ctx->arena;
    cna_morph_target_data *data =
        (cna_morph_target_data *)cna__arena_calloc(arena, 1, sizeof *data);
    cna_morph_target *targets = in_arena ? (cna_morph_target *)src
                                         : (cna_morph_target *)cna__arena_calloc(arena, target_count, sizeof *targets);
    if (!data || !targets) return oom(err);
    for (size_t t = 0; !in_arena && t < target_count; t++)
        if (copy_deltas(arena, &src[t].positions, &targets[t].positions) ||
            copy_deltas(arena, &src[t].normals, &targets[t].normals) ||
            copy_deltas(arena, &src[t].tangents, &targets[t].tangents))
            return oom(err);
    data->base_vertices = part->vertices;
    data->base_size = part->vertex_count * part->declaration.stride;
    data->vertex_count = part->vertex_count;
    cna_result r = cna_morph_layout_canonical(part->declaration.stride, &data->layout, err);
    if (r) return r;
    data->targets = targets;
    data->target_count = target_count;
    const float *w = initial_weights(ctx->doc, mesh);
    if (w) {
        float *copy = (float *)arena_copy(arena, w, target_count * sizeof(float));
        if (!copy) return oom(err);
        data->initial_weights = copy;
        data->initial_weight_count = target_count;
    }
    /* The carrier's single track (spec: WeightTrack): the first animation that has one. */
    for (size_t a = 0; a < ctx->doc->animation_count; a++)
        if (tracks[a]) {
            data->weight_track = tracks[a];
            break;
        }
    if (flat_normals) {
        data->recompute_flat_normals = true;
        data->triangle_indices = part->indices;
        data->triangle_index_count = part->index_count;
    }
    part->morph = data;
    part->weight_tracks = tracks;
    part->weight_track_count = ctx->doc->animation_count;
    r = cna_morph_target_data_validate(data, err);
    if (r) cna__error_prefix(err, "meshes[%d].primitives[%d]", (int)part->gltf_mesh,
                             (int)part->gltf_primitive);
    return r;
}

/* ------------------------------------------------------------------ shared placements */

static cna_result report(cna__import_ctx *ctx, const cna__pack_diag *d, cna_error *err)
{
    if (!cna__model_diag_n(ctx->model, CNA_MODEL_DIAG_INFLUENCES_TRUNCATED, d->truncated,
                           d->truncated_message) ||
        !cna__model_diag_n(ctx->model, CNA_MODEL_DIAG_WEIGHTS_RENORMALIZED, d->renormalized,
                           d->renormalized_message) ||
        !cna__model_diag_n(ctx->model, CNA_MODEL_DIAG_INDICES_INCOMPLETE, d->dropped_indices,
                           d->dropped_message))
        return oom(err);
    return CNA_OK;
}

/* A primitive packed once, by the part (or sub-parts) of its first placement. */
typedef struct part_share {
    const cna_model_part *parts;  /* the first placement's part, or its sub-parts (filled) */
    size_t part_count;            /* 1, or the sub-part count */
    int32_t gltf_primitive;
    int32_t gltf_skin;            /* -1 for a rigid placement */
    const int32_t *ordinal_to_palette;
    size_t joint_count;
    cna__pack_diag diag;          /* reported again for every placement */
    int32_t next;                 /* the next share of the same glTF mesh, -1 at the end */
} part_share;

typedef struct part_cache {
    part_share *items;            /* at most one per model part */
    size_t count;
    int32_t *head;                /* per glTF mesh: its first share, -1 for none */
} part_cache;

/* The share packed for this part's primitive with the same skin joints, or NULL. */
static const part_share *find_share(const part_cache *pc, const cna_model_part *part, const cna_model_skin *skin)
{
    const int32_t gltf_skin = skin ? skin->gltf_skin : -1;
    for (int32_t i = pc->head[part->gltf_mesh]; i >= 0; i = pc->items[i].next) {
        const part_share *sh = &pc->items[i];
        if (sh->gltf_primitive != part->gltf_primitive || sh->gltf_skin != gltf_skin) continue;
        if (skin && (sh->joint_count != skin->joint_count ||
                     memcmp(sh->ordinal_to_palette, skin->ordinal_to_palette, skin->joint_count * sizeof(int32_t)) != 0))
            continue;
        return sh;
    }
    return NULL;
}

static void add_share(part_cache *pc, const cna_model_part *parts, size_t count, const cna_model_skin *skin,
                      const cna__pack_diag *d)
{
    const cna_model_part *part = &parts[0];
    part_share *sh = &pc->items[pc->count];
    sh->parts = parts;
    sh->part_count = count;
    sh->gltf_primitive = part->gltf_primitive;
    sh->gltf_skin = skin ? skin->gltf_skin : -1;
    sh->ordinal_to_palette = skin ? skin->ordinal_to_palette : NULL;
    sh->joint_count = skin ? skin->joint_count : 0;
    sh->diag = *d;
    sh->next = pc->head[part->gltf_mesh];
    pc->head[part->gltf_mesh] = (int32_t)pc->count++;
}

/* A placement of an already packed primitive: the shared arrays, a carrier of
 * its own with its initial weights. */
static cna_result share_one(cna__import_ctx *ctx, const cna_model_part *src, const cna_model_mesh *mesh,
                            cna_model_part *part, cna_error *err)
{
    part->palette_map = src->palette_map;
    part->palette_map_count = src->palette_map_count;
    part->vertices = src->vertices;
    part->vertex_count = src->vertex_count;
    part->declaration = src->declaration;
    part->indices = src->indices;
    part->index_count = src->index_count;
    part->primitive_type = src->primitive_type;
    part->source_vertex = src->source_vertex;
    part->source_vertex_count = src->source_vertex_count;
    part->weight_tracks = src->weight_tracks;
    part->weight_track_count = src->weight_track_count;
    if (!src->morph) return CNA_OK;
    cna_morph_target_data *data = (cna_morph_target_data *)cna__arena_calloc(ctx->arena, 1, sizeof *data);
    if (!data) return oom(err);
    *data = *src->morph;
    data->initial_weights = NULL;
    data->initial_weight_count = 0;
    const float *w = initial_weights(ctx->doc, mesh);
    if (w) {
        float *copy = (float *)arena_copy(ctx->arena, w, data->target_count * sizeof(float));
        if (!copy) return oom(err);
        data->initial_weights = copy;
        data->initial_weight_count = data->target_count;
    }
    part->morph = data;
    return CNA_OK;
}

/* The parts of a placement of a primitive already packed: `part` itself
 * (one shared part) or new sub-parts (*parts, *count) made from it. */
static cna_result share_part(cna__import_ctx *ctx, const part_share *sh, const cna_model_mesh *mesh,
                             cna_model_part *part, cna_model_part **parts, size_t *count, cna_error *err)
{
    cna_result r = report(ctx, &sh->diag, err);
    if (r) return r;
    cna_model_part *out = part;
    if (sh->parts[0].palette_map) {
        out = (cna_model_part *)cna__arena_calloc(ctx->arena, sh->part_count, sizeof *out);
        if (!out) return oom(err);
    }
    for (size_t k = 0; k < sh->part_count && !r; k++) {
        if (out != part) out[k] = *part; /* gltf ids, material, effect */
        r = share_one(ctx, &sh->parts[k], mesh, &out[k], err);
    }
    *parts = out;
    *count = sh->part_count;
    return r;
}

/* ------------------------------------------------------------------ split parts */

/* A packed primitive of a skin with more than CNA_EFFECT_MAX_BONES joints:
 * its sub-parts (cna__split_palettes), each a copy of `part` (gltf ids,
 * material) with its own vertices, palette map and morph carrier. */
static cna_result split_part(cna__import_ctx *ctx, track_cache *cache, const cna_model_mesh *mesh,
                             const cna_model_skin *skin, const cna_model_part *part, const cna__packed *p,
                             cna_model_part **parts, size_t *count, cna_error *err)
{
    const cna_allocator arena_alloc = {arena_hook_alloc, arena_hook_free, ctx->arena};
    char what[96];
    snprintf(what, sizeof what, "meshes[%d].primitives[%d]", (int)part->gltf_mesh, (int)part->gltf_primitive);
    cna__sub_part *subs = NULL;
    size_t n = 0;
    cna_result r = cna__split_palettes(&ctx->allocator, &arena_alloc, p, skin->joint_count, CNA_EFFECT_MAX_BONES,
                                       what, &subs, &n, err);
    if (r) return r;
    cna_model_part *out = (cna_model_part *)cna__arena_calloc(ctx->arena, n, sizeof *out);
    if (!out) return oom(err);
    const cna_morph_weight_track *const *tracks = NULL;
    if (p->target_count > 0 && (r = tracks_for_mesh(ctx, cache, part->gltf_mesh, &tracks, err))) return r;
    const size_t file_vertices = ctx->doc->meshes[part->gltf_mesh].primitives[part->gltf_primitive].vertex_count;
    for (size_t k = 0; k < n && !r; k++) {
        const cna__sub_part *sp = &subs[k];
        cna_model_part *q = &out[k];
        *q = *part;
        q->vertices = sp->vertices;
        q->vertex_count = sp->vertex_count;
        cna__vertex_declaration_of(&p->format, &q->declaration);
        q->indices = sp->indices;
        q->index_count = sp->index_count;
        q->primitive_type = primitive_type_of(p->topology);
        q->source_vertex = sp->source_vertex;
        q->source_vertex_count = file_vertices;
        q->palette_map = sp->palette_map;
        q->palette_map_count = sp->palette_count;
        if (p->target_count > 0)
            r = build_morph(ctx, mesh, q, sp->targets, p->target_count, true, p->flat_normals, tracks, err);
    }
    *parts = out;
    *count = n;
    return r;
}

/* ------------------------------------------------------------------ one part */

/* Import one primitive of a placement: into `part` itself (*parts = part,
 * *count = 1), or, split, into new sub-parts (*parts, *count). */
static cna_result import_part(cna__import_ctx *ctx, track_cache *cache, part_cache *shares,
                              const cna_model_mesh *mesh, cna_model_part *part, cna_model_part **parts,
                              size_t *count, cna_error *err)
{
    const cna_model *m = &ctx->model->pub;
    const cna_model_skin *skin = mesh->skin >= 0 ? &m->skins[mesh->skin] : NULL;
    *parts = part;
    *count = 1;
    const part_share *sh = find_share(shares, part, skin);
    if (sh) return share_part(ctx, sh, mesh, part, parts, count, err);
    const bool split = skin && skin->joint_count > CNA_EFFECT_MAX_BONES;
    cna__pack_input in;
    memset(&in, 0, sizeof in);
    in.doc = ctx->doc;
    in.mesh = part->gltf_mesh;
    in.primitive = part->gltf_primitive;
    in.node = mesh->gltf_node;
    in.ordinal_to_palette = skin ? skin->ordinal_to_palette : NULL;
    in.joint_count = skin ? skin->joint_count : 0;
    in.skin = skin ? skin->gltf_skin : -1;
    in.unit_scale = ctx->unit_scale;
    in.wide_palette = split;
    cna__packed p;
    cna_result r = cna__pack_primitive(&ctx->allocator, &in, &p, err);
    if (r) return r;
    if (split) {
        r = report(ctx, &p.diag, err);
        if (!r) r = split_part(ctx, cache, mesh, skin, part, &p, parts, count, err);
        if (!r) add_share(shares, *parts, *count, skin, &p.diag);
        cna__packed_release(&ctx->allocator, &p);
        return r;
    }

    const size_t stride = p.format.stride;
    void *vertices = arena_copy(ctx->arena, p.vertices, p.vertex_count * stride);
    uint32_t *indices = (uint32_t *)arena_copy(ctx->arena, p.indices, p.index_count * sizeof *indices);
    uint32_t *source = p.source_vertex ? (uint32_t *)arena_copy(ctx->arena, p.source_vertex,
                                                                p.vertex_count * sizeof *source)
                                       : NULL;
    if (!vertices || !indices || (p.source_vertex && !source)) {
        cna__packed_release(&ctx->allocator, &p);
        return oom(err);
    }
    part->vertices = vertices;
    part->vertex_count = p.vertex_count;
    cna__vertex_declaration_of(&p.format, &part->declaration);
    part->indices = indices;
    part->index_count = p.index_count;
    part->primitive_type = primitive_type_of(p.topology);
    part->source_vertex = source;
    part->source_vertex_count =
        source ? ctx->doc->meshes[part->gltf_mesh].primitives[part->gltf_primitive].vertex_count : p.vertex_count;
    r = report(ctx, &p.diag, err);
    if (!r && p.target_count > 0) {
        const cna_morph_weight_track *const *tracks = NULL;
        r = tracks_for_mesh(ctx, cache, part->gltf_mesh, &tracks, err);
        if (!r) r = build_morph(ctx, mesh, part, p.targets, p.target_count, false, p.flat_normals, tracks, err);
    }
    if (!r) add_share(shares, part, 1, skin, &p.diag);
    cna__packed_release(&ctx->allocator, &p);
    return r;
}

/* ------------------------------------------------------------------ bounds */

/* The vertex bytes of the loaded pose: a morphed part blended with its
 * initial weights (zero without them) into a new scratch buffer (*scratch,
 * freed by the caller), else the part's own vertices. */
static cna_result loaded_pose(cna__import_ctx *ctx, const cna_model_part *part, const unsigned char **bytes,
                              unsigned char **scratch, cna_error *err)
{
    *scratch = NULL;
    *bytes = (const unsigned char *)part->vertices;
    const cna_morph_target_data *md = part->morph;
    if (!md) return CNA_OK;
    const size_t size = cna_morph_blend_size(md);
    float *zero = md->initial_weight_count ? NULL
                                           : (float *)cna__calloc(&ctx->allocator, md->target_count ? md->target_count : 1,
                                                                  sizeof *zero);
    *scratch = (unsigned char *)cna__alloc(&ctx->allocator, size ? size : 1);
    cna_result r = (!*scratch || (!md->initial_weight_count && !zero)) ? oom(err) : CNA_OK;
    if (!r) r = cna_morph_blend(md, zero ? zero : md->initial_weights, md->target_count, *scratch, size, err);
    cna__free(&ctx->allocator, zero);
    if (!r) *bytes = *scratch;
    return r;
}

/* An instanced placement's sphere: the sphere of one copy (c, r) moved by
 * each instance matrix M (centre M · c, radius r times M's largest column
 * length), all of them enclosed one after the other (each new sphere grows
 * the enclosing one just enough to hold it). */
static void instance_bounds(cna_bounding_sphere *b, const cna_mat4 *inst, size_t count)
{
    double C[3] = {0, 0, 0}, R = -1.0;
    for (size_t i = 0; i < count; i++) {
        const float *m = inst[i].m;
        cna_vec3 c = cna_mat4_transform_point(&inst[i], b->center);
        double col = 0.0;
        for (int k = 0; k < 3; k++) {
            double l = sqrt((double)m[4 * k] * m[4 * k] + (double)m[4 * k + 1] * m[4 * k + 1] +
                            (double)m[4 * k + 2] * m[4 * k + 2]);
            if (l > col) col = l;
        }
        const double r = (double)b->radius * col, p[3] = {c.x, c.y, c.z};
        if (R < 0.0) {
            memcpy(C, p, sizeof C);
            R = r;
            continue;
        }
        const double d = sqrt((p[0] - C[0]) * (p[0] - C[0]) + (p[1] - C[1]) * (p[1] - C[1]) +
                              (p[2] - C[2]) * (p[2] - C[2]));
        if (d + r <= R) continue;
        if (d + R <= r) {
            memcpy(C, p, sizeof C);
            R = r;
            continue;
        }
        const double R2 = 0.5 * (R + d + r), f = (R2 - R) / d;
        for (int k = 0; k < 3; k++) C[k] += (p[k] - C[k]) * f;
        R = R2;
    }
    if (R < 0.0) return;
    b->center = cna_vec3_make((float)C[0], (float)C[1], (float)C[2]);
    /* rounded up so that the float sphere still holds every copy */
    b->radius = (float)R;
    if ((double)b->radius < R) b->radius = nextafterf(b->radius, INFINITY);
}

/* The sphere of the mesh's parts as loaded, in the parent bone's space:
 * rigid parts' positions morphed by the initial weights; skinned parts skinned with the
 * bind-pose palette of the mesh's skin (a clip-less player), which includes
 * inverse(W_mesh_node), so drawing with the parent bone gives glTF's pose. */
static cna_result mesh_bounds(cna__import_ctx *ctx, cna_model_mesh *mesh, cna_error *err)
{
    const cna_model *m = &ctx->model->pub;
    cna__point_set *sets = (cna__point_set *)cna__calloc(&ctx->allocator, mesh->part_count ? mesh->part_count : 1,
                                                         sizeof *sets);
    float **skinned = (float **)cna__calloc(&ctx->allocator, mesh->part_count ? mesh->part_count : 1,
                                            sizeof *skinned);
    unsigned char **blended = (unsigned char **)cna__calloc(&ctx->allocator, mesh->part_count ? mesh->part_count : 1,
                                                            sizeof *blended);
    cna_player *player = NULL;
    cna_result r = (!sets || !skinned || !blended) ? oom(err) : CNA_OK;
    if (!r && mesh->skin >= 0)
        r = cna_player_create(&m->skins[mesh->skin].data, &ctx->allocator, &player, err);
    for (size_t k = 0; !r && k < mesh->part_count; k++) {
        const cna_model_part *part = &mesh->parts[k];
        const unsigned char *bytes = NULL;
        r = loaded_pose(ctx, part, &bytes, &blended[k], err);
        if (r) break;
        if (!player) {
            sets[k].first = bytes;
            sets[k].stride = part->declaration.stride;
            sets[k].count = part->vertex_count;
            continue;
        }
        cna_skinning_layout layout;
        r = cna_skinning_layout_canonical(part->declaration.stride, &layout, err);
        if (r) break;
        skinned[k] = (float *)cna__calloc(&ctx->allocator, part->vertex_count ? part->vertex_count : 1,
                                          3 * sizeof(float));
        if (!skinned[k]) {
            r = oom(err);
            break;
        }
        /* a split part's joint bytes index its sub-palette */
        const cna_mat4 *palette = cna_player_skin_transforms(player);
        size_t palette_count = (size_t)cna_player_bone_count(player);
        cna_mat4 sub[CNA_EFFECT_MAX_BONES];
        if (part->palette_map) {
            for (size_t i = 0; i < part->palette_map_count && i < CNA_EFFECT_MAX_BONES; i++)
                sub[i] = palette[part->palette_map[i]];
            palette = sub;
            palette_count = part->palette_map_count;
        }
        r = cna_skin_positions(&layout, bytes, part->vertex_count, palette, palette_count, skinned[k],
                               3 * part->vertex_count, err);
        sets[k].first = (const unsigned char *)skinned[k];
        sets[k].stride = 3 * sizeof(float);
        sets[k].count = part->vertex_count;
    }
    if (!r) cna__bounding_sphere(sets, mesh->part_count, &mesh->bounds.center, &mesh->bounds.radius);
    if (!r && mesh->instance_count) instance_bounds(&mesh->bounds, mesh->instances, mesh->instance_count);
    cna_player_free(player);
    for (size_t k = 0; skinned && k < mesh->part_count; k++) cna__free(&ctx->allocator, skinned[k]);
    for (size_t k = 0; blended && k < mesh->part_count; k++) cna__free(&ctx->allocator, blended[k]);
    cna__free(&ctx->allocator, skinned);
    cna__free(&ctx->allocator, blended);
    cna__free(&ctx->allocator, sets);
    return r;
}

/* Every primitive of a placement; split primitives replace their part by
 * their sub-parts, in place, so the mesh's parts stay in primitive order. */
static cna_result import_mesh_parts(cna__import_ctx *ctx, track_cache *cache, part_cache *shares,
                                    cna_model_mesh *mesh, cna_error *err)
{
    const size_t n = mesh->part_count;
    cna_model_part **made = (cna_model_part **)cna__calloc(&ctx->allocator, n ? n : 1, sizeof *made);
    size_t *counts = (size_t *)cna__calloc(&ctx->allocator, n ? n : 1, sizeof *counts);
    cna_result r = (!made || !counts) ? oom(err) : CNA_OK;
    size_t total = 0;
    bool moved = false;
    for (size_t k = 0; !r && k < n; k++) {
        r = import_part(ctx, cache, shares, mesh, &mesh->parts[k], &made[k], &counts[k], err);
        total += counts[k];
        moved = moved || made[k] != &mesh->parts[k];
    }
    if (!r && moved) {
        cna_model_part *parts = (cna_model_part *)cna__arena_calloc(ctx->arena, total, sizeof *parts);
        if (!parts) r = oom(err);
        for (size_t k = 0, at = 0; !r && k < n; at += counts[k], k++)
            memcpy(&parts[at], made[k], counts[k] * sizeof *parts);
        if (!r) {
            mesh->parts = parts;
            mesh->part_count = total;
        }
    }
    cna__free(&ctx->allocator, made);
    cna__free(&ctx->allocator, counts);
    return r;
}

/* ------------------------------------------------------------------ the step */

cna_result cna__import_meshes(cna__import_ctx *ctx, cna_error *err)
{
    cna_model *m = &ctx->model->pub;
    const cna_gltf_document *doc = ctx->doc;
    track_cache cache;
    cache.by_mesh = (const cna_morph_weight_track *const **)cna__calloc(
        &ctx->allocator, doc->mesh_count ? doc->mesh_count : 1, sizeof *cache.by_mesh);
    size_t parts = 0;
    for (size_t i = 0; i < m->mesh_count; i++) parts += m->meshes[i].part_count;
    part_cache shares;
    shares.count = 0;
    shares.items = (part_share *)cna__calloc(&ctx->allocator, parts ? parts : 1, sizeof *shares.items);
    shares.head = (int32_t *)cna__calloc(&ctx->allocator, doc->mesh_count ? doc->mesh_count : 1, sizeof *shares.head);
    cna_result r = (!cache.by_mesh || !shares.items || !shares.head) ? oom(err) : CNA_OK;
    for (size_t g = 0; !r && g < doc->mesh_count; g++) shares.head[g] = -1;
    for (size_t i = 0; !r && i < m->mesh_count; i++) {
        cna_model_mesh *mesh = &m->meshes[i];
        r = import_mesh_parts(ctx, &cache, &shares, mesh, err);
        if (!r) r = mesh_bounds(ctx, mesh, err);
    }
    cna__free(&ctx->allocator, shares.items);
    cna__free(&ctx->allocator, shares.head);
    cna__free(&ctx->allocator, (void *)cache.by_mesh);
    return r;
}
