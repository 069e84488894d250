/*
 * millaudit index-check --variant V --sector S [FILE]: options and output of the proof of the
 * checker's sym16-colex index on one sector (check/index_proof.h), and optionally of a file's
 * header and value words against it.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/fileio.h"
#include "common/ma_error.h"
#include "common/options.h"
#include "common/progress.h"
#include "formats/open_file.h"
#include "indexer/open_index.h"
#include "indexer/position.h"
#include "check/index_proof.h"

#define MAX_SHOWN 10

typedef struct check_state {
    uint64_t shown;
    char label[64];
    const char *prefix;  /* "PATH: " in front of each failure of the file check, else "" */
} check_state;

/* Prints the first MAX_SHOWN failures (ma_index_proof_fail_fn). */
static void show_failure(void *ctx, uint64_t entry, ma_board board, const char *what)
{
    check_state *st = ctx;
    if (st->shown++ >= MAX_SHOWN)
        return;
    char bbuf[80];
    ma_board_format(board, bbuf, sizeof bbuf);
    printf("FAIL %s: entry %" PRIu64 ": board %s: %s%s\n", st->label, entry, bbuf, st->prefix,
           what);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit index-check --variant std|lask|mora --sector W_B_WF_BF [FILE]\n"
            "\n"
            "Proves the sym16-colex index on one sector exhaustively: every entry unranks to a board\n"
            "with W and B stones; canonical entries round-trip; non-canonical entries rank to a\n"
            "canonical entry of the same orbit; every raw placement ranks to a canonical image of\n"
            "itself; orbit sizes sum to the number of raw placements. With FILE (the sector's .mdb),\n"
            "also checks its header and that every value word fits its entry (canonical entries hold\n"
            "a value, non-canonical ones 0x0000).\n"
            "\n"
            "exit: 0 all checks hold, 1 a check failed, 2 usage, 3 unusable input\n");
}

/* Header sector/variant against the command line, and every value word against its entry kind. */
static int check_file(const char *path, ma_open_index *ix, ma_variant v, ma_sector s,
                      check_state *st, uint64_t *bad_out)
{
    ma_open_file f;
    ma_error err;
    int rc = ma_open_file_map(&f, path, ix, 1, &err);
    if (rc) {
        fprintf(stderr, "millaudit index-check: %s\n", err.msg);
        return rc;
    }
    char want[16], got[16];
    ma_sector_format(s, want, sizeof want);
    ma_sector_format(f.header.sector, got, sizeof got);
    if (f.header.variant != v || !ma_sector_equal(f.header.sector, s)) {
        /* Not a failed check of the index but the wrong input: another variant's or sector's file
         * says nothing about this sector (exit 3, as every command treats another variant). */
        char shown[512];
        ma_escape_name(path, shown, sizeof shown);
        fprintf(stderr, "millaudit index-check: %s: sector %s: offset %d: header is %s %s, expected %s %s (%s)\n",
                shown, got, f.header.variant != v ? 12 : 14, ma_variant_name(f.header.variant), got,
                ma_variant_name(v), want, f.header.variant != v ? "another variant's file" : "another sector's file");
        ma_open_file_close(&f);
        return MA_EFORMAT;
    }
    uint64_t bad = 0;
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s: ", path);
    st->prefix = prefix;
    rc = ma_index_proof_file_words(ix, &f, s.w, s.b, show_failure, st, &bad, &err);
    st->prefix = "";
    if (rc) {
        ma_open_file_close(&f);
        fprintf(stderr, "millaudit index-check: %s\n", err.msg);
        return rc;
    }
    printf("  file                %s: header %s %s, %" PRIu64 " entries, %" PRIu64
           " bad encodings\n", path, ma_variant_name(v), got, f.header.entry_count, bad);
    ma_open_file_close(&f);
    *bad_out = bad;
    return MA_OK;
}

int ma_cmd_index_check(int argc, char **argv)
{
    static const struct option opts[] = {
        {"variant", required_argument, NULL, 'v'},
        {"sector", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *variant_arg = NULL, *sector_arg = NULL;
    int c;
    optind = 1;
    while ((c = ma_opt_next("index-check", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'v': variant_arg = optarg; break;
        case 's': sector_arg = optarg; break;
        case 'h': usage(stdout); return MA_EXIT_OK;
                default:
            return MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (!variant_arg || !sector_arg || argc - optind > 1) {
        return ma_opt_error("index-check", "need --variant and --sector and at most one FILE");
    }
    const char *file = optind < argc ? argv[optind] : NULL;
    ma_error err;
    ma_variant v;
    ma_sector s;
    if (ma_variant_parse(variant_arg, &v, &err) || ma_sector_parse(sector_arg, &s, &err)) {
        return ma_opt_error("index-check", "%s", err.msg);
    }
    if (!ma_sector_valid(v, s)) {
        fprintf(stderr, "millaudit index-check: sector %s is impossible for %s\n", sector_arg,
                ma_variant_name(v));
        return MA_EXIT_BAD_INPUT;
    }
    ma_open_index *ix;
    if (ma_open_index_create(&ix, &err) || ma_open_index_prepare(ix, s.w, &err)) {
        fprintf(stderr, "millaudit index-check: %s\n", err.msg);
        return ma_exit_code_for(err.code);
    }
    check_state st = {0, "", ""};
    char sec[16];
    ma_sector_format(s, sec, sizeof sec);
    snprintf(st.label, sizeof st.label, "%s %s", ma_variant_name(v), sec);

    uint64_t bad = 0;
    int status = MA_EXIT_OK;
    printf("index-check %s: sym16-colex v1\n", st.label);
    if (file) {
        /* The file first: if it is unusable there is no point in the long proof. */
        int rc = check_file(file, ix, v, s, &st, &bad);
        if (rc) {
            ma_open_index_free(ix);
            return rc == MA_ENOMEM ? MA_EXIT_INTERNAL : MA_EXIT_BAD_INPUT;
        }
    }
    ma_progress pr;
    ma_progress_start(&pr, stderr, 0, st.label, 0);
    ma_index_proof proof;
    int rc = ma_index_proof_sector(ix, s.w, s.b, &pr, show_failure, &st, &proof, &err);
    ma_progress_finish(&pr, proof.entries + proof.placements);
    if (rc) {
        fprintf(stderr, "millaudit index-check: %s\n", err.msg);
        ma_open_index_free(ix);
        return MA_EXIT_INTERNAL;
    }
    uint64_t n = proof.entries, failures = proof.failures + bad;
    if (proof.placements != proof.expected_placements || proof.orbit_sum != proof.placements)
        printf("FAIL %s: orbit sizes of canonical entries sum to %" PRIu64 ", raw placements %"
               PRIu64 " (expected %" PRIu64 ")\n", st.label, proof.orbit_sum, proof.placements,
               proof.expected_placements);
    printf("  entries             %" PRIu64 "\n", n);
    printf("  representatives     %" PRIu64 "\n", ma_open_index_rep_count(ix, s.w));
    printf("  canonical entries   %" PRIu64 "\n", proof.canonical);
    printf("  non-canonical       %" PRIu64 "\n", n - proof.canonical);
    printf("  raw placements      %" PRIu64 " (sum of orbit sizes %" PRIu64 ")\n",
           proof.placements, proof.orbit_sum);
    if (failures) {
        printf("result: FAILED, %" PRIu64 " failures%s\n", failures,
               st.shown > MAX_SHOWN ? " (first ones shown)" : "");
        status = MA_EXIT_MISMATCH;
    } else {
        printf("result: ok\n");
    }
    ma_open_index_free(ix);
    return status;
}
