/*
 * Shared helpers of the CPU skinning tests (test_skinning_cpu.c,
 * test_skinning_streams.c): per-kernel test registration, hand-made
 * canonical vertices, random palettes and vertices. Header-only (static
 * functions); include after mesh/mesh_test.h.
 */
#ifndef CNA_TESTS_MESH_SKINNING_TEST_H
#define CNA_TESTS_MESH_SKINNING_TEST_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cna/math.h"
#include "cna/skinning.h"
#include "model/skinning_internal.h"

/* Each fast-path test runs once per kernel variant (cmocka prestate: a
 * pointer to a skin_variant): the library's own instances (scalar, SSE2,
 * AVX2 + FMA), then the same kernel compiled by the tests with an emulated
 * reciprocal square root estimate (skin_estimate_kernel.c) at each end of
 * rsqrtps' architectural bound (low, high), the nearest float, and
 * estimates scattered across the bound. The emulated variants are how the
 * tests show, on whichever CPU runs them, that each stated result holds for
 * every estimate an Intel or an AMD processor may return. A variant this
 * CPU cannot run (AVX2 + FMA) is skipped. A CNA_NO_SIMD build has the scalar
 * kernel only (fast_path_dispatches_to_the_best_supported_kernel checks
 * it), with and without emulated estimates. */
typedef struct skin_variant {
    const char *name;                  /* "sse2", "sse2 low estimate", ... */
    int kernel;                        /* the library's kernel number it is built as */
    const cna__skin_kernel *emulated;  /* NULL: the library's own instance */
    int estimate;                      /* emulated: cna_test_skin_estimate_kind */
} skin_variant;

/* The estimate the emulated instances give (skin_estimate_kernel.c): 0 at
 * the low end of the bound, 1 the high end, 2 the nearest float, 3
 * scattered. One definition per test program (each includes this header
 * once). */
int cna_test_skin_estimate_kind;

#define SKIN_EST_DECLARE(impl)                                                                  \
    void cna_test_skin_fast_##impl(const cna_skinning_layout *l, const unsigned char *in,       \
                                   unsigned char *dst, size_t count, const cna_mat4 *palette,   \
                                   size_t reach, size_t bytes);                                 \
    void cna_test_skin_streams_##impl(const cna_skinning_layout *l, const unsigned char *in,    \
                                      size_t count, const cna_mat4 *palette, size_t reach,      \
                                      const cna__skin_stream_out *o);                           \
    static const cna__skin_kernel skin_est_##impl = {cna_test_skin_fast_##impl,                 \
                                                     cna_test_skin_streams_##impl};
SKIN_EST_DECLARE(scalar)
#if defined(CNA_TEST_SIMD_ESTIMATES) /* tests/CMakeLists.txt: where SSE2 and AVX2 are built */
SKIN_EST_DECLARE(sse2)
SKIN_EST_DECLARE(avx2)
#endif

