/*
 * What the reader accepts where glTF says MUST but the meaning is clear, each
 * with its diagnostic (exact code, count and message) on the document and the
 * model, and the model posing exactly as the strict file does:
 *   - a skin.skeleton hint that is not a common root of the joints: ignored;
 *   - empty top-level arrays: read as absent (an animation-only file loads);
 *   - animation input accessors without min/max: computed from the key times.
 * Fixtures: tests/data/fixtures/lenient-*.gltf (tests/model/make_fixtures.py),
 * compared with skin-animated-ancestor.gltf, their strict twin.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cna/cna.h"

#define FIXTURES CNA_TEST_DATA_DIR "/fixtures/"

static cna_gltf_document *load_doc(const char *name)
{
    cna_gltf_document *doc = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_result r = cna_gltf_load_file(name, NULL, &doc, &err);
    if (r != CNA_OK) fail_msg("%s: %s", name, err.message);
    assert_int_equal(r, CNA_OK);
    return doc;
}

static cna_model *import_doc(const cna_gltf_document *doc)
{
    cna_model *model = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_result r = cna_model_import_gltf(doc, NULL, &model, &err);
    if (r != CNA_OK) fail_msg("import: %s", err.message);
    return model;
}

/* The diagnostic `code` on the document and, copied, on the model. */
static void expect_diag(const cna_gltf_document *doc, const cna_model *model, const char *code, size_t count,
                        const char *message)
{
    const cna_gltf_diagnostic *d = cna_gltf_document_find_diagnostic(doc, code);
    if (!d) fail_msg("no diagnostic \"%s\"", code);
    if (d->count != count || strcmp(d->message, message) != 0)
        fail_msg("diagnostic %s: expected x%zu \"%s\"\n     got x%zu \"%s\"", code, count, message, d->count,
                 d->message);
    const cna_model_diagnostic *m = cna_model_find_diagnostic(model, code);
    assert_non_null(m);
    assert_int_equal(m->count, count);
    assert_string_equal(m->message, message);
}

/* Both models have the same bones and skins and pose bit for bit alike at
 * several times of animation 0: absolute transforms, skin palettes, joint
 * worlds and root prefixes. */
static void expect_same_poses(const cna_model *a, const cna_model *b)
{
    assert_int_equal(a->bone_count, b->bone_count);
    assert_int_equal(a->skin_count, b->skin_count);
    assert_int_equal(a->animation_count, b->animation_count);
    cna_character *ca = NULL, *cb = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(cna_character_create(a, NULL, &ca, &err), CNA_OK);
    assert_int_equal(cna_character_create(b, NULL, &cb, &err), CNA_OK);
    assert_int_equal(cna_character_play(ca, 0, &err), CNA_OK);
    assert_int_equal(cna_character_play(cb, 0, &err), CNA_OK);
    assert_true(cna_character_duration(ca) == cna_character_duration(cb));
    static const double times[] = {0.0, 0.3, 0.75, 1.0, 1.6, 2.0};
    for (size_t t = 0; t < sizeof times / sizeof times[0]; t++) {
        assert_int_equal(cna_character_seek(ca, times[t], &err), CNA_OK);
        assert_int_equal(cna_character_seek(cb, times[t], &err), CNA_OK);
        assert_int_equal(cna_character_pose(ca, &err), CNA_OK);
        assert_int_equal(cna_character_pose(cb, &err), CNA_OK);
        for (size_t k = 0; k < a->bone_count; k++)
            assert_memory_equal(cna_character_absolute_transform(ca, k), cna_character_absolute_transform(cb, k),
                                sizeof(cna_mat4));
        for (size_t s = 0; s < a->skin_count; s++) {
            const size_t n = a->skins[s].joint_count;
            assert_int_equal(n, b->skins[s].joint_count);
            assert_memory_equal(cna_character_skin_transforms(ca, s), cna_character_skin_transforms(cb, s),
                                n * sizeof(cna_mat4));
            assert_memory_equal(cna_character_world_transforms(ca, s), cna_character_world_transforms(cb, s),
                                n * sizeof(cna_mat4));
            assert_memory_equal(cna_character_root_prefixes(ca, s), cna_character_root_prefixes(cb, s),
                                sizeof(cna_mat4));
        }
    }
    cna_character_free(cb);
    cna_character_free(ca);
}

/* skin.skeleton = the tip joint, not an ancestor of the root joint: the file
 * loads, the hint reads as absent (-1 on the document and the model) and the
 * model is the one without the hint. */
static void test_skeleton_hint_not_a_common_root_is_ignored(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_doc(FIXTURES "lenient-skeleton-hint.gltf");
    cna_gltf_document *twin = load_doc(FIXTURES "skin-animated-ancestor.gltf");
    assert_int_equal(doc->skins[0].skeleton, -1);
    assert_int_equal(doc->diagnostic_count, twin->diagnostic_count + 1);
    cna_model *model = import_doc(doc);
    cna_model *strict = import_doc(twin);
    expect_diag(doc, model, CNA_GLTF_DIAG_SKIN_SKELETON_HINT_IGNORED, 1,
                "skins[0].skeleton: nodes[2] is not a common root of the skin's joints (not joints[0] (nodes[1]) "
                "nor one of its ancestors); ignored");
    assert_null(cna_gltf_document_find_diagnostic(twin, CNA_GLTF_DIAG_SKIN_SKELETON_HINT_IGNORED));
    assert_int_equal(model->skins[0].data.skeleton_root_node, -1);
    assert_null(model->skins[0].data.skeleton_root_name);
    assert_int_equal(strict->skins[0].data.skeleton_root_node, -1);
    expect_same_poses(model, strict);
    cna_model_free(strict);
    cna_model_free(model);
    cna_gltf_document_free(twin);
    cna_gltf_document_free(doc);
}

