/*
 * The mesh import over every valid corpus model (tests/data/corpus/valid):
 * part vertex counts and positions equal the file's, vertex for vertex;
 * JOINTS bytes are the file's joint ordinals rewritten to palette indices.
 */
#include "mesh/mesh_test.h"

#include <stdlib.h>

#include "cna/model.h"

static const char *const corpus[] = {
    "corpus/valid/AnimatedMorphCube/AnimatedMorphCube.gltf",
    "corpus/valid/BoxAnimated/box_animated.gltf",
    "corpus/valid/InterpolationTest/interpolation_test.gltf",
    "corpus/valid/MorphStressTest/MorphStressTest.gltf",
    "corpus/valid/RiggedSimple/rigged_simple.gltf",
    "corpus/valid/RobotExpressive/robot.glb",
    "corpus/valid/SimpleMorph/SimpleMorph.gltf",
    "corpus/valid/SimpleSkin/simple_skin.gltf",
    "corpus/valid/Triangle/triangle.gltf",
};

typedef struct loaded {
    cna_gltf_document *doc;
    cna_model *model;
} loaded;

static loaded load(const char *rel)
{
    char path[1024];
    loaded l = {NULL, NULL};
    cna_error err;
    if (cna_gltf_load_file(mesh_data_path(path, sizeof path, rel), NULL, &l.doc, &err) != CNA_OK)
        fail_msg("%s: %s", rel, err.message);
    if (cna_model_import_gltf(l.doc, NULL, &l.model, &err) != CNA_OK)
        fail_msg("%s: %s", rel, err.message);
    return l;
}

static void unload(loaded *l)
{
    cna_model_free(l->model);
    cna_gltf_document_free(l->doc);
}

static float *read_floats(const cna_gltf_document *doc, int32_t accessor, size_t *count)
{
    *count = cna_gltf_accessor_float_count(doc, accessor);
    float *v = malloc(*count * sizeof *v + 1);
    assert_non_null(v);
    assert_int_equal(cna_gltf_accessor_read_floats(doc, accessor, v, *count, NULL), CNA_OK);
    return v;
}

static uint32_t *read_uints(const cna_gltf_document *doc, int32_t accessor, size_t *count)
{
    *count = cna_gltf_accessor_float_count(doc, accessor);
    uint32_t *v = malloc(*count * sizeof *v + 1);
    assert_non_null(v);
    assert_int_equal(cna_gltf_accessor_read_uints(doc, accessor, v, *count, NULL), CNA_OK);
    return v;
}

/* Every part vertex's position is the file's POSITION of its source vertex,
 * bit for bit; an unsplit part has exactly the file's vertices in order. */
static void check_part(const cna_gltf_document *doc, const cna_model_part *part, const char *rel)
{
    const cna_gltf_primitive *prim = &doc->meshes[part->gltf_mesh].primitives[part->gltf_primitive];
    const int32_t pos = cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_POSITION, 0);
    size_t n = 0;
    float *file = read_floats(doc, pos, &n);
    if (!part->source_vertex) {
        if (part->vertex_count != prim->vertex_count)
            fail_msg("%s mesh %d prim %d: %zu vertices, file %zu", rel, (int)part->gltf_mesh,
                     (int)part->gltf_primitive, part->vertex_count, prim->vertex_count);
        if (prim->indices >= 0 && prim->mode == CNA_GLTF_MODE_TRIANGLES) {
            size_t ni = 0;
            uint32_t *idx = read_uints(doc, prim->indices, &ni);
            assert_int_equal(part->index_count, ni - ni % 3);
            assert_memory_equal(part->indices, idx, part->index_count * sizeof *idx);
            free(idx);
        }
    } else {
        /* a split part: one vertex per triangle corner */
        assert_int_equal(cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_NORMAL, 0), -1);
        assert_int_equal(part->index_count, part->vertex_count);
        for (size_t k = 0; k < part->vertex_count; k++) {
            assert_true(part->source_vertex[k] < prim->vertex_count);
            assert_int_equal(part->indices[k], k);
        }
    }
    for (size_t k = 0; k < part->vertex_count; k++) {
        const size_t v = part->source_vertex ? part->source_vertex[k] : k;
        const unsigned char *bytes = (const unsigned char *)part->vertices + k * part->declaration.stride;
        if (memcmp(bytes, file + 3 * v, 12) != 0)
            fail_msg("%s mesh %d prim %d: vertex %zu position differs from file vertex %zu", rel,
                     (int)part->gltf_mesh, (int)part->gltf_primitive, k, v);
    }
    free(file);
}

