/*
 * EXT_mesh_gpu_instancing: a node whose mesh is drawn once per instance,
 * instance i at node world · T(i) · R(i) · S(i).
 *
 * Reader: the fixture's TRANSLATION, ROTATION and SCALE accessors read back
 * the file's values exactly; the extension is accepted when required; a
 * normalized SHORT rotation reads as glTF normalises it; other attributes
 * are ignored with a diagnostic; wrong counts, non-finite values, wrong
 * accessor types, a node without a mesh and an empty attribute object are
 * refused with messages naming the node, the attribute and the accessor.
 * Model: each instance matrix equals, bit for bit, the local transform of
 * the matching child node of the fixture's five-node twin; the bounds hold
 * every instance; the model size is the twin's. .cnb: a round trip gives the
 * same matrices and the same bytes again; a unit scale scales their
 * translations; damaged INSTANCES records are refused naming the field.
 * Magnitude rule: an instance TRANSLATION, ROTATION or SCALE value above 1e18
 * in magnitude, an instance world (node world · instance) or positions as
 * drawn that could pass 1e18 are refused with CNA_ERROR_LIMIT, naming the
 * node, the attribute or instance and the value.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "baked/cnb_internal.h"
#include "cna/cna.h"
#include "gltf/gltf_test_util.h"

#define INSTANCED "fixtures/instancing.gltf"
#define TWIN "fixtures/instancing-nodes.gltf"
#define EXT_PATH "nodes[0].extensions.EXT_mesh_gpu_instancing"

static const float T[5][3] = {{-2.0f, 0.0f, 0.0f}, {-1.0f, 0.25f, 0.0f}, {0.0f, 0.0f, 0.5f}, {1.0f, -0.25f, 0.0f},
                              {2.0f, 0.0f, -0.5f}};
static const float R[5][4] = {{0.0f, 0.0f, 0.0f, 1.0f}, {0.0f, 0.6f, 0.0f, 0.8f}, {0.6f, 0.0f, 0.0f, 0.8f},
                              {0.0f, 0.0f, 0.8f, 0.6f}, {0.28f, 0.96f, 0.0f, 0.0f}};
static const float S[5][3] = {{1.0f, 1.0f, 1.0f}, {0.5f, 0.5f, 0.5f}, {1.5f, 0.75f, 1.0f}, {0.75f, 0.75f, 0.75f},
                              {-0.8f, 0.8f, 0.8f}};

static char *slurp(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    size_t size = 0;
    uint8_t *bytes = tu_read_file(path, &size);
    char *text = (char *)malloc(size + 1);
    assert_non_null(text);
    memcpy(text, bytes, size);
    text[size] = '\0';
    free(bytes);
    return text;
}

static cna_gltf_document *load_doc(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    cna_gltf_document *doc = NULL;
    cna_error err;
    if (cna_gltf_load_file(path, NULL, &doc, &err) != CNA_OK) fail_msg("%s: %s", rel, err.message);
    return doc;
}

static cna_model *load_model(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(path, NULL, &m, &err) != CNA_OK) fail_msg("%s: %s", rel, err.message);
    return m;
}

static void expect_text_error(const char *json, const char *message)
{
    tu_expect_error(json, NULL, 0, CNA_ERROR_INVALID_DATA, message);
}

/* ------------------------------------------------------------ a small document of our own */

/* A triangle instanced twice: TRANSLATION (accessor 1), ROTATION as
 * normalized SHORT (2), SCALE (3) and an _ID attribute (4, SCALAR FLOAT). */
static const char small_json[] =
    "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_mesh_gpu_instancing\"],"
    "\"buffers\":[{\"byteLength\":108,\"uri\":\"@BUF@\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},"
    "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24},{\"buffer\":0,\"byteOffset\":60,\"byteLength\":16},"
    "{\"buffer\":0,\"byteOffset\":76,\"byteLength\":24},{\"buffer\":0,\"byteOffset\":100,\"byteLength\":8}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
    "\"min\":[0,0,0],\"max\":[1,1,0]},"
    "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
    "{\"bufferView\":2,\"componentType\":5122,\"normalized\":true,\"count\":2,\"type\":\"VEC4\"},"
    "{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
    "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
    "\"nodes\":[{\"mesh\":0,\"extensions\":{\"EXT_mesh_gpu_instancing\":{\"attributes\":"
    "{\"TRANSLATION\":1,\"ROTATION\":2,\"SCALE\":3,\"_ID\":4}}}}],"
    "\"scenes\":[{\"nodes\":[0]}]}";

