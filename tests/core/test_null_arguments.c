/*
 * Every public function that returns no cna_result accepts NULL for its
 * object and its output pointers: a function returning nothing does nothing
 * (outputs keep their values), a query returns NULL, 0, -1 (indices) or
 * false, as its header says. One test per header.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cna/cna.h"

static const cna_mat4 ones = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};

static void anim_functions_accept_null(void **state)
{
    (void)state;
    cna_keyframe out = cna_keyframe_make(7, cna_vec3_make(1, 2, 3)), before = out;
    cna_track_sample_linear(NULL, 0, &out);
    assert_memory_equal(&out, &before, sizeof out);
    size_t cursor = 5;
    cna_track_sample(NULL, 0, &cursor, &out);
    assert_memory_equal(&out, &before, sizeof out);
    assert_int_equal(cursor, 5);
    cna_keyframe keys[2] = {cna_keyframe_make(0, cna_vec3_make(0, 0, 0)),
                            cna_keyframe_make(10, cna_vec3_make(10, 0, 0))};
    cna_bone_track track = cna_bone_track_make(0, keys, 2);
    cna_track_sample_linear(&track, 5, NULL);
    cna_track_sample(&track, 5, NULL, &out); /* no cursor: searched from the start */
    assert_true(out.translation.x == 5.0f);
    out = before;
    cna_track_sample(&track, 5, &cursor, NULL);
    assert_null(cna_skinning_data_find_clip(NULL, "walk"));
    cna_skinning_data d = cna_skinning_data_make(0, NULL, NULL, NULL);
    assert_null(cna_skinning_data_find_clip(&d, NULL));
}

static void player_and_character_queries_accept_null(void **state)
{
    (void)state;
    cna_player_free(NULL);
    assert_int_equal(cna_player_position(NULL), 0);
    assert_null(cna_player_current_clip(NULL));
    assert_null(cna_player_skinning_data(NULL));
    assert_int_equal(cna_player_bone_count(NULL), 0);
    assert_true(cna_player_time(NULL) == 0.0);
    assert_int_equal(cna_player_duration(NULL), 0);
    assert_null(cna_player_clip_name(NULL));
    assert_null(cna_player_bone_transforms(NULL));
    assert_null(cna_player_world_transforms(NULL));
    assert_null(cna_player_skin_transforms(NULL));
    cna_character_free(NULL);
    assert_null(cna_character_model(NULL));
    assert_int_equal(cna_character_size_bytes(NULL), 0);
    assert_int_equal(cna_character_animation(NULL), -1);
    assert_true(cna_character_duration(NULL) == 0 && cna_character_position(NULL) == 0);
    assert_true(cna_character_time(NULL) == 0.0 && cna_character_time_scale(NULL) == 1.0);
    assert_null(cna_character_absolute_transform(NULL, 0));
    assert_null(cna_character_bone_transform(NULL, 0));
    assert_null(cna_character_skin_transforms(NULL, 0));
    assert_null(cna_character_world_transforms(NULL, 0));
    assert_null(cna_character_root_prefixes(NULL, 0));
    assert_false(cna_character_skin_has_moving_prefix(NULL, 0));
    size_t count = 9;
    assert_null(cna_character_morph_weights(NULL, 0, 0, &count));
    assert_int_equal(count, 0);
    assert_null(cna_character_morph_weights(NULL, 0, 0, NULL));
    assert_null(cna_character_part_vertices(NULL, 0, 0, NULL));
    assert_true(cna_character_part_revision(NULL, 0, 0) == 0);
    assert_null(cna_player_root_prefix(NULL));
    cna_crowd_free(NULL);
    assert_int_equal(cna_crowd_thread_count(NULL), 0);
}

static void math_functions_accept_null(void **state)
{
    (void)state;
    cna_mat4 m = ones;
    cna_mat4_identity(NULL);
    cna_mat4_translation(NULL, cna_vec3_make(1, 2, 3));
    cna_mat4_mul(NULL, &ones, &ones);
    cna_mat4_mul(&m, NULL, &ones);
    cna_mat4_mul(&m, &ones, NULL);
    assert_memory_equal(&m, &ones, sizeof m);
    cna_mat4_compose(NULL, cna_vec3_make(0, 0, 0), cna_quat_identity(), cna_vec3_make(1, 1, 1));
    cna_vec3 t = cna_vec3_make(1, 1, 1), s = t;
    cna_quat r = cna_quat_identity();
    assert_false(cna_mat4_decompose(NULL, &t, &r, &s));
    cna_mat4_identity(&m);
    assert_false(cna_mat4_decompose(&m, NULL, &r, &s));
    assert_false(cna_mat4_decompose(&m, &t, NULL, &s));
    assert_false(cna_mat4_decompose(&m, &t, &r, NULL));
    assert_false(cna_mat4_inverse(NULL, &m));
    assert_false(cna_mat4_inverse(&m, NULL));
    cna_vec3 p = cna_mat4_transform_point(NULL, cna_vec3_make(1, 2, 3));
    assert_true(p.x == 0.0f && p.y == 0.0f && p.z == 0.0f);
    p = cna_mat4_transform_vector(NULL, cna_vec3_make(1, 2, 3));
    assert_true(p.x == 0.0f && p.y == 0.0f && p.z == 0.0f);
    assert_false(cna_mat4_is_identity(NULL));
}

