/*
 * Sampling one bone track at a time in ticks (include/cna/anim.h).
 *
 * cna_track_sample_linear is the reference (the spec's SampleTrack: a linear
 * search for the bracketing keys). cna_track_sample finds the same bracketing
 * key through a cursor (O(1) for forward playback) or a binary search (seeks),
 * then runs the very same arithmetic, so for keys in non-decreasing time order
 * the two are bit-identical.
 */
#include "anim/anim_internal.h"

static void hold(const cna_keyframe *key, int64_t t, cna_keyframe *out)
{
    *out = *key;
    out->ticks = t;
}

/* Interpolate between keys a and b at t, where the search established
 * t < b->ticks. At t <= a->ticks (an exact key time, or keys out of order) the
 * key a is returned exactly. Otherwise a->ticks < t < b->ticks and
 *   amount = (float)((double)(t - a.ticks) / (double)(b.ticks - a.ticks))
 * with both differences computed exactly as unsigned 64-bit values (they are
 * positive, and may exceed INT64_MAX for hostile key times);
 *   translation = lerp(a, b, amount), scale = lerp(a, b, amount),
 *   rotation = slerp(a, b, amount) along the shortest arc. */
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
    out->translation = cna_vec3_lerp(a->translation, b->translation, amount);
    out->rotation = cna_quat_slerp(a->rotation, b->rotation, amount);
    out->scale = cna_vec3_lerp(a->scale, b->scale, amount);
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

/* First index i in [lo, hi) with keys[i].ticks > t, or hi. */
static size_t upper_bound(const cna_keyframe *k, size_t lo, size_t hi, int64_t t)
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

/* For sorted keys with keys[0].ticks < t < keys[n-1].ticks, the linear
 * search's bracket is the unique c with keys[c].ticks <= t < keys[c+1].ticks,
 * i.e. c = upper_bound(t) - 1. The cursor is tried first, then its successor,
 * then a binary search on the side where t lies. */
void cna_track_sample(const cna_bone_track *track, int64_t t, size_t *cursor, cna_keyframe *out)
{
    const cna_keyframe *k = track->keys;
    const size_t n = k ? track->key_count : 0;
    if (sample_ends(track, t, out)) {
        *cursor = (n >= 2 && t > k[0].ticks) ? n - 2 : 0;
        return;
    }
    size_t c = *cursor;
    if (c > n - 2) c = n - 2;
    if (k[c].ticks <= t) {
        if (t >= k[c + 1].ticks) {
            /* forward: the next interval, else search after it (t < keys[n-1]) */
            if (c + 2 < n && t < k[c + 2].ticks)
                c = c + 1;
            else
                c = upper_bound(k, c + 2, n - 1, t) - 1;
        }
    } else {
        /* backwards seek: keys[0] < t < keys[c], so the bracket ends in [1, c] */
        c = upper_bound(k, 1, c, t) - 1;
    }
    *cursor = c;
    between(&k[c], &k[c + 1], t, out);
}
