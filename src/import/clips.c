/*
 * Clip extraction (spec: "Clip extraction"; the faithful and union modes).
 *
 * Every glTF animation i becomes
 *   - clip i of every skin (target JOINT_PALETTE, tracks by palette index), for
 *     the channels on that skin's joints;
 *   - model->node_clips[i] (target SCENE_NODE, tracks by bone index), for the
 *     channels on nodes of the selected scene that are not joints of an
 *     imported skin.
 * Per animated bone, the key times are the union of its T/R/S channels' key
 * times, deduplicated at 1e-9 s; each channel is evaluated there with its own
 * interpolation (LINEAR: lerp / shortest-arc slerp; STEP: the value of the
 * half-open interval [t_k, t_k+1); CUBICSPLINE: glTF's Hermite curve with the
 * tangents scaled by the interval, rotations renormalised); a channel the bone
 * lacks gives its rest value (the node's own T/R/S, or its matrix decomposed).
 * FAITHFUL mode adds a hold key one tick before each STEP change and
 * subdivides cubic segments until the player's linear interpolation is within
 * 1e-5 of the model size (translation, in model units; scale, absolute 1e-5)
 * and 1e-4 rad (rotation) of the curve. Duration = the largest sampler input
 * time of the animation.
 * A joint whose fold (the non-joint nodes between it and its parent joint)
 * holds a node the animation moves gets the composed keys fold(t) · T·R·S at
 * the union of its own and those nodes' key times (extract_folded_joint), a
 * track even without channels of its own; FAITHFUL adds their STEP hold keys
 * and halves every interval where the player's interpolation strays from the
 * composition by more than the same tolerances, within the same bounds and
 * budget.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"

#define CNA__UNION_EPSILON 1e-9
#define CNA__FAITHFUL_POSITION 1e-5 /* of the model size */
#define CNA__FAITHFUL_SCALE 1e-5
#define CNA__FAITHFUL_ANGLE 1e-4    /* radians */
/* tan²(CNA__FAITHFUL_ANGLE / 4), for rotation_deviates */
#define CNA__FAITHFUL_TAN2 0x1.5798ee256fa7dp-31
/* Bounds on FAITHFUL subdivision, so a hostile curve cannot demand billions of
 * keys: each key interval is halved at most 16 times (65536 pieces), and a
 * track stops growing at 1,000,000 keys (reported: clip-subdivision-limited). */
#define CNA__FAITHFUL_MAX_DEPTH 16
#define CNA__FAITHFUL_MAX_KEYS ((size_t)1000000)
/* And a bound for the whole model, so that many tracks sharing one hostile
 * sampler cannot multiply it: FAITHFUL may add at most
 *   255 · M + 65536 keys to the M input keys (M: every T/R/S channel's input
 * count, summed over the channels), i.e. end with at most 256 · M + 65536.
 * 256 pieces per input key interval follow every cubic segment whose curve
 * strays from its chord by less than 65536 times the tolerance (2/3 of the
 * model size, 6.5 rad), every curve but wild overshoots; 65536 is one interval
 * fully subdivided (the depth bound), so a small file keeps all it needs.
 * Beyond it the import is refused (CNA_ERROR_LIMIT): import in UNION mode. */
#define CNA__FAITHFUL_KEYS_PER_INPUT_KEY ((size_t)256)
#define CNA__FAITHFUL_EXTRA_KEYS ((size_t)65536)

enum { CH_T = 0, CH_R = 1, CH_S = 2 };

/* One input accessor's key times, read and checked once per animation for
 * every sampler that shares it, with their ticks (computed on first use). */
typedef struct time_source {
    int32_t accessor;
    float *times;
    size_t count;
    int64_t *ticks;         /* NULL until needed */
} time_source;

/* One sampler's data, read once per animation. */
typedef struct chan_data {
    const float *times;     /* src->times */
    time_source *src;
    size_t count;
    float *values;          /* count (or 3 * count for CUBICSPLINE) elements of comps floats */
    size_t comps;           /* 3 (T, S) or 4 (R) */
    cna_gltf_interpolation interp;
    bool loaded, failed;
} chan_data;

typedef struct target {
    int32_t node;
    const chan_data *ch[3];  /* T, R, S; NULL when absent */
    int32_t sampler_index[3];
} target;

typedef struct sample { int64_t tick; double sec; } sample;

typedef struct sample_vec { sample *items; size_t count, capacity; } sample_vec;

typedef struct extract_env {
    cna__import_ctx *ctx;   /* the destination: its doc's nodes, its model, its arena */
    const cna_gltf_document *src; /* the document whose animations are read */
    const int32_t *node_map; /* src node -> ctx->doc node (-1: unbound); NULL: the same document */
    cna_allocator alloc;
    cna_clip_mode mode;
    double position_tol;  /* in the target's local units */
    size_t non_unit_keys;
    size_t limited_tracks;  /* tracks whose subdivision hit a bound */
    size_t input_keys;      /* M: the input counts of every T/R/S channel, summed */
    size_t added_keys;      /* keys FAITHFUL added so far (hold and subdivision keys) */
    size_t added_limit;     /* 255 · M + 65536 */
    bool over_budget;       /* a key was refused: added_keys reached added_limit */
    size_t first_non_unit_sampler;
    int32_t first_non_unit_anim;
    sample_vec scratch;     /* the sample buffer, reused from track to track */
    time_source *sources;   /* this animation's input accessors, source_count of them */
    size_t source_count;
    int32_t *source_of_accessor; /* accessor -> index in sources, or -1 */
} extract_env;

/* ------------------------------------------------------------------ sample vectors */

static bool vec_push(const cna_allocator *a, sample_vec *v, int64_t tick, double sec)
{
    if (v->count == v->capacity) {
        size_t cap = v->capacity ? v->capacity * 2 : 32;
        sample *items = (sample *)cna__calloc(a, cap, sizeof *items);
        if (!items) return false;
        if (v->count) memcpy(items, v->items, v->count * sizeof *items);
        cna__free(a, v->items);
        v->items = items;
        v->capacity = cap;
    }
    v->items[v->count].tick = tick;
    v->items[v->count].sec = sec;
    v->count++;
    return true;
}

static int cmp_tick(const void *a, const void *b)
{
    const sample *x = (const sample *)a, *y = (const sample *)b;
    if (x->tick != y->tick) return (x->tick > y->tick) - (x->tick < y->tick);
    return (x->sec > y->sec) - (x->sec < y->sec);
}

static bool vec_reserve(const cna_allocator *a, sample_vec *v, size_t cap)
{
    if (cap <= v->capacity) return true;
    sample *items = (sample *)cna__calloc(a, cap, sizeof *items);
    if (!items) return false;
    if (v->count) memcpy(items, v->items, v->count * sizeof *items);
    cna__free(a, v->items);
    v->items = items;
    v->capacity = cap;
    return true;
}

/* vec_push for a key FAITHFUL adds, within the model's budget (false with
 * env->over_budget set when it is spent, before anything is allocated). */
static bool push_added(extract_env *env, sample_vec *v, int64_t tick, double sec)
{
    if (env->added_keys >= env->added_limit) {
        env->over_budget = true;
        return false;
    }
    env->added_keys++;
    return vec_push(&env->alloc, v, tick, sec);
}

/* Sort by tick; of equal ticks keep the latest time (what the player shows there). */
static void sort_dedupe_ticks(sample_vec *v)
{
    if (v->count < 2) return;
    size_t run = 1;
    while (run < v->count && cmp_tick(&v->items[run - 1], &v->items[run]) <= 0) run++;
    if (run < v->count) qsort(v->items, v->count, sizeof *v->items, cmp_tick); /* already sorted: kept */
    size_t out = 0;
    for (size_t i = 0; i < v->count; i++) {
        if (out > 0 && v->items[out - 1].tick == v->items[i].tick)
            v->items[out - 1] = v->items[i];
        else
            v->items[out++] = v->items[i];
    }
    v->count = out;
}

/* ------------------------------------------------------------------ channel evaluation */

