/*
 * tools/cli.h — shared declarations of the `cna` command-line tool.
 *
 * `cna <command> [options]` dispatches on the first argument through one table
 * (tools/cna.c). Each command lives in its own tools/<command>.c and exposes
 *   int  cna_cli_<command>_run(int argc, char **argv);   argv[0] is the command name
 *   void cna_cli_<command>_help(FILE *out);              full usage text
 * To add a command: write tools/<command>.c, declare its two functions below and
 * add one row to the table in tools/cna.c. Exit codes are the same for every
 * command: 0 success, 1 failure (a refused file, an I/O error), 2 bad usage.
 * Not part of the library; not installed.
 */
#ifndef CNA_TOOLS_CLI_H
#define CNA_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cna/result.h"

/* printf-style checks of a function's format (MinGW-w64: the C99 formats of
 * __USE_MINGW_ANSI_STDIO, %zu included, not msvcrt's). */
#if defined(__MINGW32__) && defined(__MINGW_PRINTF_FORMAT)
#define CNA_CLI_PRINTF(fmt, args) __attribute__((format(__MINGW_PRINTF_FORMAT, fmt, args)))
#elif defined(__GNUC__) || defined(__clang__)
#define CNA_CLI_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CNA_CLI_PRINTF(fmt, args)
#endif

enum {
    CNA_CLI_EXIT_OK = 0,      /* the command did what was asked */
    CNA_CLI_EXIT_FAILURE = 1, /* the input was refused or could not be read/written */
    CNA_CLI_EXIT_USAGE = 2    /* unknown command, unknown option, missing argument */
};

typedef struct cna_cli_command {
    const char *name;                  /* as typed: "inspect" */
    bool built;                        /* false: this build lacks what it needs (cna_gl, GLFW);
                                          it still runs, answering so, but `cna help` omits it */
    const char *synopsis;              /* arguments after the name: "FILE [--json]" */
    const char *summary;               /* one line for `cna --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the command name; returns an exit code */
    void (*help)(FILE *out);           /* full usage text of the command */
} cna_cli_command;

/* The lines of the --asset-root DIR option (cna_gltf_options.asset_root) in the
 * --help of every command that loads glTF: `gap` is the spaces after the option
 * name and `indent` the continuation lines' indent, so that the text lines up
 * with the command's other options. */
#define CNA_CLI_ASSET_ROOT_HELP(gap, indent)                                                    \
    "  --asset-root DIR" gap "let external files (buffers, images) be named with\n"          \
    indent "\"..\" while each one's real path (symbolic links\n"                             \
    indent "followed) stays inside DIR (default: \"..\" is\n"                                \
    indent "refused, files must be inside the model's folder);\n"                            \
    indent "no effect on a .cnb, whose files are embedded\n"

/* The --split-palettes entry of an options list (gap after the option name,
 * indent of the continuation lines). */
#define CNA_CLI_SPLIT_PALETTES_HELP(gap, indent)                                                \
    "  --split-palettes" gap "import a skin of more than 72 joints by splitting\n"            \
    indent "its parts into sub-parts of at most 72 palette\n"                               \
    indent "entries (default: such a skin is refused); no\n"                                \
    indent "effect on a .cnb, which keeps its split parts\n"

/* The --no-textures entry (cna_gltf_options.no_textures), lined up as
 * CNA_CLI_SPLIT_PALETTES_HELP with the same arguments. */
#define CNA_CLI_NO_TEXTURES_HELP(gap, indent)                                                   \
    "  --no-textures   " gap "load geometry, skins, morphs and animations\n"                    \
    indent "without reading any image; a file that requires\n"                              \
    indent "KHR_texture_basisu, EXT_texture_webp or\n"                                       \
    indent "EXT_texture_avif then loads; no effect on a .cnb\n"

/* --max-decoded-size BYTES (cna_gltf_options.max_decoded_size): when argv[*i]
 * is that option, takes its value (an integer, optionally followed by k, M or
 * G for KiB, MiB, GiB: "256M") into *out and advances *i: returns -1; a
 * missing or bad value is a usage error (returns CNA_CLI_EXIT_USAGE); -2 when
 * argv[*i] is another argument. */
