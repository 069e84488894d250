/* verifier/run/merge: shard runs merged into one run (verifier/run/merge.h, docs/distributed.md). */
#include "verifier/run/merge.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/counts.h"
#include "common/fileio.h"
#include "verifier/formats/source.h"
#include "reports/store/audit.h"
#include "reports/store/audit_inventory.h"
#include "reports/store/audit_merge.h"
#include "reports/store/audit_run.h"
#include "reports/store/runs.h"
#include "reports/store/audit_seal.h"
#include "verifier/run/inventory.h"
#include "verifier/run/seal.h"
#include "verifier/check/rules.h"
#include "verifier/run/run_sector.h"

/* One shard store as read. */
typedef struct shard_in {
    char path[1024];
    struct stat st;
    ma_audit *a;
    ma_shard_run info;
    char options[256];         /* the run's options without the shard */
    ma_run run;                /* its manifest (files, chunks) and facts */
    char **names;              /* its sectors, sorted */
    size_t n_names;
    int interrupted;
    ma_inventory inv;          /* the inventory and plan it was planned from */
    char sealed_by[65];        /* the key its seal verified with; "" unchecked */
    int has_seal;              /* the store holds a seal of the run (checked or not) */
} shard_in;

/* One sector of the merged run. */
typedef struct msec {
    const char *name;          /* owned by its shard's names */
    int shard;                 /* index into the shards read */
    ma_variant variant;
    ma_sector sector;
    uint64_t *set;             /* the full discrepancy set */
    size_t n_set;
    uint64_t *fixed;           /* the rule-fixed roots (v6) */
    size_t n_fixed;
    int has_fixed;
} msec;

typedef struct merge_ctx {
    const ma_merge_options *opt;
    ma_merge_result *res;
    shard_in *sh;
    size_t n_sh;
    msec *secs;
    size_t n_secs;
    size_t max_rows;
    ma_format format;
    int bounds;                /* ma_format_has_bounds: missing or broken successors give bounds */
    ma_scheme_index ix;        /* the format's numbering, prepared per W as sectors need it */
    size_t uncovered;          /* planned sectors no shard recorded (missing or interrupted shards) */
} merge_ctx;

