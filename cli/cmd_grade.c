/*
 * millaudit grade DIR --player SPEC [--positions N | --games N] [--seed S] [--sector S ...]
 *                     [--variant V] [--stones K] [--max-plies N] [--engine-timeout SEC]
 *                     [--audit A] [--html FILE] [--json] [--quiet]
 *
 * Grades a player's moves against the database DIR (ma_grade_run, millaudit/game.h; docs/grading.md).
 * Exit: 0 graded; 2 usage; 3 input unusable (database, or the player: an engine that breaks the
 * protocol; the moves graded before are kept and recorded, the run is marked "unusable");
 * 4 audit store or HTML file not writable; 5 internal; 130 / 143 interrupted (moves graded so far
 * recorded, run "interrupted").
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "millaudit.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "cli/test_hook.h"
#include "common/options.h"
#include "common/output.h"
#include "common/progress.h"

static void usage(FILE *o)
{
    fprintf(o,
            "usage: millaudit grade DIR --player SPEC [--positions N | --games N] [--seed S]\n"
            "                       [--sector S ...] [--variant V] [--stones K] [--max-plies N]\n"
            "                       [--engine-timeout SEC] [--audit FILE.sqlite] [--html FILE]\n"
            "                       [--json] [--quiet] [--no-digest-check]\n"
            "       millaudit grade --audit FILE.sqlite --run N [--html FILE] [--json]\n"
            "\n"
            "Grades every move of a player against the perfect database DIR: optimal, depth-lost\n"
            "(same outcome, slower win or faster loss) or blunder (win -> draw/loss, draw -> loss),\n"
            "by phase, by stones and by the position's value, with 95%% Wilson intervals.\n"
            "  --player SPEC     ab:EVAL:DEPTH  alpha-beta with an evaluation, e.g. ab:material:3,\n"
            "                                   ab:mills+mobility:4, ab:10*material+mobility:2\n"
            "                                   (terms: material mills openmills twos blocked mobility)\n"
            "                    random         a legal move at random\n"
            "                    cmd:COMMAND    an external engine (line protocol, docs/grading.md)\n"
            "  --positions N     N positions drawn uniformly from the positions of the sectors\n"
            "                    (default 1000; --sector restricts, else every gradable sector)\n"
            "  --games N         N games from 0_0_K_K against the perfect player instead\n"
            "  --seed S          random seed (default 1): same seed, same positions and games\n"
            "  --stones K        games: the K-stone game (default: the one start sector of DIR)\n"
            "  --max-plies N     games: a game reaching N plies is a draw (default 300)\n"
            "  --engine-timeout SEC  seconds an engine may take per answer (default 10)\n"
            "  --audit FILE      record the run (kind \"grade\") and every graded move\n"
            "  --html FILE       write a self-contained HTML report with charts\n"
            "  --json            one JSON document on stdout (docs/json/grade.schema.json)\n"
            "  --run N           with --audit: the report of stored grade run N, from its moves\n"
            "  --no-digest-check  read open-format files whose body fails the SHA-256 in their\n"
            "                    header (refused by default: exit 3 naming offset 80)\n"
            "Exit: 0 graded; 2 usage; 3 input unusable or the engine broke the protocol (moves\n"
            "graded before are kept); 4 audit store or HTML not writable; 5 internal; 130/143\n"
            "interrupted.\n");
}

/* The command line beside the engine's options. */
typedef struct args {
    ma_grade_run_options o;
    ma_grade_sectors sectors;
    const char *variant_text, *html_path;
    int64_t stored_run;
    uint64_t positions, games;
    int json, quiet;
} args;

/* A count lo..max through the one option-number parser (common/options.h). */
static int parse_count(const char *opt, const char *text, long lo, long max, uint64_t *out)
{
    long v;
    if (ma_opt_long("grade", opt, text, lo, max, &v))
        return -1;
    *out = (uint64_t)v;
    return 0;
}

