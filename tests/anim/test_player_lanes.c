/*
 * Players in SIMD lanes: a crowd poses players of one skeleton and one
 * clip that are within 16 places of each other in its list several at a
 * time in the lanes of its vector kernels (up to eight together). Every player must end every update with
 * the bytes of its twin updated alone by cna_player_update (local, world
 * and skin transforms, position): every RobotExpressive clip, exact and
 * fast sampling, random rigs with and without root prefixes, steps, seeks
 * and clamped (non-looping) play, lists mixing clips, paths, sampling modes
 * and prefixes, tracks out of time order, a clip edited after it was
 * started, skeletons at and above the lanes' joint limit (and of one joint). The
 * number of players posed in lanes is asserted too, so the lanes are known
 * to have run. A path this build or CPU lacks is reported as skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fp_env.h"

#include "anim/anim_internal.h"
#include "anim/fixtures.h"
#include "anim/player_kernel.h"
#include "anim/random_rig.h"

#define ROBOT CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb"

enum { MAX_PAIRS = 40 };

/* Players for the crowd and their twins, updated alone. */
typedef struct pairs {
    size_t count;
    cna_player *lanes[MAX_PAIRS];
    cna_player *single[MAX_PAIRS];
} pairs;

static void require_path(int path)
{
    if (!cna__player_path_supported(path)) {
        print_message("player path %d: not supported by this build or CPU\n", path);
        skip();
    }
}

/* A player and its twin: the same path, sampling, root prefix (NULL: the
 * data's), clip and starting position. */
static void add_pair(pairs *s, const cna_skinning_data *d, const cna_clip *clip, int path,
                     cna_sampling sampling, const cna_mat4 *prefix, int64_t phase)
{
    assert_true(s->count < MAX_PAIRS);
    cna_player **both[2] = {&s->lanes[s->count], &s->single[s->count]};
    for (int k = 0; k < 2; ++k) {
        cna_player *p = NULL;
        assert_int_equal(cna_player_create(d, NULL, &p, NULL), CNA_OK);
        assert_true(cna__player_set_path(p, path));
        assert_int_equal(cna_player_set_sampling(p, sampling, NULL), CNA_OK);
        if (prefix) assert_int_equal(cna_player_set_root_prefix(p, prefix, (size_t)d->bone_count, NULL), CNA_OK);
        assert_int_equal((clip ? cna_player_start_clip(p, clip, NULL) : cna_player_stop(p, NULL)), CNA_OK);
        assert_int_equal(cna_player_update(p, phase, false, true, NULL), CNA_OK);
        *both[k] = p;
    }
    s->count++;
}

static void free_pairs(pairs *s)
{
    for (size_t i = 0; i < s->count; ++i) {
        cna_player_free(s->lanes[i]);
        cna_player_free(s->single[i]);
    }
    s->count = 0;
}

static void assert_pairs_identical(const pairs *s)
{
    for (size_t i = 0; i < s->count; ++i) {
        const cna_player *a = s->lanes[i], *b = s->single[i];
        const int32_t n = cna_player_bone_count(a);
        assert_int_equal(cna_player_position(a), cna_player_position(b));
        assert_matrices_identical(cna_player_bone_transforms(a), cna_player_bone_transforms(b), n);
        assert_matrices_identical(cna_player_world_transforms(a), cna_player_world_transforms(b), n);
        assert_matrices_identical(cna_player_skin_transforms(a), cna_player_skin_transforms(b), n);
    }
}

/* `frames` updates by `step` (with seeks: one random absolute seek in
 * three), the lanes' players by cna__players_advance (expecting
 * `in_lanes` of them posed in lanes each time) or, with a crowd, by
 * cna_crowd_update; the twins one at a time; compared after each update. */
static void run_pairs(pairs *s, cna_crowd *crowd, size_t in_lanes, int64_t step, bool loop,
                      int frames, rng *seeks, int64_t span)
{
    for (int f = 0; f < frames; ++f) {
        const bool seek = seeks && rng_range(seeks, 0, 3) == 0;
        const int64_t ticks = seek ? rng_range(seeks, -span, 2 * span) : step;
        if (crowd) {
            cna_error err;
            const cna_result r = cna_crowd_update(crowd, s->lanes, s->count, ticks, !seek, loop, &err);
            if (r) print_error("%s\n", err.message);
            assert_int_equal(r, CNA_OK);
        } else {
            assert_int_equal(cna__players_advance(s->lanes, s->count, ticks, !seek, loop), in_lanes);
        }
        for (size_t i = 0; i < s->count; ++i)
            assert_int_equal(cna_player_update(s->single[i], ticks, !seek, loop, NULL), CNA_OK);
        assert_pairs_identical(s);
    }
}

