/*
 * Split palettes (cna_import_options.split_palettes): rigs of 100 and 300
 * joints, whose parts cannot be drawn with one palette of 72, are split into
 * sub-parts of at most 72 palette entries. Checked on three fixtures
 * (tests/data/fixtures/SOURCE.md): two meshes sharing one 300-joint skin,
 * two skins (100 and 300 joints) on separate meshes, a morph target on a
 * skinned part (no normals, so the flat-normal split too):
 *   - every part of a big skin is split, each sub-palette has at most 72
 *     entries inside the skin, and its joint bytes index it;
 *   - every triangle of the file appears exactly once among the sub-parts,
 *     and every vertex keeps the file's position, weights, joints (mapped
 *     back through palette_map and the skin's palette_to_ordinal) and
 *     morph deltas;
 *   - posed positions (CPU skinning of each part with
 *     cna_character_part_palette, morph weights applied) equal the glTF 2.0
 *     formula computed here in double precision from the document's nodes,
 *     animation samplers and inverse bind matrices, within 1e-5 of the
 *     model size, at keys and between keys;
 *   - the split model written to .cnb and loaded back poses bit for bit as
 *     the glTF import;
 *   - posing a character of a split model allocates nothing;
 *   - without the option each file is refused with the exact message; a
 *     skin of 72 joints or fewer is never split;
 *   - the palette order of skins of thousands of joints (random trees, joints
 *     listed shuffled, some under non-joint nodes) is the breadth-first order
 *     computed here the plain quadratic way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model/model_test.h"

static const char *const fixtures[] = {
    "fixtures/split-shared-skin.gltf",
    "fixtures/split-two-skins.gltf",
    "fixtures/split-morph.gltf",
};
#define FIXTURE_COUNT (sizeof fixtures / sizeof fixtures[0])

/* Sample times: the keys (0, 1, 2 s) and between them. */
static const double times[] = {0.0, 0.37, 1.0, 1.5, 2.0};

static cna_gltf_document *load_doc(const char *rel)
{
    char path[1024];
    cna_gltf_document *doc = NULL;
    cna_error err;
    cna_result r = cna_gltf_load_file(model_test_path(path, sizeof path, rel), NULL, &doc, &err);
    if (r) print_error("%s: %s\n", rel, err.message);
    assert_int_equal(r, CNA_OK);
    return doc;
}

static cna_model *import_split(const cna_gltf_document *doc)
{
    cna_import_options o;
    memset(&o, 0, sizeof o);
    o.split_palettes = true;
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_model_import_gltf(doc, &o, &m, &err);
    if (r) print_error("import: %s\n", err.message);
    assert_int_equal(r, CNA_OK);
    return m;
}

static float *read_floats(const cna_gltf_document *doc, int32_t accessor, size_t *count)
{
    size_t n = cna_gltf_accessor_float_count(doc, accessor);
    float *v = malloc((n ? n : 1) * sizeof *v);
    assert_non_null(v);
    assert_int_equal(cna_gltf_accessor_read_floats(doc, accessor, v, n, NULL), CNA_OK);
    if (count) *count = n;
    return v;
}

static uint32_t *read_uints(const cna_gltf_document *doc, int32_t accessor, size_t *count)
{
    size_t n = cna_gltf_accessor_float_count(doc, accessor);
    uint32_t *v = malloc((n ? n : 1) * sizeof *v);
    assert_non_null(v);
    assert_int_equal(cna_gltf_accessor_read_uints(doc, accessor, v, n, NULL), CNA_OK);
    if (count) *count = n;
    return v;
}

/* ------------------------------------------------------------------ the glTF formula, in double */

typedef struct dmat {
    double m[16]; /* column-major */
} dmat;

static dmat dmul(const dmat *a, const dmat *b)
{
    dmat r;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a->m[k * 4 + row] * b->m[c * 4 + k];
            r.m[c * 4 + row] = s;
        }
    return r;
}

static dmat dtrs(const double t[3], const double q[4], const double s[3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    const double len = sqrt(x * x + y * y + z * z + w * w);
    x /= len, y /= len, z /= len, w /= len;
    dmat m = {{1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0,
               2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0,
               2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0,
               t[0], t[1], t[2], 1}};
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) m.m[c * 4 + row] *= s[c];
    return m;
}

/* A LINEAR sampler at t: out (comps values) and the segment found. */
static void sample_linear(const cna_gltf_document *doc, const cna_gltf_animation_sampler *s, double t,
                          size_t comps, bool rotation, double *out)
{
    size_t n = 0, vn = 0;
    float *in = read_floats(doc, s->input, &n);
    float *v = read_floats(doc, s->output, &vn);
    assert_int_equal(vn, n * comps);
    size_t i = 0;
    double u = 0;
    if (t <= in[0]) {
        i = 0, u = 0;
    } else if (t >= in[n - 1]) {
        i = n - 1, u = 0;
    } else {
        while (!(t < in[i + 1])) i++;
        u = (t - in[i]) / ((double)in[i + 1] - in[i]);
    }
    const float *a = v + i * comps, *b = i + 1 < n ? v + (i + 1) * comps : a;
    if (!rotation) {
        for (size_t c = 0; c < comps; c++) out[c] = (1 - u) * a[c] + u * (double)b[c];
    } else {
        /* glTF 2.0: spherical linear interpolation */
        double d = 0, bb[4];
        for (int c = 0; c < 4; c++) d += (double)a[c] * b[c];
        for (int c = 0; c < 4; c++) bb[c] = d < 0 ? -(double)b[c] : b[c];
        d = fabs(d);
        if (d > 1 - 1e-12) {
            for (int c = 0; c < 4; c++) out[c] = (1 - u) * a[c] + u * bb[c];
        } else {
            const double th = acos(d), st = sin(th);
            for (int c = 0; c < 4; c++) out[c] = (sin((1 - u) * th) * a[c] + sin(u * th) * bb[c]) / st;
        }
    }
    free(in);
    free(v);
}

