/*
 * tools/play.c — `cna play FILE --timeline SCRIPT --fps F --frames N [--json]`:
 * play a model's animations as a game would, by a script of timed actions
 * (play, crossfade, speed, loop), and print every frame: the layers, the
 * bones' model-space transforms and the events of the advance into the frame
 * (docs/cli.md, "cna play").
 *
 * The character has two layers; `play` and `crossfade` act on the current
 * layer (cna_character_crossfade from it to the other one, which then becomes
 * the current layer). Frame k is at k / F seconds; the entries whose time has
 * come are applied after the advance into a frame and before it is posed.
 * The advance between frames is counted in whole ticks from frame to frame
 * (ticks(k / F) - ticks((k - 1) / F)), so that no rounding accumulates: at a
 * time scale of 1, frame k's clock is where a seek to k / F puts it, and its
 * bones print as `cna pose --time k/F` prints them (%.9g).
 *
 * An action is one row of `play_actions` below: its name, its arguments
 * (each of a kind that says how it is read and checked) and the function that
 * applies it. Adding one (a blend space's `blend1d`, `param X [Y]`) is a row
 * and its function.
 *
 * Exit codes: 0 printed; 1 the file is refused, an animation it does not
 * have, or the library refused an action; 2 usage (a malformed timeline).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "cna/cna.h"

#define PLAY_MAX_FRAMES 1000000L /* --frames at most */
#define PLAY_MAX_ARGS 9          /* arguments of one action at most (blend2d: three samples) */
#define PLAY_MAX_SPACES 64       /* blend spaces one timeline makes at most */
#define PLAY_LAYERS 2            /* enough for crossfades, each to the other layer */

void cna_cli_play_help(FILE *out)
{
    fprintf(out,
            "usage: cna play FILE --timeline SCRIPT --fps F --frames N [--json]\n"
            "                     [--asset-root DIR] [--split-palettes] [--no-textures]\n"
            "                     [--max-decoded-size N]\n"
            "\n"
            "Plays FILE (.gltf, .glb or .cnb) by SCRIPT and prints N frames, F per second.\n"
            "SCRIPT is a list of entries separated by ';', each `SECONDS ACTION ARGS...`\n"
            "(separated by spaces), in order of time (equal times run in the order given):\n"
            "  play ANIM                 play ANIM (index or name) on the current layer at\n"
            "                            once; every other layer stops\n"
            "  crossfade ANIM DURATION   fade from what plays to ANIM over DURATION seconds\n"
            "                            (on the other layer, which becomes the current one;\n"
            "                            it takes the current layer's loop mode)\n"
            "  speed S                   the time scale of every layer (0 stops, < 0 backwards)\n"
            "  loop once|repeat|pingpong the current layer's loop mode (default repeat)\n"
            "  blend1d ANIM X ANIM X [ANIM X]\n"
            "                            a 1D blend space of 2 or 3 clips at the points X,\n"
            "                            played on the current layer at once at the first X\n"
            "  blend2d ANIM X Y ANIM X Y ANIM X Y\n"
            "                            a 2D blend space of 3 clips, likewise\n"
            "  param X [Y]               the current layer's blend space parameters\n"
            "Frame k is at k/F seconds: the entries whose time is at most k/F and not yet\n"
            "applied are applied after the character has advanced into frame k (frame 0:\n"
            "none) and before it is posed. An entry after the last frame is not applied\n"
            "(a note on stderr).\n"
            "\n"
            "--json prints one JSON object per frame, one line each:\n"
            "  {\"frame\": k, \"time\": t,\n"
            "   \"layers\": [{\"animation\": i or null, \"name\": s or null, \"weight\": w,\n"
            "               \"phase\": position / duration in [0, 1], or null}],\n"
            "   \"bones\": [{\"name\": s, \"world\": [16]}],\n"
            "   \"events\": [{\"kind\": \"marker\"|\"looped\"|\"finished\"|\"fade_finished\"|\n"
            "               \"layer_stopped\", \"layer\": l, \"animation\": i or null,\n"
            "               [\"marker\": s,] \"weight\": w}]}\n"
            "`world` is each bone's model-space transform, column-major, as `cna pose`\n"
            "prints it; `events` are those of the advance into the frame. Without --json,\n"
            "one line of text per frame: its time, each layer, its events.\n"
            "\n"
            "options:\n"
            "  --timeline SCRIPT    the entries, as above\n"
            "  --fps F              frames per second, a number > 0\n"
            "  --frames N           frames to print, 1..1000000\n"
            "  --json               print JSON lines\n"
            CNA_CLI_ASSET_ROOT_HELP("     ", "                       ")
            CNA_CLI_CLIPS_HELP("         ", "                       ")
            CNA_CLI_SPLIT_PALETTES_HELP("     ", "                       ")
            CNA_CLI_NO_TEXTURES_HELP("     ", "                       ")
            CNA_CLI_MAX_DECODED_HELP(" ", "                       ")
            "  -h, --help           print this help\n"
            "\n"
            "exit status: 0 printed; 1 the file is refused, or has no such animation\n"
            "(\"error: FILE: --timeline: entry 2 \\\"0.5 play Fly\\\": no animation 'Fly' ...\");\n"
            "2 usage error, a malformed timeline among them.\n");
}

