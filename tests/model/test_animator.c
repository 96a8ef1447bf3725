/*
 * cna_animator (include/cna/animator.h): posing a whole model at a time gives
 * bit for bit what the six steps give by hand (players, rigid clip, skin
 * poses, morph weights, absolute transforms), times are clamped, bad
 * arguments change nothing, and every allocation failure is clean.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model_test.h"

#define ROBOT "corpus/valid/RobotExpressive/robot.glb"
#define MORPH_CUBE "corpus/valid/AnimatedMorphCube/AnimatedMorphCube.gltf"

static void poses_bit_for_bit_like_the_steps_by_hand(void **state)
{
    (void)state;
    cna_model *m = model_test_load(ROBOT, CNA_CLIP_MODE_FAITHFUL);
    cna_animator *an = NULL;
    cna_error err;
    assert_int_equal(cna_animator_create(m, NULL, &an, &err), CNA_OK);
    const long anims[] = {0, 6, 10, -1};
    for (size_t i = 0; i < sizeof anims / sizeof anims[0]; i++) {
        assert_int_equal(cna_animator_select(an, anims[i], &err), CNA_OK);
        assert_int_equal(cna_animator_animation(an), anims[i]);
        const double d = cna_animator_duration(an);
        assert_true(anims[i] < 0 ? d == 0.0 : d > 0.5);
        const double times[] = {0.0, 0.37, 0.5 * d, d};
        for (size_t k = 0; k < 4; k++) {
            assert_int_equal(cna_animator_pose(an, times[k], &err), CNA_OK);
            assert_true(cna_animator_time(an) == (anims[i] < 0 ? 0.0 : times[k])); /* no animation: duration 0 */
            posed p;
            pose_model(m, anims[i], times[k], &p);
            assert_memory_equal(cna_animator_absolute_transforms(an), p.absolute, m->bone_count * sizeof(cna_mat4));
            for (size_t s = 0; s < m->skin_count; s++) {
                assert_ptr_equal(cna_animator_skin_transforms(an, s),
                                 cna_player_skin_transforms(cna_animator_player(an, s)));
                assert_memory_equal(cna_animator_skin_transforms(an, s), cna_player_skin_transforms(p.players[s]),
                                    m->skins[s].joint_count * sizeof(cna_mat4));
            }
            posed_free(&p);
        }
    }
    assert_null(cna_animator_player(an, m->skin_count));
    assert_null(cna_animator_skin_transforms(an, m->skin_count));
    cna_animator_free(an);
    cna_model_free(m);
}

static void morph_weights_follow_the_weight_track_and_rest_gives_the_initial_weights(void **state)
{
    (void)state;
    cna_model *m = model_test_load(MORPH_CUBE, CNA_CLIP_MODE_FAITHFUL);
    const cna_model_part *part = &m->meshes[0].parts[0];
    assert_non_null(part->morph);
    assert_non_null(part->morph_instance);
    const size_t n = part->morph->target_count;
    assert_int_equal(n, 2);
    cna_animator *an = NULL;
    cna_error err;
    assert_int_equal(cna_animator_create(m, NULL, &an, &err), CNA_OK);
    size_t count = 99;
    const float *w = cna_animator_morph_weights(an, 0, 0, &count); /* before any pose: initial weights */
    assert_int_equal(count, 2);
    assert_true(w[0] == 0.0f && w[1] == 0.0f);
    assert_int_equal(cna_animator_select(an, 0, &err), CNA_OK);
    const double times[] = {0.0, 0.5, 1.25, 2.0, 10.0};
    for (size_t k = 0; k < 5; k++) {
        assert_int_equal(cna_animator_pose(an, times[k], &err), CNA_OK);
        float expect[2];
        size_t got = 0;
        assert_int_equal(cna_morph_evaluate_weights(part->weight_tracks[0], cna_animator_time(an), expect, 2, &got,
                                                    &err),
                         CNA_OK);
        w = cna_animator_morph_weights(an, 0, 0, &count);
        assert_int_equal(count, 2);
        assert_memory_equal(w, expect, sizeof expect);
        size_t have_n = 0;
        assert_memory_equal(cna_morph_instance_weights(part->morph_instance, &have_n), expect, sizeof expect);
        /* the part's drawn vertices are the blend of those weights */
        size_t size = cna_morph_blend_size(part->morph);
        void *blended = malloc(size);
        assert_non_null(blended);
        assert_int_equal(cna_morph_blend(part->morph, expect, 2, blended, size, &err), CNA_OK);
        assert_memory_equal(cna_model_part_vertices(part, NULL), blended, size);
        free(blended);
    }
    /* 0.5 s is between keys: the weights move (the file's first target rises). */
    assert_int_equal(cna_animator_pose(an, 0.5, &err), CNA_OK);
    assert_true(cna_animator_morph_weights(an, 0, 0, NULL)[0] > 0.0f);
    assert_int_equal(cna_animator_select(an, -1, &err), CNA_OK);
    assert_int_equal(cna_animator_pose(an, 0.5, &err), CNA_OK);
    w = cna_animator_morph_weights(an, 0, 0, &count);
    assert_true(w[0] == 0.0f && w[1] == 0.0f);
    assert_true(cna_animator_time(an) == 0.0); /* no animation: duration 0 */
    /* no morph targets / out of range: NULL, count 0 */
    count = 7;
    assert_null(cna_animator_morph_weights(an, 1, 0, &count));
    assert_int_equal(count, 0);
    assert_null(cna_animator_morph_weights(an, 0, 1, &count));
    cna_animator_free(an);
    cna_model_free(m);
}

