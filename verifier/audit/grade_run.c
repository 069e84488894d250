/* The grade engine of millaudit/game.h: opens the database, creates the player, grades its moves
 * (verifier/audit/grade.c), records the run and every move in the audit store (reports/store/audit_game.h) and
 * decides the run's result; and reads a stored grade run back for its report. */
#include "verifier/audit/grade.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "common/verdict.h"
#include "verifier/formats/source.h"
#include "ma_version.h"
#include "reports/store/audit.h"
#include "reports/store/audit_game.h"

#define BATCH 256

/* The grading a run hands back (millaudit/game.h). */
#define MA_GRADING_NOTES 4

struct ma_grading {
    int result;                 /* the command result (common/verdict.h) */
    int reportable;             /* there is a report: the run ended or graded moves first */
    ma_grade_report_info info;  /* its strings point into the fields below or static names */
    const ma_grade_tally *tally;
    ma_grade_result *res;       /* a live run's result (NULL for a stored one) */
    ma_grade_tally *stored_tally; /* a stored run's tally (NULL for a live one) */
    ma_audit_grade_stored stored; /* a stored run's facts */
    int has_stored;
    char *database;
    char player[600];           /* the player's canonical name */
    int has_verdict;            /* a live run: its grading came to a verdict (run_status) */
    ma_verdict_state verdict;   /* then: recorded, or interrupted */
    char message[600];          /* why the run stopped early, "" when it did not */
    int64_t run_id;
    size_t n_notes;
    ma_error notes[MA_GRADING_NOTES];
};

/* The moves graded but not yet written: the store gets them in batches, one transaction each. */
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

/* What the run holds while it works; only the grading outlives it. */
typedef struct job {
    ma_grading *g;
    const ma_grade_run_options *opt;
    uint64_t stop_after_moves;     /* the test build's stop (ma_grade_run_hooked), 0: never */
    ma_variant variant;
    ma_database *db;
    ma_player *player;
    recorder *rec;
} job;

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
        .seq = m->seq, .game = m->game, .ply = m->ply, .sector = r->sectors[i],
        .board = r->boards[i], .phase = m->phase, .mover_stones = m->mover_stones,
        .opponent_stones = m->opponent_stones, .turns = m->turns,
        .optimal_turns = m->optimal_turns, .blunder_possible = m->blunder_possible,
        .value_outcome = m->value.outcome, .value_depth = m->value.depth, .move = r->moves[i],
        .move_outcome = m->move_value.outcome, .move_depth = m->move_value.depth, .cls = m->cls,
        .seconds = m->seconds,
    };
    if (++r->n == BATCH)
        return flush(r, err);
    return MA_OK;
}

/* A failure of the store after grading began: kept, and the run's result is "not written". */
static void note(ma_grading *g, const ma_error *e)
{
    if (g->n_notes < MA_GRADING_NOTES)
        g->notes[g->n_notes++] = *e;
    g->result = MA_EIO;
}

/* The variant to grade: the chosen one, or the database's only one. */
static int choose_variant(job *J, ma_error *err)
{
    const char *dir = J->opt->database;
    unsigned vars = ma_database_variants(J->db);
    J->variant = J->opt->variant;
    if (!J->variant) {
        if (!vars)
            return ma_error_set(err, MA_EMISSING, "%s: holds no sector file", dir);
        if (vars & (vars - 1))
            return ma_error_set(err, MA_EUSAGE,
                                "%s: holds several variants; choose one (variant)", dir);
        J->variant = (ma_variant)__builtin_ctz(vars);
    } else if (!(vars & (1u << J->variant))) {
        return ma_error_set(err, MA_EMISSING, "%s: holds no %s sector file", dir,
                            ma_variant_name(J->variant));
    }
    return MA_OK;
}

