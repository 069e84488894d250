/* verifier/run/run: the run engine (phases in verifier/run/run.h, rules in docs/runs.md). */
#include "verifier/run/run.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checksums/manifest.h"
#include "verifier/run/manifest_record.h"
#include "checksums/sha256.h"
#include "common/fileio.h"
#include "verifier/formats/open_file.h"
#include "reports/store/audit_inventory.h"
#include "reports/store/audit.h"
#include "reports/store/audit_run.h"
#include "verifier/check/rules.h"
#include "verifier/run/run_sector.h"
#include "verifier/run/inventory.h"
#include "verifier/run/shard.h"
#include "ma_version.h"

static const char *const class_names[MA_DISC_CLASSES] = {
    "wrong-outcome", "wrong-depth", "wrong-draw-class", "wrong-terminal", "bad-encoding",
    "symmetry-inconsistency"};

const char *ma_disc_class_name(int cls)
{
    return cls >= 0 && cls < MA_DISC_CLASSES ? class_names[cls] : "unknown";
}

static int disc_class_parse(const char *name)
{
    for (int c = 0; name && c < MA_DISC_CLASSES; c++)
        if (!strcmp(name, class_names[c]))
            return c;
    return -1;
}

const char *ma_sector_status_name(int status)
{
    static const char *const names[] = {"ok", "within-bounds", "discrepancies", "incomplete",
                                        "unusable", "not-checked"};
    return status >= 0 && status <= MA_SECTOR_NOT_CHECKED ? names[status] : "unusable";
}

static int sector_status_parse(const char *s)
{
    for (int k = 0; s && k <= MA_SECTOR_NOT_CHECKED; k++)
        if (!strcmp(s, ma_sector_status_name(k)))
            return k;
    return MA_SECTOR_UNUSABLE;
}

/* A sector the run knows: one to check, or the successor of one. */
typedef struct node {
    ma_vrun_sector pub;
    const ma_db_sector *dbs;      /* NULL: the database has no such file */
    int selected;
    int succ[MA_TURN_KINDS];      /* node of each turn kind's successor sector, -1 none */
    int unit;                     /* selected nodes: their unit */
    int last_use;                 /* the last unit that reads this node's file */
    int done;                     /* checked or carried over in this run: set is valid */
    uint64_t *set;                /* every discrepancy entry, sorted */
    size_t n_set;
    uint64_t *fixed;              /* the entries of set that are roots by rule (to record) */
    size_t n_fixed;
    size_t n_stored_rows;         /* rows to record: pub.n_rows, or more for a shard run whose
                                   * classification a merge may change (docs/distributed.md) */
    char sha256[65];              /* when hashed; "" if absent */
    uint64_t planned_entries;     /* selected nodes: entries of the file, as planned */
    char mapped_sha[65];          /* runs without a store: the digest of the file before it was
                                   * first opened (hash_before_open; "" while not opened, or when
                                   * the path could not be hashed) */
    int opened;                   /* node_source got it from the reader once */
    int hashed;                   /* hash_before_open (alone or with a unit's other files) ran for it,
                                   * whatever it found, and never runs again */
    int seen_unit;                /* the last unit whose snapshot check hashed this node, -1 none */
    int changed;                  /* that check found its mapping differs from the digest expected */
    char changed_msg[1024];
    int t_index, t_low, t_on;     /* Tarjan */
} node;

struct ma_vrun {
    ma_vrun_options opt;          /* as given, with the defaults filled in */
    ma_vrun_test_hooks hooks;     /* test builds only (ma_vrun_set_test_hooks) */
    int executed;                 /* ma_vrun_execute ran: a run does its work once */
    const char *phase;
    ma_database *db;
    char root[PATH_MAX + 1];      /* realpath of the root, as recorded */
    node *nodes;
    size_t n_nodes, cap_nodes;
    int *order;                   /* selected nodes, children first */
    size_t n_order;
    int *unit_of_pos;             /* unit index of order[i] */
    size_t n_units;
    char secval_sha[4][65];       /* per variant; "" absent */
    int whole;                    /* every sector of the database selected */
    ma_vrun_totals totals;
    char **errors;
    size_t n_errors;
    ma_audit *audit;
    int64_t run_id, resumed_from;
    int record_failed;
    ma_verdict_state verdict;
    int started;
    double t0, seconds;
    char options[192];
    char *selection;              /* "all" or "sectors:" and the selected names (docs/runs.md) */
    uint64_t planned_entries;
    int t_counter;
    int *t_stack;
    size_t t_sp;
    ma_inventory inv;             /* what the run was planned from (recorded runs, docs/runs.md) */
    size_t n_domain;              /* sectors the plan partitioned (the whole database or the picks) */
};

static void add_error(ma_vrun *r, const char *msg)
{
    for (size_t i = 0; i < r->n_errors; i++)
        if (!strcmp(r->errors[i], msg))
            return; /* one file, one line, however many parents met it */
    char **p = realloc(r->errors, (r->n_errors + 1) * sizeof *p);
    if (!p)
        return;
    r->errors = p;
    if ((r->errors[r->n_errors] = strdup(msg)))
        r->n_errors++;
}

/* Records a failure to write the store: the run goes on, the exit status will say 4. */
static void record_failure(ma_vrun *r, const ma_error *e)
{
    r->record_failed = 1;
    add_error(r, e->msg);
}

/* The options with every zero (default) field given its value, as the run uses and reports them. */
static int resolve_options(ma_vrun_options *o, ma_error *err)
{
    if (o->threads < 0)
        return ma_error_set(err, MA_EINVAL, "threads %d: expected 0 (every online CPU) or more",
                            o->threads);
    if (o->threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->threads = n < 1 ? 1 : n > 256 ? 256 : (int)n;
    }
    if (o->full_board_draw != MA_DEFAULT && o->full_board_draw != MA_YES && o->full_board_draw != MA_NO)
        return ma_error_set(err, MA_EINVAL, "full_board_draw %d: expected 0 (default), MA_YES or MA_NO",
                            o->full_board_draw);
    o->full_board_draw = o->full_board_draw != MA_NO;
    o->max_rows = o->max_rows == MA_KEEP_NONE ? 0 : o->max_rows ? o->max_rows : MA_VRUN_DEFAULT_ROWS;
    if (!o->tool_version)
        o->tool_version = MA_VERSION;
    if (!o->git_revision)
        o->git_revision = MA_GIT_REVISION;
    return MA_OK;
}

int ma_vrun_create(ma_vrun **out, const ma_vrun_options *opt, ma_error *err)
{
    *out = NULL;
    if (!opt || !opt->root)
        return ma_error_set(err, MA_EINVAL, "no database given (root)");
    if (opt->mode != MA_VRUN_FULL && !opt->audit_path)
        return ma_error_set(err, MA_EINVAL, "a %s run needs an audit store (audit_path: the store holds "
                                            "what is carried over)",
                            opt->mode == MA_VRUN_RESUME ? "resumed" : "incremental");
    if (opt->shard_count > 1 && opt->shard_index >= opt->shard_count)
        return ma_error_set(err, MA_EINVAL, "shard %u of %u does not exist", opt->shard_index,
                            opt->shard_count);
    ma_vrun_options o = *opt;
    int rc = resolve_options(&o, err);
    if (rc)
        return rc;
    ma_vrun *r = calloc(1, sizeof *r);
    if (!r)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    r->opt = o;
    r->phase = "scan";
    r->verdict = MA_VERDICT_INCOMPLETE;
    /* a shard's results are carried over only into runs of the same shard: its root/propagated
     * split saw only its own sectors' discrepancy sets (docs/distributed.md) */
    if (o.shard_count > 1)
        snprintf(r->options, sizeof r->options,
                 "{\"max_rows\":%zu,\"full_board_draw\":%s,\"shard\":\"%u/%u\"}", o.max_rows,
                 o.full_board_draw ? "true" : "false", o.shard_index, o.shard_count);
    else
        snprintf(r->options, sizeof r->options, "{\"max_rows\":%zu,\"full_board_draw\":%s}",
                 o.max_rows, o.full_board_draw ? "true" : "false");
    *out = r;
    return MA_OK;
}

void ma_vrun_set_test_hooks(ma_vrun *r, const ma_vrun_test_hooks *h)
{
    if (r && h)
        r->hooks = *h;
}

static void free_sector_pub(ma_vrun_sector *s)
{
    free((char *)s->path);
    s->path = NULL;
    free(s->rows);
    free(s->bins);
    free(s->inputs);
    s->rows = NULL;
    s->bins = NULL;
    s->inputs = NULL;
}

void ma_vrun_free(ma_vrun *r)
{
    if (!r)
        return;
    ma_inventory_free(&r->inv);
    for (size_t i = 0; i < r->n_nodes; i++) {
        free_sector_pub(&r->nodes[i].pub);
        free(r->nodes[i].set);
        free(r->nodes[i].fixed);
    }
    free(r->nodes);
    free(r->order);
    free(r->unit_of_pos);
    free(r->t_stack);
    free(r->selection);
    for (size_t i = 0; i < r->n_errors; i++)
        free(r->errors[i]);
    free(r->errors);
    if (r->audit)
        ma_audit_close(r->audit);
    ma_database_close(r->db);
    free(r);
}

/* ---- plan ---- */

