/*
 * Pixel evidence for the renderer, headless (EGL
 * surfaceless; llvmpipe without a GPU):
 *   (a) a corpus model drawn with GPU skinning (skinned effects, the skin's
 *       palette) equals the same vertices skinned on the CPU by the reference
 *       cna_skin_vertices and drawn through the basic effect: at most 0.5% of
 *       pixels differ by more than 16/255 in a channel; the same for a rig
 *       of 100 and 300 joints imported with split_palettes, each sub-part
 *       drawn with its sub-palette (cna_character_part_palette);
 *   (b) the oracle's final positions (three.js, tests/data/oracle), projected
 *       with the same camera, land on drawn (non-background) pixels for at
 *       least 99% of them (a vertex on the silhouette counts when a pixel
 *       within one pixel of it is drawn);
 *   (c) the skin-mesh-node-transform fixture (mesh node T(0, 0, 50), palette
 *       carrying its cancellation) renders exactly where its mesh renders
 *       without the node transform (raw vertices, world = identity).
 * Built only when cna_gl is (-DCNA_BUILD_GL=ON, the default).
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
#include <cjson/cJSON.h>

#include "cna/cna.h"
#include "cna/gl.h"

enum { W = 256, H = 256 };
static const float BG[4] = {0.0f, 0.0f, 0.0f, 1.0f};

typedef struct scene {
    cna_gl_context *gl;
    cna_model *m;
    cna_gl_model *glm;
    cna_gl_instance *inst;
    cna_character *c;
    cna_mat4 view, proj;
} scene;

static const char *data_path(char *buf, size_t size, const char *rel)
{
    snprintf(buf, size, "%s/%s", CNA_TEST_DATA_DIR, rel);
    return buf;
}

/* Open `rel` (imported with split_palettes when `split`). */
static void scene_open_with(scene *s, const char *rel, bool split)
{
    memset(s, 0, sizeof *s);
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_gl_context_options o;
    memset(&o, 0, sizeof o);
    o.width = W;
    o.height = H;
    if (cna_gl_context_create(&o, &s->gl, &err) != CNA_OK) fail_msg("gl context: %s", err.message);
    char path[1024];
    cna_import_options io;
    memset(&io, 0, sizeof io);
    io.split_palettes = split;
    if (cna_model_load_file(data_path(path, sizeof path, rel), &io, &s->m, &err) != CNA_OK)
        fail_msg("%s: %s", rel, err.message);
    assert_int_equal(cna_gl_model_create(s->gl, s->m, &s->glm, &err), CNA_OK);
    assert_int_equal(cna_gl_instance_create(s->glm, &s->inst, &err), CNA_OK);
    assert_int_equal(cna_character_create(s->m, NULL, &s->c, &err), CNA_OK);
    assert_int_equal(cna_character_set_loop_mode(s->c, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
}

static void scene_open(scene *s, const char *rel) { scene_open_with(s, rel, false); }

static void scene_close(scene *s)
{
    cna_character_free(s->c);
    cna_gl_instance_free(s->inst);
    cna_gl_model_free(s->glm);
    cna_model_free(s->m);
    cna_gl_context_free(s->gl);
}

/* Pose at t of animation `anim` (-1: bind pose), as `cna render` does. */
static void scene_pose(scene *s, long anim, double t)
{
    cna_error err;
    if (cna_character_animation(s->c) != anim) assert_int_equal(cna_character_play(s->c, anim, &err), CNA_OK);
    assert_int_equal(cna_character_seek(s->c, t, &err), CNA_OK);
    assert_int_equal(cna_character_pose(s->c, &err), CNA_OK);
}

/* The part's vertices skinned on the CPU (reference) with the part's
 * palette (a split part's sub-palette), or a copy when rigid or `raw`. */
static unsigned char *cpu_vertices(const scene *s, const cna_model_mesh *mesh, const cna_model_part *part,
                                   bool raw, size_t *size)
{
    cna_error err;
    const void *bytes = cna_character_part_vertices(s->c, (size_t)(mesh - s->m->meshes),
                                                    (size_t)(part - mesh->parts), size);
    unsigned char *out = malloc(*size ? *size : 1);
    assert_non_null(out);
    if (mesh->skin < 0 || raw) {
        memcpy(out, bytes, *size);
        return out;
    }
    cna_skinning_layout layout;
    assert_int_equal(cna_skinning_layout_canonical(part->declaration.stride, &layout, &err), CNA_OK);
    size_t count = 0;
    const cna_mat4 *palette =
        cna_character_part_palette(s->c, (size_t)(mesh - s->m->meshes), (size_t)(part - mesh->parts), &count);
    assert_int_equal(cna_skin_vertices(&layout, bytes, part->vertex_count, palette, count, out, *size, &err),
                     CNA_OK);
    return out;
}

/* A camera on +Z (or `dir`) framing the CPU-posed vertices. */
static void scene_frame(scene *s, vec3 dir)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < s->m->mesh_count; i++) {
        const cna_model_mesh *mesh = &s->m->meshes[i];
        for (size_t k = 0; k < mesh->part_count; k++) {
            const cna_model_part *part = &mesh->parts[k];
            size_t size = 0;
            unsigned char *v = cpu_vertices(s, mesh, part, false, &size);
            for (size_t j = 0; j < part->vertex_count; j++) {
                float p[3];
                memcpy(p, v + j * part->declaration.stride, sizeof p);
                cna_vec3 q = cna_mat4_transform_point(cna_character_absolute_transform(s->c, (size_t)mesh->parent_bone), cna_vec3_make(p[0], p[1], p[2]));
                float c[3] = {q.x, q.y, q.z};
                for (int a = 0; a < 3; a++) {
                    lo[a] = fminf(lo[a], c[a]);
                    hi[a] = fmaxf(hi[a], c[a]);
                }
            }
            free(v);
        }
    }
    vec3 center = {0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2])};
    float r = 0.5f * sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                           (hi[2] - lo[2]) * (hi[2] - lo[2]));
    float d = r / sinf(glm_rad(22.5f));
    vec3 eye, up = {0, 1, 0};
    glm_vec3_normalize(dir);
    glm_vec3_scale(dir, d, eye);
    glm_vec3_add(eye, center, eye);
    mat4 v, p;
    glm_lookat(eye, center, up, v);
    glm_perspective(glm_rad(45.0f), (float)W / (float)H, d - r * 1.1f > d * 0.01f ? d - r * 1.1f : d * 0.01f,
                    d + r * 1.1f, p);
    memcpy(s->view.m, v, sizeof s->view.m);
    memcpy(s->proj.m, p, sizeof s->proj.m);
}

