/* EXT_meshopt_compression: buffer views whose bytes are decoded, at load, by
 * meshoptimizer's codecs (vertex attributes, triangle lists, index sequences)
 * and filters (quaternion, exponential), from a range of another buffer; the
 * octahedral filter is decoded here (cna__meshopt_octahedral_filter).
 * Everything the decoder relies on is checked first: meshoptimizer's
 * decoders are safe on any bytes, but assert on their size arguments. */
#include <math.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <string.h>

#include "gltf/gltf_internal.h"

#define EXT "EXT_meshopt_compression"

typedef enum mode { MODE_ATTRIBUTES, MODE_TRIANGLES, MODE_INDICES } mode;
typedef enum filter { FILTER_NONE, FILTER_OCTAHEDRAL, FILTER_QUATERNION, FILTER_EXPONENTIAL } filter;

static const char *const mode_names[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
static const char *const filter_names[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};

typedef struct meshopt_view {
    int32_t buffer;
    size_t byte_offset, byte_length, byte_stride, count;
    mode mode;
    filter filter;
} meshopt_view;

/* The string member `key` as one of `n` names; absent gives *out = fallback. */
static cna_result name_member(cna__gltf_ctx *c, const cna__json *ext, const char *key, const char *path,
                              bool required, const char *const *names, int n, int *out)
{
    const char *s;
    cna_result r = cna__gltf_json_string_ref(ext, key, path, required, &s, c->err);
    if (r || !s) return r;
    for (int i = 0; i < n; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return CNA_OK;
        }
    }
    char list[96];
    size_t o = 0;
    for (int i = 0; i < n && o < sizeof list; i++) {
        int w = snprintf(list + o, sizeof list - o, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
        if (w < 0) break;
        o += (size_t)w;
    }
    return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.%s: \"%.40s\" is not %s", path, key, s, list);
}

/* The extension object's members and every rule of the extension on them. */
static cna_result parse_ext(cna__gltf_ctx *c, const cna__json *ext, const char *path, const cna_gltf_buffer_view *v,
                            meshopt_view *m)
{
    int md = 0, flt = FILTER_NONE;
    cna_result r = cna__gltf_json_expect_object(ext, path, c->err);
    if (!r) r = cna__gltf_json_index(ext, "buffer", path, true, c->n_buffers, "buffers", &m->buffer, c->err);
    if (!r) r = cna__gltf_json_size(ext, "byteOffset", path, false, &m->byte_offset, c->err);
    if (!r) r = cna__gltf_json_size(ext, "byteLength", path, true, &m->byte_length, c->err);
    if (!r) r = cna__gltf_json_size(ext, "byteStride", path, true, &m->byte_stride, c->err);
    if (!r) r = cna__gltf_json_size(ext, "count", path, true, &m->count, c->err);
    if (!r) r = name_member(c, ext, "mode", path, true, mode_names, 3, &md);
    if (!r) r = name_member(c, ext, "filter", path, false, filter_names, 4, &flt);
    if (r) return r;
    m->mode = (mode)md;
    m->filter = (filter)flt;
    if (m->count == 0) return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.count: 0; at least 1 required", path);
    if (m->byte_length == 0)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.byteLength: 0; at least 1 required", path);
    if (m->mode == MODE_ATTRIBUTES && (m->byte_stride == 0 || m->byte_stride % 4 || m->byte_stride > 256))
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.byteStride: %zu; mode ATTRIBUTES needs a multiple of 4 between 4 and 256", path,
                          m->byte_stride);
    if (m->mode != MODE_ATTRIBUTES && m->byte_stride != 2 && m->byte_stride != 4)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.byteStride: %zu; mode %s needs 2 or 4", path,
                          m->byte_stride, mode_names[m->mode]);
    if (m->mode == MODE_TRIANGLES && m->count % 3)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.count: %zu is not a multiple of 3 (mode TRIANGLES holds whole triangles)", path,
                          m->count);
    if (m->mode != MODE_ATTRIBUTES && m->filter != FILTER_NONE)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.filter: %s is not allowed with mode %s", path,
                          filter_names[m->filter], mode_names[m->mode]);
    if ((m->filter == FILTER_OCTAHEDRAL && m->byte_stride != 4 && m->byte_stride != 8) ||
        (m->filter == FILTER_QUATERNION && m->byte_stride != 8))
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.byteStride: %zu; filter %s needs %s", path,
                          m->byte_stride, filter_names[m->filter],
                          m->filter == FILTER_OCTAHEDRAL ? "4 or 8" : "8");
    /* the decoded layout is the parent view's */
    if (v->byte_stride && v->byte_stride != m->byte_stride)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.byteStride: %zu differs from the bufferView's byteStride %zu", path, m->byte_stride,
                          v->byte_stride);
    size_t decoded;
    if (!cna__mul_size(m->count, m->byte_stride, &decoded) || decoded != v->byte_length)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: count %zu with byteStride %zu does not make the bufferView's byteLength %zu", path,
                          m->count, m->byte_stride, v->byte_length);
    /* the compressed bytes */
    const cna_gltf_buffer *b = &c->buffers[m->buffer];
    if (c->fallback && c->fallback[m->buffer])
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.buffer: buffers[%d] is a fallback buffer (" EXT ".fallback); compressed data cannot be "
                          "in it",
                          path, (int)m->buffer);
    if (b->source == CNA_GLTF_SOURCE_NONE)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.buffer: buffers[%d] has no data (no uri, and it is not a GLB's BIN chunk)", path,
                          (int)m->buffer);
    size_t end;
    if (!cna__add_size(m->byte_offset, m->byte_length, &end) || end > b->byte_length)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: byteOffset %zu + byteLength %zu exceeds buffers[%d].byteLength %zu", path,
                          m->byte_offset, m->byte_length, (int)m->buffer, b->byte_length);
    return CNA_OK;
}

