/*
 * Compressed glTF (tests/data/compressed, made from RiggedSimple by gltfpack
 * and gltf-pipeline; commands in its SOURCE.md): EXT_meshopt_compression
 * decodes to exactly the bytes of the same file written uncompressed (index
 * triangles up to their first corner), its filters within their precision, KHR_draco_mesh_compression to vertices
 * within the quantisation step of the source, and the poses of a character
 * follow. Then hostile data: every prefix of each file and corrupted
 * payloads load or fail with a message, never crash, never leak.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "baked/cnb_test.h"
#include "cna/cna.h"
#include "gltf/gltf_test_util.h"

#define COMPRESSED CNA_TEST_DATA_DIR "/compressed/"
#define SOURCE VALID_DIR "/RiggedSimple/rigged_simple.gltf"

static const char *const all_files[] = {
    "rigged_simple.meshopt-noq.glb", "rigged_simple.meshopt.glb", "rigged_simple.meshopt-cc.glb",
    "rigged_simple.draco.glb",       "rigged_simple.draco24.glb",
};
#define FILE_COUNT (sizeof all_files / sizeof all_files[0])

static cna_gltf_document *load_doc(const char *path)
{
    cna_gltf_document *doc = NULL;
    cna_error err;
    if (cna_gltf_load_file(path, NULL, &doc, &err) != CNA_OK) fail_msg("%s: %s", path, err.message);
    return doc;
}

static cna_model *load_model(const char *path)
{
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(path, NULL, &m, &err) != CNA_OK) fail_msg("%s: %s", path, err.message);
    return m;
}

/* ------------------------------------------------------------------ posing through a character */

typedef struct posed {
    cna_mat4 *absolute; /* bone_count */
    cna_mat4 *palette;  /* every skin's palette, skin after skin */
    size_t palette_count;
    float *xyz;         /* every part's final model-space positions, part after part */
    size_t vertex_count;
} posed;

static void posed_free(posed *p)
{
    free(p->absolute);
    free(p->palette);
    free(p->xyz);
    memset(p, 0, sizeof *p);
}

/* A character of `m` playing animation `anim` (-1: rest) posed at `t` seconds:
 * its absolute transforms, palettes, and each part's vertices as it draws them,
 * skinned by the palette (cna_skin_positions) and placed by the parent bone. */
static void pose(const cna_model *m, long anim, double t, posed *out)
{
    cna_error err;
    cna_character *ch = NULL;
    memset(out, 0, sizeof *out);
    assert_int_equal(cna_character_create(m, NULL, &ch, &err), CNA_OK);
    assert_int_equal(cna_character_play(ch, anim, &err), CNA_OK);
    assert_int_equal(cna_character_seek(ch, t, &err), CNA_OK);
    assert_int_equal(cna_character_pose(ch, &err), CNA_OK);
    out->absolute = calloc(m->bone_count + 1, sizeof(cna_mat4));
    assert_non_null(out->absolute);
    assert_int_equal(cna_character_copy_absolute_transforms(ch, out->absolute, m->bone_count, &err), CNA_OK);
    for (size_t s = 0; s < m->skin_count; s++) out->palette_count += m->skins[s].joint_count;
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++) out->vertex_count += m->meshes[i].parts[k].vertex_count;
    out->palette = calloc(out->palette_count + 1, sizeof(cna_mat4));
    out->xyz = calloc(3 * out->vertex_count + 1, sizeof(float));
    assert_true(out->palette && out->xyz);
    size_t at = 0;
    for (size_t s = 0; s < m->skin_count; s++) {
        memcpy(out->palette + at, cna_character_skin_transforms(ch, s), m->skins[s].joint_count * sizeof(cna_mat4));
        at += m->skins[s].joint_count;
    }
    at = 0;
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        for (size_t k = 0; k < mesh->part_count; k++) {
            const cna_model_part *part = &mesh->parts[k];
            const unsigned char *bytes = cna_character_part_vertices(ch, i, k, NULL);
            float *xyz = out->xyz + 3 * at;
            if (mesh->skin >= 0) {
                cna_skinning_layout layout;
                assert_int_equal(cna_skinning_layout_canonical(part->declaration.stride, &layout, &err), CNA_OK);
                assert_int_equal(cna_skin_positions(&layout, bytes, part->vertex_count,
                                                    cna_character_skin_transforms(ch, (size_t)mesh->skin),
                                                    m->skins[mesh->skin].joint_count, xyz, 3 * part->vertex_count,
                                                    &err),
                                 CNA_OK);
            } else {
                for (size_t v = 0; v < part->vertex_count; v++)
                    memcpy(&xyz[3 * v], bytes + v * part->declaration.stride, 12);
            }
            for (size_t v = 0; v < part->vertex_count; v++) {
                cna_vec3 q = cna_mat4_transform_point(&out->absolute[mesh->parent_bone],
                                                      cna_vec3_make(xyz[3 * v], xyz[3 * v + 1], xyz[3 * v + 2]));
                xyz[3 * v] = q.x, xyz[3 * v + 1] = q.y, xyz[3 * v + 2] = q.z;
            }
            at += part->vertex_count;
        }
    }
    cna_character_free(ch);
}

static const double times[] = {0.0, 0.3, 0.77, 1.25, 2.0};
#define TIME_COUNT (sizeof times / sizeof times[0])

static double max_diff(const float *a, const float *b, size_t n)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= worst)) worst = d; /* NaN counts as worst */
    }
    return worst;
}

/* The characters of a and b pose the same (bit for bit when tol is 0) at rest
 * and at every time of every animation; the worst difference is returned. */
static double same_poses(const cna_model *a, const cna_model *b, double tol)
{
    assert_int_equal(a->animation_count, b->animation_count);
    assert_int_equal(a->bone_count, b->bone_count);
    double worst = 0.0;
    for (long anim = -1; anim < (long)a->animation_count; anim++) {
        for (size_t k = 0; k < (anim < 0 ? 1 : TIME_COUNT); k++) {
            posed x, y;
            pose(a, anim, times[k], &x);
            pose(b, anim, times[k], &y);
            assert_int_equal(x.palette_count, y.palette_count);
            assert_int_equal(x.vertex_count, y.vertex_count);
            if (tol == 0.0) {
                CNB_SAME_BYTES(x.absolute, y.absolute, a->bone_count * sizeof(cna_mat4));
                CNB_SAME_BYTES(x.palette, y.palette, x.palette_count * sizeof(cna_mat4));
                CNB_SAME_BYTES(x.xyz, y.xyz, 3 * x.vertex_count * sizeof(float));
            } else {
                double d = max_diff(x.xyz, y.xyz, 3 * x.vertex_count);
                d = fmax(d, max_diff((const float *)x.palette, (const float *)y.palette, 16 * x.palette_count));
                d = fmax(d, max_diff((const float *)x.absolute, (const float *)y.absolute, 16 * a->bone_count));
                if (d > worst) worst = d;
                if (!(d <= tol)) fail_msg("anim %ld t %g: poses differ by %g (tolerance %g)", anim, times[k], d, tol);
            }
            posed_free(&x);
            posed_free(&y);
        }
    }
    return worst;
}

/* ------------------------------------------------------------------ EXT_meshopt_compression */

/* Index `k` of a triangle list rotated so that triangle t starts where `ref`'s
 * does: meshoptimizer's TRIANGLES codec keeps every triangle, their order and
 * their winding, but may start a triangle at another of its corners. */
static bool rotation_of(const uint32_t *tri, const uint32_t *ref, int *rot)
{
    for (int r = 0; r < 3; r++)
        if (tri[r] == ref[0] && tri[(r + 1) % 3] == ref[1] && tri[(r + 2) % 3] == ref[2]) {
            *rot = r;
            return true;
        }
    return false;
}

