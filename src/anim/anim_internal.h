/*
 * Private helpers of the anim layer, shared by the validator and the player.
 * Not installed.
 */
#ifndef CNA_ANIM_INTERNAL_H
#define CNA_ANIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>

#if !defined(CGLM_ALL_UNALIGNED)
#define CGLM_ALL_UNALIGNED 1
#endif
#include <cglm/cglm.h>

#include "cna/alloc.h"
#include "cna/anim.h"
#include "cna/math.h"
#include "cna/result.h"
#include "core/quat_norm.h"
#include "core/simd.h"
#include "core/trig_poly.h"

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

/* First index i in [lo, hi) with keys[i].ticks > t, or hi. */
static inline size_t cna__upper_bound(const cna_keyframe *k, size_t lo, size_t hi, int64_t t)
{
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (k[mid].ticks > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The key(s) cna_track_sample() reads at time t, found through *cursor
 * exactly as it does (the cursor is updated the same way), for a track with
 * at least one key: returns c; with *interpolate false the sample is
 * keys[c] held, else keys[c].ticks < t < keys[c+1].ticks and the sample
 * interpolates between keys c and c + 1. Inline: the player calls it once
 * per track and frame.
 *
 * For sorted keys with keys[0].ticks < t < keys[n-1].ticks, the linear
 * search's bracket is the unique c with keys[c].ticks <= t < keys[c+1].ticks,
 * i.e. c = upper_bound(t) - 1. The cursor is tried first, then its successor,
 * then a binary search on the side where t lies. */
static inline size_t cna__track_locate(const cna_bone_track *track, int64_t t, size_t *cursor,
                                       bool *interpolate)
{
    const cna_keyframe *k = track->keys;
    const size_t n = k ? track->key_count : 0;
    *interpolate = false;
    if (n <= 1 || t <= k[0].ticks) {
        *cursor = 0;
        return 0;
    }
    if (t >= k[n - 1].ticks) {
        *cursor = n - 2;
        return n - 1;
    }
    size_t c = *cursor;
    if (c > n - 2) c = n - 2;
    if (k[c].ticks <= t) {
        if (t >= k[c + 1].ticks) {
            /* forward: the next interval, else search after it (t < keys[n-1]) */
            if (c + 2 < n && t < k[c + 2].ticks)
                c = c + 1;
            else
                c = cna__upper_bound(k, c + 2, n - 1, t) - 1;
        }
    } else {
        /* backwards seek: keys[0] < t < keys[c], so the bracket ends in [1, c] */
        c = cna__upper_bound(k, 1, c, t) - 1;
    }
    *cursor = c;
    *interpolate = t > k[c].ticks; /* else an exact key time: hold keys[c] */
    return c;
}

/* The part of cna_quat_slerp(a, b, t) that depends only on a and b, so that
 * a player can keep it while its cursor stays in one key interval:
 *   d = a·b; sign = -1 and d = -d when d < 0; linear = d > 1 - 1e-6;
 *   otherwise theta = acos(d), inv_sin = 1 / sin(theta). */
typedef struct cna__arc {
    float theta, inv_sin, sign;
    bool linear;
    /* CNA_SAMPLING_FAST only: a narrow arc (d >= CNA__FAST_MIN_DOT, not
     * linear above), lerped like a linear one and normalised by the
     * composition; theta and inv_sin stay 0. cna__arc_begin clears it. */
    bool narrow;
} cna__arc;
void cna__arc_make(const cna_quat *a, const cna_quat *b, cna__arc *arc);
/* The anim layer's vector code (and the character's blend code) is written
 * on the SIMD vocabulary (core/vec.h). */
#include "core/quat_norm.h"
#include "core/simd.h"
#include "core/vec.h"

/* src/core/math.c's sin_poly(r) and asin_poly(z), one per double lane: the
 * same coefficients (src/core/trig_poly.h) and the same IEEE operations in
 * the same order per lane (Horner, then r + r·(r²·p)), hence the same bits
 * as the scalar polynomials. */
static inline vd4 cna__sin_poly4(vd4 r)
{
    const vd4 r2 = vd4_mul(r, r);
    vd4 p = vd4_set1(CNA__SIN_C0);
    p = vd4_add(vd4_mul(p, r2), vd4_set1(CNA__SIN_C1));
    p = vd4_add(vd4_mul(p, r2), vd4_set1(CNA__SIN_C2));
    p = vd4_add(vd4_mul(p, r2), vd4_set1(CNA__SIN_C3));
    p = vd4_add(vd4_mul(p, r2), vd4_set1(CNA__SIN_C4));
    p = vd4_add(vd4_mul(p, r2), vd4_set1(CNA__SIN_C5));
    p = vd4_add(vd4_mul(p, r2), vd4_set1(CNA__SIN_C6));
    return vd4_add(r, vd4_mul(r, vd4_mul(r2, p)));
}

static inline vd2 cna__sin_poly2(vd2 r)
{
    const vd2 r2 = vd2_mul(r, r);
    vd2 p = vd2_set1(CNA__SIN_C0);
    p = vd2_add(vd2_mul(p, r2), vd2_set1(CNA__SIN_C1));
    p = vd2_add(vd2_mul(p, r2), vd2_set1(CNA__SIN_C2));
    p = vd2_add(vd2_mul(p, r2), vd2_set1(CNA__SIN_C3));
    p = vd2_add(vd2_mul(p, r2), vd2_set1(CNA__SIN_C4));
    p = vd2_add(vd2_mul(p, r2), vd2_set1(CNA__SIN_C5));
    p = vd2_add(vd2_mul(p, r2), vd2_set1(CNA__SIN_C6));
    return vd2_add(r, vd2_mul(r, vd2_mul(r2, p)));
}

static inline vd4 cna__asin_poly4(vd4 z)
{
    const vd4 z2 = vd4_mul(z, z);
    vd4 p = vd4_set1(CNA__ASIN_C0);
    p = vd4_add(vd4_mul(p, z2), vd4_set1(CNA__ASIN_C1));
    p = vd4_add(vd4_mul(p, z2), vd4_set1(CNA__ASIN_C2));
    p = vd4_add(vd4_mul(p, z2), vd4_set1(CNA__ASIN_C3));
    p = vd4_add(vd4_mul(p, z2), vd4_set1(CNA__ASIN_C4));
    p = vd4_add(vd4_mul(p, z2), vd4_set1(CNA__ASIN_C5));
    p = vd4_add(vd4_mul(p, z2), vd4_set1(CNA__ASIN_C6));
    p = vd4_add(vd4_mul(p, z2), vd4_set1(CNA__ASIN_C7));
    p = vd4_add(vd4_mul(p, z2), vd4_set1(CNA__ASIN_C8));
    p = vd4_add(vd4_mul(p, z2), vd4_set1(CNA__ASIN_C9));
    p = vd4_add(vd4_mul(p, z2), vd4_set1(CNA__ASIN_C10));
    return vd4_add(z, vd4_mul(z, vd4_mul(z2, p)));
}

/* out = T(t) · R(r) · S(s): cna_mat4_compose's arithmetic (glm_quat_mat4,
 * then column c times s[c]), operation for operation:
 *   n = |r| (cna__quat_norm, core/quat_norm.h), k = n > 0 ? 2 / n : 0,
 *   xx = k·x·x, xy = k·x·y, ... (left to right), column 0 = (1 - yy - zz,
 *   xy + wz, xz - wy) · s.x, column 1 = (xy - wz, 1 - xx - zz, yz + wx) · s.y,
 *   column 2 = (xz + wy, yz - wx, 1 - xx - yy) · s.z, column 3 = (t, 1).
 * Each column is stored whole (four floats), so that the multiplications
 * reading it next are not stalled by a load that spans four separate scalar
 * stores. Used by the character's blended pose. */
static inline void cna__compose_trs(cna_mat4 *out, const cna_vec3 *t, const cna_quat *r, const cna_vec3 *sc)
{
    const float x = r->x, y = r->y, z = r->z, w = r->w;
    const float norm = cna__quat_norm(x, y, z, w);
    const float s = norm > 0.0f ? 2.0f / norm : 0.0f;
    const float xx = s * x * x, xy = s * x * y, wx = s * w * x;
    const float yy = s * y * y, yz = s * y * z, wy = s * w * y;
    const float zz = s * z * z, xz = s * x * z, wz = s * w * z;
    const float sx = sc->x, sy = sc->y, sz = sc->z;
    vf4_storeu(out->m + 0, vf4_setr((1.0f - yy - zz) * sx, (xy + wz) * sx, (xz - wy) * sx, 0.0f));
    vf4_storeu(out->m + 4, vf4_setr((xy - wz) * sy, (1.0f - xx - zz) * sy, (yz + wx) * sy, 0.0f));
    vf4_storeu(out->m + 8, vf4_setr((xz + wy) * sz, (yz - wx) * sz, (1.0f - xx - yy) * sz, 0.0f));
    vf4_storeu(out->m + 12, vf4_setr(t->x, t->y, t->z, 1.0f));
}

/* src/core/math.c's PIO2: cna_sinf's direct branch is |x| <= PIO2. */
#define CNA__PIO2 1.5707963267948966192
/* The largest float <= CNA__PIO2 (pi/2 rounded to float is above it): for a
 * float x, (double)x <= CNA__PIO2 exactly when x <= CNA__PIO2F. Tests:
 * tests/anim/test_player_paths.c. */
#define CNA__PIO2F 0x1.921fb4p+0f

/* cna_acosf(x) for 0 <= x <= 1, one per double lane: x <= 0.5: PIO2 -
 * asin_poly(x), else 2·asin_poly(sqrt((1 - x)·0.5)) (src/core/math.c's
 * branches; x >= 0: no reflection), then rounded to float. */
static inline vf4 cna__acos4(vd4 x)
{
    const vd4 half = vd4_set1(0.5);
    const vd4 small = vd4_cmple(x, half);
    const vd4 big_z = vd4_sqrt(vd4_mul(vd4_sub(vd4_set1(1.0), x), half));
    const vd4 p = cna__asin_poly4(vd4_select(small, x, big_z));
    return vf4_from_vd4(vd4_select(small, vd4_sub(vd4_set1(CNA__PIO2), p), vd4_mul(vd4_set1(2.0), p)));
}

/* *s1 = cna_sinf(x1), *s2 = cna_sinf(x2), bit for bit. When both arguments
 * are nonzero with |x| <= pi/2 (the slerp's usual case: 0 < t·theta <=
 * theta <= pi/2), both take cna_sinf's direct branch, sin_poly in double
 * precision then one rounding to float; here that branch runs for the two
 * arguments at once, one per double lane (cna__sin_poly2). Anything
 * else (zero, larger, NaN) goes through cna_sinf itself. Tests:
 * tests/anim/test_player_paths.c compares it with cna_sinf. */
static inline void cna__sinf2(float x1, float x2, float *s1, float *s2)
{
    /* |x| <= PIO2 in double <=> |x| <= CNA__PIO2F (x is a float), and NaN
     * fails both comparisons: one packed test for the two arguments */
    const vf4 x = vf4_setr(x1, x2, 0.0f, 0.0f);
    const vf4 ax = vf4_and(x, vf4_set1(cna__from_bits(0x7FFFFFFFu)));
    const vf4 in = vf4_and(vf4_cmpgt(ax, vf4_zero()), vf4_cmple(ax, vf4_set1(CNA__PIO2F)));
    if ((vf4_movemask(in) & 3) == 3) {
        const vf4 f = vf4_from_vd2(cna__sin_poly2(vd2_from_vf4(x)));
        *s1 = vf4_first(f);
        *s2 = vf4_first(vf4_splat(f, 1));
        return;
    }
    *s1 = cna_sinf(x1);
    *s2 = cna_sinf(x2);
}

/* The first part of cna__arc_make: d = a·b (left to right), sign = -1 and
 * d = -d when d < 0, linear = d > 1 - 1e-6, theta = inv_sin = 0; returns
 * true (with *d_out = d) when the arc still needs its trigonometry:
 * theta = cna_acosf(d), inv_sin = 1 / cna_sinf(theta) (cna__arc_trig8). */
static inline bool cna__arc_begin(const cna_quat *a, const cna_quat *b, cna__arc *arc,
                                  float *d_out)
{
    float d = a->x * b->x + a->y * b->y + a->z * b->z + a->w * b->w;
    arc->sign = 1.0f;
    if (d < 0.0f) {
        d = -d;
        arc->sign = -1.0f;
    }
    arc->linear = d > 1.0f - 1e-6f;
    arc->narrow = false;
    arc->theta = arc->inv_sin = 0.0f;
    *d_out = d;
    return !arc->linear;
}

/* The trigonometry of `count` (0..8) arcs begun by cna__arc_begin (d[k] its
 * d): out[k]->theta = cna_acosf(d[k]), out[k]->inv_sin = 1 /
 * cna_sinf(theta), bit for bit, two independent chains of four double
 * lanes (cna__asin_poly4, cna__sin_poly4, cna_acosf's branches per lane), a
 * lane outside the polynomials' range through the scalar functions: the
 * BASE path's kernel (player_kernel.h). */
void cna__arc_trig8(const float d[8], cna__arc *const out[8], size_t count);

/* cna__arc_trig8 for a player path (CNA__PLAYER_PATH_*, below): the same
 * operations per lane on every path, so the same bits; the
 * path must be supported (cna__player_path_supported), BASE always is. */
void cna__arc_trig8_path(int path, const float d[8], cna__arc *const out[8], size_t count);

/* cna__arc_make for `count` (0..8) pairs at once (cna__arc_begin, then
 * cna__arc_trig8, or cna__arc_trig8_path for `path`): the same bits. Tests:
 * tests/anim/test_player_paths.c. */
void cna__arc_make8(const cna_quat *const a[8], const cna_quat *const b[8], cna__arc *const out[8],
                    size_t count);
void cna__arc_make8_path(int path, const cna_quat *const a[8], const cna_quat *const b[8],
                         cna__arc *const out[8], size_t count);

/* cna_quat_slerp's weights for t, given arc = cna__arc_make(a, b): the
 * result is a·wa + b·wb per component. Returns false when t == 0 (the
 * slerp returns a itself then). Inline: the player calls it once per track
 * and frame. */
static inline bool cna__arc_weights(const cna__arc *arc, float t, float *wa, float *wb)
{
    if (t == 0.0f) return false;
    if (arc->linear) {
        *wa = 1.0f - t;
        *wb = t * arc->sign;
    } else {
        float sa, sb;
        cna__sinf2((1.0f - t) * arc->theta, t * arc->theta, &sa, &sb);
        *wa = sa * arc->inv_sin;
        *wb = sb * arc->inv_sin * arc->sign;
    }
    return true;
}

/* cna__arc_weights for `count` (0..8) arcs at once on a player path
 * (CNA__PLAYER_PATH_*, supported): lane k gets cna__arc_weights(arc[k],
 * t[k], &wa[k], &wb[k]) bit for bit, its return value in weighed[k] (wa[k]
 * and wb[k] unwritten when false); the non-linear arcs' sines computed
 * eight at a time as the player's exact sampling computes them. Tests:
 * tests/anim/test_player_paths.c. */
void cna__arc_weights8_path(int path, const cna__arc *const arc[8], const float t[8], float wa[8],
                            float wb[8], bool weighed[8], size_t count);

/* cna_quat_slerp(a, b, t), bit for bit, given arc = cna__arc_make(a, b):
 * the same operations in the same order. */
static inline void cna__arc_slerp(const cna_quat *a, const cna_quat *b, const cna__arc *arc,
                                  float t, cna_quat *out)
{
    float wa, wb;
    if (!cna__arc_weights(arc, t, &wa, &wb)) {
        *out = *a;
        return;
    }
    out->x = a->x * wa + b->x * wb;
    out->y = a->y * wa + b->y * wb;
    out->z = a->z * wa + b->z * wb;
    out->w = a->w * wa + b->w * wb;
}

/* CNA_SAMPLING_FAST interpolates a key interval by normalised lerp when
 * |qa·qb| >= CNA__FAST_MIN_DOT (an arc of at most about 2·acos of it
 * between the keys' rotations), by the exact slerp otherwise. */
#define CNA__FAST_MIN_DOT 0.98f

/* A player's (or a character layer's) state for one track of the clip it
 * samples: the key cursor (SIZE_MAX: the keys are out of time order and
 * the track is sampled with cna_track_sample_linear) and the slerp
 * constants of the key interval it was last sampled in (arc_key, SIZE_MAX
 * when none), made again only when the cursor moves to another interval.
 * 32 bytes. */
typedef struct cna__track_state {
    size_t cursor;
    size_t arc_key;
    cna__arc arc;
} cna__track_state;

/* While the clip and the number of tracks with state are the same and
 * from < t < until, every track with a cursor is strictly inside the key
 * interval of its cached arc (no arc to make). clip NULL: closed. */
typedef struct cna__arcs_window {
    const cna_clip *clip;
    size_t states;
    int64_t from, until;
} cna__arcs_window;

/* Reset `count` track states for `clip` (cursor 0, or SIZE_MAX for a track
 * whose keys are out of order; no arc) and close the window. */
void cna__track_states_start(const cna_clip *clip, cna__track_state *states, size_t count, cna__arcs_window *win);

/* Sample the first `state_count` tracks of `clip` at `t` as a player does
 * (the same key search, cached arcs made eight at a time on path `path`,
 * the same arithmetic, hence the bits of cna_track_sample, or of
 * cna_track_sample_linear for a track out of order), every later track
 * with cna_track_sample_linear: each usable track (keys, bone in
 * 0..bone_count-1) writes its translation, rotation and scale into
 * out[bone] (a later track for the same bone wins) and sets posed[bone] = 1.
 * out[].ticks is not written. With `fast`, rotations between keys are
 * normalised lerps (CNA_SAMPLING_FAST), and no arc is made. */
void cna__sample_trs(int path, bool fast, const cna_clip *clip, int64_t t, int32_t bone_count,
                     cna__track_state *states, size_t state_count, cna__arcs_window *win, cna_keyframe *out,
                     uint8_t *posed);

/* out[i] = T · R · S of in[i], for i < count, with the player's composition
 * (eight at once, player_kernel.h): the bits of cna_mat4_compose. */
void cna__compose_keys(int path, cna_mat4 *const *out, const cna_keyframe *const *in, size_t count);

/* The player's sampling state for its current clip (*count track states
 * and its arcs window), for the character's layer 0, which plays the same
 * clip at the same position: sampling it with cna__sample_trs keeps the
 * player's own updates exact. */
struct cna_player;
cna__track_state *cna__player_sampling(struct cna_player *player, size_t *count, cna__arcs_window **window);

/* For the crowd (src/anim/crowd.c): cna_player_update split in its check
 * (nothing changes; the same errors) and its effect (no checks), and a mark
 * used to find a player listed twice (returns the mark before). */
struct cna_player;
cna_result cna__player_check(const struct cna_player *player, cna_error *err);
void cna__player_advance(struct cna_player *player, int64_t ticks, bool relative, bool loop);
/* cna__player_advance on each of players[0..count-1] (distinct players, each
 * checked), by each[i] (each NULL: ticks for all): players of one skeleton
 * (of at most CNA__LANES_MAX_BONES joints), clip, sampling mode and root
 * prefixes within 16 places of each other are posed up to eight at a time in
 * vector lanes; the same results, bit for bit. Returns how many were posed
 * in lanes (the rest one at a time). */
size_t cna__players_advance_each(struct cna_player *const *players, size_t count, const int64_t *each,
                                 int64_t ticks, bool relative, bool loop);
size_t cna__players_advance(struct cna_player *const *players, size_t count, int64_t ticks,
                            bool relative, bool loop);
/* Bytes the player allocated (struct, matrices, flags, sampling state). */
size_t cna__player_size_bytes(const struct cna_player *player);
/* cna_player_create for a skeleton that passed cna_player_create's checks
 * before (a model's rig: the model is immutable), without checking it again,
 * with room for the states of `tracks` tracks (a clip with more makes
 * cna_player_start_clip allocate). Fails only with CNA_ERROR_OUT_OF_MEMORY. */
cna_result cna__player_create_checked(const cna_skinning_data *data, const cna_allocator *allocator,
                                      size_t tracks, struct cna_player **out, cna_error *err);

/* For the character's blended pose: the player's local transforms and
 * their "posed" flags (bone_count each; a joint whose flag is 0 takes its
 * bind pose), then the hierarchy pass of an update (worlds and palette
 * from those locals, with the same products as an update). */
cna_mat4 *cna__player_locals(struct cna_player *player);
uint8_t *cna__player_posed(struct cna_player *player);
void cna__player_hierarchy(struct cna_player *player);
/* For the character's pose edit: the player's worlds and palette
 * (bone_count each), and the root prefixes its updates compose (NULL: none). */
cna_mat4 *cna__player_worlds(struct cna_player *player);
cna_mat4 *cna__player_skins(struct cna_player *player);
const cna_mat4 *cna__player_prefix(const struct cna_player *player);

/* The player's kernel paths (src/anim/player_kernel.h): BASE is the kernels
 * compiled for the library's baseline (SSE2 on x86-64, the scalar
 * vocabulary with CNA_NO_SIMD), AVX the same kernels compiled for AVX2 +
 * FMA (run when the CPU has both; no multiply-add is used), each element
 * computed with the same operations in the same order, so every path gives
 * the same bits. cna_player_create picks cna__player_default_path(); tests force
 * each one. cna__player_set_path returns false (and changes nothing) for a
 * path this build or CPU lacks. */
enum { CNA__PLAYER_PATH_BASE = 0, CNA__PLAYER_PATH_AVX = 1, CNA__PLAYER_PATH_COUNT = 2 };
bool cna__player_path_supported(int path);
/* The path cna_player_create picks: AVX when the CPU has AVX2 and FMA, else BASE. */
int cna__player_default_path(void);
bool cna__player_set_path(struct cna_player *player, int path);
int cna__player_path(const struct cna_player *player);

#endif