typedef struct reference {
    const cna_gltf_document *doc;
    dmat *world;        /* per glTF node at the time */
    double *weights;    /* per glTF node: the morph weight of target 0 (one target at most here) */
} reference;

static void reference_pose(reference *ref, double t)
{
    const cna_gltf_document *doc = ref->doc;
    const size_t n = doc->node_count;
    double *tr = calloc(n * 10, sizeof *tr); /* t[3] q[4] s[3] per node */
    assert_non_null(tr);
    for (size_t i = 0; i < n; i++) {
        const cna_gltf_node *nd = &doc->nodes[i];
        assert_false(nd->has_matrix);
        double *p = tr + 10 * i;
        p[0] = nd->translation.x, p[1] = nd->translation.y, p[2] = nd->translation.z;
        p[3] = nd->rotation.x, p[4] = nd->rotation.y, p[5] = nd->rotation.z, p[6] = nd->rotation.w;
        p[7] = nd->scale.x, p[8] = nd->scale.y, p[9] = nd->scale.z;
        ref->weights[i] = 0;
        if (nd->mesh >= 0 && doc->meshes[nd->mesh].target_count)
            ref->weights[i] = nd->weights ? nd->weights[0] : doc->meshes[nd->mesh].weights[0];
    }
    const cna_gltf_animation *an = &doc->animations[0];
    for (size_t c = 0; c < an->channel_count; c++) {
        const cna_gltf_animation_channel *ch = &an->channels[c];
        const cna_gltf_animation_sampler *s = &an->samplers[ch->sampler];
        assert_int_equal(s->interpolation, CNA_GLTF_INTERPOLATION_LINEAR);
        double *p = tr + 10 * (size_t)ch->target_node;
        if (ch->path == CNA_GLTF_PATH_TRANSLATION) sample_linear(doc, s, t, 3, false, p);
        else if (ch->path == CNA_GLTF_PATH_ROTATION) sample_linear(doc, s, t, 4, true, p + 3);
        else if (ch->path == CNA_GLTF_PATH_SCALE) sample_linear(doc, s, t, 3, false, p + 7);
        else if (ch->path == CNA_GLTF_PATH_WEIGHTS) sample_linear(doc, s, t, 1, false, &ref->weights[ch->target_node]);
    }
    /* world[n] = world[parent] · local[n]; parents come before children in no
     * guaranteed order, so resolve by walking up */
    bool *done = calloc(n, sizeof *done);
    assert_non_null(done);
    for (size_t i = 0; i < n; i++) {
        while (!done[i]) {
            size_t k = i; /* the topmost node not done yet */
            while (doc->nodes[k].parent >= 0 && !done[doc->nodes[k].parent]) k = (size_t)doc->nodes[k].parent;
            const double *p = tr + 10 * k;
            dmat local = dtrs(p, p + 3, p + 7);
            ref->world[k] = doc->nodes[k].parent >= 0 ? dmul(&ref->world[doc->nodes[k].parent], &local) : local;
            done[k] = true;
        }
    }
    free(done);
    free(tr);
}

/* glTF 2.0's position of file vertex v of the primitive, model space:
 * sum_i w_i · jointWorld[j_i] · IBM[j_i] · (p + sum_t w_t · d_t). */
typedef struct prim_data {
    float *pos, *weights, *delta;
    uint32_t *joints, *indices;
    size_t vertex_count, index_count;
} prim_data;

static prim_data prim_read(const cna_gltf_document *doc, int32_t mesh, int32_t primitive)
{
    const cna_gltf_primitive *p = &doc->meshes[mesh].primitives[primitive];
    prim_data d;
    memset(&d, 0, sizeof d);
    d.vertex_count = p->vertex_count;
    d.pos = read_floats(doc, cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_POSITION, 0), NULL);
    d.weights = read_floats(doc, cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_WEIGHTS, 0), NULL);
    d.joints = read_uints(doc, cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_JOINTS, 0), NULL);
    d.indices = read_uints(doc, p->indices, &d.index_count);
    if (p->target_count) d.delta = read_floats(doc, p->targets[0].position, NULL);
    return d;
}

static void prim_free(prim_data *d)
{
    free(d->pos);
    free(d->weights);
    free(d->delta);
    free(d->joints);
    free(d->indices);
}

