/*
 * `cna convert` and `cna pose` on .cnb files, run as separate processes (the
 * executable CNA_BINARY_DIR "/cna"): the pose of a converted file prints the
 * same JSON as the glTF file at oracle sample times, --skeleton writes the
 * first skin's skeleton bit for bit, directory mode converts the whole
 * corpus (following no link to a folder), usage errors and refusals give
 * exit codes 2 and 1, and an output that is one of the input's files (or
 * the other output) is refused with the input left as it was; --marker
 * stores markers that cna inspect lists (text and JSON), and a malformed,
 * unknown or out-of-range marker is refused naming the argument; outputs
 * that are pipes, devices, folders or misnamed; directory mode's lines
 * flushed one by one and a SIGINT reported with what was finished.
 *
 * The tool runs without a shell (support/proc.h), on POSIX systems and on
 * Windows. POSIX only: symbolic links (making one on Windows takes a
 * privilege that tests do not have), /dev/full (Windows has no full
 * device) and SIGINT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "cnb_test.h"
#include "support/proc.h"
#include "win_compat.h"

#define CNA_EXE CNA_BINARY_DIR "/cna" CNA_TEST_EXE_SUFFIX
#define WORK CNA_BINARY_DIR "/test_convert_cli.tmp"
#define RUN_DEADLINE_MS 600000

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    assert_non_null(t);
    size_t got = fread(t, 1, (size_t)n, f);
    t[got] = 0;
    fclose(f);
    return t;
}

/* Runs `cna ARGS`, its stdout written to WORK/out and its stderr to WORK/err; the exit code.
 * ARGS are split at spaces, as a shell would, and '...' quotes an argument (spaces
 * inside, or an empty one). */
static int run(const char *args)
{
    static char buf[8192];
    const char *argv[64];
    size_t argc = 0, n = 0;
    argv[argc++] = CNA_EXE;
    for (const char *p = args; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        assert_true(argc < 63);
        argv[argc++] = buf + n;
        while (*p && *p != ' ') {
            if (*p == '\'') {
                for (p++; *p && *p != '\''; p++) buf[n++] = *p;
                assert_int_equal(*p, '\'');
                p++;
            } else {
                buf[n++] = *p++;
            }
            assert_true(n < sizeof buf - 1);
        }
        buf[n++] = '\0';
    }
    argv[argc] = NULL;
    cna_test_output r = cna_test_run(argv, RUN_DEADLINE_MS);
    cna_test_write_file(WORK "/out", r.out, r.out_size);
    cna_test_write_file(WORK "/err", r.err, r.err_size);
    int code = r.exit_code;
    cna_test_output_free(&r);
    return code;
}

static int setup(void **state)
{
    (void)state;
    cna_test_remove_tree(WORK);
    cna_test_make_dirs(WORK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cna_test_remove_tree(WORK);
    return 0;
}

static void converted_file_poses_like_the_gltf_file(void **state)
{
    (void)state;
    for (size_t i = 0; i < CNB_CORPUS_COUNT; i++) {
        const cnb_corpus_entry *e = &cnb_corpus[i];
        char src[1024], args[4096];
        snprintf(src, sizeof src, "%s/corpus/valid/%s/%s", CNA_TEST_DATA_DIR, e->name, e->file);
        snprintf(args, sizeof args, "convert %s -o %s/m.cnb", src, WORK);
        assert_int_equal(run(args), 0);
        /* rest pose, then up to 6 oracle sample times per animation */
        snprintf(args, sizeof args, "pose %s/m.cnb", WORK);
        assert_int_equal(run(args), 0);
        char *a = slurp(WORK "/out");
        snprintf(args, sizeof args, "pose %s", src);
        assert_int_equal(run(args), 0);
        char *b = slurp(WORK "/out");
        assert_string_equal(a, b);
        free(a);
        free(b);
        char path[1024];
        snprintf(path, sizeof path, "%s/oracle/%s.json", CNA_TEST_DATA_DIR, e->name);
        char *text = slurp(path);
        if (!text) continue; /* Triangle: no animation, no oracle */
        cJSON *oracle = cJSON_Parse(text);
        assert_non_null(oracle);
        const cJSON *anims = cJSON_GetObjectItemCaseSensitive(oracle, "animations");
        int na = cJSON_GetArraySize(anims);
        for (int an = 0; an < na; an += (na > 4 ? 4 : 1)) {
            const cJSON *samples = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(anims, an), "samples");
            int ns = cJSON_GetArraySize(samples);
            for (int s = 0; s < ns; s += (ns > 6 ? ns / 6 : 1)) {
                double t = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(samples, s), "t")->valuedouble;
                snprintf(args, sizeof args, "pose %s/m.cnb --animation %d --time %.17g", WORK, an, t);
                assert_int_equal(run(args), 0);
                a = slurp(WORK "/out");
                snprintf(args, sizeof args, "pose %s --animation %d --time %.17g", src, an, t);
                assert_int_equal(run(args), 0);
                b = slurp(WORK "/out");
                if (strcmp(a, b) != 0) print_error("%s animation %d t %.17g differs\n", e->name, an, t);
                assert_string_equal(a, b);
                free(a);
                free(b);
            }
        }
        cJSON_Delete(oracle);
        free(text);
    }
}

