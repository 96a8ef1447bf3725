/*
 * cna/character.h — a character: one animated instance of an immutable model.
 *
 * A model (cna/model.h) is the asset: bones at rest, meshes, skins, clips,
 * materials. It is loaded once and never written afterwards. A character is
 * everything that changes per frame for one copy of it on screen: the clock
 * of the animation it plays, every bone's local and absolute transform, each
 * skin's palette and each morphed part's weights and blended vertices. Any
 * number of characters share one model; each is posed on its own, in any
 * order, on any thread (one thread per character at a time). A pose that
 * blends layers keeps its per-pose values in a buffer of the posing thread
 * (thread-local storage, shared by every character that thread poses; a
 * rig of more than 256 bones or joints uses buffers of its character
 * instead): the result never depends on the thread or on what it posed
 * before (docs/blending.md, "What it costs").
 * Thread-local memory: that buffer is the library's only per-thread state,
 * 26,880 bytes (256 slots: two keyframes, a weight, a slot index and a
 * flag each). cna never allocates it: the C runtime makes it with each
 * thread and releases it when the thread exits, so nothing is left behind
 * by threads that end. Where the program links cna when it starts (or
 * statically), glibc gives every thread of the process this block, zeroed
 * when the thread starts, whether or not it ever poses; a cna loaded later
 * with dlopen gets it in each thread on that thread's first use. No call
 * frees it sooner.
 *
 *        cna_model (immutable, shared)           cna_character (one per copy)
 *   bones at rest, meshes, skins, clips  <----  clock, bone locals/absolutes,
 *   materials, morph targets                    palettes, morph weights/vertices
 *
 * A pose evaluates the whole scene once, in this order (docs/model.md,
 * "Posing a character"):
 *   1. every bone at its rest transform;
 *   2. the animation's scene-node clip sampled into the bones it animates;
 *   3. each skeleton (one evaluation per group of model skins that share
 *      joints, bind pose and root prefixes): its clip sampled and composed
 *      by a cna_player, with the root prefix re-evaluated from the posed
 *      scene when an ancestor of the root joint or the skinned mesh node is
 *      animated; the joints' local transforms written into the bones;
 *   4. every bone's absolute transform: absolute[b] = absolute[parent] · local[b];
 *   5. each skin's palette: skin[p] = world[p] · inverse_bind[p];
 *   6. each morphed part's weights (its weight track at the position, else
 *      the initial weights), blended only when they changed. Weight tracks
 *      keep their times in seconds: right after cna_character_seek(s) (no
 *      advance since, s inside the animation) they are evaluated at s
 *      exactly, otherwise at the position's seconds;
 *   7. the pose edit, when one is set (cna_character_set_pose_edit): user
 *      code or the IK solvers read the model-space transforms and write
 *      joints' local transforms; each edit recomputes the absolute
 *      transforms and palettes of the edited joint's subtree only.
 *
 * Usage — two robots walking at different phases, drawn every frame:
 *   cna_character *a, *b;
 *   cna_character_create(model, NULL, &a, &err);
 *   cna_character_create(model, NULL, &b, &err);
 *   size_t walk;
 *   if (cna_model_find_animation(model, "Robot_Walking", &walk, &err)) ...;
 *   cna_character_play(a, (long)walk, &err);
 *   cna_character_play(b, (long)walk, &err);
 *   cna_character_seek(b, 0.5, &err);
 *   every frame:
 *     cna_character_update(a, dt, &err);          (advance the clock, then pose)
 *     cna_character_update(b, dt, &err);
 *     mesh i of a: world = cna_character_absolute_transform(a, model->meshes[i].parent_bone),
 *                  palette = cna_character_skin_transforms(a, model->meshes[i].skin)
 *   cna_character_free(b);
 *   cna_character_free(a);                        (before the model)
 *
 * Time: the position is kept in ticks of 100 ns (cna/anim.h), so looping is
 * an exact floor-modulo on integers and a long session rounds as a fresh one.
 * An advance of s seconds at time scale k moves the position by
 * cna_ticks_from_seconds(s · k) ticks; with scale 1 that is
 * cna_ticks_from_seconds(s).
 *
 * Ownership: the character borrows the model, which must not change while it
 * lives (cna_model_add_marker is refused then). Freeing the model first is
 * safe: cna_model_free then leaves the model to its last character's
 * cna_character_free (an atomic count, kept by creating and freeing only). A
 * character created from a copy of the model struct needs the copy to outlive it. Creating allocates everything a character
 * playing one clip needs (the players' sampling state for the longest clip
 * of the model included). The first call that sets up a blend (a layer
 * other than 0 playing, layer 0's weight other than 1, a fade of layer 0,
 * a crossfade, a mask, an additive layer, root motion, a blend space)
 * allocates the blending state once, so a character that never blends never
 * pays for it; such a call can fail with CNA_ERROR_OUT_OF_MEMORY and then
 * changes nothing. Playing, advancing, seeking and posing allocate nothing
 * (but a layer's first blend space allocates its sampling state for it,
 * cna/blend_space.h).
 *
 * Errors: every function returning cna_result fills `err` (may be NULL);
 * for a bad argument nothing changes.
 */
#ifndef CNA_CHARACTER_H
#define CNA_CHARACTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/alloc.h"
#include "cna/export.h"
#include "cna/ik.h"
#include "cna/math.h"
#include "cna/model.h"
#include "cna/player.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cna_character cna_character;

