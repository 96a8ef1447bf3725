/*
 * Sync groups of layers (cna_character_layer_set_sync_group): members
 * advance by one normalised phase whose duration is the weighted mean of
 * theirs, each to floor(φ·D_l); the leader is the member of largest weight;
 * a layer out of the group keeps its own clock; errors.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cna/cna.h"

#define ROBOT CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb"

static void ok(cna_result r, const cna_error *err)
{
    if (r != CNA_OK) print_error("%s\n", err->message);
    assert_int_equal(r, CNA_OK);
}

static long anim(const cna_model *m, const char *name)
{
    size_t a = 0;
    cna_error err;
    ok(cna_model_find_animation(m, name, &a, &err), &err);
    return (long)a;
}

/* Three layers: a walk and a punch (durations 0.958 and 0.833 s) in group 7
 * with weights that change every 50 frames, and a wave on its own. Every
 * frame each member is where the rule puts it, computed here from the
 * positions before the advance; the wave moves by its own ticks. */
static void test_members_share_one_phase(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = NULL;
    ok(cna_model_load_file(ROBOT, NULL, &m, &err), &err);
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = 3;
    cna_character *c = NULL;
    ok(cna_character_create(m, &o, &c, &err), &err);
    ok(cna_character_layer_play(c, 0, anim(m, "Robot_Walking"), &err), &err);
    ok(cna_character_layer_play(c, 1, anim(m, "Robot_Punch"), &err), &err);
    ok(cna_character_layer_play(c, 2, anim(m, "Robot_Wave"), &err), &err);
    ok(cna_character_layer_set_sync_group(c, 0, 7, &err), &err);
    ok(cna_character_layer_set_sync_group(c, 1, 7, &err), &err);
    assert_int_equal(cna_character_layer_sync_group(c, 1), 7);
    assert_int_equal(cna_character_layer_sync_group(c, 2), 0);
    const int64_t d0 = cna_character_layer_duration(c, 0), d1 = cna_character_layer_duration(c, 1);
    assert_true(d0 != d1);
    const int64_t n = cna_ticks_from_seconds(1.0 / 60);
    int wraps = 0;
    for (int f = 0; f < 6000; f++) {
        if (f % 50 == 0) {
            const float w = (float)((f / 50) % 11) / 10.0f; /* 0, 0.1 .. 1 */
            ok(cna_character_layer_set_weight(c, 0, 1.0f - w, &err), &err);
            ok(cna_character_layer_set_weight(c, 1, w, &err), &err);
        }
        const float w0 = cna_character_layer_weight(c, 0), w1 = cna_character_layer_weight(c, 1);
        const int64_t p0 = cna_character_layer_position(c, 0), p1 = cna_character_layer_position(c, 1);
        const int64_t p2 = cna_character_layer_position(c, 2), d2 = cna_character_layer_duration(c, 2);
        /* the rule: the leader (largest weight, the first on a tie) gives φ */
        const bool lead1 = w1 > w0;
        const double phi = lead1 ? (double)p1 / (double)d1 : (double)p0 / (double)d0;
        const double wsum = (double)w0 + (double)w1;
        const double D = wsum > 0.0 ? ((double)w0 * (double)d0 + (double)w1 * (double)d1) / wsum : (double)(lead1 ? d1 : d0);
        double p = phi + (double)n / D, k = floor(p);
        p -= k;
        if (p >= 1.0) {
            p = 0.0;
            k += 1.0;
        }
        wraps += (int)k;
        ok(cna_character_advance(c, 1.0 / 60, &err), &err);
        assert_int_equal(cna_character_layer_position(c, 0), (int64_t)floor(p * (double)d0));
        assert_int_equal(cna_character_layer_position(c, 1), (int64_t)floor(p * (double)d1));
        assert_int_equal(cna_character_layer_position(c, 2), (p2 + n) % d2);
    }
    assert_true(wraps > 100); /* 100 s of loops near 0.9 s */
    cna_character_free(c);
    cna_model_free(m);
}

/* Out of the group again, a layer keeps its own clock; errors. */
static void test_leaving_and_errors(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = NULL;
    ok(cna_model_load_file(ROBOT, NULL, &m, &err), &err);
    cna_character *c = NULL;
    ok(cna_character_create(m, NULL, &c, &err), &err);
    ok(cna_character_layer_play(c, 1, anim(m, "Robot_Punch"), &err), &err);
    ok(cna_character_layer_set_sync_group(c, 1, 3, &err), &err);
    ok(cna_character_layer_set_sync_group(c, 1, 0, &err), &err);
    const int64_t before = cna_character_layer_position(c, 1);
    ok(cna_character_advance(c, 0.1, &err), &err);
    assert_int_equal(cna_character_layer_position(c, 1), before + cna_ticks_from_seconds(0.1));
    assert_int_equal(cna_character_layer_set_sync_group(c, 2, 1, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "layer 2 is outside 0..1");
    assert_int_equal(cna_character_layer_set_sync_group(NULL, 0, 1, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_character_layer_sync_group(NULL, 0), 0);
    cna_character_free(c);
    cna_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_members_share_one_phase),
        cmocka_unit_test(test_leaving_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
