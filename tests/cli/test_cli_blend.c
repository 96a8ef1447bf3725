/*
 * `cna pose --blend` and `cna render --blend`, run as separate processes:
 * - weight 0 prints, byte for byte, the pose of --animation alone plus the
 *   "blend" member (layer 1 at weight 0 takes no part: one layer of weight 1
 *   poses as a character without layers);
 * - weight 1 prints the pose of --blend alone at --blend-time: every value
 *   the blend animates is its value, and a value only --animation animates
 *   is at rest (its layer has weight 0), which is also what the blend
 *   animation alone leaves it at;
 * - weights 0.25 and 0.5 print what the library gives for a character with
 *   two layers, --animation at 1 - W and --blend at W, every number
 *   (worlds, palettes, morph weights, positions) equal as a float;
 * - --blend-time defaults to --time and is clamped with a note naming the
 *   option that gave it;
 * - bad values and options without --blend are usage errors (exit 2) with
 *   exact messages; an unknown blend animation exits 1;
 * - `cna render --blend` writes a PNG (single frame, and a sheet).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>


#include "cna/cna.h"

#include "cli/cli_run.h"
#define VALID CNA_TEST_DATA_DIR "/corpus/valid"
#define ROBOT VALID "/RobotExpressive/robot.glb"
/* What an unknown animation of ROBOT lists after its name: every name, by index. */
#define ROBOT_ANIMATIONS " (the file has 14: 0 \"Robot_Dance\", 1 \"Robot_Death\", 2 \"Robot_Idle\", 3 \"Robot_Jump\", " \
    "4 \"Robot_No\", 5 \"Robot_Punch\", 6 \"Robot_Running\", 7 \"Robot_Sitting\", 8 \"Robot_Standing\", " \
    "9 \"Robot_ThumbsUp\", 10 \"Robot_Walking\", 11 \"Robot_WalkJump\", 12 \"Robot_Wave\", 13 \"Robot_Yes\")\n"
#define INTERPOLATION VALID "/InterpolationTest/interpolation_test.gltf"
#define MORPHS VALID "/MorphStressTest/MorphStressTest.gltf"

/* A successful `cna pose`: exit 0, nothing on stderr; its stdout (owned). */
static char *pose_ok(run_result r)
{
    if (r.exit_code != 0 || r.err[0]) fail_msg("cna pose exited %d: %s", r.exit_code, r.err);
    free(r.err);
    return r.out;
}

static void assert_prefix(const char *text, const char *prefix)
{
    if (strncmp(text, prefix, strlen(prefix)) != 0) fail_msg("expected \"%s\" at the start of:\n%.300s", prefix, text);
}

/* The pose text from its "bones" member on: everything but "time",
 * "animation" and "blend". */
static const char *from_bones(const char *text)
{
    const char *p = strstr(text, "\n\t\"bones\":");
    assert_non_null(p);
    return p;
}

/* The text with its "blend" member taken out (a copy), and that member. */
static char *without_blend(const char *text, char *member, size_t size)
{
    const char *b = strstr(text, "\t\"blend\":\t{\n");
    assert_non_null(b);
    const char *e = strstr(b, "\n\t},\n");
    assert_non_null(e);
    e += strlen("\n\t},\n");
    snprintf(member, size, "%.*s", (int)(e - b), b);
    size_t n = strlen(text);
    char *out = malloc(n + 1);
    assert_non_null(out);
    memcpy(out, text, (size_t)(b - text));
    memcpy(out + (b - text), e, n - (size_t)(e - text) + 1);
    return out;
}

/* ------------------------------------------------------------ weight 0 and 1 */

