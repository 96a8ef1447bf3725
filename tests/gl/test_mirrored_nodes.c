/*
 * Mirrored nodes (glTF 2.0, "Instantiation": a node whose global transform
 * has a negative determinant has its front faces wound clockwise), drawn
 * headless (EGL surfaceless; llvmpipe without a GPU), no multisampling.
 *
 * A closed box (24 vertices with per-face normals, its faces wound
 * counter-clockwise seen from outside) is instanced by a node with scale
 * (-1, 1, 1). Its twin is the same box mirrored by hand in the vertex data
 * (x and the normals' x negated, every triangle's winding reversed) under an
 * identity node, so that the two put the same surfaces in the same places
 * and should look the same. The pictures must be equal within 2/255 per
 * channel at every pixel, for a single-sided material (back faces culled)
 * and for a double-sided one (the faces' lighting uses gl_FrontFacing).
 * Drawn without regard to the mirror, the first would show the box's inside
 * (its far faces, with the front ones culled) and the second would be lit
 * from behind: both differ from the twin in thousands of pixels.
 *
 * With CNA_TEST_PNG_DIR set, the pictures are also written there as
 * mirrored-*.png for a look.
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

#include "gl/mesa_driver.h"

#include <cglm/cglm.h>

#include "cna/cna.h"
#include "cna/gl.h"
#include "gl/pixels.h"

enum { W = 256, H = 192, VERTS = 24, INDICES = 36 };
static const float BG[4] = {0.0f, 0.0f, 0.0f, 1.0f};

/* ------------------------------------------------------------ the box */

typedef struct box_bytes {
    float positions[VERTS][3];
    float normals[VERTS][3];
    uint16_t indices[INDICES];
} box_bytes;

/* The box x in [0.2, 1], y and z in [-0.4, 0.4]; mirrored: x and the
 * normals' x negated and the winding reversed, as a mirror by hand. */
static void make_box(box_bytes *b, bool mirrored)
{
    const float lo[3] = {0.2f, -0.4f, -0.4f}, hi[3] = {1.0f, 0.4f, 0.4f};
    int v = 0, i = 0;
    for (int axis = 0; axis < 3; axis++) {
        for (int sign = -1; sign <= 1; sign += 2) {
            /* tangents u, v with u x v = the outward normal */
            int ua = (axis + 1) % 3, va = (axis + 2) % 3;
            if (sign < 0) {
                int t = ua;
                ua = va;
                va = t;
            }
            const int su[4] = {0, 1, 1, 0}, sv[4] = {0, 0, 1, 1};
            for (int k = 0; k < 4; k++) {
                float p[3], n[3] = {0, 0, 0};
                p[axis] = sign > 0 ? hi[axis] : lo[axis];
                p[ua] = su[k] ? hi[ua] : lo[ua];
                p[va] = sv[k] ? hi[va] : lo[va];
                n[axis] = (float)sign;
                if (mirrored) {
                    p[0] = -p[0];
                    n[0] = -n[0];
                }
                memcpy(b->positions[v + k], p, sizeof p);
                memcpy(b->normals[v + k], n, sizeof n);
            }
            const int tri[6] = {0, 1, 2, 0, 2, 3}, rev[6] = {0, 2, 1, 0, 3, 2};
            for (int k = 0; k < 6; k++) b->indices[i++] = (uint16_t)(v + (mirrored ? rev[k] : tri[k]));
            v += 4;
        }
    }
}

static void base64(const unsigned char *in, size_t n, char *out)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t w = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = abc[w >> 18 & 63];
        out[o++] = abc[w >> 12 & 63];
        out[o++] = i + 1 < n ? abc[w >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? abc[w & 63] : '=';
    }
    out[o] = '\0';
}

/* A model of one node instancing the box: the node scaled (-1, 1, 1) with
 * the plain box (mirrored_node), or the identity with the box mirrored by hand. */
