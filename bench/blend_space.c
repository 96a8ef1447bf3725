/*
 * The cost of blend spaces (include/cna/blend_space.h): RobotExpressive
 * characters advanced by 1/60 s and posed per frame, 1 and 1000 characters
 * in the same run, in five set-ups measured in interleaved runs:
 *   one       Robot_Walking on layer 0 alone (the players' path)
 *   sample    layer 0 plays the 1D space below at walking's own point: one
 *             clip on the blending path
 *   1d        layer 0 plays a 1D space (Robot_Idle 0, Robot_Walking 1.5,
 *             Robot_Running 4 by speed), its speed moving between 2 and 3.5
 *             every frame: two clips blended, their clocks in step
 *   2d        layer 0 plays a 2D space (idle (0, 0), walking (0, 1), running
 *             (0, 2), Robot_Dance (-1, 0), Robot_Wave (1, 0)), its point
 *             moving inside the triangle idle, wave, walking every frame:
 *             three clips blended
 *   layers    walking and running on layers 0 and 1 at 0.5 / 0.5: the stack
 *             a 1D point between them equals
 * Each character sets its parameters (1d, 2d) before every update. Columns:
 * ns per character-frame (median of >= 5 runs [min-max],
 * tools/benchkit/bench.h); then the ratios 1d / one, 2d / one, 1d / layers
 * and sample / one, per character count.
 *
 * Usage: bench_blend_space [--seconds S] [--runs N] [--json]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "benchkit/bench.h"

enum { SETUPS = 5, COUNTS = 2 };
static const char *const SETUP_NAMES[SETUPS] = {"one", "sample", "1d", "2d", "layers"};
static const size_t COUNT_OF[COUNTS] = {1, 1000};

typedef struct ctx {
    cna_character **chars;
    size_t count;
    int setup;
    long frame;
    int failed;
} ctx;

static void frame(void *p)
{
    ctx *c = (ctx *)p;
    const double t = 0.05 * (double)c->frame++;
    for (size_t i = 0; i < c->count; i++) {
        const double u = t + 0.37 * (double)i;
        if (c->setup == 2 && cna_character_layer_set_blend_parameters(c->chars[i], 0, 2.75 + 0.75 * sin(u), 0.0, NULL))
            c->failed = 1;
        /* inside the triangle (0, 0), (1, 0), (0, 1): a = 0.1 .. 0.5, b = 0.1 .. 0.4 */
        if (c->setup == 3 && cna_character_layer_set_blend_parameters(c->chars[i], 0, 0.3 + 0.2 * sin(u),
                                                                      0.25 + 0.15 * cos(u), NULL))
            c->failed = 1;
        if (cna_character_update(c->chars[i], 1.0 / 60, NULL)) c->failed = 1;
    }
    bench_keep(cna_character_skin_transforms(c->chars[c->count - 1], 0));
}

static long anim(const cna_model *m, const char *name)
{
    size_t a = 0;
    return cna_model_find_animation(m, name, &a, NULL) == CNA_OK ? (long)a : -1;
}

