/*
 * The mesh import on the hand-made fixtures of tests/data/fixtures-mesh
 * (SOURCE.md there says what each one holds): layout selection, index
 * conversion, influences, JOINTS rewriting, flat-normal split, morph import,
 * weight tracks, a character's morph weights, refusals.
 */
#include "mesh/mesh_test.h"

#include <stdlib.h>

#include "cna/character.h"
#include "cna/model.h"
#include "cna/skinning.h"
#include "model/mesh_internal.h"
#include "core/internal.h"

static cna_model *load(const char *name, const cna_import_options *opts)
{
    char path[1024], rel[256];
    snprintf(rel, sizeof rel, "fixtures-mesh/%s", name);
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(mesh_data_path(path, sizeof path, rel), opts, &m, &err) != CNA_OK)
        fail_msg("%s: %s", name, err.message);
    return m;
}

static cna_gltf_document *load_doc(const char *name)
{
    char path[1024], rel[256];
    snprintf(rel, sizeof rel, "fixtures-mesh/%s", name);
    cna_gltf_document *doc = NULL;
    cna_error err;
    if (cna_gltf_load_file(mesh_data_path(path, sizeof path, rel), NULL, &doc, &err) != CNA_OK)
        fail_msg("%s: %s", name, err.message);
    return doc;
}

static const unsigned char *vtx(const cna_model_part *part, size_t v)
{
    return (const unsigned char *)part->vertices + v * part->declaration.stride;
}

/* ------------------------------------------------------------------ layouts */

static void stride_selection_follows_the_documented_table(void **state)
{
    (void)state;
    /* skinned, tangent, texcoord1, colour -> stride */
    static const struct { bool s, t, u, c; uint32_t stride; } rows[16] = {
        {0, 0, 0, 0, 32}, {0, 1, 0, 0, 48}, {0, 0, 1, 0, 60}, {0, 1, 1, 0, 60},
        {0, 0, 0, 1, 60}, {0, 1, 0, 1, 60}, {0, 0, 1, 1, 60}, {0, 1, 1, 1, 60},
        {1, 0, 0, 0, 52}, {1, 0, 0, 1, 56}, {1, 1, 0, 0, 68}, {1, 0, 1, 0, 76},
        {1, 1, 1, 0, 76}, {1, 1, 0, 1, 80}, {1, 0, 1, 1, 80}, {1, 1, 1, 1, 80}};
    for (int i = 0; i < 16; i++)
        assert_int_equal(cna__vertex_stride_select(rows[i].s, rows[i].t, rows[i].u, rows[i].c),
                         rows[i].stride);
}

