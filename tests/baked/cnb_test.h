/*
 * Shared helpers of the .cnb tests: the valid corpus list, converting in
 * memory, comparing two models field by field (bytes, matrices and keys bit
 * for bit) and posing a model at a time. Header-only; include after <cmocka.h>.
 */
#ifndef CNA_TESTS_CNB_TEST_H
#define CNA_TESTS_CNB_TEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "model/bone_pose.h"

typedef struct cnb_corpus_entry {
    const char *name;  /* corpus/valid/<name>/ and oracle/<name>.json */
    const char *file;
} cnb_corpus_entry;

static const cnb_corpus_entry cnb_corpus[] = {
    {"AnimatedMorphCube", "AnimatedMorphCube.gltf"},
    {"BoxAnimated", "box_animated.gltf"},
    {"InterpolationTest", "interpolation_test.gltf"},
    {"MorphStressTest", "MorphStressTest.gltf"},
    {"RiggedSimple", "rigged_simple.gltf"},
    {"RobotExpressive", "robot.glb"},
    {"SimpleMorph", "SimpleMorph.gltf"},
    {"SimpleSkin", "simple_skin.gltf"},
    {"Triangle", "triangle.gltf"},
};
#define CNB_CORPUS_COUNT (sizeof cnb_corpus / sizeof cnb_corpus[0])

static inline cna_model *cnb_test_import(const cnb_corpus_entry *e, cna_clip_mode mode)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/valid/%s/%s", CNA_TEST_DATA_DIR, e->name, e->file);
    cna_import_options o;
    memset(&o, 0, sizeof o);
    o.clip_mode = mode;
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_model_load_file(path, &o, &m, &err);
    if (r) print_error("%s: %s\n", path, err.message);
    assert_int_equal(r, CNA_OK);
    return m;
}

/* The .cnb bytes of a model (malloc'd). */
static inline void *cnb_test_bake(const cna_model *m, float unit_scale, size_t *size)
{
    cna_cnb_write_options o;
    memset(&o, 0, sizeof o);
    o.unit_scale = unit_scale;
    void *bytes = NULL;
    cna_error err;
    cna_result r = cna_cnb_write_memory(m, &o, &bytes, size, &err);
    if (r) print_error("bake: %s\n", err.message);
    assert_int_equal(r, CNA_OK);
    return bytes;
}

static inline cna_model *cnb_test_load(const void *bytes, size_t size)
{
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_cnb_load_memory(bytes, size, NULL, &m, &err);
    if (r) print_error("load: %s\n", err.message);
    assert_int_equal(r, CNA_OK);
    return m;
}

#define CNB_SAME_BYTES(a, b, n) cnb_same_bytes((a), (b), (n), #a, __LINE__)
static inline void cnb_same_bytes(const void *a, const void *b, size_t n, const char *what, int line)
{
    if (n == 0) return;
    if (!a || !b || memcmp(a, b, n) != 0) {
        print_error("line %d: %s differs (%zu bytes)\n", line, what, n);
        fail();
    }
}
#define CNB_SAME_NULLNESS(a, b) assert_int_equal((a) == NULL, (b) == NULL)
#define CNB_SAME_STR(a, b)                                           \
    do {                                                             \
        CNB_SAME_NULLNESS(a, b);                                     \
        if (a) assert_string_equal(a, b);                            \
    } while (0)

static inline void cnb_same_clip(const cna_clip *a, const cna_clip *b)
{
    CNB_SAME_STR(a->name, b->name);
    assert_int_equal(a->duration, b->duration);
    assert_int_equal(a->target, b->target);
    assert_int_equal(a->track_count, b->track_count);
    for (size_t t = 0; t < a->track_count; t++) {
        assert_int_equal(a->tracks[t].bone, b->tracks[t].bone);
        assert_int_equal(a->tracks[t].key_count, b->tracks[t].key_count);
        CNB_SAME_BYTES(a->tracks[t].keys, b->tracks[t].keys, a->tracks[t].key_count * sizeof(cna_keyframe));
    }
}

static inline void cnb_same_weight_track(const cna_morph_weight_track *a, const cna_morph_weight_track *b)
{
    CNB_SAME_NULLNESS(a, b);
    if (!a) return;
    assert_int_equal(a->key_count, b->key_count);
    assert_int_equal(a->target_count, b->target_count);
    assert_int_equal(a->interpolation, b->interpolation);
    size_t n = a->key_count * a->target_count * sizeof(float);
    CNB_SAME_BYTES(a->times, b->times, a->key_count * sizeof(float));
    CNB_SAME_BYTES(a->values, b->values, n);
    CNB_SAME_NULLNESS(a->in_tangents, b->in_tangents);
    CNB_SAME_NULLNESS(a->out_tangents, b->out_tangents);
    if (a->in_tangents) CNB_SAME_BYTES(a->in_tangents, b->in_tangents, n);
    if (a->out_tangents) CNB_SAME_BYTES(a->out_tangents, b->out_tangents, n);
}

