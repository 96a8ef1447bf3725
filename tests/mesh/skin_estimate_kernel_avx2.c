/* skin_estimate_kernel.c for the AVX2 + FMA implementation: its own file so
 * that, like the library's src/<layer>/ *_avx2.c, it takes -mavx2 -mfma as a
 * source option, after every target option (-mno-avx among them). */
#include "skin_estimate_kernel.c"
