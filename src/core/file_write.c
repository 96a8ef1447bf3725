/*
 * Atomic file writes (core/internal.h): a temporary file beside the
 * destination, written whole, flushed to the disk, closed, then renamed over
 * the destination; on any failure removed, the destination untouched.
 *
 * On Windows the same steps go through the Win32 calls on the UTF-8 path made
 * wide: CreateFileW(CREATE_NEW) for the temporary file, WriteFile,
 * FlushFileBuffers, CloseHandle, then MoveFileExW(MOVEFILE_REPLACE_EXISTING |
 * MOVEFILE_WRITE_THROUGH), which replaces the destination in one step or not
 * at all.
 */
#if !defined(_XOPEN_SOURCE) && !defined(_WIN32)
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _WIN32
#include <io.h>
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "internal.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Streaming buffer size; larger writes go straight to the file. */
#define STREAM_BUFFER ((size_t)64 << 10)
/* The destination's name is cut to this many bytes in the temporary file's
 * name, which must stay under the system's 255-byte limit. */
#define TEMP_NAME_KEEP 200
#define TEMP_ATTEMPTS 100

static cna__file_test_hook test_hook;
static void *test_hook_user_data;

void cna__file_set_test_hook(cna__file_test_hook hook, void *user_data)
{
    test_hook = hook;
    test_hook_user_data = user_data;
}

/* 0 to run `step`, or the errno value it must fail with. */
static int hook(cna__file_step step, const char *temp)
{
    return test_hook ? test_hook(test_hook_user_data, step, temp) : 0;
}

/* Record the first failure in w (and err); CNA_ERROR_IO. */
static cna_result fail(cna__file_writer *w, cna_error *err, const char *what, int error)
{
    if (!w->failed) {
        w->failed = true;
        cna__error(&w->error, CNA_ERROR_IO, "%s: %s: %s", w->name, what, strerror(error));
    }
    if (err) *err = w->error;
    return CNA_ERROR_IO;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Six letters or digits, different on each attempt, in each process and for
 * each writer. */
static void temp_suffix(const cna__file_writer *w, unsigned attempt, char out[7])
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
#ifdef _WIN32
    LARGE_INTEGER now;
    QueryPerformanceCounter(&now);
    uint64_t x = mix((uint64_t)now.QuadPart ^ ((uint64_t)GetCurrentProcessId() << 12) ^ (uint64_t)(uintptr_t)w ^
                     ((uint64_t)attempt << 52));
#else
    struct timespec ts = {0, 0};
    (void)clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 12) ^
                     (uint64_t)(uintptr_t)w ^ ((uint64_t)attempt << 52));
#endif
    for (int i = 0; i < 6; i++, x /= 62) out[i] = digits[x % 62];
    out[6] = '\0';
}

/* w->name, w->target and w->temp (its last six characters still to fill) in one allocation. */
static cna_result make_paths(cna__file_writer *w, const char *path, const char *target, cna_error *err)
{
    const char *slash = cna__path_last_separator(target);
    const char *base = slash ? slash + 1 : target;
    size_t dir_len = slash ? (size_t)(slash - target) + 1 : 0; /* with its '/' */
    size_t base_len = strlen(base);
    if (base_len > TEMP_NAME_KEEP) base_len = TEMP_NAME_KEEP;
    size_t name_size = strlen(path) + 1, target_size = strlen(target) + 1;
    size_t temp_size = dir_len + 1 + base_len + 1 + 6 + 1, total;
    if (!cna__add_size(name_size, target_size, &total) || !cna__add_size(total, temp_size, &total))
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: path too long", path);
    char *p = (char *)cna__alloc(&w->alloc, total);
    if (!p) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    w->name = p;
    memcpy(w->name, path, name_size);
    w->target = p + name_size;
    memcpy(w->target, target, target_size);
    w->temp = w->target + target_size;
    snprintf(w->temp, temp_size, "%.*s.%.*s.XXXXXX", (int)dir_len, target, (int)base_len, base);
    return CNA_OK;
}

