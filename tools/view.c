/*
 * tools/view.c — `cna view FILE [--size WxH] [--frames N] [--screenshot
 * OUT.png] [--help-overlay]`: a GLFW window (OpenGL 3.3 core) playing a
 * model's animations, drawn through cna_gl with the window's context
 * (docs/rendering.md).
 *
 * Controls: drag with the left mouse button to orbit, wheel to zoom,
 * space = play/pause, left/right = previous/next animation (crossfaded
 * over 0.25 s), B = crossfade on/off (off: clips cut), up/down =
 * speed x2 / /2, M = cycle morph weights (the animation's, then each target
 * alone at weight 1), F = frame the model, F1 or H = show/hide the help
 * overlay (view_overlay.h: the keys as text on a dark panel in the top-left
 * corner; --help-overlay starts with it shown). The title bar shows the
 * animation's name, the time, the speed and whether clips crossfade or
 * cut; it lists the keys itself only when the overlay cannot be created.
 *
 * Clips play on two layers of the character (cna/character.h, "layers"):
 * the one playing the current clip has weight 1. A change of clip with
 * crossfading on gives the new clip to the other layer and calls
 * cna_character_crossfade (its weight 0 -> 1, the old one's 1 -> 0 over
 * 0.25 s of frame time, paused with the clock), so the layers alternate;
 * with crossfading off the current layer plays the new clip at once and the
 * other stops.
 *
 * Each frame: the character (cna/character.h, both layers in REPEAT mode,
 * time scale = the speed) is advanced and posed (rigid clip, skins, palettes, the
 * animation's morph weights, blended only where they changed); in a solo
 * morph mode the parts' weights are then replaced through
 * cna_character_set_morph_weights; cna_gl_draw_character draws it with each
 * mesh's palette. The model is never written.
 *
 * --frames N draws N frames with a fixed step of 1/60 s and exits (after
 * --screenshot writes the window's framebuffer as a PNG, the overlay
 * included when it is shown): what the tests under Xvfb run. Without GLFW
 * or cna_gl at build time the command answers that it is not built in.
 * Exit codes: 0, 1 failure (no display, refused file), 2 usage.
 */
#if defined(__SANITIZE_ADDRESS__)
#define _GNU_SOURCE 1   /* dl_iterate_phdr, RTLD_NOLOAD, RTLD_NODELETE */
#include <dlfcn.h>
#include <link.h>
#endif
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cna/cna.h"

#if defined(CNA_HAVE_GL) && defined(CNA_HAVE_GLFW)
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <cglm/cglm.h>

#include "cna/gl.h"
#include "view_overlay.h"
#define CNA__VIEW 1
#endif

void cna_cli_view_help(FILE *out)
{
    fprintf(out,
            "usage: cna view FILE [--size WxH] [--frames N] [--screenshot OUT.png] [--help-overlay]\n"
            "                     [--asset-root DIR] [--split-palettes] [--no-textures] [--max-decoded-size N]\n"
            "\n"
            "Opens a window (GLFW, OpenGL 3.3 core) that plays the model's animations.\n"
            "\n"
            "controls:\n"
            "  left-drag  orbit the camera        wheel   zoom\n"
            "  space      play / pause            F       frame the model\n"
            "  left/right previous / next clip    up/down speed x2 / /2\n"
            "  B          crossfade clips over 0.25 s (default) / cut\n"
            "  M          cycle morph weights (the animation's, then each target alone)\n"
            "  F1 or H    show / hide this list over the model (top left)   Esc  quit\n"
            "The title bar shows the clip's name, the time, the speed and \"crossfade\" or\n"
            "\"cut\".\n"
            "\n"
            "options:\n"
            "  --size WxH            window size (default 960x720)\n"
            "  --frames N            draw N frames at a fixed 1/60 s step, then exit\n"
            "  --screenshot OUT.png  with --frames: write the last frame as a PNG (atomically;\n"
            "                        refused when it is FILE or one of its buffers or images)\n"
            "  --help-overlay        start with the key overlay shown (as after F1)\n"
            CNA_CLI_ASSET_ROOT_HELP("      ", "                        ")
            CNA_CLI_CLIPS_HELP("          ", "                        ")
            CNA_CLI_SPLIT_PALETTES_HELP("      ", "                        ")
            CNA_CLI_NO_TEXTURES_HELP("      ", "                        ")
            CNA_CLI_MAX_DECODED_HELP("  ", "                        ")
            "  -h, --help            print this help\n"
            "\n"
            "exit status: 0 closed; 1 no display, the file is refused or drawing failed;\n"
            "2 usage error.\n");
}

