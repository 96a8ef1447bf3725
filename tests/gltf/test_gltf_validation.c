/*
 * Validation of what a glTF document claims, one test per rule, each with the
 * exact result code and message. Every test starts from the
 * valid fixture of gltf_fixture.h and changes one thing.
 */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cna/model.h"
#include "gltf/gltf_fixture.h"

/* The fixture with one JSON edit must fail with this code and message. */
static void expect_edit(const char *from, const char *to, cna_result code, const char *message)
{
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    char *json = tu_edit(FIXTURE_JSON, from, to);
    tu_expect_error(json, bytes, FIX_SIZE, code, message);
    free(json);
}

/* The fixture with two JSON edits. */
static void expect_edits(const char *from1, const char *to1, const char *from2, const char *to2, cna_result code,
                         const char *message)
{
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    char *a = tu_edit(FIXTURE_JSON, from1, to1);
    char *b = tu_edit(a, from2, to2);
    tu_expect_error(b, bytes, FIX_SIZE, code, message);
    free(a);
    free(b);
}

/* The fixture with one JSON edit loads; the caller frees it. */
static cna_gltf_document *load_edit(const char *from, const char *to)
{
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    char *json = tu_edit(FIXTURE_JSON, from, to);
    cna_gltf_document *doc = tu_expect_ok(json, bytes, FIX_SIZE);
    free(json);
    return doc;
}

static void put_f32(uint8_t *b, size_t offset, float v)
{
    tu_put_f32(b + offset, v);
}

/* ------------------------------------------------------------ the base */

static void test_fixture_loads_with_every_field_and_no_diagnostic(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    cna_gltf_document *doc = tu_expect_ok(FIXTURE_JSON, bytes, FIX_SIZE);
    assert_int_equal(doc->diagnostic_count, 0);
    assert_string_equal(doc->asset.version, "2.0");
    assert_string_equal(doc->asset.generator, "cna tests");
    assert_null(doc->asset.min_version);
    assert_int_equal(doc->node_count, 5);
    assert_int_equal(doc->nodes[0].parent, -1);
    assert_int_equal(doc->nodes[1].parent, 0);
    assert_int_equal(doc->nodes[2].parent, 0);
    assert_int_equal(doc->nodes[3].parent, 2);
    assert_int_equal(doc->nodes[4].parent, -1);
    assert_string_equal(doc->nodes[2].name, "joint0");
    assert_true(doc->nodes[2].translation.y == 1.0f);
    assert_true(doc->nodes[2].scale.x == 1.0f && doc->nodes[2].rotation.w == 1.0f);
    assert_false(doc->nodes[2].has_matrix);
    assert_int_equal(doc->nodes[1].mesh, 0);
    assert_int_equal(doc->nodes[1].skin, 0);
    assert_int_equal(doc->nodes[1].camera, -1);
    assert_int_equal(doc->scene, 0);
    assert_int_equal(doc->scenes[0].node_count, 2);
    const cna_gltf_primitive *p = &doc->meshes[0].primitives[0];
    assert_int_equal(p->attribute_count, 4);
    assert_int_equal(p->vertex_count, 3);
    assert_int_equal(p->indices, 1);
    assert_int_equal(p->material, 0);
    assert_int_equal(p->mode, CNA_GLTF_MODE_TRIANGLES);
    assert_int_equal(cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_JOINTS, 0), 5);
    assert_int_equal(cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_WEIGHTS, 0), 6);
    assert_int_equal(cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_TEXCOORD, 0), 10);
    assert_int_equal(cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_TEXCOORD, 1), -1);
    assert_int_equal(doc->meshes[1].target_count, 1);
    assert_true(doc->meshes[1].weights[0] == 0.5f);
    assert_int_equal(doc->meshes[1].primitives[0].targets[0].position, 8);
    assert_int_equal(doc->meshes[1].primitives[0].targets[0].normal, -1);
    assert_int_equal(doc->skins[0].joint_count, 2);
    assert_int_equal(doc->skins[0].skeleton, 2);
    assert_int_equal(doc->skins[0].inverse_bind_matrices, 7);
    const cna_gltf_animation *a = &doc->animations[0];
    assert_string_equal(a->name, "clip");
    assert_int_equal(a->channel_count, 3);
    assert_int_equal(a->channels[1].path, CNA_GLTF_PATH_ROTATION);
    assert_int_equal(a->channels[2].path, CNA_GLTF_PATH_WEIGHTS);
    assert_int_equal(a->samplers[1].interpolation, CNA_GLTF_INTERPOLATION_STEP);
    assert_int_equal(a->samplers[0].interpolation, CNA_GLTF_INTERPOLATION_LINEAR);
    const cna_gltf_material *m = &doc->materials[0];
    assert_true(m->base_color_factor.x == 1.0f && m->base_color_factor.y == 0.0f);
    assert_int_equal(m->base_color_texture.texture, 0);
    assert_int_equal(m->normal_texture.texture, -1);
    assert_true(m->metallic_factor == 1.0f && m->roughness_factor == 1.0f && m->alpha_cutoff == 0.5f);
    assert_int_equal(m->alpha_mode, CNA_GLTF_ALPHA_OPAQUE);
    assert_int_equal(doc->textures[0].source, 0);
    assert_int_equal(doc->samplers[0].wrap_s, 10497);
    assert_int_equal(doc->images[0].source, CNA_GLTF_SOURCE_DATA_URI);
    assert_true(doc->images[0].available);
    assert_int_equal(doc->images[0].size, 8);
    assert_string_equal(doc->images[0].mime_type, "image/png");
    assert_int_equal(doc->buffers[0].source, CNA_GLTF_SOURCE_DATA_URI);
    assert_memory_equal(doc->buffers[0].data, bytes, FIX_SIZE);
    cna_gltf_document_free(doc);
}

/* ------------------------------------------------------------ indices and graph */

static void test_index_out_of_range_names_path_and_count(void **state)
{
    (void)state;
    expect_edit("\"mesh\":1}", "\"mesh\":9}", CNA_ERROR_INVALID_DATA, "nodes[4].mesh: 9 is out of range (2 meshes)");
    expect_edit("\"scene\":0", "\"scene\":3", CNA_ERROR_INVALID_DATA, "scene: 3 is out of range (1 scenes)");
    expect_edit("\"joints\":[2,3]", "\"joints\":[2,5]", CNA_ERROR_INVALID_DATA,
                "skins[0].joints[1]: 5 is out of range (5 nodes)");
    expect_edit("\"baseColorTexture\":{\"index\":0}", "\"baseColorTexture\":{\"index\":1}", CNA_ERROR_INVALID_DATA,
                "materials[0].pbrMetallicRoughness.baseColorTexture.index: 1 is out of range (1 textures)");
}

static void test_node_with_two_parents_is_refused(void **state)
{
    (void)state;
    expect_edit("\"mesh\":1}", "\"mesh\":1,\"children\":[3]}", CNA_ERROR_INVALID_DATA,
                "nodes[4].children[0]: nodes[3] already has the parent nodes[2]");
}

static void test_node_listing_itself_is_a_cycle(void **state)
{
    (void)state;
    expect_edit("\"children\":[3]", "\"children\":[3,2]", CNA_ERROR_INVALID_DATA,
                "nodes[2].children[1]: the node lists itself as a child (cycle)");
}

static void test_cycle_through_single_parents_is_refused(void **state)
{
    (void)state;
    expect_edit("\"name\":\"joint1\",", "\"name\":\"joint1\",\"children\":[0],", CNA_ERROR_INVALID_DATA,
                "nodes[0]: the node is its own ancestor (the node graph has a cycle)");
}

static void test_scene_root_must_be_a_root(void **state)
{
    (void)state;
    expect_edit("\"nodes\":[0,4]", "\"nodes\":[0,3]", CNA_ERROR_INVALID_DATA,
                "scenes[0].nodes[1]: nodes[3] is not a root (its parent is nodes[2])");
}

static void test_scene_root_listed_twice_is_refused(void **state)
{
    (void)state;
    expect_edit("\"nodes\":[0,4]", "\"nodes\":[4,0,4]", CNA_ERROR_INVALID_DATA,
                "scenes[0].nodes[2]: nodes[4] is listed twice");
}

static void test_matrix_and_trs_together_are_refused(void **state)
{
    (void)state;
    expect_edit("\"translation\":[0,1,0]", "\"translation\":[0,1,0],\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]",
                CNA_ERROR_INVALID_DATA, "nodes[2]: has both matrix and translation/rotation/scale");
}

static void test_node_matrix_is_kept_column_major(void **state)
{
    (void)state;
    cna_gltf_document *doc =
        load_edit("{\"name\":\"root\",", "{\"name\":\"root\",\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,5,6,7,1],");
    const cna_gltf_node *n = &doc->nodes[0];
    assert_true(n->has_matrix);
    assert_true(n->matrix.m[12] == 5.0f && n->matrix.m[13] == 6.0f && n->matrix.m[14] == 7.0f);
    assert_true(n->translation.x == 0.0f && n->translation.y == 0.0f);
    cna_mat4 local;
    cna_gltf_node_local_matrix(n, &local);
    assert_memory_equal(&local, &n->matrix, sizeof local);
    cna_gltf_node_local_matrix(&doc->nodes[1], &local);
    assert_true(cna_mat4_is_identity(&local));
    cna_gltf_document_free(doc);
}

