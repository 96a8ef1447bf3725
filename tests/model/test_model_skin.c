/*
 * BuildSkeleton, the three index spaces and the root prefixes (spec: "Scene
 * indices are not palette indices", "Why the prefix must stay separate"), on
 * the hand-made fixtures of tests/data/fixtures/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "model_test.h"

static void expect_file_positions(const cna_model *m, const posed *p, size_t mesh, double tol)
{
    const float file[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    float out[9];
    assert_int_equal(m->meshes[mesh].parts[0].vertex_count, 3);
    part_final_positions(m, p, mesh, 0, NULL, 0, out);
    for (int i = 0; i < 9; i++) {
        if (!(fabs((double)out[i] - (double)file[i]) <= tol)) {
            print_error("mesh %zu: position component %d = %.9g, expected %.9g\n", mesh, i,
                        (double)out[i], (double)file[i]);
            fail();
        }
    }
}

/* spec: GltfSkinSpaces.MeshNodeTransformIsCancelledExactlyOnce */
static void test_mesh_node_transform_is_cancelled_exactly_once(void **state)
{
    (void)state;
    cna_model *m = model_test_load("fixtures/skin-mesh-node-transform.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(m->skin_count, 1);
    posed p;
    pose_model(m, -1, 0, &p);
    const cna_mat4 *skin = cna_player_skin_transforms(p.players[0]);
    /* -50: the cancellation applied once (0: missing; -100: twice) */
    assert_true(skin[0].m[14] == -50.0f);
    assert_true(skin[0].m[12] == 0.0f && skin[0].m[13] == 0.0f);
    /* the mesh node's bone still exists with its +50, and the mesh hangs from it */
    assert_int_equal(m->bones[0].gltf_node, 0);
    assert_true(m->bones[0].rest_transform.m[14] == 50.0f);
    assert_true(p.absolute[0].m[14] == 50.0f);
    assert_int_equal(m->meshes[0].parent_bone, 0);
    /* the effect is skinned, and a fresh character draws with the bind-pose palette */
    const cna_effect *e = &m->effects[m->meshes[0].parts[0].effect];
    assert_int_equal(e->kind, CNA_EFFECT_KIND_SKINNED);
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, NULL), CNA_OK);
    assert_true(cna_character_skin_transforms(c, 0)[0].m[14] == -50.0f);
    cna_character_free(c);
    /* final positions as drawn: unmoved, exactly */
    expect_file_positions(m, &p, 0, 0.0);
    posed_free(&p);
    cna_model_free(m);
}

/* spec: RootJointCarriesTheSceneAncestryAboveTheJointSet */
static void test_root_joint_carries_the_scene_ancestry_above_the_joint_set(void **state)
{
    (void)state;
    char path[1024];
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_file(model_test_path(path, sizeof path, "fixtures/skin-armature-ancestor.gltf"),
                                        NULL, &doc, &err), CNA_OK);
    cna_model *m = NULL;
    assert_int_equal(cna_model_import_gltf(doc, NULL, &m, &err), CNA_OK);
    const cna_model_skin *s = &m->skins[0];
    assert_int_equal(s->root_count, 1);
    assert_int_equal(s->roots[0], 0);
    assert_int_equal(s->palette_to_gltf_node[0], 1);
    /* skin.skeleton is recorded and does not stop the walk */
    assert_int_equal(s->data.skeleton_root_node, 1);
    assert_string_equal(s->data.skeleton_root_name, "Root");

    cna_mat4 w_mesh, w_armature, w_root, inv_mesh, expected;
    gltf_node_world(doc, 3, &w_mesh);
    gltf_node_world(doc, 0, &w_armature);
    gltf_node_world(doc, 1, &w_root);
    assert_true(cna_mat4_inverse(&inv_mesh, &w_mesh));
    /* prefix = inverse(W_mesh_node) · W_ancestor */
    cna_mat4_mul(&expected, &inv_mesh, &w_armature);
    assert_mat_near(&s->data.root_prefix[0], &expected, 1e-6);
    /* the prefix is not in the bind pose: bind[root] is the node's own local */
    cna_mat4 root_local;
    cna_gltf_node_local_matrix(&doc->nodes[1], &root_local);
    assert_mat_near(&s->data.bind_pose[0], &root_local, 0.0);
    assert_true(cna_mat4_is_identity(&s->data.root_prefix[1]));

    posed p;
    pose_model(m, -1, 0, &p);
    /* player world of the root = inverse(W_mesh) · glTF world; the bone's world = glTF's */
    cna_mat4_mul(&expected, &inv_mesh, &w_root);
    assert_mat_near(&cna_player_world_transforms(p.players[0])[0], &expected, 1e-5);
    assert_mat_near(&p.absolute[m->gltf_node_to_bone[1]], &w_root, 1e-5);
    cna_mat4 w_tip;
    gltf_node_world(doc, 2, &w_tip);
    assert_mat_near(&p.absolute[m->gltf_node_to_bone[2]], &w_tip, 1e-5);
    /* bind pose as drawn = the file's vertices (IBM = inverse of the joint worlds) */
    expect_file_positions(m, &p, 0, 1e-5);
    posed_free(&p);
    cna_model_free(m);
    cna_gltf_document_free(doc);
}

