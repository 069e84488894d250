/* Probing a position of a database: its stored value and its turns (see probe.h). */
#include "verifier/run/probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "verifier/formats/malom_file.h"
#include "verifier/check/check.h"
#include "verifier/check/malom_check.h"

static int push(ma_probe_turn *out, int max, int *n, ma_probe_turn t)
{
    if (*n >= max)
        return MA_EINTERNAL;
    out[(*n)++] = t;
    return MA_OK;
}

/* Turns that close a mill when every such turn wins at once (rules->mill_wins). */
static int add_immediate_wins(const ma_vrules *r, ma_board pos, ma_probe_turn *out, int max, int *n)
{
    const uint32_t m = pos.mover, o = pos.opp, empty = MA_FULL_MASK & ~(m | o);
    if (!o)
        return MA_OK;
    const uint32_t removable = ma_vrules_removable(r, o);
    for (int pass = 0; pass < 2; pass++) {
        if ((pass == 0 && !r->can_place) || (pass == 1 && !r->can_move))
            continue;
        for (uint32_t s = pass ? m : 1; s; s = pass ? s & (s - 1) : 0) {
            int from = pass ? __builtin_ctz(s) : -1;
            uint32_t rest = pass ? m & ~(1u << from) : m;
            uint32_t dest = !pass ? empty : r->flying ? empty : (empty & r->adj[from]);
            for (; dest; dest &= dest - 1) {
                int d = __builtin_ctz(dest);
                if (!ma_vrules_closes_mill(r, rest | (1u << d), d))
                    continue;
                for (uint32_t rm = removable; rm; rm &= rm - 1) {
                    ma_probe_turn t = {from, d, __builtin_ctz(rm), 1, -1, {0, 0}};
                    if (push(out, max, n, t))
                        return MA_EINTERNAL;
                }
            }
        }
    }
    return MA_OK;
}

int ma_probe_turns(const ma_vrules *r, ma_board pos, ma_probe_turn *out, int max, int *n,
                   ma_error *err)
{
    *n = 0;
    ma_vturns *turns = malloc(sizeof *turns);
    if (!turns)
        return ma_error_set(err, MA_ENOMEM, "probe: out of memory");
    int rc = ma_vrules_generate(r, pos, turns);
    for (int i = 0; !rc && i < turns->n; i++) {
        ma_board s = turns->succ[i];
        /* s is colour-swapped: s.opp holds the mover's stones after the turn. */
        uint32_t left = pos.mover & ~s.opp, reached = s.opp & ~pos.mover;
        uint32_t gone = pos.opp & ~s.mover;
        ma_probe_turn t = {left ? __builtin_ctz(left) : -1, reached ? __builtin_ctz(reached) : -1,
                           gone ? __builtin_ctz(gone) : -1, 0, turns->kind[i], s};
        rc = push(out, max, n, t);
    }
    if (!rc && turns->immediate_wins)
        rc = add_immediate_wins(r, pos, out, max, n);
    free(turns);
    if (rc)
        return ma_error_set(err, MA_EINTERNAL, "probe: more than %s", MA_COUNT((uint64_t)max, "turn", "turns"));
    return MA_OK;
}

void ma_probe_turn_format(const ma_probe_turn *t, char *buf, size_t len)
{
    int k = 0;
    if (t->from >= 0)
        k = snprintf(buf, len, "%s-", ma_point_name(t->from));
    if (k < 0 || (size_t)k >= len)
        return;
    int k2 = snprintf(buf + k, len - (size_t)k, "%s", t->to >= 0 ? ma_point_name(t->to) : "?");
    if (k2 < 0 || (size_t)(k + k2) >= len)
        return;
    if (t->removed >= 0)
        snprintf(buf + k + k2, len - (size_t)(k + k2), "x%s", ma_point_name(t->removed));
}

/* ---- probing a database ---- */

ma_sector ma_probe_sector_of(ma_board pos, int wf, int bf)
{
    ma_sector s = {(uint8_t)__builtin_popcount(pos.mover), (uint8_t)__builtin_popcount(pos.opp),
                   (uint8_t)wf, (uint8_t)bf};
    return s;
}

