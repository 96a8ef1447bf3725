/*
 * A layer that plays a blend space (include/cna/blend_space.h), on the
 * robot (Robot_Idle, Robot_Walking, Robot_Running by speed; a 2D space of
 * five clips): at a sample's own coordinates the pose is bit for bit that
 * of the sample's clip alone on the layer at the same position (layer 0
 * and layer 1); between samples, bit for bit the stack of one layer per
 * sample of weight layer weight × sample weight; the phase moves by
 * ticks / D with D = Σ w_i·D_i and each clip is sampled at floor(φ·D_i);
 * markers per sample with their weights, LOOPED per wrap; nothing is
 * allocated while changing the parameters, advancing or posing; errors
 * are exact.
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
#include "same_pose.h"

#define ROBOT "corpus/valid/RobotExpressive/robot.glb"

static void ok(cna_result r, const cna_error *err)
{
    if (r != CNA_OK) print_error("%s\n", err->message);
    assert_int_equal(r, CNA_OK);
}

static cna_model *load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    cna_model *m = NULL;
    cna_error err;
    ok(cna_model_load_file(path, NULL, &m, &err), &err);
    return m;
}

static size_t allocations;

static void *count_alloc(void *user, size_t size)
{
    (void)user;
    allocations++;
    return malloc(size);
}

static void count_free(void *user, void *p)
{
    (void)user;
    free(p);
}

static cna_character *make(const cna_model *m, size_t layers)
{
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = layers;
    o.allocator.alloc = count_alloc;
    o.allocator.free = count_free;
    cna_character *c = NULL;
    cna_error err;
    ok(cna_character_create(m, &o, &c, &err), &err);
    return c;
}

static long anim(const cna_model *m, const char *name)
{
    size_t a = 0;
    cna_error err;
    ok(cna_model_find_animation(m, name, &a, &err), &err);
    return (long)a;
}

static cna_blend_space *speed_space(const cna_model *m, cna_blend_sample s[3])
{
    s[0] = (cna_blend_sample){anim(m, "Robot_Idle"), 0.0, 0.0};
    s[1] = (cna_blend_sample){anim(m, "Robot_Walking"), 1.5, 0.0};
    s[2] = (cna_blend_sample){anim(m, "Robot_Running"), 4.0, 0.0};
    cna_blend_space *bs = NULL;
    cna_error err;
    ok(cna_blend_space_create(m, 1, s, 3, &bs, &err), &err);
    return bs;
}

/* idle at the centre, walking ahead, running further, and two sideways clips */
static cna_blend_space *plane_space(const cna_model *m, cna_blend_sample s[5])
{
    s[0] = (cna_blend_sample){anim(m, "Robot_Idle"), 0.0, 0.0};
    s[1] = (cna_blend_sample){anim(m, "Robot_Walking"), 0.0, 1.0};
    s[2] = (cna_blend_sample){anim(m, "Robot_Running"), 0.0, 2.0};
    s[3] = (cna_blend_sample){anim(m, "Robot_Dance"), -1.0, 0.0};
    s[4] = (cna_blend_sample){anim(m, "Robot_Wave"), 1.0, 0.0};
    cna_blend_space *bs = NULL;
    cna_error err;
    ok(cna_blend_space_create(m, 2, s, 5, &bs, &err), &err);
    return bs;
}

static const double STEPS[] = {0.0, 1.0 / 60.0, 0.25, 1.0 / 3.0, 0.7, 2.5, 1e-4};
#define STEP_COUNT (sizeof STEPS / sizeof STEPS[0])

/* ------------------------------------------------------------------ one sample = its clip */

/* At each sample's coordinates, on layer `layer` (weight w, layer 0 playing
 * Robot_Yes below it when layer is 1), the pose equals the sample's clip
 * played alone on that layer at the sample's position, bit for bit. */
