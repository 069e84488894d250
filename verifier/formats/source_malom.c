/* verifier/formats/source_malom: the sources of Malom's formats (../shared/docs/malom-format.md):
 * the ultra-strong .sec2, read with its variant's <variant>.secval and keeping a draw class with
 * every draw, and the legacy strong .sec, which keeps none. Both are read by the Malom reader
 * (verifier/formats/malom_file.h), number their entries by Malom's index scheme, hold symmetry
 * markers at non-canonical entries, and follow the full-board draw rule only when asked. Two
 * ma_source_ops (verifier/formats/source_internal.h) that differ in how a file is opened and in
 * the draw class. */
#include "verifier/formats/source_internal.h"

#include <stdio.h>

/* What opening a Malom file (rc) leaves in the source. */
static int malom_opened(ma_source *src, int rc)
{
    if (rc == MA_OK) {
        src->entries = ma_malom_file_entry_count(src->mf);
        src->frame = ma_malom_file_frame(src->mf);
        src->private_sha256 = ma_malom_file_private_sha256(src->mf);
        src->stamp = ma_malom_file_stamp(src->mf);
    } else {
        src->mf = NULL;
    }
    return rc;
}

/* How the args ask the file's bytes to be held (MA_HOLD_*, common/fileio.h). */
#define HOLD(a) ((a)->private_read ? MA_HOLD_PRIVATE : (a)->stamp ? MA_HOLD_MAPPED_STAMPED : MA_HOLD_MAPPED)

static int sec2_open(ma_source *src, const ma_db_sector *s, const ma_source_open_args *a, ma_error *err)
{
    /* never the <variant>.secval read beside the file: only the one the database read once; an
     * unusable one is named with its reader's message, since the sector's line is where a user
     * looks for why the sector was not checked */
    char why[1200];
    snprintf(why, sizeof why, "%s%s %s%s", ma_variant_name(s->variant), src->ops->variant_file,
             !a->secval_present ? "is absent" : a->secval_error ? "is unusable: " : "is unusable",
             a->secval_present && a->secval_error ? a->secval_error : "");
    return malom_opened(src, ma_malom_file_open_read(&src->mf, s->path, MA_MALOM_SEC2, s->variant,
                                                     s->sector, a->secval, why, HOLD(a), a->cancel,
                                                     err));
}

static int sec_open(ma_source *src, const ma_db_sector *s, const ma_source_open_args *a, ma_error *err)
{
    return malom_opened(src, ma_malom_file_open_read(&src->mf, s->path, MA_MALOM_SEC, s->variant,
                                                     s->sector, NULL, NULL, HOLD(a), a->cancel,
                                                     err));
}

static void malom_close(ma_source *src)
{
    if (src->mf)
        ma_malom_file_close(src->mf);
}

static const uint8_t *malom_bytes(const ma_source *src, size_t *size)
{
    return ma_malom_file_bytes(src->mf, size);
}

static uint64_t malom_offset(const ma_source *src, uint64_t entry)
{
    return ma_malom_file_entry_offset(src->mf, entry);
}

static void malom_read(const ma_source *src, uint64_t entry, ma_stored *out)
{
    ma_malom_entry me;
    ma_malom_file_entry(src->mf, entry, &me);
    out->raw[0] = me.kind;
    out->raw[1] = me.key1;
    out->raw[2] = me.key2;
    if (me.kind == MA_MALOM_SYM) {
        /* a .sec2 marker may name a non-existent op >= 15 (the checker reports it); keep it
         * recognisably out of range instead of letting the narrowing wrap it */
        out->marker = (int8_t)(me.sym_op <= INT8_MAX ? me.sym_op : INT8_MAX);
        return;
    }
    ma_malom_result r;
    if (ma_malom_interpret(&src->frame, &me, &r) != MA_OK) {
        out->kind = MA_STORED_BAD;
        return;
    }
    out->kind = MA_STORED_VALUE;
    out->value.outcome = r.outcome > 0 ? MA_OUTCOME_WIN : r.outcome < 0 ? MA_OUTCOME_LOSS
                                                                         : MA_OUTCOME_DRAW;
    out->value.depth = r.outcome ? (uint16_t)r.depth : 0;
    if (src->ops->draw_classes) {
        out->has_draw_class = 1;
        out->draw_class = r.draw_class;
    }
}

static void malom_read_range(const ma_source *src, uint64_t first, uint64_t count, ma_stored *out)
{
    for (uint64_t i = 0; i < count; i++)
        ma_source_read(src, first + i, &out[i]);
}

