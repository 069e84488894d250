/*
 * millaudit opening DIR --variant V --stones K [--tt-mb N] [--only-sectors LIST] [--audit A]
 *                       [--no-compare] [--max-rows N] [--json] [--quiet]
 *
 * Gasser's opening proof (ma_opening_run, millaudit/game.h; docs/opening.md): proves the value of 0_0_K_K by
 * alpha-beta over the placement phase with only the movement sectors of DIR as leaves, and
 * compares every placement position it resolves with DIR's stored value where DIR holds its sector.
 * Exit: 0 the game value (outcome) is proven and nothing disagrees; 1 a discrepancy (a stored
 * placement value, the stored start value included, contradicts the proof); 2 usage; 3 the
 * outcome is not proven (movement sectors absent or excluded) or an input is unusable; 4 the audit
 * store is not writable; 5 internal; 130 / 143 interrupted.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "millaudit.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "common/options.h"
#include "common/progress.h"

static void usage(FILE *o)
{
    fprintf(o,
            "usage: millaudit opening DIR --variant std|mora --stones K [--tt-mb N]\n"
            "                         [--only-sectors W_B_0_0,...] [--audit FILE.sqlite]\n"
            "                         [--no-compare] [--max-rows N] [--json] [--quiet] [--no-digest-check]\n"
            "\n"
            "Proves the value of the K-stone game (start sector 0_0_K_K) by alpha-beta over the\n"
            "placement phase whose leaves are the movement sectors W_B_0_0 of DIR (open or Malom\n"
            "format); placement sectors of DIR are never read as leaves. Prints the value (outcome and\n"
            "depth in plies), the principal variation, nodes, transposition-table hits and time.\n"
            "  --tt-mb N          transposition table size in MiB (default 64)\n"
            "  --only-sectors L   use only these movement sectors as leaves, as if the others were\n"
            "                     absent; leaves in absent sectors take [loss, win] and the output\n"
            "                     says whether the value is still proven\n"
            "  --no-compare       do not compare resolved placement positions with DIR's values\n"
            "  --audit FILE       record the run (kind \"opening\") and its discrepancies\n"
            "  --max-rows N       discrepancy rows kept (counts stay exact; default 1000)\n"
            "  --json             one JSON document (docs/json/opening.schema.json)\n"
            "  --no-digest-check  read open-format files whose body fails the SHA-256 in their header\n"
            "                     (refused by default: exit 3 naming offset 80)\n"
            "Exit: 0 value proven, no discrepancy; 1 discrepancies; 2 usage; 3 value not proven or\n"
            "input unusable; 4 audit store not writable; 5 internal; 130/143 interrupted.\n");
}

/* The command line: MA_OK with *o filled, MA_EUSAGE (said), or 1 for --help (printed). */
static int parse(int argc, char **argv, ma_opening_run_options *o, int *json, int *quiet)
{
    static const struct option longopts[] = {
        {"variant", required_argument, NULL, 'v'},  {"stones", required_argument, NULL, 'k'},
        {"tt-mb", required_argument, NULL, 't'},    {"only-sectors", required_argument, NULL, 'o'},
        {"audit", required_argument, NULL, 'a'},    {"no-compare", no_argument, NULL, 'n'},
        {"max-rows", required_argument, NULL, 'r'}, {"json", no_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},          {"help", no_argument, NULL, 'h'},
        {"no-digest-check", no_argument, NULL, 'D'}, {NULL, 0, NULL, 0}};
    const char *variant_text = NULL;
    long stones = 0, tt_mb = 64, max_rows = 1000;
    int c;
    optind = 1;
    while ((c = ma_opt_next("opening", argc, argv, "h", longopts)) != -1) {
        switch (c) {
        case 'v': variant_text = optarg; break;
        case 'k':
            if (ma_opt_long("opening", "--stones", optarg, 3, 12, &stones))
                return MA_EUSAGE;
            break;
        case 't':
            if (ma_opt_long("opening", "--tt-mb", optarg, 1, 65536, &tt_mb))
                return MA_EUSAGE;
            break;
        case 'o': o->only_sectors = optarg; break;
        case 'a': o->audit_path = optarg; break;
        case 'n': o->no_compare = 1; break;
        case 'D': o->no_digest_check = 1; break;
        case 'r':
            if (ma_opt_long("opening", "--max-rows", optarg, 0, 10000000, &max_rows))
                return MA_EUSAGE;
            break;
        case 'j': *json = 1; break;
        case 'q': *quiet = 1; break;
        case 'h': usage(stdout); return 1;
        default: return MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    ma_error err;
    if (optind + 1 != argc)
        ma_opt_error("opening", "need exactly one database DIR");
    else if (!variant_text || !stones)
        ma_opt_error("opening", "--variant and --stones are required");
    else if (ma_variant_parse(variant_text, &o->variant, &err))
        ma_opt_error("opening", "%s", err.msg);
    else {
        o->database = argv[optind];
        o->stones = (int)stones;
        o->tt_mb = (size_t)tt_mb;
        o->max_rows = (size_t)max_rows;
        return MA_OK;
    }
    return MA_EUSAGE;
}

/* Runs the proof and prints it; returns the command result. */
static int run(ma_opening_run_options *o, int json, int quiet, int argc, char **argv)
{
    char host[256], cmdline[8192], label[64];
    ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, argc, argv);
    o->host = host;
    o->cmdline = cmdline;
    ma_progress progress;
    snprintf(label, sizeof label, "opening %s_0_0_%d_%d", ma_variant_name(o->variant), o->stones,
             o->stones);
    ma_progress_start(&progress, stderr, quiet || json, label, 0);
    ma_progress_set_unit(&progress, "nodes");
    o->progress = &progress;
    o->cancel = ma_cli_stop_on_signals();
    ma_opening_proof *proof = NULL;
    ma_error err;
    ma_error_clear(&err);
    int rc = ma_opening_run(&proof, o, &err);
    char words[sizeof err.msg + 64];
    ma_render_option_words(err.msg, words, sizeof words);
    if (rc == MA_EUSAGE)
        ma_opt_error("opening", "%s", words);
    else if (rc)
        fprintf(stderr, "millaudit opening: %s\n", words);
    int printed = 0;
    if (ma_opening_proof_searched(proof)) {
        printed = ma_opening_proof_print(stdout, proof, json);
        if (printed != 0 && json)
            fprintf(stderr, "millaudit opening: out of memory\n");
        fflush(stdout);
    }
    const char *warning = ma_opening_proof_warning(proof);
    if (warning)
        fprintf(stderr, "millaudit opening: %s\n", warning);
    const ma_error *store_error = ma_opening_proof_store_error(proof);
    if (store_error)
        fprintf(stderr, "millaudit opening: %s\n", store_error->msg);
    int result = printed != 0 && json ? MA_ENOMEM : ma_opening_proof_result(proof);
    ma_opening_proof_free(proof);
    return result;
}

int ma_cmd_opening(int argc, char **argv)
{
    ma_opening_run_options o = {0};
    int json = 0, quiet = 0;
    int result = parse(argc, argv, &o, &json, &quiet);
    if (result == 1)
        result = MA_OK;
    else if (result == MA_OK)
        result = run(&o, json, quiet, argc, argv);
    return result; /* cli/main.c maps it to the exit status */
}
