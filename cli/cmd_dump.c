/*
 * millaudit dump FILE [--with-entry]: one docs/format.md §6 line per canonical entry, in entry
 * order, after '#' comment lines. FILE is read as a database of one sector (formats/source.h), so
 * open and Malom files dump alike; the walk is run/dump.h. Entries without a value print as
 * "bad <raw>" and are reported on stderr; bytes at a non-canonical entry have no line of their
 * own, so they are reported on stderr only.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/fileio.h"
#include "common/ma_error.h"
#include "common/options.h"
#include "run/dump.h"

#define MAX_REPORTED 20

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit dump FILE [--with-entry] [--no-digest-check]\n"
            "\n"
            "Prints '<board> <outcome> <depth>' for every canonical entry of one sector file (open\n"
            ".mdb, Malom .sec2 or .sec), in entry order (board: mover's points '/' opponent's\n"
            "points, '-' for none; depth '-' for a draw). --with-entry prefixes each line with the\n"
            "entry number. An entry without a value prints as 'bad <raw>' and is reported on stderr.\n"
            "--no-digest-check reads an open-format file whose body fails its header's SHA-256\n"
            "(docs/format.md 5.1; refused by default, exit 3 naming offset 80).\n"
            "\n"
            "exit: 0 ok, 1 bad encodings found, 2 usage, 3 unusable file, 4 output not writable\n");
}

/* Free text from a file header: keep the comment line printable ASCII. */
static void printable(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len; i++)
        out[i] = (in[i] >= 0x20 && in[i] < 0x7F) ? in[i] : '?';
    out[i] = '\0';
}

typedef struct walk {
    const ma_source *src;
    int with_entry;
    uint64_t reported;
    char path[1100];
    char sec[16];
} walk;

static int line(void *ctx, const ma_dump_entry *d)
{
    walk *w = ctx;
    char board[96];
    ma_board_format(d->board, board, sizeof board);
    if (d->canonical) { /* millions of lines: no format string to parse per line */
        if (w->with_entry)
            printf("%" PRIu64 " ", d->entry);
        fputs(board, stdout);
        putchar(' ');
        fputs(d->value, stdout);
        putchar('\n');
    }
    if (d->bad && w->reported++ < MAX_REPORTED) {
        if (d->canonical)
            fprintf(stderr, "millaudit dump: %s: sector %s: offset %" PRIu64 ": entry %" PRIu64 " (%s): %s\n",
                    w->path, w->sec, d->offset, d->entry, board, d->problem);
        else
            fprintf(stderr, "millaudit dump: %s: sector %s: offset %" PRIu64 ": entry %" PRIu64 " %s\n",
                    w->path, w->sec, d->offset, d->entry, d->problem);
    }
    return MA_OK;
}

int ma_cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {
        {"with-entry", no_argument, NULL, 'e'},
        {"no-digest-check", no_argument, NULL, 'D'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int with_entry = 0, c;
    ma_database_options dbo = {0};
    optind = 1;
    while ((c = ma_opt_next("dump", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'e': with_entry = 1; break;
        case 'D': dbo.no_digest_check = 1; break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default:
            return MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (argc - optind != 1) {
        return ma_opt_error("dump", "need exactly one FILE");
    }
    const char *path = argv[optind];
    ma_error err;
    ma_database *db;
    int rc = ma_database_open(&db, path, &dbo, &err);
    if (rc) {
        fprintf(stderr, "millaudit dump: %s\n", err.msg);
        return ma_exit_code_for(rc);
    }
    walk w = {0};
    w.with_entry = with_entry;
    ma_escape_name(ma_database_root(db), w.path, sizeof w.path);
    if (!strcmp(ma_database_root(db), ma_database_dir(db))) {
        fprintf(stderr, "millaudit dump: %s: not a regular file (directory): dump reads one sector file\n",
                w.path);
        ma_database_close(db);
        return MA_EXIT_BAD_INPUT;
    }
    const ma_db_sector *d = ma_database_sector(db, 0);
    if ((rc = ma_database_source(db, d->variant, d->sector, &w.src, &err)) != MA_OK) {
        fprintf(stderr, "millaudit dump: %s\n", err.msg);
        ma_database_close(db);
        return ma_exit_code_for(rc);
    }
    ma_escape_name(ma_source_path(w.src), w.path, sizeof w.path);
    ma_sector s = ma_source_sector(w.src);
    ma_sector_format(s, w.sec, sizeof w.sec);
    uint64_t n = ma_source_entries(w.src), canonical = 0, bad = 0;
    printf("# file: %s\n", w.path);
    printf("# variant: %s\n", ma_variant_name(ma_source_variant(w.src)));
    printf("# sector: %s (mover %d on board %d in hand, opponent %d on board %d in hand)\n", w.sec,
           s.w, s.wf, s.b, s.bf);
    const ma_open_file *of = ma_source_open_file(w.src);
    if (of) {
        char producer[33], producer_version[17];
        printable(of->header.producer, producer, sizeof producer);
        printable(of->header.producer_version, producer_version, sizeof producer_version);
        printf("# entries: %" PRIu64 ", producer: %s %s\n", n, producer, producer_version);
    } else {
        printf("# entries: %" PRIu64 ", format: %s\n", n, ma_format_name(ma_source_format(w.src)));
    }
    printf("# %s<board> <outcome> <depth>\n", with_entry ? "<entry> " : "");
    rc = ma_dump_walk(w.src, line, &w, &canonical, &bad, &err);
    ma_database_close(db);
    if (rc) {
        fprintf(stderr, "millaudit dump: %s\n", err.msg);
        return ma_exit_code_for(rc);
    }
    int status = bad ? MA_EXIT_MISMATCH : MA_EXIT_OK;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "millaudit dump: cannot write the output\n");
        status = MA_EXIT_IO;
    }
    if (bad)
        fprintf(stderr, "millaudit dump: %s: %" PRIu64 " bad encodings among %" PRIu64
                " entries (%" PRIu64 " canonical)\n", w.path, bad, n, canonical);
    return status;
}
