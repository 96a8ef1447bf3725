/*
 * Blending rules of the spec's "Morph targets" section, one test per rule,
 * exact values.
 */
#include "morph/morph_fixture.h"

#include <stdlib.h>

/* Normalise exactly as the header documents: n / sqrtf(dot(n, n)). */
static void unit(float n[3])
{
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    n[0] = n[0] / len;
    n[1] = n[1] / len;
    n[2] = n[2] / len;
}

static void blend_ok(const cna_morph_target_data *data, const float *w, size_t n, void *out,
                     size_t size)
{
    cna_error err;
    cna_result r = cna_morph_blend(data, w, n, out, size, &err);
    if (r != CNA_OK) fail_msg("blend failed: %s", err.message);
}

static void spec_triangle_full_weights_gives_2_0_1_and_1_0_1(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    unsigned char out[96];
    const float w[2] = {1.0f, 1.0f};
    blend_ok(&f.data, w, 2, out, sizeof out);
    /* vertex 0: (0,0,0) + (0,0,1) + (2,0,0) = (2,0,1) */
    assert_float_exact(fixture_get(out, 0), 2.0f);
    assert_float_exact(fixture_get(out, 4), 0.0f);
    assert_float_exact(fixture_get(out, 8), 1.0f);
    /* vertex 1: (1,0,0) + (0,0,1) = (1,0,1) */
    assert_float_exact(fixture_get(out, 32), 1.0f);
    assert_float_exact(fixture_get(out, 36), 0.0f);
    assert_float_exact(fixture_get(out, 40), 1.0f);
    /* vertex 2: (0,1,0) + (0,0,1) = (0,1,1) */
    assert_float_exact(fixture_get(out, 64), 0.0f);
    assert_float_exact(fixture_get(out, 68), 1.0f);
    assert_float_exact(fixture_get(out, 72), 1.0f);
}

static void blended_normal_is_renormalised_to_unit_length(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    unsigned char out[96];
    const float w[2] = {1.0f, 1.0f};
    blend_ok(&f.data, w, 2, out, sizeof out);
    float n[3] = {1.0f, 0.0f, 1.0f}; /* (0,0,1) + (1,0,0) */
    unit(n);
    assert_float_exact(n[0], 0.70710677f);
    assert_float_exact(fixture_get(out, 12), n[0]);
    assert_float_exact(fixture_get(out, 16), n[1]);
    assert_float_exact(fixture_get(out, 20), n[2]);
    assert_float_exact(fixture_get(out, 20), 0.70710677f);
    /* vertices 1 and 2 received no normal delta: base normal bytes */
    assert_memory_equal(out + 32 + 12, f.base + 32 + 12, 12);
    assert_memory_equal(out + 64 + 12, f.base + 64 + 12, 12);
}

static void texcoords_are_copied_unchanged(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    unsigned char out[96];
    const float w[2] = {1.0f, 1.0f};
    blend_ok(&f.data, w, 2, out, sizeof out);
    for (int v = 0; v < 3; v++) assert_memory_equal(out + 32 * v + 24, f.base + 32 * v + 24, 8);
}

static void zero_weights_give_the_base_bytes_exactly(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    /* A non-unit normal and a negative zero: any arithmetic would show. */
    fixture_put3(f.base + 12, 0.6f, 0.8f, 0.0001f);
    fixture_put3(f.base + 32, -0.0f, 1.0f / 3.0f, -0.0f);
    unsigned char out[96];
    const float w[2] = {0.0f, -0.0f};
    blend_ok(&f.data, w, 2, out, sizeof out);
    assert_memory_equal(out, f.base, sizeof out);
}

static void a_kind_no_active_target_carries_keeps_its_base_bytes(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    fixture_put3(f.base + 12, 0.6f, 0.8f, 0.0001f); /* not unit: renormalising would change it */
    unsigned char out[96];
    const float w[2] = {0.5f, 0.0f}; /* target 0 has positions only */
    blend_ok(&f.data, w, 2, out, sizeof out);
    for (int v = 0; v < 3; v++) assert_memory_equal(out + 32 * v + 12, f.base + 32 * v + 12, 12);
    assert_float_exact(fixture_get(out, 8), 0.5f);
}

