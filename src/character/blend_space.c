/*
 * Blend spaces (include/cna/blend_space.h): the weights of a parameter
 * point among samples on a line (1D) or in a plane (2D, Delaunay
 * triangles), and a layer that plays one (its phase, the samples' clocks
 * and their events; the pose samples them in src/character/blend.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim_internal.h"
#include "character/character_internal.h"
#include "core/internal.h"
#include "model/model_internal.h"

/* ------------------------------------------------------------------ geometry */

typedef struct pt {
    double x, y;
} pt;

static pt point_of(const cna_blend_sample *s) { return (pt){s->x, s->y}; }

/* (b - a) × (c - a): > 0 when a, b, c turn counter-clockwise */
static double orient(pt a, pt b, pt c) { return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x); }

static double dist(pt a, pt b) { return hypot(b.x - a.x, b.y - a.y); }

/* Relative tolerance of the triangulation's sign tests: a sign test whose
 * value is within this fraction of its terms' size counts as 0 (on the
 * line, on the circle). */
#define GEOM_EPS 1e-10

/* a, b, c not on one line (their turn above the tolerance) */
static bool proper(pt a, pt b, pt c)
{
    return fabs(orient(a, b, c)) > GEOM_EPS * dist(a, b) * dist(a, c);
}

/* d strictly inside the circle through the counter-clockwise a, b, c */
static bool in_circle(pt a, pt b, pt c, pt d)
{
    const double adx = a.x - d.x, ady = a.y - d.y, bdx = b.x - d.x, bdy = b.y - d.y, cdx = c.x - d.x,
                 cdy = c.y - d.y;
    const double ad = adx * adx + ady * ady, bd = bdx * bdx + bdy * bdy, cd = cdx * cdx + cdy * cdy;
    const double det = ad * (bdx * cdy - cdx * bdy) + bd * (cdx * ady - adx * cdy) + cd * (adx * bdy - bdx * ady);
    const double size = ad * (fabs(bdx * cdy) + fabs(cdx * bdy)) + bd * (fabs(cdx * ady) + fabs(adx * cdy)) +
                        cd * (fabs(adx * bdy) + fabs(bdx * ady));
    return det > GEOM_EPS * size;
}

/* Whether the interiors of the counter-clockwise triangles t and u meet:
 * they do not when an edge of one has every corner of the other on its
 * outer side or on it. */
static bool separated_by(const pt t[3], const pt u[3])
{
    for (int e = 0; e < 3; e++) {
        const pt a = t[e], b = t[(e + 1) % 3];
        bool all = true;
        for (int k = 0; k < 3 && all; k++)
            all = orient(a, b, u[k]) <= GEOM_EPS * dist(a, b) * (dist(a, u[k]) + dist(b, u[k]));
        if (all) return true;
    }
    return false;
}

static bool overlap(const pt t[3], const pt u[3]) { return !separated_by(t, u) && !separated_by(u, t); }

/* ------------------------------------------------------------------ creation */

/* Shortest exact form of a double for messages ("1", "0.25", "nan"). */
static const char *num(double v, char buf[32])
{
    snprintf(buf, 32, "%.17g", v);
    for (int p = 1; p <= 17; p++) { /* the shortest that reads back the same */
        char t[32];
        snprintf(t, sizeof t, "%.*g", p, v);
        if (strtod(t, NULL) == v || v != v) {
            memcpy(buf, t, sizeof t);
            break;
        }
    }
    return buf;
}

static int by_x(const void *pa, const void *pb, const cna_blend_sample *s)
{
    const size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return s[a].x < s[b].x ? -1 : s[a].x > s[b].x;
}

