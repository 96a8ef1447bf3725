/*
 * Test support (proc.h): child processes, temporary folders, files; POSIX and Windows.
 */
#ifndef _WIN32
#define _XOPEN_SOURCE 700 /* mkdtemp, mkstemp, setenv, nanosleep, lstat */
#endif
#include "support/proc.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cmocka.h>

#ifdef _WIN32
#include <direct.h>
#include <io.h>
#include <windows.h>
#else
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
extern char **environ;
#endif

#ifdef _WIN32
static wchar_t *wide_from_utf8(const char *s);
#endif

/* ------------------------------------------------------------------ files */

static char *read_all(FILE *f, size_t *size)
{
    size_t cap = 4096, len = 0;
    char *buf = (char *)malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            buf = (char *)realloc(buf, cap);
            assert_non_null(buf);
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0) break;
    }
    buf[len] = '\0';
    if (size) *size = len;
    return buf;
}

char *cna_test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = read_all(f, size);
    fclose(f);
    return text;
}

void cna_test_write_file(const char *path, const void *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) fail_msg("cannot write %s: %s", path, strerror(errno));
    if (size > 0 && fwrite(bytes, 1, size, f) != size) fail_msg("cannot write %s: %s", path, strerror(errno));
    if (fclose(f) != 0) fail_msg("cannot write %s: %s", path, strerror(errno));
}

void cna_test_write_sized(const char *path, const void *head, size_t head_size, uint64_t size)
{
    assert_true(head_size <= size);
    cna_test_write_file(path, head, head_size);
#ifdef _WIN32
    wchar_t *w = wide_from_utf8(path);
    HANDLE h = CreateFileW(w, GENERIC_WRITE, 0, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) fail_msg("cannot open %s (error %lu)", path, GetLastError());
    LARGE_INTEGER at;
    at.QuadPart = (LONGLONG)size;
    BOOL ok = SetFilePointerEx(h, at, NULL, FILE_BEGIN) && SetEndOfFile(h);
    DWORD why = GetLastError();
    CloseHandle(h);
    if (!ok) fail_msg("cannot extend %s to %llu bytes (error %lu)", path, (unsigned long long)size, why);
#else
    if (truncate(path, (off_t)size) != 0)
        fail_msg("cannot extend %s to %llu bytes: %s", path, (unsigned long long)size, strerror(errno));
#endif
}

void cna_test_copy_file(const char *from, const char *to)
{
    size_t size = 0;
    char *bytes = cna_test_read_file(from, &size);
    if (!bytes) fail_msg("cannot read %s: %s", from, strerror(errno));
    cna_test_write_file(to, bytes, size);
    free(bytes);
}

bool cna_test_same_file_bytes(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    char *x = cna_test_read_file(a, &na), *y = cna_test_read_file(b, &nb);
    bool same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

bool cna_test_path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

#ifdef _WIN32
static int make_dir(const char *path) { return _mkdir(path); }
static int remove_dir(const char *path) { return _rmdir(path); }
static int remove_file(const char *path) { return _unlink(path); }
static int stat_no_follow(const char *path, struct stat *st) { return stat(path, st); }
#else
static int make_dir(const char *path) { return mkdir(path, 0777); }
static int remove_dir(const char *path) { return rmdir(path); }
static int remove_file(const char *path) { return unlink(path); }
static int stat_no_follow(const char *path, struct stat *st) { return lstat(path, st); }
#endif

void cna_test_make_dirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    assert_true(n < sizeof buf);
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (i < n && buf[i] != '/' && buf[i] != '\\') continue;
        char c = buf[i];
        buf[i] = '\0';
        bool drive = i == 2 && buf[1] == ':'; /* "C:" */
        if (!drive && make_dir(buf) != 0 && !cna_test_path_exists(buf))
            fail_msg("cannot make the folder %s: %s", buf, strerror(errno));
        buf[i] = c;
    }
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in `path` without "." and "..", sorted; *count of them. */
static char **dir_names(const char *path, size_t *count)
{
    DIR *d = opendir(path);
    if (!d) fail_msg("cannot list %s: %s", path, strerror(errno));
    size_t n = 0, cap = 16;
    char **names = (char **)malloc(cap * sizeof *names);
    assert_non_null(names);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (n == cap) {
            cap *= 2;
            names = (char **)realloc(names, cap * sizeof *names);
            assert_non_null(names);
        }
        size_t len = strlen(e->d_name);
        names[n] = (char *)malloc(len + 1);
        assert_non_null(names[n]);
        memcpy(names[n++], e->d_name, len + 1);
    }
    closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    *count = n;
    return names;
}