static const float *key_value(const chan_data *c, size_t k)
{
    size_t idx = c->interp == CNA_GLTF_INTERPOLATION_CUBICSPLINE ? 3 * k + 1 : k;
    return c->values + idx * c->comps;
}

static void normalise4(float v[4])
{
    cna_quat q = cna__quat_unit(cna_quat_make(v[0], v[1], v[2], v[3]));
    v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
}

/* Evaluate a channel at `s` seconds into out[0 .. comps). Rotations come out
 * unit length (keys are normalised when read). `cursor` (may be NULL): a key
 * index at or below the interval of `s`, for calls at increasing times; the
 * search then walks forward from it instead of bisecting (same interval). */
static void eval_channel_from(const chan_data *c, double s, float out[4], size_t *cursor)
{
    size_t n = c->count;
    size_t comps = c->comps;
    /* times[0] itself is searched: equal first times give the later key */
    if (n == 1 || s < (double)c->times[0]) {
        memcpy(out, key_value(c, 0), comps * sizeof(float));
        return;
    }
    if (s >= (double)c->times[n - 1]) {
        memcpy(out, key_value(c, n - 1), comps * sizeof(float));
        return;
    }
    /* largest k with times[k] <= s (then s < times[k + 1]); of equal times,
     * the later key (a discontinuity: the later key from that time on) */
    size_t k;
    if (cursor && *cursor < n - 1 && (double)c->times[*cursor] <= s) {
        k = *cursor;
        while ((double)c->times[k + 1] <= s) k++;   /* stops below n - 1: s < times[n - 1] */
        *cursor = k;
    } else {
        size_t lo = 0, hi = n - 1;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if ((double)c->times[mid] <= s) lo = mid; else hi = mid;
        }
        k = lo;
        if (cursor) *cursor = k;
    }
    const float *v0 = key_value(c, k), *v1 = key_value(c, k + 1);
    if (s == (double)c->times[k] || c->interp == CNA_GLTF_INTERPOLATION_STEP) {
        memcpy(out, v0, comps * sizeof(float));   /* STEP: half-open interval */
        return;
    }
    double t0 = (double)c->times[k], t1 = (double)c->times[k + 1];
    double dt = t1 - t0;
    double u = (s - t0) / dt;
    if (c->interp == CNA_GLTF_INTERPOLATION_LINEAR) {
        if (comps == 4) {
            cna_quat q = cna_quat_slerp(cna_quat_make(v0[0], v0[1], v0[2], v0[3]),
                                        cna_quat_make(v1[0], v1[1], v1[2], v1[3]), (float)u);
            out[0] = q.x; out[1] = q.y; out[2] = q.z; out[3] = q.w;
        } else {
            for (size_t i = 0; i < comps; i++)
                out[i] = (float)((double)v0[i] + ((double)v1[i] - (double)v0[i]) * u);
        }
        return;
    }
    /* CUBICSPLINE: p(u) = (2u³-3u²+1) v_k + (u³-2u²+u) dt b_k + (-2u³+3u²) v_k+1 + (u³-u²) dt a_k+1 */
    const float *b0 = c->values + (3 * k + 2) * comps;      /* out-tangent of k */
    const float *a1 = c->values + (3 * (k + 1)) * comps;    /* in-tangent of k + 1 */
    double u2 = u * u, u3 = u2 * u;
    double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
    for (size_t i = 0; i < comps; i++)
        out[i] = (float)(h00 * v0[i] + h10 * dt * b0[i] + h01 * v1[i] + h11 * dt * a1[i]);
    if (comps == 4) {
        /* renormalise the component-wise result */
        double len = sqrt((double)out[0] * out[0] + (double)out[1] * out[1] +
                          (double)out[2] * out[2] + (double)out[3] * out[3]);
        if (len > 0 && isfinite(len))
            for (int i = 0; i < 4; i++) out[i] = (float)(out[i] / len);
        else
            memcpy(out, v0, 4 * sizeof(float));
    }
}

/* eval_channel_from, first trying s as the key time at or just after the
 * cursor: then that key's value (what eval_channel_from gives for s ==
 * times[k]), without the search. */
static inline void eval_channel_at(const chan_data *c, double s, float out[4], size_t *cursor)
{
    size_t k = *cursor, n = c->count;
    if (k < n) {
        if ((double)c->times[k] != s && k + 1 < n && (double)c->times[k + 1] == s) k++;
        while (k + 1 < n && (double)c->times[k + 1] == s) k++; /* equal times: the later key */
        if ((double)c->times[k] == s) {
            const float *v = key_value(c, k);
            out[0] = v[0];
            out[1] = v[1];
            out[2] = v[2];
            if (c->comps == 4) out[3] = v[3];
            *cursor = k;
            return;
        }
    }
    eval_channel_from(c, s, out, cursor);
}

static void eval_channel(const chan_data *c, double s, float out[4])
{
    eval_channel_from(c, s, out, NULL);
}

/* ------------------------------------------------------------------ sampler data */

static void free_chan(const cna_allocator *a, chan_data *c)
{
    cna__free(a, c->values); /* times belong to c->src */
    memset(c, 0, sizeof *c);
}

/* The ticks of a source's times (cna_ticks_from_seconds of each), computed once. */
static const int64_t *source_ticks(extract_env *env, time_source *src)
{
    if (!src->ticks) {
        src->ticks = (int64_t *)cna__calloc(&env->alloc, src->count, sizeof(int64_t));
        if (!src->ticks) return NULL;
        for (size_t k = 0; k < src->count; k++) src->ticks[k] = cna_ticks_from_seconds((double)src->times[k]);
    }
    return src->ticks;
}

static cna_result load_chan(extract_env *env, size_t anim, size_t sampler_index,
                            cna_gltf_animation_path path, chan_data *c, cna_error *err)
{
    if (c->loaded) return c->failed ? CNA_ERROR_INVALID_DATA : CNA_OK;
    const cna_gltf_document *doc = env->src;
    const cna_gltf_animation_sampler *s = &doc->animations[anim].samplers[sampler_index];
    c->loaded = true;
    c->comps = path == CNA_GLTF_PATH_ROTATION ? 4 : 3;
    c->interp = s->interpolation;
    size_t n = cna_gltf_accessor_float_count(doc, s->input);
    size_t vn = cna_gltf_accessor_float_count(doc, s->output);
    size_t per_key = c->interp == CNA_GLTF_INTERPOLATION_CUBICSPLINE ? 3 * c->comps : c->comps;
    size_t need;
    if (n == 0 || !cna__mul_size(n, per_key, &need) || vn < need) {
        c->failed = true;
        return cna__error(err, CNA_ERROR_INVALID_DATA,
                          "animations[%zu].samplers[%zu]: output has %zu values for %zu keys of "
                          "%zu components", anim, sampler_index, vn, n, per_key);
    }
    /* the input's times: read and checked by an earlier sampler of this
     * animation with the same input (the same n then), else here */
    int32_t si = s->input >= 0 && (size_t)s->input < doc->accessor_count ? env->source_of_accessor[s->input] : -1;
    float *times = NULL;
    /* not zeroed: the reads below fill every float */
    if (si < 0 && cna__mul_size(n, sizeof(float), &need)) times = (float *)cna__alloc(&env->alloc, need);
    if (cna__mul_size(vn, sizeof(float), &need)) c->values = (float *)cna__alloc(&env->alloc, need);
    if ((si < 0 && !times) || !c->values) {
        cna__free(&env->alloc, times);
        c->failed = true;
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (animation data)");
    }
    cna_result r = si < 0 ? cna_gltf_accessor_read_floats(doc, s->input, times, n, err) : CNA_OK;
    if (r == CNA_OK) r = cna_gltf_accessor_read_floats(doc, s->output, c->values, vn, err);
    if (r != CNA_OK) {
        cna__free(&env->alloc, times);
        c->failed = true;
        return r;
    }
    if (si < 0) {
        for (size_t k = 0; k < n; k++) {
            if (!isfinite(times[k]) || (k > 0 && !(times[k] >= times[k - 1]))) {
                cna__free(&env->alloc, times);
                c->failed = true;
                return cna__error(err, CNA_ERROR_INVALID_DATA,
                                  "animations[%zu].samplers[%zu].input: times must increase",
                                  anim, sampler_index);
            }
        }
        si = (int32_t)env->source_count++; /* sources has room for every sampler */
        time_source *src = &env->sources[si];
        src->accessor = s->input;
        src->times = times;
        src->count = n;
        src->ticks = NULL;
        env->source_of_accessor[s->input] = si;
    }
    c->src = &env->sources[si];
    c->times = c->src->times;
    uint64_t bad = 0; /* exponent all ones <=> (u & 0x7f800000) + 0x00800000 reaches bit 31 */
    size_t i2 = 0;
    for (; i2 + 2 <= vn; i2 += 2) { /* two floats a step: no carry crosses from the low one */
        uint64_t u;
        memcpy(&u, &c->values[i2], sizeof u);
        bad |= (u & 0x7f8000007f800000u) + 0x0080000000800000u;
    }
    for (; i2 < vn; i2++) {
        uint32_t u;
        memcpy(&u, &c->values[i2], sizeof u);
        bad |= (u & 0x7f800000u) + 0x00800000u;
    }
    bad |= bad >> 32;
    for (size_t i = 0; (bad & 0x80000000u) && i < vn; i++) {
        if (!isfinite(c->values[i])) {
            c->failed = true;
            return cna__error(err, CNA_ERROR_INVALID_DATA,
                              "animations[%zu].samplers[%zu].output[%zu]: not finite", anim,
                              sampler_index, i);
        }
    }
    c->count = n;
    if (c->comps == 4) {
        /* Normalise rotation keys (values only: cubic tangents are left as they are). */
        for (size_t k = 0; k < n; k++) {
            float *q = (float *)key_value(c, k);
            /* cna__quat_needs_normalising, inline */
            double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
            if (!(fabs(1.0 - len) <= CNA__QUAT_UNIT_TOLERANCE)) {
                if (env->non_unit_keys++ == 0) {
                    env->first_non_unit_anim = (int32_t)anim;
                    env->first_non_unit_sampler = sampler_index;
                }
                normalise4(q);
            }
        }
    }
    return CNA_OK;
}