static void test_skin_on_a_node_without_mesh_is_refused(void **state)
{
    (void)state;
    expect_edits("\"mesh\":0,\"skin\":0}", "\"mesh\":0}", "\"name\":\"joint1\",", "\"name\":\"joint1\",\"skin\":0,",
                 CNA_ERROR_INVALID_DATA, "nodes[3].skin: skins[0] given, but the node has no mesh");
}

static void test_skin_joint_listed_twice_is_refused(void **state)
{
    (void)state;
    expect_edit("\"joints\":[2,3]", "\"joints\":[3,2,3]", CNA_ERROR_INVALID_DATA,
                "skins[0].joints[2]: nodes[3] is listed twice");
}

static void test_inverse_bind_matrices_fewer_than_joints_are_refused(void **state)
{
    (void)state;
    expect_edits("\"joints\":[2,3]", "\"joints\":[2,3,0]", "\"skeleton\":2", "\"skeleton\":0", CNA_ERROR_INVALID_DATA,
                 "skins[0].inverseBindMatrices: accessors[7] has 2 matrices, fewer than the 3 joints");
}

static void test_inverse_bind_matrices_must_be_mat4_float(void **state)
{
    (void)state;
    expect_edit("\"count\":2,\"type\":\"MAT4\"", "\"count\":2,\"type\":\"MAT3\"", CNA_ERROR_INVALID_DATA,
                "skins[0].inverseBindMatrices: accessors[7] is MAT3 FLOAT; expected MAT4 FLOAT");
}

/* ------------------------------------------------------------ meshes */

static void test_joints_must_be_unsigned_byte_or_short(void **state)
{
    (void)state;
    expect_edit("\"JOINTS_0\":5", "\"JOINTS_0\":6", CNA_ERROR_INVALID_DATA,
                "meshes[0].primitives[0].attributes.JOINTS_0: accessors[6] is VEC4 FLOAT; expected VEC4 "
                "UNSIGNED_BYTE or UNSIGNED_SHORT");
}

static void test_weights_must_be_float_or_normalized(void **state)
{
    (void)state;
    expect_edit("\"WEIGHTS_0\":6", "\"WEIGHTS_0\":5", CNA_ERROR_INVALID_DATA,
                "meshes[0].primitives[0].attributes.WEIGHTS_0: accessors[5] is VEC4 UNSIGNED_BYTE; expected VEC4 "
                "FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT");
}

static void test_position_must_be_vec3_float(void **state)
{
    (void)state;
    expect_edit("{\"POSITION\":0,\"JOINTS_0\"", "{\"POSITION\":4,\"JOINTS_0\"", CNA_ERROR_INVALID_DATA,
                "meshes[0].primitives[0].attributes.POSITION: accessors[4] is VEC4 FLOAT; expected VEC3 FLOAT");
}

static void test_attribute_counts_must_be_equal(void **state)
{
    (void)state;
    expect_edit("{\"bufferView\":6,\"componentType\":5126,\"count\":3", "{\"bufferView\":6,\"componentType\":5126,\"count\":2",
                CNA_ERROR_INVALID_DATA,
                "meshes[0].primitives[0].attributes.WEIGHTS_0: accessors[6] has 2 elements, but POSITION has 3");
}

static void test_joints_need_matching_weights(void **state)
{
    (void)state;
    expect_edit(",\"WEIGHTS_0\":6", "", CNA_ERROR_INVALID_DATA,
                "meshes[0].primitives[0].attributes: JOINTS_0 has no matching WEIGHTS_0");
}

static void test_attribute_given_twice_is_refused(void **state)
{
    (void)state;
    expect_edit("{\"POSITION\":0,\"JOINTS_0\"", "{\"POSITION\":0,\"POSITION\":0,\"JOINTS_0\"", CNA_ERROR_INVALID_DATA,
                "meshes[0].primitives[0].attributes.POSITION: attribute given twice");
}

static void test_index_values_must_be_below_vertex_count(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    tu_put_u16(bytes + FIX_INDICES + 2, 3);
    tu_expect_error(FIXTURE_JSON, bytes, FIX_SIZE, CNA_ERROR_INVALID_DATA,
                    "meshes[0].primitives[0].indices: index 3 at element 1 is not below the vertex count 3");
}

static void test_indices_must_be_unsigned_scalar(void **state)
{
    (void)state;
    expect_edit("\"indices\":1", "\"indices\":2", CNA_ERROR_INVALID_DATA,
                "meshes[0].primitives[0].indices: accessors[2] is SCALAR FLOAT; expected SCALAR UNSIGNED_BYTE, "
                "UNSIGNED_SHORT or UNSIGNED_INT");
}

static void test_primitive_mode_out_of_range_is_refused(void **state)
{
    (void)state;
    expect_edit("\"indices\":1,", "\"indices\":1,\"mode\":7,", CNA_ERROR_INVALID_DATA,
                "meshes[0].primitives[0].mode: 7 is above the maximum 6");
}

static void test_primitive_mode_maps_gl_codes(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit("\"indices\":1,", "\"indices\":1,\"mode\":0,");
    assert_int_equal(doc->meshes[0].primitives[0].mode, CNA_GLTF_MODE_POINTS);
    assert_string_equal(cna_gltf_primitive_mode_name(doc->meshes[0].primitives[0].mode), "POINTS");
    cna_gltf_document_free(doc);
}

static void test_morph_target_count_must_equal_vertex_count(void **state)
{
    (void)state;
    expect_edit("{\"bufferView\":8,\"componentType\":5126,\"count\":3", "{\"bufferView\":8,\"componentType\":5126,\"count\":2",
                CNA_ERROR_INVALID_DATA,
                "meshes[1].primitives[0].targets[0].POSITION: accessors[8] has 2 elements, but the primitive has 3 "
                "vertices");
}

static void test_morph_target_position_must_be_vec3(void **state)
{
    (void)state;
    expect_edit("\"targets\":[{\"POSITION\":8}]", "\"targets\":[{\"POSITION\":4}]", CNA_ERROR_INVALID_DATA,
                "meshes[1].primitives[0].targets[0].POSITION: accessors[4] is VEC4 FLOAT; expected VEC3 FLOAT");
}

static void test_primitives_must_share_the_target_count(void **state)
{
    (void)state;
    expect_edit("\"targets\":[{\"POSITION\":8}]}]", "\"targets\":[{\"POSITION\":8}]},{\"attributes\":{\"POSITION\":0}}]",
                CNA_ERROR_INVALID_DATA,
                "meshes[1].primitives[1].targets: 0 morph targets, but primitives[0] has 1");
}

static void test_mesh_weights_must_match_target_count(void **state)
{
    (void)state;
    expect_edit("\"weights\":[0.5]", "\"weights\":[0.5,0.5]", CNA_ERROR_INVALID_DATA,
                "meshes[1].weights: 2 values, but the primitives have 1 morph targets");
}

static void test_node_weights_must_match_target_count(void **state)
{
    (void)state;
    expect_edit("\"mesh\":1}", "\"mesh\":1,\"weights\":[1,2]}", CNA_ERROR_INVALID_DATA,
                "nodes[4].weights: 2 values, but the node's mesh has 1 morph targets");
}

static void test_mesh_without_weights_gets_zero_weights(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit(",\"weights\":[0.5]", "");
    assert_int_equal(doc->meshes[1].target_count, 1);
    assert_non_null(doc->meshes[1].weights);
    assert_true(doc->meshes[1].weights[0] == 0.0f);
    cna_gltf_document_free(doc);
}

static void test_mesh_target_names_are_kept_one_string_per_target(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit(",\"weights\":[0.5]", ",\"weights\":[0.5],\"extras\":{\"targetNames\":[\"smile\"]}");
    assert_int_equal(doc->diagnostic_count, 0);
    assert_non_null(doc->meshes[1].target_names);
    assert_string_equal(doc->meshes[1].target_names[0], "smile");
    assert_null(doc->meshes[0].target_names);
    cna_gltf_document_free(doc);
}

/* targetNames that are not one string per target: a diagnostic, no names, the file loads. */
static void expect_target_names_ignored(const char *names, const char *message)
{
    char to[256];
    snprintf(to, sizeof to, ",\"weights\":[0.5],\"extras\":{\"targetNames\":%s}", names);
    cna_gltf_document *doc = load_edit(",\"weights\":[0.5]", to);
    assert_null(doc->meshes[1].target_names);
    const cna_gltf_diagnostic *d = cna_gltf_document_find_diagnostic(doc, CNA_GLTF_DIAG_TARGET_NAMES_INVALID);
    assert_non_null(d);
    assert_int_equal(d->count, 1);
    assert_string_equal(d->message, message);
    cna_gltf_document_free(doc);
}

static void test_mesh_target_names_of_the_wrong_count_or_type_are_a_diagnostic(void **state)
{
    (void)state;
    expect_target_names_ignored("[\"a\",\"b\"]",
                                "meshes[1].extras.targetNames: 2 names, but the primitives have 1 morph targets; ignored");
    expect_target_names_ignored("[7]", "meshes[1].extras.targetNames[0]: expected a string, got number; ignored");
    expect_target_names_ignored("\"smile\"",
                                "meshes[1].extras.targetNames: expected an array of strings, got string; ignored");
}

static void test_skinned_mesh_needs_joints_and_weights(void **state)
{
    (void)state;
    expect_edit("\"mesh\":1}", "\"mesh\":1,\"skin\":0}", CNA_ERROR_INVALID_DATA,
                "nodes[4]: skinned by skins[0], but meshes[1].primitives[0] has no JOINTS_0/WEIGHTS_0");
}