static void reference_vertex(const reference *ref, const cna_gltf_skin *skin, const float *ibm, const prim_data *d,
                             double morph_weight, size_t v, double out[3])
{
    double p[3];
    for (int c = 0; c < 3; c++)
        p[c] = d->pos[3 * v + (size_t)c] + (d->delta ? morph_weight * d->delta[3 * v + (size_t)c] : 0.0);
    out[0] = out[1] = out[2] = 0;
    for (int k = 0; k < 4; k++) {
        const double w = d->weights[4 * v + (size_t)k];
        if (w == 0) continue;
        const uint32_t ordinal = d->joints[4 * v + (size_t)k];
        dmat inv;
        for (int e = 0; e < 16; e++) inv.m[e] = ibm[16 * ordinal + (size_t)e];
        const dmat jm = dmul(&ref->world[skin->joints[ordinal]], &inv);
        for (int r = 0; r < 3; r++)
            out[r] += w * (jm.m[r] * p[0] + jm.m[4 + r] * p[1] + jm.m[8 + r] * p[2] + jm.m[12 + r]);
    }
}

/* ------------------------------------------------------------------ structure */

static void test_every_part_of_a_big_skin_is_split_into_palettes_of_at_most_72(void **state)
{
    (void)state;
    for (size_t f = 0; f < FIXTURE_COUNT; f++) {
        cna_gltf_document *doc = load_doc(fixtures[f]);
        cna_model *m = import_split(doc);
        assert_int_equal(m->mesh_count, doc->mesh_count);
        for (size_t i = 0; i < m->mesh_count; i++) {
            const cna_model_mesh *mesh = &m->meshes[i];
            assert_true(mesh->skin >= 0);
            const cna_model_skin *skin = &m->skins[mesh->skin];
            assert_true(skin->joint_count > 72);
            /* every primitive uses more than 72 joints: at least two sub-parts */
            assert_true(mesh->part_count >= 2);
            for (size_t k = 0; k < mesh->part_count; k++) {
                const cna_model_part *part = &mesh->parts[k];
                assert_int_equal(part->gltf_mesh, mesh->gltf_mesh);
                assert_int_equal(part->gltf_primitive, 0);
                assert_non_null(part->palette_map);
                assert_non_null(part->source_vertex);
                assert_true(part->palette_map_count >= 1 && part->palette_map_count <= 72);
                for (size_t e = 0; e < part->palette_map_count; e++) {
                    assert_true(part->palette_map[e] >= 0 && (size_t)part->palette_map[e] < skin->joint_count);
                    if (e) assert_true(part->palette_map[e] > part->palette_map[e - 1]);
                }
                const cna_vertex_element *je =
                    cna_vertex_declaration_find(&part->declaration, CNA_VERTEX_USAGE_BLEND_INDICES, 0);
                assert_non_null(je);
                const unsigned char *v = (const unsigned char *)part->vertices;
                for (size_t q = 0; q < part->vertex_count; q++)
                    for (int c = 0; c < 4; c++)
                        assert_true(v[q * part->declaration.stride + je->offset + (size_t)c] < part->palette_map_count);
            }
        }
        cna_model_free(m);
        cna_gltf_document_free(doc);
    }
}

