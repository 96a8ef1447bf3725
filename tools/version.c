/*
 * tools/version.c — `cna version` (also `cna --version`): print the version.
 *
 * Prints "cna MAJOR.MINOR.PATCH" (the library's cna_version(), the one this
 * tool was built with) and exits 0; an argument is a usage error (exit 2).
 */
#include <stdio.h>

#include "cli.h"
#include "cna/version.h"

void cna_cli_version_help(FILE *out)
{
    fprintf(out,
            "usage: cna version\n"
            "       cna --version\n"
            "\n"
            "Prints the version of cna as \"cna MAJOR.MINOR.PATCH\" (e.g. \"cna %s\").\n"
            "\n"
            "exit status: 0; 2 usage error (an argument).\n",
            CNA_VERSION_STRING);
}

int cna_cli_version_run(int argc, char **argv)
{
    if (argc == 2 && cna_cli_is_help(argv[1])) {
        cna_cli_version_help(stdout);
        return CNA_CLI_EXIT_OK;
    }
    if (argc > 1)
        return cna_cli_usage_error(cna_cli_find("version"), "unexpected argument '%s'", argv[1]);
    printf("cna %s\n", cna_version());
    return CNA_CLI_EXIT_OK;
}