/* insertion sort of the indices by x (a few samples; no global state) */
static void sort_by_x(size_t *order, size_t n, const cna_blend_sample *s)
{
    for (size_t i = 1; i < n; i++) {
        const size_t v = order[i];
        size_t j = i;
        while (j > 0 && by_x(&order[j - 1], &v, s) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
}

void cna_blend_space_free(cna_blend_space *space)
{
    if (!space) return;
    const cna_allocator a = space->allocator;
    cna__free(&a, space->samples);
    cna__free(&a, space->durations);
    cna__free(&a, space->order);
    cna__free(&a, space->triangles);
    cna__free(&a, space->hull);
    for (size_t j = 0; space->sync_names && j < space->sync_count; j++) cna__free(&a, space->sync_names[j]);
    cna__free(&a, space->sync_names);
    cna__free(&a, space->sync_at);
    cna__free(&a, space->sync_off);
    cna__free(&a, space);
}

/* The Delaunay triangles of the space's samples: every triangle of three
 * samples not on one line with no sample strictly inside its circumcircle,
 * taken in index order unless it overlaps one taken before (where four or
 * more samples share a circle, the first of its triangulations); then the
 * hull: the edges of exactly one triangle. false when out of memory. */
static bool triangulate(cna_blend_space *s)
{
    const size_t n = s->count;
    size_t cap = 2 * n, tc = 0;
    const cna_allocator *al = &s->allocator;
    int32_t(*tri)[3] = (int32_t(*)[3])cna__alloc(al, cap * sizeof *tri);
    if (!tri) return false;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            for (size_t k = j + 1; k < n; k++) {
                pt a = point_of(&s->samples[i]), b = point_of(&s->samples[j]), c = point_of(&s->samples[k]);
                if (!proper(a, b, c)) continue;
                int32_t t[3] = {(int32_t)i, (int32_t)j, (int32_t)k};
                if (orient(a, b, c) < 0.0) { /* counter-clockwise */
                    const pt x = b;
                    b = c;
                    c = x;
                    t[1] = (int32_t)k;
                    t[2] = (int32_t)j;
                }
                bool empty = true;
                for (size_t d = 0; d < n && empty; d++)
                    if (d != i && d != j && d != k) empty = !in_circle(a, b, c, point_of(&s->samples[d]));
                if (!empty) continue;
                const pt tp[3] = {a, b, c};
                bool free_of = true;
                for (size_t u = 0; u < tc && free_of; u++) {
                    const pt up[3] = {point_of(&s->samples[tri[u][0]]), point_of(&s->samples[tri[u][1]]),
                                      point_of(&s->samples[tri[u][2]])};
                    free_of = !overlap(tp, up);
                }
                if (!free_of) continue;
                if (tc == cap) {
                    int32_t(*more)[3] = (int32_t(*)[3])cna__alloc(al, 2 * cap * sizeof *tri);
                    if (!more) {
                        cna__free(al, tri);
                        return false;
                    }
                    memcpy(more, tri, cap * sizeof *tri);
                    cna__free(al, tri);
                    tri = more;
                    cap *= 2;
                }
                memcpy(tri[tc++], t, sizeof t);
            }
    /* the hull: directed edges a -> b of a triangle with no triangle having b -> a */
    int32_t(*hull)[2] = (int32_t(*)[2])cna__alloc(al, (3 * tc + 1) * sizeof *hull);
    if (!hull) {
        cna__free(al, tri);
        return false;
    }
    size_t hc = 0;
    for (size_t t = 0; t < tc; t++)
        for (int e = 0; e < 3; e++) {
            const int32_t a = tri[t][e], b = tri[t][(e + 1) % 3];
            bool shared = false;
            for (size_t u = 0; u < tc && !shared; u++)
                for (int f = 0; f < 3 && !shared; f++) shared = tri[u][f] == b && tri[u][(f + 1) % 3] == a;
            if (!shared) {
                hull[hc][0] = a;
                hull[hc][1] = b;
                hc++;
            }
        }
    s->triangles = tri;
    s->triangle_count = tc;
    s->hull = hull;
    s->hull_count = hc;
    return true;
}

static bool is_sync_name(const char *name, const char *const *names, size_t n)
{
    for (size_t j = 0; name && j < n; j++)
        if (names[j] && strcmp(name, names[j]) == 0) return true;
    return false;
}

/* The sync points of the space (names[0 .. n - 1] the markers that are
 * sync points): sample 0's in time order name them; each other sample has
 * the same names in the same cyclic order, each at a time of its own.
 * Allocates s->sync_*; an error names the sample and what differs. */
static cna_result make_sync(cna_blend_space *s, const cna_model *model, const char *const *names, size_t n,
                            cna_error *err)
{
    size_t k = 0;
    const size_t count = s->count;
    for (size_t i = 0; i < count; i++) {
        const long a = s->samples[i].animation;
        size_t mc = 0;
        const cna_marker *mk = cna_model_markers(model, (size_t)a, &mc);
        size_t here = 0;
        for (size_t q = 0; q < mc; q++) here += is_sync_name(mk[q].name, names, n);
        if (here == 0)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "samples[%zu]: animation %ld has no sync marker (none named \"%s\"%s)", i, a, names[0],
                              n > 1 ? " or another sync name" : "");
        if (s->durations[i] <= 0)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "samples[%zu]: animation %ld lasts 0 ticks: its sync markers cannot keep it in step", i, a);
        if (i == 0) {
            k = here;
            s->sync_count = k;
            s->sync_names = (char **)cna__calloc(&s->allocator, k, sizeof(char *));
            s->sync_at = (int64_t *)cna__calloc(&s->allocator, count * k, sizeof(int64_t));
            s->sync_off = (int64_t *)cna__calloc(&s->allocator, count * (k + 1), sizeof(int64_t));
            if (!s->sync_names || !s->sync_at || !s->sync_off)
                return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "blend space: out of memory for %zu sync points", k);
        } else if (here != k) {
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "samples[%zu]: animation %ld has %zu sync markers, samples[0] has %zu", i, a, here, k);
        }
        /* this sample's points in time order */
        const cna_marker *pts[CNA_BLEND_SPACE_MAX_SYNC];
        if (k > CNA_BLEND_SPACE_MAX_SYNC)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "samples[%zu]: %zu sync markers; at most %d", i, k,
                              CNA_BLEND_SPACE_MAX_SYNC);
        size_t t = 0;
        for (size_t q = 0; q < mc; q++)
            if (is_sync_name(mk[q].name, names, n)) pts[t++] = &mk[q];
        for (size_t q = 1; q < k; q++)
            if (pts[q]->ticks == pts[q - 1]->ticks)
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                                  "samples[%zu]: sync markers \"%s\" and \"%s\" are both at %lld ticks", i,
                                  pts[q - 1]->name, pts[q]->name, (long long)pts[q]->ticks);
        if (k > 1 && pts[0]->ticks == 0 && pts[k - 1]->ticks == s->durations[i])
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "samples[%zu]: sync markers \"%s\" at 0 and \"%s\" at the end are one point of the loop",
                              i, pts[0]->name, pts[k - 1]->name);
        if (i == 0)
            for (size_t j = 0; j < k; j++) {
                const size_t len = strlen(pts[j]->name);
                s->sync_names[j] = (char *)cna__alloc(&s->allocator, len + 1);
                if (!s->sync_names[j])
                    return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "blend space: out of memory for sync names");
                memcpy(s->sync_names[j], pts[j]->name, len + 1);
            }
        /* the rotation r with pts[(j + r) % k] named as point j */
        size_t r = 0;
        for (; r < k; r++) {
            size_t j = 0;
            while (j < k && strcmp(pts[(j + r) % k]->name, s->sync_names[j]) == 0) j++;
            if (j == k) break;
        }
        if (r == k)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "samples[%zu]: animation %ld has its sync markers in another order than samples[0] "
                              "(its first is \"%s\")",
                              i, a, pts[0]->name);
        const int64_t d = s->durations[i];
        int64_t *at = s->sync_at + i * k, *off = s->sync_off + i * (k + 1);
        for (size_t j = 0; j < k; j++) {
            int64_t tj = pts[(j + r) % k]->ticks;
            if (tj >= d) tj -= d; /* a marker at the end is the loop's start */
            at[j] = tj;
        }
        for (size_t j = 0; j < k; j++) {
            int64_t o = at[j] - at[0];
            if (o < 0) o += d;
            off[j] = o;
        }
        off[k] = d;
    }
    return CNA_OK;
}

