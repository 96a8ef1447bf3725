/*
 * cna/animator.h — play one of a model's animations as a whole: every skin's
 * joint clip (one cna_player per skin), the scene-node clip and the morph
 * weight tracks, all posed at one time.
 *
 * A glTF animation becomes, at import, one joint-palette clip per skin, one
 * scene-node clip and one morph weight track per morphed part, all with the
 * same index and duration (docs/model.md). Posing a model at a time t takes
 * the same six steps in every program (docs/model.md, "Posing a whole model"):
 *   1. the model's bones back to rest;
 *   2. each skin's player seeked to t;
 *   3. the scene-node clip applied to the bones at t;
 *   4. each skin's pose written into the bones;
 *   5. each morphed part's weights (its weight track at t, else the initial
 *      weights) blended and uploaded when they changed;
 *   6. every bone's absolute transform.
 * The animator does exactly these; `cna pose`, `cna render` and `cna view`
 * use it, so a program that uses it poses the model as they do.
 *
 * Usage (draw the model's "Walk" looping at 60 Hz):
 *   cna_animator *an;
 *   if (cna_animator_create(model, NULL, &an, &err)) ...;
 *   if (cna_animator_select(an, cna_animator_find(an, "Walk"), &err)) ...;
 *   double t = 0.0;
 *   every frame:
 *     t = fmod(t + 1.0 / 60.0, cna_animator_duration(an));   (duration > 0)
 *     if (cna_animator_pose(an, t, &err)) ...;
 *     mesh i: world = cna_animator_absolute_transforms(an)[model->meshes[i].parent_bone];
 *             palette of a skinned mesh = cna_animator_skin_transforms(an, model->meshes[i].skin)
 *   cna_animator_free(an);
 *
 * Ownership: the animator borrows the model (which must outlive it) and owns
 * its players, the absolute transforms and a copy of each morphed part's
 * current weights. It writes to the model: its bones' transforms and, through
 * cna_model_set_morph_weights, the morphed parts' blended vertices. One
 * animator per model at a time (two would fight over the bones).
 *
 * Errors: every function returning cna_result fills `err` (may be NULL) and,
 * for a bad argument, changes nothing.
 */
#ifndef CNA_ANIMATOR_H
#define CNA_ANIMATOR_H

#include <stddef.h>

#include "cna/alloc.h"
#include "cna/export.h"
#include "cna/math.h"
#include "cna/model.h"
#include "cna/player.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cna_animator cna_animator;

/* Create an animator for `model` at rest (no animation selected; a pose
 * then gives the rest pose with the parts' initial morph weights).
 * Errors (*out unchanged, nothing allocated): CNA_ERROR_INVALID_ARGUMENT
 * for NULL model or out; whatever cna_player_create returns for a skin
 * ("skins[1]: bone_count: ..."); CNA_ERROR_OUT_OF_MEMORY. `allocator` may
 * be NULL (malloc/free); it is copied. All memory is allocated here (the
 * players' cursor arrays may grow in select); pose allocates nothing. */
CNA_API cna_result cna_animator_create(cna_model *model, const cna_allocator *allocator,
                               cna_animator **out, cna_error *err);

/* Free an animator (not the model); NULL is accepted. */
CNA_API void cna_animator_free(cna_animator *animator);

/* `name` as a decimal index below the model's animation count ("0", "12"),
 * else the index of the first animation with that name; -1 otherwise (also
 * for NULL). The same look-up as the command line's --animation. */
CNA_API long cna_animator_find(const cna_animator *animator, const char *name);

/* Select animation `animation` (0 .. animation_count - 1), or -1 for none
 * (the rest pose): every skin's player starts that animation's clip at
 * position 0 (or stops, for -1). Nothing is posed until cna_animator_pose.
 * A player grows its cursor array the first time it meets a clip with more
 * tracks than any before (cna_player_start_clip): the only allocation after
 * create, and none once every animation has been selected once.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for a NULL animator or an index outside
 * -1 .. animation_count - 1 ("animation 7 is outside -1..2"), nothing
 * changed; CNA_ERROR_OUT_OF_MEMORY from a player (the skins before it have
 * started the clip, the selection is unchanged: select again). */
CNA_API cna_result cna_animator_select(cna_animator *animator, long animation, cna_error *err);

/* The selected animation (-1 for none; also for NULL). */
CNA_API long cna_animator_animation(const cna_animator *animator);

/* The selected animation's duration in seconds (0 for none or NULL). */
CNA_API double cna_animator_duration(const cna_animator *animator);

/* Pose the model at `seconds` of the selected animation (the six steps
 * above); the time is clamped to [0, duration] (no looping: wrap it
 * yourself). Returns the first step's error; a step fails only for a model
 * built by hand that breaks the rules (e.g. a clip whose tracks name bones
 * out of range), and the model's bones may then be partly posed.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for a NULL animator or a NaN time
 * (nothing changes); those of cna_player_update,
 * cna_model_apply_clip_to_bones, cna_model_apply_skin_pose_to_bones,
 * cna_morph_evaluate_weights and cna_model_set_morph_weights. */
CNA_API cna_result cna_animator_pose(cna_animator *animator, double seconds, cna_error *err);

/* The time of the last pose in seconds, after clamping (0 before the first). */
CNA_API double cna_animator_time(const cna_animator *animator);

/* Every bone's absolute transform at the last pose (bone order, model
 * bone_count entries; the rest pose before the first pose); what
 * cna_model_copy_absolute_bone_transforms gives. Valid until the next pose
 * or free. NULL for NULL. */
CNA_API const cna_mat4 *cna_animator_absolute_transforms(const cna_animator *animator);

/* Skin `skin`'s player (its bone, world and skin transforms at the last
 * pose; cna_player_skin_transforms is the skinning palette); NULL for NULL
 * or an index out of range. Owned by the animator. */
CNA_API cna_player *cna_animator_player(const cna_animator *animator, size_t skin);

/* Skin `skin`'s palette at the last pose (cna_player_skin_transforms of
 * its player; palette order, the skin's joint_count entries); NULL for NULL
 * or an index out of range. */
CNA_API const cna_mat4 *cna_animator_skin_transforms(const cna_animator *animator, size_t skin);

/* The morph weights of part `part` of mesh `mesh` at the last pose (the
 * initial weights before the first); *count (may be NULL) receives the
 * part's target count. NULL (and *count = 0) for a part without morph
 * targets, indices out of range or NULL. Valid until free. */
CNA_API const float *cna_animator_morph_weights(const cna_animator *animator, size_t mesh, size_t part,
                                        size_t *count);

#ifdef __cplusplus
}
#endif
#endif /* CNA_ANIMATOR_H */
