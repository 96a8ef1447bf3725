/*
 * `cna pose` and `cna render` with --ik and --aim (tools/ik_options.c), run
 * by test_cli_blend's main, as separate processes:
 * - the printed pose is the edited pose: the --ik end joint's world is at
 *   the target, its start joint stays, the --aim joint's forward axis points
 *   at its target, bones outside the edited subtrees print as without the
 *   options;
 * - --ik-weight 0 and --aim-weight 0 print the animation's pose, byte for
 *   byte; the name is split at the last '=';
 * - bad values are usage errors (exit 2) with exact messages; an unknown
 *   joint exits 1 naming it; a target out of reach is a note;
 * - `cna render --ik --aim` writes a PNG.
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
#define ROBOT CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb"

static char *ok(run_result r)
{
    if (r.exit_code != 0 || r.err[0]) fail_msg("cna exited %d: %s", r.exit_code, r.err);
    free(r.err);
    return r.out;
}

/* bones[i].world of the JSON pose, in double */
static void world_of(const cJSON *root, int bone, double out[16])
{
    const cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "bones"), bone);
    assert_non_null(b);
    const cJSON *w = cJSON_GetObjectItem(b, "world");
    assert_int_equal(cJSON_GetArraySize(w), 16);
    for (int i = 0; i < 16; i++) out[i] = cJSON_GetArrayItem(w, i)->valuedouble;
}

static int bone_index(const cna_model *m, const char *name)
{
    const int32_t b = cna_model_find_bone(m, name);
    assert_true(b >= 0);
    return (int)b;
}

static void pose_ik_prints_the_edited_pose(void **state)
{
    (void)state;
    cna_model *m = NULL;
    cna_error err;
    assert_int_equal(cna_model_load_file(ROBOT, NULL, &m, &err), CNA_OK);
    char *plain = ok(run_cna("pose", ROBOT, "--animation", "Robot_Walking", "--time", "0.5", NULL));
    char *edited = ok(run_cna("pose", ROBOT, "--animation", "Robot_Walking", "--time", "0.5", "--ik",
                              "Palm2.L=1.5,3,1", "--ik-pole", "0,0,-1", "--aim", "Head=2,4,5", "--aim-forward",
                              "0,0,1", NULL));
    cJSON *p = cJSON_Parse(plain), *e = cJSON_Parse(edited);
    assert_non_null(p);
    assert_non_null(e);
    double w[16], w0[16];
    /* the end joint on the target, the start joint where it was */
    world_of(e, bone_index(m, "Palm2.L"), w);
    assert_true(fabs(w[12] - 1.5) < 6e-5 && fabs(w[13] - 3) < 6e-5 && fabs(w[14] - 1) < 6e-5);
    world_of(e, bone_index(m, "UpperArm.L"), w);
    world_of(p, bone_index(m, "UpperArm.L"), w0);
    assert_true(w[12] == w0[12] && w[13] == w0[13] && w[14] == w0[14]);
    /* the head's +z toward (2, 4, 5) */
    world_of(e, bone_index(m, "Head"), w);
    const double d[3] = {2 - w[12], 4 - w[13], 5 - w[14]}, f[3] = {w[8], w[9], w[10]};
    const double c[3] = {f[1] * d[2] - f[2] * d[1], f[2] * d[0] - f[0] * d[2], f[0] * d[1] - f[1] * d[0]};
    assert_true(atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), f[0] * d[0] + f[1] * d[1] + f[2] * d[2]) < 1e-5);
    /* outside the arm's and the head's subtrees: the animation's pose, as printed without the options */
    const int arm = bone_index(m, "UpperArm.L"), head = bone_index(m, "Head");
    for (size_t b = 0; b < m->bone_count; b++) {
        bool under = false;
        for (int32_t x = (int32_t)b; x >= 0; x = m->bones[x].parent) under |= x == arm || x == head;
        world_of(e, (int)b, w);
        world_of(p, (int)b, w0);
        if (!under) assert_memory_equal(w, w0, sizeof w);
    }
    cJSON_Delete(p);
    cJSON_Delete(e);
    free(plain);
    free(edited);
    cna_model_free(m);
}

