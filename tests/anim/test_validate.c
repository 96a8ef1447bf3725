/*
 * cna_skinning_data_validate: one test per rule, each with its exact message;
 * plus the constructors and clip lookup.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <math.h>

#include <cmocka.h>

#include "anim/fixtures.h"

static void assert_invalid(const cna_skinning_data *data, const char *message)
{
    cna_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(cna_skinning_data_validate(data, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(err.code, CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, message);
}

static void test_valid_two_bone_rig_passes(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    assert_int_equal(cna_skinning_data_validate(&r.data, NULL), CNA_OK);
    r.data.root_prefix = r.prefix;
    r.data.root_prefix_count = 2;
    assert_int_equal(cna_skinning_data_validate(&r.data, NULL), CNA_OK);
    cna_skinning_data empty = cna_skinning_data_make(0, NULL, NULL, NULL);
    assert_int_equal(cna_skinning_data_validate(&empty, NULL), CNA_OK);
}

static void test_null_data_is_invalid(void **state)
{
    (void)state;
    assert_invalid(NULL, "skinning data: NULL");
}

static void test_bone_count_outside_range_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.data.bone_count = -1;
    assert_invalid(&r.data, "bone_count: -1 is outside 0..100000");
    r.data.bone_count = 100001;
    assert_invalid(&r.data, "bone_count: 100001 is outside 0..100000");
}

static void test_array_count_differing_from_bone_count_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.data.hierarchy_count = 1;
    assert_invalid(&r.data, "hierarchy_count: 1 differs from bone_count 2");
    two_bone_rig_init(&r);
    r.data.bind_pose_count = 3;
    assert_invalid(&r.data, "bind_pose_count: 3 differs from bone_count 2");
    two_bone_rig_init(&r);
    r.data.inverse_bind_pose_count = 0;
    assert_invalid(&r.data, "inverse_bind_pose_count: 0 differs from bone_count 2");
}

static void test_null_array_with_entries_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.data.hierarchy = NULL;
    assert_invalid(&r.data, "hierarchy: NULL with hierarchy_count 2");
    two_bone_rig_init(&r);
    r.data.inverse_bind_pose = NULL;
    assert_invalid(&r.data, "inverse_bind_pose: NULL with inverse_bind_pose_count 2");
}

static void test_parent_not_below_own_index_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.hierarchy[1] = 1;
    assert_invalid(&r.data, "hierarchy[1]: parent 1 is not below own index 1");
    r.hierarchy[1] = -5; /* any negative parent is a root */
    assert_int_equal(cna_skinning_data_validate(&r.data, NULL), CNA_OK);
}

/* The parent check runs four bones at a time, then one at a time: on 11
 * bones (two blocks of four and a tail of three), an offender at every index
 * (self, next, far forward) is found and named, the first one when there
 * are two, and parents just below own index and very negative ones pass. */
static void test_parent_check_names_the_first_offender_at_every_index(void **state)
{
    (void)state;
    enum { N = 11 };
    int32_t hierarchy[N];
    cna_mat4 bind[N], inverse_bind[N];
    for (int i = 0; i < N; ++i) {
        cna_mat4_identity(&bind[i]);
        cna_mat4_identity(&inverse_bind[i]);
    }
    cna_skinning_data d = cna_skinning_data_make(N, hierarchy, bind, inverse_bind);
    for (int32_t i = 0; i < N; ++i) hierarchy[i] = i - 1;
    assert_int_equal(cna_skinning_data_validate(&d, NULL), CNA_OK);
    for (int32_t i = 0; i < N; ++i) hierarchy[i] = i % 2 ? INT32_MIN : -1;
    assert_int_equal(cna_skinning_data_validate(&d, NULL), CNA_OK);
    const int32_t wrong[3] = {0, 1, INT32_MAX}; /* added to the own index, saturated */
    for (int32_t bad = 0; bad < N; ++bad) {
        for (int k = 0; k < 6; ++k) {
            for (int32_t i = 0; i < N; ++i) hierarchy[i] = i - 1;
            hierarchy[bad] = wrong[k % 3] == INT32_MAX ? INT32_MAX : bad + wrong[k % 3];
            if (k >= 3 && bad + 1 < N) hierarchy[N - 1] = N + 3; /* a later offender too */
            char message[128];
            snprintf(message, sizeof message, "hierarchy[%ld]: parent %ld is not below own index %ld",
                     (long)bad, (long)hierarchy[bad], (long)bad);
            assert_invalid(&d, message);
        }
    }
}

