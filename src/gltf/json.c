/* Typed access to JSON members with errors that name the JSON path:
 * "accessors[3].count: -1 is negative". Numbers arrive as doubles; every
 * conversion checks finiteness, integrality and range before converting. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gltf/gltf_internal.h"

/* 2^53: the largest range in which every integer is exactly a double. */
#define CNA__JSON_MAX_EXACT 9007199254740992.0

const cna__json *cna__gltf_json_get(const cna__json *obj, const char *key)
{
    if (!cna__gltf_is_object(obj) || !key) return NULL;
    /* cJSON_GetObjectItemCaseSensitive: the first child named key; a child
     * without a name ends the search */
    for (const cna__json *v = obj->child; v && v->string; v = v->next)
        if (v->string[0] == key[0] && strcmp(v->string, key) == 0) return v;
    return NULL;
}

const char *cna__gltf_json_type_name(const cna__json *v)
{
    if (!v) return "nothing";
    if (cna__gltf_is_bool(v)) return "boolean";
    if (cna__gltf_is_null(v)) return "null";
    if (cna__gltf_is_number(v)) return "number";
    if (cna__gltf_is_string(v)) return "string";
    if (cna__gltf_is_array(v)) return "array";
    if (cna__gltf_is_object(v)) return "object";
    return "invalid value";
}

cna_result cna__gltf_json_expect_object(const cna__json *v, const char *path, cna_error *err)
{
    if (cna__gltf_is_object(v)) return CNA_OK;
    return cna__error(err, CNA_ERROR_INVALID_DATA, "%s: expected an object, got %s", path,
                      cna__gltf_json_type_name(v));
}

/* Member lookup with the required/type check shared by every getter. */
static cna_result member(const cna__json *obj, const char *key, const char *path, bool required,
                         bool (*is_type)(const cna__json *), const char *type_name, const cna__json **out,
                         cna_error *err)
{
    const cna__json *v = cna__gltf_json_get(obj, key);
    *out = NULL;
    if (!v) {
        if (required)
            return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s: required property is missing", path, key);
        return CNA_OK;
    }
    if (!is_type(v))
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s: expected %s, got %s", path, key, type_name,
                          cna__gltf_json_type_name(v));
    *out = v;
    return CNA_OK;
}

/* An integer-valued double in [min, max], or an error naming it. */
static cna_result integer_value(double d, const char *path, const char *key, double min, double max,
                                double *out, cna_error *err)
{
    if (isfinite(d) && d == floor(d) && d >= min && d <= max) {
        *out = d; /* the common case: no message to format */
        return CNA_OK;
    }
    char num[32];
    cna__gltf_fmt_double(num, sizeof num, d);
    if (!isfinite(d) || d != floor(d))
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s%s%s: %s is not an integer", path, key ? "." : "",
                          key ? key : "", num);
    if (d < min) {
        if (min == 0.0)
            return cna__error(err, CNA_ERROR_INVALID_DATA, "%s%s%s: %s is negative", path, key ? "." : "",
                              key ? key : "", num);
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s%s%s: %s is below the minimum %.0f", path,
                          key ? "." : "", key ? key : "", num, min);
    }
    if (d > max)
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s%s%s: %s is above the maximum %.0f", path,
                          key ? "." : "", key ? key : "", num, max);
    *out = d;
    return CNA_OK;
}

cna_result cna__gltf_json_int(const cna__json *obj, const char *key, const char *path, bool required, int64_t min,
                         int64_t max, int64_t *out, cna_error *err)
{
    const cna__json *v;
    cna_result r = member(obj, key, path, required, cna__gltf_is_number, "a number", &v, err);
    if (r || !v) return r;
    double d;
    r = integer_value(v->valuedouble, path, key, (double)min, (double)max, &d, err);
    if (r) return r;
    *out = (int64_t)d;
    return CNA_OK;
}

