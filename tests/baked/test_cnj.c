/*
 * The .cnj skeleton sidecar: bit-exact round trip on a real skin, the bone
 * count bounds, old two-block sidecars, and refusals (truncated or garbled
 * JSON, wrong array lengths, non-finite numbers) with their messages. A
 * program whose C locale writes decimal commas (de_DE, made with localedef
 * for the test; not on Windows, whose locales are not glibc's) writes the
 * same bytes as under the "C" locale.
 */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cna/baked.h"
#include "cna/cna.h"

static cna_model *load_robot(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/valid/RobotExpressive/robot.glb", CNA_TEST_DATA_DIR);
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_model_load_file(path, NULL, &m, &err);
    if (r) print_error("%s\n", err.message);
    assert_int_equal(r, CNA_OK);
    return m;
}

static cna_cnj_skeleton *read_text(const char *text, cna_result expect, cna_error *err)
{
    cna_cnj_skeleton *s = NULL;
    cna_result r = cna_cnj_read_memory(text, strlen(text), NULL, &s, err);
    if (r != expect) print_error("got %s: %s\n", cna_result_name(r), r ? err->message : "ok");
    assert_int_equal(r, expect);
    if (expect) assert_null(s);
    return s;
}

static void round_trip_is_bit_identical_on_robot_expressive(void **state)
{
    (void)state;
    cna_model *m = load_robot();
    const cna_skinning_data *d = &m->skins[0].data;
    assert_true(d->bone_count > 0);
    assert_int_equal(d->root_prefix_count, (size_t)d->bone_count);
    char *text = NULL;
    size_t size = 0;
    cna_error err;
    assert_int_equal(cna_cnj_write_memory(d, NULL, &text, &size, &err), CNA_OK);
    assert_int_equal(strlen(text), size);
    cna_cnj_skeleton *s = NULL;
    assert_int_equal(cna_cnj_read_memory(text, size, NULL, &s, &err), CNA_OK);
    const cna_skinning_data *r = cna_cnj_skeleton_data(s);
    size_t n = (size_t)d->bone_count;
    assert_int_equal(r->bone_count, d->bone_count);
    assert_int_equal(r->hierarchy_count, n);
    assert_int_equal(r->bind_pose_count, n);
    assert_int_equal(r->inverse_bind_pose_count, n);
    assert_int_equal(r->root_prefix_count, n);
    assert_memory_equal(r->hierarchy, d->hierarchy, n * sizeof(int32_t));
    assert_memory_equal(r->bind_pose, d->bind_pose, n * sizeof(cna_mat4));
    assert_memory_equal(r->inverse_bind_pose, d->inverse_bind_pose, n * sizeof(cna_mat4));
    assert_memory_equal(r->root_prefix, d->root_prefix, n * sizeof(cna_mat4));
    assert_int_equal(r->clip_count, 0);
    assert_int_equal(cna_skinning_data_validate(r, &err), CNA_OK);
    cna_cnj_skeleton_free(s);
    cna_cnj_text_free(NULL, text);
    cna_model_free(m);
}

#ifndef _WIN32
/* Under a locale whose decimal point is a comma, the writer writes the
 * bytes it writes under "C" (JSON's '.'), and they read back bit for bit.
 * The de_DE.UTF-8 locale is compiled for the test into a temporary folder
 * (localedef, Debian's locales package: scripts/setup.sh) and found through
 * LOCPATH. */
