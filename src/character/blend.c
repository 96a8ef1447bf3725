/*
 * The blended pose of a character (include/cna/character.h, "layers"): the
 * layers' samples accumulated per value by the override rule, the rest
 * value mixed in for the remainder, the additive layers applied, the
 * result composed. A pose of layer 0 alone (weight 1, no mask) never comes
 * here: its players pose it (src/character/character.c).
 */
#include <math.h>
#include <string.h>

#include "anim/anim_internal.h"
#include "character/character_internal.h"
#include "core/internal.h"

/* ------------------------------------------------------------------ values */

/* local constructors (the library's are out of line) */
static inline cna_vec3 v3(float x, float y, float z)
{
    cna_vec3 v;
    v.x = x;
    v.y = y;
    v.z = z;
    return v;
}

static inline cna_quat q4(float x, float y, float z, float w)
{
    cna_quat q;
    q.x = x;
    q.y = y;
    q.z = z;
    q.w = w;
    return q;
}

static cna_vec3 lerp3(cna_vec3 a, cna_vec3 b, float f)
{
    const float g = 1.0f - f;
    return v3(a.x * g + b.x * f, a.y * g + b.y * f, a.z * g + b.z * f);
}

/* Hamilton product a · b (apply b, then a) */
static cna_quat qmul(cna_quat a, cna_quat b)
{
    return q4(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                         a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                         a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                         a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}

/* conjugate(r) · k, its terms paired so that k == r gives (0, 0, 0, |r|²)
 * exactly: each pair is the same two products with opposite signs. */
static cna_quat delta_q(cna_quat r, cna_quat k)
{
    return q4((r.w * k.x - r.x * k.w) + (r.z * k.y - r.y * k.z),
                         (r.w * k.y - r.y * k.w) + (r.x * k.z - r.z * k.x),
                         (r.w * k.z - r.z * k.w) + (r.y * k.x - r.x * k.y),
                         r.w * k.w + r.x * k.x + r.y * k.y + r.z * k.z);
}

static cna_quat qconj(cna_quat q) { return q4(-q.x, -q.y, -q.z, q.w); }


static bool is_identity_q(cna_quat q) { return q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && q.w == 1.0f; }
static bool is_zero3(cna_vec3 v) { return v.x == 0.0f && v.y == 0.0f && v.z == 0.0f; }

static void reset(cna__blend *b)
{
    for (size_t i = 0; i < b->touched_count; i++) b->cum[b->touched[i]] = 0.0f;
    b->touched_count = 0;
}

/* Slerps waiting for their arcs: up to eight are made at once
 * (cna__arc_make8: the same bits as cna_quat_slerp), then applied. Each
 * slot appears at most once per batch. */
typedef struct pending {
    int32_t slot[8];
    cna_quat from[8], to[8];
    float f[8];
    size_t n;
} pending;

/* Make the queued arcs eight at a time and apply the slerps: an override
 * mix sets the rotation to slerp(from, to, f); an additive one (from the
 * identity) multiplies the rotation by it. */
static void flush(cna__blend *b, pending *p, bool additive)
{
    if (!p->n) return;
    const cna_quat *from[8], *to[8];
    cna__arc arcs[8];
    cna__arc *out[8];
    for (size_t i = 0; i < p->n; i++) {
        from[i] = &p->from[i];
        to[i] = &p->to[i];
        out[i] = &arcs[i];
    }
    cna__arc_make8_path(b->path, from, to, out, p->n);
    for (size_t i = 0; i < p->n; i++) {
        cna_quat *q = &b->acc[p->slot[i]].rotation;
        if (!additive) {
            cna__arc_slerp(&p->from[i], &p->to[i], &arcs[i], p->f[i], q);
            continue;
        }
        cna_quat part;
        cna__arc_slerp(&p->from[i], &p->to[i], &arcs[i], p->f[i], &part);
        *q = qmul(*q, part);
    }
    p->n = 0;
}

/* Queue acc[slot].rotation = slerp(acc[slot].rotation, to, f); the
 * rotation is copied now, so the slot's other lanes may be written before
 * the flush. */
static void slerp_later(cna__blend *b, pending *p, int32_t slot, cna_quat from, cna_quat to, float f)
{
    p->slot[p->n] = slot;
    p->from[p->n] = from;
    p->to[p->n] = to;
    p->f[p->n] = f;
    if (++p->n == 8) flush(b, p, false);
}

/* The override rule's step for one sample of weight w > 0 (the rotation's
 * slerp through `p`). Translation and scale: a·(1 - f) + b·f per
 * component (with SSE, four lanes of the keyframe at once: the same
 * operations per lane; the rotation lanes they also write are replaced by
 * the slerp). */
static void accumulate(cna__blend *b, pending *p, int32_t slot, const cna_keyframe *k, float w)
{
    float *cum = &b->cum[slot];
    cna_keyframe *a = &b->acc[slot];
    if (*cum == 0.0f) {
        a->translation = k->translation;
        a->rotation = k->rotation;
        a->scale = k->scale;
        *cum = w;
        b->touched[b->touched_count++] = slot;
        return;
    }
    *cum += w;
    const float f = w / *cum;
    const cna_quat from = a->rotation;
#if defined(CNA__ANIM_SSE2)
    const __m128 f4 = _mm_set1_ps(f), g4 = _mm_set1_ps(1.0f - f);
    const __m128 tr = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(&a->translation.x), g4),
                                 _mm_mul_ps(_mm_loadu_ps(&k->translation.x), f4));
    const __m128 ws = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(&a->rotation.w), g4),
                                 _mm_mul_ps(_mm_loadu_ps(&k->rotation.w), f4));
    _mm_storeu_ps(&a->translation.x, tr);
    _mm_storeu_ps(&a->rotation.w, ws);
