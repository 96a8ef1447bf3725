/* The scalar instance of the fast skinning kernel (skin_kernel.h): always
 * compiled; the only one where CNA_NO_SIMD is defined. */
#define CNA__VEC_SCALAR 1
#define CNA__SKIN_FAST cna__skin_fast_scalar
#define CNA__SKIN_STREAMS cna__skin_streams_scalar
#include "model/skin_kernel.inc"
