/*
 * EXT_mesh_gpu_instancing drawn headless (EGL surfaceless; llvmpipe without
 * a GPU), no multisampling.
 *
 * tests/data/fixtures/instancing.gltf instances an orange box five times
 * (different translations, rotations and scales, one of them mirrored) under
 * a node with its own transform; instancing-nodes.gltf is its twin, the
 * same node transform on a parent of five plain child nodes with the
 * instances' transforms. The instanced model (one instanced draw call per
 * part, a second one for the mirrored instance) must give the twin's
 * picture within 2/255 per channel at every pixel, and differ from the same
 * model drawn without its instances (one box at the node, what a reader
 * ignoring the extension shows) in thousands of pixels. A draw given
 * instances without a buffer (uploaded for the call) gives the same picture.
 *
 * A skinned mesh instanced (instancing-skinned.gltf, posed half way through
 * its bend) equals, within 2/255, the same model drawn once per instance
 * without its instances, each with the placement world · instance ·
 * inverse(world): the instance applies after skinning, in the node's space.
 *
 * With CNA_TEST_PNG_DIR set, the pictures are also written there as
 * instancing-*.png for a look.
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

enum { W = 320, H = 200 };
static const float BG[4] = {0.0f, 0.0f, 0.0f, 1.0f};

static cna_model *load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(path, NULL, &m, &err) != CNA_OK) fail_msg("%s: %s", rel, err.message);
    return m;
}

static void camera(cna_mat4 *v, cna_mat4 *p)
{
    vec3 eye = {0.6f, 1.5f, 3.8f}, target = {0.0f, 0.4f, 0.0f}, up = {0.0f, 1.0f, 0.0f};
    mat4 view, proj;
    glm_lookat(eye, target, up, view);
    glm_perspective(glm_rad(40.0f), (float)W / (float)H, 0.1f, 20.0f, proj);
    memcpy(v->m, view, sizeof v->m);
    memcpy(p->m, proj, sizeof p->m);
}

static unsigned char *read_back(cna_gl_context *gl)
{
    cna_error err;
    unsigned char *px = malloc((size_t)W * H * 4);
    assert_non_null(px);
    assert_int_equal(cna_gl_read_pixels(gl, px, (size_t)W * H * 4, &err), CNA_OK);
    return px;
}

/* The model drawn alone through cna_gl_draw_character, read back. */
static unsigned char *draw(cna_gl_context *gl, const cna_model *m)
{
    cna_error err;
    cna_character *c = NULL;
    cna_gl_model *glm = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    if (cna_gl_model_create(gl, m, &glm, &err) != CNA_OK) fail_msg("gl model: %s", err.message);
    cna_mat4 v, p;
    camera(&v, &p);
    cna_gl_begin_frame(gl, BG);
    if (cna_gl_draw_character(gl, glm, NULL, c, NULL, &v, &p, &err) != CNA_OK) fail_msg("draw: %s", err.message);
    unsigned char *px = read_back(gl);
    cna_gl_model_free(glm);
    cna_character_free(c);
    return px;
}

/* The instanced mesh drawn with cna_gl_draw, its matrices given without a
 * buffer (the context uploads them for the call). */
