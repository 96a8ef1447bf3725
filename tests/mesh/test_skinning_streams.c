/*
 * cna_skin_streams (include/cna/skinning.h): skinning interleaved vertices
 * into separate caller streams. Against cna_skin_vertices_fast (the same
 * bits, kernel by kernel) and the reference cna_skin_vertices (within the
 * documented bound) on random data and on the corpus models, with and
 * without renormalisation, packed, strided and interleaved streams, tails,
 * edge cases and every refusal.
 */
#include "mesh/mesh_test.h"

#include <stdlib.h>

#include "cna/anim.h"
#include "cna/player.h"
#include "cna/model.h"
#include "cna/skinning.h"
#include "mesh/skinning_test.h"
#include "model/skinning_internal.h"

/* Packed streams for up to n vertices (tangents of 4 floats). */
typedef struct streams_buf {
    float *p, *n, *t;
    size_t count;
} streams_buf;

static streams_buf streams_alloc(size_t n)
{
    streams_buf b;
    b.count = n;
    b.p = malloc(12 * (n ? n : 1));
    b.n = malloc(12 * (n ? n : 1));
    b.t = malloc(16 * (n ? n : 1));
    assert_non_null(b.p);
    assert_non_null(b.n);
    assert_non_null(b.t);
    return b;
}

static void streams_free(streams_buf *b)
{
    free(b->p);
    free(b->n);
    free(b->t);
}

/* The packed streams of b for layout l (NULL for the slots l lacks). */
static cna_skinning_streams packed_streams(const cna_skinning_layout *l, const streams_buf *b,
                                           uint32_t flags)
{
    cna_skinning_streams s;
    memset(&s, 0, sizeof s);
    s.positions = b->p;
    s.positions_size = 12 * b->count;
    if (l->normal_offset >= 0) {
        s.normals = b->n;
        s.normals_size = 12 * b->count;
    }
    if (l->tangent_offset >= 0) {
        s.tangents = b->t;
        s.tangents_size = 16 * b->count;
    }
    s.flags = flags;
    return s;
}

static void streams_ok(const cna_skinning_layout *l, const void *in, size_t count,
                       const cna_mat4 *palette, size_t pc, const cna_skinning_streams *s,
                       const skin_variant *kernel)
{
    cna_error err;
    if (variant_streams_path(l, in, count, palette, pc, s, kernel, &err) != CNA_OK)
        fail_msg("streams failed: %s", err.message);
}

/* Stream slot s (0 position, 1 normal, 2 tangent) of vertex v. */
static const unsigned char *slot_of(const streams_buf *b, int s, size_t v)
{
    if (s == 0) return (const unsigned char *)(b->p + 3 * v);
    if (s == 1) return (const unsigned char *)(b->n + 3 * v);
    return (const unsigned char *)(b->t + 4 * v);
}

/* The streams hold, bit for bit, the slots cna_skin_vertices_fast wrote
 * into `fast` (same kernel), the tangents' w included. */
static void check_streams_equal_fast(const cna_skinning_layout *l, size_t count,
                                     const unsigned char *fast, const streams_buf *b)
{
    const int32_t offs[3] = {l->position_offset, l->normal_offset, l->tangent_offset};
    for (size_t v = 0; v < count; v++)
        for (int s = 0; s < 3; s++) {
            if (offs[s] < 0) continue;
            const unsigned char *f = fast + v * l->stride + offs[s];
            if (memcmp(slot_of(b, s, v), f, s == 2 ? 16 : 12) != 0)
                fail_msg("vertex %zu slot %d differs from cna_skin_vertices_fast", v, s);
        }
}

/* The documented bound against the reference (positions 1e-5 · S,
 * directions 1e-5 · S / L + 1e-6); raw: the directions are compared,
 * unnormalised, with sum_i w[i] · M_i · (n, 0) within 1e-5 · S. Returns the
 * largest error relative to its bound. */
