/*
 * Test and benchmark hooks of the fast CPU skinning path
 * (src/model/skinning_cpu.c; used by tests/mesh/test_skinning_cpu.c and
 * bench/skinning.c). Not installed.
 *
 * kernel: 0 scalar, 1 SSE2, 2 AVX2 + FMA.
 * cna__skin_fast_kernel_supported: whether this build and this CPU run it.
 * cna__skin_fast_kernel: the kernel cna_skin_vertices_fast runs here (the
 * best supported). cna__skin_fast_kernel_name: "scalar", "SSE2",
 * "AVX2+FMA" (NULL for another number).
 * cna__skin_vertices_fast_path: cna_skin_vertices_fast with that kernel; an
 * unsupported kernel is refused (CNA_ERROR_UNSUPPORTED, out untouched)
 * before anything else.
 * cna__skin_streams_path: cna_skin_streams with that kernel, refused the
 * same way.
 * cna__skin_vertices_fast_with, cna__skin_streams_with: the same with an
 * instance of the caller's (every check, then its functions; the caller
 * makes sure the CPU runs it). The tests pass the kernel compiled with
 * emulated reciprocal square root estimates (tests/mesh/).
 */
#ifndef CNA_MODEL_SKINNING_INTERNAL_H
#define CNA_MODEL_SKINNING_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "cna/skinning.h"
#include "model/skin_kernel.h"

/* One instance of the fast kernel: its two entry points (skin_kernel.h). */
typedef struct cna__skin_kernel {
    cna__skin_fast_fn fast;
    cna__skin_streams_fn streams;
} cna__skin_kernel;

bool cna__skin_fast_kernel_supported(int kernel);
int cna__skin_fast_kernel(void);
const char *cna__skin_fast_kernel_name(int kernel);
cna_result cna__skin_vertices_fast_path(const cna_skinning_layout *layout, const void *vertices,
                                        size_t vertex_count, const cna_mat4 *palette,
                                        size_t palette_count, void *out, size_t out_size,
                                        int kernel, cna_error *err);
cna_result cna__skin_streams_path(const cna_skinning_layout *layout, const void *vertices,
                                  size_t vertex_count, const cna_mat4 *palette,
                                  size_t palette_count, const cna_skinning_streams *out,
                                  int kernel, cna_error *err);
cna_result cna__skin_vertices_fast_with(const cna_skinning_layout *layout, const void *vertices,
                                        size_t vertex_count, const cna_mat4 *palette,
                                        size_t palette_count, void *out, size_t out_size,
                                        const cna__skin_kernel *kernel, cna_error *err);
cna_result cna__skin_streams_with(const cna_skinning_layout *layout, const void *vertices,
                                  size_t vertex_count, const cna_mat4 *palette,
                                  size_t palette_count, const cna_skinning_streams *out,
                                  const cna__skin_kernel *kernel, cna_error *err);

#endif /* CNA_MODEL_SKINNING_INTERNAL_H */