static void skeleton_option_writes_the_first_skin_bit_for_bit(void **state)
{
    (void)state;
    assert_int_equal(run("convert " CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb -o " WORK
                         "/r.cnb --skeleton " WORK "/r.cnj"), 0);
    /* the same bytes on every system */
    char *out = slurp(WORK "/out");
    assert_true(strncmp(out, "wrote " WORK "/r.cnb (1620480 bytes)\nwrote " WORK "/r.cnj (",
                        strlen("wrote " WORK "/r.cnb (1620480 bytes)\nwrote " WORK "/r.cnj (")) == 0);
    free(out);
    assert_int_equal(run("inspect --brief " WORK "/r.cnb"), 0);
    out = slurp(WORK "/out");
    assert_non_null(strstr(out, "model: scene 0, 58 bones, 14 meshes (19 parts), 14 skins (1 distinct; joints 43), "
                                "size 8.45413113,"));
    free(out);
    cna_model *m = cnb_test_import(&cnb_corpus[5], CNA_CLIP_MODE_FAITHFUL);
    cna_cnj_skeleton *s = NULL;
    cna_error err;
    assert_int_equal(cna_cnj_read_file(WORK "/r.cnj", NULL, &s, &err), CNA_OK);
    const cna_skinning_data *a = &m->skins[0].data, *b = cna_cnj_skeleton_data(s);
    size_t n = (size_t)a->bone_count;
    assert_int_equal(b->bone_count, a->bone_count);
    assert_memory_equal(b->hierarchy, a->hierarchy, n * 4);
    assert_memory_equal(b->bind_pose, a->bind_pose, n * sizeof(cna_mat4));
    assert_memory_equal(b->inverse_bind_pose, a->inverse_bind_pose, n * sizeof(cna_mat4));
    assert_int_equal(b->root_prefix_count, a->root_prefix_count);
    assert_memory_equal(b->root_prefix, a->root_prefix, n * sizeof(cna_mat4));
    cna_cnj_skeleton_free(s);
    cna_model_free(m);
}

static void directory_mode_converts_every_gltf_file_in_the_tree(void **state)
{
    (void)state;
    assert_int_equal(run("convert " CNA_TEST_DATA_DIR "/corpus/valid -o " WORK "/all"), 0);
    char *out = slurp(WORK "/out");
    assert_non_null(strstr(out, "9 of 9 files converted\n"));
    assert_null(strchr(out, '\r')); /* no progress bar: stdout is not a terminal */
    free(out);
    for (size_t i = 0; i < CNB_CORPUS_COUNT; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/all/%s/%s", WORK, cnb_corpus[i].name, cnb_corpus[i].file);
        strcpy(strrchr(path, '.'), ".cnb");
        cna_model *m = NULL;
        cna_error err;
        assert_int_equal(cna_cnb_load_file(path, NULL, &m, &err), CNA_OK);
        cna_model_free(m);
    }
}

/* a.gltf beside a.glb: two outputs, a.gltf.cnb and a.glb.cnb, each the model
 * of its own file; a lone b.gltf keeps the plain name b.cnb. */
