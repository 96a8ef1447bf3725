/*
 * Seconds <-> ticks (100 ns): nearest-tick rounding of the exact product,
 * halves away from zero, saturation, NaN.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <math.h>

#include <cmocka.h>

#include "cna/anim.h"

static void assert_ticks(double seconds, int64_t expected)
{
    const int64_t got = cna_ticks_from_seconds(seconds);
    if (got != expected) {
        print_error("cna_ticks_from_seconds(%.17g) = %lld, expected %lld\n", seconds, (long long)got,
                    (long long)expected);
        fail();
    }
}

static void test_whole_and_fractional_seconds_convert_exactly(void **state)
{
    (void)state;
    assert_ticks(0.0, 0);
    assert_ticks(-0.0, 0);
    assert_ticks(1.0, 10000000);
    assert_ticks(0.5, 5000000);
    assert_ticks(-2.25, -22500000);
    assert_ticks(0.1, 1000000);
    assert_ticks(1e-7, 1);
    assert_ticks(-1e-7, -1);
}

static void test_seconds_round_to_the_nearest_tick(void **state)
{
    (void)state;
    assert_ticks(1.0 / 60.0, 166667);   /* 166666.67 */
    assert_ticks(-1.0 / 60.0, -166667);
    assert_ticks(1.0 / 30.0, 333333);   /* 333333.33 */
    assert_ticks(0.4e-7, 0);
    assert_ticks(0.6e-7, 1);
    assert_ticks(-0.6e-7, -1);
}

static void test_exact_half_ticks_round_away_from_zero(void **state)
{
    (void)state;
    /* 1/256 s = 39062.5 ticks exactly (1/256 and 10^7/256 are exact doubles) */
    assert_ticks(1.0 / 256.0, 39063);
    assert_ticks(-1.0 / 256.0, -39063);
    assert_ticks(3.0 / 256.0, 117188);  /* 117187.5 */
    assert_ticks(-3.0 / 256.0, -117188);
}

static void test_rounding_uses_the_exact_product_not_the_rounded_double(void **state)
{
    (void)state;
    /* 922337203685 · 10^7 = 9223372036850000000 is not a double; the exact product is an integer */
    assert_ticks(922337203685.0, INT64_C(9223372036850000000));
    assert_ticks(-922337203685.0, -INT64_C(9223372036850000000));
    /* The double nearest 1.5e-7 is slightly below it: its product with 10^7
     * rounds to the double 1.5, but the exact value is 1.4999999999999999321 ticks. */
    assert_ticks(1.5e-7, 1);
    assert_ticks(-1.5e-7, -1);
    assert_ticks(2.5e-7, 2);
    assert_ticks(5.5e-7, 6); /* slightly above 5.5 */
    assert_ticks(0x1.e32f0ee144532p-22, 5); /* 4.5000000000000003e-07: above 4.5 */
}

static void test_out_of_range_seconds_saturate(void **state)
{
    (void)state;
    assert_ticks(1e300, INT64_MAX);
    assert_ticks(-1e300, INT64_MIN);
    assert_ticks(INFINITY, INT64_MAX);
    assert_ticks(-INFINITY, INT64_MIN);
    assert_ticks(922337203686.0, INT64_MAX); /* just above 2^63 ticks */
    assert_ticks(-922337203686.0, INT64_MIN);
    assert_ticks(ldexp(1.0, 63) / 1e7, INT64_MAX);
}

static void test_nan_seconds_map_to_zero_ticks(void **state)
{
    (void)state;
    assert_ticks(NAN, 0);
    assert_ticks(-NAN, 0);
}

static void test_ticks_to_seconds_divides_by_ten_million(void **state)
{
    (void)state;
    assert_true(cna_ticks_to_seconds(0) == 0.0);
    assert_true(cna_ticks_to_seconds(5000000) == 0.5);
    assert_true(cna_ticks_to_seconds(-25000000) == -2.5);
    assert_true(cna_ticks_to_seconds(166667) == 166667.0 / 1e7);
    assert_true(cna_ticks_from_seconds(cna_ticks_to_seconds(123456789)) == 123456789);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_and_fractional_seconds_convert_exactly),
        cmocka_unit_test(test_seconds_round_to_the_nearest_tick),
        cmocka_unit_test(test_exact_half_ticks_round_away_from_zero),
        cmocka_unit_test(test_rounding_uses_the_exact_product_not_the_rounded_double),
        cmocka_unit_test(test_out_of_range_seconds_saturate),
        cmocka_unit_test(test_nan_seconds_map_to_zero_ticks),
        cmocka_unit_test(test_ticks_to_seconds_divides_by_ten_million),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