static double check_streams_against_reference(const cna_skinning_layout *l,
                                              const unsigned char *in, size_t count,
                                              const cna_mat4 *palette, const unsigned char *ref,
                                              const streams_buf *b, bool raw)
{
    double worst = 0;
    const int32_t offs[3] = {l->position_offset, l->normal_offset, l->tangent_offset};
    for (size_t v = 0; v < count; v++) {
        const unsigned char *src = in + v * l->stride;
        for (int s = 0; s < 3; s++) {
            if (offs[s] < 0) continue;
            double sum[3];
            const double tol = slot_tolerance(l, src, palette, s, !raw, sum);
            const unsigned char *got = slot_of(b, s, v);
            for (int c = 0; c < 3; c++) {
                const double expect = s > 0 && raw
                                          ? sum[c]
                                          : (double)mesh_get_float(ref + v * l->stride,
                                                                   (size_t)offs[s] + 4 * (size_t)c);
                const double e = fabs((double)mesh_get_float(got, 4 * (size_t)c) - expect);
                if (!(e <= tol))
                    fail_msg("vertex %zu slot %d component %d: error %g > %g", v, s, c, e, tol);
                worst = fmax(worst, tol > 0 ? e / tol : 0);
            }
            if (s == 2) /* the handedness, copied */
                assert_memory_equal(got + 12, src + offs[2] + 12, 4);
        }
    }
    return worst;
}

/* Reference, fast path and streams (renormalised and raw) on one input;
 * returns the largest error against the reference relative to the bound. */
static double compare_all(const cna_skinning_layout *l, const unsigned char *in, size_t count,
                          const cna_mat4 *palette, size_t pc, const skin_variant *kernel)
{
    const size_t bytes = count * l->stride;
    unsigned char *ref = malloc(bytes ? bytes : 1), *fast = malloc(bytes ? bytes : 1);
    assert_non_null(ref);
    assert_non_null(fast);
    cna_error err;
    if (cna_skin_vertices(l, in, count, palette, pc, ref, bytes, &err) != CNA_OK)
        fail_msg("reference failed: %s", err.message);
    if (variant_fast_path(l, in, count, palette, pc, fast, bytes, kernel, &err) !=
        CNA_OK)
        fail_msg("fast path failed: %s", err.message);
    streams_buf b = streams_alloc(count);
    cna_skinning_streams s = packed_streams(l, &b, 0);
    streams_ok(l, in, count, palette, pc, &s, kernel);
    check_streams_equal_fast(l, count, fast, &b);
    double worst = check_streams_against_reference(l, in, count, palette, ref, &b, false);
    s = packed_streams(l, &b, CNA_SKIN_NO_RENORMALIZE);
    streams_ok(l, in, count, palette, pc, &s, kernel);
    worst = fmax(worst, check_streams_against_reference(l, in, count, palette, ref, &b, true));
    streams_free(&b);
    free(ref);
    free(fast);
    return worst;
}

static void init_layouts(cna_skinning_layout layouts[7])
{
    const uint32_t strides[5] = {52, 56, 68, 76, 80};
    for (int i = 0; i < 5; i++) cna_skinning_layout_canonical(strides[i], &layouts[i], NULL);
    /* not canonical: position last with no room after it, no normal; tangent only */
    layouts[5] = (cna_skinning_layout){44, 32, -1, 16, 0, 4};
    layouts[6] = (cna_skinning_layout){48, 0, 12, -1, 24, 28};
}

static void streams_equal_fast_path_on_random_data(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    enum { N = 997, PALETTE = 40 };
    cna_skinning_layout layouts[7];
    init_layouts(layouts);
    static unsigned char in[N * 80];
    cna_mat4 palette[PALETTE];
    double largest = 0;
    for (int li = 0; li < 7; li++)
        for (int rep = 0; rep < 2; rep++) {
            random_palette(palette, PALETTE);
            random_vertices(&layouts[li], in, N, PALETTE);
            largest = fmax(largest, compare_all(&layouts[li], in, N, palette, PALETTE, kernel));
        }
    assert_true(largest <= 1.0);
    print_message("kernel %s: largest error %.3f of the bound\n",
                  kernel->name, largest);
}

/* The corpus's skinned models, part by part, with the palettes of their
 * first clip at three times and with random palettes. */
