/*
 * millaudit verify DIR: options and rendering of the run engine (verifier/run.h), which does the
 * work for every format. Text for people, one JSON document (docs/json/verify.schema.json) for
 * programs. Exit codes: README; 130/143 when SIGINT/SIGTERM stopped the run.
 */
#include <getopt.h>
#include <signal.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "cli/test_hook.h"
#include "common/ma_error.h"
#include "common/output.h"
#include "common/options.h"
#include "common/progress.h"
#include "ma_version.h"
#include "verifier/run.h"
#include "verifier/run_junit.h"
#include "verifier/shard.h"

#define TEXT_ROWS 20 /* discrepancy rows printed per sector in text mode */
#define VERIFY_SCHEMA_VERSION 1

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit verify DIR [--sector S ...] [--audit FILE.sqlite]\n"
            "                        [--resume[=RUN] | --incremental] [--max-rows N] [--threads N]\n"
            "                        [--shard I/N] [--full-board-draw yes|no] [--allow-bounds]\n"
            "                        [--quiet] [--json] [--junit FILE]\n"
            "       millaudit verify DIR --plan N [--json]\n"
            "Re-derives the outcome and depth of every entry of every sector file of DIR (open\n"
            "*.mdb, Malom *.sec2 with <variant>.secval or STONE_DIFF, Malom *.sec) from its\n"
            "successors' stored values, children first, and splits discrepancies into roots and\n"
            "propagated ones. DIR may also be one sector file.\n"
            "  --sector S         only sector S (W_B_WF_BF or <variant>_W_B_WF_BF; repeatable)\n"
            "  --audit FILE       record the run in FILE: each sector is committed when it finishes\n"
            "  --resume[=RUN]     continue the last unfinished run of DIR in the store (or RUN):\n"
            "                     sectors whose file and successor files are unchanged are carried\n"
            "                     over, the others checked (needs --audit and the same --sector\n"
            "                     selection; a run still in progress is not resumed)\n"
            "  --incremental      carry over every sector whose file and successor files hash as\n"
            "                     they did for its newest recorded result (needs --audit)\n"
            "  --max-rows N       discrepancy rows kept per sector, roots first (default 1000;\n"
            "                     counts stay exact)\n"
            "  --threads N        worker threads (default: online CPUs)\n"
            "  --shard I/N        only shard I of N (0 <= I < N), partitioned by cost; merge the\n"
            "                     shards' stores with runs merge (docs/distributed.md)\n"
            "  --plan N           print the partition into N shards and each shard's entries, cost\n"
            "                     and peak mapped bytes; checks nothing\n"
            "Malom databases:\n"
            "  --full-board-draw yes|no  a full 12/12 board is a draw (default yes; mora only)\n"
            "  --allow-bounds     exit 0 when nothing contradicts although some entries could only\n"
            "                     be checked within bounds (successor sectors absent)\n"
            "Output:\n"
            "  --quiet            no progress, no per-sector lines: totals, verdict and errors\n"
            "  --json             one JSON document on stdout (docs/json/verify.schema.json)\n"
            "  --junit FILE       also write a JUnit XML report to FILE: one test case per sector,\n"
            "                     failures with class counts and the first discrepancies\n"
            "exit: 0 verified, 1 discrepancies, 2 usage, 3 input unusable, incomplete or only within\n"
            "      bounds, 4 audit record incomplete, 5 internal, 130/143 interrupted\n");
}

/* ---- text ---- */

static const char *status_text(const ma_vrun_sector *s)
{
    return ma_sector_status_name(s->status);
}

static void print_row(const ma_vrun_sector *s, const ma_vrun_row *w)
{
    char board[96];
    ma_board_format(w->board, board, sizeof board);
    printf("  discrepancy %s entry %llu (offset %llu) board %s stored %s derived %s class %s %s",
           s->name, (unsigned long long)w->entry, (unsigned long long)w->offset, board, w->stored_text,
           w->derived_text, ma_disc_class_name(w->cls), w->root ? "root" : "propagated");
    if (w->has_refutation)
        printf("; proved by %s", w->move);
    printf("\n");
}

/* A count with thousands separators, as the reports print it; each use gets its own buffer. */
#define G(n) ma_progress_group((char[32]){0}, 32, (uint64_t)(n))