static void test_reversed_joint_order_gives_the_reversed_maps(void **state)
{
    (void)state;
    cna_model *m = model_test_load("fixtures/skin-reversed-joints.gltf", CNA_CLIP_MODE_DEFAULT);
    const cna_model_skin *s = &m->skins[0];
    assert_int_equal(s->joint_count, 3);
    const int32_t reversed[3] = {2, 1, 0};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(s->ordinal_to_palette[i], reversed[i]);
        assert_int_equal(s->palette_to_ordinal[i], reversed[i]);
        assert_int_equal(s->palette_to_gltf_node[i], 1 + i);      /* J0, J1, J2: parents first */
        assert_int_equal(s->data.hierarchy[i], i - 1);
    }
    /* scene-node <-> palette both ways; -1 for the mesh node */
    assert_int_equal(s->node_to_palette[m->gltf_node_to_bone[0]], -1);
    for (int p = 0; p < 3; p++) {
        assert_int_equal(s->palette_to_node[p], m->gltf_node_to_bone[1 + p]);
        assert_int_equal(s->node_to_palette[s->palette_to_node[p]], p);
    }
    cna_model_free(m);
}

/* spec: LoadsSkinnedAnimatedModelDirectlyFromGltfWithReversedJointOrder */
static void test_reversed_joint_order_plays_identically_to_the_ordered_file(void **state)
{
    (void)state;
    cna_model *a = model_test_load("fixtures/skin-ordered-joints.gltf", CNA_CLIP_MODE_DEFAULT);
    cna_model *b = model_test_load("fixtures/skin-reversed-joints.gltf", CNA_CLIP_MODE_DEFAULT);
    const double times[] = {0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        posed pa, pb;
        pose_model(a, 0, times[i], &pa);
        pose_model(b, 0, times[i], &pb);
        const cna_model_skin *sa = &a->skins[0], *sb = &b->skins[0];
        /* per glTF node: world and skin matrices, bit for bit */
        for (size_t pa_i = 0; pa_i < sa->joint_count; pa_i++) {
            int32_t node = sa->palette_to_gltf_node[pa_i];
            size_t pb_i = 0;
            while (sb->palette_to_gltf_node[pb_i] != node) pb_i++;
            assert_memory_equal(&cna_player_world_transforms(pa.players[0])[pa_i],
                                &cna_player_world_transforms(pb.players[0])[pb_i], sizeof(cna_mat4));
            assert_memory_equal(&cna_player_skin_transforms(pa.players[0])[pa_i],
                                &cna_player_skin_transforms(pb.players[0])[pb_i], sizeof(cna_mat4));
        }
        assert_memory_equal(pa.absolute, pb.absolute, a->bone_count * sizeof(cna_mat4));
        float xa[9], xb[9];
        part_final_positions(a, &pa, 0, 0, NULL, 0, xa);
        part_final_positions(b, &pb, 0, 0, NULL, 0, xb);
        assert_memory_equal(xa, xb, sizeof xa);
        posed_free(&pa);
        posed_free(&pb);
    }
    cna_model_free(a);
    cna_model_free(b);
}

