/*
 * millaudit verify DIR [--sector S ...] [--audit FILE.sqlite] [--max-rows N] [--threads N]
 *                      [--quiet] [--json]
 *
 * Re-derives every entry of every sector file of an open-format database (or of the named
 * sectors) from its successors' stored values (verifier/check.h), children first, then splits the
 * discrepancies into roots and propagated ones. Exit: 0 everything checked matched and every needed
 * input was present; 1 discrepancies; 3 input unusable (and no discrepancies); 2 usage; 4 audit
 * store not writable; 5 internal error.
 */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_util.h"
#include "checksums/derived_digest.h"
#include "cli/audit_store.h"
#include "cli/commands.h"
#include "cli/verify_malom.h"
#include "common/ma_error.h"
#include "common/progress.h"
#include "formats/open_file.h"
#include "indexer/open_index.h"
#include "indexer/position.h"
#include "ma_version.h"
#include "reports/audit.h"
#include "reports/runs.h"
#include "verifier/check.h"
#include "verifier/rules.h"

#define TEXT_ROWS 20 /* discrepancy rows printed per sector in text mode */

struct slot {
    ma_sector sector;
    char name[40];       /* "std_3_3_0_0" */
    char path[4096];
    int present;         /* a file of that name is in DIR */
    int tried;           /* mapping attempted */
    int mapped;
    ma_open_file file;
    int to_check;
    int checked;         /* res is valid */
    ma_check_result res;
    const char *status;  /* "ok", "discrepancies", "unusable", "incomplete" */
    char message[1024];  /* one-line explanation when unusable / incomplete (truncated) */
};

struct run {
    const char *dir;
    ma_variant variant;
    struct slot *slots;
    size_t n_slots, cap_slots;
    ma_open_index *ix;
    ma_progress *progress;
    int unusable;        /* some needed input was absent or malformed */
    int json, quiet;
    char **errors;       /* one-line error messages, in order */
    size_t n_errors;
};

/* Copies a message, truncating it to fit (messages name paths of any length). */
static void set_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit verify DIR [--sector S ...] [--audit FILE.sqlite] [--max-rows N]\n"
            "                        [--threads N] [--quiet] [--json]\n"
            "Re-derives every outcome and depth of the *.mdb sector files in DIR (or of the named\n"
            "sectors, W_B_WF_BF or <variant>_W_B_WF_BF) from their successors, children first.\n"
            "  --audit FILE     record the run, per-sector results and discrepancy rows in FILE\n"
            "  --max-rows N     discrepancy rows stored per sector (default 1000; counts stay exact)\n"
            "  --threads N      worker threads (default: online CPUs)\n"
            "  --quiet          no progress, no per-sector lines: totals and errors only\n"
            "  --json           one JSON document on stdout instead of the table\n"
            "exit: 0 all verified, 1 discrepancies, 2 usage, 3 input unusable, 4 audit not writable\n");
}

static void add_error(struct run *r, const char *msg)
{
    char **p = realloc(r->errors, (r->n_errors + 1) * sizeof *p);
    if (!p)
        return;
    r->errors = p;
    r->errors[r->n_errors] = strdup(msg);
    if (r->errors[r->n_errors])
        r->n_errors++;
    fprintf(stderr, "millaudit verify: %s\n", msg);
}

static struct slot *find_slot(struct run *r, ma_sector s)
{
    for (size_t i = 0; i < r->n_slots; i++)
        if (ma_sector_equal(r->slots[i].sector, s))
            return &r->slots[i];
    return NULL;
}

static struct slot *add_slot(struct run *r, ma_sector s)
{
    struct slot *sl = find_slot(r, s);
    if (sl)
        return sl;
    if (r->n_slots == r->cap_slots) {
        size_t cap = r->cap_slots ? 2 * r->cap_slots : 64;
        struct slot *p = realloc(r->slots, cap * sizeof *p);
        if (!p)
            return NULL;
        r->slots = p;
        r->cap_slots = cap;
    }
    sl = &r->slots[r->n_slots++];
    memset(sl, 0, sizeof *sl);
    sl->sector = s;
    char sec[16], file[64];
    ma_sector_format(s, sec, sizeof sec);
    snprintf(sl->name, sizeof sl->name, "%s_%s", ma_variant_name(r->variant), sec);
    ma_open_file_name(r->variant, s, file, sizeof file);
    snprintf(sl->path, sizeof sl->path, "%s/%s", r->dir, file);
    sl->present = access(sl->path, F_OK) == 0;
    return sl;
}

