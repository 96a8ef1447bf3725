/*
 * The crowd: results identical to updating the players one by one (1, 2 and
 * 3 threads; counts below, at and above the thread count and around the
 * 16-player chunks), refusals that
 * change nothing, and creation and freeing (idle, after updates, every
 * allocation failing in turn).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fp_env.h"

#include "anim/fixtures.h"

#define ROBOT CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb"

enum { MAX_PLAYERS = 37 };

/* `count` players on the robot's skeleton with different clips and phases,
 * and their twins, updated one by one. */
typedef struct fleet {
    cna_model *model;
    const cna_skinning_data *data;
    size_t count;
    cna_player *crowd[MAX_PLAYERS];
    cna_player *single[MAX_PLAYERS];
} fleet;

static void fleet_init(fleet *f, size_t count)
{
    memset(f, 0, sizeof *f);
    cna_error err;
    const cna_result r = cna_model_load_file(ROBOT, NULL, &f->model, &err);
    if (r) print_error("%s: %s\n", ROBOT, err.message);
    assert_int_equal(r, CNA_OK);
    f->data = cna_model_skinning_data(f->model);
    assert_non_null(f->data);
    f->count = count;
    for (size_t i = 0; i < count; ++i) {
        const cna_clip *clip = i % 5 == 4 ? NULL : &f->data->clips[i % f->data->clip_count];
        const int64_t phase = (int64_t)i * 1234567;
        cna_player **pair[2] = {&f->crowd[i], &f->single[i]};
        for (int k = 0; k < 2; ++k) {
            assert_int_equal(cna_player_create(f->data, NULL, pair[k], NULL), CNA_OK);
            assert_int_equal((clip ? cna_player_start_clip(*pair[k], clip, NULL) : cna_player_stop(*pair[k], NULL)), CNA_OK);
            assert_int_equal(cna_player_update(*pair[k], phase, false, true, NULL), CNA_OK);
        }
    }
}

static void fleet_free(fleet *f)
{
    for (size_t i = 0; i < f->count; ++i) {
        cna_player_free(f->crowd[i]);
        cna_player_free(f->single[i]);
    }
    cna_model_free(f->model);
}

static void assert_player_identical(const cna_player *a, const cna_player *b)
{
    const int32_t n = cna_player_bone_count(a);
    assert_int_equal(n, cna_player_bone_count(b));
    assert_true(cna_player_position(a) == cna_player_position(b));
    assert_ptr_equal(cna_player_current_clip(a), cna_player_current_clip(b));
    assert_matrices_identical(cna_player_bone_transforms(a), cna_player_bone_transforms(b), n);
    assert_matrices_identical(cna_player_world_transforms(a), cna_player_world_transforms(b), n);
    assert_matrices_identical(cna_player_skin_transforms(a), cna_player_skin_transforms(b), n);
}

static cna_crowd *make_crowd(uint32_t threads)
{
    cna_crowd_options opts;
    memset(&opts, 0, sizeof opts);
    opts.thread_count = threads;
    cna_crowd *crowd = NULL;
    cna_error err;
    const cna_result r = cna_crowd_create(&opts, &crowd, &err);
    if (r) print_error("cna_crowd_create: %s\n", err.message);
    assert_int_equal(r, CNA_OK);
    assert_int_equal(cna_crowd_thread_count(crowd), threads);
    return crowd;
}

static void check_identical_to_one_by_one(uint32_t threads, size_t count)
{
    fleet f;
    fleet_init(&f, count);
    cna_crowd *crowd = make_crowd(threads);
    rng r = {0xC40D0ULL + threads * 100 + count};
    for (int frame = 0; frame < 40; ++frame) {
        const bool seek = rng_range(&r, 0, 7) == 0;
        const bool loop = rng_range(&r, 0, 3) != 0;
        const int64_t ticks = seek ? rng_range(&r, -20000000, 40000000) : rng_range(&r, 0, 400000);
        assert_int_equal(cna_crowd_update(crowd, f.crowd, count, ticks, !seek, loop, NULL), CNA_OK);
        for (size_t i = 0; i < count; ++i)
            assert_int_equal(cna_player_update(f.single[i], ticks, !seek, loop, NULL), CNA_OK);
        for (size_t i = 0; i < count; ++i) assert_player_identical(f.crowd[i], f.single[i]);
    }
    cna_crowd_free(crowd);
    fleet_free(&f);
}

static void test_crowd_on_one_thread_equals_updating_one_by_one(void **state)
{
    (void)state;
    check_identical_to_one_by_one(1, 7);
}

