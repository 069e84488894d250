/*
 * millaudit stats DIR [--json] [--sector S ...]: per-sector statistics of an open-format database.
 *
 * Counts are given two ways: per stored entry (what the file holds) and per position (every
 * canonical entry weighted by its orbit size), because only the second is independent of the index
 * scheme: every distinct board of a sector counts once, so two databases of one game built with
 * different symmetry folding must agree on it.
 */
#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/ma_error.h"
#include "common/progress.h"
#include "formats/open_file.h"
#include "indexer/open_index.h"
#include "indexer/position.h"

#define DEPTHS 16384
#define MAX_FILTER 256

enum { H_WIN_E, H_LOSS_E, H_WIN_P, H_LOSS_P, H_KINDS };

/* One non-empty histogram bin: counts of wins/losses at one depth, per entry and per position. */
typedef struct bin {
    uint16_t depth;
    uint64_t n[H_KINDS];
} bin;

typedef struct tally {
    uint64_t entries, canonical, positions, bad;
    uint64_t e_win, e_draw, e_loss, p_win, p_draw, p_loss;
    int longest_win, longest_loss; /* -1 when none */
} tally;

typedef struct sector_stats {
    char name[256];
    ma_variant variant;
    ma_sector sector;
    tally t;
    bin *bins;
    size_t nbins;
    int is_start;
    uint16_t start_word;
} sector_stats;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit stats DIR [--json] [--sector W_B_WF_BF ...]\n"
            "\n"
            "For every <variant>_W_B_WF_BF.mdb in DIR (sorted by sector): entries, canonical entries,\n"
            "wins/draws/losses and depth histograms counted per stored entry and per position (each\n"
            "canonical entry weighted by its orbit size), the longest win and loss, bad encodings,\n"
            "and the start value when DIR holds a start sector (W=B=0). --sector (repeatable, or\n"
            "comma-separated) restricts to the given sectors. --json prints one JSON document.\n"
            "\n"
            "exit: 0 ok, 1 bad encodings found, 2 usage, 3 unusable input\n");
}

static void tally_init(tally *t)
{
    memset(t, 0, sizeof *t);
    t->longest_win = t->longest_loss = -1;
}

static void tally_add(tally *sum, const tally *t)
{
    sum->entries += t->entries;
    sum->canonical += t->canonical;
    sum->positions += t->positions;
    sum->bad += t->bad;
    sum->e_win += t->e_win;
    sum->e_draw += t->e_draw;
    sum->e_loss += t->e_loss;
    sum->p_win += t->p_win;
    sum->p_draw += t->p_draw;
    sum->p_loss += t->p_loss;
    if (t->longest_win > sum->longest_win)
        sum->longest_win = t->longest_win;
    if (t->longest_loss > sum->longest_loss)
        sum->longest_loss = t->longest_loss;
}

