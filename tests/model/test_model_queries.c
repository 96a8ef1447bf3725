/*
 * The model's counts and names read through functions (cna/model.h, "counts
 * and names") and the player's clip and time as values (cna/player.h): what a
 * language binding calls instead of mirroring the structs. Exact values on
 * two bundled files, counted from their glTF JSON: RobotExpressive (58 bones,
 * 14 skinned mesh placements of one 43-joint skin, 14 animations) and
 * MorphStressTest (one mesh of two primitives with 8 named targets); every
 * function with a NULL model or player and with indices out of range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model/model_test.h"

#define ROBOT "corpus/valid/RobotExpressive/robot.glb"
#define MORPH "corpus/valid/MorphStressTest/MorphStressTest.gltf"

static void test_bone_count_names_and_parents_are_the_scene_nodes_depth_first(void **state)
{
    (void)state;
    cna_model *m = model_test_load(ROBOT, CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(cna_model_bone_count(m), 58);
    assert_string_equal(cna_model_bone_name(m, 0), "RobotArmature");
    assert_int_equal(cna_model_bone_parent(m, 0), -1);
    assert_string_equal(cna_model_bone_name(m, 14), "Torso");
    assert_int_equal(cna_model_bone_parent(m, 14), 0);
    assert_string_equal(cna_model_bone_name(m, 22), "Head");
    assert_int_equal(cna_model_bone_parent(m, 22), 21);
    assert_string_equal(cna_model_bone_name(m, 57), "PoleTarget.R");
    assert_int_equal(cna_model_bone_parent(m, 57), 15);
    /* the functions read what the fields hold, for every bone */
    for (size_t b = 0; b < m->bone_count; b++) {
        assert_ptr_equal(cna_model_bone_name(m, b), m->bones[b].name);
        assert_int_equal(cna_model_bone_parent(m, b), m->bones[b].parent);
    }
    assert_null(cna_model_bone_name(m, 58));
    assert_int_equal(cna_model_bone_parent(m, 58), -1);
    assert_null(cna_model_bone_name(m, SIZE_MAX));
    assert_int_equal(cna_model_bone_parent(m, SIZE_MAX), -1);
    cna_model_free(m);
}

static void test_meshes_parts_and_skins_count_the_placements(void **state)
{
    (void)state;
    cna_model *m = model_test_load(ROBOT, CNA_CLIP_MODE_DEFAULT);
    /* 14 nodes instance a mesh, each skinned with skin 0 (43 joints): 14 model skins */
    assert_int_equal(cna_model_mesh_count(m), 14);
    assert_int_equal(cna_model_skin_count(m), 14);
    static const char *const names[14] = {"Cylinder.010", "Cylinder.013", "Cylinder.014", "Cylinder.017",
                                          "Cylinder.022", "Cylinder.015", "Cylinder",     "Cylinder.011",
                                          "Cylinder.019", "Cylinder.012", "Cylinder.018", "Cylinder.008",
                                          "Cylinder.009", "Cube.001"};
    static const size_t parts[14] = {1, 1, 1, 1, 2, 2, 3, 1, 1, 1, 1, 1, 1, 2};
    for (size_t i = 0; i < 14; i++) {
        assert_string_equal(cna_model_mesh_name(m, i), names[i]);
        assert_int_equal(cna_model_mesh_part_count(m, i), parts[i]);
        assert_int_equal(cna_model_mesh_parent_bone(m, i), (int32_t)i + 1); /* bones 1..14 */
        assert_int_equal(cna_model_mesh_skin(m, i), (int32_t)i);           /* skins in bone order */
        assert_int_equal(cna_model_skin_joint_count(m, i), 43);
        assert_int_equal(cna_model_morph_target_count(m, i), 0);
        assert_null(cna_model_morph_target_name(m, i, 0));
    }
    assert_null(cna_model_mesh_name(m, 14));
    assert_int_equal(cna_model_mesh_part_count(m, 14), 0);
    assert_int_equal(cna_model_mesh_parent_bone(m, 14), -1);
    assert_int_equal(cna_model_mesh_skin(m, 14), -1);
    assert_int_equal(cna_model_morph_target_count(m, 14), 0);
    assert_int_equal(cna_model_skin_joint_count(m, 14), 0);
    assert_int_equal(cna_model_skin_joint_count(m, SIZE_MAX), 0);
    cna_model_free(m);
}

