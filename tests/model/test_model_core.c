/*
 * The Model's core rules: bones (scene flattened depth-first pre-order),
 * copy_absolute_bone_transforms, effects as material data and a fresh
 * character's bind-pose palette (spec: ApplyBindPoseBoneTransformsEXT), the
 * first skin as Tag, import
 * options, and clean failure under allocation failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "model_test.h"

static void test_bones_are_the_scene_flattened_depth_first_pre_order(void **state)
{
    (void)state;
    /* RiggedSimple: scene [0]; 0 -> 1 -> {3 -> 4, 2} (the oracle's meta.scene_nodes) */
    cna_model *m = model_test_load("corpus/valid/RiggedSimple/rigged_simple.gltf", CNA_CLIP_MODE_DEFAULT);
    const int32_t nodes[5] = {0, 1, 3, 4, 2};
    const int32_t parents[5] = {-1, 0, 1, 2, 1};
    const char *names[5] = {"Z_UP", "Armature", "Bone", "Bone.001", "Cylinder"};
    assert_int_equal(m->bone_count, 5);
    assert_int_equal(m->gltf_scene, 0);
    for (int b = 0; b < 5; b++) {
        assert_int_equal(m->bones[b].gltf_node, nodes[b]);
        assert_int_equal(m->bones[b].parent, parents[b]);
        assert_string_equal(m->bones[b].name, names[b]);
        assert_int_equal(m->gltf_node_to_bone[nodes[b]], b);
    }
    assert_int_equal(cna_model_find_bone(m, "Cylinder"), 4);
    assert_int_equal(cna_model_find_bone(m, "nope"), -1);
    /* the mesh hangs from the bone of the node that instances it */
    assert_int_equal(m->mesh_count, 1);
    assert_int_equal(m->meshes[0].parent_bone, 4);
    assert_int_equal(m->meshes[0].gltf_node, 2);
    cna_model_free(m);
}

static void test_absolute_bone_transforms_compose_parent_then_child(void **state)
{
    (void)state;
    cna_model *m = model_test_load("fixtures/skin-armature-ancestor.gltf", CNA_CLIP_MODE_DEFAULT);
    cna_mat4 expected;
    cna_error err;
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    cna_mat4 abs[8];
    assert_int_equal(cna_character_copy_absolute_transforms(c, abs, 8, &err), CNA_OK); /* at rest */
    /* bones: Armature, Root, Tip, MeshNode; absolute[Tip] = L_arm · L_root · L_tip */
    cna_mat4_mul(&expected, &m->bones[0].rest_transform, &m->bones[1].rest_transform);
    cna_mat4_mul(&expected, &expected, &m->bones[2].rest_transform);
    assert_memory_equal(&abs[2], &expected, sizeof expected);
    assert_memory_equal(&abs[3], &m->bones[3].rest_transform, sizeof expected);
    cna_character_free(c);
    cna_model_free(m);
}

/* spec: ApplyBindPoseBoneTransformsEXT. The model keeps no palette; a fresh
 * character of it draws every skin with the bind-pose palette, written out
 * here: world[p] = world[parent] · bind[p] (prefix[p] · bind[p] at a root),
 * skin[p] = world[p] · inverse_bind[p]. */
