/*
 * src/core/simd.h — the one switch for cna's own SIMD code (not installed).
 *
 * CNA__SIMD_SSE2 is 1 where the compiler targets x86 with SSE2 (x86-64's
 * baseline) and CNA_NO_SIMD is not defined, else 0.
 * CNA__SIMD_AVX2 is 1 where, in addition, the build compiles the
 * src/<layer>/ *_avx2.c files for AVX2 + FMA (x86-64 with gcc or clang:
 * CMakeLists.txt passes -mavx2 -mfma to those files only and defines
 * CNA__AVX2_KERNELS); their kernels run only where cna__cpu_has_avx2_fma()
 * says the CPU has both (the compiler's CPU detection also checks that the
 * OS saves the 256-bit registers).
 * The kernels themselves are written once on the vocabulary of core/vec.h
 * and compiled once per implementation; the scalar one is always compiled.
 *
 * CNA_NO_SIMD is defined by the CMake option of the same name
 * (-DCNA_NO_SIMD=ON), for every target of the build, tests included.
 * cglm's inline functions, which cna calls for some vector and matrix
 * operations, follow the compiler's own target (cglm 0.8 has no switch):
 * CMakeLists.txt compiles everything but the *_avx2.c files with -mno-avx,
 * so that they stay SSE2 without multiply-add whatever CMAKE_C_FLAGS asks
 * (with AVX or FMA their matrix products would add in another order or
 * fuse, and the player's kernels would no longer give their bits).
 */
#ifndef CNA_CORE_SIMD_H
#define CNA_CORE_SIMD_H

#if !defined(CNA_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64))
#define CNA__SIMD_SSE2 1
#else
#define CNA__SIMD_SSE2 0
#endif

#if CNA__SIMD_SSE2 && defined(CNA__AVX2_KERNELS) && defined(__GNUC__)
#define CNA__SIMD_AVX2 1
static inline int cna__cpu_has_avx2_fma(void)
{
    __builtin_cpu_init(); /* a no-op once done; needed before main (constructors) */
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
#define CNA__SIMD_AVX2 0
static inline int cna__cpu_has_avx2_fma(void) { return 0; }
#endif

#endif
