/* Malom sector verification (see malom_check.h for the contract). */
#include "verifier/check/malom_check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/check/fused_turns.h"
#include "verifier/check/resident.h"
#include "verifier/check/score_sort.h"
#include "verifier/check/turn_masks.h"
#include "verifier/check/visited.h"
#include "verifier/check/word_set.h"
#include "common/chunk_order.h"
#include "common/progress.h"

#define CHUNK 4096

static const char *const class_names[MA_MCHECK_CLASSES + 1] = {
    "wrong-outcome", "wrong-depth", "wrong-draw-class", "wrong-terminal", "bad-encoding",
    "symmetry-inconsistency", "missing-child"};

const char *ma_mcheck_class_name(int cls)
{
    if (cls < 0 || cls > MA_MCHECK_CLASSES)
        return "unknown";
    return class_names[cls];
}

void ma_mcheck_format_value(const ma_malom_frame *f, int legacy, ma_malom_value v, char *buf,
                            size_t len)
{
    int32_t a = v.key1 + f->v;
    if (a == f->vw)
        snprintf(buf, len, "win %d", (int)v.key2);
    else if (a == f->vl)
        snprintf(buf, len, "loss %d", (int)v.key2);
    else if (legacy || v.key1 == 0)
        snprintf(buf, len, "draw A=%d", (int)a);
    else
        snprintf(buf, len, "draw A=%d k2=%d", (int)a, (int)v.key2);
}

int ma_mcheck_prepare_index(ma_malom_index *ix, ma_variant v, ma_sector s, ma_error *err)
{
    ma_vrules r;
    int rc = ma_vrules_init(&r, v, s, err);
    if (rc)
        return rc;
    rc = ma_malom_index_prepare(ix, s.w, err);
    for (int k = 0; !rc && k < MA_TURN_KINDS; k++)
        if (r.succ_exists[k] && !(rc = ma_malom_index_prepare(ix, r.succ[k].w, err)))
            rc = ma_malom_index_prepare_movers(ix, r.succ[k].w, err);
    return rc;
}

/* What the turns of one canonical position say. */
struct derivation {
    ma_malom_value best; /* maximum over the known turns (a lower bound when !full) */
    int full;            /* every turn's value known */
    int fixed;           /* the value is fixed by the rules alone */
    int missing;         /* some successor sector file is absent */
    int broken;          /* some successor's canonical entry is a marker */
    int missing_kind[MA_TURN_KINDS];
};

struct shared {
    const ma_mcheck_input *in;
    ma_vrules rules;
    ma_sector sector;
    ma_malom_frame frame;
    int legacy;
    const ma_malom_file *child[MA_TURN_KINDS];
    ma_malom_frame child_frame[MA_TURN_KINDS];
    uint64_t entries;
    atomic_uint_fast64_t next;
    atomic_uint_fast64_t done;
    atomic_int failed;
    atomic_int canceled;
    struct fast *fast; /* the table-driven path, NULL for the reference path */
    ma_visited_team team; /* where each thread marks: fast->visited, or a bitmap of its own */
};

static void derive(const struct shared *sh, ma_board pos, ma_vturns *turns, struct derivation *d)
{
    memset(d, 0, sizeof *d);
    d->best = ma_malom_no_turn(&sh->frame);
    d->full = 1;
    if (sh->in->full_board_draw && sh->sector.w == 12 && sh->sector.b == 12) {
        d->best.key1 = 0;
        d->best.key2 = 0;
        d->fixed = 1;
        return;
    }
    ma_vrules_generate(&sh->rules, pos, turns);
    if (turns->immediate_wins > 0) {
        /* A win in 1 is the largest value any turn can have, so no successor can change it. */
        d->best = ma_malom_win_in_one(&sh->frame);
        d->fixed = 1;
        return;
    }
    if (turns->n == 0) {
        d->fixed = 1;
        return;
    }
    ma_malom_mover mi = {0};
    int have_mi = 0;
    for (int i = 0; i < turns->n; i++) {
        int k = turns->kind[i];
        const ma_malom_file *cf = sh->child[k];
        if (!cf) {
            d->full = 0;
            d->missing = 1;
            d->missing_kind[k] = 1;
            continue;
        }
        /* Successors sharing a mover mask (all non-removal ones, removal ones per removed
         * stone) share the mover part of the index: compute it once per run of equal masks. */
        if (!have_mi || mi.mover_open != turns->succ[i].mover) {
            ma_malom_mover_info(sh->in->ix, turns->succ[i].mover, &mi);
            have_mi = 1;
        }
        uint64_t idx = ma_malom_index_rank_with(sh->in->ix, &mi, turns->succ[i].opp);
        ma_malom_entry e;
        ma_malom_file_entry(cf, idx, &e);
        if (e.kind == MA_MALOM_SYM) {
            d->full = 0;
            d->broken = 1;
            continue;
        }
        ma_malom_value cv = {e.key1, e.key2};
        ma_malom_value m = ma_malom_turn_value(cv, sh->child_frame[k].v, sh->frame.v);
        if (ma_malom_value_cmp(m, d->best) > 0)
            d->best = m;
    }
}

static int same_value(ma_malom_value a, ma_malom_value b)
{
    return a.key1 == b.key1 && (a.key1 == 0 || a.key2 == b.key2);
}

/* Class of a stored value that differs from (or lies below) the derived one. */
static int mismatch_class(const struct shared *sh, const ma_malom_entry *st, ma_malom_value der,
                          int fixed)
{
    if (fixed)
        return MA_MCHECK_WRONG_TERMINAL;
    ma_malom_result rs, rd;
    if (ma_malom_interpret(&sh->frame, st, &rs))
        return MA_MCHECK_BAD_ENCODING;
    ma_malom_entry de = {der.key1 ? MA_MALOM_VAL : MA_MALOM_COUNT, der.key1, der.key2, -1};
    if (ma_malom_interpret(&sh->frame, &de, &rd))
        return MA_MCHECK_WRONG_OUTCOME;
    if (rs.outcome != rd.outcome)
        return MA_MCHECK_WRONG_OUTCOME;
    if (rs.outcome != MA_MALOM_DRAW)
        return MA_MCHECK_WRONG_DEPTH;
    return MA_MCHECK_WRONG_DRAW_CLASS;
}

struct worker {
    struct shared *sh;
    int id;
    ma_mcheck_result part; /* counters and items of this thread */
    size_t cap;
    ma_error err;
    int rc;
    struct fworker *fw; /* fast-path state of this thread */
    _Atomic uint64_t *visited; /* where this thread marks (ma_visited_team_bits) */
    /* Workers sit side by side in one array and write their counters for every entry: keep the
     * written fields of neighbours apart (false sharing halved the 2-thread speed-up). */
    char pad[128];
};

static int add_item(struct worker *w, const ma_mcheck_item *it)
{
    if (w->part.n_items == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        ma_mcheck_item *p = realloc(w->part.items, cap * sizeof *p);
        if (!p)
            return MA_ENOMEM;
        w->part.items = p;
        w->cap = cap;
    }
    w->part.items[w->part.n_items++] = *it;
    w->part.by_class[it->cls]++;
    w->part.discrepancies++;
    return MA_OK;
}

static int conclude(struct worker *w, ma_mcheck_item *it, const ma_malom_entry *st,
                    const struct derivation *d);

static int check_index(struct worker *w, uint64_t idx, ma_vturns *turns)
{
    struct shared *sh = w->sh;
    const ma_malom_index *ix = sh->in->ix;
    ma_sector s = sh->sector;
    ma_malom_entry st;
    ma_malom_file_entry(sh->in->file, idx, &st);
    int marker = ma_malom_index_marker(ix, s.w, s.b, idx);
    ma_board pos = ma_malom_index_unrank(ix, s.w, s.b, idx);
    ma_board canon;
    uint64_t back = ma_malom_index_rank(ix, pos, &canon);
    char sec[16];
    if ((marker < 0 && back != idx) || (marker >= 0 && back == idx)) {
        ma_sector_format(s, sec, sizeof sec);
        return ma_error_set(&w->err, MA_EINTERNAL,
                            "%s: sector %s: offset %llu: index %llu does not round-trip (rank gives "
                            "%llu): checker index bug",
                            sh->in->path ? sh->in->path : "(sector file)", sec,
                            (unsigned long long)ma_malom_file_entry_offset(sh->in->file, idx),
                            (unsigned long long)idx, (unsigned long long)back);
    }
    ma_mcheck_item it;
    memset(&it, 0, sizeof it);
    it.entry = idx;
    it.stored = st;
    it.expected_marker = marker;
    it.derived_full = 1;
    if (marker >= 0) {
        w->part.markers++;
        ma_board image = ma_malom_sym_apply(marker, pos);
        int ok = st.kind == MA_MALOM_SYM && st.sym_op == marker && image.mover == canon.mover &&
                 image.opp == canon.opp;
        if (ok) {
            w->part.verified++;
            return MA_OK;
        }
        it.cls = MA_MCHECK_SYMMETRY;
        it.root = 1;
        return add_item(w, &it);
    }
    w->part.canonical++;
    if (st.kind == MA_MALOM_SYM) {
        it.cls = MA_MCHECK_SYMMETRY;
        it.root = 1;
        return add_item(w, &it);
    }
    struct derivation d;
    derive(sh, pos, turns, &d);
    return conclude(w, &it, &st, &d);
}

/* The verdict on a canonical entry whose stored entry st is not a marker, given its derivation d.
 * `it` holds the entry, its stored value and marker fields; the rest is filled here. */
