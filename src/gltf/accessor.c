/* Accessors: parsing with every offset, stride and count checked (overflow-
 * safe) against its bufferView, sparse storage checked entry by entry, and
 * the public read functions, which rely on those load-time checks. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gltf/gltf_internal.h"

/* ------------------------------------------------------------------ layout */

static size_t matrix_rows(cna_gltf_type t)
{
    switch (t) {
    case CNA_GLTF_TYPE_MAT2: return 2;
    case CNA_GLTF_TYPE_MAT3: return 3;
    case CNA_GLTF_TYPE_MAT4: return 4;
    default: return 0;
    }
}

/* Bytes of one matrix column: columns start on 4-byte boundaries (glTF 2.0,
 * "Data alignment"), so MAT2/MAT3 of bytes and MAT3 of shorts are padded. */
static size_t column_bytes(const cna_gltf_accessor *a)
{
    size_t b = matrix_rows(a->type) * cna_gltf_component_size(a->component_type);
    return (b + 3) & ~(size_t)3;
}

static size_t element_size(const cna_gltf_accessor *a)
{
    size_t rows = matrix_rows(a->type);
    if (rows) return rows * column_bytes(a);
    return cna_gltf_type_component_count(a->type) * cna_gltf_component_size(a->component_type);
}

/* Bytes one element occupies, without the padding after its last matrix
 * column: what the last element of a range needs. */
static size_t element_extent(const cna_gltf_accessor *a)
{
    size_t rows = matrix_rows(a->type);
    if (!rows) return a->element_size;
    return (rows - 1) * column_bytes(a) + rows * cna_gltf_component_size(a->component_type);
}

static size_t component_offset(const cna_gltf_accessor *a, size_t comp)
{
    size_t rows = matrix_rows(a->type), csize = cna_gltf_component_size(a->component_type);
    if (rows) return comp / rows * column_bytes(a) + comp % rows * csize;
    return comp * csize;
}

/* ------------------------------------------------------------------ conversion */

