/*
 * Reference CPU skinning (include/cna/skinning.h): linear blend skinning with
 * four influences, in the exact arithmetic the header documents.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "cna/skinning.h"
#include "core/internal.h"

cna_result cna_skinning_layout_canonical(uint32_t stride, cna_skinning_layout *out,
                                         cna_error *err)
{
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: NULL");
    cna_skinning_layout l;
    l.stride = stride;
    l.position_offset = 0;
    l.normal_offset = 12;
    switch (stride) {
    case 52:
    case 56: l.tangent_offset = -1; l.joints_offset = 32; break;
    case 68: l.tangent_offset = 32; l.joints_offset = 48; break;
    case 76: l.tangent_offset = 32; l.joints_offset = 56; break;
    case 80: l.tangent_offset = 32; l.joints_offset = 60; break;
    default:
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "stride: %u is not a canonical skinned stride (52, 56, 68, 76, 80)",
                          (unsigned)stride);
    }
    l.weights_offset = l.joints_offset + 4;
    *out = l;
    return CNA_OK;
}

static cna_result check_slot(const cna_skinning_layout *l, int32_t offset, size_t size,
                             bool required, const char *name, cna_error *err)
{
    if (offset < 0) {
        if (!required) return CNA_OK;
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layout.%s: %d; this slot is required",
                          name, (int)offset);
    }
    if ((size_t)offset + size > l->stride)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "layout.%s: %d + %zu bytes exceeds stride %u", name, (int)offset, size,
                          (unsigned)l->stride);
    return CNA_OK;
}

static cna_result check_inputs(const cna_skinning_layout *l, const void *vertices, size_t count,
                               const cna_mat4 *palette, size_t palette_count, size_t *bytes,
                               cna_error *err)
{
    if (!l) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layout: NULL");
    if (l->stride == 0) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layout.stride: 0");
    cna_result r;
    if ((r = check_slot(l, l->position_offset, 12, true, "position_offset", err)) ||
        (r = check_slot(l, l->normal_offset, 12, false, "normal_offset", err)) ||
        (r = check_slot(l, l->tangent_offset, 16, false, "tangent_offset", err)) ||
        (r = check_slot(l, l->joints_offset, 4, true, "joints_offset", err)) ||
        (r = check_slot(l, l->weights_offset, 16, true, "weights_offset", err)))
        return r;
    if (!cna__mul_size(count, l->stride, bytes))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "vertex_count: %zu * stride %u overflows", count, (unsigned)l->stride);
    if (count > 0 && !vertices)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "vertices: NULL with vertex_count %zu",
                          count);
    if (palette_count > 0 && !palette)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "palette: NULL with palette_count %zu",
                          palette_count);
    const unsigned char *v = vertices;
    for (size_t i = 0; i < count; i++, v += l->stride) {
        uint8_t j[4];
        memcpy(j, v + l->joints_offset, sizeof j);
        for (int k = 0; k < 4; k++)
            if (j[k] >= palette_count)
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                                  "vertices[%zu].joints[%d]: palette index %u is not below "
                                  "palette_count %zu",
                                  i, k, (unsigned)j[k], palette_count);
    }
    return CNA_OK;
}

/* sum = sum + w · (M · (x, y, z, h)), row by row in the documented order. */
static void accumulate(float sum[3], const cna_mat4 *M, const float x[3], bool point, float w)
{
    const float *m = M->m;
    for (int r = 0; r < 3; r++) {
        float c = m[r] * x[0] + m[4 + r] * x[1];
        c = c + m[8 + r] * x[2];
        if (point) c = c + m[12 + r];
        sum[r] = sum[r] + w * c;
    }
}

static void normalize_or_keep(float v[3])
{
    const float len2 = (v[0] * v[0] + v[1] * v[1]) + v[2] * v[2];
    if (!(len2 > 0.0f) || !(len2 <= FLT_MAX)) return;
    const float len = sqrtf(len2);
    if (!(len > 0.0f)) return;
    v[0] = v[0] / len;
    v[1] = v[1] / len;
    v[2] = v[2] / len;
}