/* ------------------------------------------------------------------ one track */

typedef struct rest_trs { cna_vec3 t; cna_quat r; cna_vec3 s; } rest_trs;

static rest_trs node_rest_trs(const cna_gltf_node *n)
{
    rest_trs r;
    if (n->has_matrix) {
        cna_mat4_decompose(&n->matrix, &r.t, &r.r, &r.s);
    } else {
        r.t = n->translation;
        r.r = cna__quat_unit(n->rotation);
        r.s = n->scale;
    }
    return r;
}

static float max_abs_diff(const float *a, const float *b, size_t n)
{
    float m = 0;
    for (size_t i = 0; i < n; i++) {
        float d = fabsf(a[i] - b[i]);
        if (!(d <= m)) m = d;
    }
    return m;
}

/* Whether the rotation between two rotations is more than
 * CNA__FAITHFUL_ANGLE. That angle is 2·φ, φ the 4D angle between the unit
 * quaternions (sign-aligned), which is 4·atan2(|a - b|, |a + b|) (accurate
 * for tiny angles, where 2·acos(a·b) is not); it is above the limit A
 * exactly when |a - b|² > |a + b|² · tan²(A/4). That comparison needs no
 * trigonometry from the C library, whose last bits differ between
 * implementations (and, in glibc, between CPUs with and without FMA): the
 * keys the importer adds do not depend on it. */
static bool rotation_deviates(const float *a, const float *b)
{
    double dot = 0, na = 0, nb = 0;
    for (int i = 0; i < 4; i++) {
        dot += (double)a[i] * b[i];
        na += (double)a[i] * a[i];
        nb += (double)b[i] * b[i];
    }
    if (na <= 0 || nb <= 0) return false;
    na = sqrt(na);
    nb = sqrt(nb);
    double sign = dot < 0 ? -1.0 : 1.0;
    double diff = 0, sum = 0;
    for (int i = 0; i < 4; i++) {
        double x = (double)a[i] / na, y = sign * (double)b[i] / nb;
        diff += (x - y) * (x - y);
        sum += (x + y) * (x + y);
    }
    return diff > sum * CNA__FAITHFUL_TAN2;
}

/* true when the player's interpolation between a and b strays from some
 * cubic channel's curve by more than the tolerances at 1/4, 1/2 or 3/4. */
static bool cubic_deviates(const extract_env *env, const target *tg, sample a, sample b)
{
    for (int c = 0; c < 3; c++) {
        const chan_data *ch = tg->ch[c];
        if (!ch || ch->interp != CNA_GLTF_INTERPOLATION_CUBICSPLINE) continue;
        float va[4], vb[4], exact[4], approx[4];
        eval_channel(ch, a.sec, va);
        eval_channel(ch, b.sec, vb);
        for (int q = 1; q <= 3; q++) {
            int64_t t = a.tick + (b.tick - a.tick) * q / 4;
            if (t <= a.tick || t >= b.tick) continue;
            /* amount exactly as the player computes it */
            float amount = (float)((double)(t - a.tick) / (double)(b.tick - a.tick));
            eval_channel(ch, cna_ticks_to_seconds(t), exact);
            if (c == CH_R) {
                cna_quat r = cna_quat_slerp(cna_quat_make(va[0], va[1], va[2], va[3]),
                                            cna_quat_make(vb[0], vb[1], vb[2], vb[3]), amount);
                approx[0] = r.x; approx[1] = r.y; approx[2] = r.z; approx[3] = r.w;
                if (rotation_deviates(exact, approx)) return true;
            } else {
                cna_vec3 l = cna_vec3_lerp(cna_vec3_make(va[0], va[1], va[2]),
                                           cna_vec3_make(vb[0], vb[1], vb[2]), amount);
                approx[0] = l.x; approx[1] = l.y; approx[2] = l.z;
                double tol = c == CH_T ? env->position_tol : CNA__FAITHFUL_SCALE;
                if ((double)max_abs_diff(exact, approx, 3) > tol) return true;
            }
        }
    }
    return false;
}

static bool refine(extract_env *env, const target *tg, sample a, sample b, sample_vec *out,
                   int depth, bool *limited)
{
    if (b.tick - a.tick < 2) return true;
    if (!cubic_deviates(env, tg, a, b)) return true;
    if (depth >= CNA__FAITHFUL_MAX_DEPTH || out->count >= CNA__FAITHFUL_MAX_KEYS) {
        *limited = true;
        return true;
    }
    sample m;
    m.tick = a.tick + (b.tick - a.tick) / 2;
    m.sec = cna_ticks_to_seconds(m.tick);
    if (!push_added(env, out, m.tick, m.sec)) return false;
    return refine(env, tg, a, m, out, depth + 1, limited) && refine(env, tg, m, b, out, depth + 1, limited);
}

/* The keys of one target. `fold` (may be NULL = identity): each key's local
 * is fold · T · R · S, decomposed back into a key. */
