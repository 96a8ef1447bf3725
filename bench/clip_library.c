/*
 * Characters playing bound library clips against characters of a model whose
 * own file holds the same clips (include/cna/clips.h): the fox library's
 * "Run" on fox-fox.glb (bound by name; the same skeleton) against
 * fox-animations.glb itself, which carries the fox mesh and skin with the
 * clips. Characters are advanced by 1/60 s and posed per frame, the two
 * set-ups measured in interleaved runs of the same process; the ratio
 * bound / own is the figure (target: within 5 %). Also: the time to bind
 * the library (cna_model_bind_clips, the library already loaded).
 *
 * Usage: bench_clip_library [--seconds S] [--runs N] [--characters N] [--json]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "benchkit/bench.h"

#define FOX CNA_TEST_DATA_DIR "/libraries/Mesh2MotionFox/"

typedef struct ctx {
    cna_character **chars;
    size_t count;
    int failed;
} ctx;

static void frame(void *p)
{
    ctx *c = (ctx *)p;
    for (size_t i = 0; i < c->count; i++)
        if (cna_character_update(c->chars[i], 1.0 / 60, NULL)) c->failed = 1;
    bench_keep(cna_character_skin_transforms(c->chars[c->count - 1], 0));
}

typedef struct bind_ctx {
    const cna_model *model;
    const cna_clip_library *lib;
    int failed;
} bind_ctx;

static void bind_once(void *p)
{
    bind_ctx *b = (bind_ctx *)p;
    cna_model *out = NULL;
    if (cna_model_bind_clips(b->model, &b->lib, 1, NULL, &out, NULL)) b->failed = 1;
    cna_model_free(out);
}

static int make(ctx *c, const cna_model *m, size_t n)
{
    size_t run = 0;
    if (cna_model_find_animation(m, "Run", &run, NULL)) return -1;
    c->count = n;
    c->failed = 0;
    c->chars = (cna_character **)calloc(n, sizeof *c->chars);
    for (size_t i = 0; i < n; i++)
        if (!c->chars || cna_character_create(m, NULL, &c->chars[i], NULL) ||
            cna_character_play(c->chars[i], (long)run, NULL) ||
            cna_character_seek(c->chars[i], 0.4 * (double)i / (double)n, NULL))
            return -1;
    frame(c); /* warm-up */
    return 0;
}

int main(int argc, char **argv)
{
    double seconds = BENCH_DEFAULT_SECONDS;
    int runs = BENCH_MIN_RUNS, json = 0, rest = 1;
    size_t characters = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else if (strcmp(argv[i], "--characters") == 0 && i + 1 < argc) {
            characters = (size_t)strtoul(argv[++i], NULL, 10);
            if (characters == 0) characters = 1;
        } else argv[rest++] = argv[i];
    }
    if (bench_parse_args(rest, argv, &seconds, &runs)) return 2;
    cna_model *fox = NULL, *own = NULL, *bound = NULL;
    cna_clip_library *lib = NULL;
    cna_error err;
    if (cna_model_load_file(FOX "fox-fox.glb", NULL, &fox, &err) ||
        cna_model_load_file(FOX "fox-animations.glb", NULL, &own, &err) ||
        cna_clip_library_load_file(FOX "fox-animations.glb", NULL, &lib, &err) ||
        cna_model_bind_clips(fox, (const cna_clip_library *const *)&lib, 1, NULL, &bound, &err)) {
        fprintf(stderr, "bench_clip_library: %s\n", err.message);
        return 1;
    }
    ctx setups[2];
    if (make(&setups[0], own, characters) || make(&setups[1], bound, characters)) {
        fprintf(stderr, "bench_clip_library: set-up failed\n");
        return 1;
    }
    double *t[2] = {(double *)calloc((size_t)runs, sizeof(double)), (double *)calloc((size_t)runs, sizeof(double))};
    for (int r = 0; r < runs; r++)
        for (int s = 0; s < 2; s++) t[s][r] = bench_run(frame, &setups[s], seconds, NULL);
    bind_ctx bc = {fox, lib, 0};
    const bench_stats bind = bench_measure(bind_once, &bc, runs, seconds);
    const double k = 1e9 / (double)characters;
    const double own_ns = bench_median(t[0], (size_t)runs) * k, bound_ns = bench_median(t[1], (size_t)runs) * k;
    if (json)
        printf("{\"scope\":\"clip-library\",\"characters\":%zu,\"own_ns_per_character_frame\":%.3f,"
               "\"bound_ns_per_character_frame\":%.3f,\"bound_over_own\":%.4f,\"bind_ms\":%.4f,\"runs\":%d}\n",
               characters, own_ns, bound_ns, bound_ns / own_ns, bind.median * 1e3, runs);
    else
        printf("== bench_clip_library: fox \"Run\", 49 joints, %zu character(s), %d runs of >= %.2f s\n"
               "own clips     %9.1f ns per character-frame\n"
               "bound clips   %9.1f ns per character-frame\n"
               "ratio bound/own %.3f (target <= 1.05)\n"
               "bind (14 clips, library loaded) %.3f ms [%.3f-%.3f]\n",
               characters, runs, seconds, own_ns, bound_ns, bound_ns / own_ns, bind.median * 1e3, bind.min * 1e3,
               bind.max * 1e3);
    int failed = setups[0].failed | setups[1].failed | bc.failed;
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < setups[s].count; i++) cna_character_free(setups[s].chars[i]);
        free(setups[s].chars);
        free(t[s]);
    }
    cna_model_free(bound);
    cna_clip_library_free(lib);
    cna_model_free(own);
    cna_model_free(fox);
    return failed;
}
