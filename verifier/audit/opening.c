/* Gasser's opening proof by alpha-beta over the placement phase (see opening.h, docs/opening.md). */
#include "verifier/audit/opening.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "indexer/open_index.h"
#include "verifier/run/probe.h"
#include "verifier/check/rulebook.h"
#include "verifier/check/rules.h"

#define INF_SCORE (MA_OPENING_MATE + 1)
#define MAX_PLIES 26 /* 2 * 12 stones + the leaf */
#define NO_POINT 255

enum { BOUND_EXACT = 1, BOUND_LOWER = 2, BOUND_UPPER = 3, FLAG_TAINT = 4 };
enum { PASS_PESSIMISTIC = 0, PASS_OPTIMISTIC = 1 };

/* 16 bytes; four make one 64-byte bucket. */
typedef struct tt_entry {
    uint64_t key;    /* 0: empty */
    int32_t score;
    uint8_t flags;   /* BOUND_* | FLAG_TAINT */
    uint8_t to;      /* best turn, canonical coordinates; NO_POINT: none */
    uint8_t rm;
    uint8_t effort;  /* log2(1 + nodes searched below) */
} tt_entry;

typedef struct frame {
    ma_vturns turns;
    int64_t key[MA_VRULES_MAX_TURNS];
} frame;

/* Discrepancies already reported, by (tally, entry). */
typedef struct seen_set {
    uint64_t *slot; /* 0: empty; else value + 1 */
    int64_t *row;   /* the discrepancy row of the value, -1 when not kept */
    size_t cap, n;
} seen_set;

typedef struct search {
    const ma_opening_options *opt;
    const ma_opening_oracle *oracle;
    ma_opening_result *res;
    ma_opening_pass *st;
    ma_rulebook *rules;
    ma_error *err;
    int rc;                 /* sticky error: the search unwinds when set */
    int pass;
    int root_ply;
    tt_entry *tt;
    size_t bucket_mask;     /* buckets - 1 (a power of two) */
    frame *frames;          /* one per ply */
    uint32_t history[MA_POINTS];
    uint32_t symtab[MA_SYM_OPS][3][256]; /* image of each byte of a mask under each op */
    uint8_t perm[MA_SYM_OPS][MA_POINTS];
    int inverse[MA_SYM_OPS];
    int32_t tally_of[13 * 13 * 13 * 13]; /* sector -> index into res->tallies, -1 none */
    size_t tally_cap, rows_cap;
    seen_set seen;
    uint64_t next_report;
} search;

/* ---- scores ---- */

int32_t ma_opening_value_score(ma_value v, int ply)
{
    switch (v.outcome) {
    case MA_OUTCOME_WIN: return MA_OPENING_MATE - (ply + (int32_t)v.depth);
    case MA_OUTCOME_LOSS: return -(MA_OPENING_MATE - (ply + (int32_t)v.depth));
    default: return 0;
    }
}

ma_value ma_opening_score_value(int32_t score, int ply)
{
    ma_value v = {MA_OUTCOME_DRAW, 0};
    if (score > 0) {
        v.outcome = MA_OUTCOME_WIN;
        v.depth = (uint16_t)(MA_OPENING_MATE - score - ply);
    } else if (score < 0) {
        v.outcome = MA_OUTCOME_LOSS;
        v.depth = (uint16_t)(MA_OPENING_MATE + score - ply);
    }
    return v;
}

static int ply_of(const search *S, ma_sector s)
{
    return 2 * S->opt->stones - s.wf - s.bf;
}

/* ---- symmetry and keys ---- */

static void sym_init(search *S)
{
    for (int op = 0; op < MA_SYM_OPS; op++) {
        for (int p = 0; p < MA_POINTS; p++) {
            ma_board one = {1u << p, 0};
            S->perm[op][p] = (uint8_t)__builtin_ctz(ma_open_sym_apply(op, one).mover);
        }
        for (int byte = 0; byte < 3; byte++)
            for (int v = 0; v < 256; v++) {
                uint32_t img = 0;
                for (int bit = 0; bit < 8; bit++)
                    if (v & (1 << bit))
                        img |= 1u << S->perm[op][byte * 8 + bit];
                S->symtab[op][byte][v] = img;
            }
        S->inverse[op] = ma_open_sym_inverse(op);
    }
}