static cna_result extract_track(extract_env *env, const target *tg, const rest_trs *rest,
                                const cna_mat4 *fold, cna_keyframe **out_keys, size_t *out_count,
                                cna_error *err)
{
    const cna_allocator *a = &env->alloc;
    sample_vec v = env->scratch;
    v.count = 0;
    cna_result r = CNA_OK;
    /* 1. the union of the key times, deduplicated at 1e-9 s: the channels'
     * times never decrease (checked when read), so a merge sorts them */
    size_t total = 0, pos[3] = {0, 0, 0};
    const int64_t *ticks[3] = {NULL, NULL, NULL};
    time_source *shared = NULL; /* the one input of every channel, if they share one */
    bool one_source = true;
    for (int c = 0; c < 3; c++) {
        if (!tg->ch[c]) continue;
        total += tg->ch[c]->count;
        if (shared && tg->ch[c]->src != shared) one_source = false;
        shared = tg->ch[c]->src;
        ticks[c] = source_ticks(env, tg->ch[c]->src);
        if (!ticks[c]) r = CNA_ERROR_OUT_OF_MEMORY;
    }
    if (r == CNA_OK && !vec_reserve(a, &v, total)) r = CNA_ERROR_OUT_OF_MEMORY;
    size_t merged = 0;
    if (r == CNA_OK && shared && one_source) {
        /* one increasing time list: the union is the list itself */
        for (size_t k = 0; k < shared->count; k++) {
            v.items[k].tick = shared->ticks[k];
            v.items[k].sec = (double)shared->times[k];
        }
        v.count = shared->count;
        merged = total;
    }
    while (r == CNA_OK && merged < total) {
        int best = -1;
        double bs = 0;
        for (int c = 0; c < 3; c++) {
            const chan_data *ch = tg->ch[c];
            if (!ch || pos[c] >= ch->count) continue;
            double s = (double)ch->times[pos[c]];
            if (best < 0 || s < bs) { best = c; bs = s; }
        }
        pos[best]++;
        merged++;
        /* a time equal to the one just taken (channels sharing key times) would
         * be dropped by the deduplication below: skipped here */
        if (v.count > 0 && v.items[v.count - 1].sec == bs) continue;
        v.items[v.count].tick = ticks[best][pos[best] - 1];
        v.items[v.count].sec = bs;
        v.count++;
    }
    if (r == CNA_OK && v.count > 1) {
        size_t outn = 1;
        for (size_t i = 1; i < v.count; i++)
            if (v.items[i].sec - v.items[outn - 1].sec > CNA__UNION_EPSILON) v.items[outn++] = v.items[i];
        v.count = outn;
    }
    /* 2. FAITHFUL: a hold key one tick before every STEP change and every
     * jump at equal key times (the value just before: the curve towards the
     * earlier key of the pair) */
    if (r == CNA_OK && env->mode == CNA_CLIP_MODE_FAITHFUL) {
        for (int c = 0; c < 3 && r == CNA_OK; c++) {
            const chan_data *ch = tg->ch[c];
            if (!ch) continue;
            for (size_t k = 1; k < ch->count; k++) {
                bool jump = ch->times[k] == ch->times[k - 1];
                if (!jump && ch->interp != CNA_GLTF_INTERPOLATION_STEP) continue;
                if (memcmp(key_value(ch, k), key_value(ch, k - 1), ch->comps * sizeof(float)) == 0)
                    continue;
                size_t before = k - 1; /* the last key before this time, if any */
                while (before > 0 && ch->times[before] == ch->times[k]) before--;
                int64_t tick = cna_ticks_from_seconds((double)ch->times[k]) - 1;
                if (ch->times[before] == ch->times[k] ? tick < 0
                                                      : tick <= cna_ticks_from_seconds((double)ch->times[before]))
                    continue;
                if (!push_added(env, &v, tick, cna_ticks_to_seconds(tick))) { r = CNA_ERROR_OUT_OF_MEMORY; break; }
            }
        }
    }
    if (r == CNA_OK) sort_dedupe_ticks(&v);
    /* 3. FAITHFUL: subdivide cubic segments */
    if (r == CNA_OK && env->mode == CNA_CLIP_MODE_FAITHFUL) {
        bool cubic = false;
        for (int c = 0; c < 3; c++)
            if (tg->ch[c] && tg->ch[c]->interp == CNA_GLTF_INTERPOLATION_CUBICSPLINE) cubic = true;
        if (cubic) {
            size_t base = v.count;
            bool limited = false;
            for (size_t i = 0; i + 1 < base && r == CNA_OK; i++)
                if (!refine(env, tg, v.items[i], v.items[i + 1], &v, 0, &limited)) r = CNA_ERROR_OUT_OF_MEMORY;
            if (limited) env->limited_tracks++;
            if (r == CNA_OK) sort_dedupe_ticks(&v);
        }
    }
    env->scratch = v;
    if (r != CNA_OK && env->over_budget)
        return cna__error(err, CNA_ERROR_LIMIT, "faithful extraction needs more than %zu keys",
                          env->input_keys + env->added_limit); /* reworded by extract_animation */
    if (r != CNA_OK) return cna__error(err, r, "import: out of memory (clip keys)");
    /* 4. evaluate every channel at every sample */
    cna_keyframe *keys = (cna_keyframe *)cna__arena_calloc(env->ctx->arena, v.count ? v.count : 1,
                                                           sizeof *keys);
    if (!keys) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (clip keys)");
    bool use_fold = fold && !cna_mat4_is_identity(fold);
    size_t cur[3] = {0, 0, 0};
    for (size_t i = 0; i < v.count; i++) {
        float val[4];
        cna_keyframe *k = &keys[i];
        k->ticks = v.items[i].tick;
        k->translation = rest->t;
        k->rotation = rest->r;
        k->scale = rest->s;
        if (tg->ch[CH_T]) {
            eval_channel_at(tg->ch[CH_T], v.items[i].sec, val, &cur[CH_T]);
            k->translation = cna_vec3_make(val[0] * env->ctx->unit_scale, val[1] * env->ctx->unit_scale,
                                           val[2] * env->ctx->unit_scale);
        }
        if (tg->ch[CH_R]) {
            eval_channel_at(tg->ch[CH_R], v.items[i].sec, val, &cur[CH_R]);
            k->rotation = cna_quat_make(val[0], val[1], val[2], val[3]);
        }
        if (tg->ch[CH_S]) {
            eval_channel_at(tg->ch[CH_S], v.items[i].sec, val, &cur[CH_S]);
            k->scale = cna_vec3_make(val[0], val[1], val[2]);
        }
        {
            /* the magnitudes of the node's own T and S (before any fold) */
            double ks = fabs((double)k->scale.x), kt;
            if (!(fabs((double)k->scale.y) <= ks)) ks = fabs((double)k->scale.y);
            if (!(fabs((double)k->scale.z) <= ks)) ks = fabs((double)k->scale.z);
            kt = sqrt((double)k->translation.x * k->translation.x + (double)k->translation.y * k->translation.y +
                      (double)k->translation.z * k->translation.z);
            if (!(ks <= env->ctx->node_key_scale[tg->node])) env->ctx->node_key_scale[tg->node] = ks;
            if (!(kt <= env->ctx->node_key_translation[tg->node])) env->ctx->node_key_translation[tg->node] = kt;
        }
        if (use_fold) {
            /* local = fold · T · R · S, back into a key */
            cna_mat4 local, folded;
            cna_mat4_compose(&local, k->translation, k->rotation, k->scale);
            cna_mat4_mul(&folded, fold, &local);
            cna_mat4_decompose(&folded, &k->translation, &k->rotation, &k->scale);
        }
    }
    *out_keys = keys;
    *out_count = v.count;
    return CNA_OK;
}

/* ------------------------------------------------------------------ a joint under animated folded nodes */

/* A joint whose fold (the non-joint nodes between it and its parent joint)
 * holds a node this animation moves: its keys are the composition
 *   local(t) = L_cm(t) · ... · L_c1(t) · T(t) · R(t) · S(t)
 * (c1 the joint's parent node, cm the node just below the parent joint; an
 * unanimated c_i keeps its rest L_ci, an animated one its channels, a channel
 * it lacks its rest value), which is glTF's world of the joint relative to
 * its parent joint at every time. */
typedef struct fold_chain {
    const target *joint;      /* the joint's own channels, or NULL */
    rest_trs joint_rest;
    int32_t joint_node;       /* destination node */
    size_t count;             /* pieces, c1's first: an animated node, or a run of unanimated ones */
    const target **tg;        /* per piece: the node's channels, or NULL for a run */
    rest_trs *rest;           /* per piece: the node's rest T/R/S (used with tg) */
    cna_mat4 *rest_local;     /* per piece: the run's product L_cj · ... · L_ci (used without tg) */
} fold_chain;

