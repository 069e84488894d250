/* verifier/formats/source_open: the open format's source (docs/format.md): a sector's .mdb file
 * mapped by the open reader (verifier/formats/open_file.h), one 16-bit word per entry, entries
 * numbered by the open index scheme (sym16-colex), the body checked against its header's digest
 * when opened. One ma_source_ops (verifier/formats/source_internal.h). */
#include "verifier/formats/source_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fileio.h"

static int open_open(ma_source *src, const ma_db_sector *s, const ma_source_open_args *a, ma_error *err)
{
    int rc = a->private_read ? ma_open_file_read(&src->of, s->path, a->oix, 1, a->cancel, err)
             : a->stamp      ? ma_open_file_map_stamped(&src->of, s->path, a->oix, 1, err)
                             : ma_open_file_map(&src->of, s->path, a->oix, 1, err);
    if (rc == MA_OK) {
        src->entries = src->of.header.entry_count;
        src->private_sha256 = src->of.priv.read ? src->of.priv.sha256 : NULL;
        src->stamp = !a->private_read && a->stamp ? &src->of.stamp : NULL;
    }
    /* §5.1: a reader reports a body that is not what its producer wrote; the digest is of the
     * mapped bytes the reader then uses, so what was checked is what is read (an in-place
     * rewrite after this point is verify's to catch, verifier/run/run.h) */
    if (rc == MA_OK && !a->no_digest_check && ma_open_file_body_digest_ok(&src->of) == 0) {
        char shown[1100];
        ma_escape_name(s->path, shown, sizeof shown);
        rc = ma_error_set(err, MA_EFORMAT,
                          "%.900s: sector %s: offset 80: body digest mismatch: the entries are "
                          "not the bytes whose SHA-256 the header records (no_digest_check "
                          "reads them anyway)",
                          shown, s->name);
        ma_open_file_close(&src->of);
    }
    if (rc) {
        memset(&src->of, 0, sizeof src->of);
        src->private_sha256 = NULL;
        src->stamp = NULL;
    }
    return rc;
}

static void open_close(ma_source *src)
{
    ma_open_file_close(&src->of);
}

static const uint8_t *open_bytes(const ma_source *src, size_t *size)
{
    *size = src->of.map_size;
    return src->of.map;
}

static uint64_t open_offset(const ma_source *src, uint64_t entry)
{
    (void)src;
    return ma_open_file_offset(entry);
}

static void open_read(const ma_source *src, uint64_t entry, ma_stored *out)
{
    uint16_t w = ma_open_file_word(&src->of, entry);
    out->raw[0] = w;
    ma_value v;
    if (ma_open_value_decode(w, &v) != 0) {
        out->kind = MA_STORED_BAD;
        return;
    }
    if (v.outcome == MA_OUTCOME_NONE)
        return; /* the filler; at a canonical entry the caller knows it is a bad encoding */
    out->kind = MA_STORED_VALUE;
    out->value = v;
}

static void open_read_range(const ma_source *src, uint64_t first, uint64_t count, ma_stored *out)
{
    /* the open format's words decode without a call per entry: most of what a sector walk costs */
    for (uint64_t i = 0; i < count; i++) {
        uint16_t w = ma_open_file_word(&src->of, first + i);
        ma_stored *o = &out[i];
        o->has_draw_class = 0;
        o->marker = -1;
        o->draw_class = 0;
        o->raw[0] = w;
        o->raw[1] = o->raw[2] = 0;
        o->value.outcome = MA_OUTCOME_NONE;
        o->value.depth = 0;
        if (w == 0) {
            o->kind = MA_STORED_NONE;
            continue;
        }
        /* docs/format.md §5.3, as ma_open_value_decode, without a call per entry: outcome in
         * the top two bits, depth below; a draw has depth 0, a win an odd and a loss an even one */
        unsigned outcome = w >> 14, depth = w & 0x3FFFu;
        int ok = outcome == MA_OUTCOME_WIN    ? (depth & 1) == 1
                 : outcome == MA_OUTCOME_LOSS ? (depth & 1) == 0
                 : outcome == MA_OUTCOME_DRAW ? depth == 0
                                              : 0;
        if (!ok) {
            o->kind = MA_STORED_BAD;
            continue;
        }
        o->kind = MA_STORED_VALUE;
        o->value.outcome = (ma_outcome)outcome;
        o->value.depth = (uint16_t)depth;
    }
}

