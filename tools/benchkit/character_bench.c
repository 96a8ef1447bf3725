/*
 * The whole character against one player (tools/benchkit/character_bench.h).
 */
#include <stdlib.h>
#include <string.h>

#include "benchkit/character_bench.h"

typedef struct crowd_ctx {
    cna_character **characters;
    cna_player **players;
    size_t count;
    int64_t step;
    int failed;
} crowd_ctx;

static void characters_frame(void *p)
{
    crowd_ctx *c = (crowd_ctx *)p;
    for (size_t i = 0; i < c->count; i++) {
        if (cna_character_advance_ticks(c->characters[i], c->step, NULL) ||
            cna_character_pose(c->characters[i], NULL))
            c->failed = 1;
    }
    bench_keep(cna_character_skin_transforms(c->characters[c->count - 1], 0));
}

static void players_frame(void *p)
{
    crowd_ctx *c = (crowd_ctx *)p;
    for (size_t i = 0; i < c->count; i++)
        if (cna_player_update(c->players[i], c->step, true, true, NULL)) c->failed = 1;
    bench_keep(cna_player_skin_transforms(c->players[c->count - 1]));
}

static void free_ctx(crowd_ctx *c)
{
    for (size_t i = 0; i < c->count; i++) {
        if (c->characters) cna_character_free(c->characters[i]);
        if (c->players) cna_player_free(c->players[i]);
    }
    free(c->characters);
    free(c->players);
}

static bench_stats stats_of(double *v, int n)
{
    bench_stats s;
    memset(&s, 0, sizeof s);
    s.runs = n;
    s.min = s.max = v[0];
    for (int i = 1; i < n; i++) {
        if (v[i] < s.min) s.min = v[i];
        if (v[i] > s.max) s.max = v[i];
    }
    s.median = bench_median(v, (size_t)n);
    return s;
}

int character_bench_measure(const cna_model *model, size_t animation, size_t characters,
                            int64_t step, cna_sampling sampling, int runs, double seconds,
                            character_figure *out)
{
    if (!model || characters == 0 || model->skin_count == 0 || animation >= model->animation_count)
        return -1;
    if (runs < BENCH_MIN_RUNS) runs = BENCH_MIN_RUNS;
    if (seconds <= 0) seconds = BENCH_DEFAULT_SECONDS;
    const cna_skinning_data *data = &model->skins[0].data;
    if (animation >= data->clip_count) return -1;
    crowd_ctx c;
    memset(&c, 0, sizeof c);
    c.step = step;
    c.characters = (cna_character **)calloc(characters, sizeof *c.characters);
    c.players = (cna_player **)calloc(characters, sizeof *c.players);
    if (!c.characters || !c.players) {
        free_ctx(&c);
        return -1;
    }
    /* all the characters first, then all the players, so neither set is
     * interleaved with the other in memory */
    const int64_t d = model->node_clips[animation].duration;
    cna_character_options opts;
    memset(&opts, 0, sizeof opts);
    opts.sampling = sampling;
    for (size_t i = 0; i < characters; i++, c.count = i) {
        if (cna_character_create(model, &opts, &c.characters[i], NULL) ||
            cna_character_play(c.characters[i], (long)animation, NULL) ||
            cna_character_seek_ticks(c.characters[i], d > 0 ? (int64_t)((double)d * (double)i / (double)characters) : 0,
                                     NULL)) {
            c.count = i + 1;
            free_ctx(&c);
            return -1;
        }
    }
    c.count = characters;
    for (size_t i = 0; i < characters; i++) {
        if (cna_player_create(data, NULL, &c.players[i], NULL) ||
            cna_player_set_sampling(c.players[i], sampling, NULL) || cna_player_start_clip(c.players[i], &data->clips[animation], NULL) ||
            cna_player_update(c.players[i], d > 0 ? (int64_t)((double)d * (double)i / (double)characters) : 0,
                              false, true, NULL)) {
            free_ctx(&c);
            return -1;
        }
    }
    characters_frame(&c); /* warm-up */
    players_frame(&c);
    double *tc = (double *)calloc((size_t)runs, sizeof(double));
    double *tp = (double *)calloc((size_t)runs, sizeof(double));
    if (!tc || !tp) {
        free(tc);
        free(tp);
        free_ctx(&c);
        return -1;
    }
    for (int r = 0; r < runs; r++) {
        tc[r] = bench_run(characters_frame, &c, seconds, NULL);
        tp[r] = bench_run(players_frame, &c, seconds, NULL);
    }
    memset(out, 0, sizeof *out);
    out->characters = characters;
    out->sampling = sampling == CNA_SAMPLING_FAST ? CNA_SAMPLING_FAST : CNA_SAMPLING_EXACT;
    out->character = stats_of(tc, runs);
    out->player = stats_of(tp, runs);
    out->ns_per_character_frame = out->character.median * 1e9 / (double)characters;
    out->player_ns_per_character_frame = out->player.median * 1e9 / (double)characters;
    out->bytes_per_character = cna_character_size_bytes(c.characters[0]);
    out->model_bytes = cna_model_size_bytes(model);
    const int failed = c.failed;
    free(tc);
    free(tp);
    free_ctx(&c);
    return failed ? -1 : 0;
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        const unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
        else if (ch < 0x20) fprintf(out, "\\u%04x", ch);
        else fputc(ch, out);
    }
    fputc('"', out);
}

void character_bench_print(FILE *out, const char *model, const char *clip, const character_figure *f,
                           bool json)
{
    const double n = (double)f->characters;
    const double ratio = f->player.median > 0 ? f->character.median / f->player.median : 0.0;
    if (!json) {
        fprintf(out,
                "%s %s: character x%zu %.1f ns/frame [%.1f-%.1f], player %.1f [%.1f-%.1f], ratio %.2f; "
                "%zu bytes per character, model %zu bytes\n",
                model, clip, f->characters, f->ns_per_character_frame, f->character.min * 1e9 / n,
                f->character.max * 1e9 / n, f->player_ns_per_character_frame, f->player.min * 1e9 / n,
                f->player.max * 1e9 / n, ratio, f->bytes_per_character, f->model_bytes);
        fflush(out);
        return;
    }
    fputs("{\"scope\":\"character\",\"model\":", out);
    json_string(out, model);
    fputs(",\"clip\":", out);
    json_string(out, clip);
    fprintf(out, ",\"sampling\":\"%s\"", f->sampling == CNA_SAMPLING_FAST ? "fast" : "exact");
    fprintf(out,
            ",\"characters\":%zu,\"ns_per_character_frame\":%.3f,\"ns_per_character_frame_min\":%.3f,"
            "\"ns_per_character_frame_max\":%.3f,\"player_ns_per_character_frame\":%.3f,"
            "\"player_ns_per_character_frame_min\":%.3f,\"player_ns_per_character_frame_max\":%.3f,"
            "\"ratio\":%.4f,\"bytes_per_character\":%zu,\"model_bytes\":%zu,\"runs\":%d}\n",
            f->characters, f->ns_per_character_frame, f->character.min * 1e9 / n, f->character.max * 1e9 / n,
            f->player_ns_per_character_frame, f->player.min * 1e9 / n, f->player.max * 1e9 / n, ratio,
            f->bytes_per_character, f->model_bytes, f->character.runs);
    fflush(out);
}
