/*
 * Position-by-position comparison of two sector files of one variant and sector, in any of the
 * formats the checker reads: open `.mdb`, Malom `.sec`, Malom `.sec2` (with `.secval` or
 * STONE_DIFF). docs/diff.md describes the command built on it.
 *
 * Contract:
 *   - Files of the same format whose SHA-256 digests agree are identical; nothing else is read
 *     (unless opt->full).
 *   - Otherwise every canonical entry of A (per A's index scheme: a value-holding slot) is a
 *     position; its board is mapped into B's index (canonical form up to the 16 symmetries, B's
 *     own numbering) and both values are decoded to outcome, depth and, for `.sec2` against `.sec2`
 *     in the same frame, the draw class A. The canonical entries of one index scheme cover every
 *     orbit of the sector exactly once, so this visits every position of either file once.
 *     Non-canonical slots hold no value in either scheme: they are compared only as bytes, and
 *     only when both files have the same format (then a different filler or marker is `encoding`).
 *   - Classes: outcome (win/draw/loss differ, or one side has no valid value), depth (same
 *     outcome, other depth), draw-class, encoding (same values, different bytes, including every
 *     position when the formats differ, and one for bytes outside the entries such as the header).
 *
 * Threads split A's entry range; results are merged in entry order, so examples are the first
 * `limit` differences in A's entry order whatever the thread count.
 */
#ifndef MA_DIFF_H
#define MA_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "indexer/malom_index.h"
#include "indexer/open_index.h"
#include "indexer/position.h"

typedef enum ma_diff_format {
    MA_DIFF_OPEN = 1, /* .mdb */
    MA_DIFF_SEC2 = 2, /* Malom ultra-strong .sec2 */
    MA_DIFF_SEC = 3   /* Malom strong .sec */
} ma_diff_format;

enum { MA_DIFF_OUTCOME = 0, MA_DIFF_DEPTH, MA_DIFF_DRAW_CLASS, MA_DIFF_ENCODING, MA_DIFF_CLASSES };

/* One sector file found in a database. */
typedef struct ma_diff_source {
    char path[4096];
    ma_variant variant;
    ma_sector sector;
    ma_diff_format format;
} ma_diff_source;

typedef struct ma_diff_example {
    int cls;           /* MA_DIFF_* */
    ma_board board;    /* the position as stored in A (open numbering) */
    uint64_t entry_a;  /* entry in A */
    uint64_t entry_b;  /* entry in B the position maps to */
    char value_a[32];  /* "win 13", "draw A=5", "none", "bad 0xC00C", "0x8000" (encoding) */
    char value_b[32];
} ma_diff_example;

typedef struct ma_diff_options {
    unsigned threads; /* 0 = online CPUs */
    size_t limit;     /* examples kept per sector */
    int full;         /* compare positions even when digests agree */
} ma_diff_options;

typedef struct ma_diff_result {
    int identical;        /* same format and digest: nothing compared */
    int draw_class_compared; /* both .sec2 in one frame kind */
    uint64_t positions;   /* canonical positions compared */
    uint64_t counts[MA_DIFF_CLASSES];
    ma_diff_example *examples; /* n_examples of them, A's entry order */
    size_t n_examples;
    double seconds;
} ma_diff_result;

/* "outcome", "depth", "draw-class", "encoding". */
const char *ma_diff_class_name(int cls);
/* "open", "malom-sec2", "malom-sec". */
const char *ma_diff_format_name(ma_diff_format f);

/* Classifies one path by its file name (directory part ignored): MA_OK, or MA_EINVAL when the
 * name is not "<variant>_<W>_<B>_<WF>_<BF>.mdb|.sec|.sec2". */
int ma_diff_source_parse(ma_diff_source *out, const char *path, ma_error *err);

/* Lists the sector files of a directory (or the one file given), sorted by variant and sector.
 * When one directory holds a sector in several formats, .mdb is taken before .sec2 before .sec.
 * Errors: MA_EMISSING (no such path), MA_EIO (unreadable directory), MA_EINVAL (a single file
 * whose name does not parse), MA_EFORMAT (a directory without any sector file). */
int ma_diff_sources(ma_diff_source **out, size_t *n, const char *path, ma_error *err);

/* Compares two files of the same variant and sector (MA_EINVAL otherwise). The indexes must be
 * created by the caller; this prepares the W it needs (so calls must not overlap on one index).
 * Errors: those of the readers (MA_EFORMAT / MA_EMISSING / MA_EIO, message naming file, sector,
 * offset), MA_ENOMEM. */
int ma_diff_compare(ma_diff_result *out, const ma_diff_source *a, const ma_diff_source *b,
                    ma_open_index *oix, ma_malom_index *mix, const ma_diff_options *opt,
                    ma_error *err);
void ma_diff_result_free(ma_diff_result *r);

#endif