static void test_joint_index_must_be_below_joint_count(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    bytes[FIX_JOINTS + 4] = 2; /* vertex 1, weight 1 */
    tu_expect_error(FIXTURE_JSON, bytes, FIX_SIZE, CNA_ERROR_INVALID_DATA,
                    "nodes[1]: meshes[0].primitives[0].attributes.JOINTS_0 uses joint 2 (vertex 1), but skins[0] has 2 "
                    "joints");
}

static void test_joint_index_with_zero_weight_is_ignored(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    bytes[FIX_JOINTS + 4 + 3] = 200; /* vertex 1, fourth influence, weight 0 */
    cna_gltf_document *doc = tu_expect_ok(FIXTURE_JSON, bytes, FIX_SIZE);
    cna_gltf_document_free(doc);
}

/* ------------------------------------------------------------ animations */

static void test_animation_times_must_increase(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    put_f32(bytes, FIX_TIMES + 4, 0.7f);
    put_f32(bytes, FIX_TIMES + 8, 0.5f);
    tu_expect_error(FIXTURE_JSON, bytes, FIX_SIZE, CNA_ERROR_INVALID_DATA,
                    "animations[0].samplers[0].input: times must increase (0.7 then 0.5)");
}

/* Equal consecutive times (glTF: strictly increasing) load as a
 * discontinuity, the diagnostic key-times-equal naming the first pair, once
 * per accessor (accessors[2] serves three samplers); the times are kept. */
static void test_animation_equal_times_are_a_diagnostic(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    put_f32(bytes, FIX_TIMES + 8, 0.5f);
    cna_gltf_document *doc = tu_expect_ok(FIXTURE_JSON, bytes, FIX_SIZE);
    assert_int_equal(doc->diagnostic_count, 1);
    tu_expect_diag(doc, CNA_GLTF_DIAG_KEY_TIMES_EQUAL, 1,
                   "animations[0].samplers[0].input: accessors[2] has 1 equal consecutive key time (the first: keys 1 "
                   "and 2 at 0.5 s; glTF requires increasing times); a discontinuity: the later key applies from "
                   "that time on");
    float t[3];
    assert_int_equal(cna_gltf_accessor_read_floats(doc, 2, t, 3, NULL), CNA_OK);
    assert_true(t[0] == 0.0f && t[1] == 0.5f && t[2] == 0.5f);
    cna_gltf_document_free(doc);
    /* all three equal: two pairs, the first at key 0 */
    put_f32(bytes, FIX_TIMES, 0.5f);
    doc = tu_expect_ok(FIXTURE_JSON, bytes, FIX_SIZE);
    tu_expect_diag(doc, CNA_GLTF_DIAG_KEY_TIMES_EQUAL, 1,
                   "animations[0].samplers[0].input: accessors[2] has 2 equal consecutive key times (the first: keys 0 "
                   "and 1 at 0.5 s; glTF requires increasing times); a discontinuity: the later key applies from "
                   "that time on");
    cna_gltf_document_free(doc);
}

static void test_animation_negative_time_is_refused(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    put_f32(bytes, FIX_TIMES, -0.25f);
    tu_expect_error(FIXTURE_JSON, bytes, FIX_SIZE, CNA_ERROR_INVALID_DATA,
                    "animations[0].samplers[0].input: time -0.25 at key 0 is negative");
}

static void test_animation_nan_time_is_refused(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    tu_put_u32(bytes + FIX_TIMES + 4, 0x7FC00000u);
    tu_expect_error(FIXTURE_JSON, bytes, FIX_SIZE, CNA_ERROR_INVALID_DATA,
                    "animations[0].samplers[0].input: time nan at key 1 is not finite");
}

static void test_animation_input_must_be_float_scalar(void **state)
{
    (void)state;
    expect_edit("{\"input\":2,\"output\":3}", "{\"input\":1,\"output\":3}", CNA_ERROR_INVALID_DATA,
                "animations[0].samplers[0].input: accessors[1] is SCALAR UNSIGNED_SHORT; expected SCALAR FLOAT (times)");
}

static void test_cubicspline_output_needs_three_values_per_key(void **state)
{
    (void)state;
    expect_edit("{\"input\":2,\"output\":3}", "{\"input\":2,\"output\":3,\"interpolation\":\"CUBICSPLINE\"}",
                CNA_ERROR_INVALID_DATA,
                "animations[0].channels[0] (translation): animations[0].samplers[0].output: accessors[3] has 3 "
                "elements; expected 9 (3 keys x 3 for CUBICSPLINE)");
}

static void test_weights_output_needs_one_value_per_target_and_key(void **state)
{
    (void)state;
    expect_edits("\"targets\":[{\"POSITION\":8}]", "\"targets\":[{\"POSITION\":8},{\"POSITION\":8}]",
                 "\"weights\":[0.5]", "\"weights\":[0.5,0.25]", CNA_ERROR_INVALID_DATA,
                 "animations[0].channels[2] (weights): animations[0].samplers[2].output: accessors[9] has 3 elements; "
                 "expected 6 (3 keys x 2 morph targets)");
}

static void test_rotation_output_must_be_vec4(void **state)
{
    (void)state;
    expect_edit("{\"input\":2,\"output\":4,", "{\"input\":2,\"output\":3,", CNA_ERROR_INVALID_DATA,
                "animations[0].channels[1] (rotation): animations[0].samplers[1].output: accessors[3] is VEC3 FLOAT; "
                "expected VEC4 FLOAT or normalized integers for rotation");
}

static void test_weights_path_needs_morph_targets(void **state)
{
    (void)state;
    expect_edit("\"node\":4,\"path\":\"weights\"", "\"node\":3,\"path\":\"weights\"", CNA_ERROR_INVALID_DATA,
                "animations[0].channels[2].target: path weights, but nodes[3] has no morph targets");
}

static void test_two_channels_on_one_target_are_refused(void **state)
{
    (void)state;
    expect_edit("\"node\":3,\"path\":\"rotation\"", "\"node\":2,\"path\":\"translation\"", CNA_ERROR_INVALID_DATA,
                "animations[0].channels[1].target: nodes[2] translation is already animated by channels[0]");
}

static void test_channel_without_node_is_ignored_with_a_diagnostic(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit("\"node\":3,\"path\":\"rotation\"", "\"path\":\"rotation\"");
    assert_int_equal(doc->animations[0].channels[1].target_node, -1);
    tu_expect_diag(doc, CNA_GLTF_DIAG_CHANNEL_IGNORED, 1,
                   "animations[0].channels[1].target: no node; the channel is ignored");
    cna_gltf_document_free(doc);
}

static void test_unknown_channel_path_is_ignored_with_a_diagnostic(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit("\"node\":3,\"path\":\"rotation\"", "\"node\":3,\"path\":\"colour\"");
    assert_int_equal(doc->animations[0].channels[1].path, CNA_GLTF_PATH_UNKNOWN);
    tu_expect_diag(doc, CNA_GLTF_DIAG_CHANNEL_IGNORED, 1,
                   "animations[0].channels[1].target.path: \"colour\" is not supported; the channel is ignored");
    cna_gltf_document_free(doc);
    /* "pointer" without the KHR_animation_pointer object: ignored too */
    doc = load_edit("\"node\":3,\"path\":\"rotation\"", "\"node\":3,\"path\":\"pointer\"");
    assert_int_equal(doc->animations[0].channels[1].path, CNA_GLTF_PATH_UNKNOWN);
    tu_expect_diag(doc, CNA_GLTF_DIAG_CHANNEL_IGNORED, 1,
                   "animations[0].channels[1].target.path: \"pointer\" without extensions.KHR_animation_pointer; "
                   "the channel is ignored");
    cna_gltf_document_free(doc);
}

static void test_unknown_interpolation_is_refused(void **state)
{
    (void)state;
    expect_edit("\"interpolation\":\"STEP\"", "\"interpolation\":\"SMOOTH\"", CNA_ERROR_INVALID_DATA,
                "animations[0].samplers[1].interpolation: \"SMOOTH\" is not LINEAR, STEP or CUBICSPLINE");
}

/* ------------------------------------------------------------ accessors and views */

static void test_accessor_range_beyond_buffer_view_is_refused(void **state)
{
    (void)state;
    expect_edit("{\"bufferView\":0,\"componentType\":5126,\"count\":3", "{\"bufferView\":0,\"componentType\":5126,\"count\":4",
                CNA_ERROR_INVALID_DATA,
                "accessors[0]: count 4 x stride 12 needs 48 bytes at byteOffset 0, past the end of bufferViews[0] (36 bytes)");
}

static void test_accessor_offset_must_be_aligned(void **state)
{
    (void)state;
    expect_edit("{\"bufferView\":2,", "{\"bufferView\":2,\"byteOffset\":2,", CNA_ERROR_INVALID_DATA,
                "accessors[2]: byteOffset 2 in bufferViews[2] (at byte 46 of the buffer) is not a multiple of the "
                "component size 4");
}

static void test_buffer_view_stride_must_be_multiple_of_four_in_range(void **state)
{
    (void)state;
    expect_edit("\"byteOffset\":0,\"byteLength\":36}", "\"byteOffset\":0,\"byteLength\":36,\"byteStride\":6}",
                CNA_ERROR_INVALID_DATA, "bufferViews[0].byteStride: 6; must be a multiple of 4 between 4 and 252");
    expect_edit("\"byteOffset\":0,\"byteLength\":36}", "\"byteOffset\":0,\"byteLength\":36,\"byteStride\":256}",
                CNA_ERROR_INVALID_DATA, "bufferViews[0].byteStride: 256; must be a multiple of 4 between 4 and 252");
}

