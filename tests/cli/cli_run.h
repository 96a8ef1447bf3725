/*
 * Running the built `cna` tool from a test (tests/cli/): its exit code and
 * its whole stdout and stderr, captured through temporary files (no pipe can
 * fill up). A run that has not finished after CLI_RUN_DEADLINE_MS (define
 * it before including; default 300000) is killed and fails the test: a
 * command that blocks is a defect, not a hang of the suite.
 */
#ifndef CNA_TESTS_CLI_RUN_H
#define CNA_TESTS_CLI_RUN_H

#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CNA_EXE
#define CNA_EXE CNA_BINARY_DIR "/cna"
#endif
#ifndef CLI_RUN_DEADLINE_MS
#define CLI_RUN_DEADLINE_MS 300000
#endif

extern char **environ;

/* What one run of the tool produced. */
typedef struct run_result {
    int exit_code;  /* -1 when it did not exit normally */
    char *out;      /* whole stdout, NUL-terminated */
    char *err;      /* whole stderr, NUL-terminated */
} run_result;

/* The whole content of a temporary file (from its start); owned. */
static char *cli_slurp_fd(int fd)
{
    assert_true(lseek(fd, 0, SEEK_SET) == 0);
    size_t cap = 4096, len = 0;
    char *buf = (char *)malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            buf = (char *)realloc(buf, cap);
            assert_non_null(buf);
        }
        ssize_t got = read(fd, buf + len, cap - 1 - len);
        assert_true(got >= 0);
        if (got == 0) break;
        len += (size_t)got;
    }
    buf[len] = '\0';
    return buf;
}

/* A temporary file, already unlinked; its descriptor. */
static int cli_temp_fd(void)
{
    char name[] = "/tmp/cna-test-cli-XXXXXX";
    int fd = mkstemp(name);
    assert_true(fd >= 0);
    unlink(name);
    return fd;
}

/* Runs `cna` with the NULL-terminated arguments (after argv[0]). */
static run_result run_cna(const char *first, ...)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)CNA_EXE;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *)) argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    int out_fd = cli_temp_fd(), err_fd = cli_temp_fd();
    posix_spawn_file_actions_t actions;
    assert_int_equal(posix_spawn_file_actions_init(&actions), 0);
    posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
    pid_t pid;
    int rc = posix_spawn(&pid, CNA_EXE, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) fail_msg("cannot run %s (build the cna_tool target): %s", CNA_EXE, strerror(rc));
    int status = 0;
    long waited_ms = 0;
    pid_t done;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && waited_ms < CLI_RUN_DEADLINE_MS) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        waited_ms++;
    }
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        fail_msg("cna %s %s did not finish within %d ms (blocked?)", argv[1], argc > 2 ? argv[2] : "",
                 CLI_RUN_DEADLINE_MS);
    }
    assert_int_equal(done, pid);
    run_result res = {WIFEXITED(status) ? WEXITSTATUS(status) : -1, cli_slurp_fd(out_fd), cli_slurp_fd(err_fd)};
    close(out_fd);
    close(err_fd);
    return res;
}

static void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
}

#endif
