/*
 * Track sampling: the linear reference's rules, and the cursor search
 * compared with it bit for bit on random clips and random times.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "anim/fixtures.h"

_Static_assert(sizeof(cna_keyframe) == 48, "cna_keyframe has no padding, so memcmp compares values");

static cna_keyframe sample_linear(const cna_bone_track *track, int64_t t)
{
    cna_keyframe k;
    memset(&k, 0xA5, sizeof k);
    cna_track_sample_linear(track, t, &k);
    return k;
}

static void assert_keys_identical(const cna_keyframe *a, const cna_keyframe *b)
{
    assert_memory_equal(a, b, sizeof *a);
}

/* keys at 1 s -> (0,0,0) scale 1, 2 s -> (2,4,6) scale 3 */
static void two_keys(cna_keyframe keys[2])
{
    keys[0] = cna_keyframe_make_trs(10000000, cna_vec3_make(0, 0, 0), cna_quat_identity(),
                                    cna_vec3_make(1, 1, 1));
    keys[1] = cna_keyframe_make_trs(20000000, cna_vec3_make(2, 4, 6), cna_quat_identity(),
                                    cna_vec3_make(3, 3, 3));
}

static void test_sampling_holds_the_first_key_before_it(void **state)
{
    (void)state;
    cna_keyframe keys[2];
    two_keys(keys);
    cna_bone_track track = cna_bone_track_make(0, keys, 2);
    for (int64_t t = -20000000; t <= 10000000; t += 5000000) {
        cna_keyframe k = sample_linear(&track, t);
        assert_true(k.ticks == t);
        cna_keyframe expected = keys[0];
        expected.ticks = t;
        assert_keys_identical(&k, &expected);
    }
}

static void test_sampling_holds_the_last_key_after_it(void **state)
{
    (void)state;
    cna_keyframe keys[2];
    two_keys(keys);
    cna_bone_track track = cna_bone_track_make(0, keys, 2);
    const int64_t times[3] = {20000000, 20000001, INT64_MAX};
    for (int i = 0; i < 3; ++i) {
        cna_keyframe k = sample_linear(&track, times[i]);
        cna_keyframe expected = keys[1];
        expected.ticks = times[i];
        assert_keys_identical(&k, &expected);
    }
}

static void test_sampling_lerps_translation_and_scale(void **state)
{
    (void)state;
    cna_keyframe keys[2];
    two_keys(keys);
    cna_bone_track track = cna_bone_track_make(0, keys, 2);
    cna_keyframe k = sample_linear(&track, 15000000);
    assert_true(k.translation.x == 1.0f && k.translation.y == 2.0f && k.translation.z == 3.0f);
    assert_true(k.scale.x == 2.0f && k.scale.y == 2.0f && k.scale.z == 2.0f);
    k = sample_linear(&track, 12500000);
    assert_true(k.translation.x == 0.5f && k.translation.y == 1.0f && k.translation.z == 1.5f);
    assert_true(k.scale.x == 1.5f);
    const cna_quat id = cna_quat_identity();
    assert_memory_equal(&k.rotation, &id, sizeof id);
}

static void test_sampling_slerps_rotation(void **state)
{
    (void)state;
    const float h = 0.70710678118654752f; /* sin 45°, cos 45° */
    cna_keyframe keys[2] = {
        cna_keyframe_make_trs(0, cna_vec3_zero(), cna_quat_identity(), cna_vec3_one()),
        cna_keyframe_make_trs(10000000, cna_vec3_zero(), cna_quat_make(0, 0, h, h), cna_vec3_one()),
    };
    cna_bone_track track = cna_bone_track_make(0, keys, 2);
    cna_keyframe k = sample_linear(&track, 5000000);
    cna_quat expected = cna_quat_slerp(keys[0].rotation, keys[1].rotation, 0.5f);
    assert_memory_equal(&k.rotation, &expected, sizeof expected);
    /* halfway between 0° and 90° about z is 45°: (0, 0, sin 22.5°, cos 22.5°), not a lerp */
    assert_float_equal(k.rotation.z, 0.38268343f, 1e-6f);
    assert_float_equal(k.rotation.w, 0.92387953f, 1e-6f);
    /* the shortest arc: -q is the same rotation and samples the same */
    keys[1].rotation = cna_quat_make(0, 0, -h, -h);
    cna_keyframe n = sample_linear(&track, 5000000);
    assert_memory_equal(&n.rotation, &k.rotation, sizeof k.rotation);
}

