/*
 * Clip libraries bound by node name (include/cna/clips.h, docs/clips.md).
 *
 * A bound model is a shallow copy of the model: bones, vertices, skeletons,
 * materials and images stay the model's; its own arena holds what grows with
 * the animations (each skin's clip array, the scene-node clips, each morphed
 * part's weight-track array) and the library's keys. The library's channels
 * are extracted by the importer's own clip extraction (src/import/clips.c),
 * with the model's nodes as the destination: a stand-in document is made of
 * the model's bones (name, parent, rest transform), so the keys, the
 * faithful-mode tolerances and the magnitude checks are those of an import of
 * the model's file with the channels written into it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/baked.h"
#include "cna/clips.h"
#include "model/mesh_internal.h"
#include "model/model_internal.h"
#include "model/retarget_internal.h"

struct cna_clip_library {
    cna_allocator allocator;
    cna_gltf_document *doc;  /* a glTF or GLB library; NULL for a .cnb one */
    cna_model *model;        /* a .cnb library: its model (clips as baked) */
    char *path;
    char **names;            /* per animation: its name (the importer's rule) */
    const char ***targets;   /* per animation: distinct target node names */
    size_t *target_counts;
};

/* ------------------------------------------------------------------ the library */

static char *dup_str(const cna_allocator *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = (char *)cna__alloc(a, n);
    if (c) memcpy(c, s, n);
    return c;
}

void cna_clip_library_free(cna_clip_library *lib)
{
    if (!lib) return;
    cna_allocator a = lib->allocator;
    size_t na = cna_clip_library_animation_count(lib);
    for (size_t i = 0; i < na; i++) {
        if (lib->names) cna__free(&a, lib->names[i]);
        if (lib->targets) cna__free(&a, (void *)lib->targets[i]);
    }
    cna__free(&a, lib->names);
    cna__free(&a, (void *)lib->targets);
    cna__free(&a, lib->target_counts);
    cna__free(&a, lib->path);
    cna_gltf_document_free(lib->doc);
    cna_model_free(lib->model);
    cna__free(&a, lib);
}

static const char *node_name_or_empty(const cna_gltf_document *doc, int32_t node)
{
    return doc->nodes[node].name ? doc->nodes[node].name : "";
}

/* Animation i's distinct target nodes (T/R/S and weights channels), in order of first channel. */
static cna_result list_targets(cna_clip_library *lib, size_t ai, cna_error *err)
{
    const cna_gltf_document *doc = lib->doc;
    const cna_gltf_animation *anim = &doc->animations[ai];
    const char **names = (const char **)cna__calloc(&lib->allocator, anim->channel_count ? anim->channel_count : 1,
                                                    sizeof *names);
    int32_t *nodes = (int32_t *)cna__calloc(&lib->allocator, anim->channel_count ? anim->channel_count : 1,
                                            sizeof *nodes);
    if (!names || !nodes) {
        cna__free(&lib->allocator, (void *)names);
        cna__free(&lib->allocator, nodes);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", lib->path);
    }
    size_t n = 0;
    for (size_t c = 0; c < anim->channel_count; c++) {
        int32_t node = anim->channels[c].target_node;
        if (node < 0 || (size_t)node >= doc->node_count) continue;
        size_t k = 0;
        while (k < n && nodes[k] != node) k++;   /* channels per animation: a few hundred */
        if (k < n) continue;
        nodes[n] = node;
        names[n++] = node_name_or_empty(doc, node);
    }
    cna__free(&lib->allocator, nodes);
    lib->targets[ai] = names;
    lib->target_counts[ai] = n;
    return CNA_OK;
}

/* The bone a track of a .cnb library's clip moves: a joint track's palette
 * index through its skin, a scene-node track's bone index; -1 when none. */
static int32_t track_bone(const cna_model *m, size_t skin, const cna_bone_track *t)
{
    if (skin < m->skin_count) {
        const cna_model_skin *s = &m->skins[skin];
        return t->bone >= 0 && (size_t)t->bone < s->joint_count && s->palette_to_node ? s->palette_to_node[t->bone] : -1;
    }
    return t->bone >= 0 && (size_t)t->bone < m->bone_count ? t->bone : -1;
}

/* The clip of animation a a .cnb library's skin `skin` (skin_count: the scene-node clip) has. */
static const cna_clip *model_clip(const cna_model *m, size_t skin, size_t a)
{
    if (skin < m->skin_count) return a < m->skins[skin].data.clip_count ? &m->skins[skin].data.clips[a] : NULL;
    return m->node_clips && a < m->animation_count ? &m->node_clips[a] : NULL;
}

/* A .cnb library's animation i: the distinct bones its tracks move, in bone order. */
static cna_result list_model_targets(cna_clip_library *lib, size_t ai, cna_error *err)
{
    const cna_model *m = lib->model;
    uint8_t *moved = (uint8_t *)cna__calloc(&lib->allocator, m->bone_count ? m->bone_count : 1, 1);
    const char **names = (const char **)cna__calloc(&lib->allocator, m->bone_count ? m->bone_count : 1,
                                                    sizeof *names);
    if (!moved || !names) {
        cna__free(&lib->allocator, moved);
        cna__free(&lib->allocator, (void *)names);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", lib->path);
    }
    for (size_t s = 0; s <= m->skin_count; s++) {
        const cna_clip *clip = model_clip(m, s, ai);
        for (size_t t = 0; clip && t < clip->track_count; t++) {
            int32_t b = track_bone(m, s, &clip->tracks[t]);
            if (b >= 0) moved[b] = 1;
        }
    }
    size_t n = 0;
    for (size_t b = 0; b < m->bone_count; b++)
        if (moved[b]) names[n++] = m->bones[b].name;
    cna__free(&lib->allocator, moved);
    lib->targets[ai] = names;
    lib->target_counts[ai] = n;
    return CNA_OK;
}

/* Whether the file at path starts like a .cnb (its magic). */
static bool file_is_cnb(const char *path)
{
    FILE *f = NULL;
    uint64_t size = 0;
    if (cna__file_open_regular(path, &f, &size) != 0) return false;
    unsigned char head[16];
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    return cna_cnb_is_cnb(head, got);
}