static void test_pose_blend_weight_0_prints_the_animation_alone_and_the_blend_member(void **state)
{
    (void)state;
    char *alone = pose_ok(run_cna("pose", ROBOT, "--animation", "Robot_Walking", "--time", "0.3", NULL));
    char *blend = pose_ok(run_cna("pose", ROBOT, "--animation", "Robot_Walking", "--time", "0.3", "--blend",
                                  "Robot_Running", "--blend-time", "0.2", "--weight", "0", NULL));
    char member[256];
    char *rest = without_blend(blend, member, sizeof member);
    assert_string_equal(member, "\t\"blend\":\t{\n\t\t\"animation\":\t6,\n\t\t\"time\":\t0.2,\n\t\t\"weight\":\t0\n\t},\n");
    assert_string_equal(rest, alone);
    /* the member sits right after "animation" */
    assert_prefix(blend, "{\n\t\"time\":\t0.3,\n\t\"animation\":\t10,\n\t\"blend\":");
    free(rest);
    free(blend);
    free(alone);

    /* morph weights too (MorphStressTest's animations animate its 8 targets) */
    alone = pose_ok(run_cna("pose", MORPHS, "--animation", "0", "--time", "1.5", NULL));
    blend = pose_ok(run_cna("pose", MORPHS, "--animation", "0", "--time", "1.5", "--blend", "TheWave", "--weight",
                            "0", NULL));
    rest = without_blend(blend, member, sizeof member);
    assert_string_equal(member, "\t\"blend\":\t{\n\t\t\"animation\":\t1,\n\t\t\"time\":\t1.5,\n\t\t\"weight\":\t0\n\t},\n");
    assert_string_equal(rest, alone);
    free(rest);
    free(blend);
    free(alone);
}

/* The world matrix of bone `b` in a pose's JSON. */
static const cJSON *bone_world(const cJSON *pose, int b)
{
    const cJSON *bones = cJSON_GetObjectItemCaseSensitive(pose, "bones");
    const cJSON *bone = cJSON_GetArrayItem(bones, b);
    assert_non_null(bone);
    const cJSON *world = cJSON_GetObjectItemCaseSensitive(bone, "world");
    assert_int_equal(cJSON_GetArraySize(world), 16);
    return world;
}

static bool same_numbers(const cJSON *a, const cJSON *b)
{
    for (int i = 0; i < 16; i++)
        if (cJSON_GetArrayItem(a, i)->valuedouble != cJSON_GetArrayItem(b, i)->valuedouble) return false;
    return true;
}

static void test_pose_blend_weight_1_prints_the_blend_alone_and_leaves_what_only_the_animation_moves_at_rest(
    void **state)
{
    (void)state;
    /* RobotExpressive: every clip animates the same 43 nodes */
    char *alone = pose_ok(run_cna("pose", ROBOT, "--animation", "Robot_Running", "--time", "0.2", NULL));
    char *blend = pose_ok(run_cna("pose", ROBOT, "--animation", "Robot_Walking", "--time", "0.3", "--blend",
                                  "Robot_Running", "--blend-time", "0.2", "--weight", "1", NULL));
    assert_string_equal(from_bones(blend), from_bones(alone));
    assert_non_null(strstr(blend, "\t\"blend\":\t{\n\t\t\"animation\":\t6,\n\t\t\"time\":\t0.2,\n\t\t\"weight\":\t1\n\t},\n"));
    free(blend);
    free(alone);

    /* InterpolationTest: animation 5 turns node 7 "Cube.005", animation 8
     * moves node 10 "Cube.009"; nothing else moves. */
    char *rest = pose_ok(run_cna("pose", INTERPOLATION, NULL));
    char *a = pose_ok(run_cna("pose", INTERPOLATION, "--animation", "5", "--time", "0.6", NULL));
    alone = pose_ok(run_cna("pose", INTERPOLATION, "--animation", "8", "--time", "0.9", NULL));
    blend = pose_ok(run_cna("pose", INTERPOLATION, "--animation", "5", "--time", "0.6", "--blend", "8",
                            "--blend-time", "0.9", "--weight", "1", NULL));
    assert_string_equal(from_bones(blend), from_bones(alone));
    cJSON *jr = cJSON_Parse(rest), *ja = cJSON_Parse(a), *jb = cJSON_Parse(blend), *jo = cJSON_Parse(alone);
    assert_true(jr && ja && jb && jo);
    int turned = -1, moved = -1;
    const cJSON *bones = cJSON_GetObjectItemCaseSensitive(jr, "bones");
    for (int b = 0; b < cJSON_GetArraySize(bones); b++) {
        const char *name = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(bones, b), "name")->valuestring;
        if (strcmp(name, "Cube.005") == 0) turned = b;
        if (strcmp(name, "Cube.009") == 0) moved = b;
    }
    assert_true(turned >= 0 && moved >= 0);
    /* animation 5 turns Cube.005 at 0.6 s, but with weight 0 it stays at rest */
    assert_false(same_numbers(bone_world(ja, turned), bone_world(jr, turned)));
    assert_true(same_numbers(bone_world(jb, turned), bone_world(jr, turned)));
    /* animation 8 moves Cube.009, which takes its value */
    assert_false(same_numbers(bone_world(jo, moved), bone_world(jr, moved)));
    assert_true(same_numbers(bone_world(jb, moved), bone_world(jo, moved)));
    cJSON_Delete(jr);
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    cJSON_Delete(jo);
    free(rest);
    free(a);
    free(blend);
    free(alone);
}

