/*
 * Atomic file writes (core/internal.h): the new file appears whole, with the
 * umask's mode; a failure at any step (made through the test hook) leaves the
 * previous file byte for byte and no temporary file in the folder; the
 * streaming writer, a symbolic link, a loop of links (refused, kept), a
 * folder, a full device (/dev/full), a pipe and a FIFO (written in place).
 * On Windows (run under wine): the same steps through the Win32 calls, a
 * destination held open without delete sharing (the rename fails, the file
 * stays whole), the device NUL (written in place) and a UTF-8 name.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _WIN32
#include <windows.h>
#endif

#include <cmocka.h>

#include "core/internal.h"
#include "win_compat.h"

#define WORK CNA_BINARY_DIR "/test_file_write.tmp"
#define TARGET WORK "/t.bin"

#ifdef _WIN32
/* rm -rf of a folder holding files and folders only (no links on Windows), by
 * wide names (a UTF-8 name has none in the system's code page), beyond MAX_PATH. */
static int remove_tree_wide(const wchar_t *path)
{
    wchar_t pattern[1024];
    _snwprintf(pattern, 1024, L"%ls\\*", path);
    WIN32_FIND_DATAW found;
    HANDLE h = FindFirstFileW(pattern, &found);
    if (h == INVALID_HANDLE_VALUE) return GetLastError() == ERROR_PATH_NOT_FOUND ? 0 : -1;
    int r = 0;
    do {
        if (wcscmp(found.cFileName, L".") == 0 || wcscmp(found.cFileName, L"..") == 0) continue;
        wchar_t child[1024];
        _snwprintf(child, 1024, L"%ls\\%ls", path, found.cFileName);
        if (found.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) r |= remove_tree_wide(child);
        else r |= DeleteFileW(child) ? 0 : -1;
    } while (FindNextFileW(h, &found));
    FindClose(h);
    return r | (RemoveDirectoryW(path) ? 0 : -1);
}

static int remove_tree(const char *path)
{
    char full[1024];
    snprintf(full, sizeof full, "%s", path);
    for (char *c = full; *c; c++)
        if (*c == '/') *c = '\\';
    wchar_t *wide = cna__win32_wide_path(full);
    if (!wide) return -1;
    /* a short path: made long by hand, so that the names below it may pass MAX_PATH */
    wchar_t buf[1100];
    if (wcsncmp(wide, L"\\\\?\\", 4) != 0) {
        wchar_t abs[1024];
        GetFullPathNameW(wide, 1024, abs, NULL);
        _snwprintf(buf, 1100, L"\\\\?\\%ls", abs);
    } else {
        _snwprintf(buf, 1100, L"%ls", wide);
    }
    free(wide);
    return remove_tree_wide(buf);
}
#endif

static int setup(void **state)
{
    (void)state;
#ifdef _WIN32
    return remove_tree(WORK) == 0 && mkdir(WORK, 0777) == 0 ? 0 : -1;
#else
    return system("rm -rf " WORK " && mkdir -p " WORK) == 0 ? 0 : -1;
#endif
}

static int teardown(void **state)
{
    (void)state;
    cna__file_set_test_hook(NULL, NULL);
#ifdef _WIN32
    return remove_tree(WORK) == 0 ? 0 : -1;
#else
    return system("rm -rf " WORK) == 0 ? 0 : -1;
#endif
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every name in WORK (without . and ..), sorted, joined by spaces. */
static void list_work(char *out, size_t size)
{
    char *names[64];
    size_t n = 0;
    DIR *d = opendir(WORK);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        assert_true(n < sizeof names / sizeof names[0]);
        names[n] = strdup(e->d_name);
        assert_non_null(names[n]);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof names[0], compare_names);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (out[0]) strncat(out, " ", size - strlen(out) - 1);
        strncat(out, names[i], size - strlen(out) - 1);
        free(names[i]);
    }
}

/* The whole file, read through the library's own reader (UTF-8 paths on Windows too). */
static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = NULL;
    uint64_t n = 0;
    assert_int_equal(cna__file_open_regular(path, &f, &n), 0);
    unsigned char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return b;
}

static void assert_file_is(const char *path, const void *bytes, size_t size)
{
    size_t n = 0;
    unsigned char *got = slurp(path, &n);
    assert_int_equal(n, size);
    assert_memory_equal(got, bytes, size);
    free(got);
}

/* Bytes i * 7 + seed, deterministic. */
static unsigned char *pattern(size_t size, unsigned seed)
{
    unsigned char *b = malloc(size);
    assert_non_null(b);
    for (size_t i = 0; i < size; i++) b[i] = (unsigned char)(i * 7u + seed);
    return b;
}