/* x86's float-to-integer conversion (cvtps2dq): to nearest, ties to even, and
 * INT32_MIN for NaN or out of range. */
static int32_t round_to_int(float v)
{
    return fabsf(v) < 2147483648.0f ? (int32_t)lrintf(v) : INT32_MIN;
}

/* The OCTAHEDRAL filter, in place: `count` elements of 4 bytes (8-bit x, y,
 * z; the fourth byte kept) or 8 (16-bit; the last two bytes kept). The
 * arithmetic of meshoptimizer's SSE decoder of 16-bit elements, for both
 * sizes: with x, y the signed components and z the third (signed for 8
 * bits, its low 15 bits for 16), z -= |x| + |y|; t = min(z, 0); x += t and
 * y += t towards their signs; s = max / sqrt(x·x + (y·y + z·z)) (max: 127
 * or 32767); each of x·s, y·s, z·s rounded to the nearest integer, its low
 * byte(s) stored. Debian's meshoptimizer 0.18 decodes 8-bit elements with
 * an estimate of the inverse square root (rsqrtps) instead, whose result
 * differs between Intel and AMD CPUs: about one element in a hundred then
 * decodes one unit away from the exact result, which ones depending on the
 * CPU. Here every operation is correctly rounded, so
 * the decoded bytes are the same on every CPU (and, for 16 bits, the ones
 * meshoptimizer gives). */
void cna__meshopt_octahedral_filter(uint8_t *p, size_t count, size_t stride)
{
    const bool wide = stride == 8;
    const float max = wide ? 32767.0f : 127.0f;
    for (size_t i = 0; i < count; ++i, p += stride) {
        float x, y, z;
        if (wide) {
            int16_t a, b;
            uint16_t c;
            memcpy(&a, p, 2);
            memcpy(&b, p + 2, 2);
            memcpy(&c, p + 4, 2);
            x = (float)a;
            y = (float)b;
            z = (float)(c & 0x7fff);
        } else {
            x = (float)(int8_t)p[0];
            y = (float)(int8_t)p[1];
            z = (float)(int8_t)p[2];
        }
        z = z - (fabsf(x) + fabsf(y));
        const float t = z < 0.0f ? z : 0.0f;
        x = x + (signbit(x) ? -t : t);
        y = y + (signbit(y) ? -t : t);
        const float s = max / sqrtf(x * x + (y * y + z * z));
        const int32_t r[3] = {round_to_int(x * s), round_to_int(y * s), round_to_int(z * s)};
        for (int k = 0; k < 3; ++k) {
            if (wide) {
                const uint16_t u = (uint16_t)((uint32_t)r[k] & 0xffffu);
                memcpy(p + 2 * k, &u, 2);
            } else {
                p[k] = (uint8_t)((uint32_t)r[k] & 0xffu);
            }
        }
    }
}