/* ------------------------------------------------------------ against the library */

/* The two-layer character of `cna pose PATH --animation A --time T --blend B
 * --blend-time T2 --weight W`, posed through the library. */
static cna_character *library_pose(const cna_model *m, long a, double t, long b, double t2, float w)
{
    cna_character *c = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    assert_int_equal(cna_character_layer_count(c), 2);
    for (size_t l = 0; l < 2; l++) assert_int_equal(cna_character_layer_set_loop_mode(c, l, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
    assert_int_equal(cna_character_layer_play(c, 0, a, &err), CNA_OK);
    assert_int_equal(cna_character_layer_play(c, 1, b, &err), CNA_OK);
    assert_int_equal(cna_character_layer_seek(c, 0, t, &err), CNA_OK);
    assert_int_equal(cna_character_layer_seek(c, 1, t2, &err), CNA_OK);
    assert_int_equal(cna_character_layer_set_weight(c, 0, 1.0f - w, &err), CNA_OK);
    assert_int_equal(cna_character_layer_set_weight(c, 1, w, &err), CNA_OK);
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    return c;
}

/* A JSON number that must be the float `expected` (%.9g gives back every float). */
static void assert_float_item(const cJSON *item, float expected, const char *what, size_t i)
{
    assert_true(cJSON_IsNumber(item));
    const float got = (float)item->valuedouble;
    if (memcmp(&got, &expected, sizeof got) != 0)
        fail_msg("%s[%zu]: cna pose printed %.9g, the library gives %.9g", what, i, (double)got, (double)expected);
}

static void assert_matrix(const cJSON *arr, const cna_mat4 *m, const char *what)
{
    assert_int_equal(cJSON_GetArraySize(arr), 16);
    for (int k = 0; k < 16; k++) assert_float_item(cJSON_GetArrayItem(arr, k), m->m[k], what, (size_t)k);
}

/* Every number of the printed pose against the character: bones' worlds,
 * skins' palettes, morph weights, and each primitive's positions in file
 * order (morphed, skinned, then the parent bone's absolute transform). */
static void assert_pose_is_the_character(const char *text, const cna_character *c)
{
    const cna_model *m = cna_character_model(c);
    cJSON *pose = cJSON_Parse(text);
    assert_non_null(pose);
    const cJSON *bones = cJSON_GetObjectItemCaseSensitive(pose, "bones");
    assert_int_equal(cJSON_GetArraySize(bones), (int)m->bone_count);
    for (size_t b = 0; b < m->bone_count; b++)
        assert_matrix(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(bones, (int)b), "world"),
                      cna_character_absolute_transform(c, b), "world");
    const cJSON *skins = cJSON_GetObjectItemCaseSensitive(pose, "skins");
    assert_int_equal(cJSON_GetArraySize(skins), (int)m->skin_count);
    for (size_t s = 0; s < m->skin_count; s++) {
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(skins, (int)s), "skin_transforms");
        assert_int_equal(cJSON_GetArraySize(st), (int)m->skins[s].joint_count);
        for (size_t p = 0; p < m->skins[s].joint_count; p++)
            assert_matrix(cJSON_GetArrayItem(st, (int)p), &cna_character_skin_transforms(c, s)[p], "skin_transforms");
    }
    const cJSON *mw = cJSON_GetObjectItemCaseSensitive(pose, "morph_weights");
    const cJSON *prims = cJSON_GetObjectItemCaseSensitive(pose, "primitives");
    int weights_seen = 0, prim = 0;
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        for (size_t k = 0; k < mesh->part_count; k++) {
            if (!mesh->parts[k].morph) continue;
            size_t n = 0;
            const float *w = cna_character_morph_weights(c, i, k, &n);
            const cJSON *got = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(mw, weights_seen++), "weights");
            assert_int_equal(cJSON_GetArraySize(got), (int)n);
            for (size_t j = 0; j < n; j++) assert_float_item(cJSON_GetArrayItem(got, (int)j), w[j], "weights", j);
            break;   /* one entry per mesh: its first morphed part's */
        }
        for (size_t k = 0; k < mesh->part_count; k++, prim++) {
            const cna_model_part *part = &mesh->parts[k];
            const cJSON *pos = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(prims, prim), "positions");
            assert_non_null(pos);
            const size_t n = part->vertex_count, stride = part->declaration.stride;
            const unsigned char *bytes = cna_character_part_vertices(c, i, k, NULL);
            float *xyz = malloc((n ? n : 1) * 3 * sizeof(float));
            assert_non_null(xyz);
            if (mesh->skin >= 0) {
                cna_skinning_layout layout;
                cna_error err;
                assert_int_equal(cna_skinning_layout_canonical((uint32_t)stride, &layout, &err), CNA_OK);
                assert_int_equal(cna_skin_positions(&layout, bytes, n, cna_character_skin_transforms(c, (size_t)mesh->skin),
                                                    m->skins[mesh->skin].joint_count, xyz, n * 3, &err),
                                 CNA_OK);
            } else {
                for (size_t v = 0; v < n; v++) memcpy(&xyz[v * 3], bytes + v * stride, 12);
            }
            const cna_mat4 *draw = cna_character_absolute_transform(c, (size_t)mesh->parent_bone);
            const size_t file_n = part->source_vertex ? part->source_vertex_count : n;
            assert_int_equal(cJSON_GetArraySize(pos), (int)file_n);
            for (size_t fv = 0; fv < file_n; fv++) {
                size_t v = fv;
                if (part->source_vertex)   /* the first part vertex made from file vertex fv */
                    for (v = 0; v < n && part->source_vertex[v] != fv; v++) continue;
                const cJSON *p = cJSON_GetArrayItem(pos, (int)fv);
                if (v >= n) {
                    assert_int_equal(cJSON_GetArraySize(p), 0);
                    continue;
                }
                cna_vec3 q = cna_mat4_transform_point(draw, cna_vec3_make(xyz[v * 3], xyz[v * 3 + 1], xyz[v * 3 + 2]));
                assert_float_item(cJSON_GetArrayItem(p, 0), q.x, "positions.x", fv);
                assert_float_item(cJSON_GetArrayItem(p, 1), q.y, "positions.y", fv);
                assert_float_item(cJSON_GetArrayItem(p, 2), q.z, "positions.z", fv);
            }
            free(xyz);
        }
    }
    assert_int_equal(cJSON_GetArraySize(mw), weights_seen);
    assert_int_equal(cJSON_GetArraySize(prims), prim);
    cJSON_Delete(pose);
}