/* ------------------------------------------------------------ the timeline */

typedef enum play_arg_kind {
    PLAY_ARG_ANIMATION, /* an index or a name, found in the model once it is loaded */
    PLAY_ARG_DURATION,  /* seconds: a finite number >= 0 */
    PLAY_ARG_NUMBER,    /* a finite number */
    PLAY_ARG_LOOP       /* once, repeat or pingpong */
} play_arg_kind;

typedef struct play_arg_spec {
    play_arg_kind kind;
    const char *name;   /* in messages: "ANIM" */
} play_arg_spec;

/* One argument as read: its text, and its value by its kind. */
typedef struct play_value {
    const char *text;
    double number;       /* DURATION, NUMBER */
    long animation;      /* ANIMATION, once the model is loaded */
    cna_loop_mode loop;  /* LOOP */
} play_value;

struct play_state;
struct play_entry;
typedef cna_result (*play_apply_fn)(struct play_state *s, const struct play_entry *e, cna_error *err);

typedef struct play_action {
    const char *name;
    size_t required;                       /* arguments that must be given */
    size_t count;                          /* arguments it takes, the optional ones after */
    play_arg_spec args[PLAY_MAX_ARGS];
    play_apply_fn apply;
} play_action;

typedef struct play_entry {
    int number;                 /* 1-based place in SCRIPT, for messages */
    char *text;                 /* its words joined by one space, for messages (owned) */
    const char *seconds_text;
    double seconds;
    const play_action *action;
    size_t argc;
    play_value args[PLAY_MAX_ARGS];
} play_entry;

typedef struct play_state {
    cna_character *c;
    size_t current;             /* the layer `play`, `crossfade` and `loop` act on */
    /* the events of the advance into the frame being printed */
    cna_event *events;
    size_t event_count, event_cap;
    bool events_lost;           /* out of memory while collecting them */
    /* the blend spaces blend1d and blend2d made (freed after the character) */
    cna_blend_space *spaces[PLAY_MAX_SPACES];
    size_t space_count;
} play_state;

static cna_result apply_play(play_state *s, const play_entry *e, cna_error *err);
static cna_result apply_crossfade(play_state *s, const play_entry *e, cna_error *err);
static cna_result apply_speed(play_state *s, const play_entry *e, cna_error *err);
static cna_result apply_loop(play_state *s, const play_entry *e, cna_error *err);
static cna_result apply_blend(play_state *s, const play_entry *e, cna_error *err);
static cna_result apply_param(play_state *s, const play_entry *e, cna_error *err);

static const play_action play_actions[] = {
    {"play", 1, 1, {{PLAY_ARG_ANIMATION, "ANIM"}}, apply_play},
    {"crossfade", 2, 2, {{PLAY_ARG_ANIMATION, "ANIM"}, {PLAY_ARG_DURATION, "DURATION"}}, apply_crossfade},
    {"speed", 1, 1, {{PLAY_ARG_NUMBER, "S"}}, apply_speed},
    {"loop", 1, 1, {{PLAY_ARG_LOOP, "MODE"}}, apply_loop},
    {"blend1d", 4, 6,
     {{PLAY_ARG_ANIMATION, "ANIM"}, {PLAY_ARG_NUMBER, "X"}, {PLAY_ARG_ANIMATION, "ANIM"}, {PLAY_ARG_NUMBER, "X"},
      {PLAY_ARG_ANIMATION, "ANIM"}, {PLAY_ARG_NUMBER, "X"}},
     apply_blend},
    {"blend2d", 9, 9,
     {{PLAY_ARG_ANIMATION, "ANIM"}, {PLAY_ARG_NUMBER, "X"}, {PLAY_ARG_NUMBER, "Y"}, {PLAY_ARG_ANIMATION, "ANIM"},
      {PLAY_ARG_NUMBER, "X"}, {PLAY_ARG_NUMBER, "Y"}, {PLAY_ARG_ANIMATION, "ANIM"}, {PLAY_ARG_NUMBER, "X"},
      {PLAY_ARG_NUMBER, "Y"}},
     apply_blend},
    {"param", 1, 2, {{PLAY_ARG_NUMBER, "X"}, {PLAY_ARG_NUMBER, "Y"}}, apply_param},
};
#define PLAY_ACTION_COUNT (sizeof play_actions / sizeof play_actions[0])

