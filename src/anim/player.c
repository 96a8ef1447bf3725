/*
 * The AnimationPlayer (include/cna/player.h; spec: "AnimationPlayer, precisely").
 *
 * Every formula below is in our convention (column vectors, spec `A * B` ==
 * ours `B · A`); the spec's row-vector form is given beside it.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#define CGLM_ALL_UNALIGNED 1
#include <cglm/cglm.h>

#include "anim/anim_internal.h"
#include "cna/player.h"
#include "core/internal.h"

/* Our own SSE code (composition, lerps, the dispatched products) where
 * cglm's SSE path is in use and CNA_NO_SIMD is not defined; the scalar forms
 * (same operations, same order) otherwise. */
#if defined(CGLM_SSE_FP) && defined(CNA__ANIM_SSE2)
#define PLAYER_SSE 1
#endif
/* Wider products (AVX) for gcc and clang on x86-64, chosen at run
 * time (cna_player_create) by what the CPU supports. */
#if defined(PLAYER_SSE) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PLAYER_WIDE 1
#include <immintrin.h>
#endif

/* The per-track helpers of the sampling loop, inlined into it. */
#if defined(__GNUC__) || defined(__clang__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

/* A cursor value meaning "this track's keys are out of time order: sample it
 * with the linear reference search", so that the player's results always
 * equal the spec's linear search bit for bit. */
#define CURSOR_LINEAR SIZE_MAX
/* arc_key when no arc is cached. */
#define ARC_NONE SIZE_MAX

/* Per-instance state of one track of the current clip: the key cursor and
 * the slerp constants of the key interval it was last sampled in (computed
 * again only when the cursor moves to another interval: for 60 Hz playback of
 * 24 Hz keys, two frames in three reuse them). 32 bytes; the samples of an
 * update live on the stack, four at a time. */
typedef cna__track_state track_state;

/* The player lies on whole 64-byte cache lines (its allocation aligned by
 * hand), in three zones, so that a crowd's threads share no line that one of
 * them writes: what every update reads (and only start_clip writes), what
 * the thread updating the player writes every update, and the mark that the
 * crowd's checking thread writes. */
struct cna_player {
    /* read by every update */
    cna_allocator allocator;
    void *block;                   /* this struct's allocation (unaligned) */
    const cna_skinning_data *data; /* borrowed */
    const cna_clip *clip;          /* borrowed; NULL when none */
    const cna_mat4 *prefix;        /* borrowed root prefixes (bone_count), or NULL: the data's */
    int32_t bone_count;            /* fixed at creation: sizes the three arrays */
    int path;                      /* the kernels recompute runs: a cna__player_path */
    bool fast;                     /* CNA_SAMPLING_FAST: rotations by normalised lerp */
    uint8_t matrix_shift;          /* local - its allocation's start, in bytes (0..63) */
    cna_mat4 *local;               /* bone_count each, one allocation, 64-byte aligned */
    cna_mat4 *world;
    cna_mat4 *skin;
    uint8_t *posed;          /* bone_count flags: a track set local[p] this update */
    track_state *tracks;     /* one per track of the current clip */
    size_t cursor_count;     /* tracks the states were set up for */
    size_t cursor_capacity;  /* allocated entries; grows in start_clip only */
    /* written by every update */
    _Alignas(64) int64_t position; /* ticks */
    /* new_arcs' window: while the clip and its tracks with state are the
     * same and arcs_from < position < arcs_until, every track with a cursor
     * is strictly inside the key interval of its cached arc */
    cna__arcs_window arcs;
    /* written only by a cna_crowd_update's check pass */
    _Alignas(64) bool crowd_mark;
};

/* The first 64-byte boundary at or after p (p from an allocation 63 bytes
 * larger than needed). */
static void *align64(void *p)
{
    return (void *)(((uintptr_t)p + 63u) & ~(uintptr_t)63u);
}

/* ------------------------------------------------------------------ position */

/* floor-mod: the r in [0, d) with a = q·d + r (d > 0). */
static int64_t floor_mod(int64_t a, int64_t d)
{
    int64_t r = a % d;
    return r < 0 ? r + d : r;
}