static int cmp_triangle(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

static void test_every_triangle_appears_once_with_the_files_vertex_data(void **state)
{
    (void)state;
    for (size_t f = 0; f < FIXTURE_COUNT; f++) {
        cna_gltf_document *doc = load_doc(fixtures[f]);
        cna_model *m = import_split(doc);
        for (size_t i = 0; i < m->mesh_count; i++) {
            const cna_model_mesh *mesh = &m->meshes[i];
            const cna_model_skin *skin = &m->skins[mesh->skin];
            prim_data d = prim_read(doc, mesh->gltf_mesh, 0);
            size_t total = 0;
            for (size_t k = 0; k < mesh->part_count; k++) total += mesh->parts[k].index_count;
            assert_int_equal(total, d.index_count);
            uint32_t *got = malloc(total * sizeof *got);
            uint32_t *want = malloc(total * sizeof *want);
            assert_non_null(got);
            assert_non_null(want);
            memcpy(want, d.indices, total * sizeof *want);
            size_t at = 0;
            for (size_t k = 0; k < mesh->part_count; k++) {
                const cna_model_part *part = &mesh->parts[k];
                const uint32_t stride = part->declaration.stride;
                const cna_vertex_element *je =
                    cna_vertex_declaration_find(&part->declaration, CNA_VERTEX_USAGE_BLEND_INDICES, 0);
                const cna_vertex_element *we =
                    cna_vertex_declaration_find(&part->declaration, CNA_VERTEX_USAGE_BLEND_WEIGHTS, 0);
                assert_int_equal(part->source_vertex_count, d.vertex_count);
                for (size_t q = 0; q < part->index_count; q++) got[at++] = part->source_vertex[part->indices[q]];
                for (size_t q = 0; q < part->vertex_count; q++) {
                    const unsigned char *v = (const unsigned char *)part->vertices + q * stride;
                    const uint32_t src = part->source_vertex[q];
                    assert_true(src < d.vertex_count);
                    assert_memory_equal(v, d.pos + 3 * src, 12);           /* position */
                    assert_memory_equal(v + we->offset, d.weights + 4 * src, 16); /* weights */
                    for (int c = 0; c < 4; c++) {                          /* joints, mapped back */
                        const int32_t palette = part->palette_map[v[je->offset + (size_t)c]];
                        assert_int_equal(skin->palette_to_ordinal[palette], d.joints[4 * src + (size_t)c]);
                    }
                }
                if (d.delta) { /* the morph deltas of the copied vertices are the file's */
                    assert_non_null(part->morph);
                    const cna_morph_deltas *pd = &part->morph->targets[0].positions;
                    float *dense = calloc(3 * (part->vertex_count ? part->vertex_count : 1), sizeof *dense);
                    assert_non_null(dense);
                    for (size_t e = 0; e < pd->count; e++)
                        memcpy(dense + 3 * (pd->indices ? pd->indices[e] : e), pd->values + 3 * e, 12);
                    for (size_t q = 0; q < part->vertex_count; q++)
                        assert_memory_equal(dense + 3 * q, d.delta + 3 * part->source_vertex[q], 12);
                    free(dense);
                }
            }
            qsort(got, total / 3, 3 * sizeof *got, cmp_triangle);
            qsort(want, total / 3, 3 * sizeof *want, cmp_triangle);
            assert_memory_equal(got, want, total * sizeof *got);
            free(got);
            free(want);
            prim_free(&d);
        }
        cna_model_free(m);
        cna_gltf_document_free(doc);
    }
}

/* ------------------------------------------------------------------ posing */

/* Model-space positions of every part vertex of mesh i as this character
 * draws them: the part's vertices (morphed) skinned with the part palette,
 * then the mesh's parent bone. out[p] holds part p's 3 floats per vertex. */
static void skin_parts(const cna_character *c, const cna_model *m, size_t i, float **out)
{
    const cna_model_mesh *mesh = &m->meshes[i];
    const cna_mat4 *world = cna_character_absolute_transform(c, (size_t)mesh->parent_bone);
    for (size_t k = 0; k < mesh->part_count; k++) {
        const cna_model_part *part = &mesh->parts[k];
        size_t count = 0;
        const cna_mat4 *palette = cna_character_part_palette(c, i, k, &count);
        assert_non_null(palette);
        assert_int_equal(count, part->palette_map_count);
        cna_skinning_layout layout;
        assert_int_equal(cna_skinning_layout_canonical(part->declaration.stride, &layout, NULL), CNA_OK);
        const size_t n = part->vertex_count;
        float *xyz = malloc(3 * (n ? n : 1) * sizeof *xyz);
        assert_non_null(xyz);
        cna_error err;
        cna_result r = cna_skin_positions(&layout, cna_character_part_vertices(c, i, k, NULL), n, palette, count, xyz,
                                          3 * n, &err);
        if (r) print_error("%s\n", err.message);
        assert_int_equal(r, CNA_OK);
        for (size_t q = 0; q < n; q++) {
            const float *p = xyz + 3 * q;
            float o[3];
            for (int row = 0; row < 3; row++)
                o[row] = world->m[row] * p[0] + world->m[4 + row] * p[1] + world->m[8 + row] * p[2] + world->m[12 + row];
            memcpy(xyz + 3 * q, o, sizeof o);
        }
        out[k] = xyz;
    }
}

static cna_character *character_at(const cna_model *m, double t)
{
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, NULL), CNA_OK);
    assert_int_equal(cna_character_play(c, 0, NULL), CNA_OK);
    assert_int_equal(cna_character_set_loop_mode(c, CNA_LOOP_MODE_ONCE, NULL), CNA_OK);
    assert_int_equal(cna_character_seek(c, t, NULL), CNA_OK);
    assert_int_equal(cna_character_pose(c, NULL), CNA_OK);
    return c;
}

static void test_posed_positions_equal_the_gltf_formula_at_and_between_keys(void **state)
{
    (void)state;
    for (size_t f = 0; f < FIXTURE_COUNT; f++) {
        cna_gltf_document *doc = load_doc(fixtures[f]);
        cna_model *m = import_split(doc);
        const double tol = 1e-5 * (double)m->size;
        reference ref = {doc, calloc(doc->node_count, sizeof(dmat)), calloc(doc->node_count, sizeof(double))};
        assert_non_null(ref.world);
        assert_non_null(ref.weights);
        double worst = 0;
        for (size_t ti = 0; ti < sizeof times / sizeof times[0]; ti++) {
            reference_pose(&ref, times[ti]);
            cna_character *c = character_at(m, times[ti]);
            for (size_t i = 0; i < m->mesh_count; i++) {
                const cna_model_mesh *mesh = &m->meshes[i];
                const cna_gltf_skin *gs = &doc->skins[doc->nodes[mesh->gltf_node].skin];
                float *ibm = read_floats(doc, gs->inverse_bind_matrices, NULL);
                prim_data d = prim_read(doc, mesh->gltf_mesh, 0);
                float **parts = calloc(mesh->part_count, sizeof *parts);
                assert_non_null(parts);
                skin_parts(c, m, i, parts);
                for (size_t k = 0; k < mesh->part_count; k++) {
                    const cna_model_part *part = &mesh->parts[k];
                    for (size_t q = 0; q < part->vertex_count; q++) {
                        double want[3];
                        reference_vertex(&ref, gs, ibm, &d, ref.weights[mesh->gltf_node], part->source_vertex[q], want);
                        for (int e = 0; e < 3; e++) {
                            const double diff = fabs((double)parts[k][3 * q + (size_t)e] - want[e]);
                            if (diff > worst) worst = diff;
                            if (!(diff <= tol))
                                fail_msg("%s t=%g meshes[%zu].parts[%zu] vertex %zu (file %u)[%d]: %.9g, glTF %.9g",
                                         fixtures[f], times[ti], i, k, q, (unsigned)part->source_vertex[q], e,
                                         (double)parts[k][3 * q + (size_t)e], want[e]);
                        }
                    }
                    free(parts[k]);
                }
                free(parts);
                prim_free(&d);
                free(ibm);
            }
            cna_character_free(c);
        }
        print_message("%s: largest difference %.3g (tolerance %.3g)\n", fixtures[f], worst, tol);
        free(ref.world);
        free(ref.weights);
        cna_model_free(m);
        cna_gltf_document_free(doc);
    }
}