static inline uint32_t sym_mask(const search *S, int op, uint32_t m)
{
    return S->symtab[op][0][m & 255] | S->symtab[op][1][(m >> 8) & 255] |
           S->symtab[op][2][(m >> 16) & 255];
}

/* Exact key of a position: the smallest (mover image, opponent image) over the 16 ops (the
 * canonical form of docs/format.md §4.2) and both hands. *op_out = the op that produced it. */
static uint64_t position_key(const search *S, ma_sector s, ma_board b, int *op_out)
{
    uint64_t best = UINT64_MAX;
    int best_op = 0;
    for (int op = 0; op < MA_SYM_OPS; op++) {
        uint64_t k = ((uint64_t)sym_mask(S, op, b.mover) << 24) | sym_mask(S, op, b.opp);
        if (k < best) {
            best = k;
            best_op = op;
        }
    }
    *op_out = best_op;
    return best | ((uint64_t)s.wf << 48) | ((uint64_t)s.bf << 52) | (1ull << 63);
}

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static tt_entry *tt_bucket(const search *S, uint64_t key)
{
    return &S->tt[(mix64(key) & S->bucket_mask) * 4];
}

static tt_entry *tt_probe(search *S, uint64_t key)
{
    S->st->tt_probes++;
    tt_entry *b = tt_bucket(S, key);
    for (int i = 0; i < 4; i++)
        if (b[i].key == key) {
            S->st->tt_hits++;
            return &b[i];
        }
    return NULL;
}

static uint8_t effort_of(uint64_t nodes)
{
    int e = 0;
    while (nodes > 1 && e < 255) {
        nodes >>= 1;
        e++;
    }
    return (uint8_t)e;
}

static void tt_store(search *S, uint64_t key, int32_t score, int flags, int to, int rm,
                     uint64_t nodes)
{
    tt_entry *b = tt_bucket(S, key), *slot = NULL;
    for (int i = 0; i < 4 && !slot; i++)
        if (b[i].key == key) {
            if ((b[i].flags & 3) == BOUND_EXACT && (flags & 3) != BOUND_EXACT)
                return; /* an exact result is worth more than any bound of the same position */
            slot = &b[i];
        }
    for (int i = 0; i < 4 && !slot; i++)
        if (!b[i].key)
            slot = &b[i];
    if (!slot) {
        slot = &b[0];
        for (int i = 1; i < 4; i++)
            if (b[i].effort < slot->effort)
                slot = &b[i];
        S->st->tt_replacements++;
    }
    S->st->tt_stores++;
    slot->key = key;
    slot->score = score;
    slot->flags = (uint8_t)flags;
    slot->to = (uint8_t)to;
    slot->rm = (uint8_t)rm;
    slot->effort = effort_of(nodes + 1);
}

/* ---- comparisons with stored placement values ---- */

/* Finds or adds v. Returns 1 when added, 0 when present, -1 out of memory; *row points at the
 * value's row slot either way. */
static int seen_insert(seen_set *s, uint64_t v, int64_t **row)
{
    if (s->n * 2 >= s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        uint64_t *slot = calloc(cap, sizeof *slot);
        int64_t *rows = calloc(cap, sizeof *rows);
        if (!slot || !rows) {
            free(slot);
            free(rows);
            return -1;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i])
                for (size_t j = mix64(s->slot[i]) & (cap - 1);; j = (j + 1) & (cap - 1))
                    if (!slot[j]) {
                        slot[j] = s->slot[i];
                        rows[j] = s->row[i];
                        break;
                    }
        free(s->slot);
        free(s->row);
        s->slot = slot;
        s->row = rows;
        s->cap = cap;
    }
    for (size_t j = mix64(v + 1) & (s->cap - 1);; j = (j + 1) & (s->cap - 1)) {
        if (s->slot[j] == v + 1) {
            *row = &s->row[j];
            return 0;
        }
        if (!s->slot[j]) {
            s->slot[j] = v + 1;
            s->row[j] = -1;
            s->n++;
            *row = &s->row[j];
            return 1;
        }
    }
}

