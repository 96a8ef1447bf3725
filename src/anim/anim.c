/*
 * Ticks, the description constructors, clip lookup and the SkinningData
 * validator (include/cna/anim.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "anim/anim_internal.h"
#include "core/internal.h"
#include "core/vec.h"

/* ------------------------------------------------------------------ ticks */

/* The nearest tick to the exact product seconds · 10^7 (halves away from
 * zero). The double product p is rounded; fma gives its exact error e, so
 * seconds · 10^7 = p + e exactly, and the rounding below is done on that sum:
 * 1/256 s = 39062.5 ticks exactly gives 39063, and 922337203685 s gives
 * 9223372036850000000 although that number is not a double. */
int64_t cna_ticks_from_seconds(double seconds)
{
    const double scale = (double)CNA_TICKS_PER_SECOND; /* exact in a double */
    const double p = seconds * scale;
    if (isnan(p)) return 0;
    if (p >= 0x1p63) return INT64_MAX;
    if (p < -0x1p63) return INT64_MIN;
    const double e = fma(seconds, scale, -p); /* exact: seconds · 10^7 = p + e */
    const bool negative = p < 0.0 || (p == 0.0 && e < 0.0);
    const double a = negative ? -p : p; /* |exact value| = a + ea, a in [0, 2^63] */
    const double ea = negative ? -e : e;
    const double f = floor(a);
    uint64_t u = (uint64_t)f;
    if (a < 0x1p52) {
        /* a - f is exact and a multiple of ulp(a) <= 0.5, and |ea| <= ulp(a)/2,
         * so only an exact half needs ea to break the tie. */
        const double frac = a - f;
        if (frac > 0.5 || (frac == 0.5 && ea >= 0.0)) u += 1;
    } else {
        /* a is an integer; ea carries the fraction (|ea| <= 1024, and ea + 0.5
         * is exact because ea's lowest bit is at least 2^-24 here). */
        const double adj = floor(ea + 0.5);
        if (adj >= 0.0)
            u += (uint64_t)adj;
        else
            u -= (uint64_t)(-adj);
    }
    if (!negative) return u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
    if (u >= ((uint64_t)1 << 63)) return INT64_MIN;
    return -(int64_t)u;
}

double cna_ticks_to_seconds(int64_t ticks) { return (double)ticks / (double)CNA_TICKS_PER_SECOND; }

/* ------------------------------------------------------------------ constructors */

cna_keyframe cna_keyframe_make(int64_t ticks, cna_vec3 translation)
{
    return cna_keyframe_make_trs(ticks, translation, cna_quat_identity(), cna_vec3_one());
}

cna_keyframe cna_keyframe_make_trs(int64_t ticks, cna_vec3 translation, cna_quat rotation,
                                   cna_vec3 scale)
{
    cna_keyframe k;
    k.ticks = ticks;
    k.translation = translation;
    k.rotation = rotation;
    k.scale = scale;
    return k;
}

cna_bone_track cna_bone_track_make(int32_t bone, const cna_keyframe *keys, size_t key_count)
{
    cna_bone_track t;
    t.bone = bone;
    t.keys = keys;
    t.key_count = key_count;
    return t;
}

cna_clip cna_clip_make(const char *name, int64_t duration, const cna_bone_track *tracks,
                       size_t track_count)
{
    cna_clip c;
    c.name = name;
    c.duration = duration;
    c.tracks = tracks;
    c.track_count = track_count;
    c.target = CNA_CLIP_TARGET_JOINT_PALETTE;
    return c;
}

cna_skinning_data cna_skinning_data_make(int32_t bone_count, const int32_t *hierarchy,
                                         const cna_mat4 *bind_pose,
                                         const cna_mat4 *inverse_bind_pose)
{
    cna_skinning_data d;
    memset(&d, 0, sizeof d);
    const size_t count = bone_count > 0 ? (size_t)bone_count : 0;
    d.bone_count = bone_count;
    d.hierarchy = hierarchy;
    d.hierarchy_count = count;
    d.bind_pose = bind_pose;
    d.bind_pose_count = count;
    d.inverse_bind_pose = inverse_bind_pose;
    d.inverse_bind_pose_count = count;
    d.skeleton_root_node = -1;
    return d;
}

const cna_clip *cna_skinning_data_find_clip(const cna_skinning_data *data, const char *name)
{
    if (!data || !name || !data->clips) return NULL;
    for (size_t i = 0; i < data->clip_count; ++i)
        if (data->clips[i].name && strcmp(data->clips[i].name, name) == 0) return &data->clips[i];
    return NULL;
}

/* ------------------------------------------------------------------ checks shared with the player */