cna_result cna_clip_library_load_file(const char *path, const cna_clip_library_options *opts,
                                      cna_clip_library **out, cna_error *err)
{
    if (!path || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "clip library: NULL %s", path ? "out" : "path");
    cna_clip_library_options defaults;
    memset(&defaults, 0, sizeof defaults);
    const cna_clip_library_options *o = opts ? opts : &defaults;
    cna_allocator a = cna__allocator_resolve(&o->allocator);
    cna_gltf_options gopts = o->gltf;
    if (!gopts.allocator.alloc && !gopts.allocator.free) gopts.allocator = a;
    gopts.no_textures = true; /* a library's images are never used: never read, whatever they need */
    cna_gltf_document *doc = NULL;
    cna_model *model = NULL;
    cna_result r;
    if (file_is_cnb(path)) {
        cna_cnb_load_options co;
        memset(&co, 0, sizeof co);
        co.allocator = a;
        r = cna_cnb_load_file(path, &co, &model, err);
    } else {
        r = cna_gltf_load_file(path, &gopts, &doc, err);
    }
    if (r != CNA_OK) return r;
    if ((doc ? doc->animation_count : model->animation_count) == 0) {
        cna_gltf_document_free(doc);
        cna_model_free(model);
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s: no animations", path);
    }
    cna_clip_library *lib = (cna_clip_library *)cna__calloc(&a, 1, sizeof *lib);
    if (!lib) {
        cna_gltf_document_free(doc);
        cna_model_free(model);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    lib->allocator = a;
    lib->doc = doc;
    lib->model = model;
    const size_t na = cna_clip_library_animation_count(lib);
    lib->path = dup_str(&a, path);
    lib->names = (char **)cna__calloc(&a, na, sizeof *lib->names);
    lib->targets = (const char ***)cna__calloc(&a, na, sizeof *lib->targets);
    lib->target_counts = (size_t *)cna__calloc(&a, na, sizeof *lib->target_counts);
    if (!lib->path || !lib->names || !lib->targets || !lib->target_counts) {
        cna_clip_library_free(lib);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    for (size_t i = 0; i < na; i++) {
        char fallback[32];
        snprintf(fallback, sizeof fallback, "animation_%zu", i);
        const char *name = doc ? (doc->animations[i].name ? doc->animations[i].name : fallback)
                               : cna_model_animation_name(model, i);
        lib->names[i] = dup_str(&a, name ? name : fallback);
        if (!lib->names[i]) r = cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        if (r == CNA_OK) r = doc ? list_targets(lib, i, err) : list_model_targets(lib, i, err);
        if (r != CNA_OK) {
            cna_clip_library_free(lib);
            return r;
        }
    }
    *out = lib;
    return CNA_OK;
}

const char *cna_clip_library_path(const cna_clip_library *lib) { return lib && lib->path ? lib->path : ""; }

const cna_gltf_document *cna_clip_library_document(const cna_clip_library *lib) { return lib ? lib->doc : NULL; }

size_t cna_clip_library_animation_count(const cna_clip_library *lib)
{
    if (!lib) return 0;
    return lib->doc ? lib->doc->animation_count : lib->model ? lib->model->animation_count : 0;
}

const char *cna_clip_library_animation_name(const cna_clip_library *lib, size_t i)
{
    return lib && i < cna_clip_library_animation_count(lib) ? lib->names[i] : NULL;
}

size_t cna_clip_library_target_count(const cna_clip_library *lib, size_t i)
{
    return lib && i < cna_clip_library_animation_count(lib) ? lib->target_counts[i] : 0;
}

const char *cna_clip_library_target_name(const cna_clip_library *lib, size_t i, size_t k)
{
    if (!lib || i >= cna_clip_library_animation_count(lib) || k >= lib->target_counts[i]) return NULL;
    return lib->targets[i][k];
}

/* ------------------------------------------------------------------ names */

/* One named bone, as the index sorts it: by name, a joint first, then bone
 * order (the key holds all it compares: qsort takes no context). */
typedef struct name_key {
    const char *name;
    int32_t not_joint; /* 0 for a joint */
    int32_t bone;
} name_key;

/* The model's bones sorted by (name, joint first, bone index): the first of a
 * name is the bone cna_model_find_bone finds. */
typedef struct name_index {
    name_key *keys;
    size_t count;
} name_index;

static int cmp_bone(const void *pa, const void *pb)
{
    const name_key *a = (const name_key *)pa, *b = (const name_key *)pb;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    if (a->not_joint != b->not_joint) return a->not_joint - b->not_joint;
    return (a->bone > b->bone) - (a->bone < b->bone);
}

/* The bone named `name` as cna_model_find_bone finds it, -1 when none;
 * *shared = true when other bones have the name too. */
static int32_t find_name(const name_index *ix, const char *name, bool *shared)
{
    size_t lo = 0, hi = ix->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ix->keys[mid].name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo == ix->count || strcmp(ix->keys[lo].name, name) != 0) return -1;
    *shared = lo + 1 < ix->count && strcmp(ix->keys[lo + 1].name, name) == 0;
    return ix->keys[lo].bone;
}

typedef cna__name_list name_list;
#define name_list_add cna__name_list_add
#define name_list_tail cna__name_list_tail

/* ------------------------------------------------------------------ binding */

static void *arena_hook_alloc(void *user, size_t size) { return cna__arena_alloc((cna__arena *)user, size); }

static int cmp_track_bone(const void *a, const void *b)
{
    int32_t x = ((const cna_bone_track *)a)->bone, y = ((const cna_bone_track *)b)->bone;
    return (x > y) - (x < y);
}
static void arena_hook_free(void *user, void *ptr)
{
    (void)user;
    (void)ptr; /* freed with the arena */
}

typedef struct bind_state {
    const cna_model *base;
    cna__model *model;          /* the bound model being filled */
    cna__import_ctx ctx;        /* destination: the stand-in document of the model's nodes */
    cna_gltf_document dest;
    name_index names;
    uint8_t *reached;           /* per bone: moved by some library channel */
    const cna_bind_options *options;
    cna_clip *node_clips;
} bind_state;

static cna_result oom(cna_error *err) { return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "bind clips: out of memory"); }

