/*
 * cna/import.h — the importer's model entry points (library cna_gltf): a glTF
 * file or document made into a cna_model, a model loaded from either a glTF
 * or a .cnb file, and key reduction before a model is baked.
 *
 * Everything declared here is in the importer library, libcna_gltf (CMake
 * cna::cna_gltf, pkg-config cna_gltf), which links the runtime; a program that
 * links the runtime alone (libcna: it loads .cnb files with cna_cnb_load_file,
 * cna/baked.h) calls none of it. The importer's other headers: cna/gltf.h (the
 * glTF document reader), cna/clips.h (clip libraries bound to a model by
 * name), and the .cnb and .cnj writers of cna/baked.h. The import options,
 * cna_import_options, are declared with the model (cna/model.h), which
 * records the clip mode they chose.
 *
 * cna/model.h and cna/baked.h include this header, so code that called these
 * functions through them still compiles unchanged.
 *
 * Usage — load a glTF or .cnb file, whichever it is:
 *   cna_model *model;
 *   cna_error err;
 *   if (cna_model_load_any("robot.glb", NULL, &model, &err) != CNA_OK) {
 *       fprintf(stderr, "%s\n", err.message);
 *       return 1;
 *   }
 *   ...
 *   cna_model_free(model);
 */
#ifndef CNA_IMPORT_H
#define CNA_IMPORT_H

#include <stddef.h>

#include "cna/alloc.h"
#include "cna/export.h"
#include "cna/gltf.h"
#include "cna/model.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ glTF to model */

/* Build a model from a loaded document (see docs/model.md for every rule).
 * The document is only read during the call.
 * Errors (*out unchanged, nothing leaks): CNA_ERROR_INVALID_ARGUMENT (NULL
 * doc/out, options out of range, use_scene with a scene that does not exist);
 * CNA_ERROR_LIMIT (a skin with more than 72 joints without split_palettes:
 * "skins[0]: 73 joints; at most 72 are supported; import with split_palettes
 * (cna convert --split-palettes) to split its parts"; FAITHFUL clips beyond their key budget, see
 * cna_clip_mode); CNA_ERROR_INVALID_DATA (a joint listed twice, a JOINTS
 * value not below the joint count, a negative skin weight, ...); and, for
 * finite values whose products could overflow, CNA_ERROR_LIMIT naming the
 * node, skin joint or primitive whose world, skin transform or positions
 * could pass 1e18 at some time of some clip, or the node, attribute,
 * instance and value of an EXT_mesh_gpu_instancing TRANSLATION, ROTATION or
 * SCALE component above 1e18 in magnitude (docs/model.md, "Magnitude
 * limits": "nodes[1] \"Arm\": world transform may reach 1e+20 (scale up to
 * 1e+10 under a parent scale up to 1e+10); at most 1e+18 is supported");
 * CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_model_import_gltf(const cna_gltf_document *doc, const cna_import_options *opts,
                                 cna_model **out, cna_error *err);

/* Load a .gltf/.glb (cna_gltf_load_file with opts->gltf), import it, free the
 * document. Errors: the reader's and cna_model_import_gltf's. */
CNA_API cna_result cna_model_load_file(const char *path, const cna_import_options *opts,
                               cna_model **out, cna_error *err);

/* Load a model from `path` whatever its kind: a .cnb file (recognised by its
 * magic, whatever its name) with cna_cnb_load_file, using opts->allocator
 * (its scene and clip mode were fixed when it was baked, so
 * opts->use_scene, scene and clip_mode are not used); anything else with
 * cna_model_load_file(path, opts). For tools that accept both (cna pose,
 * cna render). Errors: CNA_ERROR_INVALID_ARGUMENT (NULL path or out),
 * CNA_ERROR_IO (the file cannot be opened, or is not a regular file: "x: not
 * a regular file", refused without waiting on a FIFO), and those of the
 * loader used. */
CNA_API cna_result cna_model_load_any(const char *path, const cna_import_options *opts, cna_model **out,
                              cna_error *err);

/* ------------------------------------------------------------------ key reduction
 * Fewer keys in a model's skeletal clips before it is baked, measured in
 * model space over the whole skeleton (not channel by channel): a key is
 * dropped only when playing the clip without it moves no joint of the skin,
 * nor any point at `distance` from a joint along one of its three axes, by
 * more than `tolerance` (model units) from where the unreduced clip puts it.
 * The distance catches rotations and scales that move no joint themselves
 * (a leaf joint's rotation still turns the vertices it skins), as
 * ozz-animation's optimiser does with its default 1 mm at 10 cm.
 *
 * Usage — bake RobotExpressive with keys reduced at 1 mm:
 *   cna_key_reduction_options ro = {0};
 *   ro.tolerance = 0.001;
 *   cna_key_reduction *reduced;
 *   if (cna_model_reduce_keys(model, &ro, &reduced, &err) == CNA_OK) {
 *       printf("keys: %zu -> %zu\n", reduced->keys_before, reduced->keys_after);
 *       cna_cnb_write_file(&reduced->model, NULL, "robot.cnb", &err);
 *       cna_key_reduction_free(reduced);   // before the model it borrows from
 *   }
 */