static void weight_0_prints_the_animation_byte_for_byte(void **state)
{
    (void)state;
    char *plain = ok(run_cna("pose", ROBOT, "--animation", "Robot_Idle", "--time", "0.25", NULL));
    char *zero = ok(run_cna("pose", ROBOT, "--animation", "Robot_Idle", "--time", "0.25", "--ik", "Palm2.L=1,2,3",
                            "--ik-weight", "0", "--aim", "Head=0,5,5", "--aim-weight", "0", NULL));
    assert_string_equal(plain, zero);
    free(plain);
    free(zero);
}

static void an_unknown_joint_exits_1_and_out_of_reach_is_a_note(void **state)
{
    (void)state;
    run_result r = run_cna("pose", ROBOT, "--ik", "Arm=L=1,2,3", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "error: " ROBOT ": joint \"Arm=L\": no such joint\n");
    run_free(&r);
    r = run_cna("pose", ROBOT, "--ik", "Palm2.L=40,3,1", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "note: --ik Palm2.L: the target is out of reach\n");
    run_free(&r);
}

static void ik_usage_errors_exit_2_with_their_message(void **state)
{
    (void)state;
    /* one process each (each costs a start-up): the kinds of usage error,
     * `cna render` sharing the parser */
    static const char *const cases[][6] = {
        {"pose", "--ik", "Head=1,inf,2", NULL, NULL, "--ik: 'Head=1,inf,2' is not NAME=X,Y,Z"},
        {"pose", "--ik-pole", "0,1,0", NULL, NULL, "--ik-pole needs an --ik before it"},
        {"pose", "--ik", "Head=1,2,3", "--aim-up", "0,1,0", "--aim-up needs an --aim before it"},
        {"pose", "--ik", "Head=1,2,3", "--ik-weight", "2", "--ik-weight: '2' is not a weight in [0, 1]"},
        {"pose", "--aim", "Head=1,2,3", "--aim-forward", "0,0,0", "--aim-forward: '0,0,0' is a zero-length axis"},
        {"render", "--aim", "Head=1,2", NULL, NULL, "--aim: 'Head=1,2' is not NAME=X,Y,Z"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *cmd = cases[i][0];
        run_result r = cases[i][3] ? run_cna(cmd, ROBOT, cases[i][1], cases[i][2], cases[i][3], cases[i][4], "-o",
                                             "/tmp/cna-never-ik.png", NULL)
                                   : run_cna(cmd, ROBOT, cases[i][1], cases[i][2], "-o", "/tmp/cna-never-ik.png", NULL);
        char first[256];
        snprintf(first, sizeof first, "cna %s: %s\nusage: cna %s ", cmd, cases[i][5], cmd);
        assert_int_equal(r.exit_code, 2);
        if (strncmp(r.err, first, strlen(first)) != 0) fail_msg("expected \"%s\" at the start of:\n%s", first, r.err);
        run_free(&r);
    }
    assert_int_equal(access("/tmp/cna-never-ik.png", F_OK), -1);
}

#ifdef CNA_TEST_HAVE_GL
static void render_ik_writes_a_png(void **state)
{
    (void)state;
    char dir[256];
    cna_test_temp_dir(dir, sizeof dir, "cna-test-cli-ik-");
    char png[512], expected[1024];
    snprintf(png, sizeof png, "%s/ik.png", dir);
    run_result r = run_cna("render", ROBOT, "--animation", "Robot_Idle", "--time", "0.5", "--ik", "Palm2.L=1.5,3,1",
                           "--aim", "Head=2,4,5", "--aim-forward", "0,0,1", "--size", "64x48", "-o", png, NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "");
    snprintf(expected, sizeof expected, "wrote %s (64x48)\n", png);
    assert_string_equal(r.out, expected);
    run_free(&r);
    struct stat st;
    assert_int_equal(stat(png, &st), 0);
    assert_true(st.st_size > 0);
    assert_int_equal(remove(png), 0);
    assert_int_equal(rmdir(dir), 0);
}
#endif

int cna_test_cli_ik_run(void);
int cna_test_cli_ik_run(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pose_ik_prints_the_edited_pose),
        cmocka_unit_test(weight_0_prints_the_animation_byte_for_byte),
        cmocka_unit_test(an_unknown_joint_exits_1_and_out_of_reach_is_a_note),
        cmocka_unit_test(ik_usage_errors_exit_2_with_their_message),
#ifdef CNA_TEST_HAVE_GL
        cmocka_unit_test(render_ik_writes_a_png),
#endif
    };
    return cmocka_run_group_tests_name("cna pose/render --ik --aim", tests, NULL, NULL);
}
