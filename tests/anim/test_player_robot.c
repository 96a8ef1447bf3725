/*
 * The player's fast path (cursors, cached slerp arcs, inlined composition)
 * against a straightforward reference written here from the public
 * functions (cna_track_sample_linear, cna_mat4_compose, cna_mat4_mul), bit
 * for bit, on every clip of RobotExpressive (43 joints, 14 clips), through
 * forward playback at 60 Hz, a playback at 24 Hz landing on key times, and
 * random seeks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "anim/fixtures.h"

#define ROBOT CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb"

static void assert_player_equals_reference(const cna_player *player, const cna_skinning_data *d,
                                           const cna_clip *clip)
{
    enum { MAX_BONES = 72 };
    cna_mat4 local[MAX_BONES], world[MAX_BONES], skin[MAX_BONES];
    assert_true(d->bone_count <= MAX_BONES);
    reference_pose(d, clip, cna_player_position(player), local, world, skin);
    assert_matrices_identical(cna_player_bone_transforms(player), local, d->bone_count);
    assert_matrices_identical(cna_player_world_transforms(player), world, d->bone_count);
    assert_matrices_identical(cna_player_skin_transforms(player), skin, d->bone_count);
}

static cna_model *load_robot(void)
{
    cna_model *m = NULL;
    cna_error err;
    const cna_result r = cna_model_load_file(ROBOT, NULL, &m, &err);
    if (r) print_error("%s: %s\n", ROBOT, err.message);
    assert_int_equal(r, CNA_OK);
    assert_non_null(cna_model_skinning_data(m));
    return m;
}

static void play(const cna_skinning_data *d, const cna_clip *clip, int64_t step, int frames,
                 rng *seeks)
{
    cna_player *player = NULL;
    assert_int_equal(cna_player_create(d, NULL, &player, NULL), CNA_OK);
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

static void test_robot_clips_play_bit_identical_to_the_reference_at_60_hz(void **state)
{
    (void)state;
    cna_model *m = load_robot();
    const cna_skinning_data *d = cna_model_skinning_data(m);
    assert_int_equal(d->clip_count, 14);
    for (size_t c = 0; c < d->clip_count; ++c) {
        const cna_clip *clip = &d->clips[c];
        const int frames = (int)(clip->duration * 60 / CNA_TICKS_PER_SECOND) + 30; /* wraps once */
        play(d, clip, CNA_TICKS_PER_SECOND / 60 + 1, frames, NULL);
    }
    cna_model_free(m);
}

static void test_robot_clips_at_key_times_are_bit_identical_to_the_reference(void **state)
{
    (void)state;
    cna_model *m = load_robot();
    const cna_skinning_data *d = cna_model_skinning_data(m);
    for (size_t c = 0; c < d->clip_count; ++c) {
        const cna_clip *clip = &d->clips[c];
        assert_true(clip->track_count > 0 && clip->tracks[0].key_count > 1);
        const int64_t key_step = clip->tracks[0].keys[1].ticks - clip->tracks[0].keys[0].ticks;
        play(d, clip, key_step, (int)clip->tracks[0].key_count + 5, NULL);
    }
    cna_model_free(m);
}

static void test_robot_clips_with_seeks_are_bit_identical_to_the_reference(void **state)
{
    (void)state;
    cna_model *m = load_robot();
    const cna_skinning_data *d = cna_model_skinning_data(m);
    rng r = {0x5EEC5EEDULL};
    for (size_t c = 0; c < d->clip_count; ++c)
        play(d, &d->clips[c], CNA_TICKS_PER_SECOND / 30, 120, &r);
    cna_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_robot_clips_play_bit_identical_to_the_reference_at_60_hz),
        cmocka_unit_test(test_robot_clips_at_key_times_are_bit_identical_to_the_reference),
        cmocka_unit_test(test_robot_clips_with_seeks_are_bit_identical_to_the_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
