/*
 * The reader over the real models of tests/data/corpus/valid (every valid
 * file loads without error), with facts per model
 * (tests/data/corpus/MANIFEST.md), the document structure compared with the
 * independent three.js oracle (tests/data/oracle/<Model>.json: parents,
 * meshes, skins, joints, vertex and morph target counts, clip durations),
 * per-element reads equal to bulk reads for every accessor, GLB from memory
 * equal to GLB from file, and clean failure at every allocation.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "gltf/gltf_test_util.h"

typedef struct model {
    const char *name; /* folder and oracle name */
    const char *file;
    const char *diagnostic; /* the only diagnostic code expected, or NULL for none */
} model;

static const model MODELS[] = {
    {"AnimatedMorphCube", "AnimatedMorphCube.gltf", NULL},
    {"BoxAnimated", "box_animated.gltf", NULL},
    {"InterpolationTest", "interpolation_test.gltf", CNA_GLTF_DIAG_IMAGE_MISSING},
    {"MorphStressTest", "MorphStressTest.gltf", NULL},
    {"RiggedSimple", "rigged_simple.gltf", NULL},
    {"RobotExpressive", "robot.glb", NULL},
    {"SimpleMorph", "SimpleMorph.gltf", NULL},
    {"SimpleSkin", "simple_skin.gltf", CNA_GLTF_DIAG_QUATERNION_NOT_UNIT},
    {"Triangle", "triangle.gltf", NULL},
};
#define MODEL_COUNT (sizeof MODELS / sizeof MODELS[0])

static void model_path(char *out, size_t size, const model *m)
{
    snprintf(out, size, "%s/%s/%s", VALID_DIR, m->name, m->file);
}

static cna_gltf_document *load_model(const model *m)
{
    char path[512];
    model_path(path, sizeof path, m);
    cna_gltf_document *doc = NULL;
    cna_error err;
    cna_result r = cna_gltf_load_file(path, NULL, &doc, &err);
    if (r != CNA_OK) fail_msg("%s: %s: %s", path, cna_result_name(r), err.message);
    return doc;
}

static const model *find_model(const char *name)
{
    for (size_t i = 0; i < MODEL_COUNT; i++)
        if (strcmp(MODELS[i].name, name) == 0) return &MODELS[i];
    return NULL;
}

/* ------------------------------------------------------------ every model */

static void test_every_valid_model_loads_with_only_its_known_diagnostic(void **state)
{
    (void)state;
    /* The table covers the whole folder: a model added to the corpus must be added here. */
    DIR *dir = opendir(VALID_DIR);
    assert_non_null(dir);
    size_t folders = 0;
    for (struct dirent *e = readdir(dir); e; e = readdir(dir)) {
        if (e->d_name[0] == '.') continue;
        if (!find_model(e->d_name)) fail_msg("corpus model %s is not in the test's table", e->d_name);
        folders++;
    }
    closedir(dir);
    assert_int_equal(folders, MODEL_COUNT);
    for (size_t i = 0; i < MODEL_COUNT; i++) {
        cna_gltf_document *doc = load_model(&MODELS[i]);
        if (MODELS[i].diagnostic) {
            assert_int_equal(doc->diagnostic_count, 1);
            assert_string_equal(doc->diagnostics[0].code, MODELS[i].diagnostic);
        } else if (doc->diagnostic_count != 0) {
            fail_msg("%s: unexpected diagnostic %s", MODELS[i].name, doc->diagnostics[0].message);
        }
        cna_gltf_document_free(doc);
    }
}

/* ------------------------------------------------------------ per-model facts */

