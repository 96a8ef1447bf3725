/*
 * Morph blending throughput: vertex bytes written per second by
 * cna_morph_blend (carrier validation included) with 1, 2 and 8 active
 * targets, beside two baselines measured in the same run on the same
 * buffers:
 *   memcpy  a plain memcpy of the vertex buffer (the yardstick of the target);
 *   floor   the memory traffic the blend cannot avoid, and nothing else: the
 *           same memcpy plus one streaming read of every delta (and sparse
 *           index) byte the active targets carry. No blend can beat it.
 *
 * Target forms, every target carrying position and normal deltas:
 *   dense    a delta for every vertex (MorphStressTest's targets; the worst
 *            case: 24 bytes per vertex per target to read);
 *   sparse   each target moves a region of 10 % of the vertices, stored as a
 *            sparse list (indices + values), as glTF sparse accessors and the
 *            importer give them.
 * Meshes: MorphStressTest-sized (1504 vertices) and 100k vertices, at
 * strides 32 (position, normal, texcoord) and 52 (+ joints and weights).
 *
 * Columns: blend = vertex bytes written per second (GB/s = 1e9 B/s), median
 * of >= 5 runs [min-max] (tools/benchkit/bench.h); memcpy likewise; ratio =
 * blend / memcpy (the target: >= 0.5 with up to 8 active targets);
 * B/v = bytes the blend must move per vertex (base read + deltas read +
 * output written); moved = those bytes per second; floor = blend time of the
 * floor baseline / blend time (1.0 = the blend runs at the speed of its own
 * memory traffic); max = memcpy time / floor time, the best ratio any blend
 * could reach on this machine with these bytes.
 *
 * Usage: bench_morph_blend [--seconds S] [--runs N] [--path scalar|sse2|avx]
 *   --path  time one code path of the blend (cna__morph_blend_with, after the
 *           same carrier validation cna_morph_blend runs) instead of
 *           cna_morph_blend's own choice, the fastest the CPU has; for
 *           before/after figures in one run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/morph.h"
#include "benchkit/bench.h"
#include "morph/morph_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define READ_AVX 1
#else
#define READ_AVX 0
#endif

enum { TARGETS = 8, KINDS = 2 };

typedef enum form { FORM_DENSE, FORM_SPARSE } form;

typedef struct mesh {
    size_t vertex_count;
    uint32_t stride;
    unsigned char *base;
    unsigned char *out;
    float *deltas[TARGETS][KINDS];
    uint32_t *indices[TARGETS];
    size_t entries; /* per target and kind */
    cna_morph_target targets[TARGETS];
    cna_morph_target_data data;
    float weights[TARGETS];
    int active;
    form form;
    int path; /* -1: cna_morph_blend; else a cna__morph_path */
    uint64_t sink;
} mesh;

static float rnd(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / 8388608.0f - 1.0f;
}