char *cna_test_list_dir(const char *path)
{
    size_t n = 0, len = 0;
    char **names = dir_names(path, &n);
    for (size_t i = 0; i < n; i++) len += strlen(names[i]) + 1;
    char *list = (char *)malloc(len + 1);
    assert_non_null(list);
    list[0] = '\0';
    for (size_t i = 0, at = 0; i < n; i++) {
        size_t k = strlen(names[i]);
        memcpy(list + at, names[i], k);
        list[at + k] = ' ';
        at += k + 1;
        list[at] = '\0';
        free(names[i]);
    }
    free(names);
    return list;
}

void cna_test_remove_tree(const char *path)
{
    struct stat st;
    if (stat_no_follow(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        size_t n = 0;
        char **names = dir_names(path, &n);
        for (size_t i = 0; i < n; i++) {
            size_t len = strlen(path) + strlen(names[i]) + 2;
            char *child = (char *)malloc(len);
            assert_non_null(child);
            snprintf(child, len, "%s/%s", path, names[i]);
            cna_test_remove_tree(child);
            free(child);
            free(names[i]);
        }
        free(names);
        if (remove_dir(path) != 0) fail_msg("cannot remove the folder %s: %s", path, strerror(errno));
    } else if (remove_file(path) != 0) {
        fail_msg("cannot remove %s: %s", path, strerror(errno));
    }
}

/* ------------------------------------------------------------------ environment, temporary folders */

void cna_test_setenv(const char *name, const char *value)
{
#ifdef _WIN32
    /* _putenv_s changes the C runtime's copy and the process's (SetEnvironmentVariable), which
     * CreateProcessW hands to children; an empty value removes the variable. */
    assert_int_equal(_putenv_s(name, value ? value : ""), 0);
#else
    if (value)
        assert_int_equal(setenv(name, value, 1), 0);
    else
        assert_int_equal(unsetenv(name), 0);
#endif
}

#ifdef _WIN32
static char *utf8_from_wide(const wchar_t *w)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    assert_true(n > 0);
    char *s = (char *)malloc((size_t)n);
    assert_non_null(s);
    assert_int_equal(WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL), n);
    return s;
}

static wchar_t *wide_from_utf8(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0) fail_msg("'%s' is not UTF-8", s);
    wchar_t *w = (wchar_t *)malloc((size_t)n * sizeof *w);
    assert_non_null(w);
    assert_int_equal(MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n), n);
    return w;
}
#endif

void cna_test_temp_dir(char *path, size_t size, const char *prefix)
{
#ifdef _WIN32
    wchar_t base_w[MAX_PATH + 1];
    DWORD n = GetTempPathW(MAX_PATH + 1, base_w);
    if (n == 0 || n > MAX_PATH) fail_msg("no temporary folder (GetTempPathW: error %lu)", GetLastError());
    char *base = utf8_from_wide(base_w);
    for (char *p = base; *p; p++)
        if (*p == '\\') *p = '/';
    size_t len = strlen(base);
    if (len > 0 && base[len - 1] == '/') base[len - 1] = '\0';
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned counter;
    for (unsigned attempt = 0;; attempt++) {
        unsigned x = ((unsigned)GetCurrentProcessId() << 12) ^ (++counter * 2654435761u) ^ (unsigned)GetTickCount() ^
                     attempt;
        char name[7];
        for (int i = 0; i < 6; i++, x /= 36) name[i] = letters[x % 36];
        name[6] = '\0';
        if (snprintf(path, size, "%s/%s%s", base, prefix, name) >= (int)size) fail_msg("temporary folder name too long");
        wchar_t *w = wide_from_utf8(path);
        BOOL made = CreateDirectoryW(w, NULL);
        DWORD why = GetLastError();
        free(w);
        if (made) break;
        if (why != ERROR_ALREADY_EXISTS || attempt > 1000)
            fail_msg("cannot make a temporary folder %s (error %lu)", path, why);
    }
    free(base);
#else
    if (snprintf(path, size, "/tmp/%sXXXXXX", prefix) >= (int)size) fail_msg("temporary folder name too long");
    if (!mkdtemp(path)) fail_msg("cannot make a temporary folder %s: %s", path, strerror(errno));
#endif
}

