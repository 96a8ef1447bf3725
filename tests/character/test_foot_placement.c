/*
 * examples/foot_placement.c, run as a test: RobotExpressive walks 240 frames
 * (4 s) across a slope with a bump, its pose edit lowering the pelvis and
 * bending each leg by two-bone IK onto the ground. The example's own walk()
 * is compiled in here, so the test checks the code users read:
 *   - every foot lands on its target within 1e-5 of the robot's size
 *     (about 6 units: 6e-5), and sits at the ground's height plus its
 *     animated lift within 1e-4; planted feet are on the ground within 1e-4;
 *   - both legs reach on every frame;
 *   - the IK leaves each chain's root (the hip, where the drop put it) in
 *     place, bit for bit, and keeps the thigh's and shin's lengths within
 *     1e-6 of the robot's size;
 *   - the pelvis drops by the slope's height under the lower foot: 0.2 per
 *     unit across a stance about 1.28 wide, about 0.128.
 * A bad path fails cleanly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#define FOOT_PLACEMENT_NO_MAIN 1
#include "../../examples/foot_placement.c"

#define ROBOT CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb"

static void feet_follow_the_ground(void **state)
{
    (void)state;
    walk_stats st;
    assert_int_equal(walk(ROBOT, 240, NULL, NULL, &st), 0);
    const double size = 6.0; /* the robot is about 6 units tall */
    assert_int_equal(st.frames, 240);
    assert_true(st.planted >= 60); /* of 480 foot-frames: the walk plants each foot about a third of the time */
    assert_true(st.all_reached);
    assert_true(st.max_error <= 1e-5 * size);
    assert_true(st.max_follow <= 1e-4);
    assert_true(st.max_planted <= 1e-4);
    assert_true(st.max_root == 0.0);
    assert_true(st.max_length <= 1e-6 * size);
    assert_true(st.max_drop > 0.12 && st.max_drop < 0.14);
}

static void a_missing_model_fails(void **state)
{
    (void)state;
    walk_stats st;
    assert_int_equal(walk(CNA_TEST_DATA_DIR "/no-such-robot.glb", 10, NULL, NULL, &st), 1);
    assert_int_equal(st.frames, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(feet_follow_the_ground),
        cmocka_unit_test(a_missing_model_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
