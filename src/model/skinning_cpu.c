/*
 * Reference CPU skinning (include/cna/skinning.h): linear blend skinning with
 * four influences, in the exact arithmetic the header documents.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "cna/skinning.h"
#include "core/internal.h"
#include "model/skinning_internal.h"
#include "model/skin_kernel.h"

/* CNA_NO_SIMD (defined at compile time) leaves only the scalar instance of
 * the fast path's kernel (skin_kernel.h); vec.h's SSE2 or scalar integer
 * operations find the largest joint index. */
#include "core/simd.h"
#include "core/vec.h"

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

/* The largest palette index among count vertices' four joint bytes (count > 0). */
static uint8_t max_joint(const unsigned char *v, size_t count, size_t stride, int32_t offset)
{
    v += offset;
    vu8 acc = vu8_zero();
    size_t i = 0;
    for (; i + 4 <= count; i += 4, v += 4 * stride) /* four vertices' joints at once */
        acc = vu8_max(acc, vu8_words4(v, v + stride, v + 2 * stride, v + 3 * stride));
    for (; i < count; i++, v += stride) acc = vu8_max(acc, vu8_words4(v, v, v, v));
    return vu8_max_byte(acc);
}

/* *reach (when not NULL): how many palette entries, from the first, the
 * vertices' joint indices can name (the largest index + 1, or all when
 * that was not computed; at most 256). */