static void print_verdict(const ma_vrun *run)
{
    const ma_vrun_totals *t = ma_vrun_totals_of(run);
    switch (ma_vrun_verdict_of(run)) {
    case MA_VRUN_VERIFIED:
        if (t->sectors == 0 && ma_vrun_options_of(run)->shard_count > 1)
            printf("verdict: verified: an empty shard: none of the %s planned sectors falls in shard %u/%u\n",
                   G(ma_vrun_planned_sectors(run)), ma_vrun_options_of(run)->shard_index,
                   ma_vrun_options_of(run)->shard_count);
        else
            printf("verdict: verified: all %s entries of %s sector%s re-derived and matching\n",
                   G(t->entries), G(t->sectors), t->sectors == 1 ? "" : "s");
        break;
    case MA_VRUN_WITHIN_BOUNDS:
        printf("verdict: verified within bounds only: %s entries unproven (successor sectors "
               "absent), no contradiction; NOT fully verified\n",
               G(t->within_bounds));
        break;
    case MA_VRUN_DISCREPANCIES:
        printf("verdict: discrepancies found: %s (%s root%s, %s propagated)",
               G(t->discrepancies), G(t->roots), t->roots == 1 ? "" : "s",
               G(t->propagated));
        if (t->body_digest_mismatches)
            printf("; %s sector file%s whose body is not what %s producer wrote",
                   G(t->body_digest_mismatches), t->body_digest_mismatches == 1 ? "" : "s",
                   t->body_digest_mismatches == 1 ? "its" : "their");
        printf("\n");
        break;
    case MA_VRUN_INTERRUPTED:
        /* what this run did, whatever a later --resume does: it is never a proof */
        printf("verdict: interrupted: %s of %s sectors checked (%s of %s entries verified); "
               "NOT verified; continue with --resume\n",
               G(t->sectors - t->sectors_not_checked), G(t->sectors), G(t->verified), G(t->entries));
        break;
    default:
        if (!t->sectors) {
            printf("verdict: incomplete: nothing was checked: no usable sector file\n");
            break;
        }
        printf("verdict: incomplete: %s sectors unusable, %s entries not verified (successor "
               "absent or broken)%s\n",
               G(t->sectors_unusable),
               G(t->missing_child + t->unverifiable),
               t->within_bounds ? "; Malom excerpts: --allow-bounds accepts entries checked within "
                                  "bounds"
                                : "");
        break;
    }
}

/* The one line of a sector printed when it is finished (order of completion), flushed, with
 * thousands separators like the reports; the children-first table follows at the end. */
struct live_ctx {
    ma_progress *progress;
};

static void print_live_sector(void *ctx, const ma_vrun_sector *s)
{
    struct live_ctx *lc = ctx;
    char a[32], b[32], c[32], d[32];
    ma_progress_hold(lc->progress);
    if (s->status == MA_SECTOR_UNUSABLE) {
        printf("%s: unusable\n", s->name);
    } else {
        printf("%s: %s, %s entr%s, %s verified", s->name, status_text(s),
               ma_progress_group(a, sizeof a, s->entries), s->entries == 1 ? "y" : "ies",
               ma_progress_group(b, sizeof b, s->verified));
        if (s->discrepancies)
            printf(", %s discrepanc%s (%s root%s, %s propagated)",
                   ma_progress_group(c, sizeof c, s->discrepancies), s->discrepancies == 1 ? "y" : "ies",
                   ma_progress_group(d, sizeof d, s->roots),
                   s->roots == 1 ? "" : "s", ma_progress_group(a, sizeof a, s->propagated));
        if (s->within_bounds)
            printf(", %s only within bounds", ma_progress_group(c, sizeof c, s->within_bounds));
        if (s->missing_child + s->unverifiable)
            printf(", %s not verified", ma_progress_group(c, sizeof c, s->missing_child + s->unverifiable));
        if (s->carried)
            printf(", carried over from run %lld\n", (long long)s->from_run);
        else
            printf(", %.2f s\n", s->seconds);
    }
    fflush(stdout);
    ma_progress_release(lc->progress);
}

