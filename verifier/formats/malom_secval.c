/*
 * `.secval` parsing and checking, STONE_DIFF values (malom-format.md §5.4, §5.6, §3.1, §3.3).
 * Contract in malom_secval.h.
 */
#include "verifier/formats/malom_secval.h"

#include "common/counts.h"
#include "common/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SV_MAX 12                 /* largest stone count in any field */
#define SV_SLOTS (13 * 13 * 13 * 13)
#define SV_MAX_MAGNITUDE 1000000000L /* far beyond any real value; keeps arithmetic in int32 */

struct ma_malom_secval {
    char path[256]; /* for messages about sectors looked up later */
    ma_variant variant;
    int32_t vw, vl;
    size_t count;
    uint8_t listed[SV_SLOTS]; /* 1 when the sector appears in the file */
    int32_t value[SV_SLOTS];  /* its value */
};

static int slot(ma_sector s)
{
    return ((s.w * 13 + s.b) * 13 + s.wf) * 13 + s.bf;
}

static int stones_of(ma_variant v)
{
    switch (v) {
    case MA_VARIANT_STD: return 9;
    case MA_VARIANT_LASK: return 10;
    case MA_VARIANT_MORA: return 12;
    }
    return 0;
}

static const char *variant_word(ma_variant v)
{
    switch (v) {
    case MA_VARIANT_STD: return "std";
    case MA_VARIANT_LASK: return "lask";
    case MA_VARIANT_MORA: return "mora";
    }
    return "?";
}

static void sector_text(ma_sector s, char *buf, size_t len)
{
    snprintf(buf, len, "%u_%u_%u_%u", s.w, s.b, s.wf, s.bf);
}

static ma_sector negate(ma_sector s)
{
    ma_sector r = {s.b, s.w, s.bf, s.wf};
    return r;
}

int ma_malom_sector_transient(ma_variant variant, ma_sector s)
{
    if (variant == MA_VARIANT_LASK)
        return s.w == 0 || s.b == 0;
    return !(s.wf == 0 && s.bf == 0);
}

ma_malom_frame ma_malom_stonediff_frame(ma_variant variant, ma_sector s)
{
    int n = stones_of(variant);
    ma_malom_frame f = {(int32_t)(s.w + s.wf) - (int32_t)(s.b + s.bf), n + 1, -(n + 1)};
    return f;
}

/* Sector set of the normal solution (§3.3): the closure of succ from (0, 0, N, N). in_set has
 * SV_SLOTS bytes; queue has room for SV_SLOTS sectors (each enters at most once). */
static void sector_closure(ma_variant variant, uint8_t *in_set, ma_sector *queue)
{
    int n = stones_of(variant);
    int lask = variant == MA_VARIANT_LASK;
    memset(in_set, 0, SV_SLOTS);
    int head = 0, tail = 0;
    ma_sector start = {0, 0, (uint8_t)n, (uint8_t)n};
    in_set[slot(start)] = 1;
    queue[tail++] = start;
    while (head < tail) {
        ma_sector s = queue[head++];
        int cand[4][4];
        int nc = 0;
        if (s.wf > 0) {
            int a[4] = {s.w + 1, s.b, s.wf - 1, s.bf}, b[4] = {s.w + 1, s.b - 1, s.wf - 1, s.bf};
            memcpy(cand[nc++], a, sizeof a);
            memcpy(cand[nc++], b, sizeof b);
        }
        if (lask ? s.w > 0 : s.wf == 0) {
            int a[4] = {s.w, s.b, s.wf, s.bf}, b[4] = {s.w, s.b - 1, s.wf, s.bf};
            memcpy(cand[nc++], a, sizeof a);
            memcpy(cand[nc++], b, sizeof b);
        }
        for (int i = 0; i < nc; i++) {
            const int *x = cand[i];
            if (x[1] < 0 || x[1] + x[3] < 3 || x[0] > SV_MAX)
                continue;
            ma_sector t = {(uint8_t)x[1], (uint8_t)x[0], (uint8_t)x[3], (uint8_t)x[2]}; /* negate */
            int k = slot(t);
            if (in_set[k])
                continue;
            in_set[k] = 1;
            queue[tail++] = t;
        }
    }
}

/* A whitespace-separated token reader that remembers where each token starts. */
typedef struct cursor {
    const char *text;
    size_t len;
    size_t pos;
    size_t tok_start; /* byte offset of the last token read */
} cursor;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Reads the next token into buf; 0 at end of input, 1 on success, -1 if a byte is not printable
 * ASCII or the token is too long. */
