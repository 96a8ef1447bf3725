/*
 * The showcase tentacle of assets/Tentacle (its SOURCE.md): the files the
 * README's pictures are rendered from stay loadable and keep what the
 * pictures claim.
 *   - tentacle.gltf (150 joints) is refused without split_palettes, with the
 *     exact message; with it, its one primitive becomes 3 sub-parts whose
 *     sub-palettes have at most 72 entries, hold every triangle once and
 *     index their palette with every joint byte;
 *   - its material keeps the KHR_texture_transform scale (3, 12);
 *   - its tip, posed by a character at a key time and skinned on the CPU
 *     with the part palette, is where the file's joint chain puts it
 *     (computed here in double from the document's nodes, keys and inverse
 *     bind matrices);
 *   - tentacle-meshopt.glb (gltfpack -cc: EXT_meshopt_compression,
 *     KHR_mesh_quantization) loads with the same joint count, the same
 *     animation (name, duration) and triangle count, every sub-part of at
 *     most 72 entries; its texture coordinates, after its material's
 *     transform, span the source's tiles; posed at the same times, its
 *     vertices fill the source's box and its tip follows the source's,
 *     within what gltfpack's quantisation moves them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model/model_test.h"

#define SOURCE "tentacle.gltf"
#define PACKED "tentacle-meshopt.glb"
#define JOINTS 150
#define TRIANGLES 4832

static const char *asset_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/assets/Tentacle/%s", CNA_SOURCE_DIR, name);
    return buf;
}

static cna_model *load_split(const char *name)
{
    char path[1024];
    cna_import_options o;
    memset(&o, 0, sizeof o);
    o.split_palettes = true;
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_model_load_file(asset_path(path, sizeof path, name), &o, &m, &err);
    if (r) print_error("%s: %s\n", name, err.message);
    assert_int_equal(r, CNA_OK);
    assert_non_null(m);
    return m;
}

static void test_the_tentacle_is_refused_without_split_palettes(void **state)
{
    (void)state;
    static const char *const names[] = {SOURCE, PACKED};
    for (size_t f = 0; f < 2; f++) {
        char path[1024];
        cna_model *m = NULL;
        cna_error err;
        assert_int_equal(cna_model_load_file(asset_path(path, sizeof path, names[f]), NULL, &m, &err),
                         CNA_ERROR_LIMIT);
        assert_string_equal(err.message, "skins[0]: 150 joints; at most 72 are supported; import with "
                                         "split_palettes (cna convert --split-palettes) to split its parts");
        assert_null(m);
    }
}

/* The checks every split import of the tentacle passes: one skinned mesh of
 * `parts` sub-parts, each with a sub-palette of 1 to 72 ascending entries of
 * the 150-joint skin that its joint bytes index, TRIANGLES triangles in all. */
static void check_split(const cna_model *m, size_t parts)
{
    assert_int_equal(m->mesh_count, 1);
    assert_int_equal(m->skin_count, 1);
    assert_int_equal(m->skins[0].joint_count, JOINTS);
    const cna_model_mesh *mesh = &m->meshes[0];
    assert_int_equal(mesh->skin, 0);
    assert_int_equal(mesh->part_count, parts);
    size_t indices = 0;
    for (size_t k = 0; k < mesh->part_count; k++) {
        const cna_model_part *part = &mesh->parts[k];
        assert_int_equal(part->primitive_type, CNA_PRIMITIVE_TYPE_TRIANGLE_LIST);
        assert_int_equal(part->material, 0);
        assert_non_null(part->palette_map);
        assert_true(part->palette_map_count >= 1 && part->palette_map_count <= 72);
        for (size_t e = 0; e < part->palette_map_count; e++) {
            assert_true(part->palette_map[e] >= 0 && part->palette_map[e] < JOINTS);
            if (e) assert_true(part->palette_map[e] > part->palette_map[e - 1]);
        }
        const cna_vertex_element *je =
            cna_vertex_declaration_find(&part->declaration, CNA_VERTEX_USAGE_BLEND_INDICES, 0);
        assert_non_null(je);
        const unsigned char *v = (const unsigned char *)part->vertices;
        for (size_t q = 0; q < part->vertex_count; q++)
            for (size_t c = 0; c < 4; c++)
                assert_true(v[q * part->declaration.stride + je->offset + c] < part->palette_map_count);
        indices += part->index_count;
    }
    assert_int_equal(indices, 3 * TRIANGLES);
}