static cna_model *box_model(bool mirrored_node, bool double_sided)
{
    box_bytes b;
    make_box(&b, !mirrored_node);
    char data[4 * sizeof b / 3 + 8];
    base64((const unsigned char *)&b, sizeof b, data);
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = hi[k] = b.positions[0][k];
        for (int v = 1; v < VERTS; v++) {
            lo[k] = fminf(lo[k], b.positions[v][k]);
            hi[k] = fmaxf(hi[k], b.positions[v][k]);
        }
    }
    char *json = malloc(sizeof data + 2048);
    assert_non_null(json);
    snprintf(json, sizeof data + 2048,
             "{\"asset\":{\"version\":\"2.0\"},"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%zu},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\","
             "\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g]},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\"},"
             "{\"bufferView\":2,\"componentType\":5123,\"count\":%d,\"type\":\"SCALAR\"}],"
             "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.8,0.55,0.3,1],"
             "\"metallicFactor\":0},\"doubleSided\":%s}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},\"indices\":2,"
             "\"material\":0}]}],"
             "\"nodes\":[{\"mesh\":0%s}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}",
             sizeof b, data, sizeof b.positions, offsetof(box_bytes, normals), sizeof b.normals,
             offsetof(box_bytes, indices), sizeof b.indices, VERTS, (double)lo[0], (double)lo[1], (double)lo[2],
             (double)hi[0], (double)hi[1], (double)hi[2], VERTS, INDICES, double_sided ? "true" : "false",
             mirrored_node ? ",\"scale\":[-1,1,1]" : "");
    cna_error err;
    cna_gltf_document *doc = NULL;
    if (cna_gltf_load_memory(json, strlen(json), NULL, &doc, &err) != CNA_OK) fail_msg("glTF: %s", err.message);
    free(json);
    cna_model *m = NULL;
    if (cna_model_import_gltf(doc, NULL, &m, &err) != CNA_OK) fail_msg("import: %s", err.message);
    cna_gltf_document_free(doc);
    return m;
}

/* ------------------------------------------------------------ drawing */

/* The model drawn alone, seen from the front-right, above, read back. */
static unsigned char *draw(cna_gl_context *gl, const cna_model *m)
{
    cna_error err;
    cna_character *c = NULL;
    cna_gl_model *glm = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    if (cna_gl_model_create(gl, m, &glm, &err) != CNA_OK) fail_msg("gl model: %s", err.message);
    vec3 eye = {0.9f, 1.1f, 2.4f}, target = {-0.6f, 0.0f, 0.0f}, up = {0.0f, 1.0f, 0.0f};
    mat4 view, proj;
    glm_lookat(eye, target, up, view);
    glm_perspective(glm_rad(40.0f), (float)W / (float)H, 0.1f, 20.0f, proj);
    cna_mat4 v, p;
    memcpy(v.m, view, sizeof v.m);
    memcpy(p.m, proj, sizeof p.m);
    cna_gl_begin_frame(gl, BG);
    if (cna_gl_draw_character(gl, glm, NULL, c, NULL, &v, &p, &err) != CNA_OK) fail_msg("draw: %s", err.message);
    unsigned char *px = malloc((size_t)W * H * 4);
    assert_non_null(px);
    assert_int_equal(cna_gl_read_pixels(gl, px, (size_t)W * H * 4, &err), CNA_OK);
    cna_gl_model_free(glm);
    cna_character_free(c);
    return px;
}

static void expect_mirrored_equals_twin(bool double_sided)
{
    cna_error err;
    cna_gl_context_options o;
    memset(&o, 0, sizeof o);
    o.width = W;
    o.height = H;
    cna_gl_context *gl = NULL;
    if (cna_gl_context_create(&o, &gl, &err) != CNA_OK) fail_msg("gl context: %s", err.message);
    cna_model *mirrored = box_model(true, double_sided), *twin = box_model(false, double_sided);
    unsigned char *a = draw(gl, mirrored), *b = draw(gl, twin);
    pixels_maybe_write("mirrored", double_sided ? "node-double-sided" : "node", a, W, H);
    pixels_maybe_write("mirrored", double_sided ? "twin-double-sided" : "twin", b, W, H);
    /* the box fills a good part of the picture (about a sixth) */
    size_t covered = pixels_drawn(b, (size_t)W * H);
    if (covered < (size_t)W * H / 10) fail_msg("the twin covers only %zu pixels", covered);
    size_t over = 0;
    int worst = pixels_compare(a, b, (size_t)W * H, 2, &over);
    if (over) fail_msg("%s: %zu pixels differ from the twin by more than 2/255 (at most %d/255)",
                       double_sided ? "double-sided" : "single-sided", over, worst);
    free(a);
    free(b);
    cna_model_free(mirrored);
    cna_model_free(twin);
    cna_gl_context_free(gl);
}

static void a_mirrored_node_looks_like_its_twin_mirrored_by_hand(void **state)
{
    (void)state;
    expect_mirrored_equals_twin(false);
}

static void a_mirrored_double_sided_node_is_lit_like_its_twin(void **state)
{
    (void)state;
    expect_mirrored_equals_twin(true);
}

int main(void)
{
    keep_mesa_driver_loaded();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_mirrored_node_looks_like_its_twin_mirrored_by_hand),
        cmocka_unit_test(a_mirrored_double_sided_node_is_lit_like_its_twin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
