/*
 * cna/player.h — the AnimationPlayer: plays one clip of a SkinningData into
 * local, world and skin transforms (spec: "AnimationPlayer, precisely").
 *
 * The player borrows its cna_skinning_data (and the clip it plays): both must
 * outlive the player. It owns only its playback position, its three matrix
 * arrays, one flag per bone and its per-track sampling state (key cursor and
 * the current interval's slerp constants); several players may share one
 * cna_skinning_data and run on different threads.
 *
 * Usage (one character, every frame):
 *   cna_player *player;
 *   if (cna_player_create(&data, NULL, &player, &err)) ...;   // bind pose computed at once
 *   const cna_clip *move = cna_skinning_data_find_clip(&data, "Move");   // NULL: no clip of that name
 *   if (!move || cna_player_start_clip(player, move, &err)) ...;         // NULL is refused
 *   cna_player_update_seconds(player, 1.0 / 60.0, true, true, &err);
 *   draw with the palette cna_player_skin_transforms(player) (cna_player_bone_count(player) matrices)
 *   cna_player_free(player);
 *
 * Errors: where the spec throws, a call returns an error and leaves the
 * player unchanged (position, clip and the three arrays).
 */
#ifndef CNA_PLAYER_H
#define CNA_PLAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/alloc.h"
#include "cna/anim.h"
#include "cna/export.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cna_player cna_player;

/* Create a player for `data` and compute its bind pose (every bone at its bind
 * pose, composed with prefixes, skin = world · inverse bind), so a fresh player
 * returns a drawable palette.
 * Errors (checked before any allocation): CNA_ERROR_INVALID_ARGUMENT when data
 * or out is NULL, bone_count is negative or above CNA_MAX_BONE_COUNT
 * ("bone_count: -1 is outside 0..100000"), a skeleton array's count differs
 * from bone_count ("hierarchy_count: 1 differs from bone_count 2") or the
 * array is NULL with a positive count, a parent index is >= its own index
 * ("hierarchy[1]: parent 1 is not below own index 1"), or root_prefix is NULL
 * while root_prefix_count == bone_count > 0; CNA_ERROR_OUT_OF_MEMORY. On error
 * *out is left unchanged and nothing is allocated.
 * `allocator` may be NULL (malloc/free); it is copied. The player allocates
 * 3 · bone_count matrices and bone_count flags here and one sampling state
 * per track in start_clip, never in update. */
CNA_API cna_result cna_player_create(const cna_skinning_data *data, const cna_allocator *allocator,
                             cna_player **out, cna_error *err);

/* Free a player; NULL is accepted. */
CNA_API void cna_player_free(cna_player *player);

/* Start `clip` (borrowed; must outlive its use) and rewind to zero (spec:
 * StartClip). Transforms are not recomputed until the next update. Resets the
 * per-track key cursors; grows the cursor array when the clip has more tracks
 * than any clip before it (the only allocation after creation).
 * A NULL clip is refused, so that a name cna_skinning_data_find_clip did not
 * find never plays the bind pose silently; cna_player_stop shows the bind pose.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for a NULL player, a
 * NULL clip ("cna_player_start_clip: clip is NULL (cna_skinning_data_find_clip
 * returns NULL for a name no clip has); to show the bind pose, call
 * cna_player_stop"), a clip whose target is not the joint palette (DEFAULT or
 * JOINT_PALETTE), or tracks NULL with track_count > 0;
 * CNA_ERROR_OUT_OF_MEMORY when growing the cursor array fails. */
CNA_API cna_result cna_player_start_clip(cna_player *player, const cna_clip *clip, cna_error *err);

/* Stop playback: no clip (cna_player_current_clip returns NULL), the position
 * held at zero, and updates show the bind pose. Allocates nothing.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for a NULL player. */
CNA_API cna_result cna_player_stop(cna_player *player, cna_error *err);

/* Advance (relative = true: position += ticks) or seek (relative = false:
 * position = ticks), then recompute (spec: Update). With a clip of positive
 * duration D: loop reduces the position to floor-mod(position, D), in [0, D);
 * without loop it clamps to [0, D]. Both are exact for any int64_t values
 * (the sum is never formed where it could overflow). No clip, or D <= 0:
 * position held at 0.
 * Recompute: every bone starts at its bind pose; each track with keys and a
 * bone index in range is sampled at the position (others are silently
 * ignored; a later track for the same bone wins) and replaces its bone's
 * local transform with T · R · S (cna_mat4_compose); then in index order
 *   world[p] = world[parent] · local[p]                    (parent >= 0)
 *   world[p] = prefix[p] · local[p] or local[p]             (parent < 0: root)
 *   skin[p]  = world[p] · inverse_bind_pose[p]
 * where the prefix is used only when root_prefix_count == bone_count.
 * Sampling equals cna_track_sample_linear bit for bit, at O(1) per track for
 * forward playback, also where the host set flush-to-zero or
 * denormals-are-zero. No allocation. The results are the same bits on every
 * x86-64 CPU, Intel and AMD alike, in the default floating-point
 * environment (round to nearest, no flush-to-zero or denormals-are-zero):
 * the AVX2 kernels the player picks at creation where the CPU has AVX2 and
 * FMA run the same IEEE operations in the same order as the SSE2 ones (no
 * multiply-add, no estimate instructions), and the trigonometry is cna's
 * own (docs/exactness.md). The player keeps each track's slerp constants
 * for the key interval it is in, so the keys of a playing clip must not be
 * edited (start the clip again after editing them).
 * Errors (checked first; nothing changes — position, clip and outputs):
 * CNA_ERROR_INVALID_ARGUMENT for a NULL player, when the SkinningData's
 * bone_count is no longer the one the player was created with, or any of
 * cna_player_create's array rules fails. */