static int add_note(ma_merge_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int add_note(ma_merge_result *r, const char *fmt, ...)
{
    char buf[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **p = realloc(r->notes, (r->n_notes + 1) * sizeof *p);
    if (!p)
        return -1;
    r->notes = p;
    if (!(r->notes[r->n_notes] = strdup(buf)))
        return -1;
    r->n_notes++;
    return 0;
}

void ma_merge_result_free(ma_merge_result *r)
{
    if (!r)
        return;
    free(r->database_root);
    free(r->shards);
    free(r->missing);
    for (size_t i = 0; i < r->n_notes; i++)
        free(r->notes[i]);
    free(r->notes);
    memset(r, 0, sizeof *r);
}

/* ---- reading the shards ---- */

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

void ma_merge_shard_source(const char *text, char *path, size_t len, int64_t *run)
{
    struct stat st;
    const char *colon = strrchr(text, ':');
    *run = 0;
    if (colon && colon > text && all_digits(colon + 1) && stat(text, &st) != 0) {
        snprintf(path, len, "%.*s", (int)(colon - text), text);
        *run = strtoll(colon + 1, NULL, 10);
        if (*run <= 0)
            *run = -1; /* ":0" names no run; never "the newest" */
        return;
    }
    snprintf(path, len, "%s", text);
}

/* The run's options without the shard: what every shard of one merge must share. */
static void strip_shard(const char *options, char *out, size_t len)
{
    snprintf(out, len, "%s", options ? options : "");
    char *p = strstr(out, ",\"shard\":\"");
    if (p) {
        char *end = strchr(p + 10, '"');
        if (end)
            memmove(p, end + 1, strlen(end + 1) + 1);
    }
}

static size_t options_max_rows(const char *options)
{
    const char *p = options ? strstr(options, "\"max_rows\":") : NULL;
    return p ? (size_t)strtoull(p + 11, NULL, 10) : 1000;
}

static int shard_done(const ma_shard_run *r)
{
    return r->ended_at && r->status && strcmp(r->status, "interrupted") != 0;
}

static int open_shards(merge_ctx *c, ma_error *err)
{
    const ma_merge_options *opt = c->opt;
    c->sh = calloc(opt->n_shards, sizeof *c->sh);
    if (!c->sh)
        return ma_error_set(err, MA_ENOMEM, "merge: out of memory");
    c->n_sh = opt->n_shards;
    struct stat out_st;
    int out_exists = stat(opt->out_path, &out_st) == 0;
    for (size_t i = 0; i < c->n_sh; i++) {
        shard_in *s = &c->sh[i];
        int64_t run = 0;
        ma_merge_shard_source(opt->shards[i], s->path, sizeof s->path, &run);
        if (run < 0)
            return ma_error_set(err, MA_EINVAL, "%s: no such run: runs are numbered from 1", opt->shards[i]);
        if (stat(s->path, &s->st) != 0)
            return ma_error_set(err, MA_EMISSING, "%s: audit store does not exist", s->path);
        for (size_t j = 0; j < i; j++)
            if (c->sh[j].st.st_dev == s->st.st_dev && c->sh[j].st.st_ino == s->st.st_ino)
                return ma_error_set(err, MA_EFORMAT,
                                    "%s and %s are the same store: a shard store cannot be merged with itself",
                                    c->sh[j].path, s->path);
        if (out_exists && out_st.st_dev == s->st.st_dev && out_st.st_ino == s->st.st_ino)
            return ma_error_set(err, MA_EFORMAT,
                                "%s: the output is one of the shard stores; write the merged run into another store",
                                opt->out_path);
        int rc = ma_audit_open_readonly(&s->a, s->path, err);
        if (!rc && !run)
            rc = ma_audit_shard_run_find(s->a, &run, err);
        if (!rc)
            rc = ma_audit_shard_run_read(s->a, run, &s->info, err);
        /* with a key, nothing of the store is believed before its seal verifies over every row the
         * merge reads (docs/distributed.md "Sealing") */
        if (!rc && opt->seal_key)
            rc = ma_run_seal_check(s->a, run, opt->seal_key, s->path, s->sealed_by, err);
        if (!rc && !opt->seal_key) {
            ma_seal_row row;
            rc = ma_audit_seal_read(s->a, run, &row, &s->has_seal, err);
        }
        if (rc)
            return rc;
        if (!s->info.kind || strcmp(s->info.kind, "verify"))
            return ma_error_set(err, MA_EFORMAT, "%s: run %lld is a %s run, not a verify run", s->path,
                                (long long)run, s->info.kind ? s->info.kind : "?");
        if (s->info.shard_count < 1)
            return ma_error_set(err, MA_EFORMAT, "%s: run %lld is not a shard run (verify --shard I/N)", s->path,
                                (long long)run);
        strip_shard(s->info.options, s->options, sizeof s->options);
        s->interrupted = !shard_done(&s->info);
        if ((rc = ma_audit_run_sector_names(s->a, run, &s->names, &s->n_names, err)))
            return rc;
        if (s->info.planned_sectors >= 0 && (int64_t)s->n_names < s->info.planned_sectors)
            s->interrupted = 1;
        if ((rc = ma_run_load(s->a, run, &s->run, err)))
            return rc;
        /* the coverage proof: what the shard was planned from, checked against its own digests and
         * against the partition of its plan before anything it says is believed */
        int recorded = 0;
        if ((rc = ma_audit_inventory_read(s->a, run, &s->inv, &recorded, err)))
            return rc;
        if (!recorded)
            return ma_error_set(err, MA_EFORMAT,
                                "%s: run %lld recorded no inventory of the database (made by a millaudit before "
                                "schema 9): nothing proves which sectors it covers; verify the shard again",
                                s->path, (long long)run);
        char what[1100];
        snprintf(what, sizeof what, "%.1000s: run %lld", s->path, (long long)run);
        if ((rc = ma_inventory_verify(&s->inv, what, err)))
            return rc;
        if ((int64_t)s->inv.shard_count != s->info.shard_count)
            return ma_error_set(err, MA_EFORMAT, "%s: plan_shards: the plan has %s, the run says shard %lld/%lld",
                                what, MA_COUNT(s->inv.shard_count, "shard", "shards"), (long long)s->info.shard_index,
                                (long long)s->info.shard_count);
    }
    return MA_OK;
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Everything that makes shards not parts of one run. */
static int check_compatible(merge_ctx *c, ma_error *err)
{
    const shard_in *f = &c->sh[0];
    for (size_t i = 1; i < c->n_sh; i++) {
        const shard_in *s = &c->sh[i];
        if (!same(f->info.database_root, s->info.database_root))
            return ma_error_set(err, MA_EFORMAT,
                                "shards of different databases: %s run %lld verified %s, %s run %lld verified %s",
                                f->path, (long long)f->info.run_id, f->info.database_root ? f->info.database_root : "?",
                                s->path, (long long)s->info.run_id,
                                s->info.database_root ? s->info.database_root : "?");
        if (!same(f->info.format, s->info.format))
            return ma_error_set(err, MA_EFORMAT, "shards read different formats: %s %s, %s %s", f->path,
                                f->info.format ? f->info.format : "?", s->path, s->info.format ? s->info.format : "?");
        if (!same(f->info.tool_version, s->info.tool_version))
            return ma_error_set(err, MA_EFORMAT,
                                "shards made by different millaudit versions: %s %s, %s %s: one checker per run",
                                f->path, f->info.tool_version, s->path, s->info.tool_version);
        if (strcmp(f->options, s->options))
            return ma_error_set(err, MA_EFORMAT, "shards with different options: %s %s, %s %s", f->path, f->options,
                                s->path, s->options);
        if (f->info.shard_count != s->info.shard_count)
            return ma_error_set(err, MA_EFORMAT,
                                "shards of different partitions: %s is shard %lld/%lld, %s is shard %lld/%lld",
                                f->path, (long long)f->info.shard_index, (long long)f->info.shard_count, s->path,
                                (long long)s->info.shard_index, (long long)s->info.shard_count);
        if ((f->info.unusable_files < 0) != (s->info.unusable_files < 0))
            return ma_error_set(err, MA_EFORMAT,
                                "shards of different selections: %s and %s (one partitions named --sector "
                                "sectors, the other the whole database)",
                                f->path, s->path);
    }
    for (size_t i = 0; i < c->n_sh; i++)
        for (size_t j = 0; j < i; j++)
            if (c->sh[i].info.shard_index == c->sh[j].info.shard_index)
                return ma_error_set(err, MA_EFORMAT, "shard %lld/%lld given twice: %s run %lld and %s run %lld",
                                    (long long)c->sh[i].info.shard_index, (long long)c->sh[i].info.shard_count,
                                    c->sh[j].path, (long long)c->sh[j].info.run_id, c->sh[i].path,
                                    (long long)c->sh[i].info.run_id);
    return MA_OK;
}

typedef struct file_ref {
    const char *path, *sha256;
    size_t shard;
} file_ref;

static int cmp_file_ref(const void *x, const void *y)
{
    const file_ref *a = x, *b = y;
    int c = strcmp(a->path, b->path);
    return c ? c : (a->shard > b->shard) - (a->shard < b->shard);
}

/* Every shard planned from one inventory and one partition of it (docs/distributed.md). */
static int check_inventories(merge_ctx *c, ma_error *err)
{
    const shard_in *f = &c->sh[0];
    for (size_t i = 1; i < c->n_sh; i++) {
        const shard_in *s = &c->sh[i];
        char diff[1200];
        if (strcmp(f->inv.inventory_digest, s->inv.inventory_digest)) {
            if (!ma_inventory_diff(&f->inv, f->path, &s->inv, s->path, diff, sizeof diff))
                snprintf(diff, sizeof diff, "their inventory digests differ");
            return ma_error_set(err, MA_EFORMAT,
                                "shards planned from different inventories of the database: %s; the partition "
                                "depends on the files present, so their sectors do not cover one database: "
                                "verify every shard of the same files again",
                                diff);
        }
        if (strcmp(f->inv.plan_digest, s->inv.plan_digest) || f->inv.whole != s->inv.whole ||
            f->inv.n_plan != s->inv.n_plan) {
            const char *sector = "?";
            for (size_t k = 0; k < f->inv.n_plan && k < s->inv.n_plan; k++)
                if (strcmp(f->inv.plan[k].sector, s->inv.plan[k].sector) ||
                    f->inv.plan[k].shard != s->inv.plan[k].shard || f->inv.plan[k].entries != s->inv.plan[k].entries) {
                    sector = f->inv.plan[k].sector;
                    break;
                }
            return ma_error_set(err, MA_EFORMAT, "shards of different plans: %s and %s (first difference: sector %s)",
                                f->path, s->path, sector);
        }
    }
    return MA_OK;
}

/* Two shards that read one file must have read the same bytes. */
static int check_manifests(merge_ctx *c, ma_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_sh; i++)
        n += c->sh[i].run.n_files;
    file_ref *f = calloc(n ? n : 1, sizeof *f);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "merge: out of memory");
    size_t k = 0;
    for (size_t i = 0; i < c->n_sh; i++)
        for (size_t j = 0; j < c->sh[i].run.n_files; j++)
            f[k++] = (file_ref){c->sh[i].run.files[j].path, c->sh[i].run.files[j].sha256, i};
    qsort(f, n, sizeof *f, cmp_file_ref);
    int rc = MA_OK;
    for (size_t i = 1; i < n && rc == MA_OK; i++)
        if (!strcmp(f[i].path, f[i - 1].path) && !same(f[i].sha256, f[i - 1].sha256))
            rc = ma_error_set(err, MA_EFORMAT,
                              "manifests disagree on %s: %s read sha256 %.16s..., %s read %.16s...: the database "
                              "changed between shards",
                              f[i].path, c->sh[f[i - 1].shard].path, f[i - 1].sha256 ? f[i - 1].sha256 : "?",
                              c->sh[f[i].shard].path, f[i].sha256 ? f[i].sha256 : "?");
    free(f);
    return rc;
}

static int cmp_msec(const void *x, const void *y)
{
    return strcmp(((const msec *)x)->name, ((const msec *)y)->name);
}

/* Every recorded sector with its sets; a sector two shards recorded is refused. */
static int collect_sectors(merge_ctx *c, ma_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_sh; i++)
        n += c->sh[i].n_names;
    c->secs = calloc(n ? n : 1, sizeof *c->secs);
    if (!c->secs)
        return ma_error_set(err, MA_ENOMEM, "merge: out of memory");
    for (size_t i = 0; i < c->n_sh; i++)
        for (size_t j = 0; j < c->sh[i].n_names; j++) {
            msec *m = &c->secs[c->n_secs++];
            m->name = c->sh[i].names[j];
            m->shard = (int)i;
        }
    qsort(c->secs, c->n_secs, sizeof *c->secs, cmp_msec);
    for (size_t i = 1; i < c->n_secs; i++)
        if (!strcmp(c->secs[i].name, c->secs[i - 1].name)) {
            const shard_in *a = &c->sh[c->secs[i - 1].shard], *b = &c->sh[c->secs[i].shard];
            return ma_error_set(err, MA_EFORMAT,
                                "sector %s recorded by two shards: %s (shard %lld/%lld) and %s (shard %lld/%lld)",
                                c->secs[i].name, a->path, (long long)a->info.shard_index,
                                (long long)a->info.shard_count, b->path, (long long)b->info.shard_index,
                                (long long)b->info.shard_count);
        }
    /* every recorded sector is one the plan gives to the shard that recorded it */
    const ma_inventory *inv = &c->sh[0].inv;
    for (size_t i = 0; i < c->n_secs; i++) {
        const shard_in *s = &c->sh[c->secs[i].shard];
        const ma_plan_sector *p = ma_inventory_planned(inv, c->secs[i].name);
        if (!p)
            return ma_error_set(err, MA_EFORMAT,
                                "sector %s: %s run %lld recorded a result for it, but it is not in the plan (no file "
                                "of the inventory holds it)",
                                c->secs[i].name, s->path, (long long)s->info.run_id);
        if ((int64_t)p->shard != s->info.shard_index)
            return ma_error_set(err, MA_EFORMAT,
                                "sector %s: %s run %lld (shard %lld/%lld) recorded a result for it, but the plan "
                                "gives it to shard %u/%u",
                                c->secs[i].name, s->path, (long long)s->info.run_id, (long long)s->info.shard_index,
                                (long long)s->info.shard_count, p->shard, inv->shard_count);
    }
    /* every planned sector is recorded, or its shard is missing or interrupted (a partial merge) */
    for (size_t k = 0; k < inv->n_plan; k++) {
        const ma_plan_sector *p = &inv->plan[k];
        size_t lo = 0, hi = c->n_secs;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(c->secs[mid].name, p->sector) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < c->n_secs && !strcmp(c->secs[lo].name, p->sector))
            continue;
        c->uncovered++;
        for (size_t i = 0; i < c->n_sh; i++) {
            const shard_in *s = &c->sh[i];
            if (s->info.shard_index == (int64_t)p->shard && !s->interrupted)
                return ma_error_set(err, MA_EFORMAT,
                                    "sector %s: %s run %lld (shard %lld/%lld) ended %s without a result for it, "
                                    "though its plan gives it that sector",
                                    p->sector, s->path, (long long)s->info.run_id, (long long)s->info.shard_index,
                                    (long long)s->info.shard_count, s->info.status ? s->info.status : "?");
        }
    }
    for (size_t i = 0; i < c->n_secs; i++) {
        msec *m = &c->secs[i];
        const shard_in *s = &c->sh[m->shard];
        int named = 0;
        ma_error e;
        m->variant = MA_VARIANT_STD;
        if (ma_sector_arg_parse(m->name, &m->variant, &named, &m->sector, &e) || !named ||
            !ma_sector_valid(m->variant, m->sector))
            return ma_error_set(err, MA_EFORMAT, "%s: run %lld: sector name %s is not <variant>_W_B_WF_BF", s->path,
                                (long long)s->info.run_id, m->name);
        int rc = ma_audit_sector_discrepancy_set(s->a, s->info.run_id, m->name, &m->set, &m->n_set, err);
        if (rc == MA_OK)
            rc = ma_audit_sector_fixed_set(s->a, s->info.run_id, m->name, &m->fixed, &m->n_fixed, &m->has_fixed,
                                           err);
        if (rc)
            return rc;
    }
    return MA_OK;
}