static void test_the_tentacle_splits_into_three_sub_palettes_of_at_most_72(void **state)
{
    (void)state;
    cna_model *m = load_split(SOURCE);
    check_split(m, 3);
    /* the greedy grouping in file order: rings bound to joints k - 1 and k,
     * so each sub-part covers a run of the chain */
    const cna_model_part *parts = m->meshes[0].parts;
    assert_int_equal(parts[0].palette_map_count, 72);
    assert_int_equal(parts[0].palette_map[0], 0);
    assert_int_equal(parts[0].palette_map[71], 71);
    assert_int_equal(parts[2].palette_map[parts[2].palette_map_count - 1], JOINTS - 1);
    assert_int_equal(m->animation_count, 1);
    assert_string_equal(cna_model_animation_name(m, 0), "Wave");
    cna_model_free(m);
}

static void test_the_material_repeats_the_texture_with_its_transform(void **state)
{
    (void)state;
    cna_model *m = load_split(SOURCE);
    const cna_effect *e = &m->effects[m->meshes[0].parts[0].effect];
    assert_true(cna_effect_kind_is_skinned(e->kind));
    assert_string_equal(e->params.name, "Skin");
    assert_int_equal(e->params.base_color.image, 0);
    assert_true(e->params.base_color.uv_scale[0] == 3.0f);
    assert_true(e->params.base_color.uv_scale[1] == 12.0f);
    assert_true(e->params.base_color.uv_offset[0] == 0.0f && e->params.base_color.uv_offset[1] == 0.0f);
    assert_int_equal(m->image_count, 1);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ posing */

/* Every part's vertices as the character draws them (skinned with the part
 * palette, then placed by the mesh's parent bone), concatenated; *count
 * receives the vertex count. */
static float *posed_vertices(const cna_character *c, const cna_model *m, size_t *count)
{
    const cna_model_mesh *mesh = &m->meshes[0];
    size_t n = 0;
    for (size_t k = 0; k < mesh->part_count; k++) n += mesh->parts[k].vertex_count;
    float *xyz = malloc(3 * n * sizeof *xyz);
    assert_non_null(xyz);
    const cna_mat4 *world = cna_character_absolute_transform(c, (size_t)mesh->parent_bone);
    size_t at = 0;
    for (size_t k = 0; k < mesh->part_count; k++) {
        const cna_model_part *part = &mesh->parts[k];
        size_t palette_count = 0;
        const cna_mat4 *palette = cna_character_part_palette(c, 0, k, &palette_count);
        assert_non_null(palette);
        assert_int_equal(palette_count, part->palette_map_count);
        cna_skinning_layout layout;
        assert_int_equal(cna_skinning_layout_canonical(part->declaration.stride, &layout, NULL), CNA_OK);
        cna_error err;
        cna_result r = cna_skin_positions(&layout, cna_character_part_vertices(c, 0, k, NULL), part->vertex_count,
                                          palette, palette_count, xyz + 3 * at, 3 * part->vertex_count, &err);
        if (r) print_error("%s\n", err.message);
        assert_int_equal(r, CNA_OK);
        for (size_t q = at; q < at + part->vertex_count; q++) {
            float *p = xyz + 3 * q, o[3];
            for (int row = 0; row < 3; row++)
                o[row] = world->m[row] * p[0] + world->m[4 + row] * p[1] + world->m[8 + row] * p[2] + world->m[12 + row];
            memcpy(p, o, sizeof o);
        }
        at += part->vertex_count;
    }
    *count = n;
    return xyz;
}

/* The vertex highest up the tube at rest (the tip: one vertex, above every
 * ring), as an index into posed_vertices' order; *rest receives its position. */
static size_t tip_index(const cna_model *m, float rest[3])
{
    size_t at = 0, best = 0;
    const cna_model_mesh *mesh = &m->meshes[0];
    for (size_t k = 0; k < mesh->part_count; k++) {
        const cna_model_part *part = &mesh->parts[k];
        for (size_t q = 0; q < part->vertex_count; q++, at++) {
            float p[3];
            memcpy(p, (const unsigned char *)part->vertices + q * part->declaration.stride, sizeof p);
            if (at == 0 || p[1] > rest[1]) {
                memcpy(rest, p, sizeof p);
                best = at;
            }
        }
    }
    return best;
}

static cna_character *posed_at(const cna_model *m, double t)
{
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, NULL), CNA_OK);
    assert_int_equal(cna_character_play(c, 0, NULL), CNA_OK);
    assert_int_equal(cna_character_seek(c, t, NULL), CNA_OK);
    assert_int_equal(cna_character_pose(c, NULL), CNA_OK);
    return c;
}