/* How the clock treats the ends of the animation (duration D ticks). */
typedef enum cna_loop_mode {
    CNA_LOOP_MODE_DEFAULT = 0,  /* same as CNA_LOOP_MODE_REPEAT */
    /* position = floor-mod(p, D), in [0, D): the end wraps to the start,
     * backwards playback wraps to the end (as cna_player_update's loop). */
    CNA_LOOP_MODE_REPEAT,
    /* position = clamp(p, 0, D): the animation holds its last (or, played
     * backwards, its first) pose. */
    CNA_LOOP_MODE_ONCE,
    /* there and back: with u = floor-mod(p, 2·D), position = u when u <= D,
     * else 2·D - u (the end and the start are each reached exactly). */
    CNA_LOOP_MODE_PING_PONG,
    CNA_LOOP_MODE_COUNT
} cna_loop_mode;

/* The most layers a character may have. */
#define CNA_CHARACTER_MAX_LAYERS 16

/* Zero means default for every field. */
typedef struct cna_character_options {
    cna_allocator allocator;  /* hooks for everything the character owns; default malloc/free */
    /* Animation layers (1 .. CNA_CHARACTER_MAX_LAYERS, fixed for the
     * character's life); 0 means 2, enough for a crossfade. */
    size_t layer_count;
    /* How key rotations are interpolated (cna/player.h): EXACT (the
     * default) or FAST (normalised lerp between keys, within the bound
     * cna_sampling states). Blends between layers are slerps either way. */
    cna_sampling sampling;
} cna_character_options;

/* Create a character of `model` at rest: no animation, every bone at its
 * rest transform, each skin's palette the bind-pose palette (spec:
 * ApplyBindPoseBoneTransformsEXT), each morphed part blended with its
 * initial weights. Loop mode REPEAT, time scale 1, position 0.
 * Errors (*out unchanged, nothing allocated): CNA_ERROR_INVALID_ARGUMENT for
 * NULL model or out, a layer count or sampling out of range, a skin the player refuses ("skins[1]: bone_count: ...")
 * or an invalid morph carrier ("meshes[2].parts[0]: ..."); CNA_ERROR_OUT_OF_MEMORY.
 * `opts` may be NULL.
 * Cost: what the character needs to know about the model was worked out
 * when the model was loaded (its rig, docs/model.md); creating reads no
 * clip key: one allocation for the character's arrays, then the players of
 * its shared skeletons, the states of its morphed parts and its layers. A model
 * struct filled by hand has no rig: each of its characters works it out
 * (more time, and the bytes counted in cna_character_size_bytes). */
CNA_API cna_result cna_character_create(const cna_model *model, const cna_character_options *opts,
                                cna_character **out, cna_error *err);

/* Free a character (never the model); NULL is accepted. */
CNA_API void cna_character_free(cna_character *character);

/* The model the character was created from (NULL for NULL). */
CNA_API const cna_model *cna_character_model(const cna_character *character);

/* Bytes the character owns (its struct, players, matrices, morph weights
 * and vertices): what one more copy on screen costs beside the shared
 * model (cna_model_size_bytes). 0 for NULL. */
CNA_API size_t cna_character_size_bytes(const cna_character *character);

/* ------------------------------------------------------------------ the clock */

/* Play animation `animation` (0 .. model->animation_count - 1, see
 * cna_model_find_animation), or -1 for none (the rest pose), from position
 * 0. The loop mode and time scale are kept. Nothing is posed until the next
 * cna_character_pose or cna_character_update.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for a NULL character
 * or an index outside -1 .. animation_count - 1 ("animation 7 is outside
 * -1..2"), or a model skin without that clip. */
CNA_API cna_result cna_character_play(cna_character *character, long animation, cna_error *err);

/* The animation playing (-1 for none, also for NULL). */
CNA_API long cna_character_animation(const cna_character *character);

/* Its duration in ticks (0 with no animation, or for NULL). */
CNA_API int64_t cna_character_duration(const cna_character *character);

/* Set how the clock treats the ends (DEFAULT = REPEAT). The position is
 * folded into the new mode's range at the next advance or seek.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for NULL or a mode out of range. */
CNA_API cna_result cna_character_set_loop_mode(cna_character *character, cna_loop_mode mode,
                                       cna_error *err);
CNA_API cna_loop_mode cna_character_loop_mode(const cna_character *character);

/* Set the time scale: any finite factor; 0 stops the clock, negative plays
 * backwards. Errors: CNA_ERROR_INVALID_ARGUMENT for NULL or a scale that is
 * not finite ("time scale: inf is not finite"). */
CNA_API cna_result cna_character_set_time_scale(cna_character *character, double scale, cna_error *err);
CNA_API double cna_character_time_scale(const cna_character *character);

/* Advance the clock by `seconds` · scale (cna_ticks_from_seconds of the
 * product; the sum of ticks is never formed where it could overflow) and
 * fold it by the loop mode. Does not pose.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL or a product
 * that is not finite. */
CNA_API cna_result cna_character_advance(cna_character *character, double seconds, cna_error *err);

/* Advance by a whole number of ticks (not scaled) and fold by the loop mode.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for NULL. */
CNA_API cna_result cna_character_advance_ticks(cna_character *character, int64_t ticks, cna_error *err);

/* Set the clock to `seconds` (not scaled; cna_ticks_from_seconds) folded by
 * the loop mode. Does not pose. Errors: CNA_ERROR_INVALID_ARGUMENT for NULL
 * or a NaN time (±inf clamp to the ends in ONCE mode and fold to 0
 * otherwise, as saturated tick counts do). */
CNA_API cna_result cna_character_seek(cna_character *character, double seconds, cna_error *err);

/* Set the clock to `ticks`, folded by the loop mode.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for NULL. */
CNA_API cna_result cna_character_seek_ticks(cna_character *character, int64_t ticks, cna_error *err);

