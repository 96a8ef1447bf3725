/*
 * cna_crowd_update_characters: characters advanced and posed on 1, 2 and 3
 * threads give exactly what updating each in turn gives (counts around the
 * 16-character chunks, characters of different models, animations, loop
 * modes and time scales); characters of one model and animation, whose
 * players the crowd poses together in vector lanes, among others that
 * cannot share them (blended, a moving root prefix, another model); refusals
 * change nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fp_env.h"

#include "character/character_internal.h"
#include "cna/cna.h"
#include "same_pose.h"

enum { MAX = 40 };

static const char *const FILES[] = {
    CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb",
    CNA_TEST_DATA_DIR "/fixtures/skin-nested.gltf",
    CNA_TEST_DATA_DIR "/corpus/valid/MorphStressTest/MorphStressTest.gltf",
};

typedef struct troupe {
    cna_model *models[3];
    size_t count;
    cna_character *crowd[MAX];
    cna_character *single[MAX];
} troupe;

static void troupe_init(troupe *t, size_t count)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < 3; i++) {
        cna_error err;
        cna_result r = cna_model_load_file(FILES[i], NULL, &t->models[i], &err);
        if (r) print_error("%s: %s\n", FILES[i], err.message);
        assert_int_equal(r, CNA_OK);
    }
    t->count = count;
    for (size_t i = 0; i < count; i++) {
        const cna_model *m = t->models[i % 3];
        cna_character **pair[2] = {&t->crowd[i], &t->single[i]};
        for (int k = 0; k < 2; k++) {
            assert_int_equal(cna_character_create(m, NULL, pair[k], NULL), CNA_OK);
            const long anim = i % 7 == 6 ? -1 : (long)(i % m->animation_count);
            assert_int_equal(cna_character_play(*pair[k], anim, NULL), CNA_OK);
            assert_int_equal(cna_character_set_loop_mode(*pair[k], (cna_loop_mode)(1 + i % 3), NULL), CNA_OK);
            assert_int_equal(cna_character_set_time_scale(*pair[k], i % 4 == 3 ? -1.5 : 1.0 + 0.1 * (double)i, NULL),
                             CNA_OK);
            assert_int_equal(cna_character_seek_ticks(*pair[k], (int64_t)i * 1234567, NULL), CNA_OK);
        }
    }
}

static void troupe_free(troupe *t)
{
    for (size_t i = 0; i < t->count; i++) {
        cna_character_free(t->crowd[i]);
        cna_character_free(t->single[i]);
    }
    for (int i = 0; i < 3; i++) cna_model_free(t->models[i]);
}

/* the same position and the same pose, byte for byte (same_pose.h) */
static void assert_same(const cna_character *a, const cna_character *b)
{
    assert_true(cna_character_position(a) == cna_character_position(b));
    assert_same_pose(a, b);
}

static cna_crowd *make_crowd(uint32_t threads)
{
    cna_crowd_options o;
    memset(&o, 0, sizeof o);
    o.thread_count = threads;
    cna_crowd *crowd = NULL;
    assert_int_equal(cna_crowd_create(&o, &crowd, NULL), CNA_OK);
    return crowd;
}

static void crowd_of_characters_equals_one_by_one(void **state)
{
    (void)state;
    const size_t counts[] = {1, 2, 16, 17, 33, MAX};
    for (uint32_t threads = 1; threads <= 3; threads++) {
        cna_crowd *crowd = make_crowd(threads);
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            troupe t;
            troupe_init(&t, counts[c]);
            for (int frame = 0; frame < 12; frame++) {
                const double dt = frame % 5 == 4 ? 3.7 : 1.0 / 60.0;
                cna_error err;
                assert_int_equal(cna_crowd_update_characters(crowd, t.crowd, t.count, dt, &err), CNA_OK);
                for (size_t i = 0; i < t.count; i++) assert_int_equal(cna_character_update(t.single[i], dt, NULL), CNA_OK);
                for (size_t i = 0; i < t.count; i++) assert_same(t.crowd[i], t.single[i]);
            }
            troupe_free(&t);
        }
        cna_crowd_free(crowd);
    }
}

#define ANCESTOR CNA_TEST_DATA_DIR "/fixtures/skin-animated-ancestor.gltf"

/* `count` characters: kind 0 RobotExpressive playing Robot_Walking (its
 * player posed in lanes with its neighbours), kind 1 the robot blending two
 * layers, kind 2 the robot playing another animation, kind 3 a skin whose
 * root prefix moves (neither in lanes with the walkers). */
