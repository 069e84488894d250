/* Unit tests for checksums/dsse: base64 against RFC 4648's vectors, PAE against the DSSE spec's
 * example, Ed25519 against RFC 8032's first test vector (key, signature and keyid), envelopes
 * signed, parsed, verified and refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksums/dsse.h"
#include "checksums/sha256.h"

static void hex_to_bytes(const char *hex, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* RFC 8032 §7.1 TEST 1 */
static const char rfc_seed[] = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
static const char rfc_pub[] = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
static const char rfc_sig[] = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";

/* PEM of a DER prefix followed by 32 key bytes (PKCS#8 private key / SubjectPublicKeyInfo). */
static char *pem_of(const char *label, const char *prefix_hex, const char *key_hex, uint8_t *der, size_t *der_len)
{
    size_t pl = strlen(prefix_hex) / 2;
    hex_to_bytes(prefix_hex, der, pl);
    hex_to_bytes(key_hex, der + pl, 32);
    *der_len = pl + 32;
    char *b64 = NULL;
    ma_error err;
    assert_int_equal(ma_base64_encode(der, *der_len, &b64, &err), MA_OK);
    size_t n = strlen(b64) + 2 * strlen(label) + 64;
    char *pem = malloc(n);
    snprintf(pem, n, "-----BEGIN %s-----\n%s\n-----END %s-----\n", label, b64, label);
    free(b64);
    return pem;
}

static ma_ed25519_key *rfc_key(int private_key)
{
    uint8_t der[64];
    size_t dl;
    char *pem = private_key ? pem_of("PRIVATE KEY", "302e020100300506032b657004220420", rfc_seed, der, &dl)
                            : pem_of("PUBLIC KEY", "302a300506032b6570032100", rfc_pub, der, &dl);
    ma_ed25519_key *k = NULL;
    ma_error err;
    int rc = private_key ? ma_ed25519_parse_private(pem, strlen(pem), "rfc.pem", &k, &err)
                         : ma_ed25519_parse_public(pem, strlen(pem), "rfc.pub", &k, &err);
    assert_int_equal(rc, MA_OK);
    free(pem);
    return k;
}

static void test_base64_vectors(void **state)
{
    (void)state;
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    ma_error err;
    for (size_t i = 0; i < 7; i++) {
        char *b = NULL;
        assert_int_equal(ma_base64_encode((const uint8_t *)plain[i], strlen(plain[i]), &b, &err), MA_OK);
        assert_string_equal(b, coded[i]);
        free(b);
        uint8_t *d = NULL;
        size_t n = 0;
        assert_int_equal(ma_base64_decode(coded[i], strlen(coded[i]), &d, &n, "x", &err), MA_OK);
        assert_int_equal(n, strlen(plain[i]));
        assert_memory_equal(d, plain[i], n);
        free(d);
    }
    /* URL-safe and unpadded forms, which the spec allows */
    uint8_t *d = NULL;
    size_t n = 0;
    assert_int_equal(ma_base64_decode("-_8", 3, &d, &n, "x", &err), MA_OK);
    assert_int_equal(n, 2);
    assert_int_equal(d[0], 0xfb);
    assert_int_equal(d[1], 0xff);
    free(d);
    assert_int_equal(ma_base64_decode("Zg", 2, &d, &n, "x", &err), MA_OK);
    assert_int_equal(n, 1);
    assert_int_equal(d[0], 'f');
    free(d);
}

static void test_base64_refusals(void **state)
{
    (void)state;
    static const char *const bad[] = {"Z", "Zg=", "Zg===", "Zm9v!", "Zg==Zg==", "Zm 9v", "Zm9v\n", "=", "Zg=a"};
    ma_error err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t *d = (uint8_t *)"sentinel";
        size_t n = 7;
        assert_int_equal(ma_base64_decode(bad[i], strlen(bad[i]), &d, &n, "env.json: payload", &err), MA_EFORMAT);
        assert_null(d);
        assert_int_equal(strncmp(err.msg, "env.json: payload: ", 19), 0);
    }
}

