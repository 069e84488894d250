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

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "usage: millaudit <command> [options]\n       millaudit -V | --version\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'millaudit <command> --help' describes a command; 'man millaudit' all of them.\n");
}

/* Optimal string alignment distance (Levenshtein plus adjacent transpositions), capped: names are
 * short, and anything farther than the cap is no typo. */
static int edit_distance(const char *a, const char *b)
{
    enum { CAP = 32 };
    size_t n = strlen(a), m = strlen(b);
    if (n >= CAP || m >= CAP)
        return CAP;
    int d[CAP + 1][CAP + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

/* The commands a mistyped word most likely meant, as git does it: every command within the smallest
 * distance found, if that distance is small for the word's length; a prefix also counts. Printed as
 * the end of the one-line error: "; did you mean 'verify'?" (or "'stats' or 'solve'"). */
static void suggest(const char *word)
{
    int best = 1 << 30;
    int dist[N_COMMANDS];
    size_t wl = strlen(word);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        dist[i] = edit_distance(word, commands[i].name);
        if (wl >= 2 && !strncmp(commands[i].name, word, wl))
            dist[i] = 1; /* a prefix: "ver" for verify */
        if (dist[i] < best)
            best = dist[i];
    }
    int limit = wl <= 4 ? 1 : wl <= 7 ? 2 : 3;
    if (best > limit)
        return;
    int n = 0, total = 0;
    for (size_t i = 0; i < N_COMMANDS; i++)
        total += dist[i] == best;
    fputs("; did you mean ", stderr);
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (dist[i] == best) {
            n++;
            fprintf(stderr, "%s'%s'", n == 1 ? "" : n == total ? " or " : ", ", commands[i].name);
        }
    fputs("?", stderr);
}

/* Prints s for a one-line message, control characters as '?' (a typo can hold an escape). */
static void put_word(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
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
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "version")) {
        printf("millaudit %s (git %s)\n", MA_VERSION, MA_GIT_REVISION);
        return MA_EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run ? commands[i].run(argc - 1, argv + 1) : run_typed(argv[1], argc, argv);
    fputs(argv[1][0] == '-' ? "millaudit: unknown option '" : "millaudit: unknown command '", stderr);
    put_word(stderr, argv[1]);
    fputs("'", stderr);
    if (argv[1][0] != '-')
        suggest(argv[1]);
    fputs(" (try 'millaudit --help')\n", stderr);
    return MA_EXIT_USAGE;
}