#else
    a->translation = lerp3(a->translation, k->translation, f);
    a->scale = lerp3(a->scale, k->scale, f);
#endif
    slerp_later(b, p, slot, from, k->rotation, f);
}

/* The rest value for the remainder 1 - W of every value the override
 * layers touched; afterwards each touched value counts as whole. */
/* The rest value mixed into one slot whose weight W is below 1, by 1 - W
 * (its rotation through `p`). */
static void rest_mix_one(cna__blend *b, pending *p, int32_t slot, void (*rest)(const void *, int32_t, cna_keyframe *),
                         const void *ctx)
{
    cna_keyframe r;
    rest(ctx, slot, &r);
    const float f = 1.0f - b->cum[slot];
    b->acc[slot].translation = lerp3(b->acc[slot].translation, r.translation, f);
    b->acc[slot].scale = lerp3(b->acc[slot].scale, r.scale, f);
    slerp_later(b, p, slot, b->acc[slot].rotation, r.rotation, f);
}

static void mix_rest(cna__blend *b, void (*rest)(const void *, int32_t, cna_keyframe *), const void *ctx)
{
    pending p;
    p.n = 0;
    for (size_t i = 0; i < b->touched_count; i++) {
        const int32_t slot = b->touched[i];
        if (b->cum[slot] < 1.0f) rest_mix_one(b, &p, slot, rest, ctx);
        b->cum[slot] = 1.0f;
    }
    flush(b, &p, false);
}

/* An additive sample k with reference ref and weight w on a value. */
static void add(cna__blend *b, pending *p, int32_t slot, const cna_keyframe *k, const cna_keyframe *ref, float w,
                void (*rest)(const void *, int32_t, cna_keyframe *), const void *ctx)
{
    const cna_vec3 dt = v3(k->translation.x - ref->translation.x, k->translation.y - ref->translation.y,
                                      k->translation.z - ref->translation.z);
    const cna_vec3 ds = v3(k->scale.x - ref->scale.x, k->scale.y - ref->scale.y, k->scale.z - ref->scale.z);
    cna_quat dq = delta_q(ref->rotation, k->rotation);
    /* (0, 0, 0, w > 0), a clip at its reference, is the identity exactly;
     * any other delta is normalised by one reciprocal */
    if (dq.x == 0.0f && dq.y == 0.0f && dq.z == 0.0f && dq.w > 0.0f) {
        dq = q4(0.0f, 0.0f, 0.0f, 1.0f);
    } else {
        const float len = sqrtf(dq.x * dq.x + dq.y * dq.y + dq.z * dq.z + dq.w * dq.w);
        const float inv = 1.0f / len;
        /* a degenerate sample adds no rotation */
        dq = len > 0.0f && isfinite(len) ? q4(dq.x * inv, dq.y * inv, dq.z * inv, dq.w * inv)
                                         : q4(0.0f, 0.0f, 0.0f, 1.0f);
    }
    if (is_zero3(dt) && is_zero3(ds) && is_identity_q(dq)) return; /* no delta: nothing changes */
    if (b->cum[slot] == 0.0f) { /* no override layer animates it: from its rest value */
        cna_keyframe r;
        rest(ctx, slot, &r);
        b->acc[slot].translation = r.translation;
        b->acc[slot].rotation = r.rotation;
        b->acc[slot].scale = r.scale;
        b->cum[slot] = 1.0f;
        b->touched[b->touched_count++] = slot;
    }
    if (!is_zero3(dt))
        b->acc[slot].translation = v3(b->acc[slot].translation.x + w * dt.x, b->acc[slot].translation.y + w * dt.y, b->acc[slot].translation.z + w * dt.z);
    if (!is_zero3(ds))
        b->acc[slot].scale = v3(b->acc[slot].scale.x + w * ds.x, b->acc[slot].scale.y + w * ds.y, b->acc[slot].scale.z + w * ds.z);
    if (!is_identity_q(dq)) {
        p->slot[p->n] = slot;
        p->from[p->n] = q4(0.0f, 0.0f, 0.0f, 1.0f);
        p->to[p->n] = dq;
        p->f[p->n] = w;
        if (++p->n == 8) flush(b, p, true);
    }
}