static void test_skin_with_73_joints_is_refused_naming_73(void **state)
{
    (void)state;
    char path[1024];
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_model_load_file(model_test_path(path, sizeof path, "fixtures/skin-73-joints.gltf"),
                                       NULL, &m, &err);
    assert_int_equal(r, CNA_ERROR_LIMIT);
    assert_int_equal(err.code, CNA_ERROR_LIMIT);
    assert_string_equal(err.message, "skins[0]: 73 joints; at most 72 are supported; import with split_palettes "
                                     "(cna convert --split-palettes) to split its parts");
    assert_null(m);
}

static void test_joint_listed_twice_is_refused(void **state)
{
    (void)state;
    char path[1024];
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_file(model_test_path(path, sizeof path, "fixtures/skin-ordered-joints.gltf"),
                                        NULL, &doc, &err), CNA_OK);
    /* The reader refuses such a file itself; build the document in memory. */
    cna_gltf_document copy = *doc;
    cna_gltf_skin skin = doc->skins[0];
    const int32_t joints[3] = {1, 2, 1};
    skin.joints = joints;
    copy.skins = &skin;
    cna_model *m = NULL;
    assert_int_equal(cna_model_import_gltf(&copy, NULL, &m, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "skins[0].joints[2]: node 1 is already joints[0]");
    assert_null(m);
    cna_gltf_document_free(doc);
}

/* one SkinningData per instancing node */
static void test_skin_instanced_by_two_nodes_comes_out_right_for_each(void **state)
{
    (void)state;
    char path[1024];
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_file(model_test_path(path, sizeof path, "fixtures/skin-two-instances.gltf"),
                                        NULL, &doc, &err), CNA_OK);
    cna_model *m = NULL;
    assert_int_equal(cna_model_import_gltf(doc, NULL, &m, &err), CNA_OK);
    assert_int_equal(m->skin_count, 2);
    assert_int_equal(m->mesh_count, 2);
    for (size_t s = 0; s < 2; s++) {
        assert_int_equal(m->skins[s].gltf_skin, 0);
        assert_int_equal(m->skins[s].mesh_count, 1);
        assert_int_equal(m->skins[s].meshes[0], (int32_t)s);
        assert_int_equal(m->meshes[s].skin, (int32_t)s);
        assert_int_equal(m->skins[s].mesh_node, m->meshes[s].parent_bone);
    }
    /* two skins never share an effect */
    assert_int_not_equal(m->meshes[0].parts[0].effect, m->meshes[1].parts[0].effect);
    /* glTF: both placements draw where the joints put them (mesh node transforms ignored) */
    posed p;
    pose_model(m, -1, 0, &p);
    expect_file_positions(m, &p, 0, 1e-5);
    expect_file_positions(m, &p, 1, 1e-5);
    /* and each palette carries its own node's cancellation */
    for (size_t s = 0; s < 2; s++) {
        cna_mat4 w_mesh, inv;
        gltf_node_world(doc, m->meshes[s].gltf_node, &w_mesh);
        assert_true(cna_mat4_inverse(&inv, &w_mesh));
        assert_mat_near(&cna_player_skin_transforms(p.players[s])[0], &inv, 1e-5);
    }
    posed_free(&p);
    cna_model_free(m);
    cna_gltf_document_free(doc);
}

