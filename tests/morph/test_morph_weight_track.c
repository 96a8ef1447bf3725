/*
 * Weight tracks (spec: "Animated weights", EvaluateMorphWeightsEXT): one test
 * per rule, exact values.
 */
#include "morph/morph_fixture.h"

static cna_morph_weight_track make_track(const float *times, size_t keys, size_t targets,
                                         const float *values, cna_morph_interpolation interp)
{
    cna_morph_weight_track t;
    memset(&t, 0, sizeof t);
    t.times = times;
    t.key_count = keys;
    t.target_count = targets;
    t.values = values;
    t.interpolation = interp;
    return t;
}

/* Evaluate, expecting success and `targets` weights. */
static void eval(const cna_morph_weight_track *track, double seconds, float *out, size_t targets)
{
    size_t count = 12345;
    cna_error err;
    cna_result r = cna_morph_evaluate_weights(track, seconds, out, 8, &count, &err);
    if (r != CNA_OK) fail_msg("evaluate failed: %s", err.message);
    assert_int_equal(count, targets);
}

static void an_empty_track_gives_no_weights(void **state)
{
    (void)state;
    cna_morph_weight_track t = make_track(NULL, 0, 2, NULL, CNA_MORPH_INTERPOLATION_LINEAR);
    float out[2] = {7.0f, 7.0f};
    size_t count = 99;
    assert_int_equal(cna_morph_evaluate_weights(&t, 1.0, out, 2, &count, NULL), CNA_OK);
    assert_int_equal(count, 0);
    assert_float_exact(out[0], 7.0f);
    /* no output array is needed for an empty track */
    assert_int_equal(cna_morph_evaluate_weights(&t, 1.0, NULL, 0, &count, NULL), CNA_OK);
    assert_int_equal(count, 0);
}

static void a_one_key_track_gives_its_weights_at_any_time(void **state)
{
    (void)state;
    const float times[1] = {0.5f}, values[2] = {0.25f, -1.0f};
    for (int i = 0; i < CNA_MORPH_INTERPOLATION_COUNT; i++) {
        cna_morph_weight_track t = make_track(times, 1, 2, values, (cna_morph_interpolation)i);
        const double at[4] = {-10.0, 0.5, 0.75, 1e9};
        for (int k = 0; k < 4; k++) {
            float out[8];
            eval(&t, at[k], out, 2);
            assert_float_exact(out[0], 0.25f);
            assert_float_exact(out[1], -1.0f);
        }
    }
}

static const float times2[2] = {1.0f, 3.0f};
static const float values2[4] = {0.0f, 1.0f, /* key 1: */ 1.0f, -1.0f};

static void before_the_first_key_the_first_weights_hold(void **state)
{
    (void)state;
    cna_morph_weight_track t = make_track(times2, 2, 2, values2, CNA_MORPH_INTERPOLATION_LINEAR);
    float out[8];
    eval(&t, 0.25, out, 2);
    assert_float_exact(out[0], 0.0f);
    assert_float_exact(out[1], 1.0f);
    eval(&t, -INFINITY, out, 2);
    assert_float_exact(out[1], 1.0f);
}

static void after_the_last_key_the_last_weights_hold(void **state)
{
    (void)state;
    cna_morph_weight_track t = make_track(times2, 2, 2, values2, CNA_MORPH_INTERPOLATION_LINEAR);
    float out[8];
    eval(&t, 3.0, out, 2);
    assert_float_exact(out[0], 1.0f);
    assert_float_exact(out[1], -1.0f);
    eval(&t, 100.0, out, 2);
    assert_float_exact(out[0], 1.0f);
    eval(&t, INFINITY, out, 2);
    assert_float_exact(out[1], -1.0f);
}

static void linear_interpolates_between_keys(void **state)
{
    (void)state;
    cna_morph_weight_track t = make_track(times2, 2, 2, values2, CNA_MORPH_INTERPOLATION_LINEAR);
    float out[8];
    eval(&t, 2.0, out, 2); /* midpoint */
    assert_float_exact(out[0], 0.5f);
    assert_float_exact(out[1], 0.0f);
    eval(&t, 1.5, out, 2); /* s = 0.25 */
    assert_float_exact(out[0], 0.25f);
    assert_float_exact(out[1], 0.5f);
    eval(&t, 1.0, out, 2); /* on the first key */
    assert_float_exact(out[0], 0.0f);
    assert_float_exact(out[1], 1.0f);
}

/* The spec's three-key STEP example: 0, 10, 20 (not 0, 0, 20). */
static void step_is_half_open_the_next_value_holds_at_its_key(void **state)
{
    (void)state;
    const float times[3] = {0.0f, 1.0f, 2.0f}, values[3] = {0.0f, 10.0f, 20.0f};
    cna_morph_weight_track t = make_track(times, 3, 1, values, CNA_MORPH_INTERPOLATION_STEP);
    float out[8];
    eval(&t, 1.0, out, 1);
    assert_float_exact(out[0], 10.0f);
    eval(&t, nextafter(1.0, 0.0), out, 1);
    assert_float_exact(out[0], 0.0f);
    eval(&t, 1.9999, out, 1);
    assert_float_exact(out[0], 10.0f);
    eval(&t, 2.0, out, 1);
    assert_float_exact(out[0], 20.0f);
    eval(&t, 0.0, out, 1);
    assert_float_exact(out[0], 0.0f);
}