static void small_bytes(uint8_t b[108], float bad_translation)
{
    memset(b, 0, 108);
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    for (int i = 0; i < 9; i++) tu_put_f32(b + 4 * i, pos[i]);
    const float t[6] = {1, 2, 3, bad_translation, 5, 6};
    for (int i = 0; i < 6; i++) tu_put_f32(b + 36 + 4 * i, t[i]);
    const uint32_t q[8] = {0, 0, 0, 32767, 0, 23170, 0, 23170};
    for (int i = 0; i < 8; i++) tu_put_u16(b + 60 + 2 * i, q[i]);
    const float s[6] = {1, 1, 1, 2, 2, 2};
    for (int i = 0; i < 6; i++) tu_put_f32(b + 76 + 4 * i, s[i]);
    tu_put_f32(b + 100, 7.0f);
    tu_put_f32(b + 104, 8.0f);
}

/* ------------------------------------------------------------ reader */

static void the_reader_gives_the_files_instance_trs(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_doc(INSTANCED);
    assert_int_equal(doc->extensions_required_count, 1);
    const cna_gltf_node *n = &doc->nodes[0];
    assert_int_equal(n->mesh, 0);
    assert_int_equal(n->instance_count, 5);
    assert_int_equal(n->instance_translation, 3);
    assert_int_equal(n->instance_rotation, 4);
    assert_int_equal(n->instance_scale, 5);
    cna_error err;
    for (size_t i = 0; i < 5; i++) {
        float t[3], r[4], s[3];
        assert_int_equal(cna_gltf_accessor_read_element_floats(doc, n->instance_translation, i, t, 3, &err), CNA_OK);
        assert_int_equal(cna_gltf_accessor_read_element_floats(doc, n->instance_rotation, i, r, 4, &err), CNA_OK);
        assert_int_equal(cna_gltf_accessor_read_element_floats(doc, n->instance_scale, i, s, 3, &err), CNA_OK);
        assert_memory_equal(t, T[i], sizeof t);
        assert_memory_equal(r, R[i], sizeof r);
        assert_memory_equal(s, S[i], sizeof s);
    }
    assert_int_equal(cna_gltf_document_diagnostic_count(doc), 0);
    cna_gltf_document_free(doc);
    /* the twin has no instanced node */
    doc = load_doc(TWIN);
    for (size_t i = 0; i < doc->node_count; i++) {
        assert_int_equal(doc->nodes[i].instance_count, 0);
        assert_int_equal(doc->nodes[i].instance_translation, -1);
        assert_int_equal(doc->nodes[i].instance_rotation, -1);
        assert_int_equal(doc->nodes[i].instance_scale, -1);
    }
    cna_gltf_document_free(doc);
}

static void other_attributes_are_ignored_with_a_diagnostic(void **state)
{
    (void)state;
    uint8_t b[108];
    small_bytes(b, 4.0f);
    cna_gltf_document *doc = tu_expect_ok(small_json, b, sizeof b);
    const cna_gltf_node *n = &doc->nodes[0];
    assert_int_equal(n->instance_count, 2);
    assert_int_equal(n->instance_rotation, 2);
    tu_expect_diag(doc, CNA_GLTF_DIAG_INSTANCE_ATTRIBUTE_IGNORED, 1,
                   EXT_PATH ".attributes._ID: the attribute is not used by cna (ignored)");
    assert_null(cna_gltf_document_find_diagnostic(doc, CNA_GLTF_DIAG_UNUSED_OBJECT));
    /* the normalized SHORT rotation: c / 32767 */
    float q[4];
    cna_error err;
    assert_int_equal(cna_gltf_accessor_read_element_floats(doc, 2, 1, q, 4, &err), CNA_OK);
    assert_float_equal(q[1], 23170.0f / 32767.0f, 1e-7f);
    assert_float_equal(q[3], 23170.0f / 32767.0f, 1e-7f);
    cna_model *m = NULL;
    assert_int_equal(cna_model_import_gltf(doc, NULL, &m, &err), CNA_OK);
    assert_int_equal(m->meshes[0].instance_count, 2);
    /* instance 0: T(1, 2, 3), identity rotation and scale */
    const float want0[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1};
    assert_memory_equal(m->meshes[0].instances[0].m, want0, sizeof want0);
    /* instance 1: T(4, 5, 6) · R(90 degrees about y) · S(2): x -> -z, z -> x */
    const float want1[16] = {0, 0, -2, 0, 0, 2, 0, 0, 2, 0, 0, 0, 4, 5, 6, 1};
    for (int k = 0; k < 16; k++) assert_float_equal(m->meshes[0].instances[1].m[k], want1[k], 1e-4f);
    cna_model_free(m);
    cna_gltf_document_free(doc);
}