static cna_result check_inputs(const cna_skinning_layout *l, const void *vertices, size_t count,
                               const cna_mat4 *palette, size_t palette_count, size_t *bytes,
                               size_t *reach, cna_error *err)
{
    if (reach) *reach = palette_count < 256 ? palette_count : 256;
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
    if (palette_count > UINT8_MAX || count == 0) return CNA_OK; /* every index is below it */
    const uint8_t top = max_joint(vertices, count, l->stride, l->joints_offset);
    if (top < palette_count) {
        if (reach) *reach = (size_t)top + 1;
        return CNA_OK;
    }
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

void cna__skin_normalize_or_keep(float v[3])
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
    if (!point) cna__skin_normalize_or_keep(out3);
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
    cna_result r = check_inputs(layout, vertices, vertex_count, palette, palette_count, &bytes, NULL, err);
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
    cna_result r = check_inputs(layout, vertices, vertex_count, palette, palette_count, &bytes, NULL, err);
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

/* ------------------------------------------------------------------ fast path
 *
 * cna_skin_vertices_fast: the same checks and refusals as cna_skin_vertices
 * (check_inputs and check_out, shared), then one instance of the kernel of
 * skin_kernel.inc (its arithmetic is described there): AVX2 + FMA where
 * the build has it and the CPU runs it, else SSE2, else scalar. The tests
 * run every instance the build and the machine have
 * (cna__skin_vertices_fast_path). */

/* Kernel numbers of the test and benchmark hooks (src/model/skinning_internal.h). */
enum { KERNEL_SCALAR = 0, KERNEL_SSE2 = 1, KERNEL_AVX2 = 2, KERNEL_COUNT = 3 };

/* The instances, by kernel number (NULL: not in this build). */
static const cna__skin_kernel kernels[KERNEL_COUNT] = {
    {cna__skin_fast_scalar, cna__skin_streams_scalar},
#if CNA__SIMD_SSE2
    {cna__skin_fast_sse2, cna__skin_streams_sse2},
#else
    {NULL, NULL},
#endif
#if CNA__SIMD_AVX2
    {cna__skin_fast_avx2, cna__skin_streams_avx2},
#else
    {NULL, NULL},
#endif
};

/* The output checks of cna_skin_vertices (after check_inputs). */
static cna_result check_out(const cna_skinning_layout *layout, const void *vertices,
                            size_t vertex_count, const void *out, size_t out_size, size_t bytes,
                            cna_error *err)
{
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
    return CNA_OK;
}

bool cna__skin_fast_kernel_supported(int kernel)
{
    if (kernel < 0 || kernel >= KERNEL_COUNT || !kernels[kernel].fast) return false;
    return kernel != KERNEL_AVX2 || cna__cpu_has_avx2_fma();
}

int cna__skin_fast_kernel(void)
{
    for (int k = KERNEL_COUNT - 1; k > 0; k--)
        if (cna__skin_fast_kernel_supported(k)) return k;
    return KERNEL_SCALAR;
}

const char *cna__skin_fast_kernel_name(int kernel)
{
    static const char *const names[KERNEL_COUNT] = {"scalar", "SSE2", "AVX2+FMA"};
    return kernel >= 0 && kernel < KERNEL_COUNT ? names[kernel] : NULL;
}

cna_result cna__skin_vertices_fast_with(const cna_skinning_layout *layout, const void *vertices,
                                        size_t vertex_count, const cna_mat4 *palette,
                                        size_t palette_count, void *out, size_t out_size,
                                        const cna__skin_kernel *kernel, cna_error *err)
{
    size_t bytes = 0, reach = 0;
    cna_result r =
        check_inputs(layout, vertices, vertex_count, palette, palette_count, &bytes, &reach, err);
    if (r != CNA_OK) return r;
    if ((r = check_out(layout, vertices, vertex_count, out, out_size, bytes, err)) != CNA_OK)
        return r;
    if (bytes == 0) return CNA_OK;
    kernel->fast(layout, vertices, out, vertex_count, palette, reach, bytes);
    return CNA_OK;
}

cna_result cna__skin_vertices_fast_path(const cna_skinning_layout *layout, const void *vertices,
                                        size_t vertex_count, const cna_mat4 *palette,
                                        size_t palette_count, void *out, size_t out_size,
                                        int kernel, cna_error *err)
{
    if (!cna__skin_fast_kernel_supported(kernel))
        return cna__error(err, CNA_ERROR_UNSUPPORTED,
                          "kernel: %d is not supported by this build or CPU", kernel);
    return cna__skin_vertices_fast_with(layout, vertices, vertex_count, palette, palette_count, out,
                                        out_size, &kernels[kernel], err);
}

cna_result cna_skin_vertices_fast(const cna_skinning_layout *layout, const void *vertices,
                                  size_t vertex_count, const cna_mat4 *palette,
                                  size_t palette_count, void *out, size_t out_size, cna_error *err)
{
    /* no cached choice (no state): the CPU feature test is a few loads */
    return cna__skin_vertices_fast_with(layout, vertices, vertex_count, palette, palette_count, out,
                                        out_size, &kernels[cna__skin_fast_kernel()], err);
}

/* ------------------------------------------------------------ streams
 *
 * cna_skin_streams: cna_skin_vertices_fast's arithmetic (the same blend,
 * transforms and normalisation, in the same kernels chosen by the same
 * rules, so the same bits), reading only each vertex's skinned slots,
 * joints and weights, and writing only p', n', t' into the caller's
 * streams: nothing is copied. The loops are the fast path's less its copy.
 * Packed position and normal streams (stride 12) take 16-byte stores whose
 * 4th lane lands on the next vertex's slot, written right after; the last
 * vertex of a call gets exact 12-byte stores, so nothing outside the
 * streams' (vertex_count - 1) * stride + 12 bytes is written. */

/* The names one stream's messages use. */
typedef struct stream_names {
    const char *buffer, *size, *stride, *slot, *what;
} stream_names;

static const stream_names position_names = {"positions", "positions_size", "position_stride",
                                            "position_offset", "positions"};
static const stream_names normal_names = {"normals", "normals_size", "normal_stride",
                                          "normal_offset", "normals"};
static const stream_names tangent_names = {"tangents", "tangents_size", "tangent_stride",
                                           "tangent_offset", "tangents"};

/* One stream's checks. slot: the layout's offset for it (-1: absent);
 * width: its slot's bytes; in_bytes: the vertices' bytes at `vertices`.
 * *stride: the stride to use (0 made packed); *span: the bytes it covers
 * (0 when it writes nothing). */
static cna_result check_stream(const void *buf, size_t size, uint32_t stride_in, size_t width,
                               int32_t slot, const stream_names *nm, size_t count,
                               const void *vertices, size_t in_bytes, size_t *stride,
                               size_t *span, cna_error *err)
{
    *stride = stride_in ? stride_in : width;
    *span = 0;
    if (slot < 0) {
        if (buf)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "out.%s: not NULL, but layout.%s is -1 (no %s to skin)",
                              nm->buffer, nm->slot, nm->what);
        return CNA_OK;
    }
    if (stride_in != 0 && stride_in < width)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out.%s: %u; at least %zu (or 0 for packed)", nm->stride,
                          (unsigned)stride_in, width);
    if (count == 0) return CNA_OK;
    if (!buf) {
        if (nm == &position_names)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "out.positions: NULL with vertex_count %zu", count);
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out.%s: NULL; layout.%s is %d (set it to -1 to skip the %s)",
                          nm->buffer, nm->slot, (int)slot, nm->what);
    }
    size_t need = 0;
    if (!cna__mul_size(count - 1, *stride, &need) || !cna__add_size(need, width, &need))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out.%s: %zu vertices at stride %zu overflow", nm->stride, count,
                          *stride);
    if (size < need)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out.%s: %zu bytes; %zu vertices at stride %zu need %zu", nm->size,
                          size, count, *stride, need);
    const uintptr_t o = (uintptr_t)buf, b = (uintptr_t)vertices;
    if (o < b + in_bytes && b < o + need)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out.%s: overlaps vertices",
                          nm->buffer);
    *span = need;
    return CNA_OK;
}

