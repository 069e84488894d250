/*
 * ma_stats_run (include/millaudit/inspect.h): the whole of `millaudit stats DIR` but its
 * rendering. Opens the database, counts the picked sectors and decides the result.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fileio.h"
#include "verifier/run/sector_args.h"
#include "verifier/run/stats.h"

/* Opens and counts; a failure is the run's (r->failure). */
static int count(ma_stats_report *r, const ma_stats_run_options *opt)
{
    ma_database_options dbo = {0};
    dbo.no_digest_check = opt->no_digest_check;
    ma_sector_pick picks[MA_SECTOR_PICKS_MAX];
    size_t n_picks = 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = opt->threads > 0 ? opt->threads
                  : cpus < 1      ? 1
                  : cpus > MA_STATS_MAX_THREADS ? MA_STATS_MAX_THREADS
                                                : (int)cpus;
    ma_error *err = &r->failure;
    int rc = ma_sector_args_parse(picks, &n_picks, opt->sectors, opt->n_sectors, err);
    if (rc == MA_OK)
        rc = ma_database_open(&r->db, opt->root, &dbo, err);
    if (rc == MA_OK && ma_database_count(r->db) == 0 && ma_database_unusable_count(r->db) == 0) {
        char shown[1100];
        ma_escape_name(opt->root, shown, sizeof shown);
        rc = ma_error_set(err, MA_EMISSING, "%s: no sector files (<variant>_W_B_WF_BF.mdb, .sec2 or .sec)",
                          shown);
    }
    if (rc == MA_OK)
        rc = ma_stats_database(&r->st, r->db, picks, n_picks, threads, opt->progress, err);
    r->have_stats = rc == MA_OK;
    return rc;
}

int ma_stats_run(ma_stats_report **out, const ma_stats_run_options *opt, ma_error *err)
{
    *out = NULL;
    if (!opt || !opt->root)
        return ma_error_set(err, MA_EINVAL, "stats: need a database DIR");
    ma_stats_report *r = calloc(1, sizeof *r);
    if (!r || !(r->root = strdup(opt->root))) {
        free(r);
        return ma_error_set(err, MA_ENOMEM, "stats: out of memory");
    }
    int rc = count(r, opt);
    r->fatal = rc != MA_OK;
    /* 1 over 3, as verify: bad entries found outweigh files that could not be counted */
    if (rc)
        r->result = rc;
    else if (r->st.total.bad)
        r->result = ma_result_of_verdict(MA_VERDICT_DISCREPANCIES, 0);
    else if (ma_database_unusable_count(r->db))
        r->result = ma_result_of_verdict(MA_VERDICT_INCOMPLETE, 0);
    else
        r->result = MA_OK;
    *out = r;
    return MA_OK;
}

void ma_stats_report_free(ma_stats_report *r)
{
    if (!r)
        return;
    ma_stats_free(&r->st);
    ma_database_close(r->db);
    free(r->root);
    free(r);
}

int ma_stats_report_result(const ma_stats_report *r) { return r->result; }

const ma_stats *ma_stats_report_stats(const ma_stats_report *r)
{
    return r->have_stats ? &r->st : NULL;
}