static void bad_instancing_is_refused_naming_node_attribute_and_accessor(void **state)
{
    (void)state;
    char *text = slurp(INSTANCED);
    /* counts differ */
    char *e = tu_edit(text, "\"bufferView\": 4,\n   \"componentType\": 5126,\n   \"type\": \"VEC4\",\n   \"count\": 5",
                      "\"bufferView\": 4,\n   \"componentType\": 5126,\n   \"type\": \"VEC4\",\n   \"count\": 4");
    expect_text_error(e, EXT_PATH ".attributes.ROTATION: accessors[4] has 4 elements; TRANSLATION has 5");
    free(e);
    /* a node without a mesh */
    e = tu_edit(text, "\"mesh\": 0,", "");
    expect_text_error(e, EXT_PATH ": the node has no mesh to instance");
    free(e);
    /* accessor types */
    e = tu_edit(text, "\"TRANSLATION\": 3", "\"TRANSLATION\": 4");
    expect_text_error(e, EXT_PATH ".attributes.TRANSLATION: accessors[4] is VEC4 FLOAT; expected VEC3 FLOAT");
    free(e);
    e = tu_edit(text, "\"ROTATION\": 4", "\"ROTATION\": 5");
    expect_text_error(e, EXT_PATH ".attributes.ROTATION: accessors[5] is VEC3 FLOAT; expected VEC4 FLOAT or "
                         "normalized BYTE/SHORT");
    free(e);
    e = tu_edit(text, "\"SCALE\": 5", "\"SCALE\": 9");
    expect_text_error(e, EXT_PATH ".attributes.SCALE: 9 is out of range (6 accessors)");
    free(e);
    e = tu_edit(text, "\"TRANSLATION\": 3,\n      \"ROTATION\": 4,\n      \"SCALE\": 5", "");
    expect_text_error(e, EXT_PATH ".attributes: no attributes; at least one is required");
    free(e);
    e = tu_edit(text, "\"attributes\": {\n      \"TRANSLATION\"", "\"attributez\": {\n      \"TRANSLATION\"");
    expect_text_error(e, EXT_PATH ".attributes: missing");
    free(e);
    free(text);
    /* a non-finite value */
    uint8_t b[108];
    small_bytes(b, INFINITY);
    tu_expect_error(small_json, b, sizeof b, CNA_ERROR_INVALID_DATA,
                    EXT_PATH ".attributes.TRANSLATION: accessors[1] element 1 is not finite (inf)");
    small_bytes(b, NAN);
    tu_expect_error(small_json, b, sizeof b, CNA_ERROR_INVALID_DATA,
                    EXT_PATH ".attributes.TRANSLATION: accessors[1] element 1 is not finite (nan)");
    /* a normalized rotation component type the extension does not allow */
    char *u = tu_edit(small_json, "\"componentType\":5122,\"normalized\":true", "\"componentType\":5123,\"normalized\":true");
    tu_expect_error(u, b, sizeof b, CNA_ERROR_INVALID_DATA,
                    EXT_PATH ".attributes.ROTATION: accessors[2] is VEC4 normalized UNSIGNED_SHORT; expected VEC4 "
                    "FLOAT or normalized BYTE/SHORT");
    free(u);
}

/* ------------------------------------------------------------ model */