static void same_triangles_u32(const uint32_t *a, const uint32_t *b, size_t n)
{
    assert_int_equal(n % 3, 0);
    for (size_t t = 0; t < n; t += 3) {
        int rot;
        if (!rotation_of(b + t, a + t, &rot))
            fail_msg("triangle %zu: (%u %u %u) is not (%u %u %u) rotated", t / 3, (unsigned)b[t], (unsigned)b[t + 1],
                     (unsigned)b[t + 2], (unsigned)a[t], (unsigned)a[t + 1], (unsigned)a[t + 2]);
    }
}

static void same_triangles_u16(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint32_t *x = malloc((n + 1) * sizeof *x), *y = malloc((n + 1) * sizeof *y);
    assert_true(x && y);
    for (size_t i = 0; i < n; i++) {
        x[i] = (uint32_t)a[2 * i] | (uint32_t)a[2 * i + 1] << 8;
        y[i] = (uint32_t)b[2 * i] | (uint32_t)b[2 * i + 1] << 8;
    }
    same_triangles_u32(x, y, n);
    free(x);
    free(y);
}

/* cnb_same_model(a, b) where b's triangles may start at another corner (see
 * rotation_of): b's parts are compared with their triangles rotated back. */
static void same_model_up_to_rotation(const cna_model *a, const cna_model *b)
{
    cna_model copy = *b;
    assert_int_equal(a->mesh_count, b->mesh_count);
    cna_model_mesh *meshes = calloc(b->mesh_count + 1, sizeof *meshes);
    assert_non_null(meshes);
    for (size_t i = 0; i < b->mesh_count; i++) {
        meshes[i] = b->meshes[i];
        assert_int_equal(a->meshes[i].part_count, b->meshes[i].part_count);
        cna_model_part *parts = calloc(b->meshes[i].part_count + 1, sizeof *parts);
        assert_non_null(parts);
        for (size_t k = 0; k < b->meshes[i].part_count; k++) {
            const cna_model_part *pa = &a->meshes[i].parts[k], *pb = &b->meshes[i].parts[k];
            parts[k] = *pb;
            assert_int_equal(pa->index_count, pb->index_count);
            same_triangles_u32(pa->indices, pb->indices, pb->index_count);
            parts[k].indices = pa->indices; /* equal up to rotation: checked */
        }
        meshes[i].parts = parts;
    }
    copy.meshes = meshes;
    cnb_same_model(a, &copy);
    for (size_t i = 0; i < b->mesh_count; i++) free((void *)meshes[i].parts);
    free(meshes);
}

/* doc b (compressed) decodes to the bytes of doc a (the same file
 * uncompressed): every view, then every accessor's values. */
static void same_views(const cna_gltf_document *a, const cna_gltf_document *b)
{
    assert_int_equal(a->buffer_view_count, b->buffer_view_count);
    for (size_t i = 0; i < a->buffer_view_count; i++) {
        const cna_gltf_buffer_view *x = &a->buffer_views[i], *y = &b->buffer_views[i];
        assert_int_equal(x->encoding, CNA_GLTF_VIEW_STORED);
        assert_int_equal(y->encoding, CNA_GLTF_VIEW_MESHOPT);
        assert_int_equal(x->byte_length, y->byte_length);
        assert_int_equal(x->byte_stride, y->byte_stride);
        if (x->target == 34963) same_triangles_u16(x->data, y->data, x->byte_length / 2);
        else CNB_SAME_BYTES(x->data, y->data, x->byte_length);
    }
}

static void meshopt_lossless_decodes_to_the_uncompressed_bytes(void **state)
{
    (void)state;
    cna_gltf_document *a = load_doc(COMPRESSED "rigged_simple.gltfpack-noq.glb");
    cna_gltf_document *b = load_doc(COMPRESSED "rigged_simple.meshopt-noq.glb");
    /* the compressed data lives in buffer 0; buffer 1 is the fallback, never read */
    assert_int_equal(b->buffer_count, 2);
    assert_int_equal(b->buffers[1].source, CNA_GLTF_SOURCE_NONE);
    assert_null(b->buffers[1].data);
    assert_int_equal(b->buffer_views[0].buffer, 1);
    assert_int_equal(b->buffer_view_count, 8); /* vertices (4 streams), indices, inverse binds, times, keys */
    same_views(a, b);
    cna_gltf_document_free(a);
    cna_gltf_document_free(b);
}

static void meshopt_lossless_imports_the_same_model(void **state)
{
    (void)state;
    cna_model *a = load_model(COMPRESSED "rigged_simple.gltfpack-noq.glb");
    cna_model *b = load_model(COMPRESSED "rigged_simple.meshopt-noq.glb");
    /* bones, part vertex bytes, indices (triangles up to rotation), skins, clip keys, diagnostics */
    same_model_up_to_rotation(a, b);
    assert_true(a->mesh_count == 1 && a->meshes[0].parts[0].vertex_count == 160);
    assert_int_equal(a->meshes[0].parts[0].index_count, 564);
    assert_int_equal(a->animation_count, 1);
    same_poses(a, b, 0.0);
    cna_model_free(a);
    cna_model_free(b);
}

static void meshopt_quantised_decodes_to_the_uncompressed_bytes(void **state)
{
    (void)state;
    cna_gltf_document *a = load_doc(COMPRESSED "rigged_simple.gltfpack.glb");
    cna_gltf_document *b = load_doc(COMPRESSED "rigged_simple.meshopt.glb");
    same_views(a, b);
    cna_gltf_document_free(a);
    cna_gltf_document_free(b);
    cna_model *ma = load_model(COMPRESSED "rigged_simple.gltfpack.glb");
    cna_model *mb = load_model(COMPRESSED "rigged_simple.meshopt.glb");
    same_model_up_to_rotation(ma, mb);
    same_poses(ma, mb, 0.0);
    cna_model_free(ma);
    cna_model_free(mb);
}

/* The largest difference between the values (as floats) of accessor i in a and b. */
static double accessor_diff(const cna_gltf_document *a, const cna_gltf_document *b, int32_t i)
{
    cna_error err;
    size_t n = cna_gltf_accessor_float_count(a, i);
    assert_int_equal(n, cna_gltf_accessor_float_count(b, i));
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    assert_true(x && y);
    assert_int_equal(cna_gltf_accessor_read_floats(a, i, x, n, &err), CNA_OK);
    assert_int_equal(cna_gltf_accessor_read_floats(b, i, y, n, &err), CNA_OK);
    double d = max_diff(x, y, n);
    free(x);
    free(y);
    return d;
}

