/*
 * The blended pose of a character (include/cna/character.h, "layers"): the
 * layers' samples accumulated per value by the override rule, the rest
 * value mixed in for the remainder, the additive layers applied, the
 * result composed. A pose of layer 0 alone (weight 1, no mask) never comes
 * here: its players pose it (src/character/character.c).
 *
 * The slerps of a pose are made sixteen at a time (slerp_lanes: the bits of
 * cna_quat_slerp, per lane), and its per-frame working set (accumulators,
 * one layer's samples) lives in a scratch owned by the posing thread, so
 * that a crowd of blending characters does not each carry it through the
 * cache (see `scratch` below).
 */
#include <math.h>
#include <string.h>

#include "anim/anim_internal.h"
#include "character/character_internal.h"
#include "core/internal.h"
#include "core/vec.h"

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

/* Hamilton product a · b (apply b, then a) */
static inline cna_quat qmul(cna_quat a, cna_quat b)
{
    return q4(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                         a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                         a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                         a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}

/* qmul(a, b) in four lanes (x, y, z, w), each lane the scalar operations in
 * the same order: ((a.w·b + ±a.x·b1) + ±a.y·b2) + ±a.z·b3 with b1, b2, b3
 * the lanes of b each component takes (adding a negated product is
 * subtracting it, and multiplying by ±1 is exact). */
static inline vf4 qmul4(vf4 a, vf4 b)
{
    const vf4 t1 = vf4_mul(vf4_splat(a, 3), b);
    const vf4 t2 = vf4_mul(vf4_mul(vf4_splat(a, 0), vf4_reverse(b)), vf4_setr(1.0f, -1.0f, 1.0f, -1.0f));
    const vf4 t3 = vf4_mul(vf4_mul(vf4_splat(a, 1), vf4_swap_halves(b)), vf4_setr(1.0f, 1.0f, -1.0f, -1.0f));
    const vf4 t4 = vf4_mul(vf4_mul(vf4_splat(a, 2), vf4_swap_pairs(b)), vf4_setr(-1.0f, 1.0f, 1.0f, -1.0f));
    return vf4_add(vf4_add(vf4_add(t1, t2), t3), t4);
}

static cna_quat qconj(cna_quat q) { return q4(-q.x, -q.y, -q.z, q.w); }

/* ((a0 + a1) + a2) + a3 and ((a3 + a0) + a1) + a2: the scalar code's sums
 * of four products, left to right. */
static inline float sum_xyzw(vf4 a)
{
    return ((vf4_first(a) + vf4_first(vf4_splat(a, 1))) + vf4_first(vf4_splat(a, 2))) + vf4_first(vf4_splat(a, 3));
}
static inline float sum_wxyz(vf4 a)
{
    return ((vf4_first(vf4_splat(a, 3)) + vf4_first(a)) + vf4_first(vf4_splat(a, 1))) + vf4_first(vf4_splat(a, 2));
}


/* ------------------------------------------------------------------ slerps, sixteen at once */

/* The values mixed at once (a multiple of 4), and composed at once. */
#define CNA__BLEND_BATCH 16
#define BATCH CNA__BLEND_BATCH
#define COMPOSE_CHUNK 64

#if defined(__GNUC__) || defined(__clang__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

/* The slerps, BATCH lanes a call: slerp_lanes_base here, compiled for the
 * baseline, and cna__blend_slerp_lanes_avx2 in blend_avx2.c, compiled for
 * AVX2 (blend_kernel.inc says what they compute). */
#define CNA__BLEND_LANES slerp_lanes_base
#define CNA__BLEND_LANES_LINKAGE static
#include "character/blend_kernel.inc"

/* blend_avx2.c's instance (in the build where CNA__SIMD_AVX2 is 1) */
void cna__blend_slerp_lanes_avx2(const cna_quat a[], const cna_quat *const b[], const float t[], cna_quat *const out[],
                                 size_t n);

/* The slerp lanes of the player path `path` (blend_kernel.inc): the same
 * bits on each. */
static void slerp_lanes(int path, const cna_quat a[], const cna_quat *const b[], const float t[], cna_quat *const out[],
                        size_t n)
{
#if CNA__SIMD_AVX2
    if (path == CNA__PLAYER_PATH_AVX) {
        cna__blend_slerp_lanes_avx2(a, b, t, out, n);
        return;
    }
#endif
    (void)path;
    slerp_lanes_base(a, b, t, out, n);
}

void cna__blend_slerp(int path, const cna_quat *a, const cna_quat *b, const float *t, cna_quat *out, size_t n)
{
    for (size_t i = 0; i < n; i += BATCH) {
        const size_t m = n - i < BATCH ? n - i : BATCH;
        cna_quat pa[BATCH], q[BATCH];
        const cna_quat *pb[BATCH];
        cna_quat *po[BATCH];
        float pt[BATCH];
        size_t k = 0;
        for (; k < m; k++) {
            pa[k] = a[i + k];
            pb[k] = &b[i + k];
            pt[k] = t[i + k];
            po[k] = &out[i + k];
        }
        for (; k & 3; k++) { /* to a multiple of four lanes */
            pa[k] = pa[0];
            pb[k] = pb[0];
            pt[k] = pt[0];
            po[k] = &q[k];
        }
        slerp_lanes(path, pa, pb, pt, po, m);
    }
}

/* ------------------------------------------------------------------ the frame's working set */

/* A blended pose's per-frame values: the accumulated value and weight of
 * every slot (scene-node values by bone, joints by palette index of the
 * evaluation being posed), the slots touched so far, one layer's samples and
 * which slots it sampled. Every pose writes a value before it reads it and
 * ends with every weight back at 0 and no slot touched, the state in which
 * a thread's scratch starts (zero), so nothing of one pose is seen by the
 * next, whatever character it is. */
typedef struct scratch {
    cna_keyframe acc[CNA__BLEND_SCRATCH_SLOTS];
    cna_keyframe sample[CNA__BLEND_SCRATCH_SLOTS];
    float cum[CNA__BLEND_SCRATCH_SLOTS];
    int32_t touched[CNA__BLEND_SCRATCH_SLOTS];
    uint8_t has[CNA__BLEND_SCRATCH_SLOTS];
} scratch;

/* The posing thread's scratch: the characters posed on one thread share it,
 * one pose at a time (a pose calls nothing that poses); a character with
 * more slots than it holds uses its own (cna__blend_ensure). Each thread has
 * its own, so characters on separate threads share nothing. It is the
 * library's only thread-local variable: 256 slots of 2 keyframes (48 bytes
 * each), a weight, a slot index and a flag, 26,880 bytes per thread, made
 * and released by the C runtime with the thread (include/cna/character.h
 * and docs/blending.md say where and when). Kept rather than asking the
 * caller for it: every posing call would need a scratch argument, and
 * characters' own buffers are what it replaced (docs/benchmarks.md). */
static _Thread_local scratch thread_scratch;

size_t cna__blend_thread_scratch_bytes(void) { return sizeof thread_scratch; }

typedef struct frame {
    cna_keyframe *acc;          /* the accumulated values */
    cna_keyframe *sample;       /* one layer's samples */
    float *cum;                 /* accumulated weight, 0: untouched */
    int32_t *touched;           /* slots with cum > 0, in the order first touched */
    uint8_t *has;               /* the layer sampled the slot */
    size_t touched_count;
    int path;                   /* the player kernels' path */
} frame;

static void frame_begin(cna_character *c, frame *f)
{
    const cna__blend *b = &c->blend;
    if (b->slot_count <= CNA__BLEND_SCRATCH_SLOTS) {
        scratch *s = &thread_scratch;
        f->acc = s->acc;
        f->sample = s->sample;
        f->cum = s->cum;
        f->touched = s->touched;
        f->has = s->has;
    } else {
        f->acc = b->acc;
        f->sample = b->sample;
        f->cum = b->cum;
        f->touched = b->touched;
        f->has = b->has;
    }
    f->touched_count = 0;
    f->path = b->path;
}

static void reset(frame *f)
{
    for (size_t i = 0; i < f->touched_count; i++) f->cum[f->touched[i]] = 0.0f;
    f->touched_count = 0;
}

static void touch(frame *f, int32_t slot, float w)
{
    f->cum[slot] = w;
    f->touched[f->touched_count++] = slot;
}

/* ------------------------------------------------------------------ mixing, sixteen values at once */

/* Values waiting for their slerps, made BATCH at a time (slerp_lanes); each
 * slot appears at most once per batch. */
typedef struct batch {
    int32_t slot[BATCH];
    float f[BATCH];
    cna_quat from[BATCH];           /* the rotation before the mix (copied: see mix_later) */
    const cna_quat *to[BATCH];      /* the rotation mixed in */
    cna_quat *out[BATCH];           /* where the result goes */
    cna_keyframe rest[BATCH];       /* the rest values mixed in (to points here) */
    cna_quat delta[BATCH];          /* an additive layer's rotation deltas */
    size_t n;
} batch;

/* The queued rotations: *out = slerp(from, *to, f). */
static void flush_mix(frame *fr, batch *bt)
{
    const size_t n = bt->n;
    if (!n) return;
    cna_quat spare[4];
    for (size_t i = n; i & 3; i++) { /* to a multiple of four lanes */
        bt->from[i] = bt->from[0];
        bt->to[i] = bt->to[0];
        bt->f[i] = bt->f[0];
        bt->out[i] = &spare[i & 3];
    }
    slerp_lanes(fr->path, bt->from, bt->to, bt->f, bt->out, n);
    bt->n = 0;
}

/* The override rule's mix of src into acc[slot] by f: acc = acc·(1 - f) +
 * src·f per component of the translation and scale, now (four lanes of
 * the keyframe at once: the same operations per lane; the rotation lanes
 * they also write are replaced by the flush), and rotation =
 * slerp(acc.rotation, src.rotation, f), queued (the rotation before the mix
 * copied first). */
static inline void mix_later(frame *fr, batch *bt, int32_t slot, const cna_keyframe *src, float f)
{
    cna_keyframe *a = &fr->acc[slot];
    const size_t n = bt->n;
    bt->slot[n] = slot;
    bt->f[n] = f;
    bt->from[n] = a->rotation;
    bt->to[n] = &src->rotation;
    bt->out[n] = &a->rotation;
    const vf4 f4 = vf4_set1(f), g4 = vf4_set1(1.0f - f);
    const vf4 tr = vf4_add(vf4_mul(vf4_loadu(&a->translation.x), g4), vf4_mul(vf4_loadu(&src->translation.x), f4));
    const vf4 ws = vf4_add(vf4_mul(vf4_loadu(&a->rotation.w), g4), vf4_mul(vf4_loadu(&src->rotation.w), f4));
    vf4_storeu(&a->translation.x, tr);
    vf4_storeu(&a->rotation.w, ws);
    if (++bt->n == BATCH) flush_mix(fr, bt);
}

/* An additive layer's rotations: acc.rotation = acc.rotation ·
 * slerp(identity, delta, w) for each queued delta. */
static void flush_add(frame *fr, batch *bt)
{
    const size_t n = bt->n;
    if (!n) return;
    cna_quat part[BATCH];
    size_t i = 0;
    for (; i < n; i++) {
        bt->from[i] = q4(0.0f, 0.0f, 0.0f, 1.0f);
        bt->to[i] = &bt->delta[i];
        bt->out[i] = &part[i];
    }
    for (; i & 3; i++) { /* to a multiple of four lanes */
        bt->from[i] = bt->from[0];
        bt->to[i] = bt->to[0];
        bt->f[i] = bt->f[0];
        bt->out[i] = &part[i];
    }
    slerp_lanes(fr->path, bt->from, bt->to, bt->f, bt->out, n);
    for (size_t k = 0; k < n; k++) {
        cna_quat *q = &fr->acc[bt->slot[k]].rotation;
        vf4_storeu(&q->x, qmul4(vf4_loadu(&q->x), vf4_loadu(&part[k].x)));
    }
    bt->n = 0;
}

typedef void (*rest_fn)(const void *ctx, int32_t slot, cna_keyframe *out);

/* Queue the rest value mixed into one slot whose weight W is below 1, by
 * 1 - W. */
static inline void rest_later(frame *fr, batch *bt, int32_t slot, rest_fn rest, const void *ctx)
{
    cna_keyframe *r = &bt->rest[bt->n];
    rest(ctx, slot, r);
    mix_later(fr, bt, slot, r, 1.0f - fr->cum[slot]);
}

/* The rest value for the remainder 1 - W of every value the override
 * layers touched; afterwards each touched value counts as whole. */
static void mix_rest(frame *fr, rest_fn rest, const void *ctx)
{
    batch bt;
    bt.n = 0;
    for (size_t i = 0; i < fr->touched_count; i++) {
        const int32_t slot = fr->touched[i];
        if (fr->cum[slot] < 1.0f) rest_later(fr, &bt, slot, rest, ctx);
        fr->cum[slot] = 1.0f;
    }
    flush_mix(fr, &bt);
}

/* An additive sample k with reference ref and weight w on a value:
 *   dt = t - t_ref, ds = s - s_ref, dq = normalize(conjugate(q_ref) · q);
 *   nothing changes when the delta is exactly zero; else t += w·dt and
 *   s += w·ds (each only when not zero, so that a -0 stays as it is), and
 *   q = q · slerp(identity, dq, w) through the batch (flush_add).
 * The keyframe's lanes four at a time, the scalar operations per lane. */
HOT_INLINE void add(frame *fr, batch *bt, int32_t slot, const cna_keyframe *k, const cna_keyframe *ref, float w,
                    rest_fn rest, const void *ctx)
{
    /* (translation, q.x) and (q.w, scale) lanes: dt in 0..2, ds in 1..3 */
    const vf4 dtr = vf4_sub(vf4_loadu(&k->translation.x), vf4_loadu(&ref->translation.x));
    const vf4 dws = vf4_sub(vf4_loadu(&k->rotation.w), vf4_loadu(&ref->rotation.w));
    const bool zero_t = (vf4_movemask(vf4_cmpeq(dtr, vf4_zero())) & 0x7) == 0x7;
    const bool zero_s = (vf4_movemask(vf4_cmpeq(dws, vf4_zero())) & 0xE) == 0xE;
    /* dq = conjugate(r) · k, its terms paired so that k == r gives
     * (0, 0, 0, |r|²) exactly (each pair the same two products with opposite
     * signs): x, y, z = (r.w·k - r·k.w) + (r.zxy·k.yzx - r.yzx·k.zxy),
     * w = ((r.w·k.w + r.x·k.x) + r.y·k.y) + r.z·k.z */
    const vf4 r = vf4_loadu(&ref->rotation.x), q = vf4_loadu(&k->rotation.x);
    const vf4 p = vf4_sub(vf4_mul(vf4_splat(r, 3), q), vf4_mul(r, vf4_splat(q, 3)));
    const vf4 c = vf4_sub(vf4_mul(vf4_zxyw(r), vf4_yzxw(q)), vf4_mul(vf4_yzxw(r), vf4_zxyw(q)));
    const float w1 = sum_wxyz(vf4_mul(r, q));
    vf4 dq = vf4_with_w(vf4_add(p, c), vf4_set1(w1));
    /* (0, 0, 0, w > 0), a clip at its reference, is the identity exactly;
     * any other delta is normalised by one reciprocal of
     * sqrt(((x² + y²) + z²) + w²); a degenerate sample adds no rotation */
    bool turn = false;
    if (!((vf4_movemask(vf4_cmpeq(dq, vf4_zero())) & 0x7) == 0x7 && w1 > 0.0f)) {
        const float len = sqrtf(sum_xyzw(vf4_mul(dq, dq)));
        if (len > 0.0f && isfinite(len)) {
            dq = vf4_mul(dq, vf4_set1(1.0f / len));
            turn = vf4_movemask(vf4_cmpneq(dq, vf4_setr(0.0f, 0.0f, 0.0f, 1.0f))) != 0;
        }
    }
    if (zero_t && zero_s && !turn) return; /* no delta: nothing changes */
    cna_keyframe *a = &fr->acc[slot];
    if (fr->cum[slot] == 0.0f) { /* no override layer animates it: from its rest value */
        cna_keyframe rv;
        rest(ctx, slot, &rv);
        a->translation = rv.translation;
        a->rotation = rv.rotation;
        a->scale = rv.scale;
        touch(fr, slot, 1.0f);
    }
    const vf4 w4 = vf4_set1(w);
    if (!zero_t) { /* lane 3, the rotation's x, kept */
        const vf4 at = vf4_loadu(&a->translation.x);
        vf4_storeu(&a->translation.x, vf4_with_w(vf4_add(at, vf4_mul(w4, dtr)), at));
    }
    if (!zero_s) { /* lane 0, the rotation's w, kept */
        const vf4 as = vf4_loadu(&a->rotation.w);
        vf4_storeu(&a->rotation.w, vf4_with_x(vf4_add(as, vf4_mul(w4, dws)), as));
    }
    if (turn) {
        vf4_storeu(&bt->delta[bt->n].x, dq);
        bt->slot[bt->n] = slot;
        bt->f[bt->n] = w;
        if (++bt->n == BATCH) flush_add(fr, bt);
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


static bool contributes(const cna__layer *L, cna_blend_mode mode)
{
    return L->animation >= 0 && L->mode == mode && L->weight > 0.0f;
}

/* What a layer samples: its animation at its clock's position with its
 * own sampling state, or, for a layer that plays a blend space, each of its
 * samples of weight > 0 (include/cna/blend_space.h: as if each were a layer
 * of weight layer weight × sample weight, in sample order). */
typedef struct source {
    long animation;
    int64_t position;
    float weight;                 /* > 0: the layer's weight (× the sample's) */
    double seconds;               /* where morph weight tracks are evaluated */
    cna__track_state *tracks;     /* a blend space sample's states (cursor_count), or
                                     NULL: the layer's own (layer 0: its players') */
    cna__arcs_window *windows;    /* with tracks: its windows (eval_count + 1) */
} source;

static double layer_seconds(const cna__layer *L)
{
    return L->clock.seek_exact ? L->clock.seek_seconds : cna_ticks_to_seconds(L->clock.position);
}

/* The sources of layer L (at most CNA__BLEND_ACTIVE_MAX); their count. */
static size_t layer_sources(const cna_character *c, const cna__layer *L, source *out)
{
    if (!L->space) {
        out[0].animation = L->animation;
        out[0].position = L->clock.position;
        out[0].weight = L->weight;
        out[0].seconds = layer_seconds(L);
        out[0].tracks = NULL;
        out[0].windows = NULL;
        return 1;
    }
    size_t n = 0;
    for (size_t k = 0; k < L->bs->active_count; k++) {
        const cna__blend_active *a = &L->bs->active[k];
        const float w = (float)((double)L->weight * a->exact);
        if (!(w > 0.0f)) continue;
        out[n].animation = a->animation;
        out[n].position = a->clock.position;
        out[n].weight = w;
        out[n].seconds = cna_ticks_to_seconds(a->clock.position);
        out[n].tracks = L->bs->tracks + a->slot * c->blend.cursor_count;
        out[n].windows = L->bs->windows + a->slot * (c->eval_count + 1);
        n++;
    }
    return n;
}

/* A source's weight for `bone` (its mask weight applied) */
static float source_weight(const cna__layer *L, const source *src, int32_t bone)
{
    return L->mask && bone >= 0 ? src->weight * L->mask[bone] : src->weight;
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

/* The first override sample of a value: copied. */
static inline void copy_in(frame *fr, int32_t slot, const cna_keyframe *k, float w)
{
    cna_keyframe *a = &fr->acc[slot];
    a->translation = k->translation;
    a->rotation = k->rotation;
    a->scale = k->scale;
    touch(fr, slot, w);
}

/* The override rule's step for one sample k of weight w > 0: copied when
 * it is the value's first, else mixed in by w / (the weights so far). */
static inline void accumulate(frame *fr, batch *bt, int32_t slot, const cna_keyframe *k, float w)
{
    float *cum = &fr->cum[slot];
    if (*cum == 0.0f) {
        copy_in(fr, slot, k, w);
        return;
    }
    *cum += w;
    mix_later(fr, bt, slot, k, w / *cum);
}

/* Make layer L's masked clips for its animation: per space, the clip with
 * the bone of each track whose bone has mask weight 0 set to -1 (the
 * sampling skips such a track, and the rule would give it weight 0), or
 * none (tracks NULL: the clip itself is sampled) when the clip has more
 * tracks than the layer keeps state for. The arcs windows that sampled the
 * clips before are closed. */
static void make_masked(cna_character *c, cna__layer *L)
{
    const cna_model *m = c->model;
    const cna__blend *b = &c->blend;
    const size_t layer = (size_t)(L - c->layers);
    for (size_t e = 0; e <= c->eval_count; e++) {
        const cna_model_skin *s = e < c->eval_count ? &m->skins[c->evals[e].skin] : NULL;
        const cna_clip *clip = s ? &s->data.clips[L->animation] : (m->node_clips ? &m->node_clips[L->animation] : NULL);
        cna_clip *mc = &L->masked_clips[e];
        memset(mc, 0, sizeof *mc);
        if (!clip || !clip->tracks || clip->track_count > b->cursor_first[e + 1] - b->cursor_first[e]) continue;
        *mc = *clip;
        cna_bone_track *tracks = L->masked_tracks + b->cursor_first[e];
        for (size_t i = 0; i < clip->track_count; i++) {
            tracks[i] = clip->tracks[i];
            const int32_t slot = tracks[i].bone;
            int32_t bone = slot;
            if (s) bone = s->palette_to_node && slot >= 0 && slot < s->data.bone_count ? s->palette_to_node[slot] : -1;
            if (bone >= 0 && (size_t)bone < m->bone_count && L->mask[bone] == 0.0f) tracks[i].bone = -1;
        }
        mc->tracks = tracks;
        if (layer == 0 && s) {
            size_t count;
            cna__arcs_window *win;
            cna__player_sampling(c->evals[e].player, &count, &win);
            win->clip = NULL;
        } else {
            L->windows[e].clip = NULL;
        }
    }
    L->masked_for = L->animation;
}

/* The clip layer L samples in `space`: its masked clip when it has a mask
 * (made again after the mask or the animation changed), else the clip. */
static const cna_clip *layer_clip(cna_character *c, cna__layer *L, size_t space, const cna_clip *clip)
{
    if (!L->mask || !L->masked_clips) return clip;
    if (L->masked_for != L->animation) make_masked(c, L);
    return L->masked_clips[space].tracks ? &L->masked_clips[space] : clip;
}

/* An additive layer's reference value for `slot` (ref0: its space's first
 * reference slot): the sample of its reference pose where it has one, else
 * the slot's rest value, written into *value. */
static inline const cna_keyframe *additive_reference(const cna__layer *L, size_t ref0, int32_t slot, rest_fn rest,
                                                     const void *ctx, cna_keyframe *value)
{
    if (L->ref_has && L->ref_has[ref0 + (size_t)slot]) return &L->ref[ref0 + (size_t)slot];
    rest(ctx, slot, value);
    return value;
}

/* One source's clip over the slots of `space` (an evaluation, or
 * eval_count: the scene-node bones): sampled by the player's kernel into
 * the sample buffer, then each sampled slot mixed in with the source's
 * weight. `bone_of` maps a slot to the bone its mask weight and root motion
 * use. A blend space sample samples its clip unmasked (the slots of mask
 * weight 0 are skipped below: the same values). */
static void sample_layer(cna_character *c, frame *fr, cna__layer *L, const source *src, size_t space,
                         const cna_clip *clip, int32_t slot_count, const int32_t *bone_of, cna_blend_mode mode,
                         rest_fn rest, const void *ctx)
{
    const cna__blend *b = &c->blend;
    if (!src->tracks) clip = layer_clip(c, L, space, clip);
    const size_t states = b->cursor_first[space + 1] - b->cursor_first[space];
    const size_t ref0 = b->ref_first[space];
    if (slot_count <= 0 || !clip->tracks || clip->track_count == 0) return;
    /* the first override layer of the pose samples straight into the
     * accumulators (its values are copied by the rule) */
    const bool first = mode == CNA_BLEND_MODE_OVERRIDE && fr->touched_count == 0;
    cna_keyframe *out = first ? fr->acc : fr->sample;
    uint8_t *has = fr->has;
    memset(has, 0, (size_t)slot_count);
    if (src->tracks) {
        cna__sample_trs(fr->path, c->fast, clip, src->position, slot_count, src->tracks + b->cursor_first[space],
                        states, &src->windows[space], out, has);
    } else if (L == &c->layers[0] && space < c->eval_count) {
        /* layer 0 plays its players' clip: their sampling state */
        size_t count;
        cna__arcs_window *win;
        cna__track_state *st = cna__player_sampling(c->evals[space].player, &count, &win);
        cna__sample_trs(fr->path, c->fast, clip, src->position, slot_count, st, count, win, out, has);
    } else {
        cna__sample_trs(fr->path, c->fast, clip, src->position, slot_count,
                        cna__layer_states(c, (size_t)(L - c->layers), space), states, &L->windows[space], out, has);
    }
    const bool masked = L->mask != NULL, motion = L->motion_track != NULL;
    batch bt;
    bt.n = 0;
    if (!masked && !motion && mode == CNA_BLEND_MODE_OVERRIDE) {
        /* the common case: the layer's weight (> 0) for every value it animates */
        const float w = src->weight;
        if (first) {
            for (int32_t slot = 0; slot < slot_count; slot++)
                if (has[slot]) touch(fr, slot, w);
            return;
        }
        for (int32_t slot = 0; slot < slot_count; slot++)
            if (has[slot]) accumulate(fr, &bt, slot, &out[slot], w);
        flush_mix(fr, &bt);
        return;
    }
    if (!masked && !motion) {
        /* an additive layer's common case: its weight for every value it animates */
        const float w = src->weight;
        for (int32_t slot = 0; slot < slot_count; slot++) {
            if (!has[slot]) continue;
            cna_keyframe r;
            add(fr, &bt, slot, &out[slot], additive_reference(L, ref0, slot, rest, ctx, &r), w, rest, ctx);
        }
        flush_add(fr, &bt);
        return;
    }
    for (int32_t slot = 0; slot < slot_count; slot++) {
        if (!has[slot]) continue;
        const int32_t bone = bone_of ? bone_of[slot] : slot;
        const float w = masked && bone >= 0 ? src->weight * L->mask[bone] : src->weight;
        if (!(w > 0.0f)) continue;
        cna_keyframe *k = &out[slot];
        if (motion && bone == L->motion_bone) extract(L, k);
        if (first) {
            touch(fr, slot, w);
        } else if (mode == CNA_BLEND_MODE_OVERRIDE) {
            accumulate(fr, &bt, slot, k, w);
        } else {
            cna_keyframe r;
            add(fr, &bt, slot, k, additive_reference(L, ref0, slot, rest, ctx, &r), w, rest, ctx);
        }
    }
    if (mode == CNA_BLEND_MODE_ADDITIVE)
        flush_add(fr, &bt);
    else
        flush_mix(fr, &bt);
}

/* ------------------------------------------------------------------ the transition snapshot */

/* Whether the snapshot applies to `bone` (-1: a joint outside the scene,
 * always). */
static inline bool snap_applies(const cna_character *c, int32_t bone)
{
    return bone < 0 || (size_t)bone >= c->model->bone_count || c->blend.snap_bone[bone];
}

/* slerp(a, b, t) along the arc from a to b as given, the long way round
 * when their dot product is negative (no sign flip: continuous in b); the
 * library's own trigonometry (cna_acosf, cna_sinf), so the same bits on
 * every CPU. */
static cna_quat slerp_along(cna_quat a, cna_quat b, float t)
{
    float d = ((a.x * b.x + a.y * b.y) + a.z * b.z) + a.w * b.w;
    float wa, wb;
    if (d > 0.9995f) {
        wa = 1.0f - t;
        wb = t;
    } else {
        if (d < -1.0f) d = -1.0f;
        const float th = cna_acosf(d), sn = cna_sinf(th);
        if (!(sn > 1e-6f)) return t < 0.5f ? a : b; /* b = -a: the same rotation */
        wa = cna_sinf((1.0f - t) * th) / sn;
        wb = cna_sinf(t * th) / sn;
    }
    cna_quat q = q4(a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb, a.w * wa + b.w * wb);
    const float len = sqrtf(((q.x * q.x + q.y * q.y) + q.z * q.z) + q.w * q.w);
    return len > 0.0f ? q4(q.x / len, q.y / len, q.z / len, q.w / len) : b;
}

/* q or -q, whichever is nearer `prev` (the sign the value had last pose). */
static inline cna_quat continue_sign(cna_quat q, cna_quat prev)
{
    const float d = ((q.x * prev.x + q.y * prev.y) + q.z * prev.z) + q.w * prev.w;
    return d < 0.0f ? q4(-q.x, -q.y, -q.z, -q.w) : q;
}

/* The snapshot mixed into the override result of `space` (after mix_rest:
 * every touched value whole) by its weight w: value = value·(1 - w) +
 * snapshot·w, rotation = slerp from the snapshot toward the value by 1 - w
 * along the arc the value has followed since the interruption (the value's
 * sign kept continuous from pose to pose, so that the mix never flips to
 * the other way round). A value the snapshot has that no layer touches now
 * is mixed from its rest value. */
static void mix_snapshot(cna_character *c, frame *fr, size_t space, int32_t slot_count, const int32_t *bone_of,
                         rest_fn rest, const void *ctx)
{
    cna__blend *b = &c->blend;
    const size_t ref0 = b->ref_first[space];
    const float w = b->snap_weight, u = 1.0f - w;
    for (int32_t slot = 0; slot < slot_count; slot++) {
        const size_t k = ref0 + (size_t)slot;
        if (!b->snap_has[k] || !snap_applies(c, bone_of ? bone_of[slot] : slot)) continue;
        if (fr->cum[slot] == 0.0f) {
            cna_keyframe rv;
            rest(ctx, slot, &rv);
            copy_in(fr, slot, &rv, 1.0f);
        }
        const cna_keyframe *sv = &b->snap[k];
        cna_keyframe *a = &fr->acc[slot];
        a->translation = v3(a->translation.x * u + sv->translation.x * w, a->translation.y * u + sv->translation.y * w,
                            a->translation.z * u + sv->translation.z * w);
        a->scale = v3(a->scale.x * u + sv->scale.x * w, a->scale.y * u + sv->scale.y * w,
                      a->scale.z * u + sv->scale.z * w);
        const cna_quat q = continue_sign(a->rotation, b->snap_prev[k]);
        b->snap_prev[k] = q;
        a->rotation = slerp_along(sv->rotation, q, u);
    }
}

/* Every layer of blend mode `mode` sampled over the slots of `space` (an
 * evaluation, or eval_count: the scene-node bones) and mixed in by its
 * rule, in layer order, each blend-space layer's samples in sample order. */
static void sample_layers(cna_character *c, frame *fr, size_t space, cna_blend_mode mode, int32_t slot_count,
                          const int32_t *bone_of, rest_fn rest, const void *ctx)
{
    const cna_model *m = c->model;
    const cna_clip *clips = space < c->eval_count ? m->skins[c->evals[space].skin].data.clips : m->node_clips;
    for (size_t l = 0; l < c->layer_count; l++) {
        cna__layer *L = &c->layers[l];
        if (!contributes(L, mode)) continue;
        source src[CNA__BLEND_ACTIVE_MAX];
        const size_t sources = layer_sources(c, L, src);
        for (size_t k = 0; k < sources; k++)
            sample_layer(c, fr, L, &src[k], space, &clips[src[k].animation], slot_count, bone_of, mode, rest, ctx);
    }
}

void cna__blend_nodes(cna_character *c)
{
    const cna_model *m = c->model;
    if (!m->node_clips) return;
    frame fr;
    frame_begin(c, &fr);
    sample_layers(c, &fr, c->eval_count, CNA_BLEND_MODE_OVERRIDE, (int32_t)m->bone_count, NULL, bone_rest, m);
    mix_rest(&fr, bone_rest, m);
    if (c->blend.snap_weight > 0.0f) mix_snapshot(c, &fr, c->eval_count, (int32_t)m->bone_count, NULL, bone_rest, m);
    sample_layers(c, &fr, c->eval_count, CNA_BLEND_MODE_ADDITIVE, (int32_t)m->bone_count, NULL, bone_rest, m);
    for (size_t i = 0; i < fr.touched_count; i += COMPOSE_CHUNK) {
        cna_mat4 *out[COMPOSE_CHUNK];
        const cna_keyframe *in[COMPOSE_CHUNK];
        const size_t n = fr.touched_count - i < COMPOSE_CHUNK ? fr.touched_count - i : COMPOSE_CHUNK;
        for (size_t k = 0; k < n; k++) {
            out[k] = cna__character_local(c, fr.touched[i + k]);
            in[k] = &fr.acc[fr.touched[i + k]];
        }
        cna__compose_keys(fr.path, out, in, n);
    }
    reset(&fr);
}

/* Ask for `bytes` at p to be brought into the cache, a line at a time. */
static inline void prefetch_bytes(const void *p, size_t bytes)
{
    const char *q = (const char *)p;
    for (size_t i = 0; i < bytes; i += 64) cna__prefetch(q + i);
}

/* The track states and arcs windows with which every contributing layer
 * samples evaluation e (layer 0's are its player's), asked for before the
 * first layer is sampled. Posed among many characters, a character's own
 * states come from beyond the second-level cache (the clips' keys and the
 * thread's scratch are shared by the characters, so they stay near), and
 * the sampling reads them one track at a time, each key search waiting on
 * its track's state: asked for at once, their misses overlap rather than
 * queue. */
static void prefetch_states(cna_character *c, size_t e)
{
    const cna__blend *b = &c->blend;
    const size_t states = b->cursor_first[e + 1] - b->cursor_first[e];
    for (size_t l = 0; l < c->layer_count; l++) {
        const cna__layer *L = &c->layers[l];
        if (L->animation < 0 || !(L->weight > 0.0f)) continue;
        if (L->space) {
            for (size_t k = 0; k < L->bs->active_count; k++) {
                const size_t slot = L->bs->active[k].slot;
                prefetch_bytes(L->bs->tracks + slot * b->cursor_count + b->cursor_first[e],
                               states * sizeof(cna__track_state));
                cna__prefetch(&L->bs->windows[slot * (c->eval_count + 1) + e]);
            }
        } else if (l == 0) {
            size_t count;
            cna__arcs_window *win;
            const cna__track_state *st = cna__player_sampling(c->evals[e].player, &count, &win);
            prefetch_bytes(st, count * sizeof *st);
        } else {
            prefetch_bytes(cna__layer_states(c, l, e), states * sizeof(cna__track_state));
            cna__prefetch(&L->windows[e]);
        }
    }
}

void cna__blend_evaluation(cna_character *c, size_t e)
{
    const cna_model *m = c->model;
    const evaluation *ev = &c->evals[e];
    const cna_model_skin *s = &m->skins[ev->skin];
    const cna_skinning_data *d = &s->data;
    const int32_t n = d->bone_count;
    const joint_ctx ctx = {m, s};
    prefetch_states(c, e);
    frame fr;
    frame_begin(c, &fr);
    sample_layers(c, &fr, e, CNA_BLEND_MODE_OVERRIDE, n, s->palette_to_node, joint_rest, &ctx);
    bool additive = false;
    for (size_t l = 0; l < c->layer_count && !additive; l++) additive = contributes(&c->layers[l], CNA_BLEND_MODE_ADDITIVE);
    const bool snapshot = c->blend.snap_weight > 0.0f;
    if (snapshot) {
        mix_rest(&fr, joint_rest, &ctx);
        mix_snapshot(c, &fr, e, n, s->palette_to_node, joint_rest, &ctx);
    }
    if (additive) {
        if (!snapshot) mix_rest(&fr, joint_rest, &ctx);
        sample_layers(c, &fr, e, CNA_BLEND_MODE_ADDITIVE, n, s->palette_to_node, joint_rest, &ctx);
    }
    cna_mat4 *locals = cna__player_locals(ev->player);
    uint8_t *posed = cna__player_posed(ev->player);
    if (n > 0) memset(posed, 0, (size_t)n);
    /* COMPOSE_CHUNK at a time: the rest mixed in where the weight is short of
     * 1 (unless the additive pass above did it), then composed (the pointers
     * all written before the kernel reads them, four or eight at once);
     * every weight back to 0 */
    for (size_t i = 0; i < fr.touched_count; i += COMPOSE_CHUNK) {
        cna_mat4 *out[COMPOSE_CHUNK];
        const cna_keyframe *in[COMPOSE_CHUNK];
        const size_t count = fr.touched_count - i < COMPOSE_CHUNK ? fr.touched_count - i : COMPOSE_CHUNK;
        batch bt;
        bt.n = 0;
        for (size_t k = 0; k < count; k++) {
            const int32_t slot = fr.touched[i + k];
            if (!additive && !snapshot && fr.cum[slot] < 1.0f) rest_later(&fr, &bt, slot, joint_rest, &ctx);
            fr.cum[slot] = 0.0f;
            out[k] = &locals[slot];
            in[k] = &fr.acc[slot];
            posed[slot] = 1;
        }
        flush_mix(&fr, &bt);
        cna__compose_keys(fr.path, out, in, count);
    }
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

/* A part's blended weights: the override layers, the rest for the
 * remainder, the snapshot, then (with additive) the additive layers. */
static cna_result blend_weights(cna_character *c, size_t mesh, size_t part, float *out, bool additive, cna_error *err)
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
        source src[CNA__BLEND_ACTIVE_MAX];
        const size_t sources = layer_sources(c, L, src);
        for (size_t k = 0; k < sources; k++) {
            const cna_morph_weight_track *track = weight_track(p, src[k].animation);
            const float w = source_weight(L, &src[k], bone);
            if (!track || !(w > 0.0f)) continue;
            if ((r = eval_weights(track, src[k].seconds, x, n, mesh, part, src[k].animation, err)) != CNA_OK) return r;
            if (cum == 0.0f) {
                memcpy(out, x, n * sizeof(float));
                cum = w;
                continue;
            }
            cum += w;
            const float f = w / cum, g = 1.0f - f;
            for (size_t i = 0; i < n; i++) out[i] = out[i] * g + x[i] * f;
        }
    }
    const float *initial = md->initial_weights;
    if (cum < 1.0f) {
        const float f = cum == 0.0f ? 1.0f : 1.0f - cum, g = 1.0f - f;
        for (size_t i = 0; i < n; i++) {
            const float rest = initial && i < md->initial_weight_count ? initial[i] : 0.0f;
            out[i] = cum == 0.0f ? rest : out[i] * g + rest * f;
        }
    }
    if (c->blend.snap_weight > 0.0f && snap_applies(c, bone)) {
        const float f = c->blend.snap_weight, g = 1.0f - f;
        const float *frozen = c->blend.snap_weights + c->blend.snap_wfirst[c->part_first[mesh] + part];
        for (size_t i = 0; i < n; i++) out[i] = out[i] * g + frozen[i] * f;
    }
    for (size_t l = 0; additive && l < c->layer_count; l++) {
        const cna__layer *L = &c->layers[l];
        if (!contributes(L, CNA_BLEND_MODE_ADDITIVE)) continue;
        source src[CNA__BLEND_ACTIVE_MAX];
        const size_t sources = layer_sources(c, L, src);
        for (size_t k = 0; k < sources; k++) {
            const cna_morph_weight_track *track = weight_track(p, src[k].animation);
            const float w = source_weight(L, &src[k], bone);
            if (!track || !(w > 0.0f)) continue;
            if ((r = eval_weights(track, src[k].seconds, x, n, mesh, part, src[k].animation, err)) != CNA_OK) return r;
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
    }
    return CNA_OK;
}

cna_result cna__blend_weights(cna_character *c, size_t mesh, size_t part, float *out, cna_error *err)
{
    return blend_weights(c, mesh, part, out, true, err);
}

/* ------------------------------------------------------------------ capturing the snapshot */

/* Stage 0: store the frame's values of `space` (the pose shown) as the
 * snapshot. Stage 1: from the frame's values (the pose the changed layers
 * give) take the sign each rotation starts from (that nearer the
 * snapshot's), and give a value the snapshot lacks (it was at rest) its rest
 * value. Ends the frame. */
static void store_snapshot(cna_character *c, frame *fr, size_t space, int32_t slot_count, int stage, rest_fn rest,
                           const void *ctx)
{
    cna__blend *b = &c->blend;
    const size_t ref0 = b->ref_first[space];
    for (int32_t slot = 0; slot < slot_count; slot++) {
        const size_t k = ref0 + (size_t)slot;
        const bool now = fr->cum[slot] > 0.0f;
        if (stage == 0) {
            b->snap_has[k] = now;
            if (now) b->snap[k] = fr->acc[slot];
            continue;
        }
        if (!b->snap_has[k] && !now) continue; /* at rest before and after */
        if (!b->snap_has[k]) rest(ctx, slot, &b->snap[k]);
        b->snap_has[k] = 1;
        cna_keyframe after;
        if (now) after = fr->acc[slot];
        else rest(ctx, slot, &after);
        b->snap_prev[k] = continue_sign(after.rotation, b->snap[k].rotation);
    }
    reset(fr);
}

void cna__blend_capture(cna_character *c, int stage)
{
    const cna_model *m = c->model;
    const bool snapshot = stage == 0 && c->blend.snap_weight > 0.0f; /* the pose shown has it */
    for (size_t e = 0; e < c->eval_count; e++) {
        const cna_model_skin *s = &m->skins[c->evals[e].skin];
        const cna_skinning_data *d = &s->data;
        const joint_ctx ctx = {m, s};
        frame fr;
        frame_begin(c, &fr);
        sample_layers(c, &fr, e, CNA_BLEND_MODE_OVERRIDE, d->bone_count, s->palette_to_node, joint_rest, &ctx);
        mix_rest(&fr, joint_rest, &ctx);
        if (snapshot) mix_snapshot(c, &fr, e, d->bone_count, s->palette_to_node, joint_rest, &ctx);
        store_snapshot(c, &fr, e, d->bone_count, stage, joint_rest, &ctx);
    }
    if (m->node_clips) {
        frame fr;
        frame_begin(c, &fr);
        sample_layers(c, &fr, c->eval_count, CNA_BLEND_MODE_OVERRIDE, (int32_t)m->bone_count, NULL, bone_rest, m);
        mix_rest(&fr, bone_rest, m);
        if (snapshot) mix_snapshot(c, &fr, c->eval_count, (int32_t)m->bone_count, NULL, bone_rest, m);
        store_snapshot(c, &fr, c->eval_count, (int32_t)m->bone_count, stage, bone_rest, m);
    } else {
        memset(c->blend.snap_has + c->blend.ref_first[c->eval_count], 0, m->bone_count);
    }
    if (stage == 1) return;
    /* the morphed parts' weights (they evaluated when the character posed,
     * so they do here) */
    for (size_t k = 0; k < c->morphed_count; k++) {
        const size_t mesh = c->morphed[k].mesh, part = c->morphed[k].part;
        const size_t n = m->meshes[mesh].parts[part].morph->target_count;
        float *frozen = c->blend.snap_weights + c->blend.snap_wfirst[c->part_first[mesh] + part];
        if (blend_weights(c, mesh, part, c->scratch, false, NULL) == CNA_OK) memcpy(frozen, c->scratch, n * sizeof(float));
    }
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