static cna_result apply_play(play_state *s, const play_entry *e, cna_error *err)
{
    cna_character *c = s->c;
    /* a crossfade of 0 seconds is a cut: the current layer plays ANIM at
     * weight 1 and any interrupted crossfade's snapshot ends */
    const size_t other = (s->current + 1) % cna_character_layer_count(c);
    cna_result r = cna_character_crossfade(c, other, s->current, e->args[0].animation, 0.0, 0, err);
    for (size_t l = 0; r == CNA_OK && l < cna_character_layer_count(c); l++) {
        if (l == s->current) continue;
        r = cna_character_layer_play(c, l, -1, err);
        if (r == CNA_OK) r = cna_character_layer_set_weight(c, l, 0.0f, err);
    }
    return r;
}

/* blend1d / blend2d: a blend space of the samples (ANIM X [Y] each) made
 * and played on the current layer at once, at the first sample's point,
 * as `play` plays a clip (a cut; the other layers stop). */
static cna_result apply_blend(play_state *s, const play_entry *e, cna_error *err)
{
    cna_character *c = s->c;
    const unsigned dims = strcmp(e->action->name, "blend2d") == 0 ? 2u : 1u;
    const size_t per = dims + 1, n = e->argc / per;
    cna_blend_sample samples[3];
    for (size_t i = 0; i < n; i++) {
        samples[i].animation = e->args[i * per].animation;
        samples[i].x = e->args[i * per + 1].number;
        samples[i].y = dims == 2 ? e->args[i * per + 2].number : 0.0;
    }
    if (s->space_count == PLAY_MAX_SPACES) {
        err->code = CNA_ERROR_LIMIT;
        snprintf(err->message, sizeof err->message, "more than %d blend1d and blend2d entries", PLAY_MAX_SPACES);
        return err->code;
    }
    cna_blend_space *space = NULL;
    cna_result r = cna_blend_space_create(cna_character_model(c), dims, samples, n, &space, err);
    if (r != CNA_OK) return r;
    s->spaces[s->space_count++] = space;
    /* a cut to the first sample's clip (ends a transition), then the space */
    const size_t other = (s->current + 1) % cna_character_layer_count(c);
    r = cna_character_crossfade(c, other, s->current, samples[0].animation, 0.0, 0, err);
    for (size_t l = 0; r == CNA_OK && l < cna_character_layer_count(c); l++) {
        if (l == s->current) continue;
        r = cna_character_layer_play(c, l, -1, err);
        if (r == CNA_OK) r = cna_character_layer_set_weight(c, l, 0.0f, err);
    }
    if (r == CNA_OK) r = cna_character_layer_play_blend_space(c, s->current, space, samples[0].x, samples[0].y, err);
    return r;
}

/* param X [Y]: the parameters of the current layer's blend space. */
static cna_result apply_param(play_state *s, const play_entry *e, cna_error *err)
{
    const double y = e->argc > 1 ? e->args[1].number : 0.0;
    return cna_character_layer_set_blend_parameters(s->c, s->current, e->args[0].number, y, err);
}

static cna_result apply_crossfade(play_state *s, const play_entry *e, cna_error *err)
{
    cna_character *c = s->c;
    const size_t to = (s->current + 1) % cna_character_layer_count(c);
    /* the incoming layer goes on in the loop mode `loop` set */
    cna_result r = cna_character_layer_set_loop_mode(c, to, cna_character_layer_loop_mode(c, s->current), err);
    if (r == CNA_OK) r = cna_character_crossfade(c, s->current, to, e->args[0].animation, e->args[1].number, 0, err);
    if (r == CNA_OK) s->current = to;
    return r;
}

static cna_result apply_speed(play_state *s, const play_entry *e, cna_error *err)
{
    for (size_t l = 0; l < cna_character_layer_count(s->c); l++) {
        cna_result r = cna_character_layer_set_time_scale(s->c, l, e->args[0].number, err);
        if (r != CNA_OK) return r;
    }
    return CNA_OK;
}

