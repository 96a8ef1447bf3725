/*
 * A character's layers (include/cna/character.h, "layers", "events", "root
 * motion"): each layer's clock, weight, fade, blend mode, mask, additive
 * reference and root motion, and the advance that moves them all.
 */
#include <math.h>
#include <string.h>

#include "anim/anim_internal.h"
#include "character/character_internal.h"
#include "core/internal.h"

/* ------------------------------------------------------------------ creation */

static size_t largest_tracks(const cna_clip *clips, size_t count)
{
    size_t n = 0;
    for (size_t a = 0; clips && a < count; a++)
        if (clips[a].track_count > n) n = clips[a].track_count;
    return n;
}

cna_result cna__layers_create(cna_character *c, size_t layer_count)
{
    const cna_model *m = c->model;
    cna__blend *b = &c->blend;
    c->layers = (cna__layer *)cna__character_take(c, layer_count, sizeof(cna__layer));
    /* cursor_first and ref_first in one block (read together by every blended pose) */
    b->cursor_first = (size_t *)cna__character_take(c, 2 * (c->eval_count + 2), sizeof(size_t));
    if (!c->layers || !b->cursor_first) return CNA_ERROR_OUT_OF_MEMORY;
    b->ref_first = b->cursor_first + c->eval_count + 2;
    c->layer_count = layer_count;
    size_t cursors = 0, refs = 0, slots = m->bone_count;
    for (size_t e = 0; e < c->eval_count; e++) {
        const cna_model_skin *s = &m->skins[c->evals[e].skin];
        b->cursor_first[e] = cursors;
        b->ref_first[e] = refs;
        cursors += largest_tracks(s->data.clips, s->data.clip_count);
        refs += s->joint_count;
        if (s->joint_count > slots) slots = s->joint_count;
    }
    b->cursor_first[c->eval_count] = cursors;
    b->ref_first[c->eval_count] = refs;
    cursors += largest_tracks(m->node_clips, m->node_clips ? m->animation_count : 0);
    refs += m->bone_count;
    b->cursor_first[c->eval_count + 1] = cursors;
    b->ref_first[c->eval_count + 1] = refs;
    b->cursor_count = cursors;
    b->ref_count = refs;
    b->slot_count = slots;
    b->path = cna__player_default_path();
    for (size_t l = 0; l < layer_count; l++) {
        cna__layer *L = &c->layers[l];
        cna__clock_init(&L->clock, 0);
        L->animation = -1;
        L->weight = l == 0 ? 1.0f : 0.0f;
        L->mode = CNA_BLEND_MODE_OVERRIDE;
        L->ref_animation = -1;
        L->motion_bone = -1;
        L->masked_for = -2;
    }
    cna__motion_identity(&c->motion);
    return CNA_OK;
}

/* Layer l's own track states: layer 0 samples the skeletons with its
 * players' state (the same clips at the same position) and keeps only the
 * scene-node clip's. */
static size_t own_states(const cna_character *c, size_t l)
{
    const cna__blend *b = &c->blend;
    return l == 0 ? b->cursor_count - b->cursor_first[c->eval_count] : b->cursor_count;
}

static void reset_states(cna_character *c, size_t l)
{
    const cna_model *m = c->model;
    cna__layer *L = &c->layers[l];
    const cna__blend *b = &c->blend;
    for (size_t e = l == 0 ? c->eval_count : 0; e <= c->eval_count; e++) {
        const cna_clip *clip = NULL;
        if (L->animation >= 0)
            clip = e < c->eval_count ? &m->skins[c->evals[e].skin].data.clips[L->animation]
                                     : (m->node_clips ? &m->node_clips[L->animation] : NULL);
        cna__track_states_start(clip, cna__layer_states(c, l, e), b->cursor_first[e + 1] - b->cursor_first[e],
                                &L->windows[e]);
    }
}