/* The position in ticks (in [0, duration]; 0 with no animation), and in
 * seconds (cna_ticks_to_seconds). 0 for NULL. */
CNA_API int64_t cna_character_position(const cna_character *character);
CNA_API double cna_character_time(const cna_character *character);

/* ------------------------------------------------------------------ layers
 *
 * A character plays up to CNA_CHARACTER_MAX_LAYERS animations at once, one
 * per layer, and blends them (docs/blending.md). Each layer has its own
 * clock (animation, position, loop mode, time scale), a weight in [0, 1], a
 * blend mode and an optional bone mask. cna_character_advance moves every
 * layer's clock; the functions above without "layer" in their name act on
 * layer 0. A new character has layer 0 at weight 1 and the others at
 * weight 0, none playing: one layer of weight 1 and no mask poses, bit for
 * bit, as a character with a single clock.
 *
 * A layer can also play a blend space (cna/blend_space.h): several clips
 * weighted by a parameter point, their clocks in step, mixed into the stack
 * as one layer per clip of weight layer weight × clip weight.
 *
 * The override rule (three.js's AnimationMixer), per animated value
 * (a bone's translation, rotation and scale; a morph weight), over the
 * override layers in index order whose animation animates that value and
 * whose weight w_i (the layer's weight times the bone's mask weight) is
 * above 0:
 *   the first such layer's value is copied; each next one is mixed in by
 *   w_i / (w_1 + ... + w_i): translation, scale and morph weights by linear
 *   interpolation, rotation by shortest-arc slerp (cna_quat_slerp);
 *   when W = w_1 + ... + w_n is below 1 the rest value (the bone's rest
 *   transform, the part's initial morph weights) is mixed in by 1 - W.
 * So a value no layer animates keeps its rest value, one layer of weight w
 * gives the slerp from its value toward the rest by 1 - w, and two layers
 * of weights 1 - W and W give lerp(a, b, W) and slerp(qa, qb, W) exactly.
 *
 * Additive layers (cna_character_layer_set_blend_mode) apply after the
 * override layers, in index order: with the layer's sample (t, q, s) and
 * its reference pose's (t_ref, q_ref, s_ref), dt = t - t_ref, ds = s - s_ref,
 * dq = normalize(conjugate(q_ref) · q), and the value becomes
 *   t + w·dt,  s + w·ds,  q · slerp(identity, dq, w)   (= slerp(q, q·dq, w)).
 * A delta that is exactly zero (the identity rotation) changes nothing.
 */

/* The number of layers (fixed at creation); 0 for NULL. */
CNA_API size_t cna_character_layer_count(const cna_character *character);

/* Play animation `animation` on layer `layer` (or -1: none) from position 0,
 * keeping the layer's weight, loop mode, time scale, blend mode and mask.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a layer out
 * of range ("layer 2 is outside 0..1"), or an animation as in
 * cna_character_play; CNA_ERROR_OUT_OF_MEMORY for a layer other than 0 when
 * the blending state cannot be allocated (see "Ownership" above). */
CNA_API cna_result cna_character_layer_play(cna_character *character, size_t layer, long animation,
                                            cna_error *err);

/* The layer's animation (-1 for none, also for NULL or a layer out of range). */
CNA_API long cna_character_layer_animation(const cna_character *character, size_t layer);

/* Set the layer's weight (in [0, 1]; ends a fade of the layer).
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a layer out
 * of range or a weight outside [0, 1] or NaN ("layer 1: weight 1.5 is
 * outside 0..1"); CNA_ERROR_OUT_OF_MEMORY (layer 0's weight other than 1
 * sets up a blend). */
CNA_API cna_result cna_character_layer_set_weight(cna_character *character, size_t layer, float weight,
                                                  cna_error *err);

/* The layer's weight now (during a fade, where the fade has brought it); 0
 * for NULL or a layer out of range. */
CNA_API float cna_character_layer_weight(const cna_character *character, size_t layer);

/* The layer's loop mode and time scale: as cna_character_set_loop_mode and
 * cna_character_set_time_scale, for one layer (same errors, plus a layer
 * out of range). */
CNA_API cna_result cna_character_layer_set_loop_mode(cna_character *character, size_t layer,
                                                     cna_loop_mode mode, cna_error *err);
CNA_API cna_loop_mode cna_character_layer_loop_mode(const cna_character *character, size_t layer);
CNA_API cna_result cna_character_layer_set_time_scale(cna_character *character, size_t layer, double scale,
                                                      cna_error *err);
CNA_API double cna_character_layer_time_scale(const cna_character *character, size_t layer);

/* Seek the layer's clock: as cna_character_seek and cna_character_seek_ticks
 * (a seek crosses no marker). Same errors, plus a layer out of range. */
CNA_API cna_result cna_character_layer_seek(cna_character *character, size_t layer, double seconds,
                                            cna_error *err);
CNA_API cna_result cna_character_layer_seek_ticks(cna_character *character, size_t layer, int64_t ticks,
                                                  cna_error *err);

/* The layer's position in ticks, its animation's duration in ticks, and the
 * position in seconds (0 for NULL, a layer out of range or no animation). */
CNA_API int64_t cna_character_layer_position(const cna_character *character, size_t layer);
CNA_API int64_t cna_character_layer_duration(const cna_character *character, size_t layer);
CNA_API double cna_character_layer_time(const cna_character *character, size_t layer);

