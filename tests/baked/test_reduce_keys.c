/*
 * Key reduction (cna_model_reduce_keys): on RobotExpressive and on a small
 * fixture, the reduced clips have fewer keys, and playing them on a
 * cna_player moves no joint (nor any point 0.1 units from a joint along its
 * axes) by more than the tolerance from where the unreduced clips put it, at
 * every key time and every midpoint between consecutive key times; at
 * tolerance 0 the poses are bit for bit the unreduced ones and only exactly
 * redundant keys go; the input model is not modified; the reduced model bakes
 * and loads back; bad options are refused naming the value; a failed
 * allocation is reported and leaks nothing.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cna/cna.h"

#define ROBOT "corpus/valid/RobotExpressive/robot.glb"
#define FIXTURE "fixtures/reduce-keys.gltf"

static cna_model *load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    cna_model *m = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    const cna_result r = cna_model_load_file(path, NULL, &m, &err);
    if (r != CNA_OK) print_error("%s: %s\n", rel, err.message);
    assert_int_equal(r, CNA_OK);
    return m;
}

static cna_key_reduction *reduce(const cna_model *m, double tolerance)
{
    cna_key_reduction_options o;
    memset(&o, 0, sizeof o);
    o.tolerance = tolerance;
    cna_key_reduction *r = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    const cna_result rc = cna_model_reduce_keys(m, &o, &r, &err);
    if (rc != CNA_OK) print_error("%s\n", err.message);
    assert_int_equal(rc, CNA_OK);
    assert_non_null(r);
    return r;
}

static size_t clip_keys(const cna_clip *c)
{
    size_t n = 0;
    for (size_t t = 0; t < c->track_count; t++) n += c->tracks[t].key_count;
    return n;
}

static size_t skin_keys(const cna_skinning_data *d)
{
    size_t n = 0;
    for (size_t c = 0; c < d->clip_count; c++) n += clip_keys(&d->clips[c]);
    return n;
}

static int compare_ticks(const void *x, const void *y)
{
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Every key time of the clip's tracks and the midpoint between consecutive
 * distinct ones, ascending; *count entries (free the result). */
static int64_t *check_times(const cna_clip *c, size_t *count)
{
    const size_t keys = clip_keys(c);
    int64_t *t = calloc(2 * keys + 1, sizeof *t);
    assert_non_null(t);
    size_t n = 0;
    for (size_t i = 0; i < c->track_count; i++)
        for (size_t k = 0; k < c->tracks[i].key_count; k++) t[n++] = c->tracks[i].keys[k].ticks;
    qsort(t, n, sizeof *t, compare_ticks);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || t[i] != t[u - 1]) t[u++] = t[i];
    const size_t distinct = u;
    for (size_t i = 0; i + 1 < distinct; i++) t[u++] = t[i] + (t[i + 1] - t[i]) / 2;
    *count = u;
    return t;
}

typedef struct measure {
    double position;  /* largest joint position displacement */
    double frame;     /* largest displacement of a joint or of a point 0.1 along its axes */
    bool identical;   /* every world matrix bit for bit equal */
} measure;

/* Play clip c of `a` and of `b` on two players at every check time and
 * compare their world transforms. */