cna_result cna__blend_ensure(cna_character *c, cna_error *err)
{
    cna__blend *b = &c->blend;
    if (b->ready) return CNA_OK;
    const cna_model *m = c->model;
    const cna_allocator *a = &c->alloc;
    const size_t slots = b->slot_count ? b->slot_count : 1;
    size_t targets = 1;
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++)
            if (m->meshes[i].parts[k].morph && m->meshes[i].parts[k].morph->target_count > targets)
                targets = m->meshes[i].parts[k].morph->target_count;
    /* more slots than the posing thread's scratch holds: buffers of its own */
    const bool own_buffers = slots > CNA__BLEND_SCRATCH_SLOTS;
    size_t bytes = 2 * targets * sizeof(float);
    if (own_buffers) bytes += slots * (2 * sizeof(cna_keyframe) + sizeof(float) + sizeof(int32_t) + 1);
    cna__blend n = *b;
    n.weights = (float *)cna__calloc(a, targets, sizeof(float));
    n.weights2 = (float *)cna__calloc(a, targets, sizeof(float));
    bool ok = n.weights && n.weights2;
    /* the transition snapshot: a value per reference slot, a flag per bone,
     * the morphed parts' weights */
    const size_t flat = c->part_first ? c->part_first[m->mesh_count] : 0;
    size_t snap_targets = 0;
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++)
            if (m->meshes[i].parts[k].morph) snap_targets += m->meshes[i].parts[k].morph->target_count;
    const size_t refs = b->ref_count ? b->ref_count : 1;
    bytes += refs * (sizeof(cna_keyframe) + sizeof(cna_quat) + 1) + (m->bone_count ? m->bone_count : 1) +
             (snap_targets ? snap_targets : 1) * sizeof(float) + (flat + 1) * sizeof(size_t);
    if (ok) {
        n.snap = (cna_keyframe *)cna__calloc(a, refs, sizeof(cna_keyframe));
        n.snap_prev = (cna_quat *)cna__calloc(a, refs, sizeof(cna_quat));
        n.snap_has = (uint8_t *)cna__calloc(a, refs, 1);
        n.snap_bone = (uint8_t *)cna__calloc(a, m->bone_count ? m->bone_count : 1, 1);
        n.snap_weights = (float *)cna__calloc(a, snap_targets ? snap_targets : 1, sizeof(float));
        n.snap_wfirst = (size_t *)cna__calloc(a, flat + 1, sizeof(size_t));
        ok = n.snap && n.snap_prev && n.snap_has && n.snap_bone && n.snap_weights && n.snap_wfirst;
    }
    if (ok) {
        size_t off = 0;
        for (size_t i = 0; i < m->mesh_count; i++)
            for (size_t k = 0; k < m->meshes[i].part_count; k++) {
                n.snap_wfirst[c->part_first[i] + k] = off;
                if (m->meshes[i].parts[k].morph) off += m->meshes[i].parts[k].morph->target_count;
            }
        n.snap_wfirst[flat] = off;
    }
    if (ok && own_buffers) {
        n.acc = (cna_keyframe *)cna__calloc(a, slots, sizeof(cna_keyframe));
        n.sample = (cna_keyframe *)cna__calloc(a, slots, sizeof(cna_keyframe));
        n.cum = (float *)cna__calloc(a, slots, sizeof(float));
        n.touched = (int32_t *)cna__calloc(a, slots, sizeof(int32_t));
        n.has = (uint8_t *)cna__calloc(a, slots, 1);
        ok = n.acc && n.sample && n.cum && n.touched && n.has;
    }
    /* every layer's arcs windows, then its track states, in one block: a
     * blended pose reads those of its playing layers together */
    const size_t windows = c->layer_count * (c->eval_count + 1);
    size_t states = 0;
    for (size_t l = 0; l < c->layer_count; l++) {
        const size_t own = own_states(c, l);
        states += own ? own : 1;
    }
    size_t wbytes = 0, sbytes = 0, block = 0;
    if (!cna__mul_size(windows, sizeof(cna__arcs_window), &wbytes) ||
        !cna__mul_size(states, sizeof(cna__track_state), &sbytes) || !cna__add_size(wbytes, sbytes, &block))
        ok = false; /* not for a model that loaded: its tracks are in memory */
    bytes += block;
    if (ok) {
        n.states_block = cna__calloc(a, 1, block);
        ok = n.states_block != NULL;
    }
    if (!ok) {
        cna__free(a, n.acc);
        cna__free(a, n.sample);
        cna__free(a, n.cum);
        cna__free(a, n.touched);
        cna__free(a, n.has);
        cna__free(a, n.weights);
        cna__free(a, n.weights2);
        cna__free(a, n.snap);
        cna__free(a, n.snap_prev);
        cna__free(a, n.snap_has);
        cna__free(a, n.snap_bone);
        cna__free(a, n.snap_weights);
        cna__free(a, n.snap_wfirst);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "character: out of memory for blending (%zu bytes)", bytes);
    }
    n.ready = true;
    *b = n;
    cna__arcs_window *w = (cna__arcs_window *)n.states_block;
    cna__track_state *t = (cna__track_state *)(void *)(w + windows);
    for (size_t l = 0; l < c->layer_count; l++) {
        const size_t own = own_states(c, l);
        c->layers[l].windows = w + l * (c->eval_count + 1);
        c->layers[l].tracks = t;
        t += own ? own : 1;
        reset_states(c, l);
    }
    c->bytes += bytes;
    return CNA_OK;
}

void cna__layers_free(cna_character *c)
{
    const cna_allocator *a = &c->alloc;
    cna__blend *b = &c->blend;
    for (size_t l = 0; c->layers && l < c->layer_count; l++) {
        cna__free(a, c->layers[l].masked_clips); /* mask_store too */
        cna__free(a, c->layers[l].ref);
        cna__free(a, c->layers[l].ref_has);
        cna__free(a, c->layers[l].bs); /* its weights and sampling states too */
    }
    cna__free(a, c->layers);
    cna__free(a, b->cursor_first); /* ref_first too */
    cna__free(a, b->states_block);
    cna__free(a, b->acc);
    cna__free(a, b->cum);
    cna__free(a, b->touched);
    cna__free(a, b->sample);
    cna__free(a, b->has);
    cna__free(a, b->weights);
    cna__free(a, b->weights2);
    cna__free(a, b->snap);
    cna__free(a, b->snap_prev);
    cna__free(a, b->snap_has);
    cna__free(a, b->snap_bone);
    cna__free(a, b->snap_weights);
    cna__free(a, b->snap_wfirst);
}

cna__track_state *cna__layer_states(cna_character *c, size_t layer, size_t space)
{
    const size_t first = c->blend.cursor_first[space];
    if (layer == 0) return c->layers[0].tracks + (first - c->blend.cursor_first[c->eval_count]);
    return c->layers[layer].tracks + first;
}

bool cna__layers_single(const cna_character *c)
{
    const cna__layer *l0 = &c->layers[0];
    if (c->blend.snap_weight > 0.0f) return false; /* a transition's snapshot is mixed in */
    if (l0->weight != 1.0f || l0->mask || l0->mode != CNA_BLEND_MODE_OVERRIDE ||
        l0->motion_mode != CNA_ROOT_MOTION_NONE || l0->space)
        return false;
    for (size_t l = 1; l < c->layer_count; l++)
        if (c->layers[l].animation >= 0 && c->layers[l].weight > 0.0f) return false;
    return true;
}

/* ------------------------------------------------------------------ checks */

cna_result cna__character_busy(const cna_character *c, cna_error *err)
{
    if (c && c->in_listener)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "character: a call that changes the character was made from its event listener "
                          "(a listener may only read the character); nothing changed");
    return CNA_OK;
}

static cna_result check_layer(const cna_character *c, size_t layer, cna_error *err)
{
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    cna_result r = cna__character_busy(c, err);
    if (r != CNA_OK) return r;
    if (layer >= c->layer_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu is outside 0..%zu", layer, c->layer_count - 1);
    return CNA_OK;
}

static cna_result check_animation(const cna_character *c, long animation, cna_error *err)
{
    const cna_model *m = c->model;
    if (animation < -1 || (animation >= 0 && (size_t)animation >= m->animation_count))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "animation %ld is outside -1..%ld", animation,
                          (long)m->animation_count - 1);
    for (size_t e = 0; animation >= 0 && e < c->eval_count; e++) {
        const cna_skinning_data *d = &m->skins[c->evals[e].skin].data;
        if (!d->clips || (size_t)animation >= d->clip_count)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "skins[%d]: no clip %ld (the skin has %zu)",
                              (int)c->evals[e].skin, animation, d->clip_count);
    }
    return CNA_OK;
}

