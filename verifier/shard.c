/* verifier/shard: greedy longest-processing-time partition of sectors into shards. */
#include "verifier/shard.h"

#include <stdlib.h>
#include <string.h>

#include "verifier/rules.h"

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
