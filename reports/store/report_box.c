/*
 * The verdict box of a report (reports/store/report.h, issue 45): which sectors hold the faults and
 * which only follow from them, the first root position with its refuting move, what changed since
 * the previous run of the same database, and the next step. Every format prints these lines under
 * its verdict headline, so a summary, a report and a JUnit file name the same root sectors first.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "reports/store/history.h"
#include "reports/store/report.h"

#define NAMES_SHOWN 6 /* sectors named in one line of the box before "and N more" */

static const char CONSEQUENCE_PREFIX[] = "values differ only as a consequence of ";

static int is_status(const char *s, const char *want)
{
    return s && !strcmp(s, want);
}

static size_t sector_index(const ma_report *r, const char *name)
{
    for (size_t i = 0; i < r->run.n_sectors; i++)
        if (r->run.sectors[i].sector && !strcmp(r->run.sectors[i].sector, name))
            return i;
    return r->run.n_sectors;
}

/* A verify sector's own fault: root discrepancies, a split not recorded, or a body that does not
 * match the digest in its header. */
static int own_fault(const ma_report *r, size_t i)
{
    const ma_report_sector *sx = &r->sx[i];
    if (!is_status(r->run.sectors[i].status, "discrepancies"))
        return 0;
    return sx->roots != 0 || (sx->body_digest && !strcmp(sx->body_digest, "mismatch"));
}

/* The root sectors reachable from sector i through the recorded inputs, ", "-joined (malloc'd),
 * or NULL when none (or out of memory: *oom set). */
static char *reachable_roots(const ma_report *r, size_t i, const char *root, int *oom)
{
    size_t n = r->run.n_sectors, head = 0, tail = 0;
    char *seen = calloc(n ? n : 1, 1);
    size_t *queue = malloc((n ? n : 1) * sizeof *queue);
    char *names = NULL;
    if (!seen || !queue) {
        *oom = 1;
        goto out;
    }
    seen[i] = 1;
    queue[tail++] = i;
    while (head < tail) {
        const ma_run_sector *x = &r->run.sectors[queue[head++]];
        for (size_t k = 0; k < x->n_successors; k++) {
            size_t j = sector_index(r, x->successors[k]);
            if (j < n && !seen[j])
                seen[j] = 1, queue[tail++] = j;
        }
    }
    size_t len = 0;
    for (size_t j = 0; j < n; j++) {
        if (j == i || !seen[j] || !root[j])
            continue;
        const char *name = r->run.sectors[j].sector;
        char *p = realloc(names, len + strlen(name) + 3);
        if (!p) {
            *oom = 1;
            break;
        }
        names = p;
        len += (size_t)sprintf(names + len, "%s%s", len ? ", " : "", name);
    }
out:
    free(seen), free(queue);
    return names;
}

int ma_report_causes(ma_report *r, ma_error *err)
{
    size_t n = r->run.n_sectors;
    int diff = r->run.kind && !strcmp(r->run.kind, "diff"), oom = 0;
    char *root = calloc(n ? n : 1, 1);
    if (!root)
        return ma_error_set(err, MA_ENOMEM, "report: out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *m = r->run.sectors[i].message;
        root[i] = diff ? is_status(r->run.sectors[i].status, "discrepancies") &&
                             !(m && !strncmp(m, CONSEQUENCE_PREFIX, sizeof CONSEQUENCE_PREFIX - 1))
                       : own_fault(r, i);
    }
    for (size_t i = 0; i < n && !oom; i++) {
        ma_report_sector *sx = &r->sx[i];
        const ma_run_sector *x = &r->run.sectors[i];
        if (!is_status(x->status, "discrepancies"))
            continue;
        if (!root[i]) {
            /* diff: the run named the causes; verify: found through the recorded inputs */
            sx->because = diff ? strdup(x->message + sizeof CONSEQUENCE_PREFIX - 1) : reachable_roots(r, i, root, &oom);
            oom |= diff && !sx->because;
        }
        sx->cause = sx->because ? MA_REPORT_CONSEQUENCE : MA_REPORT_ROOT;
        r->n_root_sectors += sx->cause == MA_REPORT_ROOT;
        r->n_consequence_sectors += sx->cause == MA_REPORT_CONSEQUENCE;
    }
    ma_report_first_root(r);
    free(root);
    return oom ? ma_error_set(err, MA_ENOMEM, "report: out of memory") : MA_OK;
}

void ma_report_first_root(ma_report *r)
{
    /* rows are sorted by sector and entry: the first root row of the first root sector */
    size_t n = r->run.n_sectors;
    r->first_root = -1;
    for (size_t i = 0; i < r->run.n_disc && r->first_root < 0; i++) {
        size_t k = r->run.disc[i].sector ? sector_index(r, r->run.disc[i].sector) : n;
        if (k < n && r->sx[k].cause == MA_REPORT_ROOT && r->dx[i].root == 1 &&
            (!r->only || !strcmp(r->only, r->run.sectors[k].sector)))
            r->first_root = (int64_t)i;
    }
}

