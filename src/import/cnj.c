/*
 * The .cnj skeleton sidecar (include/cna/baked.h): JSON text written by hand
 * with %.9g floats, read with cJSON. The reader checks the bone count before
 * allocating any skeleton array, every array length against it, and every
 * number for finiteness.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cna/baked.h"
#include "core/internal.h"

struct cna_cnj_skeleton {
    cna_allocator allocator;
    cna_skinning_data data;    /* points into the arrays below */
    int32_t *hierarchy;
    cna_mat4 *bind_pose, *inverse_bind_pose, *root_prefix;
};

/* ------------------------------------------------------------------ writing */

typedef struct text_buf {
    cna_allocator alloc;
    char *data;
    size_t size, capacity;
    bool failed;
} text_buf;

static void put(text_buf *b, const char *s, size_t n)
{
    if (b->failed) return;
    if (b->capacity - b->size <= n) {
        size_t cap = b->capacity ? b->capacity : 4096;
        while (cap - b->size <= n) {
            if (cap > SIZE_MAX / 2) {
                b->failed = true;
                return;
            }
            cap *= 2;
        }
        char *d = (char *)cna__alloc(&b->alloc, cap);
        if (!d) {
            b->failed = true;
            return;
        }
        if (b->size) memcpy(d, b->data, b->size);
        cna__free(&b->alloc, b->data);
        b->data = d;
        b->capacity = cap;
    }
    memcpy(b->data + b->size, s, n);
    b->size += n;
    b->data[b->size] = '\0';
}

static void put_str(text_buf *b, const char *s) { put(b, s, strlen(s)); }

/* v as %.9g text, with '.' for its decimal point whatever the program's
 * C locale says (snprintf writes the locale's: "1,5" under de_DE, which is
 * not JSON): any run of characters other than digits, signs and the
 * exponent's 'e' becomes one '.'. (No localeconv: it is not thread-safe.)
 * The values are finite (checked before writing). */
static void put_float(text_buf *b, float v)
{
    char tmp[48], out[48];
    const int n = snprintf(tmp, sizeof tmp, "%.9g", (double)v);
    if (n <= 0 || (size_t)n >= sizeof tmp) return;
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        const char c = tmp[i];
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e')
            out[k++] = c;
        else if (k == 0 || out[k - 1] != '.')
            out[k++] = '.';
    }
    put(b, out, k);
}

static void put_matrices(text_buf *b, const char *key, const cna_mat4 *m, int32_t n)
{
    put_str(b, ",\n  \"");
    put_str(b, key);
    put_str(b, "\": [");
    for (int32_t i = 0; i < n; i++) {
        put_str(b, i ? ",\n    [" : "\n    [");
        for (int k = 0; k < 16; k++) {
            if (k) put_str(b, ", ");
            put_float(b, m[i].m[k]);
        }
        put_str(b, "]");
    }
    put_str(b, n ? "\n  ]" : "]");
}

cna_result cna_cnj_write_memory(const cna_skinning_data *data, const cna_allocator *allocator,
                                char **out_text, size_t *out_size, cna_error *err)
{
    if (!data || !out_text || !out_size)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cnj write: NULL %s",
                          !data ? "data" : !out_text ? "out_text" : "out_size");
    /* The skeleton part only: clips are not written. */
    cna_skinning_data skeleton = *data;
    skeleton.clips = NULL;
    skeleton.clip_count = 0;
    cna_result r = cna_skinning_data_validate(&skeleton, err);
    if (r) {
        cna__error_prefix(err, "cnj write");
        return r;
    }
    text_buf b;
    memset(&b, 0, sizeof b);
    b.alloc = cna__allocator_resolve(allocator);
    const int32_t n = data->bone_count;
    char tmp[64];
    put_str(&b, "{\n  \"format\": \"" CNA_CNJ_FORMAT "\",\n");
    snprintf(tmp, sizeof tmp, "  \"bone_count\": %d,\n  \"hierarchy\": [", (int)n);
    put_str(&b, tmp);
    for (int32_t i = 0; i < n; i++) {
        snprintf(tmp, sizeof tmp, "%s%d", i ? ", " : "", (int)(data->hierarchy[i] < 0 ? -1 : data->hierarchy[i]));
        put_str(&b, tmp);
    }
    put_str(&b, "]");
    put_matrices(&b, "bind_pose", data->bind_pose, n);
    put_matrices(&b, "inverse_bind_pose", data->inverse_bind_pose, n);
    if (n > 0 && data->root_prefix_count == (size_t)n)
        put_matrices(&b, "root_prefix", data->root_prefix, n);
    put_str(&b, "\n}\n");
    if (b.failed) {
        cna__free(&b.alloc, b.data);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "cnj write: out of memory (%d bones)", (int)n);
    }
    *out_text = b.data;
    *out_size = b.size;
    return CNA_OK;
}

