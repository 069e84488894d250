/* libFuzzer harness for the attestation envelope parser (checksums/dsse.c ma_dsse_parse and
 * ma_dsse_verify, reports/store/attest_statement.c ma_attest_statement_parse), what `attest verify` and
 * `runs import --pub` read. The input is an envelope. A refused one gets a one-line MA_EFORMAT
 * message naming the input; an accepted one is verified against RFC 8032's test key (the seeds of
 * fuzz/corpus/attest are signed with it, so mutations reach both outcomes). Its payload is then
 * parsed as a statement whatever the signature says (the command never does that for an unsigned
 * payload; the parser must still be safe on any bytes), and an accepted statement must write back
 * to JSON that parses to the same JSON (a fixed point). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksums/dsse.h"
#include "reports/store/attest_statement.h"

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);          \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* RFC 8032 §7.1 TEST 1's public key as SubjectPublicKeyInfo PEM */
static const char rfc_pub_pem[] = "-----BEGIN PUBLIC KEY-----\n"
                                  "MCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n"
                                  "-----END PUBLIC KEY-----\n";

static void one_line(const ma_error *err, const char *name)
{
    FUZZ_CHECK(strchr(err->msg, '\n') == NULL && strchr(err->msg, '\r') == NULL);
    FUZZ_CHECK(strncmp(err->msg, name, strlen(name)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ma_error err;
    ma_error_clear(&err);
    ma_ed25519_key *key = NULL;
    FUZZ_CHECK(ma_ed25519_parse_public(rfc_pub_pem, strlen(rfc_pub_pem), "rfc.pub", &key, &err) == MA_OK);
    ma_dsse_envelope env;
    int rc = ma_dsse_parse((const char *)data, size, "fuzz.json", &env, &err);
    if (rc != MA_OK) {
        FUZZ_CHECK(rc == MA_EFORMAT);
        one_line(&err, "fuzz.json");
        ma_dsse_envelope_free(&env);
        ma_ed25519_key_free(key);
        return 0;
    }
    FUZZ_CHECK(env.n_sigs >= 1 && env.payload_type && env.payload);
    int valid = -1, index = -2;
    FUZZ_CHECK(ma_dsse_verify(&env, key, &valid, &index, &err) == MA_OK);
    FUZZ_CHECK((valid == 1 && index >= 0 && (size_t)index < env.n_sigs) || (valid == 0 && index == -1));
    ma_attest_statement st;
    rc = ma_attest_statement_parse((const char *)env.payload, env.payload_len, "fuzz.json: payload", &st, &err);
    if (rc != MA_OK) {
        FUZZ_CHECK(rc == MA_EFORMAT);
        one_line(&err, "fuzz.json: payload");
    } else {
        FUZZ_CHECK(st.n_subjects >= 1 && st.scope);
        /* the statement against itself: a verdict, and a refusal that is one line */
        FUZZ_CHECK(ma_attest_statement_verdict(&st) != NULL);
        if (ma_attest_statement_check(&st, "fuzz.json: payload", &err) != MA_OK)
            one_line(&err, "fuzz.json: payload");
        char *once = NULL, *twice = NULL;
        size_t n1 = 0, n2 = 0;
        FUZZ_CHECK(ma_attest_statement_to_json(&st, &once, &n1, &err) == MA_OK);
        ma_attest_statement again;
        FUZZ_CHECK(ma_attest_statement_parse(once, n1, "again", &again, &err) == MA_OK);
        FUZZ_CHECK(ma_attest_statement_to_json(&again, &twice, &n2, &err) == MA_OK);
        FUZZ_CHECK(n1 == n2 && memcmp(once, twice, n1) == 0);
        ma_attest_statement_free(&again);
        free(once);
        free(twice);
    }
    ma_attest_statement_free(&st);
    ma_dsse_envelope_free(&env);
    ma_ed25519_key_free(key);
    return 0;
}
