/*
 * cna/clips.h — clips from other files: clip libraries bound to a model by
 * node name (docs/clips.md).
 *
 * Asset packs often ship their animations apart from the characters: a file
 * with animations only, one clip per file, or one large clip file for many
 * characters. A clip library is such a file, loaded once; binding it to a
 * model gives a new model that holds the model's own animations followed by
 * the library's, and characters play them like any other animation (layers,
 * crossfades, masks, additive layers, markers and events, root motion,
 * crowds, cna_gl, .cnb export).
 *
 * Usage:
 *   cna_model *hero, *bound;
 *   cna_clip_library *lib;
 *   cna_error err;
 *   if (cna_model_load_file("hero.glb", NULL, &hero, &err) ||
 *       cna_clip_library_load_file("animations.glb", NULL, &lib, &err) ||
 *       cna_model_bind_clips(hero, (const cna_clip_library *const[]){lib}, 1, NULL, &bound, &err))
 *       ...;                              // err.message says which file and why
 *   cna_clip_library_free(lib);           // the bound model keeps no pointer into it
 *   size_t walk;
 *   if (cna_model_find_animation(bound, "Walk", &walk, &err)) ...;   // never the rest pose
 *   cna_character *c;
 *   cna_character_create(bound, NULL, &c, &err);
 *   cna_character_play(c, (long)walk, &err);
 *   ...
 *   cna_character_free(c);
 *   cna_model_free(bound);                // in any order: the bound model
 *   cna_model_free(hero);                 // holds a reference on hero
 *
 * Binding rules (docs/clips.md has them with examples):
 *   - a translation, rotation or scale channel moves the model's node of the
 *     same name (the name cna_model_find_bone finds: a joint before another
 *     node of that name), joint or not; a node without a name binds nothing;
 *   - a weights channel moves the morph targets of the model's mesh
 *     placement whose node has the channel node's name: target by target
 *     name where both meshes name their targets (extras.targetNames), else by
 *     index when the counts agree;
 *   - the clip is extracted exactly as if the channel had been written into
 *     the model's own file on that node (same keys, same interpolation
 *     rules, same clip mode): a channel the node lacks takes the model's rest
 *     value, and a node the clip does not animate keeps the model's rest pose;
 *   - channels that bind to nothing, and model nodes that no channel of the
 *     library reaches, are listed by name in the bound model's diagnostics
 *     (CNA_MODEL_DIAG_CLIP_UNBOUND, CNA_MODEL_DIAG_CLIP_UNREACHED). A library
 *     none of whose channels binds is refused, naming the file and its first
 *     channel targets. Nothing is ever bound by index where names disagree.
 */
#ifndef CNA_CLIPS_H
#define CNA_CLIPS_H

#include <stdbool.h>
#include <stddef.h>

#include "cna/alloc.h"
#include "cna/export.h"
#include "cna/gltf.h"
#include "cna/model.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Channels of a clip library that move no node of the model (their nodes'
 * names, in the message). */
#define CNA_MODEL_DIAG_CLIP_UNBOUND "clip-track-unbound"
/* Nodes of the model that no channel of a bound library moves (their names). */
#define CNA_MODEL_DIAG_CLIP_UNREACHED "clip-node-unreached"
/* A library channel names a node that several nodes of the model share; it
 * moves the one cna_model_find_bone finds. */
#define CNA_MODEL_DIAG_CLIP_NAME_AMBIGUOUS "clip-name-ambiguous"

/* A glTF or GLB file read for its animations (opaque). Its meshes, skins,
 * materials and images are never decoded into a model (its images are not
 * even read: it loads as with cna_gltf_options.no_textures); a file whose skin no
 * mesh uses, or with an unrelated mesh of its own, serves as well as one with
 * animations only. */
typedef struct cna_clip_library cna_clip_library;

/* Options of cna_clip_library_load_file; zero (or NULL) means every default. */
typedef struct cna_clip_library_options {
    cna_allocator allocator;  /* for the library; default malloc/free */
    cna_gltf_options gltf;    /* reader options (limits, allocator taken from above when unset) */
} cna_clip_library_options;

/* Read a glTF (.gltf) or GLB file as a clip library, or a .cnb file with
 * animations (recognised by its magic; docs/clips.md says how its tracks
 * bind). Errors: the reader's
 * (CNA_ERROR_IO, CNA_ERROR_PARSE, CNA_ERROR_INVALID_DATA, CNA_ERROR_LIMIT...,
 * naming the file); CNA_ERROR_INVALID_DATA "PATH: no animations" for a file
 * without animations; CNA_ERROR_INVALID_ARGUMENT for NULL arguments. *out is
 * set only on success; free it with cna_clip_library_free. */
CNA_API cna_result cna_clip_library_load_file(const char *path, const cna_clip_library_options *opts,
                                              cna_clip_library **out, cna_error *err);
/* Frees a library (NULL is allowed). Models bound to it stay valid: binding
 * copies what it needs. */
CNA_API void cna_clip_library_free(cna_clip_library *library);

/* The path the library was loaded from (as given), "" for NULL. */
CNA_API const char *cna_clip_library_path(const cna_clip_library *library);
/* The library's glTF document (owned by the library), for its reader
 * diagnostics (cna_gltf_document_find_diagnostic); NULL for NULL. */
