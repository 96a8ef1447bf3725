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

#include "cna/export.h"
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

/* Seconds to ticks: the tick nearest to the exact value of seconds · 10^7
 * (the double `seconds` times ten million, computed without intermediate
 * rounding), halves away from zero: 1.0/60 -> 166667, 1.0/256 -> 39063
 * (39062.5 exactly), 1.5e-7 -> 1 (that double is just below 1.5e-7).
 * NaN maps to 0; values beyond the int64_t range saturate to INT64_MIN/MAX. */
CNA_API int64_t cna_ticks_from_seconds(double seconds);
/* Ticks to seconds. */
CNA_API double cna_ticks_to_seconds(int64_t ticks);

/* One key of a bone track: a local transform at a time. */
typedef struct cna_keyframe {
    int64_t ticks;         /* time of the key, in ticks from the clip's start */
    cna_vec3 translation;  /* local translation */
    cna_quat rotation;     /* local rotation; cna_keyframe_make sets identity */
    cna_vec3 scale;        /* local scale; cna_keyframe_make sets (1, 1, 1) */
} cna_keyframe;

/* A key with the given translation, identity rotation and unit scale
 * (the spec's Keyframe{time, translation}). */
CNA_API cna_keyframe cna_keyframe_make(int64_t ticks, cna_vec3 translation);
/* A key with every component given. */
CNA_API cna_keyframe cna_keyframe_make_trs(int64_t ticks, cna_vec3 translation, cna_quat rotation,
                                   cna_vec3 scale);

/* The keys of one bone (spec: BoneTrackEXT). Keys are in ascending time. */
typedef struct cna_bone_track {
    int32_t bone;              /* palette index (joint-palette clip) or scene-node index
                                  (scene-node clip); see cna_clip.target */
    const cna_keyframe *keys;  /* borrowed; key_count entries */
    size_t key_count;
} cna_bone_track;

CNA_API cna_bone_track cna_bone_track_make(int32_t bone, const cna_keyframe *keys, size_t key_count);

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

CNA_API cna_clip cna_clip_make(const char *name, int64_t duration, const cna_bone_track *tracks,
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

/* A description with the three skeleton arrays set, each count = bone_count
 * (0 when bone_count is negative), no prefix, no clips, skeleton_root_node = -1. */
CNA_API cna_skinning_data cna_skinning_data_make(int32_t bone_count, const int32_t *hierarchy,
                                         const cna_mat4 *bind_pose,
                                         const cna_mat4 *inverse_bind_pose);

/* The first clip whose name equals `name`, or NULL (also for NULL data or name). */
CNA_API const cna_clip *cna_skinning_data_find_clip(const cna_skinning_data *data, const char *name);

/* Checks every rule a SkinningData and its clips must follow and reports the
 * first broken one by name. Rules, in order, with their messages (N = bone_count):
 *   data non-NULL                       "skinning data: NULL"
 *   bone_count in 0..CNA_MAX_BONE_COUNT "bone_count: -1 is outside 0..100000"
 *   for hierarchy, bind_pose, inverse_bind_pose in turn:
 *     count == N                        "bind_pose_count: 1 differs from bone_count 2"
 *     array non-NULL when N > 0         "bind_pose: NULL with bind_pose_count 2"
 *   each parent < own index             "hierarchy[3]: parent 5 is not below own index 3"
 *   root_prefix non-NULL when its count is N > 0
 *                                       "root_prefix: NULL with root_prefix_count 2"
 *   root_prefix_count is 0 or N         "root_prefix_count: 1 is neither 0 nor bone_count 2"
 *   every matrix element finite, bind_pose, inverse_bind_pose, then root_prefix
 *                                       "inverse_bind_pose[1].m[12]: NaN is not finite"
 *   clips non-NULL when clip_count > 0  "clips: NULL with clip_count 2"
 *   per clip (labelled clips[i] "name", or clips[i] when it has no name):
 *     duration >= 0                     "clips[0] \"Move\": duration -1 is negative"
 *     a joint-palette clip              "clips[0] \"Move\": target scene-node is not a
 *                                        joint-palette clip" (an unknown value:
 *                                        "clips[0] \"Move\": target 7 is not a cna_clip_target")
 *     tracks non-NULL when track_count > 0
 *                                       "clips[0] \"Move\": tracks NULL with track_count 2"
 *     per track: bone >= 0              "clips[0] \"Move\".tracks[1]: bone -1 is negative"
 *                bone < N               "clips[0] \"Move\".tracks[1]: bone 5 is not below bone_count 2"
 *                keys non-NULL when key_count > 0
 *                                       "clips[0] \"Move\".tracks[1]: keys NULL with key_count 3"
 *     per key:   time >= 0              "clips[0] \"Move\".tracks[1].keys[0]: time -1 is negative"
 *                times non-decreasing   "clips[0] \"Move\".tracks[1].keys[2]: times must not
 *                                        decrease (7000000 then 5000000)"
 *                translation, rotation, scale finite, component by component
 *                                       "clips[0] \"Move\".tracks[1].keys[2].rotation.w: inf is not finite"
 * (Messages are single lines; the wrapping above is only for this comment.)
 * Returns CNA_OK or CNA_ERROR_INVALID_ARGUMENT; reads only. The player itself
 * is more lenient, exactly as the spec says: it ignores tracks without keys or
 * with a bone out of range, samples keys in any order, and reads a prefix
 * whose count is not N as identity. */
CNA_API cna_result cna_skinning_data_validate(const cna_skinning_data *data, cna_error *err);

/* Sample one track at time t (ticks) with a plain linear search for the
 * bracketing keys (the spec's reference):
 *   key_count == 1 or t <= keys[0].ticks:  keys[0] (hold the first key);
 *   t >= keys[n-1].ticks:                  keys[n-1] (hold the last key);
 *   else the first k with t < keys[k+1].ticks; at t <= keys[k].ticks (an exact
 *   key time) keys[k] exactly, otherwise lerp translation and scale and slerp
 *   rotation (cna_quat_slerp) with
 *     amount = (float)((double)(t - keys[k].ticks) / (double)(keys[k+1].ticks - keys[k].ticks)),
 *   both differences computed exactly in unsigned 64-bit arithmetic (they are
 *   positive; no overflow for any key times).
 * Writes the sampled local transform as a key (ticks = t). A track without keys
 * (key_count 0 or keys NULL) samples as the identity transform. A NULL
 * track or out does nothing. */
CNA_API void cna_track_sample_linear(const cna_bone_track *track, int64_t t, cna_keyframe *out);

/* The same result, bit for bit, when the keys are in non-decreasing time
 * order (the cna_bone_track rule): the same bracketing key, then the same
 * arithmetic. *cursor is a key index remembered between calls (start it at 0;
 * any value is accepted): the cursor's interval and the next one are tried
 * first, so forward playback costs O(1) per call; other times fall back to a
 * binary search, O(log key_count). With keys out of order the result is an
 * interpolation between two adjacent keys, never an out-of-bounds read, but
 * may differ from the linear search (the player detects such tracks when a
 * clip starts and samples them with cna_track_sample_linear). A NULL cursor
 * samples without one (as from 0, nothing remembered); a NULL track or out
 * does nothing (*cursor unchanged). */
CNA_API void cna_track_sample(const cna_bone_track *track, int64_t t, size_t *cursor, cna_keyframe *out);

#ifdef __cplusplus
}
#endif
#endif /* CNA_ANIM_H */