/* ---------------------------------------------------------------- since the previous run */

/* name appended to the ", "-joined list in buf, the count-th: at most NAMES_SHOWN, then "...". */
static void name_add(char *buf, size_t size, size_t *count, const char *name)
{
    size_t used = strlen(buf);
    if ((*count)++ < NAMES_SHOWN)
        snprintf(buf + used, size - used, "%s%s", used ? ", " : "", name);
    else if (*count == NAMES_SHOWN + 1)
        snprintf(buf + used, size - used, ", ...");
}

/* A recorded run status in the words of a verdict: "ok" is what the store writes for a verified run,
 * and a report never calls a run ok (docs/report.md §1). */
static const char *status_words(const char *status)
{
    if (!status)
        return "never finished";
    if (!strcmp(status, "ok"))
        return "verified";
    if (!strcmp(status, "within-bounds"))
        return "within bounds only";
    return status;
}

/* The new faults of g (root regressions) named in s->faults; its fixed sectors, those with a fault
 * of their own in base named in s->fixed, those that follow fixes below them counted. */
static void faults_and_fixes(ma_report_since *s, const ma_regressions *g)
{
    size_t named = 0;
    s->fixed[0] = s->faults[0] = 0;
    for (size_t i = 0; i < g->n_rows; i++) {
        if (g->rows[i].unchecked)
            s->n_unchecked++;
        else if (g->rows[i].regression && !g->rows[i].consequence)
            name_add(s->faults, sizeof s->faults, &s->n_faults, g->rows[i].sector);
        if (!(g->rows[i].changes & MA_CHANGE_FIXED))
            continue;
        s->n_fixed++;
        if (g->rows[i].follows) {
            s->n_fixed_consequences++;
            continue;
        }
        name_add(s->fixed, sizeof s->fixed, &named, g->rows[i].sector);
    }
}

int ma_report_since_load(ma_audit *a, ma_report *r, ma_error *err)
{
    memset(&r->since, 0, sizeof r->since);
    if (!r->run.kind || strcmp(r->run.kind, "verify") || r->run.imported || !r->run.ended_at)
        return MA_OK;
    int64_t prev = 0;
    int rc = ma_runs_previous(a, r->run.id, &prev, err);
    if (rc || !prev)
        return rc;
    ma_run base;
    if ((rc = ma_run_load(a, prev, &base, err)) != MA_OK) {
        ma_run_free(&base);
        return rc;
    }
    ma_regressions g;
    if ((rc = ma_regressions_compute(&g, &base, &r->run, err)) == MA_OK) {
        ma_report_since *s = &r->since;
        s->run = prev;
        ma_report_when(s->started_at, sizeof s->started_at, base.started_at);
        snprintf(s->status, sizeof s->status, "%s", status_words(base.ended_at ? base.status : NULL));
        s->regressed = g.regressed;
        s->verdict_worse = g.verdict_worse;
        s->verdict_better = g.verdict_better;
        s->n_consequences = g.n_consequences;
        s->n_changed = g.n_changed;
        s->n_improved = g.n_improvements;
        s->n_follows = g.n_follows;
        faults_and_fixes(s, &g);
        ma_regressions_free(&g);
    }
    ma_run_free(&base);
    return rc;
}

/* ---------------------------------------------------------------- the box */