/* Keys at 0 s and 2 s (dt = 2), evaluated at 1 s (s = 1/2):
 *   h00 = 2/8 - 3/4 + 1 = 1/2     h10 = 1/8 - 2/4 + 1/2 = 1/8
 *   h01 = -2/8 + 3/4 = 1/2        h11 = 1/8 - 1/4 = -1/8
 * target 0: v0 = 0, b0 = 0.5, v1 = 1, a1 = -1:
 *   0/2 + (1/8)(2)(0.5) + (1)/2 + (-1/8)(2)(-1) = 0.125 + 0.5 + 0.25 = 0.875
 * target 1: v0 = 2, b0 = -4, v1 = 0, a1 = 4:
 *   1 + (1/8)(2)(-4) + 0 + (-1/8)(2)(4) = 1 - 1 - 1 = -1
 * The in-tangent of key 0 and the out-tangent of key 1 are 100 so that using
 * the wrong tangent of a key shows. */
static void cubic_keys_with_tangents_follow_the_hermite_curve(void **state)
{
    (void)state;
    const float times[2] = {0.0f, 2.0f};
    const float values[4] = {0.0f, 2.0f, 1.0f, 0.0f};
    const float in_t[4] = {100.0f, 100.0f, -1.0f, 4.0f};
    const float out_t[4] = {0.5f, -4.0f, 100.0f, 100.0f};
    cna_morph_weight_track t =
        make_track(times, 2, 2, values, CNA_MORPH_INTERPOLATION_CUBICSPLINE);
    t.in_tangents = in_t;
    t.out_tangents = out_t;
    float out[8];
    eval(&t, 1.0, out, 2);
    assert_float_exact(out[0], 0.875f);
    assert_float_exact(out[1], -1.0f);
    /* s = 1/4 (0.5 s): h00 = 27/32, h10 = 9/64, h01 = 5/32, h11 = -3/64;
     * target 0: (9/64)(2)(0.5) + 5/32 + (-3/64)(2)(-1) = 9/64 + 10/64 + 6/64 = 25/64 */
    eval(&t, 0.5, out, 2);
    assert_float_exact(out[0], 25.0f / 64.0f);
    /* exact at the keys, clamped outside */
    eval(&t, 0.0, out, 2);
    assert_float_exact(out[0], 0.0f);
    eval(&t, 2.0, out, 2);
    assert_float_exact(out[0], 1.0f);
    eval(&t, 5.0, out, 2);
    assert_float_exact(out[1], 0.0f);
}

static void cubic_keys_without_tangents_fall_back_to_linear(void **state)
{
    (void)state;
    cna_morph_weight_track t =
        make_track(times2, 2, 2, values2, CNA_MORPH_INTERPOLATION_CUBICSPLINE);
    float out[8];
    eval(&t, 2.0, out, 2);
    assert_float_exact(out[0], 0.5f);
    assert_float_exact(out[1], 0.0f);
    eval(&t, 1.5, out, 2);
    assert_float_exact(out[0], 0.25f);
}

