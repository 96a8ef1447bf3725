/*
 * Windows helpers of the core (core/internal.h): UTF-8 paths to and from the
 * wide strings of the Win32 file functions, and Win32 error codes as errno
 * values. Empty on other systems.
 */
#ifdef _WIN32
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "internal.h"

wchar_t *cna__win32_wide(const char *utf8)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
    if (n <= 0) {
        errno = EILSEQ;
        return NULL;
    }
    wchar_t *wide = (wchar_t *)malloc((size_t)n * sizeof *wide);
    if (!wide) {
        errno = ENOMEM;
        return NULL;
    }
    if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, wide, n) != n) {
        free(wide);
        errno = EILSEQ;
        return NULL;
    }
    return wide;
}

wchar_t *cna__win32_wide_path(const char *utf8)
{
    wchar_t *wide = cna__win32_wide(utf8);
    if (!wide) return NULL;
    DWORD n = GetFullPathNameW(wide, 0, NULL, NULL);
    /* Short enough for every Win32 call, a device ("\\.\NUL"), already "\\?\", or no full path: as given. */
    if (n == 0 || n < MAX_PATH - 12 || wcsncmp(wide, L"\\\\", 2) == 0) return wide;
    wchar_t *full = (wchar_t *)malloc(((size_t)n + 8) * sizeof *full);
    if (!full) {
        free(wide);
        errno = ENOMEM;
        return NULL;
    }
    DWORD m = GetFullPathNameW(wide, n, full + 8, NULL); /* room for "\\?\UNC\" */
    free(wide);
    if (m == 0 || m >= n) {
        free(full);
        errno = ENOENT;
        return NULL;
    }
    /* "C:\dir\name" -> "\\?\C:\dir\name"; "\\server\share\name" -> "\\?\UNC\server\share\name" */
    wchar_t *start;
    if (full[8] == L'\\' && full[9] == L'\\') {
        start = full + 2;
        memcpy(start, L"\\\\?\\UNC", 7 * sizeof(wchar_t));
        start[7] = L'\\'; /* over the second backslash of "\\server" */
        memmove(start + 8, full + 10, ((size_t)m - 2 + 1) * sizeof(wchar_t));
    } else {
        start = full + 4;
        memcpy(start, L"\\\\?\\", 4 * sizeof(wchar_t));
    }
    if (start != full) memmove(full, start, (wcslen(start) + 1) * sizeof(wchar_t));
    return full;
}

char *cna__win32_utf8(const wchar_t *wide)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, NULL, 0, NULL, NULL);
    if (n <= 0) {
        errno = EILSEQ;
        return NULL;
    }
    char *utf8 = (char *)malloc((size_t)n);
    if (!utf8) {
        errno = ENOMEM;
        return NULL;
    }
    if (WideCharToMultiByte(CP_UTF8, 0, wide, -1, utf8, n, NULL, NULL) != n) {
        free(utf8);
        errno = EILSEQ;
        return NULL;
    }
    return utf8;
}

int cna__win32_errno(unsigned long code)
{
    switch (code) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_WRITE_PROTECT:
    case ERROR_CURRENT_DIRECTORY:
        return EACCES;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
        return EEXIST;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        return ENOSPC;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return ENOMEM;
    case ERROR_FILENAME_EXCED_RANGE:
        return ENAMETOOLONG;
    case ERROR_INVALID_NAME:
    case ERROR_BAD_PATHNAME:
    case ERROR_DIRECTORY:
        return ENOENT;
    case ERROR_TOO_MANY_OPEN_FILES:
        return EMFILE;
    case ERROR_NOT_SAME_DEVICE:
        return EXDEV;
    case ERROR_BROKEN_PIPE:
    case ERROR_NO_DATA:
        return EPIPE;
    case ERROR_CANT_RESOLVE_FILENAME:
        return ELOOP;
    default:
        return EIO;
    }
}
#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int cna__win32_unused;
#endif
