/*
 * tools/render.c — `cna render FILE [--animation I|NAME] [--time SECONDS]
 * [--size WxH] [--look-at ex,ey,ez,tx,ty,tz] [--fov DEGREES]
 * [--background R,G,B] [--sheet N] [--asset-root DIR] [--gif OUT.gif [--frames N]]
 * [--blend I|NAME [--blend-time SECONDS] [--weight W]] -o OUT.png`:
 * draw a model headless
 * (cna_gl: EGL surfaceless, llvmpipe without a GPU) and write a PNG
 * (docs/rendering.md).
 *
 * One frame: the character (cna/character.h) is seeked to t in ONCE mode
 * (t is clamped to the clip) and posed: every bone at rest, the
 * animation's scene-node clip, each skin's joints, absolute transforms,
 * each skin's palette (root prefixes composed in) and each morphed part's
 * weights (its weight track at t, else the initial weights; blended only
 * when they changed). cna_gl_draw_character then draws every mesh with
 * world = absolute transform of its parent bone (times each instance matrix
 * of an instanced mesh, in one instanced draw), its skin's palette and, for
 * a morphed part, the character's blended vertices (uploaded only when they
 * changed). The model is never written.
 * With --blend the character plays two layers (tools/blend.c): layer 0 the
 * animation at weight 1 - W, layer 1 the --blend animation at weight W; a
 * single frame poses it at --blend-time (clamped), the frames of a sheet or
 * a GIF advance it with the first layer: at --blend-time + t, looping.
 * Camera: perspective, vertical field of view, +Y up, right-handed (glTF).
 * Without --look-at it looks at the centre of the posed vertices' box (the
 * reference CPU skinning of cna/skinning.h, for every frame of a sheet) from
 * the front-right, slightly above, at the distance that fits the box.
 *
 * Without the cna_gl library (built with -DCNA_BUILD_GL=OFF) the command
 * exists but answers that rendering is not built in.
 *
 * Exit codes: 0 written, 1 the file is refused or rendering failed, 2 usage.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ik_options.h"
#include "cna/cna.h"

#ifdef CNA_HAVE_GL
#include <cglm/cglm.h>

#include "cna/gl.h"
#endif
#ifdef CNA_HAVE_GIF
#include <gif_lib.h>

#include "core/internal.h" /* cna__file_writer: the library's atomic file writes */
#endif

/* --size: each side up to what the renderer draws (cna/gl.h); the value of
 * CNA_GL_MAX_SIZE in a build without it, where render answers anyway that it
 * is not built in. */
#ifdef CNA_HAVE_GL
#define RENDER_MAX_SIZE CNA_GL_MAX_SIZE
#else
#define RENDER_MAX_SIZE 8192
#endif

void cna_cli_render_help(FILE *out)
{
    fprintf(out,
            "usage: cna render FILE [--animation I|NAME] [--time SECONDS] [--size WxH]\n"
            "                       [--look-at ex,ey,ez,tx,ty,tz] [--fov DEGREES]\n"
            "                       [--background R,G,B] [--sheet N] [--asset-root DIR] [--split-palettes]\n"
            "                       [--no-textures] [--max-decoded-size N]\n"
            "                       [--blend I|NAME [--blend-time SECONDS] [--weight W]] [--bones]\n"
            "                       [--gif OUT.gif [--frames N]] -o OUT.png\n"
            "\n"
            "Imports FILE (.gltf or .glb, or a .cnb from cna convert), poses it at a time\n"
            "and draws it offscreen with OpenGL 3.3 through EGL (no display or GPU needed:\n"
            "Mesa's llvmpipe), then writes a PNG and prints what it wrote (\"wrote OUT.png\n"
            "(640x480)\"). Skinned meshes are skinned on the GPU with their skin's palette;\n"
            "materials are drawn with all their maps (docs/rendering.md). An image a drawn\n"
            "material uses that cannot be read or decoded is drawn with the factor alone\n"
            "and named on stderr (\"warning: materials[2] \\\"Body\\\": normalTexture: images[5]\n"
            "\\\"body_n\\\": cannot open ...\").\n"
            "\n"
            "The PNG and the GIF are written atomically (a temporary file beside each,\n"
            "renamed over it only when complete: a failure leaves a previous file as it\n"
            "was). An output that is the same file as FILE, one of its buffers or images,\n"
            "or the other output, is refused before anything is drawn or written.\n"
            "\n"
            "options:\n"
            "  --animation I|NAME  the animation, by index or name (default: none, the rest\n"
            "                      pose; with --time, --sheet or --gif, animation 0)\n"
            "  --time SECONDS      time into the animation (default 0); a time outside\n"
            "                      [0, duration] is clamped, with a note on stderr\n"
            "  --size WxH          image size in pixels, sides 1 to 8192 (CNA_GL_MAX_SIZE;\n"
            "                      default 640x480; per frame with --sheet)\n"
            "  --look-at ex,ey,ez,tx,ty,tz  camera position and target, which must differ\n"
            "                      (default: frame the posed model's bounds from the\n"
            "                      front-right, slightly above)\n"
            "  --fov DEGREES       vertical field of view (default 45)\n"
            "  --background R,G,B  clear colour, each 0..1 (default 0.16,0.18,0.22)\n"
            "  --sheet N           render N frames spread evenly over the clip (t = i*d/N)\n"
            "                      into one contact sheet, the time printed under each\n"
            "                      (the file must have an animation)\n"
            "  --gif OUT.gif       also (or, without -o, only) write an animated GIF that\n"
            "                      loops the clip (giflib; animation 0 by default)\n"
            "  --frames N          GIF frames over the clip, t = i*d/N (default 24)\n"
            "  --blend I|NAME      blend the animation with this one, by index or name: two\n"
            "                      layers, the animation at weight 1 - W and this one at W\n"
            "                      (as cna pose --blend)\n"
            "  --blend-time SECONDS  its time (default: --time), clamped as --time is; the\n"
            "                      frames of --sheet and --gif play it from there with the\n"
            "                      animation, looping: at --blend-time + t\n"
            "  --weight W          its weight, a number in [0, 1] (default 0.5)\n"
            "  --bones             draw the skeleton over the model: bones as lines to\n"
            "                      their parents, joints as points (a file with nothing\n"
            "                      else to draw, such as an animation-only file, is\n"
            "                      drawn so without it, with a note on stderr)\n"
            CNA_CLI_ASSET_ROOT_HELP("    ", "                      ")
            CNA_CLI_CLIPS_HELP("        ", "                      ")
            CNA_CLI_SPLIT_PALETTES_HELP("    ", "                      ")
            CNA_CLI_NO_TEXTURES_HELP("    ", "                      ")
            CNA_CLI_MAX_DECODED_HELP(" ", "                      ")
            "  -o OUT.png          the PNG to write (required unless --gif is given); only\n"
            "                      .png and .gif outputs are written\n"
            );
    cna_cli_ik_help(out, 22);
    fprintf(out,
            "  -h, --help          print this help\n"
            "\n"
            "exit status: 0 written; 1 the file is refused or rendering failed\n"
            "(\"error: FILE: message\"); 2 usage error.\n");
}