static cna_model *load_robot(const cna_skinning_data **d)
{
    cna_model *m = NULL;
    cna_error err;
    const cna_result r = cna_model_load_file(ROBOT, NULL, &m, &err);
    if (r) print_error("%s: %s\n", ROBOT, err.message);
    assert_int_equal(r, CNA_OK);
    *d = cna_model_skinning_data(m);
    assert_non_null(*d);
    return m;
}

/* Players of one clip at spread phases: 17 per clip (runs of 8, 8 and 1),
 * 2..9 for the first clip; exact and fast sampling. */
static void robot_on_path(int path)
{
    require_path(path);
    const cna_skinning_data *d = NULL;
    cna_model *m = load_robot(&d);
    rng seeks = {0x1A4E5EEDULL};
    pairs s = {0};
    for (size_t c = 0; c < d->clip_count; ++c) {
        const cna_clip *clip = &d->clips[c];
        for (int mode = 0; mode < 2; ++mode) {
            const cna_sampling sampling = mode ? CNA_SAMPLING_FAST : CNA_SAMPLING_EXACT;
            for (size_t i = 0; i < 17; ++i)
                add_pair(&s, d, clip, path, sampling, NULL, clip->duration * (int64_t)i / 17 + 1000 * (int64_t)i);
            const int frames = (int)(clip->duration * 60 / CNA_TICKS_PER_SECOND) + 30; /* wraps once */
            run_pairs(&s, NULL, 16, CNA_TICKS_PER_SECOND / 60 + 1, true, frames, NULL, 0);
            run_pairs(&s, NULL, 16, CNA_TICKS_PER_SECOND / 30, true, 40, &seeks, clip->duration);
            free_pairs(&s);
        }
    }
    for (size_t count = 2; count <= 9; ++count) {
        const cna_clip *clip = &d->clips[0];
        for (size_t i = 0; i < count; ++i)
            add_pair(&s, d, clip, path, CNA_SAMPLING_EXACT, NULL, clip->duration * (int64_t)i / (int64_t)count);
        run_pairs(&s, NULL, count == 9 ? 8 : count, CNA_TICKS_PER_SECOND / 60, true, 90, NULL, 0);
        free_pairs(&s);
    }
    cna_model_free(m);
}

static void test_base_path_robot_in_lanes(void **state)
{
    (void)state;
    robot_on_path(CNA__PLAYER_PATH_BASE);
}
/* A CNA_NO_SIMD build has the base path only: the AVX cases are not built
 * there, rather than skipped. */
#if !defined(CNA_NO_SIMD)
static void test_avx_path_robot_in_lanes(void **state)
{
    (void)state;
    robot_on_path(CNA__PLAYER_PATH_AVX);
}
#endif

/* Random rigs (parents that are not the previous bone, untracked bones,
 * two tracks for one bone, nearly equal and opposite rotations; every
 * other one with root prefixes), 11 players each (runs of 8 and 3),
 * looping and clamped play. */
static void random_rigs_on_path(int path)
{
    require_path(path);
    static random_rig g;
    rng r = {0x1A4E0002ULL};
    pairs s = {0};
    for (int round = 0; round < 8; ++round) {
        random_rig_init(&g, &r, round % 2 == 1);
        for (size_t i = 0; i < 11; ++i)
            add_pair(&s, &g.data, &g.clip, path, round % 4 == 2 ? CNA_SAMPLING_FAST : CNA_SAMPLING_EXACT,
                     NULL, rng_range(&r, 0, g.clip.duration));
        run_pairs(&s, NULL, 11, CNA_TICKS_PER_SECOND / 60 + 7, true, 120, NULL, 0);
        run_pairs(&s, NULL, 11, CNA_TICKS_PER_SECOND / 24, true, 40, &r, g.clip.duration);
        run_pairs(&s, NULL, 11, CNA_TICKS_PER_SECOND / 50, false, 60, NULL, 0); /* runs past the end */
        free_pairs(&s);
    }
}