int cna_cli_max_decoded_option(const cna_cli_command *cmd, int argc, char **argv, int *i, size_t *out);

#define CNA_CLI_MAX_DECODED_HELP(gap, indent)                                                   \
    "  --max-decoded-size N" gap "allow N bytes (k, M, G: KiB, MiB, GiB) decoded\n"         \
    indent "from meshopt and Draco data (default 24M)\n"

/* Prints "cna <command>: <message>" and the command's synopsis to stderr;
 * returns CNA_CLI_EXIT_USAGE. */
int cna_cli_usage_error(const cna_cli_command *command, const char *fmt, ...)
    CNA_CLI_PRINTF(2, 3);

/* The command named `name`, or NULL. */
const cna_cli_command *cna_cli_find(const char *name);

/* True when arg is "-h" or "--help". */
bool cna_cli_is_help(const char *arg);

/* Prints "error: <subject>: <message>" (or "error: <message>" when subject is
 * NULL) for a failed cna call to stderr; returns CNA_CLI_EXIT_FAILURE. */
int cna_cli_report_error(const char *subject, const cna_error *err);

/* What a command's FILE holds, from its first bytes. */
typedef enum cna_cli_file_kind {
    CNA_CLI_FILE_UNUSABLE = 0, /* cannot be read, or is none of the below (already reported) */
    CNA_CLI_FILE_GLTF,         /* JSON text starting with '{' (after an optional BOM and spaces) */
    CNA_CLI_FILE_GLB,          /* the GLB magic "glTF" */
    CNA_CLI_FILE_CNB           /* a .cnb baked model (cna_cnb_is_cnb) */
} cna_cli_file_kind;

/* Looks at the start of `path`. When it cannot be opened or read, or holds
 * neither glTF, GLB nor .cnb, prints "error: PATH: cannot open (<reason>)" or
 * "error: PATH: not a glTF or GLB file" to stderr (a .cnb file when
 * !accept_cnb: "error: PATH: a .cnb baked model; this command reads glTF
 * (.gltf or .glb)") and returns CNA_CLI_FILE_UNUSABLE. */
cna_cli_file_kind cna_cli_probe_file(const char *path, bool accept_cnb);

/* Clamps a --time value (`text` as typed, `seconds` its value) to
 * [0, duration] of the animation named `name`; when it moves, prints
 * "note: --time 9 is past the end of "Walk" (1.25 s); posed at 1.25 s" (or
 * "... is before the start of "Walk"; posed at 0 s") to stderr. Returns the
 * clamped time. */
double cna_cli_clamp_time(const char *text, double seconds, const char *name, double duration);

/* cna_cli_clamp_time for the time given by `option` ("--blend-time"): the
 * note names that option. */
double cna_cli_clamp_option_time(const char *option, const char *text, double seconds, const char *name,
                                 double duration);

/* ---- blending (tools/blend.c): --blend I|NAME, --blend-time SECONDS, --weight W ----
 * The pose of `cna pose` and `cna render` blended with a second animation:
 * layer 0 plays --animation at weight 1 - W, layer 1 plays --blend at
 * weight W (cna/character.h, "layers"). */
struct cna_character;

typedef struct cna_cli_blend {
    const char *animation;    /* --blend as typed; NULL without it */
    const char *time_text;    /* --blend-time as typed; NULL when not given (then --time) */
    double time;
    const char *weight_text;  /* --weight as typed; NULL when not given */
    float weight;             /* W in [0, 1]; 0.5 when not given (after cna_cli_blend_check) */
    long index;               /* after cna_cli_blend_setup: the animation's index */
    double seconds;           /* after cna_cli_blend_setup: its time, clamped to its duration */
} cna_cli_blend;   /* zero-initialise */

/* True for "--blend", "--blend-time" and "--weight" (each takes a value). */
bool cna_cli_is_blend_option(const char *arg);

