/*
 * examples/blend.c — three animation layers on one character: the robot
 * walks (layer 0), crossfades to a run (layer 1) at 1 s over 0.5 s, and
 * waves its right arm all along (layer 2, masked to the arm). Eight frames
 * over 2 s are drawn by cna_gl (headless EGL) into one contact sheet PNG,
 * and every event the layers' clocks report is printed: the footstep
 * markers added to the walk and the run, and their loops.
 *
 *   example_blend [MODEL] [OUT.png]
 *
 * MODEL defaults to the bundled RobotExpressive; the sheet goes to OUT.png
 * (default out/blend.png; the folder must exist). Exit status 1 on any
 * error, with its message.
 *
 * Layers blend by the override rule (cna/character.h, "layers"): each
 * value is the weighted mix of the layers that animate it, so a layer of
 * weight 1 over another of weight 1 gives their average, not the top one.
 * For the wave to own the arm, the walk and the run are masked off it:
 * their mask is 1 everywhere but 0 on "Shoulder.R" and the bones below it,
 * and the wave's mask is the opposite (both made by cna_model_mask_subtree).
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

enum { W = 320, H = 360, COLS = 4, ROWS = 2, FRAMES = COLS * ROWS, STEPS_PER_FRAME = 15 };  /* 1/60 s steps */

enum { WALK, RUN, WAVE };   /* the layers */

static int fail(const char *what, const cna_error *err)
{
    fprintf(stderr, "%s: %s\n", what, err->message);
    return 1;
}

/* What the listener needs: the model (for names) and the time of the step. */
typedef struct listener {
    const cna_model *model;
    double now;   /* seconds since the start, at the end of the step being advanced */
} listener;

/* Called during cna_character_update for each marker, loop or end a layer's
 * clock crosses; it may only read the character (a call that changes it
 * returns CNA_ERROR_INVALID_ARGUMENT and changes nothing). */
static void on_event(const cna_event *ev, void *user)
{
    const listener *l = (const listener *)user;
    const char *clip = cna_model_animation_name(l->model, (size_t)ev->animation);
    switch (ev->kind) {
    case CNA_EVENT_MARKER:
        printf("  %.3f s  layer %zu  \"%s\" (%s at %.3f s)\n", l->now, ev->layer, ev->name, clip,
               cna_ticks_to_seconds(ev->ticks));
        break;
    case CNA_EVENT_LOOPED: printf("  %.3f s  layer %zu  looped (%s)\n", l->now, ev->layer, clip); break;
    case CNA_EVENT_FINISHED: printf("  %.3f s  layer %zu  finished (%s)\n", l->now, ev->layer, clip); break;
    default: break;
    }
}

/* Footstep markers on the walk and the run: the left foot lands at the
 * start of each cycle, the right one halfway. Markers belong to the model,
 * so they are added right after loading, before any character exists. */
static cna_result add_footsteps(cna_model *m, cna_error *err)
{
    const char *const clips[] = {"Robot_Walking", "Robot_Running"};
    for (int i = 0; i < 2; i++) {
        size_t a = 0;
        cna_result r = cna_model_find_animation(m, clips[i], &a, err);
        if (!r) r = cna_model_add_marker(m, a, "left foot", 0.0, err);
        if (!r) r = cna_model_add_marker(m, a, "right foot", 0.5 * cna_ticks_to_seconds(m->node_clips[a].duration), err);
        if (r) return r;
    }
    return CNA_OK;
}