/* A target's T/R/S at `s` seconds, rest values where it has no channel. */
static void eval_target(const extract_env *env, const target *tg, const rest_trs *rest, double s, cna_keyframe *k)
{
    float val[4];
    k->translation = rest->t;
    k->rotation = rest->r;
    k->scale = rest->s;
    if (!tg) return;
    if (tg->ch[CH_T]) {
        eval_channel(tg->ch[CH_T], s, val);
        k->translation = cna_vec3_make(val[0] * env->ctx->unit_scale, val[1] * env->ctx->unit_scale,
                                       val[2] * env->ctx->unit_scale);
    }
    if (tg->ch[CH_R]) {
        eval_channel(tg->ch[CH_R], s, val);
        k->rotation = cna_quat_make(val[0], val[1], val[2], val[3]);
    }
    if (tg->ch[CH_S]) {
        eval_channel(tg->ch[CH_S], s, val);
        k->scale = cna_vec3_make(val[0], val[1], val[2]);
    }
}

/* The composed key at `s` seconds (ticks not set); `own` receives the
 * joint's own T/R/S (may be NULL). */
static void eval_chain(const extract_env *env, const fold_chain *fc, double s, cna_keyframe *out, cna_keyframe *own)
{
    cna_keyframe k;
    cna_mat4 local, m;
    eval_target(env, fc->joint, &fc->joint_rest, s, &k);
    if (own) *own = k;
    cna_mat4_compose(&local, k.translation, k.rotation, k.scale);
    for (size_t i = 0; i < fc->count; i++) {   /* local = L_ci · local, c1 first */
        if (fc->tg[i]) {
            cna_keyframe c;
            eval_target(env, fc->tg[i], &fc->rest[i], s, &c);
            cna_mat4 l;
            cna_mat4_compose(&l, c.translation, c.rotation, c.scale);
            cna_mat4_mul(&m, &l, &local);
        } else {
            cna_mat4_mul(&m, &fc->rest_local[i], &local);
        }
        local = m;
    }
    out->ticks = 0;
    cna_mat4_decompose(&local, &out->translation, &out->rotation, &out->scale);
}

/* true when the player's interpolation of the composed keys at a and b strays
 * from the composition by more than the tolerances at 1/4, 1/2 or 3/4. */
static bool chain_deviates(const extract_env *env, const fold_chain *fc, sample a, sample b)
{
    cna_keyframe ka, kb, exact;
    eval_chain(env, fc, a.sec, &ka, NULL);
    eval_chain(env, fc, b.sec, &kb, NULL);
    for (int q = 1; q <= 3; q++) {
        int64_t t = a.tick + (b.tick - a.tick) * q / 4;
        if (t <= a.tick || t >= b.tick) continue;
        float amount = (float)((double)(t - a.tick) / (double)(b.tick - a.tick)); /* as the player */
        eval_chain(env, fc, cna_ticks_to_seconds(t), &exact, NULL);
        cna_quat r = cna_quat_slerp(ka.rotation, kb.rotation, amount);
        float e[4] = {exact.rotation.x, exact.rotation.y, exact.rotation.z, exact.rotation.w};
        float p[4] = {r.x, r.y, r.z, r.w};
        if (rotation_deviates(e, p)) return true;
        cna_vec3 lt = cna_vec3_lerp(ka.translation, kb.translation, amount);
        cna_vec3 ls = cna_vec3_lerp(ka.scale, kb.scale, amount);
        float et[3] = {exact.translation.x, exact.translation.y, exact.translation.z}, pt[3] = {lt.x, lt.y, lt.z};
        float es[3] = {exact.scale.x, exact.scale.y, exact.scale.z}, ps[3] = {ls.x, ls.y, ls.z};
        if (!((double)max_abs_diff(et, pt, 3) <= env->position_tol)) return true;
        if (!((double)max_abs_diff(es, ps, 3) <= CNA__FAITHFUL_SCALE)) return true;
    }
    return false;
}

static bool refine_chain(extract_env *env, const fold_chain *fc, sample a, sample b, sample_vec *out, int depth,
                         bool *limited)
{
    if (b.tick - a.tick < 2) return true;
    if (!chain_deviates(env, fc, a, b)) return true;
    if (depth >= CNA__FAITHFUL_MAX_DEPTH || out->count >= CNA__FAITHFUL_MAX_KEYS) {
        *limited = true;
        return true;
    }
    sample m;
    m.tick = a.tick + (b.tick - a.tick) / 2;
    m.sec = cna_ticks_to_seconds(m.tick);
    if (!push_added(env, out, m.tick, m.sec)) return false;
    return refine_chain(env, fc, a, m, out, depth + 1, limited) && refine_chain(env, fc, m, b, out, depth + 1, limited);
}

static int cmp_sec(const void *a, const void *b)
{
    const sample *x = (const sample *)a, *y = (const sample *)b;
    return (x->sec > y->sec) - (x->sec < y->sec);
}

/* The keys of a joint under animated folded nodes: at the union of the key
 * times of the joint's channels and of every animated chain node's
 * (deduplicated at 1e-9 s); FAITHFUL adds a hold key before every STEP change
 * of any of them and halves every interval where the player's interpolation
 * of the composed keys strays from the composition (the tolerances and
 * budget of the cubic subdivision). */
static cna_result extract_chain_track(extract_env *env, const fold_chain *fc, cna_keyframe **out_keys,
                                      size_t *out_count, cna_error *err)
{
    sample_vec v = env->scratch;
    v.count = 0;
    cna_result r = CNA_OK;
    for (size_t i = 0; i <= fc->count && r == CNA_OK; i++) {
        const target *tg = i == 0 ? fc->joint : fc->tg[i - 1];
        for (int c = 0; tg && c < 3 && r == CNA_OK; c++) {
            const chan_data *ch = tg->ch[c];
            if (!ch) continue;
            const int64_t *ticks = source_ticks(env, ch->src);
            if (!ticks) { r = CNA_ERROR_OUT_OF_MEMORY; break; }
            for (size_t k = 0; k < ch->count; k++)
                if (!vec_push(&env->alloc, &v, ticks[k], (double)ch->times[k])) { r = CNA_ERROR_OUT_OF_MEMORY; break; }
        }
    }
    if (r == CNA_OK && v.count > 1) {
        qsort(v.items, v.count, sizeof *v.items, cmp_sec);
        size_t outn = 1;
        for (size_t i = 1; i < v.count; i++)
            if (v.items[i].sec - v.items[outn - 1].sec > CNA__UNION_EPSILON) v.items[outn++] = v.items[i];
        v.count = outn;
    }
    if (r == CNA_OK && env->mode == CNA_CLIP_MODE_FAITHFUL) {
        for (size_t i = 0; i <= fc->count && r == CNA_OK; i++) {
            const target *tg = i == 0 ? fc->joint : fc->tg[i - 1];
            for (int c = 0; tg && c < 3 && r == CNA_OK; c++) {
                const chan_data *ch = tg->ch[c];
                if (!ch || ch->interp != CNA_GLTF_INTERPOLATION_STEP) continue;
                for (size_t k = 1; k < ch->count; k++) {
                    if (memcmp(key_value(ch, k), key_value(ch, k - 1), ch->comps * sizeof(float)) == 0) continue;
                    int64_t tick = cna_ticks_from_seconds((double)ch->times[k]) - 1;
                    if (tick <= cna_ticks_from_seconds((double)ch->times[k - 1])) continue;
                    if (!push_added(env, &v, tick, cna_ticks_to_seconds(tick))) { r = CNA_ERROR_OUT_OF_MEMORY; break; }
                }
            }
        }
    }
    if (r == CNA_OK) sort_dedupe_ticks(&v);
    if (r == CNA_OK && env->mode == CNA_CLIP_MODE_FAITHFUL) {
        size_t base = v.count;
        bool limited = false;
        for (size_t i = 0; i + 1 < base && r == CNA_OK; i++)
            if (!refine_chain(env, fc, v.items[i], v.items[i + 1], &v, 0, &limited)) r = CNA_ERROR_OUT_OF_MEMORY;
        if (limited) env->limited_tracks++;
        if (r == CNA_OK) sort_dedupe_ticks(&v);
    }
    env->scratch = v;
    if (r != CNA_OK && env->over_budget)
        return cna__error(err, CNA_ERROR_LIMIT, "faithful extraction needs more than %zu keys",
                          env->input_keys + env->added_limit); /* reworded by extract_animation */
    if (r != CNA_OK) return cna__error(err, r, "import: out of memory (clip keys)");
    cna_keyframe *keys = (cna_keyframe *)cna__arena_calloc(env->ctx->arena, v.count ? v.count : 1, sizeof *keys);
    if (!keys) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (clip keys)");
    double *key_scale = &env->ctx->node_key_scale[fc->joint_node];
    double *key_translation = &env->ctx->node_key_translation[fc->joint_node];
    for (size_t i = 0; i < v.count; i++) {
        cna_keyframe own;
        eval_chain(env, fc, v.items[i].sec, &keys[i], &own);
        keys[i].ticks = v.items[i].tick;
        if (!fc->joint) continue;
        /* the magnitudes of the joint's own T and S (before the fold) */
        double ks = fabs((double)own.scale.x);
        if (!(fabs((double)own.scale.y) <= ks)) ks = fabs((double)own.scale.y);
        if (!(fabs((double)own.scale.z) <= ks)) ks = fabs((double)own.scale.z);
        double kt = sqrt((double)own.translation.x * own.translation.x + (double)own.translation.y * own.translation.y +
                         (double)own.translation.z * own.translation.z);
        if (!(ks <= *key_scale)) *key_scale = ks;
        if (!(kt <= *key_translation)) *key_translation = kt;
    }
    *out_keys = keys;
    *out_count = v.count;
    return CNA_OK;
}