static unsigned char *draw_own(cna_gl_context *gl, const cna_model *m)
{
    cna_error err;
    cna_character *c = NULL;
    cna_gl_model *glm = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    if (cna_gl_model_create(gl, m, &glm, &err) != CNA_OK) fail_msg("gl model: %s", err.message);
    cna_mat4 v, p;
    camera(&v, &p);
    const cna_model_mesh *mesh = &m->meshes[0];
    const cna_model_part *part = &mesh->parts[0];
    cna_gl_draw_desc d;
    memset(&d, 0, sizeof d);
    d.declaration = &part->declaration;
    assert_int_equal(cna_gl_model_part_buffers(glm, 0, 0, &d.vertex_buffer, &d.index_buffer, &err), CNA_OK);
    d.index_count = part->index_count;
    d.effect = &m->effects[part->effect];
    d.world = cna_character_absolute_transform(c, (size_t)mesh->parent_bone);
    d.view = &v;
    d.projection = &p;
    d.instances = mesh->instances;
    d.instance_count = mesh->instance_count;
    cna_gl_begin_frame(gl, BG);
    if (cna_gl_draw(gl, &d, &err) != CNA_OK) fail_msg("draw: %s", err.message);
    unsigned char *px = read_back(gl);
    /* instances promised but not given: refused, nothing drawn */
    d.instances = NULL;
    assert_int_equal(cna_gl_draw(gl, &d, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "gl draw: instance_count 5 but no instances");
    cna_gl_model_free(glm);
    cna_character_free(c);
    return px;
}

static void the_instanced_file_looks_like_its_five_node_twin(void **state)
{
    (void)state;
    cna_error err;
    cna_gl_context_options o;
    memset(&o, 0, sizeof o);
    o.width = W;
    o.height = H;
    cna_gl_context *gl = NULL;
    if (cna_gl_context_create(&o, &gl, &err) != CNA_OK) fail_msg("gl context: %s", err.message);
    cna_model *inst = load("fixtures/instancing.gltf"), *twin = load("fixtures/instancing-nodes.gltf");
    cna_model *once = load("fixtures/instancing.gltf");
    assert_int_equal(inst->meshes[0].instance_count, 5);
    /* what a reader ignoring the extension draws: the box once, at the node */
    once->meshes[0].instances = NULL;
    once->meshes[0].instance_count = 0;
    unsigned char *a = draw(gl, inst), *b = draw(gl, twin), *c = draw(gl, once), *d = draw_own(gl, inst);
    pixels_maybe_write("instancing", "instanced", a, W, H);
    pixels_maybe_write("instancing", "twin", b, W, H);
    pixels_maybe_write("instancing", "once", c, W, H);
    pixels_maybe_write("instancing", "own-draw", d, W, H);
    size_t covered = pixels_drawn(b, (size_t)W * H);
    if (covered < 3000) fail_msg("the twin covers only %zu pixels", covered);
    size_t over = 0;
    int worst = pixels_compare(a, b, (size_t)W * H, 2, &over);
    if (over) fail_msg("%zu pixels differ from the twin by more than 2/255 (at most %d/255)", over, worst);
    worst = pixels_compare(d, b, (size_t)W * H, 2, &over);
    if (over) fail_msg("own draw: %zu pixels differ from the twin by more than 2/255 (at most %d/255)", over, worst);
    pixels_compare(c, b, (size_t)W * H, 2, &over);
    if (over < 2000) fail_msg("drawn once, only %zu pixels differ from the twin", over);
    assert_true(pixels_drawn(c, (size_t)W * H) < covered / 2);
    free(a);
    free(b);
    free(c);
    free(d);
    cna_model_free(inst);
    cna_model_free(twin);
    cna_model_free(once);
    cna_gl_context_free(gl);
}

/* The skinned box, instanced, against its instances drawn one by one. */
static void a_skinned_instanced_mesh_applies_each_instance_after_skinning(void **state)
{
    (void)state;
    cna_error err;
    cna_gl_context_options o;
    memset(&o, 0, sizeof o);
    o.width = W;
    o.height = H;
    cna_gl_context *gl = NULL;
    if (cna_gl_context_create(&o, &gl, &err) != CNA_OK) fail_msg("gl context: %s", err.message);
    cna_model *inst = load("fixtures/instancing-skinned.gltf"), *once = load("fixtures/instancing-skinned.gltf");
    assert_int_equal(inst->meshes[0].instance_count, 3);
    assert_true(inst->meshes[0].skin >= 0);
    const cna_mat4 *instances = once->meshes[0].instances;
    once->meshes[0].instances = NULL;
    once->meshes[0].instance_count = 0;
    cna_character *a = NULL, *b = NULL;
    assert_int_equal(cna_character_create(inst, NULL, &a, &err), CNA_OK);
    assert_int_equal(cna_character_create(once, NULL, &b, &err), CNA_OK);
    assert_int_equal(cna_character_play(a, 0, &err), CNA_OK);
    assert_int_equal(cna_character_play(b, 0, &err), CNA_OK);
    assert_int_equal(cna_character_seek(a, 0.5, &err), CNA_OK);
    assert_int_equal(cna_character_seek(b, 0.5, &err), CNA_OK);
    assert_int_equal(cna_character_pose(a, &err), CNA_OK);
    assert_int_equal(cna_character_pose(b, &err), CNA_OK);
    cna_gl_model *ga = NULL, *gb = NULL;
    if (cna_gl_model_create(gl, inst, &ga, &err) != CNA_OK) fail_msg("gl model: %s", err.message);
    if (cna_gl_model_create(gl, once, &gb, &err) != CNA_OK) fail_msg("gl model: %s", err.message);
    cna_mat4 v, p;
    camera(&v, &p);
    cna_gl_begin_frame(gl, BG);
    if (cna_gl_draw_character(gl, ga, NULL, a, NULL, &v, &p, &err) != CNA_OK) fail_msg("draw: %s", err.message);
    unsigned char *px_inst = read_back(gl);
    /* one by one: placement = world · instance · inverse(world) */
    const cna_mat4 *world = cna_character_absolute_transform(b, (size_t)once->meshes[0].parent_bone);
    cna_mat4 inv;
    assert_true(cna_mat4_inverse(&inv, world));
    cna_gl_begin_frame(gl, BG);
    for (size_t k = 0; k < 3; k++) {
        cna_mat4 wi, placement;
        cna_mat4_mul(&wi, world, &instances[k]);
        cna_mat4_mul(&placement, &wi, &inv);
        if (cna_gl_draw_character(gl, gb, NULL, b, &placement, &v, &p, &err) != CNA_OK)
            fail_msg("draw: %s", err.message);
    }
    unsigned char *px_each = read_back(gl);
    cna_gl_begin_frame(gl, BG);
    if (cna_gl_draw_character(gl, gb, NULL, b, NULL, &v, &p, &err) != CNA_OK) fail_msg("draw: %s", err.message);
    unsigned char *px_once = read_back(gl);
    pixels_maybe_write("instancing", "skinned", px_inst, W, H);
    pixels_maybe_write("instancing", "skinned-each", px_each, W, H);
    size_t covered = pixels_drawn(px_each, (size_t)W * H);
    if (covered < 1500) fail_msg("the three boxes cover only %zu pixels", covered);
    size_t over = 0;
    int worst = pixels_compare(px_inst, px_each, (size_t)W * H, 2, &over);
    if (over) fail_msg("%zu pixels differ from the boxes drawn one by one by more than 2/255 (at most %d/255)", over,
                       worst);
    pixels_compare(px_once, px_each, (size_t)W * H, 2, &over);
    if (over < 800) fail_msg("drawn once, only %zu pixels differ", over);
    free(px_inst);
    free(px_each);
    free(px_once);
    cna_gl_model_free(ga);
    cna_gl_model_free(gb);
    cna_character_free(a);
    cna_character_free(b);
    cna_model_free(inst);
    /* `once` lent its instances to the test: give them back for the free */
    once->meshes[0].instances = instances;
    once->meshes[0].instance_count = 3;
    cna_model_free(once);
    cna_gl_context_free(gl);
}

int main(void)
{
    keep_mesa_driver_loaded();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_instanced_file_looks_like_its_five_node_twin),
        cmocka_unit_test(a_skinned_instanced_mesh_applies_each_instance_after_skinning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
