/* millaudit: one CLI, one subcommand per job. main() is the only place that exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/invocation.h"
#include "common/ma_error.h"
#include "ma_version.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"solve", ma_cmd_solve, "solve sectors or a whole game with the reference producer"},
    {"stats", ma_cmd_stats, "per-sector outcome counts and depth histograms of a database"},
    {"dump", ma_cmd_dump, "print every entry of a sector file as '<board> <outcome> <depth>'"},
    {"verify", ma_cmd_verify, "re-derive every outcome and depth; record discrepancies"},
    {"index-check", ma_cmd_index_check, "prove the index scheme on a sector exhaustively"},
    {"manifest", NULL, "create or check SHA-256 manifests of database files"}, /* typed_commands */
    {"report", ma_cmd_report, "render an audit run as text, Markdown, JSON or HTML"},
    {"runs", ma_cmd_runs, "export, import and compare audit runs across teams"},
    {"probe", ma_cmd_probe, "print a position's stored value and the value of every move"},
    {"diff", NULL, "compare two databases position by position, across formats"}, /* typed_commands */
    {"opening", ma_cmd_opening, "prove the start value by alpha-beta from the movement sectors"},
    {"grade", ma_cmd_grade, "grade a player's moves (alpha-beta, engine) against a database"},
};

/* Commands that record their command line in an audit store take it as typed: getopt_long permutes
 * the array it parses, so main keeps a copy made before any command runs (cli/cli_util.h). */
static const struct typed_command {
    const char *name;
    int (*run)(int argc, char **argv, const ma_cli_invocation *typed);
} typed_commands[] = {
    {"manifest", ma_cmd_manifest},
    {"diff", ma_cmd_diff},
};

static int run_typed(const char *name, int argc, char **argv)
{
    char **typed = malloc((size_t)(argc + 1) * sizeof *typed);
    if (!typed) {
        fprintf(stderr, "millaudit: out of memory\n");
        return MA_EXIT_INTERNAL;
    }
    memcpy(typed, argv, (size_t)(argc + 1) * sizeof *typed);
    const ma_cli_invocation inv = {argc - 1, typed + 1};
    int status = MA_EXIT_INTERNAL;
    for (size_t i = 0; i < sizeof typed_commands / sizeof typed_commands[0]; i++)
        if (!strcmp(name, typed_commands[i].name))
            status = typed_commands[i].run(argc - 1, argv + 1, &inv);
    free(typed);
    return status;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: millaudit <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'millaudit <command> --help' describes a command; 'millaudit --version' the build.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return MA_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return MA_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("millaudit %s (git %s)\n", MA_VERSION, MA_GIT_REVISION);
        return MA_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run ? commands[i].run(argc - 1, argv + 1) : run_typed(argv[1], argc, argv);
    fprintf(stderr, "millaudit: unknown command '%s' (try 'millaudit --help')\n", argv[1]);
    return MA_EXIT_USAGE;
}