/* The character's three layers, its masks and its listener. */
static cna_result setup(cna_character *c, const cna_model *m, float *arm, float *body, listener *l, cna_error *err)
{
    size_t walk = 0, wave = 0;
    const size_t n = m->bone_count;
    cna_result r = cna_model_find_animation(m, "Robot_Walking", &walk, err);
    if (!r) r = cna_model_find_animation(m, "Robot_Wave", &wave, err);
    /* arm: 1 on the right arm, 0 elsewhere; body: the opposite */
    for (size_t b = 0; b < n; b++) arm[b] = 0.0f, body[b] = 1.0f;
    if (!r) r = cna_model_mask_subtree(m, "Shoulder.R", 1.0f, arm, n, err);
    if (!r) r = cna_model_mask_subtree(m, "Shoulder.R", 0.0f, body, n, err);
    if (!r) r = cna_character_layer_set_mask(c, WALK, body, n, err);
    if (!r) r = cna_character_layer_set_mask(c, RUN, body, n, err);
    if (!r) r = cna_character_layer_set_mask(c, WAVE, arm, n, err);
    /* layer 0 starts at weight 1, the others at 0 */
    if (!r) r = cna_character_layer_play(c, WALK, (long)walk, err);
    if (!r) r = cna_character_layer_play(c, WAVE, (long)wave, err);
    if (!r) r = cna_character_layer_set_weight(c, WAVE, 1.0f, err);
    if (!r) r = cna_character_set_event_listener(c, on_event, l, err);
    return r;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : CNA_EXAMPLE_MODEL;
    const char *out = argc > 2 ? argv[2] : "out/blend.png";
    cna_error err;
    cna_gl_context *gl = NULL;
    cna_gl_context_options go;
    memset(&go, 0, sizeof go);
    go.width = W;
    go.height = H;
    go.samples = 4;
    if (cna_gl_context_create(&go, &gl, &err)) return fail("gl context", &err);
    cna_model *model = NULL;
    if (cna_model_load_any(path, NULL, &model, &err) || add_footsteps(model, &err)) {
        cna_model_free(model);
        cna_gl_context_free(gl);
        return fail(path, &err);
    }
    int status = 0;
    cna_gl_model *glm = NULL;
    cna_gl_instance *inst = NULL;
    cna_character *robot = NULL;
    cna_character_options co;
    memset(&co, 0, sizeof co);
    co.layer_count = 3;
    listener l = {model, 0.0};
    float *arm = (float *)malloc((model->bone_count + 1) * sizeof(float));
    float *body = (float *)malloc((model->bone_count + 1) * sizeof(float));
    unsigned char *rgba = (unsigned char *)malloc((size_t)W * H * 4);
    unsigned char *sheet = (unsigned char *)malloc((size_t)W * COLS * H * ROWS * 4);
    size_t run = 0;
    if (!arm || !body || !rgba || !sheet) {
        fprintf(stderr, "out of memory\n");
        status = 1;
    } else if (cna_gl_model_create(gl, model, &glm, &err) || cna_gl_instance_create(glm, &inst, &err) ||
               cna_character_create(model, &co, &robot, &err) || setup(robot, model, arm, body, &l, &err) ||
               cna_model_find_animation(model, "Robot_Running", &run, &err)) {
        status = fail(path, &err);
    }

    /* the camera: in front of the robot and to its right (-X), so that the waving arm faces it */
    cna_mat4 view, proj;
    glm_lookat((vec3){-4.5f, 3.2f, 10.0f}, (vec3){-0.4f, 2.3f, 0}, (vec3){0, 1, 0}, (vec4 *)view.m);
    glm_perspective(glm_rad(40.0f), (float)W / H, 0.1f, 100.0f, (vec4 *)proj.m);
    const float background[4] = {0.16f, 0.17f, 0.2f, 1.0f};

    const double dt = 1.0 / 60.0;
    for (int step = 0, picture = 0; status == 0 && picture < FRAMES; step++) {
        l.now = step * dt;
        if (cna_character_update(robot, step == 0 ? 0.0 : dt, &err)) {
            status = fail("pose", &err);
            break;
        }
        if (step == 60) {
            /* at 1 s: the run fades in on layer 1 over the next 0.5 s as the walk
             * fades out, starting at the walk's phase so that the feet stay in step */
            if (cna_character_crossfade(robot, WALK, RUN, (long)run, 0.5, CNA_CROSSFADE_SYNC_PHASE, &err)) {
                status = fail("crossfade", &err);
                break;
            }
            printf("  %.3f s  crossfade walk -> run over 0.5 s\n", l.now);
        }
        if (step % STEPS_PER_FRAME != 0) continue;
        printf("frame %d  %.3f s  weights: walk %.3f  run %.3f  wave %.3f\n", picture, l.now,
               (double)cna_character_layer_weight(robot, WALK), (double)cna_character_layer_weight(robot, RUN),
               (double)cna_character_layer_weight(robot, WAVE));
        cna_gl_begin_frame(gl, background);
        if (cna_gl_draw_character(gl, glm, inst, robot, NULL, &view, &proj, &err) ||
            cna_gl_read_pixels(gl, rgba, (size_t)W * H * 4, &err)) {
            status = fail("draw", &err);
            break;
        }
        /* frame `picture` into its cell of the sheet, row by row */
        const size_t x0 = (size_t)(picture % COLS) * W, y0 = (size_t)(picture / COLS) * H;
        for (size_t y = 0; y < H; y++)
            memcpy(sheet + ((y0 + y) * W * COLS + x0) * 4, rgba + y * W * 4, (size_t)W * 4);
        picture++;
    }
    if (status == 0) {
        if (cna_gl_write_png(out, W * COLS, H * ROWS, sheet, &err)) status = fail(out, &err);
        else printf("wrote %s (%dx%d, %d frames, 0 to %.2f s)\n", out, W * COLS, H * ROWS, FRAMES,
                    (FRAMES - 1) * STEPS_PER_FRAME * dt);
    }
    free(sheet);
    free(rgba);
    free(body);
    free(arm);
    cna_character_free(robot);
    cna_gl_instance_free(inst);
    cna_gl_model_free(glm);   /* before the context and the model */
    cna_model_free(model);
    cna_gl_context_free(gl);
    return status;
}
