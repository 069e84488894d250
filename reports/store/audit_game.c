/* Game-level audit tables of the store: opening results and graded moves (see audit_game.h). */
#include "reports/store/audit_game.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "reports/store/audit_internal.h"
#include "reports/store/schema.h"

/* v5: game-level audits (docs/audit-schema.md "Version 5"). New tables only. */
const char ma_audit_game_migration_v5[] =
    "CREATE TABLE IF NOT EXISTS opening_results ("
    "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    "  variant TEXT NOT NULL,"
    "  stones INTEGER NOT NULL,"
    "  root TEXT NOT NULL,"
    "  root_board TEXT NOT NULL,"
    "  status TEXT NOT NULL,"
    "  value_outcome TEXT,"
    "  value_depth INTEGER,"
    "  lower_outcome TEXT NOT NULL,"
    "  lower_depth INTEGER,"
    "  upper_outcome TEXT NOT NULL,"
    "  upper_depth INTEGER,"
    "  stored_start TEXT,"
    "  pv TEXT NOT NULL,"
    "  pv_end TEXT,"
    "  passes INTEGER NOT NULL,"
    "  nodes INTEGER NOT NULL,"
    "  leaves INTEGER NOT NULL,"
    "  unknown_leaves INTEGER NOT NULL,"
    "  tt_probes INTEGER NOT NULL,"
    "  tt_hits INTEGER NOT NULL,"
    "  tt_entries INTEGER NOT NULL,"
    "  exact_checked INTEGER NOT NULL,"
    "  bound_checked INTEGER NOT NULL,"
    "  discrepancies INTEGER NOT NULL,"
    "  missing_sectors TEXT,"
    "  only_sectors TEXT,"
    "  seconds REAL NOT NULL"
    ");"
    "CREATE TABLE IF NOT EXISTS grade_runs ("
    "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    "  player TEXT NOT NULL,"
    "  mode TEXT NOT NULL,"
    "  seed INTEGER NOT NULL,"
    "  requested INTEGER NOT NULL,"
    "  sectors TEXT,"
    "  max_plies INTEGER,"
    "  graded INTEGER,"
    "  skipped INTEGER,"
    "  skipped_unusable INTEGER,"
    "  n_sectors INTEGER,"
    "  stones INTEGER,"
    "  games INTEGER,"
    "  player_wins INTEGER,"
    "  player_draws INTEGER,"
    "  player_losses INTEGER,"
    "  games_capped INTEGER,"
    "  seconds REAL,"
    "  player_seconds REAL,"
    "  message TEXT"
    ");"
    "CREATE TABLE IF NOT EXISTS grade_moves ("
    "  run_id INTEGER NOT NULL REFERENCES grade_runs(run_id) ON DELETE CASCADE,"
    "  seq INTEGER NOT NULL,"
    "  game INTEGER,"
    "  ply INTEGER,"
    "  sector TEXT NOT NULL,"
    "  board TEXT NOT NULL,"
    "  phase TEXT NOT NULL,"
    "  mover_stones INTEGER NOT NULL,"
    "  opponent_stones INTEGER NOT NULL,"
    "  turns INTEGER NOT NULL,"
    "  optimal_turns INTEGER NOT NULL,"
    "  blunder_possible INTEGER NOT NULL,"
    "  value_outcome TEXT NOT NULL,"
    "  value_depth INTEGER NOT NULL,"
    "  move TEXT NOT NULL,"
    "  move_outcome TEXT NOT NULL,"
    "  move_depth INTEGER NOT NULL,"
    "  class TEXT NOT NULL,"
    "  seconds REAL NOT NULL,"
    "  PRIMARY KEY (run_id, seq)"
    ");";

static const char *const class_names[MA_GRADE_CLASSES] = {"optimal", "depth-lost", "blunder"};
static const char *const phase_names[MA_GRADE_PHASES] = {"placement", "moving", "flying"};
static const char *const outcome_names[4] = {"none", "loss", "draw", "win"};

