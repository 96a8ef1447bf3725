/*
 * Private declarations shared by the morph layer. Not installed.
 */
#ifndef CNA_MORPH_INTERNAL_H
#define CNA_MORPH_INTERNAL_H

#include "cna/morph.h"
#include "core/internal.h"

/* Check a weight array against a carrier: count == target_count, non-NULL
 * when count > 0, every value finite. */
cna_result cna__morph_check_weights(const cna_morph_target_data *data, const float *weights,
                                    size_t count, cna_error *err);

/* The blend itself, on a carrier that passed cna_morph_target_data_validate
 * and weights that passed cna__morph_check_weights; writes
 * vertex_count * stride bytes to out, which must not overlap the base. */
void cna__morph_blend_unchecked(const cna_morph_target_data *data, const float *weights,
                                unsigned char *out);

/* The blend's code paths; every one writes the same bytes as the scalar one.
 *   SCALAR  the reference (block of 256 vertices, scalar finish);
 *   SSE2    the block path with four-vertex SSE2 renormalisation (x86-64
 *           baseline; absent with CNA_NO_SIMD);
 *   AVX     the group path: eight vertices at a time in registers
 *           (morph_group.h; x86-64 with gcc/clang, chosen at run time when
 *           the CPU has AVX2 and FMA; absent with CNA_NO_SIMD); falls back
 *           to SSE2 for the layouts and target counts it does not take and
 *           for the last count % 8 vertices. */
typedef enum cna__morph_path {
    CNA__MORPH_PATH_SCALAR = 0,
    CNA__MORPH_PATH_SSE2,
    CNA__MORPH_PATH_AVX,
    CNA__MORPH_PATH_COUNT
} cna__morph_path;

/* Whether this build and this CPU have `path`. */
bool cna__morph_path_available(cna__morph_path path);
/* The fastest available path (what cna__morph_blend_unchecked uses). */
cna__morph_path cna__morph_best_path(void);
/* cna__morph_blend_unchecked through `path` (an unavailable one runs the
 * scalar path). */
void cna__morph_blend_with(const cna_morph_target_data *data, const float *weights,
                           unsigned char *out, cna__morph_path path);

/* cna__morph_blend_unchecked with the fastest SIMD path (simd = true; the
 * default) or the scalar path only (simd = false); both write the same bytes. */
void cna__morph_blend_path(const cna_morph_target_data *data, const float *weights,
                           unsigned char *out, bool simd);
/* Whether this build has the SSE2 path (SSE2 and no CNA_NO_SIMD). */
bool cna__morph_has_simd(void);

#endif