static void print_text(const ma_vrun *run, int quiet)
{
    size_t n = ma_vrun_sector_count(run);
    if (!quiet && n)
        printf("\nsectors, children first:\n");
    if (!quiet && n)
        printf("%-22s %12s %12s %12s %9s %7s %7s %9s %8s %8s %8s  %s\n", "sector", "entries", "checked",
               "verified", "discrep", "roots", "propag", "bounds", "missing", "unverif", "seconds",
               "status");
    for (size_t i = 0; i < n && !quiet; i++) {
        const ma_vrun_sector *s = ma_vrun_sector_at(run, i);
        if (s->status == MA_SECTOR_UNUSABLE) {
            printf("%-22s %12s %12s %12s %9s %7s %7s %9s %8s %8s %8s  %s\n", s->name, "-", "-", "-",
                   "-", "-", "-", "-", "-", "-", "-", "unusable");
            continue;
        }
        if (s->status == MA_SECTOR_NOT_CHECKED) {
            /* never reached: nothing was verified, nothing found; its planned entries */
            printf("%-22s %12llu %12s %12s %9s %7s %7s %9s %8s %8s %8s  %s\n", s->name,
                   (unsigned long long)s->entries, "-", "-", "-", "-", "-", "-", "-", "-", "-",
                   "not checked");
            continue;
        }
        printf("%-22s %12llu %12llu %12llu %9llu %7llu %7llu %9llu %8llu %8llu %8.2f  %s", s->name,
               (unsigned long long)s->entries, (unsigned long long)s->checked,
               (unsigned long long)s->verified,
               (unsigned long long)s->discrepancies, (unsigned long long)s->roots,
               (unsigned long long)s->propagated, (unsigned long long)s->within_bounds,
               (unsigned long long)s->missing_child, (unsigned long long)s->unverifiable, s->seconds,
               status_text(s));
        if (s->carried)
            printf(" (carried over from run %lld)", (long long)s->from_run);
        printf("\n");
        if (s->discrepancies) {
            printf("  classes:");
            for (int k = 0; k < MA_DISC_CLASSES; k++)
                if (s->by_class[k])
                    printf(" %s=%llu", ma_disc_class_name(k), (unsigned long long)s->by_class[k]);
            printf("\n");
            size_t rows = s->n_rows < TEXT_ROWS ? s->n_rows : TEXT_ROWS;
            for (size_t k = 0; k < rows; k++)
                print_row(s, &s->rows[k]);
            if (s->discrepancies > rows)
                printf("  ... %llu more discrepancies\n", (unsigned long long)(s->discrepancies - rows));
        }
    }
    const ma_vrun_totals *t = ma_vrun_totals_of(run);
    if (t->sectors_not_checked)
        printf("not checked: %s of %s sectors (the run stopped before them)\n",
               G(t->sectors_not_checked), G(t->sectors));
    printf("total: %s sector%s (%s checked, %s carried over, %s unusable), %s entries, "
           "%s checked, %s verified, %s only within bounds, %s discrepancies (%s root, %s propagated), "
           "%s missing-child, %s unverifiable, %.2f s\n",
           G(t->sectors), t->sectors == 1 ? "" : "s", G(t->sectors_checked),
           G(t->sectors_carried), G(t->sectors_unusable),
           G(t->entries), G(t->checked),
           G(t->verified), G(t->within_bounds),
           G(t->discrepancies),
           G(t->roots), G(t->propagated),
           G(t->missing_child), G(t->unverifiable),
           ma_vrun_seconds(run));
    if (t->discrepancies) {
        printf("total classes:");
        for (int k = 0; k < MA_DISC_CLASSES; k++)
            printf(" %s=%llu", ma_disc_class_name(k), (unsigned long long)t->by_class[k]);
        printf("\n");
    }
    if (ma_vrun_id(run))
        printf("audit: run %lld%s\n", (long long)ma_vrun_id(run),
               ma_vrun_record_failed(run) ? " (record INCOMPLETE: see the errors)" : "");
    print_verdict(run);
}

/* ---- JSON ---- */

static json_t *value_json(int kind, int exact, ma_value v, int has_class, int32_t draw_class,
                          int marker, const char *text)
{
    json_t *o = json_object();
    const char *outcome = kind == 0 ? ma_outcome_name(v.outcome)
                          : kind == 2 ? "marker"
                          : kind == 3 ? "none"
                                      : "unknown";
    json_object_set_new(o, "outcome", json_string(outcome));
    if (kind == 0 && v.outcome != MA_OUTCOME_DRAW)
        json_object_set_new(o, "depth", json_integer(v.depth));
    if (kind == 0 && has_class && v.outcome == MA_OUTCOME_DRAW)
        json_object_set_new(o, "draw_class", json_integer(draw_class));
    if (kind == 2)
        json_object_set_new(o, "marker", json_integer(marker));
    if (exact >= 0)
        json_object_set_new(o, "bound", json_string(exact ? "exact" : "lower"));
    json_object_set_new(o, "text", ma_cli_json_text(text));
    return o;
}

static json_t *row_json(const ma_vrun_row *w)
{
    json_t *o = json_object();
    char board[96];
    ma_board_format(w->board, board, sizeof board);
    json_object_set_new(o, "entry", json_integer((json_int_t)w->entry));
    json_object_set_new(o, "offset", json_integer((json_int_t)w->offset));
    json_object_set_new(o, "board", json_string(board));
    int skind = w->stored.kind == MA_STORED_VALUE ? 0 : w->stored.kind == MA_STORED_BAD ? 1 : 3;
    if (w->stored.kind == MA_STORED_NONE && w->stored.marker >= 0)
        skind = 2;
    json_t *st = value_json(skind, -1, w->stored.value, w->stored.has_draw_class, w->stored.draw_class,
                            w->stored.marker, w->stored_text);
    if (w->stored.kind == MA_STORED_BAD)
        json_object_set_new(st, "outcome", json_string("bad"));
    json_object_set_new(o, "stored", st);
    json_object_set_new(o, "derived", value_json(w->derived_kind, w->derived_exact, w->derived,
                                                 w->has_draw_class, w->derived_draw_class,
                                                 w->expected_marker, w->derived_text));
    json_object_set_new(o, "class", json_string(ma_disc_class_name(w->cls)));
    json_object_set_new(o, "root", json_boolean(w->root));
    if (w->has_refutation) {
        json_t *ref = json_object();
        json_object_set_new(ref, "move", json_string(w->move));
        if (w->successor.mover | w->successor.opp) {
            char succ[96];
            ma_board_format(w->successor, succ, sizeof succ);
            json_object_set_new(ref, "successor", json_string(succ));
        }
        json_object_set_new(o, "refutation", ref);
    }
    return o;
}