/* ------------------------------------------------------------------ per animation */

/* Largest scale factor of a matrix's upper 3x3 (column lengths). */
static double max_column_scale(const cna_mat4 *m)
{
    double best = 0;
    for (int c = 0; c < 3; c++) {
        double l = sqrt((double)m->m[c * 4] * m->m[c * 4] + (double)m->m[c * 4 + 1] * m->m[c * 4 + 1] +
                        (double)m->m[c * 4 + 2] * m->m[c * 4 + 2]);
        if (l > best) best = l;
    }
    return best;
}

static double position_tolerance(const cna__import_ctx *ctx, int32_t node)
{
    double tol = CNA__FAITHFUL_POSITION * (double)ctx->model->pub.size;
    int32_t parent = ctx->doc->nodes[node].parent;
    if (parent >= 0) {
        double s = max_column_scale(&ctx->node_world[parent]);
        if (s > 1e-12 && isfinite(s)) tol /= s;
    }
    return tol;
}

typedef struct skin_clips {
    int32_t gltf_skin;       /* the representative: first model skin of this glTF skin */
    size_t model_skin;
    cna_clip *clips;         /* animation_count */
} skin_clips;

static int32_t palette_of_node(const cna_model_skin *s, int32_t gltf_node)
{
    for (size_t p = 0; p < s->joint_count; p++)
        if (s->palette_to_gltf_node[p] == gltf_node) return (int32_t)p;
    return -1;
}

static int cmp_track(const void *a, const void *b)
{
    int32_t x = ((const cna_bone_track *)a)->bone, y = ((const cna_bone_track *)b)->bone;
    return (x > y) - (x < y);
}

/* The non-joint nodes between palette joint p and its parent joint (c1, the
 * joint's parent node, first) in `chain` when one of them is a target of
 * this animation; their count, 0 when none is (or p is a root). With chain
 * NULL, only the answer. */
static size_t animated_fold(const extract_env *env, const cna_model_skin *s, int32_t p,
                            const int32_t *target_of_node, int32_t *chain)
{
    const int32_t parent = s->data.hierarchy[p];
    if (parent < 0) return 0;
    const cna_gltf_document *dest = env->ctx->doc;
    const int32_t parent_node = s->palette_to_gltf_node[parent];
    size_t m = 0;
    bool animated = false;
    for (int32_t n = dest->nodes[s->palette_to_gltf_node[p]].parent; n >= 0 && n != parent_node;
         n = dest->nodes[n].parent) {
        if (target_of_node[n] >= 0) animated = true;
        if (chain) chain[m] = n;
        m++;
    }
    return animated ? m : 0;
}

/* The track of palette joint p of skin s whose fold moves in this animation
 * (joint: its own channels, or NULL). */
static cna_result extract_folded_joint(extract_env *env, const cna_model_skin *s, int32_t p, const target *joint,
                                       const target *targets, const int32_t *target_of_node,
                                       cna_keyframe **keys, size_t *key_count, cna_error *err)
{
    cna__import_ctx *ctx = env->ctx;
    const cna_gltf_document *dest = ctx->doc;
    size_t m = animated_fold(env, s, p, target_of_node, NULL);
    int32_t *chain = (int32_t *)cna__calloc(&env->alloc, m, sizeof(int32_t));
    const target **tg = (const target **)cna__calloc(&env->alloc, m, sizeof *tg);
    rest_trs *rest = (rest_trs *)cna__calloc(&env->alloc, m, sizeof *rest);
    cna_mat4 *rest_local = (cna_mat4 *)cna__calloc(&env->alloc, m, sizeof *rest_local);
    cna_result r;
    if (!chain || !tg || !rest || !rest_local) {
        r = cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (clip keys)");
    } else {
        animated_fold(env, s, p, target_of_node, chain);
        fold_chain fc;
        fc.joint = joint;
        fc.joint_node = s->palette_to_gltf_node[p];
        fc.joint_rest = node_rest_trs(&dest->nodes[fc.joint_node]);
        fc.tg = tg;
        fc.rest = rest;
        fc.rest_local = rest_local;
        /* consecutive unanimated nodes as one piece, so that a long chain
         * costs one product per key, not one per node */
        size_t pieces = 0;
        for (size_t i = 0; i < m; i++) {
            const int32_t ti = target_of_node[chain[i]];
            if (ti >= 0) {
                tg[pieces] = &targets[ti];
                rest[pieces++] = node_rest_trs(&dest->nodes[chain[i]]);
            } else if (pieces > 0 && !tg[pieces - 1]) {
                cna_mat4 run;
                cna_mat4_mul(&run, &ctx->node_local[chain[i]], &rest_local[pieces - 1]);
                rest_local[pieces - 1] = run;
            } else {
                tg[pieces] = NULL;
                rest_local[pieces++] = ctx->node_local[chain[i]];
            }
        }
        fc.count = pieces;
        /* translations are in the parent joint's space */
        env->position_tol = position_tolerance(ctx, chain[m - 1]);
        r = extract_chain_track(env, &fc, keys, key_count, err);
    }
    cna__free(&env->alloc, chain);
    cna__free(&env->alloc, (void *)tg);
    cna__free(&env->alloc, rest);
    cna__free(&env->alloc, rest_local);
    return r;
}

typedef struct anim_counts {
    size_t outside_scene, unsupported, rigid_on_skinned;
    int first_outside_channel, first_unsupported_channel, first_rigid_channel;
} anim_counts;

