/*
 * millaudit grade DIR --player SPEC [--positions N | --games N] [--seed S] [--sector S ...]
 *                     [--variant V] [--stones K] [--max-plies N] [--engine-timeout SEC]
 *                     [--audit A] [--html FILE] [--json] [--quiet]
 *
 * Grades a player's moves against the database DIR (audit/grade.h, docs/grading.md).
 * Exit: 0 graded; 2 usage; 3 input unusable (database, or the player: an engine that breaks the
 * protocol; the moves graded before are kept and recorded, the run is marked "unusable");
 * 4 audit store or HTML file not writable; 5 internal; 130 / 143 interrupted (moves graded so far
 * recorded, run "interrupted").
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/audit_store.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "cli/test_hook.h"
#include "common/ma_error.h"
#include "common/output.h"
#include "common/options.h"
#include "common/progress.h"
#include "formats/source.h"
#include "ma_version.h"
#include "store/audit.h"
#include "store/audit_game.h"
#include "render/grade_report.h"
#include "audit/grade.h"
#include "audit/player.h"

#define BATCH 256

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

typedef struct recorder {
    ma_audit *audit;
    int64_t run_id;
    ma_audit_grade_move rows[BATCH];
    char boards[BATCH][80];
    char sectors[BATCH][40];
    char moves[BATCH][24];
    size_t n;
    uint64_t recorded;
} recorder;

static int flush(recorder *r, ma_error *err)
{
    if (!r->audit || !r->n)
        return MA_OK;
    int rc = ma_audit_grade_moves_add(r->audit, r->run_id, r->rows, r->n, err);
    if (!rc)
        r->recorded += r->n;
    r->n = 0;
    return rc;
}

static int on_move(void *ctx, const ma_grade_move *m, ma_error *err)
{
    recorder *r = ctx;
    if (!r->audit)
        return MA_OK;
    size_t i = r->n;
    ma_board_format(m->board, r->boards[i], sizeof r->boards[i]);
    snprintf(r->sectors[i], sizeof r->sectors[i], "%s", m->sector_name);
    snprintf(r->moves[i], sizeof r->moves[i], "%s", m->move);
    r->rows[i] = (ma_audit_grade_move){
        .seq = m->seq,
        .game = m->game,
        .ply = m->ply,
        .sector = r->sectors[i],
        .board = r->boards[i],
        .phase = m->phase,
        .mover_stones = m->mover_stones,
        .opponent_stones = m->opponent_stones,
        .turns = m->turns,
        .optimal_turns = m->optimal_turns,
        .blunder_possible = m->blunder_possible,
        .value_outcome = m->value.outcome,
        .value_depth = m->value.depth,
        .move = r->moves[i],
        .move_outcome = m->move_value.outcome,
        .move_depth = m->move_value.depth,
        .cls = m->cls,
        .seconds = m->seconds,
    };
    if (++r->n == BATCH)
        return flush(r, err);
    return MA_OK;
}

/* Renders the HTML report in memory, then writes it through common/output.h: a regular file is
 * replaced atomically (never a half-written report), a device or FIFO written through. */
static int write_html(const char *path, const ma_grade_report_info *info, const ma_grade_tally *t,
                      ma_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    int bad = ma_grade_report_html(f, info, t);
    if (fclose(f) != 0)
        bad = 1;
    int rc = bad || !buf ? ma_error_set(err, MA_ENOMEM, "%s: out of memory", path)
                         : ma_output_write(path, buf, len, err);
    free(buf);
    return rc;
}

