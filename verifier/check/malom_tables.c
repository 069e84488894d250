/*
 * The Malom checker's table-driven path, its setup (malom_check_internal.h): everything the walk
 * reads that depends on the sector and its children and not on the index, made once before the
 * threads start.
 *
 *  - the rules relabelled to Malom's point numbering;
 *  - per child, the turn value of each stored byte (legacy) or key1 (.sec2) (child_tables), and
 *    when every child has entries of one or two bytes, the rank of each stored word's turn value
 *    among all of them (rank_tables), so that successors compare by one table load;
 *  - for the sector itself, the rank (self_ranks) or the key1 score (self_key1s) of each stored
 *    word, so that a stored value equal to the best turn value is verified without decoding;
 *  - the walk's plan (verifier/check/walk.h: representatives, stabilisers, opponent-mask tiles,
 *    destination rows, visited bitmap) and the huge-page copies of the entries it reads.
 */
#include <stdlib.h>
#include <string.h>

#include "verifier/check/malom_check_internal.h"
#include "verifier/check/score_sort.h"
#include "verifier/check/word_set.h"

static uint32_t relabel(uint32_t open_mask)
{
    return ma_malom_mask_from_open(open_mask);
}

/* The sector's rules with every point mask moved to Malom's numbering: move generation only
 * combines masks, so it works unchanged on relabelled boards. */
static void rules_to_malom(const ma_vrules *open, ma_vrules *m)
{
    *m = *open;
    for (int p = 0; p < MA_POINTS; p++) {
        int q = __builtin_ctz(relabel(1u << p));
        m->adj[q] = relabel(open->adj[p]);
        m->n_partners[q] = open->n_partners[p];
        for (int i = 0; i < 3; i++)
            m->partners[q][i] = i < open->n_partners[p] ? relabel(open->partners[p][i]) : UINT32_MAX;
    }
    for (int i = 0; i < open->n_lines; i++)
        m->lines[i] = relabel(open->lines[i]);
}
void ma_mc_fast_free(struct fast *f)
{
    if (!f)
        return;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        free(f->ch[k].bytes);
        free(f->ch[k].key1s);
        free(f->ch[k].k1score);
        free(f->ch[k].rank);
    }
    free(f->scores);
    free(f->self_rank);
    free(f->self_k1);
    free(f);
}

static int32_t abs32(int32_t x)
{
    return x < 0 ? (x == INT32_MIN ? INT32_MAX : -x) : x;
}

/* Builds the turn tables of child k; 0 or MA_ENOMEM. */
static int child_tables(struct fchild *c, int32_t v_parent)
{
    if (c->view.entry_size == 1) {
        c->bytes = malloc(256 * sizeof *c->bytes);
        if (!c->bytes)
            return MA_ENOMEM;
        uint8_t all[256];
        for (int e = 0; e < 256; e++)
            all[e] = (uint8_t)e;
        ma_malom_view one = c->view;
        one.entries = all;
        for (int e = 0; e < 256; e++) {
            struct byte_turn *t = &c->bytes[e];
            ma_malom_entry en;
            memset(t, 0, sizeof *t);
            if (!ma_malom_view_entry(&one, (uint64_t)e, &en)) {
                t->status = TS_SLOW;
            } else if (en.kind == MA_MALOM_SYM) {
                t->status = TS_BROKEN;
            } else {
                ma_malom_value cv = {en.key1, en.key2};
                t->m = ma_malom_turn_value(cv, c->v, v_parent);
                t->score = value_score(t->m);
            }
        }
        return MA_OK;
    }
    int n = 1 << c->view.f1;
    c->key1_bias = n / 2;
    c->key1s = malloc((size_t)n * sizeof *c->key1s);
    if (!c->key1s)
        return MA_ENOMEM;
    for (int i = 0; i < n; i++) {
        int32_t k1 = i - c->key1_bias;
        /* The key2 coefficients read off ma_malom_turn_value at two key2 values. */
        ma_malom_value a = ma_malom_turn_value((ma_malom_value){k1, 0}, c->v, v_parent);
        ma_malom_value b = ma_malom_turn_value((ma_malom_value){k1, 1}, c->v, v_parent);
        c->key1s[i].key1 = a.key1;
        c->key1s[i].add = (int8_t)a.key2;
        c->key1s[i].mul = (int8_t)(b.key2 - a.key2);
    }
    c->k1score = malloc((size_t)n * sizeof *c->k1score);
    if (!c->k1score)
        return MA_ENOMEM;
    for (int i = 0; i < n; i++) {
        /* value_score of (key1, mul * key2 + add): key1 * 2^33 - key2' for a win, + key2' for a
         * loss, key2' ignored for a draw */
        const struct key1_turn *t = &c->key1s[i];
        int32_t sgn = t->key1 > 0 ? -1 : t->key1 < 0 ? 1 : 0;
        c->k1score[i].base = (int64_t)t->key1 * ((int64_t)1 << 33) + sgn * t->add;
        c->k1score[i].a = sgn * t->mul;
        c->k1score[i].lim = i == c->key1_bias ? 0 : c->view.spec + 1;
    }
    return MA_OK;
}