/* Reads one file into st; hist is scratch of H_KINDS * DEPTHS counters (zero on entry and exit). */
static int scan_file(const char *path, ma_open_index *ix, sector_stats *st, uint64_t *hist,
                     ma_error *err)
{
    ma_open_file f;
    int rc = ma_open_file_map(&f, path, ix, 1, err);
    if (rc)
        return rc;
    const ma_open_header *h = &f.header;
    int w = h->sector.w, b = h->sector.b;
    uint64_t n = h->entry_count, m = ma_open_binomial(MA_POINTS - w, b);
    uint8_t *orbit = malloc(m);
    if (!orbit) {
        ma_open_file_close(&f);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    }
    tally *t = &st->t;
    tally_init(t);
    t->entries = n;
    ma_progress pr;
    ma_progress_start(&pr, stderr, 0, st->name, n);
    for (uint64_t e = 0; e < n; e++) {
        if (e % m == 0) {
            ma_open_index_classify(ix, w, b, e / m, orbit);
            ma_progress_update(&pr, e);
        }
        uint16_t word = ma_open_file_word(&f, e);
        uint8_t size = orbit[e % m];
        if (!size) {
            if (word)
                t->bad++;
            continue;
        }
        t->canonical++;
        t->positions += size;
        ma_value v;
        if (ma_open_value_decode(word, &v) != 0 || v.outcome == MA_OUTCOME_NONE) {
            t->bad++;
            continue;
        }
        switch (v.outcome) {
        case MA_OUTCOME_WIN:
            t->e_win++;
            t->p_win += size;
            hist[H_WIN_E * DEPTHS + v.depth]++;
            hist[H_WIN_P * DEPTHS + v.depth] += size;
            if (v.depth > t->longest_win)
                t->longest_win = v.depth;
            break;
        case MA_OUTCOME_LOSS:
            t->e_loss++;
            t->p_loss += size;
            hist[H_LOSS_E * DEPTHS + v.depth]++;
            hist[H_LOSS_P * DEPTHS + v.depth] += size;
            if (v.depth > t->longest_loss)
                t->longest_loss = v.depth;
            break;
        default:
            t->e_draw++;
            t->p_draw += size;
            break;
        }
    }
    ma_progress_finish(&pr, n);
    free(orbit);
    if (w == 0 && b == 0) {
        st->is_start = 1;
        st->start_word = ma_open_file_word(&f, 0);
    }
    ma_open_file_close(&f);
    size_t nb = 0;
    for (int d = 0; d < DEPTHS; d++)
        for (int k = 0; k < H_KINDS; k++)
            if (hist[k * DEPTHS + d]) {
                nb++;
                break;
            }
    st->bins = calloc(nb ? nb : 1, sizeof *st->bins);
    if (!st->bins)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    st->nbins = 0;
    for (int d = 0; d < DEPTHS; d++) {
        int any = 0;
        for (int k = 0; k < H_KINDS; k++)
            any |= hist[k * DEPTHS + d] != 0;
        if (!any)
            continue;
        bin *bn = &st->bins[st->nbins++];
        bn->depth = (uint16_t)d;
        for (int k = 0; k < H_KINDS; k++) {
            bn->n[k] = hist[k * DEPTHS + d];
            hist[k * DEPTHS + d] = 0;
        }
    }
    return MA_OK;
}

