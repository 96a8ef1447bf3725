/*
 * Every kernel path of the player (src/anim/anim_internal.h:
 * CNA__PLAYER_PATH_BASE, _AVX) against a reference written here from
 * the public functions (cna_track_sample_linear, cna_mat4_compose,
 * cna_mat4_mul), bit for bit: every RobotExpressive clip at 60 Hz and with
 * random seeks, and random rigs (roots with and without prefixes, parents
 * that are not the previous bone, untracked bones, two tracks for one bone,
 * nearly parallel and opposite key rotations, non-uniform scales), and a
 * clip whose tracks are edited while it plays. A path this build or CPU
 * lacks is reported as skipped, never as passed.
 * Also: the paired sine of the slerp (cna__sinf2) against cna_sinf, the
 * eight-pair arc constants (cna__arc_make8, and cna__arc_make8_path on each
 * path) against cna__arc_make, and the eight-lane slerp weights
 * (cna__arc_weights8_path on each path) against cna__arc_weights, bit for
 * bit.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fp_env.h"

#include "anim/anim_internal.h"
#include "anim/fixtures.h"
#include "anim/random_rig.h"

#define ROBOT CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb"

enum { MAX_BONES = 72 };

static void assert_player_equals_reference(const cna_player *player, const cna_skinning_data *d,
                                           const cna_clip *clip)
{
    cna_mat4 local[MAX_BONES], world[MAX_BONES], skin[MAX_BONES];
    assert_true(d->bone_count <= MAX_BONES);
    reference_pose(d, clip, cna_player_position(player), local, world, skin);
    assert_matrices_identical(cna_player_bone_transforms(player), local, d->bone_count);
    assert_matrices_identical(cna_player_world_transforms(player), world, d->bone_count);
    assert_matrices_identical(cna_player_skin_transforms(player), skin, d->bone_count);
}

/* Plays `frames` updates on a player forced to `path`: steps of `step`, or
 * (with seeks) one random absolute seek in three. */
static void play(const cna_skinning_data *d, const cna_clip *clip, int path, int64_t step,
                 int frames, rng *seeks)
{
    cna_player *player = NULL;
    assert_int_equal(cna_player_create(d, NULL, &player, NULL), CNA_OK);
    assert_true(cna__player_set_path(player, path));
    assert_int_equal(cna__player_path(player), path);
    assert_int_equal(cna_player_update(player, 0, true, true, NULL), CNA_OK);
    assert_player_equals_reference(player, d, NULL);
    assert_int_equal((clip ? cna_player_start_clip(player, clip, NULL) : cna_player_stop(player, NULL)), CNA_OK);
    for (int f = 0; f < frames; ++f) {
        const bool seek = seeks && rng_range(seeks, 0, 3) == 0;
        const int64_t ticks = seek ? rng_range(seeks, -clip->duration, 2 * clip->duration) : step;
        assert_int_equal(cna_player_update(player, ticks, !seek, true, NULL), CNA_OK);
        assert_player_equals_reference(player, d, clip);
    }
    cna_player_free(player);
}

/* Skips (cmocka) when the path is not available here. */
static void require_path(int path)
{
    if (!cna__player_path_supported(path)) {
        print_message("player path %d: not supported by this build or CPU\n", path);
        skip();
    }
}

static void robot_on_path(int path)
{
    require_path(path);
    cna_model *m = NULL;
    cna_error err;
    const cna_result r = cna_model_load_file(ROBOT, NULL, &m, &err);
    if (r) print_error("%s: %s\n", ROBOT, err.message);
    assert_int_equal(r, CNA_OK);
    const cna_skinning_data *d = cna_model_skinning_data(m);
    assert_non_null(d);
    rng seeks = {0x9A7B5EEDULL};
    for (size_t c = 0; c < d->clip_count; ++c) {
        const cna_clip *clip = &d->clips[c];
        const int frames = (int)(clip->duration * 60 / CNA_TICKS_PER_SECOND) + 30; /* wraps once */
        play(d, clip, path, CNA_TICKS_PER_SECOND / 60 + 1, frames, NULL);
        play(d, clip, path, CNA_TICKS_PER_SECOND / 30, 60, &seeks);
    }
    cna_model_free(m);
}