/* The morph weight is animated, so the morph part really moves: at t = 1 s
 * (weight 1) a vertex with a delta is not where it is at t = 0 (weight 0). */
static void test_the_morphed_split_part_follows_its_weight_track(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_doc("fixtures/split-morph.gltf");
    cna_model *m = import_split(doc);
    cna_character *c = character_at(m, 1.0);
    size_t n = 0;
    const float *w = cna_character_morph_weights(c, 0, 0, &n);
    assert_int_equal(n, 1);
    assert_float_equal(w[0], 1.0f, 0.0f);
    cna_character_free(c);
    cna_model_free(m);
    cna_gltf_document_free(doc);
}

/* ------------------------------------------------------------------ .cnb */

static void test_the_split_model_baked_to_cnb_poses_bit_for_bit_as_the_gltf_import(void **state)
{
    (void)state;
    for (size_t f = 0; f < FIXTURE_COUNT; f++) {
        cna_gltf_document *doc = load_doc(fixtures[f]);
        cna_model *m = import_split(doc);
        void *bytes = NULL;
        size_t size = 0;
        cna_error err;
        assert_int_equal(cna_cnb_write_memory(m, NULL, &bytes, &size, &err), CNA_OK);
        cna_model *b = NULL;
        cna_result r = cna_cnb_load_memory(bytes, size, NULL, &b, &err);
        if (r) print_error("%s: %s\n", fixtures[f], err.message);
        assert_int_equal(r, CNA_OK);
        cna_cnb_bytes_free(NULL, bytes);
        assert_int_equal(b->mesh_count, m->mesh_count);
        for (size_t i = 0; i < m->mesh_count; i++) {
            assert_int_equal(b->meshes[i].part_count, m->meshes[i].part_count);
            for (size_t k = 0; k < m->meshes[i].part_count; k++) {
                const cna_model_part *x = &m->meshes[i].parts[k], *y = &b->meshes[i].parts[k];
                assert_int_equal(y->palette_map_count, x->palette_map_count);
                assert_memory_equal(y->palette_map, x->palette_map, x->palette_map_count * sizeof(int32_t));
                assert_int_equal(y->vertex_count, x->vertex_count);
                assert_memory_equal(y->vertices, x->vertices, x->vertex_count * x->declaration.stride);
            }
        }
        for (size_t ti = 0; ti < sizeof times / sizeof times[0]; ti++) {
            cna_character *cm = character_at(m, times[ti]), *cb = character_at(b, times[ti]);
            for (size_t i = 0; i < m->mesh_count; i++) {
                const size_t parts = m->meshes[i].part_count;
                float **pm = calloc(parts, sizeof *pm), **pb = calloc(parts, sizeof *pb);
                assert_non_null(pm);
                assert_non_null(pb);
                skin_parts(cm, m, i, pm);
                skin_parts(cb, b, i, pb);
                for (size_t k = 0; k < parts; k++) {
                    size_t nm = 0, nb = 0;
                    const cna_mat4 *am = cna_character_part_palette(cm, i, k, &nm);
                    const cna_mat4 *ab = cna_character_part_palette(cb, i, k, &nb);
                    assert_int_equal(nm, nb);
                    assert_memory_equal(am, ab, nm * sizeof *am);
                    assert_memory_equal(pm[k], pb[k], 3 * m->meshes[i].parts[k].vertex_count * sizeof(float));
                    free(pm[k]);
                    free(pb[k]);
                }
                free(pm);
                free(pb);
            }
            cna_character_free(cm);
            cna_character_free(cb);
        }
        cna_model_free(b);
        cna_model_free(m);
        cna_gltf_document_free(doc);
    }
}

/* ------------------------------------------------------------------ the character */

typedef struct counting {
    size_t allocations;
} counting;

static void *counting_alloc(void *user, size_t size)
{
    ((counting *)user)->allocations++;
    return malloc(size);
}

static void counting_free(void *user, void *p)
{
    (void)user;
    free(p);
}

