/*
 * millaudit dump FILE [--with-entry]: one docs/format.md §6 line per canonical entry, in entry
 * order, after '#' comment lines. Bad encodings print as "bad 0xNNNN" and are reported on stderr;
 * a value word at a non-canonical entry has no line of its own, so it is reported on stderr only.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/ma_error.h"
#include "formats/open_file.h"
#include "indexer/open_index.h"
#include "indexer/position.h"

#define MAX_REPORTED 20

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit dump FILE [--with-entry]\n"
            "\n"
            "Prints '<board> <outcome> <depth>' for every canonical entry of an open-format sector\n"
            "file, in entry order (board: mover's points '/' opponent's points, '-' for none; depth\n"
            "'-' for a draw). --with-entry prefixes each line with the entry number.\n"
            "A malformed value word prints as 'bad 0xNNNN' and is reported on stderr.\n"
            "\n"
            "exit: 0 ok, 1 bad encodings found, 2 usage, 3 unusable file, 4 output not writable\n");
}

/* The producer fields are free text from the file: keep the comment line printable ASCII. */
static void printable(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len; i++)
        out[i] = (in[i] >= 0x20 && in[i] < 0x7F) ? in[i] : '?';
    out[i] = '\0';
}

int ma_cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {
        {"with-entry", no_argument, NULL, 'e'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int with_entry = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'e': with_entry = 1; break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default:
            fprintf(stderr, "millaudit dump: unknown option '%s' (try --help)\n", argv[optind - 1]);
            return MA_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "millaudit dump: need exactly one FILE (try --help)\n");
        return MA_EXIT_USAGE;
    }
    const char *path = argv[optind];
    ma_error err;
    ma_open_index *ix;
    if (ma_open_index_create(&ix, &err)) {
        fprintf(stderr, "millaudit dump: %s\n", err.msg);
        return MA_EXIT_INTERNAL;
    }
    ma_open_file f;
    int rc = ma_open_file_map(&f, path, ix, 1, &err);
    if (rc) {
        fprintf(stderr, "millaudit dump: %s\n", err.msg);
        ma_open_index_free(ix);
        return rc == MA_ENOMEM ? MA_EXIT_INTERNAL : MA_EXIT_BAD_INPUT;
    }
    const ma_open_header *h = &f.header;
    int w = h->sector.w, b = h->sector.b;
    uint64_t n = h->entry_count, m = ma_open_binomial(MA_POINTS - w, b), bad = 0, canonical = 0;
    uint8_t *orbit = malloc(m);
    if (!orbit) {
        fprintf(stderr, "millaudit dump: out of memory\n");
        ma_open_file_close(&f);
        ma_open_index_free(ix);
        return MA_EXIT_INTERNAL;
    }
    char sec[16];
    ma_sector_format(h->sector, sec, sizeof sec);
    printf("# file: %s\n", path);
    printf("# variant: %s\n", ma_variant_name(h->variant));
    printf("# sector: %s (mover %d on board %d in hand, opponent %d on board %d in hand)\n", sec,
           w, h->sector.wf, b, h->sector.bf);
    char producer[33], producer_version[17];
    printable(h->producer, producer, sizeof producer);
    printable(h->producer_version, producer_version, sizeof producer_version);
    printf("# entries: %" PRIu64 ", producer: %s %s\n", n, producer, producer_version);
    printf("# %s<board> <outcome> <depth>\n", with_entry ? "<entry> " : "");
    for (uint64_t e = 0; e < n; e++) {
        if (e % m == 0)
            ma_open_index_classify(ix, w, b, e / m, orbit);
        uint16_t word = ma_open_file_word(&f, e);
        ma_value v;
        int ok = ma_open_value_decode(word, &v) == 0;
        if (!orbit[e % m]) {
            if (word != 0 && bad++ < MAX_REPORTED)
                fprintf(stderr, "millaudit dump: %s: sector %s: offset %" PRIu64 ": entry %" PRIu64
                        " is non-canonical but holds 0x%04x\n", path, sec,
                        ma_open_file_offset(e), e, word);
            continue;
        }
        canonical++;
        char board[80];
        ma_board_format(ma_open_index_unrank(ix, w, b, e), board, sizeof board);
        if (with_entry)
            printf("%" PRIu64 " ", e);
        if (!ok || v.outcome == MA_OUTCOME_NONE) {
            printf("%s bad 0x%04x\n", board, word);
            if (bad++ < MAX_REPORTED)
                fprintf(stderr, "millaudit dump: %s: sector %s: offset %" PRIu64 ": entry %" PRIu64
                        " (%s): bad encoding 0x%04x\n", path, sec, ma_open_file_offset(e), e,
                        board, word);
        } else if (v.outcome == MA_OUTCOME_DRAW) {
            printf("%s draw -\n", board);
        } else {
            printf("%s %s %u\n", board, v.outcome == MA_OUTCOME_WIN ? "win" : "loss", v.depth);
        }
    }
    free(orbit);
    ma_open_file_close(&f);
    ma_open_index_free(ix);
    int status = bad ? MA_EXIT_MISMATCH : MA_EXIT_OK;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "millaudit dump: cannot write the output\n");
        status = MA_EXIT_IO;
    }
    if (bad)
        fprintf(stderr, "millaudit dump: %s: %" PRIu64 " bad encodings among %" PRIu64
                " entries (%" PRIu64 " canonical)\n", path, bad, n, canonical);
    return status;
}