static void random_rigs_on_path(int path)
{
    require_path(path);
    static random_rig g;
    rng r = {0xC0FFEE11ULL};
    for (int round = 0; round < 12; ++round) {
        random_rig_init(&g, &r, round % 2 == 1);
        play(&g.data, &g.clip, path, CNA_TICKS_PER_SECOND / 60 + 7, 150, NULL);
        play(&g.data, &g.clip, path, CNA_TICKS_PER_SECOND / 24, 60, &r);
    }
}

static void test_base_path_robot(void **state)
{
    (void)state;
    robot_on_path(CNA__PLAYER_PATH_BASE);
}
/* A CNA_NO_SIMD build has the base path only (test_default_path checks it): the
 * AVX cases are not built there, rather than skipped. */
#if !defined(CNA_NO_SIMD)
static void test_avx_path_robot(void **state)
{
    (void)state;
    robot_on_path(CNA__PLAYER_PATH_AVX);
}
#endif
static void test_base_path_random_rigs(void **state)
{
    (void)state;
    random_rigs_on_path(CNA__PLAYER_PATH_BASE);
}
#if !defined(CNA_NO_SIMD)
static void test_avx_path_random_rigs(void **state)
{
    (void)state;
    random_rigs_on_path(CNA__PLAYER_PATH_AVX);
}
#endif

/* The player skips its search for new slerp arcs while no track can have
 * left its key interval: tiny steps forward and back inside one interval,
 * onto key times, across them, a clip restarted, another clip started and
 * the first again, every path, each update against the reference. */
static void test_steps_and_seeks_around_key_times_on_every_path(void **state)
{
    (void)state;
    cna_model *m = NULL;
    assert_int_equal(cna_model_load_file(ROBOT, NULL, &m, NULL), CNA_OK);
    const cna_skinning_data *d = cna_model_skinning_data(m);
    const cna_clip *a = &d->clips[0], *b = &d->clips[1 % d->clip_count];
    int ran = 0;
    for (int path = 0; path < CNA__PLAYER_PATH_COUNT; ++path) {
        if (!cna__player_path_supported(path)) continue;
        ++ran;
        cna_player *player = NULL;
        assert_int_equal(cna_player_create(d, NULL, &player, NULL), CNA_OK);
        assert_true(cna__player_set_path(player, path));
        const cna_clip *clips[] = {a, a, b, a};
        for (size_t c = 0; c < sizeof clips / sizeof clips[0]; ++c) {
            const cna_clip *clip = clips[c];
            assert_int_equal((clip ? cna_player_start_clip(player, clip, NULL) : cna_player_stop(player, NULL)), CNA_OK);
            const cna_keyframe *k = clip->tracks[0].keys;
            const int64_t key1 = k[1].ticks, key2 = k[2].ticks;
            const int64_t seeks[] = {key1 + 1, key1 + 2, key1 + 1, key2 - 1, key1 + 3, key2,
                                     key2 - 1, key2 + 1, key1, key1 + 1, key2 + 5, key1 + 7,
                                     0, 1, key2 - 2, key2 - 1, key2, key2 + 1};
            for (size_t i = 0; i < sizeof seeks / sizeof seeks[0]; ++i) {
                assert_int_equal(cna_player_update(player, seeks[i], false, true, NULL), CNA_OK);
                assert_player_equals_reference(player, d, clip);
                assert_int_equal(cna_player_update(player, 1, true, true, NULL), CNA_OK);
                assert_player_equals_reference(player, d, clip);
            }
        }
        cna_player_free(player);
    }
    assert_true(ran >= 1);
    cna_model_free(m);
}

/* A clip's tracks edited while it plays (the keys themselves stay as they
 * are: cna_player_update's rule): a track without keys given its keys, and
 * tracks appended after start_clip (they have no cursor), each while every
 * track is strictly inside its key interval (the player then skips its
 * search for new arcs), then forward playback and seeks; every update
 * against the reference, on every path. */
