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
#if defined(CNA__ANIM_SSE2)
    /* the lanes in cna_acosf's polynomial range (0 <= d <= 1, not NaN) get d
     * as a double in dd, the others 0.5 (unused) and the scalar functions */
    double dd[8] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    bool trig[8] = {false, false, false, false, false, false, false, false};
    bool any = false;
    for (size_t k = 0; k < count; ++k) {
        if (d[k] >= 0.0f && d[k] <= 1.0f) {
            dd[k] = (double)d[k];
            trig[k] = any = true;
        } else {
            out[k]->theta = cna_acosf(d[k]);
            out[k]->inv_sin = 1.0f / cna_sinf(out[k]->theta);
        }
    }
    if (!any) return;
    /* acos(x), x in [0, 1]: x <= 0.5: PIO2 - asin_poly(x); else
     * 2·asin_poly(sqrt((1 - x)·0.5)) (x >= 0: no reflection) */
    const __m128d half = _mm_set1_pd(0.5), pio2 = _mm_set1_pd(CNA__PIO2);
    __m128d theta[4] = {half, half, half, half};
    const size_t pairs = (count + 1) / 2, quads = (count + 3) / 4;
    for (size_t h = 0; h < pairs; ++h) { /* up to four independent chains */
        const __m128d x = _mm_loadu_pd(dd + 2 * h);
        const __m128d small = _mm_cmple_pd(x, half);
        const __m128d big_z = _mm_sqrt_pd(_mm_mul_pd(_mm_sub_pd(_mm_set1_pd(1.0), x), half));
        const __m128d z = _mm_or_pd(_mm_and_pd(small, x), _mm_andnot_pd(small, big_z));
        const __m128d p = cna__asin_poly_pd(z);
        const __m128d small_r = _mm_sub_pd(pio2, p), big_r = _mm_mul_pd(_mm_set1_pd(2.0), p);
        theta[h] = _mm_or_pd(_mm_and_pd(small, small_r), _mm_andnot_pd(small, big_r));
    }
    float th[8], inv[8];
    for (size_t h = 0; h < quads; ++h) {
        /* theta as float (one rounding, as cna_acosf), then back to double */
        const __m128 tf = _mm_movelh_ps(_mm_cvtpd_ps(theta[2 * h]), _mm_cvtpd_ps(theta[2 * h + 1]));
        _mm_storeu_ps(th + 4 * h, tf);
        /* sin(theta): cna_sinf's direct branch when 0 < theta <= PIO2 as a
         * double, the others through cna_sinf below */
        const __m128d r0 = _mm_cvtps_pd(tf), r1 = _mm_cvtps_pd(_mm_movehl_ps(tf, tf));
        const __m128 sf = _mm_movelh_ps(_mm_cvtpd_ps(cna__sin_poly_pd(r0)),
                                        _mm_cvtpd_ps(cna__sin_poly_pd(r1)));
        _mm_storeu_ps(inv + 4 * h, _mm_div_ps(_mm_set1_ps(1.0f), sf));
    }
    for (size_t k = 0; k < count; ++k) {
        if (!trig[k]) continue;
        cna__arc *arc = out[k];
        arc->theta = th[k];
        arc->inv_sin = th[k] > 0.0f && (double)th[k] <= CNA__PIO2 ? inv[k] : 1.0f / cna_sinf(th[k]);
    }
#else
    for (size_t k = 0; k < count; ++k) {
        out[k]->theta = cna_acosf(d[k]);
        out[k]->inv_sin = 1.0f / cna_sinf(out[k]->theta);
    }
#endif
}

#if defined(CNA__ANIM_WIDE)
/* The lanes of cna__arc_trig8 in cna_acosf's polynomial range (0 <= d <= 1,
 * not NaN) get d as a double in dd and trig[k] set; the others are done here
 * by the scalar functions (dd stays 0.5, unused). Returns whether any lane is
 * left for the polynomials. */
static bool trig_lanes(const float d[8], cna__arc *const out[8], size_t count, double dd[8],
                       bool trig[8])
{
    bool any = false;
    for (size_t k = 0; k < 8; ++k) {
        dd[k] = 0.5;
        trig[k] = false;
    }
    for (size_t k = 0; k < count; ++k) {
        if (d[k] >= 0.0f && d[k] <= 1.0f) {
            dd[k] = (double)d[k];
            trig[k] = any = true;
        } else {
            out[k]->theta = cna_acosf(d[k]);
            out[k]->inv_sin = 1.0f / cna_sinf(out[k]->theta);
        }
    }
    return any;
}

/* The arcs from th (theta as float) and inv (1 / sin_poly(theta) as float),
 * cna__arc_trig8's last step. */
static void trig_store(const float th[8], const float inv[8], const bool trig[8],
                       cna__arc *const out[8], size_t count)
{
    for (size_t k = 0; k < count; ++k) {
        if (!trig[k]) continue;
        cna__arc *arc = out[k];
        arc->theta = th[k];
        arc->inv_sin = th[k] > 0.0f && (double)th[k] <= CNA__PIO2 ? inv[k] : 1.0f / cna_sinf(th[k]);
    }
}

#define AVX_TARGET __attribute__((target("avx")))

AVX_TARGET void cna__arc_trig8_avx(const float d[8], cna__arc *const out[8], size_t count)
{
    double dd[8];
    bool trig[8];
    if (!trig_lanes(d, out, count, dd, trig)) return;
    /* two independent chains of four lanes */
    const __m128 t0 = cna__acos01_pd4(_mm256_loadu_pd(dd)), t1 = cna__acos01_pd4(_mm256_loadu_pd(dd + 4));
    const __m128 s0 = _mm256_cvtpd_ps(cna__sin_poly_pd4(_mm256_cvtps_pd(t0)));
    const __m128 s1 = _mm256_cvtpd_ps(cna__sin_poly_pd4(_mm256_cvtps_pd(t1)));
    float th[8], inv[8];
    _mm_storeu_ps(th, t0);
    _mm_storeu_ps(th + 4, t1);
    _mm256_storeu_ps(inv, _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_set_m128(s1, s0)));
    trig_store(th, inv, trig, out, count);
}
#endif

void cna__arc_trig8_path(int path, const float d[8], cna__arc *const out[8], size_t count)
{
#if defined(CNA__ANIM_WIDE)
    if (path == CNA__PLAYER_PATH_AVX) {
        cna__arc_trig8_avx(d, out, count);
        return;
    }
#endif
    (void)path;
    cna__arc_trig8(d, out, count);
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