static int position_sector(ma_variant v, ma_board pos, int wf, int bf, ma_sector *s, ma_error *err)
{
    if ((pos.mover & pos.opp) || ((pos.mover | pos.opp) & ~MA_FULL_MASK))
        return ma_error_set(err, MA_EINVAL, "not a board: a point holds two stones or is off the board");
    if (wf < 0 || bf < 0 || wf > MA_POINTS || bf > MA_POINTS)
        return ma_error_set(err, MA_EINVAL, "stones in hand out of range (wf=%d bf=%d)", wf, bf);
    *s = ma_probe_sector_of(pos, wf, bf);
    if (!ma_sector_valid(v, *s)) {
        char sec[16];
        ma_sector_format(*s, sec, sizeof sec);
        return ma_error_set(err, MA_EINVAL,
                            "sector %s is not a sector of %s (stones on the board and in hand)", sec,
                            ma_variant_name(v));
    }
    return MA_OK;
}

int ma_probe_lookup(ma_database *db, ma_variant v, ma_board pos, int wf, int bf,
                    const ma_source **src, uint64_t *entry, ma_stored *out, ma_error *err)
{
    ma_sector s;
    int rc = position_sector(v, pos, wf, bf, &s, err);
    if (rc == MA_OK)
        rc = ma_database_source(db, v, s, src, err);
    if (rc)
        return rc;
    *entry = ma_source_entry_of(*src, pos);
    ma_source_read(*src, *entry, out);
    return MA_OK;
}

static void frame_of(const ma_source *src, ma_malom_frame *buf)
{
    *buf = ma_malom_file_frame(ma_source_malom_file(src));
}

/* A Malom value (key1, key2) in frame f as probe shows it. */
static void malom_value(ma_probe_value *pv, const ma_malom_frame *f, int legacy, ma_malom_value mv)
{
    pv->known = 1;
    pv->has_keys = 1;
    pv->key1 = mv.key1;
    pv->key2 = mv.key2;
    int32_t a = mv.key1 + f->v;
    if (a == f->vw || a == f->vl) {
        pv->value.outcome = a == f->vw ? MA_OUTCOME_WIN : MA_OUTCOME_LOSS;
        pv->value.depth = (uint16_t)(mv.key2 < 0 ? 0 : mv.key2);
    } else {
        pv->value.outcome = MA_OUTCOME_DRAW;
        pv->has_draw_class = !legacy;
        pv->draw_class = a;
    }
    ma_mcheck_format_value(f, legacy, mv, pv->text, sizeof pv->text);
}

static void open_value(ma_probe_value *pv, ma_value v)
{
    pv->known = 1;
    pv->value = v;
    ma_value_format(v, pv->text, sizeof pv->text);
}

static int cmp_rows_malom(const void *a, const void *b)
{
    const ma_probe_row *x = a, *y = b;
    if (x->v.known != y->v.known)
        return y->v.known - x->v.known;
    if (x->v.known) {
        ma_malom_value vx = {x->v.key1, x->v.key2}, vy = {y->v.key1, y->v.key2};
        int c = ma_malom_value_cmp(vy, vx);
        if (c)
            return c;
    }
    return strcmp(x->move, y->move);
}

static int cmp_rows_open(const void *a, const void *b)
{
    const ma_probe_row *x = a, *y = b;
    if (x->v.known != y->v.known)
        return y->v.known - x->v.known;
    if (x->v.known) {
        int32_t sx = ma_check_value_score(x->v.value), sy = ma_check_value_score(y->v.value);
        if (sx != sy)
            return sy > sx ? 1 : -1;
    }
    return strcmp(x->move, y->move);
}

static int note_unusable(ma_probe_result *r, const char *msg)
{
    for (int i = 0; i < r->n_unusable; i++)
        if (!strcmp(r->unusable[i], msg))
            return MA_OK;
    char (*p)[1024] = realloc(r->unusable, (size_t)(r->n_unusable + 1) * sizeof *p);
    if (!p)
        return MA_ENOMEM;
    r->unusable = p;
    snprintf(r->unusable[r->n_unusable++], sizeof *p, "%s", msg);
    return MA_OK;
}