typedef enum cna_blend_mode {
    CNA_BLEND_MODE_DEFAULT = 0,  /* same as CNA_BLEND_MODE_OVERRIDE */
    CNA_BLEND_MODE_OVERRIDE,     /* mixed by the override rule */
    CNA_BLEND_MODE_ADDITIVE,     /* added to the override result relative to a reference pose */
    CNA_BLEND_MODE_COUNT
} cna_blend_mode;

/* Set the layer's blend mode. Making a layer additive the first time
 * allocates its reference pose (kept until the character is freed); its
 * reference is the layer's own animation at 0 until
 * cna_character_layer_set_additive_reference says otherwise.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a layer out
 * of range or a mode out of range; CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_character_layer_set_blend_mode(cna_character *character, size_t layer,
                                                      cna_blend_mode mode, cna_error *err);
CNA_API cna_blend_mode cna_character_layer_blend_mode(const cna_character *character, size_t layer);

/* The reference pose of an additive layer: animation `animation` sampled
 * at `seconds` (clamped to its duration), or, with animation -1, the
 * layer's own animation at `seconds` (then sampled again whenever the layer
 * plays another animation). A value the reference does not animate is
 * measured from its rest value. Allocates the reference pose if the layer
 * has none yet.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a layer or
 * animation out of range, a NaN time; CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_character_layer_set_additive_reference(cna_character *character, size_t layer,
                                                              long animation, double seconds,
                                                              cna_error *err);

/* Set the layer's mask: `weights` has one weight in [0, 1] per bone of the
 * model (count = model->bone_count); a bone's values (joint or scene node)
 * take the layer weight times mask[bone], and a morphed part's weights use
 * the mask weight of its mesh's bone (model->meshes[i].parent_bone). A
 * joint outside the scene has no bone and takes the layer weight. The
 * weights are copied; the first mask of a layer allocates its storage.
 * weights NULL (count 0) removes the mask. cna_model_mask_subtree
 * (cna/model.h) fills a mask by subtree.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL character, a
 * layer out of range, a count other than bone_count, a weight outside
 * [0, 1] ("mask[12]: weight -1 is outside 0..1"); CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_character_layer_set_mask(cna_character *character, size_t layer,
                                                const float *weights, size_t count, cna_error *err);

/* The layer's mask (bone_count weights), or NULL when it has none. */
CNA_API const float *cna_character_layer_mask(const cna_character *character, size_t layer);

/* Fade the layer's weight from where it is to `target` over `seconds` of
 * advance time (the seconds passed to cna_character_advance, counted in
 * ticks and not scaled by any time scale; cna_character_advance_ticks
 * counts its ticks): weight = from + (target - from) · elapsed / duration,
 * exactly `target` at the end. seconds <= 0 sets the weight at once (that
 * is not a fade that ends in an advance: no event, the layer keeps its
 * animation). The advance in which a fade reaches its target reports
 * CNA_EVENT_FADE_FINISHED; when the target is 0 the layer then stops (its
 * animation becomes -1, CNA_EVENT_LAYER_STOPPED) unless
 * cna_character_layer_set_keep_running says otherwise ("events" below).
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a layer out
 * of range, a target outside [0, 1] or a time that is not finite;
 * CNA_ERROR_OUT_OF_MEMORY (a fade of layer 0 sets up a blend). */
CNA_API cna_result cna_character_layer_fade(cna_character *character, size_t layer, float target,
                                            double seconds, cna_error *err);

/* Flags of cna_character_crossfade. */
#define CNA_CROSSFADE_SYNC_PHASE 1u  /* start the incoming clip at the outgoing one's phase */

/* Crossfade from layer `from` to layer `to`: `to` plays `animation` (from
 * its start, or with CNA_CROSSFADE_SYNC_PHASE at the position that has the
 * same fraction of its duration as `from`'s position of its own), and over
 * `seconds` its weight fades from 0 to 1 while `from` fades from its
 * weight to 0 (cna_character_layer_fade). So at its end `from` stops (its
 * animation becomes -1) unless it was told to keep running. When nothing
 * is in transition (neither layer fading, `to` not showing a pose, no
 * snapshot fading) that is all: the same as those calls made by hand.
 *
 * Interrupting. A crossfade may start at any moment, also while another is
 * running (either layer fading, or `to` playing at a weight above 0, or a
 * snapshot still fading): restarting `to` at weight 0 would then drop the
 * pose it shows. Instead the pose the override layers show now (the value
 * of every bone and morph weight before additive layers, any snapshot
 * still fading included) is frozen into a snapshot; `to` plays `animation`
 * at weight 1 at once, `from` and every override layer fading out to 0 end
 * at once (weight 0, stopped unless they keep running, without events),
 * and over `seconds` the snapshot's weight (cna_character_transition_weight)
 * fades from 1 to 0, mixed into the layers' result by the override rule's
 * mix (value·(1 - w) + snapshot·w, rotations by slerp). The pose never
 * jumps, however often crossfades interrupt one another. The snapshot
 * covers the bones those layers reach (where their masks are above 0) and
 * the bones the snapshot it replaces covered; elsewhere nothing changes.
 * seconds <= 0 is a cut: `to` at weight 1 and `from` at 0 at once, and any
 * snapshot ended.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, layers out
 * of range or equal, an animation as in cna_character_play, a time that is
 * not finite or unknown flags; CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_character_crossfade(cna_character *character, size_t from, size_t to, long animation,
                                           double seconds, unsigned flags, cna_error *err);

/* The weight of the snapshot an interrupting crossfade froze (see
 * cna_character_crossfade), now: 1 at the interruption, falling linearly
 * to 0 over its time of advance; 0 when no snapshot fades (and for NULL). */