static void test_stride_smaller_than_element_is_refused(void **state)
{
    (void)state;
    expect_edit("\"byteOffset\":0,\"byteLength\":36}", "\"byteOffset\":0,\"byteLength\":36,\"byteStride\":8}",
                CNA_ERROR_INVALID_DATA, "accessors[0]: bufferViews[0].byteStride 8 is smaller than the element size 12");
}

static void test_buffer_view_beyond_buffer_is_refused(void **state)
{
    (void)state;
    expect_edit("\"byteOffset\":364,\"byteLength\":12", "\"byteOffset\":364,\"byteLength\":16", CNA_ERROR_INVALID_DATA,
                "bufferViews[9]: byteOffset 364 + byteLength 16 exceeds buffers[0].byteLength 376");
}

static void test_buffer_shorter_than_byte_length_is_refused(void **state)
{
    (void)state;
    expect_edit("\"byteLength\":376", "\"byteLength\":400", CNA_ERROR_INVALID_DATA,
                "buffers[0]: 376 bytes of data, fewer than byteLength 400");
}

static void test_buffer_longer_than_byte_length_is_a_diagnostic(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE + 4];
    fixture_bytes(bytes);
    memset(bytes + FIX_SIZE, 0, 4);
    cna_gltf_document *doc = tu_expect_ok(FIXTURE_JSON, bytes, sizeof bytes);
    tu_expect_diag(doc, CNA_GLTF_DIAG_BUFFER_LONGER, 1, "buffers[0]: 380 bytes of data, more than byteLength 376");
    assert_int_equal(doc->buffers[0].byte_length, 376);
    cna_gltf_document_free(doc);
}

static void test_normalized_float_is_refused(void **state)
{
    (void)state;
    expect_edit("{\"bufferView\":3,\"componentType\":5126,", "{\"bufferView\":3,\"normalized\":true,\"componentType\":5126,",
                CNA_ERROR_INVALID_DATA, "accessors[3].normalized: not allowed for componentType FLOAT");
}

static void test_invalid_component_type_is_refused(void **state)
{
    (void)state;
    expect_edit("{\"bufferView\":1,\"componentType\":5123", "{\"bufferView\":1,\"componentType\":5124",
                CNA_ERROR_INVALID_DATA, "accessors[1].componentType: 5124 is not a valid component type");
}

static void test_hostile_numbers_are_refused_before_conversion(void **state)
{
    (void)state;
    const char *from = "{\"bufferView\":1,\"componentType\":5123,\"count\":3";
    expect_edit(from, "{\"bufferView\":1,\"componentType\":5123,\"count\":1e300", CNA_ERROR_INVALID_DATA,
                "accessors[1].count: 1e+300 is above the maximum 9007199254740992");
    expect_edit(from, "{\"bufferView\":1,\"componentType\":5123,\"count\":-1", CNA_ERROR_INVALID_DATA,
                "accessors[1].count: -1 is negative");
    expect_edit(from, "{\"bufferView\":1,\"componentType\":5123,\"count\":2.5", CNA_ERROR_INVALID_DATA,
                "accessors[1].count: 2.5 is not an integer");
    expect_edit(from, "{\"bufferView\":1,\"componentType\":5123,\"count\":\"3\"", CNA_ERROR_INVALID_DATA,
                "accessors[1].count: expected a number, got string");
    expect_edit(from, "{\"bufferView\":1e10,\"componentType\":5123,\"count\":3", CNA_ERROR_INVALID_DATA,
                "accessors[1].bufferView: 1e+10 is above the maximum 2147483647");
    expect_edit("\"translation\":[0,1,0]", "\"translation\":[0,1e39,0]", CNA_ERROR_INVALID_DATA,
                "nodes[2].translation[1]: 1e+39 is not a finite float");
}

static void test_required_property_missing_is_named(void **state)
{
    (void)state;
    expect_edit("{\"bufferView\":1,\"componentType\":5123,", "{\"bufferView\":1,", CNA_ERROR_INVALID_DATA,
                "accessors[1].componentType: required property is missing");
    expect_edit("{\"joints\":[2,3],", "{", CNA_ERROR_INVALID_DATA, "skins[0].joints: required property is missing");
}

static void test_deep_json_nesting_is_refused_cleanly(void **state)
{
    (void)state;
    size_t depth = 100000;
    char *json = (char *)malloc(2 * depth + 64);
    assert_non_null(json);
    size_t o = (size_t)sprintf(json, "{\"asset\":{\"version\":\"2.0\"},\"extras\":");
    for (size_t i = 0; i < depth; i++) json[o++] = '[';
    for (size_t i = 0; i < depth; i++) json[o++] = ']';
    json[o++] = '}';
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(json, o, NULL, &doc, &err), CNA_ERROR_PARSE);
    assert_null(doc);
    free(json);
}

static void test_huge_all_zero_accessor_is_checked_without_scanning(void **state)
{
    (void)state;
    /* 50 million zero indices (no bufferView): valid (0 < 3), and validation must
     * not walk them (nor allocate for them). */
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    char *a = tu_edit(FIXTURE_JSON, "\"indices\":1,", "\"indices\":11,");
    char *b = tu_edit(a, "\"count\":3,\"type\":\"VEC2\"}],",
                      "\"count\":3,\"type\":\"VEC2\"},{\"componentType\":5125,\"count\":50000000,\"type\":\"SCALAR\"}],");
    cna_gltf_document *doc = tu_expect_ok(b, bytes, FIX_SIZE);
    assert_int_equal(doc->accessors[11].count, 50000000);
    assert_int_equal(doc->accessors[11].buffer_view, -1);
    uint32_t first[1];
    assert_int_equal(cna_gltf_accessor_read_element_uints(doc, 11, 49999999, first, 1, NULL), CNA_OK);
    assert_int_equal(first[0], 0);
    cna_gltf_document_free(doc);
    free(a);
    free(b);
}

/* ------------------------------------------------------------ asset, extensions, JSON */

static void test_asset_is_required(void **state)
{
    (void)state;
    expect_edit("\"asset\":{\"version\":\"2.0\",\"generator\":\"cna tests\"},", "", CNA_ERROR_INVALID_DATA,
                "asset: required property is missing");
}

static void test_asset_version_other_than_2_is_unsupported(void **state)
{
    (void)state;
    expect_edit("\"version\":\"2.0\"", "\"version\":\"1.0\"", CNA_ERROR_UNSUPPORTED,
                "asset.version: \"1.0\" is not supported (glTF 2.0 reader)");
    expect_edit("\"version\":\"2.0\"", "\"version\":\"two\"", CNA_ERROR_INVALID_DATA,
                "asset.version: \"two\" is not a version (major.minor)");
}

static void test_min_version_above_2_0_is_unsupported(void **state)
{
    (void)state;
    expect_edit("\"version\":\"2.0\"", "\"version\":\"2.1\",\"minVersion\":\"2.1\"", CNA_ERROR_UNSUPPORTED,
                "asset.minVersion: \"2.1\" is not supported (glTF 2.0 reader)");
}

static void test_unsupported_required_extension_is_named(void **state)
{
    (void)state;
    expect_edit("\"scene\":0,",
                "\"scene\":0,\"extensionsUsed\":[\"KHR_texture_basisu\"],"
                "\"extensionsRequired\":[\"KHR_texture_basisu\"],",
                CNA_ERROR_UNSUPPORTED,
                "extensionsRequired[0]: \"KHR_texture_basisu\" is not supported; it concerns textures only: load "
                "without textures (cna --no-textures, cna_gltf_options.no_textures) to read the rest");
    expect_edit("\"scene\":0,",
                "\"scene\":0,\"extensionsUsed\":[\"EXT_texture_avif\",\"KHR_materials_clearcoat\"],"
                "\"extensionsRequired\":[\"KHR_materials_clearcoat\",\"EXT_texture_avif\"],",
                CNA_ERROR_UNSUPPORTED, "extensionsRequired[0]: \"KHR_materials_clearcoat\" is not supported");
}

static void test_optional_extension_is_ignored_with_a_diagnostic(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit(
        "\"scene\":0,", "\"scene\":0,\"extensionsUsed\":[\"KHR_materials_clearcoat\",\"KHR_texture_transform\","
                        "\"KHR_materials_sheen\"],");
    assert_int_equal(doc->extensions_used_count, 3);
    assert_string_equal(doc->extensions_used[1], "KHR_texture_transform");
    /* KHR_texture_transform is implemented: two ignored, not three */
    tu_expect_diag(doc, CNA_GLTF_DIAG_EXTENSION_IGNORED, 2,
                   "extensionsUsed[0]: \"KHR_materials_clearcoat\" is not implemented and is ignored");
    cna_gltf_document_free(doc);
}

static void test_texture_transform_and_emissive_strength_required_are_accepted(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit(
        "\"scene\":0,", "\"scene\":0,\"extensionsUsed\":[\"KHR_texture_transform\",\"KHR_materials_emissive_strength\"],"
                        "\"extensionsRequired\":[\"KHR_texture_transform\",\"KHR_materials_emissive_strength\"],");
    assert_int_equal(doc->extensions_required_count, 2);
    assert_int_equal(doc->diagnostic_count, 0);
    cna_gltf_document_free(doc);
}

