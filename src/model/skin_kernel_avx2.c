/* The AVX2 + FMA instance of the fast skinning kernel (skin_kernel.h): this
 * file is compiled with -mavx2 -mfma (CMakeLists.txt) and its functions
 * run only on a CPU with both (cna__cpu_has_avx2_fma). */
#include "core/simd.h"
#if CNA__SIMD_AVX2
#define CNA__SKIN_FAST cna__skin_fast_avx2
#define CNA__SKIN_STREAMS cna__skin_streams_avx2
#include "model/skin_kernel.inc"
#endif
