/*
 * Players in lanes against one by one, in one process: N players of one
 * skeleton and clip (player i at phase i/N; 1/60 s per frame, looping),
 * updated alternately by cna_player_update on each (one by one) and by one
 * cna_crowd_update on a one-thread crowd (which poses players of one
 * skeleton and clip in vector lanes: include/cna/crowd.h), sweep after
 * sweep of 20 frames; each side's fastest sweep is kept. Alternating in one
 * process makes the ratio hold on a shared machine, where separate runs
 * move by 20 %. Both sides give the same bits
 * (tests/anim/test_player_lanes.c).
 *
 * Usage: bench_player_lanes [--characters N] [--sweeps N] [--clip NAME] [FILE...]
 * (default: 1000 characters, 40 sweeps, RobotExpressive's Robot_Walking;
 * a FILE without --clip plays its first clip). Prints one line per file:
 * ns per character-frame each way and lanes / one by one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "benchkit/bench.h"

#define ROBOT CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb"

enum { FRAMES_PER_SWEEP = 20 };

static int bench_file(const char *path, const char *clip_name, size_t n, int sweeps)
{
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_any(path, NULL, &m, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return -1;
    }
    const cna_skinning_data *d = cna_model_skinning_data(m);
    const cna_clip *clip = d && clip_name ? cna_skinning_data_find_clip(d, clip_name)
                                          : (d && d->clip_count > 0 ? &d->clips[0] : NULL);
    if (!clip) {
        fprintf(stderr, "%s: no skin, or no clip %s\n", path, clip_name ? clip_name : "at all");
        cna_model_free(m);
        return -1;
    }
    cna_player **players = calloc(n, sizeof *players);
    cna_crowd *crowd = NULL;
    int rc = players && !cna_crowd_create(NULL, &crowd, NULL) ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (cna_player_create(d, NULL, &players[i], NULL) || cna_player_start_clip(players[i], clip, NULL) ||
            cna_player_update(players[i], (int64_t)((double)clip->duration * (double)i / (double)n), false, true,
                              NULL))
            rc = -1;
    const int64_t step = cna_ticks_from_seconds(1.0 / 60);
    double best[2] = {1e30, 1e30};
    for (int s = 0; rc == 0 && s < sweeps; s++)
        for (int lanes = 0; lanes < 2; lanes++) {
            const double t0 = bench_now();
            for (int f = 0; f < FRAMES_PER_SWEEP; f++) {
                if (lanes) {
                    if (cna_crowd_update(crowd, players, n, step, true, true, NULL)) rc = -1;
                } else {
                    for (size_t i = 0; i < n; i++)
                        if (cna_player_update(players[i], step, true, true, NULL)) rc = -1;
                }
            }
            const double ns = (bench_now() - t0) * 1e9 / FRAMES_PER_SWEEP / (double)n;
            if (ns < best[lanes]) best[lanes] = ns;
            bench_keep(cna_player_skin_transforms(players[n - 1]));
        }
    if (rc == 0)
        printf("%s %s, %d joints, %zu characters: one by one %.1f, lanes %.1f ns/char-frame "
               "(fastest of %d sweeps), lanes / one by one %.3f\n",
               path, clip->name ? clip->name : "", (int)d->bone_count, n, best[0], best[1], sweeps,
               best[1] / best[0]);
    else
        fprintf(stderr, "%s: could not create or update %zu players\n", path, n);
    for (size_t i = 0; players && i < n; i++) cna_player_free(players[i]);
    free(players);
    cna_crowd_free(crowd);
    cna_model_free(m);
    return rc;
}

int main(int argc, char **argv)
{
    size_t n = 1000;
    int sweeps = 40;
    const char *clip = NULL;
    int files = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "--characters") || !strcmp(argv[i], "--sweeps") || !strcmp(argv[i], "--clip")) &&
            i + 1 < argc) {
            const char *v = argv[++i];
            if (!strcmp(argv[i - 1], "--clip")) {
                clip = v;
                continue;
            }
            char *end = NULL;
            const long x = strtol(v, &end, 10);
            if (!end || *end || x < 1 || x > 1000000) {
                fprintf(stderr, "%s: %s is not a count in 1..1000000\n", argv[i - 1], v);
                return 2;
            }
            if (!strcmp(argv[i - 1], "--characters"))
                n = (size_t)x;
            else
                sweeps = (int)x;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: %s [--characters N] [--sweeps N] [--clip NAME] [FILE...]\n", argv[0]);
            return 2;
        } else {
            files++;
        }
    }
    /* the options apply to every file, wherever they stand */
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            i++;
            continue;
        }
        rc |= bench_file(argv[i], clip, n, sweeps);
    }
    if (files == 0) rc = bench_file(ROBOT, clip ? clip : "Robot_Walking", n, sweeps);
    return rc ? 1 : 0;
}
