/*
 * millaudit diff A B: compare two databases (directories or single sector files, any of the open
 * and Malom formats) position by position. The comparison itself is verifier/diff.h; this file
 * pairs the sectors, prints text or JSON and records the run in the audit store.
 */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/ma_error.h"
#include "indexer/malom_index.h"
#include "indexer/open_index.h"
#include "indexer/position.h"
#include "ma_version.h"
#include "reports/audit.h"
#include "verifier/diff.h"
#include "verifier/diff_junit.h"

#define MAX_SECTOR_ARGS 256

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit diff A B [--sector S ...] [--limit N] [--json] [--audit FILE.sqlite]\n"
            "                      [--threads N] [--quiet] [--full] [--junit FILE]\n"
            "\n"
            "Compares two databases position by position. A and B are directories or single\n"
            "sector files, open .mdb or Malom .sec / .sec2 (with <variant>.secval beside it, or a\n"
            "STONE_DIFF build), in any combination. Sectors are paired by variant and sector id.\n"
            "Files of one format with equal SHA-256 are identical and skipped (unless --full).\n"
            "Differences: outcome, depth, draw-class (.sec2 vs .sec2), encoding (same values,\n"
            "other bytes or another format), only-in-A / only-in-B.\n"
            "\n"
            "  --sector S     only this sector (W_B_WF_BF or <variant>_W_B_WF_BF); repeatable\n"
            "  --limit N      example boards per sector (default 5)\n"
            "  --json         one JSON document on stdout\n"
            "  --audit FILE   record the run (kind \"diff\") in a SQLite audit store\n"
            "  --threads N    worker threads (default: online CPUs)\n"
            "  --quiet        text output: only sectors with value differences and the total\n"
            "  --full         compare positions even when the digests agree\n"
            "  --junit FILE   also write a JUnit XML report: one test case per sector, failing\n"
            "                 where values differ or a sector is on one side only\n"
            "\n"
            "exit: 0 values agree (encoding differences allowed), 1 values differ or a sector is\n"
            "on one side only, 2 usage, 3 input unusable, 4 audit store not writable\n");
}

typedef struct pair {
    const ma_diff_source *a, *b; /* either may be NULL (only on one side) */
    ma_diff_result r;
} pair;

static int source_key_cmp(const ma_diff_source *x, const ma_diff_source *y)
{
    if (x->variant != y->variant)
        return x->variant < y->variant ? -1 : 1;
    const uint8_t kx[4] = {x->sector.w, x->sector.b, x->sector.wf, x->sector.bf};
    const uint8_t ky[4] = {y->sector.w, y->sector.b, y->sector.wf, y->sector.bf};
    return memcmp(kx, ky, 4);
}

static void sector_id(const ma_diff_source *s, char *buf, size_t len)
{
    char sec[16];
    ma_sector_format(s->sector, sec, sizeof sec);
    snprintf(buf, len, "%s_%s", ma_variant_name(s->variant), sec);
}

static void variants_of(const ma_diff_source *s, size_t n, char *buf, size_t len, unsigned *mask)
{
    *mask = 0;
    for (size_t i = 0; i < n; i++)
        *mask |= 1u << s[i].variant;
    buf[0] = 0;
    for (int v = MA_VARIANT_STD; v <= MA_VARIANT_MORA; v++)
        if (*mask & (1u << v)) {
            size_t l = strlen(buf);
            snprintf(buf + l, len - l, "%s%s", l ? "," : "", ma_variant_name((ma_variant)v));
        }
}

/* --sector S: "W_B_WF_BF" or "<variant>_W_B_WF_BF". */
typedef struct wanted {
    int any_variant;
    ma_variant variant;
    ma_sector sector;
    int seen;
} wanted;

static int parse_wanted(const char *text, wanted *w)
{
    ma_error err;
    memset(w, 0, sizeof *w);
    const char *us = strchr(text, '_');
    if (us && (text[0] < '0' || text[0] > '9')) {
        char name[16];
        size_t l = (size_t)(us - text);
        if (l >= sizeof name)
            return -1;
        memcpy(name, text, l);
        name[l] = 0;
        if (ma_variant_parse(name, &w->variant, &err))
            return -1;
        text = us + 1;
    } else {
        w->any_variant = 1;
    }
    return ma_sector_parse(text, &w->sector, &err) ? -1 : 0;
}

