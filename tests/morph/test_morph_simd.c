/*
 * The SIMD blend path writes the same bytes as the scalar path, bit for bit,
 * on random meshes of every canonical stride and of awkward sizes, including
 * the edge cases of renormalisation (sums of exactly zero, directions that
 * cancel, overflowing lengths, non-finite deltas, subnormals).
 */
#include "morph/morph_fixture.h"

#include "fp_env.h"

#include <float.h>
#include <stdlib.h>

#include "morph/morph_internal.h"

static float edge_value(uint32_t *rng)
{
    const float r = fixture_random(rng);
    const uint32_t pick = (*rng >> 4) % 16;
    switch (pick) {
    case 0: return 0.0f;
    case 1: return 1e30f;                /* its square overflows */
    case 2: return FLT_MIN / 8.0f;       /* subnormal */
    case 3: return NAN;
    case 4: return -INFINITY;
    default: return r;
    }
}

static void compare_paths(uint32_t stride, size_t n, size_t targets, uint32_t seed, bool edges)
{
    uint32_t rng = seed;
    cna_morph_target_data data = {0};
    assert_int_equal(cna_morph_layout_canonical(stride, &data.layout, NULL), CNA_OK);
    unsigned char *base = malloc(n * stride + 1);
    unsigned char *scalar = malloc(n * stride + 1), *simd = malloc(n * stride + 1);
    float *deltas = malloc(3 * 3 * n * targets * sizeof(float) + 1);
    cna_morph_target *t = calloc(targets, sizeof *t);
    float *w = malloc(targets * sizeof(float) + 1);
    assert_non_null(base);
    for (size_t i = 0; i < n * stride; i++) base[i] = (unsigned char)(rng = rng * 1103515245u + 12345u) ;
    for (size_t v = 0; v < n; v++) {
        unsigned char *p = base + v * stride;
        fixture_put3(p, fixture_random(&rng), fixture_random(&rng), fixture_random(&rng));
        fixture_put3(p + 12, fixture_random(&rng), fixture_random(&rng), fixture_random(&rng));
        if (data.layout.tangent_offset >= 0)
            fixture_put4(p + 32, fixture_random(&rng), 0.5f, fixture_random(&rng), -1.0f);
    }
    for (size_t k = 0; k < 3 * 3 * n * targets; k++) {
        /* half the vertices of each array stay still: their sums are exactly zero */
        const bool still = ((k / 3) % 2) == 0;
        deltas[k] = still ? 0.0f : edges ? edge_value(&rng) : fixture_random(&rng);
    }
    for (size_t i = 0; i < targets; i++) {
        float *d = deltas + 3 * 3 * n * i;
        t[i].positions = cna_morph_deltas_dense(d, n);
        t[i].normals = cna_morph_deltas_dense(d + 3 * n, n);
        if (data.layout.tangent_offset >= 0)
            t[i].tangents = cna_morph_deltas_dense(d + 6 * n, n);
        w[i] = i % 3 == 2 ? 0.0f : fixture_random(&rng);
    }
    /* a pair of opposite targets: their normal sums cancel to exactly zero */
    if (targets >= 2) {
        t[1].normals = t[0].normals;
        w[1] = -w[0];
    }
    data.base_vertices = base;
    data.base_size = n * stride;
    data.vertex_count = n;
    data.targets = t;
    data.target_count = targets;
    assert_int_equal(cna_morph_target_data_validate(&data, NULL), CNA_OK);
    cna__morph_blend_path(&data, w, scalar, false);
    cna__morph_blend_path(&data, w, simd, true);
    /* Every byte equal, except that a morphed float which is NaN in both may
     * differ in sign and payload: which NaN an addition of two NaNs returns
     * depends on the operand order the compiler chose (include/cna/morph.h). */
    for (size_t i = 0; i < n * stride; i++) {
        if (scalar[i] == simd[i]) continue;
        const size_t at = i / 4 * 4; /* every layout tested here is all floats */
        if (isnan(fixture_get(scalar, at)) && isnan(fixture_get(simd, at))) continue;
        fail_msg("stride %u, %zu vertices, %zu targets, seed %u: paths differ at byte %zu", (unsigned)stride, n,
                 targets, (unsigned)seed, i);
    }
    free(base);
    free(scalar);
    free(simd);
    free(deltas);
    free(t);
    free(w);
}

static void the_simd_path_equals_the_scalar_path_on_random_meshes(void **state)
{
    (void)state;
    static const uint32_t strides[] = {32, 52, 56, 48, 60, 68, 76, 80};
    static const size_t sizes[] = {1, 3, 4, 5, 255, 256, 257, 1001};
    uint32_t seed = 1;
    for (size_t s = 0; s < sizeof strides / sizeof strides[0]; s++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            compare_paths(strides[s], sizes[z], 1 + (seed % 9), seed, false), seed++;
}

static void the_simd_path_equals_the_scalar_path_on_edge_values(void **state)
{
    (void)state;
    for (uint32_t seed = 100; seed < 140; seed++)
        compare_paths(seed % 2 ? 48 : 32, 64 + seed, 2 + seed % 5, seed, true);
}

/* x86-64 builds have the SIMD path, except CNA_NO_SIMD builds. */
static void x86_64_builds_have_the_simd_path(void **state)
{
    (void)state;
#if defined(CNA_NO_SIMD)
    assert_false(cna__morph_has_simd());
#elif defined(__x86_64__) || defined(_M_X64)
    assert_true(cna__morph_has_simd());
#else
    skip();
#endif
}

int main(void)
{
    fp_env_from_test_environment(); /* CNA_TEST_FTZ_DAZ: tests/fp_env.h */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_simd_path_equals_the_scalar_path_on_random_meshes),
        cmocka_unit_test(the_simd_path_equals_the_scalar_path_on_edge_values),
        cmocka_unit_test(x86_64_builds_have_the_simd_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
