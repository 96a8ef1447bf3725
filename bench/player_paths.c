/*
 * The player's kernel paths side by side (src/anim/player_kernel.h: BASE,
 * the kernels compiled for the baseline; AVX, the same kernels compiled for
 * AVX2 + FMA):
 * RobotExpressive's Robot_Walking on 1 and 1000 players, each advanced
 * 1/60 s per frame, the paths in interleaved runs of one process, so that
 * a wider path is kept only where it pays on the machine at hand (an
 * AVX-512F path, four columns per instruction, measured 0.97-1.02x the AVX
 * one here and was removed: docs/benchmarks.md). Every
 * path gives the same bits (tests/anim/test_player_paths.c). Paths the CPU
 * lacks are left out.
 *
 * Usage: bench_player_paths [--seconds S] [--runs N]
 */
#include <stdio.h>
#include <stdlib.h>

#include "anim/anim_internal.h"
#include "cna/cna.h"
#include "benchkit/bench.h"

typedef struct ctx {
    cna_player **players;
    size_t count;
    int failed;
} ctx;

static void frame(void *p)
{
    ctx *c = (ctx *)p;
    for (size_t i = 0; i < c->count; i++)
        if (cna_player_update(c->players[i], cna_ticks_from_seconds(1.0 / 60), true, true, NULL)) c->failed = 1;
    bench_keep(cna_player_skin_transforms(c->players[c->count - 1]));
}

int main(int argc, char **argv)
{
    double seconds = BENCH_DEFAULT_SECONDS;
    int runs = BENCH_MIN_RUNS;
    if (bench_parse_args(argc, argv, &seconds, &runs)) return 2;
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb", NULL, &m, &err)) {
        fprintf(stderr, "bench_player_paths: %s\n", err.message);
        return 1;
    }
    const cna_skinning_data *d = &m->skins[0].data;
    const cna_clip *walk = cna_skinning_data_find_clip(d, "Robot_Walking");
    static const char *const names[CNA__PLAYER_PATH_COUNT] = {"base", "avx"};
    const size_t counts[2] = {1, 1000};
    printf("== bench_player_paths: RobotExpressive Robot_Walking, %d joints, %d runs of >= %.2f s; default path %s\n",
           d->bone_count, runs, seconds, names[cna__player_default_path()]);
    int failed = 0;
    for (int k = 0; k < 2; k++) {
        ctx c[CNA__PLAYER_PATH_COUNT];
        double *t[CNA__PLAYER_PATH_COUNT];
        for (int p = 0; p < CNA__PLAYER_PATH_COUNT; p++) {
            c[p].count = counts[k];
            c[p].failed = 0;
            c[p].players = (cna_player **)calloc(counts[k], sizeof(cna_player *));
            t[p] = (double *)calloc((size_t)runs, sizeof(double));
            if (!cna__player_path_supported(p)) continue;
            for (size_t i = 0; i < counts[k]; i++) {
                if (cna_player_create(d, NULL, &c[p].players[i], &err) ||
                    cna_player_start_clip(c[p].players[i], walk, &err) ||
                    cna_player_update(c[p].players[i], (int64_t)((double)walk->duration * (double)i / (double)counts[k]),
                                      false, true, &err) ||
                    !cna__player_set_path(c[p].players[i], p)) {
                    fprintf(stderr, "bench_player_paths: %s\n", err.message);
                    return 1;
                }
            }
            frame(&c[p]);
        }
        for (int r = 0; r < runs; r++)
            for (int p = 0; p < CNA__PLAYER_PATH_COUNT; p++)
                if (cna__player_path_supported(p)) t[p][r] = bench_run(frame, &c[p], seconds, NULL);
        double base = 0;
        for (int p = 0; p < CNA__PLAYER_PATH_COUNT; p++) {
            if (!cna__player_path_supported(p)) {
                printf("%5zu players  %-7s not supported by this CPU or build\n", counts[k], names[p]);
                continue;
            }
            const double med = bench_median(t[p], (size_t)runs) * 1e9 / (double)counts[k];
            if (p == 0) base = med;
            printf("%5zu players  %-7s %8.1f ns/frame  %6.2f ns/joint  %.3f x base\n", counts[k], names[p], med,
                   med / d->bone_count, base > 0 ? med / base : 0.0);
            failed |= c[p].failed;
            for (size_t i = 0; i < counts[k]; i++) cna_player_free(c[p].players[i]);
            free(c[p].players);
            free(t[p]);
        }
    }
    cna_model_free(m);
    return failed;
}
