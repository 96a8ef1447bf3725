/*
 * What a character costs to make: cna_character_create followed by
 * cna_character_free, per model, and the bytes a character holds beside its
 * model (cna_character_size_bytes). A game makes characters while it plays
 * (a crowd spawning, a level streaming in); their cost is the time of this
 * pair. Models: RobotExpressive (43 joints, 14 skins, 14 clips, a rigid
 * scene-node clip), the fox of the clip-library corpus (Mesh2MotionFox, 49
 * joints, the animations file), the showcase tentacle (150 joints, its
 * palette split) and RiggedSimple (2 joints).
 * Columns: microseconds per create + free (median of >= 5 runs [min-max],
 * tools/benchkit/bench.h), the character's bytes, the model's bytes.
 *
 * Usage: bench_character_create [--seconds S] [--runs N] [--json]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchkit/bench.h"
#include "cna/cna.h"

typedef struct subject {
    const char *name;
    const char *path;
    bool split;   /* imported with split_palettes (more than 72 joints) */
} subject;

static const subject SUBJECTS[] = {
    {"robot", CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb", false},
    {"fox", CNA_TEST_DATA_DIR "/libraries/Mesh2MotionFox/fox-animations.glb", false},
    {"tentacle", CNA_SOURCE_DIR "/assets/Tentacle/tentacle.gltf", true},
    {"rigged-simple", CNA_TEST_DATA_DIR "/corpus/valid/RiggedSimple/rigged_simple.gltf", false},
};

typedef struct ctx {
    const cna_model *model;
    int failed;
} ctx;

static void create_free(void *p)
{
    ctx *c = (ctx *)p;
    cna_character *ch = NULL;
    if (cna_character_create(c->model, NULL, &ch, NULL) != CNA_OK) c->failed = 1;
    bench_keep(ch);
    cna_character_free(ch);
}

int main(int argc, char **argv)
{
    double seconds = 0.3;
    int runs = BENCH_MIN_RUNS;
    int json = 0;
    int rest = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else argv[rest++] = argv[i];
    }
    if (bench_parse_args(rest, argv, &seconds, &runs)) return 2;
    if (!json) printf("== bench_character_create: cna_character_create + cna_character_free\n");
    int failed = 0;
    for (size_t i = 0; i < sizeof SUBJECTS / sizeof SUBJECTS[0]; i++) {
        cna_model *m = NULL;
        cna_error err;
        cna_import_options io;
        memset(&io, 0, sizeof io);
        io.split_palettes = SUBJECTS[i].split;
        if (cna_model_load_file(SUBJECTS[i].path, &io, &m, &err) != CNA_OK) {
            fprintf(stderr, "bench_character_create: %s\n", err.message);
            return 1;
        }
        cna_character *probe = NULL;
        if (cna_character_create(m, NULL, &probe, &err) != CNA_OK) {
            fprintf(stderr, "bench_character_create: %s: %s\n", SUBJECTS[i].name, err.message);
            return 1;
        }
        const size_t bytes = cna_character_size_bytes(probe);
        cna_character_free(probe);
        ctx c = {m, 0};
        const bench_stats s = bench_measure(create_free, &c, runs, seconds);
        failed |= c.failed;
        if (json)
            printf("{\"scope\":\"character-create\",\"model\":\"%s\",\"us_per_create\":%.3f,\"us_min\":%.3f,"
                   "\"us_max\":%.3f,\"character_bytes\":%zu,\"model_bytes\":%zu,\"runs\":%d}\n",
                   SUBJECTS[i].name, s.median * 1e6, s.min * 1e6, s.max * 1e6, bytes, cna_model_size_bytes(m),
                   s.runs);
        else
            printf("%-14s %9.2f us per create + free [%.2f-%.2f]  character %zu bytes, model %zu bytes%s\n",
                   SUBJECTS[i].name, s.median * 1e6, s.min * 1e6, s.max * 1e6, bytes, cna_model_size_bytes(m),
                   c.failed ? "  (a create failed)" : "");
        cna_model_free(m);
    }
    return failed ? 1 : 0;
}
