/* verifier/run/shard: greedy longest-processing-time partition of sectors into shards. */
#include "verifier/run/shard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "verifier/check/rules.h"

double ma_shard_cost(ma_variant v, ma_sector s, uint64_t entries)
{
    double c = (double)entries;
    ma_vrules rules;
    if (ma_vrules_init(&rules, v, s, NULL) == MA_OK && rules.flying && rules.can_move)
        c *= 3.0;
    return c;
}

static int by_cost(const void *a, const void *b)
{
    const ma_shard_item *x = *(const ma_shard_item *const *)a, *y = *(const ma_shard_item *const *)b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return strcmp(x->name, y->name);
}

int ma_shard_partition(ma_shard_item *items, size_t n, unsigned n_shards, ma_error *err)
{
    if (n_shards < 1)
        return ma_error_set(err, MA_EINVAL, "shards: at least one shard");
    ma_shard_item **order = malloc((n ? n : 1) * sizeof *order);
    double *load = calloc(n_shards, sizeof *load);
    if (!order || !load) {
        free(order);
        free(load);
        return ma_error_set(err, MA_ENOMEM, "shards: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        items[i].cost = ma_shard_cost(items[i].variant, items[i].sector, items[i].entries);
        order[i] = &items[i];
    }
    qsort(order, n, sizeof *order, by_cost);
    for (size_t i = 0; i < n; i++) {
        unsigned best = 0;
        for (unsigned s = 1; s < n_shards; s++)
            if (load[s] < load[best])
                best = s;
        load[best] += order[i]->cost;
        order[i]->shard = best;
    }
    free(order);
    free(load);
    return MA_OK;
}

uint64_t ma_shard_file_bytes(const ma_db_sector *s)
{
    struct stat st;
    return s && stat(s->path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

void ma_shard_plan_free(ma_shard_plan *p)
{
    if (!p)
        return;
    free(p->sectors);
    free(p->shards);
    for (size_t i = 0; i < p->n_unusable; i++)
        free(p->unusable[i]);
    free(p->unusable);
    memset(p, 0, sizeof *p);
}

int ma_shard_plan_database(ma_database *db, unsigned n_shards, ma_shard_plan *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (n_shards < 1)
        return ma_error_set(err, MA_EINVAL, "shards: at least one shard");
    size_t n = ma_database_count(db);
    out->n_shards = n_shards;
    out->n_sectors = n;
    out->sectors = calloc(n ? n : 1, sizeof *out->sectors);
    out->shards = calloc(n_shards, sizeof *out->shards);
    ma_shard_item *items = calloc(n ? n : 1, sizeof *items);
    if (!out->sectors || !out->shards || !items) {
        free(items);
        ma_shard_plan_free(out);
        return ma_error_set(err, MA_ENOMEM, "shards: out of memory");
    }
    ma_format f = ma_database_format(db);
    for (size_t i = 0; i < n; i++) {
        const ma_db_sector *d = ma_database_sector(db, i);
        ma_shard_plan_sector *p = &out->sectors[i];
        p->variant = d->variant;
        p->sector = d->sector;
        snprintf(p->name, sizeof p->name, "%s", d->name);
        p->entries = ma_format_planned_entries(f, d->sector, d->path);
        p->bytes = ma_shard_file_bytes(d);
        items[i] = (ma_shard_item){d->variant, d->sector, p->name, p->entries, 0, 0};
    }
    int rc = ma_shard_partition(items, n, n_shards, err);
    uint64_t *peak = rc ? NULL : calloc(n ? n : 1, sizeof *peak);
    if (!rc && !peak)
        rc = ma_error_set(err, MA_ENOMEM, "shards: out of memory");
    if (!rc)
        rc = ma_shard_peaks(db, n_shards, peak, err);
    for (size_t i = 0; rc == MA_OK && i < n; i++)
        out->sectors[i].peak_bytes = peak[i];
    free(peak);
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        ma_shard_plan_sector *p = &out->sectors[i];
        p->cost = items[i].cost;
        p->shard = items[i].shard;
        ma_shard_plan_shard *sh = &out->shards[p->shard];
        sh->sectors++;
        sh->entries += p->entries;
        sh->cost += p->cost;
        sh->bytes += p->bytes;
        if (p->peak_bytes > sh->peak_bytes)
            sh->peak_bytes = p->peak_bytes;
        out->total_entries += p->entries;
        out->total_cost += p->cost;
        if (p->cost > out->largest_sector_cost)
            out->largest_sector_cost = p->cost;
    }
    free(items);
    if (rc) {
        ma_shard_plan_free(out);
        return rc;
    }
    out->mean_cost = out->total_cost / n_shards;
    for (unsigned k = 0; k < n_shards; k++)
        if (out->shards[k].cost > out->largest_shard_cost)
            out->largest_shard_cost = out->shards[k].cost;
    double bound = out->mean_cost > out->largest_sector_cost ? out->mean_cost : out->largest_sector_cost;
    out->imbalance = bound > 0 ? out->largest_shard_cost / bound : 1.0;
    return MA_OK;
}

int ma_shard_of_files(ma_database *db, unsigned n_shards, const char *const *rel, size_t n, unsigned *shard_of,
                      ma_error *err)
{
    ma_shard_plan p;
    int rc = ma_shard_plan_database(db, n_shards, &p, err);
    if (rc)
        return rc;
    /* plan sectors are in the database's order, so index i of the plan is sector i of db */
    for (size_t i = 0; i < n; i++) {
        shard_of[i] = 0;
        for (size_t k = 0; k < p.n_sectors; k++)
            if (!strcmp(ma_database_sector(db, k)->file, rel[i])) {
                shard_of[i] = p.sectors[k].shard;
                break;
            }
    }
    ma_shard_plan_free(&p);
    return MA_OK;
}

int ma_shard_plan_run(ma_shard_plan *out, const ma_shard_plan_options *opt, ma_error *err)
{
    memset(out, 0, sizeof *out);
    ma_database *db = NULL;
    int rc = ma_database_open(&db, opt->root, NULL, err);
    if (rc == MA_OK)
        rc = ma_shard_plan_database(db, opt->n_shards ? opt->n_shards : 1, out, err);
    size_t n = rc == MA_OK ? ma_database_unusable_count(db) : 0;
    if (rc == MA_OK && n && !(out->unusable = calloc(n, sizeof *out->unusable)))
        rc = ma_error_set(err, MA_ENOMEM, "shards: out of memory");
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        if (!(out->unusable[i] = strdup(ma_database_unusable(db, i)->message)))
            rc = ma_error_set(err, MA_ENOMEM, "shards: out of memory");
        else
            out->n_unusable++;
    }
    if (rc == MA_OK)
        out->format = ma_database_format(db);
    else
        ma_shard_plan_free(out);
    ma_database_close(db);
    return rc;
}