static void test_other_required_extensions_are_still_refused_by_name(void **state)
{
    (void)state;
    expect_edit("\"scene\":0,",
                "\"scene\":0,\"extensionsUsed\":[\"KHR_texture_transform\",\"KHR_materials_clearcoat\"],"
                "\"extensionsRequired\":[\"KHR_texture_transform\",\"KHR_materials_clearcoat\"],",
                CNA_ERROR_UNSUPPORTED, "extensionsRequired[1]: \"KHR_materials_clearcoat\" is not supported");
}

static void test_mesh_quantization_required_is_accepted(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit(
        "\"scene\":0,", "\"scene\":0,\"extensionsUsed\":[\"KHR_mesh_quantization\"],"
                        "\"extensionsRequired\":[\"KHR_mesh_quantization\"],");
    assert_int_equal(doc->extensions_required_count, 1);
    assert_int_equal(doc->diagnostic_count, 0);
    cna_gltf_document_free(doc);
}

static void test_json_syntax_error_gives_line_and_column(void **state)
{
    (void)state;
    expect_edit("\"samplers\":[{}],", "\"samplers\":[{}],,", CNA_ERROR_PARSE,
                "JSON syntax error at line 32, column 18 (byte 2393 of 3022)");
}

static void test_json_root_must_be_an_object(void **state)
{
    (void)state;
    tu_expect_error("[1,2]", "", 0, CNA_ERROR_INVALID_DATA, "glTF: the JSON root is array, not an object");
}

static void test_content_after_the_json_value_is_refused(void **state)
{
    (void)state;
    tu_expect_error("{\"asset\":{\"version\":\"2.0\"}} x", "", 0, CNA_ERROR_PARSE,
                    "JSON syntax error at line 1, column 29 (byte 28 of 29)");
}

static void test_minimal_document_with_trailing_whitespace_loads(void **state)
{
    (void)state;
    cna_gltf_document *doc = tu_expect_ok("{\"asset\":{\"version\":\"2.0\"}} \n\t ", "", 0);
    assert_int_equal(doc->node_count, 0);
    assert_null(doc->nodes);
    assert_int_equal(doc->scene, -1);
    assert_false(doc->is_glb);
    cna_gltf_document_free(doc);
}

static void test_top_level_property_must_be_an_array(void **state)
{
    (void)state;
    expect_edit("\"samplers\":[{}],", "\"samplers\":{},", CNA_ERROR_INVALID_DATA, "samplers: expected an array, got object");
}

static void test_object_entries_must_be_objects(void **state)
{
    (void)state;
    expect_edit("\"samplers\":[{}],", "\"samplers\":[3],", CNA_ERROR_INVALID_DATA,
                "samplers[0]: expected an object, got number");
}

static void test_alpha_mode_must_be_known(void **state)
{
    (void)state;
    expect_edit("{\"name\":\"red\",", "{\"name\":\"red\",\"alphaMode\":\"CLEAR\",", CNA_ERROR_INVALID_DATA,
                "materials[0].alphaMode: \"CLEAR\" is not OPAQUE, MASK or BLEND");
}

static void test_sampler_filter_must_be_a_gl_enum(void **state)
{
    (void)state;
    expect_edit("\"samplers\":[{}],", "\"samplers\":[{\"magFilter\":9984}],", CNA_ERROR_INVALID_DATA,
                "samplers[0].magFilter: 9984 is not an allowed value");
}

/* ------------------------------------------------------------ diagnostics */

static void test_unused_objects_are_a_diagnostic(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit("\"samplers\":[{}],", "\"samplers\":[{},{},{}],");
    tu_expect_diag(doc, CNA_GLTF_DIAG_UNUSED_OBJECT, 2, "samplers[1] is never used");
    cna_gltf_document_free(doc);
}

static void test_cameras_are_skipped_with_a_diagnostic(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit("\"samplers\":[{}],", "\"samplers\":[{}],\"cameras\":[{\"type\":\"perspective\","
                                                             "\"perspective\":{\"yfov\":1,\"znear\":0.1}}],");
    assert_int_equal(doc->camera_count, 1);
    tu_expect_diag(doc, CNA_GLTF_DIAG_CAMERA_SKIPPED, 1, "cameras[0]: cameras are not parsed (skipped)");
    tu_expect_diag(doc, CNA_GLTF_DIAG_UNUSED_OBJECT, 1, "cameras[0] is never used");
    cna_gltf_document_free(doc);
}

static void test_non_unit_node_rotation_is_a_diagnostic(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit("\"rotation\":[0,0,0,1]", "\"rotation\":[0,0,0,0.9]");
    tu_expect_diag(doc, CNA_GLTF_DIAG_QUATERNION_NOT_UNIT, 1, "nodes[3].rotation: (0, 0, 0, 0.9) is not unit length");
    assert_true(doc->nodes[3].rotation.w == 0.9f);
    cna_gltf_document_free(doc);
}

static void test_non_unit_rotation_key_is_a_diagnostic(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    put_f32(bytes, 92 + 16 + 12, 2.0f);
    cna_gltf_document *doc = tu_expect_ok(FIXTURE_JSON, bytes, FIX_SIZE);
    tu_expect_diag(doc, CNA_GLTF_DIAG_QUATERNION_NOT_UNIT, 1,
                   "animations[0].samplers[1].output: rotation key 1 (0, 0, 0, 2) is not unit length");
    cna_gltf_document_free(doc);
}

static void test_weights_not_summing_to_one_are_a_diagnostic(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    put_f32(bytes, FIX_WEIGHTS + 4, 0.25f);
    cna_gltf_document *doc = tu_expect_ok(FIXTURE_JSON, bytes, FIX_SIZE);
    tu_expect_diag(doc, CNA_GLTF_DIAG_WEIGHTS_NOT_NORMALIZED, 1,
                   "meshes[0].primitives[0]: the skin weights of vertex 0 sum to 0.75");
    cna_gltf_document_free(doc);
}

static void test_unknown_attribute_is_refused_and_custom_is_kept(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit("{\"POSITION\":0},\"targets\"", "{\"POSITION\":0,\"_BATCHID\":2},\"targets\"");
    const cna_gltf_primitive *p = &doc->meshes[1].primitives[0];
    assert_int_equal(p->attribute_count, 2);
    assert_string_equal(p->attributes[1].name, "_BATCHID");
    assert_int_equal(p->attributes[1].kind, CNA_GLTF_ATTRIBUTE_OTHER);
    assert_int_equal(p->attributes[1].accessor, 2);
    assert_int_equal(doc->diagnostic_count, 0);
    cna_gltf_document_free(doc);
    expect_edit("{\"POSITION\":0},\"targets\"", "{\"POSITION\":0,\"FOO\":2},\"targets\"", CNA_ERROR_INVALID_DATA,
                "meshes[1].primitives[0].attributes.FOO: not a glTF semantic (POSITION, NORMAL, TANGENT, TEXCOORD_n, "
                "COLOR_n, JOINTS_n, WEIGHTS_n; n without leading zeros) and not application-specific (\"_\" prefix)");
    expect_edit("\"targets\":[{\"POSITION\":8}]", "\"targets\":[{\"POSITION\":8,\"Position\":8}]", CNA_ERROR_INVALID_DATA,
                "meshes[1].primitives[0].targets[0].Position: not a glTF semantic (POSITION, NORMAL, TANGENT, "
                "TEXCOORD_n, COLOR_n, JOINTS_n, WEIGHTS_n; n without leading zeros) and not application-specific "
                "(\"_\" prefix)");
}

static void test_indexed_semantics_parse_their_set(void **state)
{
    (void)state;
    cna_gltf_document *doc =
        load_edit("{\"POSITION\":0},\"targets\"", "{\"POSITION\":0,\"COLOR_1\":0,\"COLOR_0\":0},\"targets\"");
    const cna_gltf_primitive *p = &doc->meshes[1].primitives[0];
    assert_int_equal(p->attributes[1].kind, CNA_GLTF_ATTRIBUTE_COLOR);
    assert_int_equal(p->attributes[1].set, 1);
    assert_int_equal(cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_COLOR, 1), 0);
    cna_gltf_document_free(doc);
    expect_edit("{\"POSITION\":0},\"targets\"", "{\"POSITION\":0,\"COLOR_0\":0,\"COLOR_01\":0},\"targets\"",
                CNA_ERROR_INVALID_DATA,
                "meshes[1].primitives[0].attributes.COLOR_01: not a glTF semantic (POSITION, NORMAL, TANGENT, "
                "TEXCOORD_n, COLOR_n, JOINTS_n, WEIGHTS_n; n without leading zeros) and not application-specific "
                "(\"_\" prefix)");
}

/* ------------------------------------------------------------ stricter rules (glTF MUSTs) */

/* glTF's schema gives every top-level array minItems 1; an empty one means
 * what an absent one does: read as absent, the diagnostic empty-array (counted
 * per array, the first named). */
static void test_empty_top_level_array_is_a_diagnostic(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    char *a = tu_edit(FIXTURE_JSON, "\"samplers\":[{}]", "\"samplers\":[]");
    char *b = tu_edit(a, "\"source\":0,\"sampler\":0}", "\"source\":0}");
    cna_gltf_document *doc = tu_expect_ok(b, bytes, FIX_SIZE);
    assert_int_equal(doc->sampler_count, 0);
    assert_null(doc->samplers);
    assert_int_equal(doc->diagnostic_count, 1);
    tu_expect_diag(doc, CNA_GLTF_DIAG_EMPTY_ARRAY, 1,
                   "samplers: empty array (glTF requires at least 1 entry); read as absent");
    cna_gltf_document_free(doc);
    free(a);
    free(b);
    /* still an index into it is out of range */
    expect_edit("\"samplers\":[{}]", "\"samplers\":[]", CNA_ERROR_INVALID_DATA,
                "textures[0].sampler: 0 is out of range (0 samplers)");
    doc = tu_expect_ok("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[],\"meshes\":[]}", "", 0);
    assert_int_equal(doc->node_count, 0);
    assert_int_equal(doc->mesh_count, 0);
    tu_expect_diag(doc, CNA_GLTF_DIAG_EMPTY_ARRAY, 2, "meshes: empty array (glTF requires at least 1 entry); read as absent");
    cna_gltf_document_free(doc);
}

