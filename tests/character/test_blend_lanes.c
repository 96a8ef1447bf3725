/*
 * How a blended pose computes (src/character/blend.c), checked against what
 * it must equal:
 *   - its slerps, made sixteen lanes at a time on every kernel path this
 *     machine has, are cna_quat_slerp bit for bit: random rotations at
 *     random and special weights, and the edge cases (equal, opposite,
 *     orthogonal and nearly equal rotations, unnormalised and non-finite
 *     values, weights 0, 1, below 0 and above 1);
 *   - a rig larger than the posing thread's scratch (300 joints) blends in
 *     buffers of its own: two layers of one clip at weights 0.5 pose bit for
 *     bit as the clip alone, and nothing is allocated while posing;
 *   - a masked layer samples only the tracks its mask does not zero: a mask
 *     or an animation changed between poses (layer 0's too, which samples
 *     with its players' state) poses byte for byte as a character set up
 *     that way from the start;
 *   - characters of different models posed in turn on one thread, and on
 *     another thread, pose byte for byte as each posed alone on a thread of
 *     its own: the scratch they share carries nothing from one pose to the
 *     next.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fp_env.h"

#include "anim/anim_internal.h"
#include "character/character_internal.h"
#include "cna/cna.h"
#include "same_pose.h"

#define ROBOT "corpus/valid/RobotExpressive/robot.glb"
#define INTERP "corpus/valid/InterpolationTest/interpolation_test.gltf"
#define MORPHS "corpus/valid/MorphStressTest/MorphStressTest.gltf"
#define BIG "fixtures/split-shared-skin.gltf" /* 300 joints */

static void ok(cna_result r, const cna_error *err)
{
    if (r != CNA_OK) print_error("%s\n", err->message);
    assert_int_equal(r, CNA_OK);
}

static cna_model *load(const char *rel, bool split)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    cna_import_options o;
    memset(&o, 0, sizeof o);
    o.split_palettes = split;
    cna_model *m = NULL;
    cna_error err;
    ok(cna_model_load_file(path, &o, &m, &err), &err);
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

static cna_character *make(const cna_model *m, size_t layers, bool counted)
{
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = layers;
    if (counted) {
        o.allocator.alloc = count_alloc;
        o.allocator.free = count_free;
    }
    cna_character *c = NULL;
    cna_error err;
    ok(cna_character_create(m, &o, &c, &err), &err);
    return c;
}

/* ------------------------------------------------------------------ the slerp lanes */

static uint32_t rng = 12345u;

static float rnd(void) /* in [-1, 1) */
{
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / 8388608.0f - 1.0f;
}

static cna_quat unit(void)
{
    cna_quat q;
    float n;
    do {
        q.x = rnd();
        q.y = rnd();
        q.z = rnd();
        q.w = rnd();
        n = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    } while (n < 0.1f);
    q.x /= n;
    q.y /= n;
    q.z /= n;
    q.w /= n;
    return q;
}

static cna_quat quat(float x, float y, float z, float w)
{
    cna_quat q;
    q.x = x;
    q.y = y;
    q.z = z;
    q.w = w;
    return q;
}

/* The same bits, a NaN matching any NaN (cna_quat_slerp makes no promise
 * about which NaN). */
static void assert_same_quat(cna_quat want, cna_quat got, size_t i)
{
    const float *w = &want.x, *g = &got.x;
    for (int k = 0; k < 4; k++) {
        if (isnan(w[k]) && isnan(g[k])) continue;
        if (memcmp(&w[k], &g[k], sizeof(float)) != 0)
            print_error("case %zu, component %d: %a, want %a\n", i, k, (double)g[k], (double)w[k]);
        assert_memory_equal(&w[k], &g[k], sizeof(float));
    }
}

enum { CASES = 4096 };