/* The posed position of the tip at a key time of the source file, by glTF
 * 2.0's formula in double: world[j] = world[j - 1] · T_j · R_j(t) down the
 * chain (Bone000 is a scene root, the mesh node is at the origin), then
 * world[149] · inverseBind[149] · tip. */
static void tip_by_the_chain(const cna_gltf_document *doc, size_t key, const float tip[3], double out[3])
{
    const cna_gltf_skin *skin = &doc->skins[0];
    float ibm[16 * JOINTS];
    assert_int_equal(cna_gltf_accessor_float_count(doc, skin->inverse_bind_matrices), 16 * JOINTS);
    assert_int_equal(cna_gltf_accessor_read_floats(doc, skin->inverse_bind_matrices, ibm, 16 * JOINTS, NULL),
                     CNA_OK);
    const float *inv = ibm + 16 * (JOINTS - 1);
    double p[3];
    for (int r = 0; r < 3; r++)
        p[r] = inv[r] * tip[0] + inv[4 + r] * tip[1] + inv[8 + r] * tip[2] + inv[12 + r];
    const cna_gltf_animation *a = &doc->animations[0];
    assert_int_equal(a->channel_count, JOINTS);
    /* from the tip joint down to the root: p = T_j + R_j · p */
    for (size_t j = JOINTS; j-- > 0;) {
        int32_t node = skin->joints[j];
        const cna_gltf_animation_channel *ch = NULL;
        for (size_t i = 0; i < a->channel_count; i++)
            if (a->channels[i].target_node == node) ch = &a->channels[i];
        assert_non_null(ch);
        assert_int_equal(ch->path, CNA_GLTF_PATH_ROTATION);
        const int32_t out_acc = a->samplers[ch->sampler].output;
        float keys[4 * 64];
        const size_t n = cna_gltf_accessor_float_count(doc, out_acc);
        assert_true(n <= 4 * 64 && 4 * key < n);
        assert_int_equal(cna_gltf_accessor_read_floats(doc, out_acc, keys, n, NULL), CNA_OK);
        const double x = keys[4 * key], y = keys[4 * key + 1], z = keys[4 * key + 2], w = keys[4 * key + 3];
        /* v' = v + 2 w (q × v) + 2 q × (q × v) */
        const double cx = y * p[2] - z * p[1], cy = z * p[0] - x * p[2], cz = x * p[1] - y * p[0];
        const double r[3] = {p[0] + 2 * (w * cx + y * cz - z * cy), p[1] + 2 * (w * cy + z * cx - x * cz),
                             p[2] + 2 * (w * cz + x * cy - y * cx)};
        const cna_gltf_node *nd = &doc->nodes[node];
        p[0] = r[0] + (double)nd->translation.x;
        p[1] = r[1] + (double)nd->translation.y;
        p[2] = r[2] + (double)nd->translation.z;
    }
    memcpy(out, p, sizeof p);
}