static inline void cnb_same_deltas(const cna_morph_deltas *a, const cna_morph_deltas *b)
{
    assert_int_equal(a->count, b->count);
    CNB_SAME_BYTES(a->values, b->values, a->count * 3 * sizeof(float));
    CNB_SAME_NULLNESS(a->indices, b->indices);
    if (a->indices) CNB_SAME_BYTES(a->indices, b->indices, a->count * sizeof(uint32_t));
}

static inline void cnb_same_part(const cna_model_part *a, const cna_model_part *b)
{
    assert_int_equal(a->gltf_mesh, b->gltf_mesh);
    assert_int_equal(a->gltf_primitive, b->gltf_primitive);
    assert_int_equal(a->material, b->material);
    assert_int_equal(a->effect, b->effect);
    assert_int_equal(a->vertex_count, b->vertex_count);
    CNB_SAME_BYTES(&a->declaration, &b->declaration, sizeof a->declaration);
    CNB_SAME_BYTES(a->vertices, b->vertices, a->vertex_count * a->declaration.stride);
    assert_int_equal(a->index_count, b->index_count);
    CNB_SAME_BYTES(a->indices, b->indices, a->index_count * sizeof(uint32_t));
    assert_int_equal(a->primitive_type, b->primitive_type);
    CNB_SAME_NULLNESS(a->source_vertex, b->source_vertex);
    if (a->source_vertex) CNB_SAME_BYTES(a->source_vertex, b->source_vertex, a->vertex_count * 4);
    assert_int_equal(a->source_vertex_count, b->source_vertex_count);
    CNB_SAME_NULLNESS(a->morph, b->morph);
    if (a->morph) {
        const cna_morph_target_data *x = a->morph, *y = b->morph;
        assert_int_equal(x->base_size, y->base_size);
        CNB_SAME_BYTES(x->base_vertices, y->base_vertices, x->base_size);
        assert_int_equal(x->vertex_count, y->vertex_count);
        CNB_SAME_BYTES(&x->layout, &y->layout, sizeof x->layout);
        assert_int_equal(x->target_count, y->target_count);
        for (size_t t = 0; t < x->target_count; t++) {
            cnb_same_deltas(&x->targets[t].positions, &y->targets[t].positions);
            cnb_same_deltas(&x->targets[t].normals, &y->targets[t].normals);
            cnb_same_deltas(&x->targets[t].tangents, &y->targets[t].tangents);
        }
        assert_int_equal(x->initial_weight_count, y->initial_weight_count);
        CNB_SAME_BYTES(x->initial_weights, y->initial_weights, x->initial_weight_count * sizeof(float));
        cnb_same_weight_track(x->weight_track, y->weight_track);
        assert_int_equal(x->recompute_flat_normals, y->recompute_flat_normals);
        assert_int_equal(x->triangle_index_count, y->triangle_index_count);
        CNB_SAME_BYTES(x->triangle_indices, y->triangle_indices, x->triangle_index_count * 4);
    }
    assert_int_equal(a->weight_track_count, b->weight_track_count);
    CNB_SAME_NULLNESS(a->weight_tracks, b->weight_tracks);
    for (size_t i = 0; a->weight_tracks && i < a->weight_track_count; i++)
        cnb_same_weight_track(a->weight_tracks[i], b->weight_tracks[i]);
}