static void write_ok(const char *path, const void *bytes, size_t size)
{
    cna_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(cna__file_write(path, bytes, size, NULL, &err), CNA_OK);
}

#ifndef _WIN32
static mode_t mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_mode & 07777;
}
#endif

/* (Windows files have no mode: there only the contents are checked.) */
static void new_file_is_whole_and_gets_the_umask_mode(void **state)
{
    (void)state;
    char names[512];
#ifndef _WIN32
    mode_t old = umask(022);
#endif
    write_ok(TARGET, "abc", 3);
    assert_file_is(TARGET, "abc", 3);
#ifndef _WIN32
    assert_int_equal(mode_of(TARGET), 0644);
    umask(077);
#endif
    write_ok(TARGET, "defg", 4); /* replaced: the new file's mode, not the old one's */
    assert_file_is(TARGET, "defg", 4);
#ifndef _WIN32
    assert_int_equal(mode_of(TARGET), 0600);
    umask(old);
#endif
    list_work(names, sizeof names);
    assert_string_equal(names, "t.bin");
    write_ok(TARGET, "", 0);
    assert_file_is(TARGET, "", 0);
}

/* Fails the `nth` call (1-based) of `step` with `error`; counts every step. */
typedef struct fault {
    cna__file_step step;
    int nth, error;
    int calls[CNA__FILE_STEP_COUNT];
    char temp[4096];
} fault;

static int fault_hook(void *user_data, cna__file_step step, const char *temp)
{
    fault *f = (fault *)user_data;
    f->calls[step]++;
    snprintf(f->temp, sizeof f->temp, "%s", temp);
    return step == f->step && f->calls[step] == f->nth ? f->error : 0;
}

static void a_failing_step_leaves_the_previous_file_and_no_temporary_file(void **state)
{
    (void)state;
    static const struct {
        cna__file_step step;
        int nth, error;
        const char *message;
    } cases[] = {
        {CNA__FILE_STEP_OPEN, 1, EACCES,
         TARGET ": cannot create a temporary file in \"" WORK "\": Permission denied"},
        {CNA__FILE_STEP_WRITE, 1, ENOSPC, TARGET ": write failed: No space left on device"},
        {CNA__FILE_STEP_WRITE, 2, ENOSPC, TARGET ": write failed: No space left on device"},
        {CNA__FILE_STEP_WRITE, 3, EIO, TARGET ": write failed: Input/output error"},
        {CNA__FILE_STEP_SYNC, 1, EIO, TARGET ": write failed: Input/output error"},
#ifdef EDQUOT
        {CNA__FILE_STEP_CLOSE, 1, EDQUOT, TARGET ": write failed: Disk quota exceeded"},
#else /* Windows */
        {CNA__FILE_STEP_CLOSE, 1, ENOSPC, TARGET ": write failed: No space left on device"},
#endif
        {CNA__FILE_STEP_RENAME, 1, EACCES, TARGET ": rename failed: Permission denied"},
    };
    const size_t old_size = 1000, new_size = 2 * CNA__FILE_WRITE_CHUNK + 12345; /* three writes */
    unsigned char *old_bytes = pattern(old_size, 1), *new_bytes = pattern(new_size, 2);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_ok(TARGET, old_bytes, old_size);
        fault f;
        memset(&f, 0, sizeof f);
        f.step = cases[i].step;
        f.nth = cases[i].nth;
        f.error = cases[i].error;
        cna__file_set_test_hook(fault_hook, &f);
        cna_error err;
        memset(&err, 0, sizeof err);
        assert_int_equal(cna__file_write(TARGET, new_bytes, new_size, NULL, &err), CNA_ERROR_IO);
        cna__file_set_test_hook(NULL, NULL);
        assert_int_equal(err.code, CNA_ERROR_IO);
        assert_string_equal(err.message, cases[i].message);
        assert_int_equal(f.calls[f.step], f.nth);
        /* the temporary file was beside the target, named after it */
        assert_int_equal(strncmp(f.temp, WORK "/.t.bin.", strlen(WORK "/.t.bin.")), 0);
        assert_int_equal(strlen(f.temp), strlen(WORK "/.t.bin.") + 6);
        assert_file_is(TARGET, old_bytes, old_size);
        char names[512];
        list_work(names, sizeof names);
        assert_string_equal(names, "t.bin");
    }
    /* Without a fault every step runs once per chunk or once. */
    fault f;
    memset(&f, 0, sizeof f);
    f.step = CNA__FILE_STEP_COUNT;
    cna__file_set_test_hook(fault_hook, &f);
    write_ok(TARGET, new_bytes, new_size);
    cna__file_set_test_hook(NULL, NULL);
    assert_int_equal(f.calls[CNA__FILE_STEP_OPEN], 1);
    assert_int_equal(f.calls[CNA__FILE_STEP_WRITE], 3);
    assert_int_equal(f.calls[CNA__FILE_STEP_SYNC], 1);
    assert_int_equal(f.calls[CNA__FILE_STEP_CLOSE], 1);
    assert_int_equal(f.calls[CNA__FILE_STEP_RENAME], 1);
    assert_file_is(TARGET, new_bytes, new_size);
    free(old_bytes);
    free(new_bytes);
}