static size_t sector_slot(ma_sector s)
{
    return (((size_t)s.w * 13 + s.b) * 13 + s.wf) * 13 + s.bf;
}

static ma_opening_tally *tally_for(search *S, ma_sector s, const ma_opening_stored *st)
{
    size_t i = sector_slot(s);
    if (S->tally_of[i] >= 0)
        return &S->res->tallies[S->tally_of[i]];
    ma_opening_result *r = S->res;
    if (r->n_tallies == S->tally_cap) {
        size_t cap = S->tally_cap ? 2 * S->tally_cap : 16;
        ma_opening_tally *t = realloc(r->tallies, cap * sizeof *t);
        if (!t)
            return NULL;
        r->tallies = t;
        S->tally_cap = cap;
    }
    ma_opening_tally *t = &r->tallies[r->n_tallies];
    memset(t, 0, sizeof *t);
    t->sector = s;
    snprintf(t->name, sizeof t->name, "%s", st->sector);
    snprintf(t->path, sizeof t->path, "%s", st->path);
    t->entries = st->entries;
    S->tally_of[i] = (int32_t)r->n_tallies++;
    return t;
}

static void value_text(ma_value v, int bound, char *buf, size_t len)
{
    char val[32];
    ma_value_format(v, val, sizeof val);
    snprintf(buf, len, "%s%s", bound > 0 ? ">= " : bound < 0 ? "<= " : "", val);
}

/* Compares the result (score, bound) of placement position b (sector s, at ply) with its stored
 * value. */
static void compare(search *S, int ply, ma_sector s, ma_board b, int32_t score, int bound)
{
    ma_opening_stored st;
    memset(&st, 0, sizeof st);
    int rc = S->oracle->stored(S->oracle->ctx, s, b, &st, S->err);
    if (rc < 0) {
        S->rc = rc;
        return;
    }
    if (rc == 0)
        return;
    ma_opening_tally *t = tally_for(S, s, &st);
    if (!t) {
        S->rc = ma_error_set(S->err, MA_ENOMEM, "opening: out of memory");
        return;
    }
    int32_t stored = st.usable ? ma_opening_value_score(st.value, ply) : 0;
    int agree;
    int kind = bound == BOUND_EXACT ? 0 : bound == BOUND_LOWER ? 1 : -1;
    if (kind == 0) {
        t->exact_checked++;
        S->res->exact_checked++;
        agree = st.usable && stored == score;
        t->exact_agreed += (uint64_t)agree;
    } else {
        t->bound_checked++;
        S->res->bound_checked++;
        agree = st.usable && (kind > 0 ? stored >= score : stored <= score);
        t->bound_agreed += (uint64_t)agree;
    }
    if (agree)
        return;
    int64_t *row_of;
    int fresh = seen_insert(&S->seen, ((uint64_t)(t - S->res->tallies) << 44) ^ st.entry, &row_of);
    if (fresh < 0) {
        S->rc = ma_error_set(S->err, MA_ENOMEM, "opening: out of memory");
        return;
    }
    if (!fresh) {
        /* Reported already; an exact result says more than the bound that was found first. */
        if (kind == 0 && *row_of >= 0 && S->res->rows[*row_of].bound != 0) {
            ma_opening_discrepancy *d = &S->res->rows[*row_of];
            d->derived_value = ma_opening_score_value(score, ply);
            d->bound = 0;
            value_text(d->derived_value, 0, d->derived, sizeof d->derived);
        }
        return;
    }
    t->discrepancies++;
    S->res->discrepancies++;
    size_t max_rows = S->opt->max_rows ? S->opt->max_rows : 1000;
    ma_opening_result *r = S->res;
    if (r->n_rows >= max_rows)
        return;
    if (r->n_rows == S->rows_cap) {
        size_t cap = S->rows_cap ? 2 * S->rows_cap : 16;
        ma_opening_discrepancy *rows = realloc(r->rows, cap * sizeof *rows);
        if (!rows) {
            S->rc = ma_error_set(S->err, MA_ENOMEM, "opening: out of memory");
            return;
        }
        r->rows = rows;
        S->rows_cap = cap;
    }
    *row_of = (int64_t)r->n_rows;
    ma_opening_discrepancy *d = &r->rows[r->n_rows++];
    memset(d, 0, sizeof *d);
    snprintf(d->sector, sizeof d->sector, "%s", st.sector);
    d->entry = st.entry;
    d->board = b;
    snprintf(d->stored, sizeof d->stored, "%s", st.describe);
    d->stored_usable = st.usable;
    d->stored_value = st.value;
    d->derived_value = ma_opening_score_value(score, ply);
    d->bound = kind;
    value_text(d->derived_value, kind, d->derived, sizeof d->derived);
}

