/* Heuristic evaluation functions (see eval.h, docs/grading.md). */
#include "verifier/audit/eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[MA_EVAL_TERMS] = {"material", "mills", "openmills",
                                                 "twos",     "blocked", "mobility"};
static const int defaults[MA_EVAL_TERMS] = {10, 3, 2, 1, 1, 1};

const char *ma_eval_term_name(int term)
{
    return term >= 0 && term < MA_EVAL_TERMS ? names[term] : "unknown";
}

int ma_eval_default_weight(int term)
{
    return term >= 0 && term < MA_EVAL_TERMS ? defaults[term] : 0;
}

int ma_eval_parse(const char *spec, ma_eval *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (!spec || !*spec)
        return ma_error_set(err, MA_EINVAL, "evaluation: empty (known terms: material, mills, "
                                            "openmills, twos, blocked, mobility)");
    char buf[256];
    if (strlen(spec) >= sizeof buf)
        return ma_error_set(err, MA_EINVAL, "evaluation '%.40s...': too long", spec);
    snprintf(buf, sizeof buf, "%s", spec);
    int seen = 0;
    for (char *save = NULL, *tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
        int weight = 0, has_weight = 0;
        char *star = strchr(tok, '*');
        if (star) {
            *star = '\0';
            char *end;
            long w = strtol(tok, &end, 10);
            if (*end || end == tok || w < -1000 || w > 1000)
                return ma_error_set(err, MA_EINVAL, "evaluation '%s': weight '%s': expected an "
                                                    "integer -1000..1000", spec, tok);
            weight = (int)w;
            has_weight = 1;
            tok = star + 1;
        }
        int term = -1;
        for (int i = 0; i < MA_EVAL_TERMS; i++)
            if (!strcmp(tok, names[i]))
                term = i;
        if (term < 0)
            return ma_error_set(err, MA_EINVAL,
                                "evaluation '%s': unknown term '%s' (known: material, mills, "
                                "openmills, twos, blocked, mobility)", spec, tok);
        if (seen & (1 << term))
            return ma_error_set(err, MA_EINVAL, "evaluation '%s': term '%s' given twice", spec, tok);
        seen |= 1 << term;
        out->weight[term] = has_weight ? weight : defaults[term];
        size_t l = strlen(out->name);
        if (has_weight)
            snprintf(out->name + l, sizeof out->name - l, "%s%d*%s", l ? "+" : "", weight, names[term]);
        else
            snprintf(out->name + l, sizeof out->name - l, "%s%s", l ? "+" : "", names[term]);
    }
    if (!seen)
        return ma_error_set(err, MA_EINVAL, "evaluation '%s': no term", spec);
    return MA_OK;
}

static int mills_of(const ma_vrules *r, uint32_t m)
{
    int n = 0;
    for (int i = 0; i < r->n_lines; i++)
        n += (m & r->lines[i]) == r->lines[i];
    return n;
}

static int twos_of(const ma_vrules *r, uint32_t m, uint32_t empty)
{
    int n = 0;
    for (int i = 0; i < r->n_lines; i++)
        n += __builtin_popcount(m & r->lines[i]) == 2 && (empty & r->lines[i]);
    return n;
}

/* Lines a side (stones m, in hand h) can close on its next turn. */
static int open_of(const ma_vrules *r, uint32_t m, int h, uint32_t empty, int can_place)
{
    int flying = __builtin_popcount(m) + h <= 3;
    int n = 0;
    for (int i = 0; i < r->n_lines; i++) {
        uint32_t line = r->lines[i];
        if (__builtin_popcount(m & line) != 2 || !(empty & line))
            continue;
        int p = __builtin_ctz(empty & line);
        uint32_t others = m & ~line;
        if ((can_place && h > 0) || (flying && others))
            n++;
        else
            for (uint32_t o = others; o; o &= o - 1)
                if (r->adj[__builtin_ctz(o)] & (1u << p)) {
                    n++;
                    break;
                }
    }
    return n;
}

static int blocked_of(const ma_vrules *r, uint32_t m, uint32_t empty)
{
    int n = 0;
    for (uint32_t o = m; o; o &= o - 1)
        n += !(r->adj[__builtin_ctz(o)] & empty);
    return n;
}

/* Turns without removal multiplicity of a side whose rules are r (r's mover is that side). */
static int mobility_of(const ma_vrules *r, uint32_t m, uint32_t empty)
{
    int n = 0;
    if (r->can_place)
        n += __builtin_popcount(empty);
    if (r->can_move) {
        if (r->flying)
            n += __builtin_popcount(m) * __builtin_popcount(empty);
        else
            for (uint32_t o = m; o; o &= o - 1)
                n += __builtin_popcount(r->adj[__builtin_ctz(o)] & empty);
    }
    return n;
}

int32_t ma_eval_term(int term, const ma_vrules *r, const ma_vrules *opp_rules, ma_sector s,
                     ma_board b)
{
    uint32_t empty = MA_FULL_MASK & ~(b.mover | b.opp);
    switch (term) {
    case MA_EVAL_MATERIAL: return (s.w + s.wf) - (s.b + s.bf);
    case MA_EVAL_MILLS: return mills_of(r, b.mover) - mills_of(r, b.opp);
    case MA_EVAL_OPENMILLS:
        return open_of(r, b.mover, s.wf, empty, r->can_place) -
               open_of(opp_rules, b.opp, s.bf, empty, opp_rules->can_place);
    case MA_EVAL_TWOS: return twos_of(r, b.mover, empty) - twos_of(r, b.opp, empty);
    case MA_EVAL_BLOCKED: return blocked_of(r, b.opp, empty) - blocked_of(r, b.mover, empty);
    case MA_EVAL_MOBILITY: return mobility_of(r, b.mover, empty) - mobility_of(opp_rules, b.opp, empty);
    }
    return 0;
}

int32_t ma_eval_score(const ma_eval *e, const ma_vrules *r, const ma_vrules *opp_rules, ma_sector s,
                      ma_board b)
{
    int32_t sum = 0;
    for (int t = 0; t < MA_EVAL_TERMS; t++)
        if (e->weight[t])
            sum += e->weight[t] * ma_eval_term(t, r, opp_rules, s, b);
    return sum;
}
