/*
 * The reference CPU skinning (include/cna/skinning.h), on hand-made stride-52
 * vertices (P N U0 J W) and stride-68 vertices (P N U0 T J W): one test per
 * rule, exact values.
 */
#include "mesh/mesh_test.h"

#include "cna/skinning.h"

typedef struct vtx {
    float p[3], n[3], uv[2], t[4];
    uint8_t j[4];
    float w[4];
} vtx;

/* Pack into a canonical skinned layout (52: no tangent; 68: tangent at 32). */
static void pack(unsigned char *out, const vtx *v, size_t count, uint32_t stride)
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