static int open_store(job *J, ma_error *err)
{
    const ma_grade_run_options *o = J->opt;
    int rc = ma_audit_open(&J->rec->audit, o->audit_path, err);
    if (rc) /* a store that is not SQLite, foreign, newer or corrupt is unusable input (3); one that
             * cannot be created or written is an output failure (4) */
        return rc;
    char root[PATH_MAX];
    if (!realpath(o->database, root))
        snprintf(root, sizeof root, "%s", o->database);
    ma_run_info info = {"grade", MA_VERSION, MA_GIT_REVISION, o->host ? o->host : "",
                        o->cmdline ? o->cmdline : "", root, ma_variant_name(J->variant),
                        ma_format_name(ma_database_format(J->db))};
    ma_audit_grade_run gr = {J->g->player, o->games ? "games" : "positions", o->seed, o->count,
                             NULL, o->games ? (o->max_plies ? o->max_plies : 300) : 0};
    if (ma_audit_run_begin(J->rec->audit, &info, &J->rec->run_id, err) ||
        ma_audit_grade_begin(J->rec->audit, J->rec->run_id, &gr, err))
        return MA_EIO;
    J->g->run_id = J->rec->run_id;
    return MA_OK;
}

/* Opens the database, the player and the store; the result when one of them is unusable. */
static int prepare(job *J, ma_error *err)
{
    const ma_grade_run_options *o = J->opt;
    ma_database_options dbo = {.no_digest_check = o->no_digest_check};
    int rc = ma_database_open(&J->db, o->database, &dbo, err);
    if (rc) /* out of memory is no fault of the database */
        return rc == MA_ENOMEM ? rc : ma_result_of_unusable(rc);
    if ((rc = choose_variant(J, err)))
        return rc;
    double timeout = o->engine_timeout > 0 ? o->engine_timeout : 10.0;
    rc = ma_player_create(&J->player, o->player, J->variant, timeout, err);
    if (rc) /* a spec that does not parse is a usage error; an engine that cannot start or fails
             * its handshake is an input the command cannot use */
        return rc == MA_ENOMEM ? MA_ENOMEM : strncmp(o->player, "cmd:", 4) != 0 ? MA_EUSAGE
                                                                              : ma_result_of_unusable(rc);
    snprintf(J->g->player, sizeof J->g->player, "%s", ma_player_name(J->player));
    if (o->progress) {
        char label[96];
        snprintf(label, sizeof label, "grade %.80s", J->g->player);
        ma_progress_set_label(o->progress, label);
    }
    return o->audit_path ? open_store(J, err) : MA_OK;
}

/* A live run's status, as the store keeps it and its report shows it, from its verdict, in a grade
 * run's words (docs/audit-schema.md): "ok" for a grading recorded (ma_verdict_status names it
 * "recorded"), ma_verdict_status's "interrupted", and "unusable" for a grading that stopped on an
 * error before it had a verdict. */
static const char *run_status(const ma_grading *g)
{
    if (!g->has_verdict)
        return "unusable";
    return g->verdict == MA_VERDICT_RECORDED ? "ok" : ma_verdict_status(g->verdict);
}

/* The report's facts of a live run. */
static void fill_info(job *J)
{
    ma_grading *g = J->g;
    const ma_grade_result *r = g->res;
    g->info = (ma_grade_report_info){
        .player = g->player, .database = g->database, .variant = ma_variant_name(J->variant),
        .format = ma_format_name(ma_database_format(J->db)),
        .mode = J->opt->games ? "games" : "positions", .seed = J->opt->seed,
        .requested = J->opt->count, .sectors = r->sectors, .n_sectors = r->n_sectors,
        .skipped_no_turn = r->skipped_no_turn, .skipped_bad = r->skipped_bad, .stones = r->stones,
        .games = r->games, .player_wins = r->player_wins, .player_draws = r->player_draws,
        .player_losses = r->player_losses, .games_capped = r->games_capped, .seconds = r->seconds,
        .player_seconds = r->player_seconds, .status = run_status(g),
        .message = g->message[0] ? g->message : NULL, .run_id = g->run_id,
    };
    g->tally = &r->tally;
}

/* What the run established besides its moves, into the store. */
static void record_totals(job *J)
{
    const ma_grade_result *r = J->g->res;
    ma_audit_grade_totals totals = {
        .graded = J->rec->recorded, .skipped_no_turn = r->skipped_no_turn,
        .skipped_bad = r->skipped_bad, .sectors = r->sectors[0] ? r->sectors : NULL,
        .n_sectors = r->n_sectors, .games_mode = J->opt->games != 0, .stones = r->stones,
        .games = r->games, .player_wins = r->player_wins, .player_draws = r->player_draws,
        .player_losses = r->player_losses, .games_capped = r->games_capped, .seconds = r->seconds,
        .player_seconds = r->player_seconds,
        .message = J->g->message[0] ? J->g->message : NULL,
    };
    ma_error e;
    if (ma_audit_grade_end(J->rec->audit, J->rec->run_id, &totals, &e))
        note(J->g, &e);
}

