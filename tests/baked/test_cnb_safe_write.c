/*
 * cna_cnb_write_file and cna_cnj_write_file never lose the file they
 * replace: a write failing at any step (the core's test hook) leaves the
 * previous file byte for byte and no temporary file; a process killed at any
 * step of writing a 1.9 MB .cnb (stopped from the hook with _exit, or killed
 * by its parent while it waits there: SIGKILL, TerminateProcess on Windows)
 * leaves the previous file whole and at most one temporary file, which the
 * next write ignores. The writing process is this program started again
 * with "--child STEP NTH exit|wait" (support/proc.h).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cnb_test.h"
#include "core/internal.h"
#include "support/proc.h"
#include "win_compat.h"
#ifdef _WIN32
#include <windows.h>
#endif

#define WORK CNA_BINARY_DIR "/test_cnb_safe_write.tmp"
#define TARGET WORK "/t.cnb"
#define TEMP_PREFIX ".t.cnb."
#define SELF CNA_BINARY_DIR "/tests/test_cnb_safe_write" CNA_TEST_EXE_SUFFIX

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
    cna__file_set_test_hook(NULL, NULL);
    cna_test_remove_tree(WORK);
    return 0;
}

/* The names in WORK, sorted by byte value (dot files first), into names[]; the count. */
static int list_work(char names[][64], int max)
{
    char *list = cna_test_list_dir(WORK);
    int count = 0;
    for (char *p = list, *space; (space = strchr(p, ' ')) != NULL; p = space + 1) {
        assert_true(count < max);
        assert_true((size_t)(space - p) < 64);
        memcpy(names[count], p, (size_t)(space - p));
        names[count++][space - p] = '\0';
    }
    free(list);
    return count;
}

static void assert_file_is(const char *path, const void *bytes, size_t size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *got = malloc(size + 1);
    assert_non_null(got);
    size_t n = fread(got, 1, size + 1, f);
    fclose(f);
    assert_int_equal(n, size);
    assert_memory_equal(got, bytes, size);
    free(got);
}

static void write_cnb(const cna_model *m, float unit_scale)
{
    cna_cnb_write_options o;
    memset(&o, 0, sizeof o);
    o.unit_scale = unit_scale;
    cna_error err;
    assert_int_equal(cna_cnb_write_file(m, &o, TARGET, &err), CNA_OK);
}

typedef struct fault {
    cna__file_step step;
    int nth, error, calls;
} fault;

static int fault_hook(void *user_data, cna__file_step step, const char *temp)
{
    (void)temp;
    fault *f = (fault *)user_data;
    return step == f->step && ++f->calls == f->nth ? f->error : 0;
}

static const struct {
    cna__file_step step;
    int nth, error;
    const char *message;
} faults[] = {
    {CNA__FILE_STEP_OPEN, 1, ENOSPC, "cannot create a temporary file in \"" WORK "\": No space left on device"},
    {CNA__FILE_STEP_WRITE, 1, ENOSPC, "write failed: No space left on device"},
    {CNA__FILE_STEP_WRITE, 2, ENOSPC, "write failed: No space left on device"},
    {CNA__FILE_STEP_SYNC, 1, EIO, "write failed: Input/output error"},
    {CNA__FILE_STEP_CLOSE, 1, EIO, "write failed: Input/output error"},
    {CNA__FILE_STEP_RENAME, 1, EPERM, "rename failed: Operation not permitted"},
};
#define FAULT_COUNT (sizeof faults / sizeof faults[0])