static int setup(cna_character *c, const cna_model *m, int s, const cna_blend_space *line,
                 const cna_blend_space *plane, double phase)
{
    const long walk = anim(m, "Robot_Walking"), run = anim(m, "Robot_Running");
    int bad = 0;
#define B(x) bad |= ((x) != CNA_OK)
    switch (s) {
    case 0:
        B(cna_character_play(c, walk, NULL));
        break;
    case 1:
        B(cna_character_layer_play_blend_space(c, 0, line, 1.5, 0.0, NULL));
        break;
    case 2:
        B(cna_character_layer_play_blend_space(c, 0, line, 2.75, 0.0, NULL));
        break;
    case 3:
        B(cna_character_layer_play_blend_space(c, 0, plane, 0.3, 0.25, NULL));
        break;
    default:
        B(cna_character_play(c, walk, NULL));
        B(cna_character_layer_set_weight(c, 0, 0.5f, NULL));
        B(cna_character_layer_play(c, 1, run, NULL));
        B(cna_character_layer_set_weight(c, 1, 0.5f, NULL));
        break;
    }
    B(cna_character_seek(c, phase, NULL));
#undef B
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    double seconds = BENCH_DEFAULT_SECONDS;
    int runs = BENCH_MIN_RUNS;
    int json = 0;
    int rest = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else argv[rest++] = argv[i];
    }
    if (bench_parse_args(rest, argv, &seconds, &runs)) return 2;
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb", NULL, &m, &err)) {
        fprintf(stderr, "bench_blend_space: %s\n", err.message);
        return 1;
    }
    const long idle = anim(m, "Robot_Idle"), walk = anim(m, "Robot_Walking"), run = anim(m, "Robot_Running"),
               dance = anim(m, "Robot_Dance"), wave = anim(m, "Robot_Wave");
    const cna_blend_sample ls[3] = {{idle, 0.0, 0.0}, {walk, 1.5, 0.0}, {run, 4.0, 0.0}};
    const cna_blend_sample ps[5] = {{idle, 0.0, 0.0}, {walk, 0.0, 1.0}, {run, 0.0, 2.0}, {dance, -1.0, 0.0},
                                    {wave, 1.0, 0.0}};
    cna_blend_space *line = NULL, *plane = NULL;
    if (cna_blend_space_create(m, 1, ls, 3, &line, &err) || cna_blend_space_create(m, 2, ps, 5, &plane, &err)) {
        fprintf(stderr, "bench_blend_space: %s\n", err.message);
        return 1;
    }
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = 2;
    ctx setups[COUNTS][SETUPS];
    double *t[COUNTS][SETUPS];
    for (int n = 0; n < COUNTS; n++)
        for (int s = 0; s < SETUPS; s++) {
            ctx *x = &setups[n][s];
            x->count = COUNT_OF[n];
            x->setup = s;
            x->frame = 0;
            x->failed = 0;
            x->chars = (cna_character **)calloc(x->count, sizeof(cna_character *));
            t[n][s] = (double *)calloc((size_t)runs, sizeof(double));
            for (size_t i = 0; i < x->count; i++)
                if (!x->chars || !t[n][s] || cna_character_create(m, &o, &x->chars[i], &err) ||
                    setup(x->chars[i], m, s, line, plane, (double)i / (double)x->count)) {
                    fprintf(stderr, "bench_blend_space: set-up %s failed\n", SETUP_NAMES[s]);
                    return 1;
                }
            frame(x); /* warm-up */
        }
    for (int r = 0; r < runs; r++)
        for (int n = 0; n < COUNTS; n++)
            for (int s = 0; s < SETUPS; s++) t[n][s][r] = bench_run(frame, &setups[n][s], seconds, NULL);
    if (!json)
        printf("== bench_blend_space: RobotExpressive, %d runs of >= %.2f s per set-up and count\n", runs, seconds);
    int failed = 0;
    for (int n = 0; n < COUNTS; n++) {
        double med[SETUPS];
        const double k = 1e9 / (double)COUNT_OF[n];
        for (int s = 0; s < SETUPS; s++) {
            double lo = t[n][s][0], hi = t[n][s][0];
            for (int r = 1; r < runs; r++) {
                if (t[n][s][r] < lo) lo = t[n][s][r];
                if (t[n][s][r] > hi) hi = t[n][s][r];
            }
            med[s] = bench_median(t[n][s], (size_t)runs);
            failed |= setups[n][s].failed;
            if (json)
                printf("{\"scope\":\"blend-space\",\"setup\":\"%s\",\"characters\":%zu,\"ns_per_character_frame\":%.3f,"
                       "\"ns_per_character_frame_min\":%.3f,\"ns_per_character_frame_max\":%.3f,\"runs\":%d}\n",
                       SETUP_NAMES[s], COUNT_OF[n], med[s] * k, lo * k, hi * k, runs);
            else
                printf("%4zu character(s)  %-6s %9.1f ns/frame [%.1f-%.1f]%s\n", COUNT_OF[n], SETUP_NAMES[s],
                       med[s] * k, lo * k, hi * k, setups[n][s].failed ? "  (a pose failed)" : "");
        }
        if (json)
            printf("{\"scope\":\"blend-space-ratios\",\"characters\":%zu,\"1d_over_one\":%.4f,\"2d_over_one\":%.4f,"
                   "\"1d_over_layers\":%.4f,\"sample_over_one\":%.4f}\n",
                   COUNT_OF[n], med[2] / med[0], med[3] / med[0], med[2] / med[4], med[1] / med[0]);
        else
            printf("%4zu character(s)  ratios: 1d/one %.2f, 2d/one %.2f, 1d/layers %.2f, sample/one %.2f\n",
                   COUNT_OF[n], med[2] / med[0], med[3] / med[0], med[2] / med[4], med[1] / med[0]);
    }
    for (int n = 0; n < COUNTS; n++)
        for (int s = 0; s < SETUPS; s++) {
            for (size_t i = 0; i < setups[n][s].count; i++) cna_character_free(setups[n][s].chars[i]);
            free(setups[n][s].chars);
            free(t[n][s]);
        }
    cna_blend_space_free(line);
    cna_blend_space_free(plane);
    cna_model_free(m);
    return failed ? 1 : 0;
}
