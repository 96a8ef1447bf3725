/*
 * The kernels of the fast CPU skinning path (cna_skin_vertices_fast,
 * cna_skin_streams; not installed). One kernel, src/model/skin_kernel.inc,
 * written on the SIMD vocabulary (core/vec.h), compiled once per
 * implementation: skin_kernel_scalar.c (always), skin_kernel_sse2.c (where
 * core/simd.h's CNA__SIMD_SSE2 is 1) and skin_kernel_avx2.c (where
 * CNA__SIMD_AVX2 is 1; run only on a CPU with AVX2 and FMA).
 * skinning_cpu.c checks the inputs and picks the instance.
 *
 * cna__skin_fast_*: count > 0 vertices of layout l (checked) from in to
 * dst, every byte of the bytes = count * stride written; reach: how many
 * palette entries the joint indices can name (check_inputs').
 * cna__skin_streams_*: the same arithmetic, only p', n', t' written, into o.
 */
#ifndef CNA_MODEL_SKIN_KERNEL_H
#define CNA_MODEL_SKIN_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "cna/skinning.h"

/* The streams as the kernels use them: vertex 0's slot and the stride of
 * each (n, t NULL when the layout has no such slot). */
typedef struct cna__skin_stream_out {
    unsigned char *p, *n, *t;
    size_t ps, ns, ts;
    bool normalize;
} cna__skin_stream_out;

/* The reference's normalisation (skinning_cpu.c): v / |v|, or v unchanged
 * when its squared length is 0 or not finite. Every kernel takes it for a
 * squared length outside [FLT_MIN, FLT_MAX]. */
void cna__skin_normalize_or_keep(float v[3]);

typedef void (*cna__skin_fast_fn)(const cna_skinning_layout *l, const unsigned char *in,
                                  unsigned char *dst, size_t count, const cna_mat4 *palette,
                                  size_t reach, size_t bytes);
typedef void (*cna__skin_streams_fn)(const cna_skinning_layout *l, const unsigned char *in,
                                     size_t count, const cna_mat4 *palette, size_t reach,
                                     const cna__skin_stream_out *o);

void cna__skin_fast_scalar(const cna_skinning_layout *l, const unsigned char *in,
                           unsigned char *dst, size_t count, const cna_mat4 *palette,
                           size_t reach, size_t bytes);
void cna__skin_streams_scalar(const cna_skinning_layout *l, const unsigned char *in, size_t count,
                              const cna_mat4 *palette, size_t reach,
                              const cna__skin_stream_out *o);
void cna__skin_fast_sse2(const cna_skinning_layout *l, const unsigned char *in,
                         unsigned char *dst, size_t count, const cna_mat4 *palette, size_t reach,
                         size_t bytes);
void cna__skin_streams_sse2(const cna_skinning_layout *l, const unsigned char *in, size_t count,
                            const cna_mat4 *palette, size_t reach, const cna__skin_stream_out *o);
void cna__skin_fast_avx2(const cna_skinning_layout *l, const unsigned char *in,
                         unsigned char *dst, size_t count, const cna_mat4 *palette, size_t reach,
                         size_t bytes);
void cna__skin_streams_avx2(const cna_skinning_layout *l, const unsigned char *in, size_t count,
                            const cna_mat4 *palette, size_t reach, const cna__skin_stream_out *o);

#endif /* CNA_MODEL_SKIN_KERNEL_H */
