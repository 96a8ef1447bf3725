/*
 * Player throughput: cna_player_update (position, sampling, T·R·S
 * composition, world and skin transforms) in ns per character-frame and ns
 * per joint, for 1 character and N characters (default 1000), beside the
 * plain baseline player of tools/benchkit/baseline.h measured in the same run
 * (ratio = baseline time / our time).
 *
 * Models: RobotExpressive (43 joints; every clip of its first skin, 24 keys
 * per second on every joint), a synthetic 19-joint humanoid rig (every joint
 * tracked, 30 keys per second, 2 s walk-like clip), RiggedSimple and
 * SimpleSkin. Characters advance by 1/60 s per frame, looping; character i
 * starts at phase i/N of the clip. Before measuring, each model's first clip
 * is played 600 frames on both players and the largest relative difference
 * is printed (must be <= 1e-5).
 * Each figure is the median of >= 5 runs of >= 0.5 s, with min-max
 * (tools/benchkit/bench.h).
 *
 * Crowd: N RobotExpressive characters (walking) advanced by one
 * cna_crowd_update per frame on 1 thread and on 2 threads (cna/crowd.h);
 * throughput ratio = 1-thread time / 2-thread time.
 *
 * Usage: bench_player [--seconds S] [--runs N] [--characters N] [--json] [--clip NAME]
 *                     [--crowd-only]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "benchkit/baseline.h"

enum { RIG_BONES = 19, RIG_KEYS = 61 };

/* A humanoid: pelvis, spine, chest, neck, head, two arms of four joints, two legs of three. */
typedef struct rig {
    int32_t hierarchy[RIG_BONES];
    cna_mat4 bind[RIG_BONES], inverse_bind[RIG_BONES];
    cna_keyframe keys[RIG_BONES][RIG_KEYS];
    cna_bone_track tracks[RIG_BONES];
    cna_clip clip;
    cna_skinning_data data;
} rig;

static void rig_init(rig *r)
{
    static const int32_t parents[RIG_BONES] = {-1, 0, 1, 2, 3, 2, 5, 6, 7, 2, 9, 10, 11, 0, 13, 14, 0, 16, 17};
    memcpy(r->hierarchy, parents, sizeof parents);
    cna_mat4 world[RIG_BONES];
    for (int b = 0; b < RIG_BONES; b++) {
        const cna_vec3 offset = cna_vec3_make(b >= 5 && b <= 8 ? 0.2f : (b >= 9 && b <= 12 ? -0.2f : 0.0f),
                                              b >= 13 ? -0.4f : 0.3f, 0.0f);
        cna_mat4_translation(&r->bind[b], offset);
        if (parents[b] >= 0)
            cna_mat4_mul(&world[b], &world[parents[b]], &r->bind[b]);
        else
            world[b] = r->bind[b];
        cna_mat4_inverse(&r->inverse_bind[b], &world[b]);
        for (int k = 0; k < RIG_KEYS; k++) {
            const float phase = (float)k / (float)(RIG_KEYS - 1) * 6.2831853f;
            const float angle = 0.4f * sinf(phase + 0.3f * (float)b);
            const cna_quat q = cna_quat_make(sinf(angle * 0.5f), 0.1f * sinf(phase), 0.0f,
                                             cosf(angle * 0.5f));
            r->keys[b][k] = cna_keyframe_make_trs((int64_t)k * CNA_TICKS_PER_SECOND / 30, offset,
                                                  cna_quat_normalize(q), cna_vec3_one());
        }
        r->tracks[b] = cna_bone_track_make(b, r->keys[b], RIG_KEYS);
    }
    r->clip = cna_clip_make("Walk (synthetic)", (int64_t)(RIG_KEYS - 1) * CNA_TICKS_PER_SECOND / 30,
                            r->tracks, RIG_BONES);
    r->data = cna_skinning_data_make(RIG_BONES, r->hierarchy, r->bind, r->inverse_bind);
    r->data.clips = &r->clip;
    r->data.clip_count = 1;
}

typedef struct options {
    double seconds;
    int runs;
    size_t characters;
    bool json;
    const char *clip;
    bool crowd_only;
} options;

static const int64_t STEP = CNA_TICKS_PER_SECOND / 60;

static int bench_data(const char *model, const cna_skinning_data *data, const options *o)
{
    if (data->clip_count > 0) {
        const double diff = baseline_check(data, &data->clips[0], 600, STEP);
        fprintf(o->json ? stderr : stdout, "# %s: baseline vs cna_player, largest relative difference %.3g%s\n",
                model, diff, diff >= 0.0 && diff <= 1e-5 ? "" : "  ** ABOVE 1e-5 **");
    }
    for (size_t c = 0; c < data->clip_count; c++) {
        const cna_clip *clip = &data->clips[c];
        if (o->clip && (!clip->name || strcmp(o->clip, clip->name))) continue;
        baseline_figure one, many;
        if (baseline_measure(data, clip, 1, STEP, CNA_SAMPLING_EXACT, o->runs, o->seconds, &one) ||
            baseline_measure(data, clip, o->characters, STEP, CNA_SAMPLING_EXACT, o->runs, o->seconds, &many)) {
            fprintf(stderr, "%s: could not create the players\n", model);
            return -1;
        }
        baseline_print(stdout, model, clip->name ? clip->name : "", &one, &many, o->json);
    }
    return 0;
}

