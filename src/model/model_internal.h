/*
 * Private declarations of the model layer: the model's storage (an arena
 * freed with the model), diagnostics, and the import context shared by the
 * import steps (bones and skins, meshes, clips, effects). Not installed.
 *
 * Import order (src/import/import.c):
 *   1. bones          cna__import_bones        (selected scene, depth-first pre-order)
 *   2. skins          cna__import_skins        (BuildSkeleton, maps, root prefixes)
 *      meshes array   cna__import_mesh_list    (one cna_model_mesh per instancing node:
 *                                              name, parent_bone, skin, gltf ids; parts
 *                                              array allocated, one per primitive, with
 *                                              gltf ids and material; effect = -1)
 *   3. mesh data      cna__import_meshes       (the mesh import: vertices, indices,
 *                                              morph, weight tracks, bounds;
 *                                              compiled in when CNA__MESH_IMPORT_AVAILABLE
 *                                              is defined at the end of this header)
 *   4. model size     cna__import_model_size
 *   5. clips          cna__import_clips
 *   6. effects        cna__import_effects (material data only)
 */
#ifndef CNA_MODEL_INTERNAL_H
#define CNA_MODEL_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>

#include "cna/model.h"
#include "core/internal.h"

/* ------------------------------------------------------------------ arena */

typedef struct cna__arena_block cna__arena_block;
typedef struct cna__arena {
    cna_allocator allocator;
    cna__arena_block *head;
} cna__arena;

/* Zeroed, 16-byte aligned memory living until cna__arena_free; NULL on failure. */
void *cna__arena_alloc(cna__arena *arena, size_t size);
/* Like cna__arena_alloc, not zeroed: for a buffer the caller fills at once. */
void *cna__arena_alloc_uninit(cna__arena *arena, size_t size);
/* count * size zeroed bytes, overflow-checked; NULL on failure or overflow. */
void *cna__arena_calloc(cna__arena *arena, size_t count, size_t size);
/* A copy of s ("" for NULL); NULL on failure. */
char *cna__arena_strdup(cna__arena *arena, const char *s);
void cna__arena_free(cna__arena *arena);
/* FNV-1a over every byte the arena handed out, seeded with `h`. */
uint64_t cna__arena_checksum(const cna__arena *arena, uint64_t h);
/* A checksum of every byte the model owns (its struct and its storage):
 * tests check that run-time calls change none. */
uint64_t cna__model_checksum(const cna_model *model);
/* Bytes the arena holds from its allocator (blocks with their headers). */
size_t cna__arena_bytes(const cna__arena *arena);

/* ------------------------------------------------------------------ the model's hidden part */

typedef struct cna__diag_list {
    cna_model_diagnostic *items;
    size_t count, capacity;
} cna__diag_list;

/* The markers of one animation (cna_model_add_marker): sorted by ticks,
 * ties in the order they were added; items and each name allocated through
 * the model's allocator (not the arena: a marker is added after load). */
typedef struct cna__marker_list {
    cna_marker *items;
    size_t count, capacity;
} cna__marker_list;

/* What keeps a model alive (cna_model.owner): 1 for the model's handle until
 * cna_model_free, plus one per live character. Whoever brings it to 0 frees
 * the model. */
struct cna_model_owner {
    atomic_size_t refs;
};

typedef struct cna__model {
    cna_model pub;                 /* first: a cna_model* is a cna__model* */
    struct cna_model_owner owner;  /* pub.owner points here */
    cna_allocator allocator;
    cna__arena arena;              /* every immutable array of the model */
    cna__diag_list diags;          /* storage of pub.diagnostics (arena strings) */
    cna__marker_list *markers;     /* pub.animation_count lists; NULL until the first marker */
    cna_animation_markers *marker_views; /* pub.animation_markers: each list's items and count */
    size_t marker_bytes;           /* bytes the markers hold from the allocator */
    /* A bound model (src/import/bind.c): the owner of the model it shares its
     * bones, meshes and skeletons with, held until this one is destroyed. */
    struct cna_model_owner *base_owner;
    /* The rig (cna__rig, src/character/character_internal.h): what every
     * character of this model shares, built at the end of the load
     * (cna__model_build_rig); one allocation from `allocator`, freed with the
     * model. NULL when none could be built. Atomic so that a model built on
     * one thread and shared with others needs no more than its handoff. */
    _Atomic(void *) rig;
    size_t rig_bytes;              /* its size (cna_model_size_bytes counts it) */
} cna__model;

static inline cna__model *cna__model_of(cna_model *m) { return (cna__model *)m; }
/* The model an owner (cna_model.owner) belongs to. */
static inline cna__model *cna__model_of_owner(struct cna_model_owner *owner)
{
    return (cna__model *)(void *)((char *)owner - offsetof(cna__model, owner));
}

/* Build the model's rig (src/character/character.c) at the end of a load,
 * from the model's finished arrays. CNA_ERROR_OUT_OF_MEMORY fails the load;
 * a model whose characters cannot be made gets no rig (CNA_OK): each
 * cna_character_create then reports why. */
cna_result cna__model_build_rig(cna__model *m, cna_error *err);

/* A character of `model` was created: counts it (when model->owner is set)
 * and returns the owner to give back to cna__model_release; NULL otherwise. */
struct cna_model_owner *cna__model_retain(const cna_model *model);
/* The character is freed: uncounts it, and frees the model when it was
 * the last reference (cna_model_free already called). NULL does nothing. */
void cna__model_release(struct cna_model_owner *owner);