/* Key-time accessors without min/max: computed from the times (the first and
 * the last key), one diagnostic per accessor (three), and the same poses. */
static void test_time_bounds_missing_are_computed(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_doc(FIXTURES "lenient-time-bounds.gltf");
    cna_gltf_document *twin = load_doc(FIXTURES "skin-animated-ancestor.gltf");
    cna_model *model = import_doc(doc);
    cna_model *strict = import_doc(twin);
    expect_diag(doc, model, CNA_GLTF_DIAG_ACCESSOR_MIN_MAX_COMPUTED, 3,
                "animations[0].samplers[0].input: accessors[7] has no min/max (glTF requires min and max for "
                "animation inputs); computed from the key times: min 0, max 2");
    assert_null(cna_gltf_document_find_diagnostic(twin, CNA_GLTF_DIAG_ACCESSOR_MIN_MAX_COMPUTED));
    static const int32_t inputs[] = {7, 9, 11};
    for (size_t i = 0; i < 3; i++) {
        const cna_gltf_accessor *a = &doc->accessors[inputs[i]], *b = &twin->accessors[inputs[i]];
        assert_true(a->has_min && a->has_max && b->has_min && b->has_max);
        assert_true(a->min[0] == b->min[0] && a->max[0] == b->max[0]);
    }
    expect_same_poses(model, strict);
    cna_model_free(strict);
    cna_model_free(model);
    cna_gltf_document_free(twin);
    cna_gltf_document_free(doc);
}

/* Computed bounds go through the same time checks as given ones: decreasing,
 * negative or non-finite times are refused, with the messages of a file that
 * has min and max. */
static void test_time_bounds_missing_still_check_the_times(void **state)
{
    (void)state;
    static const struct {
        const char *times; /* base64 of three little-endian floats */
        const char *message;
    } cases[] = {
        /* 0, 2, 1 */
        {"AAAAAAAAAEAAAIA/", "animations[0].samplers[0].input: times must increase (2 then 1)"},
        /* -1, 0, 1 */
        {"AACAvwAAAAAAAIA/", "animations[0].samplers[0].input: time -1 at key 0 is negative"},
        /* 0, inf, 1 */
        {"AAAAAAAAgH8AAIA/", "animations[0].samplers[0].input: time inf at key 1 is not finite"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],"
                 "\"buffers\":[{\"byteLength\":48,\"uri\":\"data:application/octet-stream;base64,%s"
                 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}],"
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":12,\"byteLength\":36}],"
                 "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},"
                 "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
                 "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"
                 "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}",
                 cases[i].times);
        cna_gltf_document *doc = NULL;
        cna_error err;
        memset(&err, 0, sizeof err);
        assert_int_equal(cna_gltf_load_memory(json, strlen(json), NULL, &doc, &err), CNA_ERROR_INVALID_DATA);
        assert_null(doc);
        assert_int_equal(err.code, CNA_ERROR_INVALID_DATA);
        assert_string_equal(err.message, cases[i].message);
    }
}

/* An animation-only file with empty images, samplers, textures, materials,
 * meshes, skins and cameras: loads (one diagnostic, counted per array, naming
 * the first), the model has no mesh and its clip moves the node. */
static void test_empty_arrays_read_as_absent(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_doc(FIXTURES "lenient-empty-arrays.gltf");
    assert_int_equal(doc->mesh_count, 0);
    assert_null(doc->meshes);
    assert_int_equal(doc->skin_count, 0);
    assert_int_equal(doc->camera_count, 0);
    assert_int_equal(doc->diagnostic_count, 1);
    cna_model *model = import_doc(doc);
    expect_diag(doc, model, CNA_GLTF_DIAG_EMPTY_ARRAY, 7,
                "images: empty array (glTF requires at least 1 entry); read as absent");
    assert_int_equal(model->mesh_count, 0);
    assert_int_equal(model->skin_count, 0);
    assert_int_equal(model->animation_count, 1);
    assert_int_equal(model->bone_count, 1);
    cna_character *ch = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(cna_character_create(model, NULL, &ch, &err), CNA_OK);
    assert_int_equal(cna_character_play(ch, 0, &err), CNA_OK);
    assert_int_equal(cna_character_seek(ch, 1.5, &err), CNA_OK);
    assert_int_equal(cna_character_pose(ch, &err), CNA_OK);
    assert_true(cna_character_absolute_transform(ch, 0)->m[12] == 10.0f);
    cna_character_free(ch);
    cna_model_free(model);
    cna_gltf_document_free(doc);

    /* nothing but empty arrays: a document with nothing in it, and an empty model */
    static const char json[] = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[],\"bufferViews\":[],\"accessors\":[],"
                               "\"nodes\":[],\"meshes\":[],\"skins\":[],\"animations\":[],\"scenes\":[]}";
    memset(&err, 0, sizeof err);
    doc = NULL;
    assert_int_equal(cna_gltf_load_memory(json, sizeof json - 1, NULL, &doc, &err), CNA_OK);
    assert_int_equal(doc->node_count + doc->accessor_count + doc->animation_count + doc->scene_count, 0);
    model = import_doc(doc);
    expect_diag(doc, model, CNA_GLTF_DIAG_EMPTY_ARRAY, 8,
                "buffers: empty array (glTF requires at least 1 entry); read as absent");
    assert_int_equal(model->mesh_count + model->bone_count + model->animation_count, 0);
    cna_model_free(model);
    cna_gltf_document_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skeleton_hint_not_a_common_root_is_ignored),
        cmocka_unit_test(test_time_bounds_missing_are_computed),
        cmocka_unit_test(test_time_bounds_missing_still_check_the_times),
        cmocka_unit_test(test_empty_arrays_read_as_absent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
