/*
 * The `cna` command-line tool, run as a separate process: exit codes (0 done,
 * 1 refused, 2 usage), where messages go (stdout / stderr), and exact facts
 * that `cna inspect` reports about corpus files, in text and JSON.
 *
 * The tool is the executable CNA_BINARY_DIR "/cna", built by the same build
 * (target cna_tool); a missing binary fails every test here.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <limits.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>


#include "cna/version.h"

#include "cli/cli_run.h"
#define VALID CNA_TEST_DATA_DIR "/corpus/valid"
#define INVALID CNA_TEST_DATA_DIR "/corpus/invalid"
#define ROBOT VALID "/RobotExpressive/robot.glb"
#define INTERPOLATION VALID "/InterpolationTest/interpolation_test.gltf"
#define RIGGED VALID "/RiggedSimple/rigged_simple.gltf"
#define BAD_JSON INVALID "/validator/test/base/data/json/invalid_syntax.gltf"
#define BAD_GLB INVALID "/validator/test/base/data/glb/invalid_magic.glb"

static void assert_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle)) fail_msg("expected \"%s\" in:\n%s", needle, haystack);
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static cJSON *member(const cJSON *obj, const char *key)
{
    cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!item) fail_msg("JSON member \"%s\" missing", key);
    return item;
}

static int int_member(const cJSON *obj, const char *key)
{
    const cJSON *item = member(obj, key);
    assert_true(cJSON_IsNumber(item));
    return item->valueint;
}

/* ------------------------------------------------------------ usage */

static void test_cli_without_command_exits_2_with_usage_on_stderr(void **state)
{
    (void)state;
    run_result r = run_cna(NULL);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    assert_contains(r.err, "usage: cna <command>");
    run_free(&r);
}

static void test_cli_unknown_command_exits_2_naming_it(void **state)
{
    (void)state;
    run_result r = run_cna("frobnicate", NULL);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    assert_contains(r.err, "unknown command 'frobnicate'");
    assert_contains(r.err, "usage: cna <command>");
    run_free(&r);
}

static void test_cli_help_exits_0_and_lists_inspect_on_stdout(void **state)
{
    (void)state;
    const char *forms[][2] = {{"--help", NULL}, {"-h", NULL}, {"help", NULL}};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        run_result r = run_cna(forms[i][0], NULL);
        assert_int_equal(r.exit_code, 0);
        assert_contains(r.out, "inspect");
        assert_string_equal(r.err, "");
        run_free(&r);
    }
}

static void test_cli_help_for_inspect_exits_0_with_its_usage(void **state)
{
    (void)state;
    run_result a = run_cna("help", "inspect", NULL);
    run_result b = run_cna("inspect", "--help", NULL);
    assert_int_equal(a.exit_code, 0);
    assert_int_equal(b.exit_code, 0);
    assert_true(starts_with(a.out, "usage: cna inspect FILE [--json | --brief]"));
    assert_string_equal(a.out, b.out);
    run_free(&a);
    run_free(&b);
}

static void test_cli_help_for_unknown_command_exits_2(void **state)
{
    (void)state;
    run_result r = run_cna("help", "nope", NULL);
    assert_int_equal(r.exit_code, 2);
    assert_contains(r.err, "unknown command 'nope'");
    run_free(&r);
}

static void test_cli_version_and_dash_dash_version_print_the_version_and_exit_0(void **state)
{
    (void)state;
    const char *forms[] = {"version", "--version"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        run_result r = run_cna(forms[i], NULL);
        assert_int_equal(r.exit_code, 0);
        assert_string_equal(r.out, "cna " CNA_VERSION_STRING "\n");
        assert_string_equal(r.err, "");
        run_free(&r);
    }
}

static void test_cli_version_with_an_argument_exits_2_naming_it(void **state)
{
    (void)state;
    const char *forms[] = {"version", "--version"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        run_result r = run_cna(forms[i], "extra", NULL);
        assert_int_equal(r.exit_code, 2);
        assert_string_equal(r.out, "");
        assert_contains(r.err, "cna version: unexpected argument 'extra'\nusage: cna version\n");
        run_free(&r);
    }
}

