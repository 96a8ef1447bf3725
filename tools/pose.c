/*
 * tools/pose.c — `cna pose FILE [--scene N] [--animation I|NAME] [--time SECONDS]
 * [--mode faithful|union] [--blend I|NAME [--blend-time SECONDS] [--weight W]]`:
 * import a glTF file as a cna_model, pose it at a time and print the pose as
 * JSON (docs/cli.md; docs/model.md "cna pose"). With --blend the character
 * plays two layers (tools/blend.c): --animation at weight 1 - W and --blend
 * at weight W.
 *
 * Matrices are 16 numbers, column-major (glTF's layout); numbers are printed
 * with %.9g (enough to give back every float exactly); a value that is not
 * finite prints as null. Indices are glTF indices unless the key says bone or
 * palette.
 *
 * Exit codes: 0 printed, 1 the file is refused or posing failed, 2 usage.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "ik_options.h"
#include "cna/cna.h"
#include "core/internal.h"

void cna_cli_pose_help(FILE *out)
{
    fprintf(out,
            "usage: cna pose FILE [--scene N] [--animation I|NAME] [--time SECONDS]\n"
            "                     [--mode faithful|union] [--asset-root DIR] [--split-palettes]\n"
            "                     [--no-textures] [--max-decoded-size N]\n"
            "                     [--blend I|NAME [--blend-time SECONDS] [--weight W]]\n"
            "                     [--ik END=X,Y,Z [--ik-pole|--ik-weight|--ik-soften|--ik-twist V]]...\n"
            "                     [--aim JOINT=X,Y,Z [--aim-forward|--aim-up|--aim-offset|--aim-weight V]]...\n"
            "\n"
            "Imports FILE (.gltf or .glb, or a .cnb from cna convert, recognised by its\n"
            "magic) as a cna model and prints its pose as JSON:\n"
            "  {\"time\": t, \"animation\": i or null,\n"
            "   \"bones\": [{\"bone\": b, \"node\": n, \"name\": s, \"parent\": b or -1, \"world\": [16]}],\n"
            "   \"skins\": [{\"skin\": s, \"mesh_node\": n, \"palette_to_node\": [n...],\n"
            "              \"skin_transforms\": [[16]...]}],\n"
            "   \"morph_weights\": [{\"node\": n, \"mesh\": m, \"weights\": [...]}],\n"
            "   \"primitives\": [{\"node\": n, \"mesh\": m, \"primitive\": p,\n"
            "                   \"positions\": [[x,y,z]...]}]}\n"
            "Matrices are column-major (glTF's layout). `world` is each bone's model-space\n"
            "transform after the animation's scene-node clip and its skins' poses;\n"
            "`skin_transforms` come from a player seeked to the time (no loop), one per\n"
            "palette index; `positions` are the final model-space positions as drawn\n"
            "(morphed, skinned, then the transform of the mesh's parent bone), every vertex\n"
            "of the primitive's POSITION accessor in the file's order, those no index\n"
            "reaches included (the sub-parts of a primitive split by --split-palettes\n"
            "are one entry). Without --animation: the rest (bind) pose, or with --time,\n"
            "animation 0.\n"
            "\n"
            "With --blend B the pose is --animation at --time blended with B at --blend-time\n"
            "by weight W: a character with two layers, layer 0 playing the animation at\n"
            "weight 1 - W, layer 1 playing B at weight W (translations, scales and morph\n"
            "weights lerp(a, b, W), rotations slerp(qa, qb, W); a value only one of them\n"
            "animates is mixed with its rest value). The JSON then also has, after\n"
            "\"animation\": \"blend\": {\"animation\": i, \"time\": t, \"weight\": W}.\n"
            "\n"
            "options:\n"
            "  --scene N            import glTF scene N (default: the file's default scene, else 0)\n"
            "  --animation I|NAME   the animation, by index or name (default: none, the rest\n"
            "                       pose; with --time, animation 0)\n"
            "  --time SECONDS       time into the animation (default 0); a time outside\n"
            "                       [0, duration] is clamped, with a note on stderr\n"
            "  --mode faithful|union  clip extraction mode (default faithful)\n"
            "  --blend I|NAME       blend with this animation, by index or name\n"
            "  --blend-time SECONDS its time (default: --time); clamped as --time is\n"
            "  --weight W           its weight, a number in [0, 1] (default 0.5); 0 gives\n"
            "                       the --animation pose, bit for bit\n"
            CNA_CLI_ASSET_ROOT_HELP("     ", "                       ")
            CNA_CLI_CLIPS_HELP("         ", "                       ")
            CNA_CLI_SPLIT_PALETTES_HELP("     ", "                       ")
            CNA_CLI_NO_TEXTURES_HELP("     ", "                       ")
            CNA_CLI_MAX_DECODED_HELP(" ", "                       ")
            );
    cna_cli_ik_help(out, 23);
    fprintf(out,
            "  -h, --help           print this help\n"
            "\n"
            "exit status: 0 printed; 1 the file is refused (\"error: FILE: message\");\n"
            "2 usage error.\n");
}

/* ------------------------------------------------------------ JSON helpers */

