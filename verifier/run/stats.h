/*
 * Statistics of a database (for `millaudit stats`), for every format verifier/formats/source.h reads.
 *
 * Per sector, counted two ways:
 *   - per stored entry: what the file holds (Malom's own `.analyze` / `.analyze2` files count
 *     this way: markers, wins / draws / losses, depth histogram, and for `.sec2` the distribution
 *     of A = key1 + v(S) over the canonical entries);
 *   - per position: every canonical entry weighted by its orbit size (how many distinct boards it
 *     stands for under the 16 symmetries). Only this view is independent of the index scheme:
 *     every board of a sector counts once, so two databases of one game built with different
 *     symmetry folding (open and Malom) must agree on it.
 * An entry is canonical by its index scheme (verifier/formats/source.h), not by its bytes. `markers` are
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
#include "millaudit/inspect.h"
#include "verifier/formats/sector_pick.h"
#include "verifier/formats/source.h"

/* The bin, tally, sector and statistics types are public: include/millaudit/inspect.h. */

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

/* What ma_stats_run (include/millaudit/inspect.h, verifier/run/stats_run.c) leaves for the accessors and
 * the renderers (reports/render/stats_render.c). */
struct ma_stats_report {
    char *root;           /* as given */
    ma_database *db;      /* NULL when it could not be opened */
    int have_stats;       /* st holds the counts */
    ma_stats st;
    int fatal;            /* failure says why the run stopped */
    ma_error failure;
    int result;           /* common/verdict.h */
};

#endif