/* ---- the search ---- */

static int check_cancel(search *S)
{
    if (S->opt->cancel && *S->opt->cancel) {
        S->rc = ma_error_set(S->err, MA_ECANCELED, "opening: interrupted after %llu nodes",
                             (unsigned long long)S->st->nodes);
        return 1;
    }
    if (S->opt->progress && S->st->nodes >= S->next_report) {
        ma_progress_update(S->opt->progress, S->res->nodes + S->st->nodes);
        S->next_report = S->st->nodes + 65536;
    }
    return 0;
}

/* The score of a leaf at ply q (root-relative, from the leaf's side to move). */
static int32_t leaf_score(search *S, int q, ma_sector s, ma_board b, int *taint)
{
    S->st->leaves++;
    ma_value v;
    int rc = S->oracle->leaf(S->oracle->ctx, s, b, &v, S->err);
    if (rc < 0) {
        S->rc = rc;
        return 0;
    }
    if (rc == MA_OPENING_KNOWN) {
        *taint = 0;
        return ma_opening_value_score(v, q);
    }
    S->st->unknown_leaves++;
    *taint = 1;
    int root_to_move = ((q - S->root_ply) & 1) == 0;
    int worst_for_leaf_mover = (S->pass == PASS_PESSIMISTIC) == root_to_move;
    return worst_for_leaf_mover ? -(MA_OPENING_MATE - q) : MA_OPENING_MATE - (q + 1);
}

/* Placement point and removed stone of the turn from b to successor c (colour-swapped). */
static inline void turn_points(ma_board b, ma_board c, int *to, int *rm)
{
    uint32_t placed = c.opp & ~b.mover, gone = b.opp & ~c.mover;
    *to = placed ? __builtin_ctz(placed) : NO_POINT;
    *rm = gone ? __builtin_ctz(gone) : NO_POINT;
}

static void order_keys(search *S, const ma_vrules *r, ma_board b, frame *f, int hint_to,
                       int hint_rm)
{
    for (int i = 0; i < f->turns.n; i++) {
        int to, rm;
        turn_points(b, f->turns.succ[i], &to, &rm);
        int64_t k = 0;
        if (to == hint_to && rm == hint_rm)
            k += 4000000000LL;
        if (f->turns.kind[i] == MA_TURN_PLACE_MILL || f->turns.kind[i] == MA_TURN_MOVE_MILL)
            k += 2000000000LL;
        if (to != NO_POINT) {
            for (int j = 0; j < r->n_partners[to]; j++)
                if ((r->partners[to][j] & b.opp) == r->partners[to][j]) {
                    k += 1000000000LL;
                    break;
                }
            k += (int64_t)(S->history[to] < 900000000u ? S->history[to] : 900000000u) * 4;
            k += __builtin_popcount(r->adj[to]);
        }
        f->key[i] = k;
    }
}

/* The index of the best remaining turn by key (selection sort, one step); -1 when none. */
static int next_turn(const frame *f, uint8_t *done, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if (!done[i] && (best < 0 || f->key[i] > f->key[best]))
            best = i;
    if (best >= 0)
        done[best] = 1;
    return best;
}