static int cmp_stats(const void *a, const void *b)
{
    const sector_stats *x = a, *y = b;
    int kx[5] = {x->variant, x->sector.w, x->sector.b, x->sector.wf, x->sector.bf};
    int ky[5] = {y->variant, y->sector.w, y->sector.b, y->sector.wf, y->sector.bf};
    for (int i = 0; i < 5; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

static void json_int_or_null(int v)
{
    if (v < 0)
        printf("null");
    else
        printf("%d", v);
}

/* One counting view ("per_entry" or "per_position") with its histograms. */
static void json_view(const tally *t, const bin *bins, size_t nbins, int per_position)
{
    int kw = per_position ? H_WIN_P : H_WIN_E, kl = per_position ? H_LOSS_P : H_LOSS_E;
    printf("{\"wins\": %" PRIu64 ", \"draws\": %" PRIu64 ", \"losses\": %" PRIu64,
           per_position ? t->p_win : t->e_win, per_position ? t->p_draw : t->e_draw,
           per_position ? t->p_loss : t->e_loss);
    for (int pass = 0; pass < 2; pass++) {
        int k = pass ? kl : kw;
        printf(", \"%s\": {", pass ? "loss_depths" : "win_depths");
        int first = 1;
        for (size_t i = 0; i < nbins; i++)
            if (bins[i].n[k]) {
                printf("%s\"%u\": %" PRIu64, first ? "" : ", ", bins[i].depth, bins[i].n[k]);
                first = 0;
            }
        printf("}");
    }
    printf("}");
}

static void json_tally(const tally *t, const bin *bins, size_t nbins)
{
    printf("\"entries\": %" PRIu64 ", \"canonical_entries\": %" PRIu64 ", \"positions\": %" PRIu64
           ", \"per_entry\": ", t->entries, t->canonical, t->positions);
    json_view(t, bins, nbins, 0);
    printf(", \"per_position\": ");
    json_view(t, bins, nbins, 1);
    printf(", \"longest_win\": ");
    json_int_or_null(t->longest_win);
    printf(", \"longest_loss\": ");
    json_int_or_null(t->longest_loss);
    printf(", \"bad_encodings\": %" PRIu64, t->bad);
}

static void start_value(uint16_t word, char *buf, size_t len, ma_value *v)
{
    if (ma_open_value_decode(word, v) != 0 || v->outcome == MA_OUTCOME_NONE)
        snprintf(buf, len, "bad 0x%04x", word);
    else
        ma_value_format(*v, buf, len);
}

static void print_json(const char *dir, const sector_stats *ss, size_t n, const tally *total,
                       const bin *tbins, size_t ntbins)
{
    printf("{\"directory\": ");
    ma_cli_json_string(stdout, dir);
    printf(",\n \"sectors\": [");
    for (size_t i = 0; i < n; i++) {
        char sec[16];
        ma_sector_format(ss[i].sector, sec, sizeof sec);
        printf("%s\n  {\"file\": ", i ? "," : "");
        ma_cli_json_string(stdout, ss[i].name);
        printf(", \"variant\": \"%s\", \"sector\": \"%s\", ", ma_variant_name(ss[i].variant), sec);
        json_tally(&ss[i].t, ss[i].bins, ss[i].nbins);
        printf("}");
    }
    printf("\n ],\n \"totals\": {\"sectors\": %zu, ", n);
    json_tally(total, tbins, ntbins);
    printf("},\n \"start\": [");
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (!ss[i].is_start)
            continue;
        char sec[16], val[32];
        ma_value v;
        ma_sector_format(ss[i].sector, sec, sizeof sec);
        start_value(ss[i].start_word, val, sizeof val, &v);
        printf("%s{\"variant\": \"%s\", \"sector\": \"%s\", \"value\": \"%s\"}", first ? "" : ", ",
               ma_variant_name(ss[i].variant), sec, val);
        first = 0;
    }
    printf("]}\n");
}

static void print_hist(const char *title, const bin *bins, size_t nbins)
{
    if (!nbins)
        return;
    printf("\ndepth histogram %s\n", title);
    printf("  %-7s %5s %14s %16s\n", "outcome", "depth", "entries", "positions");
    for (int pass = 0; pass < 2; pass++) {
        int ke = pass ? H_LOSS_E : H_WIN_E, kp = pass ? H_LOSS_P : H_WIN_P;
        for (size_t i = 0; i < nbins; i++)
            if (bins[i].n[ke] || bins[i].n[kp])
                printf("  %-7s %5u %14" PRIu64 " %16" PRIu64 "\n", pass ? "loss" : "win",
                       bins[i].depth, bins[i].n[ke], bins[i].n[kp]);
    }
}

static void print_depth(int d)
{
    if (d < 0)
        printf(" %8s", "-");
    else
        printf(" %8d", d);
}

static void print_row(const char *name, const tally *t)
{
    printf("%-20s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64, name,
           t->entries, t->canonical, t->e_win, t->e_draw, t->e_loss);
    print_depth(t->longest_win);
    print_depth(t->longest_loss);
    printf(" %6" PRIu64 "\n", t->bad);
}

static void print_text(const char *dir, const sector_stats *ss, size_t n, const tally *total,
                       const bin *tbins, size_t ntbins)
{
    printf("stats %s: %zu sector file%s\n\n", dir, n, n == 1 ? "" : "s");
    printf("per stored entry:\n");
    printf("%-20s %12s %12s %12s %12s %12s %8s %8s %6s\n", "sector", "entries", "canonical", "wins",
           "draws", "losses", "max-win", "max-loss", "bad");
    for (size_t i = 0; i < n; i++)
        print_row(ss[i].name, &ss[i].t);
    if (n > 1)
        print_row("total", total);
    printf("\nper position (canonical entries weighted by orbit size):\n");
    printf("%-20s %14s %14s %14s %14s\n", "sector", "positions", "wins", "draws", "losses");
    for (size_t i = 0; i < n; i++)
        printf("%-20s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n", ss[i].name,
               ss[i].t.positions, ss[i].t.p_win, ss[i].t.p_draw, ss[i].t.p_loss);
    if (n > 1)
        printf("%-20s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n", "total",
               total->positions, total->p_win, total->p_draw, total->p_loss);
    for (size_t i = 0; i < n; i++)
        print_hist(ss[i].name, ss[i].bins, ss[i].nbins);
    if (n > 1)
        print_hist("total", tbins, ntbins);
    for (size_t i = 0; i < n; i++) {
        if (!ss[i].is_start)
            continue;
        char val[32];
        ma_value v;
        start_value(ss[i].start_word, val, sizeof val, &v);
        printf("\nstart %s: %s\n", ss[i].name, val);
    }
    if (total->bad)
        printf("\n%" PRIu64 " bad encodings\n", total->bad);
}

/* Adds the comma-separated sectors of text to filter. */
static int add_filter(const char *text, ma_sector *filter, int *nfilter)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        ma_error err;
        if (*nfilter >= MAX_FILTER || ma_sector_parse(tok, &filter[*nfilter], &err)) {
            fprintf(stderr, "millaudit stats: %s\n",
                    *nfilter >= MAX_FILTER ? "too many --sector values" : err.msg);
            return -1;
        }
        (*nfilter)++;
    }
    return 0;
}