static const msec *find_sector(const merge_ctx *c, ma_variant v, ma_sector s)
{
    char sec[16], name[40];
    ma_sector_format(s, sec, sizeof sec);
    snprintf(name, sizeof name, "%s_%s", ma_variant_name(v), sec);
    size_t lo = 0, hi = c->n_secs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int k = strcmp(c->secs[mid].name, name);
        if (!k)
            return &c->secs[mid];
        if (k < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---- reclassification ---- */

static int in_set(const uint64_t *e, size_t n, uint64_t x)
{
    ma_entry_set s = {e, n};
    return n && ma_entry_set_has(&s, x);
}

/* root[i] for every entry of m's set, by the run engine's rule over the merged sets. */
static int reclassify(merge_ctx *c, const msec *m, uint8_t *root, uint64_t *roots, uint64_t *propagated,
                      ma_error *err)
{
    ma_vrules rules;
    int rc = ma_vrules_init(&rules, m->variant, m->sector, err);
    if (rc)
        return rc;
    ma_entry_set own = {m->set, m->n_set}, child[MA_TURN_KINDS];
    const ma_entry_set *sets[MA_TURN_KINDS];
    if ((rc = ma_scheme_index_prepare(&c->ix, m->sector.w, err)))
        return rc;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        sets[k] = NULL;
        if (!rules.succ_exists[k])
            continue;
        if (ma_sector_equal(rules.succ[k], m->sector)) {
            sets[k] = &own;
            continue;
        }
        const msec *s = find_sector(c, m->variant, rules.succ[k]);
        if (!s || !s->n_set)
            continue; /* absent, unusable, in a missing shard, or without discrepancies */
        if ((rc = ma_scheme_index_prepare(&c->ix, rules.succ[k].w, err)))
            return rc;
        child[k] = (ma_entry_set){s->set, s->n_set};
        sets[k] = &child[k];
    }
    uint8_t *fixed = malloc(m->n_set);
    if (!fixed)
        return ma_error_set(err, MA_ENOMEM, "merge: out of memory");
    for (size_t i = 0; i < m->n_set; i++)
        fixed[i] = (uint8_t)in_set(m->fixed, m->n_fixed, m->set[i]);
    ma_rs_ranker rk = ma_scheme_of_index(&c->ix);
    rc = ma_rs_classify_sets(m->variant, m->sector, &rk, m->set, fixed, m->n_set, sets, root, roots, propagated,
                             err);
    free(fixed);
    return rc;
}

static size_t set_index(const msec *m, uint64_t entry)
{
    size_t lo = 0, hi = m->n_set;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->set[mid] < entry)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n_set && m->set[lo] == entry ? lo : SIZE_MAX;
}