/* a + b, saturated to the int64_t range. */
static int64_t add_saturated(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

/* The position after Update(ticks, relative, loop), exactly, for any int64_t
 * inputs (no overflow):
 *   no clip, or duration <= 0: 0;
 *   loop:    floor-mod(base + ticks, D), computed as
 *            (floor-mod(base, D) + floor-mod(ticks, D)) mod D in unsigned
 *            arithmetic, which equals the floor-mod of the exact sum;
 *   no loop: clamp(base + ticks, 0, D) (a saturated sum clamps the same). */
static int64_t next_position(const cna_player *player, int64_t ticks, bool relative, bool loop)
{
    const int64_t d = player->clip ? player->clip->duration : 0;
    if (d <= 0) return 0;
    const int64_t base = relative ? player->position : 0;
    if (loop) {
        /* the usual step (a position in [0, D) advanced by less than D):
         * both floor-mods are the values themselves, so skip the divisions */
        if (base >= 0 && base < d && ticks >= 0 && ticks < d) {
            const int64_t sum = base + ticks; /* < 2·D: no overflow */
            return sum >= d ? sum - d : sum;
        }
        const uint64_t sum = (uint64_t)floor_mod(base, d) + (uint64_t)floor_mod(ticks, d);
        return (int64_t)(sum >= (uint64_t)d ? sum - (uint64_t)d : sum);
    }
    const int64_t p = add_saturated(base, ticks);
    return p < 0 ? 0 : (p > d ? d : p);
}

/* ------------------------------------------------------------------ recompute */

/* Checks that must pass before anything changes: the skeleton arrays (spec:
 * Recompute's size check and parent order) and the bone count the player was
 * created with (the borrowed data must not have been resized since). */
static cna_result check_data(const cna_player *player, cna_error *err)
{
    const cna_skinning_data *data = player->data;
    if (data->bone_count != player->bone_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "bone_count: %ld differs from the %ld bones the player was created with",
                          (long)data->bone_count, (long)player->bone_count);
    return cna__skeleton_check(data, err);
}

/* ------------------------------------------------------------------ matrix kernels */

/* The fast path calls the very cglm functions src/core/math.c calls (with the
 * same CGLM_ALL_UNALIGNED setting), directly on the matrices: the same
 * instructions in the same order, so the same bits as cna_mat4_compose and
 * cna_mat4_mul, without the by-value arguments and copies of the public
 * wrappers. */

/* out = T(t) · R(r) · S(s): cna_mat4_compose's arithmetic (glm_quat_mat4,
 * then column c times s[c]), operation for operation:
 *   n = |r| (glm_quat_norm), k = n > 0 ? 2 / n : 0,
 *   xx = k·x·x, xy = k·x·y, ... (left to right), column 0 = (1 - yy - zz,
 *   xy + wz, xz - wy) · s.x, column 1 = (xy - wz, 1 - xx - zz, yz + wx) · s.y,
 *   column 2 = (xz + wy, yz - wx, 1 - xx - yy) · s.z, column 3 = (t, 1).
 * With cglm's SSE path the quaternion is built in a register and each column
 * stored whole, so that the multiplications reading it next are not stalled
 * by a load that spans four separate scalar stores. */
static inline void compose_key(cna_mat4 *out, const cna_keyframe *key)
{
    cna__compose_trs(out, &key->translation, &key->rotation, &key->scale);
}

/* out = a · b: cna_mat4_mul's arithmetic (out must not alias a or b). */
static inline void mul(cna_mat4 *restrict out, const cna_mat4 *a, const cna_mat4 *b)
{
    glm_mat4_mul((vec4 *)(void *)(uintptr_t)a->m, (vec4 *)(void *)(uintptr_t)b->m,
                 (vec4 *)(void *)out->m);
}

/* One track at the player's position, with the cursor search and the
 * cached arc: the same key(s) and the same arithmetic as
 * cna_track_sample() (see between() in sample.c), so the same bits. */
/* The interpolation amount of the last interval sampled in this update:
 * tracks keyed at the same times (every track of an imported clip, in union
 * mode and most files in faithful mode) share it, so the 64-bit conversions
 * and the division run once per update instead of once per track. The same
 * inputs give the same bits. */
typedef struct amount_memo {
    int64_t a, b;  /* key times of the interval; a == b: none yet */
    float amount;
} amount_memo;

/* The key cna_track_sample() starts from at t (the cursor updated as it
 * does); when it interpolates, also the slerp constants of the interval
 * (cached per track) and the interpolation amount (shared through memo):
 * returns the first key, *interpolate telling whether key + 1 is blended in. */
HOT_INLINE const cna_keyframe *locate(const cna_bone_track *track, int64_t t, track_state *st,
                                         amount_memo *memo, bool *interpolate, float *amount,
                                         bool *arc_stale)
{
    const cna_keyframe *a, *b;
    const size_t cur = st->cursor;
    if (cur == st->arc_key && cur + 1 < track->key_count && track->keys[cur].ticks < t &&
        t < track->keys[cur + 1].ticks) {
        /* the common case (new_arcs has just checked it for every track
         * but those it skips): still strictly inside the interval of the
         * cursor and its cached arc. For sorted keys cna__track_locate
         * returns the same c = cursor (keys[0] <= keys[c] < t < keys[c + 1]
         * <= keys[n - 1]) and leaves the cursor as it is; this skips its
         * reads of keys[0] and keys[n - 1] and its branches. */
        a = &track->keys[cur];
        b = a + 1;
        *interpolate = true;
    } else {
        const size_t c = cna__track_locate(track, t, &st->cursor, interpolate);
        a = &track->keys[c];
        if (!*interpolate) return a;
        b = a + 1;
        *arc_stale = st->arc_key != c;
        st->arc_key = c; /* the caller makes the arc when it was stale */
    }
    if (memo->a != a->ticks || memo->b != b->ticks) {
        const uint64_t num = (uint64_t)t - (uint64_t)a->ticks;
        const uint64_t den = (uint64_t)b->ticks - (uint64_t)a->ticks;
        memo->amount = (float)((double)num / (double)den);
        memo->a = a->ticks;
        memo->b = b->ticks;
    }
    *amount = memo->amount;
    return a;
}

#if defined(PLAYER_SSE)
/* A sample as three vectors read from or computed like a keyframe's bytes:
 * tr = (translation, rotation.x), q = rotation, ws = (rotation.w, scale).
 * Kept in registers or written and read back whole, so the composition
 * never loads across several smaller stores (a store-forwarding stall). */
typedef struct vsample {
    __m128 tr, q, ws;
} vsample;

HOT_INLINE void vsample_load(const cna_keyframe *k, vsample *out)
{
    out->tr = _mm_loadu_ps(&k->translation.x);
    out->q = _mm_loadu_ps(&k->rotation.x);
    out->ws = _mm_loadu_ps(&k->rotation.w);
}

/* One track at the player's position, its arc already made for this
 * update (new_arcs): the same key(s) and the same arithmetic as
 * cna_track_sample() (see between() in sample.c), so the same bits. The
 * lerps run as two four-lane a + (b - a)·amount over tr and ws, each lane the
 * scalar operations (the rotation lanes are not used); the slerp as
 * a·wa + b·wb over the four lanes of q. */
HOT_INLINE void sample_track(const cna_bone_track *track, int64_t t, track_state *st,
                             amount_memo *memo, vsample *out, bool fast)
{
    bool interpolate, arc_stale = false;
    float amount = 0.0f;
    const cna_keyframe *a = locate(track, t, st, memo, &interpolate, &amount, &arc_stale);
    if (!interpolate) {
        vsample_load(a, out);
        return;
    }
    const cna_keyframe *b = a + 1;
    if (fast) {
        /* CNA_SAMPLING_FAST, an arc of at most CNA__FAST_MAX_ARC: q =
         * normalize(qa + (±qb - qa)·amount), no trigonometry */
        const float d = a->rotation.x * b->rotation.x + a->rotation.y * b->rotation.y +
                        a->rotation.z * b->rotation.z + a->rotation.w * b->rotation.w;
        if (fabsf(d) >= CNA__FAST_MIN_DOT) {
            const __m128 am = _mm_set1_ps(amount);
            const __m128 ta = _mm_loadu_ps(&a->translation.x), tb = _mm_loadu_ps(&b->translation.x);
            const __m128 sa = _mm_loadu_ps(&a->rotation.w), sb = _mm_loadu_ps(&b->rotation.w);
            out->tr = _mm_add_ps(ta, _mm_mul_ps(_mm_sub_ps(tb, ta), am));
            out->ws = _mm_add_ps(sa, _mm_mul_ps(_mm_sub_ps(sb, sa), am));
            const __m128 qa = _mm_loadu_ps(&a->rotation.x);
            __m128 qb = _mm_loadu_ps(&b->rotation.x);
            if (d < 0.0f) qb = _mm_xor_ps(qb, _mm_set1_ps(-0.0f));
            const __m128 q = _mm_add_ps(qa, _mm_mul_ps(_mm_sub_ps(qb, qa), am));
            __m128 n2 = _mm_mul_ps(q, q);
            n2 = _mm_add_ps(n2, _mm_shuffle_ps(n2, n2, _MM_SHUFFLE(2, 3, 0, 1)));
            n2 = _mm_add_ps(n2, _mm_shuffle_ps(n2, n2, _MM_SHUFFLE(1, 0, 3, 2)));
            out->q = _mm_div_ps(q, _mm_sqrt_ps(n2));
            return;
        }
        /* a wider arc: the exact slerp (its arc made here, new_arcs does not run) */
    }
    /* new_arcs made it, unless the clip changed under its window (a track
     * made usable after start_clip): then here, the same bits */
    if (arc_stale) cna__arc_make(&a->rotation, &b->rotation, &st->arc);
    const __m128 am = _mm_set1_ps(amount);
    const __m128 ta = _mm_loadu_ps(&a->translation.x), tb = _mm_loadu_ps(&b->translation.x);
    const __m128 sa = _mm_loadu_ps(&a->rotation.w), sb = _mm_loadu_ps(&b->rotation.w);
    const __m128 qa = _mm_loadu_ps(&a->rotation.x);
    out->tr = _mm_add_ps(ta, _mm_mul_ps(_mm_sub_ps(tb, ta), am));
    out->ws = _mm_add_ps(sa, _mm_mul_ps(_mm_sub_ps(sb, sa), am));
    float wa, wb;
    if (!cna__arc_weights(&st->arc, amount, &wa, &wb)) {
        out->q = qa;
        return;
    }
    out->q = _mm_add_ps(_mm_mul_ps(qa, _mm_set1_ps(wa)),
                        _mm_mul_ps(_mm_loadu_ps(&b->rotation.x), _mm_set1_ps(wb)));
}

/* Before sampling: the arcs of the key intervals the tracks enter in this
 * update (for 60 Hz playback of 24 or 30 Hz keys, every track every two or
 * three frames), the trigonometric ones eight at a time (cna__arc_trig8:
 * four independent SSE2 chains instead of one per track, two AVX or one
 * chain on that path: cna__arc_trig8_path; one alone as
 * cna__arc_make). The cursors move here as cna__track_locate moves them;
 * the sampling pass finds them already in place. */
static void new_arcs_in(int path, const cna_clip *clip, track_state *tracks, size_t states, int64_t t, int32_t n,
                        cna__arcs_window *win)
{
    if (clip == win->clip && states == win->states && win->from < t && t < win->until)
        return; /* no track leaves its interval */
    float d[8];
    cna__arc *out[8];
    size_t count = 0;
    int64_t from = INT64_MIN, until = INT64_MAX;
    bool inside = true; /* every track with a cursor interpolates */
    for (size_t i = 0; i < states; ++i) {
        const cna_bone_track *track = &clip->tracks[i];
        const int32_t bone = track->bone;
        if (track->key_count == 0 || !track->keys || bone < 0 || bone >= n) continue;
        track_state *st = &tracks[i];
        const size_t c = st->cursor;
        if (c == CURSOR_LINEAR) continue;
        const cna_keyframe *k = track->keys;
        /* still strictly inside the interval of the cached arc */
        if (c == st->arc_key && c + 1 < track->key_count && k[c].ticks < t && t < k[c + 1].ticks) {
            if (k[c].ticks > from) from = k[c].ticks;
            if (k[c + 1].ticks < until) until = k[c + 1].ticks;
            continue;
        }
        bool interpolate;
        size_t now;
        if (c == st->arc_key && c + 2 < track->key_count && k[c + 1].ticks < t &&
            t < k[c + 2].ticks) {
            /* the usual move: strictly inside the next interval, which
             * cna__track_locate returns for sorted keys (the bracket is
             * unique), moving the cursor there */
            now = c + 1;
            st->cursor = now;
            interpolate = true;
        } else {
            now = cna__track_locate(track, t, &st->cursor, &interpolate);
        }
        if (!interpolate) {
            inside = false;
            continue;
        }
        if (k[now].ticks > from) from = k[now].ticks;
        if (k[now + 1].ticks < until) until = k[now + 1].ticks;
        if (now == st->arc_key) continue;
        st->arc_key = now;
        if (cna__arc_begin(&k[now].rotation, &k[now + 1].rotation, &st->arc, &d[count])) {
            out[count] = &st->arc;
            if (++count == 8) {
                cna__arc_trig8_path(path, d, out, count);
                count = 0;
            }
        }
    }
    if (count == 1) {
        out[0]->theta = cna_acosf(d[0]);
        out[0]->inv_sin = 1.0f / cna_sinf(out[0]->theta);
    } else if (count > 1) {
        cna__arc_trig8_path(path, d, out, count);
    }
    win->clip = inside ? clip : NULL;
    win->states = states;
    win->from = from;
    win->until = until;
}

static void new_arcs(cna_player *player, size_t states, int64_t t)
{
    new_arcs_in(player->path, player->clip, player->tracks, states, t, player->bone_count, &player->arcs);
}
/* compose_key for four samples at once, one per SSE lane: every lane runs
 * compose_key's operations in the same order (sqrt and division are
 * correctly rounded per lane; the norm sums (x² + y²) + (z² + w²) as
 * glmm_norm does), so each matrix has the same bits. Stores in lane order
 * per column (a later lane for the same bone wins). */
HOT_INLINE void compose4(cna_mat4 *const out[4], const vsample in[4])
{
    __m128 x = in[0].q, y = in[1].q, z = in[2].q, w = in[3].q;
    _MM_TRANSPOSE4_PS(x, y, z, w); /* x = the four keys' x, ... */
    __m128 junk = in[0].ws, scx = in[1].ws, scy = in[2].ws, scz = in[3].ws;
    _MM_TRANSPOSE4_PS(junk, scx, scy, scz); /* scx = the four keys' scale.x, ... */
    (void)junk;
    const __m128 norm = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)),
                                               _mm_add_ps(_mm_mul_ps(z, z), _mm_mul_ps(w, w))));
    const __m128 s = _mm_and_ps(_mm_cmpgt_ps(norm, _mm_setzero_ps()),
                                _mm_div_ps(_mm_set1_ps(2.0f), norm));
    const __m128 sx_ = _mm_mul_ps(s, x), sy_ = _mm_mul_ps(s, y), sz_ = _mm_mul_ps(s, z),
                 sw_ = _mm_mul_ps(s, w);
    const __m128 xx = _mm_mul_ps(sx_, x), xy = _mm_mul_ps(sx_, y), wx = _mm_mul_ps(sw_, x);
    const __m128 yy = _mm_mul_ps(sy_, y), yz = _mm_mul_ps(sy_, z), wy = _mm_mul_ps(sw_, y);
    const __m128 zz = _mm_mul_ps(sz_, z), xz = _mm_mul_ps(sx_, z), wz = _mm_mul_ps(sw_, z);
    const __m128 one = _mm_set1_ps(1.0f);
    __m128 c[3][4]; /* c[column][row] for the four keys */
    c[0][0] = _mm_mul_ps(_mm_sub_ps(_mm_sub_ps(one, yy), zz), scx);
    c[0][1] = _mm_mul_ps(_mm_add_ps(xy, wz), scx);
    c[0][2] = _mm_mul_ps(_mm_sub_ps(xz, wy), scx);
    c[1][0] = _mm_mul_ps(_mm_sub_ps(xy, wz), scy);
    c[1][1] = _mm_mul_ps(_mm_sub_ps(_mm_sub_ps(one, xx), zz), scy);
    c[1][2] = _mm_mul_ps(_mm_add_ps(yz, wx), scy);
    c[2][0] = _mm_mul_ps(_mm_add_ps(xz, wy), scz);
    c[2][1] = _mm_mul_ps(_mm_sub_ps(yz, wx), scz);
    c[2][2] = _mm_mul_ps(_mm_sub_ps(_mm_sub_ps(one, xx), yy), scz);
    for (int col = 0; col < 3; ++col) {
        __m128 r0 = c[col][0], r1 = c[col][1], r2 = c[col][2], r3 = _mm_setzero_ps();
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3); /* r0 = key 0's column, ... */
        _mm_storeu_ps(out[0]->m + 4 * col, r0);
        _mm_storeu_ps(out[1]->m + 4 * col, r1);
        _mm_storeu_ps(out[2]->m + 4 * col, r2);
        _mm_storeu_ps(out[3]->m + 4 * col, r3);
    }
    /* column 3 = (translation, 1): lane 3 replaced bit for bit */
    const __m128 xyz = _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0));
    const __m128 w1 = _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f);
    for (int k = 0; k < 4; ++k)
        _mm_storeu_ps(out[k]->m + 12, _mm_or_ps(_mm_and_ps(in[k].tr, xyz), w1));
}
#if defined(PLAYER_WIDE)
#define AVX_TARGET __attribute__((target("avx")))