static void test_slerp_lanes_are_cna_quat_slerp(void **state)
{
    (void)state;
    static cna_quat a[CASES], b[CASES], out[CASES];
    static float t[CASES];
    const float weights[] = {0.0f, 1.0f, 0.5f, 0.25f, 1.0f / 3.0f, 1e-7f, 0.999999f, -0.5f, 1.5f, 2.0f};
    const float inf = INFINITY, nan = NAN;
    size_t n = 0;
    /* edge cases, each at every weight above */
    const cna_quat pairs[][2] = {
        {quat(0, 0, 0, 1), quat(0, 0, 0, 1)},               /* equal: the linear branch */
        {quat(0, 0, 0, 1), quat(0, 0, 0, -1)},              /* opposite: d = -1 */
        {quat(0, 0, 0, 1), quat(1, 0, 0, 0)},               /* orthogonal: theta = pi/2 rounded up */
        {quat(0, 0, 0, 1), quat(0, 0.7071068f, 0, 0.7071068f)},
        {quat(0, 0, 0, 1), quat(0, 0.0014142f, 0, 0.999999f)}, /* near the linear threshold */
        {quat(0, 0, 0, 1), quat(0, 0.0015f, 0, 0.99999887f)},
        {quat(0, 0, 0, 2), quat(0, 0, 0.5f, 3)},            /* unnormalised: d > 1 */
        {quat(0, 0, 0, 0.5f), quat(0.5f, 0, 0, 0)},         /* unnormalised, orthogonal */
        {quat(0, 0, 0, 0), quat(0, 0, 0, 1)},               /* zero */
        {quat(-0.0f, 0, -0.0f, 1), quat(0, -0.0f, 0, 1)},   /* signed zeros */
        {quat(nan, 0, 0, 1), quat(0, 0, 0, 1)},             /* not finite */
        {quat(0, 0, 0, 1), quat(inf, 0, 0, 1)},
        {quat(0.6f, 0, 0, 0.8f), quat(-0.6f, 0, 0, -0.8f)}, /* the same rotation, negated */
    };
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
        for (size_t w = 0; w < sizeof weights / sizeof weights[0]; w++) {
            a[n] = pairs[p][0];
            b[n] = pairs[p][1];
            t[n++] = weights[w];
        }
    /* random rotations, some nearly equal, at random and special weights */
    while (n < CASES) {
        a[n] = unit();
        if (n % 3 == 0) {
            b[n] = quat(a[n].x + 1e-4f * rnd(), a[n].y + 1e-4f * rnd(), a[n].z, a[n].w);
        } else {
            b[n] = unit();
        }
        t[n] = n % 5 == 0 ? weights[n % (sizeof weights / sizeof weights[0])] : 0.5f + 0.5f * rnd();
        n++;
    }
    int paths = 0;
    for (int path = 0; path < CNA__PLAYER_PATH_COUNT; path++) {
        if (!cna__player_path_supported(path)) continue;
        paths++;
        /* every batch length from 1 to 20 (across the sixteen lanes), then all at once */
        size_t i = 0;
        for (size_t len = 1; i + len <= CASES && len <= 20; i += len, len++)
            cna__blend_slerp(path, a + i, b + i, t + i, out + i, len);
        cna__blend_slerp(path, a + i, b + i, t + i, out + i, CASES - i);
        for (size_t k = 0; k < CASES; k++) assert_same_quat(cna_quat_slerp(a[k], b[k], t[k]), out[k], k);
    }
    assert_true(paths >= 1);
}

/* ------------------------------------------------------------------ a rig larger than the scratch */