static int find_node(const ma_vrun *r, ma_variant v, ma_sector s)
{
    for (size_t i = 0; i < r->n_nodes; i++)
        if (r->nodes[i].pub.variant == v && ma_sector_equal(r->nodes[i].pub.sector, s))
            return (int)i;
    return -1;
}

static int add_node(ma_vrun *r, ma_variant v, ma_sector s, int *idx, ma_error *err)
{
    int i = find_node(r, v, s);
    if (i >= 0) {
        *idx = i;
        return MA_OK;
    }
    if (r->n_nodes == r->cap_nodes) {
        size_t cap = r->cap_nodes ? 2 * r->cap_nodes : 64;
        node *p = realloc(r->nodes, cap * sizeof *p);
        if (!p)
            return ma_error_set(err, MA_ENOMEM, "out of memory");
        r->nodes = p;
        r->cap_nodes = cap;
    }
    node *n = &r->nodes[r->n_nodes];
    memset(n, 0, sizeof *n);
    n->pub.variant = v;
    n->pub.sector = s;
    char sec[16];
    ma_sector_format(s, sec, sizeof sec);
    snprintf(n->pub.name, sizeof n->pub.name, "%s_%s", ma_variant_name(v), sec);
    n->dbs = ma_database_find(r->db, v, s);
    char path[4352];
    if (n->dbs)
        snprintf(path, sizeof path, "%s", n->dbs->path);
    else
        snprintf(path, sizeof path, "%.4000s/%s%s", ma_database_dir(r->db), n->pub.name,
                 ma_format_suffix(ma_database_format(r->db) ? ma_database_format(r->db) : MA_FORMAT_OPEN));
    if (!(n->pub.path = strdup(path)))
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    for (int k = 0; k < MA_TURN_KINDS; k++)
        n->succ[k] = -1;
    n->unit = -1;
    n->last_use = -1;
    n->seen_unit = -1;
    n->pub.body_digest = -1;
    *idx = (int)r->n_nodes++;
    return MA_OK;
}



/* The sectors --sector names (variant from the text or from the database). */
static int select_named(ma_vrun *r, ma_error *err)
{
    unsigned variants = ma_database_variants(r->db);
    for (size_t i = 0; i < r->opt.n_sectors; i++) {
        const char *text = r->opt.sectors[i];
        ma_variant v = MA_VARIANT_STD;
        int named;
        ma_sector s;
        ma_error e;
        if (ma_sector_arg_parse(text, &v, &named, &s, &e))
            return ma_error_set(err, MA_EINVAL, "sector %s", e.msg);
        if (!named) {
            int count = __builtin_popcount(variants);
            if (count > 1)
                return ma_error_set(err, MA_EINVAL,
                                    "sector %s: the database holds sectors of several "
                                    "variants; name one, e.g. std_%s",
                                    text, text);
            for (int k = 1; k <= 3; k++)
                if (variants >> k & 1)
                    v = (ma_variant)k;
        }
        if (!ma_sector_valid(v, s)) {
            char sec[16];
            ma_sector_format(s, sec, sizeof sec);
            return ma_error_set(err, MA_EINVAL, "sector %s: %s is not a valid %s sector",
                                text, sec, ma_variant_name(v));
        }
        int idx, rc = add_node(r, v, s, &idx, err);
        if (rc)
            return rc;
        r->nodes[idx].selected = 1;
    }
    return MA_OK;
}

static void tarjan(ma_vrun *r, int v, int *unit_counter)
{
    node *n = &r->nodes[v];
    n->t_index = n->t_low = ++r->t_counter;
    r->t_stack[r->t_sp++] = v;
    n->t_on = 1;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        int w = r->nodes[v].succ[k];
        if (w < 0 || !r->nodes[w].selected)
            continue;
        if (!r->nodes[w].t_index) {
            tarjan(r, w, unit_counter);
            if (r->nodes[w].t_low < r->nodes[v].t_low)
                r->nodes[v].t_low = r->nodes[w].t_low;
        } else if (r->nodes[w].t_on && r->nodes[w].t_index < r->nodes[v].t_low) {
            r->nodes[v].t_low = r->nodes[w].t_index;
        }
    }
    if (r->nodes[v].t_low == r->nodes[v].t_index) {
        /* an SCC is complete: it is a unit, and every unit it reaches is already numbered */
        int u = (*unit_counter)++;
        int w;
        do {
            w = r->t_stack[--r->t_sp];
            r->nodes[w].t_on = 0;
            r->nodes[w].unit = u;
        } while (w != v);
    }
}

static int cmp_children_first(const void *a, const void *b)
{
    const node *x = *(const node *const *)a, *y = *(const node *const *)b;
    if (x->unit != y->unit)
        return x->unit - y->unit;
    return strcmp(x->pub.name, y->pub.name);
}

/* Orders sectors the old way (fewer stones first, then placement later, then name) so the DFS
 * below numbers units deterministically, whatever order the directory listed them in. */
static int cmp_stones(const void *a, const void *b)
{
    const node *x = *(const node *const *)a, *y = *(const node *const *)b;
    if (x->pub.variant != y->pub.variant)
        return (int)x->pub.variant - (int)y->pub.variant;
    int tx = x->pub.sector.w + x->pub.sector.b + x->pub.sector.wf + x->pub.sector.bf;
    int ty = y->pub.sector.w + y->pub.sector.b + y->pub.sector.wf + y->pub.sector.bf;
    if (tx != ty)
        return tx - ty;
    int hx = x->pub.sector.wf + x->pub.sector.bf, hy = y->pub.sector.wf + y->pub.sector.bf;
    if (hx != hy)
        return hx - hy;
    return strcmp(x->pub.name, y->pub.name);
}