static const cna__layer *layer_of(const cna_character *c, size_t layer)
{
    return c && layer < c->layer_count ? &c->layers[layer] : NULL;
}

/* ------------------------------------------------------------------ root motion helpers */

void cna__motion_identity(cna_root_motion *m)
{
    memset(m, 0, sizeof *m);
    m->rotation[3] = 1.0;
}

/* The track of `bone` in animation `animation` (the last one, as a player
 * lets a later track win), or NULL. */
static const cna_bone_track *motion_track(const cna_character *c, long animation, int32_t bone)
{
    const cna_model *m = c->model;
    if (animation < 0 || bone < 0) return NULL;
    const cna_bone_track *found = NULL;
    for (size_t e = 0; e < c->eval_count; e++) {
        const cna_model_skin *s = &m->skins[c->evals[e].skin];
        const int32_t p = s->node_to_palette ? s->node_to_palette[bone] : -1;
        if (p < 0) continue;
        const cna_clip *clip = &s->data.clips[animation];
        for (size_t i = 0; clip->tracks && i < clip->track_count; i++)
            if (clip->tracks[i].bone == p && clip->tracks[i].keys && clip->tracks[i].key_count > 0)
                found = &clip->tracks[i];
        if (found) return found;
    }
    if (!m->node_clips) return NULL;
    const cna_clip *clip = &m->node_clips[animation];
    for (size_t i = 0; clip->tracks && i < clip->track_count; i++)
        if (clip->tracks[i].bone == bone && clip->tracks[i].keys && clip->tracks[i].key_count > 0)
            found = &clip->tracks[i];
    return found;
}

static void motion_bind(cna_character *c, cna__layer *L)
{
    L->motion_track = NULL;
    if (L->motion_mode == CNA_ROOT_MOTION_NONE) return;
    L->motion_track = motion_track(c, L->animation, L->motion_bone);
    if (L->motion_track) cna_track_sample_linear(L->motion_track, 0, &L->motion_start);
}

/* ------------------------------------------------------------------ playing */

cna_result cna__layer_play(cna_character *c, size_t layer, long animation, cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r == CNA_OK) r = check_animation(c, animation, err);
    if (r == CNA_OK && layer > 0 && animation >= 0) r = cna__blend_ensure(c, err);
    if (r != CNA_OK) return r;
    const cna_model *m = c->model;
    cna__layer *L = &c->layers[layer];
    if (layer == 0) {
        for (size_t e = 0; e < c->eval_count; e++) {
            const cna_skinning_data *d = &m->skins[c->evals[e].skin].data;
            r = animation >= 0 ? cna_player_start_clip(c->evals[e].player, &d->clips[animation], err)
                               : cna_player_stop(c->evals[e].player, err);
            if (r != CNA_OK) return r; /* not reached: the largest clip's state was grown at create */
        }
        if (animation >= 0 && m->node_clips)
            memset(c->node_cursor, 0, m->node_clips[animation].track_count * sizeof(size_t));
    }
    const cna_loop_mode mode = L->clock.mode;
    const double scale = L->clock.scale;
    int64_t duration = animation >= 0 && m->node_clips ? m->node_clips[animation].duration : 0;
    cna__clock_init(&L->clock, duration);
    L->clock.mode = mode;
    L->clock.scale = scale;
    L->animation = animation;
    L->space = NULL; /* a blend space it played is replaced */
    if (L->bs) {
        L->bs->active_count = 0;
        L->bs->phase = 0.0;
    }
    if (L->tracks) reset_states(c, layer);
    if (L->ref && L->ref_animation < 0) cna__blend_sample_reference(c, layer);
    motion_bind(c, L);
    cna__motion_identity(&L->motion);
    cna__motion_identity(&c->motion);
    return CNA_OK;
}

cna_result cna_character_layer_play(cna_character *c, size_t layer, long animation, cna_error *err)
{
    return cna__layer_play(c, layer, animation, err);
}

size_t cna_character_layer_count(const cna_character *c) { return c ? c->layer_count : 0; }

long cna_character_layer_animation(const cna_character *c, size_t layer)
{
    const cna__layer *L = layer_of(c, layer);
    return L ? L->animation : -1;
}

static bool weight_ok(float w) { return w >= 0.0f && w <= 1.0f; } /* false for NaN */

cna_result cna_character_layer_set_weight(cna_character *c, size_t layer, float weight, cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    if (!weight_ok(weight))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: weight %g is outside 0..1", layer,
                          (double)weight);
    if (layer == 0 && weight != 1.0f && (r = cna__blend_ensure(c, err)) != CNA_OK) return r;
    c->layers[layer].weight = weight;
    c->layers[layer].fade_total = 0;
    return CNA_OK;
}

float cna_character_layer_weight(const cna_character *c, size_t layer)
{
    const cna__layer *L = layer_of(c, layer);
    return L ? L->weight : 0.0f;
}

cna_result cna_character_layer_set_loop_mode(cna_character *c, size_t layer, cna_loop_mode mode, cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    if ((int)mode < 0 || mode >= CNA_LOOP_MODE_COUNT)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "loop mode: %d is not a cna_loop_mode", (int)mode);
    cna__clock_set_mode(&c->layers[layer].clock, mode);
    return CNA_OK;
}

cna_loop_mode cna_character_layer_loop_mode(const cna_character *c, size_t layer)
{
    const cna__layer *L = layer_of(c, layer);
    return L ? L->clock.mode : CNA_LOOP_MODE_REPEAT;
}

cna_result cna_character_layer_set_time_scale(cna_character *c, size_t layer, double scale, cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    if (!isfinite(scale))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "time scale: %g is not finite", scale);
    c->layers[layer].clock.scale = scale;
    return CNA_OK;
}

double cna_character_layer_time_scale(const cna_character *c, size_t layer)
{
    const cna__layer *L = layer_of(c, layer);
    return L ? L->clock.scale : 1.0;
}

