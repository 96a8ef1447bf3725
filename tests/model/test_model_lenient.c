/*
 * What the reader accepts where glTF says MUST but the meaning is clear, each
 * with its diagnostic (exact code, count and message) on the document and the
 * model, and the model posing exactly as the strict file does:
 *   - a skin.skeleton hint that is not a common root of the joints: ignored;
 *   - empty top-level arrays: read as absent (an animation-only file loads);
 *   - animation input accessors without min/max: computed from the key times;
 *   - equal consecutive key times: a discontinuity, the later key from that
 *     time on (three.js's interpolants choose the same key);
 *   - loading without textures (no_textures): no image read, texture-only
 *     required extensions accepted.
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

static void base64(const unsigned char *in, size_t n, char *out)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0u) |
                     (i + 2 < n ? (unsigned)in[i + 2] : 0u);
        out[o++] = tab[v >> 18 & 63];
        out[o++] = tab[v >> 12 & 63];
        out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    out[o] = 0;
}

static float node_x(cna_character *ch, double s, size_t bone, int axis)
{
    cna_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(cna_character_seek(ch, s, &err), CNA_OK);
    assert_int_equal(cna_character_pose(ch, &err), CNA_OK);
    return cna_character_absolute_transform(ch, bone)->m[12 + axis];
}

/* Equal consecutive key times, which glTF forbids and exporters write for a
 * jump: node 0's LINEAR x translation has keys 0, 10, 20, 30 at 0, 1, 1, 2 s;
 * node 1's morph weight has 0, 0.5, 1, 0.25 at the same times; node 2's STEP
 * y translation has 5, 7, 9 at 0, 0, 1 s. The file loads with one diagnostic
 * per accessor; before 1 s the curve runs towards the earlier key (10), from
 * 1 s on the later key (20) applies, and at 0 s of the equal first pair the
 * later key (7) is shown. */
static void test_equal_key_times_are_a_discontinuity(void **state)
{
    (void)state;
    static const float data[] = {
        0, 1, 1, 2,                                   /* 0: times A */
        0, 0, 0, 10, 0, 0, 20, 0, 0, 30, 0, 0,        /* 16: node 0 translations */
        0, 0, 0, 1, 0, 0, 0, 1, 0,                    /* 64: positions */
        0, 0, 1, 0, 0, 1, 0, 0, 1,                    /* 100: target deltas */
        0, 0.5f, 1, 0.25f,                            /* 136: weights */
        0, 0, 1,                                      /* 152: times B */
        0, 5, 0, 0, 7, 0, 0, 9, 0,                    /* 164: node 2 translations */
    };
    unsigned char bytes[sizeof data];
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++) { /* little-endian */
        uint32_t u;
        memcpy(&u, &data[i], 4);
        for (int b = 0; b < 4; b++) bytes[4 * i + (size_t)b] = (unsigned char)(u >> (8 * b));
    }
    char b64[4 * sizeof bytes / 3 + 4];
    base64(bytes, sizeof bytes, b64);
    char json[4096];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1,2]}],"
             "\"nodes\":[{},{\"mesh\":0},{}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":2},\"targets\":[{\"POSITION\":3}]}],"
             "\"weights\":[0]}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16},{\"buffer\":0,\"byteOffset\":16,\"byteLength\":48},"
             "{\"buffer\":0,\"byteOffset\":64,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":100,\"byteLength\":36},"
             "{\"buffer\":0,\"byteOffset\":136,\"byteLength\":16},{\"buffer\":0,\"byteOffset\":152,\"byteLength\":12},"
             "{\"buffer\":0,\"byteOffset\":164,\"byteLength\":36}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\",\"min\":[0],"
             "\"max\":[2]},{\"bufferView\":1,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},"
             "{\"bufferView\":3,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,1],\"max\":[0,0,1]},"
             "{\"bufferView\":4,\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\"},"
             "{\"bufferView\":5,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
             "{\"bufferView\":6,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
             "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1},{\"input\":0,\"output\":4},"
             "{\"input\":5,\"output\":6,\"interpolation\":\"STEP\"}],"
             "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
             "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"weights\"}},"
             "{\"sampler\":2,\"target\":{\"node\":2,\"path\":\"translation\"}}]}]}",
             sizeof bytes, b64);
    cna_gltf_document *doc = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    if (cna_gltf_load_memory(json, strlen(json), NULL, &doc, &err) != CNA_OK) fail_msg("%s", err.message);
    assert_int_equal(doc->diagnostic_count, 1);
    cna_model *model = import_doc(doc);
    expect_diag(doc, model, CNA_GLTF_DIAG_KEY_TIMES_EQUAL, 2,
                "animations[0].samplers[0].input: accessors[0] has 1 equal consecutive key time (the first: keys 1 "
                "and 2 at 1 s; glTF requires increasing times); a discontinuity: the later key applies from that "
                "time on");
    cna_character *ch = NULL;
    assert_int_equal(cna_character_create(model, NULL, &ch, &err), CNA_OK);
    assert_int_equal(cna_character_play(ch, 0, &err), CNA_OK);
    assert_int_equal(cna_character_duration(ch), 20000000); /* 2 s in ticks */
    /* node 0: towards 10 before 1 s, 20 from 1 s on (FAITHFUL keeps the value one tick before) */
    assert_float_equal(node_x(ch, 0.5, 0, 0), 5.0f, 1e-6f);
    assert_float_equal(node_x(ch, 0.99, 0, 0), 9.9f, 1e-5f);
    assert_float_equal(node_x(ch, 0.9999999, 0, 0), 9.999999f, 1e-5f);
    assert_true(node_x(ch, 1.0, 0, 0) == 20.0f);
    assert_float_equal(node_x(ch, 1.5, 0, 0), 25.0f, 1e-6f);
    assert_float_equal(node_x(ch, 1.75, 0, 0), 27.5f, 1e-6f);
    /* node 2 (STEP, equal first times): the later key at 0 s */
    assert_true(node_x(ch, 0.0, 2, 1) == 7.0f);
    assert_true(node_x(ch, 0.5, 2, 1) == 7.0f);
    assert_true(node_x(ch, 1.0, 2, 1) == 9.0f);
    cna_character_free(ch);
    /* the weight track keeps the file's keys: 1 from 1 s on, towards 0.5 before */
    const cna_morph_weight_track *wt = model->meshes[0].parts[0].weight_tracks[0];
    assert_non_null(wt);
    assert_int_equal(wt->key_count, 4);
    static const struct { double s; float w; } w[] = {{0.5, 0.25f}, {0.75, 0.375f}, {1.0, 1.0f}, {1.5, 0.625f},
                                                       {2.0, 0.25f}};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        float out[1] = {-1};
        size_t n = 0;
        assert_int_equal(cna_morph_evaluate_weights(wt, w[i].s, out, 1, &n, &err), CNA_OK);
        assert_int_equal(n, 1);
        if (out[0] != w[i].w) fail_msg("weight at %g s: %g, expected %g", w[i].s, (double)out[0], (double)w[i].w);
    }
    cna_model_free(model);
    cna_gltf_document_free(doc);
}

