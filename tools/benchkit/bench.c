/* Timing helpers shared by the benchmarks (tools/benchkit/bench.h). */
#include "benchkit/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_run(void (*fn)(void *ctx), void *ctx, double min_seconds, size_t *calls)
{
    size_t n = 0;
    const double start = bench_now();
    double elapsed;
    do {
        fn(ctx);
        n++;
        elapsed = bench_now() - start;
    } while (elapsed < min_seconds);
    if (calls) *calls = n;
    return elapsed / (double)n;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *values, size_t n)
{
    if (n == 0) return 0.0;
    qsort(values, n, sizeof *values, compare_double);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

bench_stats bench_measure(void (*fn)(void *ctx), void *ctx, int runs, double min_seconds)
{
    if (runs < BENCH_MIN_RUNS) runs = BENCH_MIN_RUNS;
    if (min_seconds <= 0.0) min_seconds = BENCH_DEFAULT_SECONDS;
    double *t = malloc((size_t)runs * sizeof *t);
    bench_stats s = {0.0, 0.0, 0.0, 0, 0};
    if (!t) return s;
    fn(ctx); /* warm caches and page tables */
    for (int r = 0; r < runs; r++) t[r] = bench_run(fn, ctx, min_seconds, &s.calls_per_run);
    s.median = bench_median(t, (size_t)runs);
    s.min = t[0];
    s.max = t[runs - 1];
    s.runs = runs;
    free(t);
    return s;
}

double bench_rate(double units, double seconds)
{
    return seconds > 0.0 ? units / seconds : 0.0;
}

void bench_keep(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    __asm__ volatile("" : : "g"(p) : "memory");
#else
    static const void *volatile sink;
    sink = p;
#endif
}

int bench_parse_args(int argc, char **argv, double *seconds, int *runs)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            *seconds = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            *runs = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--seconds S (per run, default %.1f)] [--runs N (>= %d)]\n",
                    argv[0], BENCH_DEFAULT_SECONDS, BENCH_MIN_RUNS);
            return -1;
        }
    }
    if (*runs < BENCH_MIN_RUNS) *runs = BENCH_MIN_RUNS;
    return 0;
}