static void test_clip_edited_while_playing_samples_as_the_reference(void **state)
{
    (void)state;
    static random_rig g;
    int ran = 0;
    for (int path = 0; path < CNA__PLAYER_PATH_COUNT; ++path) {
        if (!cna__player_path_supported(path)) continue;
        ++ran;
        rng r = {path == 0 ? 0xED17ED17ULL : 0xED17ED18ULL};
        random_rig_init(&g, &r, path == 1);
        g.tracks[3].key_count = 0;
        g.clip.track_count = RIG_TRACKS - 2;
        cna_player *player = NULL;
        assert_int_equal(cna_player_create(&g.data, NULL, &player, NULL), CNA_OK);
        assert_true(cna__player_set_path(player, path));
        assert_int_equal(cna_player_start_clip(player, &g.clip, NULL), CNA_OK);
        const int64_t step = CNA_TICKS_PER_SECOND / 240; /* 30 updates per key interval */
        for (int f = 0; f < 40; ++f) {
            if (f == 10) g.tracks[3].key_count = RIG_KEYS; /* cursor 0, no arc yet */
            if (f == 14) g.clip.track_count = RIG_TRACKS;  /* two tracks without state */
            assert_int_equal(cna_player_update(player, step, true, true, NULL), CNA_OK);
            assert_player_equals_reference(player, &g.data, &g.clip);
        }
        for (int f = 0; f < 200; ++f) {
            const bool seek = rng_range(&r, 0, 5) == 0;
            const int64_t ticks = seek ? rng_range(&r, -g.clip.duration, 2 * g.clip.duration)
                                       : CNA_TICKS_PER_SECOND / 60 + 3;
            assert_int_equal(cna_player_update(player, ticks, !seek, true, NULL), CNA_OK);
            assert_player_equals_reference(player, &g.data, &g.clip);
        }
        cna_player_free(player);
    }
    assert_true(ran >= 1);
}

/* The path a fresh player runs: the widest supported (AVX where the CPU
 * has it); unknown paths are refused and change nothing. */
static int expected_default_path(void)
{
    int widest = CNA__PLAYER_PATH_BASE;
    for (int p = 0; p < CNA__PLAYER_PATH_COUNT; ++p)
        if (cna__player_path_supported(p)) widest = p;
    return widest;
}

static void test_default_path(void **state)
{
    (void)state;
    two_bone_rig rig;
    two_bone_rig_init(&rig);
    cna_player *player = NULL;
    assert_int_equal(cna_player_create(&rig.data, NULL, &player, NULL), CNA_OK);
    const int expected = expected_default_path();
    assert_int_equal(cna__player_default_path(), expected);
    assert_true(cna__player_path_supported(expected));
    assert_int_equal(cna__player_path(player), expected);
    assert_false(cna__player_set_path(player, CNA__PLAYER_PATH_COUNT));
    assert_false(cna__player_set_path(player, -1));
    assert_int_equal(cna__player_path(player), expected);
#if defined(CNA_NO_SIMD)
    assert_int_equal(expected, CNA__PLAYER_PATH_BASE);
    assert_false(cna__player_path_supported(CNA__PLAYER_PATH_AVX));
    assert_false(cna__player_set_path(player, CNA__PLAYER_PATH_AVX));
    assert_int_equal(cna__player_path(player), CNA__PLAYER_PATH_BASE);
#endif
    cna_player_free(player);
}

static void assert_sinf2_matches(float x1, float x2)
{
    float s1, s2;
    cna__sinf2(x1, x2, &s1, &s2);
    const float r1 = cna_sinf(x1), r2 = cna_sinf(x2);
    if (memcmp(&s1, &r1, sizeof s1) || memcmp(&s2, &r2, sizeof s2)) {
        print_error("cna__sinf2(%a, %a) = (%a, %a), cna_sinf gives (%a, %a)\n", (double)x1,
                    (double)x2, (double)s1, (double)s2, (double)r1, (double)r2);
        fail();
    }
}

static void test_paired_sine_is_bit_identical_to_cna_sinf(void **state)
{
    (void)state;
    rng r = {0x51AE51AEULL};
    for (int i = 0; i < 200000; ++i) {
        const float lim = i % 4 == 0 ? 4.0f : 1.5707964f;
        assert_sinf2_matches(rng_float(&r, -lim, lim), rng_float(&r, -lim, lim));
    }
    /* CNA__PIO2F: the largest float <= CNA__PIO2, and the packed range test
     * around it */
    assert_true((double)CNA__PIO2F <= CNA__PIO2);
    assert_true((double)nextafterf(CNA__PIO2F, 2.0f) > CNA__PIO2);
    const float near_pio2[] = {CNA__PIO2F, nextafterf(CNA__PIO2F, 2.0f), nextafterf(CNA__PIO2F, 0.0f),
                               -CNA__PIO2F, -nextafterf(CNA__PIO2F, 2.0f)};
    for (size_t i = 0; i < 5; ++i)
        for (size_t j = 0; j < 5; ++j) assert_sinf2_matches(near_pio2[i], near_pio2[j]);
    const float edge[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-45f, 1.5707963f, 1.5707964f,
                          -1.5707964f, 1.5707965f, 3.1415927f, 1e10f, (float)INFINITY,
                          -(float)INFINITY, (float)NAN, 0.5f, 1.0f};
    const size_t n = sizeof edge / sizeof edge[0];
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) assert_sinf2_matches(edge[i], edge[j]);
}