static uint32_t u16le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* glTF 2.0 "Animations" / accessor normalization: signed values clamp at -1. */
static float component_float(const uint8_t *p, cna_gltf_component_type ct, bool normalized)
{
    switch (ct) {
    case CNA_GLTF_COMPONENT_BYTE: {
        int v = p[0] >= 128 ? (int)p[0] - 256 : (int)p[0];
        return normalized ? fmaxf((float)v / 127.0f, -1.0f) : (float)v;
    }
    case CNA_GLTF_COMPONENT_UNSIGNED_BYTE: return normalized ? (float)p[0] / 255.0f : (float)p[0];
    case CNA_GLTF_COMPONENT_SHORT: {
        uint32_t u = u16le(p);
        int v = u >= 32768u ? (int)u - 65536 : (int)u;
        return normalized ? fmaxf((float)v / 32767.0f, -1.0f) : (float)v;
    }
    case CNA_GLTF_COMPONENT_UNSIGNED_SHORT: {
        uint32_t u = u16le(p);
        return normalized ? (float)u / 65535.0f : (float)u;
    }
    case CNA_GLTF_COMPONENT_UNSIGNED_INT: {
        uint32_t u = u32le(p);
        return normalized ? (float)((double)u / 4294967295.0) : (float)u;
    }
    case CNA_GLTF_COMPONENT_FLOAT: {
        uint32_t u = u32le(p);
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    default: return 0.0f;
    }
}

static uint32_t component_uint(const uint8_t *p, cna_gltf_component_type ct)
{
    switch (ct) {
    case CNA_GLTF_COMPONENT_UNSIGNED_BYTE: return p[0];
    case CNA_GLTF_COMPONENT_UNSIGNED_SHORT: return u16le(p);
    case CNA_GLTF_COMPONENT_UNSIGNED_INT: return u32le(p);
    default: return 0;
    }
}

/* ------------------------------------------------------------------ element access */

static const uint8_t *view_data(const cna_gltf_document *doc, int32_t view)
{
    return doc->buffer_views[view].data;
}

/* Position of `element` among the sparse indices, or -1. */
static ptrdiff_t sparse_find(const cna_gltf_document *doc, const cna_gltf_accessor *a, size_t element)
{
    const cna_gltf_accessor_sparse *s = &a->sparse;
    const uint8_t *idx = view_data(doc, s->indices_buffer_view) + s->indices_byte_offset;
    size_t isize = cna_gltf_component_size(s->indices_component_type);
    size_t lo = 0, hi = s->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t v = component_uint(idx + mid * isize, s->indices_component_type);
        if (v == element) return (ptrdiff_t)mid;
        if (v < element) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/* Bytes of element `element` (sparse substitution applied), or NULL for zeros. */
static const uint8_t *element_bytes(const cna_gltf_document *doc, const cna_gltf_accessor *a, size_t element)
{
    if (a->is_sparse) {
        ptrdiff_t k = sparse_find(doc, a, element);
        if (k >= 0)
            return view_data(doc, a->sparse.values_buffer_view) + a->sparse.values_byte_offset +
                   (size_t)k * a->element_size;
    }
    if (a->buffer_view < 0) return NULL;
    return view_data(doc, a->buffer_view) + a->byte_offset + element * a->byte_stride;
}

/* Local copies of the public size tables, inlined in the per-element paths. */
static size_t comp_size(cna_gltf_component_type t)
{
    static const uint8_t n[CNA_GLTF_COMPONENT_COUNT] = {0, 1, 1, 2, 2, 4, 4};
    return (unsigned)t < (unsigned)CNA_GLTF_COMPONENT_COUNT ? n[t] : 0;
}

static size_t comp_count(cna_gltf_type t)
{
    static const uint8_t n[CNA_GLTF_TYPE_COUNT] = {0, 1, 2, 3, 4, 4, 9, 16};
    return (unsigned)t < (unsigned)CNA_GLTF_TYPE_COUNT ? n[t] : 0;
}

static void bytes_to_floats(const cna_gltf_accessor *a, const uint8_t *p, float *out)
{
    size_t n = comp_count(a->type);
    if (!p) {
        for (size_t comp = 0; comp < n; comp++) out[comp] = 0.0f;
    } else if (a->component_type == CNA_GLTF_COMPONENT_FLOAT) {
        /* float matrix columns need no padding: components are contiguous */
        for (size_t comp = 0; comp < n; comp++) {
            uint32_t u = u32le(p + comp * 4);
            memcpy(&out[comp], &u, sizeof u);
        }
    } else if (a->type >= CNA_GLTF_TYPE_MAT2) {
        for (size_t comp = 0; comp < n; comp++)
            out[comp] = component_float(p + component_offset(a, comp), a->component_type, a->normalized);
    } else {
        size_t csize = comp_size(a->component_type);
        for (size_t comp = 0; comp < n; comp++)
            out[comp] = component_float(p + comp * csize, a->component_type, a->normalized);
    }
}

static void bytes_to_uints(const cna_gltf_accessor *a, const uint8_t *p, uint32_t *out)
{
    size_t n = cna_gltf_type_component_count(a->type);
    for (size_t comp = 0; comp < n; comp++)
        out[comp] = p ? component_uint(p + component_offset(a, comp), a->component_type) : 0u;
}

void cna__gltf_accessor_element_floats(const cna_gltf_document *doc, const cna_gltf_accessor *acc, size_t element,
                                  float *out)
{
    if (!acc->is_sparse && acc->buffer_view >= 0 && acc->component_type == CNA_GLTF_COMPONENT_FLOAT) {
        const uint8_t *p = view_data(doc, acc->buffer_view) + acc->byte_offset + element * acc->byte_stride;
        size_t n = comp_count(acc->type);
        for (size_t comp = 0; comp < n; comp++) {
            uint32_t u = u32le(p + comp * 4);
            memcpy(&out[comp], &u, sizeof u);
        }
        return;
    }
    bytes_to_floats(acc, element_bytes(doc, acc, element), out);
}

const uint8_t *cna__gltf_accessor_float_base(const cna_gltf_document *doc, const cna_gltf_accessor *acc)
{
    if (acc->is_sparse || acc->buffer_view < 0 || acc->component_type != CNA_GLTF_COMPONENT_FLOAT) return NULL;
    return view_data(doc, acc->buffer_view) + acc->byte_offset;
}

bool cna__gltf_accessor_all_finite(const cna_gltf_document *doc, const cna_gltf_accessor *acc)
{
    const uint8_t *base = cna__gltf_accessor_float_base(doc, acc);
    if (!base) return false;
    size_t n = comp_count(acc->type);
    /* exponent all ones <=> (u & 0x7f800000) + 0x00800000 reaches bit 31 */
    uint32_t bad = 0;
    if (acc->byte_stride == n * 4) { /* tightly packed: one run of floats */
        size_t total = acc->count * n, i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        uint64_t bad2 = 0; /* two floats a step: no carry crosses from the low one */
        for (; i + 2 <= total; i += 2) {
            uint64_t w;
            memcpy(&w, base + i * 4, sizeof w);
            bad2 |= (w & 0x7f8000007f800000u) + 0x0080000000800000u;
        }
        bad = (uint32_t)bad2 | (uint32_t)(bad2 >> 32);
#endif
        for (; i < total; i++) bad |= (u32le(base + i * 4) & 0x7f800000u) + 0x00800000u;
        return (bad & 0x80000000u) == 0;
    }
    for (size_t e = 0; e < acc->count; e++) {
        const uint8_t *p = base + e * acc->byte_stride;
        for (size_t comp = 0; comp < n; comp++) bad |= (u32le(p + comp * 4) & 0x7f800000u) + 0x00800000u;
    }
    return (bad & 0x80000000u) == 0;
}

void cna__gltf_accessor_element_uints(const cna_gltf_document *doc, const cna_gltf_accessor *acc, size_t element,
                                 uint32_t *out)
{
    if (!acc->is_sparse && acc->buffer_view >= 0 && acc->type < CNA_GLTF_TYPE_MAT2) {
        /* scalars and vectors: components packed, no column padding */
        const uint8_t *p = view_data(doc, acc->buffer_view) + acc->byte_offset + element * acc->byte_stride;
        size_t n = comp_count(acc->type);
        switch (acc->component_type) {
        case CNA_GLTF_COMPONENT_UNSIGNED_BYTE:
            for (size_t comp = 0; comp < n; comp++) out[comp] = p[comp];
            return;
        case CNA_GLTF_COMPONENT_UNSIGNED_SHORT:
            for (size_t comp = 0; comp < n; comp++) out[comp] = u16le(p + 2 * comp);
            return;
        case CNA_GLTF_COMPONENT_UNSIGNED_INT:
            for (size_t comp = 0; comp < n; comp++) out[comp] = u32le(p + 4 * comp);
            return;
        default: break;
        }
    }
    bytes_to_uints(acc, element_bytes(doc, acc, element), out);
}

void cna__gltf_accessor_describe(const cna_gltf_accessor *acc, char *buf, size_t size)
{
    cna__gltf_pathf(buf, size, "%s %s%s", cna_gltf_type_name(acc->type), acc->normalized ? "normalized " : "",
             cna_gltf_component_type_name(acc->component_type));
}

/* ------------------------------------------------------------------ public reads */

static cna_result check_read(const cna_gltf_document *doc, int32_t accessor, const void *out, size_t out_count,
                             size_t needed, bool uints, cna_error *err)
{
    if (!doc || !out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "document or output is NULL");
    if (accessor < 0 || (size_t)accessor >= doc->accessor_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "accessor %d is out of range (%zu accessors)",
                          (int)accessor, doc->accessor_count);
    const cna_gltf_accessor *a = &doc->accessors[accessor];
    if (uints && a->component_type != CNA_GLTF_COMPONENT_UNSIGNED_BYTE &&
        a->component_type != CNA_GLTF_COMPONENT_UNSIGNED_SHORT &&
        a->component_type != CNA_GLTF_COMPONENT_UNSIGNED_INT)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "accessors[%d]: componentType %s cannot be read as unsigned integers", (int)accessor,
                          cna_gltf_component_type_name(a->component_type));
    if (out_count < needed)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "accessors[%d]: out_count %zu is smaller than %zu",
                          (int)accessor, out_count, needed);
    return CNA_OK;
}

