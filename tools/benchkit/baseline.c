/* The plain baseline player and the same-run comparison (tools/benchkit/baseline.h). */
#include "benchkit/baseline.h"

#include "cna/crowd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct baseline_player {
    const cna_skinning_data *data;
    const cna_clip *clip;
    int64_t position;
    cna_mat4 *local, *world, *skin;
};

baseline_player *baseline_player_create(const cna_skinning_data *data)
{
    if (!data || data->bone_count < 0) return NULL;
    baseline_player *p = calloc(1, sizeof *p);
    const size_t n = (size_t)data->bone_count;
    cna_mat4 *m = calloc(3 * n + 1, sizeof *m);
    if (!p || !m) {
        free(p);
        free(m);
        return NULL;
    }
    p->data = data;
    p->local = m;
    p->world = m + n;
    p->skin = m + 2 * n;
    baseline_player_update(p, 0, false, false);
    return p;
}

void baseline_player_free(baseline_player *player)
{
    if (!player) return;
    free(player->local);
    free(player);
}

void baseline_player_start_clip(baseline_player *player, const cna_clip *clip)
{
    player->clip = clip;
    player->position = 0;
}

/* ---------------------------------------------------------------- plain math */

typedef struct trs {
    float t[3], r[4], s[3];
} trs;

static void key_trs(const cna_keyframe *k, trs *out)
{
    out->t[0] = k->translation.x, out->t[1] = k->translation.y, out->t[2] = k->translation.z;
    out->r[0] = k->rotation.x, out->r[1] = k->rotation.y, out->r[2] = k->rotation.z;
    out->r[3] = k->rotation.w;
    out->s[0] = k->scale.x, out->s[1] = k->scale.y, out->s[2] = k->scale.z;
}

/* XNA Quaternion.Slerp: shortest arc, linear when nearly parallel. */
static void slerp(const float a[4], const float b[4], float t, float out[4])
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
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
        const float theta = acosf(d);
        const float inv_sin = 1.0f / sinf(theta);
        wa = sinf((1.0f - t) * theta) * inv_sin;
        wb = sinf(t * theta) * inv_sin * sign;
    }
    for (int i = 0; i < 4; i++) out[i] = a[i] * wa + b[i] * wb;
}

/* The spec's SampleTrack: linear search from the first key. */
static void sample_track(const cna_bone_track *track, int64_t time, trs *out)
{
    const cna_keyframe *k = track->keys;
    const size_t n = track->key_count;
    if (n == 1 || time <= k[0].ticks) {
        key_trs(&k[0], out);
        return;
    }
    if (time >= k[n - 1].ticks) {
        key_trs(&k[n - 1], out);
        return;
    }
    for (size_t i = 0; i + 1 < n; i++) {
        if (time < k[i + 1].ticks) {
            if (time <= k[i].ticks) {
                key_trs(&k[i], out);
                return;
            }
            const float amount = (float)((double)(time - k[i].ticks) /
                                         (double)(k[i + 1].ticks - k[i].ticks));
            trs a, b;
            key_trs(&k[i], &a);
            key_trs(&k[i + 1], &b);
            for (int c = 0; c < 3; c++) {
                out->t[c] = a.t[c] + (b.t[c] - a.t[c]) * amount;
                out->s[c] = a.s[c] + (b.s[c] - a.s[c]) * amount;
            }
            slerp(a.r, b.r, amount, out->r);
            return;
        }
    }
    key_trs(&k[n - 1], out); /* not reached */
}

/* out = T(t) · R(r) · S(s), column-major (spec: Scale * Rotation * Translation). */
static void compose(cna_mat4 *out, const trs *k)
{
    const float x = k->r[0], y = k->r[1], z = k->r[2], w = k->r[3];
    const float rot[3][3] = {
        {1.0f - 2.0f * (y * y + z * z), 2.0f * (x * y + w * z), 2.0f * (x * z - w * y)},
        {2.0f * (x * y - w * z), 1.0f - 2.0f * (x * x + z * z), 2.0f * (y * z + w * x)},
        {2.0f * (x * z + w * y), 2.0f * (y * z - w * x), 1.0f - 2.0f * (x * x + y * y)},
    };
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 3; r++) out->m[c * 4 + r] = rot[c][r] * k->s[c];
        out->m[c * 4 + 3] = 0.0f;
    }
    out->m[12] = k->t[0];
    out->m[13] = k->t[1];
    out->m[14] = k->t[2];
    out->m[15] = 1.0f;
}