static void test_base_path_random_rigs_in_lanes(void **state)
{
    (void)state;
    random_rigs_on_path(CNA__PLAYER_PATH_BASE);
}
#if !defined(CNA_NO_SIMD)
static void test_avx_path_random_rigs_in_lanes(void **state)
{
    (void)state;
    random_rigs_on_path(CNA__PLAYER_PATH_AVX);
}
#endif

/* A list whose neighbours differ (clip, no clip, sampling mode, root
 * prefix, path) is grouped into players that can share lanes, each group
 * posed correctly: counted, and through crowds of one and two threads. */
static void test_mixed_list_is_split_into_runs(void **state)
{
    (void)state;
    const cna_skinning_data *d = NULL;
    cna_model *m = load_robot(&d);
    assert_true(d->clip_count >= 2);
    const cna_clip *a = &d->clips[0], *b = &d->clips[1];
    static cna_mat4 prefix1[64], prefix2[64];
    assert_true(d->bone_count <= 64 && d->bone_count <= CNA__LANES_MAX_BONES);
    for (int32_t p = 0; p < d->bone_count; ++p) {
        cna_mat4_compose(&prefix1[p], cna_vec3_make(0.5f, -1.0f, 2.0f), cna_quat_make(0.0f, 0.6f, 0.0f, 0.8f),
                         cna_vec3_make(1.0f, 1.0f, 1.0f));
        cna_mat4_compose(&prefix2[p], cna_vec3_make(-3.0f, 0.0f, 1.0f), cna_quat_make(0.8f, 0.0f, 0.0f, 0.6f),
                         cna_vec3_make(2.0f, 2.0f, 2.0f));
    }
    const int base = CNA__PLAYER_PATH_BASE;
    const int wide = cna__player_default_path();
    pairs s = {0};
    size_t in_lanes = 0;
    /* count players of one kind after another */
    struct {
        const cna_clip *clip;
        int path;
        cna_sampling sampling;
        const cna_mat4 *prefix;
        size_t count;
    } runs[] = {
        {a, wide, CNA_SAMPLING_EXACT, NULL, 3},     {b, wide, CNA_SAMPLING_EXACT, NULL, 5},
        {NULL, wide, CNA_SAMPLING_EXACT, NULL, 2},  {a, wide, CNA_SAMPLING_FAST, NULL, 4},
        {a, wide, CNA_SAMPLING_EXACT, prefix1, 4},  {a, wide, CNA_SAMPLING_EXACT, prefix2, 2},
        {a, wide, CNA_SAMPLING_EXACT, NULL, 1},     {b, wide, CNA_SAMPLING_EXACT, NULL, 10},
        {a, base, CNA_SAMPLING_EXACT, NULL, 1},     {a, wide, CNA_SAMPLING_EXACT, NULL, 1},
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
        for (size_t i = 0; i < runs[r].count; ++i) {
            const int64_t phase = runs[r].clip ? runs[r].clip->duration * (int64_t)i / 7 : 0;
            add_pair(&s, d, runs[r].clip, runs[r].path, runs[r].sampling, runs[r].prefix, phase);
        }
    }
    /* lanes form within windows of 16 players: players 0-15 give 3 (a), 5
     * (b), 2 (no clip), 4 (fast) and 2 (prefix1) in lanes; 16-31 give 2
     * (prefix1), 2 (prefix2), 8 and 2 (b), and player 20 (a) joins 31 when
     * the paths agree; player 32 is alone */
    in_lanes = 16 + 14 + (base == wide ? 2 : 0);
    run_pairs(&s, NULL, in_lanes, CNA_TICKS_PER_SECOND / 60, true, 100, NULL, 0);
    for (uint32_t threads = 1; threads <= 2; ++threads) {
        cna_crowd_options opts = {0};
        opts.thread_count = threads;
        cna_crowd *crowd = NULL;
        assert_int_equal(cna_crowd_create(&opts, &crowd, NULL), CNA_OK);
        run_pairs(&s, crowd, 0, CNA_TICKS_PER_SECOND / 60 + 3, true, 80, NULL, 0);
        cna_crowd_free(crowd);
    }
    free_pairs(&s);
    cna_model_free(m);
}

/* A track whose keys are out of time order (sampled by the linear search)
 * and tracks added to the clip after the players started it (no track
 * state: sampled by the linear search too), in lanes. */
