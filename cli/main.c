/* millaudit: one CLI, one subcommand per job. main() is the only place that exits, and the only
 * place that turns what a command ends with (its result, common/verdict.h) into an exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/invocation.h"
#include "common/ma_error.h"
#include "common/options.h"
#include "common/output.h"
#include "common/verdict.h"
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
    {"manifest", NULL, "create, check or merge SHA-256 manifests of database files"}, /* typed_commands */
    {"report", ma_cmd_report, "render an audit run as text, Markdown, JSON or HTML"},
    {"runs", ma_cmd_runs, "export, import and compare audit runs across teams"},
    {"probe", ma_cmd_probe, "print a position's stored value and the value of every move"},
    {"diff", NULL, "compare two databases position by position, across formats"}, /* typed_commands */
    {"opening", ma_cmd_opening, "prove the start value by alpha-beta from the movement sectors"},
    {"grade", ma_cmd_grade, "grade a player's moves (alpha-beta, engine) against a database"},
    {"attest", ma_cmd_attest, "sign a verified run as an in-toto attestation; check one offline"},
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
        return MA_ENOMEM;
    }
    memcpy(typed, argv, (size_t)(argc + 1) * sizeof *typed);
    const ma_cli_invocation inv = {argc - 1, typed + 1};
    int result = MA_EINTERNAL;
    for (size_t i = 0; i < sizeof typed_commands / sizeof typed_commands[0]; i++)
        if (!strcmp(name, typed_commands[i].name))
            result = typed_commands[i].run(argc - 1, argv + 1, &inv);
    free(typed);
    return result;
}

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "usage: millaudit <command> [options]\n       millaudit -V | --version\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'millaudit <command> --help' or 'millaudit help <command>' describes a command; 'man millaudit'\n"
                 "all of them. Around the binary (installed beside it; each takes --help):\n"
                 "    millaudit-nightly   the nightly pipeline of a solver team (docs/nightly.md)\n"
                 "    millaudit-slurm     a sharded verify as a Slurm array job and its merge (docs/distributed.md)\n"
                 "    millaudit-parallel  a sharded verify with GNU parallel on local cores or ssh hosts\n");
}

/* The commands a mistyped word most likely meant (common/options.h, as for options), printed as the
 * end of the one-line error: "; did you mean 'verify'?" (or "'stats' or 'solve'"). */
static void suggest(const char *word)
{
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    char near[256];
    ma_opt_suggest(near, sizeof near, word, names, N_COMMANDS, "");
    if (near[0])
        fprintf(stderr, "; did you mean %s?", near);
}

/* Prints s for a one-line message, control characters as '?' (a typo can hold an escape). */
static void put_word(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

/* Every command's standard output is checked once more when it ends: a document that could not be
 * written (a full disk, a closed descriptor) is exit 4 whatever the work found, as an audit record
 * left incomplete is (README "Exit codes"); a signal's 130/143 and an internal error's 5 still win.
 * A command that already said its output failed (exit 4) is not named twice. */
static int finish(int argc, char **argv, int result)
{
    int code = ma_result_exit_code(result);
    if (code == MA_EXIT_IO || code == MA_EXIT_INTERNAL || code >= 128)
        return code;
    char cmd[96];
    int sub = argc > 2 && argv[2][0] != '-' &&
              (!strcmp(argv[1], "runs") || !strcmp(argv[1], "manifest") || !strcmp(argv[1], "attest"));
    snprintf(cmd, sizeof cmd, "%.40s%s%.40s", argv[1], sub ? " " : "", sub ? argv[2] : "");
    for (char *p = cmd; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    ma_error err;
    if (ma_output_stdout_check(&err) == MA_OK)
        return code;
    fprintf(stderr, "millaudit %s: %s\n", cmd, err.msg);
    return MA_EXIT_IO;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return MA_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "help") && argc == 3) {
        /* `millaudit help verify` is `millaudit verify --help` */
        for (size_t i = 0; i < N_COMMANDS; i++)
            if (!strcmp(argv[2], commands[i].name)) {
                char *help_argv[] = {argv[0], argv[2], "--help", NULL};
                return finish(3, help_argv, commands[i].run ? commands[i].run(2, help_argv + 1)
                                                            : run_typed(argv[2], 3, help_argv));
            }
        fputs("millaudit: unknown command '", stderr);
        put_word(stderr, argv[2]);
        fputs("'", stderr);
        suggest(argv[2]);
        fputs("\ntry 'millaudit --help'\n", stderr);
        return MA_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return finish(argc, argv, MA_OK);
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "version")) {
        printf("millaudit %s (git %s)\n", MA_VERSION, MA_GIT_REVISION);
        return finish(argc, argv, MA_OK);
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return finish(argc, argv, commands[i].run ? commands[i].run(argc - 1, argv + 1)
                                                      : run_typed(argv[1], argc, argv));
    fputs(argv[1][0] == '-' ? "millaudit: unknown option '" : "millaudit: unknown command '", stderr);
    put_word(stderr, argv[1]);
    fputs("'", stderr);
    if (argv[1][0] != '-')
        suggest(argv[1]);
    fputs("\ntry 'millaudit --help'\n", stderr);
    return MA_EXIT_USAGE;
}