/* Takes one of those options and its value. A --blend-time that is not a
 * finite number ("--blend-time: 'x' is not a number of seconds") or a
 * --weight that is not a number in [0, 1] ("--weight: '1.5' is not a
 * weight in [0, 1]") is a usage error: returns CNA_CLI_EXIT_USAGE (the
 * message printed), else -1. */
int cna_cli_blend_parse(const cna_cli_command *cmd, const char *arg, const char *value, cna_cli_blend *b);

/* After every option: --weight or --blend-time without --blend is a usage
 * error ("--weight needs --blend I|NAME"; returns CNA_CLI_EXIT_USAGE);
 * else sets the default weight and returns -1. */
int cna_cli_blend_check(const cna_cli_command *cmd, cna_cli_blend *b);

/* With --blend given: finds its animation in the character's model ("error:
 * PATH: --blend: no animation 'X' (the file has 14)"), plays it on layer 1
 * in ONCE mode, sets layer 0's weight to 1 - W and layer 1's to W, and
 * clamps its time (--blend-time, else --time as typed: `time_text`, NULL
 * when not given, and `time`; 0 without either) to its duration, with a
 * note on stderr naming the option (cna_cli_clamp_option_time). Fills
 * b->index and b->seconds. Returns -1, or CNA_CLI_EXIT_FAILURE with the
 * error printed. The character needs two layers. */
int cna_cli_blend_setup(struct cna_character *c, const char *path, const char *time_text, double time,
                        cna_cli_blend *b);

/* ---- inputs and outputs (tools/paths.c) ----
 * A command lists the files it reads, then refuses any output that is one of
 * them before it writes anything; every file is then written atomically by
 * the library (a temporary file renamed over the output once complete). */
struct cna_model;
struct cna_import_options;

typedef struct cna_cli_file {
    char *path;   /* as the document or the command line gives it */
    char *what;   /* for messages: "the input model", "buffers[0] of the input model" */
} cna_cli_file;

typedef struct cna_cli_files {
    cna_cli_file *items;
    size_t count, cap;
} cna_cli_files;   /* zero-initialise; free with cna_cli_files_free */

/* Appends a copy of `path` described by the printf-style `what_fmt`; false when out of memory. */
bool cna_cli_files_add(cna_cli_files *files, const char *path, const char *what_fmt, ...)
    CNA_CLI_PRINTF(3, 4);
void cna_cli_files_free(cna_cli_files *files);

/* True when a and b are the same file: the same device and inode, or the
 * same real path (symbolic links followed); a path that does not exist yet
 * compares as the real path of its folder + "/" + its name. */
bool cna_cli_same_file(const char *a, const char *b);

/* When `output` is the same file as one of `files`, prints
 * "error: OUT: is the same file as WHAT "PATH"; nothing was written" to
 * stderr and returns true. */
bool cna_cli_refuse_overwrite(const char *output, const cna_cli_files *files);

/* cna_model_load_file, keeping the document long enough to add the files the
 * model is read from to `files`: the .gltf/.glb itself ("the input model"),
 * each external buffer and each external image. */
cna_result cna_cli_load_gltf(const char *path, const struct cna_import_options *opts, struct cna_model **out,
                             cna_cli_files *files, cna_error *err);
/* cna_model_load_any likewise: a .cnb (recognised by its magic) is its only
 * file (its images are embedded); anything else as cna_cli_load_gltf. */
cna_result cna_cli_load_any(const char *path, const struct cna_import_options *opts, struct cna_model **out,
                            cna_cli_files *files, cna_error *err);

/* ---- clip libraries (tools/clips.c): --clips FILE, repeatable ----
 * On inspect, pose, render, view, bench, convert and play: the animations of other
 * glTF/GLB files bound to the model by node name (cna/clips.h), numbered
 * after the model's own. */
