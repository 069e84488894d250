/* verifier/run/run_sector: one sector's check in the engine's format-neutral shape. */
#include "verifier/run/run_sector.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksums/derived_digest.h"
#include "common/counts.h"
#include "verifier/check/check.h"
#include "verifier/check/malom_check.h"

int ma_entry_set_has(const ma_entry_set *s, uint64_t entry)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->entries[mid] < entry)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->entries[lo] == entry;
}

void ma_rs_result_free(ma_rs_result *res)
{
    free(res->items);
    free(res->entries);
    res->items = NULL;
    res->entries = NULL;
    res->n_items = 0;
}

static int alloc_items(ma_rs_result *res, size_t n, ma_error *err)
{
    res->n_items = n;
    if (!n)
        return MA_OK;
    res->items = calloc(n, sizeof *res->items);
    res->entries = malloc(n * sizeof *res->entries);
    if (!res->items || !res->entries)
        return ma_error_set(err, MA_ENOMEM, "out of memory for %s", MA_COUNT(n, "discrepancy", "discrepancies"));
    return MA_OK;
}

/* "<child path>: sector <S>: offset 0: <what>" for the sector message and the run's errors. */
static void missing_message(ma_vrun_sector *out, const ma_rs_input *in, const int kinds[MA_TURN_KINDS],
                            const ma_vrules *rules, const char *what, uint64_t count)
{
    char names[600] = "";
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        if (!kinds[k])
            continue;
        int dup = 0;
        for (int j = 0; j < k; j++)
            dup |= kinds[j] && ma_sector_equal(rules->succ[j], rules->succ[k]);
        if (dup)
            continue;
        size_t l = strlen(names);
        const char *p = in->child_path[k] ? in->child_path[k] : "?";
        const char *base = strrchr(p, '/');
        snprintf(names + l, sizeof names - l, "%s%s (%s)", l ? ", " : "", base ? base + 1 : p,
                 in->child_present[k] ? "unusable" : "absent");
    }
    snprintf(out->message, sizeof out->message,
             "%.400s: sector %s: successor sector file %.500s; %s %s", out->path,
             out->name, names[0] ? names : "(broken successor entries)", MA_COUNT(count, "entry", "entries"),
             what);
}

/* ---- the open format ---- */

static uint8_t open_class(int c)
{
    switch (c) {
    case MA_CHECK_WRONG_OUTCOME: return MA_DISC_WRONG_OUTCOME;
    case MA_CHECK_WRONG_DEPTH: return MA_DISC_WRONG_DEPTH;
    case MA_CHECK_BAD_ENCODING: return MA_DISC_BAD_ENCODING;
    case MA_CHECK_WRONG_TERMINAL: return MA_DISC_WRONG_TERMINAL;
    default: return MA_DISC_SYMMETRY;
    }
}

