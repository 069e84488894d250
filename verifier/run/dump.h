/*
 * The entries of one sector in the dump notation of docs/format.md §6 (for `millaudit dump` and
 * `millaudit probe --stdin`), read through verifier/formats/source.h: the open format and Malom's files
 * alike.
 *
 * ma_dump_walk visits a sector in entry order and reports every canonical entry (a position: its
 * board and value) and every non-canonical entry that holds something other than its index
 * scheme's empty slot (open: a word other than the filler 0x0000; Malom: anything but a symmetry
 * marker). A canonical entry without a well-formed value and a non-canonical entry holding
 * something are `bad`: the caller reports them (dump exits 1).
 */
#ifndef MA_VERIFIER_DUMP_H
#define MA_VERIFIER_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "verifier/formats/source.h"
#include "millaudit/inspect.h"

/* "win 13", "loss 0", "draw -" for a value; "bad <raw>" for an entry that holds none (open
 * "bad 0xc002", Malom "bad marker op 3", "bad val 2,4"). */
void ma_dump_value(const ma_source *src, const ma_stored *v, char *buf, size_t len);

/* ma_dump_entry is public: include/millaudit/inspect.h. */

/* Called per reported entry; a non-zero return stops the walk and is returned by it. */
typedef int (*ma_dump_fn)(void *ctx, const ma_dump_entry *e);

/* Walks src (contract above). *canonical and *bad (may be NULL) receive the counts of the entries
 * visited. Returns MA_OK, fn's non-zero value, or MA_ENOMEM (err set). */
int ma_dump_walk(const ma_source *src, ma_dump_fn fn, void *ctx, uint64_t *canonical,
                 uint64_t *bad, ma_error *err);

#endif
