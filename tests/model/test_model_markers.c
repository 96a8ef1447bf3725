/*
 * Markers of a model (include/cna/model.h, "markers"): cna_model_add_marker
 * converts the time to ticks, keeps each animation's markers sorted (ties in
 * the order added), copies the name, allocates through the model's hooks,
 * counts the bytes in cna_model_size_bytes and frees them with the model;
 * every refusal names the animation and the value and changes nothing, also
 * when an allocation fails, and while characters of the model live. The
 * model's life: cna_model_free before its characters leaves it to the last
 * of them (on any thread).
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cna/character.h"
#include "model/model_internal.h"
#include "model_test.h"

#define STEP_MODEL "fixtures/step-three-keys.gltf" /* animation 0 "Step", 2 s */

typedef struct counting {
    size_t attempts, allocs, frees;
    size_t fail_at; /* 1-based attempt that fails; 0 never */
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

static cna_model *load_counted(const char *rel, counting *c)
{
    char path[1024];
    cna_import_options o;
    memset(&o, 0, sizeof o);
    o.allocator.alloc = counting_alloc;
    o.allocator.free = counting_free;
    o.allocator.user_data = c;
    cna_model *m = NULL;
    cna_error err;
    assert_int_equal(cna_model_load_file(model_test_path(path, sizeof path, rel), &o, &m, &err), CNA_OK);
    return m;
}

/* The model's markers of animation 0 as "name@ticks ..." */
static const char *listing(const cna_model *m)
{
    static char buf[4096];
    size_t n = 0, at = 0;
    const cna_marker *k = cna_model_markers(m, 0, &n);
    buf[0] = 0;
    for (size_t i = 0; i < n && at < sizeof buf - 64; i++)
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s@%lld", i ? " " : "", k[i].name, (long long)k[i].ticks);
    return buf;
}

static void markers_are_sorted_by_time_with_ties_in_the_order_added(void **state)
{
    (void)state;
    cna_model *m = model_test_load(STEP_MODEL, CNA_CLIP_MODE_DEFAULT);
    size_t n = 7;
    assert_null(cna_model_markers(m, 0, &n));
    assert_int_equal(n, 0);
    cna_error err;
    const char *names[] = {"c", "a", "d", "b", "e", "f"};
    const double times[] = {1.0, 0.5, 1.0, 0.5, 2.0, 0.0};
    for (int i = 0; i < 6; i++) assert_int_equal(cna_model_add_marker(m, 0, names[i], times[i], &err), CNA_OK);
    assert_string_equal(listing(m), "f@0 a@5000000 b@5000000 c@10000000 d@10000000 e@20000000");
    /* many more: the storage grows and the order holds */
    for (int i = 0; i < 100; i++) {
        char name[16];
        snprintf(name, sizeof name, "x%d", i);
        assert_int_equal(cna_model_add_marker(m, 0, name, (double)((i * 37) % 21) / 10.0 - (i % 21 == 20 ? 0.1 : 0.0),
                                              &err), CNA_OK);
    }
    const cna_marker *k = cna_model_markers(m, 0, &n);
    assert_int_equal(n, 106);
    for (size_t i = 1; i < n; i++) assert_true(k[i - 1].ticks <= k[i].ticks);
    /* out-of-range look-ups */
    assert_null(cna_model_markers(m, 1, &n));
    assert_int_equal(n, 0);
    assert_null(cna_model_markers(NULL, 0, &n));
    assert_int_equal(n, 0);
    assert_non_null(cna_model_markers(m, 0, NULL));
    cna_model_free(m);
}

static void the_name_is_copied_and_the_time_rounded_to_ticks(void **state)
{
    (void)state;
    cna_model *m = model_test_load(STEP_MODEL, CNA_CLIP_MODE_DEFAULT);
    char name[] = "footstep";
    cna_error err;
    assert_int_equal(cna_model_add_marker(m, 0, name, 0.12345678, &err), CNA_OK);
    name[0] = 'X';
    size_t n = 0;
    const cna_marker *k = cna_model_markers(m, 0, &n);
    assert_int_equal(n, 1);
    assert_string_equal(k[0].name, "footstep");
    assert_int_equal(k[0].ticks, cna_ticks_from_seconds(0.12345678));
    assert_int_equal(k[0].ticks, 1234568);
    cna_model_free(m);
}

/* The markers live in the public struct: a copy of it (a key-reduced model
 * is one) reads the same markers. */
static void a_copy_of_the_model_struct_shares_its_markers(void **state)
{
    (void)state;
    cna_model *m = model_test_load(STEP_MODEL, CNA_CLIP_MODE_DEFAULT);
    cna_error err;
    assert_int_equal(cna_model_add_marker(m, 0, "left", 0.5, &err), CNA_OK);
    assert_int_equal(cna_model_add_marker(m, 0, "right", 1.5, &err), CNA_OK);
    const cna_model copy = *m;
    size_t n = 0;
    const cna_marker *k = cna_model_markers(&copy, 0, &n);
    assert_int_equal(n, 2);
    assert_ptr_equal(k, cna_model_markers(m, 0, NULL));
    assert_string_equal(k[1].name, "right");
    assert_ptr_equal(copy.animation_markers, m->animation_markers);
    cna_model_free(m);
}

static void markers_are_counted_in_the_model_size_and_freed_with_it(void **state)
{
    (void)state;
    counting c = {0, 0, 0, 0};
    cna_model *m = load_counted(STEP_MODEL, &c);
    const size_t before = cna_model_size_bytes(m);
    const size_t allocs = c.allocs;
    cna_error err;
    assert_int_equal(cna_model_add_marker(m, 0, "a", 1.0, &err), CNA_OK);
    /* the per-animation tables (the lists and their public views), the
     * array of the animation's markers and the name */
    assert_int_equal(c.allocs - allocs, 4);
    const size_t one = cna_model_size_bytes(m);
    assert_int_equal(one, before + sizeof(cna__marker_list) + sizeof(cna_animation_markers) + 4 * sizeof(cna_marker) + 2);
    assert_int_equal(cna_model_add_marker(m, 0, "bcd", 1.5, &err), CNA_OK);
    assert_int_equal(c.allocs - allocs, 5); /* only the name: the array has room */
    assert_int_equal(cna_model_size_bytes(m), one + 4);
    cna_model_free(m);
    assert_int_equal(c.allocs, c.frees);
}

static void refusals_name_the_animation_and_the_value_and_change_nothing(void **state)
{
    (void)state;
    cna_model *m = model_test_load(STEP_MODEL, CNA_CLIP_MODE_DEFAULT);
    cna_error err;
    assert_int_equal(cna_model_add_marker(m, 0, "kept", 1.0, &err), CNA_OK);
    const size_t size = cna_model_size_bytes(m);
    const uint64_t sum = cna__model_checksum(m);
    const struct {
        cna_model *model;
        size_t animation;
        const char *name;
        double seconds;
        const char *message;
    } cases[] = {
        {NULL, 0, "a", 0.0, "marker: NULL model"},
        {m, 0, NULL, 0.0, "marker: NULL name"},
        {m, 1, "a", 0.0, "marker: animation 1 is outside 0..0"},
        {m, 0, "", 0.0, "animations[0] \"Step\": marker name is empty"},
        {m, 0, "a\xff", 0.0, "animations[0] \"Step\": marker name: invalid UTF-8 at byte 1"},
        {m, 0, "a", 3.5, "animations[0] \"Step\": marker time 3.5 s is outside 0..2 s"},
        {m, 0, "a", -0.25, "animations[0] \"Step\": marker time -0.25 s is outside 0..2 s"},
        {m, 0, "a", 2.0000001, "animations[0] \"Step\": marker time 2.0000001 s is outside 0..2 s"},
        {m, 0, "a", (double)INFINITY, "animations[0] \"Step\": marker time inf s is outside 0..2 s"},
        {m, 0, "a", (double)NAN, "animations[0] \"Step\": marker time is NaN"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(cna_model_add_marker(cases[i].model, cases[i].animation, cases[i].name, cases[i].seconds, &err),
                         CNA_ERROR_INVALID_ARGUMENT);
        assert_string_equal(err.message, cases[i].message);
        assert_string_equal(listing(m), "kept@10000000");
        assert_int_equal(cna_model_size_bytes(m), size);
        assert_int_equal(cna__model_checksum(m), sum);
    }
    assert_int_equal(cna_model_add_marker(m, 0, "a", 0.5, NULL), CNA_OK); /* err may be NULL */
    cna_model_free(m);
    /* an unnamed animation (named by the import), and a model without animations */
    m = model_test_load("corpus/valid/SimpleSkin/simple_skin.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(cna_model_add_marker(m, 0, "a", 6.0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "animations[0] \"animation_0\": marker time 6 s is outside 0..5.5 s");
    assert_int_equal(cna_model_add_marker(m, 0, "end", 5.5, &err), CNA_OK);
    cna_model_free(m);
    m = model_test_load("corpus/valid/Triangle/triangle.gltf", CNA_CLIP_MODE_DEFAULT);
    assert_int_equal(cna_model_add_marker(m, 0, "a", 0.0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "marker: animation 0: the model has no animations");
    cna_model_free(m);
}

static void a_failed_allocation_changes_nothing_and_leaks_nothing(void **state)
{
    (void)state;
    /* the first marker needs three allocations, the fifth marker a larger array */
    for (size_t existing = 0; existing <= 4; existing += 4) {
        for (size_t k = 1; k <= 3; k++) {
            counting c = {0, 0, 0, 0};
            cna_model *m = load_counted(STEP_MODEL, &c);
            cna_error err;
            for (size_t i = 0; i < existing; i++) assert_int_equal(cna_model_add_marker(m, 0, "old", 0.5, &err), CNA_OK);
            const char *want = existing ? "old@5000000 old@5000000 old@5000000 old@5000000" : "";
            const size_t size = cna_model_size_bytes(m);
            const size_t live = c.allocs - c.frees;
            c.fail_at = c.attempts + k;
            const cna_result r = cna_model_add_marker(m, 0, "new", 0.25, &err);
            if (existing && k == 3) { /* only two allocations: it succeeds */
                assert_int_equal(r, CNA_OK);
                cna_model_free(m);
                assert_int_equal(c.allocs, c.frees);
                continue;
            }
            assert_int_equal(r, CNA_ERROR_OUT_OF_MEMORY);
            assert_string_equal(err.message, "animations[0] \"Step\": out of memory for marker \"new\"");
            assert_string_equal(listing(m), want);
            assert_int_equal(cna_model_size_bytes(m), size);
            assert_int_equal(c.allocs - c.frees, live);
            c.fail_at = 0;
            assert_int_equal(cna_model_add_marker(m, 0, "new", 0.25, &err), CNA_OK); /* and works afterwards */
            cna_model_free(m);
            assert_int_equal(c.allocs, c.frees);
        }
    }
}

/* While a character of the model lives (one created from a copy of the
 * struct included) a marker is refused, naming the count; once they are
 * freed it is added. */
static void a_marker_is_refused_while_characters_of_the_model_live(void **state)
{
    (void)state;
    cna_model *m = model_test_load(STEP_MODEL, CNA_CLIP_MODE_DEFAULT);
    const cna_model copy = *m;
    cna_character *a = NULL, *b = NULL;
    cna_error err;
    assert_int_equal(cna_model_add_marker(m, 0, "first", 0.5, &err), CNA_OK);
    assert_int_equal(cna_character_create(m, NULL, &a, &err), CNA_OK);
    const uint64_t sum = cna__model_checksum(m);
    assert_int_equal(cna_model_add_marker(m, 0, "left", 1.0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "animations[0] \"Step\": marker \"left\": 1 character of the model is alive; "
                                     "add markers before creating characters");
    assert_int_equal(cna_character_create(&copy, NULL, &b, &err), CNA_OK);
    assert_int_equal(cna_model_add_marker(m, 0, "left", 1.0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "animations[0] \"Step\": marker \"left\": 2 characters of the model are alive; "
                                     "add markers before creating characters");
    assert_int_equal(cna__model_checksum(m), sum);
    assert_string_equal(listing(m), "first@5000000");
    cna_character_free(a);
    cna_character_free(b);
    assert_int_equal(cna_model_add_marker(m, 0, "left", 1.0, &err), CNA_OK);
    assert_string_equal(listing(m), "first@5000000 left@10000000");
    cna_model_free(m);
}

/* The world of every bone after posing at `seconds`, as bytes. */
static void pose_at(cna_character *c, double seconds, cna_mat4 *out, size_t count)
{
    cna_error err;
    assert_int_equal(cna_character_play(c, 0, &err), CNA_OK);
    assert_int_equal(cna_character_seek(c, seconds, &err), CNA_OK);
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    for (size_t b = 0; b < count; b++) out[b] = *cna_character_absolute_transform(c, b);
}

/* cna_model_free while characters live leaves the model to the last of
 * them: they keep posing the same bits, and the model's memory goes back
 * (every allocation freed) when the last character is freed, not before. */
static void a_model_freed_before_its_characters_is_freed_with_the_last(void **state)
{
    (void)state;
    counting c = {0, 0, 0, 0};
    cna_model *m = load_counted(STEP_MODEL, &c);
    const size_t bones = m->bone_count;
    assert_true(bones >= 1 && bones <= 8);
    const cna_model copy = *m; /* outlives b, as a copy must */
    cna_character *a = NULL, *b = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(m, NULL, &a, &err), CNA_OK);
    assert_int_equal(cna_character_create(&copy, NULL, &b, &err), CNA_OK);
    cna_mat4 before[8], after[8];
    pose_at(a, 1.25, before, bones);
    const size_t frees = c.frees;
    cna_model_free(m);
    assert_int_equal(c.frees, frees); /* nothing freed yet */
    pose_at(a, 0.5, after, bones);
    pose_at(a, 1.25, after, bones);
    assert_memory_equal(after, before, bones * sizeof *before);
    cna_character_free(a);
    assert_int_equal(c.frees, frees);
    pose_at(b, 1.25, after, bones);
    assert_memory_equal(after, before, bones * sizeof *before);
    cna_character_free(b); /* the last: the model goes */
    assert_true(c.frees > frees);
    assert_int_equal(c.allocs, c.frees);
}

typedef struct poser {
    cna_character *c;
    size_t bones;
    cna_mat4 world[8];
} poser;

static void *pose_and_free(void *user)
{
    poser *p = (poser *)user;
    for (int i = 0; i < 20; i++) pose_at(p->c, 0.1 * i, p->world, p->bones);
    cna_character_free(p->c);
    return NULL;
}

/* Characters posed and freed on 8 threads while the model is freed on
 * another: the count is atomic, the model is freed once, after all of them. */
static void characters_freed_on_many_threads_free_the_model_once(void **state)
{
    (void)state;
    counting c = {0, 0, 0, 0};
    cna_model *m = load_counted(STEP_MODEL, &c);
    poser p[8];
    pthread_t t[8];
    cna_error err;
    for (int i = 0; i < 8; i++) {
        p[i].bones = m->bone_count;
        assert_int_equal(cna_character_create(m, NULL, &p[i].c, &err), CNA_OK);
    }
    for (int i = 0; i < 8; i++) assert_int_equal(pthread_create(&t[i], NULL, pose_and_free, &p[i]), 0);
    cna_model_free(m);
    for (int i = 0; i < 8; i++) assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_int_equal(c.allocs, c.frees);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(markers_are_sorted_by_time_with_ties_in_the_order_added),
        cmocka_unit_test(the_name_is_copied_and_the_time_rounded_to_ticks),
        cmocka_unit_test(markers_are_counted_in_the_model_size_and_freed_with_it),
        cmocka_unit_test(a_copy_of_the_model_struct_shares_its_markers),
        cmocka_unit_test(refusals_name_the_animation_and_the_value_and_change_nothing),
        cmocka_unit_test(a_failed_allocation_changes_nothing_and_leaks_nothing),
        cmocka_unit_test(a_marker_is_refused_while_characters_of_the_model_live),
        cmocka_unit_test(a_model_freed_before_its_characters_is_freed_with_the_last),
        cmocka_unit_test(characters_freed_on_many_threads_free_the_model_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
