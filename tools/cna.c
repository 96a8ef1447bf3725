/*
 * tools/cna.c — entry point of the `cna` tool: the command table and dispatch.
 *
 *   cna <command> [options]      run a command (see `cna --help`)
 *   cna help [command]           general or per-command help
 *   cna --help | -h              general help
 *   cna --version                the version (as `cna version`)
 *
 * Exit codes: 0 success, 1 failure, 2 usage error (unknown command, bad option).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/internal.h"
#include "cna/baked.h"

#if defined(CNA_HAVE_GL)
#define CNA__HAVE_RENDER true
#else
#define CNA__HAVE_RENDER false
#endif
#if defined(CNA_HAVE_GL) && defined(CNA_HAVE_GLFW)
#define CNA__HAVE_VIEW true
#else
#define CNA__HAVE_VIEW false
#endif

/* One row per command, each implemented in tools/<name>.c. */
static const cna_cli_command cna__commands[] = {
    {"inspect", true, "FILE [--json | --brief] [--asset-root DIR] [--split-palettes] [--no-textures] [--max-decoded-size N]",
     "print a summary of a glTF 2.0 file (.gltf or .glb) or a .cnb model, or why it is refused",
     cna_cli_inspect_run, cna_cli_inspect_help},
    {"pose", true, "FILE [--scene N] [--animation I|NAME] [--time SECONDS] [--mode faithful|union] [--asset-root DIR]"
     " [--split-palettes] [--no-textures] [--max-decoded-size N] [--blend I|NAME [--blend-time SECONDS] [--weight W]]",
     "import a glTF file (or a .cnb) as a model and print its pose at a time as JSON",
     cna_cli_pose_run, cna_cli_pose_help},
    {"render", CNA__HAVE_RENDER,
     "FILE [--animation I|NAME] [--time SECONDS] [--size WxH] [--look-at ex,ey,ez,tx,ty,tz]"
     " [--fov DEGREES] [--background R,G,B] [--sheet N] [--asset-root DIR] [--split-palettes] [--no-textures] [--max-decoded-size N] [--gif OUT.gif [--frames N]]"
     " [--blend I|NAME [--blend-time SECONDS] [--weight W]] -o OUT.png",
     "draw a model headless (OpenGL through EGL, no GPU needed) and write a PNG",
     cna_cli_render_run, cna_cli_render_help},
    {"view", CNA__HAVE_VIEW, "FILE [--size WxH] [--frames N] [--screenshot OUT.png] [--help-overlay] [--asset-root DIR] [--split-palettes] [--no-textures] [--max-decoded-size N]",
     "open a window (GLFW) that plays a model: orbit, clips, speed, morph weights",
     cna_cli_view_run, cna_cli_view_help},
    {"convert", true, "IN.gltf|IN.glb|DIR -o OUT [--unit-scale S] [--skeleton OUT.cnj] [--mode faithful|union]"
     " [--reduce-keys TOL]"
     " [--asset-root DIR] [--split-palettes] [--no-textures] [--max-decoded-size N] [--marker ANIM:NAME:SECONDS]...",
     "bake a glTF file (or every one in a directory tree) as a .cnb binary model",
     cna_cli_convert_run, cna_cli_convert_help},
    {"bench", true, "FILE [--characters N] [--seconds S] [--runs N] [--clip NAME] [--json]"
     " [--sampling exact|fast] [--player-only] [--asset-root DIR] [--no-textures] [--max-decoded-size N]",
     "time the player on every clip of a model against a plain baseline player",
     cna_cli_bench_run, cna_cli_bench_help},
    {"play", true, "FILE --timeline SCRIPT --fps F --frames N [--json] [--asset-root DIR] [--split-palettes]"
     " [--no-textures] [--max-decoded-size N]",
     "play a model by a timeline of actions (play, crossfade, speed, loop) and print every frame",
     cna_cli_play_run, cna_cli_play_help},
    {"version", true, "",
     "print the version of cna (also: cna --version)",
     cna_cli_version_run, cna_cli_version_help},
};
static const size_t cna__command_count = sizeof cna__commands / sizeof cna__commands[0];

const cna_cli_command *cna_cli_find(const char *name)
{
    for (size_t i = 0; i < cna__command_count; i++)
        if (strcmp(cna__commands[i].name, name) == 0) return &cna__commands[i];
    return NULL;
}

bool cna_cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int cna_cli_usage_error(const cna_cli_command *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "cna %s: ", command->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: cna %s%s%s\n       cna %s --help\n", command->name,
            command->synopsis[0] ? " " : "", command->synopsis, command->name);
    return CNA_CLI_EXIT_USAGE;
}

int cna_cli_max_decoded_option(const cna_cli_command *cmd, int argc, char **argv, int *i, size_t *out)
{
    if (strcmp(argv[*i], "--max-decoded-size") != 0) return -2;
    if (*i + 1 >= argc) return cna_cli_usage_error(cmd, "--max-decoded-size needs a value");
    const char *v = argv[++*i];
    char *end = NULL;
    errno = 0;
    unsigned long long n = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : 0;
    unsigned shift = !end ? 0 : *end == 'k' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (end && shift) end++;
    if (errno || !end || *end || n == 0 || n > (SIZE_MAX >> shift))
        return cna_cli_usage_error(cmd, "--max-decoded-size: '%s' is not a byte count (N, Nk, NM or NG)", v);
    *out = (size_t)n << shift;
    return -1;
}

