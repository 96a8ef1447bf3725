/* The SSE2 instance of the fast skinning kernel (skin_kernel.h). */
#include "core/simd.h"
#if CNA__SIMD_SSE2
#define CNA__SKIN_FAST cna__skin_fast_sse2
#define CNA__SKIN_STREAMS cna__skin_streams_sse2
#include "model/skin_kernel.inc"
#endif