static int decode(const meshopt_view *m, uint8_t *out, const uint8_t *in)
{
    int rc;
    switch (m->mode) {
    case MODE_ATTRIBUTES: rc = meshopt_decodeVertexBuffer(out, m->count, m->byte_stride, in, m->byte_length); break;
    case MODE_TRIANGLES: rc = meshopt_decodeIndexBuffer(out, m->count, m->byte_stride, in, m->byte_length); break;
    default: rc = meshopt_decodeIndexSequence(out, m->count, m->byte_stride, in, m->byte_length); break;
    }
    if (rc != 0) return rc;
    switch (m->filter) {
    case FILTER_OCTAHEDRAL: cna__meshopt_octahedral_filter(out, m->count, m->byte_stride); break;
    case FILTER_QUATERNION: meshopt_decodeFilterQuat(out, m->count, m->byte_stride); break;
    case FILTER_EXPONENTIAL: meshopt_decodeFilterExp(out, m->count, m->byte_stride); break;
    default: break;
    }
    return 0;
}

cna_result cna__gltf_meshopt_view(cna__gltf_ctx *c, const cna__json *ext, const char *view_path,
                                  cna_gltf_buffer_view *v)
{
    char path[CNA__PATH_MAX];
    cna__gltf_path_cat(path, sizeof path, view_path, ".extensions." EXT);
    meshopt_view m;
    memset(&m, 0, sizeof m);
    cna_result r = parse_ext(c, ext, path, v, &m);
    if (r) return r;
    size_t total = SIZE_MAX;
    if (!cna__add_size(c->decoded_bytes, v->byte_length, &total) || total > c->max_decoded)
        return cna__error(c->err, CNA_ERROR_LIMIT,
                          "%s: %zu decoded bytes (%zu in all) exceed the decoded-size limit of %zu bytes "
                          "(cna_gltf_options.max_decoded_size, cna --max-decoded-size)",
                          path, v->byte_length, total, c->max_decoded);
    uint8_t *out = (uint8_t *)cna__gltf_arena_alloc_raw(c->arena, v->byte_length);
    if (!out) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", path, v->byte_length);
    int rc = decode(&m, out, c->buffers[m.buffer].data + m.byte_offset);
    if (rc != 0)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: the %zu bytes at byteOffset %zu of buffers[%d] are not valid %s data for %zu elements "
                          "of %zu bytes (meshoptimizer error %d)",
                          path, m.byte_length, m.byte_offset, (int)m.buffer, mode_names[m.mode], m.count,
                          m.byte_stride, rc);
    c->decoded_bytes = total;
    v->data = out;
    v->encoding = CNA_GLTF_VIEW_MESHOPT;
    return CNA_OK;
}

cna_result cna__gltf_meshopt_buffer(cna__gltf_ctx *c, const cna__json *buffer, const char *buffer_path, bool *fallback)
{
    const cna__json *ext = cna__gltf_json_get(cna__gltf_json_get(buffer, "extensions"), EXT);
    *fallback = false;
    if (!ext) return CNA_OK;
    char path[CNA__PATH_MAX];
    cna__gltf_path_cat(path, sizeof path, buffer_path, ".extensions." EXT);
    cna_result r = cna__gltf_json_expect_object(ext, path, c->err);
    if (!r) r = cna__gltf_json_bool(ext, "fallback", path, fallback, c->err);
    return r;
}