static void test_non_joint_node_between_joints_is_folded_into_the_bind_pose(void **state)
{
    (void)state;
    char path[1024];
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_file(model_test_path(path, sizeof path, "fixtures/skin-folded-node.gltf"),
                                        NULL, &doc, &err), CNA_OK);
    cna_model *m = NULL;
    assert_int_equal(cna_model_import_gltf(doc, NULL, &m, &err), CNA_OK);
    const cna_model_skin *s = &m->skins[0];
    assert_int_equal(s->data.hierarchy[1], 0);          /* J1's parent joint is J0 */
    cna_mat4 mid, j1, expected;
    cna_gltf_node_local_matrix(&doc->nodes[2], &mid);
    cna_gltf_node_local_matrix(&doc->nodes[3], &j1);
    cna_mat4_mul(&expected, &mid, &j1);                 /* bind[J1] = L_mid · L_J1 */
    assert_mat_near(&s->data.bind_pose[1], &expected, 0.0);
    assert_mat_near(&s->fold[1], &mid, 0.0);
    /* the folded node is animated: reported (its motion is composed into J1's keys) */
    const cna_model_diagnostic *d = cna_model_find_diagnostic(m, CNA_MODEL_DIAG_ANIMATED_NODE_FOLDED);
    assert_non_null(d);
    assert_int_equal(d->count, 1);
    assert_string_equal(d->message, "skins[0]: node 2 between joints 1 and 3 is animated; it is folded into joint 3, "
                                    "whose keys compose its motion");

    /* J1's animated rotation keeps the fold, and Mid's animated translation
     * (0,1,0) -> (0,2,0) moves it: at t = 1 its world is W_J0 · L_mid(1) · R(90°) · T */
    posed p;
    pose_model(m, 0, 1.0, &p);
    cna_mat4 j1_t, w, mid_t;
    cna_mat4_compose(&j1_t, cna_vec3_make(1, 0, 0),
                     cna_quat_make(0, 0, (float)sin(0.78539816339744830962), (float)cos(0.78539816339744830962)), cna_vec3_one());
    cna_mat4_compose(&mid_t, cna_vec3_make(0, 2, 0), doc->nodes[2].rotation, cna_vec3_one());
    cna_mat4_mul(&w, &mid_t, &j1_t);
    assert_mat_near(&cna_player_world_transforms(p.players[0])[1], &w, 1e-6);
    /* the bones: J1's own transform is the key's (the fold stays with the Mid bone) */
    int32_t b_j1 = m->gltf_node_to_bone[3];
    assert_mat_near(&p.local[b_j1], &j1_t, 1e-6);
    posed_free(&p);
    cna_model_free(m);
    cna_gltf_document_free(doc);
}

/* ------------------------------------------------------------------ glTF's joint matrices, in double */

/* An independent evaluation of glTF 2.0 from the document: each node's T/R/S
 * channels with glTF's LINEAR (lerp, shortest-arc slerp), STEP and
 * CUBICSPLINE rules, world = parent · local, and
 *   jointMatrix[k] = inverse(W_mesh_node) · W_joint[k](t) · IBM[k]. */
typedef struct dmat { double m[16]; } dmat;

static void dmul(dmat *out, const dmat *a, const dmat *b)
{
    dmat r;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double v = 0;
            for (int k = 0; k < 4; k++) v += a->m[k * 4 + row] * b->m[c * 4 + k];
            r.m[c * 4 + row] = v;
        }
    *out = r;
}

static void dcompose(dmat *o, const double t[3], const double q[4], const double s[3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                   2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    memset(o, 0, sizeof *o);
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) o->m[c * 4 + row] = r[c * 3 + row] * s[c];
    o->m[12] = t[0];
    o->m[13] = t[1];
    o->m[14] = t[2];
    o->m[15] = 1;
}