/* --run N: the report of a grade run already in the store, recomputed from its moves. */
static int render_stored(const char *audit_path, int64_t run_id, int json, const char *html_path)
{
    ma_audit *a = NULL;
    ma_error err;
    ma_error_clear(&err);
    if (ma_cli_audit_open_existing(&a, audit_path, &err)) {
        fprintf(stderr, "millaudit grade: %s\n", err.msg);
        return ma_exit_code_for(err.code) == MA_EXIT_IO ? MA_EXIT_BAD_INPUT : ma_exit_code_for(err.code);
    }
    ma_audit_grade_stored g;
    ma_grade_tally *t = calloc(1, sizeof *t);
    int rc = t ? ma_audit_grade_read(a, run_id, &g, &err) : ma_error_set(&err, MA_ENOMEM, "out of memory");
    if (!rc && (rc = ma_audit_grade_load(a, run_id, t, &err)))
        ma_audit_grade_stored_free(&g);
    ma_audit_close(a);
    if (rc) {
        fprintf(stderr, "millaudit grade: %s\n", err.msg);
        free(t);
        return rc == MA_ENOMEM ? MA_EXIT_INTERNAL : MA_EXIT_BAD_INPUT;
    }
    const char *unknown = "?";
    ma_grade_report_info info = {
        .player = g.player ? g.player : unknown,
        .database = g.database ? g.database : unknown,
        .variant = g.variant ? g.variant : unknown,
        .format = g.format ? g.format : unknown,
        .mode = g.mode ? g.mode : unknown,
        .seed = g.seed,
        .requested = g.requested,
        .sectors = g.sectors,
        .n_sectors = g.totals.n_sectors,
        .skipped_no_turn = g.totals.skipped_no_turn,
        .skipped_bad = g.totals.skipped_bad,
        .stones = g.totals.stones,
        .games = g.totals.games,
        .player_wins = g.totals.player_wins,
        .player_draws = g.totals.player_draws,
        .player_losses = g.totals.player_losses,
        .games_capped = g.totals.games_capped,
        .seconds = g.totals.seconds,
        .player_seconds = g.totals.player_seconds,
        .status = g.status ? g.status : "interrupted", /* no status: the run never ended */
        .message = g.message,
        .run_id = run_id,
    };
    int exit_code = MA_EXIT_OK;
    if (html_path && write_html(html_path, &info, t, &err)) {
        fprintf(stderr, "millaudit grade: %s\n", err.msg);
        exit_code = MA_EXIT_IO;
    }
    if (json) {
        json_t *o = ma_grade_report_json(&info, t);
        json_object_set_new(o, "exit", json_integer(exit_code));
        json_dumpf(o, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(o);
    } else {
        ma_grade_report_text(stdout, &info, t);
    }
    ma_audit_grade_stored_free(&g);
    free(t);
    return exit_code;
}

/* A count 1..max through the one option-number parser (common/options.h). */
static int parse_count(const char *opt, const char *text, uint64_t max, uint64_t *out)
{
    long v;
    if (ma_opt_long("grade", opt, text, 1, (long)max, &v))
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int ma_cmd_grade(int argc, char **argv)
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
    ma_database_options dbo = {0};
    int64_t stored_run = 0;
    const char *player_spec = NULL, *variant_text = NULL, *audit_path = NULL, *html_path = NULL;
    uint64_t positions = 0, games = 0, seed = 1, tmp = 0;
    int json = 0, quiet = 0, c, stones = 0, max_plies = 300;
    double timeout = 10.0;
    ma_sector sectors[256];
    size_t n_sectors = 0;
    ma_variant sector_variant = 0;
    char *end;
    ma_error err;
    ma_error_clear(&err);
    optind = 1;
    while ((c = ma_opt_next("grade", argc, argv, "h", longopts)) != -1) {
        switch (c) {
        case 'p': player_spec = optarg; break;
        case 'n':
            if (parse_count("--positions", optarg, 100000000, &positions))
                return MA_EXIT_USAGE;
            break;
        case 'g':
            if (parse_count("--games", optarg, 10000000, &games))
                return MA_EXIT_USAGE;
            break;
        case 's': {
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 0);
            if (errno || *end || end == optarg || optarg[0] == '-') {
                return ma_opt_error("grade", "--seed '%s': expected a number 0..2^64-1", optarg);
            }
            seed = v;
            break;
        }
        case 'S': {
            char buf[1024];
            snprintf(buf, sizeof buf, "%s", optarg);
            for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                ma_variant v = 0;
                int named = 0;
                if (n_sectors == sizeof sectors / sizeof sectors[0]) {
                    return ma_opt_error("grade", "--sector: more than %zu sectors", n_sectors);
                }
                if (ma_sector_arg_parse(tok, &v, &named, &sectors[n_sectors], &err)) {
                    return ma_opt_error("grade", "%s", err.msg);
                }
                if (named) {
                    if (sector_variant && sector_variant != v) {
                        return ma_opt_error("grade", "--sector: sectors of two variants");
                    }
                    sector_variant = v;
                }
                n_sectors++;
            }
            break;
        }
        case 'v': variant_text = optarg; break;
        case 'k':
            stones = (int)strtol(optarg, &end, 10);
            if (*end || end == optarg || stones < 3 || stones > 12) {
                return ma_opt_error("grade", "--stones '%s': expected 3..12", optarg);
            }
            break;
        case 'm':
            if (parse_count("--max-plies", optarg, 100000, &tmp))
                return MA_EXIT_USAGE;
            max_plies = (int)tmp;
            break;
        case 't':
            timeout = strtod(optarg, &end);
            if (*end || end == optarg || !(timeout >= 0.01 && timeout <= 3600)) {
                return ma_opt_error("grade", "--engine-timeout '%s': expected 0.01..3600 seconds",
                        optarg);
            }
            break;
        case 'a': audit_path = optarg; break;
        case 'H': html_path = optarg; break;
        case 'j': json = 1; break;
        case 'D': dbo.no_digest_check = 1; break;
        case 'q': quiet = 1; break;
        case 'R':
            if (ma_cli_parse_run_id(optarg, &stored_run)) {
                return ma_opt_error("grade", "--run '%s': expected a run id >= 1", optarg);
            }
            break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default:
            return MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (stored_run) {
        if (!audit_path || optind != argc || player_spec) {
            return ma_opt_error("grade", "--run N renders a stored run: give --audit FILE and no " "DIR or --player");
        }
        const ma_output_input inputs[] = {{audit_path, "the audit store", MA_INPUT_STORE}};
        int refused = ma_cli_check_output("grade", html_path, "--html", MA_OUTPUT_DOCUMENT, inputs, 1);
        if (refused)
            return refused;
        return render_stored(audit_path, stored_run, json, html_path);
    }
    if (optind + 1 != argc) {
        return ma_opt_error("grade", "need exactly one database DIR");
    }
    if (!player_spec) {
        return ma_opt_error("grade", "--player is required");
    }
    if (positions && games) {
        return ma_opt_error("grade", "--positions and --games exclude each other");
    }
    if (games && n_sectors) {
        return ma_opt_error("grade", "--sector applies to --positions, not to --games");
    }
    if (!games && !positions)
        positions = 1000;
    const char *dir = argv[optind];
    {
        /* the HTML file must not replace the database, the store or its side files */
        const ma_output_input inputs[] = {{dir, "the database", MA_INPUT_FILE},
                                          {audit_path, "the audit store", MA_INPUT_STORE}};
        int refused = ma_cli_check_output("grade", html_path, "--html", MA_OUTPUT_DOCUMENT, inputs, 2);
        if (refused)
            return refused;
    }
    ma_variant v = 0;
    if (variant_text && ma_variant_parse(variant_text, &v, &err)) {
        return ma_opt_error("grade", "%s", err.msg);
    }
    if (v && sector_variant && v != sector_variant) {
        return ma_opt_error("grade", "--sector names %s, --variant %s",
                ma_variant_name(sector_variant), ma_variant_name(v));
    }
    if (!v)
        v = sector_variant;

    int exit_code = MA_EXIT_OK;
    ma_database *db = NULL;
    ma_player *player = NULL;
    recorder *rec = calloc(1, sizeof *rec);
    ma_grade_result *res = calloc(1, sizeof *res);
    const char *status = "ok";
    char message[600] = "";
    if (!rec || !res) {
        fprintf(stderr, "millaudit grade: out of memory\n");
        free(rec);
        free(res);
        return MA_EXIT_INTERNAL;
    }
    if (ma_database_open(&db, dir, &dbo, &err)) {
        fprintf(stderr, "millaudit grade: %s\n", err.msg);
        exit_code = MA_EXIT_BAD_INPUT;
        goto done;
    }
    unsigned vars = ma_database_variants(db);
    if (!v) {
        if (!vars) {
            fprintf(stderr, "millaudit grade: %s: holds no sector file\n", dir);
            exit_code = MA_EXIT_BAD_INPUT;
            goto done;
        }
        if (vars & (vars - 1)) {
            fprintf(stderr, "millaudit grade: %s: holds several variants; choose one with --variant\n", dir);
            exit_code = MA_EXIT_USAGE;
            goto done;
        }
        v = (ma_variant)__builtin_ctz(vars);
    } else if (!(vars & (1u << v))) {
        fprintf(stderr, "millaudit grade: %s: holds no %s sector file\n", dir, ma_variant_name(v));
        exit_code = MA_EXIT_BAD_INPUT;
        goto done;
    }
    if (ma_player_create(&player, player_spec, v, timeout, &err)) {
        fprintf(stderr, "millaudit grade: %s\n", err.msg);
        /* a spec that does not parse is a usage error; an engine that cannot start or fails its
         * handshake is an input the command cannot use */
        exit_code = strncmp(player_spec, "cmd:", 4) != 0 ? MA_EXIT_USAGE
                    : err.code == MA_ENOMEM            ? MA_EXIT_INTERNAL
                                                       : MA_EXIT_BAD_INPUT;
        goto done;
    }
    if (audit_path) {
        if (ma_audit_open(&rec->audit, audit_path, &err)) {
            fprintf(stderr, "millaudit grade: %s\n", err.msg);
            /* a store that is not SQLite, foreign, newer or corrupt is unusable input (3); a store
             * that cannot be created or written is an output failure (4) */
            exit_code = ma_exit_code_for(err.code);
            goto done;
        }
        char host[256], cmdline[8192], root[PATH_MAX];
        ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, argc, argv);
        if (!realpath(dir, root))
            snprintf(root, sizeof root, "%s", dir);
        ma_run_info info = {"grade", MA_VERSION, MA_GIT_REVISION, host, cmdline, root,
                            ma_variant_name(v), ma_format_name(ma_database_format(db))};
        ma_audit_grade_run g = {ma_player_name(player), games ? "games" : "positions", seed,
                                games ? games : positions, NULL, games ? max_plies : 0};
        if (ma_audit_run_begin(rec->audit, &info, &rec->run_id, &err) ||
            ma_audit_grade_begin(rec->audit, rec->run_id, &g, &err)) {
            fprintf(stderr, "millaudit grade: %s\n", err.msg);
            exit_code = MA_EXIT_IO;
            goto done;
        }
    }

    const volatile sig_atomic_t *stop_signal = ma_cli_stop_on_signals();
    ma_progress progress;
    char label[96];
    snprintf(label, sizeof label, "grade %.80s", ma_player_name(player));
    ma_progress_start(&progress, stderr, quiet || json, label, games ? games : positions);
    snprintf(progress.unit, sizeof progress.unit, games ? "games" : "positions");
    ma_grade_options opt = {
        .variant = v,
        .games = games > 0,
        .count = games ? games : positions,
        .seed = seed,
        .sectors = n_sectors ? sectors : NULL,
        .n_sectors = n_sectors,
        .stones = stones,
        .max_plies = max_plies,
        .progress = &progress,
        .cancel = stop_signal,
        /* the test build's stop (cli/test_hook.h); a weak reference, NULL in millaudit */
        .stop_after_moves = ma_cli_test_stop_after_moves ? ma_cli_test_stop_after_moves() : 0,
        .on_move = on_move,
        .ctx = rec,
    };
    int rc = ma_grade_run(db, player, &opt, res, &err);
    ma_error ferr;
    ma_error_clear(&ferr);
    int frc = flush(rec, &ferr);
    if (rc) {
        if (res->graded)
            fprintf(stderr, "millaudit grade: %s (the %" PRIu64 " moves graded before are kept%s)\n",
                    err.msg, res->graded, rec->audit ? " and recorded" : "");
        else
            fprintf(stderr, "millaudit grade: %s\n", err.msg);
        snprintf(message, sizeof message, "%s", err.msg);
        if (rc == MA_ECANCELED) {
            exit_code = *stop_signal == SIGTERM ? 143 : 130;
            status = "interrupted";
        } else {
            exit_code = ma_exit_code_for(rc);
            if (exit_code == MA_EXIT_OK || exit_code == MA_EXIT_USAGE)
                exit_code = MA_EXIT_BAD_INPUT;
            status = "unusable";
        }
    }
    if (frc) {
        fprintf(stderr, "millaudit grade: %s\n", ferr.msg);
        exit_code = MA_EXIT_IO;
    }
    ma_audit_grade_totals totals = {
        .graded = rec->recorded,
        .skipped_no_turn = res->skipped_no_turn,
        .skipped_bad = res->skipped_bad,
        .sectors = res->sectors[0] ? res->sectors : NULL,
        .n_sectors = res->n_sectors,
        .games_mode = games > 0,
        .stones = res->stones,
        .games = res->games,
        .player_wins = res->player_wins,
        .player_draws = res->player_draws,
        .player_losses = res->player_losses,
        .games_capped = res->games_capped,
        .seconds = res->seconds,
        .player_seconds = res->player_seconds,
        .message = message[0] ? message : NULL,
    };
    if (rec->audit && rec->run_id && ma_audit_grade_end(rec->audit, rec->run_id, &totals, &ferr)) {
        fprintf(stderr, "millaudit grade: %s\n", ferr.msg);
        exit_code = MA_EXIT_IO;
    }
    if (rc == MA_EINVAL && !res->graded && exit_code == MA_EXIT_BAD_INPUT &&
        (strstr(err.msg, "--sector") || strstr(err.msg, "--stones")))
        exit_code = MA_EXIT_USAGE;

    ma_grade_report_info info = {
        .player = ma_player_name(player),
        .database = dir,
        .variant = ma_variant_name(v),
        .format = ma_format_name(ma_database_format(db)),
        .mode = games ? "games" : "positions",
        .seed = seed,
        .requested = games ? games : positions,
        .sectors = res->sectors,
        .n_sectors = res->n_sectors,
        .skipped_no_turn = res->skipped_no_turn,
        .skipped_bad = res->skipped_bad,
        .stones = res->stones,
        .games = res->games,
        .player_wins = res->player_wins,
        .player_draws = res->player_draws,
        .player_losses = res->player_losses,
        .games_capped = res->games_capped,
        .seconds = res->seconds,
        .player_seconds = res->player_seconds,
        .status = status,
        .message = message[0] ? message : NULL,
        .run_id = rec->run_id,
    };
    if (!rc || res->graded) {
        /* the report file first, so the JSON's exit field is the process's */
        if (html_path && write_html(html_path, &info, &res->tally, &ferr)) {
            fprintf(stderr, "millaudit grade: %s\n", ferr.msg);
            exit_code = MA_EXIT_IO;
        }
        if (json) {
            json_t *o = ma_grade_report_json(&info, &res->tally);
            json_object_set_new(o, "exit", json_integer(exit_code));
            json_dumpf(o, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
            fputc('\n', stdout);
            json_decref(o);
        } else {
            ma_grade_report_text(stdout, &info, &res->tally);
        }
        fflush(stdout);
    }

done:
    if (rec->audit) {
        if (rec->run_id && ma_audit_run_end(rec->audit, rec->run_id, status, &err) &&
            exit_code < MA_EXIT_IO) {
            fprintf(stderr, "millaudit grade: %s\n", err.msg);
            exit_code = MA_EXIT_IO;
        }
        ma_audit_close(rec->audit);
    }
    ma_player_free(player);
    ma_database_close(db);
    free(rec);
    free(res);
    return exit_code;
}