void cna_cnj_text_free(const cna_allocator *allocator, char *text)
{
    if (!text) return;
    cna_allocator a = cna__allocator_resolve(allocator);
    cna__free(&a, text);
}

cna_result cna_cnj_write_file(const char *path, const cna_skinning_data *data, cna_error *err)
{
    if (!path) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cnj write: NULL path");
    char *text = NULL;
    size_t size = 0;
    cna_result r = cna_cnj_write_memory(data, NULL, &text, &size, err);
    if (r) return r;
    r = cna__file_write(path, text, size, NULL, err);
    cna_cnj_text_free(NULL, text);
    return r;
}

/* ------------------------------------------------------------------ reading */

void cna_cnj_skeleton_free(cna_cnj_skeleton *s)
{
    if (!s) return;
    cna_allocator a = s->allocator;
    cna__free(&a, s->hierarchy);
    cna__free(&a, s->bind_pose);
    cna__free(&a, s->inverse_bind_pose);
    cna__free(&a, s->root_prefix);
    cna__free(&a, s);
}

const cna_skinning_data *cna_cnj_skeleton_data(const cna_cnj_skeleton *s)
{
    return s ? &s->data : NULL;
}

/* An array member of exactly n entries (`required`), or absent (*out = NULL). */
static cna_result get_array(const cJSON *root, const char *key, int32_t n, bool required,
                            const cJSON **out, cna_error *err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    *out = NULL;
    if (!a) {
        if (!required) return CNA_OK;
        return cna__error(err, CNA_ERROR_INVALID_DATA, "cnj: \"%s\" is missing", key);
    }
    if (!cJSON_IsArray(a))
        return cna__error(err, CNA_ERROR_INVALID_DATA, "cnj: \"%s\" is not an array", key);
    int size = cJSON_GetArraySize(a);
    if (size != n)
        return cna__error(err, CNA_ERROR_INVALID_DATA, "cnj: %s: %d entries; bone_count is %d", key,
                          size, (int)n);
    *out = a;
    return CNA_OK;
}

static cna_result read_matrices(const cJSON *a, const char *key, cna_mat4 *out, cna_error *err)
{
    int32_t i = 0;
    for (const cJSON *e = a ? a->child : NULL; e; e = e->next, i++) {
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 16)
            return cna__error(err, CNA_ERROR_INVALID_DATA, "cnj: %s[%d]: not an array of 16 numbers",
                              key, (int)i);
        int k = 0;
        for (const cJSON *v = e->child; v; v = v->next, k++) {
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
                !isfinite((float)v->valuedouble))
                return cna__error(err, CNA_ERROR_INVALID_DATA, "cnj: %s[%d][%d]: not a finite number",
                                  key, (int)i, k);
            out[i].m[k] = (float)v->valuedouble;
        }
    }
    return CNA_OK;
}