static double dist3(const float *a, const float *b)
{
    double dx = (double)a[0] - b[0], dy = (double)a[1] - b[1], dz = (double)a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* match[v]: the source vertex nearest to Draco vertex v at rest (Draco
 * reorders vertices); every one within `tol`; the worst distance returned. */
static double match_vertices(const posed *draco, const posed *src, uint32_t *match, double tol)
{
    double worst = 0.0;
    for (size_t v = 0; v < draco->vertex_count; v++) {
        double best = INFINITY;
        for (size_t u = 0; u < src->vertex_count; u++) {
            double d = dist3(&draco->xyz[3 * v], &src->xyz[3 * u]);
            if (d < best) best = d, match[v] = (uint32_t)u;
        }
        if (best > worst) worst = best;
        if (!(best <= tol)) fail_msg("vertex %zu is %g from the nearest source vertex (tolerance %g)", v, best, tol);
    }
    return worst;
}

/* Every Draco triangle is a source triangle (corners within tol, same winding). */
static void same_triangles(const cna_model_part *dp, const posed *draco, const cna_model_part *sp, const posed *src,
                           double tol)
{
    assert_int_equal(dp->index_count, sp->index_count);
    for (size_t t = 0; t < dp->index_count; t += 3) {
        bool found = false;
        for (size_t u = 0; u < sp->index_count && !found; u += 3)
            for (int r = 0; r < 3 && !found; r++) {
                found = true;
                for (int k = 0; k < 3 && found; k++)
                    found = dist3(&draco->xyz[3 * dp->indices[t + (size_t)k]],
                                  &src->xyz[3 * sp->indices[u + (size_t)((k + r) % 3)]]) <= tol;
            }
        if (!found) fail_msg("triangle %zu is not a triangle of the source", t / 3);
    }
}

/* d is s with its vertices reordered (and maybe quantised): each vertex of d,
 * skinned, stays within `tol` of the vertex of s it came from (the nearest at
 * rest; within rest_tol there), at every time; the palettes and bones are equal bit for bit when
 * `same_skeleton` (Draco changes only the mesh; otherwise the files may
 * place the dequantisation of positions in different matrices, so only the
 * final positions compare). */
static double reordered_poses_follow(const cna_model *d, const cna_model *s, double rest_tol, double tol,
                                     bool same_skeleton)
{
    posed dr, sr;
    pose(d, -1, 0.0, &dr);
    pose(s, -1, 0.0, &sr);
    uint32_t *match = calloc(dr.vertex_count + 1, sizeof *match);
    assert_non_null(match);
    double worst = match_vertices(&dr, &sr, match, rest_tol);
    same_triangles(&d->meshes[0].parts[0], &dr, &s->meshes[0].parts[0], &sr, rest_tol);
    posed_free(&dr);
    posed_free(&sr);
    for (size_t k = 0; k < TIME_COUNT; k++) {
        pose(d, 0, times[k], &dr);
        pose(s, 0, times[k], &sr);
        assert_int_equal(dr.palette_count, sr.palette_count);
        if (same_skeleton) {
            CNB_SAME_BYTES(dr.absolute, sr.absolute, d->bone_count * sizeof(cna_mat4));
            CNB_SAME_BYTES(dr.palette, sr.palette, dr.palette_count * sizeof(cna_mat4));
        }
        for (size_t v = 0; v < dr.vertex_count; v++) {
            double e = dist3(&dr.xyz[3 * v], &sr.xyz[3 * match[v]]);
            if (e > worst) worst = e;
            if (!(e <= tol)) fail_msg("t %g: vertex %zu is %g from its source vertex (tolerance %g)", times[k], v, e, tol);
        }
        posed_free(&dr);
        posed_free(&sr);
    }
    free(match);
    return worst;
}

/* accessor_diff for rotation keys, where q and -q are the same rotation (the
 * QUATERNION filter may give either). */
static double quaternion_diff(const cna_gltf_document *a, const cna_gltf_document *b, int32_t i)
{
    cna_error err;
    size_t n = cna_gltf_accessor_float_count(a, i);
    assert_int_equal(n, cna_gltf_accessor_float_count(b, i));
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    assert_true(x && y);
    assert_int_equal(cna_gltf_accessor_read_floats(a, i, x, n, &err), CNA_OK);
    assert_int_equal(cna_gltf_accessor_read_floats(b, i, y, n, &err), CNA_OK);
    double worst = 0.0;
    for (size_t k = 0; k + 4 <= n; k += 4) {
        double same = 0.0, flipped = 0.0;
        for (int c = 0; c < 4; c++) {
            same = fmax(same, fabs((double)x[k + (size_t)c] - y[k + (size_t)c]));
            flipped = fmax(flipped, fabs((double)x[k + (size_t)c] + y[k + (size_t)c]));
        }
        worst = fmax(worst, fmin(same, flipped));
    }
    free(x);
    free(y);
    return worst;
}

/* gltfpack -cc: normals through the OCTAHEDRAL filter (8 bits), rotation keys
 * through the QUATERNION filter (12 bits), and vertices in another order than
 * gltfpack -c writes them; inverse bind matrices and key times unfiltered. */
static void meshopt_filters_decode_within_their_precision(void **state)
{
    (void)state;
    cna_gltf_document *a = load_doc(COMPRESSED "rigged_simple.gltfpack.glb");
    cna_gltf_document *b = load_doc(COMPRESSED "rigged_simple.meshopt-cc.glb");
    assert_int_equal(a->accessor_count, b->accessor_count);
    for (size_t i = 0; i < b->buffer_view_count; i++) assert_int_equal(b->buffer_views[i].encoding, CNA_GLTF_VIEW_MESHOPT);
    const cna_gltf_animation_sampler *sa = &a->animations[0].samplers[0];
    assert_int_equal(a->animations[0].channels[0].path, CNA_GLTF_PATH_ROTATION);
    assert_true(accessor_diff(a, b, a->skins[0].inverse_bind_matrices) == 0.0);
    assert_true(accessor_diff(a, b, sa->input) == 0.0);
    /* 12-bit max-component quaternions: the three stored components within half a step of (1/sqrt 2) / 2047
     * (1.7e-4), the fourth recomputed from them (its error grows where it is small); then stored as 16-bit
     * normalized shorts as in the reference (half a step of 1/32767 each) */
    double rot = quaternion_diff(a, b, sa->output);
    print_message("rotation keys: worst %.3g\n", rot);
    assert_true(rot <= 1e-3);
    /* normals: 8-bit octahedral against 8-bit components, for the vertex of a at the same (quantised) position */
    const int32_t pa = cna_gltf_primitive_find_attribute(&a->meshes[0].primitives[0], CNA_GLTF_ATTRIBUTE_POSITION, 0);
    const int32_t na = cna_gltf_primitive_find_attribute(&a->meshes[0].primitives[0], CNA_GLTF_ATTRIBUTE_NORMAL, 0);
    const int32_t pb = cna_gltf_primitive_find_attribute(&b->meshes[0].primitives[0], CNA_GLTF_ATTRIBUTE_POSITION, 0);
    const int32_t nb = cna_gltf_primitive_find_attribute(&b->meshes[0].primitives[0], CNA_GLTF_ATTRIBUTE_NORMAL, 0);
    const size_t n = a->accessors[pa].count;
    assert_int_equal(n, b->accessors[pb].count);
    float *xa = malloc(3 * n * sizeof(float)), *ya = malloc(3 * n * sizeof(float));
    float *xb = malloc(3 * n * sizeof(float)), *yb = malloc(3 * n * sizeof(float));
    assert_true(xa && ya && xb && yb);
    cna_error err;
    assert_int_equal(cna_gltf_accessor_read_floats(a, pa, xa, 3 * n, &err), CNA_OK);
    assert_int_equal(cna_gltf_accessor_read_floats(a, na, ya, 3 * n, &err), CNA_OK);
    assert_int_equal(cna_gltf_accessor_read_floats(b, pb, xb, 3 * n, &err), CNA_OK);
    assert_int_equal(cna_gltf_accessor_read_floats(b, nb, yb, 3 * n, &err), CNA_OK);
    double worst = 0.0;
    for (size_t v = 0; v < n; v++) {
        double best = INFINITY;
        for (size_t u = 0; u < n; u++)
            if (memcmp(&xb[3 * v], &xa[3 * u], 3 * sizeof(float)) == 0) best = fmin(best, max_diff(&yb[3 * v], &ya[3 * u], 3));
        if (best > worst) worst = best;
    }
    print_message("normals: worst %.3g\n", worst);
    assert_true(worst <= 1.5 / 127.0); /* one step of the octahedral grid and half a step of the bytes */
    free(xa), free(ya), free(xb), free(yb);
    cna_gltf_document_free(a);
    cna_gltf_document_free(b);
    cna_model *ma = load_model(COMPRESSED "rigged_simple.gltfpack.glb");
    cna_model *mb = load_model(COMPRESSED "rigged_simple.meshopt-cc.glb");
    /* the same 14-bit positions at rest; posed, the rotation keys' error (at most 1e-3, above) turns a
     * vertex by about twice that many radians about joints at most 4.6 units away: 1e-3 of the size */
    worst = reordered_poses_follow(mb, ma, 1e-5 * ma->size, 1e-3 * ma->size, false);
    print_message("meshopt-cc poses: worst %.3g of the size %.6g\n", worst, (double)ma->size);
    cna_model_free(ma);
    cna_model_free(mb);
}

/* ------------------------------------------------------------------ KHR_draco_mesh_compression */

#ifdef CNA_TEST_HAVE_DRACO
static void draco_24_bit_poses_equal_the_source(void **state)
{
    (void)state;
    cna_model *d = load_model(COMPRESSED "rigged_simple.draco24.glb");
    cna_model *s = load_model(SOURCE);
    /* 24-bit quantisation of a 9.2-unit box is a step of 5.5e-7, below float precision at this size */
    double worst = reordered_poses_follow(d, s, 1e-5 * s->size, 1e-5 * s->size, true);
    print_message("draco24: worst %.3g of the size %.6g\n", worst, (double)s->size);
    cna_model_free(d);
    cna_model_free(s);
}

static void draco_quantised_poses_follow_the_source(void **state)
{
    (void)state;
    cna_model *d = load_model(COMPRESSED "rigged_simple.draco.glb");
    cna_model *s = load_model(SOURCE);
    /* gltf-pipeline's defaults: 11-bit positions over the largest extent (9.16): a step of 4.5e-3, so a
     * vertex is within sqrt(3)/2 steps (3.9e-3) of its source; 8-bit weights (half a step: 2e-3 each)
     * then move a skinned vertex by at most 4 x 2e-3 x (4.6 + 4.6) = 0.073 more; poses within 0.08 */
    double worst = reordered_poses_follow(d, s, 0.5 * sqrt(3.0) * 9.16 / 2047.0, 0.08, true);
    print_message("draco: worst %.3g of the size %.6g\n", worst, (double)s->size);
    cna_model_free(d);
    cna_model_free(s);
}
#endif

/* ------------------------------------------------------------------ the glTF formula on the decoded data */

/* Every vertex of mesh 0 as the character draws it equals glTF's skinning
 * formula evaluated (in double) on the decoded accessors: sum of weight x
 * palette[joint] x position, then the mesh's parent bone; within 1e-5 of the
 * model size (float rounding of the two evaluation orders). The file is
 * imported twice, from the file and from memory, with the same model. */
static void formula_on_decoded_data(const char *path)
{
    cna_gltf_document *doc = load_doc(path);
    cna_error err;
    cna_model *m = NULL, *again = NULL;
    assert_int_equal(cna_model_import_gltf(doc, NULL, &m, &err), CNA_OK);
    size_t size;
    uint8_t *bytes = tu_read_file(path, &size);
    cna_gltf_document *doc2 = NULL;
    assert_int_equal(cna_gltf_load_memory(bytes, size, NULL, &doc2, &err), CNA_OK);
    assert_int_equal(cna_model_import_gltf(doc2, NULL, &again, &err), CNA_OK);
    cnb_same_model(m, again);
    const cna_gltf_primitive *prim = &doc->meshes[0].primitives[0];
    const int32_t pos = cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_POSITION, 0);
    const int32_t jts = cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_JOINTS, 0);
    const int32_t wts = cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_WEIGHTS, 0);
    const size_t n = doc->accessors[pos].count;
    float *p = malloc(3 * n * sizeof *p), *w = malloc(4 * n * sizeof *w);
    uint32_t *j = malloc(4 * n * sizeof *j);
    assert_true(p && w && j);
    assert_int_equal(cna_gltf_accessor_read_floats(doc, pos, p, 3 * n, &err), CNA_OK);
    assert_int_equal(cna_gltf_accessor_read_floats(doc, wts, w, 4 * n, &err), CNA_OK);
    assert_int_equal(cna_gltf_accessor_read_uints(doc, jts, j, 4 * n, &err), CNA_OK);
    const cna_model_mesh *mesh = &m->meshes[0];
    const cna_model_skin *skin = &m->skins[mesh->skin];
    assert_null(mesh->parts[0].source_vertex); /* part vertex v is the file's vertex v */
    assert_int_equal(mesh->parts[0].vertex_count, n);
    double worst = 0.0;
    for (size_t k = 0; k < TIME_COUNT; k++) {
        posed x;
        pose(m, 0, times[k], &x);
        for (size_t v = 0; v < n; v++) {
            double q[3] = {0, 0, 0}, r[3];
            for (int c = 0; c < 4; c++) {
                const float *mat = x.palette[skin->ordinal_to_palette[j[4 * v + (size_t)c]]].m;
                for (int row = 0; row < 3; row++)
                    q[row] += w[4 * v + (size_t)c] * ((double)mat[row] * p[3 * v] + (double)mat[4 + row] * p[3 * v + 1] +
                                                      (double)mat[8 + row] * p[3 * v + 2] + mat[12 + row]);
            }
            const float *b = x.absolute[mesh->parent_bone].m;
            for (int row = 0; row < 3; row++)
                r[row] = (double)b[row] * q[0] + (double)b[4 + row] * q[1] + (double)b[8 + row] * q[2] + b[12 + row];
            for (int row = 0; row < 3; row++) worst = fmax(worst, fabs(r[row] - x.xyz[3 * v + (size_t)row]));
        }
        posed_free(&x);
    }
    print_message("%s: the formula on the decoded data: worst %.3g of the size %.6g\n", path, worst, (double)m->size);
    assert_true(worst <= 1e-5 * m->size);
    free(p), free(w), free(j), free(bytes);
    cna_model_free(m);
    cna_model_free(again);
    cna_gltf_document_free(doc);
    cna_gltf_document_free(doc2);
}