/* Animation ai of env->src into clip `out` of every skin group and of node_clips. */
static cna_result extract_animation(extract_env *env, size_t ai, size_t out, skin_clips *groups,
                                    size_t group_count, cna_clip *node_clips, int32_t *target_of_node,
                                    anim_counts *counts, cna_error *err)
{
    cna__import_ctx *ctx = env->ctx;
    const cna_gltf_document *doc = env->src;       /* the animation's accessors */
    const cna_gltf_document *dest = ctx->doc;      /* the nodes its tracks move */
    cna_model *m = &ctx->model->pub;
    const cna_gltf_animation *anim = &doc->animations[ai];
    cna_result r = CNA_OK;

    char fallback[32];
    snprintf(fallback, sizeof fallback, "animation_%zu", ai);
    const char *name = cna__arena_strdup(ctx->arena, anim->name ? anim->name : fallback);
    if (!name) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");

    /* Duration: the largest input time of every sampler (the data's last time,
     * not the accessor's max field). */
    double duration = 0;
    for (size_t s = 0; s < anim->sampler_count; s++) {
        int32_t in = anim->samplers[s].input;
        if (in < 0 || (size_t)in >= doc->accessor_count) continue;
        const cna_gltf_accessor *acc = &doc->accessors[in];
        float last;
        if (acc->count > 0 &&
            cna_gltf_accessor_read_element_floats(doc, in, acc->count - 1, &last, 1, NULL) == CNA_OK &&
            isfinite(last) && (double)last > duration)
            duration = (double)last;
    }
    int64_t duration_ticks = cna_ticks_from_seconds(duration);

    chan_data *chans = (chan_data *)cna__calloc(&env->alloc, anim->sampler_count ? anim->sampler_count : 1,
                                                sizeof *chans);
    target *targets = (target *)cna__calloc(&env->alloc, anim->channel_count ? anim->channel_count : 1,
                                            sizeof *targets);
    env->sources = (time_source *)cna__calloc(&env->alloc, anim->sampler_count ? anim->sampler_count : 1,
                                              sizeof *env->sources);
    env->source_count = 0;
    if (!chans || !targets || !env->sources) {
        cna__free(&env->alloc, chans);
        cna__free(&env->alloc, targets);
        cna__free(&env->alloc, env->sources);
        env->sources = NULL;
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
    }
    size_t target_count = 0;
    for (size_t c = 0; c < anim->channel_count && r == CNA_OK; c++) {
        const cna_gltf_animation_channel *ch = &anim->channels[c];
        if (ch->target_node < 0 || (size_t)ch->target_node >= doc->node_count) continue;
        if (ch->sampler < 0 || (size_t)ch->sampler >= anim->sampler_count) continue;
        int slot;
        switch (ch->path) {
        case CNA_GLTF_PATH_TRANSLATION: slot = CH_T; break;
        case CNA_GLTF_PATH_ROTATION: slot = CH_R; break;
        case CNA_GLTF_PATH_SCALE: slot = CH_S; break;
        case CNA_GLTF_PATH_WEIGHTS: continue; /* morph weight tracks: the mesh import */
        default:
            if (counts->unsupported++ == 0) counts->first_unsupported_channel = (int)c;
            continue;
        }
        /* bound from another document: the node of the same name, if any */
        const int32_t node = env->node_map ? env->node_map[ch->target_node] : ch->target_node;
        if (node < 0) continue;
        r = load_chan(env, ai, (size_t)ch->sampler, ch->path, &chans[ch->sampler], err);
        if (r != CNA_OK) break;
        int32_t ti = target_of_node[node];
        if (ti < 0) {
            ti = (int32_t)target_count++;
            target_of_node[node] = ti;
            memset(&targets[ti], 0, sizeof targets[ti]);
            targets[ti].node = node;
        }
        targets[ti].ch[slot] = &chans[ch->sampler];   /* a repeated path: the last channel wins */
        targets[ti].sampler_index[slot] = ch->sampler;
    }

    /* Skeletal clips, one per glTF skin (shared by its instances). A joint
     * whose fold holds a node this animation moves gets the composed keys
     * (extract_folded_joint), with a track even without channels of its own. */
    for (size_t g = 0; g < group_count && r == CNA_OK; g++) {
        const cna_model_skin *s = &m->skins[groups[g].model_skin];
        size_t n_tracks = 0, folded = 0;
        for (size_t t = 0; t < target_count; t++)
            if (palette_of_node(s, targets[t].node) >= 0) n_tracks++;
        uint8_t *moving_fold = NULL; /* per palette joint: 1 its fold moves, 2 and its track is made */
        for (size_t p = 0; p < s->joint_count; p++) {
            if (!animated_fold(env, s, (int32_t)p, target_of_node, NULL)) continue;
            if (!moving_fold && !(moving_fold = (uint8_t *)cna__calloc(&env->alloc, s->joint_count, 1))) {
                r = cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
                break;
            }
            moving_fold[p] = 1;
            if (target_of_node[s->palette_to_gltf_node[p]] < 0) folded++;
        }
        if (r != CNA_OK) break;
        cna_bone_track *tracks = (cna_bone_track *)cna__arena_calloc(ctx->arena, n_tracks + folded ? n_tracks + folded : 1,
                                                                     sizeof *tracks);
        if (!tracks) r = cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
        size_t i = 0;
        for (size_t t = 0; t < target_count && r == CNA_OK; t++) {
            int32_t p = palette_of_node(s, targets[t].node);
            if (p < 0) continue;
            cna_keyframe *keys = NULL;
            size_t key_count = 0;
            if (moving_fold && moving_fold[p]) {
                moving_fold[p] = 2;
                r = extract_folded_joint(env, s, p, &targets[t], targets, target_of_node, &keys, &key_count, err);
            } else {
                rest_trs rest = node_rest_trs(&dest->nodes[targets[t].node]);
                env->position_tol = position_tolerance(ctx, targets[t].node);
                r = extract_track(env, &targets[t], &rest, &s->fold[p], &keys, &key_count, err);
            }
            if (r != CNA_OK) break;
            tracks[i++] = cna_bone_track_make(p, keys, key_count);
        }
        for (size_t p = 0; moving_fold && p < s->joint_count && r == CNA_OK; p++) {
            if (moving_fold[p] != 1) continue;
            cna_keyframe *keys = NULL;
            size_t key_count = 0;
            r = extract_folded_joint(env, s, (int32_t)p, NULL, targets, target_of_node, &keys, &key_count, err);
            if (r == CNA_OK) tracks[i++] = cna_bone_track_make((int32_t)p, keys, key_count);
        }
        cna__free(&env->alloc, moving_fold);
        if (r != CNA_OK) break;
        qsort(tracks, i, sizeof *tracks, cmp_track);
        cna_clip *clip = &groups[g].clips[out];
        *clip = cna_clip_make(name, duration_ticks, tracks, i);
        clip->target = CNA_CLIP_TARGET_JOINT_PALETTE;
    }

    for (size_t t = 0; t < target_count; t++) target_of_node[targets[t].node] = -1;

    /* The scene-node clip: channels on scene nodes that are not joints of an imported skin. */
    if (r == CNA_OK) {
        cna_bone_track *tracks = (cna_bone_track *)cna__arena_calloc(ctx->arena, target_count ? target_count : 1,
                                                                     sizeof *tracks);
        if (!tracks) r = cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
        size_t i = 0;
        for (size_t t = 0; t < target_count && r == CNA_OK; t++) {
            int32_t node = targets[t].node;
            bool joint = false;
            for (size_t g = 0; g < group_count && !joint; g++)
                joint = palette_of_node(&m->skins[groups[g].model_skin], node) >= 0;
            if (joint) continue;
            int32_t bone = m->gltf_node_to_bone[node];
            size_t nch = (size_t)((targets[t].ch[0] != NULL) + (targets[t].ch[1] != NULL) +
                                  (targets[t].ch[2] != NULL));
            if (bone < 0) {
                if (counts->outside_scene == 0) counts->first_outside_channel = (int)node;
                counts->outside_scene += nch;
                continue;
            }
            if (m->skin_count > 0) {
                if (counts->rigid_on_skinned == 0) counts->first_rigid_channel = (int)node;
                counts->rigid_on_skinned += nch;
            }
            rest_trs rest;
            rest.t = m->bones[bone].rest_translation;
            rest.r = m->bones[bone].rest_rotation;
            rest.s = m->bones[bone].rest_scale;
            env->position_tol = position_tolerance(ctx, node);
            cna_keyframe *keys = NULL;
            size_t key_count = 0;
            r = extract_track(env, &targets[t], &rest, NULL, &keys, &key_count, err);
            if (r != CNA_OK) break;
            tracks[i++] = cna_bone_track_make(bone, keys, key_count);
        }
        if (r == CNA_OK) {
            qsort(tracks, i, sizeof *tracks, cmp_track);
            cna_clip *clip = &node_clips[out];
            *clip = cna_clip_make(name, duration_ticks, tracks, i);
            clip->target = CNA_CLIP_TARGET_SCENE_NODE;
        }
    }
    for (size_t s = 0; s < anim->sampler_count; s++) free_chan(&env->alloc, &chans[s]);
    for (size_t s = 0; s < env->source_count; s++) {
        time_source *src = &env->sources[s];
        env->source_of_accessor[src->accessor] = -1;
        cna__free(&env->alloc, src->times);
        cna__free(&env->alloc, src->ticks);
    }
    cna__free(&env->alloc, env->sources);
    env->sources = NULL;
    env->source_count = 0;
    cna__free(&env->alloc, chans);
    cna__free(&env->alloc, targets);
    if (r != CNA_OK && env->over_budget) {
        char label[256];
        if (anim->name)
            snprintf(label, sizeof label, "animations[%zu] \"%.200s\"", ai, anim->name);
        else
            snprintf(label, sizeof label, "animations[%zu]", ai);
        return cna__error(err, CNA_ERROR_LIMIT,
                          "%s: faithful extraction needs more than %zu keys (input has %zu); import "
                          "with clip mode union", label, env->input_keys + env->added_limit, env->input_keys);
    }
    if (r != CNA_OK) cna__error_prefix(err, "animations[%zu]", ai);
    return r;
}

