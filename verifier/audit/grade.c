/* Grading a player against a perfect database (see grade.h, docs/grading.md). */
#include "verifier/audit/grade.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "indexer/open_index.h"
#include "verifier/check/check.h"
#include "verifier/run/probe.h"
#include "verifier/audit/rng.h"
#include "verifier/check/rulebook.h"

typedef struct grader {
    ma_database *db;
    ma_player *player;
    const ma_grade_options *opt;
    ma_grade_result *res;
    ma_rulebook *rules;
    ma_rng rng;         /* positions drawn, the perfect player's choices */
    ma_rng player_rng;  /* the graded player's own choices (tie-breaks, random) */
    ma_probe_turn turns[MA_VRULES_MAX_TURNS];
    ma_value values[MA_VRULES_MAX_TURNS];
    ma_error *err;
} grader;

int ma_grade_classify(ma_value best, ma_value mv)
{
    if (ma_check_value_score(mv) >= ma_check_value_score(best))
        return MA_GRADE_OPTIMAL;
    return mv.outcome == best.outcome ? MA_GRADE_DEPTH_LOST : MA_GRADE_BLUNDER;
}

int ma_grade_phase(ma_sector s)
{
    if (s.wf > 0)
        return MA_GRADE_PLACEMENT;
    return s.w + s.wf <= 3 ? MA_GRADE_FLYING : MA_GRADE_MOVING;
}

static void sector_name(ma_variant v, ma_sector s, char *buf, size_t len)
{
    char sec[16];
    ma_sector_format(s, sec, sizeof sec);
    snprintf(buf, len, "%s_%s", ma_variant_name(v), sec);
}

/* The sectors turns of s lead to are all in the database. Otherwise names the first absent one. */
/* 1: every successor sector of s is present; 0: not (*missing names one); -1: the rules of s
 * could not be had (G->err; out of memory), never taken for "not gradable". */
static int gradable(grader *G, ma_sector s, char *missing, size_t len)
{
    const ma_vrules *r = ma_rulebook_get(G->rules, s, G->err);
    if (!r)
        return -1;
    for (int k = 0; k < MA_TURN_KINDS; k++)
        if (r->succ_exists[k] && !ma_database_find(G->db, G->opt->variant, r->succ[k])) {
            sector_name(G->opt->variant, r->succ[k], missing, len);
            return 0;
        }
    return 1;
}

/* Values of every turn of b (sector s) into G->values, side to move's view. Returns 1 when all are
 * known, 0 when a stored successor is unusable (counted and named), or a negative code. */
static int turn_values(grader *G, const ma_vrules *r, int n)
{
    for (int i = 0; i < n; i++) {
        const ma_probe_turn *t = &G->turns[i];
        if (t->immediate_win) {
            G->values[i] = (ma_value){MA_OUTCOME_WIN, 1};
            continue;
        }
        const ma_source *src;
        int rc = ma_database_source(G->db, G->opt->variant, r->succ[t->kind], &src, G->err);
        if (rc)
            return rc;
        uint64_t e = ma_source_entry_of(src, t->succ);
        ma_stored st;
        ma_source_read(src, e, &st);
        if (st.kind != MA_STORED_VALUE) {
            if (G->res->skipped_bad++ == 0) {
                char d[64];
                ma_source_describe(src, &st, d, sizeof d);
                snprintf(G->res->first_bad, sizeof G->res->first_bad,
                         "%.400s: sector %s: offset %llu: entry %llu holds no value (%s)",
                         ma_source_path(src), ma_source_name(src),
                         (unsigned long long)ma_source_offset(src, e), (unsigned long long)e, d);
            }
            return 0;
        }
        G->values[i] = ma_check_value_negate(st.value);
    }
    return 1;
}

static int check_cancel(grader *G)
{
    if ((G->opt->cancel && *G->opt->cancel) ||
        (G->opt->stop_after_moves && G->res->graded >= G->opt->stop_after_moves))
        return ma_error_set(G->err, MA_ECANCELED, "grade: interrupted after %llu graded moves",
                            (unsigned long long)G->res->graded);
    return MA_OK;
}

/* Lets the player choose in position b of s (turns and values already in G), grades the move and
 * reports it. *chosen = the turn played. */