static void time_is_clamped_and_nan_changes_nothing(void **state)
{
    (void)state;
    cna_model *m = model_test_load(ROBOT, CNA_CLIP_MODE_FAITHFUL);
    cna_animator *an = NULL;
    cna_error err;
    assert_int_equal(cna_animator_create(m, NULL, &an, &err), CNA_OK);
    assert_int_equal(cna_animator_select(an, 10, &err), CNA_OK);
    const double d = cna_animator_duration(an);
    assert_true(d == cna_ticks_to_seconds(m->node_clips[10].duration));
    assert_int_equal(cna_animator_pose(an, -3.0, &err), CNA_OK);
    assert_true(cna_animator_time(an) == 0.0);
    assert_int_equal(cna_animator_pose(an, 1e9, &err), CNA_OK);
    assert_true(cna_animator_time(an) == d);
    cna_mat4 *before = malloc(m->bone_count * sizeof *before);
    assert_non_null(before);
    memcpy(before, cna_animator_absolute_transforms(an), m->bone_count * sizeof *before);
    assert_int_equal(cna_animator_pose(an, NAN, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "animator: time is NaN");
    assert_true(cna_animator_time(an) == d);
    assert_memory_equal(cna_animator_absolute_transforms(an), before, m->bone_count * sizeof *before);
    free(before);
    cna_animator_free(an);
    cna_model_free(m);
}

static void select_and_find_check_the_index(void **state)
{
    (void)state;
    cna_model *m = model_test_load(ROBOT, CNA_CLIP_MODE_FAITHFUL);
    cna_animator *an = NULL;
    cna_error err;
    assert_int_equal(cna_animator_create(m, NULL, &an, &err), CNA_OK);
    assert_int_equal(cna_animator_animation(an), -1);
    assert_int_equal(cna_animator_find(an, "Robot_Walking"), 10);
    assert_int_equal(cna_animator_find(an, "3"), 3);
    assert_int_equal(cna_animator_find(an, "13"), 13);
    assert_int_equal(cna_animator_find(an, "14"), -1);
    assert_int_equal(cna_animator_find(an, "-1"), -1);
    assert_int_equal(cna_animator_find(an, "Robot_walking"), -1);
    assert_int_equal(cna_animator_find(an, ""), -1);
    assert_int_equal(cna_animator_find(an, NULL), -1);
    assert_int_equal(cna_animator_select(an, 4, &err), CNA_OK);
    assert_int_equal(cna_animator_select(an, 14, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "animation 14 is outside -1..13");
    assert_int_equal(cna_animator_select(an, -2, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "animation -2 is outside -1..13");
    assert_int_equal(cna_animator_animation(an), 4);
    for (size_t s = 0; s < m->skin_count; s++)
        assert_ptr_equal(cna_player_current_clip(cna_animator_player(an, s)), &m->skins[s].data.clips[4]);
    cna_animator_free(an);
    cna_model_free(m);
}

static void null_arguments_are_refused(void **state)
{
    (void)state;
    cna_model *m = model_test_load(ROBOT, CNA_CLIP_MODE_FAITHFUL);
    cna_animator *an = (cna_animator *)(uintptr_t)1;
    cna_error err;
    assert_int_equal(cna_animator_create(NULL, NULL, &an, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "animator: model is NULL");
    assert_ptr_equal(an, (cna_animator *)(uintptr_t)1);
    assert_int_equal(cna_animator_create(m, NULL, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "animator: out is NULL");
    assert_int_equal(cna_animator_select(NULL, 0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_animator_pose(NULL, 0.0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_animator_animation(NULL), -1);
    assert_true(cna_animator_duration(NULL) == 0.0);
    assert_true(cna_animator_time(NULL) == 0.0);
    assert_null(cna_animator_absolute_transforms(NULL));
    assert_null(cna_animator_player(NULL, 0));
    assert_null(cna_animator_morph_weights(NULL, 0, 0, NULL));
    assert_int_equal(cna_animator_find(NULL, "0"), -1);
    cna_animator_free(NULL);
    cna_model_free(m);
}

typedef struct failing_alloc {
    long left; /* allocations that still succeed */
    long live;
} failing_alloc;

static void *fa_alloc(void *user, size_t size)
{
    failing_alloc *f = user;
    if (f->left == 0) return NULL;
    f->left--;
    void *p = malloc(size ? size : 1);
    if (p) f->live++;
    return p;
}

static void fa_free(void *user, void *ptr)
{
    failing_alloc *f = user;
    if (ptr) f->live--;
    free(ptr);
}

static void every_allocation_failure_is_clean(void **state)
{
    (void)state;
    const char *models[] = {ROBOT, MORPH_CUBE};
    for (size_t mi = 0; mi < 2; mi++) {
        cna_model *m = model_test_load(models[mi], CNA_CLIP_MODE_FAITHFUL);
        bool created = false;
        long failures = 0;
        for (long n = 0; !created && n < 1000; n++) {
            failing_alloc f = {n, 0};
            cna_allocator al = {fa_alloc, fa_free, &f};
            cna_animator *an = NULL;
            cna_error err;
            cna_result r = cna_animator_create(m, &al, &an, &err);
            if (r == CNA_OK) {
                created = true;
                f.left = 0; /* select may grow a player's cursors: refused cleanly */
                r = cna_animator_select(an, 0, &err);
                if (r != CNA_OK) {
                    assert_int_equal(r, CNA_ERROR_OUT_OF_MEMORY);
                    assert_int_equal(cna_animator_animation(an), -1);
                }
                f.left = 1000;
                assert_int_equal(cna_animator_select(an, 0, &err), CNA_OK);
                const long live = f.live;
                f.left = 0; /* pose allocates nothing */
                assert_int_equal(cna_animator_pose(an, 0.5, &err), CNA_OK);
                assert_int_equal(f.live, live);
                cna_animator_free(an);
            } else {
                failures++;
                assert_int_equal(r, CNA_ERROR_OUT_OF_MEMORY);
                assert_null(an);
            }
            assert_int_equal(f.live, 0);
        }
        assert_true(created);
        assert_true(failures >= 6); /* the animator's own arrays, then the players' */
        cna_model_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(poses_bit_for_bit_like_the_steps_by_hand),
        cmocka_unit_test(morph_weights_follow_the_weight_track_and_rest_gives_the_initial_weights),
        cmocka_unit_test(time_is_clamped_and_nan_changes_nothing),
        cmocka_unit_test(select_and_find_check_the_index),
        cmocka_unit_test(null_arguments_are_refused),
        cmocka_unit_test(every_allocation_failure_is_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