static cna_result apply_loop(play_state *s, const play_entry *e, cna_error *err)
{
    return cna_character_layer_set_loop_mode(s->c, s->current, e->args[0].loop, err);
}

typedef struct play_timeline {
    play_entry *entries;
    size_t count;
    char *words;                /* SCRIPT's copy the entries' texts point into (owned) */
} play_timeline;

static void timeline_free(play_timeline *t)
{
    for (size_t i = 0; i < t->count; i++) free(t->entries[i].text);
    free(t->entries);
    free(t->words);
    memset(t, 0, sizeof *t);
}

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* A finite number, the whole of `text`. */
static bool read_number(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    const double v = strtod(text, &end);
    if (errno || !*text || *end || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* "cna play: --timeline: entry 3 "1.5 crossfade Run": <message>" and the
 * usage on stderr; returns CNA_CLI_EXIT_USAGE. */
static int entry_error(const cna_cli_command *cmd, const play_entry *e, const char *fmt, ...)
    CNA_CLI_PRINTF(3, 4);
static int entry_error(const cna_cli_command *cmd, const play_entry *e, const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return cna_cli_usage_error(cmd, "--timeline: entry %d \"%s\": %s", e->number, e->text, message);
}

/* Reads argument `i` of entry e by its kind (the animations are found later,
 * in the model). Returns -1, or the exit code after the message. */
static int read_arg(const cna_cli_command *cmd, play_entry *e, size_t i)
{
    const play_arg_spec *spec = &e->action->args[i];
    play_value *v = &e->args[i];
    switch (spec->kind) {
    case PLAY_ARG_ANIMATION:
        return -1;
    case PLAY_ARG_DURATION:
        if (!read_number(v->text, &v->number) || v->number < 0.0)
            return entry_error(cmd, e, "%s '%s' is not a number of seconds >= 0", spec->name,
                               v->text);
        return -1;
    case PLAY_ARG_NUMBER:
        if (!read_number(v->text, &v->number))
            return entry_error(cmd, e, "%s '%s' is not a finite number", spec->name, v->text);
        return -1;
    case PLAY_ARG_LOOP:
        if (strcmp(v->text, "once") == 0) v->loop = CNA_LOOP_MODE_ONCE;
        else if (strcmp(v->text, "repeat") == 0) v->loop = CNA_LOOP_MODE_REPEAT;
        else if (strcmp(v->text, "pingpong") == 0) v->loop = CNA_LOOP_MODE_PING_PONG;
        else
            return entry_error(cmd, e, "%s '%s' is not once, repeat or pingpong", spec->name,
                               v->text);
        return -1;
    }
    return -1;
}

/* "crossfade ANIM DURATION": the action and its arguments, the optional ones in [ ]. */
static void action_synopsis(const play_action *action, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "%s", action->name);
    for (size_t i = 0; i < action->count && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, i < action->required ? " %s" : " [%s]",
                                 action->args[i].name);
}

/* Splits SCRIPT into entries and reads every one (all but the animations,
 * which need the model). Returns -1, or the exit code after the message. */
static int timeline_parse(const cna_cli_command *cmd, const char *script, play_timeline *t)
{
    memset(t, 0, sizeof *t);
    size_t pieces = 1;
    for (const char *p = script; *p; p++)
        if (*p == ';') pieces++;
    t->words = (char *)malloc(strlen(script) + 1);
    t->entries = (play_entry *)calloc(pieces, sizeof *t->entries);
    if (!t->words || !t->entries) {
        fprintf(stderr, "error: out of memory\n");
        return CNA_CLI_EXIT_FAILURE;
    }
    memcpy(t->words, script, strlen(script) + 1);
    char *p = t->words;
    const play_entry *previous = NULL;
    for (int number = 1; p; number++) {
        char *piece = p;
        char *semi = strchr(p, ';');
        if (semi) *semi = '\0';
        p = semi ? semi + 1 : NULL;
        /* its words, in place: at most the time, the action and its arguments, and one too many */
        char *words[2 + PLAY_MAX_ARGS + 1];
        size_t n = 0, len = 0;
        for (char *q = piece; *q;) {
            while (is_space(*q)) *q++ = '\0';
            if (!*q) break;
            if (n < sizeof words / sizeof words[0]) words[n++] = q;
            size_t w = 0;
            while (q[w] && !is_space(q[w])) w++;
            len += w + 1;
            q += w;
        }
        if (n == 0) continue; /* an empty entry: nothing to do */
        play_entry *e = &t->entries[t->count++];
        e->number = number;
        e->text = (char *)malloc(len);
        if (!e->text) {
            fprintf(stderr, "error: out of memory\n");
            return CNA_CLI_EXIT_FAILURE;
        }
        /* the whole entry, the words one space apart (also those past words[]) */
        size_t at = 0;
        for (char *q = words[0]; at < len;) {
            while (!*q || is_space(*q)) q++;
            const size_t w = strlen(q);
            if (at) e->text[at - 1] = ' ';
            memcpy(e->text + at, q, w + 1);
            at += w + 1;
            q += w;
        }
        e->seconds_text = words[0];
        if (!read_number(words[0], &e->seconds) || e->seconds < 0.0)
            return entry_error(cmd, e, "'%s' is not a number of seconds >= 0", words[0]);
        if (previous && e->seconds < previous->seconds)
            return entry_error(cmd, e, "time %s is before the previous entry's (%s); entries go in order of time",
                               e->seconds_text, previous->seconds_text);
        if (n < 2) return entry_error(cmd, e, "missing ACTION");
        for (size_t a = 0; a < PLAY_ACTION_COUNT && !e->action; a++)
            if (strcmp(words[1], play_actions[a].name) == 0) e->action = &play_actions[a];
        if (!e->action) {
            char names[128];
            size_t used = 0;
            for (size_t a = 0; a < PLAY_ACTION_COUNT && used < sizeof names; a++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", a ? ", " : "",
                                         play_actions[a].name);
            return entry_error(cmd, e, "unknown action '%s' (the actions are %s)", words[1],
                               names);
        }
        e->argc = n - 2;
        if (e->argc < e->action->required)
            return entry_error(cmd, e, "missing %s", e->action->args[e->argc].name);
        if (e->argc > e->action->count)
        {
            char usage[160];
            action_synopsis(e->action, usage, sizeof usage);
            return entry_error(cmd, e, "unexpected argument '%s' (%s)", words[2 + e->action->count], usage);
        }
        for (size_t a = 0; a < e->argc; a++) {
            e->args[a].text = words[2 + a];
            const int u = read_arg(cmd, e, a);
            if (u >= 0) return u;
        }
        previous = e;
    }
    if (t->count == 0) return cna_cli_usage_error(cmd, "--timeline: no entries");
    return -1;
}

/* Finds every entry's animations in the model. Returns -1, or
 * CNA_CLI_EXIT_FAILURE after "error: FILE: --timeline: entry 2 "...": no
 * animation 'X' (the file has ...)". */
static int timeline_resolve(const char *path, const cna_model *m, play_timeline *t)
{
    for (size_t i = 0; i < t->count; i++) {
        play_entry *e = &t->entries[i];
        for (size_t a = 0; a < e->argc; a++) {
            if (e->action->args[a].kind != PLAY_ARG_ANIMATION) continue;
            size_t index = 0;
            if (cna_model_find_animation(m, e->args[a].text, &index, NULL) != CNA_OK) {
                const size_t size = strlen(e->text) + 64;
                char *where = (char *)malloc(size);
                if (where) snprintf(where, size, "--timeline: entry %d \"%s\"", e->number, e->text);
                cna_cli_no_animation(path, where ? where : "--timeline", e->args[a].text, m);
                free(where);
                return CNA_CLI_EXIT_FAILURE;
            }
            e->args[a].animation = (long)index;
        }
    }
    return -1;
}

/* ------------------------------------------------------------ arguments */

typedef struct play_args {
    const char *path;
    const char *timeline;     /* --timeline as typed */
    const char *fps_text;
    double fps;
    const char *frames_text;
    long frames;
    bool json;
    const char *asset_root;
    bool split_palettes;
    bool no_textures;
    size_t max_decoded;
} play_args;

static int parse_args(const cna_cli_command *cmd, int argc, char **argv, play_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int md = cna_cli_max_decoded_option(cmd, argc, argv, &i, &a->max_decoded);
        if (md == -1) continue;
        if (md >= 0) return md;
        if (strcmp(arg, "--timeline") == 0 || strcmp(arg, "--fps") == 0 || strcmp(arg, "--frames") == 0 ||
            strcmp(arg, "--asset-root") == 0) {
            if (i + 1 >= argc) return cna_cli_usage_error(cmd, "%s needs a value", arg);
            const char *v = argv[++i];
            if (strcmp(arg, "--timeline") == 0) {
                a->timeline = v;
            } else if (strcmp(arg, "--asset-root") == 0) {
                a->asset_root = v;
            } else if (strcmp(arg, "--fps") == 0) {
                if (!read_number(v, &a->fps) || !(a->fps > 0.0))
                    return cna_cli_usage_error(cmd, "--fps: '%s' is not a number of frames per second > 0", v);
                a->fps_text = v;
            } else {
                char *end = NULL;
                errno = 0;
                const long n = v[0] >= '0' && v[0] <= '9' ? strtol(v, &end, 10) : 0;
                if (errno || !end || *end || n < 1 || n > PLAY_MAX_FRAMES)
                    return cna_cli_usage_error(cmd, "--frames: '%s' is not a frame count in 1..%ld", v,
                                               PLAY_MAX_FRAMES);
                a->frames = n;
                a->frames_text = v;
            }
        } else if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else if (strcmp(arg, "--split-palettes") == 0) {
            a->split_palettes = true;
        } else if (strcmp(arg, "--no-textures") == 0) {
            a->no_textures = true;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cna_cli_usage_error(cmd, "unknown option '%s'", arg);
        } else if (!a->path) {
            a->path = arg;
        } else {
            return cna_cli_usage_error(cmd, "unexpected argument '%s'", arg);
        }
    }
    if (!a->path) return cna_cli_usage_error(cmd, "missing FILE");
    if (!a->timeline) return cna_cli_usage_error(cmd, "missing --timeline SCRIPT");
    if (!a->fps_text) return cna_cli_usage_error(cmd, "missing --fps F");
    if (!a->frames_text) return cna_cli_usage_error(cmd, "missing --frames N");
    return -1;
}