/* The value of one turn into row->v. */
static int turn_value(ma_probe_result *r, ma_database *db, const ma_source *src,
                      const ma_vrules *rules, ma_probe_row *row)
{
    int malom = r->format != MA_FORMAT_OPEN, legacy = r->format == MA_FORMAT_SEC;
    ma_malom_frame fr, cfr;
    if (row->turn.immediate_win) {
        if (malom) {
            frame_of(src, &fr);
            malom_value(&row->v, &fr, legacy, ma_malom_win_in_one(&fr));
        }
        else
            open_value(&row->v, (ma_value){MA_OUTCOME_WIN, 1});
        return MA_OK;
    }
    ma_sector target = rules->succ[row->turn.kind];
    const ma_source *cs = src;
    char name[40], sec[16];
    ma_sector_format(target, sec, sizeof sec);
    snprintf(name, sizeof name, "%s_%s", ma_variant_name(r->variant), sec);
    if (!ma_sector_equal(target, r->sector)) {
        ma_error e;
        int rc = ma_database_source(db, r->variant, target, &cs, &e);
        if (rc == MA_ENOMEM)
            return rc;
        /* a file that is there but cannot be used is a sector of the database that fails with
         * its reason (verifier/formats/source.h): only a sector without any file is absent */
        if (rc == MA_EMISSING && !ma_database_find(db, r->variant, target)) {
            snprintf(row->v.why, sizeof row->v.why, "successor sector %s absent", name);
            return MA_OK;
        }
        if (rc) {
            snprintf(row->v.why, sizeof row->v.why, "successor sector %s unusable", name);
            return note_unusable(r, e.msg);
        }
    }
    ma_stored st;
    uint64_t ce = ma_source_entry_of(cs, row->turn.succ);
    ma_source_read(cs, ce, &st);
    if (st.kind != MA_STORED_VALUE) {
        char what[64];
        ma_source_describe(cs, &st, what, sizeof what);
        snprintf(row->v.why, sizeof row->v.why, "successor entry %s:%llu holds no value (%s)", name,
                 (unsigned long long)ce, what);
        return MA_OK;
    }
    if (malom) {
        ma_malom_value cv = {st.raw[1], st.raw[2]};
        frame_of(src, &fr);
        frame_of(cs, &cfr);
        malom_value(&row->v, &fr, legacy, ma_malom_turn_value(cv, cfr.v, fr.v));
    } else {
        open_value(&row->v, ma_check_value_negate(st.value));
    }
    return MA_OK;
}

/* Why pos has no turn: every stone of the mover is blocked, or the board is full. */
static void no_turn_reason(const ma_vrules *rules, ma_board pos, char *buf, size_t len)
{
    int stones = __builtin_popcount(pos.mover);
    if (rules->full_board_draw)
        snprintf(buf, len, "the board is full: a draw by the rules of %s", ma_variant_name(rules->variant));
    else if (rules->can_move && stones)
        snprintf(buf, len, "blocked: none of X's %s can move, so X has lost", MA_COUNT((uint64_t)stones, "stone", "stones"));
    else
        snprintf(buf, len, "X has no legal turn, so X has lost");
}

/* The rules' value of the position (ma_probe_result.rules) and whether the stored one agrees. */
static void judge(ma_probe_result *r, const ma_source *src, const ma_vrules *rules)
{
    int malom = r->format != MA_FORMAT_OPEN, legacy = r->format == MA_FORMAT_SEC;
    r->agrees = -1;
    memset(&r->rules, 0, sizeof r->rules);
    if (r->n_rows == 0) {
        no_turn_reason(rules, r->board, r->no_turn, sizeof r->no_turn);
        if (malom) {
            ma_malom_frame fr;
            frame_of(src, &fr);
            ma_malom_value none = rules->full_board_draw ? (ma_malom_value){0, 0} : ma_malom_no_turn(&fr);
            malom_value(&r->rules, &fr, legacy, none);
        } else {
            open_value(&r->rules, rules->full_board_draw ? (ma_value){MA_OUTCOME_DRAW, 0} : (ma_value){MA_OUTCOME_LOSS, 0});
        }
    } else if (r->rows[r->n_rows - 1].v.known) { /* unknown turns sort last: all known */
        r->rules = r->rows[0].v;
    } else {
        snprintf(r->rules.why, sizeof r->rules.why, "%s of unknown value",
                 MA_COUNT((uint64_t)r->n_rows, "turn", "turns"));
        return;
    }
    if (!r->value.known)
        return;
    if (malom) /* one value: equal keys, or both draws of the frame (key1 0) */
        r->agrees = r->value.key1 == r->rules.key1 && (r->value.key1 == 0 || r->value.key2 == r->rules.key2);
    else
        r->agrees = r->value.value.outcome == r->rules.value.outcome &&
                    (r->value.value.outcome == MA_OUTCOME_DRAW || r->value.value.depth == r->rules.value.depth);
}

