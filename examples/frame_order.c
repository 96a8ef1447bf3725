/*
 * frame_order — the spec's frame ("A frame, in order") as a short program,
 * with two characters of one model:
 *   load the model once and create its GPU objects once (cna_gl_model);
 *   create two characters (cna/character.h) playing animation 0, the second
 *   half a cycle ahead, each with its own cna_gl_instance (its morphed
 *   vertices on the GPU); then for each of 30 frames at 30 Hz, per character:
 *     1. advance the clock (cna_character_advance, looping);
 *     2. pose (cna_character_pose): bones at rest, the rigid (scene-node)
 *        clip, each skin's joints, absolute transforms, each skin's palette
 *        (root prefixes composed in), morph weights blended only where they
 *        changed;
 *     3. draw (cna_gl_draw_character): every mesh with world = placement ·
 *        absolute[parent bone] and its own skin's palette, morphed parts
 *        from the character's vertices (uploaded only when they changed).
 * The model is never written: both characters read it. The last frame is
 * drawn headless through cna_gl and written as a PNG.
 *
 * Usage: example_frame_order [MODEL.glb|.gltf] [OUT.png]
 *        (defaults: the RobotExpressive model of the tests, frame_order.png)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "cna/cna.h"
#include "cna/gl.h"

#ifndef CNA_EXAMPLE_MODEL
#define CNA_EXAMPLE_MODEL "robot.glb"
#endif

enum { W = 640, H = 400, FRAMES = 30, CHARACTERS = 2 };

static int fail(const char *what, const cna_error *err)
{
    fprintf(stderr, "frame_order: %s: %s\n", what, err->message);
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : CNA_EXAMPLE_MODEL;
    const char *out = argc > 2 ? argv[2] : "frame_order.png";
    cna_error err;
    memset(&err, 0, sizeof err);

    cna_gl_context *gl = NULL;
    cna_gl_context_options go;
    memset(&go, 0, sizeof go);
    go.width = W, go.height = H, go.samples = 4;
    if (cna_gl_context_create(&go, &gl, &err)) return fail("gl context", &err);
    cna_model *m = NULL;
    if (cna_model_load_file(path, NULL, &m, &err)) {
        cna_gl_context_free(gl);
        return fail(path, &err);
    }
    cna_gl_model *glm = NULL;   /* the model's buffers and textures, shared by both characters */
    int status = cna_gl_model_create(gl, m, &glm, &err) ? fail("gl model", &err) : 0;

    cna_character *c[CHARACTERS] = {NULL, NULL};
    cna_gl_instance *inst[CHARACTERS] = {NULL, NULL};
    const long anim = m->animation_count > 0 ? 0 : -1;
    for (int i = 0; status == 0 && i < CHARACTERS; i++) {
        if (cna_character_create(m, NULL, &c[i], &err) || cna_character_play(c[i], anim, &err) ||
            cna_gl_instance_create(glm, &inst[i], &err))
            status = fail("character", &err);
        /* the second one half a cycle ahead */
        else if (i == 1 && cna_character_seek_ticks(c[i], cna_character_duration(c[i]) / 2, &err))
            status = fail("seek", &err);
    }

    /* The camera and the placements: the rest pose's bounds (their centres in
     * the model's space), the two characters side by side along x. */
    if (status == 0 && cna_character_pose(c[0], &err)) status = fail("pose", &err);
    vec3 lo = {1e30f, 1e30f, 1e30f}, hi = {-1e30f, -1e30f, -1e30f};
    for (size_t i = 0; status == 0 && i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        cna_vec3 p = cna_mat4_transform_point(cna_character_absolute_transform(c[0], (size_t)mesh->parent_bone),
                                              mesh->bounds.center);
        float r = mesh->bounds.radius * 0.6f;
        vec3 q = {p.x, p.y, p.z};
        for (int a = 0; a < 3; a++) lo[a] = fminf(lo[a], q[a] - r), hi[a] = fmaxf(hi[a], q[a] + r);
    }
    vec3 center, eye;
    glm_vec3_center(lo, hi, center);
    float radius = m->mesh_count ? 0.5f * glm_vec3_distance(lo, hi) : 1.0f;
    cna_mat4 placement[CHARACTERS];
    for (int i = 0; i < CHARACTERS; i++)
        cna_mat4_translation(&placement[i], cna_vec3_make((i == 0 ? -0.6f : 0.6f) * radius, 0.0f, 0.0f));
    glm_vec3_add(center, (vec3){0.6f * radius, 0.5f * radius, 2.6f * radius}, eye);
    cna_mat4 view, proj;
    glm_lookat(eye, center, (vec3){0, 1, 0}, (vec4 *)view.m);
    glm_perspective(glm_rad(45.0f), (float)W / H, radius * 0.05f, radius * 10.0f, (vec4 *)proj.m);

    const float background[4] = {0.16f, 0.18f, 0.22f, 1.0f};
    for (int frame = 0; status == 0 && frame < FRAMES; frame++) {
        cna_gl_begin_frame(gl, background);
        for (int i = 0; status == 0 && i < CHARACTERS; i++) {
            if (frame > 0 && cna_character_advance(c[i], 1.0 / 30.0, &err)) status = fail("advance", &err); /* 1 */
            else if (cna_character_pose(c[i], &err)) status = fail("pose", &err);                            /* 2 */
            else if (cna_gl_draw_character(gl, glm, inst[i], c[i], &placement[i], &view, &proj, &err))       /* 3 */
                status = fail("draw", &err);
        }
    }
    unsigned char *rgba = malloc((size_t)W * H * 4);
    if (status == 0 && (!rgba || cna_gl_read_pixels(gl, rgba, (size_t)W * H * 4, &err) ||
                        cna_gl_write_png(out, W, H, rgba, &err)))
        status = fail(out, &err);
    if (status == 0) printf("frame_order: %s: %d frames of %d characters, wrote %s\n", path, FRAMES, CHARACTERS, out);

    free(rgba);
    for (int i = 0; i < CHARACTERS; i++) {
        cna_gl_instance_free(inst[i]);
        cna_character_free(c[i]);
    }
    cna_gl_model_free(glm);   /* before the context and the model */
    cna_model_free(m);
    cna_gl_context_free(gl);
    return status;
}