static void a_decimal_comma_locale_writes_the_same_bytes(void **state)
{
    (void)state;
    char dir[] = "/tmp/cna-test-locale.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[512];
    snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 > %s/localedef.log 2>&1", dir, dir);
    if (system(cmd) != 0) fail_msg("%s failed (is Debian's locales package installed?)", cmd);
    cna_model *m = load_robot();
    const cna_skinning_data *d = &m->skins[0].data;
    cna_error err;
    char *plain = NULL, *comma = NULL;
    size_t plain_size = 0, comma_size = 0;
    assert_int_equal(cna_cnj_write_memory(d, NULL, &plain, &plain_size, &err), CNA_OK);
    assert_int_equal(setenv("LOCPATH", dir, 1), 0);
    const char *set = setlocale(LC_NUMERIC, "de_DE.UTF-8");
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 1.5);
    const cna_result r = cna_cnj_write_memory(d, NULL, &comma, &comma_size, &err);
    setlocale(LC_NUMERIC, "C");
    unsetenv("LOCPATH");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    assert_non_null(set);
    assert_string_equal(probe, "1,5"); /* the locale is in force */
    assert_int_equal(r, CNA_OK);
    assert_int_equal(comma_size, plain_size);
    assert_memory_equal(comma, plain, plain_size);
    assert_non_null(strchr(plain, '.')); /* it has decimals to write */
    cna_cnj_skeleton *s = NULL;
    assert_int_equal(cna_cnj_read_memory(comma, comma_size, NULL, &s, &err), CNA_OK);
    const size_t n = (size_t)d->bone_count;
    assert_memory_equal(cna_cnj_skeleton_data(s)->bind_pose, d->bind_pose, n * sizeof(cna_mat4));
    cna_cnj_skeleton_free(s);
    cna_cnj_text_free(NULL, plain);
    cna_cnj_text_free(NULL, comma);
    cna_model_free(m);
}
#endif

static void file_round_trip_matches_memory(void **state)
{
    (void)state;
    cna_model *m = load_robot();
    char path[1024];
    snprintf(path, sizeof path, "%s/test_cnj_robot.cnj", CNA_BINARY_DIR);
    cna_error err;
    assert_int_equal(cna_cnj_write_file(path, &m->skins[0].data, &err), CNA_OK);
    cna_cnj_skeleton *s = NULL;
    assert_int_equal(cna_cnj_read_file(path, NULL, &s, &err), CNA_OK);
    size_t n = (size_t)m->skins[0].data.bone_count;
    assert_memory_equal(cna_cnj_skeleton_data(s)->inverse_bind_pose,
                        m->skins[0].data.inverse_bind_pose, n * sizeof(cna_mat4));
    cna_cnj_skeleton_free(s);
    remove(path);
    cna_model_free(m);
}

static void zero_bones_are_accepted(void **state)
{
    (void)state;
    cna_error err;
    cna_cnj_skeleton *s = read_text("{\"format\":\"cna-skeleton/1\",\"bone_count\":0,\"hierarchy\":[],"
                                    "\"bind_pose\":[],\"inverse_bind_pose\":[]}",
                                    CNA_OK, &err);
    assert_int_equal(cna_cnj_skeleton_data(s)->bone_count, 0);
    assert_int_equal(cna_cnj_skeleton_data(s)->root_prefix_count, 0);
    cna_cnj_skeleton_free(s);
}

/* A sidecar of n identity bones, each the child of the one before. */
static char *chain_text(long n, bool with_prefix)
{
    const char *ident = "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]";
    size_t cap = 256 + (size_t)(n > 0 ? n : 0) * (12 + 3 * (strlen(ident) + 1));
    char *t = malloc(cap);
    assert_non_null(t);
    size_t at = (size_t)snprintf(t, cap, "{\"bone_count\":%ld,\"hierarchy\":[", n);
    for (long i = 0; i < n; i++) at += (size_t)snprintf(t + at, cap - at, "%s%ld", i ? "," : "", i - 1);
    const char *blocks[3] = {"bind_pose", "inverse_bind_pose", "root_prefix"};
    for (int b = 0; b < (with_prefix ? 3 : 2); b++) {
        at += (size_t)snprintf(t + at, cap - at, "],\"%s\":[", blocks[b]);
        for (long i = 0; i < n; i++) at += (size_t)snprintf(t + at, cap - at, "%s%s", i ? "," : "", ident);
    }
    snprintf(t + at, cap - at, "]}");
    return t;
}

static void one_hundred_thousand_bones_are_accepted(void **state)
{
    (void)state;
    char *text = chain_text(100000, true);
    cna_error err;
    cna_cnj_skeleton *s = read_text(text, CNA_OK, &err);
    const cna_skinning_data *d = cna_cnj_skeleton_data(s);
    assert_int_equal(d->bone_count, 100000);
    assert_int_equal(d->hierarchy[99999], 99998);
    assert_int_equal(d->root_prefix_count, 100000);
    cna_cnj_skeleton_free(s);
    free(text);
}