static int grade_move(grader *G, ma_sector s, ma_board b, int n, int64_t game, int ply, int *chosen)
{
    double t0 = ma_now();
    int rc = ma_player_choose(G->player, s, b, G->turns, n, &G->player_rng, chosen, G->err);
    double dt = ma_now() - t0;
    G->res->player_seconds += dt;
    if (rc)
        return rc;
    ma_grade_move m;
    memset(&m, 0, sizeof m);
    m.seq = G->res->graded;
    m.game = game;
    m.ply = ply;
    m.sector = s;
    sector_name(G->opt->variant, s, m.sector_name, sizeof m.sector_name);
    m.board = b;
    m.phase = ma_grade_phase(s);
    m.mover_stones = s.w + s.wf;
    m.opponent_stones = s.b + s.bf;
    m.turns = n;
    int best_i = 0;
    for (int i = 1; i < n; i++)
        if (ma_check_value_score(G->values[i]) > ma_check_value_score(G->values[best_i]))
            best_i = i;
    m.value = G->values[best_i];
    int32_t best = ma_check_value_score(m.value);
    for (int i = 0; i < n; i++) {
        m.optimal_turns += ma_check_value_score(G->values[i]) == best;
        m.blunder_possible |= G->values[i].outcome < m.value.outcome;
    }
    ma_probe_turn_format(&G->turns[*chosen], m.move, sizeof m.move);
    m.move_value = G->values[*chosen];
    m.cls = ma_grade_classify(m.value, m.move_value);
    m.seconds = dt;
    ma_grade_tally_add(&G->res->tally, m.phase, m.mover_stones, m.opponent_stones, m.value.outcome,
                       m.value.depth, m.cls, m.blunder_possible, 1);
    G->res->graded++;
    if (G->opt->on_move)
        return G->opt->on_move(G->opt->ctx, &m, G->err);
    return MA_OK;
}

/* ---- positions ---- */

typedef struct candidate {
    ma_sector sector;
    uint64_t positions;
} candidate;

static int choose_sectors(grader *G, candidate **out, size_t *n_out)
{
    ma_variant v = G->opt->variant;
    size_t cap = G->opt->n_sectors ? G->opt->n_sectors : ma_database_count(G->db);
    candidate *c = calloc(cap + 1, sizeof *c);
    if (!c)
        return ma_error_set(G->err, MA_ENOMEM, "grade: out of memory");
    size_t n = 0;
    char missing[64], name[40];
    if (G->opt->n_sectors) {
        for (size_t i = 0; i < G->opt->n_sectors; i++) {
            ma_sector s = G->opt->sectors[i];
            sector_name(v, s, name, sizeof name);
            if (!ma_database_find(G->db, v, s)) {
                free(c);
                return ma_error_set(G->err, MA_EUSAGE, "sector %s: not in the database", name);
            }
            int g = gradable(G, s, missing, sizeof missing);
            if (g < 0) {
                free(c);
                return G->err->code ? G->err->code : MA_ENOMEM;
            }
            if (!g) {
                free(c);
                return ma_error_set(G->err, MA_EUSAGE,
                                    "sector %s: cannot be graded: its successor sector %s is absent",
                                    name, missing);
            }
            c[n++].sector = s;
        }
    } else {
        for (size_t i = 0; i < ma_database_count(G->db); i++) {
            const ma_db_sector *d = ma_database_sector(G->db, i);
            if (d->variant != v)
                continue;
            int g = gradable(G, d->sector, missing, sizeof missing);
            if (g < 0) {
                free(c);
                return G->err->code ? G->err->code : MA_ENOMEM;
            }
            if (g)
                c[n++].sector = d->sector;
            else
                G->res->ungradable_sectors++;
        }
    }
    if (!n) {
        free(c);
        return ma_error_set(G->err, MA_EMISSING,
                            "%s: no %s sector whose successor sectors are all present",
                            ma_database_root(G->db), ma_variant_name(v));
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        c[i].positions = ma_open_binomial(MA_POINTS, c[i].sector.w) *
                         ma_open_binomial(MA_POINTS - c[i].sector.w, c[i].sector.b);
        sector_name(v, c[i].sector, name, sizeof name);
        if (used + strlen(name) + 2 < sizeof G->res->sectors)
            used += (size_t)snprintf(G->res->sectors + used, sizeof G->res->sectors - used, "%s%s",
                                     i ? "," : "", name);
    }
    G->res->n_sectors = n;
    *out = c;
    *n_out = n;
    return MA_OK;
}