static cna_result create_space(const cna_model *model, unsigned dimensions, const cna_blend_sample *samples,
                               size_t count, const char *const *sync, size_t sync_count, cna_blend_space **out,
                               cna_error *err)
{
    char b1[32], b2[32];
    if (!model || !samples || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "blend space: %s is NULL",
                          !model ? "model" : !samples ? "samples" : "out");
    if (dimensions != 1 && dimensions != 2)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "blend space: dimensions %u is not 1 or 2", dimensions);
    const size_t least = dimensions == 1 ? 2 : 3;
    if (count < least)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "blend space: %zu sample%s; a %uD space needs at least %zu",
                          count, count == 1 ? "" : "s", dimensions, least);
    if (dimensions == 2 && count > CNA_BLEND_SPACE_MAX_SAMPLES_2D)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "blend space: %zu samples; a 2D space has at most %d",
                          count, CNA_BLEND_SPACE_MAX_SAMPLES_2D);
    for (size_t i = 0; i < count; i++) {
        const cna_blend_sample *s = &samples[i];
        if (s->animation < 0 || (size_t)s->animation >= model->animation_count)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "samples[%zu]: animation %ld is outside 0..%ld", i,
                              s->animation, (long)model->animation_count - 1);
        if (!isfinite(s->x))
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "samples[%zu]: x %s is not finite", i, num(s->x, b1));
        if (dimensions == 2 && !isfinite(s->y))
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "samples[%zu]: y %s is not finite", i, num(s->y, b1));
    }
    for (size_t i = 0; i < count; i++)
        for (size_t j = i + 1; j < count; j++)
            if (samples[i].x == samples[j].x && (dimensions == 1 || samples[i].y == samples[j].y)) {
                if (dimensions == 1)
                    return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "samples[%zu] and samples[%zu] are both at x %s",
                                      i, j, num(samples[i].x, b1));
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "samples[%zu] and samples[%zu] are both at (%s, %s)",
                                  i, j, num(samples[i].x, b1), num(samples[i].y, b2));
            }
    if (dimensions == 2) {
        bool area = false;
        for (size_t i = 0; i < count && !area; i++)
            for (size_t j = i + 1; j < count && !area; j++)
                for (size_t k = j + 1; k < count && !area; k++)
                    area = proper(point_of(&samples[i]), point_of(&samples[j]), point_of(&samples[k]));
        if (!area)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "blend space: the %zu samples lie on one line; a 2D space needs samples that span an "
                              "area",
                              count);
    }
    /* the model's allocator (its import or load options' hooks) */
    const cna_allocator al = ((const cna__model *)model)->allocator;
    cna_blend_space *s = (cna_blend_space *)cna__calloc(&al, 1, sizeof *s);
    bool ok = s != NULL;
    if (ok) {
        s->allocator = al;
        s->model = model;
        s->dimensions = dimensions;
        s->count = count;
        s->samples = (cna_blend_sample *)cna__alloc(&al, count * sizeof *s->samples);
        s->durations = (int64_t *)cna__alloc(&al, count * sizeof *s->durations);
        s->order = (size_t *)cna__alloc(&al, count * sizeof *s->order);
        ok = s->samples && s->durations && s->order;
    }
    if (ok) {
        memcpy(s->samples, samples, count * sizeof *samples);
        for (size_t i = 0; i < count; i++) {
            const long a = samples[i].animation;
            s->durations[i] = model->node_clips && model->node_clips[a].duration > 0 ? model->node_clips[a].duration : 0;
            s->order[i] = i;
        }
        if (dimensions == 1) sort_by_x(s->order, count, s->samples);
        else ok = triangulate(s);
    }
    if (!ok) {
        cna_blend_space_free(s);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "blend space: out of memory for %zu samples", count);
    }
    if (sync_count) {
        const cna_result r = make_sync(s, model, sync, sync_count, err);
        if (r != CNA_OK) {
            cna_blend_space_free(s);
            return r;
        }
    }
    *out = s;
    return CNA_OK;
}

cna_result cna_blend_space_create(const cna_model *model, unsigned dimensions, const cna_blend_sample *samples,
                                  size_t count, cna_blend_space **out, cna_error *err)
{
    return create_space(model, dimensions, samples, count, NULL, 0, out, err);
}

cna_result cna_blend_space_create_synced(const cna_model *model, unsigned dimensions,
                                         const cna_blend_sample *samples, size_t count,
                                         const char *const *sync_markers, size_t sync_marker_count,
                                         cna_blend_space **out, cna_error *err)
{
    if (!sync_markers || sync_marker_count == 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "blend space: no sync marker names");
    for (size_t j = 0; j < sync_marker_count; j++)
        if (!sync_markers[j] || !sync_markers[j][0])
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "blend space: sync marker name %zu is %s", j,
                              sync_markers[j] ? "empty" : "NULL");
    return create_space(model, dimensions, samples, count, sync_markers, sync_marker_count, out, err);
}

size_t cna_blend_space_sync_count(const cna_blend_space *space) { return space ? space->sync_count : 0; }

unsigned cna_blend_space_dimensions(const cna_blend_space *space) { return space ? space->dimensions : 0; }
size_t cna_blend_space_sample_count(const cna_blend_space *space) { return space ? space->count : 0; }
const cna_blend_sample *cna_blend_space_samples(const cna_blend_space *space) { return space ? space->samples : NULL; }