static int check_open(ma_rs_result *res, const ma_rs_input *in, const ma_vrules *rules, ma_error *err)
{
    ma_vrun_sector *out = res->out;
    ma_open_index *ix = ma_database_open_index(in->db, err);
    if (!ix)
        return err->code;
    int rc = ma_check_prepare_index(ix, ma_source_variant(in->src), ma_source_sector(in->src), err);
    if (rc)
        return rc;
    ma_check_input ci;
    memset(&ci, 0, sizeof ci);
    ci.ix = ix;
    ci.file = ma_source_open_file(in->src);
    for (int k = 0; k < MA_TURN_KINDS; k++)
        ci.child[k] = in->child[k] ? ma_source_open_file(in->child[k]) : NULL;
    ci.threads = in->threads;
    ci.progress = in->progress;
    ci.cancel = in->cancel;
    ci.resident_budget = in->resident_budget;
    ma_check_result c;
    if ((rc = ma_check_sector(&c, &ci, err)))
        return rc;
    out->entries = c.entries;
    out->checked = c.checked;
    out->canonical = c.canonical;
    out->verified = c.verified;
    out->missing_child = c.missing_child;
    out->unverifiable = c.unverifiable;
    out->seconds = c.seconds;
    for (int k = 0; k < MA_CHECK_CLASSES; k++)
        out->by_class[open_class(k)] += c.by_class[k];
    out->discrepancies = c.discrepancies;
    out->body_digest = ma_open_file_body_digest_ok(ci.file);
    rc = alloc_items(res, c.n_items, err);
    for (size_t i = 0; rc == MA_OK && i < c.n_items; i++) {
        const ma_check_item *it = &c.items[i];
        ma_rs_item *d = &res->items[i];
        d->entry = it->entry;
        res->entries[i] = it->entry;
        d->cls = open_class(it->cls);
        d->derived_exact = 1;
        d->expected_marker = -1;
        if (it->derived_known && it->derived_outcome == MA_OUTCOME_NONE) {
            d->derived_kind = 3;
            snprintf(d->derived_text, sizeof d->derived_text, "none (0x0000)");
        } else if (!it->derived_known) {
            d->derived_kind = 1;
            snprintf(d->derived_text, sizeof d->derived_text, "unknown");
        } else {
            d->derived.outcome = (ma_outcome)it->derived_outcome;
            d->derived.depth = (uint16_t)it->derived_depth;
            ma_value_format(d->derived, d->derived_text, sizeof d->derived_text);
        }
    }
    if (rc == MA_OK) {
        if (c.discrepancies || out->body_digest == 0)
            out->status = MA_SECTOR_DISCREPANCIES;
        else if (c.missing_child || c.unverifiable)
            out->status = MA_SECTOR_INCOMPLETE;
        else
            out->status = MA_SECTOR_OK;
        if (out->body_digest == 0)
            snprintf(out->message, sizeof out->message,
                     "%.600s: sector %s: offset 80: body digest mismatch: the entries are not the bytes "
                     "the producer wrote (docs/format.md 5.1)",
                     out->path, out->name);
        else if (c.missing_child)
            missing_message(out, in, c.missing_kind, rules, "not verified", c.missing_child);
        else if (c.unverifiable)
            snprintf(out->message, sizeof out->message,
                     "%.600s: sector %s: %s not verified: a successor holds a bad encoding",
                     out->path, out->name, MA_COUNT(c.unverifiable, "entry", "entries"));
    }
    ma_check_result_free(&c);
    return rc;
}

/* ---- Malom's formats ---- */

/* A value (key1, key2) in a frame as outcome and depth (malom-format.md §5.5). */
static int malom_value(const ma_malom_frame *f, ma_malom_value v, ma_value *out, int32_t *draw_class)
{
    ma_malom_entry e = {MA_MALOM_VAL, v.key1, v.key2, -1};
    ma_malom_result r;
    if (ma_malom_interpret(f, &e, &r) != MA_OK)
        return -1;
    out->outcome = r.outcome > 0 ? MA_OUTCOME_WIN : r.outcome < 0 ? MA_OUTCOME_LOSS : MA_OUTCOME_DRAW;
    out->depth = r.outcome ? (uint16_t)r.depth : 0;
    *draw_class = r.draw_class;
    return 0;
}