#ifndef _WIN32
/* When `path` is a symbolic link, the path it finally leads to (each link
 * read in turn, as opening it would, so that a link to a file not yet written
 * leads to that file) into out[PATH_MAX]; false when it is no link or the
 * chain is too long. */
static bool resolve_links(const char *path, char *out)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return false;
    if (realpath(path, out)) return true;
    char cur[PATH_MAX], link[PATH_MAX];
    if (strlen(path) >= sizeof cur) return false;
    strcpy(cur, path);
    for (int hops = 0; hops < 40; hops++) {
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) return false;
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        int dir_len = link[0] == '/' || !slash ? 0 : (int)(slash - cur) + 1;
        if ((size_t)dir_len + (size_t)n >= sizeof cur) return false;
        memmove(cur + dir_len, link, (size_t)n + 1);
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
            strcpy(out, cur);
            return true;
        }
    }
    return false;
}

/* The descriptor that /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N
 * names (a stream the process already holds open), else -1. */
static int stream_fd(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0) return 1;
    if (strcmp(path, "/dev/stderr") == 0) return 2;
    const char *digits = strncmp(path, "/dev/fd/", 8) == 0         ? path + 8
                         : strncmp(path, "/proc/self/fd/", 14) == 0 ? path + 14
                                                                    : NULL;
    if (!digits || !*digits || strlen(digits) > 6 || strspn(digits, "0123456789") != strlen(digits)) return -1;
    return atoi(digits);
}

#endif

static void release(cna__file_writer *w)
{
    cna__free(&w->alloc, w->buf);
    cna__free(&w->alloc, w->name);
    w->buf = NULL;
    w->name = w->target = w->temp = NULL;
    w->used = 0;
#ifdef _WIN32
    cna__free(&w->alloc, w->wide_target);
    w->wide_target = w->wide_temp = NULL;
#endif
}

/* The temporary file could not be made (error): the message names the
 * folder ("." without a separator, the root for a file at the root);
 * everything is released. */
static cna_result temp_failed(cna__file_writer *w, const char *path, int error, cna_error *err)
{
    const char *slash = cna__path_last_separator(w->target);
    const char *dir = slash ? w->target : ".";
    const int dir_len = !slash ? 1 : slash == w->target ? 1 : (int)(slash - w->target);
    const cna_result r = cna__error(err, CNA_ERROR_IO, "%s: cannot create a temporary file in \"%.*s\": %s", path,
                                    dir_len, dir, strerror(error));
    w->fd = -1;
    release(w);
    return r;
}

/* ------------------------------------------------------------------ the system's steps
 * Each returns 0 or the errno value of its failure (a Win32 error made one). */

#ifdef _WIN32

/* w->wide_target and w->wide_temp (its last six characters filled by
 * set_wide_suffix) in one allocation; ENOMEM, or EILSEQ for a path that is not
 * valid UTF-8. */
static int make_wide_paths(cna__file_writer *w)
{
    wchar_t *target = cna__win32_wide_path(w->target), *temp = target ? cna__win32_wide_path(w->temp) : NULL;
    int error = temp ? 0 : errno ? errno : EILSEQ;
    size_t nt = target ? wcslen(target) + 1 : 0, np = temp ? wcslen(temp) + 1 : 0;
    wchar_t *p = error ? NULL : (wchar_t *)cna__alloc(&w->alloc, (nt + np) * sizeof(wchar_t));
    if (!error && !p) error = ENOMEM;
    if (!error) {
        w->wide_target = p;
        w->wide_temp = p + nt;
        memcpy(w->wide_target, target, nt * sizeof(wchar_t));
        memcpy(w->wide_temp, temp, np * sizeof(wchar_t));
    }
    free(target);
    free(temp);
    return error;
}

static void set_wide_suffix(cna__file_writer *w, const char suffix[7])
{
    wchar_t *end = w->wide_temp + wcslen(w->wide_temp) - 6;
    for (int i = 0; i < 6; i++) end[i] = (wchar_t)(unsigned char)suffix[i];
}

static int os_create_temp(cna__file_writer *w)
{
    HANDLE h = CreateFileW(w->wide_temp, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) return cna__win32_errno(GetLastError());
    w->handle = h;
    w->fd = 0;
    return 0;
}