static ma_board malom_board(const ma_open_index *oix, const ma_malom_index *mix, ma_sector s, uint64_t entry)
{
    (void)oix;
    return ma_malom_index_unrank(mix, s.w, s.b, entry);
}

static uint64_t malom_entry_of(const ma_open_index *oix, const ma_malom_index *mix, ma_board b)
{
    (void)oix;
    return ma_malom_index_rank(mix, b, NULL);
}

static int malom_canonical(const ma_source *src, uint64_t entry)
{
    return ma_malom_index_marker(src->mix, src->sector.w, src->sector.b, entry) < 0;
}

static int malom_canonical_range(const ma_source *src, uint64_t first, uint64_t count, int orbits,
                                 uint8_t *out)
{
    int w = src->sector.w, b = src->sector.b;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t e = first + i;
        if (ma_malom_index_marker(src->mix, w, b, e) >= 0) {
            out[i] = 0;
            continue;
        }
        if (!orbits) {
            out[i] = 1;
            continue;
        }
        /* the orbit does not depend on the index scheme: 16 / the board's stabiliser, through
         * the open index's byte tables (many times faster than ma_open_orbit_size) */
        ma_board bd = ma_malom_index_unrank(src->mix, w, b, e);
        int fixed = 1;
        for (int op = 1; op < MA_SYM_OPS; op++) {
            ma_board img = ma_open_index_apply(src->oix, op, bd);
            fixed += img.mover == bd.mover && img.opp == bd.opp;
        }
        out[i] = (uint8_t)(MA_SYM_OPS / fixed);
    }
    return MA_OK;
}

static void malom_describe(const ma_source *src, const ma_stored *v, char *buf, size_t len)
{
    (void)src;
    char val[32];
    if (v->kind == MA_STORED_NONE) {
        snprintf(buf, len, "marker op %d", (int)v->marker);
        return;
    }
    if (v->raw[0] == MA_MALOM_COUNT) {
        snprintf(buf, len, "draw (count %d)", (int)v->raw[2]);
        return;
    }
    if (v->kind == MA_STORED_BAD) {
        snprintf(buf, len, "bad val %d,%d", (int)v->raw[1], (int)v->raw[2]);
        return;
    }
    if (v->value.outcome == MA_OUTCOME_DRAW && v->has_draw_class)
        snprintf(val, sizeof val, "draw A=%d", (int)v->draw_class);
    else
        ma_value_format(v->value, val, sizeof val);
    snprintf(buf, len, "%s (val %d,%d)", val, (int)v->raw[1], (int)v->raw[2]);
}

static uint64_t malom_split_unit(const ma_source *src)
{
    (void)src;
    return 4096;
}

static int sec2_draw_frame(const ma_source *src)
{
    return src->mf && ma_malom_file_stone_diff(src->mf) ? 1 : 2;
}

static int sec_draw_frame(const ma_source *src)
{
    (void)src;
    return 0; /* .sec keeps no draw class */
}

/* Malom's files hold one entry per hash index of the sector (malom-format.md 4.5), whatever the
 * file's size says (the reader checks that it agrees). */
static uint64_t malom_planned_entries(ma_sector s, const char *path)
{
    (void)path;
    return ma_malom_hash_count(s.w, s.b);
}

/* What .sec2 and .sec share: the reader, the index scheme, the rule and the operations on entries. */
#define MALOM_SOURCE                                                                               \
    .reader = MA_READER_MALOM, .open_numbered = 0, .open_in_advance = 1,                           \
    .full_board_draw_asked = 1, .close = malom_close, .bytes = malom_bytes,                        \
    .offset = malom_offset, .read = malom_read, .read_range = malom_read_range,                    \
    .canonical = malom_canonical, .canonical_range = malom_canonical_range,                        \
    .describe = malom_describe, .split_unit = malom_split_unit, .board = malom_board,              \
    .entry_of = malom_entry_of, .bounds = 1, .planned_entries = malom_planned_entries

const ma_source_ops ma_source_sec2_ops = {
    .format = MA_FORMAT_SEC2,
    .name = "malom-sec2",
    .suffix = ".sec2",
    .variant_file = ".secval",
    .draw_classes = 1,
    .open = sec2_open,
    .draw_frame = sec2_draw_frame,
    MALOM_SOURCE,
};

const ma_source_ops ma_source_sec_ops = {
    .format = MA_FORMAT_SEC,
    .name = "malom-sec",
    .suffix = ".sec",
    .variant_file = NULL,
    .draw_classes = 0,
    .open = sec_open,
    .draw_frame = sec_draw_frame,
    MALOM_SOURCE,
};