/* Maps a slot's file once; NULL (with the error recorded once) when absent or malformed. */
static const ma_open_file *slot_file(struct run *r, struct slot *sl)
{
    if (sl->tried)
        return sl->mapped ? &sl->file : NULL;
    sl->tried = 1;
    if (!sl->present)
        return NULL;
    ma_error err;
    ma_error_clear(&err);
    if (ma_check_prepare_index(r->ix, r->variant, sl->sector, &err) ||
        ma_open_file_map(&sl->file, sl->path, r->ix, 1, &err)) {
        char sec[16];
        ma_sector_format(sl->sector, sec, sizeof sec);
        char msg[8400];
        if (strstr(err.msg, sl->path))
            set_text(msg, sizeof msg, err.msg);
        else
            snprintf(msg, sizeof msg, "%s: sector %s: offset 0: %s", sl->path, sec, err.msg);
        set_text(sl->message, sizeof sl->message, msg);
        add_error(r, msg);
        r->unusable = 1;
        return NULL;
    }
    sl->mapped = 1;
    return &sl->file;
}

static int order_children_first(const void *a, const void *b)
{
    const struct slot *x = *(struct slot *const *)a, *y = *(struct slot *const *)b;
    int tx = x->sector.w + x->sector.b + x->sector.wf + x->sector.bf;
    int ty = y->sector.w + y->sector.b + y->sector.wf + y->sector.bf;
    if (tx != ty)
        return tx - ty;
    int hx = x->sector.wf + x->sector.bf, hy = y->sector.wf + y->sector.bf;
    if (hx != hy)
        return hx - hy;
    return strcmp(x->name, y->name);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Scans DIR: picks the variant (from --sector names or the majority of files), flags files of any
 * other variant and unparsable *.mdb names, and marks the sectors to check. */
static int scan_directory(struct run *r, char **wanted, int n_wanted)
{
    DIR *d = opendir(r->dir);
    if (!d) {
        char msg[8400];
        snprintf(msg, sizeof msg, "%s: sector ?: offset 0: cannot open directory", r->dir);
        add_error(r, msg);
        return MA_EXIT_BAD_INPUT;
    }
    struct ent { char name[256]; ma_variant v; ma_sector s; int ok; } *ents = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 4 || strcmp(de->d_name + len - 4, MA_OPEN_SUFFIX) || len >= 256)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            void *p = realloc(ents, cap * sizeof *ents);
            if (!p) {
                free(ents);
                closedir(d);
                return MA_EXIT_INTERNAL;
            }
            ents = p;
        }
        memset(&ents[n], 0, sizeof ents[n]);
        snprintf(ents[n].name, sizeof ents[n].name, "%s", de->d_name);
        ents[n].ok = ma_open_file_name_parse(de->d_name, &ents[n].v, &ents[n].s) == MA_OK;
        n++;
    }
    closedir(d);
    qsort(ents, n, sizeof *ents, cmp_names);

    /* The variant: named by --sector, else the most common among the files. */
    int have_variant = 0;
    for (int i = 0; i < n_wanted; i++) {
        char *us = strchr(wanted[i], '_');
        ma_variant v;
        ma_error err;
        if (us && (wanted[i][0] < '0' || wanted[i][0] > '9')) {
            *us = 0;
            int rc = ma_variant_parse(wanted[i], &v, &err);
            *us = '_';
            if (rc) {
                fprintf(stderr, "millaudit verify: --sector %s: unknown variant\n", wanted[i]);
                free(ents);
                return MA_EXIT_USAGE;
            }
            if (have_variant && v != r->variant) {
                fprintf(stderr, "millaudit verify: --sector names two variants\n");
                free(ents);
                return MA_EXIT_USAGE;
            }
            r->variant = v;
            have_variant = 1;
        }
    }
    if (!have_variant) {
        int count[4] = {0};
        for (size_t i = 0; i < n; i++)
            if (ents[i].ok)
                count[ents[i].v]++;
        int best = 0;
        for (int v = 1; v <= 3; v++)
            if (count[v] > count[best])
                best = v;
        if (!best) {
            char msg[8400];
            snprintf(msg, sizeof msg, "%s: sector ?: offset 0: no <variant>_W_B_WF_BF.mdb sector files", r->dir);
            add_error(r, msg);
            free(ents);
            return MA_EXIT_BAD_INPUT;
        }
        r->variant = (ma_variant)best;
    }
    for (size_t i = 0; i < n; i++) {
        char msg[8400];
        if (!ents[i].ok) {
            snprintf(msg, sizeof msg, "%s/%s: sector ?: offset 0: file name is not <variant>_W_B_WF_BF.mdb",
                     r->dir, ents[i].name);
            add_error(r, msg);
            r->unusable = 1;
        } else if (ents[i].v != r->variant) {
            char sec[16];
            ma_sector_format(ents[i].s, sec, sizeof sec);
            snprintf(msg, sizeof msg,
                     "%s/%s: sector %s: offset 12: variant %s differs from %s of the database; file not used",
                     r->dir, ents[i].name, sec, ma_variant_name(ents[i].v), ma_variant_name(r->variant));
            add_error(r, msg);
            r->unusable = 1;
        } else if (!ma_sector_valid(r->variant, ents[i].s)) {
            char sec[16];
            ma_sector_format(ents[i].s, sec, sizeof sec);
            snprintf(msg, sizeof msg, "%s/%s: sector %s: offset 14: not a valid %s sector", r->dir,
                     ents[i].name, sec, ma_variant_name(r->variant));
            add_error(r, msg);
            r->unusable = 1;
        } else if (!n_wanted) {
            struct slot *sl = add_slot(r, ents[i].s);
            if (!sl) {
                free(ents);
                return MA_EXIT_INTERNAL;
            }
            sl->to_check = 1;
        }
    }
    free(ents);
    for (int i = 0; i < n_wanted; i++) {
        const char *text = wanted[i];
        if (text[0] < '0' || text[0] > '9')
            text = strchr(text, '_') + 1;
        char buf[64];
        snprintf(buf, sizeof buf, "%s", text);
        size_t len = strlen(buf);
        if (len > 4 && !strcmp(buf + len - 4, MA_OPEN_SUFFIX))
            buf[len - 4] = 0;
        ma_sector s;
        ma_error err;
        if (ma_sector_parse(buf, &s, &err) || !ma_sector_valid(r->variant, s)) {
            fprintf(stderr, "millaudit verify: --sector %s: not a valid %s sector\n", wanted[i],
                    ma_variant_name(r->variant));
            return MA_EXIT_USAGE;
        }
        struct slot *sl = add_slot(r, s);
        if (!sl)
            return MA_EXIT_INTERNAL;
        sl->to_check = 1;
        if (!sl->present) {
            char msg[8400];
            snprintf(msg, sizeof msg, "%s: sector %s: offset 0: sector file absent", sl->path, buf);
            set_text(sl->message, sizeof sl->message, msg);
            add_error(r, msg);
            r->unusable = 1;
        }
    }
    return MA_EXIT_OK;
}