cna_result cna__bone_count_check(int32_t bone_count, cna_error *err)
{
    if (bone_count < 0 || bone_count > CNA_MAX_BONE_COUNT)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "bone_count: %ld is outside 0..%d",
                          (long)bone_count, CNA_MAX_BONE_COUNT);
    return CNA_OK;
}

static cna_result check_array(const char *name, const void *array, size_t count, int32_t bone_count,
                              cna_error *err)
{
    if (count != (size_t)bone_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s_count: %zu differs from bone_count %ld",
                          name, count, (long)bone_count);
    if (!array && count > 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: NULL with %s_count %zu", name, name,
                          count);
    return CNA_OK;
}

/* Whether every parent is below its own index (any negative parent is a
 * root), without an exit per bone: eight at a time on the SIMD vocabulary (the player
 * runs this check on every update). */
static bool parents_ordered(const int32_t *hierarchy, int32_t n)
{
    int32_t p0 = 0;
    vi4 any = vi4_zero(), below = vi4_setr(-1, 0, 1, 2); /* p - 1 */
    const vi4 four = vi4_set1(4), eight = vi4_set1(8);
    for (; p0 + 8 <= n; p0 += 8) {
        const vi4 h0 = vi4_loadu(hierarchy + p0), h1 = vi4_loadu(hierarchy + p0 + 4);
        any = vi4_or(any, vi4_or(vi4_cmpgt(h0, below), vi4_cmpgt(h1, vi4_add(below, four))));
        below = vi4_add(below, eight);
    }
    for (; p0 + 4 <= n; p0 += 4) {
        any = vi4_or(any, vi4_cmpgt(vi4_loadu(hierarchy + p0), below)); /* parent >= p */
        below = vi4_add(below, four);
    }
    bool bad = vi4_any(any) != 0;
    for (int32_t p = p0; p < n; ++p) bad |= hierarchy[p] >= p;
    return !bad;
}

cna_result cna__skeleton_check(const cna_skinning_data *data, cna_error *err)
{
    const int32_t n = data->bone_count;
    const size_t un = (size_t)n;
    /* the usual case first, in one pass without messages: every count is
     * n, no array NULL, parents ordered, and the prefix (when used) there */
    if (n > 0 && data->hierarchy_count == un && data->bind_pose_count == un &&
        data->inverse_bind_pose_count == un && data->hierarchy && data->bind_pose &&
        data->inverse_bind_pose && (data->root_prefix_count != un || data->root_prefix) &&
        parents_ordered(data->hierarchy, n))
        return CNA_OK;
    cna_result r;
    if ((r = check_array("hierarchy", data->hierarchy, data->hierarchy_count, n, err))) return r;
    if ((r = check_array("bind_pose", data->bind_pose, data->bind_pose_count, n, err))) return r;
    if ((r = check_array("inverse_bind_pose", data->inverse_bind_pose,
                         data->inverse_bind_pose_count, n, err)))
        return r;
    /* Composition runs in index order, so a parent must come first; this also
     * refuses self-parenting and cycles. Any negative parent is a root. */
    /* first without an exit per bone, then the first offender */
    if (!parents_ordered(data->hierarchy, n))
        for (int32_t p = 0; p < n; ++p)
            if (data->hierarchy[p] >= p)
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                                  "hierarchy[%ld]: parent %ld is not below own index %ld",
                                  (long)p, (long)data->hierarchy[p], (long)p);
    if (n > 0 && data->root_prefix_count == (size_t)n && !data->root_prefix)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "root_prefix: NULL with root_prefix_count %zu", data->root_prefix_count);
    return CNA_OK;
}

bool cna__track_is_sorted(const cna_bone_track *track)
{
    for (size_t i = 1; i < track->key_count; ++i)
        if (track->keys[i].ticks < track->keys[i - 1].ticks) return false;
    return true;
}

/* ------------------------------------------------------------------ validator */

static const char *nonfinite_name(float v)
{
    if (isnan(v)) return "NaN";
    return v > 0.0f ? "inf" : "-inf";
}

static cna_result check_matrices(const char *name, const cna_mat4 *m, int32_t count,
                                 cna_error *err)
{
    for (int32_t i = 0; i < count; ++i)
        for (int e = 0; e < 16; ++e)
            if (!isfinite(m[i].m[e]))
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s[%ld].m[%d]: %s is not finite",
                                  name, (long)i, e, nonfinite_name(m[i].m[e]));
    return CNA_OK;
}

/* Labels that name where a rule broke ("clips[3] \"Walk\".tracks[1].keys[2]").
 * A label longer than the buffer is cut; the message then ends in "...". */
static void label_printf(char *buf, size_t size, const char *fmt, ...) CNA__PRINTF(3, 4);
static void label_printf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n < 0) buf[0] = '\0';
}