/* ------------------------------------------------------------------ weights */

static void weights_1d(const cna_blend_space *s, double x, double *w)
{
    const size_t n = s->count;
    const size_t *o = s->order;
    const cna_blend_sample *p = s->samples;
    if (!(x > p[o[0]].x)) {
        w[o[0]] = 1.0;
        return;
    }
    if (!(x < p[o[n - 1]].x)) {
        w[o[n - 1]] = 1.0;
        return;
    }
    size_t i = 0; /* the last sample with x_i <= x */
    while (i + 1 < n && p[o[i + 1]].x <= x) i++;
    if (p[o[i]].x == x) {
        w[o[i]] = 1.0;
        return;
    }
    const double t = (x - p[o[i]].x) / (p[o[i + 1]].x - p[o[i]].x);
    w[o[i]] = 1.0 - t;
    w[o[i + 1]] = t;
}

static void weights_2d(const cna_blend_space *s, pt q, double *w)
{
    const cna_blend_sample *p = s->samples;
    for (size_t i = 0; i < s->count; i++)
        if (p[i].x == q.x && p[i].y == q.y) {
            w[i] = 1.0;
            return;
        }
    /* the triangle where the barycentric coordinates are all >= 0 (the
     * first); a point on an edge whose rounding left a coordinate a little
     * below 0 takes the best triangle, its negative coordinate made 0 */
    double best = -INFINITY, bw[3] = {0.0, 0.0, 0.0};
    size_t bt = 0;
    for (size_t t = 0; t < s->triangle_count; t++) {
        const pt a = point_of(&p[s->triangles[t][0]]), b = point_of(&p[s->triangles[t][1]]),
                 c = point_of(&p[s->triangles[t][2]]);
        /* Cramer's rule on q - a = u·(b - a) + v·(c - a) */
        const double det = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y);
        const double u = ((q.x - a.x) * (c.y - a.y) - (c.x - a.x) * (q.y - a.y)) / det;
        const double v = ((b.x - a.x) * (q.y - a.y) - (q.x - a.x) * (b.y - a.y)) / det;
        const double wa = 1.0 - u - v;
        const double lo = fmin(wa, fmin(u, v));
        if (lo > best) {
            best = lo;
            bt = t;
            bw[0] = wa;
            bw[1] = u;
            bw[2] = v;
            if (lo >= 0.0) break;
        }
    }
    if (best >= -1e-9) {
        if (best < 0.0) {
            double sum = 0.0;
            for (int k = 0; k < 3; k++) sum += bw[k] = fmax(bw[k], 0.0);
            for (int k = 0; k < 3; k++) bw[k] /= sum;
        }
        for (int k = 0; k < 3; k++) w[s->triangles[bt][k]] = bw[k];
        return;
    }
    /* outside the hull: the closest point of its boundary */
    double near = INFINITY, nt = 0.0;
    size_t ne = 0;
    for (size_t e = 0; e < s->hull_count; e++) {
        const pt a = point_of(&p[s->hull[e][0]]), b = point_of(&p[s->hull[e][1]]);
        const double dx = b.x - a.x, dy = b.y - a.y;
        double t = ((q.x - a.x) * dx + (q.y - a.y) * dy) / (dx * dx + dy * dy);
        t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
        const double ex = a.x + t * dx - q.x, ey = a.y + t * dy - q.y;
        const double d2 = ex * ex + ey * ey;
        if (d2 < near) {
            near = d2;
            nt = t;
            ne = e;
        }
    }
    w[s->hull[ne][0]] = 1.0 - nt;
    w[s->hull[ne][1]] = nt;
}

cna_result cna_blend_space_weights(const cna_blend_space *space, double x, double y, double *weights, size_t count,
                                   cna_error *err)
{
    char b1[32];
    if (!space || !weights)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "blend space: %s is NULL", !space ? "space" : "weights");
    if (count != space->count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "blend space: weights count %zu differs from the sample count %zu",
                          count, space->count);
    if (!isfinite(x))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "blend space: x %s is not finite", num(x, b1));
    if (space->dimensions == 2 && !isfinite(y))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "blend space: y %s is not finite", num(y, b1));
    for (size_t i = 0; i < count; i++) weights[i] = 0.0;
    if (space->dimensions == 1) weights_1d(space, x, weights);
    else weights_2d(space, (pt){x, y}, weights);
    return CNA_OK;
}

/* ------------------------------------------------------------------ a layer that plays a blend space */