static void meshopt_quantised_poses_are_the_formula_on_the_decoded_data(void **state)
{
    (void)state;
    formula_on_decoded_data(COMPRESSED "rigged_simple.meshopt.glb");
    formula_on_decoded_data(COMPRESSED "rigged_simple.meshopt-cc.glb");
}

#ifdef CNA_TEST_HAVE_DRACO
static void draco_quantised_poses_are_the_formula_on_the_decoded_data(void **state)
{
    (void)state;
    formula_on_decoded_data(COMPRESSED "rigged_simple.draco.glb");
}
#endif

/* ------------------------------------------------------------------ hostile data */

/* A load of `bytes` either succeeds (and then imports and poses, or fails
 * to import with a message) or fails with a message; nothing leaks (the
 * counting allocator, and ASan in the sanitizer build). */
static void load_any(const uint8_t *bytes, size_t size, size_t *ok, size_t *refused)
{
    tu_alloc_state st = {0, -1, 0};
    cna_gltf_options o;
    memset(&o, 0, sizeof o);
    o.allocator.alloc = tu_counting_alloc;
    o.allocator.free = tu_counting_free;
    o.allocator.user_data = &st;
    cna_gltf_document *doc = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_result r = cna_gltf_load_memory(bytes, size, &o, &doc, &err);
    if (r != CNA_OK) {
        assert_null(doc);
        assert_true(err.message[0] != '\0');
        (*refused)++;
    } else {
        cna_model *m = NULL;
        if (cna_model_import_gltf(doc, NULL, &m, &err) == CNA_OK) {
            posed x;
            if (m->animation_count) {
                pose(m, 0, 0.5, &x);
                posed_free(&x);
            }
            cna_model_free(m);
        } else {
            assert_true(err.message[0] != '\0');
        }
        cna_gltf_document_free(doc);
        (*ok)++;
    }
    assert_int_equal(st.live, 0);
}