static void one_hundred_thousand_and_one_bones_are_refused_with_the_count(void **state)
{
    (void)state;
    cna_error err;
    read_text("{\"bone_count\":100001,\"hierarchy\":[],\"bind_pose\":[],\"inverse_bind_pose\":[]}",
              CNA_ERROR_LIMIT, &err);
    assert_string_equal(err.message, "cnj: bone_count: 100001 is outside 0..100000");
}

static void negative_bone_count_is_refused_with_the_count(void **state)
{
    (void)state;
    cna_error err;
    read_text("{\"bone_count\":-1,\"hierarchy\":[],\"bind_pose\":[],\"inverse_bind_pose\":[]}",
              CNA_ERROR_INVALID_DATA, &err);
    assert_string_equal(err.message, "cnj: bone_count: -1 is outside 0..100000");
}

static void old_two_block_sidecar_reads_prefix_as_identity(void **state)
{
    (void)state;
    /* Bone 1 translated by (0, 2, 0) under root 0 translated by (1, 0, 0). */
    const char *text =
        "{\"bone_count\":2,\"hierarchy\":[-1,0],"
        "\"bind_pose\":[[1,0,0,0,0,1,0,0,0,0,1,0,1,0,0,1],[1,0,0,0,0,1,0,0,0,0,1,0,0,2,0,1]],"
        "\"inverse_bind_pose\":[[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1],[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]]}";
    cna_error err;
    cna_cnj_skeleton *s = read_text(text, CNA_OK, &err);
    const cna_skinning_data *d = cna_cnj_skeleton_data(s);
    assert_int_equal(d->root_prefix_count, 0);
    assert_null(d->root_prefix);
    cna_player *p = NULL;
    assert_int_equal(cna_player_create(d, NULL, &p, &err), CNA_OK);
    const cna_mat4 *world = cna_player_world_transforms(p);
    assert_true(world[1].m[12] == 1.0f && world[1].m[13] == 2.0f && world[1].m[14] == 0.0f);
    cna_player_free(p);
    cna_cnj_skeleton_free(s);
}

static void truncated_sidecars_are_refused(void **state)
{
    (void)state;
    char *text = chain_text(3, true);
    size_t size = strlen(text);
    cna_error err;
    for (size_t len = 0; len < size; len++) {
        cna_cnj_skeleton *s = NULL;
        cna_result r = cna_cnj_read_memory(text, len, NULL, &s, &err);
        if (r == CNA_OK) print_error("prefix of %zu bytes accepted\n", len);
        assert_true(r == CNA_ERROR_PARSE);
        assert_null(s);
    }
    free(text);
}

static void garbled_json_is_refused(void **state)
{
    (void)state;
    cna_error err;
    read_text("{\"bone_count\":1,\"hierarchy\":[-1,],}", CNA_ERROR_PARSE, &err);
    read_text("[1, 2, 3]", CNA_ERROR_INVALID_DATA, &err);
    assert_string_equal(err.message, "cnj: the root is not an object");
    read_text("{\"bone_count\":\"two\"}", CNA_ERROR_INVALID_DATA, &err);
    assert_string_equal(err.message, "cnj: bone_count: not an integer");
    read_text("{\"format\":\"other/2\",\"bone_count\":0}", CNA_ERROR_INVALID_DATA, &err);
    assert_string_equal(err.message, "cnj: format is not \"cna-skeleton/1\"");
}