/* _MM_TRANSPOSE4_PS within each 128-bit half of four 256-bit registers. */
#define TRANSPOSE4_HALVES(r0, r1, r2, r3)                                   \
    do {                                                                    \
        const __m256 t0_ = _mm256_unpacklo_ps(r0, r1), t1_ = _mm256_unpacklo_ps(r2, r3); \
        const __m256 t2_ = _mm256_unpackhi_ps(r0, r1), t3_ = _mm256_unpackhi_ps(r2, r3); \
        (r0) = _mm256_shuffle_ps(t0_, t1_, 0x44);                           \
        (r1) = _mm256_shuffle_ps(t0_, t1_, 0xEE);                           \
        (r2) = _mm256_shuffle_ps(t2_, t3_, 0x44);                           \
        (r3) = _mm256_shuffle_ps(t2_, t3_, 0xEE);                           \
    } while (0)

/* compose4 for eight samples (the AVX path): samples k and k + 4
 * in the two halves of one 256-bit register, so each half runs compose4's
 * operations for its four samples, lane for lane the same (sqrt and
 * division correctly rounded per lane), hence the same bits. Stores in
 * sample order per column (a later sample for the same bone wins). */
AVX_TARGET static inline void compose8(cna_mat4 *const out[8], const vsample in[8])
{
#define HALVES(a, b) _mm256_insertf128_ps(_mm256_castps128_ps256(a), (b), 1)
    __m256 x = HALVES(in[0].q, in[4].q), y = HALVES(in[1].q, in[5].q),
           z = HALVES(in[2].q, in[6].q), w = HALVES(in[3].q, in[7].q);
    TRANSPOSE4_HALVES(x, y, z, w);
    __m256 junk = HALVES(in[0].ws, in[4].ws), scx = HALVES(in[1].ws, in[5].ws),
           scy = HALVES(in[2].ws, in[6].ws), scz = HALVES(in[3].ws, in[7].ws);
    TRANSPOSE4_HALVES(junk, scx, scy, scz);
    (void)junk;
#undef HALVES
    const __m256 zero = _mm256_setzero_ps();
    const __m256 norm = _mm256_sqrt_ps(
        _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(y, y)),
                      _mm256_add_ps(_mm256_mul_ps(z, z), _mm256_mul_ps(w, w))));
    const __m256 s = _mm256_and_ps(_mm256_cmp_ps(norm, zero, _CMP_GT_OQ),
                                   _mm256_div_ps(_mm256_set1_ps(2.0f), norm));
    const __m256 sx_ = _mm256_mul_ps(s, x), sy_ = _mm256_mul_ps(s, y), sz_ = _mm256_mul_ps(s, z),
                 sw_ = _mm256_mul_ps(s, w);
    const __m256 xx = _mm256_mul_ps(sx_, x), xy = _mm256_mul_ps(sx_, y), wx = _mm256_mul_ps(sw_, x);
    const __m256 yy = _mm256_mul_ps(sy_, y), yz = _mm256_mul_ps(sy_, z), wy = _mm256_mul_ps(sw_, y);
    const __m256 zz = _mm256_mul_ps(sz_, z), xz = _mm256_mul_ps(sx_, z), wz = _mm256_mul_ps(sw_, z);
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 c[3][4]; /* c[column][row] for the eight keys */
    c[0][0] = _mm256_mul_ps(_mm256_sub_ps(_mm256_sub_ps(one, yy), zz), scx);
    c[0][1] = _mm256_mul_ps(_mm256_add_ps(xy, wz), scx);
    c[0][2] = _mm256_mul_ps(_mm256_sub_ps(xz, wy), scx);
    c[1][0] = _mm256_mul_ps(_mm256_sub_ps(xy, wz), scy);
    c[1][1] = _mm256_mul_ps(_mm256_sub_ps(_mm256_sub_ps(one, xx), zz), scy);
    c[1][2] = _mm256_mul_ps(_mm256_add_ps(yz, wx), scy);
    c[2][0] = _mm256_mul_ps(_mm256_add_ps(xz, wy), scz);
    c[2][1] = _mm256_mul_ps(_mm256_sub_ps(yz, wx), scz);
    c[2][2] = _mm256_mul_ps(_mm256_sub_ps(_mm256_sub_ps(one, xx), yy), scz);
    for (int col = 0; col < 3; ++col) {
        __m256 r0 = c[col][0], r1 = c[col][1], r2 = c[col][2], r3 = zero;
        TRANSPOSE4_HALVES(r0, r1, r2, r3); /* r0 = key 0's column | key 4's, ... */
        _mm_storeu_ps(out[0]->m + 4 * col, _mm256_castps256_ps128(r0));
        _mm_storeu_ps(out[1]->m + 4 * col, _mm256_castps256_ps128(r1));
        _mm_storeu_ps(out[2]->m + 4 * col, _mm256_castps256_ps128(r2));
        _mm_storeu_ps(out[3]->m + 4 * col, _mm256_castps256_ps128(r3));
        _mm_storeu_ps(out[4]->m + 4 * col, _mm256_extractf128_ps(r0, 1));
        _mm_storeu_ps(out[5]->m + 4 * col, _mm256_extractf128_ps(r1, 1));
        _mm_storeu_ps(out[6]->m + 4 * col, _mm256_extractf128_ps(r2, 1));
        _mm_storeu_ps(out[7]->m + 4 * col, _mm256_extractf128_ps(r3, 1));
    }
    /* column 3 = (translation, 1): lane 3 replaced bit for bit */
    const __m128 xyz = _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0));
    const __m128 w1 = _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f);
    for (int k = 0; k < 8; ++k)
        _mm_storeu_ps(out[k]->m + 12, _mm_or_ps(_mm_and_ps(in[k].tr, xyz), w1));
}
#endif
#else
/* One track at the player's position, as above, into *out (the key itself
 * when t holds it). */