static int verify_slot(struct run *r, struct slot *sl, int threads)
{
    const ma_open_file *f = slot_file(r, sl);
    if (!f) {
        sl->status = "unusable";
        return MA_OK;
    }
    ma_vrules rules;
    ma_error err;
    ma_error_clear(&err);
    if (ma_vrules_init(&rules, r->variant, sl->sector, &err)) {
        sl->status = "unusable";
        set_text(sl->message, sizeof sl->message, err.msg);
        return MA_OK;
    }
    ma_progress_set_label(r->progress, sl->name);
    ma_check_input in;
    memset(&in, 0, sizeof in);
    in.ix = r->ix;
    in.file = f;
    in.threads = threads;
    in.progress = r->progress;
    /* add_slot may move the slot array: keep indices until every child slot exists */
    ptrdiff_t self_at = sl - r->slots, child_at[MA_TURN_KINDS];
    struct slot *child_slot[MA_TURN_KINDS] = {0};
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        child_at[k] = -1;
        if (!rules.succ_exists[k] || ma_sector_equal(rules.succ[k], sl->sector))
            continue;
        struct slot *cs = add_slot(r, rules.succ[k]);
        if (!cs)
            return MA_ENOMEM;
        child_at[k] = cs - r->slots;
        sl = r->slots + self_at;
    }
    for (int k = 0; k < MA_TURN_KINDS; k++)
        if (child_at[k] >= 0)
            child_slot[k] = r->slots + child_at[k];
    for (int k = 0; k < MA_TURN_KINDS; k++)
        if (child_slot[k])
            in.child[k] = slot_file(r, child_slot[k]);
    int rc = ma_check_sector(&sl->res, &in, &err);
    if (rc) {
        add_error(r, err.msg);
        return rc;
    }
    sl->checked = 1;
    if (sl->res.missing_child) {
        /* one line per absent child that was actually needed */
        for (int k = 0; k < MA_TURN_KINDS; k++) {
            if (!sl->res.missing_kind[k])
                continue;
            char msg[8400];
            char sec[16];
            ma_sector_format(rules.succ[k], sec, sizeof sec);
            snprintf(msg, sizeof msg,
                     "%s: sector %s: offset 0: child sector file %s; %llu entries of %s not verified",
                     child_slot[k]->path, sec, child_slot[k]->present ? "unusable" : "absent",
                     (unsigned long long)sl->res.missing_child, sl->name);
            if (!sl->message[0])
                set_text(sl->message, sizeof sl->message, msg);
            add_error(r, msg);
        }
        r->unusable = 1;
    }
    if (sl->res.unverifiable) {
        char msg[8400];
        snprintf(msg, sizeof msg,
                 "%s: sector %s: offset 0: %llu entries not verified: a successor holds a bad encoding",
                 sl->path, sl->name, (unsigned long long)sl->res.unverifiable);
        if (!sl->message[0])
            set_text(sl->message, sizeof sl->message, msg);
    }
    if (sl->res.discrepancies)
        sl->status = "discrepancies";
    else if (sl->res.missing_child || sl->res.unverifiable)
        sl->status = "incomplete";
    else
        sl->status = "ok";
    return MA_OK;
}

static void format_stored(uint16_t word, char *buf, size_t len)
{
    ma_value v;
    if (ma_open_value_decode(word, &v)) {
        snprintf(buf, len, "0x%04X", word);
    } else {
        char t[24];
        ma_value_format(v, t, sizeof t);
        snprintf(buf, len, "%s (0x%04X)", t, word);
    }
}

