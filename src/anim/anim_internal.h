/*
 * Private helpers of the anim layer, shared by the validator and the player.
 * Not installed.
 */
#ifndef CNA_ANIM_INTERNAL_H
#define CNA_ANIM_INTERNAL_H

#include <stdbool.h>
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

#endif