static void check_against_library(const char *path, long a, const char *t_text, long b, const char *t2_text,
                                  const char *w_text)
{
    char a_text[16], b_text[16];
    snprintf(a_text, sizeof a_text, "%ld", a);
    snprintf(b_text, sizeof b_text, "%ld", b);
    char *text = pose_ok(run_cna("pose", path, "--animation", a_text, "--time", t_text, "--blend", b_text,
                                 "--blend-time", t2_text, "--weight", w_text, NULL));
    cna_model *m = NULL;
    cna_error err;
    assert_int_equal(cna_model_load_file(path, NULL, &m, &err), CNA_OK);
    cna_character *c = library_pose(m, a, strtod(t_text, NULL), b, strtod(t2_text, NULL), (float)strtod(w_text, NULL));
    assert_pose_is_the_character(text, c);
    /* and it is neither layer alone */
    char *alone = pose_ok(run_cna("pose", path, "--animation", a_text, "--time", t_text, NULL));
    assert_string_not_equal(from_bones(text), from_bones(alone));
    free(alone);
    alone = pose_ok(run_cna("pose", path, "--animation", b_text, "--time", t2_text, NULL));
    assert_string_not_equal(from_bones(text), from_bones(alone));
    free(alone);
    cna_character_free(c);
    cna_model_free(m);
    free(text);
}

static void test_pose_blend_prints_the_library_pose_of_two_layers_weighted_1_minus_w_and_w(void **state)
{
    (void)state;
    check_against_library(ROBOT, 10, "0.3", 6, "0.2", "0.25");      /* Robot_Walking, Robot_Running: joints */
    check_against_library(ROBOT, 10, "0.3", 6, "0.2", "0.5");
    check_against_library(ROBOT, 2, "0.5", 12, "1.25", "0.7");       /* Robot_Idle, Robot_Wave */
    check_against_library(INTERPOLATION, 5, "0.6", 8, "0.9", "0.25"); /* scene nodes, each moved by one */
    check_against_library(MORPHS, 0, "1.5", 1, "0.4", "0.25");        /* morph weights */
}