/* ------------------------------------------------------------ output */

/* Numbers as `cna pose` prints them: %.9g (every float exactly), null when not finite. */
static cJSON *num(double v)
{
    if (!isfinite(v)) return cJSON_CreateNull();
    char buf[40];
    snprintf(buf, sizeof buf, "%.9g", v);
    return cJSON_CreateRaw(buf);
}

static cJSON *int_num(long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return cJSON_CreateRaw(buf);
}

static cJSON *animation_json(long animation)
{
    return animation >= 0 ? int_num(animation) : cJSON_CreateNull();
}

static const char *event_kind_name(cna_event_kind kind)
{
    switch (kind) {
    case CNA_EVENT_MARKER: return "marker";
    case CNA_EVENT_LOOPED: return "looped";
    case CNA_EVENT_FINISHED: return "finished";
    case CNA_EVENT_FADE_FINISHED: return "fade_finished";
    case CNA_EVENT_LAYER_STOPPED: return "layer_stopped";
    }
    return "unknown";
}

/* The layer's position as a fraction of its animation's duration; NaN
 * without an animation, 0 for an animation of duration 0. */
static double layer_phase(const cna_character *c, size_t layer)
{
    if (cna_character_layer_animation(c, layer) < 0) return NAN;
    const int64_t duration = cna_character_layer_duration(c, layer);
    return duration > 0 ? (double)cna_character_layer_position(c, layer) / (double)duration : 0.0;
}