const char *ma_grade_class_name(int cls)
{
    return cls >= 0 && cls < MA_GRADE_CLASSES ? class_names[cls] : "unknown";
}

const char *ma_grade_phase_name(int phase)
{
    return phase >= 0 && phase < MA_GRADE_PHASES ? phase_names[phase] : "unknown";
}

static const char *outcome_name(int o)
{
    return o >= 0 && o < 4 ? outcome_names[o] : "none";
}

static int outcome_parse(const char *s)
{
    for (int i = 1; i < 4; i++)
        if (s && !strcmp(s, outcome_names[i]))
            return i;
    return 0;
}

static int index_of(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (s && !strcmp(s, names[i]))
            return i;
    return -1;
}

static int prepare(ma_audit *a, sqlite3_stmt **st, const char *sql, ma_error *err)
{
    if (sqlite3_prepare_v2(ma_audit_db(a), sql, -1, st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EINTERNAL, "prepare statement", err);
    return MA_OK;
}

static void bind_depth(sqlite3_stmt *st, int i, int depth)
{
    if (depth < 0)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int(st, i, depth);
}

/* Runs one prepared write as its own transaction and finalises it. */
static int write_one(ma_audit *a, sqlite3_stmt *st, const char *what, ma_error *err)
{
    int rc = ma_audit_tx_begin(a, err);
    if (rc == MA_OK)
        rc = ma_audit_step_done(a, st, what, err);
    if (rc == MA_OK)
        rc = ma_audit_tx_commit(a, err);
    else
        ma_audit_tx_rollback(a);
    sqlite3_finalize(st);
    return rc;
}

static const char opening_sql[] =
    "INSERT INTO opening_results (run_id, variant, stones, root, root_board, status,"
    " value_outcome, value_depth, lower_outcome, lower_depth, upper_outcome,"
    " upper_depth, stored_start, pv, pv_end, passes, nodes, leaves, unknown_leaves,"
    " tt_probes, tt_hits, tt_entries, exact_checked, bound_checked, discrepancies,"
    " missing_sectors, only_sectors, seconds) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
    "?,?,?,?,?,?,?,?,?,?,?,?,?)";

static int opening_row(ma_audit *a, sqlite3_stmt *st, int64_t run_id, const ma_audit_opening *r,
                       ma_error *err)
{
    int i = 1, rc = MA_OK;
    sqlite3_bind_int64(st, i++, run_id);
    ma_audit_bind_text(st, i++, r->variant);
    sqlite3_bind_int(st, i++, r->stones);
    ma_audit_bind_text(st, i++, r->root);
    ma_audit_bind_text(st, i++, r->root_board);
    ma_audit_bind_text(st, i++, r->status);
    ma_audit_bind_text(st, i++, r->value_outcome);
    bind_depth(st, i++, r->value_depth);
    ma_audit_bind_text(st, i++, r->lower_outcome);
    bind_depth(st, i++, r->lower_depth);
    ma_audit_bind_text(st, i++, r->upper_outcome);
    bind_depth(st, i++, r->upper_depth);
    ma_audit_bind_text(st, i++, r->stored_start);
    ma_audit_bind_text(st, i++, r->pv ? r->pv : "");
    ma_audit_bind_text(st, i++, r->pv_end);
    sqlite3_bind_int(st, i++, r->passes);
    const uint64_t counts[] = {r->nodes,       r->leaves,        r->unknown_leaves,
                               r->tt_probes,   r->tt_hits,       r->tt_entries,
                               r->exact_checked, r->bound_checked, r->discrepancies};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0] && rc == MA_OK; k++)
        rc = ma_audit_bind_u64(a, st, i++, counts[k], "opening count", err);
    ma_audit_bind_text(st, i++, r->missing_sectors);
    ma_audit_bind_text(st, i++, r->only_sectors);
    sqlite3_bind_double(st, i++, r->seconds);
    if (rc == MA_OK)
        rc = ma_audit_step_done(a, st, "record opening result", err);
    return rc;
}