/* ------------------------------------------------------------------ root motion in the pose */

static cna_quat twist_y(cna_quat q)
{
    const float n = sqrtf(q.y * q.y + q.w * q.w);
    if (!(n > 0.0f)) return cna_quat_identity();
    return q4(0.0f, q.y / n, 0.0f, q.w / n);
}

/* The layer's sample of its motion bone with the motion taken out. */
static void extract(const cna__layer *L, cna_keyframe *k)
{
    const cna_keyframe *s0 = &L->motion_start;
    if (L->motion_mode == CNA_ROOT_MOTION_FULL) {
        k->translation = s0->translation;
        k->rotation = s0->rotation;
        return;
    }
    k->translation.x = s0->translation.x;
    k->translation.z = s0->translation.z;
    const cna_quat swing = qmul(qconj(twist_y(k->rotation)), k->rotation);
    k->rotation = qmul(twist_y(s0->rotation), swing);
}

/* ------------------------------------------------------------------ sampling */



static float layer_weight(const cna__layer *L, int32_t bone)
{
    return L->mask && bone >= 0 ? L->weight * L->mask[bone] : L->weight;
}

static bool contributes(const cna__layer *L, cna_blend_mode mode)
{
    return L->animation >= 0 && L->mode == mode && L->weight > 0.0f;
}

/* rest values: scene-node bones */
static void bone_rest(const void *ctx, int32_t bone, cna_keyframe *out)
{
    const cna_model_bone *b = &((const cna_model *)ctx)->bones[bone];
    out->translation = b->rest_translation;
    out->rotation = b->rest_rotation;
    out->scale = b->rest_scale;
}

typedef struct joint_ctx {
    const cna_model *model;
    const cna_model_skin *skin;
} joint_ctx;

/* rest values: a joint's bind pose (its bone's rest TRS when nothing is
 * folded into it, else the decomposition of the bind pose) */
static void joint_rest(const void *ctx, int32_t p, cna_keyframe *out)
{
    const joint_ctx *j = (const joint_ctx *)ctx;
    const int32_t bone = j->skin->palette_to_node ? j->skin->palette_to_node[p] : -1;
    if (bone >= 0 && (!j->skin->fold || cna_mat4_is_identity(&j->skin->fold[p]))) {
        bone_rest(j->model, bone, out);
        return;
    }
    if (!cna_mat4_decompose(&j->skin->data.bind_pose[p], &out->translation, &out->rotation, &out->scale)) {
        out->translation = v3(0.0f, 0.0f, 0.0f);
        out->rotation = cna_quat_identity();
        out->scale = cna_vec3_one();
    }
}

/* One layer's clip over a range of slots: `bone_of` maps a track's index
 * to the bone its mask weight and root motion use. */
/* One layer's clip over the slots of `space` (an evaluation, or
 * eval_count: the scene-node bones): sampled by the player's kernel into
 * the sample buffer, then each sampled slot mixed in. `bone_of` maps a slot
 * to the bone its mask weight and root motion use. */