static void check_single_under(const cna_model *m, const cna_blend_space *bs, size_t layer, float w, long yes)
{
    cna_error err;
    const size_t n = cna_blend_space_sample_count(bs);
    const cna_blend_sample *s = cna_blend_space_samples(bs);
    for (size_t k = 0; k < n; k++) {
        cna_character *a = make(m, 2), *b = make(m, 2);
        if (layer == 1) {
            ok(cna_character_play(a, yes, &err), &err);
            ok(cna_character_play(b, yes, &err), &err);
        }
        ok(cna_character_layer_set_weight(a, layer, w, &err), &err);
        ok(cna_character_layer_set_weight(b, layer, w, &err), &err);
        ok(cna_character_layer_play_blend_space(a, layer, bs, s[k].x, s[k].y, &err), &err);
        ok(cna_character_layer_play(b, layer, s[k].animation, &err), &err);
        assert_int_equal(cna_character_layer_animation(a, layer), s[k].animation);
        for (size_t i = 0; i < n; i++) assert_true(cna_character_layer_sample_weight(a, layer, i) == (i == k));
        for (size_t t = 0; t < STEP_COUNT; t++) {
            ok(cna_character_advance(a, STEPS[t], &err), &err);
            ok(cna_character_advance(b, STEPS[t], &err), &err);
            const int64_t at = cna_character_layer_sample_position(a, layer, k);
            ok(cna_character_layer_seek_ticks(b, layer, at, &err), &err);
            assert_int_equal(cna_character_layer_position(b, layer), at);
            ok(cna_character_pose(a, &err), &err);
            ok(cna_character_pose(b, &err), &err);
            assert_same_pose(a, b);
        }
        cna_character_free(a);
        cna_character_free(b);
    }
}

static void check_single(const cna_model *m, const cna_blend_space *bs, size_t layer, float w)
{
    check_single_under(m, bs, layer, w, anim(m, "Robot_Yes"));
}

static void test_a_sample_poses_as_its_clip_1d(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    cna_blend_sample s[3];
    cna_blend_space *bs = speed_space(m, s);
    check_single(m, bs, 1, 1.0f);
    check_single(m, bs, 1, 0.625f);
    check_single(m, bs, 0, 1.0f);
    check_single(m, bs, 0, 0.5f);
    cna_blend_space_free(bs);
    cna_model_free(m);
}