static void test_robot_expressive_facts(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_model(find_model("RobotExpressive"));
    assert_true(doc->is_glb);
    assert_int_equal(doc->node_count, 58);
    assert_int_equal(doc->mesh_count, 14);
    size_t prims = 0;
    for (size_t m = 0; m < doc->mesh_count; m++) prims += doc->meshes[m].primitive_count;
    assert_int_equal(prims, 19);
    assert_int_equal(doc->skin_count, 1);
    assert_int_equal(doc->skins[0].joint_count, 43);
    const int32_t first_joints[4] = {42, 0, 38, 33};
    assert_memory_equal(doc->skins[0].joints, first_joints, sizeof first_joints);
    assert_int_equal(doc->skins[0].skeleton, -1);
    assert_int_equal(doc->animation_count, 14);
    for (size_t a = 0; a < doc->animation_count; a++) assert_int_equal(doc->animations[a].channel_count, 129);
    assert_string_equal(doc->animations[0].name, "Robot_Dance");
    assert_string_equal(doc->nodes[57].name, "RobotArmature");
    assert_int_equal(doc->nodes[57].parent, -1);
    assert_int_equal(doc->nodes[42].parent, 57);
    for (size_t n = 0; n < 57; n++) assert_true(doc->nodes[n].parent > (int32_t)n); /* children before parents */
    for (size_t m = 0; m < doc->mesh_count; m++) {
        int32_t j = cna_gltf_primitive_find_attribute(&doc->meshes[m].primitives[0], CNA_GLTF_ATTRIBUTE_JOINTS, 0);
        assert_int_equal(doc->accessors[j].component_type, CNA_GLTF_COMPONENT_UNSIGNED_BYTE);
    }
    cna_gltf_document_free(doc);
}

static void test_interpolation_test_loads_without_its_missing_image(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_model(find_model("InterpolationTest"));
    assert_int_equal(doc->animation_count, 9);
    int counts[CNA_GLTF_INTERPOLATION_COUNT] = {0};
    for (size_t a = 0; a < doc->animation_count; a++) counts[doc->animations[a].samplers[0].interpolation]++;
    assert_int_equal(counts[CNA_GLTF_INTERPOLATION_STEP], 3);
    assert_int_equal(counts[CNA_GLTF_INTERPOLATION_CUBICSPLINE], 4);
    assert_int_equal(counts[CNA_GLTF_INTERPOLATION_LINEAR], 2);
    assert_int_equal(doc->image_count, 1);
    assert_false(doc->images[0].available);
    char message[512];
    snprintf(message, sizeof message,
             "images[0] (uri \"l.jpg\"): cannot open \"%s/InterpolationTest/l.jpg\": No such file or directory",
             VALID_DIR);
    tu_expect_diag(doc, CNA_GLTF_DIAG_IMAGE_MISSING, 1, message);
    cna_gltf_document_free(doc);
}

static void test_morph_models_facts(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_model(find_model("MorphStressTest"));
    assert_int_equal(doc->meshes[0].primitive_count, 2);
    assert_int_equal(doc->meshes[0].target_count, 8);
    assert_int_equal(doc->animation_count, 3);
    assert_int_equal(doc->image_count, 3);
    for (size_t i = 0; i < doc->image_count; i++) assert_true(doc->images[i].available);
    cna_gltf_document_free(doc);

    doc = load_model(find_model("SimpleMorph"));
    assert_int_equal(doc->buffer_count, 2);
    assert_int_equal(doc->meshes[0].target_count, 2);
    /* the file's mesh.weights are [0.5, 0.5] (MANIFEST.md's "1.0, 0.5" does not match the file) */
    assert_true(doc->meshes[0].weights[0] == 0.5f && doc->meshes[0].weights[1] == 0.5f);
    cna_gltf_document_free(doc);

    doc = load_model(find_model("AnimatedMorphCube"));
    assert_int_equal(doc->meshes[0].target_count, 2);
    const cna_gltf_morph_target *t = &doc->meshes[0].primitives[0].targets[1];
    assert_true(t->position >= 0 && t->normal >= 0 && t->tangent >= 0);
    assert_int_equal(doc->animations[0].channels[0].path, CNA_GLTF_PATH_WEIGHTS);
    assert_int_equal(doc->accessors[doc->animations[0].samplers[0].input].count, 127);
    cna_gltf_document_free(doc);
}