static void sample_layer(cna_character *c, const cna__layer *L, size_t space, const cna_clip *clip,
                         int32_t slot_count, const int32_t *bone_of, cna_blend_mode mode,
                         void (*rest)(const void *, int32_t, cna_keyframe *), const void *ctx)
{
    cna__blend *b = &c->blend;
    const size_t states = b->cursor_first[space + 1] - b->cursor_first[space];
    const size_t ref0 = b->ref_first[space];
    if (slot_count <= 0 || !clip->tracks || clip->track_count == 0) return;
    /* the first override layer of the pose samples straight into the
     * accumulators (its values are copied by the rule) */
    const bool first = mode == CNA_BLEND_MODE_OVERRIDE && b->touched_count == 0;
    cna_keyframe *out = first ? b->acc : b->sample;
    memset(b->has, 0, (size_t)slot_count);
    if (L == &c->layers[0] && space < c->eval_count) {
        /* layer 0 plays its players' clip: their sampling state */
        size_t count;
        cna__arcs_window *win;
        cna__track_state *st = cna__player_sampling(c->evals[space].player, &count, &win);
        cna__sample_trs(b->path, c->fast, clip, L->clock.position, slot_count, st, count, win, out, b->has);
    } else {
        cna__sample_trs(b->path, c->fast, clip, L->clock.position, slot_count, cna__layer_states(c, (size_t)(L - c->layers), space),
                        states, &L->windows[space], out, b->has);
    }
    const bool masked = L->mask != NULL, motion = L->motion_track != NULL;
    pending p;
    p.n = 0;
    if (!masked && !motion && mode == CNA_BLEND_MODE_OVERRIDE) {
        /* the common case: the layer's weight (> 0) for every value it animates */
        const float w = L->weight;
        if (first) {
            for (int32_t slot = 0; slot < slot_count; slot++)
                if (b->has[slot]) {
                    b->cum[slot] = w;
                    b->touched[b->touched_count++] = slot;
                }
            return;
        }
        for (int32_t slot = 0; slot < slot_count; slot++)
            if (b->has[slot]) accumulate(b, &p, slot, &out[slot], w);
        flush(b, &p, false);
        return;
    }
    for (int32_t slot = 0; slot < slot_count; slot++) {
        if (!b->has[slot]) continue;
        const int32_t bone = bone_of ? bone_of[slot] : slot;
        const float w = masked && bone >= 0 ? L->weight * L->mask[bone] : L->weight;
        if (!(w > 0.0f)) continue;
        cna_keyframe *k = &out[slot];
        if (motion && bone == L->motion_bone) extract(L, k);
        if (first) {
            b->cum[slot] = w;
            b->touched[b->touched_count++] = slot;
        } else if (mode == CNA_BLEND_MODE_OVERRIDE) {
            accumulate(b, &p, slot, k, w);
        } else {
            cna_keyframe r;
            const cna_keyframe *ref = &r;
            if (L->ref_has && L->ref_has[ref0 + (size_t)slot])
                ref = &L->ref[ref0 + (size_t)slot];
            else
                rest(ctx, slot, &r);
            add(b, &p, slot, k, ref, w, rest, ctx);
        }
    }
    flush(b, &p, mode == CNA_BLEND_MODE_ADDITIVE);
}

void cna__blend_nodes(cna_character *c)
{
    const cna_model *m = c->model;
    cna__blend *b = &c->blend;
    if (!m->node_clips) return;
    reset(b);
    for (size_t l = 0; l < c->layer_count; l++) {
        const cna__layer *L = &c->layers[l];
        if (!contributes(L, CNA_BLEND_MODE_OVERRIDE)) continue;
        sample_layer(c, L, c->eval_count, &m->node_clips[L->animation], (int32_t)m->bone_count, NULL,
                     CNA_BLEND_MODE_OVERRIDE, bone_rest, m);
    }
    mix_rest(b, bone_rest, m);
    for (size_t l = 0; l < c->layer_count; l++) {
        const cna__layer *L = &c->layers[l];
        if (!contributes(L, CNA_BLEND_MODE_ADDITIVE)) continue;
        sample_layer(c, L, c->eval_count, &m->node_clips[L->animation], (int32_t)m->bone_count, NULL,
                     CNA_BLEND_MODE_ADDITIVE, bone_rest, m);
    }
    for (size_t i = 0; i < b->touched_count; i += 8) {
        cna_mat4 *out[8];
        const cna_keyframe *in[8];
        const size_t n = b->touched_count - i < 8 ? b->touched_count - i : 8;
        for (size_t k = 0; k < n; k++) {
            out[k] = cna__character_local(c, b->touched[i + k]);
            in[k] = &b->acc[b->touched[i + k]];
        }
        cna__compose_keys(b->path, out, in, n);
    }
    reset(b);
}

