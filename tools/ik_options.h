/*
 * tools/ik_options.h — the IK options of `cna pose` and `cna render`
 * (tools/ik_options.c): --ik END=X,Y,Z with --ik-pole, --ik-weight,
 * --ik-soften, --ik-twist, and --aim JOINT=X,Y,Z with --aim-forward,
 * --aim-up, --aim-offset, --aim-weight. They are applied after the
 * animation, in the order given, as the character's pose edit.
 */
#ifndef CNA_TOOLS_IK_OPTIONS_H
#define CNA_TOOLS_IK_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "cna/ik.h"

/* The most --ik and --aim options, together. */
#define CNA_CLI_IK_MAX 16

typedef struct cna_cli_ik_op {
    bool aim;                 /* --aim, else --ik */
    char joint[256];          /* the name before the last '=' */
    cna_ik_two_bone two_bone; /* --ik and its modifiers */
    cna_ik_aim aim_ik;        /* --aim and its modifiers */
} cna_cli_ik_op;

typedef struct cna_cli_ik {
    cna_cli_ik_op ops[CNA_CLI_IK_MAX];
    size_t count;
    const char *path;         /* for messages (set by cna_cli_ik_attach) */
} cna_cli_ik;   /* zero-initialise */

/* True for the ten options (each takes a value). */
bool cna_cli_is_ik_option(const char *arg);

/* Takes one of them and its value; returns -1, or CNA_CLI_EXIT_USAGE after
 * printing the usage error ("--ik: 'Hand' is not NAME=X,Y,Z", "--ik-pole
 * needs an --ik before it", "--ik-weight: '2' is not a weight in [0, 1]"). */
int cna_cli_ik_parse(const cna_cli_command *cmd, const char *arg, const char *value, cna_cli_ik *ik);

/* With any option given: makes the options the character's pose edit
 * (cna_character_set_pose_edit), so that every pose applies them; `ik`
 * must outlive the character's poses. Returns -1, or an exit code after
 * printing the error. */
int cna_cli_ik_attach(struct cna_character *c, const char *path, cna_cli_ik *ik);

/* The options' lines of a --help (gap after "--ik END=X,Y,Z", indent of
 * continuation lines: as the command's other options). */
void cna_cli_ik_help(FILE *out, int column);

#endif