typedef struct render_args {
    const char *path;
    const char *asset_root;  /* --asset-root; NULL when not given */
    bool split_palettes;     /* --split-palettes */
    bool no_textures;        /* --no-textures */
    size_t max_decoded;      /* --max-decoded-size; 0 = the default */
    const char *animation;
    const char *time_text;   /* --time as typed; NULL when not given */
    double time;
    uint32_t width, height;
    bool has_look_at;
    float look_at[6];
    float fov;
    float background[3];
    uint32_t sheet;
    const char *out;
    const char *gif;
    uint32_t gif_frames;
    cna_cli_blend blend;     /* --blend, --blend-time, --weight */
    bool bones;              /* --bones: the skeleton over the model */
    cna_cli_ik ik;           /* --ik, --aim and their modifiers (tools/ik_options.c) */
} render_args;

static bool parse_floats(const char *s, float *out, int n)
{
    const char *p = s;
    for (int i = 0; i < n; i++) {
        char *end = NULL;
        errno = 0;
        double v = strtod(p, &end);
        if (errno || end == p || !isfinite(v) || fabs(v) > 1e30) return false;
        out[i] = (float)v;
        p = end;
        if (i + 1 < n) {
            if (*p != ',') return false;
            p++;
        }
    }
    return *p == '\0';
}

/* true when `s` ends with `suffix`, ignoring ASCII case (".PNG" too). */
static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n < k) return false;
    for (size_t i = 0; i < k; i++) {
        char c = s[n - k + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return false;
    }
    return true;
}

/* true when the last component of `path` has a '.' after its first character. */
static bool has_extension(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base;
}

