/* svsector: sector graph, closure and children-first component order. */
#include "solver/svsector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ma_svsector_parse(ma_sv_sector *s, const char *text, ma_error *err)
{
    int v[4], n = 0;
    const char *p = text;
    while (n < 4) {
        if (*p < '0' || *p > '9')
            break;
        long x = 0;
        while (*p >= '0' && *p <= '9' && x < 1000)
            x = x * 10 + (*p++ - '0');
        v[n++] = (int)x;
        if (n < 4) {
            if (*p != '_')
                break;
            p++;
        }
    }
    if (n != 4 || *p != '\0')
        return ma_error_set(err, MA_EINVAL, "bad sector '%s': expected W_B_WF_BF, e.g. 3_3_0_0", text);
    s->w = v[0];
    s->b = v[1];
    s->wf = v[2];
    s->bf = v[3];
    return MA_OK;
}

void ma_svsector_format(char *buf, size_t n, ma_sv_sector s)
{
    snprintf(buf, n, "%d_%d_%d_%d", s.w, s.b, s.wf, s.bf);
}

static void add_candidate(const ma_svrules *r, ma_sv_sector s, ma_sv_sector x, ma_sv_sector *out,
                          int *n, int *self_loop)
{
    if (x.b < 0 || x.b + x.bf < 3)
        return; /* the opponent is already lost: an immediate win, no sector */
    ma_sv_sector t = ma_svrules_negate(x);
    (void)r;
    if (ma_svrules_sector_eq(t, s)) {
        *self_loop = 1;
        return;
    }
    for (int i = 0; i < *n; i++)
        if (ma_svrules_sector_eq(out[i], t))
            return;
    out[(*n)++] = t;
}

int ma_svsector_children(const ma_svrules *r, ma_sv_sector s, ma_sv_sector out[8], int *self_loop)
{
    int n = 0, loop = 0;
    int extra = MA_SV_HAS_BUG(r, MA_SVBUG_DOUBLE_REMOVAL);
    int place = s.wf > 0;
    int move = r->variant == MA_SV_LASK ? s.w > 0 : s.wf == 0;
    if (place)
        for (int rem = 0; rem <= 1 + extra; rem++) {
            ma_sv_sector x = {s.w + 1, s.b - rem, s.wf - 1, s.bf};
            add_candidate(r, s, x, out, &n, &loop);
        }
    if (move)
        for (int rem = 0; rem <= 1 + extra; rem++) {
            ma_sv_sector x = {s.w, s.b - rem, s.wf, s.bf};
            add_candidate(r, s, x, out, &n, &loop);
        }
    if (self_loop)
        *self_loop = loop;
    return n;
}

/* Sector -> dense id; all fields <= 12 for valid sectors. */
static int sid(ma_sv_sector s)
{
    return ((s.w * 13 + s.b) * 13 + s.wf) * 13 + s.bf;
}

#define NIDS (13 * 13 * 13 * 13)

struct tarjan {
    const ma_svrules *r;
    int *index, *low, *on_stack, *stack, sp, next;
    ma_svcomponent *comp;
    int ncomp, cap;
    ma_error *err;
    int rc;
};

static ma_sv_sector unsid(int id)
{
    ma_sv_sector s = {id / 2197, id / 169 % 13, id / 13 % 13, id % 13};
    return s;
}

static void strongconnect(struct tarjan *t, int v)
{
    t->index[v] = t->low[v] = t->next++;
    t->stack[t->sp++] = v;
    t->on_stack[v] = 1;
    ma_sv_sector kids[8];
    int loop = 0;
    int nk = ma_svsector_children(t->r, unsid(v), kids, &loop);
    for (int i = 0; i < nk && t->rc == MA_OK; i++) {
        int w = sid(kids[i]);
        if (t->index[w] < 0) {
            strongconnect(t, w);
            if (t->low[w] < t->low[v])
                t->low[v] = t->low[w];
        } else if (t->on_stack[w] && t->index[w] < t->low[v]) {
            t->low[v] = t->index[w];
        }
    }
    if (t->rc != MA_OK || t->low[v] != t->index[v])
        return;
    ma_svcomponent c;
    memset(&c, 0, sizeof c);
    c.cyclic = loop;
    int w;
    do {
        w = t->stack[--t->sp];
        t->on_stack[w] = 0;
        if (c.n == 2) {
            t->rc = ma_error_set(t->err, MA_EINTERNAL,
                                 "sector graph: a component has more than two sectors");
            return;
        }
        c.s[c.n++] = unsid(w);
    } while (w != v);
    if (c.n == 2) {
        if (!ma_svrules_sector_eq(c.s[0], ma_svrules_negate(c.s[1]))) {
            t->rc = ma_error_set(t->err, MA_EINTERNAL,
                                 "sector graph: a two-sector component is not a twin pair");
            return;
        }
        c.cyclic = 1;
    }
    if (t->ncomp == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        ma_svcomponent *nc = realloc(t->comp, (size_t)cap * sizeof *nc);
        if (!nc) {
            t->rc = ma_error_set(t->err, MA_ENOMEM, "sector graph: out of memory");
            return;
        }
        t->comp = nc;
        t->cap = cap;
    }
    t->comp[t->ncomp++] = c;
}

int ma_svsector_order(const ma_svrules *r, const ma_sv_sector *starts, int nstarts,
                      ma_svcomponent **out, int *ncomp, ma_error *err)
{
    *out = NULL;
    *ncomp = 0;
    for (int i = 0; i < nstarts; i++)
        if (!ma_svrules_sector_valid(r, starts[i])) {
            char name[32];
            ma_svsector_format(name, sizeof name, starts[i]);
            return ma_error_set(err, MA_EINVAL, "sector %s is not valid for %s", name,
                                ma_svrules_variant_name(r->variant));
        }
    struct tarjan t;
    memset(&t, 0, sizeof t);
    t.r = r;
    t.err = err;
    t.index = malloc(NIDS * sizeof(int));
    t.low = malloc(NIDS * sizeof(int));
    t.on_stack = calloc(NIDS, sizeof(int));
    t.stack = malloc(NIDS * sizeof(int));
    if (!t.index || !t.low || !t.on_stack || !t.stack) {
        t.rc = ma_error_set(err, MA_ENOMEM, "sector graph: out of memory");
    } else {
        for (int i = 0; i < NIDS; i++)
            t.index[i] = -1;
        for (int i = 0; i < nstarts && t.rc == MA_OK; i++)
            if (t.index[sid(starts[i])] < 0)
                strongconnect(&t, sid(starts[i]));
    }
    free(t.index);
    free(t.low);
    free(t.on_stack);
    free(t.stack);
    if (t.rc != MA_OK) {
        free(t.comp);
        return t.rc;
    }
    *out = t.comp;
    *ncomp = t.ncomp;
    return MA_OK;
}