static void test_a_split_part_palette_is_gathered_by_every_pose_without_allocating(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_doc("fixtures/split-two-skins.gltf");
    cna_model *m = import_split(doc);
    counting cnt = {0};
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.allocator.alloc = counting_alloc;
    o.allocator.free = counting_free;
    o.allocator.user_data = &cnt;
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, &o, &c, NULL), CNA_OK);
    assert_int_equal(cna_character_play(c, 0, NULL), CNA_OK);
    const size_t after_create = cnt.allocations;
    for (int frame = 0; frame < 30; frame++) {
        assert_int_equal(cna_character_update(c, 1.0 / 30.0, NULL), CNA_OK);
        for (size_t i = 0; i < m->mesh_count; i++) {
            const cna_mat4 *skin = cna_character_skin_transforms(c, (size_t)m->meshes[i].skin);
            for (size_t k = 0; k < m->meshes[i].part_count; k++) {
                const cna_model_part *part = &m->meshes[i].parts[k];
                size_t count = 0;
                const cna_mat4 *sub = cna_character_part_palette(c, i, k, &count);
                assert_int_equal(count, part->palette_map_count);
                for (size_t e = 0; e < count; e++)
                    assert_memory_equal(&sub[e], &skin[part->palette_map[e]], sizeof(cna_mat4));
            }
        }
    }
    assert_int_equal(cnt.allocations, after_create);
    /* out of range, NULL */
    size_t count = 7;
    assert_null(cna_character_part_palette(c, 2, 0, &count));
    assert_int_equal(count, 0);
    assert_null(cna_character_part_palette(c, 0, m->meshes[0].part_count, &count));
    assert_null(cna_character_part_palette(NULL, 0, 0, &count));
    cna_character_free(c);
    cna_model_free(m);
    cna_gltf_document_free(doc);
}

/* An unsplit skinned part gets the skin palette itself, no copy. */
static void test_an_unsplit_part_gets_the_skin_palette_itself(void **state)
{
    (void)state;
    cna_gltf_document *doc = load_doc("fixtures/skin-ordered-joints.gltf");
    cna_model *m = import_split(doc);
    assert_null(m->meshes[0].parts[0].palette_map);
    assert_int_equal(m->meshes[0].parts[0].palette_map_count, 0);
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, NULL), CNA_OK);
    size_t count = 0;
    assert_ptr_equal(cna_character_part_palette(c, 0, 0, &count), cna_character_skin_transforms(c, 0));
    assert_int_equal(count, 3);
    cna_character_free(c);
    cna_model_free(m);
    cna_gltf_document_free(doc);
}

/* ------------------------------------------------------------------ without the option, small skins */

static void test_without_the_option_each_rig_is_refused_with_the_exact_message(void **state)
{
    (void)state;
    static const char *const messages[FIXTURE_COUNT] = {
        "skins[0]: 300 joints; at most 72 are supported; import with split_palettes (cna convert --split-palettes) "
        "to split its parts",
        "skins[0]: 100 joints; at most 72 are supported; import with split_palettes (cna convert --split-palettes) "
        "to split its parts",
        "skins[0]: 100 joints; at most 72 are supported; import with split_palettes (cna convert --split-palettes) "
        "to split its parts",
    };
    for (size_t f = 0; f < FIXTURE_COUNT; f++) {
        cna_gltf_document *doc = load_doc(fixtures[f]);
        cna_model *m = NULL;
        cna_error err;
        assert_int_equal(cna_model_import_gltf(doc, NULL, &m, &err), CNA_ERROR_LIMIT);
        assert_string_equal(err.message, messages[f]);
        assert_null(m);
        cna_gltf_document_free(doc);
    }
}

static void test_a_skin_of_73_joints_is_split_and_one_of_72_or_fewer_never(void **state)
{
    (void)state;
    /* 73 joints, one triangle bound to joint 0 only: one sub-part of one entry */
    cna_gltf_document *doc = load_doc("fixtures/skin-73-joints.gltf");
    cna_model *m = import_split(doc);
    assert_int_equal(m->meshes[0].part_count, 1);
    const cna_model_part *part = &m->meshes[0].parts[0];
    assert_int_equal(part->palette_map_count, 1);
    assert_int_equal(part->palette_map[0], m->skins[0].ordinal_to_palette[0]);
    cna_model_free(m);
    cna_gltf_document_free(doc);
    static const char *const small[] = {"fixtures/skin-nested.gltf", "fixtures/skin-two-instances.gltf",
                                        "fixtures/skin-root-motion.gltf"};
    for (size_t f = 0; f < sizeof small / sizeof small[0]; f++) {
        doc = load_doc(small[f]);
        m = import_split(doc);
        for (size_t i = 0; i < m->mesh_count; i++)
            for (size_t k = 0; k < m->meshes[i].part_count; k++) {
                assert_null(m->meshes[i].parts[k].palette_map);
                assert_int_equal(m->meshes[i].parts[k].palette_map_count, 0);
            }
        cna_model_free(m);
        cna_gltf_document_free(doc);
    }
}

/* ------------------------------------------------------------------ palette order */