static void instance_matrices_are_the_twins_node_transforms(void **state)
{
    (void)state;
    cna_model *a = load_model(INSTANCED), *b = load_model(TWIN);
    assert_int_equal(a->mesh_count, 1);
    assert_int_equal(b->mesh_count, 5);
    const cna_model_mesh *mesh = &a->meshes[0];
    assert_int_equal(mesh->instance_count, 5);
    assert_non_null(mesh->instances);
    for (size_t i = 0; i < 5; i++) {
        /* twin bones: 0 the parent (the instancing node's transform), 1 .. 5 the boxes */
        assert_int_equal(b->meshes[i].instance_count, 0);
        assert_null(b->meshes[i].instances);
        assert_int_equal(b->meshes[i].parent_bone, (int32_t)i + 1);
        assert_memory_equal(mesh->instances[i].m, b->bones[i + 1].rest_transform.m, sizeof(cna_mat4));
    }
    /* instance 0 is a pure translation */
    const float want0[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -2, 0, 0, 1};
    assert_memory_equal(mesh->instances[0].m, want0, sizeof want0);
    assert_memory_equal(a->bones[0].rest_transform.m, b->bones[0].rest_transform.m, sizeof(cna_mat4));
    assert_true(a->size == b->size);
    /* the bounds (parent bone space) hold every corner of every instance */
    for (size_t i = 0; i < 5; i++)
        for (int c = 0; c < 8; c++) {
            cna_vec3 p = cna_vec3_make(c & 1 ? 0.25f : -0.25f, c & 2 ? 0.25f : -0.25f, c & 4 ? 0.25f : -0.25f);
            cna_vec3 q = cna_mat4_transform_point(&mesh->instances[i], p);
            float dx = q.x - mesh->bounds.center.x, dy = q.y - mesh->bounds.center.y, dz = q.z - mesh->bounds.center.z;
            assert_true(sqrtf(dx * dx + dy * dy + dz * dz) <= mesh->bounds.radius * (1.0f + 1e-6f));
        }
    assert_true(mesh->bounds.radius > 2.0f);
    cna_model_free(a);
    cna_model_free(b);
}

/* ------------------------------------------------------------ .cnb */

static void *write_cnb(const cna_model *m, float scale, size_t *size)
{
    cna_cnb_write_options o;
    memset(&o, 0, sizeof o);
    o.unit_scale = scale;
    void *bytes = NULL;
    cna_error err;
    if (cna_cnb_write_memory(m, &o, &bytes, size, &err) != CNA_OK) fail_msg("write: %s", err.message);
    return bytes;
}

static void a_cnb_round_trip_keeps_the_instances_bit_for_bit(void **state)
{
    (void)state;
    cna_model *a = load_model(INSTANCED);
    size_t size = 0, size2 = 0;
    void *bytes = write_cnb(a, 1.0f, &size);
    cna_model *b = NULL;
    cna_error err;
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &b, &err), CNA_OK);
    assert_int_equal(b->meshes[0].instance_count, 5);
    assert_memory_equal(b->meshes[0].instances, a->meshes[0].instances, 5 * sizeof(cna_mat4));
    assert_memory_equal(&b->meshes[0].bounds, &a->meshes[0].bounds, sizeof a->meshes[0].bounds);
    void *again = write_cnb(b, 1.0f, &size2);
    assert_int_equal(size2, size);
    assert_memory_equal(again, bytes, size);
    /* the INSTANCES section: one record */
    uint64_t count = 0;
    memcpy(&count, (unsigned char *)bytes + CNA__CNB_HEADER_SIZE + (CNA__CNB_INSTANCES - 1) * CNA__CNB_SECTION_ENTRY_SIZE + 24,
           8);
    assert_int_equal(count, 1);
    cna_cnb_bytes_free(NULL, again);
    cna_model_free(b);
    /* a unit scale of 2 doubles the translations only */
    cna_cnb_bytes_free(NULL, bytes);
    bytes = write_cnb(a, 2.0f, &size);
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &b, &err), CNA_OK);
    for (size_t i = 0; i < 5; i++)
        for (int k = 0; k < 16; k++) {
            float want = a->meshes[0].instances[i].m[k] * (k >= 12 && k < 15 ? 2.0f : 1.0f);
            assert_true(b->meshes[0].instances[i].m[k] == want);
        }
    cna_model_free(b);
    cna_cnb_bytes_free(NULL, bytes);
    /* a model without instances writes an empty INSTANCES section */
    cna_model *t = load_model(TWIN);
    bytes = write_cnb(t, 1.0f, &size);
    memcpy(&count, (unsigned char *)bytes + CNA__CNB_HEADER_SIZE + (CNA__CNB_INSTANCES - 1) * CNA__CNB_SECTION_ENTRY_SIZE + 24,
           8);
    assert_int_equal(count, 0);
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &b, &err), CNA_OK);
    for (size_t i = 0; i < b->mesh_count; i++) assert_null(b->meshes[i].instances);
    cna_model_free(b);
    cna_cnb_bytes_free(NULL, bytes);
    cna_model_free(t);
    cna_model_free(a);
}

typedef struct cnb_damage {
    size_t at;          /* byte offset in the INSTANCES record, or in the DATA array when in_data */
    bool in_data;
    uint64_t value;     /* written as 8 bytes, or as a float when is_float */
    bool is_float;
    float f;
    const char *message;
} cnb_damage;