static int conclude(struct worker *w, ma_mcheck_item *it, const ma_malom_entry *st,
                    const struct derivation *d)
{
    const struct shared *sh = w->sh;
    it->derived = d->best;
    it->derived_full = (uint8_t)(d->full || d->fixed);
    ma_malom_value sv = {st->key1, st->key2};
    ma_malom_result rs;
    if (ma_malom_interpret(&sh->frame, st, &rs)) {
        it->cls = MA_MCHECK_BAD_ENCODING;
        it->root = 1;
        return add_item(w, it);
    }
    if (d->full || d->fixed) {
        if (same_value(sv, d->best)) {
            w->part.verified++;
            return MA_OK;
        }
        it->cls = (uint8_t)mismatch_class(sh, st, d->best, d->fixed);
        return add_item(w, it);
    }
    /* Bounds mode: d->best is a lower bound of the true maximum. */
    if (d->missing)
        w->part.missing_child++;
    if (d->broken)
        w->part.broken_child++;
    for (int k = 0; k < MA_TURN_KINDS; k++)
        w->part.missing_kind[k] |= d->missing_kind[k];
    int c = ma_malom_value_cmp(sv, d->best);
    if (c < 0) {
        it->cls = (uint8_t)mismatch_class(sh, st, d->best, 0);
        return add_item(w, it);
    }
    if (c == 0 && rs.outcome == MA_MALOM_WIN) {
        w->part.verified++;
        w->part.bound_wins++;
    } else {
        w->part.within_bounds++;
    }
    return MA_OK;
}


/* ---- The table-driven path ---------------------------------------------------------------------
 *
 * Same checks as check_index, organised for speed (docs/malom-verification.md, Performance):
 *  - moves are generated on Malom-numbered boards (the rules' masks relabelled once per sector),
 *    so no successor is converted between numberings;
 *  - consecutive indices of one representative are the next opponent placement in colex order:
 *    one carry-propagating addition instead of an unrank per index; the marker rule uses the
 *    representative's stabiliser, computed once per representative;
 *  - successors are ranked in one call sharing mover parts (ma_malom_index_rank_many), and their
 *    entries prefetched one index ahead of being read;
 *  - a successor's stored entry becomes its turn value (§5.8) and an integer score through a
 *    per-child table: 256 entries per legacy file, one per key1 value of a .sec2 file.
 * Index self-check: every index's board (stepped, or unranked at a chunk start) must give the
 * index back through the rank arithmetic (g_rank), every unranked board and every marker index
 * also through the reference ma_malom_index_rank; a failure is MA_EINTERNAL as before.
 */

/* §5.8 order as one integer: key1 first; among key1 < 0 a larger key2 is better, among key1 > 0 a
 * smaller one; key2 is ignored when key1 = 0. Exact while |key1| < 2^29 (checked in fast_setup). */
static inline int64_t value_score(ma_malom_value m)
{
    int64_t adj = m.key1 > 0 ? -(int64_t)m.key2 : m.key1 < 0 ? (int64_t)m.key2 : 0;
    return (int64_t)m.key1 * ((int64_t)1 << 33) + adj;
}

enum { TS_OK = 0, TS_BROKEN = 1, TS_SLOW = 2 };

/* The turn value of a child entry, by legacy byte. */
struct byte_turn {
    int64_t score;
    ma_malom_value m;
    uint8_t status; /* TS_* */
};

/* The turn value of a .sec2 child entry with key1 = k: m.key1 = key1, m.key2 = mul * key2 + add. */
struct key1_turn {
    int32_t key1;
    int8_t mul, add;
};

struct fchild {
    const ma_malom_file *file; /* NULL: absent */
    ma_malom_view view;        /* entries possibly a huge-page copy */
    int32_t v;                 /* v(child) */
    struct byte_turn *bytes;   /* legacy child: 256 entries */
    struct key1_turn *key1s;   /* .sec2 child: 2^f1 entries, indexed by key1 + 2^(f1-1) */
    int32_t key1_bias;
    /* .sec2 child: the turn value's score (value_score) by the stored key1 field alone, for
     * sec2_best's loop over .sec2 children without rank tables (three-byte entries): score =
     * base + a * key2, where the key1 field's bits x give the table index x ^ 2^(f1-1) (the signed
     * key1 plus key1_bias). A key2 below lim is no value: the overflow mark SPEC, the most
     * negative field-2 value (so lim = SPEC + 1), or for key1 = 0 any negative key2, a marker
     * (lim = 0). */
    struct key1_score {
        int64_t base;
        int32_t a, lim;
    } *k1score;
    /* When every child has entries of one size, 1 or 2 bytes (struct fast, ranked): the order of
     * each stored byte's or word's turn value among all children's as one int32 (score_rank),
     * or RANK_BROKEN (a marker), RANK_SLOW (needs the file's slow path). */
    int32_t *rank;
};

enum { RANK_BROKEN = -1, RANK_SLOW = -2, RANK_NONE = -3 };

struct fast {
    ma_vrules rules;           /* the sector's rules on Malom-numbered points */
    ma_turn_masks turn_rows;   /* each representative's destinations, for ma_fused_turns */
    ma_fused_sector fused;     /* the generator's view of this sector (by_opp) */
    ma_malom_view self;
    struct fchild ch[MA_TURN_KINDS];
    int w, b;
    uint64_t per_rep;          /* C(24 - W, B): indices per representative */
    ma_malom_value no_turn, win1;
    int64_t no_turn_score;
    /* ranked: 1 or 2 when every existing child has entries of that many bytes and rank tables;
     * successors are then compared by one table load each, and only the best is decoded.
     * scores: the distinct scores of the children's ranked words (the seen ones), increasing;
     * no_turn_rank: score_rank of no_turn_score. */
    int ranked;
    int64_t *scores;
    size_t n_scores;
    int32_t no_turn_rank;
    /* ranked, every successor sector present (complete) and the sector's own entries of the
     * ranked size: by the stored byte or word, the rank of the stored value when it is a
     * well-formed value (ma_malom_interpret) whose score some child entry has, an odd rank, which
     * only that score has (score_rank); else RANK_NONE. An index whose best successor has this
     * rank is verified without decoding either (fast_finish); any other goes the whole way. */
    int32_t *self_rank;
    /* The same for .sec2 sectors scored through key1 tables (complete_sec2): by the sector's own
     * key1 field x, the stored value's score is base + a * key2 (value_score), valid for the key2
     * classes set in ok (bit 0: key2 < 0, 1: key2 = 0, 2: odd > 0, 3: even > 0) where the entry is
     * a value ma_malom_interpret accepts; NULL when not complete_sec2. */
    struct self_key1 {
        int64_t base;
        int32_t a;
        uint8_t ok;
    } *self_k1;
    uint32_t self_mask1, self_m1, self_m2;
    /* ranked and every successor sector the rules name is present: fast_finish compares the
     * successors through ent[k] and rank[k] (the child of kind k's entries and rank table)
     * without a per-successor check (kinds whose successor sector does not exist are NULL). */
    int complete;
    /* not ranked, every successor sector the rules name present and a .sec2 file (key1 score
     * tables) whose entries have the layout sec2_* (size, fields, overflow value): sec2_best
     * scores the successors from their raw fields in one loop */
    int complete_sec2;
    int sec2_size, sec2_f1;
    uint32_t sec2_mask1, sec2_m1, sec2_m2;
    const struct key1_score *k1s[MA_TURN_KINDS];
    const uint8_t *ent[MA_TURN_KINDS];
    const int32_t *rank[MA_TURN_KINDS];
    void *resident[MA_TURN_KINDS];
    /* The sector's representatives (rank order) and the bit set of ops fixing each. */
    uint32_t *reps;
    uint16_t *stab;
    uint64_t n_reps;
    /* Opponent masks are walked in colex order, CHUNK_OPP per dispensed chunk. */
    uint64_t n_opp;            /* C(24, B) */
    uint64_t opp_per_chunk;
    /* by_opp: 1 to walk by opponent mask (when finding the representatives beside a mask is cheap
     * enough, see fast_setup), 0 to walk representative by representative (index order). */
    int by_opp;
    uint64_t n_tiles;          /* representatives in tiles of 64 */
    uint64_t *without;         /* without[t * 24 + p]: bit j set when representative 64t + j
                                  exists and leaves point p free */
    /* One bit per index, set when the index is checked: proves that the walk by opponent mask
     * checks every index exactly once (index self-check, see docs/malom-verification.md). */
    _Atomic uint64_t *visited;
    int self_child;            /* k + 1 when child k is the sector itself, else 0 */
    void *self_resident;       /* huge-page copy of the sector's entries, or NULL */
    /* The copies above and the zeroing of visited, made by the threads (work) before the walk. */
    ma_resident copies;
};

/* One index between its preparation (board, turns, successor ranks, prefetches issued) and its
 * evaluation: two are in flight per thread, so the successors' entries of one index arrive from
 * memory while the next one is generated and ranked. */
struct fpending {
    uint64_t idx;
    uint32_t rep, opp;   /* Malom-numbered board */
    int marker;
    int state;           /* 0 marker index, 2 value fixed by the rules, 3 needs its successors;
                            fast_finish makes it 1 when a canonical index holds a marker */
    ma_malom_entry st;
    ma_malom_value fixed;
    ma_vturns turns;
    uint64_t succ[MA_VRULES_MAX_TURNS];
};

struct fworker {
    ma_malom_rank_cache cache;
    struct fpending slot[2];
    struct fpending *prev; /* prepared, not yet finished */
    int turn;              /* which slot the next index uses */
    /* The maps of the walk's current opponent mask, for ma_fused_turns (group_ok: made; the walk
     * by index has none). */
    int group_ok;
    ma_fused_group group;
};

