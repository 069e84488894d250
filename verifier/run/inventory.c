/* verifier/run/inventory: the files and the partition a recorded run was planned from
 * (verifier/run/inventory.h). */
#include "verifier/run/inventory.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksums/sha256.h"
#include "verifier/formats/open_file.h"
#include "verifier/formats/source.h"
#include "verifier/run/shard.h"

static int cmp_file(const void *x, const void *y)
{
    return strcmp(((const ma_inventory_file *)x)->name, ((const ma_inventory_file *)y)->name);
}

static int cmp_plan(const void *x, const void *y)
{
    return strcmp(((const ma_plan_sector *)x)->sector, ((const ma_plan_sector *)y)->sector);
}

/* The canonical texts are hashed line by line through one running SHA-256 of a buffer: the rows
 * are small (a few hundred bytes per sector), so one buffer of the whole text is simplest. */
typedef struct text {
    char *s;
    size_t n, cap;
    int oom;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...)
{
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    int l = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (l < 0 || t->oom)
        return;
    if (t->n + (size_t)l + 1 > t->cap) {
        size_t cap = 2 * (t->n + (size_t)l + 1);
        char *p = realloc(t->s, cap);
        if (!p) {
            t->oom = 1;
            return;
        }
        t->s = p;
        t->cap = cap;
    }
    memcpy(t->s + t->n, line, (size_t)l);
    t->n += (size_t)l;
}

static void digest_of(const text *t, char out[65])
{
    uint8_t d[MA_SHA256_LEN];
    ma_sha256_buffer(d, t->s ? t->s : "", t->n);
    ma_sha256_hex(out, d);
}

/* Both digests of the rows as they are (no sorting); 0, or -1 out of memory. */
static int compute(const ma_inventory *inv, char inv_digest[65], char plan_digest[65])
{
    text t = {0};
    put(&t, "millaudit inventory 1\n");
    for (size_t i = 0; i < inv->n_files; i++) {
        const ma_inventory_file *f = &inv->files[i];
        put(&t, "%s\t%" PRIu64 "\t%s\t%s\n", f->name, f->size, f->digest, f->sector);
    }
    digest_of(&t, inv_digest);
    t.n = 0;
    put(&t, "millaudit plan 1\n%s\nshards %u\n%s\n", inv_digest, inv->shard_count, inv->whole ? "whole" : "named");
    for (size_t i = 0; i < inv->n_plan; i++) {
        const ma_plan_sector *p = &inv->plan[i];
        put(&t, "%s\t%" PRIu64 "\t%u\n", p->sector, p->entries, p->shard);
    }
    digest_of(&t, plan_digest);
    int oom = t.oom;
    free(t.s);
    return oom ? -1 : 0;
}

int ma_inventory_seal(ma_inventory *inv)
{
    if (inv->n_files)
        qsort(inv->files, inv->n_files, sizeof *inv->files, cmp_file);
    if (inv->n_plan)
        qsort(inv->plan, inv->n_plan, sizeof *inv->plan, cmp_plan);
    return compute(inv, inv->inventory_digest, inv->plan_digest);
}

int ma_inventory_diff(const ma_inventory *x, const char *a, const ma_inventory *y, const char *b, char *out,
                      size_t len)
{
    size_t i = 0, j = 0;
    while (i < x->n_files || j < y->n_files) {
        int c = i == x->n_files ? 1 : j == y->n_files ? -1 : strcmp(x->files[i].name, y->files[j].name);
        if (c < 0) {
            snprintf(out, len, "%s is in %s's inventory (size %" PRIu64 ", %.30s) but not in %s's", x->files[i].name,
                     a, x->files[i].size, x->files[i].digest, b);
            return 1;
        }
        if (c > 0) {
            snprintf(out, len, "%s is in %s's inventory (size %" PRIu64 ", %.30s) but not in %s's", y->files[j].name,
                     b, y->files[j].size, y->files[j].digest, a);
            return 1;
        }
        const ma_inventory_file *f = &x->files[i], *g = &y->files[j];
        if (f->size != g->size || strcmp(f->digest, g->digest) || strcmp(f->sector, g->sector)) {
            snprintf(out, len, "%s differs: %s saw size %" PRIu64 ", %.30s; %s saw size %" PRIu64 ", %.30s", f->name,
                     a, f->size, f->digest, b, g->size, g->digest);
            return 1;
        }
        i++;
        j++;
    }
    return 0;
}

