/*
 * millaudit index-check --variant V --sector S [FILE]: proves the checker's sym16-colex index
 * (docs/format.md §4) on one sector by exhaustion, and optionally that a file's header and value
 * words agree with it.
 *
 * Why each check: unrank/rank round trips prove the two directions agree; ranking every raw
 * placement to an image of itself, together with orbit sizes summing to the number of raw
 * placements, proves that canonical entries and orbits are in one-to-one correspondence (each
 * canonical entry can receive at most its orbit's placements, so equality forces exactly that).
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
#include "common/progress.h"
#include "formats/open_file.h"
#include "indexer/open_index.h"
#include "indexer/position.h"

#define MAX_SHOWN 10

typedef struct check_state {
    uint64_t failures;
    char label[64];
} check_state;

static void failure(check_state *st, uint64_t entry, ma_board board, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void failure(check_state *st, uint64_t entry, ma_board board, const char *fmt, ...)
{
    if (st->failures++ >= MAX_SHOWN)
        return;
    char bbuf[80], what[256];
    ma_board_format(board, bbuf, sizeof bbuf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    printf("FAIL %s: entry %" PRIu64 ": board %s: %s\n", st->label, entry, bbuf, what);
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

/* Checks every entry of the sector; fills counts. */
static void check_entries(const ma_open_index *ix, int w, int b, check_state *st, uint8_t *canon_bits,
                          uint64_t *canonical_out, uint64_t *orbit_sum_out)
{
    uint64_t n = ma_open_index_entry_count(ix, w, b);
    uint64_t m = ma_open_binomial(MA_POINTS - w, b);
    uint8_t *orbit = malloc(m);
    uint64_t canonical = 0, orbit_sum = 0;
    ma_progress pr;
    ma_progress_start(&pr, stderr, 0, st->label, n);
    if (!orbit) {
        st->failures++;
        printf("FAIL %s: out of memory\n", st->label);
        return;
    }
    for (uint64_t e = 0; e < n; e++) {
        if (e % m == 0) {
            ma_open_index_classify(ix, w, b, e / m, orbit);
            ma_progress_update(&pr, e);
        }
        ma_board board = ma_open_index_unrank(ix, w, b, e);
        if (__builtin_popcount(board.mover) != w || __builtin_popcount(board.opp) != b ||
            (board.mover & board.opp) || ((board.mover | board.opp) & ~MA_FULL_MASK)) {
            failure(st, e, board, "not a board of %d mover and %d opponent stones", w, b);
            continue;
        }
        int is_canon = ma_open_index_is_canonical(board);
        int size = ma_open_orbit_size(board);
        if ((orbit[e % m] != 0) != is_canon || (is_canon && orbit[e % m] != size))
            failure(st, e, board, "classify says orbit %d, definition says %s orbit %d",
                    orbit[e % m], is_canon ? "canonical" : "non-canonical", size);
        uint64_t r = ma_open_index_rank(ix, board, NULL);
        if (is_canon) {
            canon_bits[e >> 3] |= (uint8_t)(1u << (e & 7));
            canonical++;
            orbit_sum += (uint64_t)size;
            if (r != e)
                failure(st, e, board, "canonical entry ranks to %" PRIu64, r);
            continue;
        }
        if (r == e || r >= n) {
            failure(st, e, board, "non-canonical entry ranks to %" PRIu64, r);
            continue;
        }
        ma_board other = ma_open_index_unrank(ix, w, b, r);
        ma_board canon = ma_open_canonical(board, NULL);
        if (!ma_open_index_is_canonical(other) || other.mover != canon.mover ||
            other.opp != canon.opp)
            failure(st, e, board, "non-canonical entry ranks to %" PRIu64
                    ", which is not its canonical image", r);
    }
    ma_progress_finish(&pr, n);
    free(orbit);
    *canonical_out = canonical;
    *orbit_sum_out = orbit_sum;
}

static inline uint32_t next_same_popcount(uint32_t m)
{
    uint32_t t = m | (m - 1);
    return (t + 1) | (((~t & (t + 1)) - 1) >> (__builtin_ctz(m) + 1));
}

