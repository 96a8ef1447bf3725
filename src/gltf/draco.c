/* KHR_draco_mesh_compression: a primitive whose vertices and indices are one
 * Draco-compressed bufferView. The extension maps attribute names to Draco
 * attribute ids; the primitive's own accessors (count, componentType, type)
 * say what the decoded data is. The decoded values of each accessor go into a
 * buffer view the reader makes for it (CNA_GLTF_VIEW_DRACO), appended after
 * the file's views, so that every later stage reads them as stored data.
 * Decoding needs Draco (CNA_WITH_DRACO); the JSON is checked either way. */
#include <stdio.h>
#include <string.h>

#include "gltf/gltf_internal.h"
#ifdef CNA_WITH_DRACO
#include "gltf/draco.h"
#endif

#define EXT "KHR_draco_mesh_compression"

bool cna__gltf_draco_available(void)
{
#ifdef CNA_WITH_DRACO
    return true;
#else
    return false;
#endif
}

size_t cna__gltf_draco_view_count(const cna__json *root)
{
    size_t n = 0;
    const cna__json *mesh, *prim;
    cna__json_for_each(mesh, cna__gltf_json_get(root, "meshes"))
    {
        cna__json_for_each(prim, cna__gltf_json_get(mesh, "primitives"))
        {
            const cna__json *ext = cna__gltf_json_get(cna__gltf_json_get(prim, "extensions"), EXT);
            if (cna__gltf_is_object(ext)) n += (size_t)cna__json_count(cna__gltf_json_get(ext, "attributes")) + 1;
        }
    }
    return n;
}

/* One accessor the extension fills: an attribute (id >= 0) or the indices (id -1). */
typedef struct draco_target {
    const char *name; /* attribute name, "indices" */
    int32_t accessor;
    int64_t id;
} draco_target;

typedef struct draco_prim {
    char path[CNA__PATH_MAX];
    int32_t view;
    draco_target *targets;
    size_t count;
} draco_prim;

static int32_t find_attribute(const cna_gltf_primitive *p, const char *name)
{
    for (size_t i = 0; i < p->attribute_count; i++)
        if (strcmp(p->attributes[i].name, name) == 0) return p->attributes[i].accessor;
    return -1;
}

static cna_result parse_ext(cna__gltf_ctx *c, const cna__json *ext, const cna_gltf_primitive *p, draco_prim *d)
{
    const cna__json *attrs, *item;
    cna_result r = cna__gltf_json_expect_object(ext, d->path, c->err);
    if (!r) r = cna__gltf_json_index(ext, "bufferView", d->path, true, c->n_views, "bufferViews", &d->view, c->err);
    if (r) return r;
    cna__gltf_use(c, CNA__KIND_BUFFER_VIEW, d->view);
    attrs = cna__gltf_json_get(ext, "attributes");
    char apath[CNA__PATH_MAX];
    cna__gltf_path_cat(apath, sizeof apath, d->path, ".attributes");
    if (!attrs) return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: required property is missing", apath);
    r = cna__gltf_json_expect_object(attrs, apath, c->err);
    if (r) return r;
    size_t n = (size_t)cna__json_count(attrs);
    if (n == 0) return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: 0 attributes; at least 1 required", apath);
    if (p->indices < 0)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: the primitive has no indices; a Draco-compressed mesh needs primitive.indices", d->path);
    if (p->mode != CNA_GLTF_MODE_TRIANGLES)
        return cna__error(c->err, CNA_ERROR_UNSUPPORTED,
                          "%s: primitive mode %d; Draco-compressed primitives are read as TRIANGLES (4) only", d->path,
                          (int)p->mode);
    d->targets = (draco_target *)cna__gltf_arena_calloc(&c->scratch, n + 1, sizeof *d->targets);
    if (!d->targets) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", d->path);
    cna__json_for_each(item, attrs)
    {
        const size_t len = strlen(item->string), bad = cna__utf8_invalid_at(item->string, len);
        if (bad < len)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: the name of attribute %zu: invalid UTF-8 at byte %zu",
                              apath, d->count, bad);
        char vpath[CNA__PATH_MAX];
        cna__gltf_pathf(vpath, sizeof vpath, "%s.%s", apath, item->string);
        draco_target *t = &d->targets[d->count++];
        if (!cna__gltf_is_number(item) || item->valuedouble < 0 || item->valuedouble > 4294967295.0 ||
            item->valuedouble != (double)(int64_t)item->valuedouble)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: expected a Draco attribute id (an integer in 0..2^32-1)",
                              vpath);
        t->name = item->string;
        t->id = (int64_t)item->valuedouble;
        t->accessor = find_attribute(p, item->string);
        if (t->accessor < 0)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: the primitive has no attribute of that name", vpath);
    }
    d->targets[d->count++] = (draco_target){"indices", p->indices, -1};
    return CNA_OK;
}

