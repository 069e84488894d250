/* DSSE envelopes with Ed25519 over OpenSSL EVP; see dsse.h for the contract. */
#define _GNU_SOURCE /* memmem */
#include "checksums/dsse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "checksums/sha256.h"
#include "common/counts.h"
#include "common/fileio.h"
#include "common/json_text.h"

#define MAX_KEY_FILE (64 * 1024) /* a PEM Ed25519 key is about 120 bytes */

struct ma_ed25519_key {
    EVP_PKEY *pkey;
    int is_private;
    char keyid[65];
};

/* ---- base64 ---- */

int ma_base64_encode(const uint8_t *data, size_t len, char **out, ma_error *err)
{
    if (len > (size_t)INT32_MAX / 2)
        return ma_error_set(err, MA_EINVAL, "base64: %s is too long", MA_COUNT(len, "byte", "bytes"));
    char *buf = malloc(4 * ((len + 2) / 3) + 1);
    if (!buf)
        return ma_error_set(err, MA_ENOMEM, "base64: out of memory");
    EVP_EncodeBlock((unsigned char *)buf, data, (int)len); /* NUL-terminates */
    *out = buf;
    return MA_OK;
}

int ma_base64_decode(const char *text, size_t len, uint8_t **out, size_t *out_len, const char *what,
                     ma_error *err)
{
    *out = NULL;
    *out_len = 0;
    if (len > (size_t)INT32_MAX / 2)
        return ma_error_set(err, MA_EFORMAT, "%s: base64 text too long", what);
    /* Normalise to standard padded base64 first, so EVP_DecodeBlock (which would also skip
     * whitespace and accept inner padding) only ever sees the strict form. */
    size_t data = len;
    while (data > 0 && text[data - 1] == '=')
        data--;
    if (len - data > 2 || (len - data > 0 && len % 4 != 0))
        return ma_error_set(err, MA_EFORMAT, "%s: bad base64 padding", what);
    if (data % 4 == 1)
        return ma_error_set(err, MA_EFORMAT, "%s: base64 text of impossible length %zu", what, len);
    size_t padded = (data + 3) / 4 * 4;
    char *norm = malloc(padded + 1);
    uint8_t *buf = malloc(padded / 4 * 3 + 1);
    if (!norm || !buf) {
        free(norm);
        free(buf);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", what);
    }
    for (size_t i = 0; i < data; i++) {
        char c = text[i];
        if (c == '-')
            c = '+';
        else if (c == '_')
            c = '/';
        else if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
                   c == '/')) {
            free(norm);
            free(buf);
            return ma_error_set(err, MA_EFORMAT, "%s: offset %zu: not a base64 character", what, i);
        }
        norm[i] = c;
    }
    for (size_t i = data; i < padded; i++)
        norm[i] = '=';
    norm[padded] = '\0';
    int n = padded ? EVP_DecodeBlock(buf, (const unsigned char *)norm, (int)padded) : 0;
    free(norm);
    if (n < 0) {
        free(buf);
        return ma_error_set(err, MA_EFORMAT, "%s: not base64", what);
    }
    /* EVP_DecodeBlock counts the padding as zero bytes */
    *out_len = (size_t)n - (padded - data);
    buf[*out_len] = 0;
    *out = buf;
    return MA_OK;
}

/* ---- PAE ---- */

int ma_dsse_pae(const char *type, const uint8_t *body, size_t body_len, uint8_t **out, size_t *out_len,
                ma_error *err)
{
    size_t tl = strlen(type);
    char head[96];
    int hl = snprintf(head, sizeof head, "DSSEv1 %zu ", tl);
    char mid[32];
    int ml = snprintf(mid, sizeof mid, " %zu ", body_len);
    size_t total = (size_t)hl + tl + (size_t)ml + body_len;
    uint8_t *buf = malloc(total ? total : 1);
    if (!buf)
        return ma_error_set(err, MA_ENOMEM, "PAE: out of memory");
    uint8_t *p = buf;
    memcpy(p, head, (size_t)hl);
    p += hl;
    memcpy(p, type, tl);
    p += tl;
    memcpy(p, mid, (size_t)ml);
    p += ml;
    if (body_len)
        memcpy(p, body, body_len);
    *out = buf;
    *out_len = total;
    return MA_OK;
}

