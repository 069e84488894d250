/* Root and consequence sectors of a verify run (reports/render/run_causes.h). */
#include "reports/render/run_causes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "verifier/check/rules.h"

static int has_own_fault(const ma_vrun_sector *s)
{
    return s->status == MA_SECTOR_DISCREPANCIES && (s->roots > 0 || s->body_digest == 0 || !s->propagated);
}

/* The sector of the run with this variant and sector id, or n. */
static size_t find(const ma_vrun *r, ma_variant v, ma_sector x)
{
    size_t n = ma_vrun_sector_count(r);
    for (size_t i = 0; i < n; i++) {
        const ma_vrun_sector *s = ma_vrun_sector_at(r, i);
        if (s->variant == v && ma_sector_equal(s->sector, x))
            return i;
    }
    return n;
}

/* The root sectors reachable from sector i through successor sectors (not i itself) into
 * out->because of c; seen and queue are scratch of n each. */
static int reach_roots(const ma_vrun *r, size_t i, const int *root, char *seen, size_t *queue, ma_run_cause *c)
{
    size_t n = ma_vrun_sector_count(r), head = 0, tail = 0;
    memset(seen, 0, n);
    seen[i] = 1;
    queue[tail++] = i;
    while (head < tail) {
        const ma_vrun_sector *s = ma_vrun_sector_at(r, queue[head++]);
        ma_vrules rules;
        ma_error e;
        if (ma_vrules_init(&rules, s->variant, s->sector, &e) != MA_OK)
            continue;
        for (int k = 0; k < MA_TURN_KINDS; k++) {
            if (!rules.succ_exists[k])
                continue;
            size_t j = find(r, s->variant, rules.succ[k]);
            if (j == n || seen[j])
                continue;
            seen[j] = 1;
            queue[tail++] = j;
        }
    }
    for (size_t j = 0; j < n; j++)
        if (seen[j] && j != i && root[j]) {
            size_t *p = realloc(c->because, (c->n_because + 1) * sizeof *p);
            if (!p)
                return -1;
            c->because = p;
            c->because[c->n_because++] = j;
        }
    return 0;
}

int ma_run_causes_of(ma_run_causes *out, const ma_vrun *r, ma_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = ma_vrun_sector_count(r);
    out->n = n;
    out->c = calloc(n ? n : 1, sizeof *out->c);
    int *root = calloc(n ? n : 1, sizeof *root);
    char *seen = malloc(n ? n : 1);
    size_t *queue = malloc((n ? n : 1) * sizeof *queue);
    int rc = out->c && root && seen && queue ? MA_OK : MA_ENOMEM;
    for (size_t i = 0; rc == MA_OK && i < n; i++)
        root[i] = has_own_fault(ma_vrun_sector_at(r, i));
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        const ma_vrun_sector *s = ma_vrun_sector_at(r, i);
        ma_run_cause *c = &out->c[i];
        if (s->status != MA_SECTOR_DISCREPANCIES)
            continue;
        if (!root[i] && reach_roots(r, i, root, seen, queue, c))
            rc = MA_ENOMEM;
        c->kind = root[i] || !c->n_because ? MA_CAUSE_ROOT : MA_CAUSE_CONSEQUENCE;
        out->n_roots += c->kind == MA_CAUSE_ROOT;
        out->n_consequences += c->kind == MA_CAUSE_CONSEQUENCE;
    }
    free(root), free(seen), free(queue);
    if (rc) {
        ma_run_causes_free(out);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    return MA_OK;
}

void ma_run_causes_free(ma_run_causes *c)
{
    for (size_t i = 0; c->c && i < c->n; i++)
        free(c->c[i].because);
    free(c->c);
    memset(c, 0, sizeof *c);
}

void ma_run_causes_names(char *buf, size_t size, const ma_vrun *r, const ma_run_cause *c, size_t max)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t k = 0; k < c->n_because && k < max && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? ", " : "",
                                 ma_vrun_sector_at(r, c->because[k])->name);
    if (c->n_because > max && used < size)
        snprintf(buf + used, size - used, ", ... (%s in all)", MA_NUM(c->n_because));
}