/* The accessor as the extension needs it: plain vectors or scalars (indices:
 * an unsigned SCALAR), not sparse. */
static cna_result check_accessor(cna__gltf_ctx *c, const draco_prim *d, const draco_target *t)
{
    const cna_gltf_accessor *a = &c->accessors[t->accessor];
    if (a->is_sparse)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: %s: accessors[%d] is sparse; Draco data cannot be",
                          d->path, t->name, (int)t->accessor);
    if (t->id < 0) {
        if (a->type != CNA_GLTF_TYPE_SCALAR ||
            (a->component_type != CNA_GLTF_COMPONENT_UNSIGNED_BYTE &&
             a->component_type != CNA_GLTF_COMPONENT_UNSIGNED_SHORT &&
             a->component_type != CNA_GLTF_COMPONENT_UNSIGNED_INT)) {
            char desc[64];
            cna__gltf_accessor_describe(a, desc, sizeof desc);
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "%s: indices: accessors[%d] is %s; expected SCALAR UNSIGNED_BYTE, UNSIGNED_SHORT or "
                              "UNSIGNED_INT",
                              d->path, (int)t->accessor, desc);
        }
    } else if (a->type < CNA_GLTF_TYPE_SCALAR || a->type > CNA_GLTF_TYPE_VEC4) {
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: %s: accessors[%d] is %s; Draco attributes are SCALAR or VEC2..VEC4", d->path, t->name,
                          (int)t->accessor, cna_gltf_type_name(a->type));
    }
    return CNA_OK;
}

#ifdef CNA_WITH_DRACO
/* A view of `size` bytes for accessor t, appended after the file's views. */
static cna_result add_view(cna__gltf_ctx *c, const draco_prim *d, const draco_target *t, uint8_t *bytes, size_t size)
{
    if (c->n_draco_views >= c->draco_view_cap) /* counted from the same JSON: cannot happen */
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: more decoded accessors than counted", d->path);
    int32_t index = (int32_t)(c->n_views + c->n_draco_views++);
    cna_gltf_buffer_view *v = &c->views[index];
    memset(v, 0, sizeof *v);
    v->buffer = -1;
    v->byte_length = size;
    v->data = bytes;
    v->encoding = CNA_GLTF_VIEW_DRACO;
    cna_gltf_accessor *a = &c->accessors[t->accessor];
    a->buffer_view = index;
    a->byte_offset = 0;
    a->byte_stride = a->element_size;
    c->draco_view[t->accessor] = d->view;
    c->draco_attr[t->accessor] = t->id;
    return CNA_OK;
}