static inline const cna_keyframe *sample_track(const cna_bone_track *track, int64_t t,
                                               track_state *st, amount_memo *memo,
                                               cna_keyframe *out, bool fast)
{
    bool interpolate;
    float amount = 0.0f;
    bool arc_stale = false;
    const cna_keyframe *a = locate(track, t, st, memo, &interpolate, &amount, &arc_stale);
    if (!interpolate) return a;
    const cna_keyframe *b = a + 1;
    bool nlerp = false;
    if (fast) {
        const float d = a->rotation.x * b->rotation.x + a->rotation.y * b->rotation.y +
                        a->rotation.z * b->rotation.z + a->rotation.w * b->rotation.w;
        nlerp = fabsf(d) >= CNA__FAST_MIN_DOT;
        const float sg = d < 0.0f ? -1.0f : 1.0f;
        cna_quat q;
        q.x = a->rotation.x + (sg * b->rotation.x - a->rotation.x) * amount;
        q.y = a->rotation.y + (sg * b->rotation.y - a->rotation.y) * amount;
        q.z = a->rotation.z + (sg * b->rotation.z - a->rotation.z) * amount;
        q.w = a->rotation.w + (sg * b->rotation.w - a->rotation.w) * amount;
        const float n = sqrtf((q.x * q.x + q.y * q.y) + (q.z * q.z + q.w * q.w));
        out->rotation.x = q.x / n;
        out->rotation.y = q.y / n;
        out->rotation.z = q.z / n;
        out->rotation.w = q.w / n;
    }
    if (arc_stale && !nlerp) cna__arc_make(&a->rotation, &b->rotation, &st->arc);
    out->translation.x = a->translation.x + (b->translation.x - a->translation.x) * amount;
    out->translation.y = a->translation.y + (b->translation.y - a->translation.y) * amount;
    out->translation.z = a->translation.z + (b->translation.z - a->translation.z) * amount;
    out->scale.x = a->scale.x + (b->scale.x - a->scale.x) * amount;
    out->scale.y = a->scale.y + (b->scale.y - a->scale.y) * amount;
    out->scale.z = a->scale.z + (b->scale.z - a->scale.z) * amount;
    if (!nlerp) cna__arc_slerp(&a->rotation, &b->rotation, &st->arc, amount, &out->rotation);
    return out;
}
#endif