static void zero_weight_targets_are_skipped(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    /* Target 1's deltas are not finite: 0 * inf would poison every sum if the
     * zero-weight target were not skipped. */
    const float bad[9] = {INFINITY, NAN, INFINITY, NAN, NAN, NAN, -INFINITY, 0, NAN};
    f.targets[1].positions = cna_morph_deltas_dense(bad, 3);
    f.targets[1].normals = cna_morph_deltas_dense(bad, 3);
    unsigned char out[96];
    const float w[2] = {1.0f, 0.0f};
    blend_ok(&f.data, w, 2, out, sizeof out);
    assert_float_exact(fixture_get(out, 0), 0.0f);
    assert_float_exact(fixture_get(out, 8), 1.0f);
    assert_memory_equal(out + 12, f.base + 12, 12);
}

static void blending_is_additive_with_fractional_weights(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    unsigned char out[96];
    const float w[2] = {0.25f, -0.5f};
    blend_ok(&f.data, w, 2, out, sizeof out);
    /* sum = 0.25*(0,0,1) + -0.5*(2,0,0) = (-1, 0, 0.25); base (0,0,0) */
    assert_float_exact(fixture_get(out, 0), -1.0f);
    assert_float_exact(fixture_get(out, 8), 0.25f);
    /* normal: (0,0,1) + -0.5*(1,0,0) = (-0.5, 0, 1), renormalised */
    float n[3] = {-0.5f, 0.0f, 1.0f};
    unit(n);
    assert_float_exact(fixture_get(out, 12), n[0]);
    assert_float_exact(fixture_get(out, 20), n[2]);
}

/* Every canonical stride morphs its normals, the PBR ones included (spec:
 * ThePbrStridesAreNotExcludedFromNormalBlending), and copies every byte
 * outside the position/normal/tangent slots. */
static void every_canonical_stride_morphs_its_normals(void **state)
{
    (void)state;
    static const uint32_t strides[] = {32, 52, 56, 48, 60, 68, 76, 80};
    for (size_t s = 0; s < sizeof strides / sizeof strides[0]; s++) {
        cna_morph_target_data data = {0};
        assert_int_equal(cna_morph_layout_canonical(strides[s], &data.layout, NULL), CNA_OK);
        const size_t stride = strides[s];
        unsigned char base[2 * 80], out[2 * 80];
        for (size_t i = 0; i < sizeof base; i++) base[i] = (unsigned char)(i * 7 + 3);
        for (size_t v = 0; v < 2; v++) {
            fixture_put3(base + v * stride, (float)v, 0, 0);
            fixture_put3(base + v * stride + 12, 0, 0, 1);
            if (data.layout.tangent_offset >= 0)
                fixture_put4(base + v * stride + 32, 1, 0, 0, 1);
        }
        const float nd[6] = {1, 0, 0, 0, 1, 0};
        cna_morph_target target = {0};
        target.normals = cna_morph_deltas_dense(nd, 2);
        data.base_vertices = base;
        data.base_size = 2 * stride;
        data.vertex_count = 2;
        data.targets = &target;
        data.target_count = 1;
        const float w = 1.0f;
        blend_ok(&data, &w, 1, out, 2 * stride);
        float n0[3] = {1, 0, 1}, n1[3] = {0, 1, 1};
        unit(n0);
        unit(n1);
        assert_float_exact(fixture_get(out, 12), n0[0]);
        assert_float_exact(fixture_get(out, 20), n0[2]);
        assert_float_exact(fixture_get(out, stride + 16), n1[1]);
        assert_float_exact(fixture_get(out, stride + 20), n1[2]);
        for (size_t v = 0; v < 2; v++) {
            /* position untouched (no position deltas), tangent and the rest copied */
            assert_memory_equal(out + v * stride, base + v * stride, 12);
            assert_memory_equal(out + v * stride + 24, base + v * stride + 24, stride - 24);
        }
    }
}