static int os_write(cna__file_writer *w, const unsigned char *bytes, size_t n, size_t *done)
{
    DWORD written = 0;
    if (!WriteFile((HANDLE)w->handle, bytes, (DWORD)n, &written, NULL)) return cna__win32_errno(GetLastError());
    *done = written;
    return 0;
}

static int os_sync(cna__file_writer *w)
{
    return FlushFileBuffers((HANDLE)w->handle) ? 0 : cna__win32_errno(GetLastError());
}

/* Closes the file whatever happens. */
static int os_close(cna__file_writer *w)
{
    BOOL ok = CloseHandle((HANDLE)w->handle);
    w->handle = NULL;
    w->fd = -1;
    return ok ? 0 : cna__win32_errno(GetLastError());
}

/* The destination replaced in one step (or left as it was), the rename
 * written through to the disk before it returns. */
static int os_rename(cna__file_writer *w)
{
    return MoveFileExW(w->wide_temp, w->wide_target, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)
               ? 0
               : cna__win32_errno(GetLastError());
}

static void os_remove_temp(cna__file_writer *w) { (void)DeleteFileW(w->wide_temp); }

/* MOVEFILE_WRITE_THROUGH already waited for the rename to reach the disk. */
static void sync_folder(const cna__file_writer *w) { (void)w; }

/* The process's streams (/dev/stdout, /dev/stderr, as elsewhere): 1, 2 or -1. */
static int stream_fd(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0) return 1;
    if (strcmp(path, "/dev/stderr") == 0) return 2;
    return -1;
}

cna_result cna__file_writer_open(cna__file_writer *w, const char *path, const cna_allocator *allocator,
                                 cna_error *err)
{
    if (!w) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "file write: NULL writer");
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->alloc = cna__allocator_resolve(allocator);
    if (!path || !*path)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "file write: %s path", path ? "empty" : "NULL");
    cna_result r = make_paths(w, path, path, err);
    if (r) return r;
    int error = make_wide_paths(w);
    if (error) {
        r = error == ENOMEM   ? cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path)
            : error == EILSEQ ? cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: the path is not valid UTF-8", path)
                              : cna__error(err, CNA_ERROR_IO, "%s: %s", path, strerror(error));
        release(w);
        return r;
    }
    /* What is there: nothing, a folder (refused), a file, or a device (NUL,
     * CON, a pipe), which is written in place: a rename cannot replace it. */
    const int stream = stream_fd(path);
    bool direct = stream >= 0;
    if (!direct) {
        HANDLE h = CreateFileW(w->wide_target, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                               OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
        if (h == INVALID_HANDLE_VALUE) {
            DWORD code = GetLastError();
            if (code != ERROR_FILE_NOT_FOUND && code != ERROR_PATH_NOT_FOUND) error = cna__win32_errno(code);
        } else {
            BY_HANDLE_FILE_INFORMATION info;
            if (GetFileType(h) != FILE_TYPE_DISK) direct = true;
            else if (GetFileInformationByHandle(h, &info) && (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
                error = EISDIR;
            CloseHandle(h);
        }
    }
    if (!error && direct) {
        w->direct = true;
        error = hook(CNA__FILE_STEP_OPEN, w->target);
        HANDLE h = INVALID_HANDLE_VALUE;
        if (!error && stream >= 0) {
            HANDLE s = (HANDLE)_get_osfhandle(stream);
            if (s == INVALID_HANDLE_VALUE ||
                !DuplicateHandle(GetCurrentProcess(), s, GetCurrentProcess(), &h, 0, FALSE, DUPLICATE_SAME_ACCESS))
                error = s == INVALID_HANDLE_VALUE ? EBADF : cna__win32_errno(GetLastError());
        } else if (!error) {
            h = CreateFileW(w->wide_target, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                            FILE_ATTRIBUTE_NORMAL, NULL);
            if (h == INVALID_HANDLE_VALUE) error = cna__win32_errno(GetLastError());
        }
        if (!error) {
            w->handle = h;
            w->fd = 0;
            w->temp = w->target;
            return CNA_OK;
        }
    }
    if (error) {
        r = cna__error(err, CNA_ERROR_IO, "%s: %s", path, strerror(error));
        release(w);
        return r;
    }
    char *suffix = w->temp + strlen(w->temp) - 6;
    error = EEXIST;
    for (unsigned attempt = 0; attempt < TEMP_ATTEMPTS && error == EEXIST; attempt++) {
        temp_suffix(w, attempt, suffix);
        set_wide_suffix(w, suffix);
        error = hook(CNA__FILE_STEP_OPEN, w->temp);
        if (error) break;
        error = os_create_temp(w);
    }
    if (error) return temp_failed(w, path, error, err);
    return CNA_OK;
}

#else

static int os_write(cna__file_writer *w, const unsigned char *bytes, size_t n, size_t *done)
{
    for (;;) {
        ssize_t got = write(w->fd, bytes, n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return errno;
        *done = (size_t)got;
        return 0;
    }
}

static int os_sync(cna__file_writer *w) { return fsync(w->fd) == 0 ? 0 : errno; }

/* Closes the descriptor whatever happens (an EINTR from close() is no failure). */
static int os_close(cna__file_writer *w)
{
    int closed = close(w->fd);
    w->fd = -1;
    return closed != 0 && errno != EINTR ? errno : 0;
}

static int os_rename(cna__file_writer *w) { return rename(w->temp, w->target) == 0 ? 0 : errno; }

static void os_remove_temp(cna__file_writer *w) { (void)unlink(w->temp); }

/* fsync the folder of w->target, so that the rename itself reaches the disk;
 * the file is already replaced, so a failure here is not reported. */
static void sync_folder(const cna__file_writer *w)
{
    const char *slash = strrchr(w->target, '/');
    char dir[PATH_MAX];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == w->target) snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - w->target) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - w->target), w->target);
    else return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)fsync(fd);
    (void)close(fd);
}