static void every_prefix_of_the_compressed_files_loads_or_is_refused(void **state)
{
    (void)state;
    for (size_t f = 0; f < FILE_COUNT; f++) {
        char path[512];
        snprintf(path, sizeof path, COMPRESSED "%s", all_files[f]);
        size_t size, ok = 0, refused = 0;
        uint8_t *bytes = tu_read_file(path, &size);
        for (size_t n = 1; n < size; n++) {
            /* a GLB cut short fails on its header's length; with the lengths patched, the BIN chunk is cut */
            load_any(bytes, n, &ok, &refused);
            if (n % 3) continue; /* the patched variants (which reach the chunks) at every third length */
            uint8_t *cut = malloc(n);
            assert_non_null(cut);
            memcpy(cut, bytes, n);
            if (n >= 20) {
                uint32_t json = (uint32_t)cut[12] | (uint32_t)cut[13] << 8 | (uint32_t)cut[14] << 16 |
                                (uint32_t)cut[15] << 24;
                tu_put_u32(cut + 8, (uint32_t)(n & ~(size_t)3));
                if ((size_t)json + 28 < n) tu_put_u32(cut + 20 + json, (uint32_t)((n & ~(size_t)3) - 28 - json));
                load_any(cut, n & ~(size_t)3, &ok, &refused);
            }
            free(cut);
        }
        print_message("%s: %zu prefixes (and every third patched): %zu load, %zu refused\n", all_files[f], size - 1, ok,
                      refused);
        assert_true(refused > 0);
        free(bytes);
    }
}

static void corrupted_payloads_load_or_are_refused(void **state)
{
    (void)state;
    static const uint8_t patterns[] = {0xFF, 0x01};
    for (size_t f = 0; f < FILE_COUNT; f++) {
        char path[512];
        snprintf(path, sizeof path, COMPRESSED "%s", all_files[f]);
        size_t size, ok = 0, refused = 0;
        uint8_t *bytes = tu_read_file(path, &size);
        size_t json = (size_t)bytes[12] | (size_t)bytes[13] << 8 | (size_t)bytes[14] << 16 | (size_t)bytes[15] << 24;
        size_t bin = 20 + json + 8; /* the BIN chunk's data: the compressed payloads */
        assert_true(bin < size);
        for (size_t at = bin; at < size; at++) {
            for (size_t k = 0; k < sizeof patterns; k++) {
                uint8_t keep = bytes[at];
                bytes[at] ^= patterns[k];
                load_any(bytes, size, &ok, &refused);
                bytes[at] = keep;
            }
        }
        print_message("%s: %zu corrupted payload bytes: %zu load, %zu refused\n", all_files[f], size - bin, ok,
                      refused);
        assert_true(refused > 0);
        free(bytes);
    }
}

/* ------------------------------------------------------------------ the extension's rules, exact messages */

static uint8_t *glb_edit(const char *file, const char *from, const char *to, size_t *out_size);

/* The compressed stream itself cut short: a meshopt view's and the Draco
 * view's byteLength given every smaller value. */
static void truncated_compressed_streams_load_or_are_refused(void **state)
{
    (void)state;
    size_t ok = 0, refused = 0;
    for (size_t len = 1; len < 1250; len++) {
        char to[160];
        snprintf(to, sizeof to, "\"byteOffset\":104,\"byteLength\":%zu,\"byteStride\":12", len);
        size_t size;
        uint8_t *bytes = glb_edit("rigged_simple.meshopt-noq.glb", "\"byteOffset\":104,\"byteLength\":1250,\"byteStride\":12",
                                  to, &size);
        load_any(bytes, size, &ok, &refused);
        free(bytes);
    }
    print_message("meshopt: 1249 cut streams: %zu load, %zu refused\n", ok, refused);
    assert_true(refused == 1249); /* the tail of an attribute stream is found from its end: every cut is refused */
#ifdef CNA_TEST_HAVE_DRACO
    ok = refused = 0;
    for (size_t len = 1; len < 2191; len++) {
        char to[160];
        snprintf(to, sizeof to, "\"byteOffset\":2328,\"byteLength\":%zu}", len);
        size_t size;
        uint8_t *bytes = glb_edit("rigged_simple.draco.glb", "\"byteOffset\":2328,\"byteLength\":2191}", to, &size);
        load_any(bytes, size, &ok, &refused);
        free(bytes);
    }
    print_message("draco: 2190 cut streams: %zu load, %zu refused\n", ok, refused);
    assert_true(refused > 0);
#endif
}



#ifdef CNA_TEST_HAVE_DRACO
/* The Draco stream's header read before decoding: a stream that declares
 * more vertices than three per triangle (edgebreaker), or counts that would
 * decode beyond the decoded-size limit, is refused before Draco's decoder
 * allocates for them. The stream of rigged_simple.draco.glb starts
 * "DRACO" 2 2 1 1, flags 0 0, traversal 0, then varints: 96 encoded
 * vertices, 188 triangles (0xbc 0x01); its attributes take 8 + 12 + 12 + 16
 * bytes a vertex (JOINTS_0 as unsigned shorts, NORMAL, POSITION, WEIGHTS_0). */
static void draco_stream_counts_are_checked_before_decoding(void **state)
{
    (void)state;
    size_t size;
    uint8_t *orig = tu_read_file(COMPRESSED "rigged_simple.draco.glb", &size);
    size_t at = 0;
    while (at + 5 <= size && memcmp(orig + at, "DRACO", 5) != 0) at++;
    assert_true(at + 15 < size);
    assert_int_equal(orig[at + 12], 96);
    assert_int_equal(orig[at + 13], 0xbc);
    assert_int_equal(orig[at + 14], 0x01);
    cna_gltf_options o;
    memset(&o, 0, sizeof o);
    o.max_decoded_size = 20000; /* the stream declares 188 * 12 + 96 * 48 = 6,864 bytes */
    const struct {
        uint8_t vertices, faces_lo, faces_hi;
        cna_result code;
        const char *message;
    } cases[] = {
        {96, 0xff, 0x7f, CNA_ERROR_LIMIT,
         "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression: bufferViews[4]: the Draco stream declares "
         "16383 triangles and 96 vertices (201204 decoded bytes), more than the decoded-size limit of 20000 bytes "
         "leaves (20000; cna_gltf_options.max_decoded_size, cna --max-decoded-size); refused before decoding"},
        {127, 0xa8, 0x00, CNA_ERROR_INVALID_DATA,
         "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression: bufferViews[4]: the Draco stream declares "
         "127 vertices, more than its 40 triangles can have (120); refused before decoding"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *bytes = malloc(size);
        memcpy(bytes, orig, size);
        bytes[at + 12] = cases[i].vertices;
        bytes[at + 13] = cases[i].faces_lo;
        bytes[at + 14] = cases[i].faces_hi;
        cna_gltf_document *doc = NULL;
        cna_error err;
        memset(&err, 0, sizeof err);
        assert_int_equal(cna_gltf_load_memory(bytes, size, &o, &doc, &err), cases[i].code);
        assert_null(doc);
        assert_string_equal(err.message, cases[i].message);
        free(bytes);
    }
    /* the untouched stream loads under the same limit */
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(orig, size, &o, &doc, &err), CNA_OK);
    cna_gltf_document_free(doc);
    free(orig);
}
#endif

