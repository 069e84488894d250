/*
 * Malom sector verification, the entry points (contract: malom_check.h). The checker's parts are
 * described in malom_check_internal.h; this file sets a sector up (its rules, children and
 * frames), runs the walk (verifier/check/walk.h) on the fast path (malom_fast.c, over the tables of
 * malom_tables.c) or the reference path (malom_reference.c), joins the threads' results, proves
 * from the visited bitmap that every index was checked once (roots and propagated discrepancies
 * are told apart by the run, verifier/run/run_sector.h).
 */
#include "verifier/check/malom_check.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/check/malom_check_internal.h"

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
int ma_mc_index_error(ma_error *err, const struct mc_shared *sh, uint64_t idx, const char *what, ...)
{
    char sec[16], text[160];
    va_list ap;
    va_start(ap, what);
    vsnprintf(text, sizeof text, what, ap);
    va_end(ap);
    ma_sector_format(sh->sector, sec, sizeof sec);
    return ma_error_set(err, MA_EINTERNAL, "%s: sector %s: offset %llu: index %llu %s",
                        sh->in->path ? sh->in->path : "(sector file)", sec,
                        (unsigned long long)ma_malom_file_entry_offset(sh->in->file, idx),
                        (unsigned long long)idx, text);
}

/* After a complete walk: every index was checked (each at most once, see fast_prepare), by one
 * thread (the threads' own bitmaps are merged here, ma_walk_cover). */
static int coverage(const struct mc_shared *sh, int ran, ma_error *err)
{
    uint64_t idx = 0;
    int got = ma_walk_cover(&sh->walk, ran, &idx);
    if (got == MA_VISITED_ALL)
        return MA_OK;
    const char *what = got == MA_VISITED_TWICE ? "was reached twice by the walk (by two threads)"
                       : got == MA_VISITED_GAP ? "was never checked"
                                               : "lies past the last index and was reached";
    return ma_mc_index_error(err, sh, idx, "%s: checker index bug", what);
}

/* A thread's own state, made in the thread before its first chunk. */
static int start_thread(ma_walk_thread *th)
{
    struct mc_worker *w = (struct mc_worker *)th;
    w->turns = malloc(sizeof *w->turns);
    if (w->sh->fast && (w->fw = calloc(1, sizeof *w->fw)) != NULL)
        th->grp = &w->fw->group;
    if (!w->turns || (w->sh->fast && !w->fw))
        return ma_error_set(&w->err, MA_ENOMEM, "malom check: out of memory");
    return MA_OK;
}

static void stop_thread(ma_walk_thread *th)
{
    struct mc_worker *w = (struct mc_worker *)th;
    free(w->turns);
    free(w->fw);
    w->turns = NULL;
    w->fw = NULL;
    th->grp = NULL;
}

static const ma_walk_ops fast_ops = {start_thread, ma_mc_fast_chunk, stop_thread};
static const ma_walk_ops reference_ops = {start_thread, ma_mc_reference_chunk, stop_thread};

_Static_assert(offsetof(ma_mcheck_item, entry) == 0, "ma_walk_push: an item begins with its entry");

static int setup(struct mc_shared *sh, const ma_mcheck_input *in, ma_error *err)
{
    memset(sh, 0, sizeof *sh);
    ma_walk_init(&sh->walk, in->resident_budget);
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
/* The threads' counters summed into out. */
static void add_parts(ma_mcheck_result *out, const struct mc_worker *ws, int n)
{
    for (int t = 0; t < n; t++) {
        const ma_mcheck_result *p = &ws[t].part;
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
    }
}

static void free_shared(struct mc_shared *sh)
{
    ma_mc_fast_free(sh->fast);
    ma_walk_free(&sh->walk);
    free(sh);
}

int ma_mcheck_sector(ma_mcheck_result *out, const ma_mcheck_input *in, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (!in || !in->ix || !in->file || in->threads < 1)
        return ma_error_set(err, MA_EINVAL, "malom check: bad input");
    double t0 = ma_now();
    struct mc_shared *sh = malloc(sizeof *sh);
    if (!sh)
        return ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    int rc = setup(sh, in, err);
    int frc = !rc && !in->reference ? ma_mc_fast_setup(sh) : 0;
    if (frc == MA_EINTERNAL)
        rc = ma_error_set(err, MA_EINTERNAL, "malom check: index bug: a representative of %s has "
                          "another stone count", in->path ? in->path : "the sector");
    else if (frc)
        rc = ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    int nt = in->threads;
    struct mc_worker *ws = rc ? NULL : calloc((size_t)nt, sizeof *ws);
    if (!rc && !ws)
        rc = ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    if (rc) {
        free_shared(sh);
        return rc;
    }
    if (!sh->fast)
        ma_walk_plan_entries(&sh->walk, sh->entries);
    for (int t = 0; t < nt; t++)
        ws[t].sh = sh;
    int ran = ma_walk_run(&sh->walk, ws, sizeof *ws, nt, sh->fast ? &fast_ops : &reference_ops,
                         in->cancel, in->progress);
    out->sector = sh->sector;
    out->frame = sh->frame;
    out->entries = sh->entries;
    for (int t = 0; t < ran; t++)
        if (ws[t].th.rc && !rc) {
            rc = ws[t].th.rc;
            *err = ws[t].err;
        }
    void *items = NULL;
    size_t n_items = 0;
    if (ma_walk_join(ws, sizeof *ws, nt, sizeof *out->items, !rc, &items, &n_items) && !rc)
        rc = ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    out->items = items;
    out->n_items = n_items;
    if (!rc)
        add_parts(out, ws, nt);
    if (!rc && atomic_load(&sh->walk.canceled))
        rc = ma_error_set(err, MA_ECANCELED, "malom check: check of the sector canceled");
    if (!rc)
        rc = coverage(sh, ran, err);
    free(ws);
    free_shared(sh);
    out->seconds = ma_now() - t0;
    if (rc) {
        ma_mcheck_result_free(out);
        memset(out, 0, sizeof *out);
    }
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
