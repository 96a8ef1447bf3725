/*
 * tools/bench.c — `cna bench FILE [--characters N] [--seconds S] [--runs N]
 * [--clip NAME] [--sampling exact|fast] [--json]`: time the player on a model's clips.
 *
 * Per clip of the model's first skin: cna_player_update (position, sampling,
 * composition, world and skin transforms) in ns per character-frame and ns
 * per joint, for 1 character and for N characters, beside a baseline player
 * written plainly (linear key search, scalar products) measured in the same
 * run (tools/benchkit/baseline.h; ratio = baseline time / our time); then the
 * whole character (every skin, the scene-node clip, morph weights;
 * tools/benchkit/character_bench.h) beside one player of the first skin. Also
 * the model's import time (cna_model_load_any + cna_model_free; a .cnb file
 * is read as one). Each figure is the median of >= 5 runs of >= S seconds
 * with min-max (tools/benchkit/bench.h).
 *
 * Exit codes: 0 measured, 1 the file is refused or a player could not be
 * created, 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cna/cna.h"
#include "benchkit/baseline.h"
#include "benchkit/character_bench.h"

void cna_cli_bench_help(FILE *out)
{
    fprintf(out,
            "usage: cna bench FILE [--characters N] [--seconds S] [--runs N] [--clip NAME] [--json]\n"
            "                      [--sampling exact|fast] [--player-only] [--asset-root DIR]\n                      [--no-textures] [--max-decoded-size N]\n"
            "\n"
            "Loads FILE (.gltf, .glb, or a .cnb from cna convert) and times, for every clip of its first skin, the\n"
            "player's update (position, key sampling, T*R*S composition, world and skin\n"
            "transforms) for 1 character and for N characters (character i starts at phase\n"
            "i/N; 1/60 s per frame, looping), one at a time and by one cna_crowd_update on\n"
            "one thread (\"lanes\": runs of players of one clip sampled in vector lanes),\n"
            "beside a baseline player written plainly (linear key search, scalar\n"
            "composition and multiply) measured in the same run.\n"
            "Then, per clip, the whole character (every skin, the scene-node clip, morph\n"
            "weights) beside one player of the first skin, for 1 and for N characters.\n"
            "Each figure is the median of at least 5 runs of at least S seconds, with the\n"
            "fastest and slowest run. Also prints the import time of FILE.\n"
            "\n"
            "options:\n"
            "  --characters N   characters of the second figure (default 1000)\n"
            "  --seconds S      minimum seconds per run (default 0.5)\n"
            "  --runs N         runs per figure (default and minimum 5)\n"
            "  --clip NAME      only this clip (an animation's name; exit status 1 when the\n"
            "                   file has none of that name)\n"
            "  --sampling M     how the players and characters interpolate key rotations:\n"
            "                   exact (the default) or fast (CNA_SAMPLING_FAST; the baseline\n"
            "                   always slerps)\n"
            "  --json           one JSON object per clip per line: model, clip, joints,\n"
            "                   sampling, characters, ns_per_character_frame (+ _min, _max),\n"
            "                   ns_per_joint (+ _min, _max), lanes_ns_per_character_frame\n"
            "                   (+ _min, _max), baseline_ratio,\n"
            "                   baseline_ns_per_character_frame (+ _min, _max), runs, and\n"
            "                   the same for 1 character under \"one_character\"; then the\n"
            "                   character lines, \"scope\":\"character\": model, clip,\n"
            "                   sampling, characters, ns_per_character_frame (+ _min, _max),\n"
            "                   player_ns_per_character_frame (+ _min, _max), ratio\n"
            "                   (character / player), bytes_per_character, model_bytes,\n"
            "                   runs; the import time then goes to stderr\n"
            CNA_CLI_ASSET_ROOT_HELP(" ", "                   ")
            CNA_CLI_CLIPS_HELP("     ", "                   ")
            CNA_CLI_NO_TEXTURES_HELP(" ", "                   ")
            CNA_CLI_MAX_DECODED_HELP(" ", "                   ")
            "  -h, --help       print this help\n"
            "\n"
            "exit status: 0 measured; 1 the file is refused (\"error: FILE: message\");\n"
            "2 usage error.\n");
}

typedef struct bench_args {
    const char *file;
    size_t characters;
    double seconds;
    int runs;
    const char *clip;
    const char *asset_root;  /* --asset-root; NULL when not given */
    bool no_textures;        /* --no-textures */
    size_t max_decoded;      /* --max-decoded-size; 0 = the default */
    bool json;
    bool player_only;        /* --player-only: no character figures, no import time */
    cna_sampling sampling;   /* --sampling; default exact */
} bench_args;