static void add(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

const char *ma_report_when(char *buf, size_t size, const char *iso)
{
    const char *t = iso ? iso : "-";
    if (strlen(t) >= 16 && t[10] == 'T') /* the minute is what a reader compares nights by */
        snprintf(buf, size, "%.10s %.5s UTC", t, t + 11);
    else
        snprintf(buf, size, "%s", t);
    return buf;
}

void ma_report_shell_word(char *buf, size_t size, const char *w)
{
    int plain = *w != 0;
    for (const char *p = w; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./,=:@+", *p) != NULL;
    if (plain) {
        snprintf(buf, size, "%s", w);
        return;
    }
    size_t k = 0;
    if (size)
        buf[k++] = '\'';
    for (const char *p = w; *p && k + 5 < size; p++) {
        if (*p == '\'') {
            memcpy(buf + k, "'\\''", 4);
            k += 4;
        } else {
            buf[k++] = *p;
        }
    }
    if (k + 2 <= size)
        buf[k++] = '\'', buf[k] = 0;
    else if (size)
        buf[size - 1] = 0;
}

static void box_faulty(ma_report *r, int diff)
{
    ma_report_box *b = &r->box;
    size_t shown = 0;
    for (size_t i = 0; i < r->run.n_sectors; i++) {
        const ma_report_sector *sx = &r->sx[i];
        if (sx->cause != MA_REPORT_ROOT)
            continue;
        if (shown++ == NAMES_SHOWN) {
            add(b->faulty, sizeof b->faulty, ", and %s more", MA_NUM(r->n_root_sectors - NAMES_SHOWN));
            break;
        }
        add(b->faulty, sizeof b->faulty, "%s%s", shown > 1 ? ", " : "", r->run.sectors[i].sector);
        if (sx->roots > 0)
            add(b->faulty, sizeof b->faulty, " (%s)",
                diff ? MA_COUNT((uint64_t)sx->roots, "position at the root", "positions at the root")
                     : MA_COUNT((uint64_t)sx->roots, "root", "roots"));
        else if (sx->body_digest && !strcmp(sx->body_digest, "mismatch"))
            add(b->faulty, sizeof b->faulty, " (its body does not match its header)");
    }
    if (!r->n_consequence_sectors)
        return;
    /* the causes of every consequence, once: they are root sectors, named in the line above */
    char causes[400] = "";
    for (size_t i = 0; i < r->run.n_sectors; i++) {
        const char *because = r->sx[i].because;
        for (const char *p = because; p && *p;) {
            size_t len = strcspn(p, ",");
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), p);
            int dup = 0;
            for (const char *q = causes; *q && !dup; q += strcspn(q, ",") + (q[strcspn(q, ",")] ? 2 : 0))
                dup = strcspn(q, ",") == strlen(name) && !strncmp(q, name, strlen(name));
            if (!dup)
                add(causes, sizeof causes, "%s%s", causes[0] ? ", " : "", name);
            p += len;
            p += strspn(p, ", ");
        }
    }
    snprintf(b->consequences, sizeof b->consequences, "%s %s only as a consequence of %s",
             MA_COUNT(r->n_consequence_sectors, "sector", "sectors"),
             diff ? ma_noun(r->n_consequence_sectors, "differs", "differ")
                  : ma_noun(r->n_consequence_sectors, "has propagated discrepancies", "have propagated discrepancies"),
             causes);
}

static void box_first_root(ma_report *r, int diff)
{
    if (r->first_root < 0)
        return;
    const ma_run_discrepancy *d = &r->run.disc[r->first_root];
    const ma_report_disc *dx = &r->dx[r->first_root];
    ma_report_box *b = &r->box;
    int mover = -1, opp = -1;
    ma_report_in_hand(d->sector, &mover, &opp);
    snprintf(b->first_root, sizeof b->first_root, "%s entry %lld (%s): position %s", d->sector ? d->sector : "-",
             (long long)d->entry, d->cls ? d->cls : "-", d->board ? d->board : "-");
    if (mover >= 0)
        add(b->first_root, sizeof b->first_root, " (in hand X %d, O %d)", mover, opp);
    add(b->first_root, sizeof b->first_root, ": %s %s, %s %s", diff ? "A says" : "stored", d->stored ? d->stored : "-",
        diff ? "B says" : "derived", d->derived ? d->derived : "-");
    if (dx->move)
        add(b->first_root, sizeof b->first_root, ", %s %s", diff ? "proved by" : "refuted by", dx->move);
    else if (!diff && dx->derived.outcome && !strcmp(dx->derived.outcome, "loss") && dx->derived.depth == 0)
        add(b->first_root, sizeof b->first_root, "; the side to move has no turn, so it has lost");
}