static int32_t search_node(search *S, int ply, ma_sector s, ma_board b, int32_t alpha,
                           int32_t beta, int *taint_out)
{
    *taint_out = 0;
    if (S->rc)
        return 0;
    uint64_t start_nodes = S->st->nodes++;
    if ((start_nodes & 1023) == 0 && check_cancel(S))
        return 0;
    int op;
    uint64_t key = position_key(S, s, b, &op);
    int hint_to = NO_POINT, hint_rm = NO_POINT;
    tt_entry *e = tt_probe(S, key);
    if (e) {
        int bound = e->flags & 3;
        if (bound == BOUND_EXACT || (bound == BOUND_LOWER && e->score >= beta) ||
            (bound == BOUND_UPPER && e->score <= alpha)) {
            S->st->tt_cutoffs++;
            *taint_out = (e->flags & FLAG_TAINT) != 0;
            return e->score;
        }
        int inv = S->inverse[op];
        if (e->to != NO_POINT)
            hint_to = S->perm[inv][e->to];
        if (e->rm != NO_POINT)
            hint_rm = S->perm[inv][e->rm];
    }
    const ma_vrules *r = ma_rulebook_get(S->rules, s, S->err);
    if (!r) {
        S->rc = S->err->code ? S->err->code : MA_EINTERNAL;
        return 0;
    }
    frame *f = &S->frames[ply - S->root_ply];
    if (ma_vrules_generate(r, b, &f->turns) != 0) {
        S->rc = ma_error_set(S->err, MA_EINTERNAL, "opening: move generation failed");
        return 0;
    }
    int32_t best;
    int flags = BOUND_EXACT, best_to = NO_POINT, best_rm = NO_POINT;
    if (f->turns.immediate_wins) {
        best = MA_OPENING_MATE - (ply + 1);
    } else if (f->turns.n == 0) {
        best = -(MA_OPENING_MATE - ply);
    } else {
        order_keys(S, r, b, f, hint_to, hint_rm);
        uint8_t done[MA_VRULES_MAX_TURNS];
        int n = f->turns.n;
        memset(done, 0, (size_t)n);
        best = -INF_SCORE;
        int32_t a = alpha;
        int all_taint = 0, best_taint = 0;
        for (int k = 0; k < n; k++) {
            int i = next_turn(f, done, n);
            ma_sector cs = r->succ[f->turns.kind[i]];
            ma_board cb = f->turns.succ[i];
            int ct = 0;
            int32_t v = (cs.wf == 0 && cs.bf == 0)
                            ? -leaf_score(S, ply + 1, cs, cb, &ct)
                            : -search_node(S, ply + 1, cs, cb, -beta, -a, &ct);
            if (S->rc)
                return 0;
            /* the frame may have been reused below only for deeper plies; ours is intact */
            all_taint |= ct;
            if (v > best) {
                best = v;
                best_taint = ct;
                turn_points(b, cb, &best_to, &best_rm);
            }
            if (v > a)
                a = v;
            if (a >= beta) {
                if (best_to != NO_POINT) {
                    uint32_t bonus = 1u << (2 * S->opt->stones - ply > 20 ? 20 : 2 * S->opt->stones - ply);
                    S->history[best_to] += bonus;
                }
                break;
            }
        }
        if (best >= beta) {
            flags = BOUND_LOWER | (best_taint ? FLAG_TAINT : 0);
        } else if (best <= alpha) {
            flags = BOUND_UPPER | (all_taint ? FLAG_TAINT : 0);
        } else {
            flags = BOUND_EXACT | (all_taint ? FLAG_TAINT : 0);
        }
    }
    int to_c = best_to == NO_POINT ? NO_POINT : S->perm[op][best_to];
    int rm_c = best_rm == NO_POINT ? NO_POINT : S->perm[op][best_rm];
    tt_store(S, key, best, flags, to_c, rm_c, S->st->nodes - start_nodes);
    *taint_out = (flags & FLAG_TAINT) != 0;
    /* untainted results are the same in both passes: compare them once */
    if (!*taint_out && S->oracle->stored && S->pass == PASS_PESSIMISTIC)
        compare(S, ply, s, b, best, flags & 3);
    return best;
}