static void directory_mode_keeps_same_named_gltf_and_glb_apart(void **state)
{
    (void)state;
    cna_test_make_dirs(WORK "/twins/sub");
    cna_test_copy_file(CNA_TEST_DATA_DIR "/corpus/valid/Triangle/triangle.gltf", WORK "/twins/sub/a.gltf");
    cna_test_copy_file(CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb", WORK "/twins/sub/a.glb");
    cna_test_copy_file(CNA_TEST_DATA_DIR "/corpus/valid/Triangle/triangle.gltf", WORK "/twins/b.gltf");
    cna_test_copy_file(CNA_TEST_DATA_DIR "/corpus/valid/Triangle/triangle.bin", WORK "/twins/sub/triangle.bin");
    cna_test_copy_file(CNA_TEST_DATA_DIR "/corpus/valid/Triangle/triangle.bin", WORK "/twins/triangle.bin");
    assert_int_equal(run("convert " WORK "/twins -o " WORK "/twins-out"), 0);
    char *out = slurp(WORK "/out");
    assert_non_null(strstr(out, "3 of 3 files converted\n"));
    free(out);
    cna_model *m = NULL;
    cna_error err;
    assert_int_equal(cna_cnb_load_file(WORK "/twins-out/sub/a.gltf.cnb", NULL, &m, &err), CNA_OK);
    assert_int_equal(m->skin_count, 0);
    cna_model_free(m);
    assert_int_equal(cna_cnb_load_file(WORK "/twins-out/sub/a.glb.cnb", NULL, &m, &err), CNA_OK);
    assert_true(m->skin_count > 0); /* the robot, not the triangle */
    cna_model_free(m);
    assert_int_equal(cna_cnb_load_file(WORK "/twins-out/b.cnb", NULL, &m, &err), CNA_OK);
    cna_model_free(m);
    struct stat st;
    assert_int_not_equal(stat(WORK "/twins-out/sub/a.cnb", &st), 0);
}

/* --reduce-keys: the printed key counts are those of the written file; TOL 0
 * keeps the poses; a bad TOL is a usage error naming it. */
static void reduce_keys_prints_the_key_counts_of_the_written_file(void **state)
{
    (void)state;
    const char *robot = CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb";
    char args[2048];
    snprintf(args, sizeof args, "convert %s -o %s/r.cnb --reduce-keys 0.001", robot, WORK);
    assert_int_equal(run(args), 0);
    char *out = slurp(WORK "/out");
    assert_non_null(out);
    size_t before = 0, after = 0;
    double tol = -1, error = -1;
    assert_int_equal(sscanf(out, "keys: %zu -> %zu (tolerance %lf, largest error %lf)", &before, &after, &tol, &error), 4);
    assert_non_null(strstr(out, "\nwrote " WORK "/r.cnb ("));
    free(out);
    assert_int_equal(before, 20726);
    assert_true(after < before);
    assert_true(tol == 0.001);
    assert_true(error > 0 && error <= 0.001);
    cna_model *m = NULL;
    assert_int_equal(cna_cnb_load_file(WORK "/r.cnb", NULL, &m, NULL), CNA_OK);
    size_t keys = 0;
    const cna_skinning_data *d = &m->skins[0].data;
    for (size_t c = 0; c < d->clip_count; c++)
        for (size_t t = 0; t < d->clips[c].track_count; t++) keys += d->clips[c].tracks[t].key_count;
    assert_int_equal(keys, after);
    cna_model_free(m);
    /* without the option, every key is kept (and nothing is printed about keys) */
    snprintf(args, sizeof args, "convert %s -o %s/all.cnb", robot, WORK);
    assert_int_equal(run(args), 0);
    out = slurp(WORK "/out");
    assert_null(strstr(out, "keys:"));
    free(out);
    const char *bad[] = {"-1", "nan", "inf", "1x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(args, sizeof args, "convert %s -o %s/badtol.cnb --reduce-keys '%s'", robot, WORK, bad[i]);
        assert_int_equal(run(args), 2);
        char *err = slurp(WORK "/err");
        char expected[128];
        snprintf(expected, sizeof expected, "cna convert: --reduce-keys: '%s' is not a finite tolerance >= 0\n",
                 bad[i]);
        assert_non_null(strstr(err, expected));
        free(err);
    }
    snprintf(args, sizeof args, "convert %s -o %s/badtol.cnb --reduce-keys", robot, WORK);
    assert_int_equal(run(args), 2);
    struct stat st; /* refused before anything is written */
    assert_int_not_equal(stat(WORK "/badtol.cnb", &st), 0);
}

static void usage_errors_exit_2_and_refusals_exit_1(void **state)
{
    (void)state;
    const char *robot = CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb";
    char args[2048];
    snprintf(args, sizeof args, "convert %s", robot);
    assert_int_equal(run(args), 2);
    snprintf(args, sizeof args, "convert %s -o %s/x.cnb --unit-scale -1", robot, WORK);
    assert_int_equal(run(args), 2);
    snprintf(args, sizeof args, "convert %s/corpus/valid -o %s/d --skeleton %s/x.cnj", CNA_TEST_DATA_DIR, WORK, WORK);
    assert_int_equal(run(args), 2);
    snprintf(args, sizeof args, "convert %s/corpus/valid/Triangle/triangle.gltf -o %s/t.cnb --skeleton %s/t.cnj",
             CNA_TEST_DATA_DIR, WORK, WORK);
    assert_int_equal(run(args), 1);
    char *err = slurp(WORK "/err");
    assert_non_null(strstr(err, "the model has no skin; --skeleton needs one"));
    free(err);
    struct stat st; /* refused before writing: neither file exists */
    assert_int_not_equal(stat(WORK "/t.cnb", &st), 0);
    assert_int_not_equal(stat(WORK "/t.cnj", &st), 0);
    /* A damaged .cnb is refused by cna pose with the reader's message. */
    snprintf(args, sizeof args, "convert %s -o %s/bad.cnb", robot, WORK);
    assert_int_equal(run(args), 0);
    FILE *f = fopen(WORK "/bad.cnb", "r+b");
    assert_non_null(f);
    fseek(f, 1000, SEEK_SET);
    int c = fgetc(f);
    fseek(f, 1000, SEEK_SET);
    fputc(c ^ 1, f);
    fclose(f);
    assert_int_equal(run("pose " WORK "/bad.cnb"), 1);
    err = slurp(WORK "/err");
    assert_non_null(strstr(err, "bad.cnb: cnb: checksum 0x"));
    free(err);
    assert_int_equal(run("pose " WORK "/bad.cnb --mode union"), 2);
}

/* Byte-for-byte equality of two files. */
static void assert_same_file_bytes(const char *a, const char *b)
{
    if (!cna_test_same_file_bytes(a, b)) fail_msg("%s differs from %s", a, b);
}

/* The names in `dir` (dot files too), sorted, space-separated. */
static char *list_dir(const char *dir)
{
    return cna_test_list_dir(dir);
}

static void expect_refused(const char *args, const char *message)
{
    assert_int_equal(run(args), 1);
    char *err = slurp(WORK "/err");
    assert_non_null(err);
    assert_string_equal(err, message);
    free(err);
}

static void markers_are_stored_by_convert_and_listed_by_inspect(void **state)
{
    (void)state;
    const char *robot = CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb";
    char args[2048];
    snprintf(args, sizeof args,
             "convert %s -o %s/mk.cnb --marker Robot_Walking:right:0.75 --marker 10:left:0.25 "
             "--marker '0:a:b:3.3333333' --marker Robot_Dance:start:0",
             robot, WORK);
    assert_int_equal(run(args), 0);
    assert_int_equal(run("inspect " WORK "/mk.cnb"), 0);
    char *out = slurp(WORK "/out");
    assert_non_null(strstr(out, "  markers: 4\n"
                                "    animation 0 \"Robot_Dance\": 2\n"
                                "      marker 0 \"start\" at 0 s (0 ticks)\n"
                                "      marker 1 \"a:b\" at 3.3333333 s (33333333 ticks)\n"
                                "    animation 10 \"Robot_Walking\": 2\n"
                                "      marker 0 \"left\" at 0.25 s (2500000 ticks)\n"
                                "      marker 1 \"right\" at 0.75 s (7500000 ticks)\n"
                                "  model diagnostics: 0\n"));
    free(out);
    assert_int_equal(run("inspect --brief " WORK "/mk.cnb"), 0);
    out = slurp(WORK "/out");
    assert_non_null(strstr(out, "\"Robot_Dance\" 3.33333 s (2 markers), \"Robot_Death\" 0.958333 s, "));
    free(out);
    assert_int_equal(run("inspect --json " WORK "/mk.cnb"), 0);
    out = slurp(WORK "/out");
    cJSON *root = cJSON_Parse(out);
    free(out);
    assert_non_null(root);
    const cJSON *anims = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "model"), "animations");
    assert_int_equal(cJSON_GetArraySize(anims), 14);
    const cJSON *walk = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(anims, 10), "markers");
    assert_int_equal(cJSON_GetArraySize(walk), 2);
    const cJSON *left = cJSON_GetArrayItem(walk, 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(left, "name")->valuestring, "left");
    assert_true(cJSON_GetObjectItemCaseSensitive(left, "time")->valuedouble == 0.25);
    assert_true(cJSON_GetObjectItemCaseSensitive(left, "ticks")->valuedouble == 2500000.0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(anims, 1), "markers")), 0);
    cJSON_Delete(root);
    /* a glTF file has none */
    snprintf(args, sizeof args, "inspect %s", robot);
    assert_int_equal(run(args), 0);
    out = slurp(WORK "/out");
    assert_non_null(strstr(out, "  markers: 0\n  model diagnostics: 0\n"));
    free(out);
    /* malformed: usage errors naming the argument, nothing written */
    const char *bad[] = {"Robot_Walking:left", "left:0.5", ":x:1", "1::1", "1:x:", "1:x:1s", "1:x:nan", "1:x:inf"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(args, sizeof args, "convert %s -o %s/mkbad.cnb --marker '%s'", robot, WORK, bad[i]);
        assert_int_equal(run(args), 2);
        char *err = slurp(WORK "/err");
        char want[256];
        snprintf(want, sizeof want,
                 "cna convert: --marker: '%s' is not ANIM:NAME:SECONDS (an animation, a name and a time in seconds)\n",
                 bad[i]);
        assert_true(strncmp(err, want, strlen(want)) == 0);
        free(err);
    }
    snprintf(args, sizeof args, "convert %s -o %s/mkbad.cnb --marker", robot, WORK);
    assert_int_equal(run(args), 2);
    /* an unknown animation, a time outside it, directory mode: refused, nothing written */
    snprintf(args, sizeof args, "convert %s -o %s/mkbad.cnb --marker Nope:left:1", robot, WORK);
    char want[1024];
    snprintf(want, sizeof want,
             "error: %s: --marker 'Nope:left:1': no animation 'Nope' (the file has 14: 0 \"Robot_Dance\", "
             "1 \"Robot_Death\", 2 \"Robot_Idle\", 3 \"Robot_Jump\", 4 \"Robot_No\", 5 \"Robot_Punch\", "
             "6 \"Robot_Running\", 7 \"Robot_Sitting\", 8 \"Robot_Standing\", 9 \"Robot_ThumbsUp\", "
             "10 \"Robot_Walking\", 11 \"Robot_WalkJump\", 12 \"Robot_Wave\", 13 \"Robot_Yes\")\n", robot);
    expect_refused(args, want);
    snprintf(args, sizeof args, "convert %s -o %s/mkbad.cnb --marker 10:left:5", robot, WORK);
    snprintf(want, sizeof want,
             "error: %s: --marker '10:left:5': animations[10] \"Robot_Walking\": marker time 5 s is outside "
             "0..0.9583333 s; nothing was written\n", robot);
    expect_refused(args, want);
    struct stat st;
    assert_int_not_equal(stat(WORK "/mkbad.cnb", &st), 0);
    snprintf(args, sizeof args, "convert %s/corpus/valid -o %s/d --marker 0:x:0", CNA_TEST_DATA_DIR, WORK);
    assert_int_equal(run(args), 2);
    char *err = slurp(WORK "/err");
    assert_non_null(strstr(err, "--marker applies to one file, not a directory"));
    free(err);
}