/* The stand-in document: one node per glTF node of the model's file; the
 * scene's nodes carry their bone's name, parent and rest values, the others
 * are unnamed roots at the identity (nothing binds to them). */
static cna_result build_destination(bind_state *st, cna_error *err)
{
    const cna_model *m = st->base;
    cna__arena *arena = &st->model->arena;
    size_t n = m->gltf_node_count;
    cna_gltf_node *nodes = (cna_gltf_node *)cna__arena_calloc(arena, n ? n : 1, sizeof *nodes);
    size_t *child_fill = (size_t *)cna__arena_calloc(arena, n ? n : 1, sizeof *child_fill);
    int32_t *children = (int32_t *)cna__arena_calloc(arena, m->bone_count ? m->bone_count : 1, sizeof *children);
    st->ctx.node_local = (cna_mat4 *)cna__arena_calloc(arena, n ? n : 1, sizeof(cna_mat4));
    st->ctx.node_world = (cna_mat4 *)cna__arena_calloc(arena, n ? n : 1, sizeof(cna_mat4));
    st->ctx.node_key_scale = (double *)cna__arena_calloc(arena, n ? n : 1, sizeof(double));
    st->ctx.node_key_translation = (double *)cna__arena_calloc(arena, n ? n : 1, sizeof(double));
    if (!nodes || !child_fill || !children || !st->ctx.node_local || !st->ctx.node_world ||
        !st->ctx.node_key_scale || !st->ctx.node_key_translation)
        return oom(err);
    for (size_t i = 0; i < n; i++) {
        nodes[i].name = "";
        nodes[i].parent = -1;
        nodes[i].mesh = nodes[i].skin = nodes[i].camera = -1;
        nodes[i].instance_translation = nodes[i].instance_rotation = nodes[i].instance_scale = -1;
        cna_mat4_identity(&nodes[i].matrix);
        nodes[i].rotation = cna_quat_identity();
        nodes[i].scale = cna_vec3_make(1, 1, 1);
        cna_mat4_identity(&st->ctx.node_local[i]);
    }
    for (size_t b = 0; b < m->bone_count; b++) {
        const cna_model_bone *bone = &m->bones[b];
        cna_gltf_node *gn = &nodes[bone->gltf_node];
        gn->name = bone->name;
        gn->parent = bone->parent >= 0 ? m->bones[bone->parent].gltf_node : -1;
        gn->has_matrix = bone->has_matrix;
        if (bone->has_matrix) {
            gn->matrix = bone->rest_transform;
        } else {
            gn->translation = bone->rest_translation;
            gn->rotation = bone->rest_rotation;
            gn->scale = bone->rest_scale;
        }
        st->ctx.node_local[bone->gltf_node] = bone->rest_transform;
        if (bone->parent >= 0) nodes[gn->parent].child_count++;
    }
    /* children: bones in bone order, which is the file's child order */
    size_t at = 0;
    for (size_t b = 0; b < m->bone_count; b++) {
        cna_gltf_node *gn = &nodes[m->bones[b].gltf_node];
        gn->children = children + at;
        at += gn->child_count;
    }
    for (size_t b = 0; b < m->bone_count; b++) {
        int32_t parent = m->bones[b].parent;
        if (parent < 0) continue;
        int32_t pn = m->bones[parent].gltf_node;
        ((int32_t *)nodes[pn].children)[child_fill[pn]++] = m->bones[b].gltf_node;
    }
    /* worlds, parents first (bone order puts a parent before its children) */
    for (size_t b = 0; b < m->bone_count; b++) {
        int32_t g = m->bones[b].gltf_node, parent = m->bones[b].parent;
        if (parent < 0) st->ctx.node_world[g] = st->ctx.node_local[g];
        else cna_mat4_mul(&st->ctx.node_world[g], &st->ctx.node_world[m->bones[parent].gltf_node],
                          &st->ctx.node_local[g]);
    }
    for (size_t i = 0; i < n; i++)
        if (m->gltf_node_to_bone && m->gltf_node_to_bone[i] < 0) st->ctx.node_world[i] = st->ctx.node_local[i];
    memset(&st->dest, 0, sizeof st->dest);
    st->dest.nodes = nodes;
    st->dest.node_count = n;
    st->ctx.doc = &st->dest;
    st->ctx.model = st->model;
    st->ctx.arena = &st->model->arena;
    st->ctx.allocator = st->model->allocator;
    st->ctx.clip_mode = m->clip_mode == CNA_CLIP_MODE_UNION ? CNA_CLIP_MODE_UNION : CNA_CLIP_MODE_FAITHFUL;
    st->ctx.unit_scale = 1.0f;
    return CNA_OK;
}

static cna_result build_names(bind_state *st, cna_error *err)
{
    const cna_model *m = st->base;
    cna__arena *arena = &st->model->arena;
    uint8_t *is_joint = (uint8_t *)cna__arena_calloc(arena, m->bone_count ? m->bone_count : 1, 1);
    name_key *keys = (name_key *)cna__arena_calloc(arena, m->bone_count ? m->bone_count : 1, sizeof *keys);
    st->reached = (uint8_t *)cna__arena_calloc(arena, m->bone_count ? m->bone_count : 1, 1);
    if (!is_joint || !keys || !st->reached) return oom(err);
    for (size_t s = 0; s < m->skin_count; s++)
        for (size_t p = 0; p < m->skins[s].joint_count; p++) {
            int32_t b = m->skins[s].palette_to_node ? m->skins[s].palette_to_node[p] : -1;
            if (b >= 0) is_joint[b] = 1;
        }
    size_t count = 0;
    for (size_t b = 0; b < m->bone_count; b++)
        if (m->bones[b].name[0]) keys[count++] = (name_key){m->bones[b].name, is_joint[b] ? 0 : 1, (int32_t)b};
    qsort(keys, count, sizeof *keys, cmp_bone);
    st->names.keys = keys;
    st->names.count = count;
    return CNA_OK;
}