static void test_cli_help_lists_version(void **state)
{
    (void)state;
    run_result r = run_cna("help", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_contains(r.out, "\n  version\n             print the version of cna");
    run_free(&r);
    run_result h = run_cna("help", "version", NULL);
    assert_int_equal(h.exit_code, 0);
    assert_true(starts_with(h.out, "usage: cna version\n       cna --version\n"));
    run_free(&h);
}

static void test_inspect_without_file_exits_2(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", NULL);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    assert_contains(r.err, "cna inspect: missing FILE");
    assert_contains(r.err, "usage: cna inspect FILE [--json | --brief]");
    run_free(&r);
}

static void test_inspect_unknown_option_exits_2_naming_it(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", "--yaml", ROBOT, NULL);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    assert_contains(r.err, "unknown option '--yaml'");
    run_free(&r);
}

static void test_inspect_two_files_exits_2(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", ROBOT, RIGGED, NULL);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    assert_contains(r.err, "takes one FILE");
    run_free(&r);
}

/* ------------------------------------------------------------ refused files */

static void test_inspect_refused_json_exits_1_with_error_on_stderr_only(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", BAD_JSON, NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.out, "");
    assert_true(starts_with(r.err, "error: " BAD_JSON ": "));
    assert_true(strlen(r.err) > strlen("error: " BAD_JSON ": \n"));
    run_free(&r);
}

static void test_inspect_refused_glb_with_json_flag_exits_1_and_prints_no_json(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", "--json", BAD_GLB, NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.out, "");
    assert_true(starts_with(r.err, "error: " BAD_GLB ": "));
    run_free(&r);
}

static void test_inspect_missing_file_exits_1(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", CNA_TEST_DATA_DIR "/no/such/file.gltf", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.out, "");
    assert_true(starts_with(r.err, "error: " CNA_TEST_DATA_DIR "/no/such/file.gltf: "));
    run_free(&r);
}

/* A file that requires KHR_texture_basisu: refused naming --no-textures,
 * which then loads it (images not read). */
static void test_inspect_no_textures_loads_a_file_requiring_a_texture_format(void **state)
{
    (void)state;
    const char *file = CNA_TEST_DATA_DIR "/fixtures/lenient-texture-basisu.gltf";
    run_result r = run_cna("inspect", file, NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.out, "");
    assert_contains(r.err, "\"KHR_texture_basisu\" is not supported; it concerns textures only: load without "
                           "textures (cna --no-textures, cna_gltf_options.no_textures) to read the rest\n");
    run_free(&r);
    r = run_cna("inspect", "--no-textures", file, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_contains(r.out, "  image 0 \"Face\": external uri \"face.ktx2\" image/ktx2 (not read)\n");
    assert_contains(r.out, "warning textures-not-loaded (x1): images[0]: not read: loaded without textures\n");
    run_free(&r);
    r = run_cna("pose", "--no-textures", file, NULL);
    assert_int_equal(r.exit_code, 0);
    run_free(&r);
}

/* ------------------------------------------------------------ text summary */

static void test_inspect_robot_text_reports_43_joints_and_14_animations(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", ROBOT, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "");
    assert_contains(r.out, "(GLB)");
    assert_contains(r.out, "generator \"Khronos glTF Blender I/O v3.3.32\"");
    assert_contains(r.out, "scenes: 1 (default 0)\n  scene 0 \"Scene\" (default): roots 57\n");
    assert_contains(r.out, "nodes: 58\n  [57] \"RobotArmature\"\n");
    assert_contains(r.out, "skins: 1\n  skin 0 \"RobotArmature\": 43 joints, skeleton none");
    assert_contains(r.out, "    joints: 42 0 38 33 ");
    assert_contains(r.out, "animations: 14\n");
    assert_contains(r.out, "  animation 0 \"Robot_Dance\": 129 channels, 129 samplers, duration 3.33333 s, "
                           "interpolation LINEAR x129\n");
    assert_contains(r.out, "meshes: 14\n");
    assert_contains(r.out, "materials: 3\n");
    run_free(&r);
}

static void test_inspect_text_indents_children_under_parents(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", RIGGED, NULL);
    assert_int_equal(r.exit_code, 0);
    /* Z_UP(0) -> Armature(1) -> children [3, 2] in file order; Bone(3) -> Bone.001(4). */
    const char *tree = strstr(r.out, "nodes: 5\n");
    assert_non_null(tree);
    const char *expected_prefixes[] = {
        "nodes: 5\n", "  [0] \"Z_UP\"", "    [1] \"Armature\"", "      [3] \"Bone\"",
        "        [4] \"Bone.001\"", "      [2] \"Cylinder\" mesh 0 skin 0",
    };
    const char *line = tree;
    for (size_t i = 0; i < sizeof expected_prefixes / sizeof expected_prefixes[0]; i++) {
        assert_non_null(line);
        if (!starts_with(line, expected_prefixes[i]))
            fail_msg("line %zu: expected \"%s...\", got:\n%.80s", i, expected_prefixes[i], line);
        line = strchr(line, '\n');
        if (line) line++;
    }
    run_free(&r);
}

static void test_inspect_interpolation_test_text_names_every_mode(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", INTERPOLATION, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_contains(r.out, "animations: 9\n");
    assert_contains(r.out, "\"Step Scale\": 1 channels, 1 samplers, duration 1.66667 s, interpolation STEP x1");
    assert_contains(r.out, "\"Linear Scale\": 1 channels, 1 samplers, duration 1.66667 s, "
                           "interpolation CUBICSPLINE x1");
    assert_contains(r.out, "\"Linear Rotation\": 1 channels, 1 samplers, duration 1.70833 s, "
                           "interpolation LINEAR x1");
    /* The image l.jpg is absent: a diagnostic, and the model still loads. */
    assert_contains(r.out, "  warning image-missing (x1): ");
    run_free(&r);
}

/* ------------------------------------------------------------ JSON summary */

static cJSON *inspect_json(const char *path)
{
    run_result r = run_cna("inspect", "--json", path, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "");
    cJSON *root = cJSON_Parse(r.out);
    if (!root) fail_msg("%s: --json output does not parse:\n%.200s", path, r.out);
    run_free(&r);
    return root;
}

static void test_inspect_json_robot_has_expected_counts(void **state)
{
    (void)state;
    cJSON *root = inspect_json(ROBOT);
    assert_string_equal(member(root, "container")->valuestring, "glb");
    assert_int_equal(int_member(root, "scene"), 0);
    assert_int_equal(cJSON_GetArraySize(member(root, "nodes")), 58);
    const cJSON *skins = member(root, "skins");
    assert_int_equal(cJSON_GetArraySize(skins), 1);
    const cJSON *skin = cJSON_GetArrayItem(skins, 0);
    assert_int_equal(int_member(skin, "jointCount"), 43);
    assert_int_equal(cJSON_GetArraySize(member(skin, "joints")), 43);
    assert_int_equal(cJSON_GetArrayItem(member(skin, "joints"), 0)->valueint, 42);
    assert_true(cJSON_IsNull(member(skin, "skeleton")));

    const cJSON *meshes = member(root, "meshes");
    assert_int_equal(cJSON_GetArraySize(meshes), 14);
    int primitives = 0;
    const cJSON *mesh;
    cJSON_ArrayForEach(mesh, meshes) primitives += cJSON_GetArraySize(member(mesh, "primitives"));
    assert_int_equal(primitives, 19);

    const cJSON *anims = member(root, "animations");
    assert_int_equal(cJSON_GetArraySize(anims), 14);
    const cJSON *anim;
    cJSON_ArrayForEach(anim, anims) {
        assert_int_equal(int_member(anim, "channelCount"), 129);
        assert_int_equal(cJSON_GetArraySize(member(anim, "channels")), 129);
        assert_int_equal(int_member(member(anim, "interpolations"), "LINEAR"), 129);
    }
    const cJSON *dance = cJSON_GetArrayItem(anims, 0);
    assert_string_equal(member(dance, "name")->valuestring, "Robot_Dance");
    assert_float_equal(member(dance, "duration")->valuedouble, (double)(float)(10.0 / 3.0), 0.0);
    cJSON_Delete(root);
}

static void test_inspect_json_interpolation_test_counts_modes(void **state)
{
    (void)state;
    cJSON *root = inspect_json(INTERPOLATION);
    int step = 0, cubic = 0, linear = 0;
    const cJSON *anim;
    cJSON_ArrayForEach(anim, member(root, "animations")) {
        const cJSON *modes = member(anim, "interpolations");
        step += int_member(modes, "STEP");
        cubic += int_member(modes, "CUBICSPLINE");
        linear += int_member(modes, "LINEAR");
    }
    assert_int_equal(step, 3);
    assert_int_equal(cubic, 4);
    assert_int_equal(linear, 2);
    const cJSON *diag = cJSON_GetArrayItem(member(root, "diagnostics"), 0);
    assert_non_null(diag);
    int found = 0;
    cJSON_ArrayForEach(diag, member(root, "diagnostics"))
        if (strcmp(member(diag, "code")->valuestring, "image-missing") == 0) found = 1;
    assert_true(found);
    cJSON_Delete(root);
}

static void test_inspect_json_parses_for_every_valid_model(void **state)
{
    (void)state;
    const char *models[] = {
        VALID "/AnimatedMorphCube/AnimatedMorphCube.gltf", VALID "/BoxAnimated/box_animated.gltf",
        INTERPOLATION, VALID "/MorphStressTest/MorphStressTest.gltf", RIGGED, ROBOT,
        VALID "/SimpleMorph/SimpleMorph.gltf", VALID "/SimpleSkin/simple_skin.gltf",
        VALID "/Triangle/triangle.gltf",
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        cJSON *root = inspect_json(models[i]);
        assert_string_equal(member(root, "file")->valuestring, models[i]);
        cJSON_Delete(root);
    }
}

static void test_inspect_json_morph_stress_test_has_8_targets_per_primitive(void **state)
{
    (void)state;
    cJSON *root = inspect_json(VALID "/MorphStressTest/MorphStressTest.gltf");
    const cJSON *mesh = cJSON_GetArrayItem(member(root, "meshes"), 0);
    assert_int_equal(int_member(mesh, "targetCount"), 8);
    const cJSON *prim;
    int prims = 0;
    cJSON_ArrayForEach(prim, member(mesh, "primitives")) {
        assert_int_equal(int_member(prim, "targetCount"), 8);
        assert_int_equal(cJSON_GetArraySize(member(prim, "targets")), 8);
        prims++;
    }
    assert_int_equal(prims, 2);
    assert_int_equal(cJSON_GetArraySize(member(root, "animations")), 3);
    cJSON_Delete(root);
}

/* Calls fn(path, count) for every *.gltf / *.glb under dir (recursive,
 * symbolic links not followed); returns the number of files visited. */
static size_t for_each_model(const char *dir, void (*fn)(const char *path, size_t *counts), size_t *counts)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t visited = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char path[1024];
        assert_true((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path);
        struct stat st;
        assert_int_equal(lstat(path, &st), 0);
        size_t len = strlen(path);
        if (S_ISDIR(st.st_mode)) {
            visited += for_each_model(path, fn, counts);
        } else if (S_ISREG(st.st_mode) &&
                   ((len > 5 && strcmp(path + len - 5, ".gltf") == 0) ||
                    (len > 4 && strcmp(path + len - 4, ".glb") == 0))) {
            fn(path, counts);
            visited++;
        }
    }
    closedir(d);
    return visited;
}

/* counts[0]: loaded, counts[1]: refused. */
static void check_inspect_json_on(const char *path, size_t *counts)
{
    run_result r = run_cna("inspect", "--json", path, NULL);
    if (r.exit_code == 0) {
        cJSON *root = cJSON_Parse(r.out);
        if (!root) fail_msg("%s: --json output does not parse", path);
        cJSON_Delete(root);
        assert_string_equal(r.err, "");
        counts[0]++;
    } else if (r.exit_code == 1) {
        if (r.out[0] != '\0') fail_msg("%s: refused, but printed on stdout", path);
        if (!starts_with(r.err, "error: ")) fail_msg("%s: exit 1 without \"error: \": %s", path, r.err);
        counts[1]++;
    } else {
        fail_msg("%s: exit code %d; stderr:\n%s", path, r.exit_code, r.err);
    }
    run_free(&r);
}

static void test_inspect_json_on_every_invalid_corpus_file_is_json_or_exit_1(void **state)
{
    (void)state;
    size_t counts[2] = {0, 0};
    size_t files = for_each_model(INVALID, check_inspect_json_on, counts);
    assert_int_equal(files, 389);
    assert_int_equal(counts[0] + counts[1], 389);
    assert_true(counts[0] > 0 && counts[1] > 0); /* both outcomes occur in this corpus */
}


/* ------------------------------------------------------------ pose */

static cJSON *run_json(run_result r)
{
    if (r.exit_code != 0) fail_msg("exit %d, stderr:\n%s", r.exit_code, r.err);
    cJSON *root = cJSON_Parse(r.out);
    if (!root) fail_msg("output does not parse as JSON:\n%.300s", r.out);
    run_free(&r);
    return root;
}

static void test_pose_mesh_node_fixture_palette_is_minus_50_and_positions_unmoved(void **state)
{
    (void)state;
    cJSON *root = run_json(run_cna("pose", CNA_TEST_DATA_DIR "/fixtures/skin-mesh-node-transform.gltf", NULL));
    assert_true(cJSON_IsNull(member(root, "animation")));
    const cJSON *bone0 = cJSON_GetArrayItem(member(root, "bones"), 0);
    assert_string_equal(member(bone0, "name")->valuestring, "MeshNode");
    assert_float_equal(cJSON_GetArrayItem(member(bone0, "world"), 14)->valuedouble, 50.0, 0.0);
    const cJSON *skin = cJSON_GetArrayItem(member(root, "skins"), 0);
    assert_int_equal(int_member(skin, "mesh_node"), 0);
    const cJSON *m = cJSON_GetArrayItem(member(skin, "skin_transforms"), 0);
    assert_int_equal(cJSON_GetArraySize(m), 16);
    assert_float_equal(cJSON_GetArrayItem(m, 14)->valuedouble, -50.0, 0.0);
    const cJSON *prim = cJSON_GetArrayItem(member(root, "primitives"), 0);
    const cJSON *p1 = cJSON_GetArrayItem(member(prim, "positions"), 1);
    assert_float_equal(cJSON_GetArrayItem(p1, 0)->valuedouble, 1.0, 0.0);
    assert_float_equal(cJSON_GetArrayItem(p1, 1)->valuedouble, 0.0, 0.0);
    assert_float_equal(cJSON_GetArrayItem(p1, 2)->valuedouble, 0.0, 0.0);
    cJSON_Delete(root);
}

static void test_pose_simple_morph_reports_weights_of_the_track(void **state)
{
    (void)state;
    cJSON *root = run_json(run_cna("pose", CNA_TEST_DATA_DIR "/corpus/valid/SimpleMorph/SimpleMorph.gltf",
                                   "--animation", "0", "--time", "1.5", NULL));
    assert_int_equal(int_member(root, "animation"), 0);
    const cJSON *mw = cJSON_GetArrayItem(member(root, "morph_weights"), 0);
    assert_int_equal(int_member(mw, "mesh"), 0);
    const cJSON *w = member(mw, "weights");
    assert_int_equal(cJSON_GetArraySize(w), 2);
    assert_float_equal(cJSON_GetArrayItem(w, 0)->valuedouble, 0.5, 0.0);
    assert_float_equal(cJSON_GetArrayItem(w, 1)->valuedouble, 1.0, 0.0);
    cJSON_Delete(root);
}

static void test_pose_robot_lists_43_skin_transforms_and_every_vertex(void **state)
{
    (void)state;
    cJSON *root = run_json(run_cna("pose", ROBOT, "--animation", "Robot_Walking", "--time", "0.25", NULL));
    const cJSON *skins = member(root, "skins");
    assert_true(cJSON_GetArraySize(skins) >= 1);
    const cJSON *skin = cJSON_GetArrayItem(skins, 0);
    assert_int_equal(cJSON_GetArraySize(member(skin, "skin_transforms")), 43);
    assert_int_equal(cJSON_GetArraySize(member(skin, "palette_to_node")), 43);
    assert_int_equal(cJSON_GetArraySize(member(root, "bones")), 58);
    assert_int_equal(cJSON_GetArraySize(member(root, "primitives")), 19);
    cJSON_Delete(root);
}

static void test_pose_unknown_animation_exits_1_naming_it(void **state)
{
    (void)state;
    run_result r = run_cna("pose", ROBOT, "--animation", "NoSuchClip", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_true(starts_with(r.err, "error: "));
    assert_contains(r.err, "NoSuchClip");
    run_free(&r);
}

static void test_pose_bad_mode_exits_2(void **state)
{
    (void)state;
    run_result r = run_cna("pose", ROBOT, "--mode", "sideways", NULL);
    assert_int_equal(r.exit_code, 2);
    run_free(&r);
}

static void test_pose_refused_model_exits_1(void **state)
{
    (void)state;
    run_result r = run_cna("pose", CNA_TEST_DATA_DIR "/fixtures/skin-73-joints.gltf", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_contains(r.err, "73 joints");
    assert_string_equal(r.out, "");
    run_free(&r);
}

/* A flat primitive (no NORMAL, so split: one part vertex per triangle corner)
 * of a 72 x 72 grid, 10082 triangles = 30246 part vertices, plus one file
 * vertex no triangle uses; written as DIR/flat.gltf + DIR/flat.bin. Vertex
 * (i, j) is at (i / 4, j / 2, ((7i + 3j) mod 5) / 8), exact in float. */
#define FLAT_GRID 72
static float flat_coord(size_t v, int axis)
{
    size_t i = v % FLAT_GRID, j = v / FLAT_GRID;
    if (axis == 0) return (float)i * 0.25f;
    if (axis == 1) return (float)j * 0.5f;
    return (float)((7 * i + 3 * j) % 5) * 0.125f;
}

static void write_flat_grid(const char *dir)
{
    const size_t nv = FLAT_GRID * FLAT_GRID + 1, ni = 6 * (FLAT_GRID - 1) * (FLAT_GRID - 1);
    char path[512];
    snprintf(path, sizeof path, "%s/flat.bin", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t v = 0; v < nv; v++)
        for (int a = 0; a < 3; a++) {
            float x = v + 1 == nv ? 9.0f : flat_coord(v, a);
            assert_int_equal(fwrite(&x, 4, 1, f), 1);  /* little-endian host */
        }
    for (uint32_t j = 0; j + 1 < FLAT_GRID; j++)
        for (uint32_t i = 0; i + 1 < FLAT_GRID; i++) {
            uint32_t a = j * FLAT_GRID + i;
            uint32_t t[6] = {a, a + 1, a + FLAT_GRID, a + 1, a + FLAT_GRID + 1, a + FLAT_GRID};
            assert_int_equal(fwrite(t, 4, 6, f), 6);
        }
    fclose(f);
    snprintf(path, sizeof path, "%s/flat.gltf", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%zu,\"uri\":\"flat.bin\"}],"
            "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu},{\"buffer\":0,\"byteOffset\":%zu,"
            "\"byteLength\":%zu}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%zu,"
            "\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[%g,%g,9]},{\"bufferView\":1,\"componentType\":5125,"
            "\"count\":%zu,\"type\":\"SCALAR\"}],\"meshes\":[{\"primitives\":[{\"attributes\":"
            "{\"POSITION\":0},\"indices\":1}]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}\n",
            12 * nv + 4 * ni, 12 * nv, 12 * nv, 4 * ni, nv, (FLAT_GRID - 1) * 0.25, (FLAT_GRID - 1) * 0.5, ni);
    fclose(f);
}

static void test_pose_flat_split_primitive_lists_every_file_vertex_once_in_file_order(void **state)
{
    (void)state;
    char dir[256];
    cna_test_temp_dir(dir, sizeof dir, "cna-test-flat-");
    write_flat_grid(dir);
    char gltf[512], bin[512];
    snprintf(gltf, sizeof gltf, "%s/flat.gltf", dir);
    snprintf(bin, sizeof bin, "%s/flat.bin", dir);
    run_result r = run_cna("pose", gltf, NULL);
    unlink(gltf);
    unlink(bin);
    rmdir(dir);
    cJSON *root = run_json(r);
    const cJSON *prim = cJSON_GetArrayItem(member(root, "primitives"), 0);
    const cJSON *positions = member(prim, "positions");
    const size_t nv = FLAT_GRID * FLAT_GRID + 1;
    assert_int_equal(cJSON_GetArraySize(positions), (int)nv);
    size_t v = 0;
    for (const cJSON *p = positions->child; p; p = p->next, v++) {
        /* the last vertex, which no triangle uses, is posed too: (9, 9, 9) */
        assert_int_equal(cJSON_GetArraySize(p), 3);
        for (int a = 0; a < 3; a++)
            if (cJSON_GetArrayItem(p, a)->valuedouble != (v + 1 == nv ? 9.0 : (double)flat_coord(v, a)))
                fail_msg("vertex %zu axis %d: %.9g, expected %.9g", v, a, cJSON_GetArrayItem(p, a)->valuedouble,
                         (double)flat_coord(v, a));
    }
    assert_int_equal(v, nv);
    cJSON_Delete(root);
}

static void test_inspect_shows_the_model_section_with_index_spaces(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", CNA_TEST_DATA_DIR "/fixtures/skin-reversed-joints.gltf", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_contains(r.out, "palette ordinal  bone  node parent  name");
    assert_contains(r.out, "prefix = inverse(W_mesh_node)");
    run_free(&r);
    cJSON *root = inspect_json(ROBOT);
    const cJSON *model = member(root, "model");
    assert_true(cJSON_IsObject(model));
    cJSON_Delete(root);
}


static void test_bench_json_prints_one_object_per_clip_with_the_required_fields(void **state)
{
    (void)state;
    run_result r = run_cna("bench", VALID "/SimpleSkin/simple_skin.gltf", "--characters", "10",
                           "--seconds", "0.01", "--json", NULL);
    assert_int_equal(r.exit_code, 0);
    size_t lines = 0, character_lines = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *o = cJSON_Parse(line);
        if (!o) fail_msg("not one JSON object per line: %s", line);
        assert_string_equal(member(o, "clip")->valuestring, "animation_0");
        assert_true(strstr(member(o, "model")->valuestring, "simple_skin") != NULL);
        assert_string_equal(member(o, "sampling")->valuestring, "exact"); /* the default */
        const cJSON *scope = cJSON_GetObjectItemCaseSensitive(o, "scope");
        if (scope) {
            /* the whole character beside one player, for 1 and for N characters */
            assert_string_equal(scope->valuestring, "character");
            assert_int_equal(int_member(o, "characters"), character_lines == 0 ? 1 : 10);
            assert_true(member(o, "ns_per_character_frame")->valuedouble > 0.0);
            assert_true(member(o, "player_ns_per_character_frame")->valuedouble > 0.0);
            const double bytes = member(o, "bytes_per_character")->valuedouble;
            assert_true(bytes > 0.0 && member(o, "model_bytes")->valuedouble > bytes);
            cJSON_Delete(o);
            character_lines++;
            continue;
        }
        assert_int_equal(int_member(o, "joints"), 2);
        assert_int_equal(int_member(o, "characters"), 10);
        const char *numbers[] = {"ns_per_character_frame", "ns_per_joint", "lanes_ns_per_character_frame",
                                 "baseline_ratio"};
        for (size_t i = 0; i < 4; i++) {
            const cJSON *n = member(o, numbers[i]);
            assert_true(cJSON_IsNumber(n));
            assert_true(n->valuedouble > 0.0);
        }
        /* per joint is per character-frame divided by the joint count */
        const double per_frame = member(o, "ns_per_character_frame")->valuedouble;
        const double per_joint = member(o, "ns_per_joint")->valuedouble;
        /* printed with 2 and 3 decimals: equal within that rounding */
        if (fabs(per_joint * 2.0 - per_frame) > 0.01)
            fail_msg("ns_per_joint %g is not ns_per_character_frame %g / 2 joints", per_joint, per_frame);
        cJSON_Delete(o);
        lines++;
    }
    assert_int_equal(lines, 1); /* SimpleSkin has one clip */
    assert_int_equal(character_lines, 2);
    run_free(&r);
}


/* ------------------------------------------------------------ answers users expect */

#define SIMPLE_SKIN VALID "/SimpleSkin/simple_skin.gltf"
#define SIMPLE_MORPH VALID "/SimpleMorph/SimpleMorph.gltf"
#define TRIANGLE VALID "/Triangle/triangle.gltf"
#define MORPH_STRESS VALID "/MorphStressTest/MorphStressTest.gltf"

/* A fresh temporary directory; its path in buf. */
static void temp_dir(char *buf, size_t size)
{
    cna_test_temp_dir(buf, size, "cna-test-cli-dir-");
}

static void remove_dir(const char *dir, const char *const *files, size_t n)
{
    char path[512];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

static long long file_size(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) fail_msg("%s was not written", path);
    return (long long)st.st_size;
}

/* --sampling fast times every player and character in CNA_SAMPLING_FAST and
 * says so on every line; any other value is a usage error. */
static void test_bench_sampling_fast_is_said_on_every_line(void **state)
{
    (void)state;
    run_result r = run_cna("bench", SIMPLE_SKIN, "--characters", "2", "--seconds", "0.001", "--json",
                           "--sampling", "fast", NULL);
    assert_int_equal(r.exit_code, 0);
    size_t lines = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *o = cJSON_Parse(line);
        if (!o) fail_msg("not one JSON object per line: %s", line);
        assert_string_equal(member(o, "sampling")->valuestring, "fast");
        cJSON_Delete(o);
        lines++;
    }
    assert_int_equal(lines, 3); /* the clip's player figures, then 1 and 2 characters */
    run_free(&r);
    r = run_cna("bench", SIMPLE_SKIN, "--sampling", "slerp", NULL);
    assert_int_equal(r.exit_code, 2);
    assert_contains(r.err, "cna bench: --sampling: 'slerp' is not exact or fast");
    assert_string_equal(r.out, "");
    run_free(&r);
}

static void test_bench_unknown_clip_exits_1_with_the_message_of_pose(void **state)
{
    (void)state;
    run_result b = run_cna("bench", SIMPLE_SKIN, "--clip", "NoSuchClip", "--seconds", "0.001", NULL);
    run_result p = run_cna("pose", SIMPLE_SKIN, "--animation", "NoSuchClip", NULL);
    assert_int_equal(b.exit_code, 1);
    assert_int_equal(p.exit_code, 1);
    assert_string_equal(b.err, "error: " SIMPLE_SKIN ": no animation 'NoSuchClip' (the file has 1: 0 \"animation_0\")\n");
    assert_string_equal(b.err, p.err);
    assert_string_equal(b.out, "");
    run_free(&b);
    run_free(&p);
}

static void test_render_look_at_with_the_eye_on_the_target_exits_2(void **state)
{
    (void)state;
    run_result r = run_cna("render", TRIANGLE, "--look-at", "1,2,3,1,2,3", "-o", "/tmp/cna-never-written.png", NULL);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    assert_true(starts_with(r.err, "cna render: --look-at: '1,2,3,1,2,3' puts the eye on the target; they must "
                                   "differ\nusage: cna render FILE"));
    run_free(&r);
}

static void test_render_refuses_outputs_other_than_png_and_gif_with_exit_2(void **state)
{
    (void)state;
    run_result r = run_cna("render", TRIANGLE, "-o", "/tmp/cna-never-written.jpg", NULL);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    assert_true(starts_with(r.err, "cna render: -o: '/tmp/cna-never-written.jpg': only .png and .gif (--gif) "
                                   "outputs are written\n"));
    run_free(&r);
    r = run_cna("render", TRIANGLE, "--gif", "/tmp/cna-never-written.png", NULL);
    assert_int_equal(r.exit_code, 2);
    assert_true(starts_with(r.err, "cna render: --gif: '/tmp/cna-never-written.png': only .png and .gif"));
    run_free(&r);
}

static void test_inspect_and_bench_read_a_cnb_model(void **state)
{
    (void)state;
    char dir[256], cnb[512];
    temp_dir(dir, sizeof dir);
    snprintf(cnb, sizeof cnb, "%s/skin.cnb", dir);
    run_result c = run_cna("convert", SIMPLE_SKIN, "-o", cnb, NULL);
    assert_int_equal(c.exit_code, 0);
    run_free(&c);

    run_result r = run_cna("inspect", cnb, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "");
    char first[1024];
    snprintf(first, sizeof first,
             "file: %s (.cnb baked model: the model as imported; no glTF document is kept)\n"
             "model (scene 0, clip mode faithful,", cnb);
    assert_true(starts_with(r.out, first));
    assert_contains(r.out, "    skin 0: glTF skin 0, instanced by node 0 (bone 0) \"\", 2 joints, meshes [0]\n");
    assert_null(strstr(r.out, "nodes:"));
    assert_null(strstr(r.out, "asset:"));
    run_free(&r);

    r = run_cna("inspect", "--json", cnb, NULL);
    assert_int_equal(r.exit_code, 0);
    cJSON *root = cJSON_Parse(r.out);
    assert_non_null(root);
    assert_string_equal(member(root, "container")->valuestring, "cnb");
    assert_null(cJSON_GetObjectItemCaseSensitive(root, "nodes"));
    const cJSON *skin = cJSON_GetArrayItem(member(member(root, "model"), "skins"), 0);
    assert_int_equal(cJSON_GetArraySize(member(skin, "joints")), 2);
    cJSON_Delete(root);
    run_free(&r);

    r = run_cna("bench", cnb, "--characters", "2", "--seconds", "0.001", "--json", NULL);
    assert_int_equal(r.exit_code, 0);
    cJSON *line = cJSON_Parse(r.out);
    assert_non_null(line);
    assert_string_equal(member(line, "clip")->valuestring, "animation_0");
    assert_int_equal(int_member(line, "joints"), 2);
    cJSON_Delete(line);
    run_free(&r);
    const char *files[] = {"skin.cnb"};
    remove_dir(dir, files, 1);
}

/* A primitive without normals (split for flat normals) whose last file
 * vertex no triangle uses: cna pose lists the file's 5 vertices (the last
 * one []) from the glTF and from its .cnb alike. */
static void test_pose_of_a_cnb_lists_every_file_vertex_like_the_gltf(void **state)
{
    (void)state;
    static const char gltf[] =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
        "\"buffers\":[{\"byteLength\":72,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAACAPwAAgD8AAAAAAAAAQAAAAEAAAAAAAAABAAIAAQADAAIA\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":60},{\"buffer\":0,\"byteOffset\":60,\"byteLength\":12}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[2,2,0]},{\"bufferView\":1,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}]}";
    char dir[256], src[512], cnb[512];
    temp_dir(dir, sizeof dir);
    snprintf(src, sizeof src, "%s/unused.gltf", dir);
    snprintf(cnb, sizeof cnb, "%s/unused.cnb", dir);
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    assert_int_equal(fputs(gltf, f) >= 0, 1);
    fclose(f);
    run_result c = run_cna("convert", src, "-o", cnb, NULL);
    assert_int_equal(c.exit_code, 0);
    run_free(&c);
    run_result a = run_cna("pose", src, NULL);
    run_result b = run_cna("pose", cnb, NULL);
    assert_int_equal(a.exit_code, 0);
    assert_int_equal(b.exit_code, 0);
    cJSON *root = cJSON_Parse(a.out);
    assert_non_null(root);
    const cJSON *prim = cJSON_GetArrayItem(member(root, "primitives"), 0);
    const cJSON *positions = member(prim, "positions");
    assert_int_equal(cJSON_GetArraySize(positions), 5);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetArrayItem(positions, 3)), 3);
    /* no triangle uses vertex 4: posed all the same, at (2, 2, 0) */
    char *last = cJSON_PrintUnformatted(cJSON_GetArrayItem(positions, 4));
    assert_string_equal(last, "[2,2,0]");
    free(last);
    /* the same pose, vertex for vertex, except the file named */
    cJSON *other = cJSON_Parse(b.out);
    assert_non_null(other);
    char *pa = cJSON_PrintUnformatted(member(root, "primitives"));
    char *pb = cJSON_PrintUnformatted(member(other, "primitives"));
    assert_string_equal(pa, pb);
    free(pa);
    free(pb);
    cJSON_Delete(other);
    cJSON_Delete(root);
    run_free(&a);
    run_free(&b);
    const char *files[] = {"unused.gltf", "unused.cnb"};
    remove_dir(dir, files, 2);
}