/* ---- principal variation ---- */

static void pv_append(ma_opening_pass *p, const char *turn)
{
    size_t l = strlen(p->pv);
    snprintf(p->pv + l, sizeof p->pv - l, "%s%s", l ? " " : "", turn);
    p->pv_plies++;
}

static void turn_text(int to, int rm, char *buf, size_t len)
{
    if (rm != NO_POINT)
        snprintf(buf, len, "%s x%s", ma_point_name(to), ma_point_name(rm));
    else
        snprintf(buf, len, "%s", ma_point_name(to));
    /* one token: "d1xa4" */
    char *sp = strchr(buf, ' ');
    if (sp)
        memmove(sp, sp + 1, strlen(sp));
}

/* Follows turns that keep the root value: at each position the first turn (in search order)
 * whose value, re-searched with a window just around the expected score, is exactly it. */
static void principal_variation(search *S, int32_t root_score)
{
    ma_opening_pass *p = S->st;
    ma_sector s = S->opt->has_start ? S->opt->start_sector
                                    : (ma_sector){0, 0, (uint8_t)S->opt->stones, (uint8_t)S->opt->stones};
    ma_board b = S->opt->has_start ? S->opt->start : (ma_board){0, 0};
    int32_t v = root_score;
    for (int ply = S->root_ply; !S->rc; ply++) {
        const ma_vrules *r = ma_rulebook_get(S->rules, s, S->err);
        if (!r) {
            S->rc = S->err->code ? S->err->code : MA_EINTERNAL;
            return;
        }
        frame *f = &S->frames[ply - S->root_ply];
        if (ma_vrules_generate(r, b, &f->turns) != 0) {
            S->rc = ma_error_set(S->err, MA_EINTERNAL, "opening: move generation failed");
            return;
        }
        if (f->turns.immediate_wins) {
            ma_probe_turn t[MA_VRULES_MAX_TURNS];
            int n = 0;
            if (ma_probe_turns(r, b, t, MA_VRULES_MAX_TURNS, &n, S->err) == MA_OK)
                for (int i = 0; i < n; i++)
                    if (t[i].immediate_win) {
                        char buf[16];
                        turn_text(t[i].to, t[i].removed, buf, sizeof buf);
                        pv_append(p, buf);
                        break;
                    }
            snprintf(p->pv_end, sizeof p->pv_end, "wins by reduction");
            return;
        }
        if (f->turns.n == 0) {
            snprintf(p->pv_end, sizeof p->pv_end, "side to move has no turn");
            return;
        }
        int op;
        uint64_t key = position_key(S, s, b, &op);
        tt_entry *e = tt_probe(S, key);
        int hint_to = NO_POINT, hint_rm = NO_POINT;
        if (e) {
            int inv = S->inverse[op];
            if (e->to != NO_POINT)
                hint_to = S->perm[inv][e->to];
            if (e->rm != NO_POINT)
                hint_rm = S->perm[inv][e->rm];
        }
        order_keys(S, r, b, f, hint_to, hint_rm);
        uint8_t done[MA_VRULES_MAX_TURNS];
        int n = f->turns.n, found = 0;
        memset(done, 0, (size_t)n);
        for (int k = 0; k < n && !found && !S->rc; k++) {
            int i = next_turn(f, done, n);
            ma_sector cs = r->succ[f->turns.kind[i]];
            ma_board cb = f->turns.succ[i];
            int ct, leaf = cs.wf == 0 && cs.bf == 0;
            int32_t cv = leaf ? leaf_score(S, ply + 1, cs, cb, &ct)
                              : search_node(S, ply + 1, cs, cb, -v - 1, -v + 1, &ct);
            if (S->rc || cv != -v)
                continue;
            found = 1;
            int to, rm;
            turn_points(b, cb, &to, &rm);
            char buf[16];
            turn_text(to, rm, buf, sizeof buf);
            pv_append(p, buf);
            if (leaf) {
                char bt[80], val[32], name[16];
                ma_board_format(cb, bt, sizeof bt);
                ma_sector_format(cs, name, sizeof name);
                if (ct)
                    snprintf(val, sizeof val, "unknown, taken as %s",
                             cv > 0 ? "win 1" : "loss 0");
                else
                    ma_value_format(ma_opening_score_value(cv, ply + 1), val, sizeof val);
                snprintf(p->pv_end, sizeof p->pv_end, "leaf %s_%s %s: %s",
                         ma_variant_name(S->opt->variant), name, bt, val);
                return;
            }
            s = cs;
            b = cb;
            v = -v;
        }
        if (!found) {
            if (!S->rc)
                S->rc = ma_error_set(S->err, MA_EINTERNAL,
                                     "opening: no turn keeps the proven value at ply %d", ply);
            return;
        }
    }
}

