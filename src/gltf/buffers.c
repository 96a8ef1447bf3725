/* buffers (GLB BIN chunk, data: URI, external) and bufferViews. */
#include <stdio.h>
#include <string.h>

#include "gltf/gltf_internal.h"

static cna_result glb_bin_data(cna__gltf_ctx *c, const char *path, size_t index, cna_gltf_buffer *b,
                               size_t *size)
{
    if (c->is_glb && index == 0 && !c->glb_has_bin)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: no uri, but the GLB has no BIN chunk to hold its %zu bytes", path, b->byte_length);
    if (!c->is_glb || index != 0) {
        /* No data: allowed while no bufferView refers to the buffer (placeholder). */
        b->source = CNA_GLTF_SOURCE_NONE;
        *size = b->byte_length;
        return CNA_OK;
    }
    if (c->glb_bin_size < b->byte_length)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.byteLength: %zu exceeds the GLB BIN chunk (%zu bytes)", path, b->byte_length,
                          c->glb_bin_size);
    if (c->glb_bin_in_place) {
        b->data = c->glb_bin;
    } else {
        uint8_t *copy = (uint8_t *)cna__gltf_arena_alloc_raw(c->arena, b->byte_length);
        if (!copy) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        memcpy(copy, c->glb_bin, b->byte_length);
        b->data = copy;
    }
    b->source = CNA_GLTF_SOURCE_GLB_BIN;
    *size = c->glb_bin_size;
    return CNA_OK;
}

/* glTF 2.0: a buffer's data URI has the media type application/octet-stream
 * or application/gltf-buffer (compared case-insensitively, RFC 2045). */
static bool buffer_mime_ok(const char *mime, size_t len)
{
    static const char *const ok[2] = {"application/octet-stream", "application/gltf-buffer"};
    for (int k = 0; k < 2; k++) {
        if (strlen(ok[k]) != len) continue;
        size_t i = 0;
        while (i < len && (mime[i] | 0x20) == (ok[k][i] | 0x20)) i++;
        if (i == len) return true;
    }
    return false;
}

static cna_result external_data(cna__gltf_ctx *c, const char *path, const char *uri, cna_gltf_buffer *b,
                                size_t *size)
{
    char *decoded;
    cna_result r = cna__gltf_uri_percent_decode(c->arena, uri, &decoded, c->err);
    if (r) {
        cna__error_prefix(c->err, "%s.uri \"%s\"", path, uri);
        return r;
    }
    const uint8_t *data;
    const char *file;
    r = cna__gltf_resolve_uri(c, CNA_GLTF_URI_BUFFER, decoded, &data, size, &file, c->err);
    if (r) {
        cna__error_prefix(c->err, "%s (uri \"%s\")", path, decoded);
        return r;
    }
    b->uri = decoded;
    b->path = file;
    b->data = data;
    b->source = CNA_GLTF_SOURCE_EXTERNAL;
    return CNA_OK;
}

/* The data of buffers[index] (`uri` NULL: the GLB BIN chunk, or none). */
static cna_result buffer_data(cna__gltf_ctx *c, const char *path, size_t index, const char *uri)
{
    cna_gltf_buffer *b = &c->buffers[index];
    size_t size = 0, slack = 0;
    cna_result r;
    if (!uri) {
        r = glb_bin_data(c, path, index, b, &size);
        slack = 3; /* the BIN chunk is padded to 4 bytes */
    } else if (cna__gltf_uri_is_data(uri)) {
        const uint8_t *data = NULL;
        const char *mime = NULL;
        size_t mime_len = 0;
        r = cna__gltf_data_uri_decode(c->arena, uri, &data, &size, &mime, &mime_len, c->err);
        if (r) cna__error_prefix(c->err, "%s.uri", path);
        else if (!buffer_mime_ok(mime, mime_len))
            r = cna__error(c->err, CNA_ERROR_INVALID_DATA,
                           "%s.uri: data URI media type \"%.*s\" is not application/octet-stream or "
                           "application/gltf-buffer",
                           path, (int)(mime_len > 60 ? 60 : mime_len), mime);
        b->data = data;
        b->source = CNA_GLTF_SOURCE_DATA_URI;
    } else {
        r = external_data(c, path, uri, b, &size);
    }
    if (r) return r;
    if (size < b->byte_length)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: %zu bytes of data, fewer than byteLength %zu", path,
                          size, b->byte_length);
    if (size - b->byte_length > slack)
        cna__gltf_diag(c, CNA__DIAG_BUFFER_LONGER, "%s: %zu bytes of data, more than byteLength %zu", path, size,
                       b->byte_length);
    return CNA_OK;
}

static cna_result parse_buffer(cna__gltf_ctx *c, const cna__json *obj, size_t index)
{
    char path[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "buffers", index, "");
    cna_gltf_buffer *b = &c->buffers[index];
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_string(c, obj, "name", path, false, &b->name);
    if (!r) r = cna__gltf_json_size(obj, "byteLength", path, true, &b->byte_length, c->err);
    if (r) return r;
    if (b->byte_length == 0)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.byteLength: 0; at least 1 required", path);
    const char *uri;
    r = cna__gltf_json_string_ref(obj, "uri", path, false, &uri, c->err);
    if (r) return r;
    bool fallback = false;
    r = cna__gltf_meshopt_buffer(c, obj, path, &fallback);
    if (r) return r;
    if (fallback) {
        /* EXT_meshopt_compression: only compressed views should refer to it, and
         * they are decoded; it is read only if a plain view uses it (parse_view) */
        c->fallback[index] = 1;
        c->fallback_uri[index] = uri;
        b->source = CNA_GLTF_SOURCE_NONE;
        return CNA_OK;
    }
    return buffer_data(c, path, index, uri);
}

