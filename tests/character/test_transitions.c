/*
 * Interruptible transitions (cna_character_crossfade, "Interrupting"): an
 * uninterrupted crossfade is the fades made by hand, bit for bit; an
 * interrupting one freezes the pose into a snapshot that fades out over the
 * incoming layer, so that the pose never jumps; random timelines of
 * crossfades every 1 to 30 frames over every multi-clip model of the corpus
 * move the bones no more than 1.25 times the larger of the clips alone and
 * the uninterrupted crossfades; nothing allocates.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "character/transition_harness.h"
#include "cna/cna.h"

#define ROBOT "corpus/valid/RobotExpressive/robot.glb"
#define MORPH "corpus/valid/MorphStressTest/MorphStressTest.gltf"

static const char *const MULTI_CLIP[] = {
    ROBOT,
    "corpus/valid/InterpolationTest/interpolation_test.gltf",
    MORPH,
    "libraries/Mesh2MotionFox/fox-animations.glb",
    "libraries/Mesh2MotionHuman/human-addon-animations.glb",
};

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

static cna_character *make(const cna_model *m, size_t layers, const cna_allocator *alloc)
{
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = layers;
    if (alloc) o.allocator = *alloc;
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

static void same_skins(const cna_model *m, const cna_character *a, const cna_character *b)
{
    for (size_t s = 0; s < m->skin_count; s++)
        assert_memory_equal(cna_character_skin_transforms(a, s), cna_character_skin_transforms(b, s),
                            m->skins[s].joint_count * sizeof(cna_mat4));
}

/* The largest distance between the bones' absolute origins of a and b. */
static double origin_gap(const cna_model *m, const cna_character *a, const cna_character *b)
{
    double most = 0.0;
    for (size_t i = 0; i < m->bone_count; i++) {
        const cna_mat4 *x = cna_character_absolute_transform(a, i), *y = cna_character_absolute_transform(b, i);
        for (int k = 12; k < 15; k++) {
            const double d = fabs((double)x->m[k] - (double)y->m[k]);
            if (d > most) most = d;
        }
    }
    return most;
}

/* A crossfade that interrupts nothing is the calls it stands for, made by
 * hand, bit for bit, and keeps no snapshot. */
static void test_uninterrupted_is_the_fades(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_character *a = make(m, 2, NULL), *b = make(m, 2, NULL);
    const long walk = anim(m, "Robot_Walking"), run = anim(m, "Robot_Running"), idle = anim(m, "Robot_Idle");
    ok(cna_character_play(a, walk, &err), &err);
    ok(cna_character_play(b, walk, &err), &err);
    for (int f = 0; f < 150; f++) {
        if (f == 20 || f == 100) { /* Walking to Running on 1, then (settled) back to Idle on 0 */
            const size_t from = f == 20 ? 0 : 1, to = 1 - from;
            const long next = f == 20 ? run : idle;
            ok(cna_character_crossfade(a, from, to, next, 0.5, 0, &err), &err);
            ok(cna_character_layer_play(b, to, next, &err), &err);
            ok(cna_character_layer_set_weight(b, to, 0.0f, &err), &err);
            ok(cna_character_layer_fade(b, to, 1.0f, 0.5, &err), &err);
            ok(cna_character_layer_fade(b, from, 0.0f, 0.5, &err), &err);
        }
        ok(cna_character_update(a, 1.0 / 60, &err), &err);
        ok(cna_character_update(b, 1.0 / 60, &err), &err);
        assert_true(cna_character_transition_weight(a) == 0.0f);
        for (size_t l = 0; l < 2; l++) {
            assert_true(cna_character_layer_weight(a, l) == cna_character_layer_weight(b, l));
            assert_int_equal(cna_character_layer_animation(a, l), cna_character_layer_animation(b, l));
        }
        same_skins(m, a, b);
    }
    cna_character_free(a);
    cna_character_free(b);
    cna_model_free(m);
}

/* Interrupting a crossfade halfway: the pose right after the call is the
 * pose before it; the snapshot's weight falls linearly; the incoming layer
 * plays whole, the others end; once the snapshot is gone the pose is the
 * incoming clip's alone, bit for bit. */