/* Draws one position uniformly from sector s (see grade.h). */
static int draw_position(grader *G, ma_sector s, ma_board *b)
{
    const ma_source *src;
    int rc = ma_database_source(G->db, G->opt->variant, s, &src, G->err);
    if (rc)
        return rc;
    uint64_t entries = ma_source_entries(src);
    for (;;) {
        uint64_t e = ma_rng_below(&G->rng, entries);
        int orbit = ma_source_orbit(src, e);
        if (orbit <= 0 || (int)ma_rng_below(&G->rng, MA_SYM_OPS) >= orbit)
            continue;
        *b = ma_open_sym_apply((int)ma_rng_below(&G->rng, MA_SYM_OPS), ma_source_board(src, e));
        return MA_OK;
    }
}

static int run_positions(grader *G)
{
    candidate *c = NULL;
    size_t n = 0;
    int rc = choose_sectors(G, &c, &n);
    if (rc)
        return rc;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += c[i].positions;
    uint64_t attempts = 0, max_attempts = 1000 * G->opt->count + 10000;
    while (!rc && G->res->graded < G->opt->count) {
        if ((rc = check_cancel(G)))
            break;
        if (++attempts > max_attempts) {
            rc = ma_error_set(G->err, MA_EINVAL,
                              "grade: %s gave only %s (positions without a turn or with unusable "
                              "successors)",
                              MA_COUNT(max_attempts, "draw", "draws"),
                              MA_COUNT(G->res->graded, "gradable position", "gradable positions"));
            break;
        }
        uint64_t x = ma_rng_below(&G->rng, total);
        size_t i = 0;
        while (x >= c[i].positions)
            x -= c[i++].positions;
        ma_board b;
        if ((rc = draw_position(G, c[i].sector, &b)))
            break;
        const ma_vrules *r = ma_rulebook_get(G->rules, c[i].sector, G->err);
        if (!r) {
            rc = G->err->code ? G->err->code : MA_EINTERNAL;
            break;
        }
        int nt = 0;
        if ((rc = ma_probe_turns(r, b, G->turns, MA_VRULES_MAX_TURNS, &nt, G->err)))
            break;
        if (nt == 0) {
            G->res->skipped_no_turn++;
            continue;
        }
        int known = turn_values(G, r, nt);
        if (known < 0) {
            rc = known;
            break;
        }
        if (!known)
            continue;
        int chosen = 0;
        rc = grade_move(G, c[i].sector, b, nt, -1, -1, &chosen);
        if (G->opt->progress)
            ma_progress_update(G->opt->progress, G->res->graded);
    }
    free(c);
    return rc;
}

/* ---- games ---- */

static int start_stones(grader *G, int *k)
{
    ma_variant v = G->opt->variant;
    if (G->opt->stones) {
        *k = G->opt->stones;
        return MA_OK;
    }
    int found = 0;
    for (int s = 3; s <= ma_variant_stones(v); s++)
        if (ma_database_find(G->db, v, (ma_sector){0, 0, (uint8_t)s, (uint8_t)s})) {
            if (found)
                return ma_error_set(G->err, MA_EUSAGE,
                                    "%s: holds the start sectors of several games (0_0_%d_%d and "
                                    "0_0_%d_%d): choose one (stones)",
                                    ma_database_root(G->db), found, found, s, s);
            found = s;
        }
    if (!found)
        return ma_error_set(G->err, MA_EMISSING, "%s: no start sector %s_0_0_K_K: games need a whole game",
                            ma_database_root(G->db), ma_variant_name(v));
    *k = found;
    return MA_OK;
}

/* Every sector of the K-stone game is in the database (the closure of docs/format.md §3). */
static int check_closure(grader *G, int k)
{
    ma_variant v = G->opt->variant;
    enum { MAXS = 13 * 13 * 13 * 13 };
    uint8_t *seen = calloc(MAXS, 1);
    ma_sector *queue = malloc(MAXS * sizeof *queue);
    if (!seen || !queue) {
        free(seen);
        free(queue);
        return ma_error_set(G->err, MA_ENOMEM, "grade: out of memory");
    }
    size_t head = 0, tail = 0;
    queue[tail++] = (ma_sector){0, 0, (uint8_t)k, (uint8_t)k};
    int rc = MA_OK;
    while (!rc && head < tail) {
        ma_sector s = queue[head++];
        size_t idx = (((size_t)s.w * 13 + s.b) * 13 + s.wf) * 13 + s.bf;
        if (seen[idx])
            continue;
        seen[idx] = 1;
        char name[40];
        sector_name(v, s, name, sizeof name);
        if (!ma_database_find(G->db, v, s)) {
            rc = ma_error_set(G->err, MA_EMISSING,
                              "%s: games need every sector of the %d-stone game: %s is absent",
                              ma_database_root(G->db), k, name);
            break;
        }
        const ma_vrules *r = ma_rulebook_get(G->rules, s, G->err);
        if (!r) {
            rc = G->err->code ? G->err->code : MA_EINTERNAL;
            break;
        }
        for (int t = 0; t < MA_TURN_KINDS; t++)
            if (r->succ_exists[t] && tail < MAXS)
                queue[tail++] = r->succ[t];
    }
    free(seen);
    free(queue);
    return rc;
}