static void test_the_posed_tip_is_where_the_joint_chain_puts_it(void **state)
{
    (void)state;
    char path[1024];
    cna_gltf_document *doc = NULL;
    assert_int_equal(cna_gltf_load_file(asset_path(path, sizeof path, SOURCE), NULL, &doc, NULL), CNA_OK);
    cna_model *m = load_split(SOURCE);
    float tip[3];
    const size_t best = tip_index(m, tip);
    const double tol = 1e-5 * (double)m->size;
    static const size_t keys[] = {0, 6, 12, 19}; /* 0, 0.5, 1 and 1.583 s: 12 keys per second */
    double first[3] = {0}, worst = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        double want[3];
        tip_by_the_chain(doc, keys[i], tip, want);
        cna_character *c = posed_at(m, (double)keys[i] / 12.0);
        size_t n;
        float *xyz = posed_vertices(c, m, &n);
        for (int e = 0; e < 3; e++) {
            const double got = (double)xyz[3 * best + (size_t)e];
            if (fabs(got - want[e]) > worst) worst = fabs(got - want[e]);
            if (!(fabs(got - want[e]) <= tol))
                fail_msg("key %zu: tip[%d] %.9g, the chain gives %.9g", keys[i], e, got, want[e]);
        }
        if (i == 0) memcpy(first, want, sizeof first);
        else /* the wave moves the tip by more than a tube radius */
            assert_true(fabs(want[0] - first[0]) + fabs(want[2] - first[2]) > 0.3);
        free(xyz);
        cna_character_free(c);
    }
    print_message("largest difference %.3g (tolerance %.3g)\n", worst, tol);
    cna_model_free(m);
    cna_gltf_document_free(doc);
}

/* ------------------------------------------------------------ the compressed twin */

static void test_the_compressed_tentacle_has_the_sources_joints_and_animation(void **state)
{
    (void)state;
    cna_model *src = load_split(SOURCE);
    cna_model *packed = load_split(PACKED);
    /* gltfpack reorders the triangles for the vertex cache, so the grouping
     * in file order makes more, smaller sub-parts */
    check_split(packed, 3);
    assert_int_equal(packed->skins[0].joint_count, src->skins[0].joint_count);
    assert_int_equal(packed->animation_count, src->animation_count);
    assert_string_equal(cna_model_animation_name(packed, 0), "Wave");
    assert_int_equal(packed->skins[0].data.clip_count, 1);
    assert_int_equal(packed->skins[0].data.clips[0].duration, src->skins[0].data.clips[0].duration);
    assert_int_equal(packed->skins[0].data.clips[0].duration, 20000000); /* 2 s */
    /* the decoded 12-bit rotation keys are normalised, and said so */
    assert_non_null(cna_model_find_diagnostic(packed, "non-unit-quaternion"));
    assert_null(cna_model_find_diagnostic(src, "non-unit-quaternion"));
    cna_model_free(packed);
    cna_model_free(src);
}

/* The box of a model's texture coordinates after its material's transform. */
static void tiled_uv_box(const cna_model *m, float lo[2], float hi[2])
{
    const cna_model_mesh *mesh = &m->meshes[0];
    lo[0] = lo[1] = 1e30f;
    hi[0] = hi[1] = -1e30f;
    for (size_t k = 0; k < mesh->part_count; k++) {
        const cna_model_part *part = &mesh->parts[k];
        float t[9];
        cna_effect_texture_matrix(&m->effects[part->effect].params.base_color, t);
        const cna_vertex_element *ue = cna_vertex_declaration_find(&part->declaration, CNA_VERTEX_USAGE_TEXCOORD, 0);
        assert_non_null(ue);
        assert_int_equal(ue->format, CNA_VERTEX_FORMAT_FLOAT2);
        for (size_t q = 0; q < part->vertex_count; q++) {
            float uv[2];
            memcpy(uv, (const unsigned char *)part->vertices + q * part->declaration.stride + ue->offset, sizeof uv);
            for (int e = 0; e < 2; e++) {
                const float x = t[e] * uv[0] + t[3 + e] * uv[1] + t[6 + e];
                if (x < lo[e]) lo[e] = x;
                if (x > hi[e]) hi[e] = x;
            }
        }
    }
}

