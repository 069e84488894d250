/*
 * Readers for Malom's sector files, written from ../shared/docs/malom-format.md §5 alone:
 * the ultra-strong `.sec2` (§5.1-5.3, also the STONE_DIFF build of §5.6) and the legacy strong
 * `.sec` (§5.7), plus the interpretation of an entry as win/draw/loss and depth (§5.5) and the
 * value arithmetic of a turn (§5.8) that a verifier needs.
 *
 * A file is memory-mapped read-only (or read once into private memory, ma_malom_file_open_read)
 * and validated completely when opened: length, header,
 * overflow table (sorted, unique, in range, one-to-one with the inline overflow markers,
 * magnitudes beyond the inline maximum). An entry's contents never make the file unusable: a
 * `.sec2` marker naming an op >= 15 (no such symmetry, §4.1) decodes as a Sym entry with that op,
 * and the checker reports it at its index (symmetry-inconsistency). After a
 * successful open, reading any entry below the entry count is a plain memory access that cannot
 * fail and never reads outside the mapping. The entry count is hash_count(W, B) of the sector
 * (indexer/malom_index.h), never taken from the file.
 *
 * Both formats are decoded into one frame (ma_malom_entry: kind, key1, key2) with the sector's
 * values (ma_malom_frame: v(S), VW, VL), so a verifier can treat them alike:
 *   .sec2:  key1/key2 as stored (overflow resolved); frame from the .secval or STONE_DIFF.
 *   .sec:   Val x -> key1 = +1 (x odd) / -1 (x even), key2 = x; frame v = 0, VW = 1, VL = -1.
 *   both:   Sym marker op k -> key1 = 0, key2 = -(k+1); Count -> key1 = 0, key2 = counter >= 0.
 *
 * Errors: one line "<path>: sector <W_B_WF_BF>: offset <byte>: <what>", MA_EFORMAT for a
 * malformed file, MA_EMISSING for a non-STONE_DIFF .sec2 whose <variant>.secval is absent or lacks
 * the sector, MA_EIO when the system refuses to open or map it, MA_EINVAL for an impossible sector.
 *
 * Threading: a handle is immutable after open; any number of threads may read entries at once.
 */
#ifndef MA_MALOM_FILE_H
#define MA_MALOM_FILE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "common/fileio.h"
#include "common/ma_error.h"
#include "verifier/formats/malom_secval.h"
#include "indexer/position.h"

typedef enum ma_malom_format {
    MA_MALOM_SEC2 = 1, /* ultra-strong, 64-byte header, 2 or 3 bytes per entry */
    MA_MALOM_SEC = 2   /* legacy strong, one byte per entry, no header */
} ma_malom_format;

typedef enum ma_malom_kind {
    MA_MALOM_VAL = 1,   /* a resolved value (key1 != 0) */
    MA_MALOM_COUNT = 2, /* a draw the solver never resolved; key2 is a meaningless counter */
    MA_MALOM_SYM = 3    /* a symmetry marker at a non-canonical index; holds no value */
} ma_malom_kind;

/* One decoded entry in the common frame (see top of file). */
typedef struct ma_malom_entry {
    int kind;     /* ma_malom_kind */
    int32_t key1; /* relative first key; 0 for Count and Sym */
    int32_t key2; /* second key, overflow resolved; -(op+1) for Sym */
    int sym_op;   /* marker op for Sym (0..14 for a real op; a .sec2 marker may name a
                     non-existent op >= 15, which the checker reports), -1 otherwise */
} ma_malom_entry;

typedef enum ma_malom_outcome {
    MA_MALOM_LOSS = -1,
    MA_MALOM_DRAW = 0,
    MA_MALOM_WIN = 1
} ma_malom_outcome;

/* The result of an entry for the side to move (§5.5). */
typedef struct ma_malom_result {
    int outcome;        /* ma_malom_outcome */
    int32_t depth;      /* plies to the end for a win/loss; -1 for a draw */
    int32_t draw_class; /* A = key1 + v(S) (the draw class for draws; VW/VL for wins/losses) */
} ma_malom_result;

/* A value (key1, key2) in some sector's relative frame (§5.8). */
typedef struct ma_malom_value {
    int32_t key1;
    int32_t key2;
} ma_malom_value;

typedef struct ma_malom_file ma_malom_file;