static void test_large_rig_blends_in_its_own_buffers(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(BIG, true);
    assert_int_equal(m->skins[0].joint_count, 300);
    assert_true(m->animation_count >= 1);
    cna_character *plain = make(m, 1, false), *two = make(m, 2, true);
    ok(cna_character_play(plain, 0, &err), &err);
    ok(cna_character_play(two, 0, &err), &err);
    ok(cna_character_layer_play(two, 1, 0, &err), &err);
    ok(cna_character_layer_set_weight(two, 0, 0.5f, &err), &err);
    ok(cna_character_layer_set_weight(two, 1, 0.5f, &err), &err);
    const size_t before = allocations;
    for (int f = 0; f < 90; f++) {
        ok(cna_character_update(plain, 1.0 / 60, &err), &err);
        ok(cna_character_update(two, 1.0 / 60, &err), &err);
        /* (q, q) at 0.5 is q, and a·0.5 + a·0.5 is a: the clip alone */
        assert_same_pose(plain, two);
    }
    assert_int_equal(allocations, before);
    cna_character_free(plain);
    cna_character_free(two);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ masks changed between poses */

static void set_up(cna_character *c, const cna_model *m, const float *mask0, const float *mask1, long a0, long a1,
                   double t)
{
    cna_error err;
    ok(cna_character_play(c, a0, &err), &err);
    ok(cna_character_layer_play(c, 1, a1, &err), &err);
    ok(cna_character_layer_set_weight(c, 1, 0.6f, &err), &err);
    ok(cna_character_layer_set_mask(c, 0, mask0, m->bone_count, &err), &err);
    ok(cna_character_layer_set_mask(c, 1, mask1, m->bone_count, &err), &err);
    ok(cna_character_seek(c, t, &err), &err);
    ok(cna_character_layer_seek(c, 1, t * 0.7, &err), &err);
}

static void test_masks_changed_between_poses(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT, false);
    const size_t n = m->bone_count;
    float *upper = (float *)calloc(n, sizeof(float)), *arm = (float *)calloc(n, sizeof(float));
    float *half = (float *)calloc(n, sizeof(float));
    ok(cna_model_mask_subtree(m, "Torso", 1.0f, upper, n, &err), &err);
    ok(cna_model_mask_subtree(m, "Shoulder.R", 1.0f, arm, n, &err), &err);
    for (size_t b = 0; b < n; b++) half[b] = b % 3 ? 0.5f : 0.0f;
    long walk, run, wave;
    {
        size_t a;
        ok(cna_model_find_animation(m, "Robot_Walking", &a, &err), &err);
        walk = (long)a;
        ok(cna_model_find_animation(m, "Robot_Running", &a, &err), &err);
        run = (long)a;
        ok(cna_model_find_animation(m, "Robot_Wave", &a, &err), &err);
        wave = (long)a;
    }
    cna_character *c = make(m, 2, false);
    set_up(c, m, upper, arm, walk, run, 0.25);
    for (int f = 0; f < 20; f++) ok(cna_character_update(c, 1.0 / 60, &err), &err);
    /* new masks alone, new animations alone, then both, posed in between */
    const float *masks0[] = {half, half, arm};
    const float *masks1[] = {upper, upper, half};
    const long anims0[] = {walk, wave, run};
    const long anims1[] = {run, walk, wave};
    for (int step = 0; step < 3; step++) {
        const double t = 0.1 + 0.3 * step;
        if (step != 1) {
            ok(cna_character_layer_set_mask(c, 0, masks0[step], n, &err), &err);
            ok(cna_character_layer_set_mask(c, 1, masks1[step], n, &err), &err);
        }
        if (step != 0) {
            ok(cna_character_play(c, anims0[step], &err), &err);
            ok(cna_character_layer_play(c, 1, anims1[step], &err), &err);
        }
        ok(cna_character_seek(c, t, &err), &err);
        ok(cna_character_layer_seek(c, 1, t * 0.7, &err), &err);
        cna_character *fresh = make(m, 2, false);
        set_up(fresh, m, masks0[step], masks1[step], anims0[step], anims1[step], t);
        for (int f = 0; f < 15; f++) {
            ok(cna_character_update(c, 1.0 / 60, &err), &err);
            ok(cna_character_update(fresh, 1.0 / 60, &err), &err);
            assert_same_pose(c, fresh);
        }
        cna_character_free(fresh);
    }
    cna_character_free(c);
    free(upper);
    free(arm);
    free(half);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ the scratch, shared */

enum { KINDS = 5, FRAMES = 120 };

typedef struct crowd {
    cna_model *models[KINDS];
    cna_character *chars[KINDS];
} crowd;

static long anim(const cna_model *m, size_t i) { return (long)(i % (m->animation_count ? m->animation_count : 1)); }

/* Three layers each: weights short of 1 (the rest mixed in), an additive
 * or a masked layer; the third character plays the second's animations
 * (InterpolationTest's, each on nodes of its own) in another order, so that
 * it finds the second's values in the scratch where its first layer sampled
 * nothing. */
static void setup(crowd *cr, size_t k)
{
    cna_error err;
    const cna_model *m = cr->models[k];
    cna_character *c = cr->chars[k] = make(m, 3, false);
    const size_t first = k == 2 ? 1 : 0;
    ok(cna_character_play(c, anim(m, first), &err), &err);
    ok(cna_character_layer_play(c, 1, anim(m, 1 - first), &err), &err);
    ok(cna_character_layer_set_weight(c, 0, 0.3f, &err), &err);
    ok(cna_character_layer_set_weight(c, 1, 0.45f, &err), &err);
    ok(cna_character_layer_play(c, 2, anim(m, 2), &err), &err);
    ok(cna_character_layer_set_weight(c, 2, 0.6f, &err), &err);
    if (k % 2) {
        ok(cna_character_layer_set_blend_mode(c, 2, CNA_BLEND_MODE_ADDITIVE, &err), &err);
    } else {
        float *mask = (float *)calloc(m->bone_count + 1, sizeof(float));
        for (size_t b = 0; b < m->bone_count; b += 2) mask[b] = 1.0f;
        ok(cna_character_layer_set_mask(c, 2, mask, m->bone_count, &err), &err);
        free(mask);
    }
}

static void crowd_make(crowd *cr)
{
    cr->models[0] = load(ROBOT, false);
    cr->models[1] = load(INTERP, false);
    cr->models[2] = load(INTERP, false);
    cr->models[3] = load(MORPHS, false);
    cr->models[4] = load(BIG, true);
    for (size_t k = 0; k < KINDS; k++) setup(cr, k);
}

static void crowd_free(crowd *cr)
{
    for (size_t k = 0; k < KINDS; k++) {
        cna_character_free(cr->chars[k]);
        cna_model_free(cr->models[k]);
    }
}

/* Frame f of character k: its own step. */
static void step(crowd *cr, size_t k, int f)
{
    cna_error err;
    ok(cna_character_update(cr->chars[k], (1.0 + (double)((f + (int)k) % 3)) / 60, &err), &err);
}

static void *run_in_turn(void *p)
{
    crowd *cr = (crowd *)p;
    for (int f = 0; f < FRAMES; f++)
        for (size_t k = 0; k < KINDS; k++) step(cr, k, f);
    return NULL;
}

typedef struct one {
    crowd *cr;
    size_t k;
} one;

static void *run_alone(void *p)
{
    one *o = (one *)p;
    for (int f = 0; f < FRAMES; f++) step(o->cr, o->k, f);
    return NULL;
}

static void test_characters_in_turn_pose_as_each_alone(void **state)
{
    (void)state;
    crowd turn, other, alone;
    crowd_make(&turn);
    crowd_make(&other);
    crowd_make(&alone);
    /* alone: each character on a thread of its own (a fresh scratch) */
    for (size_t k = 0; k < KINDS; k++) {
        one o = {&alone, k};
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, run_alone, &o), 0);
        pthread_join(th, NULL);
    }
    /* in turn on this thread, and in turn on another thread */
    run_in_turn(&turn);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, run_in_turn, &other), 0);
    pthread_join(th, NULL);
    for (size_t k = 0; k < KINDS; k++) {
        assert_same_pose(alone.chars[k], turn.chars[k]);
        assert_same_pose(alone.chars[k], other.chars[k]);
    }
    crowd_free(&turn);
    crowd_free(&other);
    crowd_free(&alone);
}

int main(void)
{
    fp_env_from_test_environment(); /* CNA_TEST_FTZ_DAZ: tests/fp_env.h */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slerp_lanes_are_cna_quat_slerp),
        cmocka_unit_test(test_large_rig_blends_in_its_own_buffers),
        cmocka_unit_test(test_masks_changed_between_poses),
        cmocka_unit_test(test_characters_in_turn_pose_as_each_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