typedef struct view_args {
    const char *path;
    uint32_t width, height;
    long frames;   /* 0: until the window closes */
    const char *screenshot;
    bool help_overlay;   /* start with the key overlay shown */
    const char *asset_root;  /* --asset-root; NULL when not given */
    bool split_palettes;     /* --split-palettes */
    bool no_textures;        /* --no-textures */
    size_t max_decoded;      /* --max-decoded-size; 0 = the default */
} view_args;

static int parse_args(const cna_cli_command *cmd, int argc, char **argv, view_args *a)
{
    memset(a, 0, sizeof *a);
    a->width = 960;
    a->height = 720;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int md = cna_cli_max_decoded_option(cmd, argc, argv, &i, &a->max_decoded);
        if (md == -1) continue;
        if (md >= 0) return md;
        if (strcmp(arg, "--size") == 0 || strcmp(arg, "--frames") == 0 || strcmp(arg, "--screenshot") == 0 ||
            strcmp(arg, "--asset-root") == 0) {
            if (i + 1 >= argc) return cna_cli_usage_error(cmd, "%s needs a value", arg);
            const char *v = argv[++i];
            char *end = NULL;
            errno = 0;
            if (strcmp(arg, "--size") == 0) {
                unsigned long w = strtoul(v, &end, 10), h = 0;
                if (!errno && end != v && (*end == 'x' || *end == 'X')) {
                    const char *hs = end + 1;
                    h = strtoul(hs, &end, 10);
                    if (end == hs) h = 0;
                }
                if (errno || *end || w < 16 || h < 16 || w > 4096 || h > 4096)
                    return cna_cli_usage_error(cmd, "--size: '%s' is not WxH with sides 16 to 4096", v);
                a->width = (uint32_t)w;
                a->height = (uint32_t)h;
            } else if (strcmp(arg, "--frames") == 0) {
                long n = strtol(v, &end, 10);
                if (errno || !*v || *end || n < 1 || n > 1000000)
                    return cna_cli_usage_error(cmd, "--frames: '%s' is not a count 1 to 1000000", v);
                a->frames = n;
            } else if (strcmp(arg, "--asset-root") == 0) {
                a->asset_root = v;
            } else {
                a->screenshot = v;
            }
        } else if (strcmp(arg, "--help-overlay") == 0) {
            a->help_overlay = true;
        } else if (strcmp(arg, "--split-palettes") == 0) {
            a->split_palettes = true;
        } else if (strcmp(arg, "--no-textures") == 0) {
            a->no_textures = true;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cna_cli_usage_error(cmd, "unknown option '%s'", arg);
        } else if (!a->path) {
            a->path = arg;
        } else {
            return cna_cli_usage_error(cmd, "unexpected argument '%s'", arg);
        }
    }
    if (!a->path) return cna_cli_usage_error(cmd, "missing FILE");
    if (a->screenshot && a->frames == 0) return cna_cli_usage_error(cmd, "--screenshot needs --frames N");
    return -1;
}

#ifdef CNA__VIEW