/* The GLB `file` with its JSON edited (one occurrence of `from` -> `to`). */
static uint8_t *glb_edit(const char *file, const char *from, const char *to, size_t *out_size)
{
    char path[512];
    snprintf(path, sizeof path, COMPRESSED "%s", file);
    size_t size;
    uint8_t *bytes = tu_read_file(path, &size);
    size_t json = (size_t)bytes[12] | (size_t)bytes[13] << 8 | (size_t)bytes[14] << 16 | (size_t)bytes[15] << 24;
    char *text = malloc(json + 1);
    assert_non_null(text);
    memcpy(text, bytes + 20, json);
    text[json] = '\0';
    char *edited = tu_edit(text, from, to);
    size_t n = strlen(edited), padded = (n + 3) & ~(size_t)3, rest = size - 20 - json;
    uint8_t *out = malloc(20 + padded + rest);
    assert_non_null(out);
    memcpy(out, bytes, 20);
    memcpy(out + 20, edited, n);
    memset(out + 20 + n, ' ', padded - n);
    memcpy(out + 20 + padded, bytes + 20 + json, rest);
    tu_put_u32(out + 8, (uint32_t)(20 + padded + rest));
    tu_put_u32(out + 12, (uint32_t)padded);
    *out_size = 20 + padded + rest;
    free(text);
    free(edited);
    free(bytes);
    return out;
}

static void expect_edit(const char *file, const char *from, const char *to, cna_result code, const char *message)
{
    size_t size;
    uint8_t *bytes = glb_edit(file, from, to, &size);
    cna_gltf_document *doc = NULL;
    cna_error err;
    cna_result r = cna_gltf_load_memory(bytes, size, NULL, &doc, &err);
    if (r != code || strcmp(err.message, message) != 0) {
        print_error("expected %s \"%s\"\n     got %s \"%s\"\n", cna_result_name(code), message, cna_result_name(r),
                    r ? err.message : "");
        fail();
    }
    assert_null(doc);
    free(bytes);
}

#define MO "rigged_simple.meshopt-noq.glb"
#define VIEW1 "\"byteOffset\":104,\"byteLength\":1250,\"byteStride\":12,\"mode\":\"ATTRIBUTES\",\"count\":160"
#define MOEXT "bufferViews[1].extensions.EXT_meshopt_compression"

static void meshopt_rules_are_checked_before_decoding(void **state)
{
    (void)state;
    expect_edit(MO, VIEW1, "\"byteOffset\":104,\"byteLength\":1250,\"byteStride\":12,\"mode\":\"ATTRIBUTES\",\"count\":100",
                CNA_ERROR_INVALID_DATA,
                MOEXT ": count 100 with byteStride 12 does not make the bufferView's byteLength 1920");
    expect_edit(MO, VIEW1, "\"byteOffset\":104,\"byteLength\":1250,\"byteStride\":6,\"mode\":\"ATTRIBUTES\",\"count\":320",
                CNA_ERROR_INVALID_DATA, MOEXT ".byteStride: 6; mode ATTRIBUTES needs a multiple of 4 between 4 and 256");
    expect_edit(MO, VIEW1, "\"byteOffset\":104,\"byteLength\":1250,\"byteStride\":12,\"mode\":\"LINES\",\"count\":160",
                CNA_ERROR_INVALID_DATA, MOEXT ".mode: \"LINES\" is not ATTRIBUTES, TRIANGLES or INDICES");
    expect_edit(MO, VIEW1,
                "\"byteOffset\":104,\"byteLength\":1250,\"byteStride\":12,\"mode\":\"ATTRIBUTES\",\"count\":160,"
                "\"filter\":\"QUATERNION\"",
                CNA_ERROR_INVALID_DATA, MOEXT ".byteStride: 12; filter QUATERNION needs 8");
    expect_edit(MO, VIEW1, "\"byteOffset\":4000,\"byteLength\":1250,\"byteStride\":12,\"mode\":\"ATTRIBUTES\",\"count\":160",
                CNA_ERROR_INVALID_DATA, MOEXT ": byteOffset 4000 + byteLength 1250 exceeds buffers[0].byteLength 4052");
    expect_edit(MO, "\"buffer\":0,\"byteOffset\":104", "\"buffer\":1,\"byteOffset\":104", CNA_ERROR_INVALID_DATA, MOEXT ".buffer: buffers[1] is a fallback buffer (EXT_meshopt_compression.fallback); compressed data cannot be in it");
    expect_edit(MO, "\"byteStride\":2,\"mode\":\"TRIANGLES\",\"count\":564", "\"byteStride\":2,\"mode\":\"TRIANGLES\",\"count\":563",
                CNA_ERROR_INVALID_DATA,
                "bufferViews[4].extensions.EXT_meshopt_compression.count: 563 is not a multiple of 3 (mode TRIANGLES holds whole triangles)");
    expect_edit(MO, "\"byteStride\":2,\"mode\":\"TRIANGLES\",\"count\":564",
                "\"byteStride\":2,\"mode\":\"TRIANGLES\",\"count\":564,\"filter\":\"EXPONENTIAL\"", CNA_ERROR_INVALID_DATA,
                "bufferViews[4].extensions.EXT_meshopt_compression.filter: EXPONENTIAL is not allowed with mode TRIANGLES");
    /* a view that is not compressed cannot read a fallback buffer without data */
    expect_edit(MO, ",\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,\"byteOffset\":104,\"byteLength\":1250,"
                    "\"byteStride\":12,\"mode\":\"ATTRIBUTES\",\"count\":160}}",
                "", CNA_ERROR_INVALID_DATA,
                "bufferViews[1].buffer: buffers[1] is an EXT_meshopt_compression fallback buffer without data (no uri, "
                "and it is not a GLB's BIN chunk), but this bufferView is not compressed");
    /* the decoder's own refusal: the stream of view 1 read as view 0's (a header byte that is not 0xa0) */
    expect_edit(MO, VIEW1, "\"byteOffset\":105,\"byteLength\":1249,\"byteStride\":12,\"mode\":\"ATTRIBUTES\",\"count\":160",
                CNA_ERROR_INVALID_DATA,
                MOEXT ": the 1249 bytes at byteOffset 105 of buffers[0] are not valid ATTRIBUTES data for 160 elements of 12 "
                "bytes (meshoptimizer error -1)");
}

/* Modes INDICES and the EXPONENTIAL filter, which gltfpack 0.18 does not write:
 * an index sequence and exponent-encoded floats made here with meshoptimizer's
 * encoders decode to the values encoded. */
#include <meshoptimizer.h>

/* 4096 vertices of 16 zero bytes: 64 KiB decoded from a few hundred bytes,
 * refused under a decoded-size limit of 8 KiB; the file-size limit, which
 * the file itself is within, does not count decoded bytes. */
static void meshopt_decoded_bytes_count_against_the_decoded_size_limit(void **state)
{
    (void)state;
    size_t bound = meshopt_encodeVertexBufferBound(4096, 16);
    uint8_t *zeros = calloc(4096, 16), *enc = malloc(bound);
    assert_true(zeros && enc);
    size_t len = meshopt_encodeVertexBuffer(enc, bound, zeros, 4096, 16);
    assert_true(len > 0 && len < 2048);
    char *b64 = tu_base64(enc, len);
    char json[8192];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_meshopt_compression\"],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"},"
             "{\"byteLength\":65536,\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}],"
             "\"bufferViews\":[{\"buffer\":1,\"byteLength\":65536,\"byteStride\":16,\"extensions\":{"
             "\"EXT_meshopt_compression\":{\"buffer\":0,\"byteLength\":%zu,\"byteStride\":16,\"count\":4096,"
             "\"mode\":\"ATTRIBUTES\"}}}]}",
             len, b64, len);
    cna_gltf_options o;
    memset(&o, 0, sizeof o);
    o.max_decoded_size = 8192;
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(json, strlen(json), &o, &doc, &err), CNA_ERROR_LIMIT);
    assert_string_equal(err.message, "bufferViews[0].extensions.EXT_meshopt_compression: 65536 decoded bytes (65536 in "
                                     "all) exceed the decoded-size limit of 8192 bytes "
                                     "(cna_gltf_options.max_decoded_size, cna --max-decoded-size)");
    assert_null(doc);
    o.max_decoded_size = 65536; /* exactly enough */
    o.max_file_size = 8192;     /* the file's own bytes are within it; decoded bytes do not count */
    assert_int_equal(cna_gltf_load_memory(json, strlen(json), &o, &doc, &err), CNA_OK);
    cna_gltf_document_free(doc);
    o.max_decoded_size = 0; /* the default limit: it loads, all zeros */
    o.max_file_size = 0;
    assert_int_equal(cna_gltf_load_memory(json, strlen(json), &o, &doc, &err), CNA_OK);
    assert_int_equal(doc->buffer_views[0].encoding, CNA_GLTF_VIEW_MESHOPT);
    assert_memory_equal(doc->buffer_views[0].data, zeros, 65536);
    cna_gltf_document_free(doc);
    free(b64);
    free(zeros);
    free(enc);
}