static void test_a_file_that_is_not_gltf_is_named_as_such(void **state)
{
    (void)state;
    char dir[256], path[600];
    cna_test_temp_dir(dir, sizeof dir, "cna-test-cli-text-");
    snprintf(path, sizeof path, "%s/text", dir);
    cna_test_write_file(path, "hello, world\n", 13);
    char expected[700];
    snprintf(expected, sizeof expected, "error: %s: not a glTF or GLB file\n", path);
    const char *commands[] = {"inspect", "bench", "pose"};
    for (size_t i = 0; i < 3; i++) {
        run_result r = run_cna(commands[i], path, NULL);
        assert_int_equal(r.exit_code, 1);
        assert_string_equal(r.out, "");
        assert_string_equal(r.err, expected);
        run_free(&r);
    }
    cna_test_remove_tree(dir);
}

static void test_pose_time_without_animation_poses_animation_0(void **state)
{
    (void)state;
    cJSON *root = run_json(run_cna("pose", SIMPLE_MORPH, "--time", "1.5", NULL));
    assert_int_equal(int_member(root, "animation"), 0);
    const cJSON *w = member(cJSON_GetArrayItem(member(root, "morph_weights"), 0), "weights");
    assert_float_equal(cJSON_GetArrayItem(w, 0)->valuedouble, 0.5, 0.0);
    assert_float_equal(cJSON_GetArrayItem(w, 1)->valuedouble, 1.0, 0.0);
    cJSON_Delete(root);
    /* without animations, --time is refused */
    run_result r = run_cna("pose", TRIANGLE, "--time", "1", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, "error: " TRIANGLE ": --time 1, but the file has no animations\n");
    assert_string_equal(r.out, "");
    run_free(&r);
}

