/*
 * Key reduction (include/cna/baked.h, cna_model_reduce_keys): fewer keys in
 * a model's skeletal clips, measured in model space over the whole skeleton.
 *
 * Per clip: the sample times are every key time of its tracks (within
 * [0, duration]) and the integer midpoint between each two consecutive ones.
 * The unreduced pose is evaluated there once as the player does (bind pose
 * for untracked joints, each track sampled with cna_track_sample, T · R · S,
 * world[p] = world[parent] · local[p], world[root] = prefix[root] · local[root]).
 * The error of a pose against the unreduced one is the largest distance, over
 * every joint p and the four points {0, d·x, d·y, d·z} of p's own frame (d the
 * measuring distance), between world[p] · point and the unreduced
 * world[p] · point: the joint's position, and how far its axes moved at d.
 *
 * Greedy, per track: from a kept key a, the furthest key b (found by doubling
 * the span, then bisecting) such that playing straight from a to b, with
 * every other joint unreduced, keeps the error of that joint and of its
 * descendants within the working tolerance at every sample time in
 * [a, b); the keys between are dropped, b is kept. A sampled local transform
 * equal to the unreduced one counts as no error at all, so tolerance 0 drops
 * exactly the keys that change nothing. Then the whole reduced clip is
 * checked against the unreduced one at every sample time, for every distinct
 * root prefix of the skins that share the clip; while the error exceeds the
 * tolerance, the working tolerance is halved and the greedy pass redone
 * (errors of a joint and of its ancestors add up); after 16 halvings, or at
 * tolerance 0, the clip keeps all its keys.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cna/baked.h"
#include "core/internal.h"

enum { HALVINGS = 16 };

typedef struct reduction {
    cna_key_reduction pub; /* first: the public struct */
    cna_allocator alloc;
    void **blocks;         /* every allocation of the result */
    size_t block_count, block_cap;
} reduction;

static void *keep_block(reduction *r, size_t count, size_t size)
{
    if (r->block_count == r->block_cap) {
        const size_t cap = r->block_cap ? 2 * r->block_cap : 16;
        void **b = (void **)cna__calloc(&r->alloc, cap, sizeof *b);
        if (!b) return NULL;
        if (r->block_count) memcpy(b, r->blocks, r->block_count * sizeof *b);
        cna__free(&r->alloc, r->blocks);
        r->blocks = b;
        r->block_cap = cap;
    }
    void *p = cna__calloc(&r->alloc, count ? count : 1, size);
    if (p) r->blocks[r->block_count++] = p;
    return p;
}

void cna_key_reduction_free(cna_key_reduction *reduced)
{
    if (!reduced) return;
    reduction *r = (reduction *)reduced;
    const cna_allocator a = r->alloc;
    for (size_t i = 0; i < r->block_count; i++) cna__free(&a, r->blocks[i]);
    cna__free(&a, r->blocks);
    cna__free(&a, r);
}

/* ------------------------------------------------------------------ one clip */

typedef struct clip_work {
    const cna_skinning_data *data;
    const cna_clip *clip;
    double distance;
    int32_t n;                /* bones */
    const int32_t *parent;
    /* which track sets each bone: -1 none (bind pose); tracks with no keys or
     * a bone out of range are skipped, as the player skips them */
    int32_t *winner;
    int64_t *times;           /* sample times, ascending */
    size_t time_count;
    cna_mat4 *local, *world;  /* unreduced, time_count x n each (first skin's prefix) */
    cna_mat4 *scratch;        /* n: candidate worlds */
    unsigned char *moved;     /* n: in the candidate's subtree */
    cna_keyframe *keys;       /* reduced keys per track, packed */
    size_t *first;            /* first[t]: offset of track t's keys in keys */
    size_t *count;            /* keys kept per track */
    unsigned char *kept;      /* per key of the clip, packed like the input */
} clip_work;

