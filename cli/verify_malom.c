/*
 * millaudit verify DIR on a Malom directory (see verify_malom.h): every *.sec2 / *.sec sector file
 * of DIR (or the --sector ones) is checked with verifier/malom_check.h against its successor
 * sectors found in DIR, then discrepancies are split into roots and propagated ones.
 * Exit: 0 every entry fully verified (or, with --allow-bounds, nothing contradicts); 1 discrepancies;
 * 3 input unusable or entries only within bounds; 2 usage; 4 audit not writable; 5 internal.
 */
#include "cli/audit_store.h"
#include "cli/cli_util.h"
#include "cli/verify_malom.h"

#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "formats/malom_file.h"
#include "formats/malom_secval.h"
#include "indexer/malom_index.h"
#include "indexer/position.h"
#include "ma_version.h"
#include "reports/audit.h"
#include "verifier/malom_check.h"
#include "verifier/rules.h"

#define TEXT_ROWS 20

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static int malom_named(const char *name)
{
    return has_suffix(name, ".sec2") || has_suffix(name, ".sec");
}

int ma_malom_dir_detect(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int malom = 0, open = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (malom_named(de->d_name))
            malom = 1;
        if (has_suffix(de->d_name, ".mdb"))
            open = 1;
    }
    closedir(d);
    return malom && !open;
}

int ma_verify_malom_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] == '-') {
            if (strchr(a, '='))
                continue;
            if (!strcmp(a, "--sector") || !strcmp(a, "--audit") || !strcmp(a, "--max-rows") ||
                !strcmp(a, "--threads") || !strcmp(a, "--full-board-draw"))
                i++;
            continue;
        }
        if (a[0] == '-')
            continue;
        return ma_malom_dir_detect(a);
    }
    return 0;
}

struct mslot {
    ma_variant variant;
    ma_sector sector;
    char name[40];
    char path[4096];
    int present;
    ma_malom_format format;
    int tried, opened;
    ma_malom_file *file;
    int to_check, checked;
    ma_mcheck_result res;
    const char *status;
    char message[1024];
};

struct mrun {
    const char *dir;
    ma_variant variant;
    ma_malom_format format;
    struct mslot *slots;
    size_t n_slots, cap_slots;
    ma_malom_index *ix;
    ma_malom_secval *secval[4]; /* per variant, when <variant>.secval is in DIR */
    int variants;               /* variants with files in DIR (for the audit record) */
    int json, quiet, unusable;
    char **errors;
    size_t n_errors;
};

static void set_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

static void add_error(struct mrun *r, const char *msg)
{
    char **p = realloc(r->errors, (r->n_errors + 1) * sizeof *p);
    if (!p)
        return;
    r->errors = p;
    r->errors[r->n_errors] = strdup(msg);
    if (r->errors[r->n_errors])
        r->n_errors++;
    if (!r->json)
        fprintf(stderr, "millaudit verify: %s\n", msg);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit verify DIR [--sector S ...] [--audit FILE.sqlite] [--max-rows N]\n"
            "                        [--threads N] [--quiet] [--json]\n"
            "                        [--full-board-draw yes|no] [--allow-bounds]   (Malom DIR)\n"
            "Malom directories (*.sec2 with <variant>.secval or STONE_DIFF, legacy *.sec): every\n"
            "index is checked (markers, index round trip) and every canonical entry re-derived\n"
            "with Malom's value semantics from the successor sectors present in DIR.\n"
            "  --full-board-draw yes|no  a full 12/12 board is a draw (default yes; mora only)\n"
            "  --allow-bounds            exit 0 when nothing contradicts although some entries\n"
            "                            could only be checked within bounds (children absent)\n"
            "exit: 0 all verified, 1 discrepancies, 2 usage, 3 input unusable or only within\n"
            "      bounds, 4 audit not writable, 5 internal error\n");
}

static struct mslot *find_slot(struct mrun *r, ma_variant v, ma_sector s)
{
    for (size_t i = 0; i < r->n_slots; i++)
        if (r->slots[i].variant == v && ma_sector_equal(r->slots[i].sector, s))
            return &r->slots[i];
    return NULL;
}