/* A fallback buffer that holds data (here a data URI: 64 bytes, the
 * uncompressed vertices, then 12 bytes of other data) and that a plain view
 * also reads (exporters put images there): the compressed view is decoded
 * from buffers[0], the plain one reads the fallback's bytes, with the
 * diagnostic meshopt-fallback-read, once for the buffer although two plain
 * views use it. A fallback no plain view uses is still never read (its uri
 * may then be anything). */
/* The default decoded-size limit, 24 MiB: a view that would decode to one
 * byte more (its stride 4, 6291457 elements) is refused before anything is
 * decoded or allocated (its compressed bytes are not even valid). */
static void meshopt_default_decoded_size_limit_is_24_mib(void **state)
{
    (void)state;
    assert_int_equal(CNA_GLTF_DEFAULT_MAX_DECODED_SIZE, 25165824);
    static const char one[] =
        "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_meshopt_compression\"],"
        "\"buffers\":[{\"byteLength\":4,\"uri\":\"data:application/octet-stream;base64,AAAAAA==\"},"
        "{\"byteLength\":25165828,\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}],"
        "\"bufferViews\":[{\"buffer\":1,\"byteLength\":25165828,\"byteStride\":4,\"extensions\":{"
        "\"EXT_meshopt_compression\":{\"buffer\":0,\"byteLength\":4,\"byteStride\":4,\"count\":6291457,"
        "\"mode\":\"ATTRIBUTES\"}}}]}";
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(one, strlen(one), NULL, &doc, &err), CNA_ERROR_LIMIT);
    assert_null(doc);
    assert_string_equal(err.message, "bufferViews[0].extensions.EXT_meshopt_compression: 25165828 decoded bytes "
                                     "(25165828 in all) exceed the decoded-size limit of 25165824 bytes "
                                     "(cna_gltf_options.max_decoded_size, cna --max-decoded-size)");
}

static void meshopt_fallback_with_data_is_read_by_plain_views(void **state)
{
    (void)state;
    float fb[19];
    for (int i = 0; i < 19; i++) fb[i] = (float)(i * i) - 3.5f;
    size_t bound = meshopt_encodeVertexBufferBound(4, 16);
    uint8_t *enc = malloc(bound);
    assert_non_null(enc);
    size_t len = meshopt_encodeVertexBuffer(enc, bound, fb, 4, 16);
    assert_true(len > 0);
    char *b64 = tu_base64(enc, len), *fb64 = tu_base64((const uint8_t *)fb, sizeof fb);
    char *json = malloc(strlen(b64) + strlen(fb64) + 2048);
    assert_non_null(json);
    sprintf(json,
            "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_meshopt_compression\"],"
            "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"},"
            "{\"byteLength\":76,\"uri\":\"data:application/octet-stream;base64,%s\","
            "\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}},"
            "{\"byteLength\":64,\"uri\":\"missing.bin\",\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}],"
            "\"bufferViews\":[{\"buffer\":1,\"byteLength\":64,\"byteStride\":16,\"extensions\":{"
            "\"EXT_meshopt_compression\":{\"buffer\":0,\"byteLength\":%zu,\"byteStride\":16,\"count\":4,"
            "\"mode\":\"ATTRIBUTES\"}}},{\"buffer\":1,\"byteOffset\":64,\"byteLength\":12},"
            "{\"buffer\":1,\"byteOffset\":4,\"byteLength\":8},"
            "{\"buffer\":2,\"byteLength\":64,\"byteStride\":16,\"extensions\":{"
            "\"EXT_meshopt_compression\":{\"buffer\":0,\"byteLength\":%zu,\"byteStride\":16,\"count\":4,"
            "\"mode\":\"ATTRIBUTES\"}}}],"
            "\"accessors\":[{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"},"
            "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}]}",
            len, b64, fb64, len, len);
    cna_gltf_document *doc = NULL;
    cna_error err;
    if (cna_gltf_load_memory(json, strlen(json), NULL, &doc, &err) != CNA_OK) fail_msg("%s", err.message);
    assert_int_equal(doc->buffers[1].source, CNA_GLTF_SOURCE_DATA_URI);
    assert_int_equal(doc->buffers[2].source, CNA_GLTF_SOURCE_NONE);
    assert_int_equal(doc->buffer_views[0].encoding, CNA_GLTF_VIEW_MESHOPT);
    assert_memory_equal(doc->buffer_views[0].data, fb, 64);
    assert_memory_equal(doc->buffer_views[3].data, fb, 64);
    float v[3], s[2];
    assert_int_equal(cna_gltf_accessor_read_floats(doc, 0, v, 3, &err), CNA_OK);
    assert_memory_equal(v, fb + 16, sizeof v);
    assert_int_equal(cna_gltf_accessor_read_floats(doc, 1, s, 2, &err), CNA_OK);
    assert_memory_equal(s, fb + 1, sizeof s);
    tu_expect_diag(doc, CNA_GLTF_DIAG_MESHOPT_FALLBACK_READ, 1,
                   "bufferViews[1].buffer: buffers[1] is an EXT_meshopt_compression fallback buffer (only compressed "
                   "views should use it), but this bufferView is not compressed; the buffer's data is read");
    cna_gltf_document_free(doc);
    free(json);
    free(fb64);
    free(b64);
    free(enc);
}

static void meshopt_indices_mode_and_exponential_filter_decode(void **state)
{
    (void)state;
    const uint32_t lines[8] = {0, 1, 1, 2, 2, 3, 3, 0};
    uint8_t ienc[64];
    size_t ilen = meshopt_encodeIndexSequence(ienc, sizeof ienc, lines, 8);
    assert_true(ilen > 0);
    float values[12] = {0.5f, -2.0f, 1024.0f, 0.375f, 3.0f, -0.125f, 7.0f, 1.5f, -96.0f, 0.0f, 2.25f, 10.0f};
    uint32_t exp[12];
    meshopt_encodeFilterExp(exp, 4, 12, 23, values); /* 4 elements of 3 floats, full mantissa: exact for these */
    uint8_t venc[256];
    size_t vlen = meshopt_encodeVertexBuffer(venc, sizeof venc, exp, 4, 12);
    assert_true(vlen > 0);
    uint8_t bin[512];
    memset(bin, 0, sizeof bin);
    memcpy(bin, ienc, ilen);
    size_t voff = (ilen + 3) & ~(size_t)3;
    memcpy(bin + voff, venc, vlen);
    char *b64 = tu_base64(bin, voff + vlen);
    char *json = malloc(strlen(b64) + 2048);
    assert_non_null(json);
    sprintf(json,
            "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_meshopt_compression\"],"
            "\"extensionsRequired\":[\"EXT_meshopt_compression\"],"
            "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"},"
            "{\"byteLength\":64,\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}],"
            "\"bufferViews\":[{\"buffer\":1,\"byteLength\":16,\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,"
            "\"byteLength\":%zu,\"byteStride\":2,\"count\":8,\"mode\":\"INDICES\"}}},"
            "{\"buffer\":1,\"byteOffset\":16,\"byteLength\":48,\"byteStride\":12,\"extensions\":{\"EXT_meshopt_compression\":"
            "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":12,\"count\":4,\"mode\":\"ATTRIBUTES\","
            "\"filter\":\"EXPONENTIAL\"}}}],"
            "\"accessors\":[{\"bufferView\":0,\"componentType\":5123,\"count\":8,\"type\":\"SCALAR\"},"
            "{\"bufferView\":1,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"min\":[-96,-2,-0.125],\"max\":[7,3,1024]}],"
            "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":1},\"indices\":0,\"mode\":1}]}],"
            "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
            voff + vlen, b64, ilen, voff, vlen);
    cna_gltf_document *doc = tu_expect_ok(json, NULL, 0);
    uint32_t idx[8];
    float xyz[12];
    cna_error err;
    assert_int_equal(cna_gltf_accessor_read_uints(doc, 0, idx, 8, &err), CNA_OK);
    assert_int_equal(cna_gltf_accessor_read_floats(doc, 1, xyz, 12, &err), CNA_OK);
    assert_memory_equal(idx, lines, sizeof lines);
    for (int k = 0; k < 12; k++) assert_true(xyz[k] == values[k]);
    cna_gltf_document_free(doc);
    free(json);
    free(b64);
}

