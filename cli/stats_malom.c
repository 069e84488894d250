/*
 * millaudit stats DIR on a Malom directory (see stats_malom.h). JSON keys follow cmd_stats.c
 * ("entries", "canonical_entries", "positions", "per_entry"/"per_position" with "wins", "draws",
 * "losses", "win_depths", "loss_depths", "longest_win", "longest_loss", "bad_encodings") plus the
 * Malom figures "markers", "max_depth", "depths" (-1 = draw, as in .analyze) and "akey1".
 */
#include "cli/cli_util.h"
#include "cli/stats_malom.h"

#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_util.h"
#include "common/ma_error.h"
#include "formats/malom_file.h"
#include "formats/malom_secval.h"
#include "indexer/malom_index.h"
#include "indexer/position.h"

#define MAX_DEPTH 4096
#define AKEY_RANGE 2048 /* |A| bound for the akey1 histogram (secval values are far smaller) */

typedef struct mtally {
    uint64_t entries, canonical, positions, markers, bad;
    uint64_t e[3], p[3];                 /* loss, draw, win */
    uint64_t *depth_e, *depth_p;         /* [MAX_DEPTH] wins and losses by depth */
    uint64_t *akey;                      /* [2*AKEY_RANGE+1] */
    int max_depth, longest_win, longest_loss;
} mtally;

typedef struct msector {
    char name[256];
    ma_variant variant;
    ma_sector sector;
    int legacy;
    mtally t;
} msector;

int ma_stats_malom_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sector")) {
            i++;
            continue;
        }
        if (argv[i][0] == '-')
            continue;
        return ma_cli_malom_database(argv[i]);
    }
    return 0;
}

static int tally_init(mtally *t)
{
    memset(t, 0, sizeof *t);
    t->depth_e = calloc(MAX_DEPTH, sizeof *t->depth_e);
    t->depth_p = calloc(MAX_DEPTH, sizeof *t->depth_p);
    t->akey = calloc(2 * AKEY_RANGE + 1, sizeof *t->akey);
    t->max_depth = t->longest_win = t->longest_loss = -1;
    return t->depth_e && t->depth_p && t->akey ? MA_OK : MA_ENOMEM;
}

static void tally_free(mtally *t)
{
    free(t->depth_e);
    free(t->depth_p);
    free(t->akey);
}

static void tally_add(mtally *dst, const mtally *src)
{
    dst->entries += src->entries;
    dst->canonical += src->canonical;
    dst->positions += src->positions;
    dst->markers += src->markers;
    dst->bad += src->bad;
    for (int i = 0; i < 3; i++) {
        dst->e[i] += src->e[i];
        dst->p[i] += src->p[i];
    }
    for (int d = 0; d < MAX_DEPTH; d++) {
        dst->depth_e[d] += src->depth_e[d];
        dst->depth_p[d] += src->depth_p[d];
    }
    for (int a = 0; a < 2 * AKEY_RANGE + 1; a++)
        dst->akey[a] += src->akey[a];
    if (src->max_depth > dst->max_depth)
        dst->max_depth = src->max_depth;
    if (src->longest_win > dst->longest_win)
        dst->longest_win = src->longest_win;
    if (src->longest_loss > dst->longest_loss)
        dst->longest_loss = src->longest_loss;
}

/* Distinct boards in the symmetry class of b. */
static int orbit_size(ma_board b)
{
    ma_board seen[MA_MALOM_SYM_OPS];
    int n = 0;
    for (int op = 0; op < MA_MALOM_SYM_OPS; op++) {
        ma_board x = ma_malom_sym_apply(op, b);
        int dup = 0;
        for (int i = 0; i < n && !dup; i++)
            dup = seen[i].mover == x.mover && seen[i].opp == x.opp;
        if (!dup)
            seen[n++] = x;
    }
    return n;
}

