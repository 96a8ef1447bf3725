/*
 * Import time: cna_model_load_file + cna_model_free (read, parse, validate,
 * import: bones, skins, clips, meshes, morph targets) per valid corpus
 * model, in ms, median of >= 5 runs of >= 0.5 s with min-max
 * (bench/common/bench.h). Target (issue 8): robot.glb <= 4.8 ms.
 *
 * Usage: bench_import [--seconds S] [--runs N]
 */
#include <stdio.h>

#include "cna/cna.h"
#include "common/bench.h"

typedef struct load_ctx {
    const char *path;
    int failed;
} load_ctx;

static void load_once(void *p)
{
    load_ctx *c = p;
    cna_model *m = NULL;
    if (cna_model_load_file(c->path, NULL, &m, NULL)) c->failed = 1;
    cna_model_free(m);
}

int main(int argc, char **argv)
{
    double seconds = BENCH_DEFAULT_SECONDS;
    int runs = BENCH_MIN_RUNS;
    if (bench_parse_args(argc, argv, &seconds, &runs)) return 2;
    static const char *const files[] = {
        "AnimatedMorphCube/AnimatedMorphCube.gltf", "BoxAnimated/box_animated.gltf",
        "InterpolationTest/interpolation_test.gltf", "MorphStressTest/MorphStressTest.gltf",
        "RiggedSimple/rigged_simple.gltf",          "RobotExpressive/robot.glb",
        "SimpleMorph/SimpleMorph.gltf",             "SimpleSkin/simple_skin.gltf",
        "Triangle/triangle.gltf"};
    printf("| file                       | import ms [min-max]          |\n"
           "|----------------------------|------------------------------|\n");
    int rc = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/corpus/valid/%s", CNA_TEST_DATA_DIR, files[i]);
        load_ctx c = {path, 0};
        load_once(&c);
        if (c.failed) {
            fprintf(stderr, "%s: refused\n", path);
            rc = 1;
            continue;
        }
        const bench_stats s = bench_measure(load_once, &c, runs, seconds);
        const char *name = files[i];
        for (const char *p = files[i]; *p; p++)
            if (*p == '/') name = p + 1;
        char figure[64];
        snprintf(figure, sizeof figure, "%.4f [%.4f-%.4f]", s.median * 1e3, s.min * 1e3, s.max * 1e3);
        printf("| %-26s | %-28s |\n", name, figure);
        fflush(stdout);
    }
    return rc;
}