size_t cna_gltf_accessor_float_count(const cna_gltf_document *doc, int32_t accessor)
{
    if (!doc || accessor < 0 || (size_t)accessor >= doc->accessor_count) return 0;
    const cna_gltf_accessor *a = &doc->accessors[accessor];
    return a->count * cna_gltf_type_component_count(a->type); /* bounded at load time */
}

/* Sparse values over the dense read, written by read_floats/read_uints. */
static void apply_sparse(const cna_gltf_document *doc, const cna_gltf_accessor *a, void *out, bool uints)
{
    const cna_gltf_accessor_sparse *s = &a->sparse;
    const uint8_t *idx = view_data(doc, s->indices_buffer_view) + s->indices_byte_offset;
    const uint8_t *val = view_data(doc, s->values_buffer_view) + s->values_byte_offset;
    size_t isize = cna_gltf_component_size(s->indices_component_type);
    size_t n = cna_gltf_type_component_count(a->type);
    for (size_t k = 0; k < s->count; k++) {
        size_t e = component_uint(idx + k * isize, s->indices_component_type);
        if (uints) bytes_to_uints(a, val + k * a->element_size, (uint32_t *)out + e * n);
        else bytes_to_floats(a, val + k * a->element_size, (float *)out + e * n);
    }
}

cna_result cna_gltf_accessor_read_floats(const cna_gltf_document *doc, int32_t accessor, float *out,
                                         size_t out_count, cna_error *err)
{
    cna_result r = check_read(doc, accessor, out, out_count, cna_gltf_accessor_float_count(doc, accessor), false,
                              err);
    if (r) return r;
    const cna_gltf_accessor *a = &doc->accessors[accessor];
    size_t n = cna_gltf_type_component_count(a->type);
    const uint8_t *base = a->buffer_view >= 0 ? view_data(doc, a->buffer_view) + a->byte_offset : NULL;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (base && a->component_type == CNA_GLTF_COMPONENT_FLOAT && a->byte_stride == n * sizeof(float)) {
        memcpy(out, base, a->count * n * sizeof(float)); /* tightly packed little-endian floats: the same bits */
        if (a->is_sparse) apply_sparse(doc, a, out, false);
        return CNA_OK;
    }
#endif
    for (size_t e = 0; e < a->count; e++) bytes_to_floats(a, base ? base + e * a->byte_stride : NULL, out + e * n);
    if (a->is_sparse) apply_sparse(doc, a, out, false);
    return CNA_OK;
}