static int tally_file(mtally *t, const ma_malom_file *f, const ma_malom_index *ix)
{
    ma_sector s = ma_malom_file_sector(f);
    ma_malom_frame fr = ma_malom_file_frame(f);
    uint64_t n = ma_malom_file_entry_count(f);
    t->entries = n;
    for (uint64_t i = 0; i < n; i++) {
        ma_malom_entry e;
        ma_malom_file_entry(f, i, &e);
        if (e.kind == MA_MALOM_SYM) {
            t->markers++;
            continue;
        }
        t->canonical++;
        ma_malom_result r;
        if (ma_malom_interpret(&fr, &e, &r)) {
            t->bad++;
            continue;
        }
        uint64_t w = (uint64_t)orbit_size(ma_malom_index_unrank(ix, s.w, s.b, i));
        t->positions += w;
        int o = r.outcome + 1;
        t->e[o]++;
        t->p[o] += w;
        int32_t a = r.draw_class;
        if (a >= -AKEY_RANGE && a <= AKEY_RANGE)
            t->akey[a + AKEY_RANGE]++;
        if (r.outcome == MA_MALOM_DRAW)
            continue;
        int d = r.depth;
        if (d >= MAX_DEPTH) {
            t->bad++;
            continue;
        }
        t->depth_e[d]++;
        t->depth_p[d] += w;
        if (d > t->max_depth)
            t->max_depth = d;
        if (r.outcome == MA_MALOM_WIN && d > t->longest_win)
            t->longest_win = d;
        if (r.outcome == MA_MALOM_LOSS && d > t->longest_loss)
            t->longest_loss = d;
    }
    return MA_OK;
}

static void json_int_or_null(int v)
{
    if (v < 0)
        printf("null");
    else
        printf("%d", v);
}

static void json_view(const mtally *t, int pp)
{
    const uint64_t *c = pp ? t->p : t->e;
    const uint64_t *h = pp ? t->depth_p : t->depth_e;
    printf("{\"wins\": %" PRIu64 ", \"draws\": %" PRIu64 ", \"losses\": %" PRIu64, c[2], c[1], c[0]);
    for (int pass = 0; pass < 2; pass++) {
        printf(", \"%s\": {", pass ? "loss_depths" : "win_depths");
        int first = 1;
        for (int d = pass ? 0 : 1; d <= t->max_depth; d += 2)
            if (h[d]) {
                printf("%s\"%d\": %" PRIu64, first ? "" : ", ", d, h[d]);
                first = 0;
            }
        printf("}");
    }
    printf("}");
}

static void json_tally(const mtally *t, int legacy)
{
    printf("\"entries\": %" PRIu64 ", \"canonical_entries\": %" PRIu64 ", \"positions\": %" PRIu64
           ", \"markers\": %" PRIu64 ", \"per_entry\": ",
           t->entries, t->canonical, t->positions, t->markers);
    json_view(t, 0);
    printf(", \"per_position\": ");
    json_view(t, 1);
    printf(", \"longest_win\": ");
    json_int_or_null(t->longest_win);
    printf(", \"longest_loss\": ");
    json_int_or_null(t->longest_loss);
    printf(", \"max_depth\": ");
    json_int_or_null(t->max_depth);
    printf(", \"depths\": {\"-1\": %" PRIu64, t->e[1]);
    for (int d = 0; d <= t->max_depth; d++)
        printf(", \"%d\": %" PRIu64, d, t->depth_e[d]);
    printf("}");
    if (!legacy) {
        printf(", \"akey1\": {");
        int first = 1;
        for (int a = 0; a < 2 * AKEY_RANGE + 1; a++)
            if (t->akey[a]) {
                printf("%s\"%d\": %" PRIu64, first ? "" : ", ", a - AKEY_RANGE, t->akey[a]);
                first = 0;
            }
        printf("}");
    }
    printf(", \"bad_encodings\": %" PRIu64, t->bad);
}