static int play_game(grader *G, uint64_t game, int k)
{
    ma_sector s = {0, 0, (uint8_t)k, (uint8_t)k};
    ma_board b = {0, 0};
    int player_side = (int)(game & 1); /* the player moves at plies of this parity */
    int max_plies = G->opt->max_plies > 0 ? G->opt->max_plies : 300;
    int rc = MA_OK;
    for (int ply = 0;; ply++) {
        if ((rc = check_cancel(G)))
            return rc;
        if (ply >= max_plies) {
            G->res->player_draws++;
            G->res->games_capped++;
            return MA_OK;
        }
        const ma_vrules *r = ma_rulebook_get(G->rules, s, G->err);
        if (!r)
            return G->err->code ? G->err->code : MA_EINTERNAL;
        int n = 0;
        if ((rc = ma_probe_turns(r, b, G->turns, MA_VRULES_MAX_TURNS, &n, G->err)))
            return rc;
        int players_turn = (ply & 1) == player_side;
        if (n == 0 || r->full_board_draw) {
            if (r->full_board_draw)
                G->res->player_draws++;
            else if (players_turn)
                G->res->player_losses++;
            else
                G->res->player_wins++;
            return MA_OK;
        }
        int known = turn_values(G, r, n);
        if (known < 0)
            return known;
        if (!known)
            return ma_error_set(G->err, MA_EFORMAT, "%s", G->res->first_bad);
        int chosen = 0;
        if (players_turn) {
            if ((rc = grade_move(G, s, b, n, (int64_t)game, ply, &chosen)))
                return rc;
        } else {
            int32_t best = ma_check_value_score(G->values[0]);
            for (int i = 1; i < n; i++)
                if (ma_check_value_score(G->values[i]) > best)
                    best = ma_check_value_score(G->values[i]);
            int ties = 0;
            for (int i = 0; i < n; i++)
                ties += ma_check_value_score(G->values[i]) == best;
            uint64_t pick = ma_rng_below(&G->rng, (uint64_t)ties);
            for (int i = 0; i < n; i++)
                if (ma_check_value_score(G->values[i]) == best && pick-- == 0) {
                    chosen = i;
                    break;
                }
        }
        if (G->turns[chosen].immediate_win) {
            if (players_turn)
                G->res->player_wins++;
            else
                G->res->player_losses++;
            return MA_OK;
        }
        s = r->succ[G->turns[chosen].kind];
        b = G->turns[chosen].succ;
    }
}

static int run_games(grader *G)
{
    int k = 0;
    int rc = start_stones(G, &k);
    if (!rc)
        rc = check_closure(G, k);
    if (rc)
        return rc;
    G->res->stones = k;
    for (uint64_t g = 0; !rc && g < G->opt->count; g++) {
        rc = play_game(G, g, k);
        if (!rc) {
            G->res->games++;
            if (G->opt->progress)
                ma_progress_update(G->opt->progress, G->res->games);
        }
    }
    return rc;
}

int ma_grade_play(ma_database *db, ma_player *p, const ma_grade_options *opt, ma_grade_result *out,
                 ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (!opt->count)
        return ma_error_set(err, MA_EINVAL, "grade: nothing to grade (count 0)");
    grader *G = calloc(1, sizeof *G);
    if (!G)
        return ma_error_set(err, MA_ENOMEM, "grade: out of memory");
    G->db = db;
    G->player = p;
    G->opt = opt;
    G->res = out;
    G->err = err;
    /* Two streams: the positions (and the perfect player's games) depend on the seed alone, not on
     * how many random numbers the graded player used, so every player sees the same positions. */
    ma_rng_seed(&G->rng, opt->seed);
    ma_rng_seed(&G->player_rng, opt->seed ^ 0x6a09e667f3bcc908ull);
    double t0 = ma_now();
    int rc = ma_rulebook_create(&G->rules, opt->variant, err);
    if (!rc)
        rc = opt->games ? run_games(G) : run_positions(G);
    out->seconds = ma_now() - t0;
    if (opt->progress)
        ma_progress_finish(opt->progress, opt->games ? out->games : out->graded);
    ma_rulebook_free(G->rules);
    free(G);
    return rc;
}