cna_result cna_gltf_accessor_read_uints(const cna_gltf_document *doc, int32_t accessor, uint32_t *out,
                                        size_t out_count, cna_error *err)
{
    cna_result r = check_read(doc, accessor, out, out_count, cna_gltf_accessor_float_count(doc, accessor), true,
                              err);
    if (r) return r;
    const cna_gltf_accessor *a = &doc->accessors[accessor];
    size_t n = cna_gltf_type_component_count(a->type);
    const uint8_t *base = a->buffer_view >= 0 ? view_data(doc, a->buffer_view) + a->byte_offset : NULL;
    if (base && a->type < CNA_GLTF_TYPE_MAT2 && a->component_type == CNA_GLTF_COMPONENT_UNSIGNED_SHORT) {
        for (size_t e = 0; e < a->count; e++)
            for (size_t comp = 0; comp < n; comp++) out[e * n + comp] = u16le(base + e * a->byte_stride + comp * 2);
    } else if (base && a->type < CNA_GLTF_TYPE_MAT2 && a->component_type == CNA_GLTF_COMPONENT_UNSIGNED_BYTE) {
        for (size_t e = 0; e < a->count; e++)
            for (size_t comp = 0; comp < n; comp++) out[e * n + comp] = base[e * a->byte_stride + comp];
    } else {
        for (size_t e = 0; e < a->count; e++)
            bytes_to_uints(a, base ? base + e * a->byte_stride : NULL, out + e * n);
    }
    if (a->is_sparse) apply_sparse(doc, a, out, true);
    return CNA_OK;
}

static cna_result check_element(const cna_gltf_document *doc, int32_t accessor, size_t element, const void *out,
                                size_t out_count, bool uints, cna_error *err)
{
    size_t comps = 0;
    if (doc && accessor >= 0 && (size_t)accessor < doc->accessor_count)
        comps = cna_gltf_type_component_count(doc->accessors[accessor].type);
    cna_result r = check_read(doc, accessor, out, out_count, comps, uints, err);
    if (r) return r;
    if (element >= doc->accessors[accessor].count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "accessors[%d]: element %zu is out of range (count %zu)",
                          (int)accessor, element, doc->accessors[accessor].count);
    return CNA_OK;
}

