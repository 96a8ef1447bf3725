/*
 * The reference CPU skinning (include/cna/skinning.h), on hand-made stride-52
 * vertices (P N U0 J W) and stride-68 vertices (P N U0 T J W): one test per
 * rule, exact values.
 */
#include "mesh/mesh_test.h"

#include <stdlib.h>

#include "cna/model.h"
#include "cna/skinning.h"
#include "mesh/skinning_test.h"
#include "model/skinning_internal.h"




static void identity(cna_mat4 *m) { cna_mat4_identity(m); }

static void translation(cna_mat4 *m, float x, float y, float z)
{
    cna_mat4_translation(m, cna_vec3_make(x, y, z));
}

static void skin_ok(const cna_skinning_layout *l, const void *in, size_t count,
                    const cna_mat4 *palette, size_t pc, void *out, size_t size)
{
    cna_error err;
    if (cna_skin_vertices(l, in, count, palette, pc, out, size, &err) != CNA_OK)
        fail_msg("skin failed: %s", err.message);
}

static void canonical_skinning_layouts_follow_the_stride_table(void **state)
{
    (void)state;
    const uint32_t strides[5] = {52, 56, 68, 76, 80};
    const int32_t tangent[5] = {-1, -1, 32, 32, 32};
    const int32_t joints[5] = {32, 32, 48, 56, 60};
    for (int i = 0; i < 5; i++) {
        cna_skinning_layout l;
        assert_int_equal(cna_skinning_layout_canonical(strides[i], &l, NULL), CNA_OK);
        assert_int_equal(l.stride, strides[i]);
        assert_int_equal(l.position_offset, 0);
        assert_int_equal(l.normal_offset, 12);
        assert_int_equal(l.tangent_offset, tangent[i]);
        assert_int_equal(l.joints_offset, joints[i]);
        assert_int_equal(l.weights_offset, joints[i] + 4);
    }
}