/* Ranks every placement of w mover and b opponent stones; returns how many there were. */
static uint64_t check_placements(const ma_open_index *ix, int w, int b, check_state *st,
                                 const uint8_t *canon_bits)
{
    uint64_t n = ma_open_index_entry_count(ix, w, b);
    uint64_t movers = ma_open_binomial(MA_POINTS, w), opps = ma_open_binomial(MA_POINTS - w, b);
    uint64_t done = 0;
    char label[96];
    snprintf(label, sizeof label, "%s placements", st->label);
    ma_progress pr;
    ma_progress_start(&pr, stderr, 0, label, movers * opps);
    uint32_t wm = w ? (1u << w) - 1 : 0;
    for (uint64_t i = 0; i < movers; i++) {
        uint32_t free_pts = ~wm & MA_FULL_MASK;
        uint32_t c = b ? (1u << b) - 1 : 0;
        for (uint64_t j = 0; j < opps; j++) {
            /* Spread c over the free points. */
            uint32_t om = 0, fp = free_pts;
            for (uint32_t cc = c; cc; fp &= fp - 1, cc >>= 1)
                if (cc & 1u)
                    om |= fp & -fp;
            ma_board board = {wm, om};
            int op;
            uint64_t r = ma_open_index_rank(ix, board, &op);
            if (r >= n) {
                failure(st, r, board, "raw placement ranks out of range");
            } else {
                ma_board got = ma_open_index_unrank(ix, w, b, r);
                ma_board img = ma_open_index_apply(ix, op, board);
                if (!(canon_bits[r >> 3] >> (r & 7) & 1u))
                    failure(st, r, board, "raw placement ranks to a non-canonical entry");
                else if (got.mover != img.mover || got.opp != img.opp)
                    failure(st, r, board, "raw placement ranks to an entry that is not its "
                            "image under op %d", op);
            }
            if (c && j + 1 < opps)
                c = next_same_popcount(c);
        }
        done += opps;
        ma_progress_update(&pr, done);
        if (wm && i + 1 < movers)
            wm = next_same_popcount(wm);
    }
    ma_progress_finish(&pr, done);
    return done;
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
    uint64_t n = f.header.entry_count, bad = 0;
    uint64_t m = ma_open_binomial(MA_POINTS - s.w, s.b);
    uint8_t *orbit = malloc(m);
    if (!orbit) {
        ma_open_file_close(&f);
        fprintf(stderr, "millaudit index-check: out of memory\n");
        return MA_ENOMEM;
    }
    for (uint64_t e = 0; e < n; e++) {
        if (e % m == 0)
            ma_open_index_classify(ix, s.w, s.b, e / m, orbit);
        uint16_t word = ma_open_file_word(&f, e);
        ma_value val;
        int ok = ma_open_value_decode(word, &val) == 0 &&
                 (orbit[e % m] ? val.outcome != MA_OUTCOME_NONE : word == 0);
        if (!ok) {
            bad++;
            failure(st, e, ma_open_index_unrank(ix, s.w, s.b, e),
                    "%s: offset %" PRIu64 ": bad encoding 0x%04x for a %s entry", path,
                    ma_open_file_offset(e), word, orbit[e % m] ? "canonical" : "non-canonical");
        }
    }
    free(orbit);
    printf("  file                %s: header %s %s, %" PRIu64 " entries, %" PRIu64
           " bad encodings\n", path, ma_variant_name(v), got, n, bad);
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
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'v': variant_arg = optarg; break;
        case 's': sector_arg = optarg; break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        case ':':
            fprintf(stderr, "millaudit index-check: option '%s' needs a value\n", argv[optind - 1]);
            return MA_EXIT_USAGE;
        default:
            fprintf(stderr, "millaudit index-check: unknown option '%s' (try --help)\n",
                    argv[optind - 1]);
            return MA_EXIT_USAGE;
        }
    }
    if (!variant_arg || !sector_arg || argc - optind > 1) {
        fprintf(stderr, "millaudit index-check: need --variant and --sector and at most one FILE "
                        "(try --help)\n");
        return MA_EXIT_USAGE;
    }
    const char *file = optind < argc ? argv[optind] : NULL;
    ma_error err;
    ma_variant v;
    ma_sector s;
    if (ma_variant_parse(variant_arg, &v, &err) || ma_sector_parse(sector_arg, &s, &err)) {
        fprintf(stderr, "millaudit index-check: %s\n", err.msg);
        return MA_EXIT_USAGE;
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
    check_state st = {0, ""};
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
    uint64_t n = ma_open_index_entry_count(ix, s.w, s.b), canonical = 0, orbit_sum = 0;
    /* Canonical entries as found by the definition, so the placement pass need not recompute. */
    uint8_t *canon_bits = calloc((size_t)(n / 8 + 1), 1);
    if (!canon_bits) {
        fprintf(stderr, "millaudit index-check: out of memory for %" PRIu64 " entries\n", n);
        ma_open_index_free(ix);
        return MA_EXIT_INTERNAL;
    }
    check_entries(ix, s.w, s.b, &st, canon_bits, &canonical, &orbit_sum);
    uint64_t placements = check_placements(ix, s.w, s.b, &st, canon_bits);
    free(canon_bits);
    uint64_t want_placements = ma_open_binomial(MA_POINTS, s.w) *
                               ma_open_binomial(MA_POINTS - s.w, s.b);
    if (placements != want_placements || orbit_sum != placements) {
        st.failures++;
        printf("FAIL %s: orbit sizes of canonical entries sum to %" PRIu64 ", raw placements %"
               PRIu64 " (expected %" PRIu64 ")\n", st.label, orbit_sum, placements,
               want_placements);
    }
    printf("  entries             %" PRIu64 "\n", n);
    printf("  representatives     %" PRIu64 "\n", ma_open_index_rep_count(ix, s.w));
    printf("  canonical entries   %" PRIu64 "\n", canonical);
    printf("  non-canonical       %" PRIu64 "\n", n - canonical);
    printf("  raw placements      %" PRIu64 " (sum of orbit sizes %" PRIu64 ")\n", placements,
           orbit_sum);
    if (st.failures) {
        printf("result: FAILED, %" PRIu64 " failures%s\n", st.failures,
               st.failures > MAX_SHOWN ? " (first ones shown)" : "");
        status = MA_EXIT_MISMATCH;
    } else {
        printf("result: ok\n");
    }
    (void)bad;
    ma_open_index_free(ix);
    return status;
}