typedef struct viewer {
    cna_model *m;
    cna_gl_context *gl;
    cna_gl_model *glm;        /* the model's buffers and textures */
    cna_gl_instance *inst;    /* the character's morphed vertices on the GPU */
    cna_character *c;         /* plays the model: skins, rigid clip, animated morph weights */
    float *weights;         /* a solo morph mode's weights */
    size_t weight_cap;
    long anim;              /* -1 without animations */
    size_t layer;           /* the layer playing anim (0 or 1) */
    bool crossfade;         /* B: a change of clip crossfades (else it cuts) */
    double speed;
    bool playing;
    size_t morph_mode;      /* 0: the animation's weights; k: target k-1 alone */
    size_t morph_modes;     /* 1 + the most targets of any part */
    bool show_keys;         /* F1 / H: the key overlay shown */
    cna_cli_overlay *overlay;   /* NULL when it cannot be drawn: the keys go to the title bar */
    /* orbit camera */
    float yaw, pitch, distance, target[3], radius;
    bool dragging;
    double last_x, last_y;
} viewer;

/* How long a change of clip crossfades, in seconds of frame time. */
#define CNA__VIEW_CROSSFADE_SECONDS 0.25

/* Play `anim`. With `fade`, crossfading on and a clip playing: the other
 * layer takes it and fades in over the crossfade time while the current one
 * fades out (cna_character_crossfade), and becomes the current layer.
 * Otherwise a cut: the current layer plays it at weight 1 and the other
 * stops. */
static cna_result start_animation(viewer *v, long anim, bool fade, cna_error *err)
{
    const size_t other = 1 - v->layer;
    cna_result r;
    if (fade && v->crossfade && v->anim >= 0 && anim >= 0) {
        r = cna_character_crossfade(v->c, v->layer, other, anim, CNA__VIEW_CROSSFADE_SECONDS, 0, err);
        if (r) return r;
        v->layer = other;
    } else {
        r = cna_character_layer_play(v->c, v->layer, anim, err);
        if (!r) r = cna_character_layer_set_weight(v->c, v->layer, 1.0f, err);
        if (!r) r = cna_character_layer_play(v->c, other, -1, err);
        if (!r) r = cna_character_layer_set_weight(v->c, other, 0.0f, err);
        if (r) return r;
    }
    v->anim = anim;
    return CNA_OK;
}

/* One frame's pose (cna_character_update: both layers' clocks advanced by
 * dt at the speed, looping, a crossfade moved on by dt, then rigid clip,
 * skins, palettes, the animations' morph weights); in a solo morph mode the parts' weights are then replaced by
 * target k alone (the character blends only where they differ, and the next
 * pose sets the animation's weights again). */
static cna_result pose(viewer *v, double dt, cna_error *err)
{
    cna_model *m = v->m;
    cna_result r = CNA_OK;
    for (size_t l = 0; l < 2 && !r; l++) r = cna_character_layer_set_time_scale(v->c, l, v->speed, err);
    if (!r) r = cna_character_update(v->c, v->playing && v->anim >= 0 ? dt : 0.0, err);
    if (r) return r;
    if (v->morph_mode == 0) return CNA_OK;
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++) {
            const cna_model_part *part = &m->meshes[i].parts[k];
            if (!part->morph || part->morph->target_count > v->weight_cap) continue;
            const size_t n = part->morph->target_count;
            for (size_t w = 0; w < n; w++) v->weights[w] = w + 1 == v->morph_mode ? 1.0f : 0.0f;
            if ((r = cna_character_set_morph_weights(v->c, i, k, v->weights, n, err))) return r;
        }
    return CNA_OK;
}