/* KHR_texture_basisu required (the image face.ktx2 is not even there):
 * refused by default, naming the option; with no_textures the file loads
 * with one diagnostic for the extension and one per image, the image is not
 * read, the material draws without it (no material-image-missing), and the
 * model poses bit for bit as its twin without the material. */
static void test_no_textures_loads_a_file_requiring_a_texture_format(void **state)
{
    (void)state;
    const char *path = FIXTURES "lenient-texture-basisu.gltf";
    cna_gltf_document *doc = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(cna_gltf_load_file(path, NULL, &doc, &err), CNA_ERROR_UNSUPPORTED);
    assert_null(doc);
    assert_string_equal(err.message, "extensionsRequired[0]: \"KHR_texture_basisu\" is not supported; it concerns "
                                     "textures only: load without textures (cna --no-textures, "
                                     "cna_gltf_options.no_textures) to read the rest");
    cna_gltf_options o;
    memset(&o, 0, sizeof o);
    o.no_textures = true;
    if (cna_gltf_load_file(path, &o, &doc, &err) != CNA_OK) fail_msg("%s", err.message);
    assert_true(doc->textures_skipped);
    assert_int_equal(doc->image_count, 1);
    assert_false(doc->images[0].available);
    assert_null(doc->images[0].data);
    assert_int_equal(doc->images[0].source, CNA_GLTF_SOURCE_EXTERNAL);
    assert_string_equal(doc->images[0].uri, "face.ktx2");
    assert_string_equal(doc->images[0].problem, "not read: loaded without textures");
    assert_null(cna_gltf_document_find_diagnostic(doc, CNA_GLTF_DIAG_IMAGE_MISSING));
    cna_model *model = import_doc(doc);
    expect_diag(doc, model, CNA_GLTF_DIAG_TEXTURE_EXTENSION_IGNORED, 1,
                "extensionsRequired[0]: \"KHR_texture_basisu\" concerns textures only; ignored, as the model is "
                "loaded without textures");
    expect_diag(doc, model, CNA_GLTF_DIAG_TEXTURES_NOT_LOADED, 1, "images[0]: not read: loaded without textures");
    assert_null(cna_model_find_diagnostic(model, CNA_MODEL_DIAG_MATERIAL_IMAGE_MISSING));
    assert_int_equal(model->effect_count, 1);
    assert_string_equal(model->effects[0].params.name, "Skin");
    assert_int_equal(model->effects[0].params.base_color.image, -1);
    /* the same model loads through cna_model_load_file's reader options */
    cna_import_options io;
    memset(&io, 0, sizeof io);
    io.gltf.no_textures = true;
    cna_model *loaded = NULL;
    assert_int_equal(cna_model_load_file(path, &io, &loaded, &err), CNA_OK);
    cna_gltf_document *twin = load_doc(FIXTURES "skin-animated-ancestor.gltf");
    cna_model *strict = import_doc(twin);
    expect_same_poses(model, strict);
    expect_same_poses(loaded, strict);
    cna_model_free(strict);
    cna_gltf_document_free(twin);
    cna_model_free(loaded);
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
        cmocka_unit_test(test_equal_key_times_are_a_discontinuity),
        cmocka_unit_test(test_no_textures_loads_a_file_requiring_a_texture_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