static uint32_t relabel(uint32_t open_mask)
{
    return ma_malom_mask_from_open(open_mask);
}

/* The sector's rules with every point mask moved to Malom's numbering: move generation only
 * combines masks, so it works unchanged on relabelled boards. */
static void rules_to_malom(const ma_vrules *open, ma_vrules *m)
{
    *m = *open;
    for (int p = 0; p < MA_POINTS; p++) {
        int q = __builtin_ctz(relabel(1u << p));
        m->adj[q] = relabel(open->adj[p]);
        m->n_partners[q] = open->n_partners[p];
        for (int i = 0; i < 3; i++)
            m->partners[q][i] = i < open->n_partners[p] ? relabel(open->partners[p][i]) : UINT32_MAX;
    }
    for (int i = 0; i < open->n_lines; i++)
        m->lines[i] = relabel(open->lines[i]);
}

static void fast_free(struct fast *f)
{
    if (!f)
        return;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        free(f->ch[k].bytes);
        free(f->ch[k].key1s);
        free(f->ch[k].k1score);
        free(f->ch[k].rank);
        free(f->resident[k]);
    }
    free(f->scores);
    free(f->self_rank);
    free(f->self_k1);
    free(f->reps);
    free(f->stab);
    ma_turn_masks_free(&f->turn_rows);
    free(f->self_resident);
    free(f->without);
    free((void *)f->visited);
    ma_resident_destroy(&f->copies);
    free(f);
}

static int32_t abs32(int32_t x)
{
    return x < 0 ? (x == INT32_MIN ? INT32_MAX : -x) : x;
}

/* Builds the turn tables of child k; 0 or MA_ENOMEM. */
static int child_tables(struct fchild *c, int32_t v_parent)
{
    if (c->view.entry_size == 1) {
        c->bytes = malloc(256 * sizeof *c->bytes);
        if (!c->bytes)
            return MA_ENOMEM;
        uint8_t all[256];
        for (int e = 0; e < 256; e++)
            all[e] = (uint8_t)e;
        ma_malom_view one = c->view;
        one.entries = all;
        for (int e = 0; e < 256; e++) {
            struct byte_turn *t = &c->bytes[e];
            ma_malom_entry en;
            memset(t, 0, sizeof *t);
            if (!ma_malom_view_entry(&one, (uint64_t)e, &en)) {
                t->status = TS_SLOW;
            } else if (en.kind == MA_MALOM_SYM) {
                t->status = TS_BROKEN;
            } else {
                ma_malom_value cv = {en.key1, en.key2};
                t->m = ma_malom_turn_value(cv, c->v, v_parent);
                t->score = value_score(t->m);
            }
        }
        return MA_OK;
    }
    int n = 1 << c->view.f1;
    c->key1_bias = n / 2;
    c->key1s = malloc((size_t)n * sizeof *c->key1s);
    if (!c->key1s)
        return MA_ENOMEM;
    for (int i = 0; i < n; i++) {
        int32_t k1 = i - c->key1_bias;
        /* The key2 coefficients read off ma_malom_turn_value at two key2 values. */
        ma_malom_value a = ma_malom_turn_value((ma_malom_value){k1, 0}, c->v, v_parent);
        ma_malom_value b = ma_malom_turn_value((ma_malom_value){k1, 1}, c->v, v_parent);
        c->key1s[i].key1 = a.key1;
        c->key1s[i].add = (int8_t)a.key2;
        c->key1s[i].mul = (int8_t)(b.key2 - a.key2);
    }
    c->k1score = malloc((size_t)n * sizeof *c->k1score);
    if (!c->k1score)
        return MA_ENOMEM;
    for (int i = 0; i < n; i++) {
        /* value_score of (key1, mul * key2 + add): key1 * 2^33 - key2' for a win, + key2' for a
         * loss, key2' ignored for a draw */
        const struct key1_turn *t = &c->key1s[i];
        int32_t sgn = t->key1 > 0 ? -1 : t->key1 < 0 ? 1 : 0;
        c->k1score[i].base = (int64_t)t->key1 * ((int64_t)1 << 33) + sgn * t->add;
        c->k1score[i].a = sgn * t->mul;
        c->k1score[i].lim = i == c->key1_bias ? 0 : c->view.spec + 1;
    }
    return MA_OK;
}

/* 2i + 1 for the i-th distinct score, 2i for a score between the (i-1)-th and the i-th: order
 * and equality of scores are kept, so "greater rank" is "greater score". */
static int32_t score_rank(const struct fast *f, int64_t sc)
{
    return ma_score_rank(f->scores, f->n_scores, sc);
}

/* Stored word i in listed order: field 1 by field 1 (the low f1 bits), field 2 increasing, where
 * the scores of one child (or of the sector itself) and one field 1 are monotone. i = field 1 *
 * 2^f2 + field 2, so the word rotates i left by f1 bits; one-byte words are listed as they are. */
static inline uint32_t listed_word(int size, uint32_t f1, uint32_t i)
{
    return size == 1 ? i : (i >> (16 - f1) | i << f1) & 0xFFFFu;
}

/* *seen for two-byte entries: seen[raw] non-zero when some entry of a child, or of the sector
 * itself when its entries have the same size, holds the word raw (verifier/check/word_set.h). The marks
 * only decide which words the tables decode and rank: a word not marked (none is missed, but a
 * file rewritten under the check could hold one) goes the slow way, RANK_SLOW in a child's table
 * and RANK_NONE in the sector's own, so what the check derives never depends on them. 0 or
 * MA_ENOMEM; the caller frees *seen. */
static int seen_words(const struct fast *f, const ma_malom_file *self_file, unsigned threads,
                      uint8_t **seen)
{
    ma_word_range r[1 + MA_TURN_KINDS];
    int n = 0;
    for (int k = -1; k < MA_TURN_KINDS; k++) {
        const ma_malom_file *file = k < 0 ? self_file : f->ch[k].file;
        const ma_malom_view *v = k < 0 ? &f->self : &f->ch[k].view;
        if (!file || v->entry_size != 2)
            continue;
        int dup = 0;
        for (int i = 0; i < n; i++)
            dup |= r[i].base == v->entries;
        if (!dup)
            r[n++] = (ma_word_range){v->entries, ma_malom_file_entry_count(file)};
    }
    *seen = calloc(MA_WORD_SET_WORDS, 1);
    return *seen ? ma_word_set_scan(*seen, r, n, threads) : MA_ENOMEM;
}

/* The rank tables (struct fast, ranked) when every existing child has entries of one size, 1 or
 * 2 bytes; 0 or MA_ENOMEM (then f->ranked = 0). Two-byte words are ranked when seen (seen_words,
 * left in *seen for self_ranks; NULL for one-byte words, all 256 of which are ranked). */
static int rank_tables(struct fast *f, int32_t v_parent, const ma_malom_file *self_file,
                       unsigned threads, uint8_t **seen)
{
    int size = 0;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        if (!f->ch[k].file)
            continue;
        if (size && f->ch[k].view.entry_size != size)
            return MA_OK;
        size = f->ch[k].view.entry_size;
    }
    if (size < 1 || size > 2)
        return MA_OK;
    if (size == 2 && seen_words(f, self_file, threads, seen))
        return MA_ENOMEM;
    const uint32_t n_raw = size == 1 ? 1u << 8 : 1u << 16;
    /* The words to decode: the seen ones (two-byte entries), or every byte. */
    uint32_t *words = malloc(n_raw * sizeof *words), n_words = 0;
    for (uint32_t raw = 0; words && raw < n_raw; raw++)
        if (!*seen || (*seen)[raw])
            words[n_words++] = raw;
    /* Each child's rank table first holds RANK_* or 0 (a value, its score in all[]). */
    ma_scored *all = malloc((size_t)MA_TURN_KINDS * n_words * sizeof *all + 1);
    ma_scored *tmp = malloc((size_t)MA_TURN_KINDS * n_words * sizeof *tmp + 1);
    f->scores = malloc((size_t)MA_TURN_KINDS * n_words * sizeof *f->scores + 1);
    int rc = words && all && tmp && f->scores ? MA_OK : MA_ENOMEM;
    size_t n = 0;
    for (int k = 0; k < MA_TURN_KINDS && !rc; k++) {
        struct fchild *c = &f->ch[k];
        if (!c->file)
            continue;
        c->rank = malloc(n_raw * sizeof *c->rank);
        if (!c->rank) {
            rc = MA_ENOMEM;
            break;
        }
        if (*seen)
            for (uint32_t raw = 0; raw < n_raw; raw++)
                c->rank[raw] = RANK_SLOW;
        for (uint32_t i = 0; i < n_words; i++) {
            uint32_t raw = words[i];
            uint8_t bytes[3] = {(uint8_t)raw, (uint8_t)(raw >> 8), 0}; /* the view reads up to 3 */
            ma_malom_view one = c->view;
            one.entries = bytes;
            ma_malom_entry e;
            c->rank[raw] = 0;
            if (!ma_malom_view_entry(&one, 0, &e)) {
                c->rank[raw] = RANK_SLOW;
            } else if (e.kind == MA_MALOM_SYM) {
                c->rank[raw] = RANK_BROKEN;
            } else {
                ma_malom_value cv = {e.key1, e.key2};
                all[n].score = value_score(ma_malom_turn_value(cv, c->v, v_parent));
                all[n++].id = (uint32_t)k * n_raw + raw;
            }
        }
    }
    free(words);
    if (!rc) {
        /* In score order, the i-th distinct score (from 0) gets rank 2i + 1 (see score_rank); u
         * counts the distinct scores so far, so the current one's rank is 2u - 1. */
        ma_score_sort(all, n, tmp);
        size_t u = 0;
        for (size_t i = 0; i < n; i++) {
            if (u == 0 || f->scores[u - 1] != all[i].score)
                f->scores[u++] = all[i].score;
            f->ch[all[i].id / n_raw].rank[all[i].id % n_raw] = (int32_t)(2 * u - 1);
        }
        f->n_scores = u;
        f->no_turn_rank = score_rank(f, f->no_turn_score);
        f->ranked = size;
    }
    free(all);
    free(tmp);
    return rc;
}