static int parse_number(const cna_cli_command *cmd, const char *option, const char *text,
                        double min, double *out)
{
    char *end = NULL;
    const double v = strtod(text, &end);
    if (!end || *end || end == text || !(v >= min) || v > 1e9)
        return cna_cli_usage_error(cmd, "%s: '%s' is not a number >= %g", option, text, min);
    *out = v;
    return -1;
}

static int parse_args(const cna_cli_command *cmd, int argc, char **argv, bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->characters = 1000;
    a->seconds = BENCH_DEFAULT_SECONDS;
    a->runs = BENCH_MIN_RUNS;
    a->sampling = CNA_SAMPLING_EXACT;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int md = cna_cli_max_decoded_option(cmd, argc, argv, &i, &a->max_decoded);
        if (md == -1) continue;
        if (md >= 0) return md;
        double v = 0.0;
        int u;
        if (!strcmp(arg, "--json")) {
            a->json = true;
        } else if (!strcmp(arg, "--player-only")) {
            a->player_only = true;
        } else if (!strcmp(arg, "--no-textures")) {
            a->no_textures = true;
        } else if (!strcmp(arg, "--characters") || !strcmp(arg, "--seconds") ||
                   !strcmp(arg, "--runs") || !strcmp(arg, "--clip") || !strcmp(arg, "--asset-root") ||
                   !strcmp(arg, "--sampling")) {
            if (i + 1 >= argc) return cna_cli_usage_error(cmd, "%s needs a value", arg);
            const char *value = argv[++i];
            if (!strcmp(arg, "--clip")) {
                a->clip = value;
                continue;
            }
            if (!strcmp(arg, "--asset-root")) {
                a->asset_root = value;
                continue;
            }
            if (!strcmp(arg, "--sampling")) {
                if (!strcmp(value, "exact"))
                    a->sampling = CNA_SAMPLING_EXACT;
                else if (!strcmp(value, "fast"))
                    a->sampling = CNA_SAMPLING_FAST;
                else
                    return cna_cli_usage_error(cmd, "--sampling: '%s' is not exact or fast", value);
                continue;
            }
            const double min = !strcmp(arg, "--seconds") ? 0.001 : 1.0;
            if ((u = parse_number(cmd, arg, value, min, &v)) >= 0) return u;
            if (!strcmp(arg, "--characters"))
                a->characters = (size_t)v;
            else if (!strcmp(arg, "--seconds"))
                a->seconds = v;
            else
                a->runs = (int)v;
        } else if (arg[0] == '-' && arg[1]) {
            return cna_cli_usage_error(cmd, "unknown option '%s'", arg);
        } else if (a->file) {
            return cna_cli_usage_error(cmd, "unexpected argument '%s'", arg);
        } else {
            a->file = arg;
        }
    }
    if (!a->file) return cna_cli_usage_error(cmd, "missing FILE");
    if (a->runs < BENCH_MIN_RUNS) a->runs = BENCH_MIN_RUNS;
    return -1;
}

typedef struct load_ctx {
    const char *path;
    const cna_import_options *opts;
    int failed;
} load_ctx;