static int next_token(cursor *c, char *buf, size_t cap)
{
    while (c->pos < c->len && is_space(c->text[c->pos]))
        c->pos++;
    c->tok_start = c->pos;
    if (c->pos >= c->len)
        return 0;
    size_t n = 0;
    while (c->pos < c->len && !is_space(c->text[c->pos])) {
        unsigned char ch = (unsigned char)c->text[c->pos];
        if (ch < 0x21 || ch > 0x7E || n + 1 >= cap)
            return -1;
        buf[n++] = (char)ch;
        c->pos++;
    }
    buf[n] = '\0';
    return 1;
}

static int parse_int(const char *tok, long *out)
{
    const char *p = tok;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    if (!*p)
        return -1;
    long v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (*p - '0');
        if (v > SV_MAX_MAGNITUDE)
            return -1;
    }
    *out = neg ? -v : v;
    return 0;
}

/* 1-based number of the line that holds byte off of text. */
static size_t line_of(const char *text, size_t len, size_t off)
{
    size_t line = 1;
    for (size_t i = 0; i < off && i < len; i++)
        line += text[i] == '\n';
    return line;
}

#define FAIL(sec, off, ...)                                                                        \
    do {                                                                                           \
        char what_[256];                                                                           \
        snprintf(what_, sizeof what_, __VA_ARGS__);                                                \
        rc = ma_error_set(err, MA_EFORMAT, "%s: sector %s: offset %zu: line %zu: %s", path, sec,  \
                          (size_t)(off), line_of(text, len, (size_t)(off)), what_);                \
        goto fail;                                                                                 \
    } while (0)

/* FAIL at sector s_: its name is formatted only when failing, since every one of the 28,561 slots
 * is looked at on each open (snprintf for each took 6 ms, serial before a check's threads start). */
#define FAIL_AT(s_, off, ...)                                                                      \
    do {                                                                                           \
        sector_text((s_), sec, sizeof sec);                                                        \
        FAIL(sec, off, __VA_ARGS__);                                                               \
    } while (0)

/* A listed nonzero value and where it was given, for finding two sectors with one value. */
typedef struct sv_value {
    int32_t v;
    int slot;
    size_t off;
} sv_value;

static int cmp_sv_value(const void *a, const void *b)
{
    const sv_value *x = a, *y = b;
    if (x->v != y->v)
        return (x->v > y->v) - (x->v < y->v);
    return (x->off > y->off) - (x->off < y->off);
}

static ma_sector sector_of_slot(int k)
{
    ma_sector s = {(uint8_t)(k / 2197), (uint8_t)(k / 169 % 13), (uint8_t)(k / 13 % 13), (uint8_t)(k % 13)};
    return s;
}

/* Reads one integer token; `what` names it in the error. */
static int read_int(cursor *c, long *out)
{
    char tok[64];
    int t = next_token(c, tok, sizeof tok);
    if (t <= 0)
        return t == 0 ? 1 : 2;
    return parse_int(tok, out) ? 2 : 0;
}