static void test_sampling_at_a_key_time_returns_the_key_exactly(void **state)
{
    (void)state;
    cna_keyframe keys[3] = {
        cna_keyframe_make(0, cna_vec3_make(-0.0f, 1, 2)),
        cna_keyframe_make(10, cna_vec3_make(-0.0f, 0.1f, 3)),
        cna_keyframe_make(20, cna_vec3_make(5, 6, 7)),
    };
    keys[1].rotation = cna_quat_make(0.6f, 0, 0, 0.8f);
    cna_bone_track track = cna_bone_track_make(0, keys, 3);
    for (int i = 0; i < 3; ++i) {
        cna_keyframe k = sample_linear(&track, keys[i].ticks);
        assert_keys_identical(&k, &keys[i]); /* -0.0 stays -0.0 */
        size_t cursor = 1;
        cna_track_sample(&track, keys[i].ticks, &cursor, &k);
        assert_keys_identical(&k, &keys[i]);
    }
}

static void test_single_key_track_holds_it_at_every_time(void **state)
{
    (void)state;
    cna_keyframe key = cna_keyframe_make(500, cna_vec3_make(1, 2, 3));
    cna_bone_track track = cna_bone_track_make(0, &key, 1);
    const int64_t times[4] = {INT64_MIN, 0, 500, INT64_MAX};
    for (int i = 0; i < 4; ++i) {
        cna_keyframe k = sample_linear(&track, times[i]);
        cna_keyframe expected = key;
        expected.ticks = times[i];
        assert_keys_identical(&k, &expected);
    }
}

static void test_track_without_keys_samples_identity(void **state)
{
    (void)state;
    cna_bone_track track = cna_bone_track_make(0, NULL, 3);
    cna_keyframe k = sample_linear(&track, 7);
    cna_keyframe expected = cna_keyframe_make(7, cna_vec3_zero());
    assert_keys_identical(&k, &expected);
    size_t cursor = 99;
    cna_track_sample(&track, 7, &cursor, &k);
    assert_keys_identical(&k, &expected);
}

static void test_duplicate_key_times_step_to_the_later_key(void **state)
{
    (void)state;
    cna_keyframe keys[4] = {
        cna_keyframe_make(0, cna_vec3_make(0, 0, 0)),
        cna_keyframe_make(10, cna_vec3_make(1, 0, 0)),
        cna_keyframe_make(10, cna_vec3_make(2, 0, 0)),
        cna_keyframe_make(20, cna_vec3_make(3, 0, 0)),
    };
    cna_bone_track track = cna_bone_track_make(0, keys, 4);
    assert_true(sample_linear(&track, 5).translation.x == 0.5f);
    assert_true(sample_linear(&track, 10).translation.x == 2.0f);
    assert_true(sample_linear(&track, 15).translation.x == 2.5f);
    size_t cursor = 0;
    cna_keyframe k;
    cna_track_sample(&track, 10, &cursor, &k);
    assert_true(k.translation.x == 2.0f);
    assert_true(cursor == 2);
}

static void test_extreme_key_times_interpolate_without_overflow(void **state)
{
    (void)state;
    cna_keyframe keys[3] = {
        cna_keyframe_make(INT64_MIN, cna_vec3_make(0, 0, 0)),
        cna_keyframe_make(0, cna_vec3_make(1, 0, 0)),
        cna_keyframe_make(INT64_MAX, cna_vec3_make(3, 0, 0)),
    };
    cna_bone_track track = cna_bone_track_make(0, keys, 3);
    /* INT64_MIN / 2 is exactly halfway from INT64_MIN to 0 */
    assert_true(sample_linear(&track, INT64_MIN / 2).translation.x == 0.5f);
    cna_bone_track wide = cna_bone_track_make(0, (cna_keyframe[2]){keys[0], keys[2]}, 2);
    /* from INT64_MIN to INT64_MAX the span is 2^64 - 1, larger than INT64_MAX */
    assert_true(sample_linear(&wide, 0).translation.x == 1.5f);
    size_t cursor = 0;
    cna_keyframe k;
    cna_track_sample(&wide, 0, &cursor, &k);
    assert_true(k.translation.x == 1.5f);
}