static void parts_hold_the_files_vertices_in_file_order(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof corpus / sizeof corpus[0]; f++) {
        loaded l = load(corpus[f]);
        size_t parts = 0;
        for (size_t i = 0; i < l.model->mesh_count; i++) {
            const cna_model_mesh *mesh = &l.model->meshes[i];
            assert_int_equal(mesh->part_count, l.doc->meshes[mesh->gltf_mesh].primitive_count);
            for (size_t k = 0; k < mesh->part_count; k++, parts++) check_part(l.doc, &mesh->parts[k], corpus[f]);
            assert_true(mesh->bounds.radius > 0.0f);
        }
        assert_true(parts > 0);
        unload(&l);
    }
}

static void robot_joints_are_palette_indices_of_the_files_ordinals(void **state)
{
    (void)state;
    loaded l = load("corpus/valid/RobotExpressive/robot.glb");
    size_t checked = 0;
    for (size_t i = 0; i < l.model->mesh_count; i++) {
        const cna_model_mesh *mesh = &l.model->meshes[i];
        assert_true(mesh->skin >= 0);
        const cna_model_skin *skin = &l.model->skins[mesh->skin];
        for (size_t k = 0; k < mesh->part_count; k++) {
            const cna_model_part *part = &mesh->parts[k];
            const cna_gltf_primitive *prim = &l.doc->meshes[part->gltf_mesh].primitives[part->gltf_primitive];
            size_t nj = 0, nw = 0;
            uint32_t *joints = read_uints(l.doc, cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_JOINTS, 0), &nj);
            float *weights = read_floats(l.doc, cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_WEIGHTS, 0), &nw);
            assert_int_equal(part->declaration.stride, 52);
            for (size_t v = 0; v < part->vertex_count; v++) {
                const unsigned char *bytes = (const unsigned char *)part->vertices + v * 52;
                /* weights within 1e-3 of one: the file's values exactly */
                assert_memory_equal(bytes + 36, weights + 4 * v, 16);
                for (size_t c = 0; c < 4; c++) {
                    if (weights[4 * v + c] == 0.0f) continue;
                    const uint32_t ordinal = joints[4 * v + c];
                    assert_true(ordinal < skin->joint_count);
                    assert_int_equal(bytes[32 + c], skin->ordinal_to_palette[ordinal]);
                    checked++;
                }
            }
            free(joints);
            free(weights);
        }
    }
    assert_true(checked > 1000);
    /* the file lists joints out of parent-first order: the map is not the identity */
    const cna_model_skin *skin = &l.model->skins[0];
    size_t moved = 0;
    for (size_t k = 0; k < skin->joint_count; k++) moved += skin->ordinal_to_palette[k] != (int32_t)k;
    assert_true(moved > 0);
    assert_null(cna_model_find_diagnostic(l.model, CNA_MODEL_DIAG_WEIGHTS_RENORMALIZED));
    assert_null(cna_model_find_diagnostic(l.model, CNA_MODEL_DIAG_INFLUENCES_TRUNCATED));
    unload(&l);
}

static void robot_vertex_zero_of_mesh_zero_has_the_mapped_palette_indices(void **state)
{
    (void)state;
    loaded l = load("corpus/valid/RobotExpressive/robot.glb");
    const cna_model_mesh *mesh = &l.model->meshes[0];
    const cna_model_skin *skin = &l.model->skins[mesh->skin];
    const cna_model_part *part = &mesh->parts[0];
    const cna_gltf_primitive *prim = &l.doc->meshes[part->gltf_mesh].primitives[0];
    uint32_t j[4];
    assert_int_equal(cna_gltf_accessor_read_element_uints(
                         l.doc, cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_JOINTS, 0),
                         0, j, 4, NULL),
                     CNA_OK);
    const unsigned char *bytes = (const unsigned char *)part->vertices;
    const float w0 = mesh_get_float(bytes, 36);
    assert_true(w0 > 0.0f);
    assert_int_equal(bytes[32], skin->ordinal_to_palette[j[0]]);
    /* and the palette index names the same glTF node as the file's joint */
    assert_int_equal(skin->palette_to_gltf_node[bytes[32]], l.doc->skins[skin->gltf_skin].joints[j[0]]);
    unload(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parts_hold_the_files_vertices_in_file_order),
        cmocka_unit_test(robot_joints_are_palette_indices_of_the_files_ordinals),
        cmocka_unit_test(robot_vertex_zero_of_mesh_zero_has_the_mapped_palette_indices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