static void test_empty_children_and_scene_nodes_are_refused(void **state)
{
    (void)state;
    expect_edit("{\"name\":\"joint1\",", "{\"name\":\"joint1\",\"children\":[],", CNA_ERROR_INVALID_DATA,
                "nodes[3].children: 0 entries; at least 1 required");
    expect_edit("\"scenes\":[{\"nodes\":[0,4]}]", "\"scenes\":[{\"nodes\":[0,4]},{\"nodes\":[]}]",
                CNA_ERROR_INVALID_DATA, "scenes[1].nodes: 0 entries; at least 1 required");
}

static void test_json_byte_order_mark_is_refused(void **state)
{
    (void)state;
    tu_expect_error("\xEF\xBB\xBF{\"asset\":{\"version\":\"2.0\"}}", "", 0, CNA_ERROR_PARSE,
                    "JSON: starts with a UTF-8 byte order mark (EF BB BF), which glTF does not allow");
}

static void test_byte_offset_without_buffer_view_is_refused(void **state)
{
    (void)state;
    expect_edit("{\"bufferView\":9,\"componentType\":5126", "{\"byteOffset\":4,\"componentType\":5126",
                CNA_ERROR_INVALID_DATA, "accessors[9].byteOffset: 4 given, but the accessor has no bufferView");
}

static void test_mesh_quantization_object_on_an_accessor_is_ignored_with_a_diagnostic(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit("{\"bufferView\":9,\"componentType\":5126",
                                       "{\"extensions\":{\"KHR_mesh_quantization\":{}},\"bufferView\":9,"
                                       "\"componentType\":5126");
    tu_expect_diag(doc, CNA_GLTF_DIAG_EXTENSION_IGNORED, 1,
                   "accessors[9].extensions.KHR_mesh_quantization: the extension defines no accessor object; ignored");
    cna_gltf_document_free(doc);
}

static void test_buffer_data_uri_media_type_must_be_octet_stream_or_gltf_buffer(void **state)
{
    (void)state;
    tu_expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":1,"
                    "\"uri\":\"data:application/octet-stream2;base64,AA==\"}]}",
                    "", 0, CNA_ERROR_INVALID_DATA,
                    "buffers[0].uri: data URI media type \"application/octet-stream2\" is not "
                    "application/octet-stream or application/gltf-buffer");
    tu_expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":1,\"uri\":\"data:;base64,AA==\"}]}",
                    "", 0, CNA_ERROR_INVALID_DATA,
                    "buffers[0].uri: data URI media type \"\" is not application/octet-stream or "
                    "application/gltf-buffer");
    cna_gltf_document *doc = tu_expect_ok("{\"asset\":{\"version\":\"2.0\"},\"buffers\":["
                                          "{\"byteLength\":1,\"uri\":\"data:application/gltf-buffer;base64,AQ==\"},"
                                          "{\"byteLength\":1,\"uri\":\"data:Application/Octet-Stream;base64,Ag==\"}]}",
                                          "", 0);
    assert_int_equal(doc->buffers[0].data[0], 1);
    assert_int_equal(doc->buffers[1].data[0], 2);
    cna_gltf_document_free(doc);
}

static void test_data_uri_parameter_must_be_attribute_value(void **state)
{
    (void)state;
    tu_expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":1,"
                    "\"uri\":\"data:application/octet-stream;;base64,AA==\"}]}",
                    "", 0, CNA_ERROR_PARSE, "buffers[0].uri: data URI: parameter \"\" is not attribute=value");
    cna_gltf_document *doc = tu_expect_ok("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":1,"
                                          "\"uri\":\"data:application/octet-stream;name=a.bin;base64,Aw==\"}]}",
                                          "", 0);
    assert_int_equal(doc->buffers[0].data[0], 3);
    cna_gltf_document_free(doc);
}

static void test_byte_stride_above_byte_length_is_refused(void **state)
{
    (void)state;
    expect_edit("{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}",
                "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6,\"byteStride\":8}", CNA_ERROR_INVALID_DATA,
                "bufferViews[1].byteStride: 8 is greater than byteLength 6");
}

static void test_index_data_must_not_have_a_stride(void **state)
{
    (void)state;
    expect_edit("{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}",
                "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6,\"byteStride\":4,\"target\":34963}",
                CNA_ERROR_INVALID_DATA,
                "bufferViews[1].byteStride: 4 given, but target is 34963 (ELEMENT_ARRAY_BUFFER); index data is "
                "tightly packed");
    expect_edit("{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}",
                "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":10,\"byteStride\":4}", CNA_ERROR_INVALID_DATA,
                "meshes[0].primitives[0].indices: accessors[1] is in bufferViews[1], which has byteStride 4; index "
                "data must be tightly packed");
}

static void test_animated_node_must_not_have_a_matrix(void **state)
{
    (void)state;
    expect_edit("\"translation\":[0,1,0]}", "\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0,1,0,1]}", CNA_ERROR_INVALID_DATA,
                "animations[0].channels[0].target: nodes[2] has a matrix; a node animated by translation must use "
                "translation/rotation/scale");
    /* morph weights do not touch the transform: a matrix node may have them animated */
    cna_gltf_document *doc =
        load_edit("{\"name\":\"morph\",\"mesh\":1}", "{\"name\":\"morph\",\"mesh\":1,\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}");
    assert_true(doc->nodes[4].has_matrix);
    cna_gltf_document_free(doc);
}

/* glTF requires min and max on animation inputs; the times are checked
 * whatever the bounds say, so a missing bound is computed from them (the
 * first and the last key) and is the diagnostic accessor-min-max-computed,
 * once per accessor (accessors[2] serves three samplers). */
static void test_animation_input_without_min_or_max_is_computed(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    cna_gltf_document *base = tu_expect_ok(FIXTURE_JSON, bytes, FIX_SIZE);
    cna_gltf_document *doc = load_edit("\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]}", "\"type\":\"SCALAR\"}");
    tu_expect_diag(doc, CNA_GLTF_DIAG_ACCESSOR_MIN_MAX_COMPUTED, 1,
                   "animations[0].samplers[0].input: accessors[2] has no min/max (glTF requires min and max for "
                   "animation inputs); computed from the key times: min 0, max 1");
    assert_int_equal(doc->diagnostic_count, 1);
    assert_true(doc->accessors[2].has_min && doc->accessors[2].has_max);
    assert_true(doc->accessors[2].min[0] == base->accessors[2].min[0]);
    assert_true(doc->accessors[2].max[0] == base->accessors[2].max[0]);
    cna_gltf_document_free(doc);
    doc = load_edit("\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]}", "\"type\":\"SCALAR\",\"min\":[0]}");
    tu_expect_diag(doc, CNA_GLTF_DIAG_ACCESSOR_MIN_MAX_COMPUTED, 1,
                   "animations[0].samplers[0].input: accessors[2] has no max (glTF requires min and max for "
                   "animation inputs); computed from the key times: min 0, max 1");
    assert_true(doc->accessors[2].min[0] == 0.0 && doc->accessors[2].max[0] == 1.0);
    cna_gltf_document_free(doc);
    cna_gltf_document_free(base);
}

/* The model imported from doc: its size (bounding-box diagonal of the bind pose). */
static float model_size_of(const cna_gltf_document *doc)
{
    cna_model *model = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_result r = cna_model_import_gltf(doc, NULL, &model, &err);
    if (r != CNA_OK) fail_msg("import failed: %s", err.message);
    float size = model->size;
    const cna_model_diagnostic *d = cna_model_find_diagnostic(model, CNA_GLTF_DIAG_POSITION_BOUNDS_MISSING);
    assert_int_equal(d != NULL, cna_gltf_document_find_diagnostic(doc, CNA_GLTF_DIAG_POSITION_BOUNDS_MISSING) != NULL);
    cna_model_free(model);
    return size;
}

/* glTF requires min and max on POSITION accessors, but nothing read depends on
 * them: a missing bound is a diagnostic counted once per accessor (accessors[0]
 * serves two primitives), and the model's bounds come from the data. */
