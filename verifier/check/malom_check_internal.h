/*
 * The Malom checker's parts and what they share (internal to verifier/check/; the contract is
 * malom_check.h).
 *
 * The checker is four files, one part each:
 *  - malom_check.c: the entry points: the sector's setup, the walk's threads
 *    (verifier/check/walk.h), the threads' results joined, the index self-check's coverage;
 *  - malom_reference.c: the reference path (unrank, rank, derive one successor at a time) and
 *    the verdict both paths end in (ma_mc_conclude: the classes, the bounds mode);
 *  - malom_tables.c: the table-driven path's setup: per-child turn and rank tables, the sector's
 *    own rank or key1 tables, the walk's plan and its huge-page copies;
 *  - malom_fast.c: the table-driven path per index: prepare (marker rule, turns, successor
 *    ranks, prefetches), the verdict without decoding, the general loop over the successors, and
 *    the walk's chunks.
 * The fast path's tables are built once per sector and only read by the threads; each thread
 * writes only its own struct mc_worker.
 */
#ifndef MA_CHECK_MALOM_CHECK_INTERNAL_H
#define MA_CHECK_MALOM_CHECK_INTERNAL_H

#include <stdint.h>

#include "verifier/check/fused_turns.h"
#include "verifier/check/malom_check.h"
#include "verifier/check/score_sort.h"
#include "verifier/check/turn_masks.h"
#include "verifier/check/walk.h"

/* What the turns of one canonical position say. */
struct derivation {
    ma_malom_value best; /* maximum over the known turns (a lower bound when !full) */
    int full;            /* every turn's value known */
    int fixed;           /* the value is fixed by the rules alone */
    int missing;         /* some successor sector file is absent */
    int broken;          /* some successor's canonical entry is a marker */
    int missing_kind[MA_TURN_KINDS];
};

struct mc_shared {
    const ma_mcheck_input *in;
    ma_vrules rules;
    ma_sector sector;
    ma_malom_frame frame;
    int legacy;
    const ma_malom_file *child[MA_TURN_KINDS];
    ma_malom_frame child_frame[MA_TURN_KINDS];
    uint64_t entries;
    struct fast *fast; /* the table-driven path, NULL for the reference path */
    ma_walk walk;      /* the chunks, the threads, the copies and the visited bitmap */
};

struct mc_worker {
    ma_walk_thread th;  /* first: the walk's view of this thread */
    struct mc_shared *sh;
    ma_mcheck_result part; /* counters of this thread (its items are th's) */
    ma_error err;
    ma_vturns *turns;   /* the reference path's turns */
    struct fworker *fw; /* fast-path state of this thread */
    /* Workers sit side by side in one array and write their counters for every entry: keep the
     * written fields of neighbours apart (false sharing halved the 2-thread speed-up). */
    char pad[128];
};

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
 * smaller one; key2 is ignored when key1 = 0. Exact while |key1| < 2^29 (checked in
 * ma_mc_fast_setup). */
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
    ma_fused_sector fused;     /* the generator's view of this sector (by_opp) */
    /* the walk's representatives, their stabilisers and destination rows (sh->walk's, which
     * owns them), read here by fast_prepare beside the other tables of the sector */
    const uint32_t *reps;
    const uint16_t *stab;
    const ma_turn_masks *turn_rows;
    ma_malom_view self;
    struct fchild ch[MA_TURN_KINDS];
    int w, b;
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
    ma_fused_group group;  /* the thread's maps for ma_fused_turns (its th.grp) */
};

/* 2i + 1 for the i-th distinct score, 2i for a score between the (i-1)-th and the i-th: order
 * and equality of scores are kept, so "greater rank" is "greater score". */
static inline int32_t score_rank(const struct fast *f, int64_t sc)
{
    return ma_score_rank(f->scores, f->n_scores, sc);
}

/* The key2 class of a stored key2 (struct self_key1's ok bits). */
static inline int key2_class(int32_t k2)
{
    return k2 < 0 ? 0 : k2 == 0 ? 1 : 2 + !(k2 & 1);
}

/* malom_check.c: an MA_EINTERNAL of the checker at index idx, set in err: "<file>: sector <S>:
 * offset <byte>: index <idx> " followed by what (a printf format). */
int ma_mc_index_error(ma_error *err, const struct mc_shared *sh, uint64_t idx, const char *what, ...)
    __attribute__((format(printf, 4, 5)));

/* malom_reference.c */
int ma_mc_add_item(struct mc_worker *w, const ma_mcheck_item *it);
/* `it` is a symmetry inconsistency (a marker where the rule puts none, or a wrong one). */
int ma_mc_symmetry(struct mc_worker *w, ma_mcheck_item *it);
/* Index idx's board does not give idx back (rank gives back): MA_EINTERNAL, set in w->err. */
int ma_mc_index_bug(struct mc_worker *w, uint64_t idx, uint64_t back);
/* The verdict on a canonical entry whose stored entry st is not a marker, given its derivation d.
 * `it` holds the entry, its stored value and marker fields; the rest is filled here. */
int ma_mc_conclude(struct mc_worker *w, ma_mcheck_item *it, const ma_malom_entry *st,
                   const struct derivation *d);
/* The walk's chunk on the reference path: indices lo..hi-1, one check_index each. */
uint64_t ma_mc_reference_chunk(ma_walk_thread *th, uint64_t lo, uint64_t hi);

/* malom_tables.c: sets up the fast path and the walk's plan, or leaves sh->fast NULL when it does
 * not apply (values too large for the integer score). 0, MA_ENOMEM, or MA_EINTERNAL (an index
 * bug). */
int ma_mc_fast_setup(struct mc_shared *sh);
void ma_mc_fast_free(struct fast *f);

/* malom_fast.c: the walk's chunk on the fast path (opponent masks or indices lo..hi-1). */
uint64_t ma_mc_fast_chunk(ma_walk_thread *th, uint64_t lo, uint64_t hi);

#endif
