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

#if defined(__GNUC__) || defined(__clang__)
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

/* The deepest nesting of arrays and objects cJSON parses (its
 * CJSON_NESTING_LIMIT, 1000 in Debian's build). */
#define CNA__JSON_MAX_DEPTH 1000
/* true when a failed cna__json_parse of text stopped at byte `at` because an
 * array or object opened there would be nested deeper than
 * CNA__JSON_MAX_DEPTH (the bytes before it parsed). */
bool cna__json_too_deep(const char *text, size_t size, size_t at);

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

#endif
