/*
 * README.md's C code compiles as written: test_readme_compiles
 * (docs/readme_compile.cmake) compiles every ```c block with the build's C
 * compiler on the build machine, the MinGW-w64 one for Windows.
 *
 * Here the layer snippet (walk_to_run_waving: a walk crossfading to a run, a wave
 * on layer 2 with complementary masks) is also run: the build takes it from
 * README.md as written and compiles it with cna_character_update renamed to
 * cna_test_readme_update below, which updates and then measures how high the
 * robot's right hand (Palm2.R) is above its shoulder (Shoulder.R). Its
 * highest point over the snippet's first 2 s (120 updates of 1/60 s: the
 * walk, then the crossfade to the run) must be that of Robot_Wave played
 * alone over 2 s, within 5 % (1.2675 against 1.2320): the wave layer owns
 * the arm (with one mask on the wave layer alone it reached 0.04).
 * docs/blending.md's walk_waving (a walk, the wave on layer 1 with
 * complementary masks, 2 s) is run and measured the same way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "cna/cna.h"

#define ROBOT CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb"

/* README.md's walk_to_run_waving and docs/blending.md's walk_waving (taken
 * from those files by tests/CMakeLists.txt). */
int walk_to_run_waving(const cna_model *model);
int walk_waving(const cna_model *model);
int speed_up_and_down(const cna_model *model);

/* what the probe saw of a layer 0 that plays a blend space, at updates 1
 * and 121 (the snippet's frames 0 and 120) */
static long space_animation[2] = {-1, -1};
static double space_weights[2][3];

static size_t palm = SIZE_MAX, shoulder = SIZE_MAX;
static size_t updates;
static float highest;

/* The hand's height above the shoulder (model space, +Y up). */
static float hand_height(const cna_character *c)
{
    const cna_mat4 *h = cna_character_absolute_transform(c, palm);
    const cna_mat4 *s = cna_character_absolute_transform(c, shoulder);
    assert_non_null(h);
    assert_non_null(s);
    return h->m[13] - s->m[13];
}

/* The snippet's cna_character_update: the same call, then the measure. */
cna_result cna_test_readme_update(cna_character *c, double seconds, cna_error *err);
cna_result cna_test_readme_update(cna_character *c, double seconds, cna_error *err)
{
    const cna_result r = cna_character_update(c, seconds, err);
    assert_int_equal(r, CNA_OK);
    const float h = hand_height(c);
    if (updates < 120 && (updates == 0 || h > highest)) highest = h; /* its first 2 s */
    const cna_blend_space *space = cna_character_layer_blend_space(c, 0);
    if (space && (updates == 0 || updates == 120)) {
        const int k = updates == 0 ? 0 : 1;
        space_animation[k] = cna_character_layer_animation(c, 0);
        for (size_t i = 0; i < 3 && i < cna_blend_space_sample_count(space); i++)
            space_weights[k][i] = cna_character_layer_sample_weight(c, 0, i);
    }
    updates++;
    return r;
}

static void doc_wave_layers_raise_the_hand_as_the_wave_alone(void **state)
{
    (void)state;
    cna_model *model = NULL;
    cna_error err;
    assert_int_equal(cna_model_load_file(ROBOT, NULL, &model, &err), CNA_OK);
    const int32_t p = cna_model_find_bone(model, "Palm2.R"), s = cna_model_find_bone(model, "Shoulder.R");
    assert_true(p >= 0 && s >= 0);
    palm = (size_t)p;
    shoulder = (size_t)s;

    /* the pure clip: Robot_Wave alone, 2 s at 60 frames per second */
    size_t wave;
    assert_int_equal(cna_model_find_animation(model, "Robot_Wave", &wave, &err), CNA_OK);
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(model, NULL, &c, &err), CNA_OK);
    assert_int_equal(cna_character_play(c, (long)wave, &err), CNA_OK);
    float pure = 0.0f;
    for (int frame = 0; frame < 120; frame++) {
        assert_int_equal(cna_character_update(c, 1.0 / 60.0, &err), CNA_OK);
        const float h = hand_height(c);
        if (frame == 0 || h > pure) pure = h;
    }
    cna_character_free(c);

    /* the README's snippet, as written */
    updates = 0;
    assert_int_equal(walk_to_run_waving(model), 0);
    assert_int_equal(updates, 180);
    print_message("hand above shoulder: README layers %.4f, Robot_Wave alone %.4f\n", (double)highest, (double)pure);
    assert_true(pure > 1.0f);
    assert_true(fabsf(highest - pure) <= 0.05f * pure);

    /* docs/blending.md's snippet, as written: 120 updates */
    updates = 0;
    assert_int_equal(walk_waving(model), 0);
    assert_int_equal(updates, 120);
    print_message("hand above shoulder: docs/blending.md %.4f\n", (double)highest);
    assert_true(fabsf(highest - pure) <= 0.05f * pure);

    /* docs/blending.md's blend space: 240 updates from speed 0 (idle alone)
     * up to 4 at frame 120 (run alone) */
    updates = 0;
    assert_int_equal(speed_up_and_down(model), 0);
    assert_int_equal(updates, 240);
    size_t idle, run;
    assert_int_equal(cna_model_find_animation(model, "Robot_Idle", &idle, &err), CNA_OK);
    assert_int_equal(cna_model_find_animation(model, "Robot_Running", &run, &err), CNA_OK);
    assert_int_equal(space_animation[0], (long)idle);
    assert_true(space_weights[0][0] == 1.0 && space_weights[0][1] == 0.0 && space_weights[0][2] == 0.0);
    assert_int_equal(space_animation[1], (long)run);
    assert_true(space_weights[1][2] == 1.0 && space_weights[1][0] == 0.0 && space_weights[1][1] == 0.0);
    cna_model_free(model);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(doc_wave_layers_raise_the_hand_as_the_wave_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