#define DR "rigged_simple.draco.glb"
#define DREXT "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression"

static void draco_rules_name_the_primitive(void **state)
{
    (void)state;
#ifdef CNA_TEST_HAVE_DRACO
    expect_edit(DR, "\"JOINTS_0\":0,\"NORMAL\":1,\"POSITION\":2,\"WEIGHTS_0\":3}",
                "\"JOINTS_0\":0,\"NORMAL\":1,\"POSITION\":2,\"WEIGHTS_0\":3,\"TEXCOORD_0\":4}", CNA_ERROR_INVALID_DATA,
                DREXT ".attributes.TEXCOORD_0: the primitive has no attribute of that name");
    expect_edit(DR, "\"JOINTS_0\":0,\"NORMAL\":1,\"POSITION\":2,\"WEIGHTS_0\":3}",
                "\"JOINTS_0\":0,\"NORMAL\":1,\"POSITION\":7,\"WEIGHTS_0\":3}", CNA_ERROR_INVALID_DATA,
                DREXT ".attributes.POSITION: the Draco mesh has no attribute 7");
    expect_edit(DR, "\"JOINTS_0\":0,\"NORMAL\":1,\"POSITION\":2,\"WEIGHTS_0\":3}",
                "\"JOINTS_0\":0,\"NORMAL\":1,\"POSITION\":3,\"WEIGHTS_0\":2}", CNA_ERROR_INVALID_DATA,
                DREXT ".attributes.POSITION: Draco attribute 3 has 4 components, but accessors[8] is VEC3");
    expect_edit(DR, "\"indices\":5,\"mode\":4", "\"indices\":5,\"mode\":5", CNA_ERROR_UNSUPPORTED,
                DREXT ": primitive mode 5; Draco-compressed primitives are read as TRIANGLES (4) only");
    expect_edit(DR, "\"indices\":5,\"mode\":4", "\"mode\":4", CNA_ERROR_INVALID_DATA,
                DREXT ": the primitive has no indices; a Draco-compressed mesh needs primitive.indices");
    expect_edit(DR, "{\"componentType\":5123,\"count\":564,", "{\"componentType\":5123,\"count\":561,",
                CNA_ERROR_INVALID_DATA,
                DREXT ": indices: accessors[5].count is 561, but the Draco mesh has 188 triangles (564 indices)");
    expect_edit(DR, "{\"componentType\":5123,\"count\":160,", "{\"componentType\":5123,\"count\":150,",
                CNA_ERROR_INVALID_DATA, DREXT ".attributes.JOINTS_0: accessors[6].count is 150, but the Draco mesh has 160 points");
    /* the Draco data is view 4; view 3 (the inverse bind matrices) is no Draco mesh */
    expect_edit(DR, "\"bufferView\":4,\"attributes\"", "\"bufferView\":3,\"attributes\"", CNA_ERROR_INVALID_DATA,
                DREXT ": bufferViews[3] (128 bytes) is not a Draco triangle mesh: Not a Draco file.");
    /* indices declared 20,000,000 (40 MB as UNSIGNED_SHORT): beyond the decoded-size limit,
     * refused before Draco's decoder runs, naming the bytes the accessors declare */
    expect_edit(DR, "{\"componentType\":5123,\"count\":564,", "{\"componentType\":5123,\"count\":20000000,",
                CNA_ERROR_LIMIT,
                DREXT ": the primitive's accessors declare 40007680 decoded bytes (40007680 in all), more than the "
                "decoded-size limit of 25165824 bytes (cna_gltf_options.max_decoded_size, cna --max-decoded-size)");
    /* JOINTS_0 given a bufferView of its own: part uncompressed, part not */
    expect_edit(DR, "{\"componentType\":5123,\"count\":160,", "{\"bufferView\":4,\"componentType\":5123,\"count\":160,",
                CNA_ERROR_INVALID_DATA,
                DREXT ": JOINTS_0 (accessors[6]) has a bufferView, but 4 of the primitive's 5 accessors have none: either "
                "every one holds uncompressed data or none does");
#else
    size_t size;
    uint8_t *bytes = tu_read_file(COMPRESSED DR, &size);
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(bytes, size, NULL, &doc, &err), CNA_ERROR_UNSUPPORTED);
    assert_string_equal(err.message, "extensionsRequired[0]: \"KHR_draco_mesh_compression\" is not supported: cna was "
                                     "built without Draco (CMake option CNA_WITH_DRACO)");
    free(bytes);
    /* only used: the primitive without uncompressed data is refused, naming it */
    expect_edit(DR, ",\"extensionsRequired\":[\"KHR_draco_mesh_compression\"]", "", CNA_ERROR_UNSUPPORTED,
                DREXT ": cna was built without Draco (CMake option CNA_WITH_DRACO), and JOINTS_0 (accessors[6]) has no "
                "uncompressed data");
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(meshopt_lossless_decodes_to_the_uncompressed_bytes),
        cmocka_unit_test(meshopt_lossless_imports_the_same_model),
        cmocka_unit_test(meshopt_quantised_decodes_to_the_uncompressed_bytes),
        cmocka_unit_test(meshopt_filters_decode_within_their_precision),
        cmocka_unit_test(meshopt_quantised_poses_are_the_formula_on_the_decoded_data),
#ifdef CNA_TEST_HAVE_DRACO
        cmocka_unit_test(draco_24_bit_poses_equal_the_source),
        cmocka_unit_test(draco_quantised_poses_follow_the_source),
        cmocka_unit_test(draco_quantised_poses_are_the_formula_on_the_decoded_data),
#endif
        cmocka_unit_test(meshopt_rules_are_checked_before_decoding),
        cmocka_unit_test(meshopt_decoded_bytes_count_against_the_decoded_size_limit),
        cmocka_unit_test(meshopt_indices_mode_and_exponential_filter_decode),
        cmocka_unit_test(meshopt_fallback_with_data_is_read_by_plain_views),
        cmocka_unit_test(meshopt_default_decoded_size_limit_is_24_mib),
        cmocka_unit_test(draco_rules_name_the_primitive),
#ifdef CNA_TEST_HAVE_DRACO
        cmocka_unit_test(draco_stream_counts_are_checked_before_decoding),
#endif
        cmocka_unit_test(every_prefix_of_the_compressed_files_loads_or_is_refused),
        cmocka_unit_test(corrupted_payloads_load_or_are_refused),
        cmocka_unit_test(truncated_compressed_streams_load_or_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