CNA_API float cna_character_transition_weight(const cna_character *character);

/* Keep the layer running when a fade brings its weight to 0 (keep true), or
 * stop it then (false, the default): a stopped layer plays no animation
 * (-1), so it reports no events and costs no sampling. Its weight stays 0;
 * a layer that keeps running goes on reporting its clock's events at weight
 * 0. Neither choice changes the pose: a layer of weight 0 contributes
 * nothing.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a layer out
 * of range, or a call from the event listener. */
CNA_API cna_result cna_character_layer_set_keep_running(cna_character *character, size_t layer, bool keep,
                                                        cna_error *err);

/* Whether the layer keeps running at weight 0 (false for NULL or a layer
 * out of range). */
CNA_API bool cna_character_layer_keep_running(const cna_character *character, size_t layer);

/* Sync groups: layers the game names advance by one normalised phase. Put
 * layer `layer` in group `group` (any number but 0), or take it out (0).
 * At each advance, among the group's layers that play an animation of
 * duration > 0 (not a blend space, whose samples keep their own step):
 * the leader is the one of largest weight (the first on a tie), the
 * group's phase φ is the leader's position over its duration, the group's
 * duration is the weighted mean D = Σ w_l·D_l / Σ w_l of the members'
 * durations by their weights (the leader's duration while every weight is
 * 0), and the advance moves φ by n / D, n the ticks the leader's clock
 * would move (its time scale applies). Each member then moves to
 * floor(φ·D_l) of its own clip, passing the loops φ passed, and reports
 * its own markers and loops on the way as any layer does (with its own
 * weight). So a walk and a run crossfading by speed stay in step however
 * the weights move, their duration going from the walk's to the run's. A
 * member that was out of step (it joined the group, or was played or
 * sought alone) is brought to the group's phase at the next advance.
 * Members should loop (REPEAT): the steps are computed as for a looping
 * clip.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a layer out
 * of range, or a call from the event listener. */
CNA_API cna_result cna_character_layer_set_sync_group(cna_character *character, size_t layer, unsigned group,
                                                      cna_error *err);

/* The layer's sync group (0: none; also for NULL or a layer out of range). */
CNA_API unsigned cna_character_layer_sync_group(const cna_character *character, size_t layer);

/* ------------------------------------------------------------------ events
 *
 * While advancing, each playing layer's clock reports what it crosses, in
 * the order it passes them: the markers of its animation
 * (cna_model_markers), a loop (a wrap of a REPEAT clock, a turn of a
 * PING_PONG clock) and the end of a ONCE clock. Every layer that plays an
 * animation reports, whatever its weight; layers report in index order,
 * each its events in the order of its clock's path.
 *
 * The order within one advance (cna_character_advance, _ticks, update):
 * layer by layer in index order, each layer
 *   1. moves its fade, if it has one, to the advance's end: the layer's
 *      weight is now the weight the next pose uses;
 *   2. moves its clock and, if it plays an animation, reports what the
 *      clock crossed (markers, LOOPED, FINISHED, in path order);
 *   3. if its fade reached its target in this advance: FADE_FINISHED
 *      (ticks: the layer's position);
 *   4. if that target was 0, the layer plays an animation and does not keep
 *      running (cna_character_layer_set_keep_running): LAYER_STOPPED
 *      (animation: the one it played, ticks: its position), after which
 *      the layer's animation is -1.
 * Every event carries the layer's weight after step 1 (`weight`: 0 for
 * the events of a layer that stops in this advance). A layer that plays no
 * animation reports only FADE_FINISHED (animation -1).
 *
 * A marker at m is crossed when the clock moves from before m to m or past
 * it (forward: p < m <= p'; backward: p' <= m < p), along the clock's path
 * between the ends 0 and D (the duration):
 *   REPEAT forward: the clock runs up to D and wraps to 0. A wrap crosses
 *     the markers at D, then reports LOOPED (ticks D), then crosses the
 *     markers at 0 (the position is 0 again).
 *   REPEAT backward (negative time scale): the clock runs down to 0;
 *     arriving at 0 crosses the markers at 0. Passing below 0 wraps: LOOPED
 *     (ticks 0), then the markers at D, from which the clock continues down.
 *   PING_PONG: the position runs from one end to the other and turns there.
 *     Arriving at an end crosses its markers, then reports LOOPED (ticks:
 *     that end); leaving it crosses nothing there, so a marker at 0 or D is
 *     crossed once per arrival and a marker inside once on the way there and
 *     once on the way back. A negative time scale runs the same path the
 *     other way.
 *   ONCE: arriving, from elsewhere, at the end it moves toward (D forward, 0
 *     backward) crosses the markers there, then reports FINISHED (ticks: that
 *     end); staying there reports nothing more.
 * A step longer than the animation crosses a marker each time its path
 * passes it (a REPEAT step of k·D ticks crosses each marker k times) and
 * reports each wrap or turn, in path order. Markers at the same time are reported in index order
 * (the order they were added), in either direction. A seek, a play or a
 * loop mode change crosses nothing: a marker at the position the clock
 * starts from is not reported (played forward from 0 in REPEAT, a marker at
 * 0 is first reported at the first wrap). An animation of duration 0 and a
 * step of 0 ticks report nothing.
 *
 * Very long steps: an advance reports at most CNA_EVENT_MAX_LOOPS wraps or
 * turns per layer. A step with more (a 1 s animation skipped ahead by more
 * than an hour at once) reports its path up to the CNA_EVENT_MAX_LOOPS-th
 * LOOPED, that one included, and nothing after it; the clock still moves
 * the whole step. */