static void evaluation_refuses_bad_arguments_and_writes_nothing(void **state)
{
    (void)state;
    cna_morph_weight_track t = make_track(times2, 2, 2, values2, CNA_MORPH_INTERPOLATION_LINEAR);
    float out[2] = {7.0f, 7.0f};
    size_t count = 99;
    cna_error err;
    assert_int_equal(cna_morph_evaluate_weights(&t, 2.0, out, 1, &count, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "out: room for 1 weights; the track has 2 targets");
    assert_int_equal(cna_morph_evaluate_weights(&t, NAN, out, 2, &count, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "seconds: nan");
    assert_int_equal(cna_morph_evaluate_weights(NULL, 1.0, out, 2, &count, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "weight track: NULL track");
    assert_int_equal(cna_morph_evaluate_weights(&t, 1.0, out, 2, NULL, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    t.interpolation = CNA_MORPH_INTERPOLATION_COUNT;
    assert_int_equal(cna_morph_evaluate_weights(&t, 1.0, out, 2, &count, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "interpolation: 3 is not a cna_morph_interpolation");
    assert_int_equal(count, 99);
    assert_float_exact(out[0], 7.0f);
    assert_float_exact(out[1], 7.0f);
}

/* Evaluation runs only O(1) checks, but a bracket whose times are not finite
 * and increasing is refused rather than divided by. */
static void a_bracket_of_non_finite_times_is_refused_at_evaluation(void **state)
{
    (void)state;
    const float times[3] = {0.0f, NAN, 2.0f};
    const float values[3] = {0.0f, 1.0f, 2.0f};
    cna_morph_weight_track t = make_track(times, 3, 1, values, CNA_MORPH_INTERPOLATION_LINEAR);
    float out[1] = {7.0f};
    size_t count = 5;
    cna_error err;
    assert_int_equal(cna_morph_evaluate_weights(&t, 1.0, out, 1, &count, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "times[1]: nan after times[0] = 0; times must be finite and strictly increasing");
    const float inf_times[3] = {0.0f, 1.0f, INFINITY};
    t.times = inf_times;
    assert_int_equal(cna_morph_evaluate_weights(&t, 1.5, out, 1, &count, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "times[2]: inf after times[1] = 1; times must be finite and strictly increasing");
    assert_int_equal(count, 5);
    assert_float_exact(out[0], 7.0f);
}

static void validation_names_the_broken_rule(void **state)
{
    (void)state;
    cna_error err;
    const float values[4] = {0.0f, NAN, 1.0f, 1.0f};
    cna_morph_weight_track t = make_track(times2, 2, 2, values, CNA_MORPH_INTERPOLATION_LINEAR);
    assert_int_equal(cna_morph_weight_track_validate(&t, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "values[1] (key 0, target 1): nan is not finite");

    t = make_track(times2, 2, 2, values2, CNA_MORPH_INTERPOLATION_CUBICSPLINE);
    t.in_tangents = values2;
    assert_int_equal(cna_morph_weight_track_validate(&t, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "in_tangents: given without out_tangents");

    t.interpolation = CNA_MORPH_INTERPOLATION_STEP;
    t.out_tangents = values2;
    assert_int_equal(cna_morph_weight_track_validate(&t, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "in_tangents: given for a STEP track (only CUBICSPLINE uses tangents)");

    const float inf_times[2] = {0.0f, INFINITY};
    t = make_track(inf_times, 2, 2, values2, CNA_MORPH_INTERPOLATION_LINEAR);
    assert_int_equal(cna_morph_weight_track_validate(&t, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "times[1]: inf is not finite");

    t = make_track(NULL, 2, 2, values2, CNA_MORPH_INTERPOLATION_LINEAR);
    assert_int_equal(cna_morph_weight_track_validate(&t, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "times: NULL with key_count 2");

    t = make_track(times2, 2, SIZE_MAX, values2, CNA_MORPH_INTERPOLATION_LINEAR);
    assert_int_equal(cna_morph_weight_track_validate(&t, &err), CNA_ERROR_INVALID_ARGUMENT);

    t = make_track(times2, 2, 2, values2, CNA_MORPH_INTERPOLATION_LINEAR);
    assert_int_equal(cna_morph_weight_track_validate(&t, NULL), CNA_OK);
}

/* Equal consecutive times are a jump: the later key applies from that time
 * on, the earlier one is approached from before (and at equal first times
 * the later key holds from the first time on). Decreasing times are refused. */
static void equal_times_are_a_jump_to_the_later_key(void **state)
{
    (void)state;
    const float times[5] = {1.0f, 1.0f, 2.0f, 2.0f, 3.0f};
    const float values[5] = {4.0f, 6.0f, 8.0f, 16.0f, 20.0f};
    for (int i = 0; i < 2; i++) {
        cna_morph_interpolation interp = i ? CNA_MORPH_INTERPOLATION_STEP : CNA_MORPH_INTERPOLATION_LINEAR;
        cna_morph_weight_track t = make_track(times, 5, 1, values, interp);
        assert_int_equal(cna_morph_weight_track_validate(&t, NULL), CNA_OK);
        static const double at[] = {0.5, 1.0, 1.5, 1.75, 2.0, 2.5, 3.0};
        const float linear[] = {4.0f, 6.0f, 7.0f, 7.5f, 16.0f, 18.0f, 20.0f};
        const float step[] = {4.0f, 6.0f, 6.0f, 6.0f, 16.0f, 16.0f, 20.0f};
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
            float out[8];
            eval(&t, at[k], out, 1);
            assert_float_exact(out[0], i ? step[k] : linear[k]);
        }
    }
    const float back[3] = {0.0f, 1.0f, 0.5f};
    cna_morph_weight_track t = make_track(back, 3, 1, values, CNA_MORPH_INTERPOLATION_LINEAR);
    cna_error err;
    assert_int_equal(cna_morph_weight_track_validate(&t, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "times[2]: 0.5 does not increase after times[1] = 1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_empty_track_gives_no_weights),
        cmocka_unit_test(a_one_key_track_gives_its_weights_at_any_time),
        cmocka_unit_test(before_the_first_key_the_first_weights_hold),
        cmocka_unit_test(after_the_last_key_the_last_weights_hold),
        cmocka_unit_test(linear_interpolates_between_keys),
        cmocka_unit_test(step_is_half_open_the_next_value_holds_at_its_key),
        cmocka_unit_test(cubic_keys_with_tangents_follow_the_hermite_curve),
        cmocka_unit_test(cubic_keys_without_tangents_fall_back_to_linear),
        cmocka_unit_test(evaluation_refuses_bad_arguments_and_writes_nothing),
        cmocka_unit_test(a_bracket_of_non_finite_times_is_refused_at_evaluation),
        cmocka_unit_test(validation_names_the_broken_rule),
        cmocka_unit_test(equal_times_are_a_jump_to_the_later_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