static void a_nul_character_in_a_string_is_refused_naming_it(void **state)
{
    (void)state;
    cna_error err;
    /* "cna-skeleton/1\u0000x" would read as the format itself */
    read_text("{\"format\":\"cna-skeleton/1\\u0000x\",\"bone_count\":0,\"hierarchy\":[],"
              "\"bind_pose\":[],\"inverse_bind_pose\":[]}",
              CNA_ERROR_PARSE, &err);
    assert_string_equal(err.message, "cnj: format: string contains a NUL character (\\u0000)");
    /* a member name: "bone_count\u0000" would read as "bone_count" */
    read_text("{\"format\":\"cna-skeleton/1\",\"bone_count\\u0000\":0,\"hierarchy\":[],"
              "\"bind_pose\":[],\"inverse_bind_pose\":[]}",
              CNA_ERROR_PARSE, &err);
    assert_string_equal(err.message, "cnj: (the root): the name of member 1 contains a NUL character (\\u0000)");
    /* inside an array */
    read_text("{\"bone_count\":0,\"hierarchy\":[],\"bind_pose\":[],\"inverse_bind_pose\":[],"
              "\"extra\":[1,\"a\",{\"b\":\"\\u0000\"}]}",
              CNA_ERROR_PARSE, &err);
    assert_string_equal(err.message, "cnj: extra[2].b: string contains a NUL character (\\u0000)");
    /* an escaped backslash before "u0000" is no NUL */
    cna_cnj_skeleton *s = read_text("{\"note\":\"a\\\\u0000\",\"bone_count\":0,\"hierarchy\":[],"
                                    "\"bind_pose\":[],\"inverse_bind_pose\":[]}",
                                    CNA_OK, &err);
    cna_cnj_skeleton_free(s);
}

static void wrong_array_lengths_are_refused_with_the_counts(void **state)
{
    (void)state;
    const char *I = "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]";
    char text[1024];
    cna_error err;
    snprintf(text, sizeof text,
             "{\"bone_count\":2,\"hierarchy\":[-1,0],\"bind_pose\":[%s],\"inverse_bind_pose\":[%s,%s]}",
             I, I, I);
    read_text(text, CNA_ERROR_INVALID_DATA, &err);
    assert_string_equal(err.message, "cnj: bind_pose: 1 entries; bone_count is 2");
    snprintf(text, sizeof text,
             "{\"bone_count\":2,\"hierarchy\":[-1],\"bind_pose\":[%s,%s],\"inverse_bind_pose\":[%s,%s]}",
             I, I, I, I);
    read_text(text, CNA_ERROR_INVALID_DATA, &err);
    assert_string_equal(err.message, "cnj: hierarchy: 1 entries; bone_count is 2");
    snprintf(text, sizeof text,
             "{\"bone_count\":2,\"hierarchy\":[-1,0],\"bind_pose\":[%s,%s],\"inverse_bind_pose\":[%s,%s],"
             "\"root_prefix\":[%s,%s,%s]}",
             I, I, I, I, I, I, I);
    read_text(text, CNA_ERROR_INVALID_DATA, &err);
    assert_string_equal(err.message, "cnj: root_prefix: 3 entries; bone_count is 2");
    snprintf(text, sizeof text,
             "{\"bone_count\":1,\"hierarchy\":[-1],\"bind_pose\":[[1,0,0]],\"inverse_bind_pose\":[%s]}", I);
    read_text(text, CNA_ERROR_INVALID_DATA, &err);
    assert_string_equal(err.message, "cnj: bind_pose[0]: not an array of 16 numbers");
    snprintf(text, sizeof text, "{\"bone_count\":1,\"hierarchy\":[-1],\"bind_pose\":[%s]}", I);
    read_text(text, CNA_ERROR_INVALID_DATA, &err);
    assert_string_equal(err.message, "cnj: \"inverse_bind_pose\" is missing");
}

static void non_finite_numbers_and_bad_parents_are_refused(void **state)
{
    (void)state;
    const char *I = "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]";
    char text[1024];
    cna_error err;
    snprintf(text, sizeof text,
             "{\"bone_count\":1,\"hierarchy\":[-1],\"bind_pose\":[[1,0,0,1e999,0,1,0,0,0,0,1,0,0,0,0,1]],"
             "\"inverse_bind_pose\":[%s]}", I);
    read_text(text, CNA_ERROR_INVALID_DATA, &err);
    assert_string_equal(err.message, "cnj: bind_pose[0][3]: not a finite number");
    snprintf(text, sizeof text,
             "{\"bone_count\":1,\"hierarchy\":[-1],\"bind_pose\":[%s],"
             "\"inverse_bind_pose\":[[1,0,0,0,0,1,0,0,0,0,1,0,0,0,4e38,1]]}", I);
    read_text(text, CNA_ERROR_INVALID_DATA, &err);
    assert_string_equal(err.message, "cnj: inverse_bind_pose[0][14]: not a finite number");
    snprintf(text, sizeof text,
             "{\"bone_count\":2,\"hierarchy\":[-1,1],\"bind_pose\":[%s,%s],\"inverse_bind_pose\":[%s,%s]}",
             I, I, I, I);
    read_text(text, CNA_ERROR_INVALID_DATA, &err);
    assert_string_equal(err.message, "cnj: hierarchy[1]: parent 1 is not below own index 1");
}