static void print_text_sector(const char *name, const mtally *t, int legacy)
{
    printf("%s: %" PRIu64 " entries, %" PRIu64 " markers (symmetric entries), %" PRIu64
           " canonical, %" PRIu64 " positions, max depth %d\n",
           name, t->entries, t->markers, t->canonical, t->positions, t->max_depth);
    printf("  per entry:    wins %" PRIu64 ", draws %" PRIu64 ", losses %" PRIu64 "\n", t->e[2],
           t->e[1], t->e[0]);
    printf("  per position: wins %" PRIu64 ", draws %" PRIu64 ", losses %" PRIu64 "\n", t->p[2],
           t->p[1], t->p[0]);
    printf("  depth histogram (-1 = draw)\n  %5s %14s %16s\n", "depth", "entries", "positions");
    printf("  %5d %14" PRIu64 " %16" PRIu64 "\n", -1, t->e[1], t->p[1]);
    for (int d = 0; d <= t->max_depth; d++)
        printf("  %5d %14" PRIu64 " %16" PRIu64 "\n", d, t->depth_e[d], t->depth_p[d]);
    if (!legacy) {
        printf("  A = key1 + v(S) distribution\n");
        for (int a = 0; a < 2 * AKEY_RANGE + 1; a++)
            if (t->akey[a])
                printf("  %5d %14" PRIu64 "\n", a - AKEY_RANGE, t->akey[a]);
    }
    if (t->bad)
        printf("  %" PRIu64 " entries that cannot be a stored value\n", t->bad);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(((const msector *)a)->name, ((const msector *)b)->name);
}

