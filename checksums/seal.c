/* checksums/seal: seal keys, HMAC-SHA256 or Ed25519 seals of a digest (checksums/seal.h). */
#include "checksums/seal.h"
#include "common/counts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "checksums/dsse.h"
#include "checksums/sha256.h"
#include "common/fileio.h"

struct ma_seal_key {
    ma_ed25519_key *ed;      /* Ed25519 (private or public), or NULL */
    uint8_t *secret;         /* HMAC secret, or NULL */
    size_t secret_len;
    char id[65];
};

static const char *const SEAL_PREFIX = "millaudit-seal v1 ";

static int hmac(const uint8_t *key, size_t key_len, const void *msg, size_t len, uint8_t out[32])
{
    size_t n = 0;
    return EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, key, key_len, msg, len, out, 32, &n) != NULL && n == 32;
}

int ma_seal_key_load(ma_seal_key **out, const char *path, ma_error *err)
{
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    int rc = ma_file_read_document(path, MA_SEAL_SECRET_MAX * 4, "not a seal key", &text, &len, err);
    if (rc)
        return rc;
    ma_seal_key *k = calloc(1, sizeof *k);
    if (!k) {
        OPENSSL_clear_free(text, len + 1);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    }
    if (strstr(text, "-----BEGIN PRIVATE KEY-----")) {
        rc = ma_ed25519_parse_private(text, len, path, &k->ed, err);
    } else if (strstr(text, "-----BEGIN PUBLIC KEY-----")) {
        rc = ma_ed25519_parse_public(text, len, path, &k->ed, err);
    } else if (strstr(text, "-----BEGIN")) {
        rc = ma_error_set(err, MA_EFORMAT, "%s: a PEM file that is no Ed25519 private or public key (an encrypted "
                          "key is not read)", path);
    } else if (len < MA_SEAL_SECRET_MIN || len > MA_SEAL_SECRET_MAX) {
        rc = ma_error_set(err, MA_EFORMAT, "%s: a secret seal key has %s to %s, this file %s (make one with "
                          "`openssl rand -hex 32 > %s`)", path, MA_NUM(MA_SEAL_SECRET_MIN),
                          MA_COUNT(MA_SEAL_SECRET_MAX, "byte", "bytes"), MA_NUM(len), path);
    } else if (!(k->secret = malloc(len))) {
        rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    } else {
        memcpy(k->secret, text, len);
        k->secret_len = len;
        static const char label[] = "millaudit seal key id";
        uint8_t id[32];
        if (!hmac(k->secret, k->secret_len, label, sizeof label - 1, id))
            rc = ma_error_set(err, MA_EINTERNAL, "%s: HMAC-SHA256 failed in OpenSSL", path);
        else
            ma_sha256_hex(k->id, id);
    }
    if (rc == MA_OK && k->ed)
        ma_ed25519_keyid(k->ed, k->id);
    OPENSSL_clear_free(text, len + 1); /* key material does not linger in freed memory */
    if (rc) {
        ma_seal_key_free(k);
        return rc;
    }
    *out = k;
    return MA_OK;
}

void ma_seal_key_free(ma_seal_key *k)
{
    if (!k)
        return;
    ma_ed25519_key_free(k->ed);
    if (k->secret)
        OPENSSL_clear_free(k->secret, k->secret_len);
    free(k);
}

const char *ma_seal_key_algorithm(const ma_seal_key *k) { return k->ed ? "ed25519" : "hmac-sha256"; }
const char *ma_seal_key_id(const ma_seal_key *k) { return k->id; }

int ma_seal_key_can_seal(const ma_seal_key *k)
{
    if (!k->ed)
        return 1;
    /* a public key refuses to sign: ask it with an empty message */
    uint8_t sig[MA_ED25519_SIG_LEN];
    return ma_ed25519_sign(k->ed, (const uint8_t *)"", 0, sig, NULL) == MA_OK;
}

/* "millaudit-seal v1 <hex>" */
static size_t message(const uint8_t digest[32], char *buf)
{
    char hex[65];
    ma_sha256_hex(hex, digest);
    return (size_t)snprintf(buf, 96, "%s%s", SEAL_PREFIX, hex);
}

static void to_hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int ma_seal_make(const ma_seal_key *k, const uint8_t digest[32], char *out, ma_error *err)
{
    char msg[96];
    size_t len = message(digest, msg);
    if (k->ed) {
        uint8_t sig[MA_ED25519_SIG_LEN];
        int rc = ma_ed25519_sign(k->ed, (const uint8_t *)msg, len, sig, err);
        if (rc)
            return rc == MA_EINVAL ? ma_error_set(err, MA_EINVAL, "a public key cannot seal: give the private key")
                                   : rc;
        to_hex(sig, sizeof sig, out);
        return MA_OK;
    }
    uint8_t mac[32];
    if (!hmac(k->secret, k->secret_len, msg, len, mac))
        return ma_error_set(err, MA_EINTERNAL, "HMAC-SHA256 failed in OpenSSL");
    to_hex(mac, sizeof mac, out);
    return MA_OK;
}

static int from_hex(const char *hex, uint8_t *out, size_t n)
{
    if (strlen(hex) != 2 * n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return 0;
        out[i] = (uint8_t)v;
    }
    return 1;
}

int ma_seal_valid(const ma_seal_key *k, const char *algorithm, const uint8_t digest[32], const char *seal)
{
    if (!algorithm || strcmp(algorithm, ma_seal_key_algorithm(k)) != 0 || !seal)
        return 0;
    char msg[96];
    size_t len = message(digest, msg);
    if (k->ed) {
        uint8_t sig[MA_ED25519_SIG_LEN];
        return from_hex(seal, sig, sizeof sig) && ma_ed25519_verify(k->ed, (const uint8_t *)msg, len, sig, sizeof sig);
    }
    uint8_t want[32], got[32];
    if (!from_hex(seal, got, sizeof got) || !hmac(k->secret, k->secret_len, msg, len, want))
        return 0;
    return CRYPTO_memcmp(want, got, sizeof want) == 0; /* constant time: no timing oracle on the MAC */
}