static void streams_on_corpus_models(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    static const char *const files[3] = {"corpus/valid/RobotExpressive/robot.glb",
                                         "corpus/valid/SimpleSkin/simple_skin.gltf",
                                         "corpus/valid/RiggedSimple/rigged_simple.gltf"};
    static const size_t expect_parts[3] = {19, 1, 1};
    double largest = 0;
    for (int f = 0; f < 3; f++) {
        char path[512];
        cna_model *m = NULL;
        cna_error err;
        if (cna_model_load_file(mesh_data_path(path, sizeof path, files[f]), NULL, &m, &err) !=
            CNA_OK)
            fail_msg("%s: %s", files[f], err.message);
        const cna_skinning_data *data = cna_model_skinning_data(m);
        assert_non_null(data);
        cna_player *player = NULL;
        assert_int_equal(cna_player_create(data, NULL, &player, &err), CNA_OK);
        assert_true(data->clip_count > 0);
        assert_int_equal(cna_player_start_clip(player, &data->clips[0], &err), CNA_OK);
        size_t parts = 0;
        for (size_t i = 0; i < m->mesh_count; i++)
            for (size_t p = 0; p < m->meshes[i].part_count; p++) {
                const cna_model_part *part = &m->meshes[i].parts[p];
                cna_skinning_layout l;
                if (m->meshes[i].skin < 0 ||
                    cna_skinning_layout_canonical(part->declaration.stride, &l, NULL) != CNA_OK)
                    continue;
                for (int step = 0; step < 3; step++) {
                    assert_int_equal(cna_player_update(player, CNA_TICKS_PER_SECOND / 3, true,
                                                       true, &err),
                                     CNA_OK);
                    largest = fmax(largest,
                                   compare_all(&l, part->vertices, part->vertex_count,
                                               cna_player_skin_transforms(player),
                                               (size_t)cna_player_bone_count(player), kernel));
                }
                cna_mat4 palette[256];
                random_palette(palette, 256);
                largest = fmax(largest, compare_all(&l, part->vertices, part->vertex_count,
                                                    palette, 256, kernel));
                parts++;
            }
        assert_int_equal(parts, expect_parts[f]);
        cna_player_free(player);
        cna_model_free(m);
    }
    assert_true(largest <= 1.0);
    print_message("kernel %s: corpus, largest error %.3f of the bound\n",
                  kernel->name, largest);
}

/* Positions and normals interleaved in one buffer (stride 24), tangents in
 * a stride-20 one, then positions and normals in buffers of their own with
 * gaps (strides 16 and 28): the same bits as packed streams, and no byte
 * between or around the slots written. */
static void strided_and_interleaved_streams_write_only_their_slots(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    enum { N = 131, PALETTE = 17, GUARD = 32 };
    cna_skinning_layout l;
    cna_skinning_layout_canonical(68, &l, NULL);
    static unsigned char in[N * 68];
    cna_mat4 palette[PALETTE];
    random_palette(palette, PALETTE);
    random_vertices(&l, in, N, PALETTE);
    for (int raw = 0; raw < 2; raw++) {
        const uint32_t flags = raw ? CNA_SKIN_NO_RENORMALIZE : 0;
        streams_buf b = streams_alloc(N);
        cna_skinning_streams s = packed_streams(&l, &b, flags);
        streams_ok(&l, in, N, palette, PALETTE, &s, kernel);
        static unsigned char pn[GUARD + N * 24 + GUARD], tt[GUARD + N * 20 + GUARD];
        memset(pn, 0x5A, sizeof pn);
        memset(tt, 0xA5, sizeof tt);
        cna_skinning_streams is;
        memset(&is, 0, sizeof is);
        is.positions = (float *)(void *)(pn + GUARD);
        is.positions_size = N * 24 - 12;
        is.position_stride = 24;
        is.normals = (float *)(void *)(pn + GUARD + 12);
        is.normals_size = N * 24 - 12;
        is.normal_stride = 24;
        is.tangents = (float *)(void *)(tt + GUARD + 1); /* unaligned */
        is.tangents_size = N * 20 - 4;
        is.tangent_stride = 20;
        is.flags = flags;
        streams_ok(&l, in, N, palette, PALETTE, &is, kernel);
        for (size_t v = 0; v < N; v++) {
            assert_memory_equal(pn + GUARD + 24 * v, b.p + 3 * v, 12);
            assert_memory_equal(pn + GUARD + 24 * v + 12, b.n + 3 * v, 12);
            assert_memory_equal(tt + GUARD + 1 + 20 * v, b.t + 4 * v, 16);
            for (size_t k = 16; k < 20; k++) assert_int_equal(tt[GUARD + 1 + 20 * v + k], 0xA5);
        }
        for (size_t k = 0; k < GUARD; k++) {
            assert_int_equal(pn[k], 0x5A);
            assert_int_equal(pn[GUARD + N * 24 + k], 0x5A);
            assert_int_equal(tt[k], 0xA5);
        }
        assert_int_equal(tt[GUARD], 0xA5);
        for (size_t k = GUARD + 1 + N * 20 - 4; k < sizeof tt; k++) assert_int_equal(tt[k], 0xA5);
        /* separate buffers with gaps: positions every 16 bytes, normals every 28 */
        static unsigned char gp[N * 16 + GUARD], gn[N * 28 + GUARD];
        memset(gp, 0x5A, sizeof gp);
        memset(gn, 0x5A, sizeof gn);
        is.positions = (float *)(void *)gp;
        is.positions_size = N * 16 - 4;
        is.position_stride = 16;
        is.normals = (float *)(void *)gn;
        is.normals_size = N * 28 - 16;
        is.normal_stride = 28;
        streams_ok(&l, in, N, palette, PALETTE, &is, kernel);
        for (size_t v = 0; v < N; v++) {
            assert_memory_equal(gp + 16 * v, b.p + 3 * v, 12);
            assert_memory_equal(gn + 28 * v, b.n + 3 * v, 12);
            for (size_t k = 12; k < 16; k++) assert_int_equal(gp[16 * v + k], 0x5A);
            for (size_t k = 12; k < 28; k++) assert_int_equal(gn[28 * v + k], 0x5A);
        }
        streams_free(&b);
    }
}

