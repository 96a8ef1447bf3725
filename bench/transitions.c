/*
 * How far bones jump when crossfades interrupt one another
 * (include/cna/character.h, cna_character_crossfade, "Interrupting"): for
 * each multi-clip model of the corpus, N random timelines of 120 frames at
 * 60 fps on characters of 2 or 3 layers, a crossfade every 1 to 30 frames
 * to a random clip over 0.1, 0.2, 0.3 or 0.5 s, from the layer that last
 * started (tests/character/transition_harness.h). Per timeline: its largest
 * per-frame bone displacement over the larger of two references, each clip
 * played alone and the uninterrupted crossfades between the same clips with
 * the same durations. Prints, per model, the crossfades made and the
 * largest and 99th-percentile ratio (at most 1.25 is the target).
 *
 * Usage: bench_transitions [--timelines N]   (default 10000 per model)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/character/transition_harness.h"
#include "cna/cna.h"

static const char *const MODELS[] = {
    "corpus/valid/RobotExpressive/robot.glb",
    "corpus/valid/InterpolationTest/interpolation_test.gltf",
    "corpus/valid/MorphStressTest/MorphStressTest.gltf",
    "libraries/Mesh2MotionFox/fox-animations.glb",
    "libraries/Mesh2MotionHuman/human-addon-animations.glb",
};

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long timelines = 10000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--timelines") == 0 && i + 1 < argc) {
            timelines = strtol(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "usage: bench_transitions [--timelines N]\n");
            return 2;
        }
    }
    if (timelines < 1) timelines = 1;
    double *ratios = (double *)malloc((size_t)timelines * sizeof(double));
    if (!ratios) return 1;
    int failed = 0;
    printf("== bench_transitions: %ld random timelines per model, 120 frames each\n", timelines);
    for (size_t i = 0; i < sizeof MODELS / sizeof MODELS[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, MODELS[i]);
        cna_model *m = NULL;
        cna_error err;
        if (cna_model_load_file(path, NULL, &m, &err) != CNA_OK) {
            fprintf(stderr, "bench_transitions: %s\n", err.message);
            return 1;
        }
        th_model t;
        if (th_init(&t, m) != 0) {
            fprintf(stderr, "bench_transitions: %s: references failed\n", MODELS[i]);
            return 1;
        }
        uint64_t rng = 0x2545f4914f6cdd1dull ^ (uint64_t)(i + 1);
        size_t crossfades = 0;
        double moved_max = 0.0;
        for (long k = 0; k < timelines; k++) {
            th_result r = {0.0, 0.0, 0};
            if (th_timeline(&t, &rng, 120, &r) != 0) {
                fprintf(stderr, "bench_transitions: %s: a timeline failed\n", MODELS[i]);
                return 1;
            }
            crossfades += r.crossfades;
            ratios[k] = th_ratio(&t, r.moved, r.reference);
            if (r.moved > moved_max) moved_max = r.moved;
        }
        qsort(ratios, (size_t)timelines, sizeof(double), by_value);
        const double worst = ratios[timelines - 1], p99 = ratios[(size_t)((double)(timelines - 1) * 0.99)];
        printf("%-55s %8zu crossfades  largest ratio %.4f  p99 %.4f  largest displacement %.4f%s\n", MODELS[i],
               crossfades, worst, p99, moved_max, worst > 1.25 ? "  (above 1.25)" : "");
        failed |= worst > 1.25;
        th_free(&t);
        cna_model_free(m);
    }
    free(ratios);
    return failed;
}