static void set_counts(json_t *o, const char *const names[], const uint64_t *values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        json_object_set_new(o, names[i], json_integer((json_int_t)values[i]));
}

static json_t *classes_json(const uint64_t by_class[MA_DISC_CLASSES])
{
    json_t *c = json_object();
    for (int k = 0; k < MA_DISC_CLASSES; k++)
        json_object_set_new(c, ma_disc_class_name(k), json_integer((json_int_t)by_class[k]));
    return c;
}

static json_t *sector_json(const ma_vrun_sector *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "sector", json_string(s->name));
    json_object_set_new(o, "variant", json_string(ma_variant_name(s->variant)));
    json_object_set_new(o, "file", ma_cli_json_text(s->path));
    json_object_set_new(o, "status", json_string(ma_sector_status_name(s->status)));
    json_object_set_new(o, "carried_over", json_boolean(s->carried));
    json_object_set_new(o, "from_run", s->carried ? json_integer(s->from_run) : json_null());
    json_object_set_new(o, "message", s->message[0] ? ma_cli_json_text(s->message) : json_null());
    json_object_set_new(o, "body_digest", json_string(s->body_digest == 1   ? "match"
                                                      : s->body_digest == 0 ? "mismatch"
                                                                            : "none"));
    if (s->status != MA_SECTOR_UNUSABLE) {
        static const char *const names[] = {"entries", "checked", "canonical", "markers", "verified",
                                            "within_bounds", "bound_wins", "missing_child",
                                            "unverifiable", "discrepancies", "roots", "propagated"};
        const uint64_t v[] = {s->entries, s->checked, s->canonical, s->markers, s->verified,
                              s->within_bounds, s->bound_wins, s->missing_child, s->unverifiable,
                              s->discrepancies, s->roots, s->propagated};
        set_counts(o, names, v, sizeof v / sizeof *v);
        json_object_set_new(o, "seconds", json_real(s->seconds));
        json_object_set_new(o, "classes", classes_json(s->by_class));
        json_object_set_new(o, "derived_sha256", s->has_digest ? json_string(s->digest) : json_null());
        json_object_set_new(o, "derived_positions",
                            s->has_digest ? json_integer((json_int_t)s->digest_positions) : json_null());
    }
    return o;
}

/* Prints the non-empty object o compactly without its closing brace: more members follow. */
static void print_json_open(const json_t *o)
{
    char *text = json_dumps(o, JSON_COMPACT);
    if (!text)
        return; /* out of memory: the truncated document fails any parser, and exit says why */
    fwrite(text, 1, strlen(text) - 1, stdout);
    free(text);
}

/* A sector with its rows. The rows are dumped one at a time: a sector may hold millions of them
 * (--max-rows), and a jansson tree of them all would cost some 3 KB per row. */
static void print_sector_json(const ma_vrun_sector *s)
{
    json_t *o = sector_json(s);
    print_json_open(o);
    json_decref(o);
    if (s->status != MA_SECTOR_UNUSABLE) {
        fputs(",\"rows\":[", stdout);
        for (size_t k = 0; k < s->n_rows; k++) {
            json_t *row = row_json(&s->rows[k]);
            if (k)
                fputc(',', stdout);
            json_dumpf(row, stdout, JSON_COMPACT);
            json_decref(row);
        }
        fputc(']', stdout);
    }
    fputc('}', stdout);
}