/* F: orbit around the meshes' bounding spheres (world space). */
static void frame_model(viewer *v)
{
    const cna_model *m = v->m;
    float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        cna_vec3 c = cna_mat4_transform_point(cna_character_absolute_transform(v->c, (size_t)mesh->parent_bone), mesh->bounds.center);
        const cna_mat4 *w = cna_character_absolute_transform(v->c, (size_t)mesh->parent_bone);
        float sc = fmaxf(fmaxf(sqrtf(w->m[0] * w->m[0] + w->m[1] * w->m[1] + w->m[2] * w->m[2]),
                               sqrtf(w->m[4] * w->m[4] + w->m[5] * w->m[5] + w->m[6] * w->m[6])),
                         sqrtf(w->m[8] * w->m[8] + w->m[9] * w->m[9] + w->m[10] * w->m[10]));
        float r = mesh->bounds.radius * sc, p[3] = {c.x, c.y, c.z};
        if (!isfinite(r) || !isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
        for (int a = 0; a < 3; a++) lo[a] = fminf(lo[a], p[a] - r), hi[a] = fmaxf(hi[a], p[a] + r);
    }
    v->radius = 1.0f;
    for (int a = 0; a < 3; a++) v->target[a] = 0.0f;
    if (lo[0] <= hi[0]) {
        for (int a = 0; a < 3; a++) v->target[a] = 0.5f * (lo[a] + hi[a]);
        float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
        v->radius = 0.5f * sqrtf(dx * dx + dy * dy + dz * dz);
        if (!(v->radius > 1e-6f)) v->radius = 1.0f;
    }
    v->yaw = 0.4f;
    v->pitch = 0.2f;
    v->distance = v->radius / sinf(glm_rad(22.5f)) * 0.9f;
}

static void camera(const viewer *v, float aspect, cna_mat4 *view, cna_mat4 *proj)
{
    vec3 eye = {v->target[0] + v->distance * cosf(v->pitch) * sinf(v->yaw),
                v->target[1] + v->distance * sinf(v->pitch),
                v->target[2] + v->distance * cosf(v->pitch) * cosf(v->yaw)};
    vec3 target = {v->target[0], v->target[1], v->target[2]};
    glm_lookat(eye, target, (vec3){0, 1, 0}, (vec4 *)view->m);
    float nearp = fmaxf(v->distance - v->radius * 2.0f, v->distance * 1e-3f);
    glm_perspective(glm_rad(45.0f), aspect, nearp, v->distance + v->radius * 2.0f, (vec4 *)proj->m);
}

static void set_title(GLFWwindow *win, const viewer *v)
{
    char title[512];
    const char *name = "(no animations)";
    char numbered[32];
    if (v->anim >= 0) {
        name = v->m->node_clips[v->anim].name;
        if (!name || !*name) {
            snprintf(numbered, sizeof numbered, "animation %ld", v->anim);
            name = numbered;
        }
    }
    char morph[48] = "";
    if (v->morph_mode > 0) snprintf(morph, sizeof morph, "  morph target %zu", v->morph_mode - 1);
    snprintf(title, sizeof title, "cna view - %s  %.2f / %.2f s  x%g  %s%s%s%s", name,
             cna_character_layer_time(v->c, v->layer),
             cna_ticks_to_seconds(cna_character_layer_duration(v->c, v->layer)), v->speed,
             v->crossfade ? "crossfade" : "cut", v->playing ? "" : "  (paused)", morph,
             !v->show_keys ? "  (F1: keys)"
             : v->overlay  ? ""
                           : "  |  drag: orbit  wheel: zoom  space: play/pause  left/right: clip  "
                             "B: crossfade/cut  up/down: speed  M: morph  F: frame  F1/H: keys  Esc: quit");
    glfwSetWindowTitle(win, title);
}

/* The help overlay's text: every key on_key and the mouse callbacks handle. */
static const char *const view_keys[] = {
    "cna view - keys",
    "",
    "left-drag   orbit the camera",
    "wheel       zoom",
    "space       play / pause",
    "left/right  previous / next animation",
    "B           crossfade clips on / off",
    "up/down     speed x2 / /2",
    "M           cycle morph weights",
    "F           frame the model",
    "F1 or H     show / hide this help",
    "Esc         quit",
};