static unsigned char *read_image(scene *s)
{
    cna_error err;
    unsigned char *px = malloc((size_t)W * H * 4);
    assert_non_null(px);
    assert_int_equal(cna_gl_read_pixels(s->gl, px, (size_t)W * H * 4, &err), CNA_OK);
    return px;
}

/* GPU skinning: the character drawn, each skinned mesh with its skin's palette. */
static unsigned char *draw_gpu(scene *s)
{
    cna_error err;
    cna_gl_begin_frame(s->gl, BG);
    if (cna_gl_draw_character(s->gl, s->glm, s->inst, s->c, NULL, &s->view, &s->proj, &err) != CNA_OK)
        fail_msg("draw: %s", err.message);
    return read_image(s);
}

/* The same vertices skinned on the CPU, drawn through the basic effect with
 * the same material; `raw` draws the unskinned vertices with world = I
 * instead (where the mesh is without its node transform). */
static unsigned char *draw_cpu(scene *s, bool raw)
{
    cna_error err;
    const cna_device *dev = cna_gl_context_device(s->gl);
    cna_gl_begin_frame(s->gl, BG);
    for (size_t i = 0; i < s->m->mesh_count; i++) {
        const cna_model_mesh *mesh = &s->m->meshes[i];
        for (size_t k = 0; k < mesh->part_count; k++) {
            const cna_model_part *part = &mesh->parts[k];
            size_t size = 0;
            unsigned char *v = cpu_vertices(s, mesh, part, raw, &size);
            cna_buffer_desc bd;
            memset(&bd, 0, sizeof bd);
            bd.data = v;
            bd.size = size;
            cna_buffer_id vb = 0;
            assert_int_equal(cna_device_create_buffer(dev, &bd, &vb, &err), CNA_OK);
            free(v);
            cna_effect fx;
            cna_effect_init(&fx, CNA_EFFECT_KIND_BASIC);
            fx.params = s->m->effects[part->effect].params;
            uint32_t ib = 0;
            assert_int_equal(cna_gl_model_part_buffers(s->glm, i, k, NULL, &ib, &err), CNA_OK);
            cna_gl_draw_desc d;
            memset(&d, 0, sizeof d);
            d.declaration = &part->declaration;
            d.vertex_buffer = vb;
            d.index_buffer = ib;
            d.index_count = part->index_count;
            d.primitive_type = part->primitive_type;
            d.effect = &fx;
            d.world = raw ? NULL : cna_character_absolute_transform(s->c, (size_t)mesh->parent_bone);   /* NULL: identity */
            d.view = &s->view;
            d.projection = &s->proj;
            if (cna_gl_draw(s->gl, &d, &err) != CNA_OK) fail_msg("draw: %s", err.message);
            cna_device_destroy_buffer(dev, vb);
        }
    }
    return read_image(s);
}

