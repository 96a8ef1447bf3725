/*
 * Every blend code path this build and this CPU have (cna__morph_path:
 * SSE2, AVX) writes the same bytes as the scalar reference path, bit for
 * bit, on random meshes: every canonical stride, vertex counts around the
 * eight-vertex groups and the 256-vertex blocks, dense and sparse targets
 * interleaved in every order (the summation order decides the bits), sparse
 * lists with entries on group boundaries, zero and negative weights, each
 * kind alone, edge values (zero sums, cancelling normals, overflowing
 * lengths, NaN, infinities, subnormals, -0 in the base), flat normals,
 * more active targets than the AVX path plans for, and non-canonical
 * layouts (slots in a different order, a slot at the very end of the
 * vertex, a stride that is not a multiple of 4). A path the machine lacks
 * is reported as skipped. Where two NaNs meet in one operation only the
 * result's NaN-ness is compared (see both_nan).
 */
#include "morph/morph_fixture.h"

#include "fp_env.h"

#include <float.h>
#include <stdlib.h>

#include "morph/morph_internal.h"

enum { MAX_TARGETS = 40 };

typedef enum target_form {
    FORM_DENSE,
    FORM_SPARSE_FEW,      /* runs of 22 vertices in every 50, shifted by 13 per target:
                             whole groups of eight, groups listed in part, targets
                             listing different vertices */
    FORM_SPARSE_BOUNDARY, /* vertices 7, 8, 15, 16, 255, 256, ... and the last */
    FORM_SPARSE_ALL,      /* every vertex listed */
    FORM_NONE             /* no deltas of this kind */
} target_form;

typedef struct mesh_case {
    cna_morph_layout layout;
    size_t vertex_count;
    size_t target_count;
    target_form forms[MAX_TARGETS][3]; /* per target, per kind */
    float weights[MAX_TARGETS];
    bool edges;      /* edge values in the deltas and the base */
    bool flat;       /* recompute_flat_normals */
} mesh_case;

typedef struct mesh {
    unsigned char *base;
    float *values;
    uint32_t *indices;
    uint32_t *triangles;
    cna_morph_target targets[MAX_TARGETS];
    cna_morph_target_data data;
} mesh;

static float edge_value(uint32_t *rng)
{
    const float r = fixture_random(rng);
    switch ((*rng >> 4) % 20) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: return 1e30f;          /* its square overflows */
    case 3: return FLT_MIN / 8.0f; /* subnormal */
    case 4: return NAN;
    case 5: return -INFINITY;
    case 6: return INFINITY;
    default: return r;
    }
}

/* Whether target t of `form` lists vertex v of n. */
static bool listed(target_form form, size_t t, size_t v, size_t n)
{
    switch (form) {
    case FORM_SPARSE_FEW: return (v + 13 * t) % 50 >= 17 && (v + 13 * t) % 50 < 39;
    case FORM_SPARSE_BOUNDARY:
        return v + 1 == n || v % 8 == 0 || v % 8 == 7 || v % 256 == 0 || v % 256 == 255;
    case FORM_SPARSE_ALL: return true;
    default: return false;
    }
}