void cna_test_real_path(const char *path, char *out, size_t size)
{
#ifdef _WIN32
    wchar_t *w = wide_from_utf8(path);
    HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) fail_msg("cannot open %s (error %lu)", path, GetLastError());
    static wchar_t buf[32768];
    DWORD n = GetFinalPathNameByHandleW(h, buf, 32768, FILE_NAME_NORMALIZED);
    CloseHandle(h);
    if (n == 0 || n >= 32768) fail_msg("no final path for %s", path);
    const wchar_t *start = wcsncmp(buf, L"\\\\?\\", 4) == 0 ? buf + 4 : buf;
    char *utf8 = utf8_from_wide(start);
    for (char *p = utf8; *p; p++)
        if (*p == '\\') *p = '/';
    if (strlen(utf8) >= size) fail_msg("the real path of %s is too long", path);
    memcpy(out, utf8, strlen(utf8) + 1);
    free(utf8);
#else
    char *real = realpath(path, NULL);
    if (!real) fail_msg("no real path for %s: %s", path, strerror(errno));
    if (strlen(real) >= size) fail_msg("the real path of %s is too long", path);
    memcpy(out, real, strlen(real) + 1);
    free(real);
#endif
}

/* ------------------------------------------------------------------ processes */

#ifdef _WIN32

typedef struct child_impl {
    HANDLE process, out_file, err_file, out_pipe; /* out_file or out_pipe; NULL for the other */
    bool killed;
    char name[256]; /* the program and its first argument, for messages */
} child_impl;

static HANDLE temp_file_handle(void)
{
    wchar_t dir[MAX_PATH + 1], name[MAX_PATH + 1];
    DWORD n = GetTempPathW(MAX_PATH + 1, dir);
    if (n == 0 || n > MAX_PATH) fail_msg("no temporary folder (GetTempPathW: error %lu)", GetLastError());
    if (!GetTempFileNameW(dir, L"cna", 0, name)) fail_msg("GetTempFileNameW failed: error %lu", GetLastError());
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE}; /* inherited by the child */
    HANDLE h = CreateFileW(name, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           &sa, CREATE_ALWAYS, FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
    if (h == INVALID_HANDLE_VALUE) fail_msg("cannot make a temporary file: error %lu", GetLastError());
    return h;
}

/* The whole content of a temporary file, from its start; owned. */
static char *slurp_handle(HANDLE h, size_t *size)
{
    LARGE_INTEGER zero = {0};
    assert_true(SetFilePointerEx(h, zero, NULL, FILE_BEGIN));
    size_t cap = 4096, len = 0;
    char *buf = (char *)malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            buf = (char *)realloc(buf, cap);
            assert_non_null(buf);
        }
        DWORD got = 0;
        assert_true(ReadFile(h, buf + len, (DWORD)(cap - 1 - len), &got, NULL));
        if (got == 0) break;
        len += got;
    }
    buf[len] = '\0';
    *size = len;
    return buf;
}

/* Appends `arg` to the command line as the C runtime's parser reads it back: quoted when it
 * is empty or holds a blank or a quote; backslashes doubled before a quote. */
static void append_arg(wchar_t **line, size_t *len, size_t *cap, const wchar_t *arg)
{
    size_t need = *len + 2 * wcslen(arg) + 4;
    if (need > *cap) {
        *cap = need * 2;
        *line = (wchar_t *)realloc(*line, *cap * sizeof **line);
        assert_non_null(*line);
    }
    wchar_t *out = *line + *len;
    if (*len > 0) *out++ = L' ';
    bool quote = arg[0] == L'\0' || wcspbrk(arg, L" \t\n\v\"") != NULL;
    if (!quote) {
        wcscpy(out, arg);
        *len = (size_t)(out - *line) + wcslen(arg);
        return;
    }
    *out++ = L'"';
    for (const wchar_t *p = arg;; p++) {
        size_t slashes = 0;
        while (*p == L'\\') {
            p++;
            slashes++;
        }
        if (*p == L'\0') {
            for (size_t i = 0; i < 2 * slashes; i++) *out++ = L'\\';
            break;
        }
        if (*p == L'"') {
            for (size_t i = 0; i < 2 * slashes + 1; i++) *out++ = L'\\';
        } else {
            for (size_t i = 0; i < slashes; i++) *out++ = L'\\';
        }
        *out++ = *p;
    }
    *out++ = L'"';
    *out = L'\0';
    *len = (size_t)(out - *line);
}

/* A captured stream of a Windows program, whose C runtime writes text with "\r\n" line ends:
 * every '\n' must come as "\r\n" (else the test fails, naming the byte), and each is read back
 * as "\n", so that the test compares the very text a POSIX system gives. */
