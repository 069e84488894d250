/*
 * The Malom checker's reference path and the verdict both paths end in (malom_check_internal.h).
 *
 * The reference path checks one index the straightforward way, as malom_check.h states the
 * contract: unrank the index, rank the board back (the index self-check), apply the marker rule,
 * generate the turns with the checker's rules on open-numbered boards and look each successor up
 * in its child file, one at a time. It runs with `reference` set, and when the fast path does not
 * apply; the unit tests compare the two paths entry by entry. ma_mc_conclude is the one place that
 * turns a derivation into a verdict (verified, a class, the bounds mode's counts), for both.
 */
#include <stdlib.h>
#include <string.h>

#include "verifier/check/malom_check_internal.h"

static void derive(const struct mc_shared *sh, ma_board pos, ma_vturns *turns, struct derivation *d)
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
static int mismatch_class(const struct mc_shared *sh, const ma_malom_entry *st, ma_malom_value der,
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

int ma_mc_add_item(struct mc_worker *w, const ma_mcheck_item *it)
{
    if (ma_walk_push(&w->th, it, sizeof *it))
        return MA_ENOMEM;
    w->part.by_class[it->cls]++;
    w->part.discrepancies++;
    return MA_OK;
}

int ma_mc_index_bug(struct mc_worker *w, uint64_t idx, uint64_t back)
{
    return ma_mc_index_error(&w->err, w->sh, idx,
                             "does not round-trip (rank gives %llu): checker index bug",
                             (unsigned long long)back);
}

int ma_mc_symmetry(struct mc_worker *w, ma_mcheck_item *it)
{
    it->cls = MA_MCHECK_SYMMETRY;
    return ma_mc_add_item(w, it);
}

static int check_index(struct mc_worker *w, uint64_t idx, ma_vturns *turns)
{
    struct mc_shared *sh = w->sh;
    const ma_malom_index *ix = sh->in->ix;
    ma_sector s = sh->sector;
    ma_malom_entry st;
    ma_malom_file_entry(sh->in->file, idx, &st);
    int marker = ma_malom_index_marker(ix, s.w, s.b, idx);
    ma_board pos = ma_malom_index_unrank(ix, s.w, s.b, idx);
    ma_board canon;
    uint64_t back = ma_malom_index_rank(ix, pos, &canon);
    if ((marker < 0 && back != idx) || (marker >= 0 && back == idx))
        return ma_mc_index_bug(w, idx, back);
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
        return ma_mc_symmetry(w, &it);
    }
    w->part.canonical++;
    if (st.kind == MA_MALOM_SYM) {
        return ma_mc_symmetry(w, &it);
    }
    struct derivation d;
    derive(sh, pos, turns, &d);
    return ma_mc_conclude(w, &it, &st, &d);
}

int ma_mc_conclude(struct mc_worker *w, ma_mcheck_item *it, const ma_malom_entry *st,
                   const struct derivation *d)
{
    const struct mc_shared *sh = w->sh;
    it->derived = d->best;
    it->derived_full = (uint8_t)(d->full || d->fixed);
    ma_malom_value sv = {st->key1, st->key2};
    ma_malom_result rs;
    if (ma_malom_interpret(&sh->frame, st, &rs)) {
        it->cls = MA_MCHECK_BAD_ENCODING;
        return ma_mc_add_item(w, it);
    }
    if (d->full || d->fixed) {
        if (same_value(sv, d->best)) {
            w->part.verified++;
            return MA_OK;
        }
        it->cls = (uint8_t)mismatch_class(sh, st, d->best, d->fixed);
        return ma_mc_add_item(w, it);
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
        return ma_mc_add_item(w, it);
    }
    if (c == 0 && rs.outcome == MA_MALOM_WIN) {
        w->part.verified++;
        w->part.bound_wins++;
    } else {
        w->part.within_bounds++;
    }
    return MA_OK;
}

uint64_t ma_mc_reference_chunk(ma_walk_thread *th, uint64_t lo, uint64_t hi)
{
    struct mc_worker *w = (struct mc_worker *)th;
    for (uint64_t i = lo; i < hi; i++) {
        int rc = check_index(w, i, w->turns);
        if (rc) {
            th->rc = rc;
            break;
        }
    }
    return hi - lo;
}
