/*
 * Where a diff difference comes from (verifier/run/diff.h, "where a difference comes from"): the
 * successors of a differing position read on both sides, and the proof of an example: every turn
 * with its value in A and in B, read through the probe (verifier/run/probe.h), so the lists are the
 * checker's move generator's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/run/diff.h"
#include "verifier/run/probe.h"

/* -1 when the two stored values are one value, else not (the classes of diff.c). */
static int values_differ(const ma_stored *a, const ma_stored *b, int draw_cmp)
{
    if (a->kind != MA_STORED_VALUE || b->kind != MA_STORED_VALUE)
        return !(a->kind == b->kind && (a->kind == MA_STORED_NONE || !memcmp(a->raw, b->raw, sizeof a->raw)));
    if (a->value.outcome != b->value.outcome)
        return 1;
    if (a->value.outcome != MA_OUTCOME_DRAW)
        return a->value.depth != b->value.depth;
    return draw_cmp && a->draw_class != b->draw_class;
}

int ma_diff_succ_open(ma_diff_succ *out, ma_database *a, ma_database *b, ma_variant v, ma_sector s, int draw_cmp,
                      ma_error *err)
{
    memset(out, 0, sizeof *out);
    out->variant = v;
    out->sector = s;
    out->draw_cmp = draw_cmp;
    int rc = ma_vrules_init(&out->rules, v, s, err);
    for (int k = 0; rc == MA_OK && k < MA_TURN_KINDS; k++) {
        if (!out->rules.succ_exists[k])
            continue;
        ma_error e;
        const ma_source *sa = NULL, *sb = NULL;
        /* an absent or unusable successor leaves its turns unknown; only memory stops the diff */
        int ra = ma_database_source(a, v, out->rules.succ[k], &sa, &e);
        int rb = ra == MA_OK ? ma_database_source(b, v, out->rules.succ[k], &sb, &e) : ra;
        if (ra == MA_ENOMEM || rb == MA_ENOMEM)
            rc = ma_error_set(err, MA_ENOMEM, "diff: out of memory");
        else if (ra == MA_OK && rb == MA_OK) {
            out->a[k] = sa, out->b[k] = sb;
            out->same_scheme[k] = ma_source_same_scheme(sa, sb);
        }
    }
    if (rc)
        ma_diff_succ_close(out, a, b);
    return rc;
}

void ma_diff_succ_close(ma_diff_succ *c, ma_database *a, ma_database *b)
{
    /* each successor sector once, never the pair's own (the pair releases it) */
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        if (!c->rules.succ_exists[k] || ma_sector_equal(c->rules.succ[k], c->sector))
            continue;
        int seen = 0;
        for (int j = 0; j < k; j++)
            seen |= c->rules.succ_exists[j] && ma_sector_equal(c->rules.succ[j], c->rules.succ[k]);
        if (!seen) {
            ma_database_release(a, c->variant, c->rules.succ[k]);
            ma_database_release(b, c->variant, c->rules.succ[k]);
        }
    }
    memset(c->a, 0, sizeof c->a);
    memset(c->b, 0, sizeof c->b);
}

int ma_diff_succ_cause(const ma_diff_succ *c, ma_board pos, ma_vturns *t, int *kind)
{
    *kind = -1;
    if (c->rules.full_board_draw || ma_vrules_generate(&c->rules, pos, t) != MA_OK)
        return c->rules.full_board_draw ? MA_DIFF_CAUSE_ROOT : MA_DIFF_CAUSE_UNKNOWN;
    int unknown = 0;
    for (int i = 0; i < t->n; i++) {
        int k = t->kind[i];
        if (!c->a[k] || !c->b[k]) {
            unknown = 1;
            continue;
        }
        ma_stored va, vb;
        uint64_t ea = ma_source_entry_of(c->a[k], t->succ[i]);
        uint64_t eb = c->same_scheme[k] ? ea : ma_source_entry_of(c->b[k], t->succ[i]);
        ma_source_read(c->a[k], ea, &va);
        ma_source_read(c->b[k], eb, &vb);
        if (values_differ(&va, &vb, c->draw_cmp)) {
            *kind = k;
            return MA_DIFF_CAUSE_PROPAGATED;
        }
    }
    /* every successor agrees (immediate wins are the same on both sides): one side is wrong here */
    return unknown ? MA_DIFF_CAUSE_UNKNOWN : MA_DIFF_CAUSE_ROOT;
}

