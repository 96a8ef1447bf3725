/*
 * CPU skinning (include/cna/skinning.h) in ns per vertex: positions +
 * normals by the reference (cna_skin_vertices) and by the fast path
 * (cna_skin_vertices_fast, with the kernel it picks on this machine, named
 * in the header line), stride 52 (position, normal, texcoord, joints,
 * weights), then the fast path's other kernels this machine runs (SSE2,
 * scalar; through the library's internal hook), and positions only by the
 * reference (cna_skin_positions), with 1, 2 and 4 influences of non-zero
 * weight per vertex, beside a memcpy of the same vertex bytes in the same
 * run. Last column: the fast path's least-disturbed figure, the fastest of
 * 2000 calls on each part (data hot) summed over the parts, which the
 * preemptions of a loaded machine cannot inflate.
 *
 * Parts: RobotExpressive's 19 skinned parts as loaded (66 to 1344 vertices,
 * 6618 in all), skinned part by part with the palette of Robot_Walking at
 * 0.5 s; each vertex's influences are rewritten to k palette indices spread
 * over the 43 joints with weights 1/k (the file's own weights are also
 * measured: "file"). Each figure is the median of >= 5 runs of >= 0.5 s with
 * min-max (tools/benchkit/bench.h). Target: <= 8 ns per vertex with 4
 * influences, positions + normals (docs/benchmarks.md).
 *
 * With --json: only 4 influences, positions + normals, by the fast path
 * and the reference, as one JSON line (influences, vertices, parts (the
 * part vertex counts, comma-separated), palette, kernel,
 * fast_ns_per_vertex (+ _min, _max), reference_ns_per_vertex (+ _min,
 * _max)); bench/peers/run.sh reads it.
 *
 * Usage: bench_skinning [--seconds S] [--runs N] [--json]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "benchkit/bench.h"
#include "model/skinning_internal.h"

enum { MAX_PARTS = 64 };


typedef struct skin_ctx {
    size_t part_count;
    const unsigned char *in[MAX_PARTS];
    size_t vertices[MAX_PARTS];
    unsigned char *out[MAX_PARTS];
    float *xyz[MAX_PARTS];
    float *nrm[MAX_PARTS];
    size_t total_vertices;
    cna_skinning_layout layout;
    const cna_mat4 *palette;
    size_t palette_count;
    int kernel; /* skin_kernel's */
} skin_ctx;

static void skin_all(void *p)
{
    skin_ctx *c = p;
    for (size_t i = 0; i < c->part_count; i++)
        cna_skin_vertices(&c->layout, c->in[i], c->vertices[i], c->palette, c->palette_count,
                          c->out[i], c->vertices[i] * c->layout.stride, NULL);
    bench_keep(c->out);
}

static void skin_fast(void *p)
{
    skin_ctx *c = p;
    for (size_t i = 0; i < c->part_count; i++)
        cna_skin_vertices_fast(&c->layout, c->in[i], c->vertices[i], c->palette, c->palette_count,
                               c->out[i], c->vertices[i] * c->layout.stride, NULL);
    bench_keep(c->out);
}

/* cna_skin_streams into packed position and normal arrays (the ctx's xyz and nrm). */
static void skin_streams_with(skin_ctx *c, uint32_t flags)
{
    for (size_t i = 0; i < c->part_count; i++) {
        cna_skinning_streams s;
        memset(&s, 0, sizeof s);
        s.positions = c->xyz[i];
        s.positions_size = 12 * c->vertices[i];
        s.normals = c->nrm[i];
        s.normals_size = 12 * c->vertices[i];
        s.flags = flags;
        cna_skin_streams(&c->layout, c->in[i], c->vertices[i], c->palette, c->palette_count, &s,
                         NULL);
    }
    bench_keep(c->xyz);
    bench_keep(c->nrm);
}

static void skin_streams(void *p) { skin_streams_with(p, 0); }

static void skin_streams_raw(void *p) { skin_streams_with(p, CNA_SKIN_NO_RENORMALIZE); }