/* Every vertex count from 1 to 9 and around the kernels' blocks (63, 64,
 * 65, 129), every canonical layout and two others, exactly 1 to 4
 * influences, input and streams at odd addresses: the fast path's bits,
 * and not one byte written outside each stream's
 * (vertex_count - 1) * stride + slot bytes. */
static void streams_tails_influence_counts_and_alignment(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    enum { MAXN = 129, PALETTE = 12, GUARD = 64 };
    static const size_t counts[13] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 63, 64, 65, 129};
    cna_skinning_layout layouts[7];
    init_layouts(layouts);
    static unsigned char in_buf[MAXN * 80 + 8], fast[MAXN * 80];
    static unsigned char sp[MAXN * 12 + 2 * GUARD], sn[MAXN * 12 + 2 * GUARD],
        st[MAXN * 16 + 2 * GUARD];
    for (int li = 0; li < 7; li++)
        for (int k = 1; k <= 4; k++)
            for (int ci = 0; ci < 13; ci++)
                for (int raw = 0; raw < 2; raw++) {
                    const size_t n = counts[ci];
                    const size_t shift = (size_t)(li + k + ci + raw) % 4;
                    const cna_skinning_layout *l = &layouts[li];
                    unsigned char *in = in_buf + shift;
                    cna_mat4 palette[PALETTE];
                    random_palette(palette, PALETTE);
                    random_vertices_k(l, in, n, PALETTE, k);
                    memset(sp, 0x5A, sizeof sp);
                    memset(sn, 0x5A, sizeof sn);
                    memset(st, 0x5A, sizeof st);
                    cna_skinning_streams s;
                    memset(&s, 0, sizeof s);
                    s.positions = (float *)(void *)(sp + GUARD + shift);
                    s.positions_size = 12 * n;
                    if (l->normal_offset >= 0) {
                        s.normals = (float *)(void *)(sn + GUARD + 3 - shift);
                        s.normals_size = 12 * n;
                    }
                    if (l->tangent_offset >= 0) {
                        s.tangents = (float *)(void *)(st + GUARD + shift);
                        s.tangents_size = 16 * n;
                    }
                    s.flags = raw ? CNA_SKIN_NO_RENORMALIZE : 0;
                    streams_ok(l, in, n, palette, PALETTE, &s, kernel);
                    const unsigned char *bufs[3] = {sp, sn, st};
                    const size_t starts[3] = {GUARD + shift, GUARD + 3 - shift, GUARD + shift};
                    const size_t widths[3] = {12, 12, 16};
                    const size_t sizes[3] = {sizeof sp, sizeof sn, sizeof st};
                    for (int b = 0; b < 3; b++) {
                        const bool used = b == 0 || (b == 1 ? l->normal_offset >= 0
                                                            : l->tangent_offset >= 0);
                        const size_t end = used ? starts[b] + widths[b] * n : 0;
                        for (size_t i = 0; i < sizes[b]; i++)
                            if (i < starts[b] || i >= end) assert_int_equal(bufs[b][i], 0x5A);
                    }
                    if (raw) continue;
                    assert_int_equal(variant_fast_path(l, in, n, palette, PALETTE,
                                                                  fast, n * l->stride, kernel,
                                                                  NULL),
                                     CNA_OK);
                    const int32_t offs[3] = {l->position_offset, l->normal_offset,
                                             l->tangent_offset};
                    for (size_t v = 0; v < n; v++)
                        for (int b = 0; b < 3; b++)
                            if (offs[b] >= 0)
                                assert_memory_equal(bufs[b] + starts[b] + widths[b] * v,
                                                    fast + v * l->stride + offs[b], widths[b]);
                }
}