/* Opens and validates a .sec2 file of the given variant and sector. The sector value comes from
 * `values` when given; when NULL and the file is not a STONE_DIFF build, <variant>.secval beside
 * the file is read (MA_EMISSING when absent). STONE_DIFF files ignore `values` (§5.6). */
int ma_malom_file_open_sec2(ma_malom_file **out, const char *path, ma_variant variant,
                            ma_sector sector, const ma_malom_secval *values, ma_error *err);
/* The same, but nothing is read beside the file: with values NULL a file that needs them is
 * MA_EMISSING "...: not a STONE_DIFF file, so it needs its sector values: <no_values>" (a database
 * reads its <variant>.secval once, from the bytes it hashed, verifier/formats/source.h; a sector must never
 * read another version of it behind the database's back). */
int ma_malom_file_open_sec2_given(ma_malom_file **out, const char *path, ma_variant variant, ma_sector sector,
                                  const ma_malom_secval *values, const char *no_values, ma_error *err);
/* Opens and validates a .sec2 (as ma_malom_file_open_sec2_given) or legacy .sec file (values and
 * no_values unused) as the other openers do; private_read is how the bytes are held
 * (MA_HOLD_*, common/fileio.h): mapped, mapped and stamped first (ma_malom_file_stamp), or
 * (MA_HOLD_PRIVATE) not mapped but read
 * once into private memory and hashed as it is read (checksums/private_read.h), and validated from
 * those bytes: ma_malom_file_bytes are then bytes that cannot change however the file does, and
 * ma_malom_file_private_sha256 their digest. A read that fails or finds the file truncated or
 * grown while read is MA_EIO "<path>: sector S: offset N: ..."; one that finds *cancel set (a
 * signal's flag, checked before each 2 MiB piece; cancel may be NULL) is MA_ECANCELED "...:
 * offset N: interrupted", and nothing is left open. */
int ma_malom_file_open_read(ma_malom_file **out, const char *path, ma_malom_format format,
                            ma_variant variant, ma_sector sector, const ma_malom_secval *values,
                            const char *no_values, int private_read,
                            const volatile sig_atomic_t *cancel, ma_error *err);
/* Opens and validates a legacy .sec file. */
int ma_malom_file_open_sec(ma_malom_file **out, const char *path, ma_variant variant,
                           ma_sector sector, ma_error *err);
/* Opens by file name "<variant>_<W>_<B>_<WF>_<BF>.sec2|.sec" (variant and sector taken from the
 * name; MA_EINVAL when the name does not parse). `values` as for open_sec2. */
int ma_malom_file_open(ma_malom_file **out, const char *path, const ma_malom_secval *values,
                       ma_error *err);
void ma_malom_file_close(ma_malom_file *f);

/* Parses a file name (directory part ignored) into variant, sector and format. */
int ma_malom_file_name_parse(const char *path, ma_variant *variant, ma_sector *sector,
                             ma_malom_format *format, ma_error *err);

ma_malom_format ma_malom_file_format(const ma_malom_file *f);
ma_variant ma_malom_file_variant(const ma_malom_file *f);
ma_sector ma_malom_file_sector(const ma_malom_file *f);
/* hash_count(W, B): the number of entries. */
uint64_t ma_malom_file_entry_count(const ma_malom_file *f);
/* v(S), VW, VL in which this file's entries are to be read. */
ma_malom_frame ma_malom_file_frame(const ma_malom_file *f);
/* Records in the overflow table. */
uint32_t ma_malom_file_overflow_count(const ma_malom_file *f);
/* .sec2 header facts (0 for .sec). */
int ma_malom_file_stone_diff(const ma_malom_file *f);
int ma_malom_file_entry_size(const ma_malom_file *f);
/* The whole file as mapped (*size bytes; NULL for an empty file): what every entry is read from, so
 * a digest of these bytes is a digest of what a reader used (verifier/run/run.h, "snapshot"). */
const uint8_t *ma_malom_file_bytes(const ma_malom_file *f, size_t *size);
/* The SHA-256 (hex) of those bytes when the file was read privately (ma_malom_file_open_read),
 * taken as they were read; NULL for a mapped file. */
const char *ma_malom_file_private_sha256(const ma_malom_file *f);
/* The stamp of a file opened MA_HOLD_MAPPED_STAMPED, taken before any of its bytes was read
 * (common/fileio.h; its taken is 0 when the file kept changing); NULL for any other file. */