/* f->self_rank when f->complete and the sector's entries have the ranked size; 0 or MA_ENOMEM.
 * Each stored byte or word is decoded and interpreted as conclude does, so a stored value the
 * whole way would not find well-formed and equal to the best turn value has no odd rank. */
static int self_ranks(struct fast *f, const ma_malom_frame *frame, const uint8_t *seen)
{
    if (!f->complete || f->self.entry_size != f->ranked)
        return MA_OK;
    const uint32_t n_raw = f->ranked == 1 ? 1u << 8 : 1u << 16;
    f->self_rank = malloc(n_raw * sizeof *f->self_rank);
    if (!f->self_rank)
        return MA_ENOMEM;
    /* In listed order the scores come in monotone runs, and each is searched from where the last
     * one was found (1 ms of the setup of STONE_DIFF 5_3, where a search from scratch for each
     * took 2.2). */
    size_t near = 0;
    for (uint32_t i = 0; i < n_raw; i++) {
        uint32_t raw = listed_word(f->ranked, (uint32_t)f->self.f1, i);
        uint8_t bytes[3] = {(uint8_t)raw, (uint8_t)(raw >> 8), 0}; /* the view reads up to 3 */
        ma_malom_view one = f->self;
        one.entries = bytes;
        ma_malom_entry e;
        ma_malom_result rs;
        int32_t r = RANK_NONE;
        if ((!seen || seen[raw]) && ma_malom_view_entry(&one, 0, &e) &&
            e.kind != MA_MALOM_SYM && !ma_malom_interpret(frame, &e, &rs)) {
            int32_t sr = ma_score_rank_near(f->scores, f->n_scores,
                                            value_score((ma_malom_value){e.key1, e.key2}), &near);
            if (sr & 1)
                r = sr;
        }
        f->self_rank[raw] = r;
    }
    return MA_OK;
}

/* The key2 class of a stored key2 (struct self_key1's ok bits). */
static inline int key2_class(int32_t k2)
{
    return k2 < 0 ? 0 : k2 == 0 ? 1 : 2 + !(k2 & 1);
}

/* f->self_k1 when f->complete_sec2; 0 or MA_ENOMEM. The score and the classes are read off
 * value_score and ma_malom_interpret at sample key2 values; a class whose samples disagree is
 * left out, so the fast verdict never accepts what conclude would not. */
static int self_key1s(struct fast *f, const ma_malom_frame *frame)
{
    if (!f->complete_sec2 || f->self.entry_size < 2)
        return MA_OK;
    const uint32_t n = 1u << f->self.f1;
    f->self_k1 = malloc(n * sizeof *f->self_k1);
    if (!f->self_k1)
        return MA_ENOMEM;
    f->self_mask1 = n - 1u;
    f->self_m1 = 1u << (f->self.f1 - 1);
    f->self_m2 = 1u << (f->self.f2 - 1);
    static const int32_t samples[4][3] = {{-1, -2, -3}, {0, 0, 0}, {1, 3, 5}, {2, 4, 6}};
    for (uint32_t x = 0; x < n; x++) {
        int32_t k1 = (int32_t)x - (int32_t)f->self_m1;
        struct self_key1 *sk = &f->self_k1[x];
        sk->base = value_score((ma_malom_value){k1, 0});
        sk->a = (int32_t)(value_score((ma_malom_value){k1, 1}) - sk->base);
        sk->ok = 0;
        for (int cls = 0; cls < 4; cls++) {
            int ok = 1;
            for (int i = 0; i < 3; i++) {
                int32_t k2 = samples[cls][i];
                ma_malom_entry e = {k1 ? MA_MALOM_VAL : k2 < 0 ? MA_MALOM_SYM : MA_MALOM_COUNT,
                                    k1, k2, -1};
                ma_malom_result rs;
                ok &= e.kind != MA_MALOM_SYM && !ma_malom_interpret(frame, &e, &rs) &&
                      value_score((ma_malom_value){k1, k2}) == sk->base + (int64_t)sk->a * k2;
            }
            sk->ok |= (uint8_t)(ok << cls);
        }
    }
    return MA_OK;
}

/* Successor files up to this total are copied into huge-page backed memory: their entries are
 * read at random, and with 4 KiB pages nearly every read also misses the TLB. */
#define RESIDENT_BUDGET ((uint64_t)1 << 30)
/* Each child, the sector itself and the visited bitmap take one planned part at most: a copy that
 * could not be planned would leave its memory unwritten while the walk reads it. */
_Static_assert(MA_RESIDENT_PARTS >= MA_TURN_KINDS + 2, "a resident part for every copy");

static void make_resident(struct fast *f, const struct shared *sh)
{
    /* The sector's own entries are read once each, but in the walk's order, a stride of one
     * representative block: on 4 KiB pages nearly every read would miss the TLB too. When the
     * sector is its own child (the moving phase) the child copy serves both. */
    for (int k = 0; k < MA_TURN_KINDS; k++)
        if (f->ch[k].file == sh->in->file)
            f->self_child = k + 1;
    uint64_t total = 0;
    if (!f->self_child)
        total += ma_malom_file_entry_count(sh->in->file) * (uint64_t)f->self.entry_size;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        int dup = 0;
        for (int i = 0; i < k; i++)
            dup |= f->ch[i].file == f->ch[k].file;
        if (f->ch[k].file && !dup)
            total += ma_malom_file_entry_count(f->ch[k].file) * (uint64_t)f->ch[k].view.entry_size;
    }
    if (total > RESIDENT_BUDGET || total < MA_RESIDENT_PAGE)
        return;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        struct fchild *c = &f->ch[k];
        if (!c->file)
            continue;
        int same = -1;
        for (int i = 0; i < k && same < 0; i++)
            if (f->ch[i].file == c->file && f->resident[i])
                same = i;
        if (same >= 0) {
            c->view.entries = f->ch[same].view.entries;
            continue;
        }
        size_t bytes = (size_t)(ma_malom_file_entry_count(c->file) * (uint64_t)c->view.entry_size);
        void *mem = ma_resident_alloc(bytes);
        if (!mem)
            continue;
        ma_resident_add(&f->copies, mem, c->view.entries, bytes);
        f->resident[k] = mem;
        c->view.entries = mem;
    }
    if (f->self_child) {
        f->self.entries = f->ch[f->self_child - 1].view.entries;
    } else {
        size_t bytes = (size_t)(ma_malom_file_entry_count(sh->in->file) * (uint64_t)f->self.entry_size);
        void *mem = ma_resident_alloc(bytes);
        if (mem) {
            ma_resident_add(&f->copies, mem, f->self.entries, bytes);
            f->self_resident = mem;
            f->self.entries = mem;
        }
    }
}

/* ma_fused_turns's maps come from Malom's index, in its numbering. */
static int fill_map(const void *ix, uint32_t mover, ma_mover_map *mm)
{
    return ma_malom_index_mover_map(ix, mover, mm);
}

/* Sets up the fast path, or leaves sh->fast NULL when it does not apply (values too large for the
 * integer score). 0, MA_ENOMEM, or MA_EINTERNAL (an index bug). */
