/*
 * Running the built `cna` tool from a test (tests/cli/): its exit code and
 * its whole stdout and stderr (support/proc.h: posix_spawn on POSIX,
 * CreateProcessW on Windows; captured through temporary files, so no pipe
 * can fill up). A run that has not finished after CLI_RUN_DEADLINE_MS
 * (define it before including; default 300000) is killed and fails the
 * test: a command that blocks is a defect, not a hang of the suite.
 */
#ifndef CNA_TESTS_CLI_RUN_H
#define CNA_TESTS_CLI_RUN_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "support/proc.h"
#include "win_compat.h"

#ifndef CNA_EXE
#define CNA_EXE CNA_BINARY_DIR "/cna" CNA_TEST_EXE_SUFFIX
#endif
#ifndef CLI_RUN_DEADLINE_MS
#define CLI_RUN_DEADLINE_MS 300000
#endif

/* What one run of the tool produced. */
typedef struct run_result {
    int exit_code;  /* -1 when it did not exit normally */
    char *out;      /* whole stdout, NUL-terminated */
    char *err;      /* whole stderr, NUL-terminated */
} run_result;

/* Runs `cna` with the NULL-terminated arguments (after argv[0]). */
static run_result run_cna(const char *first, ...)
{
    const char *argv[32];
    int argc = 0;
    argv[argc++] = CNA_EXE;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *)) argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    cna_test_output o = cna_test_run(argv, CLI_RUN_DEADLINE_MS);
    run_result res = {o.exit_code, o.out, o.err};
    return res;
}

static void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
}

#endif