static uint8_t *alloc_decoded(cna__gltf_ctx *c, const draco_prim *d, const draco_target *t, size_t *size,
                              cna_result *r)
{
    const cna_gltf_accessor *a = &c->accessors[t->accessor];
    size_t total = SIZE_MAX;
    if (!cna__mul_size(a->count, a->element_size, size) || !cna__add_size(c->decoded_bytes, *size, &total) ||
        total > c->max_decoded) {
        *r = cna__error(c->err, CNA_ERROR_LIMIT,
                        "%s: %s: decoded accessors[%d] (%zu bytes, %zu in all) exceed the decoded-size limit of %zu "
                        "bytes (cna_gltf_options.max_decoded_size, cna --max-decoded-size)",
                        d->path, t->name, (int)t->accessor, *size, total == SIZE_MAX ? *size : total, c->max_decoded);
        return NULL;
    }
    uint8_t *bytes = (uint8_t *)cna__gltf_arena_alloc_raw(c->arena, *size);
    if (!bytes) {
        *r = cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: %s: out of memory", d->path, t->name);
        return NULL;
    }
    c->decoded_bytes = total;
    *r = CNA_OK;
    return bytes;
}

static cna_result fill_indices(cna__gltf_ctx *c, const draco_prim *d, const draco_target *t,
                               const cna__draco_mesh *mesh)
{
    const cna_gltf_accessor *a = &c->accessors[t->accessor];
    size_t faces = cna__draco_face_count(mesh), corners;
    if (!cna__mul_size(faces, 3, &corners) || corners != a->count)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: indices: accessors[%d].count is %zu, but the Draco mesh has %zu triangles (%zu indices)",
                          d->path, (int)t->accessor, a->count, faces, faces * 3);
    uint32_t *tmp = (uint32_t *)cna__gltf_arena_calloc(&c->scratch, corners, sizeof *tmp);
    if (!tmp) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: indices: out of memory", d->path);
    cna__draco_read_indices(mesh, tmp);
    size_t size;
    cna_result r;
    uint8_t *bytes = alloc_decoded(c, d, t, &size, &r);
    if (!bytes) return r;
    uint32_t points = cna__draco_point_count(mesh);
    uint32_t limit = a->component_type == CNA_GLTF_COMPONENT_UNSIGNED_BYTE    ? 0xFFu
                     : a->component_type == CNA_GLTF_COMPONENT_UNSIGNED_SHORT ? 0xFFFFu
                                                                              : 0xFFFFFFFFu;
    for (size_t k = 0; k < corners; k++) {
        uint32_t v = tmp[k];
        if (v >= points || v > limit)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "%s: indices: decoded index %u at entry %zu is not below the Draco mesh's %u points "
                              "or does not fit %s",
                              d->path, (unsigned)v, k, (unsigned)points, cna_gltf_component_type_name(a->component_type));
        if (a->component_type == CNA_GLTF_COMPONENT_UNSIGNED_BYTE) bytes[k] = (uint8_t)v;
        else if (a->component_type == CNA_GLTF_COMPONENT_UNSIGNED_SHORT) {
            bytes[2 * k] = (uint8_t)v;
            bytes[2 * k + 1] = (uint8_t)(v >> 8);
        } else {
            for (int b = 0; b < 4; b++) bytes[4 * k + (size_t)b] = (uint8_t)(v >> (8 * b));
        }
    }
    return add_view(c, d, t, bytes, size);
}