void cna__blend_evaluation(cna_character *c, size_t e)
{
    const cna_model *m = c->model;
    cna__blend *b = &c->blend;
    const evaluation *ev = &c->evals[e];
    const cna_model_skin *s = &m->skins[ev->skin];
    const cna_skinning_data *d = &s->data;
    const int32_t n = d->bone_count;
    const joint_ctx ctx = {m, s};
    reset(b);
    for (size_t l = 0; l < c->layer_count; l++) {
        const cna__layer *L = &c->layers[l];
        if (!contributes(L, CNA_BLEND_MODE_OVERRIDE)) continue;
        sample_layer(c, L, e, &d->clips[L->animation], n, s->palette_to_node, CNA_BLEND_MODE_OVERRIDE, joint_rest,
                     &ctx);
    }
    bool additive = false;
    for (size_t l = 0; l < c->layer_count && !additive; l++) additive = contributes(&c->layers[l], CNA_BLEND_MODE_ADDITIVE);
    if (additive) {
        mix_rest(b, joint_rest, &ctx);
        for (size_t l = 0; l < c->layer_count; l++) {
            const cna__layer *L = &c->layers[l];
            if (!contributes(L, CNA_BLEND_MODE_ADDITIVE)) continue;
            sample_layer(c, L, e, &d->clips[L->animation], n, s->palette_to_node, CNA_BLEND_MODE_ADDITIVE,
                         joint_rest, &ctx);
        }
    }
    cna_mat4 *locals = cna__player_locals(ev->player);
    uint8_t *posed = cna__player_posed(ev->player);
    if (n > 0) memset(posed, 0, (size_t)n);
    /* eight at a time: the rest mixed in where the weight is short of 1
     * (unless the additive pass above did it), then composed */
    for (size_t i = 0; i < b->touched_count; i += 8) {
        cna_mat4 *out[8];
        const cna_keyframe *in[8];
        const size_t batch = b->touched_count - i < 8 ? b->touched_count - i : 8;
        pending p;
        p.n = 0;
        for (size_t k = 0; k < batch; k++) {
            const int32_t slot = b->touched[i + k];
            if (!additive && b->cum[slot] < 1.0f) rest_mix_one(b, &p, slot, joint_rest, &ctx);
            b->cum[slot] = 0.0f;
            out[k] = &locals[slot];
            in[k] = &b->acc[slot];
            posed[slot] = 1;
        }
        flush(b, &p, false);
        cna__compose_keys(b->path, out, in, batch);
    }
    b->touched_count = 0;
    cna__player_hierarchy(ev->player);
}

/* ------------------------------------------------------------------ morph weights */

static const cna_morph_weight_track *weight_track(const cna_model_part *p, long animation)
{
    if (animation < 0 || (size_t)animation >= p->weight_track_count || !p->weight_tracks) return NULL;
    const cna_morph_weight_track *t = p->weight_tracks[animation];
    return t && t->key_count > 0 ? t : NULL;
}

static cna_result eval_weights(const cna_morph_weight_track *track, double seconds, float *out, size_t n, size_t mesh,
                               size_t part, long animation, cna_error *err)
{
    size_t got = n;
    cna_result r = cna_morph_evaluate_weights(track, seconds, out, n, &got, err);
    if (r != CNA_OK) return r;
    if (got != n)
        return cna__error(err, CNA_ERROR_INVALID_DATA,
                          "meshes[%zu].parts[%zu]: weight track %ld gives %zu weights for %zu targets", mesh, part,
                          animation, got, n);
    return CNA_OK;
}

static double layer_seconds(const cna__layer *L)
{
    return L->clock.seek_exact ? L->clock.seek_seconds : cna_ticks_to_seconds(L->clock.position);
}