static void gltf_functions_accept_null(void **state)
{
    (void)state;
    cna_gltf_document_free(NULL);
    assert_int_equal(cna_gltf_document_diagnostic_count(NULL), 0);
    assert_null(cna_gltf_document_diagnostic(NULL, 0));
    assert_null(cna_gltf_document_find_diagnostic(NULL, "x"));
    assert_int_equal(cna_gltf_accessor_float_count(NULL, 0), 0);
    assert_int_equal(cna_gltf_primitive_find_attribute(NULL, CNA_GLTF_ATTRIBUTE_POSITION, 0), -1);
    cna_mat4 m = ones;
    cna_gltf_node_local_matrix(NULL, &m);
    assert_memory_equal(&m, &ones, sizeof m);
    cna_gltf_node node;
    memset(&node, 0, sizeof node);
    cna_gltf_node_local_matrix(&node, NULL);
}

static void model_morph_device_and_baked_functions_accept_null(void **state)
{
    (void)state;
    cna_model_free(NULL);
    assert_null(cna_model_skinning_data(NULL));
    assert_null(cna_model_find_diagnostic(NULL, "x"));
    assert_int_equal(cna_model_find_bone(NULL, "x"), -1);
    assert_null(cna_vertex_declaration_find(NULL, CNA_VERTEX_USAGE_POSITION, 0));
    assert_null(cna_model_animation_name(NULL, 0));
    assert_int_equal(cna_model_size_bytes(NULL), 0);
    assert_int_equal(cna_model_bone_count(NULL), 0);
    assert_null(cna_model_bone_name(NULL, 0));
    assert_int_equal(cna_model_bone_parent(NULL, 0), -1);
    assert_int_equal(cna_model_mesh_count(NULL), 0);
    assert_null(cna_model_mesh_name(NULL, 0));
    assert_int_equal(cna_model_mesh_part_count(NULL, 0), 0);
    assert_int_equal(cna_model_mesh_parent_bone(NULL, 0), -1);
    assert_int_equal(cna_model_mesh_skin(NULL, 0), -1);
    assert_int_equal(cna_model_morph_target_count(NULL, 0), 0);
    assert_null(cna_model_morph_target_name(NULL, 0, 0));
    assert_int_equal(cna_model_skin_count(NULL), 0);
    assert_int_equal(cna_model_skin_joint_count(NULL, 0), 0);
    assert_int_equal(cna_model_animation_count(NULL), 0);
    assert_int_equal(cna_model_animation_duration(NULL, 0), 0);
    size_t size = 9;

    assert_int_equal(cna_morph_blend_size(NULL), 0);
    cna_morph_instance_free(NULL);
    assert_null(cna_morph_instance_data(NULL));
    size = 9;
    assert_null(cna_morph_instance_weights(NULL, &size));
    assert_int_equal(size, 0);
    size = 9;
    assert_null(cna_morph_instance_vertices(NULL, &size));
    assert_int_equal(size, 0);
    cna_morph_instance_bind_vertex_buffer(NULL, 3);
    assert_int_equal(cna_morph_instance_vertex_buffer(NULL), 0);

    cna_device_destroy_buffer(NULL, 1);
    cna_null_device_free(NULL);
    assert_null(cna_null_device_interface(NULL));
    cna_null_device_stats stats;
    memset(&stats, 0x5a, sizeof stats);
    cna_null_device_stats zero;
    memset(&zero, 0, sizeof zero);
    cna_null_device_get_stats(NULL, &stats); /* documented: zeros for a NULL device */
    assert_memory_equal(&stats, &zero, sizeof stats);
    cna_null_device_get_stats(NULL, NULL);
    size = 9;
    assert_null(cna_null_device_last_upload(NULL, &size));
    assert_int_equal(size, 0);
    size = 9;
    assert_null(cna_null_device_buffer_contents(NULL, 1, &size));
    assert_int_equal(size, 0);
    cna_null_device_fail_next(NULL, CNA_ERROR_IO);

    cna_effect_init(NULL, CNA_EFFECT_KIND_BASIC);

    cna_cnj_text_free(NULL, NULL);
    assert_null(cna_cnj_skeleton_data(NULL));
    cna_cnj_skeleton_free(NULL);
    cna_cnb_bytes_free(NULL, NULL);
    assert_false(cna_cnb_is_cnb(NULL, 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(anim_functions_accept_null),
        cmocka_unit_test(player_and_character_queries_accept_null),
        cmocka_unit_test(math_functions_accept_null),
        cmocka_unit_test(gltf_functions_accept_null),
        cmocka_unit_test(model_morph_device_and_baked_functions_accept_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
