/* The player's BASE path kernels (player_kernel.h): the library's baseline
 * target (SSE2 on x86-64, the scalar vocabulary with CNA_NO_SIMD). */
#define CNA__PLAYER_KERNELS cna__player_kernels_base
#include "anim/player_kernel.inc"