/* Stored word i in listed order: field 1 by field 1 (the low f1 bits), field 2 increasing, where
 * the scores of one child (or of the sector itself) and one field 1 are monotone. i = field 1 *
 * 2^f2 + field 2, so the word rotates i left by f1 bits; one-byte words are listed as they are. */
static inline uint32_t listed_word(int size, uint32_t f1, uint32_t i)
{
    return size == 1 ? i : (i >> (16 - f1) | i << f1) & 0xFFFFu;
}

/* *seen for two-byte entries: seen[raw] non-zero when some entry of a child, or of the sector
 * itself when its entries have the same size, holds the word raw (verifier/check/word_set.h). The marks
 * only decide which words the tables decode and rank: a word not marked (none is missed, but a
 * file rewritten under the check could hold one) goes the slow way, RANK_SLOW in a child's table
 * and RANK_NONE in the sector's own, so what the check derives never depends on them. 0 or
 * MA_ENOMEM; the caller frees *seen. */
static int seen_words(const struct fast *f, const ma_malom_file *self_file, unsigned threads,
                      uint8_t **seen)
{
    ma_word_range r[1 + MA_TURN_KINDS];
    int n = 0;
    for (int k = -1; k < MA_TURN_KINDS; k++) {
        const ma_malom_file *file = k < 0 ? self_file : f->ch[k].file;
        const ma_malom_view *v = k < 0 ? &f->self : &f->ch[k].view;
        if (!file || v->entry_size != 2)
            continue;
        int dup = 0;
        for (int i = 0; i < n; i++)
            dup |= r[i].base == v->entries;
        if (!dup)
            r[n++] = (ma_word_range){v->entries, ma_malom_file_entry_count(file)};
    }
    *seen = calloc(MA_WORD_SET_WORDS, 1);
    return *seen ? ma_word_set_scan(*seen, r, n, threads) : MA_ENOMEM;
}

/* The rank tables (struct fast, ranked) when every existing child has entries of one size, 1 or
 * 2 bytes; 0 or MA_ENOMEM (then f->ranked = 0). Two-byte words are ranked when seen (seen_words,
 * left in *seen for self_ranks; NULL for one-byte words, all 256 of which are ranked). */
