/*
 * The AnimationPlayer, one test per rule of the spec's "AnimationPlayer,
 * precisely" (and the two-bone example), with exact expected values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "anim/fixtures.h"

#define SEC(s) cna_ticks_from_seconds(s)

static cna_player *make_player(const cna_skinning_data *data)
{
    cna_player *player = NULL;
    cna_error err;
    cna_result r = cna_player_create(data, NULL, &player, &err);
    if (r != CNA_OK) print_error("cna_player_create: %s\n", err.message);
    assert_int_equal(r, CNA_OK);
    assert_non_null(player);
    return player;
}

static void seek(cna_player *player, double seconds, bool loop)
{
    assert_int_equal(cna_player_update_seconds(player, seconds, false, loop, NULL), CNA_OK);
}

static void advance(cna_player *player, double seconds, bool loop)
{
    assert_int_equal(cna_player_update_seconds(player, seconds, true, loop, NULL), CNA_OK);
}

/* A snapshot of everything observable, to prove a refused call changed nothing. */
typedef struct snapshot {
    int64_t position;
    const cna_clip *clip;
    cna_mat4 local[4], world[4], skin[4];
} snapshot;

static void take(const cna_player *player, snapshot *s)
{
    const size_t n = (size_t)cna_player_bone_count(player);
    assert_true(n <= 4);
    memset(s, 0, sizeof *s);
    s->position = cna_player_position(player);
    s->clip = cna_player_current_clip(player);
    memcpy(s->local, cna_player_bone_transforms(player), n * sizeof(cna_mat4));
    memcpy(s->world, cna_player_world_transforms(player), n * sizeof(cna_mat4));
    memcpy(s->skin, cna_player_skin_transforms(player), n * sizeof(cna_mat4));
}

static void assert_unchanged(const cna_player *player, const snapshot *before)
{
    snapshot now;
    take(player, &now);
    assert_true(now.position == before->position);
    assert_ptr_equal(now.clip, before->clip);
    assert_memory_equal(&now, before, sizeof now);
}

/* ------------------------------------------------------------------ the worked example */

static void test_two_bone_child_inherits_parent_motion_at_half_second(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, cna_skinning_data_find_clip(&r.data, "Move"), NULL),
                     CNA_OK);
    advance(player, 0.5, true);
    assert_true(cna_player_position(player) == 5000000);
    const cna_mat4 *world = cna_player_world_transforms(player);
    assert_translation(&world[0], 1, 0, 0);
    assert_translation(&world[1], 1, 1, 0);
    cna_mat4 expected[2];
    cna_mat4_translation(&expected[0], cna_vec3_make(1, 0, 0));
    cna_mat4_translation(&expected[1], cna_vec3_make(1, 1, 0));
    assert_matrices_identical(world, expected, 2);
    cna_player_free(player);
}

static void test_fresh_player_returns_bind_pose_at_once(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_bone_count(player), 2);
    assert_null(cna_player_current_clip(player));
    assert_true(cna_player_position(player) == 0);
    assert_ptr_equal(cna_player_skinning_data(player), &r.data);
    assert_matrices_identical(cna_player_bone_transforms(player), r.bind, 2);
    assert_matrices_identical(cna_player_world_transforms(player), r.bind, 2);
    assert_matrices_identical(cna_player_skin_transforms(player), r.bind, 2);
    cna_player_free(player);
}

static void test_clip_start_middle_and_end(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    const cna_mat4 *world = cna_player_world_transforms(player);
    seek(player, 0.0, false);
    assert_true(cna_player_position(player) == 0);
    assert_translation(&world[0], 0, 0, 0);
    assert_translation(&world[1], 0, 1, 0);
    seek(player, 0.5, false);
    assert_true(cna_player_position(player) == 5000000);
    assert_translation(&world[0], 1, 0, 0);
    assert_translation(&world[1], 1, 1, 0);
    seek(player, 1.0, false);
    assert_true(cna_player_position(player) == 10000000);
    assert_translation(&world[0], 2, 0, 0);
    assert_translation(&world[1], 2, 1, 0);
    cna_player_free(player);
}

static void test_start_clip_rewinds_to_zero(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 0.75, true);
    assert_true(cna_player_position(player) == 7500000);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    assert_true(cna_player_position(player) == 0);
    assert_ptr_equal(cna_player_current_clip(player), &r.clip);
    advance(player, 0.25, true);
    assert_true(cna_player_position(player) == 2500000);
    assert_translation(&cna_player_world_transforms(player)[0], 0.5, 0, 0);
    cna_player_free(player);
}