static int check_malom(ma_rs_result *res, const ma_rs_input *in, const ma_vrules *rules, ma_error *err)
{
    ma_vrun_sector *out = res->out;
    ma_malom_index *ix = ma_database_malom_index(in->db, err);
    if (!ix)
        return err->code;
    int rc = ma_mcheck_prepare_index(ix, ma_source_variant(in->src), ma_source_sector(in->src), err);
    if (rc)
        return rc;
    ma_mcheck_input mi;
    memset(&mi, 0, sizeof mi);
    mi.ix = ix;
    mi.file = ma_source_malom_file(in->src);
    mi.path = ma_source_path(in->src);
    for (int k = 0; k < MA_TURN_KINDS; k++)
        mi.child[k] = in->child[k] ? ma_source_malom_file(in->child[k]) : NULL;
    mi.full_board_draw = in->full_board_draw;
    mi.threads = in->threads;
    mi.progress = in->progress;
    mi.cancel = in->cancel;
    mi.resident_budget = in->resident_budget;
    ma_mcheck_result m;
    if ((rc = ma_mcheck_sector(&m, &mi, err)))
        return rc;
    int legacy = !ma_source_draw_classes(in->src); /* .sec: values without a draw class */
    out->body_digest = -1;
    out->entries = m.entries;
    out->checked = m.entries;
    out->canonical = m.canonical;
    out->markers = m.markers;
    out->verified = m.verified;
    out->within_bounds = m.within_bounds;
    out->bound_wins = m.bound_wins;
    out->missing_child = m.missing_child;
    out->unverifiable = m.broken_child;
    out->seconds = m.seconds;
    for (int k = 0; k < MA_MCHECK_CLASSES; k++) /* the same numbering as ma_disc_class */
        out->by_class[k] += m.by_class[k];
    out->discrepancies = m.discrepancies;
    rc = alloc_items(res, m.n_items, err);
    for (size_t i = 0; rc == MA_OK && i < m.n_items; i++) {
        const ma_mcheck_item *it = &m.items[i];
        ma_rs_item *d = &res->items[i];
        d->entry = it->entry;
        res->entries[i] = it->entry;
        d->cls = it->cls;
        d->derived_exact = it->derived_full;
        d->expected_marker = (int8_t)it->expected_marker;
        if (it->expected_marker >= 0) {
            d->derived_kind = 2;
            snprintf(d->derived_text, sizeof d->derived_text, "marker op %d", it->expected_marker);
        } else if (it->cls == MA_MCHECK_SYMMETRY) {
            d->derived_kind = 1; /* a canonical index holds a marker: its value is not derived */
            snprintf(d->derived_text, sizeof d->derived_text, "a value (canonical index)");
        } else {
            char v[40];
            ma_mcheck_format_value(&m.frame, legacy, it->derived, v, sizeof v);
            snprintf(d->derived_text, sizeof d->derived_text, "%s%.30s (%d,%d)",
                     it->derived_full ? "" : ">= ", v, (int)it->derived.key1, (int)it->derived.key2);
            if (malom_value(&m.frame, it->derived, &d->derived, &d->derived_draw_class) == 0) {
                d->has_draw_class = !legacy;
            } else {
                d->derived_kind = 1;
            }
        }
    }
    if (rc == MA_OK) {
        out->status = m.discrepancies     ? MA_SECTOR_DISCREPANCIES
                      : m.within_bounds   ? MA_SECTOR_WITHIN_BOUNDS
                      : m.broken_child    ? MA_SECTOR_INCOMPLETE
                                          : MA_SECTOR_OK;
        if (m.within_bounds || m.missing_child)
            missing_message(out, in, m.missing_kind, rules, "only within bounds", m.within_bounds);
    }
    ma_mcheck_result_free(&m);
    return rc;
}

/* The checker of each reader a source can have (verifier/formats/source.h): a format with a
 * reader of its own brings its checker here; a format read by one of these needs nothing. */
static int (*const checkers[MA_READERS])(ma_rs_result *, const ma_rs_input *, const ma_vrules *,
                                         ma_error *) = {
    [MA_READER_OPEN] = check_open,
    [MA_READER_MALOM] = check_malom,
};

int ma_rs_check(ma_rs_result *res, const ma_rs_input *in, ma_error *err)
{
    ma_vrules rules;
    int rc = ma_vrules_init(&rules, ma_source_variant(in->src), ma_source_sector(in->src), err);
    if (rc)
        return rc;
    rc = checkers[ma_source_reader_of(in->src)](res, in, &rules, err);
    if (rc)
        ma_rs_result_free(res);
    else if (res->out->message[0]) {
        /* the sector's message holds paths (its own, its successors'): through the one escaping
         * function of every message, like ma_error_set's */
        char raw[sizeof res->out->message];
        memcpy(raw, res->out->message, sizeof raw);
        ma_escape_text(raw, res->out->message, sizeof res->out->message, 0);
    }
    return rc;
}