static uint32_t rng_next(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

/* A document of `nodes` nodes after the mesh node (nodes[0]): one tree, in
 * which node i >= 2 hangs under a random earlier node, and `joints` of them,
 * chosen at random and listed in a shuffled order, form the skin of one
 * triangle (so joints sit under non-joint nodes too, and the palette has
 * several roots when the tree's root is not a joint). malloc'd. */
static char *random_skin_text(uint32_t seed, int nodes, int joints, int32_t *parent)
{
    uint32_t st = seed;
    int32_t *order = malloc((size_t)nodes * sizeof *order);
    assert_non_null(order);
    for (int i = 0; i < nodes; i++) {
        parent[i] = i == 0 ? -1 : (int32_t)(rng_next(&st) % (uint32_t)i);
        order[i] = i;
    }
    for (int i = nodes - 1; i > 0; i--) { /* Fisher-Yates: the first `joints` are the skin */
        int j = (int)(rng_next(&st) % (uint32_t)(i + 1));
        int32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    size_t cap = 4096 + (size_t)nodes * 48, at = 0;
    char *t = malloc(cap);
    assert_non_null(t);
#define PUT(...) (at += (size_t)snprintf(t + at, cap - at, __VA_ARGS__), assert_true(at < cap))
    PUT("{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0");
    for (int i = 0; i < nodes; i++)
        if (parent[i] < 0) PUT(",%d", i + 1);
    PUT("]}],\"nodes\":[{\"mesh\":0,\"skin\":0}");
    for (int i = 0; i < nodes; i++) {
        PUT(",{");
        const char *sep = "\"children\":[";
        for (int c = i + 1; c < nodes; c++)
            if (parent[c] == i) {
                PUT("%s%d", sep, c + 1);
                sep = ",";
            }
        if (sep[0] == ',') PUT("]");
        PUT("}");
    }
    PUT("],\"skins\":[{\"joints\":[");
    for (int k = 0; k < joints; k++) PUT("%s%d", k ? "," : "", order[k] + 1);
    PUT("]}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
        "\"buffers\":[{\"byteLength\":96,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAA"
        "AAAAAIA/AAAAAAAAAAAAAAAA\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12},"
        "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":48}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}]}");
#undef PUT
    free(order);
    return t;
}

static void test_the_palette_order_of_thousands_of_joints_is_the_breadth_first_reference(void **state)
{
    (void)state;
    static const struct {
        uint32_t seed;
        int nodes, joints;
    } cases[] = {{1, 5000, 4000}, {7, 3000, 3000}, {42, 6000, 2500}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int nodes = cases[c].nodes, J = cases[c].joints;
        int32_t *parent = malloc((size_t)nodes * sizeof *parent);
        assert_non_null(parent);
        char *text = random_skin_text(cases[c].seed, nodes, J, parent);
        cna_gltf_document *doc = NULL;
        cna_error err;
        cna_result r = cna_gltf_load_memory(text, strlen(text), NULL, &doc, &err);
        if (r) print_error("case %zu: %s\n", c, err.message);
        assert_int_equal(r, CNA_OK);
        cna_model *m = import_split(doc);
        assert_int_equal(m->skin_count, 1);
        const cna_model_skin *skin = &m->skins[0];
        assert_int_equal(skin->joint_count, (size_t)J);
        /* The reference, written the obvious quadratic way: each joint's
         * nearest joint ancestor; the roots in ordinal order; then, for each
         * joint in palette order, every joint whose parent it is, in ordinal
         * order. */
        const cna_gltf_skin *gs = &doc->skins[0];
        int32_t *ordinal_of_node = malloc(doc->node_count * sizeof(int32_t));
        int32_t *pk = malloc((size_t)J * sizeof(int32_t));
        int32_t *want = malloc((size_t)J * sizeof(int32_t));
        assert_non_null(ordinal_of_node);
        assert_non_null(pk);
        assert_non_null(want);
        for (size_t i = 0; i < doc->node_count; i++) ordinal_of_node[i] = -1;
        for (int k = 0; k < J; k++) ordinal_of_node[gs->joints[k]] = k;
        for (int k = 0; k < J; k++) {
            pk[k] = -1;
            for (int32_t n = doc->nodes[gs->joints[k]].parent; n >= 0 && pk[k] < 0; n = doc->nodes[n].parent)
                pk[k] = ordinal_of_node[n];
        }
        int count = 0;
        for (int k = 0; k < J; k++)
            if (pk[k] < 0) want[count++] = k;
        for (int head = 0; head < count; head++)
            for (int k = 0; k < J; k++)
                if (pk[k] == want[head]) want[count++] = k;
        assert_int_equal(count, J);
        /* all joints: one palette root; the last case's tree root is not a joint: several */
        if (J == nodes) assert_int_equal(skin->root_count, 1);
        if (c == 2) assert_true(skin->root_count > 1);
        for (int p = 0; p < J; p++) {
            assert_int_equal(skin->palette_to_ordinal[p], want[p]);
            assert_int_equal(skin->ordinal_to_palette[want[p]], p);
            assert_int_equal(skin->data.hierarchy[p], pk[want[p]] >= 0 ? skin->ordinal_to_palette[pk[want[p]]] : -1);
            assert_int_equal(skin->palette_to_gltf_node[p], gs->joints[want[p]]);
        }
        /* the document's parents are the ones generated (node i + 1 is generated node i) */
        for (int i = 0; i < nodes; i++)
            assert_int_equal(doc->nodes[i + 1].parent, parent[i] < 0 ? -1 : parent[i] + 1);
        free(ordinal_of_node);
        free(pk);
        free(want);
        cna_model_free(m);
        cna_gltf_document_free(doc);
        free(text);
        free(parent);
    }
}

