/*
 * cna/anim.h — keyframes, bone tracks, animation clips and SkinningData.
 *
 * These are plain description structs (sokol-style): they borrow every array
 * through a pointer + count and own nothing. Hand-built data lives wherever the
 * caller puts it (stack, static, heap); imported data is owned by the model
 * that produced it. Whatever reads them (a cna_player, a validator) only
 * reads; the arrays must outlive every object that borrows them.
 *
 * Time is measured in ticks of 100 ns (the spec's System::TimeSpan), as
 * int64_t, so that looping is an exact floor-modulo on integers. Seconds
 * (double) appear only at the API edges; see cna_ticks_from_seconds().
 *
 * Usage — the spec's two-bone example ("A worked two-bone example"):
 *   int32_t hierarchy[2] = {-1, 0};                 // bone 0 is a root, bone 1's parent is 0
 *   cna_mat4 bind[2], inverse_bind[2];
 *   cna_mat4_identity(&bind[0]);
 *   cna_mat4_translation(&bind[1], cna_vec3_make(0, 1, 0));
 *   cna_mat4_identity(&inverse_bind[0]);
 *   cna_mat4_identity(&inverse_bind[1]);
 *   cna_keyframe keys[2] = {
 *       cna_keyframe_make(cna_ticks_from_seconds(0.0), cna_vec3_make(0, 0, 0)),
 *       cna_keyframe_make(cna_ticks_from_seconds(1.0), cna_vec3_make(2, 0, 0))};
 *   cna_bone_track track = cna_bone_track_make(0, keys, 2);
 *   cna_clip clip = cna_clip_make("Move", cna_ticks_from_seconds(1.0), &track, 1);
 *   cna_skinning_data data = cna_skinning_data_make(2, hierarchy, bind, inverse_bind);
 *   data.clips = &clip;
 *   data.clip_count = 1;
 *
 * Index spaces (docs/conventions.md): a joint-palette clip's tracks, and every
 * SkinningData array, are indexed by palette index; a scene-node clip's tracks
 * by scene-node (= Model bone) index.
 */
#ifndef CNA_ANIM_H
#define CNA_ANIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/math.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Ticks per second: one tick is 100 ns, as .NET's TimeSpan. */
#define CNA_TICKS_PER_SECOND 10000000LL

/* The most bones a SkinningData may declare; a larger count is refused before
 * any allocation (the .cnj reader's bound). */
#define CNA_MAX_BONE_COUNT 100000

/* Seconds to ticks, rounded to the nearest tick (halves away from zero).
 * NaN maps to 0; values beyond the int64_t range saturate to INT64_MIN/MAX. */
int64_t cna_ticks_from_seconds(double seconds);
/* Ticks to seconds. */
double cna_ticks_to_seconds(int64_t ticks);

/* One key of a bone track: a local transform at a time. */
typedef struct cna_keyframe {
    int64_t ticks;         /* time of the key, in ticks from the clip's start */
    cna_vec3 translation;  /* local translation */
    cna_quat rotation;     /* local rotation; cna_keyframe_make sets identity */
    cna_vec3 scale;        /* local scale; cna_keyframe_make sets (1, 1, 1) */
} cna_keyframe;

/* A key with the given translation, identity rotation and unit scale
 * (the spec's Keyframe{time, translation}). */
cna_keyframe cna_keyframe_make(int64_t ticks, cna_vec3 translation);
/* A key with every component given. */
cna_keyframe cna_keyframe_make_trs(int64_t ticks, cna_vec3 translation, cna_quat rotation,
                                   cna_vec3 scale);

/* The keys of one bone (spec: BoneTrackEXT). Keys are in ascending time. */
typedef struct cna_bone_track {
    int32_t bone;              /* palette index (joint-palette clip) or scene-node index
                                  (scene-node clip); see cna_clip.target */
    const cna_keyframe *keys;  /* borrowed; key_count entries */
    size_t key_count;
} cna_bone_track;

cna_bone_track cna_bone_track_make(int32_t bone, const cna_keyframe *keys, size_t key_count);

/* Which index space a clip's track indices are in (spec: ClipTargetSpaceEXT). */
typedef enum cna_clip_target {
    CNA_CLIP_TARGET_DEFAULT = 0,    /* same as CNA_CLIP_TARGET_JOINT_PALETTE */
    CNA_CLIP_TARGET_JOINT_PALETTE,  /* tracks index SkinningData arrays (palette indices) */
    CNA_CLIP_TARGET_SCENE_NODE,     /* tracks index the Model's bones (scene-node indices) */
    CNA_CLIP_TARGET_COUNT
} cna_clip_target;