cna_result cna_character_layer_seek(cna_character *c, size_t layer, double seconds, cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    if (isnan(seconds)) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "seek: time is NaN");
    cna__clock *k = &c->layers[layer].clock;
    const int64_t ticks = cna_ticks_from_seconds(seconds);
    cna__clock_seek(k, ticks);
    if (k->position == ticks) {
        k->seek_seconds = seconds;
        k->seek_exact = true;
    }
    if (c->layers[layer].space) cna__space_seek(c, layer, ticks);
    cna__motion_identity(&c->layers[layer].motion);
    cna__motion_identity(&c->motion);
    return CNA_OK;
}

cna_result cna_character_layer_seek_ticks(cna_character *c, size_t layer, int64_t ticks, cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    cna__clock_seek(&c->layers[layer].clock, ticks);
    if (c->layers[layer].space) cna__space_seek(c, layer, ticks);
    cna__motion_identity(&c->layers[layer].motion);
    cna__motion_identity(&c->motion);
    return CNA_OK;
}

int64_t cna_character_layer_position(const cna_character *c, size_t layer)
{
    const cna__layer *L = layer_of(c, layer);
    return L ? L->clock.position : 0;
}

int64_t cna_character_layer_duration(const cna_character *c, size_t layer)
{
    const cna__layer *L = layer_of(c, layer);
    return L ? L->clock.duration : 0;
}

double cna_character_layer_time(const cna_character *c, size_t layer)
{
    const cna__layer *L = layer_of(c, layer);
    return L ? cna_ticks_to_seconds(L->clock.position) : 0.0;
}

/* ------------------------------------------------------------------ blend mode, reference, mask */

static cna_result ensure_reference(cna_character *c, cna__layer *L)
{
    if (L->ref) return CNA_OK;
    cna_keyframe *ref = (cna_keyframe *)cna__calloc(&c->alloc, c->blend.ref_count ? c->blend.ref_count : 1,
                                                     sizeof(cna_keyframe));
    uint8_t *has = (uint8_t *)cna__calloc(&c->alloc, c->blend.ref_count ? c->blend.ref_count : 1, 1);
    if (!ref || !has) {
        cna__free(&c->alloc, ref);
        cna__free(&c->alloc, has);
        return CNA_ERROR_OUT_OF_MEMORY;
    }
    c->bytes += c->blend.ref_count * (sizeof(cna_keyframe) + 1);
    L->ref = ref;
    L->ref_has = has;
    return CNA_OK;
}

cna_result cna_character_layer_set_blend_mode(cna_character *c, size_t layer, cna_blend_mode mode, cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    if ((int)mode < 0 || mode >= CNA_BLEND_MODE_COUNT)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: blend mode %d is not a cna_blend_mode", layer,
                          (int)mode);
    cna__layer *L = &c->layers[layer];
    if (mode == CNA_BLEND_MODE_ADDITIVE) {
        if ((r = cna__blend_ensure(c, err)) != CNA_OK) return r;
        const bool fresh = !L->ref;
        if (ensure_reference(c, L) != CNA_OK)
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "layer %zu: out of memory for the reference pose", layer);
        if (fresh) cna__blend_sample_reference(c, layer);
    }
    L->mode = mode == CNA_BLEND_MODE_DEFAULT ? CNA_BLEND_MODE_OVERRIDE : mode;
    return CNA_OK;
}

cna_blend_mode cna_character_layer_blend_mode(const cna_character *c, size_t layer)
{
    const cna__layer *L = layer_of(c, layer);
    return L ? L->mode : CNA_BLEND_MODE_OVERRIDE;
}

cna_result cna_character_layer_set_additive_reference(cna_character *c, size_t layer, long animation,
                                                      double seconds, cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r == CNA_OK) r = check_animation(c, animation, err);
    if (r != CNA_OK) return r;
    if (isnan(seconds))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: reference time is NaN", layer);
    cna__layer *L = &c->layers[layer];
    if ((r = cna__blend_ensure(c, err)) != CNA_OK) return r;
    if (ensure_reference(c, L) != CNA_OK)
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "layer %zu: out of memory for the reference pose", layer);
    L->ref_animation = animation;
    L->ref_seconds = seconds;
    cna__blend_sample_reference(c, layer);
    return CNA_OK;
}

cna_result cna_character_layer_set_mask(cna_character *c, size_t layer, const float *weights, size_t count,
                                        cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    cna__layer *L = &c->layers[layer];
    const size_t n = c->model->bone_count;
    if (!weights) {
        if (count != 0)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: mask NULL with count %zu", layer, count);
        L->mask = NULL;
        return CNA_OK;
    }
    if (count != n)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: mask count %zu differs from bone_count %zu",
                          layer, count, n);
    for (size_t b = 0; b < n; b++)
        if (!weight_ok(weights[b]))
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "mask[%zu]: weight %g is outside 0..1", b,
                              (double)weights[b]);
    if ((r = cna__blend_ensure(c, err)) != CNA_OK) return r;
    if (!L->mask_store) {
        /* one block: the masked clips of every space, their tracks, the weights */
        const size_t spaces = c->eval_count + 1, tracks = c->blend.cursor_count;
        size_t cb = 0, tb = 0, bytes = 0;
        const bool sized = cna__mul_size(spaces, sizeof(cna_clip), &cb) &&
                           cna__mul_size(tracks, sizeof(cna_bone_track), &tb) && cna__add_size(cb, tb, &bytes) &&
                           cna__add_size(bytes, (n ? n : 1) * sizeof(float), &bytes);
        cna_clip *block = sized ? (cna_clip *)cna__calloc(&c->alloc, 1, bytes) : NULL;
        if (!block) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "layer %zu: out of memory for the mask", layer);
        L->masked_clips = block;
        L->masked_tracks = (cna_bone_track *)(void *)(block + spaces);
        L->mask_store = (float *)(void *)(L->masked_tracks + tracks);
        c->bytes += bytes;
    }
    if (n) memcpy(L->mask_store, weights, n * sizeof(float));
    L->mask = L->mask_store;
    L->masked_for = -2; /* the masked clips made again at the next pose */
    return CNA_OK;
}