/* out = a · b, column-major, the triple loop. */
static void multiply(cna_mat4 *out, const cna_mat4 *a, const cna_mat4 *b)
{
    cna_mat4 r;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            float sum = 0.0f;
            for (int k = 0; k < 4; k++) sum += a->m[k * 4 + row] * b->m[c * 4 + k];
            r.m[c * 4 + row] = sum;
        }
    *out = r;
}

/* ---------------------------------------------------------------- the player */

void baseline_player_update(baseline_player *p, int64_t ticks, bool relative, bool loop)
{
    const cna_skinning_data *d = p->data;
    const int64_t duration = p->clip ? p->clip->duration : 0;
    if (duration <= 0) {
        p->position = 0;
    } else {
        int64_t t = relative ? p->position + ticks : ticks;
        if (loop) {
            t %= duration;
            if (t < 0) t += duration;
        } else {
            t = t < 0 ? 0 : (t > duration ? duration : t);
        }
        p->position = t;
    }
    const int32_t n = d->bone_count;
    for (int32_t b = 0; b < n; b++) p->local[b] = d->bind_pose[b];
    if (p->clip)
        for (size_t i = 0; i < p->clip->track_count; i++) {
            const cna_bone_track *track = &p->clip->tracks[i];
            if (!track->keys || track->key_count == 0 || track->bone < 0 || track->bone >= n)
                continue;
            trs k;
            sample_track(track, p->position, &k);
            compose(&p->local[track->bone], &k);
        }
    const bool prefixed = d->root_prefix_count == (size_t)n;
    for (int32_t b = 0; b < n; b++) {
        const int32_t parent = d->hierarchy[b];
        if (parent >= 0)
            multiply(&p->world[b], &p->world[parent], &p->local[b]);
        else if (prefixed)
            multiply(&p->world[b], &d->root_prefix[b], &p->local[b]);
        else
            p->world[b] = p->local[b];
        multiply(&p->skin[b], &p->world[b], &d->inverse_bind_pose[b]);
    }
}

int64_t baseline_player_position(const baseline_player *p) { return p->position; }
const cna_mat4 *baseline_player_local(const baseline_player *p) { return p->local; }
const cna_mat4 *baseline_player_world(const baseline_player *p) { return p->world; }
const cna_mat4 *baseline_player_skin(const baseline_player *p) { return p->skin; }

/* ---------------------------------------------------------------- comparison */

static double max_difference(const cna_mat4 *a, const cna_mat4 *b, size_t n)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++)
        for (int e = 0; e < 16; e++) {
            const double x = a[i].m[e], y = b[i].m[e];
            const double scale = fabs(x) > 1.0 ? fabs(x) : 1.0;
            const double diff = fabs(x - y) / scale;
            if (!(diff <= worst)) worst = diff; /* NaN propagates as the worst */
        }
    return worst;
}