static cJSON *num(double v)
{
    if (!isfinite(v)) return cJSON_CreateNull();
    char buf[40];
    snprintf(buf, sizeof buf, "%.9g", v);
    return cJSON_CreateRaw(buf);
}

static cJSON *int_num(long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return cJSON_CreateRaw(buf);
}

static cJSON *mat_json(const cna_mat4 *m)
{
    cJSON *a = cJSON_CreateArray();
    if (!a) return NULL;
    for (int i = 0; i < 16; i++) cJSON_AddItemToArray(a, num((double)m->m[i]));
    return a;
}

static cJSON *index_or_null(int32_t v)
{
    return v >= 0 ? int_num(v) : cJSON_CreateNull();
}

/* ------------------------------------------------------------ posing */

typedef struct pose_args {
    const char *path;
    bool has_scene;
    int32_t scene;
    const char *animation;   /* NULL: rest pose, or animation 0 with --time */
    const char *time_text;   /* --time as typed; NULL when not given */
    double time;
    cna_clip_mode mode;
    const char *asset_root;  /* --asset-root; NULL when not given */
    bool split_palettes;     /* --split-palettes */
    bool no_textures;        /* --no-textures */
    size_t max_decoded;      /* --max-decoded-size; 0 = the default */
    cna_cli_blend blend;     /* --blend, --blend-time, --weight */
    cna_cli_ik ik;           /* --ik, --aim and their modifiers (tools/ik_options.c) */
} pose_args;

