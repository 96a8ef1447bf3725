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

/* cna__morph_blend_unchecked with the SIMD path (simd = true; the default)
 * or the scalar path only (simd = false); both write the same bytes. */
void cna__morph_blend_path(const cna_morph_target_data *data, const float *weights,
                           unsigned char *out, bool simd);
/* Whether this build has the SIMD path (SSE2 and no CNA_NO_SIMD). */
bool cna__morph_has_simd(void);

#endif