const ma_plan_sector *ma_inventory_planned(const ma_inventory *inv, const char *sector)
{
    ma_plan_sector key;
    snprintf(key.sector, sizeof key.sector, "%s", sector);
    return inv->n_plan ? bsearch(&key, inv->plan, inv->n_plan, sizeof key, cmp_plan) : NULL;
}

const ma_inventory_file *ma_inventory_file_of(const ma_inventory *inv, const char *sector)
{
    for (size_t i = 0; i < inv->n_files; i++)
        if (!strcmp(inv->files[i].sector, sector))
            return &inv->files[i];
    return NULL;
}

int ma_inventory_verify(const ma_inventory *inv, const char *what, ma_error *err)
{
    char d_inv[65], d_plan[65];
    if (compute(inv, d_inv, d_plan))
        return ma_error_set(err, MA_ENOMEM, "inventory: out of memory");
    if (strcmp(d_inv, inv->inventory_digest))
        return ma_error_set(err, MA_EFORMAT,
                            "%s: inventory_digest: the recorded inventory rows hash to %.16s..., the run recorded "
                            "%.16s...: the store was changed after the run",
                            what, d_inv, inv->inventory_digest);
    if (strcmp(d_plan, inv->plan_digest))
        return ma_error_set(err, MA_EFORMAT,
                            "%s: plan_digest: the recorded plan rows hash to %.16s..., the run recorded %.16s...: "
                            "the store was changed after the run",
                            what, d_plan, inv->plan_digest);
    if (inv->shard_count < 1)
        return ma_error_set(err, MA_EFORMAT, "%s: plan: shard count 0", what);
    for (size_t i = 1; i < inv->n_plan; i++)
        if (strcmp(inv->plan[i - 1].sector, inv->plan[i].sector) >= 0)
            return ma_error_set(err, MA_EFORMAT, "%s: plan: sector %s listed out of order or twice", what,
                                inv->plan[i].sector);
    if (inv->whole) {
        /* a whole plan is exactly the sector files of the inventory */
        size_t files = 0;
        for (size_t i = 0; i < inv->n_files; i++) {
            if (!inv->files[i].sector[0])
                continue;
            files++;
            if (!ma_inventory_planned(inv, inv->files[i].sector))
                return ma_error_set(err, MA_EFORMAT, "%s: sector %s: its file %s is in the inventory but not in the plan",
                                    what, inv->files[i].sector, inv->files[i].name);
        }
        if (files != inv->n_plan)
            for (size_t i = 0; i < inv->n_plan; i++)
                if (!ma_inventory_file_of(inv, inv->plan[i].sector))
                    return ma_error_set(err, MA_EFORMAT, "%s: sector %s: planned, but no file of the inventory holds it",
                                        what, inv->plan[i].sector);
    }
    /* the partition is a function of the plan's names and entry counts: compute it again */
    ma_shard_item *items = calloc(inv->n_plan ? inv->n_plan : 1, sizeof *items);
    if (!items)
        return ma_error_set(err, MA_ENOMEM, "inventory: out of memory");
    int rc = MA_OK;
    for (size_t i = 0; rc == MA_OK && i < inv->n_plan; i++) {
        ma_variant v = MA_VARIANT_STD;
        int named = 0;
        ma_sector s;
        ma_error e;
        if (ma_sector_arg_parse(inv->plan[i].sector, &v, &named, &s, &e) || !named || !ma_sector_valid(v, s))
            rc = ma_error_set(err, MA_EFORMAT, "%s: plan: sector name %s is not <variant>_W_B_WF_BF", what,
                              inv->plan[i].sector);
        items[i] = (ma_shard_item){v, s, inv->plan[i].sector, inv->plan[i].entries, 0, 0};
    }
    if (rc == MA_OK && inv->n_plan)
        rc = ma_shard_partition(items, inv->n_plan, inv->shard_count, err);
    for (size_t i = 0; rc == MA_OK && i < inv->n_plan; i++)
        if (items[i].shard != inv->plan[i].shard)
            rc = ma_error_set(err, MA_EFORMAT,
                              "%s: sector %s: shard: the plan assigns it to shard %u/%u, the partition of the plan's "
                              "sectors to shard %u/%u",
                              what, inv->plan[i].sector, inv->plan[i].shard, inv->shard_count, items[i].shard,
                              inv->shard_count);
    free(items);
    return rc;
}
