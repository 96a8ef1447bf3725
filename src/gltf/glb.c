/* GLB container: 12-byte header (magic "glTF", version 2, total length),
 * then chunks of (uint32 length, uint32 type, data). The first chunk is JSON,
 * an optional BIN chunk follows, unknown chunk types are skipped. Every length
 * is checked against the bytes present; all values are little-endian. */
#include <string.h>

#include "gltf/gltf_internal.h"

#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */

static uint32_t read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool cna__gltf_glb_is(const uint8_t *data, size_t size)
{
    return size >= 4 && read_u32(data) == GLB_MAGIC;
}

static cna_result take_chunk(uint32_t type, size_t index, const uint8_t *p, uint32_t len, cna__gltf_glb *out,
                             cna_error *err)
{
    if (index == 0) {
        if (type != GLB_CHUNK_JSON)
            return cna__error(err, CNA_ERROR_PARSE, "GLB: first chunk has type 0x%08X; expected JSON",
                              (unsigned)type);
        if (len == 0) return cna__error(err, CNA_ERROR_PARSE, "GLB: the JSON chunk is empty");
        out->json = p;
        out->json_size = len;
        return CNA_OK;
    }
    if (type == GLB_CHUNK_JSON)
        return cna__error(err, CNA_ERROR_PARSE, "GLB: chunk %zu is a second JSON chunk", index);
    if (type == GLB_CHUNK_BIN) {
        if (index != 1)
            return cna__error(err, CNA_ERROR_PARSE, "GLB: BIN chunk at position %zu; it must follow the JSON chunk",
                              index);
        out->bin = p;
        out->bin_size = len;
        out->has_bin = true;
    }
    return CNA_OK; /* unknown chunk types are skipped */
}

/* The container header's checks (magic, version, length); data holds at least
 * the 12 header bytes when size >= 12. */
static cna_result check_header(const uint8_t *data, size_t size, cna_error *err)
{
    if (size < 12)
        return cna__error(err, CNA_ERROR_PARSE, "GLB: %zu bytes; the header needs 12", size);
    if (read_u32(data) != GLB_MAGIC) return cna__error(err, CNA_ERROR_PARSE, "GLB: bad magic");
    uint32_t version = read_u32(data + 4);
    if (version != 2)
        return cna__error(err, CNA_ERROR_UNSUPPORTED, "GLB: container version %u is not supported (2 only)",
                          (unsigned)version);
    uint32_t length = read_u32(data + 8);
    if ((size_t)length != size)
        return cna__error(err, CNA_ERROR_PARSE, "GLB: header length %u differs from the data size %zu",
                          (unsigned)length, size);
    return CNA_OK;
}

/* The chunk header at byte *pos of the container (hdr: its 8 bytes, when
 * present): length and type, checked against the bytes left; *pos moves past
 * the header. */
static cna_result chunk_header(const uint8_t *hdr, size_t *pos, size_t size, size_t index, uint32_t *len,
                               uint32_t *type, cna_error *err)
{
    if (size - *pos < 8)
        return cna__error(err, CNA_ERROR_PARSE, "GLB: chunk %zu header at byte %zu is cut off (%zu bytes left)",
                          index, *pos, size - *pos);
    *len = read_u32(hdr);
    *type = read_u32(hdr + 4);
    *pos += 8;
    if (*len % 4 != 0)
        return cna__error(err, CNA_ERROR_PARSE, "GLB: chunk %zu length %u is not a multiple of 4", index,
                          (unsigned)*len);
    if ((size_t)*len > size - *pos)
        return cna__error(err, CNA_ERROR_PARSE,
                          "GLB: chunk %zu length %u exceeds the %zu bytes left in the container", index,
                          (unsigned)*len, size - *pos);
    return CNA_OK;
}

/* The chunks from byte pos to size, chunk `index` first; `at` holds the
 * container's bytes from byte `origin` on. Returns the number of chunks seen
 * in *index. */
static cna_result walk_chunks(const uint8_t *at, size_t origin, size_t pos, size_t size, size_t *index,
                              cna__gltf_glb *out, cna_error *err)
{
    while (pos < size) {
        uint32_t len, type;
        cna_result r = chunk_header(at + (pos - origin), &pos, size, *index, &len, &type, err);
        if (!r) r = take_chunk(type, *index, at + (pos - origin), len, out, err);
        if (r) return r;
        pos += len;
        (*index)++;
    }
    return CNA_OK;
}

cna_result cna__gltf_glb_parse(const uint8_t *data, size_t size, cna__gltf_glb *out, cna_error *err)
{
    memset(out, 0, sizeof *out);
    cna_result r = check_header(data, size, err);
    size_t index = 0;
    if (!r) r = walk_chunks(data, 0, 12, size, &index, out, err);
    if (r) return r;
    if (index == 0) return cna__error(err, CNA_ERROR_PARSE, "GLB: no JSON chunk");
    return CNA_OK;
}

bool cna__gltf_glb_split_size(const uint8_t head[CNA__GLTF_GLB_HEAD], size_t size, size_t *json_size)
{
    if (size < CNA__GLTF_GLB_HEAD || check_header(head, size, NULL) != CNA_OK) return false;
    uint32_t len = read_u32(head + 12), type = read_u32(head + 16);
    if (type != GLB_CHUNK_JSON || len == 0 || len % 4 != 0 || (size_t)len > size - CNA__GLTF_GLB_HEAD) return false;
    *json_size = len;
    return true;
}

cna_result cna__gltf_glb_parse_split(const uint8_t head[CNA__GLTF_GLB_HEAD], const uint8_t *json, const uint8_t *rest,
                                     size_t size, cna__gltf_glb *out, cna_error *err)
{
    memset(out, 0, sizeof *out);
    cna_result r = check_header(head, size, err);
    size_t pos = 12, index = 0;
    uint32_t len = 0, type = 0;
    if (!r) r = chunk_header(head + 12, &pos, size, 0, &len, &type, err);
    if (!r) r = take_chunk(type, 0, json, len, out, err);
    if (r) return r;
    index = 1;
    return walk_chunks(rest, pos + len, pos + len, size, &index, out, err);
}