static void compare_clip(const cna_skinning_data *a, const cna_skinning_data *b, size_t c, measure *out)
{
    cna_player *pa = NULL, *pb = NULL;
    assert_int_equal(cna_player_create(a, NULL, &pa, NULL), CNA_OK);
    assert_int_equal(cna_player_create(b, NULL, &pb, NULL), CNA_OK);
    assert_int_equal(cna_player_start_clip(pa, &a->clips[c], NULL), CNA_OK);
    assert_int_equal(cna_player_start_clip(pb, &b->clips[c], NULL), CNA_OK);
    size_t count = 0;
    int64_t *times = check_times(&a->clips[c], &count);
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(cna_player_update(pa, times[i], false, false, NULL), CNA_OK);
        assert_int_equal(cna_player_update(pb, times[i], false, false, NULL), CNA_OK);
        const cna_mat4 *wa = cna_player_world_transforms(pa), *wb = cna_player_world_transforms(pb);
        for (int32_t p = 0; p < a->bone_count; p++) {
            if (memcmp(&wa[p], &wb[p], sizeof wa[p]) != 0) out->identical = false;
            for (int axis = -1; axis < 3; axis++) {
                double e = 0;
                for (int k = 0; k < 3; k++) {
                    double v = (double)wa[p].m[12 + k] - (double)wb[p].m[12 + k];
                    if (axis >= 0) v += 0.1 * ((double)wa[p].m[4 * axis + k] - (double)wb[p].m[4 * axis + k]);
                    e += v * v;
                }
                e = sqrt(e);
                if (axis < 0 && e > out->position) out->position = e;
                if (e > out->frame) out->frame = e;
            }
        }
    }
    free(times);
    cna_player_free(pa);
    cna_player_free(pb);
}

static measure compare_model(const cna_model *m, const cna_key_reduction *r)
{
    measure out = {0.0, 0.0, true};
    for (size_t s = 0; s < m->skin_count; s++)
        for (size_t c = 0; c < m->skins[s].data.clip_count; c++)
            compare_clip(&m->skins[s].data, &r->model.skins[s].data, c, &out);
    return out;
}

/* The player's products may round differently from the reduction's own
 * (cna_mat4_mul); this is far below any tolerance measured here. */
static double rounding(const cna_model *m)
{
    return 1e-6 * (double)m->size;
}

static void robot_at_a_thousandth_of_its_size_stays_within_the_tolerance(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    const size_t before = skin_keys(&m->skins[0].data);
    const cna_clip *clips_before = m->skins[0].data.clips;
    const double tol = 1e-3 * (double)m->size;
    cna_key_reduction *r = reduce(m, tol);
    assert_int_equal(before, 20726);
    assert_int_equal(r->keys_before, before);
    assert_int_equal(r->keys_after, skin_keys(&r->model.skins[0].data));
    assert_true(r->keys_after < before / 2);
    assert_true(r->max_error <= tol);
    assert_true(r->max_error > 0.5 * tol); /* it does use the tolerance */
    const measure e = compare_model(m, r);
    print_message("robot: size %g, tolerance %g: keys %zu -> %zu, reported error %g, measured "
                  "position %g, frame %g\n",
                  (double)m->size, tol, r->keys_before, r->keys_after, r->max_error, e.position, e.frame);
    assert_true(e.frame <= tol + rounding(m));
    assert_true(e.position <= e.frame);
    assert_false(e.identical);
    /* the input is untouched; the view borrows everything but the skins */
    assert_ptr_equal(m->skins[0].data.clips, clips_before);
    assert_int_equal(skin_keys(&m->skins[0].data), before);
    assert_ptr_not_equal(r->model.skins, m->skins);
    assert_ptr_equal(r->model.bones, m->bones);
    assert_ptr_equal(r->model.meshes, m->meshes);
    /* the 14 model skins of the robot share one clip set, and so do the reduced ones */
    assert_int_equal(m->skin_count, 14);
    for (size_t s = 1; s < m->skin_count; s++)
        assert_ptr_equal(r->model.skins[s].data.clips, r->model.skins[0].data.clips);
    cna_key_reduction_free(r);
    cna_model_free(m);
}

static void tolerance_zero_poses_robot_bit_for_bit(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    cna_key_reduction *r = reduce(m, 0.0);
    assert_true(r->keys_after < r->keys_before);
    assert_true(r->max_error == 0.0);
    const measure e = compare_model(m, r);
    assert_true(e.identical);
    assert_true(e.frame == 0.0);
    cna_key_reduction_free(r);
    cna_model_free(m);
}

