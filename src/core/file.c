/*
 * Opening an input file without ever blocking: a FIFO, a terminal or a device
 * named where a file is expected would make a plain fopen (or the first read)
 * wait forever for a writer. The file is opened with O_NONBLOCK, the opened
 * descriptor is checked with fstat (no race with a stat of the path), what is
 * not a regular file is refused, and O_NONBLOCK is cleared again for the
 * reads. Every reader of the library (glTF documents and buffers, .cnb, .cnj,
 * cna_model_load_any) and the command-line tool's format probe go through it.
 *
 * On Windows the UTF-8 path is opened with CreateFileW and the opened handle's
 * type checked (a disk file, not a folder, a console or a pipe), then read
 * through the C library's stream.
 */
#if !defined(_XOPEN_SOURCE) && !defined(_WIN32)
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#else
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "internal.h"

const char *cna__path_last_separator(const char *path)
{
    const char *slash = strrchr(path, '/');
#ifdef _WIN32
    const char *backslash = strrchr(path, '\\');
    if (backslash && (!slash || backslash > slash)) slash = backslash;
#endif
    return slash;
}

#ifdef _WIN32

int cna__file_open_regular(const char *path, FILE **out, uint64_t *size)
{
    *out = NULL;
    *size = 0;
    wchar_t *wide = cna__win32_wide_path(path);
    if (!wide) return errno;
    /* FILE_FLAG_BACKUP_SEMANTICS: a folder opens too, and is then refused as not a file. */
    HANDLE h = CreateFileW(wide, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(wide);
    if (h == INVALID_HANDLE_VALUE) return cna__win32_errno(GetLastError());
    int e = 0;
    BY_HANDLE_FILE_INFORMATION info;
    LARGE_INTEGER n;
    if (GetFileType(h) != FILE_TYPE_DISK) e = CNA__FILE_NOT_REGULAR;
    else if (!GetFileInformationByHandle(h, &info)) e = cna__win32_errno(GetLastError());
    else if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) e = CNA__FILE_NOT_REGULAR;
    else if (!GetFileSizeEx(h, &n)) e = cna__win32_errno(GetLastError());
    int fd = e ? -1 : _open_osfhandle((intptr_t)h, _O_RDONLY | _O_BINARY);
    if (!e && fd < 0) e = errno ? errno : EIO;
    if (e) {
        CloseHandle(h);
        return e;
    }
    FILE *f = _fdopen(fd, "rb"); /* the descriptor now owns the handle */
    if (!f) {
        e = errno ? errno : EIO;
        _close(fd);
        return e;
    }
    *out = f;
    *size = n.QuadPart > 0 ? (uint64_t)n.QuadPart : 0;
    return 0;
}

int cna__real_path(const char *path, char *out, size_t cap)
{
    wchar_t *wide = cna__win32_wide_path(path);
    if (!wide) return errno;
    HANDLE h = CreateFileW(wide, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(wide);
    if (h == INVALID_HANDLE_VALUE) return cna__win32_errno(GetLastError());
    wchar_t buf[32768];
    DWORD n = GetFinalPathNameByHandleW(h, buf, (DWORD)(sizeof buf / sizeof buf[0]), FILE_NAME_NORMALIZED);
    DWORD error = n ? 0 : GetLastError();
    CloseHandle(h);
    if (!n) return cna__win32_errno(error);
    if (n >= sizeof buf / sizeof buf[0]) return ENAMETOOLONG;
    /* "\\?\C:\dir" -> "C:/dir"; "\\?\UNC\server\share" -> "//server/share" */
    wchar_t *w = buf;
    if (wcsncmp(w, L"\\\\?\\UNC\\", 8) == 0) {
        w += 6;
        w[0] = L'\\';
    } else if (wcsncmp(w, L"\\\\?\\", 4) == 0) {
        w += 4;
    }
    char *utf8 = cna__win32_utf8(w);
    if (!utf8) return errno;
    size_t len = strlen(utf8);
    if (len >= cap) {
        free(utf8);
        return ENAMETOOLONG;
    }
    for (size_t i = 0; i <= len; i++) out[i] = utf8[i] == '\\' ? '/' : utf8[i];
    free(utf8);
    return 0;
}

#else

int cna__file_open_regular(const char *path, FILE **out, uint64_t *size)
{
    *out = NULL;
    *size = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno ? errno : EIO;
    struct stat st;
    int e = 0;
    if (fstat(fd, &st) != 0) e = errno ? errno : EIO;
    else if (!S_ISREG(st.st_mode)) e = CNA__FILE_NOT_REGULAR;
    else {
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) e = errno ? errno : EIO;
    }
    FILE *f = e ? NULL : fdopen(fd, "rb");
    if (!e && !f) e = errno ? errno : EIO;
    if (e) {
        close(fd);
        return e;
    }
    *out = f;
    *size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    return 0;
}

int cna__real_path(const char *path, char *out, size_t cap)
{
    char *real = realpath(path, NULL);
    if (!real) return errno ? errno : EIO;
    size_t len = strlen(real);
    int e = len < cap ? 0 : ENAMETOOLONG;
    if (!e) memcpy(out, real, len + 1);
    free(real);
    return e;
}

#endif