static void a_new_file_that_fails_is_not_created(void **state)
{
    (void)state;
    fault f;
    memset(&f, 0, sizeof f);
    f.step = CNA__FILE_STEP_RENAME;
    f.nth = 1;
    f.error = EIO;
    cna__file_set_test_hook(fault_hook, &f);
    cna_error err;
    assert_int_equal(cna__file_write(WORK "/new.bin", "xyz", 3, NULL, &err), CNA_ERROR_IO);
    cna__file_set_test_hook(NULL, NULL);
    assert_string_equal(err.message, WORK "/new.bin: rename failed: Input/output error");
    char names[512];
    list_work(names, sizeof names);
    assert_string_equal(names, "");
}

static void streaming_writes_arrive_in_order_and_a_failed_one_fails_the_commit(void **state)
{
    (void)state;
    unsigned char *bytes = pattern(300000, 3);
    /* small pieces (buffered), one piece larger than the buffer, small again */
    static const size_t pieces[] = {1, 100, 5000, 70000, 200000, 24899};
    cna__file_writer w;
    cna_error err;
    assert_int_equal(cna__file_writer_open(&w, TARGET, NULL, &err), CNA_OK);
    size_t at = 0;
    for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
        assert_int_equal(cna__file_writer_write(&w, bytes + at, pieces[i], &err), CNA_OK);
        at += pieces[i];
    }
    assert_int_equal(at, 300000);
    assert_int_equal(cna__file_writer_commit(&w, &err), CNA_OK);
    cna__file_writer_abort(&w); /* after a commit: nothing */
    assert_file_is(TARGET, bytes, 300000);

    /* a failed write: later writes and the commit repeat its error */
    fault f;
    memset(&f, 0, sizeof f);
    f.step = CNA__FILE_STEP_WRITE;
    f.nth = 1;
    f.error = ENOSPC;
    cna__file_set_test_hook(fault_hook, &f);
    assert_int_equal(cna__file_writer_open(&w, TARGET, NULL, &err), CNA_OK);
    assert_int_equal(cna__file_writer_write(&w, bytes, 100000, &err), CNA_ERROR_IO);
    assert_string_equal(err.message, TARGET ": write failed: No space left on device");
    memset(&err, 0, sizeof err);
    assert_int_equal(cna__file_writer_write(&w, bytes, 10, &err), CNA_ERROR_IO);
    assert_string_equal(err.message, TARGET ": write failed: No space left on device");
    memset(&err, 0, sizeof err);
    assert_int_equal(cna__file_writer_commit(&w, &err), CNA_ERROR_IO);
    assert_string_equal(err.message, TARGET ": write failed: No space left on device");
    cna__file_set_test_hook(NULL, NULL);
    assert_file_is(TARGET, bytes, 300000);

    /* abort: the previous file stays, the temporary file goes */
    assert_int_equal(cna__file_writer_open(&w, TARGET, NULL, &err), CNA_OK);
    assert_int_equal(cna__file_writer_write(&w, "zz", 2, &err), CNA_OK);
    cna__file_writer_abort(&w);
    cna__file_writer_abort(&w);
    assert_file_is(TARGET, bytes, 300000);
    char names[512];
    list_work(names, sizeof names);
    assert_string_equal(names, "t.bin");
    free(bytes);
}