static void on_key(GLFWwindow *win, int key, int scancode, int action, int mods)
{
    (void)scancode;
    (void)mods;
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    viewer *v = (viewer *)glfwGetWindowUserPointer(win);
    cna_error err;
    long n = (long)v->m->animation_count;
    switch (key) {
    case GLFW_KEY_SPACE: v->playing = !v->playing; break;
    case GLFW_KEY_RIGHT: if (n > 0) (void)start_animation(v, (v->anim + 1) % n, true, &err); break;
    case GLFW_KEY_LEFT: if (n > 0) (void)start_animation(v, (v->anim + n - 1) % n, true, &err); break;
    case GLFW_KEY_B: v->crossfade = !v->crossfade; break;
    case GLFW_KEY_UP: if (v->speed < 64.0) v->speed *= 2.0; break;
    case GLFW_KEY_DOWN: if (v->speed > 1.0 / 64.0) v->speed /= 2.0; break;
    case GLFW_KEY_M: v->morph_mode = (v->morph_mode + 1) % v->morph_modes; break;
    case GLFW_KEY_F: frame_model(v); break;
    case GLFW_KEY_F1:
    case GLFW_KEY_H: v->show_keys = !v->show_keys; break;
    case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(win, GLFW_TRUE); break;
    default: break;
    }
}

static void on_button(GLFWwindow *win, int button, int action, int mods)
{
    (void)mods;
    viewer *v = (viewer *)glfwGetWindowUserPointer(win);
    if (button != GLFW_MOUSE_BUTTON_LEFT) return;
    v->dragging = action == GLFW_PRESS;
    glfwGetCursorPos(win, &v->last_x, &v->last_y);
}

static void on_cursor(GLFWwindow *win, double x, double y)
{
    viewer *v = (viewer *)glfwGetWindowUserPointer(win);
    if (!v->dragging) return;
    v->yaw -= (float)(x - v->last_x) * 0.01f;
    v->pitch += (float)(y - v->last_y) * 0.01f;
    if (v->pitch > 1.5f) v->pitch = 1.5f;
    if (v->pitch < -1.5f) v->pitch = -1.5f;
    v->last_x = x;
    v->last_y = y;
}

static void on_scroll(GLFWwindow *win, double dx, double dy)
{
    (void)dx;
    viewer *v = (viewer *)glfwGetWindowUserPointer(win);
    v->distance *= powf(0.9f, (float)dy);
    if (v->distance < v->radius * 0.05f) v->distance = v->radius * 0.05f;
    if (v->distance > v->radius * 100.0f) v->distance = v->radius * 100.0f;
}

/* The posed character, every mesh with its skin's palette. */
static cna_result draw(viewer *v, const cna_mat4 *view, const cna_mat4 *proj, cna_error *err)
{
    return cna_gl_draw_character(v->gl, v->glm, v->inst, v->c, NULL, view, proj, err);
}

#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer builds only: Mesa's GLX unloads its DRI driver when the
 * display closes, and LeakSanitizer then reports the driver's remaining
 * allocations as leaks from an unknown module. Keeping every loaded *_dri.so
 * mapped (RTLD_NOLOAD | RTLD_NODELETE) keeps them attributable and
 * reachable, as the GL tests do for the EGL path. */
static int keep_dri_driver(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (info->dlpi_name && strstr(info->dlpi_name, "_dri.so"))
        (void)dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    return 0;
}
#endif

