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

static inline cna_vec3 lerp3(cna_vec3 a, cna_vec3 b, float f)
{
    const float g = 1.0f - f;
    return v3(a.x * g + b.x * f, a.y * g + b.y * f, a.z * g + b.z * f);
}

/* Hamilton product a · b (apply b, then a) */
static inline cna_quat qmul(cna_quat a, cna_quat b)
{
    return q4(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                         a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                         a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                         a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}

#if defined(CNA__ANIM_SSE2)
/* qmul(a, b) in four lanes, each lane the scalar operations in the same
 * order: ((a.w·b + ±a.x·b1) + ±a.y·b2) + ±a.z·b3 with b1, b2, b3 the lanes
 * of b each component takes (adding a negated product is subtracting it,
 * and multiplying by ±1 is exact). */
static inline __m128 qmul4(__m128 a, __m128 b)
{
    const __m128 t1 = _mm_mul_ps(_mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 3, 3, 3)), b);
    const __m128 t2 = _mm_mul_ps(_mm_mul_ps(_mm_shuffle_ps(a, a, _MM_SHUFFLE(0, 0, 0, 0)),
                                            _mm_shuffle_ps(b, b, _MM_SHUFFLE(0, 1, 2, 3))),
                                 _mm_setr_ps(1.0f, -1.0f, 1.0f, -1.0f));
    const __m128 t3 = _mm_mul_ps(_mm_mul_ps(_mm_shuffle_ps(a, a, _MM_SHUFFLE(1, 1, 1, 1)),
                                            _mm_shuffle_ps(b, b, _MM_SHUFFLE(1, 0, 3, 2))),
                                 _mm_setr_ps(1.0f, 1.0f, -1.0f, -1.0f));
    const __m128 t4 = _mm_mul_ps(_mm_mul_ps(_mm_shuffle_ps(a, a, _MM_SHUFFLE(2, 2, 2, 2)),
                                            _mm_shuffle_ps(b, b, _MM_SHUFFLE(2, 3, 0, 1))),
                                 _mm_setr_ps(-1.0f, 1.0f, 1.0f, -1.0f));
    return _mm_add_ps(_mm_add_ps(_mm_add_ps(t1, t2), t3), t4);
}
#endif

#if !defined(CNA__ANIM_SSE2)
/* conjugate(r) · k, its terms paired so that k == r gives (0, 0, 0, |r|²)
 * exactly: each pair is the same two products with opposite signs. */
static cna_quat delta_q(cna_quat r, cna_quat k)
{
    return q4((r.w * k.x - r.x * k.w) + (r.z * k.y - r.y * k.z),
                         (r.w * k.y - r.y * k.w) + (r.x * k.z - r.z * k.x),
                         (r.w * k.z - r.z * k.w) + (r.y * k.x - r.x * k.y),
                         r.w * k.w + r.x * k.x + r.y * k.y + r.z * k.z);
}
#endif

static cna_quat qconj(cna_quat q) { return q4(-q.x, -q.y, -q.z, q.w); }


#if !defined(CNA__ANIM_SSE2)
static bool is_identity_q(cna_quat q) { return q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && q.w == 1.0f; }
static bool is_zero3(cna_vec3 v) { return v.x == 0.0f && v.y == 0.0f && v.z == 0.0f; }
#endif

/* ------------------------------------------------------------------ slerps, sixteen at once */

/* The values mixed at once (a multiple of 4), and composed at once. */
#define BATCH 16
#define COMPOSE_CHUNK 64

#if defined(__GNUC__) || defined(__clang__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

/* The scalar slerp, bit for bit cna_quat_slerp (cna__arc_make, then
 * cna__arc_slerp). */
static void slerp1(const cna_quat *a, const cna_quat *b, float t, cna_quat *out)
{
    cna__arc arc;
    cna__arc_make(a, b, &arc);
    cna__arc_slerp(a, b, &arc, t, out);
}

#if defined(CNA__ANIM_SSE2)
static inline __m128 select4(__m128 mask, __m128 yes, __m128 no)
{
    return _mm_or_ps(_mm_and_ps(mask, yes), _mm_andnot_ps(mask, no));
}

/* cna_acosf(x) for 0 <= x <= 1, four lanes: x <= 0.5: PIO2 - asin_poly(x),
 * else 2·asin_poly(sqrt((1 - x)·0.5)) (src/core/math.c's branches), in double
 * precision (vd4, cna__asin_poly4), then rounded to float. */