static void canonical_layouts_follow_the_documented_table(void **state)
{
    (void)state;
    static const struct { uint32_t stride; int32_t tangent; } table[] = {
        {32, -1}, {52, -1}, {56, -1}, {48, 32}, {60, 32}, {68, 32}, {76, 32}, {80, 32}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        cna_morph_layout l;
        assert_int_equal(cna_morph_layout_canonical(table[i].stride, &l, NULL), CNA_OK);
        assert_int_equal(l.stride, table[i].stride);
        assert_int_equal(l.position_offset, 0);
        assert_int_equal(l.normal_offset, 12);
        assert_int_equal(l.tangent_offset, table[i].tangent);
    }
    cna_morph_layout l = {7, 1, 2, 3};
    cna_error err;
    assert_int_equal(cna_morph_layout_canonical(40, &l, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "morph layout: stride 40 is not canonical (canonical "
                                     "strides: 32, 52, 56, 48, 60, 68, 76, 80)");
    assert_int_equal(l.stride, 7); /* unchanged */
}

/* Stride 48 (PBR): tangent xyz blended and renormalised, w (+1 or -1) copied. */
static void tangent_handedness_is_never_blended(void **state)
{
    (void)state;
    unsigned char base[2 * 48], out[2 * 48];
    memset(base, 0, sizeof base);
    fixture_put3(base + 12, 0, 0, 1);
    fixture_put4(base + 32, 1, 0, 0, 1.0f);
    fixture_put3(base + 48 + 12, 0, 0, 1);
    fixture_put4(base + 48 + 32, 1, 0, 0, -1.0f);
    const float td0[6] = {0, 1, 0, 0, 1, 0};
    const float td1[6] = {0, 0, 0, 0, -3, 0};
    cna_morph_target targets[2];
    memset(targets, 0, sizeof targets);
    targets[0].tangents = cna_morph_deltas_dense(td0, 2);
    targets[1].tangents = cna_morph_deltas_dense(td1, 2);
    cna_morph_target_data data = {0};
    assert_int_equal(cna_morph_layout_canonical(48, &data.layout, NULL), CNA_OK);
    data.base_vertices = base;
    data.base_size = sizeof base;
    data.vertex_count = 2;
    data.targets = targets;
    data.target_count = 2;
    const float w[2] = {1.0f, 0.5f};
    blend_ok(&data, w, 2, out, sizeof out);
    float t0[3] = {1, 1, 0}, t1[3] = {1, -0.5f, 0};
    unit(t0);
    unit(t1);
    assert_float_exact(fixture_get(out, 32), t0[0]);
    assert_float_exact(fixture_get(out, 36), t0[1]);
    assert_float_exact(fixture_get(out, 40), t0[2]);
    assert_float_exact(fixture_get(out, 44), 1.0f);
    assert_float_exact(fixture_get(out, 48 + 32), t1[0]);
    assert_float_exact(fixture_get(out, 48 + 36), t1[1]);
    assert_float_exact(fixture_get(out, 48 + 44), -1.0f);
    /* normals had no deltas */
    assert_memory_equal(out + 12, base + 12, 12);
}

static void a_direction_whose_sum_cancels_to_zero_keeps_its_base_bytes(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    const float nd[9] = {0, 0, -1, 0, 0, 0, 0, 0, 0}; /* (0,0,1) + (0,0,-1) = 0 */
    f.targets[1].normals = cna_morph_deltas_dense(nd, 3);
    unsigned char out[96];
    const float w[2] = {0.0f, 1.0f};
    blend_ok(&f.data, w, 2, out, sizeof out);
    assert_memory_equal(out + 12, f.base + 12, 12);
}

/* Two fully split triangles with stride 48 (tangents), flat normals. */
typedef struct flat_fixture {
    unsigned char base[6 * 48];
    float pos_deltas[18];
    uint32_t tris[6];
    cna_morph_target target;
    cna_morph_target_data data;
} flat_fixture;

static void flat_init(flat_fixture *f)
{
    memset(f, 0, sizeof *f);
    static const float p[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0},
                                  {2, 0, 0}, {3, 0, 0}, {2, 1, 0}};
    for (int v = 0; v < 6; v++) {
        fixture_put3(f->base + 48 * v, p[v][0], p[v][1], p[v][2]);
        fixture_put3(f->base + 48 * v + 12, 0, 0, 1); /* the base pose's flat normal */
        fixture_put4(f->base + 48 * v + 32, 1, 0, 0, v < 3 ? 1.0f : -1.0f);
        const float uv[2] = {0.5f, (float)v};
        memcpy(f->base + 48 * v + 24, uv, sizeof uv);
    }
    /* lift vertex 1 by +1 in Z and vertex 5 by +2 in Z */
    f->pos_deltas[3 * 1 + 2] = 1.0f;
    f->pos_deltas[3 * 5 + 2] = 2.0f;
    for (uint32_t i = 0; i < 6; i++) f->tris[i] = i;
    f->target.positions = cna_morph_deltas_dense(f->pos_deltas, 6);
    assert_int_equal(cna_morph_layout_canonical(48, &f->data.layout, NULL), CNA_OK);
    f->data.base_vertices = f->base;
    f->data.base_size = sizeof f->base;
    f->data.vertex_count = 6;
    f->data.targets = &f->target;
    f->data.target_count = 1;
    f->data.recompute_flat_normals = true;
    f->data.triangle_indices = f->tris;
    f->data.triangle_index_count = 6;
}