static int mesh_init(mesh *m, size_t vertex_count, uint32_t stride, form f)
{
    memset(m, 0, sizeof *m);
    m->vertex_count = vertex_count;
    m->stride = stride;
    m->form = f;
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
    /* sparse: target t moves a run of 10 % of the vertices, the runs spread
     * evenly from the first vertex to the last */
    m->entries = f == FORM_DENSE ? vertex_count : vertex_count / 10;
    for (int t = 0; t < TARGETS; t++) {
        if (f == FORM_SPARSE) {
            m->indices[t] = malloc(m->entries * sizeof(uint32_t));
            if (!m->indices[t]) return -1;
            const size_t first = (size_t)t * (vertex_count - m->entries) / (TARGETS - 1);
            for (size_t j = 0; j < m->entries; j++) m->indices[t][j] = (uint32_t)(first + j);
        }
        for (int k = 0; k < KINDS; k++) {
            m->deltas[t][k] = malloc(3 * m->entries * sizeof(float));
            if (!m->deltas[t][k]) return -1;
            for (size_t i = 0; i < 3 * m->entries; i++) m->deltas[t][k][i] = 0.1f * rnd(&s);
        }
        if (f == FORM_DENSE) {
            m->targets[t].positions = cna_morph_deltas_dense(m->deltas[t][0], vertex_count);
            m->targets[t].normals = cna_morph_deltas_dense(m->deltas[t][1], vertex_count);
        } else {
            m->targets[t].positions =
                cna_morph_deltas_sparse(m->indices[t], m->deltas[t][0], m->entries);
            m->targets[t].normals =
                cna_morph_deltas_sparse(m->indices[t], m->deltas[t][1], m->entries);
        }
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
    if (cna_morph_target_data_validate(&m->data, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    return 0;
}

static void mesh_free(mesh *m)
{
    free(m->base);
    free(m->out);
    for (int t = 0; t < TARGETS; t++) {
        free(m->indices[t]);
        for (int k = 0; k < KINDS; k++) free(m->deltas[t][k]);
    }
}

/* Bytes the blend of `active` targets must read (deltas and indices). */
static double delta_bytes(const mesh *m)
{
    const double per_entry = KINDS * 3 * sizeof(float) + (m->form == FORM_SPARSE ? KINDS * 4 : 0);
    return (double)m->active * per_entry * (double)m->entries;
}

static void step_blend(void *ctx)
{
    mesh *m = ctx;
    cna_error err;
    if (m->path >= 0) {
        if (cna_morph_target_data_validate(&m->data, &err)) {
            fprintf(stderr, "blend failed: %s\n", err.message);
            exit(1);
        }
        cna__morph_blend_with(&m->data, m->weights, m->out, (cna__morph_path)m->path);
    } else if (cna_morph_blend(&m->data, m->weights, TARGETS, m->out, m->data.base_size,
                               &err)) {
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

/* One streaming read of n bytes (n a multiple of 4), as wide as the CPU
 * loads. */
#if READ_AVX
__attribute__((target("avx"))) static uint64_t read_avx(const unsigned char *p, size_t n)
{
    __m256 a = _mm256_setzero_ps(), b = a, c = a, d = a;
    size_t i = 0;
    for (; i + 128 <= n; i += 128) {
        a = _mm256_or_ps(a, _mm256_loadu_ps((const float *)(const void *)(p + i)));
        b = _mm256_or_ps(b, _mm256_loadu_ps((const float *)(const void *)(p + i + 32)));
        c = _mm256_or_ps(c, _mm256_loadu_ps((const float *)(const void *)(p + i + 64)));
        d = _mm256_or_ps(d, _mm256_loadu_ps((const float *)(const void *)(p + i + 96)));
    }
    a = _mm256_or_ps(_mm256_or_ps(a, b), _mm256_or_ps(c, d));
    float lanes[8];
    _mm256_storeu_ps(lanes, a);
    uint32_t acc = 0, u;
    for (int k = 0; k < 8; k++) memcpy(&u, &lanes[k], 4), acc |= u;
    for (; i < n; i += 4) memcpy(&u, p + i, 4), acc |= u;
    return acc;
}
#endif

static uint64_t read_bytes(const void *p, size_t n)
{
#if READ_AVX
    if (__builtin_cpu_supports("avx")) return read_avx(p, n);
#endif
    const unsigned char *c = p;
    uint64_t acc = 0, u;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) memcpy(&u, c + i, 8), acc |= u;
    return acc;
}

static void step_floor(void *ctx)
{
    mesh *m = ctx;
    memcpy(m->out, m->base, m->data.base_size);
    uint64_t acc = 0;
    for (int t = 0; t < m->active; t++) {
        for (int k = 0; k < KINDS; k++)
            acc |= read_bytes(m->deltas[t][k], 3 * m->entries * sizeof(float));
        if (m->indices[t]) acc |= read_bytes(m->indices[t], m->entries * sizeof(uint32_t)) * 2;
    }
    m->sink += acc;
    bench_keep(m->out);
    bench_keep(&m->sink);
}

int main(int argc, char **argv)
{
    double seconds = BENCH_DEFAULT_SECONDS;
    int runs = BENCH_MIN_RUNS;
    int path = -1;
    static const char *const path_names[] = {"scalar", "sse2", "avx"};
    /* --path is ours; the rest goes to bench_parse_args */
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--path") != 0) continue;
        for (int p = 0; p < CNA__MORPH_PATH_COUNT; p++)
            if (!strcmp(argv[i + 1], path_names[p])) path = p;
        if (path < 0) {
            fprintf(stderr, "--path: scalar, sse2 or avx\n");
            return 2;
        }
        if (!cna__morph_path_available((cna__morph_path)path)) {
            fprintf(stderr, "--path %s: not available on this CPU or build\n", argv[i + 1]);
            return 2;
        }
        for (int j = i; j + 2 < argc; j++) argv[j] = argv[j + 2];
        argc -= 2;
        break;
    }
    if (bench_parse_args(argc, argv, &seconds, &runs)) return 2;

    static const struct {
        size_t vertices;
        uint32_t stride;
    } meshes[] = {{1504, 32}, {1504, 52}, {100000, 32}, {100000, 52}};
    static const int active[] = {1, 2, 8};
    static const char *const form_names[] = {"dense", "sparse"};

    printf("morph blend throughput: vertex bytes written per second (GB/s = 1e9 B/s),\n"
           "median of %d runs of >= %.2f s [min-max]; every target has position and normal "
           "deltas;\ndense: every vertex; sparse: 10 %% of the vertices per target; path: %s\n\n",
           runs, seconds,
           path < 0 ? path_names[cna__morph_best_path()] : path_names[path]);
    printf("%8s %6s %6s %6s | %24s | %7s | %6s | %5s | %6s | %5s | %5s\n", "vertices", "stride",
           "form", "active", "blend GB/s", "memcpy", "ratio", "B/v", "moved", "floor", "max");
    for (size_t i = 0; i < sizeof meshes / sizeof meshes[0]; i++)
        for (int f = FORM_DENSE; f <= FORM_SPARSE; f++) {
            mesh m;
            if (mesh_init(&m, meshes[i].vertices, meshes[i].stride, (form)f)) {
                fprintf(stderr, "out of memory\n");
                return 1;
            }
            m.path = path;
            const double bytes = (double)m.data.base_size;
            for (size_t a = 0; a < sizeof active / sizeof active[0]; a++) {
                m.active = active[a];
                for (int t = 0; t < TARGETS; t++)
                    m.weights[t] = t < active[a] ? 0.5f + 0.0625f * (float)t : 0.0f;
                bench_stats b = bench_measure(step_blend, &m, runs, seconds);
                bench_stats c = bench_measure(step_memcpy, &m, runs, seconds);
                bench_stats fl = bench_measure(step_floor, &m, runs, seconds);
                const double moved = 2.0 * bytes + delta_bytes(&m);
                const double bg = bench_rate(bytes, b.median) / 1e9;
                const double cg = bench_rate(bytes, c.median) / 1e9;
                printf("%8zu %6u %6s %6d | %7.2f [%6.2f-%6.2f] | %7.2f | %6.3f | %5.0f | %6.1f | "
                       "%5.2f | %5.2f\n",
                       m.vertex_count, (unsigned)m.stride, form_names[f], active[a], bg,
                       bench_rate(bytes, b.max) / 1e9, bench_rate(bytes, b.min) / 1e9, cg,
                       bg / cg, moved / (double)m.vertex_count,
                       bench_rate(moved, b.median) / 1e9, fl.median / b.median,
                       c.median / fl.median);
                fflush(stdout);
            }
            mesh_free(&m);
        }
    return 0;
}