cna_result cna__file_writer_open(cna__file_writer *w, const char *path, const cna_allocator *allocator,
                                 cna_error *err)
{
    if (!w) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "file write: NULL writer");
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->alloc = cna__allocator_resolve(allocator);
    if (!path || !*path)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "file write: %s path", path ? "empty" : "NULL");
    /* What the path leads to, links followed: a loop of links (ELOOP), a
     * folder on the way that is a file (ENOTDIR), ... is refused here, before
     * anything is created, and the links stay as they are. */
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (!exists && errno != ENOENT) return cna__error(err, CNA_ERROR_IO, "%s: %s", path, strerror(errno));
    if (exists && S_ISDIR(st.st_mode)) return cna__error(err, CNA_ERROR_IO, "%s: %s", path, strerror(EISDIR));
    /* The process's streams (/dev/stdout, /dev/fd/1, /proc/self/fd/1) are
     * written through the descriptor itself, whatever it leads to: a pipe, a
     * terminal, a file the shell opened for writing or appending (a rename
     * would leave the shell's file behind). */
    const int stream = stream_fd(path);
    bool direct = (exists && !S_ISREG(st.st_mode)) || stream >= 0;
    /* A link to a file: replace the file it leads to (created if missing) and keep the link. */
    char real[PATH_MAX];
    const char *target = !direct && resolve_links(path, real) ? real : path;
    cna_result r = make_paths(w, path, target, err);
    if (r) return r;
    if (direct) {
        /* A device or a pipe (/dev/null, a FIFO, /dev/stdout into a pipe):
         * written in place, opened by the path as given (a pipe's link leads
         * to no name); a rename would replace the device node itself. */
        w->direct = true;
        w->temp = w->target;
        int error = hook(CNA__FILE_STEP_OPEN, w->temp);
        if (!error) {
            w->fd = stream >= 0 ? fcntl(stream, F_DUPFD_CLOEXEC, 0) : open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
            if (w->fd < 0) error = errno;
        }
        if (!error) return CNA_OK;
        r = cna__error(err, CNA_ERROR_IO, "%s: %s", path, strerror(error));
        w->fd = -1;
        release(w);
        return r;
    }
    char *suffix = w->temp + strlen(w->temp) - 6;
    int error = EEXIST;
    for (unsigned attempt = 0; attempt < TEMP_ATTEMPTS && error == EEXIST; attempt++) {
        temp_suffix(w, attempt, suffix);
        error = hook(CNA__FILE_STEP_OPEN, w->temp);
        if (error) break;
        /* 0666: the umask (and any default ACL) applies, as for every new file. */
        w->fd = open(w->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        error = w->fd < 0 ? errno : 0;
    }
    if (error) return temp_failed(w, path, error, err);
    return CNA_OK;
}