cna_result cna_gltf_accessor_read_element_floats(const cna_gltf_document *doc, int32_t accessor, size_t element,
                                                 float *out, size_t out_count, cna_error *err)
{
    cna_result r = check_element(doc, accessor, element, out, out_count, false, err);
    if (r) return r;
    cna__gltf_accessor_element_floats(doc, &doc->accessors[accessor], element, out);
    return CNA_OK;
}

cna_result cna_gltf_accessor_read_element_uints(const cna_gltf_document *doc, int32_t accessor, size_t element,
                                                uint32_t *out, size_t out_count, cna_error *err)
{
    cna_result r = check_element(doc, accessor, element, out, out_count, true, err);
    if (r) return r;
    cna__gltf_accessor_element_uints(doc, &doc->accessors[accessor], element, out);
    return CNA_OK;
}

/* ------------------------------------------------------------------ parsing */

static cna_result parse_component_type(const cna__json *obj, const char *path, bool indices_only,
                                       cna_gltf_component_type *out, cna_error *err)
{
    int64_t code = 0;
    cna_result r = cna__gltf_json_int(obj, "componentType", path, true, INT32_MIN, INT32_MAX, &code, err);
    if (r) return r;
    static const int64_t codes[] = {5120, 5121, 5122, 5123, 5125, 5126};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        if (codes[i] != code) continue;
        cna_gltf_component_type t = (cna_gltf_component_type)(CNA_GLTF_COMPONENT_BYTE + (int)i);
        if (indices_only && t != CNA_GLTF_COMPONENT_UNSIGNED_BYTE && t != CNA_GLTF_COMPONENT_UNSIGNED_SHORT &&
            t != CNA_GLTF_COMPONENT_UNSIGNED_INT)
            break;
        *out = t;
        return CNA_OK;
    }
    return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.componentType: %lld is not %s", path, (long long)code,
                      indices_only ? "5121, 5123 or 5125 (an unsigned integer type)" : "a valid component type");
}

static cna_result parse_type(const cna__json *obj, const char *path, cna_gltf_type *out, cna_error *err)
{
    const char *s;
    cna_result r = cna__gltf_json_string_ref(obj, "type", path, true, &s, err);
    if (r) return r;
    for (int t = CNA_GLTF_TYPE_SCALAR; t < CNA_GLTF_TYPE_COUNT; t++) {
        if (strcmp(s, cna_gltf_type_name((cna_gltf_type)t)) == 0) {
            *out = (cna_gltf_type)t;
            return CNA_OK;
        }
    }
    return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.type: \"%.40s\" is not a valid accessor type", path, s);
}

static cna_result parse_bounds(const cna__json *obj, const char *key, const char *path, size_t n, double *out,
                               bool *present, cna_error *err)
{
    const cna__json *arr, *item;
    size_t count, i = 0;
    cna_result r = cna__gltf_json_array(obj, key, path, false, 0, &arr, &count, err);
    if (r || !arr) return r;
    if (count != n)
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s: %zu numbers; expected %zu", path, key, count, n);
    cna__json_for_each(item, arr)
    {
        if (!cna__gltf_is_number(item) || !isfinite(item->valuedouble))
            return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s[%zu]: expected a finite number", path, key, i);
        out[i++] = item->valuedouble;
    }
    *present = true;
    return CNA_OK;
}

/* byteOffset alignment and [offset, offset + need) inside the bufferView. */
static cna_result check_range(cna__gltf_ctx *c, const char *path, const char *what, int32_t view, size_t offset,
                              size_t need, size_t align)
{
    const cna_gltf_buffer_view *v = &c->views[view];
    if (offset % align || (v->byte_offset + offset) % align)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: byteOffset %zu in bufferViews[%d] (at byte %zu of the buffer) is not a multiple of "
                          "the component size %zu",
                          path, offset, (int)view, v->byte_offset + offset, align);
    size_t end;
    if (!cna__add_size(offset, need, &end) || end > v->byte_length)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: %s needs %zu bytes at byteOffset %zu, past the end of bufferViews[%d] (%zu bytes)",
                          path, what, need, offset, (int)view, v->byte_length);
    return CNA_OK;
}