#if defined(PLAYER_SSE)
/* The first `wide ? 8 : 4` samples composed (compose8 on the AVX and
 * path only). */
HOT_INLINE void compose(cna_mat4 *const out[8], const vsample in[8], bool wide)
{
#if defined(PLAYER_WIDE)
    if (wide) {
        compose8(out, in);
        return;
    }
#else
    (void)wide;
#endif
    compose4(out, in);
}
#endif

/* Each usable track of the clip replaces its bone's local transform:
 *   local[bone] = T(t) · R(r) · S(s)   (spec: Scale * Rotation * Translation).
 * Tracks without keys, or with a bone outside 0..bone_count-1, are ignored.
 * With SSE, tracks are sampled in order into a buffer on the stack of four
 * entries (eight on the AVX path: compose8) and each full
 * buffer is composed at once (a last partial one padded with copies of its
 * last entry, which rewrite that matrix with the same values), so the
 * matrices are still written in track order (a later track for the same
 * bone wins) and nothing per track outlives the update but its cursor and
 * cached arc. */
HOT_INLINE void sample_clip_body(cna_player *player, bool wide)
{
    const cna_clip *clip = player->clip;
    if (!clip || !clip->tracks) return;
    const int64_t t = player->position;
    const int32_t n = player->bone_count;
    const size_t states = clip->track_count < player->cursor_count ? clip->track_count
                                                                   : player->cursor_count;
    amount_memo memo = {0, 0, 0.0f}; /* interpolated intervals have a < b */
    const bool fast = player->fast;
#if defined(PLAYER_SSE)
    if (!fast) new_arcs(player, states, t);
    vsample buf[8];
    cna_mat4 *out[8];
    size_t batch = 0;
    const size_t width = wide ? 8 : 4;
#else
    (void)wide;
#endif
    for (size_t i = 0; i < states; ++i) {
        const cna_bone_track *track = &clip->tracks[i];
        const int32_t bone = track->bone;
        if (track->key_count == 0 || !track->keys || bone < 0 || bone >= n) continue;
        track_state *st = &player->tracks[i];
        player->posed[bone] = 1;
#if defined(PLAYER_SSE)
        if (st->cursor != CURSOR_LINEAR) {
            sample_track(track, t, st, &memo, &buf[batch], fast);
        } else {
            cna_keyframe key;
            cna_track_sample_linear(track, t, &key);
            vsample_load(&key, &buf[batch]);
        }
        out[batch] = &player->local[bone];
        if (++batch == width) {
            compose(out, buf, wide);
            batch = 0;
        }
#else
        cna_keyframe key;
        const cna_keyframe *k = &key;
        if (st->cursor != CURSOR_LINEAR)
            k = sample_track(track, t, st, &memo, &key, fast);
        else
            cna_track_sample_linear(track, t, &key);
        compose_key(&player->local[bone], k);
#endif
    }
#if defined(PLAYER_SSE)
    if (batch > 0) {
        /* a last batch of up to four is composed four wide on every path */
        const bool last_wide = wide && batch > 4;
        for (size_t k = batch; k < (last_wide ? 8u : 4u); ++k) {
            buf[k] = buf[batch - 1];
            out[k] = out[batch - 1];
        }
        compose(out, buf, last_wide);
    }
#endif
    /* a track added after start_clip (the clip was edited) has no state */
    for (size_t i = states; i < clip->track_count; ++i) {
        const cna_bone_track *track = &clip->tracks[i];
        if (track->key_count == 0 || !track->keys) continue;
        if (track->bone < 0 || track->bone >= n) continue;
        cna_keyframe key;
        cna_track_sample_linear(track, t, &key);
        compose_key(&player->local[track->bone], &key);
        player->posed[track->bone] = 1;
    }
}

/* sample_clip_body compiled once per path: for the baseline, and with AVX
 * (VEX three-operand encodings: no register copies) enabled. The same C, hence the same IEEE
 * operations in the same order per element (-ffp-contract=off: no fused
 * multiply-add), so the same bits on every path. */
static void sample_clip(cna_player *player) { sample_clip_body(player, false); }
#if defined(PLAYER_WIDE)
AVX_TARGET static void sample_clip_avx(cna_player *player) { sample_clip_body(player, true); }
#endif

/* ------------------------------------------------------------------ the kernels for the character's layers */