int ma_stats_malom(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                         {"sector", required_argument, NULL, 's'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int json = 0, c, nfilter = 0;
    char **filter = calloc((size_t)argc + 1, sizeof *filter);
    if (!filter)
        return MA_EXIT_INTERNAL;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 's': filter[nfilter++] = optarg; break;
        case 'h':
            printf("usage: millaudit stats DIR [--json] [--sector S ...]\n"
                   "On a Malom directory: Malom's .analyze figures per sector file (max depth,\n"
                   "markers, win/draw/loss, depth histogram with -1 = draw, A distribution for\n"
                   ".sec2) per entry and per position.\n");
            free(filter);
            return MA_EXIT_OK;
        case ':':
            fprintf(stderr, "millaudit stats: option '%s' needs a value\n", argv[optind - 1]);
            free(filter);
            return MA_EXIT_USAGE;
        default:
            fprintf(stderr, "millaudit stats: unknown option '%s' (try --help)\n", argv[optind - 1]);
            free(filter);
            return MA_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "millaudit stats: need exactly one DIR (try --help)\n");
        free(filter);
        return MA_EXIT_USAGE;
    }
    const char *dir = argv[optind];
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "millaudit stats: %s: sector ?: offset 0: cannot open directory\n", dir);
        free(filter);
        return MA_EXIT_BAD_INPUT;
    }
    msector *ss = NULL;
    size_t n = 0, cap = 0;
    int status = MA_EXIT_OK;
    struct dirent *de;
    while ((de = readdir(d))) {
        ma_variant v;
        ma_sector s;
        ma_malom_format f;
        ma_error e;
        size_t len = strlen(de->d_name);
        if (!((len > 5 && !strcmp(de->d_name + len - 5, ".sec2")) ||
              (len > 4 && !strcmp(de->d_name + len - 4, ".sec"))))
            continue;
        if (len >= 256 || ma_malom_file_name_parse(de->d_name, &v, &s, &f, &e)) {
            fprintf(stderr, "millaudit stats: %s/%s: sector ?: offset 0: not a Malom sector file name\n",
                    dir, de->d_name);
            status = MA_EXIT_BAD_INPUT;
            continue;
        }
        if (nfilter) {
            char sec[16], full[40];
            ma_sector_format(s, sec, sizeof sec);
            snprintf(full, sizeof full, "%s_%s", ma_variant_name(v), sec);
            int keep = 0;
            for (int i = 0; i < nfilter; i++)
                keep |= !strcmp(filter[i], sec) || !strcmp(filter[i], full);
            if (!keep)
                continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            msector *p = realloc(ss, cap * sizeof *p);
            if (!p) {
                closedir(d);
                free(ss);
                free(filter);
                return MA_EXIT_INTERNAL;
            }
            ss = p;
        }
        memset(&ss[n], 0, sizeof ss[n]);
        snprintf(ss[n].name, sizeof ss[n].name, "%s", de->d_name);
        ss[n].variant = v;
        ss[n].sector = s;
        ss[n].legacy = f == MA_MALOM_SEC;
        n++;
    }
    closedir(d);
    free(filter);
    if (!n) {
        fprintf(stderr, "millaudit stats: %s: sector ?: offset 0: no Malom sector files\n", dir);
        free(ss);
        return MA_EXIT_BAD_INPUT;
    }
    qsort(ss, n, sizeof *ss, cmp_names);
    ma_error err;
    ma_error_clear(&err);
    ma_malom_index *ix = NULL;
    mtally total;
    int legacy_all = 1;
    if (ma_malom_index_create(&ix, &err) || tally_init(&total)) {
        fprintf(stderr, "millaudit stats: %s\n", err.msg[0] ? err.msg : "out of memory");
        free(ss);
        if (ix)
            ma_malom_index_free(ix);
        return MA_EXIT_INTERNAL;
    }
    size_t done = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, ss[i].name);
        ma_malom_file *f = NULL;
        if (tally_init(&ss[i].t)) {
            status = MA_EXIT_INTERNAL;
            break;
        }
        int rc = ma_malom_index_prepare(ix, ss[i].sector.w, &err);
        if (!rc)
            rc = ma_malom_file_open(&f, path, NULL, &err);
        if (rc) {
            fprintf(stderr, "millaudit stats: %s\n", err.msg);
            if (status == MA_EXIT_OK)
                status = ma_exit_code_for(rc);
            continue;
        }
        tally_file(&ss[i].t, f, ix);
        ma_malom_file_close(f);
        tally_add(&total, &ss[i].t);
        legacy_all &= ss[i].legacy;
        done = i + 1;
        (void)done;
    }
    if (json) {
        printf("{\"directory\": ");
        ma_cli_json_string(stdout, dir);
        printf(",\n \"sectors\": [");
        int first = 1;
        for (size_t i = 0; i < n; i++) {
            if (!ss[i].t.entries)
                continue;
            char sec[16];
            ma_sector_format(ss[i].sector, sec, sizeof sec);
            printf("%s\n  {\"file\": ", first ? "" : ",");
            ma_cli_json_string(stdout, ss[i].name);
            printf(", \"format\": \"%s\", \"variant\": \"%s\", \"sector\": \"%s\", ",
                   ss[i].legacy ? "malom-sec" : "malom-sec2", ma_variant_name(ss[i].variant), sec);
            json_tally(&ss[i].t, ss[i].legacy);
            printf("}");
            first = 0;
        }
        printf("\n ],\n \"totals\": {\"sectors\": %zu, ", n);
        json_tally(&total, legacy_all);
        printf("}}\n");
    } else {
        printf("stats %s: %zu Malom sector file%s\n\n", dir, n, n == 1 ? "" : "s");
        for (size_t i = 0; i < n; i++)
            if (ss[i].t.entries)
                print_text_sector(ss[i].name, &ss[i].t, ss[i].legacy);
        if (n > 1)
            print_text_sector("total", &total, legacy_all);
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "millaudit stats: cannot write the output\n");
        status = MA_EXIT_IO;
    }
    if (total.bad && status == MA_EXIT_OK) {
        fprintf(stderr, "millaudit stats: %s: %" PRIu64 " entries that cannot be stored values\n",
                dir, total.bad);
        status = MA_EXIT_MISMATCH;
    }
    for (size_t i = 0; i < n; i++)
        tally_free(&ss[i].t);
    tally_free(&total);
    free(ss);
    ma_malom_index_free(ix);
    return status;
}