static void fixture_at_tolerance_zero_drops_only_the_straight_ramp(void **state)
{
    (void)state;
    cna_model *m = load(FIXTURE);
    cna_key_reduction *r = reduce(m, 0.0);
    assert_int_equal(r->keys_before, 10);
    assert_int_equal(r->keys_after, 7);
    const cna_clip *c = &r->model.skins[0].data.clips[0];
    assert_string_equal(c->name, "Sway");
    assert_int_equal(c->track_count, 2);
    const cna_bone_track *root = c->tracks[0].bone == 0 ? &c->tracks[0] : &c->tracks[1];
    const cna_bone_track *mid = c->tracks[0].bone == 0 ? &c->tracks[1] : &c->tracks[0];
    assert_int_equal(root->key_count, 2);
    assert_int_equal(root->keys[0].ticks, 0);
    assert_int_equal(root->keys[1].ticks, 4 * CNA_TICKS_PER_SECOND);
    assert_true(root->keys[1].translation.x == 4.0f);
    assert_int_equal(mid->key_count, 5);
    const measure e = compare_model(m, r);
    assert_true(e.identical);
    cna_key_reduction_free(r);
    cna_model_free(m);
}

static void fixture_at_a_large_tolerance_keeps_first_and_last_keys(void **state)
{
    (void)state;
    cna_model *m = load(FIXTURE);
    cna_key_reduction *r = reduce(m, 100.0);
    assert_int_equal(r->keys_after, 4);
    const cna_clip *in = &m->skins[0].data.clips[0], *out = &r->model.skins[0].data.clips[0];
    for (size_t t = 0; t < out->track_count; t++) {
        assert_int_equal(out->tracks[t].key_count, 2);
        assert_memory_equal(&out->tracks[t].keys[0], &in->tracks[t].keys[0], sizeof(cna_keyframe));
        assert_memory_equal(&out->tracks[t].keys[1], &in->tracks[t].keys[in->tracks[t].key_count - 1],
                            sizeof(cna_keyframe));
    }
    const measure e = compare_model(m, r);
    assert_true(e.frame <= 100.0);
    assert_true(e.frame > 0.0);
    assert_true(r->max_error <= 100.0);
    cna_key_reduction_free(r);
    cna_model_free(m);
}

/* Mid's rotation 0, 40, 10, 50, 0 degrees: at 0.05 units some of its keys
 * go, and the measured error stays within the tolerance. */
static void fixture_at_a_small_tolerance_stays_within_it(void **state)
{
    (void)state;
    cna_model *m = load(FIXTURE);
    for (int i = 0; i < 4; i++) {
        const double tol = 0.02 * (double)(1 << i);
        cna_key_reduction *r = reduce(m, tol);
        const measure e = compare_model(m, r);
        assert_true(r->keys_after <= 7);
        assert_true(r->keys_after >= 4);
        assert_true(e.frame <= tol + rounding(m));
        assert_true(r->max_error <= tol);
        cna_key_reduction_free(r);
    }
    cna_model_free(m);
}

static void reduced_model_bakes_and_loads_back_with_its_keys(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    cna_key_reduction *r = reduce(m, 0.001);
    void *bytes = NULL;
    size_t size = 0;
    assert_int_equal(cna_cnb_write_memory(&r->model, NULL, &bytes, &size, NULL), CNA_OK);
    cna_model *baked = NULL;
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &baked, NULL), CNA_OK);
    cna_cnb_bytes_free(NULL, bytes);
    const cna_skinning_data *a = &r->model.skins[0].data, *b = &baked->skins[0].data;
    assert_int_equal(b->clip_count, a->clip_count);
    assert_int_equal(skin_keys(b), r->keys_after);
    for (size_t c = 0; c < a->clip_count; c++)
        for (size_t t = 0; t < a->clips[c].track_count; t++) {
            assert_int_equal(b->clips[c].tracks[t].key_count, a->clips[c].tracks[t].key_count);
            assert_memory_equal(b->clips[c].tracks[t].keys, a->clips[c].tracks[t].keys,
                                a->clips[c].tracks[t].key_count * sizeof(cna_keyframe));
        }
    cna_model_free(baked);
    cna_key_reduction_free(r);
    cna_model_free(m);
}