static inline void cnb_same_skin(const cna_model_skin *a, const cna_model_skin *b, size_t bone_count)
{
    const cna_skinning_data *x = &a->data, *y = &b->data;
    size_t J = (size_t)x->bone_count;
    assert_int_equal(x->bone_count, y->bone_count);
    assert_int_equal(x->hierarchy_count, y->hierarchy_count);
    assert_int_equal(x->bind_pose_count, y->bind_pose_count);
    assert_int_equal(x->inverse_bind_pose_count, y->inverse_bind_pose_count);
    assert_int_equal(x->root_prefix_count, y->root_prefix_count);
    CNB_SAME_BYTES(x->hierarchy, y->hierarchy, J * 4);
    CNB_SAME_BYTES(x->bind_pose, y->bind_pose, J * sizeof(cna_mat4));
    CNB_SAME_BYTES(x->inverse_bind_pose, y->inverse_bind_pose, J * sizeof(cna_mat4));
    CNB_SAME_BYTES(x->root_prefix, y->root_prefix, x->root_prefix_count * sizeof(cna_mat4));
    assert_int_equal(x->clip_count, y->clip_count);
    for (size_t c = 0; c < x->clip_count; c++) cnb_same_clip(&x->clips[c], &y->clips[c]);
    assert_int_equal(x->skeleton_root_node, y->skeleton_root_node);
    CNB_SAME_STR(x->skeleton_root_name, y->skeleton_root_name);
    assert_int_equal(a->gltf_skin, b->gltf_skin);
    assert_int_equal(a->mesh_node, b->mesh_node);
    assert_int_equal(a->mesh_count, b->mesh_count);
    CNB_SAME_BYTES(a->meshes, b->meshes, a->mesh_count * 4);
    assert_int_equal(a->joint_count, b->joint_count);
    CNB_SAME_BYTES(a->ordinal_to_palette, b->ordinal_to_palette, J * 4);
    CNB_SAME_BYTES(a->palette_to_ordinal, b->palette_to_ordinal, J * 4);
    CNB_SAME_BYTES(a->node_to_palette, b->node_to_palette, bone_count * 4);
    CNB_SAME_BYTES(a->palette_to_node, b->palette_to_node, J * 4);
    CNB_SAME_BYTES(a->palette_to_gltf_node, b->palette_to_gltf_node, J * 4);
    CNB_SAME_BYTES(a->fold, b->fold, J * sizeof(cna_mat4));
    assert_int_equal(a->root_count, b->root_count);
    CNB_SAME_BYTES(a->roots, b->roots, a->root_count * 4);
}

/* The encoded bytes an image stands for: its data, or its external file's
 * whole contents (malloc'd into *owned); NULL when it has neither. */
