/*
 * Blend space weights (include/cna/blend_space.h): in 1D the linear
 * weights between neighbours in x order, clamped outside; in 2D the
 * barycentric weights of the Delaunay triangle that holds the point
 * (computed here by Cramer's rule on the triangle expected), the weights
 * of the closest hull point outside; exactly 1 and 0 at every sample; the
 * sum 1; every error with its exact message. A space allocates through its
 * model's allocator only, gives back every block, and fails cleanly at each
 * of its allocations.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cna/cna.h"

#define ROBOT "corpus/valid/RobotExpressive/robot.glb"
#define PI_D 3.14159265358979323846

static cna_model *load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_model_load_file(path, NULL, &m, &err);
    if (r != CNA_OK) print_error("%s: %s\n", rel, err.message);
    assert_int_equal(r, CNA_OK);
    return m;
}

static void ok(cna_result r, const cna_error *err)
{
    if (r != CNA_OK) print_error("%s\n", err->message);
    assert_int_equal(r, CNA_OK);
}

/* a small deterministic generator (xorshift64*) */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(double lo, double hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    const uint64_t v = rng_state * 2685821657736338717ull;
    return lo + (hi - lo) * ((double)(v >> 11) / 9007199254740992.0);
}

static void assert_close(double got, double want)
{
    if (!(fabs(got - want) <= 1e-12)) print_error("got %.17g, want %.17g\n", got, want);
    assert_true(fabs(got - want) <= 1e-12);
}

static void check_sum(const double *w, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        assert_true(w[i] >= 0.0 && w[i] <= 1.0);
        s += w[i];
    }
    assert_close(s, 1.0);
}

/* ------------------------------------------------------------------ 1D */