/* The values that are no plain count; MA_OK or MA_EUSAGE (said). */
static int parse_value(args *a, int c, const char *arg)
{
    char *end;
    ma_error err;
    if (c == 's') {
        errno = 0;
        unsigned long long v = strtoull(arg, &end, 0);
        if (errno || *end || end == arg || arg[0] == '-')
            return ma_opt_error("grade", "--seed '%s': expected a number 0..2^64-1", arg);
        a->o.seed = v;
    } else if (c == 'S') {
        char words[sizeof err.msg + 64];
        if (ma_grade_sectors_add(&a->sectors, arg, &err))
            return ma_opt_error("grade", "%s", ma_render_option_words(err.msg, words, sizeof words));
    } else if (c == 't') {
        a->o.engine_timeout = strtod(arg, &end);
        if (*end || end == arg || !(a->o.engine_timeout >= 0.01 && a->o.engine_timeout <= 3600))
            return ma_opt_error("grade", "--engine-timeout '%s': expected 0.01..3600 seconds", arg),
                   MA_EUSAGE;
    } else if (c == 'R') {
        errno = 0;
        long long id = strtoll(arg, &end, 10);
        if (errno || *end || end == arg || id < 1)
            return ma_opt_error("grade", "--run '%s': expected a run id >= 1", arg);
        a->stored_run = id;
    }
    return MA_OK;
}