typedef struct row_ref {
    size_t row;      /* index into the readback's rows */
    int root;
    int64_t entry;
} row_ref;

static int cmp_row_report(const void *x, const void *y)
{
    const row_ref *a = x, *b = y;
    if (a->root != b->root)
        return b->root - a->root;
    return (a->entry > b->entry) - (a->entry < b->entry);
}

static int cmp_row_entry(const void *x, const void *y)
{
    const row_ref *a = x, *b = y;
    return (a->entry > b->entry) - (a->entry < b->entry);
}

/* ---- building one sector's record ---- */

static int sector_status(const char *s)
{
    for (int k = 0; s && k <= MA_SECTOR_UNUSABLE; k++)
        if (!strcmp(s, ma_sector_status_name(k)))
            return k;
    return MA_SECTOR_UNUSABLE;
}

static int class_index(const char *name)
{
    for (int k = 0; name && k < MA_DISC_CLASSES; k++)
        if (!strcmp(name, ma_disc_class_name(k)))
            return k;
    return -1;
}

static void add_totals(ma_vrun_totals *t, const ma_sector_readback *b, uint64_t roots, uint64_t propagated)
{
    t->sectors++;
    if (sector_status(b->status) == MA_SECTOR_UNUSABLE) {
        t->sectors_unusable++;
        return;
    }
    t->sectors_checked++;
    t->entries += (uint64_t)b->entries;
    t->checked += (uint64_t)b->checked;
    t->canonical += (uint64_t)b->canonical;
    t->markers += (uint64_t)b->markers;
    t->verified += (uint64_t)b->verified;
    t->within_bounds += (uint64_t)b->within_bounds;
    t->bound_wins += (uint64_t)b->bound_wins;
    t->missing_child += (uint64_t)b->missing_child;
    t->unverifiable += (uint64_t)b->unverifiable;
    t->discrepancies += (uint64_t)b->discrepancies;
    t->roots += roots;
    t->propagated += propagated;
    t->body_digest_mismatches += b->body_digest && !strcmp(b->body_digest, "mismatch");
    for (size_t i = 0; i < b->n_classes; i++) {
        int k = class_index(b->class_name[i]);
        if (k >= 0)
            t->by_class[k] += (uint64_t)b->class_count[i];
    }
}

static const ma_run_file *manifest_file(const ma_run *run, const char *name)
{
    for (size_t i = 0; i < run->n_files; i++)
        if (run->files[i].path && !strcmp(run->files[i].path, name))
            return &run->files[i];
    return NULL;
}

#define FIELD_ERR(field, ...)                                                                                   \
    ma_error_set(err, MA_EFORMAT, "%s run %lld: sector %s: " field ": " __VA_ARGS__)

/* The counts a shard recorded for sector m, cross-checked before they are believed
 * (docs/distributed.md "What the merge checks"): every entry is verified, within bounds, a
 * discrepancy or not verified (unverifiable, or a successor missing), and nothing else; the
 * classes, the roots and propagated and the discrepancy set count the same discrepancies; the
 * status is the one these counts give; the row is backed by the file of the inventory that holds
 * the sector and, unless the file was unusable, by the same file in the shard's manifest. */