static int is_wanted(const ma_diff_source *s, wanted *ws, size_t n)
{
    if (n == 0)
        return 1;
    int hit = 0;
    for (size_t i = 0; i < n; i++)
        if ((ws[i].any_variant || ws[i].variant == s->variant) &&
            ma_sector_equal(ws[i].sector, s->sector)) {
            ws[i].seen = 1;
            hit = 1;
        }
    return hit;
}

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7F)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

/* The board as a 7x7 grid, row 7 on top; X mover, O opponent, '.' empty point. */
static void print_diagram(FILE *out, ma_board b, const char *indent)
{
    char grid[7][7];
    memset(grid, ' ', sizeof grid);
    for (int p = 0; p < MA_POINTS; p++) {
        const char *nm = ma_point_name(p);
        int col = nm[0] - 'a', row = nm[1] - '1';
        grid[row][col] = (b.mover >> p & 1) ? 'X' : (b.opp >> p & 1) ? 'O' : '.';
    }
    for (int row = 6; row >= 0; row--) {
        fprintf(out, "%s%d ", indent, row + 1);
        for (int col = 0; col < 7; col++)
            fprintf(out, "%c%s", grid[row][col], col < 6 ? " " : "\n");
    }
    fprintf(out, "%s  a b c d e f g\n", indent);
}

static uint64_t value_diffs(const ma_diff_result *r)
{
    return r->counts[MA_DIFF_OUTCOME] + r->counts[MA_DIFF_DEPTH] + r->counts[MA_DIFF_DRAW_CLASS];
}

static const char *pair_status(const pair *p)
{
    if (!p->b)
        return "only-in-A";
    if (!p->a)
        return "only-in-B";
    if (p->r.identical)
        return "identical";
    return value_diffs(&p->r) ? "differs" : "equal";
}

static void print_text_pair(FILE *out, const pair *p, int quiet)
{
    const ma_diff_source *s = p->a ? p->a : p->b;
    char id[32];
    sector_id(s, id, sizeof id);
    if (!p->a || !p->b) {
        fprintf(out, "%s: %s (%s)\n", id, pair_status(p), s->path);
        return;
    }
    if (quiet && value_diffs(&p->r) == 0)
        return;
    if (p->r.identical) {
        fprintf(out, "%s: identical (%s, same SHA-256)\n", id, ma_diff_format_name(p->a->format));
        return;
    }
    fprintf(out,
            "%s: %s: A %s vs B %s: %" PRIu64 " positions, outcome %" PRIu64 ", depth %" PRIu64
            ", draw-class %s%" PRIu64 ", encoding %" PRIu64 " (%.2f s)\n",
            id, pair_status(p), ma_diff_format_name(p->a->format),
            ma_diff_format_name(p->b->format), p->r.positions, p->r.counts[MA_DIFF_OUTCOME],
            p->r.counts[MA_DIFF_DEPTH], p->r.draw_class_compared ? "" : "n/a ",
            p->r.counts[MA_DIFF_DRAW_CLASS], p->r.counts[MA_DIFF_ENCODING], p->r.seconds);
    for (size_t i = 0; i < p->r.n_examples; i++) {
        const ma_diff_example *x = &p->r.examples[i];
        char board[96];
        ma_board_format(x->board, board, sizeof board);
        fprintf(out, "  %s: %s  entry A %" PRIu64 ": %s  entry B %" PRIu64 ": %s\n",
                ma_diff_class_name(x->cls), board, x->entry_a, x->value_a, x->entry_b,
                x->value_b);
        if (!quiet)
            print_diagram(out, x->board, "      ");
    }
}