static void a_failing_cnb_write_leaves_the_previous_file_and_no_temporary_file(void **state)
{
    (void)state;
    cna_model *m = cnb_test_import(&cnb_corpus[5], CNA_CLIP_MODE_FAITHFUL); /* RobotExpressive */
    size_t old_size = 0;
    void *old_bytes = cnb_test_bake(m, 1.0f, &old_size);
    assert_true(old_size > CNA__FILE_WRITE_CHUNK); /* two writes: the second one can fail */
    for (size_t i = 0; i < FAULT_COUNT; i++) {
        write_cnb(m, 1.0f);
        fault f = {faults[i].step, faults[i].nth, faults[i].error, 0};
        cna__file_set_test_hook(fault_hook, &f);
        cna_cnb_write_options o;
        memset(&o, 0, sizeof o);
        o.unit_scale = 2.0f;
        cna_error err;
        assert_int_equal(cna_cnb_write_file(m, &o, TARGET, &err), CNA_ERROR_IO);
        cna__file_set_test_hook(NULL, NULL);
        char expected[1024];
        snprintf(expected, sizeof expected, "%s: %s", TARGET, faults[i].message);
        assert_string_equal(err.message, expected);
        assert_int_equal(f.calls, f.nth);
        assert_file_is(TARGET, old_bytes, old_size);
        char names[4][64];
        assert_int_equal(list_work(names, 4), 1);
        assert_string_equal(names[0], "t.cnb");
    }
    cna_cnb_bytes_free(NULL, old_bytes);
    cna_model_free(m);
}

static void a_failing_cnj_write_leaves_the_previous_file_and_no_temporary_file(void **state)
{
    (void)state;
    cna_model *m = cnb_test_import(&cnb_corpus[5], CNA_CLIP_MODE_FAITHFUL);
    cna_error err;
    char *text = NULL;
    size_t size = 0;
    assert_int_equal(cna_cnj_write_memory(&m->skins[0].data, NULL, &text, &size, &err), CNA_OK);
    assert_int_equal(cna_cnj_write_file(WORK "/s.cnj", &m->skins[0].data, &err), CNA_OK);
    assert_file_is(WORK "/s.cnj", text, size);
    const cna_skinning_data *d = &m->skins[0].data; /* a different, valid skeleton: the root alone */
    cna_skinning_data other = cna_skinning_data_make(1, d->hierarchy, d->bind_pose, d->inverse_bind_pose);
    for (size_t i = 0; i < FAULT_COUNT; i++) {
        if (faults[i].step == CNA__FILE_STEP_WRITE && faults[i].nth > 1) continue; /* one write: no second */
        fault f = {faults[i].step, faults[i].nth, faults[i].error, 0};
        cna__file_set_test_hook(fault_hook, &f);
        assert_int_equal(cna_cnj_write_file(WORK "/s.cnj", &other, &err), CNA_ERROR_IO);
        cna__file_set_test_hook(NULL, NULL);
        char expected[1024];
        snprintf(expected, sizeof expected, "%s: %s", WORK "/s.cnj", faults[i].message);
        assert_string_equal(err.message, expected);
        assert_file_is(WORK "/s.cnj", text, size);
        char names[4][64];
        assert_int_equal(list_work(names, 4), 1);
        assert_string_equal(names[0], "s.cnj");
    }
    assert_int_equal(cna_cnj_write_file(WORK "/s.cnj", &other, &err), CNA_OK);
    cna_cnj_skeleton *s = NULL;
    assert_int_equal(cna_cnj_read_file(WORK "/s.cnj", NULL, &s, &err), CNA_OK);
    assert_int_equal(cna_cnj_skeleton_data(s)->bone_count, 1);
    cna_cnj_skeleton_free(s);
    cna_cnj_text_free(NULL, text);
    cna_model_free(m);
}

/* In the child: at the nth call of `step`, stop: _exit(3), or tell the
 * parent (one byte on stdout, a pipe) and wait there to be killed. */
typedef struct stop {
    cna__file_step step;
    int nth, calls;
    bool wait; /* false: _exit */
} stop;

static int stop_hook(void *user_data, cna__file_step step, const char *temp)
{
    (void)temp;
    stop *s = (stop *)user_data;
    if (step != s->step || ++s->calls != s->nth) return 0;
    if (!s->wait) _exit(3);
    if (fputc('k', stdout) == EOF || fflush(stdout) != 0) _exit(4);
    for (;;) {
#ifdef _WIN32
        Sleep(INFINITE);
#else
        pause();
#endif
    }
}

/* The child: "--child STEP NTH exit|wait": writes the .cnb of unit scale 2, stopped by the hook. */
static int child_main(char **argv)
{
    stop s = {(cna__file_step)atoi(argv[2]), atoi(argv[3]), 0, strcmp(argv[4], "wait") == 0};
    cna_model *m = cnb_test_import(&cnb_corpus[5], CNA_CLIP_MODE_FAITHFUL);
    cna__file_set_test_hook(stop_hook, &s);
    cna_cnb_write_options o;
    memset(&o, 0, sizeof o);
    o.unit_scale = 2.0f;
    cna_error err;
    cna_cnb_write_file(m, &o, TARGET, &err);
    return 0; /* never reached: the hook stops the write */
}