/* ------------------------------------------------------------------ cursor versus linear */

enum { MAX_KEYS = 48 };

/* A random track: 1..MAX_KEYS keys in non-decreasing time from a random
 * (possibly negative) start, with duplicate times, one-tick gaps and large
 * gaps; random translations, scales and unit rotations of either sign. */
static size_t random_keys(rng *r, cna_keyframe *keys)
{
    const size_t n = (size_t)rng_range(r, 1, MAX_KEYS);
    int64_t t = rng_range(r, -1000, 1000);
    for (size_t i = 0; i < n; ++i) {
        const int64_t kind = rng_range(r, 0, 9);
        if (i > 0) t += kind == 0 ? 0 : kind == 1 ? 1 : kind < 8 ? rng_range(r, 2, 400000) : rng_range(r, 1, 50000000);
        keys[i] = cna_keyframe_make_trs(
            t, cna_vec3_make(rng_float(r, -10, 10), rng_float(r, -10, 10), rng_float(r, -10, 10)),
            rng_quat(r), cna_vec3_make(rng_float(r, 0.1f, 3), rng_float(r, 0.1f, 3), rng_float(r, 0.1f, 3)));
    }
    return n;
}

/* A time near the track: before, after, at a key, a key ±1, or anywhere between. */
static int64_t random_time(rng *r, const cna_keyframe *keys, size_t n)
{
    const int64_t first = keys[0].ticks, last = keys[n - 1].ticks;
    const cna_keyframe *key = &keys[rng_range(r, 0, (int64_t)n - 1)];
    switch (rng_range(r, 0, 7)) {
    case 0: return key->ticks;
    case 1: return key->ticks - 1;
    case 2: return key->ticks + 1;
    case 3: return first - rng_range(r, 0, 1000000);
    case 4: return last + rng_range(r, 0, 1000000);
    case 5: return rng_range(r, 0, 1) ? INT64_MIN : INT64_MAX;
    default: return rng_range(r, first - 10, last + 10);
    }
}

static void compare_at(const cna_bone_track *track, int64_t t, size_t *cursor)
{
    cna_keyframe fast, slow;
    memset(&fast, 0x5A, sizeof fast);
    slow = sample_linear(track, t);
    cna_track_sample(track, t, cursor, &fast);
    if (memcmp(&fast, &slow, sizeof fast) != 0) {
        print_error("t = %lld, %zu keys: cursor search differs from linear search\n", (long long)t,
                    track->key_count);
        fail();
    }
    assert_true(track->key_count < 2 || *cursor <= track->key_count - 2);
}

static void test_cursor_search_equals_linear_search_on_random_clips(void **state)
{
    (void)state;
    rng r = {0x9E3779B97F4A7C15ULL};
    cna_keyframe keys[MAX_KEYS];
    for (int clip = 0; clip < 400; ++clip) {
        const size_t n = random_keys(&r, keys);
        cna_bone_track track = cna_bone_track_make(0, keys, n);
        size_t cursor = 0;
        const int64_t first = keys[0].ticks, last = keys[n - 1].ticks;
        /* forward playback at random frame steps, from before the first key to after the last */
        int64_t step = rng_range(&r, 1, 400000);
        if ((last - first) / step > 4000) step = (last - first) / 4000 + 1; /* at most ~4000 frames */
        for (int64_t t = first - 3 * step; t <= last + 3 * step; t += step) compare_at(&track, t, &cursor);
        /* reverse playback */
        for (int64_t t = last + step; t >= first - step; t -= step) compare_at(&track, t, &cursor);
        /* random seeks, both directions, exact key times and one tick either side */
        for (int i = 0; i < 200; ++i) compare_at(&track, random_time(&r, keys, n), &cursor);
        /* every key time and its neighbours, in order and with a stale cursor */
        for (size_t k = 0; k < n; ++k) {
            compare_at(&track, keys[k].ticks - 1, &cursor);
            compare_at(&track, keys[k].ticks, &cursor);
            compare_at(&track, keys[k].ticks + 1, &cursor);
            size_t stale = (size_t)rng_next(&r);
            compare_at(&track, keys[k].ticks, &stale);
        }
    }
}