static cna_result parse_dense_range(cna__gltf_ctx *c, const char *path, cna_gltf_accessor *a)
{
    size_t csize = cna_gltf_component_size(a->component_type), need;
    if (a->buffer_view < 0) {
        a->byte_stride = a->element_size;
        if (!cna__mul_size(a->count, a->element_size, &need) || need > c->max_size)
            return cna__error(c->err, CNA_ERROR_LIMIT,
                              "%s: count %zu x %zu bytes without a bufferView exceeds the size limit of %zu bytes",
                              path, a->count, a->element_size, c->max_size);
        return CNA_OK;
    }
    const cna_gltf_buffer_view *v = &c->views[a->buffer_view];
    a->byte_stride = v->byte_stride ? v->byte_stride : a->element_size;
    if (v->byte_stride && v->byte_stride < a->element_size)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: bufferViews[%d].byteStride %zu is smaller than the element size %zu", path,
                          (int)a->buffer_view, v->byte_stride, a->element_size);
    if (!cna__mul_size(a->count - 1, a->byte_stride, &need) || !cna__add_size(need, element_extent(a), &need))
        need = SIZE_MAX;
    size_t end;
    if (a->byte_offset % csize == 0 && (v->byte_offset + a->byte_offset) % csize == 0 &&
        cna__add_size(a->byte_offset, need, &end) && end <= v->byte_length)
        return CNA_OK; /* what check_range accepts; the description is only formatted for its message */
    char what[64];
    cna__gltf_pathf(what, sizeof what, "count %zu x stride %zu", a->count, a->byte_stride);
    return check_range(c, path, what, a->buffer_view, a->byte_offset, need, csize);
}

/* Sparse indices: strictly increasing and below the accessor count. */
static cna_result check_sparse_indices(cna__gltf_ctx *c, const char *path, const cna_gltf_accessor *a)
{
    const cna_gltf_accessor_sparse *s = &a->sparse;
    const cna_gltf_buffer_view *v = &c->views[s->indices_buffer_view];
    const uint8_t *idx = v->data + s->indices_byte_offset;
    size_t isize = cna_gltf_component_size(s->indices_component_type);
    uint32_t prev = 0;
    for (size_t k = 0; k < s->count; k++) {
        uint32_t e = component_uint(idx + k * isize, s->indices_component_type);
        if (e >= a->count)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "%s.sparse.indices: index %u at entry %zu is not below the accessor count %zu", path,
                              (unsigned)e, k, a->count);
        if (k > 0 && e <= prev)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "%s.sparse.indices: indices must increase (%u then %u at entry %zu)", path,
                              (unsigned)prev, (unsigned)e, k);
        prev = e;
    }
    return CNA_OK;
}

static cna_result parse_sparse_part(cna__gltf_ctx *c, const cna__json *sparse, const char *key, const char *path,
                                    int32_t *view, size_t *offset, const cna__json **obj)
{
    char sub[CNA__PATH_MAX];
    cna__gltf_pathf(sub, sizeof sub, "%s.%s", path, key);
    *obj = cna__gltf_json_get(sparse, key);
    if (!*obj) return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: required property is missing", sub);
    cna_result r = cna__gltf_json_expect_object(*obj, sub, c->err);
    if (!r) r = cna__gltf_json_index(*obj, "bufferView", sub, true, c->n_views, "bufferViews", view, c->err);
    if (!r) r = cna__gltf_json_size(*obj, "byteOffset", sub, false, offset, c->err);
    if (r) return r;
    cna__gltf_use(c, CNA__KIND_BUFFER_VIEW, *view);
    if (c->views[*view].byte_stride)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: bufferViews[%d] must not define byteStride", sub,
                          (int)*view);
    return CNA_OK;
}