static void unskinned_stride_is_not_a_skinning_layout(void **state)
{
    (void)state;
    cna_skinning_layout l = {7, 7, 7, 7, 7, 7};
    cna_error err;
    assert_int_equal(cna_skinning_layout_canonical(32, &l, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "stride: 32 is not a canonical skinned stride (52, 56, 68, 76, 80)");
    assert_int_equal(l.stride, 7);
}

static void identity_palette_returns_the_input_exactly(void **state)
{
    (void)state;
    const vtx v[2] = {
        {{1.5f, -2.25f, 3.0f}, {0, 0, 1}, {0.25f, 0.75f}, {1, 0, 0, -1}, {0, 1, 2, 3},
         {0.5f, 0.25f, 0.125f, 0.125f}},
        {{-7.0f, 0.1f, 1e-3f}, {0, -1, 0}, {0.5f, 0.5f}, {0, 0, 1, 1}, {3, 0, 0, 0},
         {1, 0, 0, 0}}};
    unsigned char in[2 * 68], out[2 * 68];
    pack(in, v, 2, 68);
    cna_mat4 palette[4];
    for (int i = 0; i < 4; i++) identity(&palette[i]);
    cna_skinning_layout l;
    cna_skinning_layout_canonical(68, &l, NULL);
    skin_ok(&l, in, 2, palette, 4, out, sizeof out);
    assert_memory_equal(out, in, sizeof in);
}

static void translation_palette_moves_positions_but_not_normals(void **state)
{
    (void)state;
    const vtx v[1] = {{{1, 2, 3}, {0, 1, 0}, {0, 0}, {0, 0, 1, 1}, {1, 0, 0, 0}, {1, 0, 0, 0}}};
    unsigned char in[68], out[68];
    pack(in, v, 1, 68);
    cna_mat4 palette[2];
    identity(&palette[0]);
    translation(&palette[1], 10, 20, 30);
    cna_skinning_layout l;
    cna_skinning_layout_canonical(68, &l, NULL);
    skin_ok(&l, in, 1, palette, 2, out, sizeof out);
    assert_float_exact(mesh_get_float(out, 0), 11.0f);
    assert_float_exact(mesh_get_float(out, 4), 22.0f);
    assert_float_exact(mesh_get_float(out, 8), 33.0f);
    assert_memory_equal(out + 12, in + 12, 68 - 12); /* normal, uv, tangent, joints, weights */
}

static void four_influences_blend_with_their_weights(void **state)
{
    (void)state;
    /* M0 = T(1,0,0), M1 = T(0,2,0), M2 = T(0,0,4), M3 = scale 2; p = (1,1,1):
     * 0.5(2,1,1) + 0.25(1,3,1) + 0.125(1,1,5) + 0.125(2,2,2) = (1.625, 1.625, 1.625) */
    const vtx v[1] = {{{1, 1, 1}, {1, 0, 0}, {0, 0}, {0, 0, 0, 0}, {0, 1, 2, 3},
                       {0.5f, 0.25f, 0.125f, 0.125f}}};
    unsigned char in[52], out[52];
    pack(in, v, 1, 52);
    cna_mat4 palette[4];
    translation(&palette[0], 1, 0, 0);
    translation(&palette[1], 0, 2, 0);
    translation(&palette[2], 0, 0, 4);
    identity(&palette[3]);
    palette[3].m[0] = palette[3].m[5] = palette[3].m[10] = 2.0f;
    cna_skinning_layout l;
    cna_skinning_layout_canonical(52, &l, NULL);
    skin_ok(&l, in, 1, palette, 4, out, sizeof out);
    assert_float_exact(mesh_get_float(out, 0), 1.625f);
    assert_float_exact(mesh_get_float(out, 4), 1.625f);
    assert_float_exact(mesh_get_float(out, 8), 1.625f);
    /* normal: 0.5 + 0.25 + 0.125 + 0.125 * 2 = 1.125 in x, renormalised to 1 */
    assert_float_exact(mesh_get_float(out, 12), 1.0f);
    assert_float_exact(mesh_get_float(out, 16), 0.0f);
    assert_float_exact(mesh_get_float(out, 20), 0.0f);
}

static void rotation_turns_position_normal_and_tangent_but_keeps_handedness(void **state)
{
    (void)state;
    /* 90 degrees about Z: x -> y, y -> -x (column-major, columns (0,1,0), (-1,0,0)) */
    cna_mat4 rz = {{0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    const vtx v[1] = {{{2, 0, 0}, {1, 0, 0}, {0, 0}, {0, 1, 0, -1}, {0, 0, 0, 0}, {1, 0, 0, 0}}};
    unsigned char in[68], out[68];
    pack(in, v, 1, 68);
    cna_skinning_layout l;
    cna_skinning_layout_canonical(68, &l, NULL);
    skin_ok(&l, in, 1, &rz, 1, out, sizeof out);
    const float expect_p[3] = {0, 2, 0}, expect_n[3] = {0, 1, 0}, expect_t[4] = {-1, 0, 0, -1};
    for (int c = 0; c < 3; c++) {
        assert_float_exact(mesh_get_float(out, (size_t)(4 * c)), expect_p[c]);
        assert_float_exact(mesh_get_float(out, (size_t)(12 + 4 * c)), expect_n[c]);
    }
    for (int c = 0; c < 4; c++)
        assert_float_exact(mesh_get_float(out, (size_t)(32 + 4 * c)), expect_t[c]);
}

static void zero_weight_influence_never_reads_its_matrix(void **state)
{
    (void)state;
    const vtx v[1] = {{{1, 2, 3}, {0, 0, 1}, {0, 0}, {0, 0, 0, 0}, {0, 1, 1, 1}, {1, 0, 0, 0}}};
    unsigned char in[52], out[52];
    pack(in, v, 1, 52);
    cna_mat4 palette[2];
    identity(&palette[0]);
    for (int i = 0; i < 16; i++) palette[1].m[i] = NAN;
    cna_skinning_layout l;
    cna_skinning_layout_canonical(52, &l, NULL);
    skin_ok(&l, in, 1, palette, 2, out, sizeof out);
    assert_memory_equal(out, in, sizeof in);
}

static void non_unit_normal_is_renormalised_and_zero_weights_give_zero(void **state)
{
    (void)state;
    const vtx v[2] = {{{1, 2, 3}, {0, 0, 3}, {0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}},
                      {{1, 2, 3}, {0, 0, 1}, {0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}};
    unsigned char in[104], out[104];
    pack(in, v, 2, 52);
    cna_mat4 palette[1];
    identity(&palette[0]);
    cna_skinning_layout l;
    cna_skinning_layout_canonical(52, &l, NULL);
    skin_ok(&l, in, 2, palette, 1, out, sizeof out);
    assert_float_exact(mesh_get_float(out, 20), 1.0f);
    for (size_t c = 0; c < 6; c++) assert_float_exact(mesh_get_float(out, 52 + 4 * c), 0.0f);
}

static void positions_only_equal_the_full_skin(void **state)
{
    (void)state;
    const vtx v[2] = {
        {{0.3f, -1.7f, 2.9f}, {0, 0, 1}, {0, 0}, {0, 0, 0, 0}, {0, 1, 2, 0}, {0.3f, 0.3f, 0.4f, 0}},
        {{5.1f, 0.2f, -0.7f}, {0, 1, 0}, {0, 0}, {0, 0, 0, 0}, {2, 1, 0, 0}, {0.7f, 0.2f, 0.1f, 0}}};
    unsigned char in[104], out[104];
    pack(in, v, 2, 52);
    cna_mat4 palette[3];
    cna_mat4_compose(&palette[0], cna_vec3_make(1.1f, 0.2f, -3.0f),
                     cna_quat_make(0.0f, 0.6f, 0.0f, 0.8f), cna_vec3_make(1.5f, 1.5f, 1.5f));
    translation(&palette[1], -0.5f, 0.25f, 9.0f);
    cna_mat4_compose(&palette[2], cna_vec3_make(0, 0, 0), cna_quat_make(0.8f, 0, 0, 0.6f),
                     cna_vec3_make(1, 1, 1));
    cna_skinning_layout l;
    cna_skinning_layout_canonical(52, &l, NULL);
    skin_ok(&l, in, 2, palette, 3, out, sizeof out);
    float xyz[6];
    assert_int_equal(cna_skin_positions(&l, in, 2, palette, 3, xyz, 6, NULL), CNA_OK);
    for (size_t i = 0; i < 2; i++)
        for (size_t c = 0; c < 3; c++)
            assert_float_exact(xyz[3 * i + c], mesh_get_float(out, 52 * i + 4 * c));
}

static void palette_index_out_of_range_is_refused_naming_vertex_and_influence(void **state)
{
    (void)state;
    const vtx v[2] = {{{1, 2, 3}, {0, 0, 1}, {0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}},
                      {{1, 2, 3}, {0, 0, 1}, {0, 0}, {0, 0, 0, 0}, {0, 0, 2, 0}, {1, 0, 0, 0}}};
    unsigned char in[104], out[104];
    pack(in, v, 2, 52);
    memset(out, 0xAB, sizeof out);
    cna_mat4 palette[2];
    identity(&palette[0]);
    identity(&palette[1]);
    cna_skinning_layout l;
    cna_skinning_layout_canonical(52, &l, NULL);
    cna_error err;
    assert_int_equal(cna_skin_vertices(&l, in, 2, palette, 2, out, sizeof out, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "vertices[1].joints[2]: palette index 2 is not below palette_count 2");
    for (size_t i = 0; i < sizeof out; i++) assert_int_equal(out[i], 0xAB);
}

static void bad_layouts_and_buffers_are_refused(void **state)
{
    (void)state;
    unsigned char in[52] = {0}, out[52];
    cna_mat4 palette[1];
    identity(&palette[0]);
    cna_skinning_layout l;
    cna_skinning_layout_canonical(52, &l, NULL);
    cna_error err;
    cna_skinning_layout bad = l;
    bad.weights_offset = 40;
    assert_int_equal(cna_skin_vertices(&bad, in, 1, palette, 1, out, 52, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "layout.weights_offset: 40 + 16 bytes exceeds stride 52");
    bad = l;
    bad.joints_offset = -1;
    assert_int_equal(cna_skin_vertices(&bad, in, 1, palette, 1, out, 52, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "layout.joints_offset: -1; this slot is required");
    assert_int_equal(cna_skin_vertices(&l, in, 1, palette, 1, out, 51, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "out: 51 bytes; 1 vertices of stride 52 need 52");
    assert_int_equal(cna_skin_vertices(&l, in, 1, palette, 1, in, 52, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "out: overlaps vertices (52 bytes)");
    assert_int_equal(cna_skin_vertices(&l, in, 1, NULL, 1, out, 52, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "palette: NULL with palette_count 1");
    float xyz[3];
    assert_int_equal(cna_skin_positions(&l, in, 1, palette, 1, xyz, 2, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "out_count: 2 floats; 1 vertices need 3 each");
    assert_int_equal(cna_skin_vertices(NULL, in, 1, palette, 1, out, 52, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_skin_vertices(&l, NULL, 0, NULL, 0, NULL, 0, &err), CNA_OK);
}

/* ------------------------------------------------------------ fast path */

/* Whether byte b of a vertex lies in a skinned slot (position, normal, tangent xyz). */
static bool in_slot(const cna_skinning_layout *l, size_t b)
{
    const int32_t offs[3] = {l->position_offset, l->normal_offset, l->tangent_offset};
    for (int s = 0; s < 3; s++)
        if (offs[s] >= 0 && b >= (size_t)offs[s] && b < (size_t)offs[s] + 12) return true;
    return false;
}


/* The documented bound (include/cna/skinning.h, cna_skin_vertices_fast):
 * positions within 1e-5 · S, directions within 1e-5 · S / L + 1e-6; every
 * other byte equal. Returns the largest error found relative to its bound. */
static double check_fast_against_reference(const cna_skinning_layout *l, const unsigned char *in,
                                           size_t count, const cna_mat4 *palette,
                                           const unsigned char *ref, const unsigned char *fast)
{
    double worst = 0;
    for (size_t v = 0; v < count; v++) {
        const unsigned char *src = in + v * l->stride;
        const unsigned char *r = ref + v * l->stride, *f = fast + v * l->stride;
        for (size_t b = 0; b < l->stride; b++)
            if (!in_slot(l, b) && r[b] != f[b]) fail_msg("vertex %zu byte %zu differs", v, b);
        const int32_t offs[3] = {l->position_offset, l->normal_offset, l->tangent_offset};
        for (int s = 0; s < 3; s++) {
            if (offs[s] < 0) continue;
            double sum[3];
            const double tol = slot_tolerance(l, src, palette, s, true, sum);
            for (int c = 0; c < 3; c++) {
                const double e = fabs((double)mesh_get_float(r, (size_t)offs[s] + 4 * (size_t)c) -
                                      (double)mesh_get_float(f, (size_t)offs[s] + 4 * (size_t)c));
                if (!(e <= tol))
                    fail_msg("vertex %zu slot %d component %d: |fast - reference| = %g > %g", v, s,
                             c, e, tol);
                worst = fmax(worst, e / tol);
            }
        }
    }
    return worst;
}

static void fast_and_reference(const cna_skinning_layout *l, const unsigned char *in, size_t count,
                               const cna_mat4 *palette, size_t pc, unsigned char *ref,
                               unsigned char *fast, const skin_variant *kernel)
{
    const size_t bytes = count * l->stride;
    cna_error err;
    skin_ok(l, in, count, palette, pc, ref, bytes);
    if (variant_fast_path(l, in, count, palette, pc, fast, bytes, kernel, &err) != CNA_OK)
        fail_msg("fast path failed: %s", err.message);
}

static void fast_path_agrees_with_reference_on_random_data(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    enum { N = 997, PALETTE = 40 };
    cna_skinning_layout layouts[7];
    const uint32_t strides[5] = {52, 56, 68, 76, 80};
    for (int i = 0; i < 5; i++) cna_skinning_layout_canonical(strides[i], &layouts[i], NULL);
    /* not canonical: position last with no room after it, no normal; tangent only */
    layouts[5] = (cna_skinning_layout){44, 32, -1, 16, 0, 4};
    layouts[6] = (cna_skinning_layout){48, 0, 12, -1, 24, 28};
    static unsigned char in[N * 80], ref[N * 80], fast[N * 80];
    cna_mat4 palette[PALETTE];
    double largest = 0;
    for (int li = 0; li < 7; li++)
        for (int rep = 0; rep < 2; rep++) {
            random_palette(palette, PALETTE);
            random_vertices(&layouts[li], in, N, PALETTE);
            fast_and_reference(&layouts[li], in, N, palette, PALETTE, ref, fast, kernel);
            const double worst =
                check_fast_against_reference(&layouts[li], in, N, palette, ref, fast);
            assert_true(worst <= 1.0);
            largest = fmax(largest, worst);
        }
    print_message("kernel %s: largest error %.3f of the bound\n",
                  kernel->name, largest);
}

static void fast_path_agrees_with_reference_on_robot_parts(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    char path[512];
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(
            mesh_data_path(path, sizeof path, "corpus/valid/RobotExpressive/robot.glb"), NULL, &m,
            &err) != CNA_OK)
        fail_msg("%s", err.message);
    cna_mat4 palette[256];
    size_t parts = 0;
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t p = 0; p < m->meshes[i].part_count; p++) {
            const cna_model_part *part = &m->meshes[i].parts[p];
            cna_skinning_layout l;
            if (m->meshes[i].skin < 0 ||
                cna_skinning_layout_canonical(part->declaration.stride, &l, NULL) != CNA_OK)
                continue;
            const size_t bytes = part->vertex_count * l.stride;
            unsigned char *ref = malloc(bytes), *fast = malloc(bytes);
            assert_non_null(ref);
            assert_non_null(fast);
            for (int rep = 0; rep < 2; rep++) {
                random_palette(palette, 256);
                fast_and_reference(&l, part->vertices, part->vertex_count, palette, 256, ref,
                                   fast, kernel);
                assert_true(check_fast_against_reference(&l, part->vertices, part->vertex_count,
                                                         palette, ref, fast) <= 1.0);
            }
            free(ref);
            free(fast);
            parts++;
        }
    assert_int_equal(parts, 19);
    cna_model_free(m);
}

static void fast_path_refuses_exactly_as_the_reference(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    const vtx v[2] = {{{1, 2, 3}, {0, 0, 1}, {0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}},
                      {{1, 2, 3}, {0, 0, 1}, {0, 0}, {0, 0, 0, 0}, {0, 0, 2, 0}, {0, 0, 0, 1}}};
    unsigned char in[104], out[104];
    pack(in, v, 2, 52);
    cna_mat4 palette[2];
    identity(&palette[0]);
    identity(&palette[1]);
    cna_skinning_layout l, bad_w, bad_j, zero_stride;
    cna_skinning_layout_canonical(52, &l, NULL);
    bad_w = l;
    bad_w.weights_offset = 40;
    bad_j = l;
    bad_j.joints_offset = -1;
    zero_stride = l;
    zero_stride.stride = 0;
    typedef struct call {
        const cna_skinning_layout *l;
        const void *in;
        size_t count;
        const cna_mat4 *palette;
        size_t pc;
        void *out;
        size_t size;
    } call;
    const call calls[] = {
        {&l, in, 2, palette, 2, out, 104},           /* joint 2 of vertex 1 >= 2 */
        {&bad_w, in, 1, palette, 2, out, 52},        {&bad_j, in, 1, palette, 2, out, 52},
        {&zero_stride, in, 1, palette, 2, out, 52},  {NULL, in, 1, palette, 2, out, 52},
        {&l, in, 1, palette, 2, out, 51},            {&l, in, 1, palette, 2, in, 52},
        {&l, in, 1, NULL, 1, out, 52},               {&l, NULL, 1, palette, 2, out, 52},
        {&l, in, 1, palette, 2, NULL, 52},           {&l, in, SIZE_MAX, palette, 2, out, 52},
    };
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++)
        for (int rep = 0; rep < 2; rep++) {
            const call *k = &calls[c];
            cna_error e_ref, e_fast;
            memset(out, 0xAB, sizeof out);
            const cna_result r_ref = cna_skin_vertices(k->l, k->in, k->count, k->palette, k->pc,
                                                       k->out, k->size, &e_ref);
            const cna_result r_fast = variant_fast_path(
                k->l, k->in, k->count, k->palette, k->pc, k->out, k->size, kernel, &e_fast);
            assert_int_equal(r_ref, CNA_ERROR_INVALID_ARGUMENT);
            assert_int_equal(r_fast, r_ref);
            assert_string_equal(e_fast.message, e_ref.message);
            for (size_t i = 0; i < sizeof out; i++) assert_int_equal(out[i], 0xAB);
        }
    cna_error err;
    assert_int_equal(cna_skin_vertices_fast(&l, in, 2, palette, 2, out, sizeof out, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "vertices[1].joints[2]: palette index 2 is not below palette_count 2");
    assert_int_equal(cna_skin_vertices_fast(&l, NULL, 0, NULL, 0, NULL, 0, &err), CNA_OK);
}

static void fast_path_zero_weight_influence_never_reads_its_matrix(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    const vtx v[2] = {{{1, 2, 3}, {0, 0, 1}, {0, 0}, {0, 0, 0, 0}, {0, 1, 1, 1}, {1, 0, 0, 0}},
                      {{4, 5, 6}, {0, 1, 0}, {0, 0}, {0, 0, 0, 0}, {1, 1, 0, 1}, {0, 0, 1, 0}}};
    unsigned char in[104], out[104];
    pack(in, v, 2, 52);
    cna_mat4 palette[2];
    identity(&palette[0]);
    for (int i = 0; i < 16; i++) palette[1].m[i] = NAN;
    cna_skinning_layout l;
    cna_skinning_layout_canonical(52, &l, NULL);
    for (int rep = 0; rep < 2; rep++) {
        memset(out, 0, sizeof out);
        assert_int_equal(
            variant_fast_path(&l, in, 2, palette, 2, out, sizeof out, kernel, NULL),
            CNA_OK);
        assert_memory_equal(out, in, sizeof in);
    }
}

static void fast_path_identity_and_translation_are_exact(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    /* one influence of weight 1: B = M exactly, so p' = M·p as the reference */
    const vtx v[2] = {{{1.5f, -2.25f, 3.0f}, {0, 0, 1}, {0.25f, 0.75f}, {1, 0, 0, -1},
                       {0, 0, 0, 0}, {1, 0, 0, 0}},
                      {{1, 2, 3}, {0, 1, 0}, {0, 0}, {0, 0, 1, 1}, {0, 1, 0, 0}, {0, 1, 0, 0}}};
    unsigned char in[2 * 68], out[2 * 68];
    pack(in, v, 2, 68);
    cna_mat4 palette[2];
    identity(&palette[0]);
    translation(&palette[1], 10, 20, 30);
    cna_skinning_layout l;
    cna_skinning_layout_canonical(68, &l, NULL);
    for (int rep = 0; rep < 2; rep++) {
        assert_int_equal(
            variant_fast_path(&l, in, 2, palette, 2, out, sizeof out, kernel, NULL),
            CNA_OK);
        assert_memory_equal(out, in, 68);
        assert_float_exact(mesh_get_float(out, 68), 11.0f);
        assert_float_exact(mesh_get_float(out, 72), 22.0f);
        assert_float_exact(mesh_get_float(out, 76), 33.0f);
        assert_memory_equal(out + 80, in + 80, 68 - 12);
    }
}

/* Directions whose squared length is 0, subnormal, overflowing or near
 * FLT_MAX, alone and beside ordinary ones (the SIMD kernels normalise two
 * at a time): with one influence of weight 1 on an identity matrix the
 * blended direction is the input exactly, so the degenerate ones and the
 * one of squared length exactly 1 are written as the reference writes
 * them, bit for bit, with every estimate, and the others within 1e-6 of
 * it. (1e-19, 1e-19, 0) is an ordinary one: its squares are subnormal, but
 * their sum, 2e-38, is a normal float, so the estimate's Newton step
 * normalises it, within the bound, not to the reference's bits. */
static void fast_path_degenerate_directions_as_the_reference(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    enum { N = 11 };
    const float normals[N][3] = {
        {0, 0, 1},     {0, 0, 0},     {1e30f, 0, 0},  {1e-20f, 0, 0}, {1e19f, 1e19f, 0},
        {0, 3, 4},     {-1e-22f, 0, 0}, {0, -1e20f, 0}, {0, 0, 0},     {1e-19f, 1e-19f, 0},
        {2, 0, 0},
    };
    const bool exact[N] = {true, true, true, true, false, false, true, true, true, false, false};
    vtx v[N];
    memset(v, 0, sizeof v);
    for (int i = 0; i < N; i++) {
        v[i].p[0] = (float)i;
        memcpy(v[i].n, normals[i], sizeof v[i].n);
        memcpy(v[i].t, normals[N - 1 - i], sizeof v[i].n);
        v[i].t[3] = 1.0f;
        v[i].w[0] = 1.0f;
    }
    cna_mat4 palette[1];
    identity(&palette[0]);
    const uint32_t strides[2] = {52, 68};
    for (int si = 0; si < 2; si++) {
        cna_skinning_layout l;
        cna_skinning_layout_canonical(strides[si], &l, NULL);
        unsigned char in[N * 68], ref[N * 68], out[N * 68];
        pack(in, v, N, strides[si]);
        for (size_t count = 1; count <= N; count++) {
            const size_t bytes = count * l.stride;
            skin_ok(&l, in, count, palette, 1, ref, bytes);
            assert_int_equal(variant_fast_path(&l, in, count, palette, 1, out, bytes,
                                                          kernel, NULL),
                             CNA_OK);
            for (size_t i = 0; i < count; i++) {
                const unsigned char *r = ref + i * l.stride, *f = out + i * l.stride;
                assert_memory_equal(f, r, 12); /* position: B = I exactly */
                const int32_t offs[2] = {l.normal_offset, l.tangent_offset};
                const bool ex[2] = {exact[i], exact[N - 1 - i]};
                for (int s = 0; s < 2; s++) {
                    if (offs[s] < 0) continue;
                    if (ex[s]) {
                        assert_memory_equal(f + offs[s], r + offs[s], 12);
                        continue;
                    }
                    for (int c = 0; c < 3; c++) {
                        const float a = mesh_get_float(f, (size_t)offs[s] + 4 * (size_t)c);
                        const float b = mesh_get_float(r, (size_t)offs[s] + 4 * (size_t)c);
                        assert_true(fabsf(a - b) <= 1e-6f);
                    }
                }
                /* the rest (tangent xyz excepted) copied */
                assert_memory_equal(f + 24, r + 24, l.tangent_offset < 0 ? l.stride - 24 : 8);
                if (l.tangent_offset >= 0) assert_memory_equal(f + 44, r + 44, l.stride - 44);
            }
        }
    }
}

/* Palette entries past the largest joint index are never read: a NaN there
 * changes no byte of the result (the SIMD kernels test only the entries the
 * joints can name before taking their fastest loops). */
static void fast_path_ignores_palette_entries_no_joint_names(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    enum { N = 37, USED = 5, PALETTE = 9 };
    cna_skinning_layout l;
    cna_skinning_layout_canonical(52, &l, NULL);
    static unsigned char in[N * 52], a[N * 52], b[N * 52];
    cna_mat4 palette[PALETTE];
    random_palette(palette, PALETTE);
    random_vertices(&l, in, N, USED);
    assert_int_equal(
        variant_fast_path(&l, in, N, palette, PALETTE, a, sizeof a, kernel, NULL),
        CNA_OK);
    for (int i = USED; i < PALETTE; i++)
        for (int k = 0; k < 16; k++) palette[i].m[k] = NAN;
    assert_int_equal(
        variant_fast_path(&l, in, N, palette, PALETTE, b, sizeof b, kernel, NULL),
        CNA_OK);
    assert_memory_equal(a, b, sizeof a);
}

/* Every vertex count from 1 to 9 (the kernels' pairs and single tails), every
 * canonical layout and two others, exactly 1, 2, 3 and 4 influences, input
 * and output at odd addresses, the palette off its usual alignment: within
 * the bound, and not one byte written outside out's vertex_count * stride
 * (wide stores and copies). */
static void fast_path_tails_influence_counts_and_alignment(void **state)
{
    const skin_variant *kernel = kernel_of(state);
    enum { MAXN = 9, PALETTE = 12, GUARD = 64 };
    cna_skinning_layout layouts[7];
    const uint32_t strides[5] = {52, 56, 68, 76, 80};
    for (int i = 0; i < 5; i++) cna_skinning_layout_canonical(strides[i], &layouts[i], NULL);
    layouts[5] = (cna_skinning_layout){44, 32, -1, 16, 0, 4};
    layouts[6] = (cna_skinning_layout){48, 0, 12, -1, 24, 28};
    static unsigned char in_buf[MAXN * 80 + 8], ref[MAXN * 80], out_buf[MAXN * 80 + GUARD + 8];
    static _Alignas(64) unsigned char pal_buf[PALETTE * sizeof(cna_mat4) + 16];
    for (int li = 0; li < 7; li++)
        for (int k = 1; k <= 4; k++)
            for (size_t n = 1; n <= MAXN; n++) {
                const size_t shift = (size_t)(li + k + (int)n) % 4; /* 0..3 bytes off */
                const cna_skinning_layout *l = &layouts[li];
                const size_t bytes = n * l->stride;
                unsigned char *in = in_buf + shift, *out = out_buf + 3 - shift;
                cna_mat4 palette[PALETTE];
                random_palette(palette, PALETTE);
                /* the palette at 4, 8 or 12 bytes past a 64-byte boundary, or on it
                 * (a cna_mat4 needs only float alignment) */
                unsigned char *pal = pal_buf + 4 * shift;
                memcpy(pal, palette, sizeof palette);
                random_vertices_k(l, in, n, PALETTE, k);
                memset(out_buf, 0x5A, sizeof out_buf);
                skin_ok(l, in, n, palette, PALETTE, ref, bytes);
                cna_error err;
                if (variant_fast_path(l, in, n, (const cna_mat4 *)(const void *)pal,
                                                 PALETTE, out, bytes, kernel, &err) != CNA_OK)
                    fail_msg("fast path failed: %s", err.message);
                assert_true(check_fast_against_reference(l, in, n, palette, ref, out) <= 1.0);
                for (size_t b = 0; b < (size_t)(out - out_buf); b++)
                    assert_int_equal(out_buf[b], 0x5A);
                for (size_t b = bytes; b < bytes + GUARD; b++) assert_int_equal(out[b], 0x5A);
            }
}

/* cna_skin_vertices_fast runs the best kernel this build and CPU have
 * (AVX2 + FMA, then SSE2, then scalar), bit for bit; an unknown or
 * unsupported kernel number is refused by the hook. */
static void fast_path_dispatches_to_the_best_supported_kernel(void **state)
{
    (void)state;
    int best = 0;
    for (int k = 0; k < 3; k++)
        if (cna__skin_fast_kernel_supported(k)) best = k;
    assert_true(cna__skin_fast_kernel_supported(0));
    assert_int_equal(cna__skin_fast_kernel(), best);
    assert_string_equal(cna__skin_fast_kernel_name(0), "scalar");
    assert_string_equal(cna__skin_fast_kernel_name(1), "SSE2");
    assert_string_equal(cna__skin_fast_kernel_name(2), "AVX2+FMA");
    assert_null(cna__skin_fast_kernel_name(3));
#if defined(CNA_NO_SIMD)
    assert_int_equal(best, 0);
    assert_false(cna__skin_fast_kernel_supported(1));
    assert_false(cna__skin_fast_kernel_supported(2));
#endif
    print_message("fast path kernel here: %s\n", cna__skin_fast_kernel_name(best));
    enum { N = 101, PALETTE = 30 };
    cna_skinning_layout l;
    cna_skinning_layout_canonical(52, &l, NULL);
    static unsigned char in[N * 52], a[N * 52], b[N * 52];
    cna_mat4 palette[PALETTE];
    random_palette(palette, PALETTE);
    random_vertices(&l, in, N, PALETTE);
    assert_int_equal(cna_skin_vertices_fast(&l, in, N, palette, PALETTE, a, sizeof a, NULL),
                     CNA_OK);
    assert_int_equal(
        cna__skin_vertices_fast_path(&l, in, N, palette, PALETTE, b, sizeof b, best, NULL), CNA_OK);
    assert_memory_equal(a, b, sizeof a);
    cna_error err;
    memset(b, 0xAB, sizeof b);
    assert_int_equal(
        cna__skin_vertices_fast_path(&l, in, N, palette, PALETTE, b, sizeof b, 3, &err),
        CNA_ERROR_UNSUPPORTED);
    assert_string_equal(err.message, "kernel: 3 is not supported by this build or CPU");
    for (size_t i = 0; i < sizeof b; i++) assert_int_equal(b[i], 0xAB);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(canonical_skinning_layouts_follow_the_stride_table),
        cmocka_unit_test(unskinned_stride_is_not_a_skinning_layout),
        cmocka_unit_test(identity_palette_returns_the_input_exactly),
        cmocka_unit_test(translation_palette_moves_positions_but_not_normals),
        cmocka_unit_test(four_influences_blend_with_their_weights),
        cmocka_unit_test(rotation_turns_position_normal_and_tangent_but_keeps_handedness),
        cmocka_unit_test(zero_weight_influence_never_reads_its_matrix),
        cmocka_unit_test(non_unit_normal_is_renormalised_and_zero_weights_give_zero),
        cmocka_unit_test(positions_only_equal_the_full_skin),
        cmocka_unit_test(palette_index_out_of_range_is_refused_naming_vertex_and_influence),
        cmocka_unit_test(bad_layouts_and_buffers_are_refused),
        KERNEL_TESTS(fast_path_agrees_with_reference_on_random_data),
        KERNEL_TESTS(fast_path_agrees_with_reference_on_robot_parts),
        KERNEL_TESTS(fast_path_refuses_exactly_as_the_reference),
        KERNEL_TESTS(fast_path_zero_weight_influence_never_reads_its_matrix),
        KERNEL_TESTS(fast_path_identity_and_translation_are_exact),
        KERNEL_TESTS(fast_path_tails_influence_counts_and_alignment),
        KERNEL_TESTS(fast_path_degenerate_directions_as_the_reference),
        KERNEL_TESTS(fast_path_ignores_palette_entries_no_joint_names),
        cmocka_unit_test(fast_path_dispatches_to_the_best_supported_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