static void test_crowd_on_two_threads_equals_updating_one_by_one(void **state)
{
    (void)state;
    check_identical_to_one_by_one(2, 1);
    check_identical_to_one_by_one(2, 2);
    /* chunks of 16: one whole chunk (caller alone), a chunk and one player,
     * two whole chunks, two and one, and a short last chunk */
    check_identical_to_one_by_one(2, 16);
    check_identical_to_one_by_one(2, 17);
    check_identical_to_one_by_one(2, 32);
    check_identical_to_one_by_one(2, 33);
    check_identical_to_one_by_one(2, MAX_PLAYERS);
}

static void test_crowd_on_three_threads_equals_updating_one_by_one(void **state)
{
    (void)state;
    check_identical_to_one_by_one(3, 2);
    check_identical_to_one_by_one(3, 3);
    check_identical_to_one_by_one(3, 10);
    check_identical_to_one_by_one(3, MAX_PLAYERS);
}

static void test_crowd_with_no_players_does_nothing(void **state)
{
    (void)state;
    cna_crowd *crowd = make_crowd(3);
    assert_int_equal(cna_crowd_update(crowd, NULL, 0, 1000, true, true, NULL), CNA_OK);
    cna_crowd_free(crowd);
}

static void test_default_options_give_one_thread(void **state)
{
    (void)state;
    cna_crowd *crowd = NULL;
    assert_int_equal(cna_crowd_create(NULL, &crowd, NULL), CNA_OK);
    assert_int_equal(cna_crowd_thread_count(crowd), 1);
    cna_crowd_free(crowd);
    cna_crowd_options opts;
    memset(&opts, 0, sizeof opts);
    assert_int_equal(cna_crowd_create(&opts, &crowd, NULL), CNA_OK);
    assert_int_equal(cna_crowd_thread_count(crowd), 1);
    cna_crowd_free(crowd);
}

/* ------------------------------------------------------------------ refusals */

typedef struct snapshot {
    int64_t position[MAX_PLAYERS];
    cna_mat4 skin[MAX_PLAYERS];
} snapshot;

static void take(const fleet *f, snapshot *s)
{
    for (size_t i = 0; i < f->count; ++i) {
        s->position[i] = cna_player_position(f->crowd[i]);
        s->skin[i] = cna_player_skin_transforms(f->crowd[i])[5];
    }
}

static void assert_unchanged(const fleet *f, const snapshot *s)
{
    for (size_t i = 0; i < f->count; ++i) {
        assert_true(cna_player_position(f->crowd[i]) == s->position[i]);
        assert_matrices_identical(&cna_player_skin_transforms(f->crowd[i])[5], &s->skin[i], 1);
    }
}