static int fast_setup(struct shared *sh)
{
    int32_t big = 0;
    big = abs32(sh->frame.v) > big ? abs32(sh->frame.v) : big;
    big = abs32(sh->frame.vw) > big ? abs32(sh->frame.vw) : big;
    big = abs32(sh->frame.vl) > big ? abs32(sh->frame.vl) : big;
    for (int k = 0; k < MA_TURN_KINDS; k++)
        if (sh->child[k])
            big = abs32(sh->child_frame[k].v) > big ? abs32(sh->child_frame[k].v) : big;
    /* stored key1 < 2^13 in magnitude, so every turn value's key1 stays below 2^28 */
    if (big > (1 << 26))
        return MA_OK;
    struct fast *f = calloc(1, sizeof *f);
    if (!f)
        return MA_ENOMEM;
    ma_resident_init(&f->copies);
    rules_to_malom(&sh->rules, &f->rules);
    ma_malom_file_view(sh->in->file, &f->self);
    f->w = sh->sector.w;
    f->b = sh->sector.b;
    f->per_rep = ma_malom_hash_count(f->w, f->b) / ma_malom_f_count(f->w);
    f->no_turn = ma_malom_no_turn(&sh->frame);
    f->win1 = ma_malom_win_in_one(&sh->frame);
    f->no_turn_score = value_score(f->no_turn);
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        struct fchild *c = &f->ch[k];
        c->file = sh->child[k];
        if (!c->file)
            continue;
        ma_malom_file_view(c->file, &c->view);
        c->v = sh->child_frame[k].v;
        if (child_tables(c, sh->frame.v)) {
            fast_free(f);
            return MA_ENOMEM;
        }
    }
    uint8_t *seen = NULL; /* the words held, from rank_tables to self_ranks */
    int rc = MA_ENOMEM;
    if (rank_tables(f, sh->frame.v, sh->in->file, (unsigned)sh->in->threads, &seen))
        goto fail;
    f->n_reps = ma_malom_f_count(f->w);
    f->reps = malloc(f->n_reps * sizeof *f->reps);
    f->stab = malloc(f->n_reps * sizeof *f->stab);
    uint64_t n = ma_malom_hash_count(f->w, f->b);
    f->visited = ma_resident_alloc(ma_visited_words(n) * sizeof *f->visited);
    if (!f->reps || !f->stab || !f->visited)
        goto fail;
    ma_resident_add(&f->copies, (void *)f->visited, NULL, ma_visited_words(n) * sizeof *f->visited);
    for (uint64_t r = 0; r < f->n_reps; r++) {
        uint32_t rep = ma_malom_index_rep(sh->in->ix, f->w, r);
        uint16_t bits = 0;
        for (int op = 0; op < MA_MALOM_SYM_OPS - 1; op++)
            if (ma_malom_apply_mask(op, rep) == rep)
                bits |= (uint16_t)(1u << op);
        f->reps[r] = rep;
        f->stab[r] = bits;
    }
    f->n_opp = ma_malom_hash_count(0, f->b);
    f->n_tiles = (f->n_reps + 63) / 64;
    /* Walking by opponent mask costs B word operations per mask and tile of 64 representatives
     * to find the representatives beside the mask; worth it while that stays below ~16 per index
     * (std: up to 8_8; not for sectors like 12_12 where few masks have any representative). */
    f->by_opp = f->n_opp * f->n_tiles * (uint64_t)(f->b ? f->b : 1) <= 16 * n;
    if (f->by_opp) {
        f->without = calloc(f->n_tiles * MA_POINTS, sizeof *f->without);
        int built = f->without
                        ? ma_turn_masks_build(&f->turn_rows, &f->rules, f->reps, f->n_reps, f->w)
                        : MA_ENOMEM;
        if (built) {
            /* MA_EINVAL: a representative of another stone count, an index bug */
            rc = built == MA_ENOMEM ? MA_ENOMEM : MA_EINTERNAL;
            goto fail;
        }
        for (uint64_t r = 0; r < f->n_reps; r++)
            for (int p = 0; p < MA_POINTS; p++)
                if (!(f->reps[r] >> p & 1u))
                    f->without[(r / 64) * MA_POINTS + (uint64_t)p] |= (uint64_t)1 << (r % 64);
    }
    /* about 8192 indices per chunk: the cancel flag is polled at least that often */
    uint64_t per_opp = n / (f->n_opp ? f->n_opp : 1) + 1;
    f->opp_per_chunk = 8192 / per_opp + 1;
    make_resident(f, sh);
    f->fused = (ma_fused_sector){.rules = &f->rules, .w = f->w, .ix = sh->in->ix,
                                 .fill_map = fill_map};
    f->complete = f->ranked != 0;
    f->complete_sec2 = !f->ranked;
    const ma_malom_view *layout = NULL;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        const struct fchild *c = &f->ch[k];
        if (sh->rules.succ_exists[k] && !c->file)
            f->complete = f->complete_sec2 = 0;
        if (c->file && !c->k1score)
            f->complete_sec2 = 0;
        if (c->file && c->k1score) {
            if (!layout)
                layout = &c->view;
            else if (c->view.entry_size != layout->entry_size || c->view.f1 != layout->f1 ||
                     c->view.f2 != layout->f2 || c->view.spec != layout->spec)
                f->complete_sec2 = 0; /* one layout for all children, so sec2_best hoists it */
            if (c->view.spec != -(int32_t)(1u << (c->view.f2 - 1)))
                f->complete_sec2 = 0; /* key1_score's lim needs SPEC below every value */
        }
        f->ent[k] = c->file ? c->view.entries : NULL;
        f->rank[k] = c->file ? c->rank : NULL;
        f->k1s[k] = c->file ? c->k1score : NULL;
        f->fused.body[k] = f->ent[k];
        f->fused.entry_size[k] = c->file ? (uint32_t)c->view.entry_size : 0;
        f->fused.entries[k] = c->file ? ma_malom_file_entry_count(c->file) : 0;
    }
    if (!layout)
        f->complete_sec2 = 0;
    if (f->complete_sec2) {
        f->sec2_size = layout->entry_size;
        f->sec2_f1 = layout->f1;
        f->sec2_mask1 = (1u << layout->f1) - 1u;
        f->sec2_m1 = 1u << (layout->f1 - 1);
        f->sec2_m2 = 1u << (layout->f2 - 1);
    }
    if (self_ranks(f, &sh->frame, seen) || self_key1s(f, &sh->frame))
        goto fail;
    free(seen);
    sh->fast = f;
    return MA_OK;
fail:
    free(seen);
    fast_free(f);
    return rc;
}

static int index_twice(struct worker *w, uint64_t idx)
{
    const struct shared *sh = w->sh;
    char sec[16];
    ma_sector_format(sh->sector, sec, sizeof sec);
    return ma_error_set(&w->err, MA_EINTERNAL,
                        "%s: sector %s: offset %llu: index %llu reached twice by the walk: checker "
                        "index bug",
                        sh->in->path ? sh->in->path : "(sector file)", sec,
                        (unsigned long long)ma_malom_file_entry_offset(sh->in->file, idx),
                        (unsigned long long)idx);
}

/* More turns than MA_VRULES_MAX_TURNS: impossible under the rules, so a bug of the checker. */
static __attribute__((cold)) int too_many_turns(struct worker *w, uint64_t idx)
{
    const struct shared *sh = w->sh;
    char sec[16];
    ma_sector_format(sh->sector, sec, sizeof sec);
    return ma_error_set(&w->err, MA_EINTERNAL,
                        "%s: sector %s: offset %llu: index %llu has more than %d turns: checker bug",
                        sh->in->path ? sh->in->path : "(sector file)", sec,
                        (unsigned long long)ma_malom_file_entry_offset(sh->in->file, idx),
                        (unsigned long long)idx, MA_VRULES_MAX_TURNS);
}

static int index_bug(struct worker *w, uint64_t idx, uint64_t back)
{
    const struct shared *sh = w->sh;
    char sec[16];
    ma_sector_format(sh->sector, sec, sizeof sec);
    return ma_error_set(&w->err, MA_EINTERNAL,
                        "%s: sector %s: offset %llu: index %llu does not round-trip (rank gives "
                        "%llu): checker index bug",
                        sh->in->path ? sh->in->path : "(sector file)", sec,
                        (unsigned long long)ma_malom_file_entry_offset(sh->in->file, idx),
                        (unsigned long long)idx, (unsigned long long)back);
}

/* Prepares index idx, the board (reps[r], opp): marker rule, stored entry, turns, successor
 * ranks, prefetches. */
static void fast_prepare(struct worker *w, struct fpending *p, uint64_t r, uint32_t opp,
                         uint64_t idx)
{
    const struct shared *sh = w->sh;
    const struct fast *f = sh->fast;
    struct fworker *fw = w->fw;
    uint32_t rep = f->reps[r];
    p->idx = idx;
    p->rep = rep;
    p->opp = opp;
    /* Both are read in fast_finish, one index later. */
    __builtin_prefetch(f->self.entries + idx * (uint64_t)f->self.entry_size);
    __builtin_prefetch((const void *)&w->visited[idx >> 6], 1);
    /* §4.6 on the representative's stabiliser: the smallest op reaching the least image. */
    int marker = -1;
    uint32_t least = opp;
    for (uint32_t st = f->stab[r]; st; st &= st - 1) {
        int op = __builtin_ctz(st);
        uint32_t img = ma_malom_apply_mask(op, opp);
        if (img < least) {
            least = img;
            marker = op;
        }
    }
    p->marker = marker;
    if (marker >= 0) {
        p->state = 0;
        return;
    }
    p->state = 2;
    if (sh->in->full_board_draw && f->w == 12 && f->b == 12) {
        p->fixed.key1 = 0;
        p->fixed.key2 = 0;
        return;
    }
    ma_vturns *t = &p->turns;
    if (fw->group_ok ? ma_fused_turns(&f->fused, &fw->group, rep, opp,
                                      ma_turn_masks_of(&f->turn_rows, r), t, p->succ)
                     : ma_vrules_generate(&f->rules, (ma_board){rep, opp}, t)) {
        w->rc = too_many_turns(w, idx);
        p->state = -1; /* never finished: fast_step drops it */
        return;
    }
    if (t->immediate_wins > 0) {
        /* A win in 1 is the largest value any turn can have, so no successor can change it. */
        p->fixed = f->win1;
        return;
    }
    if (t->n == 0) {
        p->fixed = f->no_turn;
        return;
    }
    p->state = 3;
    if (fw->group_ok)
        return; /* ma_fused_turns ranked and prefetched */
    ma_malom_index_rank_many(sh->in->ix, &fw->cache, t->succ, t->n, p->succ);
    for (int i = 0; i < t->n; i++) {
        const struct fchild *c = &f->ch[t->kind[i]];
        if (c->file)
            __builtin_prefetch(c->view.entries + p->succ[i] * (uint64_t)c->view.entry_size);
    }
}

/* The turn value of successor i (which lies in an existing child file): TS_OK with *m and *score,
 * or TS_BROKEN when the child's canonical entry is a marker. */
