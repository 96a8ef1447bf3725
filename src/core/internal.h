/*
 * Private helpers shared by every layer of the core library. Not installed.
 */
#ifndef CNA_CORE_INTERNAL_H
#define CNA_CORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cna/alloc.h"
#include "cna/result.h"

#if defined(__MINGW32__) && defined(__MINGW_PRINTF_FORMAT)
/* MinGW-w64: the C99 formats of __USE_MINGW_ANSI_STDIO (%zu), not msvcrt's */
#define CNA__PRINTF(fmt, args) __attribute__((format(__MINGW_PRINTF_FORMAT, fmt, args)))
#elif defined(__GNUC__) || defined(__clang__)
#define CNA__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CNA__PRINTF(fmt, args)
#endif

/* Fill `err` (may be NULL) with `code` and a formatted message; returns `code`. */
cna_result cna__error(cna_error *err, cna_result code, const char *fmt, ...) CNA__PRINTF(3, 4);

/* Prefix the message already in `err` with "prefix: " (no-op when err is NULL). */
void cna__error_prefix(cna_error *err, const char *fmt, ...) CNA__PRINTF(2, 3);

/* cJSON_ParseWithLengthOpts(text, size, end, 0) under a process-wide mutex
 * (cJSON writes a global on failure); every cna parse goes through here. */
struct cJSON;
struct cJSON *cna__json_parse(const char *text, size_t size, const char **end);

/* Open `path` for reading as a regular file, never blocking (src/core/file.c):
 * 0 with *out the stream and *size its size; CNA__FILE_NOT_REGULAR (nothing
 * opened) for a FIFO, directory, device or socket; otherwise the errno value
 * of the failed open (for strerror). Callers word the message. */
#define CNA__FILE_NOT_REGULAR (-1)
int cna__file_open_regular(const char *path, FILE **out, uint64_t *size);

/* The last path separator of `path` ('/', and on Windows also '\\'), or NULL. */
const char *cna__path_last_separator(const char *path);

/* The absolute path of an existing file or folder, with every ".." applied and
 * symbolic links followed (realpath; on Windows the final path of the file,
 * "C:/dir/name", with '/' as its separator) into out[cap]: 0, or the errno
 * value of the failure (ENAMETOOLONG when it does not fit). */
int cna__real_path(const char *path, char *out, size_t cap);

#ifdef _WIN32
/* Windows (src/core/win32.c): a UTF-8 path as a wide string (free() it; NULL
 * when out of memory or not valid UTF-8, errno set to ENOMEM or EILSEQ), a wide
 * string as UTF-8 (free() it), and the errno value nearest to a Win32 error
 * code (GetLastError()), so that messages read as on other systems. */
#include <wchar.h>
wchar_t *cna__win32_wide(const char *utf8);
/* The same for a path given to a Win32 file function: one of MAX_PATH characters or more
 * becomes its full path with the "\\?\" prefix, which lifts that limit. */
wchar_t *cna__win32_wide_path(const char *utf8);
char *cna__win32_utf8(const wchar_t *wide);
int cna__win32_errno(unsigned long code);
#endif

/* The deepest nesting of arrays and objects cJSON parses (its
 * CJSON_NESTING_LIMIT, 1000 in Debian's build). */
#define CNA__JSON_MAX_DEPTH 1000
/* true when a failed cna__json_parse of text stopped at byte `at` because an
 * array or object opened there would be nested deeper than
 * CNA__JSON_MAX_DEPTH (the bytes before it parsed). */
bool cna__json_too_deep(const char *text, size_t size, size_t at);
/* true when a string of root (a member name or a string value), parsed by
 * cna__json_parse from text[0, end) (end: the parse's end), contains a NUL
 * character (the escape \u0000 or a raw 0x00 byte), which cJSON's
 * NUL-terminated strings would silently cut short. path receives the first
 * such string's JSON path ("images[0].uri"; for a member name, its object's
 * path, "(the root)" when empty), *is_key (may be NULL) whether it is a member
 * name and *key_index (may be NULL) that member's index in its object.
 * Callers refuse the input with CNA_ERROR_PARSE. */
bool cna__json_find_nul(const char *text, size_t end, const struct cJSON *root, char *path, size_t cap,
                        bool *is_key, size_t *key_index);

/* UTF-8 (src/core/utf8.c, RFC 3629: shortest forms, no surrogates, at most
 * U+10FFFF). cna__utf8_invalid_at: the offset of the first byte of s[0..n)
 * that does not start a valid sequence, n when all are valid.
 * cna__utf8_repair: replace, in place, each byte of the NUL-terminated s that
 * is not part of a valid sequence with '?' (messages stay valid UTF-8 even
 * when a name was cut short). */
size_t cna__utf8_invalid_at(const char *s, size_t n);
void cna__utf8_repair(char *s);

/* Resolve a possibly-NULL allocator into one with both hooks set. */
cna_allocator cna__allocator_resolve(const cna_allocator *allocator);

/* Allocate `size` bytes (size 0 allocates 1 byte so the result is non-NULL). */
void *cna__alloc(const cna_allocator *a, size_t size);
/* Allocate count * size bytes, zeroed; NULL on overflow or failure. */
void *cna__calloc(const cna_allocator *a, size_t count, size_t size);
/* Free memory from cna__alloc/cna__calloc; NULL is accepted. */
void cna__free(const cna_allocator *a, void *ptr);