static bool is_background(const unsigned char *p)
{
    return p[0] == 0 && p[1] == 0 && p[2] == 0;
}

/* Pixels differing by more than `threshold` in a channel; *covered = drawn pixels of a. */
static size_t count_differences(const unsigned char *a, const unsigned char *b, int threshold, size_t *covered)
{
    size_t n = 0;
    *covered = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        if (!is_background(a + i * 4)) (*covered)++;
        for (size_t c = 0; c < 3; c++)
            if (abs((int)a[i * 4 + c] - (int)b[i * 4 + c]) > threshold) {
                n++;
                break;
            }
    }
    return n;
}

static void compare_gpu_and_cpu_with(const char *rel, bool split, const char *anim_name, const double *times,
                                     size_t count)
{
    scene s;
    scene_open_with(&s, rel, split);
    long anim = anim_name ? -1 : 0;
    for (size_t a = 0; anim_name && a < s.m->animation_count; a++)
        if (s.m->node_clips[a].name && strcmp(s.m->node_clips[a].name, anim_name) == 0) anim = (long)a;
    assert_true(anim >= 0 && (size_t)anim < s.m->animation_count);
    for (size_t i = 0; i < count; i++) {
        scene_pose(&s, anim, times[i]);
        scene_frame(&s, (vec3){0.3f, 0.2f, 1.0f});
        unsigned char *gpu = draw_gpu(&s);
        unsigned char *cpu = draw_cpu(&s, false);
        size_t covered = 0, diff = count_differences(gpu, cpu, 16, &covered);
        if (covered < (size_t)W * H / 50 || diff * 200 > (size_t)W * H)
            fail_msg("%s t=%g: %zu of %d pixels differ (%zu drawn)", rel, times[i], diff, W * H, covered);
        free(gpu);
        free(cpu);
    }
    scene_close(&s);
}

static void compare_gpu_and_cpu(const char *rel, const char *anim_name, const double *times, size_t count)
{
    compare_gpu_and_cpu_with(rel, false, anim_name, times, count);
}

static void gpu_skinning_matches_cpu_skinning_on_rigged_simple(void **state)
{
    (void)state;
    const double t[] = {0.0, 0.5, 1.25, 2.0};
    compare_gpu_and_cpu("corpus/valid/RiggedSimple/rigged_simple.gltf", NULL, t, 4);
}

static void gpu_skinning_matches_cpu_skinning_on_robot_running(void **state)
{
    (void)state;
    const double t[] = {0.0, 0.3, 0.7};
    compare_gpu_and_cpu("corpus/valid/RobotExpressive/robot.glb", "Robot_Running", t, 3);
}

/* Split parts (skins of 100 and 300 joints imported with split_palettes):
 * the GPU draws each with its sub-palette. */
static void gpu_skinning_of_split_parts_matches_cpu_skinning(void **state)
{
    (void)state;
    const double t[] = {0.0, 0.6, 1.5};
    compare_gpu_and_cpu_with("fixtures/split-two-skins.gltf", true, "Bend", t, 3);
}

/* ------------------------------------------------------------ (b) oracle positions */

static cJSON *load_json(const char *rel)
{
    char path[1024];
    FILE *f = fopen(data_path(path, sizeof path, rel), "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = 0;
    fclose(f);
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root) fail_msg("%s: JSON parse error", rel);
    return root;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) fail_msg("oracle: no \"%s\"", key);
    return v;
}