static void bad_options_are_refused_naming_the_value(void **state)
{
    (void)state;
    cna_model *m = load(FIXTURE);
    cna_key_reduction *sentinel = (cna_key_reduction *)&sentinel, *r = sentinel;
    cna_key_reduction_options o;
    cna_error err;
    memset(&o, 0, sizeof o);
    o.tolerance = -1.0;
    assert_int_equal(cna_model_reduce_keys(m, &o, &r, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "key reduction: tolerance -1 is not a finite number >= 0");
    o.tolerance = INFINITY;
    assert_int_equal(cna_model_reduce_keys(m, &o, &r, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "key reduction: tolerance inf is not a finite number >= 0");
    o.tolerance = NAN;
    assert_int_equal(cna_model_reduce_keys(m, &o, &r, &err), CNA_ERROR_INVALID_ARGUMENT);
    o.tolerance = 0.001;
    o.distance = -2.0;
    assert_int_equal(cna_model_reduce_keys(m, &o, &r, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "key reduction: distance -2 is not a finite number >= 0");
    assert_int_equal(cna_model_reduce_keys(NULL, &o, &r, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "key reduction: NULL model");
    assert_int_equal(cna_model_reduce_keys(m, &o, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "key reduction: NULL out");
    assert_ptr_equal(r, sentinel);
    /* NULL options: tolerance 0 */
    assert_int_equal(cna_model_reduce_keys(m, NULL, &r, &err), CNA_OK);
    assert_int_equal(r->keys_after, 7);
    assert_true(r->distance == CNA_KEY_REDUCTION_DEFAULT_DISTANCE);
    cna_key_reduction_free(r);
    cna_key_reduction_free(NULL);
    cna_model_free(m);
}

/* An allocator that fails its n-th allocation (counting from 0), and counts
 * what is still allocated. */
typedef struct failing {
    int fail_at, calls;
    long live;
} failing;

static void *failing_alloc(void *user, size_t size)
{
    failing *f = user;
    if (f->calls++ == f->fail_at) return NULL;
    f->live++;
    return malloc(size);
}

static void failing_free(void *user, void *p)
{
    failing *f = user;
    f->live--;
    free(p);
}

static void every_allocation_failure_is_reported_and_leaks_nothing(void **state)
{
    (void)state;
    cna_model *m = load(FIXTURE);
    for (int k = 0;; k++) {
        failing f = {k, 0, 0};
        cna_key_reduction_options o;
        memset(&o, 0, sizeof o);
        o.allocator.alloc = failing_alloc;
        o.allocator.free = failing_free;
        o.allocator.user_data = &f;
        o.tolerance = 0.05;
        cna_key_reduction *r = NULL;
        cna_error err;
        const cna_result rc = cna_model_reduce_keys(m, &o, &r, &err);
        if (rc == CNA_OK) {
            assert_true(k > 3);
            assert_int_equal(r->keys_before, 10);
            cna_key_reduction_free(r);
            assert_int_equal(f.live, 0);
            break;
        }
        assert_int_equal(rc, CNA_ERROR_OUT_OF_MEMORY);
        assert_string_equal(err.message, "key reduction: out of memory");
        assert_null(r);
        assert_int_equal(f.live, 0);
    }
    cna_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(robot_at_a_thousandth_of_its_size_stays_within_the_tolerance),
        cmocka_unit_test(tolerance_zero_poses_robot_bit_for_bit),
        cmocka_unit_test(fixture_at_tolerance_zero_drops_only_the_straight_ramp),
        cmocka_unit_test(fixture_at_a_large_tolerance_keeps_first_and_last_keys),
        cmocka_unit_test(fixture_at_a_small_tolerance_stays_within_it),
        cmocka_unit_test(reduced_model_bakes_and_loads_back_with_its_keys),
        cmocka_unit_test(bad_options_are_refused_naming_the_value),
        cmocka_unit_test(every_allocation_failure_is_reported_and_leaks_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
