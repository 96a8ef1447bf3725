/*
 * Private helpers of the anim layer, shared by the validator and the player.
 * Not installed.
 */
#ifndef CNA_ANIM_INTERNAL_H
#define CNA_ANIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/anim.h"
#include "cna/result.h"

/* The checks the player runs before every recompute (spec: Recompute's size
 * check and the parent-order rule), in this order:
 *   hierarchy, bind_pose, inverse_bind_pose: count == bone_count, then non-NULL
 *     when bone_count > 0;
 *   each parent < own index (a negative parent is a root);
 *   root_prefix non-NULL when root_prefix_count == bone_count > 0 (the prefix
 *     is read only then).
 * bone_count must already be known to be in 0..CNA_MAX_BONE_COUNT.
 * Messages, e.g. "hierarchy_count: 1 differs from bone_count 2",
 * "hierarchy[1]: parent 1 is not below own index 1". Reads only. */
cna_result cna__skeleton_check(const cna_skinning_data *data, cna_error *err);

/* The message for a bone count outside 0..CNA_MAX_BONE_COUNT, or CNA_OK. */
cna_result cna__bone_count_check(int32_t bone_count, cna_error *err);

/* true when the track's keys are in non-decreasing time order, the order in
 * which cna_track_sample() is bit-identical to cna_track_sample_linear(). */
bool cna__track_is_sorted(const cna_bone_track *track);

/* The key(s) cna_track_sample() reads at time t, found through *cursor
 * exactly as it does (the cursor is updated the same way), for a track with
 * at least one key: returns c; with *interpolate false the sample is
 * keys[c] held, else keys[c].ticks < t < keys[c+1].ticks and the sample
 * interpolates between keys c and c + 1. */
size_t cna__track_locate(const cna_bone_track *track, int64_t t, size_t *cursor,
                         bool *interpolate);

/* The part of cna_quat_slerp(a, b, t) that depends only on a and b, so that
 * a player can keep it while its cursor stays in one key interval:
 *   d = a·b; sign = -1 and d = -d when d < 0; linear = d > 1 - 1e-6;
 *   otherwise theta = acos(d), inv_sin = 1 / sin(theta). */
typedef struct cna__arc {
    float theta, inv_sin, sign;
    bool linear;
} cna__arc;
void cna__arc_make(const cna_quat *a, const cna_quat *b, cna__arc *arc);
/* cna_quat_slerp(a, b, t), bit for bit, given arc = cna__arc_make(a, b). */
void cna__arc_slerp(const cna_quat *a, const cna_quat *b, const cna__arc *arc, float t,
                    cna_quat *out);

/* For the crowd (src/anim/crowd.c): cna_player_update split in its check
 * (nothing changes; the same errors) and its effect (no checks), and a mark
 * used to find a player listed twice (returns the mark before). */
struct cna_player;
cna_result cna__player_check(const struct cna_player *player, cna_error *err);
void cna__player_advance(struct cna_player *player, int64_t ticks, bool relative, bool loop);
bool cna__player_set_mark(struct cna_player *player, bool mark);

#endif