/* ---- keys ---- */

static int read_small_file(const char *path, char **out, size_t *len, ma_error *err)
{
    int fd;
    int rc = ma_file_open_regular(path, &fd, NULL, err);
    if (rc)
        return rc;
    char *buf = malloc(MAX_KEY_FILE + 2);
    if (!buf) {
        close(fd);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    }
    size_t n = 0;
    for (;;) {
        ssize_t got = read(fd, buf + n, MAX_KEY_FILE + 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = ma_error_set(err, MA_EIO, "%s: offset %zu: read failed: %s", path, n, strerror(errno));
            break;
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if (n > MAX_KEY_FILE) {
            rc = ma_error_set(err, MA_EFORMAT, "%s: larger than %s, not a PEM key", path, MA_COUNT(MAX_KEY_FILE, "byte", "bytes"));
            break;
        }
    }
    close(fd);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return MA_OK;
}

static int finish_key(EVP_PKEY *pkey, int is_private, const char *name, ma_ed25519_key **out, ma_error *err)
{
    if (EVP_PKEY_id(pkey) != EVP_PKEY_ED25519) {
        EVP_PKEY_free(pkey);
        return ma_error_set(err, MA_EFORMAT, "%s: not an Ed25519 key (make one with `openssl genpkey -algorithm ed25519`)",
                            name);
    }
    unsigned char *der = NULL;
    int dl = i2d_PUBKEY(pkey, &der);
    ma_ed25519_key *k = calloc(1, sizeof *k);
    if (dl <= 0 || !k) {
        OPENSSL_free(der);
        free(k);
        EVP_PKEY_free(pkey);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory (encoding the public key)", name);
    }
    uint8_t d[MA_SHA256_LEN];
    ma_sha256_buffer(d, der, (size_t)dl);
    OPENSSL_free(der);
    ma_sha256_hex(k->keyid, d);
    k->pkey = pkey;
    k->is_private = is_private;
    *out = k;
    return MA_OK;
}

static int parse_key(const char *pem, size_t len, const char *name, int want_private, ma_ed25519_key **out,
                     ma_error *err)
{
    *out = NULL;
    if (len > MAX_KEY_FILE)
        return ma_error_set(err, MA_EFORMAT, "%s: larger than %s, not a PEM key", name, MA_COUNT(MAX_KEY_FILE, "byte", "bytes"));
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (!bio)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
    /* A NULL password callback with an empty user string keeps OpenSSL from prompting on a
     * terminal for an encrypted key: such a key is refused instead. */
    EVP_PKEY *pkey = want_private ? PEM_read_bio_PrivateKey(bio, NULL, NULL, (void *)"")
                                  : PEM_read_bio_PUBKEY(bio, NULL, NULL, (void *)"");
    BIO_free(bio);
    if (!pkey)
        return ma_error_set(err, MA_EFORMAT, "%s: not a PEM %s key", name, want_private ? "private" : "public");
    return finish_key(pkey, want_private, name, out, err);
}

int ma_ed25519_parse_private(const char *pem, size_t len, const char *name, ma_ed25519_key **out, ma_error *err)
{
    return parse_key(pem, len, name, 1, out, err);
}

int ma_ed25519_parse_public(const char *pem, size_t len, const char *name, ma_ed25519_key **out, ma_error *err)
{
    return parse_key(pem, len, name, 0, out, err);
}

static int load_key(const char *path, int want_private, ma_ed25519_key **out, ma_error *err)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    int rc = read_small_file(path, &text, &len, err);
    if (!rc)
        rc = parse_key(text, len, path, want_private, out, err);
    if (text)
        OPENSSL_cleanse(text, len); /* private key material does not linger in freed memory */
    free(text);
    return rc;
}

int ma_ed25519_load_private(ma_ed25519_key **out, const char *path, ma_error *err)
{
    return load_key(path, 1, out, err);
}

int ma_ed25519_load_public(ma_ed25519_key **out, const char *path, ma_error *err)
{
    return load_key(path, 0, out, err);
}