static void test_triangle_positions_read_exactly(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_model(find_model("Triangle"));
    const cna_gltf_primitive *p = &doc->meshes[0].primitives[0];
    float xyz[9];
    assert_int_equal(cna_gltf_accessor_read_floats(doc, cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_POSITION, 0),
                                                   xyz, 9, NULL),
                     CNA_OK);
    const float expected[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    assert_memory_equal(xyz, expected, sizeof xyz);
    uint32_t idx[3];
    assert_int_equal(cna_gltf_accessor_read_uints(doc, p->indices, idx, 3, NULL), CNA_OK);
    assert_true(idx[0] == 0 && idx[1] == 1 && idx[2] == 2);
    cna_gltf_document_free(doc);
}

static void test_box_animated_keeps_the_minus_one_w_rotation(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_model(find_model("BoxAnimated"));
    assert_int_equal(doc->node_count, 4);
    assert_true(doc->nodes[2].rotation.w == -1.0f);
    assert_int_equal(doc->animations[0].channel_count, 2);
    cna_gltf_document_free(doc);
}

/* ------------------------------------------------------------ oracle */

static cJSON *load_oracle(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/oracle/%s.json", CNA_TEST_DATA_DIR, name);
    size_t n;
    uint8_t *text = tu_read_file(path, &n);
    cJSON *j = cJSON_ParseWithLength((const char *)text, n);
    free(text);
    if (!j) fail_msg("cannot parse %s", path);
    return j;
}

/* -1 for JSON null, else the integer. */
static int32_t index_or_none(const cJSON *v)
{
    return cJSON_IsNumber(v) ? (int32_t)v->valuedouble : -1;
}

static void compare_nodes(const cna_gltf_document *doc, const cJSON *meta)
{
    assert_int_equal(doc->node_count, (size_t)cJSON_GetObjectItem(meta, "node_count")->valuedouble);
    const cJSON *node;
    cJSON_ArrayForEach(node, cJSON_GetObjectItem(meta, "nodes"))
    {
        int32_t i = index_or_none(cJSON_GetObjectItem(node, "index"));
        const cna_gltf_node *n = &doc->nodes[i];
        assert_int_equal(n->parent, index_or_none(cJSON_GetObjectItem(node, "parent")));
        assert_int_equal(n->mesh, index_or_none(cJSON_GetObjectItem(node, "mesh")));
        assert_int_equal(n->skin, index_or_none(cJSON_GetObjectItem(node, "skin")));
        assert_int_equal(n->has_matrix, cJSON_IsTrue(cJSON_GetObjectItem(node, "has_matrix")));
        const cJSON *name = cJSON_GetObjectItem(node, "name");
        if (cJSON_IsString(name)) assert_string_equal(n->name, name->valuestring);
        else assert_null(n->name);
    }
}

static void compare_skins(const cna_gltf_document *doc, const cJSON *meta)
{
    const cJSON *skins = cJSON_GetObjectItem(meta, "skins"), *skin;
    assert_int_equal(doc->skin_count, (size_t)cJSON_GetArraySize(skins));
    size_t s = 0;
    cJSON_ArrayForEach(skin, skins)
    {
        const cna_gltf_skin *k = &doc->skins[s++];
        assert_int_equal(k->skeleton, index_or_none(cJSON_GetObjectItem(skin, "skeleton")));
        const cJSON *joints = cJSON_GetObjectItem(skin, "joints"), *j;
        assert_int_equal(k->joint_count, (size_t)cJSON_GetArraySize(joints));
        size_t i = 0;
        cJSON_ArrayForEach(j, joints) assert_int_equal(k->joints[i++], (int32_t)j->valuedouble);
    }
}