/* The measuring distance used when cna_key_reduction_options.distance is 0:
 * 0.1 model units (10 cm in glTF's metres; ozz-animation's default). */
#define CNA_KEY_REDUCTION_DEFAULT_DISTANCE 0.1
/* The most joint samples (sample times x joints) one clip may need: the
 * unreduced poses kept while a clip is reduced take 128 bytes each (512 MiB
 * at this bound). */
#define CNA_KEY_REDUCTION_MAX_SAMPLES ((size_t)1 << 22)

/* Key reduction options; a zero-initialised struct (or NULL) means every default. */
typedef struct cna_key_reduction_options {
    cna_allocator allocator;  /* for the result and scratch; default malloc/free */
    /* The largest displacement allowed, in model units (the input model's,
     * before any cnb unit scale). 0 (default): only keys whose removal changes
     * no sampled local transform at all (a constant run, a straight ramp). */
    double tolerance;
    /* How far from each joint, along its axes, the error is also measured, in
     * model units; 0 (default): CNA_KEY_REDUCTION_DEFAULT_DISTANCE. */
    double distance;
} cna_key_reduction_options;

/* The result: a model view with the reduced clips, and what was done. */
typedef struct cna_key_reduction {
    /* The input model's fields, except `skins`: a copy of its skins whose
     * data.clips are the reduced clips (model skins that shared one clip set
     * share one reduced set). Every reduced clip's tracks and keys are owned
     * by the result; the clip names and everything else (bones, meshes,
     * skeleton arrays, scene-node clips, which are not reduced) are the input
     * model's, so the input must outlive the result. Read it, write it
     * (cna_cnb_write_file), never free it with cna_model_free. */
    cna_model model;
    size_t keys_before;  /* keys of the skins' clips, each shared clip set once */
    size_t keys_after;   /* the same after reduction */
    /* The largest displacement measured between the reduced and the unreduced
     * clips, over every clip, joint, sample time (every key time and the
     * midpoint between consecutive key times) and skin prefix: <= tolerance. */
    double max_error;
    double tolerance;    /* as used */
    double distance;     /* as used (the default resolved) */
} cna_key_reduction;

/* Reduce the keys of every clip of every skin of `model` (read only; it is
 * not modified). Per track, the first and last keys are always kept; tracks
 * of two keys or fewer, tracks whose times decrease and tracks a later track
 * of the same joint overrides are kept whole. A greedy pass drops, track by
 * track, the keys between two kept keys when playing straight from one to
 * the other keeps that joint and its descendants within the tolerance; then
 * the whole reduced clip is checked against the unreduced one at every key
 * time and every midpoint between consecutive key times, as the player poses
 * it (bind pose for untracked joints, root prefixes composed in). While the
 * error is above the tolerance the pass is redone with half the working
 * tolerance; if it never fits (at most 16 halvings), or at tolerance 0 when
 * a dropped key would change anything, the clip keeps all its keys. So the
 * reduced clips always satisfy max_error <= tolerance, and at tolerance 0
 * they pose exactly as the input at every key time.
 * On success *out is a new result (free it with cna_key_reduction_free).
 * Errors (*out unchanged, nothing leaks): CNA_ERROR_INVALID_ARGUMENT for
 * NULL model or out, a tolerance or distance that is negative, NaN or
 * infinite ("key reduction: tolerance -1 is not a finite number >= 0"), or a
 * skin whose SkinningData cna_skinning_data_validate refuses (its message,
 * prefixed "key reduction: skins[0]: "); CNA_ERROR_LIMIT for a clip needing
 * more than CNA_KEY_REDUCTION_MAX_SAMPLES joint samples (naming the clip);
 * CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_model_reduce_keys(const cna_model *model, const cna_key_reduction_options *opts,
                                         cna_key_reduction **out, cna_error *err);

/* Free a key reduction result (its clips, tracks and keys); NULL is accepted.
 * The input model is not touched. */
CNA_API void cna_key_reduction_free(cna_key_reduction *reduced);

#ifdef __cplusplus
}
#endif
#endif /* CNA_IMPORT_H */