/* The part's targets taken from a library track of src_count targets
 * (src_names: their names, or NULL): by name where both name them, else by
 * index when the counts agree. *out: `src` itself when nothing moves, a
 * reordered copy (0 for a target the library lacks), or NULL when no target
 * binds. */
static cna_result reorder_weights(bind_state *st, const cna_morph_weight_track *src, const char *const *src_names,
                                  size_t src_count, const cna_model_mesh *mesh, const cna_model_part *part,
                                  const cna_morph_weight_track **out, cna_error *err)
{
    *out = NULL;
    const size_t want = part->morph->target_count;
    const bool by_name = mesh->target_names && src_names && mesh->target_name_count == want;
    int32_t *from = (int32_t *)cna__arena_calloc(&st->model->arena, want ? want : 1, sizeof *from);
    if (!from) return oom(err);
    bool identity = !by_name || src_count == want;
    bool any = false;
    for (size_t t = 0; t < want; t++) {
        from[t] = -1;
        if (by_name) {
            for (size_t k = 0; k < src_count; k++)
                if (src_names[k] && strcmp(src_names[k], mesh->target_names[t]) == 0) {
                    from[t] = (int32_t)k;
                    break;
                }
        } else if (src_count == want) {
            from[t] = (int32_t)t;
        }
        if (from[t] != (int32_t)t) identity = false;
        any = any || from[t] >= 0;
    }
    if (!any || src->target_count != src_count) return CNA_OK;
    if (identity) {
        *out = src;
        return CNA_OK;
    }
    cna_morph_weight_track *t2 = (cna_morph_weight_track *)cna__arena_calloc(&st->model->arena, 1, sizeof *t2);
    size_t n;
    if (!t2 || !cna__mul_size(src->key_count, want, &n)) return oom(err);
    float *v = (float *)cna__arena_calloc(&st->model->arena, n ? n : 1, sizeof(float));
    float *ti = src->in_tangents ? (float *)cna__arena_calloc(&st->model->arena, n ? n : 1, sizeof(float)) : NULL;
    float *to = src->out_tangents ? (float *)cna__arena_calloc(&st->model->arena, n ? n : 1, sizeof(float)) : NULL;
    if (!v || (src->in_tangents && !ti) || (src->out_tangents && !to)) return oom(err);
    for (size_t k = 0; k < src->key_count; k++)
        for (size_t t = 0; t < want; t++) {
            if (from[t] < 0) continue;
            size_t at = k * src->target_count + (size_t)from[t];
            v[k * want + t] = src->values[at];
            if (ti) ti[k * want + t] = src->in_tangents[at];
            if (to) to[k * want + t] = src->out_tangents[at];
        }
    *t2 = *src;
    t2->target_count = want;
    t2->values = v;
    t2->in_tangents = ti;
    t2->out_tangents = to;
    *out = t2;
    return CNA_OK;
}

/* The weight track of library animation `a` for the model's morphed part:
 * the channel on the library node named like the part's mesh node (a .cnb
 * library: the weight track of its placement of that name). */
static cna_result bind_weights(bind_state *st, const cna_clip_library *lib, size_t a, const cna_model_mesh *mesh,
                               const cna_model_part *part, const cna_morph_weight_track **out, cna_error *err)
{
    *out = NULL;
    const char *node_name = st->base->bones[mesh->parent_bone].name;
    if (!node_name[0] || !part->morph) return CNA_OK;
    if (!lib->doc) {
        const cna_model *src = lib->model;
        for (size_t i = 0; i < src->mesh_count; i++) {
            const cna_model_mesh *sm = &src->meshes[i];
            if (strcmp(src->bones[sm->parent_bone].name, node_name) != 0) continue;
            for (size_t k = 0; k < sm->part_count; k++) {
                const cna_model_part *sp = &sm->parts[k];
                if (!sp->morph || a >= sp->weight_track_count || !sp->weight_tracks[a]) continue;
                return reorder_weights(st, sp->weight_tracks[a], sm->target_names,
                                       sm->target_names ? sm->target_name_count : sp->morph->target_count, mesh, part,
                                       out, err);
            }
            return CNA_OK;
        }
        return CNA_OK;
    }
    const cna_gltf_document *doc = lib->doc;
    const cna_gltf_animation *anim = &doc->animations[a];
    for (size_t c = 0; c < anim->channel_count; c++) {
        const cna_gltf_animation_channel *ch = &anim->channels[c];
        if (ch->path != CNA_GLTF_PATH_WEIGHTS || ch->target_node < 0 || (size_t)ch->target_node >= doc->node_count)
            continue;
        const cna_gltf_node *gn = &doc->nodes[ch->target_node];
        if (!gn->name || strcmp(gn->name, node_name) != 0 || gn->mesh < 0) continue;
        const cna_gltf_mesh *sm = &doc->meshes[gn->mesh];
        const cna_allocator arena_alloc = {arena_hook_alloc, arena_hook_free, &st->model->arena};
        cna__owned_track *track = NULL;
        cna_result r = cna__weight_track_build(&arena_alloc, doc, (int32_t)a, gn->mesh, &track, err);
        if (r != CNA_OK || !track) return r;
        return reorder_weights(st, &track->track, (const char *const *)sm->target_names, sm->target_count, mesh, part,
                               out, err);
    }
    return CNA_OK;
}

/* A .cnb library's animations as authored: each track's keys, back in its
 * bone's own space (the library's fold taken out), moved to the model's bone
 * of the same name (the model's fold put in for a joint). A .cnb keeps the
 * keys, not which channels the file animated: a node's channels the file did
 * not animate carry the library's rest values. */