static void compare_mesh_nodes(const cna_gltf_document *doc, const cJSON *meta)
{
    static const cna_gltf_primitive_mode modes[7] = {
        CNA_GLTF_MODE_POINTS,     CNA_GLTF_MODE_LINES,          CNA_GLTF_MODE_LINE_LOOP,   CNA_GLTF_MODE_LINE_STRIP,
        CNA_GLTF_MODE_TRIANGLES, CNA_GLTF_MODE_TRIANGLE_STRIP, CNA_GLTF_MODE_TRIANGLE_FAN};
    const cJSON *mn;
    cJSON_ArrayForEach(mn, cJSON_GetObjectItem(meta, "mesh_nodes"))
    {
        const cna_gltf_mesh *mesh = &doc->meshes[index_or_none(cJSON_GetObjectItem(mn, "mesh"))];
        assert_int_equal(mesh->target_count, (size_t)cJSON_GetObjectItem(mn, "morph_targets")->valuedouble);
        const cJSON *prim;
        cJSON_ArrayForEach(prim, cJSON_GetObjectItem(mn, "primitives"))
        {
            const cna_gltf_primitive *p = &mesh->primitives[index_or_none(cJSON_GetObjectItem(prim, "primitive"))];
            assert_int_equal(p->vertex_count, (size_t)cJSON_GetObjectItem(prim, "vertex_count")->valuedouble);
            assert_int_equal(p->target_count, (size_t)cJSON_GetObjectItem(prim, "morph_targets")->valuedouble);
            assert_int_equal(p->mode, modes[index_or_none(cJSON_GetObjectItem(prim, "mode"))]);
            size_t sets = 0;
            for (size_t a = 0; a < p->attribute_count; a++) sets += p->attributes[a].kind == CNA_GLTF_ATTRIBUTE_JOINTS;
            assert_int_equal(sets, (size_t)cJSON_GetObjectItem(prim, "joint_sets")->valuedouble);
        }
    }
}

/* Clip duration = the largest sampler input time (read through the reader). */
static void compare_durations(const cna_gltf_document *doc, const cJSON *oracle)
{
    const cJSON *anim;
    cJSON_ArrayForEach(anim, cJSON_GetObjectItem(oracle, "animations"))
    {
        const cna_gltf_animation *a = &doc->animations[index_or_none(cJSON_GetObjectItem(anim, "index"))];
        float duration = 0.0f;
        for (size_t s = 0; s < a->sampler_count; s++) {
            float t;
            const cna_gltf_accessor *in = &doc->accessors[a->samplers[s].input];
            assert_int_equal(cna_gltf_accessor_read_element_floats(doc, a->samplers[s].input, in->count - 1, &t, 1, NULL),
                             CNA_OK);
            if (t > duration) duration = t;
        }
        assert_true((double)duration == cJSON_GetObjectItem(anim, "duration")->valuedouble);
    }
}

static void test_structure_matches_the_three_js_oracle(void **state)
{
    (void)state;
    for (size_t i = 0; i < MODEL_COUNT; i++) {
        cna_gltf_document *doc = load_model(&MODELS[i]);
        cJSON *oracle = load_oracle(MODELS[i].name);
        const cJSON *meta = cJSON_GetObjectItem(oracle, "meta");
        compare_nodes(doc, meta);
        compare_skins(doc, meta);
        compare_mesh_nodes(doc, meta);
        compare_durations(doc, oracle);
        cJSON_Delete(oracle);
        cna_gltf_document_free(doc);
    }
}

/* ------------------------------------------------------------ reads */