static uint64_t entries_estimate(const node *nd, ma_format f);

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int plan(ma_vrun *r, ma_error *err)
{
    r->phase = "plan";
    int rc = MA_OK;
    if (r->opt.n_sectors) {
        rc = select_named(r, err);
    } else {
        r->whole = r->opt.shard_count <= 1;
        for (size_t i = 0; rc == MA_OK && i < ma_database_count(r->db); i++) {
            const ma_db_sector *s = ma_database_sector(r->db, i);
            int idx;
            rc = add_node(r, s->variant, s->sector, &idx, err);
            if (rc == MA_OK)
                r->nodes[idx].selected = 1;
        }
    }
    if (rc)
        return rc;
    /* the plan's domain, as the coverage proof records it: every sector with its entry count and
     * shard (0 without sharding) */
    r->n_domain = r->n_nodes;
    r->inv.shard_count = r->opt.shard_count > 1 ? r->opt.shard_count : 1;
    r->inv.whole = !r->opt.n_sectors;
    ma_shard_item *items = calloc(r->n_nodes ? r->n_nodes : 1, sizeof *items);
    if (!items)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->n_nodes; i++) {
        const node *nd = &r->nodes[i];
        items[i] = (ma_shard_item){nd->pub.variant, nd->pub.sector, nd->pub.name,
                                   entries_estimate(nd, ma_database_format(r->db)), 0, 0};
    }
    if (r->opt.shard_count > 1) {
        /* every process computes the same shards from the sector names and entry counts alone */
        rc = ma_shard_partition(items, r->n_nodes, r->opt.shard_count, err);
        for (size_t i = 0; rc == MA_OK && i < r->n_nodes; i++)
            r->nodes[i].selected = items[i].shard == r->opt.shard_index;
    }
    for (size_t i = 0; rc == MA_OK && i < r->n_nodes; i++) {
        ma_plan_sector p;
        memset(&p, 0, sizeof p);
        snprintf(p.sector, sizeof p.sector, "%s", items[i].name);
        p.entries = items[i].entries;
        p.shard = items[i].shard;
        rc = ma_inventory_add_plan(&r->inv, &p, err);
    }
    free(items);
    if (rc)
        return rc;
    /* successors of every selected sector (they may add nodes that are only read) */
    size_t n_sel = r->n_nodes;
    for (size_t i = 0; i < n_sel; i++) {
        if (!r->nodes[i].selected)
            continue;
        ma_vrules rules;
        if ((rc = ma_vrules_init(&rules, r->nodes[i].pub.variant, r->nodes[i].pub.sector, err)))
            return rc;
        for (int k = 0; k < MA_TURN_KINDS; k++) {
            if (!rules.succ_exists[k])
                continue;
            int idx;
            if ((rc = add_node(r, r->nodes[i].pub.variant, rules.succ[k], &idx, err)))
                return rc;
            r->nodes[i].succ[k] = idx;
        }
    }
    /* units: strongly connected sets of selected sectors (twins), children first */
    int *sel = malloc((r->n_nodes ? r->n_nodes : 1) * sizeof *sel);
    r->t_stack = malloc((r->n_nodes ? r->n_nodes : 1) * sizeof *r->t_stack);
    if (!sel || !r->t_stack) {
        free(sel);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    node **ptr = malloc((r->n_nodes ? r->n_nodes : 1) * sizeof *ptr);
    if (!ptr) {
        free(sel);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    size_t ns = 0;
    for (size_t i = 0; i < r->n_nodes; i++)
        if (r->nodes[i].selected)
            ptr[ns++] = &r->nodes[i];
    qsort(ptr, ns, sizeof *ptr, cmp_stones);
    int units = 0;
    for (size_t i = 0; i < ns; i++)
        if (!ptr[i]->t_index)
            tarjan(r, (int)(ptr[i] - r->nodes), &units);
    qsort(ptr, ns, sizeof *ptr, cmp_children_first);
    for (size_t i = 0; i < ns; i++)
        sel[i] = (int)(ptr[i] - r->nodes);
    free(ptr);
    r->order = sel;
    r->n_order = ns;
    r->n_units = (size_t)units;
    r->unit_of_pos = malloc((ns ? ns : 1) * sizeof *r->unit_of_pos);
    if (!r->unit_of_pos)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    /* what the run sets out to check: its entries (the total an interrupted run is measured
     * against) and the selection a --resume must repeat, named by sector, not by spelling */
    size_t sel_len = sizeof "sectors:";
    for (size_t i = 0; i < ns; i++) {
        node *n = &r->nodes[sel[i]];
        n->planned_entries = entries_estimate(n, ma_database_format(r->db));
        r->planned_entries += n->planned_entries;
        sel_len += strlen(n->pub.name) + 1;
    }
    if (!(r->selection = malloc(sel_len)))
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    if (!r->opt.n_sectors) {
        snprintf(r->selection, sel_len, "all");
    } else {
        const char **names = malloc((ns ? ns : 1) * sizeof *names);
        if (!names)
            return ma_error_set(err, MA_ENOMEM, "out of memory");
        for (size_t i = 0; i < ns; i++)
            names[i] = r->nodes[sel[i]].pub.name;
        qsort(names, ns, sizeof *names, cmp_names);
        strcpy(r->selection, "sectors:");
        for (size_t i = 0; i < ns; i++) {
            if (i)
                strcat(r->selection, ",");
            strcat(r->selection, names[i]);
        }
        free(names);
    }
    for (size_t i = 0; i < ns; i++) {
        node *n = &r->nodes[sel[i]];
        r->unit_of_pos[i] = n->unit;
        if (n->unit > n->last_use)
            n->last_use = n->unit;
        for (int k = 0; k < MA_TURN_KINDS; k++)
            if (n->succ[k] >= 0 && n->unit > r->nodes[n->succ[k]].last_use)
                r->nodes[n->succ[k]].last_use = n->unit;
    }
    return MA_OK;
}

/* ---- hash: the run's manifest and each sector's inputs ---- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The inventory's files (docs/runs.md "The coverage proof"): every sector file with its size and
 * the SHA-256 of its bytes, every file discovery could not use. Every sector file's index in
 * r->inv.files goes into need_sha: the caller hashes them in the same batch as the files the run
 * reads, so no file is hashed twice. Not the body digest an open header claims: a body rewritten
 * under a stale header would keep the claim, and shards planned before and after the change would
 * look planned from one database. */
static int inventory_files(ma_vrun *r, size_t *need_sha, size_t *n_need, ma_error *err)
{
    *n_need = 0;
    int rc = MA_OK;
    for (size_t i = 0; rc == MA_OK && i < ma_database_count(r->db); i++) {
        const ma_db_sector *s = ma_database_sector(r->db, i);
        ma_inventory_file f;
        memset(&f, 0, sizeof f);
        snprintf(f.name, sizeof f.name, "%.255s", s->file[0] ? s->file : base_name(s->path));
        snprintf(f.sector, sizeof f.sector, "%s", s->name);
        struct stat st;
        if (stat(s->path, &st) == 0)
            f.size = (uint64_t)st.st_size;
        snprintf(f.digest, sizeof f.digest, "sha256:!"); /* replaced by the hash below */
        need_sha[(*n_need)++] = r->inv.n_files;
        rc = ma_inventory_add_file(&r->inv, &f, err);
    }
    for (size_t i = 0; rc == MA_OK && i < ma_database_unusable_count(r->db); i++) {
        const ma_db_unusable *u = ma_database_unusable(r->db, i);
        ma_inventory_file f;
        memset(&f, 0, sizeof f);
        snprintf(f.name, sizeof f.name, "%.255s", base_name(u->path));
        int listed = 0; /* a sector file discovery found unusable (a dangling link) is listed once */
        for (size_t k = 0; k < r->inv.n_files && !listed; k++)
            listed = !strcmp(r->inv.files[k].name, f.name);
        if (listed)
            continue;
        struct stat st;
        if (stat(u->path, &st) == 0)
            f.size = (uint64_t)st.st_size;
        snprintf(f.digest, sizeof f.digest, "unusable");
        rc = ma_inventory_add_file(&r->inv, &f, err);
    }
    return rc;
}

/* Each selected sector's inputs: its file, its successors' files (or their absence), and for
 * .sec2 the sector values; sorted by name so equal inputs compare equal. */
static int sector_inputs(ma_vrun *r, ma_error *err)
{
    for (size_t i = 0; i < r->n_order; i++) {
        node *nd = &r->nodes[r->order[i]];
        ma_vrun_input *in = calloc(MA_TURN_KINDS + 2, sizeof *in);
        if (!in)
            return ma_error_set(err, MA_ENOMEM, "out of memory");
        size_t k = 0;
        int members[MA_TURN_KINDS + 1];
        int nm = 0;
        members[nm++] = r->order[i];
        for (int t = 0; t < MA_TURN_KINDS; t++) {
            int c = nd->succ[t], dup = 0;
            for (int j = 0; j < nm; j++)
                dup |= members[j] == c;
            if (c >= 0 && !dup)
                members[nm++] = c;
        }
        for (int j = 0; j < nm; j++) {
            const node *m = &r->nodes[members[j]];
            const char *slash = strrchr(m->pub.path, '/');
            snprintf(in[k].path, sizeof in[k].path, "%.255s", slash ? slash + 1 : m->pub.path);
            snprintf(in[k].sha256, sizeof in[k].sha256, "%s", m->dbs ? m->sha256 : "");
            k++;
        }
        if (ma_database_format(r->db) == MA_FORMAT_SEC2) {
            snprintf(in[k].path, sizeof in[k].path, "%s.secval", ma_variant_name(nd->pub.variant));
            snprintf(in[k].sha256, sizeof in[k].sha256, "%s", r->secval_sha[nd->pub.variant]);
            k++;
        }
        for (size_t a = 1; a < k; a++) /* insertion sort by path: at most six inputs */
            for (size_t b = a; b > 0 && strcmp(in[b - 1].path, in[b].path) > 0; b--) {
                ma_vrun_input t = in[b - 1];
                in[b - 1] = in[b];
                in[b] = t;
            }
        nd->pub.inputs = in;
        nd->pub.n_inputs = k;
    }
    return MA_OK;
}

static int hash_inputs(ma_vrun *r, ma_error *err)
{
    r->phase = "hash";
    size_t n_db = ma_database_count(r->db), n_need = 0;
    size_t *need_sha = calloc(n_db + 1, sizeof *need_sha);
    if (!need_sha)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    int irc = inventory_files(r, need_sha, &n_need, err);
    if (irc) {
        free(need_sha);
        return irc;
    }
    const char **paths = calloc(r->n_nodes + n_need + 4, sizeof *paths);
    int *which = calloc(r->n_nodes + n_need + 4, sizeof *which);
    if (!paths || !which) {
        free(paths);
        free(which);
        free(need_sha);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < r->n_nodes; i++)
        if (r->nodes[i].dbs && r->nodes[i].last_use >= 0) {
            which[n] = (int)i;
            paths[n++] = r->nodes[i].dbs->path;
        }
    /* inventory files the run does not read but must hash: which = -10 - k, k into need_sha */
    for (size_t k = 0; k < n_need; k++) {
        const ma_inventory_file *f = &r->inv.files[need_sha[k]];
        const ma_db_sector *s = NULL;
        for (size_t i = 0; i < n_db && !s; i++)
            if (!strcmp(ma_database_sector(r->db, i)->name, f->sector))
                s = ma_database_sector(r->db, i);
        int read = 0;
        for (size_t i = 0; i < n && !read; i++)
            read = s && !strcmp(paths[i], s->path);
        if (s && !read) {
            which[n] = -10 - (int)k;
            paths[n++] = s->path;
        }
    }
    char secval_path[4][4400];
    for (int v = 1; v <= 3; v++) {
        r->secval_sha[v][0] = 0;
        if (ma_database_format(r->db) == MA_FORMAT_SEC2 && ma_database_has_secval(r->db, (ma_variant)v)) {
            snprintf(secval_path[v], sizeof secval_path[v], "%.4000s/%s.secval", ma_database_dir(r->db),
                     ma_variant_name((ma_variant)v));
            which[n] = -v;
            paths[n++] = secval_path[v];
        }
    }
    ma_file_digest *d = calloc(n ? n : 1, sizeof *d);
    int *rcs = calloc(n ? n : 1, sizeof *rcs);
    ma_error *errs = calloc(n ? n : 1, sizeof *errs);
    int rc = d && rcs && errs ? MA_OK : ma_error_set(err, MA_ENOMEM, "out of memory");
    if (rc == MA_OK && n) {
        ma_sha256_options o = {0};
        o.threads = (unsigned)r->opt.threads;
        if (r->opt.progress)
            ma_progress_set_label(r->opt.progress, "hashing the files read");
        int hrc = ma_sha256_files(d, rcs, errs, paths, n, &o, err);
        if (hrc == MA_ENOMEM || hrc == MA_EINTERNAL)
            rc = hrc;
    }
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        /* "!" for a file that is there but could not be read: never equal to a digest, and never
         * to the "" of an absent file */
        char hex[65] = "!";
        if (rcs[i] == MA_OK)
            ma_sha256_hex(hex, d[i].digest);
        else
            add_error(r, errs[i].msg); /* the check will find the file unusable too */
        if (which[i] <= -10) {
            /* only for the inventory: hashed, never read by this run, so not in its manifest */
            snprintf(r->inv.files[need_sha[-10 - which[i]]].digest, sizeof r->inv.files[0].digest, "sha256:%s", hex);
            continue;
        }
        if (which[i] >= 0)
            snprintf(r->nodes[which[i]].sha256, sizeof r->nodes[which[i]].sha256, "%s", hex);
        else
            snprintf(r->secval_sha[-which[i]], sizeof r->secval_sha[0], "%s", hex);
        for (size_t k = 0; k < n_need; k++) /* a file read and in need of its SHA-256: the same one */
            if (!strcmp(r->inv.files[need_sha[k]].name, base_name(paths[i])))
                snprintf(r->inv.files[need_sha[k]].digest, sizeof r->inv.files[0].digest, "sha256:%s", hex);
        if (which[i] < 0) { /* a .secval: every sector of its variant is read with it */
            ma_inventory_file f;
            memset(&f, 0, sizeof f);
            snprintf(f.name, sizeof f.name, "%.255s", base_name(paths[i]));
            struct stat st;
            if (stat(paths[i], &st) == 0)
                f.size = (uint64_t)st.st_size;
            snprintf(f.digest, sizeof f.digest, "sha256:%s", hex);
            if (ma_inventory_add_file(&r->inv, &f, err))
                rc = MA_ENOMEM;
        }
        if (rcs[i] == MA_OK && r->audit) {
            const char *slash = strrchr(paths[i], '/');
            ma_error e;
            if (ma_manifest_record_digests(r->audit, r->run_id, ma_database_dir(r->db),
                                           slash ? slash + 1 : paths[i], &d[i], &e))
                record_failure(r, &e);
        }
    }
    for (size_t i = 0; d && i < n; i++)
        ma_file_digest_free(&d[i]);
    free(d);
    free(rcs);
    free(errs);
    free(paths);
    free(which);
    free(need_sha);
    if (rc)
        return rc;
    ma_inventory_seal(&r->inv);
    if (r->audit) {
        ma_error e;
        if (ma_audit_inventory_write(r->audit, r->run_id, &r->inv, 0, &e))
            record_failure(r, &e);
    }
    return sector_inputs(r, err);
}