static cna_result fill_attribute(cna__gltf_ctx *c, const draco_prim *d, const draco_target *t,
                                 const cna__draco_mesh *mesh)
{
    const cna_gltf_accessor *a = &c->accessors[t->accessor];
    int comps = (int)cna_gltf_type_component_count(a->type);
    int have = cna__draco_attribute_components(mesh, (uint32_t)t->id);
    uint32_t points = cna__draco_point_count(mesh);
    if (have == 0)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.attributes.%s: the Draco mesh has no attribute %lld",
                          d->path, t->name, (long long)t->id);
    if (have != comps)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.attributes.%s: Draco attribute %lld has %d components, but accessors[%d] is %s", d->path,
                          t->name, (long long)t->id, have, (int)t->accessor, cna_gltf_type_name(a->type));
    if (a->count != points)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.attributes.%s: accessors[%d].count is %zu, but the Draco mesh has %u points", d->path,
                          t->name, (int)t->accessor, a->count, (unsigned)points);
    size_t size;
    cna_result r;
    uint8_t *bytes = alloc_decoded(c, d, t, &size, &r);
    if (!bytes) return r;
    uint32_t bad = 0;
    if (!cna__draco_read_attribute(mesh, (uint32_t)t->id, a->component_type, comps, bytes, &bad))
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.attributes.%s: the value of point %u of Draco attribute %lld does not convert to %s",
                          d->path, t->name, (unsigned)bad, (long long)t->id,
                          cna_gltf_component_type_name(a->component_type));
    return add_view(c, d, t, bytes, size);
}

/* The bytes the primitive's accessors declare (count x element size), with
 * what earlier decoding took, within the decoded-size limit: checked before
 * Draco's decoder runs, whose own memory grows with the mesh it decodes
 * (each accessor is then checked against the decoded mesh, count for count). */
static cna_result check_declared(cna__gltf_ctx *c, const draco_prim *d)
{
    size_t total = c->decoded_bytes, size;
    for (size_t i = 0; i < d->count; i++) {
        const cna_gltf_accessor *a = &c->accessors[d->targets[i].accessor];
        if (c->draco_view[d->targets[i].accessor] >= 0) continue;
        if (!cna__mul_size(a->count, a->element_size, &size) || !cna__add_size(total, size, &total)) total = SIZE_MAX;
    }
    if (total <= c->max_decoded) return CNA_OK;
    if (total == SIZE_MAX)
        return cna__error(c->err, CNA_ERROR_LIMIT,
                          "%s: the primitive's accessors declare more decoded bytes than the decoded-size limit of %zu "
                          "bytes (cna_gltf_options.max_decoded_size, cna --max-decoded-size)",
                          d->path, c->max_decoded);
    return cna__error(c->err, CNA_ERROR_LIMIT,
                      "%s: the primitive's accessors declare %zu decoded bytes (%zu in all), more than the "
                      "decoded-size limit of %zu bytes (cna_gltf_options.max_decoded_size, cna --max-decoded-size)",
                      d->path, total - c->decoded_bytes, total, c->max_decoded);
}

/* ------------------------------------------------------------------ the stream's counts, before decoding */

/* A reader of a Draco stream's header fields (Draco bitstream 2.2). */
typedef struct peek {
    const uint8_t *p, *end;
    bool bad;
} peek;

static uint8_t peek_u8(peek *k)
{
    if (k->p >= k->end) {
        k->bad = true;
        return 0;
    }
    return *k->p++;
}

static uint32_t peek_var(peek *k)
{
    uint32_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        uint8_t b = peek_u8(k);
        if (shift == 28 && (b & 0x70)) k->bad = true; /* beyond 32 bits */
        v |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80) || k->bad) return v;
    }
    k->bad = true;
    return 0;
}

static void peek_skip(peek *k, size_t n)
{
    if ((size_t)(k->end - k->p) < n) k->bad = true;
    else k->p += n;
}

/* A metadata element: entries (key, value), then named sub-elements. */
static void peek_metadata_element(peek *k, int depth)
{
    if (depth > 32) {
        k->bad = true;
        return;
    }
    uint32_t entries = peek_var(k);
    for (uint32_t i = 0; i < entries && !k->bad; i++) {
        peek_skip(k, peek_u8(k));
        peek_skip(k, peek_u8(k));
    }
    uint32_t subs = peek_var(k);
    for (uint32_t i = 0; i < subs && !k->bad; i++) {
        peek_skip(k, peek_u8(k));
        peek_metadata_element(k, depth + 1);
    }
}