CNA_API cna_result cna_player_update(cna_player *player, int64_t ticks, bool relative, bool loop,
                             cna_error *err);

/* cna_player_update with a time in seconds (cna_ticks_from_seconds). */
CNA_API cna_result cna_player_update_seconds(cna_player *player, double seconds, bool relative,
                                     bool loop, cna_error *err);

/* How key rotations are interpolated. */
typedef enum cna_sampling {
    CNA_SAMPLING_DEFAULT = 0,  /* same as CNA_SAMPLING_EXACT */
    /* The specification's shortest-arc slerp, bit for bit the reference
     * sampler (cna_track_sample); the default. */
    CNA_SAMPLING_EXACT,
    /* Normalised linear interpolation between the two keys (shortest arc)
     * where their rotations differ by a small arc (|qa·qb| >= 0.98, about
     * 23 degrees or less), the exact slerp otherwise: no trigonometry for
     * most intervals, so an update takes 0.66-0.82x the time of EXACT
     * (CesiumMan, 19 joints: 0.66-0.68x, 4.8k instructions against 6.0k;
     * RobotExpressive's walk: 0.81-0.82x; docs/benchmarks.md). Translation and
     * scale are the same as EXACT, and so is every rotation on a key or
     * between keys further apart; only rotations between close keys
     * differ, by little:
     * over every clip of the bundled corpus and test fixtures, sampled at
     * 60 Hz, every bone's model-space position stays within 2e-4 of the
     * model size of the exact mode's (measured: 1.5e-4, on
     * RobotExpressive; tests/anim/test_fast_sampling.c). The same bits on
     * every x86-64 CPU, where EXACT's are (cna_player_update). */
    CNA_SAMPLING_FAST,
    CNA_SAMPLING_COUNT
} cna_sampling;

/* Choose how the player interpolates key rotations from the next update on.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for NULL or a value out of range. */
CNA_API cna_result cna_player_set_sampling(cna_player *player, cna_sampling sampling, cna_error *err);

/* The player's sampling (EXACT for NULL). */
CNA_API cna_sampling cna_player_sampling(const cna_player *player);

/* Compose the roots with `prefix` (bone_count matrices, borrowed: it must
 * stay valid while updates use it) instead of the SkinningData's
 * root_prefix: world[root] = prefix[root] · local[root]. Entries of bones
 * that are not roots are not read. NULL goes back to the data's prefix.
 * Nothing is recomputed until the next update. This is how a caller hands
 * the player a prefix re-evaluated from a posed scene (an animated
 * ancestor of the root joint); cna_character does it itself.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for a NULL player or
 * a count that is not the player's bone count ("root prefix: 3 matrices
 * for a player of 2 bones"). */
CNA_API cna_result cna_player_set_root_prefix(cna_player *player, const cna_mat4 *prefix, size_t count,
                                      cna_error *err);

/* The root prefixes updates compose with (the ones set, else the data's
 * when root_prefix_count == bone_count), or NULL when none. */
CNA_API const cna_mat4 *cna_player_root_prefix(const cna_player *player);

/* Current position in ticks, and the clip (NULL when none). For a NULL
 * player: 0, NULL, NULL and 0; the three outputs below are NULL too. */
CNA_API int64_t cna_player_position(const cna_player *player);
CNA_API const cna_clip *cna_player_current_clip(const cna_player *player);
CNA_API const cna_skinning_data *cna_player_skinning_data(const cna_player *player);
CNA_API int32_t cna_player_bone_count(const cna_player *player);

/* The same read as values, for code that cannot read a cna_clip (language
 * bindings): the position in seconds (cna_ticks_to_seconds of
 * cna_player_position; 0 for a NULL player); the current clip's duration in
 * ticks (0 without a clip or for a NULL player); its name (NULL without a
 * clip, for a NULL player or a clip without a name; borrowed from the
 * clip). */
CNA_API double cna_player_time(const cna_player *player);
CNA_API int64_t cna_player_duration(const cna_player *player);
CNA_API const char *cna_player_clip_name(const cna_player *player);

/* The three outputs, bone_count matrices each, valid until the next update or
 * free (spec: GetBoneTransforms, GetWorldTransforms, GetSkinTransforms). */
CNA_API const cna_mat4 *cna_player_bone_transforms(const cna_player *player);
CNA_API const cna_mat4 *cna_player_world_transforms(const cna_player *player);
CNA_API const cna_mat4 *cna_player_skin_transforms(const cna_player *player);

#ifdef __cplusplus
}
#endif
#endif /* CNA_PLAYER_H */