/* ---- roots and propagated ---- */

/* The source a successor of kind k is looked up in: the sector itself for a self-loop. */
static const ma_source *succ_source(const ma_rs_input *in, const ma_vrules *rules, int k)
{
    if (!rules->succ_exists[k])
        return NULL;
    if (ma_sector_equal(rules->succ[k], ma_source_sector(in->src)))
        return in->src;
    return in->child[k];
}

int ma_rs_class_fixed(int cls)
{
    return cls == MA_DISC_WRONG_TERMINAL || cls == MA_DISC_BAD_ENCODING || cls == MA_DISC_SYMMETRY;
}

int ma_rs_classify_sets(ma_variant v, ma_sector s, const ma_rs_ranker *rk, const uint64_t *entries,
                        const uint8_t *fixed, size_t n, const ma_entry_set *const sets[MA_TURN_KINDS],
                        uint8_t *root, uint64_t *roots, uint64_t *propagated, ma_error *err)
{
    ma_vrules rules;
    int rc = ma_vrules_init(&rules, v, s, err);
    if (rc)
        return rc;
    ma_vturns *t = malloc(sizeof *t);
    if (!t)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    *roots = *propagated = 0;
    for (size_t i = 0; i < n; i++) {
        int prop = 0;
        /* a value fixed by the rules, bytes that are no value, and a misplaced marker or value are
         * faults of the entry itself, whatever its successors hold */
        if (!fixed[i]) {
            if (ma_vrules_generate(&rules, ma_scheme_board(rk, s, entries[i]), t)) {
                free(t);
                return ma_error_set(err, MA_EINTERNAL, "internal error: turn bound exceeded");
            }
            for (int k = 0; k < t->n && !prop && !t->immediate_wins; k++) {
                const ma_entry_set *set = sets[t->kind[k]];
                if (set && set->n && ma_entry_set_has(set, ma_scheme_entry_of(rk, t->succ[k])))
                    prop = 1;
            }
        }
        root[i] = (uint8_t)!prop;
        if (prop)
            (*propagated)++;
        else
            (*roots)++;
    }
    free(t);
    return MA_OK;
}

int ma_rs_classify(ma_rs_result *res, const ma_rs_input *in,
                   const ma_entry_set *const child[MA_TURN_KINDS], ma_error *err)
{
    ma_vrules rules;
    int rc = ma_vrules_init(&rules, ma_source_variant(in->src), ma_source_sector(in->src), err);
    if (rc)
        return rc;
    ma_rs_ranker rk = ma_source_scheme(in->src);
    ma_entry_set own = {res->entries, res->n_items};
    const ma_entry_set *sets[MA_TURN_KINDS];
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        /* a successor sector whose file is absent or unusable holds no discrepancy */
        const ma_source *src = succ_source(in, &rules, k);
        sets[k] = !src ? NULL : src == in->src ? &own : child[k];
    }
    uint8_t *fixed = malloc(res->n_items ? res->n_items : 1);
    uint8_t *root = malloc(res->n_items ? res->n_items : 1);
    if (!fixed || !root) {
        free(fixed);
        free(root);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < res->n_items; i++)
        fixed[i] = (uint8_t)ma_rs_class_fixed(res->items[i].cls);
    ma_vrun_sector *out = res->out;
    rc = ma_rs_classify_sets(ma_source_variant(in->src), ma_source_sector(in->src), &rk, res->entries,
                             fixed, res->n_items, sets, root, &out->roots, &out->propagated, err);
    for (size_t i = 0; rc == MA_OK && i < res->n_items; i++)
        res->items[i].root = root[i];
    free(fixed);
    free(root);
    return rc;
}

/* ---- rows ---- */

