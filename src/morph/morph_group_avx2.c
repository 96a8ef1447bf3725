/* The AVX2 + FMA instance of the morph group path (morph_group.h): this
 * file is compiled with -mavx2 -mfma (CMakeLists.txt) and its functions
 * run only on a CPU with both (cna__cpu_has_avx2_fma). */
#include "core/simd.h"
#if CNA__SIMD_AVX2
#define CNA__MORPH_GROUPS cna__morph_groups_avx2
#include "morph/morph_group.inc"
#endif