static int parse_args(const cna_cli_command *cmd, int argc, char **argv, render_args *a)
{
    memset(a, 0, sizeof *a);
    a->width = 640;
    a->height = 480;
    a->fov = 45.0f;
    a->background[0] = 0.16f;
    a->background[1] = 0.18f;
    a->background[2] = 0.22f;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int md = cna_cli_max_decoded_option(cmd, argc, argv, &i, &a->max_decoded);
        if (md == -1) continue;
        if (md >= 0) return md;
        if (cna_cli_is_blend_option(arg)) {
            if (i + 1 >= argc) return cna_cli_usage_error(cmd, "%s needs a value", arg);
            int u = cna_cli_blend_parse(cmd, arg, argv[++i], &a->blend);
            if (u >= 0) return u;
            continue;
        }
        if (cna_cli_is_ik_option(arg)) {
            if (i + 1 >= argc) return cna_cli_usage_error(cmd, "%s needs a value", arg);
            int u = cna_cli_ik_parse(cmd, arg, argv[++i], &a->ik);
            if (u >= 0) return u;
            continue;
        }
        static const char *const valued[] = {"--animation", "--time", "--size", "--look-at", "--fov",
                                             "--background", "--sheet", "-o", "--gif", "--frames",
                                             "--asset-root"};
        bool takes = false;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
            if (strcmp(arg, valued[k]) == 0) takes = true;
        if (takes) {
            if (i + 1 >= argc) return cna_cli_usage_error(cmd, "%s needs a value", arg);
            const char *v = argv[++i];
            char *end = NULL;
            if (strcmp(arg, "--animation") == 0) {
                a->animation = v;
            } else if (strcmp(arg, "--time") == 0) {
                errno = 0;
                double t = strtod(v, &end);
                if (errno || !*v || *end || !isfinite(t))
                    return cna_cli_usage_error(cmd, "--time: '%s' is not a number of seconds", v);
                a->time = t;
                a->time_text = v;
            } else if (strcmp(arg, "--size") == 0) {
                unsigned long w = 0, h = 0;
                errno = 0;
                w = strtoul(v, &end, 10);
                if (!errno && end != v && (*end == 'x' || *end == 'X')) {
                    const char *hs = end + 1;
                    h = strtoul(hs, &end, 10);
                    if (end == hs) h = 0;
                }
                if (errno || *end || w < 1 || h < 1 || w > RENDER_MAX_SIZE || h > RENDER_MAX_SIZE)
                    return cna_cli_usage_error(cmd, "--size: '%s' is not WxH with sides 1 to %d (CNA_GL_MAX_SIZE)", v,
                                               RENDER_MAX_SIZE);
                a->width = (uint32_t)w;
                a->height = (uint32_t)h;
            } else if (strcmp(arg, "--look-at") == 0) {
                if (!parse_floats(v, a->look_at, 6))
                    return cna_cli_usage_error(cmd, "--look-at: '%s' is not six numbers ex,ey,ez,tx,ty,tz", v);
                const double dx = (double)a->look_at[3] - a->look_at[0], dy = (double)a->look_at[4] - a->look_at[1],
                             dz = (double)a->look_at[5] - a->look_at[2];
                if (!(dx * dx + dy * dy + dz * dz > 0.0))
                    return cna_cli_usage_error(cmd, "--look-at: '%s' puts the eye on the target; they must differ", v);
                a->has_look_at = true;
            } else if (strcmp(arg, "--fov") == 0) {
                float f = 0;
                if (!parse_floats(v, &f, 1) || !(f > 0.5f && f < 179.5f))
                    return cna_cli_usage_error(cmd, "--fov: '%s' is not a number of degrees in (0.5, 179.5)", v);
                a->fov = f;
            } else if (strcmp(arg, "--background") == 0) {
                if (!parse_floats(v, a->background, 3) || a->background[0] < 0 || a->background[0] > 1 ||
                    a->background[1] < 0 || a->background[1] > 1 || a->background[2] < 0 || a->background[2] > 1)
                    return cna_cli_usage_error(cmd, "--background: '%s' is not R,G,B each in 0..1", v);
            } else if (strcmp(arg, "--sheet") == 0) {
                errno = 0;
                unsigned long n = strtoul(v, &end, 10);
                if (errno || !*v || *end || n < 1 || n > 256)
                    return cna_cli_usage_error(cmd, "--sheet: '%s' is not a frame count 1 to 256", v);
                a->sheet = (uint32_t)n;
            } else if (strcmp(arg, "--frames") == 0) {
                errno = 0;
                unsigned long n = strtoul(v, &end, 10);
                if (errno || !*v || *end || n < 1 || n > 1000)
                    return cna_cli_usage_error(cmd, "--frames: '%s' is not a frame count 1 to 1000", v);
                a->gif_frames = (uint32_t)n;
            } else if (strcmp(arg, "--gif") == 0) {
                a->gif = v;
            } else if (strcmp(arg, "--asset-root") == 0) {
                a->asset_root = v;
            } else {
                a->out = v;
            }
        } else if (strcmp(arg, "--split-palettes") == 0) {
            a->split_palettes = true;
        } else if (strcmp(arg, "--bones") == 0) {
            a->bones = true;
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
    if (!a->out && !a->gif) return cna_cli_usage_error(cmd, "missing -o OUT.png");
    /* A name with another extension (x.jpg) is refused; one without (a device
     * such as /dev/stdout) is written as asked. */
    if (a->out && has_extension(a->out) && !has_suffix(a->out, ".png"))
        return cna_cli_usage_error(cmd, "-o: '%s': only .png and .gif (--gif) outputs are written", a->out);
    if (a->gif && has_extension(a->gif) && !has_suffix(a->gif, ".gif"))
        return cna_cli_usage_error(cmd, "--gif: '%s': only .png and .gif (--gif) outputs are written", a->gif);
    if (a->gif_frames && !a->gif) return cna_cli_usage_error(cmd, "--frames needs --gif OUT.gif");
    if (!a->gif_frames) a->gif_frames = 24;
    return cna_cli_blend_check(cmd, &a->blend);
}

#ifdef CNA_HAVE_GL

/* ------------------------------------------------------------ the scene at a time */

typedef struct scene {
    cna_model *m;
    long anim;                /* -1: rest pose */
    cna_character *c;         /* poses the whole model (skins, rigid clip, morph weights) */
    cna_gl_model *glm;        /* the model's buffers and textures */
    cna_gl_instance *inst;    /* the character's morphed vertices on the GPU */
    bool blend;               /* layer 1 plays --blend */
    double blend_time;        /* its time in a single frame (clamped) */
    bool skeleton;            /* draw the skeleton over each frame (--bones, or nothing else to draw) */
} scene;

/* A frame at t (seconds, already clamped): seek (ONCE mode) and pose. With
 * --blend, layer 1 is at blend_time in a single frame and, in a frame of a
 * sheet or a GIF (`animated`), at blend_time + t in REPEAT mode: it advances
 * with layer 0 and loops. */
static cna_result scene_pose(scene *sc, double t, bool animated, cna_error *err)
{
    cna_result r = cna_character_seek(sc->c, t, err);
    if (!r && sc->blend)
        r = cna_character_layer_set_loop_mode(sc->c, 1, animated ? CNA_LOOP_MODE_REPEAT : CNA_LOOP_MODE_ONCE, err);
    if (!r && sc->blend) r = cna_character_layer_seek(sc->c, 1, animated ? sc->blend_time + t : sc->blend_time, err);
    return r ? r : cna_character_pose(sc->c, err);
}

/* What a pass over the posed vertices does with each point (world space). */
typedef struct point_sink {
    float lo[3], hi[3];   /* box: grown by every point */
    bool fit;             /* also grow `need` (camera distance) below */
    float center[3], right[3], up[3], back[3], tx, ty;
    float need;
} point_sink;

static void sink_point(point_sink *k, const float c[3])
{
    for (int a = 0; a < 3; a++) {
        if (!isfinite(c[a])) return;
    }
    for (int a = 0; a < 3; a++) {
        if (c[a] < k->lo[a]) k->lo[a] = c[a];
        if (c[a] > k->hi[a]) k->hi[a] = c[a];
    }
    if (!k->fit) return;
    /* Camera distance from the centre along `back` that keeps the point in
     * view: |x| <= (d - z) tan(fovx/2), |y| <= (d - z) tan(fovy/2). */
    float rel[3] = {c[0] - k->center[0], c[1] - k->center[1], c[2] - k->center[2]};
    float x = rel[0] * k->right[0] + rel[1] * k->right[1] + rel[2] * k->right[2];
    float y = rel[0] * k->up[0] + rel[1] * k->up[1] + rel[2] * k->up[2];
    float z = rel[0] * k->back[0] + rel[1] * k->back[1] + rel[2] * k->back[2];
    float need = fmaxf(z + fabsf(x) / k->tx, z + fabsf(y) / k->ty);
    if (need > k->need) k->need = need;
}

/* Feed every posed vertex of every part to the sink (reference CPU skinning,
 * then the parent bone's absolute transform and, instanced, each instance
 * matrix: the glTF position). */
static cna_result scene_points(const scene *sc, point_sink *k, cna_error *err)
{
    const cna_model *m = sc->m;
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        for (size_t p = 0; p < mesh->part_count; p++) {
            const cna_model_part *part = &mesh->parts[p];
            size_t n = part->vertex_count, stride = part->declaration.stride;
            const unsigned char *bytes = (const unsigned char *)cna_character_part_vertices(sc->c, i, p, NULL);
            if (!bytes || n == 0) continue;
            float *xyz = (float *)malloc(n * 3 * sizeof(float));
            if (!xyz) {
                err->code = CNA_ERROR_OUT_OF_MEMORY;
                snprintf(err->message, sizeof err->message, "out of memory");
                return CNA_ERROR_OUT_OF_MEMORY;
            }
            if (mesh->skin >= 0) {
                cna_skinning_layout layout;
                cna_result r = cna_skinning_layout_canonical((uint32_t)stride, &layout, err);
                size_t palette_count = 0; /* the skin's palette, or a split part's sub-palette */
                const cna_mat4 *palette = cna_character_part_palette(sc->c, i, p, &palette_count);
                if (!r) r = cna_skin_positions(&layout, bytes, n, palette, palette_count, xyz, n * 3, err);
                if (r) {
                    free(xyz);
                    return r;
                }
            } else {
                for (size_t v = 0; v < n; v++) memcpy(&xyz[v * 3], bytes + v * stride, 12);
            }
            /* each instance (EXT_mesh_gpu_instancing) at absolute · instances[q] */
            const cna_mat4 *absolute = cna_character_absolute_transform(sc->c, (size_t)mesh->parent_bone);
            const size_t copies = mesh->instance_count ? mesh->instance_count : 1;
            for (size_t q = 0; q < copies; q++) {
                cna_mat4 w = *absolute;
                if (mesh->instance_count) cna_mat4_mul(&w, absolute, &mesh->instances[q]);
                for (size_t v = 0; v < n; v++) {
                    cna_vec3 pt = cna_mat4_transform_point(&w, cna_vec3_make(xyz[v * 3], xyz[v * 3 + 1], xyz[v * 3 + 2]));
                    float c[3] = {pt.x, pt.y, pt.z};
                    sink_point(k, c);
                }
            }
            free(xyz);
        }
    }
    return CNA_OK;
}