double baseline_check(const cna_skinning_data *data, const cna_clip *clip, int frames,
                      int64_t step)
{
    cna_player *ours = NULL;
    baseline_player *base = baseline_player_create(data);
    if (!base || cna_player_create(data, NULL, &ours, NULL) ||
        (clip ? cna_player_start_clip(ours, clip, NULL) : cna_player_stop(ours, NULL))) {
        baseline_player_free(base);
        cna_player_free(ours);
        return -1.0;
    }
    baseline_player_start_clip(base, clip);
    const size_t n = (size_t)data->bone_count;
    double worst = 0.0;
    for (int f = 0; f < frames; f++) {
        cna_player_update(ours, step, true, true, NULL);
        baseline_player_update(base, step, true, true);
        const double d[3] = {
            max_difference(cna_player_bone_transforms(ours), baseline_player_local(base), n),
            max_difference(cna_player_world_transforms(ours), baseline_player_world(base), n),
            max_difference(cna_player_skin_transforms(ours), baseline_player_skin(base), n)};
        for (int i = 0; i < 3; i++)
            if (!(d[i] <= worst)) worst = d[i];
        if (cna_player_position(ours) != baseline_player_position(base)) worst = INFINITY;
    }
    baseline_player_free(base);
    cna_player_free(ours);
    return worst;
}

typedef struct crowd_ctx {
    size_t count;
    int64_t step;
    cna_player **ours;
    baseline_player **base;
    cna_crowd *crowd; /* one thread */
} crowd_ctx;

static void step_ours(void *c)
{
    crowd_ctx *x = c;
    for (size_t i = 0; i < x->count; i++) cna_player_update(x->ours[i], x->step, true, true, NULL);
    bench_keep(x->ours);
}

static void step_lanes(void *c)
{
    crowd_ctx *x = c;
    cna_crowd_update(x->crowd, x->ours, x->count, x->step, true, true, NULL);
    bench_keep(x->ours);
}

static void step_baseline(void *c)
{
    crowd_ctx *x = c;
    for (size_t i = 0; i < x->count; i++) baseline_player_update(x->base[i], x->step, true, true);
    bench_keep(x->base);
}

int baseline_measure(const cna_skinning_data *data, const cna_clip *clip, size_t characters,
                     int64_t step, cna_sampling sampling, int runs, double seconds,
                     baseline_figure *out)
{
    crowd_ctx x = {characters, step, calloc(characters, sizeof(cna_player *)),
                   calloc(characters, sizeof(baseline_player *)), NULL};
    int rc = (x.ours && x.base && characters > 0 && !cna_crowd_create(NULL, &x.crowd, NULL)) ? 0 : -1;
    /* Each side's players are created one after the other (as a program
     * creates its characters), ours first, then the baseline's, so neither
     * side's players are interleaved in memory with the other's. */
    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; rc == 0 && i < characters; i++) {
            const int64_t phase = clip && clip->duration > 0
                                      ? (int64_t)((double)clip->duration * (double)i / (double)characters)
                                      : 0;
            if (side == 0) {
                if (cna_player_create(data, NULL, &x.ours[i], NULL) ||
                    cna_player_set_sampling(x.ours[i], sampling, NULL) || (clip ? cna_player_start_clip(x.ours[i], clip, NULL) : cna_player_stop(x.ours[i], NULL)) ||
                    cna_player_update(x.ours[i], phase, false, true, NULL))
                    rc = -1;
            } else {
                x.base[i] = baseline_player_create(data);
                if (!x.base[i]) {
                    rc = -1;
                } else {
                    baseline_player_start_clip(x.base[i], clip);
                    baseline_player_update(x.base[i], phase, false, true);
                }
            }
        }
    }
    if (rc == 0) {
        memset(out, 0, sizeof *out);
        out->joints = data->bone_count;
        out->sampling = sampling == CNA_SAMPLING_FAST ? CNA_SAMPLING_FAST : CNA_SAMPLING_EXACT;
        out->characters = characters;
        out->ours = bench_measure(step_ours, &x, runs, seconds);
        out->lanes = bench_measure(step_lanes, &x, runs, seconds);
        out->baseline = bench_measure(step_baseline, &x, runs, seconds);
        const double joints = data->bone_count > 0 ? (double)data->bone_count : 1.0;
        out->ours_ns_per_character_frame = out->ours.median * 1e9 / (double)characters;
        out->ours_ns_per_joint = out->ours_ns_per_character_frame / joints;
        out->lanes_ns_per_character_frame = out->lanes.median * 1e9 / (double)characters;
        out->baseline_ns_per_character_frame = out->baseline.median * 1e9 / (double)characters;
        out->baseline_ratio = out->ours.median > 0.0 ? out->baseline.median / out->ours.median : 0.0;
    }
    for (size_t i = 0; i < characters; i++) {
        if (x.ours) cna_player_free(x.ours[i]);
        if (x.base) baseline_player_free(x.base[i]);
    }
    free(x.ours);
    free(x.base);
    cna_crowd_free(x.crowd);
    return rc;
}