/* An animation clip (spec: AnimationClip). */
typedef struct cna_clip {
    const char *name;              /* borrowed, NUL-terminated; may be NULL */
    int64_t duration;              /* ticks; the largest key time for imported clips */
    const cna_bone_track *tracks;  /* borrowed; track_count entries */
    size_t track_count;
    cna_clip_target target;        /* default: joint palette */
} cna_clip;

cna_clip cna_clip_make(const char *name, int64_t duration, const cna_bone_track *tracks,
                       size_t track_count);

/* A skeleton and its clips (spec: SkinningData). Every array is indexed by
 * palette index. In our convention:
 *   world[p] = world[hierarchy[p]] · local[p]        (spec: local * world[parent])
 *   world[root] = root_prefix[root] · local[root]    (spec: L_root * P_root), only when
 *                                                     root_prefix_count == bone_count
 *   skin[p] = world[p] · inverse_bind_pose[p]        (spec: InverseBindPose[p] * world[p]) */
typedef struct cna_skinning_data {
    int32_t bone_count;                  /* BoneCount; 0 .. CNA_MAX_BONE_COUNT */
    const int32_t *hierarchy;            /* parent palette index per bone; negative = root */
    size_t hierarchy_count;              /* must equal bone_count for a player to run */
    const cna_mat4 *bind_pose;           /* bone-local bind pose */
    size_t bind_pose_count;              /* must equal bone_count */
    const cna_mat4 *inverse_bind_pose;   /* inverse of each bone's bind-pose world transform */
    size_t inverse_bind_pose_count;      /* must equal bone_count */
    const cna_mat4 *root_prefix;         /* SkeletonRootPrefix; used only when the count */
    size_t root_prefix_count;            /*   equals bone_count, else read as identity */
    const cna_clip *clips;               /* AnimationClips; looked up by name */
    size_t clip_count;
    int32_t skeleton_root_node;          /* glTF skin.skeleton node, -1 if none; never
                                            affects any transform */
    const char *skeleton_root_name;      /* its name, or NULL; never affects any transform */
} cna_skinning_data;

/* A description with the four skeleton arrays set, each count = bone_count, no
 * prefix, no clips, skeleton_root_node = -1. */
cna_skinning_data cna_skinning_data_make(int32_t bone_count, const int32_t *hierarchy,
                                         const cna_mat4 *bind_pose,
                                         const cna_mat4 *inverse_bind_pose);

/* The first clip whose name equals `name`, or NULL. */
const cna_clip *cna_skinning_data_find_clip(const cna_skinning_data *data, const char *name);

/* Checks every rule a SkinningData and its clips must follow and reports the
 * first broken one by name, e.g. "hierarchy[3]: parent 5 is not below own index 3".
 * Rules, in order: bone_count in 0..CNA_MAX_BONE_COUNT; hierarchy, bind_pose and
 * inverse_bind_pose non-NULL (when bone_count > 0) with exactly bone_count
 * entries; each parent < own index; root_prefix_count is 0 or bone_count;
 * every matrix finite; per clip: duration >= 0, target is a palette clip,
 * every track's bone in range, keys non-NULL when key_count > 0, key times
 * non-negative and non-decreasing, key values finite.
 * Returns CNA_OK or CNA_ERROR_INVALID_ARGUMENT. The player itself is more
 * lenient, exactly as the spec says (it ignores bad tracks). */
cna_result cna_skinning_data_validate(const cna_skinning_data *data, cna_error *err);

/* Sample one track at time t (ticks) with a plain linear search for the
 * bracketing keys (the spec's reference): before the first key hold it, after
 * the last hold it, between keys k and k+1 (keys[k].ticks <= t < keys[k+1].ticks)
 * lerp translation and scale and slerp rotation with
 *   amount = (float)((double)(t - keys[k].ticks) / (double)(keys[k+1].ticks - keys[k].ticks)).
 * Writes the sampled local transform as a key (ticks = t). key_count must be > 0. */
void cna_track_sample_linear(const cna_bone_track *track, int64_t t, cna_keyframe *out);

/* Same result, bit for bit, using *cursor (a key index remembered between calls,
 * start it at 0) so that forward playback costs O(1) per call; seeks fall back
 * to a binary search. */
void cna_track_sample(const cna_bone_track *track, int64_t t, size_t *cursor, cna_keyframe *out);

#ifdef __cplusplus
}
#endif
#endif /* CNA_ANIM_H */