/* Inverse of an affine matrix (upper 3x3 by cofactors). */
static void dinverse_affine(dmat *o, const dmat *a)
{
    const double *m = a->m;
    double c00 = m[5] * m[10] - m[9] * m[6], c01 = m[9] * m[2] - m[1] * m[10], c02 = m[1] * m[6] - m[5] * m[2];
    double c10 = m[8] * m[6] - m[4] * m[10], c11 = m[0] * m[10] - m[8] * m[2], c12 = m[4] * m[2] - m[0] * m[6];
    double c20 = m[4] * m[9] - m[8] * m[5], c21 = m[8] * m[1] - m[0] * m[9], c22 = m[0] * m[5] - m[4] * m[1];
    double det = m[0] * c00 + m[4] * c01 + m[8] * c02;
    double inv[9] = {c00 / det, c01 / det, c02 / det, c10 / det, c11 / det, c12 / det, c20 / det, c21 / det, c22 / det};
    memset(o, 0, sizeof *o);
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) o->m[c * 4 + row] = inv[c * 3 + row];
    for (int row = 0; row < 3; row++)
        o->m[12 + row] = -(inv[row] * m[12] + inv[3 + row] * m[13] + inv[6 + row] * m[14]);
    o->m[15] = 1;
}

static float *read_accessor(const cna_gltf_document *doc, int32_t acc, size_t *n)
{
    *n = cna_gltf_accessor_float_count(doc, acc);
    float *v = (float *)calloc(*n + 1, sizeof(float));
    assert_non_null(v);
    assert_int_equal(cna_gltf_accessor_read_floats(doc, acc, v, *n, NULL), CNA_OK);
    return v;
}

/* A sampler's value at t seconds (comps 3 or 4), by glTF's rules. */
static void gltf_sample(const cna_gltf_document *doc, const cna_gltf_animation_sampler *s, size_t comps, double t,
                        double out[4])
{
    size_t n, vn;
    float *in = read_accessor(doc, s->input, &n);
    float *val = read_accessor(doc, s->output, &vn);
    const bool cubic = s->interpolation == CNA_GLTF_INTERPOLATION_CUBICSPLINE;
    const size_t stride = cubic ? 3 : 1, off = cubic ? 1 : 0;
    size_t k = 0;
    if (t <= in[0] || n == 1) {
        for (size_t i = 0; i < comps; i++) out[i] = val[off * comps + i];
    } else if (t >= in[n - 1]) {
        for (size_t i = 0; i < comps; i++) out[i] = val[((n - 1) * stride + off) * comps + i];
    } else {
        while (!(t < in[k + 1])) k++;
        const double t0 = in[k], t1 = in[k + 1], dt = t1 - t0, u = (t - t0) / dt;
        const float *v0 = val + (k * stride + off) * comps, *v1 = val + ((k + 1) * stride + off) * comps;
        if (s->interpolation == CNA_GLTF_INTERPOLATION_STEP) {
            for (size_t i = 0; i < comps; i++) out[i] = v0[i];
        } else if (cubic) {
            const float *b0 = val + (k * 3 + 2) * comps, *a1 = val + ((k + 1) * 3) * comps;
            double u2 = u * u, u3 = u2 * u;
            for (size_t i = 0; i < comps; i++)
                out[i] = (2 * u3 - 3 * u2 + 1) * v0[i] + (u3 - 2 * u2 + u) * dt * b0[i] + (-2 * u3 + 3 * u2) * v1[i] +
                         (u3 - u2) * dt * a1[i];
        } else if (comps == 4) {
            double dot = 0, b[4];
            for (int i = 0; i < 4; i++) dot += (double)v0[i] * v1[i];
            for (int i = 0; i < 4; i++) b[i] = dot < 0 ? -(double)v1[i] : (double)v1[i];
            dot = fabs(dot);
            double theta = acos(dot > 1 ? 1 : dot), wa = 1 - u, wb = u;
            if (theta > 1e-12) {
                wa = sin((1 - u) * theta) / sin(theta);
                wb = sin(u * theta) / sin(theta);
            }
            for (int i = 0; i < 4; i++) out[i] = wa * v0[i] + wb * b[i];
        } else {
            for (size_t i = 0; i < comps; i++) out[i] = v0[i] + (v1[i] - (double)v0[i]) * u;
        }
    }
    if (comps == 4) {
        double l = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
        for (int i = 0; i < 4; i++) out[i] /= l;
    }
    free(in);
    free(val);
}