/* Zero weights and weights not summing to 1 are taken as given: all four 0
 * give p' = n' = (0, 0, 0) (the reference's unnormalised zero), and
 * weights summing to 0.5 on one identity influence halve the position; an
 * influence of weight 0 never reads its palette entry (NaN here). */
static void zero_and_unnormalised_weights_are_taken_as_given(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    const vtx v[3] = {
        {{1, 2, 3}, {0, 0, 1}, {0, 0}, {1, 0, 0, 1}, {0, 1, 1, 1}, {0, 0, 0, 0}},
        {{4, -6, 8}, {0, 3, 0}, {0, 0}, {0, 0, 2, -1}, {0, 1, 1, 1}, {0.5f, 0, 0, 0}},
        {{1, 1, 1}, {1, 0, 0}, {0, 0}, {0, 1, 0, 1}, {1, 0, 1, 1}, {0, 0.25f, 0, 0}}};
    unsigned char in[3 * 68];
    pack(in, v, 3, 68);
    cna_mat4 palette[2];
    cna_mat4_identity(&palette[0]);
    for (int i = 0; i < 16; i++) palette[1].m[i] = NAN;
    cna_skinning_layout l;
    cna_skinning_layout_canonical(68, &l, NULL);
    for (int raw = 0; raw < 2; raw++) {
        streams_buf b = streams_alloc(3);
        cna_skinning_streams s = packed_streams(&l, &b, raw ? CNA_SKIN_NO_RENORMALIZE : 0);
        streams_ok(&l, in, 3, palette, 2, &s, kernel);
        for (int c = 0; c < 3; c++) {
            assert_true(b.p[c] == 0.0f);
            assert_true(b.n[c] == 0.0f);
            assert_true(b.t[c] == 0.0f);
        }
        assert_float_exact(b.t[3], 1.0f);
        const float half_p[3] = {2, -3, 4};
        for (int c = 0; c < 3; c++) assert_float_exact(b.p[3 + c], half_p[c]);
        /* the normal (0, 3, 0) · 0.5: (0, 1.5, 0) raw, (0, 1, 0) renormalised
         * (to 1e-6: the SIMD kernels' reciprocal square root) */
        const float unit = 1.0f, tol = raw ? 0.0f : 1e-6f;
        assert_true(fabsf(b.n[4] - (raw ? 1.5f : unit)) <= tol);
        assert_true(b.n[3] == 0.0f && b.n[5] == 0.0f);
        assert_true(fabsf(b.t[6] - unit) <= tol); /* (0, 0, 2) · 0.5 */
        assert_float_exact(b.t[7], -1.0f);
        /* the third: joint 1 (NaN) has weight 0, joint 0 weight 0.25 */
        for (int c = 0; c < 3; c++) assert_float_exact(b.p[6 + c], 0.25f);
        assert_true(fabsf(b.n[6] - (raw ? 0.25f : unit)) <= tol);
        streams_free(&b);
    }
}

/* Directions whose squared length is 0, subnormal or overflowing, beside
 * ordinary ones: the fast path's bits (which are the reference's for the
 * degenerate ones), renormalised or not. */