static int check_row(const merge_ctx *c, const shard_in *s, const msec *m, const ma_sector_readback *b,
                     char **in_path, char **in_sha, size_t n_in, ma_error *err)
{
    const char *sp = s->path;
    long long run = (long long)s->info.run_id;
    const char *name = m->name;
    const ma_inventory_file *f = ma_inventory_file_of(&c->sh[0].inv, name);
    if (!f && b->status && !strcmp(b->status, ma_sector_status_name(MA_SECTOR_UNUSABLE)) && b->entries == 0 &&
        !c->sh[0].inv.whole)
        return MA_OK; /* a --sector pick without a file: recorded unusable, it makes the run incomplete */
    if (!f)
        return FIELD_ERR("file", "%s, no file of the inventory holds this sector", sp, run, name,
                         b->file ? b->file : "?");
    if (strcmp(ma_path_base(b->file ? b->file : ""), f->name))
        return FIELD_ERR("file", "the result is of %s, the inventory's file of the sector is %s", sp, run, name,
                         ma_path_base(b->file ? b->file : ""), f->name);
    int64_t counts[] = {b->entries, b->checked, b->verified, b->within_bounds, b->discrepancies, b->roots,
                        b->propagated, b->missing_child, b->unverifiable};
    static const char *const count_names[] = {"entries", "checked", "verified", "within_bounds", "discrepancies",
                                              "roots", "propagated", "missing_child", "unverifiable"};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        if (counts[i] < 0)
            return FIELD_ERR("%s", "%lld is negative", sp, run, name, count_names[i], (long long)counts[i]);
    int status = sector_status(b->status);
    if (!b->status || strcmp(b->status, ma_sector_status_name(status)))
        return FIELD_ERR("status", "'%s' is no sector status", sp, run, name, b->status ? b->status : "NULL");
    /* not verified: without bounds (the open format), an unverifiable entry or one with a missing
     * successor; with bounds (Malom's), missing and broken successors are reasons an entry is only
     * within bounds (or a discrepancy), none beyond those */
    int open = !c->bounds;
    int64_t not_verified = open ? b->missing_child + b->unverifiable : 0;
    int64_t sum = b->verified + b->within_bounds + b->discrepancies + not_verified;
    if (sum != b->entries)
        return FIELD_ERR("verified",
                         "entries %lld != verified %lld + within_bounds %lld + discrepancies %lld + not verified "
                         "%lld",
                         sp, run, name, (long long)b->entries, (long long)b->verified, (long long)b->within_bounds,
                         (long long)b->discrepancies, (long long)not_verified);
    if (open && b->within_bounds)
        return FIELD_ERR("within_bounds", "%lld in an open-format sector, which has no bounds", sp, run, name,
                         (long long)b->within_bounds);
    if (b->checked != b->entries)
        return FIELD_ERR("checked", "%s of %s", sp, run, name, MA_NUM((uint64_t)b->checked),
                         MA_COUNT((uint64_t)b->entries, "entry", "entries"));
    int64_t by_class = 0;
    for (size_t i = 0; i < b->n_classes; i++)
        by_class += b->class_count[i];
    if (by_class != b->discrepancies)
        return FIELD_ERR("discrepancies", "%lld, but its classes count %lld", sp, run, name,
                         (long long)b->discrepancies, (long long)by_class);
    if (b->roots + b->propagated != b->discrepancies)
        return FIELD_ERR("roots", "%s + %s propagated != %s", sp, run, name,
                         MA_COUNT((uint64_t)b->roots, "root", "roots"), MA_NUM((uint64_t)b->propagated),
                         MA_COUNT((uint64_t)b->discrepancies, "discrepancy", "discrepancies"));
    if ((int64_t)m->n_set != b->discrepancies)
        return FIELD_ERR("discrepancies", "%lld, but the discrepancy set holds %s", sp, run, name,
                         (long long)b->discrepancies, MA_COUNT(m->n_set, "entry", "entries"));
    int mismatch = b->body_digest && !strcmp(b->body_digest, "mismatch");
    int expected = status == MA_SECTOR_UNUSABLE && b->entries == 0 ? MA_SECTOR_UNUSABLE
                   : b->discrepancies || mismatch                 ? MA_SECTOR_DISCREPANCIES
                   : b->within_bounds                             ? MA_SECTOR_WITHIN_BOUNDS
                   : (open && not_verified) || (!open && b->unverifiable) ? MA_SECTOR_INCOMPLETE
                                                                  : MA_SECTOR_OK;
    if (status != expected)
        return FIELD_ERR("status", "'%s', but its counts make it '%s'", sp, run, name, b->status,
                         ma_sector_status_name(expected));
    if (status == MA_SECTOR_UNUSABLE)
        return MA_OK; /* nothing was read of it: nothing to back */
    /* the entries are those of the file the plan counted (its size, or Malom's hash count) */
    const ma_plan_sector *p = ma_inventory_planned(&c->sh[0].inv, name);
    if (p && (uint64_t)b->entries != p->entries)
        return FIELD_ERR("entries", "%lld, but the plan counts %llu for its file %s", sp, run, name,
                         (long long)b->entries, (unsigned long long)p->entries, f->name);
    const ma_run_file *mf = manifest_file(&s->run, f->name);
    if (!mf || !mf->sha256)
        return FIELD_ERR("file", "%s is not in the shard's manifest: nothing records the bytes it was checked on",
                         sp, run, name, f->name);
    if (mf->size != (int64_t)f->size)
        return FIELD_ERR("file", "%s has %s in the shard's manifest, %s in the inventory", sp, run, name,
                         f->name, MA_COUNT((uint64_t)mf->size, "byte", "bytes"), MA_NUM(f->size));
    if (!strncmp(f->digest, "sha256:", 7) && strcmp(f->digest + 7, mf->sha256))
        return FIELD_ERR("file", "%s: the manifest's sha256 %.16s... is not the inventory's %.16s...", sp, run, name,
                         f->name, mf->sha256, f->digest + 7);
    int input = 0;
    for (size_t i = 0; i < n_in; i++)
        if (in_path[i] && !strcmp(in_path[i], f->name)) {
            input = 1;
            if (!in_sha[i] || strcmp(in_sha[i], mf->sha256))
                return FIELD_ERR("inputs", "%s: the result's input sha256 is not the manifest's", sp, run, name,
                                 f->name);
        }
    if (!input)
        return FIELD_ERR("inputs", "the result does not list its own file %s among its inputs", sp, run, name,
                         f->name);
    return MA_OK;
}

/* Every sector's counts checked (check_row) before the output is opened, so a refused merge writes
 * nothing. */
static int check_rows(const merge_ctx *c, ma_error *err)
{
    int rc = MA_OK;
    for (size_t i = 0; rc == MA_OK && i < c->n_secs; i++) {
        const msec *m = &c->secs[i];
        const shard_in *s = &c->sh[m->shard];
        ma_sector_readback b;
        char **in_path = NULL, **in_sha = NULL;
        size_t n_in = 0;
        if ((rc = ma_audit_sector_read(s->a, s->info.run_id, m->name, 0, &b, err)))
            return rc;
        rc = ma_audit_sector_inputs(s->a, s->info.run_id, m->name, &in_path, &in_sha, &n_in, err);
        if (rc == MA_OK)
            rc = check_row(c, s, m, &b, in_path, in_sha, n_in, err);
        ma_audit_inputs_free(in_path, in_sha, n_in);
        ma_sector_readback_free(&b);
    }
    return rc;
}