static void gltf_world_at(const cna_gltf_document *doc, size_t anim, int32_t node, double t, dmat *out)
{
    const cna_gltf_node *nd = &doc->nodes[node];
    double tr[4] = {nd->translation.x, nd->translation.y, nd->translation.z, 0};
    double q[4] = {nd->rotation.x, nd->rotation.y, nd->rotation.z, nd->rotation.w};
    double sc[4] = {nd->scale.x, nd->scale.y, nd->scale.z, 0};
    const cna_gltf_animation *a = &doc->animations[anim];
    for (size_t c = 0; c < a->channel_count; c++) {
        const cna_gltf_animation_channel *ch = &a->channels[c];
        if (ch->target_node != node) continue;
        const cna_gltf_animation_sampler *s = &a->samplers[ch->sampler];
        if (ch->path == CNA_GLTF_PATH_TRANSLATION) gltf_sample(doc, s, 3, t, tr);
        if (ch->path == CNA_GLTF_PATH_ROTATION) gltf_sample(doc, s, 4, t, q);
        if (ch->path == CNA_GLTF_PATH_SCALE) gltf_sample(doc, s, 3, t, sc);
    }
    dmat local;
    dcompose(&local, tr, q, sc);
    if (nd->parent >= 0) {
        dmat parent;
        gltf_world_at(doc, anim, nd->parent, t, &parent);
        dmul(out, &parent, &local);
    } else {
        *out = local;
    }
}

/* The error of a float matrix against a double one, relative to the model
 * size: the linear part absolutely, the translation divided by `size`. */
static double rel_error(const cna_mat4 *a, const dmat *b, double size)
{
    double e = 0;
    for (int i = 0; i < 16; i++) {
        double d = fabs((double)a->m[i] - b->m[i]);
        if (i >= 12 && i < 15) d /= size;
        if (!(d <= e)) e = d;
    }
    return e;
}

typedef struct formula_error { double at_keys, between_keys; } formula_error;

/* Pose a character of `m` (animation `anim` of m playing animation
 * `gltf_anim` of doc) at and between every key time, and compare its
 * palette and absolute transforms with glTF's. */
