/*
 * counts: how every output of millaudit writes a number of things, so no line reads "1 entries",
 * "3421866 discrepancies" or "1 positions" (issue 45).
 *
 *   ma_num(buf, size, n)               "1,234,567": digits grouped by thousands with ','
 *   ma_noun(n, one, many)              one when n == 1, else many ("entry" / "entries")
 *   ma_count(buf, size, n, one, many)  "1 entry", "1,234,567 entries": ma_num and ma_noun
 *
 * MA_NUM(n) and MA_COUNT(n, one, many) give each use its own buffer (a compound literal that
 * lives to the end of the enclosing block), so several can stand in one printf. Counts of things
 * (entries, bytes, positions, sectors, files, rows, seconds apart) go through these; identifiers
 * that happen to be numbers (an entry number, a byte offset, a run id, a line number) are printed
 * as they are, so they can be pasted into another command. tests/integration/test_counts.py
 * greps the sources for a count printed by hand ("%llu entries", `n == 1 ? "" : "s"`).
 *
 * No allocation, no state: safe from any thread; the producer (solver/) and the checker share it
 * as they share the rest of common/ (nothing about rules, indexing or formats).
 */
#ifndef MA_COUNTS_H
#define MA_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#define MA_NUM_SIZE 32   /* enough for any uint64_t with separators */
#define MA_COUNT_SIZE 96 /* a number and a noun of up to 60 characters */

/* n with thousands separators into buf (size > 0); returns buf. A buffer too small gets the
 * leading digits that fit (never overflows). */
char *ma_num(char *buf, size_t size, uint64_t n);
/* one when n is 1, else many. */
const char *ma_noun(uint64_t n, const char *one, const char *many);
/* "<ma_num(n)> <ma_noun(n, one, many)>" into buf; returns buf. */
char *ma_count(char *buf, size_t size, uint64_t n, const char *one, const char *many);

#define MA_NUM(n) ma_num((char[MA_NUM_SIZE]){0}, MA_NUM_SIZE, (uint64_t)(n))
#define MA_COUNT(n, one, many) ma_count((char[MA_COUNT_SIZE]){0}, MA_COUNT_SIZE, (uint64_t)(n), (one), (many))

#endif