static cna_result bind_model_tracks(bind_state *st, const cna_clip_library *lib, size_t first, name_list *unbound,
                                    name_list *shared, size_t *bound_tracks, cna_error *err)
{
    const cna_model *src = lib->model, *m = st->base;
    cna__arena *arena = &st->model->arena;
    int32_t *map = (int32_t *)cna__arena_calloc(arena, src->bone_count ? src->bone_count : 1, sizeof *map);
    uint8_t *noted = (uint8_t *)cna__arena_calloc(arena, src->bone_count ? src->bone_count : 1, 1);
    uint8_t *seen = (uint8_t *)cna__arena_calloc(arena, src->bone_count ? src->bone_count : 1, 1);
    const cna_keyframe **local = (const cna_keyframe **)cna__arena_calloc(arena, m->bone_count ? m->bone_count : 1,
                                                                         sizeof *local);
    size_t *local_n = (size_t *)cna__arena_calloc(arena, m->bone_count ? m->bone_count : 1, sizeof *local_n);
    if (!map || !noted || !seen || !local || !local_n) return oom(err);
    for (size_t b = 0; b < src->bone_count; b++) {
        bool dup = false;
        map[b] = src->bones[b].name[0] ? find_name(&st->names, src->bones[b].name, &dup) : -1;
        if (map[b] >= 0 && dup) name_list_add(shared, src->bones[b].name);
    }
    for (size_t a = 0; a < src->animation_count; a++) {
        memset(seen, 0, src->bone_count ? src->bone_count : 1);
        memset(local_n, 0, (m->bone_count ? m->bone_count : 1) * sizeof *local_n);
        int64_t duration = 0;
        for (size_t s = 0; s <= src->skin_count; s++) {
            const cna_clip *clip = model_clip(src, s, a);
            if (!clip) continue;
            if (clip->duration > duration) duration = clip->duration;
            for (size_t t = 0; t < clip->track_count; t++) {
                const cna_bone_track *tr = &clip->tracks[t];
                int32_t sb = track_bone(src, s, tr);
                if (sb < 0 || seen[sb] || !tr->keys || tr->key_count == 0) continue;
                seen[sb] = 1;
                int32_t tb = map[sb];
                if (tb < 0) {
                    if (!noted[sb]) name_list_add(unbound, src->bones[sb].name[0] ? src->bones[sb].name : "");
                    noted[sb] = 1;
                    continue;
                }
                const cna_mat4 *fold = s < src->skin_count ? &src->skins[s].fold[tr->bone] : NULL;
                cna_keyframe *keys = (cna_keyframe *)cna__arena_calloc(arena, tr->key_count, sizeof *keys);
                if (!keys) return oom(err);
                cna_mat4 inv;
                bool unfold = fold && !cna_mat4_is_identity(fold) && cna_mat4_inverse(&inv, fold);
                for (size_t k = 0; k < tr->key_count; k++) {
                    keys[k] = tr->keys[k];
                    if (unfold) {
                        cna_mat4 key, l;
                        cna_mat4_compose(&key, keys[k].translation, keys[k].rotation, keys[k].scale);
                        cna_mat4_mul(&l, &inv, &key);
                        cna_mat4_decompose(&l, &keys[k].translation, &keys[k].rotation, &keys[k].scale);
                    }
                    /* the magnitude check's per-node bounds */
                    int32_t gn = m->bones[tb].gltf_node;
                    double ks = fabs((double)keys[k].scale.x);
                    if (!(fabs((double)keys[k].scale.y) <= ks)) ks = fabs((double)keys[k].scale.y);
                    if (!(fabs((double)keys[k].scale.z) <= ks)) ks = fabs((double)keys[k].scale.z);
                    const cna_vec3 v = keys[k].translation;
                    double kt = sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
                    if (!(ks <= st->ctx.node_key_scale[gn])) st->ctx.node_key_scale[gn] = ks;
                    if (!(kt <= st->ctx.node_key_translation[gn])) st->ctx.node_key_translation[gn] = kt;
                }
                local[tb] = keys;
                local_n[tb] = tr->key_count;
                st->reached[tb] = 1;
                (*bound_tracks)++;
            }
        }
        const char *name = cna__arena_strdup(arena, cna_model_animation_name(src, a));
        if (!name) return oom(err);
        /* the model's clips: each glTF skin's (shared by its placements), then the scene-node clip */
        for (size_t g = 0; g <= m->skin_count; g++) {
            const bool node_clip = g == m->skin_count;
            if (!node_clip) {
                size_t f0 = 0;
                while (f0 < g && m->skins[f0].gltf_skin != m->skins[g].gltf_skin) f0++;
                if (f0 != g) continue;
            }
            size_t count = 0;
            for (size_t b = 0; b < m->bone_count; b++) {
                if (!local_n[b]) continue;
                bool joint = false;
                for (size_t s2 = 0; s2 < m->skin_count && !joint; s2++)
                    joint = m->skins[s2].node_to_palette && m->skins[s2].node_to_palette[b] >= 0;
                if (node_clip ? !joint : (m->skins[g].node_to_palette && m->skins[g].node_to_palette[b] >= 0)) count++;
            }
            cna_bone_track *tracks = (cna_bone_track *)cna__arena_calloc(arena, count ? count : 1, sizeof *tracks);
            if (!tracks) return oom(err);
            size_t n = 0;
            for (size_t b = 0; b < m->bone_count; b++) {
                if (!local_n[b]) continue;
                if (node_clip) {
                    bool joint = false;
                    for (size_t s2 = 0; s2 < m->skin_count && !joint; s2++)
                        joint = m->skins[s2].node_to_palette && m->skins[s2].node_to_palette[b] >= 0;
                    if (!joint) tracks[n++] = cna_bone_track_make((int32_t)b, local[b], local_n[b]);
                    continue;
                }
                int32_t p = m->skins[g].node_to_palette ? m->skins[g].node_to_palette[b] : -1;
                if (p < 0) continue;
                const cna_mat4 *fold = &m->skins[g].fold[p];
                const cna_keyframe *keys = local[b];
                if (!cna_mat4_is_identity(fold)) {
                    cna_keyframe *folded = (cna_keyframe *)cna__arena_calloc(arena, local_n[b], sizeof *folded);
                    if (!folded) return oom(err);
                    for (size_t k = 0; k < local_n[b]; k++) {
                        cna_mat4 l, f;
                        folded[k] = keys[k];
                        cna_mat4_compose(&l, keys[k].translation, keys[k].rotation, keys[k].scale);
                        cna_mat4_mul(&f, fold, &l);
                        cna_mat4_decompose(&f, &folded[k].translation, &folded[k].rotation, &folded[k].scale);
                    }
                    keys = folded;
                }
                tracks[n++] = cna_bone_track_make(p, keys, local_n[b]);
            }
            qsort(tracks, n, sizeof *tracks, cmp_track_bone);
            cna_clip clip = cna_clip_make(name, duration, tracks, n);
            if (node_clip) {
                clip.target = CNA_CLIP_TARGET_SCENE_NODE;
                st->node_clips[first + a] = clip;
            } else {
                clip.target = CNA_CLIP_TARGET_JOINT_PALETTE;
                ((cna_clip *)st->model->pub.skins[g].data.clips)[first + a] = clip;
            }
        }
    }
    return CNA_OK;
}

