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
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* One row per command; later commands (pose, render, view, convert, bench)
 * slot in here, each implemented in tools/<name>.c. */
static const cna_cli_command cna__commands[] = {
    {"inspect", "FILE [--json]",
     "print a summary of a glTF 2.0 file (.gltf or .glb), or why it is refused",
     cna_cli_inspect_run, cna_cli_inspect_help},
    {"pose", "FILE [--scene N] [--animation I|NAME] [--time SECONDS] [--mode faithful|union]",
     "import a glTF file as a model and print its pose at a time as JSON",
     cna_cli_pose_run, cna_cli_pose_help},
    {"render", "FILE [--animation I|NAME] [--time SECONDS] [--size WxH] [--look-at ex,ey,ez,tx,ty,tz]"
     " [--fov DEGREES] [--background R,G,B] [--sheet N] [--gif OUT.gif [--frames N]] -o OUT.png",
     "draw a model headless (OpenGL through EGL, no GPU needed) and write a PNG",
     cna_cli_render_run, cna_cli_render_help},
    {"view", "FILE [--size WxH] [--frames N] [--screenshot OUT.png]",
     "open a window (GLFW) that plays a model: orbit, clips, speed, morph weights",
     cna_cli_view_run, cna_cli_view_help},
    {"convert", "IN.gltf|IN.glb|DIR -o OUT [--unit-scale S] [--skeleton OUT.cnj] [--mode faithful|union]",
     "bake a glTF file (or every one in a directory tree) as a .cnb binary model",
     cna_cli_convert_run, cna_cli_convert_help},
    {"bench", "FILE [--characters N] [--seconds S] [--runs N] [--clip NAME] [--json]",
     "time the player on every clip of a model against the seed-faithful baseline",
     cna_cli_bench_run, cna_cli_bench_help},
    {"version", "",
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

int cna_cli_report_error(const char *subject, const cna_error *err)
{
    const char *message = err->message[0] ? err->message : cna_result_name(err->code);
    if (subject)
        fprintf(stderr, "error: %s: %s\n", subject, message);
    else
        fprintf(stderr, "error: %s\n", message);
    return CNA_CLI_EXIT_FAILURE;
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
    return command->run(argc - 1, argv + 1);
}
