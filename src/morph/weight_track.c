/*
 * Morph weight tracks: validation and evaluation (include/cna/morph.h;
 * spec: "Animated weights", EvaluateMorphWeightsEXT).
 */
#include <math.h>
#include <string.h>

#include "morph_internal.h"

static const char *interpolation_name(cna_morph_interpolation i)
{
    switch (i) {
    case CNA_MORPH_INTERPOLATION_LINEAR: return "LINEAR";
    case CNA_MORPH_INTERPOLATION_STEP: return "STEP";
    case CNA_MORPH_INTERPOLATION_CUBICSPLINE: return "CUBICSPLINE";
    case CNA_MORPH_INTERPOLATION_COUNT: break;
    }
    return "?";
}

/* The O(1) checks shared by validate and evaluate; *value_count receives
 * key_count * target_count. */
static cna_result check_shape(const cna_morph_weight_track *track, size_t *value_count,
                              cna_error *err)
{
    if (!track) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "weight track: NULL track");
    if ((int)track->interpolation < 0 || track->interpolation >= CNA_MORPH_INTERPOLATION_COUNT)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "interpolation: %d is not a cna_morph_interpolation",
                          (int)track->interpolation);
    if (!cna__mul_size(track->key_count, track->target_count, value_count))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "values: key_count %zu * target_count %zu overflows", track->key_count,
                          track->target_count);
    if (track->key_count > 0 && !track->times)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "times: NULL with key_count %zu",
                          track->key_count);
    if (track->key_count > 0 && !track->values)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "values: NULL with key_count %zu",
                          track->key_count);
    const bool has_in = track->in_tangents != NULL, has_out = track->out_tangents != NULL;
    if (has_in != has_out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: given without %s",
                          has_in ? "in_tangents" : "out_tangents",
                          has_in ? "out_tangents" : "in_tangents");
    if (has_in && track->interpolation != CNA_MORPH_INTERPOLATION_CUBICSPLINE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "in_tangents: given for a %s track (only CUBICSPLINE uses tangents)",
                          interpolation_name(track->interpolation));
    return CNA_OK;
}

static cna_result check_finite(const char *name, const float *a, size_t n, size_t target_count,
                               cna_error *err)
{
    if (!a) return CNA_OK;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(a[i]))
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "%s[%zu] (key %zu, target %zu): %g is not finite", name, i,
                              i / target_count, i % target_count, (double)a[i]);
    return CNA_OK;
}

cna_result cna_morph_weight_track_validate(const cna_morph_weight_track *track, cna_error *err)
{
    size_t n;
    cna_result r = check_shape(track, &n, err);
    if (r != CNA_OK) return r;
    for (size_t k = 0; k < track->key_count; k++) {
        if (!isfinite(track->times[k]))
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "times[%zu]: %g is not finite", k,
                              (double)track->times[k]);
        if (k > 0 && !(track->times[k] >= track->times[k - 1]))
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "times[%zu]: %g does not increase after times[%zu] = %g", k,
                              (double)track->times[k], k - 1, (double)track->times[k - 1]);
    }
    if ((r = check_finite("values", track->values, n, track->target_count, err)) != CNA_OK)
        return r;
    if ((r = check_finite("in_tangents", track->in_tangents, n, track->target_count, err)) != CNA_OK)
        return r;
    return check_finite("out_tangents", track->out_tangents, n, track->target_count, err);
}

/* First k with times[k] > t (upper bound). */
static size_t upper_bound(const float *times, size_t count, double t)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((double)times[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

cna_result cna_morph_evaluate_weights(const cna_morph_weight_track *track, double seconds,
                                      float *out, size_t out_capacity, size_t *out_count,
                                      cna_error *err)
{
    size_t n;
    cna_result r = check_shape(track, &n, err);
    if (r != CNA_OK) return r;
    if (!out_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "weight track: NULL out_count");
    if (isnan(seconds))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "seconds: nan");
    const size_t keys = track->key_count, targets = track->target_count;
    if (keys == 0) {
        *out_count = 0;
        return CNA_OK;
    }
    if (out_capacity < targets)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out: room for %zu weights; the track has %zu targets", out_capacity,
                          targets);
    if (targets > 0 && !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: NULL with %zu targets", targets);

    const float *times = track->times;
    size_t hold = keys; /* a key whose values are the result, or keys when interpolating */
    size_t i = 0;       /* the bracket is (i - 1, i) */
    /* the bracket's first key is the last at or before `seconds`: of equal
     * times, the later key applies from that time on */
    if (keys == 1 || seconds < (double)times[0]) hold = 0;
    else if (seconds >= (double)times[keys - 1]) hold = keys - 1;
    else {
        i = upper_bound(times, keys, seconds);
        /* Sorted times guarantee 1 <= i <= keys - 1; unsorted ones must still not
         * lead outside the arrays. */
        if (i == 0) hold = 0;
        else if (i >= keys) hold = keys - 1;
    }
    if (hold < keys) {
        if (targets > 0) memcpy(out, track->values + hold * targets, targets * sizeof(float));
        *out_count = targets;
        return CNA_OK;
    }

    const double t0 = (double)times[i - 1], t1 = (double)times[i];
    const double dt = t1 - t0;
    if (!(dt > 0.0) || !isfinite(dt))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "times[%zu]: %g after times[%zu] = %g; times must be finite and "
                          "strictly increasing",
                          i, t1, i - 1, t0);
    const double s = (seconds - t0) / dt;
    const float *v0 = track->values + (i - 1) * targets, *v1 = track->values + i * targets;

    const bool hermite = track->interpolation == CNA_MORPH_INTERPOLATION_CUBICSPLINE &&
                         track->in_tangents && track->out_tangents;
    if (track->interpolation == CNA_MORPH_INTERPOLATION_STEP) {
        if (targets > 0) memcpy(out, v0, targets * sizeof(float));
    } else if (hermite) {
        const double s2 = s * s, s3 = s2 * s;
        const double h00 = 2.0 * s3 - 3.0 * s2 + 1.0, h10 = s3 - 2.0 * s2 + s;
        const double h01 = -2.0 * s3 + 3.0 * s2, h11 = s3 - s2;
        const float *b0 = track->out_tangents + (i - 1) * targets;
        const float *a1 = track->in_tangents + i * targets;
        for (size_t c = 0; c < targets; c++)
            out[c] = (float)(h00 * v0[c] + h10 * dt * b0[c] + h01 * v1[c] + h11 * dt * a1[c]);
    } else {
        /* LINEAR, and CUBICSPLINE without tangents (linear fallback) */
        for (size_t c = 0; c < targets; c++) out[c] = (float)((1.0 - s) * v0[c] + s * v1[c]);
    }
    *out_count = targets;
    return CNA_OK;
}