/* "clips[3] \"Walk\"" (name cut at 200 bytes) or "clips[3]" when the clip has no name. */
static void clip_label(char *buf, size_t size, size_t index, const cna_clip *clip)
{
    if (clip->name)
        label_printf(buf, size, "clips[%zu] \"%.200s\"", index, clip->name);
    else
        label_printf(buf, size, "clips[%zu]", index);
}

static cna_result check_vec(const char *where, const char *field, const float *v, int n,
                            cna_error *err)
{
    static const char axes[4] = {'x', 'y', 'z', 'w'};
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i]))
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s.%s.%c: %s is not finite", where,
                              field, axes[i], nonfinite_name(v[i]));
    return CNA_OK;
}

static cna_result check_key(const char *track_label, size_t k, const cna_keyframe *key,
                            const cna_keyframe *previous, cna_error *err)
{
    char where[CNA_ERROR_MESSAGE_MAX];
    label_printf(where, sizeof where, "%s.keys[%zu]", track_label, k);
    if (key->ticks < 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: time %lld is negative", where,
                          (long long)key->ticks);
    if (previous && key->ticks < previous->ticks)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "%s: times must not decrease (%lld then %lld)", where,
                          (long long)previous->ticks, (long long)key->ticks);
    const float t[3] = {key->translation.x, key->translation.y, key->translation.z};
    const float r[4] = {key->rotation.x, key->rotation.y, key->rotation.z, key->rotation.w};
    const float s[3] = {key->scale.x, key->scale.y, key->scale.z};
    cna_result res;
    if ((res = check_vec(where, "translation", t, 3, err))) return res;
    if ((res = check_vec(where, "rotation", r, 4, err))) return res;
    return check_vec(where, "scale", s, 3, err);
}

static cna_result check_track(const char *clip, size_t index, const cna_bone_track *track,
                              int32_t bone_count, cna_error *err)
{
    char label[CNA_ERROR_MESSAGE_MAX];
    label_printf(label, sizeof label, "%s.tracks[%zu]", clip, index);
    if (track->bone < 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: bone %ld is negative", label,
                          (long)track->bone);
    if (track->bone >= bone_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: bone %ld is not below bone_count %ld",
                          label, (long)track->bone, (long)bone_count);
    if (!track->keys && track->key_count > 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: keys NULL with key_count %zu", label,
                          track->key_count);
    for (size_t k = 0; k < track->key_count; ++k) {
        cna_result r = check_key(label, k, &track->keys[k], k > 0 ? &track->keys[k - 1] : NULL, err);
        if (r) return r;
    }
    return CNA_OK;
}

static cna_result check_clip(size_t index, const cna_clip *clip, int32_t bone_count, cna_error *err)
{
    char label[CNA_ERROR_MESSAGE_MAX];
    clip_label(label, sizeof label, index, clip);
    if (clip->duration < 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: duration %lld is negative", label,
                          (long long)clip->duration);
    if (clip->target == CNA_CLIP_TARGET_SCENE_NODE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "%s: target scene-node is not a joint-palette clip", label);
    if (clip->target != CNA_CLIP_TARGET_DEFAULT && clip->target != CNA_CLIP_TARGET_JOINT_PALETTE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: target %d is not a cna_clip_target",
                          label, (int)clip->target);
    if (!clip->tracks && clip->track_count > 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: tracks NULL with track_count %zu",
                          label, clip->track_count);
    for (size_t i = 0; i < clip->track_count; ++i) {
        cna_result r = check_track(label, i, &clip->tracks[i], bone_count, err);
        if (r) return r;
    }
    return CNA_OK;
}

cna_result cna_skinning_data_validate(const cna_skinning_data *data, cna_error *err)
{
    if (!data) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "skinning data: NULL");
    cna_result r;
    if ((r = cna__bone_count_check(data->bone_count, err))) return r;
    if ((r = cna__skeleton_check(data, err))) return r;
    const int32_t n = data->bone_count;
    if (data->root_prefix_count != 0 && data->root_prefix_count != (size_t)n)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "root_prefix_count: %zu is neither 0 nor bone_count %ld",
                          data->root_prefix_count, (long)n);
    if ((r = check_matrices("bind_pose", data->bind_pose, n, err))) return r;
    if ((r = check_matrices("inverse_bind_pose", data->inverse_bind_pose, n, err))) return r;
    if (data->root_prefix_count > 0 && (r = check_matrices("root_prefix", data->root_prefix, n, err)))
        return r;
    if (!data->clips && data->clip_count > 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "clips: NULL with clip_count %zu",
                          data->clip_count);
    for (size_t i = 0; i < data->clip_count; ++i)
        if ((r = check_clip(i, &data->clips[i], n, err))) return r;
    return CNA_OK;
}