static void test_pose_clamps_an_out_of_range_time_with_a_note(void **state)
{
    (void)state;
    run_result r = run_cna("pose", SIMPLE_MORPH, "--animation", "0", "--time", "9", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "note: --time 9 is past the end of \"animation_0\" (4 s); posed at 4 s\n");
    cJSON *root = cJSON_Parse(r.out);
    assert_non_null(root);
    assert_float_equal(member(root, "time")->valuedouble, 4.0, 0.0);
    cJSON_Delete(root);
    run_free(&r);
    r = run_cna("pose", SIMPLE_MORPH, "--animation", "0", "--time", "-0.5", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "note: --time -0.5 is before the start of \"animation_0\"; posed at 0 s\n");
    root = cJSON_Parse(r.out);
    assert_float_equal(member(root, "time")->valuedouble, 0.0, 0.0);
    cJSON_Delete(root);
    run_free(&r);
    /* inside the clip: no note */
    r = run_cna("pose", SIMPLE_MORPH, "--animation", "0", "--time", "4", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "");
    run_free(&r);
}

static void test_convert_prints_what_it_wrote(void **state)
{
    (void)state;
    char dir[256], cnb[512], cnj[512], expected[2048];
    temp_dir(dir, sizeof dir);
    snprintf(cnb, sizeof cnb, "%s/skin.cnb", dir);
    snprintf(cnj, sizeof cnj, "%s/skin.cnj", dir);
    run_result r = run_cna("convert", SIMPLE_SKIN, "-o", cnb, "--skeleton", cnj, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "");
    snprintf(expected, sizeof expected, "wrote %s (%lld bytes)\nwrote %s (%lld bytes)\n", cnb, file_size(cnb), cnj,
             file_size(cnj));
    assert_string_equal(r.out, expected);
    run_free(&r);
    const char *files[] = {"skin.cnb", "skin.cnj"};
    remove_dir(dir, files, 2);
}