static inline int turn_of(const struct shared *sh, const struct fchild *c, uint64_t idx,
                          ma_malom_value *m, int64_t *score)
{
    ma_malom_entry e;
    if (c->bytes) {
        const struct byte_turn *t = &c->bytes[c->view.entries[idx]];
        if (t->status == TS_OK) {
            *m = t->m;
            *score = t->score;
            return TS_OK;
        }
        if (t->status == TS_BROKEN)
            return TS_BROKEN;
        ma_malom_file_entry(c->file, idx, &e);
    } else if (!ma_malom_view_entry(&c->view, idx, &e)) {
        ma_malom_file_entry(c->file, idx, &e);
    } else if (e.kind != MA_MALOM_SYM) {
        const struct key1_turn *t = &c->key1s[e.key1 + c->key1_bias];
        m->key1 = t->key1;
        m->key2 = t->mul * e.key2 + t->add;
        *score = value_score(*m);
        return TS_OK;
    }
    if (e.kind == MA_MALOM_SYM)
        return TS_BROKEN;
    ma_malom_value cv = {e.key1, e.key2};
    *m = ma_malom_turn_value(cv, c->v, sh->frame.v);
    *score = value_score(*m);
    return TS_OK;
}

/* The stored word of a size-byte entry at e (little-endian), as the rank and key1 tables index it:
 * a legacy byte, or a .sec2 entry's key1 field in the low F1 bits and key2 above. */
static inline uint32_t raw_entry(const uint8_t *e, int size)
{
    uint32_t raw = e[0];
    if (size >= 2)
        raw |= (uint32_t)e[1] << 8;
    if (size == 3)
        raw |= (uint32_t)e[2] << 16;
    return raw;
}

/* A .sec2 raw word's key2 field, sign-extended (m2 = 2^(F2-1)). */
static inline int32_t raw_key2(uint32_t raw, int f1, uint32_t m2)
{
    return (int32_t)(((raw >> f1) ^ m2) - m2);
}

/* The score (value_score) of the turn value of successor idx in child c: greater score, greater
 * §5.8 value. When the sector is ranked, one table load for all but slow-path entries: an odd rank
 * 2i + 1 is the i-th of f->scores. A rank is not compared here: a value no stored word names (an
 * overflowed entry) has an even rank shared by every value between the same two scores, and two
 * such successors of one position would tie by rank with different values. 0 with *score set,
 * or 1 when the child's canonical entry is a marker. */
static inline int successor_score(const struct shared *sh, const struct fast *f,
                                  const struct fchild *c, uint64_t idx, int64_t *score)
{
    if (f->ranked) {
        int32_t r = c->rank[raw_entry(c->view.entries + (uint64_t)f->ranked * idx, f->ranked)];
        if (r >= 0) {
            *score = f->scores[r >> 1];
            return 0;
        }
        if (r == RANK_BROKEN)
            return 1;
    }
    ma_malom_value m;
    return turn_of(sh, c, idx, &m, score) != TS_OK;
}

/* The best successor of p by rank (f->complete: every successor in a present child with a rank
 * table, one load each): its rank, at least no_turn_rank, with *bi its turn (-1: none beats no
 * turn); or RANK_SLOW when some successor's rank is negative (a marker, or a value only the
 * file's slow path decodes): fast_finish's general loop then takes the index from the start. */
static inline int32_t ranked_best(const struct fast *f, const struct fpending *p, int *bi)
{
    const ma_vturns *t = &p->turns;
    int32_t bk = f->no_turn_rank, slow = 0;
    *bi = -1;
    for (int i = 0; i < t->n; i++) {
        int k = t->kind[i];
        int32_t r = f->rank[k][raw_entry(f->ent[k] + (uint64_t)f->ranked * p->succ[i], f->ranked)];
        slow |= r; /* the sign bit: some rank is negative */
        if (r > bk) {
            bk = r;
            *bi = i;
        }
    }
    return slow < 0 ? RANK_SLOW : bk;
}

/* The best successor of p by score (f->complete_sec2: .sec2 children of one layout without rank
 * tables, each successor's score from its raw key1 and key2 fields through its child's key1
 * score table): 1 with its score in *best, at least no_turn_score, and *bi its turn (-1: none
 * beats no turn); or 0 when a successor is a marker (key1 0, key2 < 0) or has an overflowed key2:
 * fast_finish's general loop then takes the index from the start. size is f->sec2_size, a
 * constant in each of sec2_best's two calls. */
static inline __attribute__((always_inline)) int
sec2_best_size(const struct fast *f, const struct fpending *p, int64_t *best, int *bi,
               const int size)
{
    const ma_vturns *t = &p->turns;
    const int f1 = f->sec2_f1;
    const uint32_t mask1 = f->sec2_mask1, m1 = f->sec2_m1, m2 = f->sec2_m2;
    int64_t bk = f->no_turn_score;
    int32_t slow = 0;
    *bi = -1;
    for (int i = 0; i < t->n; i++) {
        int k = t->kind[i];
        uint32_t raw = raw_entry(f->ent[k] + (uint64_t)size * p->succ[i], size);
        uint32_t x = (raw & mask1) ^ m1; /* signed key1 + key1_bias */
        int32_t k2 = raw_key2(raw, f1, m2);
        const struct key1_score *ks = &f->k1s[k][x];
        slow |= k2 - ks->lim; /* the sign bit when k2 < lim (both below 2^23 in magnitude) */
        int64_t sc = ks->base + (int64_t)ks->a * k2;
        if (sc > bk) {
            bk = sc;
            *bi = i;
        }
    }
    *best = bk;
    return slow >= 0;
}

static inline int sec2_best(const struct fast *f, const struct fpending *p, int64_t *best, int *bi)
{
    return f->sec2_size == 3 ? sec2_best_size(f, p, best, bi, 3) : sec2_best_size(f, p, best, bi, 2);
}

/* The key of index idx's stored value in the order fast_finish compares successors by (ranked:
 * its rank, else its score), when it is a value conclude finds well-formed and the key names it
 * alone; else a key no successor has (RANK_NONE, INT64_MIN). */
static inline int64_t stored_key(const struct fast *f, uint64_t idx)
{
    const int size = f->self.entry_size;
    uint32_t raw = raw_entry(f->self.entries + (uint64_t)size * idx, size);
    if (f->self_rank)
        return f->self_rank[raw];
    uint32_t x = (raw & f->self_mask1) ^ f->self_m1;
    int32_t k2 = raw_key2(raw, f->self.f1, f->self_m2);
    const struct self_key1 *sk = &f->self_k1[x];
    if (k2 == f->self.spec || !(sk->ok >> key2_class(k2) & 1))
        return INT64_MIN;
    return sk->base + (int64_t)sk->a * k2;
}

static int fast_finish(struct worker *w, struct fpending *p)
{
    const struct shared *sh = w->sh;
    const struct fast *f = sh->fast;
    if (ma_visited_mark(w->visited, p->idx, sh->team.shared))
        return index_twice(w, p->idx);
    /* The best successor's key, when every successor has one (ranked_best, sec2_best); fast_bi
     * its turn. */
    int64_t fast_bk = 0;
    int fast_bi = -1, fast_ok = 0;
    if (p->state == 3 && (f->complete || f->complete_sec2)) {
        if (f->complete) {
            int32_t r = ranked_best(f, p, &fast_bi);
            fast_ok = r >= 0;
            fast_bk = r;
        } else {
            fast_ok = sec2_best(f, p, &fast_bk, &fast_bi);
        }
        /* The common case: the stored value is the best turn value. Equal keys are one value
         * (an odd rank is one score, score_rank; a score one value, value_score), and
         * stored_key gives a key only to stored values conclude finds well-formed: this is the
         * verdict conclude would give, without decoding the stored entry or the best
         * successor's. */
        if (fast_ok && (f->self_rank || f->self_k1) && stored_key(f, p->idx) == fast_bk) {
            w->part.canonical++;
            w->part.verified++;
            return MA_OK;
        }
    }
    if (!ma_malom_view_entry(&f->self, p->idx, &p->st))
        ma_malom_file_entry(sh->in->file, p->idx, &p->st);
    if (p->state >= 2 && p->st.kind == MA_MALOM_SYM)
        p->state = 1; /* a marker stored at a canonical index: no value to compare */
    ma_mcheck_item it;
    memset(&it, 0, sizeof it);
    it.entry = p->idx;
    it.stored = p->st;
    it.expected_marker = p->marker;
    it.derived_full = 1;
    if (p->state == 0) {
        w->part.markers++;
        /* The marker index against the reference: rank gives the class's canonical board, which
         * the prescribed op must produce (both in Malom's numbering, as the walk's masks are). */
        uint32_t cw, cb;
        uint64_t back = ma_malom_index_rank_malom(sh->in->ix, p->rep, p->opp, &cw, &cb);
        if (back == p->idx)
            return index_bug(w, p->idx, back);
        if (p->st.kind == MA_MALOM_SYM && p->st.sym_op == p->marker &&
            ma_malom_apply_mask(p->marker, p->rep) == cw &&
            ma_malom_apply_mask(p->marker, p->opp) == cb) {
            w->part.verified++;
            return MA_OK;
        }
        it.cls = MA_MCHECK_SYMMETRY;
        it.root = 1;
        return add_item(w, &it);
    }
    w->part.canonical++;
    if (p->state == 1) {
        it.cls = MA_MCHECK_SYMMETRY;
        it.root = 1;
        return add_item(w, &it);
    }
    struct derivation d;
    memset(&d, 0, sizeof d);
    d.full = 1;
    if (p->state == 2) {
        d.best = p->fixed;
        d.fixed = 1;
        return conclude(w, &it, &p->st, &d);
    }
    const ma_vturns *t = &p->turns;
    ma_malom_value best = f->no_turn;
    int64_t best_key = f->no_turn_score; /* the general loop compares scores, never ranks */
    int best_i = -1;
    if (fast_ok) {
        /* ranked_best or sec2_best above; a successor without a key goes through the general
         * loop below */
        best_i = fast_bi;
        goto decode;
    }
    for (int i = 0; i < t->n; i++) {
        int k = t->kind[i];
        const struct fchild *c = &f->ch[k];
        int64_t key;
        if (!c->file) {
            d.full = 0;
            d.missing = 1;
            d.missing_kind[k] = 1;
        } else if (successor_score(sh, f, c, p->succ[i], &key)) {
            d.full = 0;
            d.broken = 1;
        } else if (key > best_key) {
            best_key = key;
            best_i = i;
        }
    }
decode:
    /* Only the best successor is decoded into its turn value. */
    if (best_i >= 0) {
        int64_t sc;
        (void)turn_of(sh, &f->ch[t->kind[best_i]], p->succ[best_i], &best, &sc);
    }
    d.best = best;
    /* Fast path for the common case: fully derived and equal to a well-formed stored value. */
    return conclude(w, &it, &p->st, &d);
}