/* Grades, records and decides the result; returns the grading's error, if any. */
static int grade(job *J, ma_error *err)
{
    ma_grading *g = J->g;
    const ma_grade_run_options *o = J->opt;
    ma_grade_options go = {
        .variant = J->variant, .games = o->games != 0, .count = o->count, .seed = o->seed,
        .sectors = o->sectors && o->sectors->n ? o->sectors->sector : NULL,
        .n_sectors = o->sectors ? o->sectors->n : 0, .stones = o->stones,
        .max_plies = o->max_plies ? o->max_plies : 300, .progress = o->progress,
        .cancel = o->cancel, .stop_after_moves = J->stop_after_moves, .on_move = on_move,
        .ctx = J->rec,
    };
    int rc = ma_grade_play(J->db, J->player, &go, g->res, err);
    if (rc) {
        snprintf(g->message, sizeof g->message, "%s", err->msg);
        if (rc == MA_ECANCELED) {
            g->result = ma_result_of_signal(o->cancel && *o->cancel == SIGTERM ? SIGTERM : SIGINT);
            g->verdict = MA_VERDICT_INTERRUPTED;
        } else {
            /* what the options ask the database refutes is a usage error, anything else makes
             * the input unusable */
            g->result = rc == MA_EUSAGE ? MA_EUSAGE
                        : ma_exit_code_for(rc) == MA_EXIT_OK ? MA_EFORMAT : rc;
            g->has_verdict = 0;
        }
        if (g->res->graded)
            ma_error_set(err, rc, "%s (the %s graded before %s kept%s)", g->message,
                         MA_COUNT(g->res->graded, "move", "moves"), ma_noun(g->res->graded, "is", "are"),
                         J->rec->audit ? " and recorded" : "");
    }
    ma_error e;
    if (flush(J->rec, &e))
        note(g, &e);
    if (J->rec->audit && J->rec->run_id)
        record_totals(J);
    g->reportable = !rc || g->res->graded;
    fill_info(J);
    return rc;
}

int ma_grade_run(ma_grading **out, const ma_grade_run_options *opt, ma_error *err)
{
    return ma_grade_run_hooked(out, opt, 0, err);
}

int ma_grade_run_hooked(ma_grading **out, const ma_grade_run_options *opt, uint64_t stop_after_moves,
                        ma_error *err)
{
    *out = NULL;
    ma_grading *g = calloc(1, sizeof *g);
    recorder *rec = calloc(1, sizeof *rec);
    if (g)
        g->res = calloc(1, sizeof *g->res);
    if (!g || !rec || !g->res || !(g->database = strdup(opt->database ? opt->database : ""))) {
        ma_grading_free(g);
        free(rec);
        return ma_error_set(err, MA_ENOMEM, "grade: out of memory");
    }
    *out = g;
    /* until the grading says otherwise: what it grades is recorded */
    g->has_verdict = 1;
    g->verdict = MA_VERDICT_RECORDED;
    ma_grade_run_options o = *opt; /* with the defaults filled in */
    if (!o.count)
        o.count = MA_GRADE_DEFAULT_COUNT;
    job J = {.g = g, .opt = &o, .rec = rec, .stop_after_moves = stop_after_moves};
    int rc = !opt->player ? ma_error_set(err, MA_EUSAGE, "grade: no player given") : prepare(&J, err);
    if (rc)
        g->result = rc;
    else
        rc = grade(&J, err);
    ma_error e;
    if (rec->audit && rec->run_id && ma_audit_run_end(rec->audit, rec->run_id, run_status(g), &e) &&
        ma_result_exit_code(g->result) < MA_EXIT_IO)
        note(g, &e);
    ma_audit_close(rec->audit);
    ma_player_free(J.player);
    ma_database_close(J.db);
    free(rec);
    return rc;
}