/* ------------------------------------------------------------ --asset-root */

/* DIR/models/tri.gltf, a triangle (1,2,3) (4,5,6) (7,8,9) whose buffer is "../data/tri.bin". */
static void write_shared_buffer_model(const char *dir, char *gltf, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/models", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/data", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/data/tri.bin", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (int i = 0; i < 9; i++) {
        float v = (float)(i + 1);
        assert_int_equal(fwrite(&v, sizeof v, 1, f), 1);
    }
    fclose(f);
    snprintf(gltf, size, "%s/models/tri.gltf", dir);
    f = fopen(gltf, "w");
    assert_non_null(f);
    fputs("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36,\"uri\":\"../data/tri.bin\"}],"
          "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"accessors\":[{\"bufferView\":0,"
          "\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[1,2,3],\"max\":[7,8,9]}],"
          "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}],"
          "\"scenes\":[{\"nodes\":[0]}]}\n",
          f);
    fclose(f);
}

static void remove_shared_buffer_model(const char *dir)
{
    const char *files[] = {"models/tri.gltf", "models/tri.cnb", "models/tri.png", "data/tri.bin", "models", "data"};
    char path[512];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (unlink(path) != 0) rmdir(path);
    }
    rmdir(dir);
}

/* Every command that loads glTF: "../data/tri.bin" is refused without
 * --asset-root, read with a root that holds it, refused (naming the URI, the
 * real path and the root) with a root that does not, and a root that does not
 * exist is named. */