static void print_json(const ma_vrun *run, const char *root, const char *const *errors, size_t n_errors,
                       int exit_code)
{
    const ma_vrun_options *opt = ma_vrun_options_of(run);
    json_t *doc = json_object();
    json_object_set_new(doc, "schema_version", json_integer(VERIFY_SCHEMA_VERSION));
    json_object_set_new(doc, "command", json_string("verify"));
    json_t *db = json_object();
    json_object_set_new(db, "root", ma_cli_json_text(root));
    ma_format f = ma_vrun_format(run);
    json_object_set_new(db, "format", f ? json_string(ma_format_name(f)) : json_null());
    json_t *vars = json_array();
    for (int v = 1; v <= 3; v++)
        if (ma_vrun_variants(run) >> v & 1)
            json_array_append_new(vars, json_string(ma_variant_name((ma_variant)v)));
    json_object_set_new(db, "variants", vars);
    json_object_set_new(doc, "database", db);
    static const char *const modes[] = {"full", "resume", "incremental"};
    json_object_set_new(doc, "mode", json_string(modes[opt->mode]));
    json_object_set_new(doc, "run_id", ma_vrun_id(run) ? json_integer(ma_vrun_id(run)) : json_null());
    json_object_set_new(doc, "resumed_from",
                        ma_vrun_resumed_from(run) ? json_integer(ma_vrun_resumed_from(run)) : json_null());
    json_t *o = json_object();
    json_object_set_new(o, "threads", json_integer(opt->threads));
    json_object_set_new(o, "max_rows", json_integer((json_int_t)opt->max_rows));
    json_object_set_new(o, "full_board_draw", json_boolean(opt->full_board_draw));
    json_object_set_new(o, "allow_bounds", json_boolean(opt->allow_bounds));
    if (opt->shard_count > 1) {
        json_t *sh = json_object();
        json_object_set_new(sh, "index", json_integer(opt->shard_index));
        json_object_set_new(sh, "count", json_integer(opt->shard_count));
        json_object_set_new(o, "shard", sh);
    }
    json_object_set_new(doc, "options", o);
    json_object_set_new(doc, "verdict", json_string(ma_vrun_verdict_name(ma_vrun_verdict_of(run))));
    const ma_vrun_totals *t = ma_vrun_totals_of(run);
    json_t *tot = json_object();
    static const char *const names[] = {"sectors", "sectors_checked", "sectors_carried_over",
                                        "sectors_unusable", "sectors_not_checked", "entries",
                                        "checked", "canonical",
                                        "markers", "verified", "within_bounds", "bound_wins",
                                        "missing_child", "unverifiable", "discrepancies", "roots",
                                        "propagated"};
    const uint64_t v[] = {t->sectors, t->sectors_checked, t->sectors_carried, t->sectors_unusable,
                          t->sectors_not_checked, t->entries, t->checked, t->canonical, t->markers, t->verified,
                          t->within_bounds, t->bound_wins, t->missing_child, t->unverifiable,
                          t->discrepancies, t->roots, t->propagated};
    set_counts(tot, names, v, sizeof v / sizeof *v);
    json_object_set_new(tot, "classes", classes_json(t->by_class));
    json_object_set_new(tot, "body_digest_mismatches", json_integer((json_int_t)t->body_digest_mismatches));
    json_object_set_new(doc, "totals", tot);
    json_t *errs = json_array();
    for (size_t i = 0; i < n_errors; i++)
        json_array_append_new(errs, ma_cli_json_text(errors[i]));
    json_object_set_new(doc, "errors", errs);
    json_object_set_new(doc, "record_complete", json_boolean(!ma_vrun_record_failed(run)));
    json_object_set_new(doc, "seconds", json_real(ma_vrun_seconds(run)));
    json_object_set_new(doc, "exit", json_integer(exit_code));
    /* the document, then its sectors streamed into it (print_sector_json) */
    print_json_open(doc);
    json_decref(doc);
    fputs(",\"sectors\":[", stdout);
    for (size_t i = 0; i < ma_vrun_sector_count(run); i++) {
        if (i)
            fputc(',', stdout);
        print_sector_json(ma_vrun_sector_at(run, i));
    }
    fputs("]}\n", stdout);
}

/* ---- plan ---- */

#define PLAN_SCHEMA_VERSION 1