static int opening_sector(ma_audit *a, sqlite3_stmt *res, sqlite3_stmt *cls, int64_t run_id,
                          const ma_audit_opening_sector *s, ma_error *err)
{
    sqlite3_bind_int64(res, 1, run_id);
    ma_audit_bind_text(res, 2, s->sector);
    ma_audit_bind_text(res, 3, s->file);
    const uint64_t counts[] = {s->entries, s->exact_checked + s->bound_checked, s->exact_agreed,
                               s->bound_agreed, s->discrepancies};
    int rc = MA_OK;
    for (int i = 0; i < 5 && rc == MA_OK; i++)
        rc = ma_audit_bind_u64(a, res, 4 + i, counts[i], "opening sector count", err);
    ma_audit_bind_text(res, 9, s->discrepancies ? "discrepancies" : "ok");
    if (rc == MA_OK)
        rc = ma_audit_step_done(a, res, "record opening sector", err);
    if (rc == MA_OK && s->discrepancies) {
        sqlite3_bind_int64(cls, 1, run_id);
        ma_audit_bind_text(cls, 2, s->sector);
        rc = ma_audit_bind_u64(a, cls, 3, s->discrepancies, "opening class count", err);
        if (rc == MA_OK)
            rc = ma_audit_step_done(a, cls, "record opening class count", err);
    }
    return rc;
}

static int opening_disc(ma_audit *a, sqlite3_stmt *st, int64_t run_id, const ma_audit_opening_row *d,
                        ma_error *err)
{
    sqlite3_bind_int64(st, 1, run_id);
    ma_audit_bind_text(st, 2, d->sector);
    int rc = ma_audit_bind_u64(a, st, 3, d->entry, "entry", err);
    ma_audit_bind_text(st, 4, d->board);
    ma_audit_bind_text(st, 5, d->stored);
    ma_audit_bind_text(st, 6, d->derived);
    ma_audit_bind_text(st, 7, d->stored_outcome);
    bind_depth(st, 8, d->stored_depth);
    ma_audit_bind_text(st, 9, d->derived_outcome);
    bind_depth(st, 10, d->derived_depth);
    ma_audit_bind_text(st, 11, d->derived_bound);
    if (rc == MA_OK)
        rc = ma_audit_step_done(a, st, "record opening discrepancy", err);
    return rc;
}

int ma_audit_opening_record(ma_audit *a, int64_t run_id, const ma_audit_opening *r,
                            const ma_audit_opening_sector *sectors, size_t n_sectors,
                            const ma_audit_opening_row *rows, size_t n_rows, ma_error *err)
{
    sqlite3_stmt *st[4] = {NULL, NULL, NULL, NULL};
    int rc = ma_audit_writable(a, err);
    if (!rc)
        rc = prepare(a, &st[0], opening_sql, err);
    if (!rc)
        rc = prepare(a, &st[1],
                     "INSERT INTO sector_results (run_id, sector, file, entries, checked, verified,"
                     " within_bounds, discrepancies, seconds, status) VALUES (?,?,?,?,?,?,?,?,0,?)",
                     err);
    if (!rc)
        rc = prepare(a, &st[2],
                     "INSERT INTO sector_class_counts (run_id, sector, class, count)"
                     " VALUES (?,?,'opening',?)",
                     err);
    if (!rc)
        rc = prepare(a, &st[3],
                     "INSERT INTO discrepancies (run_id, sector, entry, board, stored, derived, class,"
                     " stored_outcome, stored_depth, derived_outcome, derived_depth, derived_bound)"
                     " VALUES (?,?,?,?,?,?,'opening',?,?,?,?,?)",
                     err);
    if (!rc)
        rc = ma_audit_tx_begin(a, err);
    if (!rc) {
        for (size_t i = 0; i < n_sectors && rc == MA_OK; i++)
            rc = opening_sector(a, st[1], st[2], run_id, &sectors[i], err);
        for (size_t i = 0; i < n_rows && rc == MA_OK; i++)
            rc = opening_disc(a, st[3], run_id, &rows[i], err);
        if (rc == MA_OK && r)
            rc = opening_row(a, st[0], run_id, r, err);
        if (rc == MA_OK)
            rc = ma_audit_tx_commit(a, err);
        else
            ma_audit_tx_rollback(a);
    }
    for (int i = 0; i < 4; i++)
        sqlite3_finalize(st[i]);
    return rc;
}