/* ---- driver ---- */

static int32_t root_search(search *S, ma_sector s, ma_board b)
{
    int taint;
    /* Aspiration: the window (-1, 1) proves a draw cheaply and bounds anything else. */
    int32_t v = search_node(S, S->root_ply, s, b, -1, 1, &taint);
    if (S->rc || v == 0)
        return v;
    if (v > 0)
        return search_node(S, S->root_ply, s, b, v - 1, INF_SCORE, &taint);
    return search_node(S, S->root_ply, s, b, -INF_SCORE, v + 1, &taint);
}

static int run_pass(search *S, int pass, ma_sector s, ma_board b, size_t n_entries)
{
    S->pass = pass;
    S->st = &S->res->pass[pass];
    memset(S->st, 0, sizeof *S->st);
    /* the table comes zeroed from calloc; only a second pass must forget the first */
    if (pass != PASS_PESSIMISTIC)
        memset(S->tt, 0, n_entries * sizeof *S->tt);
    memset(S->history, 0, sizeof S->history);
    S->next_report = 0;
    double t0 = ma_now();
    int32_t v = root_search(S, s, b);
    if (!S->rc)
        principal_variation(S, v);
    S->st->seconds = ma_now() - t0;
    S->st->value = ma_opening_score_value(v, S->root_ply);
    S->res->nodes += S->st->nodes;
    S->res->leaves += S->st->leaves;
    S->res->unknown_leaves += S->st->unknown_leaves;
    S->res->tt_probes += S->st->tt_probes;
    S->res->tt_hits += S->st->tt_hits;
    return S->rc;
}

static int check_options(const ma_opening_options *o, ma_sector *s, ma_board *b, ma_error *err)
{
    if (o->variant == MA_VARIANT_LASK)
        return ma_error_set(err, MA_EINVAL,
                            "opening: lask mixes placing and moving, so its placement phase is no "
                            "finite tree; the opening proof covers std and mora");
    if (o->variant != MA_VARIANT_STD && o->variant != MA_VARIANT_MORA)
        return ma_error_set(err, MA_EINVAL, "opening: unknown variant %d", (int)o->variant);
    int n = ma_variant_stones(o->variant);
    if (o->stones < 3 || o->stones > n)
        return ma_error_set(err, MA_EINVAL, "opening: stones %d: expected 3..%d for %s",
                            o->stones, n, ma_variant_name(o->variant));
    if (o->tt_bytes < 4 * sizeof(tt_entry))
        return ma_error_set(err, MA_EINVAL, "opening: transposition table of %s: at least %s needed",
                            MA_COUNT(o->tt_bytes, "byte", "bytes"), MA_NUM(4 * sizeof(tt_entry)));
    if (!o->has_start) {
        *s = (ma_sector){0, 0, (uint8_t)o->stones, (uint8_t)o->stones};
        *b = (ma_board){0, 0};
        return MA_OK;
    }
    *s = o->start_sector;
    *b = o->start;
    char name[16];
    ma_sector_format(*s, name, sizeof name);
    if ((b->mover & b->opp) || ((b->mover | b->opp) & ~MA_FULL_MASK) ||
        __builtin_popcount(b->mover) != s->w || __builtin_popcount(b->opp) != s->b)
        return ma_error_set(err, MA_EINVAL, "opening: start board does not fit sector %s", name);
    /* Placement alternates, the side to move at the start of the game placing first: the side
     * to move has as many stones in hand as the other, or one more. */
    if (s->wf < 1 || s->wf > o->stones || s->bf > s->wf || s->wf - s->bf > 1 ||
        !ma_sector_valid(o->variant, *s) || s->w + s->wf > o->stones || s->b + s->bf > o->stones)
        return ma_error_set(err, MA_EINVAL,
                            "opening: sector %s is no placement position of the %d-stone game",
                            name, o->stones);
    return MA_OK;
}

