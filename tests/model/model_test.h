/*
 * Shared helpers of the model tests: loading fixtures, comparing matrices,
 * posing a model at a time (scene-node clip + one player per skin) and the
 * final positions of a part as drawn. Header-only; include after <cmocka.h>.
 */
#ifndef CNA_TESTS_MODEL_TEST_H
#define CNA_TESTS_MODEL_TEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "model/bone_pose.h"

static inline const char *model_test_path(char *buf, size_t size, const char *rel)
{
    snprintf(buf, size, "%s/%s", CNA_TEST_DATA_DIR, rel);
    return buf;
}

/* Load tests/data/<rel> with `mode`; fails the test on error. */
static inline cna_model *model_test_load(const char *rel, cna_clip_mode mode)
{
    char path[1024];
    cna_import_options o;
    memset(&o, 0, sizeof o);
    o.clip_mode = mode;
    cna_model *m = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_result r = cna_model_load_file(model_test_path(path, sizeof path, rel), &o, &m, &err);
    if (r != CNA_OK) print_error("%s: %s\n", rel, err.message);
    assert_int_equal(r, CNA_OK);
    assert_non_null(m);
    return m;
}

static inline double mat_max_diff(const cna_mat4 *a, const cna_mat4 *b)
{
    double d = 0;
    for (int i = 0; i < 16; i++) {
        double e = fabs((double)a->m[i] - (double)b->m[i]);
        if (!(e <= d)) d = e;
    }
    return d;
}

#define assert_mat_near(a, b, tol) model_test_mat_near((a), (b), (tol), #a, __FILE__, __LINE__)
static inline void model_test_mat_near(const cna_mat4 *a, const cna_mat4 *b, double tol,
                                       const char *what, const char *file, int line)
{
    double d = mat_max_diff(a, b);
    if (!(d <= tol)) {
        print_error("%s:%d: %s differs by %g (tolerance %g)\n", file, line, what, d, tol);
        for (int i = 0; i < 16; i++)
            print_error("  m[%d] = %.9g, expected %.9g\n", i, (double)a->m[i], (double)b->m[i]);
        fail();
    }
}

/* World transform of a glTF node at rest, over the whole graph. */
static inline void gltf_node_world(const cna_gltf_document *doc, int32_t node, cna_mat4 *out)
{
    cna_mat4_identity(out);
    for (int32_t n = node; n >= 0; n = doc->nodes[n].parent) {
        cna_mat4 l;
        cna_gltf_node_local_matrix(&doc->nodes[n], &l);
        cna_mat4_mul(out, &l, out);
    }
}

/* A posed model (the model itself is not written): the bones' local
 * transforms after the animation's scene-node clip and every skin's pose,
 * their absolute transforms, one player per skin. */
typedef struct posed {
    cna_player **players;
    cna_mat4 *local;
    cna_mat4 *absolute;
    size_t skin_count;
} posed;

/* Pose `m` at `seconds` of animation `anim` (-1: rest pose). */
static inline void pose_model(const cna_model *m, long anim, double seconds, posed *p)
{
    cna_error err;
    memset(p, 0, sizeof *p);
    p->skin_count = m->skin_count;
    p->players = (cna_player **)calloc(m->skin_count + 1, sizeof *p->players);
    p->local = (cna_mat4 *)calloc(m->bone_count + 1, sizeof *p->local);
    p->absolute = (cna_mat4 *)calloc(m->bone_count + 1, sizeof *p->absolute);
    assert_non_null(p->players);
    assert_non_null(p->local);
    assert_non_null(p->absolute);
    bone_pose_rest(m, p->local);
    if (anim >= 0) bone_pose_clip(m, &m->node_clips[anim], seconds, p->local);
    for (size_t s = 0; s < m->skin_count; s++) {
        const cna_skinning_data *d = &m->skins[s].data;
        assert_int_equal(cna_player_create(d, NULL, &p->players[s], &err), CNA_OK);
        if (anim >= 0) assert_int_equal(cna_player_start_clip(p->players[s], &d->clips[anim], &err), CNA_OK);
        assert_int_equal(cna_player_update(p->players[s], cna_ticks_from_seconds(anim >= 0 ? seconds : 0.0),
                                           false, false, &err), CNA_OK);
        bone_pose_skin(m, s, cna_player_bone_transforms(p->players[s]), p->local);
    }
    bone_pose_absolute(m, p->local, p->absolute);
}

static inline void posed_free(posed *p)
{
    for (size_t s = 0; s < p->skin_count; s++) cna_player_free(p->players[s]);
    free(p->players);
    free(p->local);
    free(p->absolute);
    memset(p, 0, sizeof *p);
}

/* Final model-space positions of a part as drawn: morphed with `weights`
 * (count 0: the base bytes), skinned with the mesh's skin palette, then moved
 * by the parent bone's absolute transform. out: vertex_count * 3 floats. */
static inline void part_final_positions(const cna_model *m, const posed *p, size_t mesh_index,
                                        size_t part_index, const float *weights, size_t weight_count,
                                        float *out)
{
    const cna_model_mesh *mesh = &m->meshes[mesh_index];
    const cna_model_part *part = &mesh->parts[part_index];
    size_t n = part->vertex_count, stride = part->declaration.stride;
    const void *bytes = part->vertices;
    void *blended = NULL;
    cna_error err;
    if (part->morph && weight_count > 0) {
        size_t size = cna_morph_blend_size(part->morph);
        blended = malloc(size);
        assert_non_null(blended);
        assert_int_equal(cna_morph_blend(part->morph, weights, weight_count, blended, size, &err), CNA_OK);
        bytes = blended;
    }
    if (mesh->skin >= 0) {
        cna_skinning_layout layout;
        assert_int_equal(cna_skinning_layout_canonical((uint32_t)stride, &layout, &err), CNA_OK);
        assert_int_equal(cna_skin_positions(&layout, bytes, n, cna_player_skin_transforms(p->players[mesh->skin]),
                                            m->skins[mesh->skin].joint_count, out, n * 3, &err),
                         CNA_OK);
    } else {
        for (size_t v = 0; v < n; v++) memcpy(&out[v * 3], (const unsigned char *)bytes + v * stride, 12);
    }
    const cna_mat4 *draw = &p->absolute[mesh->parent_bone];
    for (size_t v = 0; v < n; v++) {
        cna_vec3 q = cna_mat4_transform_point(draw, cna_vec3_make(out[v * 3], out[v * 3 + 1], out[v * 3 + 2]));
        out[v * 3] = q.x;
        out[v * 3 + 1] = q.y;
        out[v * 3 + 2] = q.z;
    }
    free(blended);
}

#endif
