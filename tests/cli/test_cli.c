/*
 * The `cna` command-line tool, run as a separate process: exit codes (0 done,
 * 1 refused, 2 usage), where messages go (stdout / stderr), and exact facts
 * that `cna inspect` reports about corpus files, in text and JSON.
 *
 * The tool is the executable CNA_BINARY_DIR "/cna", built by the same build
 * (target cna_tool); a missing binary fails every test here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "cna/version.h"

#define CNA_EXE CNA_BINARY_DIR "/cna"
#define VALID CNA_TEST_DATA_DIR "/corpus/valid"
#define INVALID CNA_TEST_DATA_DIR "/corpus/invalid"
#define ROBOT VALID "/RobotExpressive/robot.glb"
#define INTERPOLATION VALID "/InterpolationTest/interpolation_test.gltf"
#define RIGGED VALID "/RiggedSimple/rigged_simple.gltf"
#define BAD_JSON INVALID "/validator/test/base/data/json/invalid_syntax.gltf"
#define BAD_GLB INVALID "/validator/test/base/data/glb/invalid_magic.glb"

extern char **environ;

/* What one run of the tool produced. */
typedef struct run_result {
    int exit_code;  /* -1 when it did not exit normally */
    char *out;      /* whole stdout, NUL-terminated */
    char *err;      /* whole stderr, NUL-terminated */
} run_result;

static char *slurp_fd(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    if (lseek(fd, 0, SEEK_SET) < 0) {
        free(buf);
        return NULL;
    }
    for (;;) {
        if (len + 1 >= cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                return NULL;
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + len, cap - 1 - len);
        if (got < 0) {
            free(buf);
            return NULL;
        }
        if (got == 0) break;
        len += (size_t)got;
    }
    buf[len] = '\0';
    return buf;
}

/* A temporary file, already unlinked; its descriptor. */
static int temp_fd(void)
{
    char name[] = "/tmp/cna-test-cli-XXXXXX";
    int fd = mkstemp(name);
    if (fd >= 0) unlink(name);
    return fd;
}

/* Runs `cna` with the NULL-terminated argument list (after argv[0]); stdout
 * and stderr are captured through temporary files (no pipe can fill up). */
static run_result run_cna(const char *first, ...)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = (char *)CNA_EXE;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 15; a = va_arg(ap, const char *)) argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;

    run_result res = {-1, NULL, NULL};
    int out_fd = temp_fd(), err_fd = temp_fd();
    assert_true(out_fd >= 0 && err_fd >= 0);
    posix_spawn_file_actions_t actions;
    assert_int_equal(posix_spawn_file_actions_init(&actions), 0);
    posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
    pid_t pid;
    int rc = posix_spawn(&pid, CNA_EXE, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) fail_msg("cannot run %s (build the cna_tool target): %s", CNA_EXE, strerror(rc));
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
    res.out = slurp_fd(out_fd);
    res.err = slurp_fd(err_fd);
    close(out_fd);
    close(err_fd);
    assert_non_null(res.out);
    assert_non_null(res.err);
    return res;
}

static void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
}

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
    assert_true(starts_with(a.out, "usage: cna inspect FILE [--json]"));
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
    assert_contains(r.err, "usage: cna inspect FILE [--json]");
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
    size_t lines = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *o = cJSON_Parse(line);
        if (!o) fail_msg("not one JSON object per line: %s", line);
        assert_string_equal(member(o, "clip")->valuestring, "animation_0");
        assert_true(strstr(member(o, "model")->valuestring, "simple_skin") != NULL);
        assert_int_equal(int_member(o, "joints"), 2);
        assert_int_equal(int_member(o, "characters"), 10);
        const char *numbers[] = {"ns_per_character_frame", "ns_per_joint", "baseline_ratio"};
        for (size_t i = 0; i < 3; i++) {
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
    run_free(&r);
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
        cmocka_unit_test(test_inspect_shows_the_model_section_with_index_spaces),
        cmocka_unit_test(test_bench_json_prints_one_object_per_clip_with_the_required_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