static uint64_t choose(int n, int k)
{
    if (k < 0 || n < 0 || k > n)
        return 0;
    uint64_t r = 1;
    for (int i = 1; i <= k; i++)
        r = r * (uint64_t)(n - k + i) / (uint64_t)i;
    return r;
}

/* The k-subset of the 24 points with colex rank c (the c-th in increasing numeric order). */
static uint32_t colex_subset(uint64_t c, int k)
{
    uint32_t m = 0;
    int q = MA_POINTS - 1;
    for (int i = k; i >= 1; i--) {
        while (choose(q, i) > c)
            q--;
        c -= choose(q, i);
        m |= 1u << q;
        q--;
    }
    return m;
}

/* The reference round trip of the per-index path, for one index of every opponent mask: unrank
 * gives the board back, and rank gives the index back (or, at a marker, another index). */
static int reference_round_trip(struct worker *w, uint64_t r, uint32_t opp, uint64_t idx)
{
    const struct shared *sh = w->sh;
    const struct fast *f = sh->fast;
    uint32_t mw, mb;
    ma_malom_index_unrank_malom(sh->in->ix, f->w, f->b, idx, &mw, &mb);
    ma_board pos = {ma_malom_mask_to_open(mw), ma_malom_mask_to_open(mb)};
    uint64_t back = ma_malom_index_rank(sh->in->ix, pos, NULL);
    int marker = ma_malom_index_marker(sh->in->ix, f->w, f->b, idx);
    if (mw != f->reps[r] || mb != opp || (marker < 0) != (back == idx))
        return index_bug(w, idx, back);
    return MA_OK;
}

static void fast_step(struct worker *w, uint64_t r, uint32_t opp, uint64_t idx)
{
    struct fworker *fw = w->fw;
    struct fpending *cur = &fw->slot[fw->turn];
    fw->turn ^= 1;
    fast_prepare(w, cur, r, opp, idx);
    if (fw->prev && !w->rc) {
        int rc = fast_finish(w, fw->prev);
        if (rc && !w->rc)
            w->rc = rc;
    }
    fw->prev = w->rc ? NULL : cur;
}

/* The indices of opponent masks c_lo..c_hi-1 (colex order over the 24 points), each mask with
 * every representative it leaves room for. All successors of the non-removal turns of these
 * indices have the opponent mask as their mover mask, so they lie in one block (one
 * representative) of the child file, which stays in cache while the mask is walked: the child
 * reads become local instead of random. Returns the number of indices checked. */
static uint64_t fast_chunk(struct worker *w, uint64_t c_lo, uint64_t c_hi)
{
    const struct shared *sh = w->sh;
    const struct fast *f = sh->fast;
    const ma_malom_index *ix = sh->in->ix;
    uint32_t opp = colex_subset(c_lo, f->b);
    uint64_t done = 0;
    struct fworker *fw = w->fw;
    for (uint64_t c = c_lo; c < c_hi && !w->rc; c++) {
        int first = 1;
        /* The group's map for ma_fused_turns (the pending index was ranked when it was prepared,
         * so changing the map here does not touch it). */
        fw->group_ok = ma_malom_index_prepared(ix, f->b);
        if (fw->group_ok)
            (void)ma_fused_group_start(&fw->group, &f->fused, opp);
        for (uint64_t t = 0; t < f->n_tiles && !w->rc; t++) {
          const uint64_t *wo = f->without + t * MA_POINTS;
          uint64_t left = f->n_reps - 64 * t; /* representatives in this tile */
          uint64_t beside = left >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << left) - 1;
          for (uint32_t o = opp; o; o &= o - 1)
              beside &= wo[__builtin_ctz(o)];
          /* Each index is computed one ahead and its stored entry and visited word prefetched
           * then: the walk strides a representative block between indices, so each is a miss
           * to memory, and fast_step reads them one index later still. */
          uint64_t r = 0, idx = 0;
          if (beside) {
              r = 64 * t + (uint64_t)__builtin_ctzll(beside);
              idx = r * f->per_rep + ma_malom_index_g_rank(ix, f->reps[r], opp);
          }
          for (; beside && !w->rc; beside &= beside - 1) {
            uint64_t ahead = beside & (beside - 1), r_next = 0, idx_next = 0;
            if (ahead) {
                r_next = 64 * t + (uint64_t)__builtin_ctzll(ahead);
                idx_next = r_next * f->per_rep + ma_malom_index_g_rank(ix, f->reps[r_next], opp);
                __builtin_prefetch(f->self.entries + idx_next * (uint64_t)f->self.entry_size);
                __builtin_prefetch((const void *)&w->visited[idx_next >> 6], 1);
            }
            if (first) {
                first = 0;
                if (reference_round_trip(w, r, opp, idx)) {
                    w->rc = MA_EINTERNAL;
                    break;
                }
            }
            fast_step(w, r, opp, idx);
            done++;
            r = r_next;
            idx = idx_next;
          }
        }
        if (opp && c + 1 < c_hi) {
            /* the next mask of the same size in increasing order (Gosper) */
            uint32_t low = opp & (0u - opp), ripple = opp + low;
            opp = (((ripple ^ opp) >> 2) / low) | ripple;
        }
    }
    fw->group_ok = 0; /* the walk by index (fast_chunk_by_rep) has no group */
    if (fw->prev && !w->rc) {
        int rc = fast_finish(w, fw->prev);
        if (rc)
            w->rc = rc;
    }
    fw->prev = NULL;
    return done;
}

/* The next subset of free_pts of the same size in colex order; x must not be the last one. The
 * addition carries through the lowest run of x (non-free points are set so the carry skips them)
 * onto the next free point; the run's other stones return to the lowest free points. */
static inline uint32_t next_subset(uint32_t x, uint32_t free_pts)
{
    uint32_t sum = ((x | ~free_pts) + (x & (0u - x))) & free_pts;
    int lost = __builtin_popcount(x) - __builtin_popcount(sum);
    uint32_t fill = 0;
    for (; lost > 0; lost--, free_pts &= free_pts - 1)
        fill |= free_pts & (0u - free_pts);
    return sum | fill;
}

/* Indices lo..hi-1 in index order (sectors where the walk by opponent mask does not pay): the
 * next index of one representative is the next opponent placement in colex order. */
static uint64_t fast_chunk_by_rep(struct worker *w, uint64_t lo, uint64_t hi)
{
    const struct shared *sh = w->sh;
    const struct fast *f = sh->fast;
    const ma_malom_index *ix = sh->in->ix;
    uint32_t rep = 0, opp = 0;
    uint64_t r = 0, g = 0;
    for (uint64_t idx = lo; idx < hi && !w->rc; idx++) {
        if (idx == lo || g + 1 == f->per_rep) {
            ma_malom_index_unrank_malom(ix, f->w, f->b, idx, &rep, &opp);
            r = idx / f->per_rep;
            g = idx % f->per_rep;
            if (reference_round_trip(w, r, opp, idx)) {
                w->rc = MA_EINTERNAL;
                break;
            }
        } else {
            opp = next_subset(opp, ~rep & MA_FULL_MASK);
            g++;
        }
        /* the stepped board must rank back to its index; the bitmap then proves coverage */
        if (r * f->per_rep + ma_malom_index_g_rank(ix, rep, opp) != idx) {
            w->rc = index_bug(w, idx, r * f->per_rep + ma_malom_index_g_rank(ix, rep, opp));
            break;
        }
        fast_step(w, r, opp, idx);
    }
    struct fworker *fw = w->fw;
    if (fw->prev && !w->rc) {
        int rc = fast_finish(w, fw->prev);
        if (rc)
            w->rc = rc;
    }
    fw->prev = NULL;
    return hi - lo;
}

/* After a complete walk: every index was checked (each at most once, see fast_prepare), by one
 * thread (the threads' own bitmaps are merged here, ma_visited_team_cover). */
static int fast_coverage(struct shared *sh, int n_workers, ma_error *err)
{
    uint64_t idx = 0;
    int got = ma_visited_team_cover(&sh->team, n_workers, &idx);
    if (got == MA_VISITED_ALL)
        return MA_OK;
    char sec[16];
    ma_sector_format(sh->sector, sec, sizeof sec);
    return ma_error_set(err, MA_EINTERNAL,
                        "%s: sector %s: offset %llu: index %llu %s: checker index bug",
                        sh->in->path ? sh->in->path : "(sector file)", sec,
                        (unsigned long long)ma_malom_file_entry_offset(sh->in->file, idx),
                        (unsigned long long)idx,
                        got == MA_VISITED_TWICE ? "was reached twice by the walk (by two threads)"
                        : got == MA_VISITED_GAP ? "was never checked"
                                                : "lies past the last index and was reached");
}