static void text_from_crlf(char *text, size_t *size, const char *name, const char *stream)
{
    size_t out = 0;
    for (size_t i = 0; i < *size; i++) {
        if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r'))
            fail_msg("%s: %s has a '\\n' without '\\r' at byte %zu (not text written by the C runtime)", name, stream,
                     i);
        if (text[i] == '\r' && i + 1 < *size && text[i + 1] == '\n') continue;
        text[out++] = text[i];
    }
    text[out] = '\0';
    *size = out;
}

void cna_test_child_start(cna_test_child *c, const char *const *argv, bool pipe_stdout)
{
    child_impl *k = (child_impl *)calloc(1, sizeof *k);
    assert_non_null(k);
    snprintf(k->name, sizeof k->name, "%s %s", argv[0], argv[1] ? argv[1] : "");
    size_t len = 0, cap = 256;
    wchar_t *line = (wchar_t *)malloc(cap * sizeof *line);
    assert_non_null(line);
    line[0] = L'\0';
    for (size_t i = 0; argv[i]; i++) {
        wchar_t *w = wide_from_utf8(argv[i]);
        append_arg(&line, &len, &cap, w);
        free(w);
    }
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
    HANDLE in = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, OPEN_EXISTING, 0, NULL);
    assert_true(in != INVALID_HANDLE_VALUE);
    HANDLE out_child;
    if (pipe_stdout) {
        HANDLE r, w;
        assert_true(CreatePipe(&r, &w, &sa, 0));
        assert_true(SetHandleInformation(r, HANDLE_FLAG_INHERIT, 0)); /* the child gets the write end only */
        k->out_pipe = r;
        out_child = w;
    } else {
        k->out_file = temp_file_handle();
        out_child = k->out_file;
    }
    k->err_file = temp_file_handle();
    STARTUPINFOW si;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = in;
    si.hStdOutput = out_child;
    si.hStdError = k->err_file;
    PROCESS_INFORMATION pi;
    wchar_t *app = wide_from_utf8(argv[0]);
    BOOL ok = CreateProcessW(app, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi);
    DWORD why = GetLastError();
    free(app);
    free(line);
    CloseHandle(in);
    if (pipe_stdout) CloseHandle(out_child);
    if (!ok) fail_msg("cannot run %s (CreateProcessW: error %lu)", argv[0], why);
    CloseHandle(pi.hThread);
    k->process = pi.hProcess;
    c->impl = k;
}

size_t cna_test_child_read(cna_test_child *c, void *buf, size_t size)
{
    child_impl *k = (child_impl *)c->impl;
    assert_non_null(k->out_pipe);
    DWORD got = 0;
    if (!ReadFile(k->out_pipe, buf, (DWORD)size, &got, NULL)) {
        if (GetLastError() == ERROR_BROKEN_PIPE) return 0;
        fail_msg("reading the output of %s: error %lu", k->name, GetLastError());
    }
    return got;
}

void cna_test_child_kill(cna_test_child *c)
{
    child_impl *k = (child_impl *)c->impl;
    assert_true(TerminateProcess(k->process, CNA_TEST_KILLED_EXIT_CODE));
    k->killed = true;
}

cna_test_status cna_test_child_wait(cna_test_child *c, long deadline_ms, cna_test_output *output)
{
    child_impl *k = (child_impl *)c->impl;
    if (WaitForSingleObject(k->process, (DWORD)deadline_ms) != WAIT_OBJECT_0) {
        TerminateProcess(k->process, CNA_TEST_KILLED_EXIT_CODE);
        WaitForSingleObject(k->process, INFINITE);
        fail_msg("%s did not finish within %ld ms (blocked?)", k->name, deadline_ms);
    }
    DWORD code = 0;
    assert_true(GetExitCodeProcess(k->process, &code));
    cna_test_status st;
    memset(&st, 0, sizeof st);
    st.killed = k->killed;
    /* an exception that ended it is an NTSTATUS error code (0xC0000005 ...) */
    st.exited = !k->killed && code < 0xC0000000u;
    st.exit_code = st.exited ? (int)code : -1;
    if (output) {
        memset(output, 0, sizeof *output);
        output->exit_code = st.exit_code;
        if (k->out_file) {
            output->out = slurp_handle(k->out_file, &output->out_size);
            text_from_crlf(output->out, &output->out_size, k->name, "stdout");
        } else {
            output->out = (char *)calloc(1, 1);
            assert_non_null(output->out);
        }
        output->err = slurp_handle(k->err_file, &output->err_size);
        text_from_crlf(output->err, &output->err_size, k->name, "stderr");
    }
    CloseHandle(k->process);
    if (k->out_file) CloseHandle(k->out_file);
    if (k->out_pipe) CloseHandle(k->out_pipe);
    CloseHandle(k->err_file);
    free(k);
    c->impl = NULL;
    return st;
}