static int print_plan(const char *root, unsigned n, int json)
{
    ma_database *db = NULL;
    ma_error err;
    ma_error_clear(&err);
    int rc = ma_database_open(&db, root, NULL, &err);
    ma_shard_plan p;
    memset(&p, 0, sizeof p);
    if (rc == MA_OK)
        rc = ma_shard_plan_database(db, n, &p, &err);
    if (rc) {
        fprintf(stderr, "millaudit verify: %s\n", err.msg);
        ma_database_close(db);
        return ma_exit_code_for(rc);
    }
    for (size_t i = 0; i < ma_database_unusable_count(db); i++)
        fprintf(stderr, "millaudit verify: %s\n", ma_database_unusable(db, i)->message);
    if (json) {
        json_t *doc = json_object();
        json_object_set_new(doc, "schema_version", json_integer(PLAN_SCHEMA_VERSION));
        json_object_set_new(doc, "command", json_string("verify-plan"));
        json_t *d = json_object();
        json_object_set_new(d, "root", ma_cli_json_text(root));
        ma_format f = ma_database_format(db);
        json_object_set_new(d, "format", f ? json_string(ma_format_name(f)) : json_null());
        json_object_set_new(doc, "database", d);
        json_object_set_new(doc, "shards", json_integer(n));
        json_object_set_new(doc, "sectors", json_integer((json_int_t)p.n_sectors));
        json_object_set_new(doc, "total_entries", json_integer((json_int_t)p.total_entries));
        json_object_set_new(doc, "total_cost", json_real(p.total_cost));
        json_object_set_new(doc, "mean_cost", json_real(p.mean_cost));
        json_object_set_new(doc, "largest_sector_cost", json_real(p.largest_sector_cost));
        json_object_set_new(doc, "largest_shard_cost", json_real(p.largest_shard_cost));
        json_object_set_new(doc, "imbalance", json_real(p.imbalance));
        json_t *shards = json_array();
        for (unsigned k = 0; k < n; k++) {
            const ma_shard_plan_shard *sh = &p.shards[k];
            json_t *o = json_object(), *names = json_array();
            json_object_set_new(o, "shard", json_integer(k));
            json_object_set_new(o, "sectors", json_integer((json_int_t)sh->sectors));
            json_object_set_new(o, "entries", json_integer((json_int_t)sh->entries));
            json_object_set_new(o, "cost", json_real(sh->cost));
            json_object_set_new(o, "bytes", json_integer((json_int_t)sh->bytes));
            json_object_set_new(o, "peak_bytes", json_integer((json_int_t)sh->peak_bytes));
            for (size_t i = 0; i < p.n_sectors; i++)
                if (p.sectors[i].shard == k)
                    json_array_append_new(names, json_string(p.sectors[i].name));
            json_object_set_new(o, "sector_names", names);
            json_array_append_new(shards, o);
        }
        json_object_set_new(doc, "plan", shards);
        json_t *secs = json_array();
        for (size_t i = 0; i < p.n_sectors; i++) {
            const ma_shard_plan_sector *x = &p.sectors[i];
            json_t *o = json_object();
            json_object_set_new(o, "sector", json_string(x->name));
            json_object_set_new(o, "shard", json_integer(x->shard));
            json_object_set_new(o, "entries", json_integer((json_int_t)x->entries));
            json_object_set_new(o, "cost", json_real(x->cost));
            json_object_set_new(o, "bytes", json_integer((json_int_t)x->bytes));
            json_object_set_new(o, "peak_bytes", json_integer((json_int_t)x->peak_bytes));
            json_array_append_new(secs, o);
        }
        json_object_set_new(doc, "sector_plan", secs);
        json_t *errs = json_array();
        for (size_t i = 0; i < ma_database_unusable_count(db); i++)
            json_array_append_new(errs, ma_cli_json_text(ma_database_unusable(db, i)->message));
        json_object_set_new(doc, "errors", errs);
        json_dumpf(doc, stdout, JSON_COMPACT);
        fputc('\n', stdout);
        json_decref(doc);
    } else {
        printf("plan: %s: %zu sectors, %llu entries, cost %.0f (entries; flying sectors x3) in %u shards\n", root,
               p.n_sectors, (unsigned long long)p.total_entries, p.total_cost, n);
        printf("%6s %8s %14s %16s %12s %14s\n", "shard", "sectors", "entries", "cost", "MiB", "peak MiB");
        for (unsigned k = 0; k < n; k++) {
            const ma_shard_plan_shard *sh = &p.shards[k];
            printf("%6u %8zu %14llu %16.0f %12.1f %14.1f\n", k, sh->sectors, (unsigned long long)sh->entries,
                   sh->cost, (double)sh->bytes / 1048576.0, (double)sh->peak_bytes / 1048576.0);
        }
        printf("balance: largest shard costs %.0f = %.3f x max(mean %.0f, largest sector %.0f)\n",
               p.largest_shard_cost, p.imbalance, p.mean_cost, p.largest_sector_cost);
        for (unsigned k = 0; k < n; k++) {
            printf("shard %u:", k);
            for (size_t i = 0; i < p.n_sectors; i++)
                if (p.sectors[i].shard == k)
                    printf(" %s", p.sectors[i].name);
            printf("\n");
        }
    }
    ma_shard_plan_free(&p);
    ma_database_close(db);
    return MA_EXIT_OK;
}

/* ---- options ---- */

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