int ma_probe_position(ma_probe_result *out, ma_database *db, ma_variant v, ma_board pos, int wf,
                      int bf, ma_error *err)
{
    memset(out, 0, sizeof *out);
    const ma_source *src;
    int rc = ma_probe_lookup(db, v, pos, wf, bf, &src, &out->entry, &out->stored, err);
    if (rc)
        return rc;
    out->variant = v;
    out->sector = ma_source_sector(src);
    out->format = ma_source_format(src);
    out->board = pos;
    out->offset = ma_source_offset(src, out->entry);
    snprintf(out->name, sizeof out->name, "%s", ma_source_name(src));
    int malom = out->format != MA_FORMAT_OPEN, legacy = out->format == MA_FORMAT_SEC;
    const ma_stored *st = &out->stored;
    ma_malom_frame fr;
    if (st->kind == MA_STORED_VALUE) {
        if (malom) {
            frame_of(src, &fr);
            malom_value(&out->value, &fr, legacy, (ma_malom_value){st->raw[1], st->raw[2]});
            snprintf(out->stored_text, sizeof out->stored_text, "%s (key1 %d, key2 %d)",
                     out->value.text, (int)st->raw[1], (int)st->raw[2]);
        } else {
            open_value(&out->value, st->value);
            snprintf(out->stored_text, sizeof out->stored_text, "%s", out->value.text);
        }
    } else {
        char what[64];
        ma_source_describe(src, st, what, sizeof what);
        snprintf(out->value.why, sizeof out->value.why, "the entry holds no value: %s", what);
        if (malom)
            snprintf(out->stored_text, sizeof out->stored_text, "not a value (key1 %d, key2 %d)",
                     (int)st->raw[1], (int)st->raw[2]);
        else
            snprintf(out->stored_text, sizeof out->stored_text, "not a value (%s)", what);
        snprintf(out->value.text, sizeof out->value.text, "%.95s", out->stored_text);
    }
    ma_vrules rules;
    if ((rc = ma_vrules_init(&rules, v, out->sector, err)) != MA_OK)
        return rc;
    enum { MAX_ROWS = 2048 };
    ma_probe_turn *turns = calloc(MAX_ROWS, sizeof *turns);
    out->rows = calloc(MAX_ROWS, sizeof *out->rows);
    if (!turns || !out->rows) {
        free(turns);
        ma_probe_result_free(out);
        return ma_error_set(err, MA_ENOMEM, "probe: out of memory");
    }
    int n = 0;
    rc = ma_probe_turns(&rules, pos, turns, MAX_ROWS, &n, err);
    for (int i = 0; rc == MA_OK && i < n; i++) {
        ma_probe_row *row = &out->rows[out->n_rows++];
        row->turn = turns[i];
        ma_probe_turn_format(&turns[i], row->move, sizeof row->move);
        if ((rc = turn_value(out, db, src, &rules, row)) == MA_ENOMEM)
            ma_error_set(err, rc, "probe: out of memory");
        if (!row->v.known)
            snprintf(row->v.text, sizeof row->v.text, "unknown");
    }
    free(turns);
    if (rc) {
        ma_probe_result_free(out);
        return rc;
    }
    qsort(out->rows, (size_t)out->n_rows, sizeof *out->rows, malom ? cmp_rows_malom : cmp_rows_open);
    judge(out, src, &rules);
    return MA_OK;
}

void ma_probe_result_free(ma_probe_result *r)
{
    free(r->rows);
    free(r->unusable);
    r->rows = NULL;
    r->unusable = NULL;
    r->n_rows = r->n_unusable = 0;
}