/* The posed character, every mesh with its palette (cna_gl_draw_character). */
static cna_result scene_draw(cna_gl_context *gl, scene *sc, const cna_mat4 *view, const cna_mat4 *proj,
                             cna_error *err)
{
    return cna_gl_draw_character(gl, sc->glm, sc->inst, sc->c, NULL, view, proj, err);
}

typedef struct camera {
    cna_mat4 view, proj;
} camera;

/* ------------------------------------------------------------ the skeleton
 * Bones as lines from each bone to its parent, joints as points, drawn over
 * the read-back frame (on top of the model) at the posed absolute
 * transforms. With skins, the joints of the skins (a line to the nearest
 * ancestor that is a joint); without, every bone. */

static const unsigned char bone_rgb[3] = {255, 210, 64}, joint_rgb[3] = {255, 64, 64};

/* Is bone b drawn: a joint of a skin, or any bone of a model without skins. */
static bool skeleton_bone(const cna_model *m, size_t b)
{
    if (m->skin_count == 0) return true;
    for (size_t s = 0; s < m->skin_count; s++)
        if (m->skins[s].node_to_palette && m->skins[s].node_to_palette[b] >= 0) return true;
    return false;
}

/* The drawn parent of bone b: its nearest drawn ancestor, or -1. */
static int32_t skeleton_parent(const cna_model *m, size_t b)
{
    int32_t p = m->bones[b].parent;
    while (p >= 0 && !skeleton_bone(m, (size_t)p)) p = m->bones[p].parent;
    return p;
}

/* The bones drawn, and each one's position added to the framing box. */
static size_t skeleton_points(const scene *sc, point_sink *k)
{
    size_t n = 0;
    for (size_t b = 0; b < sc->m->bone_count; b++) {
        if (!skeleton_bone(sc->m, b)) continue;
        const cna_mat4 *w = cna_character_absolute_transform(sc->c, b);
        const float c[3] = {w->m[12], w->m[13], w->m[14]};
        sink_point(k, c);
        n++;
    }
    return n;
}

/* Bone b's origin in pixels (x right, y down); false behind the eye. */
static bool project(const scene *sc, const cna_mat4 *vp, size_t b, uint32_t w, uint32_t h, float out[2])
{
    const cna_mat4 *a = cna_character_absolute_transform(sc->c, b);
    cna_vec3 p = cna_vec3_make(a->m[12], a->m[13], a->m[14]);
    const float *m = vp->m;
    const float cx = m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12], cy = m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
                cw = m[3] * p.x + m[7] * p.y + m[11] * p.z + m[15];
    if (!(cw > 1e-6f)) return false;
    out[0] = (cx / cw * 0.5f + 0.5f) * (float)w;
    out[1] = (0.5f - cy / cw * 0.5f) * (float)h;
    return isfinite(out[0]) && isfinite(out[1]);
}

static void plot(unsigned char *img, uint32_t w, uint32_t h, float x, float y, int r, const unsigned char rgb[3])
{
    const long cx = lroundf(x), cy = lroundf(y);
    for (long dy = -r; dy <= r; dy++)
        for (long dx = -r; dx <= r; dx++) {
            if (dx * dx + dy * dy > (long)r * r + r) continue; /* a disc */
            const long px = cx + dx, py = cy + dy;
            if (px < 0 || py < 0 || px >= (long)w || py >= (long)h) continue;
            unsigned char *d = img + ((size_t)py * w + (size_t)px) * 4;
            d[0] = rgb[0], d[1] = rgb[1], d[2] = rgb[2], d[3] = 255;
        }
}

/* The segment a-b, clipped to the image (Liang-Barsky), in steps of at most one pixel. */
static void segment(unsigned char *img, uint32_t w, uint32_t h, const float a[2], const float b[2], int r)
{
    float t0 = 0.0f, t1 = 1.0f;
    const float d[2] = {b[0] - a[0], b[1] - a[1]}, lo[2] = {-2.0f, -2.0f}, hi[2] = {(float)w + 2, (float)h + 2};
    for (int i = 0; i < 2; i++) {
        const float q[2] = {a[i] - lo[i], hi[i] - a[i]}, p[2] = {-d[i], d[i]};
        for (int k = 0; k < 2; k++) {
            if (p[k] == 0.0f) {
                if (q[k] < 0.0f) return;
                continue;
            }
            const float t = q[k] / p[k];
            if (p[k] < 0.0f && t > t0) t0 = t;
            if (p[k] > 0.0f && t < t1) t1 = t;
        }
    }
    if (t0 > t1) return;
    const float len = fmaxf(fabsf(d[0]), fabsf(d[1])) * (t1 - t0);
    const long steps = (long)ceilf(len) + 1;
    for (long s = 0; s <= steps; s++) {
        const float t = t0 + (t1 - t0) * (float)s / (float)steps;
        plot(img, w, h, a[0] + d[0] * t, a[1] + d[1] * t, r, bone_rgb);
    }
}

