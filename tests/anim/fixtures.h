/*
 * Shared fixtures of the anim tests: the spec's two-bone rig ("A worked
 * two-bone example"), exact-value assertions, counting/failing allocators and
 * a seeded PRNG, and the player's reference pose. Include after <cmocka.h>.
 */
#ifndef CNA_TESTS_ANIM_FIXTURES_H
#define CNA_TESTS_ANIM_FIXTURES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"

/* Bone 1 is a child of bone 0 offset by (0, 1, 0) in bind pose; bone 0's only
 * track ("Move") moves it from the origin to (2, 0, 0) over one second. The
 * struct points into itself: initialise it in place and do not copy it. */
typedef struct two_bone_rig {
    int32_t hierarchy[2];
    cna_mat4 bind[2];
    cna_mat4 inverse_bind[2];
    cna_mat4 prefix[2];
    cna_keyframe keys[2];
    cna_bone_track track;
    cna_clip clip;
    cna_skinning_data data;
} two_bone_rig;

static inline void two_bone_rig_init(two_bone_rig *r)
{
    memset(r, 0, sizeof *r);
    r->hierarchy[0] = -1;
    r->hierarchy[1] = 0;
    cna_mat4_identity(&r->bind[0]);
    cna_mat4_translation(&r->bind[1], cna_vec3_make(0, 1, 0));
    cna_mat4_identity(&r->inverse_bind[0]);
    cna_mat4_identity(&r->inverse_bind[1]);
    cna_mat4_identity(&r->prefix[0]);
    cna_mat4_identity(&r->prefix[1]);
    r->keys[0] = cna_keyframe_make(cna_ticks_from_seconds(0.0), cna_vec3_make(0, 0, 0));
    r->keys[1] = cna_keyframe_make(cna_ticks_from_seconds(1.0), cna_vec3_make(2, 0, 0));
    r->track = cna_bone_track_make(0, r->keys, 2);
    r->clip = cna_clip_make("Move", cna_ticks_from_seconds(1.0), &r->track, 1);
    r->data = cna_skinning_data_make(2, r->hierarchy, r->bind, r->inverse_bind);
    r->data.clips = &r->clip;
    r->data.clip_count = 1;
}

/* Exact comparison of a matrix's translation column (m[12], m[13], m[14]). */
static inline void check_translation(const cna_mat4 *m, float x, float y, float z, const char *file,
                                     int line)
{
    if (m->m[12] != x || m->m[13] != y || m->m[14] != z) {
        print_error("translation is (%.9g, %.9g, %.9g), expected exactly (%.9g, %.9g, %.9g)\n",
                    (double)m->m[12], (double)m->m[13], (double)m->m[14], (double)x, (double)y,
                    (double)z);
        _fail(file, line);
    }
}
#define assert_translation(m, x, y, z) \
    check_translation((m), (float)(x), (float)(y), (float)(z), __FILE__, __LINE__)

/* Bitwise comparison of n matrices. */
#define assert_matrices_identical(a, b, n) \
    assert_memory_equal((const void *)(a), (const void *)(b), (size_t)(n) * sizeof(cna_mat4))

/* An allocator that counts calls and can fail the call numbered fail_at
 * (0-based; -1 never fails). Frees are counted too, so leaks show. */
typedef struct counting_allocator {
    long allocations;
    long frees;
    long fail_at;
} counting_allocator;

static inline void *counting_alloc(void *user, size_t size)
{
    counting_allocator *c = (counting_allocator *)user;
    if (c->allocations++ == c->fail_at) return NULL;
    return malloc(size);
}

static inline void counting_free(void *user, void *ptr)
{
    counting_allocator *c = (counting_allocator *)user;
    c->frees++;
    free(ptr);
}

static inline cna_allocator counting_allocator_make(counting_allocator *c, long fail_at)
{
    c->allocations = 0;
    c->frees = 0;
    c->fail_at = fail_at;
    cna_allocator a = {counting_alloc, counting_free, c};
    return a;
}

/* xorshift64* — a seeded PRNG of our own, so runs are reproducible. */
typedef struct rng {
    uint64_t state;
} rng;

static inline uint64_t rng_next(rng *r)
{
    uint64_t x = r->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform integer in [lo, hi] (hi - lo < 2^63). */
static inline int64_t rng_range(rng *r, int64_t lo, int64_t hi)
{
    const uint64_t span = (uint64_t)hi - (uint64_t)lo + 1u;
    return (int64_t)((uint64_t)lo + rng_next(r) % span);
}

/* Uniform float in [lo, hi). */
static inline float rng_float(rng *r, float lo, float hi)
{
    const float u = (float)(rng_next(r) >> 40) / (float)(1u << 24);
    return lo + (hi - lo) * u;
}

/* A random unit quaternion (either sign of w). */
static inline cna_quat rng_quat(rng *r)
{
    cna_quat q = cna_quat_make(rng_float(r, -1, 1), rng_float(r, -1, 1), rng_float(r, -1, 1),
                               rng_float(r, -1, 1));
    return cna_quat_normalize(q);
}

/* The player's reference pose at t, from the public functions alone
 * (cna_track_sample_linear, cna_mat4_compose, cna_mat4_mul):
 * local = bind pose, then T · R · S of each usable track (a later track wins);
 * world[p] = world[parent] · local[p], or prefix[p] · local[p] for a root
 * when the prefix count is bone_count; skin[p] = world[p] · inverse_bind[p]. */
static inline void reference_pose(const cna_skinning_data *d, const cna_clip *clip, int64_t t,
                                  cna_mat4 *local, cna_mat4 *world, cna_mat4 *skin)
{
    const int32_t n = d->bone_count;
    for (int32_t p = 0; p < n; ++p) local[p] = d->bind_pose[p];
    for (size_t i = 0; clip && i < clip->track_count; ++i) {
        const cna_bone_track *track = &clip->tracks[i];
        if (track->key_count == 0 || !track->keys || track->bone < 0 || track->bone >= n) continue;
        cna_keyframe k;
        cna_track_sample_linear(track, t, &k);
        cna_mat4_compose(&local[track->bone], k.translation, k.rotation, k.scale);
    }
    const bool prefixed = d->root_prefix_count == (size_t)n;
    for (int32_t p = 0; p < n; ++p) {
        const int32_t parent = d->hierarchy[p];
        if (parent >= 0)
            cna_mat4_mul(&world[p], &world[parent], &local[p]);
        else if (prefixed)
            cna_mat4_mul(&world[p], &d->root_prefix[p], &local[p]);
        else
            world[p] = local[p];
        cna_mat4_mul(&skin[p], &world[p], &d->inverse_bind_pose[p]);
    }
}

#endif