HOT_INLINE __m128 acos4(__m128 x, bool wide)
{
    (void)wide;
    const vd4 xd = vd4_from_vf4(x), half = vd4_set1(0.5);
    const vd4 small = vd4_cmple(xd, half);
    const vd4 big_z = vd4_sqrt(vd4_mul(vd4_sub(vd4_set1(1.0), xd), half));
    const vd4 p = cna__asin_poly4(vd4_select(small, xd, big_z));
    return vf4_from_vd4(vd4_select(small, vd4_sub(vd4_set1(CNA__PIO2), p), vd4_mul(vd4_set1(2.0), p)));
}

/* (float)sin_poly((double)x) per lane: cna_sinf's direct branch. */
HOT_INLINE __m128 sin_poly4(__m128 x, bool wide)
{
    (void)wide;
    return vf4_from_vd4(cna__sin_poly4(vd4_from_vf4(x)));
}

/* cna_sinf of four floats, bit for bit, where each is 0 (returned as it is)
 * or in its direct branch, 0 < |x| <= pi/2 (sin_poly4). *other gets the lanes
 * that are neither. */
HOT_INLINE __m128 sinf4(__m128 x, __m128 *other, bool wide)
{
    const __m128 ax = _mm_andnot_ps(_mm_set1_ps(-0.0f), x);
    const __m128 zero = _mm_cmpeq_ps(x, _mm_setzero_ps());
    *other = _mm_andnot_ps(_mm_or_ps(zero, _mm_cmple_ps(ax, _mm_set1_ps(CNA__PIO2F))), _mm_castsi128_ps(_mm_set1_epi32(-1)));
    return select4(zero, x, sin_poly4(x, wide));
}

/* slerp_lanes with SSE, in stages over groups of four lanes, so that the
 * long chains of the polynomials of different groups run side by side: the
 * quaternions transposed to x, y, z, w vectors and their dot products; the
 * arcs (cna_acosf); 1 / cna_sinf(theta) and the two weights' sines; the
 * mixes. A lane that leaves the polynomials' range (not for normalised
 * rotations: d <= 1 - 1e-6 gives theta in [0.0014, pi/2]) is made again by
 * the scalar slerp. */