/* ---------------------------------------------------------------- printing */

static void print_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void print_json_figure(FILE *out, const baseline_figure *f)
{
    const double c = (double)f->characters, j = f->joints > 0 ? (double)f->joints : 1.0;
    fprintf(out,
            "\"characters\":%zu,\"ns_per_character_frame\":%.2f,\"ns_per_character_frame_min\":%.2f,"
            "\"ns_per_character_frame_max\":%.2f,\"ns_per_joint\":%.3f,\"ns_per_joint_min\":%.3f,"
            "\"ns_per_joint_max\":%.3f,\"lanes_ns_per_character_frame\":%.2f,"
            "\"lanes_ns_per_character_frame_min\":%.2f,\"lanes_ns_per_character_frame_max\":%.2f,"
            "\"baseline_ratio\":%.3f,"
            "\"baseline_ns_per_character_frame\":%.2f,\"baseline_ns_per_character_frame_min\":%.2f,"
            "\"baseline_ns_per_character_frame_max\":%.2f,\"runs\":%d",
            f->characters, f->ours_ns_per_character_frame, f->ours.min * 1e9 / c,
            f->ours.max * 1e9 / c, f->ours_ns_per_joint, f->ours.min * 1e9 / c / j,
            f->ours.max * 1e9 / c / j, f->lanes_ns_per_character_frame, f->lanes.min * 1e9 / c,
            f->lanes.max * 1e9 / c, f->baseline_ratio, f->baseline_ns_per_character_frame,
            f->baseline.min * 1e9 / c, f->baseline.max * 1e9 / c, f->ours.runs);
}

void baseline_print_header(FILE *out)
{
    fprintf(out, "%-14s %-16s %6s %6s | %26s | %11s | %11s | %26s | %6s\n", "model", "clip", "joints",
            "chars", "ns/char-frame [min-max]", "ns/joint", "lanes ns/cf", "baseline ns/char-frame",
            "ratio");
}

static void print_text_figure(FILE *out, const char *model, const char *clip,
                              const baseline_figure *f)
{
    const double c = (double)f->characters, j = f->joints > 0 ? (double)f->joints : 1.0;
    fprintf(out, "%-14.14s %-16.16s %6d %6zu | %8.1f [%7.1f-%7.1f] | %11.2f | %11.1f | %8.1f [%7.1f-%7.1f] | %6.2f\n",
            model, clip, (int)f->joints, f->characters, f->ours_ns_per_character_frame,
            f->ours.min * 1e9 / c, f->ours.max * 1e9 / c, f->ours_ns_per_character_frame / j,
            f->lanes_ns_per_character_frame,
            f->baseline_ns_per_character_frame, f->baseline.min * 1e9 / c,
            f->baseline.max * 1e9 / c, f->baseline_ratio);
}

void baseline_print(FILE *out, const char *model, const char *clip, const baseline_figure *one,
                    const baseline_figure *many, bool json)
{
    if (!json) {
        print_text_figure(out, model, clip, one);
        if (many != one) print_text_figure(out, model, clip, many);
        fflush(out);
        return;
    }
    fputs("{\"model\":", out);
    print_json_string(out, model);
    fputs(",\"clip\":", out);
    print_json_string(out, clip);
    fprintf(out, ",\"joints\":%d,\"sampling\":\"%s\",", (int)many->joints,
            many->sampling == CNA_SAMPLING_FAST ? "fast" : "exact");
    print_json_figure(out, many);
    fputs(",\"one_character\":{", out);
    print_json_figure(out, one);
    fputs("}}\n", out);
    fflush(out);
}