/* Skin the 3-float slot at `offset` of one vertex into out3. */
static void skin_slot(const unsigned char *vertex, int32_t offset, const uint8_t j[4],
                      const float w[4], const cna_mat4 *palette, bool point, float out3[3])
{
    float x[3];
    memcpy(x, vertex + offset, sizeof x);
    out3[0] = out3[1] = out3[2] = 0.0f;
    for (int i = 0; i < 4; i++) {
        if (w[i] == 0.0f) continue;
        accumulate(out3, &palette[j[i]], x, point, w[i]);
    }
    if (!point) normalize_or_keep(out3);
}

static void read_influences(const cna_skinning_layout *l, const unsigned char *vertex,
                            uint8_t j[4], float w[4])
{
    memcpy(j, vertex + l->joints_offset, 4);
    memcpy(w, vertex + l->weights_offset, 4 * sizeof(float));
}

cna_result cna_skin_vertices(const cna_skinning_layout *layout, const void *vertices,
                             size_t vertex_count, const cna_mat4 *palette, size_t palette_count,
                             void *out, size_t out_size, cna_error *err)
{
    size_t bytes = 0;
    cna_result r = check_inputs(layout, vertices, vertex_count, palette, palette_count, &bytes, err);
    if (r != CNA_OK) return r;
    if (out_size < bytes)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out: %zu bytes; %zu vertices of stride %u need %zu", out_size,
                          vertex_count, (unsigned)layout->stride, bytes);
    if (bytes == 0) return CNA_OK;
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: NULL");
    const uintptr_t o = (uintptr_t)out, b = (uintptr_t)vertices;
    if (o < b + bytes && b < o + bytes)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: overlaps vertices (%zu bytes)",
                          bytes);
    memcpy(out, vertices, bytes);
    const unsigned char *in = vertices;
    unsigned char *dst = out;
    const size_t stride = layout->stride;
    for (size_t v = 0; v < vertex_count; v++, in += stride, dst += stride) {
        uint8_t j[4];
        float w[4], res[3];
        read_influences(layout, in, j, w);
        skin_slot(in, layout->position_offset, j, w, palette, true, res);
        memcpy(dst + layout->position_offset, res, sizeof res);
        if (layout->normal_offset >= 0) {
            skin_slot(in, layout->normal_offset, j, w, palette, false, res);
            memcpy(dst + layout->normal_offset, res, sizeof res);
        }
        if (layout->tangent_offset >= 0) {
            skin_slot(in, layout->tangent_offset, j, w, palette, false, res);
            memcpy(dst + layout->tangent_offset, res, sizeof res); /* w (handedness) kept */
        }
    }
    return CNA_OK;
}

cna_result cna_skin_positions(const cna_skinning_layout *layout, const void *vertices,
                              size_t vertex_count, const cna_mat4 *palette, size_t palette_count,
                              float *out_xyz, size_t out_count, cna_error *err)
{
    size_t bytes = 0, floats = 0;
    cna_result r = check_inputs(layout, vertices, vertex_count, palette, palette_count, &bytes, err);
    if (r != CNA_OK) return r;
    if (!cna__mul_size(vertex_count, 3, &floats) || out_count < floats)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out_count: %zu floats; %zu vertices need 3 each", out_count,
                          vertex_count);
    if (floats == 0) return CNA_OK;
    if (!out_xyz) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out_xyz: NULL");
    const uintptr_t o = (uintptr_t)out_xyz, b = (uintptr_t)vertices;
    if (o < b + bytes && b < o + floats * sizeof(float))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out_xyz: overlaps vertices");
    const unsigned char *in = vertices;
    for (size_t v = 0; v < vertex_count; v++, in += layout->stride) {
        uint8_t j[4];
        float w[4];
        read_influences(layout, in, j, w);
        skin_slot(in, layout->position_offset, j, w, palette, true, out_xyz + 3 * v);
    }
    return CNA_OK;
}
