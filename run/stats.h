/*
 * Statistics of a database (for `millaudit stats`), for every format formats/source.h reads.
 *
 * Per sector, counted two ways:
 *   - per stored entry: what the file holds (Malom's own `.analyze` / `.analyze2` files count
 *     this way: markers, wins / draws / losses, depth histogram, and for `.sec2` the distribution
 *     of A = key1 + v(S) over the canonical entries);
 *   - per position: every canonical entry weighted by its orbit size (how many distinct boards it
 *     stands for under the 16 symmetries). Only this view is independent of the index scheme:
 *     every board of a sector counts once, so two databases of one game built with different
 *     symmetry folding (open and Malom) must agree on it.
 * An entry is canonical by its index scheme (formats/source.h), not by its bytes. `markers` are
 * the non-canonical entries; `bad` counts canonical entries without a well-formed value and
 * non-canonical entries holding something other than the scheme's empty slot (open: a word other
 * than 0x0000; Malom: anything but a symmetry marker). A sector with W = B = 0 is a start sector:
 * its one entry is the start position's value.
 *
 * A file that cannot be used (found by discovery or failing when opened) is listed with its
 * message and its sector marked unusable; the others are still counted.
 */
#ifndef MA_VERIFIER_STATS_H
#define MA_VERIFIER_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "formats/sector_pick.h"
#include "formats/source.h"

/* Wins and losses at one depth (only depths with a count are kept). */
typedef struct ma_stats_bin {
    uint32_t depth;
    uint64_t win_entries, loss_entries;     /* per stored entry */
    uint64_t win_positions, loss_positions; /* per position */
} ma_stats_bin;

/* Canonical values with one A = key1 + v(S) (Malom .sec2). */
typedef struct ma_stats_akey {
    int32_t a;
    uint64_t entries;
} ma_stats_akey;

typedef struct ma_stats_tally {
    uint64_t entries;        /* slots in the file(s) */
    uint64_t canonical;      /* canonical entries (by the index scheme) */
    uint64_t markers;        /* non-canonical entries */
    uint64_t positions;      /* boards: canonical entries weighted by orbit size */
    uint64_t bad;            /* see the top of the file */
    uint64_t win_entries, draw_entries, loss_entries;
    uint64_t win_positions, draw_positions, loss_positions;
    int longest_win, longest_loss; /* deepest win / loss in plies, -1 when none */
    ma_stats_bin *bins;      /* n_bins, by depth ascending */
    size_t n_bins;
    int has_akey;            /* every counted sector is .sec2 */
    ma_stats_akey *akey;     /* n_akey, by A ascending */
    size_t n_akey;
} ma_stats_tally;

typedef struct ma_stats_sector {
    char name[40];           /* "std_3_3_0_0" */
    char file[256];          /* the file name inside the database directory */
    char path[4352];
    ma_variant variant;
    ma_sector sector;
    ma_format format;
    int unusable;            /* 1: message says why; the tally is empty */
    char message[1024];
    ma_stats_tally t;
    int is_start;            /* W = B = 0 */
    ma_stored start;         /* its entry 0 */
    char start_text[48];     /* "win 23", "draw", "bad 0xC002" as the reader names it */
} ma_stats_sector;

typedef struct ma_stats {
    ma_stats_sector *sectors; /* n of them, sorted by variant, then W, B, WF, BF */
    size_t n;
    size_t n_unusable;       /* sectors that could not be counted */
    ma_stats_tally total;    /* over the counted sectors */
} ma_stats;

#define MA_STATS_MAX_THREADS 64

/* Counts one opened source into *out (overwritten; free with ma_stats_tally_free), with `threads`
 * workers (1..64) splitting the entries; the counts do not depend on the thread count. progress
 * may be NULL; entries are added to it as they are counted. Errors: MA_ENOMEM. */
int ma_stats_tally_source(ma_stats_tally *out, const ma_source *src, int threads,
                          ma_progress *progress, ma_error *err);
void ma_stats_tally_free(ma_stats_tally *t);
/* Adds b's counts (and histograms) to a. Errors: MA_ENOMEM. */
int ma_stats_tally_add(ma_stats_tally *a, const ma_stats_tally *b, ma_error *err);

/* Statistics of the sectors of db that picks select (all when n_picks is 0), each sector counted
 * by `threads` workers (ma_stats_tally_source). Sources are
 * released after counting. Errors: MA_EMISSING "<root>: sector <S>: offset 0: no file for this
 * sector" for a pick that matches no sector, MA_ENOMEM. A file that cannot be used is not an
 * error of the call (see the top of the file); the database lists it among its unusable files. */
int ma_stats_database(ma_stats *out, ma_database *db, ma_sector_pick *picks, size_t n_picks,
                      int threads, ma_progress *progress, ma_error *err);
void ma_stats_free(ma_stats *s);

#endif
