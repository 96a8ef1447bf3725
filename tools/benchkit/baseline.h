/*
 * tools/benchkit/baseline.h — the plain baseline player, and the
 * same-run comparison of cna_player against it.
 *
 * The baseline is the spec's AnimationPlayer written the plain way, one
 * character at a time: a linear search for the bracketing keys from the
 * first key on every sample (the spec's SampleTrack), lerp/slerp, a scalar
 * T · R · S composition and a scalar triple-loop 4x4 multiply (no cglm, no
 * SIMD), the bind pose copied and every bone composed each frame. It gives
 * the same results as cna_player up to float rounding (baseline_check()
 * measures the largest difference); every benchmark figure is reported with
 * baseline_ratio = baseline time / our time, both measured in the same run.
 *
 * Not part of the library: benchmark code only (bench/ programs and `cna bench`).
 *
 * Usage:
 *   baseline_player *b = baseline_player_create(&data);
 *   baseline_player_start_clip(b, clip);
 *   baseline_player_update(b, ticks, true, true);     // same arguments as cna_player_update
 *   const cna_mat4 *skin = baseline_player_skin(b);
 *   baseline_player_free(b);
 */
#ifndef CNA_BENCH_COMMON_BASELINE_H
#define CNA_BENCH_COMMON_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cna/anim.h"
#include "cna/player.h"
#include "benchkit/bench.h"

typedef struct baseline_player baseline_player;

/* NULL when out of memory or data is NULL; the data must outlive the player. */
baseline_player *baseline_player_create(const cna_skinning_data *data);
void baseline_player_free(baseline_player *player);
/* Start a clip (NULL: none) at position 0. */
void baseline_player_start_clip(baseline_player *player, const cna_clip *clip);
/* The spec's Update(time, relative, loop): position, then every bone's local,
 * world and skin transform. */
void baseline_player_update(baseline_player *player, int64_t ticks, bool relative, bool loop);
int64_t baseline_player_position(const baseline_player *player);
const cna_mat4 *baseline_player_local(const baseline_player *player);
const cna_mat4 *baseline_player_world(const baseline_player *player);
const cna_mat4 *baseline_player_skin(const baseline_player *player);

/* Plays `clip` for `frames` frames of `step` ticks (looping) on a cna_player
 * and a baseline player side by side; returns the largest difference, over
 * every frame and every element of the local, world and skin matrices, of
 * |ours - baseline| / max(1, |ours|); a negative value when a player could
 * not be created. */
double baseline_check(const cna_skinning_data *data, const cna_clip *clip, int frames,
                      int64_t step);

/* One player figure: `characters` characters of one skeleton playing `clip`
 * (character i starts at phase i/characters of the clip), each advanced by
 * `step` ticks (looping) per frame. */
typedef struct baseline_figure {
    int32_t joints;
    cna_sampling sampling; /* of our players (cna_player_set_sampling) */
    size_t characters;
    bench_stats ours;      /* seconds per frame of all characters: cna_player_update each */
    bench_stats lanes;     /* the same players by one cna_crowd_update on a one-thread crowd,
                              which samples runs of players of one clip in vector lanes */
    bench_stats baseline;  /* the same with baseline_player_update */
    double ours_ns_per_character_frame;     /* ours.median / characters, in ns */
    double lanes_ns_per_character_frame;    /* lanes.median / characters */
    double ours_ns_per_joint;               /* ... / joints */
    double baseline_ns_per_character_frame;
    double baseline_ratio;                  /* baseline.median / ours.median */
} baseline_figure;

/* Measure one figure (bench_measure with runs, seconds; both players in the
 * same call), our players sampling as `sampling` (the baseline always
 * slerps). Returns 0, or -1 when out of memory or a player refused. */
int baseline_measure(const cna_skinning_data *data, const cna_clip *clip, size_t characters,
                     int64_t step, cna_sampling sampling, int runs, double seconds,
                     baseline_figure *out);

/* Print the figures of one clip: a text table row per figure, or with json
 * one JSON object on one line: model, clip, joints, sampling ("exact" or
 * "fast"), characters (of `many`),
 * ns_per_character_frame (+ _min, _max), ns_per_joint, lanes_ns_per_character_frame
 * (+ _min, _max), baseline_ratio,
 * baseline_ns_per_character_frame, runs, seconds_per_run, and the same for
 * one character under "one_character". `one` may equal `many`. */
void baseline_print(FILE *out, const char *model, const char *clip, const baseline_figure *one,
                    const baseline_figure *many, bool json);
/* The header line of the text table. */
void baseline_print_header(FILE *out);

#endif