static int rank_tables(struct fast *f, int32_t v_parent, const ma_malom_file *self_file,
                       unsigned threads, uint8_t **seen)
{
    int size = 0;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        if (!f->ch[k].file)
            continue;
        if (size && f->ch[k].view.entry_size != size)
            return MA_OK;
        size = f->ch[k].view.entry_size;
    }
    if (size < 1 || size > 2)
        return MA_OK;
    if (size == 2 && seen_words(f, self_file, threads, seen))
        return MA_ENOMEM;
    const uint32_t n_raw = size == 1 ? 1u << 8 : 1u << 16;
    /* The words to decode: the seen ones (two-byte entries), or every byte. */
    uint32_t *words = malloc(n_raw * sizeof *words), n_words = 0;
    for (uint32_t raw = 0; words && raw < n_raw; raw++)
        if (!*seen || (*seen)[raw])
            words[n_words++] = raw;
    /* Each child's rank table first holds RANK_* or 0 (a value, its score in all[]). */
    ma_scored *all = malloc((size_t)MA_TURN_KINDS * n_words * sizeof *all + 1);
    ma_scored *tmp = malloc((size_t)MA_TURN_KINDS * n_words * sizeof *tmp + 1);
    f->scores = malloc((size_t)MA_TURN_KINDS * n_words * sizeof *f->scores + 1);
    int rc = words && all && tmp && f->scores ? MA_OK : MA_ENOMEM;
    size_t n = 0;
    for (int k = 0; k < MA_TURN_KINDS && !rc; k++) {
        struct fchild *c = &f->ch[k];
        if (!c->file)
            continue;
        c->rank = malloc(n_raw * sizeof *c->rank);
        if (!c->rank) {
            rc = MA_ENOMEM;
            break;
        }
        if (*seen)
            for (uint32_t raw = 0; raw < n_raw; raw++)
                c->rank[raw] = RANK_SLOW;
        for (uint32_t i = 0; i < n_words; i++) {
            uint32_t raw = words[i];
            uint8_t bytes[3] = {(uint8_t)raw, (uint8_t)(raw >> 8), 0}; /* the view reads up to 3 */
            ma_malom_view one = c->view;
            one.entries = bytes;
            ma_malom_entry e;
            c->rank[raw] = 0;
            if (!ma_malom_view_entry(&one, 0, &e)) {
                c->rank[raw] = RANK_SLOW;
            } else if (e.kind == MA_MALOM_SYM) {
                c->rank[raw] = RANK_BROKEN;
            } else {
                ma_malom_value cv = {e.key1, e.key2};
                all[n].score = value_score(ma_malom_turn_value(cv, c->v, v_parent));
                all[n++].id = (uint32_t)k * n_raw + raw;
            }
        }
    }
    free(words);
    if (!rc) {
        /* In score order, the i-th distinct score (from 0) gets rank 2i + 1 (see score_rank); u
         * counts the distinct scores so far, so the current one's rank is 2u - 1. */
        ma_score_sort(all, n, tmp);
        size_t u = 0;
        for (size_t i = 0; i < n; i++) {
            if (u == 0 || f->scores[u - 1] != all[i].score)
                f->scores[u++] = all[i].score;
            f->ch[all[i].id / n_raw].rank[all[i].id % n_raw] = (int32_t)(2 * u - 1);
        }
        f->n_scores = u;
        f->no_turn_rank = score_rank(f, f->no_turn_score);
        f->ranked = size;
    }
    free(all);
    free(tmp);
    return rc;
}

/* f->self_rank when f->complete and the sector's entries have the ranked size; 0 or MA_ENOMEM.
 * Each stored byte or word is decoded and interpreted as ma_mc_conclude does, so a stored value the
 * whole way would not find well-formed and equal to the best turn value has no odd rank. */
static int self_ranks(struct fast *f, const ma_malom_frame *frame, const uint8_t *seen)
{
    if (!f->complete || f->self.entry_size != f->ranked)
        return MA_OK;
    const uint32_t n_raw = f->ranked == 1 ? 1u << 8 : 1u << 16;
    f->self_rank = malloc(n_raw * sizeof *f->self_rank);
    if (!f->self_rank)
        return MA_ENOMEM;
    /* In listed order the scores come in monotone runs, and each is searched from where the last
     * one was found (1 ms of the setup of STONE_DIFF 5_3, where a search from scratch for each
     * took 2.2). */
    size_t near = 0;
    for (uint32_t i = 0; i < n_raw; i++) {
        uint32_t raw = listed_word(f->ranked, (uint32_t)f->self.f1, i);
        uint8_t bytes[3] = {(uint8_t)raw, (uint8_t)(raw >> 8), 0}; /* the view reads up to 3 */
        ma_malom_view one = f->self;
        one.entries = bytes;
        ma_malom_entry e;
        ma_malom_result rs;
        int32_t r = RANK_NONE;
        if ((!seen || seen[raw]) && ma_malom_view_entry(&one, 0, &e) &&
            e.kind != MA_MALOM_SYM && !ma_malom_interpret(frame, &e, &rs)) {
            int32_t sr = ma_score_rank_near(f->scores, f->n_scores,
                                            value_score((ma_malom_value){e.key1, e.key2}), &near);
            if (sr & 1)
                r = sr;
        }
        f->self_rank[raw] = r;
    }
    return MA_OK;
}

/* f->self_k1 when f->complete_sec2; 0 or MA_ENOMEM. The score and the classes are read off
 * value_score and ma_malom_interpret at sample key2 values; a class whose samples disagree is
 * left out, so the fast verdict never accepts what ma_mc_conclude would not. */
