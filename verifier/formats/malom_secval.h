/*
 * Sector values of Malom's ultra-strong solution: the `<variant>.secval` text file
 * (../shared/docs/malom-format.md §5.4) and the STONE_DIFF values that replace it (§5.6).
 *
 * Parsing checks every property §5.4 lists for the published files, so a damaged or foreign file
 * is rejected before any entry is interpreted with it:
 *   - header lines "virt_loss_val: <int>", "virt_win_val: <int>", then the line count n and
 *     exactly n lines "W B WF BF value" (whitespace-tolerant, LF or CRLF), nothing after;
 *   - every sector valid for the variant (3 <= W+WF <= N, 3 <= B+BF <= N) and listed once;
 *   - virt_win_val = -virt_loss_val > 0 and VL < v < VW for every value;
 *   - nonzero values pairwise distinct; v(negate S) = -v(S) for non-transient S (when listed);
 *     every zero-valued sector self-symmetric;
 *   - the listed sectors are exactly the sector graph's closure from (0,0,N,N) (§3.3).
 * Errors name the file, the sector of the offending line ("-" before one is read), the byte
 * offset and the 1-based number of that line: "<path>: sector <W_B_WF_BF>: offset <byte>: line <n>:
 * <what>" (MA_EFORMAT). A property of two lines (a value given twice, a value and its negation's)
 * is reported at the later line and names the other sector and its line; a sector missing from the
 * file at the end of the sector lines. MA_EMISSING when the file does not exist, MA_EIO when it
 * cannot be read (with the OS reason).
 *
 * Threading: immutable after parsing.
 */
#ifndef MA_MALOM_SECVAL_H
#define MA_MALOM_SECVAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "indexer/position.h"

/* The values in which a sector's entries are read (§5.5): v(S), VW, VL. */
typedef struct ma_malom_frame {
    int32_t v;  /* value of the sector itself */
    int32_t vw; /* virtual win value */
    int32_t vl; /* virtual loss value */
} ma_malom_frame;

typedef struct ma_malom_secval ma_malom_secval;

/* Reads a .secval file into memory (*out malloc'd, *len bytes; at most 4 MiB, a regular file):
 * the bytes ma_malom_secval_parse then parses, so whoever hashes them hashes what is parsed
 * (verifier/formats/source.h: the digest a run records for the file). Errors as ma_malom_secval_open's. */
int ma_malom_secval_read(const char *path, char **out, size_t *len, ma_error *err);
/* Reads and checks a .secval file of the given variant (ma_malom_secval_read, then parse). */
int ma_malom_secval_open(ma_malom_secval **out, const char *path, ma_variant variant, ma_error *err);
/* Same on a buffer already in memory; `path` is used in messages only. */
int ma_malom_secval_parse(ma_malom_secval **out, const char *path, const char *text, size_t len,
                          ma_variant variant, ma_error *err);
void ma_malom_secval_free(ma_malom_secval *sv);

ma_variant ma_malom_secval_variant(const ma_malom_secval *sv);
int32_t ma_malom_secval_virt_win(const ma_malom_secval *sv);
int32_t ma_malom_secval_virt_loss(const ma_malom_secval *sv);
/* Number of sectors listed. */
size_t ma_malom_secval_count(const ma_malom_secval *sv);
/* v(S) and the frame of S: MA_OK, or MA_EMISSING (message names the file and sector) when S is not
 * listed. */
int ma_malom_secval_frame(const ma_malom_secval *sv, ma_sector s, ma_malom_frame *out, ma_error *err);
/* The sector whose (nonzero) value is v, for naming draw classes: MA_OK or MA_EMISSING. */
int ma_malom_secval_sector_of(const ma_malom_secval *sv, int32_t v, ma_sector *out);

/* §5.6: v(S) = (W+WF) - (B+BF), VW = N+1, VL = -(N+1). No file involved. */
ma_malom_frame ma_malom_stonediff_frame(ma_variant variant, ma_sector s);

/* §3.1 for the variant: non-zero when the sector is transient (play can never return to it). */
int ma_malom_sector_transient(ma_variant variant, ma_sector s);

#endif