static void test_interruption_freezes_and_fades(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    const long walk = anim(m, "Robot_Walking"), run = anim(m, "Robot_Running"), jump = anim(m, "Robot_Jump");
    cna_character *c = make(m, 2, NULL), *before = make(m, 2, NULL), *alone = make(m, 2, NULL);
    ok(cna_character_play(c, walk, &err), &err);
    ok(cna_character_update(c, 0.0, &err), &err);
    ok(cna_character_crossfade(c, 0, 1, run, 0.5, 0, &err), &err);
    for (int f = 0; f < 15; f++) ok(cna_character_update(c, 1.0 / 60, &err), &err);
    /* the same pose, uninterrupted, kept for comparison */
    ok(cna_character_play(before, walk, &err), &err);
    ok(cna_character_update(before, 0.0, &err), &err);
    ok(cna_character_crossfade(before, 0, 1, run, 0.5, 0, &err), &err);
    for (int f = 0; f < 15; f++) ok(cna_character_update(before, 1.0 / 60, &err), &err);
    same_skins(m, c, before);

    ok(cna_character_crossfade(c, 1, 0, jump, 0.5, 0, &err), &err);
    assert_true(cna_character_transition_weight(c) == 1.0f);
    assert_true(cna_character_layer_weight(c, 0) == 1.0f);
    assert_int_equal(cna_character_layer_animation(c, 0), jump);
    assert_true(cna_character_layer_weight(c, 1) == 0.0f);
    assert_int_equal(cna_character_layer_animation(c, 1), -1); /* ended, not kept running */
    ok(cna_character_update(c, 0.0, &err), &err);
    const double gap = origin_gap(m, c, before);
    assert_true(gap < 1e-5);

    ok(cna_character_play(alone, jump, &err), &err);
    for (int f = 1; f <= 30; f++) {
        ok(cna_character_update(c, 1.0 / 60, &err), &err);
        ok(cna_character_update(alone, 1.0 / 60, &err), &err);
        const int64_t step = cna_ticks_from_seconds(1.0 / 60), total = cna_ticks_from_seconds(0.5);
        const float expect = f * step >= total ? 0.0f : 1.0f - (float)((double)(f * step) / (double)total);
        assert_true(fabsf(cna_character_transition_weight(c) - expect) <= 1e-6f);
    }
    assert_true(cna_character_transition_weight(c) == 0.0f);
    same_skins(m, c, alone);
    cna_character_free(c);
    cna_character_free(before);
    cna_character_free(alone);
    cna_model_free(m);
}

/* A crossfade of 0 seconds is a cut: it ends the snapshot at once. */
static void test_cut_ends_the_snapshot(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_character *c = make(m, 2, NULL), *alone = make(m, 2, NULL);
    const long idle = anim(m, "Robot_Idle");
    ok(cna_character_play(c, anim(m, "Robot_Walking"), &err), &err);
    ok(cna_character_crossfade(c, 0, 1, anim(m, "Robot_Running"), 0.4, 0, &err), &err);
    ok(cna_character_update(c, 0.1, &err), &err);
    ok(cna_character_crossfade(c, 1, 0, anim(m, "Robot_Dance"), 0.4, 0, &err), &err);
    ok(cna_character_update(c, 0.1, &err), &err);
    assert_true(cna_character_transition_weight(c) == 0.75f);
    ok(cna_character_crossfade(c, 0, 1, idle, 0.0, 0, &err), &err);
    assert_true(cna_character_transition_weight(c) == 0.0f);
    assert_true(cna_character_layer_weight(c, 1) == 1.0f);
    assert_true(cna_character_layer_weight(c, 0) == 0.0f);
    ok(cna_character_update(c, 0.0, &err), &err);
    ok(cna_character_layer_play(alone, 1, idle, &err), &err);
    ok(cna_character_layer_set_weight(alone, 1, 1.0f, &err), &err);
    ok(cna_character_layer_set_weight(alone, 0, 0.0f, &err), &err);
    ok(cna_character_update(alone, 0.0, &err), &err);
    same_skins(m, c, alone);
    cna_character_free(c);
    cna_character_free(alone);
    cna_model_free(m);
}

/* Morph weights take the snapshot too: right after an interruption they
 * are what they were. */
static void test_morph_weights_continue(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(MORPH);
    assert_true(m->animation_count >= 3);
    cna_character *c = make(m, 2, NULL);
    ok(cna_character_play(c, 0, &err), &err);
    ok(cna_character_crossfade(c, 0, 1, 1, 1.0, 0, &err), &err);
    ok(cna_character_update(c, 0.4, &err), &err);
    size_t mesh = 0, part = 0, n = 0;
    for (mesh = 0; mesh < m->mesh_count; mesh++)
        if (cna_character_morph_weights(c, mesh, 0, &n)) break;
    assert_true(mesh < m->mesh_count && n > 0);
    float *was = (float *)malloc(n * sizeof(float));
    memcpy(was, cna_character_morph_weights(c, mesh, part, NULL), n * sizeof(float));
    ok(cna_character_crossfade(c, 1, 0, 2, 1.0, 0, &err), &err);
    ok(cna_character_update(c, 0.0, &err), &err);
    const float *now = cna_character_morph_weights(c, mesh, part, NULL);
    for (size_t i = 0; i < n; i++) assert_true(fabsf(now[i] - was[i]) <= 1e-6f);
    free(was);
    cna_character_free(c);
    cna_model_free(m);
}

/* Over random timelines of crossfades every 1 to 30 frames (2 or 3 layers,
 * durations 0.1 to 0.5 s), on every multi-clip model of the corpus, the
 * largest per-frame bone displacement is at most 1.25 times the larger of
 * the references: each clip alone, and the uninterrupted crossfades
 * between the same clips with the same durations. */
