/* Derived-value digest (checksums/derived_digest.h): 3-byte records into one SHA-256 stream. */
#include "checksums/derived_digest.h"

#include <string.h>

#include <openssl/evp.h>

static int flush(ma_derived_digest *d, ma_error *err)
{
    if (d->used && EVP_DigestUpdate((EVP_MD_CTX *)d->ctx, d->buf, d->used) != 1)
        return ma_error_set(err, MA_EINTERNAL, "derived digest: SHA-256 update failed");
    d->used = 0;
    return MA_OK;
}

int ma_derived_digest_init(ma_derived_digest *d, ma_error *err)
{
    memset(d, 0, sizeof *d);
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c)
        return ma_error_set(err, MA_ENOMEM, "derived digest: out of memory");
    if (EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(c);
        return ma_error_set(err, MA_EINTERNAL, "derived digest: SHA-256 init failed");
    }
    d->ctx = c;
    return MA_OK;
}

int ma_derived_digest_add(ma_derived_digest *d, ma_derived_outcome outcome, unsigned depth, ma_error *err)
{
    if (!d->ctx)
        return ma_error_set(err, MA_EINVAL, "derived digest: stream not started");
    switch (outcome) {
    case MA_DERIVED_WIN:
    case MA_DERIVED_LOSS:
        if (depth > 0xFFFFu)
            return ma_error_set(err, MA_EINVAL, "derived digest: position %llu: depth %u out of range",
                                (unsigned long long)d->positions, depth);
        break;
    case MA_DERIVED_DRAW:
    case MA_DERIVED_UNKNOWN:
        if (depth)
            return ma_error_set(err, MA_EINVAL, "derived digest: position %llu: %s with depth %u",
                                (unsigned long long)d->positions,
                                outcome == MA_DERIVED_DRAW ? "draw" : "unknown value", depth);
        break;
    default:
        return ma_error_set(err, MA_EINVAL, "derived digest: position %llu: unknown outcome %d",
                            (unsigned long long)d->positions, (int)outcome);
    }
    if (d->used == sizeof d->buf) {
        int rc = flush(d, err);
        if (rc)
            return rc;
    }
    d->buf[d->used++] = (uint8_t)outcome;
    d->buf[d->used++] = (uint8_t)(depth & 0xFF);
    d->buf[d->used++] = (uint8_t)(depth >> 8);
    d->positions++;
    return MA_OK;
}

int ma_derived_digest_add_word(ma_derived_digest *d, uint16_t word, ma_error *err)
{
    unsigned outcome = word >> 14, depth = word & 0x3FFFu;
    if (outcome == 3 && (depth & 1))
        return ma_derived_digest_add(d, MA_DERIVED_WIN, depth, err);
    if (outcome == 1 && !(depth & 1))
        return ma_derived_digest_add(d, MA_DERIVED_LOSS, depth, err);
    if (outcome == 2 && depth == 0)
        return ma_derived_digest_add(d, MA_DERIVED_DRAW, 0, err);
    return ma_error_set(err, MA_EFORMAT, "derived digest: position %llu: word 0x%04X is not a value",
                        (unsigned long long)d->positions, word);
}

int ma_derived_digest_final(ma_derived_digest *d, char hex[MA_DERIVED_DIGEST_HEX_LEN + 1], uint64_t *positions,
                            ma_error *err)
{
    if (!d->ctx)
        return ma_error_set(err, MA_EINVAL, "derived digest: stream not started");
    unsigned char md[32];
    unsigned len = 0;
    int rc = flush(d, err);
    if (rc == MA_OK && (EVP_DigestFinal_ex((EVP_MD_CTX *)d->ctx, md, &len) != 1 || len != 32))
        rc = ma_error_set(err, MA_EINTERNAL, "derived digest: SHA-256 final failed");
    if (rc == MA_OK) {
        static const char digits[] = "0123456789abcdef";
        for (unsigned i = 0; i < 32; i++) {
            hex[2 * i] = digits[md[i] >> 4];
            hex[2 * i + 1] = digits[md[i] & 15];
        }
        hex[64] = 0;
        if (positions)
            *positions = d->positions;
    }
    ma_derived_digest_abort(d);
    return rc;
}

void ma_derived_digest_abort(ma_derived_digest *d)
{
    if (d->ctx)
        EVP_MD_CTX_free((EVP_MD_CTX *)d->ctx);
    d->ctx = NULL;
    d->used = 0;
}

int ma_derived_digest_hex_valid(const char *s)
{
    if (!s)
        return 0;
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return s[64] == 0;
}
