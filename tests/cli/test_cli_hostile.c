/*
 * The `cna` tool on hostile files: a FIFO named as the input, or as a glTF
 * file's external buffer, is refused by inspect, pose, convert and render
 * (exit 1, the message on stderr) without waiting on it; names with control
 * characters and multi-byte characters come out of `cna pose` as valid JSON
 * holding the same bytes; a convert whose output the reader refuses names
 * that file once.
 *
 * Every run has a deadline: a tool that blocks is killed and the test fails.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, mkfifo */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>


#define DEADLINE_MS 20000
#define CLI_RUN_DEADLINE_MS DEADLINE_MS
#include "cli/cli_run.h"

static void expect_failure(run_result r, const char *want_err)
{
    if (r.exit_code != 1 || strcmp(r.err, want_err) != 0)
        print_error("exit %d, stderr: %s\n", r.exit_code, r.err);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, want_err);
    assert_string_equal(r.out, "");
    run_free(&r);
}

static void temp_dir(char *dir, size_t n)
{
    snprintf(dir, n, "%s/cna-cli-hostile-XXXXXX", CNA_BINARY_DIR);
    assert_non_null(mkdtemp(dir));
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* ------------------------------------------------------------------ FIFOs */

/* Windows has no FIFO in its file system (its named pipes live under \\.\pipe\): POSIX only. */
#ifndef _WIN32

static void a_gltf_whose_buffer_is_a_fifo_is_refused_by_every_command(void **state)
{
    (void)state;
    char dir[1024], fifo[1100], gltf[1100], out[1100], want[4096];
    temp_dir(dir, sizeof dir);
    snprintf(fifo, sizeof fifo, "%s/data.bin", dir);
    snprintf(gltf, sizeof gltf, "%s/model.gltf", dir);
    snprintf(out, sizeof out, "%s/model.cnb", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    write_text(gltf, "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"data.bin\",\"byteLength\":4}]}");
    snprintf(want, sizeof want, "error: %s: buffers[0] (uri \"data.bin\"): \"%s\": not a regular file\n", gltf, fifo);
    expect_failure(run_cna("inspect", gltf, NULL), want);
    expect_failure(run_cna("inspect", gltf, "--json", NULL), want);
    expect_failure(run_cna("pose", gltf, NULL), want);
    expect_failure(run_cna("convert", gltf, "-o", out, NULL), want);
    struct stat st;
    assert_int_not_equal(stat(out, &st), 0); /* nothing written */
    assert_int_equal(unlink(fifo), 0);
    assert_int_equal(unlink(gltf), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void a_fifo_as_the_input_is_refused_by_every_command(void **state)
{
    (void)state;
    char dir[1024], fifo[1100], out[1100], want[4096];
    temp_dir(dir, sizeof dir);
    snprintf(fifo, sizeof fifo, "%s/model.cnb", dir);
    snprintf(out, sizeof out, "%s/out.cnb", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    /* the tool's probe of the file's kind refuses it unread */
    snprintf(want, sizeof want, "error: %s: not a regular file\n", fifo);
    expect_failure(run_cna("pose", fifo, NULL), want);
    expect_failure(run_cna("inspect", fifo, NULL), want);
    expect_failure(run_cna("convert", fifo, "-o", out, NULL), want);
    /* render loads through cna_model_load_any (in a build with cna_gl) */
    static const char no_gl[] =
        "error: this cna was built without cna_gl (-DCNA_BUILD_GL=OFF); rendering is unavailable\n";
    char png[1100];
    snprintf(png, sizeof png, "%s/out.png", dir);
    run_result r = run_cna("render", fifo, "-o", png, NULL);
    expect_failure(r, strcmp(r.err, no_gl) == 0 ? no_gl : want);
    assert_int_equal(unlink(fifo), 0);
    assert_int_equal(rmdir(dir), 0);
}

#endif

/* ------------------------------------------------------------------ names in JSON output */

static void pose_prints_names_with_control_and_multibyte_characters_as_valid_json(void **state)
{
    (void)state;
    char dir[1024], gltf[1100];
    temp_dir(dir, sizeof dir);
    snprintf(gltf, sizeof gltf, "%s/names.gltf", dir);
    /* node 0: tab, newline, U+0001, quote, backslash, U+007F, é, 日, U+1F600 (JSON escapes in the file) */
    write_text(gltf, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],"
                     "\"nodes\":[{\"name\":\"a\\tb\\nc\\u0001d\\\"e\\\\f\\u007f\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80\"},"
                     "{\"name\":\"\\u00e9\\ud83d\\ude00\"}]}");
    run_result r = run_cna("pose", gltf, NULL);
    if (r.exit_code != 0) print_error("%s\n", r.err);
    assert_int_equal(r.exit_code, 0);
    cJSON *root = cJSON_Parse(r.out);
    assert_non_null(root);
    const cJSON *bones = cJSON_GetObjectItemCaseSensitive(root, "bones");
    assert_int_equal(cJSON_GetArraySize(bones), 2);
    const cJSON *n0 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(bones, 0), "name");
    const cJSON *n1 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(bones, 1), "name");
    assert_true(cJSON_IsString(n0) && cJSON_IsString(n1));
    assert_string_equal(n0->valuestring, "a\tb\nc\x01" "d\"e\\f\x7f\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80");
    assert_string_equal(n1->valuestring, "\xc3\xa9\xf0\x9f\x98\x80");
    /* escaped in the text itself (a raw control byte inside a JSON string is invalid) */
    assert_non_null(strstr(r.out, "\"a\\tb\\nc\\u0001d\\\"e\\\\f\x7f\xc3\xa9"));
    for (const char *p = r.out; *p; p++)
        assert_true((unsigned char)*p >= 0x20 || *p == '\n' || *p == '\t' || *p == '\r');
    cJSON_Delete(root);
    run_free(&r);
    assert_int_equal(unlink(gltf), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void pose_and_inspect_refuse_invalid_utf8_names(void **state)
{
    (void)state;
    char dir[1024], gltf[1100], want[4096];
    temp_dir(dir, sizeof dir);
    snprintf(gltf, sizeof gltf, "%s/bad.gltf", dir);
    write_text(gltf, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{},{\"name\":\"ok\xc0\xaf\"}]}");
    snprintf(want, sizeof want, "error: %s: nodes[1].name: invalid UTF-8 at byte 2\n", gltf);
    expect_failure(run_cna("pose", gltf, NULL), want);
    expect_failure(run_cna("inspect", gltf, "--json", NULL), want);
    assert_int_equal(unlink(gltf), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* ------------------------------------------------------------------ convert's reload */

static void convert_names_the_output_once_when_the_reader_refuses_it(void **state)
{
    (void)state;
    char dir[1024], gltf[1100], out[1100], want[4096];
    temp_dir(dir, sizeof dir);
    snprintf(gltf, sizeof gltf, "%s/far.gltf", dir);
    snprintf(out, sizeof out, "%s/far.cnb", dir);
    /* 1e10 * the largest unit scale (1e30) is past FLT_MAX: the baked translation is infinite */
    write_text(gltf, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
                     "\"nodes\":[{\"name\":\"far\",\"translation\":[1e10,0,0]}]}");
    snprintf(want, sizeof want, "error: %s: cnb: bones[0].rest_transform: not finite\n", out);
    expect_failure(run_cna("convert", gltf, "-o", out, "--unit-scale", "1e30", NULL), want);
    unlink(out);
    assert_int_equal(unlink(gltf), 0);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#ifndef _WIN32
        cmocka_unit_test(a_gltf_whose_buffer_is_a_fifo_is_refused_by_every_command),
        cmocka_unit_test(a_fifo_as_the_input_is_refused_by_every_command),
#endif
        cmocka_unit_test(pose_prints_names_with_control_and_multibyte_characters_as_valid_json),
        cmocka_unit_test(pose_and_inspect_refuse_invalid_utf8_names),
        cmocka_unit_test(convert_names_the_output_once_when_the_reader_refuses_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