static void assert_arcs_equal(const cna__arc *x, const cna__arc *y)
{
    if (memcmp(&x->theta, &y->theta, sizeof x->theta) ||
        memcmp(&x->inv_sin, &y->inv_sin, sizeof x->inv_sin) ||
        memcmp(&x->sign, &y->sign, sizeof x->sign) || x->linear != y->linear) {
        print_error("arc (%a, %a, %a, %d), expected (%a, %a, %a, %d)\n", (double)x->theta,
                    (double)x->inv_sin, (double)x->sign, (int)x->linear, (double)y->theta,
                    (double)y->inv_sin, (double)y->sign, (int)y->linear);
        fail();
    }
}

/* cna__arc_make8 against cna__arc_make for 1 to 8 pairs: random unit
 * quaternions (either branch of acos: |d| below and above 0.5), nearly
 * parallel and opposite ones (the linear branch), orthogonal ones (d = 0 and
 * -0, theta = pi/2 rounded above PIO2), non-unit ones (|d| > 1: NaN) and NaN. */
static void eight_arcs_on_path(int path)
{
    require_path(path);
    rng r = {0xA4C5A4C5ULL};
    const cna_quat special[][2] = {
        {{1, 0, 0, 0}, {0, 1, 0, 0}},
        {{1, 0, 0, 0}, {-0.0f, 1, 0, 0}},
        {{-1, 0, 0, 0}, {0, 1, 0, 0}},
        {{1, 0, 0, 0}, {1, 0, 0, 0}},
        {{1, 0, 0, 0}, {-1, 0, 0, 0}},
        {{0.6f, 0.8f, 0, 0}, {0.8f, 0.6f, 0, 0}},
        {{2, 0, 0, 0}, {2, 0, 0, 0}},
        {{0.9f, 0.5f, 0, 0}, {0.95f, 0.5f, 0, 0}},
        {{(float)NAN, 0, 0, 1}, {0, 0, 0, 1}},
        {{0, 0, 0, 1}, {0, 0, 0.70710677f, 0.70710677f}},
    };
    const size_t n_special = sizeof special / sizeof special[0];
    for (int i = 0; i < 50000; ++i) {
        cna_quat qa[8], qb[8];
        const cna_quat *pa[8], *pb[8];
        cna__arc got[8], want[8];
        cna__arc *po[8];
        const size_t count = (size_t)rng_range(&r, 1, 8);
        for (size_t k = 0; k < 8; ++k) {
            const int64_t kind = rng_range(&r, 0, 5);
            if (kind == 0 && i % 7 == 0) {
                const size_t s = (size_t)rng_range(&r, 0, (int64_t)n_special - 1);
                qa[k] = special[s][0];
                qb[k] = special[s][1];
            } else {
                qa[k] = rng_quat(&r);
                const float e = kind == 1 ? 1e-4f : (kind == 2 ? 1e-3f : 2.0f);
                qb[k] = cna_quat_normalize(cna_quat_make(qa[k].x + rng_float(&r, -e, e),
                                                         qa[k].y + rng_float(&r, -e, e),
                                                         qa[k].z + rng_float(&r, -e, e),
                                                         qa[k].w + rng_float(&r, -e, e)));
                if (rng_range(&r, 0, 1)) qb[k] = cna_quat_make(-qb[k].x, -qb[k].y, -qb[k].z, -qb[k].w);
            }
            pa[k] = &qa[k];
            pb[k] = &qb[k];
            po[k] = &got[k];
            memset(&got[k], 0x5A, sizeof got[k]);
        }
        if (path == CNA__PLAYER_PATH_BASE)
            cna__arc_make8(pa, pb, po, count);
        else
            cna__arc_make8_path(path, pa, pb, po, count);
        for (size_t k = 0; k < count; ++k) {
            cna__arc_make(&qa[k], &qb[k], &want[k]);
            assert_arcs_equal(&got[k], &want[k]);
        }
    }
    for (size_t s = 0; s < n_special; ++s) {
        const cna_quat *pa[8], *pb[8];
        cna__arc got[8], want;
        cna__arc *po[8];
        for (size_t k = 0; k < 8; ++k) {
            pa[k] = &special[s][0];
            pb[k] = &special[s][1];
            po[k] = &got[k];
        }
        cna__arc_make8_path(path, pa, pb, po, 8);
        cna__arc_make(&special[s][0], &special[s][1], &want);
        for (size_t k = 0; k < 8; ++k) assert_arcs_equal(&got[k], &want);
    }
}