#include "cli/stats_malom.h"

int ma_cmd_stats(int argc, char **argv)
{
    if (ma_stats_malom_wanted(argc, argv)) /* *.sec2 / *.sec and no *.mdb in DIR */
        return ma_stats_malom(argc, argv);
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"sector", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, c, nfilter = 0;
    ma_sector filter[MAX_FILTER];
    int found[MAX_FILTER] = {0};
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 's':
            if (add_filter(optarg, filter, &nfilter))
                return MA_EXIT_USAGE;
            break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        case ':':
            fprintf(stderr, "millaudit stats: option '%s' needs a value\n", argv[optind - 1]);
            return MA_EXIT_USAGE;
        default:
            fprintf(stderr, "millaudit stats: unknown option '%s' (try --help)\n", argv[optind - 1]);
            return MA_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "millaudit stats: need exactly one DIR (try --help)\n");
        return MA_EXIT_USAGE;
    }
    const char *dir = argv[optind];
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "millaudit stats: %s: sector ?: offset 0: cannot open directory\n", dir);
        return MA_EXIT_BAD_INPUT;
    }
    sector_stats *ss = NULL;
    size_t n = 0, cap = 0;
    int status = MA_EXIT_OK;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name), sl = strlen(MA_OPEN_SUFFIX);
        /* Temporary files of a producer (§5.4) do not end in .mdb and are not sectors yet. */
        if (len <= sl || strcmp(de->d_name + len - sl, MA_OPEN_SUFFIX))
            continue;
        ma_variant v;
        ma_sector s;
        if (ma_open_file_name_parse(de->d_name, &v, &s) != MA_OK) {
            fprintf(stderr, "millaudit stats: %s/%s: sector ?: offset 0: not a "
                    "<variant>_W_B_WF_BF.mdb name\n", dir, de->d_name);
            status = MA_EXIT_BAD_INPUT;
            break;
        }
        int keep = nfilter == 0;
        for (int i = 0; i < nfilter; i++)
            if (ma_sector_equal(filter[i], s))
                keep = found[i] = 1;
        if (!keep)
            continue;
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            sector_stats *grown = realloc(ss, ncap * sizeof *ss);
            if (!grown) {
                status = MA_EXIT_INTERNAL;
                break;
            }
            ss = grown;
            cap = ncap;
        }
        memset(&ss[n], 0, sizeof ss[n]);
        snprintf(ss[n].name, sizeof ss[n].name, "%s", de->d_name);
        ss[n].variant = v;
        ss[n].sector = s;
        n++;
    }
    closedir(d);
    for (int i = 0; i < nfilter && status == MA_EXIT_OK; i++)
        if (!found[i]) {
            char sec[16];
            ma_sector_format(filter[i], sec, sizeof sec);
            fprintf(stderr, "millaudit stats: %s: sector %s: offset 0: no file for this sector\n",
                    dir, sec);
            status = MA_EXIT_BAD_INPUT;
        }
    if (status == MA_EXIT_OK && n == 0) {
        fprintf(stderr, "millaudit stats: %s: sector ?: offset 0: no .mdb files\n", dir);
        status = MA_EXIT_BAD_INPUT;
    }
    if (status != MA_EXIT_OK) {
        free(ss);
        return status;
    }
    qsort(ss, n, sizeof *ss, cmp_stats);

    ma_open_index *ix = NULL;
    ma_error err;
    uint64_t *hist = calloc((size_t)H_KINDS * DEPTHS, sizeof *hist);
    uint64_t *thist = calloc((size_t)H_KINDS * DEPTHS, sizeof *thist);
    tally total;
    tally_init(&total);
    if (!hist || !thist || ma_open_index_create(&ix, &err)) {
        fprintf(stderr, "millaudit stats: out of memory\n");
        status = MA_EXIT_INTERNAL;
    }
    for (size_t i = 0; i < n && status == MA_EXIT_OK; i++) {
        char path[4096 + 64];
        snprintf(path, sizeof path, "%s/%s", dir, ss[i].name);
        int rc = scan_file(path, ix, &ss[i], hist, &err);
        if (rc) {
            fprintf(stderr, "millaudit stats: %s\n", err.msg);
            status = rc == MA_ENOMEM ? MA_EXIT_INTERNAL : MA_EXIT_BAD_INPUT;
            break;
        }
        tally_add(&total, &ss[i].t);
        for (size_t j = 0; j < ss[i].nbins; j++)
            for (int k = 0; k < H_KINDS; k++)
                thist[k * DEPTHS + ss[i].bins[j].depth] += ss[i].bins[j].n[k];
    }
    if (status == MA_EXIT_OK) {
        /* The total histogram in the same sparse form as the per-sector ones. */
        bin *tbins = calloc(DEPTHS, sizeof *tbins);
        size_t nt = 0;
        if (!tbins) {
            status = MA_EXIT_INTERNAL;
        } else {
            for (int dd = 0; dd < DEPTHS; dd++) {
                int any = 0;
                for (int k = 0; k < H_KINDS; k++)
                    any |= thist[k * DEPTHS + dd] != 0;
                if (!any)
                    continue;
                tbins[nt].depth = (uint16_t)dd;
                for (int k = 0; k < H_KINDS; k++)
                    tbins[nt].n[k] = thist[k * DEPTHS + dd];
                nt++;
            }
            if (json)
                print_json(dir, ss, n, &total, tbins, nt);
            else
                print_text(dir, ss, n, &total, tbins, nt);
            free(tbins);
            if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "millaudit stats: cannot write the output\n");
                status = MA_EXIT_IO;
            } else if (total.bad) {
                fprintf(stderr, "millaudit stats: %s: %" PRIu64 " bad encodings\n", dir, total.bad);
                status = MA_EXIT_MISMATCH;
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        free(ss[i].bins);
    free(ss);
    free(hist);
    free(thist);
    ma_open_index_free(ix);
    return status;
}