cna_result cna__gltf_json_size(const cna__json *obj, const char *key, const char *path, bool required, size_t *out,
                          cna_error *err)
{
    const cna__json *v;
    cna_result r = member(obj, key, path, required, cna__gltf_is_number, "a number", &v, err);
    if (r || !v) return r;
    double max = CNA__JSON_MAX_EXACT;
    if ((double)SIZE_MAX < max) max = (double)SIZE_MAX;
    double d;
    r = integer_value(v->valuedouble, path, key, 0.0, max, &d, err);
    if (r) return r;
    *out = (size_t)d;
    return CNA_OK;
}

cna_result cna__gltf_json_index_value(const cna__json *v, const char *path, size_t count, const char *what, int32_t *out,
                                 cna_error *err)
{
    if (!cna__gltf_is_number(v))
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s: expected a number, got %s", path,
                          cna__gltf_json_type_name(v));
    double d;
    cna_result r = integer_value(v->valuedouble, path, NULL, 0.0, (double)INT32_MAX, &d, err);
    if (r) return r;
    if ((size_t)d >= count)
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s: %.0f is out of range (%zu %s)", path, d, count, what);
    *out = (int32_t)d;
    return CNA_OK;
}

cna_result cna__gltf_json_index(const cna__json *obj, const char *key, const char *path, bool required, size_t count,
                           const char *what, int32_t *out, cna_error *err)
{
    int64_t v = -1;
    cna_result r = cna__gltf_json_int(obj, key, path, required, 0, INT32_MAX, &v, err);
    if (r) return r;
    if (v >= 0 && (uint64_t)v >= (uint64_t)count)
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s: %lld is out of range (%zu %s)", path, key,
                          (long long)v, count, what);
    *out = (int32_t)v;
    return CNA_OK;
}

static cna_result float_value(const cna__json *v, const char *path, const char *key, size_t i, bool indexed,
                              float *out, cna_error *err)
{
    if (!cna__gltf_is_number(v)) {
        if (indexed)
            return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s[%zu]: expected a number, got %s", path, key, i,
                              cna__gltf_json_type_name(v));
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s: expected a number, got %s", path, key,
                          cna__gltf_json_type_name(v));
    }
    double d = v->valuedouble;
    if (!isfinite(d) || d > FLT_MAX || d < -FLT_MAX) {
        char num[32];
        cna__gltf_fmt_double(num, sizeof num, d);
        if (indexed)
            return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s[%zu]: %s is not a finite float", path, key, i,
                              num);
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s: %s is not a finite float", path, key, num);
    }
    *out = (float)d;
    return CNA_OK;
}

cna_result cna__gltf_json_float(const cna__json *obj, const char *key, const char *path, bool required, float *out,
                           cna_error *err)
{
    const cna__json *v;
    cna_result r = member(obj, key, path, required, cna__gltf_is_number, "a number", &v, err);
    if (r || !v) return r;
    return float_value(v, path, key, 0, false, out, err);
}

cna_result cna__gltf_json_floats(const cna__json *obj, const char *key, const char *path, size_t n, float *out,
                            bool *present, cna_error *err)
{
    const cna__json *arr;
    size_t count;
    if (present) *present = false;
    cna_result r = cna__gltf_json_array(obj, key, path, false, 0, &arr, &count, err);
    if (r || !arr) return r;
    if (count != n)
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s: %zu numbers; expected %zu", path, key, count, n);
    float tmp[16];
    size_t i = 0;
    const cna__json *item;
    cna__json_for_each(item, arr)
    {
        r = float_value(item, path, key, i, true, &tmp[i], err);
        if (r) return r;
        i++;
    }
    for (i = 0; i < n; i++) out[i] = tmp[i];
    if (present) *present = true;
    return CNA_OK;
}