static void format_derived(const ma_check_item *it, char *buf, size_t len)
{
    if (!it->derived_known) {
        snprintf(buf, len, "unknown");
    } else if (it->derived_outcome == MA_OUTCOME_NONE) {
        snprintf(buf, len, "none (0x0000)");
    } else {
        ma_value v = {(ma_outcome)it->derived_outcome, (uint16_t)it->derived_depth};
        ma_value_format(v, buf, len);
    }
}

static int cmp_rows(const void *a, const void *b)
{
    const ma_check_item *x = a, *y = b;
    if (x->root != y->root)
        return y->root - x->root;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* The rows to report for a slot: roots first, then by entry, at most max_rows. Caller frees. */
static ma_check_item *report_rows(const struct slot *sl, size_t max_rows, size_t *n)
{
    *n = 0;
    if (!sl->checked || !sl->res.n_items)
        return NULL;
    ma_check_item *rows = malloc(sl->res.n_items * sizeof *rows);
    if (!rows)
        return NULL;
    memcpy(rows, sl->res.items, sl->res.n_items * sizeof *rows);
    qsort(rows, sl->res.n_items, sizeof *rows, cmp_rows);
    *n = sl->res.n_items < max_rows ? sl->res.n_items : max_rows;
    return rows;
}

/* The value the run established for entry e of a checked sector: the derived value where the
 * checker disagreed with the file, else the stored one (a matching entry has stored = derived).
 * Returns 0 for a non-canonical entry (no position), 1 for a value, -1 when none was derived. */
static int established_value(const struct slot *sl, uint64_t e, size_t *k, ma_value *v)
{
    const ma_check_result *res = &sl->res;
    if (*k < res->n_items && res->items[*k].entry == e) {
        const ma_check_item *it = &res->items[(*k)++];
        if (it->derived_outcome == MA_OUTCOME_NONE)
            return 0;
        if (!it->derived_known)
            return -1;
        v->outcome = (ma_outcome)it->derived_outcome;
        v->depth = (uint16_t)it->derived_depth;
        return 1;
    }
    uint16_t word = ma_open_file_word(&sl->file, e);
    if (word == 0)
        return 0;
    return ma_open_value_decode(word, v) == 0 ? 1 : -1;
}

/* Records the sector's derived-value digest (docs/reproducibility.md) and its outcome/depth
 * histogram per stored entry. Only for sectors whose every entry was re-derived: a digest over
 * values the checker could not establish would claim more than the run knows. */
static int record_derived(ma_audit *audit, int64_t run_id, const struct slot *sl, ma_error *err)
{
    const ma_check_result *res = &sl->res;
    if (!sl->checked || !sl->mapped || res->missing_child || res->unverifiable)
        return MA_OK;
    enum { DEPTHS = 1 << 14 };
    uint64_t *wins = calloc(2 * DEPTHS, sizeof *wins), *losses = wins ? wins + DEPTHS : NULL;
    uint64_t draws = 0;
    if (!wins)
        return ma_error_set(err, MA_ENOMEM, "verify: out of memory");
    ma_derived_digest dd;
    int rc = ma_derived_digest_init(&dd, err);
    size_t k = 0;
    for (uint64_t e = 0; rc == MA_OK && e < res->entries; e++) {
        ma_value v;
        int known = established_value(sl, e, &k, &v);
        if (known == 0)
            continue;
        if (known < 0) {
            rc = ma_derived_digest_add(&dd, MA_DERIVED_UNKNOWN, 0, err);
            continue;
        }
        switch (v.outcome) {
        case MA_OUTCOME_WIN: wins[v.depth & (DEPTHS - 1)]++; rc = ma_derived_digest_add(&dd, MA_DERIVED_WIN, v.depth, err); break;
        case MA_OUTCOME_LOSS: losses[v.depth & (DEPTHS - 1)]++; rc = ma_derived_digest_add(&dd, MA_DERIVED_LOSS, v.depth, err); break;
        default: draws++; rc = ma_derived_digest_add(&dd, MA_DERIVED_DRAW, 0, err); break;
        }
    }
    char hex[MA_DERIVED_DIGEST_HEX_LEN + 1];
    uint64_t positions = 0;
    if (rc == MA_OK)
        rc = ma_derived_digest_final(&dd, hex, &positions, err);
    else
        ma_derived_digest_abort(&dd);
    if (rc == MA_OK)
        rc = ma_audit_sector_digest_set(audit, run_id, sl->name, hex, positions, err);
    if (rc == MA_OK) {
        ma_histogram_bin *bins = malloc((2 * DEPTHS + 1) * sizeof *bins);
        size_t n = 0;
        if (!bins) {
            free(wins);
            return ma_error_set(err, MA_ENOMEM, "verify: out of memory");
        }
        for (uint32_t d = 0; d < DEPTHS; d++) {
            if (wins[d])
                bins[n++] = (ma_histogram_bin){"win", d, wins[d]};
            if (losses[d])
                bins[n++] = (ma_histogram_bin){"loss", d, losses[d]};
        }
        if (draws)
            bins[n++] = (ma_histogram_bin){"draw", 0, draws};
        rc = ma_audit_sector_histogram_set(audit, run_id, sl->name, bins, n, err);
        free(bins);
    }
    free(wins);
    return rc;
}

/* Records the manifest of the bytes this run read: every sector file it mapped, checked or used
 * as a child, so a report always names exactly what was verified. */
static int record_manifest(struct run *r, ma_audit *audit, int64_t run_id, ma_error *err)
{
    const char **paths = calloc(r->n_slots ? r->n_slots : 1, sizeof *paths);
    if (!paths)
        return ma_error_set(err, MA_ENOMEM, "verify: out of memory");
    size_t n = 0;
    for (size_t i = 0; i < r->n_slots; i++)
        if (r->slots[i].mapped)
            paths[n++] = r->slots[i].path;
    int rc = ma_cli_record_read_files(audit, run_id, r->dir, paths, n, err);
    free(paths);
    return rc;
}

static int record_audit(struct run *r, ma_audit *audit, int64_t run_id, struct slot **order,
                        size_t n_order, size_t max_rows, ma_error *err)
{
    for (size_t i = 0; i < n_order; i++) {
        struct slot *sl = order[i];
        ma_class_count cc[MA_CHECK_CLASSES];
        size_t ncc = 0;
        if (sl->checked)
            for (int c = 0; c < MA_CHECK_CLASSES; c++)
                if (sl->res.by_class[c]) {
                    cc[ncc].cls = ma_check_class_name(c);
                    cc[ncc++].count = sl->res.by_class[c];
                }
        ma_sector_result sr;
        memset(&sr, 0, sizeof sr);
        sr.sector = sl->name;
        sr.file = sl->path;
        if (sl->checked) {
            sr.entries = sl->res.entries;
            sr.checked = sl->res.checked;
            sr.verified = sl->res.verified;
            sr.discrepancies = sl->res.discrepancies;
            sr.seconds = sl->res.seconds;
        }
        sr.classes = cc;
        sr.n_classes = ncc;
        sr.status = sl->status ? sl->status : "unusable";
        sr.message = sl->message[0] ? sl->message : NULL;
        int rc = ma_audit_sector_record(audit, run_id, &sr, err);
        if (rc == MA_OK)
            rc = record_derived(audit, run_id, sl, err);
        if (rc)
            return rc;
        size_t nrows;
        ma_check_item *rows = report_rows(sl, max_rows, &nrows);
        if (!nrows) {
            free(rows);
            continue;
        }
        ma_discrepancy *d = calloc(nrows, sizeof *d);
        char (*text)[3][96] = calloc(nrows, sizeof *text);
        if (!d || !text) {
            free(rows);
            free(d);
            free(text);
            return ma_error_set(err, MA_ENOMEM, "verify: out of memory");
        }
        for (size_t k = 0; k < nrows; k++) {
            ma_board b = ma_open_index_unrank(r->ix, sl->sector.w, sl->sector.b, rows[k].entry);
            ma_board_format(b, text[k][0], sizeof text[k][0]);
            format_stored(rows[k].stored, text[k][1], sizeof text[k][1]);
            format_derived(&rows[k], text[k][2], sizeof text[k][2]);
            d[k].sector = sl->name;
            d[k].entry = rows[k].entry;
            d[k].board = text[k][0];
            d[k].stored = text[k][1];
            d[k].derived = text[k][2];
            d[k].cls = ma_check_class_name(rows[k].cls);
        }
        rc = ma_audit_discrepancies_add(audit, run_id, d, nrows, err);
        free(rows);
        free(d);
        free(text);
        if (rc)
            return rc;
    }
    return record_manifest(r, audit, run_id, err);
}

/* Text and JSON name a discrepancy row by the same board and values, so both read it here. */
static void describe_row(const struct run *r, const struct slot *sl, const ma_check_item *it,
                         char board[96], char stored[48], char derived[48])
{
    ma_board b = ma_open_index_unrank(r->ix, sl->sector.w, sl->sector.b, it->entry);
    ma_board_format(b, board, 96);
    format_stored(it->stored, stored, 48);
    format_derived(it, derived, 48);
}

static void print_text(struct run *r, struct slot **order, size_t n_order, double seconds)
{
    uint64_t t_entries = 0, t_checked = 0, t_verified = 0, t_disc = 0, t_roots = 0, t_prop = 0,
             t_missing = 0, t_unver = 0, t_class[MA_CHECK_CLASSES] = {0};
    if (!r->quiet)
        printf("%-22s %12s %12s %12s %8s %7s %7s %8s %8s %8s  %s\n", "sector", "entries", "checked",
               "verified", "discrep", "roots", "propag", "missing", "unverif", "seconds", "status");
    for (size_t i = 0; i < n_order; i++) {
        struct slot *sl = order[i];
        const ma_check_result *c = &sl->res;
        if (sl->checked) {
            t_entries += c->entries;
            t_checked += c->checked;
            t_verified += c->verified;
            t_disc += c->discrepancies;
            t_roots += c->roots;
            t_prop += c->propagated;
            t_missing += c->missing_child;
            t_unver += c->unverifiable;
            for (int k = 0; k < MA_CHECK_CLASSES; k++)
                t_class[k] += c->by_class[k];
        }
        if (r->quiet)
            continue;
        if (!sl->checked) {
            printf("%-22s %12s %12s %12s %8s %7s %7s %8s %8s %8s  %s\n", sl->name, "-", "-", "-", "-",
                   "-", "-", "-", "-", "-", sl->status ? sl->status : "unusable");
            continue;
        }
        printf("%-22s %12llu %12llu %12llu %8llu %7llu %7llu %8llu %8llu %8.2f  %s\n", sl->name,
               (unsigned long long)c->entries, (unsigned long long)c->checked,
               (unsigned long long)c->verified, (unsigned long long)c->discrepancies,
               (unsigned long long)c->roots, (unsigned long long)c->propagated,
               (unsigned long long)c->missing_child, (unsigned long long)c->unverifiable, c->seconds,
               sl->status);
        if (c->discrepancies) {
            printf("  classes:");
            for (int k = 0; k < MA_CHECK_CLASSES; k++)
                if (c->by_class[k])
                    printf(" %s=%llu", ma_check_class_name(k), (unsigned long long)c->by_class[k]);
            printf("\n");
            size_t nrows;
            ma_check_item *rows = report_rows(sl, TEXT_ROWS, &nrows);
            for (size_t k = 0; k < nrows; k++) {
                char board[96], stored[48], derived[48];
                describe_row(r, sl, &rows[k], board, stored, derived);
                printf("  discrepancy %s entry %llu board %s stored %s derived %s class %s %s\n",
                       sl->name, (unsigned long long)rows[k].entry, board, stored, derived,
                       ma_check_class_name(rows[k].cls), rows[k].root ? "root" : "propagated");
            }
            if (c->n_items > nrows)
                printf("  ... %llu more discrepancies\n", (unsigned long long)(c->n_items - nrows));
            free(rows);
        }
    }
    printf("total: %zu sectors, %llu entries, %llu checked, %llu verified, %llu discrepancies "
           "(%llu root, %llu propagated), %llu missing-child, %llu unverifiable, %.2f s\n",
           n_order, (unsigned long long)t_entries, (unsigned long long)t_checked,
           (unsigned long long)t_verified, (unsigned long long)t_disc, (unsigned long long)t_roots,
           (unsigned long long)t_prop, (unsigned long long)t_missing, (unsigned long long)t_unver,
           seconds);
    if (t_disc) {
        printf("total classes:");
        for (int k = 0; k < MA_CHECK_CLASSES; k++)
            printf(" %s=%llu", ma_check_class_name(k), (unsigned long long)t_class[k]);
        printf("\n");
    }
}

static void print_json(struct run *r, struct slot **order, size_t n_order, double seconds,
                       size_t max_rows, int exit_code)
{
    uint64_t t[8] = {0};
    printf("{\"variant\": ");
    ma_cli_json_string(stdout, ma_variant_name(r->variant));
    printf(", \"directory\": ");
    ma_cli_json_string(stdout, r->dir);
    printf(", \"sectors\": [");
    for (size_t i = 0; i < n_order; i++) {
        struct slot *sl = order[i];
        const ma_check_result *c = &sl->res;
        printf("%s\n  {\"sector\": ", i ? "," : "");
        ma_cli_json_string(stdout, sl->name);
        printf(", \"file\": ");
        ma_cli_json_string(stdout, sl->path);
        printf(", \"status\": ");
        ma_cli_json_string(stdout, sl->status ? sl->status : "unusable");
        if (sl->message[0]) {
            printf(", \"message\": ");
            ma_cli_json_string(stdout, sl->message);
        }
        if (sl->checked) {
            printf(", \"entries\": %llu, \"checked\": %llu, \"canonical\": %llu, \"verified\": %llu, "
                   "\"discrepancies\": %llu, \"roots\": %llu, \"propagated\": %llu, "
                   "\"missing_child\": %llu, \"unverifiable\": %llu, \"seconds\": %.3f, \"classes\": {",
                   (unsigned long long)c->entries, (unsigned long long)c->checked,
                   (unsigned long long)c->canonical, (unsigned long long)c->verified,
                   (unsigned long long)c->discrepancies, (unsigned long long)c->roots,
                   (unsigned long long)c->propagated, (unsigned long long)c->missing_child,
                   (unsigned long long)c->unverifiable, c->seconds);
            for (int k = 0; k < MA_CHECK_CLASSES; k++)
                printf("%s\"%s\": %llu", k ? ", " : "", ma_check_class_name(k),
                       (unsigned long long)c->by_class[k]);
            printf("}, \"rows\": [");
            size_t nrows;
            ma_check_item *rows = report_rows(sl, max_rows, &nrows);
            for (size_t k = 0; k < nrows; k++) {
                char board[96], stored[48], derived[48];
                describe_row(r, sl, &rows[k], board, stored, derived);
                printf("%s{\"entry\": %llu, \"board\": \"%s\", \"stored\": \"%s\", \"derived\": \"%s\", "
                       "\"class\": \"%s\", \"root\": %s}",
                       k ? ", " : "", (unsigned long long)rows[k].entry, board, stored, derived,
                       ma_check_class_name(rows[k].cls), rows[k].root ? "true" : "false");
            }
            free(rows);
            printf("]");
            t[0] += c->entries;
            t[1] += c->checked;
            t[2] += c->verified;
            t[3] += c->discrepancies;
            t[4] += c->roots;
            t[5] += c->propagated;
            t[6] += c->missing_child;
            t[7] += c->unverifiable;
        }
        printf("}");
    }
    printf("\n], \"total\": {\"sectors\": %zu, \"entries\": %llu, \"checked\": %llu, \"verified\": %llu, "
           "\"discrepancies\": %llu, \"roots\": %llu, \"propagated\": %llu, \"missing_child\": %llu, "
           "\"unverifiable\": %llu, \"seconds\": %.3f}, \"errors\": [",
           n_order, (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2],
           (unsigned long long)t[3], (unsigned long long)t[4], (unsigned long long)t[5],
           (unsigned long long)t[6], (unsigned long long)t[7], seconds);
    for (size_t i = 0; i < r->n_errors; i++) {
        if (i)
            printf(", ");
        ma_cli_json_string(stdout, r->errors[i]);
    }
    printf("], \"exit\": %d}\n", exit_code);
}

int ma_cmd_verify(int argc, char **argv)
{
    if (ma_verify_malom_wanted(argc, argv)) /* *.sec2 / *.sec and no *.mdb in DIR */
        return ma_verify_malom(argc, argv);
    static const struct option opts[] = {
        {"sector", required_argument, NULL, 's'}, {"audit", required_argument, NULL, 'a'},
        {"max-rows", required_argument, NULL, 'm'}, {"threads", required_argument, NULL, 't'},
        {"quiet", no_argument, NULL, 'q'}, {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    struct run r;
    memset(&r, 0, sizeof r);
    char **wanted = calloc((size_t)argc + 1, sizeof *wanted);
    int n_wanted = 0;
    const char *audit_path = NULL;
    long max_rows = 1000;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1)
        threads = 1;
    if (!wanted)
        return MA_EXIT_INTERNAL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 's': wanted[n_wanted++] = optarg; break;
        case 'a': audit_path = optarg; break;
        case 'm':
            max_rows = strtol(optarg, &end, 10);
            if (*end || end == optarg || max_rows < 0) {
                fprintf(stderr, "millaudit verify: --max-rows %s: not a non-negative number\n", optarg);
                free(wanted);
                return MA_EXIT_USAGE;
            }
            break;
        case 't':
            threads = strtol(optarg, &end, 10);
            if (*end || end == optarg || threads < 1 || threads > 256) {
                fprintf(stderr, "millaudit verify: --threads %s: not a number in 1..256\n", optarg);
                free(wanted);
                return MA_EXIT_USAGE;
            }
            break;
        case 'q': r.quiet = 1; break;
        case 'j': r.json = 1; break;
        case 'h':
            usage(stdout);
            free(wanted);
            return MA_EXIT_OK;
        default:
            fprintf(stderr, "millaudit verify: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            free(wanted);
            return MA_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        free(wanted);
        return MA_EXIT_USAGE;
    }
    r.dir = argv[optind];
    size_t dl = strlen(r.dir);
    char dirbuf[4096];
    if (dl > 1 && dl < sizeof dirbuf && r.dir[dl - 1] == '/') {
        snprintf(dirbuf, sizeof dirbuf, "%s", r.dir);
        while (dl > 1 && dirbuf[dl - 1] == '/')
            dirbuf[--dl] = 0;
        r.dir = dirbuf;
    }
    double t0 = ma_now();
    ma_progress progress;
    ma_progress_start(&progress, stderr, r.quiet || r.json, "verify", 0);
    r.progress = &progress;
    ma_error err;
    ma_error_clear(&err);
    int exit_code = MA_EXIT_OK;
    ma_audit *audit = NULL;
    int64_t run_id = 0;
    struct slot **order = NULL;
    size_t n_order = 0;

    int rc = scan_directory(&r, wanted, n_wanted);
    if (rc == MA_EXIT_USAGE || rc == MA_EXIT_INTERNAL) {
        exit_code = rc;
        goto done;
    }
    if (audit_path) {
        if (ma_audit_open(&audit, audit_path, &err)) {
            add_error(&r, err.msg);
            exit_code = MA_EXIT_IO;
            goto done;
        }
        char host[256], cmdline[8192], root[PATH_MAX];
        ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, argc, argv);
        if (!realpath(r.dir, root))
            snprintf(root, sizeof root, "%s", r.dir);
        ma_run_info info = {"verify", MA_VERSION, MA_GIT_REVISION, host, cmdline, root,
                            r.variant ? ma_variant_name(r.variant) : NULL, "open"};
        if (ma_audit_run_begin(audit, &info, &run_id, &err)) {
            add_error(&r, err.msg);
            exit_code = MA_EXIT_IO;
            goto done;
        }
    }
    if (rc != MA_EXIT_OK) {
        exit_code = rc;
        goto finish;
    }
    if (ma_open_index_create(&r.ix, &err)) {
        add_error(&r, err.msg);
        exit_code = ma_exit_code_for(err.code);
        goto finish;
    }
    /* Snapshot the sectors to check (slots grow as children are added; keep indices). */
    size_t n_check = 0;
    for (size_t i = 0; i < r.n_slots; i++)
        n_check += r.slots[i].to_check;
    size_t *idx = calloc(n_check ? n_check : 1, sizeof *idx);
    if (!idx) {
        exit_code = MA_EXIT_INTERNAL;
        goto finish;
    }
    {
        struct slot **tmp = calloc(n_check ? n_check : 1, sizeof *tmp);
        if (!tmp) {
            free(idx);
            exit_code = MA_EXIT_INTERNAL;
            goto finish;
        }
        size_t k = 0;
        for (size_t i = 0; i < r.n_slots; i++)
            if (r.slots[i].to_check)
                tmp[k++] = &r.slots[i];
        qsort(tmp, n_check, sizeof *tmp, order_children_first);
        for (size_t i = 0; i < n_check; i++)
            idx[i] = (size_t)(tmp[i] - r.slots);
        free(tmp);
    }
    for (size_t i = 0; i < n_check; i++) {
        rc = verify_slot(&r, &r.slots[idx[i]], (int)threads);
        if (rc) {
            exit_code = ma_exit_code_for(rc);
            free(idx);
            goto finish;
        }
    }
    /* Roots vs propagated, now that every sector (twins included) has its discrepancy set. */
    for (size_t i = 0; i < n_check; i++) {
        struct slot *sl = &r.slots[idx[i]];
        if (!sl->checked)
            continue;
        ma_vrules rules;
        const ma_check_result *child[MA_TURN_KINDS] = {0};
        if (ma_vrules_init(&rules, r.variant, sl->sector, &err) == MA_OK)
            for (int k = 0; k < MA_TURN_KINDS; k++) {
                if (!rules.succ_exists[k])
                    continue;
                struct slot *cs = find_slot(&r, rules.succ[k]);
                if (cs && cs->checked)
                    child[k] = &cs->res;
            }
        if (ma_check_classify(&sl->res, r.ix, r.variant, child, &err)) {
            add_error(&r, err.msg);
            exit_code = ma_exit_code_for(err.code);
            free(idx);
            goto finish;
        }
    }
    order = calloc(n_check ? n_check : 1, sizeof *order);
    if (!order) {
        free(idx);
        exit_code = MA_EXIT_INTERNAL;
        goto finish;
    }
    for (size_t i = 0; i < n_check; i++)
        order[n_order++] = &r.slots[idx[i]];
    free(idx);
    {
        uint64_t disc = 0;
        for (size_t i = 0; i < n_order; i++)
            if (order[i]->checked)
                disc += order[i]->res.discrepancies;
        exit_code = disc ? MA_EXIT_MISMATCH : r.unusable ? MA_EXIT_BAD_INPUT : MA_EXIT_OK;
        if (!disc && !r.unusable)
            for (size_t i = 0; i < n_order; i++)
                if (!order[i]->checked || order[i]->res.unverifiable)
                    exit_code = MA_EXIT_BAD_INPUT;
    }

finish:
    if (audit) {
        if (order && record_audit(&r, audit, run_id, order, n_order, (size_t)max_rows, &err)) {
            add_error(&r, err.msg);
            if (exit_code == MA_EXIT_OK)
                exit_code = MA_EXIT_IO;
        }
        const char *status = exit_code == MA_EXIT_OK         ? "ok"
                             : exit_code == MA_EXIT_MISMATCH ? "discrepancies"
                             : exit_code == MA_EXIT_BAD_INPUT ? "unusable"
                                                              : "interrupted";
        if (ma_audit_run_end(audit, run_id, status, &err)) {
            add_error(&r, err.msg);
            if (exit_code == MA_EXIT_OK)
                exit_code = MA_EXIT_IO;
        }
    }
    if (r.json)
        print_json(&r, order, n_order, ma_now() - t0, (size_t)max_rows, exit_code);
    else if (order)
        print_text(&r, order, n_order, ma_now() - t0);

done:
    if (audit)
        ma_audit_close(audit);
    for (size_t i = 0; i < r.n_slots; i++) {
        if (r.slots[i].mapped)
            ma_open_file_close(&r.slots[i].file);
        ma_check_result_free(&r.slots[i].res);
    }
    free(r.slots);
    free(order);
    for (size_t i = 0; i < r.n_errors; i++)
        free(r.errors[i]);
    free(r.errors);
    if (r.ix)
        ma_open_index_free(r.ix);
    free(wanted);
    ma_progress_finish(&progress, atomic_load(&progress.done));
    return exit_code;
}
