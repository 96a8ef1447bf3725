/*
 * The cost of blending layers on a character (include/cna/character.h,
 * "layers"): RobotExpressive characters advanced by 1/60 s and posed per
 * frame in five set-ups, measured in interleaved runs of the same process:
 *   one       Robot_Walking on layer 0 alone (the players' path)
 *   two       Robot_Walking and Robot_Running at weights 0.5 / 0.5
 *   four      walk 0.6, run 0.4, a wave masked to the right arm (subtree of
 *             "Shoulder.R", weight 1) and an idle masked to the upper body
 *             (subtree of "Torso", 0.5)
 *   override  walk 1 and Robot_Yes as a second override layer at 0.5
 *   additive  walk 1 and Robot_Yes as an additive layer at 0.5 (reference:
 *             its own first frame)
 *   snapshot  an interrupted transition: a crossfade from walk to run
 *             interrupted by one back to walk, so that walk plays at weight
 *             1 with the frozen snapshot mixed in (both fades a million
 *             seconds long, so that every measured frame is mid-transition)
 * Columns: ns per character-frame and per joint (the skin's joints; median
 * of >= 5 runs [min-max], tools/benchkit/bench.h), and the ratios the blend
 * targets are stated in: two / one (target <= 2.2), four / one (<= 4.5),
 * additive / override (<= 1.3), snapshot / two (an interrupted transition
 * against a plain two-layer crossfade, <= 1.2).
 *
 * Usage: bench_blend [--seconds S] [--runs N] [--characters N] [--json]
 *   --characters  characters posed per frame (default 1; each starts at its
 *                 own phase)
 *   --json        one JSON object per set-up ("scope":"blend") and one for
 *                 the ratios ("scope":"blend-ratios")
 *   --fast        every character with CNA_SAMPLING_FAST (cna/player.h)
 *   --only NAME   measure one set-up (for a profiler or callgrind)
 *   --frames N    with --only: pose exactly N frames, untimed, and print
 *                 nothing else (callgrind: instructions per frame)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "benchkit/bench.h"

enum { SETUPS = 6 };
static const char *const SETUP_NAMES[SETUPS] = {"one", "two", "four", "override", "additive", "snapshot"};

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

static long anim(const cna_model *m, const char *name)
{
    size_t a = 0;
    return cna_model_find_animation(m, name, &a, NULL) == CNA_OK ? (long)a : -1;
}

/* Set up character `c` for set-up `s`; 0 on success. */
static int setup(cna_character *c, const cna_model *m, int s, const float *arm, const float *upper, double phase)
{
    const long walk = anim(m, "Robot_Walking"), run = anim(m, "Robot_Running"), wave = anim(m, "Robot_Wave"),
               idle = anim(m, "Robot_Idle"), yes = anim(m, "Robot_Yes");
    if (walk < 0 || run < 0 || wave < 0 || idle < 0 || yes < 0) return -1;
    int bad = cna_character_play(c, walk, NULL) != CNA_OK;
#define B(x) bad |= ((x) != CNA_OK)
    bad |= cna_character_seek(c, phase, NULL) != CNA_OK;
    switch (s) {
    case 1:
        B(cna_character_layer_set_weight(c, 0, 0.5f, NULL));
        B(cna_character_layer_play(c, 1, run, NULL));
        B(cna_character_layer_set_weight(c, 1, 0.5f, NULL));
        break;
    case 2:
        B(cna_character_layer_set_weight(c, 0, 0.6f, NULL));
        B(cna_character_layer_play(c, 1, run, NULL));
        B(cna_character_layer_set_weight(c, 1, 0.4f, NULL));
        B(cna_character_layer_play(c, 2, wave, NULL));
        B(cna_character_layer_set_weight(c, 2, 1.0f, NULL));
        B(cna_character_layer_set_mask(c, 2, arm, m->bone_count, NULL));
        B(cna_character_layer_play(c, 3, idle, NULL));
        B(cna_character_layer_set_weight(c, 3, 0.5f, NULL));
        B(cna_character_layer_set_mask(c, 3, upper, m->bone_count, NULL));
        break;
    case 3:
    case 4:
        B(cna_character_layer_play(c, 1, yes, NULL));
        B(cna_character_layer_set_weight(c, 1, 0.5f, NULL));
        if (s == 4) B(cna_character_layer_set_blend_mode(c, 1, CNA_BLEND_MODE_ADDITIVE, NULL));
        break;
    case 5:
        B(cna_character_crossfade(c, 0, 1, run, 1e6, 0, NULL));
        B(cna_character_crossfade(c, 1, 0, walk, 1e6, 0, NULL));
        bad |= !(cna_character_transition_weight(c) == 1.0f);
        break;
    default:
        break;
    }
#undef B
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    double seconds = BENCH_DEFAULT_SECONDS;
    int runs = BENCH_MIN_RUNS;
    size_t characters = 1;
    int json = 0, fast = 0;
    int rest = 1;
    const char *only = NULL;
    long frames = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--fast") == 0) {
            fast = 1;
        } else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            frames = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--characters") == 0 && i + 1 < argc) {
            characters = (size_t)strtoul(argv[++i], NULL, 10);
            if (characters == 0) characters = 1;
        } else {
            argv[rest++] = argv[i];
        }
    }
    if (bench_parse_args(rest, argv, &seconds, &runs)) return 2;
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb", NULL, &m, &err)) {
        fprintf(stderr, "bench_blend: %s\n", err.message);
        return 1;
    }
    float *arm = (float *)calloc(m->bone_count, sizeof(float));
    float *upper = (float *)calloc(m->bone_count, sizeof(float));
    if (!arm || !upper || cna_model_mask_subtree(m, "Shoulder.R", 1.0f, arm, m->bone_count, NULL) ||
        cna_model_mask_subtree(m, "Torso", 1.0f, upper, m->bone_count, NULL)) {
        fprintf(stderr, "bench_blend: masks\n");
        return 1;
    }
    ctx setups[SETUPS];
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = 4;
    o.sampling = fast ? CNA_SAMPLING_FAST : CNA_SAMPLING_EXACT;
    for (int s = 0; s < SETUPS; s++) {
        setups[s].count = characters;
        setups[s].failed = 0;
        setups[s].chars = (cna_character **)calloc(characters, sizeof(cna_character *));
        for (size_t i = 0; i < characters; i++)
            if (!setups[s].chars || cna_character_create(m, &o, &setups[s].chars[i], &err) ||
                setup(setups[s].chars[i], m, s, arm, upper, (double)i / (double)characters)) {
                fprintf(stderr, "bench_blend: set-up %s failed\n", SETUP_NAMES[s]);
                return 1;
            }
        frame(&setups[s]); /* warm-up */
    }
    if (only && frames > 0) {
        for (int s = 0; s < SETUPS; s++)
            if (strcmp(only, SETUP_NAMES[s]) == 0)
                for (long f = 0; f < frames; f++) frame(&setups[s]);
        return 0;
    }
    double *t[SETUPS];
    for (int s = 0; s < SETUPS; s++) t[s] = (double *)calloc((size_t)runs, sizeof(double));
    for (int r = 0; r < runs; r++)
        for (int s = 0; s < SETUPS; s++)
            if (!only || strcmp(only, SETUP_NAMES[s]) == 0) t[s][r] = bench_run(frame, &setups[s], seconds, NULL);
    const double joints = (double)m->skins[0].joint_count;
    double med[SETUPS];
    printf(json ? "" : "== bench_blend: RobotExpressive, %zu character(s), %.0f joints, %d runs of >= %.2f s, %s sampling\n",
           characters, joints, runs, seconds, fast ? "fast" : "exact");
    for (int s = 0; s < SETUPS; s++) {
        double lo = t[s][0], hi = t[s][0];
        for (int r = 1; r < runs; r++) {
            if (t[s][r] < lo) lo = t[s][r];
            if (t[s][r] > hi) hi = t[s][r];
        }
        med[s] = bench_median(t[s], (size_t)runs);
        const double k = 1e9 / (double)characters;
        if (json)
            printf("{\"scope\":\"blend\",\"setup\":\"%s\",\"characters\":%zu,\"ns_per_character_frame\":%.3f,"
                   "\"ns_per_character_frame_min\":%.3f,\"ns_per_character_frame_max\":%.3f,\"ns_per_joint\":%.3f,"
                   "\"bytes_per_character\":%zu,\"runs\":%d}\n",
                   SETUP_NAMES[s], characters, med[s] * k, lo * k, hi * k, med[s] * k / joints,
                   cna_character_size_bytes(setups[s].chars[0]), runs);
        else
            printf("%-9s %9.1f ns/frame [%.1f-%.1f]  %6.2f ns/joint  %zu bytes per character%s\n", SETUP_NAMES[s],
                   med[s] * k, lo * k, hi * k, med[s] * k / joints, cna_character_size_bytes(setups[s].chars[0]),
                   setups[s].failed ? "  (a pose failed)" : "");
    }
    const double two = med[1] / med[0], four = med[2] / med[0], add = med[4] / med[3], snap = med[5] / med[1];
    if (json)
        printf("{\"scope\":\"blend-ratios\",\"characters\":%zu,\"two_over_one\":%.4f,\"four_over_one\":%.4f,"
               "\"additive_over_override\":%.4f,\"snapshot_over_two\":%.4f}\n",
               characters, two, four, add, snap);
    else
        printf("ratios: two/one %.2f (target <= 2.2), four/one %.2f (<= 4.5), additive/override %.2f (<= 1.3), "
               "snapshot/two %.2f (<= 1.2)\n",
               two, four, add, snap);
    int failed = 0;
    for (int s = 0; s < SETUPS; s++) {
        failed |= setups[s].failed;
        for (size_t i = 0; i < characters; i++) cna_character_free(setups[s].chars[i]);
        free(setups[s].chars);
        free(t[s]);
    }
    free(arm);
    free(upper);
    cna_model_free(m);
    return failed ? 1 : 0;
}