int ma_audit_grade_begin(ma_audit *a, int64_t run_id, const ma_audit_grade_run *g, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc)
        return rc;
    sqlite3_stmt *st = NULL;
    rc = prepare(a, &st,
                     "INSERT INTO grade_runs (run_id, player, mode, seed, requested, sectors,"
                     " max_plies) VALUES (?,?,?,?,?,?,?)",
                     err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    ma_audit_bind_text(st, 2, g->player);
    ma_audit_bind_text(st, 3, g->mode);
    /* the seed is a 64-bit pattern: stored as its two's-complement signed value */
    sqlite3_bind_int64(st, 4, (int64_t)g->seed);
    rc = ma_audit_bind_u64(a, st, 5, g->requested, "requested", err);
    ma_audit_bind_text(st, 6, g->sectors);
    if (g->max_plies > 0)
        sqlite3_bind_int(st, 7, g->max_plies);
    else
        sqlite3_bind_null(st, 7);
    if (rc) {
        sqlite3_finalize(st);
        return rc;
    }
    return write_one(a, st, "record grade run", err);
}

int ma_audit_grade_moves_add(ma_audit *a, int64_t run_id, const ma_audit_grade_move *m, size_t n,
                             ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc || !n)
        return rc;
    sqlite3_stmt *st = NULL;
    rc = prepare(a, &st,
                     "INSERT INTO grade_moves (run_id, seq, game, ply, sector, board, phase,"
                     " mover_stones, opponent_stones, turns, optimal_turns, blunder_possible,"
                     " value_outcome, value_depth, move, move_outcome, move_depth, class, seconds)"
                     " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                     err);
    if (rc)
        return rc;
    rc = ma_audit_tx_begin(a, err);
    for (size_t k = 0; k < n && rc == MA_OK; k++) {
        const ma_audit_grade_move *g = &m[k];
        int i = 1;
        sqlite3_bind_int64(st, i++, run_id);
        rc = ma_audit_bind_u64(a, st, i++, g->seq, "grade move seq", err);
        if (g->game >= 0)
            sqlite3_bind_int64(st, i++, g->game);
        else
            sqlite3_bind_null(st, i++);
        if (g->ply >= 0)
            sqlite3_bind_int(st, i++, g->ply);
        else
            sqlite3_bind_null(st, i++);
        ma_audit_bind_text(st, i++, g->sector);
        ma_audit_bind_text(st, i++, g->board);
        ma_audit_bind_text(st, i++, ma_grade_phase_name(g->phase));
        sqlite3_bind_int(st, i++, g->mover_stones);
        sqlite3_bind_int(st, i++, g->opponent_stones);
        sqlite3_bind_int(st, i++, g->turns);
        sqlite3_bind_int(st, i++, g->optimal_turns);
        sqlite3_bind_int(st, i++, g->blunder_possible);
        ma_audit_bind_text(st, i++, outcome_name(g->value_outcome));
        sqlite3_bind_int(st, i++, g->value_depth);
        ma_audit_bind_text(st, i++, g->move);
        ma_audit_bind_text(st, i++, outcome_name(g->move_outcome));
        sqlite3_bind_int(st, i++, g->move_depth);
        ma_audit_bind_text(st, i++, ma_grade_class_name(g->cls));
        sqlite3_bind_double(st, i++, g->seconds);
        if (rc == MA_OK)
            rc = ma_audit_step_done(a, st, "record graded move", err);
    }
    if (rc == MA_OK)
        rc = ma_audit_tx_commit(a, err);
    else
        ma_audit_tx_rollback(a);
    sqlite3_finalize(st);
    return rc;
}