const float *cna_character_layer_mask(const cna_character *c, size_t layer)
{
    const cna__layer *L = layer_of(c, layer);
    return L ? L->mask : NULL;
}

cna_result cna_model_mask_subtree(const cna_model *model, const char *bone_name, float weight, float *mask,
                                  size_t count, cna_error *err)
{
    if (!model || !bone_name || !mask)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "mask: %s is NULL",
                          !model ? "model" : !bone_name ? "bone name" : "mask");
    if (count < model->bone_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "mask: count %zu is below bone_count %zu", count,
                          model->bone_count);
    if (!weight_ok(weight))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "mask: weight %g is outside 0..1", (double)weight);
    const int32_t root = cna_model_find_bone(model, bone_name);
    if (root < 0) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "mask: no bone named \"%s\"", bone_name);
    for (size_t b = 0; b < model->bone_count; b++)
        for (int32_t x = (int32_t)b; x >= 0; x = model->bones[x].parent)
            if (x == root) {
                mask[b] = weight;
                break;
            }
    return CNA_OK;
}

/* ------------------------------------------------------------------ fades */

static cna_result fade(cna_character *c, size_t layer, float target, double seconds, cna_error *err)
{
    cna__layer *L = &c->layers[layer];
    const int64_t total = cna_ticks_from_seconds(seconds);
    if (total <= 0) {
        L->weight = target;
        L->fade_total = 0;
        return CNA_OK;
    }
    L->fade_from = L->weight;
    L->fade_to = target;
    L->fade_elapsed = 0;
    L->fade_total = total;
    (void)err;
    return CNA_OK;
}

cna_result cna_character_layer_fade(cna_character *c, size_t layer, float target, double seconds, cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    if (!weight_ok(target))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: fade target %g is outside 0..1", layer,
                          (double)target);
    if (!isfinite(seconds))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: fade time %g is not finite", layer, seconds);
    if (layer == 0 && (r = cna__blend_ensure(c, err)) != CNA_OK) return r;
    return fade(c, layer, target, seconds, err);
}

/* Whether a crossfade from `from` to `to` interrupts a transition: a
 * snapshot is fading, either layer is fading, or `to` shows a pose now
 * (it plays with a weight above 0), so that restarting it at weight 0
 * would drop what it shows. */
static bool interrupts(const cna_character *c, size_t from, size_t to)
{
    const cna__layer *F = &c->layers[from], *T = &c->layers[to];
    if (c->blend.snap_weight > 0.0f) return true;
    if (F->mode != CNA_BLEND_MODE_OVERRIDE || T->mode != CNA_BLEND_MODE_OVERRIDE) return false;
    return F->fade_total > 0 || T->fade_total > 0 || (T->animation >= 0 && T->weight > 0.0f);
}

/* Mark the bones the new snapshot covers: those the snapshot in progress
 * covers, and every bone where `from`, `to` or a layer fading out to 0
 * (the layers the interruption changes) has a mask weight above 0 (every
 * bone for a layer without a mask). */
static void snapshot_bones(cna_character *c, size_t from, size_t to)
{
    const size_t bones = c->model->bone_count;
    uint8_t *mark = c->blend.snap_bone;
    if (!(c->blend.snap_weight > 0.0f)) memset(mark, 0, bones);
    for (size_t l = 0; l < c->layer_count; l++) {
        const cna__layer *L = &c->layers[l];
        const bool changed = l == from || l == to ||
                             (L->mode == CNA_BLEND_MODE_OVERRIDE && L->fade_total > 0 && L->fade_to == 0.0f);
        if (!changed) continue;
        for (size_t b = 0; b < bones; b++)
            if (!L->mask || L->mask[b] > 0.0f) mark[b] = 1;
    }
}

/* A layer an interruption takes out: weight 0 at once, its fade ended,
 * stopped unless it keeps running (no events: its pose lives on in the
 * snapshot). */
static void end_outgoing(cna_character *c, size_t l)
{
    cna__layer *L = &c->layers[l];
    L->weight = 0.0f;
    L->fade_total = 0;
    if (!L->keep_running && L->animation >= 0) (void)cna__layer_play(c, l, -1, NULL);
}

cna_result cna_character_crossfade(cna_character *c, size_t from, size_t to, long animation, double seconds,
                                   unsigned flags, cna_error *err)
{
    cna_result r = check_layer(c, from, err);
    if (r == CNA_OK) r = check_layer(c, to, err);
    if (r == CNA_OK) r = check_animation(c, animation, err);
    if (r != CNA_OK) return r;
    if (from == to)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "crossfade: from and to are both layer %zu", from);
    if (!isfinite(seconds))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "crossfade: time %g is not finite", seconds);
    if (flags & ~CNA_CROSSFADE_SYNC_PHASE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "crossfade: unknown flags 0x%x",
                          flags & ~CNA_CROSSFADE_SYNC_PHASE);
    if ((r = cna__blend_ensure(c, err)) != CNA_OK) return r;
    const bool interrupting = seconds > 0.0 && interrupts(c, from, to);
    if (interrupting) {
        /* the pose shown now; the bones the snapshot will cover: those the
         * snapshot in progress covers, and those the changed layers reach */
        cna__blend_capture(c, 0);
        snapshot_bones(c, from, to);
    }
    if (seconds <= 0.0) { /* a cut ends the transition in progress */
        c->blend.snap_weight = 0.0f;
        c->blend.snap_total = 0;
    }
    const cna__clock outgoing = c->layers[from].clock;
    if ((r = cna__layer_play(c, to, animation, err)) != CNA_OK) return r; /* checked above: cannot fail */
    if ((flags & CNA_CROSSFADE_SYNC_PHASE) && outgoing.duration > 0) {
        const cna__clock *k = &c->layers[to].clock;
        const double phase = (double)outgoing.position / (double)outgoing.duration;
        cna__clock_seek(&c->layers[to].clock, (int64_t)floor(phase * (double)k->duration));
    }
    if (interrupting) {
        /* the incoming layer plays whole at once, the outgoing ones end, and
         * the snapshot of the pose shown fades out over them */
        c->layers[to].weight = 1.0f;
        c->layers[to].fade_total = 0;
        end_outgoing(c, from);
        for (size_t l = 0; l < c->layer_count; l++) {
            const cna__layer *L = &c->layers[l];
            if (l != to && L->mode == CNA_BLEND_MODE_OVERRIDE && L->fade_total > 0 && L->fade_to == 0.0f)
                end_outgoing(c, l);
        }
        cna__blend_capture(c, 1);
        c->blend.snap_weight = 1.0f;
        c->blend.snap_elapsed = 0;
        c->blend.snap_total = cna_ticks_from_seconds(seconds);
        if (c->blend.snap_total <= 0) c->blend.snap_weight = 0.0f;
        return CNA_OK;
    }
    c->layers[to].weight = 0.0f;
    fade(c, to, 1.0f, seconds, err);
    fade(c, from, 0.0f, seconds, err);
    return CNA_OK;
}