static int self_key1s(struct fast *f, const ma_malom_frame *frame)
{
    if (!f->complete_sec2 || f->self.entry_size < 2)
        return MA_OK;
    const uint32_t n = 1u << f->self.f1;
    f->self_k1 = malloc(n * sizeof *f->self_k1);
    if (!f->self_k1)
        return MA_ENOMEM;
    f->self_mask1 = n - 1u;
    f->self_m1 = 1u << (f->self.f1 - 1);
    f->self_m2 = 1u << (f->self.f2 - 1);
    static const int32_t samples[4][3] = {{-1, -2, -3}, {0, 0, 0}, {1, 3, 5}, {2, 4, 6}};
    for (uint32_t x = 0; x < n; x++) {
        int32_t k1 = (int32_t)x - (int32_t)f->self_m1;
        struct self_key1 *sk = &f->self_k1[x];
        sk->base = value_score((ma_malom_value){k1, 0});
        sk->a = (int32_t)(value_score((ma_malom_value){k1, 1}) - sk->base);
        sk->ok = 0;
        for (int cls = 0; cls < 4; cls++) {
            int ok = 1;
            for (int i = 0; i < 3; i++) {
                int32_t k2 = samples[cls][i];
                ma_malom_entry e = {k1 ? MA_MALOM_VAL : k2 < 0 ? MA_MALOM_SYM : MA_MALOM_COUNT,
                                    k1, k2, -1};
                ma_malom_result rs;
                ok &= e.kind != MA_MALOM_SYM && !ma_malom_interpret(frame, &e, &rs) &&
                      value_score((ma_malom_value){k1, k2}) == sk->base + (int64_t)sk->a * k2;
            }
            sk->ok |= (uint8_t)(ok << cls);
        }
    }
    return MA_OK;
}

/* Where the walk reads the children's entries and the sector's own: huge-page copies when they
 * fit the budget (ma_walk_copies), else the mapped files. The sector's own entries are read once
 * each, but in the walk's order, a stride of one representative block: on 4 KiB pages nearly
 * every read would miss the TLB too. When the sector is its own child (the moving phase) the
 * child copy serves both. Entries copied from their file's mapping leave the mapping as they are
 * copied, so no byte is held twice; entries read privately (verify's units within the budget) are
 * in private memory already (on huge pages from 2 MiB up) and read in place. */
static void make_resident(struct fast *f, struct mc_shared *sh)
{
    const void *src[MA_TURN_KINDS + 1], *at[MA_TURN_KINDS + 1];
    size_t bytes[MA_TURN_KINDS + 1];
    uint64_t whole[MA_TURN_KINDS + 1];
    int mapped[MA_TURN_KINDS + 1];
    for (int k = 0; k <= MA_TURN_KINDS; k++) {
        const ma_malom_file *file = k < MA_TURN_KINDS ? f->ch[k].file : sh->in->file;
        const ma_malom_view *v = k < MA_TURN_KINDS ? &f->ch[k].view : &f->self;
        src[k] = file ? v->entries : NULL;
        bytes[k] = file ? (size_t)(ma_malom_file_entry_count(file) * (uint64_t)v->entry_size) : 0;
        size_t size = 0;
        const uint8_t *map = file ? ma_malom_file_bytes(file, &size) : NULL;
        whole[k] = size;
        mapped[k] = file ? ma_walk_body_kind(src[k], bytes[k], map, size,
                                             ma_malom_file_private_sha256(file) != NULL)
                         : 0;
    }
    ma_walk_copies(&sh->walk, src, bytes, whole, mapped, MA_TURN_KINDS + 1, at);
    for (int k = 0; k < MA_TURN_KINDS; k++)
        if (f->ch[k].file)
            f->ch[k].view.entries = at[k];
    f->self.entries = at[MA_TURN_KINDS];
}

/* ma_fused_turns's maps come from Malom's index, in its numbering. */
static int fill_map(const void *ix, uint32_t mover, ma_mover_map *mm)
{
    return ma_malom_index_mover_map(ix, mover, mm);
}

/* Representative r of W stones (Malom's numbering) and the ops other than the identity that fix
 * it. */
static void malom_rep(const void *ix, int w, uint64_t r, uint32_t *rep, uint16_t *stab)
{
    uint32_t m = ma_malom_index_rep(ix, w, r);
    uint16_t bits = 0;
    for (int op = 0; op < MA_MALOM_SYM_OPS - 1; op++)
        if (ma_malom_apply_mask(op, m) == m)
            bits |= (uint16_t)(1u << op);
    *rep = m;
    *stab = bits;
}