HOT_INLINE void slerp_lanes_body(const cna_quat a[], const cna_quat *const b[], const float t[], cna_quat *const out[],
                                 size_t n, bool wide)
{
    float ax[BATCH], ay[BATCH], az[BATCH], aw[BATCH], bx[BATCH], by[BATCH], bz[BATCH], bw[BATCH];
    float d[BATCH], sign[BATCH], theta[BATCH], wa[BATCH], wb[BATCH];
    const size_t lanes = (n + 3) & ~(size_t)3;
    uint64_t linear = 0, other = 0;
    for (size_t g = 0; g < lanes; g += 4) {
        __m128 qx = _mm_loadu_ps(&a[g].x), qy = _mm_loadu_ps(&a[g + 1].x), qz = _mm_loadu_ps(&a[g + 2].x),
               qw = _mm_loadu_ps(&a[g + 3].x);
        _MM_TRANSPOSE4_PS(qx, qy, qz, qw);
        __m128 rx = _mm_loadu_ps(&b[g]->x), ry = _mm_loadu_ps(&b[g + 1]->x), rz = _mm_loadu_ps(&b[g + 2]->x),
               rw = _mm_loadu_ps(&b[g + 3]->x);
        _MM_TRANSPOSE4_PS(rx, ry, rz, rw);
        _mm_storeu_ps(ax + g, qx);
        _mm_storeu_ps(ay + g, qy);
        _mm_storeu_ps(az + g, qz);
        _mm_storeu_ps(aw + g, qw);
        _mm_storeu_ps(bx + g, rx);
        _mm_storeu_ps(by + g, ry);
        _mm_storeu_ps(bz + g, rz);
        _mm_storeu_ps(bw + g, rw);
        /* d = a·b left to right; sign = -1 and d = -d when d < 0 */
        __m128 dg = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(qx, rx), _mm_mul_ps(qy, ry)), _mm_mul_ps(qz, rz)),
                               _mm_mul_ps(qw, rw));
        const __m128 neg = _mm_cmplt_ps(dg, _mm_setzero_ps());
        _mm_storeu_ps(sign + g, select4(neg, _mm_set1_ps(-1.0f), _mm_set1_ps(1.0f)));
        dg = select4(neg, _mm_xor_ps(dg, _mm_set1_ps(-0.0f)), dg);
        const __m128 lin = _mm_cmpgt_ps(dg, _mm_set1_ps(1.0f - 1e-6f));
        linear |= (uint64_t)_mm_movemask_ps(lin) << g;
        /* a linear lane's arc is not used: 0.5 keeps it on the polynomials */
        _mm_storeu_ps(d + g, select4(lin, _mm_set1_ps(0.5f), dg));
    }
    const uint64_t all = lanes == 64 ? ~(uint64_t)0 : ((uint64_t)1 << lanes) - 1u;
    if (linear != all) {
        /* theta = cna_acosf(d): 0 <= d <= 1, or NaN (caught below) */
        for (size_t g = 0; g < lanes; g += 4) {
            const __m128 dg = _mm_loadu_ps(d + g);
            _mm_storeu_ps(theta + g, acos4(dg, wide));
        }
    }
    for (size_t g = 0; g < lanes; g += 4) {
        const __m128 tg = _mm_loadu_ps(t + g), sg = _mm_loadu_ps(sign + g);
        const __m128 one_t = _mm_sub_ps(_mm_set1_ps(1.0f), tg);
        __m128 wag = one_t, wbg = _mm_mul_ps(tg, sg);
        const unsigned lin_g = (unsigned)(linear >> g) & 0xFu;
        if (lin_g != 0xFu) {
            /* inv_sin = 1 / cna_sinf(theta), its direct branch when theta <= pi/2 as a
             * double (theta <= CNA__PIO2F); the weights' sines (sinf4) */
            const __m128 lin = _mm_castsi128_ps(_mm_setr_epi32(lin_g & 1u ? -1 : 0, lin_g & 2u ? -1 : 0,
                                                               lin_g & 4u ? -1 : 0, lin_g & 8u ? -1 : 0));
            const __m128 th = _mm_loadu_ps(theta + g);
            const __m128 st = sin_poly4(th, wide);
            __m128 oa, ob;
            const __m128 sa = sinf4(_mm_mul_ps(one_t, th), &oa, wide);
            const __m128 sb = sinf4(_mm_mul_ps(tg, th), &ob, wide);
            const __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), st);
            /* NaN d and theta outside (0, pi/2] fail this */
            const __m128 direct =
                _mm_and_ps(_mm_cmpgt_ps(th, _mm_setzero_ps()), _mm_cmple_ps(th, _mm_set1_ps(CNA__PIO2F)));
            const __m128 off = _mm_or_ps(_mm_andnot_ps(direct, _mm_castsi128_ps(_mm_set1_epi32(-1))), _mm_or_ps(oa, ob));
            /* t == 0 returns a whatever the arc */
            const __m128 held = _mm_cmpeq_ps(tg, _mm_setzero_ps());
            other |= (uint64_t)_mm_movemask_ps(_mm_andnot_ps(_mm_or_ps(lin, held), off)) << g;
            wag = select4(lin, wag, _mm_mul_ps(sa, inv));
            wbg = select4(lin, wbg, _mm_mul_ps(_mm_mul_ps(sb, inv), sg));
        }
        _mm_storeu_ps(wa + g, wag);
        _mm_storeu_ps(wb + g, wbg);
    }
    for (size_t g = 0; g < lanes; g += 4) {
        const __m128 w1 = _mm_loadu_ps(wa + g), w2 = _mm_loadu_ps(wb + g);
        const __m128 hold = _mm_cmpeq_ps(_mm_loadu_ps(t + g), _mm_setzero_ps()); /* t == 0: a itself */
        const __m128 qx = _mm_loadu_ps(ax + g), qy = _mm_loadu_ps(ay + g), qz = _mm_loadu_ps(az + g),
                     qw = _mm_loadu_ps(aw + g);
        __m128 ox = select4(hold, qx, _mm_add_ps(_mm_mul_ps(qx, w1), _mm_mul_ps(_mm_loadu_ps(bx + g), w2)));
        __m128 oy = select4(hold, qy, _mm_add_ps(_mm_mul_ps(qy, w1), _mm_mul_ps(_mm_loadu_ps(by + g), w2)));
        __m128 oz = select4(hold, qz, _mm_add_ps(_mm_mul_ps(qz, w1), _mm_mul_ps(_mm_loadu_ps(bz + g), w2)));
        __m128 ow = select4(hold, qw, _mm_add_ps(_mm_mul_ps(qw, w1), _mm_mul_ps(_mm_loadu_ps(bw + g), w2)));
        _MM_TRANSPOSE4_PS(ox, oy, oz, ow);
        _mm_storeu_ps(&out[g]->x, ox);
        _mm_storeu_ps(&out[g + 1]->x, oy);
        _mm_storeu_ps(&out[g + 2]->x, oz);
        _mm_storeu_ps(&out[g + 3]->x, ow);
    }
    if (n < 64) other &= ((uint64_t)1 << n) - 1u;
    for (size_t k = 0; other; k++, other >>= 1)
        if (other & 1u) slerp1(&a[k], b[k], t[k], out[k]);
}
#endif

