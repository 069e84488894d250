/* verifier/formats/source: discovery of a database directory and normalised reading of its sectors.
 * This file holds the database (discovery, the cache of opened sectors, opens in advance) and the
 * table of formats: a source's format is decided here once, when its file is opened, and every
 * ma_source_* operation goes through that format's ma_source_ops (verifier/formats/source_internal.h;
 * the formats themselves are source_open.c and source_malom.c). */
#include "verifier/formats/source.h"
#include "verifier/formats/source_internal.h"

#include <stdint.h>

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "checksums/sha256.h"
#include "common/fanout.h"
#include "common/fileio.h"

/* What the database knows about one sector's file beyond its name. */
typedef struct cached {
    int state;        /* 0 not opened, 1 open, 2 failed (err holds why), 3 failed when opened in
                       * advance (ma_database_open_sources) and not yet reported */
    ma_source *src;
    ma_error err;
    int private_read; /* its next open reads the file privately (ma_database_read_privately) */
} cached;

struct ma_database {
    char root[4352];
    char dir[4352];
    ma_format format;
    int no_digest_check;        /* ma_database_options.no_digest_check */
    const volatile sig_atomic_t *cancel; /* ma_database_options.cancel */
    int stamp_mapped;                    /* ma_database_options.stamp_mapped */
    unsigned variants;
    ma_db_sector *sectors;
    cached *cache;              /* parallel to sectors */
    size_t n, cap;
    ma_db_unusable *bad;
    size_t n_bad, cap_bad;
    /* <variant>.secval of a .sec2 database: 0 absent, 1 present (not loaded), 2 loaded, 3 failed */
    int secval_state[4];
    ma_malom_secval *secval[4];
    /* the digests of the very bytes parsed (secval_read: they were read, even if they did not
     * parse), and why the file failed (state 3) */
    ma_file_digest secval_dg[4];
    int secval_read[4];
    ma_error secval_err[4];
    char *aux[4];
    size_t n_aux;
    ma_open_index *oix;
    ma_malom_index *mix;
};

/* The formats, by ma_format: a new format is one more line (and its ma_source_ops). */
static const ma_source_ops *const formats[] = {
    [MA_FORMAT_OPEN] = &ma_source_open_ops,
    [MA_FORMAT_SEC2] = &ma_source_sec2_ops,
    [MA_FORMAT_SEC] = &ma_source_sec_ops,
};
#define N_FORMATS (sizeof formats / sizeof *formats)

const ma_source_ops *ma_source_ops_of(ma_format f)
{
    return (unsigned)f < N_FORMATS ? formats[f] : NULL;
}

const char *ma_format_name(ma_format f)
{
    const ma_source_ops *o = ma_source_ops_of(f);
    return o ? o->name : "unknown";
}

const char *ma_format_suffix(ma_format f)
{
    const ma_source_ops *o = ma_source_ops_of(f);
    return o ? o->suffix : "";
}

int ma_format_parse(const char *name, ma_format *out)
{
    for (size_t f = 0; name && f < N_FORMATS; f++)
        if (formats[f] && !strcmp(formats[f]->name, name)) {
            *out = (ma_format)f;
            return MA_OK;
        }
    return MA_EINVAL;
}

uint64_t ma_format_planned_entries(ma_format f, ma_sector s, const char *path)
{
    const ma_source_ops *o = ma_source_ops_of(f ? f : MA_FORMAT_OPEN);
    return o ? o->planned_entries(s, path) : 0;
}

int ma_format_has_bounds(ma_format f)
{
    const ma_source_ops *o = ma_source_ops_of(f);
    return o && o->bounds;
}