static void print_json_pair(FILE *out, const pair *p)
{
    const ma_diff_source *s = p->a ? p->a : p->b;
    char id[32];
    sector_id(s, id, sizeof id);
    fprintf(out, "{\"sector\":");
    json_str(out, id);
    fprintf(out, ",\"status\":\"%s\",\"a\":", pair_status(p));
    if (p->a)
        json_str(out, p->a->path);
    else
        fprintf(out, "null");
    fprintf(out, ",\"b\":");
    if (p->b)
        json_str(out, p->b->path);
    else
        fprintf(out, "null");
    fprintf(out, ",\"format_a\":%s%s%s,\"format_b\":%s%s%s", p->a ? "\"" : "",
            p->a ? ma_diff_format_name(p->a->format) : "null", p->a ? "\"" : "",
            p->b ? "\"" : "", p->b ? ma_diff_format_name(p->b->format) : "null",
            p->b ? "\"" : "");
    if (p->a && p->b) {
        fprintf(out, ",\"identical\":%s,\"draw_class_compared\":%s,\"positions\":%" PRIu64,
                p->r.identical ? "true" : "false", p->r.draw_class_compared ? "true" : "false",
                p->r.positions);
        fprintf(out, ",\"differences\":{");
        for (int k = 0; k < MA_DIFF_CLASSES; k++)
            fprintf(out, "%s\"%s\":%" PRIu64, k ? "," : "", ma_diff_class_name(k), p->r.counts[k]);
        fprintf(out, "},\"examples\":[");
        for (size_t i = 0; i < p->r.n_examples; i++) {
            const ma_diff_example *x = &p->r.examples[i];
            char board[96];
            ma_board_format(x->board, board, sizeof board);
            fprintf(out, "%s{\"class\":\"%s\",\"board\":", i ? "," : "", ma_diff_class_name(x->cls));
            json_str(out, board);
            fprintf(out, ",\"entry_a\":%" PRIu64 ",\"entry_b\":%" PRIu64 ",\"value_a\":",
                    x->entry_a, x->entry_b);
            json_str(out, x->value_a);
            fprintf(out, ",\"value_b\":");
            json_str(out, x->value_b);
            fprintf(out, "}");
        }
        fprintf(out, "],\"seconds\":%.3f", p->r.seconds);
    }
    fprintf(out, "}");
}

/* The JUnit report (verifier/diff_junit.h) of the first `done` pairs; later ones were not compared. */
static int write_junit(const char *path, const char *a, const char *b, const pair *pairs, size_t n, size_t done,
                       const char *stopped_by, ma_error *err)
{
    ma_diff_junit_pair *jp = calloc(n ? n : 1, sizeof *jp);
    char (*ids)[32] = calloc(n ? n : 1, sizeof *ids);
    int rc = MA_OK;
    if (!jp || !ids) {
        rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    } else {
        for (size_t i = 0; i < n; i++) {
            const pair *p = &pairs[i];
            const ma_diff_source *s = p->a ? p->a : p->b;
            sector_id(s, ids[i], sizeof ids[i]);
            int compared = i < done || !p->a || !p->b;
            jp[i] = (ma_diff_junit_pair){ids[i], ma_variant_name(s->variant), compared ? pair_status(p) : NULL,
                                         p->a ? p->a->path : NULL, p->b ? p->b->path : NULL, NULL,
                                         p->a && p->b && i < done ? &p->r : NULL};
        }
        rc = ma_diff_junit_write(path, a, b, jp, n, stopped_by, err);
    }
    free(jp);
    free(ids);
    return rc;
}

static int record_pair(ma_audit *audit, int64_t run_id, const pair *p, ma_error *err)
{
    const ma_diff_source *s = p->a ? p->a : p->b;
    char id[32], msg[8300];
    sector_id(s, id, sizeof id);
    ma_class_count classes[MA_DIFF_CLASSES];
    size_t nc = 0;
    uint64_t total = 0;
    if (p->a && p->b)
        for (int k = 0; k < MA_DIFF_CLASSES; k++)
            if (p->r.counts[k]) {
                classes[nc].cls = ma_diff_class_name(k);
                classes[nc++].count = p->r.counts[k];
                total += p->r.counts[k];
            }
    ma_sector_result sr = {0};
    sr.sector = id;
    sr.file = s->path;
    sr.entries = p->r.positions;
    sr.checked = p->r.positions;
    sr.verified = p->r.positions - value_diffs(&p->r);
    sr.discrepancies = total;
    sr.classes = classes;
    sr.n_classes = nc;
    sr.seconds = p->r.seconds;
    if (!p->a || !p->b) {
        snprintf(msg, sizeof msg, "%s: %s", pair_status(p), s->path);
        sr.status = "skipped";
        sr.message = msg;
    } else if (value_diffs(&p->r)) {
        sr.status = "discrepancies";
    } else {
        sr.status = "ok";
        if (p->r.identical) {
            snprintf(msg, sizeof msg, "identical: same SHA-256 as %s", p->b->path);
            sr.message = msg;
        }
    }
    int rc = ma_audit_sector_record(audit, run_id, &sr, err);
    if (rc || p->r.n_examples == 0)
        return rc;
    ma_discrepancy rows[64];
    char boards[64][96];
    size_t n = 0;
    for (size_t i = 0; i < p->r.n_examples && rc == MA_OK; i++) {
        const ma_diff_example *x = &p->r.examples[i];
        ma_board_format(x->board, boards[n], sizeof boards[n]);
        rows[n] = (ma_discrepancy){id, x->entry_a, boards[n], x->value_a, x->value_b,
                                   ma_diff_class_name(x->cls)};
        if (++n == 64 || i + 1 == p->r.n_examples) {
            rc = ma_audit_discrepancies_add(audit, run_id, rows, n, err);
            n = 0;
        }
    }
    return rc;
}