/* *out[k] = cna_quat_slerp(a[k], *b[k], t[k]) for k < n (1..BATCH), bit for
 * bit: each lane runs its operations in the same order,
 *   d = a·b (left to right); sign = -1 and d = -d when d < 0;
 *   d > 1 - 1e-6: wa = 1 - t, wb = t·sign; else theta = cna_acosf(d),
 *   inv_sin = 1 / cna_sinf(theta), wa = cna_sinf((1 - t)·theta)·inv_sin,
 *   wb = cna_sinf(t·theta)·inv_sin·sign;
 *   out = a·wa + b·wb per component, or a itself when t == 0,
 * with SSE four lanes per register (the trigonometry in double precision by
 * the polynomials of cna_acosf and cna_sinf, two lanes per register),
 * compiled once for the baseline and once with AVX's encodings (the same
 * operations) for that path. The lanes from n up to the next multiple of 4
 * must be filled too (any valid values, and somewhere to write: their
 * results are not used). out[k] must not be a or b of any lane. */
#if defined(CNA__ANIM_SSE2)
static void slerp_lanes_base(const cna_quat a[], const cna_quat *const b[], const float t[], cna_quat *const out[],
                             size_t n)
{
    slerp_lanes_body(a, b, t, out, n, false);
}
#endif

static void slerp_lanes(int path, const cna_quat a[], const cna_quat *const b[], const float t[], cna_quat *const out[],
                        size_t n)
{
    (void)path;
#if defined(CNA__ANIM_SSE2)
    slerp_lanes_base(a, b, t, out, n);
#else
    for (size_t k = 0; k < n; k++) slerp1(&a[k], b[k], t[k], out[k]);
#endif
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
 * its own, so characters on separate threads share nothing. */
static _Thread_local scratch thread_scratch;

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
 * src·f per component of the translation and scale, now (with SSE, four
 * lanes of the keyframe at once: the same operations per lane; the
 * rotation lanes they also write are replaced by the flush), and rotation =
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
#if defined(CNA__ANIM_SSE2)
    const __m128 f4 = _mm_set1_ps(f), g4 = _mm_set1_ps(1.0f - f);
    const __m128 tr = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(&a->translation.x), g4),
                                 _mm_mul_ps(_mm_loadu_ps(&src->translation.x), f4));
    const __m128 ws = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(&a->rotation.w), g4),
                                 _mm_mul_ps(_mm_loadu_ps(&src->rotation.w), f4));
    _mm_storeu_ps(&a->translation.x, tr);
    _mm_storeu_ps(&a->rotation.w, ws);
#else
    a->translation = lerp3(a->translation, src->translation, f);
    a->scale = lerp3(a->scale, src->scale, f);
#endif
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
#if defined(CNA__ANIM_SSE2)
        _mm_storeu_ps(&q->x, qmul4(_mm_loadu_ps(&q->x), _mm_loadu_ps(&part[k].x)));
#else
        *q = qmul(*q, part[k]);
#endif
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
 * With SSE, the keyframe's lanes four at a time (the same operations per
 * lane as the scalar code). */