static cna_result check_layer(const cna_character *c, size_t layer, cna_error *err)
{
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    cna_result r = cna__character_busy(c, err);
    if (r != CNA_OK) return r;
    if (layer >= c->layer_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu is outside 0..%zu", layer, c->layer_count - 1);
    return CNA_OK;
}

static cna_result check_parameters(const cna_blend_space *s, size_t layer, double x, double y, cna_error *err)
{
    char b[32];
    if (!isfinite(x)) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: x %s is not finite", layer, num(x, b));
    if (s->dimensions == 2 && !isfinite(y))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: y %s is not finite", layer, num(y, b));
    return CNA_OK;
}

/* floor(phase·d) for a clip of d ticks, within [0, d - 1] (0 when d is 0) */
static int64_t position_at(double phase, int64_t d)
{
    if (d <= 0) return 0;
    const double p = floor(phase * (double)d);
    if (!(p > 0.0)) return 0;
    return p >= (double)d ? d - 1 : (int64_t)p;
}

/* ---- sync markers: the phase φ = ψ / k, ψ in [0, k) counts the sync
 * points passed (its fraction: how far to the next) */

/* Sample i's ticks from its point j to its point j + 1. */
static int64_t seg_len(const cna_blend_space *s, size_t i, size_t j)
{
    const int64_t *off = s->sync_off + i * (s->sync_count + 1);
    return off[j + 1] - off[j];
}

/* The layer's ticks from point j to point j + 1: Σ w_i·len_i(j). */
static double seg_dur(const cna__layer *L, size_t j)
{
    double d = 0.0;
    for (size_t a = 0; a < L->bs->active_count; a++)
        d += L->bs->active[a].exact * (double)seg_len(L->space, L->bs->active[a].sample, j);
    return d;
}

/* ψ's segment and fraction. */
static size_t seg_of(const cna_blend_space *s, double phase, double *frac)
{
    const size_t k = s->sync_count;
    const double psi = phase * (double)k;
    double j = floor(psi);
    if (j < 0.0) j = 0.0;
    if (j > (double)(k - 1)) j = (double)(k - 1);
    *frac = psi - j;
    return (size_t)j;
}

/* Sample i's position in ticks at phase φ: floor(φ·D_i) for a normalised
 * phase; with sync markers its point j plus the fraction of its segment. */
static int64_t sample_at(const cna_blend_space *s, size_t i, double phase)
{
    const int64_t d = s->durations[i];
    if (!s->sync_count) return position_at(phase, d);
    if (d <= 0) return 0;
    double frac;
    const size_t j = seg_of(s, phase, &frac);
    const int64_t *off = s->sync_off + i * (s->sync_count + 1);
    int64_t u = off[j] + (int64_t)floor(frac * (double)(off[j + 1] - off[j]));
    if (u >= off[j + 1]) u = off[j + 1] - 1;
    if (u < off[j]) u = off[j];
    return (s->sync_at[i * s->sync_count] + u) % d;
}

/* The layer's time in ticks since phase 0 (φ·D for a normalised phase). */
static double layer_time(const cna__layer *L)
{
    const cna_blend_space *s = L->space;
    if (!s->sync_count) return L->bs->phase * L->bs->duration;
    double frac, t = 0.0;
    const size_t j = seg_of(s, L->bs->phase, &frac);
    for (size_t m = 0; m < j; m++) t += seg_dur(L, m);
    return t + frac * seg_dur(L, j);
}

/* The layer's clock (its duration, position) from the phase and D. */
static void layer_clock(cna__layer *L)
{
    const double D = L->bs->duration;
    const int64_t d = D > 0.0 && D < 9.2e18 ? (int64_t)llround(D) : 0;
    L->clock.duration = d;
    if (L->space->sync_count && d > 0) {
        const double t = floor(layer_time(L));
        L->clock.position = t <= 0.0 ? 0 : (t >= (double)d ? d - 1 : (int64_t)t);
    } else {
        L->clock.position = position_at(L->bs->phase, d);
    }
    L->clock.unfolded = (uint64_t)L->clock.position;
    L->clock.seek_exact = false;
}

/* The samples' clocks at the phase. */
static void sample_clocks(cna__layer *L)
{
    for (size_t k = 0; k < L->bs->active_count; k++) {
        cna__clock *ck = &L->bs->active[k].clock;
        ck->position = sample_at(L->space, L->bs->active[k].sample, L->bs->phase);
        ck->unfolded = (uint64_t)ck->position;
        ck->seek_exact = false;
    }
    layer_clock(L);
}

/* Start the sampling state `slot` of the layer for animation a. */
static void start_slot(cna_character *c, cna__layer *L, size_t slot, long a)
{
    const cna_model *m = c->model;
    const cna__blend *b = &c->blend;
    for (size_t e = 0; e <= c->eval_count; e++) {
        const cna_clip *clip = e < c->eval_count ? &m->skins[c->evals[e].skin].data.clips[a]
                                                 : (m->node_clips ? &m->node_clips[a] : NULL);
        cna__track_states_start(clip, L->bs->tracks + slot * b->cursor_count + b->cursor_first[e],
                                b->cursor_first[e + 1] - b->cursor_first[e],
                                &L->bs->windows[slot * (c->eval_count + 1) + e]);
    }
}

/* The weights at (x, y), the samples of weight > 0 (each keeping its
 * sampling state when it had weight before), D, the layer's animation and
 * clocks. Allocates nothing. */
static void set_parameters(cna_character *c, size_t layer, double x, double y)
{
    cna__layer *L = &c->layers[layer];
    const cna_blend_space *s = L->space;
    L->bs->x = x;
    L->bs->y = y;
    (void)cna_blend_space_weights(s, x, y, L->bs->weights, s->count, NULL); /* checked */
    cna__blend_active old[CNA__BLEND_ACTIVE_MAX];
    const size_t old_count = L->bs->active_count;
    memcpy(old, L->bs->active, old_count * sizeof *old);
    bool used[CNA__BLEND_ACTIVE_MAX] = {false};
    bool kept[CNA__BLEND_ACTIVE_MAX] = {false};
    size_t n = 0, top = 0;
    double D = 0.0, best = -1.0;
    for (size_t i = 0; i < s->count && n < CNA__BLEND_ACTIVE_MAX; i++) {
        const double w = L->bs->weights[i];
        if (!(w > 0.0)) continue;
        cna__blend_active *a = &L->bs->active[n];
        a->sample = i;
        a->animation = s->samples[i].animation;
        a->exact = w;
        a->weight = (float)w;
        cna__clock_init(&a->clock, s->durations[i]);
        a->slot = SIZE_MAX;
        for (size_t k = 0; k < old_count; k++)
            if (old[k].sample == i) {
                a->slot = old[k].slot;
                used[a->slot] = true;
                kept[n] = true;
            }
        D += w * (double)s->durations[i];
        if (w > best) {
            best = w;
            top = i;
        }
        n++;
    }
    for (size_t k = 0; k < n; k++) {
        if (kept[k]) continue;
        size_t slot = 0;
        while (used[slot]) slot++;
        used[slot] = true;
        L->bs->active[k].slot = slot;
        start_slot(c, L, slot, L->bs->active[k].animation);
    }
    L->bs->active_count = n;
    L->bs->duration = D;
    const long before = L->animation;
    L->animation = s->samples[top].animation;
    sample_clocks(L);
    if (L->ref && L->ref_animation < 0 && L->animation != before) cna__blend_sample_reference(c, layer);
}

cna_result cna_character_layer_play_blend_space(cna_character *c, size_t layer, const cna_blend_space *space,
                                                double x, double y, cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    if (!space) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: blend space is NULL", layer);
    const cna_model *sm = space->model, *cm = c->model; /* a copy of the struct shares its arrays */
    if (sm != cm && !(sm->bones == cm->bones && sm->skins == cm->skins && sm->node_clips == cm->node_clips &&
                      sm->animation_count == cm->animation_count))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu: the blend space was made for another model",
                          layer);
    if ((r = check_parameters(space, layer, x, y, err)) != CNA_OK) return r;
    cna__layer *L = &c->layers[layer];
    if (L->motion_mode != CNA_ROOT_MOTION_NONE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "layer %zu: root motion is not extracted from a blend space; set the layer's root motion "
                          "to NONE first",
                          layer);
    const cna_model *m = c->model;
    for (size_t i = 0; i < space->count; i++)
        for (size_t e = 0; e < c->eval_count; e++) {
            const cna_skinning_data *d = &m->skins[c->evals[e].skin].data;
            const long a = space->samples[i].animation;
            if (!d->clips || (size_t)a >= d->clip_count)
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "samples[%zu]: skins[%d]: no clip %ld (the skin has %zu)",
                                  i, (int)c->evals[e].skin, a, d->clip_count);
        }
    if ((r = cna__blend_ensure(c, err)) != CNA_OK) return r;
    const cna__blend *b = &c->blend;
    const size_t slots = space->dimensions == 1 ? 2 : 3;
    const size_t have_slots = L->bs ? L->bs->slots : 0, have_cap = L->bs ? L->bs->capacity : 0;
    if (have_slots < slots || have_cap < space->count) {
        /* one block: the state, the weights, the windows, the track states
         * (each part's size a multiple of 8) */
        const size_t cap = space->count > have_cap ? space->count : have_cap;
        const size_t want = slots > have_slots ? slots : have_slots;
        size_t wb = 0, tb = 0, sb = 0, bytes = 0;
        const size_t head = (sizeof(cna__layer_space) + 15) / 16 * 16;
        const bool sized = cna__mul_size(cap, sizeof(double), &wb) &&
                           cna__mul_size(want * (c->eval_count + 1), sizeof(cna__arcs_window), &tb) &&
                           cna__mul_size(want * (b->cursor_count ? b->cursor_count : 1), sizeof(cna__track_state), &sb) &&
                           cna__add_size(head, wb, &bytes) && cna__add_size(bytes, tb, &bytes) &&
                           cna__add_size(bytes, sb, &bytes);
        char *block = sized ? (char *)cna__calloc(&c->alloc, 1, bytes) : NULL;
        if (!block)
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "layer %zu: out of memory for the blend space", layer);
        cna__layer_space *bs = (cna__layer_space *)(void *)block;
        bs->weights = (double *)(void *)(block + head);
        bs->capacity = cap;
        bs->slots = want;
        bs->windows = (cna__arcs_window *)(void *)(block + head + wb);
        bs->tracks = (cna__track_state *)(void *)(block + head + wb + tb);
        cna__free(&c->alloc, L->bs); /* the space it played (if any) is replaced below */
        L->bs = bs;
        L->space = NULL;
        c->bytes += bytes;
    }
    (void)cna__layer_play(c, layer, -1, NULL); /* checked above: stopping cannot fail */
    L->space = space;
    L->bs->phase = 0.0;
    L->bs->active_count = 0;
    L->animation = -1;
    set_parameters(c, layer, x, y); /* samples an additive layer's own reference */
    return CNA_OK;
}