float cna_character_transition_weight(const cna_character *c) { return c ? c->blend.snap_weight : 0.0f; }

cna_result cna_character_layer_set_keep_running(cna_character *c, size_t layer, bool keep, cna_error *err)
{
    const cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    c->layers[layer].keep_running = keep;
    return CNA_OK;
}

cna_result cna_character_layer_set_sync_group(cna_character *c, size_t layer, unsigned group, cna_error *err)
{
    const cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    c->layers[layer].sync_group = group;
    return CNA_OK;
}

unsigned cna_character_layer_sync_group(const cna_character *c, size_t layer)
{
    const cna__layer *L = layer_of(c, layer);
    return L ? L->sync_group : 0u;
}

/* A member of a sync group now: a layer of the group that plays an
 * animation of duration > 0 (not a blend space). */
static bool sync_member(const cna__layer *L, unsigned group)
{
    return L->sync_group == group && group != 0 && L->animation >= 0 && !L->space && L->clock.duration > 0;
}

/* The steps of the members of every sync group in this advance
 * (cna_character_layer_set_sync_group), written into steps[layer];
 * synced[layer] says which layers have one. */
static void sync_steps(cna_character *c, double seconds, bool scaled, int64_t ticks, int64_t *steps, bool *synced)
{
    for (size_t l = 0; l < c->layer_count; l++) synced[l] = false;
    for (size_t g = 0; g < c->layer_count; g++) {
        const unsigned group = c->layers[g].sync_group;
        if (!sync_member(&c->layers[g], group) || synced[g]) continue;
        bool first = true; /* g is the group's first member: the others follow */
        for (size_t l = 0; l < g && first; l++) first = !sync_member(&c->layers[l], group);
        if (!first) continue;
        size_t leader = g;
        double wsum = 0.0, wd = 0.0;
        for (size_t l = g; l < c->layer_count; l++) {
            const cna__layer *L = &c->layers[l];
            if (!sync_member(L, group)) continue;
            if (L->weight > c->layers[leader].weight) leader = l;
            wsum += (double)L->weight;
            wd += (double)L->weight * (double)L->clock.duration;
        }
        const cna__layer *lead = &c->layers[leader];
        const double D = wsum > 0.0 ? wd / wsum : (double)lead->clock.duration;
        const int64_t n = scaled ? cna_ticks_from_seconds(seconds * lead->clock.scale) : ticks;
        const double p = (double)lead->clock.position / (double)lead->clock.duration + (double)n / D;
        double wraps = floor(p), phase = p - wraps;
        if (phase >= 1.0) {
            phase = 0.0;
            wraps += 1.0;
        }
        /* loops beyond what events report do not change where a member ends */
        const double most = (double)CNA_EVENT_MAX_LOOPS + 1.0;
        if (wraps > most) wraps = most;
        if (wraps < -most) wraps = -most;
        for (size_t l = g; l < c->layer_count; l++) {
            cna__layer *L = &c->layers[l];
            if (!sync_member(L, group)) continue;
            const int64_t d = L->clock.duration;
            double to = floor(phase * (double)d);
            if (to >= (double)d) to = (double)(d - 1);
            if (to < 0.0) to = 0.0;
            const double step = wraps * (double)d + to - (double)L->clock.position;
            steps[l] = step > 9.0e18 ? INT64_MAX / 2 : (step < -9.0e18 ? INT64_MIN / 2 : (int64_t)step);
            synced[l] = true;
        }
    }
}

bool cna_character_layer_keep_running(const cna_character *c, size_t layer)
{
    const cna__layer *L = layer_of(c, layer);
    return L ? L->keep_running : false;
}

/* ------------------------------------------------------------------ events */

cna_result cna_character_set_event_listener(cna_character *c, cna_event_fn fn, void *user, cna_error *err)
{
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    const cna_result r = cna__character_busy(c, err);
    if (r != CNA_OK) return r;
    c->listener = fn;
    c->listener_user = fn ? user : NULL;
    return CNA_OK;
}

/* ------------------------------------------------------------------ root motion */

cna_result cna_character_layer_set_root_motion(cna_character *c, size_t layer, cna_root_motion_mode mode, long bone,
                                               cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    const cna_model *m = c->model;
    if ((int)mode < 0 || mode >= CNA_ROOT_MOTION_COUNT)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: root motion mode %d is not a cna_root_motion_mode",
                          layer, (int)mode);
    if (bone < -1 || (bone >= 0 && (size_t)bone >= m->bone_count))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: bone %ld is outside -1..%ld", layer, bone,
                          (long)m->bone_count - 1);
    int32_t b = (int32_t)bone;
    if (bone < 0 && mode != CNA_ROOT_MOTION_NONE) {
        const cna_model_skin *s = m->skin_count ? &m->skins[0] : NULL;
        b = s && s->root_count && s->palette_to_node ? s->palette_to_node[s->roots[0]] : -1;
        if (b < 0)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "layer %zu: the model has no skin root joint in the scene to take root motion from; "
                              "name a bone",
                              layer);
    }
    cna__layer *L = &c->layers[layer];
    if (mode != CNA_ROOT_MOTION_NONE && L->space)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "layer %zu: root motion is not extracted from a blend space; play an animation on the "
                          "layer first",
                          layer);
    if (mode != CNA_ROOT_MOTION_NONE && (r = cna__blend_ensure(c, err)) != CNA_OK) return r;
    L->motion_mode = mode;
    L->motion_bone = mode == CNA_ROOT_MOTION_NONE ? -1 : b;
    motion_bind(c, L);
    cna__motion_identity(&L->motion);
    return CNA_OK;
}