static void oracle_positions_land_on_drawn_pixels(void **state)
{
    (void)state;
    scene s;
    scene_open(&s, "corpus/valid/RiggedSimple/rigged_simple.gltf");
    cJSON *oracle = load_json("oracle/RiggedSimple.json");
    const cJSON *anim = cJSON_GetArrayItem(get(oracle, "animations"), 0);
    const cJSON *samples = get(anim, "samples");
    int n = cJSON_GetArraySize(samples);
    size_t checked = 0, landed = 0, frames = 0;
    for (int i = 0; i < n; i += 12) {  /* 9 of the 100 sample times */
        const cJSON *sample = cJSON_GetArrayItem(samples, i);
        double t = get(sample, "t")->valuedouble;
        scene_pose(&s, 0, t);
        scene_frame(&s, (vec3){0.3f, 0.2f, 1.0f});
        unsigned char *img = draw_gpu(&s);
        /* proj · view (cna_mat4_mul: the matrices need no 16-byte alignment) */
        cna_mat4 pv;
        cna_mat4_mul(&pv, &s.proj, &s.view);
        mat4 vp;
        memcpy(vp, pv.m, sizeof vp);
        const cJSON *prim;
        cJSON_ArrayForEach(prim, get(sample, "primitives"))
        {
            const cJSON *pos = get(prim, "positions");
            int count = cJSON_GetArraySize(pos) / 3;
            for (int v = 0; v < count; v++) {
                vec4 p = {(float)cJSON_GetArrayItem(pos, v * 3)->valuedouble,
                          (float)cJSON_GetArrayItem(pos, v * 3 + 1)->valuedouble,
                          (float)cJSON_GetArrayItem(pos, v * 3 + 2)->valuedouble, 1.0f},
                     c;
                glm_mat4_mulv(vp, p, c);
                float x = (c[0] / c[3] * 0.5f + 0.5f) * W, y = (1.0f - (c[1] / c[3] * 0.5f + 0.5f)) * H;
                int px = (int)floorf(x), py = (int)floorf(y);
                checked++;
                bool hit = false;
                for (int dy = -1; dy <= 1 && !hit; dy++)
                    for (int dx = -1; dx <= 1 && !hit; dx++) {
                        int qx = px + dx, qy = py + dy;
                        if (qx >= 0 && qy >= 0 && qx < W && qy < H && !is_background(img + ((size_t)qy * W + (size_t)qx) * 4))
                            hit = true;
                    }
                if (hit) landed++;
            }
        }
        free(img);
        frames++;
    }
    cJSON_Delete(oracle);
    scene_close(&s);
    assert_true(frames >= 8);
    assert_true(checked >= frames * 100);
    if (landed * 100 < checked * 99) fail_msg("%zu of %zu oracle positions land on drawn pixels", landed, checked);
}

/* ------------------------------------------------------------ (c) the mesh node transform */

static void mesh_node_transform_renders_where_the_mesh_does_without_it(void **state)
{
    (void)state;
    scene s;
    scene_open(&s, "fixtures/skin-mesh-node-transform.gltf");
    scene_pose(&s, -1, 0.0);
    /* The fixture's only joint has identity bind pose and inverse bind: the
     * palette is exactly the cancellation T(0, 0, -50) of the mesh node. */
    assert_float_equal(cna_character_skin_transforms(s.c, 0)[0].m[14], -50.0f, 0.0f);
    assert_float_equal(cna_character_absolute_transform(s.c, (size_t)s.m->meshes[0].parent_bone)->m[14], 50.0f, 0.0f);
    scene_frame(&s, (vec3){0.0f, 0.0f, 1.0f});
    unsigned char *gpu = draw_gpu(&s);
    /* Raw vertices with world = I: where the mesh is without its node. */
    unsigned char *raw = draw_cpu(&s, true);
    size_t covered = 0, diff = count_differences(gpu, raw, 16, &covered);
    free(gpu);
    free(raw);
    scene_close(&s);
    if (covered < 100) fail_msg("the fixture covers only %zu pixels", covered);
    if (diff * 200 > (size_t)W * H) fail_msg("%zu pixels differ", diff);
}

int main(void)
{
    keep_mesa_driver_loaded();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpu_skinning_matches_cpu_skinning_on_rigged_simple),
        cmocka_unit_test(gpu_skinning_matches_cpu_skinning_on_robot_running),
        cmocka_unit_test(gpu_skinning_of_split_parts_matches_cpu_skinning),
        cmocka_unit_test(oracle_positions_land_on_drawn_pixels),
        cmocka_unit_test(mesh_node_transform_renders_where_the_mesh_does_without_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
