/*
 * A random rig for the player's path tests (test_player_paths.c,
 * test_player_lanes.c): include after anim/fixtures.h.
 */
#ifndef CNA_TESTS_ANIM_RANDOM_RIG_H
#define CNA_TESTS_ANIM_RANDOM_RIG_H

/* A random rig of RIG_BONES bones: the parent of bone p is p - 1 (mostly),
 * an earlier bone, or none (a root); every third bone untracked, bone 4 with
 * two tracks; keys whose rotations are random, nearly equal, or nearly
 * opposite (both slerp branches and both signs), non-uniform scales. */
enum { RIG_BONES = 23, RIG_TRACKS = 17, RIG_KEYS = 9 };
typedef struct random_rig {
    int32_t hierarchy[RIG_BONES];
    cna_mat4 bind[RIG_BONES], inverse_bind[RIG_BONES], prefix[RIG_BONES];
    cna_keyframe keys[RIG_TRACKS][RIG_KEYS];
    cna_bone_track tracks[RIG_TRACKS];
    cna_clip clip;
    cna_skinning_data data;
} random_rig;

static inline cna_mat4 random_matrix(rng *r)
{
    cna_mat4 m;
    cna_mat4_compose(&m, cna_vec3_make(rng_float(r, -2, 2), rng_float(r, -2, 2), rng_float(r, -2, 2)),
                     rng_quat(r),
                     cna_vec3_make(rng_float(r, 0.5f, 2), rng_float(r, 0.5f, 2), rng_float(r, 0.5f, 2)));
    return m;
}

static inline void random_rig_init(random_rig *g, rng *r, bool prefixed)
{
    memset(g, 0, sizeof *g);
    for (int32_t p = 0; p < RIG_BONES; ++p) {
        const int64_t kind = rng_range(r, 0, 5);
        g->hierarchy[p] = p == 0 || kind == 0 ? -1 : (kind == 1 ? (int32_t)rng_range(r, 0, p - 1) : p - 1);
        g->bind[p] = random_matrix(r);
        g->inverse_bind[p] = random_matrix(r);
        g->prefix[p] = random_matrix(r);
    }
    for (int i = 0; i < RIG_TRACKS; ++i) {
        const int32_t bone = i == RIG_TRACKS - 1 ? 4 : (int32_t)(i + i / 2); /* skips every third */
        cna_quat q = rng_quat(r);
        for (int k = 0; k < RIG_KEYS; ++k) {
            const int64_t kind = rng_range(r, 0, 3);
            if (kind == 0) {
                q = rng_quat(r);
            } else {
                const float e = kind == 1 ? 1e-4f : 0.3f;
                cna_quat n = cna_quat_normalize(cna_quat_make(q.x + rng_float(r, -e, e),
                                                              q.y + rng_float(r, -e, e),
                                                              q.z + rng_float(r, -e, e),
                                                              q.w + rng_float(r, -e, e)));
                if (rng_range(r, 0, 1)) n = cna_quat_make(-n.x, -n.y, -n.z, -n.w);
                q = n;
            }
            g->keys[i][k] = cna_keyframe_make_trs(
                (int64_t)k * CNA_TICKS_PER_SECOND / 8,
                cna_vec3_make(rng_float(r, -1, 1), rng_float(r, -1, 1), rng_float(r, -1, 1)), q,
                cna_vec3_make(rng_float(r, 0.5f, 2), rng_float(r, 0.5f, 2), rng_float(r, 0.5f, 2)));
        }
        g->tracks[i] = cna_bone_track_make(bone, g->keys[i], RIG_KEYS);
    }
    g->clip = cna_clip_make("Random", (int64_t)(RIG_KEYS - 1) * CNA_TICKS_PER_SECOND / 8, g->tracks,
                            RIG_TRACKS);
    g->data = cna_skinning_data_make(RIG_BONES, g->hierarchy, g->bind, g->inverse_bind);
    if (prefixed) {
        g->data.root_prefix = g->prefix;
        g->data.root_prefix_count = RIG_BONES;
    }
    g->data.clips = &g->clip;
    g->data.clip_count = 1;
}

#endif /* CNA_TESTS_ANIM_RANDOM_RIG_H */
