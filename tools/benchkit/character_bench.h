/*
 * tools/benchkit/character_bench.h — the whole character against one player.
 *
 * A figure poses `characters` characters of one loaded model playing one
 * animation (character i starts at phase i/characters), each advanced by
 * `step` ticks per frame and posed (cna_character_update: every skin, the
 * scene-node clip, morph weights, absolute transforms), and, in the same
 * runs, as many cna_players of the model's first skin playing that
 * animation's clip of that skin (cna_player_update). Runs of the two
 * alternate, so both see the same machine. Timings live here and in
 * docs/benchmarks.md, never in tests.
 */
#ifndef CNA_BENCH_COMMON_CHARACTER_BENCH_H
#define CNA_BENCH_COMMON_CHARACTER_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include "cna/cna.h"
#include "benchkit/bench.h"

typedef struct character_figure {
    size_t characters;
    cna_sampling sampling;  /* of the characters and the players */
    bench_stats character;  /* seconds per frame of all characters */
    bench_stats player;     /* seconds per frame of all players */
    double ns_per_character_frame;
    double player_ns_per_character_frame;
    size_t bytes_per_character;  /* cna_character_size_bytes */
    size_t model_bytes;          /* cna_model_size_bytes */
} character_figure;

/* Measure one figure. Returns 0, or -1 when a character or player cannot be
 * created or posed (out of memory, a model without that animation). */
int character_bench_measure(const cna_model *model, size_t animation, size_t characters,
                            int64_t step, cna_sampling sampling, int runs, double seconds,
                            character_figure *out);

/* One text line, or with json one JSON object on one line: "scope":
 * "character", model, clip, sampling, characters, ns_per_character_frame (+ _min,
 * _max), player_ns_per_character_frame (+ _min, _max), ratio (character /
 * player), bytes_per_character, model_bytes, runs. */
void character_bench_print(FILE *out, const char *model, const char *clip,
                           const character_figure *f, bool json);

#endif
