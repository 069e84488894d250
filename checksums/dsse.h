/*
 * dsse: Dead Simple Signing Envelopes (DSSE v1) signed with Ed25519, the signature layer of
 * millaudit's attestations (docs/attestations.md).
 *
 * Everything cryptographic is OpenSSL libcrypto's EVP API: base64 (EVP_EncodeBlock /
 * EVP_DecodeBlock), Ed25519 keys from PEM files (`openssl genpkey -algorithm ed25519`), signing and
 * verification; the envelope is JSON through jansson. Nothing here knows what the payload says.
 *
 * Contract:
 *  - The signature is over DSSE's pre-authentication encoding, exactly as the spec writes it:
 *      PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
 *    where LEN is the byte length as ASCII decimal without leading zeros and SP one space.
 *  - A key's keyid is the lowercase hex SHA-256 of its public key in DER SubjectPublicKeyInfo form
 *    (what `openssl pkey -pubin -outform DER | sha256sum` prints), so anyone holding the public key
 *    can compute it.
 *  - Envelopes are written {"payloadType", "payload", "signatures": [{"keyid", "sig"}]} with
 *    standard padded base64; the parser also accepts URL-safe base64 and missing padding (the spec
 *    allows either), ignores unknown members, and refuses anything else with MA_EFORMAT and a
 *    one-line message starting with the name it was given.
 *  - Signature verification never fails with an error for a wrong signature: it reports
 *    *valid = 0. Errors are for unusable input (MA_EFORMAT) and OpenSSL failures (MA_EINTERNAL).
 */
#ifndef MA_DSSE_H
#define MA_DSSE_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"

#define MA_DSSE_MAX_ENVELOPE (64u * 1024u * 1024u) /* larger is no envelope of ours */
/* An envelope with more signatures is refused before any is decoded or tried: each costs an
 * Ed25519 verification, and a file of half a million bad ones would take minutes and hundreds of
 * megabytes (docs/attestations.md). Real envelopes carry one per signer. */
#define MA_DSSE_MAX_SIGNATURES 16
#define MA_ED25519_SIG_LEN 64

/* ---- base64 ---- */

/* Standard base64 with padding of data[0..len), malloc'd and NUL-terminated. MA_ENOMEM. */
int ma_base64_encode(const uint8_t *data, size_t len, char **out, ma_error *err);
/* Decodes standard or URL-safe base64, padded or not; anything else (other characters, inner
 * padding, a length of 1 mod 4, non-zero bits after the last byte is allowed by the spec's
 * decoders and accepted) is MA_EFORMAT naming `what`. *out is malloc'd (at least one byte). */
int ma_base64_decode(const char *text, size_t len, uint8_t **out, size_t *out_len, const char *what,
                     ma_error *err);

/* ---- PAE ---- */

/* The pre-authentication encoding of (type, body), malloc'd in *out (*out_len bytes). MA_ENOMEM. */
int ma_dsse_pae(const char *type, const uint8_t *body, size_t body_len, uint8_t **out, size_t *out_len,
                ma_error *err);

/* ---- Ed25519 keys ---- */

typedef struct ma_ed25519_key ma_ed25519_key;

/* Loads a PEM private key (PKCS#8, as openssl genpkey writes it) / a PEM public key
 * (SubjectPublicKeyInfo, as `openssl pkey -pubout` writes it). Errors: MA_EMISSING (no file),
 * MA_EFORMAT (not PEM, or not an Ed25519 key of that kind), MA_EIO. */
MA_API int ma_ed25519_load_private(ma_ed25519_key **out, const char *path, ma_error *err);
MA_API int ma_ed25519_load_public(ma_ed25519_key **out, const char *path, ma_error *err);
/* The same from PEM text in memory (name is for messages). */
int ma_ed25519_parse_private(const char *pem, size_t len, const char *name, ma_ed25519_key **out, ma_error *err);
int ma_ed25519_parse_public(const char *pem, size_t len, const char *name, ma_ed25519_key **out, ma_error *err);
MA_API void ma_ed25519_key_free(ma_ed25519_key *k); /* also public: millaudit/store.h */
/* The keyid (64 lowercase hex + NUL). */
void ma_ed25519_keyid(const ma_ed25519_key *k, char out[65]);

/* Signs msg with a private key. MA_EINVAL for a public-only key, MA_EINTERNAL if OpenSSL fails. */
int ma_ed25519_sign(const ma_ed25519_key *k, const uint8_t *msg, size_t len, uint8_t sig[MA_ED25519_SIG_LEN],
                    ma_error *err);
/* 1 when sig is k's signature of msg, else 0 (also for a signature of the wrong length). */
int ma_ed25519_verify(const ma_ed25519_key *k, const uint8_t *msg, size_t len, const uint8_t *sig,
                      size_t sig_len);

/* ---- envelopes ---- */

typedef struct ma_dsse_signature {
    char *keyid;       /* "" when the envelope gives none */
    uint8_t *sig;
    size_t sig_len;
} ma_dsse_signature;

typedef struct ma_dsse_envelope {
    char *payload_type;
    uint8_t *payload;  /* decoded; NUL-terminated for convenience (payload_len excludes it) */
    size_t payload_len;
    ma_dsse_signature *sigs;
    size_t n_sigs;
} ma_dsse_envelope;

/* Signs payload as payloadType type with k and writes the envelope JSON (one signature, keyid
 * set, ending in a newline) into *json (malloc'd). */
int ma_dsse_sign(const char *type, const uint8_t *payload, size_t len, const ma_ed25519_key *k, char **json,
                 ma_error *err);
/* Parses an envelope; name is used in messages. out is zeroed first; free with
 * ma_dsse_envelope_free (also after errors). MA_EFORMAT for anything malformed. */
int ma_dsse_parse(const char *text, size_t len, const char *name, ma_dsse_envelope *out, ma_error *err);
void ma_dsse_envelope_free(ma_dsse_envelope *e);

/* Checks every signature of the envelope against k whatever its keyid (an unsigned hint that other
 * tools compute otherwise): *valid = 1 when one verifies over PAE(payloadType, payload); *index is then
 * its position (else -1). */
int ma_dsse_verify(const ma_dsse_envelope *e, const ma_ed25519_key *k, int *valid, int *index, ma_error *err);

#endif