/* ------------------------------------------------------------------ looping and clamping */

static void test_time_past_the_end_clamps_without_loop(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    seek(player, 2.0, false);
    assert_true(cna_player_position(player) == 10000000);
    assert_translation(&cna_player_world_transforms(player)[0], 2, 0, 0);
    advance(player, 5.0, false);
    assert_true(cna_player_position(player) == 10000000);
    seek(player, -1.0, false);
    assert_true(cna_player_position(player) == 0);
    assert_translation(&cna_player_world_transforms(player)[0], 0, 0, 0);
    advance(player, -0.25, false);
    assert_true(cna_player_position(player) == 0);
    cna_player_free(player);
}

static void test_time_past_the_end_wraps_with_loop(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    seek(player, 1.25, true);
    assert_true(cna_player_position(player) == 2500000);
    assert_translation(&cna_player_world_transforms(player)[0], 0.5, 0, 0);
    seek(player, 7.5, true);
    assert_true(cna_player_position(player) == 5000000);
    assert_translation(&cna_player_world_transforms(player)[0], 1, 0, 0);
    cna_player_free(player);
}

/* Looping relative steps around the edges of [0, D): the usual step (both in
 * [0, D)) and every other case give the floor-mod of the exact sum. */
static void test_looping_steps_at_the_edges(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    const int64_t d = r.clip.duration;
    assert_true(d > 2);
    const int64_t bases[] = {0, 1, d / 2, d - 1};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; ++i) {
        const int64_t b = bases[i];
        const int64_t steps[] = {0, 1, d - 1 - b, d - b, d - b + 1, d - 1, d, d + 1, -1, -b,
                                 -b - 1, -d, 2 * d + 3, INT64_MAX, INT64_MIN, INT64_MIN + 1};
        for (size_t j = 0; j < sizeof steps / sizeof steps[0]; ++j) {
            assert_int_equal(cna_player_update(player, b, false, true, NULL), CNA_OK);
            assert_true(cna_player_position(player) == b);
            assert_int_equal(cna_player_update(player, steps[j], true, true, NULL), CNA_OK);
            __extension__ typedef __int128 wide;
            wide m = ((wide)b + (wide)steps[j]) % d;
            if (m < 0) m += d;
            assert_true(cna_player_position(player) == (int64_t)m);
        }
    }
    cna_player_free(player);
}

static void test_relative_updates_accumulate(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 0.25, true);
    advance(player, 0.25, true);
    advance(player, 0.25, true);
    assert_true(cna_player_position(player) == 7500000);
    assert_translation(&cna_player_world_transforms(player)[0], 1.5, 0, 0);
    assert_translation(&cna_player_world_transforms(player)[1], 1.5, 1, 0);
    advance(player, 0.5, true); /* 1.25 s wraps to 0.25 s */
    assert_true(cna_player_position(player) == 2500000);
    assert_translation(&cna_player_world_transforms(player)[0], 0.5, 0, 0);
    cna_player_free(player);
}

static void test_negative_time_wraps_with_loop(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    seek(player, -0.25, true);
    assert_true(cna_player_position(player) == 7500000);
    assert_translation(&cna_player_world_transforms(player)[0], 1.5, 0, 0);
    advance(player, -1.0, true); /* reverse playback by a whole clip: same place */
    assert_true(cna_player_position(player) == 7500000);
    advance(player, -0.5, true);
    assert_true(cna_player_position(player) == 2500000);
    advance(player, -0.5, true);
    assert_true(cna_player_position(player) == 7500000);
    seek(player, -3.0, true); /* an exact multiple lands on 0, not on D */
    assert_true(cna_player_position(player) == 0);
    cna_player_free(player);
}

static void test_zero_duration_clip_holds_position_at_zero(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.keys[0].translation = cna_vec3_make(3, 0, 0);
    r.clip.duration = 0;
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 0.5, true);
    assert_true(cna_player_position(player) == 0);
    assert_translation(&cna_player_world_transforms(player)[0], 3, 0, 0); /* sampled at 0 */
    seek(player, 0.75, false);
    assert_true(cna_player_position(player) == 0);
    advance(player, -0.5, true);
    assert_true(cna_player_position(player) == 0);
    assert_translation(&cna_player_world_transforms(player)[0], 3, 0, 0);
    cna_player_free(player);
}

static void test_negative_duration_clip_holds_position_at_zero(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.clip.duration = -10000000;
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 0.5, true);
    assert_true(cna_player_position(player) == 0);
    advance(player, -0.5, false);
    assert_true(cna_player_position(player) == 0);
    cna_player_free(player);
}

