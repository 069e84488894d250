/*
 * Checker-side reader of the open database format (docs/format.md §5): header validation, body
 * access through a read-only memory map, and the value encoding 1 (§5.3).
 *
 * Written from the spec, independently of the producer's writer, so a writer bug shows up as a
 * read error or a discrepancy instead of being shared.
 *
 * Every error message has the form "<path>: sector <W_B_WF_BF or ?>: offset <byte>: <what>".
 */
#ifndef MA_OPEN_FILE_H
#define MA_OPEN_FILE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "checksums/private_read.h"
#include "common/fileio.h"
#include "common/ma_error.h"
#include "indexer/open_index.h"
#include "verifier/formats/value.h"
#include "indexer/position.h"

#define MA_OPEN_HEADER_SIZE 128
#define MA_OPEN_FORMAT_VERSION 1
#define MA_OPEN_SUFFIX ".mdb"

typedef struct ma_open_header {
    uint16_t format_version;   /* 1 */
    uint16_t header_size;      /* 128 */
    ma_variant variant;        /* from byte 12 */
    uint8_t rule_flags;        /* bit 0: full board is a draw */
    ma_sector sector;          /* bytes 14..17 */
    uint8_t entry_width;       /* 2 */
    uint8_t value_encoding;    /* 1 */
    uint16_t index_scheme;     /* 1 = sym16-colex */
    uint16_t index_scheme_version; /* 1 */
    uint64_t entry_count;      /* as stored; validated against the index */
    char producer[33];         /* NUL-terminated copy of the 32-byte field */
    char producer_version[17]; /* NUL-terminated copy of the 16-byte field */
    uint8_t body_digest[32];   /* bytes 80..111: SHA-256 of the body as the producer wrote it */
    int has_body_digest;       /* 0 when the field is all zero (no digest recorded) */
} ma_open_header;

typedef struct ma_open_file {
    char path[4096];           /* as opened, for messages */
    ma_open_header header;     /* validated header */
    const uint8_t *body;       /* entry_count * 2 bytes, little-endian words */
    const void *map;           /* the whole mapping (NULL after close) */
    size_t map_size;           /* file length */
    ma_private_bytes priv;     /* read privately (priv.read, ma_open_file_read): map is priv.data */
    ma_file_stamp stamp;       /* ma_open_file_map_stamped: the file as it was mapped
                                * (common/fileio.h), taken before any byte was read */
} ma_open_file;

/* Maps and validates a file: every header field of §5.1 (the body digest is read, not checked:
 * hashing the body is the caller's choice, see ma_open_file_body_digest_ok) (including that the sector is valid for
 * the variant and that entry_count equals the index's count, which needs prepare(W) on ix) and the
 * exact length 128 + 2*entry_count. If expect_name is non-zero the file name must be
 * <variant>_<W>_<B>_<WF>_<BF>.mdb matching the header. Errors: MA_EIO (cannot open/map),
 * MA_EFORMAT (anything malformed). On error nothing stays mapped. */
int ma_open_file_map(ma_open_file *f, const char *path, ma_open_index *ix, int expect_name,
                     ma_error *err);
/* ma_open_file_map, stamped before a byte is read (ma_file_stamp_take, common/fileio.h: waits for a
 * file changed less than MA_FILE_STAMP_SETTLE_NS before): f->stamp, which verify compares after
 * its check (ma_source_moved). */
int ma_open_file_map_stamped(ma_open_file *f, const char *path, ma_open_index *ix, int expect_name,
                             ma_error *err);
/* ma_open_file_map, but the file is read once into private memory and hashed as it is read
 * (checksums/private_read.h) instead of mapped, and validated from those bytes: f->map are then
 * bytes that cannot change however the file does, f->priv.sha256 their digest. A read that fails
 * or finds the file truncated or grown while read is MA_EIO "<path>: sector S: offset N: ...";
 * one that finds *cancel set (a signal's flag, checked before each 2 MiB piece; cancel may be
 * NULL) is MA_ECANCELED "...: offset N: interrupted". */
int ma_open_file_read(ma_open_file *f, const char *path, ma_open_index *ix, int expect_name,
                      const volatile sig_atomic_t *cancel, ma_error *err);
void ma_open_file_close(ma_open_file *f);

/* §5.1 body digest: 1 when the header records one and the SHA-256 of the mapped body equals it,
 * 0 when it records one and the body differs (the body is not what its producer wrote; report at
 * offset 80), -1 when the header records none. Reads the whole body. */
int ma_open_file_body_digest_ok(const ma_open_file *f);

/* Reads the identity of a 128-byte header h without validating it: MA_OK when the magic, format
 * version 1, header size 128 and a variant 1..3 say the file is one of ours, and then every field
 * of *out as stored (the sector, entry count and scheme fields unchecked; producer texts cut at
 * their NUL padding; the body digest and whether one is recorded); MA_EFORMAT otherwise. For what a file states about itself (provenance);
 * reading a file's entries needs ma_open_file_map. */
int ma_open_header_identify(const uint8_t h[MA_OPEN_HEADER_SIZE], ma_open_header *out);

/* The raw value word of an entry (entry < header.entry_count). */
static inline uint16_t ma_open_file_word(const ma_open_file *f, uint64_t entry)
{
    const uint8_t *p = f->body + 2 * entry;
    return (uint16_t)(p[0] | (p[1] << 8));
}

/* Byte offset of an entry's word in the file, for messages. */
static inline uint64_t ma_open_file_offset(uint64_t entry)
{
    return MA_OPEN_HEADER_SIZE + 2 * entry;
}

/* Decodes a word per §5.3. Returns 0 for a well-formed word, -1 for a bad encoding (then *v holds
 * the outcome bits and depth field as read). A well-formed 0x0000 decodes to MA_OUTCOME_NONE. */
int ma_open_value_decode(uint16_t word, ma_value *v);
/* Encodes a value (the caller guarantees parity and range). */
uint16_t ma_open_value_encode(ma_value v);

/* "<variant>_<W>_<B>_<WF>_<BF>.mdb" into buf. */
void ma_open_file_name(ma_variant v, ma_sector s, char *buf, size_t len);
/* Parses such a name (without directory); MA_OK or MA_EINVAL. */
int ma_open_file_name_parse(const char *name, ma_variant *v, ma_sector *s);

#endif