static void writer_refuses_invalid_data(void **state)
{
    (void)state;
    cna_mat4 m[1];
    cna_mat4_identity(&m[0]);
    int32_t h[1] = {-1};
    cna_skinning_data d = cna_skinning_data_make(1, h, m, m);
    d.bind_pose_count = 0;
    char *text = NULL;
    size_t size = 0;
    cna_error err;
    assert_int_equal(cna_cnj_write_memory(&d, NULL, &text, &size, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_null(text);
    assert_string_equal(err.message, "cnj write: bind_pose_count: 0 differs from bone_count 1");
}

typedef struct failing_alloc {
    long left;
    long live;
} failing_alloc;

static void *fa_alloc(void *user, size_t size)
{
    failing_alloc *f = user;
    if (f->left == 0) return NULL;
    if (f->left > 0) f->left--;
    void *p = malloc(size ? size : 1);
    if (p) f->live++;
    return p;
}

static void fa_free(void *user, void *ptr)
{
    failing_alloc *f = user;
    f->live--;
    free(ptr);
}

static void every_allocation_failure_is_clean(void **state)
{
    (void)state;
    char *text = chain_text(4, true);
    bool read = false, written = false;
    for (long n = 0; !(read && written) && n < 100; n++) {
        failing_alloc f = {n, 0};
        cna_allocator a = {fa_alloc, fa_free, &f};
        cna_cnj_skeleton *s = NULL;
        cna_error err;
        cna_result r = cna_cnj_read_memory(text, strlen(text), &a, &s, &err);
        if (r == CNA_OK) {
            read = true;
            char *out = NULL;
            size_t size = 0;
            failing_alloc g = {n, 0};
            cna_allocator b = {fa_alloc, fa_free, &g};
            r = cna_cnj_write_memory(cna_cnj_skeleton_data(s), &b, &out, &size, &err);
            if (r == CNA_OK) written = true;
            else assert_int_equal(r, CNA_ERROR_OUT_OF_MEMORY);
            cna_cnj_text_free(&b, out);
            assert_int_equal(g.live, 0);
            cna_cnj_skeleton_free(s);
        } else {
            assert_int_equal(r, CNA_ERROR_OUT_OF_MEMORY);
            assert_null(s);
        }
        assert_int_equal(f.live, 0);
    }
    assert_true(read && written);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_is_bit_identical_on_robot_expressive),
        cmocka_unit_test(file_round_trip_matches_memory),
#ifndef _WIN32 /* glibc's locales, made with localedef */
        cmocka_unit_test(a_decimal_comma_locale_writes_the_same_bytes),
#endif
        cmocka_unit_test(zero_bones_are_accepted),
        cmocka_unit_test(one_hundred_thousand_bones_are_accepted),
        cmocka_unit_test(one_hundred_thousand_and_one_bones_are_refused_with_the_count),
        cmocka_unit_test(negative_bone_count_is_refused_with_the_count),
        cmocka_unit_test(old_two_block_sidecar_reads_prefix_as_identity),
        cmocka_unit_test(truncated_sidecars_are_refused),
        cmocka_unit_test(garbled_json_is_refused),
        cmocka_unit_test(a_nul_character_in_a_string_is_refused_naming_it),
        cmocka_unit_test(wrong_array_lengths_are_refused_with_the_counts),
        cmocka_unit_test(non_finite_numbers_and_bad_parents_are_refused),
        cmocka_unit_test(writer_refuses_invalid_data),
        cmocka_unit_test(every_allocation_failure_is_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