/* The skeleton at the current pose over `img` (w x h, rows top to bottom). */
static void draw_skeleton(const scene *sc, const camera *cam, unsigned char *img, uint32_t w, uint32_t h)
{
    cna_mat4 vp;
    cna_mat4_mul(&vp, &cam->proj, &cam->view);
    const int r = (int)((w < h ? w : h) / 240) + 1; /* line half-width; joints twice it */
    for (size_t b = 0; b < sc->m->bone_count; b++) {
        if (!skeleton_bone(sc->m, b)) continue;
        const int32_t p = skeleton_parent(sc->m, b);
        float pb[2], pp[2];
        if (p >= 0 && project(sc, &vp, b, w, h, pb) && project(sc, &vp, (size_t)p, w, h, pp))
            segment(img, w, h, pp, pb, r - 1);
    }
    for (size_t b = 0; b < sc->m->bone_count; b++) {
        float pb[2];
        if (skeleton_bone(sc->m, b) && project(sc, &vp, b, w, h, pb)) plot(img, w, h, pb[0], pb[1], 2 * r, joint_rgb);
    }
}

/* Whether any part has vertices to draw. */
static bool has_geometry(const cna_model *m)
{
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++)
            if (m->meshes[i].parts[k].vertex_count && m->meshes[i].parts[k].index_count) return true;
    return false;
}

/* ------------------------------------------------------------ camera */

/* The automatic camera's direction (from the target towards the eye): front
 * (+Z, glTF's forward), to the right and slightly above. */
static void auto_basis(point_sink *k, const render_args *a)
{
    vec3 back = {0.45f, 0.22f, 1.0f}, f, r, u, up = {0, 1, 0};
    glm_vec3_normalize(back);
    glm_vec3_negate_to(back, f);
    glm_vec3_crossn(f, up, r);
    glm_vec3_cross(r, f, u);
    memcpy(k->back, back, sizeof k->back);
    memcpy(k->right, r, sizeof k->right);
    memcpy(k->up, u, sizeof k->up);
    k->ty = tanf(0.5f * glm_rad(a->fov));
    k->tx = k->ty * (float)a->width / (float)a->height;
    for (int i = 0; i < 3; i++) k->center[i] = k->lo[i] <= k->hi[i] ? 0.5f * (k->lo[i] + k->hi[i]) : 0.0f;
    k->fit = true;
    k->need = 0.0f;
}

/* View and projection from the sink: its box (near/far; the target without
 * --look-at) and, without --look-at, its fitted distance. */
static void make_camera(const render_args *a, const point_sink *k, camera *cam)
{
    vec3 center = {0, 0, 0}, eye, up = {0, 1, 0};
    float radius = 1.0f;
    if (k->lo[0] <= k->hi[0]) {
        for (int i = 0; i < 3; i++) center[i] = 0.5f * (k->lo[i] + k->hi[i]);
        float dx = k->hi[0] - k->lo[0], dy = k->hi[1] - k->lo[1], dz = k->hi[2] - k->lo[2];
        radius = 0.5f * sqrtf(dx * dx + dy * dy + dz * dz);
        if (!(radius > 1e-6f)) radius = 1.0f;
    }
    float aspect = (float)a->width / (float)a->height;
    float fovy = glm_rad(a->fov);
    vec3 target;
    float dist;
    if (a->has_look_at) {
        glm_vec3_copy((vec3){a->look_at[0], a->look_at[1], a->look_at[2]}, eye);
        glm_vec3_copy((vec3){a->look_at[3], a->look_at[4], a->look_at[5]}, target);
        dist = glm_vec3_distance(eye, center);
    } else {
        float d = k->need;
        if (!(d > 1e-6f)) d = radius / sinf(0.5f * fovy);
        d *= 1.12f;   /* a margin */
        glm_vec3_copy(center, target);
        vec3 back = {k->back[0], k->back[1], k->back[2]};
        glm_vec3_scale(back, d, eye);
        glm_vec3_add(eye, center, eye);
        dist = d;
    }
    vec3 fwd, side;
    glm_vec3_sub(target, eye, fwd);
    glm_vec3_cross(fwd, up, side);
    if (glm_vec3_norm(side) < 1e-6f * (glm_vec3_norm(fwd) + 1e-30f)) glm_vec3_copy((vec3){0, 0, -1}, up);
    mat4 v, p;
    glm_lookat(eye, target, up, v);
    float nearp = fmaxf(dist - radius * 1.1f, (dist + radius) * 1e-3f);
    float farp = dist + radius * 1.1f;
    if (!(farp > nearp * 1.001f)) farp = nearp * 2.0f;
    glm_perspective(fovy, aspect, nearp, farp, p);
    memcpy(cam->view.m, v, sizeof cam->view.m);
    memcpy(cam->proj.m, p, sizeof cam->proj.m);
}

/* ------------------------------------------------------------ contact sheet text */

/* A 3x5 pixel font: digits, '.', 's'; each row three bits, high bit left. */
static const unsigned char cna__glyphs[12][5] = {
    {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1}, {7, 4, 7, 1, 7},
    {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7}, {0, 0, 0, 0, 2}, {3, 4, 2, 1, 6}};

static void draw_text(unsigned char *img, uint32_t img_w, uint32_t img_h, uint32_t x0, uint32_t y0,
                      const char *text, int scale, const unsigned char rgb[3])
{
    uint32_t x = x0;
    for (const char *c = text; *c; c++) {
        int g = *c >= '0' && *c <= '9' ? *c - '0' : *c == '.' ? 10 : *c == 's' ? 11 : -1;
        if (g >= 0) {
            for (int row = 0; row < 5; row++)
                for (int col = 0; col < 3; col++) {
                    if (!(cna__glyphs[g][row] & (4 >> col))) continue;
                    for (int dy = 0; dy < scale; dy++)
                        for (int dx = 0; dx < scale; dx++) {
                            uint32_t px = x + (uint32_t)(col * scale + dx), py = y0 + (uint32_t)(row * scale + dy);
                            if (px >= img_w || py >= img_h) continue;
                            unsigned char *d = img + ((size_t)py * img_w + px) * 4;
                            d[0] = rgb[0], d[1] = rgb[1], d[2] = rgb[2], d[3] = 255;
                        }
                }
        }
        x += (uint32_t)(4 * scale);
    }
}

/* ------------------------------------------------------------ animated GIF */

#ifdef CNA_HAVE_GIF
/* giflib writes through gif_write into the atomic file writer of the
 * library (a temporary file renamed over OUT.gif once complete). */
typedef struct gif_sink {
    cna__file_writer file;
    cna_error err;    /* the writer's failure, when a write failed */
} gif_sink;

static int gif_write(GifFileType *gif, const GifByteType *bytes, int n)
{
    gif_sink *sink = (gif_sink *)gif->UserData;
    return n >= 0 && cna__file_writer_write(&sink->file, bytes, (size_t)n, &sink->err) == CNA_OK ? n : 0;
}

