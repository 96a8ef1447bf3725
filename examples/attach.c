/*
 * examples/attach.c — a box held in the robot's right hand: the box follows
 * the hand joint's absolute transform while the robot walks. The robot and
 * the box are drawn by cna_gl into one PNG per time (headless EGL), and the
 * box's world transform is printed per frame.
 *
 *   example_attach [MODEL] [OUT_PREFIX]
 *
 * MODEL defaults to the bundled RobotExpressive; the pictures go to
 * OUT_PREFIX-0.png .. OUT_PREFIX-3.png (default out/attach). The joint is
 * found by name with cna_model_find_bone, which prefers a joint over a mesh
 * node of the same name. Exit status 1 on any error, with its message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "cna/cna.h"
#include "cna/gl.h"

#ifndef CNA_EXAMPLE_MODEL
#define CNA_EXAMPLE_MODEL "robot.glb"
#endif

enum { W = 480, H = 360, FRAMES = 4 };

static int fail(const char *what, const cna_error *err)
{
    fprintf(stderr, "%s: %s\n", what, err->message);
    return 1;
}

/* A unit cube (stride 32: position, normal, uv), 24 vertices, 36 indices. */
static void make_cube(float *v, uint32_t *idx)
{
    static const float n[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (int f = 0; f < 6; f++) {
        /* two axes spanning the face */
        const int a = n[f][0] != 0 ? 1 : 0, b = n[f][2] != 0 ? 1 : 2;
        for (int k = 0; k < 4; k++) {
            float *o = v + (f * 4 + k) * 8;
            float p[3] = {n[f][0] * 0.5f, n[f][1] * 0.5f, n[f][2] * 0.5f};
            p[a] = (k & 1) ? 0.5f : -0.5f;
            p[b] = (k & 2) ? 0.5f : -0.5f;
            memcpy(o, p, sizeof p);
            memcpy(o + 3, n[f], sizeof n[f]);
            o[6] = (k & 1) ? 1.0f : 0.0f;
            o[7] = (k & 2) ? 1.0f : 0.0f;
        }
        /* both windings are drawn (the effect is double-sided) */
        const uint32_t base = (uint32_t)f * 4;
        const uint32_t tri[6] = {base, base + 1, base + 3, base, base + 3, base + 2};
        memcpy(idx + f * 6, tri, sizeof tri);
    }
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : CNA_EXAMPLE_MODEL;
    const char *prefix = argc > 2 ? argv[2] : "out/attach";
    cna_error err;
    cna_gl_context *gl = NULL;
    cna_gl_context_options go;
    memset(&go, 0, sizeof go);
    go.width = W;
    go.height = H;
    go.samples = 4;
    if (cna_gl_context_create(&go, &gl, &err)) return fail("gl context", &err);
    cna_model *model = NULL;
    if (cna_model_load_any(path, NULL, &model, &err)) {
        cna_gl_context_free(gl);
        return fail(path, &err);
    }
    int status = 0;
    cna_gl_model *glm = NULL;
    cna_character *robot = NULL;
    size_t walk = 0;
    const char *joint_name = "Palm2.R";   /* RobotExpressive's right hand */
    const int32_t hand = cna_model_find_bone(model, joint_name);
    if (hand < 0) {
        fprintf(stderr, "%s: no bone \"%s\"\n", path, joint_name);
        status = 1;
    } else if (cna_gl_model_create(gl, model, &glm, &err) || cna_character_create(model, NULL, &robot, &err) ||
               cna_model_find_animation(model, "Robot_Walking", &walk, &err) ||
               cna_character_play(robot, (long)walk, &err)) {
        status = fail(path, &err);
    }

    /* the box: its own buffers on the context's device, a basic effect */
    float cube[24 * 8];
    uint32_t cube_idx[36];
    make_cube(cube, cube_idx);
    const cna_device *dev = cna_gl_context_device(gl);
    cna_buffer_id vb = 0, ib = 0;
    cna_buffer_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.kind = CNA_BUFFER_KIND_VERTEX;
    bd.data = cube;
    bd.size = sizeof cube;
    if (status == 0 && cna_device_create_buffer(dev, &bd, &vb, &err)) status = fail("box", &err);
    bd.kind = CNA_BUFFER_KIND_INDEX;
    bd.data = cube_idx;
    bd.size = sizeof cube_idx;
    if (status == 0 && cna_device_create_buffer(dev, &bd, &ib, &err)) status = fail("box", &err);
    cna_vertex_declaration decl;
    if (status == 0 && cna_vertex_declaration_canonical(32, &decl, &err)) status = fail("box", &err);
    cna_effect box_effect;
    cna_effect_init(&box_effect, CNA_EFFECT_KIND_BASIC);
    box_effect.params.base_color_factor = (cna_vec4){0.15f, 0.45f, 1.0f, 1.0f};
    box_effect.params.double_sided = true;

    /* the camera: in front of the robot, looking at its chest */
    cna_mat4 view, proj;
    glm_lookat((vec3){0, 2.5f, 9.0f}, (vec3){0, 2.2f, 0}, (vec3){0, 1, 0}, (vec4 *)view.m);
    glm_perspective(glm_rad(40.0f), (float)W / H, 0.1f, 100.0f, (vec4 *)proj.m);
    /* the box in the hand's space: 0.6 units, a little along the bone */
    cna_mat4 in_hand;
    cna_mat4_compose(&in_hand, cna_vec3_make(0, 0.4f, 0), cna_quat_identity(), cna_vec3_make(0.6f, 0.6f, 0.6f));

    unsigned char *rgba = (unsigned char *)malloc((size_t)W * H * 4);
    if (!rgba) status = 1;
    const double duration = status == 0 ? cna_ticks_to_seconds(cna_character_duration(robot)) : 0.0;
    const int per_picture = (int)(duration * 60.0) / FRAMES;
    for (int f = 0, picture = 0; status == 0 && picture < FRAMES; f++) {
        if (cna_character_update(robot, f == 0 ? 0.0 : 1.0 / 60.0, &err)) {
            status = fail("pose", &err);
            break;
        }
        /* the box follows the joint: world = absolute[hand] · in_hand */
        cna_mat4 box_world;
        cna_mat4_mul(&box_world, cna_character_absolute_transform(robot, (size_t)hand), &in_hand);
        printf("frame %3d  t = %.3f s  box at (%7.3f, %7.3f, %7.3f)\n", f, cna_character_time(robot),
               (double)box_world.m[12], (double)box_world.m[13], (double)box_world.m[14]);
        if (f % (per_picture > 0 ? per_picture : 1) != 0) continue;
        const float background[4] = {0.16f, 0.17f, 0.2f, 1.0f};
        cna_gl_begin_frame(gl, background);
        cna_gl_draw_desc d;
        memset(&d, 0, sizeof d);
        d.declaration = &decl;
        d.vertex_buffer = vb;
        d.index_buffer = ib;
        d.index_count = 36;
        d.effect = &box_effect;
        d.world = &box_world;
        d.view = &view;
        d.projection = &proj;
        char out[1024];
        snprintf(out, sizeof out, "%s-%d.png", prefix, picture);
        if (cna_gl_draw_character(gl, glm, NULL, robot, NULL, &view, &proj, &err) || cna_gl_draw(gl, &d, &err) ||
            cna_gl_read_pixels(gl, rgba, (size_t)W * H * 4, &err) || cna_gl_write_png(out, W, H, rgba, &err)) {
            status = fail(out, &err);
            break;
        }
        printf("wrote %s\n", out);
        picture++;
    }
    free(rgba);
    cna_device_destroy_buffer(dev, vb);
    cna_device_destroy_buffer(dev, ib);
    cna_character_free(robot);
    cna_gl_model_free(glm);   /* before the context and the model */
    cna_model_free(model);
    cna_gl_context_free(gl);
    return status;
}
