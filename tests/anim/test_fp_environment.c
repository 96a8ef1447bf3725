/*
 * The floating-point environment (docs/exactness.md), with flush-to-zero
 * and denormals-are-zero (MXCSR's FTZ and DAZ), which hosts often set:
 *   - the results depend on it: a rig whose keys and matrices hold
 *     subnormal numbers poses differently with FTZ and DAZ set (so the
 *     cases below do exercise them, and the promise of the same bits on
 *     every CPU is one of the default environment);
 *   - every player path this CPU has still equals the reference functions
 *     (cna_track_sample_linear, cna_mat4_compose, cna_mat4_mul) bit for
 *     bit, on that rig and on the random rigs of test_player_paths.c;
 *   - a crowd's worker threads compute in the environment of the thread
 *     that calls cna_crowd_update, not in the one they started in: a crowd
 *     started before the caller sets FTZ and DAZ, and one started while
 *     they were set and used after they are cleared, both give the bits of
 *     updating each player on the calling thread.
 * Needs x86's MXCSR; skipped elsewhere. (The suites of the other equalities
 * run once more under FTZ and DAZ: tests/fp_env.h.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fp_env.h"

#include "anim/anim_internal.h"
#include "anim/fixtures.h"
#include "anim/random_rig.h"

/* 2^-130: a value in [-2, 2] times it is subnormal (below FLT_MIN = 2^-126) or 0. */
#define TINY 0x1p-130f

/* A random rig whose translations (keys, bind, inverse bind and prefix
 * matrices) are subnormal, and whose even tracks rotate by nearly the
 * identity, (x, y, z) subnormal: their slerps take the linear branch and
 * their compositions give subnormal matrix entries. Built in the default
 * environment. */
static void tiny_rig_init(random_rig *g, rng *r)
{
    random_rig_init(g, r, true);
    cna_mat4 *const sets[3] = {g->bind, g->inverse_bind, g->prefix};
    for (int s = 0; s < 3; ++s)
        for (int p = 0; p < RIG_BONES; ++p)
            for (int k = 12; k < 15; ++k) sets[s][p].m[k] *= TINY;
    for (int i = 0; i < RIG_TRACKS; ++i)
        for (int k = 0; k < RIG_KEYS; ++k) {
            cna_keyframe *key = &g->keys[i][k];
            key->translation.x *= TINY;
            key->translation.y *= TINY;
            key->translation.z *= TINY;
            if (i % 2 == 0)
                key->rotation = cna_quat_make(rng_float(r, -1, 1) * TINY, rng_float(r, -1, 1) * TINY,
                                              rng_float(r, -1, 1) * TINY, 1.0f);
        }
}

static void skip_without_mxcsr(void)
{
    if (!FP_ENV_HAS_MXCSR) {
        print_message("no MXCSR on this machine\n");
        skip();
    }
}

/* Every test leaves the default environment behind, failed or not. */
static int back_to_default(void **state)
{
    (void)state;
    fp_env_set_ftz_daz(false);
    return 0;
}

static cna_player *posed_player(const cna_skinning_data *d, int64_t ticks)
{
    cna_player *player = NULL;
    assert_int_equal(cna_player_create(d, NULL, &player, NULL), CNA_OK);
    assert_int_equal(cna_player_start_clip(player, &d->clips[0], NULL), CNA_OK);
    assert_int_equal(cna_player_update(player, ticks, false, true, NULL), CNA_OK);
    return player;
}

static void test_the_tiny_rig_poses_differently_with_ftz_and_daz(void **state)
{
    (void)state;
    skip_without_mxcsr();
    static random_rig g;
    rng r = {0x5EB0A1ULL};
    tiny_rig_init(&g, &r);
    const int64_t at = CNA_TICKS_PER_SECOND / 8 * 3 + 12345;
    cna_player *plain = posed_player(&g.data, at);
    assert_true(fp_env_set_ftz_daz(true));
    cna_player *flushed = posed_player(&g.data, at);
    fp_env_set_ftz_daz(false);
    const size_t bytes = (size_t)RIG_BONES * sizeof(cna_mat4);
    assert_true(memcmp(cna_player_bone_transforms(plain), cna_player_bone_transforms(flushed), bytes) != 0);
    assert_true(memcmp(cna_player_world_transforms(plain), cna_player_world_transforms(flushed), bytes) != 0);
    assert_true(memcmp(cna_player_skin_transforms(plain), cna_player_skin_transforms(flushed), bytes) != 0);
    cna_player_free(flushed);
    cna_player_free(plain);
}

/* Plays `frames` steps of `step` on a player forced to `path`, each pose
 * compared with the reference computed here, in the same environment. */
static void play_against_reference(const cna_skinning_data *d, int path, int64_t step, int frames)
{
    cna_mat4 local[RIG_BONES], world[RIG_BONES], skin[RIG_BONES];
    cna_player *player = NULL;
    assert_int_equal(cna_player_create(d, NULL, &player, NULL), CNA_OK);
    assert_true(cna__player_set_path(player, path));
    assert_int_equal(cna_player_start_clip(player, &d->clips[0], NULL), CNA_OK);
    for (int f = 0; f < frames; ++f) {
        assert_int_equal(cna_player_update(player, step, true, true, NULL), CNA_OK);
        reference_pose(d, &d->clips[0], cna_player_position(player), local, world, skin);
        assert_matrices_identical(cna_player_bone_transforms(player), local, d->bone_count);
        assert_matrices_identical(cna_player_world_transforms(player), world, d->bone_count);
        assert_matrices_identical(cna_player_skin_transforms(player), skin, d->bone_count);
    }
    cna_player_free(player);
}