/* ---- carry over ---- */

static ma_outcome outcome_parse(const char *s)
{
    if (!s)
        return MA_OUTCOME_NONE;
    if (!strcmp(s, "win"))
        return MA_OUTCOME_WIN;
    if (!strcmp(s, "loss"))
        return MA_OUTCOME_LOSS;
    if (!strcmp(s, "draw"))
        return MA_OUTCOME_DRAW;
    return MA_OUTCOME_NONE;
}

/* Fills a node's public result from what the store holds for it. */
static int load_carried(ma_vrun *r, node *nd, int64_t from_run, int64_t checked_in, ma_error *err)
{
    ma_sector_readback b;
    int rc = ma_audit_sector_read(r->audit, r->run_id, nd->pub.name, r->opt.max_rows, &b, err);
    if (rc)
        return rc;
    ma_vrun_sector *p = &nd->pub;
    p->carried = 1;
    p->from_run = checked_in;
    p->status = sector_status_parse(b.status);
    p->entries = (uint64_t)b.entries;
    p->checked = (uint64_t)b.checked;
    p->canonical = (uint64_t)b.canonical;
    p->markers = (uint64_t)b.markers;
    p->verified = (uint64_t)b.verified;
    p->within_bounds = (uint64_t)b.within_bounds;
    p->bound_wins = (uint64_t)b.bound_wins;
    p->missing_child = (uint64_t)b.missing_child;
    p->unverifiable = (uint64_t)b.unverifiable;
    p->discrepancies = (uint64_t)b.discrepancies;
    p->roots = (uint64_t)b.roots;
    p->propagated = (uint64_t)b.propagated;
    p->seconds = b.seconds;
    p->body_digest = !b.body_digest ? -1 : !strcmp(b.body_digest, "match");
    snprintf(p->message, sizeof p->message, "%s", b.message ? b.message : "");
    for (size_t i = 0; i < b.n_classes; i++) {
        int c = disc_class_parse(b.class_name[i]);
        if (c >= 0)
            p->by_class[c] = (uint64_t)b.class_count[i];
    }
    if (b.digest) {
        p->has_digest = 1;
        snprintf(p->digest, sizeof p->digest, "%s", b.digest);
        p->digest_positions = (uint64_t)b.digest_positions;
    }
    p->bins = calloc(b.n_bins ? b.n_bins : 1, sizeof *p->bins);
    p->rows = calloc(b.n_rows ? b.n_rows : 1, sizeof *p->rows);
    if (!p->bins || !p->rows) {
        ma_sector_readback_free(&b);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < b.n_bins; i++)
        p->bins[i] = (ma_vrun_bin){outcome_parse(b.bin_outcome[i]), (uint32_t)b.bin_depth[i],
                                  (uint64_t)b.bin_count[i]};
    p->n_bins = b.n_bins;
    for (size_t i = 0; i < b.n_rows; i++) {
        const ma_readback_row *w = &b.rows[i];
        ma_vrun_row *row = &p->rows[i];
        row->entry = (uint64_t)w->entry;
        row->offset = w->offset < 0 ? 0 : (uint64_t)w->offset;
        int c = disc_class_parse(w->cls);
        row->cls = (uint8_t)(c < 0 ? 0 : c);
        row->root = w->root > 0;
        if (w->board)
            ma_board_parse(w->board, &row->board, NULL);
        snprintf(row->stored_text, sizeof row->stored_text, "%s", w->stored ? w->stored : "");
        snprintf(row->derived_text, sizeof row->derived_text, "%s", w->derived ? w->derived : "");
        row->stored.marker = -1;
        row->stored.kind = w->stored_outcome && !strcmp(w->stored_outcome, "bad") ? MA_STORED_BAD
                           : outcome_parse(w->stored_outcome) ? MA_STORED_VALUE
                                                              : MA_STORED_NONE;
        row->stored.value.outcome = outcome_parse(w->stored_outcome);
        row->stored.value.depth = w->stored_depth > 0 ? (uint16_t)w->stored_depth : 0;
        row->derived.outcome = outcome_parse(w->derived_outcome);
        row->derived.depth = w->derived_depth > 0 ? (uint16_t)w->derived_depth : 0;
        row->derived_kind = row->derived.outcome                                       ? 0
                            : w->derived_outcome && !strcmp(w->derived_outcome, "marker") ? 2
                            : w->derived_outcome && !strcmp(w->derived_outcome, "none")   ? 3
                                                                                          : 1;
        row->derived_exact = !w->derived_bound || strcmp(w->derived_bound, "lower") != 0;
        row->expected_marker = -1;
        if (w->move) {
            row->has_refutation = 1;
            snprintf(row->move, sizeof row->move, "%s", w->move);
            if (w->successor)
                ma_board_parse(w->successor, &row->successor, NULL);
        }
    }
    p->n_rows = b.n_rows;
    ma_sector_readback_free(&b);
    rc = ma_audit_sector_discrepancy_set(r->audit, from_run, nd->pub.name, &nd->set, &nd->n_set, err);
    if (rc == MA_OK)
        nd->done = 1;
    return rc;
}

static int same_inputs(const node *nd, const ma_carry_candidate *c)
{
    if (nd->pub.n_inputs != c->n_inputs)
        return 0;
    for (size_t i = 0; i < c->n_inputs; i++)
        if (strcmp(nd->pub.inputs[i].path, c->input_path[i] ? c->input_path[i] : "") ||
            strcmp(nd->pub.inputs[i].sha256, c->input_sha256[i] ? c->input_sha256[i] : ""))
            return 0;
    return 1;
}

static int cmp_candidate(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const ma_carry_candidate *)elem)->sector);
}

static int carry(ma_vrun *r, ma_error *err)
{
    r->phase = "carry";
    ma_carry_candidate *cands = NULL;
    size_t nc = 0;
    int64_t only = r->opt.mode == MA_VRUN_RESUME ? r->resumed_from : 0;
    int rc = ma_audit_carry_candidates(r->audit, r->root, r->opt.tool_version, r->options, only,
                                       r->run_id, &cands, &nc, err);
    if (rc)
        return rc;
    for (size_t i = 0; rc == MA_OK && i < r->n_order; i++) {
        node *nd = &r->nodes[r->order[i]];
        if (!nd->dbs)
            continue; /* nothing to carry for a file that is not there */
        const ma_carry_candidate *c =
            nc ? bsearch(nd->pub.name, cands, nc, sizeof *cands, cmp_candidate) : NULL;
        if (!c || !same_inputs(nd, c))
            continue;
        ma_error e;
        if (ma_audit_sector_carry(r->audit, r->run_id, c->run_id, c->checked_in, nd->pub.name, &e)) {
            record_failure(r, &e);
            continue; /* check it instead */
        }
        rc = load_carried(r, nd, c->run_id, c->checked_in, err);
    }
    ma_carry_candidates_free(cands, nc);
    return rc;
}