cna_result cna_character_layer_set_blend_parameters(cna_character *c, size_t layer, double x, double y,
                                                    cna_error *err)
{
    cna_result r = check_layer(c, layer, err);
    if (r != CNA_OK) return r;
    const cna__layer *L = &c->layers[layer];
    if (!L->space) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layer %zu plays no blend space", layer);
    if ((r = check_parameters(L->space, layer, x, y, err)) != CNA_OK) return r;
    if (x == L->bs->x && (L->space->dimensions == 1 || y == L->bs->y)) return CNA_OK; /* the same weights */
    set_parameters(c, layer, x, y);
    return CNA_OK;
}

const cna_blend_space *cna_character_layer_blend_space(const cna_character *c, size_t layer)
{
    return c && layer < c->layer_count ? c->layers[layer].space : NULL;
}

double cna_character_layer_phase(const cna_character *c, size_t layer)
{
    return c && layer < c->layer_count && c->layers[layer].space ? c->layers[layer].bs->phase : 0.0;
}

double cna_character_layer_sample_weight(const cna_character *c, size_t layer, size_t sample)
{
    if (!c || layer >= c->layer_count) return 0.0;
    const cna__layer *L = &c->layers[layer];
    return L->space && sample < L->space->count ? L->bs->weights[sample] : 0.0;
}

int64_t cna_character_layer_sample_position(const cna_character *c, size_t layer, size_t sample)
{
    if (!c || layer >= c->layer_count) return 0;
    const cna__layer *L = &c->layers[layer];
    if (!L->space || sample >= L->space->count) return 0;
    return sample_at(L->space, sample, L->bs->phase);
}