static void test_animation_count_names_and_durations_in_ticks(void **state)
{
    (void)state;
    cna_model *m = model_test_load(ROBOT, CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(cna_model_animation_count(m), 14);
    /* the last input time of the samplers (float seconds) in ticks of 100 ns, rounded */
    assert_string_equal(cna_model_animation_name(m, 0), "Robot_Dance");
    assert_int_equal(cna_model_animation_duration(m, 0), 33333333);   /* 3.3333332538604736 s */
    assert_string_equal(cna_model_animation_name(m, 7), "Robot_Sitting");
    assert_int_equal(cna_model_animation_duration(m, 7), 4166667);    /* 0.4166666567325592 s */
    assert_string_equal(cna_model_animation_name(m, 12), "Robot_Wave");
    assert_int_equal(cna_model_animation_duration(m, 12), 18333334);  /* 1.8333333730697632 s */
    assert_string_equal(cna_model_animation_name(m, 13), "Robot_Yes");
    assert_int_equal(cna_model_animation_duration(m, 13), 16666666);  /* 1.6666666269302368 s */
    assert_int_equal(cna_model_animation_duration(m, 14), 0);
    assert_int_equal(cna_model_animation_duration(m, SIZE_MAX), 0);

    /* a character playing the animation measures the same duration */
    cna_character *c = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    for (long a = 0; a < 14; a++) {
        assert_int_equal(cna_character_play(c, a, &err), CNA_OK);
        assert_int_equal(cna_character_duration(c), cna_model_animation_duration(m, (size_t)a));
    }
    cna_character_free(c);
    cna_model_free(m);
}

static void test_morph_target_count_and_names_of_a_mesh(void **state)
{
    (void)state;
    cna_model *m = model_test_load(MORPH, CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(cna_model_bone_count(m), 1);
    assert_string_equal(cna_model_bone_name(m, 0), "Main");
    assert_int_equal(cna_model_bone_parent(m, 0), -1);
    assert_int_equal(cna_model_mesh_count(m), 1);
    assert_string_equal(cna_model_mesh_name(m, 0), "Cube");
    assert_int_equal(cna_model_mesh_part_count(m, 0), 2);
    assert_int_equal(cna_model_mesh_parent_bone(m, 0), 0);
    assert_int_equal(cna_model_mesh_skin(m, 0), -1); /* rigid */
    assert_int_equal(cna_model_skin_count(m), 0);
    assert_int_equal(cna_model_skin_joint_count(m, 0), 0);
    assert_int_equal(cna_model_morph_target_count(m, 0), 8);
    char want[16];
    for (size_t t = 0; t < 8; t++) {
        snprintf(want, sizeof want, "Key %zu", t + 1);
        assert_string_equal(cna_model_morph_target_name(m, 0, t), want);
    }
    assert_null(cna_model_morph_target_name(m, 0, 8));
    assert_null(cna_model_morph_target_name(m, 1, 0));
    assert_int_equal(cna_model_animation_count(m), 3);
    assert_string_equal(cna_model_animation_name(m, 1), "TheWave");
    assert_int_equal(cna_model_animation_duration(m, 0), 93666668); /* 9.366666793823242 s */
    assert_int_equal(cna_model_animation_duration(m, 1), 19666667); /* 1.9666666984558105 s */
    assert_int_equal(cna_model_animation_duration(m, 2), 63666668); /* 6.366666793823242 s */
    cna_model_free(m);
}

/* (A NULL model: tests/core/test_null_arguments.c, with every other call.) */
static void test_every_model_query_accepts_a_model_without_animations(void **state)
{
    (void)state;
    /* a model struct without animations or node clips (filled by hand) */
    cna_model empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(cna_model_animation_duration(&empty, 0), 0);
    assert_int_equal(cna_model_morph_target_count(&empty, 0), 0);
}

static void test_player_time_duration_and_clip_name_follow_its_clip(void **state)
{
    (void)state;
    cna_model *m = model_test_load(ROBOT, CNA_CLIP_MODE_DEFAULT);
    const cna_skinning_data *data = &m->skins[0].data;
    cna_player *p = NULL;
    cna_error err;
    assert_int_equal(cna_player_create(data, NULL, &p, &err), CNA_OK);
    assert_int_equal(cna_player_duration(p), 0); /* no clip yet */
    assert_null(cna_player_clip_name(p));
    assert_true(cna_player_time(p) == 0.0);
    assert_int_equal(cna_player_start_clip(p, &data->clips[12], &err), CNA_OK);
    assert_string_equal(cna_player_clip_name(p), "Robot_Wave");
    assert_int_equal(cna_player_duration(p), 18333334);
    assert_int_equal(cna_player_update(p, 5000000, true, true, &err), CNA_OK); /* 0.5 s */
    assert_int_equal(cna_player_position(p), 5000000);
    assert_true(cna_player_time(p) == 0.5);
    assert_int_equal(cna_player_stop(p, &err), CNA_OK);
    assert_null(cna_player_clip_name(p));
    assert_int_equal(cna_player_duration(p), 0);
    cna_player_free(p);
    /* a clip without a name */
    cna_skinning_data copy = *data;
    cna_clip unnamed = data->clips[0];
    unnamed.name = NULL;
    assert_int_equal(cna_player_create(&copy, NULL, &p, &err), CNA_OK);
    assert_int_equal(cna_player_start_clip(p, &unnamed, &err), CNA_OK);
    assert_null(cna_player_clip_name(p));
    assert_int_equal(cna_player_duration(p), 33333333);
    cna_player_free(p);
    assert_true(cna_player_time(NULL) == 0.0);
    assert_int_equal(cna_player_duration(NULL), 0);
    assert_null(cna_player_clip_name(NULL));
    cna_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bone_count_names_and_parents_are_the_scene_nodes_depth_first),
        cmocka_unit_test(test_meshes_parts_and_skins_count_the_placements),
        cmocka_unit_test(test_animation_count_names_and_durations_in_ticks),
        cmocka_unit_test(test_morph_target_count_and_names_of_a_mesh),
        cmocka_unit_test(test_every_model_query_accepts_a_model_without_animations),
        cmocka_unit_test(test_player_time_duration_and_clip_name_follow_its_clip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