static void test_null_root_prefix_that_would_be_read_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.data.root_prefix_count = 2;
    assert_invalid(&r.data, "root_prefix: NULL with root_prefix_count 2");
}

static void test_root_prefix_count_neither_zero_nor_bone_count_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.data.root_prefix = r.prefix;
    r.data.root_prefix_count = 1;
    assert_invalid(&r.data, "root_prefix_count: 1 is neither 0 nor bone_count 2");
}

static void test_non_finite_matrix_element_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.bind[1].m[13] = INFINITY;
    assert_invalid(&r.data, "bind_pose[1].m[13]: inf is not finite");
    two_bone_rig_init(&r);
    r.inverse_bind[1].m[12] = NAN;
    assert_invalid(&r.data, "inverse_bind_pose[1].m[12]: NaN is not finite");
    two_bone_rig_init(&r);
    r.prefix[0].m[0] = -INFINITY;
    r.data.root_prefix = r.prefix;
    r.data.root_prefix_count = 2;
    assert_invalid(&r.data, "root_prefix[0].m[0]: -inf is not finite");
}

static void test_null_clips_with_count_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.data.clips = NULL;
    assert_invalid(&r.data, "clips: NULL with clip_count 1");
}

static void test_negative_clip_duration_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.clip.duration = -1;
    assert_invalid(&r.data, "clips[0] \"Move\": duration -1 is negative");
    r.clip.name = NULL; /* a clip without a name is labelled by index only */
    assert_invalid(&r.data, "clips[0]: duration -1 is negative");
}

static void test_scene_node_clip_is_invalid_in_skinning_data(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.clip.target = CNA_CLIP_TARGET_SCENE_NODE;
    assert_invalid(&r.data, "clips[0] \"Move\": target scene-node is not a joint-palette clip");
    r.clip.target = (cna_clip_target)7;
    assert_invalid(&r.data, "clips[0] \"Move\": target 7 is not a cna_clip_target");
    r.clip.target = CNA_CLIP_TARGET_DEFAULT;
    assert_int_equal(cna_skinning_data_validate(&r.data, NULL), CNA_OK);
}

static void test_null_tracks_with_count_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.clip.tracks = NULL;
    assert_invalid(&r.data, "clips[0] \"Move\": tracks NULL with track_count 1");
}

static void test_track_bone_out_of_range_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.track.bone = -1;
    assert_invalid(&r.data, "clips[0] \"Move\".tracks[0]: bone -1 is negative");
    r.track.bone = 2;
    assert_invalid(&r.data, "clips[0] \"Move\".tracks[0]: bone 2 is not below bone_count 2");
}

static void test_null_keys_with_count_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.track.keys = NULL;
    assert_invalid(&r.data, "clips[0] \"Move\".tracks[0]: keys NULL with key_count 2");
    r.track.key_count = 0; /* an empty track is allowed (the player ignores it) */
    assert_int_equal(cna_skinning_data_validate(&r.data, NULL), CNA_OK);
}

static void test_negative_key_time_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.keys[0].ticks = -1;
    assert_invalid(&r.data, "clips[0] \"Move\".tracks[0].keys[0]: time -1 is negative");
}

static void test_decreasing_key_times_are_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.keys[0].ticks = 7000000;
    r.keys[1].ticks = 5000000;
    assert_invalid(&r.data,
                   "clips[0] \"Move\".tracks[0].keys[1]: times must not decrease (7000000 then 5000000)");
    r.keys[1].ticks = 7000000; /* equal times are allowed */
    assert_int_equal(cna_skinning_data_validate(&r.data, NULL), CNA_OK);
}

static void test_non_finite_key_value_is_invalid(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.keys[1].translation.y = NAN;
    assert_invalid(&r.data, "clips[0] \"Move\".tracks[0].keys[1].translation.y: NaN is not finite");
    two_bone_rig_init(&r);
    r.keys[0].rotation.w = INFINITY;
    assert_invalid(&r.data, "clips[0] \"Move\".tracks[0].keys[0].rotation.w: inf is not finite");
    two_bone_rig_init(&r);
    r.keys[1].scale.z = -INFINITY;
    assert_invalid(&r.data, "clips[0] \"Move\".tracks[0].keys[1].scale.z: -inf is not finite");
}