static int view_run(const view_args *a)
{
    cna_error err;
    memset(&err, 0, sizeof err);
    if (!glfwInit()) {
        const char *why = NULL;
        glfwGetError(&why);
        fprintf(stderr, "error: cannot open a display (GLFW: %s)\n", why ? why : "unknown");
        return CNA_CLI_EXIT_FAILURE;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SAMPLES, 4);
    GLFWwindow *win = glfwCreateWindow((int)a->width, (int)a->height, "cna view", NULL, NULL);
    if (!win) {
        const char *why = NULL;
        glfwGetError(&why);
        fprintf(stderr, "error: cannot create an OpenGL 3.3 core window (GLFW: %s)\n", why ? why : "unknown");
        glfwTerminate();
        return CNA_CLI_EXIT_FAILURE;
    }
    glfwMakeContextCurrent(win);
#if defined(__SANITIZE_ADDRESS__)
    dl_iterate_phdr(keep_dri_driver, NULL);
#endif
    glfwSwapInterval(a->frames ? 0 : 1);
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(win, &fw, &fh);
    int status = CNA_CLI_EXIT_OK;
    viewer v;
    memset(&v, 0, sizeof v);
    v.speed = 1.0;
    v.playing = true;
    v.anim = -1;
    v.crossfade = true;
    cna_gl_context_options go;
    memset(&go, 0, sizeof go);
    go.width = (uint32_t)(fw > 0 ? fw : 1);
    go.height = (uint32_t)(fh > 0 ? fh : 1);
    go.use_current = true;
    if (cna_gl_context_create(&go, &v.gl, &err)) {
        status = cna_cli_report_error("gl", &err);
        goto done;
    }
    cna_cli_files inputs;
    memset(&inputs, 0, sizeof inputs);
    cna_import_options io;
    memset(&io, 0, sizeof io);
    io.gltf.asset_root = a->asset_root;
    io.split_palettes = a->split_palettes;
    io.gltf.no_textures = a->no_textures;
    io.gltf.max_decoded_size = a->max_decoded;
    cna_result loaded = cna_cli_load_any(a->path, &io, &v.m, &inputs, &err);
    bool clash = loaded == CNA_OK && a->screenshot && cna_cli_refuse_overwrite(a->screenshot, &inputs);
    cna_cli_files_free(&inputs);
    if (loaded != CNA_OK || cna_gl_model_create(v.gl, v.m, &v.glm, &err)) {
        status = cna_cli_report_error(a->path, &err);
        goto done;
    }
    if (clash) { /* the screenshot would overwrite a file the model is read from */
        status = CNA_CLI_EXIT_FAILURE;
        goto done;
    }
    cna_error image_err;
    size_t failed = cna_gl_model_texture_failures(v.glm, &image_err);
    if (failed)
        fprintf(stderr, "warning: %s: %zu image(s) not decoded, drawn with the factor alone (%s)\n", a->path, failed,
                image_err.message);
    if (cna_gl_instance_create(v.glm, &v.inst, &err) || cna_character_create(v.m, NULL, &v.c, &err) ||
        cna_character_layer_set_loop_mode(v.c, 0, CNA_LOOP_MODE_REPEAT, &err) ||
        cna_character_layer_set_loop_mode(v.c, 1, CNA_LOOP_MODE_REPEAT, &err)) {
        status = cna_cli_report_error(a->path, &err);
        goto done;
    }
    v.morph_modes = 1;
    for (size_t i = 0; i < v.m->mesh_count; i++)
        for (size_t k = 0; k < v.m->meshes[i].part_count; k++)
            if (v.m->meshes[i].parts[k].morph && v.m->meshes[i].parts[k].morph->target_count + 1 > v.morph_modes)
                v.morph_modes = v.m->meshes[i].parts[k].morph->target_count + 1;
    v.weight_cap = v.morph_modes;
    v.weights = (float *)calloc(v.weight_cap, sizeof *v.weights);
    if (!v.weights) {
        fprintf(stderr, "error: out of memory\n");
        status = CNA_CLI_EXIT_FAILURE;
        goto done;
    }
    if (start_animation(&v, v.m->animation_count > 0 ? 0 : -1, false, &err) || pose(&v, 0.0, &err)) {
        status = cna_cli_report_error(a->path, &err);
        goto done;
    }
    frame_model(&v);
    v.show_keys = a->help_overlay;
    if (cna_cli_overlay_create(&v.overlay, &err) ||
        cna_cli_overlay_set_text(v.overlay, view_keys, sizeof view_keys / sizeof view_keys[0], &err)) {
        fprintf(stderr, "warning: the key overlay cannot be drawn (%s); F1 or H lists the keys in the title bar\n",
                err.message);
        cna_cli_overlay_free(v.overlay);
        v.overlay = NULL;
    }
    glfwSetWindowUserPointer(win, &v);
    glfwSetKeyCallback(win, on_key);
    glfwSetMouseButtonCallback(win, on_button);
    glfwSetCursorPosCallback(win, on_cursor);
    glfwSetScrollCallback(win, on_scroll);
    const float background[4] = {0.16f, 0.18f, 0.22f, 1.0f};
    double last = glfwGetTime();
    for (long frame = 0; !glfwWindowShouldClose(win); frame++) {
        double now = glfwGetTime(), dt = a->frames ? 1.0 / 60.0 : now - last;
        last = now;
        if (pose(&v, frame == 0 ? 0.0 : dt, &err)) {
            status = cna_cli_report_error(a->path, &err);
            break;
        }
        glfwGetFramebufferSize(win, &fw, &fh);
        if (fw > 0 && fh > 0) (void)cna_gl_context_resize(v.gl, (uint32_t)fw, (uint32_t)fh, &err);
        cna_mat4 view, proj;
        camera(&v, fh > 0 ? (float)fw / (float)fh : 1.0f, &view, &proj);
        cna_gl_begin_frame(v.gl, background);
        if (draw(&v, &view, &proj, &err)) {
            status = cna_cli_report_error(a->path, &err);
            break;
        }
        if (v.show_keys && v.overlay && cna_cli_overlay_draw(v.overlay, fw, fh, &err)) {
            status = cna_cli_report_error(NULL, &err);
            break;
        }
        set_title(win, &v);
        if (a->frames && frame + 1 >= a->frames) {
            if (a->screenshot) {
                uint32_t w = cna_gl_context_width(v.gl), h = cna_gl_context_height(v.gl);
                size_t size = (size_t)w * h * 4;
                unsigned char *rgba = (unsigned char *)malloc(size);
                if (!rgba || cna_gl_read_pixels(v.gl, rgba, size, &err) ||
                    cna_gl_write_png(a->screenshot, w, h, rgba, &err))
                    status = rgba ? cna_cli_report_error(a->screenshot, &err) : CNA_CLI_EXIT_FAILURE;
                free(rgba);
            }
            break;
        }
        glfwSwapBuffers(win);
        glfwPollEvents();
    }
done:
    cna_cli_overlay_free(v.overlay);   /* GL objects, while the context is current */
    cna_character_free(v.c);
    free(v.weights);
    cna_gl_instance_free(v.inst);   /* GL objects, while the context is current */
    cna_gl_model_free(v.glm);
    cna_model_free(v.m);
    cna_gl_context_free(v.gl);
    glfwDestroyWindow(win);
    glfwTerminate();
    return status;
}

#endif /* CNA__VIEW */

int cna_cli_view_run(int argc, char **argv)
{
    const cna_cli_command *cmd = cna_cli_find("view");
    for (int i = 1; i < argc; i++) {
        if (cna_cli_is_help(argv[i])) {
            cna_cli_view_help(stdout);
            return CNA_CLI_EXIT_OK;
        }
    }
    view_args a;
    int r = parse_args(cmd, argc, argv, &a);
    if (r >= 0) return r;
    /* The file first: a missing or foreign file is named before any display error. */
    if (cna_cli_probe_file(a.path, true) == CNA_CLI_FILE_UNUSABLE) return CNA_CLI_EXIT_FAILURE;
#ifdef CNA__VIEW
    return view_run(&a);
#else
    fprintf(stderr, "error: this cna was built without GLFW or cna_gl; `cna view` is unavailable\n");
    return CNA_CLI_EXIT_FAILURE;
#endif
}