#else

typedef struct child_impl {
    pid_t pid;
    int out_file, err_file, out_pipe; /* -1 when absent */
    bool killed;
    char name[256];
} child_impl;

static int temp_file_fd(void)
{
    char name[] = "/tmp/cna-test-out-XXXXXX";
    int fd = mkstemp(name);
    if (fd < 0) fail_msg("cannot make a temporary file: %s", strerror(errno));
    unlink(name);
    return fd;
}

static char *slurp_fd(int fd, size_t *size)
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
    *size = len;
    return buf;
}

void cna_test_child_start(cna_test_child *c, const char *const *argv, bool pipe_stdout)
{
    child_impl *k = (child_impl *)calloc(1, sizeof *k);
    assert_non_null(k);
    snprintf(k->name, sizeof k->name, "%s %s", argv[0], argv[1] ? argv[1] : "");
    k->out_file = k->out_pipe = -1;
    int out_child;
    if (pipe_stdout) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        k->out_pipe = fds[0];
        out_child = fds[1];
    } else {
        k->out_file = temp_file_fd();
        out_child = k->out_file;
    }
    k->err_file = temp_file_fd();
    posix_spawn_file_actions_t actions;
    assert_int_equal(posix_spawn_file_actions_init(&actions), 0);
    assert_int_equal(posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0), 0);
    assert_int_equal(posix_spawn_file_actions_adddup2(&actions, out_child, STDOUT_FILENO), 0);
    assert_int_equal(posix_spawn_file_actions_adddup2(&actions, k->err_file, STDERR_FILENO), 0);
    if (pipe_stdout) assert_int_equal(posix_spawn_file_actions_addclose(&actions, k->out_pipe), 0);
    int rc = posix_spawn(&k->pid, argv[0], &actions, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (pipe_stdout) close(out_child);
    if (rc != 0) fail_msg("cannot run %s: %s", argv[0], strerror(rc));
    c->impl = k;
}

size_t cna_test_child_read(cna_test_child *c, void *buf, size_t size)
{
    child_impl *k = (child_impl *)c->impl;
    assert_true(k->out_pipe >= 0);
    for (;;) {
        ssize_t got = read(k->out_pipe, buf, size);
        if (got >= 0) return (size_t)got;
        if (errno != EINTR) fail_msg("reading the output of %s: %s", k->name, strerror(errno));
    }
}

void cna_test_child_kill(cna_test_child *c)
{
    child_impl *k = (child_impl *)c->impl;
    assert_int_equal(kill(k->pid, SIGKILL), 0);
    k->killed = true;
}

void cna_test_child_interrupt(cna_test_child *c)
{
    child_impl *k = (child_impl *)c->impl;
    assert_int_equal(kill(k->pid, SIGINT), 0);
}

cna_test_status cna_test_child_wait(cna_test_child *c, long deadline_ms, cna_test_output *output)
{
    child_impl *k = (child_impl *)c->impl;
    int status = 0;
    long waited_ms = 0;
    pid_t done;
    while ((done = waitpid(k->pid, &status, WNOHANG)) == 0 && waited_ms < deadline_ms) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        waited_ms++;
    }
    if (done == 0) {
        kill(k->pid, SIGKILL);
        waitpid(k->pid, &status, 0);
        fail_msg("%s did not finish within %ld ms (blocked?)", k->name, deadline_ms);
    }
    assert_int_equal(done, k->pid);
    cna_test_status st;
    memset(&st, 0, sizeof st);
    st.killed = k->killed;
    st.exited = WIFEXITED(status);
    st.exit_code = st.exited ? WEXITSTATUS(status) : -1;
    st.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (output) {
        memset(output, 0, sizeof *output);
        output->exit_code = st.exit_code;
        if (k->out_file >= 0) {
            output->out = slurp_fd(k->out_file, &output->out_size);
        } else {
            output->out = (char *)calloc(1, 1);
            assert_non_null(output->out);
        }
        output->err = slurp_fd(k->err_file, &output->err_size);
    }
    if (k->out_file >= 0) close(k->out_file);
    if (k->out_pipe >= 0) close(k->out_pipe);
    close(k->err_file);
    free(k);
    c->impl = NULL;
    return st;
}

#endif

cna_test_output cna_test_run(const char *const *argv, long deadline_ms)
{
    cna_test_child c;
    cna_test_child_start(&c, argv, false);
    cna_test_output r;
    cna_test_child_wait(&c, deadline_ms, &r);
    return r;
}

void cna_test_output_free(cna_test_output *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}
