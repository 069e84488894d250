/*
 * millaudit opening DIR --variant V --stones K [--tt-mb N] [--only-sectors LIST] [--audit A]
 *                       [--no-compare] [--max-rows N] [--json] [--quiet]
 *
 * Gasser's opening proof (audit/opening.h, docs/opening.md): proves the value of 0_0_K_K by
 * alpha-beta over the placement phase with only the movement sectors of DIR as leaves, and
 * compares every placement position it resolves with DIR's stored value where DIR holds its sector.
 * Exit: 0 the game value (outcome) is proven and nothing disagrees; 1 a discrepancy (a stored
 * placement value, the stored start value included, contradicts the proof); 2 usage; 3 the
 * outcome is not proven (movement sectors absent or excluded) or an input is unusable; 4 the audit
 * store is not writable; 5 internal; 130 / 143 interrupted.
 */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/audit_store.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "common/ma_error.h"
#include "common/options.h"
#include "common/progress.h"
#include "formats/source.h"
#include "ma_version.h"
#include "store/audit.h"
#include "store/audit_game.h"
#include "audit/opening.h"

#define JSON_SCHEMA_VERSION 1

static void usage(FILE *o)
{
    fprintf(o,
            "usage: millaudit opening DIR --variant std|mora --stones K [--tt-mb N]\n"
            "                         [--only-sectors W_B_0_0,...] [--audit FILE.sqlite]\n"
            "                         [--no-compare] [--max-rows N] [--json] [--quiet] [--no-digest-check]\n"
            "\n"
            "Proves the value of the K-stone game (start sector 0_0_K_K) by alpha-beta over the\n"
            "placement phase whose leaves are the movement sectors W_B_0_0 of DIR (open or Malom\n"
            "format); placement sectors of DIR are never read as leaves. Prints the value (outcome and\n"
            "depth in plies), the principal variation, nodes, transposition-table hits and time.\n"
            "  --tt-mb N          transposition table size in MiB (default 64)\n"
            "  --only-sectors L   use only these movement sectors as leaves, as if the others were\n"
            "                     absent; leaves in absent sectors take [loss, win] and the output\n"
            "                     says whether the value is still proven\n"
            "  --no-compare       do not compare resolved placement positions with DIR's values\n"
            "  --audit FILE       record the run (kind \"opening\") and its discrepancies\n"
            "  --max-rows N       discrepancy rows kept (counts stay exact; default 1000)\n"
            "  --json             one JSON document (docs/json/opening.schema.json)\n"
            "  --no-digest-check  read open-format files whose body fails the SHA-256 in their header\n"
            "                     (refused by default: exit 3 naming offset 80)\n"
            "Exit: 0 value proven, no discrepancy; 1 discrepancies; 2 usage; 3 value not proven or\n"
            "input unusable; 4 audit store not writable; 5 internal; 130/143 interrupted.\n");
}

static int parse_only(const char *text, ma_variant v, ma_sector *out, size_t max, size_t *n)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", text);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        ma_variant tv = v;
        int named = 0;
        ma_error e;
        if (*n >= max) {
            ma_opt_error("opening", "--only-sectors: more than %zu sectors", max);
            return -1;
        }
        if (ma_sector_arg_parse(tok, &tv, &named, &out[*n], &e)) {
            ma_opt_error("opening", "--only-sectors: %s", e.msg);
            return -1;
        }
        if (named && tv != v) {
            ma_opt_error("opening", "--only-sectors %s: not a %s sector", tok, ma_variant_name(v));
            return -1;
        }
        (*n)++;
    }
    return 0;
}

static const char *status_name(int s)
{
    return s == MA_OPENING_PROVEN ? "proven" : s == MA_OPENING_OUTCOME_PROVEN ? "outcome-proven"
                                                                                : "unproven";
}

static int depth_or_null(ma_value v)
{
    return v.outcome == MA_OUTCOME_WIN || v.outcome == MA_OUTCOME_LOSS ? v.depth : -1;
}