static cna_result parse_sparse(cna__gltf_ctx *c, const cna__json *sparse, const char *acc_path, cna_gltf_accessor *a)
{
    char path[CNA__PATH_MAX];
    cna__gltf_pathf(path, sizeof path, "%s.sparse", acc_path);
    cna_gltf_accessor_sparse *s = &a->sparse;
    const cna__json *indices, *values;
    cna_result r = cna__gltf_json_expect_object(sparse, path, c->err);
    if (!r) r = cna__gltf_json_size(sparse, "count", path, true, &s->count, c->err);
    if (r) return r;
    if (s->count == 0 || s->count > a->count)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.count: %zu; must be between 1 and the accessor count %zu",
                          path, s->count, a->count);
    r = parse_sparse_part(c, sparse, "indices", path, &s->indices_buffer_view, &s->indices_byte_offset, &indices);
    if (!r) r = parse_sparse_part(c, sparse, "values", path, &s->values_buffer_view, &s->values_byte_offset, &values);
    char sub[CNA__PATH_MAX];
    cna__gltf_pathf(sub, sizeof sub, "%s.indices", path);
    if (!r) r = parse_component_type(indices, sub, true, &s->indices_component_type, c->err);
    if (r) return r;
    size_t isize = cna_gltf_component_size(s->indices_component_type), need;
    need = cna__mul_size(s->count, isize, &need) ? need : SIZE_MAX;
    r = check_range(c, sub, "sparse indices", s->indices_buffer_view, s->indices_byte_offset, need, isize);
    if (r) return r;
    cna__gltf_pathf(sub, sizeof sub, "%s.values", path);
    if (!cna__mul_size(s->count - 1, a->element_size, &need) || !cna__add_size(need, element_extent(a), &need))
        need = SIZE_MAX;
    r = check_range(c, sub, "sparse values", s->values_buffer_view, s->values_byte_offset, need,
                    cna_gltf_component_size(a->component_type));
    if (r) return r;
    a->is_sparse = true;
    return check_sparse_indices(c, acc_path, a);
}

static cna_result parse_accessor(cna__gltf_ctx *c, const cna__json *obj, size_t index)
{
    char path[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "accessors", index, "");
    cna_gltf_accessor *a = &c->accessors[index];
    a->buffer_view = -1;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_string(c, obj, "name", path, false, &a->name);
    if (!r) r = cna__gltf_json_index(obj, "bufferView", path, false, c->n_views, "bufferViews", &a->buffer_view, c->err);
    if (!r) r = cna__gltf_json_size(obj, "byteOffset", path, false, &a->byte_offset, c->err);
    if (!r) r = parse_component_type(obj, path, false, &a->component_type, c->err);
    if (!r) r = cna__gltf_json_bool(obj, "normalized", path, &a->normalized, c->err);
    if (!r) r = cna__gltf_json_size(obj, "count", path, true, &a->count, c->err);
    if (!r) r = parse_type(obj, path, &a->type, c->err);
    if (r) return r;
    cna__gltf_use(c, CNA__KIND_BUFFER_VIEW, a->buffer_view);
    if (a->buffer_view < 0 && cna__gltf_json_get(obj, "byteOffset"))
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.byteOffset: %zu given, but the accessor has no bufferView",
                          path, a->byte_offset);
    const cna__json *ext = cna__gltf_json_get(obj, "extensions");
    if (cna__gltf_json_get(ext, "KHR_mesh_quantization"))
        cna__gltf_diag(c, CNA__DIAG_EXTENSION_IGNORED,
                       "%s.extensions.KHR_mesh_quantization: the extension defines no accessor object; ignored", path);
    if (a->count == 0) return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.count: 0; at least 1 required", path);
    if (a->normalized &&
        (a->component_type == CNA_GLTF_COMPONENT_FLOAT || a->component_type == CNA_GLTF_COMPONENT_UNSIGNED_INT))
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.normalized: not allowed for componentType %s", path,
                          cna_gltf_component_type_name(a->component_type));
    size_t comps = cna_gltf_type_component_count(a->type);
    r = parse_bounds(obj, "min", path, comps, a->min, &a->has_min, c->err);
    if (!r) r = parse_bounds(obj, "max", path, comps, a->max, &a->has_max, c->err);
    if (r) return r;
    a->element_size = element_size(a);
    r = parse_dense_range(c, path, a);
    if (r) return r;
    const cna__json *sparse = cna__gltf_json_get(obj, "sparse");
    return sparse ? parse_sparse(c, sparse, path, a) : CNA_OK;
}

cna_result cna__gltf_parse_accessors(cna__gltf_ctx *c)
{
    const cna__json *arr = cna__gltf_json_get(c->root, "accessors"), *item;
    size_t i = 0;
    cna__json_for_each(item, arr)
    {
        cna_result r = parse_accessor(c, item, i++);
        if (r) return r;
    }
    return CNA_OK;
}