static void test_eight_arcs_are_bit_identical_to_one_at_a_time_base(void **state)
{
    (void)state;
    eight_arcs_on_path(CNA__PLAYER_PATH_BASE);
}

#if !defined(CNA_NO_SIMD)
static void test_eight_arcs_are_bit_identical_to_one_at_a_time_avx(void **state)
{
    (void)state;
    eight_arcs_on_path(CNA__PLAYER_PATH_AVX);
}

#endif

static void assert_weights_equal(const cna__arc *arc, float t, bool weighed, float wa, float wb)
{
    float ra = 0.0f, rb = 0.0f;
    const bool want = cna__arc_weights(arc, t, &ra, &rb);
    if (weighed != want || (want && (memcmp(&wa, &ra, sizeof wa) || memcmp(&wb, &rb, sizeof wb)))) {
        print_error("arc (%a, %a, %a, %d) at t = %a: weights (%d, %a, %a), cna__arc_weights gives "
                    "(%d, %a, %a)\n",
                    (double)arc->theta, (double)arc->inv_sin, (double)arc->sign, (int)arc->linear,
                    (double)t, (int)weighed, (double)wa, (double)wb, (int)want, (double)ra, (double)rb);
        fail();
    }
}

/* One call of cna__arc_weights8_path for lanes 0..count-1, each against
 * cna__arc_weights. */
static void weights8_matches(int path, const cna__arc arcs[8], const float t[8], size_t count)
{
    const cna__arc *pa[8];
    float wa[8], wb[8];
    bool weighed[8];
    for (size_t k = 0; k < 8; ++k) pa[k] = &arcs[k];
    cna__arc_weights8_path(path, pa, t, wa, wb, weighed, count);
    for (size_t k = 0; k < count; ++k) assert_weights_equal(&arcs[k], t[k], weighed[k], wa[k], wb[k]);
}

/* cna__arc_weights8_path against cna__arc_weights for 1 to 8 lanes: arcs of
 * random, nearly parallel (linear), nearly opposite and orthogonal unit
 * quaternions (theta = pi/2 rounded above PIO2: t·theta out of the sines'
 * direct branch near t = 1), a NaN arc, arcs made by hand whose sines leave
 * the direct branch (theta -0, negative, beyond pi/2, infinite), and
 * amounts in (0, 1), exactly 0 (no weights), 1 and just below it (1 - t = 0
 * or tiny), and the smallest floats (t·theta = 0 or subnormal), mixed in
 * one call. */