#endif

/* Write all of bytes, in chunks of at most CNA__FILE_WRITE_CHUNK. */
static cna_result write_out(cna__file_writer *w, const unsigned char *bytes, size_t size, cna_error *err)
{
    while (size > 0) {
        size_t n = size < CNA__FILE_WRITE_CHUNK ? size : CNA__FILE_WRITE_CHUNK;
        int error = hook(CNA__FILE_STEP_WRITE, w->temp);
        if (error) return fail(w, err, "write failed", error);
        size_t done = 0;
        error = os_write(w, bytes, n, &done);
        if (error) return fail(w, err, "write failed", error);
        if (done == 0) return fail(w, err, "write failed", EIO);
        bytes += done;
        size -= done;
    }
    return CNA_OK;
}

cna_result cna__file_writer_write(cna__file_writer *w, const void *bytes, size_t size, cna_error *err)
{
    if (!w || !w->temp) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "file write: writer not open");
    if (w->failed) return fail(w, err, NULL, 0);
    if (size == 0) return CNA_OK;
    if (!bytes) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: NULL bytes", w->name);
    if (!w->buf && size < STREAM_BUFFER) w->buf = (unsigned char *)cna__alloc(&w->alloc, STREAM_BUFFER);
    if (w->buf && w->used + size <= STREAM_BUFFER) {
        memcpy(w->buf + w->used, bytes, size);
        w->used += size;
        return CNA_OK;
    }
    cna_result r = write_out(w, w->buf, w->used, err);
    w->used = 0;
    if (r) return r;
    if (w->buf && size < STREAM_BUFFER) {
        memcpy(w->buf, bytes, size);
        w->used = size;
        return CNA_OK;
    }
    return write_out(w, (const unsigned char *)bytes, size, err);
}

void cna__file_writer_abort(cna__file_writer *w)
{
    if (!w || !w->temp) return;
    if (w->fd >= 0) (void)os_close(w);
    if (!w->direct) os_remove_temp(w);
    release(w);
}

cna_result cna__file_writer_commit(cna__file_writer *w, cna_error *err)
{
    if (!w || !w->temp) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "file write: writer not open");
    cna_result r = w->failed ? fail(w, err, NULL, 0) : write_out(w, w->buf, w->used, err);
    w->used = 0;
    if (!r) {
        int error = hook(CNA__FILE_STEP_SYNC, w->temp);
        if (!error && !w->direct) error = os_sync(w);
        if (error) r = fail(w, err, "write failed", error);
    }
    if (!r) {
        int error = hook(CNA__FILE_STEP_CLOSE, w->temp);
        int closed = os_close(w);
        if (!error) error = closed;
        if (error) r = fail(w, err, "write failed", error);
    }
    if (!r && !w->direct) {
        int error = hook(CNA__FILE_STEP_RENAME, w->temp);
        if (!error) error = os_rename(w);
        if (error) r = fail(w, err, "rename failed", error);
    }
    if (r) {
        cna__file_writer_abort(w);
        return r;
    }
    if (!w->direct) sync_folder(w);
    release(w);
    return CNA_OK;
}

cna_result cna__file_write(const char *path, const void *bytes, size_t size, const cna_allocator *allocator,
                           cna_error *err)
{
    if (!bytes && size)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: NULL bytes", path ? path : "file write");
    cna__file_writer w;
    cna_result r = cna__file_writer_open(&w, path, allocator, err);
    if (r) return r;
    r = write_out(&w, (const unsigned char *)bytes, size, err);
    if (r) {
        cna__file_writer_abort(&w);
        return r;
    }
    return cna__file_writer_commit(&w, err);
}