static void damaged_instances_are_refused_naming_the_field(void **state)
{
    (void)state;
    cna_model *a = load_model(INSTANCED);
    size_t size = 0;
    unsigned char *clean = (unsigned char *)write_cnb(a, 1.0f, &size);
    uint64_t sec = 0, data = 0, ref = 0;
    memcpy(&sec, clean + CNA__CNB_HEADER_SIZE + (CNA__CNB_INSTANCES - 1) * CNA__CNB_SECTION_ENTRY_SIZE + 8, 8);
    memcpy(&data, clean + CNA__CNB_HEADER_SIZE + (CNA__CNB_DATA - 1) * CNA__CNB_SECTION_ENTRY_SIZE + 8, 8);
    memcpy(&ref, clean + sec + 8, 8);
    const cnb_damage cases[] = {
        {0, false, 1, false, 0, "cnb: instances[0].mesh: 1 is not below the 1 meshes"},
        {24, false, 0, false, 0, "cnb: instances[0].count: 0; an instanced mesh has at least 1 instance"},
        {24, false, 6, false, 0, "cnb: instances[0].matrices: 320 bytes; 6 elements of 64 bytes are needed"},
        {8, false, 8, false, 0,
         "cnb: instances[0].matrices: 320 bytes at 8 are outside DATA (%zu bytes) or not 16-byte aligned"},
        {2 * 64 + 13 * 4, true, 0, true, NAN, "cnb: instances[0].matrices[2]: not finite"},
        {3 * 4, true, 0, true, 1.0f, "cnb: instances[0].matrices[0]: the last row (1, 0, 0, 1) is not (0, 0, 0, 1)"},
    };
    uint64_t data_size = 0;
    memcpy(&data_size, clean + CNA__CNB_HEADER_SIZE + (CNA__CNB_DATA - 1) * CNA__CNB_SECTION_ENTRY_SIZE + 16, 8);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned char *f = (unsigned char *)malloc(size);
        assert_non_null(f);
        memcpy(f, clean, size);
        unsigned char *p = cases[k].in_data ? f + data + ref + cases[k].at : f + sec + cases[k].at;
        if (cases[k].is_float) memcpy(p, &cases[k].f, 4);
        else memcpy(p, &cases[k].value, 8);
        uint64_t h = cna__cnb_checksum(f, size);
        memcpy(f + CNA__CNB_OFF_CHECKSUM, &h, 8);
        cna_model *m = NULL;
        cna_error err;
        assert_int_equal(cna_cnb_load_memory(f, size, NULL, &m, &err), CNA_ERROR_INVALID_DATA);
        assert_null(m);
        char want[256];
        snprintf(want, sizeof want, cases[k].message, (size_t)data_size);
        assert_string_equal(err.message, want);
        free(f);
    }
    cna_cnb_bytes_free(NULL, clean);
    cna_model_free(a);
}

/* ------------------------------------------------------------ magnitude rule */

/* A triangle (positions up to 1) on node "rocks" of uniform scale node_scale,
 * instanced twice with FLOAT TRANSLATION, ROTATION and SCALE: instance 0 is
 * the identity, instance 1 T(0, 0, 5) · R(q) · S(s, s, s) with its
 * attribute `bad` (0 T, 1 R, 2 S) set to (v, 0, 0[, 1]). */
static cna_result import_instanced(float node_scale, float s, int bad, float v, cna_model **m, cna_error *err)
{
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_mesh_gpu_instancing\"],"
        "\"buffers\":[{\"byteLength\":116,\"uri\":\"@BUF@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},"
        "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24},{\"buffer\":0,\"byteOffset\":60,\"byteLength\":32},"
        "{\"buffer\":0,\"byteOffset\":92,\"byteLength\":24}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[1,1,0]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"},"
        "{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
        "\"nodes\":[{\"name\":\"rocks\",\"mesh\":0,\"scale\":[@S@,@S@,@S@],\"extensions\":{\"EXT_mesh_gpu_instancing\":"
        "{\"attributes\":{\"TRANSLATION\":1,\"ROTATION\":2,\"SCALE\":3}}}}],"
        "\"scenes\":[{\"nodes\":[0]}]}";
    uint8_t b[116];
    memset(b, 0, sizeof b);
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    for (int i = 0; i < 9; i++) tu_put_f32(b + 4 * i, pos[i]);
    float t[6] = {0, 0, 0, 0, 0, 5}, q[8] = {0, 0, 0, 1, 0, 0, 0, 1}, sc[6] = {1, 1, 1, s, s, s};
    if (bad == 0) t[3] = v, t[4] = 0, t[5] = 0;
    if (bad == 1) q[4] = v;
    if (bad == 2) sc[3] = v;
    for (int i = 0; i < 6; i++) tu_put_f32(b + 36 + 4 * i, t[i]);
    for (int i = 0; i < 8; i++) tu_put_f32(b + 60 + 4 * i, q[i]);
    for (int i = 0; i < 6; i++) tu_put_f32(b + 92 + 4 * i, sc[i]);
    char scale[32];
    snprintf(scale, sizeof scale, "%.9g", (double)node_scale);
    char *text = tu_replace_all(json, "@S@", scale, NULL);
    cna_gltf_document *doc = NULL;
    cna_result r = tu_load(text, b, sizeof b, NULL, &doc, err);
    if (r) print_error("reader: %s\n", err->message);
    assert_int_equal(r, CNA_OK);
    *m = NULL;
    r = cna_model_import_gltf(doc, NULL, m, err);
    if (r) assert_null(*m);
    cna_gltf_document_free(doc);
    free(text);
    return r;
}