static const cna_mat4 *prefix_of(const cna_skinning_data *d, int32_t p)
{
    return d->root_prefix && d->root_prefix_count == (size_t)d->bone_count ? &d->root_prefix[p] : NULL;
}

/* world = parent's world · local (or prefix · local, or local, for a root). */
static void place(cna_mat4 *world, const cna_mat4 *parent_world, const cna_mat4 *prefix, const cna_mat4 *local)
{
    if (parent_world) cna_mat4_mul(world, parent_world, local);
    else if (prefix) cna_mat4_mul(world, prefix, local);
    else *world = *local;
}

/* The largest distance between a and b at the points {0, d·x, d·y, d·z}. */
static double frame_error(const cna_mat4 *a, const cna_mat4 *b, double d)
{
    double t[3], worst = 0.0;
    for (int k = 0; k < 3; k++) t[k] = (double)a->m[12 + k] - (double)b->m[12 + k];
    for (int axis = -1; axis < 3; axis++) {
        double e = 0.0;
        for (int k = 0; k < 3; k++) {
            double v = t[k];
            if (axis >= 0) v += d * ((double)a->m[4 * axis + k] - (double)b->m[4 * axis + k]);
            e += v * v;
        }
        worst = e > worst ? e : worst;
    }
    return sqrt(worst);
}

static void key_local(cna_mat4 *out, const cna_keyframe *k)
{
    cna_mat4_compose(out, k->translation, k->rotation, k->scale);
}

static bool same_key(const cna_keyframe *a, const cna_keyframe *b)
{
    return a->translation.x == b->translation.x && a->translation.y == b->translation.y &&
           a->translation.z == b->translation.z && a->rotation.x == b->rotation.x &&
           a->rotation.y == b->rotation.y && a->rotation.z == b->rotation.z &&
           a->rotation.w == b->rotation.w && a->scale.x == b->scale.x && a->scale.y == b->scale.y &&
           a->scale.z == b->scale.z;
}

/* The pose at `t` of the clip with the given tracks (each bone's winner). */
static void pose(const clip_work *w, const cna_skinning_data *d, const cna_bone_track *tracks, int64_t t,
                 cna_mat4 *local, cna_mat4 *world)
{
    for (int32_t p = 0; p < w->n; p++) {
        if (w->winner[p] >= 0) {
            cna_keyframe k;
            cna_track_sample(&tracks[w->winner[p]], t, NULL, &k);
            key_local(&local[p], &k);
        } else {
            local[p] = d->bind_pose[p];
        }
        place(&world[p], w->parent[p] >= 0 ? &world[w->parent[p]] : NULL, prefix_of(d, p), &local[p]);
    }
}