static void declarations_agree_with_the_morph_and_skinning_layouts(void **state)
{
    (void)state;
    const uint32_t strides[8] = {32, 52, 56, 48, 60, 68, 76, 80};
    for (int i = 0; i < 8; i++) {
        cna_vertex_declaration d;
        assert_int_equal(cna_vertex_declaration_canonical(strides[i], &d, NULL), CNA_OK);
        assert_int_equal(d.stride, strides[i]);
        uint32_t end = 0;
        for (uint32_t e = 0; e < d.element_count; e++) {
            static const uint32_t sizes[CNA_VERTEX_FORMAT_COUNT] = {0, 8, 12, 16, 4, 4};
            assert_true(d.elements[e].offset >= end); /* ascending, no overlap */
            end = d.elements[e].offset + sizes[d.elements[e].format];
        }
        assert_int_equal(end, strides[i]); /* no padding */
        cna_morph_layout ml;
        assert_int_equal(cna_morph_layout_canonical(strides[i], &ml, NULL), CNA_OK);
        const cna_vertex_element *n = cna_vertex_declaration_find(&d, CNA_VERTEX_USAGE_NORMAL, 0);
        const cna_vertex_element *t = cna_vertex_declaration_find(&d, CNA_VERTEX_USAGE_TANGENT, 0);
        assert_int_equal((int32_t)n->offset, ml.normal_offset);
        assert_int_equal(t ? (int32_t)t->offset : -1, ml.tangent_offset);
        const cna_vertex_element *j =
            cna_vertex_declaration_find(&d, CNA_VERTEX_USAGE_BLEND_INDICES, 0);
        cna_skinning_layout sl;
        if (j) {
            assert_int_equal(cna_skinning_layout_canonical(strides[i], &sl, NULL), CNA_OK);
            assert_int_equal((int32_t)j->offset, sl.joints_offset);
            assert_int_equal(j->format, CNA_VERTEX_FORMAT_UBYTE4);
            assert_int_equal(
                (int32_t)cna_vertex_declaration_find(&d, CNA_VERTEX_USAGE_BLEND_WEIGHTS, 0)->offset,
                sl.weights_offset);
        } else {
            assert_int_equal(cna_skinning_layout_canonical(strides[i], &sl, NULL),
                             CNA_ERROR_INVALID_ARGUMENT);
        }
    }
    cna_vertex_declaration d;
    cna_error err;
    assert_int_equal(cna_vertex_declaration_canonical(36, &d, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "stride: 36 is not a canonical stride (32, 52, 56, 48, 60, 68, 76, 80)");
}

/* ------------------------------------------------------------------ modes */

static void strips_fans_and_loops_become_lists(void **state)
{
    (void)state;
    cna_model *m = load("mesh-modes.gltf", NULL);
    assert_int_equal(m->mesh_count, 1);
    const cna_model_mesh *mesh = &m->meshes[0];
    assert_int_equal(mesh->part_count, 6);
    /* fan 0 1 2 3 4: p_i = {v_{i+1}, v_{i+2}, v_0} */
    const uint32_t fan[9] = {1, 2, 0, 2, 3, 0, 3, 4, 0};
    assert_int_equal(mesh->parts[0].primitive_type, CNA_PRIMITIVE_TYPE_TRIANGLE_LIST);
    assert_int_equal(mesh->parts[0].index_count, 9);
    assert_memory_equal(mesh->parts[0].indices, fan, sizeof fan);
    const uint32_t loop[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 0};
    assert_int_equal(mesh->parts[1].primitive_type, CNA_PRIMITIVE_TYPE_LINE_LIST);
    assert_int_equal(mesh->parts[1].index_count, 10);
    assert_memory_equal(mesh->parts[1].indices, loop, sizeof loop);
    const uint32_t points[5] = {0, 1, 2, 3, 4};
    assert_int_equal(mesh->parts[2].primitive_type, CNA_PRIMITIVE_TYPE_POINT_LIST);
    assert_int_equal(mesh->parts[2].index_count, 5);
    assert_memory_equal(mesh->parts[2].indices, points, sizeof points);
    assert_null(mesh->parts[2].source_vertex); /* points without normals are not split */
    const uint32_t strip[8] = {0, 1, 1, 2, 2, 3, 3, 4};
    assert_int_equal(mesh->parts[4].primitive_type, CNA_PRIMITIVE_TYPE_LINE_LIST);
    assert_memory_equal(mesh->parts[4].indices, strip, sizeof strip);
    cna_model_free(m);
}

static void incomplete_triangles_are_dropped_with_a_diagnostic(void **state)
{
    (void)state;
    cna_model *m = load("mesh-modes.gltf", NULL);
    const cna_model_part *p3 = &m->meshes[0].parts[3];
    const uint32_t first6[6] = {0, 1, 2, 2, 3, 0};
    assert_int_equal(p3->index_count, 6);
    assert_memory_equal(p3->indices, first6, sizeof first6);
    const cna_model_diagnostic *d = cna_model_find_diagnostic(m, CNA_MODEL_DIAG_INDICES_INCOMPLETE);
    assert_non_null(d);
    assert_int_equal(d->count, 3); /* 1 of primitive 3, 2 of primitive 5 */
    assert_string_equal(d->message, "meshes[0].primitives[3] (nodes[0]): 7 indices (mode TRIANGLES) "
                                    "do not form whole triangles; the last 1 are ignored");
    cna_model_free(m);
}

static void colour_and_second_texcoord_select_stride_60_with_defaults(void **state)
{
    (void)state;
    cna_model *m = load("mesh-modes.gltf", NULL);
    const cna_model_part *p = &m->meshes[0].parts[3];
    assert_int_equal(p->declaration.stride, 60);
    assert_int_equal(p->vertex_count, 5);
    const uint8_t rgba3[4] = {10, 20, 30, 255};
    assert_memory_equal(vtx(p, 3) + 56, rgba3, 4);
    const uint8_t rgba0[4] = {255, 0, 0, 255};
    assert_memory_equal(vtx(p, 0) + 56, rgba0, 4);
    assert_float_exact(mesh_get_float(vtx(p, 2), 48), 0.5f);
    assert_float_exact(mesh_get_float(vtx(p, 2), 52), 0.25f);
    /* no TANGENT: direction (0,0,0), handedness +1; no TEXCOORD_0: zeros */
    const float none[4] = {0, 0, 0, 1};
    for (int c = 0; c < 4; c++) assert_float_exact(mesh_get_float(vtx(p, 1), 32 + 4 * (size_t)c), none[c]);
    assert_float_exact(mesh_get_float(vtx(p, 1), 24), 0.0f);
    /* the tangent primitive (with normals) is PBR stride 48 and keeps the file's tangent */
    const cna_model_part *p4 = &m->meshes[0].parts[4];
    assert_int_equal(p4->declaration.stride, 48);
    assert_float_exact(mesh_get_float(vtx(p4, 4), 32), 1.0f);
    assert_float_exact(mesh_get_float(vtx(p4, 4), 44), -1.0f);
    cna_model_free(m);
}

static void tangent_without_normal_is_ignored_and_split_flat(void **state)
{
    (void)state;
    cna_model *m = load("mesh-modes.gltf", NULL);
    const cna_model_part *p = &m->meshes[0].parts[5];
    assert_int_equal(p->declaration.stride, 32);
    /* the triangle's three corners, then the file vertices it does not use */
    assert_int_equal(p->source_vertex_count, 5);
    assert_int_equal(p->vertex_count, 5);
    const uint32_t src[5] = {0, 1, 2, 3, 4};
    assert_non_null(p->source_vertex);
    assert_memory_equal(p->source_vertex, src, sizeof src);
    assert_float_exact(mesh_get_float(vtx(p, 2), 20), 1.0f); /* normal +Z */
    cna_model_free(m);
}

/* ------------------------------------------------------------------ influences */

static void joints_are_rewritten_through_ordinal_to_palette(void **state)
{
    (void)state;
    cna_model *m = load("mesh-influences.gltf", NULL);
    assert_int_equal(m->skin_count, 1);
    const cna_model_skin *skin = &m->skins[0];
    const int32_t map[3] = {2, 0, 1}; /* joints [3, 1, 2]: J2, J0, J1; palette J0, J1, J2 */
    assert_memory_equal(skin->ordinal_to_palette, map, sizeof map);
    const cna_model_part *p = &m->meshes[0].parts[0];
    assert_int_equal(p->declaration.stride, 52);
    assert_null(p->source_vertex);
    /* vertex 2: JOINTS_0 (2, 0, 0, 0), weights (1, 0, 0, 0) exactly */
    const uint8_t j2[4] = {1, 2, 2, 2};
    assert_memory_equal(vtx(p, 2) + 32, j2, 4);
    const float w2[4] = {1, 0, 0, 0};
    for (int c = 0; c < 4; c++) assert_float_exact(mesh_get_float(vtx(p, 2), 36 + 4 * (size_t)c), w2[c]);
    /* vertex 3: (1, 2, 9, 0) with the 9 at weight 0 -> palette (0, 1, 0, 2) */
    const uint8_t j3[4] = {0, 1, 0, 2};
    assert_memory_equal(vtx(p, 3) + 32, j3, 4);
    cna_model_free(m);
}

static void more_than_four_influences_keep_the_four_largest_renormalised(void **state)
{
    (void)state;
    cna_model *m = load("mesh-influences.gltf", NULL);
    const cna_model_part *p = &m->meshes[0].parts[0];
    /* vertex 0: 0.3 (j0), 0.2 (j1) of set 0 and 0.15 (j1), 0.12 (j2) of set 1 */
    const uint8_t j[4] = {2, 0, 0, 1};
    assert_memory_equal(vtx(p, 0) + 32, j, 4);
    const float kept[4] = {0.3f, 0.2f, 0.15f, 0.12f};
    const double sum = (double)kept[0] + (double)kept[1] + (double)kept[2] + (double)kept[3];
    for (int c = 0; c < 4; c++)
        assert_float_exact(mesh_get_float(vtx(p, 0), 36 + 4 * (size_t)c),
                           (float)((double)kept[c] / sum));
    const cna_model_diagnostic *d = cna_model_find_diagnostic(m, CNA_MODEL_DIAG_INFLUENCES_TRUNCATED);
    assert_non_null(d);
    assert_int_equal(d->count, 1);
    assert_string_equal(d->message,
                        "meshes[0].primitives[0] (nodes[0]): vertex 0 has 7 influences; the 4 "
                        "largest (0.300000012, 0.200000003, 0.150000006, 0.119999997) are kept "
                        "and renormalised");
    cna_model_free(m);
}

static void weights_off_by_more_than_1e3_are_normalised(void **state)
{
    (void)state;
    cna_model *m = load("mesh-influences.gltf", NULL);
    const cna_model_part *p = &m->meshes[0].parts[0];
    const float w[4] = {0.5f, 0.5f, 0.0f, 0.0f}; /* (0.25, 0.25, 0, 0) / 0.5 */
    for (int c = 0; c < 4; c++) assert_float_exact(mesh_get_float(vtx(p, 1), 36 + 4 * (size_t)c), w[c]);
    const uint8_t j[4] = {2, 0, 2, 2};
    assert_memory_equal(vtx(p, 1) + 32, j, 4);
    const cna_model_diagnostic *d = cna_model_find_diagnostic(m, CNA_MODEL_DIAG_WEIGHTS_RENORMALIZED);
    assert_non_null(d);
    assert_int_equal(d->count, 1);
    assert_string_equal(d->message, "meshes[0].primitives[0] (nodes[0]): the weights (0.25, 0.25, "
                                    "0, 0) of vertex 1 sum to 0.5; normalised");
    /* vertex 3 sums to exactly 1: the file's weights, no diagnostic of its own */
    assert_float_exact(mesh_get_float(vtx(p, 3), 36), 0.5f);
    cna_model_free(m);
}

static cna_result pack_with_map(const cna_gltf_document *doc, const int32_t *map, size_t count,
                                cna_error *err)
{
    cna__pack_input in;
    memset(&in, 0, sizeof in);
    in.doc = doc;
    in.ordinal_to_palette = map;
    in.joint_count = count;
    in.unit_scale = 1.0f;
    cna__packed p;
    memset(&p, 0xCD, sizeof p);
    cna_result r = cna__pack_primitive(NULL, &in, &p, err);
    if (r == CNA_OK) cna__packed_release(NULL, &p);
    return r;
}

static void joint_not_below_the_joint_count_is_refused(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_doc("mesh-influences.gltf");
    const int32_t map[1] = {0};
    cna_error err;
    assert_int_equal(pack_with_map(doc, map, 1, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "meshes[0].primitives[0] (nodes[0]): JOINTS_0 of vertex 0, "
                                     "component 1: joint 1 is not below the joint count 1 of "
                                     "skins[0]");
    cna_gltf_document_free(doc);
}

static void palette_index_not_fitting_a_byte_is_refused(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_doc("mesh-influences.gltf");
    const int32_t map[3] = {0, 300, 1};
    cna_error err;
    assert_int_equal(pack_with_map(doc, map, 3, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "meshes[0].primitives[0] (nodes[0]): JOINTS_0 of vertex 0, "
                                     "component 1: joint 1 maps to palette index 300, which does "
                                     "not fit a byte");
    const int32_t ok[3] = {2, 0, 1};
    assert_int_equal(pack_with_map(doc, ok, 3, &err), CNA_OK);
    cna_gltf_document_free(doc);
}

/* ------------------------------------------------------------------ flat normals, morph */

static void primitive_without_normals_is_fully_split_with_flat_normals(void **state)
{
    (void)state;
    cna_model *m = load("mesh-flat-strip.gltf", NULL);
    assert_int_equal(m->mesh_count, 2);
    for (size_t i = 0; i < 2; i++) {
        const cna_model_part *p = &m->meshes[i].parts[0];
        assert_int_equal(p->vertex_count, 6);
        const uint32_t src[6] = {0, 1, 2, 1, 3, 2}; /* strip: (0 1 2), (1 3 2) */
        const uint32_t idx[6] = {0, 1, 2, 3, 4, 5};
        assert_memory_equal(p->source_vertex, src, sizeof src);
        assert_int_equal(p->source_vertex_count, 4); /* the file's vertex count */
        assert_memory_equal(p->indices, idx, sizeof idx);
        const float file[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
        for (size_t v = 0; v < 6; v++) {
            for (size_t c = 0; c < 3; c++)
                assert_float_exact(mesh_get_float(vtx(p, v), 4 * c), file[src[v]][c]);
            assert_true(mesh_get_float(vtx(p, v), 12) == 0.0f);
            assert_true(mesh_get_float(vtx(p, v), 16) == 0.0f);
            assert_float_exact(mesh_get_float(vtx(p, v), 20), 1.0f);
        }
        assert_non_null(p->morph);
        assert_true(p->morph->recompute_flat_normals);
        assert_ptr_equal(p->morph->triangle_indices, p->indices);
        assert_int_equal(p->morph->triangle_index_count, 6);
    }
    cna_model_free(m);
}

static void sparse_target_deltas_follow_the_split(void **state)
{
    (void)state;
    cna_model *m = load("mesh-flat-strip.gltf", NULL);
    const cna_morph_target_data *d = m->meshes[0].parts[0].morph;
    assert_int_equal(d->target_count, 1);
    const cna_morph_deltas *pos = &d->targets[0].positions;
    assert_int_equal(pos->count, 1);
    assert_non_null(pos->indices);
    assert_int_equal(pos->indices[0], 4); /* file vertex 3 became part vertex 4 */
    assert_float_exact(pos->values[2], 2.0f);
    assert_int_equal(d->targets[0].normals.count, 0);
    assert_int_equal(cna_morph_target_data_validate(d, NULL), CNA_OK);
    cna_model_free(m);
}

static void initial_weights_are_the_nodes_else_the_meshs_and_blended_by_a_fresh_character(void **state)
{
    (void)state;
    cna_model *m = load("mesh-flat-strip.gltf", NULL);
    cna_character *ch = NULL;
    assert_int_equal(cna_character_create(m, NULL, &ch, NULL), CNA_OK);
    /* scene [1, 0]: mesh 0 is node 1 (own weights 1.0), mesh 1 node 0 (mesh weights 0.5) */
    assert_int_equal(m->meshes[0].gltf_node, 1);
    assert_int_equal(m->meshes[1].gltf_node, 0);
    const float expect[2] = {1.0f, 0.5f};
    for (size_t i = 0; i < 2; i++) {
        const cna_model_part *p = &m->meshes[i].parts[0];
        assert_int_equal(p->morph->initial_weight_count, 1);
        assert_float_exact(p->morph->initial_weights[0], expect[i]);
        size_t n = 0;
        const float *w = cna_character_morph_weights(ch, i, 0, &n);
        assert_int_equal(n, 1);
        assert_float_exact(w[0], expect[i]);
        size_t size = 0;
        const unsigned char *now = cna_character_part_vertices(ch, i, 0, &size);
        assert_int_equal(size, 6 * 32);
        assert_float_exact(mesh_get_float(now + 4 * 32, 8), 2.0f * expect[i]);
        /* the morphed triangle's normal is recomputed from the morphed positions */
        float p0[3] = {1, 0, 0}, p1[3] = {1, 1, 2.0f * expect[i]}, p2[3] = {0, 1, 0}, n3[3];
        cna__flat_normal(p0, p1, p2, n3);
        for (size_t c = 0; c < 3; c++) assert_float_exact(mesh_get_float(now + 3 * 32, 12 + 4 * c), n3[c]);
    }
    /* the two placements of the glTF mesh share its packed data, each with its own carrier */
    const cna_model_part *p0 = &m->meshes[0].parts[0], *p1 = &m->meshes[1].parts[0];
    assert_ptr_equal(p0->vertices, p1->vertices);
    assert_ptr_equal(p0->indices, p1->indices);
    assert_ptr_equal(p0->source_vertex, p1->source_vertex);
    assert_ptr_equal(p0->morph->targets, p1->morph->targets);
    assert_ptr_equal(p0->morph->base_vertices, p1->morph->base_vertices);
    assert_true(p0->morph != p1->morph);
    /* bounds describe the loaded pose: mesh 0's vertex reaches z = 2 */
    assert_float_exact(m->meshes[0].bounds.center.z, 1.0f);
    assert_float_exact(m->meshes[1].bounds.center.z, 0.5f);
    assert_true(m->meshes[0].bounds.radius >= 1.2247448f);
    assert_true(m->meshes[0].bounds.radius <= nextafterf(1.2247449f, 2.0f));
    cna_character_free(ch);
    cna_model_free(m);
}

static void weight_track_comes_from_the_first_node_in_file_order_with_tangents(void **state)
{
    (void)state;
    cna_model *m = load("mesh-flat-strip.gltf", NULL);
    for (size_t i = 0; i < 2; i++) {
        const cna_model_part *p = &m->meshes[i].parts[0];
        assert_int_equal(p->weight_track_count, 1);
        const cna_morph_weight_track *t = p->weight_tracks[0];
        assert_non_null(t);
        assert_ptr_equal(p->morph->weight_track, t);
        assert_int_equal(t->interpolation, CNA_MORPH_INTERPOLATION_CUBICSPLINE);
        assert_int_equal(t->key_count, 2);
        assert_int_equal(t->target_count, 1);
        assert_float_exact(t->times[1], 1.0f);
        assert_float_exact(t->values[0], 0.0f);
        assert_float_exact(t->values[1], 1.0f);
        assert_float_exact(t->out_tangents[0], 2.0f);
        assert_float_exact(t->in_tangents[1], -1.0f);
        /* Hermite at s = 0.5, dt = 1: 0.125 * 2 + 0.5 * 1 + (-0.125) * (-1) = 0.875 */
        float w = 0;
        size_t n = 0;
        assert_int_equal(cna_morph_evaluate_weights(t, 0.5, &w, 1, &n, NULL), CNA_OK);
        assert_float_exact(w, 0.875f);
    }
    cna_model_free(m);
}

static void set_morph_weights_blends_and_stores_on_a_character(void **state)
{
    (void)state;
    cna_model *m = load("mesh-flat-strip.gltf", NULL);
    const cna_model_part *p = &m->meshes[1].parts[0];
    cna_character *ch = NULL;
    assert_int_equal(cna_character_create(m, NULL, &ch, NULL), CNA_OK);
    const uint64_t revision = cna_character_part_revision(ch, 1, 0);
    const float zero = 0.0f;
    assert_int_equal(cna_character_set_morph_weights(ch, 1, 0, &zero, 1, NULL), CNA_OK);
    assert_true(cna_character_part_revision(ch, 1, 0) != revision);
    assert_memory_equal(cna_character_part_vertices(ch, 1, 0, NULL), p->vertices, 6 * 32); /* base exactly */
    assert_float_exact(cna_character_morph_weights(ch, 1, 0, NULL)[0], 0.0f);
    /* the model keeps its loaded pose */
    assert_float_exact(p->morph->initial_weights[0], 0.5f);
    cna_character_free(ch);
    cna_model_free(m);
}

static void set_morph_weights_refuses_parts_without_targets_and_wrong_counts(void **state)
{
    (void)state;
    cna_model *m = load("mesh-influences.gltf", NULL);
    cna_character *ch = NULL;
    assert_int_equal(cna_character_create(m, NULL, &ch, NULL), CNA_OK);
    const float w[2] = {1, 1};
    cna_error err;
    assert_int_equal(cna_character_set_morph_weights(ch, 0, 0, w, 1, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "meshes[0] \"quad\".parts[0]: no morph targets");
    assert_int_equal(cna_character_set_morph_weights(ch, 1, 0, w, 1, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "meshes[1]: outside the model's 1 meshes");
    cna_character_free(ch);
    cna_model_free(m);
    m = load("mesh-flat-strip.gltf", NULL);
    assert_int_equal(cna_character_create(m, NULL, &ch, NULL), CNA_OK);
    unsigned char before[6 * 32];
    memcpy(before, cna_character_part_vertices(ch, 0, 0, NULL), sizeof before);
    assert_int_equal(cna_character_set_morph_weights(ch, 0, 0, w, 2, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "weights: 2 given for 1 "
                                     "targets; exactly 1 are required (no padding, no truncation)");
    assert_memory_equal(cna_character_part_vertices(ch, 0, 0, NULL), before, sizeof before);
    cna_character_free(ch);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ refusal paths leak nothing */

typedef struct failing {
    size_t left;   /* allocations allowed before failing */
    size_t live;
} failing;

static void *failing_alloc(void *user, size_t size)
{
    failing *f = user;
    if (f->left == 0) return NULL;
    f->left--;
    void *p = malloc(size);
    if (p) f->live++;
    return p;
}

static void failing_free(void *user, void *ptr)
{
    failing *f = user;
    f->live--;
    free(ptr);
}

static void import_fails_cleanly_at_every_allocation(void **state)
{
    (void)state;
    const char *names[3] = {"mesh-flat-strip.gltf", "mesh-influences.gltf", "mesh-modes.gltf"};
    for (int i = 0; i < 3; i++) {
        cna_gltf_document *doc = load_doc(names[i]);
        bool done = false;
        for (size_t budget = 0; !done && budget < 100000; budget++) {
            failing f = {budget, 0};
            cna_import_options opts;
            memset(&opts, 0, sizeof opts);
            opts.allocator.alloc = failing_alloc;
            opts.allocator.free = failing_free;
            opts.allocator.user_data = &f;
            cna_model *m = NULL;
            cna_error err;
            cna_result r = cna_model_import_gltf(doc, &opts, &m, &err);
            if (r == CNA_OK) {
                cna_model_free(m);
                done = true;
            } else {
                assert_int_equal(r, CNA_ERROR_OUT_OF_MEMORY);
                assert_null(m);
            }
            assert_int_equal(f.live, 0);
        }
        assert_true(done);
        cna_gltf_document_free(doc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stride_selection_follows_the_documented_table),
        cmocka_unit_test(declarations_agree_with_the_morph_and_skinning_layouts),
        cmocka_unit_test(strips_fans_and_loops_become_lists),
        cmocka_unit_test(incomplete_triangles_are_dropped_with_a_diagnostic),
        cmocka_unit_test(colour_and_second_texcoord_select_stride_60_with_defaults),
        cmocka_unit_test(tangent_without_normal_is_ignored_and_split_flat),
        cmocka_unit_test(joints_are_rewritten_through_ordinal_to_palette),
        cmocka_unit_test(more_than_four_influences_keep_the_four_largest_renormalised),
        cmocka_unit_test(weights_off_by_more_than_1e3_are_normalised),
        cmocka_unit_test(joint_not_below_the_joint_count_is_refused),
        cmocka_unit_test(palette_index_not_fitting_a_byte_is_refused),
        cmocka_unit_test(primitive_without_normals_is_fully_split_with_flat_normals),
        cmocka_unit_test(sparse_target_deltas_follow_the_split),
        cmocka_unit_test(initial_weights_are_the_nodes_else_the_meshs_and_blended_by_a_fresh_character),
        cmocka_unit_test(weight_track_comes_from_the_first_node_in_file_order_with_tangents),
        cmocka_unit_test(set_morph_weights_blends_and_stores_on_a_character),
        cmocka_unit_test(set_morph_weights_refuses_parts_without_targets_and_wrong_counts),
        cmocka_unit_test(import_fails_cleanly_at_every_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