static void skin_kernel(void *p)
{
    skin_ctx *c = p;
    for (size_t i = 0; i < c->part_count; i++)
        cna__skin_vertices_fast_path(&c->layout, c->in[i], c->vertices[i], c->palette,
                                     c->palette_count, c->out[i], c->vertices[i] * c->layout.stride,
                                     c->kernel, NULL);
    bench_keep(c->out);
}

/* The least-disturbed figure of the dispatched fast path: the fastest of
 * `calls` calls on each part (its data hot; a preemption cannot lower a
 * minimum), summed over the parts, in seconds. */
static double fast_hot_best(const skin_ctx *c, int calls)
{
    double sum = 0;
    for (size_t i = 0; i < c->part_count; i++) {
        double best = 1e30;
        for (int k = 0; k < calls; k++) {
            const double t0 = bench_now();
            cna_skin_vertices_fast(&c->layout, c->in[i], c->vertices[i], c->palette,
                                   c->palette_count, c->out[i], c->vertices[i] * c->layout.stride,
                                   NULL);
            const double t = bench_now() - t0;
            best = t < best ? t : best;
        }
        sum += best;
    }
    bench_keep(c->out);
    return sum;
}

static void skin_positions(void *p)
{
    skin_ctx *c = p;
    for (size_t i = 0; i < c->part_count; i++)
        cna_skin_positions(&c->layout, c->in[i], c->vertices[i], c->palette, c->palette_count,
                           c->xyz[i], 3 * c->vertices[i], NULL);
    bench_keep(c->xyz);
}

static void copy_all(void *p)
{
    skin_ctx *c = p;
    for (size_t i = 0; i < c->part_count; i++)
        memcpy(c->out[i], c->in[i], c->vertices[i] * c->layout.stride);
    bench_keep(c->out);
}

/* Rewrite every vertex's influences to k joints of weight 1/k (k = 0: keep the file's). */
static void set_influences(skin_ctx *c, unsigned char *const *copies, int k)
{
    for (size_t i = 0; i < c->part_count; i++)
        for (size_t v = 0; v < c->vertices[i]; v++) {
            unsigned char *vertex = copies[i] + v * c->layout.stride;
            if (k == 0) continue; /* the file's influences (copied at start) */
            uint8_t j[4] = {0, 0, 0, 0};
            float w[4] = {0, 0, 0, 0};
            for (int n = 0; n < k; n++) {
                j[n] = (uint8_t)((v * 7 + (size_t)n * 11 + i) % c->palette_count);
                w[n] = 1.0f / (float)k;
            }
            memcpy(vertex + c->layout.joints_offset, j, sizeof j);
            memcpy(vertex + c->layout.weights_offset, w, sizeof w);
        }
}

static void free_parts(skin_ctx *c, unsigned char *const *copies)
{
    for (size_t i = 0; i < c->part_count; i++) {
        free(copies[i]);
        free(c->out[i]);
        free(c->xyz[i]);
        free(c->nrm[i]);
    }
}