static json_t *value_json(ma_value v, int with_depth)
{
    json_t *o = json_object();
    json_object_set_new(o, "outcome", json_string(ma_outcome_name(v.outcome)));
    json_object_set_new(o, "depth", with_depth && depth_or_null(v) >= 0 ? json_integer(v.depth)
                                                                         : json_null());
    return o;
}

static json_t *pass_json(const ma_opening_pass *p, const char *name)
{
    json_t *o = json_object();
    json_object_set_new(o, "assumption", json_string(name));
    json_object_set_new(o, "value", value_json(p->value, 1));
    json_object_set_new(o, "pv", json_string(p->pv));
    json_object_set_new(o, "pv_end", json_string(p->pv_end));
    json_object_set_new(o, "nodes", json_integer((json_int_t)p->nodes));
    json_object_set_new(o, "leaves", json_integer((json_int_t)p->leaves));
    json_object_set_new(o, "unknown_leaves", json_integer((json_int_t)p->unknown_leaves));
    json_object_set_new(o, "tt_probes", json_integer((json_int_t)p->tt_probes));
    json_object_set_new(o, "tt_hits", json_integer((json_int_t)p->tt_hits));
    json_object_set_new(o, "tt_replacements", json_integer((json_int_t)p->tt_replacements));
    json_object_set_new(o, "seconds", json_real(p->seconds));
    return o;
}