static void test_end_equals_start_for_a_looping_clip(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    seek(player, 0.0, true);
    snapshot at_start;
    take(player, &at_start);
    seek(player, 1.0, true);
    assert_true(cna_player_position(player) == 0);
    assert_unchanged(player, &at_start);
    seek(player, 0.5, true);
    advance(player, 0.5, true);
    assert_unchanged(player, &at_start);
    assert_translation(&cna_player_world_transforms(player)[0], 0, 0, 0);
    cna_player_free(player);
}

static void test_no_clip_holds_position_at_zero_and_shows_bind_pose(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    advance(player, 0.5, true);
    assert_true(cna_player_position(player) == 0);
    assert_matrices_identical(cna_player_world_transforms(player), r.bind, 2);
    /* stopping a playing clip returns to the bind pose at the next update */
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 0.5, true);
    assert_translation(&cna_player_world_transforms(player)[0], 1, 0, 0);
    /* a NULL clip (a name find_clip did not find) is refused: the clip plays on */
    cna_error err;
    assert_null(cna_skinning_data_find_clip(&r.data, "Mvoe"));
    assert_int_equal(cna_player_start_clip(player, cna_skinning_data_find_clip(&r.data, "Mvoe"), &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "cna_player_start_clip: clip is NULL (cna_skinning_data_find_clip returns NULL "
                                     "for a name no clip has); to show the bind pose, call cna_player_stop");
    assert_ptr_equal(cna_player_current_clip(player), &r.clip);
    assert_true(cna_player_position(player) == 5000000);
    assert_int_equal(cna_player_stop(NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "cna_player_stop: player is NULL");
    assert_int_equal(cna_player_stop(player, NULL), CNA_OK);
    assert_null(cna_player_current_clip(player));
    advance(player, 0.5, true);
    assert_true(cna_player_position(player) == 0);
    assert_matrices_identical(cna_player_bone_transforms(player), r.bind, 2);
    assert_matrices_identical(cna_player_world_transforms(player), r.bind, 2);
    cna_player_free(player);
}

static void test_hostile_tick_values_wrap_and_clamp_exactly(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r); /* D = 10^7 ticks */
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    seek(player, 0.5, true);
    /* 5000000 + INT64_MAX = 5000000 + 922337203685 * 10^7 + 4775807 -> 9775807 */
    assert_int_equal(cna_player_update(player, INT64_MAX, true, true, NULL), CNA_OK);
    assert_true(cna_player_position(player) == 9775807);
    /* 9775807 + INT64_MIN: INT64_MIN mod 10^7 = 5224192; 9775807 + 5224192 - 10^7 = 5000000 - 1 */
    assert_int_equal(cna_player_update(player, INT64_MIN, true, true, NULL), CNA_OK);
    assert_true(cna_player_position(player) == 4999999);
    assert_int_equal(cna_player_update(player, INT64_MIN, false, true, NULL), CNA_OK);
    assert_true(cna_player_position(player) == 5224192);
    assert_int_equal(cna_player_update(player, INT64_MAX, true, false, NULL), CNA_OK);
    assert_true(cna_player_position(player) == 10000000);
    assert_int_equal(cna_player_update(player, INT64_MAX, true, false, NULL), CNA_OK);
    assert_true(cna_player_position(player) == 10000000);
    assert_int_equal(cna_player_update(player, INT64_MIN, true, false, NULL), CNA_OK);
    assert_true(cna_player_position(player) == 0);
    cna_player_free(player);
}

static void test_update_seconds_rounds_to_the_nearest_tick(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 1.0 / 60.0, true);
    assert_true(cna_player_position(player) == 166667);
    cna_player_free(player);
}

/* ------------------------------------------------------------------ outputs */

static void test_skin_is_world_times_inverse_bind(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    /* inverse_bind[1] = S(2): skin[1] = world[1] · S(2) keeps world's translation
     * (1, 1, 0); the reversed product would give (2, 2, 0). */
    cna_mat4_compose(&r.inverse_bind[1], cna_vec3_zero(), cna_quat_identity(), cna_vec3_make(2, 2, 2));
    cna_mat4_translation(&r.inverse_bind[0], cna_vec3_make(0, 0, -1));
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 0.5, true);
    const cna_mat4 *world = cna_player_world_transforms(player);
    const cna_mat4 *skin = cna_player_skin_transforms(player);
    assert_translation(&world[1], 1, 1, 0);
    assert_translation(&skin[1], 1, 1, 0);
    assert_true(skin[1].m[0] == 2.0f && skin[1].m[5] == 2.0f && skin[1].m[10] == 2.0f);
    assert_translation(&skin[0], 1, 0, -1);
    for (int p = 0; p < 2; ++p) {
        cna_mat4 expected;
        cna_mat4_mul(&expected, &world[p], &r.inverse_bind[p]);
        assert_matrices_identical(&skin[p], &expected, 1);
    }
    cna_player_free(player);
}