/* --json: 4 influences, positions + normals, fast path and reference, one line. */
static int skinning_json(skin_ctx *c, unsigned char *const *copies, int kernel, int runs, double seconds,
                         cna_player *player, cna_model *m)
{
    set_influences(c, copies, 4);
    const bench_stats fast = bench_measure(skin_fast, c, runs, seconds);
    const bench_stats streams = bench_measure(skin_streams, c, runs, seconds);
    const bench_stats raw = bench_measure(skin_streams_raw, c, runs, seconds);
    const bench_stats full = bench_measure(skin_all, c, runs, seconds);
    const double n = (double)c->total_vertices;
    printf("{\"influences\":4,\"vertices\":%zu,\"parts\":\"", c->total_vertices);
    for (size_t i = 0; i < c->part_count; i++) printf("%s%zu", i ? "," : "", c->vertices[i]);
    printf("\",\"palette\":%zu,\"kernel\":\"%s\",\"fast_ns_per_vertex\":%.3f,\"fast_ns_per_vertex_min\":%.3f,"
           "\"fast_ns_per_vertex_max\":%.3f,\"reference_ns_per_vertex\":%.3f,\"reference_ns_per_vertex_min\":%.3f,"
           "\"reference_ns_per_vertex_max\":%.3f,",
           c->palette_count, cna__skin_fast_kernel_name(kernel), fast.median * 1e9 / n, fast.min * 1e9 / n,
           fast.max * 1e9 / n, full.median * 1e9 / n, full.min * 1e9 / n, full.max * 1e9 / n);
    printf("\"streams_ns_per_vertex\":%.3f,\"streams_ns_per_vertex_min\":%.3f,"
           "\"streams_ns_per_vertex_max\":%.3f,\"streams_raw_ns_per_vertex\":%.3f,"
           "\"streams_raw_ns_per_vertex_min\":%.3f,\"streams_raw_ns_per_vertex_max\":%.3f}\n",
           streams.median * 1e9 / n, streams.min * 1e9 / n, streams.max * 1e9 / n,
           raw.median * 1e9 / n, raw.min * 1e9 / n, raw.max * 1e9 / n);
    free_parts(c, copies);
    cna_player_free(player);
    cna_model_free(m);
    return 0;
}