/* Each file vertex's posed position from the parts of mesh 0 (through
 * source_vertex; the first part vertex of each), 3 floats per file vertex,
 * NAN where no part vertex came from it. */
static void file_positions(const cna_model *m, float *out, size_t file_n)
{
    for (size_t i = 0; i < 3 * file_n; i++) out[i] = NAN;
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, NULL), CNA_OK);
    const cna_model_mesh *mesh = &m->meshes[0];
    float **parts = calloc(mesh->part_count, sizeof *parts);
    assert_non_null(parts);
    skin_parts(c, m, 0, parts);
    for (size_t k = 0; k < mesh->part_count; k++) {
        const cna_model_part *part = &mesh->parts[k];
        for (size_t v = 0; v < part->vertex_count; v++) {
            const size_t fv = part->source_vertex ? part->source_vertex[v] : v;
            assert_true(fv < file_n);
            if (isnan(out[3 * fv])) memcpy(out + 3 * fv, parts[k] + 3 * v, 3 * sizeof(float));
        }
        free(parts[k]);
    }
    free(parts);
    cna_character_free(c);
}

/* A split primitive whose vertices 3 and 4 no index reaches: each joins a
 * sub-part with its joint (79, 40) and is skinned like the others, through a
 * .cnb too. The skin: 80 joints in a chain, joint k at (0, k + 1, 0), no
 * inverse binds; one triangle on joint 0. */
static void test_vertices_no_index_reaches_are_skinned_by_some_sub_part(void **state)
{
    (void)state;
    size_t cap = 16384, at = 0;
    char *t = malloc(cap);
    assert_non_null(t);
#define PUT(...) (at += (size_t)snprintf(t + at, cap - at, __VA_ARGS__), assert_true(at < cap))
    PUT("{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],\"nodes\":[{\"mesh\":0,\"skin\":0}");
    for (int k = 1; k <= 80; k++) {
        PUT(",{\"translation\":[0,1,0]");
        if (k < 80) PUT(",\"children\":[%d]", k + 1);
        PUT("}");
    }
    PUT("],\"skins\":[{\"joints\":[");
    for (int k = 1; k <= 80; k++) PUT("%s%d", k > 1 ? "," : "", k);
    PUT("]}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2},"
        "\"indices\":3}]}],\"buffers\":[{\"byteLength\":168,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAAAAAAAAATwAAACgAAAAAAIA/"
        "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAAQACAAAA\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":60},{\"buffer\":0,\"byteOffset\":60,\"byteLength\":20},"
        "{\"buffer\":0,\"byteOffset\":80,\"byteLength\":80},{\"buffer\":0,\"byteOffset\":160,\"byteLength\":6}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\",\"min\":[0,0,0],"
        "\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5121,\"count\":5,\"type\":\"VEC4\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":5,\"type\":\"VEC4\"},"
        "{\"bufferView\":3,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}]}");
#undef PUT
    cna_gltf_document *doc = NULL;
    cna_error err;
    cna_result r = cna_gltf_load_memory(t, strlen(t), NULL, &doc, &err);
    if (r) print_error("%s\n", err.message);
    assert_int_equal(r, CNA_OK);
    free(t);
    cna_model *m = import_split(doc);
    cna_gltf_document_free(doc);
    assert_true(m->meshes[0].parts[0].palette_map != NULL);
    const float want[15] = {0, 1, 0, 1, 1, 0, 0, 2, 0, 0, 80, 0, 1, 41, 0};
    float got[15];
    file_positions(m, got, 5);
    assert_memory_equal(got, want, sizeof want);
    /* the same through a .cnb */
    void *bytes = NULL;
    size_t size = 0;
    assert_int_equal(cna_cnb_write_memory(m, NULL, &bytes, &size, &err), CNA_OK);
    cna_model *b = NULL;
    r = cna_cnb_load_memory(bytes, size, NULL, &b, &err);
    if (r) print_error("%s\n", err.message);
    assert_int_equal(r, CNA_OK);
    cna_cnb_bytes_free(NULL, bytes);
    file_positions(b, got, 5);
    assert_memory_equal(got, want, sizeof want);
    cna_model_free(b);
    cna_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_part_of_a_big_skin_is_split_into_palettes_of_at_most_72),
        cmocka_unit_test(test_every_triangle_appears_once_with_the_files_vertex_data),
        cmocka_unit_test(test_posed_positions_equal_the_gltf_formula_at_and_between_keys),
        cmocka_unit_test(test_the_morphed_split_part_follows_its_weight_track),
        cmocka_unit_test(test_the_split_model_baked_to_cnb_poses_bit_for_bit_as_the_gltf_import),
        cmocka_unit_test(test_a_split_part_palette_is_gathered_by_every_pose_without_allocating),
        cmocka_unit_test(test_an_unsplit_part_gets_the_skin_palette_itself),
        cmocka_unit_test(test_without_the_option_each_rig_is_refused_with_the_exact_message),
        cmocka_unit_test(test_a_skin_of_73_joints_is_split_and_one_of_72_or_fewer_never),
        cmocka_unit_test(test_the_palette_order_of_thousands_of_joints_is_the_breadth_first_reference),
        cmocka_unit_test(test_vertices_no_index_reaches_are_skinned_by_some_sub_part),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