/* samples given out of x order: the weights are by x order, in the caller's order */
static void test_1d_weights(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    const cna_blend_sample s[4] = {{1, 2.0, 0.0}, {2, -1.0, 0.0}, {3, 5.5, 0.0}, {4, 0.5, 0.0}};
    /* x order: 1 (-1), 3 (0.5), 0 (2), 2 (5.5) */
    const size_t order[4] = {1, 3, 0, 2};
    cna_blend_space *bs = NULL;
    cna_error err;
    ok(cna_blend_space_create(m, 1, s, 4, &bs, &err), &err);
    assert_int_equal(cna_blend_space_dimensions(bs), 1);
    assert_int_equal(cna_blend_space_sample_count(bs), 4);
    double w[4], want[4];
    for (int g = 0; g <= 4000; g++) {
        const double x = -3.0 + 10.0 * g / 4000.0 + (g % 7 == 0 ? 0.0 : uniform(-1e-3, 1e-3));
        ok(cna_blend_space_weights(bs, x, 123.0, w, 4, &err), &err);
        for (size_t i = 0; i < 4; i++) want[i] = 0.0;
        if (x <= s[order[0]].x) {
            want[order[0]] = 1.0;
        } else if (x >= s[order[3]].x) {
            want[order[3]] = 1.0;
        } else {
            size_t i = 0;
            while (!(x >= s[order[i]].x && x < s[order[i + 1]].x)) i++;
            const double t = (x - s[order[i]].x) / (s[order[i + 1]].x - s[order[i]].x);
            want[order[i]] = 1.0 - t;
            want[order[i + 1]] = t;
        }
        for (size_t i = 0; i < 4; i++) assert_close(w[i], want[i]);
        check_sum(w, 4);
    }
    for (size_t k = 0; k < 4; k++) { /* exactly 1 and 0 at each sample */
        ok(cna_blend_space_weights(bs, s[k].x, 0.0, w, 4, &err), &err);
        for (size_t i = 0; i < 4; i++) assert_true(w[i] == (i == k ? 1.0 : 0.0));
    }
    /* y is ignored, even when it is not finite */
    ok(cna_blend_space_weights(bs, 1.0, NAN, w, 4, &err), &err);
    assert_close(w[3], 1.0 - 0.5 / 1.5);
    assert_close(w[0], 0.5 / 1.5);
    cna_blend_space_free(bs);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ 2D */

/* Barycentric weights of q in the triangle (a, b, c) by Cramer's rule:
 * q - a = u (b - a) + v (c - a). */
static void cramer(const double a[2], const double b[2], const double c[2], const double q[2], double out[3])
{
    const double m00 = b[0] - a[0], m01 = c[0] - a[0], m10 = b[1] - a[1], m11 = c[1] - a[1];
    const double r0 = q[0] - a[0], r1 = q[1] - a[1];
    const double det = m00 * m11 - m01 * m10;
    const double u = (r0 * m11 - m01 * r1) / det, v = (m00 * r1 - r0 * m10) / det;
    out[0] = 1.0 - u - v;
    out[1] = u;
    out[2] = v;
}

/* A square of four corners and its centre: the four triangles centre, corner,
 * next corner; outside, the weights of the square's closest point (the point
 * clamped into the square) along its edge. */
static void test_2d_square_with_centre(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    const cna_blend_sample s[5] = {
        {0, 1.0, -1.0}, {1, 0.0, 0.0}, {2, 1.0, 1.0}, {3, -1.0, 1.0}, {4, -1.0, -1.0},
    };
    cna_blend_space *bs = NULL;
    cna_error err;
    ok(cna_blend_space_create(m, 2, s, 5, &bs, &err), &err);
    /* corners counter-clockwise: 0 (1,-1), 2 (1,1), 3 (-1,1), 4 (-1,-1) */
    const size_t ring[4] = {0, 2, 3, 4};
    double w[5], want[5];
    size_t points = 0;
    for (int gx = -60; gx <= 60; gx++)
        for (int gy = -60; gy <= 60; gy++) {
            double q[2] = {gx / 40.0, gy / 40.0};
            if ((gx + gy) % 3 != 0) { /* off the grid's lines too */
                q[0] += uniform(-0.01, 0.01);
                q[1] += uniform(-0.01, 0.01);
            }
            ok(cna_blend_space_weights(bs, q[0], q[1], w, 5, &err), &err);
            for (size_t i = 0; i < 5; i++) want[i] = 0.0;
            const bool inside = fabs(q[0]) <= 1.0 && fabs(q[1]) <= 1.0;
            if (inside) {
                /* the triangle: by the quadrant of the direction from the centre */
                const double ang = atan2(q[1], q[0]);
                size_t k = 0; /* edge ring[k] -> ring[k+1] spans angles [-pi/4 + k pi/2, pi/4 + k pi/2) */
                double a0 = ang + PI_D / 4.0;
                while (a0 < 0.0) a0 += 2.0 * PI_D;
                k = (size_t)(a0 / (PI_D / 2.0)) % 4;
                const double c[2] = {0.0, 0.0};
                const double p1[2] = {s[ring[k]].x, s[ring[k]].y};
                const double p2[2] = {s[ring[(k + 1) % 4]].x, s[ring[(k + 1) % 4]].y};
                double bw[3];
                cramer(c, p1, p2, q, bw);
                want[1] = bw[0];
                want[ring[k]] = bw[1];
                want[ring[(k + 1) % 4]] = bw[2];
            } else {
                const double cx = fmax(-1.0, fmin(1.0, q[0])), cy = fmax(-1.0, fmin(1.0, q[1]));
                if (fabs(cx) == 1.0 && fabs(cy) == 1.0) { /* a corner */
                    for (size_t i = 0; i < 5; i++)
                        if (s[i].x == cx && s[i].y == cy) want[i] = 1.0;
                } else if (fabs(cx) == 1.0) { /* the edge x = cx from y -1 to 1 */
                    const double t = (cy + 1.0) / 2.0;
                    want[cx > 0 ? 0 : 4] = 1.0 - t;
                    want[cx > 0 ? 2 : 3] = t;
                } else { /* the edge y = cy from x -1 to 1 */
                    const double t = (cx + 1.0) / 2.0;
                    want[cy > 0 ? 3 : 4] = 1.0 - t;
                    want[cy > 0 ? 2 : 0] = t;
                }
            }
            for (size_t i = 0; i < 5; i++) assert_close(w[i], want[i]);
            check_sum(w, 5);
            points++;
        }
    assert_true(points > 10000);
    for (size_t k = 0; k < 5; k++) {
        ok(cna_blend_space_weights(bs, s[k].x, s[k].y, w, 5, &err), &err);
        for (size_t i = 0; i < 5; i++) assert_true(w[i] == (i == k ? 1.0 : 0.0));
    }
    cna_blend_space_free(bs);
    cna_model_free(m);
}

/* A locomotion layout: idle (0, 0), walk (0, 1), run (0, 2), strafes
 * (-1, 0) and (1, 0). Its Delaunay triangles, worked out by hand: (-1,0)
 * (0,0) (0,1); (0,0) (1,0) (0,1); (-1,0) (0,1) (0,2); (1,0) (0,2) (0,1); the
 * hull: (-1,0)-(0,0)-(1,0)-(0,2)-(-1,0). Random points inside and outside. */
static void test_2d_locomotion(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    const cna_blend_sample s[5] = {{0, 0.0, 0.0}, {1, 0.0, 1.0}, {2, 0.0, 2.0}, {3, -1.0, 0.0}, {4, 1.0, 0.0}};
    const int tri[4][3] = {{3, 0, 1}, {0, 4, 1}, {3, 1, 2}, {4, 2, 1}};
    const int hull[4][2] = {{3, 0}, {0, 4}, {4, 2}, {2, 3}};
    cna_blend_space *bs = NULL;
    cna_error err;
    ok(cna_blend_space_create(m, 2, s, 5, &bs, &err), &err);
    double w[5], want[5];
    size_t in = 0, out = 0;
    for (int n = 0; n < 20000; n++) {
        const double q[2] = {uniform(-2.0, 2.0), uniform(-1.0, 3.0)};
        ok(cna_blend_space_weights(bs, q[0], q[1], w, 5, &err), &err);
        for (size_t i = 0; i < 5; i++) want[i] = 0.0;
        int found = -1;
        double bw[3];
        for (int t = 0; t < 4 && found < 0; t++) {
            const double a[2] = {s[tri[t][0]].x, s[tri[t][0]].y}, b[2] = {s[tri[t][1]].x, s[tri[t][1]].y},
                         c[2] = {s[tri[t][2]].x, s[tri[t][2]].y};
            cramer(a, b, c, q, bw);
            if (bw[0] >= 0.0 && bw[1] >= 0.0 && bw[2] >= 0.0) found = t;
        }
        if (found >= 0) {
            for (int k = 0; k < 3; k++) want[tri[found][k]] = bw[k];
            in++;
        } else {
            double best = INFINITY;
            for (int e = 0; e < 4; e++) {
                const cna_blend_sample *a = &s[hull[e][0]], *b = &s[hull[e][1]];
                const double dx = b->x - a->x, dy = b->y - a->y;
                double t = ((q[0] - a->x) * dx + (q[1] - a->y) * dy) / (dx * dx + dy * dy);
                t = fmax(0.0, fmin(1.0, t));
                const double d = hypot(a->x + t * dx - q[0], a->y + t * dy - q[1]);
                if (d < best) {
                    best = d;
                    for (size_t i = 0; i < 5; i++) want[i] = 0.0;
                    want[hull[e][0]] = 1.0 - t;
                    want[hull[e][1]] = t;
                }
            }
            out++;
        }
        for (size_t i = 0; i < 5; i++) assert_close(w[i], want[i]);
        check_sum(w, 5);
    }
    assert_true(in > 2000 && out > 10000); /* the hull holds 1/8 of the box */
    for (size_t k = 0; k < 5; k++) {
        ok(cna_blend_space_weights(bs, s[k].x, s[k].y, w, 5, &err), &err);
        for (size_t i = 0; i < 5; i++) assert_true(w[i] == (i == k ? 1.0 : 0.0));
    }
    /* on the hull edge (-1,0)-(0,0) below it: straight down onto the edge */
    ok(cna_blend_space_weights(bs, -0.25, -5.0, w, 5, &err), &err);
    assert_close(w[3], 0.25);
    assert_close(w[0], 0.75);
    cna_blend_space_free(bs);
    cna_model_free(m);
}

/* A grid of 3 x 3 samples, four on every cell's circle: every point still
 * lies in one triangle of two cells' corners, the weights barycentric
 * there (checked by sum and by reproducing the point). */
static void test_2d_cocircular_grid(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    cna_blend_sample s[9];
    for (int i = 0; i < 9; i++) {
        s[i].animation = i % 5;
        s[i].x = i % 3;
        s[i].y = i / 3;
    }
    cna_blend_space *bs = NULL;
    cna_error err;
    ok(cna_blend_space_create(m, 2, s, 9, &bs, &err), &err);
    double w[9];
    for (int n = 0; n < 5000; n++) {
        const double q[2] = {uniform(0.0, 2.0), uniform(0.0, 2.0)};
        ok(cna_blend_space_weights(bs, q[0], q[1], w, 9, &err), &err);
        check_sum(w, 9);
        double px = 0.0, py = 0.0;
        int nonzero = 0;
        for (int i = 0; i < 9; i++) {
            px += w[i] * s[i].x;
            py += w[i] * s[i].y;
            nonzero += w[i] != 0.0;
            /* only the corners of q's cell */
            if (w[i] != 0.0) assert_true(fabs(s[i].x - q[0]) <= 1.0 && fabs(s[i].y - q[1]) <= 1.0);
        }
        assert_true(nonzero <= 3);
        assert_close(px, q[0]);
        assert_close(py, q[1]);
    }
    for (size_t k = 0; k < 9; k++) {
        ok(cna_blend_space_weights(bs, s[k].x, s[k].y, w, 9, &err), &err);
        for (size_t i = 0; i < 9; i++) assert_true(w[i] == (i == k ? 1.0 : 0.0));
    }
    cna_blend_space_free(bs);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ errors */

static void expect(cna_result r, const cna_error *err, const char *message)
{
    assert_int_equal(r, CNA_ERROR_INVALID_ARGUMENT);
    if (strcmp(err->message, message) != 0) print_error("got \"%s\"\nwant \"%s\"\n", err->message, message);
    assert_string_equal(err->message, message);
}

static void test_errors(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    cna_error err;
    cna_blend_space *bs = (cna_blend_space *)(uintptr_t)0x1; /* untouched on error */
    const cna_blend_sample ok3[3] = {{0, 0.0, 0.0}, {1, 1.0, 0.0}, {2, 0.0, 1.0}};
    expect(cna_blend_space_create(NULL, 1, ok3, 3, &bs, &err), &err, "blend space: model is NULL");
    expect(cna_blend_space_create(m, 1, NULL, 3, &bs, &err), &err, "blend space: samples is NULL");
    expect(cna_blend_space_create(m, 1, ok3, 3, NULL, &err), &err, "blend space: out is NULL");
    expect(cna_blend_space_create(m, 3, ok3, 3, &bs, &err), &err, "blend space: dimensions 3 is not 1 or 2");
    expect(cna_blend_space_create(m, 0, ok3, 3, &bs, &err), &err, "blend space: dimensions 0 is not 1 or 2");
    expect(cna_blend_space_create(m, 1, ok3, 0, &bs, &err), &err, "blend space: 0 samples; a 1D space needs at least 2");
    expect(cna_blend_space_create(m, 1, ok3, 1, &bs, &err), &err, "blend space: 1 sample; a 1D space needs at least 2");
    expect(cna_blend_space_create(m, 2, ok3, 2, &bs, &err), &err, "blend space: 2 samples; a 2D space needs at least 3");
    cna_blend_sample many[65];
    for (int i = 0; i < 65; i++) {
        many[i].animation = 0;
        many[i].x = i % 9;
        many[i].y = i / 9;
    }
    expect(cna_blend_space_create(m, 2, many, 65, &bs, &err), &err, "blend space: 65 samples; a 2D space has at most 64");
    char message[128];
    cna_blend_sample bad[3] = {{0, 0.0, 0.0}, {1, 1.0, 0.0}, {2, 0.0, 1.0}};
    bad[2].animation = (long)m->animation_count;
    snprintf(message, sizeof message, "samples[2]: animation %zu is outside 0..%zu", m->animation_count,
             m->animation_count - 1);
    expect(cna_blend_space_create(m, 2, bad, 3, &bs, &err), &err, message);
    bad[2].animation = -1;
    snprintf(message, sizeof message, "samples[2]: animation -1 is outside 0..%zu", m->animation_count - 1);
    expect(cna_blend_space_create(m, 2, bad, 3, &bs, &err), &err, message);
    bad[2].animation = 2;
    bad[1].x = NAN;
    expect(cna_blend_space_create(m, 2, bad, 3, &bs, &err), &err, "samples[1]: x nan is not finite");
    bad[1].x = 1.0;
    bad[1].y = -INFINITY;
    expect(cna_blend_space_create(m, 2, bad, 3, &bs, &err), &err, "samples[1]: y -inf is not finite");
    bad[1].y = 0.0;
    bad[2].x = 0.0;
    bad[2].y = 0.0;
    expect(cna_blend_space_create(m, 2, bad, 3, &bs, &err), &err, "samples[0] and samples[2] are both at (0, 0)");
    bad[2].y = 0.25; /* 1D: y is ignored */
    expect(cna_blend_space_create(m, 1, bad, 3, &bs, &err), &err, "samples[0] and samples[2] are both at x 0");
    const cna_blend_sample line[4] = {{0, 0.0, 0.0}, {1, 1.0, 2.0}, {2, 2.0, 4.0}, {3, -0.5, -1.0}};
    expect(cna_blend_space_create(m, 2, line, 4, &bs, &err), &err,
           "blend space: the 4 samples lie on one line; a 2D space needs samples that span an area");
    assert_true(bs == (cna_blend_space *)(uintptr_t)0x1);

    ok(cna_blend_space_create(m, 2, ok3, 3, &bs, &err), &err);
    double w[3] = {7.0, 7.0, 7.0};
    expect(cna_blend_space_weights(NULL, 0.0, 0.0, w, 3, &err), &err, "blend space: space is NULL");
    expect(cna_blend_space_weights(bs, 0.0, 0.0, NULL, 3, &err), &err, "blend space: weights is NULL");
    expect(cna_blend_space_weights(bs, 0.0, 0.0, w, 2, &err), &err,
           "blend space: weights count 2 differs from the sample count 3");
    expect(cna_blend_space_weights(bs, INFINITY, 0.0, w, 3, &err), &err, "blend space: x inf is not finite");
    expect(cna_blend_space_weights(bs, 0.0, NAN, w, 3, &err), &err, "blend space: y nan is not finite");
    assert_true(w[0] == 7.0 && w[1] == 7.0 && w[2] == 7.0);
    cna_blend_space_free(bs);
    cna_blend_space_free(NULL);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ the model's allocator */

static size_t live_blocks, allocations, fail_at; /* fail_at: the allocation to refuse (1-based), 0: none */

static void *counting_alloc(void *user, size_t size)
{
    (void)user;
    if (++allocations == fail_at) return NULL;
    void *p = malloc(size);
    if (p) live_blocks++;
    return p;
}

static void counting_free(void *user, void *p)
{
    (void)user;
    if (p) live_blocks--;
    free(p);
}

/* 1D, 2D and marker-synced spaces of a robot loaded with counting hooks:
 * each allocates through them (and nothing is left once freed, whether the
 * model is freed before or after), and refusing any one of its allocations
 * gives CNA_ERROR_OUT_OF_MEMORY, no space, and every block given back. */
static void test_the_model_allocator_is_used(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, ROBOT);
    cna_import_options io;
    memset(&io, 0, sizeof io);
    io.allocator.alloc = counting_alloc;
    io.allocator.free = counting_free;
    cna_model *m = NULL;
    cna_error err;
    ok(cna_model_load_file(path, &io, &m, &err), &err);
    size_t idle = 0, walk = 0, run = 0, dance = 0;
    ok(cna_model_find_animation(m, "Robot_Idle", &idle, &err), &err);
    ok(cna_model_find_animation(m, "Robot_Walking", &walk, &err), &err);
    ok(cna_model_find_animation(m, "Robot_Running", &run, &err), &err);
    ok(cna_model_find_animation(m, "Robot_Dance", &dance, &err), &err);
    ok(cna_model_add_marker(m, walk, "step", 0.3, &err), &err);
    ok(cna_model_add_marker(m, run, "step", 0.25, &err), &err);
    const cna_blend_sample line[3] = {{(long)idle, 0.0, 0.0}, {(long)walk, 1.5, 0.0}, {(long)run, 4.0, 0.0}};
    const cna_blend_sample plane[4] = {
        {(long)idle, 0.0, 0.0}, {(long)walk, 0.0, 1.0}, {(long)run, 0.0, 2.0}, {(long)dance, 1.0, 0.0}};
    const cna_blend_sample synced[2] = {{(long)walk, 1.5, 0.0}, {(long)run, 4.0, 0.0}};
    const char *const step[1] = {"step"};
    for (int kind = 0; kind < 3; kind++) {
        const size_t base = live_blocks;
        /* the allocations one space makes */
        const size_t before = allocations;
        cna_blend_space *bs = NULL;
        if (kind == 0) ok(cna_blend_space_create(m, 1, line, 3, &bs, &err), &err);
        if (kind == 1) ok(cna_blend_space_create(m, 2, plane, 4, &bs, &err), &err);
        if (kind == 2) ok(cna_blend_space_create_synced(m, 1, synced, 2, step, 1, &bs, &err), &err);
        const size_t made = allocations - before;
        assert_true(made >= (kind == 1 ? 6u : 4u)); /* the space, its samples, durations, order, ... */
        assert_true(live_blocks > base);
        cna_blend_space_free(bs);
        assert_int_equal(live_blocks, base);
        for (size_t k = 1; k <= made; k++) {
            fail_at = allocations + k;
            bs = (cna_blend_space *)(uintptr_t)0x1;
            cna_result r = CNA_OK;
            if (kind == 0) r = cna_blend_space_create(m, 1, line, 3, &bs, &err);
            if (kind == 1) r = cna_blend_space_create(m, 2, plane, 4, &bs, &err);
            if (kind == 2) r = cna_blend_space_create_synced(m, 1, synced, 2, step, 1, &bs, &err);
            fail_at = 0;
            if (r != CNA_ERROR_OUT_OF_MEMORY) print_error("kind %d, allocation %zu of %zu: %s\n", kind, k, made,
                                                          cna_result_name(r));
            assert_int_equal(r, CNA_ERROR_OUT_OF_MEMORY);
            assert_true(bs == (cna_blend_space *)(uintptr_t)0x1);
            assert_int_equal(live_blocks, base);
        }
    }
    /* a space may outlive its model: it keeps the hooks, not the model's memory */
    cna_blend_space *bs = NULL;
    ok(cna_blend_space_create(m, 2, plane, 4, &bs, &err), &err);
    cna_model_free(m);
    assert_true(live_blocks > 0);
    cna_blend_space_free(bs);
    assert_int_equal(live_blocks, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_1d_weights),
        cmocka_unit_test(test_2d_square_with_centre),
        cmocka_unit_test(test_2d_locomotion),
        cmocka_unit_test(test_2d_cocircular_grid),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_the_model_allocator_is_used),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