/* An uncompressed view on a fallback buffer (the extension says only
 * compressed views use one; exporters also put images there): the buffer's
 * data is read once, the diagnostic meshopt-fallback-read. A fallback buffer
 * without data (no uri, not a GLB's BIN chunk) is refused. */
static cna_result read_fallback(cna__gltf_ctx *c, const char *view_path, int32_t buffer)
{
    char path[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "buffers", (size_t)buffer, "");
    const char *uri = c->fallback_uri[buffer];
    if (!uri && !(c->is_glb && buffer == 0 && c->glb_has_bin))
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.buffer: buffers[%d] is an EXT_meshopt_compression fallback buffer without data (no "
                          "uri, and it is not a GLB's BIN chunk), but this bufferView is not compressed",
                          view_path, (int)buffer);
    cna_result r = buffer_data(c, path, (size_t)buffer, uri);
    if (r) return r;
    c->fallback[buffer] = 2;
    cna__gltf_diag(c, CNA__DIAG_MESHOPT_FALLBACK_READ,
                   "%s.buffer: buffers[%d] is an EXT_meshopt_compression fallback buffer (only compressed views "
                   "should use it), but this bufferView is not compressed; the buffer's data is read",
                   view_path, (int)buffer);
    return CNA_OK;
}

cna_result cna__gltf_parse_buffers(cna__gltf_ctx *c)
{
    const cna__json *arr = cna__gltf_json_get(c->root, "buffers"), *item;
    size_t i = 0;
    if (c->n_buffers) {
        c->fallback = (uint8_t *)cna__gltf_arena_calloc(&c->scratch, c->n_buffers, 1);
        c->fallback_uri = (const char **)cna__gltf_arena_calloc(&c->scratch, c->n_buffers, sizeof(const char *));
        if (!c->fallback || !c->fallback_uri) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "buffers: out of memory");
    }
    cna__json_for_each(item, arr)
    {
        cna_result r = parse_buffer(c, item, i++);
        if (r) return r;
    }
    return CNA_OK;
}

static cna_result parse_view(cna__gltf_ctx *c, const cna__json *obj, size_t index)
{
    char path[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "bufferViews", index, "");
    cna_gltf_buffer_view *v = &c->views[index];
    int64_t target = 0;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_string(c, obj, "name", path, false, &v->name);
    if (!r) r = cna__gltf_json_index(obj, "buffer", path, true, c->n_buffers, "buffers", &v->buffer, c->err);
    if (!r) r = cna__gltf_json_size(obj, "byteOffset", path, false, &v->byte_offset, c->err);
    if (!r) r = cna__gltf_json_size(obj, "byteLength", path, true, &v->byte_length, c->err);
    if (!r) r = cna__gltf_json_size(obj, "byteStride", path, false, &v->byte_stride, c->err);
    if (!r) r = cna__gltf_json_int(obj, "target", path, false, 0, INT32_MAX, &target, c->err);
    if (r) return r;
    if (v->byte_length == 0)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.byteLength: 0; at least 1 required", path);
    if (cna__gltf_json_get(obj, "byteStride") && (v->byte_stride < 4 || v->byte_stride > 252 || v->byte_stride % 4))
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.byteStride: %zu; must be a multiple of 4 between 4 and 252", path, v->byte_stride);
    if (v->byte_stride && v->byte_stride > v->byte_length)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.byteStride: %zu is greater than byteLength %zu", path,
                          v->byte_stride, v->byte_length);
    if (v->byte_stride && target == 34963)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.byteStride: %zu given, but target is 34963 (ELEMENT_ARRAY_BUFFER); index data is "
                          "tightly packed",
                          path, v->byte_stride);
    if (target != 0 && target != 34962 && target != 34963)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.target: %lld is neither 34962 (ARRAY_BUFFER) nor 34963 (ELEMENT_ARRAY_BUFFER)", path,
                          (long long)target);
    v->target = (int32_t)target;
    const cna__json *meshopt = cna__gltf_json_get(cna__gltf_json_get(obj, "extensions"), "EXT_meshopt_compression");
    if (!meshopt && c->fallback[v->buffer] == 1) {
        r = read_fallback(c, path, v->buffer);
        if (r) return r;
    }
    if (!meshopt && c->buffers[v->buffer].source == CNA_GLTF_SOURCE_NONE)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.buffer: buffers[%d] has no data (no uri, and it is not a GLB's BIN chunk)", path,
                          (int)v->buffer);
    /* a compressed view's own range still lies inside its (fallback) buffer, as the extension requires */
    size_t end, buffer_length = c->buffers[v->buffer].byte_length;
    if (!cna__add_size(v->byte_offset, v->byte_length, &end) || end > buffer_length)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: byteOffset %zu + byteLength %zu exceeds buffers[%d].byteLength %zu", path,
                          v->byte_offset, v->byte_length, (int)v->buffer, buffer_length);
    if (meshopt) return cna__gltf_meshopt_view(c, meshopt, path, v);
    v->data = c->buffers[v->buffer].data + v->byte_offset;
    return CNA_OK;
}

cna_result cna__gltf_parse_buffer_views(cna__gltf_ctx *c)
{
    const cna__json *arr = cna__gltf_json_get(c->root, "bufferViews"), *item;
    size_t i = 0;
    cna__json_for_each(item, arr)
    {
        cna_result r = parse_view(c, item, i++);
        if (r) return r;
    }
    return CNA_OK;
}
