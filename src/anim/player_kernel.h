/*
 * The player's kernels (src/anim/player.c; not installed): sampling the
 * clip's tracks, composing T · R · S, the world and skin products, the
 * slerp constants eight at a time. Written once on the SIMD vocabulary
 * (core/vec.h) in player_kernel.inc and compiled once per player path:
 * player_kernel_base.c (CNA__PLAYER_PATH_BASE: SSE2, or scalar with
 * CNA_NO_SIMD) and player_kernel_avx2.c (CNA__PLAYER_PATH_AVX: AVX2 + FMA
 * code, run only on a CPU with both). No kernel uses a multiply-add and
 * every lane runs the reference's operations in its order, so every path
 * gives the bits of cna_track_sample, cna_mat4_compose and cna_mat4_mul
 * (tests/anim/test_player_paths.c). The AVX2 instance calls no cglm
 * function (cglm fuses multiply-adds when compiled for FMA).
 */
#ifndef CNA_ANIM_PLAYER_KERNEL_H
#define CNA_ANIM_PLAYER_KERNEL_H

#include "anim/anim_internal.h"

/* A cursor value meaning "this track's keys are out of time order: sample it
 * with the linear reference search", so that the player's results always
 * equal the spec's linear search bit for bit. */
#define CNA__CURSOR_LINEAR SIZE_MAX
/* arc_key when no arc is cached. */
#define CNA__ARC_NONE SIZE_MAX

/* One update's sampling of a clip into local transforms: every usable
 * track (keys, bone in 0..bone_count-1) of the first `states` (with state
 * in tracks[]) and of the rest (cna_track_sample_linear) writes
 * local[bone] = T · R · S and posed[bone] = 1, in track order. */
typedef struct cna__pose_job {
    const cna_clip *clip;
    int64_t t;
    int32_t bone_count;
    size_t states;
    bool fast;
    cna__track_state *tracks;
    cna__arcs_window *arcs;
    uint8_t *posed;
    cna_mat4 *local;
} cna__pose_job;

/* The hierarchy pass (player.c's "After sampling"). prefix: NULL for none. */
typedef struct cna__hierarchy_job {
    int32_t bone_count;
    const int32_t *hierarchy;
    const cna_mat4 *bind_pose, *inverse_bind, *prefix;
    const uint8_t *posed;
    cna_mat4 *local, *world, *skin;
} cna__hierarchy_job;

/* Characters in SIMD lanes (player_lanes.inc): `lanes` (2..8) players of
 * one skeleton and one clip posed at once, lane k by pose[k] and tree[k].
 * Every job has the same clip, bone_count (1..CNA__LANES_MAX_BONES), states
 * and fast, and the same hierarchy, bind_pose, inverse_bind and prefix; each
 * has its own t, track states, window, flags and matrices. The results are
 * those of sample_clip(pose[k]) then hierarchy(tree[k]) for each k, bit for
 * bit. Larger skeletons are posed one at a time: in lanes, eight players'
 * matrices are written at once, and on a 150-joint rig that measured 5-10 %
 * slower than one player after another. */
#define CNA__LANES_MAX_BONES 64
typedef struct cna__lanes_job {
    size_t lanes;
    const cna__pose_job *pose[8];
    const cna__hierarchy_job *tree[8];
} cna__lanes_job;

/* One path's kernels (the arguments of cna__sample_trs, cna__compose_keys,
 * cna__arc_trig8 and cna__arc_weights8_path, less the path). */
typedef struct cna__player_kernels {
    void (*sample_clip)(const cna__pose_job *job);
    void (*sample_trs)(bool fast, const cna_clip *clip, int64_t t, int32_t bone_count,
                       cna__track_state *states, size_t state_count, cna__arcs_window *win,
                       cna_keyframe *out, uint8_t *posed);
    void (*compose_keys)(cna_mat4 *const *out, const cna_keyframe *const *in, size_t count);
    void (*hierarchy)(const cna__hierarchy_job *job);
    void (*arc_trig8)(const float d[8], cna__arc *const out[8], size_t count);
    void (*arc_weights8)(const cna__arc *const arc[8], const float t[8], float wa[8], float wb[8],
                         bool weighed[8], size_t count);
    void (*pose_lanes)(const cna__lanes_job *job);
} cna__player_kernels;

extern const cna__player_kernels cna__player_kernels_base;
extern const cna__player_kernels cna__player_kernels_avx2;

#endif /* CNA_ANIM_PLAYER_KERNEL_H */