int main(int argc, char **argv)
{
    double seconds = BENCH_DEFAULT_SECONDS;
    int runs = BENCH_MIN_RUNS;
    bool json = false;
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = true;
        else argv[kept++] = argv[i];
    }
    if (bench_parse_args(kept, argv, &seconds, &runs)) return 2;
    const char *path = CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb";
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(path, NULL, &m, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return 1;
    }
    const cna_skinning_data *data = cna_model_skinning_data(m);
    cna_player *player = NULL;
    if (!data || cna_player_create(data, NULL, &player, &err) ||
        cna_player_start_clip(player, cna_skinning_data_find_clip(data, "Robot_Walking"), &err) ||
        cna_player_update(player, CNA_TICKS_PER_SECOND / 2, false, true, &err)) {
        fprintf(stderr, "player: %s\n", err.message);
        return 1;
    }
    skin_ctx c;
    memset(&c, 0, sizeof c);
    c.palette = cna_player_skin_transforms(player);
    c.palette_count = (size_t)cna_player_bone_count(player);
    if (cna_skinning_layout_canonical(52, &c.layout, &err)) return 1;
    unsigned char *copies[MAX_PARTS];
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t p = 0; p < m->meshes[i].part_count; p++) {
            const cna_model_part *part = &m->meshes[i].parts[p];
            if (m->meshes[i].skin < 0 || part->declaration.stride != 52 || c.part_count == MAX_PARTS)
                continue;
            const size_t bytes = part->vertex_count * 52;
            copies[c.part_count] = malloc(bytes);
            c.out[c.part_count] = malloc(bytes);
            c.xyz[c.part_count] = malloc(3 * part->vertex_count * sizeof(float));
            c.nrm[c.part_count] = malloc(3 * part->vertex_count * sizeof(float));
            if (!copies[c.part_count] || !c.out[c.part_count] || !c.xyz[c.part_count] ||
                !c.nrm[c.part_count])
                return 1;
            memcpy(copies[c.part_count], part->vertices, bytes);
            c.in[c.part_count] = copies[c.part_count];
            c.vertices[c.part_count] = part->vertex_count;
            c.total_vertices += part->vertex_count;
            c.part_count++;
        }
    const int best = cna__skin_fast_kernel();
    if (json) return skinning_json(&c, copies, best, runs, seconds, player, m);
    printf("RobotExpressive: %zu skinned parts, %zu vertices, stride 52, palette of %zu; "
           "fast path kernel here: %s\n",
           c.part_count, c.total_vertices, c.palette_count, cna__skin_fast_kernel_name(best));
    /* the other kernels this machine runs, best first */
    int others[2], other_count = 0;
    for (int k = best - 1; k >= 0; k--)
        if (cna__skin_fast_kernel_supported(k)) others[other_count++] = k;
    char head[3][40];
    snprintf(head[0], sizeof head[0], "fast pos+normal (%s)", cna__skin_fast_kernel_name(best));
    for (int o = 0; o < other_count; o++)
        snprintf(head[1 + o], sizeof head[1 + o], "fast, %s kernel",
                 cna__skin_fast_kernel_name(others[o]));
    printf("%-10s | %-22s | %-24s | %-22s | %-22s", "influences", "reference pos+normal", head[0],
           "streams pos+normal", "streams, not renorm.");
    for (int o = 0; o < other_count; o++) printf(" | %-24s", head[1 + o]);
    printf(" | %-22s | %-22s | %-14s\n", "reference positions", "memcpy", "fast, hot best");
    printf("%-10s | %-22s | %-24s | %-22s | %-22s", "", "ns/vertex [min-max]",
           "ns/vertex [min-max]", "ns/vertex [min-max]", "ns/vertex [min-max]");
    for (int o = 0; o < other_count; o++) printf(" | %-24s", "ns/vertex [min-max]");
    printf(" | %-22s | %-22s | %-14s\n", "ns/vertex [min-max]", "ns/vertex [min-max]",
           "ns/vertex");
    const double n = (double)c.total_vertices;
    const int ks[4] = {0, 1, 2, 4};
    for (int t = 0; t < 4; t++) {
        set_influences(&c, copies, ks[t]);
        const bench_stats full = bench_measure(skin_all, &c, runs, seconds);
        const bench_stats fast = bench_measure(skin_fast, &c, runs, seconds);
        const bench_stats streams = bench_measure(skin_streams, &c, runs, seconds);
        const bench_stats raw = bench_measure(skin_streams_raw, &c, runs, seconds);
        bench_stats other[2];
        for (int o = 0; o < other_count; o++) {
            c.kernel = others[o];
            other[o] = bench_measure(skin_kernel, &c, runs, seconds);
        }
        const bench_stats pos = bench_measure(skin_positions, &c, runs, seconds);
        const bench_stats copy = bench_measure(copy_all, &c, runs, seconds);
        const double hot = fast_hot_best(&c, 2000);
        char label[16], a[48], f[48], b[48], d[48], st[48], sr[48];
        snprintf(label, sizeof label, ks[t] ? "%d" : "file", ks[t]);
        snprintf(a, sizeof a, "%.2f [%.2f-%.2f]", full.median * 1e9 / n, full.min * 1e9 / n, full.max * 1e9 / n);
        snprintf(f, sizeof f, "%.2f [%.2f-%.2f]", fast.median * 1e9 / n, fast.min * 1e9 / n, fast.max * 1e9 / n);
        snprintf(b, sizeof b, "%.2f [%.2f-%.2f]", pos.median * 1e9 / n, pos.min * 1e9 / n, pos.max * 1e9 / n);
        snprintf(d, sizeof d, "%.3f [%.3f-%.3f]", copy.median * 1e9 / n, copy.min * 1e9 / n, copy.max * 1e9 / n);
        snprintf(st, sizeof st, "%.2f [%.2f-%.2f]", streams.median * 1e9 / n,
                 streams.min * 1e9 / n, streams.max * 1e9 / n);
        snprintf(sr, sizeof sr, "%.2f [%.2f-%.2f]", raw.median * 1e9 / n, raw.min * 1e9 / n,
                 raw.max * 1e9 / n);
        printf("%-10s | %-22s | %-24s | %-22s | %-22s", label, a, f, st, sr);
        for (int o = 0; o < other_count; o++) {
            char e[48];
            snprintf(e, sizeof e, "%.2f [%.2f-%.2f]", other[o].median * 1e9 / n,
                     other[o].min * 1e9 / n, other[o].max * 1e9 / n);
            printf(" | %-24s", e);
        }
        printf(" | %-22s | %-22s | %-14.2f\n", b, d, hot * 1e9 / n);
        fflush(stdout);
    }
    free_parts(&c, copies);
    cna_player_free(player);
    cna_model_free(m);
    return 0;
}