/* One frame as a JSON object; NULL when out of memory. */
static cJSON *frame_json(const play_state *s, long frame, double time)
{
    const cna_character *c = s->c;
    const cna_model *m = cna_character_model(c);
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    cJSON_AddItemToObject(root, "frame", int_num(frame));
    cJSON_AddItemToObject(root, "time", num(time));
    cJSON *layers = cJSON_AddArrayToObject(root, "layers");
    for (size_t l = 0; layers && l < cna_character_layer_count(c); l++) {
        cJSON *o = cJSON_CreateObject();
        if (!o) break;
        cJSON_AddItemToArray(layers, o);
        const long anim = cna_character_layer_animation(c, l);
        cJSON_AddItemToObject(o, "animation", animation_json(anim));
        if (anim >= 0) cJSON_AddStringToObject(o, "name", cna_model_animation_name(m, (size_t)anim));
        else cJSON_AddNullToObject(o, "name");
        cJSON_AddItemToObject(o, "weight", num((double)cna_character_layer_weight(c, l)));
        cJSON_AddItemToObject(o, "phase", num(layer_phase(c, l)));
        const cna_blend_space *space = cna_character_layer_blend_space(c, l);
        if (space) { /* a blend space: its phase and the samples' weights */
            cJSON *b = cJSON_AddObjectToObject(o, "blend");
            if (!b) break;
            cJSON_AddItemToObject(b, "phase", num(cna_character_layer_phase(c, l)));
            cJSON *w = cJSON_AddArrayToObject(b, "weights");
            for (size_t i = 0; w && i < cna_blend_space_sample_count(space); i++)
                cJSON_AddItemToArray(w, num(cna_character_layer_sample_weight(c, l, i)));
        }
    }
    cJSON_AddItemToObject(root, "transition", num((double)cna_character_transition_weight(c)));
    cJSON *bones = cJSON_AddArrayToObject(root, "bones");
    for (size_t b = 0; bones && b < m->bone_count; b++) {
        cJSON *o = cJSON_CreateObject();
        if (!o) break;
        cJSON_AddItemToArray(bones, o);
        cJSON_AddStringToObject(o, "name", m->bones[b].name);
        cJSON *world = cJSON_AddArrayToObject(o, "world");
        const cna_mat4 *w = cna_character_absolute_transform(c, b);
        for (int i = 0; world && i < 16; i++) cJSON_AddItemToArray(world, num((double)w->m[i]));
    }
    cJSON *events = cJSON_AddArrayToObject(root, "events");
    for (size_t i = 0; events && i < s->event_count; i++) {
        const cna_event *ev = &s->events[i];
        cJSON *o = cJSON_CreateObject();
        if (!o) break;
        cJSON_AddItemToArray(events, o);
        cJSON_AddStringToObject(o, "kind", event_kind_name(ev->kind));
        cJSON_AddItemToObject(o, "layer", int_num((long long)ev->layer));
        cJSON_AddItemToObject(o, "animation", animation_json(ev->animation));
        if (ev->kind == CNA_EVENT_MARKER) cJSON_AddStringToObject(o, "marker", ev->name ? ev->name : "");
        cJSON_AddItemToObject(o, "weight", num((double)ev->weight));
    }
    return root;
}