static void test_pae_as_the_spec_writes_it(void **state)
{
    (void)state;
    uint8_t *p = NULL;
    size_t n = 0;
    ma_error err;
    /* the DSSE protocol document's example */
    assert_int_equal(ma_dsse_pae("http://example.com/HelloWorld", (const uint8_t *)"hello world", 11, &p, &n, &err),
                     MA_OK);
    const char want[] = "DSSEv1 29 http://example.com/HelloWorld 11 hello world";
    assert_int_equal(n, strlen(want));
    assert_memory_equal(p, want, n);
    free(p);
    assert_int_equal(ma_dsse_pae("t", (const uint8_t *)"", 0, &p, &n, &err), MA_OK);
    assert_int_equal(n, strlen("DSSEv1 1 t 0 "));
    assert_memory_equal(p, "DSSEv1 1 t 0 ", n);
    free(p);
}

static void test_ed25519_rfc8032_vector(void **state)
{
    (void)state;
    ma_ed25519_key *sk = rfc_key(1), *pk = rfc_key(0);
    uint8_t sig[MA_ED25519_SIG_LEN], want[MA_ED25519_SIG_LEN];
    ma_error err;
    assert_int_equal(ma_ed25519_sign(sk, (const uint8_t *)"", 0, sig, &err), MA_OK);
    hex_to_bytes(rfc_sig, want, sizeof want);
    assert_memory_equal(sig, want, sizeof want);
    assert_true(ma_ed25519_verify(pk, (const uint8_t *)"", 0, sig, sizeof sig));
    sig[5] ^= 1;
    assert_false(ma_ed25519_verify(pk, (const uint8_t *)"", 0, sig, sizeof sig));
    assert_false(ma_ed25519_verify(pk, (const uint8_t *)"", 0, want, 63));
    /* keyid: SHA-256 of the SubjectPublicKeyInfo DER, the same from the private and public key */
    uint8_t der[64], d[MA_SHA256_LEN];
    size_t dl;
    free(pem_of("PUBLIC KEY", "302a300506032b6570032100", rfc_pub, der, &dl));
    ma_sha256_buffer(d, der, dl);
    char hex[65], a[65], b[65];
    ma_sha256_hex(hex, d);
    ma_ed25519_keyid(sk, a);
    ma_ed25519_keyid(pk, b);
    assert_string_equal(a, hex);
    assert_string_equal(b, hex);
    /* a public key cannot sign */
    assert_int_equal(ma_ed25519_sign(pk, (const uint8_t *)"", 0, sig, &err), MA_EINVAL);
    ma_ed25519_key_free(sk);
    ma_ed25519_key_free(pk);
}

static void test_key_refusals(void **state)
{
    (void)state;
    ma_ed25519_key *k = NULL;
    ma_error err;
    const char junk[] = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
    assert_int_equal(ma_ed25519_parse_public(junk, strlen(junk), "junk.pem", &k, &err), MA_EFORMAT);
    assert_null(k);
    assert_int_equal(strncmp(err.msg, "junk.pem: ", 10), 0);
    assert_int_equal(ma_ed25519_parse_private("hello", 5, "hello.pem", &k, &err), MA_EFORMAT);
    /* a private key where a public one is wanted, and the reverse */
    uint8_t der[64];
    size_t dl;
    char *pem = pem_of("PRIVATE KEY", "302e020100300506032b657004220420", rfc_seed, der, &dl);
    assert_int_equal(ma_ed25519_parse_public(pem, strlen(pem), "sk.pem", &k, &err), MA_EFORMAT);
    free(pem);
    pem = pem_of("PUBLIC KEY", "302a300506032b6570032100", rfc_pub, der, &dl);
    assert_int_equal(ma_ed25519_parse_private(pem, strlen(pem), "pk.pem", &k, &err), MA_EFORMAT);
    free(pem);
    assert_int_equal(ma_ed25519_load_public(&k, "/nonexistent/key.pem", &err), MA_EMISSING);
}