int ma_mc_fast_setup(struct mc_shared *sh)
{
    int32_t big = 0;
    big = abs32(sh->frame.v) > big ? abs32(sh->frame.v) : big;
    big = abs32(sh->frame.vw) > big ? abs32(sh->frame.vw) : big;
    big = abs32(sh->frame.vl) > big ? abs32(sh->frame.vl) : big;
    for (int k = 0; k < MA_TURN_KINDS; k++)
        if (sh->child[k])
            big = abs32(sh->child_frame[k].v) > big ? abs32(sh->child_frame[k].v) : big;
    /* stored key1 < 2^13 in magnitude, so every turn value's key1 stays below 2^28 */
    if (big > (1 << 26))
        return MA_OK;
    struct fast *f = calloc(1, sizeof *f);
    if (!f)
        return MA_ENOMEM;
    rules_to_malom(&sh->rules, &f->rules);
    ma_malom_file_view(sh->in->file, &f->self);
    f->w = sh->sector.w;
    f->b = sh->sector.b;
    f->no_turn = ma_malom_no_turn(&sh->frame);
    f->win1 = ma_malom_win_in_one(&sh->frame);
    f->no_turn_score = value_score(f->no_turn);
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        struct fchild *c = &f->ch[k];
        c->file = sh->child[k];
        if (!c->file)
            continue;
        ma_malom_file_view(c->file, &c->view);
        c->v = sh->child_frame[k].v;
        if (child_tables(c, sh->frame.v)) {
            ma_mc_fast_free(f);
            return MA_ENOMEM;
        }
    }
    uint8_t *seen = NULL; /* the words held, from rank_tables to self_ranks */
    int rc = MA_ENOMEM;
    if (rank_tables(f, sh->frame.v, sh->in->file, (unsigned)sh->in->threads, &seen))
        goto fail;
    /* the walk marks every index, in either order (the index self-check); about 8192 indices
     * per chunk: the cancel flag is polled at least that often */
    ma_walk_sector ws = {.entries = sh->entries, .w = f->w, .b = f->b,
                         .per_rep = ma_malom_hash_count(f->w, f->b) / ma_malom_f_count(f->w),
                         .n_reps = ma_malom_f_count(f->w), .rep = malom_rep, .ix = sh->in->ix,
                         .rules = &f->rules, .opp_chunk = 8192, .mark_by_entry = 1};
    if ((rc = ma_walk_plan(&sh->walk, &ws)) != MA_OK)
        goto fail;
    rc = MA_ENOMEM;
    f->reps = sh->walk.reps;
    f->stab = sh->walk.stab;
    f->turn_rows = &sh->walk.turn_rows;
    make_resident(f, sh);
    f->fused = (ma_fused_sector){.rules = &f->rules, .w = f->w, .ix = sh->in->ix,
                                 .fill_map = fill_map};
    sh->walk.fused = &f->fused;
    sh->walk.group_maps = ma_malom_index_prepared(sh->in->ix, f->b);
    f->complete = f->ranked != 0;
    f->complete_sec2 = !f->ranked;
    const ma_malom_view *layout = NULL;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        const struct fchild *c = &f->ch[k];
        if (sh->rules.succ_exists[k] && !c->file)
            f->complete = f->complete_sec2 = 0;
        if (c->file && !c->k1score)
            f->complete_sec2 = 0;
        if (c->file && c->k1score) {
            if (!layout)
                layout = &c->view;
            else if (c->view.entry_size != layout->entry_size || c->view.f1 != layout->f1 ||
                     c->view.f2 != layout->f2 || c->view.spec != layout->spec)
                f->complete_sec2 = 0; /* one layout for all children, so sec2_best hoists it */
            if (c->view.spec != -(int32_t)(1u << (c->view.f2 - 1)))
                f->complete_sec2 = 0; /* key1_score's lim needs SPEC below every value */
        }
        f->ent[k] = c->file ? c->view.entries : NULL;
        f->rank[k] = c->file ? c->rank : NULL;
        f->k1s[k] = c->file ? c->k1score : NULL;
        f->fused.body[k] = f->ent[k];
        f->fused.entry_size[k] = c->file ? (uint32_t)c->view.entry_size : 0;
        f->fused.entries[k] = c->file ? ma_malom_file_entry_count(c->file) : 0;
    }
    if (!layout)
        f->complete_sec2 = 0;
    if (f->complete_sec2) {
        f->sec2_size = layout->entry_size;
        f->sec2_f1 = layout->f1;
        f->sec2_mask1 = (1u << layout->f1) - 1u;
        f->sec2_m1 = 1u << (layout->f1 - 1);
        f->sec2_m2 = 1u << (layout->f2 - 1);
    }
    if (self_ranks(f, &sh->frame, seen) || self_key1s(f, &sh->frame))
        goto fail;
    free(seen);
    sh->fast = f;
    return MA_OK;
fail:
    free(seen);
    ma_mc_fast_free(f);
    return rc;
}
