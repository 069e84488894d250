/* verifier/run/run_plan: phase plan of a verify run (docs/runs.md "Phases"). The sectors the run
 * knows are nodes: every selected sector (all, --sector, or a shard's part of them) and every
 * successor sector one of them reads. Selected sectors that are each other's successors (twins)
 * form a unit (Tarjan's strongly connected components over a canonical order, so the order depends
 * on the sector names alone), and units are checked children first. The plan also records what
 * the coverage proof needs (every sector of the domain with its entries and shard) and what the
 * run sets out to check: its entries and the selection a --resume must repeat. */
#include "verifier/run/run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/check/rules.h"
#include "verifier/run/shard.h"

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
    if (n->dbs) {
        snprintf(path, sizeof path, "%s", n->dbs->path);
    } else {
        char file[40];
        ma_database_file_name(r->db, v, s, file, sizeof file);
        snprintf(path, sizeof path, "%.4000s/%s", ma_database_dir(r->db), file);
    }
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

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ma_vr_plan(ma_vrun *r, ma_error *err)
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
                                   ma_vr_entries_estimate(nd, ma_database_format(r->db)), 0, 0};
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
        n->planned_entries = ma_vr_entries_estimate(n, ma_database_format(r->db));
        r->planned_entries += n->planned_entries;
        sel_len += strlen(n->pub.name) + 1;
    }
    /* r->selection is set only when whole: the record of a run stopped here has none */
    char *selection = malloc(sel_len);
    if (!selection)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    if (!r->opt.n_sectors) {
        snprintf(selection, sel_len, "all");
    } else {
        const char **names = malloc((ns ? ns : 1) * sizeof *names);
        if (!names) {
            free(selection);
            return ma_error_set(err, MA_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < ns; i++)
            names[i] = r->nodes[sel[i]].pub.name;
        qsort(names, ns, sizeof *names, cmp_names);
        strcpy(selection, "sectors:");
        for (size_t i = 0; i < ns; i++) {
            if (i)
                strcat(selection, ",");
            strcat(selection, names[i]);
        }
        free(names);
    }
    r->selection = selection;
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

uint64_t ma_vr_entries_estimate(const node *nd, ma_format f)
{
    return ma_format_planned_entries(f, nd->pub.sector, nd->dbs ? nd->dbs->path : NULL);
}