static void test_envelope_round_trip_and_tampering(void **state)
{
    (void)state;
    ma_ed25519_key *sk = rfc_key(1), *pk = rfc_key(0);
    ma_error err;
    const char payload[] = "{\"_type\":\"https://in-toto.io/Statement/v1\"}";
    char *json = NULL;
    assert_int_equal(ma_dsse_sign("application/vnd.in-toto+json", (const uint8_t *)payload, strlen(payload), sk,
                                  &json, &err), MA_OK);
    ma_dsse_envelope e;
    assert_int_equal(ma_dsse_parse(json, strlen(json), "env.json", &e, &err), MA_OK);
    assert_string_equal(e.payload_type, "application/vnd.in-toto+json");
    assert_int_equal(e.payload_len, strlen(payload));
    assert_memory_equal(e.payload, payload, e.payload_len);
    assert_int_equal(e.n_sigs, 1);
    char kid[65];
    ma_ed25519_keyid(pk, kid);
    assert_string_equal(e.sigs[0].keyid, kid);
    int valid = 0, index = 0;
    assert_int_equal(ma_dsse_verify(&e, pk, &valid, &index, &err), MA_OK);
    assert_true(valid);
    assert_int_equal(index, 0);
    /* a changed payload byte, a changed type, a changed signature: all refused */
    e.payload[3] ^= 1;
    assert_int_equal(ma_dsse_verify(&e, pk, &valid, &index, &err), MA_OK);
    assert_false(valid);
    assert_int_equal(index, -1);
    e.payload[3] ^= 1;
    e.payload_type[0] = 'b';
    assert_int_equal(ma_dsse_verify(&e, pk, &valid, &index, &err), MA_OK);
    assert_false(valid);
    e.payload_type[0] = 'a';
    e.sigs[0].sig[10] ^= 0x80;
    assert_int_equal(ma_dsse_verify(&e, pk, &valid, &index, &err), MA_OK);
    assert_false(valid);
    e.sigs[0].sig[10] ^= 0x80;
    /* the keyid is a hint: a signature naming another keyid (as securesystemslib writes the same
     * key) is still tried and verifies, and a wrong signature under it still fails */
    e.sigs[0].keyid[0] = e.sigs[0].keyid[0] == '0' ? '1' : '0';
    assert_int_equal(ma_dsse_verify(&e, pk, &valid, &index, &err), MA_OK);
    assert_true(valid);
    assert_int_equal(index, 0);
    e.sigs[0].sig[10] ^= 0x80;
    assert_int_equal(ma_dsse_verify(&e, pk, &valid, &index, &err), MA_OK);
    assert_false(valid);
    e.sigs[0].sig[10] ^= 0x80;
    e.sigs[0].keyid[0] = '\0';
    assert_int_equal(ma_dsse_verify(&e, pk, &valid, &index, &err), MA_OK);
    assert_true(valid);
    ma_dsse_envelope_free(&e);
    free(json);
    ma_ed25519_key_free(sk);
    ma_ed25519_key_free(pk);
}

static void test_malformed_envelopes(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "[]",
        "{",
        "{\"payload\":\"e30=\",\"signatures\":[{\"sig\":\"AA==\"}]}",
        "{\"payloadType\":\"\",\"payload\":\"e30=\",\"signatures\":[{\"sig\":\"AA==\"}]}",
        "{\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"AA==\"}]}",
        "{\"payloadType\":\"t\",\"payload\":7,\"signatures\":[{\"sig\":\"AA==\"}]}",
        "{\"payloadType\":\"t\",\"payload\":\"e30=\",\"signatures\":[]}",
        "{\"payloadType\":\"t\",\"payload\":\"e30=\",\"signatures\":{}}",
        "{\"payloadType\":\"t\",\"payload\":\"e30=\",\"signatures\":[{\"keyid\":\"k\"}]}",
        "{\"payloadType\":\"t\",\"payload\":\"e30=\",\"signatures\":[{\"sig\":\"AA==\",\"keyid\":3}]}",
        "{\"payloadType\":\"t\",\"payload\":\"e3!=\",\"signatures\":[{\"sig\":\"AA==\"}]}",
        "{\"payloadType\":\"t\",\"payload\":\"e30=\",\"signatures\":[{\"sig\":\"A\"}]}",
        "{\"payloadType\":\"t\",\"payloadType\":\"u\",\"payload\":\"e30=\",\"signatures\":[{\"sig\":\"AA==\"}]}",
        "{\"payloadType\":\"t\",\"payload\":\"e30=\",\"signatures\":[5]}",
    };
    ma_error err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ma_dsse_envelope e;
        assert_int_equal(ma_dsse_parse(bad[i], strlen(bad[i]), "bad.json", &e, &err), MA_EFORMAT);
        assert_int_equal(strncmp(err.msg, "bad.json: ", 10), 0);
        assert_null(strchr(err.msg, '\n'));
        ma_dsse_envelope_free(&e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base64_vectors),
        cmocka_unit_test(test_base64_refusals),
        cmocka_unit_test(test_pae_as_the_spec_writes_it),
        cmocka_unit_test(test_ed25519_rfc8032_vector),
        cmocka_unit_test(test_key_refusals),
        cmocka_unit_test(test_envelope_round_trip_and_tampering),
        cmocka_unit_test(test_malformed_envelopes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
