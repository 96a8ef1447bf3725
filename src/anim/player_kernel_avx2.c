/* The player's AVX path kernels (player_kernel.h): this file is compiled
 * with -mavx2 -mfma (CMakeLists.txt) and its functions run only on a CPU
 * with both (cna__cpu_has_avx2_fma); they use no multiply-add. */
#include "core/simd.h"
#if CNA__SIMD_AVX2
#define CNA__PLAYER_KERNELS cna__player_kernels_avx2
#include "anim/player_kernel.inc"
#endif