int ma_audit_grade_end(ma_audit *a, int64_t run_id, const ma_audit_grade_totals *t, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc)
        return rc;
    sqlite3_stmt *st = NULL;
    rc = prepare(a, &st,
                 "UPDATE grade_runs SET graded = ?, skipped = ?, skipped_unusable = ?, n_sectors = ?,"
                 " stones = ?, games = ?, player_wins = ?, player_draws = ?, player_losses = ?,"
                 " games_capped = ?, seconds = ?, player_seconds = ?, message = ?,"
                 " sectors = coalesce(?, sectors) WHERE run_id = ?",
                 err);
    if (rc)
        return rc;
    const uint64_t counts[] = {t->graded, t->skipped_no_turn, t->skipped_bad, t->n_sectors};
    int i = 1;
    for (size_t k = 0; k < 4 && rc == MA_OK; k++)
        rc = ma_audit_bind_u64(a, st, i++, counts[k], "grade count", err);
    if (t->games_mode)
        sqlite3_bind_int(st, i, t->stones);
    i++;
    const uint64_t games[] = {t->games, t->player_wins, t->player_draws, t->player_losses,
                              t->games_capped};
    for (size_t k = 0; k < 5 && rc == MA_OK; k++, i++)
        if (t->games_mode)
            rc = ma_audit_bind_u64(a, st, i, games[k], "game count", err);
    sqlite3_bind_double(st, i++, t->seconds);
    sqlite3_bind_double(st, i++, t->player_seconds);
    ma_audit_bind_text(st, i++, t->message);
    ma_audit_bind_text(st, i++, t->sectors);
    sqlite3_bind_int64(st, i++, run_id);
    if (rc) {
        sqlite3_finalize(st);
        return rc;
    }
    return write_one(a, st, "record grade totals", err);
}

static char *column_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdup((const char *)t) : NULL;
}

int ma_audit_grade_read(ma_audit *a, int64_t run_id, ma_audit_grade_stored *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = NULL;
    int rc = prepare(a, &st,
                     "SELECT g.player, g.mode, g.seed, g.requested, g.sectors, g.max_plies, g.graded,"
                     " g.skipped, g.skipped_unusable, g.n_sectors, g.stones, g.games, g.player_wins,"
                     " g.player_draws, g.player_losses, g.games_capped, g.seconds, g.player_seconds,"
                     " g.message, r.database_root, r.variant, r.format, r.status"
                     " FROM grade_runs g JOIN runs r ON r.id = g.run_id WHERE g.run_id = ?",
                     err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        out->player = column_dup(st, 0);
        out->mode = column_dup(st, 1);
        out->seed = (uint64_t)sqlite3_column_int64(st, 2);
        out->requested = (uint64_t)sqlite3_column_int64(st, 3);
        out->sectors = column_dup(st, 4);
        out->max_plies = sqlite3_column_int(st, 5);
        out->totals.graded = (uint64_t)sqlite3_column_int64(st, 6);
        out->totals.skipped_no_turn = (uint64_t)sqlite3_column_int64(st, 7);
        out->totals.skipped_bad = (uint64_t)sqlite3_column_int64(st, 8);
        out->totals.n_sectors = (uint64_t)sqlite3_column_int64(st, 9);
        out->totals.stones = sqlite3_column_int(st, 10);
        out->totals.games = (uint64_t)sqlite3_column_int64(st, 11);
        out->totals.player_wins = (uint64_t)sqlite3_column_int64(st, 12);
        out->totals.player_draws = (uint64_t)sqlite3_column_int64(st, 13);
        out->totals.player_losses = (uint64_t)sqlite3_column_int64(st, 14);
        out->totals.games_capped = (uint64_t)sqlite3_column_int64(st, 15);
        out->totals.seconds = sqlite3_column_double(st, 16);
        out->totals.player_seconds = sqlite3_column_double(st, 17);
        out->message = column_dup(st, 18);
        out->database = column_dup(st, 19);
        out->variant = column_dup(st, 20);
        out->format = column_dup(st, 21);
        out->status = column_dup(st, 22);
        out->totals.games_mode = out->mode && !strcmp(out->mode, "games");
        out->totals.sectors = out->sectors;
        out->totals.message = out->message;
    } else if (step == SQLITE_DONE) {
        rc = ma_error_set(err, MA_EMISSING, "%s: run %lld is no grade run", ma_audit_path(a),
                          (long long)run_id);
    } else {
        rc = ma_audit_sqlite_error(a, MA_EIO, "read grade run", err);
    }
    sqlite3_finalize(st);
    if (rc)
        ma_audit_grade_stored_free(out);
    return rc;
}