static void print_json(const char *dir, ma_variant v, int stones, const ma_opening_result *r,
                       const char *stored_start, const char *missing, int exit_code)
{
    json_t *o = json_object();
    json_object_set_new(o, "schema_version", json_integer(JSON_SCHEMA_VERSION));
    json_object_set_new(o, "database", json_string(dir));
    json_object_set_new(o, "variant", json_string(ma_variant_name(v)));
    json_object_set_new(o, "stones", json_integer(stones));
    json_object_set_new(o, "status", json_string(status_name(r->status)));
    json_object_set_new(o, "value", r->status == MA_OPENING_UNPROVEN
                                        ? json_null()
                                        : value_json(r->value, r->status == MA_OPENING_PROVEN));
    json_object_set_new(o, "lower", value_json(r->lower, 1));
    json_object_set_new(o, "upper", value_json(r->upper, 1));
    json_object_set_new(o, "stored_start", stored_start ? json_string(stored_start) : json_null());
    json_t *passes = json_array();
    for (int i = 0; i < r->passes; i++)
        json_array_append_new(passes, pass_json(&r->pass[i], r->passes == 1 ? "exact"
                                                             : i == 0     ? "pessimistic"
                                                                          : "optimistic"));
    json_object_set_new(o, "passes", passes);
    json_object_set_new(o, "nodes", json_integer((json_int_t)r->nodes));
    json_object_set_new(o, "tt_probes", json_integer((json_int_t)r->tt_probes));
    json_object_set_new(o, "tt_hits", json_integer((json_int_t)r->tt_hits));
    json_object_set_new(o, "tt_entries", json_integer((json_int_t)r->tt_entries));
    json_object_set_new(o, "unknown_leaves", json_integer((json_int_t)r->unknown_leaves));
    json_object_set_new(o, "missing_sectors", json_string(missing));
    json_object_set_new(o, "seconds", json_real(r->seconds));
    json_t *cmp = json_object();
    json_object_set_new(cmp, "exact_checked", json_integer((json_int_t)r->exact_checked));
    json_object_set_new(cmp, "bound_checked", json_integer((json_int_t)r->bound_checked));
    json_object_set_new(cmp, "discrepancies", json_integer((json_int_t)r->discrepancies));
    json_t *secs = json_array();
    for (size_t i = 0; i < r->n_tallies; i++) {
        const ma_opening_tally *t = &r->tallies[i];
        json_t *s = json_object();
        json_object_set_new(s, "sector", json_string(t->name));
        json_object_set_new(s, "exact_checked", json_integer((json_int_t)t->exact_checked));
        json_object_set_new(s, "exact_agreed", json_integer((json_int_t)t->exact_agreed));
        json_object_set_new(s, "bound_checked", json_integer((json_int_t)t->bound_checked));
        json_object_set_new(s, "bound_agreed", json_integer((json_int_t)t->bound_agreed));
        json_object_set_new(s, "discrepancies", json_integer((json_int_t)t->discrepancies));
        json_array_append_new(secs, s);
    }
    json_object_set_new(cmp, "sectors", secs);
    json_t *rows = json_array();
    for (size_t i = 0; i < r->n_rows; i++) {
        const ma_opening_discrepancy *d = &r->rows[i];
        char board[80];
        ma_board_format(d->board, board, sizeof board);
        json_t *x = json_object();
        json_object_set_new(x, "sector", json_string(d->sector));
        json_object_set_new(x, "entry", json_integer((json_int_t)d->entry));
        json_object_set_new(x, "board", json_string(board));
        json_object_set_new(x, "stored", json_string(d->stored));
        json_object_set_new(x, "derived", json_string(d->derived));
        json_object_set_new(x, "class", json_string("opening"));
        json_array_append_new(rows, x);
    }
    json_object_set_new(cmp, "rows", rows);
    json_object_set_new(o, "comparisons", cmp);
    json_object_set_new(o, "exit", json_integer(exit_code));
    json_dumpf(o, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(o);
}

static void print_pass(const char *title, const ma_opening_pass *p)
{
    char val[32];
    ma_value_format(p->value, val, sizeof val);
    double hit = p->tt_probes ? 100.0 * (double)p->tt_hits / (double)p->tt_probes : 0.0;
    printf("%s: %s\n", title, val);
    printf("  principal variation: %s%s%s\n", p->pv[0] ? p->pv : "(none)", p->pv_end[0] ? " -> " : "",
           p->pv_end);
    printf("  nodes %" PRIu64 ", leaves %" PRIu64 " (%" PRIu64 " unknown), TT hits %" PRIu64 " of %" PRIu64
           " probes (%.1f%%), %" PRIu64 " replacements, %.2f s\n",
           p->nodes, p->leaves, p->unknown_leaves, p->tt_hits, p->tt_probes, hit, p->tt_replacements,
           p->seconds);
}

static void print_text(const char *dir, ma_variant v, int stones, ma_format fmt,
                       const ma_opening_result *r, const char *stored_start, const char *missing,
                       uint64_t bad_leaves, const char *first_bad, int compare)
{
    char lo[32], hi[32], val[32];
    ma_value_format(r->lower, lo, sizeof lo);
    ma_value_format(r->upper, hi, sizeof hi);
    ma_value_format(r->value, val, sizeof val);
    printf("opening %s_0_0_%d_%d from %s (%s format, movement sectors only)\n", ma_variant_name(v),
           stones, stones, dir, ma_format_name(fmt));
    if (r->status == MA_OPENING_PROVEN)
        printf("value: %s (proven: outcome and depth, side to move first)\n", val);
    else if (r->status == MA_OPENING_OUTCOME_PROVEN)
        printf("value: %s (outcome proven; depth only bounded: between %s and %s)\n", val, lo, hi);
    else
        printf("value: not proven: between %s and %s\n", lo, hi);
    if (r->passes == 1) {
        print_pass("search", &r->pass[0]);
    } else {
        printf("unknown leaves: %" PRIu64 " look-ups (%s%s%s%s), taken as [loss 0, win 1]\n",
               r->unknown_leaves, missing[0] ? "absent movement sectors " : "", missing,
               missing[0] && bad_leaves ? "; " : "",
               bad_leaves ? "entries without a value, below" : "");
        print_pass("pessimistic pass (lower bound)", &r->pass[0]);
        print_pass("optimistic pass (upper bound)", &r->pass[1]);
    }
    if (bad_leaves)
        printf("leaves without a value (taken as unknown): %" PRIu64 "; first: %s\n", bad_leaves,
               first_bad);
    printf("transposition table: %zu entries (%zu MiB), total nodes %" PRIu64 ", %.2f s\n",
           r->tt_entries, r->tt_entries * 16 >> 20, r->nodes, r->seconds);
    if (stored_start)
        printf("stored start value: %s\n", stored_start);
    if (!compare)
        return;
    if (!r->n_tallies) {
        printf("comparisons: DIR holds no placement sector the search resolved\n");
        return;
    }
    printf("comparisons with stored placement values: %" PRIu64 " exact results, %" PRIu64
           " bounds in %zu sectors: %" PRIu64 " discrepancies\n",
           r->exact_checked, r->bound_checked, r->n_tallies, r->discrepancies);
    for (size_t i = 0; i < r->n_rows; i++) {
        const ma_opening_discrepancy *d = &r->rows[i];
        char board[80];
        ma_board_format(d->board, board, sizeof board);
        printf("  opening %s entry %" PRIu64 " %s: stored %s, derived %s\n", d->sector, d->entry,
               board, d->stored, d->derived);
    }
    if (r->n_rows < r->discrepancies)
        printf("  ... %" PRIu64 " more\n", r->discrepancies - r->n_rows);
}

/* Records the comparisons (also after an interruption: what was compared is a finding either way)
 * and, when the search finished (done), the opening result, in one transaction. */
static int record(ma_audit *audit, int64_t run_id, const ma_opening_result *r, int done,
                  ma_variant v, int stones, const char *stored_start, const char *missing,
                  const char *only, ma_error *err)
{
    char root[48], board[80];
    snprintf(root, sizeof root, "%s_0_0_%d_%d", ma_variant_name(v), stones, stones);
    ma_board_format(r->root, board, sizeof board);
    int proven = r->status != MA_OPENING_UNPROVEN;
    ma_audit_opening row = {
        .variant = ma_variant_name(v),
        .stones = stones,
        .root = root,
        .root_board = board,
        .status = status_name(r->status),
        .value_outcome = proven ? ma_outcome_name(r->value.outcome) : NULL,
        .value_depth = r->status == MA_OPENING_PROVEN ? depth_or_null(r->value) : -1,
        .lower_outcome = ma_outcome_name(r->lower.outcome),
        .lower_depth = depth_or_null(r->lower),
        .upper_outcome = ma_outcome_name(r->upper.outcome),
        .upper_depth = depth_or_null(r->upper),
        .stored_start = stored_start,
        .pv = r->pass[0].pv,
        .pv_end = r->pass[0].pv_end,
        .passes = r->passes,
        .nodes = r->nodes,
        .leaves = r->leaves,
        .unknown_leaves = r->unknown_leaves,
        .tt_probes = r->tt_probes,
        .tt_hits = r->tt_hits,
        .tt_entries = r->tt_entries,
        .exact_checked = r->exact_checked,
        .bound_checked = r->bound_checked,
        .discrepancies = r->discrepancies,
        .missing_sectors = missing && *missing ? missing : NULL,
        .only_sectors = only,
        .seconds = r->seconds,
    };
    ma_audit_opening_sector *secs = calloc(r->n_tallies + 1, sizeof *secs);
    ma_audit_opening_row *rows = calloc(r->n_rows + 1, sizeof *rows);
    char (*text)[3][80] = calloc(r->n_rows + 1, sizeof *text);
    if (!secs || !rows || !text) {
        free(secs);
        free(rows);
        free(text);
        return ma_error_set(err, MA_ENOMEM, "opening: out of memory");
    }
    for (size_t i = 0; i < r->n_tallies; i++) {
        const ma_opening_tally *t = &r->tallies[i];
        secs[i] = (ma_audit_opening_sector){t->name,          t->path,          t->entries,
                                            t->exact_checked, t->exact_agreed,  t->bound_checked,
                                            t->bound_agreed,  t->discrepancies};
    }
    for (size_t i = 0; i < r->n_rows; i++) {
        const ma_opening_discrepancy *d = &r->rows[i];
        ma_board_format(d->board, text[i][0], sizeof text[i][0]);
        rows[i] = (ma_audit_opening_row){
            .sector = d->sector,
            .entry = d->entry,
            .board = text[i][0],
            .stored = d->stored,
            .derived = d->derived,
            .stored_outcome = d->stored_usable ? ma_outcome_name(d->stored_value.outcome) : "bad",
            .stored_depth = d->stored_usable ? depth_or_null(d->stored_value) : -1,
            .derived_outcome = ma_outcome_name(d->derived_value.outcome),
            .derived_depth = depth_or_null(d->derived_value),
            .derived_bound = d->bound > 0 ? "lower" : d->bound < 0 ? "upper" : "exact",
        };
    }
    int rc = ma_audit_opening_record(audit, run_id, done ? &row : NULL, secs, r->n_tallies, rows,
                                     r->n_rows, err);
    free(secs);
    free(rows);
    free(text);
    return rc;
}

int ma_cmd_opening(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"variant", required_argument, NULL, 'v'},  {"stones", required_argument, NULL, 'k'},
        {"tt-mb", required_argument, NULL, 't'},    {"only-sectors", required_argument, NULL, 'o'},
        {"audit", required_argument, NULL, 'a'},    {"no-compare", no_argument, NULL, 'n'},
        {"max-rows", required_argument, NULL, 'r'}, {"json", no_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},          {"help", no_argument, NULL, 'h'},
        {"no-digest-check", no_argument, NULL, 'D'}, {NULL, 0, NULL, 0}};
    ma_database_options dbo = {0};
    const char *variant_text = NULL, *only_text = NULL, *audit_path = NULL;
    int stones = 0, json = 0, quiet = 0, compare = 1, c;
    long tt_mb = 64, max_rows = 1000;
    ma_error err;
    ma_error_clear(&err);
    optind = 1;
    while ((c = ma_opt_next("opening", argc, argv, "h", longopts)) != -1) {
        switch (c) {
        case 'v': variant_text = optarg; break;
        case 'k': {
            long k;
            if (ma_opt_long("opening", "--stones", optarg, 3, 12, &k))
                return MA_EXIT_USAGE;
            stones = (int)k;
            break;
        }
        case 't':
            if (ma_opt_long("opening", "--tt-mb", optarg, 1, 65536, &tt_mb))
                return MA_EXIT_USAGE;
            break;
        case 'o': only_text = optarg; break;
        case 'a': audit_path = optarg; break;
        case 'n': compare = 0; break;
        case 'D': dbo.no_digest_check = 1; break;
        case 'r':
            if (ma_opt_long("opening", "--max-rows", optarg, 0, 10000000, &max_rows))
                return MA_EXIT_USAGE;
            break;
        case 'j': json = 1; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default:
            return MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (optind + 1 != argc) {
        return ma_opt_error("opening", "need exactly one database DIR");
    }
    if (!variant_text || !stones) {
        return ma_opt_error("opening", "--variant and --stones are required");
    }
    ma_variant v;
    if (ma_variant_parse(variant_text, &v, &err)) {
        return ma_opt_error("opening", "%s", err.msg);
    }
    if (v == MA_VARIANT_LASK) {
        return ma_opt_error("opening", "--variant lask: Lasker Morris mixes placing and moving, " "so its placement phase is no finite tree; use std or mora");
    }
    if (stones > ma_variant_stones(v)) {
        return ma_opt_error("opening", "--stones %d: %s has %d stones per side", stones,
                ma_variant_name(v), ma_variant_stones(v));
    }
    ma_sector only[64];
    size_t n_only = 0;
    if (only_text && parse_only(only_text, v, only, 64, &n_only))
        return MA_EXIT_USAGE;
    if (only_text && !n_only) {
        return ma_opt_error("opening", "--only-sectors: no sector given");
    }
    const char *dir = argv[optind];

    int exit_code = MA_EXIT_OK;
    ma_database *db = NULL;
    ma_opening_db *odb = NULL;
    ma_audit *audit = NULL;
    int64_t run_id = 0;
    ma_opening_result res;
    memset(&res, 0, sizeof res);
    char stored_start[128] = "", missing[2048] = "";
    int have_stored_start = 0, searched = 0;

    if (ma_database_open(&db, dir, &dbo, &err)) {
        fprintf(stderr, "millaudit opening: %s\n", err.msg);
        return ma_exit_code_for(err.code) == MA_EXIT_USAGE ? MA_EXIT_BAD_INPUT : ma_exit_code_for(err.code);
    }
    if (!(ma_database_variants(db) & (1u << v))) {
        fprintf(stderr, "millaudit opening: %s: holds no %s sector file\n", dir, ma_variant_name(v));
        exit_code = MA_EXIT_BAD_INPUT;
        goto done;
    }
    if (ma_opening_db_create(&odb, db, v, only, n_only, &err)) {
        if (err.code == MA_EINVAL) /* an --only-sectors the database refutes: a usage error */
            exit_code = ma_opt_error("opening", "%s", err.msg);
        else
            fprintf(stderr, "millaudit opening: %s\n", err.msg), exit_code = MA_EXIT_INTERNAL;
        goto done;
    }
    if (audit_path) {
        if (ma_audit_open(&audit, audit_path, &err)) {
            fprintf(stderr, "millaudit opening: %s\n", err.msg);
            /* a store that is not SQLite, foreign, newer or corrupt is unusable input (3); a store
             * that cannot be created or written is an output failure (4) */
            exit_code = ma_exit_code_for(err.code);
            goto done;
        }
        char host[256], cmdline[8192], root[PATH_MAX];
        ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, argc, argv);
        if (!realpath(dir, root))
            snprintf(root, sizeof root, "%s", dir);
        ma_run_info info = {"opening", MA_VERSION, MA_GIT_REVISION, host, cmdline, root,
                            ma_variant_name(v), ma_format_name(ma_database_format(db))};
        if (ma_audit_run_begin(audit, &info, &run_id, &err)) {
            fprintf(stderr, "millaudit opening: %s\n", err.msg);
            exit_code = MA_EXIT_IO;
            goto done;
        }
    }

    /* The stored start value, shown beside the proof (the search compares it like any other). */
    if (compare) {
        ma_opening_oracle o;
        ma_opening_db_oracle(odb, 1, &o);
        ma_opening_stored st;
        ma_sector root = {0, 0, (uint8_t)stones, (uint8_t)stones};
        int rc = o.stored(o.ctx, root, (ma_board){0, 0}, &st, &err);
        if (rc < 0) {
            fprintf(stderr, "millaudit opening: %s\n", err.msg);
            exit_code = MA_EXIT_BAD_INPUT;
            goto done;
        }
        if (rc == 1) {
            snprintf(stored_start, sizeof stored_start, "%s (%s)", st.describe, st.sector);
            have_stored_start = 1;
        }
    }

    const volatile sig_atomic_t *stop_signal = ma_cli_stop_on_signals();
    ma_progress progress;
    char label[64];
    snprintf(label, sizeof label, "opening %s_0_0_%d_%d", ma_variant_name(v), stones, stones);
    ma_progress_start(&progress, stderr, quiet || json, label, 0);
    snprintf(progress.unit, sizeof progress.unit, "nodes");
    ma_opening_options opt = {
        .variant = v,
        .stones = stones,
        .tt_bytes = (size_t)tt_mb << 20,
        .max_rows = (size_t)max_rows,
        .progress = &progress,
        .cancel = stop_signal,
    };
    ma_opening_oracle oracle;
    ma_opening_db_oracle(odb, compare, &oracle);
    int rc = ma_opening_prove(&opt, &oracle, &res, &err);
    ma_opening_db_missing(odb, missing, sizeof missing);

    if (rc) {
        fprintf(stderr, "millaudit opening: %s\n", err.msg);
        exit_code = rc == MA_ECANCELED ? (*stop_signal == SIGTERM ? 143 : 130)
                                       : ma_exit_code_for(rc);
        if (exit_code == MA_EXIT_USAGE || exit_code == MA_EXIT_OK)
            exit_code = MA_EXIT_BAD_INPUT;
        if (audit && record(audit, run_id, &res, 0, v, stones, NULL, missing, only_text, &err)) {
            fprintf(stderr, "millaudit opening: %s\n", err.msg);
            exit_code = MA_EXIT_IO;
        }
        goto done;
    }
    searched = 1;
    if (res.discrepancies)
        exit_code = MA_EXIT_MISMATCH;
    else if (res.status == MA_OPENING_UNPROVEN)
        exit_code = MA_EXIT_BAD_INPUT;
    if (json)
        print_json(dir, v, stones, &res, have_stored_start ? stored_start : NULL, missing, exit_code);
    else
        print_text(dir, v, stones, ma_database_format(db), &res,
                   have_stored_start ? stored_start : NULL, missing, ma_opening_db_bad_leaves(odb),
                   ma_opening_db_first_bad(odb), compare);
    fflush(stdout);
    if (res.status == MA_OPENING_UNPROVEN && !res.discrepancies) {
        char why[2300];
        uint64_t bad = ma_opening_db_bad_leaves(odb);
        if (missing[0] && bad)
            snprintf(why, sizeof why, "leaves in absent movement sectors %s and %" PRIu64
                                      " leaf entries without a value", missing, bad);
        else if (bad)
            snprintf(why, sizeof why, "%" PRIu64 " leaf entries without a value (first: %.200s)",
                     bad, ma_opening_db_first_bad(odb));
        else
            snprintf(why, sizeof why, "leaves in absent movement sectors %s", missing);
        fprintf(stderr, "millaudit opening: %s: value not proven (between %s and %s): %s\n", dir,
                ma_outcome_name(res.lower.outcome), ma_outcome_name(res.upper.outcome), why);
    }
    if (audit) {
        int wrc = record(audit, run_id, &res, 1, v, stones, have_stored_start ? stored_start : NULL,
                         missing, only_text, &err);
        if (!wrc) {
            /* what the proof read: the leaves' and the compared sectors' files, by SHA-256 */
            const char *names[300];
            size_t n = ma_opening_db_files(odb, names, 300);
            wrc = ma_cli_record_read_files(audit, run_id, ma_database_dir(db), names, n, &err);
        }
        if (wrc) {
            fprintf(stderr, "millaudit opening: %s\n", err.msg);
            exit_code = MA_EXIT_IO;
        }
    }

done:
    if (audit) {
        const char *status = exit_code == MA_EXIT_OK         ? "ok"
                             : exit_code == MA_EXIT_MISMATCH ? "discrepancies"
                             : exit_code >= 128              ? "interrupted"
                                                             : "unusable";
        if (searched && res.status == MA_OPENING_UNPROVEN && exit_code == MA_EXIT_BAD_INPUT)
            status = "unproven";
        if (run_id && ma_audit_run_end(audit, run_id, status, &err) && exit_code < MA_EXIT_IO) {
            fprintf(stderr, "millaudit opening: %s\n", err.msg);
            exit_code = MA_EXIT_IO;
        }
        ma_audit_close(audit);
    }
    ma_opening_result_free(&res);
    ma_opening_db_free(odb);
    ma_database_close(db);
    return exit_code;
}
