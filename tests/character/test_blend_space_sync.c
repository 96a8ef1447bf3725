/*
 * Blend spaces kept in step by sync markers (cna_blend_space_create_synced):
 * the robot's walk and run get foot-down markers where each foot comes down
 * (found in the test from the feet's heights); a 1D walk/run space at
 * random speeds keeps the two clips' foot-downs in the same frame over 10^5
 * frames (and a normalised phase does not); each sync point is reported
 * once per crossing, as a brute-force walk over the phases says; errors.
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

#define ROBOT CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb"

static const char *const SYNC[2] = {"foot_down_l", "foot_down_r"};

static void ok(cna_result r, const cna_error *err)
{
    if (r != CNA_OK) print_error("%s\n", err->message);
    assert_int_equal(r, CNA_OK);
}

static long anim(const cna_model *m, const char *name)
{
    size_t a = 0;
    cna_error err;
    ok(cna_model_find_animation(m, name, &a, &err), &err);
    return (long)a;
}

/* Where foot `bone` comes down in animation a: the first of 480 steps at
 * which its height is within 1 % of its range above its lowest, after a
 * step above that. */
static double foot_down(const cna_model *m, long a, int32_t bone)
{
    cna_error err;
    cna_character *c = NULL;
    ok(cna_character_create(m, NULL, &c, &err), &err);
    ok(cna_character_play(c, a, &err), &err);
    const double d = cna_ticks_to_seconds(cna_character_duration(c));
    enum { N = 480 };
    double y[N], lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < N; i++) {
        ok(cna_character_seek(c, d * i / N, &err), &err);
        ok(cna_character_pose(c, &err), &err);
        y[i] = cna_character_absolute_transform(c, (size_t)bone)->m[13];
        if (y[i] < lo) lo = y[i];
        if (y[i] > hi) hi = y[i];
    }
    cna_character_free(c);
    const double near = lo + 0.01 * (hi - lo);
    for (int i = 0; i < N; i++)
        if (y[i] <= near && y[(i + N - 1) % N] > near) return d * i / N;
    fail_msg("animation %ld: the foot never comes down", a);
    return 0.0;
}

/* The robot with foot-down markers on its walk and run. */
static cna_model *robot(void)
{
    cna_model *m = NULL;
    cna_error err;
    ok(cna_model_load_file(ROBOT, NULL, &m, &err), &err);
    const int32_t left = cna_model_find_bone(m, "Foot.L"), right = cna_model_find_bone(m, "Foot.R");
    assert_true(left >= 0 && right >= 0);
    const long clips[2] = {anim(m, "Robot_Walking"), anim(m, "Robot_Running")};
    for (int k = 0; k < 2; k++) {
        ok(cna_model_add_marker(m, (size_t)clips[k], SYNC[0], foot_down(m, clips[k], left), &err), &err);
        ok(cna_model_add_marker(m, (size_t)clips[k], SYNC[1], foot_down(m, clips[k], right), &err), &err);
    }
    return m;
}

static int64_t marker_at(const cna_model *m, long a, const char *name)
{
    size_t n = 0;
    const cna_marker *mk = cna_model_markers(m, (size_t)a, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(mk[i].name, name) == 0) return mk[i].ticks;
    fail_msg("no marker %s", name);
    return -1;
}

/* Whether a clock moving forward less than a loop from p to q crosses m
 * (arrives at m or passes it). */