static void test_a_sample_poses_as_its_clip_2d(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    cna_blend_sample s[5];
    cna_blend_space *bs = plane_space(m, s);
    check_single(m, bs, 1, 0.75f);
    check_single(m, bs, 0, 1.0f);
    cna_blend_space_free(bs);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ between samples = a stack of layers */

/* A blend space on layer 1 (weight W) over Robot_Yes on layer 0 poses as
 * layers 1.. playing each sample of weight w_i > 0 at weight W·w_i (in
 * sample order) at its position, bit for bit; with a mask too, and
 * additive (each with the same reference). */
static void check_stack_under(const cna_model *m, const cna_blend_space *bs, const double (*points)[2], size_t count,
                              bool masked, bool additive, long yes)
{
    cna_error err;
    const size_t n = cna_blend_space_sample_count(bs);
    const cna_blend_sample *s = cna_blend_space_samples(bs);
    const float W = 0.875f;
    float *mask = (float *)malloc(m->bone_count * sizeof(float));
    for (size_t i = 0; i < m->bone_count; i++) mask[i] = (float)(i % 4) / 3.0f;
    for (size_t p = 0; p < count; p++) {
        cna_character *a = make(m, 2), *b = make(m, 4);
        ok(cna_character_play(a, yes, &err), &err);
        ok(cna_character_play(b, yes, &err), &err);
        ok(cna_character_layer_set_weight(a, 1, W, &err), &err);
        ok(cna_character_layer_play_blend_space(a, 1, bs, points[p][0], points[p][1], &err), &err);
        if (masked) ok(cna_character_layer_set_mask(a, 1, mask, m->bone_count, &err), &err);
        if (additive) {
            ok(cna_character_layer_set_blend_mode(a, 1, CNA_BLEND_MODE_ADDITIVE, &err), &err);
            ok(cna_character_layer_set_additive_reference(a, 1, s[0].animation, 0.3, &err), &err);
        }
        size_t used = 0;
        long top = -1;
        double best = -1.0;
        for (size_t i = 0; i < n; i++) {
            const double w = cna_character_layer_sample_weight(a, 1, i);
            if (w > best) {
                best = w;
                top = s[i].animation;
            }
            if (!(w > 0.0)) continue;
            used++;
            ok(cna_character_layer_play(b, used, s[i].animation, &err), &err);
            ok(cna_character_layer_set_weight(b, used, (float)((double)W * w), &err), &err);
            if (masked) ok(cna_character_layer_set_mask(b, used, mask, m->bone_count, &err), &err);
            if (additive) {
                ok(cna_character_layer_set_blend_mode(b, used, CNA_BLEND_MODE_ADDITIVE, &err), &err);
                ok(cna_character_layer_set_additive_reference(b, used, s[0].animation, 0.3, &err), &err);
            }
        }
        assert_true(used >= 2 && used <= 3);
        assert_int_equal(cna_character_layer_animation(a, 1), top);
        for (size_t t = 0; t < STEP_COUNT; t++) {
            ok(cna_character_advance(a, STEPS[t], &err), &err);
            ok(cna_character_advance(b, STEPS[t], &err), &err);
            size_t l = 0;
            for (size_t i = 0; i < n; i++)
                if (cna_character_layer_sample_weight(a, 1, i) > 0.0)
                    ok(cna_character_layer_seek_ticks(b, ++l, cna_character_layer_sample_position(a, 1, i), &err),
                       &err);
            ok(cna_character_pose(a, &err), &err);
            ok(cna_character_pose(b, &err), &err);
            assert_same_pose(a, b);
        }
        cna_character_free(a);
        cna_character_free(b);
    }
    free(mask);
}

static void check_stack(const cna_model *m, const cna_blend_space *bs, const double (*points)[2], size_t count,
                        bool masked)
{
    check_stack_under(m, bs, points, count, masked, false, anim(m, "Robot_Yes"));
}

static void test_between_samples_is_a_stack_of_layers(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    cna_blend_sample s1[3], s2[5];
    cna_blend_space *speed = speed_space(m, s1), *plane = plane_space(m, s2);
    const double line[][2] = {{0.3, 0.0}, {1.0, 0.0}, {2.75, 0.0}, {3.999, 0.0}};
    const double flat[][2] = {{0.2, 0.3}, {-0.3, 0.5}, {0.1, 1.6}, {-0.4, 1.2}, {0.25, -3.0}, {2.0, 1.0}};
    check_stack(m, speed, line, 4, false);
    check_stack(m, plane, flat, 6, false);
    check_stack(m, plane, flat, 3, true);
    check_stack_under(m, plane, flat, 6, false, true, anim(m, "Robot_Yes")); /* additive */
    check_stack_under(m, speed, line, 4, true, true, anim(m, "Robot_Yes"));
    cna_blend_space_free(speed);
    cna_blend_space_free(plane);
    cna_model_free(m);
}

/* Other models of several animations (scene-node clips, morph weight
 * tracks, several skins): a 1D space over their first animations. */
static void test_other_models(void **state)
{
    (void)state;
    static const char *const models[] = {
        "corpus/valid/MorphStressTest/MorphStressTest.gltf",
        "corpus/valid/InterpolationTest/interpolation_test.gltf",
        "fixtures/skin-two-instances.gltf",
        "fixtures/skin-animated-ancestor.gltf",
    };
    size_t tried = 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        cna_model *m = load(models[i]);
        if (m->animation_count < 2) {
            cna_model_free(m);
            continue;
        }
        tried++;
        const size_t n = m->animation_count < 3 ? m->animation_count : 3;
        cna_blend_sample s[3];
        for (size_t k = 0; k < n; k++) s[k] = (cna_blend_sample){(long)(n - 1 - k), (double)k, 0.0};
        cna_blend_space *bs = NULL;
        cna_error err;
        ok(cna_blend_space_create(m, 1, s, n, &bs, &err), &err);
        check_single_under(m, bs, 1, 0.75f, 0);
        check_single_under(m, bs, 0, 1.0f, 0);
        const double points[][2] = {{0.5, 0.0}, {0.25 + (double)(n - 2), 0.0}};
        check_stack_under(m, bs, points, 2, false, false, 0);
        check_stack_under(m, bs, points, 2, false, true, 0);
        cna_blend_space_free(bs);
        cna_model_free(m);
    }
    assert_true(tried >= 2);
}

/* ------------------------------------------------------------------ the phase */