/* The first sample index with times[i] >= t. */
static size_t first_time(const clip_work *w, int64_t t)
{
    size_t lo = 0, hi = w->time_count;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (w->times[mid] < t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Whether bone p's track, played straight from keys[a] to keys[b], keeps the
 * subtree of p within tol at every sample time in [keys[a], keys[b]). */
static bool span_ok(clip_work *w, int32_t p, const cna_bone_track *track, size_t a, size_t b, double tol)
{
    const cna_keyframe pair[2] = {track->keys[a], track->keys[b]};
    const cna_bone_track straight = cna_bone_track_make(p, pair, 2);
    const size_t n = (size_t)w->n;
    size_t cursor = a;
    for (size_t i = first_time(w, pair[0].ticks); i < w->time_count && w->times[i] < pair[1].ticks; i++) {
        const int64_t t = w->times[i];
        cna_keyframe k, ref;
        cna_track_sample(&straight, t, NULL, &k);
        cna_track_sample(track, t, &cursor, &ref);
        if (same_key(&k, &ref)) continue;
        const cna_mat4 *local = &w->local[i * n], *world = &w->world[i * n];
        cna_mat4 l;
        key_local(&l, &k);
        place(&w->scratch[p], w->parent[p] >= 0 ? &world[w->parent[p]] : NULL, prefix_of(w->data, p), &l);
        if (frame_error(&w->scratch[p], &world[p], w->distance) > tol) return false;
        memset(w->moved, 0, n);
        w->moved[p] = 1;
        for (size_t q = (size_t)p + 1; q < n; q++) {
            const int32_t parent = w->parent[q];
            if (parent < 0 || !w->moved[parent]) continue;
            w->moved[q] = 1;
            cna_mat4_mul(&w->scratch[q], &w->scratch[parent], &local[q]);
            if (frame_error(&w->scratch[q], &world[q], w->distance) > tol) return false;
        }
    }
    return true;
}

/* Greedy pass over one track: marks the kept keys in kept[0 .. key_count). */
static void reduce_track(clip_work *w, int32_t p, const cna_bone_track *track, double tol, unsigned char *kept)
{
    const size_t last = track->key_count - 1;
    memset(kept, 0, track->key_count);
    kept[0] = kept[last] = 1;
    size_t a = 0;
    while (a < last) {
        size_t lo = a + 1, hi = last + 1; /* lo: a span known good; hi: known bad (or past the end) */
        for (size_t c = a + 2; c <= last;) {
            if (!span_ok(w, p, track, a, c, tol)) {
                hi = c;
                break;
            }
            lo = c;
            if (c == last) break;
            c = a + 2 * (c - a) > last ? last : a + 2 * (c - a);
        }
        while (hi <= last && hi - lo > 1) {
            const size_t mid = lo + (hi - lo) / 2;
            if (span_ok(w, p, track, a, mid, tol)) lo = mid;
            else hi = mid;
        }
        kept[lo] = 1;
        a = lo;
    }
}

static bool sorted_track(const cna_bone_track *t)
{
    for (size_t k = 1; k < t->key_count; k++)
        if (t->keys[k].ticks < t->keys[k - 1].ticks) return false;
    return true;
}

static bool reducible(const clip_work *w, size_t track)
{
    const cna_bone_track *t = &w->clip->tracks[track];
    return t->keys && t->key_count > 2 && t->bone >= 0 && t->bone < w->n && w->winner[t->bone] == (int32_t)track &&
           sorted_track(t);
}

/* The reduced tracks from the kept flags (all keys where kept is NULL). */
static void build_tracks(clip_work *w, cna_bone_track *out, const unsigned char *kept)
{
    size_t at = 0, flag = 0;
    for (size_t i = 0; i < w->clip->track_count; i++) {
        const cna_bone_track *t = &w->clip->tracks[i];
        const size_t n = t->keys ? t->key_count : 0;
        w->first[i] = at;
        for (size_t k = 0; k < n; k++, flag++)
            if (!kept || kept[flag]) w->keys[at++] = t->keys[k];
        w->count[i] = at - w->first[i];
        out[i] = cna_bone_track_make(t->bone, n ? &w->keys[w->first[i]] : NULL, w->count[i]);
    }
}

/* Whether two skins of one clip set compose their roots with the same prefixes. */
static bool same_prefix(const cna_skinning_data *a, const cna_skinning_data *b)
{
    const bool pa = a->bone_count > 0 && prefix_of(a, 0), pb = b->bone_count > 0 && prefix_of(b, 0);
    if (!pa || !pb) return pa == pb;
    return a->bone_count == b->bone_count &&
           memcmp(a->root_prefix, b->root_prefix, (size_t)a->bone_count * sizeof(cna_mat4)) == 0;
}

/* The largest error of the reduced tracks over the skins in `skins`, each
 * distinct root prefix once. */
static double clip_error(clip_work *w, const cna_model *m, const size_t *skins, size_t skin_count,
                         const cna_bone_track *reduced, cna_mat4 *tmp)
{
    const size_t n = (size_t)w->n;
    double worst = 0.0;
    for (size_t s = 0; s < skin_count; s++) {
        const cna_skinning_data *d = &m->skins[skins[s]].data;
        bool seen = false;
        for (size_t e = 0; e < s && !seen; e++) seen = same_prefix(&m->skins[skins[e]].data, d);
        if (seen) continue;
        for (size_t i = 0; i < w->time_count; i++) {
            cna_mat4 *local0 = tmp, *world0 = tmp + n, *local1 = tmp + 2 * n, *world1 = tmp + 3 * n;
            pose(w, d, w->clip->tracks, w->times[i], local0, world0);
            pose(w, d, reduced, w->times[i], local1, world1);
            for (size_t p = 0; p < n; p++) {
                const double e = frame_error(&world1[p], &world0[p], w->distance);
                worst = e > worst ? e : worst;
            }
        }
    }
    return worst;
}

static int compare_ticks(const void *x, const void *y)
{
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The sample times: key times in [0, duration], 0, duration, and the integer
 * midpoints between consecutive ones. Returns false when out of memory. */
static bool sample_times(clip_work *w, const cna_allocator *a, size_t key_count)
{
    const int64_t end = w->clip->duration > 0 ? w->clip->duration : 0;
    size_t cap;
    if (!cna__add_size(key_count, 2, &cap) || !cna__mul_size(cap, 2, &cap)) return false;
    w->times = (int64_t *)cna__calloc(a, cap, sizeof *w->times);
    if (!w->times) return false;
    size_t c = 0;
    w->times[c++] = 0;
    w->times[c++] = end;
    for (size_t i = 0; i < w->clip->track_count; i++) {
        const cna_bone_track *t = &w->clip->tracks[i];
        for (size_t k = 0; t->keys && k < t->key_count; k++)
            if (t->keys[k].ticks >= 0 && t->keys[k].ticks <= end) w->times[c++] = t->keys[k].ticks;
    }
    qsort(w->times, c, sizeof *w->times, compare_ticks);
    size_t u = 0;
    for (size_t i = 0; i < c; i++)
        if (u == 0 || w->times[i] != w->times[u - 1]) w->times[u++] = w->times[i];
    /* midpoints, written from the end so that nothing is overwritten early */
    const size_t distinct = u;
    size_t out = 2 * distinct - 1;
    w->times[out - 1] = w->times[distinct - 1];
    for (size_t i = distinct - 1; i > 0; i--) {
        const int64_t lo = w->times[i - 1], hi = w->times[i];
        out -= 2;
        w->times[out] = lo + (hi - lo) / 2;
        w->times[out - 1] = lo;
    }
    u = 0;
    for (size_t i = 0; i < 2 * distinct - 1; i++)
        if (u == 0 || w->times[i] != w->times[u - 1]) w->times[u++] = w->times[i];
    w->time_count = u;
    return true;
}

typedef struct clip_result {
    cna_bone_track *tracks;
    cna_keyframe *keys;
    size_t keys_before, keys_after;
    double error;
} clip_result;

/* Reduce clip `clip` of the clip set shared by skins[0 .. skin_count). */
static cna_result reduce_clip(reduction *r, const cna_model *m, const size_t *skins, size_t skin_count,
                              const cna_clip *clip, double tolerance, double distance, clip_result *res,
                              cna_error *err)
{
    const cna_allocator *a = &r->alloc;
    const cna_skinning_data *d = &m->skins[skins[0]].data;
    clip_work w;
    memset(&w, 0, sizeof w);
    w.data = d;
    w.clip = clip;
    w.distance = distance;
    w.n = d->bone_count;
    w.parent = d->hierarchy;
    size_t key_count = 0;
    for (size_t i = 0; i < clip->track_count; i++)
        if (clip->tracks[i].keys && !cna__add_size(key_count, clip->tracks[i].key_count, &key_count))
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "key reduction: too many keys");
    const size_t n = (size_t)w.n;
    size_t frames;
    cna_result rc = CNA_ERROR_OUT_OF_MEMORY;
    res->tracks = (cna_bone_track *)keep_block(r, clip->track_count, sizeof *res->tracks);
    res->keys = (cna_keyframe *)keep_block(r, key_count, sizeof *res->keys);
    w.winner = (int32_t *)cna__calloc(a, n ? n : 1, sizeof *w.winner);
    w.scratch = (cna_mat4 *)cna__calloc(a, n ? 4 * n : 1, sizeof *w.scratch);
    w.moved = (unsigned char *)cna__calloc(a, n ? n : 1, 1);
    w.first = (size_t *)cna__calloc(a, clip->track_count ? clip->track_count : 1, sizeof *w.first);
    w.count = (size_t *)cna__calloc(a, clip->track_count ? clip->track_count : 1, sizeof *w.count);
    w.kept = (unsigned char *)cna__calloc(a, key_count ? key_count : 1, 1);
    w.keys = res->keys;
    if (!res->tracks || !res->keys || !w.winner || !w.scratch || !w.moved || !w.first || !w.count || !w.kept ||
        !sample_times(&w, a, key_count) || !cna__mul_size(w.time_count, n ? n : 1, &frames))
        goto done;
    if (frames > CNA_KEY_REDUCTION_MAX_SAMPLES) {
        rc = cna__error(err, CNA_ERROR_LIMIT,
                        "key reduction: clip \"%s\": %zu sample times x %zu joints exceed the limit of %zu",
                        clip->name ? clip->name : "", w.time_count, n, (size_t)CNA_KEY_REDUCTION_MAX_SAMPLES);
        goto done;
    }
    w.local = (cna_mat4 *)cna__calloc(a, frames, sizeof *w.local);
    w.world = (cna_mat4 *)cna__calloc(a, frames, sizeof *w.world);
    if (!w.local || !w.world) goto done;
    for (size_t p = 0; p < n; p++) w.winner[p] = -1;
    for (size_t i = 0; i < clip->track_count; i++) {
        const cna_bone_track *t = &clip->tracks[i];
        if (t->keys && t->key_count > 0 && t->bone >= 0 && t->bone < w.n) w.winner[t->bone] = (int32_t)i;
    }
    for (size_t i = 0; i < w.time_count; i++) pose(&w, d, clip->tracks, w.times[i], &w.local[i * n], &w.world[i * n]);

    res->keys_before = key_count;
    res->error = 0.0;
    /* the unreduced clip: the fallback */
    build_tracks(&w, res->tracks, NULL);
    res->keys_after = key_count;
    double work = tolerance;
    for (int attempt = 0; attempt <= HALVINGS; attempt++) {
        size_t flag = 0;
        for (size_t i = 0; i < clip->track_count; i++) {
            const cna_bone_track *t = &clip->tracks[i];
            const size_t kn = t->keys ? t->key_count : 0;
            if (kn && reducible(&w, i)) reduce_track(&w, t->bone, t, work, &w.kept[flag]);
            else if (kn) memset(&w.kept[flag], 1, kn);
            flag += kn;
        }
        size_t after = 0;
        for (size_t k = 0; k < key_count; k++) after += w.kept[k];
        if (after == key_count) break; /* nothing to drop: the fallback stands */
        build_tracks(&w, res->tracks, w.kept);
        const double e = clip_error(&w, m, skins, skin_count, res->tracks, w.scratch);
        if (e <= tolerance) {
            res->keys_after = after;
            res->error = e;
            break;
        }
        build_tracks(&w, res->tracks, NULL);
        if (work == 0.0) break;
        work *= 0.5;
    }
    rc = CNA_OK;
done:
    cna__free(a, w.winner);
    cna__free(a, w.scratch);
    cna__free(a, w.moved);
    cna__free(a, w.first);
    cna__free(a, w.count);
    cna__free(a, w.kept);
    cna__free(a, w.times);
    cna__free(a, w.local);
    cna__free(a, w.world);
    if (rc == CNA_ERROR_OUT_OF_MEMORY) cna__error(err, rc, "key reduction: out of memory");
    return rc;
}

/* ------------------------------------------------------------------ the model */

static cna_result reduce_all(reduction *r, const cna_model *m, double tolerance, double distance, cna_error *err)
{
    cna_key_reduction *pub = &r->pub;
    cna_model_skin *skins = (cna_model_skin *)keep_block(r, m->skin_count, sizeof *skins);
    size_t *sharing = (size_t *)keep_block(r, m->skin_count, sizeof *sharing);
    if (!skins || !sharing) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "key reduction: out of memory");
    if (m->skin_count) memcpy(skins, m->skins, m->skin_count * sizeof *skins);
    pub->model.skins = skins;
    for (size_t s = 0; s < m->skin_count; s++) {
        const cna_skinning_data *d = &m->skins[s].data;
        bool done = false;
        for (size_t e = 0; e < s && !done; e++)
            if (d->clips && m->skins[e].data.clips == d->clips && m->skins[e].data.clip_count == d->clip_count) {
                skins[s].data.clips = skins[e].data.clips; /* one clip set, reduced once */
                done = true;
            }
        if (done || !d->clips || d->clip_count == 0) continue;
        size_t count = 0;
        for (size_t t = s; t < m->skin_count; t++)
            if (m->skins[t].data.clips == d->clips && m->skins[t].data.clip_count == d->clip_count)
                sharing[count++] = t;
        cna_clip *clips = (cna_clip *)keep_block(r, d->clip_count, sizeof *clips);
        if (!clips) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "key reduction: out of memory");
        for (size_t c = 0; c < d->clip_count; c++) {
            clip_result res;
            memset(&res, 0, sizeof res);
            cna_result rc = reduce_clip(r, m, sharing, count, &d->clips[c], tolerance, distance, &res, err);
            if (rc != CNA_OK) return rc;
            clips[c] = d->clips[c];
            clips[c].tracks = res.tracks;
            pub->keys_before += res.keys_before;
            pub->keys_after += res.keys_after;
            pub->max_error = res.error > pub->max_error ? res.error : pub->max_error;
        }
        skins[s].data.clips = clips;
    }
    return CNA_OK;
}