static void test_element_reads_equal_bulk_reads_for_every_accessor(void **state)
{
    (void)state;
    for (size_t i = 0; i < MODEL_COUNT; i++) {
        cna_gltf_document *doc = load_model(&MODELS[i]);
        for (size_t a = 0; a < doc->accessor_count; a++) {
            size_t n = cna_gltf_accessor_float_count(doc, (int32_t)a);
            size_t comps = cna_gltf_type_component_count(doc->accessors[a].type);
            float *all = (float *)malloc(n * sizeof *all);
            assert_non_null(all);
            assert_int_equal(cna_gltf_accessor_read_floats(doc, (int32_t)a, all, n, NULL), CNA_OK);
            for (size_t e = 0; e < doc->accessors[a].count; e++) {
                float one[16];
                assert_int_equal(cna_gltf_accessor_read_element_floats(doc, (int32_t)a, e, one, 16, NULL), CNA_OK);
                if (memcmp(one, all + e * comps, comps * sizeof(float)) != 0)
                    fail_msg("%s accessors[%zu] element %zu differs", MODELS[i].name, a, e);
            }
            free(all);
        }
        cna_gltf_document_free(doc);
    }
}

static void test_glb_from_memory_equals_glb_from_file(void **state)
{
    (void)state;
    const model *m = find_model("RobotExpressive");
    char path[512];
    model_path(path, sizeof path, m);
    size_t n;
    uint8_t *bytes = tu_read_file(path, &n);
    cna_gltf_document *mem = NULL;
    assert_int_equal(cna_gltf_load_memory(bytes, n, NULL, &mem, NULL), CNA_OK);
    free(bytes);
    cna_gltf_document *file = load_model(m);
    assert_int_equal(mem->accessor_count, file->accessor_count);
    assert_int_equal(mem->buffer_count, 1);
    assert_int_equal(mem->buffers[0].byte_length, file->buffers[0].byte_length);
    assert_memory_equal(mem->buffers[0].data, file->buffers[0].data, file->buffers[0].byte_length);
    for (size_t a = 0; a < mem->accessor_count; a++) {
        assert_int_equal(mem->accessors[a].count, file->accessors[a].count);
        assert_int_equal(mem->accessors[a].byte_offset, file->accessors[a].byte_offset);
    }
    cna_gltf_document_free(mem);
    cna_gltf_document_free(file);
}

/* ------------------------------------------------------------ allocation failures */

static void test_every_allocation_failure_is_clean(void **state)
{
    (void)state;
    const char *names[] = {"Triangle", "SimpleSkin", "InterpolationTest", "SimpleMorph", "RobotExpressive"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512];
        model_path(path, sizeof path, find_model(names[i]));
        long fail_at = 0;
        for (;; fail_at++) {
            tu_alloc_state st = {0, fail_at, 0};
            cna_gltf_options opts;
            memset(&opts, 0, sizeof opts);
            opts.allocator.alloc = tu_counting_alloc;
            opts.allocator.free = tu_counting_free;
            opts.allocator.user_data = &st;
            cna_gltf_document *doc = NULL;
            cna_error err;
            cna_result r = cna_gltf_load_file(path, &opts, &doc, &err);
            if (r == CNA_OK) {
                assert_true(st.count <= fail_at); /* every allocation succeeded */
                cna_gltf_document_free(doc);
                assert_int_equal(st.live, 0);
                break;
            }
            if (r != CNA_ERROR_OUT_OF_MEMORY) fail_msg("%s: allocation %ld failed gives %s: %s", names[i], fail_at,
                                                       cna_result_name(r), err.message);
            assert_null(doc);
            assert_int_equal(st.live, 0);
        }
        assert_true(fail_at > 2);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_valid_model_loads_with_only_its_known_diagnostic),
        cmocka_unit_test(test_robot_expressive_facts),
        cmocka_unit_test(test_interpolation_test_loads_without_its_missing_image),
        cmocka_unit_test(test_morph_models_facts),
        cmocka_unit_test(test_triangle_positions_read_exactly),
        cmocka_unit_test(test_box_animated_keeps_the_minus_one_w_rotation),
        cmocka_unit_test(test_structure_matches_the_three_js_oracle),
        cmocka_unit_test(test_element_reads_equal_bulk_reads_for_every_accessor),
        cmocka_unit_test(test_glb_from_memory_equals_glb_from_file),
        cmocka_unit_test(test_every_allocation_failure_is_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