int ma_cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {
        {"sector", required_argument, NULL, 's'}, {"audit", required_argument, NULL, 'a'},
        {"max-rows", required_argument, NULL, 'm'}, {"threads", required_argument, NULL, 't'},
        {"quiet", no_argument, NULL, 'q'}, {"json", no_argument, NULL, 'j'},
        {"full-board-draw", required_argument, NULL, 'f'}, {"allow-bounds", no_argument, NULL, 'b'},
        {"resume", optional_argument, NULL, 'r'}, {"incremental", no_argument, NULL, 'i'},
        {"shard", required_argument, NULL, 'S'}, {"plan", required_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'}, {"junit", required_argument, NULL, 'J'},
        {"stale-after", required_argument, NULL, 'T'},
        {NULL, 0, NULL, 0}};
    char host[256], cmdline[8192];
    ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, argc, argv);
    const char **sectors = calloc((size_t)argc + 1, sizeof *sectors);
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!sectors || !args) {
        free(sectors);
        free(args);
        return MA_EXIT_INTERNAL;
    }
    /* `--resume RUN` (a separate number) is accepted as well as --resume=RUN when another
     * positional argument is there for DIR: getopt's optional arguments only take the attached
     * form. */
    static const char *const with_value[] = {"--sector", "--audit", "--max-rows", "--threads",
                                             "--shard", "--plan", "--full-board-draw", "--junit",
                                             "--stale-after"};
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        int takes = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
            takes |= !strcmp(argv[i], with_value[k]);
        if (takes)
            i++;
        else if (argv[i][0] != '-')
            positional++;
    }
    int nargs = 0;
    char resume_arg[64];
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--resume") && i + 1 < argc && all_digits(argv[i + 1]) &&
            positional >= 2) {
            snprintf(resume_arg, sizeof resume_arg, "--resume=%.40s", argv[i + 1]);
            args[nargs++] = resume_arg;
            i++;
            continue;
        }
        args[nargs++] = argv[i];
    }
    ma_vrun_options o;
    memset(&o, 0, sizeof o);
    size_t n_sectors = 0;
    long max_rows = 1000, threads = sysconf(_SC_NPROCESSORS_ONLN), resume_run = 0, plan = 0, stale = -1;
    if (threads < 1)
        threads = 1;
    int json = 0, quiet = 0, code = MA_EXIT_OK;
    const char *junit_path = NULL;
    o.full_board_draw = 1;
    optind = 1;
    int c;
    while ((c = ma_opt_next("verify", nargs, args, "h", opts)) != -1) {
        switch (c) {
        case 's': sectors[n_sectors++] = optarg; break;
        case 'a': o.audit_path = optarg; break;
        case 'm':
            if (ma_opt_long("verify", "--max-rows", optarg, 0, 1000000000L, &max_rows))
                code = MA_EXIT_USAGE;
            break;
        case 't':
            if (ma_opt_long("verify", "--threads", optarg, 1, 256, &threads))
                code = MA_EXIT_USAGE;
            break;
        case 'q': quiet = 1; break;
        case 'j': json = 1; break;
        case 'J': junit_path = optarg; break;
        case 'b': o.allow_bounds = 1; break;
        case 'f':
            if (!strcmp(optarg, "yes") || !strcmp(optarg, "no")) {
                o.full_board_draw = !strcmp(optarg, "yes");
            } else {
                code = ma_opt_error("verify", "--full-board-draw %s: expected yes or no", optarg);
            }
            break;
        case 'r':
            if (o.mode == MA_VRUN_INCREMENTAL) {
                code = ma_opt_error("verify", "--resume and --incremental exclude each other");
            }
            o.mode = MA_VRUN_RESUME;
            if (optarg && ma_opt_long("verify", "--resume", optarg, 1, 0x7FFFFFFFL, &resume_run))
                code = MA_EXIT_USAGE;
            break;
        case 'i':
            if (o.mode == MA_VRUN_RESUME) {
                code = ma_opt_error("verify", "--resume and --incremental exclude each other");
            }
            o.mode = MA_VRUN_INCREMENTAL;
            break;
        case 'S':
            if (ma_cli_parse_shard(optarg, &o.shard_index, &o.shard_count)) {
                code = ma_opt_error("verify", "--shard %s: expected I/N with 0 <= I < N, e.g. 0/4", optarg);
            }
            break;
        case 'T':
            if (ma_opt_long("verify", "--stale-after", optarg, 0, 0x7FFFFFFFL, &stale))
                code = MA_EXIT_USAGE;
            break;
        case 'P':
            if (ma_opt_long("verify", "--plan", optarg, 1, 100000, &plan))
                code = MA_EXIT_USAGE;
            break;
        case 'h':
            usage(stdout);
            free(sectors);
            free(args);
            return MA_EXIT_OK;
        default: code = MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
        if (code != MA_EXIT_OK)
            break; /* one error, one line */
    }
    if (code == MA_EXIT_OK && optind != nargs - 1)
        code = ma_opt_error("verify", "%s", optind >= nargs ? "no database directory given"
                                                            : "one database directory expected");
    if (code == MA_EXIT_OK && o.mode != MA_VRUN_FULL && !o.audit_path) {
        code = ma_opt_error("verify", "--%s needs --audit FILE (the store holds the results to carry over)",
                            o.mode == MA_VRUN_RESUME ? "resume" : "incremental");
    }
    if (code == MA_EXIT_OK && stale >= 0 && o.mode != MA_VRUN_RESUME)
        code = ma_opt_error("verify", "--stale-after only tells --resume when a run of another host is dead");
    if (code == MA_EXIT_OK && plan &&
        (o.shard_count || o.audit_path || o.mode != MA_VRUN_FULL || n_sectors)) {
        code = ma_opt_error("verify", "--plan partitions the whole database and checks nothing: it takes "
                                      "no --shard, --sector, --audit, --resume or --incremental");
    }
    if (code != MA_EXIT_OK) {
        free(sectors);
        free(args);
        return code;
    }
    if (plan) {
        code = print_plan(args[optind], (unsigned)plan, json);
        free(sectors);
        free(args);
        return code;
    }
    if (junit_path && json && ma_output_is_stdout(junit_path)) {
        fprintf(stderr, "millaudit verify: --junit - and --json would both write standard output\n");
        code = MA_EXIT_USAGE;
    } else {
        /* the JUnit file must not replace the database, the store or its side files */
        const ma_output_input inputs[] = {{args[optind], "the database", MA_INPUT_FILE},
                                          {o.audit_path, "the audit store", MA_INPUT_STORE}};
        code = ma_cli_check_output("verify", junit_path, "--junit", MA_OUTPUT_DOCUMENT, inputs, 2);
    }
    if (code != MA_EXIT_OK) {
        free(sectors);
        free(args);
        return code;
    }
    o.root = args[optind];
    o.sectors = sectors;
    o.n_sectors = n_sectors;
    o.threads = (int)threads;
    o.max_rows = (size_t)max_rows;
    o.resume_run = resume_run;
    o.stale_seconds_given = stale >= 0;
    o.stale_seconds = stale;
    o.host = host;
    o.command_line = cmdline;
    o.tool_version = MA_VERSION;
    o.git_revision = MA_GIT_REVISION;
    o.cancel = ma_cli_stop_on_signals();
    /* the test build's hooks (cli/test_hook.h); a weak reference, NULL in millaudit */
    ma_cli_test_hook hook;
    if (ma_cli_test_hook_install)
        ma_cli_test_hook_install(&hook, &o);
    ma_progress progress;
    ma_progress_start(&progress, stderr, quiet || json, "verify", 0);
    o.progress = &progress;
    struct live_ctx live = {&progress};
    if (!quiet && !json) {
        o.on_sector = print_live_sector;
        o.on_sector_ctx = &live;
    }

    ma_vrun *run = NULL;
    ma_error err;
    ma_error_clear(&err);
    int rc = ma_vrun_create(&run, &o, &err);
    if (rc == MA_OK)
        rc = ma_vrun_execute(run, &err);
    ma_progress_finish(&progress, atomic_load(&progress.done));
    if (rc == MA_EINVAL || (rc && !run)) {
        if (rc == MA_EINVAL) /* an option value the run refused (a --sector, --resume): a usage error */
            ma_opt_error("verify", "%s", err.msg);
        else
            fprintf(stderr, "millaudit verify: %s\n", err.msg);
        ma_vrun_free(run);
        free(sectors);
        free(args);
        return rc == MA_EINVAL ? MA_EXIT_USAGE : ma_exit_code_for(rc);
    }
    int exit_code;
    if (rc == MA_ECANCELED)
        exit_code = 128 + (*o.cancel ? (int)*o.cancel : SIGINT); /* no signal: the test hook */
    else if (rc)
        exit_code = ma_exit_code_for(rc);
    else
        exit_code = ma_vrun_exit_code(run);
    size_t n_err = ma_vrun_error_count(run);
    const char **errors = calloc(n_err + 2, sizeof *errors);
    size_t ne = 0;
    for (size_t i = 0; errors && i < n_err; i++)
        errors[ne++] = ma_vrun_error(run, i);
    /* the run's error is usually the last one it listed (an unusable root): say it once */
    if (rc && rc != MA_ECANCELED && errors && (!ne || strcmp(errors[ne - 1], err.msg)))
        errors[ne++] = err.msg;
    ma_error junit_err;
    ma_error_clear(&junit_err);
    const char *stopped_by = rc && rc != MA_ECANCELED ? err.msg : NULL;
    if (junit_path && ma_vrun_junit_write(run, stopped_by, junit_path, &junit_err) != MA_OK) {
        /* like an incomplete audit record: the report asked for is missing (4 wins over 1 and 3) */
        if (errors)
            errors[ne++] = junit_err.msg;
        if (exit_code == MA_EXIT_OK || exit_code == MA_EXIT_MISMATCH || exit_code == MA_EXIT_BAD_INPUT)
            exit_code = junit_err.code == MA_ENOMEM ? MA_EXIT_INTERNAL : MA_EXIT_IO;
    }
    for (size_t i = 0; i < ne; i++)
        fprintf(stderr, "millaudit verify: %s\n", errors[i]);
    if (json)
        print_json(run, o.root, errors, ne, exit_code);
    else if (rc == MA_OK || rc == MA_ECANCELED)
        print_text(run, quiet);
    free(errors);
    ma_vrun_free(run);
    free(sectors);
    free(args);
    return exit_code;
}