static void test_fresh_character_palettes_are_the_bind_pose_palettes(void **state)
{
    (void)state;
    cna_model *m = model_test_load("corpus/valid/RobotExpressive/robot.glb", CNA_CLIP_MODE_DEFAULT);
    assert_true(m->skin_count > 1);
    cna_character *c = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    for (size_t s = 0; s < m->skin_count; s++) {
        const cna_skinning_data *d = &m->skins[s].data;
        assert_int_equal((size_t)d->bone_count, m->skins[s].joint_count);
        assert_int_equal(d->root_prefix_count, (size_t)d->bone_count);
        cna_mat4 world[CNA_EFFECT_MAX_BONES], palette[CNA_EFFECT_MAX_BONES];
        for (int32_t p = 0; p < d->bone_count; p++) {
            int32_t parent = d->hierarchy[p];
            cna_mat4_mul(&world[p], parent >= 0 ? &world[parent] : &d->root_prefix[p], &d->bind_pose[p]);
            cna_mat4_mul(&palette[p], &world[p], &d->inverse_bind_pose[p]);
        }
        const cna_mat4 *got = cna_character_skin_transforms(c, s);
        assert_non_null(got);
        for (int32_t p = 0; p < d->bone_count; p++)
            for (int k = 0; k < 16; k++)
                if (fabsf(got[p].m[k] - palette[p].m[k]) > 1e-6f)
                    fail_msg("skins[%zu] palette[%d].m[%d] = %.9g; by hand %.9g", s, (int)p, k, (double)got[p].m[k],
                             (double)palette[p].m[k]);
        /* every effect of the skin's meshes is a skinned effect of that skin */
        const cna_model_mesh *mesh = &m->meshes[m->skins[s].meshes[0]];
        for (size_t k = 0; k < mesh->part_count; k++) {
            const cna_effect *e = &m->effects[mesh->parts[k].effect];
            assert_true(cna_effect_kind_is_skinned(e->kind));
            assert_int_equal(e->skin, (int32_t)s);
        }
    }
    cna_character_free(c);
    /* Tag: the first skin */
    assert_ptr_equal(cna_model_skinning_data(m), &m->skins[0].data);
    cna_model_free(m);
}