int ma_malom_secval_parse(ma_malom_secval **out, const char *path, const char *text, size_t len,
                          ma_variant variant, ma_error *err)
{
    int rc = MA_OK;
    *out = NULL;
    int n_stones = stones_of(variant);
    if (!n_stones)
        return ma_error_set(err, MA_EINVAL, "%s: unknown variant %d", path, (int)variant);
    ma_malom_secval *sv = calloc(1, sizeof *sv);
    uint8_t *expected = malloc(SV_SLOTS);
    ma_sector *queue = malloc(sizeof *queue * SV_SLOTS);
    size_t *line_off = malloc(sizeof *line_off * SV_SLOTS); /* where each listed sector's line starts */
    sv_value *vals = NULL;
    if (!sv || !expected || !queue || !line_off) {
        free(sv);
        free(expected);
        free(queue);
        free(line_off);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    }
    snprintf(sv->path, sizeof sv->path, "%s", path);
    sv->variant = variant;
    cursor c = {text, len, 0, 0};
    char tok[64];
    long v;
    static const char *const labels[2] = {"virt_loss_val:", "virt_win_val:"};
    long virt[2];
    for (int i = 0; i < 2; i++) {
        int t = next_token(&c, tok, sizeof tok);
        if (t <= 0 || strcmp(tok, labels[i]) != 0)
            FAIL("-", c.tok_start, "expected \"%s\"", labels[i]);
        int r = read_int(&c, &virt[i]);
        if (r)
            FAIL("-", c.tok_start, "%s: expected an integer", labels[i]);
    }
    sv->vl = (int32_t)virt[0];
    sv->vw = (int32_t)virt[1];
    if (sv->vw <= 0 || sv->vw != -sv->vl)
        FAIL("-", 0, "virt_win_val %d is not the positive negation of virt_loss_val %d", sv->vw,
             sv->vl);
    long count;
    if (read_int(&c, &count) || count < 0 || count > SV_SLOTS)
        FAIL("-", c.tok_start, "expected the number of sectors (0..%d)", SV_SLOTS);
    char sec[32];
    for (long i = 0; i < count; i++) {
        long f[5];
        size_t line_start = 0;
        for (int j = 0; j < 5; j++) {
            int r = read_int(&c, &f[j]);
            if (j == 0)
                line_start = c.tok_start;
            if (r == 1)
                FAIL("-", c.tok_start, "file ends after %s of %s", MA_NUM((uint64_t)i), MA_COUNT((uint64_t)count, "sector line", "sector lines"));
            if (r)
                FAIL("-", c.tok_start, "sector line %ld: expected an integer", i + 1);
        }
        for (int j = 0; j < 4; j++)
            if (f[j] < 0 || f[j] > n_stones)
                FAIL("-", line_start, "sector line %ld: stone count %ld outside 0..%d", i + 1, f[j],
                     n_stones);
        ma_sector s = {(uint8_t)f[0], (uint8_t)f[1], (uint8_t)f[2], (uint8_t)f[3]};
        if (s.w + s.wf > n_stones || s.b + s.bf > n_stones || s.w + s.wf < 3 || s.b + s.bf < 3 ||
            s.w + s.b > 24)
            FAIL_AT(s, line_start, "not a sector of %s", variant_word(variant));
        if (sv->listed[slot(s)])
            FAIL_AT(s, line_start, "sector listed twice");
        v = f[4];
        if (v <= sv->vl || v >= sv->vw)
            FAIL_AT(s, line_start, "value %ld not strictly between %d and %d", v, sv->vl, sv->vw);
        sv->listed[slot(s)] = 1;
        sv->value[slot(s)] = (int32_t)v;
        line_off[slot(s)] = line_start;
        sv->count++;
    }
    size_t end_of_lines = c.pos;
    if (next_token(&c, tok, sizeof tok) != 0)
        FAIL("-", c.tok_start, "unexpected text after %s", MA_COUNT((uint64_t)count, "sector line", "sector lines"));

    /* Properties of §5.4 and the sector set of §3.3, each reported at the line of the sector it
     * concerns (a sector that is missing, at the end of the sector lines where it would go). */
    sector_closure(variant, expected, queue);
    for (int k = 0; k < SV_SLOTS; k++) {
        ma_sector s = sector_of_slot(k);
        if (expected[k] != sv->listed[k])
            FAIL_AT(s, expected[k] ? end_of_lines : line_off[k],
                    expected[k] ? "sector of the %s game missing" : "sector not in the %s game",
                    variant_word(variant));
        if (!sv->listed[k])
            continue;
        int32_t val = sv->value[k];
        ma_sector ns = negate(s);
        int self = slot(ns) == k;
        if (val == 0 && !self)
            FAIL_AT(s, line_off[k], "value 0 for a sector that is not self-symmetric");
        if (!ma_malom_sector_transient(variant, s) && sv->listed[slot(ns)] &&
            sv->value[slot(ns)] != -val) {
            /* reported at the later of the two lines, naming the other */
            int later = line_off[k] > line_off[slot(ns)] ? k : slot(ns), other = later == k ? slot(ns) : k;
            char osec[32];
            sector_text(sector_of_slot(later), sec, sizeof sec);
            sector_text(sector_of_slot(other), osec, sizeof osec);
            FAIL(sec, line_off[later], "value %d but its negation %s has %d (line %zu; expected %d)",
                 sv->value[later], osec, sv->value[other], line_of(text, len, line_off[other]), -sv->value[later]);
        }
    }
    /* Nonzero values identify their sector: check pairwise distinctness by sorting, and report a
     * repeated value at the later of its lines, naming the sector and line that gave it first. */
    vals = malloc(sizeof *vals * (sv->count ? sv->count : 1));
    if (!vals) {
        rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    size_t m = 0;
    for (int k = 0; k < SV_SLOTS; k++)
        if (sv->listed[k] && sv->value[k] != 0)
            vals[m++] = (sv_value){sv->value[k], k, line_off[k]};
    qsort(vals, m, sizeof *vals, cmp_sv_value);
    for (size_t i = 1; i < m; i++)
        if (vals[i].v == vals[i - 1].v) {
            char first[32];
            sector_text(sector_of_slot(vals[i].slot), sec, sizeof sec);
            sector_text(sector_of_slot(vals[i - 1].slot), first, sizeof first);
            FAIL(sec, vals[i].off, "value %d already given to sector %s (line %zu)", vals[i].v, first,
                 line_of(text, len, vals[i - 1].off));
        }
    free(vals);
    free(line_off);
    free(expected);
    free(queue);
    *out = sv;
    return MA_OK;
fail:
    free(vals);
    free(line_off);
    free(expected);
    free(queue);
    free(sv);
    return rc;
}

int ma_malom_secval_read(const char *path, char **out, size_t *out_len, ma_error *err)
{
    *out = NULL;
    *out_len = 0;
    int fd;
    ma_error oerr;
    int orc = ma_file_open_regular(path, &fd, NULL, &oerr);
    if (orc)
        return ma_error_set(err, orc, "%s: sector -: offset 0: %s", path,
                            strstr(oerr.msg, ": ") ? strstr(oerr.msg, ": ") + 2 : oerr.msg);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return ma_error_set(err, MA_EIO, "%s: sector -: offset 0: %s", path, strerror(e));
    }
    /* Real files are a few tens of KiB; anything near the cap is not a .secval. */
    enum { CAP = 4 << 20 };
    char *buf = malloc(CAP);
    if (!buf) {
        fclose(f);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    }
    errno = 0;
    size_t len = fread(buf, 1, CAP, f);
    int read_error = ferror(f) ? (errno ? errno : EIO) : 0;
    int too_long = len == CAP && fgetc(f) != EOF;
    fclose(f);
    int rc = MA_OK;
    if (read_error)
        rc = ma_error_set(err, MA_EIO, "%s: sector -: offset %zu: cannot read: %s", path, len, strerror(read_error));
    else if (too_long)
        rc = ma_error_set(err, MA_EFORMAT, "%s: sector -: offset %d: file longer than %s",
                          path, CAP, MA_COUNT(CAP, "byte", "bytes"));
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf;
    *out_len = len;
    return MA_OK;
}

