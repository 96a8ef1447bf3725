/*
 * A long session: ten million relative updates of 1/60 s land exactly where
 * the floor-modulo of the summed ticks says, because the position is an
 * integer tick count (no drift, no precision loss after hours of play).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "anim/fixtures.h"

static void test_ten_million_frames_land_on_the_exact_floor_modulo(void **state)
{
    (void)state;
    /* A one-bone rig and a clip of 1.2345679 s with no tracks: each update
     * still runs the checks, the position arithmetic and the recompute, at
     * the smallest cost. */
    int32_t hierarchy[1] = {-1};
    cna_mat4 bind[1];
    cna_mat4_identity(&bind[0]);
    cna_skinning_data data = cna_skinning_data_make(1, hierarchy, bind, bind);
    const int64_t duration = 12345679;
    cna_clip clip = cna_clip_make("Idle", duration, NULL, 0);
    cna_player *player = NULL;
    assert_int_equal(cna_player_create(&data, NULL, &player, NULL), CNA_OK);
    assert_int_equal(cna_player_start_clip(player, &clip, NULL), CNA_OK);

    const int64_t step = cna_ticks_from_seconds(1.0 / 60.0);
    assert_true(step == 166667);
    const long frames = 10000000;
    for (long i = 0; i < frames; ++i)
        if (cna_player_update(player, step, true, true, NULL) != CNA_OK) fail();

    const int64_t total = step * (int64_t)frames; /* 1666670000000 ticks, about 46 hours */
    assert_true(total == INT64_C(1666670000000));
    assert_true(cna_player_position(player) == total % duration);
    assert_true(cna_player_position(player) == 3335000);
    cna_player_free(player);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ten_million_frames_land_on_the_exact_floor_modulo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