static void test_rigid_model_has_no_skinning_data_and_carries_its_node_clips(void **state)
{
    (void)state;
    cna_model *m = model_test_load("corpus/valid/BoxAnimated/box_animated.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_null(cna_model_skinning_data(m));
    assert_int_equal(m->skin_count, 0);
    assert_int_equal(m->animation_count, 1);
    assert_int_equal(m->node_clips[0].target, CNA_CLIP_TARGET_SCENE_NODE);
    assert_int_equal(m->node_clips[0].track_count, 2);
    /* no skin: no rigid-animation-dropped diagnostic */
    assert_null(cna_model_find_diagnostic(m, CNA_MODEL_DIAG_RIGID_ANIMATION_DROPPED));
    for (size_t e = 0; e < m->effect_count; e++) {
        assert_false(cna_effect_kind_is_skinned(m->effects[e].kind));
        assert_int_equal(m->effects[e].skin, -1);
    }
    cna_model_free(m);
}

static void test_morph_target_and_animation_names_reach_the_model(void **state)
{
    (void)state;
    cna_model *m = model_test_load("corpus/valid/MorphStressTest/MorphStressTest.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(m->mesh_count, 1);
    assert_int_equal(m->meshes[0].target_name_count, 8);
    assert_non_null(m->meshes[0].target_names);
    assert_string_equal(m->meshes[0].target_names[0], "Key 1");
    assert_string_equal(m->meshes[0].target_names[7], "Key 8");
    assert_int_equal(m->animation_count, 3);
    assert_string_equal(cna_model_animation_name(m, 0), "Individuals");
    assert_string_equal(cna_model_animation_name(m, 2), "Pulse");
    assert_null(cna_model_animation_name(m, 3));
    assert_null(cna_model_animation_name(NULL, 0));
    cna_model_free(m);
    /* A file without targetNames: no names; an unnamed animation: animation_<index>. */
    m = model_test_load("corpus/valid/SimpleSkin/simple_skin.gltf", CNA_CLIP_MODE_DEFAULT);
    for (size_t i = 0; i < m->mesh_count; i++) {
        assert_null(m->meshes[i].target_names);
        assert_int_equal(m->meshes[i].target_name_count, 0);
    }
    assert_string_equal(cna_model_animation_name(m, 0), "animation_0");
    cna_model_free(m);
}

static void test_effect_init_gives_the_gltf_default_material(void **state)
{
    (void)state;
    cna_effect e;
    memset(&e, 0xab, sizeof e);
    cna_effect_init(&e, CNA_EFFECT_KIND_DEFAULT);
    assert_int_equal(e.kind, CNA_EFFECT_KIND_BASIC);
    assert_int_equal(e.material, -1);
    assert_int_equal(e.skin, -1);
    const cna_effect_material *p = &e.params;
    assert_true(p->base_color_factor.x == 1.0f && p->base_color_factor.y == 1.0f &&
                p->base_color_factor.z == 1.0f && p->base_color_factor.w == 1.0f);
    assert_int_equal(p->base_color.image, -1);
    assert_int_equal(p->base_color.texcoord, 0);
    assert_true(p->base_color.scale == 1.0f);
    assert_true(p->metallic_factor == 1.0f && p->roughness_factor == 1.0f);
    assert_int_equal(p->normal.image, -1);
    assert_int_equal(p->emissive.image, -1);
    assert_true(p->emissive_factor.x == 0.0f && p->emissive_factor.y == 0.0f && p->emissive_factor.z == 0.0f);
    assert_int_equal(p->alpha_mode, CNA_ALPHA_MODE_OPAQUE);
    assert_true(p->alpha_cutoff == 0.5f);
    assert_false(p->double_sided);
    cna_effect_init(&e, CNA_EFFECT_KIND_SKINNED_PBR);
    assert_int_equal(e.kind, CNA_EFFECT_KIND_SKINNED_PBR);
    assert_true(cna_effect_kind_is_skinned(e.kind));
    cna_effect_init(&e, CNA_EFFECT_KIND_COUNT);   /* out of range: basic */
    assert_int_equal(e.kind, CNA_EFFECT_KIND_BASIC);
}

static void test_import_options_are_checked(void **state)
{
    (void)state;
    char path[1024];
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_file(model_test_path(path, sizeof path, "fixtures/step-three-keys.gltf"),
                                        NULL, &doc, &err), CNA_OK);
    cna_import_options o;
    memset(&o, 0, sizeof o);
    o.clip_mode = CNA_CLIP_MODE_COUNT;
    cna_model *m = NULL;
    assert_int_equal(cna_model_import_gltf(doc, &o, &m, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "import options: clip_mode 3 is not a cna_clip_mode");
    assert_null(m);
    assert_int_equal(cna_model_import_gltf(NULL, NULL, &m, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_model_import_gltf(doc, NULL, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    cna_model_free(NULL);
    cna_gltf_document_free(doc);
}

/* ---- allocation failure: every allocation in turn fails; nothing leaks ---- */

typedef struct counting {
    size_t attempts, allocs, frees; /* allocs: successful ones */
    size_t fail_at;                 /* 1-based attempt that fails; 0 never */
} counting;

static void *counting_alloc(void *user, size_t size)
{
    counting *c = (counting *)user;
    c->attempts++;
    if (c->fail_at && c->attempts == c->fail_at) return NULL;
    void *p = malloc(size);
    if (p) c->allocs++;
    return p;
}

static void counting_free(void *user, void *ptr)
{
    counting *c = (counting *)user;
    c->frees++;
    free(ptr);
}

static void test_import_fails_cleanly_at_every_allocation(void **state)
{
    (void)state;
    const char *files[] = {"fixtures/skin-folded-node.gltf", "fixtures/cubic-rotation.gltf",
                           "fixtures/skin-two-instances.gltf"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[1024];
        cna_gltf_document *doc = NULL;
        cna_error err;
        assert_int_equal(cna_gltf_load_file(model_test_path(path, sizeof path, files[f]), NULL, &doc, &err), CNA_OK);
        for (size_t k = 1;; k++) {
            counting c = {0, 0, 0, k};
            cna_import_options o;
            memset(&o, 0, sizeof o);
            o.allocator.alloc = counting_alloc;
            o.allocator.free = counting_free;
            o.allocator.user_data = &c;
            cna_model *m = NULL;
            cna_result r = cna_model_import_gltf(doc, &o, &m, &err);
            if (r == CNA_OK) {
                cna_model_free(m);
                assert_int_equal(c.allocs, c.frees);
                break;
            }
            assert_int_equal(r, CNA_ERROR_OUT_OF_MEMORY);
            assert_null(m);
            assert_int_equal(c.allocs, c.frees);
            assert_true(k < 100000);
        }
        cna_gltf_document_free(doc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bones_are_the_scene_flattened_depth_first_pre_order),
        cmocka_unit_test(test_absolute_bone_transforms_compose_parent_then_child),
        cmocka_unit_test(test_fresh_character_palettes_are_the_bind_pose_palettes),
        cmocka_unit_test(test_rigid_model_has_no_skinning_data_and_carries_its_node_clips),
        cmocka_unit_test(test_morph_target_and_animation_names_reach_the_model),
        cmocka_unit_test(test_effect_init_gives_the_gltf_default_material),
        cmocka_unit_test(test_import_options_are_checked),
        cmocka_unit_test(test_import_fails_cleanly_at_every_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