void cna_character_root_motion(const cna_character *c, cna_root_motion *out)
{
    if (c && out) *out = c->motion;
}

/* ------------------------------------------------------------------ advancing */

/* Rigid motions in double: x = (q, t) maps v to q·v + t. */
typedef cna_root_motion motion;

static void qmul(const double a[4], const double b[4], double out[4])
{
    const double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    const double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    const double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    const double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
    out[3] = w;
}

static void qrotate(const double q[4], const double v[3], double out[3])
{
    /* v + 2w(u x v) + 2u x (u x v) */
    const double ux = q[0], uy = q[1], uz = q[2], w = q[3];
    const double cx = uy * v[2] - uz * v[1], cy = uz * v[0] - ux * v[2], cz = ux * v[1] - uy * v[0];
    const double dx = uy * cz - uz * cy, dy = uz * cx - ux * cz, dz = ux * cy - uy * cx;
    out[0] = v[0] + 2.0 * (w * cx + dx);
    out[1] = v[1] + 2.0 * (w * cy + dy);
    out[2] = v[2] + 2.0 * (w * cz + dz);
}

/* out = a then b: (qa·qb, qa·tb + ta) */
static motion compose(const motion *a, const motion *b)
{
    motion o;
    qmul(a->rotation, b->rotation, o.rotation);
    double r[3];
    qrotate(a->rotation, b->translation, r);
    for (int i = 0; i < 3; i++) o.translation[i] = r[i] + a->translation[i];
    return o;
}

static motion inverse(const motion *a)
{
    motion o;
    o.rotation[0] = -a->rotation[0];
    o.rotation[1] = -a->rotation[1];
    o.rotation[2] = -a->rotation[2];
    o.rotation[3] = a->rotation[3];
    double r[3];
    qrotate(o.rotation, a->translation, r);
    for (int i = 0; i < 3; i++) o.translation[i] = -r[i];
    return o;
}

static motion power(motion x, uint64_t k)
{
    motion r;
    cna__motion_identity(&r);
    while (k) {
        if (k & 1) r = compose(&r, &x);
        k >>= 1;
        if (k) x = compose(&x, &x);
    }
    return r;
}

static void normalize4(double q[4])
{
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0.0)
        for (int i = 0; i < 4; i++) q[i] /= n;
    else {
        q[0] = q[1] = q[2] = 0.0;
        q[3] = 1.0;
    }
}

/* The extracted motion M(p) of the layer's track at position p. */
static motion motion_at(const cna__layer *L, int64_t p)
{
    cna_keyframe k;
    cna_track_sample_linear(L->motion_track, p, &k);
    motion o;
    o.translation[0] = k.translation.x;
    o.translation[1] = L->motion_mode == CNA_ROOT_MOTION_FULL ? k.translation.y : 0.0;
    o.translation[2] = k.translation.z;
    if (L->motion_mode == CNA_ROOT_MOTION_FULL) {
        o.rotation[0] = k.rotation.x;
        o.rotation[1] = k.rotation.y;
        o.rotation[2] = k.rotation.z;
        o.rotation[3] = k.rotation.w;
    } else { /* the twist about +Y */
        o.rotation[0] = 0.0;
        o.rotation[1] = k.rotation.y;
        o.rotation[2] = 0.0;
        o.rotation[3] = k.rotation.w;
    }
    normalize4(o.rotation);
    return o;
}

/* G(a, b) = M(a)^-1 · M(b) */
static motion between(const cna__layer *L, int64_t a, int64_t b)
{
    const motion ma = motion_at(L, a), mb = motion_at(L, b);
    const motion ia = inverse(&ma);
    return compose(&ia, &mb);
}

/* floor(a / d) for d > 0 */
static int64_t floor_div(int64_t a, int64_t d)
{
    int64_t q = a / d;
    if ((a % d != 0) && (a < 0)) q--;
    return q;
}

/* The motion a clock passes over moving by `ticks` from `before`. */
static motion layer_motion(const cna__layer *L, const cna__clock *before, int64_t ticks)
{
    const int64_t D = before->duration, p = before->position;
    motion o;
    if (D <= 0 || before->mode != CNA_LOOP_MODE_REPEAT) /* ONCE, PING_PONG: path-independent */
        return between(L, p, L->clock.position);
    if (ticks == 0) {
        cna__motion_identity(&o);
        return o;
    }
    /* wraps: whole loops passed; the sum p + ticks may overflow, so count loops separately */
    const int64_t whole = ticks / D, rest = ticks % D; /* ticks = whole·D + rest, |rest| < D */
    int64_t total = p + rest;                         /* in (-D, 2D) */
    int64_t wraps = whole + floor_div(total, D);
    const int64_t r = total - floor_div(total, D) * D;
    if (wraps == 0) return between(L, p, r);
    const motion loop = between(L, 0, D);
    if (wraps > 0) {
        const motion first = between(L, p, D), last = between(L, 0, r);
        const motion mid = power(loop, (uint64_t)(wraps - 1));
        o = compose(&first, &mid);
        return compose(&o, &last);
    }
    const motion back = inverse(&loop); /* D -> 0 */
    const motion first = between(L, p, 0), last = between(L, D, r);
    const motion mid = power(back, (uint64_t)(-(wraps + 1)));
    o = compose(&first, &mid);
    return compose(&o, &last);
}

static void slerp_d(const double a[4], const double b0[4], double t, double out[4])
{
    double b[4] = {b0[0], b0[1], b0[2], b0[3]};
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0.0) {
        d = -d;
        for (int i = 0; i < 4; i++) b[i] = -b[i];
    }
    double wa, wb;
    if (d > 1.0 - 1e-12) {
        wa = 1.0 - t;
        wb = t;
    } else {
        const double theta = acos(d), s = sin(theta);
        wa = sin((1.0 - t) * theta) / s;
        wb = sin(t * theta) / s;
    }
    for (int i = 0; i < 4; i++) out[i] = a[i] * wa + b[i] * wb;
    normalize4(out);
}