int ma_grading_load(ma_grading **out, const char *audit_path, int64_t run_id, ma_error *err)
{
    *out = NULL;
    ma_grading *g = calloc(1, sizeof *g);
    if (!g || !(g->stored_tally = calloc(1, sizeof *g->stored_tally))) {
        free(g);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    *out = g;
    ma_audit *a = NULL;
    int rc = ma_audit_open_readonly(&a, audit_path, err);
    if (rc) {
        g->result = rc == MA_EIO ? MA_EFORMAT : rc;
        return rc;
    }
    rc = ma_audit_grade_read(a, run_id, &g->stored, err);
    if (!rc) {
        g->has_stored = 1;
        rc = ma_audit_grade_load(a, run_id, g->stored_tally, err);
    }
    ma_audit_close(a);
    if (rc) {
        g->result = rc == MA_ENOMEM ? MA_ENOMEM : ma_result_of_unusable(rc);
        return rc;
    }
    const ma_audit_grade_stored *s = &g->stored;
    const char *unknown = "?";
    g->info = (ma_grade_report_info){
        .player = s->player ? s->player : unknown, .database = s->database ? s->database : unknown,
        .variant = s->variant ? s->variant : unknown, .format = s->format ? s->format : unknown,
        .mode = s->mode ? s->mode : unknown, .seed = s->seed, .requested = s->requested,
        .sectors = s->sectors, .n_sectors = s->totals.n_sectors,
        .skipped_no_turn = s->totals.skipped_no_turn, .skipped_bad = s->totals.skipped_bad,
        .stones = s->totals.stones, .games = s->totals.games,
        .player_wins = s->totals.player_wins, .player_draws = s->totals.player_draws,
        .player_losses = s->totals.player_losses, .games_capped = s->totals.games_capped,
        .seconds = s->totals.seconds, .player_seconds = s->totals.player_seconds,
        .status = s->status ? s->status : "interrupted", /* no status: the run never ended */
        .message = s->message, .run_id = run_id,
    };
    g->tally = g->stored_tally;
    g->run_id = run_id;
    g->reportable = 1;
    return MA_OK;
}

void ma_grading_free(ma_grading *g)
{
    if (!g)
        return;
    if (g->has_stored)
        ma_audit_grade_stored_free(&g->stored);
    free(g->stored_tally);
    free(g->res);
    free(g->database);
    free(g);
}

int ma_grading_result(const ma_grading *g) { return g ? g->result : MA_ENOMEM; }
uint64_t ma_grading_moves(const ma_grading *g) { return g->tally ? g->tally->total.n[0] + g->tally->total.n[1] + g->tally->total.n[2] : 0; }
int64_t ma_grading_run_id(const ma_grading *g) { return g->run_id; }
int ma_grading_reportable(const ma_grading *g) { return g && g->reportable; }
size_t ma_grading_notes(const ma_grading *g) { return g ? g->n_notes : 0; }
const ma_error *ma_grading_note(const ma_grading *g, size_t i) { return i < g->n_notes ? &g->notes[i] : NULL; }

void ma_grading_classes(const ma_grading *g, uint64_t *optimal, uint64_t *depth_lost,
                        uint64_t *blunders)
{
    const ma_grade_cell *c = g->tally ? &g->tally->total : NULL;
    *optimal = c ? c->n[MA_GRADE_OPTIMAL] : 0;
    *depth_lost = c ? c->n[MA_GRADE_DEPTH_LOST] : 0;
    *blunders = c ? c->n[MA_GRADE_BLUNDER] : 0;
}

int ma_grade_sectors_add(ma_grade_sectors *l, const char *text, ma_error *err)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        ma_variant v = 0;
        int named = 0;
        ma_error e;
        if (l->n == MA_GRADE_MAX_SECTORS)
            return ma_error_set(err, MA_EUSAGE, "sectors: more than %s", MA_COUNT(l->n, "sector", "sectors"));
        if (ma_sector_arg_parse(tok, &v, &named, &l->sector[l->n], &e))
            return ma_error_set(err, MA_EUSAGE, "%s", e.msg);
        if (named) {
            if (l->variant && l->variant != v)
                return ma_error_set(err, MA_EUSAGE, "sectors of two variants");
            l->variant = v;
        }
        l->n++;
    }
    return MA_OK;
}

const ma_grade_report_info *ma_grading_info(const ma_grading *g) { return &g->info; }
const ma_grade_tally *ma_grading_tally(const ma_grading *g) { return g->tally; }