static ma_board open_board(const ma_open_index *oix, const ma_malom_index *mix, ma_sector s, uint64_t entry)
{
    (void)mix;
    return ma_open_index_unrank(oix, s.w, s.b, entry);
}

static uint64_t open_entry_of(const ma_open_index *oix, const ma_malom_index *mix, ma_board b)
{
    (void)mix;
    return ma_open_index_rank(oix, b, NULL);
}

static int open_canonical(const ma_source *src, uint64_t entry)
{
    return ma_open_index_is_canonical(ma_source_board(src, entry));
}

static int open_canonical_range(const ma_source *src, uint64_t first, uint64_t count, int orbits,
                                uint8_t *out)
{
    int w = src->sector.w, b = src->sector.b;
    /* Entries rep*M .. rep*M+M-1 belong to representative rep (M = C(24-W, B)); classify sorts
     * out all of them at once. */
    uint64_t m = ma_open_binomial(MA_POINTS - w, b), end = first + count;
    uint8_t *scratch = NULL;
    for (uint64_t e = first; e < end;) {
        uint64_t rep = e / m, lo = rep * m, hi = lo + m;
        if (e == lo && hi <= end) {
            ma_open_index_classify(src->oix, w, b, rep, out + (e - first));
        } else {
            if (!scratch && !(scratch = malloc(m)))
                return MA_ENOMEM;
            ma_open_index_classify(src->oix, w, b, rep, scratch);
            uint64_t stop = hi < end ? hi : end;
            memcpy(out + (e - first), scratch + (e - lo), stop - e);
        }
        e = hi < end ? hi : end;
    }
    free(scratch);
    if (!orbits)
        for (uint64_t i = 0; i < count; i++)
            out[i] = out[i] != 0;
    return MA_OK;
}

static void open_describe(const ma_source *src, const ma_stored *v, char *buf, size_t len)
{
    (void)src;
    char val[32];
    if (v->kind == MA_STORED_BAD) {
        snprintf(buf, len, "bad 0x%04X", (unsigned)v->raw[0]);
    } else if (v->kind == MA_STORED_NONE) {
        snprintf(buf, len, "none (0x0000)");
    } else {
        ma_value_format(v->value, val, sizeof val);
        snprintf(buf, len, "%s (0x%04X)", val, (unsigned)v->raw[0]);
    }
}

static uint64_t open_split_unit(const ma_source *src)
{
    return ma_open_binomial(MA_POINTS - src->sector.w, src->sector.b);
}

static int open_draw_frame(const ma_source *src)
{
    (void)src;
    return 0; /* the open format keeps no draw class */
}

/* The body after the 128-byte header holds one 2-byte word per entry (docs/format.md); a file
 * too short for its header holds none. */
static uint64_t open_planned_entries(ma_sector s, const char *path)
{
    (void)s;
    struct stat st;
    if (!path || stat(path, &st) != 0 || st.st_size < 128)
        return 0;
    return ((uint64_t)st.st_size - 128) / 2;
}

const ma_source_ops ma_source_open_ops = {
    .format = MA_FORMAT_OPEN,
    .name = "open",
    .suffix = ".mdb",
    .variant_file = NULL,
    .reader = MA_READER_OPEN,
    .open_numbered = 1,
    .open_in_advance = 0,
    .draw_classes = 0,
    .full_board_draw_asked = 0,
    .bounds = 0,
    .self_digest = 1,
    .planned_entries = open_planned_entries,
    .open = open_open,
    .close = open_close,
    .bytes = open_bytes,
    .offset = open_offset,
    .read = open_read,
    .read_range = open_read_range,
    .canonical = open_canonical,
    .canonical_range = open_canonical_range,
    .describe = open_describe,
    .split_unit = open_split_unit,
    .draw_frame = open_draw_frame,
    .board = open_board,
    .entry_of = open_entry_of,
};
