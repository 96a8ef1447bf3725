/*
 * cna/blend_space.h — blend spaces: clips placed at points of a one- or
 * two-dimensional parameter space (speed; speed and direction), blended by
 * where a parameter point lies among them, and played on a character's
 * layer with their clocks in step.
 *
 * A blend space is made once from a model and a list of samples (an
 * animation of the model and its coordinates). It is immutable: any number
 * of characters of that model may play it at once, on any threads. The
 * caller frees it (cna_blend_space_free) after every character that plays
 * it was freed or plays something else on that layer. It is allocated with
 * the model's allocator (the hooks of the import or load options that made
 * the model, cna/alloc.h; malloc and free by default), which must stay
 * usable until the space is freed, even when the model is freed first.
 *
 * The weights of a point (x, y), one per sample:
 *   1D (x only; y is ignored): the samples sorted by x; between two
 *     neighbours x_i < x_{i+1}, with t = (x - x_i) / (x_{i+1} - x_i):
 *     w_i = 1 - t, w_{i+1} = t, every other 0. Below the smallest x the
 *     first sample (in x order) has weight 1, above the largest the last.
 *   2D: the samples' points are triangulated (Delaunay: no sample lies
 *     inside the circle through a triangle's corners; where four or more
 *     samples lie on one circle, one of its triangulations is chosen, always
 *     the same for the same samples). Inside a triangle (a, b, c) the
 *     weights are the barycentric coordinates: w_b and w_c by Cramer's rule,
 *     w_a = 1 - w_b - w_c. A point outside the convex hull of the samples
 *     takes the weights of the closest point of the hull's boundary: on the
 *     hull edge (a, b) at a + t·(b - a), w_a = 1 - t, w_b = t.
 * At a sample's own coordinates its weight is exactly 1 and every other
 * weight exactly 0. The weights are in [0, 1] and sum to 1 (to the rounding
 * of the last subtraction). At most 2 weights (1D) or 3 (2D) are non-zero.
 *
 * Usage — walking and running by speed on layer 0 of a robot:
 *   size_t idle, walk, run;
 *   cna_model_find_animation(model, "Robot_Idle", &idle, &err);   (and the others)
 *   const cna_blend_sample s[3] = {{(long)idle, 0.0, 0.0}, {(long)walk, 1.5, 0.0}, {(long)run, 4.0, 0.0}};
 *   cna_blend_space *speed;
 *   cna_blend_space_create(model, 1, s, 3, &speed, &err);
 *   cna_character_layer_play_blend_space(character, 0, speed, 0.0, 0.0, &err);
 *   every frame:
 *     cna_character_layer_set_blend_parameters(character, 0, current_speed, 0.0, &err);
 *     cna_character_update(character, dt, &err);
 *   cna_character_free(character);
 *   cna_blend_space_free(speed);
 */
#ifndef CNA_BLEND_SPACE_H
#define CNA_BLEND_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "cna/character.h"
#include "cna/model.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One sample: an animation of the model (0 .. animation_count - 1) at the
 * point (x, y) of the parameter space (y is ignored in one dimension). */
typedef struct cna_blend_sample {
    long animation;
    double x, y;
} cna_blend_sample;

/* The most samples of a two-dimensional blend space. */
#define CNA_BLEND_SPACE_MAX_SAMPLES_2D 64

typedef struct cna_blend_space cna_blend_space;

/* Make a blend space of `dimensions` (1 or 2) from samples[0 .. count - 1]
 * (copied) of animations of `model`. The space remembers the model: only
 * characters of that model (or of a copy of its struct) can play it.
 * Errors (nothing made, *out untouched): CNA_ERROR_INVALID_ARGUMENT for a
 * NULL model, samples or out ("blend space: samples is NULL"), dimensions
 * other than 1 or 2 ("blend space: dimensions 3 is not 1 or 2"), too few
 * samples ("blend space: 1 sample; a 1D space needs at least 2"; 2D: at
 * least 3), more than CNA_BLEND_SPACE_MAX_SAMPLES_2D in 2D ("blend space:
 * 65 samples; a 2D space has at most 64"), an animation out of range
 * ("samples[2]: animation 9 is outside 0..4"), a coordinate that is not
 * finite ("samples[1]: x nan is not finite"), two samples at the same point
 * ("samples[0] and samples[3] are both at (1, 0)"; in 1D the same x), and
 * in 2D samples that all lie on one line ("blend space: the 4 samples lie on
 * one line; a 2D space needs samples that span an area");
 * CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_blend_space_create(const cna_model *model, unsigned dimensions, const cna_blend_sample *samples,
                                          size_t count, cna_blend_space **out, cna_error *err);

/* The most sync markers per cycle of a synced blend space. */
#define CNA_BLEND_SPACE_MAX_SYNC 64