static struct mslot *add_slot(struct mrun *r, ma_variant v, ma_sector s)
{
    struct mslot *sl = find_slot(r, v, s);
    if (sl)
        return sl;
    if (r->n_slots == r->cap_slots) {
        size_t cap = r->cap_slots ? 2 * r->cap_slots : 64;
        struct mslot *p = realloc(r->slots, cap * sizeof *p);
        if (!p)
            return NULL;
        r->slots = p;
        r->cap_slots = cap;
    }
    sl = &r->slots[r->n_slots++];
    memset(sl, 0, sizeof *sl);
    sl->variant = v;
    sl->sector = s;
    char sec[16];
    ma_sector_format(s, sec, sizeof sec);
    snprintf(sl->name, sizeof sl->name, "%s_%s", ma_variant_name(v), sec);
    const char *ext = r->format == MA_MALOM_SEC ? ".sec" : ".sec2";
    snprintf(sl->path, sizeof sl->path, "%s/%s%s", r->dir, sl->name, ext);
    sl->format = r->format;
    sl->present = access(sl->path, F_OK) == 0;
    return sl;
}

static ma_malom_file *slot_file(struct mrun *r, struct mslot *sl)
{
    if (sl->tried)
        return sl->opened ? sl->file : NULL;
    sl->tried = 1;
    if (!sl->present)
        return NULL;
    ma_error err;
    ma_error_clear(&err);
    int rc = ma_mcheck_prepare_index(r->ix, sl->variant, sl->sector, &err);
    if (!rc)
        rc = r->format == MA_MALOM_SEC
                 ? ma_malom_file_open_sec(&sl->file, sl->path, sl->variant, sl->sector, &err)
                 : ma_malom_file_open_sec2(&sl->file, sl->path, sl->variant, sl->sector,
                                           r->secval[sl->variant], &err);
    if (rc) {
        char sec[16], msg[8400];
        ma_sector_format(sl->sector, sec, sizeof sec);
        if (strstr(err.msg, sl->path))
            set_text(msg, sizeof msg, err.msg);
        else
            snprintf(msg, sizeof msg, "%s: sector %s: offset 0: %s", sl->path, sec, err.msg);
        set_text(sl->message, sizeof sl->message, msg);
        add_error(r, msg);
        r->unusable = 1;
        return NULL;
    }
    sl->opened = 1;
    return sl->file;
}

static int order_children_first(const void *a, const void *b)
{
    const struct mslot *x = *(struct mslot *const *)a, *y = *(struct mslot *const *)b;
    if (x->variant != y->variant)
        return (int)x->variant - (int)y->variant;
    int tx = x->sector.w + x->sector.b + x->sector.wf + x->sector.bf;
    int ty = y->sector.w + y->sector.b + y->sector.wf + y->sector.bf;
    if (tx != ty)
        return tx - ty;
    int hx = x->sector.wf + x->sector.bf, hy = y->sector.wf + y->sector.bf;
    if (hx != hy)
        return hx - hy;
    return strcmp(x->name, y->name);
}