/* One frame as a line of text:
 *   frame 3 t=0.12: layer 0 "Robot_Idle" w=1 phase=0.0432, layer 1 -; events: looped (layer 0 "Robot_Idle") */
static void frame_text(FILE *out, const play_state *s, long frame, double time)
{
    const cna_character *c = s->c;
    const cna_model *m = cna_character_model(c);
    fprintf(out, "frame %ld t=%.9g:", frame, time);
    for (size_t l = 0; l < cna_character_layer_count(c); l++) {
        const long anim = cna_character_layer_animation(c, l);
        fprintf(out, "%s layer %zu", l ? "," : "", l);
        if (anim >= 0)
            fprintf(out, " \"%s\" w=%.9g phase=%.9g", cna_model_animation_name(m, (size_t)anim),
                    (double)cna_character_layer_weight(c, l), layer_phase(c, l));
        else
            fprintf(out, " - w=%.9g", (double)cna_character_layer_weight(c, l));
    }
    fprintf(out, "; events:");
    if (s->event_count == 0) fprintf(out, " none");
    for (size_t i = 0; i < s->event_count; i++) {
        const cna_event *ev = &s->events[i];
        fprintf(out, "%s %s", i ? "," : "", event_kind_name(ev->kind));
        if (ev->kind == CNA_EVENT_MARKER) fprintf(out, " \"%s\"", ev->name ? ev->name : "");
        fprintf(out, " (layer %zu", ev->layer);
        if (ev->animation >= 0)
            fprintf(out, " \"%s\"", cna_model_animation_name(m, (size_t)ev->animation));
        fprintf(out, " w=%.9g)", (double)ev->weight);
    }
    fputc('\n', out);
}

/* ------------------------------------------------------------ playing */

static void on_event(const cna_event *event, void *user)
{
    play_state *s = (play_state *)user;
    if (s->event_count == s->event_cap) {
        const size_t cap = s->event_cap ? s->event_cap * 2 : 16;
        cna_event *grown = (cna_event *)realloc(s->events, cap * sizeof *grown);
        if (!grown) {
            s->events_lost = true;
            return;
        }
        s->events = grown;
        s->event_cap = cap;
    }
    s->events[s->event_count++] = *event;
}

/* "error: FILE: --timeline: entry 2 "...": <the library's message>" */
static int entry_failed(const char *path, const play_entry *e, const cna_error *err)
{
    fprintf(stderr, "error: %s: --timeline: entry %d \"%s\": %s\n", path, e->number, e->text,
            err->message[0] ? err->message : cna_result_name(err->code));
    return CNA_CLI_EXIT_FAILURE;
}

