/*
 * CNA_SAMPLING_FAST (include/cna/player.h): normalised lerp between key
 * rotations. Measured here against the exact mode over every clip of every
 * corpus model and fixture, sampled at 60 Hz: the largest deviation of any
 * bone's model-space position, relative to the model size, stays within
 * the bound the header states; translations and scales are untouched (a
 * clip without rotation keys poses identically); the exact mode stays the
 * default; bad arguments are refused.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cna/cna.h"

/* The bound stated in include/cna/player.h (CNA_SAMPLING_FAST). */
#define FAST_BOUND 2e-4

static const char *const MODELS[] = {
    "corpus/valid/AnimatedMorphCube/AnimatedMorphCube.gltf",
    "corpus/valid/BoxAnimated/box_animated.gltf",
    "corpus/valid/InterpolationTest/interpolation_test.gltf",
    "corpus/valid/MorphStressTest/MorphStressTest.gltf",
    "corpus/valid/RiggedSimple/rigged_simple.gltf",
    "corpus/valid/RobotExpressive/robot.glb",
    "corpus/valid/SimpleMorph/SimpleMorph.gltf",
    "corpus/valid/SimpleSkin/simple_skin.gltf",
    "fixtures/skin-armature-ancestor.gltf",
    "fixtures/skin-ordered-joints.gltf",
    "fixtures/cubic-rotation.gltf",
    "fixtures/skin-folded-node.gltf",
    "fixtures/skin-animated-ancestor.gltf",
    "fixtures/skin-nested.gltf",
    "fixtures/skin-root-motion.gltf",
};
#define MODEL_COUNT (sizeof MODELS / sizeof MODELS[0])

static cna_model *load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_model_load_file(path, NULL, &m, &err);
    if (r != CNA_OK) print_error("%s: %s\n", rel, err.message);
    assert_int_equal(r, CNA_OK);
    return m;
}

static cna_character *make(const cna_model *m, cna_sampling sampling)
{
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.sampling = sampling;
    cna_character *c = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(m, &o, &c, &err), CNA_OK);
    return c;
}

/* Every clip at 60 Hz: the largest model-space position deviation of any
 * bone (and of any palette entry's translation), relative to the model size. */
static void test_fast_stays_within_its_bound(void **state)
{
    (void)state;
    cna_error err;
    double worst = 0;
    const char *worst_model = "";
    size_t poses = 0, differing = 0;
    for (size_t i = 0; i < MODEL_COUNT; i++) {
        cna_model *m = load(MODELS[i]);
        cna_character *exact = make(m, CNA_SAMPLING_DEFAULT), *fast = make(m, CNA_SAMPLING_FAST);
        for (size_t a = 0; a < m->animation_count; a++) {
            assert_int_equal(cna_character_play(exact, (long)a, &err), CNA_OK);
            assert_int_equal(cna_character_play(fast, (long)a, &err), CNA_OK);
            const int64_t d = cna_character_duration(exact);
            const int64_t step = cna_ticks_from_seconds(1.0 / 60);
            for (int64_t t = 0; t <= d; t += step) {
                assert_int_equal(cna_character_seek_ticks(exact, t, &err), CNA_OK);
                assert_int_equal(cna_character_seek_ticks(fast, t, &err), CNA_OK);
                assert_int_equal(cna_character_pose(exact, &err), CNA_OK);
                assert_int_equal(cna_character_pose(fast, &err), CNA_OK);
                poses++;
                bool differs = false;
                for (size_t b = 0; b < m->bone_count; b++) {
                    const cna_mat4 *x = cna_character_absolute_transform(exact, b);
                    const cna_mat4 *y = cna_character_absolute_transform(fast, b);
                    for (int k = 12; k < 15; k++) {
                        const double e = fabs((double)x->m[k] - (double)y->m[k]) / m->size;
                        if (e > 0) differs = true;
                        if (e > worst) {
                            worst = e;
                            worst_model = MODELS[i];
                        }
                    }
                }
                for (size_t s = 0; s < m->skin_count; s++) {
                    const cna_mat4 *x = cna_character_skin_transforms(exact, s);
                    const cna_mat4 *y = cna_character_skin_transforms(fast, s);
                    for (size_t p = 0; p < m->skins[s].joint_count; p++)
                        for (int k = 12; k < 15; k++) {
                            const double e = fabs((double)x[p].m[k] - (double)y[p].m[k]) / m->size;
                            if (e > worst) {
                                worst = e;
                                worst_model = MODELS[i];
                            }
                        }
                }
                differing += differs;
            }
        }
        cna_character_free(exact);
        cna_character_free(fast);
        cna_model_free(m);
    }
    print_message("fast sampling: %zu poses, %zu differ; largest position deviation %.3g of the model size (%s); "
                  "bound %.3g\n",
                  poses, differing, worst, worst_model, FAST_BOUND);
    assert_true(differing > 0); /* it is another mode */
    assert_true(worst <= FAST_BOUND);
}