static void *work(void *arg)
{
    struct worker *w = arg;
    struct shared *sh = w->sh;
    ma_visited_team_zero(&sh->team, w->id);
    if (sh->fast)
        ma_resident_fill(&sh->fast->copies);
    ma_vturns *turns = malloc(sizeof *turns);
    if (sh->fast)
        w->fw = calloc(1, sizeof *w->fw);
    if (!turns || (sh->fast && !w->fw)) {
        free(turns);
        w->rc = ma_error_set(&w->err, MA_ENOMEM, "malom check: out of memory");
        atomic_store(&sh->failed, 1);
        return NULL;
    }
    for (;;) {
        if (atomic_load(&sh->failed))
            break;
        if (sh->in->cancel && *sh->in->cancel) {
            atomic_store(&sh->canceled, 1);
            break;
        }
        if (sh->fast) {
            const struct fast *f = sh->fast;
            uint64_t per = f->by_opp ? f->opp_per_chunk : CHUNK;
            uint64_t end = f->by_opp ? f->n_opp : sh->entries;
            uint64_t n_chunks = (end + per - 1) / per;
            /* chunks in a spread order: the two threads' chunks do not share visited words */
            uint64_t k = atomic_fetch_add(&sh->next, 1);
            if (k >= n_chunks)
                break;
            uint64_t lo = ma_chunk_at(k, n_chunks, ma_chunk_stride(n_chunks)) * per;
            uint64_t hi = lo + per < end ? lo + per : end;
            uint64_t done = f->by_opp ? fast_chunk(w, lo, hi) : fast_chunk_by_rep(w, lo, hi);
            if (w->rc) {
                if (w->rc == MA_ENOMEM && w->err.code != MA_ENOMEM)
                    ma_error_set(&w->err, MA_ENOMEM, "malom check: out of memory");
                atomic_store(&sh->failed, 1);
                break;
            }
            atomic_fetch_add(&sh->done, done);
            if (sh->in->progress)
                ma_progress_add(sh->in->progress, done);
            continue;
        }
        uint64_t lo = atomic_fetch_add(&sh->next, CHUNK);
        if (lo >= sh->entries)
            break;
        uint64_t hi = lo + CHUNK < sh->entries ? lo + CHUNK : sh->entries;
        {
            for (uint64_t i = lo; i < hi; i++) {
                int rc = check_index(w, i, turns);
                if (rc) {
                    w->rc = rc;
                    atomic_store(&sh->failed, 1);
                    break;
                }
            }
        }
        if (w->rc)
            break;
        atomic_fetch_add(&sh->done, hi - lo);
        if (sh->in->progress)
            ma_progress_add(sh->in->progress, hi - lo);
    }
    free(turns);
    free(w->fw);
    w->fw = NULL;
    return NULL;
}

static int cmp_items(const void *a, const void *b)
{
    const ma_mcheck_item *x = a, *y = b;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static int setup(struct shared *sh, const ma_mcheck_input *in, ma_error *err)
{
    memset(sh, 0, sizeof *sh);
    sh->in = in;
    sh->sector = ma_malom_file_sector(in->file);
    sh->frame = ma_malom_file_frame(in->file);
    sh->legacy = ma_malom_file_format(in->file) == MA_MALOM_SEC;
    int rc = ma_vrules_init(&sh->rules, ma_malom_file_variant(in->file), sh->sector, err);
    if (rc)
        return rc;
    sh->rules.full_board_draw = 0; /* §6 step 4 is applied here, as a parameter */
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        if (!sh->rules.succ_exists[k])
            continue;
        sh->child[k] = ma_sector_equal(sh->rules.succ[k], sh->sector) ? in->file : in->child[k];
        if (sh->child[k]) {
            if (!ma_sector_equal(ma_malom_file_sector(sh->child[k]), sh->rules.succ[k]))
                return ma_error_set(err, MA_EINVAL, "malom check: child of kind %d is the wrong sector", k);
            sh->child_frame[k] = ma_malom_file_frame(sh->child[k]);
        }
    }
    sh->entries = ma_malom_file_entry_count(in->file);
    return MA_OK;
}

int ma_mcheck_sector(ma_mcheck_result *out, const ma_mcheck_input *in, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (!in || !in->ix || !in->file || in->threads < 1)
        return ma_error_set(err, MA_EINVAL, "malom check: bad input");
    double t0 = ma_now();
    struct shared *sh = malloc(sizeof *sh);
    if (!sh)
        return ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    int rc = setup(sh, in, err);
    int frc = !rc && !in->reference ? fast_setup(sh) : 0;
    if (frc == MA_EINTERNAL)
        rc = ma_error_set(err, MA_EINTERNAL, "malom check: index bug: a representative of %s has "
                          "another stone count", in->path ? in->path : "the sector");
    else if (frc)
        rc = ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    if (rc) {
        fast_free(sh->fast);
        free(sh);
        return rc;
    }
    int nt = in->threads;
    struct worker *ws = calloc((size_t)nt, sizeof *ws);
    pthread_t *tid = calloc((size_t)nt, sizeof *tid);
    if (!ws || !tid) {
        free(ws);
        free(tid);
        fast_free(sh->fast);
        free(sh);
        return ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    }
    if (sh->fast)
        ma_visited_team_plan(&sh->team, sh->fast->visited, sh->entries, nt);
    for (int t = 0; t < nt; t++)
        ws[t].visited = ma_visited_team_bits(&sh->team, t);
    int started = 0;
    for (int t = 0; t < nt; t++) {
        ws[t].sh = sh;
        ws[t].id = t;
        if (t > 0 && pthread_create(&tid[t], NULL, work, &ws[t]) == 0)
            started++;
        else if (t > 0)
            break;
    }
    work(&ws[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
    out->sector = sh->sector;
    out->frame = sh->frame;
    out->entries = sh->entries;
    rc = MA_OK;
    size_t n_items = 0;
    for (int t = 0; t <= started; t++) {
        if (ws[t].rc && !rc) {
            rc = ws[t].rc;
            *err = ws[t].err;
        }
        n_items += ws[t].part.n_items;
    }
    if (!rc && n_items) {
        out->items = malloc(n_items * sizeof *out->items);
        if (!out->items)
            rc = ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    }
    for (int t = 0; t <= started; t++) {
        ma_mcheck_result *p = &ws[t].part;
        if (!rc) {
            out->markers += p->markers;
            out->canonical += p->canonical;
            out->verified += p->verified;
            out->within_bounds += p->within_bounds;
            out->bound_wins += p->bound_wins;
            out->missing_child += p->missing_child;
            out->broken_child += p->broken_child;
            out->discrepancies += p->discrepancies;
            for (int c = 0; c < MA_MCHECK_CLASSES; c++)
                out->by_class[c] += p->by_class[c];
            for (int k = 0; k < MA_TURN_KINDS; k++)
                out->missing_kind[k] |= p->missing_kind[k];
            if (p->n_items)
                memcpy(out->items + out->n_items, p->items, p->n_items * sizeof *p->items);
            out->n_items += p->n_items;
        }
        free(p->items);
    }
    if (!rc && out->n_items > 1)
        qsort(out->items, out->n_items, sizeof *out->items, cmp_items);
    if (!rc && atomic_load(&sh->canceled))
        rc = ma_error_set(err, MA_ECANCELED, "malom check: check of the sector canceled");
    if (!rc && sh->fast)
        rc = fast_coverage(sh, started + 1, err);
    ma_visited_team_free(&sh->team);
    free(ws);
    free(tid);
    fast_free(sh->fast);
    free(sh);
    out->seconds = ma_now() - t0;
    if (rc) {
        ma_mcheck_result_free(out);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

static int is_discrepancy(const ma_mcheck_result *r, uint64_t entry)
{
    size_t lo = 0, hi = r->n_items;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->items[mid].entry < entry)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_items && r->items[lo].entry == entry;
}

int ma_mcheck_classify(ma_mcheck_result *r, const ma_mcheck_input *in,
                       const ma_mcheck_result *const child[MA_TURN_KINDS], ma_error *err)
{
    struct shared *sh = malloc(sizeof *sh);
    ma_vturns *turns = malloc(sizeof *turns);
    if (!sh || !turns) {
        free(sh);
        free(turns);
        return ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    }
    int rc = setup(sh, in, err);
    const ma_mcheck_result *cres[MA_TURN_KINDS];
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        cres[k] = NULL;
        if (!rc && sh->rules.succ_exists[k])
            cres[k] = ma_sector_equal(sh->rules.succ[k], sh->sector) ? r : (child ? child[k] : NULL);
    }
    r->roots = r->propagated = 0;
    for (size_t i = 0; !rc && i < r->n_items; i++) {
        ma_mcheck_item *it = &r->items[i];
        int prop = 0;
        if (it->cls != MA_MCHECK_SYMMETRY && it->cls != MA_MCHECK_WRONG_TERMINAL &&
            it->cls != MA_MCHECK_BAD_ENCODING) {
            ma_board pos = ma_malom_index_unrank(in->ix, sh->sector.w, sh->sector.b, it->entry);
            ma_vrules_generate(&sh->rules, pos, turns);
            for (int t = 0; t < turns->n && !prop; t++) {
                const ma_mcheck_result *c = cres[turns->kind[t]];
                if (c && c->n_items &&
                    is_discrepancy(c, ma_malom_index_rank(in->ix, turns->succ[t], NULL)))
                    prop = 1;
            }
        }
        it->root = (uint8_t)!prop;
        if (prop)
            r->propagated++;
        else
            r->roots++;
    }
    free(sh);
    free(turns);
    return rc;
}

void ma_mcheck_result_free(ma_mcheck_result *r)
{
    if (!r)
        return;
    free(r->items);
    r->items = NULL;
    r->n_items = 0;
}
