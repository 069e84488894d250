/*
 * ma_dump_run (include/millaudit/inspect.h): `millaudit dump FILE` but its rendering. Opens the
 * one sector file, describes it, walks it (verifier/run/dump.h) and counts what was bad.
 */
#include <stdio.h>
#include <string.h>

#include "common/fileio.h"
#include "verifier/formats/open_file.h"
#include "verifier/run/dump.h"

typedef struct walk {
    const ma_dump_options *opt;
    ma_dump_summary *s;
    uint64_t bad_seen;
} walk;

static int visit(void *ctx, const ma_dump_entry *d)
{
    walk *w = ctx;
    ma_dump_entry e = *d;
    e.report = e.bad && w->bad_seen++ < MA_DUMP_REPORTED;
    return w->opt->on_entry ? w->opt->on_entry(w->opt->ctx, w->s, &e) : MA_OK;
}

static void describe(ma_dump_summary *s, const ma_source *src)
{
    ma_escape_name(ma_source_path(src), s->path, sizeof s->path);
    s->variant = ma_source_variant(src);
    s->sector = ma_source_sector(src);
    ma_sector_format(s->sector, s->sector_name, sizeof s->sector_name);
    s->format = ma_source_format(src);
    s->entries = ma_source_entries(src);
    const ma_open_file *of = ma_source_open_file(src);
    s->has_producer = of != NULL;
    if (of) {
        ma_printable_ascii(of->header.producer, s->producer, sizeof s->producer);
        ma_printable_ascii(of->header.producer_version, s->producer_version, sizeof s->producer_version);
    }
}

int ma_dump_run(ma_dump_summary *out, const ma_dump_options *opt, ma_error *err)
{
    memset(out, 0, sizeof *out);
    ma_database_options dbo = {0};
    dbo.no_digest_check = opt->no_digest_check;
    ma_database *db;
    int rc = ma_database_open(&db, opt->path, &dbo, err);
    if (rc)
        return rc;
    if (!strcmp(ma_database_root(db), ma_database_dir(db))) {
        ma_escape_name(ma_database_root(db), out->path, sizeof out->path);
        ma_database_close(db);
        return ma_error_set(err, MA_EFORMAT,
                            "%s: not a regular file (directory): dump reads one sector file", out->path);
    }
    const ma_db_sector *d = ma_database_sector(db, 0);
    const ma_source *src;
    if ((rc = ma_database_source(db, d->variant, d->sector, &src, err)) != MA_OK) {
        ma_database_close(db);
        return rc;
    }
    describe(out, src);
    walk w = {opt, out, 0};
    rc = opt->on_header ? opt->on_header(opt->ctx, out) : MA_OK;
    if (rc == MA_OK)
        rc = ma_dump_walk(src, visit, &w, &out->canonical, &out->bad, err);
    ma_database_close(db);
    out->result = out->bad ? ma_result_of_verdict(MA_VERDICT_DISCREPANCIES, 0) : MA_OK;
    return rc;
}