void ma_ed25519_key_free(ma_ed25519_key *k)
{
    if (!k)
        return;
    EVP_PKEY_free(k->pkey);
    free(k);
}

void ma_ed25519_keyid(const ma_ed25519_key *k, char out[65])
{
    memcpy(out, k->keyid, 65);
}

int ma_ed25519_sign(const ma_ed25519_key *k, const uint8_t *msg, size_t len, uint8_t sig[MA_ED25519_SIG_LEN],
                    ma_error *err)
{
    if (!k->is_private)
        return ma_error_set(err, MA_EINVAL, "signing needs a private key");
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    size_t sl = MA_ED25519_SIG_LEN;
    int ok = ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
             EVP_DigestSign(ctx, sig, &sl, msg, len) == 1 && sl == MA_ED25519_SIG_LEN;
    EVP_MD_CTX_free(ctx);
    return ok ? MA_OK : ma_error_set(err, MA_EINTERNAL, "Ed25519 signing failed in OpenSSL");
}

int ma_ed25519_verify(const ma_ed25519_key *k, const uint8_t *msg, size_t len, const uint8_t *sig,
                      size_t sig_len)
{
    if (sig_len != MA_ED25519_SIG_LEN)
        return 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
             EVP_DigestVerify(ctx, sig, sig_len, msg, len) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
}

/* ---- envelopes ---- */

int ma_dsse_sign(const char *type, const uint8_t *payload, size_t len, const ma_ed25519_key *k, char **json,
                 ma_error *err)
{
    *json = NULL;
    uint8_t *pae = NULL, sig[MA_ED25519_SIG_LEN];
    size_t pae_len = 0;
    char *payload64 = NULL, *sig64 = NULL;
    int rc = ma_dsse_pae(type, payload, len, &pae, &pae_len, err);
    if (!rc)
        rc = ma_ed25519_sign(k, pae, pae_len, sig, err);
    if (!rc)
        rc = ma_base64_encode(payload, len, &payload64, err);
    if (!rc)
        rc = ma_base64_encode(sig, sizeof sig, &sig64, err);
    if (!rc) {
        json_t *doc = json_pack("{s:s, s:s, s:[{s:s, s:s}]}", "payloadType", type, "payload", payload64,
                                "signatures", "keyid", k->keyid, "sig", sig64);
        char *text = doc ? ma_json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
        json_decref(doc);
        size_t tl = text ? strlen(text) : 0;
        char *withnl = text ? malloc(tl + 2) : NULL;
        if (!withnl) {
            rc = ma_error_set(err, MA_ENOMEM, "envelope: out of memory");
        } else {
            memcpy(withnl, text, tl);
            memcpy(withnl + tl, "\n", 2);
            *json = withnl;
        }
        free(text);
    }
    free(pae);
    free(payload64);
    free(sig64);
    return rc;
}

void ma_dsse_envelope_free(ma_dsse_envelope *e)
{
    if (!e)
        return;
    free(e->payload_type);
    free(e->payload);
    for (size_t i = 0; i < e->n_sigs; i++) {
        free(e->sigs[i].keyid);
        free(e->sigs[i].sig);
    }
    free(e->sigs);
    memset(e, 0, sizeof *e);
}