static cna_character *make(cna_model *const models[2], int kind, size_t i)
{
    cna_character *c = NULL;
    const cna_model *m = models[kind == 3];
    assert_int_equal(cna_character_create(m, NULL, &c, NULL), CNA_OK);
    size_t found = 0;
    assert_int_equal(cna_model_find_animation(models[0], "Robot_Walking", &found, NULL), CNA_OK);
    const long walk = (long)found;
    assert_int_equal(cna_character_play(c, kind == 3 ? 0 : (kind == 2 ? walk + 1 : walk), NULL), CNA_OK);
    if (kind == 1) {
        assert_int_equal(cna_character_layer_play(c, 1, walk + 2, NULL), CNA_OK);
        assert_int_equal(cna_character_layer_set_weight(c, 1, 0.5f, NULL), CNA_OK);
    }
    assert_int_equal(cna_character_set_loop_mode(c, (cna_loop_mode)(1 + i % 3), NULL), CNA_OK);
    assert_int_equal(cna_character_set_time_scale(c, i % 5 == 4 ? -0.75 : 1.0 + 0.05 * (double)i, NULL), CNA_OK);
    assert_int_equal(cna_character_seek_ticks(c, (int64_t)i * 7654321, NULL), CNA_OK);
    return c;
}

static void characters_of_one_animation_share_lanes(void **state)
{
    (void)state;
    cna_model *models[2] = {NULL, NULL};
    const char *files[2] = {FILES[0], ANCESTOR};
    for (int i = 0; i < 2; i++) {
        cna_error err;
        const cna_result r = cna_model_load_file(files[i], NULL, &models[i], &err);
        if (r) print_error("%s: %s\n", files[i], err.message);
        assert_int_equal(r, CNA_OK);
    }
    /* walkers with others between them, in and across 16-character chunks */
    const int kinds[] = {0, 0, 1, 0, 3, 0, 0, 2, 0, 0, 0, 1, 0, 3, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 1, 0, 0};
    enum { N = sizeof kinds / sizeof kinds[0] };
    cna_character *crowd_list[N], *single[N];
    size_t walkers = 0;
    for (size_t i = 0; i < N; i++) {
        crowd_list[i] = make(models, kinds[i], i);
        single[i] = make(models, kinds[i], i);
        int64_t position = 0;
        const bool lane = cna__character_lane_player(crowd_list[i], &position) != NULL;
        assert_int_equal(lane, kinds[i] == 0 || kinds[i] == 2);
        walkers += kinds[i] == 0;
    }
    assert_int_equal(walkers, 22);
    for (uint32_t threads = 1; threads <= 2; threads++) {
        cna_crowd *crowd = make_crowd(threads);
        for (int frame = 0; frame < 90; frame++) {
            const double dt = frame % 17 == 16 ? 2.9 : 1.0 / 60.0;
            cna_error err;
            assert_int_equal(cna_crowd_update_characters(crowd, crowd_list, N, dt, &err), CNA_OK);
            for (size_t i = 0; i < N; i++) assert_int_equal(cna_character_update(single[i], dt, NULL), CNA_OK);
            for (size_t i = 0; i < N; i++) assert_same(crowd_list[i], single[i]);
        }
        cna_crowd_free(crowd);
    }
    for (size_t i = 0; i < N; i++) {
        cna_character_free(crowd_list[i]);
        cna_character_free(single[i]);
    }
    for (int i = 0; i < 2; i++) cna_model_free(models[i]);
}