static void blend_motion(cna_character *c)
{
    motion acc;
    cna__motion_identity(&acc);
    double cum = 0.0;
    for (size_t l = 0; l < c->layer_count; l++) {
        const cna__layer *L = &c->layers[l];
        if (L->mode != CNA_BLEND_MODE_OVERRIDE || !L->motion_track || L->animation < 0) continue;
        double w = L->weight;
        if (L->mask && L->motion_bone >= 0) w *= L->mask[L->motion_bone];
        if (!(w > 0.0)) continue;
        if (cum == 0.0) {
            acc = L->motion;
            cum = w;
            continue;
        }
        cum += w;
        const double f = w / cum;
        for (int i = 0; i < 3; i++) acc.translation[i] = acc.translation[i] * (1.0 - f) + L->motion.translation[i] * f;
        slerp_d(acc.rotation, L->motion.rotation, f, acc.rotation);
    }
    if (cum > 0.0 && cum < 1.0) {
        const double f = 1.0 - cum;
        motion id;
        cna__motion_identity(&id);
        for (int i = 0; i < 3; i++) acc.translation[i] *= 1.0 - f;
        slerp_d(acc.rotation, id.rotation, f, acc.rotation);
    }
    c->motion = acc;
}

static int64_t saturating_abs(int64_t v) { return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v; }

/* Report a lifecycle event of layer l (FADE_FINISHED, LAYER_STOPPED). */
static void emit_layer(cna_character *c, size_t l, cna_event_kind kind, long animation, int64_t ticks)
{
    cna_event e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.layer = l;
    e.animation = animation;
    e.ticks = ticks;
    e.weight = c->layers[l].weight;
    c->in_listener = true;
    c->listener(&e, c->listener_user);
    c->in_listener = false;
}

/* Move layer L's fade by fade_ticks; true when it reached its target now. */
static bool fade_step(cna__layer *L, int64_t fade_ticks)
{
    if (L->fade_total <= 0) return false;
    L->fade_elapsed = fade_ticks >= L->fade_total - L->fade_elapsed ? L->fade_total : L->fade_elapsed + fade_ticks;
    if (L->fade_elapsed >= L->fade_total) {
        L->weight = L->fade_to;
        L->fade_total = 0;
        return true;
    }
    const float f = (float)((double)L->fade_elapsed / (double)L->fade_total);
    L->weight = L->fade_from + (L->fade_to - L->fade_from) * f;
    if (!weight_ok(L->weight)) L->weight = L->fade_to; /* rounding beyond the ends */
    return false;
}

/* Move layer l's clock by `step` ticks and report what it crosses; true
 * when the layer extracts root motion (its motion of this step is set). */
static bool advance_clock(cna_character *c, size_t l, int64_t step)
{
    cna__layer *L = &c->layers[l];
    const cna__clock before = L->clock;
    cna__clock_events ev;
    const cna__clock_events *events = NULL;
    if (c->listener && L->animation >= 0) {
        ev.markers = cna_model_markers(c->model, (size_t)L->animation, &ev.marker_count);
        ev.layer = l;
        ev.animation = L->animation;
        ev.weight = L->weight;
        ev.fn = c->listener;
        ev.user = c->listener_user;
        events = &ev;
    }
    c->in_listener = events != NULL;
    cna__clock_advance(&L->clock, step, events);
    c->in_listener = false;
    if (!(L->motion_track && L->animation >= 0)) return false;
    L->motion = layer_motion(L, &before, step);
    return true;
}

/* The steps of one layer in an advance (include/cna/character.h, "events":
 * fade, clock and its events, FADE_FINISHED, LAYER_STOPPED). */
void cna__layers_advance(cna_character *c, double seconds, bool scaled, int64_t ticks)
{
    const int64_t fade_ticks = saturating_abs(scaled ? cna_ticks_from_seconds(seconds) : ticks);
    bool moved = false;
    cna__blend *b = &c->blend;
    if (b->snap_total > 0) { /* the transition's snapshot fades out as a fade to 0 */
        b->snap_elapsed = fade_ticks >= b->snap_total - b->snap_elapsed ? b->snap_total : b->snap_elapsed + fade_ticks;
        if (b->snap_elapsed >= b->snap_total) {
            b->snap_weight = 0.0f;
            b->snap_total = 0;
        } else {
            b->snap_weight = 1.0f - (float)((double)b->snap_elapsed / (double)b->snap_total);
            if (!(b->snap_weight > 0.0f && b->snap_weight <= 1.0f)) b->snap_weight = 0.0f;
            if (b->snap_weight == 0.0f) b->snap_total = 0;
        }
    }
    int64_t steps[CNA_CHARACTER_MAX_LAYERS];
    bool synced[CNA_CHARACTER_MAX_LAYERS];
    bool any_group = false;
    for (size_t l = 0; l < c->layer_count; l++) any_group |= c->layers[l].sync_group != 0;
    if (any_group) sync_steps(c, seconds, scaled, ticks, steps, synced);
    for (size_t l = 0; l < c->layer_count; l++) {
        cna__layer *L = &c->layers[l];
        const int64_t step = any_group && synced[l] ? steps[l]
                             : scaled              ? cna_ticks_from_seconds(seconds * L->clock.scale)
                                                   : ticks;
        const bool faded = fade_step(L, fade_ticks);
        if (L->space)
            cna__space_advance(c, l, step);
        else if (advance_clock(c, l, step))
            moved = true;
        if (!faded) continue;
        if (c->listener) emit_layer(c, l, CNA_EVENT_FADE_FINISHED, L->animation, L->clock.position);
        if (L->weight == 0.0f && L->animation >= 0 && !L->keep_running) {
            const long played = L->animation;
            const int64_t at = L->clock.position;
            (void)cna__layer_play(c, l, -1, NULL); /* stopping cannot fail */
            if (c->listener) emit_layer(c, l, CNA_EVENT_LAYER_STOPPED, played, at);
        }
    }
    if (moved) blend_motion(c);
    else cna__motion_identity(&c->motion);
}