const ma_file_stamp *ma_malom_file_stamp(const ma_malom_file *f);

/* Decodes entry `index` (< entry_count) into the common frame. Never fails after open. */
void ma_malom_file_entry(const ma_malom_file *f, uint64_t index, ma_malom_entry *out);
/* Byte offset of an entry in the file, for messages. */
uint64_t ma_malom_file_entry_offset(const ma_malom_file *f, uint64_t index);

/* §5.5: entry -> win/draw/loss and depth in the frame. MA_OK, or MA_EFORMAT (no message) when the
 * entry cannot be a stored value: a Sym marker, a win with an even or negative depth, a loss with an
 * odd or negative depth. */
int ma_malom_interpret(const ma_malom_frame *frame, const ma_malom_entry *e, ma_malom_result *out);

/* §5.8: the value, in the parent sector's frame, of a turn leading to a successor stored with
 * (key1, key2) in a child sector: cor = v_child + v_parent, k1' = key1 + cor, ... */
ma_malom_value ma_malom_turn_value(ma_malom_value child, int32_t v_child, int32_t v_parent);
/* §5.8 special case: a removal that leaves the opponent below 3 stones: (VW - v(P), 1). */
ma_malom_value ma_malom_win_in_one(const ma_malom_frame *parent);
/* The value of having no turn (§6 step 2): (VL - v(P), 0). */
ma_malom_value ma_malom_no_turn(const ma_malom_frame *parent);
/* §5.8 ordering: -1 if a < b, 0 if equal, +1 if a > b. */
int ma_malom_value_cmp(ma_malom_value a, ma_malom_value b);

/* Raw access for hot loops (the checker): where the entry bytes are and how to split them. The
 * inline decoder below is ma_malom_file_entry without the overflow lookup. */
typedef struct ma_malom_view {
    const uint8_t *entries; /* entry 0 */
    int entry_size;         /* 1 (.sec), 2 or 3 (.sec2) */
    int f1, f2;             /* .sec2: bits of field 1 and field 2 */
    int32_t spec;           /* .sec2: the inline field-2 value meaning "see the overflow table" */
} ma_malom_view;
void ma_malom_file_view(const ma_malom_file *f, ma_malom_view *v);

/* Decodes entry `index` of a view exactly as ma_malom_file_entry does and returns 1, or returns 0
 * (out unspecified) when the entry's value lives in the overflow table (legacy byte 179, .sec2
 * field 2 = SPEC): the caller then asks ma_malom_file_entry. */
static inline int ma_malom_view_entry(const ma_malom_view *v, uint64_t index, ma_malom_entry *out)
{
    if (v->entry_size == 1) {
        unsigned e = v->entries[index];
        if (e <= 178) {
            out->kind = MA_MALOM_VAL;
            out->key1 = (e & 1u) ? 1 : -1;
            out->key2 = (int32_t)e;
            out->sym_op = -1;
        } else if (e == 179) {
            return 0;
        } else if (e <= 194) {
            out->kind = MA_MALOM_SYM;
            out->key1 = 0;
            out->key2 = -(int32_t)(e - 180) - 1;
            out->sym_op = (int)(e - 180);
        } else {
            out->kind = MA_MALOM_COUNT;
            out->key1 = 0;
            out->key2 = (int32_t)(255 - e);
            out->sym_op = -1;
        }
        return 1;
    }
    const uint8_t *p = v->entries + index * (uint64_t)v->entry_size;
    uint32_t raw = (uint32_t)p[0] | (uint32_t)p[1] << 8;
    if (v->entry_size == 3)
        raw |= (uint32_t)p[2] << 16;
    uint32_t m1 = 1u << (v->f1 - 1), m2 = 1u << (v->f2 - 1);
    int32_t k1 = (int32_t)(((raw & ((1u << v->f1) - 1u)) ^ m1) - m1);
    int32_t k2 = (int32_t)(((raw >> v->f1) ^ m2) - m2);
    if (k2 == v->spec)
        return 0;
    out->key1 = k1;
    out->key2 = k2;
    if (k1 != 0) {
        out->kind = MA_MALOM_VAL;
        out->sym_op = -1;
    } else if (k2 < 0) {
        out->kind = MA_MALOM_SYM;
        out->sym_op = -k2 - 1;
    } else {
        out->kind = MA_MALOM_COUNT;
        out->sym_op = -1;
    }
    return 1;
}

#endif