/* The most wraps or turns one layer reports in one advance. */
#define CNA_EVENT_MAX_LOOPS 4096

typedef enum cna_event_kind {
    CNA_EVENT_MARKER = 1,    /* a marker was crossed */
    CNA_EVENT_LOOPED,        /* the clock wrapped (REPEAT) or turned (PING_PONG) */
    CNA_EVENT_FINISHED,      /* a ONCE clock reached the end it moves toward */
    CNA_EVENT_FADE_FINISHED, /* the layer's fade reached its target */
    CNA_EVENT_LAYER_STOPPED  /* a fade brought the layer to 0: its animation is now -1 */
} cna_event_kind;

typedef struct cna_event {
    cna_event_kind kind;
    size_t layer;        /* the layer whose clock crossed it */
    long animation;      /* the layer's animation */
    size_t marker;       /* MARKER: index in cna_model_markers(model, animation); else 0 */
    const char *name;    /* MARKER: the marker's name (owned by the model); else NULL */
    int64_t ticks;       /* MARKER: its time; LOOPED, FINISHED: the end reached (0 or duration);
                            FADE_FINISHED, LAYER_STOPPED: the layer's position */
    float weight;        /* the layer's weight (after this advance's fade step) */
} cna_event;

/* Called once per event, during cna_character_advance (and _ticks,
 * cna_character_update, a crowd's update of the character); `event` is
 * valid during the call. The listener may read the character (its layers,
 * weights, positions, transforms, root motion, sizes); a call that would
 * change its clock, layers or pose (advance, update, pose, play, seek, a
 * loop mode or time scale, crossfade, fade, a weight, mask, blend mode,
 * reference, root motion, keep-running, morph weights, pose edits, the
 * listener itself, a crowd update of the character) returns
 * CNA_ERROR_INVALID_ARGUMENT ("character: ... called from its event
 * listener ...") and changes nothing; cna_character_free does nothing
 * then. */
typedef void (*cna_event_fn)(const cna_event *event, void *user);

/* Set (fn non-NULL) or remove (fn NULL) the character's event listener.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for NULL character. */
CNA_API cna_result cna_character_set_event_listener(cna_character *character, cna_event_fn fn, void *user,
                                                    cna_error *err);

/* ------------------------------------------------------------------ root motion
 *
 * A layer can extract the motion of one bone (by default the first root
 * joint of the model's first skin) so that a game moves the character by
 * it: the pose keeps the bone at its extracted rest and each advance
 * reports the motion the clock passed over, in the bone's parent space.
 *   HORIZONTAL: the translation along X and Z and the rotation about +Y
 *     (the twist of the rotation about Y). The pose keeps the bone's X and
 *     Z at their value at the animation's start and its twist about Y at
 *     the start's; its height and other rotation stay animated.
 *   FULL: the whole translation and rotation; the pose keeps the bone at
 *     its transform at the animation's start.
 * With M(p) the extracted motion at position p (a rigid transform), a clock
 * moving from p to p' passes M(p)^-1 · M(p'); a wrap adds the whole loops
 * (M(0)^-1 · M(D) each) and a ping-pong turn the way back. The reported
 * delta blends the layers' deltas with their weights by the override rule
 * (the rest is no motion). Computed in double precision; a blend of several
 * layers' motions, or of one whose weight is below 1, uses the C library's
 * acos and sin, so its last bits can differ between machines (between
 * C libraries, and in glibc between CPUs with and without FMA). */

typedef enum cna_root_motion_mode {
    CNA_ROOT_MOTION_NONE = 0,
    CNA_ROOT_MOTION_HORIZONTAL,
    CNA_ROOT_MOTION_FULL,
    CNA_ROOT_MOTION_COUNT
} cna_root_motion_mode;

/* A rigid motion: rotate by `rotation` (unit quaternion x, y, z, w), then
 * translate by `translation`, in the bone's parent space. */
typedef struct cna_root_motion {
    double translation[3];
    double rotation[4];
} cna_root_motion;

/* Extract root motion on layer `layer` in `mode` from bone `bone` (-1: the
 * default bone above). Takes effect for the next advance and pose.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a layer,
 * mode or bone out of range, or -1 for a model without skins;
 * CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_character_layer_set_root_motion(cna_character *character, size_t layer,
                                                       cna_root_motion_mode mode, long bone, cna_error *err);

/* The root motion of the last advance (identity before the first, after a
 * seek or play, or when no layer extracts motion); *out unchanged for NULL. */
CNA_API void cna_character_root_motion(const cna_character *character, cna_root_motion *out);

/* ------------------------------------------------------------------ posing */

/* Pose the character at its position: the six steps of the header comment.
 * Allocates nothing. The outputs below hold this pose until the next one.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for NULL; a step fails only for a
 * model broken by hand (e.g. a morph weight track with the wrong number of
 * weights: "meshes[0].parts[0]: weight track 2 gives 3 weights for 2
 * targets"), and the outputs may then be partly posed. */
CNA_API cna_result cna_character_pose(cna_character *character, cna_error *err);

/* cna_character_advance(seconds) then cna_character_pose: one frame. */
CNA_API cna_result cna_character_update(cna_character *character, double seconds, cna_error *err);

/* Bone `bone`'s local transform at the last pose (spec:
 * ModelBone::Transform): the rest transform, the scene-node clip's sample,
 * or a joint's pose (for a joint whose bind pose folds non-joint nodes in,
 * transform = inverse(fold) · local, so that the folded nodes keep their own
 * rest transforms). A joint's is read where its skeleton's player keeps it,
 * and a bone no clip animates reads its rest transform in the model, so no
 * copy is made per pose. Valid until the next pose or free. NULL for
 * NULL or a bone out of range. */