static void eight_weights_on_path(int path)
{
    require_path(path);
    rng r = {0x3E1647E5ULL};
    const cna_quat special[][2] = {
        {{1, 0, 0, 0}, {0, 1, 0, 0}},
        {{0, 0, 0, 1}, {0, 0, 0.70710677f, 0.70710677f}},
        {{1, 0, 0, 0}, {1, 0, 0, 0}},
        {{1, 0, 0, 0}, {-1, 0, 0, 0}},
        {{0.6f, 0.8f, 0, 0}, {-0.8f, 0.6f, 0, 0}},
        {{(float)NAN, 0, 0, 1}, {0, 0, 0, 1}},
    };
    const size_t n_special = sizeof special / sizeof special[0];
    const cna__arc by_hand[] = {
        {-0.0f, 1.0f, 1.0f, false, false},  {-1.0f, 0.5f, -1.0f, false, false},    {3.0f, 7.0f, 1.0f, false, false},
        {2.5f, 1.0f, -1.0f, false, false},  {(float)INFINITY, 1.0f, 1.0f, false, false}, {1e30f, 1.0f, 1.0f, false, false},
        {1.5707965f, 1.0f, 1.0f, false, false},
    };
    const size_t n_by_hand = sizeof by_hand / sizeof by_hand[0];
    const float special_t[] = {0.0f, 1.0f, 0.99999994f, 0.9999999f, 1e-45f, 1e-38f, 0.5f, 1e-7f};
    const size_t n_t = sizeof special_t / sizeof special_t[0];
    for (int i = 0; i < 50000; ++i) {
        cna__arc arcs[8];
        float t[8];
        const size_t count = (size_t)rng_range(&r, 1, 8);
        for (size_t k = 0; k < 8; ++k) {
            const int64_t kind = rng_range(&r, 0, 7);
            cna_quat qa, qb;
            if (kind == 0) {
                const size_t s = (size_t)rng_range(&r, 0, (int64_t)n_special - 1);
                qa = special[s][0];
                qb = special[s][1];
            } else {
                qa = rng_quat(&r);
                const float e = kind == 1 ? 1e-4f : (kind == 2 ? 1e-2f : 2.0f);
                qb = cna_quat_normalize(cna_quat_make(qa.x + rng_float(&r, -e, e), qa.y + rng_float(&r, -e, e),
                                                      qa.z + rng_float(&r, -e, e), qa.w + rng_float(&r, -e, e)));
                if (rng_range(&r, 0, 1)) qb = cna_quat_make(-qb.x, -qb.y, -qb.z, -qb.w);
            }
            cna__arc_make(&qa, &qb, &arcs[k]);
            if (kind == 0 && rng_range(&r, 0, 1)) arcs[k] = by_hand[rng_range(&r, 0, (int64_t)n_by_hand - 1)];
            t[k] = rng_range(&r, 0, 5) == 0 ? special_t[rng_range(&r, 0, (int64_t)n_t - 1)]
                                             : rng_float(&r, 0.0f, 1.0f);
        }
        weights8_matches(path, arcs, t, count);
    }
    /* every special arc in all eight lanes at every special amount */
    for (size_t s = 0; s < n_special; ++s)
        for (size_t j = 0; j < n_t; ++j) {
            cna__arc arcs[8];
            float t[8];
            for (size_t k = 0; k < 8; ++k) {
                cna__arc_make(&special[s][0], &special[s][1], &arcs[k]);
                t[k] = special_t[(j + k) % n_t];
            }
            weights8_matches(path, arcs, t, 8);
        }
    for (size_t s = 0; s < n_by_hand; ++s)
        for (size_t j = 0; j < n_t; ++j) {
            cna__arc arcs[8];
            float t[8];
            for (size_t k = 0; k < 8; ++k) {
                arcs[k] = by_hand[s];
                t[k] = special_t[(j + k) % n_t];
            }
            weights8_matches(path, arcs, t, 8);
        }
}

static void test_eight_weights_are_bit_identical_to_one_at_a_time_base(void **state)
{
    (void)state;
    eight_weights_on_path(CNA__PLAYER_PATH_BASE);
}

#if !defined(CNA_NO_SIMD)
static void test_eight_weights_are_bit_identical_to_one_at_a_time_avx(void **state)
{
    (void)state;
    eight_weights_on_path(CNA__PLAYER_PATH_AVX);
}
#endif

int main(void)
{
    fp_env_from_test_environment(); /* CNA_TEST_FTZ_DAZ: tests/fp_env.h */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_path_robot),
#if !defined(CNA_NO_SIMD)
        cmocka_unit_test(test_avx_path_robot),
#endif
        cmocka_unit_test(test_base_path_random_rigs),
#if !defined(CNA_NO_SIMD)
        cmocka_unit_test(test_avx_path_random_rigs),
#endif
        cmocka_unit_test(test_steps_and_seeks_around_key_times_on_every_path),
        cmocka_unit_test(test_clip_edited_while_playing_samples_as_the_reference),
        cmocka_unit_test(test_default_path),
        cmocka_unit_test(test_paired_sine_is_bit_identical_to_cna_sinf),
        cmocka_unit_test(test_eight_arcs_are_bit_identical_to_one_at_a_time_base),
#if !defined(CNA_NO_SIMD)
        cmocka_unit_test(test_eight_arcs_are_bit_identical_to_one_at_a_time_avx),
#endif
        cmocka_unit_test(test_eight_weights_are_bit_identical_to_one_at_a_time_base),
#if !defined(CNA_NO_SIMD)
        cmocka_unit_test(test_eight_weights_are_bit_identical_to_one_at_a_time_avx),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
