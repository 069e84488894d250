/* Players for grading: alpha-beta with a heuristic evaluation, random, external engine. */
#include "verifier/audit/player.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/audit/engine_proto.h"
#include "verifier/audit/eval.h"
#include "verifier/check/rulebook.h"
#include "verifier/check/rules.h"

#define WIN_SCORE 1000000
#define MAX_DEPTH 8

enum { P_AB = 1, P_RANDOM = 2, P_ENGINE = 3 };

struct ma_player {
    int kind;
    ma_variant variant;
    char name[640];
    ma_eval eval;
    int depth;
    ma_rulebook *rules;
    ma_vturns *turns[MAX_DEPTH + 1]; /* one per ply of the search */
    uint64_t nodes;
    ma_engine *engine;
};

int ma_player_create(ma_player **out, const char *spec, ma_variant v, double timeout_s,
                     ma_error *err)
{
    *out = NULL;
    ma_player *p = calloc(1, sizeof *p);
    if (!p)
        return ma_error_set(err, MA_ENOMEM, "player: out of memory");
    p->variant = v;
    int rc = MA_OK;
    if (!spec)
        spec = "";
    if (!strcmp(spec, "random")) {
        p->kind = P_RANDOM;
        snprintf(p->name, sizeof p->name, "random");
    } else if (!strncmp(spec, "cmd:", 4)) {
        p->kind = P_ENGINE;
        snprintf(p->name, sizeof p->name, "cmd:%.600s", spec + 4);
        rc = ma_engine_start(&p->engine, spec + 4, timeout_s, err);
    } else if (!strncmp(spec, "ab:", 3)) {
        p->kind = P_AB;
        char buf[256];
        snprintf(buf, sizeof buf, "%s", spec + 3);
        char *colon = strrchr(buf, ':'), *end = NULL;
        long d = colon ? strtol(colon + 1, &end, 10) : -1;
        if (!colon || !end || *end || end == colon + 1 || d < 1 || d > MAX_DEPTH) {
            rc = ma_error_set(err, MA_EINVAL,
                              "player '%s': expected ab:EVAL:DEPTH with DEPTH 1..%d, e.g. "
                              "ab:material:3 or ab:mills+mobility:4", spec, MAX_DEPTH);
        } else {
            *colon = '\0';
            p->depth = (int)d;
            rc = ma_eval_parse(buf, &p->eval, err);
            if (!rc)
                rc = ma_rulebook_create(&p->rules, v, err);
            for (int i = 0; !rc && i <= MAX_DEPTH; i++)
                if (!(p->turns[i] = malloc(sizeof *p->turns[i])))
                    rc = ma_error_set(err, MA_ENOMEM, "player: out of memory");
            snprintf(p->name, sizeof p->name, "ab:%s:%d", p->eval.name, p->depth);
        }
    } else {
        rc = ma_error_set(err, MA_EINVAL,
                          "player '%s': expected ab:EVAL:DEPTH (e.g. ab:material:3), random, or "
                          "cmd:COMMAND", spec);
    }
    if (rc) {
        ma_player_free(p);
        return rc;
    }
    *out = p;
    return MA_OK;
}

void ma_player_free(ma_player *p)
{
    if (!p)
        return;
    ma_engine_stop(p->engine);
    ma_rulebook_free(p->rules);
    for (int i = 0; i <= MAX_DEPTH; i++)
        free(p->turns[i]);
    free(p);
}

const char *ma_player_name(const ma_player *p)
{
    return p->name;
}

uint64_t ma_player_nodes(const ma_player *p)
{
    return p->nodes;
}

static int full_board_draw(const ma_vrules *r)
{
    return r->full_board_draw;
}

/* Negamax alpha-beta to `depth` plies below a position at `ply` from the root; scores from the
 * side to move's view. */
static int32_t ab(ma_player *p, ma_sector s, ma_board b, int depth, int ply, int32_t alpha,
                  int32_t beta, ma_error *err, int *rc)
{
    p->nodes++;
    const ma_vrules *r = ma_rulebook_get(p->rules, s, err);
    if (!r) {
        *rc = err->code ? err->code : MA_EINTERNAL;
        return 0;
    }
    if (full_board_draw(r))
        return 0;
    ma_vturns *t = p->turns[ply];
    if (ma_vrules_generate(r, b, t) != 0) {
        *rc = ma_error_set(err, MA_EINTERNAL, "player: move generation failed");
        return 0;
    }
    if (t->immediate_wins)
        return WIN_SCORE - (ply + 1);
    if (t->n == 0)
        return -(WIN_SCORE - ply);
    if (depth == 0) {
        const ma_vrules *o = ma_rulebook_get(p->rules, ma_sector_negate(s), err);
        if (!o) {
            *rc = err->code ? err->code : MA_EINTERNAL;
            return 0;
        }
        return ma_eval_score(&p->eval, r, o, s, b);
    }
    int32_t best = -2 * WIN_SCORE;
    /* mill-closing turns first: they change the material, the term every evaluation weighs */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < t->n; i++) {
            int mill = t->kind[i] == MA_TURN_PLACE_MILL || t->kind[i] == MA_TURN_MOVE_MILL;
            if (mill != (pass == 0))
                continue;
            int32_t v = -ab(p, r->succ[t->kind[i]], t->succ[i], depth - 1, ply + 1, -beta,
                            -(alpha > best ? alpha : best), err, rc);
            if (*rc)
                return 0;
            if (v > best)
                best = v;
            if (best >= beta)
                return best;
        }
    return best;
}

static int choose_ab(ma_player *p, ma_sector s, ma_board b, const ma_probe_turn *turns, int n,
                     ma_rng *rng, int *chosen, ma_error *err)
{
    (void)b; /* the turns carry their successor boards */
    const ma_vrules *r = ma_rulebook_get(p->rules, s, err);
    if (!r)
        return err->code ? err->code : MA_EINTERNAL;
    int32_t best = -2 * WIN_SCORE;
    int n_best = 0, rc = MA_OK;
    int *ties = malloc(sizeof(int) * (size_t)n);
    if (!ties)
        return ma_error_set(err, MA_ENOMEM, "player: out of memory");
    for (int i = 0; i < n; i++) {
        int32_t v;
        if (turns[i].immediate_win) {
            v = WIN_SCORE - 1;
        } else {
            /* window (best - 1, +inf): a turn as good as the best so far is found exactly, so
             * every tie is seen; worse turns are cut */
            v = -ab(p, r->succ[turns[i].kind], turns[i].succ, p->depth - 1, 1, -2 * WIN_SCORE,
                    -(best - 1), err, &rc);
            if (rc)
                break;
        }
        if (v > best) {
            best = v;
            n_best = 0;
        }
        if (v == best)
            ties[n_best++] = i;
    }
    if (!rc)
        *chosen = ties[n_best > 1 ? ma_rng_below(rng, (uint64_t)n_best) : 0];
    free(ties);
    return rc;
}

int ma_player_choose(ma_player *p, ma_sector s, ma_board b, const ma_probe_turn *turns, int n,
                     ma_rng *rng, int *chosen, ma_error *err)
{
    if (n < 1)
        return ma_error_set(err, MA_EINTERNAL, "player: asked to move without a legal turn");
    switch (p->kind) {
    case P_RANDOM: *chosen = (int)ma_rng_below(rng, (uint64_t)n); return MA_OK;
    case P_ENGINE: return ma_engine_choose(p->engine, p->variant, s, b, turns, n, chosen, err);
    case P_AB: return choose_ab(p, s, b, turns, n, rng, chosen, err);
    }
    return ma_error_set(err, MA_EINTERNAL, "player: unknown kind");
}