static cna_result read_hierarchy(const cJSON *a, int32_t *out, cna_error *err)
{
    int32_t i = 0;
    for (const cJSON *v = a ? a->child : NULL; v; v = v->next, i++) {
        double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
        if (!isfinite(d) || d != floor(d))
            return cna__error(err, CNA_ERROR_INVALID_DATA, "cnj: hierarchy[%d]: not an integer", (int)i);
        if (d >= (double)i)
            return cna__error(err, CNA_ERROR_INVALID_DATA,
                              "cnj: hierarchy[%d]: parent %.0f is not below own index %d", (int)i, d,
                              (int)i);
        out[i] = d < 0 ? -1 : (int32_t)d;
    }
    return CNA_OK;
}

static cna_result read_bone_count(const cJSON *root, int32_t *out, cna_error *err)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "bone_count");
    if (!c) return cna__error(err, CNA_ERROR_INVALID_DATA, "cnj: \"bone_count\" is missing");
    double d = cJSON_IsNumber(c) ? c->valuedouble : NAN;
    if (!isfinite(d) || d != floor(d))
        return cna__error(err, CNA_ERROR_INVALID_DATA, "cnj: bone_count: not an integer");
    if (d < 0)
        return cna__error(err, CNA_ERROR_INVALID_DATA, "cnj: bone_count: %.0f is outside 0..%d", d,
                          CNA_MAX_BONE_COUNT);
    if (d > CNA_MAX_BONE_COUNT)
        return cna__error(err, CNA_ERROR_LIMIT, "cnj: bone_count: %.0f is outside 0..%d", d,
                          CNA_MAX_BONE_COUNT);
    *out = (int32_t)d;
    return CNA_OK;
}

static cna_result read_root(const cJSON *root, const cna_allocator *alloc, cna_cnj_skeleton **out,
                            cna_error *err)
{
    if (!cJSON_IsObject(root))
        return cna__error(err, CNA_ERROR_INVALID_DATA, "cnj: the root is not an object");
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (format && (!cJSON_IsString(format) || strcmp(format->valuestring, CNA_CNJ_FORMAT) != 0))
        return cna__error(err, CNA_ERROR_INVALID_DATA, "cnj: format is not \"%s\"", CNA_CNJ_FORMAT);
    int32_t n = 0;
    cna_result r = read_bone_count(root, &n, err);
    if (r) return r;
    const cJSON *hier, *bind, *inv, *prefix;
    if ((r = get_array(root, "hierarchy", n, true, &hier, err)) ||
        (r = get_array(root, "bind_pose", n, true, &bind, err)) ||
        (r = get_array(root, "inverse_bind_pose", n, true, &inv, err)) ||
        (r = get_array(root, "root_prefix", n, false, &prefix, err)))
        return r;
    if (prefix && n == 0) prefix = NULL;
    /* Lengths are known good: now allocate. */
    cna_cnj_skeleton *s = (cna_cnj_skeleton *)cna__calloc(alloc, 1, sizeof *s);
    if (!s) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "cnj: out of memory");
    s->allocator = *alloc;
    size_t count = n ? (size_t)n : 1;
    s->hierarchy = (int32_t *)cna__calloc(alloc, count, sizeof(int32_t));
    s->bind_pose = (cna_mat4 *)cna__calloc(alloc, count, sizeof(cna_mat4));
    s->inverse_bind_pose = (cna_mat4 *)cna__calloc(alloc, count, sizeof(cna_mat4));
    if (prefix) s->root_prefix = (cna_mat4 *)cna__calloc(alloc, count, sizeof(cna_mat4));
    if (!s->hierarchy || !s->bind_pose || !s->inverse_bind_pose || (prefix && !s->root_prefix)) {
        cna_cnj_skeleton_free(s);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "cnj: out of memory (%d bones)", (int)n);
    }
    if ((r = read_hierarchy(hier, s->hierarchy, err)) ||
        (r = read_matrices(bind, "bind_pose", s->bind_pose, err)) ||
        (r = read_matrices(inv, "inverse_bind_pose", s->inverse_bind_pose, err)) ||
        (prefix && (r = read_matrices(prefix, "root_prefix", s->root_prefix, err)))) {
        cna_cnj_skeleton_free(s);
        return r;
    }
    s->data = cna_skinning_data_make(n, s->hierarchy, s->bind_pose, s->inverse_bind_pose);
    if (prefix) {
        s->data.root_prefix = s->root_prefix;
        s->data.root_prefix_count = (size_t)n;
    }
    *out = s;
    return CNA_OK;
}

