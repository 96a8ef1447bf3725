/*
 * Shared helpers of the glTF reader tests: base64 data URIs, string edits of
 * a JSON text, whole-file reads, loading with exact-error assertions, and a
 * counting allocator that can fail on the n-th allocation. Include after
 * <cmocka.h>.
 */
#ifndef CNA_TESTS_GLTF_UTIL_H
#define CNA_TESTS_GLTF_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/gltf.h"

#define VALID_DIR CNA_TEST_DATA_DIR "/corpus/valid"

/* Base64 (RFC 4648, padded) of n bytes; malloc'd. */
static inline char *tu_base64(const void *data, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const uint8_t *p = (const uint8_t *)data;
    char *out = (char *)malloc((n + 2) / 3 * 4 + 1);
    size_t o = 0;
    assert_non_null(out);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        out[o++] = abc[v >> 18 & 63];
        out[o++] = abc[v >> 12 & 63];
        out[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? abc[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

/* Copy of `text` with every occurrence of `from` replaced by `to`; malloc'd.
 * `count` (may be NULL) receives the number of replacements. */
static inline char *tu_replace_all(const char *text, const char *from, const char *to, size_t *count)
{
    size_t nf = strlen(from), nt = strlen(to), n = 0;
    for (const char *p = strstr(text, from); p; p = strstr(p + nf, from)) n++;
    char *out = (char *)malloc(strlen(text) + n * nt + 1);
    assert_non_null(out);
    char *o = out;
    const char *s = text;
    for (const char *p = strstr(s, from); p; p = strstr(s, from)) {
        memcpy(o, s, (size_t)(p - s));
        o += p - s;
        memcpy(o, to, nt);
        o += nt;
        s = p + nf;
    }
    strcpy(o, s);
    if (count) *count = n;
    return out;
}

/* Copy of `text` with the single occurrence of `from` replaced by `to`; the
 * test fails when `from` does not occur exactly once. */
static inline char *tu_edit(const char *text, const char *from, const char *to)
{
    size_t n;
    char *out = tu_replace_all(text, from, to, &n);
    if (n != 1) fail_msg("edit \"%s\" matches %zu times", from, n);
    return out;
}

/* `json` with "@BUF@" replaced by a base64 data URI of the bytes; malloc'd. */
static inline char *tu_with_buffer(const char *json, const void *bytes, size_t n)
{
    char *b64 = tu_base64(bytes, n);
    char *uri = (char *)malloc(strlen(b64) + 64);
    assert_non_null(uri);
    sprintf(uri, "data:application/octet-stream;base64,%s", b64);
    char *out = tu_replace_all(json, "@BUF@", uri, NULL);
    free(b64);
    free(uri);
    return out;
}

/* Load JSON text (with its "@BUF@" data URI made from bytes) from memory. */
static inline cna_result tu_load(const char *json, const void *bytes, size_t n, const cna_gltf_options *opts,
                                 cna_gltf_document **doc, cna_error *err)
{
    char *text = tu_with_buffer(json, bytes, n);
    cna_result r = cna_gltf_load_memory(text, strlen(text), opts, doc, err);
    free(text);
    return r;
}

/* Assert that loading fails with exactly this code and message, and leaves
 * the output untouched. */
static inline void tu_expect_error(const char *json, const void *bytes, size_t n, cna_result code,
                                   const char *message)
{
    cna_gltf_document *doc = (cna_gltf_document *)(uintptr_t)0x1;
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_result r = tu_load(json, bytes, n, NULL, &doc, &err);
    if (r != code || strcmp(err.message, message) != 0)
        fail_msg("expected %s \"%s\"\n     got %s \"%s\"", cna_result_name(code), message, cna_result_name(r),
                 err.message);
    assert_int_equal(err.code, code);
    assert_ptr_equal(doc, (cna_gltf_document *)(uintptr_t)0x1);
}

/* Load and assert success; the caller frees the document. */
static inline cna_gltf_document *tu_expect_ok(const char *json, const void *bytes, size_t n)
{
    cna_gltf_document *doc = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_result r = tu_load(json, bytes, n, NULL, &doc, &err);
    if (r != CNA_OK) fail_msg("load failed: %s: %s", cna_result_name(r), err.message);
    assert_non_null(doc);
    return doc;
}

/* Assert a diagnostic with this code, count and message. */
static inline void tu_expect_diag(const cna_gltf_document *doc, const char *code, size_t count, const char *message)
{
    const cna_gltf_diagnostic *d = cna_gltf_document_find_diagnostic(doc, code);
    if (!d) fail_msg("no diagnostic \"%s\"", code);
    if (d->count != count || strcmp(d->message, message) != 0)
        fail_msg("diagnostic %s: expected x%zu \"%s\"\n     got x%zu \"%s\"", code, count, message, d->count,
                 d->message);
}

/* Whole file into a malloc'd buffer (test fails when it cannot be read). */
static inline uint8_t *tu_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = (uint8_t *)malloc(n > 0 ? (size_t)n : 1);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return data;
}

/* Counting allocator: fails the allocation numbered `fail_at` (0-based; -1 = never). */
typedef struct tu_alloc_state {
    long count;
    long fail_at;
    long live;
} tu_alloc_state;

static inline void *tu_counting_alloc(void *user, size_t size)
{
    tu_alloc_state *s = (tu_alloc_state *)user;
    if (s->count++ == s->fail_at) return NULL;
    void *p = malloc(size);
    if (p) s->live++;
    return p;
}

static inline void tu_counting_free(void *user, void *ptr)
{
    tu_alloc_state *s = (tu_alloc_state *)user;
    s->live--;
    free(ptr);
}

/* Little-endian writers for hand-built buffers. */
static inline void tu_put_f32(uint8_t *p, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    p[0] = (uint8_t)u, p[1] = (uint8_t)(u >> 8), p[2] = (uint8_t)(u >> 16), p[3] = (uint8_t)(u >> 24);
}
static inline void tu_put_u16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}
static inline void tu_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

#endif