static void test_first_broken_rule_is_reported(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.hierarchy[1] = 3;          /* rule 4 */
    r.clip.duration = -1;        /* a later rule */
    r.data.bind_pose_count = 1;  /* rule 3: reported */
    assert_invalid(&r.data, "bind_pose_count: 1 differs from bone_count 2");
}

static void test_long_clip_name_is_cut_in_messages(void **state)
{
    (void)state;
    char name[1000];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    two_bone_rig r;
    two_bone_rig_init(&r);
    r.clip.name = name;
    r.clip.duration = -1;
    cna_error err;
    assert_int_equal(cna_skinning_data_validate(&r.data, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(err.message) < CNA_ERROR_MESSAGE_MAX);
    assert_true(strncmp(err.message, "clips[0] \"aaaa", 14) == 0);
}

static void test_find_clip_returns_the_first_clip_with_that_name(void **state)
{
    (void)state;
    two_bone_rig r;
    two_bone_rig_init(&r);
    cna_clip clips[3] = {cna_clip_make(NULL, 1, NULL, 0), cna_clip_make("Move", 2, NULL, 0),
                         cna_clip_make("Move", 3, NULL, 0)};
    r.data.clips = clips;
    r.data.clip_count = 3;
    assert_ptr_equal(cna_skinning_data_find_clip(&r.data, "Move"), &clips[1]);
    assert_null(cna_skinning_data_find_clip(&r.data, "Walk"));
    assert_null(cna_skinning_data_find_clip(&r.data, NULL));
    assert_null(cna_skinning_data_find_clip(NULL, "Move"));
}

static void test_constructors_fill_defaults(void **state)
{
    (void)state;
    cna_keyframe k = cna_keyframe_make(42, cna_vec3_make(1, 2, 3));
    assert_true(k.ticks == 42);
    assert_true(k.rotation.x == 0.0f && k.rotation.y == 0.0f && k.rotation.z == 0.0f &&
                k.rotation.w == 1.0f);
    assert_true(k.scale.x == 1.0f && k.scale.y == 1.0f && k.scale.z == 1.0f);
    cna_clip c = cna_clip_make("X", 5, NULL, 0);
    assert_int_equal(c.target, CNA_CLIP_TARGET_JOINT_PALETTE);
    cna_skinning_data d = cna_skinning_data_make(-3, NULL, NULL, NULL);
    assert_int_equal(d.hierarchy_count, 0);
    assert_int_equal(d.skeleton_root_node, -1);
    assert_null(d.root_prefix);
    assert_int_equal(d.root_prefix_count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_two_bone_rig_passes),
        cmocka_unit_test(test_null_data_is_invalid),
        cmocka_unit_test(test_bone_count_outside_range_is_invalid),
        cmocka_unit_test(test_array_count_differing_from_bone_count_is_invalid),
        cmocka_unit_test(test_null_array_with_entries_is_invalid),
        cmocka_unit_test(test_parent_not_below_own_index_is_invalid),
        cmocka_unit_test(test_null_root_prefix_that_would_be_read_is_invalid),
        cmocka_unit_test(test_root_prefix_count_neither_zero_nor_bone_count_is_invalid),
        cmocka_unit_test(test_non_finite_matrix_element_is_invalid),
        cmocka_unit_test(test_null_clips_with_count_is_invalid),
        cmocka_unit_test(test_negative_clip_duration_is_invalid),
        cmocka_unit_test(test_scene_node_clip_is_invalid_in_skinning_data),
        cmocka_unit_test(test_null_tracks_with_count_is_invalid),
        cmocka_unit_test(test_track_bone_out_of_range_is_invalid),
        cmocka_unit_test(test_null_keys_with_count_is_invalid),
        cmocka_unit_test(test_negative_key_time_is_invalid),
        cmocka_unit_test(test_decreasing_key_times_are_invalid),
        cmocka_unit_test(test_non_finite_key_value_is_invalid),
        cmocka_unit_test(test_first_broken_rule_is_reported),
        cmocka_unit_test(test_long_clip_name_is_cut_in_messages),
        cmocka_unit_test(test_find_clip_returns_the_first_clip_with_that_name),
        cmocka_unit_test(test_constructors_fill_defaults),
        cmocka_unit_test(test_parent_check_names_the_first_offender_at_every_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
