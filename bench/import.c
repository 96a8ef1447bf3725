/*
 * Import time: cna_model_load_file + cna_model_free (read, parse, validate,
 * import: bones, skins, clips, meshes, morph targets) per valid corpus
 * model, in ms, median of >= 5 runs of >= 0.5 s with min-max
 * (tools/benchkit/bench.h); then the same for an embedded .gltf: MorphStressTest
 * with its 388 kB .bin as a base64 data URI (written to a temporary file
 * first, so the load reads a file like the others; its PNG images stay
 * external: the reader never reads images). Targets: robot.glb (the 1.6 MB
 * .glb class) <= 4.8 ms, the embedded .gltf class (688 kB) <= 5.4 ms
 * (docs/benchmarks.md).
 *
 * Usage: bench_import [--seconds S] [--runs N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cna/cna.h"
#include "benchkit/bench.h"

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

static char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *bytes = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (bytes = malloc((size_t)n + 1)) != NULL) {
            *size = fread(bytes, 1, (size_t)n, f);
            bytes[*size] = '\0';
        }
    }
    fclose(f);
    return bytes;
}

/* MorphStressTest.gltf with `"uri" : "MorphStressTest.bin"` replaced by a
 * base64 data URI, written to `out`; its size in *size. 0 on success. */
static int write_embedded(const char *out, size_t *size)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static const char key[] = "\"MorphStressTest.bin\"";
    char gpath[512], bpath[512];
    snprintf(gpath, sizeof gpath, "%s/corpus/valid/MorphStressTest/MorphStressTest.gltf", CNA_TEST_DATA_DIR);
    snprintf(bpath, sizeof bpath, "%s/corpus/valid/MorphStressTest/MorphStressTest.bin", CNA_TEST_DATA_DIR);
    size_t gn = 0, bn = 0;
    char *g = read_all(gpath, &gn);
    unsigned char *b = (unsigned char *)read_all(bpath, &bn);
    char *at = g ? strstr(g, key) : NULL;
    FILE *f = at && b ? fopen(out, "wb") : NULL;
    int rc = f ? 0 : -1;
    if (f) {
        fwrite(g, 1, (size_t)(at - g), f);
        fputs("\"data:application/octet-stream;base64,", f);
        for (size_t i = 0; i < bn; i += 3) {
            unsigned v = (unsigned)b[i] << 16 | (i + 1 < bn ? (unsigned)b[i + 1] << 8 : 0u) |
                         (i + 2 < bn ? b[i + 2] : 0u);
            char q[4] = {b64[v >> 18 & 63], b64[v >> 12 & 63], i + 1 < bn ? b64[v >> 6 & 63] : '=',
                         i + 2 < bn ? b64[v & 63] : '='};
            fwrite(q, 1, 4, f);
        }
        fputc('"', f);
        fputs(at + strlen(key), f);
        *size = (size_t)ftell(f);
        if (fclose(f) != 0) rc = -1;
    }
    free(g);
    free(b);
    return rc;
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
    char tmp[64];
    snprintf(tmp, sizeof tmp, "/tmp/cna-bench-embedded-%ld.gltf", (long)getpid());
    size_t embedded_size = 0;
    load_ctx e = {tmp, 0};
    if (write_embedded(tmp, &embedded_size) != 0) {
        fprintf(stderr, "%s: cannot write the embedded test file\n", tmp);
        return 1;
    }
    load_once(&e);
    if (e.failed) {
        fprintf(stderr, "%s: refused\n", tmp);
        rc = 1;
    } else {
        const bench_stats s = bench_measure(load_once, &e, runs, seconds);
        char name[64], figure[64];
        snprintf(name, sizeof name, "embedded (%zu kB)", embedded_size / 1000);
        snprintf(figure, sizeof figure, "%.4f [%.4f-%.4f]", s.median * 1e3, s.min * 1e3, s.max * 1e3);
        printf("| %-26s | %-28s |\n", name, figure);
    }
    remove(tmp);
    return rc;
}