static void test_asset_root_lets_every_command_read_dot_dot_uris_inside_it(void **state)
{
    (void)state;
    char dir[256], gltf[512], real[PATH_MAX], models[512], cnb[512], expected[5 * PATH_MAX];
    temp_dir(dir, sizeof dir);
    write_shared_buffer_model(dir, gltf, sizeof gltf);
    cna_test_real_path(dir, real, sizeof real);
    snprintf(models, sizeof models, "%s/models", dir);
    snprintf(cnb, sizeof cnb, "%s/models/tri.cnb", dir);

    /* no root: refused as before */
    snprintf(expected, sizeof expected,
             "error: %s: buffers[0] (uri \"../data/tri.bin\"): \"..\" segments are refused "
             "(cna_gltf_options.asset_root allows them inside a root folder)\n",
             gltf);
    const char *const commands[] = {"inspect", "pose", "bench"};
    for (size_t k = 0; k < 3; k++) {
        run_result r = run_cna(commands[k], gltf, NULL);
        assert_int_equal(r.exit_code, 1);
        assert_string_equal(r.err, expected);
        run_free(&r);
    }
    run_result r = run_cna("convert", gltf, "-o", cnb, NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, expected);
    run_free(&r);

    /* a root that holds the buffer: the bytes are read */
    r = run_cna("inspect", gltf, "--asset-root", dir, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_contains(r.out, "../data/tri.bin");
    run_free(&r);
    cJSON *root = run_json(run_cna("pose", gltf, "--asset-root", dir, NULL));
    const cJSON *positions = member(cJSON_GetArrayItem(member(root, "primitives"), 0), "positions");
    assert_int_equal(cJSON_GetArraySize(positions), 3);
    for (int v = 0; v < 3; v++)
        for (int a = 0; a < 3; a++)
            assert_true(cJSON_GetArrayItem(cJSON_GetArrayItem(positions, v), a)->valuedouble == 3 * v + a + 1);
    cJSON_Delete(root);
    r = run_cna("bench", gltf, "--asset-root", dir, "--seconds", "0.001", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_contains(r.out, "tri.gltf: no skin, nothing to play\n");
    run_free(&r);
    r = run_cna("convert", gltf, "-o", cnb, "--asset-root", dir, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "");
    run_free(&r);
    /* the baked model has the bytes in it: it poses without the folder */
    root = run_json(run_cna("pose", cnb, "--asset-root", dir, NULL));
    positions = member(cJSON_GetArrayItem(member(root, "primitives"), 0), "positions");
    assert_true(cJSON_GetArrayItem(cJSON_GetArrayItem(positions, 2), 2)->valuedouble == 9.0);
    cJSON_Delete(root);
#ifdef CNA_TEST_HAVE_GL
    char png[512];
    snprintf(png, sizeof png, "%s/models/tri.png", dir);
    r = run_cna("render", gltf, "--asset-root", dir, "-o", png, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_true(file_size(png) > 0);
    run_free(&r);
#endif

    /* a root that does not hold it */
    snprintf(expected, sizeof expected,
             "error: %s: buffers[0] (uri \"../data/tri.bin\"): \"%s/../data/tri.bin\" (real path "
             "\"%s/data/tri.bin\") leads outside the asset root \"%s/models\"\n",
             gltf, models, real, real);
    r = run_cna("inspect", gltf, "--asset-root", models, NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, expected);
    run_free(&r);
    r = run_cna("convert", gltf, "-o", cnb, "--asset-root", models, NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, expected);
    run_free(&r);

    /* a root that does not exist */
    char missing[512];
    snprintf(missing, sizeof missing, "%s/nope", dir);
    snprintf(expected, sizeof expected, "error: %s: asset root \"%s\": No such file or directory\n", gltf, missing);
    for (size_t k = 0; k < 3; k++) {
        r = run_cna(commands[k], gltf, "--asset-root", missing, NULL);
        assert_int_equal(r.exit_code, 1);
        assert_string_equal(r.err, expected);
        run_free(&r);
    }

    /* the option needs its value, in every command */
    const char *const all[] = {"inspect", "pose", "render", "view", "convert", "bench"};
    for (size_t k = 0; k < 6; k++) {
        r = run_cna(all[k], gltf, "--asset-root", NULL);
        assert_int_equal(r.exit_code, 2);
        assert_contains(r.err, "--asset-root needs a value");
        run_free(&r);
    }
    remove_shared_buffer_model(dir);
}

#ifdef CNA_TEST_HAVE_GL
static void test_render_prints_what_it_wrote_and_time_alone_picks_animation_0(void **state)
{
    (void)state;
    char dir[256], png[512], expected[1024];
    temp_dir(dir, sizeof dir);
    snprintf(png, sizeof png, "%s/out.png", dir);
    run_result r = run_cna("render", SIMPLE_MORPH, "--time", "9", "--size", "64x48", "-o", png, NULL);
    assert_int_equal(r.exit_code, 0);
    snprintf(expected, sizeof expected, "wrote %s (64x48)\n", png);
    assert_string_equal(r.out, expected);
    /* --time alone: animation 0, clamped with the note */
    assert_string_equal(r.err, "note: --time 9 is past the end of \"animation_0\" (4 s); posed at 4 s\n");
    assert_true(file_size(png) > 0);
    run_free(&r);
    r = run_cna("render", SIMPLE_MORPH, "--time", "-1", "--size", "64x48", "-o", png, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "note: --time -1 is before the start of \"animation_0\"; posed at 0 s\n");
    run_free(&r);
    const char *files[] = {"out.png"};
    remove_dir(dir, files, 1);
}

static void test_render_sheet_or_time_without_animations_exits_1(void **state)
{
    (void)state;
    run_result r = run_cna("render", TRIANGLE, "--sheet", "4", "--size", "32x32", "-o", "/tmp/cna-never-written.png",
                           NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "error: " TRIANGLE ": --sheet needs an animation, but the file has none\n");
    run_free(&r);
    r = run_cna("render", TRIANGLE, "--time", "1", "--size", "32x32", "-o", "/tmp/cna-never-written.png", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, "error: " TRIANGLE ": --time needs an animation, but the file has none\n");
    run_free(&r);
    assert_int_equal(access("/tmp/cna-never-written.png", F_OK), -1);
}
#endif

static void test_inspect_summarises_skins_with_the_same_joints(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", ROBOT, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_contains(r.out, "  skins: 14\n    skin 0: glTF skin 0, instanced by node 43 (bone 1) \"Arm.L\", 43 joints");
    assert_contains(r.out, "    skins 1-13: same joints as skin 0 (instanced by nodes 44 45 46 47 48 49 50 51 52 "
                           "53 54 55 56)\n");
    assert_null(strstr(r.out, "    skin 1: "));
    run_free(&r);
    cJSON *root = inspect_json(ROBOT);
    const cJSON *skins = member(member(root, "model"), "skins");
    assert_int_equal(cJSON_GetArraySize(skins), 14);
    assert_true(cJSON_IsNull(member(cJSON_GetArrayItem(skins, 0), "sameJointsAs")));
    assert_int_equal(int_member(cJSON_GetArrayItem(skins, 13), "sameJointsAs"), 0);
    cJSON_Delete(root);
}

/* EXT_mesh_gpu_instancing: instances per mesh and in all, on the node's line, in --json and --brief. */
static void test_inspect_counts_instances(void **state)
{
    (void)state;
    const char *file = CNA_TEST_DATA_DIR "/fixtures/instancing.gltf";
    run_result r = run_cna("inspect", file, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_contains(r.out, "  [0] \"Boxes\" mesh 0 instances 5 T(0, 0.5, 0)");
    assert_contains(r.out, "  instanced meshes: 1, instances: 5\n    mesh 0 \"Box\" (node 0): 5 instances\n");
    run_free(&r);
    r = run_cna("inspect", "--brief", file, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_contains(r.out, "model: scene 0, 1 bones, 1 meshes (1 parts, 5 instances), 0 skins, size ");
    run_free(&r);
    r = run_cna("inspect", "--json", file, NULL);
    assert_int_equal(r.exit_code, 0);
    cJSON *root = cJSON_Parse(r.out);
    assert_non_null(root);
    const cJSON *inst = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "nodes"), 0), "instancing");
    assert_int_equal(cJSON_GetObjectItem(inst, "count")->valueint, 5);
    assert_int_equal(cJSON_GetObjectItem(inst, "translation")->valueint, 3);
    assert_int_equal(cJSON_GetObjectItem(inst, "rotation")->valueint, 4);
    assert_int_equal(cJSON_GetObjectItem(inst, "scale")->valueint, 5);
    const cJSON *model = cJSON_GetObjectItem(root, "model");
    assert_int_equal(cJSON_GetObjectItem(model, "instanceCount")->valueint, 5);
    const cJSON *mesh = cJSON_GetArrayItem(cJSON_GetObjectItem(model, "meshes"), 0);
    assert_int_equal(cJSON_GetObjectItem(mesh, "instanceCount")->valueint, 5);
    cJSON_Delete(root);
    run_free(&r);
    /* a model without instances */
    r = run_cna("inspect", "--json", CNA_TEST_DATA_DIR "/fixtures/instancing-nodes.gltf", NULL);
    root = cJSON_Parse(r.out);
    assert_non_null(root);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "nodes"), 1), "instancing")));
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "model"), "instanceCount")->valueint, 0);
    cJSON_Delete(root);
    run_free(&r);
}

static void test_inspect_brief_prints_the_counts_and_key_facts(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", "--brief", ROBOT, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "");
    assert_true(starts_with(r.out,
                            "file: " ROBOT " (GLB), generator \"Khronos glTF Blender I/O v3.3.32\"\n"
                            "document: 1 scenes, 58 nodes, 14 meshes (19 primitives), 1 skins, 14 animations, "
                            "3 materials, 0 images, 0 diagnostics\n"
                            "model: scene 0, 58 bones, 14 meshes (19 parts), 14 skins (1 distinct; joints 43), size "));
    assert_contains(r.out, "animations: 14 \"Robot_Dance\" 3.33333 s, \"Robot_Death\" 0.958333 s, ");
    size_t lines = 0;
    for (const char *p = r.out; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 4);
    run_free(&r);
    r = run_cna("inspect", "--brief", "--json", ROBOT, NULL);
    assert_int_equal(r.exit_code, 2);
    assert_contains(r.err, "cna inspect: --json and --brief do not combine");
    run_free(&r);
}