/* Make a blend space whose samples keep in step by sync markers (for
 * example "foot_down_l" and "foot_down_r") rather than by a normalised
 * phase: the markers of each sample's animation (cna_model_markers) whose
 * names are among sync_markers[0 .. sync_marker_count - 1] are its sync
 * points. Sample 0's sync points in time order name the cycle (k points);
 * every other sample must have the same names in the same cyclic order
 * (it may start at any of them), each at a time of its own. The space is
 * otherwise as cna_blend_space_create makes it, and so are its weights.
 *
 * On a layer the phase φ = ψ / k, where the integer part of ψ is the sync
 * point last passed and its fraction how far the samples are toward the
 * next: sample i is sampled at its point j plus that fraction of its
 * ticks from point j to point j + 1 (rounded down), so that every sample
 * reaches each sync point in the same advance, at any parameters. Between
 * points j and j + 1 the layer runs Σ w_i·len_i(j) ticks (len_i(j): sample
 * i's ticks between them): a walk and a run mixed half and half take the
 * mean of their strides. A cycle still lasts D = Σ w_i·D_i, and the
 * layer's position is the ticks run since point 0 of the cycle (a seek
 * sets it). Events: each sample reports its markers but the sync points
 * as with a normalised phase; then each sync point crossed is reported
 * once for the layer (CNA_EVENT_MARKER, animation and marker: those of the
 * sample of largest weight, ticks: that sample's time of the point,
 * weight: the layer's weight); then LOOPED per wrap of ψ.
 * Errors (nothing made): those of cna_blend_space_create; no names, a NULL
 * or empty name ("blend space: sync marker name 1 is empty"); a sample
 * without a sync marker ("samples[1]: animation 6 has no sync marker (none
 * named \"foot_down_l\" or another sync name)"), with another count
 * ("samples[1]: animation 6 has 3 sync markers, samples[0] has 2"), in
 * another cyclic order, two at the same time, more than
 * CNA_BLEND_SPACE_MAX_SYNC, or an animation of duration 0. */
CNA_API cna_result cna_blend_space_create_synced(const cna_model *model, unsigned dimensions,
                                                 const cna_blend_sample *samples, size_t count,
                                                 const char *const *sync_markers, size_t sync_marker_count,
                                                 cna_blend_space **out, cna_error *err);

/* The number of sync points per cycle (0 for a space that keeps in step by
 * a normalised phase, and for NULL). */
CNA_API size_t cna_blend_space_sync_count(const cna_blend_space *space);

/* Free a blend space (NULL does nothing). No character may play it any more. */
CNA_API void cna_blend_space_free(cna_blend_space *space);

/* The space's dimensions (1 or 2) and sample count (0 for NULL); its
 * samples, in the order given at creation (NULL for NULL). */
CNA_API unsigned cna_blend_space_dimensions(const cna_blend_space *space);
CNA_API size_t cna_blend_space_sample_count(const cna_blend_space *space);
CNA_API const cna_blend_sample *cna_blend_space_samples(const cna_blend_space *space);

/* The weights of the point (x, y) (y ignored in 1D): weights[i] for
 * sample i, in the order the samples were given, by the rules above.
 * Errors (weights untouched): CNA_ERROR_INVALID_ARGUMENT for a NULL space
 * or weights, a count other than the sample count ("blend space: weights
 * count 3 differs from the sample count 5"), or a parameter that is not
 * finite ("blend space: x inf is not finite"). */
CNA_API cna_result cna_blend_space_weights(const cna_blend_space *space, double x, double y, double *weights,
                                           size_t count, cna_error *err);