/* Whether two streams' slots share a byte: a's slots are [a + v·s, + aw)
 * for v < count within a's span, b's likewise. Spans apart: no. Same
 * stride and more than one vertex: the slots interleave without meeting
 * exactly when b starts d bytes into a's period with aw <= d and
 * d + bw <= stride (d = (b - a) mod stride). Anything else meets. */
static bool streams_meet(uintptr_t a, size_t a_span, size_t a_stride, size_t aw, uintptr_t b,
                         size_t b_span, size_t b_stride, size_t bw)
{
    if (a_span == 0 || b_span == 0 || a + a_span <= b || b + b_span <= a) return false;
    if (a_stride != b_stride || a_span == aw) return true; /* one vertex: its slots meet */
    const size_t s = a_stride;
    const size_t d = b >= a ? (size_t)(b - a) % s : (s - (size_t)(a - b) % s) % s;
    return !(d >= aw && d + bw <= s);
}

/* Every check of cna_skin_streams; fills *o and *reach (check_inputs'). */
static cna_result check_streams(const cna_skinning_layout *layout, const void *vertices,
                                size_t count, const cna_mat4 *palette, size_t palette_count,
                                const cna_skinning_streams *out, cna__skin_stream_out *o, size_t *reach,
                                cna_error *err)
{
    size_t bytes = 0;
    cna_result r =
        check_inputs(layout, vertices, count, palette, palette_count, &bytes, reach, err);
    if (r != CNA_OK) return r;
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: NULL");
    if (out->flags & ~(uint32_t)CNA_SKIN_NO_RENORMALIZE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "out.flags: 0x%x has unknown bits (known: CNA_SKIN_NO_RENORMALIZE 0x1)",
                          (unsigned)out->flags);
    const void *bufs[3] = {out->positions, out->normals, out->tangents};
    const size_t sizes[3] = {out->positions_size, out->normals_size, out->tangents_size};
    const uint32_t strides[3] = {out->position_stride, out->normal_stride, out->tangent_stride};
    const size_t widths[3] = {12, 12, 16};
    const int32_t slots[3] = {layout->position_offset, layout->normal_offset,
                              layout->tangent_offset};
    const stream_names *names[3] = {&position_names, &normal_names, &tangent_names};
    size_t stride[3], span[3];
    for (int s = 0; s < 3; s++)
        if ((r = check_stream(bufs[s], sizes[s], strides[s], widths[s], slots[s], names[s], count,
                              vertices, bytes, &stride[s], &span[s], err)) != CNA_OK)
            return r;
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (streams_meet((uintptr_t)bufs[a], span[a], stride[a], widths[a],
                             (uintptr_t)bufs[b], span[b], stride[b], widths[b]))
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out.%s: overlaps out.%s",
                                  names[b]->buffer, names[a]->buffer);
    o->p = (unsigned char *)out->positions;
    o->n = layout->normal_offset >= 0 ? (unsigned char *)out->normals : NULL;
    o->t = layout->tangent_offset >= 0 ? (unsigned char *)out->tangents : NULL;
    o->ps = stride[0];
    o->ns = stride[1];
    o->ts = stride[2];
    o->normalize = (out->flags & CNA_SKIN_NO_RENORMALIZE) == 0;
    return CNA_OK;
}

cna_result cna__skin_streams_with(const cna_skinning_layout *layout, const void *vertices,
                                  size_t vertex_count, const cna_mat4 *palette,
                                  size_t palette_count, const cna_skinning_streams *out,
                                  const cna__skin_kernel *kernel, cna_error *err)
{
    cna__skin_stream_out o;
    size_t reach = 0;
    cna_result r = check_streams(layout, vertices, vertex_count, palette, palette_count, out, &o,
                                 &reach, err);
    if (r != CNA_OK || vertex_count == 0) return r;
    kernel->streams(layout, vertices, vertex_count, palette, reach, &o);
    return CNA_OK;
}

cna_result cna__skin_streams_path(const cna_skinning_layout *layout, const void *vertices,
                                  size_t vertex_count, const cna_mat4 *palette,
                                  size_t palette_count, const cna_skinning_streams *out,
                                  int kernel, cna_error *err)
{
    if (!cna__skin_fast_kernel_supported(kernel))
        return cna__error(err, CNA_ERROR_UNSUPPORTED,
                          "kernel: %d is not supported by this build or CPU", kernel);
    return cna__skin_streams_with(layout, vertices, vertex_count, palette, palette_count, out,
                                  &kernels[kernel], err);
}

cna_result cna_skin_streams(const cna_skinning_layout *layout, const void *vertices,
                            size_t vertex_count, const cna_mat4 *palette, size_t palette_count,
                            const cna_skinning_streams *out, cna_error *err)
{
    return cna__skin_streams_with(layout, vertices, vertex_count, palette, palette_count, out,
                                  &kernels[cna__skin_fast_kernel()], err);
}