static void test_view_names_a_missing_file_before_any_display_error(void **state)
{
    (void)state;
    /* No display at all: the file's error must come first, and alone. */
    char *display = getenv("DISPLAY") ? strdup(getenv("DISPLAY")) : NULL;
    char *wayland = getenv("WAYLAND_DISPLAY") ? strdup(getenv("WAYLAND_DISPLAY")) : NULL;
    cna_test_setenv("DISPLAY", NULL);
    cna_test_setenv("WAYLAND_DISPLAY", NULL);
    run_result r = run_cna("view", CNA_TEST_DATA_DIR "/no/such/model.glb", NULL);
    if (display) cna_test_setenv("DISPLAY", display);
    if (wayland) cna_test_setenv("WAYLAND_DISPLAY", wayland);
    free(display);
    free(wayland);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "error: " CNA_TEST_DATA_DIR "/no/such/model.glb: cannot open (No such file or "
                               "directory)\n");
    run_free(&r);
}

/* Every command `cna help` lists: its --help names every option of its
 * synopsis; only the commands this build has are listed. */
static void test_help_lists_the_built_commands_and_their_options(void **state)
{
    (void)state;
    run_result h = run_cna("help", NULL);
    assert_int_equal(h.exit_code, 0);
#ifdef CNA_TEST_HAVE_GL
    assert_contains(h.out, "\n  render ");
#else
    assert_null(strstr(h.out, "\n  render "));
    assert_null(strstr(h.out, "\n  view "));
#endif
    size_t commands = 0;
    for (const char *line = strstr(h.out, "\n  "); line; line = strstr(line + 1, "\n  ")) {
        if (line[3] == ' ') continue;  /* a summary line */
        char name[32], synopsis[512];
        const char *eol = strchr(line + 3, '\n');
        assert_non_null(eol);
        const char *sp = strchr(line + 3, ' ');
        if (!sp || sp > eol) sp = eol;  /* a command without options (version) */
        snprintf(name, sizeof name, "%.*s", (int)(sp - line - 3), line + 3);
        while (*sp == ' ') sp++;
        snprintf(synopsis, sizeof synopsis, "%.*s", (int)(eol - sp), sp);
        run_result c = run_cna(name, "--help", NULL);
        assert_int_equal(c.exit_code, 0);
        char usage[64];
        snprintf(usage, sizeof usage, "usage: cna %s", name);
        assert_true(starts_with(c.out, usage));
        assert_true(c.out[strlen(usage)] == ' ' || c.out[strlen(usage)] == '\n');
        for (char *tok = strtok(synopsis, " []|"); tok; tok = strtok(NULL, " []|"))
            if (tok[0] == '-' && !strstr(c.out, tok)) fail_msg("cna %s --help does not name %s", name, tok);
        run_free(&c);
        commands++;
    }
    /* inspect, pose, convert, bench, play, version; render and view with cna_gl */
#ifdef CNA_TEST_HAVE_GL
    assert_int_equal(commands, 8);
#else
    assert_int_equal(commands, 6);
#endif
    run_free(&h);
    run_result r = run_cna("render", "--help", NULL);
    const char *usage_end = strstr(r.out, "\n\n");
    assert_non_null(usage_end);
    const char *gif = strstr(r.out, "[--gif OUT.gif [--frames N]] -o OUT.png");
    assert_true(gif && gif < usage_end);
    run_free(&r);
}

/* Every key of a JSON tree in lowerCamelCase (no '_'). */
static void assert_camel_case_keys(const cJSON *item, const char *where)
{
    const cJSON *child;
    cJSON_ArrayForEach(child, item) {
        if (child->string && strchr(child->string, '_')) fail_msg("%s: key \"%s\" is not camelCase", where, child->string);
        assert_camel_case_keys(child, where);
    }
}

static void test_inspect_json_names_targets_and_animations_in_camel_case(void **state)
{
    (void)state;
    cJSON *root = inspect_json(MORPH_STRESS);
    const cJSON *names = member(cJSON_GetArrayItem(member(root, "meshes"), 0), "targetNames");
    assert_int_equal(cJSON_GetArraySize(names), 8);
    assert_string_equal(cJSON_GetArrayItem(names, 0)->valuestring, "Key 1");
    assert_string_equal(cJSON_GetArrayItem(names, 7)->valuestring, "Key 8");
    const cJSON *model = member(root, "model");
    const cJSON *mnames = member(cJSON_GetArrayItem(member(model, "meshes"), 0), "targetNames");
    assert_int_equal(cJSON_GetArraySize(mnames), 8);
    assert_string_equal(cJSON_GetArrayItem(mnames, 3)->valuestring, "Key 4");
    const cJSON *anims = member(model, "animations");
    assert_int_equal(cJSON_GetArraySize(anims), 3);
    assert_string_equal(member(cJSON_GetArrayItem(anims, 0), "name")->valuestring, "Individuals");
    assert_string_equal(member(cJSON_GetArrayItem(anims, 1), "name")->valuestring, "TheWave");
    assert_string_equal(member(cJSON_GetArrayItem(anims, 2), "name")->valuestring, "Pulse");
    assert_string_equal(member(model, "clipMode")->valuestring, "faithful");
    assert_camel_case_keys(root, MORPH_STRESS);
    cJSON_Delete(root);
    root = inspect_json(ROBOT);
    assert_true(cJSON_IsNull(member(cJSON_GetArrayItem(member(root, "meshes"), 0), "targetNames")));
    const cJSON *skin = cJSON_GetArrayItem(member(member(root, "model"), "skins"), 0);
    assert_int_equal(int_member(skin, "meshNode"), 43);
    assert_int_equal(int_member(skin, "meshBone"), 1);
    assert_camel_case_keys(root, ROBOT);
    cJSON_Delete(root);
    /* The text form names them too. */
    run_result r = run_cna("inspect", MORPH_STRESS, NULL);
    assert_contains(r.out, ", targetNames \"Key 1\" \"Key 2\" \"Key 3\" \"Key 4\" \"Key 5\" \"Key 6\" \"Key 7\" "
                           "\"Key 8\"\n");
    assert_contains(r.out, "  morph target names:\n    mesh 0 \"Cube\": \"Key 1\" \"Key 2\"");
    run_free(&r);
}

/* A rig over 72 joints: refused without --split-palettes (naming the flag),
 * split with it by convert, inspect and pose; the .cnb keeps the split parts
 * and poses as the glTF does. */