/* The GIF's frames into an open stream; false on a giflib failure (r stays
 * CNA_OK) or when a frame fails to draw (r and err say why). */
static bool gif_frames(GifFileType *gif, cna_gl_context *gl, scene *sc, const render_args *a, const camera *cam,
                       const float bg[4], double dur, unsigned char *frame, size_t frame_size,
                       unsigned char *planes, GifColorType *colors, cna_result *r, cna_error *err)
{
    size_t n = (size_t)a->width * a->height;
    EGifSetGifVersion(gif, true);
    if (EGifPutScreenDesc(gif, (int)a->width, (int)a->height, 8, 0, NULL) == GIF_ERROR) return false;
    /* NETSCAPE2.0: loop forever */
    static const unsigned char app[11] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    static const unsigned char loop[3] = {1, 0, 0};
    if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(gif, 11, app) == GIF_ERROR || EGifPutExtensionBlock(gif, 3, loop) == GIF_ERROR ||
        EGifPutExtensionTrailer(gif) == GIF_ERROR)
        return false;
    long cs = lround(dur / (double)a->gif_frames * 100.0);
    if (cs < 2) cs = 2;
    if (cs > 65535) cs = 65535;
    for (uint32_t f = 0; f < a->gif_frames; f++) {
        if ((*r = scene_pose(sc, dur * (double)f / (double)a->gif_frames, true, err)) != CNA_OK) return false;
        cna_gl_begin_frame(gl, bg);
        if ((*r = scene_draw(gl, sc, &cam->view, &cam->proj, err)) != CNA_OK ||
            (*r = cna_gl_read_pixels(gl, frame, frame_size, err)) != CNA_OK)
            return false;
        if (sc->skeleton) draw_skeleton(sc, cam, frame, a->width, a->height);
        unsigned char *R = planes, *G = planes + n, *B = planes + 2 * n, *out = planes + 3 * n;
        for (size_t i = 0; i < n; i++) R[i] = frame[i * 4], G[i] = frame[i * 4 + 1], B[i] = frame[i * 4 + 2];
        int size = 256;
        if (GifQuantizeBuffer(a->width, a->height, &size, R, G, B, out, colors) == GIF_ERROR) return false;
        ColorMapObject *map = GifMakeMapObject(256, colors);
        if (!map) return false;
        const unsigned char gce[4] = {0x04 /* dispose: leave */, (unsigned char)(cs & 0xff),
                                      (unsigned char)(cs >> 8), 0};
        int ok = EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, gce) != GIF_ERROR &&
                 EGifPutImageDesc(gif, 0, 0, (int)a->width, (int)a->height, false, map) != GIF_ERROR;
        for (uint32_t y = 0; ok && y < a->height; y++)
            ok = EGifPutLine(gif, out + (size_t)y * a->width, (int)a->width) != GIF_ERROR;
        GifFreeMapObject(map);
        if (!ok) return false;
    }
    return true;
}
#endif

/* --gif: gif_frames frames at t = i*d/N, each quantised to its own 256-colour
 * map (giflib), delay d/N (at least 2/100 s), looping forever. Written
 * atomically: a failure leaves a previous OUT.gif as it was. */
static cna_result write_gif(cna_gl_context *gl, scene *sc, const render_args *a, const camera *cam,
                            const float bg[4], double dur, unsigned char *frame, size_t frame_size, cna_error *err)
{
#ifdef CNA_HAVE_GIF
    size_t n = (size_t)a->width * a->height;
    unsigned char *planes = (unsigned char *)malloc(n * 4);
    GifColorType *colors = (GifColorType *)calloc(256, sizeof *colors);
    gif_sink *sink = (gif_sink *)calloc(1, sizeof *sink);
    if (!planes || !colors || !sink) {
        free(planes);
        free(colors);
        free(sink);
        err->code = CNA_ERROR_OUT_OF_MEMORY;
        snprintf(err->message, sizeof err->message, "out of memory");
        return CNA_ERROR_OUT_OF_MEMORY;
    }
    cna_result r = cna__file_writer_open(&sink->file, a->gif, NULL, err);
    if (r == CNA_OK) {
        int gerr = 0;
        GifFileType *gif = EGifOpen(sink, gif_write, &gerr);
        bool ok = gif && gif_frames(gif, gl, sc, a, cam, bg, dur, frame, frame_size, planes, colors, &r, err);
        if (gif && !ok) gerr = gif->Error;
        if (gif && EGifCloseFile(gif, ok ? &gerr : NULL) == GIF_ERROR) ok = false; /* writes the trailer */
        if (ok) {
            r = cna__file_writer_commit(&sink->file, err);
        } else {
            if (r == CNA_OK && sink->file.failed) {
                r = CNA_ERROR_IO;
                *err = sink->err;
            } else if (r == CNA_OK) {
                r = err->code = CNA_ERROR_IO;
                snprintf(err->message, sizeof err->message, "%s: %s", a->gif, GifErrorString(gerr));
            }
            cna__file_writer_abort(&sink->file);
        }
    }
    free(planes);
    free(colors);
    free(sink);
    return r;
#else
    (void)gl, (void)sc, (void)cam, (void)bg, (void)dur, (void)frame, (void)frame_size;
    err->code = CNA_ERROR_UNSUPPORTED;
    snprintf(err->message, sizeof err->message, "%s: this cna was built without giflib", a->gif);
    return CNA_ERROR_UNSUPPORTED;
#endif
}
/* One warning for every image a drawn material uses that could not be read
 * or decoded (it is drawn with the factor alone): "warning: materials[2]
 * \"Body\": normalTexture: images[5] \"body_n\": cannot open ...". A material
 * is reported once, whatever the number of its parts and skins. */
static void warn_material_images(const cna_gl_model *glm)
{
    const cna_model *m = cna_gl_model_model(glm);
    for (size_t e = 0; e < m->effect_count; e++) {
        const cna_effect *fx = &m->effects[e];
        bool drawn = false, seen = false;
        for (size_t i = 0; i < m->mesh_count && !drawn; i++)
            for (size_t k = 0; k < m->meshes[i].part_count && !drawn; k++)
                drawn = m->meshes[i].parts[k].effect == (int32_t)e;
        for (size_t o = 0; o < e && !seen; o++) seen = m->effects[o].material == fx->material;
        if (!drawn || seen) continue;
        for (int s = 0; s < CNA_EFFECT_SLOT_COUNT; s++) {
            const cna_effect_texture *t = cna_effect_material_texture(&fx->params, (cna_effect_slot)s);
            cna_error ie;
            memset(&ie, 0, sizeof ie);
            if (t->image < 0 || cna_gl_model_image_status(glm, t->image, &ie) == CNA_OK) continue;
            fprintf(stderr, "warning: materials[%d] \"%s\": %s: %s\n", (int)fx->material,
                    fx->params.name ? fx->params.name : "", cna_effect_slot_name((cna_effect_slot)s), ie.message);
        }
    }
}