#ifndef _WIN32
static void a_symbolic_link_is_followed_and_kept(void **state)
{
    (void)state;
    assert_int_equal(system("mkdir -p " WORK "/real && ln -sf real/file.bin " WORK "/link.bin"), 0);
    write_ok(WORK "/link.bin", "new", 3);
    struct stat st;
    assert_int_equal(lstat(WORK "/link.bin", &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_file_is(WORK "/real/file.bin", "new", 3);
    write_ok(WORK "/link.bin", "newer", 5);
    assert_int_equal(lstat(WORK "/link.bin", &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_file_is(WORK "/real/file.bin", "newer", 5);
    char names[512];
    list_work(names, sizeof names);
    assert_string_equal(names, "link.bin real");
}

#endif

/* A 250-byte name (the system allows 255): the temporary file's name keeps
 * only the first 200 bytes of it, so that it fits too. */
static void a_long_file_name_is_written(void **state)
{
    (void)state;
    char name[251], path[512];
    memset(name, 'n', 250);
    name[250] = '\0';
    snprintf(path, sizeof path, "%s/%s", WORK, name);
    fault f;
    memset(&f, 0, sizeof f);
    f.step = CNA__FILE_STEP_COUNT;
    cna__file_set_test_hook(fault_hook, &f);
    write_ok(path, "long", 4);
    cna__file_set_test_hook(NULL, NULL);
    assert_file_is(path, "long", 4);
    assert_int_equal(strlen(f.temp), strlen(WORK) + 1 + 1 + 200 + 1 + 6);
    char names[512];
    list_work(names, sizeof names);
    assert_string_equal(names, name);
}

static void a_folder_or_a_missing_folder_is_refused(void **state)
{
    (void)state;
    cna_error err;
    assert_int_equal(mkdir(WORK "/dir", 0777), 0);
    assert_int_equal(cna__file_write(WORK "/dir", "x", 1, NULL, &err), CNA_ERROR_IO);
    assert_string_equal(err.message, WORK "/dir: Is a directory");
    assert_int_equal(cna__file_write(WORK "/none/x.bin", "x", 1, NULL, &err), CNA_ERROR_IO);
    assert_string_equal(err.message, WORK "/none/x.bin: cannot create a temporary file in \"" WORK
                                     "/none\": No such file or directory");
    assert_int_equal(cna__file_write(NULL, "x", 1, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    char names[512];
    list_work(names, sizeof names);
    assert_string_equal(names, "dir");
}

#ifndef _WIN32
/* A real full device: written in place (a device is never renamed over),
 * and the system's reason reaches the message. */
static void a_full_device_reports_no_space_left(void **state)
{
    (void)state;
    struct stat st;
    assert_int_equal(stat("/dev/full", &st), 0);
    unsigned char *bytes = pattern(100000, 4);
    cna_error err;
    assert_int_equal(cna__file_write("/dev/full", bytes, 100000, NULL, &err), CNA_ERROR_IO);
    assert_string_equal(err.message, "/dev/full: write failed: No space left on device");
    struct stat after;
    assert_int_equal(stat("/dev/full", &after), 0);
    assert_true(S_ISCHR(after.st_mode));
    assert_int_equal(after.st_rdev, st.st_rdev);
    write_ok("/dev/null", bytes, 100000);
    assert_int_equal(stat("/dev/null", &after), 0);
    assert_true(S_ISCHR(after.st_mode));
    free(bytes);
}

/* A loop of symbolic links (a -> b -> a): ELOOP before anything is created,
 * and both links stay as they were. */
static void a_link_loop_is_refused_and_left_intact(void **state)
{
    (void)state;
    assert_int_equal(system("ln -s b " WORK "/a && ln -s a " WORK "/b"), 0);
    cna_error err;
    assert_int_equal(cna__file_write(WORK "/a", "x", 1, NULL, &err), CNA_ERROR_IO);
    assert_string_equal(err.message, WORK "/a: Too many levels of symbolic links");
    char link[16];
    ssize_t n = readlink(WORK "/a", link, sizeof link);
    assert_int_equal(n, 1);
    assert_int_equal(link[0], 'b');
    n = readlink(WORK "/b", link, sizeof link);
    assert_int_equal(n, 1);
    assert_int_equal(link[0], 'a');
    char names[512];
    list_work(names, sizeof names);
    assert_string_equal(names, "a b");
}

/* A pipe named by the process's descriptor (/dev/fd/N, as /dev/stdout is
 * /dev/fd/1) and a FIFO: written in place, every byte arrives, no file is
 * created; /dev/stdout itself is the tool tests' (tests/baked/test_convert_cli.c). */
static void a_pipe_is_written_in_place(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
    unsigned char *bytes = pattern(3000, 9);
    write_ok(path, bytes, 3000);
    close(fds[1]);
    unsigned char got[4000];
    size_t have = 0;
    for (ssize_t n; (n = read(fds[0], got + have, sizeof got - have)) > 0;) have += (size_t)n;
    close(fds[0]);
    assert_int_equal(have, 3000);
    assert_memory_equal(got, bytes, 3000);
    /* a FIFO with a reader: the bytes reach it, the FIFO stays a FIFO */
    assert_int_equal(mkfifo(WORK "/fifo", 0600), 0);
    int reader = open(WORK "/fifo", O_RDONLY | O_NONBLOCK);
    assert_true(reader >= 0);
    write_ok(WORK "/fifo", bytes, 3000);
    have = 0;
    for (ssize_t n; (n = read(reader, got + have, sizeof got - have)) > 0;) have += (size_t)n;
    close(reader);
    assert_int_equal(have, 3000);
    assert_memory_equal(got, bytes, 3000);
    struct stat st;
    assert_int_equal(lstat(WORK "/fifo", &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    char names[512];
    list_work(names, sizeof names);
    assert_string_equal(names, "fifo");
    free(bytes);
}

#endif

#ifdef _WIN32
/* A destination that another handle holds open without FILE_SHARE_DELETE
 * cannot be replaced: the rename (MoveFileExW) fails for real, the file keeps
 * its bytes, the temporary file is removed; once closed, the write succeeds. */
static void a_file_held_open_is_left_whole(void **state)
{
    (void)state;
    write_ok(TARGET, "old bytes", 9);
    HANDLE h = CreateFileW(L"" WORK "/t.bin", GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    assert_true(h != INVALID_HANDLE_VALUE);
    cna_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(cna__file_write(TARGET, "new", 3, NULL, &err), CNA_ERROR_IO);
    assert_string_equal(err.message, TARGET ": rename failed: Permission denied");
    CloseHandle(h);
    assert_file_is(TARGET, "old bytes", 9);
    char names[512];
    list_work(names, sizeof names);
    assert_string_equal(names, "t.bin");
    write_ok(TARGET, "new", 3);
    assert_file_is(TARGET, "new", 3);
}

/* The device NUL is written in place (a rename cannot replace a device). */
static void the_null_device_is_written_in_place(void **state)
{
    (void)state;
    unsigned char *bytes = pattern(100000, 4);
    write_ok("NUL", bytes, 100000);
    free(bytes);
    char names[512];
    list_work(names, sizeof names);
    assert_string_equal(names, "");
}

/* A UTF-8 name reaches the system as the same characters (CreateFileW). */
static void a_utf8_name_is_written(void **state)
{
    (void)state;
    const char *path = WORK "/\xc3\xbc" "ber-\xe6\xa8\xa1\xe5\x9e\x8b" ".bin"; /* "über-模型.bin" */
    write_ok(path, "utf8", 4);
    assert_file_is(path, "utf8", 4);
    HANDLE h = CreateFileW(L"" WORK L"/\u00fcber-\u6a21\u578b.bin", GENERIC_READ, FILE_SHARE_READ, NULL,
                           OPEN_EXISTING, 0, NULL);
    assert_true(h != INVALID_HANDLE_VALUE);
    CloseHandle(h);
    cna_error err;
    assert_int_equal(cna__file_write(WORK "/bad\xff.bin", "x", 1, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, WORK "/bad?.bin: the path is not valid UTF-8");
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(new_file_is_whole_and_gets_the_umask_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(a_failing_step_leaves_the_previous_file_and_no_temporary_file, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_new_file_that_fails_is_not_created, setup, teardown),
        cmocka_unit_test_setup_teardown(streaming_writes_arrive_in_order_and_a_failed_one_fails_the_commit, setup,
                                        teardown),
#ifndef _WIN32
        cmocka_unit_test_setup_teardown(a_symbolic_link_is_followed_and_kept, setup, teardown),
#endif
        cmocka_unit_test_setup_teardown(a_long_file_name_is_written, setup, teardown),
        cmocka_unit_test_setup_teardown(a_folder_or_a_missing_folder_is_refused, setup, teardown),
#ifndef _WIN32
        cmocka_unit_test_setup_teardown(a_full_device_reports_no_space_left, setup, teardown),
        cmocka_unit_test_setup_teardown(a_link_loop_is_refused_and_left_intact, setup, teardown),
        cmocka_unit_test_setup_teardown(a_pipe_is_written_in_place, setup, teardown),
#else
        cmocka_unit_test_setup_teardown(a_file_held_open_is_left_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(the_null_device_is_written_in_place, setup, teardown),
        cmocka_unit_test_setup_teardown(a_utf8_name_is_written, setup, teardown),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