cna_result cna__gltf_json_float_array(cna__gltf_ctx *c, const cna__json *obj, const char *key, const char *path,
                                 size_t min_items, float **out, size_t *count)
{
    const cna__json *arr;
    size_t n;
    *out = NULL;
    *count = 0;
    cna_result r = cna__gltf_json_array(obj, key, path, false, min_items, &arr, &n, c->err);
    if (r || !arr || n == 0) return r;
    float *values = (float *)cna__gltf_arena_calloc(c->arena, n, sizeof *values);
    if (!values) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s.%s: out of memory", path, key);
    size_t i = 0;
    const cna__json *item;
    cna__json_for_each(item, arr)
    {
        r = float_value(item, path, key, i, true, &values[i], c->err);
        if (r) return r;
        i++;
    }
    *out = values;
    *count = n;
    return CNA_OK;
}

cna_result cna__gltf_json_bool(const cna__json *obj, const char *key, const char *path, bool *out, cna_error *err)
{
    const cna__json *v;
    cna_result r = member(obj, key, path, false, cna__gltf_is_bool, "a boolean", &v, err);
    if (r || !v) return r;
    *out = cna__gltf_is_true(v);
    return CNA_OK;
}

cna_result cna__gltf_json_string_ref(const cna__json *obj, const char *key, const char *path, bool required,
                                const char **out, cna_error *err)
{
    const cna__json *v;
    *out = NULL;
    cna_result r = member(obj, key, path, required, cna__gltf_is_string, "a string", &v, err);
    if (r || !v) return r;
    /* JSON text is UTF-8 (RFC 8259 section 8.1); cJSON does not check it. */
    const size_t len = strlen(v->valuestring), bad = cna__utf8_invalid_at(v->valuestring, len);
    if (bad < len) return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s: invalid UTF-8 at byte %zu", path, key, bad);
    *out = v->valuestring;
    return CNA_OK;
}

cna_result cna__gltf_json_string(cna__gltf_ctx *c, const cna__json *obj, const char *key, const char *path,
                            bool required, const char **out)
{
    const char *s;
    *out = NULL;
    cna_result r = cna__gltf_json_string_ref(obj, key, path, required, &s, c->err);
    if (r || !s) return r;
    char *copy = cna__gltf_arena_strdup(c->arena, s);
    if (!copy) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s.%s: out of memory", path, key);
    *out = copy;
    return CNA_OK;
}

cna_result cna__gltf_json_array(const cna__json *obj, const char *key, const char *path, bool required,
                           size_t min_items, const cna__json **out, size_t *count, cna_error *err)
{
    const cna__json *v;
    *out = NULL;
    *count = 0;
    cna_result r = member(obj, key, path, required, cna__gltf_is_array, "an array", &v, err);
    if (r || !v) return r;
    int n = cna__json_count(v);
    size_t size = n > 0 ? (size_t)n : 0;
    if (size < min_items)
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s: %zu entries; at least %zu required", path, key,
                          size, min_items);
    *out = v;
    *count = size;
    return CNA_OK;
}

cna_result cna__gltf_json_index_array(cna__gltf_ctx *c, const cna__json *obj, const char *key, const char *path,
                                 bool required, size_t min_items, size_t count, const char *what,
                                 int32_t **out, size_t *n)
{
    const cna__json *arr;
    size_t size;
    *out = NULL;
    *n = 0;
    cna_result r = cna__gltf_json_array(obj, key, path, required, min_items, &arr, &size, c->err);
    if (r || !arr || size == 0) return r;
    int32_t *values = (int32_t *)cna__gltf_arena_calloc(c->arena, size, sizeof *values);
    if (!values) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s.%s: out of memory", path, key);
    size_t i = 0;
    const cna__json *item;
    cna__json_for_each(item, arr)
    {
        double d = cna__gltf_is_number(item) ? item->valuedouble : -1.0;
        if (d >= 0.0 && d < (double)count && d <= (double)INT32_MAX && d == floor(d)) {
            values[i++] = (int32_t)d; /* fast path; the message is only formatted on failure */
            continue;
        }
        char item_path[CNA__PATH_MAX];
        cna__gltf_pathf(item_path, sizeof item_path, "%s.%s[%zu]", path, key, i);
        r = cna__gltf_json_index_value(item, item_path, count, what, &values[i], c->err);
        if (r) return r;
        i++;
    }
    *out = values;
    *n = size;
    return CNA_OK;
}