static void degenerate_directions_as_the_fast_path(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    enum { N = 19 };
    const float normals[11][3] = {
        {0, 0, 1},       {0, 0, 0},       {1e30f, 0, 0}, {1e-20f, 0, 0}, {1e19f, 1e19f, 0},
        {0, 3, 4},       {-1e-22f, 0, 0}, {0, -1e20f, 0}, {0, 0, 0},    {1e-19f, 1e-19f, 0},
        {2, 0, 0},
    };
    vtx v[N];
    memset(v, 0, sizeof v);
    for (int i = 0; i < N; i++) {
        v[i].p[0] = (float)i;
        memcpy(v[i].n, normals[i % 11], sizeof v[i].n);
        memcpy(v[i].t, normals[(N - i) % 11], sizeof v[i].n);
        v[i].t[3] = 1.0f;
        v[i].w[0] = 1.0f;
    }
    cna_mat4 palette[1];
    cna_mat4_identity(&palette[0]);
    cna_skinning_layout l;
    cna_skinning_layout_canonical(68, &l, NULL);
    unsigned char in[N * 68], fast[N * 68];
    pack(in, v, N, 68);
    for (size_t count = 1; count <= N; count++) {
        assert_int_equal(variant_fast_path(&l, in, count, palette, 1, fast,
                                                      count * 68, kernel, NULL),
                         CNA_OK);
        streams_buf b = streams_alloc(count);
        cna_skinning_streams s = packed_streams(&l, &b, 0);
        streams_ok(&l, in, count, palette, 1, &s, kernel);
        check_streams_equal_fast(&l, count, fast, &b);
        s = packed_streams(&l, &b, CNA_SKIN_NO_RENORMALIZE);
        streams_ok(&l, in, count, palette, 1, &s, kernel);
        for (size_t i = 0; i < count; i++) { /* B = I exactly: the input itself */
            assert_memory_equal(b.n + 3 * i, v[i].n, 12);
            assert_memory_equal(b.t + 4 * i, v[i].t, 16);
        }
        streams_free(&b);
    }
}

/* Unit axis directions under identity and pure translation palette
 * entries (one influence of weight 1, so B · (n, 0) = n exactly, squared
 * length exactly 1) come back unchanged, bit for bit, renormalised, with
 * every estimate: through the eight-at-a-time normalisation of full blocks
 * and the one-by-one normalisation of a block's last vertices. */
static void unit_directions_come_back_unchanged(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    enum { N = 150 };
    const float axes[6][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}};
    static vtx v[N];
    memset(v, 0, sizeof v);
    for (int i = 0; i < N; i++) {
        v[i].p[0] = (float)i;
        memcpy(v[i].n, axes[i % 6], sizeof v[i].n);
        memcpy(v[i].t, axes[(i / 6 + 1) % 6], sizeof v[i].n);
        v[i].t[3] = i % 2 ? -1.0f : 1.0f;
        v[i].j[0] = (uint8_t)(i % 2);
        v[i].w[0] = 1.0f;
    }
    cna_mat4 palette[2];
    cna_mat4_identity(&palette[0]);
    cna_mat4_translation(&palette[1], cna_vec3_make(10.0f, -20.0f, 30.0f));
    cna_skinning_layout l;
    cna_skinning_layout_canonical(68, &l, NULL);
    static unsigned char in[N * 68];
    pack(in, v, N, 68);
    streams_buf b = streams_alloc(N);
    cna_skinning_streams s = packed_streams(&l, &b, 0);
    streams_ok(&l, in, N, palette, 2, &s, kernel);
    for (size_t i = 0; i < N; i++) {
        assert_memory_equal(b.n + 3 * i, v[i].n, 12);
        assert_memory_equal(b.t + 4 * i, v[i].t, 16);
    }
    streams_free(&b);
}

/* Skipping an attribute: a layout copy with normal_offset -1 writes the
 * positions alone, the same bits. */
