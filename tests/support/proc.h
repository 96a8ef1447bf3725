/*
 * Test support: child processes, temporary folders and files, the same calls
 * on POSIX systems and on Windows (where scripts/build-windows.sh runs the
 * tests under wine).
 *
 * A child is started from an argument vector (no shell: no quoting, no
 * redirection): posix_spawn on POSIX, CreateProcessW on Windows (the vector
 * is quoted into a command line by the C runtime's rules, so the child's
 * argv is the vector as given). Its stdin is the null device; its stdout and
 * stderr go to temporary files (no pipe can fill up and block it), or its
 * stdout to a pipe that the test reads while it runs.
 *
 *     const char *argv[] = {CNA_BINARY_DIR "/cna", "version", NULL};
 *     cna_test_output r = cna_test_run(argv, 300000);
 *     assert_int_equal(r.exit_code, 0);
 *     cna_test_output_free(&r);
 *
 * On Windows the C runtime writes text streams with "\r\n" line ends: the
 * captured stdout and stderr are checked to have every '\n' so written, and
 * read back with each "\r\n" as "\n", so that a test compares the same text
 * on every system. A piped stdout (cna_test_child_read) comes as written.
 *
 * A failure of the test's own machinery (a program that cannot be started,
 * a temporary file that cannot be made, a child still running at its
 * deadline) fails the current cmocka test with a message saying which.
 */
#ifndef CNA_TESTS_SUPPORT_PROC_H
#define CNA_TESTS_SUPPORT_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The program file of a test-built executable: "name" on POSIX, "name.exe" on Windows. */
#ifdef _WIN32
#define CNA_TEST_EXE_SUFFIX ".exe"
#else
#define CNA_TEST_EXE_SUFFIX ""
#endif

/* How a child ended. */
typedef struct cna_test_status {
    bool exited;   /* it returned from main or called exit: exit_code holds its status */
    int exit_code; /* 0..255 on POSIX; the 32-bit exit code on Windows; -1 when !exited */
    int signal;    /* POSIX: the signal that ended it (SIGKILL, SIGINT...); 0 otherwise */
    bool killed;   /* ended by cna_test_child_kill (SIGKILL on POSIX; TerminateProcess on
                      Windows with CNA_TEST_KILLED_EXIT_CODE, then exited is false) */
} cna_test_status;

/* The exit code cna_test_child_kill gives a Windows process (TerminateProcess). */
#define CNA_TEST_KILLED_EXIT_CODE 137u

/* What a finished run produced. */
typedef struct cna_test_output {
    int exit_code;  /* its exit status; -1 when it did not exit normally (a signal, a crash) */
    char *out;      /* the whole stdout, NUL-terminated; owned */
    size_t out_size;
    char *err;      /* the whole stderr, NUL-terminated; owned */
    size_t err_size;
} cna_test_output;

/* Runs argv[0] (a path) with argv (NULL-terminated), waits for it at most deadline_ms
 * (then kills it and fails the test: a command that blocks is a defect) and returns its exit
 * status and whole output. A child that crashed (a signal on POSIX, an NTSTATUS exception
 * code such as 0xC0000005 on Windows) has exit_code -1. Free with cna_test_output_free. */
cna_test_output cna_test_run(const char *const *argv, long deadline_ms);
void cna_test_output_free(cna_test_output *r);

/* A started child, for tests that talk to it or stop it while it runs. */
typedef struct cna_test_child {
    void *impl; /* owned; released by cna_test_child_wait */
} cna_test_child;

/* Starts argv[0] with argv. With pipe_stdout its stdout is a pipe read by
 * cna_test_child_read; otherwise it goes to a temporary file returned by
 * cna_test_child_wait. Its stderr always goes to a temporary file. */
void cna_test_child_start(cna_test_child *c, const char *const *argv, bool pipe_stdout);
/* Reads up to `size` bytes of the child's piped stdout; 0 at its end (the child closed it). */
size_t cna_test_child_read(cna_test_child *c, void *buf, size_t size);
/* Ends the child at once (SIGKILL; TerminateProcess). */
void cna_test_child_kill(cna_test_child *c);
#ifndef _WIN32
/* Sends the child SIGINT (POSIX only: a Windows console's Ctrl+C reaches a process group). */
void cna_test_child_interrupt(cna_test_child *c);
#endif
/* Waits for the child to end (failing the test after deadline_ms, the child killed) and
 * releases it; its status, and when `output` is not NULL its captured stdout (empty when
 * piped) and stderr with output->exit_code as in cna_test_run. */
cna_test_status cna_test_child_wait(cna_test_child *c, long deadline_ms, cna_test_output *output);

/* Sets (value not NULL) or removes (NULL) an environment variable of this process, which
 * children inherit. */
void cna_test_setenv(const char *name, const char *value);

/* Makes a new, empty folder "<system temporary folder>/<prefix>XXXXXX" (/tmp on POSIX,
 * GetTempPath on Windows, with '/' separators) into `path`; fails the test if it cannot. */
void cna_test_temp_dir(char *path, size_t size, const char *prefix);
/* Removes `path` and everything under it; a symbolic link is removed, never followed.
 * Nothing there is no error. Fails the test when something stays. */
void cna_test_remove_tree(const char *path);
/* Makes the folder and its missing parents (mkdir -p). */
void cna_test_make_dirs(const char *path);

/* The whole file, NUL-terminated (owned, free()), its size in *size when size is not
 * NULL; NULL when it cannot be opened. */
char *cna_test_read_file(const char *path, size_t *size);
/* Writes (replaces) the file with the bytes; fails the test if it cannot. */
void cna_test_write_file(const char *path, const void *bytes, size_t size);
/* Writes (replaces) a file of `size` bytes whose first `head_size` are `head` and the rest
 * zeros, made by extending the file (ftruncate; SetEndOfFile), so that on file systems that
 * keep holes a file of gigabytes takes no room and no time. */
void cna_test_write_sized(const char *path, const void *head, size_t head_size, uint64_t size);
/* Copies the file `from` to `to` byte for byte. */
void cna_test_copy_file(const char *from, const char *to);
/* Whether the two files have the same bytes (false when either cannot be read). */
bool cna_test_same_file_bytes(const char *a, const char *b);
/* Whether something (a file, a folder, a device) is at `path`. */
bool cna_test_path_exists(const char *path);
/* The path with every symbolic link resolved, absolute, into `out`: realpath on POSIX; on
 * Windows the file's final path (GetFinalPathNameByHandleW) without its "\\?\" prefix and
 * with '/' separators ("C:/Users/..."), as cna reports real paths. Fails the test if it
 * cannot. */
void cna_test_real_path(const char *path, char *out, size_t size);
/* The names in the folder (dot files too, without "." and ".."), sorted by byte value, each
 * followed by one space ("a b.cnb "); owned, free(). */
char *cna_test_list_dir(const char *path);

#ifdef __cplusplus
}
#endif

#endif