static int parse_args(const cna_cli_command *cmd, int argc, char **argv, pose_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int md = cna_cli_max_decoded_option(cmd, argc, argv, &i, &a->max_decoded);
        if (md == -1) continue;
        if (md >= 0) return md;
        bool has_value = i + 1 < argc;
        if (cna_cli_is_blend_option(arg)) {
            if (!has_value) return cna_cli_usage_error(cmd, "%s needs a value", arg);
            int u = cna_cli_blend_parse(cmd, arg, argv[++i], &a->blend);
            if (u >= 0) return u;
        } else if (cna_cli_is_ik_option(arg)) {
            if (!has_value) return cna_cli_usage_error(cmd, "%s needs a value", arg);
            int u = cna_cli_ik_parse(cmd, arg, argv[++i], &a->ik);
            if (u >= 0) return u;
        } else if (strcmp(arg, "--scene") == 0 || strcmp(arg, "--animation") == 0 ||
            strcmp(arg, "--time") == 0 || strcmp(arg, "--mode") == 0 || strcmp(arg, "--asset-root") == 0) {
            if (!has_value) return cna_cli_usage_error(cmd, "%s needs a value", arg);
            const char *v = argv[++i];
            char *end = NULL;
            if (strcmp(arg, "--scene") == 0) {
                errno = 0;
                long s = strtol(v, &end, 10);
                if (errno || !*v || *end || s < 0 || s > INT32_MAX)
                    return cna_cli_usage_error(cmd, "--scene: '%s' is not a scene index", v);
                a->has_scene = true;
                a->scene = (int32_t)s;
            } else if (strcmp(arg, "--animation") == 0) {
                a->animation = v;
            } else if (strcmp(arg, "--asset-root") == 0) {
                a->asset_root = v;
            } else if (strcmp(arg, "--time") == 0) {
                errno = 0;
                double t = strtod(v, &end);
                if (errno || !*v || *end || !isfinite(t))
                    return cna_cli_usage_error(cmd, "--time: '%s' is not a number of seconds", v);
                a->time = t;
                a->time_text = v;
            } else {
                if (strcmp(v, "faithful") == 0) a->mode = CNA_CLIP_MODE_FAITHFUL;
                else if (strcmp(v, "union") == 0) a->mode = CNA_CLIP_MODE_UNION;
                else return cna_cli_usage_error(cmd, "--mode: '%s' is neither faithful nor union", v);
            }
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
    return cna_cli_blend_check(cmd, &a->blend);
}

/* Final positions of one glTF primitive, in the file's vertex order, as a
 * JSON array: parts [first, first + parts) of the mesh, one part or the
 * sub-parts of a split primitive (each skinned with its own palette,
 * cna_character_part_palette). A file vertex takes the position of the
 * first part vertex that came from it; every file vertex has one (a
 * flat-split part keeps those no triangle uses after its corners, a
 * palette split puts them in some sub-part); one without is []. Returns
 * NULL (with err set) on failure; an empty array when the part has no
 * vertex data. */
static cJSON *part_positions(const cna_character *c, size_t mesh_index, size_t first, size_t parts,
                             const cna_mat4 *draw, cna_error *err)
{
    const cna_model *m = cna_character_model(c);
    const cna_model_mesh *mesh = &m->meshes[mesh_index];
    const cna_model_part *p0 = &mesh->parts[first];
    cJSON *arr = cJSON_CreateArray();
    if (!arr || (parts == 1 && (!p0->vertices || p0->vertex_count == 0))) return arr;
    /* the model keeps the file's vertex count, from the glTF or the .cnb alike */
    const size_t file_n = p0->source_vertex ? p0->source_vertex_count : p0->vertex_count;
    float *file = (float *)malloc((file_n ? file_n : 1) * 3 * sizeof(float));
    unsigned char *have = (unsigned char *)calloc(file_n ? file_n : 1, 1);
    float *xyz = NULL;
    if (!file || !have) goto oom;
    for (size_t k = first; k < first + parts; k++) {
        const cna_model_part *part = &mesh->parts[k];
        const size_t n = part->vertex_count, stride = part->declaration.stride;
        if (!part->vertices || n == 0) continue;
        /* the part as the character draws it: blended by its pose when morphed */
        const void *bytes = cna_character_part_vertices(c, mesh_index, k, NULL);
        xyz = (float *)malloc(n * 3 * sizeof(float));
        if (!xyz) goto oom;
        if (mesh->skin >= 0) {
            size_t palette_count = 0;
            const cna_mat4 *palette = cna_character_part_palette(c, mesh_index, k, &palette_count);
            cna_skinning_layout layout;
            if (cna_skinning_layout_canonical((uint32_t)stride, &layout, err) != CNA_OK ||
                cna_skin_positions(&layout, bytes, n, palette, palette_count, xyz, n * 3, err) != CNA_OK)
                goto fail;
        } else {
            for (size_t v = 0; v < n; v++) memcpy(&xyz[v * 3], (const unsigned char *)bytes + v * stride, 12);
        }
        for (size_t v = 0; v < n; v++) {
            const size_t fv = part->source_vertex ? part->source_vertex[v] : v;
            if (fv >= file_n || have[fv]) continue;
            have[fv] = 1;
            memcpy(&file[fv * 3], &xyz[v * 3], 3 * sizeof(float));
        }
        free(xyz);
        xyz = NULL;
    }
    /* One raw node holding the whole array, printed as cJSON prints an array
     * of number arrays ("[[x, y, z], [x, y, z]]"): a node per number would
     * take about 100 bytes each, which a large mesh multiplies by millions. */
    size_t cap = 2 + file_n * 3 * 20 + 16, len = 0;
    char *text = (char *)malloc(cap);
    if (!text) goto oom;
    text[len++] = '[';
    for (size_t fv = 0; fv < file_n; fv++) {
        if (fv) {
            text[len++] = ',';
            text[len++] = ' ';
        }
        if (!have[fv]) {  /* a vertex no triangle uses: [] */
            text[len++] = '[';
            text[len++] = ']';
            continue;
        }
        cna_vec3 q = cna_mat4_transform_point(draw, cna_vec3_make(file[fv * 3], file[fv * 3 + 1], file[fv * 3 + 2]));
        const double xyz3[3] = {(double)q.x, (double)q.y, (double)q.z};
        text[len++] = '[';
        for (int k = 0; k < 3; k++) {
            if (k) {
                text[len++] = ',';
                text[len++] = ' ';
            }
            /* %.9g of a float: at most 15 characters ("-1.23456789e+38"); null when not finite */
            int w = isfinite(xyz3[k]) ? snprintf(text + len, cap - len, "%.9g", xyz3[k])
                                       : snprintf(text + len, cap - len, "null");
            len += (size_t)w;
        }
        text[len++] = ']';
    }
    text[len++] = ']';
    text[len] = '\0';
    cJSON_Delete(arr);
    arr = cJSON_CreateRaw(text);
    free(text);
    if (!arr) goto oom;
    free(file);
    free(have);
    return arr;
oom:
    err->code = CNA_ERROR_OUT_OF_MEMORY;
    snprintf(err->message, sizeof err->message, "out of memory");
fail:
    free(xyz);
    free(file);
    free(have);
    cJSON_Delete(arr);
    return NULL;
}

/* The morph weights of a mesh at the pose: those of its first morphed part
 * (glTF gives every primitive of a mesh the mesh's weights); NULL and
 * *count = 0 without morph targets. */
static const float *mesh_weights(const cna_character *c, size_t mesh, const cna_model_mesh *me, size_t *count)
{
    *count = 0;
    for (size_t k = 0; k < me->part_count; k++)
        if (me->parts[k].morph) return cna_character_morph_weights(c, mesh, k, count);
    return NULL;
}

static int pose_run(pose_args *a)
{
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_gltf_document *doc = NULL;
    cna_model *m = NULL;
    const cna_cli_file_kind kind = cna_cli_probe_file(a->path, true);
    if (kind == CNA_CLI_FILE_UNUSABLE) return CNA_CLI_EXIT_FAILURE;
    if (kind == CNA_CLI_FILE_CNB) {
        /* A baked model (cna convert): its scene and clip mode were fixed when it was baked. */
        if (a->has_scene || a->mode != CNA_CLIP_MODE_DEFAULT) {
            fprintf(stderr, "error: %s: --scene and --mode do not apply to a .cnb file\n", a->path);
            return CNA_CLI_EXIT_USAGE;
        }
        if (cna_cnb_load_file(a->path, NULL, &m, &err) != CNA_OK) return cna_cli_report_error(NULL, &err);
    }
    cna_import_options opts;
    memset(&opts, 0, sizeof opts);
    opts.gltf.asset_root = a->asset_root;
    opts.split_palettes = a->split_palettes;
    opts.gltf.no_textures = a->no_textures;
    opts.gltf.max_decoded_size = a->max_decoded;
    if (!m && cna_gltf_load_file(a->path, &opts.gltf, &doc, &err) != CNA_OK)
        return cna_cli_report_error(a->path, &err);
    opts.use_scene = a->has_scene;
    opts.scene = a->scene;
    opts.clip_mode = a->mode;
    if (!m && cna_model_import_gltf(doc, &opts, &m, &err) != CNA_OK) {
        cna_gltf_document_free(doc);
        return cna_cli_report_error(a->path, &err);
    }
    cna_gltf_document_free(doc); /* the model keeps all it needs */
    doc = NULL;
    if (cna_cli_clips_bind(&m, NULL, &err) != CNA_OK) {
        cna_model_free(m);
        return cna_cli_report_error(NULL, &err);
    }
    int rc = CNA_CLI_EXIT_FAILURE;
    long anim = -1;
    cna_character *ch = NULL;
    cJSON *root = NULL;
    char *text = NULL;
    if (cna_character_create(m, NULL, &ch, &err) != CNA_OK) goto fail;
    if ((rc = cna_cli_ik_attach(ch, a->path, &a->ik)) >= 0) goto done;
    rc = CNA_CLI_EXIT_FAILURE;
    if (a->animation) {
        size_t index = 0;
        if (cna_model_find_animation(m, a->animation, &index, NULL) != CNA_OK) {
            cna_cli_no_animation(a->path, NULL, a->animation, m);
            goto done;
        }
        anim = (long)index;
    } else if (a->time_text) {
        /* --time alone: animation 0, as cna render --sheet does. */
        if (m->animation_count == 0) {
            fprintf(stderr, "error: %s: --time %s, but the file has no animations\n", a->path, a->time_text);
            goto done;
        }
        anim = 0;
    }
    /* exact times: the clock clamps (no looping) */
    if (cna_character_set_loop_mode(ch, CNA_LOOP_MODE_ONCE, &err) != CNA_OK) goto fail;
    if (cna_character_play(ch, anim, &err) != CNA_OK) goto fail;
    const double duration = cna_ticks_to_seconds(cna_character_duration(ch));
    const double t_asked = anim >= 0 && a->time_text
                               ? cna_cli_clamp_time(a->time_text, a->time, cna_model_animation_name(m, (size_t)anim),
                                                    duration)
                               : 0.0;
    const double t = t_asked < 0.0 ? 0.0 : t_asked > duration ? duration : t_asked;
    if (cna_character_seek(ch, t, &err) != CNA_OK) goto fail;
    if (a->blend.animation) {
        /* layer 1: --blend at --blend-time (else --time), weight W; layer 0 at 1 - W */
        const int u = cna_cli_blend_setup(ch, a->path, a->time_text, a->time, &a->blend);
        if (u >= 0) {
            rc = u;
            goto done;
        }
        if (cna_character_layer_seek(ch, 1, a->blend.seconds, &err) != CNA_OK) goto fail;
    }
    if (cna_character_pose(ch, &err) != CNA_OK) goto fail;

    root = cJSON_CreateObject();
    if (!root) goto oom;
    cJSON_AddItemToObject(root, "time", num(t));
    cJSON_AddItemToObject(root, "animation", anim >= 0 ? int_num(anim) : cJSON_CreateNull());
    if (a->blend.animation) {
        cJSON *blend = cJSON_AddObjectToObject(root, "blend");
        if (!blend) goto oom;
        cJSON_AddItemToObject(blend, "animation", int_num(a->blend.index));
        cJSON_AddItemToObject(blend, "time", num(a->blend.seconds));
        cJSON_AddItemToObject(blend, "weight", num((double)a->blend.weight));
    }
    cJSON *bones = cJSON_AddArrayToObject(root, "bones");
    for (size_t b = 0; bones && b < m->bone_count; b++) {
        cJSON *o = cJSON_CreateObject();
        if (!o) goto oom;
        cJSON_AddItemToArray(bones, o);
        cJSON_AddItemToObject(o, "bone", int_num((long long)b));
        cJSON_AddItemToObject(o, "node", index_or_null(m->bones[b].gltf_node));
        cJSON_AddStringToObject(o, "name", m->bones[b].name);
        cJSON_AddItemToObject(o, "parent", int_num(m->bones[b].parent));
        cJSON_AddItemToObject(o, "world", mat_json(cna_character_absolute_transform(ch, b)));
    }
    cJSON *skins = cJSON_AddArrayToObject(root, "skins");
    for (size_t s = 0; skins && s < m->skin_count; s++) {
        const cna_model_skin *sk = &m->skins[s];
        cJSON *o = cJSON_CreateObject();
        if (!o) goto oom;
        cJSON_AddItemToArray(skins, o);
        cJSON_AddItemToObject(o, "skin", int_num(sk->gltf_skin));
        cJSON_AddItemToObject(o, "mesh_node", int_num(m->bones[sk->mesh_node].gltf_node));
        cJSON *p2n = cJSON_AddArrayToObject(o, "palette_to_node");
        cJSON *st = cJSON_AddArrayToObject(o, "skin_transforms");
        const cna_mat4 *skin_tf = cna_character_skin_transforms(ch, s);
        for (size_t p = 0; p2n && st && p < sk->joint_count; p++) {
            cJSON_AddItemToArray(p2n, int_num(sk->palette_to_gltf_node[p]));
            cJSON_AddItemToArray(st, mat_json(&skin_tf[p]));
        }
    }
    cJSON *mw = cJSON_AddArrayToObject(root, "morph_weights");
    cJSON *prims = cJSON_AddArrayToObject(root, "primitives");
    if (!mw || !prims) goto oom;
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        size_t wc = 0;
        const float *w = mesh_weights(ch, i, mesh, &wc);
        if (w && wc > 0) {
            cJSON *o = cJSON_CreateObject();
            if (!o) goto oom;
            cJSON_AddItemToArray(mw, o);
            cJSON_AddItemToObject(o, "node", int_num(mesh->gltf_node));
            cJSON_AddItemToObject(o, "mesh", int_num(mesh->gltf_mesh));
            cJSON *wa = cJSON_AddArrayToObject(o, "weights");
            for (size_t k = 0; wa && k < wc; k++) cJSON_AddItemToArray(wa, num((double)w[k]));
        }
        for (size_t k = 0, parts = 1; k < mesh->part_count; k += parts) {
            const cna_model_part *part = &mesh->parts[k];
            /* the sub-parts of a split primitive are one primitive */
            parts = 1;
            while (part->palette_map && k + parts < mesh->part_count && mesh->parts[k + parts].palette_map &&
                   mesh->parts[k + parts].gltf_primitive == part->gltf_primitive)
                parts++;
            cJSON *o = cJSON_CreateObject();
            if (!o) goto oom;
            cJSON_AddItemToArray(prims, o);
            cJSON_AddItemToObject(o, "node", int_num(mesh->gltf_node));
            cJSON_AddItemToObject(o, "mesh", int_num(mesh->gltf_mesh));
            cJSON_AddItemToObject(o, "primitive", int_num(part->gltf_primitive));
            cJSON *pos = part_positions(ch, i, k, parts,
                                        cna_character_absolute_transform(ch, (size_t)mesh->parent_bone), &err);
            if (!pos) goto fail;
            cJSON_AddItemToObject(o, "positions", pos);
        }
    }
    text = cJSON_Print(root);
    if (!text) goto oom;
    if (fputs(text, stdout) == EOF || fputc('\n', stdout) == EOF || fflush(stdout) != 0) {
        fprintf(stderr, "error: writing the pose failed\n");
        goto done;
    }
    rc = CNA_CLI_EXIT_OK;
    goto done;
oom:
    err.code = CNA_ERROR_OUT_OF_MEMORY;
    snprintf(err.message, sizeof err.message, "out of memory");
fail:
    rc = cna_cli_report_error(a->path, &err);
done:
    free(text);
    cJSON_Delete(root);
    cna_character_free(ch);
    cna_model_free(m);
    cna_gltf_document_free(doc);
    return rc;
}

int cna_cli_pose_run(int argc, char **argv)
{
    const cna_cli_command *cmd = cna_cli_find("pose");
    for (int i = 1; i < argc; i++) {
        if (cna_cli_is_help(argv[i])) {
            cna_cli_pose_help(stdout);
            return CNA_CLI_EXIT_OK;
        }
    }
    pose_args a;
    int u = parse_args(cmd, argc, argv, &a);
    if (u >= 0) return u;
    return pose_run(&a);
}
