/*
 * bench/cnb_load.c — loading a baked .cnb model versus importing its glTF,
 * for every valid corpus model, in the same run.
 *
 * For each model:
 *   gltf   cna_model_load_file + cna_model_free: read, parse, validate and
 *          import the .gltf/.glb (clip mode faithful, no device);
 *   cnb    cna_cnb_load_file + cna_model_free of the same model baked with
 *          cna_cnb_write_file (unit scale 1) into a temporary file: one read,
 *          checksum, validation, fix-ups, morph instances, bind-pose palettes.
 * Both read their files from the page cache. Method: tools/benchkit/bench.h —
 * each figure is the median of 7 runs (--runs, at least 5), one run repeating
 * the load for at least 0.5 s (--seconds), with [min-max] of the runs.
 *
 * Usage: bench_cnb_load [--seconds S] [--runs N]   (docs/benchmarks.md, "Baked models")
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cna/cna.h"
#include "benchkit/bench.h"

#define DEFAULT_RUNS 7

static const char *const models[] = {
    "AnimatedMorphCube/AnimatedMorphCube.gltf",
    "BoxAnimated/box_animated.gltf",
    "InterpolationTest/interpolation_test.gltf",
    "MorphStressTest/MorphStressTest.gltf",
    "RiggedSimple/rigged_simple.gltf",
    "RobotExpressive/robot.glb",
    "SimpleMorph/SimpleMorph.gltf",
    "SimpleSkin/simple_skin.gltf",
    "Triangle/triangle.gltf",
};

typedef struct load_ctx {
    const char *path;
    bool cnb;
    bool failed;
} load_ctx;

static void load_once(void *p)
{
    load_ctx *c = (load_ctx *)p;
    cna_model *m = NULL;
    cna_error err;
    cna_result r = c->cnb ? cna_cnb_load_file(c->path, NULL, &m, &err)
                          : cna_model_load_file(c->path, NULL, &m, &err);
    if (r != CNA_OK) {
        if (!c->failed) fprintf(stderr, "%s: %s\n", c->path, err.message);
        c->failed = true;
    }
    bench_keep(m);
    cna_model_free(m);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

int main(int argc, char **argv)
{
    double seconds = BENCH_DEFAULT_SECONDS;
    int runs = DEFAULT_RUNS;
    if (bench_parse_args(argc, argv, &seconds, &runs) != 0) return 2;
    char tmp[] = "/tmp/cna-bench-cnb-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    close(fd);
    printf("%-44s %10s %10s %22s %22s %8s\n", "model", "glTF B", ".cnb B", "glTF import ms [min-max]",
           ".cnb load ms [min-max]", "speed-up");
    int rc = 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/corpus/valid/%s", CNA_TEST_DATA_DIR, models[i]);
        cna_model *m = NULL;
        cna_error err;
        if (cna_model_load_file(path, NULL, &m, &err) != CNA_OK ||
            cna_cnb_write_file(m, NULL, tmp, &err) != CNA_OK) {
            fprintf(stderr, "%s: %s\n", path, err.message);
            cna_model_free(m);
            rc = 1;
            continue;
        }
        cna_model_free(m);
        load_ctx g = {path, false, false}, b = {tmp, true, false};
        bench_stats sg = bench_measure(load_once, &g, runs, seconds);
        bench_stats sb = bench_measure(load_once, &b, runs, seconds);
        if (g.failed || b.failed) rc = 1;
        printf("%-44s %10ld %10ld %9.4f [%.4f-%.4f] %9.4f [%.4f-%.4f] %7.1fx\n", models[i], file_size(path),
               file_size(tmp), sg.median * 1e3, sg.min * 1e3, sg.max * 1e3, sb.median * 1e3, sb.min * 1e3,
               sb.max * 1e3, sg.median / sb.median);
        fflush(stdout);
    }
    remove(tmp);
    return rc;
}