static void mesh_build(mesh *m, const mesh_case *c, uint32_t seed)
{
    uint32_t rng = seed;
    const size_t n = c->vertex_count, stride = c->layout.stride;
    memset(m, 0, sizeof *m);
    m->base = malloc(n * stride + 1);
    m->values = malloc(3 * 3 * n * c->target_count * sizeof(float) + 1);
    m->indices = malloc(3 * n * c->target_count * sizeof(uint32_t) + 1);
    m->triangles = malloc(n * sizeof(uint32_t) + 1);
    assert_non_null(m->base);
    assert_non_null(m->values);
    assert_non_null(m->indices);
    assert_non_null(m->triangles);
    for (size_t i = 0; i < n * stride; i++)
        m->base[i] = (unsigned char)(rng = rng * 1103515245u + 12345u);
    const int32_t offsets[3] = {c->layout.position_offset, c->layout.normal_offset,
                                c->layout.tangent_offset};
    for (size_t v = 0; v < n; v++)
        for (int k = 0; k < 3; k++) {
            if (offsets[k] < 0) continue;
            unsigned char *p = m->base + v * stride + offsets[k];
            float f[3];
            for (int i = 0; i < 3; i++) f[i] = fixture_random(&rng);
            if (c->edges && v % 7 == 3) f[v % 3] = -0.0f;
            fixture_put3(p, f[0], f[1], f[2]);
            if (k == 2) {
                const float hand = v % 2 ? 1.0f : -1.0f;
                memcpy(p + 12, &hand, sizeof hand);
            }
        }
    float *values = m->values;
    uint32_t *indices = m->indices;
    for (size_t t = 0; t < c->target_count; t++) {
        cna_morph_deltas *kinds[3] = {&m->targets[t].positions, &m->targets[t].normals,
                                      &m->targets[t].tangents};
        for (int k = 0; k < 3; k++) {
            const target_form form = c->forms[t][k];
            if (form == FORM_NONE || offsets[k] < 0) continue;
            size_t count = 0;
            for (size_t v = 0; v < n; v++) {
                if (form != FORM_DENSE && !listed(form, t, v, n)) continue;
                /* dense: every other vertex still, its sum stays exactly zero */
                const bool still = form == FORM_DENSE && v % 2 == 0 && t % 2 == 0;
                for (int i = 0; i < 3; i++)
                    values[3 * count + (size_t)i] =
                        still ? 0.0f : c->edges ? edge_value(&rng) : fixture_random(&rng);
                if (form != FORM_DENSE) indices[count] = (uint32_t)v;
                count++;
            }
            if (count == 0) continue;
            *kinds[k] = form == FORM_DENSE ? cna_morph_deltas_dense(values, count)
                                           : cna_morph_deltas_sparse(indices, values, count);
            values += 3 * count;
            if (form != FORM_DENSE) indices += count;
        }
    }
    /* a pair of opposite targets: their normal sums cancel to exactly zero */
    if (c->target_count >= 2 && c->forms[0][1] == FORM_DENSE && c->forms[1][1] == FORM_DENSE &&
        c->weights[1] == -c->weights[0])
        m->targets[1].normals = m->targets[0].normals;
    m->data.base_vertices = m->base;
    m->data.base_size = n * stride;
    m->data.vertex_count = n;
    m->data.layout = c->layout;
    m->data.targets = m->targets;
    m->data.target_count = c->target_count;
    if (c->flat) {
        const size_t tri = n - n % 3;
        for (size_t i = 0; i < tri; i++) m->triangles[i] = (uint32_t)(tri - 1 - i);
        m->data.recompute_flat_normals = true;
        m->data.triangle_indices = m->triangles;
        m->data.triangle_index_count = tri;
    }
    assert_int_equal(cna_morph_target_data_validate(&m->data, NULL), CNA_OK);
}

static void mesh_free(mesh *m)
{
    free(m->base);
    free(m->values);
    free(m->indices);
    free(m->triangles);
}

/* Whether byte i lies in a morphed float (xyz of a slot) that is NaN in both
 * outputs. Which NaN an operation with two NaN operands returns (x86: the
 * first operand's) depends on the order the compiler gave the operands, so
 * only NaN-ness is promised there (include/cna/morph.h); every other bit is
 * compared exactly. */
static bool both_nan(const cna_morph_layout *l, const unsigned char *a, const unsigned char *b,
                     size_t i)
{
    const int32_t offsets[3] = {l->position_offset, l->normal_offset, l->tangent_offset};
    const size_t off = i % l->stride, vertex = i - off;
    for (int k = 0; k < 3; k++) {
        if (offsets[k] < 0 || off < (size_t)offsets[k] || off >= (size_t)offsets[k] + 12)
            continue;
        const size_t at = vertex + (size_t)offsets[k] + (off - (size_t)offsets[k]) / 4 * 4;
        return isnan(fixture_get(a, at)) && isnan(fixture_get(b, at));
    }
    return false;
}

/* Blend through `path` and through the scalar path into buffers that start
 * with different garbage (an unwritten byte shows); compare every byte. */
static void check_case(cna__morph_path path, const mesh_case *c, uint32_t seed)
{
    mesh m;
    mesh_build(&m, c, seed);
    const size_t size = c->vertex_count * c->layout.stride;
    unsigned char *want = malloc(size + 1), *got = malloc(size + 1);
    assert_non_null(want);
    assert_non_null(got);
    memset(want, 0xA5, size + 1);
    memset(got, 0x5A, size + 1);
    cna__morph_blend_with(&m.data, c->weights, want, CNA__MORPH_PATH_SCALAR);
    cna__morph_blend_with(&m.data, c->weights, got, path);
    for (size_t i = 0; i < size; i++)
        if (want[i] != got[i] && !both_nan(&c->layout, want, got, i))
            fail_msg("path %d, stride %u, %zu vertices, %zu targets, seed %u: byte %zu "
                     "(vertex %zu, offset %zu) is 0x%02x, scalar 0x%02x",
                     (int)path, (unsigned)c->layout.stride, c->vertex_count, c->target_count,
                     (unsigned)seed, i, i / c->layout.stride, i % c->layout.stride, got[i],
                     want[i]);
    free(want);
    free(got);
    mesh_free(&m);
}

static const uint32_t canonical[] = {32, 48, 52, 56, 60, 68, 76, 80};
static const size_t counts[] = {1, 7, 8, 9, 16, 17, 63, 64, 65, 255, 256, 257, 263, 1001};

