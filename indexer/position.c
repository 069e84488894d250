/* Checker-side positions: variants, sectors, point names and board notation (docs/format.md §1, §3, §6). */
#include "indexer/position.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open numbering: by rank, then by file (docs/format.md §1). */
static const char *const point_names[MA_POINTS] = {
    "a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3", "e3", "a4", "b4", "c4",
    "e4", "f4", "g4", "c5", "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7",
};

int ma_variant_parse(const char *name, ma_variant *out, ma_error *err)
{
    if (name && !strcmp(name, "std"))
        *out = MA_VARIANT_STD;
    else if (name && !strcmp(name, "lask"))
        *out = MA_VARIANT_LASK;
    else if (name && !strcmp(name, "mora"))
        *out = MA_VARIANT_MORA;
    else
        return ma_error_set(err, MA_EINVAL, "unknown variant '%s' (expected std, lask or mora)",
                            name ? name : "");
    return MA_OK;
}

const char *ma_variant_name(ma_variant v)
{
    switch (v) {
    case MA_VARIANT_STD: return "std";
    case MA_VARIANT_LASK: return "lask";
    case MA_VARIANT_MORA: return "mora";
    }
    return "?";
}

int ma_variant_stones(ma_variant v)
{
    switch (v) {
    case MA_VARIANT_STD: return 9;
    case MA_VARIANT_LASK: return 10;
    case MA_VARIANT_MORA: return 12;
    }
    return 0;
}

int ma_sector_parse(const char *text, ma_sector *out, ma_error *err)
{
    unsigned vals[4];
    const char *p = text ? text : "";
    for (int i = 0; i < 4; i++) {
        if (!isdigit((unsigned char)*p))
            goto bad;
        unsigned v = 0;
        int digits = 0;
        while (isdigit((unsigned char)*p)) {
            v = v * 10 + (unsigned)(*p - '0');
            p++;
            /* More than two digits can never be a count of 0..24 stones; stops overflow too. */
            if (++digits > 2)
                goto bad;
        }
        if (v > MA_POINTS)
            goto bad;
        vals[i] = v;
        if (i < 3) {
            if (*p != '_')
                goto bad;
            p++;
        }
    }
    if (*p != '\0')
        goto bad;
    out->w = (uint8_t)vals[0];
    out->b = (uint8_t)vals[1];
    out->wf = (uint8_t)vals[2];
    out->bf = (uint8_t)vals[3];
    return MA_OK;
bad:
    return ma_error_set(err, MA_EINVAL, "bad sector '%s' (expected W_B_WF_BF, four numbers 0..24)",
                        text ? text : "");
}

void ma_sector_format(ma_sector s, char *buf, size_t len)
{
    snprintf(buf, len, "%u_%u_%u_%u", s.w, s.b, s.wf, s.bf);
}

int ma_sector_valid(ma_variant v, ma_sector s)
{
    int n = ma_variant_stones(v);
    if (n == 0)
        return 0;
    return s.w + s.wf <= n && s.b + s.bf <= n && s.w + s.wf >= 3 && s.b + s.bf >= 3 &&
           s.w + s.b <= MA_POINTS;
}

ma_sector ma_sector_negate(ma_sector s)
{
    ma_sector r = {s.b, s.w, s.bf, s.wf};
    return r;
}

int ma_sector_equal(ma_sector a, ma_sector b)
{
    return a.w == b.w && a.b == b.b && a.wf == b.wf && a.bf == b.bf;
}

int ma_point_from_name(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < MA_POINTS; i++)
        if (!strcmp(name, point_names[i]))
            return i;
    return -1;
}

const char *ma_point_name(int point)
{
    if (point < 0 || point >= MA_POINTS)
        return NULL;
    return point_names[point];
}

/* Appends the points of one mask ("-" when empty); returns the new length (may exceed len). */
static size_t format_side(uint32_t mask, char *buf, size_t len, size_t pos)
{
    if (!(mask & MA_FULL_MASK)) {
        if (pos + 1 < len)
            buf[pos] = '-';
        return pos + 1;
    }
    int first = 1;
    for (int p = 0; p < MA_POINTS; p++) {
        if (!(mask >> p & 1u))
            continue;
        const char *name = point_names[p];
        if (!first) {
            if (pos + 1 < len)
                buf[pos] = ',';
            pos++;
        }
        for (int i = 0; i < 2; i++, pos++)
            if (pos + 1 < len)
                buf[pos] = name[i];
        first = 0;
    }
    return pos;
}

size_t ma_board_format(ma_board b, char *buf, size_t len)
{
    size_t pos = format_side(b.mover, buf, len, 0);
    if (pos + 1 < len)
        buf[pos] = '/';
    pos++;
    pos = format_side(b.opp, buf, len, pos);
    if (len > 0)
        buf[pos < len ? pos : len - 1] = '\0';
    return pos;
}

/* Parses one side "a1,d1" or "-" from [s, e) into *mask; *seen collects points of both sides. */
static int parse_side(const char *text, const char *s, const char *e, uint32_t *mask,
                      uint32_t *seen, ma_error *err)
{
    *mask = 0;
    if (e - s == 1 && *s == '-')
        return MA_OK;
    if (s == e)
        return ma_error_set(err, MA_EINVAL, "board '%s': empty side (use '-' for no stones)", text);
    while (s < e) {
        const char *comma = memchr(s, ',', (size_t)(e - s));
        const char *tok_end = comma ? comma : e;
        char tok[8];
        size_t n = (size_t)(tok_end - s);
        if (n == 0 || n >= sizeof tok)
            return ma_error_set(err, MA_EINVAL, "board '%s': bad point '%.*s'", text,
                                (int)(n < 16 ? n : 16), s);
        memcpy(tok, s, n);
        tok[n] = '\0';
        int p = ma_point_from_name(tok);
        if (p < 0)
            return ma_error_set(err, MA_EINVAL, "board '%s': bad point '%s'", text, tok);
        if (*mask >> p & 1u)
            return ma_error_set(err, MA_EINVAL, "board '%s': point '%s' listed twice", text, tok);
        if (*seen >> p & 1u)
            return ma_error_set(err, MA_EINVAL, "board '%s': point '%s' on both sides", text, tok);
        *seen |= 1u << p;
        *mask |= 1u << p;
        if (!comma)
            break;
        s = comma + 1;
        if (s == e)
            return ma_error_set(err, MA_EINVAL, "board '%s': trailing ','", text);
    }
    return MA_OK;
}

int ma_board_parse(const char *text, ma_board *out, ma_error *err)
{
    if (!text)
        return ma_error_set(err, MA_EINVAL, "board: missing text");
    const char *slash = strchr(text, '/');
    if (!slash || strchr(slash + 1, '/'))
        return ma_error_set(err, MA_EINVAL, "board '%s': expected '<mover>/<opponent>'", text);
    uint32_t seen = 0, mover, opp;
    int rc = parse_side(text, text, slash, &mover, &seen, err);
    if (rc)
        return rc;
    rc = parse_side(text, slash + 1, slash + 1 + strlen(slash + 1), &opp, &seen, err);
    if (rc)
        return rc;
    out->mover = mover;
    out->opp = opp;
    return MA_OK;
}