/* Picks variant and format (majority of the files; .sec2 wins a tie), marks the files to check. */
static int scan(struct mrun *r, char **wanted, int n_wanted)
{
    DIR *d = opendir(r->dir);
    if (!d) {
        char msg[8400];
        snprintf(msg, sizeof msg, "%s: sector ?: offset 0: cannot open directory", r->dir);
        add_error(r, msg);
        return MA_EXIT_BAD_INPUT;
    }
    int votes[4][3] = {{0}};
    struct dirent *de;
    while ((de = readdir(d))) {
        ma_variant v;
        ma_sector s;
        ma_malom_format f;
        ma_error e;
        if (!malom_named(de->d_name))
            continue;
        if (ma_malom_file_name_parse(de->d_name, &v, &s, &f, &e) == MA_OK)
            votes[v][f]++;
    }
    int n_fmt[3] = {0, 0, 0};
    for (int v = 1; v <= 3; v++)
        for (int f = 1; f <= 2; f++)
            n_fmt[f] += votes[v][f];
    r->format = n_fmt[MA_MALOM_SEC] > n_fmt[MA_MALOM_SEC2] ? MA_MALOM_SEC : MA_MALOM_SEC2;
    r->variant = MA_VARIANT_STD;
    for (int v = 3; v >= 1; v--)
        if (votes[v][r->format]) {
            r->variant = (ma_variant)v;
            r->variants++;
        }
    rewinddir(d);
    int rc = MA_EXIT_OK;
    while ((de = readdir(d))) {
        ma_variant v;
        ma_sector s;
        ma_malom_format f;
        ma_error e;
        if (!malom_named(de->d_name))
            continue;
        char msg[8400];
        if (ma_malom_file_name_parse(de->d_name, &v, &s, &f, &e)) {
            snprintf(msg, sizeof msg, "%s/%s: sector ?: offset 0: %s", r->dir, de->d_name, e.msg);
            add_error(r, msg);
            r->unusable = 1;
            continue;
        }
        if (f != r->format) {
            snprintf(msg, sizeof msg, "%s/%s: sector ?: offset 0: not checked: this directory holds %s files",
                     r->dir, de->d_name, r->format == MA_MALOM_SEC ? ".sec" : ".sec2");
            add_error(r, msg);
            r->unusable = 1;
            continue;
        }
        if (!ma_sector_valid(v, s)) {
            snprintf(msg, sizeof msg, "%s/%s: sector ?: offset 0: not a sector of %s", r->dir,
                     de->d_name, ma_variant_name(v));
            add_error(r, msg);
            r->unusable = 1;
            continue;
        }
        struct mslot *sl = add_slot(r, v, s);
        if (!sl) {
            rc = MA_EXIT_INTERNAL;
            break;
        }
        if (!n_wanted)
            sl->to_check = 1;
    }
    closedir(d);
    for (int i = 0; rc == MA_EXIT_OK && i < n_wanted; i++) {
        const char *w = wanted[i];
        const char *u = strchr(w, '_');
        ma_variant v = r->variant;
        ma_error e;
        if (u && (w[0] < '0' || w[0] > '9')) {
            char word[8];
            snprintf(word, sizeof word, "%.*s", (int)(u - w < 7 ? u - w : 7), w);
            if (ma_variant_parse(word, &v, &e)) {
                fprintf(stderr, "millaudit verify: --sector %s: unknown variant\n", wanted[i]);
                return MA_EXIT_USAGE;
            }
            w = u + 1;
        }
        ma_sector s;
        if (ma_sector_parse(w, &s, &e) || !ma_sector_valid(v, s)) {
            fprintf(stderr, "millaudit verify: --sector %s: not a sector of %s\n", wanted[i],
                    ma_variant_name(v));
            return MA_EXIT_USAGE;
        }
        struct mslot *sl = add_slot(r, v, s);
        if (!sl)
            return MA_EXIT_INTERNAL;
        sl->to_check = 1;
        if (!sl->present) {
            char msg[8400];
            snprintf(msg, sizeof msg, "%s: sector %s: offset 0: file absent", sl->path, w);
            add_error(r, msg);
            r->unusable = 1;
        }
    }
    return rc;
}

static void format_stored(const struct mslot *sl, const ma_mcheck_item *it, char *buf, size_t len)
{
    if (it->stored.kind == MA_MALOM_SYM) {
        snprintf(buf, len, "marker op %d", it->stored.sym_op);
        return;
    }
    if (it->stored.kind == MA_MALOM_COUNT) {
        snprintf(buf, len, "draw (count %d)", (int)it->stored.key2);
        return;
    }
    ma_malom_value v = {it->stored.key1, it->stored.key2};
    ma_mcheck_format_value(&sl->res.frame, sl->format == MA_MALOM_SEC, v, buf, len);
    size_t l = strlen(buf);
    snprintf(buf + l, len - l, " (%d,%d)", (int)it->stored.key1, (int)it->stored.key2);
}

static void format_derived(const struct mslot *sl, const ma_mcheck_item *it, char *buf, size_t len)
{
    if (it->expected_marker >= 0) {
        snprintf(buf, len, "marker op %d", it->expected_marker);
        return;
    }
    if (it->cls == MA_MCHECK_SYMMETRY) {
        snprintf(buf, len, "a value (canonical index)");
        return;
    }
    const char *pre = it->derived_full ? "" : ">= ";
    char v[64];
    ma_mcheck_format_value(&sl->res.frame, sl->format == MA_MALOM_SEC, it->derived, v, sizeof v);
    snprintf(buf, len, "%s%s (%d,%d)", pre, v, (int)it->derived.key1, (int)it->derived.key2);
}

/* Records the manifest of the bytes this run read: every sector file it opened (checked or used
 * as a child) and the .secval files that gave the sector values. */
static int record_manifest(struct mrun *r, ma_audit *audit, int64_t run_id, ma_error *err)
{
    const char **paths = calloc(r->n_slots + 4, sizeof *paths);
    char secval[4][16];
    if (!paths)
        return ma_error_set(err, MA_ENOMEM, "verify: out of memory");
    size_t n = 0;
    for (size_t i = 0; i < r->n_slots; i++)
        if (r->slots[i].opened)
            paths[n++] = r->slots[i].path;
    for (int v = 1; v <= 3; v++)
        if (r->secval[v]) {
            snprintf(secval[v], sizeof secval[v], "%s.secval", ma_variant_name((ma_variant)v));
            paths[n++] = secval[v];
        }
    int rc = ma_cli_record_read_files(audit, run_id, r->dir, paths, n, err);
    free(paths);
    return rc;
}