int ma_opening_prove(const ma_opening_options *opt, const ma_opening_oracle *oracle,
                     ma_opening_result *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    ma_sector s;
    ma_board b;
    int rc = check_options(opt, &s, &b, err);
    if (rc)
        return rc;
    if (!oracle || !oracle->leaf)
        return ma_error_set(err, MA_EINVAL, "opening: no leaf oracle");
    out->root_sector = s;
    out->root = b;
    search *S = calloc(1, sizeof *S);
    size_t buckets = 1;
    while (buckets * 2 * 4 * sizeof(tt_entry) <= opt->tt_bytes)
        buckets *= 2;
    if (S) {
        S->tt = calloc(buckets * 4, sizeof *S->tt);
        S->frames = malloc(MAX_PLIES * sizeof *S->frames);
    }
    if (!S || !S->tt || !S->frames || ma_rulebook_create(&S->rules, opt->variant, err) != MA_OK) {
        if (S) {
            free(S->tt);
            free(S->frames);
            free(S);
        }
        return ma_error_set(err, MA_ENOMEM, "opening: out of memory for a transposition table of %s",
                            MA_COUNT(opt->tt_bytes, "byte", "bytes"));
    }
    S->opt = opt;
    S->oracle = oracle;
    S->res = out;
    S->err = err;
    S->bucket_mask = buckets - 1;
    S->root_ply = ply_of(S, s);
    for (size_t i = 0; i < sizeof S->tally_of / sizeof S->tally_of[0]; i++)
        S->tally_of[i] = -1;
    sym_init(S);
    out->tt_entries = buckets * 4;
    double t0 = ma_now();
    rc = run_pass(S, PASS_PESSIMISTIC, s, b, buckets * 4);
    out->passes = 1;
    if (!rc && out->pass[0].unknown_leaves) {
        out->passes = 2;
        rc = run_pass(S, PASS_OPTIMISTIC, s, b, buckets * 4);
    }
    out->seconds = ma_now() - t0;
    if (!rc) {
        out->lower = out->pass[0].value;
        out->upper = out->passes == 2 ? out->pass[1].value : out->pass[0].value;
        if (out->lower.outcome == out->upper.outcome && out->lower.depth == out->upper.depth)
            out->status = MA_OPENING_PROVEN;
        else if (out->lower.outcome == out->upper.outcome)
            out->status = MA_OPENING_OUTCOME_PROVEN;
        else
            out->status = MA_OPENING_UNPROVEN;
        out->value = out->lower;
        if (out->status == MA_OPENING_OUTCOME_PROVEN)
            out->value.depth = 0;
    }
    if (opt->progress)
        ma_progress_finish(opt->progress, out->nodes);
    ma_rulebook_free(S->rules);
    free(S->seen.slot);
    free(S->seen.row);
    free(S->tt);
    free(S->frames);
    free(S);
    return rc;
}

void ma_opening_result_free(ma_opening_result *r)
{
    if (!r)
        return;
    free(r->tallies);
    free(r->rows);
    r->tallies = NULL;
    r->rows = NULL;
    r->n_tallies = r->n_rows = 0;
}