static int cmp_report_order(const void *a, const void *b)
{
    const ma_rs_item *x = a, *y = b;
    if (x->root != y->root)
        return y->root - x->root;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

void ma_rs_move_text(ma_board pos, ma_board succ, char *buf, size_t len)
{
    uint32_t after_mover = succ.opp, after_opp = succ.mover;
    uint32_t from = pos.mover & ~after_mover, to = after_mover & ~pos.mover;
    uint32_t removed = pos.opp & ~after_opp;
    const char *f = from ? ma_point_name(__builtin_ctz(from)) : NULL;
    const char *t = to ? ma_point_name(__builtin_ctz(to)) : "?";
    size_t n = (size_t)snprintf(buf, len, "%s%s%s", f ? f : "", f ? "-" : "", t);
    if (removed && n < len)
        snprintf(buf + n, len - n, "x%s", ma_point_name(__builtin_ctz(removed)));
}

/* A turn that wins at once by reducing the opponent below three stones, as text. The rules list
 * such turns only as a count, so the move is found again here from the same rule primitives. */
static int immediate_win_text(const ma_vrules *r, ma_board pos, char *buf, size_t len)
{
    uint32_t empty = MA_FULL_MASK & ~(pos.mover | pos.opp);
    uint32_t removable = ma_vrules_removable(r, pos.opp);
    if (!removable)
        return 0;
    int victim = __builtin_ctz(removable);
    if (r->can_place)
        for (int d = 0; d < MA_POINTS; d++)
            if ((empty >> d & 1) && ma_vrules_closes_mill(r, pos.mover | 1u << d, d)) {
                snprintf(buf, len, "%sx%s", ma_point_name(d), ma_point_name(victim));
                return 1;
            }
    if (r->can_move)
        for (int f = 0; f < MA_POINTS; f++) {
            if (!(pos.mover >> f & 1))
                continue;
            uint32_t dest = r->flying ? empty : (r->adj[f] & empty);
            for (int d = 0; d < MA_POINTS; d++)
                if ((dest >> d & 1) && ma_vrules_closes_mill(r, (pos.mover & ~(1u << f)) | 1u << d, d)) {
                    snprintf(buf, len, "%s-%sx%s", ma_point_name(f), ma_point_name(d),
                             ma_point_name(victim));
                    return 1;
                }
        }
    return 0;
}

/* The turn whose successor proves the derived value: the best negated successor value, which
 * equals the derived one when the derivation was exact. A lower bound (a successor sector absent)
 * is proven the same way when the best known successor reaches it: that turn alone shows the
 * stored value is too low, whatever the absent successors hold; when no known successor reaches
 * the bound no turn is named. A full board has no turn. */
static void refutation(const ma_rs_input *in, const ma_vrules *rules, ma_vturns *t, ma_vrun_row *row)
{
    if (row->derived_kind != 0 || rules->full_board_draw)
        return;
    if (ma_vrules_generate(rules, row->board, t))
        return;
    int best = -1;
    ma_value best_v = {MA_OUTCOME_NONE, 0};
    for (int s = 0; s < t->n; s++) {
        const ma_source *cs = succ_source(in, rules, t->kind[s]);
        if (!cs)
            continue;
        ma_stored v;
        ma_source_read(cs, ma_source_entry_of(cs, t->succ[s]), &v);
        if (v.kind != MA_STORED_VALUE)
            continue;
        ma_value nv = ma_check_value_negate(v.value);
        if (best < 0 || ma_check_value_score(nv) > ma_check_value_score(best_v)) {
            best = s;
            best_v = nv;
        }
    }
    if (t->immediate_wins && row->derived.outcome == MA_OUTCOME_WIN && row->derived.depth == 1 &&
        immediate_win_text(rules, row->board, row->move, sizeof row->move)) {
        row->has_refutation = 1;
        return;
    }
    if (best >= 0 && best_v.outcome == row->derived.outcome && best_v.depth == row->derived.depth) {
        row->has_refutation = 1;
        row->successor = t->succ[best];
        ma_rs_move_text(row->board, t->succ[best], row->move, sizeof row->move);
    }
}

int ma_rs_rows(ma_rs_result *res, const ma_rs_input *in, size_t max_rows, ma_error *err)
{
    return ma_rs_rows_split(res, in, max_rows, max_rows, max_rows, err);
}

int ma_rs_rows_split(ma_rs_result *res, const ma_rs_input *in, size_t max_rows, size_t max_roots,
                     size_t max_propagated, ma_error *err)
{
    ma_vrun_sector *out = res->out;
    out->rows = NULL;
    out->n_rows = 0;
    if (!res->n_items || !max_rows)
        return MA_OK;
    ma_rs_item *order = malloc(res->n_items * sizeof *order);
    if (!order)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    memcpy(order, res->items, res->n_items * sizeof *order);
    qsort(order, res->n_items, sizeof *order, cmp_report_order);
    /* keep the first max_roots roots and the first max_propagated propagated, in report order */
    size_t n = 0, nr = 0, np = 0;
    for (size_t i = 0; i < res->n_items && n < max_rows; i++) {
        if (order[i].root ? nr++ >= max_roots : np++ >= max_propagated)
            continue;
        order[n++] = order[i];
    }
    ma_vturns *t = malloc(sizeof *t);
    out->rows = calloc(n ? n : 1, sizeof *out->rows);
    if (!t || !out->rows) {
        free(order);
        free(t);
        free(out->rows);
        out->rows = NULL;
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    ma_vrules rules;
    int rc = ma_vrules_init(&rules, ma_source_variant(in->src), ma_source_sector(in->src), err);
    if (ma_source_full_board_draw_asked(in->src))
        rules.full_board_draw = in->full_board_draw && rules.full_board_draw;
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        const ma_rs_item *it = &order[i];
        ma_vrun_row *row = &out->rows[i];
        row->entry = it->entry;
        row->offset = ma_source_offset(in->src, it->entry);
        row->cls = it->cls;
        row->root = it->root;
        row->board = ma_source_board(in->src, it->entry);
        ma_source_read(in->src, it->entry, &row->stored);
        ma_source_describe(in->src, &row->stored, row->stored_text, sizeof row->stored_text);
        row->derived_kind = it->derived_kind;
        row->derived_exact = it->derived_exact;
        row->has_draw_class = it->has_draw_class;
        row->derived = it->derived;
        row->derived_draw_class = it->derived_draw_class;
        row->expected_marker = it->expected_marker;
        snprintf(row->derived_text, sizeof row->derived_text, "%s", it->derived_text);
        refutation(in, &rules, t, row);
    }
    out->n_rows = n;
    free(order);
    free(t);
    return rc;
}

/* ---- derived-value digest and histogram ---- */

enum { DG_BLOCK = 1 << 18, DG_DEPTHS = 1 << 14 };

typedef struct dg_shared {
    const ma_rs_input *in;
    const ma_rs_result *res;
    int open_fmt;
    const ma_open_index *oix;
    int w, b;
    uint64_t per_rep;      /* open entries per representative */
    uint64_t open_entries; /* the open index's entry count of the sector */
} dg_shared;

typedef struct dg_block {
    const dg_shared *sh;
    uint64_t lo, hi;       /* open entries of this block */
    uint8_t *rec;          /* 3 bytes per position */
    size_t n_rec;
    uint64_t *wins, *losses, draws;
    int failed;
} dg_block;

static const ma_rs_item *find_item(const ma_rs_result *res, uint64_t entry)
{
    size_t lo = 0, hi = res->n_items;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (res->items[mid].entry < entry)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < res->n_items && res->items[lo].entry == entry ? &res->items[lo] : NULL;
}

static void dg_put(dg_block *b, char letter, unsigned depth)
{
    uint8_t *p = b->rec + 3 * b->n_rec++;
    p[0] = (uint8_t)letter;
    p[1] = (uint8_t)(depth & 0xFF);
    p[2] = (uint8_t)(depth >> 8);
    if (letter == 'W')
        b->wins[depth & (DG_DEPTHS - 1)]++;
    else if (letter == 'L')
        b->losses[depth & (DG_DEPTHS - 1)]++;
    else if (letter == 'D')
        b->draws++;
}

/* The value the run established for an entry of the checked file: the derived one where the
 * checker disagreed, else the stored one. Returns 0 when the entry holds no position. */
static int established(const dg_shared *sh, uint64_t entry, char *letter, unsigned *depth)
{
    const ma_rs_item *it = find_item(sh->res, entry);
    ma_value v;
    if (it) {
        if (it->derived_kind == 3 || it->derived_kind == 2)
            return 0;
        if (it->derived_kind == 1) {
            *letter = '?';
            *depth = 0;
            return 1;
        }
        v = it->derived;
    } else {
        ma_stored s;
        ma_source_read(sh->in->src, entry, &s);
        if (s.kind == MA_STORED_NONE)
            return 0;
        if (s.kind == MA_STORED_BAD) {
            *letter = '?';
            *depth = 0;
            return 1;
        }
        v = s.value;
    }
    *letter = v.outcome == MA_OUTCOME_WIN ? 'W' : v.outcome == MA_OUTCOME_LOSS ? 'L' : 'D';
    *depth = v.outcome == MA_OUTCOME_DRAW ? 0 : v.depth;
    return 1;
}

static void *dg_work(void *arg)
{
    dg_block *b = arg;
    const dg_shared *sh = b->sh;
    uint8_t *orbit = NULL;
    uint64_t cached = UINT64_MAX;
    if (!sh->open_fmt && !(orbit = malloc(sh->per_rep ? sh->per_rep : 1))) {
        b->failed = 1;
        return NULL;
    }
    for (uint64_t e = b->lo; e < b->hi; e++) {
        char letter;
        unsigned depth;
        uint64_t at = e;
        if (!sh->open_fmt) {
            /* positions in open canonical order, looked up in the Malom file */
            uint64_t rep = e / sh->per_rep;
            if (rep != cached) {
                ma_open_index_classify(sh->oix, sh->w, sh->b, rep, orbit);
                cached = rep;
            }
            if (!orbit[e - rep * sh->per_rep])
                continue;
            at = ma_source_entry_of(sh->in->src, ma_open_index_unrank(sh->oix, sh->w, sh->b, e));
        }
        if (established(sh, at, &letter, &depth))
            dg_put(b, letter, depth);
    }
    free(orbit);
    return NULL;
}

int ma_rs_digest(ma_rs_result *res, const ma_rs_input *in, ma_error *err)
{
    ma_vrun_sector *out = res->out;
    dg_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.in = in;
    sh.res = res;
    sh.open_fmt = ma_source_open_numbered(in->src);
    ma_sector s = ma_source_sector(in->src);
    sh.w = s.w;
    sh.b = s.b;
    sh.oix = ma_database_open_index(in->db, err);
    if (!sh.oix)
        return err->code;
    sh.per_rep = ma_open_binomial(MA_POINTS - s.w, s.b);
    sh.open_entries = sh.open_fmt ? ma_source_entries(in->src) : ma_open_index_entry_count(sh.oix, s.w, s.b);
    int threads = in->threads < 1 ? 1 : in->threads;
    dg_block *blocks = calloc((size_t)threads, sizeof *blocks);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    unsigned char *joined = calloc((size_t)threads, 1);
    uint64_t *wins = calloc(2 * DG_DEPTHS, sizeof *wins), *losses = wins ? wins + DG_DEPTHS : NULL;
    uint64_t draws = 0;
    int rc = blocks && tid && joined && wins ? MA_OK : ma_error_set(err, MA_ENOMEM, "out of memory");
    for (int t = 0; rc == MA_OK && t < threads; t++) {
        blocks[t].sh = &sh;
        blocks[t].rec = malloc(3 * (size_t)DG_BLOCK);
        blocks[t].wins = calloc(2 * DG_DEPTHS, sizeof *blocks[t].wins);
        /* set with wins, so the sums below never meet wins without losses */
        blocks[t].losses = blocks[t].wins ? blocks[t].wins + DG_DEPTHS : NULL;
        if (!blocks[t].rec || !blocks[t].wins)
            rc = ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    ma_derived_digest dd;
    int dd_open = 0;
    if (rc == MA_OK && (rc = ma_derived_digest_init(&dd, err)) == MA_OK)
        dd_open = 1;
    /* rounds of `threads` consecutive blocks; each round is fed to the stream in block order */
    for (uint64_t lo = 0; rc == MA_OK && lo < sh.open_entries; lo += (uint64_t)threads * DG_BLOCK) {
        memset(joined, 0, (size_t)threads);
        for (int t = 0; t < threads; t++) {
            dg_block *b = &blocks[t];
            b->lo = lo + (uint64_t)t * DG_BLOCK;
            if (b->lo > sh.open_entries)
                b->lo = sh.open_entries;
            b->hi = b->lo + DG_BLOCK < sh.open_entries ? b->lo + DG_BLOCK : sh.open_entries;
            b->n_rec = 0;
            if (t > 0 && b->lo < b->hi)
                joined[t] = pthread_create(&tid[t], NULL, dg_work, b) == 0;
        }
        dg_work(&blocks[0]);
        for (int t = 1; t < threads; t++) {
            if (joined[t])
                pthread_join(tid[t], NULL);
            else
                dg_work(&blocks[t]); /* no thread for it: do it here */
        }
        for (int t = 0; rc == MA_OK && t < threads; t++) {
            dg_block *b = &blocks[t];
            if (b->failed) {
                rc = ma_error_set(err, MA_ENOMEM, "out of memory");
                break;
            }
            for (size_t i = 0; rc == MA_OK && i < b->n_rec; i++) {
                const uint8_t *p = b->rec + 3 * i;
                rc = ma_derived_digest_add(&dd, (ma_derived_outcome)p[0], (unsigned)(p[1] | p[2] << 8), err);
            }
        }
    }
    if (rc == MA_OK) {
        rc = ma_derived_digest_final(&dd, out->digest, &out->digest_positions, err);
        dd_open = 0;
    }
    if (dd_open)
        ma_derived_digest_abort(&dd);
    for (int t = 0; blocks && t < threads; t++) {
        for (int d = 0; wins && blocks[t].wins && d < DG_DEPTHS; d++) {
            wins[d] += blocks[t].wins[d];
            losses[d] += blocks[t].losses[d];
        }
        draws += blocks[t].draws;
        free(blocks[t].rec);
        free(blocks[t].wins);
    }
    if (rc == MA_OK) {
        size_t nb = 0;
        for (int d = 0; d < DG_DEPTHS; d++)
            nb += (wins[d] != 0) + (losses[d] != 0);
        nb += draws != 0;
        out->bins = calloc(nb ? nb : 1, sizeof *out->bins);
        if (!out->bins) {
            rc = ma_error_set(err, MA_ENOMEM, "out of memory");
        } else {
            size_t k = 0;
            for (int d = 0; d < DG_DEPTHS; d++)
                if (losses[d])
                    out->bins[k++] = (ma_vrun_bin){MA_OUTCOME_LOSS, (uint32_t)d, losses[d]};
            if (draws)
                out->bins[k++] = (ma_vrun_bin){MA_OUTCOME_DRAW, 0, draws};
            for (int d = 0; d < DG_DEPTHS; d++)
                if (wins[d])
                    out->bins[k++] = (ma_vrun_bin){MA_OUTCOME_WIN, (uint32_t)d, wins[d]};
            out->n_bins = k;
            out->has_digest = 1;
        }
    }
    free(blocks);
    free(tid);
    free(joined);
    free(wins);
    return rc;
}
