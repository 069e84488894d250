/* One read of a file into private memory, hashed as it is read; contract in private_read.h. */
#include "checksums/private_read.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/counts.h"
#include "common/huge_alloc.h"

void ma_private_free(ma_private_bytes *b)
{
    if (b->data) {
        /* the allocator writes into memory given back (huge_alloc.h) */
        (void)mprotect((void *)b->data, ma_fit_size(b->size), PROT_READ | PROT_WRITE);
        ma_fit_free((void *)b->data, b->size);
    }
    memset(b, 0, sizeof *b);
}

uint64_t ma_private_held(uint64_t size)
{
    return size ? (uint64_t)ma_fit_size((size_t)size) : 0;
}

/* pread that retries when interrupted by a signal: a signal stops the read through cancel. */
static ssize_t read_at(int fd, uint8_t *p, size_t n, uint64_t off)
{
    ssize_t got;
    do
        got = pread(fd, p, n, (off_t)off);
    while (got < 0 && errno == EINTR);
    return got;
}

int ma_private_read(ma_private_bytes *out, int fd, const char *who, uint64_t size,
                    const volatile sig_atomic_t *cancel, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (size > (uint64_t)(SIZE_MAX / 2))
        return ma_error_set(err, MA_ENOMEM, "%s: offset 0: out of memory reading %s", who,
                            MA_COUNT(size, "byte", "bytes"));
    uint8_t *buf = size ? ma_fit_alloc((size_t)size) : NULL;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = MA_OK;
    uint64_t off = 0;
    if ((size && !buf) || !ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        rc = ma_error_set(err, MA_ENOMEM, "%s: offset 0: out of memory reading %s", who,
                          MA_COUNT(size, "byte", "bytes"));
        goto out;
    }
    while (off < size) {
        if (cancel && *cancel) {
            rc = ma_error_set(err, MA_ECANCELED, "%s: offset %llu: interrupted", who,
                              (unsigned long long)off);
            goto out;
        }
        size_t want = size - off < MA_PRIVATE_READ_PIECE ? (size_t)(size - off) : MA_PRIVATE_READ_PIECE;
        ssize_t got = read_at(fd, buf + off, want, off);
        if (got < 0) {
            rc = ma_error_set(err, MA_EIO, "%s: offset %llu: read error: %s", who,
                              (unsigned long long)off, strerror(errno));
            goto out;
        }
        if (got == 0) {
            rc = ma_error_set(err, MA_EIO,
                              "%s: offset %llu: the file ended here, %s expected: "
                              "truncated while read",
                              who, (unsigned long long)off, MA_COUNT(size, "byte", "bytes"));
            goto out;
        }
        /* exactly the bytes now in the buffer, in order: the digest is theirs */
        if (EVP_DigestUpdate(ctx, buf + off, (size_t)got) != 1) {
            rc = ma_error_set(err, MA_ENOMEM, "%s: offset %llu: out of memory hashing", who,
                              (unsigned long long)off);
            goto out;
        }
        off += (uint64_t)got;
    }
    uint8_t extra;
    ssize_t more = read_at(fd, &extra, 1, size);
    if (more > 0) {
        rc = ma_error_set(err, MA_EIO, "%s: offset %llu: the file holds more than its %s: "
                          "grown while read", who, (unsigned long long)size, MA_COUNT(size, "byte", "bytes"));
        goto out;
    }
    uint8_t d[MA_SHA256_LEN];
    unsigned dlen = 0;
    if (EVP_DigestFinal_ex(ctx, d, &dlen) != 1) {
        rc = ma_error_set(err, MA_ENOMEM, "%s: offset %llu: out of memory hashing", who,
                          (unsigned long long)size);
        goto out;
    }
    /* read-only from here: a bug that wrote into the bytes checked would fault, not pass */
    if (buf && mprotect(buf, ma_fit_size((size_t)size), PROT_READ) != 0) {
        rc = ma_error_set(err, MA_ENOMEM, "%s: offset 0: cannot make the bytes read read-only: %s",
                          who, strerror(errno));
        goto out;
    }
    out->data = buf;
    out->size = (size_t)size;
    out->read = 1;
    ma_sha256_hex(out->sha256, d);
    buf = NULL;
out:
    EVP_MD_CTX_free(ctx);
    ma_fit_free(buf, (size_t)size);
    return rc;
}