static void load_once(void *p)
{
    load_ctx *c = p;
    cna_model *m = NULL;
    if (cna_model_load_any(c->path, c->opts, &m, NULL)) c->failed = 1;
    cna_model_free(m);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int run_bench(const bench_args *a)
{
    cna_model *m = NULL;
    cna_error err;
    if (cna_cli_probe_file(a->file, true) == CNA_CLI_FILE_UNUSABLE) return CNA_CLI_EXIT_FAILURE;
    cna_import_options io;
    memset(&io, 0, sizeof io);
    io.gltf.asset_root = a->asset_root;
    io.gltf.no_textures = a->no_textures;
    io.gltf.max_decoded_size = a->max_decoded;
    if (cna_model_load_any(a->file, &io, &m, &err)) return cna_cli_report_error(a->file, &err);
    if (cna_cli_clips_bind(&m, NULL, &err) != CNA_OK) { /* --clips: their animations are played too */
        cna_model_free(m);
        return cna_cli_report_error(NULL, &err);
    }
    if (a->clip) {
        /* Clip i of every skin is animation i: the same names as cna pose --animation. */
        size_t i = 0;
        while (i < m->animation_count && strcmp(cna_model_animation_name(m, i), a->clip) != 0) i++;
        if (i == m->animation_count) {
            cna_cli_no_animation(a->file, NULL, a->clip, m);
            cna_model_free(m);
            return CNA_CLI_EXIT_FAILURE;
        }
    }
    const char *name = base_name(a->file);
    if (!a->player_only) {
        load_ctx lc = {a->file, &io, 0};
        const bench_stats load = bench_measure(load_once, &lc, a->runs, a->seconds);
        fprintf(a->json ? stderr : stdout, "%s%s: import (cna_model_load_any + free) %.3f ms [%.3f-%.3f]\n",
                a->json ? "# " : "", name, load.median * 1e3, load.min * 1e3, load.max * 1e3);
    }
    const cna_skinning_data *data = cna_model_skinning_data(m);
    if (!data) {
        fprintf(a->json ? stderr : stdout, "%s%s: no skin, nothing to play\n", a->json ? "# " : "",
                name);
        cna_model_free(m);
        return CNA_CLI_EXIT_OK;
    }
    if (!a->json) baseline_print_header(stdout);
    const int64_t step = CNA_TICKS_PER_SECOND / 60;
    int rc = CNA_CLI_EXIT_OK;
    for (size_t c = 0; c < data->clip_count; c++) {
        const cna_clip *clip = &data->clips[c];
        if (a->clip && (!clip->name || strcmp(a->clip, clip->name))) continue;
        baseline_figure one, many;
        if (baseline_measure(data, clip, 1, step, a->sampling, a->runs, a->seconds, &one) ||
            baseline_measure(data, clip, a->characters, step, a->sampling, a->runs, a->seconds, &many)) {
            fprintf(stderr, "error: %s: could not create %zu players\n", a->file, a->characters);
            rc = CNA_CLI_EXIT_FAILURE;
            break;
        }
        baseline_print(stdout, name, clip->name ? clip->name : "", &one, &many, a->json);
        fflush(stdout); /* each clip's line as it is measured, into a pipe or a log too */
        /* the whole character (every skin, the rigid clip, morph weights) beside
         * one player of the first skin, 1 and N characters */
        if (c < m->animation_count && !a->player_only) {
            character_figure cf;
            const size_t counts[2] = {1, a->characters};
            for (int k = 0; k < (a->characters == 1 ? 1 : 2); k++) {
                if (character_bench_measure(m, c, counts[k], step, a->sampling, a->runs, a->seconds, &cf)) {
                    fprintf(stderr, "error: %s: could not pose %zu characters\n", a->file, counts[k]);
                    rc = CNA_CLI_EXIT_FAILURE;
                    break;
                }
                character_bench_print(stdout, name, clip->name ? clip->name : "", &cf, a->json);
                fflush(stdout);
            }
            if (rc != CNA_CLI_EXIT_OK) break;
        }
    }
    cna_model_free(m);
    return rc;
}

int cna_cli_bench_run(int argc, char **argv)
{
    const cna_cli_command *cmd = cna_cli_find("bench");
    for (int i = 1; i < argc; i++)
        if (cna_cli_is_help(argv[i])) {
            cna_cli_bench_help(stdout);
            return CNA_CLI_EXIT_OK;
        }
    bench_args a;
    const int u = parse_args(cmd, argc, argv, &a);
    if (u >= 0) return u;
    return run_bench(&a);
}