/* Reads sector m from its shard, reclassifies it, picks its rows and writes it into run id of out. */
static int merge_sector(merge_ctx *c, const msec *m, ma_audit *out, int64_t id, int *any_incomplete, int *any_bounds,
                        ma_error *err)
{
    const shard_in *s = &c->sh[m->shard];
    ma_sector_readback b;
    int rc = ma_audit_sector_read(s->a, s->info.run_id, m->name, SIZE_MAX, &b, err);
    if (rc)
        return rc;
    char **in_path = NULL, **in_sha = NULL;
    size_t n_in = 0;
    uint8_t *root = NULL;
    row_ref *refs = NULL, *by_entry = NULL;
    ma_disc_row *rows = NULL;
    ma_class_count *cc = NULL;
    ma_histogram_bin *bins = NULL;
    ma_input_digest *inputs = NULL;
    char *message = NULL;
    rc = ma_audit_sector_inputs(s->a, s->info.run_id, m->name, &in_path, &in_sha, &n_in, err);
    uint64_t roots = b.roots > 0 ? (uint64_t)b.roots : 0, propagated = b.propagated > 0 ? (uint64_t)b.propagated : 0;
    int reclassified = m->has_fixed && m->n_set;
    if (rc == MA_OK && reclassified) {
        if (!(root = malloc(m->n_set)))
            rc = ma_error_set(err, MA_ENOMEM, "merge: out of memory");
        else
            rc = reclassify(c, m, root, &roots, &propagated, err);
        if (rc == MA_OK && roots < (uint64_t)b.roots)
            c->res->reclassified += (uint64_t)b.roots - roots;
    }
    /* the rows: those a single run keeps (the first max_rows by root first, then entry) when the
     * shard kept them all, else the best the shard kept */
    size_t n_rows = 0, inexact = 0;
    if (rc == MA_OK) {
        refs = calloc(b.n_rows + 1, sizeof *refs);
        by_entry = calloc(b.n_rows + 1, sizeof *by_entry);
        if (!refs || !by_entry)
            rc = ma_error_set(err, MA_ENOMEM, "merge: out of memory");
    }
    if (rc == MA_OK) {
        for (size_t i = 0; i < b.n_rows; i++) {
            size_t k = reclassified ? set_index(m, (uint64_t)b.rows[i].entry) : SIZE_MAX;
            refs[i] = (row_ref){i, k != SIZE_MAX ? root[k] : b.rows[i].root > 0, b.rows[i].entry};
        }
        memcpy(by_entry, refs, b.n_rows * sizeof *refs);
        qsort(by_entry, b.n_rows, sizeof *by_entry, cmp_row_entry);
        if (reclassified) {
            /* the wanted rows: roots by entry, then propagated by entry */
            size_t want = 0;
            for (int pass = 1; pass >= 0 && !inexact; pass--)
                for (size_t i = 0; i < m->n_set && want < c->max_rows && !inexact; i++) {
                    if (root[i] != pass)
                        continue;
                    want++;
                    row_ref key = {0, 0, (int64_t)m->set[i]};
                    if (!bsearch(&key, by_entry, b.n_rows, sizeof key, cmp_row_entry))
                        inexact = 1;
                }
            qsort(refs, b.n_rows, sizeof *refs, cmp_row_report);
        }
        /* unreclassified rows stay in their recorded order (roots first already) */
        n_rows = b.n_rows < c->max_rows ? b.n_rows : c->max_rows;
        rows = calloc(n_rows + 1, sizeof *rows);
        cc = calloc(b.n_classes + 1, sizeof *cc);
        bins = calloc(b.n_bins + 1, sizeof *bins);
        inputs = calloc(n_in + 1, sizeof *inputs);
        if (!rows || !cc || !bins || !inputs)
            rc = ma_error_set(err, MA_ENOMEM, "merge: out of memory");
    }
    if (rc == MA_OK) {
        if (inexact) {
            c->res->rows_inexact++;
            add_note(c->res,
                     "sector %s: more than %s in shard %lld, some of them propagated across shards: its "
                     "rows may differ from a single run's (counts, sets and digests are exact)",
                     m->name, MA_COUNT(c->max_rows, "root", "roots"), (long long)s->info.shard_index);
        }
        const char *extra = inexact ? "rows may differ from a single run's: the shard kept the first rows of "
                                      "its own classification, and some of its roots are propagated in the "
                                      "merged run (docs/distributed.md)"
                                    : NULL;
        if (extra) {
            size_t len = (b.message ? strlen(b.message) : 0) + strlen(extra) + 4;
            if ((message = malloc(len)))
                snprintf(message, len, "%s%s%s", b.message && *b.message ? b.message : "",
                         b.message && *b.message ? "; " : "", extra);
        }
        for (size_t i = 0; i < n_rows; i++) {
            const ma_readback_row *w = &b.rows[refs[i].row];
            rows[i] = (ma_disc_row){(uint64_t)w->entry, w->offset < 0 ? 0 : (uint64_t)w->offset, w->board,
                                    w->stored, w->derived, w->cls, refs[i].root, w->move, w->successor,
                                    w->stored_outcome, w->stored_depth, w->derived_outcome, w->derived_depth,
                                    w->derived_bound};
        }
        for (size_t i = 0; i < b.n_classes; i++)
            cc[i] = (ma_class_count){b.class_name[i], (uint64_t)b.class_count[i]};
        for (size_t i = 0; i < b.n_bins; i++)
            bins[i] = (ma_histogram_bin){b.bin_outcome[i], (uint32_t)b.bin_depth[i], (uint64_t)b.bin_count[i]};
        for (size_t i = 0; i < n_in; i++)
            inputs[i] = (ma_input_digest){in_path[i], in_sha[i]};
        ma_sector_commit sc;
        memset(&sc, 0, sizeof sc);
        sc.result = (ma_sector_result){m->name, b.file, (uint64_t)b.entries, (uint64_t)b.checked,
                                       (uint64_t)b.verified, (uint64_t)b.within_bounds, (uint64_t)b.discrepancies,
                                       cc, b.n_classes, b.seconds, b.status,
                                       message ? message : (b.message && *b.message ? b.message : NULL)};
        sc.format = b.format;
        sc.canonical = (uint64_t)b.canonical;
        sc.markers = (uint64_t)b.markers;
        sc.roots = roots;
        sc.propagated = propagated;
        sc.missing_child = (uint64_t)b.missing_child;
        sc.unverifiable = (uint64_t)b.unverifiable;
        sc.bound_wins = (uint64_t)b.bound_wins;
        sc.body_digest = b.body_digest;
        sc.rows = rows;
        sc.n_rows = n_rows;
        sc.disc_entries = m->set;
        sc.n_disc_entries = m->n_set;
        if (m->has_fixed) {
            sc.fixed_entries = m->fixed;
            sc.n_fixed_entries = m->n_fixed;
        }
        sc.digest = b.digest;
        sc.digest_positions = (uint64_t)b.digest_positions;
        sc.bins = bins;
        sc.n_bins = b.n_bins;
        sc.inputs = inputs;
        sc.n_inputs = n_in;
        /* a store that refuses the merged rows (a full disk) is the output failing, not the input */
        if ((rc = ma_audit_sectors_write(out, id, &sc, 1, err)) != MA_OK && rc != MA_ENOMEM)
            c->res->output_failed = 1;
    }
    if (rc == MA_OK) {
        add_totals(&c->res->totals, &b, roots, propagated);
        int st = sector_status(b.status);
        *any_incomplete |= st == MA_SECTOR_UNUSABLE || st == MA_SECTOR_INCOMPLETE;
        *any_bounds |= st == MA_SECTOR_WITHIN_BOUNDS;
    }
    free(message);
    free(root);
    free(refs);
    free(by_entry);
    free(rows);
    free(cc);
    free(bins);
    free(inputs);
    ma_audit_inputs_free(in_path, in_sha, n_in);
    ma_sector_readback_free(&b);
    return rc;
}