static void refusals_change_nothing(void **state)
{
    (void)state;
    cna_crowd *crowd = make_crowd(2);
    troupe t;
    troupe_init(&t, 20);
    int64_t before[MAX];
    for (size_t i = 0; i < t.count; i++) before[i] = cna_character_position(t.crowd[i]);
    cna_error err;
    cna_character *list[MAX];
    memcpy(list, t.crowd, sizeof list);
    list[7] = list[2];
    assert_int_equal(cna_crowd_update_characters(crowd, list, 20, 0.1, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "characters[7]: the same character as characters[2]");
    list[7] = NULL;
    assert_int_equal(cna_crowd_update_characters(crowd, list, 20, 0.1, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "characters[7]: NULL");
    assert_int_equal(cna_character_set_time_scale(t.crowd[5], 1e300, NULL), CNA_OK);
    assert_int_equal(cna_crowd_update_characters(crowd, t.crowd, 20, 1e300, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "characters[5]: advance: 1e+300 s at time scale 1e+300 is not finite");
    for (size_t i = 0; i < t.count; i++) assert_true(cna_character_position(t.crowd[i]) == before[i]);
    assert_int_equal(cna_crowd_update_characters(crowd, NULL, 3, 0.1, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "characters: NULL with count 3");
    assert_int_equal(cna_crowd_update_characters(NULL, t.crowd, 3, 0.1, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_crowd_update_characters(crowd, t.crowd, 0, 0.1, &err), CNA_OK);
    /* the marks were cleared: the same list is accepted afterwards */
    assert_int_equal(cna_character_set_time_scale(t.crowd[5], 1.0, NULL), CNA_OK);
    assert_int_equal(cna_crowd_update_characters(crowd, t.crowd, 20, 0.1, &err), CNA_OK);
    troupe_free(&t);
    cna_crowd_free(crowd);
}

/* An allocator that refuses every call from number `refuse_from` on. */
typedef struct refusing {
    long calls, frees, refuse_from;
} refusing;

static void *refusing_alloc(void *user, size_t size)
{
    refusing *r = (refusing *)user;
    return r->calls++ >= r->refuse_from ? NULL : malloc(size);
}

static void refusing_free(void *user, void *ptr)
{
    ((refusing *)user)->frees++;
    free(ptr);
}

/* The checks run in list order, each entry's repeat before its advance: the
 * lowest index that fails is reported, whichever check it fails. */
static void the_lowest_failing_index_is_reported(void **state)
{
    (void)state;
    troupe t;
    troupe_init(&t, 20);
    int64_t before[MAX];
    for (size_t i = 0; i < t.count; i++) before[i] = cna_character_position(t.crowd[i]);
    refusing r = {0, 0, 1000};
    cna_crowd_options o;
    memset(&o, 0, sizeof o);
    o.thread_count = 2;
    o.allocator.alloc = refusing_alloc;
    o.allocator.free = refusing_free;
    o.allocator.user_data = &r;
    cna_crowd *crowd = NULL;
    assert_int_equal(cna_crowd_create(&o, &crowd, NULL), CNA_OK);
    const long created = r.calls;
    cna_character *list[MAX];
    memcpy(list, t.crowd, sizeof list);
    assert_int_equal(cna_character_set_time_scale(t.crowd[5], 1e300, NULL), CNA_OK);
    list[7] = list[2];
    cna_error err;
    assert_int_equal(cna_crowd_update_characters(crowd, list, 20, 1e300, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "characters[5]: advance: 1e+300 s at time scale 1e+300 is not finite");
    list[3] = list[1];
    assert_int_equal(cna_crowd_update_characters(crowd, list, 20, 1e300, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "characters[3]: the same character as characters[1]");
    assert_int_equal(r.calls - created, 1); /* the duplicate table, once */
    /* a longer list needs a larger table: refused, nothing changes */
    r.refuse_from = r.calls;
    cna_character *longer[MAX];
    memcpy(longer, t.crowd, sizeof longer);
    troupe more;
    troupe_init(&more, 20);
    memcpy(longer + 20, more.crowd, 20 * sizeof *longer);
    assert_int_equal(cna_character_set_time_scale(t.crowd[5], 1.0 + 0.1 * (double)5, NULL), CNA_OK); /* as made */
    assert_int_equal(cna_crowd_update_characters(crowd, longer, 40, 0.1, &err), CNA_ERROR_OUT_OF_MEMORY);
    assert_string_equal(err.message, "crowd: out of memory for checking 40 characters");
    for (size_t i = 0; i < t.count; i++) assert_true(cna_character_position(t.crowd[i]) == before[i]);
    /* the table it has serves lists as long as before */
    assert_int_equal(cna_crowd_update_characters(crowd, t.crowd, 20, 0.1, &err), CNA_OK);
    for (size_t i = 0; i < t.count; i++) {
        assert_int_equal(cna_character_update(t.single[i], 0.1, NULL), CNA_OK);
        assert_same(t.crowd[i], t.single[i]);
    }
    cna_crowd_free(crowd);
    assert_int_equal(r.frees, created + 1);
    troupe_free(&more);
    troupe_free(&t);
}

int main(void)
{
    fp_env_from_test_environment(); /* CNA_TEST_FTZ_DAZ: tests/fp_env.h */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crowd_of_characters_equals_one_by_one),
        cmocka_unit_test(characters_of_one_animation_share_lanes),
        cmocka_unit_test(refusals_change_nothing),
        cmocka_unit_test(the_lowest_failing_index_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