static void test_position_without_min_or_max_is_a_diagnostic_and_bounds_come_from_the_data(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    cna_gltf_document *base = tu_expect_ok(FIXTURE_JSON, bytes, FIX_SIZE);
    assert_null(cna_gltf_document_find_diagnostic(base, CNA_GLTF_DIAG_POSITION_BOUNDS_MISSING));
    float size = model_size_of(base);
    assert_true(size > 0.0f);
    cna_gltf_document_free(base);

    cna_gltf_document *doc = load_edit("\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]}", "\"type\":\"VEC3\"}");
    tu_expect_diag(doc, CNA_GLTF_DIAG_POSITION_BOUNDS_MISSING, 1,
                   "meshes[0].primitives[0].attributes.POSITION: accessors[0] has no min/max (glTF requires min and "
                   "max for POSITION); the bounds are computed from the data");
    assert_false(doc->accessors[0].has_min);
    assert_false(doc->accessors[0].has_max);
    assert_true(model_size_of(doc) == size);
    cna_gltf_document_free(doc);

    doc = load_edit("\"type\":\"VEC3\",\"min\":[0,0,1],\"max\":[0,0,1]}", "\"type\":\"VEC3\",\"max\":[0,0,1]}");
    tu_expect_diag(doc, CNA_GLTF_DIAG_POSITION_BOUNDS_MISSING, 1,
                   "meshes[1].primitives[0].targets[0].POSITION: accessors[8] has no min (glTF requires min and max "
                   "for POSITION); the bounds are computed from the data");
    cna_gltf_document_free(doc);

    /* both accessors: two occurrences, the first one's message */
    fixture_bytes(bytes);
    char *a = tu_edit(FIXTURE_JSON, "\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]}", "\"type\":\"VEC3\",\"min\":[0,0,0]}");
    char *b = tu_edit(a, "\"type\":\"VEC3\",\"min\":[0,0,1],\"max\":[0,0,1]}", "\"type\":\"VEC3\"}");
    doc = tu_expect_ok(b, bytes, FIX_SIZE);
    tu_expect_diag(doc, CNA_GLTF_DIAG_POSITION_BOUNDS_MISSING, 2,
                   "meshes[0].primitives[0].attributes.POSITION: accessors[0] has no max (glTF requires min and max "
                   "for POSITION); the bounds are computed from the data");
    assert_true(model_size_of(doc) == size);
    cna_gltf_document_free(doc);
    free(a);
    free(b);
}

static void test_attribute_sets_must_start_at_zero_and_be_consecutive(void **state)
{
    (void)state;
    expect_edit("{\"POSITION\":0},\"targets\"", "{\"POSITION\":0,\"COLOR_1\":0},\"targets\"", CNA_ERROR_INVALID_DATA,
                "meshes[1].primitives[0].attributes: COLOR_1 without COLOR_0 (sets must start at 0 and be consecutive)");
    expect_edit("{\"POSITION\":0},\"targets\"", "{\"POSITION\":0,\"COLOR_0\":0,\"COLOR_2\":0},\"targets\"",
                CNA_ERROR_INVALID_DATA,
                "meshes[1].primitives[0].attributes: COLOR_2 without COLOR_1 (sets must start at 0 and be consecutive)");
}

static void test_custom_attribute_must_not_be_unsigned_int(void **state)
{
    (void)state;
    expect_edits("{\"POSITION\":0},\"targets\"", "{\"POSITION\":0,\"_ID\":9},\"targets\"",
                 "{\"bufferView\":9,\"componentType\":5126", "{\"bufferView\":9,\"componentType\":5125",
                 CNA_ERROR_INVALID_DATA,
                 "meshes[1].primitives[0].attributes._ID: accessors[9] is UNSIGNED_INT, which application-specific "
                 "attributes must not use");
}

static void test_morph_target_attribute_needs_a_base_attribute(void **state)
{
    (void)state;
    expect_edit("\"targets\":[{\"POSITION\":8}]", "\"targets\":[{\"POSITION\":8,\"NORMAL\":8}]", CNA_ERROR_INVALID_DATA,
                "meshes[1].primitives[0].targets[0].NORMAL: the primitive has no NORMAL attribute for this target to "
                "displace");
}

static void test_index_equal_to_primitive_restart_is_refused(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    tu_put_u16(bytes + FIX_INDICES + 2, 65535);
    tu_expect_error(FIXTURE_JSON, bytes, FIX_SIZE, CNA_ERROR_INVALID_DATA,
                    "meshes[0].primitives[0].indices: index 65535 at element 1 is the primitive restart value of "
                    "UNSIGNED_SHORT, which glTF does not allow");
}

static void test_tangent_w_must_be_plus_or_minus_one(void **state)
{
    (void)state;
    /* accessor 4 (VEC4 FLOAT, identity quaternions, w = 1) doubles as a TANGENT */
    const char *from = "{\"POSITION\":0},\"targets\"", *to = "{\"POSITION\":0,\"TANGENT\":4},\"targets\"";
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    put_f32(bytes, 92 + 16 + 12, -1.0f);
    char *json = tu_edit(FIXTURE_JSON, from, to);
    cna_gltf_document *doc = tu_expect_ok(json, bytes, FIX_SIZE);
    cna_gltf_document_free(doc);
    put_f32(bytes, 92 + 16 + 12, 0.5f);
    tu_expect_error(json, bytes, FIX_SIZE, CNA_ERROR_INVALID_DATA,
                    "meshes[1].primitives[0].attributes.TANGENT: w 0.5 at vertex 1 is not 1 or -1 (the bitangent "
                    "sign)");
    free(json);
}

static void test_node_matrix_must_be_trs(void **state)
{
    (void)state;
    expect_edit("{\"name\":\"root\",", "{\"name\":\"root\",\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,2],",
                CNA_ERROR_INVALID_DATA,
                "nodes[0].matrix: last row (0, 0, 0, 2) is not (0, 0, 0, 1); the matrix is not a TRS transform");
    expect_edit("{\"name\":\"root\",", "{\"name\":\"root\",\"matrix\":[1,0,0,0,0.5,1,0,0,0,0,1,0,0,0,0,1],",
                CNA_ERROR_INVALID_DATA,
                "nodes[0].matrix: columns 0 and 1 are not orthogonal (cosine 0.447); the matrix has shear and is "
                "not a TRS transform");
    /* rotation, non-uniform and negative scale, translation: decomposable */
    cna_gltf_document *doc =
        load_edit("{\"name\":\"root\",", "{\"name\":\"root\",\"matrix\":[0,2,0,0,-3,0,0,0,0,0,-1,0,5,6,7,1],");
    assert_true(doc->nodes[0].has_matrix);
    cna_gltf_document_free(doc);
    /* within the shear tolerance (|cos| 9e-4 <= 1e-3) */
    doc = load_edit("{\"name\":\"root\",", "{\"name\":\"root\",\"matrix\":[1,0,0,0,0.0009,1,0,0,0,0,1,0,0,0,0,1],");
    cna_gltf_document_free(doc);
}

static void test_skin_joints_need_a_common_root(void **state)
{
    (void)state;
    expect_edit("\"joints\":[2,3]", "\"joints\":[2,4]", CNA_ERROR_INVALID_DATA,
                "skins[0].joints[1]: nodes[4] is in the tree of nodes[4], joints[0] in the tree of nodes[0]; the "
                "joints have no common root");
}

/* skin.skeleton is a hint: one that is not every joint or one of its
 * ancestors is read as absent, the diagnostic skin-skeleton-hint-ignored. */
static void test_skin_skeleton_not_a_common_root_is_ignored(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_edit("\"skeleton\":2", "\"skeleton\":3");
    assert_int_equal(doc->skins[0].skeleton, -1);
    assert_int_equal(doc->diagnostic_count, 1);
    tu_expect_diag(doc, CNA_GLTF_DIAG_SKIN_SKELETON_HINT_IGNORED, 1,
                   "skins[0].skeleton: nodes[3] is not a common root of the skin's joints (not joints[0] (nodes[2]) "
                   "nor one of its ancestors); ignored");
    cna_gltf_document_free(doc);
    doc = load_edit("\"skeleton\":2", "\"skeleton\":0");
    assert_int_equal(doc->skins[0].skeleton, 0);
    assert_int_equal(doc->diagnostic_count, 0);
    cna_gltf_document_free(doc);
}

static void test_skinned_node_scene_must_contain_the_joints(void **state)
{
    (void)state;
    expect_edits("{\"name\":\"morph\",\"mesh\":1}", "{\"name\":\"morph\",\"mesh\":1,\"skin\":0}",
                 "\"scenes\":[{\"nodes\":[0,4]}]", "\"scenes\":[{\"nodes\":[0,4]},{\"nodes\":[4]}]",
                 CNA_ERROR_INVALID_DATA,
                 "nodes[4]: skinned by skins[0] in scenes[1], but the joints' common root (in the tree of nodes[0]) is "
                 "not in that scene");
}

static void test_inverse_bind_matrices_must_be_finite_and_affine(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    put_f32(bytes, 200 + 64 + 60, 2.0f);
    tu_expect_error(FIXTURE_JSON, bytes, FIX_SIZE, CNA_ERROR_INVALID_DATA,
                    "skins[0].inverseBindMatrices: matrix 1 has the last row (0, 0, 0, 2); expected (0, 0, 0, 1)");
    fixture_bytes(bytes);
    put_f32(bytes, 200 + 48, INFINITY);
    tu_expect_error(FIXTURE_JSON, bytes, FIX_SIZE, CNA_ERROR_INVALID_DATA,
                    "skins[0].inverseBindMatrices: matrix 0 has the non-finite value inf at 12");
}

static void test_animation_output_values_must_be_finite(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    put_f32(bytes, 56 + 12 + 4, INFINITY);
    tu_expect_error(FIXTURE_JSON, bytes, FIX_SIZE, CNA_ERROR_INVALID_DATA,
                    "animations[0].samplers[0].output: value inf at element 1 is not finite");
}