CNA_API const cna_gltf_document *cna_clip_library_document(const cna_clip_library *library);
/* Number of animations; 0 for NULL. */
CNA_API size_t cna_clip_library_animation_count(const cna_clip_library *library);
/* Animation i's name (the file's, else "animation_<i>" as the importer names
 * it); NULL when i is out of range or library is NULL. */
CNA_API const char *cna_clip_library_animation_name(const cna_clip_library *library, size_t animation);
/* The distinct node names animation i's channels move, in the order of their
 * first channel ("" for an unnamed node): count, then each name (NULL out of
 * range). Owned by the library. */
CNA_API size_t cna_clip_library_target_count(const cna_clip_library *library, size_t animation);
CNA_API const char *cna_clip_library_target_name(const cna_clip_library *library, size_t animation,
                                                 size_t target);

/* One entry of a retargeting name map: the model's joint `target` takes
 * the library's joint `source`, or no source (NULL). */
typedef struct cna_retarget_pair {
    const char *target;
    const char *source;
} cna_retarget_pair;

/* Options of cna_model_bind_clips; zero (or NULL) means every default. */
typedef struct cna_bind_options {
    cna_allocator allocator;  /* for the bound model's own storage; default: the model's */
    /* false (default): the library's channels play as authored on the nodes
     * of the same names. true: retargeted (docs/clips.md, "Retargeting"):
     * every animation becomes the model's own motion following the
     * library's world rotations, relative to each skeleton's reference pose,
     * the hips' displacement scaled by the ratio of the hips' heights. */
    bool retarget;
    /* Retargeting only. The joint map, in this order: exact names; these
     * pairs over them (a source name the library lacks is refused, a target
     * name the model lacks is the diagnostic retarget-map-unused); then, for
     * joints still unmatched, the humanoid names (Mixamo, Unreal, Rigify,
     * .L/.R, _l/_r, Left/Right: docs/clips.md). */
    const cna_retarget_pair *retarget_map;
    size_t retarget_map_count;
    /* The model's hips joint; NULL: the joint named hips or pelvis (any case,
     * after a "...:", "...|" or "DEF-" prefix). The library's hips are the
     * joint mapped to it (else found by the same rule). */
    const char *retarget_hips;
    /* Reference alignment: the model's reference becomes its rest with,
     * parent first, every mapped joint that has exactly one mapped child
     * turned by the smallest rotation that points it at that child as the
     * library's rest does (an A-pose character follows T-pose clips). */
    bool retarget_align;
} cna_bind_options;

/* A retargeting name map read from a JSON file {"map": {"target joint":
 * "source joint" or null, ...}} (other top-level keys are ignored).
 * Errors: CNA_ERROR_IO (cannot read, naming the file), CNA_ERROR_PARSE (not
 * JSON), CNA_ERROR_INVALID_DATA (no "map" object, or a value that is
 * neither a string nor null, naming the key), CNA_ERROR_LIMIT (over 16 MiB),
 * CNA_ERROR_INVALID_ARGUMENT (NULL). Free with cna_retarget_map_free. */
typedef struct cna_retarget_map cna_retarget_map;
CNA_API cna_result cna_retarget_map_load_file(const char *path, cna_retarget_map **out, cna_error *err);
/* The pairs (owned by the map) and their count; NULL and 0 for NULL. */
CNA_API const cna_retarget_pair *cna_retarget_map_pairs(const cna_retarget_map *map, size_t *count);
CNA_API void cna_retarget_map_free(cna_retarget_map *map);

/* Retargeting: the model's joints that no library joint maps to (they keep
 * their reference pose); the map's target names the model lacks; the hips
 * found and their height ratio. */
#define CNA_MODEL_DIAG_RETARGET_UNMAPPED "retarget-joint-unmapped"
#define CNA_MODEL_DIAG_RETARGET_MAP_UNUSED "retarget-map-unused"
#define CNA_MODEL_DIAG_RETARGET_HIPS "retarget-hips"


/* Bind libraries[0 .. library_count) to `model`: *out is a new model whose
 * animations are the model's own (same indices) followed by each library's in
 * file order, library after library. Its bones, meshes, vertices, skins'
 * skeletons, materials and images are the model's (shared, not copied): the
 * bound model holds a reference on `model`, so cna_model_free(model) while
 * the bound model lives only gives up the caller's handle (the model is
 * freed with the bound model). The libraries may be freed at once. Markers the
 * model has when binding are copied; markers added later to either model
 * belong to that model only. The bound model is immutable like any model and
 * freed with cna_model_free. Its diagnostics are the model's followed by the
 * binding's (see above). Errors, with nothing allocated and *out untouched:
 *   CNA_ERROR_INVALID_ARGUMENT  NULL model or out, NULL libraries with a
 *                               nonzero count, a NULL library;
 *   CNA_ERROR_INVALID_DATA      a library none of whose channels moves a node
 *                               of the model ("walk.glb: no channel binds to a
 *                               node of the model (channels move \"Hips\",
 *                               \"Spine\", ...)"); a library's animation data
 *                               that the importer refuses (named);
 *   CNA_ERROR_LIMIT             the importer's limits (key budget, magnitudes);
 *   CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_model_bind_clips(const cna_model *model, const cna_clip_library *const *libraries,
                                        size_t library_count, const cna_bind_options *opts, cna_model **out,
                                        cna_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CNA_CLIPS_H */
