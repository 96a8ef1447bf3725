/*
 * Morph blending throughput: vertex bytes written per second by
 * cna_morph_blend with 1, 2 and 8 active targets (each carrying dense
 * position and normal deltas, as MorphStressTest's targets do), beside a
 * plain memcpy of the same buffer measured in the same run.
 *
 * Meshes: MorphStressTest-sized (1504 vertices) and 100k vertices, at
 * strides 32 (position, normal, texcoord) and 52 (+ joints and weights).
 * Each figure is the median of >= 5 runs of >= 0.5 s, with min-max
 * (bench/common/bench.h). Target (issue 5): blend >= 0.5 x memcpy with up
 * to 8 active targets.
 *
 * Usage: bench_morph_blend [--seconds S] [--runs N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/morph.h"
#include "common/bench.h"

enum { TARGETS = 8 };

typedef struct mesh {
    size_t vertex_count;
    uint32_t stride;
    unsigned char *base;
    unsigned char *out;
    float *deltas[TARGETS][2];
    cna_morph_target targets[TARGETS];
    cna_morph_target_data data;
    float weights[TARGETS];
} mesh;

static float rnd(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / 8388608.0f - 1.0f;
}

static int mesh_init(mesh *m, size_t vertex_count, uint32_t stride)
{
    memset(m, 0, sizeof *m);
    m->vertex_count = vertex_count;
    m->stride = stride;
    const size_t size = vertex_count * stride;
    m->base = malloc(size);
    m->out = malloc(size);
    if (!m->base || !m->out) return -1;
    uint32_t s = 1;
    for (size_t i = 0; i < size; i++) m->base[i] = (unsigned char)(i * 29 + 5);
    for (size_t v = 0; v < vertex_count; v++) {
        float p[6] = {rnd(&s), rnd(&s), rnd(&s), 0.0f, 0.0f, 1.0f};
        memcpy(m->base + v * stride, p, sizeof p);
    }
    for (int t = 0; t < TARGETS; t++) {
        for (int k = 0; k < 2; k++) {
            m->deltas[t][k] = malloc(3 * vertex_count * sizeof(float));
            if (!m->deltas[t][k]) return -1;
            for (size_t i = 0; i < 3 * vertex_count; i++) m->deltas[t][k][i] = 0.1f * rnd(&s);
        }
        m->targets[t].positions = cna_morph_deltas_dense(m->deltas[t][0], vertex_count);
        m->targets[t].normals = cna_morph_deltas_dense(m->deltas[t][1], vertex_count);
    }
    cna_error err;
    if (cna_morph_layout_canonical(stride, &m->data.layout, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    m->data.base_vertices = m->base;
    m->data.base_size = size;
    m->data.vertex_count = vertex_count;
    m->data.targets = m->targets;
    m->data.target_count = TARGETS;
    return 0;
}

static void mesh_free(mesh *m)
{
    free(m->base);
    free(m->out);
    for (int t = 0; t < TARGETS; t++)
        for (int k = 0; k < 2; k++) free(m->deltas[t][k]);
}

static void step_blend(void *ctx)
{
    mesh *m = ctx;
    cna_error err;
    if (cna_morph_blend(&m->data, m->weights, TARGETS, m->out, m->data.base_size, &err)) {
        fprintf(stderr, "blend failed: %s\n", err.message);
        exit(1);
    }
    bench_keep(m->out);
}

static void step_memcpy(void *ctx)
{
    mesh *m = ctx;
    memcpy(m->out, m->base, m->data.base_size);
    bench_keep(m->out);
}

int main(int argc, char **argv)
{
    double seconds = BENCH_DEFAULT_SECONDS;
    int runs = BENCH_MIN_RUNS;
    if (bench_parse_args(argc, argv, &seconds, &runs)) return 2;

    static const struct { size_t vertices; uint32_t stride; } meshes[] = {
        {1504, 32}, {1504, 52}, {100000, 32}, {100000, 52}};
    static const int active[] = {1, 2, 8};

    printf("morph blend throughput: vertex bytes written per second (GB/s = 1e9 B/s),\n"
           "median of %d runs of >= %.2f s [min-max]; every target has dense position and "
           "normal deltas\n\n",
           runs, seconds);
    printf("%8s %6s %7s | %24s | %24s | %6s\n", "vertices", "stride", "active",
           "blend GB/s", "memcpy GB/s", "ratio");
    for (size_t i = 0; i < sizeof meshes / sizeof meshes[0]; i++) {
        mesh m;
        if (mesh_init(&m, meshes[i].vertices, meshes[i].stride)) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        const double bytes = (double)m.data.base_size;
        for (size_t a = 0; a < sizeof active / sizeof active[0]; a++) {
            for (int t = 0; t < TARGETS; t++) m.weights[t] = t < active[a] ? 0.5f + 0.0625f * (float)t : 0.0f;
            bench_stats b = bench_measure(step_blend, &m, runs, seconds);
            bench_stats c = bench_measure(step_memcpy, &m, runs, seconds);
            const double bg = bench_rate(bytes, b.median) / 1e9;
            const double cg = bench_rate(bytes, c.median) / 1e9;
            printf("%8zu %6u %7d | %7.2f [%6.2f-%6.2f] | %7.2f [%6.2f-%6.2f] | %6.3f\n",
                   m.vertex_count, (unsigned)m.stride, active[a], bg,
                   bench_rate(bytes, b.max) / 1e9, bench_rate(bytes, b.min) / 1e9, cg,
                   bench_rate(bytes, c.max) / 1e9, bench_rate(bytes, c.min) / 1e9, bg / cg);
            fflush(stdout);
        }
        mesh_free(&m);
    }
    return 0;
}