static void a_killed_cnb_write_leaves_the_old_file_whole_and_the_next_write_ignores_its_temporary_file(void **state)
{
    (void)state;
    cna_model *m = cnb_test_import(&cnb_corpus[5], CNA_CLIP_MODE_FAITHFUL);
    size_t old_size = 0, new_size = 0;
    void *old_bytes = cnb_test_bake(m, 1.0f, &old_size);
    void *new_bytes = cnb_test_bake(m, 2.0f, &new_size);
    assert_true(new_size > CNA__FILE_WRITE_CHUNK);
    static const struct {
        cna__file_step step;
        int nth;
    } points[] = {
        {CNA__FILE_STEP_OPEN, 1},  {CNA__FILE_STEP_WRITE, 1}, {CNA__FILE_STEP_WRITE, 2},
        {CNA__FILE_STEP_SYNC, 1},  {CNA__FILE_STEP_CLOSE, 1}, {CNA__FILE_STEP_RENAME, 1},
    };
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
        for (int kill9 = 0; kill9 < 2; kill9++) {
            write_cnb(m, 1.0f);
            char step[16], nth[16];
            snprintf(step, sizeof step, "%d", (int)points[i].step);
            snprintf(nth, sizeof nth, "%d", points[i].nth);
            const char *argv[] = {SELF, "--child", step, nth, kill9 ? "wait" : "exit", NULL};
            cna_test_child child;
            cna_test_child_start(&child, argv, true);
            cna_test_status status;
            cna_test_output output;
            if (kill9) {
                char c = 0;
                assert_int_equal(cna_test_child_read(&child, &c, 1), 1);
                assert_int_equal(c, 'k');
                cna_test_child_kill(&child);
                status = cna_test_child_wait(&child, 300000, &output);
                assert_true(status.killed);
                assert_false(status.exited);
#ifndef _WIN32
                assert_int_equal(status.signal, SIGKILL);
#endif
            } else {
                status = cna_test_child_wait(&child, 300000, &output);
                assert_true(status.exited);
                assert_int_equal(status.exit_code, 3);
            }
            assert_string_equal(output.err, "");
            cna_test_output_free(&output);
            /* The old file, whole; a temporary file once it was created. */
            assert_file_is(TARGET, old_bytes, old_size);
            char names[4][64];
            int n = list_work(names, 4);
            bool created = points[i].step != CNA__FILE_STEP_OPEN;
            assert_int_equal(n, created ? 2 : 1);
            assert_string_equal(names[n - 1], "t.cnb");
            char leftover[128] = "";
            if (created) {
                assert_int_equal(strncmp(names[0], TEMP_PREFIX, strlen(TEMP_PREFIX)), 0);
                assert_int_equal(strlen(names[0]), strlen(TEMP_PREFIX) + 6);
                snprintf(leftover, sizeof leftover, "%s/%s", WORK, names[0]);
                if (points[i].step == CNA__FILE_STEP_RENAME) assert_file_is(leftover, new_bytes, new_size);
            }
            /* The next write replaces the file and leaves the leftover alone. */
            write_cnb(m, 2.0f);
            assert_file_is(TARGET, new_bytes, new_size);
            char after[4][64];
            assert_int_equal(list_work(after, 4), n);
            if (created) {
                assert_string_equal(after[0], names[0]);
                assert_int_equal(unlink(leftover), 0);
            }
        }
    }
    cna_cnb_bytes_free(NULL, old_bytes);
    cna_cnb_bytes_free(NULL, new_bytes);
    cna_model_free(m);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--child") == 0) return child_main(argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_failing_cnb_write_leaves_the_previous_file_and_no_temporary_file, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_failing_cnj_write_leaves_the_previous_file_and_no_temporary_file, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            a_killed_cnb_write_leaves_the_old_file_whole_and_the_next_write_ignores_its_temporary_file, setup,
            teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