int ma_malom_secval_open(ma_malom_secval **out, const char *path, ma_variant variant, ma_error *err)
{
    *out = NULL;
    char *buf;
    size_t len;
    int rc = ma_malom_secval_read(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = ma_malom_secval_parse(out, path, buf, len, variant, err);
    free(buf);
    return rc;
}

void ma_malom_secval_free(ma_malom_secval *sv)
{
    free(sv);
}

ma_variant ma_malom_secval_variant(const ma_malom_secval *sv)
{
    return sv->variant;
}

int32_t ma_malom_secval_virt_win(const ma_malom_secval *sv)
{
    return sv->vw;
}

int32_t ma_malom_secval_virt_loss(const ma_malom_secval *sv)
{
    return sv->vl;
}

size_t ma_malom_secval_count(const ma_malom_secval *sv)
{
    return sv->count;
}

int ma_malom_secval_frame(const ma_malom_secval *sv, ma_sector s, ma_malom_frame *out,
                          ma_error *err)
{
    char sec[32];
    sector_text(s, sec, sizeof sec);
    if (s.w > SV_MAX || s.b > SV_MAX || s.wf > SV_MAX || s.bf > SV_MAX || !sv->listed[slot(s)])
        return ma_error_set(err, MA_EMISSING, "%s: sector %s: offset 0: sector not listed",
                            sv->path, sec);
    out->v = sv->value[slot(s)];
    out->vw = sv->vw;
    out->vl = sv->vl;
    return MA_OK;
}

int ma_malom_secval_sector_of(const ma_malom_secval *sv, int32_t v, ma_sector *out)
{
    if (v == 0)
        return MA_EMISSING;
    for (int k = 0; k < SV_SLOTS; k++)
        if (sv->listed[k] && sv->value[k] == v) {
            ma_sector s = {(uint8_t)(k / 2197), (uint8_t)(k / 169 % 13), (uint8_t)(k / 13 % 13),
                           (uint8_t)(k % 13)};
            *out = s;
            return MA_OK;
        }
    return MA_EMISSING;
}