/* ------------------------------------------------------------------ playing on a layer
 *
 * A layer that plays a blend space contributes the blend of its samples'
 * clips with the weights of its parameters: in the layer stack this is the
 * same as each sample of weight w_i > 0 being a layer of weight
 * (layer weight × w_i), in sample order, at the layer's place (override
 * rule, additive rule, mask and morph weights alike). So at a sample's own
 * coordinates the pose is bit for bit that of the sample's clip played
 * alone on the layer with the layer's weight at the same position.
 *
 * Clocks in step: the layer keeps a phase φ in [0, 1). With D_i the
 * duration in ticks of sample i's animation, the layer's duration is
 * D = Σ w_i·D_i over the samples of weight w_i > 0, in sample order, in
 * double. An advance of s seconds moves the layer by
 * n = cna_ticks_from_seconds(s · time scale) ticks (as any layer) and the
 * phase to p - floor(p) with p = φ + n / D (1 becomes 0); a D of 0 keeps
 * φ at 0. Sample i's clip is sampled at floor(φ·D_i) ticks (0 for a clip
 * of duration 0). The layer always loops (its loop mode is not used while
 * it plays a blend space). Changing the parameters keeps φ and
 * re-computes the weights, D and the positions.
 *
 * The layer's animation (cna_character_layer_animation, and
 * cna_character_animation for layer 0) is the sample of largest weight
 * (the first in sample order on a tie); its duration and position
 * (cna_character_layer_duration, _position) are D rounded to whole ticks
 * and φ times that, rounded down. A seek of the layer
 * (cna_character_layer_seek, _ticks) sets φ to the fraction of D the
 * position is (ticks / D, folded into [0, 1)). cna_character_layer_play
 * and cna_character_crossfade onto the layer replace the blend space as on
 * any layer.
 *
 * Events: while advancing, each sample of weight > 0, in sample order,
 * reports the markers of its animation that its own position crosses
 * (cna_event.animation: the sample's animation; cna_event.weight: the
 * layer's weight × the sample's weight), by the rules of "events" in
 * cna/character.h for a REPEAT clock; then each wrap of φ reports
 * CNA_EVENT_LOOPED once (animation: the sample of largest weight; ticks:
 * its duration forward, 0 backward; at most CNA_EVENT_MAX_LOOPS per
 * advance). Then the layer's fade events, as on any layer.
 *
 * An additive blend-space layer without a reference of its own
 * (cna_character_layer_set_additive_reference) measures from the sample of
 * largest weight at 0, sampled again when that sample changes. Root motion
 * is not extracted from a blend space: playing one on a layer with root
 * motion, or setting root motion on a layer that plays one, is refused.
 *
 * Memory: the first blend space a layer plays allocates the layer's
 * sampling state for it (one per sample that can have weight at once: 2 in
 * 1D, 3 in 2D) and its weights; a later space with more samples or more
 * dimensions grows them. Changing the parameters, advancing and posing
 * allocate nothing. */

/* Play blend space `space` on layer `layer` from phase 0 at the parameters
 * (x, y), keeping the layer's weight, time scale, blend mode and mask.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a layer out
 * of range, a space of another model ("layer 1: the blend space was made
 * for another model"), a parameter that is not finite, a layer with root
 * motion ("layer 1: root motion is not extracted from a blend space; set
 * the layer's root motion to NONE first"), a call from the event listener;
 * CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_character_layer_play_blend_space(cna_character *character, size_t layer,
                                                        const cna_blend_space *space, double x, double y,
                                                        cna_error *err);

/* Move the parameters of the blend space layer `layer` plays to (x, y):
 * the weights change now, the phase stays.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for NULL, a layer out
 * of range, a layer that plays no blend space ("layer 1 plays no blend
 * space"), a parameter that is not finite, a call from the event listener. */
CNA_API cna_result cna_character_layer_set_blend_parameters(cna_character *character, size_t layer, double x,
                                                            double y, cna_error *err);

/* The blend space the layer plays (NULL when none, for NULL or a layer out
 * of range). */
CNA_API const cna_blend_space *cna_character_layer_blend_space(const cna_character *character, size_t layer);

/* The layer's phase φ in [0, 1) (0 when it plays no blend space). */
CNA_API double cna_character_layer_phase(const cna_character *character, size_t layer);

/* The weight of sample `sample` on the layer now (0 when the layer plays no
 * blend space or the sample is out of range), and the position in ticks at
 * which its clip is sampled (floor(φ·D_i), for a sample of weight 0 too;
 * 0 when the layer plays no blend space or the sample is out of range). */
CNA_API double cna_character_layer_sample_weight(const cna_character *character, size_t layer, size_t sample);
CNA_API int64_t cna_character_layer_sample_position(const cna_character *character, size_t layer, size_t sample);

#ifdef __cplusplus
}
#endif
#endif /* CNA_BLEND_SPACE_H */