cna_result cna__blend_weights(cna_character *c, size_t mesh, size_t part, float *out, cna_error *err)
{
    const cna_model *m = c->model;
    const cna_model_part *p = &m->meshes[mesh].parts[part];
    const cna_morph_target_data *md = p->morph;
    const size_t n = md->target_count;
    const int32_t bone = m->meshes[mesh].parent_bone;
    float *x = c->blend.weights2;
    float cum = 0.0f;
    cna_result r;
    for (size_t l = 0; l < c->layer_count; l++) {
        const cna__layer *L = &c->layers[l];
        if (!contributes(L, CNA_BLEND_MODE_OVERRIDE)) continue;
        const cna_morph_weight_track *track = weight_track(p, L->animation);
        const float w = layer_weight(L, bone);
        if (!track || !(w > 0.0f)) continue;
        if ((r = eval_weights(track, layer_seconds(L), x, n, mesh, part, L->animation, err)) != CNA_OK) return r;
        if (cum == 0.0f) {
            memcpy(out, x, n * sizeof(float));
            cum = w;
            continue;
        }
        cum += w;
        const float f = w / cum, g = 1.0f - f;
        for (size_t i = 0; i < n; i++) out[i] = out[i] * g + x[i] * f;
    }
    const float *initial = md->initial_weights;
    if (cum < 1.0f) {
        const float f = cum == 0.0f ? 1.0f : 1.0f - cum, g = 1.0f - f;
        for (size_t i = 0; i < n; i++) {
            const float rest = initial && i < md->initial_weight_count ? initial[i] : 0.0f;
            out[i] = cum == 0.0f ? rest : out[i] * g + rest * f;
        }
    }
    for (size_t l = 0; l < c->layer_count; l++) {
        const cna__layer *L = &c->layers[l];
        if (!contributes(L, CNA_BLEND_MODE_ADDITIVE)) continue;
        const cna_morph_weight_track *track = weight_track(p, L->animation);
        const float w = layer_weight(L, bone);
        if (!track || !(w > 0.0f)) continue;
        if ((r = eval_weights(track, layer_seconds(L), x, n, mesh, part, L->animation, err)) != CNA_OK) return r;
        const long ra = L->ref_animation >= 0 ? L->ref_animation : L->animation;
        const cna_morph_weight_track *rt = weight_track(p, ra);
        float *ref = c->blend.weights; /* the reference weights, then the deltas */
        if (rt) {
            double rs = L->ref_seconds;
            const double end = cna_ticks_to_seconds(m->node_clips ? m->node_clips[ra].duration : 0);
            if (rs < 0.0) rs = 0.0;
            if (rs > end) rs = end;
            if ((r = eval_weights(rt, rs, ref, n, mesh, part, ra, err)) != CNA_OK) return r;
        } else {
            for (size_t i = 0; i < n; i++) ref[i] = initial && i < md->initial_weight_count ? initial[i] : 0.0f;
        }
        for (size_t i = 0; i < n; i++) {
            const float dw = x[i] - ref[i];
            if (dw != 0.0f) out[i] = out[i] + w * dw;
        }
    }
    return CNA_OK;
}

/* ------------------------------------------------------------------ additive reference */

void cna__blend_sample_reference(cna_character *c, size_t layer)
{
    const cna_model *m = c->model;
    cna__layer *L = &c->layers[layer];
    if (!L->ref) return;
    const cna__blend *b = &c->blend;
    memset(L->ref_has, 0, b->ref_count ? b->ref_count : 1);
    const long a = L->ref_animation >= 0 ? L->ref_animation : L->animation;
    if (a < 0) return;
    const int64_t duration = m->node_clips ? m->node_clips[a].duration : 0;
    int64_t t = cna_ticks_from_seconds(L->ref_seconds);
    if (t > duration) t = duration;
    if (t < 0) t = 0;
    for (size_t e = 0; e <= c->eval_count; e++) {
        const cna_clip *clip;
        int32_t slots;
        if (e < c->eval_count) {
            const cna_skinning_data *d = &m->skins[c->evals[e].skin].data;
            clip = &d->clips[a];
            slots = d->bone_count;
        } else {
            if (!m->node_clips) break;
            clip = &m->node_clips[a];
            slots = (int32_t)m->bone_count;
        }
        const size_t ref0 = b->ref_first[e];
        for (size_t i = 0; clip->tracks && i < clip->track_count; i++) {
            const cna_bone_track *track = &clip->tracks[i];
            if (!track->keys || track->key_count == 0 || track->bone < 0 || track->bone >= slots) continue;
            cna_track_sample_linear(track, t, &L->ref[ref0 + (size_t)track->bone]);
            L->ref_has[ref0 + (size_t)track->bone] = 1;
        }
    }
}