void cna__track_states_start(const cna_clip *clip, cna__track_state *states, size_t count, cna__arcs_window *win)
{
    for (size_t i = 0; i < count; ++i) {
        const cna_bone_track *track = clip && clip->tracks && i < clip->track_count ? &clip->tracks[i] : NULL;
        const bool sorted = !track || (track->keys && cna__track_is_sorted(track));
        states[i].cursor = sorted ? 0 : CURSOR_LINEAR;
        states[i].arc_key = ARC_NONE;
    }
    win->clip = NULL;
}

#if defined(PLAYER_SSE)
/* A vsample written as a keyframe's translation, rotation and scale: tr
 * (translation, a stale rotation.x), ws (a stale rotation.w, scale), then q
 * over both stale lanes, so the bytes are the sample's. */
HOT_INLINE void vsample_store(const vsample *v, cna_keyframe *k)
{
    _mm_storeu_ps(&k->translation.x, v->tr);
    _mm_storeu_ps(&k->rotation.w, v->ws);
    _mm_storeu_ps(&k->rotation.x, v->q);
}
#endif

void cna__sample_trs(int path, bool fast, const cna_clip *clip, int64_t t, int32_t bone_count,
                     cna__track_state *states, size_t state_count, cna__arcs_window *win, cna_keyframe *out,
                     uint8_t *posed)
{
    if (!clip || !clip->tracks) return;
    const int32_t n = bone_count;
    const size_t count = clip->track_count < state_count ? clip->track_count : state_count;
    amount_memo memo = {0, 0, 0.0f};
#if defined(PLAYER_SSE)
    if (!fast) new_arcs_in(path, clip, states, count, t, n, win);
#else
    (void)path;
    (void)win;
#endif
    for (size_t i = 0; i < count; ++i) {
        const cna_bone_track *track = &clip->tracks[i];
        const int32_t bone = track->bone;
        if (track->key_count == 0 || !track->keys || bone < 0 || bone >= n) continue;
        track_state *st = &states[i];
        posed[bone] = 1;
        if (st->cursor == CURSOR_LINEAR) {
            cna_track_sample_linear(track, t, &out[bone]);
            continue;
        }
#if defined(PLAYER_SSE)
        vsample v;
        sample_track(track, t, st, &memo, &v, fast);
        vsample_store(&v, &out[bone]);
#else
        cna_keyframe key;
        const cna_keyframe *k = sample_track(track, t, st, &memo, &key, fast);
        out[bone].translation = k->translation;
        out[bone].rotation = k->rotation;
        out[bone].scale = k->scale;
#endif
    }
    for (size_t i = count; i < clip->track_count; ++i) {
        const cna_bone_track *track = &clip->tracks[i];
        if (track->key_count == 0 || !track->keys || track->bone < 0 || track->bone >= n) continue;
        cna_track_sample_linear(track, t, &out[track->bone]);
        posed[track->bone] = 1;
    }
}

#if defined(PLAYER_SSE)
HOT_INLINE void compose_keys_body(cna_mat4 *const *out, const cna_keyframe *const *in, size_t count, bool wide)
{
    const size_t width = wide ? 8 : 4;
    vsample buf[8];
    cna_mat4 *dst[8];
    size_t i = 0;
    for (; i + width <= count; i += width) {
        for (size_t k = 0; k < width; ++k) {
            vsample_load(in[i + k], &buf[k]);
            dst[k] = out[i + k];
        }
        compose(dst, buf, wide);
    }
    while (i < count) { /* the rest four at a time, padded with copies of the last */
        size_t k = 0;
        for (; k < 4 && i + k < count; ++k) {
            vsample_load(in[i + k], &buf[k]);
            dst[k] = out[i + k];
        }
        for (size_t j = k; j < 4; ++j) {
            buf[j] = buf[k - 1];
            dst[j] = dst[k - 1];
        }
        compose4(dst, buf);
        i += k;
    }
}
static void compose_keys_base(cna_mat4 *const *out, const cna_keyframe *const *in, size_t count)
{
    compose_keys_body(out, in, count, false);
}
#if defined(PLAYER_WIDE)
AVX_TARGET static void compose_keys_avx(cna_mat4 *const *out, const cna_keyframe *const *in, size_t count)
{
    compose_keys_body(out, in, count, true);
}
#endif
#endif

void cna__compose_keys(int path, cna_mat4 *const *out, const cna_keyframe *const *in, size_t count)
{
#if defined(PLAYER_SSE)
#if defined(PLAYER_WIDE)
    if (path != CNA__PLAYER_PATH_BASE) {
        compose_keys_avx(out, in, count);
        return;
    }
#else
    (void)path;
#endif
    compose_keys_base(out, in, count);
#else
    (void)path;
    for (size_t i = 0; i < count; ++i) compose_key(out[i], in[i]);
#endif
}

/* After sampling, in index order:
 *   local[p] = bind_pose[p]                     bones no track set
 *   world[p] = world[parent] · local[p]         parent >= 0  (spec: local[p] * world[parent])
 *   world[p] = prefix[p] · local[p]             root, prefix used (spec: L_root * P_root)
 *   world[p] = local[p]                         root otherwise
 *   skin[p]  = world[p] · inverse_bind[p]       (spec: InverseBindPose[p] * world[p])
 * The prefix is used only when root_prefix_count == bone_count. Every path
 * computes each product element as cna_mat4_mul does (cglm's SSE product):
 *   out[c][r] = ((a[0][r]·b[c][0] + a[1][r]·b[c][1]) + a[2][r]·b[c][2]) + a[3][r]·b[c][3]
 * with the same operand order, so the same bits; the wider paths only run
 * more columns per instruction. */
/* The root prefixes an update composes with: the ones handed to
 * cna_player_set_root_prefix, else the data's when root_prefix_count ==
 * bone_count, else none. */
static const cna_mat4 *root_prefix(const cna_player *player, const cna_skinning_data *data)
{
    if (player->prefix) return player->prefix;
    return data->root_prefix_count == (size_t)player->bone_count ? data->root_prefix : NULL;
}

static void hierarchy_base(cna_player *player, const cna_skinning_data *data)
{
    const int32_t n = player->bone_count;
    const cna_mat4 *prefix = root_prefix(player, data);
    const bool prefixed = prefix != NULL;
    for (int32_t p = 0; p < n; ++p) {
        if (!player->posed[p]) player->local[p] = data->bind_pose[p];
        const int32_t parent = data->hierarchy[p];
        if (parent >= 0)
            mul(&player->world[p], &player->world[parent], &player->local[p]);
        else if (prefixed)
            mul(&player->world[p], &prefix[p], &player->local[p]);
        else
            player->world[p] = player->local[p];
        mul(&player->skin[p], &player->world[p], &data->inverse_bind_pose[p]);
    }
}

#if defined(PLAYER_WIDE)
/* AVX: columns (0, 1) and (2, 3) of b in two 256-bit registers; a's column
 * i broadcast to both halves; b's component i of each column splatted within
 * its half (vpermilps), so each half runs cglm's SSE product for one column. */
