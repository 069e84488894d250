/*
 * seal: the key a shard seals its store with and a merge checks it with (docs/distributed.md
 * "Sealing"; the rows sealed are reports/store/audit_seal.h's canonical content, verifier/run/seal.h glues both).
 *
 * A seal key file is one of:
 *   - an Ed25519 private key in PEM (`openssl genpkey -algorithm ed25519`): it seals (signs) and
 *     checks; algorithm "ed25519";
 *   - an Ed25519 public key in PEM (`openssl pkey -pubout`): it only checks, so the merge host need
 *     not hold what the shards sign with; algorithm "ed25519";
 *   - anything else of 16 to 4096 bytes is a shared secret, its bytes as they are (a trailing
 *     newline included): HMAC-SHA256 seals and checks with it (`openssl rand -hex 32 > seal.key`);
 *     algorithm "hmac-sha256".
 * The key id is, for Ed25519, the SHA-256 of the public key's DER SubjectPublicKeyInfo (as
 * attestations name keys); for a secret, HMAC-SHA256(secret, "millaudit seal key id"), which names
 * the secret without revealing it.
 *
 * What is sealed is a 32-byte digest; the message MAC'd or signed is the ASCII text
 * "millaudit-seal v1 <hex digest>", so a seal is never valid as anything else (an attestation's
 * signature covers a DSSE pre-authentication encoding, which starts "DSSEv1").
 *
 * OpenSSL EVP only (EVP_Q_mac, EVP_DigestSign/Verify). Errors: MA_EMISSING / MA_EIO reading the
 * file, MA_EFORMAT for a file that is no key (empty, too short or long, a PEM that is not an
 * Ed25519 key or is encrypted), MA_EINTERNAL when OpenSSL fails.
 */
#ifndef MA_CHECKSUMS_SEAL_H
#define MA_CHECKSUMS_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"

typedef struct ma_seal_key ma_seal_key;

#define MA_SEAL_SECRET_MIN 16
#define MA_SEAL_SECRET_MAX 4096

MA_API int ma_seal_key_load(ma_seal_key **out, const char *path, ma_error *err);
MA_API void ma_seal_key_free(ma_seal_key *k);
/* "hmac-sha256" or "ed25519" */
const char *ma_seal_key_algorithm(const ma_seal_key *k);
/* 64 lowercase hex */
const char *ma_seal_key_id(const ma_seal_key *k);
/* Non-zero when the key can seal (a secret or a private key), 0 for a public key. */
int ma_seal_key_can_seal(const ma_seal_key *k);

/* The seal of digest as lowercase hex (64 for HMAC, 128 for Ed25519) into out (at least 129
 * bytes). MA_EINVAL for a public key. */
int ma_seal_make(const ma_seal_key *k, const uint8_t digest[32], char *out, ma_error *err);
/* 1 when seal (hex) is k's seal of digest under algorithm (which must be k's), else 0. */
int ma_seal_valid(const ma_seal_key *k, const char *algorithm, const uint8_t digest[32], const char *seal);

#endif
