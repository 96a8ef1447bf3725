/*
 * src/core/simd.h — the one switch for cna's own SIMD code (not installed).
 *
 * CNA__SIMD_SSE2 is 1 where the compiler targets x86 with SSE2 (x86-64's
 * baseline) and CNA_NO_SIMD is not defined, else 0. Every SIMD path of the
 * library — the SSE2 code and, built on it, the AVX, AVX2 + FMA and AVX-512F
 * kernels chosen at run time by what the CPU supports — is compiled only when
 * it is 1; the scalar code is always compiled and gives the same results.
 *
 * CNA_NO_SIMD is defined by the CMake option of the same name
 * (-DCNA_NO_SIMD=ON), for every target of the build, tests included.
 * cglm's inline functions, which cna calls for some vector and matrix
 * operations, follow the compiler's own target (cglm 0.8 has no switch).
 */
#ifndef CNA_CORE_SIMD_H
#define CNA_CORE_SIMD_H

#if !defined(CNA_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64))
#define CNA__SIMD_SSE2 1
#else
#define CNA__SIMD_SSE2 0
#endif

#endif