/* Random forms and weights: target t of kind k gets a form from the seed;
 * every third weight is zero, some are negative. */
static void random_case(mesh_case *c, uint32_t stride, size_t n, size_t targets, uint32_t seed,
                        bool edges)
{
    uint32_t rng = seed * 2654435761u + 1;
    memset(c, 0, sizeof *c);
    assert_int_equal(cna_morph_layout_canonical(stride, &c->layout, NULL), CNA_OK);
    c->vertex_count = n;
    c->target_count = targets;
    c->edges = edges;
    for (size_t t = 0; t < targets; t++) {
        for (int k = 0; k < 3; k++) {
            fixture_random(&rng);
            c->forms[t][k] = (target_form)((rng >> 12) % 5);
        }
        const float w = fixture_random(&rng);
        c->weights[t] = t % 3 == 2 ? 0.0f : w == 0.0f ? 0.5f : w;
    }
}

static void skip_unless(cna__morph_path path)
{
    if (!cna__morph_path_available(path)) skip();
}

static void random_meshes(cna__morph_path path)
{
    skip_unless(path);
    uint32_t seed = 1;
    for (size_t s = 0; s < sizeof canonical / sizeof canonical[0]; s++)
        for (size_t z = 0; z < sizeof counts / sizeof counts[0]; z++, seed++) {
            mesh_case c;
            random_case(&c, canonical[s], counts[z], 1 + seed % 10, seed, false);
            check_case(path, &c, seed);
        }
}

static void edge_values(cna__morph_path path)
{
    skip_unless(path);
    for (uint32_t seed = 100; seed < 164; seed++) {
        mesh_case c;
        random_case(&c, canonical[seed % 8], 40 + seed, 2 + seed % 7, seed, true);
        c.forms[0][1] = c.forms[1][1] = FORM_DENSE;
        if (c.weights[0] == 0.0f) c.weights[0] = 0.5f;
        c.weights[1] = -c.weights[0];
        check_case(path, &c, seed);
    }
}

/* Dense and sparse targets in every order of three: the sparse additions
 * land between dense ones exactly where the target order puts them. */
static void dense_and_sparse_in_every_order(cna__morph_path path)
{
    skip_unless(path);
    static const target_form forms[] = {FORM_DENSE, FORM_SPARSE_FEW, FORM_SPARSE_BOUNDARY,
                                        FORM_SPARSE_ALL};
    uint32_t seed = 500;
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 4; b++)
            for (size_t d = 0; d < 4; d++, seed++) {
                mesh_case c;
                random_case(&c, seed % 2 ? 48 : 32, 300 + seed % 13, 3, seed, seed % 3 == 0);
                const target_form f[3] = {forms[a], forms[b], forms[d]};
                for (size_t t = 0; t < 3; t++) {
                    for (int k = 0; k < 3; k++) c.forms[t][k] = f[(t + (size_t)k) % 3];
                    c.weights[t] = 0.25f + 0.5f * (float)t;
                }
                check_case(path, &c, seed);
            }
}

/* One kind at a time (the others carry nothing), each form, every stride. */
static void each_kind_alone(cna__morph_path path)
{
    skip_unless(path);
    uint32_t seed = 700;
    for (size_t s = 0; s < sizeof canonical / sizeof canonical[0]; s++)
        for (int kind = 0; kind < 3; kind++)
            for (int form = FORM_DENSE; form < FORM_NONE; form++, seed++) {
                mesh_case c;
                random_case(&c, canonical[s], 129, 2, seed, false);
                for (size_t t = 0; t < 2; t++)
                    for (int k = 0; k < 3; k++)
                        c.forms[t][k] = k == kind ? (target_form)form : FORM_NONE;
                c.weights[0] = 0.75f;
                c.weights[1] = -1.5f;
                check_case(path, &c, seed);
            }
}

/* More active targets than the AVX path plans per kind (it falls back), and
 * exactly as many. */
static void many_active_targets(cna__morph_path path)
{
    skip_unless(path);
    for (size_t targets = 31; targets <= MAX_TARGETS; targets += 1) {
        mesh_case c;
        random_case(&c, 48, 77, targets, (uint32_t)targets, false);
        for (size_t t = 0; t < targets; t++) {
            c.weights[t] = 0.01f * (float)(t + 1);
            for (int k = 0; k < 3; k++) c.forms[t][k] = t % 4 == 1 ? FORM_SPARSE_FEW : FORM_DENSE;
        }
        check_case(path, &c, (uint32_t)targets);
    }
}