/* Record a diagnostic: merged by code (count + 1), the first message kept.
 * Returns false when out of memory (the caller fails the import). */
bool cna__model_diag(cna__model *model, const char *code, const char *fmt, ...) CNA__PRINTF(3, 4);
/* Add `count` occurrences with a preformatted message. */
bool cna__model_diag_n(cna__model *model, const char *code, size_t count, const char *message);

/* Insert a marker (name copied) into animation `animation`'s list after the
 * markers with ticks <= `ticks`; the caller has checked the animation index,
 * the name and the time. false when out of memory (then nothing changed). */
bool cna__model_insert_marker(cna__model *model, size_t animation, const char *name, int64_t ticks);

/* ------------------------------------------------------------------ import context */

typedef struct cna__import_ctx {
    const cna_gltf_document *doc;
    cna__model *model;             /* model->pub is being filled */
    cna__arena *arena;             /* == &model->arena */
    cna_allocator allocator;       /* resolved */
    cna_clip_mode clip_mode;       /* FAITHFUL or UNION */
    float unit_scale;              /* translation scale; always 1 at runtime (converter only) */
    bool split_palettes;           /* cna_import_options.split_palettes */
    /* Per glTF node (doc->node_count entries), over the WHOLE node graph: */
    cna_mat4 *node_local;          /* rest local transform (rotation normalised) */
    cna_mat4 *node_world;          /* rest world transform */
    uint8_t *node_animated;        /* bit 0: a T/R/S channel targets it (any animation) */
    /* Per glTF node: the model skin created for the node instancing a skinned mesh, else -1. */
    int32_t *node_skin;
    /* Per glTF node, filled by the clip import: the largest max |s_i| and |t|
     * of the keys of every animation that moves it (0 when none); NULL
     * without animations. */
    double *node_key_scale;
    double *node_key_translation;
} cna__import_ctx;

/* Steps (each returns CNA_OK or fills err; the model is freed by the caller on error). */
cna_result cna__import_bones(cna__import_ctx *ctx, int32_t scene, cna_error *err);
cna_result cna__import_skins(cna__import_ctx *ctx, cna_error *err);
cna_result cna__import_mesh_list(cna__import_ctx *ctx, cna_error *err);
cna_result cna__import_model_size(cna__import_ctx *ctx, cna_error *err);
cna_result cna__import_clips(cna__import_ctx *ctx, cna_error *err);
cna_result cna__import_effects(cna__import_ctx *ctx, cna_error *err);
/* Clip extraction of every animation of `src` (cna__import_clips: src ==
 * ctx->doc, node_map NULL). Animation a becomes clip out_first + a of every
 * model skin (the caller sized and shared the skins' data.clips arrays, one
 * per glTF skin, and they are writable) and node_clips[out_first + a]. With a
 * node_map (src node -> ctx->doc node, -1 = unbound) the channels move the
 * mapped nodes of ctx->doc, whose rest values fill what a channel lacks; a
 * channel on an unbound node is skipped. ctx->node_key_scale/translation
 * (ctx->doc node count) receive the key magnitudes. Keys go to ctx->arena. */
cna_result cna__extract_clips(cna__import_ctx *ctx, const cna_gltf_document *src, const int32_t *node_map,
                              size_t out_first, cna_clip *node_clips, cna_error *err);
/* The largest magnitude a node world, skin transform, position or instance
 * transform value may reach (src/model/magnitude.c, docs/model.md). */
#define CNA__MAGNITUDE_MAX 1e18
/* After the clips: refuse a file whose node worlds, palettes or vertices
 * could overflow at some time of some clip, or an instanced node whose
 * instance worlds could (src/model/magnitude.c). key_l /
 * key_t: per glTF node, the largest key scale and translation (may be NULL). */
cna_result cna__import_check_magnitudes(cna__import_ctx *ctx, const double *key_l, const double *key_t,
                                        cna_error *err);

/* The mesh import (vertex packing, JOINTS rewriting through each skin's
 * ordinal_to_palette, influences, bounds, morph, weight tracks). Runs after bones, skins and the mesh list: model->pub.meshes[i]
 * has name, parent_bone, skin, gltf ids, and parts[] with gltf ids and
 * material; it fills the rest of each part and the mesh bounds. Storage from
 * ctx->arena (freed with the model). */
cna_result cna__import_meshes(cna__import_ctx *ctx, cna_error *err);

/* true when |1 - |q|| > 1e-6 (or q is not finite): cna normalises such a rotation. */
bool cna__quat_needs_normalising(cna_quat q);
/* |1 - |q|| above this: the rotation is normalised and counted as non-unit. */
#define CNA__QUAT_UNIT_TOLERANCE 1e-6
/* q normalised when cna__quat_needs_normalising(q), else q exactly. */
cna_quat cna__quat_unit(cna_quat q);

/* Rest local transform of a glTF node with its rotation normalised. */
void cna__node_rest_local(const cna_gltf_node *node, cna_mat4 *out);

/* ================================================================== mesh import
 * cna__import_meshes is implemented in src/import/mesh_import.c (helpers in
 * src/model/mesh_internal.h); defining this compiles the call into the import. */
#define CNA__MESH_IMPORT_AVAILABLE 1
/* ================================================================== end of mesh import */


/* ================================================================== baked models (src/model/model_baked.c)
 * An empty model (gltf_scene -1, size 1) owning nothing yet, with its arena
 * and allocator set; cna_model_free accepts it at every stage of filling.
 * NULL when out of memory. */
cna__model *cna__model_new(const cna_allocator *allocator);
/* ================================================================== end of baked models */

#endif