static int record_audit(struct mrun *r, ma_audit *audit, int64_t run_id, struct mslot **order,
                        size_t n, size_t max_rows, ma_error *err)
{
    for (size_t i = 0; i < n; i++) {
        struct mslot *sl = order[i];
        ma_class_count cc[MA_MCHECK_CLASSES];
        size_t ncc = 0;
        if (sl->checked)
            for (int c = 0; c < MA_MCHECK_CLASSES; c++)
                if (sl->res.by_class[c]) {
                    cc[ncc].cls = ma_mcheck_class_name(c);
                    cc[ncc++].count = sl->res.by_class[c];
                }
        ma_sector_result sr;
        memset(&sr, 0, sizeof sr);
        sr.sector = sl->name;
        sr.file = sl->path;
        if (sl->checked) {
            sr.entries = sl->res.entries;
            sr.checked = sl->res.entries;
            sr.verified = sl->res.verified;
            sr.within_bounds = sl->res.within_bounds;
            sr.discrepancies = sl->res.discrepancies;
            sr.seconds = sl->res.seconds;
        }
        sr.classes = cc;
        sr.n_classes = ncc;
        sr.status = sl->status ? sl->status : "unusable";
        sr.message = sl->message[0] ? sl->message : NULL;
        int rc = ma_audit_sector_record(audit, run_id, &sr, err);
        if (rc)
            return rc;
        size_t nrows = sl->checked ? sl->res.n_items : 0;
        if (nrows > max_rows)
            nrows = max_rows;
        if (!nrows)
            continue;
        ma_discrepancy *d = calloc(nrows, sizeof *d);
        char (*text)[3][96] = calloc(nrows, sizeof *text);
        if (!d || !text) {
            free(d);
            free(text);
            return ma_error_set(err, MA_ENOMEM, "verify: out of memory");
        }
        for (size_t k = 0; k < nrows; k++) {
            const ma_mcheck_item *it = &sl->res.items[k];
            ma_board b = ma_malom_index_unrank(r->ix, sl->sector.w, sl->sector.b, it->entry);
            ma_board_format(b, text[k][0], sizeof text[k][0]);
            format_stored(sl, it, text[k][1], sizeof text[k][1]);
            format_derived(sl, it, text[k][2], sizeof text[k][2]);
            d[k].sector = sl->name;
            d[k].entry = it->entry;
            d[k].board = text[k][0];
            d[k].stored = text[k][1];
            d[k].derived = text[k][2];
            d[k].cls = ma_mcheck_class_name(it->cls);
        }
        rc = ma_audit_discrepancies_add(audit, run_id, d, nrows, err);
        free(d);
        free(text);
        if (rc)
            return rc;
    }
    return record_manifest(r, audit, run_id, err);
}

static void print_rows(struct mrun *r, const struct mslot *sl, FILE *o, size_t max, int json)
{
    size_t n = sl->res.n_items < max ? sl->res.n_items : max;
    for (size_t k = 0; k < n; k++) {
        const ma_mcheck_item *it = &sl->res.items[k];
        char board[96], st[96], de[96];
        ma_board b = ma_malom_index_unrank(r->ix, sl->sector.w, sl->sector.b, it->entry);
        ma_board_format(b, board, sizeof board);
        format_stored(sl, it, st, sizeof st);
        format_derived(sl, it, de, sizeof de);
        if (json) {
            fprintf(o, "%s{\"entry\":%llu,\"offset\":%llu,\"board\":", k ? "," : "",
                    (unsigned long long)it->entry,
                    (unsigned long long)ma_malom_file_entry_offset(sl->file, it->entry));
            ma_cli_json_string(o, board);
            fprintf(o, ",\"stored\":");
            ma_cli_json_string(o, st);
            fprintf(o, ",\"derived\":");
            ma_cli_json_string(o, de);
            fprintf(o, ",\"class\":\"%s\",\"root\":%s}", ma_mcheck_class_name(it->cls),
                    it->root ? "true" : "false");
        } else {
            fprintf(o, "  entry %llu (offset %llu) %s: stored %s, derived %s: %s (%s)\n",
                    (unsigned long long)it->entry,
                    (unsigned long long)ma_malom_file_entry_offset(sl->file, it->entry), board, st,
                    de, ma_mcheck_class_name(it->cls), it->root ? "root" : "propagated");
        }
    }
}