static void test_bone_transforms_are_local_and_world_composes_parents(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 0.5, true);
    const cna_mat4 *local = cna_player_bone_transforms(player);
    assert_translation(&local[0], 1, 0, 0);
    assert_matrices_identical(&local[1], &r.bind[1], 1); /* untracked: bind pose verbatim */
    cna_mat4 expected;
    cna_mat4_mul(&expected, &cna_player_world_transforms(player)[0], &local[1]);
    assert_matrices_identical(&cna_player_world_transforms(player)[1], &expected, 1);
    cna_player_free(player);
}

static void test_tracked_bone_local_is_translation_rotation_scale(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    const cna_quat q = cna_quat_make(0, 0, 0.70710678f, 0.70710678f);
    r.keys[0] = cna_keyframe_make_trs(0, cna_vec3_make(1, 2, 3), q, cna_vec3_make(2, 3, 4));
    r.keys[1] = r.keys[0];
    r.keys[1].ticks = 10000000;
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 0.5, true);
    cna_mat4 expected;
    cna_mat4_compose(&expected, r.keys[0].translation, q, r.keys[0].scale);
    assert_matrices_identical(&cna_player_bone_transforms(player)[0], &expected, 1);
    cna_player_free(player);
}

static void test_later_track_for_the_same_bone_wins(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_keyframe other[1] = {cna_keyframe_make(0, cna_vec3_make(7, 0, 0))};
    cna_bone_track tracks[2] = {r.track, cna_bone_track_make(0, other, 1)};
    r.clip.tracks = tracks;
    r.clip.track_count = 2;
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 0.5, true);
    assert_translation(&cna_player_world_transforms(player)[0], 7, 0, 0);
    cna_player_free(player);
}

/* ------------------------------------------------------------------ refusals */

static void test_array_size_mismatch_is_refused_and_changes_nothing(void **state)
{
    (void)state;
    static const char *const messages[3] = {
        "hierarchy_count: 1 differs from bone_count 2",
        "bind_pose_count: 3 differs from bone_count 2",
        "inverse_bind_pose_count: 1 differs from bone_count 2",
    };
    for (int which = 0; which < 3; ++which) {
        two_bone_rig r;
        two_bone_rig_init(&r);
        cna_player *player = make_player(&r.data);
        assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
        advance(player, 0.5, true);
        snapshot before;
        take(player, &before);
        size_t *count = which == 0   ? &r.data.hierarchy_count
                        : which == 1 ? &r.data.bind_pose_count
                                     : &r.data.inverse_bind_pose_count;
        *count = which == 1 ? 3 : 1;
        cna_error err;
        assert_int_equal(cna_player_update_seconds(player, 0.25, true, true, &err),
                         CNA_ERROR_INVALID_ARGUMENT);
        assert_int_equal(err.code, CNA_ERROR_INVALID_ARGUMENT);
        assert_string_equal(err.message, messages[which]);
        assert_unchanged(player, &before);
        /* creation refuses the same data and leaves *out alone */
        cna_player *untouched = player;
        assert_int_equal(cna_player_create(&r.data, NULL, &untouched, &err),
                         CNA_ERROR_INVALID_ARGUMENT);
        assert_string_equal(err.message, messages[which]);
        assert_ptr_equal(untouched, player);
        /* restoring the count lets the player go on from where it was */
        *count = 2;
        assert_int_equal(cna_player_update_seconds(player, 0.25, true, true, NULL), CNA_OK);
        assert_true(cna_player_position(player) == 7500000);
        cna_player_free(player);
    }
}