cna_result cna_cnj_read_memory(const char *text, size_t size, const cna_allocator *allocator,
                               cna_cnj_skeleton **out, cna_error *err)
{
    if ((!text && size > 0) || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cnj read: NULL %s", out ? "text" : "out");
    cna_allocator alloc = cna__allocator_resolve(allocator);
    const char *end = NULL;
    cJSON *root = size ? cna__json_parse(text, size, &end) : NULL; /* serialised, src/import/json.c */
    if (!root) {
        size_t at = (end && end >= text && end <= text + size) ? (size_t)(end - text) : 0;
        if (cna__json_too_deep(text, size, at))
            return cna__error(err, CNA_ERROR_PARSE, "cnj: JSON nested deeper than %d levels at byte %zu",
                              CNA__JSON_MAX_DEPTH, at);
        return cna__error(err, CNA_ERROR_PARSE, "cnj: not valid JSON near byte %zu", at);
    }
    /* One JSON value: nothing but whitespace (or NUL padding, as the glTF reader allows) after it. */
    for (size_t at = end ? (size_t)(end - text) : size; at < size; at++) {
        const char ch = text[at];
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != '\0') {
            cJSON_Delete(root);
            return cna__error(err, CNA_ERROR_PARSE, "cnj: trailing data after the JSON value at byte %zu", at);
        }
    }
    /* A NUL (\u0000) would cut a string short ("format"): refused (src/import/json.c). */
    char nul_path[128];
    bool nul_key = false;
    size_t nul_member = 0;
    if (cna__json_find_nul(text, end ? (size_t)(end - text) : size, root, nul_path, sizeof nul_path, &nul_key,
                           &nul_member)) {
        cJSON_Delete(root);
        if (nul_key)
            return cna__error(err, CNA_ERROR_PARSE, "cnj: %s: the name of member %zu contains a NUL character (\\u0000)",
                              nul_path, nul_member);
        return cna__error(err, CNA_ERROR_PARSE, "cnj: %s: string contains a NUL character (\\u0000)", nul_path);
    }
    cna_result r = read_root(root, &alloc, out, err);
    cJSON_Delete(root);
    return r;
}

cna_result cna_cnj_read_file(const char *path, const cna_allocator *allocator,
                             cna_cnj_skeleton **out, cna_error *err)
{
    if (!path || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cnj read: NULL %s", path ? "out" : "path");
    FILE *f;
    uint64_t len;
    int e = cna__file_open_regular(path, &f, &len);
    if (e == CNA__FILE_NOT_REGULAR) return cna__error(err, CNA_ERROR_IO, "%s: not a regular file", path);
    if (e) return cna__error(err, CNA_ERROR_IO, "%s: %s", path, strerror(e));
    if (len > (uint64_t)CNA_CNJ_MAX_FILE_SIZE) {
        fclose(f);
        return cna__error(err, CNA_ERROR_LIMIT, "%s: %llu bytes exceed the limit of %zu bytes", path,
                          (unsigned long long)len, (size_t)CNA_CNJ_MAX_FILE_SIZE);
    }
    cna_allocator alloc = cna__allocator_resolve(allocator);
    const size_t size = (size_t)len;
    char *text = (char *)cna__alloc(&alloc, size);
    cna_result r = CNA_OK;
    if (!text) {
        r = cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory (%zu bytes)", path, size);
    } else {
        size_t got = size ? fread(text, 1, size, f) : 0;
        if (got != size) r = cna__error(err, CNA_ERROR_IO, "%s: read %zu of %zu bytes", path, got, size);
    }
    fclose(f);
    if (!r) {
        r = cna_cnj_read_memory(text, size, allocator, out, err);
        if (r) cna__error_prefix(err, "%s", path);
    }
    cna__free(&alloc, text);
    return r;
}