AVX_TARGET static inline void mul_avx(__m256 a0, __m256 a1, __m256 a2, __m256 a3, __m256 b01,
                                      __m256 b23, __m256 *o01, __m256 *o23)
{
    __m256 v = _mm256_mul_ps(_mm256_permute_ps(b01, 0x00), a0);
    __m256 u = _mm256_mul_ps(_mm256_permute_ps(b23, 0x00), a0);
    v = _mm256_add_ps(v, _mm256_mul_ps(_mm256_permute_ps(b01, 0x55), a1));
    u = _mm256_add_ps(u, _mm256_mul_ps(_mm256_permute_ps(b23, 0x55), a1));
    v = _mm256_add_ps(v, _mm256_mul_ps(_mm256_permute_ps(b01, 0xAA), a2));
    u = _mm256_add_ps(u, _mm256_mul_ps(_mm256_permute_ps(b23, 0xAA), a2));
    v = _mm256_add_ps(v, _mm256_mul_ps(_mm256_permute_ps(b01, 0xFF), a3));
    u = _mm256_add_ps(u, _mm256_mul_ps(_mm256_permute_ps(b23, 0xFF), a3));
    *o01 = v;
    *o23 = u;
}

/* a from memory (its columns broadcast by the loads) */
AVX_TARGET static inline void mul_avx_mem(const float *a, __m256 b01, __m256 b23, __m256 *o01,
                                          __m256 *o23)
{
    mul_avx(_mm256_broadcast_ps((const __m128 *)(const void *)(a + 0)),
            _mm256_broadcast_ps((const __m128 *)(const void *)(a + 4)),
            _mm256_broadcast_ps((const __m128 *)(const void *)(a + 8)),
            _mm256_broadcast_ps((const __m128 *)(const void *)(a + 12)), b01, b23, o01, o23);
}

/* a in registers (a01 = columns 0 and 1, a23 = 2 and 3) */
AVX_TARGET static inline void mul_avx_reg(__m256 a01, __m256 a23, __m256 b01, __m256 b23,
                                          __m256 *o01, __m256 *o23)
{
    mul_avx(_mm256_permute2f128_ps(a01, a01, 0x00), _mm256_permute2f128_ps(a01, a01, 0x11),
            _mm256_permute2f128_ps(a23, a23, 0x00), _mm256_permute2f128_ps(a23, a23, 0x11), b01,
            b23, o01, o23);
}

AVX_TARGET static void hierarchy_avx(cna_player *player, const cna_skinning_data *data)
{
    const int32_t n = player->bone_count;
    const cna_mat4 *prefix = root_prefix(player, data);
    const bool prefixed = prefix != NULL;
    __m256 w01 = _mm256_setzero_ps(), w23 = _mm256_setzero_ps(); /* world[p - 1] */
    for (int32_t p = 0; p < n; ++p) {
        float *local = player->local[p].m;
        if (!player->posed[p]) memcpy(local, data->bind_pose[p].m, sizeof(cna_mat4));
        const __m256 l01 = _mm256_loadu_ps(local), l23 = _mm256_loadu_ps(local + 8);
        const int32_t parent = data->hierarchy[p];
        if (parent >= 0 && parent == p - 1)
            mul_avx_reg(w01, w23, l01, l23, &w01, &w23);
        else if (parent >= 0)
            mul_avx_mem(player->world[parent].m, l01, l23, &w01, &w23);
        else if (prefixed)
            mul_avx_mem(prefix[p].m, l01, l23, &w01, &w23);
        else {
            w01 = l01;
            w23 = l23;
        }
        _mm256_storeu_ps(player->world[p].m, w01);
        _mm256_storeu_ps(player->world[p].m + 8, w23);
    }
    /* the skin products apart, off the parent chain, world[p]'s columns
     * broadcast by the loads (no lane shuffles; in the chain's loop these
     * loads would wait for the store just made): measured faster on Zen 4 */
    for (int32_t p = 0; p < n; ++p) {
        const float *ib = data->inverse_bind_pose[p].m;
        __m256 s01, s23;
        mul_avx_mem(player->world[p].m, _mm256_loadu_ps(ib), _mm256_loadu_ps(ib + 8), &s01, &s23);
        _mm256_storeu_ps(player->skin[p].m, s01);
        _mm256_storeu_ps(player->skin[p].m + 8, s23);
    }
}

#endif

/* Whether this build and CPU can run `path`. */
bool cna__player_path_supported(int path)
{
    switch (path) {
    case CNA__PLAYER_PATH_BASE:
        return true;
#if defined(PLAYER_WIDE)
    case CNA__PLAYER_PATH_AVX:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx");
#endif
    default:
        return false;
    }
}

/* The widest supported path. (An AVX-512F path, four columns per
 * instruction, measured no faster than AVX on this project's machines:
 * bench/player_paths.c.) */
int cna__player_default_path(void)
{
    return cna__player_path_supported(CNA__PLAYER_PATH_AVX) ? CNA__PLAYER_PATH_AVX : CNA__PLAYER_PATH_BASE;
}

/* Bind pose for untracked bones, the clip's tracks, then the hierarchy.
 * Requires check_data() to have passed. */
static void recompute(cna_player *player)
{
    const cna_skinning_data *data = player->data;
    const int32_t n = player->bone_count;
    if (n == 0) return;
    memset(player->posed, 0, (size_t)n);
#if defined(PLAYER_WIDE)
    if (player->path == CNA__PLAYER_PATH_AVX) {
        sample_clip_avx(player);
        hierarchy_avx(player, data);
        return;
    }
#endif
    sample_clip(player);
    hierarchy_base(player, data);
}

/* The character's blended pose: it writes the joints' local transforms
 * itself (setting their posed flags), then runs the hierarchy pass. */
cna_mat4 *cna__player_locals(cna_player *player) { return player->local; }
uint8_t *cna__player_posed(cna_player *player) { return player->posed; }

void cna__player_hierarchy(cna_player *player)
{
    const cna_skinning_data *data = player->data;
    if (player->bone_count == 0) return;
#if defined(PLAYER_WIDE)
    if (player->path == CNA__PLAYER_PATH_AVX) {
        hierarchy_avx(player, data);
        return;
    }
#endif
    hierarchy_base(player, data);
}

bool cna__player_set_path(cna_player *player, int path)
{
    if (!cna__player_path_supported(path)) return false;
    player->path = path;
    return true;
}

int cna__player_path(const cna_player *player) { return player->path; }

cna__track_state *cna__player_sampling(cna_player *player, size_t *count, cna__arcs_window **window)
{
    *count = player->cursor_count;
    *window = &player->arcs;
    return player->tracks;
}

/* ------------------------------------------------------------------ public API */

