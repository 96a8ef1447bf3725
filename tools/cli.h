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
#include <stdio.h>

#include "cna/result.h"

enum {
    CNA_CLI_EXIT_OK = 0,      /* the command did what was asked */
    CNA_CLI_EXIT_FAILURE = 1, /* the input was refused or could not be read/written */
    CNA_CLI_EXIT_USAGE = 2    /* unknown command, unknown option, missing argument */
};

typedef struct cna_cli_command {
    const char *name;                  /* as typed: "inspect" */
    const char *synopsis;              /* arguments after the name: "FILE [--json]" */
    const char *summary;               /* one line for `cna --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the command name; returns an exit code */
    void (*help)(FILE *out);           /* full usage text of the command */
} cna_cli_command;

/* Prints "cna <command>: <message>" and the command's synopsis to stderr;
 * returns CNA_CLI_EXIT_USAGE. */
int cna_cli_usage_error(const cna_cli_command *command, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The command named `name`, or NULL. */
const cna_cli_command *cna_cli_find(const char *name);

/* True when arg is "-h" or "--help". */
bool cna_cli_is_help(const char *arg);

/* Prints "error: <subject>: <message>" (or "error: <message>" when subject is
 * NULL) for a failed cna call to stderr; returns CNA_CLI_EXIT_FAILURE. */
int cna_cli_report_error(const char *subject, const cna_error *err);

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
int cna_cli_version_run(int argc, char **argv);
void cna_cli_version_help(FILE *out);

#endif