void cna__space_seek(cna_character *c, size_t layer, int64_t ticks)
{
    cna__layer *L = &c->layers[layer];
    const double D = L->bs->duration;
    double p = D > 0.0 ? (double)ticks / D : 0.0;
    p -= floor(p);
    if (L->space->sync_count && D > 0.0) { /* the segment the time falls in */
        const size_t k = L->space->sync_count;
        double t = p * D;
        size_t j = 0;
        for (; j + 1 < k && t >= seg_dur(L, j); j++) t -= seg_dur(L, j);
        const double sd = seg_dur(L, j);
        double f = sd > 0.0 ? t / sd : 0.0;
        if (f >= 1.0) f = nextafter(1.0, 0.0);
        if (f < 0.0) f = 0.0;
        p = ((double)j + f) / (double)k;
    }
    L->bs->phase = p >= 1.0 ? 0.0 : p;
    sample_clocks(L);
}

/* The listener of a sample's clock: its markers only (the layer reports
 * the wraps of its phase itself). */
typedef struct forward {
    cna_event_fn fn;
    void *user;
    const cna_blend_space *space;
} forward;

static void markers_only(const cna_event *e, void *user)
{
    const forward *f = (const forward *)user;
    if (e->kind != CNA_EVENT_MARKER) return;
    const cna_blend_space *s = f->space;
    if (s->sync_count && is_sync_name(e->name, (const char *const *)s->sync_names, s->sync_count))
        return; /* a sync point: the layer reports it once for all samples */
    f->fn(e, f->user);
}

/* The active sample of largest weight (the first on a tie). */
static size_t top_active(const cna__layer *L)
{
    size_t top = 0;
    for (size_t i = 1; i < L->bs->active_count; i++)
        if (L->bs->active[i].exact > L->bs->active[top].exact) top = i;
    return top;
}

/* Sync point j crossed: one MARKER event for the layer, as the marker of
 * the sample of largest weight, with the layer's weight. */
static void emit_sync(cna_character *c, size_t layer, size_t j)
{
    const cna__layer *L = &c->layers[layer];
    const cna_blend_space *s = L->space;
    if (!L->bs->active_count) return;
    const cna__blend_active *top = &L->bs->active[top_active(L)];
    size_t mc = 0, q = 0;
    const cna_marker *mk = cna_model_markers(c->model, (size_t)top->animation, &mc);
    const int64_t at = s->sync_at[top->sample * s->sync_count + j];
    for (size_t i = 0; i < mc; i++)
        if (mk[i].name && strcmp(mk[i].name, s->sync_names[j]) == 0 && (mk[i].ticks == at || mk[i].ticks == at + s->durations[top->sample])) {
            q = i;
            break;
        }
    cna_event e;
    memset(&e, 0, sizeof e);
    e.kind = CNA_EVENT_MARKER;
    e.layer = layer;
    e.animation = top->animation;
    e.marker = q;
    e.name = q < mc ? mk[q].name : s->sync_names[j];
    e.ticks = at;
    e.weight = L->weight;
    c->in_listener = true;
    c->listener(&e, c->listener_user);
    c->in_listener = false;
}

/* Move an active sample's clock by `step` ticks, reporting its markers
 * through fw (markers_only: the sync points left out) with the layer's
 * weight × the sample's. */
static void step_sample(cna_character *c, size_t layer, cna__blend_active *a, int64_t step, forward *fw)
{
    cna__clock_events ev;
    ev.markers = cna_model_markers(c->model, (size_t)a->animation, &ev.marker_count);
    ev.layer = layer;
    ev.animation = a->animation;
    ev.weight = (float)((double)c->layers[layer].weight * a->exact);
    ev.fn = markers_only;
    ev.user = fw;
    c->in_listener = true;
    cna__clock_advance(&a->clock, step, &ev);
    c->in_listener = false;
}

/* LOOPED once per wrap of the phase (at most CNA_EVENT_MAX_LOOPS), for the
 * sample of largest weight: ticks its duration forward, 0 backward. */
static void emit_loops(cna_character *c, size_t layer, double wraps)
{
    const cna__layer *L = &c->layers[layer];
    if (wraps == 0.0) return;
    const double count = fabs(wraps) < (double)CNA_EVENT_MAX_LOOPS ? fabs(wraps) : (double)CNA_EVENT_MAX_LOOPS;
    cna_event e;
    memset(&e, 0, sizeof e);
    e.kind = CNA_EVENT_LOOPED;
    e.layer = layer;
    e.animation = L->animation;
    e.ticks = wraps > 0.0 && L->bs->active_count ? L->bs->active[top_active(L)].clock.duration : 0;
    e.weight = L->weight;
    c->in_listener = true;
    for (double n = 0.0; n < count; n += 1.0) c->listener(&e, c->listener_user);
    c->in_listener = false;
}

/* Sample i's unfolded ticks at the unwrapped ψ (ψ = k·cycles + the
 * segment and its fraction), from its point 0. */
static int64_t unfolded_at(const cna_blend_space *s, size_t i, double psi)
{
    const size_t k = s->sync_count;
    const double cycles = floor(psi / (double)k);
    double r = psi - cycles * (double)k;
    double j = floor(r);
    if (j > (double)(k - 1)) j = (double)(k - 1);
    if (j < 0.0) j = 0.0;
    const double f = r - j;
    const int64_t *off = s->sync_off + i * (k + 1);
    const size_t jj = (size_t)j;
    int64_t u = off[jj] + (int64_t)floor(f * (double)(off[jj + 1] - off[jj]));
    if (u >= off[jj + 1]) u = off[jj + 1] - 1;
    if (u < off[jj]) u = off[jj];
    return (int64_t)cycles * s->durations[i] + u;
}

static size_t mod_k(double m, size_t k)
{
    double r = fmod(m, (double)k);
    if (r < 0.0) r += (double)k;
    return (size_t)r % k;
}

