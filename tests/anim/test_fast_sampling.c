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

/* Eight rotation keys about z, `degrees` apart (with a moving translation),
 * a tenth of a second apart. */
static void turning_keys(cna_keyframe *keys, size_t n, double degrees)
{
    for (size_t i = 0; i < n; ++i) {
        const double half = 0.5 * (double)i * degrees * 3.14159265358979323846 / 180.0;
        keys[i] = cna_keyframe_make_trs((int64_t)i * (CNA_TICKS_PER_SECOND / 10),
                                        (cna_vec3){0.1f * (float)i, 0.0f, 0.0f},
                                        cna_quat_make(0.0f, 0.0f, (float)sin(half), (float)cos(half)),
                                        (cna_vec3){1.0f, 1.0f, 1.0f});
    }
}

/* FAST lerps only where the keys' rotations are close: a bone turning 40
 * degrees per key (wider than the narrow arc) gets the exact mode's bits
 * in every frame; one turning 10 degrees per key differs between keys (by
 * little) and is the same on a key. */
static void test_fast_lerps_only_narrow_arcs(void **state)
{
    (void)state;
    enum { KEYS = 8 };
    cna_keyframe wide[KEYS], narrow[KEYS];
    turning_keys(wide, KEYS, 40.0);
    turning_keys(narrow, KEYS, 10.0);
    const int32_t hierarchy[2] = {-1, 0};
    cna_mat4 bind[2];
    cna_mat4_identity(&bind[0]);
    cna_mat4_identity(&bind[1]);
    const cna_skinning_data data = cna_skinning_data_make(2, hierarchy, bind, bind);
    const cna_bone_track tracks[2] = {cna_bone_track_make(0, wide, KEYS), cna_bone_track_make(1, narrow, KEYS)};
    const cna_clip clip = cna_clip_make("turn", wide[KEYS - 1].ticks, tracks, 2);
    cna_player *exact = NULL, *fast = NULL;
    cna_error err;
    assert_int_equal(cna_player_create(&data, NULL, &exact, &err), CNA_OK);
    assert_int_equal(cna_player_create(&data, NULL, &fast, &err), CNA_OK);
    assert_int_equal(cna_player_set_sampling(fast, CNA_SAMPLING_FAST, &err), CNA_OK);
    assert_int_equal(cna_player_start_clip(exact, &clip, &err), CNA_OK);
    assert_int_equal(cna_player_start_clip(fast, &clip, &err), CNA_OK);
    int between = 0, on_key = 0;
    for (int f = 0; f < 120; ++f) {
        /* 1/60 s, and every fifth frame a seek onto a key */
        const bool seek = f % 5 == 4;
        const int64_t ticks = seek ? (int64_t)(f % KEYS) * (CNA_TICKS_PER_SECOND / 10) : CNA_TICKS_PER_SECOND / 60;
        assert_int_equal(cna_player_update(exact, ticks, !seek, true, &err), CNA_OK);
        assert_int_equal(cna_player_update(fast, ticks, !seek, true, &err), CNA_OK);
        const cna_mat4 *x = cna_player_bone_transforms(exact), *y = cna_player_bone_transforms(fast);
        assert_memory_equal(&x[0], &y[0], sizeof(cna_mat4)); /* the wide arc: exact */
        assert_memory_equal(&x[1].m[12], &y[1].m[12], 3 * sizeof(float)); /* translations exact */
        if (cna_player_position(exact) % (CNA_TICKS_PER_SECOND / 10) == 0) {
            assert_memory_equal(&x[1], &y[1], sizeof(cna_mat4));
            ++on_key;
            continue;
        }
        double diff = 0.0;
        for (int k = 0; k < 12; ++k) diff = fmax(diff, fabs((double)x[1].m[k] - (double)y[1].m[k]));
        between += diff > 0.0;
        assert_true(diff < 1e-4); /* a 10-degree arc: the lerp stays close to the slerp */
    }
    assert_true(on_key >= 24);
    assert_true(between >= 60);
    cna_player_free(exact);
    cna_player_free(fast);
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
        cmocka_unit_test(test_fast_lerps_only_narrow_arcs),
        cmocka_unit_test(test_player_switch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