/* A clip that animates only translations poses identically in both modes. */
static void test_translations_are_untouched(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load("fixtures/step-three-keys.gltf");
    cna_character *exact = make(m, CNA_SAMPLING_EXACT), *fast = make(m, CNA_SAMPLING_FAST);
    assert_int_equal(cna_character_play(exact, 0, &err), CNA_OK);
    assert_int_equal(cna_character_play(fast, 0, &err), CNA_OK);
    for (int f = 0; f < 150; f++) {
        assert_int_equal(cna_character_update(exact, 1.0 / 60, &err), CNA_OK);
        assert_int_equal(cna_character_update(fast, 1.0 / 60, &err), CNA_OK);
        for (size_t b = 0; b < m->bone_count; b++)
            assert_memory_equal(cna_character_absolute_transform(exact, b), cna_character_absolute_transform(fast, b),
                                sizeof(cna_mat4));
    }
    cna_character_free(exact);
    cna_character_free(fast);
    cna_model_free(m);
}

/* The player's switch: exact by default; back to exact gives the exact
 * bits again; bad values are refused. */
static void test_player_switch(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load("corpus/valid/RobotExpressive/robot.glb");
    const cna_skinning_data *d = &m->skins[0].data;
    cna_player *p = NULL, *ref = NULL;
    assert_int_equal(cna_player_create(d, NULL, &p, &err), CNA_OK);
    assert_int_equal(cna_player_create(d, NULL, &ref, &err), CNA_OK);
    assert_int_equal(cna_player_sampling(p), CNA_SAMPLING_EXACT);
    assert_int_equal(cna_player_start_clip(p, &d->clips[10], &err), CNA_OK);
    assert_int_equal(cna_player_start_clip(ref, &d->clips[10], &err), CNA_OK);
    assert_int_equal(cna_player_set_sampling(p, CNA_SAMPLING_FAST, &err), CNA_OK);
    assert_int_equal(cna_player_sampling(p), CNA_SAMPLING_FAST);
    for (int f = 0; f < 20; f++) {
        assert_int_equal(cna_player_update_seconds(p, 1.0 / 60, true, true, &err), CNA_OK);
        assert_int_equal(cna_player_update_seconds(ref, 1.0 / 60, true, true, &err), CNA_OK);
    }
    assert_int_equal(cna_player_set_sampling(p, CNA_SAMPLING_DEFAULT, &err), CNA_OK);
    assert_int_equal(cna_player_sampling(p), CNA_SAMPLING_EXACT);
    for (int f = 0; f < 20; f++) {
        assert_int_equal(cna_player_update_seconds(p, 1.0 / 60, true, true, &err), CNA_OK);
        assert_int_equal(cna_player_update_seconds(ref, 1.0 / 60, true, true, &err), CNA_OK);
        assert_memory_equal(cna_player_skin_transforms(p), cna_player_skin_transforms(ref),
                            (size_t)d->bone_count * sizeof(cna_mat4));
    }
    assert_int_equal(cna_player_set_sampling(p, (cna_sampling)9, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "sampling: 9 is not a cna_sampling");
    assert_int_equal(cna_player_set_sampling(NULL, CNA_SAMPLING_FAST, &err), CNA_ERROR_INVALID_ARGUMENT);
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.sampling = (cna_sampling)5;
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, &o, &c, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "character: sampling 5 is not a cna_sampling");
    assert_null(c);
    cna_player_free(p);
    cna_player_free(ref);
    cna_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_stays_within_its_bound),
        cmocka_unit_test(test_translations_are_untouched),
        cmocka_unit_test(test_player_switch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