/* An advance of a layer whose space has sync markers: ψ walks the
 * segments, each at the layer's pace for it (Σ w_i·len_i(j) ticks); each
 * sample's clock follows to its own point and fraction, reporting its
 * markers but the sync points; then each sync point crossed once, then
 * LOOPED per wrap of ψ. */
static void advance_synced(cna_character *c, size_t layer, int64_t ticks)
{
    cna__layer *L = &c->layers[layer];
    const cna_blend_space *s = L->space;
    const size_t k = s->sync_count;
    const double D = L->bs->duration;
    if (!(D > 0.0) || ticks == 0) return;
    double frac;
    const size_t j0 = seg_of(s, L->bs->phase, &frac);
    const double psi0 = (double)j0 + frac;
    double rem = (double)ticks, cycles = 0.0;
    if (fabs(rem) >= D) { /* whole cycles */
        cycles = trunc(rem / D);
        rem -= cycles * D;
    }
    double psi = psi0;
    for (int guard = 0; rem > 0.0 && guard < 4 * (int)k + 4; guard++) {
        const double m = floor(psi), f = psi - m, sd = seg_dur(L, mod_k(m, k));
        const double to_end = (1.0 - f) * sd;
        if (rem >= to_end) {
            rem -= to_end;
            psi = m + 1.0;
        } else {
            psi = m + f + rem / sd;
            if (psi >= m + 1.0) psi = m + 1.0;
            rem = 0.0;
        }
    }
    for (int guard = 0; rem < 0.0 && guard < 4 * (int)k + 4; guard++) {
        double m = floor(psi), f = psi - m;
        if (f == 0.0) {
            m -= 1.0;
            f = 1.0;
        }
        const double sd = seg_dur(L, mod_k(m, k)), to_start = f * sd;
        if (-rem >= to_start) {
            rem += to_start;
            psi = m;
        } else {
            psi = m + f + rem / sd;
            if (psi < m) psi = m;
            rem = 0.0;
        }
    }
    /* the new phase and the wraps of ψ (whole cycles included) */
    const double turns = floor(psi / (double)k);
    double next = (psi - turns * (double)k) / (double)k;
    double wraps = turns + cycles;
    if (next >= 1.0) {
        next = 0.0;
        wraps += 1.0;
    }
    if (next < 0.0) next = 0.0;
    L->bs->phase = next;
    /* the samples' clocks: their markers but the sync points */
    const double most = (double)CNA_EVENT_MAX_LOOPS + 1.0;
    const double shown = cycles > most ? most : (cycles < -most ? -most : cycles);
    const double psi1 = psi + shown * (double)k;
    forward fw = {c->listener, c->listener_user, s};
    for (size_t i = 0; i < L->bs->active_count; i++) {
        cna__blend_active *a = &L->bs->active[i];
        const int64_t to = sample_at(s, a->sample, next);
        if (c->listener && a->clock.duration > 0) {
            step_sample(c, layer, a, unfolded_at(s, a->sample, psi1) - unfolded_at(s, a->sample, psi0), &fw);
        }
        a->clock.position = to;
        a->clock.unfolded = (uint64_t)to;
    }
    layer_clock(L);
    if (!c->listener) return;
    /* the sync points crossed, in the order passed (whole cycles each once,
     * at most CNA_EVENT_MAX_LOOPS of them) */
    const double lo = ticks > 0 ? floor(psi0) + 1.0 : ceil(psi1), hi = ticks > 0 ? floor(psi1) : ceil(psi0) - 1.0;
    const double limit = (double)CNA_EVENT_MAX_LOOPS * (double)k;
    if (ticks > 0)
        for (double m = lo, n = 0.0; m <= hi && n < limit; m += 1.0, n += 1.0) emit_sync(c, layer, mod_k(m, k));
    else
        for (double m = hi, n = 0.0; m >= lo && n < limit; m -= 1.0, n += 1.0) emit_sync(c, layer, mod_k(m, k));
    emit_loops(c, layer, wraps);
}

void cna__space_advance(cna_character *c, size_t layer, int64_t ticks)
{
    cna__layer *L = &c->layers[layer];
    if (L->space->sync_count) {
        advance_synced(c, layer, ticks);
        return;
    }
    const double D = L->bs->duration;
    if (!(D > 0.0) || ticks == 0) return;
    const double p = L->bs->phase + (double)ticks / D;
    double wraps = floor(p);
    double next = p - wraps;
    if (next >= 1.0) { /* p a rounding below a whole number: that wrap is made */
        next = 0.0;
        wraps += 1.0;
    }
    L->bs->phase = next;
    /* the wraps each sample's clock passes, as many as can be reported */
    const double most = (double)CNA_EVENT_MAX_LOOPS + 1.0;
    const int64_t k = (int64_t)(wraps > most ? most : (wraps < -most ? -most : wraps));
    forward fw = {c->listener, c->listener_user, L->space};
    for (size_t i = 0; i < L->bs->active_count; i++) {
        cna__blend_active *a = &L->bs->active[i];
        const int64_t d = a->clock.duration;
        if (d <= 0) continue;
        const int64_t to = position_at(L->bs->phase, d);
        if (!c->listener) { /* no events to find: the clock is where the phase puts it */
            a->clock.position = to;
            a->clock.unfolded = (uint64_t)to;
            continue;
        }
        int64_t kk = k;
        if (d > INT64_MAX / (CNA_EVENT_MAX_LOOPS + 3)) kk = k > 0 ? 1 : (k < 0 ? -1 : 0);
        step_sample(c, layer, a, kk * d + (to - a->clock.position), &fw);
        a->clock.position = to; /* (already: the step ends there) */
        a->clock.unfolded = (uint64_t)to;
    }
    layer_clock(L);
    if (c->listener) emit_loops(c, layer, wraps);
}