/* The morphed parts' weight tracks of a library's animations; *bound: how many bound. */
static cna_result bind_all_weights(bind_state *st, const cna_clip_library *lib, size_t first, size_t *bound,
                                   cna_error *err)
{
    const cna_model *m = st->base;
    const size_t na = cna_clip_library_animation_count(lib);
    cna_result r = CNA_OK;
    for (size_t i = 0; i < m->mesh_count && r == CNA_OK; i++) {
        cna_model_mesh *mesh = &st->model->pub.meshes[i];
        for (size_t k = 0; k < mesh->part_count && r == CNA_OK; k++) {
            cna_model_part *part = &mesh->parts[k];
            if (!part->morph) continue;
            const cna_morph_weight_track **tracks = (const cna_morph_weight_track **)part->weight_tracks;
            for (size_t a = 0; a < na && r == CNA_OK; a++) {
                r = bind_weights(st, lib, a, &m->meshes[i], part, &tracks[first + a], err);
                if (r == CNA_OK && tracks[first + a]) {
                    (*bound)++;
                    st->reached[mesh->parent_bone] = 1;
                }
            }
        }
    }
    return r;
}

/* The diagnostics of a bound library: unbound names, shared names. */
static cna_result bind_diagnostics(bind_state *st, const cna_clip_library *lib, const name_list *unbound,
                                   const name_list *shared, cna_error *err)
{
    char msg[600], more[48];
    if (unbound->count) {
        snprintf(msg, sizeof msg, "%s: %zu node(s) its channels move are not in the model: %s%s; their channels "
                 "are ignored", lib->path, unbound->count, unbound->text, name_list_tail(unbound, more, sizeof more));
        if (!cna__model_diag_n(st->model, CNA_MODEL_DIAG_CLIP_UNBOUND, unbound->count, msg)) return oom(err);
    }
    if (shared->count) {
        snprintf(msg, sizeof msg, "%s: %zu node name(s) name several nodes of the model: %s%s; each moves the "
                 "one cna_model_find_bone finds", lib->path, shared->count, shared->text,
                 name_list_tail(shared, more, sizeof more));
        if (!cna__model_diag_n(st->model, CNA_MODEL_DIAG_CLIP_NAME_AMBIGUOUS, shared->count, msg)) return oom(err);
    }
    return CNA_OK;
}

static cna_result bind_model_library(bind_state *st, const cna_clip_library *lib, size_t first, cna_error *err)
{
    name_list unbound, shared;
    memset(&unbound, 0, sizeof unbound);
    memset(&shared, 0, sizeof shared);
    size_t tracks = 0, weights = 0;
    cna_result r = bind_model_tracks(st, lib, first, &unbound, &shared, &tracks, err);
    if (r == CNA_OK) r = bind_all_weights(st, lib, first, &weights, err);
    if (r == CNA_OK && tracks == 0 && weights == 0) {
        char more[48];
        r = cna__error(err, CNA_ERROR_INVALID_DATA, "%s: no track binds to a node of the model (tracks move %s%s)",
                       lib->path, unbound.count ? unbound.text : "nothing", name_list_tail(&unbound, more, sizeof more));
    }
    if (r == CNA_OK) r = bind_diagnostics(st, lib, &unbound, &shared, err);
    return r;
}

/* One library: its node map, its clips at animation `first`, its weight tracks, its diagnostics. */
static cna_result bind_library(bind_state *st, const cna_clip_library *lib, size_t first, cna_error *err)
{
    if (st->options->retarget)
        return cna__retarget_library(&st->ctx, st->base, lib->doc, lib->model, lib->path, st->options, first,
                                     st->node_clips, err);
    if (!lib->doc) return bind_model_library(st, lib, first, err);
    const cna_gltf_document *doc = lib->doc;
    const cna_model *m = st->base;
    int32_t *map = (int32_t *)cna__calloc(&st->model->allocator, doc->node_count ? doc->node_count : 1,
                                          sizeof *map);
    if (!map) return oom(err);
    name_list unbound, shared;
    memset(&unbound, 0, sizeof unbound);
    memset(&shared, 0, sizeof shared);
    size_t bound_channels = 0, weight_channels = 0;
    uint8_t *seen = (uint8_t *)cna__calloc(&st->model->allocator, doc->node_count ? doc->node_count : 1, 1);
    if (!seen) {
        cna__free(&st->model->allocator, map);
        return oom(err);
    }
    for (size_t i = 0; i < doc->node_count; i++) {
        bool dup = false;
        int32_t b = doc->nodes[i].name && doc->nodes[i].name[0] ? find_name(&st->names, doc->nodes[i].name, &dup)
                                                                 : -1;
        map[i] = b >= 0 ? m->bones[b].gltf_node : -1;
        if (b >= 0 && dup) seen[i] |= 2;
    }
    for (size_t a = 0; a < doc->animation_count; a++) {
        const cna_gltf_animation *anim = &doc->animations[a];
        for (size_t c = 0; c < anim->channel_count; c++) {
            const cna_gltf_animation_channel *ch = &anim->channels[c];
            int32_t node = ch->target_node;
            if (node < 0 || (size_t)node >= doc->node_count) continue;
            bool trs = ch->path == CNA_GLTF_PATH_TRANSLATION || ch->path == CNA_GLTF_PATH_ROTATION ||
                       ch->path == CNA_GLTF_PATH_SCALE;
            if (ch->path == CNA_GLTF_PATH_WEIGHTS) {
                weight_channels++;
                continue; /* counted as bound below, when a part takes it */
            }
            if (!trs) continue;
            if (map[node] >= 0) {
                bound_channels++;
                st->reached[m->gltf_node_to_bone[map[node]]] = 1;
                if ((seen[node] & 6) == 2) {
                    name_list_add(&shared, doc->nodes[node].name);
                    seen[node] |= 4;
                }
            } else if (!(seen[node] & 1)) {
                seen[node] |= 1;
                name_list_add(&unbound, node_name_or_empty(doc, node));
            }
        }
    }
    cna__free(&st->model->allocator, seen);

    /* weight tracks: every morphed part gets the library's animations */
    size_t bound_weights = 0;
    cna_result r = bind_all_weights(st, lib, first, &bound_weights, err);
    if (r == CNA_OK && bound_channels == 0 && bound_weights == 0) {
        char more[48];
        if (unbound.count == 0 && weight_channels == 0)
            r = cna__error(err, CNA_ERROR_INVALID_DATA, "%s: no channel moves a node (nothing to bind)", lib->path);
        else
            r = cna__error(err, CNA_ERROR_INVALID_DATA,
                           "%s: no channel binds to a node of the model (channels move %s%s)", lib->path,
                           unbound.count ? unbound.text : "morph weights only",
                           name_list_tail(&unbound, more, sizeof more));
    }
    if (r == CNA_OK) r = cna__extract_clips(&st->ctx, doc, map, first, st->node_clips, err);
    if (r != CNA_OK && err) {
        if (strncmp(err->message, lib->path, strlen(lib->path)) != 0) cna__error_prefix(err, "%s", lib->path);
    }
    cna__free(&st->model->allocator, map);
    if (r != CNA_OK) return r;
    return bind_diagnostics(st, lib, &unbound, &shared, err);
}