static void test_null_crowd_players_or_entry_is_refused_and_changes_nothing(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f, 4);
    cna_crowd *crowd = make_crowd(2);
    snapshot before;
    take(&f, &before);
    cna_error err;
    assert_int_equal(cna_crowd_update(NULL, f.crowd, 4, 1000, true, true, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "cna_crowd_update: crowd is NULL");
    assert_int_equal(cna_crowd_update(crowd, NULL, 4, 1000, true, true, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "players: NULL with count 4");
    cna_player *list[4] = {f.crowd[0], f.crowd[1], NULL, f.crowd[3]};
    assert_int_equal(cna_crowd_update(crowd, list, 4, 1000, true, true, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "players[2]: NULL");
    assert_unchanged(&f, &before);
    cna_crowd_free(crowd);
    fleet_free(&f);
}

static void test_player_listed_twice_is_refused_and_changes_nothing(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f, 4);
    cna_crowd *crowd = make_crowd(3);
    snapshot before;
    take(&f, &before);
    cna_player *list[5] = {f.crowd[0], f.crowd[1], f.crowd[2], f.crowd[3], f.crowd[1]};
    cna_error err;
    assert_int_equal(cna_crowd_update(crowd, list, 5, 1000, true, true, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "players[4]: the same player as players[1]");
    assert_unchanged(&f, &before);
    /* the refusal leaves no trace: the same players, once each, then update */
    assert_int_equal(cna_crowd_update(crowd, list, 4, 1000, true, true, &err), CNA_OK);
    assert_int_equal(cna_crowd_update(crowd, list, 4, 1000, true, true, &err), CNA_OK);
    cna_crowd_free(crowd);
    fleet_free(&f);
}

static void test_the_first_repeat_is_named_with_its_first_place_in_a_long_list(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f, MAX_PLAYERS);
    cna_crowd *crowd = make_crowd(2);
    snapshot before;
    take(&f, &before);
    cna_player *list[MAX_PLAYERS + 3];
    for (size_t i = 0; i < MAX_PLAYERS; ++i) list[i] = f.crowd[i];
    list[MAX_PLAYERS] = f.crowd[30];
    list[MAX_PLAYERS + 1] = f.crowd[0];
    list[MAX_PLAYERS + 2] = f.crowd[30];
    cna_error err;
    assert_int_equal(cna_crowd_update(crowd, list, MAX_PLAYERS + 3, 1000, true, true, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "players[37]: the same player as players[30]");
    assert_int_equal(cna_crowd_update(crowd, list + 1, MAX_PLAYERS + 1, 1000, true, true, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "players[36]: the same player as players[29]");
    list[MAX_PLAYERS] = f.crowd[36]; /* next to it in the list */
    assert_int_equal(cna_crowd_update(crowd, list, MAX_PLAYERS + 1, 1000, true, true, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "players[37]: the same player as players[36]");
    assert_unchanged(&f, &before);
    /* the same list, each once: accepted, by this crowd and by another */
    cna_crowd *other = make_crowd(1);
    assert_int_equal(cna_crowd_update(crowd, list, MAX_PLAYERS, 1000, true, true, &err), CNA_OK);
    assert_int_equal(cna_crowd_update(other, list, MAX_PLAYERS, 1000, true, true, &err), CNA_OK);
    for (size_t i = 0; i < MAX_PLAYERS; ++i) {
        for (int k = 0; k < 2; ++k) assert_int_equal(cna_player_update(f.single[i], 1000, true, true, NULL), CNA_OK);
        assert_player_identical(f.crowd[i], f.single[i]);
    }
    cna_crowd_free(other);
    cna_crowd_free(crowd);
    fleet_free(&f);
}

static void test_player_with_broken_data_is_refused_by_index_and_nothing_changes(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f, 3);
    two_bone_rig rig;
    two_bone_rig_init(&rig);
    cna_player *odd = NULL;
    assert_int_equal(cna_player_create(&rig.data, NULL, &odd, NULL), CNA_OK);
    assert_int_equal(cna_player_start_clip(odd, &rig.clip, NULL), CNA_OK);
    rig.data.bone_count = 3; /* resized after creation: cna_player_update refuses */
    cna_player *list[4] = {f.crowd[0], f.crowd[1], odd, f.crowd[2]};
    cna_crowd *crowd = make_crowd(2);
    snapshot before;
    take(&f, &before);
    cna_error err;
    assert_int_equal(cna_crowd_update(crowd, list, 4, 1000, true, true, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "players[2]: bone_count: 3 differs from the 2 bones the player was created with");
    assert_unchanged(&f, &before);
    assert_true(cna_player_position(odd) == 0);
    rig.data.bone_count = 2;
    assert_int_equal(cna_crowd_update(crowd, list, 4, 1000, true, true, &err), CNA_OK);
    assert_true(cna_player_position(odd) == 1000);
    cna_player_free(odd);
    cna_crowd_free(crowd);
    fleet_free(&f);
}

static void test_too_many_threads_are_refused(void **state)
{
    (void)state;
    cna_crowd_options opts;
    memset(&opts, 0, sizeof opts);
    opts.thread_count = CNA_CROWD_MAX_THREADS + 1;
    cna_crowd *crowd = (cna_crowd *)(uintptr_t)0x1;
    cna_error err;
    assert_int_equal(cna_crowd_create(&opts, &crowd, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "thread_count: 257 is above 256");
    assert_ptr_equal(crowd, (cna_crowd *)(uintptr_t)0x1);
    assert_int_equal(cna_crowd_create(&opts, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------ lifetime */

static void test_freeing_an_idle_crowd_stops_its_threads(void **state)
{
    (void)state;
    for (uint32_t threads = 1; threads <= 4; ++threads) {
        cna_crowd *crowd = make_crowd(threads);
        cna_crowd_free(crowd); /* never updated: the workers are waiting */
    }
    cna_crowd_free(NULL);
}

static void test_freeing_after_updates_stops_its_threads(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f, 5);
    cna_crowd *crowd = make_crowd(3);
    for (int i = 0; i < 10; ++i)
        assert_int_equal(cna_crowd_update(crowd, f.crowd, 5, 166667, true, true, NULL), CNA_OK);
    cna_crowd_free(crowd);
    fleet_free(&f);
}

static void test_crowd_allocates_through_its_hooks_and_fails_cleanly(void **state)
{
    (void)state;
    counting_allocator c;
    cna_crowd_options opts;
    memset(&opts, 0, sizeof opts);
    opts.thread_count = 3;
    opts.allocator = counting_allocator_make(&c, -1);
    cna_crowd *crowd = NULL;
    assert_int_equal(cna_crowd_create(&opts, &crowd, NULL), CNA_OK);
    const long needed = c.allocations;
    assert_true(needed >= 1);
    cna_crowd_free(crowd);
    assert_int_equal(c.frees, needed);
    for (long fail = 0; fail < needed; ++fail) {
        opts.allocator = counting_allocator_make(&c, fail);
        crowd = (cna_crowd *)(uintptr_t)0x1;
        cna_error err;
        assert_int_equal(cna_crowd_create(&opts, &crowd, &err), CNA_ERROR_OUT_OF_MEMORY);
        assert_ptr_equal(crowd, (cna_crowd *)(uintptr_t)0x1);
        assert_int_equal(c.frees, c.allocations - 1); /* everything but the failed call */
    }
}

/* The duplicate check's table: allocated by the first list longer than any
 * before (16 entries for up to 8 players, then a power of two of at least
 * twice the count), never again for lists as long; a failure refuses the
 * update and changes nothing. */
static void test_duplicate_table_grows_only_for_a_longer_list(void **state)
{
    (void)state;
    fleet f;
    fleet_init(&f, 20);
    counting_allocator c;
    cna_crowd_options opts;
    memset(&opts, 0, sizeof opts);
    opts.thread_count = 2;
    opts.allocator = counting_allocator_make(&c, -1);
    cna_crowd *crowd = NULL;
    assert_int_equal(cna_crowd_create(&opts, &crowd, NULL), CNA_OK);
    const long created = c.allocations;
    cna_crowd_free(crowd);
    /* the table's allocation refused: nothing changes, and the next call works */
    opts.allocator = counting_allocator_make(&c, created);
    assert_int_equal(cna_crowd_create(&opts, &crowd, NULL), CNA_OK);
    snapshot before;
    take(&f, &before);
    cna_error err;
    assert_int_equal(cna_crowd_update(crowd, f.crowd, 5, 1000, true, true, &err), CNA_ERROR_OUT_OF_MEMORY);
    assert_string_equal(err.message, "crowd: out of memory for checking 5 players");
    assert_unchanged(&f, &before);
    assert_int_equal(cna_crowd_update(crowd, f.crowd, 5, 1000, true, true, &err), CNA_OK);
    for (size_t i = 0; i < 5; ++i) {
        assert_int_equal(cna_player_update(f.single[i], 1000, true, true, NULL), CNA_OK);
        assert_player_identical(f.crowd[i], f.single[i]);
    }
    assert_true(cna_player_position(f.crowd[5]) == before.position[5]);
    cna_crowd_free(crowd);
    assert_int_equal(c.frees, c.allocations - 1); /* all but the refused one */
    /* the table grows only for a longer list */
    opts.allocator = counting_allocator_make(&c, -1);
    assert_int_equal(cna_crowd_create(&opts, &crowd, NULL), CNA_OK);
    assert_int_equal(cna_crowd_update(crowd, f.crowd, 1, 1000, true, true, NULL), CNA_OK);
    assert_int_equal(c.allocations, created); /* one player: nothing to compare */
    const long grows[][3] = {/* count, allocations since creation, frees */
                             {8, 1, 0}, {8, 1, 0}, {3, 1, 0}, {9, 2, 1}, {20, 3, 2}, {20, 3, 2}, {16, 3, 2}};
    for (size_t k = 0; k < sizeof grows / sizeof grows[0]; ++k) {
        assert_int_equal(cna_crowd_update(crowd, f.crowd, (size_t)grows[k][0], 1000, true, true, NULL), CNA_OK);
        assert_int_equal(c.allocations - created, grows[k][1]);
        assert_int_equal(c.frees, grows[k][2]);
    }
    cna_crowd_free(crowd);
    assert_int_equal(c.frees, c.allocations);
    fleet_free(&f);
}

int main(void)
{
    fp_env_from_test_environment(); /* CNA_TEST_FTZ_DAZ: tests/fp_env.h */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crowd_on_one_thread_equals_updating_one_by_one),
        cmocka_unit_test(test_crowd_on_two_threads_equals_updating_one_by_one),
        cmocka_unit_test(test_crowd_on_three_threads_equals_updating_one_by_one),
        cmocka_unit_test(test_crowd_with_no_players_does_nothing),
        cmocka_unit_test(test_default_options_give_one_thread),
        cmocka_unit_test(test_null_crowd_players_or_entry_is_refused_and_changes_nothing),
        cmocka_unit_test(test_player_listed_twice_is_refused_and_changes_nothing),
        cmocka_unit_test(test_the_first_repeat_is_named_with_its_first_place_in_a_long_list),
        cmocka_unit_test(test_player_with_broken_data_is_refused_by_index_and_nothing_changes),
        cmocka_unit_test(test_too_many_threads_are_refused),
        cmocka_unit_test(test_freeing_an_idle_crowd_stops_its_threads),
        cmocka_unit_test(test_freeing_after_updates_stops_its_threads),
        cmocka_unit_test(test_crowd_allocates_through_its_hooks_and_fails_cleanly),
        cmocka_unit_test(test_duplicate_table_grows_only_for_a_longer_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