/* The options; MA_OK, MA_EUSAGE (said), or 1 for --help (printed). */
static int parse_options(int argc, char **argv, args *a)
{
    static const struct option longopts[] = {
        {"player", required_argument, NULL, 'p'},   {"positions", required_argument, NULL, 'n'},
        {"games", required_argument, NULL, 'g'},    {"seed", required_argument, NULL, 's'},
        {"sector", required_argument, NULL, 'S'},   {"variant", required_argument, NULL, 'v'},
        {"stones", required_argument, NULL, 'k'},   {"max-plies", required_argument, NULL, 'm'},
        {"engine-timeout", required_argument, NULL, 't'}, {"audit", required_argument, NULL, 'a'},
        {"html", required_argument, NULL, 'H'},     {"json", no_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},          {"help", no_argument, NULL, 'h'},
        {"run", required_argument, NULL, 'R'},      {"no-digest-check", no_argument, NULL, 'D'},
        {NULL, 0, NULL, 0}};
    uint64_t plies = 300, stones = 0;
    int c;
    optind = 1;
    while ((c = ma_opt_next("grade", argc, argv, "h", longopts)) != -1) {
        int bad = 0;
        switch (c) {
        case 'p': a->o.player = optarg; break;
        case 'n': bad = parse_count("--positions", optarg, 1, 100000000, &a->positions); break;
        case 'g': bad = parse_count("--games", optarg, 1, 10000000, &a->games); break;
        case 'm': bad = parse_count("--max-plies", optarg, 1, 100000, &plies); break;
        case 'k': bad = parse_count("--stones", optarg, 3, 12, &stones); break;
        case 's': case 'S': case 't': case 'R': bad = parse_value(a, c, optarg); break;
        case 'v': a->variant_text = optarg; break;
        case 'a': a->o.audit_path = optarg; break;
        case 'H': a->html_path = optarg; break;
        case 'j': a->json = 1; break;
        case 'D': a->o.no_digest_check = 1; break;
        case 'q': a->quiet = 1; break;
        case 'h': usage(stdout); return 1;
        default: return MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
        if (bad)
            return MA_EUSAGE;
    }
    a->o.max_plies = (int)plies;
    a->o.stones = (int)stones;
    return MA_OK;
}

/* The output check of common/output.h before any work: --html must not name an input. Returns
 * MA_OK, MA_EUSAGE when it names one, or the error that keeps it from being written (said). */
static int check_html(const char *html, const ma_output_input *inputs, size_t n)
{
    ma_error err;
    int rc = html ? ma_output_check(html, "--html", MA_OUTPUT_DOCUMENT, inputs, n, &err) : MA_OK;
    if (rc)
        fprintf(stderr, "millaudit grade: %s\n", err.msg);
    return rc == MA_EINVAL ? MA_EUSAGE : rc;
}

/* What the options say together about a live run; MA_OK or MA_EUSAGE (said). */
static int check_live(int argc, char **argv, args *a)
{
    ma_error err;
    if (optind + 1 != argc)
        return ma_opt_error("grade", "need exactly one database DIR");
    if (!a->o.player)
        return ma_opt_error("grade", "--player is required");
    if (a->positions && a->games)
        return ma_opt_error("grade", "--positions and --games exclude each other");
    if (a->games && a->sectors.n)
        return ma_opt_error("grade", "--sector applies to --positions, not to --games");
    a->o.database = argv[optind];
    /* the HTML file must not replace the database, the store or its side files */
    const ma_output_input inputs[] = {{a->o.database, "the database", MA_INPUT_FILE},
                                      {a->o.audit_path, "the audit store", MA_INPUT_STORE}};
    int refused = check_html(a->html_path, inputs, 2);
    if (refused)
        return refused;
    ma_variant v = 0;
    if (a->variant_text && ma_variant_parse(a->variant_text, &v, &err))
        return ma_opt_error("grade", "%s", err.msg);
    if (v && a->sectors.variant && v != a->sectors.variant)
        return ma_opt_error("grade", "--sector names %s, --variant %s",
                            ma_variant_name(a->sectors.variant), ma_variant_name(v));
    a->o.variant = v ? v : a->sectors.variant;
    a->o.games = a->games > 0;
    a->o.count = a->games ? a->games : a->positions ? a->positions : MA_GRADE_DEFAULT_COUNT;
    a->o.sectors = &a->sectors;
    return MA_OK;
}

/* Writes the report (HTML file first, so the JSON's exit field is the process's); returns the
 * command result. */
static int report(const ma_grading *g, const args *a)
{
    int result = ma_grading_result(g);
    if (!ma_grading_reportable(g))
        return result;
    ma_error err;
    if (a->html_path && ma_grading_write_html(a->html_path, g, &err)) {
        fprintf(stderr, "millaudit grade: %s\n", err.msg);
        result = MA_EIO;
    }
    if (ma_grading_print(stdout, g, a->json, ma_result_exit_code(result)) != 0 && a->json) {
        fprintf(stderr, "millaudit grade: out of memory\n");
        result = MA_ENOMEM;
    }
    fflush(stdout);
    return result;
}

/* --run N: the report of a grade run already in the store, recomputed from its moves. */
static int render_stored(int argc, args *a)
{
    if (!a->o.audit_path || optind != argc || a->o.player)
        return ma_opt_error("grade", "--run N renders a stored run: give --audit FILE and no "
                                     "DIR or --player");
    const ma_output_input inputs[] = {{a->o.audit_path, "the audit store", MA_INPUT_STORE}};
    int refused = check_html(a->html_path, inputs, 1);
    if (refused)
        return refused;
    ma_grading *g = NULL;
    ma_error err;
    if (ma_grading_load(&g, a->o.audit_path, a->stored_run, &err))
        fprintf(stderr, "millaudit grade: %s\n", err.msg);
    int result = report(g, a);
    ma_grading_free(g);
    return result;
}

/* Grades and prints; returns the command result. */
static int grade(int argc, char **argv, args *a)
{
    char host[256], cmdline[8192];
    ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, argc, argv);
    a->o.host = host;
    a->o.cmdline = cmdline;
    ma_progress progress;
    ma_progress_start(&progress, stderr, a->quiet || a->json, "grade", a->o.count);
    ma_progress_set_unit(&progress, a->games ? "games" : "positions");
    a->o.progress = &progress;
    a->o.cancel = ma_cli_stop_on_signals();
    ma_grading *g = NULL;
    ma_error err;
    /* the test build's stop (cli/test_hook.h); a weak reference, NULL in millaudit */
    char words[sizeof err.msg + 64];
    if ((ma_cli_test_grade_run ? ma_cli_test_grade_run : ma_grade_run)(&g, &a->o, &err))
        fprintf(stderr, "millaudit grade: %s\n", ma_render_option_words(err.msg, words, sizeof words));
    for (size_t i = 0; i < ma_grading_notes(g); i++)
        fprintf(stderr, "millaudit grade: %s\n", ma_grading_note(g, i)->msg);
    int result = report(g, a);
    ma_grading_free(g);
    return result;
}

int ma_cmd_grade(int argc, char **argv)
{
    args *a = calloc(1, sizeof *a);
    int result = a ? parse_options(argc, argv, a) : MA_ENOMEM;
    if (!a)
        fprintf(stderr, "millaudit grade: out of memory\n");
    if (result == 1)
        result = MA_OK;
    else if (result == MA_OK && a->stored_run)
        result = render_stored(argc, a);
    else if (result == MA_OK && !(result = check_live(argc, argv, a)))
        result = grade(argc, argv, a);
    free(a);
    return result; /* cli/main.c maps it to the exit status */
}