/* The model's diagnostics and markers, copied into the bound model. */
static cna_result copy_base(bind_state *st, cna_error *err)
{
    const cna_model *m = st->base;
    for (size_t i = 0; i < m->diagnostic_count; i++)
        if (!cna__model_diag_n(st->model, m->diagnostics[i].code, m->diagnostics[i].count,
                               m->diagnostics[i].message))
            return oom(err);
    for (size_t a = 0; m->animation_markers && a < m->animation_count; a++)
        for (size_t k = 0; k < m->animation_markers[a].count; k++) {
            const cna_marker *mk = &m->animation_markers[a].items[k];
            if (!cna__model_insert_marker(st->model, a, mk->name, mk->ticks)) return oom(err);
        }
    return CNA_OK;
}

/* Room for `total` animations: new skin clip arrays (one per glTF skin,
 * shared by its placements), scene-node clips, and weight-track arrays of
 * morphed parts, the model's own first. */
static cna_result grow_arrays(bind_state *st, size_t total, cna_error *err)
{
    const cna_model *m = st->base;
    cna_model *out = &st->model->pub;
    cna__arena *arena = &st->model->arena;
    cna_model_skin *skins = m->skin_count ? (cna_model_skin *)cna__arena_calloc(arena, m->skin_count, sizeof *skins)
                                          : NULL;
    cna_clip *node_clips = (cna_clip *)cna__arena_calloc(arena, total, sizeof *node_clips);
    if ((m->skin_count && !skins) || !node_clips) return oom(err);
    for (size_t s = 0; s < m->skin_count; s++) {
        skins[s] = m->skins[s];
        size_t first = 0;
        while (first < s && m->skins[first].gltf_skin != m->skins[s].gltf_skin) first++;
        const cna_clip *clips = skins[first].data.clips;
        if (first == s) {
            cna_clip *c = (cna_clip *)cna__arena_calloc(arena, total, sizeof *c);
            if (!c) return oom(err);
            for (size_t a = 0; a < m->animation_count && a < m->skins[s].data.clip_count; a++)
                c[a] = m->skins[s].data.clips[a];
            clips = c;
        }
        skins[s].data.clips = clips;
        skins[s].data.clip_count = total;
    }
    for (size_t a = 0; a < m->animation_count; a++) {
        if (m->node_clips) node_clips[a] = m->node_clips[a];
        else node_clips[a].target = CNA_CLIP_TARGET_SCENE_NODE;
    }
    cna_model_mesh *meshes = m->mesh_count ? (cna_model_mesh *)cna__arena_calloc(arena, m->mesh_count, sizeof *meshes)
                                           : NULL;
    if (m->mesh_count && !meshes) return oom(err);
    for (size_t i = 0; i < m->mesh_count; i++) {
        meshes[i] = m->meshes[i];
        bool morphed = false;
        for (size_t k = 0; k < m->meshes[i].part_count; k++) morphed = morphed || m->meshes[i].parts[k].morph;
        if (!morphed) continue;
        cna_model_part *parts = (cna_model_part *)cna__arena_calloc(arena, m->meshes[i].part_count, sizeof *parts);
        if (!parts) return oom(err);
        for (size_t k = 0; k < m->meshes[i].part_count; k++) {
            parts[k] = m->meshes[i].parts[k];
            if (!parts[k].morph) continue;
            const cna_morph_weight_track **tracks =
                (const cna_morph_weight_track **)cna__arena_calloc(arena, total, sizeof *tracks);
            if (!tracks) return oom(err);
            for (size_t a = 0; a < m->animation_count && a < parts[k].weight_track_count; a++)
                tracks[a] = parts[k].weight_tracks[a];
            parts[k].weight_tracks = tracks;
            parts[k].weight_track_count = total;
        }
        meshes[i].parts = parts;
    }
    out->skins = skins;
    out->node_clips = node_clips;
    out->meshes = meshes;
    out->animation_count = total;
    st->node_clips = node_clips;
    return CNA_OK;
}

/* A morphed part whose model had no weight track gets one from a library:
 * its carrier's single track (the first animation that has one) follows, as
 * an import of the file with the channel in it would set it. */