cna_result cna_player_create(const cna_skinning_data *data, const cna_allocator *allocator,
                             cna_player **out, cna_error *err)
{
    if (!data || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_player_create: %s is NULL",
                          !data ? "data" : "out");
    cna_result r;
    /* Refused before any allocation (the spec sizes its vectors first). */
    if ((r = cna__bone_count_check(data->bone_count, err))) return r;
    if ((r = cna__skeleton_check(data, err))) return r;

    const cna_allocator a = cna__allocator_resolve(allocator);
    void *block = cna__calloc(&a, 1, sizeof(cna_player) + 63);
    if (!block)
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "player: out of memory (%zu bytes)",
                          sizeof(cna_player) + 63);
    cna_player *player = (cna_player *)align64(block);
    const size_t n = (size_t)data->bone_count;
    /* one allocation: 3·n matrices, then n flags (n <= CNA_MAX_BONE_COUNT: no
     * overflow), aligned to 64 bytes so that no matrix straddles two lines */
    void *matrix_block = cna__calloc(&a, 1, 3 * n * sizeof(cna_mat4) + n + 63);
    if (!matrix_block) {
        cna__free(&a, block);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY,
                          "player: out of memory for %zu bones' matrices", n);
    }
    cna_mat4 *matrices = (cna_mat4 *)align64(matrix_block);
    player->allocator = a;
    player->block = block;
    player->matrix_shift = (uint8_t)((uintptr_t)matrices - (uintptr_t)matrix_block);
    player->data = data;
    player->bone_count = data->bone_count;
    player->local = matrices;
    player->world = matrices + n;
    player->skin = matrices + 2 * n;
    player->posed = (uint8_t *)(matrices + 3 * n);
    player->path = cna__player_default_path();
    recompute(player); /* a fresh player already returns the bind-pose palette */
    *out = player;
    return CNA_OK;
}

void cna_player_free(cna_player *player)
{
    if (!player) return;
    const cna_allocator a = player->allocator;
    void *block = player->block;
    cna__free(&a, player->tracks);
    cna__free(&a, (char *)player->local - player->matrix_shift);
    cna__free(&a, block);
}

cna_result cna_player_start_clip(cna_player *player, const cna_clip *clip, cna_error *err)
{
    if (!player)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_player_start_clip: player is NULL");
    const char *name = clip && clip->name ? clip->name : "";
    if (clip && clip->target == CNA_CLIP_TARGET_SCENE_NODE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "clip \"%s\": target scene-node is not a joint-palette clip", name);
    if (clip && clip->target != CNA_CLIP_TARGET_DEFAULT &&
        clip->target != CNA_CLIP_TARGET_JOINT_PALETTE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "clip \"%s\": target %d is not a cna_clip_target", name, (int)clip->target);
    if (clip && !clip->tracks && clip->track_count > 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "clip \"%s\": tracks NULL with track_count %zu", name, clip->track_count);
    const size_t tracks = clip ? clip->track_count : 0;
    if (tracks > player->cursor_capacity) {
        track_state *grown =
            (track_state *)cna__calloc(&player->allocator, tracks, sizeof(track_state));
        if (!grown)
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY,
                              "clip \"%s\": out of memory for %zu track cursors", name, tracks);
        cna__free(&player->allocator, player->tracks);
        player->tracks = grown;
        player->cursor_capacity = tracks;
    }
    for (size_t i = 0; i < tracks; ++i) {
        const cna_bone_track *track = &clip->tracks[i];
        const bool sorted = track->keys && cna__track_is_sorted(track);
        player->tracks[i].cursor = sorted ? 0 : CURSOR_LINEAR;
        player->tracks[i].arc_key = ARC_NONE;
    }
    player->cursor_count = tracks;
    player->arcs.clip = NULL; /* new_arcs' window closed */
    player->clip = clip;
    player->position = 0;
    return CNA_OK;
}

cna_result cna_player_update(cna_player *player, int64_t ticks, bool relative, bool loop,
                             cna_error *err)
{
    if (!player)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_player_update: player is NULL");
    cna_result r = check_data(player, err);
    if (r) return r; /* nothing changed: position, clip and outputs as before */
    player->position = next_position(player, ticks, relative, loop);
    recompute(player);
    return CNA_OK;
}

cna_result cna__player_check(const cna_player *player, cna_error *err)
{
    return check_data(player, err);
}

void cna__player_advance(cna_player *player, int64_t ticks, bool relative, bool loop)
{
    player->position = next_position(player, ticks, relative, loop);
    recompute(player);
}

bool cna__player_set_mark(cna_player *player, bool mark)
{
    const bool before = player->crowd_mark;
    player->crowd_mark = mark;
    return before;
}

cna_result cna_player_update_seconds(cna_player *player, double seconds, bool relative, bool loop,
                                     cna_error *err)
{
    return cna_player_update(player, cna_ticks_from_seconds(seconds), relative, loop, err);
}

cna_result cna_player_set_sampling(cna_player *player, cna_sampling sampling, cna_error *err)
{
    if (!player) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_player_set_sampling: player is NULL");
    if ((int)sampling < 0 || sampling >= CNA_SAMPLING_COUNT)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "sampling: %d is not a cna_sampling", (int)sampling);
    player->fast = sampling == CNA_SAMPLING_FAST;
    player->arcs.clip = NULL; /* the arcs are made again when it goes back to exact */
    for (size_t i = 0; i < player->cursor_count; ++i) player->tracks[i].arc_key = ARC_NONE;
    return CNA_OK;
}

cna_sampling cna_player_sampling(const cna_player *player)
{
    return player && player->fast ? CNA_SAMPLING_FAST : CNA_SAMPLING_EXACT;
}

cna_result cna_player_set_root_prefix(cna_player *player, const cna_mat4 *prefix, size_t count,
                                      cna_error *err)
{
    if (!player)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_player_set_root_prefix: player is NULL");
    if (prefix && count != (size_t)player->bone_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "root prefix: %zu matrices for a player of %ld bones", count,
                          (long)player->bone_count);
    player->prefix = player->bone_count > 0 ? prefix : NULL;
    return CNA_OK;
}

const cna_mat4 *cna_player_root_prefix(const cna_player *player)
{
    return player ? root_prefix(player, player->data) : NULL;
}

size_t cna__player_size_bytes(const cna_player *player)
{
    const size_t n = (size_t)player->bone_count;
    return sizeof(cna_player) + 63 + 3 * n * sizeof(cna_mat4) + n + 63 +
           player->cursor_capacity * sizeof(track_state);
}

int64_t cna_player_position(const cna_player *player) { return player ? player->position : 0; }

const cna_clip *cna_player_current_clip(const cna_player *player)
{
    return player ? player->clip : NULL;
}

const cna_skinning_data *cna_player_skinning_data(const cna_player *player)
{
    return player ? player->data : NULL;
}

int32_t cna_player_bone_count(const cna_player *player) { return player ? player->bone_count : 0; }

const cna_mat4 *cna_player_bone_transforms(const cna_player *player)
{
    return player ? player->local : NULL;
}

const cna_mat4 *cna_player_world_transforms(const cna_player *player)
{
    return player ? player->world : NULL;
}

const cna_mat4 *cna_player_skin_transforms(const cna_player *player)
{
    return player ? player->skin : NULL;
}