static void paths_equal_the_reference_with_ftz_and_daz(int path)
{
    skip_without_mxcsr();
    if (!cna__player_path_supported(path)) {
        print_message("player path %d: not supported by this build or CPU\n", path);
        skip();
    }
    static random_rig tiny, plain;
    rng r = {0xF7ADA2ULL};
    for (int round = 0; round < 6; ++round) {
        tiny_rig_init(&tiny, &r);
        random_rig_init(&plain, &r, round % 2 == 1);
        assert_true(fp_env_set_ftz_daz(true));
        play_against_reference(&tiny.data, path, CNA_TICKS_PER_SECOND / 60 + 7, 120);
        play_against_reference(&plain.data, path, CNA_TICKS_PER_SECOND / 60 + 7, 120);
        fp_env_set_ftz_daz(false);
    }
}

static void test_base_path_equals_the_reference_with_ftz_and_daz(void **state)
{
    (void)state;
    paths_equal_the_reference_with_ftz_and_daz(CNA__PLAYER_PATH_BASE);
}

#if !defined(CNA_NO_SIMD)
static void test_avx_path_equals_the_reference_with_ftz_and_daz(void **state)
{
    (void)state;
    paths_equal_the_reference_with_ftz_and_daz(CNA__PLAYER_PATH_AVX);
}
#endif

enum { PLAYERS = 96, THREADS = 3 };

/* PLAYERS players of one tiny rig and clip at different phases (so that the
 * crowd samples them in vector lanes), and as many twins updated one by one
 * on this thread; crowd and twins compared after each of 40 frames. The
 * crowd was started in the other environment than the one set now. */
static void crowd_equals_one_by_one_in(bool ftz_daz, cna_crowd *crowd)
{
    static random_rig g;
    rng r = {0xC40DF7ULL};
    tiny_rig_init(&g, &r);
    static cna_player *in_crowd[PLAYERS], *alone[PLAYERS];
    for (size_t i = 0; i < PLAYERS; ++i) {
        in_crowd[i] = posed_player(&g.data, (int64_t)i * 987654);
        alone[i] = posed_player(&g.data, (int64_t)i * 987654);
    }
    fp_env_set_ftz_daz(ftz_daz);
    const size_t bytes = (size_t)RIG_BONES * sizeof(cna_mat4);
    for (int frame = 0; frame < 40; ++frame) {
        const int64_t step = CNA_TICKS_PER_SECOND / 60 + frame;
        assert_int_equal(cna_crowd_update(crowd, in_crowd, PLAYERS, step, true, true, NULL), CNA_OK);
        for (size_t i = 0; i < PLAYERS; ++i) {
            assert_int_equal(cna_player_update(alone[i], step, true, true, NULL), CNA_OK);
            assert_true(cna_player_position(in_crowd[i]) == cna_player_position(alone[i]));
            assert_memory_equal(cna_player_bone_transforms(in_crowd[i]), cna_player_bone_transforms(alone[i]), bytes);
            assert_memory_equal(cna_player_world_transforms(in_crowd[i]), cna_player_world_transforms(alone[i]), bytes);
            assert_memory_equal(cna_player_skin_transforms(in_crowd[i]), cna_player_skin_transforms(alone[i]), bytes);
        }
    }
    fp_env_set_ftz_daz(false);
    for (size_t i = 0; i < PLAYERS; ++i) {
        cna_player_free(in_crowd[i]);
        cna_player_free(alone[i]);
    }
}

static cna_crowd *make_crowd(void)
{
    cna_crowd_options opts;
    memset(&opts, 0, sizeof opts);
    opts.thread_count = THREADS;
    cna_crowd *crowd = NULL;
    assert_int_equal(cna_crowd_create(&opts, &crowd, NULL), CNA_OK);
    return crowd;
}

static void test_crowd_started_before_ftz_and_daz_computes_with_them(void **state)
{
    (void)state;
    skip_without_mxcsr();
    cna_crowd *crowd = make_crowd(); /* its workers start in the default environment */
    crowd_equals_one_by_one_in(true, crowd);
    cna_crowd_free(crowd);
}

static void test_crowd_started_with_ftz_and_daz_computes_without_them_once_cleared(void **state)
{
    (void)state;
    skip_without_mxcsr();
    assert_true(fp_env_set_ftz_daz(true));
    cna_crowd *crowd = make_crowd(); /* its workers inherit FTZ and DAZ */
    fp_env_set_ftz_daz(false);
    crowd_equals_one_by_one_in(false, crowd);
    cna_crowd_free(crowd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_the_tiny_rig_poses_differently_with_ftz_and_daz, back_to_default),
        cmocka_unit_test_teardown(test_base_path_equals_the_reference_with_ftz_and_daz, back_to_default),
#if !defined(CNA_NO_SIMD)
        cmocka_unit_test_teardown(test_avx_path_equals_the_reference_with_ftz_and_daz, back_to_default),
#endif
        cmocka_unit_test_teardown(test_crowd_started_before_ftz_and_daz_computes_with_them, back_to_default),
        cmocka_unit_test_teardown(test_crowd_started_with_ftz_and_daz_computes_without_them_once_cleared,
                                  back_to_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
