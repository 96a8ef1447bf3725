/*
 * Sampling one bone track at a time in ticks (include/cna/anim.h).
 *
 * cna_track_sample_linear is the reference (the spec's SampleTrack: a linear
 * search for the bracketing keys). cna_track_sample finds the same bracketing
 * key through a cursor (O(1) for forward playback) or a binary search (seeks),
 * then runs the very same arithmetic, so for keys in non-decreasing time order
 * the two are bit-identical.
 */
#include <math.h>

#include "anim/anim_internal.h"

static void hold(const cna_keyframe *key, int64_t t, cna_keyframe *out)
{
    *out = *key;
    out->ticks = t;
}

/* a + (b - a)·t per component: cna_vec3_lerp's arithmetic, inlined. */
static inline void lerp3(const cna_vec3 *a, const cna_vec3 *b, float t, cna_vec3 *out)
{
    out->x = a->x + (b->x - a->x) * t;
    out->y = a->y + (b->y - a->y) * t;
    out->z = a->z + (b->z - a->z) * t;
}

/* cna_quat_slerp's arithmetic, operation for operation (so bit-identical to
 * it), inlined and without passing quaternions by value: see src/core/math.c
 * for the formula. t == 0 returns a exactly there too, so the trigonometry is
 * skipped then. */
static inline void slerp(const cna_quat *a, const cna_quat *b, float t, cna_quat *out)
{
    if (t == 0.0f) {
        *out = *a;
        return;
    }
    float d = a->x * b->x + a->y * b->y + a->z * b->z + a->w * b->w;
    float sign = 1.0f;
    if (d < 0.0f) {
        d = -d;
        sign = -1.0f;
    }
    float wa, wb;
    if (d > 1.0f - 1e-6f) {
        wa = 1.0f - t;
        wb = t * sign;
    } else {
        const float theta = cna_acosf(d);
        const float inv_sin = 1.0f / cna_sinf(theta);
        wa = cna_sinf((1.0f - t) * theta) * inv_sin;
        wb = cna_sinf(t * theta) * inv_sin * sign;
    }
    out->x = a->x * wa + b->x * wb;
    out->y = a->y * wa + b->y * wb;
    out->z = a->z * wa + b->z * wb;
    out->w = a->w * wa + b->w * wb;
}

/* Interpolate between keys a and b at t, where the search established
 * t < b->ticks. At t <= a->ticks (an exact key time, or keys out of order) the
 * key a is returned exactly. Otherwise a->ticks < t < b->ticks and
 *   amount = (float)((double)(t - a.ticks) / (double)(b.ticks - a.ticks))
 * with both differences computed exactly as unsigned 64-bit values (they are
 * positive, and may exceed INT64_MAX for hostile key times);
 *   translation = lerp(a, b, amount), scale = lerp(a, b, amount),
 *   rotation = slerp(a, b, amount) along the shortest arc
 * (cna_vec3_lerp and cna_quat_slerp, bit for bit). */
static void between(const cna_keyframe *a, const cna_keyframe *b, int64_t t, cna_keyframe *out)
{
    if (t <= a->ticks) {
        hold(a, t, out);
        return;
    }
    const uint64_t num = (uint64_t)t - (uint64_t)a->ticks;
    const uint64_t den = (uint64_t)b->ticks - (uint64_t)a->ticks;
    const float amount = (float)((double)num / (double)den);
    out->ticks = t;
    lerp3(&a->translation, &b->translation, amount, &out->translation);
    slerp(&a->rotation, &b->rotation, amount, &out->rotation);
    lerp3(&a->scale, &b->scale, amount, &out->scale);
}

/* A track without keys samples as the identity transform (the player never
 * samples one: it ignores such tracks). */
static bool sample_ends(const cna_bone_track *track, int64_t t, cna_keyframe *out)
{
    const cna_keyframe *k = track->keys;
    const size_t n = k ? track->key_count : 0;
    if (n == 0) {
        *out = cna_keyframe_make(t, cna_vec3_zero());
        return true;
    }
    if (n == 1 || t <= k[0].ticks) { /* before (or at) the first key: hold it */
        hold(&k[0], t, out);
        return true;
    }
    if (t >= k[n - 1].ticks) { /* at or after the last key: hold it */
        hold(&k[n - 1], t, out);
        return true;
    }
    return false;
}

void cna_track_sample_linear(const cna_bone_track *track, int64_t t, cna_keyframe *out)
{
    if (!track || !out) return;
    if (sample_ends(track, t, out)) return;
    const cna_keyframe *k = track->keys;
    const size_t n = track->key_count;
    /* The first k with t < keys[k + 1].ticks; one exists since t < keys[n - 1].ticks. */
    for (size_t i = 0; i + 1 < n; ++i)
        if (t < k[i + 1].ticks) {
            between(&k[i], &k[i + 1], t, out);
            return;
        }
    hold(&k[n - 1], t, out); /* not reached */
}

void cna_track_sample(const cna_bone_track *track, int64_t t, size_t *cursor, cna_keyframe *out)
{
    if (!track || !out) return;
    size_t no_cursor = 0;
    if (!cursor) cursor = &no_cursor;
    if (!track->keys || track->key_count == 0) {
        sample_ends(track, t, out);
        *cursor = 0;
        return;
    }
    bool interpolate;
    const size_t c = cna__track_locate(track, t, cursor, &interpolate);
    if (interpolate)
        between(&track->keys[c], &track->keys[c + 1], t, out);
    else
        hold(&track->keys[c], t, out);
}

void cna__arc_make(const cna_quat *a, const cna_quat *b, cna__arc *arc)
{
    float d;
    if (cna__arc_begin(a, b, arc, &d)) {
        arc->theta = cna_acosf(d);
        arc->inv_sin = 1.0f / cna_sinf(arc->theta);
    }
}

void cna__arc_trig8(const float d[8], cna__arc *const out[8], size_t count)
{
    cna__arc_trig8_path(CNA__PLAYER_PATH_BASE, d, out, count);
}

void cna__arc_make8(const cna_quat *const a[8], const cna_quat *const b[8], cna__arc *const out[8],
                    size_t count)
{
    cna__arc_make8_path(CNA__PLAYER_PATH_BASE, a, b, out, count);
}

void cna__arc_make8_path(int path, const cna_quat *const a[8], const cna_quat *const b[8],
                         cna__arc *const out[8], size_t count)
{
    float d[8];
    cna__arc *trig[8];
    size_t n = 0;
    for (size_t k = 0; k < count; ++k)
        if (cna__arc_begin(a[k], b[k], out[k], &d[n])) trig[n++] = out[k];
    if (n) cna__arc_trig8_path(path, d, trig, n);
}