typedef struct crowd_ctx {
    cna_crowd *crowd;
    cna_player **players;
    size_t count;
} crowd_ctx;

static void crowd_step(void *p)
{
    crowd_ctx *c = p;
    cna_crowd_update(c->crowd, c->players, c->count, STEP, true, true, NULL);
    bench_keep(c->players);
}

/* 1 thread vs 2 threads on the same players. */
static int bench_crowd(const char *model, const cna_skinning_data *data, const cna_clip *clip,
                       const options *o)
{
    crowd_ctx c = {NULL, calloc(o->characters, sizeof(cna_player *)), o->characters};
    int rc = c.players ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < c.count; i++)
        if (cna_player_create(data, NULL, &c.players[i], NULL) ||
            cna_player_start_clip(c.players[i], clip, NULL) ||
            cna_player_update(c.players[i], (int64_t)((double)clip->duration * (double)i / (double)c.count),
                              false, true, NULL))
            rc = -1;
    bench_stats s[2];
    for (uint32_t t = 1; rc == 0 && t <= 2; t++) {
        cna_crowd_options co = {{NULL, NULL, NULL}, t};
        if (cna_crowd_create(&co, &c.crowd, NULL)) {
            rc = -1;
            break;
        }
        s[t - 1] = bench_measure(crowd_step, &c, o->runs, o->seconds);
        cna_crowd_free(c.crowd);
    }
    if (rc == 0) {
        const double n = (double)c.count, j = (double)data->bone_count;
        if (o->json) {
            printf("{\"model\":\"%s\",\"clip\":\"%s\",\"joints\":%d,\"characters\":%zu,\"crowd\":true,"
                   "\"threads_1_ns_per_character_frame\":%.2f,\"threads_1_min\":%.2f,\"threads_1_max\":%.2f,"
                   "\"threads_2_ns_per_character_frame\":%.2f,\"threads_2_min\":%.2f,\"threads_2_max\":%.2f,"
                   "\"throughput_ratio\":%.3f}\n",
                   model, clip->name, (int)data->bone_count, c.count, s[0].median * 1e9 / n,
                   s[0].min * 1e9 / n, s[0].max * 1e9 / n, s[1].median * 1e9 / n, s[1].min * 1e9 / n,
                   s[1].max * 1e9 / n, s[0].median / s[1].median);
        } else {
            printf("crowd %s %s, %zu characters: 1 thread %.1f ns/char-frame [%.1f-%.1f] (%.2f ns/joint), "
                   "2 threads %.1f [%.1f-%.1f] (%.2f ns/joint); throughput 2 vs 1 thread: %.2fx\n",
                   model, clip->name, c.count, s[0].median * 1e9 / n, s[0].min * 1e9 / n,
                   s[0].max * 1e9 / n, s[0].median * 1e9 / n / j, s[1].median * 1e9 / n,
                   s[1].min * 1e9 / n, s[1].max * 1e9 / n, s[1].median * 1e9 / n / j,
                   s[0].median / s[1].median);
        }
    }
    for (size_t i = 0; c.players && i < c.count; i++) cna_player_free(c.players[i]);
    free(c.players);
    return rc;
}

static int bench_file(const char *name, const char *path, const options *o)
{
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(path, NULL, &m, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return -1;
    }
    const cna_skinning_data *data = cna_model_skinning_data(m);
    int rc = data && !o->crowd_only ? bench_data(name, data, o) : 0;
    const cna_clip *walk = data ? cna_skinning_data_find_clip(data, "Robot_Walking") : NULL;
    if (walk) rc |= bench_crowd(name, data, walk, o);
    cna_model_free(m);
    return rc;
}

int main(int argc, char **argv)
{
    options o = {BENCH_DEFAULT_SECONDS, BENCH_MIN_RUNS, 1000, false, NULL, false};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            o.seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            o.runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--characters") && i + 1 < argc)
            o.characters = (size_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--clip") && i + 1 < argc)
            o.clip = argv[++i];
        else if (!strcmp(argv[i], "--json"))
            o.json = true;
        else if (!strcmp(argv[i], "--crowd-only"))
            o.crowd_only = true;
        else {
            fprintf(stderr, "usage: %s [--seconds S] [--runs N] [--characters N] [--json] [--clip NAME] [--crowd-only]\n",
                    argv[0]);
            return 2;
        }
    }
    if (o.runs < BENCH_MIN_RUNS) o.runs = BENCH_MIN_RUNS;
    if (o.characters == 0) o.characters = 1;
    if (!o.json) baseline_print_header(stdout);
    int rc = bench_file("RobotExpressive", CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb", &o);
    if (o.crowd_only) return rc ? 1 : 0;
    static rig r;
    rig_init(&r);
    rc |= bench_data("rig19", &r.data, &o);
    rc |= bench_file("RiggedSimple", CNA_TEST_DATA_DIR "/corpus/valid/RiggedSimple/rigged_simple.gltf", &o);
    rc |= bench_file("SimpleSkin", CNA_TEST_DATA_DIR "/corpus/valid/SimpleSkin/simple_skin.gltf", &o);
    return rc ? 1 : 0;
}