static void test_the_compressed_texture_transform_tiles_as_the_source(void **state)
{
    (void)state;
    cna_model *src = load_split(SOURCE);
    cna_model *packed = load_split(PACKED);
    float slo[2], shi[2], plo[2], phi[2];
    tiled_uv_box(src, slo, shi);
    tiled_uv_box(packed, plo, phi);
    /* the source: three tiles around, twelve along (the tip a little past) */
    assert_true(slo[0] == 0.0f && shi[0] == 3.0f);
    assert_true(slo[1] == 0.0f && shi[1] > 12.0f && shi[1] < 12.1f);
    /* gltfpack's 12-bit coordinates, its scale folded into the transform:
     * within a few steps of 1/4096 of the range */
    for (int e = 0; e < 2; e++) {
        const float range = shi[e] - slo[e];
        if (!(fabsf(plo[e] - slo[e]) <= range * 2e-3f && fabsf(phi[e] - shi[e]) <= range * 2e-3f))
            fail_msg("uv[%d]: packed [%.6g, %.6g], source [%.6g, %.6g]", e, (double)plo[e], (double)phi[e],
                     (double)slo[e], (double)shi[e]);
    }
    cna_model_free(packed);
    cna_model_free(src);
}

static void box_of(const float *xyz, size_t n, double lo[3], double hi[3])
{
    for (int e = 0; e < 3; e++) lo[e] = 1e30, hi[e] = -1e30;
    for (size_t q = 0; q < n; q++)
        for (int e = 0; e < 3; e++) {
            const double x = xyz[3 * q + (size_t)e];
            if (x < lo[e]) lo[e] = x;
            if (x > hi[e]) hi[e] = x;
        }
}

static void test_the_compressed_tentacle_poses_as_the_source(void **state)
{
    (void)state;
    cna_model *src = load_split(SOURCE);
    cna_model *packed = load_split(PACKED);
    /* gltfpack's quantisation (14-bit positions, 12-bit rotation keys at 30
     * Hz) moves a vertex by a small part of the size: 0.0021 of it at most
     * at these times */
    const double tol = 0.005 * (double)src->size;
    float rest[3];
    const size_t stip = tip_index(src, rest), ptip = tip_index(packed, rest);
    static const double times[] = {0.0, 0.5, 1.0, 1.25, 1.9};
    double worst = 0;
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        cna_character *cs = posed_at(src, times[i]), *cp = posed_at(packed, times[i]);
        size_t ns, np;
        float *s = posed_vertices(cs, src, &ns), *p = posed_vertices(cp, packed, &np);
        double slo[3], shi[3], plo[3], phi[3];
        box_of(s, ns, slo, shi);
        box_of(p, np, plo, phi);
        for (int e = 0; e < 3; e++) {
            const double d[3] = {fabs(plo[e] - slo[e]), fabs(phi[e] - shi[e]),
                                 fabs((double)p[3 * ptip + (size_t)e] - (double)s[3 * stip + (size_t)e])};
            for (int k = 0; k < 3; k++) {
                if (d[k] > worst) worst = d[k];
                if (!(d[k] <= tol))
                    fail_msg("t=%g axis %d: %s differs by %.6g (tolerance %.6g)", times[i], e,
                             k == 0 ? "box min" : k == 1 ? "box max" : "tip", d[k], tol);
            }
        }
        free(s);
        free(p);
        cna_character_free(cs);
        cna_character_free(cp);
    }
    print_message("largest difference %.3g of the size %.3g\n", worst / (double)src->size, (double)src->size);
    cna_model_free(packed);
    cna_model_free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_tentacle_is_refused_without_split_palettes),
        cmocka_unit_test(test_the_tentacle_splits_into_three_sub_palettes_of_at_most_72),
        cmocka_unit_test(test_the_material_repeats_the_texture_with_its_transform),
        cmocka_unit_test(test_the_posed_tip_is_where_the_joint_chain_puts_it),
        cmocka_unit_test(test_the_compressed_tentacle_has_the_sources_joints_and_animation),
        cmocka_unit_test(test_the_compressed_texture_transform_tiles_as_the_source),
        cmocka_unit_test(test_the_compressed_tentacle_poses_as_the_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
