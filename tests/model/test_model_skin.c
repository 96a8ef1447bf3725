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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