/* The counts a Draco 2.2 triangle-mesh stream declares in its header, read
 * without decoding: faces, and vertices (edgebreaker: its encoded vertices;
 * sequential: its points). false when the stream is not one this reads (its
 * decoder then judges it). */
static bool peek_counts(const uint8_t *data, size_t size, uint64_t *faces, uint64_t *vertices, bool *edgebreaker)
{
    peek k = {data, data + size, false};
    if (size < 11 || memcmp(data, "DRACO", 5) != 0) return false;
    k.p += 5;
    uint8_t major = peek_u8(&k), minor = peek_u8(&k), type = peek_u8(&k), method = peek_u8(&k);
    if (major != 2 || minor != 2 || type != 1 || method > 1) return false;
    uint16_t flags = (uint16_t)(peek_u8(&k) | peek_u8(&k) << 8);
    if (flags & 0x8000) { /* metadata: per-attribute elements, then the geometry's */
        uint32_t n = peek_var(&k);
        for (uint32_t i = 0; i < n && !k.bad; i++) {
            (void)peek_var(&k);
            peek_metadata_element(&k, 0);
        }
        peek_metadata_element(&k, 0);
    }
    *edgebreaker = method == 1;
    if (method == 0) {
        *faces = peek_var(&k);
        *vertices = peek_var(&k);
    } else {
        (void)peek_u8(&k); /* traversal decoder type */
        *vertices = peek_var(&k);
        *faces = peek_var(&k);
    }
    return !k.bad;
}

/* What the stream's header declares is what its decoder allocates for: a
 * stream that declares more (edgebreaker) vertices than three per triangle
 * is refused, and so is one whose triangles (three 4-byte indices each) and
 * vertices (the attribute accessors' element sizes each) would decode to
 * more than the decoded-size limit leaves, before Draco's decoder runs (a
 * stream that declares other counts than its accessors, within the limit, is
 * refused after decoding, when the counts are compared). */
static cna_result check_stream_counts(cna__gltf_ctx *c, const draco_prim *d, const uint8_t *data, size_t size)
{
    uint64_t faces = 0, vertices = 0;
    bool edgebreaker = false;
    if (!peek_counts(data, size, &faces, &vertices, &edgebreaker)) return CNA_OK;
    if (edgebreaker && vertices > faces * 3)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: bufferViews[%d]: the Draco stream declares %llu vertices, more than its %llu triangles "
                          "can have (%llu); refused before decoding",
                          d->path, (int)d->view, (unsigned long long)vertices, (unsigned long long)faces,
                          (unsigned long long)(faces * 3));
    uint64_t per_vertex = 0;
    for (size_t i = 0; i < d->count; i++)
        if (d->targets[i].id >= 0) per_vertex += c->accessors[d->targets[i].accessor].element_size;
    /* faces < 2^32 and per_vertex is small: no overflow in 64 bits */
    const uint64_t bytes = faces * 12 + vertices * per_vertex;
    const uint64_t left = c->max_decoded > c->decoded_bytes ? (uint64_t)(c->max_decoded - c->decoded_bytes) : 0;
    if (bytes > left)
        return cna__error(c->err, CNA_ERROR_LIMIT,
                          "%s: bufferViews[%d]: the Draco stream declares %llu triangles and %llu vertices (%llu "
                          "decoded bytes), more than the decoded-size limit of %zu bytes leaves (%llu; "
                          "cna_gltf_options.max_decoded_size, cna --max-decoded-size); refused before decoding",
                          d->path, (int)d->view, (unsigned long long)faces, (unsigned long long)vertices,
                          (unsigned long long)bytes, c->max_decoded, (unsigned long long)left);
    return CNA_OK;
}