#define CNA_CLI_CLIPS_HELP(gap, indent)                                                        \
    "  --clips FILE" gap "play FILE's animations too (.gltf, .glb, .cnb; repeatable):\n" \
    indent "bound to the model's nodes by name, numbered after\n"                        \
    indent "the model's own animations, in file order\n"                               \
    "  --retarget" gap "  with --clips: retarget them onto this skeleton\n"              \
    indent "(world rotations relative to each rest pose, the\n"                         \
    indent "hips' motion scaled by the hips' heights)\n"                                \
    "  --retarget-map FILE\n"                                                           \
    indent "joint names, JSON {\"map\": {\"joint\": \"library joint\"}}\n"     \
    "  --retarget-hips NAME\n"                                                          \
    indent "the model's hips joint (default: hips or pelvis)\n"                          \
    "  --retarget-align\n"                                                              \
    indent "first turn the rest pose's mapped bones to the library's\n"

/* Takes every `--clips FILE` out of argv (before a "--"), keeping them for
 * cna_cli_clips_bind; argv[0] is the command name. A command that does not
 * take them: usage error. Returns -1, or an exit code after printing why. */
int cna_cli_clips_take(const cna_cli_command *command, int *argc, char **argv);
/* Number of --clips files given, and each path. */
size_t cna_cli_clips_count(void);
const char *cna_cli_clips_path(size_t i);
/* With --clips given: loads each file and binds them all to *model, which
 * becomes the bound model (the model itself is kept and freed at exit, after
 * the bound one); each file is added to `files` (may be NULL). Without
 * --clips: nothing. Errors name the file. */
cna_result cna_cli_clips_bind(struct cna_model **model, cna_cli_files *files, cna_error *err);
/* Keeps the libraries the next cna_cli_clips_bind loads, for
 * cna_cli_clips_print (freed at exit); without it, a binding frees them. */
void cna_cli_clips_keep_libraries(void);
/* `cna inspect --clips`: each file's animations with their bound indices and
 * matched/unmatched node names, then the binding's warnings (the libraries
 * the binding kept, else each file loaded again). */
bool cna_cli_clips_print(FILE *out, const struct cna_model *bound);
/* When `output` is a folder, prints "error: OUT: is a directory; OPTION
 * names the file to write; nothing was written" and returns true. */
bool cna_cli_refuse_directory(const char *option, const char *output);
/* Where "wrote OUT ..." goes: stderr when `output` is the file or pipe that
 * stdout is (-o /dev/stdout), so that the output stays whole; else stdout. */
FILE *cna_cli_report_stream(const char *output);
/* False for a stream of the process (/dev/stdout, /dev/fd/N), a device or a
 * pipe, which are written in place and cannot be read back; true otherwise. */
bool cna_cli_is_regular_output(const char *output);
/* Prints "error: PATH: [OPTION: ]no animation 'NAME' (the file has 3: 0
 * "Idle", 1 "Walk", 2 (unnamed))", at most the first 20 names with "the
 * file has 57; the first 20: ..." (or "(the file has 0)"). */
void cna_cli_no_animation(const char *path, const char *option, const char *name, const struct cna_model *model);

/* SIGINT and SIGTERM, from this call on, only set a flag (a second one ends
 * the process at once): a command that works through a list checks
 * cna_cli_interrupted() (the signal, or 0) between items, reports what it
 * finished, then calls cna_cli_end_interrupted(), which flushes the output
 * and ends the process by the same signal, as the caller's shell expects. */
void cna_cli_catch_interrupts(void);
int cna_cli_interrupted(void);
void cna_cli_end_interrupted(void);

/* ---- commands ---- */
int cna_cli_inspect_run(int argc, char **argv);
void cna_cli_inspect_help(FILE *out);
int cna_cli_pose_run(int argc, char **argv);
void cna_cli_pose_help(FILE *out);
int cna_cli_render_run(int argc, char **argv);
void cna_cli_render_help(FILE *out);
int cna_cli_view_run(int argc, char **argv);
void cna_cli_view_help(FILE *out);
int cna_cli_convert_run(int argc, char **argv);
void cna_cli_convert_help(FILE *out);
int cna_cli_bench_run(int argc, char **argv);
void cna_cli_bench_help(FILE *out);
int cna_cli_play_run(int argc, char **argv);
void cna_cli_play_help(FILE *out);
int cna_cli_version_run(int argc, char **argv);
void cna_cli_version_help(FILE *out);

#endif
