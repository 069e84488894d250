/*
 * Position-by-position comparison of two databases, in any of the formats formats/source.h reads
 * (open `.mdb`, Malom `.sec`, Malom `.sec2` with `.secval` or STONE_DIFF). docs/diff.md describes
 * the command built on it; cli/cmd_diff.c only parses options and renders.
 *
 * Contract:
 *   - Pairing (ma_diff_plan): the sectors of A and B (formats/source.h discovery) are paired by
 *     variant and sector; a sector on one side only is `only-in-A` / `only-in-B`. Picks
 *     (formats/sector_pick.h) restrict the pairs; a pick in neither database is an error.
 *   - A pair (one-sided or not) whose file discovery found unusable (a FIFO, a broken link: a
 *     sector of its database that fails with its reason) is `unusable` without being read.
 *   - Files of the same format whose SHA-256 digests agree are identical; nothing else is read
 *     (unless opt->full). A file that cannot be hashed or opened makes its pair `unusable`, with
 *     the reader's one-line message; the other pairs are still compared.
 *   - Otherwise every canonical entry of A (per A's index scheme: a value-holding slot) is a
 *     position; its board is mapped into B's index (canonical form up to the 16 symmetries, B's
 *     own numbering) and both stored values are read as normalised values (formats/value.h):
 *     outcome, depth and, for `.sec2` against `.sec2` in the same frame, the draw class A. The
 *     canonical entries of one index scheme cover every orbit of the sector exactly once, so this
 *     visits every position of either file once. Non-canonical slots hold no value in either
 *     scheme: they are compared only as bytes, and only when both files have the same format
 *     (then a different filler or marker is `encoding`).
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
#include "formats/sector_pick.h"
#include "formats/source.h"
#include "indexer/position.h"
#include "store/audit.h"

enum { MA_DIFF_OUTCOME = 0, MA_DIFF_DEPTH, MA_DIFF_DRAW_CLASS, MA_DIFF_ENCODING, MA_DIFF_CLASSES };

/* What became of one pair of sectors. */
typedef enum ma_diff_status {
    MA_DIFF_PENDING = 0, /* planned, not compared yet */
    MA_DIFF_IDENTICAL,   /* same format, same SHA-256 */
    MA_DIFF_EQUAL,       /* values agree (encoding differences allowed) */
    MA_DIFF_DIFFERS,     /* some outcome, depth or draw class differs */
    MA_DIFF_ONLY_A,
    MA_DIFF_ONLY_B,
    MA_DIFF_UNUSABLE,    /* a file of the pair cannot be used (message says which and why) */
    MA_DIFF_STATUSES
} ma_diff_status;

typedef struct ma_diff_example {
    int cls;            /* MA_DIFF_* */
    ma_board board;     /* the position as stored in A (open numbering) */
    uint64_t entry_a;   /* entry in A */
    uint64_t entry_b;   /* entry in B the position maps to */
    uint64_t offset_a;  /* byte offsets of the entries, for people who open the files */
    uint64_t offset_b;
    ma_stored a, b;     /* both stored values, normalised */
    char text_a[48];    /* as each file's reader names them (ma_source_describe): "win 13 (0xC00D)", */
    char text_b[48];    /* "draw (count 5)", "marker op 3", "bad 0xC00C" */
} ma_diff_example;

typedef struct ma_diff_options {
    unsigned threads; /* 0 = online CPUs */
    size_t limit;     /* examples kept per sector */
    int full;         /* compare positions even when digests agree */
} ma_diff_options;

typedef struct ma_diff_result {
    int identical;           /* same format and digest: nothing compared */
    int draw_class_compared; /* both .sec2 in one frame kind */
    uint64_t positions;      /* canonical positions compared */
    uint64_t counts[MA_DIFF_CLASSES];
    ma_diff_example *examples; /* n_examples of them: value classes first, each in A's entry order */
    size_t n_examples;
    double seconds;
    int outside_entries_only; /* same format, every entry alike, only bytes outside the entries
                               * (header fields such as the producer) differ: counted as one
                               * encoding difference */
} ma_diff_result;