static void test_cursor_search_stays_in_bounds_on_keys_out_of_order(void **state)
{
    (void)state;
    rng r = {12345};
    cna_keyframe keys[MAX_KEYS];
    for (int clip = 0; clip < 200; ++clip) {
        const size_t n = random_keys(&r, keys);
        for (size_t i = 0; i < n; ++i) keys[i].ticks = rng_range(&r, -100, 100); /* shuffled times */
        cna_bone_track track = cna_bone_track_make(0, keys, n);
        size_t cursor = (size_t)rng_next(&r);
        for (int i = 0; i < 100; ++i) {
            cna_keyframe k;
            cna_track_sample(&track, rng_range(&r, -120, 120), &cursor, &k);
            assert_true(n < 2 || cursor <= n - 2);
        }
    }
}

/* The player's local transforms equal the linear reference's, composed, bit
 * for bit, through forward playback and seeks, for sorted and unsorted tracks. */
static void test_player_sampling_equals_linear_reference(void **state)
{
    (void)state;
    enum { BONES = 4, TRACKS = 6 };
    rng r = {0xC0FFEE};
    int32_t hierarchy[BONES] = {-1, 0, 1, 0};
    cna_mat4 bind[BONES];
    for (int i = 0; i < BONES; ++i)
        cna_mat4_translation(&bind[i], cna_vec3_make(0, (float)i, 0));
    cna_skinning_data data = cna_skinning_data_make(BONES, hierarchy, bind, bind);
    static cna_keyframe keys[TRACKS][MAX_KEYS];
    for (int round = 0; round < 40; ++round) {
        cna_bone_track tracks[TRACKS];
        int64_t duration = 1;
        for (int i = 0; i < TRACKS; ++i) {
            const size_t n = random_keys(&r, keys[i]);
            if (i == TRACKS - 1 && n > 2) { /* one track out of time order */
                const int64_t t = keys[i][0].ticks;
                keys[i][0].ticks = keys[i][n - 1].ticks;
                keys[i][n - 1].ticks = t;
            }
            tracks[i] = cna_bone_track_make((int32_t)rng_range(&r, -1, BONES), keys[i], n);
            if (keys[i][n - 1].ticks > duration) duration = keys[i][n - 1].ticks;
        }
        cna_clip clip = cna_clip_make("Random", duration, tracks, TRACKS);
        cna_player *player = NULL;
        assert_int_equal(cna_player_create(&data, NULL, &player, NULL), CNA_OK);
        assert_int_equal(cna_player_start_clip(player, &clip, NULL), CNA_OK);
        for (int frame = 0; frame < 300; ++frame) {
            const bool seek = rng_range(&r, 0, 9) == 0;
            const int64_t ticks = seek ? rng_range(&r, -duration, 2 * duration) : rng_range(&r, 0, 300000);
            const bool loop = rng_range(&r, 0, 3) != 0;
            assert_int_equal(cna_player_update(player, ticks, !seek, loop, NULL), CNA_OK);
            cna_mat4 expected[BONES];
            memcpy(expected, bind, sizeof expected);
            for (int i = 0; i < TRACKS; ++i) {
                if (tracks[i].bone < 0 || tracks[i].bone >= BONES) continue;
                cna_keyframe k = sample_linear(&tracks[i], cna_player_position(player));
                cna_mat4_compose(&expected[tracks[i].bone], k.translation, k.rotation, k.scale);
            }
            assert_matrices_identical(cna_player_bone_transforms(player), expected, BONES);
        }
        cna_player_free(player);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sampling_holds_the_first_key_before_it),
        cmocka_unit_test(test_sampling_holds_the_last_key_after_it),
        cmocka_unit_test(test_sampling_lerps_translation_and_scale),
        cmocka_unit_test(test_sampling_slerps_rotation),
        cmocka_unit_test(test_sampling_at_a_key_time_returns_the_key_exactly),
        cmocka_unit_test(test_single_key_track_holds_it_at_every_time),
        cmocka_unit_test(test_track_without_keys_samples_identity),
        cmocka_unit_test(test_duplicate_key_times_step_to_the_later_key),
        cmocka_unit_test(test_extreme_key_times_interpolate_without_overflow),
        cmocka_unit_test(test_cursor_search_equals_linear_search_on_random_clips),
        cmocka_unit_test(test_cursor_search_stays_in_bounds_on_keys_out_of_order),
        cmocka_unit_test(test_player_sampling_equals_linear_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