static void expected_face_normal(const float p0[3], const float p1[3], const float p2[3],
                                 float n[3])
{
    float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
    float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    unit(n);
}

static void flat_normals_are_recomputed_from_morphed_positions(void **state)
{
    (void)state;
    flat_fixture f;
    flat_init(&f);
    unsigned char out[6 * 48];
    const float w = 0.5f;
    blend_ok(&f.data, &w, 1, out, sizeof out);
    const float a0[3] = {0, 0, 0}, a1[3] = {1, 0, 0.5f}, a2[3] = {0, 1, 0};
    const float b0[3] = {2, 0, 0}, b1[3] = {3, 0, 0}, b2[3] = {2, 1, 1.0f};
    float na[3], nb[3];
    expected_face_normal(a0, a1, a2, na);
    expected_face_normal(b0, b1, b2, nb);
    for (int v = 0; v < 6; v++) {
        const float *n = v < 3 ? na : nb;
        for (int c = 0; c < 3; c++) assert_float_exact(fixture_get(out, 48 * (size_t)v + 12 + 4 * (size_t)c), n[c]);
    }
    /* the morphed positions themselves */
    assert_float_exact(fixture_get(out, 48 * 1 + 8), 0.5f);
    assert_float_exact(fixture_get(out, 48 * 5 + 8), 1.0f);
}

static void flat_tangents_are_reorthogonalised_and_keep_handedness(void **state)
{
    (void)state;
    flat_fixture f;
    flat_init(&f);
    unsigned char out[6 * 48];
    const float w = 0.5f;
    blend_ok(&f.data, &w, 1, out, sizeof out);
    for (int v = 0; v < 6; v++) {
        const size_t base = 48 * (size_t)v;
        float n[3] = {fixture_get(out, base + 12), fixture_get(out, base + 16),
                      fixture_get(out, base + 20)};
        float t[3] = {1, 0, 0};
        float dot = n[0] * t[0] + n[1] * t[1] + n[2] * t[2];
        float u[3] = {t[0] - n[0] * dot, t[1] - n[1] * dot, t[2] - n[2] * dot};
        unit(u);
        for (int c = 0; c < 3; c++) assert_float_exact(fixture_get(out, base + 32 + 4 * (size_t)c), u[c]);
        assert_float_exact(fixture_get(out, base + 44), v < 3 ? 1.0f : -1.0f);
        /* the texcoord bytes are the base's */
        assert_memory_equal(out + base + 24, f.base + base + 24, 8);
    }
    /* triangle a tilts about Y: its tangent has left the XY plane */
    assert_true(fixture_get(out, 48 * 0 + 40) != 0.0f);
}

static void flat_switch_with_zero_weights_gives_the_base_bytes(void **state)
{
    (void)state;
    flat_fixture f;
    flat_init(&f);
    fixture_put3(f.base + 12, 0.6f, 0.8f, 0.0f); /* not the face normal: must survive */
    unsigned char out[6 * 48];
    const float w = 0.0f;
    blend_ok(&f.data, &w, 1, out, sizeof out);
    assert_memory_equal(out, f.base, sizeof out);
}

static void a_degenerate_face_keeps_its_blended_normals(void **state)
{
    (void)state;
    flat_fixture f;
    flat_init(&f);
    /* collapse triangle a onto vertex 0 */
    f.pos_deltas[3 * 1 + 0] = -1.0f;
    f.pos_deltas[3 * 2 + 1] = -1.0f;
    f.pos_deltas[3 * 1 + 2] = 0.0f;
    unsigned char out[6 * 48];
    const float w = 1.0f;
    blend_ok(&f.data, &w, 1, out, sizeof out);
    for (int v = 0; v < 3; v++) assert_memory_equal(out + 48 * v + 12, f.base + 48 * v + 12, 24 + 12);
}

/* Sparse deltas blend to the same bytes as the dense arrays they stand for,
 * over several blocks of vertices (1000 > 256) with a partial last block. */