static void positions_alone_through_a_layout_without_normals(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    enum { N = 77, PALETTE = 9 };
    cna_skinning_layout l;
    cna_skinning_layout_canonical(52, &l, NULL);
    static unsigned char in[N * 52];
    cna_mat4 palette[PALETTE];
    random_palette(palette, PALETTE);
    random_vertices(&l, in, N, PALETTE);
    streams_buf a = streams_alloc(N), b = streams_alloc(N);
    cna_skinning_streams s = packed_streams(&l, &a, 0);
    streams_ok(&l, in, N, palette, PALETTE, &s, kernel);
    cna_skinning_layout no_n = l;
    no_n.normal_offset = -1;
    s = packed_streams(&no_n, &b, 0);
    assert_null(s.normals);
    streams_ok(&no_n, in, N, palette, PALETTE, &s, kernel);
    assert_memory_equal(a.p, b.p, 12 * N);
    streams_free(&a);
    streams_free(&b);
}

/* Every refusal: the message names the argument; no stream is touched. */
static void bad_streams_are_refused_naming_the_argument(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    const vtx v[2] = {{{1, 2, 3}, {0, 0, 1}, {0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}},
                      {{1, 2, 3}, {0, 0, 1}, {0, 0}, {0, 0, 0, 0}, {0, 0, 2, 0}, {0, 0, 0, 1}}};
    unsigned char in[104];
    pack(in, v, 2, 52);
    cna_mat4 palette[3];
    for (int i = 0; i < 3; i++) cna_mat4_identity(&palette[i]);
    cna_skinning_layout l, no_n;
    cna_skinning_layout_canonical(52, &l, NULL);
    no_n = l;
    no_n.normal_offset = -1;
    float p[8], n[8], t[8];
    unsigned char *ib = in;
    cna_skinning_streams good;
    memset(&good, 0, sizeof good);
    good.positions = p;
    good.positions_size = 24;
    good.normals = n;
    good.normals_size = 24;
    typedef struct bad {
        const cna_skinning_layout *l;
        size_t count, pc;
        cna_skinning_streams s;
        bool null_out;
        const char *message;
    } bad;
    bad cases[16];
    size_t nc = 0;
    for (size_t i = 0; i < 16; i++) {
        cases[i].l = &l;
        cases[i].count = 2;
        cases[i].pc = 3;
        cases[i].s = good;
        cases[i].null_out = false;
    }
    cases[nc].pc = 2;
    cases[nc++].message = "vertices[1].joints[2]: palette index 2 is not below palette_count 2";
    cases[nc].l = NULL;
    cases[nc++].message = "layout: NULL";
    cases[nc].null_out = true;
    cases[nc++].message = "out: NULL";
    cases[nc].s.positions = NULL;
    cases[nc++].message = "out.positions: NULL with vertex_count 2";
    cases[nc].s.normals = NULL;
    cases[nc++].message =
        "out.normals: NULL; layout.normal_offset is 12 (set it to -1 to skip the normals)";
    cases[nc].l = &no_n;
    cases[nc++].message = "out.normals: not NULL, but layout.normal_offset is -1 (no normals "
                          "to skin)";
    cases[nc].s.tangents = t;
    cases[nc].s.tangents_size = 32;
    cases[nc++].message = "out.tangents: not NULL, but layout.tangent_offset is -1 (no "
                          "tangents to skin)";
    cases[nc].s.positions_size = 23;
    cases[nc++].message = "out.positions_size: 23 bytes; 2 vertices at stride 12 need 24";
    cases[nc].s.normal_stride = 8;
    cases[nc++].message = "out.normal_stride: 8; at least 12 (or 0 for packed)";
    cases[nc].s.position_stride = 16;
    cases[nc++].message = "out.positions_size: 24 bytes; 2 vertices at stride 16 need 28";
    cases[nc].s.normals = p + 1;
    cases[nc++].message = "out.normals: overlaps out.positions";
    cases[nc].s.normals = (float *)(void *)(ib + 40);
    cases[nc++].message = "out.normals: overlaps vertices";
    cases[nc].s.flags = 0x6;
    cases[nc++].message = "out.flags: 0x6 has unknown bits (known: CNA_SKIN_NO_RENORMALIZE 0x1)";
    /* a stream's span overflowing (above 255 palette entries no joint is
     * read, so the huge vertex_count is never walked) */
    cases[nc].count = (size_t)1 << 40;
    cases[nc].pc = 256;
    cases[nc].s.position_stride = UINT32_MAX;
    cases[nc++].message = "out.position_stride: 1099511627776 vertices at stride 4294967295 "
                          "overflow";
    for (size_t c = 0; c < nc; c++) {
        cna_error err;
        for (int i = 0; i < 8; i++) p[i] = n[i] = t[i] = -7.0f;
        const cna_mat4 *pal = cases[c].pc > 3 ? (const cna_mat4 *)palette : palette;
        const cna_result r = variant_streams_path(cases[c].l, in, cases[c].count, pal,
                                                    cases[c].pc,
                                                    cases[c].null_out ? NULL : &cases[c].s,
                                                    kernel, &err);
        if (r != CNA_ERROR_INVALID_ARGUMENT)
            fail_msg("case %zu (%s): result %d", c, cases[c].message, (int)r);
        assert_string_equal(err.message, cases[c].message);
        for (int i = 0; i < 8; i++) {
            assert_true(p[i] == -7.0f);
            assert_true(n[i] == -7.0f);
            assert_true(t[i] == -7.0f);
        }
    }
    /* nothing to skin: nothing is needed but a valid layout and streams struct */
    cna_skinning_streams empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(variant_streams_path(&no_n, NULL, 0, NULL, 0, &empty, kernel, NULL), CNA_OK);
    /* interleaved streams sharing a buffer without sharing bytes are fine */
    float pn[12];
    cna_skinning_streams inter;
    memset(&inter, 0, sizeof inter);
    inter.positions = pn;
    inter.positions_size = 36;
    inter.position_stride = 24;
    inter.normals = pn + 3;
    inter.normals_size = 36;
    inter.normal_stride = 24;
    assert_int_equal(variant_streams_path(&l, in, 2, palette, 3, &inter, kernel, NULL), CNA_OK);
    inter.normals = pn + 2; /* one float shared with each position */
    cna_error err;
    assert_int_equal(variant_streams_path(&l, in, 2, palette, 3, &inter, kernel, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "out.normals: overlaps out.positions");
}

/* cna_skin_streams runs the kernel cna_skin_vertices_fast runs, bit for bit;
 * the hook refuses a kernel this build or CPU lacks. */
static void streams_dispatch_to_the_best_supported_kernel(void **state)
{
    (void)state;
    const int best = cna__skin_fast_kernel();
    enum { N = 101, PALETTE = 30 };
    cna_skinning_layout l;
    cna_skinning_layout_canonical(56, &l, NULL);
    static unsigned char in[N * 56];
    cna_mat4 palette[PALETTE];
    random_palette(palette, PALETTE);
    random_vertices(&l, in, N, PALETTE);
    streams_buf a = streams_alloc(N), b = streams_alloc(N);
    cna_skinning_streams sa = packed_streams(&l, &a, 0), sb = packed_streams(&l, &b, 0);
    assert_int_equal(cna_skin_streams(&l, in, N, palette, PALETTE, &sa, NULL), CNA_OK);
    assert_int_equal(cna__skin_streams_path(&l, in, N, palette, PALETTE, &sb, best, NULL), CNA_OK);
    assert_memory_equal(a.p, b.p, 12 * N);
    assert_memory_equal(a.n, b.n, 12 * N);
    cna_error err;
    memset(b.p, 0xAB, 12 * N);
    assert_int_equal(cna__skin_streams_path(&l, in, N, palette, PALETTE, &sb, 3, &err),
                     CNA_ERROR_UNSUPPORTED);
    assert_string_equal(err.message, "kernel: 3 is not supported by this build or CPU");
    for (size_t i = 0; i < 12 * N; i++) assert_int_equal(((unsigned char *)b.p)[i], 0xAB);
    streams_free(&a);
    streams_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        KERNEL_TESTS(streams_equal_fast_path_on_random_data),
        KERNEL_TESTS(streams_on_corpus_models),
        KERNEL_TESTS(strided_and_interleaved_streams_write_only_their_slots),
        KERNEL_TESTS(streams_tails_influence_counts_and_alignment),
        KERNEL_TESTS(zero_and_unnormalised_weights_are_taken_as_given),
        KERNEL_TESTS(degenerate_directions_as_the_fast_path),
        KERNEL_TESTS(unit_directions_come_back_unchanged),
        KERNEL_TESTS(positions_alone_through_a_layout_without_normals),
        KERNEL_TESTS(bad_streams_are_refused_naming_the_argument),
        cmocka_unit_test(streams_dispatch_to_the_best_supported_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