/* ---- the merge ---- */

static void ctx_free(merge_ctx *c)
{
    for (size_t i = 0; c->sh && i < c->n_sh; i++) {
        shard_in *s = &c->sh[i];
        ma_audit_close(s->a);
        ma_shard_run_free(&s->info);
        ma_run_free(&s->run);
        ma_inventory_free(&s->inv);
        for (size_t k = 0; k < s->n_names; k++)
            free(s->names[k]);
        free(s->names);
    }
    free(c->sh);
    for (size_t i = 0; c->secs && i < c->n_secs; i++) {
        free(c->secs[i].set);
        free(c->secs[i].fixed);
    }
    free(c->secs);
    ma_scheme_index_free(&c->ix);
}

static int cmp_shard_in(const void *x, const void *y)
{
    const shard_in *a = x, *b = y;
    return (a->info.shard_index > b->info.shard_index) - (a->info.shard_index < b->info.shard_index);
}

/* The format the shards read (check_compatible: one for all), by its recorded name; a store of
 * before formats were recorded read the open format. */
static int format_of(merge_ctx *c, ma_error *err)
{
    const char *name = c->sh[0].info.format ? c->sh[0].info.format : "open";
    if (ma_format_parse(name, &c->format) != MA_OK)
        return ma_error_set(err, MA_EFORMAT, "%s: run %lld read format '%s', which this build does not read",
                            c->sh[0].path, (long long)c->sh[0].info.run_id, name);
    c->bounds = ma_format_has_bounds(c->format);
    return MA_OK;
}

