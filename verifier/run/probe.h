/*
 * Probing one position of a database (for `millaudit probe`): the sector the position belongs to,
 * its entry and stored value, and every turn of the side to move with the value of the position
 * it leads to, best first. The database is read through verifier/formats/source.h, so the same code
 * answers for the open format and for Malom's `.sec2` / `.sec`.
 *
 * Turns: every turn the checker's move generator (verifier/check/rules.h) lists, with the point it
 * leaves, the point it reaches and the stone it removes, plus the turns that win at once by
 * reduction (which the generator only counts), one per removal choice. The from/to/removed points
 * of a successor are recovered from the board difference, so the list is exactly the generator's
 * and cannot disagree with what the verifier checks.
 *
 * Values of turns (for the side to move at the probed position):
 *   open format: the successor's stored value negated (win n -> loss n+1, loss n -> win n+1),
 *     an immediate win by reduction is win 1; order win > draw > loss, shorter wins and longer
 *     losses first (verification-theory.md);
 *   Malom: the successor's stored (key1, key2) carried into the probed sector's frame (§5.8 of
 *     malom-format.md), an immediate win is (VW - v(P), 1); §5.8 order.
 * A turn's value is unknown when its successor sector is absent from the database, when the
 * successor's file cannot be used (then its error is listed in `unusable`), or when the
 * successor's entry holds no value (a marker, a filler, bad bytes).
 */
#ifndef MA_VERIFIER_PROBE_H
#define MA_VERIFIER_PROBE_H

#include <stddef.h>

#include "common/ma_error.h"
#include "verifier/formats/source.h"
#include "indexer/position.h"
#include "verifier/check/rules.h"
#include "millaudit/inspect.h"

/* The turn, value, row and result types are public: include/millaudit/inspect.h. */

/* Lists the turns of pos into out (room for max). MA_EINTERNAL if more than max or the generator
 * fails; MA_OK otherwise with *n set. */
int ma_probe_turns(const ma_vrules *r, ma_board pos, ma_probe_turn *out, int max, int *n,
                   ma_error *err);

/* "d1", "d1-d2", "a4xg7", "d1-d2xg7". */
void ma_probe_turn_format(const ma_probe_turn *t, char *buf, size_t len);


/* The sector of a position with wf / bf stones in hand (W, B counted on the board). */
ma_sector ma_probe_sector_of(ma_board pos, int wf, int bf);

/* Probes pos (the side to move's stones first, wf / bf stones in hand) in variant v of db.
 * Errors: MA_EINVAL (not a sector of v, or an impossible board: message says which),
 * the error of the position's own sector file (MA_EMISSING when absent: "<file>: sector <name>:
 * offset 0: sector file absent"; MA_EFORMAT / MA_EIO when unusable), MA_ENOMEM, MA_EINTERNAL.
 * Successor files that are absent or unusable are not errors: their turns are unknown. */
int ma_probe_position(ma_probe_result *out, ma_database *db, ma_variant v, ma_board pos, int wf,
                      int bf, ma_error *err);
void ma_probe_result_free(ma_probe_result *r);

/* What ma_probe_run (verifier/run/probe_run.c) leaves for the renderers (reports/render/probe_render.c). */
struct ma_probe_report {
    ma_probe_result r;
    int result;          /* common/verdict.h */
    char root[1024];     /* the directory probed, for the commands the text names ("" unknown) */
};

/* The stored entry of one position, for many lookups in a row (probe --stdin): *src is the
 * position's sector source, *entry its canonical entry. Errors as ma_probe_position. */
int ma_probe_lookup(ma_database *db, ma_variant v, ma_board pos, int wf, int bf,
                    const ma_source **src, uint64_t *entry, ma_stored *out, ma_error *err);

#endif
