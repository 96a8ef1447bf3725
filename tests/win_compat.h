/*
 * The few POSIX calls the tests use that Windows (MinGW-w64) lacks, for the
 * tests that run there (scripts/build-windows.sh): mkdir with a mode, lstat
 * and S_ISLNK (no symbolic links are made by those tests), mkdtemp, alarm
 * (none: the CTest TIMEOUT guards instead). Include it
 * after the system headers. Nothing on other systems.
 */
#ifndef CNA_TESTS_WIN_COMPAT_H
#define CNA_TESTS_WIN_COMPAT_H

#ifdef _WIN32
#include <direct.h>
#include <errno.h>
#include <io.h>
#include <process.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define mkdir(path, mode) ((void)(mode), _mkdir(path))
#define lstat stat
#ifndef S_ISLNK
#define S_ISLNK(mode) ((void)(mode), 0)
#endif

/* mkdtemp: the template's six X replaced, the folder made (under wine, "/tmp/..." is the
 * build machine's /tmp). */
static inline char *cna_test_mkdtemp(char *template_path)
{
    size_t n = strlen(template_path);
    if (n < 6 || strcmp(template_path + n - 6, "XXXXXX") != 0) {
        errno = EINVAL;
        return NULL;
    }
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned counter;
    for (int attempt = 0; attempt < 1000; attempt++) {
        unsigned x = ((unsigned)_getpid() << 16) ^ (++counter * 2654435761u) ^ (unsigned)attempt;
        for (int i = 0; i < 6; i++, x /= 36) template_path[n - 6 + (size_t)i] = letters[x % 36];
        if (_mkdir(template_path) == 0) return template_path;
        if (errno != EEXIST) return NULL;
    }
    return NULL;
}
#define mkdtemp cna_test_mkdtemp

/* No alarm(): a test that blocks is ended by its CTest TIMEOUT instead. */
static inline unsigned cna_test_no_alarm(unsigned seconds) { return (void)seconds, 0u; }
#define alarm cna_test_no_alarm
#endif

#endif