static void sparse_targets_equal_dense_ones(void **state)
{
    (void)state;
    enum { N = 1000, T = 3, STRIDE = 48 };
    unsigned char *base = malloc(N * STRIDE), *dense_out = malloc(N * STRIDE),
                  *sparse_out = malloc(N * STRIDE);
    float *dense[T][3];
    float *values[T][3];
    uint32_t *indices[T][3];
    size_t counts[T][3];
    uint32_t rng = 12345;
    assert_non_null(base);
    for (size_t i = 0; i < N * STRIDE; i++) base[i] = (unsigned char)(i * 31 + 7);
    for (size_t v = 0; v < N; v++) {
        fixture_put3(base + v * STRIDE, fixture_random(&rng), fixture_random(&rng), fixture_random(&rng));
        fixture_put3(base + v * STRIDE + 12, fixture_random(&rng), fixture_random(&rng), 1.0f);
        fixture_put4(base + v * STRIDE + 32, 1.0f, fixture_random(&rng), 0.0f, v % 2 ? 1.0f : -1.0f);
    }
    cna_morph_target dense_targets[T], sparse_targets[T];
    memset(dense_targets, 0, sizeof dense_targets);
    memset(sparse_targets, 0, sizeof sparse_targets);
    for (int t = 0; t < T; t++) {
        for (int k = 0; k < 3; k++) {
            dense[t][k] = calloc(3 * N, sizeof(float));
            values[t][k] = calloc(3 * N, sizeof(float));
            indices[t][k] = calloc(N, sizeof(uint32_t));
            counts[t][k] = 0;
            for (uint32_t v = 0; v < N; v++) {
                /* every 5th (+t) vertex moves; a few listed entries are zeros */
                bool moves = (v + (uint32_t)t) % 5 == 0;
                bool listed = moves || v % 97 == 0;
                if (moves)
                    for (int c = 0; c < 3; c++) dense[t][k][3 * v + (uint32_t)c] = fixture_random(&rng);
                if (listed) {
                    memcpy(values[t][k] + 3 * counts[t][k], dense[t][k] + 3 * v, 3 * sizeof(float));
                    indices[t][k][counts[t][k]++] = v;
                }
            }
        }
        dense_targets[t].positions = cna_morph_deltas_dense(dense[t][0], N);
        dense_targets[t].normals = cna_morph_deltas_dense(dense[t][1], N);
        dense_targets[t].tangents = cna_morph_deltas_dense(dense[t][2], N);
        sparse_targets[t].positions = cna_morph_deltas_sparse(indices[t][0], values[t][0], counts[t][0]);
        sparse_targets[t].normals = cna_morph_deltas_sparse(indices[t][1], values[t][1], counts[t][1]);
        sparse_targets[t].tangents = cna_morph_deltas_sparse(indices[t][2], values[t][2], counts[t][2]);
    }
    cna_morph_target_data data = {0};
    assert_int_equal(cna_morph_layout_canonical(STRIDE, &data.layout, NULL), CNA_OK);
    data.base_vertices = base;
    data.base_size = N * STRIDE;
    data.vertex_count = N;
    data.target_count = T;
    const float w[T] = {0.75f, -0.3f, 1.5f};
    data.targets = dense_targets;
    blend_ok(&data, w, T, dense_out, N * STRIDE);
    data.targets = sparse_targets;
    blend_ok(&data, w, T, sparse_out, N * STRIDE);
    assert_memory_equal(dense_out, sparse_out, N * STRIDE);
    assert_memory_not_equal(dense_out, base, N * STRIDE);
    for (int t = 0; t < T; t++)
        for (int k = 0; k < 3; k++) {
            free(dense[t][k]);
            free(values[t][k]);
            free(indices[t][k]);
        }
    free(base);
    free(dense_out);
    free(sparse_out);
}

/* The blend equals the documented formula evaluated naively, vertex by
 * vertex, across block boundaries: sum = ((0 + w0 d0) + w1 d1) + ...,
 * position = base + sum. */