HOT_INLINE void add(frame *fr, batch *bt, int32_t slot, const cna_keyframe *k, const cna_keyframe *ref, float w,
                    rest_fn rest, const void *ctx)
{
#if defined(CNA__ANIM_SSE2)
    /* (translation, q.x) and (q.w, scale) lanes: dt in 0..2, ds in 1..3 */
    const __m128 dtr = _mm_sub_ps(_mm_loadu_ps(&k->translation.x), _mm_loadu_ps(&ref->translation.x));
    const __m128 dws = _mm_sub_ps(_mm_loadu_ps(&k->rotation.w), _mm_loadu_ps(&ref->rotation.w));
    const bool zero_t = (_mm_movemask_ps(_mm_cmpeq_ps(dtr, _mm_setzero_ps())) & 0x7) == 0x7;
    const bool zero_s = (_mm_movemask_ps(_mm_cmpeq_ps(dws, _mm_setzero_ps())) & 0xE) == 0xE;
    /* delta_q: x, y, z = (r.w·k - r·k.w) + (r.zxy·k.yzx - r.yzx·k.zxy), w as
     * delta_q sums it */
    const __m128 r = _mm_loadu_ps(&ref->rotation.x), q = _mm_loadu_ps(&k->rotation.x);
    const __m128 p = _mm_sub_ps(_mm_mul_ps(_mm_shuffle_ps(r, r, _MM_SHUFFLE(3, 3, 3, 3)), q),
                                _mm_mul_ps(r, _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 3, 3, 3))));
    const __m128 c = _mm_sub_ps(
        _mm_mul_ps(_mm_shuffle_ps(r, r, _MM_SHUFFLE(3, 1, 0, 2)), _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1))),
        _mm_mul_ps(_mm_shuffle_ps(r, r, _MM_SHUFFLE(3, 0, 2, 1)), _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 1, 0, 2))));
    /* w = ((r.w·k.w + r.x·k.x) + r.y·k.y) + r.z·k.z, delta_q's sum */
    const __m128 pr = _mm_mul_ps(r, q);
    __m128 w1 = _mm_add_ss(_mm_shuffle_ps(pr, pr, _MM_SHUFFLE(3, 3, 3, 3)), pr);
    w1 = _mm_add_ss(w1, _mm_shuffle_ps(pr, pr, _MM_SHUFFLE(1, 1, 1, 1)));
    w1 = _mm_add_ss(w1, _mm_shuffle_ps(pr, pr, _MM_SHUFFLE(2, 2, 2, 2)));
    const __m128 xyz = _mm_add_ps(p, c);
    __m128 dq = _mm_shuffle_ps(xyz, _mm_shuffle_ps(xyz, w1, _MM_SHUFFLE(0, 0, 2, 2)), _MM_SHUFFLE(2, 0, 1, 0));
    /* (0, 0, 0, w > 0), a clip at its reference, is the identity exactly;
     * any other delta is normalised by one reciprocal of
     * sqrt(((x² + y²) + z²) + w²); a degenerate sample adds no rotation */
    bool turn = false;
    if (!((_mm_movemask_ps(_mm_cmpeq_ps(dq, _mm_setzero_ps())) & 0x7) == 0x7 && _mm_cvtss_f32(w1) > 0.0f)) {
        const __m128 sq = _mm_mul_ps(dq, dq);
        __m128 l2 = _mm_add_ss(sq, _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(1, 1, 1, 1)));
        l2 = _mm_add_ss(l2, _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(2, 2, 2, 2)));
        l2 = _mm_add_ss(l2, _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(3, 3, 3, 3)));
        const __m128 len4 = _mm_sqrt_ss(l2);
        const float len = _mm_cvtss_f32(len4);
        if (len > 0.0f && isfinite(len)) {
            const __m128 inv = _mm_div_ss(_mm_set_ss(1.0f), len4);
            dq = _mm_mul_ps(dq, _mm_shuffle_ps(inv, inv, _MM_SHUFFLE(0, 0, 0, 0)));
            turn = _mm_movemask_ps(_mm_cmpeq_ps(dq, _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f))) != 0xF;
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
    const __m128 w4 = _mm_set1_ps(w);
    if (!zero_t) { /* lane 3, the rotation's x, kept */
        const __m128 at = _mm_loadu_ps(&a->translation.x);
        _mm_storeu_ps(&a->translation.x, select4(_mm_castsi128_ps(_mm_setr_epi32(0, 0, 0, -1)), at,
                                                 _mm_add_ps(at, _mm_mul_ps(w4, dtr))));
    }
    if (!zero_s) { /* lane 0, the rotation's w, kept */
        const __m128 as = _mm_loadu_ps(&a->rotation.w);
        _mm_storeu_ps(&a->rotation.w, select4(_mm_castsi128_ps(_mm_setr_epi32(-1, 0, 0, 0)), as,
                                              _mm_add_ps(as, _mm_mul_ps(w4, dws))));
    }
    if (turn) {
        _mm_storeu_ps(&bt->delta[bt->n].x, dq);
#else
    const cna_vec3 dt = v3(k->translation.x - ref->translation.x, k->translation.y - ref->translation.y,
                                      k->translation.z - ref->translation.z);
    const cna_vec3 ds = v3(k->scale.x - ref->scale.x, k->scale.y - ref->scale.y, k->scale.z - ref->scale.z);
    cna_quat dq = delta_q(ref->rotation, k->rotation);
    if (dq.x == 0.0f && dq.y == 0.0f && dq.z == 0.0f && dq.w > 0.0f) {
        dq = q4(0.0f, 0.0f, 0.0f, 1.0f);
    } else {
        const float len = sqrtf(dq.x * dq.x + dq.y * dq.y + dq.z * dq.z + dq.w * dq.w);
        const float inv = 1.0f / len;
        dq = len > 0.0f && isfinite(len) ? q4(dq.x * inv, dq.y * inv, dq.z * inv, dq.w * inv)
                                         : q4(0.0f, 0.0f, 0.0f, 1.0f);
    }
    if (is_zero3(dt) && is_zero3(ds) && is_identity_q(dq)) return; /* no delta: nothing changes */
    cna_keyframe *a = &fr->acc[slot];
    if (fr->cum[slot] == 0.0f) { /* no override layer animates it: from its rest value */
        cna_keyframe r;
        rest(ctx, slot, &r);
        a->translation = r.translation;
        a->rotation = r.rotation;
        a->scale = r.scale;
        touch(fr, slot, 1.0f);
    }
    if (!is_zero3(dt))
        a->translation = v3(a->translation.x + w * dt.x, a->translation.y + w * dt.y, a->translation.z + w * dt.z);
    if (!is_zero3(ds)) a->scale = v3(a->scale.x + w * ds.x, a->scale.y + w * ds.y, a->scale.z + w * ds.z);
    if (!is_identity_q(dq)) {
        bt->delta[bt->n] = dq;
#endif
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

/* One layer's clip over the slots of `space` (an evaluation, or
 * eval_count: the scene-node bones): sampled by the player's kernel into
 * the sample buffer, then each sampled slot mixed in. `bone_of` maps a slot
 * to the bone its mask weight and root motion use. */
static void sample_layer(cna_character *c, frame *fr, cna__layer *L, size_t space, const cna_clip *clip,
                         int32_t slot_count, const int32_t *bone_of, cna_blend_mode mode, rest_fn rest,
                         const void *ctx)
{
    const cna__blend *b = &c->blend;
    clip = layer_clip(c, L, space, clip);
    const size_t states = b->cursor_first[space + 1] - b->cursor_first[space];
    const size_t ref0 = b->ref_first[space];
    if (slot_count <= 0 || !clip->tracks || clip->track_count == 0) return;
    /* the first override layer of the pose samples straight into the
     * accumulators (its values are copied by the rule) */
    const bool first = mode == CNA_BLEND_MODE_OVERRIDE && fr->touched_count == 0;
    cna_keyframe *out = first ? fr->acc : fr->sample;
    uint8_t *has = fr->has;
    memset(has, 0, (size_t)slot_count);
    if (L == &c->layers[0] && space < c->eval_count) {
        /* layer 0 plays its players' clip: their sampling state */
        size_t count;
        cna__arcs_window *win;
        cna__track_state *st = cna__player_sampling(c->evals[space].player, &count, &win);
        cna__sample_trs(fr->path, c->fast, clip, L->clock.position, slot_count, st, count, win, out, has);
    } else {
        cna__sample_trs(fr->path, c->fast, clip, L->clock.position, slot_count,
                        cna__layer_states(c, (size_t)(L - c->layers), space), states, &L->windows[space], out, has);
    }
    const bool masked = L->mask != NULL, motion = L->motion_track != NULL;
    batch bt;
    bt.n = 0;
    if (!masked && !motion && mode == CNA_BLEND_MODE_OVERRIDE) {
        /* the common case: the layer's weight (> 0) for every value it animates */
        const float w = L->weight;
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
        const float w = L->weight;
        for (int32_t slot = 0; slot < slot_count; slot++) {
            if (!has[slot]) continue;
            cna_keyframe r;
            const cna_keyframe *ref = &r;
            if (L->ref_has && L->ref_has[ref0 + (size_t)slot])
                ref = &L->ref[ref0 + (size_t)slot];
            else
                rest(ctx, slot, &r);
            add(fr, &bt, slot, &out[slot], ref, w, rest, ctx);
        }
        flush_add(fr, &bt);
        return;
    }
    for (int32_t slot = 0; slot < slot_count; slot++) {
        if (!has[slot]) continue;
        const int32_t bone = bone_of ? bone_of[slot] : slot;
        const float w = masked && bone >= 0 ? L->weight * L->mask[bone] : L->weight;
        if (!(w > 0.0f)) continue;
        cna_keyframe *k = &out[slot];
        if (motion && bone == L->motion_bone) extract(L, k);
        if (first) {
            touch(fr, slot, w);
        } else if (mode == CNA_BLEND_MODE_OVERRIDE) {
            accumulate(fr, &bt, slot, k, w);
        } else {
            cna_keyframe r;
            const cna_keyframe *ref = &r;
            if (L->ref_has && L->ref_has[ref0 + (size_t)slot])
                ref = &L->ref[ref0 + (size_t)slot];
            else
                rest(ctx, slot, &r);
            add(fr, &bt, slot, k, ref, w, rest, ctx);
        }
    }
    if (mode == CNA_BLEND_MODE_ADDITIVE)
        flush_add(fr, &bt);
    else
        flush_mix(fr, &bt);
}

void cna__blend_nodes(cna_character *c)
{
    const cna_model *m = c->model;
    if (!m->node_clips) return;
    frame fr;
    frame_begin(c, &fr);
    for (size_t l = 0; l < c->layer_count; l++) {
        cna__layer *L = &c->layers[l];
        if (!contributes(L, CNA_BLEND_MODE_OVERRIDE)) continue;
        sample_layer(c, &fr, L, c->eval_count, &m->node_clips[L->animation], (int32_t)m->bone_count, NULL,
                     CNA_BLEND_MODE_OVERRIDE, bone_rest, m);
    }
    mix_rest(&fr, bone_rest, m);
    for (size_t l = 0; l < c->layer_count; l++) {
        cna__layer *L = &c->layers[l];
        if (!contributes(L, CNA_BLEND_MODE_ADDITIVE)) continue;
        sample_layer(c, &fr, L, c->eval_count, &m->node_clips[L->animation], (int32_t)m->bone_count, NULL,
                     CNA_BLEND_MODE_ADDITIVE, bone_rest, m);
    }
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

void cna__blend_evaluation(cna_character *c, size_t e)
{
    const cna_model *m = c->model;
    const evaluation *ev = &c->evals[e];
    const cna_model_skin *s = &m->skins[ev->skin];
    const cna_skinning_data *d = &s->data;
    const int32_t n = d->bone_count;
    const joint_ctx ctx = {m, s};
    frame fr;
    frame_begin(c, &fr);
    for (size_t l = 0; l < c->layer_count; l++) {
        cna__layer *L = &c->layers[l];
        if (!contributes(L, CNA_BLEND_MODE_OVERRIDE)) continue;
        sample_layer(c, &fr, L, e, &d->clips[L->animation], n, s->palette_to_node, CNA_BLEND_MODE_OVERRIDE,
                     joint_rest, &ctx);
    }
    bool additive = false;
    for (size_t l = 0; l < c->layer_count && !additive; l++) additive = contributes(&c->layers[l], CNA_BLEND_MODE_ADDITIVE);
    if (additive) {
        mix_rest(&fr, joint_rest, &ctx);
        for (size_t l = 0; l < c->layer_count; l++) {
            cna__layer *L = &c->layers[l];
            if (!contributes(L, CNA_BLEND_MODE_ADDITIVE)) continue;
            sample_layer(c, &fr, L, e, &d->clips[L->animation], n, s->palette_to_node, CNA_BLEND_MODE_ADDITIVE,
                         joint_rest, &ctx);
        }
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
            if (!additive && fr.cum[slot] < 1.0f) rest_later(&fr, &bt, slot, joint_rest, &ctx);
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