cna_result cna_model_reduce_keys(const cna_model *model, const cna_key_reduction_options *opts,
                                 cna_key_reduction **out, cna_error *err)
{
    if (!model || !out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "key reduction: NULL %s", model ? "out" : "model");
    const double tolerance = opts ? opts->tolerance : 0.0;
    const double distance = opts && opts->distance != 0.0 ? opts->distance : CNA_KEY_REDUCTION_DEFAULT_DISTANCE;
    if (!isfinite(tolerance) || !(tolerance >= 0.0))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "key reduction: tolerance %g is not a finite number >= 0",
                          tolerance);
    if (!isfinite(distance) || !(distance >= 0.0))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "key reduction: distance %g is not a finite number >= 0",
                          distance);
    for (size_t s = 0; s < model->skin_count; s++)
        if (cna_skinning_data_validate(&model->skins[s].data, err) != CNA_OK) {
            cna__error_prefix(err, "key reduction: skins[%zu]", s);
            return CNA_ERROR_INVALID_ARGUMENT;
        }
    const cna_allocator alloc = cna__allocator_resolve(opts ? &opts->allocator : NULL);
    reduction *r = (reduction *)cna__calloc(&alloc, 1, sizeof *r);
    if (!r) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "key reduction: out of memory");
    r->alloc = alloc;
    r->pub.model = *model;
    r->pub.tolerance = tolerance;
    r->pub.distance = distance;
    const cna_result rc = reduce_all(r, model, tolerance, distance, err);
    if (rc != CNA_OK) {
        cna_key_reduction_free(&r->pub);
        return rc;
    }
    *out = &r->pub;
    return CNA_OK;
}