static formula_error compare_with_formula(const cna_model *m, long anim, const cna_gltf_document *doc, size_t gltf_anim)
{
    cna_error err;
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    assert_int_equal(cna_character_play(c, anim, &err), CNA_OK);
    assert_int_equal(cna_character_set_loop_mode(c, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
    /* the key times of every sampler */
    double times[64];
    size_t nt = 0;
    const cna_gltf_animation *a = &doc->animations[gltf_anim];
    for (size_t s = 0; s < a->sampler_count; s++) {
        size_t n;
        float *in = read_accessor(doc, a->samplers[s].input, &n);
        for (size_t k = 0; k < n; k++) {
            size_t i = 0;
            while (i < nt && times[i] != (double)in[k]) i++;
            if (i == nt) { assert_true(nt < 64); times[nt++] = in[k]; }
        }
        free(in);
    }
    for (size_t i = 1; i < nt; i++) /* sorted */
        for (size_t j = i; j > 0 && times[j - 1] > times[j]; j--) { double x = times[j]; times[j] = times[j - 1]; times[j - 1] = x; }
    const cna_model_skin *skin = &m->skins[0];
    const cna_gltf_skin *gs = &doc->skins[skin->gltf_skin];
    size_t ibm_n;
    float *ibm = read_accessor(doc, gs->inverse_bind_matrices, &ibm_n);
    const double size = (double)m->size;
    formula_error fe = {0, 0};
    for (size_t i = 0; i < nt; i++) {
        for (int q = 0; q < 16; q++) {
            if (q > 0 && i + 1 == nt) break;
            int64_t ticks = cna_ticks_from_seconds(times[i]);
            if (q > 0) ticks += (cna_ticks_from_seconds(times[i + 1]) - ticks) * q / 16;
            if (q == 15) ticks = cna_ticks_from_seconds(times[i + 1]) - 1;  /* one tick before the next key */
            const double t = cna_ticks_to_seconds(ticks);
            assert_int_equal(cna_character_seek_ticks(c, ticks, &err), CNA_OK);
            assert_int_equal(cna_character_pose(c, &err), CNA_OK);
            double *worst = q == 0 ? &fe.at_keys : &fe.between_keys;
            dmat w_mesh, inv_mesh;
            gltf_world_at(doc, gltf_anim, m->meshes[0].gltf_node, t, &w_mesh);
            dinverse_affine(&inv_mesh, &w_mesh);
            for (size_t k = 0; k < skin->joint_count; k++) {
                dmat wj, jm, ib;
                gltf_world_at(doc, gltf_anim, gs->joints[k], t, &wj);
                for (int e = 0; e < 16; e++) ib.m[e] = ibm[k * 16 + (size_t)e];
                dmul(&jm, &inv_mesh, &wj);
                dmul(&jm, &jm, &ib);
                double e = rel_error(&cna_character_skin_transforms(c, 0)[skin->ordinal_to_palette[k]], &jm, size);
                if (!(e <= *worst)) *worst = e;
            }
            for (size_t b = 0; b < m->bone_count; b++) {
                dmat wb;
                gltf_world_at(doc, gltf_anim, m->bones[b].gltf_node, t, &wb);
                double e = rel_error(cna_character_absolute_transform(c, b), &wb, size);
                if (!(e <= *worst)) *worst = e;
            }
        }
    }
    free(ibm);
    cna_character_free(c);
    return fe;
}

static void expect_formula(const cna_model *m, long anim, const cna_gltf_document *doc, size_t gltf_anim,
                           const char *what)
{
    formula_error fe = compare_with_formula(m, anim, doc, gltf_anim);
    print_message("%s: largest error against glTF's joint matrices and node worlds, relative to the model size: "
                  "%.3g at keys, %.3g between keys\n", what, fe.at_keys, fe.between_keys);
    assert_true(fe.at_keys <= 1e-5);
    assert_true(fe.between_keys <= 1e-5);
}

static void same_clip_keys(const cna_clip *a, const cna_clip *b)
{
    assert_int_equal(a->track_count, b->track_count);
    assert_int_equal(a->duration, b->duration);
    for (size_t t = 0; t < a->track_count; t++) {
        assert_int_equal(a->tracks[t].bone, b->tracks[t].bone);
        assert_int_equal(a->tracks[t].key_count, b->tracks[t].key_count);
        assert_memory_equal(a->tracks[t].keys, b->tracks[t].keys, a->tracks[t].key_count * sizeof(cna_keyframe));
    }
}

/* An animated node folded between two joints moves the skin as glTF says,
 * alone or stacked with an unanimated one, under an animated node above the
 * root joint; in a .cnb made from the model and in the clip bound from the
 * same file by name too. */
static void test_animated_folded_nodes_move_the_skin_as_the_gltf_formula(void **state)
{
    (void)state;
    const char *files[] = {"fixtures/skin-animated-fold.gltf", "fixtures/skin-animated-folds-stacked.gltf"};
    for (size_t f = 0; f < 2; f++) {
        char path[1024];
        cna_gltf_document *doc = NULL;
        cna_error err;
        assert_int_equal(cna_gltf_load_file(model_test_path(path, sizeof path, files[f]), NULL, &doc, &err), CNA_OK);
        cna_model *m = model_test_load(files[f], CNA_CLIP_MODE_FAITHFUL);
        const cna_model_skin *s = &m->skins[0];
        /* J1 (palette 1) has the composed track, with or without channels of its own */
        assert_int_equal(s->data.clips[0].track_count, 1);
        assert_int_equal(s->data.clips[0].tracks[0].bone, 1);
        const cna_model_diagnostic *d = cna_model_find_diagnostic(m, CNA_MODEL_DIAG_ANIMATED_NODE_FOLDED);
        assert_non_null(d);
        assert_int_equal(d->count, 1);
        expect_formula(m, 0, doc, 0, files[f]);

        /* the .cnb keeps the keys, and the pose */
        void *bytes = NULL;
        size_t size = 0;
        assert_int_equal(cna_cnb_write_memory(m, NULL, &bytes, &size, &err), CNA_OK);
        cna_model *baked = NULL;
        assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &baked, &err), CNA_OK);
        cna_cnb_bytes_free(NULL, bytes);
        same_clip_keys(&baked->skins[0].data.clips[0], &s->data.clips[0]);
        same_clip_keys(&baked->node_clips[0], &m->node_clips[0]);
        expect_formula(baked, 0, doc, 0, "  .cnb");
        cna_model_free(baked);

        /* the same file bound as a clip library: the same keys */
        cna_clip_library *lib = NULL;
        assert_int_equal(cna_clip_library_load_file(path, NULL, &lib, &err), CNA_OK);
        const cna_clip_library *libs[1] = {lib};
        cna_model *bound = NULL;
        assert_int_equal(cna_model_bind_clips(m, libs, 1, NULL, &bound, &err), CNA_OK);
        cna_clip_library_free(lib);
        assert_int_equal(bound->animation_count, 2);
        same_clip_keys(&bound->skins[0].data.clips[1], &s->data.clips[0]);
        same_clip_keys(&bound->node_clips[1], &m->node_clips[0]);
        cna_model_free(bound);
        cna_model_free(m);
        cna_gltf_document_free(doc);
    }
}