static void test_unsorted_and_added_tracks_in_lanes(void **state)
{
    (void)state;
    static random_rig g;
    rng r = {0x1A4E0003ULL};
    random_rig_init(&g, &r, false);
    const cna_keyframe swap = g.keys[3][2];
    g.keys[3][2] = g.keys[3][5];
    g.keys[3][5] = swap;
    g.clip.track_count = RIG_TRACKS - 3;
    pairs s = {0};
    for (size_t i = 0; i < 6; ++i)
        add_pair(&s, &g.data, &g.clip, cna__player_default_path(), CNA_SAMPLING_EXACT, NULL,
                 rng_range(&r, 0, g.clip.duration));
    run_pairs(&s, NULL, 6, CNA_TICKS_PER_SECOND / 60, true, 40, NULL, 0);
    g.clip.track_count = RIG_TRACKS; /* edited under the players */
    run_pairs(&s, NULL, 6, CNA_TICKS_PER_SECOND / 60 + 1, true, 80, NULL, 0);
    free_pairs(&s);
}

/* A chain of `bones` joints with a track on every fifth. */
enum { CHAIN_MAX = 90, CHAIN_KEYS = 4 };
typedef struct chain_rig {
    int32_t hierarchy[CHAIN_MAX];
    cna_mat4 bind[CHAIN_MAX], inverse_bind[CHAIN_MAX];
    cna_keyframe keys[CHAIN_MAX][CHAIN_KEYS];
    cna_bone_track tracks[CHAIN_MAX];
    cna_clip clip;
    cna_skinning_data data;
} chain_rig;

static void chain_rig_init(chain_rig *g, int32_t bones, rng *r)
{
    memset(g, 0, sizeof *g);
    size_t tracks = 0;
    for (int32_t p = 0; p < bones; ++p) {
        g->hierarchy[p] = p - 1;
        g->bind[p] = random_matrix(r);
        g->inverse_bind[p] = random_matrix(r);
        if (p % 5 != 0) continue;
        for (int k = 0; k < CHAIN_KEYS; ++k)
            g->keys[tracks][k] = cna_keyframe_make_trs(
                (int64_t)k * CNA_TICKS_PER_SECOND / 4, cna_vec3_make(rng_float(r, -1, 1), 0.5f, 0.0f),
                rng_quat(r), cna_vec3_make(1.0f, rng_float(r, 0.5f, 2), 1.0f));
        g->tracks[tracks] = cna_bone_track_make(p, g->keys[tracks], CHAIN_KEYS);
        tracks++;
    }
    g->clip = cna_clip_make("Chain", (int64_t)(CHAIN_KEYS - 1) * CNA_TICKS_PER_SECOND / 4, g->tracks, tracks);
    g->data = cna_skinning_data_make(bones, g->hierarchy, g->bind, g->inverse_bind);
    g->data.clips = &g->clip;
    g->data.clip_count = 1;
}

/* Skeletons of one joint and of CNA__LANES_MAX_BONES go in lanes; one of
 * more joints (a chain of 90, more than a skinning palette holds) one
 * player at a time; all exact. */
static void test_skeleton_sizes_in_and_out_of_lanes(void **state)
{
    (void)state;
    static chain_rig g;
    rng r = {0x1A4E0004ULL};
    const int32_t sizes[4] = {1, CNA__LANES_MAX_BONES, CNA__LANES_MAX_BONES + 1, CHAIN_MAX};
    for (int k = 0; k < 4; ++k) {
        chain_rig_init(&g, sizes[k], &r);
        pairs s = {0};
        for (size_t i = 0; i < 5; ++i)
            add_pair(&s, &g.data, &g.clip, cna__player_default_path(), CNA_SAMPLING_EXACT, NULL,
                     g.clip.duration * (int64_t)i / 5);
        run_pairs(&s, NULL, k < 2 ? 5 : 0, CNA_TICKS_PER_SECOND / 60, true, 60, NULL, 0);
        free_pairs(&s);
    }
}

int main(void)
{
    fp_env_from_test_environment(); /* CNA_TEST_FTZ_DAZ: tests/fp_env.h */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_path_robot_in_lanes),
#if !defined(CNA_NO_SIMD)
        cmocka_unit_test(test_avx_path_robot_in_lanes),
#endif
        cmocka_unit_test(test_base_path_random_rigs_in_lanes),
#if !defined(CNA_NO_SIMD)
        cmocka_unit_test(test_avx_path_random_rigs_in_lanes),
#endif
        cmocka_unit_test(test_mixed_list_is_split_into_runs),
        cmocka_unit_test(test_unsorted_and_added_tracks_in_lanes),
        cmocka_unit_test(test_skeleton_sizes_in_and_out_of_lanes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