CNA_API const cna_mat4 *cna_character_bone_transform(const cna_character *character, size_t bone);

/* Bone `bone`'s absolute (model-space) transform at the last pose:
 * absolute[b] = absolute[parent] · local[b] (indexed by bone, not a
 * palette). Draw mesh i with the transform of bone
 * model->meshes[i].parent_bone. A joint's is read where its skeleton's
 * player keeps it when that is the same value bit for bit (its world, when
 * the root prefix equals the absolute transform above the root), so no copy
 * is made per pose. Valid until the next pose or free. NULL for NULL or a
 * bone out of range. */
CNA_API const cna_mat4 *cna_character_absolute_transform(const cna_character *character, size_t bone);

/* Copy every bone's absolute transform at the last pose into out[0 ..
 * bone_count - 1] (spec: CopyAbsoluteBoneTransformsTo; no inverse bind
 * matrices, so not a palette).
 * Errors: CNA_ERROR_INVALID_ARGUMENT for NULL arguments or count below the
 * model's bone count; out unchanged. */
CNA_API cna_result cna_character_copy_absolute_transforms(const cna_character *character, cna_mat4 *out,
                                                  size_t count, cna_error *err);

/* Skin `skin`'s palette at the last pose (palette order, the skin's
 * joint_count matrices: skin[p] = world[p] · inverse_bind[p], with the root
 * prefix composed in); bound to the skin's own meshes. Skins with equal
 * joints, inverse binds and prefixes return the same array. NULL for NULL
 * or a skin out of range. */
CNA_API const cna_mat4 *cna_character_skin_transforms(const cna_character *character, size_t skin);

/* The palette part `part` of mesh `mesh` is drawn and skinned with at the
 * last pose; *count (may be NULL) receives its number of matrices (0 with
 * NULL). For a part of a skinned mesh that is not split, the mesh's skin
 * palette itself (cna_character_skin_transforms, the skin's joint_count
 * matrices; no copy). For a split part (cna_model_part.palette_map, a skin
 * of more than 72 joints imported with split_palettes), its sub-palette:
 * palette_map_count matrices sub[i] = skin[palette_map[i]], which its joint
 * bytes index, gathered by every pose into storage the character allocated
 * at creation (posing still allocates nothing). Valid until the next pose
 * or free. NULL for NULL, indices out of range or a rigid mesh. Skin a part
 * on the CPU with it (cna_skin_vertices(layout, vertices, n, palette,
 * count, ...)) or hand it to a skinned draw (cna_gl_draw_character does). */
CNA_API const cna_mat4 *cna_character_part_palette(const cna_character *character, size_t mesh, size_t part,
                                                   size_t *count);

/* Skin `skin`'s joint world transforms at the last pose (palette order;
 * world[root] = prefix[root] · local[root], so a joint's model-space
 * transform is absolute[mesh_node] · world[p]). NULL for NULL or out of range. */
CNA_API const cna_mat4 *cna_character_world_transforms(const cna_character *character, size_t skin);

/* The root prefixes skin `skin` was posed with (joint_count entries,
 * identity for joints that are not roots): the model's constants, or their
 * values re-evaluated from the posed scene when an ancestor of a root joint
 * or the instancing node is animated (cna_character_skin_has_moving_prefix).
 * NULL for NULL or out of range. */
CNA_API const cna_mat4 *cna_character_root_prefixes(const cna_character *character, size_t skin);

/* true when skin `skin`'s root prefix is re-evaluated at every pose. */
CNA_API bool cna_character_skin_has_moving_prefix(const cna_character *character, size_t skin);

/* The morph weights of part `part` of mesh `mesh` at the last pose (the
 * initial weights before the first); *count (may be NULL) receives the
 * target count. NULL (*count = 0) for a part without morph targets,
 * indices out of range or NULL. */
CNA_API const float *cna_character_morph_weights(const cna_character *character, size_t mesh,
                                         size_t part, size_t *count);

/* The part's vertex bytes as this character draws them: its blended
 * vertices for a morphed part, the model's part->vertices otherwise;
 * *size (may be NULL) receives vertex_count · stride. NULL for NULL or
 * indices out of range. Valid until the next pose, set_morph_weights or free. */
CNA_API const void *cna_character_part_vertices(const cna_character *character, size_t mesh, size_t part,
                                        size_t *size);

/* A counter that changes every time the part's blended vertices change (0
 * for a part without morph targets): upload them to the GPU only when it
 * differs from the value of the last upload. */
CNA_API uint64_t cna_character_part_revision(const cna_character *character, size_t mesh, size_t part);

/* ------------------------------------------------------------------ pose edit
 *
 * After a pose (cna_character_pose, cna_character_update, a crowd's
 * update), the joints' local transforms can be changed: by the calls
 * below, made by hand after the pose, or from a callback that every pose
 * runs as its last step (cna_character_set_pose_edit; a crowd runs it on
 * its worker thread, inside the character's pose). Each edit writes a
 * joint's local transform where the character keeps it (its skeleton's
 * player; a joint whose bind pose folds nodes in keeps
 * fold · local there) and recomputes, for the edited joint's subtree
 * only, the bones' absolute transforms, the joints' worlds and each skin's
 * palette (skin[p] = world[p] · inverse_bind[p]), the root prefixes of
 * nested skeletons under it and the split parts' sub-palettes; so
 * cna_character_absolute_transform reads the edited pose at once, as the
 * next edit or solver needs. The next pose starts again from the
 * animation. A character that never edits poses exactly as before.
 *
 * Only joints (bones that some skin poses) can be edited ("bone 0
 * \"RobotArmature\": not a joint of any skin; only joints can be edited"),
 * and not a joint whose edit would move a skin's instancing node apart from
 * its skeleton ("bone 4 \"Hips\": editing it would move skins[1]'s
 * instancing node apart from its skeleton").
 *
 * Cost and memory: the first edit (or cna_character_set_pose_edit)
 * allocates ten bytes per bone and 112 more (counted in
 * cna_character_size_bytes); editing then allocates nothing. Threading as for posing: one thread per
 * character at a time. */