static void test_phase_moves_by_ticks_over_d(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    cna_blend_sample s[5];
    cna_blend_space *bs = plane_space(m, s);
    cna_error err;
    cna_character *c = make(m, 2);
    ok(cna_character_layer_set_weight(c, 1, 1.0f, &err), &err);
    ok(cna_character_layer_set_time_scale(c, 1, 1.25, &err), &err);
    const double params[][2] = {{0.2, 0.3}, {0.2, 0.3}, {-0.5, 1.5}, {0.0, 1.0}, {3.0, -1.0}, {0.1, 0.1}};
    ok(cna_character_layer_play_blend_space(c, 1, bs, params[0][0], params[0][1], &err), &err);
    double phase = 0.0;
    for (size_t round = 0; round < 60; round++) {
        const double *q = params[round % 6];
        ok(cna_character_layer_set_blend_parameters(c, 1, q[0], q[1], &err), &err);
        double w[5], D = 0.0;
        ok(cna_blend_space_weights(bs, q[0], q[1], w, 5, &err), &err);
        for (size_t i = 0; i < 5; i++) {
            assert_true(cna_character_layer_sample_weight(c, 1, i) == w[i]);
            if (w[i] > 0.0) D += w[i] * (double)m->node_clips[s[i].animation].duration;
        }
        assert_int_equal(cna_character_layer_duration(c, 1), llround(D));
        const double dt = STEPS[round % STEP_COUNT] + 0.01 * (double)round;
        ok(cna_character_advance(c, dt, &err), &err);
        const int64_t ticks = cna_ticks_from_seconds(dt * 1.25);
        double p = phase + (double)ticks / D;
        p -= floor(p);
        phase = p >= 1.0 ? 0.0 : p;
        assert_true(cna_character_layer_phase(c, 1) == phase);
        for (size_t i = 0; i < 5; i++) {
            const int64_t d = m->node_clips[s[i].animation].duration;
            int64_t want = (int64_t)floor(phase * (double)d);
            if (want >= d) want = d - 1;
            assert_int_equal(cna_character_layer_sample_position(c, 1, i), want);
        }
        assert_int_equal(cna_character_layer_position(c, 1), (int64_t)floor(phase * (double)llround(D)));
    }
    /* a seek sets the phase: ticks / D folded */
    ok(cna_character_layer_set_blend_parameters(c, 1, 0.0, 1.0, &err), &err); /* Walking alone */
    const int64_t dw = m->node_clips[s[1].animation].duration;
    ok(cna_character_layer_seek_ticks(c, 1, dw + dw / 4, &err), &err);
    assert_true(cna_character_layer_phase(c, 1) == (double)(dw + dw / 4) / (double)dw - 1.0);
    /* a play replaces the space */
    ok(cna_character_layer_play(c, 1, s[2].animation, &err), &err);
    assert_null(cna_character_layer_blend_space(c, 1));
    assert_true(cna_character_layer_phase(c, 1) == 0.0);
    assert_true(cna_character_layer_sample_weight(c, 1, 0) == 0.0);
    cna_character_free(c);
    cna_blend_space_free(bs);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ nothing allocated */

static void test_nothing_allocated_while_playing(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    cna_blend_sample s1[3], s2[5];
    cna_blend_space *speed = speed_space(m, s1), *plane = plane_space(m, s2);
    cna_error err;
    for (size_t layer = 0; layer < 2; layer++) {
        cna_character *c = make(m, 2);
        ok(cna_character_play(c, s1[0].animation, &err), &err);
        ok(cna_character_layer_play_blend_space(c, layer, plane, 0.2, 0.2, &err), &err);
        ok(cna_character_layer_play_blend_space(c, layer, speed, 1.0, 0.0, &err), &err); /* its state is kept */
        const size_t before = allocations;
        for (int f = 0; f < 200; f++) {
            ok(cna_character_layer_set_blend_parameters(c, layer, 0.05 * f - 2.0, 0.0, &err), &err);
            ok(cna_character_update(c, 1.0 / 30.0, &err), &err);
        }
        ok(cna_character_layer_play_blend_space(c, layer, plane, 0.0, 0.0, &err), &err);
        for (int f = 0; f < 200; f++) {
            ok(cna_character_layer_set_blend_parameters(c, layer, sin(0.1 * f), 1.0 + cos(0.07 * f), &err), &err);
            ok(cna_character_update(c, 1.0 / 30.0, &err), &err);
        }
        assert_int_equal(allocations, before);
        cna_character_free(c);
    }
    cna_blend_space_free(speed);
    cna_blend_space_free(plane);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ events */

typedef struct seen {
    cna_event e[64];
    size_t n;
} seen;

static void listen(const cna_event *e, void *user)
{
    seen *s = (seen *)user;
    if (s->n < 64) s->e[s->n++] = *e;
}

static void test_markers_per_sample_and_looped_per_wrap(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    cna_error err;
    const long idle = anim(m, "Robot_Idle"), walk = anim(m, "Robot_Walking"), run = anim(m, "Robot_Running");
    ok(cna_model_add_marker(m, (size_t)walk, "walk-step", 0.25, &err), &err);
    ok(cna_model_add_marker(m, (size_t)run, "run-step", 0.125, &err), &err);
    ok(cna_model_add_marker(m, (size_t)idle, "idle-mark", 0.5, &err), &err);
    cna_blend_sample s[3];
    cna_blend_space *bs = speed_space(m, s);
    cna_character *c = make(m, 2);
    seen got;
    memset(&got, 0, sizeof got);
    ok(cna_character_set_event_listener(c, listen, &got, &err), &err);
    ok(cna_character_layer_set_weight(c, 1, 0.5f, &err), &err);
    ok(cna_character_layer_play_blend_space(c, 1, bs, 3.0, 0.0, &err), &err); /* walk 0.4, run 0.6 */
    const double ww = cna_character_layer_sample_weight(c, 1, 1), wr = cna_character_layer_sample_weight(c, 1, 2);
    assert_true(fabs(ww - 0.4) < 1e-15 && fabs(wr - 0.6) < 1e-15);
    const int64_t Dw = m->node_clips[walk].duration, Dr = m->node_clips[run].duration;
    const double D = ww * (double)Dw + wr * (double)Dr;
    size_t mk = 0;
    const cna_marker *wm = cna_model_markers(m, (size_t)walk, &mk);
    const cna_marker *rm = cna_model_markers(m, (size_t)run, &mk);
    /* forward to just past both markers, in one step */
    int64_t step = 0;
    while (!((int64_t)floor(((double)step / D) * (double)Dw) >= wm[0].ticks &&
             (int64_t)floor(((double)step / D) * (double)Dr) >= rm[0].ticks))
        step += 10000;
    ok(cna_character_advance_ticks(c, step, &err), &err);
    /* layer 0 plays nothing; layer 1: walk's marker, then run's (sample order) */
    assert_int_equal(got.n, 2);
    assert_int_equal(got.e[0].kind, CNA_EVENT_MARKER);
    assert_int_equal(got.e[0].layer, 1);
    assert_int_equal(got.e[0].animation, walk);
    assert_string_equal(got.e[0].name, "walk-step");
    assert_true(got.e[0].weight == (float)(0.5 * ww));
    assert_int_equal(got.e[1].animation, run);
    assert_string_equal(got.e[1].name, "run-step");
    assert_true(got.e[1].weight == (float)(0.5 * wr));
    /* two whole loops more and a little: each marker twice, two LOOPED for running (the largest weight) */
    got.n = 0;
    ok(cna_character_advance_ticks(c, (int64_t)(2.0 * D) + 1000, &err), &err);
    size_t markers = 0, loops = 0;
    for (size_t i = 0; i < got.n; i++) {
        if (got.e[i].kind == CNA_EVENT_MARKER) {
            markers++;
            assert_int_equal(loops, 0); /* the markers first, then the wraps */
        } else {
            assert_int_equal(got.e[i].kind, CNA_EVENT_LOOPED);
            assert_int_equal(got.e[i].animation, run);
            assert_int_equal(got.e[i].ticks, Dr);
            assert_true(got.e[i].weight == 0.5f);
            loops++;
        }
    }
    assert_int_equal(markers, 4);
    assert_int_equal(loops, 2);
    /* at the idle sample: idle alone reports, with the layer's weight */
    ok(cna_character_layer_set_blend_parameters(c, 1, -1.0, 0.0, &err), &err);
    assert_int_equal(cna_character_layer_animation(c, 1), idle);
    got.n = 0;
    ok(cna_character_advance_ticks(c, m->node_clips[idle].duration, &err), &err);
    assert_int_equal(got.n, 2);
    assert_string_equal(got.e[0].name, "idle-mark");
    assert_true(got.e[0].weight == 0.5f);
    assert_int_equal(got.e[1].kind, CNA_EVENT_LOOPED);
    assert_int_equal(got.e[1].animation, idle);
    assert_int_equal(got.e[1].ticks, m->node_clips[idle].duration);
    /* backward: the same marker, and the wrap at 0 */
    ok(cna_character_layer_set_time_scale(c, 1, -1.0, &err), &err);
    got.n = 0;
    ok(cna_character_advance(c, cna_ticks_to_seconds(m->node_clips[idle].duration), &err), &err);
    assert_int_equal(got.n, 2);
    assert_string_equal(got.e[0].name, "idle-mark");
    assert_int_equal(got.e[1].kind, CNA_EVENT_LOOPED);
    assert_int_equal(got.e[1].ticks, 0);
    cna_character_free(c);
    cna_blend_space_free(bs);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ fades, crossfades, the listener */

typedef struct busy {
    cna_character *c;
    const cna_blend_space *bs;
    size_t calls;
    cna_result play, params;
    char message[512];
} busy;

static void meddle(const cna_event *e, void *user)
{
    (void)e;
    busy *b = (busy *)user;
    cna_error err;
    if (b->calls++ > 0) return;
    b->play = cna_character_layer_play_blend_space(b->c, 1, b->bs, 0.0, 0.0, &err);
    snprintf(b->message, sizeof b->message, "%s", err.message);
    b->params = cna_character_layer_set_blend_parameters(b->c, 1, 0.0, 0.0, NULL);
}

static void test_fades_crossfades_and_the_listener(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    cna_blend_sample s[3];
    cna_blend_space *bs = speed_space(m, s);
    cna_error err;
    cna_character *c = make(m, 2);
    /* a fade to 0 stops the layer: LAYER_STOPPED names the sample of largest weight */
    seen got;
    memset(&got, 0, sizeof got);
    ok(cna_character_set_event_listener(c, listen, &got, &err), &err);
    ok(cna_character_layer_play_blend_space(c, 1, bs, 3.5, 0.0, &err), &err); /* run 0.8 */
    ok(cna_character_layer_set_weight(c, 1, 1.0f, &err), &err);
    ok(cna_character_layer_fade(c, 1, 0.0f, 0.1, &err), &err);
    ok(cna_character_advance(c, 0.2, &err), &err);
    assert_int_equal(got.n, 2);
    assert_int_equal(got.e[0].kind, CNA_EVENT_FADE_FINISHED);
    assert_int_equal(got.e[1].kind, CNA_EVENT_LAYER_STOPPED);
    assert_int_equal(got.e[1].animation, s[2].animation);
    assert_null(cna_character_layer_blend_space(c, 1));
    assert_int_equal(cna_character_layer_animation(c, 1), -1);
    ok(cna_character_set_event_listener(c, NULL, NULL, &err), &err);
    /* a crossfade onto a layer playing a space replaces it; one away from it fades it */
    ok(cna_character_layer_play_blend_space(c, 1, bs, 1.0, 0.0, &err), &err);
    ok(cna_character_layer_set_weight(c, 1, 1.0f, &err), &err);
    ok(cna_character_crossfade(c, 1, 0, s[0].animation, 0.5, 0, &err), &err);
    ok(cna_character_update(c, 0.25, &err), &err);
    assert_ptr_equal(cna_character_layer_blend_space(c, 1), bs);
    ok(cna_character_update(c, 0.5, &err), &err);
    assert_null(cna_character_layer_blend_space(c, 1)); /* stopped at the end of the fade */
    ok(cna_character_layer_play_blend_space(c, 1, bs, 1.0, 0.0, &err), &err);
    ok(cna_character_crossfade(c, 0, 1, s[2].animation, 0.5, 0, &err), &err);
    assert_null(cna_character_layer_blend_space(c, 1));
    assert_int_equal(cna_character_layer_animation(c, 1), s[2].animation);
    /* the loop mode is not used: the phase wraps under ONCE too */
    ok(cna_character_layer_play_blend_space(c, 1, bs, 1.5, 0.0, &err), &err);
    ok(cna_character_layer_set_loop_mode(c, 1, CNA_LOOP_MODE_ONCE, &err), &err);
    const int64_t d = m->node_clips[s[1].animation].duration;
    ok(cna_character_advance_ticks(c, d + d / 2, &err), &err);
    assert_true(cna_character_layer_phase(c, 1) == (double)(d + d / 2) / (double)d - 1.0);
    /* a listener may not play or move a space */
    busy b;
    memset(&b, 0, sizeof b);
    b.c = c;
    b.bs = bs;
    ok(cna_character_set_event_listener(c, meddle, &b, &err), &err);
    ok(cna_character_advance_ticks(c, d, &err), &err); /* LOOPED */
    assert_true(b.calls > 0);
    assert_int_equal(b.play, CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(b.params, CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(b.message, "character: a call that changes the character was made from its event listener "
                                   "(a listener may only read the character); nothing changed");
    assert_true(cna_character_layer_sample_weight(c, 1, 1) == 1.0);
    cna_character_free(c);
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
    cna_model *m = load(ROBOT), *other = load(ROBOT);
    cna_blend_sample s[3], so[3];
    cna_blend_space *bs = speed_space(m, s), *foreign = speed_space(other, so);
    cna_error err;
    cna_character *c = make(m, 2);
    expect(cna_character_layer_play_blend_space(NULL, 1, bs, 0.0, 0.0, &err), &err, "character: character is NULL");
    expect(cna_character_layer_play_blend_space(c, 2, bs, 0.0, 0.0, &err), &err, "layer 2 is outside 0..1");
    expect(cna_character_layer_play_blend_space(c, 1, NULL, 0.0, 0.0, &err), &err, "layer 1: blend space is NULL");
    expect(cna_character_layer_play_blend_space(c, 1, foreign, 0.0, 0.0, &err), &err,
           "layer 1: the blend space was made for another model");
    expect(cna_character_layer_play_blend_space(c, 1, bs, NAN, 0.0, &err), &err, "layer 1: x nan is not finite");
    ok(cna_character_layer_set_root_motion(c, 1, CNA_ROOT_MOTION_HORIZONTAL, -1, &err), &err);
    expect(cna_character_layer_play_blend_space(c, 1, bs, 0.0, 0.0, &err), &err,
           "layer 1: root motion is not extracted from a blend space; set the layer's root motion to NONE first");
    ok(cna_character_layer_set_root_motion(c, 1, CNA_ROOT_MOTION_NONE, -1, &err), &err);
    assert_null(cna_character_layer_blend_space(c, 1));
    expect(cna_character_layer_set_blend_parameters(c, 1, 0.0, 0.0, &err), &err, "layer 1 plays no blend space");
    ok(cna_character_layer_play_blend_space(c, 1, bs, 2.0, 0.0, &err), &err);
    assert_ptr_equal(cna_character_layer_blend_space(c, 1), bs);
    expect(cna_character_layer_set_blend_parameters(c, 1, INFINITY, 0.0, &err), &err, "layer 1: x inf is not finite");
    expect(cna_character_layer_set_blend_parameters(c, 5, 0.0, 0.0, &err), &err, "layer 5 is outside 0..1");
    expect(cna_character_layer_set_root_motion(c, 1, CNA_ROOT_MOTION_FULL, -1, &err), &err,
           "layer 1: root motion is not extracted from a blend space; play an animation on the layer first");
    /* nothing changed by the refusals */
    assert_true(cna_character_layer_sample_weight(c, 1, 1) == 1.0 - 0.5 / 2.5);
    assert_int_equal(cna_character_layer_animation(c, 1), s[1].animation);
    /* a character of a copy of the model struct plays it */
    cna_model copy = *m;
    cna_character *cc = make(&copy, 2);
    ok(cna_character_layer_play_blend_space(cc, 1, bs, 2.0, 0.0, &err), &err);
    cna_character_free(cc);
    cna_character_free(c);
    cna_blend_space_free(bs);
    cna_blend_space_free(foreign);
    cna_model_free(m);
    cna_model_free(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_sample_poses_as_its_clip_1d),
        cmocka_unit_test(test_a_sample_poses_as_its_clip_2d),
        cmocka_unit_test(test_between_samples_is_a_stack_of_layers),
        cmocka_unit_test(test_other_models),
        cmocka_unit_test(test_phase_moves_by_ticks_over_d),
        cmocka_unit_test(test_nothing_allocated_while_playing),
        cmocka_unit_test(test_markers_per_sample_and_looped_per_wrap),
        cmocka_unit_test(test_fades_crossfades_and_the_listener),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