/* ---- the proof of one example ---- */

static int probe_side(ma_probe_result *r, ma_database *db, ma_variant v, ma_sector s, ma_board pos)
{
    ma_error e;
    return ma_probe_position(r, db, v, pos, s.wf, s.bf, &e);
}

static const ma_probe_row *row_of(const ma_probe_result *r, const char *move)
{
    for (int i = 0; i < r->n_rows; i++)
        if (!strcmp(r->rows[i].move, move))
            return &r->rows[i];
    return NULL;
}

/* Which side is right and the turn that proves it (ma_diff_example.right, proof). */
static void decide(ma_diff_example *x, const ma_probe_result *pa, const ma_probe_result *pb)
{
    x->right = 0;
    x->proof[0] = 0;
    int differing = -1;
    for (int i = 0; i < x->n_turns && differing < 0; i++)
        if (x->turns[i].differs)
            differing = i;
    if (x->agrees_a == 1 && x->agrees_b == 1) {
        x->right = '2'; /* both follow from their successors: the difference comes from below */
        if (differing >= 0)
            snprintf(x->proof, sizeof x->proof, "%s", x->turns[differing].move);
        return;
    }
    if (x->agrees_a == 1 && x->agrees_b == 0)
        x->right = 'A';
    else if (x->agrees_b == 1 && x->agrees_a == 0)
        x->right = 'B';
    else if (x->agrees_a == 0 && x->agrees_b == 0)
        x->right = '0';
    /* the best turn of the side that is right proves its value; else the first differing turn */
    const ma_probe_result *p = x->right == 'B' ? pb : pa;
    if ((x->right == 'A' || x->right == 'B') && p->n_rows)
        snprintf(x->proof, sizeof x->proof, "%s", p->rows[0].move);
    else if (differing >= 0)
        snprintf(x->proof, sizeof x->proof, "%s", x->turns[differing].move);
}

int ma_diff_prove(ma_diff_example *x, ma_database *a, ma_database *b, ma_variant v, ma_sector s, ma_error *err)
{
    ma_probe_result pa, pb;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    int ra = probe_side(&pa, a, v, s, x->board);
    int rb = ra == MA_OK ? probe_side(&pb, b, v, s, x->board) : ra;
    int rc = MA_OK;
    if (ra == MA_ENOMEM || rb == MA_ENOMEM)
        rc = ma_error_set(err, MA_ENOMEM, "diff: out of memory");
    if (ra == MA_OK && rb == MA_OK) {
        /* A's turns, best first, each with B's value of the same turn */
        x->turns = calloc(pa.n_rows ? (size_t)pa.n_rows : 1, sizeof *x->turns);
        if (!x->turns) {
            rc = ma_error_set(err, MA_ENOMEM, "diff: out of memory");
        } else {
            for (int i = 0; i < pa.n_rows; i++) {
                ma_diff_turn *t = &x->turns[x->n_turns++];
                const ma_probe_row *rb_row = row_of(&pb, pa.rows[i].move);
                snprintf(t->move, sizeof t->move, "%s", pa.rows[i].move);
                snprintf(t->a, sizeof t->a, "%s", pa.rows[i].v.text);
                snprintf(t->b, sizeof t->b, "%s", rb_row ? rb_row->v.text : "unknown");
                const ma_probe_value *va = &pa.rows[i].v, *vb = rb_row ? &rb_row->v : NULL;
                /* one value whatever the format writes it as: outcome, and depth of a win or loss */
                t->differs = vb && va->known && vb->known &&
                             (va->value.outcome != vb->value.outcome ||
                              (va->value.outcome != MA_OUTCOME_DRAW && va->value.depth != vb->value.depth));
            }
            snprintf(x->rules_a, sizeof x->rules_a, "%s", pa.rules.known ? pa.rules.text : "unknown");
            snprintf(x->rules_b, sizeof x->rules_b, "%s", pb.rules.known ? pb.rules.text : "unknown");
            snprintf(x->no_turn, sizeof x->no_turn, "%s", pa.no_turn);
            x->agrees_a = pa.agrees;
            x->agrees_b = pb.agrees;
            decide(x, &pa, &pb);
            x->proved = 1;
        }
    }
    ma_probe_result_free(&pa);
    ma_probe_result_free(&pb);
    return rc;
}

void ma_diff_example_free(ma_diff_example *x)
{
    free(x->turns);
    x->turns = NULL;
    x->n_turns = 0;
    x->proved = 0;
}
