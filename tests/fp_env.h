/*
 * tests/fp_env.h — flush-to-zero and denormals-are-zero for a test run.
 *
 * Hosts, game engines above all, often set FTZ and DAZ in x86's MXCSR: a
 * result that would be subnormal becomes 0, and a subnormal input reads as
 * 0. The results themselves then differ from the default environment's, but
 * cna's bit-for-bit equalities between its own ways of computing one result
 * (scalar, SSE2 and AVX kernels, vector lanes, crowd threads, the reference
 * functions) hold there too (docs/exactness.md). tests/CMakeLists.txt runs
 * the suites that check those equalities a second time with
 * CNA_TEST_FTZ_DAZ=1 in the environment; their main() calls
 * fp_env_from_test_environment(), which then sets both bits on the calling
 * thread, the one that runs the tests (threads it starts inherit them).
 */
#ifndef CNA_TESTS_FP_ENV_H
#define CNA_TESTS_FP_ENV_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__SSE2__) || defined(_M_X64)
#include <xmmintrin.h>
#define FP_ENV_HAS_MXCSR 1
#else
#define FP_ENV_HAS_MXCSR 0
#endif

/* MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6). */
#define FP_ENV_FTZ_DAZ 0x8040u

/* Sets (on) or clears (off) FTZ and DAZ on the calling thread; false where
 * the machine has no MXCSR (nothing changes). */
static inline bool fp_env_set_ftz_daz(bool on)
{
#if FP_ENV_HAS_MXCSR
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(on ? csr | FP_ENV_FTZ_DAZ : csr & ~FP_ENV_FTZ_DAZ);
    return true;
#else
    (void)on;
    return false;
#endif
}

/* Whether FTZ and DAZ are both set on the calling thread. */
static inline bool fp_env_ftz_daz(void)
{
#if FP_ENV_HAS_MXCSR
    return (_mm_getcsr() & FP_ENV_FTZ_DAZ) == FP_ENV_FTZ_DAZ;
#else
    return false;
#endif
}

/* With CNA_TEST_FTZ_DAZ set (and not "0"): FTZ and DAZ on, for the whole run. */
static inline void fp_env_from_test_environment(void)
{
    const char *v = getenv("CNA_TEST_FTZ_DAZ");
    if (!v || !*v || (v[0] == '0' && !v[1])) return;
    if (fp_env_set_ftz_daz(true)) {
        fprintf(stderr, "CNA_TEST_FTZ_DAZ: flush-to-zero and denormals-are-zero are set\n");
    } else {
        fprintf(stderr, "CNA_TEST_FTZ_DAZ: this machine has no MXCSR\n");
        exit(1);
    }
}

#endif /* CNA_TESTS_FP_ENV_H */