static void expect_instance_limit(float node_scale, float s, int bad, float v, const char *want)
{
    cna_model *m;
    cna_error err;
    cna_result r = import_instanced(node_scale, s, bad, v, &m, &err);
    if (r != CNA_ERROR_LIMIT || strcmp(err.message, want) != 0)
        print_error("want %s\n got %s: %s\n", want, cna_result_name(r), r ? err.message : "ok");
    assert_int_equal(r, CNA_ERROR_LIMIT);
    assert_string_equal(err.message, want);
}

static void instance_values_past_the_magnitude_limit_are_refused_naming_them(void **state)
{
    (void)state;
    /* the values themselves: none above 1e18 in magnitude */
    expect_instance_limit(1, 1, 0, 3e38f,
                          "nodes[0] \"rocks\": EXT_mesh_gpu_instancing TRANSLATION of instance 1 is 3e+38; at "
                          "most 1e+18 is supported");
    expect_instance_limit(1, 1, 1, -3e38f,
                          "nodes[0] \"rocks\": EXT_mesh_gpu_instancing ROTATION of instance 1 is -3e+38; at most "
                          "1e+18 is supported");
    expect_instance_limit(1, 1, 2, 2e18f,
                          "nodes[0] \"rocks\": EXT_mesh_gpu_instancing SCALE of instance 1 is 2e+18; at most "
                          "1e+18 is supported");
    /* the product with the node's world: 1e10 · 1e10 */
    expect_instance_limit(1e10f, 1e10f, -1, 0,
                          "nodes[0] \"rocks\": EXT_mesh_gpu_instancing instance 1's world transform may reach "
                          "1e+20 (instance scale up to 1e+10, translation 5, under the node's world scale up to "
                          "1e+10); at most 1e+18 is supported");
    /* the positions as drawn: 1e9 · (1e9 · 1 + 5) */
    expect_instance_limit(1e9f, 1e9f, -1, 0,
                          "meshes[0].primitives[0]: positions as drawn (unskinned, then each instance's transform "
                          "and nodes[0]'s world) may reach 1e+18; at most 1e+18 is supported");
    /* large values within the limit load */
    static const struct {
        float node_scale, s, v;
        int bad;
    } ok[] = {{1, 1, 1e17f, 0}, {1, 1, 1e17f, 1}, {1, 1e17f, -1e17f, 2}, {1e4f, 1e4f, 0, -1}};
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        cna_model *m;
        cna_error err;
        cna_result r = import_instanced(ok[k].node_scale, ok[k].s, ok[k].bad, ok[k].v, &m, &err);
        if (r) print_error("%zu: %s\n", k, err.message);
        assert_int_equal(r, CNA_OK);
        assert_int_equal(m->meshes[0].instance_count, 2);
        cna_model_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_reader_gives_the_files_instance_trs),
        cmocka_unit_test(other_attributes_are_ignored_with_a_diagnostic),
        cmocka_unit_test(bad_instancing_is_refused_naming_node_attribute_and_accessor),
        cmocka_unit_test(instance_matrices_are_the_twins_node_transforms),
        cmocka_unit_test(a_cnb_round_trip_keeps_the_instances_bit_for_bit),
        cmocka_unit_test(damaged_instances_are_refused_naming_the_field),
        cmocka_unit_test(instance_values_past_the_magnitude_limit_are_refused_naming_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