/* Overflow-checked arithmetic: return false (and leave *out unspecified) on overflow. */
static inline bool cna__mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return false;
    *out = a * b;
    return true;
}
static inline bool cna__add_size(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a) return false;
    *out = a + b;
    return true;
}

/* ------------------------------------------------------------------ atomic file writes
 * Every file the library (and the cna tool) writes goes through here, so that
 * a failed or interrupted write never damages the file it replaces: the bytes
 * go to a new temporary file ".<name>.XXXXXX" in the destination's folder,
 * which is flushed to the disk (fsync), closed, and only then renamed over the
 * destination (rename() is atomic: a reader sees the old file or the new one,
 * whole). On any failure the temporary file is removed and the destination is
 * left as it was. The temporary file is created with mode 0666, so the system
 * applies the umask (and a default ACL) exactly as for any new file: the
 * written file gets 0666 & ~umask, never the mode of the file it replaces.
 * A destination that is a symbolic link to a file is followed: the file it
 * leads to is replaced and the link kept; a loop of links is refused
 * ("out.cnb: Too many levels of symbolic links"), the links left as they are.
 * A destination that exists and is neither a regular file nor a folder
 * (/dev/null, a FIFO, a character device) is written in place, without the
 * temporary file, and so is a stream of the process named by /dev/stdout,
 * /dev/stderr, /dev/fd/N or /proc/self/fd/N (through that descriptor: a pipe,
 * a terminal or a file the shell opened, appending included). A process killed mid-write leaves at
 * most a temporary file, which later writes ignore (each picks a new name).
 * On Windows the same steps go through the wide Win32 calls on the UTF-8 path
 * (src/core/file_write.c; docs/platforms.md): CreateFileW(CREATE_NEW),
 * WriteFile, FlushFileBuffers, CloseHandle, then MoveFileExW with
 * MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH; a link there is replaced,
 * not followed, and NUL, /dev/stdout and /dev/stderr are written in place.
 * Errors are CNA_ERROR_IO with the path as given and the system's reason:
 * "out.cnb: write failed: No space left on device". */

/* Writes of at most this many bytes go to the system at once. */
#define CNA__FILE_WRITE_CHUNK ((size_t)1 << 20)

typedef struct cna__file_writer {
    cna_allocator alloc;
    char *name;           /* the path as given, for messages */
    char *target;         /* the file renamed over: name, or where its link leads */
    char *temp;           /* the temporary file beside target */
    unsigned char *buf;   /* streaming buffer (allocated on first small write); may stay NULL */
    size_t used;          /* bytes in buf */
    int fd;               /* the temporary file; -1 once closed */
#ifdef _WIN32
    void *handle;         /* Windows: the temporary file's HANDLE (fd is 0 while it is open) */
    wchar_t *wide_target; /* Windows: target and temp as wide strings (one allocation) */
    wchar_t *wide_temp;
#endif
    bool direct;          /* the destination is a device or a pipe: written in place, temp == target */
    bool failed;          /* a step failed: error holds why; every later call repeats it */
    cna_error error;
} cna__file_writer;

/* Write `size` bytes to `path` atomically (see above). `allocator` may be NULL. */
cna_result cna__file_write(const char *path, const void *bytes, size_t size, const cna_allocator *allocator,
                           cna_error *err);

/* Streaming variant: open creates the temporary file; write appends (buffered);
 * commit flushes, syncs, closes and renames it over the destination; abort
 * removes it. After open, exactly one of commit or abort must be called (abort
 * after a commit, or twice, does nothing). A failed write makes commit fail
 * with the same error (and remove the temporary file). */
cna_result cna__file_writer_open(cna__file_writer *w, const char *path, const cna_allocator *allocator,
                                 cna_error *err);
cna_result cna__file_writer_write(cna__file_writer *w, const void *bytes, size_t size, cna_error *err);
cna_result cna__file_writer_commit(cna__file_writer *w, cna_error *err);
void cna__file_writer_abort(cna__file_writer *w);

/* Test hook, for fault tests only (tests reach it through the static library):
 * called before each step of every write in the process, with the temporary
 * file's path. Returning 0 lets the step run; returning an errno value makes
 * the step fail with that error instead (CLOSE still releases the file).
 * The hook may also end the process (_exit, raise(SIGKILL)) to stand for a
 * crash at that point. One hook for the whole process: set it (NULL to
 * remove) while no write is under way. */
typedef enum cna__file_step {
    CNA__FILE_STEP_OPEN = 0,  /* creating the temporary file */
    CNA__FILE_STEP_WRITE,     /* each write() of up to CNA__FILE_WRITE_CHUNK bytes */
    CNA__FILE_STEP_SYNC,      /* fsync(): the flush to the disk */
    CNA__FILE_STEP_CLOSE,     /* close() */
    CNA__FILE_STEP_RENAME,    /* rename() over the destination */
    CNA__FILE_STEP_COUNT
} cna__file_step;
typedef int (*cna__file_test_hook)(void *user_data, cna__file_step step, const char *temp_path);
void cna__file_set_test_hook(cna__file_test_hook hook, void *user_data);

#endif