/* ------------------------------------------------------------ the command */

static int render_run(render_args *a)
{
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_gl_context *gl = NULL;
    cna_gl_context_options go;
    memset(&go, 0, sizeof go);
    go.width = a->width;
    go.height = a->height;
    go.samples = 4;
    if (cna_gl_context_create(&go, &gl, &err) != CNA_OK) return cna_cli_report_error(NULL, &err);
    scene sc;
    memset(&sc, 0, sizeof sc);
    sc.anim = -1;
    cna_cli_files inputs;
    memset(&inputs, 0, sizeof inputs);
    cna_import_options io;
    memset(&io, 0, sizeof io);
    io.gltf.asset_root = a->asset_root;
    io.split_palettes = a->split_palettes;
    io.gltf.no_textures = a->no_textures;
    io.gltf.max_decoded_size = a->max_decoded;
    if (cna_cli_load_any(a->path, &io, &sc.m, &inputs, &err) != CNA_OK) { /* .cnb by magic, else glTF */
        cna_cli_files_free(&inputs);
        cna_gl_context_free(gl);
        return cna_cli_report_error(a->path, &err);
    }
    /* No output may be a file the model is read from, nor the other output. */
    bool clash = (a->out && cna_cli_refuse_overwrite(a->out, &inputs)) ||
                 (a->gif && cna_cli_refuse_overwrite(a->gif, &inputs));
    cna_cli_files_free(&inputs);
    if (!clash && a->out && a->gif && cna_cli_same_file(a->out, a->gif)) {
        fprintf(stderr, "error: %s: is the same file as the -o output \"%s\"; nothing was written\n", a->gif,
                a->out);
        clash = true;
    }
    if (clash) {
        cna_model_free(sc.m);
        cna_gl_context_free(gl);
        return CNA_CLI_EXIT_FAILURE;
    }
    cna_model *m = sc.m;
    int rc = CNA_CLI_EXIT_FAILURE;
    unsigned char *frame = NULL, *sheet = NULL;
    if (cna_gl_model_create(gl, m, &sc.glm, &err) != CNA_OK) goto fail;
    warn_material_images(sc.glm);
    if (cna_gl_instance_create(sc.glm, &sc.inst, &err) != CNA_OK ||
        cna_character_create(m, NULL, &sc.c, &err) != CNA_OK ||
        cna_character_set_loop_mode(sc.c, CNA_LOOP_MODE_ONCE, &err) != CNA_OK)
        goto fail;
    sc.skeleton = a->bones || !has_geometry(m);
    if (!has_geometry(m) && !a->bones) {
        point_sink none;
        memset(&none, 0, sizeof none);
        fprintf(stderr, "note: %s: nothing to draw (no mesh with triangles, lines or points); drawing its skeleton: %zu "
                        "bones as lines, joints as points\n",
                a->path, skeleton_points(&sc, &none));
    }
    if ((rc = cna_cli_ik_attach(sc.c, a->path, &a->ik)) >= 0) goto done;
    rc = CNA_CLI_EXIT_FAILURE;
    if (a->animation) {
        size_t index = 0;
        if (cna_model_find_animation(m, a->animation, &index, NULL) != CNA_OK) {
            cna_cli_no_animation(a->path, NULL, a->animation, m);
            goto done;
        }
        sc.anim = (long)index;
    } else if (a->sheet || a->gif || a->time_text) {
        if (m->animation_count == 0) {
            fprintf(stderr, "error: %s: %s needs an animation, but the file has none\n", a->path,
                    a->sheet ? "--sheet" : a->gif ? "--gif" : "--time");
            goto done;
        }
        sc.anim = 0;   /* --time, --sheet or --gif alone: animation 0 */
    }
    size_t frame_size = (size_t)a->width * a->height * 4;
    frame = (unsigned char *)malloc(frame_size);
    if (!frame) goto oom;
    if (cna_character_play(sc.c, sc.anim, &err) != CNA_OK) goto fail;

    double dur = cna_ticks_to_seconds(cna_character_duration(sc.c));
    uint32_t frames = a->sheet ? a->sheet : 1;
    double t0 = 0.0;
    if (sc.anim >= 0 && a->time_text && !a->sheet)
        t0 = cna_cli_clamp_time(a->time_text, a->time, cna_model_animation_name(m, (size_t)sc.anim), dur);
    if (a->blend.animation) {
        /* layer 1: --blend at weight W, layer 0 at 1 - W */
        const int u = cna_cli_blend_setup(sc.c, a->path, a->time_text, a->time, &a->blend);
        if (u >= 0) {
            rc = u;
            goto done;
        }
        sc.blend = true;
        sc.blend_time = a->blend.seconds;
    }
    /* The posed vertices of every frame drawn, so a sheet keeps one camera:
     * a first pass for the box, a second (automatic camera) for the distance. */
    point_sink sink;
    memset(&sink, 0, sizeof sink);
    for (int i = 0; i < 3; i++) sink.lo[i] = INFINITY, sink.hi[i] = -INFINITY;
    for (int pass = 0; pass < (a->has_look_at ? 1 : 2); pass++) {
        if (pass == 1) auto_basis(&sink, a);
        for (uint32_t f = 0; f < frames; f++) {
            double t = a->sheet ? dur * (double)f / (double)frames : t0;
            if (scene_pose(&sc, t, a->sheet > 0, &err) != CNA_OK || scene_points(&sc, &sink, &err) != CNA_OK)
                goto fail;
            if (sc.skeleton) skeleton_points(&sc, &sink);
        }
        for (uint32_t f = 0; a->gif && f < a->gif_frames; f++)   /* the GIF's frames share the camera */
        {
            if (scene_pose(&sc, dur * (double)f / (double)a->gif_frames, true, &err) != CNA_OK ||
                scene_points(&sc, &sink, &err) != CNA_OK)
                goto fail;
            if (sc.skeleton) skeleton_points(&sc, &sink);
        }
    }
    camera cam;
    make_camera(a, &sink, &cam);
    const float bg[4] = {a->background[0], a->background[1], a->background[2], 1.0f};

    if (a->gif && write_gif(gl, &sc, a, &cam, bg, dur, frame, frame_size, &err) != CNA_OK)
        goto fail_output;
    if (a->gif)
        fprintf(cna_cli_report_stream(a->gif), "wrote %s (%ux%u, %u frames)\n", a->gif, a->width, a->height,
                a->gif_frames);
    if (!a->out) {
        /* only the GIF */
    } else if (!a->sheet) {
        if (scene_pose(&sc, t0, false, &err) != CNA_OK) goto fail;
        cna_gl_begin_frame(gl, bg);
        if (scene_draw(gl, &sc, &cam.view, &cam.proj, &err) != CNA_OK ||
            cna_gl_read_pixels(gl, frame, frame_size, &err) != CNA_OK)
            goto fail;
        if (sc.skeleton) draw_skeleton(&sc, &cam, frame, a->width, a->height);
        if (cna_gl_write_png(a->out, a->width, a->height, frame, &err) != CNA_OK) goto fail_output;
        fprintf(cna_cli_report_stream(a->out), "wrote %s (%ux%u)\n", a->out, a->width, a->height);
    } else {
        int scale = a->height >= 240 ? 2 : 1;
        uint32_t label = (uint32_t)(5 * scale + 8);
        /* The grid with the fewest empty cells, then the sheet closest to 16:10. */
        uint32_t cols = 1;
        double best = INFINITY;
        for (uint32_t c = 1; c <= frames; c++) {
            uint32_t r = (frames + c - 1) / c;
            double aspect = (double)(c * a->width) / (double)(r * (a->height + label));
            double score = 10.0 * (double)(c * r - frames) + fabs(log(aspect / 1.6));
            if (score < best) best = score, cols = c;
        }
        uint32_t rows = (frames + cols - 1) / cols;
        uint32_t sw = cols * a->width, sh = rows * (a->height + label);
        if (sw > 16384 || sh > 16384) {
            fprintf(stderr, "error: the contact sheet would be %ux%u pixels; use a smaller --size\n", sw, sh);
            goto done;
        }
        sheet = (unsigned char *)malloc((size_t)sw * sh * 4);
        if (!sheet) goto oom;
        unsigned char bg8[3];
        for (int i = 0; i < 3; i++) bg8[i] = (unsigned char)lrintf(a->background[i] * 255.0f);
        for (size_t i = 0; i < (size_t)sw * sh; i++) {
            memcpy(sheet + i * 4, bg8, 3);
            sheet[i * 4 + 3] = 255;
        }
        float lum = 0.3f * a->background[0] + 0.59f * a->background[1] + 0.11f * a->background[2];
        const unsigned char ink[3] = {lum > 0.5f ? 0 : 235, lum > 0.5f ? 0 : 235, lum > 0.5f ? 0 : 235};
        for (uint32_t f = 0; f < frames; f++) {
            double t = dur * (double)f / (double)frames;
            if (scene_pose(&sc, t, true, &err) != CNA_OK) goto fail;
            cna_gl_begin_frame(gl, bg);
            if (scene_draw(gl, &sc, &cam.view, &cam.proj, &err) != CNA_OK ||
                cna_gl_read_pixels(gl, frame, frame_size, &err) != CNA_OK)
                goto fail;
            if (sc.skeleton) draw_skeleton(&sc, &cam, frame, a->width, a->height);
            uint32_t cx = (f % cols) * a->width, cy = (f / cols) * (a->height + label);
            for (uint32_t y = 0; y < a->height; y++)
                memcpy(sheet + ((size_t)(cy + y) * sw + cx) * 4, frame + (size_t)y * a->width * 4,
                       (size_t)a->width * 4);
            char text[32];
            snprintf(text, sizeof text, "%.2fs", t);
            uint32_t tw = (uint32_t)(strlen(text) * 4 * (size_t)scale);
            uint32_t tx = cx + (a->width > tw ? (a->width - tw) / 2 : 0);
            draw_text(sheet, sw, sh, tx, cy + a->height + 4, text, scale, ink);
        }
        if (cna_gl_write_png(a->out, sw, sh, sheet, &err) != CNA_OK) goto fail_output;
        fprintf(cna_cli_report_stream(a->out), "wrote %s (%ux%u, %u frames)\n", a->out, sw, sh, frames);
    }
    rc = CNA_CLI_EXIT_OK;
    goto done;
oom:
    err.code = CNA_ERROR_OUT_OF_MEMORY;
    snprintf(err.message, sizeof err.message, "out of memory");
fail:
    rc = cna_cli_report_error(a->path, &err);
    goto done;
fail_output:
    /* the output's own failure (a full device, a folder that cannot be
     * written): the library's message starts with the output's path */
    rc = err.code == CNA_ERROR_IO ? cna_cli_report_error(NULL, &err) : cna_cli_report_error(a->path, &err);
done:
    cna_character_free(sc.c);
    cna_gl_instance_free(sc.inst);
    cna_gl_model_free(sc.glm);
    free(frame);
    free(sheet);
    cna_model_free(m);
    cna_gl_context_free(gl);
    return rc;
}
#endif /* CNA_HAVE_GL */

int cna_cli_render_run(int argc, char **argv)
{
    const cna_cli_command *cmd = cna_cli_find("render");
    for (int i = 1; i < argc; i++) {
        if (cna_cli_is_help(argv[i])) {
            cna_cli_render_help(stdout);
            return CNA_CLI_EXIT_OK;
        }
    }
    render_args a;
    int u = parse_args(cmd, argc, argv, &a);
    if (u >= 0) return u;
    if (cna_cli_probe_file(a.path, true) == CNA_CLI_FILE_UNUSABLE) return CNA_CLI_EXIT_FAILURE;
    if (cna_cli_refuse_directory("-o", a.out) || cna_cli_refuse_directory("--gif", a.gif)) return CNA_CLI_EXIT_FAILURE;
#ifdef CNA_HAVE_GL
    return render_run(&a);
#else
    fprintf(stderr, "error: this cna was built without cna_gl (-DCNA_BUILD_GL=OFF); rendering is unavailable\n");
    return CNA_CLI_EXIT_FAILURE;
#endif
}