static const char *member_string(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

int ma_dsse_parse(const char *text, size_t len, const char *name, ma_dsse_envelope *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (len > MA_DSSE_MAX_ENVELOPE)
        return ma_error_set(err, MA_EFORMAT, "%s: larger than %s, not an envelope", name,
                            MA_COUNT(MA_DSSE_MAX_ENVELOPE, "byte", "bytes"));
    /* Before the JSON is parsed (a tree costs several times the text): a "sig" member per
     * signature, and base64 holds no quote, so more "sig" tokens than the cap is too many
     * signatures (an escaped member name escapes this count, not the cap after parsing) */
    size_t sig_tokens = 0;
    for (const char *p = text, *end = text + len; (p = memmem(p, (size_t)(end - p), "\"sig\"", 5)) != NULL; p += 5)
        sig_tokens++;
    if (sig_tokens > MA_DSSE_MAX_SIGNATURES)
        return ma_error_set(err, MA_EFORMAT, "%s: signatures: %zu of them; an envelope carries at most %d", name,
                            sig_tokens, MA_DSSE_MAX_SIGNATURES);
    json_error_t je;
    int oom;
    json_t *doc = ma_json_load_checked(text, len, &je, &oom);
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name); /* not the file's fault */
    if (!doc)
        return ma_error_set(err, MA_EFORMAT, "%s: offset %d: not JSON: %s", name, je.position, je.text);
    int rc = MA_OK;
    char what[300];
    if (!json_is_object(doc)) {
        rc = ma_error_set(err, MA_EFORMAT, "%s: not a DSSE envelope (not a JSON object)", name);
        goto done;
    }
    const char *type = member_string(doc, "payloadType");
    const char *payload = member_string(doc, "payload");
    json_t *sigs = json_object_get(doc, "signatures");
    if (!type || !*type) {
        rc = ma_error_set(err, MA_EFORMAT, "%s: payloadType: missing or not a non-empty string", name);
        goto done;
    }
    if (!payload) {
        rc = ma_error_set(err, MA_EFORMAT, "%s: payload: missing or not a string", name);
        goto done;
    }
    if (!json_is_array(sigs) || json_array_size(sigs) == 0) {
        rc = ma_error_set(err, MA_EFORMAT, "%s: signatures: missing, not an array, or empty", name);
        goto done;
    }
    if (json_array_size(sigs) > MA_DSSE_MAX_SIGNATURES) {
        rc = ma_error_set(err, MA_EFORMAT, "%s: signatures: %zu of them; an envelope carries at most %d", name,
                          json_array_size(sigs), MA_DSSE_MAX_SIGNATURES);
        goto done;
    }
    if (!(out->payload_type = strdup(type))) {
        rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
        goto done;
    }
    snprintf(what, sizeof what, "%s: payload", name);
    rc = ma_base64_decode(payload, json_string_length(json_object_get(doc, "payload")), &out->payload,
                          &out->payload_len, what, err);
    if (rc)
        goto done;
    size_t n = json_array_size(sigs);
    if (!(out->sigs = calloc(n, sizeof *out->sigs))) {
        rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(sigs, i);
        json_t *kid = json_is_object(s) ? json_object_get(s, "keyid") : NULL;
        const char *sig = json_is_object(s) ? member_string(s, "sig") : NULL;
        if (!sig) {
            rc = ma_error_set(err, MA_EFORMAT, "%s: signatures[%zu].sig: missing or not a string", name, i);
            goto done;
        }
        if (kid && !json_is_string(kid)) {
            rc = ma_error_set(err, MA_EFORMAT, "%s: signatures[%zu].keyid: not a string", name, i);
            goto done;
        }
        ma_dsse_signature *d = &out->sigs[out->n_sigs++];
        if (!(d->keyid = strdup(kid ? json_string_value(kid) : ""))) {
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
            goto done;
        }
        snprintf(what, sizeof what, "%s: signatures[%zu].sig", name, i);
        rc = ma_base64_decode(sig, json_string_length(json_object_get(s, "sig")), &d->sig, &d->sig_len, what, err);
        if (rc)
            goto done;
    }
done:
    json_decref(doc);
    return rc;
}

int ma_dsse_verify(const ma_dsse_envelope *e, const ma_ed25519_key *k, int *valid, int *index, ma_error *err)
{
    *valid = 0;
    *index = -1;
    uint8_t *pae = NULL;
    size_t pae_len = 0;
    int rc = ma_dsse_pae(e->payload_type, e->payload, e->payload_len, &pae, &pae_len, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < e->n_sigs && !*valid; i++) {
        const ma_dsse_signature *s = &e->sigs[i];
        /* the keyid is a hint only (it is not signed, and other tools compute it otherwise:
         * securesystemslib names the same Ed25519 key by another keyid), so every signature is tried */
        if (ma_ed25519_verify(k, pae, pae_len, s->sig, s->sig_len)) {
            *valid = 1;
            *index = (int)i;
        }
    }
    free(pae);
    return MA_OK;
}