int cna_cli_report_error(const char *subject, const cna_error *err)
{
    const char *message = err->message[0] ? err->message : cna_result_name(err->code);
    if (subject)
        fprintf(stderr, "error: %s: %s\n", subject, message);
    else
        fprintf(stderr, "error: %s\n", message);
    return CNA_CLI_EXIT_FAILURE;
}

cna_cli_file_kind cna_cli_probe_file(const char *path, bool accept_cnb)
{
    unsigned char head[512];
    /* opened without blocking: a FIFO, directory or device is refused unread */
    FILE *f = NULL;
    uint64_t file_size = 0;
    const int open_error = cna__file_open_regular(path, &f, &file_size);
    if (open_error == CNA__FILE_NOT_REGULAR) {
        fprintf(stderr, "error: %s: not a regular file\n", path);
        return CNA_CLI_FILE_UNUSABLE;
    }
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (!f || ferror(f)) {
        fprintf(stderr, "error: %s: cannot open (%s)\n", path, strerror(f ? errno : open_error));
        if (f) fclose(f);
        return CNA_CLI_FILE_UNUSABLE;
    }
    fclose(f);
    if (got >= 4 && memcmp(head, "glTF", 4) == 0) return CNA_CLI_FILE_GLB;
    if (cna_cnb_is_cnb(head, got)) {
        if (accept_cnb) return CNA_CLI_FILE_CNB;
        fprintf(stderr, "error: %s: a .cnb baked model; this command reads glTF (.gltf or .glb)\n", path);
        return CNA_CLI_FILE_UNUSABLE;
    }
    size_t i = got >= 3 && memcmp(head, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (i < got && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) i++;
    /* Only spaces in the first bytes: let the reader say what it finds. */
    if (i == got && got == sizeof head) return CNA_CLI_FILE_GLTF;
    if (i < got && head[i] == '{') return CNA_CLI_FILE_GLTF;
    fprintf(stderr, "error: %s: not a glTF or GLB file\n", path);
    return CNA_CLI_FILE_UNUSABLE;
}

double cna_cli_clamp_option_time(const char *option, const char *text, double seconds, const char *name,
                                 double duration)
{
    if (seconds < 0.0) {
        fprintf(stderr, "note: %s %s is before the start of \"%s\"; posed at 0 s\n", option, text,
                name ? name : "");
        return 0.0;
    }
    if (seconds > duration) {
        fprintf(stderr, "note: %s %s is past the end of \"%s\" (%g s); posed at %g s\n", option, text,
                name ? name : "", duration, duration);
        return duration;
    }
    return seconds;
}

double cna_cli_clamp_time(const char *text, double seconds, const char *name, double duration)
{
    return cna_cli_clamp_option_time("--time", text, seconds, name, duration);
}

static void cna__print_usage(FILE *out)
{
    fprintf(out,
            "usage: cna <command> [options]\n"
            "       cna help [command]\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < cna__command_count; i++) {
        const cna_cli_command *c = &cna__commands[i];
        if (!c->built) continue;
        if (c->synopsis[0])
            fprintf(out, "  %-10s %s\n", c->name, c->synopsis);
        else
            fprintf(out, "  %s\n", c->name);
        fprintf(out, "             %s\n", c->summary);
    }
    fprintf(out,
            "\n"
            "exit status: 0 success, 1 failure (file refused, I/O error), 2 usage error\n");
}

static int cna__help(int argc, char **argv)
{
    if (argc == 1) {
        cna__print_usage(stdout);
        return CNA_CLI_EXIT_OK;
    }
    const cna_cli_command *command = argc == 2 ? cna_cli_find(argv[1]) : NULL;
    if (!command) {
        if (argc == 2)
            fprintf(stderr, "cna help: unknown command '%s'\n", argv[1]);
        else
            fprintf(stderr, "cna help: takes at most one command name\n");
        cna__print_usage(stderr);
        return CNA_CLI_EXIT_USAGE;
    }
    command->help(stdout);
    return CNA_CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "cna: missing command\n");
        cna__print_usage(stderr);
        return CNA_CLI_EXIT_USAGE;
    }
    if (cna_cli_is_help(argv[1])) {
        if (argc > 2) {
            fprintf(stderr, "cna: unexpected argument '%s'\n", argv[2]);
            cna__print_usage(stderr);
            return CNA_CLI_EXIT_USAGE;
        }
        cna__print_usage(stdout);
        return CNA_CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "help") == 0) return cna__help(argc - 1, argv + 1);
    if (strcmp(argv[1], "--version") == 0) return cna_cli_version_run(argc - 1, argv + 1);
    const cna_cli_command *command = cna_cli_find(argv[1]);
    if (!command) {
        fprintf(stderr, "cna: unknown command '%s'\n", argv[1]);
        cna__print_usage(stderr);
        return CNA_CLI_EXIT_USAGE;
    }
    int sub_argc = argc - 1;
    int taken = cna_cli_clips_take(command, &sub_argc, argv + 1);
    if (taken >= 0) return taken;
    return command->run(sub_argc, argv + 1);
}
