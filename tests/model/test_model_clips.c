/*
 * Clip extraction (spec: "Clip extraction") and the
 * scene-node clips applied to a character's bones (spec: ApplyClipToBonesEXT,
 * cna_character_apply_clip_to_bones), on the fixtures of tests/data/fixtures/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "model_test.h"

#define TICKS CNA_TICKS_PER_SECOND

/* A fresh character (at rest) of m. */
static cna_character *rest_character(const cna_model *m)
{
    cna_character *c = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    return c;
}

/* Bone 0's x translation after scene-node clip 0 at `seconds`, from rest. */
static float bone_x_at(const cna_model *m, double seconds)
{
    cna_error err;
    cna_character *c = rest_character(m);
    assert_int_equal(cna_character_apply_clip_to_bones(c, &m->node_clips[0], seconds, &err), CNA_OK);
    const float x = cna_character_bone_transform(c, 0)->m[12];
    cna_character_free(c);
    return x;
}

static void test_three_key_step_gives_0_10_20_at_its_keys_in_union_mode(void **state)
{
    (void)state;
    cna_model *m = model_test_load("fixtures/step-three-keys.gltf", CNA_CLIP_MODE_UNION);
    assert_int_equal(m->clip_mode, CNA_CLIP_MODE_UNION);
    const cna_clip *c = &m->node_clips[0];
    assert_int_equal(c->target, CNA_CLIP_TARGET_SCENE_NODE);
    assert_int_equal(c->track_count, 1);
    assert_int_equal(c->tracks[0].key_count, 3);
    const int64_t ticks[3] = {0, TICKS, 2 * TICKS};
    const float xs[3] = {0, 10, 20};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(c->tracks[0].keys[k].ticks, ticks[k]);
        assert_true(c->tracks[0].keys[k].translation.x == xs[k]);
    }
    assert_true(bone_x_at(m, 0) == 0.0f);
    assert_true(bone_x_at(m, 1) == 10.0f);
    assert_true(bone_x_at(m, 2) == 20.0f);
    /* the spec's documented limitation: a ramp between the union keys */
    assert_true(bone_x_at(m, 0.5) == 5.0f);
    cna_model_free(m);
}

static void test_three_key_step_holds_between_keys_in_faithful_mode(void **state)
{
    (void)state;
    cna_model *m = model_test_load("fixtures/step-three-keys.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(m->clip_mode, CNA_CLIP_MODE_FAITHFUL);
    const cna_bone_track *t = &m->node_clips[0].tracks[0];
    /* the keys, plus a hold one tick before each change */
    const int64_t ticks[5] = {0, TICKS - 1, TICKS, 2 * TICKS - 1, 2 * TICKS};
    const float xs[5] = {0, 0, 10, 10, 20};
    assert_int_equal(t->key_count, 5);
    for (int k = 0; k < 5; k++) {
        assert_int_equal(t->keys[k].ticks, ticks[k]);
        assert_true(t->keys[k].translation.x == xs[k]);
    }
    assert_true(bone_x_at(m, 0) == 0.0f);
    assert_true(bone_x_at(m, 0.5) == 0.0f);
    assert_true(bone_x_at(m, 0.9999999) == 0.0f);
    assert_true(bone_x_at(m, 1) == 10.0f);
    assert_true(bone_x_at(m, 1.5) == 10.0f);
    assert_true(bone_x_at(m, 2) == 20.0f);
    cna_model_free(m);
}

static cna_quat rotation_key_at(const cna_bone_track *t, int64_t ticks)
{
    for (size_t k = 0; k < t->key_count; k++)
        if (t->keys[k].ticks == ticks) return t->keys[k].rotation;
    fail_msg("no key at %lld ticks", (long long)ticks);
    return cna_quat_identity();
}

static double quat_len(cna_quat q)
{
    return sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
}

/* The cubic from identity to 90° about z with zero tangents: component-wise
 * Hermite, renormalised. */
static cna_quat cubic_expected(double u)
{
    double s = sin(0.78539816339744830962), c = cos(0.78539816339744830962);
    double h00 = 2 * u * u * u - 3 * u * u + 1, h01 = -2 * u * u * u + 3 * u * u;
    double z = h01 * s, w = h00 + h01 * c;
    double n = sqrt(z * z + w * w);
    return cna_quat_make(0, 0, (float)(z / n), (float)(w / n));
}

static void test_cubic_rotation_is_renormalised_at_union_keys(void **state)
{
    (void)state;
    cna_model *m = model_test_load("fixtures/cubic-rotation.gltf", CNA_CLIP_MODE_UNION);
    const cna_bone_track *t = &m->node_clips[0].tracks[0];
    assert_int_equal(t->key_count, 3);   /* 0, 0.5 (the translation's key), 1 */
    cna_quat q = rotation_key_at(t, TICKS / 2);
    /* component-wise (0, 0, 0.354, 0.854) has length 0.924; renormalised: 45° */
    assert_true(fabs(quat_len(q) - 1.0) < 1e-6);
    cna_quat e = cubic_expected(0.5);
    assert_true(fabs((double)q.z - (double)e.z) < 1e-6 && fabs((double)q.w - (double)e.w) < 1e-6);
    assert_true(fabs((double)q.z - sin(0.39269908169872415481)) < 1e-6);
    cna_model_free(m);
}

/* Angle of the rotation between a and b (unit quaternions): 4·atan2(|a - b|, |a + b|)
 * after aligning signs; accurate for tiny angles, unlike 2·acos(a·b) in float. */
static double rotation_angle(cna_quat a, cna_quat b)
{
    double x[4] = {a.x, a.y, a.z, a.w}, y[4] = {b.x, b.y, b.z, b.w};
    double dot = x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3];
    double sign = dot < 0 ? -1 : 1, diff = 0, sum = 0;
    for (int i = 0; i < 4; i++) {
        diff += (x[i] - sign * y[i]) * (x[i] - sign * y[i]);
        sum += (x[i] + sign * y[i]) * (x[i] + sign * y[i]);
    }
    return 4 * atan2(sqrt(diff), sqrt(sum));
}

