/* The blend's slerp lanes for the AVX path (blend_kernel.inc): this file is
 * compiled with -mavx2 -mfma (CMakeLists.txt) and its function runs only on
 * a CPU with both (cna__cpu_has_avx2_fma, through the player's path); it
 * uses no multiply-add. */
#include "core/simd.h"
#if CNA__SIMD_AVX2
#define CNA__BLEND_LANES cna__blend_slerp_lanes_avx2
#include "character/blend_kernel.inc"
#endif