static void test_parent_not_below_own_index_is_refused_and_changes_nothing(void **state)
{
    (void)state;
    struct {
        int32_t parents[2];
        const char *message;
    } cases[3] = {
        {{-1, 1}, "hierarchy[1]: parent 1 is not below own index 1"}, /* self-parent */
        {{1, 0}, "hierarchy[0]: parent 1 is not below own index 0"},  /* cycle */
        {{-1, 5}, "hierarchy[1]: parent 5 is not below own index 1"}, /* forward / out of range */
    };
    for (int c = 0; c < 3; ++c) {
        two_bone_rig r;
        two_bone_rig_init(&r);
        cna_player *player = make_player(&r.data);
        assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
        advance(player, 0.5, true);
        snapshot before;
        take(player, &before);
        r.hierarchy[0] = cases[c].parents[0];
        r.hierarchy[1] = cases[c].parents[1];
        cna_error err;
        assert_int_equal(cna_player_update_seconds(player, 0.25, true, true, &err),
                         CNA_ERROR_INVALID_ARGUMENT);
        assert_string_equal(err.message, cases[c].message);
        assert_unchanged(player, &before);
        cna_player *untouched = NULL;
        assert_int_equal(cna_player_create(&r.data, NULL, &untouched, &err),
                         CNA_ERROR_INVALID_ARGUMENT);
        assert_string_equal(err.message, cases[c].message);
        assert_null(untouched);
        cna_player_free(player);
    }
}