/* ---- check, classify, record ---- */

static void fill_commit(const ma_vrun *r, const node *nd, ma_sector_commit *c, ma_class_count *cc,
                        ma_disc_row *rows, char (*text)[2][96], ma_histogram_bin *bins)
{
    const ma_vrun_sector *p = &nd->pub;
    memset(c, 0, sizeof *c);
    size_t ncc = 0;
    for (int k = 0; k < MA_DISC_CLASSES; k++)
        if (p->by_class[k]) {
            cc[ncc].cls = ma_disc_class_name(k);
            cc[ncc++].count = p->by_class[k];
        }
    c->result.sector = p->name;
    c->result.file = p->path;
    c->result.entries = p->entries;
    c->result.checked = p->checked;
    c->result.verified = p->verified;
    c->result.within_bounds = p->within_bounds;
    c->result.discrepancies = p->discrepancies;
    c->result.classes = cc;
    c->result.n_classes = ncc;
    c->result.seconds = p->seconds;
    c->result.status = ma_sector_status_name(p->status);
    c->result.message = p->message[0] ? p->message : NULL;
    c->format = ma_format_name(ma_database_format(r->db));
    c->canonical = p->canonical;
    c->markers = p->markers;
    c->roots = p->roots;
    c->propagated = p->propagated;
    c->missing_child = p->missing_child;
    c->unverifiable = p->unverifiable;
    c->bound_wins = p->bound_wins;
    c->body_digest = p->body_digest == 1 ? "match" : p->body_digest == 0 ? "mismatch" : NULL;
    size_t n_rows = nd->n_stored_rows > p->n_rows ? nd->n_stored_rows : p->n_rows;
    for (size_t i = 0; i < n_rows; i++) {
        const ma_vrun_row *w = &p->rows[i];
        ma_disc_row *d = &rows[i];
        memset(d, 0, sizeof *d);
        ma_board_format(w->board, text[i][0], sizeof text[i][0]);
        d->entry = w->entry;
        d->offset = w->offset;
        d->board = text[i][0];
        d->stored = w->stored_text;
        d->derived = w->derived_text;
        d->cls = ma_disc_class_name(w->cls);
        d->root = w->root;
        if (w->has_refutation) {
            d->move = w->move;
            if (w->successor.mover | w->successor.opp) {
                ma_board_format(w->successor, text[i][1], sizeof text[i][1]);
                d->successor = text[i][1];
            }
        }
        d->stored_outcome = w->stored.kind == MA_STORED_BAD ? "bad"
                                                            : ma_outcome_name(w->stored.value.outcome);
        d->stored_depth = w->stored.kind == MA_STORED_VALUE && w->stored.value.outcome != MA_OUTCOME_DRAW
                              ? w->stored.value.depth
                              : -1;
        d->derived_outcome = w->derived_kind == 0   ? ma_outcome_name(w->derived.outcome)
                             : w->derived_kind == 2 ? "marker"
                             : w->derived_kind == 3 ? "none"
                                                    : "unknown";
        d->derived_depth = w->derived_kind == 0 && w->derived.outcome != MA_OUTCOME_DRAW
                               ? w->derived.depth
                               : -1;
        d->derived_bound = w->derived_exact ? "exact" : "lower";
    }
    c->rows = rows;
    c->n_rows = nd->n_stored_rows > p->n_rows ? nd->n_stored_rows : p->n_rows;
    c->disc_entries = nd->set;
    c->n_disc_entries = nd->n_set;
    c->fixed_entries = nd->fixed;
    c->n_fixed_entries = nd->n_fixed;
    if (p->has_digest) {
        c->digest = p->digest;
        c->digest_positions = p->digest_positions;
        for (size_t i = 0; i < p->n_bins; i++)
            bins[i] = (ma_histogram_bin){ma_outcome_name(p->bins[i].outcome), p->bins[i].depth,
                                         p->bins[i].count};
        c->bins = bins;
        c->n_bins = p->n_bins;
    }
}

/* Keeps the entries that are roots by rule, for the record (docs/audit-schema.md v6). */
static int record_fixed(node *nd, const ma_rs_result *res, ma_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < res->n_items; i++)
        n += ma_rs_class_fixed(res->items[i].cls) != 0;
    free(nd->fixed);
    nd->fixed = NULL;
    nd->n_fixed = 0;
    if (!n)
        return MA_OK;
    if (!(nd->fixed = malloc(n * sizeof *nd->fixed)))
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    for (size_t i = 0; i < res->n_items; i++)
        if (ma_rs_class_fixed(res->items[i].cls))
            nd->fixed[nd->n_fixed++] = res->items[i].entry; /* items are sorted by entry */
    return MA_OK;
}

/* Commits the sectors checked in one unit (members[0..n)) in one transaction. */
static int commit_unit(ma_vrun *r, const int *members, size_t n, ma_error *err)
{
    ma_sector_commit *c = calloc(n, sizeof *c);
    ma_class_count (*cc)[MA_DISC_CLASSES] = calloc(n, sizeof *cc);
    ma_disc_row **rows = calloc(n, sizeof *rows);
    char (**text)[2][96] = calloc(n, sizeof *text);
    ma_histogram_bin **bins = calloc(n, sizeof *bins);
    ma_input_digest **inputs = calloc(n, sizeof *inputs);
    int rc = c && cc && rows && text && bins && inputs ? MA_OK
                                                       : ma_error_set(err, MA_ENOMEM, "out of memory");
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        const node *nd = &r->nodes[members[i]];
        size_t n_rows = nd->n_stored_rows > nd->pub.n_rows ? nd->n_stored_rows : nd->pub.n_rows;
        rows[i] = calloc(n_rows + 1, sizeof **rows);
        text[i] = calloc(n_rows + 1, sizeof **text);
        bins[i] = calloc(nd->pub.n_bins + 1, sizeof **bins);
        inputs[i] = calloc(nd->pub.n_inputs + 1, sizeof **inputs);
        if (!rows[i] || !text[i] || !bins[i] || !inputs[i]) {
            rc = ma_error_set(err, MA_ENOMEM, "out of memory");
            break;
        }
        fill_commit(r, nd, &c[i], cc[i], rows[i], text[i], bins[i]);
        for (size_t k = 0; k < nd->pub.n_inputs; k++)
            inputs[i][k] = (ma_input_digest){nd->pub.inputs[k].path, nd->pub.inputs[k].sha256};
        c[i].inputs = inputs[i];
        c[i].n_inputs = nd->pub.n_inputs;
    }
    if (rc == MA_OK)
        rc = ma_audit_sectors_commit(r->audit, r->run_id, c, n, err);
    for (size_t i = 0; i < n; i++) {
        if (rows)
            free(rows[i]);
        if (text)
            free(text[i]);
        if (bins)
            free(bins[i]);
        if (inputs)
            free(inputs[i]);
    }
    free(c);
    free(cc);
    free(rows);
    free(text);
    free(bins);
    free(inputs);
    return rc;
}

/* Without a store there is no hash phase: the file is hashed from its path before it is first
 * opened, so that the reader's own checks at open (the overflow table of a Malom file, the body
 * digest of an open one), the check and the snapshot after it (snapshot_node) all read bytes whose
 * change the snapshot sees. Hashing the mapping after the open would leave the open's checks on
 * bytes that may differ from the ones hashed and checked. When the path cannot be hashed (a read
 * error, a cancel) mapped_sha stays "": no digest of the mapping stands in for it, so the snapshot
 * check finds no match and withdraws every sector that read the file. */
static void hash_before_open(ma_vrun *r, const int *which, size_t n)
{
    ma_sha256_options o;
    memset(&o, 0, sizeof o);
    o.threads = r->opt.threads > 0 ? (unsigned)r->opt.threads : 1;
    o.whole_only = 1;
    /* Each file's digest is one sequential stream: several files go one to a thread. */
    o.file_per_worker = n > 1;
    /* Without chunk digests the chunk size only sizes the read buffers (threads + 2 of them):
     * 1 MiB ones keep this hash from adding up to 64 MiB to the peak RSS of a verify. */
    o.chunk_size = 1u << 20;
    o.cancel = r->opt.cancel;
    ma_file_digest d[1 + MA_TURN_KINDS];
    int rcs[1 + MA_TURN_KINDS];
    ma_error errs[1 + MA_TURN_KINDS], e;
    const char *paths[1 + MA_TURN_KINDS];
    for (size_t k = 0; k < n; k++) {
        paths[k] = r->nodes[which[k]].dbs->path;
        r->nodes[which[k]].hashed = 1;
    }
    int rc = ma_sha256_files(d, rcs, errs, paths, n, &o, &e);
    int per_file = rc == MA_OK; /* else a file failed, or the pool did (then no file has a digest) */
    for (size_t k = 0; k < n; k++)
        per_file |= rcs[k] != MA_OK;
    for (size_t k = 0; per_file && k < n; k++) {
        if (rcs[k] != MA_OK)
            continue;
        ma_sha256_hex(r->nodes[which[k]].mapped_sha, d[k].digest);
        ma_file_digest_free(&d[k]);
    }
}

/* hash_before_open for node i and its successors' nodes, those present and not yet hashed, all
 * at once before the first of them is opened. */