/* Called as the last step of every pose of the character, with the
 * posed character; return CNA_OK, or an error (filled into err), which the
 * pose returns. It may call the edit functions below and read any output
 * of the character; it must not pose, advance or free it. */
typedef cna_result (*cna_pose_edit_fn)(cna_character *character, void *user, cna_error *err);

/* Set (fn non-NULL) or remove (fn NULL) the pose edit; takes effect at the
 * next pose. Errors: CNA_ERROR_INVALID_ARGUMENT for NULL character;
 * CNA_ERROR_OUT_OF_MEMORY (the edit state, once). */
CNA_API cna_result cna_character_set_pose_edit(cna_character *character, cna_pose_edit_fn fn, void *user,
                                               cna_error *err);

/* Write joint `bone`'s local transform: weight 1 sets it to *local, weight
 * 0 changes nothing (not a bit), a weight in between blends the current
 * local toward it (both decomposed into T · R · S: translation and scale
 * by lerp, rotation by cna_quat_slerp, composed again). Then the joint's
 * subtree is recomputed.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a bone
 * out of range, a bone that is not an editable joint (see above), a matrix
 * that is not finite, a weight outside [0, 1] or NaN, a blend of a
 * transform with a zero scale; CNA_ERROR_OUT_OF_MEMORY (first edit). */
CNA_API cna_result cna_character_set_joint_local(cna_character *character, size_t bone, const cna_mat4 *local,
                                                 float weight, cna_error *err);

/* Rotate joint `bone` about its own origin by `correction` (a unit
 * quaternion in the joint's space, as the IK solvers of cna/ik.h return):
 *   local' = local · R(correction)
 * (the local rotation times the correction, for a joint without
 * non-uniform scale), then recompute its subtree. A correction that is
 * exactly the identity changes nothing.
 * Errors: as cna_character_set_joint_local, plus a correction that is not
 * finite or not of unit length (within 1e-3). */
CNA_API cna_result cna_character_rotate_joint(cna_character *character, size_t bone, cna_quat correction,
                                              cna_error *err);

/* Two-bone IK on a character (cna/ik.h): the joint named `end_joint`
 * (cna_model_find_bone), its parent (mid) and grandparent (start), read
 * from the current pose; the start and mid joints are rotated by the
 * corrections and their subtree recomputed once. *reached (may be NULL) as
 * cna_ik_two_bone_solve.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, an
 * unknown name ("joint \"Foot\": no such joint"), a joint without two
 * ancestors, a start or mid bone that is not an editable joint, and the
 * solver's errors. */
CNA_API cna_result cna_character_two_bone_ik(cna_character *character, const char *end_joint,
                                             const cna_ik_two_bone *ik, bool *reached, cna_error *err);

/* Aim IK on a character: the joint named `joint` is rotated by
 * cna_ik_aim_solve's correction and its subtree recomputed. Errors as
 * above. */
CNA_API cna_result cna_character_aim_ik(cna_character *character, const char *joint, const cna_ik_aim *ik,
                                        bool *reached, cna_error *err);

/* Chain IK on a character (cna_ik_chain_solve): the `joint_count` joints
 * above the joint named `end_joint` (1 .. CNA_IK_CHAIN_MAX; ik->limits has
 * one entry per joint, the farthest from the end first) are turned so that
 * the end joint's origin reaches the target; their subtree is recomputed
 * once. Errors as above, plus a chain longer than the joint's ancestry
 * ("joint \"Head\": a chain of 9 needs 9 ancestors; it has 7"). */
CNA_API cna_result cna_character_chain_ik(cna_character *character, const char *end_joint, size_t joint_count,
                                          const cna_ik_chain *ik, bool *reached, cna_error *err);

/* ------------------------------------------------------------------ the spec's operations */

/* Set the morph weights of one part (spec: SetMorphWeightsEXT, applied to
 * this character): blend on the CPU and store them as current, only when
 * they differ from the current ones; the next pose sets them again from the
 * animation.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a mesh or
 * part out of range, a part without morph targets ("meshes[0]
 * \"Cube\".parts[0]: no morph targets"), weights of the wrong count or not
 * finite (as cna_morph_blend). */
CNA_API cna_result cna_character_set_morph_weights(cna_character *character, size_t mesh, size_t part,
                                           const float *weights, size_t count, cna_error *err);

/* Apply a scene-node clip at `seconds` to this character's bones (spec:
 * ApplyClipToBonesEXT): the time is clamped to [0, duration]; every track
 * with keys and a bone in range sets its bone's local transform to the
 * sample's T · R · S; then the absolute transforms are recomputed. Palettes
 * are not changed. The next pose starts from rest again. The first call
 * allocates a transform for every bone (kept until the character is freed).
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a NaN time,
 * a clip whose target is not SCENE_NODE ("clip \"Walk\": target
 * joint-palette is not a scene-node clip; play it with a cna_player");
 * CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_character_apply_clip_to_bones(cna_character *character, const cna_clip *clip,
                                             double seconds, cna_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CNA_CHARACTER_H */
