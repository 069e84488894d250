/* verifier/run/seal: sealing a run's store and checking a seal (verifier/run/seal.h). */
#include "verifier/run/seal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksums/sha256.h"
#include "reports/store/audit_seal.h"

int ma_run_content_digest(ma_audit *a, int64_t run_id, uint8_t out[32], ma_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = ma_audit_run_canonical(a, run_id, &text, &len, err);
    if (rc)
        return rc;
    ma_sha256_buffer(out, text, len);
    free(text);
    return MA_OK;
}

int ma_run_seal(ma_audit *a, int64_t run_id, const ma_seal_key *k, ma_error *err)
{
    if (!ma_seal_key_can_seal(k))
        return ma_error_set(err, MA_EINVAL, "a public key cannot seal a run: give the private key (or a secret)");
    uint8_t d[32];
    int rc = ma_run_content_digest(a, run_id, d, err);
    if (rc)
        return rc;
    ma_seal_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.algorithm, sizeof row.algorithm, "%s", ma_seal_key_algorithm(k));
    snprintf(row.keyid, sizeof row.keyid, "%s", ma_seal_key_id(k));
    ma_sha256_hex(row.content_sha256, d);
    if ((rc = ma_seal_make(k, d, row.seal, err)))
        return rc;
    return ma_audit_seal_write(a, run_id, &row, err);
}

int ma_run_seal_check(ma_audit *a, int64_t run_id, const ma_seal_key *k, const char *store, char *sealed_by,
                      ma_error *err)
{
    sealed_by[0] = 0;
    ma_seal_row row;
    int found = 0;
    int rc = ma_audit_seal_read(a, run_id, &row, &found, err);
    if (rc)
        return rc;
    if (!found)
        return ma_error_set(err, MA_EFORMAT,
                            "%s: run %lld is not sealed (verify --shard I/N --seal-key K seals a shard when it "
                            "ends; a run killed before it ended is never sealed): with --seal-key nothing it "
                            "says is believed; verify the shard again",
                            store, (long long)run_id);
    if (strcmp(row.algorithm, ma_seal_key_algorithm(k)) || strcmp(row.keyid, ma_seal_key_id(k)))
        return ma_error_set(err, MA_EFORMAT, "%s: run %lld is sealed by %s key %.16s..., not by the %s key %.16s... "
                            "given: it was not sealed by the key the merge trusts",
                            store, (long long)run_id, row.algorithm, row.keyid, ma_seal_key_algorithm(k),
                            ma_seal_key_id(k));
    uint8_t d[32];
    if ((rc = ma_run_content_digest(a, run_id, d, err)))
        return rc;
    if (!ma_seal_valid(k, row.algorithm, d, row.seal)) {
        char now[65];
        ma_sha256_hex(now, d);
        return ma_error_set(err, MA_EFORMAT, "%s: run %lld: the seal does not verify with key %.16s...: its rows were "
                            "changed after the shard sealed them (content SHA-256 %.16s... when sealed, %.16s... now)",
                            store, (long long)run_id, ma_seal_key_id(k), row.content_sha256, now);
    }
    snprintf(sealed_by, 65, "%s", row.keyid);
    return MA_OK;
}