static void flat_normals(cna__morph_path path)
{
    skip_unless(path);
    for (uint32_t seed = 900; seed < 916; seed++) {
        mesh_case c;
        random_case(&c, canonical[seed % 8], 99 + seed % 5, 3, seed, seed % 2 == 0);
        for (size_t t = 0; t < 3; t++) c.forms[t][1] = FORM_NONE; /* no normal deltas */
        c.flat = true;
        check_case(path, &c, seed);
    }
}

/* Layouts no canonical stride has: normal before position (the slot store
 * order matters where a 16-byte window reaches the next slot), a normal in
 * the last 12 bytes of the vertex, a stride that is not a multiple of 4,
 * position alone. */
static void non_canonical_layouts(cna__morph_path path)
{
    skip_unless(path);
    static const cna_morph_layout layouts[] = {
        {32, 12, 0, -1},  /* normal at 0, position at 12 */
        {28, 0, 16, -1},  /* normal in the last 12 bytes */
        {30, 0, 12, -1},  /* stride not a multiple of 4 */
        {40, 0, -1, -1},  /* position only */
        {44, 4, 16, 28},  /* everything shifted by 4, tangent in the last 16 bytes */
        {36, 20, 0, -1},  /* position after normal, 8 bytes between */
        {64, 0, 12, 40},  /* a gap before the tangent */
    };
    uint32_t seed = 1000;
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
        for (size_t z = 0; z < sizeof counts / sizeof counts[0]; z += 3, seed++) {
            mesh_case c;
            random_case(&c, 32, counts[z], 1 + seed % 5, seed, seed % 2 == 0);
            c.layout = layouts[l];
            check_case(path, &c, seed);
        }
}

#define PATH_TESTS(name, path)                                                                  \
    static void name##_random_meshes(void **state) { (void)state; random_meshes(path); }       \
    static void name##_edge_values(void **state) { (void)state; edge_values(path); }           \
    static void name##_dense_and_sparse_in_every_order(void **state)                           \
    {                                                                                          \
        (void)state;                                                                           \
        dense_and_sparse_in_every_order(path);                                                 \
    }                                                                                          \
    static void name##_each_kind_alone(void **state) { (void)state; each_kind_alone(path); }   \
    static void name##_many_active_targets(void **state)                                       \
    {                                                                                          \
        (void)state;                                                                           \
        many_active_targets(path);                                                             \
    }                                                                                          \
    static void name##_flat_normals(void **state) { (void)state; flat_normals(path); }         \
    static void name##_non_canonical_layouts(void **state)                                     \
    {                                                                                          \
        (void)state;                                                                           \
        non_canonical_layouts(path);                                                           \
    }

/* Every SIMD path; in a CNA_NO_SIMD build, which has none, the same cases on the
 * scalar path (rather than skipped SIMD cases). */
#if defined(CNA_NO_SIMD)
PATH_TESTS(scalar, CNA__MORPH_PATH_SCALAR)
#else
PATH_TESTS(sse2, CNA__MORPH_PATH_SSE2)
PATH_TESTS(avx, CNA__MORPH_PATH_AVX)
#endif

#define PATH_ENTRIES(name)                                                                      \
    cmocka_unit_test(name##_random_meshes), cmocka_unit_test(name##_edge_values),              \
        cmocka_unit_test(name##_dense_and_sparse_in_every_order),                              \
        cmocka_unit_test(name##_each_kind_alone), cmocka_unit_test(name##_many_active_targets), \
        cmocka_unit_test(name##_flat_normals), cmocka_unit_test(name##_non_canonical_layouts)

/* The default entry point takes the fastest path the CPU has. */
static void the_default_path_is_the_fastest_available(void **state)
{
    (void)state;
    cna__morph_path best = CNA__MORPH_PATH_SCALAR;
    for (int p = 0; p < CNA__MORPH_PATH_COUNT; p++)
        if (cna__morph_path_available((cna__morph_path)p)) best = (cna__morph_path)p;
    assert_int_equal(cna__morph_best_path(), best);
    assert_true(cna__morph_path_available(CNA__MORPH_PATH_SCALAR));
    assert_false(cna__morph_path_available(CNA__MORPH_PATH_COUNT));
#if defined(CNA_NO_SIMD)
    assert_int_equal(best, CNA__MORPH_PATH_SCALAR);
    assert_false(cna__morph_path_available(CNA__MORPH_PATH_SSE2));
    assert_false(cna__morph_path_available(CNA__MORPH_PATH_AVX));
#endif
}

int main(void)
{
    fp_env_from_test_environment(); /* CNA_TEST_FTZ_DAZ: tests/fp_env.h */
    const struct CMUnitTest tests[] = {
#if defined(CNA_NO_SIMD)
        PATH_ENTRIES(scalar),
#else
        PATH_ENTRIES(sse2),
        PATH_ENTRIES(avx),
#endif
        cmocka_unit_test(the_default_path_is_the_fastest_available),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