static void hash_node_before_open(ma_vrun *r, int i)
{
    int which[1 + MA_TURN_KINDS];
    size_t n = 0;
    for (int k = -1; k < MA_TURN_KINDS; k++) {
        int c = k < 0 ? i : r->nodes[i].succ[k];
        int seen = c < 0;
        for (size_t q = 0; q < n && !seen; q++)
            seen = which[q] == c;
        if (!seen && r->nodes[c].dbs && !r->nodes[c].hashed && !r->nodes[c].opened)
            which[n++] = c;
    }
    if (n)
        hash_before_open(r, which, n);
}

/* Opens node i's file and its successors' (those present, hashed or audited, and not opened yet)
 * several at once: each open reads its whole file, in time the check's other threads would wait.
 * node_source then takes them from the database's cache. */
static void open_node_sources(ma_vrun *r, int i)
{
    ma_variant v[1 + MA_TURN_KINDS];
    ma_sector s[1 + MA_TURN_KINDS];
    size_t n = 0;
    for (int k = -1; k < MA_TURN_KINDS; k++) {
        int c = k < 0 ? i : r->nodes[i].succ[k];
        if (c < 0)
            continue;
        const node *nd = &r->nodes[c];
        /* hashed first: the bytes the reader checks at open are the ones hashed */
        if (nd->dbs && !nd->opened && (r->audit || nd->hashed)) {
            v[n] = nd->pub.variant;
            s[n++] = nd->pub.sector;
        }
    }
    ma_database_open_sources(r->db, v, s, n, r->opt.threads > 0 ? (unsigned)r->opt.threads : 1);
}

/* The opened source of node i, or NULL (absent or unusable: the reason is recorded once). */
static const ma_source *node_source(ma_vrun *r, int i, int *present)
{
    node *nd = &r->nodes[i];
    *present = nd->dbs != NULL;
    if (!nd->dbs)
        return NULL;
    /* Once only, before the first open: a retry after a failed hash would take its digest after
     * the reader's checks at open, the very order hash_before_open exists to avoid. */
    if (!r->audit && !nd->hashed && !nd->opened)
        hash_before_open(r, &i, 1);
    nd->opened = 1;
    const ma_source *src;
    ma_error e;
    if (ma_database_source(r->db, nd->pub.variant, nd->pub.sector, &src, &e)) {
        add_error(r, e.msg);
        return NULL;
    }
    if (r->hooks.on_step)
        r->hooks.on_step(r->hooks.step_ctx, "opened", nd->pub.name);
    return src;
}

/* The digest a node's mapping must still have after a check read it: the hash phase's (recorded
 * as the sector inputs), or without a store the one taken before the file was first opened. */
static const char *expected_digest(const ma_vrun *r, const node *nd)
{
    return r->audit ? nd->sha256 : nd->mapped_sha;
}

/* Compares node m's mapping's digest `now` with what is expected (see above), once per unit. */
static void snapshot_node(ma_vrun *r, int m, const char *now)
{
    node *nd = &r->nodes[m];
    nd->changed = 0;
    const char *want = expected_digest(r, nd);
    if (!strcmp(now, want))
        return;
    nd->changed = 1;
    char shown[1100];
    ma_escape_name(nd->pub.path, shown, sizeof shown);
    snprintf(nd->changed_msg, sizeof nd->changed_msg,
             "%.700s: sector %s: offset 0: changed while being checked (SHA-256 %.12s... when hashed, "
             "%.12s... as read): replaced or rewritten during the run; not verified, run again",
             shown, nd->pub.name, want[0] ? want : "(none)", now);
    add_error(r, nd->changed_msg);
}

/* Hashes, once per unit, the mapping of every node the unit's checked sectors read (their own and
 * their successors'), several at once: each digest is one sequential stream. A node absent or
 * unusable was not read and is not compared. Without memory to hash, every such node counts as
 * changed: no sector of the unit is then verified on bytes not hashed again. */
static void snapshot_unit(ma_vrun *r, size_t first, size_t n, const int *checked)
{
    int unit = r->unit_of_pos[first];
    size_t cap = n * (1 + MA_TURN_KINDS), m = 0;
    int *which = malloc(cap * sizeof *which);
    const void **data = malloc(cap * sizeof *data);
    size_t *len = malloc(cap * sizeof *len);
    uint8_t (*dg)[MA_SHA256_LEN] = malloc(cap * sizeof *dg);
    ma_error e;
    int ok = which && data && len && dg;
    for (size_t i = 0; i < n; i++) {
        if (!checked[i])
            continue;
        int idx = r->order[first + i];
        for (int k = -1; k < MA_TURN_KINDS; k++) {
            int c = k < 0 ? idx : r->nodes[idx].succ[k];
            if (c < 0 || r->nodes[c].seen_unit == unit)
                continue;
            node *nd = &r->nodes[c];
            nd->seen_unit = unit;
            nd->changed = 0;
            const ma_source *src;
            if (!nd->dbs || ma_database_source(r->db, nd->pub.variant, nd->pub.sector, &src, NULL))
                continue; /* absent or unusable: nothing was read from it */
            if (!ok) {
                snapshot_node(r, c, "(not hashed: out of memory)");
                continue;
            }
            which[m] = c;
            data[m] = ma_source_bytes(src, &len[m]);
            m++;
        }
    }
    if (ok && ma_sha256_buffers(dg, data, len, m, r->opt.threads > 0 ? (unsigned)r->opt.threads : 1,
                                &e) != MA_OK)
        ok = 0;
    for (size_t k = 0; k < m; k++) {
        char now[65];
        if (ok)
            ma_sha256_hex(now, dg[k]);
        snapshot_node(r, which[k], ok ? now : "(not hashed: out of memory)");
    }
    free(which);
    free(data);
    free(len);
    free(dg);
}

/* The bytes hashed are the bytes checked: after the check of a unit, every file its sectors read
 * (their own and their successors') is hashed again from the mapping the check read. A sector one
 * of whose inputs differs from its expected digest is withdrawn: "unusable", its counts and
 * discrepancy set dropped, so it is never "verified" and never carried over (docs/runs.md).
 * Returns the number of sectors withdrawn. */
static size_t snapshot_check(ma_vrun *r, size_t first, size_t n, int *checked, ma_rs_result *res)
{
    size_t withdrawn = 0;
    snapshot_unit(r, first, n, checked);
    for (size_t i = 0; i < n; i++) {
        if (!checked[i])
            continue;
        int idx = r->order[first + i];
        node *nd = &r->nodes[idx];
        const char *why = NULL;
        if (nd->changed)
            why = nd->changed_msg;
        for (int k = 0; k < MA_TURN_KINDS; k++) {
            int c = nd->succ[k];
            if (c < 0 || c == idx)
                continue;
            if (!why && r->nodes[c].changed)
                why = r->nodes[c].changed_msg;
        }
        if (!why)
            continue;
        ma_vrun_sector *p = &nd->pub;
        p->status = MA_SECTOR_UNUSABLE;
        p->entries = p->checked = p->canonical = p->markers = p->verified = 0;
        p->within_bounds = p->bound_wins = p->missing_child = p->unverifiable = 0;
        p->discrepancies = p->roots = p->propagated = 0;
        memset(p->by_class, 0, sizeof p->by_class);
        p->body_digest = -1;
        snprintf(p->message, sizeof p->message, "%s", why);
        free(nd->set);
        nd->set = NULL;
        nd->n_set = 0;
        nd->done = 0;
        checked[i] = 0;
        ma_rs_result_free(&res[i]);
        memset(&res[i], 0, sizeof res[i]);
        withdrawn++;
    }
    return withdrawn;
}

static int check_node(ma_vrun *r, int i, ma_rs_result *res, ma_rs_input *in, ma_error *err)
{
    node *nd = &r->nodes[i];
    memset(res, 0, sizeof *res);
    memset(in, 0, sizeof *in);
    res->out = &nd->pub;
    if (!r->audit)
        hash_node_before_open(r, i);
    open_node_sources(r, i);
    int present;
    const ma_source *src = node_source(r, i, &present);
    if (!src) {
        nd->pub.status = MA_SECTOR_UNUSABLE;
        if (!present) {
            char shown[1100];
            ma_escape_name(nd->pub.path, shown, sizeof shown);
            snprintf(nd->pub.message, sizeof nd->pub.message,
                     "%.900s: sector %s: sector file absent", shown, nd->pub.name);
            add_error(r, nd->pub.message);
        } else {
            /* the reader's message, already among the errors */
            const ma_db_unusable *u = NULL;
            for (size_t k = ma_database_unusable_count(r->db); k-- > 0;)
                if (!strcmp(ma_database_unusable(r->db, k)->path, nd->dbs->path)) {
                    u = ma_database_unusable(r->db, k);
                    break;
                }
            snprintf(nd->pub.message, sizeof nd->pub.message, "%s", u ? u->message : "unusable");
        }
        return MA_OK;
    }
    in->db = r->db;
    in->src = src;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        int c = nd->succ[k];
        if (c < 0)
            continue;
        in->child_path[k] = r->nodes[c].pub.path;
        if (c == i) {
            in->child_present[k] = 1;
            continue; /* the checkers read a self-loop from the sector's own file */
        }
        in->child[k] = node_source(r, c, &in->child_present[k]);
    }
    in->threads = r->opt.threads;
    in->full_board_draw = r->opt.full_board_draw;
    in->progress = r->opt.progress;
    in->cancel = r->opt.cancel;
    if (r->opt.progress) {
        char label[96];
        snprintf(label, sizeof label, "verify %s", nd->pub.name);
        ma_progress_set_label(r->opt.progress, label);
    }
    return ma_rs_check(res, in, err);
}

