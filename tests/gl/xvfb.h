/*
 * Xvfb for the tests that run `cna view` in a real window: start a virtual X
 * server on the first free display from :97 (-nolisten tcp) and stop it.
 * Header-only; include after <cmocka.h> (a test fails, never skips, when Xvfb
 * cannot be started: scripts/setup.sh installs it).
 */
#ifndef CNA_TESTS_GL_XVFB_H
#define CNA_TESTS_GL_XVFB_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Start Xvfb on a display it chooses itself (-displayfd: the server takes the
 * first free one atomically and writes its number to a pipe, so tests
 * running at the same time never share or race for a display); returns its
 * pid and sets *display. */
static pid_t start_xvfb(int *display)
{
    const char *candidates[] = {"/usr/bin/Xvfb", "/usr/local/bin/Xvfb"};
    const char *xvfb = NULL;
    for (size_t i = 0; i < 2 && !xvfb; i++)
        if (exists(candidates[i])) xvfb = candidates[i];
    if (!xvfb) fail_msg("Xvfb is not installed (scripts/setup.sh installs xvfb)");
    int fds[2];
    if (pipe(fds) != 0) fail_msg("pipe: %s", strerror(errno));
    char fd_text[16];
    snprintf(fd_text, sizeof fd_text, "%d", fds[1]);
    char *argv[] = {(char *)xvfb, (char *)"-displayfd", fd_text, (char *)"-nolisten", (char *)"tcp",
                    (char *)"-screen", (char *)"0", (char *)"640x480x24", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, xvfb, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        fail_msg("posix_spawn %s: %s", xvfb, strerror(rc));
    }
    /* the server writes "N\n" once it accepts connections on :N */
    char text[32] = {0};
    size_t got = 0;
    while (got < sizeof text - 1) {   /* read blocks until the server writes or exits */
        ssize_t n = read(fds[0], text + got, sizeof text - 1 - got);
        if (n > 0) {
            got += (size_t)n;
            if (memchr(text, '\n', got)) break;
        } else if (n == 0) {
            break;   /* the server exited without a display */
        } else if (errno != EINTR) {
            break;
        }
    }
    close(fds[0]);
    char *end = NULL;
    long d = strtol(text, &end, 10);
    if (got == 0 || end == text || d < 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        fail_msg("Xvfb did not report a display (got \"%s\")", text);
    }
    *display = (int)d;
    return pid;
}

static void stop_xvfb(pid_t pid)
{
    kill(pid, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
}

#endif