static cna_result settle_carriers(bind_state *st, cna_error *err)
{
    cna_model *out = &st->model->pub;
    for (size_t i = 0; i < out->mesh_count; i++)
        for (size_t k = 0; k < out->meshes[i].part_count; k++) {
            cna_model_part *part = &out->meshes[i].parts[k];
            if (!part->morph || part->morph->weight_track) continue;
            for (size_t a = 0; a < part->weight_track_count; a++) {
                if (!part->weight_tracks[a]) continue;
                cna_morph_target_data *d =
                    (cna_morph_target_data *)cna__arena_calloc(&st->model->arena, 1, sizeof *d);
                if (!d) return oom(err);
                *d = *part->morph;
                d->weight_track = part->weight_tracks[a];
                part->morph = d;
                break;
            }
        }
    return CNA_OK;
}

/* The key magnitudes of the model's own clips, per glTF node (the importer
 * kept them while importing; a bound model's check needs them again). */
static void base_key_magnitudes(bind_state *st)
{
    const cna_model *m = st->base;
    double *ks = st->ctx.node_key_scale, *kt = st->ctx.node_key_translation;
    for (size_t a = 0; a < m->animation_count; a++) {
        for (size_t s = 0; s <= m->skin_count; s++) {
            const cna_clip *clip = s < m->skin_count ? (a < m->skins[s].data.clip_count ? &m->skins[s].data.clips[a] : NULL)
                                                     : (m->node_clips ? &m->node_clips[a] : NULL);
            if (!clip) continue;
            for (size_t t = 0; t < clip->track_count; t++) {
                const cna_bone_track *tr = &clip->tracks[t];
                int32_t node;
                if (s < m->skin_count) {
                    if (tr->bone < 0 || (size_t)tr->bone >= m->skins[s].joint_count) continue;
                    node = m->skins[s].palette_to_gltf_node[tr->bone];
                } else {
                    if (tr->bone < 0 || (size_t)tr->bone >= m->bone_count) continue;
                    node = m->bones[tr->bone].gltf_node;
                }
                if (node < 0 || (size_t)node >= m->gltf_node_count) continue;
                for (size_t k = 0; k < tr->key_count; k++) {
                    const cna_keyframe *key = &tr->keys[k];
                    double l = fabs((double)key->scale.x);
                    if (!(fabs((double)key->scale.y) <= l)) l = fabs((double)key->scale.y);
                    if (!(fabs((double)key->scale.z) <= l)) l = fabs((double)key->scale.z);
                    double t2 = sqrt((double)key->translation.x * key->translation.x +
                                     (double)key->translation.y * key->translation.y +
                                     (double)key->translation.z * key->translation.z);
                    if (!(l <= ks[node])) ks[node] = l;
                    if (!(t2 <= kt[node])) kt[node] = t2;
                }
            }
        }
    }
}

cna_result cna_model_bind_clips(const cna_model *model, const cna_clip_library *const *libraries,
                                size_t library_count, const cna_bind_options *opts, cna_model **out,
                                cna_error *err)
{
    if (!model || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "bind clips: NULL %s", model ? "out" : "model");
    if (library_count > 0 && !libraries)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "bind clips: NULL libraries with library_count %zu",
                          library_count);
    size_t total = model->animation_count;
    for (size_t i = 0; i < library_count; i++) {
        if (!libraries[i])
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "bind clips: libraries[%zu] is NULL", i);
        size_t n = cna_clip_library_animation_count(libraries[i]);
        if (n > SIZE_MAX / sizeof(cna_clip) - total)
            return cna__error(err, CNA_ERROR_LIMIT, "bind clips: too many animations");
        total += n;
    }
    const cna__model *base = (const cna__model *)model;
    cna_bind_options defaults;
    memset(&defaults, 0, sizeof defaults);
    const cna_bind_options *o = opts ? opts : &defaults;
    const bool own_alloc = o->allocator.alloc || o->allocator.free;
    cna__model *nm = cna__model_new(own_alloc ? &o->allocator : &base->allocator);
    if (!nm) return oom(err);
    nm->pub = *model;
    nm->pub.owner = &nm->owner;    /* its own count of characters */
    nm->pub.diagnostics = NULL;
    nm->pub.diagnostic_count = 0;
    nm->pub.animation_markers = NULL;
    nm->pub.animation_count = model->animation_count;

    bind_state st;
    memset(&st, 0, sizeof st);
    st.base = model;
    st.model = nm;
    st.options = o;
    cna_result r = grow_arrays(&st, total, err);   /* animation_count = total: the marker table's size */
    if (r == CNA_OK) r = copy_base(&st, err);
    if (r == CNA_OK) r = build_destination(&st, err);
    if (r == CNA_OK) r = build_names(&st, err);
    if (r == CNA_OK) base_key_magnitudes(&st);
    size_t first = model->animation_count;
    for (size_t i = 0; i < library_count && r == CNA_OK; i++) {
        r = bind_library(&st, libraries[i], first, err);
        first += cna_clip_library_animation_count(libraries[i]);
    }
    if (r == CNA_OK) r = settle_carriers(&st, err);
    if (r == CNA_OK && library_count > 0 && !o->retarget) {
        name_list unreached;
        memset(&unreached, 0, sizeof unreached);
        for (size_t b = 0; b < model->bone_count; b++)
            if (!st.reached[b]) name_list_add(&unreached, model->bones[b].name[0] ? model->bones[b].name : "(unnamed)");
        if (unreached.count) {
            char msg[600], more[48];
            snprintf(msg, sizeof msg, "%zu node(s) of the model are moved by no channel of the bound libraries: "
                     "%s%s; they keep their rest pose in those animations", unreached.count, unreached.text,
                     name_list_tail(&unreached, more, sizeof more));
            if (!cna__model_diag_n(nm, CNA_MODEL_DIAG_CLIP_UNREACHED, unreached.count, msg)) r = oom(err);
        }
    }
    if (r == CNA_OK)
        r = cna__import_check_magnitudes(&st.ctx, st.ctx.node_key_scale, st.ctx.node_key_translation, err);
    if (r == CNA_OK) r = cna__model_build_rig(nm, err);
    if (r != CNA_OK) {
        cna_model_free(&nm->pub);
        return r;
    }
    /* the model stays alive while the bound model does (its arrays are shared) */
    nm->base_owner = cna__model_retain(model);
    *out = &nm->pub;
    return CNA_OK;
}