int ma_format_self_digest(ma_format f)
{
    const ma_source_ops *o = ma_source_ops_of(f);
    return o && o->self_digest;
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* The format a name claims by its suffix, 0 for none. ".secval" is not a sector format. */
static ma_format suffix_format(const char *name)
{
    for (size_t f = 0; f < N_FORMATS; f++)
        if (formats[f] && has_suffix(name, formats[f]->suffix))
            return (ma_format)f;
    return 0;
}

static ptrdiff_t find_at(const ma_database *db, ma_variant v, ma_sector s);

int ma_database_file_like(const char *name)
{
    if (suffix_format(name))
        return 1;
    for (size_t f = 0; f < N_FORMATS; f++)
        if (formats[f] && formats[f]->variant_file && has_suffix(name, formats[f]->variant_file))
            return 1;
    return 0;
}

/* ---- names ---- */

/* Splits "<variant>_<sector text>" (the sector text may end in a format suffix). Returns 1 and sets
 * v when text begins with a known variant word and '_', else 0. */
static int split_variant(const char *text, ma_variant *v, const char **rest)
{
    const char *us = strchr(text, '_');
    if (!us || us == text || us - text > 6)
        return 0;
    char word[8];
    memcpy(word, text, (size_t)(us - text));
    word[us - text] = 0;
    if (ma_variant_parse(word, v, NULL) != MA_OK)
        return 0;
    *rest = us + 1;
    return 1;
}

int ma_sector_arg_parse(const char *text, ma_variant *v, int *named_variant, ma_sector *s,
                        ma_error *err)
{
    char shown[96];
    ma_escape_name(text, shown, sizeof shown);
    *named_variant = 0;
    const char *rest = text;
    ma_variant named;
    if (split_variant(text, &named, &rest))
        *named_variant = 1;
    char buf[64];
    size_t len = strlen(rest);
    if (len >= sizeof buf || len == 0)
        goto bad;
    memcpy(buf, rest, len + 1);
    ma_format f = suffix_format(buf);
    if (f)
        buf[len - strlen(ma_format_suffix(f))] = 0;
    /* four decimal numbers separated by '_', nothing else (no signs, spaces or empty fields) */
    int fields = 1;
    for (const char *p = buf; *p; p++) {
        if (*p == '_') {
            if (p == buf || p[1] == 0 || p[1] == '_')
                goto bad;
            fields++;
        } else if (*p < '0' || *p > '9') {
            goto bad;
        }
    }
    if (fields != 4 || ma_sector_parse(buf, s, NULL) != MA_OK)
        goto bad;
    if (*named_variant)
        *v = named;
    return MA_OK;
bad:
    return ma_error_set(err, MA_EINVAL,
                        "'%s': expected W_B_WF_BF or <variant>_W_B_WF_BF (stones on the board and in "
                        "hand of the side to move and of the other side), e.g. 5_4_0_0 or std_5_4_0_0",
                        shown);
}

/* ---- discovery ---- */

static void strip_slashes(char *p)
{
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = 0;
}

static int add_bad(ma_database *db, const char *path, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int add_bad(ma_database *db, const char *path, int code, const char *fmt, ...)
{
    if (db->n_bad == db->cap_bad) {
        size_t cap = db->cap_bad ? 2 * db->cap_bad : 8;
        ma_db_unusable *p = realloc(db->bad, cap * sizeof *p);
        if (!p)
            return MA_ENOMEM;
        db->bad = p;
        db->cap_bad = cap;
    }
    ma_db_unusable *u = &db->bad[db->n_bad++];
    memset(u, 0, sizeof *u);
    snprintf(u->path, sizeof u->path, "%s", path);
    u->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->message, sizeof u->message, fmt, ap);
    va_end(ap);
    for (char *c = u->message; *c; c++) /* one line by contract */
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    return MA_OK;
}

/* A name as discovery saw it. */
typedef struct found {
    char name[256];
    ma_format format;    /* by suffix; 0 for a .secval */
    ma_variant variant;
    ma_sector sector;
    int usable;          /* type and name are fine */
    int broken;          /* a canonical sector name whose file cannot be opened (type, link) */
    char why[1024];      /* then: the message */
} found;

/* Checks the file type without opening (a FIFO must not block). Returns NULL when the name is a
 * regular file (or a symbolic link to one), else the reason. */
static const char *type_problem(const char *path, char *buf, size_t len)
{
    struct stat lst, st;
    if (lstat(path, &lst) != 0) {
        snprintf(buf, len, "cannot stat: %s", strerror(errno));
        return buf;
    }
    if (S_ISLNK(lst.st_mode)) {
        if (stat(path, &st) != 0) {
            if (errno == ENOENT)
                return "dangling symbolic link";
            if (errno == ELOOP)
                return "symbolic link loop";
            snprintf(buf, len, "symbolic link cannot be followed: %s", strerror(errno));
            return buf;
        }
    } else {
        st = lst;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(buf, len, "not a regular file (%s)", ma_file_type_name(st.st_mode));
        return buf;
    }
    return NULL;
}

/* Classifies one directory entry; returns MA_ENOMEM only. Unusable names go to db->bad. */
static int classify_name(ma_database *db, const char *dir, const char *name, found *out)
{
    memset(out, 0, sizeof *out);
    char path[4352], shown[1100], why_buf[256];
    snprintf(path, sizeof path, "%.4000s/%.255s", dir, name);
    ma_escape_name(path, shown, sizeof shown);
    snprintf(out->name, sizeof out->name, "%s", name);
    out->format = suffix_format(name);
    int is_secval = has_suffix(name, ".secval");
    if (!out->format && !is_secval)
        return MA_OK; /* not a database file: manifests, logs, temporary files */
    const char *why = type_problem(path, why_buf, sizeof why_buf);
    if (is_secval) {
        ma_variant v;
        char word[16];
        size_t wl = strlen(name) - strlen(".secval");
        if (wl >= sizeof word || (memcpy(word, name, wl), word[wl] = 0,
                                  ma_variant_parse(word, &v, NULL) != MA_OK))
            return add_bad(db, path, MA_EFORMAT,
                           "%s: file name is not <variant>.secval (std, lask or mora)", shown);
        if (why)
            return add_bad(db, path, MA_EFORMAT, "%s: sector -: offset 0: %s", shown, why);
        out->variant = v;
        out->usable = 1;
        return MA_OK;
    }
    const char *rest;
    ma_variant v;
    ma_sector s;
    char sec_text[64];
    size_t suf = strlen(ma_format_suffix(out->format));
    int named = 0;
    if (split_variant(name, &v, &rest) && strlen(rest) > suf && strlen(rest) - suf < sizeof sec_text) {
        memcpy(sec_text, rest, strlen(rest) - suf);
        sec_text[strlen(rest) - suf] = 0;
        named = ma_sector_parse(sec_text, &s, NULL) == MA_OK;
    }
    if (!named)
        return add_bad(db, path, MA_EFORMAT, "%s: file name is not <variant>_W_B_WF_BF%s", shown,
                       ma_format_suffix(out->format));
    char canon[64], sec[16];
    ma_sector_format(s, sec, sizeof sec);
    snprintf(canon, sizeof canon, "%s_%s%s", ma_variant_name(v), sec, ma_format_suffix(out->format));
    if (strcmp(canon, name) != 0)
        return add_bad(db, path, MA_EFORMAT,
                       "%s: sector %s_%s: offset 0: not the canonical file name %s of its sector; file "
                       "not used",
                       shown, ma_variant_name(v), sec, canon);
    if (!ma_sector_valid(v, s))
        return add_bad(db, path, MA_EFORMAT, "%s: sector %s_%s: offset 0: not a valid %s sector",
                       shown, ma_variant_name(v), sec, ma_variant_name(v));
    out->variant = v;
    out->sector = s;
    if (why) {
        /* the sector's file is there but cannot be read: the database holds the sector, unusable */
        out->broken = 1;
        snprintf(out->why, sizeof out->why, "%.700s: sector %s_%s: offset 0: %.200s", shown,
                 ma_variant_name(v), sec, why);
        return add_bad(db, path, MA_EFORMAT, "%s", out->why);
    }
    out->usable = 1;
    return MA_OK;
}

static int cmp_found(const void *a, const void *b)
{
    return strcmp(((const found *)a)->name, ((const found *)b)->name);
}

static int cmp_sector(const void *a, const void *b)
{
    const ma_db_sector *x = a, *y = b;
    if (x->variant != y->variant)
        return (int)x->variant - (int)y->variant;
    return strcmp(x->name, y->name);
}

static int add_sector(ma_database *db, const found *f)
{
    if (db->n == db->cap) {
        size_t cap = db->cap ? 2 * db->cap : 32;
        ma_db_sector *p = realloc(db->sectors, cap * sizeof *p);
        if (!p)
            return MA_ENOMEM;
        db->sectors = p;
        db->cap = cap;
    }
    ma_db_sector *s = &db->sectors[db->n++];
    memset(s, 0, sizeof *s);
    s->variant = f->variant;
    s->sector = f->sector;
    char sec[16];
    ma_sector_format(f->sector, sec, sizeof sec);
    snprintf(s->name, sizeof s->name, "%s_%s", ma_variant_name(f->variant), sec);
    snprintf(s->file, sizeof s->file, "%s", f->name);
    snprintf(s->path, sizeof s->path, "%.4000s/%.255s", db->dir, f->name);
    db->variants |= 1u << f->variant;
    return MA_OK;
}

/* Lists dir (or takes the one file) into found[]; MA_OK or a fatal error with err set. */
static int list_names(ma_database *db, const char *single, found **out, size_t *n, ma_error *err)
{
    *out = NULL;
    *n = 0;
    char shown[1100];
    ma_escape_name(db->dir, shown, sizeof shown);
    if (single) {
        found *f = calloc(1, sizeof *f);
        if (!f)
            return ma_error_set(err, MA_ENOMEM, "out of memory");
        int rc = classify_name(db, db->dir, single, f);
        if (rc) {
            free(f);
            return ma_error_set(err, rc, "out of memory");
        }
        if (!f->format) {
            free(f);
            char path[1400];
            ma_escape_name(db->root, path, sizeof path);
            /* a manifest given where a database goes: say which command reads it */
            size_t len = strlen(db->root);
            int manifest = len >= 7 && !strcmp(db->root + len - 7, ".sha256");
            return ma_error_set(err, MA_EFORMAT,
                                "%s: not a sector file (<variant>_W_B_WF_BF.mdb, .sec2 or .sec) and "
                                "not a directory%s",
                                path, manifest ? "; a manifest is checked with 'millaudit manifest check'" : "");
        }
        *out = f;
        *n = 1;
        return MA_OK;
    }
    DIR *d = opendir(db->dir);
    if (!d)
        return ma_error_set(err, errno == ENOENT ? MA_EMISSING : MA_EIO,
                            "%s: cannot read directory: %s", shown, strerror(errno));
    size_t cap = 64, cnt = 0;
    found *list = malloc(cap * sizeof *list);
    int rc = list ? MA_OK : MA_ENOMEM;
    struct dirent *de;
    errno = 0;
    while (rc == MA_OK && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (strlen(de->d_name) >= sizeof list[0].name)
            continue; /* no sector or .secval name is that long; not a database file */
        if (cnt == cap) {
            found *p = realloc(list, 2 * cap * sizeof *list);
            if (!p) {
                rc = MA_ENOMEM;
                break;
            }
            list = p;
            cap *= 2;
        }
        snprintf(list[cnt].name, sizeof list[cnt].name, "%s", de->d_name);
        cnt++;
    }
    int read_errno = errno;
    closedir(d);
    if (rc == MA_OK && read_errno)
        rc = ma_error_set(err, MA_EIO, "%s: cannot read directory: %s", shown, strerror(read_errno));
    else if (rc)
        ma_error_set(err, rc, "out of memory");
    if (rc) {
        free(list);
        return rc;
    }
    /* Name order, so unusable files are reported in a stable order on every machine. */
    qsort(list, cnt, sizeof *list, cmp_found);
    for (size_t i = 0; i < cnt && rc == MA_OK; i++) {
        char name[256];
        memcpy(name, list[i].name, sizeof name);
        rc = classify_name(db, db->dir, name, &list[i]);
    }
    if (rc) {
        free(list);
        return ma_error_set(err, rc, "out of memory");
    }
    *out = list;
    *n = cnt;
    return MA_OK;
}

int ma_database_open(ma_database **out, const char *path, const ma_database_options *opt,
                     ma_error *err)
{
    *out = NULL;
    ma_database *db = calloc(1, sizeof *db);
    if (!db)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    char shown[1100];
    ma_escape_name(path, shown, sizeof shown);
    if (strlen(path) >= sizeof db->root - 300) {
        free(db);
        return ma_error_set(err, MA_EINVAL, "%s: path too long", shown);
    }
    snprintf(db->root, sizeof db->root, "%s", path);
    strip_slashes(db->root);
    struct stat st;
    if (stat(db->root, &st) != 0) {
        int e = errno;
        struct stat lst;
        int dangling = e == ENOENT && lstat(db->root, &lst) == 0 && S_ISLNK(lst.st_mode);
        free(db);
        if (dangling)
            return ma_error_set(err, MA_EMISSING, "%s: dangling symbolic link", shown);
        return ma_error_set(err, e == ENOENT ? MA_EMISSING : e == ELOOP ? MA_EFORMAT : MA_EIO,
                            "%s: %s", shown, e == ELOOP ? "symbolic link loop" : strerror(e));
    }
    const char *single = NULL;
    if (S_ISDIR(st.st_mode)) {
        snprintf(db->dir, sizeof db->dir, "%s", db->root);
    } else {
        const char *slash = strrchr(db->root, '/');
        if (slash) {
            snprintf(db->dir, sizeof db->dir, "%.*s", (int)(slash - db->root), db->root);
            if (!db->dir[0])
                snprintf(db->dir, sizeof db->dir, "/");
            single = slash + 1;
        } else {
            snprintf(db->dir, sizeof db->dir, ".");
            single = db->root;
        }
    }
    found *names = NULL;
    size_t n_names = 0;
    int rc = list_names(db, single, &names, &n_names, err);
    if (rc) {
        ma_database_close(db);
        return rc;
    }
    if (single && !names[0].usable) {
        /* the one file given cannot be used: that is the whole database's failure */
        rc = ma_error_set(err, db->bad[0].code, "%s", db->bad[0].message);
        free(names);
        ma_database_close(db);
        return rc;
    }
    /* The database's one format: as asked, else the directory's majority (ties: open, .sec2, .sec). */
    size_t votes[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n_names; i++)
        if (names[i].usable && names[i].format)
            votes[names[i].format]++;
    db->no_digest_check = opt && opt->no_digest_check;
    db->cancel = opt ? opt->cancel : NULL;
    db->stamp_mapped = opt && opt->stamp_mapped;
    ma_format fmt = opt && opt->format ? opt->format : 0;
    if (!fmt)
        for (int f = MA_FORMAT_OPEN; f <= MA_FORMAT_SEC; f++)
            if (votes[f] && (!fmt || votes[f] > votes[fmt]))
                fmt = (ma_format)f;
    db->format = fmt;
    for (size_t i = 0; i < n_names && rc == MA_OK; i++) {
        const found *f = &names[i];
        if (f->broken && f->format == fmt) {
            rc = add_sector(db, f); /* held, but failed: ma_database_source returns f->why */
            continue;
        }
        if (!f->usable)
            continue;
        char p[4352], shown_p[1100];
        snprintf(p, sizeof p, "%.4000s/%.255s", db->dir, f->name);
        ma_escape_name(p, shown_p, sizeof shown_p);
        if (!f->format) { /* a .secval */
            if (ma_source_ops_of(fmt) && ma_source_ops_of(fmt)->variant_file)
                db->secval_state[f->variant] = 1;
            continue; /* beside .sec or .mdb files a .secval is simply not needed */
        }
        if (f->format != fmt) {
            char sec[16];
            ma_sector_format(f->sector, sec, sizeof sec);
            rc = add_bad(db, p, MA_EFORMAT,
                         "%s: sector %s_%s: offset 0: not used: this database holds %s files (one "
                         "format per database)",
                         shown_p, ma_variant_name(f->variant), sec, ma_format_suffix(fmt));
            continue;
        }
        rc = add_sector(db, f);
    }
    /* one .sec2 file given: its <variant>.secval beside it is the database's, read like a listed
     * one (once, from the bytes hashed), never by the reader behind the database's back */
    if (rc == MA_OK && single && ma_source_ops_of(fmt) && ma_source_ops_of(fmt)->variant_file && db->n) {
        ma_variant v = db->sectors[0].variant;
        char p[4400];
        struct stat st;
        snprintf(p, sizeof p, "%.4000s/%s%s", db->dir, ma_variant_name(v), ma_source_ops_of(fmt)->variant_file);
        if (lstat(p, &st) == 0)
            db->secval_state[v] = 1;
    }
    if (rc == MA_OK && db->n) {
        db->cache = calloc(db->n, sizeof *db->cache);
        if (!db->cache)
            rc = MA_ENOMEM;
        else
            qsort(db->sectors, db->n, sizeof *db->sectors, cmp_sector);
    }
    /* sectors whose file is there but cannot be opened fail at once, with discovery's reason */
    for (size_t i = 0; rc == MA_OK && i < n_names; i++) {
        const found *f = &names[i];
        if (!f->broken || f->format != fmt)
            continue;
        ptrdiff_t at = find_at(db, f->variant, f->sector);
        if (at >= 0) {
            db->cache[at].state = 2;
            ma_error_set(&db->cache[at].err, MA_EFORMAT, "%s", f->why);
        }
    }
    free(names);
    if (rc) {
        ma_database_close(db);
        return ma_error_set(err, rc, "out of memory");
    }
    *out = db;
    return MA_OK;
}

static void source_free(ma_source *src)
{
    if (!src)
        return;
    src->ops->close(src);
    free(src);
}

void ma_database_close(ma_database *db)
{
    if (!db)
        return;
    for (size_t i = 0; db->cache && i < db->n; i++)
        source_free(db->cache[i].src);
    for (int v = 0; v < 4; v++) {
        ma_malom_secval_free(db->secval[v]);
        ma_file_digest_free(&db->secval_dg[v]);
    }
    for (size_t i = 0; i < db->n_aux; i++)
        free(db->aux[i]);
    if (db->oix)
        ma_open_index_free(db->oix);
    if (db->mix)
        ma_malom_index_free(db->mix);
    free(db->sectors);
    free(db->cache);
    free(db->bad);
    free(db);
}

const char *ma_database_root(const ma_database *db) { return db->root; }
const char *ma_database_dir(const ma_database *db) { return db->dir; }
ma_format ma_database_format(const ma_database *db) { return db->format; }
unsigned ma_database_variants(const ma_database *db) { return db->variants; }
size_t ma_database_count(const ma_database *db) { return db->n; }
const ma_db_sector *ma_database_sector(const ma_database *db, size_t i) { return &db->sectors[i]; }
size_t ma_database_unusable_count(const ma_database *db) { return db->n_bad; }
const ma_db_unusable *ma_database_unusable(const ma_database *db, size_t i) { return &db->bad[i]; }
int ma_database_has_secval(const ma_database *db, ma_variant v)
{
    return v >= 1 && v <= 3 && db->secval_state[v] != 0;
}

void ma_database_file_name(const ma_database *db, ma_variant v, ma_sector s, char *buf, size_t len)
{
    char sec[16];
    ma_sector_format(s, sec, sizeof sec);
    snprintf(buf, len, "%s_%s%s", ma_variant_name(v), sec,
             ma_format_suffix(db->format ? db->format : MA_FORMAT_OPEN));
}

int ma_database_variant_file(const ma_database *db, ma_variant v, char *buf, size_t len)
{
    const ma_source_ops *o = ma_source_ops_of(db->format);
    if (!o || !o->variant_file)
        return 0;
    snprintf(buf, len, "%s%s", ma_variant_name(v), o->variant_file);
    return 1;
}

size_t ma_database_aux_count(const ma_database *db) { return db->n_aux; }
const char *ma_database_aux(const ma_database *db, size_t i) { return db->aux[i]; }

static ptrdiff_t find_at(const ma_database *db, ma_variant v, ma_sector s)
{
    size_t lo = 0, hi = db->n;
    ma_db_sector key;
    memset(&key, 0, sizeof key);
    key.variant = v;
    char sec[16];
    ma_sector_format(s, sec, sizeof sec);
    snprintf(key.name, sizeof key.name, "%s_%s", ma_variant_name(v), sec);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_sector(&db->sectors[mid], &key);
        if (c == 0)
            return (ptrdiff_t)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

const ma_db_sector *ma_database_find(const ma_database *db, ma_variant v, ma_sector s)
{
    ptrdiff_t i = find_at(db, v, s);
    return i < 0 ? NULL : &db->sectors[i];
}

ma_open_index *ma_database_open_index(ma_database *db, ma_error *err)
{
    if (!db->oix && ma_open_index_create(&db->oix, err) != MA_OK)
        return NULL;
    return db->oix;
}

ma_malom_index *ma_database_malom_index(ma_database *db, ma_error *err)
{
    if (!db->mix && ma_malom_index_create(&db->mix, err) != MA_OK)
        return NULL;
    return db->mix;
}

int ma_database_prepare(ma_database *db, int w, ma_error *err)
{
    ma_open_index *oix = ma_database_open_index(db, err);
    if (!oix)
        return err ? err->code : MA_ENOMEM;
    int rc = ma_open_index_prepare(oix, w, err);
    const ma_source_ops *o = ma_source_ops_of(db->format);
    if (rc || !o || o->open_numbered)
        return rc;
    ma_malom_index *mix = ma_database_malom_index(db, err);
    if (!mix)
        return err ? err->code : MA_ENOMEM;
    return ma_malom_index_prepare(mix, w, err);
}

/* The <variant>.secval a .sec2 sector of variant v is read with: read into memory once, hashed
 * and parsed from those bytes, so the digest a run records (ma_database_secval_digest) is the
 * digest of what every sector of v is read with, whatever happens to the file later; NULL when
 * absent or broken (the sectors that need it then fail: sec2_open, source_malom.c). */
static const ma_malom_secval *secval_for(ma_database *db, ma_variant v)
{
    if (db->secval_state[v] == 1) {
        char path[4400], name[16];
        snprintf(name, sizeof name, "%s.secval", ma_variant_name(v));
        snprintf(path, sizeof path, "%.4000s/%.255s", db->dir, name);
        ma_error e;
        char *buf = NULL;
        size_t len = 0;
        int rc = ma_malom_secval_read(path, &buf, &len, &e);
        if (rc == MA_OK && ma_sha256_buffer_digest(&db->secval_dg[v], buf, len, 0) != MA_OK)
            rc = ma_error_set(&e, MA_ENOMEM, "%s: out of memory", path);
        if (rc == MA_OK) {
            db->secval_read[v] = 1;
            rc = ma_malom_secval_parse(&db->secval[v], path, buf, len, v, &e);
        }
        free(buf);
        if (rc == MA_OK) {
            db->secval_state[v] = 2;
            char *copy = strdup(name);
            if (copy && db->n_aux < 4)
                db->aux[db->n_aux++] = copy;
            else
                free(copy);
        } else {
            db->secval_state[v] = 3;
            db->secval[v] = NULL;
            db->secval_err[v] = e;
            add_bad(db, path, e.code, "%s", e.msg);
        }
    }
    return db->secval_state[v] == 2 ? db->secval[v] : NULL;
}

int ma_database_secval_digest(ma_database *db, ma_variant v, const ma_file_digest **out, ma_error *err)
{
    *out = NULL;
    const ma_source_ops *o = ma_source_ops_of(db->format);
    if (!o || !o->variant_file || v < 1 || v > 3 || !db->secval_state[v])
        return MA_OK;
    secval_for(db, v);
    if (db->secval_read[v]) {
        *out = &db->secval_dg[v];
        return MA_OK;
    }
    if (err)
        *err = db->secval_err[v];
    return db->secval_err[v].code ? db->secval_err[v].code : MA_EIO;
}

/* Puts "<path>: sector <name>: offset 0: " in front of a reader message that lacks the path. */
static void name_the_file(const ma_db_sector *s, ma_error *err)
{
    if (strstr(err->msg, s->path))
        return;
    char shown[1100], msg[sizeof err->msg];
    ma_escape_name(s->path, shown, sizeof shown);
    snprintf(msg, sizeof msg, "%.200s: sector %s: offset 0: %.250s", shown, s->name, err->msg);
    memcpy(err->msg, msg, sizeof msg);
}

/* Opening once the indexes are prepared for s's W and sv is the secval s is read with (NULL
 * unless .sec2): of the database, reads only what these set, so for the Malom formats (whose readers
 * use no index) several of these run at once (ma_database_open_sources). */
static int open_prepared(ma_database *db, const ma_db_sector *s, const ma_malom_secval *sv,
                         ma_source **out, ma_error *err)
{
    ma_source *src = calloc(1, sizeof *src);
    if (!src)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    src->ops = ma_source_ops_of(db->format); /* the source's format, decided once */
    src->format = db->format;
    src->variant = s->variant;
    src->sector = s->sector;
    src->where = s;
    ma_source_open_args a = {db->oix, db->no_digest_check, sv, db->secval_state[s->variant] != 0,
                             db->secval_state[s->variant] == 3 ? db->secval_err[s->variant].msg : NULL,
                             db->cache[s - db->sectors].private_read, db->cancel, db->stamp_mapped};
    int rc = src->ops->open(src, s, &a, err);
    if (rc) {
        free(src);
        name_the_file(s, err);
        return rc;
    }
    src->oix = db->oix;
    src->mix = db->mix;
    *out = src;
    return MA_OK;
}

static int open_source(ma_database *db, const ma_db_sector *s, ma_source **out, ma_error *err)
{
    int rc = ma_database_prepare(db, s->sector.w, err);
    if (rc) {
        name_the_file(s, err);
        return rc;
    }
    const ma_malom_secval *sv =
        ma_source_ops_of(db->format)->variant_file ? secval_for(db, s->variant) : NULL;
    return open_prepared(db, s, sv, out, err);
}

/* Caches the outcome of opening sector i: MA_ENOMEM and MA_ECANCELED (a private read stopped by
 * a signal) are not properties of the file and are not cached; a failure is listed among the
 * unusable files now when report is set, else (state 3) at the first ma_database_source of the
 * sector, where a serial open would have listed it. */
static void cache_outcome(ma_database *db, size_t i, int rc, ma_source *src, const ma_error *e,
                          int report)
{
    cached *c = &db->cache[i];
    if (rc == MA_ENOMEM || rc == MA_ECANCELED)
        return;
    if (rc == MA_OK) {
        c->state = 1;
        c->src = src;
        return;
    }
    c->err = *e;
    c->state = report ? 2 : 3;
    if (report)
        add_bad(db, db->sectors[i].path, rc, "%s", e->msg);
}

typedef struct open_job {
    ma_database *db;
    size_t at; /* in db->sectors */
    const ma_malom_secval *sv;
    ma_source *src;
    ma_error err;
    int rc;
} open_job;

typedef struct open_pool {
    open_job *jobs;
    size_t n;
    atomic_size_t next; /* the next job to take: parts take jobs until none is left */
} open_pool;

static void open_part(void *ctx, unsigned part, unsigned parts)
{
    (void)part;
    (void)parts;
    open_pool *p = ctx;
    for (size_t k; (k = atomic_fetch_add(&p->next, 1)) < p->n;) {
        open_job *j = &p->jobs[k];
        ma_error_clear(&j->err);
        j->src = NULL;
        j->rc = open_prepared(j->db, &j->db->sectors[j->at], j->sv, &j->src, &j->err);
    }
}

void ma_database_open_sources(ma_database *db, const ma_variant *v, const ma_sector *s, size_t n,
                              unsigned threads)
{
    const ma_source_ops *o = ma_source_ops_of(db->format);
    if (threads < 2 || n < 2 || !o || !o->open_in_advance)
        return;
    open_job *jobs = calloc(n, sizeof *jobs);
    size_t m = 0;
    for (size_t k = 0; jobs && k < n; k++) {
        ptrdiff_t i = find_at(db, v[k], s[k]);
        int dup = i < 0 || db->cache[i].state != 0;
        for (size_t q = 0; q < m && !dup; q++)
            dup = jobs[q].at == (size_t)i;
        ma_error e;
        /* what cannot be prepared here is left to ma_database_source, which reports it */
        if (dup || ma_database_prepare(db, s[k].w, &e) != MA_OK)
            continue;
        jobs[m].db = db;
        jobs[m].at = (size_t)i;
        jobs[m].sv = o->variant_file ? secval_for(db, v[k]) : NULL;
        m++;
    }
    if (m >= 2) {
        open_pool pool = {jobs, m, 0};
        ma_fanout(threads < m ? threads : (unsigned)m, open_part, &pool);
        for (size_t k = 0; k < m; k++)
            cache_outcome(db, jobs[k].at, jobs[k].rc, jobs[k].src, &jobs[k].err, 0);
    }
    free(jobs);
}

int ma_database_source(ma_database *db, ma_variant v, ma_sector s, const ma_source **out,
                       ma_error *err)
{
    *out = NULL;
    ptrdiff_t i = find_at(db, v, s);
    if (i < 0) {
        char sec[16], file[40], path[4400], shown[1100];
        ma_sector_format(s, sec, sizeof sec);
        ma_database_file_name(db, v, s, file, sizeof file);
        snprintf(path, sizeof path, "%s/%s", db->dir, file);
        ma_escape_name(path, shown, sizeof shown);
        return ma_error_set(err, MA_EMISSING, "%s: sector %s_%s: sector file absent",
                            shown, ma_variant_name(v), sec);
    }
    cached *c = &db->cache[i];
    if (c->state == 3) {
        c->state = 2;
        add_bad(db, db->sectors[i].path, c->err.code, "%s", c->err.msg);
    }
    if (c->state == 1) {
        *out = c->src;
        return MA_OK;
    }
    if (c->state == 2) {
        if (err)
            *err = c->err;
        return c->err.code;
    }
    ma_error e;
    ma_error_clear(&e);
    ma_source *src = NULL;
    int rc = open_source(db, &db->sectors[i], &src, &e);
    cache_outcome(db, (size_t)i, rc, src, &e, 1);
    if (rc) {
        if (err)
            *err = e;
        return rc;
    }
    *out = c->src;
    return MA_OK;
}

void ma_database_read_privately(ma_database *db, ma_variant v, ma_sector s, int on)
{
    ptrdiff_t i = find_at(db, v, s);
    if (i >= 0)
        db->cache[i].private_read = on;
}

int ma_database_is_open(const ma_database *db, ma_variant v, ma_sector s)
{
    ptrdiff_t i = find_at(db, v, s);
    return i >= 0 && db->cache[i].state == 1;
}

void ma_database_release(ma_database *db, ma_variant v, ma_sector s)
{
    ptrdiff_t i = find_at(db, v, s);
    if (i < 0 || db->cache[i].state != 1)
        return;
    source_free(db->cache[i].src);
    db->cache[i].src = NULL;
    db->cache[i].state = 0;
}

/* ---- one source ---- */

ma_format ma_source_format(const ma_source *src) { return src->format; }
ma_variant ma_source_variant(const ma_source *src) { return src->variant; }
ma_sector ma_source_sector(const ma_source *src) { return src->sector; }
const char *ma_source_name(const ma_source *src) { return src->where->name; }
const char *ma_source_path(const ma_source *src) { return src->where->path; }
uint64_t ma_source_entries(const ma_source *src) { return src->entries; }

const uint8_t *ma_source_bytes(const ma_source *src, size_t *size)
{
    return src->ops->bytes(src, size);
}

const char *ma_source_private_sha256(const ma_source *src)
{
    return src->private_sha256;
}

int ma_source_moved(const ma_source *src, char *why, size_t n)
{
    return src->stamp ? ma_file_stamp_moved(src->where->path, src->stamp, why, n) : 0;
}

void ma_source_drop_pages(const ma_source *src)
{
    if (src->private_sha256)
        return; /* anonymous memory: dropped, it would read back as zeros */
    size_t size = 0;
    const uint8_t *p = ma_source_bytes(src, &size);
    if (p && size) /* a refusal leaves the pages resident: memory, not bytes */
        (void)madvise((void *)p, size, MADV_DONTNEED);
}

ma_source_reader ma_source_reader_of(const ma_source *src) { return src->ops->reader; }

const ma_open_file *ma_source_open_file(const ma_source *src)
{
    return src->ops->reader == MA_READER_OPEN ? &src->of : NULL;
}

const ma_malom_file *ma_source_malom_file(const ma_source *src)
{
    return src->ops->reader == MA_READER_MALOM ? src->mf : NULL;
}

int ma_source_draw_classes(const ma_source *src) { return src->ops->draw_classes; }
int ma_source_full_board_draw_asked(const ma_source *src) { return src->ops->full_board_draw_asked; }
int ma_source_open_numbered(const ma_source *src) { return src->ops->open_numbered; }

int ma_source_same_scheme(const ma_source *a, const ma_source *b)
{
    return a->ops->open_numbered == b->ops->open_numbered;
}

int ma_source_draw_frame(const ma_source *src)
{
    return src->ops->draw_frame(src);
}

uint64_t ma_source_split_unit(const ma_source *src)
{
    uint64_t unit = src->ops->split_unit(src);
    return unit ? unit : 1;
}

uint64_t ma_source_offset(const ma_source *src, uint64_t entry)
{
    return src->ops->offset(src, entry);
}

void ma_source_read(const ma_source *src, uint64_t entry, ma_stored *out)
{
    memset(out, 0, sizeof *out);
    out->marker = -1;
    src->ops->read(src, entry, out);
}

void ma_source_read_range(const ma_source *src, uint64_t first, uint64_t count, ma_stored *out)
{
    src->ops->read_range(src, first, count, out);
}

ma_board ma_source_board(const ma_source *src, uint64_t entry)
{
    return src->ops->board(src->oix, src->mix, src->sector, entry);
}

int ma_source_canonical(const ma_source *src, uint64_t entry)
{
    return src->ops->canonical(src, entry);
}

int ma_source_orbit(const ma_source *src, uint64_t entry)
{
    if (!ma_source_canonical(src, entry))
        return 0;
    /* the orbit of a position under the 16 symmetries does not depend on the index scheme */
    return ma_open_orbit_size(ma_source_board(src, entry));
}

int ma_source_canonical_range(const ma_source *src, uint64_t first, uint64_t count, int orbits,
                              uint8_t *out)
{
    return src->ops->canonical_range(src, first, count, orbits, out);
}

uint64_t ma_source_entry_of(const ma_source *src, ma_board b)
{
    return src->ops->entry_of(src->oix, src->mix, b);
}

void ma_source_describe(const ma_source *src, const ma_stored *v, char *buf, size_t len)
{
    src->ops->describe(src, v, buf, len);
}

ma_scheme ma_source_scheme(const ma_source *src)
{
    return (ma_scheme){src->format, src->oix, src->mix};
}

ma_board ma_scheme_board(const ma_scheme *sc, ma_sector s, uint64_t entry)
{
    return ma_source_ops_of(sc->format)->board(sc->oix, sc->mix, s, entry);
}

uint64_t ma_scheme_entry_of(const ma_scheme *sc, ma_board b)
{
    return ma_source_ops_of(sc->format)->entry_of(sc->oix, sc->mix, b);
}

int ma_scheme_index_create(ma_scheme_index *out, ma_format f, ma_error *err)
{
    memset(out, 0, sizeof *out);
    const ma_source_ops *o = ma_source_ops_of(f);
    if (!o)
        return ma_error_set(err, MA_EINVAL, "index scheme: no format %d", (int)f);
    out->format = f;
    return o->open_numbered ? ma_open_index_create(&out->oix, err) : ma_malom_index_create(&out->mix, err);
}

int ma_scheme_index_prepare(ma_scheme_index *ix, int w, ma_error *err)
{
    if (w < 0 || w > 24 || (ix->prepared >> w & 1))
        return MA_OK;
    int rc = ix->oix ? ma_open_index_prepare(ix->oix, w, err) : ma_malom_index_prepare(ix->mix, w, err);
    if (rc == MA_OK)
        ix->prepared |= 1u << w;
    return rc;
}

ma_scheme ma_scheme_of_index(const ma_scheme_index *ix)
{
    return (ma_scheme){ix->format, ix->oix, ix->mix};
}

void ma_scheme_index_free(ma_scheme_index *ix)
{
    if (!ix)
        return;
    ma_open_index_free(ix->oix);
    ma_malom_index_free(ix->mix);
    memset(ix, 0, sizeof *ix);
}