static int run_unit(ma_vrun *r, size_t first, size_t last, ma_error *err)
{
    size_t n = last - first;
    ma_rs_result *res = calloc(n, sizeof *res);
    ma_rs_input *in = calloc(n, sizeof *in);
    int *members = calloc(n, sizeof *members);
    int *checked = calloc(n, sizeof *checked);
    if (!res || !in || !members || !checked) {
        free(res);
        free(in);
        free(members);
        free(checked);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    int rc = MA_OK;
    size_t n_checked = 0;
    r->phase = "check";
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        int idx = r->order[first + i];
        if (r->nodes[idx].done)
            continue; /* carried over */
        rc = check_node(r, idx, &res[i], &in[i], err);
        if (rc == MA_OK && r->nodes[idx].pub.status != MA_SECTOR_UNUSABLE) {
            checked[i] = 1;
            node *nd = &r->nodes[idx];
            nd->set = res[i].entries; /* the discrepancy set now belongs to the node */
            nd->n_set = res[i].n_items;
            res[i].entries = NULL;
            nd->done = 1;
            if (nd->pub.message[0] &&
                (nd->pub.status == MA_SECTOR_INCOMPLETE || nd->pub.body_digest == 0 ||
                 (nd->pub.status == MA_SECTOR_WITHIN_BOUNDS && !r->opt.allow_bounds)))
                add_error(r, nd->pub.message);
        }
        if (rc == MA_OK && r->hooks.on_step)
            r->hooks.on_step(r->hooks.step_ctx, "checked", r->nodes[idx].pub.name);
    }
    if (rc == MA_OK)
        snapshot_check(r, first, n, checked, res);
    r->phase = "classify";
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        if (!checked[i])
            continue;
        node *nd = &r->nodes[r->order[first + i]];
        ma_entry_set sets[MA_TURN_KINDS];
        const ma_entry_set *child[MA_TURN_KINDS] = {NULL, NULL, NULL, NULL};
        for (int k = 0; k < MA_TURN_KINDS; k++) {
            int c = nd->succ[k];
            if (c >= 0 && r->nodes[c].done) {
                sets[k] = (ma_entry_set){r->nodes[c].set, r->nodes[c].n_set};
                child[k] = &sets[k];
            }
        }
        res[i].entries = nd->set; /* the own set, borrowed back for self-loops */
        rc = ma_rs_classify(&res[i], &in[i], child, err);
        res[i].entries = NULL;
        if (rc == MA_OK)
            rc = record_fixed(nd, &res[i], err);
        /* A shard does not know the discrepancy sets of successor sectors another shard checks: a
         * merge may turn some of its roots into propagated ones. Keeping the first max_rows of
         * each kind lets the merge pick the rows a single run would keep (docs/distributed.md). */
        int local = 0;
        for (int k = 0; k < MA_TURN_KINDS; k++) {
            int c = nd->succ[k];
            local |= r->opt.shard_count > 1 && c >= 0 && !r->nodes[c].done && r->nodes[c].dbs;
        }
        size_t m = r->opt.max_rows;
        if (rc == MA_OK && local && nd->pub.roots) {
            rc = ma_rs_rows_split(&res[i], &in[i], 2 * m, m, m, err);
            nd->n_stored_rows = nd->pub.n_rows;
            if (nd->pub.n_rows > m)
                nd->pub.n_rows = m; /* what the run itself reports: its first max_rows */
        } else if (rc == MA_OK) {
            rc = ma_rs_rows(&res[i], &in[i], m, err);
        }
        if (rc == MA_OK && r->audit && !nd->pub.missing_child && !nd->pub.unverifiable &&
            !nd->pub.within_bounds)
            rc = ma_rs_digest(&res[i], &in[i], err);
        if (rc == MA_OK)
            members[n_checked++] = r->order[first + i];
    }
    for (size_t i = 0; i < n; i++) {
        int idx = r->order[first + i];
        if (!checked[i] && !r->nodes[idx].done && rc == MA_OK)
            members[n_checked++] = idx; /* unusable sectors are recorded too */
        ma_rs_result_free(&res[i]);
    }
    r->phase = "record";
    if (rc == MA_OK && r->audit && n_checked && !r->record_failed) {
        ma_error e;
        if (commit_unit(r, members, n_checked, &e))
            record_failure(r, &e);
    }
    for (size_t i = 0; rc == MA_OK && r->opt.on_sector && i < n; i++)
        r->opt.on_sector(r->opt.on_sector_ctx, &r->nodes[r->order[first + i]].pub);
    free(res);
    free(in);
    free(members);
    free(checked);
    return rc;
}

/* ---- the run ---- */

static void totals(ma_vrun *r)
{
    ma_vrun_totals *t = &r->totals;
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < r->n_order; i++) {
        const ma_vrun_sector *p = &r->nodes[r->order[i]].pub;
        t->sectors++;
        if (p->status == MA_SECTOR_UNUSABLE) {
            t->sectors_unusable++;
            continue;
        }
        if (p->status == MA_SECTOR_NOT_CHECKED) {
            t->sectors_not_checked++;
            t->entries += p->entries; /* the plan's entries: none verified */
            continue;
        }
        if (p->carried)
            t->sectors_carried++;
        else if (r->nodes[r->order[i]].done)
            t->sectors_checked++;
        t->entries += p->entries;
        t->checked += p->checked;
        t->canonical += p->canonical;
        t->markers += p->markers;
        t->verified += p->verified;
        t->within_bounds += p->within_bounds;
        t->bound_wins += p->bound_wins;
        t->missing_child += p->missing_child;
        t->unverifiable += p->unverifiable;
        t->discrepancies += p->discrepancies;
        t->roots += p->roots;
        t->propagated += p->propagated;
        t->body_digest_mismatches += p->body_digest == 0;
        for (int k = 0; k < MA_DISC_CLASSES; k++)
            t->by_class[k] += p->by_class[k];
    }
}

/* A shard run whose part of a non-empty plan is no sector: a valid shard of 0 sectors, verified
 * (its merge with the others covers the plan; issue 21 item 7). */
static int empty_shard(const ma_vrun *r)
{
    return r->opt.shard_count > 1 && r->db && r->n_domain > 0 && r->n_order == 0;
}

static ma_verdict_state decide_verdict(const ma_vrun *r, int canceled)
{
    if (canceled)
        return MA_VERDICT_INTERRUPTED;
    const ma_vrun_totals *t = &r->totals;
    if (t->discrepancies || t->body_digest_mismatches)
        return MA_VERDICT_DISCREPANCIES;
    int incomplete = t->sectors == 0 && !empty_shard(r), bounds = 0;
    for (size_t i = 0; i < r->n_order; i++) {
        const node *nd = &r->nodes[r->order[i]];
        /* a sector never reached (the run stopped early) is a hole as much as an unusable one */
        incomplete |= !nd->done || nd->pub.status == MA_SECTOR_UNUSABLE ||
                      nd->pub.status == MA_SECTOR_INCOMPLETE;
        bounds |= nd->pub.status == MA_SECTOR_WITHIN_BOUNDS;
    }
    /* in a whole-database run a file that looks like a sector but cannot be used is a hole */
    if (r->whole && r->db && ma_database_unusable_count(r->db))
        incomplete = 1;
    if (incomplete)
        return MA_VERDICT_INCOMPLETE;
    return bounds ? MA_VERDICT_WITHIN_BOUNDS : MA_VERDICT_VERIFIED;
}

/* Records the run's start, its facts and its plan, and for --resume claims the run it continues:
 * one write transaction (BEGIN IMMEDIATE), so of two resumes of one run exactly one claims it and
 * a refused resume leaves no trace in the store. */