int ma_cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        {"sector", required_argument, NULL, 's'}, {"limit", required_argument, NULL, 'l'},
        {"json", no_argument, NULL, 'j'},         {"audit", required_argument, NULL, 'a'},
        {"threads", required_argument, NULL, 't'}, {"quiet", no_argument, NULL, 'q'},
        {"full", no_argument, NULL, 'f'},         {"help", no_argument, NULL, 'h'},
        {"junit", required_argument, NULL, 'J'},  {NULL, 0, NULL, 0},
    };
    wanted ws[MAX_SECTOR_ARGS];
    size_t n_ws = 0;
    int json = 0, quiet = 0, c;
    const char *audit_path = NULL, *junit_path = NULL;
    ma_diff_options opt = {0, 5, 0};
    char *end;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (n_ws == MAX_SECTOR_ARGS || parse_wanted(optarg, &ws[n_ws])) {
                fprintf(stderr, "millaudit diff: --sector '%s': expected W_B_WF_BF or "
                                "<variant>_W_B_WF_BF\n", optarg);
                return MA_EXIT_USAGE;
            }
            n_ws++;
            break;
        case 'l': {
            unsigned long v = strtoul(optarg, &end, 10);
            if (*optarg < '0' || *optarg > '9' || *end || v > 100000) {
                fprintf(stderr, "millaudit diff: --limit '%s': expected 0..100000\n", optarg);
                return MA_EXIT_USAGE;
            }
            opt.limit = v;
            break;
        }
        case 't': {
            unsigned long v = strtoul(optarg, &end, 10);
            if (*optarg < '0' || *optarg > '9' || *end || v < 1 || v > 64) {
                fprintf(stderr, "millaudit diff: --threads '%s': expected 1..64\n", optarg);
                return MA_EXIT_USAGE;
            }
            opt.threads = (unsigned)v;
            break;
        }
        case 'j': json = 1; break;
        case 'a': audit_path = optarg; break;
        case 'q': quiet = 1; break;
        case 'f': opt.full = 1; break;
        case 'J': junit_path = optarg; break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default:
            fprintf(stderr, "millaudit diff: unknown option '%s' (try --help)\n", argv[optind - 1]);
            return MA_EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "millaudit diff: need exactly two databases A and B (try --help)\n");
        return MA_EXIT_USAGE;
    }
    const char *path_a = argv[optind], *path_b = argv[optind + 1];
    ma_error err;
    ma_diff_source *sa = NULL, *sb = NULL;
    size_t na = 0, nb = 0;
    pair *pairs = NULL;
    size_t n_pairs = 0;
    ma_open_index *oix = NULL;
    ma_malom_index *mix = NULL;
    ma_audit *audit = NULL;
    int64_t run_id = 0;
    int exit_code = MA_EXIT_OK;
    size_t n_done = 0;                 /* pairs compared, for --junit */
    char stopped_by[sizeof err.msg] = ""; /* the error that ended the diff early */

    if (ma_diff_sources(&sa, &na, path_a, &err) || ma_diff_sources(&sb, &nb, path_b, &err)) {
        fprintf(stderr, "millaudit diff: %s\n", err.msg);
        exit_code = ma_exit_code_for(err.code);
        if (exit_code == MA_EXIT_USAGE)
            exit_code = MA_EXIT_BAD_INPUT; /* a file name that names no sector */
        goto done;
    }
    char va[32], vb[32];
    unsigned ma, mb;
    variants_of(sa, na, va, sizeof va, &ma);
    variants_of(sb, nb, vb, sizeof vb, &mb);
    if (ma != mb) {
        fprintf(stderr, "millaudit diff: mismatched variants: %s holds %s, %s holds %s\n", path_a,
                va, path_b, vb);
        exit_code = MA_EXIT_BAD_INPUT;
        goto done;
    }
    if (na == 1 && nb == 1 && source_key_cmp(&sa[0], &sb[0]) != 0) {
        char ia[32], ib[32];
        sector_id(&sa[0], ia, sizeof ia);
        sector_id(&sb[0], ib, sizeof ib);
        fprintf(stderr, "millaudit diff: different sectors: %s is %s, %s is %s\n", path_a, ia,
                path_b, ib);
        exit_code = MA_EXIT_BAD_INPUT;
        goto done;
    }
    pairs = calloc(na + nb, sizeof *pairs);
    if (!pairs) {
        fprintf(stderr, "millaudit diff: out of memory\n");
        exit_code = MA_EXIT_INTERNAL;
        goto done;
    }
    for (size_t i = 0, j = 0; i < na || j < nb;) {
        int cmp = i == na ? 1 : j == nb ? -1 : source_key_cmp(&sa[i], &sb[j]);
        pair p = {0};
        if (cmp <= 0)
            p.a = &sa[i++];
        if (cmp >= 0)
            p.b = &sb[j++];
        int keep_a = p.a && is_wanted(p.a, ws, n_ws), keep_b = p.b && is_wanted(p.b, ws, n_ws);
        if (keep_a || keep_b)
            pairs[n_pairs++] = p;
    }
    for (size_t i = 0; i < n_ws; i++)
        if (!ws[i].seen) {
            char sec[16];
            ma_sector_format(ws[i].sector, sec, sizeof sec);
            fprintf(stderr, "millaudit diff: --sector %s: in neither %s nor %s\n", sec, path_a,
                    path_b);
            exit_code = MA_EXIT_BAD_INPUT;
            goto done;
        }
    if (ma_open_index_create(&oix, &err) || ma_malom_index_create(&mix, &err)) {
        fprintf(stderr, "millaudit diff: %s\n", err.msg);
        exit_code = MA_EXIT_INTERNAL;
        goto done;
    }
    if (audit_path) {
        if (ma_audit_open(&audit, audit_path, &err)) {
            fprintf(stderr, "millaudit diff: %s\n", err.msg);
            exit_code = MA_EXIT_IO;
            goto done;
        }
        char host[256], cmdline[8192], root[PATH_MAX + 8];
        ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, argc, argv);
        char real_a[PATH_MAX];
        if (!realpath(path_a, real_a))
            snprintf(real_a, sizeof real_a, "%s", path_a);
        snprintf(root, sizeof root, "%s", real_a);
        const char *fmt = na ? ma_diff_format_name(sa[0].format) : NULL;
        for (size_t i = 1; i < na; i++)
            if (sa[i].format != sa[0].format)
                fmt = NULL;
        ma_run_info info = {"diff", MA_VERSION, MA_GIT_REVISION, host, cmdline, root,
                            strchr(va, ',') ? NULL : va, fmt};
        if (ma_audit_run_begin(audit, &info, &run_id, &err)) {
            fprintf(stderr, "millaudit diff: %s\n", err.msg);
            exit_code = MA_EXIT_IO;
            goto done;
        }
    }

    if (json)
        printf("{\"a\":");
    if (json) {
        json_str(stdout, path_a);
        printf(",\"b\":");
        json_str(stdout, path_b);
        printf(",\"sectors\":[");
    }
    uint64_t tot_pos = 0, tot[MA_DIFF_CLASSES] = {0}, only_a = 0, only_b = 0, identical = 0;
    for (size_t i = 0; i < n_pairs; i++) {
        pair *p = &pairs[i];
        if (p->a && p->b) {
            if (ma_diff_compare(&p->r, p->a, p->b, oix, mix, &opt, &err)) {
                fflush(stdout);
                fprintf(stderr, "millaudit diff: %s\n", err.msg);
                snprintf(stopped_by, sizeof stopped_by, "%s", err.msg);
                exit_code = ma_exit_code_for(err.code);
                if (exit_code == MA_EXIT_USAGE || exit_code == MA_EXIT_OK)
                    exit_code = MA_EXIT_BAD_INPUT;
                if (json)
                    printf("]}\n");
                goto done;
            }
            tot_pos += p->r.positions;
            identical += p->r.identical;
            for (int k = 0; k < MA_DIFF_CLASSES; k++)
                tot[k] += p->r.counts[k];
        } else if (p->a) {
            only_a++;
        } else {
            only_b++;
        }
        n_done = i + 1;
        if (json) {
            if (i)
                printf(",");
            print_json_pair(stdout, p);
        } else {
            print_text_pair(stdout, p, quiet);
        }
        if (audit && record_pair(audit, run_id, p, &err)) {
            fprintf(stderr, "millaudit diff: %s\n", err.msg);
            exit_code = MA_EXIT_IO;
            if (json)
                printf("]}\n");
            goto done;
        }
        fflush(stdout);
    }
    uint64_t values = tot[MA_DIFF_OUTCOME] + tot[MA_DIFF_DEPTH] + tot[MA_DIFF_DRAW_CLASS];
    int differ = values || only_a || only_b;
    exit_code = differ ? MA_EXIT_MISMATCH : MA_EXIT_OK;
    if (json) {
        printf("],\"total\":{\"sectors\":%zu,\"identical\":%" PRIu64 ",\"positions\":%" PRIu64,
               n_pairs, identical, tot_pos);
        for (int k = 0; k < MA_DIFF_CLASSES; k++)
            printf(",\"%s\":%" PRIu64, ma_diff_class_name(k), tot[k]);
        printf(",\"only-in-A\":%" PRIu64 ",\"only-in-B\":%" PRIu64
               ",\"values_agree\":%s},\"exit\":%d}\n",
               only_a, only_b, differ ? "false" : "true", exit_code);
    } else {
        printf("total: %zu sectors (%" PRIu64 " identical), %" PRIu64 " positions, outcome %" PRIu64
               ", depth %" PRIu64 ", draw-class %" PRIu64 ", encoding %" PRIu64
               ", only-in-A %" PRIu64 ", only-in-B %" PRIu64 ": %s\n",
               n_pairs, identical, tot_pos, tot[MA_DIFF_OUTCOME], tot[MA_DIFF_DEPTH],
               tot[MA_DIFF_DRAW_CLASS], tot[MA_DIFF_ENCODING], only_a, only_b,
               differ ? "values differ" : "values agree");
    }
    fflush(stdout);

