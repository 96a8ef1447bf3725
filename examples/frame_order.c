/*
 * frame_order — the spec's frame ("A frame, in order") as a short program:
 * load a model, one player per skin, then for each of 30 frames at 30 Hz
 *   1. advance every skin's player (world transforms with root prefixes, skin
 *      matrices);
 *   2. apply the animation's rigid (scene-node) clip to the bones;
 *   3. set morph weights, only on parts whose weights changed;
 *   4. per mesh: install its skin's palette on that mesh's own effects right
 *      before drawing it; the draw sets world/view/projection only.
 * The last frame is drawn headless through cna_gl and written as a PNG.
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

enum { W = 480, H = 480, FRAMES = 30 };

static int fail(const char *what, const cna_error *err)
{
    fprintf(stderr, "frame_order: %s: %s\n", what, err->message);
    return 1;
}

/* Step 3: the animation's weight track at t (else the initial weights), set
 * only where the part's current weights differ. */
static cna_result set_morph_weights(cna_model *m, size_t anim, double t, cna_error *err)
{
    float w[256];
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++) {
            const cna_model_part *part = &m->meshes[i].parts[k];
            if (!part->morph_instance || part->morph->target_count > 256) continue;
            size_t n = part->morph->target_count;
            if (anim < part->weight_track_count && part->weight_tracks[anim]) {
                cna_result r = cna_morph_evaluate_weights(part->weight_tracks[anim], t, w, 256, &n, err);
                if (r) return r;
            } else {
                for (size_t j = 0; j < n; j++)
                    w[j] = j < part->morph->initial_weight_count ? part->morph->initial_weights[j] : 0.0f;
            }
            size_t have_n = 0;
            const float *have = cna_morph_instance_weights(part->morph_instance, &have_n);
            if (have_n == n && memcmp(have, w, n * sizeof *w) == 0) continue;   /* unchanged */
            cna_result r = cna_model_set_morph_weights(m, i, k, w, n, err);
            if (r) return r;
        }
    return CNA_OK;
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
    cna_import_options io;
    memset(&io, 0, sizeof io);
    io.device = cna_gl_context_device(gl);   /* the parts' buffers become GL buffers */
    cna_model *m = NULL;
    if (cna_model_load_file(path, &io, &m, &err)) {
        cna_gl_context_free(gl);
        return fail(path, &err);
    }

    /* One player per skin, each playing animation 0 (clip i = animation i). */
    cna_player **players = calloc(m->skin_count + 1, sizeof *players);
    cna_mat4 *absolute = calloc(m->bone_count + 1, sizeof *absolute);
    int status = players && absolute ? 0 : 1;
    for (size_t s = 0; status == 0 && s < m->skin_count; s++) {
        if (cna_player_create(&m->skins[s].data, NULL, &players[s], &err) ||
            (m->animation_count > 0 && cna_player_start_clip(players[s], &m->skins[s].data.clips[0], &err)))
            status = fail("player", &err);
    }

    for (int frame = 0; status == 0 && frame < FRAMES; frame++) {
        double t = frame / 30.0;
        /* 1. advance the players (relative step, looping). */
        for (size_t s = 0; s < m->skin_count && status == 0; s++)
            if (frame > 0 && cna_player_update_seconds(players[s], 1.0 / 30.0, true, true, &err))
                status = fail("update", &err);
        /* 2. rigid clips on the bones, then the skins' poses on their joints' bones. */
        cna_model_reset_bone_transforms(m);
        if (status == 0 && m->animation_count > 0) {
            double d = cna_ticks_to_seconds(m->node_clips[0].duration);
            if (cna_model_apply_clip_to_bones(m, &m->node_clips[0], d > 0 ? fmod(t, d) : 0.0, &err))
                status = fail("rigid clip", &err);
        }
        for (size_t s = 0; s < m->skin_count && status == 0; s++)
            if (cna_model_apply_skin_pose_to_bones(m, s, cna_player_bone_transforms(players[s]),
                                                   m->skins[s].joint_count, &err))
                status = fail("skin pose", &err);
        /* 3. morph weights, only when changed. */
        if (status == 0 && m->animation_count > 0 && set_morph_weights(m, 0, t, &err))
            status = fail("morph weights", &err);
        if (status == 0 && cna_model_copy_absolute_bone_transforms(m, absolute, m->bone_count, &err))
            status = fail("absolute transforms", &err);
    }

    /* A camera in front of the meshes' bounds (their centres in world space). */
    vec3 lo = {1e30f, 1e30f, 1e30f}, hi = {-1e30f, -1e30f, -1e30f};
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        cna_vec3 c = cna_mat4_transform_point(&absolute[mesh->parent_bone], mesh->bounds.center);
        float r = mesh->bounds.radius * 0.6f;
        vec3 p = {c.x, c.y, c.z};
        for (int a = 0; a < 3; a++) lo[a] = fminf(lo[a], p[a] - r), hi[a] = fmaxf(hi[a], p[a] + r);
    }
    vec3 center, eye;
    glm_vec3_center(lo, hi, center);
    float radius = m->mesh_count ? 0.5f * glm_vec3_distance(lo, hi) : 1.0f;
    glm_vec3_add(center, (vec3){0.8f * radius, 0.6f * radius, 2.2f * radius}, eye);
    cna_mat4 view, proj;
    glm_lookat(eye, center, (vec3){0, 1, 0}, (vec4 *)view.m);
    glm_perspective(glm_rad(45.0f), (float)W / H, radius * 0.05f, radius * 10.0f, (vec4 *)proj.m);

    /* 4. draw: each mesh's palette goes on its own effects immediately before its draw. */
    const float background[4] = {0.16f, 0.18f, 0.22f, 1.0f};
    cna_gl_begin_frame(gl, background);
    for (size_t i = 0; status == 0 && i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        for (size_t k = 0; mesh->skin >= 0 && k < mesh->part_count && status == 0; k++)
            if (cna_effect_set_bone_transforms(&m->effects[mesh->parts[k].effect],
                                               cna_player_skin_transforms(players[mesh->skin]),
                                               m->skins[mesh->skin].joint_count, &err))
                status = fail("palette", &err);
        if (status == 0 && cna_gl_draw_mesh(gl, m, i, absolute, &view, &proj, &err))
            status = fail("draw", &err);
    }
    unsigned char *rgba = malloc((size_t)W * H * 4);
    if (status == 0 && (!rgba || cna_gl_read_pixels(gl, rgba, (size_t)W * H * 4, &err) ||
                        cna_gl_write_png(out, W, H, rgba, &err)))
        status = fail(out, &err);
    if (status == 0) printf("frame_order: %s: %d frames, wrote %s\n", path, FRAMES, out);

    free(rgba);
    for (size_t s = 0; s < m->skin_count; s++) cna_player_free(players ? players[s] : NULL);
    free(players);
    free(absolute);
    cna_model_free(m);   /* before the context: it owns the GL buffers */
    cna_gl_context_free(gl);
    return status;
}