int ma_verify_malom(int argc, char **argv)
{
    static const struct option opts[] = {
        {"sector", required_argument, NULL, 's'}, {"audit", required_argument, NULL, 'a'},
        {"max-rows", required_argument, NULL, 'm'}, {"threads", required_argument, NULL, 't'},
        {"quiet", no_argument, NULL, 'q'}, {"json", no_argument, NULL, 'j'},
        {"full-board-draw", required_argument, NULL, 'f'},
        {"allow-bounds", no_argument, NULL, 'b'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    struct mrun r;
    memset(&r, 0, sizeof r);
    char **wanted = calloc((size_t)argc + 1, sizeof *wanted);
    int n_wanted = 0, full_board_draw = 1, allow_bounds = 0;
    const char *audit_path = NULL;
    long max_rows = 1000;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1)
        threads = 1;
    if (!wanted)
        return MA_EXIT_INTERNAL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 's': wanted[n_wanted++] = optarg; break;
        case 'a': audit_path = optarg; break;
        case 'm':
            max_rows = strtol(optarg, &end, 10);
            if (*end || end == optarg || max_rows < 0) {
                fprintf(stderr, "millaudit verify: --max-rows %s: not a non-negative number\n", optarg);
                free(wanted);
                return MA_EXIT_USAGE;
            }
            break;
        case 't':
            threads = strtol(optarg, &end, 10);
            if (*end || end == optarg || threads < 1 || threads > 256) {
                fprintf(stderr, "millaudit verify: --threads %s: not a number in 1..256\n", optarg);
                free(wanted);
                return MA_EXIT_USAGE;
            }
            break;
        case 'f':
            if (!strcmp(optarg, "yes"))
                full_board_draw = 1;
            else if (!strcmp(optarg, "no"))
                full_board_draw = 0;
            else {
                fprintf(stderr, "millaudit verify: --full-board-draw %s: expected yes or no\n", optarg);
                free(wanted);
                return MA_EXIT_USAGE;
            }
            break;
        case 'b': allow_bounds = 1; break;
        case 'q': r.quiet = 1; break;
        case 'j': r.json = 1; break;
        case 'h':
            usage(stdout);
            free(wanted);
            return MA_EXIT_OK;
        default:
            fprintf(stderr, "millaudit verify: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            free(wanted);
            return MA_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        free(wanted);
        return MA_EXIT_USAGE;
    }
    char dirbuf[4096];
    snprintf(dirbuf, sizeof dirbuf, "%s", argv[optind]);
    size_t dl = strlen(dirbuf);
    while (dl > 1 && dirbuf[dl - 1] == '/')
        dirbuf[--dl] = 0;
    r.dir = dirbuf;
    double t0 = ma_now();
    ma_progress progress;
    ma_progress_start(&progress, stderr, r.quiet || r.json, "verify", 0);
    ma_error err;
    ma_error_clear(&err);
    int exit_code = MA_EXIT_OK;
    ma_audit *audit = NULL;
    int64_t run_id = 0;
    struct mslot **order = NULL;
    size_t n_order = 0;
    uint64_t t_entries = 0, t_verified = 0, t_bounds = 0, t_disc = 0, t_roots = 0, t_prop = 0,
             t_markers = 0;

    int rc = scan(&r, wanted, n_wanted);
    if (rc == MA_EXIT_USAGE || rc == MA_EXIT_INTERNAL) {
        exit_code = rc;
        goto done;
    }
    if (audit_path) {
        if (ma_audit_open(&audit, audit_path, &err)) {
            add_error(&r, err.msg);
            exit_code = MA_EXIT_IO;
            goto done;
        }
        char host[256], cmdline[8192], root[PATH_MAX];
        ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, argc, argv);
        if (!realpath(r.dir, root))
            snprintf(root, sizeof root, "%s", r.dir);
        ma_run_info info = {"verify", MA_VERSION, MA_GIT_REVISION, host, cmdline, root,
                            r.variants == 1 ? ma_variant_name(r.variant) : NULL,
                            r.format == MA_MALOM_SEC ? "malom-sec" : "malom-sec2"};
        if (ma_audit_run_begin(audit, &info, &run_id, &err)) {
            add_error(&r, err.msg);
            exit_code = MA_EXIT_IO;
            goto done;
        }
    }
    if (rc != MA_EXIT_OK) {
        exit_code = rc;
        goto finish;
    }
    if (ma_malom_index_create(&r.ix, &err)) {
        add_error(&r, err.msg);
        exit_code = ma_exit_code_for(err.code);
        goto finish;
    }
    for (int v = 1; v <= 3 && r.format == MA_MALOM_SEC2; v++) {
        char svpath[4200];
        snprintf(svpath, sizeof svpath, "%s/%s.secval", r.dir, ma_variant_name((ma_variant)v));
        if (access(svpath, F_OK) == 0 &&
            ma_malom_secval_open(&r.secval[v], svpath, (ma_variant)v, &err)) {
            add_error(&r, err.msg);
            r.unusable = 1;
            r.secval[v] = NULL;
        }
    }
    /* Slots may grow while children are added, so keep the set to check as indices. */
    {
        size_t n_check = 0;
        for (size_t i = 0; i < r.n_slots; i++)
            n_check += r.slots[i].to_check;
        size_t *idx = calloc(n_check ? n_check : 1, sizeof *idx);
        if (!idx) {
            exit_code = MA_EXIT_INTERNAL;
            goto finish;
        }
        for (size_t i = 0, k = 0; i < r.n_slots; i++)
            if (r.slots[i].to_check)
                idx[k++] = i;
        for (size_t k = 0; k < n_check; k++) {
            struct mslot *sl = &r.slots[idx[k]];
            if (slot_file(&r, sl)) {
                ma_vrules rules;
                if (ma_vrules_init(&rules, sl->variant, sl->sector, &err) == MA_OK)
                    for (int j = 0; j < MA_TURN_KINDS; j++)
                        if (rules.succ_exists[j]) {
                            size_t off = (size_t)(sl - r.slots);
                            struct mslot *ch = add_slot(&r, sl->variant, rules.succ[j]);
                            sl = &r.slots[off];
                            if (ch)
                                slot_file(&r, ch);
                        }
            }
        }
        order = calloc(n_check ? n_check : 1, sizeof *order);
        if (!order) {
            free(idx);
            exit_code = MA_EXIT_INTERNAL;
            goto finish;
        }
        for (size_t k = 0; k < n_check; k++)
            order[n_order++] = &r.slots[idx[k]];
        free(idx);
    }
    qsort(order, n_order, sizeof *order, order_children_first);
    for (size_t k = 0; k < n_order; k++) {
        struct mslot *sl = order[k];
        if (!sl->opened) {
            sl->status = "unusable";
            continue;
        }
        ma_vrules rules;
        ma_mcheck_input in;
        ma_progress_set_label(&progress, sl->name);
        memset(&in, 0, sizeof in);
        in.ix = r.ix;
        in.file = sl->file;
        in.path = sl->path;
        in.full_board_draw = full_board_draw;
        in.threads = (int)threads;
        in.progress = &progress;
        if (ma_vrules_init(&rules, sl->variant, sl->sector, &err)) {
            add_error(&r, err.msg);
            exit_code = MA_EXIT_INTERNAL;
            goto finish;
        }
        for (int j = 0; j < MA_TURN_KINDS; j++)
            if (rules.succ_exists[j] && !ma_sector_equal(rules.succ[j], sl->sector)) {
                struct mslot *ch = find_slot(&r, sl->variant, rules.succ[j]);
                in.child[j] = ch && ch->opened ? ch->file : NULL;
            }
        if (ma_mcheck_sector(&sl->res, &in, &err)) {
            add_error(&r, err.msg);
            exit_code = ma_exit_code_for(err.code);
            goto finish;
        }
        sl->checked = 1;
        sl->status = sl->res.discrepancies ? "discrepancies"
                     : sl->res.within_bounds ? "incomplete"
                                             : "ok";
        if (sl->res.within_bounds || sl->res.missing_child) {
            char msg[8400], names[256] = "";
            for (int j = 0; j < MA_TURN_KINDS; j++)
                if (sl->res.missing_kind[j]) {
                    char sec[16];
                    ma_sector_format(rules.succ[j], sec, sizeof sec);
                    size_t l = strlen(names);
                    snprintf(names + l, sizeof names - l, "%s%s_%s%s", l ? ", " : "",
                             ma_variant_name(sl->variant), sec,
                             r.format == MA_MALOM_SEC ? ".sec" : ".sec2");
                }
            char sec[16];
            ma_sector_format(sl->sector, sec, sizeof sec);
            snprintf(msg, sizeof msg,
                     "%s: sector %s: offset 0: missing-child: %s absent; %llu entries only within "
                     "bounds",
                     sl->path, sec, names[0] ? names : "(broken successor entries)",
                     (unsigned long long)sl->res.within_bounds);
            set_text(sl->message, sizeof sl->message, msg);
            if (!allow_bounds)
                add_error(&r, msg);
        }
    }
    for (size_t k = 0; k < n_order; k++) {
        struct mslot *sl = order[k];
        if (!sl->checked)
            continue;
        ma_vrules rules;
        const ma_mcheck_result *cres[MA_TURN_KINDS] = {NULL, NULL, NULL, NULL};
        if (ma_vrules_init(&rules, sl->variant, sl->sector, &err) == MA_OK)
            for (int j = 0; j < MA_TURN_KINDS; j++)
                if (rules.succ_exists[j]) {
                    struct mslot *ch = find_slot(&r, sl->variant, rules.succ[j]);
                    cres[j] = ch && ch->checked ? &ch->res : NULL;
                }
        ma_mcheck_input in;
        memset(&in, 0, sizeof in);
        in.ix = r.ix;
        in.file = sl->file;
        in.full_board_draw = full_board_draw;
        in.threads = 1;
        for (int j = 0; j < MA_TURN_KINDS; j++)
            if (rules.succ_exists[j]) {
                struct mslot *ch = find_slot(&r, sl->variant, rules.succ[j]);
                in.child[j] = ch && ch->opened ? ch->file : NULL;
            }
        if (ma_mcheck_classify(&sl->res, &in, cres, &err)) {
            add_error(&r, err.msg);
            exit_code = ma_exit_code_for(err.code);
            goto finish;
        }
        t_entries += sl->res.entries;
        t_markers += sl->res.markers;
        t_verified += sl->res.verified;
        t_bounds += sl->res.within_bounds;
        t_disc += sl->res.discrepancies;
        t_roots += sl->res.roots;
        t_prop += sl->res.propagated;
    }
    if (t_disc)
        exit_code = MA_EXIT_MISMATCH;
    else if (r.unusable)
        exit_code = MA_EXIT_BAD_INPUT;
    else if (t_bounds && !allow_bounds)
        exit_code = MA_EXIT_BAD_INPUT;
    for (size_t k = 0; k < n_order; k++)
        if (!order[k]->checked && exit_code == MA_EXIT_OK)
            exit_code = MA_EXIT_BAD_INPUT;

finish:
    if (audit) {
        if (order && record_audit(&r, audit, run_id, order, n_order, (size_t)max_rows, &err)) {
            add_error(&r, err.msg);
            if (exit_code == MA_EXIT_OK)
                exit_code = MA_EXIT_IO;
        }
        const char *status = exit_code == MA_EXIT_OK         ? "ok"
                             : exit_code == MA_EXIT_MISMATCH ? "discrepancies"
                             : exit_code == MA_EXIT_BAD_INPUT ? "unusable"
                                                              : "interrupted";
        if (ma_audit_run_end(audit, run_id, status, &err)) {
            add_error(&r, err.msg);
            if (exit_code == MA_EXIT_OK)
                exit_code = MA_EXIT_IO;
        }
    }
    {
        double secs = ma_now() - t0;
        const char *fmt = r.format == MA_MALOM_SEC ? "malom-sec" : "malom-sec2";
        if (r.json) {
            FILE *o = stdout;
            fprintf(o, "{\"format\":\"%s\",\"variant\":\"%s\",\"directory\":", fmt,
                    r.variants == 1 ? ma_variant_name(r.variant) : "mixed");
            ma_cli_json_string(o, r.dir);
            fprintf(o, ",\"full_board_draw\":%s,\"allow_bounds\":%s,\"sectors\":[",
                    full_board_draw ? "true" : "false", allow_bounds ? "true" : "false");
            for (size_t k = 0; k < n_order; k++) {
                struct mslot *sl = order[k];
                fprintf(o, "%s{\"sector\":\"%s\",\"file\":", k ? "," : "", sl->name);
                ma_cli_json_string(o, sl->path);
                fprintf(o, ",\"status\":\"%s\"", sl->status ? sl->status : "unusable");
                if (sl->checked) {
                    fprintf(o,
                            ",\"entries\":%llu,\"markers\":%llu,\"canonical\":%llu,\"verified\":%llu,"
                            "\"within_bounds\":%llu,\"bound_wins\":%llu,\"missing_child\":%llu,\"discrepancies\":%llu,"
                            "\"roots\":%llu,\"propagated\":%llu,\"seconds\":%.3f,\"classes\":{",
                            (unsigned long long)sl->res.entries, (unsigned long long)sl->res.markers,
                            (unsigned long long)sl->res.canonical,
                            (unsigned long long)sl->res.verified,
                            (unsigned long long)sl->res.within_bounds,
                            (unsigned long long)sl->res.bound_wins,
                            (unsigned long long)sl->res.missing_child,
                            (unsigned long long)sl->res.discrepancies,
                            (unsigned long long)sl->res.roots, (unsigned long long)sl->res.propagated,
                            sl->res.seconds);
                    int first = 1;
                    for (int j = 0; j < MA_MCHECK_CLASSES; j++)
                        if (sl->res.by_class[j]) {
                            fprintf(o, "%s\"%s\":%llu", first ? "" : ",", ma_mcheck_class_name(j),
                                    (unsigned long long)sl->res.by_class[j]);
                            first = 0;
                        }
                    fprintf(o, "},\"rows\":[");
                    print_rows(&r, sl, o, (size_t)max_rows, 1);
                    fprintf(o, "]");
                }
                if (sl->message[0]) {
                    fprintf(o, ",\"message\":");
                    ma_cli_json_string(o, sl->message);
                }
                fprintf(o, "}");
            }
            fprintf(o,
                    "],\"totals\":{\"entries\":%llu,\"markers\":%llu,\"verified\":%llu,"
                    "\"within_bounds\":%llu,\"discrepancies\":%llu,\"roots\":%llu,"
                    "\"propagated\":%llu},\"seconds\":%.3f,\"errors\":[",
                    (unsigned long long)t_entries, (unsigned long long)t_markers,
                    (unsigned long long)t_verified, (unsigned long long)t_bounds,
                    (unsigned long long)t_disc, (unsigned long long)t_roots,
                    (unsigned long long)t_prop, secs);
            for (size_t i = 0; i < r.n_errors; i++) {
                if (i)
                    fputc(',', o);
                ma_cli_json_string(o, r.errors[i]);
            }
            fprintf(o, "],\"exit\":%d}\n", exit_code);
        } else {
            for (size_t k = 0; k < n_order && !r.quiet; k++) {
                struct mslot *sl = order[k];
                if (!sl->checked) {
                    printf("%s (%s): unusable\n", sl->name, fmt);
                    continue;
                }
                double rate = sl->res.seconds > 0 ? (double)sl->res.entries / sl->res.seconds : 0;
                printf("%s (%s): %llu entries, %llu markers, %llu verified (%llu wins by a known "
                       "successor), %llu within bounds, "
                       "%llu discrepancies (%llu roots, %llu propagated), %.2f s, %.0f entries/s\n",
                       sl->name, fmt, (unsigned long long)sl->res.entries,
                       (unsigned long long)sl->res.markers, (unsigned long long)sl->res.verified,
                       (unsigned long long)sl->res.bound_wins,
                       (unsigned long long)sl->res.within_bounds,
                       (unsigned long long)sl->res.discrepancies, (unsigned long long)sl->res.roots,
                       (unsigned long long)sl->res.propagated, sl->res.seconds, rate);
                print_rows(&r, sl, stdout, TEXT_ROWS, 0);
                if (sl->res.n_items > TEXT_ROWS)
                    printf("  ... %zu more discrepancies\n", sl->res.n_items - TEXT_ROWS);
            }
            printf("total: %zu sectors, %llu entries, %llu fully verified, %llu only within bounds, "
                   "%llu discrepancies (%llu roots, %llu propagated), %.2f s\n",
                   n_order, (unsigned long long)t_entries, (unsigned long long)t_verified,
                   (unsigned long long)t_bounds, (unsigned long long)t_disc,
                   (unsigned long long)t_roots, (unsigned long long)t_prop, secs);
            if (t_bounds)
                printf("NOT fully verified: %llu entries only within bounds (successor sectors "
                       "absent)\n", (unsigned long long)t_bounds);
            printf("result: %s\n", exit_code == MA_EXIT_OK && !t_bounds ? "all entries verified"
                                   : exit_code == MA_EXIT_OK             ? "no contradiction (bounds allowed)"
                                   : exit_code == MA_EXIT_MISMATCH       ? "discrepancies"
                                                                         : "not verified (input unusable or incomplete)");
        }
    }

done:
    if (audit)
        ma_audit_close(audit);
    for (size_t i = 0; i < r.n_slots; i++) {
        if (r.slots[i].checked)
            ma_mcheck_result_free(&r.slots[i].res);
        if (r.slots[i].opened)
            ma_malom_file_close(r.slots[i].file);
    }
    free(r.slots);
    free(order);
    if (r.ix)
        ma_malom_index_free(r.ix);
    for (int v = 0; v < 4; v++)
        if (r.secval[v])
            ma_malom_secval_free(r.secval[v]);
    for (size_t i = 0; i < r.n_errors; i++)
        free(r.errors[i]);
    free(r.errors);
    free(wanted);
    ma_progress_finish(&progress, atomic_load(&progress.done));
    return exit_code;
}