static int begin_tx(ma_audit *a, void *ctx, ma_error *err)
{
    ma_vrun *r = ctx;
    (void)a;
    unsigned variants = r->db ? ma_database_variants(r->db) : 0;
    const char *variant = NULL;
    if (__builtin_popcount(variants) == 1)
        for (int v = 1; v <= 3; v++)
            if (variants >> v & 1)
                variant = ma_variant_name((ma_variant)v);
    ma_format f = r->db ? ma_database_format(r->db) : 0;
    int rc = MA_OK;
    if (r->opt.mode == MA_VRUN_RESUME) {
        ma_resume_want w = {r->opt.resume_run, r->root, r->opt.tool_version, r->options,
                            r->selection ? r->selection : "all", r->opt.host,
                            r->opt.stale_seconds_given ? r->opt.stale_seconds
                                                       : MA_VRUN_HEARTBEAT_STALE_SECONDS};
        if ((rc = ma_audit_resume_pick(r->audit, &w, &r->resumed_from, err)))
            return rc;
    }
    ma_run_info info = {"verify", r->opt.tool_version, r->opt.git_revision, r->opt.host,
                        r->opt.command_line, r->root, variant, f ? ma_format_name(f) : NULL};
    if ((rc = ma_audit_run_begin(r->audit, &info, &r->run_id, err)))
        return rc;
    static const char *const modes[] = {"full", "resume", "incremental"};
    ma_run_meta meta = {modes[r->opt.mode], r->resumed_from, r->options,
                        r->opt.shard_count > 1 ? r->opt.shard_index : 0,
                        r->opt.shard_count > 1 ? r->opt.shard_count : 0, (int64_t)r->n_order,
                        r->db && !r->opt.n_sectors ? (int64_t)ma_database_unusable_count(r->db) : -1,
                        r->selection, r->db ? (int64_t)r->planned_entries : -1, (int64_t)getpid()};
    rc = ma_audit_run_meta_set(r->audit, r->run_id, &meta, err);
    if (rc == MA_OK && r->n_order) {
        ma_planned_sector *ps = calloc(r->n_order, sizeof *ps);
        if (!ps)
            return ma_error_set(err, MA_ENOMEM, "out of memory");
        for (size_t i = 0; i < r->n_order; i++) {
            const node *nd = &r->nodes[r->order[i]];
            ps[i] = (ma_planned_sector){nd->pub.name, nd->dbs ? nd->pub.path : NULL, nd->planned_entries};
        }
        rc = ma_audit_run_plan_record(r->audit, r->run_id, ps, r->n_order, err);
        free(ps);
    }
    if (rc == MA_OK && r->resumed_from)
        rc = ma_audit_run_mark_continued(r->audit, r->resumed_from, r->run_id, err);
    return rc;
}

/* Opens the store and records the start of the run (with what the plan knows). */
static int begin_record(ma_vrun *r, ma_error *err)
{
    int rc = ma_audit_open(&r->audit, r->opt.audit_path, err);
    if (rc)
        return rc;
    rc = ma_audit_write_tx(r->audit, begin_tx, r, err);
    if (rc) {
        r->run_id = 0;
        r->resumed_from = 0;
    } else {
        r->started = 1;
    }
    return rc;
}

static uint64_t entries_estimate(const node *nd, ma_format f)
{
    return ma_shard_entries(f, nd->pub.sector, nd->dbs ? nd->dbs->path : NULL);
}

int ma_vrun_execute(ma_vrun *r, ma_error *err)
{
    if (!r)
        return ma_error_set(err, MA_EINVAL, "no run given");
    if (r->executed)
        return ma_error_set(err, MA_EINVAL, "this run was already executed: a run checks once "
                                            "(create another run to check again)");
    r->executed = 1;
    r->t0 = ma_now();
    if (!realpath(r->opt.root, r->root))
        snprintf(r->root, sizeof r->root, "%s", r->opt.root);
    /* verify reports a body that fails its header's digest as a finding of the sector
     * (verifier/run/run_sector.h), not as an unusable file */
    ma_database_options dbo = {0};
    dbo.no_digest_check = 1;
    int rc = ma_database_open(&r->db, r->opt.root, &dbo, err);
    if (rc == MA_OK) {
        for (size_t i = 0; i < ma_database_unusable_count(r->db); i++)
            add_error(r, ma_database_unusable(r->db, i)->message);
        rc = plan(r, err);
    }
    if (rc == MA_EINVAL) { /* the command line is wrong: nothing to record */
        r->seconds = ma_now() - r->t0;
        return rc;
    }
    if (rc == MA_OK && r->n_order == 0 && !empty_shard(r)) {
        char shown[1100];
        ma_escape_name(r->opt.root, shown, sizeof shown);
        add_error(r, r->whole || !r->opt.n_sectors
                         ? (snprintf(shown + strlen(shown), sizeof shown - strlen(shown),
                                     ": no usable sector files (.mdb, .sec2, .sec)"),
                            shown)
                         : shown);
    }
    if (rc == MA_EINVAL || (rc && r->opt.mode == MA_VRUN_RESUME)) {
        r->seconds = ma_now() - r->t0;
        return rc;
    }
    if (r->opt.audit_path) {
        ma_error e;
        int arc = begin_record(r, &e);
        if (arc) {
            /* a store that cannot be used stops the run before any work: the user asked for a
             * record; a foreign or corrupt store is bad input (3), an unwritable one output (4) */
            if (!rc) {
                *err = e;
                rc = arc;
            }
            r->seconds = ma_now() - r->t0;
            return rc;
        }
    }
    if (rc) { /* the database root itself is unusable: recorded as such */
        add_error(r, err->msg);
        goto finish;
    }
    if (r->audit && (rc = hash_inputs(r, err)))
        goto finish;
    if (r->hooks.on_step)
        r->hooks.on_step(r->hooks.step_ctx, "hashed", NULL);
    if (r->audit && r->opt.mode != MA_VRUN_FULL && (rc = carry(r, err)))
        goto finish;
    if (r->opt.progress) {
        uint64_t total = 0;
        for (size_t i = 0; i < r->n_order; i++)
            if (!r->nodes[r->order[i]].done)
                total += entries_estimate(&r->nodes[r->order[i]], ma_database_format(r->db));
        ma_progress_set_total(r->opt.progress, total);
    }
    for (size_t first = 0; rc == MA_OK && first < r->n_order;) {
        size_t last = first;
        while (last < r->n_order && r->unit_of_pos[last] == r->unit_of_pos[first])
            last++;
        rc = run_unit(r, first, last, err);
        if (rc == MA_OK && r->hooks.stop_after_sectors) {
            size_t committed = 0;
            for (size_t i = 0; i < last; i++)
                committed += r->nodes[r->order[i]].done && !r->nodes[r->order[i]].pub.carried;
            if (committed >= r->hooks.stop_after_sectors)
                rc = MA_ECANCELED; /* tests only: as if a signal arrived after this unit */
        }
        /* unmap what no later unit reads, so memory stays bounded by a sector and its children */
        int unit = r->unit_of_pos[first];
        for (size_t i = 0; i < r->n_nodes; i++)
            if (r->nodes[i].last_use == unit)
                ma_database_release(r->db, r->nodes[i].pub.variant, r->nodes[i].pub.sector);
        first = last;
    }
finish:
    /* the sectors the run never reached are not checked: never "ok", their entries unverified */
    for (size_t i = 0; r->selection && i < r->n_order; i++) {
        node *nd = &r->nodes[r->order[i]];
        if (!nd->done && nd->pub.status != MA_SECTOR_UNUSABLE) {
            nd->pub.status = MA_SECTOR_NOT_CHECKED;
            nd->pub.entries = nd->planned_entries;
        }
    }
    totals(r);
    r->verdict = decide_verdict(r, rc == MA_ECANCELED);
    r->phase = rc && rc != MA_ECANCELED ? r->phase : "done";
    if (r->audit && r->started) {
        ma_error e;
        const char *status = ma_verdict_status(r->verdict);
        if (ma_audit_run_end(r->audit, r->run_id, status, &e))
            record_failure(r, &e);
    }
    r->seconds = ma_now() - r->t0;
    if (rc && rc != MA_ECANCELED && r->audit && rc != MA_ENOMEM && rc != MA_EINTERNAL) {
        /* the root was unusable: a completed run with verdict incomplete, not an error */
        return MA_OK;
    }
    return rc;
}

const char *ma_vrun_phase(const ma_vrun *r) { return r->phase; }
const char *ma_vrun_root(const ma_vrun *r) { return r->root; }
ma_format ma_vrun_format(const ma_vrun *r) { return r->db ? ma_database_format(r->db) : 0; }
unsigned ma_vrun_variants(const ma_vrun *r) { return r->db ? ma_database_variants(r->db) : 0; }
int64_t ma_vrun_id(const ma_vrun *r) { return r->run_id; }
size_t ma_vrun_planned_sectors(const ma_vrun *r) { return r->n_domain; }
int64_t ma_vrun_resumed_from(const ma_vrun *r) { return r->resumed_from; }
const ma_vrun_options *ma_vrun_options_of(const ma_vrun *r) { return &r->opt; }
size_t ma_vrun_sector_count(const ma_vrun *r) { return r->n_order; }
const ma_vrun_sector *ma_vrun_sector_at(const ma_vrun *r, size_t i) { return &r->nodes[r->order[i]].pub; }
const ma_vrun_totals *ma_vrun_totals_of(const ma_vrun *r) { return &r->totals; }
size_t ma_vrun_error_count(const ma_vrun *r) { return r->n_errors; }
const char *ma_vrun_error(const ma_vrun *r, size_t i) { return r->errors[i]; }
ma_verdict_state ma_vrun_verdict_of(const ma_vrun *r) { return r->verdict; }
int ma_vrun_record_failed(const ma_vrun *r) { return r->record_failed; }

int ma_vrun_result(const ma_vrun *r, int rc)
{
    const ma_vrun_options *o = &r->opt;
    if (rc == MA_ECANCELED) /* no signal number: a test build's stop */
        return ma_result_of_signal(o->cancel && *o->cancel ? (int)*o->cancel : SIGINT);
    if (rc)
        return rc;
    if (r->record_failed) /* the record asked for is incomplete: outweighs the verdict */
        return MA_EIO;
    return ma_result_of_verdict(r->verdict, o->allow_bounds ? MA_VERDICT_ALLOW_BOUNDS : 0);
}
double ma_vrun_seconds(const ma_vrun *r) { return r->seconds; }