static cna_result decode(cna__gltf_ctx *c, const draco_prim *d)
{
    const cna_gltf_buffer_view *v = &c->views[d->view];
    cna_result rl = check_declared(c, d);
    if (!rl) rl = check_stream_counts(c, d, v->data, v->byte_length);
    if (rl) return rl;
    cna__draco_mesh *mesh = NULL;
    char msg[120] = "";
    cna__draco_status s = cna__draco_decode(v->data, v->byte_length, &mesh, msg, sizeof msg);
    if (s == CNA__DRACO_NO_MEMORY)
        return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: bufferViews[%d]: Draco's decoder ran out of memory",
                          d->path, (int)d->view);
    if (s != CNA__DRACO_OK) {
        cna__utf8_repair(msg);
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: bufferViews[%d] (%zu bytes) is not a Draco triangle mesh: %s", d->path, (int)d->view,
                          v->byte_length, msg[0] ? msg : "the decoder refused it");
    }
    cna_result r = CNA_OK;
    for (size_t i = 0; i < d->count && !r; i++) {
        const draco_target *t = &d->targets[i];
        if (c->draco_view[t->accessor] >= 0) { /* decoded already: by this primitive, or one sharing its data */
            if (c->draco_view[t->accessor] != d->view || c->draco_attr[t->accessor] != t->id)
                r = cna__error(c->err, CNA_ERROR_INVALID_DATA,
                               "%s: %s: accessors[%d] already holds other decoded Draco data", d->path, t->name,
                               (int)t->accessor);
            continue;
        }
        r = t->id < 0 ? fill_indices(c, d, t, mesh) : fill_attribute(c, d, t, mesh);
    }
    cna__draco_free(mesh);
    return r;
}
#endif

cna_result cna__gltf_draco_primitive(cna__gltf_ctx *c, const cna__json *ext, const char *prim_path,
                                     const cna_gltf_primitive *p)
{
    draco_prim d;
    memset(&d, 0, sizeof d);
    cna__gltf_path_cat(d.path, sizeof d.path, prim_path, ".extensions." EXT);
    cna_result r = parse_ext(c, ext, p, &d);
    if (r) return r;
    /* Each accessor holds stored data (a bufferView of the file), data decoded
     * for an earlier primitive that shares this one's Draco data, or nothing
     * yet. Stored data for all of them is the uncompressed fallback, read as
     * it is; a mix of stored and compressed data would disagree on the vertex
     * order (Draco reorders vertices), so it is refused. */
    size_t stored = 0, missing = 0;
    const draco_target *first_stored = NULL, *first_missing = NULL;
    for (size_t i = 0; i < d.count; i++) {
        const draco_target *t = &d.targets[i];
        r = check_accessor(c, &d, t);
        if (r) return r;
        const cna_gltf_accessor *a = &c->accessors[t->accessor];
        bool decoded = c->draco_view && c->draco_view[t->accessor] >= 0;
        if (decoded) {
            if (c->draco_view[t->accessor] != d.view || c->draco_attr[t->accessor] != t->id)
                return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                                  "%s: %s: accessors[%d] already holds other decoded Draco data", d.path, t->name,
                                  (int)t->accessor);
        } else if (a->buffer_view >= 0) {
            if (!stored++) first_stored = t;
        } else if (!missing++) {
            first_missing = t;
        }
    }
    if (stored == d.count) return CNA_OK; /* the fallback, complete */
    if (stored)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: %s (accessors[%d]) has a bufferView, but %zu of the primitive's %zu accessors have "
                          "none: either every one holds uncompressed data or none does",
                          d.path, first_stored->name, (int)first_stored->accessor, d.count - stored, d.count);
    if (!missing) return CNA_OK; /* decoded for a primitive that shares this one's data */
#ifdef CNA_WITH_DRACO
    (void)first_missing;
    return decode(c, &d);
#else
    return cna__error(c->err, CNA_ERROR_UNSUPPORTED,
                      "%s: cna was built without Draco (CMake option CNA_WITH_DRACO), and %s (accessors[%d]) has no "
                      "uncompressed data",
                      d.path, first_missing->name, (int)first_missing->accessor);
#endif
}