/* UNION keeps the composition exact at the keys (its keys are the input's). */
static void test_animated_folded_node_union_mode_is_exact_at_keys(void **state)
{
    (void)state;
    char path[1024];
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_file(model_test_path(path, sizeof path, "fixtures/skin-animated-fold.gltf"), NULL,
                                        &doc, &err), CNA_OK);
    cna_model *m = model_test_load("fixtures/skin-animated-fold.gltf", CNA_CLIP_MODE_UNION);
    /* J1's keys: the union of Mid's (0, 1, 2) and J1's (0, 1.5) */
    const cna_bone_track *tr = &m->skins[0].data.clips[0].tracks[0];
    assert_int_equal(tr->key_count, 4);
    const int64_t expected[4] = {0, CNA_TICKS_PER_SECOND, 3 * CNA_TICKS_PER_SECOND / 2, 2 * CNA_TICKS_PER_SECOND};
    for (size_t k = 0; k < 4; k++) assert_int_equal(tr->keys[k].ticks, expected[k]);
    formula_error fe = compare_with_formula(m, 0, doc, 0);
    assert_true(fe.at_keys <= 1e-5);
    cna_model_free(m);
    cna_gltf_document_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh_node_transform_is_cancelled_exactly_once),
        cmocka_unit_test(test_root_joint_carries_the_scene_ancestry_above_the_joint_set),
        cmocka_unit_test(test_reversed_joint_order_gives_the_reversed_maps),
        cmocka_unit_test(test_reversed_joint_order_plays_identically_to_the_ordered_file),
        cmocka_unit_test(test_skin_with_73_joints_is_refused_naming_73),
        cmocka_unit_test(test_joint_listed_twice_is_refused),
        cmocka_unit_test(test_skin_instanced_by_two_nodes_comes_out_right_for_each),
        cmocka_unit_test(test_non_joint_node_between_joints_is_folded_into_the_bind_pose),
        cmocka_unit_test(test_animated_folded_nodes_move_the_skin_as_the_gltf_formula),
        cmocka_unit_test(test_animated_folded_node_union_mode_is_exact_at_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