static void test_null_skeleton_array_is_refused(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.data.bind_pose = NULL;
    cna_player *player = NULL;
    cna_error err;
    assert_int_equal(cna_player_create(&r.data, NULL, &player, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "bind_pose: NULL with bind_pose_count 2");
    assert_null(player);
    two_bone_rig_init(&r);
    r.data.root_prefix_count = 2; /* a prefix that would be read, but is NULL */
    assert_int_equal(cna_player_create(&r.data, NULL, &player, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "root_prefix: NULL with root_prefix_count 2");
}

static void test_bone_count_changed_after_creation_is_refused(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    snapshot before;
    take(player, &before);
    r.data.bone_count = 1;
    r.data.hierarchy_count = r.data.bind_pose_count = r.data.inverse_bind_pose_count = 1;
    cna_error err;
    assert_int_equal(cna_player_update(player, 0, true, true, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "bone_count: 1 differs from the 2 bones the player was created with");
    assert_unchanged(player, &before);
    cna_player_free(player);
}

static void test_any_negative_parent_is_a_root(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.hierarchy[1] = -7;
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 0.5, true);
    const cna_mat4 *world = cna_player_world_transforms(player);
    assert_translation(&world[0], 1, 0, 0);
    assert_translation(&world[1], 0, 1, 0); /* not composed with bone 0 */
    r.hierarchy[1] = INT32_MIN;
    advance(player, 0.0, true);
    assert_translation(&world[1], 0, 1, 0);
    cna_player_free(player);
}

static void test_negative_or_absurd_bone_count_is_refused_before_any_allocation(void **state)
{
    (void)state;
    static const struct {
        int32_t count;
        const char *message;
    } cases[4] = {
        {-1, "bone_count: -1 is outside 0..100000"},
        {INT32_MIN, "bone_count: -2147483648 is outside 0..100000"},
        {100001, "bone_count: 100001 is outside 0..100000"},
        {INT32_MAX, "bone_count: 2147483647 is outside 0..100000"},
    };
    for (int c = 0; c < 4; ++c) {
        two_bone_rig r;
        two_bone_rig_init(&r);
        r.data.bone_count = cases[c].count;
        counting_allocator counter;
        cna_allocator a = counting_allocator_make(&counter, -1);
        cna_player *player = NULL;
        cna_error err;
        assert_int_equal(cna_player_create(&r.data, &a, &player, &err), CNA_ERROR_INVALID_ARGUMENT);
        assert_string_equal(err.message, cases[c].message);
        assert_null(player);
        assert_int_equal(counter.allocations, 0);
    }
}

static void test_bone_count_at_the_limit_is_accepted(void **state)
{
    (void)state;
    const size_t n = CNA_MAX_BONE_COUNT;
    int32_t *hierarchy = (int32_t *)malloc(n * sizeof *hierarchy);
    cna_mat4 *bind = (cna_mat4 *)malloc(n * sizeof *bind);
    assert_non_null(hierarchy);
    assert_non_null(bind);
    for (size_t i = 0; i < n; ++i) {
        hierarchy[i] = (int32_t)i - 1; /* a chain */
        cna_mat4_identity(&bind[i]);
    }
    cna_skinning_data data = cna_skinning_data_make(CNA_MAX_BONE_COUNT, hierarchy, bind, bind);
    cna_player *player = make_player(&data);
    assert_int_equal(cna_player_bone_count(player), CNA_MAX_BONE_COUNT);
    assert_true(cna_mat4_is_identity(&cna_player_skin_transforms(player)[n - 1]));
    cna_player_free(player);
    free(hierarchy);
    free(bind);
}

/* A parent at or above its own index anywhere in 1..19 bones (the check's
 * eight-, four- and one-bone steps) is refused by create, and by update when
 * the array is edited in place after create; restored, update passes. */
static void test_parent_order_is_checked_at_every_index(void **state)
{
    (void)state;
    enum { MAX = 19 };
    int32_t hierarchy[MAX];
    cna_mat4 bind[MAX];
    for (int32_t n = 1; n <= MAX; ++n) {
        for (int32_t i = 0; i < n; ++i) {
            hierarchy[i] = i - 1;
            cna_mat4_identity(&bind[i]);
        }
        cna_skinning_data data = cna_skinning_data_make(n, hierarchy, bind, bind);
        cna_player *player = make_player(&data);
        for (int32_t p = 0; p < n; ++p) {
            char expected[96];
            snprintf(expected, sizeof expected, "hierarchy[%ld]: parent %ld is not below own index %ld",
                     (long)p, (long)p, (long)p);
            hierarchy[p] = p;
            cna_error err;
            cna_player *refused = NULL;
            assert_int_equal(cna_player_create(&data, NULL, &refused, &err),
                             CNA_ERROR_INVALID_ARGUMENT);
            assert_string_equal(err.message, expected);
            assert_null(refused);
            assert_int_equal(cna_player_update(player, 1, true, true, &err),
                             CNA_ERROR_INVALID_ARGUMENT);
            assert_string_equal(err.message, expected);
            hierarchy[p] = p - 1;
            assert_int_equal(cna_player_update(player, 1, true, true, &err), CNA_OK);
        }
        cna_player_free(player);
    }
}

static void test_empty_skeleton_plays_without_arrays(void **state)
{
    (void)state;
    cna_skinning_data data = cna_skinning_data_make(0, NULL, NULL, NULL);
    cna_clip clip = cna_clip_make("Empty", 10, NULL, 0);
    cna_player *player = make_player(&data);
    assert_int_equal(cna_player_start_clip(player, &clip, NULL), CNA_OK);
    assert_int_equal(cna_player_update(player, 13, true, true, NULL), CNA_OK);
    assert_true(cna_player_position(player) == 3);
    cna_player_free(player);
}

static void test_null_arguments_are_refused(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = NULL;
    cna_error err;
    assert_int_equal(cna_player_create(NULL, NULL, &player, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "cna_player_create: data is NULL");
    assert_int_equal(cna_player_create(&r.data, NULL, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "cna_player_create: out is NULL");
    assert_int_equal(cna_player_start_clip(NULL, &r.clip, NULL), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_player_update(NULL, 0, true, true, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "cna_player_update: player is NULL");
    cna_player_free(NULL);
    assert_null(cna_player_world_transforms(NULL));
}

static void test_scene_node_clip_is_refused(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_player *player = make_player(&r.data);
    cna_clip rigid = r.clip;
    rigid.target = CNA_CLIP_TARGET_SCENE_NODE;
    cna_error err;
    assert_int_equal(cna_player_start_clip(player, &rigid, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "clip \"Move\": target scene-node is not a joint-palette clip");
    assert_null(cna_player_current_clip(player));
    rigid.target = (cna_clip_target)7;
    assert_int_equal(cna_player_start_clip(player, &rigid, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "clip \"Move\": target 7 is not a cna_clip_target");
    rigid.target = CNA_CLIP_TARGET_DEFAULT; /* default means joint palette */
    assert_int_equal(cna_player_start_clip(player, &rigid, &err), CNA_OK);
    cna_clip broken = cna_clip_make("Broken", 10, NULL, 3);
    assert_int_equal(cna_player_start_clip(player, &broken, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "clip \"Broken\": tracks NULL with track_count 3");
    assert_ptr_equal(cna_player_current_clip(player), &rigid);
    cna_player_free(player);
}

/* ------------------------------------------------------------------ ignored tracks */

static void test_tracks_without_keys_or_with_bone_out_of_range_are_ignored(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_keyframe far_away[1] = {cna_keyframe_make(0, cna_vec3_make(99, 99, 99))};
    cna_bone_track tracks[7] = {
        cna_bone_track_make(1, r.keys, 0),         /* no keys */
        cna_bone_track_make(1, NULL, 4),           /* keys NULL */
        r.track,                                   /* the only usable one */
        cna_bone_track_make(2, far_away, 1),       /* bone == bone_count */
        cna_bone_track_make(-1, far_away, 1),      /* negative bone */
        cna_bone_track_make(INT32_MAX, far_away, 1),
        cna_bone_track_make(INT32_MIN, far_away, 1),
    };
    r.clip.tracks = tracks;
    r.clip.track_count = 7;
    cna_player *player = make_player(&r.data);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 0.5, true);

    two_bone_rig ref;
    two_bone_rig_init(&ref);
    cna_player *reference = make_player(&ref.data);
    assert_int_equal(cna_player_start_clip(reference, &ref.clip, NULL), CNA_OK);
    advance(reference, 0.5, true);

    assert_matrices_identical(cna_player_bone_transforms(player), cna_player_bone_transforms(reference), 2);
    assert_matrices_identical(cna_player_world_transforms(player), cna_player_world_transforms(reference), 2);
    assert_matrices_identical(cna_player_skin_transforms(player), cna_player_skin_transforms(reference), 2);
    assert_matrices_identical(&cna_player_bone_transforms(player)[1], &r.bind[1], 1);
    cna_player_free(player);
    cna_player_free(reference);
}

/* ------------------------------------------------------------------ root prefix */

static void test_root_prefix_applies_when_count_equals_bone_count(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    /* world[0] = S(2) · T(1, 0, 0): translation (2, 0, 0); T · S would give (1, 0, 0) */
    cna_mat4_compose(&r.prefix[0], cna_vec3_zero(), cna_quat_identity(), cna_vec3_make(2, 2, 2));
    cna_mat4_translation(&r.prefix[1], cna_vec3_make(100, 0, 0)); /* not a root: never read */
    r.data.root_prefix = r.prefix;
    r.data.root_prefix_count = 2;
    cna_player *player = make_player(&r.data);
    /* the bind pose already carries the prefix */
    assert_translation(&cna_player_world_transforms(player)[1], 0, 2, 0);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    advance(player, 0.5, true);
    const cna_mat4 *world = cna_player_world_transforms(player);
    assert_translation(&cna_player_bone_transforms(player)[0], 1, 0, 0); /* local untouched */
    assert_translation(&world[0], 2, 0, 0);
    assert_translation(&world[1], 2, 2, 0);
    assert_true(world[0].m[0] == 2.0f);
    cna_mat4 expected;
    cna_mat4_mul(&expected, &r.prefix[0], &cna_player_bone_transforms(player)[0]);
    assert_matrices_identical(&world[0], &expected, 1);
    cna_player_free(player);
}

static void test_root_prefix_ignored_when_count_differs(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_mat4 prefixes[3];
    for (int i = 0; i < 3; ++i)
        cna_mat4_translation(&prefixes[i], cna_vec3_make(0, 0, -50));
    r.data.root_prefix = prefixes;
    static const size_t counts[3] = {0, 1, 3};
    for (int c = 0; c < 3; ++c) {
        r.data.root_prefix_count = counts[c];
        cna_player *player = make_player(&r.data);
        assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
        advance(player, 0.5, true);
        assert_translation(&cna_player_world_transforms(player)[0], 1, 0, 0);
        assert_translation(&cna_player_world_transforms(player)[1], 1, 1, 0);
        cna_player_free(player);
    }
}

static void test_animated_root_keeps_its_prefix(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_mat4_translation(&r.prefix[0], cna_vec3_make(0, 0, -50));
    r.data.root_prefix = r.prefix;
    r.data.root_prefix_count = 2;
    cna_player *player = make_player(&r.data);
    const cna_mat4 *world = cna_player_world_transforms(player);
    assert_translation(&world[0], 0, 0, -50);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    seek(player, 0.0, false);
    assert_translation(&world[0], 0, 0, -50);
    seek(player, 0.5, false);
    assert_translation(&world[0], 1, 0, -50);
    assert_translation(&world[1], 1, 1, -50);
    seek(player, 1.0, false);
    assert_translation(&world[0], 2, 0, -50);
    assert_translation(&cna_player_skin_transforms(player)[0], 2, 0, -50);
    cna_player_free(player);
}

/* ------------------------------------------------------------------ allocation */

static void test_update_never_allocates(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    counting_allocator counter;
    cna_allocator a = counting_allocator_make(&counter, -1);
    cna_player *player = NULL;
    assert_int_equal(cna_player_create(&r.data, &a, &player, NULL), CNA_OK);
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    const long after_start = counter.allocations;
    for (int i = 0; i < 1000; ++i) advance(player, 0.013, true);
    seek(player, -3.3, true);
    assert_int_equal(counter.allocations, after_start);
    /* restarting a clip with no more tracks reuses the cursors */
    assert_int_equal(cna_player_start_clip(player, &r.clip, NULL), CNA_OK);
    assert_int_equal(counter.allocations, after_start);
    cna_player_free(player);
    assert_int_equal(counter.frees, counter.allocations);
}

static void test_out_of_memory_at_creation_leaves_out_unchanged(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    for (long fail_at = 0; fail_at < 2; ++fail_at) {
        counting_allocator counter;
        cna_allocator a = counting_allocator_make(&counter, fail_at);
        cna_player *player = NULL;
        cna_error err;
        assert_int_equal(cna_player_create(&r.data, &a, &player, &err), CNA_ERROR_OUT_OF_MEMORY);
        assert_int_equal(err.code, CNA_ERROR_OUT_OF_MEMORY);
        assert_null(player);
        assert_int_equal(counter.frees, counter.allocations - 1); /* everything but the failed call */
    }
}

static void test_out_of_memory_in_start_clip_changes_nothing(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    counting_allocator counter;
    cna_allocator a = counting_allocator_make(&counter, 2); /* player, matrices, then cursors */
    cna_player *player = NULL;
    assert_int_equal(cna_player_create(&r.data, &a, &player, NULL), CNA_OK);
    advance(player, 0.5, true);
    snapshot before;
    take(player, &before);
    cna_error err;
    assert_int_equal(cna_player_start_clip(player, &r.clip, &err), CNA_ERROR_OUT_OF_MEMORY);
    assert_string_equal(err.message, "clip \"Move\": out of memory for 1 track cursors");
    assert_unchanged(player, &before);
    assert_int_equal(cna_player_start_clip(player, &r.clip, &err), CNA_OK); /* the next try works */
    cna_player_free(player);
    assert_int_equal(counter.frees, counter.allocations - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_bone_child_inherits_parent_motion_at_half_second),
        cmocka_unit_test(test_fresh_player_returns_bind_pose_at_once),
        cmocka_unit_test(test_clip_start_middle_and_end),
        cmocka_unit_test(test_start_clip_rewinds_to_zero),
        cmocka_unit_test(test_time_past_the_end_clamps_without_loop),
        cmocka_unit_test(test_time_past_the_end_wraps_with_loop),
        cmocka_unit_test(test_looping_steps_at_the_edges),
        cmocka_unit_test(test_relative_updates_accumulate),
        cmocka_unit_test(test_negative_time_wraps_with_loop),
        cmocka_unit_test(test_zero_duration_clip_holds_position_at_zero),
        cmocka_unit_test(test_negative_duration_clip_holds_position_at_zero),
        cmocka_unit_test(test_end_equals_start_for_a_looping_clip),
        cmocka_unit_test(test_no_clip_holds_position_at_zero_and_shows_bind_pose),
        cmocka_unit_test(test_hostile_tick_values_wrap_and_clamp_exactly),
        cmocka_unit_test(test_update_seconds_rounds_to_the_nearest_tick),
        cmocka_unit_test(test_skin_is_world_times_inverse_bind),
        cmocka_unit_test(test_bone_transforms_are_local_and_world_composes_parents),
        cmocka_unit_test(test_tracked_bone_local_is_translation_rotation_scale),
        cmocka_unit_test(test_later_track_for_the_same_bone_wins),
        cmocka_unit_test(test_array_size_mismatch_is_refused_and_changes_nothing),
        cmocka_unit_test(test_parent_not_below_own_index_is_refused_and_changes_nothing),
        cmocka_unit_test(test_null_skeleton_array_is_refused),
        cmocka_unit_test(test_bone_count_changed_after_creation_is_refused),
        cmocka_unit_test(test_any_negative_parent_is_a_root),
        cmocka_unit_test(test_negative_or_absurd_bone_count_is_refused_before_any_allocation),
        cmocka_unit_test(test_bone_count_at_the_limit_is_accepted),
        cmocka_unit_test(test_parent_order_is_checked_at_every_index),
        cmocka_unit_test(test_empty_skeleton_plays_without_arrays),
        cmocka_unit_test(test_null_arguments_are_refused),
        cmocka_unit_test(test_scene_node_clip_is_refused),
        cmocka_unit_test(test_tracks_without_keys_or_with_bone_out_of_range_are_ignored),
        cmocka_unit_test(test_root_prefix_applies_when_count_equals_bone_count),
        cmocka_unit_test(test_root_prefix_ignored_when_count_differs),
        cmocka_unit_test(test_animated_root_keeps_its_prefix),
        cmocka_unit_test(test_update_never_allocates),
        cmocka_unit_test(test_out_of_memory_at_creation_leaves_out_unchanged),
        cmocka_unit_test(test_out_of_memory_in_start_clip_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
