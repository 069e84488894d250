/*
 * ma_index_check_run (include/millaudit/inspect.h): `millaudit index-check` but its rendering.
 * The file first (an unusable input makes the long proof pointless), then the proof
 * (verifier/check/index_proof.h), then the verdict.
 */
#include <inttypes.h>
#include <stdio.h>

#include "verifier/check/index_proof.h"
#include "common/fileio.h"
#include "millaudit/inspect.h"

typedef struct state {
    const ma_index_check_options *opt;
    ma_index_check_report *r;
} state;

/* Reports the first MA_INDEX_CHECK_SHOWN failures (ma_index_proof_fail_fn). */
static void failed(void *ctx, uint64_t entry, ma_board board, const char *what)
{
    state *st = ctx;
    if (st->r->shown++ >= MA_INDEX_CHECK_SHOWN || !st->opt->on_failure)
        return;
    ma_index_check_failure f = {entry, board, st->r->file, what};
    st->opt->on_failure(st->opt->ctx, st->r, &f);
}

/* Header sector/variant against the options, and every value word against its entry kind. */
static int check_file(state *st, ma_open_index *ix, ma_error *err)
{
    ma_index_check_report *r = st->r;
    ma_open_file f;
    int rc = ma_open_file_map(&f, r->file, ix, 1, err);
    if (rc)
        return rc == MA_ENOMEM ? rc : MA_EFORMAT;
    if (f.header.variant != r->variant || !ma_sector_equal(f.header.sector, r->sector)) {
        /* Not a failed check of the index but the wrong input: another variant's or sector's file
         * says nothing about this sector (exit 3, as every command treats another variant). */
        char shown[512], want[16], got[16];
        ma_escape_name(r->file, shown, sizeof shown);
        ma_sector_format(r->sector, want, sizeof want);
        ma_sector_format(f.header.sector, got, sizeof got);
        int other_variant = f.header.variant != r->variant;
        ma_error_set(err, MA_EFORMAT, "%s: sector %s: offset %d: header is %s %s, expected %s %s (%s)",
                     shown, got, other_variant ? 12 : 14, ma_variant_name(f.header.variant), got,
                     ma_variant_name(r->variant), want,
                     other_variant ? "another variant's file" : "another sector's file");
        ma_open_file_close(&f);
        return MA_EFORMAT;
    }
    rc = ma_index_proof_file_words(ix, &f, r->sector.w, r->sector.b, failed, st, &r->file_bad, err);
    r->file_entries = f.header.entry_count;
    ma_open_file_close(&f);
    return rc;
}

static int prove(state *st, ma_open_index *ix, ma_error *err)
{
    ma_index_check_report *r = st->r;
    const ma_index_check_options *opt = st->opt;
    if (opt->on_start)
        opt->on_start(opt->ctx, r);
    int rc = r->file ? check_file(st, ix, err) : MA_OK;
    if (rc)
        return rc;
    if (r->file && opt->on_file)
        opt->on_file(opt->ctx, r);
    const char *file = r->file;
    r->file = NULL; /* failures from here on are the index's */
    ma_index_proof proof;
    rc = ma_index_proof_sector(ix, r->sector.w, r->sector.b, opt->progress, failed, st, &proof, err);
    r->file = file;
    if (rc)
        return MA_EINTERNAL;
    r->entries = proof.entries;
    r->canonical = proof.canonical;
    r->placements = proof.placements;
    r->orbit_sum = proof.orbit_sum;
    r->expected_placements = proof.expected_placements;
    r->representatives = ma_open_index_rep_count(ix, r->sector.w);
    r->counts_agree = proof.placements == proof.expected_placements && proof.orbit_sum == proof.placements;
    r->failures = proof.failures + r->file_bad;
    r->result = ma_result_of_verdict(r->failures ? MA_VERDICT_DISCREPANCIES : MA_VERDICT_VERIFIED, 0);
    return MA_OK;
}

int ma_index_check_run(ma_index_check_report *out, const ma_index_check_options *opt, ma_error *err)
{
    *out = (ma_index_check_report){0};
    out->variant = opt->variant;
    out->sector = opt->sector;
    out->file = opt->file;
    char sec[16];
    ma_sector_format(opt->sector, sec, sizeof sec);
    snprintf(out->label, sizeof out->label, "%s %s", ma_variant_name(opt->variant), sec);
    if (!ma_sector_valid(opt->variant, opt->sector))
        return ma_error_set(err, MA_EINVAL, "sector %s is impossible for %s", sec,
                            ma_variant_name(opt->variant));
    ma_open_index *ix;
    int rc = ma_open_index_create(&ix, err);
    if (rc)
        return rc;
    if ((rc = ma_open_index_prepare(ix, opt->sector.w, err)) == MA_OK) {
        state st = {opt, out};
        rc = prove(&st, ix, err);
    }
    ma_open_index_free(ix);
    return rc;
}