#define SKIN_EST_VARIANTS(impl, k)                                                              \
    {#impl " low estimate", k, &skin_est_##impl, 0},                                            \
        {#impl " high estimate", k, &skin_est_##impl, 1},                                       \
        {#impl " nearest estimate", k, &skin_est_##impl, 2},                                    \
        {#impl " scattered estimates", k, &skin_est_##impl, 3}
static const skin_variant skin_variants[] = {
    {"scalar", 0, NULL, 0},
    SKIN_EST_VARIANTS(scalar, 0),
#if !defined(CNA_NO_SIMD)
    {"sse2", 1, NULL, 0},
    {"avx2_fma", 2, NULL, 0},
#endif
#if defined(CNA_TEST_SIMD_ESTIMATES)
    SKIN_EST_VARIANTS(sse2, 1),
    SKIN_EST_VARIANTS(avx2, 2),
#endif
};

#define KERNEL_TEST(f, i, suffix) {#f "/" suffix, f, NULL, NULL, (void *)&skin_variants[i]}
#define KERNEL_TESTS_EST(f, i, impl)                                                            \
    KERNEL_TEST(f, i, impl "_est_low"), KERNEL_TEST(f, i + 1, impl "_est_high"),                \
        KERNEL_TEST(f, i + 2, impl "_est_nearest"), KERNEL_TEST(f, i + 3, impl "_est_scattered")
#define KERNEL_TESTS_SCALAR(f) KERNEL_TEST(f, 0, "scalar"), KERNEL_TESTS_EST(f, 1, "scalar")
#if defined(CNA_NO_SIMD)
#define KERNEL_TESTS(f) KERNEL_TESTS_SCALAR(f)
#elif !defined(CNA_TEST_SIMD_ESTIMATES)
#define KERNEL_TESTS(f) \
    KERNEL_TESTS_SCALAR(f), KERNEL_TEST(f, 5, "sse2"), KERNEL_TEST(f, 6, "avx2_fma")
#else
#define KERNEL_TESTS(f)                                                                         \
    KERNEL_TESTS_SCALAR(f), KERNEL_TEST(f, 5, "sse2"), KERNEL_TEST(f, 6, "avx2_fma"),           \
        KERNEL_TESTS_EST(f, 7, "sse2"), KERNEL_TESTS_EST(f, 11, "avx2_fma")
#endif

/* The variant a test runs (skipped where this CPU cannot run it). */
static inline const skin_variant *kernel_of(void **state)
{
    const skin_variant *k = (const skin_variant *)*state;
    if (!cna__skin_fast_kernel_supported(k->kernel)) {
        print_message("kernel %s: not supported here, skipped\n", k->name);
        skip();
    }
    return k;
}

/* cna_skin_vertices_fast and cna_skin_streams through variant k. */
static inline cna_result variant_fast_path(const cna_skinning_layout *layout, const void *vertices,
                                           size_t vertex_count, const cna_mat4 *palette,
                                           size_t palette_count, void *out, size_t out_size,
                                           const skin_variant *k, cna_error *err)
{
    cna_test_skin_estimate_kind = k->estimate;
    if (k->emulated)
        return cna__skin_vertices_fast_with(layout, vertices, vertex_count, palette,
                                            palette_count, out, out_size, k->emulated, err);
    return cna__skin_vertices_fast_path(layout, vertices, vertex_count, palette, palette_count,
                                        out, out_size, k->kernel, err);
}

static inline cna_result variant_streams_path(const cna_skinning_layout *layout,
                                              const void *vertices, size_t vertex_count,
                                              const cna_mat4 *palette, size_t palette_count,
                                              const cna_skinning_streams *out,
                                              const skin_variant *k, cna_error *err)
{
    cna_test_skin_estimate_kind = k->estimate;
    if (k->emulated)
        return cna__skin_streams_with(layout, vertices, vertex_count, palette, palette_count,
                                      out, k->emulated, err);
    return cna__skin_streams_path(layout, vertices, vertex_count, palette, palette_count, out,
                                  k->kernel, err);
}

typedef struct vtx {
    float p[3], n[3], uv[2], t[4];
    uint8_t j[4];
    float w[4];
} vtx;

/* Pack into a canonical skinned layout (52: no tangent; 68: tangent at 32). */
static inline void pack(unsigned char *out, const vtx *v, size_t count, uint32_t stride)
{
    cna_skinning_layout l;
    assert_int_equal(cna_skinning_layout_canonical(stride, &l, NULL), CNA_OK);
    memset(out, 0, count * stride);
    for (size_t i = 0; i < count; i++) {
        unsigned char *d = out + i * stride;
        mesh_put_floats(d + l.position_offset, v[i].p, 3);
        mesh_put_floats(d + l.normal_offset, v[i].n, 3);
        mesh_put_floats(d + 24, v[i].uv, 2);
        if (l.tangent_offset >= 0) mesh_put_floats(d + l.tangent_offset, v[i].t, 4);
        memcpy(d + l.joints_offset, v[i].j, 4);
        mesh_put_floats(d + l.weights_offset, v[i].w, 4);
    }
}

static uint32_t rng_state = 12345u;
static inline float rnd(float lo, float hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return lo + (hi - lo) * (float)(rng_state >> 8) / 16777216.0f;
}

static inline void random_palette(cna_mat4 *palette, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        float q[4], len = 0;
        for (int c = 0; c < 4; c++) {
            q[c] = rnd(-1, 1);
            len += q[c] * q[c];
        }
        len = sqrtf(len);
        const float s = rnd(0.5f, 2.0f);
        cna_mat4_compose(&palette[i], cna_vec3_make(rnd(-2, 2), rnd(-2, 2), rnd(-2, 2)),
                         cna_quat_make(q[0] / len, q[1] / len, q[2] / len, q[3] / len),
                         cna_vec3_make(s, s, s));
    }
}

static inline void random_direction(float *d)
{
    float len;
    do {
        for (int c = 0; c < 3; c++) d[c] = rnd(-1, 1);
        len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    } while (len < 0.1f);
    for (int c = 0; c < 3; c++) d[c] /= len;
}

/* Random vertices of layout l: 1 to 4 non-zero weights summing to about 1 in
 * random slots, every joint (zero weight or not) below palette_count. */
static inline void random_vertices_k(const cna_skinning_layout *l, unsigned char *out, size_t count,
                              size_t palette_count, int influences);

static inline void random_vertices(const cna_skinning_layout *l, unsigned char *out, size_t count,
                            size_t palette_count)
{
    random_vertices_k(l, out, count, palette_count, 0);
}

/* influences 1..4: exactly that many non-zero weights, in random slots;
 * 0: 1 to 4 as above. */
static inline void random_vertices_k(const cna_skinning_layout *l, unsigned char *out, size_t count,
                              size_t palette_count, int influences)
{
    for (size_t i = 0; i < (size_t)l->stride * count; i++) out[i] = (unsigned char)rnd(0, 255);
    for (size_t v = 0; v < count; v++) {
        unsigned char *d = out + v * l->stride;
        float p[3] = {rnd(-3, 3), rnd(-3, 3), rnd(-3, 3)}, n[3], t[4];
        random_direction(n);
        random_direction(t);
        t[3] = rnd(0, 1) < 0.5f ? -1.0f : 1.0f;
        uint8_t j[4];
        float w[4] = {0, 0, 0, 0}, sum = 0;
        for (int k = 0; k < 4; k++) j[k] = (uint8_t)rnd(0, (float)palette_count);
        if (influences == 0) {
            const int k_count = 1 + (int)rnd(0, 4);
            for (int k = 0; k < k_count; k++) {
                const int slot = (int)rnd(0, 4);
                w[slot] = rnd(0.05f, 1.0f);
            }
        } else {
            for (int k = 0; k < influences;) {
                const int slot = (int)rnd(0, 4);
                if (w[slot] != 0.0f) continue;
                w[slot] = rnd(0.05f, 1.0f);
                k++;
            }
        }
        for (int k = 0; k < 4; k++) sum += w[k];
        for (int k = 0; k < 4; k++) w[k] /= sum;
        mesh_put_floats(d + l->position_offset, p, 3);
        if (l->normal_offset >= 0) mesh_put_floats(d + l->normal_offset, n, 3);
        if (l->tangent_offset >= 0) mesh_put_floats(d + l->tangent_offset, t, 4);
        memcpy(d + l->joints_offset, j, 4);
        mesh_put_floats(d + l->weights_offset, w, 4);
    }
}

/* Largest magnitude in the top three rows of m. */
static inline double top_rows_max(const cna_mat4 *m)
{
    double r = 0;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 3; row++) r = fmax(r, fabs((double)m->m[4 * c + row]));
    return r;
}

/* The documented bound of the fast paths (include/cna/skinning.h,
 * cna_skin_vertices_fast) for slot s of one vertex (0 position, 1 normal,
 * 2 tangent): sum = sum_i w[i] · M_i · (x, s == 0 ? 1 : 0) in double, zero
 * weights skipped; returns the tolerance 1e-5 · S, or 1e-5 · S / |sum| +
 * 1e-6 for a normalised direction, S = sum_i |w[i]| · top_rows_max(M_i) ·
 * (|x| + |y| + |z| [+ 1 for a position]). */
static inline double slot_tolerance(const cna_skinning_layout *l, const unsigned char *vertex,
                                    const cna_mat4 *palette, int s, bool normalised, double sum[3])
{
    const int32_t offs[3] = {l->position_offset, l->normal_offset, l->tangent_offset};
    uint8_t j[4];
    float w[4], x[3];
    memcpy(j, vertex + l->joints_offset, 4);
    memcpy(w, vertex + l->weights_offset, 16);
    memcpy(x, vertex + offs[s], 12);
    double bound = 0;
    sum[0] = sum[1] = sum[2] = 0;
    for (int i = 0; i < 4; i++) {
        if (w[i] == 0.0f) continue;
        const cna_mat4 *m = &palette[j[i]];
        bound += fabs((double)w[i]) * top_rows_max(m) *
                 (fabs((double)x[0]) + fabs((double)x[1]) + fabs((double)x[2]) + (s == 0 ? 1.0 : 0.0));
        for (int c = 0; c < 3; c++)
            sum[c] += (double)w[i] * ((double)m->m[c] * x[0] + (double)m->m[4 + c] * x[1] +
                                      (double)m->m[8 + c] * x[2] + (s == 0 ? (double)m->m[12 + c] : 0.0));
    }
    if (s == 0 || !normalised) return 1e-5 * bound;
    const double len = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
    return 1e-5 * bound / len + 1e-6;
}

#endif