static inline const uint8_t *cnb_image_bytes(const cna_model_image *im, size_t *size, uint8_t **owned)
{
    *owned = NULL;
    *size = 0;
    if (im->data) {
        *size = im->size;
        return im->data;
    }
    if (!im->path) return NULL;
    FILE *f = fopen(im->path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    assert_true(n > 0);
    *owned = (uint8_t *)malloc((size_t)n);
    assert_non_null(*owned);
    assert_int_equal(fread(*owned, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return *owned;
}

/* Two models' images equal field by field; b (a loaded .cnb) holds every
 * image's bytes in place of an external path, and ids that are the index
 * plus one. */
static inline void cnb_same_images(const cna_model *a, const cna_model *b)
{
    assert_int_equal(a->image_count, b->image_count);
    CNB_SAME_NULLNESS(a->images, b->images);
    for (size_t i = 0; i < a->image_count; i++) {
        const cna_model_image *x = &a->images[i], *y = &b->images[i];
        assert_string_equal(x->name, y->name);
        assert_string_equal(x->mime_type, y->mime_type);
        assert_int_equal(x->mag_filter, y->mag_filter);
        assert_int_equal(x->min_filter, y->min_filter);
        assert_int_equal(x->wrap_s, y->wrap_s);
        assert_int_equal(x->wrap_t, y->wrap_t);
        CNB_SAME_NULLNESS(x->problem, y->problem);
        if (x->problem) assert_string_equal(x->problem, y->problem);
        assert_null(y->path);
        uint8_t *owned = NULL;
        size_t size = 0;
        const uint8_t *bytes = cnb_image_bytes(x, &size, &owned);
        CNB_SAME_NULLNESS(bytes, y->data);
        assert_int_equal(size, y->size);
        CNB_SAME_BYTES(bytes, y->data, size);
        free(owned);
        assert_int_equal(y->id, i + 1); /* the index plus one, as the glTF import gives */
    }
}

/* Two effects equal bit for bit but for the material name, compared as a
 * string when `names` (a version 3 file stores none: it loads as ""). */
static inline void cnb_same_effect(const cna_effect *x, const cna_effect *y, bool names)
{
    cna_effect cx, cy;
    memcpy(&cx, x, sizeof cx);
    memcpy(&cy, y, sizeof cy);
    cx.params.name = cy.params.name = NULL;
    CNB_SAME_BYTES(&cx, &cy, sizeof cx);
    assert_non_null(y->params.name);
    if (names) assert_string_equal(x->params.name, y->params.name);
}

/* Every field of two models equal: bytes, matrices and keys bit for bit
 * (material names as strings when `material_names`). */
static inline void cnb_same_model_names(const cna_model *a, const cna_model *b, bool material_names);
static inline void cnb_same_model(const cna_model *a, const cna_model *b) { cnb_same_model_names(a, b, true); }
static inline void cnb_same_model_names(const cna_model *a, const cna_model *b, bool material_names)
{
    assert_int_equal(a->gltf_scene, b->gltf_scene);
    assert_int_equal(a->bone_count, b->bone_count);
    for (size_t i = 0; i < a->bone_count; i++) {
        const cna_model_bone *x = &a->bones[i], *y = &b->bones[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->parent, y->parent);
        assert_int_equal(x->gltf_node, y->gltf_node);
        assert_int_equal(x->has_matrix, y->has_matrix);
        CNB_SAME_BYTES(&x->rest_transform, &y->rest_transform, sizeof(cna_mat4));
        CNB_SAME_BYTES(&x->rest_translation, &y->rest_translation, sizeof(cna_vec3));
        CNB_SAME_BYTES(&x->rest_rotation, &y->rest_rotation, sizeof(cna_quat));
        CNB_SAME_BYTES(&x->rest_scale, &y->rest_scale, sizeof(cna_vec3));
    }
    assert_int_equal(a->gltf_node_count, b->gltf_node_count);
    CNB_SAME_BYTES(a->gltf_node_to_bone, b->gltf_node_to_bone, a->gltf_node_count * 4);
    assert_int_equal(a->mesh_count, b->mesh_count);
    for (size_t i = 0; i < a->mesh_count; i++) {
        const cna_model_mesh *x = &a->meshes[i], *y = &b->meshes[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->parent_bone, y->parent_bone);
        assert_int_equal(x->skin, y->skin);
        assert_int_equal(x->gltf_mesh, y->gltf_mesh);
        assert_int_equal(x->gltf_node, y->gltf_node);
        CNB_SAME_BYTES(&x->bounds, &y->bounds, sizeof x->bounds);
        assert_int_equal(x->target_name_count, y->target_name_count);
        CNB_SAME_NULLNESS(x->target_names, y->target_names);
        for (size_t t = 0; x->target_names && t < x->target_name_count; t++)
            assert_string_equal(x->target_names[t], y->target_names[t]);
        assert_int_equal(x->part_count, y->part_count);
        for (size_t k = 0; k < x->part_count; k++) cnb_same_part(&x->parts[k], &y->parts[k]);
    }
    assert_int_equal(a->skin_count, b->skin_count);
    for (size_t s = 0; s < a->skin_count; s++) cnb_same_skin(&a->skins[s], &b->skins[s], a->bone_count);
    assert_int_equal(a->effect_count, b->effect_count);
    for (size_t e = 0; e < a->effect_count; e++) cnb_same_effect(&a->effects[e], &b->effects[e], material_names);
    assert_int_equal(a->animation_count, b->animation_count);
    CNB_SAME_NULLNESS(a->node_clips, b->node_clips);
    for (size_t i = 0; a->node_clips && i < a->animation_count; i++)
        cnb_same_clip(&a->node_clips[i], &b->node_clips[i]);
    for (size_t i = 0; i < a->animation_count; i++) { /* markers: the same, in the same order */
        size_t na = 0, nb = 0;
        const cna_marker *ma = cna_model_markers(a, i, &na), *mb = cna_model_markers(b, i, &nb);
        assert_int_equal(na, nb);
        for (size_t k = 0; k < na; k++) {
            assert_string_equal(ma[k].name, mb[k].name);
            assert_int_equal(ma[k].ticks, mb[k].ticks);
        }
    }
    assert_int_equal(a->clip_mode, b->clip_mode);
    CNB_SAME_BYTES(&a->size, &b->size, sizeof(float));
    assert_int_equal(a->diagnostic_count, b->diagnostic_count);
    for (size_t i = 0; i < a->diagnostic_count; i++) {
        assert_string_equal(a->diagnostics[i].code, b->diagnostics[i].code);
        assert_int_equal(a->diagnostics[i].count, b->diagnostics[i].count);
        assert_string_equal(a->diagnostics[i].message, b->diagnostics[i].message);
    }
    cnb_same_images(a, b);
}

/* ------------------------------------------------------------------ posing */

/* A model's pose at one time, as cna pose computes it. */
typedef struct cnb_pose {
    cna_mat4 *absolute;         /* bone_count */
    cna_mat4 *skin;             /* sum of joint counts, skin by skin */
    size_t skin_matrices;
    float *positions;           /* every part's final positions (x, y, z per vertex), part by part */
    size_t position_count;
} cnb_pose;

static inline void cnb_pose_free(cnb_pose *p)
{
    free(p->absolute);
    free(p->skin);
    free(p->positions);
    memset(p, 0, sizeof *p);
}

/* Pose `m` at animation `anim` (-1: rest) and `t` seconds, by hand into
 * arrays of its own (the model is not written): node clip, one player per
 * skin seeked without loop, skin poses on the bones, absolute transforms,
 * morph weights (track at t, else initial), blend, skinning, then the parent
 * bone's transform. */
static inline void cnb_pose_model(const cna_model *m, long anim, double t, cnb_pose *out)
{
    cna_error err;
    memset(out, 0, sizeof *out);
    cna_mat4 *local = calloc(m->bone_count + 1, sizeof *local);
    assert_non_null(local);
    bone_pose_rest(m, local);
    if (anim >= 0) bone_pose_clip(m, &m->node_clips[anim], t, local);
    size_t total_joints = 0, total_vertices = 0;
    for (size_t s = 0; s < m->skin_count; s++) total_joints += m->skins[s].joint_count;
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++) total_vertices += m->meshes[i].parts[k].vertex_count;
    out->absolute = calloc(m->bone_count + 1, sizeof(cna_mat4));
    out->skin = calloc(total_joints + 1, sizeof(cna_mat4));
    out->positions = calloc(3 * total_vertices + 1, sizeof(float));
    out->skin_matrices = total_joints;
    out->position_count = 3 * total_vertices;
    cna_player **players = calloc(m->skin_count + 1, sizeof *players);
    assert_true(out->absolute && out->skin && out->positions && players);
    size_t at = 0;
    for (size_t s = 0; s < m->skin_count; s++) {
        const cna_skinning_data *d = &m->skins[s].data;
        assert_int_equal(cna_player_create(d, NULL, &players[s], &err), CNA_OK);
        if (anim >= 0) assert_int_equal(cna_player_start_clip(players[s], &d->clips[anim], &err), CNA_OK);
        assert_int_equal(cna_player_update(players[s], cna_ticks_from_seconds(t), false, false, &err), CNA_OK);
        bone_pose_skin(m, s, cna_player_bone_transforms(players[s]), local);
        memcpy(out->skin + at, cna_player_skin_transforms(players[s]), m->skins[s].joint_count * sizeof(cna_mat4));
        at += m->skins[s].joint_count;
    }
    bone_pose_absolute(m, local, out->absolute);
    free(local);
    size_t p_at = 0;
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        for (size_t k = 0; k < mesh->part_count; k++) {
            const cna_model_part *part = &mesh->parts[k];
            size_t n = part->vertex_count, stride = part->declaration.stride;
            const unsigned char *bytes = part->vertices;
            unsigned char *blended = NULL;
            if (part->morph) {
                float w[256];
                size_t wc = 0;
                const cna_morph_weight_track *tr = anim >= 0 && part->weight_tracks && (size_t)anim < part->weight_track_count
                                                       ? part->weight_tracks[anim] : NULL;
                if (tr && tr->key_count > 0) {
                    assert_int_equal(cna_morph_evaluate_weights(tr, t, w, 256, &wc, &err), CNA_OK);
                } else {
                    wc = part->morph->target_count;
                    assert_true(wc <= 256);
                    for (size_t q = 0; q < wc; q++)
                        w[q] = part->morph->initial_weights ? part->morph->initial_weights[q] : 0.0f;
                }
                size_t size = cna_morph_blend_size(part->morph);
                blended = malloc(size + 1);
                assert_non_null(blended);
                assert_int_equal(cna_morph_blend(part->morph, w, wc, blended, size, &err), CNA_OK);
                bytes = blended;
            }
            float *xyz = out->positions + p_at;
            if (mesh->skin >= 0) {
                cna_skinning_layout layout;
                assert_int_equal(cna_skinning_layout_canonical((uint32_t)stride, &layout, &err), CNA_OK);
                assert_int_equal(cna_skin_positions(&layout, bytes, n, cna_player_skin_transforms(players[mesh->skin]),
                                                    m->skins[mesh->skin].joint_count, xyz, 3 * n, &err), CNA_OK);
            } else {
                for (size_t v = 0; v < n; v++) memcpy(&xyz[3 * v], bytes + v * stride, 12);
            }
            for (size_t v = 0; v < n; v++) {
                cna_vec3 q = cna_mat4_transform_point(&out->absolute[mesh->parent_bone],
                                                      cna_vec3_make(xyz[3 * v], xyz[3 * v + 1], xyz[3 * v + 2]));
                xyz[3 * v] = q.x;
                xyz[3 * v + 1] = q.y;
                xyz[3 * v + 2] = q.z;
            }
            p_at += 3 * n;
            free(blended);
        }
    }
    for (size_t s = 0; s < m->skin_count; s++) cna_player_free(players[s]);
    free(players);
}

#endif