static void copy_text(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

/* The shard indexes no store held, and the notes of a partial merge. */
static void note_partial(merge_ctx *c)
{
    ma_merge_result *res = c->res;
    for (unsigned k = 0; k < res->shard_count; k++) {
        int have = 0;
        for (size_t i = 0; i < c->n_sh; i++)
            have |= c->sh[i].info.shard_index == (int64_t)k;
        if (!have) {
            res->missing[res->n_missing++] = k;
            add_note(res, "shard %u/%u missing: no store given holds it", k, res->shard_count);
        }
    }
    res->partial = res->n_missing || res->n_interrupted;
    res->planned = c->sh[0].inv.n_plan;
    res->uncovered = c->uncovered;
    if (c->uncovered)
        add_note(res, "%s of %s of the plan have no result (their shards are missing or interrupted)",
                 MA_NUM(c->uncovered), MA_COUNT(c->sh[0].inv.n_plan, "sector", "sectors"));
    if (res->partial && !c->opt->allow_partial)
        add_note(res, "the merged run is marked incomplete (%s of %s missing, %s interrupted); "
                      "--allow-partial judges the sectors present",
                 MA_NUM(res->n_missing), MA_COUNT(res->shard_count, "shard", "shards"), MA_NUM(res->n_interrupted));
}

/* The key every shard's seal verified with, or the note that the stores were trusted as written. */
static void note_sealing(merge_ctx *c)
{
    if (c->opt->seal_key) {
        snprintf(c->res->sealed_by, sizeof c->res->sealed_by, "%s", ma_seal_key_id(c->opt->seal_key));
        return;
    }
    size_t carried = 0;
    for (size_t i = 0; i < c->n_sh; i++)
        carried += c->sh[i].has_seal != 0;
    add_note(c->res, "unsealed merge: the shard stores are trusted as written%s (--seal-key K believes only "
                     "what K vouches for; docs/distributed.md, \"Sealing\")",
             carried ? ", their seals were not checked" : "");
}

int ma_merge_runs(ma_merge_result *res, const ma_merge_options *opt, ma_error *err)
{
    memset(res, 0, sizeof *res);
    if (!opt || !opt->out_path || !opt->n_shards)
        return ma_error_set(err, MA_EINVAL, "merge: no shard store given");
    merge_ctx c;
    memset(&c, 0, sizeof c);
    c.opt = opt;
    c.res = res;
    int rc = open_shards(&c, err);
    if (rc == MA_OK)
        rc = check_compatible(&c, err);
    if (rc == MA_OK) {
        qsort(c.sh, c.n_sh, sizeof *c.sh, cmp_shard_in);
        rc = check_inventories(&c, err);
    }
    if (rc == MA_OK)
        rc = check_manifests(&c, err);
    if (rc == MA_OK)
        rc = collect_sectors(&c, err);
    if (rc == MA_OK)
        rc = format_of(&c, err);
    if (rc == MA_OK)
        rc = check_rows(&c, err);
    if (rc) {
        ctx_free(&c);
        return rc;
    }
    const shard_in *f = &c.sh[0];
    c.max_rows = options_max_rows(f->options);
    rc = ma_scheme_index_create(&c.ix, c.format, err);
    /* what the merge knows of its shards */
    res->shard_count = (unsigned)f->info.shard_count;
    if (f->info.database_root && !(res->database_root = strdup(f->info.database_root)))
        rc = ma_error_set(err, MA_ENOMEM, "merge: out of memory");
    copy_text(res->format, sizeof res->format, f->info.format);
    res->shards = calloc(c.n_sh, sizeof *res->shards);
    res->missing = calloc(res->shard_count ? res->shard_count : 1, sizeof *res->missing);
    ma_run_shard_row *rowsh = calloc(c.n_sh, sizeof *rowsh);
    const ma_run **manifests = calloc(c.n_sh, sizeof *manifests);
    if (rc == MA_OK && (!res->shards || !res->missing || !rowsh || !manifests))
        rc = ma_error_set(err, MA_ENOMEM, "merge: out of memory");
    int64_t planned = 0, unusable = -1;
    int git_mixed = 0;
    for (size_t i = 0; rc == MA_OK && i < c.n_sh; i++) {
        const shard_in *s = &c.sh[i];
        ma_merge_shard *o = &res->shards[res->n_shards++];
        copy_text(o->source, sizeof o->source, s->path);
        o->run_id = s->info.run_id;
        o->index = (unsigned)s->info.shard_index;
        o->count = (unsigned)s->info.shard_count;
        copy_text(o->host, sizeof o->host, s->info.host);
        copy_text(o->started_at, sizeof o->started_at, s->info.started_at);
        copy_text(o->ended_at, sizeof o->ended_at, s->info.ended_at);
        copy_text(o->status, sizeof o->status, s->info.status ? s->info.status : "running or killed");
        o->sectors = s->n_names;
        o->planned_sectors = s->info.planned_sectors;
        o->interrupted = s->interrupted;
        o->sealed = s->sealed_by[0] != 0;
        rowsh[i] = (ma_run_shard_row){s->info.shard_index, s->info.shard_count, s->path, s->info.run_id,
                                      s->info.host, s->info.command_line, s->info.started_at, s->info.ended_at,
                                      s->info.status, s->info.tool_version, s->info.git_revision,
                                      (int64_t)s->n_names, s->info.planned_sectors,
                                      s->sealed_by[0] ? s->sealed_by : NULL};
        manifests[i] = &s->run;
        planned = planned >= 0 && s->info.planned_sectors >= 0 ? planned + s->info.planned_sectors : -1;
        if (s->info.unusable_files > unusable)
            unusable = s->info.unusable_files;
        git_mixed |= !same(s->info.git_revision, f->info.git_revision);
        if (s->interrupted) {
            res->n_interrupted++;
            add_note(res,
                     "shard %u/%u (%s run %lld) %s: %s of %s recorded; resume it with verify DIR "
                     "--shard %u/%u --audit %s --resume, then merge again",
                     o->index, o->count, s->path, (long long)s->info.run_id,
                     s->info.ended_at ? "was interrupted" : "never ended (killed, or still running)", MA_NUM(s->n_names),
                     MA_COUNT((uint64_t)s->info.planned_sectors, "sector", "sectors"), o->index, o->count, s->path);
        }
    }
    if (rc == MA_OK)
        note_partial(&c);
    if (rc == MA_OK)
        note_sealing(&c);
    ma_merged_run mr = {f->info.tool_version, git_mixed ? "mixed" : f->info.git_revision, opt->host,
                        opt->command_line, f->info.database_root, f->info.variant, f->info.format, f->options,
                        planned, unusable, manifests, c.n_sh, rowsh, c.n_sh};
    ma_audit *out = NULL;
    int64_t id = 0;
    if (rc == MA_OK && (rc = ma_audit_open(&out, opt->out_path, err)) != MA_OK)
        res->output_failed = rc == MA_EIO;
    if (rc == MA_OK && (rc = ma_audit_merged_run_begin(out, &mr, &id, err)) != MA_OK)
        res->output_failed = 1;
    /* the merged run carries the proof it was checked against: the shards' one inventory and plan */
    if (rc == MA_OK && (rc = ma_audit_inventory_write(out, id, &c.sh[0].inv, 1, err)) != MA_OK) {
        res->output_failed = 1;
        ma_audit_merged_run_abort(out);
        id = 0;
    }
    int incomplete = 0, bounds = 0;
    for (size_t i = 0; rc == MA_OK && i < c.n_secs; i++) {
        if (opt->cancel && *opt->cancel) {
            rc = ma_error_set(err, MA_ECANCELED, "%s: interrupted by signal %d: the merged run is rolled back",
                              opt->out_path, (int)*opt->cancel);
            break;
        }
        rc = merge_sector(&c, &c.secs[i], out, id, &incomplete, &bounds, err);
    }
    if (rc == MA_OK) {
        const ma_vrun_totals *t = &res->totals;
        int whole = unusable >= 0;
        /* the totals are recomputed from the rows; cross-checked once more as a whole */
        uint64_t not_verified = c.bounds ? 0 : t->missing_child + t->unverifiable;
        if (t->verified + t->within_bounds + t->discrepancies + not_verified != t->entries)
            rc = ma_error_set(err, MA_EINTERNAL, "merge: totals: entries %llu != verified + within bounds + "
                              "discrepancies + not verified", (unsigned long long)t->entries);
        /* "verified" only when every sector of the plan has its result (never for a partial merge,
         * even with --allow-partial, which only lets the sectors present show their discrepancies) */
        if (res->partial && !opt->allow_partial)
            res->verdict = MA_VERDICT_INCOMPLETE;
        else if (t->discrepancies || t->body_digest_mismatches)
            res->verdict = MA_VERDICT_DISCREPANCIES;
        else if (incomplete || c.uncovered || res->partial || c.sh[0].inv.n_plan == 0 ||
                 t->sectors != c.sh[0].inv.n_plan || (whole && unusable > 0))
            res->verdict = MA_VERDICT_INCOMPLETE;
        else
            res->verdict = bounds ? MA_VERDICT_WITHIN_BOUNDS : MA_VERDICT_VERIFIED;
    }
    if (rc == MA_OK) {
        int whole = unusable >= 0;
        if (whole && unusable > 0)
            add_note(res, "%s of the database could not be used (the shards' runs list them)",
                     MA_COUNT((uint64_t)unusable, "file", "files"));
        const char *status = ma_verdict_status(res->verdict);
        if ((rc = ma_audit_merged_run_finish(out, id, &mr, status, err)) != MA_OK)
            res->output_failed = 1;
    } else if (out && id) {
        ma_audit_merged_run_abort(out);
    }
    if (rc == MA_OK)
        res->run_id = id;
    ma_audit_close(out);
    free(rowsh);
    free(manifests);
    ctx_free(&c);
    return rc;
}
