/*
 * tests/character/same_pose.h — assert that two characters' last poses are
 * equal byte for byte: every bone's local and absolute transform, every
 * skin's palette and world transforms, every part's morph weights and
 * blended vertices. Include after <cmocka.h> and "cna/cna.h".
 */
#ifndef CNA_TESTS_SAME_POSE_H
#define CNA_TESTS_SAME_POSE_H

static void assert_same_pose(const cna_character *a, const cna_character *b)
{
    const cna_model *m = cna_character_model(a);
    for (size_t i = 0; i < m->bone_count; i++) {
        assert_memory_equal(cna_character_bone_transform(a, i), cna_character_bone_transform(b, i), sizeof(cna_mat4));
        assert_memory_equal(cna_character_absolute_transform(a, i), cna_character_absolute_transform(b, i),
                            sizeof(cna_mat4));
    }
    for (size_t s = 0; s < m->skin_count; s++) {
        const size_t n = m->skins[s].joint_count * sizeof(cna_mat4);
        if (!n) continue;
        assert_memory_equal(cna_character_skin_transforms(a, s), cna_character_skin_transforms(b, s), n);
        assert_memory_equal(cna_character_world_transforms(a, s), cna_character_world_transforms(b, s), n);
    }
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++) {
            size_t na = 0, nb = 0;
            const float *wa = cna_character_morph_weights(a, i, k, &na);
            const float *wb = cna_character_morph_weights(b, i, k, &nb);
            assert_int_equal(na, nb);
            if (na) assert_memory_equal(wa, wb, na * sizeof(float));
            size_t sa = 0, sb = 0;
            const void *va = cna_character_part_vertices(a, i, k, &sa);
            const void *vb = cna_character_part_vertices(b, i, k, &sb);
            assert_int_equal(sa, sb);
            if (sa) assert_memory_equal(va, vb, sa);
        }
}

#endif
