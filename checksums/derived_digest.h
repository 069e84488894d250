/*
 * Derived-value digest of a sector (docs/reproducibility.md): SHA-256 over the values a run
 * established for the sector's positions, independent of the file format they were read from.
 *
 * The positions are the canonical positions of the open scheme (docs/format.md §4), in open entry
 * order (non-canonical entries are skipped). Each contributes a 3-byte record:
 *   win in n  -> 'W', n as u16 little-endian      loss in n -> 'L', n as u16 little-endian
 *   draw      -> 'D', 0x00 0x00                   not derived (missing child, bad successor) -> '?', 0x00 0x00
 * and the digest is SHA-256 of the concatenated records, nothing else. Two teams that verified the
 * same values (with any version, on any machine, from an open or a Malom file) get the same digest.
 *
 * Streaming: init, add one value per canonical position in entry order, final. Not thread-safe on
 * one instance; a multi-threaded verifier collects its chunks' values and adds them in order.
 */
#ifndef MA_DERIVED_DIGEST_H
#define MA_DERIVED_DIGEST_H

#include <stdint.h>

#include "common/ma_error.h"

#define MA_DERIVED_DIGEST_HEX_LEN 64

typedef enum ma_derived_outcome {
    MA_DERIVED_WIN = 'W',
    MA_DERIVED_LOSS = 'L',
    MA_DERIVED_DRAW = 'D',
    MA_DERIVED_UNKNOWN = '?'
} ma_derived_outcome;

typedef struct ma_derived_digest {
    void *ctx;            /* the SHA-256 stream (OpenSSL EVP) */
    uint64_t positions;   /* values added so far */
    uint8_t buf[3 * 1024];/* records batched before they reach the stream */
    unsigned used;
} ma_derived_digest;

/* Starts an empty stream. Errors: MA_ENOMEM. */
int ma_derived_digest_init(ma_derived_digest *d, ma_error *err);
/* Adds the value of the next canonical position. depth must be 0 for a draw or unknown value and
 * at most 65535; MA_EINVAL (nothing added) for an unknown outcome letter or a depth out of range. */
int ma_derived_digest_add(ma_derived_digest *d, ma_derived_outcome outcome, unsigned depth, ma_error *err);
/* Writes the 64 lowercase hex digits (+ NUL) and the number of positions added, and frees the
 * stream (d may be init'ed again). positions may be NULL. */
int ma_derived_digest_final(ma_derived_digest *d, char hex[MA_DERIVED_DIGEST_HEX_LEN + 1], uint64_t *positions,
                            ma_error *err);
/* Frees a stream that will not be finished (after an error). Safe on a finished or zeroed one. */
void ma_derived_digest_abort(ma_derived_digest *d);

/* The same record stream from an open-format value word (docs/format.md §5.3) of a canonical
 * entry: 01 = loss, 10 = draw, 11 = win; a word that is not a well-formed value (0x0000 included)
 * is MA_EFORMAT and adds nothing. For digests of stored values (a database that verified clean has
 * stored = derived). */
int ma_derived_digest_add_word(ma_derived_digest *d, uint16_t word, ma_error *err);

/* Non-zero when s is 64 lowercase hex digits. */
int ma_derived_digest_hex_valid(const char *s);

#endif