static void box_since(ma_report *r)
{
    const ma_report_since *s = &r->since;
    ma_report_box *b = &r->box;
    if (!s->run) {
        if (r->run.kind && !strcmp(r->run.kind, "verify") && !r->run.imported && r->run.ended_at)
            snprintf(b->since, sizeof b->since, "the first finished run of this database in this store: nothing "
                                                "to compare with");
        return;
    }
    snprintf(b->since, sizeof b->since, "since run %lld (%s, %s): ", (long long)s->run, s->started_at, s->status);
    int any = 0;
    if (s->n_faults) {
        add(b->since, sizeof b->since, "%s: %s", s->n_faults == 1 ? "a new fault" : "new faults", s->faults);
        any = 1;
    }
    if (s->n_unchecked) {
        add(b->since, sizeof b->since, "%s%s not checked by this run (no fault found: unproven)", any ? "; " : "",
            MA_COUNT(s->n_unchecked, "sector", "sectors"));
        any = 1;
    }
    if (s->n_consequences) {
        add(b->since, sizeof b->since, "%s%s changed only as a consequence", any ? "; " : "",
            MA_COUNT(s->n_consequences, "sector", "sectors"));
        any = 1;
    }
    size_t roots_fixed = s->n_fixed - s->n_fixed_consequences;
    if (roots_fixed) {
        add(b->since, sizeof b->since, "%sFIXED: %s %s no discrepancy any more", any ? "; " : "", s->fixed,
            ma_noun(roots_fixed, "has", "have"));
        if (s->n_fixed_consequences)
            add(b->since, sizeof b->since, ", nor %s that %s wrong only as a consequence",
                MA_COUNT(s->n_fixed_consequences, "sector", "sectors"), ma_noun(s->n_fixed_consequences, "was", "were"));
        any = 1;
    } else if (s->n_fixed) {
        add(b->since, sizeof b->since, "%sFIXED: %s that %s wrong only as a consequence %s no discrepancy any more",
            any ? "; " : "", MA_COUNT(s->n_fixed, "sector", "sectors"), ma_noun(s->n_fixed, "was", "were"),
            ma_noun(s->n_fixed, "has", "have"));
        any = 1;
    }
    size_t corrected = s->n_follows - s->n_fixed_consequences, improved = s->n_improved - s->n_fixed - corrected;
    if (improved) {
        add(b->since, sizeof b->since, "%s%s improved", any ? "; " : "", MA_COUNT(improved, "sector", "sectors"));
        any = 1;
    }
    if (corrected) {
        add(b->since, sizeof b->since, "%s%s corrected as a consequence", any ? "; " : "",
            MA_COUNT(corrected, "sector", "sectors"));
        any = 1;
    }
    if (s->verdict_worse || s->verdict_better)
        add(b->since, sizeof b->since, "%sverdict %s -> %s (%s)", any ? "; " : "", s->status,
            status_words(r->run.ended_at ? r->run.status : NULL), s->verdict_worse ? "worse" : "better");
    else if (!any && !s->n_changed)
        add(b->since, sizeof b->since, "nothing changed");
    else if (!any)
        add(b->since, sizeof b->since, "%s changed, none for the worse", MA_COUNT(s->n_changed, "sector", "sectors"));
}

static void box_next(ma_report *r, int diff)
{
    ma_report_box *b = &r->box;
    char root[1100], store[1100];
    ma_report_shell_word(root, sizeof root, r->run.database_root ? r->run.database_root : "DIR");
    ma_report_shell_word(store, sizeof store, r->store_path ? r->store_path : "STORE");
    switch (r->verdict.state) {
    case MA_VERDICT_DISCREPANCIES:
    case MA_VERDICT_DIFFER:
        if (r->first_root >= 0) {
            const ma_run_discrepancy *d = &r->run.disc[r->first_root];
            int mover = -1, opp = -1;
            ma_report_in_hand(d->sector, &mover, &opp);
            char pos[200], shown[240];
            snprintf(pos, sizeof pos, "%s wf=%d bf=%d", d->board ? d->board : "-", mover, opp);
            ma_report_shell_word(shown, sizeof shown, pos);
            if (diff)
                snprintf(b->next, sizeof b->next, "millaudit diff %s %s --sector %s shows its first root positions "
                                                  "with every turn on both sides", root,
                         r->side_b ? r->side_b : "B", d->sector);
            else
                snprintf(b->next, sizeof b->next, "millaudit probe %s %s shows every turn of the first root; "
                                                  "millaudit report --audit %s --run %lld --sector %s lists the rows "
                                                  "recorded for %s", root, shown, store, (long long)r->run.id,
                         d->sector, d->sector);
        } else if (r->n_root_sectors) {
            for (size_t i = 0; i < r->run.n_sectors; i++)
                if (r->sx[i].cause == MA_REPORT_ROOT) {
                    snprintf(b->next, sizeof b->next, "millaudit report --audit %s --run %lld --sector %s lists what "
                                                      "was recorded for it", store, (long long)r->run.id,
                             r->run.sectors[i].sector);
                    break;
                }
        }
        break;
    case MA_VERDICT_INTERRUPTED:
        if (!r->continued_by && !diff)
            snprintf(b->next, sizeof b->next, "millaudit verify %s --audit %s --resume continues this run", root, store);
        break;
    case MA_VERDICT_INCOMPLETE:
        snprintf(b->next, sizeof b->next, "make the files named below usable (absent or unusable sector files), "
                                          "then verify again");
        break;
    case MA_VERDICT_WITHIN_BOUNDS:
        snprintf(b->next, sizeof b->next, "add the absent successor sectors to prove every entry, or accept bounds "
                                          "with millaudit verify --allow-bounds");
        break;
    default:
        break;
    }
}

void ma_report_box_fill(ma_report *r)
{
    int diff = r->run.kind && !strcmp(r->run.kind, "diff");
    memset(&r->box, 0, sizeof r->box);
    box_faulty(r, diff);
    box_first_root(r, diff);
    box_since(r);
    box_next(r, diff);
}