static void test_random_timelines_never_jump(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof MULTI_CLIP / sizeof MULTI_CLIP[0]; i++) {
        cna_model *m = load(MULTI_CLIP[i]);
        assert_true(m->animation_count >= 3);
        th_model t;
        assert_int_equal(th_init(&t, m), 0);
        uint64_t rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(i + 1);
        double worst = 0.0;
        size_t crossfades = 0;
        for (int k = 0; k < 40; k++) {
            th_result r = {0.0, 0.0, 0};
            assert_int_equal(th_timeline(&t, &rng, 120, &r), 0);
            crossfades += r.crossfades;
            const double ratio = th_ratio(&t, r.moved, r.reference);
            if (ratio > worst) worst = ratio;
        }
        print_message("%s: %zu crossfades, worst displacement %.4f of the reference\n", MULTI_CLIP[i], crossfades,
                      worst);
        assert_true(crossfades > 100);
        assert_true(worst <= 1.25);
        th_free(&t);
        cna_model_free(m);
    }
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

/* Once the blending state exists, interrupting crossfades allocate
 * nothing, however many. */
static void test_no_allocation(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_allocator a;
    memset(&a, 0, sizeof a);
    a.alloc = count_alloc;
    a.free = count_free;
    cna_character *c = make(m, 3, &a);
    ok(cna_character_play(c, 0, &err), &err);
    ok(cna_character_crossfade(c, 0, 1, 1, 0.3, 0, &err), &err);
    const size_t before = allocations;
    for (int f = 0; f < 200; f++) {
        if (f % 7 == 0)
            ok(cna_character_crossfade(c, (size_t)(f / 7) % 3, (size_t)(f / 7 + 1) % 3, (long)(f % 14), 0.3, 0, &err),
               &err);
        ok(cna_character_update(c, 1.0 / 60, &err), &err);
    }
    assert_int_equal(allocations, before);
    cna_character_free(c);
    cna_model_free(m);
}

/* A crowd of blending characters on three threads (the sanitizer builds
 * run it too): 48 robots, a third playing one shared 1D blend space, a
 * third two layers in a sync group, all of them interrupted by crossfades
 * at their own moments; every frame each pose is the bytes of the same
 * character updated alone on the calling thread. */
static void test_crowd_of_interrupted_characters(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    const long idle = anim(m, "Robot_Idle"), walk = anim(m, "Robot_Walking"), run = anim(m, "Robot_Running");
    const cna_blend_sample s[3] = {{idle, 0.0, 0.0}, {walk, 1.5, 0.0}, {run, 4.0, 0.0}};
    cna_blend_space *space = NULL;
    ok(cna_blend_space_create(m, 1, s, 3, &space, &err), &err);
    enum { N = 48 };
    cna_character *crowd_chars[N], *alone[N];
    for (size_t i = 0; i < N; i++) {
        for (int k = 0; k < 2; k++) {
            cna_character *c = make(m, 3, NULL);
            if (i % 3 == 0) {
                ok(cna_character_layer_play_blend_space(c, 0, space, 0.1 * (double)i, 0.0, &err), &err);
            } else {
                ok(cna_character_play(c, (long)(i % 14), &err), &err);
                if (i % 3 == 1) {
                    ok(cna_character_layer_play(c, 1, run, &err), &err);
                    ok(cna_character_layer_set_weight(c, 1, 0.5f, &err), &err);
                    ok(cna_character_layer_set_sync_group(c, 0, 1, &err), &err);
                    ok(cna_character_layer_set_sync_group(c, 1, 1, &err), &err);
                }
            }
            if (k == 0) crowd_chars[i] = c;
            else alone[i] = c;
        }
    }
    cna_crowd_options co;
    memset(&co, 0, sizeof co);
    co.thread_count = 3;
    cna_crowd *crowd = NULL;
    ok(cna_crowd_create(&co, &crowd, &err), &err);
    for (int f = 0; f < 90; f++) {
        for (size_t i = 0; i < N; i++) {
            if ((f + (int)i) % 11 != 0) continue;
            const size_t from = (size_t)((f / 11 + (int)i) % 3), to = (from + 1) % 3;
            for (int k = 0; k < 2; k++)
                ok(cna_character_crossfade(k ? alone[i] : crowd_chars[i], from, to, (long)((f + (int)i) % 14), 0.3,
                                           0, &err),
                   &err);
        }
        ok(cna_crowd_update_characters(crowd, crowd_chars, N, 1.0 / 60, &err), &err);
        for (size_t i = 0; i < N; i++) {
            ok(cna_character_update(alone[i], 1.0 / 60, &err), &err);
            same_skins(m, crowd_chars[i], alone[i]);
        }
    }
    cna_crowd_free(crowd);
    for (size_t i = 0; i < N; i++) {
        cna_character_free(crowd_chars[i]);
        cna_character_free(alone[i]);
    }
    cna_blend_space_free(space);
    cna_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uninterrupted_is_the_fades),
        cmocka_unit_test(test_interruption_freezes_and_fades),
        cmocka_unit_test(test_cut_ends_the_snapshot),
        cmocka_unit_test(test_morph_weights_continue),
        cmocka_unit_test(test_random_timelines_never_jump),
        cmocka_unit_test(test_no_allocation),
        cmocka_unit_test(test_crowd_of_interrupted_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