static void test_non_finite_vertex_value_is_a_diagnostic(void **state)
{
    (void)state;
    uint8_t bytes[FIX_SIZE];
    fixture_bytes(bytes);
    put_f32(bytes, 12, INFINITY);
    put_f32(bytes, 328 + 12 * 2 + 8, -INFINITY);
    cna_gltf_document *doc = tu_expect_ok(FIXTURE_JSON, bytes, FIX_SIZE);
    /* once per accessor: POSITION (shared by both meshes) and the morph target */
    tu_expect_diag(doc, CNA_GLTF_DIAG_VALUE_NOT_FINITE, 2,
                   "meshes[0].primitives[0].attributes.POSITION: accessors[0] has the value inf at vertex 1");
    cna_gltf_document_free(doc);
}

static void test_material_texcoord_set_missing_is_a_diagnostic(void **state)
{
    (void)state;
    cna_gltf_document *doc =
        load_edit("\"baseColorTexture\":{\"index\":0}", "\"baseColorTexture\":{\"index\":0,\"texCoord\":1}");
    tu_expect_diag(doc, CNA_GLTF_DIAG_TEXCOORD_MISSING, 1,
                   "meshes[0].primitives[0].material: materials[0].pbrMetallicRoughness.baseColorTexture.texCoord 1, "
                   "but the primitive has no TEXCOORD_1");
    cna_gltf_document_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_loads_with_every_field_and_no_diagnostic),
        cmocka_unit_test(test_index_out_of_range_names_path_and_count),
        cmocka_unit_test(test_node_with_two_parents_is_refused),
        cmocka_unit_test(test_node_listing_itself_is_a_cycle),
        cmocka_unit_test(test_cycle_through_single_parents_is_refused),
        cmocka_unit_test(test_scene_root_must_be_a_root),
        cmocka_unit_test(test_scene_root_listed_twice_is_refused),
        cmocka_unit_test(test_matrix_and_trs_together_are_refused),
        cmocka_unit_test(test_node_matrix_is_kept_column_major),
        cmocka_unit_test(test_skin_on_a_node_without_mesh_is_refused),
        cmocka_unit_test(test_skin_joint_listed_twice_is_refused),
        cmocka_unit_test(test_inverse_bind_matrices_fewer_than_joints_are_refused),
        cmocka_unit_test(test_inverse_bind_matrices_must_be_mat4_float),
        cmocka_unit_test(test_joints_must_be_unsigned_byte_or_short),
        cmocka_unit_test(test_weights_must_be_float_or_normalized),
        cmocka_unit_test(test_position_must_be_vec3_float),
        cmocka_unit_test(test_attribute_counts_must_be_equal),
        cmocka_unit_test(test_joints_need_matching_weights),
        cmocka_unit_test(test_attribute_given_twice_is_refused),
        cmocka_unit_test(test_index_values_must_be_below_vertex_count),
        cmocka_unit_test(test_indices_must_be_unsigned_scalar),
        cmocka_unit_test(test_primitive_mode_out_of_range_is_refused),
        cmocka_unit_test(test_primitive_mode_maps_gl_codes),
        cmocka_unit_test(test_morph_target_count_must_equal_vertex_count),
        cmocka_unit_test(test_morph_target_position_must_be_vec3),
        cmocka_unit_test(test_primitives_must_share_the_target_count),
        cmocka_unit_test(test_mesh_weights_must_match_target_count),
        cmocka_unit_test(test_node_weights_must_match_target_count),
        cmocka_unit_test(test_mesh_without_weights_gets_zero_weights),
        cmocka_unit_test(test_mesh_target_names_are_kept_one_string_per_target),
        cmocka_unit_test(test_mesh_target_names_of_the_wrong_count_or_type_are_a_diagnostic),
        cmocka_unit_test(test_skinned_mesh_needs_joints_and_weights),
        cmocka_unit_test(test_joint_index_must_be_below_joint_count),
        cmocka_unit_test(test_joint_index_with_zero_weight_is_ignored),
        cmocka_unit_test(test_animation_times_must_increase),
        cmocka_unit_test(test_animation_equal_times_are_a_diagnostic),
        cmocka_unit_test(test_animation_negative_time_is_refused),
        cmocka_unit_test(test_animation_nan_time_is_refused),
        cmocka_unit_test(test_animation_input_must_be_float_scalar),
        cmocka_unit_test(test_cubicspline_output_needs_three_values_per_key),
        cmocka_unit_test(test_weights_output_needs_one_value_per_target_and_key),
        cmocka_unit_test(test_rotation_output_must_be_vec4),
        cmocka_unit_test(test_weights_path_needs_morph_targets),
        cmocka_unit_test(test_two_channels_on_one_target_are_refused),
        cmocka_unit_test(test_channel_without_node_is_ignored_with_a_diagnostic),
        cmocka_unit_test(test_unknown_channel_path_is_ignored_with_a_diagnostic),
        cmocka_unit_test(test_unknown_interpolation_is_refused),
        cmocka_unit_test(test_accessor_range_beyond_buffer_view_is_refused),
        cmocka_unit_test(test_accessor_offset_must_be_aligned),
        cmocka_unit_test(test_buffer_view_stride_must_be_multiple_of_four_in_range),
        cmocka_unit_test(test_stride_smaller_than_element_is_refused),
        cmocka_unit_test(test_buffer_view_beyond_buffer_is_refused),
        cmocka_unit_test(test_buffer_shorter_than_byte_length_is_refused),
        cmocka_unit_test(test_buffer_longer_than_byte_length_is_a_diagnostic),
        cmocka_unit_test(test_normalized_float_is_refused),
        cmocka_unit_test(test_invalid_component_type_is_refused),
        cmocka_unit_test(test_hostile_numbers_are_refused_before_conversion),
        cmocka_unit_test(test_required_property_missing_is_named),
        cmocka_unit_test(test_deep_json_nesting_is_refused_cleanly),
        cmocka_unit_test(test_huge_all_zero_accessor_is_checked_without_scanning),
        cmocka_unit_test(test_asset_is_required),
        cmocka_unit_test(test_asset_version_other_than_2_is_unsupported),
        cmocka_unit_test(test_min_version_above_2_0_is_unsupported),
        cmocka_unit_test(test_unsupported_required_extension_is_named),
        cmocka_unit_test(test_optional_extension_is_ignored_with_a_diagnostic),
        cmocka_unit_test(test_texture_transform_and_emissive_strength_required_are_accepted),
        cmocka_unit_test(test_other_required_extensions_are_still_refused_by_name),
        cmocka_unit_test(test_mesh_quantization_required_is_accepted),
        cmocka_unit_test(test_json_syntax_error_gives_line_and_column),
        cmocka_unit_test(test_json_root_must_be_an_object),
        cmocka_unit_test(test_content_after_the_json_value_is_refused),
        cmocka_unit_test(test_minimal_document_with_trailing_whitespace_loads),
        cmocka_unit_test(test_top_level_property_must_be_an_array),
        cmocka_unit_test(test_object_entries_must_be_objects),
        cmocka_unit_test(test_alpha_mode_must_be_known),
        cmocka_unit_test(test_sampler_filter_must_be_a_gl_enum),
        cmocka_unit_test(test_unused_objects_are_a_diagnostic),
        cmocka_unit_test(test_cameras_are_skipped_with_a_diagnostic),
        cmocka_unit_test(test_non_unit_node_rotation_is_a_diagnostic),
        cmocka_unit_test(test_non_unit_rotation_key_is_a_diagnostic),
        cmocka_unit_test(test_weights_not_summing_to_one_are_a_diagnostic),
        cmocka_unit_test(test_unknown_attribute_is_refused_and_custom_is_kept),
        cmocka_unit_test(test_indexed_semantics_parse_their_set),
        cmocka_unit_test(test_empty_top_level_array_is_a_diagnostic),
        cmocka_unit_test(test_empty_children_and_scene_nodes_are_refused),
        cmocka_unit_test(test_json_byte_order_mark_is_refused),
        cmocka_unit_test(test_byte_offset_without_buffer_view_is_refused),
        cmocka_unit_test(test_mesh_quantization_object_on_an_accessor_is_ignored_with_a_diagnostic),
        cmocka_unit_test(test_buffer_data_uri_media_type_must_be_octet_stream_or_gltf_buffer),
        cmocka_unit_test(test_data_uri_parameter_must_be_attribute_value),
        cmocka_unit_test(test_byte_stride_above_byte_length_is_refused),
        cmocka_unit_test(test_index_data_must_not_have_a_stride),
        cmocka_unit_test(test_animated_node_must_not_have_a_matrix),
        cmocka_unit_test(test_animation_input_without_min_or_max_is_computed),
        cmocka_unit_test(test_position_without_min_or_max_is_a_diagnostic_and_bounds_come_from_the_data),
        cmocka_unit_test(test_attribute_sets_must_start_at_zero_and_be_consecutive),
        cmocka_unit_test(test_custom_attribute_must_not_be_unsigned_int),
        cmocka_unit_test(test_morph_target_attribute_needs_a_base_attribute),
        cmocka_unit_test(test_index_equal_to_primitive_restart_is_refused),
        cmocka_unit_test(test_tangent_w_must_be_plus_or_minus_one),
        cmocka_unit_test(test_node_matrix_must_be_trs),
        cmocka_unit_test(test_skin_joints_need_a_common_root),
        cmocka_unit_test(test_skin_skeleton_not_a_common_root_is_ignored),
        cmocka_unit_test(test_skinned_node_scene_must_contain_the_joints),
        cmocka_unit_test(test_inverse_bind_matrices_must_be_finite_and_affine),
        cmocka_unit_test(test_animation_output_values_must_be_finite),
        cmocka_unit_test(test_material_texcoord_set_missing_is_a_diagnostic),
        cmocka_unit_test(test_non_finite_vertex_value_is_a_diagnostic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
