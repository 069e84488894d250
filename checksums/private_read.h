/*
 * checksums/private_read: one read of a whole file into private memory, hashed as it is read, so
 * that the digest is, by construction, the digest of the very bytes every later reader of the
 * buffer sees (docs/runs.md "The bytes hashed are the bytes checked").
 *
 * A file mapped MAP_PRIVATE shows whatever the file holds when a page is faulted in: rewritten in
 * place while a check reads it and rewritten back before it is hashed again, a check may have read
 * bytes no digest was taken of. Bytes copied once into anonymous memory cannot change behind the
 * reader's back, and the SHA-256 taken of them while they are placed there is theirs.
 *
 * Contract:
 *  - ma_private_read(out, fd, who, size, cancel, err) reads bytes [0, size) of the regular file
 *    open at fd with pread, in pieces of MA_PRIVATE_READ_PIECE bytes, into fresh memory from
 *    ma_fit_alloc (common/huge_alloc.h: whole 2 MiB pages from one huge page up, ordinary pages
 *    of a mapping of its own below, so a small file costs its size, and no more once freed), feeding exactly the bytes placed in the buffer, in
 *    order, to one SHA-256 (OpenSSL EVP). size is the file's size as the caller took it
 *    (fstat). Then it checks that the file holds nothing past size (a file that grew while read
 *    changed), turns the buffer read-only (mprotect PROT_READ) and fills *out: data (NULL for an
 *    empty file), size, and the digest in lowercase hex as a run records it. fd is not closed.
 *  - Errors, one line "<who>: offset <N>: <what>" (who names the file: "<path>" or "<path>: sector
 *    S", as the caller's messages do), *out zeroed, nothing allocated left over, no partially
 *    filled buffer ever returned:
 *      MA_EIO       a read error at offset N (strerror), the file ending at N before size bytes
 *                   (truncated while read), or holding bytes past size (grown while read);
 *      MA_ECANCELED *cancel became non-zero (checked before each piece, so a signal whose
 *                   handler sets it stops a large read within one piece; cancel may be NULL);
 *      MA_ENOMEM    no memory for the buffer or the digest (offset 0).
 *  - ma_private_free releases the buffer (restoring write access first, as huge_alloc.h asks) and
 *    zeroes *b; a zeroed struct is allowed. Never madvise(MADV_DONTNEED) the buffer: anonymous
 *    memory dropped reads back as zeros.
 *  - ma_private_held(size): the memory a successful read of a file of size bytes holds until it
 *    is freed (ma_fit_size; 0 for an empty file), for a plan of a run's memory.
 * Threading: any number of calls at once on different structs.
 */
#ifndef MA_CHECKSUMS_PRIVATE_READ_H
#define MA_CHECKSUMS_PRIVATE_READ_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "checksums/sha256.h"
#include "common/ma_error.h"

#define MA_PRIVATE_READ_PIECE ((size_t)2 << 20)

typedef struct ma_private_bytes {
    const uint8_t *data;                /* read-only; NULL for an empty file */
    size_t size;                        /* bytes read: the file's size */
    int read;                           /* non-zero once a read succeeded (also for 0 bytes) */
    char sha256[MA_SHA256_HEX_LEN + 1]; /* SHA-256 of data[0..size), lowercase hex */
} ma_private_bytes;

int ma_private_read(ma_private_bytes *out, int fd, const char *who, uint64_t size,
                    const volatile sig_atomic_t *cancel, ma_error *err);
void ma_private_free(ma_private_bytes *b);
uint64_t ma_private_held(uint64_t size);

#endif