static void an_output_naming_an_input_is_refused_and_the_input_is_unchanged(void **state)
{
    (void)state;
    const char *src = CNA_TEST_DATA_DIR "/corpus/valid/MorphStressTest";
    cna_test_make_dirs(WORK "/in");
    char *names = list_dir(src);
    for (char *p = names, *space; (space = strchr(p, ' ')) != NULL; p = space + 1) {
        *space = '\0';
        char from[1024], to[1024];
        snprintf(from, sizeof from, "%s/%s", src, p);
        snprintf(to, sizeof to, "%s/in/%s", WORK, p);
        cna_test_copy_file(from, to);
    }
    free(names);
#ifndef _WIN32
    assert_int_equal(symlink("in/MorphStressTest.gltf", WORK "/link.gltf"), 0);
#endif
    char *before = list_dir(WORK "/in");
    const char *in = WORK "/in/MorphStressTest.gltf";
    char args[4096], message[4096];
    static const struct {
        const char *out, *what, *file;
    } cases[] = {
        {WORK "/in/MorphStressTest.gltf", "the input model", WORK "/in/MorphStressTest.gltf"},
#ifdef _WIN32
        /* names are case-insensitive there: the same files under other spellings */
        {WORK "/in/MORPHSTRESSTEST.GLTF", "the input model", WORK "/in/MorphStressTest.gltf"},
        {WORK "/IN/morphstresstest.bin", "buffers[0] of the input model", WORK "/in/MorphStressTest.bin"},
#else
        {WORK "/link.gltf", "the input model", WORK "/in/MorphStressTest.gltf"},
#endif
        {WORK "/in/../in/MorphStressTest.gltf", "the input model", WORK "/in/MorphStressTest.gltf"},
        {WORK "/in/MorphStressTest.bin", "buffers[0] of the input model", WORK "/in/MorphStressTest.bin"},
        {WORK "/in/./MorphStressTest.bin", "buffers[0] of the input model", WORK "/in/MorphStressTest.bin"},
        {WORK "/in/Base_AO.png", "images[0] of the input model", WORK "/in/Base_AO.png"},
        {WORK "/in/ColorSwatches.png", "images[2] of the input model", WORK "/in/ColorSwatches.png"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(args, sizeof args, "convert %s -o %s", in, cases[i].out);
        snprintf(message, sizeof message, "error: %s: is the same file as %s \"%s\"; nothing was written\n",
                 cases[i].out, cases[i].what, cases[i].file);
        expect_refused(args, message);
        /* --skeleton naming an input is refused the same way, and -o is not written */
        snprintf(args, sizeof args, "convert %s -o %s/s.cnb --skeleton %s", in, WORK, cases[i].out);
        expect_refused(args, message);
        struct stat st;
        assert_int_not_equal(stat(WORK "/s.cnb", &st), 0);
    }
    static const char *files[] = {"MorphStressTest.gltf", "MorphStressTest.bin", "Base_AO.png", "TinyGrid.png",
                                  "ColorSwatches.png"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s/in/%s", WORK, files[i]);
        snprintf(b, sizeof b, "%s/%s", src, files[i]);
        assert_same_file_bytes(a, b);
    }
    char *after = list_dir(WORK "/in"); /* no temporary file either */
    assert_string_equal(after, before);
    free(after);
    free(before);
    /* --skeleton naming the -o file, spelled otherwise: refused before loading */
    const char *robot = CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb";
    snprintf(args, sizeof args, "convert %s -o %s/rs.cnb --skeleton %s/./rs.cnb", robot, WORK, WORK);
    snprintf(message, sizeof message,
             "error: %s/./rs.cnb: is the same file as the -o output \"%s/rs.cnb\"; nothing was written\n", WORK,
             WORK);
    expect_refused(args, message);
    struct stat st;
    assert_int_not_equal(stat(WORK "/rs.cnb", &st), 0);
    /* ... also when it exists already: it stays as it was */
    snprintf(args, sizeof args, "convert %s -o %s/rs.cnb", robot, WORK);
    assert_int_equal(run(args), 0);
    cna_test_copy_file(WORK "/rs.cnb", WORK "/rs.copy");
    snprintf(args, sizeof args, "convert %s -o %s/rs.cnb --skeleton %s/rs.cnb --unit-scale 2", robot, WORK, WORK);
    snprintf(message, sizeof message,
             "error: %s/rs.cnb: is the same file as the -o output \"%s/rs.cnb\"; nothing was written\n", WORK, WORK);
    expect_refused(args, message);
    assert_same_file_bytes(WORK "/rs.cnb", WORK "/rs.copy");
}

static void a_write_that_fails_reports_the_system_reason_and_leaves_no_temporary_file(void **state)
{
    (void)state;
    const char *robot = CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb";
    char args[4096];
    cna_test_make_dirs(WORK "/keep");
    snprintf(args, sizeof args, "convert %s -o %s/keep/r.cnb", robot, WORK);
    assert_int_equal(run(args), 0);
    /* a folder where the .cnj should go: the .cnj cannot be written */
    cna_test_make_dirs(WORK "/keep/r.cnj");
    snprintf(args, sizeof args, "convert %s -o %s/keep/r.cnb --skeleton %s/keep/r.cnj", robot, WORK, WORK);
    char message[4096];
    snprintf(message, sizeof message,
             "error: %s/keep/r.cnj: is a directory; --skeleton names the file to write; nothing was written\n", WORK);
    expect_refused(args, message);
#ifndef _WIN32
    /* a device that is full: the output and the system's reason, the one cause */
    snprintf(args, sizeof args, "convert %s -o /dev/full", robot);
    expect_refused(args, "error: /dev/full: write failed: No space left on device\n");
#endif
    char *names = list_dir(WORK "/keep");
    assert_string_equal(names, "r.cnb r.cnj ");
    free(names);
}

#ifndef _WIN32
static void directory_mode_follows_no_folder_link_and_ends_on_a_link_loop(void **state)
{
    (void)state;
    /* tree/a/triangle.gltf (+ .bin); tree/a/loop -> .. (a loop); tree/outside ->
     * a folder beside the tree; tree/r.glb -> a file outside (followed) */
    assert_int_equal(system("mkdir -p " WORK "/tree/a " WORK "/outside && cp " CNA_TEST_DATA_DIR
                            "/corpus/valid/Triangle/triangle.* " WORK "/tree/a/ && cp " CNA_TEST_DATA_DIR
                            "/corpus/valid/RobotExpressive/robot.glb " WORK "/outside/ && ln -s .. " WORK
                            "/tree/a/loop && ln -s ../../outside " WORK "/tree/a/out && ln -s ../outside/robot.glb "
                            WORK "/tree/r.glb && ln -s self " WORK "/tree/self"), 0);
    char args[4096];
    snprintf(args, sizeof args, "convert %s/tree -o %s/tree-out", WORK, WORK);
    assert_int_equal(run(args), 0);
    char *out = slurp(WORK "/out");
    char expected[4096];
    snprintf(expected, sizeof expected,
             "%s/tree/a/triangle.gltf -> %s/tree-out/a/triangle.cnb\n%s/tree/r.glb -> %s/tree-out/r.cnb\n"
             "2 of 2 files converted\n",
             WORK, WORK, WORK, WORK);
    assert_string_equal(out, expected);
    free(out);
    char *names = list_dir(WORK "/tree-out");
    assert_string_equal(names, "a r.cnb ");
    free(names);
    names = list_dir(WORK "/tree-out/a");
    assert_string_equal(names, "triangle.cnb ");
    free(names);
}

#endif

/* Outputs that are no regular file: a pipe through /dev/stdout gets the same
 * bytes as a file (the "wrote" line goes to stderr, to keep the stream
 * whole), /dev/null is written and reported, a folder is named as such, and
 * another extension than .cnb is refused as cna render refuses one. */
static void pipes_devices_folders_and_extensions_as_outputs(void **state)
{
    (void)state;
    const char *tri = CNA_TEST_DATA_DIR "/corpus/valid/Triangle/triangle.gltf";
    char args[4096];
    snprintf(args, sizeof args, "convert %s -o %s/t.cnb", tri, WORK);
    assert_int_equal(run(args), 0);
    const char *argv[] = {CNA_EXE, "convert", tri, "-o", "/dev/stdout", NULL};
    cna_test_child child;
    cna_test_child_start(&child, argv, true); /* stdout: a pipe */
    char piped[65536];
    size_t have = 0;
    for (size_t n; (n = cna_test_child_read(&child, piped + have, sizeof piped - have)) > 0;) {
        have += n;
        assert_true(have < sizeof piped);
    }
    cna_test_output output;
    cna_test_status status = cna_test_child_wait(&child, RUN_DEADLINE_MS, &output);
    assert_true(status.exited);
    assert_int_equal(status.exit_code, 0);
    cna_test_write_file(WORK "/piped.cnb", piped, have);
    assert_same_file_bytes(WORK "/t.cnb", WORK "/piped.cnb");
    assert_string_equal(output.err, "wrote /dev/stdout\n");
    cna_test_output_free(&output);
    char *err;
    /* the null device (NUL on Windows) */
#ifdef _WIN32
#define NULL_DEVICE "NUL"
#else
#define NULL_DEVICE "/dev/null"
#endif
    snprintf(args, sizeof args, "convert %s -o " NULL_DEVICE, tri);
    assert_int_equal(run(args), 0);
    char *out = slurp(WORK "/out");
    assert_string_equal(out, "wrote " NULL_DEVICE "\n");
    free(out);
    cna_test_make_dirs(WORK "/folder");
    snprintf(args, sizeof args, "convert %s -o %s/folder", tri, WORK);
    char message[4096];
    snprintf(message, sizeof message,
             "error: %s/folder: is a directory; -o names the file to write; nothing was written\n", WORK);
    expect_refused(args, message);
    snprintf(args, sizeof args, "convert %s -o %s/t.png", tri, WORK);
    assert_int_equal(run(args), 2);
    err = slurp(WORK "/err");
    assert_non_null(strstr(err, "cna convert: -o: '" WORK "/t.png': only .cnb outputs are written\n"));
    free(err);
    /* (u, not t: Windows names are case-insensitive and t.CNB would be t.cnb above) */
    snprintf(args, sizeof args, "convert %s -o %s/u.CNB --skeleton %s/t.json", tri, WORK, WORK);
    assert_int_equal(run(args), 2);
    err = slurp(WORK "/err");
    assert_non_null(strstr(err, "cna convert: --skeleton: '" WORK "/t.json': only .cnj outputs are written\n"));
    free(err);
    struct stat st;
    assert_int_not_equal(stat(WORK "/t.png", &st), 0);
    assert_int_not_equal(stat(WORK "/u.CNB", &st), 0);
}

/* Directory mode into a pipe: each file's line arrives as the file is done
 * (flushed, not held until the end), and SIGINT stops the walk after the
 * file in hand: the summary says what was finished and what was not tried,
 * no temporary file is left, and the process ends by SIGINT. */
#ifndef _WIN32
static void directory_mode_flushes_each_line_and_reports_an_interruption(void **state)
{
    (void)state;
    enum { FILES = 60 };
    cna_test_make_dirs(WORK "/many");
    for (int i = 0; i < FILES; i++) {
        char link[1024];
        snprintf(link, sizeof link, "%s/many/r%02d.glb", WORK, i);
        assert_int_equal(symlink(CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb", link), 0);
    }
    const char *argv[] = {CNA_EXE, "convert", WORK "/many", "-o", WORK "/many-out", NULL};
    cna_test_child child;
    cna_test_child_start(&child, argv, true); /* stdout: a pipe */
    char out[65536];
    size_t have = 0;
    while (!memchr(out, '\n', have)) { /* the first line, before the run ends */
        size_t n = cna_test_child_read(&child, out + have, sizeof out - 1 - have);
        assert_true(n > 0);
        have += n;
    }
    cna_test_child_interrupt(&child);
    for (size_t n; (n = cna_test_child_read(&child, out + have, sizeof out - 1 - have)) > 0;) have += n;
    out[have] = '\0';
    cna_test_status status = cna_test_child_wait(&child, RUN_DEADLINE_MS, NULL);
    assert_false(status.exited);
    assert_int_equal(status.signal, SIGINT);
    /* k lines in order, then the summary */
    size_t k = 0;
    char *line = out;
    for (char want[2048];; k++) {
        snprintf(want, sizeof want, "%s/many/r%02zu.glb -> %s/many-out/r%02zu.cnb\n", WORK, k, WORK, k);
        if (strncmp(line, want, strlen(want)) != 0) break;
        line += strlen(want);
    }
    assert_true(k >= 1 && k < FILES);
    char summary[256];
    snprintf(summary, sizeof summary, "interrupted by SIGINT: %zu of %d files converted, %zu not tried\n", k, FILES,
             FILES - k);
    assert_string_equal(line, summary);
    char *names = list_dir(WORK "/many-out"); /* the k files, no temporary file */
    char want[4096] = "";
    for (size_t i = 0; i < k; i++) snprintf(want + strlen(want), sizeof want - strlen(want), "r%02zu.cnb ", i);
    assert_string_equal(names, want);
    free(names);
}

#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(converted_file_poses_like_the_gltf_file),
        cmocka_unit_test(skeleton_option_writes_the_first_skin_bit_for_bit),
        cmocka_unit_test(directory_mode_converts_every_gltf_file_in_the_tree),
        cmocka_unit_test(directory_mode_keeps_same_named_gltf_and_glb_apart),
        cmocka_unit_test(usage_errors_exit_2_and_refusals_exit_1),
        cmocka_unit_test(reduce_keys_prints_the_key_counts_of_the_written_file),
        cmocka_unit_test(markers_are_stored_by_convert_and_listed_by_inspect),
        cmocka_unit_test(an_output_naming_an_input_is_refused_and_the_input_is_unchanged),
        cmocka_unit_test(a_write_that_fails_reports_the_system_reason_and_leaves_no_temporary_file),
#ifndef _WIN32
        cmocka_unit_test(directory_mode_follows_no_folder_link_and_ends_on_a_link_loop),
#endif
        cmocka_unit_test(pipes_devices_folders_and_extensions_as_outputs),
#ifndef _WIN32
        cmocka_unit_test(directory_mode_flushes_each_line_and_reports_an_interruption),
#endif
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