static void positions_equal_base_plus_the_weighted_sum_in_target_order(void **state)
{
    (void)state;
    enum { N = 777, T = 4, STRIDE = 52 };
    unsigned char *base = malloc(N * STRIDE), *out = malloc(N * STRIDE);
    float *d[T];
    uint32_t rng = 99;
    assert_non_null(base);
    for (size_t i = 0; i < N * STRIDE; i++) base[i] = (unsigned char)(i * 13 + 1);
    for (size_t v = 0; v < N; v++)
        fixture_put3(base + v * STRIDE, fixture_random(&rng) * 100.0f, fixture_random(&rng),
                     fixture_random(&rng) * 0.001f);
    cna_morph_target targets[T];
    memset(targets, 0, sizeof targets);
    for (int t = 0; t < T; t++) {
        d[t] = malloc(3 * N * sizeof(float));
        for (size_t i = 0; i < 3 * N; i++) d[t][i] = fixture_random(&rng) * (float)(t + 1);
        targets[t].positions = cna_morph_deltas_dense(d[t], N);
    }
    cna_morph_target_data data = {0};
    assert_int_equal(cna_morph_layout_canonical(STRIDE, &data.layout, NULL), CNA_OK);
    data.base_vertices = base;
    data.base_size = N * STRIDE;
    data.vertex_count = N;
    data.targets = targets;
    data.target_count = T;
    const float w[T] = {0.1f, 0.0f, 0.7f, -1.3f};
    blend_ok(&data, w, T, out, N * STRIDE);
    for (size_t v = 0; v < N; v++) {
        for (size_t c = 0; c < 3; c++) {
            float sum = 0.0f;
            for (int t = 0; t < T; t++)
                if (w[t] != 0.0f) sum = sum + w[t] * d[t][3 * v + c];
            float expected = fixture_get(base, v * STRIDE + 4 * c) + sum;
            assert_float_exact(fixture_get(out, v * STRIDE + 4 * c), expected);
        }
        assert_memory_equal(out + v * STRIDE + 12, base + v * STRIDE + 12, STRIDE - 12);
    }
    for (int t = 0; t < T; t++) free(d[t]);
    free(base);
    free(out);
}

static void a_layout_without_a_normal_slot_morphs_positions_only(void **state)
{
    (void)state;
    fixture_triangle f;
    fixture_triangle_init(&f);
    f.targets[1].normals = cna_morph_deltas_dense(NULL, 0);
    f.data.layout.normal_offset = -1;
    unsigned char out[96];
    const float w[2] = {1.0f, 1.0f};
    blend_ok(&f.data, w, 2, out, sizeof out);
    assert_float_exact(fixture_get(out, 0), 2.0f);
    for (int v = 0; v < 3; v++) assert_memory_equal(out + 32 * v + 12, f.base + 32 * v + 12, 20);
}

static void an_empty_carrier_blends_nothing(void **state)
{
    (void)state;
    cna_morph_target_data data = {0};
    data.layout.stride = 32;
    data.layout.position_offset = 0;
    data.layout.normal_offset = -1;
    data.layout.tangent_offset = -1;
    assert_int_equal(cna_morph_blend_size(&data), 0);
    assert_int_equal(cna_morph_blend(&data, NULL, 0, NULL, 0, NULL), CNA_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spec_triangle_full_weights_gives_2_0_1_and_1_0_1),
        cmocka_unit_test(blended_normal_is_renormalised_to_unit_length),
        cmocka_unit_test(texcoords_are_copied_unchanged),
        cmocka_unit_test(zero_weights_give_the_base_bytes_exactly),
        cmocka_unit_test(a_kind_no_active_target_carries_keeps_its_base_bytes),
        cmocka_unit_test(zero_weight_targets_are_skipped),
        cmocka_unit_test(blending_is_additive_with_fractional_weights),
        cmocka_unit_test(every_canonical_stride_morphs_its_normals),
        cmocka_unit_test(canonical_layouts_follow_the_documented_table),
        cmocka_unit_test(tangent_handedness_is_never_blended),
        cmocka_unit_test(a_direction_whose_sum_cancels_to_zero_keeps_its_base_bytes),
        cmocka_unit_test(flat_normals_are_recomputed_from_morphed_positions),
        cmocka_unit_test(flat_tangents_are_reorthogonalised_and_keep_handedness),
        cmocka_unit_test(flat_switch_with_zero_weights_gives_the_base_bytes),
        cmocka_unit_test(a_degenerate_face_keeps_its_blended_normals),
        cmocka_unit_test(sparse_targets_equal_dense_ones),
        cmocka_unit_test(positions_equal_base_plus_the_weighted_sum_in_target_order),
        cmocka_unit_test(a_layout_without_a_normal_slot_morphs_positions_only),
        cmocka_unit_test(an_empty_carrier_blends_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
