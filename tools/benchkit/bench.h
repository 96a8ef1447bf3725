/*
 * tools/benchkit/bench.h — timing helpers shared by the programs in bench/.
 *
 * Method (the same for every cna benchmark, so figures compare):
 *   - time is read from a monotonic clock (CLOCK_MONOTONIC), in seconds;
 *   - one "run" calls the measured function repeatedly until at least
 *     min_seconds (0.5 s by default) have passed, and yields the mean time
 *     of one call over that run;
 *   - a figure is the median of at least BENCH_MIN_RUNS (5) runs, reported
 *     with the fastest and the slowest run (min-max).
 * Timings never go into tests; they live in bench/ and docs/benchmarks.md.
 *
 * Usage:
 *   static void step(void *ctx) { work(ctx); }
 *   bench_stats s = bench_measure(step, &ctx, 5, 0.5);
 *   printf("%.3f us per call (%.3f-%.3f)\n", s.median * 1e6, s.min * 1e6, s.max * 1e6);
 *   double gbps = bench_rate(bytes, s.median) / 1e9;   // bytes per second
 */
#ifndef CNA_BENCH_COMMON_BENCH_H
#define CNA_BENCH_COMMON_BENCH_H

#include <stddef.h>

#define BENCH_MIN_RUNS 5
#define BENCH_DEFAULT_SECONDS 0.5

/* Seconds per call: the median run and the fastest and slowest runs. */
typedef struct bench_stats {
    double median;
    double min;
    double max;
    int runs;              /* runs measured */
    size_t calls_per_run;  /* calls in the last run */
} bench_stats;

/* Seconds from a monotonic clock (arbitrary origin). */
double bench_now(void);

/* One run: call fn(ctx) until at least min_seconds have passed (at least one
 * call); returns the mean seconds per call and stores the call count in
 * *calls (may be NULL). */
double bench_run(void (*fn)(void *ctx), void *ctx, double min_seconds, size_t *calls);

/* `runs` runs (raised to BENCH_MIN_RUNS if lower) of at least min_seconds
 * each (BENCH_DEFAULT_SECONDS if <= 0), after one untimed warm-up call. */
bench_stats bench_measure(void (*fn)(void *ctx), void *ctx, int runs, double min_seconds);

/* Median of n values (sorts them in place); 0 for n == 0. */
double bench_median(double *values, size_t n);

/* Units per second for `units` handled in `seconds` per call. */
double bench_rate(double units, double seconds);

/* Keep the compiler from discarding work whose result is only in memory. */
void bench_keep(const void *p);

/* Parse "--seconds S" and "--runs N" from argv into the given defaults;
 * returns 0, or -1 (after printing usage to stderr) on a bad argument. */
int bench_parse_args(int argc, char **argv, double *seconds, int *runs);

#endif