done:
    if (junit_path) {
        ma_error jerr;
        /* a diff that could not start (no pairs) still reports why */
        if (!pairs && !stopped_by[0] && exit_code != MA_EXIT_OK)
            snprintf(stopped_by, sizeof stopped_by, "%s", "the databases could not be paired (see the error above)");
        if (write_junit(junit_path, path_a, path_b, pairs, n_pairs, n_done, stopped_by[0] ? stopped_by : NULL,
                        &jerr)) {
            fprintf(stderr, "millaudit diff: %s\n", jerr.msg);
            if (exit_code <= MA_EXIT_BAD_INPUT && exit_code != MA_EXIT_USAGE)
                exit_code = jerr.code == MA_ENOMEM ? MA_EXIT_INTERNAL : MA_EXIT_IO;
        }
    }
    if (audit) {
        const char *status = exit_code == MA_EXIT_OK         ? "ok"
                             : exit_code == MA_EXIT_MISMATCH ? "discrepancies"
                                                             : "unusable";
        if (run_id && ma_audit_run_end(audit, run_id, status, &err) && exit_code < MA_EXIT_IO) {
            fprintf(stderr, "millaudit diff: %s\n", err.msg);
            exit_code = MA_EXIT_IO;
        }
        ma_audit_close(audit);
    }
    for (size_t i = 0; i < n_pairs; i++)
        ma_diff_result_free(&pairs[i].r);
    free(pairs);
    free(sa);
    free(sb);
    ma_open_index_free(oix);
    ma_malom_index_free(mix);
    return exit_code;
}
