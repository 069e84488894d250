/*
 * Which of the 65,536 two-byte words occur in some ranges of two-byte entries.
 *
 * The Malom checker orders the turn values of its successor sectors' stored words in rank tables
 * before its threads start (verifier/check/malom_check.c). A real sector holds about a hundred distinct
 * words of the 65,536 a two-byte entry can hold, so it decodes, sorts and ranks only the words
 * that occur: on STONE_DIFF 4_4_0_0 the tables of every word took 6 to 7 ms of one thread, in
 * which the check's other threads wait, where this scan of the 4.6 M entries of the sector and
 * its children takes about 2 ms, split over the threads.
 *
 * Contract: ma_word_set_scan sets seen[w] to 1 for every word w (little-endian: byte 0 + 256 *
 * byte 1) of the entries base[0..words) of each range, and leaves the other bytes of seen as they
 * were (the caller zeroes it). Ranges may be empty. The entries are split by count over up to
 * `threads` parts (ma_fanout, common/fanout.h), one part for each MA_WORD_SET_PART_WORDS of them
 * at most, so a small scan starts no thread. Returns MA_OK, or MA_ENOMEM (seen then unchanged).
 * The words are read once each and never written.
 */
#ifndef MA_CHECK_WORD_SET_H
#define MA_CHECK_WORD_SET_H

#include <stdint.h>

#define MA_WORD_SET_WORDS (1u << 16)
/* Half a millisecond of scanning or more for each thread: worth a thread's start. */
#define MA_WORD_SET_PART_WORDS ((uint64_t)1 << 20)
#define MA_WORD_SET_MAX_PARTS 8u

typedef struct {
    const uint8_t *base; /* two bytes per entry */
    uint64_t words;
} ma_word_range;

int ma_word_set_scan(uint8_t seen[MA_WORD_SET_WORDS], const ma_word_range *ranges, int n_ranges,
                     unsigned threads);

#endif