static int play_run(const play_args *a, play_timeline *t)
{
    cna_error err;
    memset(&err, 0, sizeof err);
    if (cna_cli_probe_file(a->path, true) == CNA_CLI_FILE_UNUSABLE) return CNA_CLI_EXIT_FAILURE;
    cna_cli_files inputs;
    memset(&inputs, 0, sizeof inputs);
    cna_import_options io;
    memset(&io, 0, sizeof io);
    io.gltf.asset_root = a->asset_root;
    io.split_palettes = a->split_palettes;
    io.gltf.no_textures = a->no_textures;
    io.gltf.max_decoded_size = a->max_decoded;
    cna_model *m = NULL;
    const cna_result loaded = cna_cli_load_any(a->path, &io, &m, &inputs, &err); /* .cnb by magic, else glTF */
    cna_cli_files_free(&inputs);
    if (loaded != CNA_OK) return cna_cli_report_error(a->path, &err);
    int rc = timeline_resolve(a->path, m, t);
    if (rc >= 0) {
        cna_model_free(m);
        return rc;
    }
    rc = CNA_CLI_EXIT_FAILURE;
    play_state s;
    memset(&s, 0, sizeof s);
    cna_character_options co;
    memset(&co, 0, sizeof co);
    co.layer_count = PLAY_LAYERS;
    if (cna_character_create(m, &co, &s.c, &err) != CNA_OK ||
        cna_character_set_event_listener(s.c, on_event, &s, &err) != CNA_OK) {
        rc = cna_cli_report_error(a->path, &err);
        goto done;
    }
    size_t next = 0; /* the first entry not applied yet */
    int64_t ticks = 0; /* frame k - 1's time in ticks */
    for (long k = 0; k < a->frames; k++) {
        const double time = (double)k / a->fps;
        s.event_count = 0;
        if (k > 0) {
            /* from frame k - 1's tick to frame k's: the frames' ticks, not a sum of rounded steps */
            const int64_t now = cna_ticks_from_seconds(time);
            if (cna_character_advance(s.c, (double)(now - ticks) / (double)CNA_TICKS_PER_SECOND, &err) != CNA_OK) {
                rc = cna_cli_report_error(a->path, &err);
                goto done;
            }
            ticks = now;
        }
        if (s.events_lost) {
            fprintf(stderr, "error: out of memory\n");
            goto done;
        }
        for (; next < t->count && t->entries[next].seconds <= time; next++) {
            const play_entry *e = &t->entries[next];
            if (e->action->apply(&s, e, &err) != CNA_OK) {
                rc = entry_failed(a->path, e, &err);
                goto done;
            }
        }
        if (cna_character_pose(s.c, &err) != CNA_OK) {
            rc = cna_cli_report_error(a->path, &err);
            goto done;
        }
        if (a->json) {
            cJSON *root = frame_json(&s, k, time);
            char *text = root ? cJSON_PrintUnformatted(root) : NULL;
            cJSON_Delete(root);
            if (!text) {
                fprintf(stderr, "error: out of memory\n");
                goto done;
            }
            fputs(text, stdout);
            fputc('\n', stdout);
            free(text);
        } else {
            frame_text(stdout, &s, k, time);
        }
        if (ferror(stdout)) break;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "error: writing the frames failed\n");
        goto done;
    }
    if (next + 1 == t->count)
        fprintf(stderr, "note: --timeline: entry %d \"%s\" is after the last frame (%ld at %.9g s); not applied\n",
                t->entries[next].number, t->entries[next].text, a->frames - 1, (double)(a->frames - 1) / a->fps);
    else if (next < t->count)
        fprintf(stderr,
                "note: --timeline: entries %d (\"%s\") to %d are after the last frame (%ld at %.9g s); not applied\n",
                t->entries[next].number, t->entries[next].text, t->entries[t->count - 1].number, a->frames - 1,
                (double)(a->frames - 1) / a->fps);
    rc = CNA_CLI_EXIT_OK;
done:
    cna_character_free(s.c);
    for (size_t i = 0; i < s.space_count; i++) cna_blend_space_free(s.spaces[i]);
    free(s.events);
    cna_model_free(m);
    return rc;
}

int cna_cli_play_run(int argc, char **argv)
{
    const cna_cli_command *cmd = cna_cli_find("play");
    for (int i = 1; i < argc; i++) {
        if (cna_cli_is_help(argv[i])) {
            cna_cli_play_help(stdout);
            return CNA_CLI_EXIT_OK;
        }
    }
    play_args a;
    int u = parse_args(cmd, argc, argv, &a);
    if (u >= 0) return u;
    play_timeline t;
    u = timeline_parse(cmd, a.timeline, &t);
    if (u < 0) u = play_run(&a, &t);
    timeline_free(&t);
    return u;
}