static bool crosses(int64_t p, int64_t q, int64_t m)
{
    if (p == q) return false;
    if (q > p) return m > p && m <= q;
    return m > p || m <= q; /* wrapped: (p, end) then [0, q] */
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The largest gap in frames between the walk's and the run's crossings of
 * foot_down_l, over `frames` frames at random speeds (each held 1 to 120
 * frames); *crossings counts the walk's. */
static int64_t largest_gap(const cna_model *m, const cna_blend_space *space, long frames, size_t *crossings)
{
    cna_error err;
    cna_character *c = NULL;
    ok(cna_character_create(m, NULL, &c, &err), &err);
    ok(cna_character_layer_play_blend_space(c, 0, space, 1.5, 0.0, &err), &err);
    const long walk = anim(m, "Robot_Walking"), run = anim(m, "Robot_Running");
    const int64_t mw = marker_at(m, walk, SYNC[0]), mr = marker_at(m, run, SYNC[0]);
    uint64_t rng = 0x1234567u;
    long hold = 0;
    int64_t last_w = -1000000, last_r = -1000000, gap = 0;
    int64_t pw = cna_character_layer_sample_position(c, 0, 0), pr = cna_character_layer_sample_position(c, 0, 1);
    *crossings = 0;
    for (long f = 1; f <= frames; f++) {
        if (--hold <= 0) {
            hold = 1 + (long)(next_random(&rng) % 120);
            const double speed = 1.5 + 2.5 * (double)(next_random(&rng) % 1001) / 1000.0;
            ok(cna_character_layer_set_blend_parameters(c, 0, speed, 0.0, &err), &err);
        }
        ok(cna_character_advance(c, 1.0 / 60, &err), &err);
        const int64_t qw = cna_character_layer_sample_position(c, 0, 0), qr = cna_character_layer_sample_position(c, 0, 1);
        if (crosses(pw, qw, mw)) {
            last_w = f;
            (*crossings)++;
        }
        if (crosses(pr, qr, mr)) last_r = f;
        /* a crossing of one with no crossing of the other within a frame */
        if (last_w == f || last_r == f) {
            const int64_t g = last_w > last_r ? last_w - last_r : last_r - last_w;
            if (g > gap && last_w > 0 && last_r > 0) gap = g;
        }
        pw = qw;
        pr = qr;
    }
    cna_character_free(c);
    return gap;
}

/* Over 10^5 frames at random speeds the walk's and the run's foot-downs come
 * in the same frame; without sync markers they drift apart. */
static void test_foot_downs_stay_within_a_frame(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = robot();
    const cna_blend_sample s[2] = {{anim(m, "Robot_Walking"), 1.5, 0.0}, {anim(m, "Robot_Running"), 4.0, 0.0}};
    cna_blend_space *synced = NULL, *phase = NULL;
    ok(cna_blend_space_create_synced(m, 1, s, 2, SYNC, 2, &synced, &err), &err);
    ok(cna_blend_space_create(m, 1, s, 2, &phase, &err), &err);
    assert_int_equal(cna_blend_space_sync_count(synced), 2);
    assert_int_equal(cna_blend_space_sync_count(phase), 0);
    size_t n = 0;
    const int64_t gap = largest_gap(m, synced, 100000, &n);
    print_message("synced: %zu foot-downs, largest gap %lld frames\n", n, (long long)gap);
    assert_true(n > 1500); /* about one a second */
    assert_true(gap <= 1);
    const int64_t drift = largest_gap(m, phase, 20000, &n);
    print_message("normalised phase: largest gap %lld frames\n", (long long)drift);
    assert_true(drift > 1);
    cna_blend_space_free(synced);
    cna_blend_space_free(phase);
    cna_model_free(m);
}

typedef struct recorded {
    const char *name[64];
    float weight[64];
    size_t count;
} recorded;

static void record(const cna_event *e, void *user)
{
    recorded *r = (recorded *)user;
    if (e->kind != CNA_EVENT_MARKER) return;
    if (r->count < 64) {
        r->name[r->count] = e->name;
        r->weight[r->count] = e->weight;
    }
    r->count++;
}

/* Each sync point is reported once per crossing: in every advance, the
 * events are the points the phase passed (ψ = φ·2 from before to after, a
 * step shorter than a cycle), in order, named as the points, with the
 * layer's weight; the walk's and the run's own markers at those points are
 * not reported again. */
static void test_sync_points_report_once(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = robot();
    const cna_blend_sample s[2] = {{anim(m, "Robot_Walking"), 1.5, 0.0}, {anim(m, "Robot_Running"), 4.0, 0.0}};
    cna_blend_space *space = NULL;
    ok(cna_blend_space_create_synced(m, 1, s, 2, SYNC, 2, &space, &err), &err);
    cna_character *c = NULL;
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = 2;
    ok(cna_character_create(m, &o, &c, &err), &err);
    ok(cna_character_layer_play_blend_space(c, 1, space, 2.0, 0.0, &err), &err);
    ok(cna_character_layer_set_weight(c, 1, 0.75f, &err), &err);
    recorded r;
    ok(cna_character_set_event_listener(c, record, &r, &err), &err);
    uint64_t rng = 0x9876543u;
    size_t total = 0;
    /* the names of the points in ψ order: walk's foot_down_l comes first */
    const char *point[2] = {SYNC[0], SYNC[1]};
    if (marker_at(m, s[0].animation, SYNC[1]) < marker_at(m, s[0].animation, SYNC[0])) {
        point[0] = SYNC[1];
        point[1] = SYNC[0];
    }
    for (int f = 0; f < 20000; f++) {
        if (f % 37 == 0)
            ok(cna_character_layer_set_blend_parameters(c, 1, 1.5 + 2.5 * (double)(next_random(&rng) % 101) / 100.0,
                                                        0.0, &err),
               &err);
        const double before = cna_character_layer_phase(c, 1) * 2.0;
        const double dt = (double)(1 + next_random(&rng) % 40) / 240.0; /* up to 1/6 s: less than a cycle */
        r.count = 0;
        ok(cna_character_advance(c, dt, &err), &err);
        double after = cna_character_layer_phase(c, 1) * 2.0;
        if (after < before) after += 2.0;
        /* brute force: every integer in (before, after] */
        const char *expect[8];
        size_t n = 0;
        for (double k = floor(before) + 1.0; k <= after && n < 8; k += 1.0) expect[n++] = point[(size_t)k % 2];
        assert_int_equal(r.count, n);
        for (size_t i = 0; i < n; i++) {
            assert_string_equal(r.name[i], expect[i]);
            assert_true(r.weight[i] == 0.75f);
        }
        total += n;
    }
    print_message("%zu sync points reported\n", total);
    assert_true(total > 1000);
    cna_character_free(c);
    cna_blend_space_free(space);
    cna_model_free(m);
}

static void expect_error(cna_result r, const cna_error *err, const char *message)
{
    assert_int_equal(r, CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err->message, message);
}

static void test_sync_errors(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = robot();
    const long walk = anim(m, "Robot_Walking"), run = anim(m, "Robot_Running"), idle = anim(m, "Robot_Idle");
    cna_blend_space *space = NULL;
    const cna_blend_sample ok_s[2] = {{walk, 1.5, 0.0}, {run, 4.0, 0.0}};
    expect_error(cna_blend_space_create_synced(m, 1, ok_s, 2, NULL, 0, &space, &err), &err,
                 "blend space: no sync marker names");
    const char *const empty[2] = {"foot_down_l", ""};
    expect_error(cna_blend_space_create_synced(m, 1, ok_s, 2, empty, 2, &space, &err), &err,
                 "blend space: sync marker name 1 is empty");
    const cna_blend_sample with_idle[3] = {{idle, 0.0, 0.0}, {walk, 1.5, 0.0}, {run, 4.0, 0.0}};
    char msg[256];
    snprintf(msg, sizeof msg, "samples[0]: animation %ld has no sync marker (none named \"foot_down_l\" or another sync name)",
             idle);
    expect_error(cna_blend_space_create_synced(m, 1, with_idle, 3, SYNC, 2, &space, &err), &err, msg);
    const char *const left[1] = {"foot_down_l"};
    /* the left foot only: one point per cycle, fine */
    ok(cna_blend_space_create_synced(m, 1, ok_s, 2, left, 1, &space, &err), &err);
    assert_int_equal(cna_blend_space_sync_count(space), 1);
    cna_blend_space_free(space);
    space = NULL;
    /* a third foot-down on the run: another count */
    ok(cna_model_add_marker(m, (size_t)run, "foot_down_l", 0.0, &err), &err);
    snprintf(msg, sizeof msg, "samples[1]: animation %ld has 3 sync markers, samples[0] has 2", run);
    expect_error(cna_blend_space_create_synced(m, 1, ok_s, 2, SYNC, 2, &space, &err), &err, msg);
    assert_null(space);
    cna_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_foot_downs_stay_within_a_frame),
        cmocka_unit_test(test_sync_points_report_once),
        cmocka_unit_test(test_sync_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