/* One pair of sectors (either side may be absent). */
typedef struct ma_diff_sector {
    char name[40];             /* "std_3_3_0_0" */
    ma_variant variant;
    ma_sector sector;
    const ma_db_sector *a, *b; /* NULL on the side that does not hold the sector */
    ma_format format_a, format_b; /* 0 where absent */
    char path_a[4352], path_b[4352]; /* the files, "" on a side that does not hold the sector */
    ma_diff_status status;
    char message[1024];        /* one line for `unusable` (the reader's error), else "" */
    ma_diff_result r;          /* for pairs compared */
} ma_diff_sector;

/* "outcome", "depth", "draw-class", "encoding". */
const char *ma_diff_class_name(int cls);
/* "pending", "identical", "equal", "differs", "only-in-A", "only-in-B", "unusable". */
const char *ma_diff_status_name(ma_diff_status s);
/* Outcome, depth and draw-class differences (what makes values disagree). */
uint64_t ma_diff_value_differences(const ma_diff_result *r);

/* Pairs the sectors of a and b (contract above) into *out (n of them, sorted by variant and
 * sector; free with ma_diff_plan_free), all `pending` except one-sided ones. picks may be NULL
 * when n_picks is 0; matching marks them. Errors: MA_EMISSING "--sector X: in neither A nor B"
 * for a pick that matches no sector of either side; MA_EFORMAT when a side holds no usable
 * sector, when the sides hold different variants, or when both are single files of different
 * sectors; MA_ENOMEM. */
int ma_diff_plan(ma_diff_sector **out, size_t *n, const ma_database *a, const ma_database *b,
                 ma_sector_pick *picks, size_t n_picks, ma_error *err);
void ma_diff_plan_free(ma_diff_sector *s, size_t n);

/* `diff A B --shard I/N` (docs/distributed.md): keeps, in order, only the pairs of shard index of
 * n_shards and sets *n to their count. The partition is run/shard.h's over the planned pairs:
 * each pair named by its sector and costed by A's file (B's for a sector only B holds), so when A and
 * B hold the same sectors it is the partition of `verify A --shard I/N`. Call it on a fresh plan
 * (pairs still pending). Errors: MA_EINVAL (n_shards 0 or index >= n_shards), MA_ENOMEM. */
int ma_diff_plan_shard(ma_diff_sector *s, size_t *n, unsigned index, unsigned n_shards, ma_error *err);

/* Compares one pending pair: digest shortcut, then positions; sets s->status and s->r. A file
 * that cannot be hashed or opened is not an error of the call: s becomes `unusable` with its
 * message (and the database lists the file among its unusable ones). Sources are released
 * afterwards. Errors: MA_ENOMEM, MA_EINTERNAL (a thread could not be started). */
int ma_diff_sector_compare(ma_diff_sector *s, ma_database *a, ma_database *b,
                           const ma_diff_options *opt, ma_error *err);

/* Compares two opened sources of the same variant and sector (MA_EINVAL otherwise), without the
 * digest shortcut. Errors: MA_EINVAL, MA_ENOMEM, MA_EINTERNAL. */
int ma_diff_compare(ma_diff_result *out, const ma_source *a, const ma_source *b,
                    const ma_diff_options *opt, ma_error *err);
void ma_diff_result_free(ma_diff_result *r);

/* Records one pair into run run_id of an audit store (kind "diff", docs/diff.md): a sector row
 * (ok / discrepancies / skipped for a one-sided pair / unusable; the per-class counts) and one
 * discrepancy row per example (stored = A's value, derived = B's). Errors of the store. */
int ma_diff_record(ma_audit *a, int64_t run_id, const ma_diff_sector *s, ma_error *err);

#endif