static void test_faithful_cubic_keys_follow_the_curve_between_keys(void **state)
{
    (void)state;
    cna_model *m = model_test_load("fixtures/cubic-rotation.gltf", CNA_CLIP_MODE_FAITHFUL);
    const cna_bone_track *t = &m->node_clips[0].tracks[0];
    assert_true(t->key_count > 3);
    for (size_t k = 0; k < t->key_count; k++)
        assert_true(fabs(quat_len(t->keys[k].rotation) - 1.0) < 1e-6);
    /* between keys, the player's slerp stays within 1e-4 rad of the curve */
    for (int i = 1; i < 100; i++) {
        double u = i / 100.0;
        cna_keyframe k;
        cna_track_sample_linear(t, cna_ticks_from_seconds(u), &k);
        cna_quat e = cubic_expected(u);
        double angle = rotation_angle(k.rotation, e);
        if (!(angle <= 1e-4)) fail_msg("at %g s the rotation is %g rad off the curve", u, angle);
    }
    cna_model_free(m);
}

static void test_apply_clip_to_bones_refuses_a_palette_clip(void **state)
{
    (void)state;
    cna_model *m = model_test_load("fixtures/skin-ordered-joints.gltf", CNA_CLIP_MODE_DEFAULT);
    cna_error err;
    const cna_clip *palette_clip = &m->skins[0].data.clips[0];
    assert_int_equal(palette_clip->target, CNA_CLIP_TARGET_JOINT_PALETTE);
    cna_character *c = rest_character(m);
    assert_int_equal(cna_character_apply_clip_to_bones(c, palette_clip, 0.5, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "clip \"Bend\": target joint-palette is not a scene-node clip; play it with a cna_player");
    for (size_t b = 0; b < m->bone_count; b++)
        assert_memory_equal(cna_character_bone_transform(c, b), &m->bones[b].rest_transform, sizeof(cna_mat4));
    cna_character_free(c);
    cna_model_free(m);
}

static void test_apply_clip_to_bones_clamps_the_time(void **state)
{
    (void)state;
    cna_model *m = model_test_load("fixtures/step-three-keys.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_true(bone_x_at(m, 5.0) == 20.0f);
    assert_true(bone_x_at(m, -1.0) == 0.0f);
    cna_error err;
    cna_character *c = rest_character(m);
    assert_int_equal(cna_character_apply_clip_to_bones(c, &m->node_clips[0], NAN, &err), CNA_ERROR_INVALID_ARGUMENT);
    cna_character_free(c);
    cna_model_free(m);
}

static void test_apply_clip_to_bones_writes_tracked_bones_and_leaves_the_others(void **state)
{
    (void)state;
    /* skin-folded-node: Mid (not a joint) is animated; J0, J1 and the mesh node are not
     * in the scene-node clip. */
    cna_model *m = model_test_load("fixtures/skin-folded-node.gltf", CNA_CLIP_MODE_DEFAULT);
    const cna_clip *c = &m->node_clips[0];
    assert_int_equal(c->track_count, 1);
    int32_t mid = m->gltf_node_to_bone[2];
    assert_int_equal(c->tracks[0].bone, mid);
    cna_error err;
    cna_character *ch = rest_character(m);
    assert_int_equal(cna_character_apply_clip_to_bones(ch, c, 0.5, &err), CNA_OK);
    assert_true(cna_character_bone_transform(ch, (size_t)mid)->m[13] == 1.5f);
    for (size_t b = 0; b < m->bone_count; b++)
        if ((int32_t)b != mid)
            assert_memory_equal(cna_character_bone_transform(ch, b), &m->bones[b].rest_transform, sizeof(cna_mat4));
    cna_character_free(ch);
    /* the spec's code is reported with its count even though cna keeps the clip */
    const cna_model_diagnostic *d = cna_model_find_diagnostic(m, CNA_MODEL_DIAG_RIGID_ANIMATION_DROPPED);
    assert_non_null(d);
    assert_int_equal(d->count, 1);
    cna_model_free(m);
}

static void test_skeletal_clip_per_skin_tracks_by_palette_with_the_largest_input_as_duration(void **state)
{
    (void)state;
    cna_model *m = model_test_load("fixtures/skin-reversed-joints.gltf", CNA_CLIP_MODE_UNION);
    const cna_skinning_data *d = cna_model_skinning_data(m);
    assert_ptr_equal(d, &m->skins[0].data);
    assert_int_equal(d->clip_count, 1);
    const cna_clip *c = &d->clips[0];
    assert_string_equal(c->name, "Bend");
    assert_int_equal(c->duration, 2 * TICKS);
    assert_int_equal(c->target, CNA_CLIP_TARGET_JOINT_PALETTE);
    assert_int_equal(c->track_count, 3);
    for (int p = 0; p < 3; p++) assert_int_equal(c->tracks[p].bone, p);   /* palette order */
    /* J1 (palette 1): translation keys 0, 0.5, 2; its rotation is its rest (identity) */
    assert_int_equal(c->tracks[1].key_count, 3);
    for (size_t k = 0; k < 3; k++) {
        cna_quat r = c->tracks[1].keys[k].rotation;
        assert_true(r.x == 0 && r.y == 0 && r.z == 0 && r.w == 1);
    }
    /* J2 (palette 2): rotation only; translation = the node's own (0, 1, 0) exactly */
    for (size_t k = 0; k < c->tracks[2].key_count; k++) {
        cna_vec3 t = c->tracks[2].keys[k].translation;
        assert_true(t.x == 0 && t.y == 1 && t.z == 0);
    }
    /* the scene-node clip of the same animation exists, with no tracks */
    assert_int_equal(m->animation_count, 1);
    assert_int_equal(m->node_clips[0].track_count, 0);
    assert_int_equal(m->node_clips[0].target, CNA_CLIP_TARGET_SCENE_NODE);
    assert_int_equal(m->node_clips[0].duration, 2 * TICKS);
    /* the imported data passes the validator */
    cna_error err;
    assert_int_equal(cna_skinning_data_validate(d, &err), CNA_OK);
    cna_model_free(m);
}

static void test_channel_outside_the_selected_scene_is_counted(void **state)
{
    (void)state;
    char path[1024];
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_file(model_test_path(path, sizeof path, "fixtures/step-three-keys.gltf"),
                                        NULL, &doc, &err), CNA_OK);
    /* a second, empty scene: the animated node is outside it */
    cna_gltf_document copy = *doc;
    cna_gltf_scene scenes[2] = {doc->scenes[0], {NULL, NULL, 0}};
    copy.scenes = scenes;
    copy.scene_count = 2;
    cna_import_options o;
    memset(&o, 0, sizeof o);
    o.use_scene = true;
    o.scene = 1;
    cna_model *m = NULL;
    assert_int_equal(cna_model_import_gltf(&copy, &o, &m, &err), CNA_OK);
    assert_int_equal(m->bone_count, 0);
    assert_int_equal(m->node_clips[0].track_count, 0);
    const cna_model_diagnostic *d = cna_model_find_diagnostic(m, CNA_MODEL_DIAG_TARGET_OUTSIDE_SCENE);
    assert_non_null(d);
    assert_int_equal(d->count, 1);
    cna_model_free(m);
    /* a scene that does not exist is refused */
    o.scene = 2;
    assert_int_equal(cna_model_import_gltf(&copy, &o, &m, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "import options: scene 2 does not exist (the file has 2)");
    cna_gltf_document_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_key_step_gives_0_10_20_at_its_keys_in_union_mode),
        cmocka_unit_test(test_three_key_step_holds_between_keys_in_faithful_mode),
        cmocka_unit_test(test_cubic_rotation_is_renormalised_at_union_keys),
        cmocka_unit_test(test_faithful_cubic_keys_follow_the_curve_between_keys),
        cmocka_unit_test(test_apply_clip_to_bones_refuses_a_palette_clip),
        cmocka_unit_test(test_apply_clip_to_bones_clamps_the_time),
        cmocka_unit_test(test_apply_clip_to_bones_writes_tracked_bones_and_leaves_the_others),
        cmocka_unit_test(test_skeletal_clip_per_skin_tracks_by_palette_with_the_largest_input_as_duration),
        cmocka_unit_test(test_channel_outside_the_selected_scene_is_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