void ma_audit_grade_stored_free(ma_audit_grade_stored *g)
{
    char *strings[] = {g->player, g->mode, g->sectors, g->message, g->database, g->variant,
                       g->format, g->status};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        free(strings[i]);
    memset(g, 0, sizeof *g);
}

void ma_grade_tally_add(ma_grade_tally *t, int phase, int mover_stones, int opponent_stones,
                        int value_outcome, int value_depth, int cls, int blunder_possible,
                        uint64_t count)
{
    if (cls < 0 || cls >= MA_GRADE_CLASSES)
        return;
    ma_grade_cell *cells[4] = {&t->total, NULL, NULL, NULL};
    if (phase >= 0 && phase < MA_GRADE_PHASES)
        cells[1] = &t->phase[phase];
    if (mover_stones >= 0 && mover_stones < MA_GRADE_STONES && opponent_stones >= 0 &&
        opponent_stones < MA_GRADE_STONES)
        cells[2] = &t->stones[mover_stones][opponent_stones];
    if (value_outcome >= 1 && value_outcome <= 3) {
        int d = value_outcome == 2 ? 0 : value_depth < 0 ? 0 : value_depth;
        if (d > MA_GRADE_MAX_DEPTH)
            d = MA_GRADE_MAX_DEPTH;
        cells[3] = &t->value[value_outcome - 1][d];
    }
    for (int i = 0; i < 4; i++)
        if (cells[i]) {
            cells[i]->n[cls] += count;
            cells[i]->chances += blunder_possible ? count : 0;
        }
}

int ma_audit_grade_load(ma_audit *a, int64_t run_id, ma_grade_tally *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = NULL;
    int rc = prepare(a, &st, "SELECT count(*) FROM grade_runs WHERE run_id = ?", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    int have = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
    sqlite3_finalize(st);
    if (!have)
        return ma_error_set(err, MA_EMISSING, "%s: run %lld is no grade run", ma_audit_path(a),
                            (long long)run_id);
    rc = prepare(a, &st,
                 "SELECT phase, mover_stones, opponent_stones, value_outcome, value_depth, class,"
                 " blunder_possible, count(*) FROM grade_moves WHERE run_id = ?"
                 " GROUP BY 1, 2, 3, 4, 5, 6, 7",
                 err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int phase = index_of(phase_names, MA_GRADE_PHASES, (const char *)sqlite3_column_text(st, 0));
        int cls = index_of(class_names, MA_GRADE_CLASSES, (const char *)sqlite3_column_text(st, 5));
        int outcome = outcome_parse((const char *)sqlite3_column_text(st, 3));
        int64_t count = sqlite3_column_int64(st, 7);
        ma_grade_tally_add(out, phase, sqlite3_column_int(st, 1), sqlite3_column_int(st, 2), outcome,
                           sqlite3_column_int(st, 4), cls, sqlite3_column_int(st, 6),
                           count > 0 ? (uint64_t)count : 0);
    }
    if (step != SQLITE_DONE)
        rc = ma_audit_sqlite_error(a, MA_EIO, "read graded moves", err);
    sqlite3_finalize(st);
    return rc;
}

void ma_wilson95(uint64_t x, uint64_t n, double *lo, double *hi)
{
    if (n == 0) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    const double z = 1.959963984540054;
    double nn = (double)n, p = (double)x / nn, z2 = z * z;
    double denom = 1.0 + z2 / nn;
    double centre = (p + z2 / (2.0 * nn)) / denom;
    double half = z / denom * sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn));
    *lo = centre - half < 0.0 ? 0.0 : centre - half;
    *hi = centre + half > 1.0 ? 1.0 : centre + half;
}