#define SPLIT_RIG CNA_TEST_DATA_DIR "/fixtures/split-two-skins.gltf"
static void test_split_palettes_convert_inspect_and_pose(void **state)
{
    (void)state;
    static const char refused[] = "skins[0]: 100 joints; at most 72 are supported; import with split_palettes "
                                  "(cna convert --split-palettes) to split its parts";
    run_result r = run_cna("inspect", SPLIT_RIG, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_contains(r.out, refused);
    run_free(&r);
    static const char line[] = "    mesh 1 \"BigMesh\" part 0 (primitive 0): 62 vertices, palette 69 of 300 (split)\n";
    r = run_cna("inspect", SPLIT_RIG, "--split-palettes", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_contains(r.out, "  skinned parts: 30\n    mesh 0 \"SmallMesh\" part 0 (primitive 0): 68 vertices, "
                           "palette 72 of 100 (split)\n");
    assert_contains(r.out, line);
    run_free(&r);
    r = run_cna("inspect", "--json", "--split-palettes", SPLIT_RIG, NULL);
    assert_int_equal(r.exit_code, 0);
    cJSON *root = cJSON_Parse(r.out);
    assert_non_null(root);
    const cJSON *part = cJSON_GetArrayItem(member(cJSON_GetArrayItem(member(member(root, "model"), "meshes"), 1), "parts"), 0);
    assert_int_equal(int_member(part, "palette"), 69);
    assert_int_equal(int_member(part, "paletteOf"), 300);
    assert_int_equal(cJSON_GetArraySize(member(part, "paletteMap")), 69);
    cJSON_Delete(root);
    run_free(&r);

    char dir[256];
    cna_test_temp_dir(dir, sizeof dir, "cna-test-split-");
    char out[512];
    snprintf(out, sizeof out, "%s/rig.cnb", dir);
    r = run_cna("convert", SPLIT_RIG, "-o", out, NULL);
    assert_int_equal(r.exit_code, 1);
    assert_contains(r.err, refused);
    run_free(&r);
    r = run_cna("convert", SPLIT_RIG, "--split-palettes", "-o", out, NULL);
    assert_int_equal(r.exit_code, 0);
    run_free(&r);
    r = run_cna("inspect", out, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_contains(r.out, line);
    run_free(&r);
    run_result a = run_cna("pose", SPLIT_RIG, "--split-palettes", "--time", "1.3", NULL);
    run_result b = run_cna("pose", out, "--time", "1.3", NULL);
    assert_int_equal(a.exit_code, 0);
    assert_int_equal(b.exit_code, 0);
    assert_string_equal(a.out, b.out);
    /* one primitives entry per glTF primitive, every file vertex posed */
    root = cJSON_Parse(a.out);
    assert_non_null(root);
    const cJSON *prims = member(root, "primitives");
    assert_int_equal(cJSON_GetArraySize(prims), 2);
    assert_int_equal(cJSON_GetArraySize(member(cJSON_GetArrayItem(prims, 1), "positions")), 600);
    const cJSON *p;
    cJSON_ArrayForEach(p, member(cJSON_GetArrayItem(prims, 1), "positions")) assert_int_equal(cJSON_GetArraySize(p), 3);
    cJSON_Delete(root);
    run_free(&a);
    run_free(&b);
    assert_int_equal(unlink(out), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* An unknown animation names the file's animations by index: all of them up
 * to 20, else the first 20 and the count; a name's quotes shown as \x22.
 * The file: one node, 23 animations moving it (animation 1 named
 * `say "hi"`, 5 unnamed, so named "animation_5" as cna_model_animation_name
 * names it, the others "clip N"). */
static void test_an_unknown_animation_lists_the_first_20_names_and_the_count(void **state)
{
    (void)state;
    char dir[256], path[512];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/many.gltf", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"n\"}],\"scenes\":[{\"nodes\":[0]}],"
               "\"buffers\":[{\"byteLength\":32,\"uri\":\"data:application/octet-stream;base64,"
               "AAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAA=\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},"
               "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24}],\"accessors\":[{\"bufferView\":0,"
               "\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
               "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],\"animations\":[");
    for (int i = 0; i < 23; i++) {
        fprintf(f, "%s{", i ? "," : "");
        if (i == 1) fprintf(f, "\"name\":\"say \\\"hi\\\"\",");
        else if (i != 5) fprintf(f, "\"name\":\"clip %d\",", i);
        fprintf(f, "\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[{\"sampler\":0,"
                   "\"target\":{\"node\":0,\"path\":\"translation\"}}]}");
    }
    fprintf(f, "]}\n");
    fclose(f);
    run_result r = run_cna("pose", path, "--animation", "clip 99", NULL);
    assert_int_equal(r.exit_code, 1);
    char want[2048];
    snprintf(want, sizeof want,
             "error: %s: no animation 'clip 99' (the file has 23; the first 20: 0 \"clip 0\", 1 \"say \\x22hi\\x22\", "
             "2 \"clip 2\", 3 \"clip 3\", 4 \"clip 4\", 5 \"animation_5\", 6 \"clip 6\", 7 \"clip 7\", 8 \"clip 8\", "
             "9 \"clip 9\", 10 \"clip 10\", 11 \"clip 11\", 12 \"clip 12\", 13 \"clip 13\", 14 \"clip 14\", "
             "15 \"clip 15\", 16 \"clip 16\", 17 \"clip 17\", 18 \"clip 18\", 19 \"clip 19\")\n",
             path);
    assert_string_equal(r.err, want);
    assert_string_equal(r.out, "");
    run_free(&r);
    /* a model without animations: the count alone */
    r = run_cna("pose", VALID "/Triangle/triangle.gltf", "--animation", "Walk", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, "error: " VALID "/Triangle/triangle.gltf: no animation 'Walk' (the file has 0)\n");
    run_free(&r);
    static const char *const files[] = {"many.gltf"};
    remove_dir(dir, files, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_without_command_exits_2_with_usage_on_stderr),
        cmocka_unit_test(test_cli_unknown_command_exits_2_naming_it),
        cmocka_unit_test(test_cli_help_exits_0_and_lists_inspect_on_stdout),
        cmocka_unit_test(test_cli_help_for_inspect_exits_0_with_its_usage),
        cmocka_unit_test(test_cli_help_for_unknown_command_exits_2),
        cmocka_unit_test(test_cli_version_and_dash_dash_version_print_the_version_and_exit_0),
        cmocka_unit_test(test_cli_version_with_an_argument_exits_2_naming_it),
        cmocka_unit_test(test_cli_help_lists_version),
        cmocka_unit_test(test_inspect_without_file_exits_2),
        cmocka_unit_test(test_inspect_unknown_option_exits_2_naming_it),
        cmocka_unit_test(test_inspect_two_files_exits_2),
        cmocka_unit_test(test_inspect_refused_json_exits_1_with_error_on_stderr_only),
        cmocka_unit_test(test_inspect_refused_glb_with_json_flag_exits_1_and_prints_no_json),
        cmocka_unit_test(test_inspect_missing_file_exits_1),
        cmocka_unit_test(test_inspect_no_textures_loads_a_file_requiring_a_texture_format),
        cmocka_unit_test(test_inspect_robot_text_reports_43_joints_and_14_animations),
        cmocka_unit_test(test_inspect_text_indents_children_under_parents),
        cmocka_unit_test(test_inspect_interpolation_test_text_names_every_mode),
        cmocka_unit_test(test_inspect_json_robot_has_expected_counts),
        cmocka_unit_test(test_inspect_json_interpolation_test_counts_modes),
        cmocka_unit_test(test_inspect_json_parses_for_every_valid_model),
        cmocka_unit_test(test_inspect_json_morph_stress_test_has_8_targets_per_primitive),
        cmocka_unit_test(test_inspect_json_on_every_invalid_corpus_file_is_json_or_exit_1),
        cmocka_unit_test(test_pose_mesh_node_fixture_palette_is_minus_50_and_positions_unmoved),
        cmocka_unit_test(test_pose_simple_morph_reports_weights_of_the_track),
        cmocka_unit_test(test_pose_robot_lists_43_skin_transforms_and_every_vertex),
        cmocka_unit_test(test_pose_unknown_animation_exits_1_naming_it),
        cmocka_unit_test(test_pose_bad_mode_exits_2),
        cmocka_unit_test(test_pose_refused_model_exits_1),
        cmocka_unit_test(test_pose_flat_split_primitive_lists_every_file_vertex_once_in_file_order),
        cmocka_unit_test(test_inspect_shows_the_model_section_with_index_spaces),
        cmocka_unit_test(test_bench_json_prints_one_object_per_clip_with_the_required_fields),
        cmocka_unit_test(test_bench_sampling_fast_is_said_on_every_line),
        cmocka_unit_test(test_bench_unknown_clip_exits_1_with_the_message_of_pose),
        cmocka_unit_test(test_render_look_at_with_the_eye_on_the_target_exits_2),
        cmocka_unit_test(test_render_refuses_outputs_other_than_png_and_gif_with_exit_2),
        cmocka_unit_test(test_inspect_and_bench_read_a_cnb_model),
        cmocka_unit_test(test_pose_of_a_cnb_lists_every_file_vertex_like_the_gltf),
        cmocka_unit_test(test_a_file_that_is_not_gltf_is_named_as_such),
        cmocka_unit_test(test_pose_time_without_animation_poses_animation_0),
        cmocka_unit_test(test_pose_clamps_an_out_of_range_time_with_a_note),
        cmocka_unit_test(test_convert_prints_what_it_wrote),
        cmocka_unit_test(test_asset_root_lets_every_command_read_dot_dot_uris_inside_it),
#ifdef CNA_TEST_HAVE_GL
        cmocka_unit_test(test_render_prints_what_it_wrote_and_time_alone_picks_animation_0),
        cmocka_unit_test(test_render_sheet_or_time_without_animations_exits_1),
#endif
        cmocka_unit_test(test_inspect_summarises_skins_with_the_same_joints),
        cmocka_unit_test(test_inspect_brief_prints_the_counts_and_key_facts),
        cmocka_unit_test(test_inspect_counts_instances),
        cmocka_unit_test(test_view_names_a_missing_file_before_any_display_error),
        cmocka_unit_test(test_help_lists_the_built_commands_and_their_options),
        cmocka_unit_test(test_inspect_json_names_targets_and_animations_in_camel_case),
        cmocka_unit_test(test_split_palettes_convert_inspect_and_pose),
        cmocka_unit_test(test_an_unknown_animation_lists_the_first_20_names_and_the_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