cna_result cna__import_clips(cna__import_ctx *ctx, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    cna_model *m = &ctx->model->pub;
    size_t na = doc->animation_count;
    m->animation_count = na;
    if (na == 0) return CNA_OK;
    cna_clip *node_clips = (cna_clip *)cna__arena_calloc(ctx->arena, na, sizeof *node_clips);
    ctx->node_key_scale = (double *)cna__arena_calloc(ctx->arena, doc->node_count ? doc->node_count : 1,
                                                      sizeof(double));
    ctx->node_key_translation = (double *)cna__arena_calloc(ctx->arena, doc->node_count ? doc->node_count : 1,
                                                            sizeof(double));
    if (!node_clips || !ctx->node_key_scale || !ctx->node_key_translation)
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
    m->node_clips = node_clips;
    /* One clip set per glTF skin; every instance of that skin shares it. */
    for (size_t s = 0; s < m->skin_count; s++) {
        size_t first = 0;
        while (first < s && m->skins[first].gltf_skin != m->skins[s].gltf_skin) first++;
        const cna_clip *clips = m->skins[first].data.clips;
        if (first == s && !(clips = (cna_clip *)cna__arena_calloc(ctx->arena, na, sizeof(cna_clip))))
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
        m->skins[s].data.clips = clips;
        m->skins[s].data.clip_count = na;
    }
    return cna__extract_clips(ctx, doc, NULL, 0, node_clips, err);
}

cna_result cna__extract_clips(cna__import_ctx *ctx, const cna_gltf_document *src, const int32_t *node_map,
                              size_t out_first, cna_clip *node_clips, cna_error *err)
{
    const cna_gltf_document *doc = src;
    cna_model *m = &ctx->model->pub;
    size_t na = doc->animation_count;
    if (na == 0) return CNA_OK;
    const size_t dest_nodes = ctx->doc->node_count;
    skin_clips *groups = (skin_clips *)cna__arena_calloc(ctx->arena, m->skin_count ? m->skin_count : 1,
                                                         sizeof *groups);
    int32_t *target_of_node = (int32_t *)cna__arena_calloc(ctx->arena, dest_nodes ? dest_nodes : 1,
                                                           sizeof(int32_t));
    if (!groups || !target_of_node) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
    for (size_t i = 0; i < dest_nodes; i++) target_of_node[i] = -1;

    /* One clip set per glTF skin (the caller made room); every instance of that skin shares it. */
    size_t group_count = 0;
    for (size_t s = 0; s < m->skin_count; s++) {
        size_t g = 0;
        while (g < group_count && groups[g].gltf_skin != m->skins[s].gltf_skin) g++;
        if (g == group_count) {
            groups[g].gltf_skin = m->skins[s].gltf_skin;
            groups[g].model_skin = s;
            groups[g].clips = (cna_clip *)m->skins[s].data.clips;
            group_count++;
        }
    }

    extract_env env;
    memset(&env, 0, sizeof env);
    env.ctx = ctx;
    env.src = src;
    env.node_map = node_map;
    env.alloc = ctx->allocator;
    env.mode = ctx->clip_mode;
    /* M = the input counts of every channel extraction reads (T, R, S) */
    for (size_t a = 0; a < na; a++) {
        const cna_gltf_animation *anim = &doc->animations[a];
        for (size_t c = 0; c < anim->channel_count; c++) {
            const cna_gltf_animation_channel *ch = &anim->channels[c];
            if (ch->path != CNA_GLTF_PATH_TRANSLATION && ch->path != CNA_GLTF_PATH_ROTATION &&
                ch->path != CNA_GLTF_PATH_SCALE)
                continue;
            if (ch->sampler < 0 || (size_t)ch->sampler >= anim->sampler_count) continue;
            int32_t in = anim->samplers[ch->sampler].input;
            if (in >= 0 && (size_t)in < doc->accessor_count) env.input_keys += doc->accessors[in].count;
        }
    }
    size_t limit;
    if (!cna__mul_size(env.input_keys, CNA__FAITHFUL_KEYS_PER_INPUT_KEY - 1, &limit) ||
        limit > SIZE_MAX - CNA__FAITHFUL_EXTRA_KEYS)
        limit = SIZE_MAX - CNA__FAITHFUL_EXTRA_KEYS;
    env.added_limit = limit + CNA__FAITHFUL_EXTRA_KEYS;
    env.source_of_accessor = (int32_t *)cna__calloc(&env.alloc, doc->accessor_count ? doc->accessor_count : 1,
                                                    sizeof(int32_t));
    if (!env.source_of_accessor) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
    for (size_t i = 0; i < doc->accessor_count; i++) env.source_of_accessor[i] = -1;
    anim_counts counts;
    memset(&counts, 0, sizeof counts);
    for (size_t a = 0; a < na; a++) {
        cna_result r = extract_animation(&env, a, out_first + a, groups, group_count, node_clips, target_of_node,
                                         &counts, err);
        if (r != CNA_OK) {
            cna__free(&env.alloc, env.scratch.items);
            cna__free(&env.alloc, env.source_of_accessor);
            return r;
        }
    }
    cna__free(&env.alloc, env.scratch.items);
    cna__free(&env.alloc, env.source_of_accessor);

    char msg[256];
    bool ok = true;
    if (counts.rigid_on_skinned) {
        snprintf(msg, sizeof msg, "%zu channel(s) animate nodes that are not joints (first: node %d) "
                 "on a model with skins; kept as scene-node clips (cna applies them)",
                 counts.rigid_on_skinned, counts.first_rigid_channel);
        ok = ok && cna__model_diag_n(ctx->model, CNA_MODEL_DIAG_RIGID_ANIMATION_DROPPED,
                                     counts.rigid_on_skinned, msg);
    }
    if (counts.outside_scene) {
        snprintf(msg, sizeof msg, "%zu channel(s) target nodes outside the selected scene (first: "
                 "node %d); ignored", counts.outside_scene, counts.first_outside_channel);
        ok = ok && cna__model_diag_n(ctx->model, CNA_MODEL_DIAG_TARGET_OUTSIDE_SCENE,
                                     counts.outside_scene, msg);
    }
    if (counts.unsupported) {
        snprintf(msg, sizeof msg, "%zu channel(s) with a path cna does not animate (first: "
                 "channel %d); ignored", counts.unsupported, counts.first_unsupported_channel);
        ok = ok && cna__model_diag_n(ctx->model, CNA_MODEL_DIAG_PATH_UNSUPPORTED, counts.unsupported, msg);
    }
    if (env.non_unit_keys) {
        snprintf(msg, sizeof msg, "animations[%d].samplers[%zu]: rotation keys not unit length; "
                 "normalised (%zu keys in all)", (int)env.first_non_unit_anim,
                 env.first_non_unit_sampler, env.non_unit_keys);
        ok = ok && cna__model_diag_n(ctx->model, CNA_MODEL_DIAG_NON_UNIT_QUATERNION, env.non_unit_keys, msg);
    }
    if (env.limited_tracks) {
        snprintf(msg, sizeof msg, "%zu track(s) reached the subdivision bound (16 halvings per key "
                 "interval, %zu keys); their cubic curves are approximated more coarsely there",
                 env.limited_tracks, CNA__FAITHFUL_MAX_KEYS);
        ok = ok && cna__model_diag_n(ctx->model, "clip-subdivision-limited", env.limited_tracks, msg);
    }
    if (!ok) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
    return CNA_OK;
}
