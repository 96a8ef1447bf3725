/*
 * The fast skinning kernel (src/model/skin_kernel.inc) compiled again with an
 * emulated reciprocal square root estimate in place of the CPU's rsqrtps.
 *
 * rsqrtps is implementation-defined: Intel and AMD return different values,
 * each within |e - 1/sqrt(x)| <= 1.5 · 2^-12 · 1/sqrt(x) (the architectural
 * bound). A result the kernel states (exactness for unit directions, the
 * error bound against the reference) must hold for every estimate within
 * that bound, so the tests run the kernel with estimates at both ends of the
 * bound, with the nearest float, and with estimates scattered across the
 * bound, on whatever CPU runs them.
 *
 * CMake compiles this file once per implementation, with CNA_TEST_EST_IMPL
 * scalar (and CNA_TEST_EST_SCALAR), sse2 or avx2 (through
 * skin_estimate_kernel_avx2.c, with -mavx2 -mfma), and it defines
 * cna_test_skin_fast_<impl> and cna_test_skin_streams_<impl> (declared in
 * skinning_test.h). Which estimate they emulate is chosen at run time, by
 * cna_test_skin_estimate_kind (skinning_test.h sets it before each call):
 * one object per implementation keeps the sanitizer build's compile time
 * down.
 */
#if defined(CNA_TEST_EST_SCALAR)
#define CNA__VEC_SCALAR 1
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/vec.h"

/* The implementation vec.h chose is the one asked for (a -mno-avx after
 * -mavx2 would silently make the AVX2 instance an SSE2 one). */
#define CNA_TEST_IMPL_ID(impl) CNA_TEST_IMPL_ID_(impl)
#define CNA_TEST_IMPL_ID_(impl) CNA_TEST_IMPL_##impl
#define CNA_TEST_IMPL_scalar CNA__VEC_SCALAR_IMPL
#define CNA_TEST_IMPL_sse2 CNA__VEC_SSE2_IMPL
#define CNA_TEST_IMPL_avx2 CNA__VEC_AVX2_IMPL
#if CNA_TEST_IMPL_ID(CNA_TEST_EST_IMPL) != CNA__VEC_IMPL
#error "skin_estimate_kernel.c: the compiler flags do not give the implementation asked for"
#endif

#define CNA_TEST_CAT(base, impl) base##impl
#define CNA_TEST_NAME(base, impl) CNA_TEST_CAT(base, impl)
#define CNA__SKIN_FAST CNA_TEST_NAME(cna_test_skin_fast_, CNA_TEST_EST_IMPL)
#define CNA__SKIN_STREAMS CNA_TEST_NAME(cna_test_skin_streams_, CNA_TEST_EST_IMPL)

/* The estimate to emulate: 0 low, 1 high, 2 nearest, 3 scattered (defined
 * by the test program, skinning_test.h). */
extern int cna_test_skin_estimate_kind;

/* The architectural bound of rsqrtps: relative error at most 1.5 · 2^-12. */
#define EST_BOUND (1.5 / 4096.0)

/* An estimate of 1/sqrt(x) for one lane, as rsqrtps may return it. For a
 * normal positive x (the only lanes whose result the kernel uses): the
 * float nearest to y · (1 + d), d = -bound (low), +bound (high), 0
 * (nearest) or a pseudo-random d in [-bound, bound] drawn from x's bits
 * (scattered), moved one step toward y when rounding took it past the
 * bound. Other inputs give what rsqrtps gives: +-0 and subnormals (treated
 * as zero) +-infinity, +infinity +0, negatives and NaN a NaN. */
static float estimate(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    if (x != x || x < 0.0f) return NAN;
    if (x < FLT_MIN) return signbit(x) ? -INFINITY : INFINITY;
    if (x == INFINITY) return 0.0f;
    const double y = 1.0 / sqrt((double)x);
    double d;
    switch (cna_test_skin_estimate_kind) {
    case 0: d = -EST_BOUND; break;
    case 1: d = EST_BOUND; break;
    case 2: d = 0.0; break;
    default: { /* a 32-bit integer hash of the input's bits to [-1, 1] */
        uint32_t h = bits * 0x9E3779B1u;
        h ^= h >> 15;
        h *= 0x85EBCA77u;
        h ^= h >> 13;
        d = EST_BOUND * ((double)h / 2147483647.5 - 1.0);
        break;
    }
    }
    float e = (float)(y * (1.0 + d));
    if (fabs((double)e - y) > EST_BOUND * y) e = nextafterf(e, (float)y);
    return e;
}

static inline vf4 emulated_rsqrt4(vf4 a)
{
    float v[4];
    vf4_storeu(v, a);
    for (int i = 0; i < 4; i++) v[i] = estimate(v[i]);
    return vf4_loadu(v);
}

static inline vf8 emulated_rsqrt8(vf8 a)
{
    float v[8];
    vf8_storeu(v, a);
    for (int i = 0; i < 8; i++) v[i] = estimate(v[i]);
    return vf8_loadu(v);
}

#define CNA__SKIN_RSQRT_EST4 emulated_rsqrt4
#define CNA__SKIN_RSQRT_EST8 emulated_rsqrt8

/* skin_kernel.h's prototypes name the library's instances; these are ours. */
#include "model/skin_kernel.h"
void CNA__SKIN_FAST(const cna_skinning_layout *l, const unsigned char *in, unsigned char *dst,
                    size_t count, const cna_mat4 *palette, size_t reach, size_t bytes);
void CNA__SKIN_STREAMS(const cna_skinning_layout *l, const unsigned char *in, size_t count,
                       const cna_mat4 *palette, size_t reach, const cna__skin_stream_out *o);

#include "model/skin_kernel.inc"