/* ------------------------------------------------------------ times */

static void test_pose_blend_time_defaults_to_time_and_is_clamped_with_a_note_naming_its_option(void **state)
{
    (void)state;
    char *implicit = pose_ok(run_cna("pose", ROBOT, "--animation", "Robot_Walking", "--time", "0.3", "--blend",
                                     "Robot_Running", NULL));
    char *given = pose_ok(run_cna("pose", ROBOT, "--animation", "Robot_Walking", "--time", "0.3", "--blend",
                                  "Robot_Running", "--blend-time", "0.3", "--weight", "0.5", NULL));
    assert_string_equal(implicit, given);
    assert_non_null(strstr(given, "\t\"blend\":\t{\n\t\t\"animation\":\t6,\n\t\t\"time\":\t0.3,\n\t\t\"weight\":\t0.5\n\t},\n"));
    free(implicit);
    free(given);

    /* Robot_Dance lasts 3.33 s, Robot_Death 0.958333 s: --time 2 is past the blend's end */
    run_result r = run_cna("pose", ROBOT, "--animation", "Robot_Dance", "--time", "2", "--blend", "Robot_Death", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "note: --time 2 is past the end of \"Robot_Death\" (0.958333 s); posed at 0.958333 s\n");
    assert_non_null(strstr(r.out, "\t\"time\":\t2,\n"));
    assert_non_null(strstr(r.out, "\t\t\"time\":\t0.9583333,\n"));
    run_free(&r);
    r = run_cna("pose", ROBOT, "--animation", "Robot_Dance", "--time", "2", "--blend", "Robot_Death", "--blend-time",
                "-1", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "note: --blend-time -1 is before the start of \"Robot_Death\"; posed at 0 s\n");
    assert_non_null(strstr(r.out, "\t\t\"time\":\t0,\n"));
    run_free(&r);
    /* without --animation or --time: the rest pose at 1 - W, the blend at 0 s */
    r = run_cna("pose", ROBOT, "--blend", "Robot_Wave", "--weight", "0.5", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_prefix(r.out, "{\n\t\"time\":\t0,\n\t\"animation\":\tnull,\n\t\"blend\":\t{\n\t\t\"animation\":\t12,\n"
                         "\t\t\"time\":\t0,\n\t\t\"weight\":\t0.5\n\t},\n\t\"bones\":");
    run_free(&r);
}

/* ------------------------------------------------------------ errors */

/* A usage error: exit 2, nothing on stdout, stderr "cna CMD: MESSAGE\nusage: cna CMD ...". */
static void assert_usage(run_result r, const char *command, const char *message)
{
    char first[256];
    snprintf(first, sizeof first, "cna %s: %s\nusage: cna %s ", command, message, command);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    if (strncmp(r.err, first, strlen(first)) != 0) fail_msg("expected \"%s\" at the start of:\n%s", first, r.err);
    run_free(&r);
}

static void test_pose_and_render_blend_options_refuse_bad_values_with_exit_2(void **state)
{
    (void)state;
    static const char *const commands[] = {"pose", "render"};
    for (size_t k = 0; k < 2; k++) {
        const char *c = commands[k];
        /* an option both take as valid: render's output, pose's default mode */
#define OUT_OPT (k ? "-o" : "--mode")
#define OUT_VAL (k ? "/tmp/cna-never.png" : "faithful")
        assert_usage(run_cna(c, ROBOT, "--blend", "1", "--weight", "1.5", OUT_OPT, OUT_VAL, NULL), c,
                     "--weight: '1.5' is not a weight in [0, 1]");
        assert_usage(run_cna(c, ROBOT, "--blend", "1", "--weight", "-0.1", OUT_OPT, OUT_VAL, NULL), c,
                     "--weight: '-0.1' is not a weight in [0, 1]");
        assert_usage(run_cna(c, ROBOT, "--blend", "1", "--weight", "half", OUT_OPT, OUT_VAL, NULL), c,
                     "--weight: 'half' is not a weight in [0, 1]");
        assert_usage(run_cna(c, ROBOT, "--blend", "1", "--weight", "nan", OUT_OPT, OUT_VAL, NULL), c,
                     "--weight: 'nan' is not a weight in [0, 1]");
        assert_usage(run_cna(c, ROBOT, "--blend", "1", "--weight", "", OUT_OPT, OUT_VAL, NULL), c,
                     "--weight: '' is not a weight in [0, 1]");
        assert_usage(run_cna(c, ROBOT, "--blend", "1", "--blend-time", "soon", OUT_OPT, OUT_VAL, NULL), c,
                     "--blend-time: 'soon' is not a number of seconds");
        assert_usage(run_cna(c, ROBOT, "--weight", "0.5", OUT_OPT, OUT_VAL, NULL), c,
                     "--weight needs --blend I|NAME");
        assert_usage(run_cna(c, ROBOT, "--animation", "1", "--blend-time", "0.5", OUT_OPT, OUT_VAL, NULL),
                     c, "--blend-time needs --blend I|NAME");
        assert_usage(run_cna(c, ROBOT, OUT_OPT, OUT_VAL, "--blend", NULL), c, "--blend needs a value");
    }
#undef OUT_OPT
#undef OUT_VAL
    assert_int_equal(access("/tmp/cna-never.png", F_OK), -1);
}

static void test_pose_blend_with_an_unknown_animation_exits_1_naming_it(void **state)
{
    (void)state;
    run_result r = run_cna("pose", ROBOT, "--animation", "Robot_Walking", "--blend", "Robot_Flying", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "error: " ROBOT ": --blend: no animation 'Robot_Flying'" ROBOT_ANIMATIONS);
    run_free(&r);
    r = run_cna("pose", ROBOT, "--blend", "14", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, "error: " ROBOT ": --blend: no animation '14'" ROBOT_ANIMATIONS);
    run_free(&r);
}

/* ------------------------------------------------------------ render */

#ifdef CNA_TEST_HAVE_GL
static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void test_render_blend_writes_a_png_of_a_frame_and_of_a_sheet(void **state)
{
    (void)state;
    char dir[256];
    cna_test_temp_dir(dir, sizeof dir, "cna-test-cli-blend-");
    char png[512], sheet[512], expected[1024];
    snprintf(png, sizeof png, "%s/one.png", dir);
    snprintf(sheet, sizeof sheet, "%s/sheet.png", dir);
    run_result r = run_cna("render", ROBOT, "--animation", "Robot_Idle", "--time", "0.5", "--blend", "Robot_Wave",
                           "--blend-time", "0.6", "--weight", "0.8", "--size", "64x48", "-o", png, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "");
    snprintf(expected, sizeof expected, "wrote %s (64x48)\n", png);
    assert_string_equal(r.out, expected);
    assert_true(file_size(png) > 0);
    run_free(&r);
    r = run_cna("render", ROBOT, "--animation", "Robot_Walking", "--blend", "Robot_Running", "--sheet", "4", "--size",
                "64x48", "-o", sheet, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "");
    assert_true(strncmp(r.out, "wrote ", 6) == 0 && strstr(r.out, ", 4 frames)\n"));
    assert_true(file_size(sheet) > 0);
    run_free(&r);
    r = run_cna("render", ROBOT, "--blend", "Robot_Flying", "--size", "64x48", "-o", png, NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, "error: " ROBOT ": --blend: no animation 'Robot_Flying'" ROBOT_ANIMATIONS);
    run_free(&r);
    assert_int_equal(remove(png), 0);
    assert_int_equal(remove(sheet), 0);
    assert_int_equal(rmdir(dir), 0);
}
#endif

int cna_test_cli_ik_run(void); /* ik_cases.c: --ik and --aim */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pose_blend_weight_0_prints_the_animation_alone_and_the_blend_member),
        cmocka_unit_test(test_pose_blend_weight_1_prints_the_blend_alone_and_leaves_what_only_the_animation_moves_at_rest),
        cmocka_unit_test(test_pose_blend_prints_the_library_pose_of_two_layers_weighted_1_minus_w_and_w),
        cmocka_unit_test(test_pose_blend_time_defaults_to_time_and_is_clamped_with_a_note_naming_its_option),
        cmocka_unit_test(test_pose_and_render_blend_options_refuse_bad_values_with_exit_2),
        cmocka_unit_test(test_pose_blend_with_an_unknown_animation_exits_1_naming_it),
#ifdef CNA_TEST_HAVE_GL
        cmocka_unit_test(test_render_blend_writes_a_png_of_a_frame_and_of_a_sheet),
#endif
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return failed + cna_test_cli_ik_run();
}
