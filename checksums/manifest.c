/* SHA-256 manifests: listing, writing, reading, provenance, recording (contract in manifest.h). */
#include "checksums/manifest.h"

#include "common/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/audit_manifest.h"

/* ---- listing ---- */

typedef struct path_list {
    char **v;
    size_t n, cap;
} path_list;

static int list_push(path_list *l, char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return 0;
}

void ma_manifest_paths_free(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (s) {
        memcpy(s, a, la);
        s[la] = '/';
        memcpy(s + la + 1, b, lb + 1);
    }
    return s;
}

static int walk(path_list *l, const char *dir, const char *rel, ma_error *err)
{
    char *full = rel ? join(dir, rel) : strdup(dir);
    if (!full)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", dir);
    DIR *d = opendir(full);
    if (!d) {
        int code = (!rel && errno == ENOENT) ? MA_EMISSING : MA_EIO;
        ma_error_set(err, code, "%s: cannot read directory: %s", full, strerror(errno));
        free(full);
        return code;
    }
    int rc = MA_OK;
    struct dirent *e;
    while (rc == MA_OK && (errno = 0, e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *r = rel ? join(rel, e->d_name) : strdup(e->d_name);
        char *p = r ? join(dir, r) : NULL;
        struct stat st;
        if (!r || !p) {
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", full);
        } else if (lstat(p, &st) != 0) {
            rc = ma_error_set(err, MA_EIO, "%s: cannot stat: %s", p, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            rc = walk(l, dir, r, err);
        } else if (S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && stat(p, &st) == 0 && S_ISREG(st.st_mode))) {
            if (list_push(l, r) != 0)
                rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", full);
            else
                r = NULL;
        }
        free(r);
        free(p);
    }
    if (rc == MA_OK && errno != 0)
        rc = ma_error_set(err, MA_EIO, "%s: cannot read directory: %s", full, strerror(errno));
    closedir(d);
    free(full);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int ma_manifest_list(char ***out, size_t *n, const char *dir, const char *const *exclude, size_t n_exclude,
                     ma_error *err)
{
    *out = NULL;
    *n = 0;
    path_list l = {0};
    int rc = walk(&l, dir, NULL, err);
    if (rc != MA_OK) {
        ma_manifest_paths_free(l.v, l.n);
        return rc;
    }
    size_t kept = 0;
    for (size_t i = 0; i < l.n; i++) {
        int skip = 0;
        for (size_t j = 0; j < n_exclude && !skip; j++)
            skip = exclude[j] && !strcmp(l.v[i], exclude[j]);
        if (skip)
            free(l.v[i]);
        else
            l.v[kept++] = l.v[i];
    }
    if (kept)
        qsort(l.v, kept, sizeof *l.v, cmp_str);
    *out = l.v;
    *n = kept;
    return MA_OK;
}

int ma_manifest_relative(char **rel, const char *dir, const char *path, ma_error *err)
{
    *rel = NULL;
    char dreal[PATH_MAX], preal[PATH_MAX];
    if (!realpath(dir, dreal))
        return ma_error_set(err, MA_EIO, "%s: %s", dir, strerror(errno));
    /* Resolve the parent of path (path itself may not exist yet). */
    char *copy = strdup(path);
    if (!copy)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    char *slash = strrchr(copy, '/');
    const char *parent = ".", *base = copy;
    if (slash) {
        *slash = '\0';
        parent = slash == copy ? "/" : copy;
        base = slash + 1;
    }
    int rc = MA_OK;
    if (!realpath(parent, preal)) {
        rc = ma_error_set(err, MA_EIO, "%s: directory %s: %s", path, parent, strerror(errno));
    } else {
        size_t dl = strlen(dreal);
        const char *tail = NULL;
        if (!strcmp(preal, dreal))
            tail = "";
        else if (!strncmp(preal, dreal, dl) && (preal[dl] == '/' || dl == 1))
            tail = preal + (dl == 1 ? 1 : dl + 1);
        if (tail) {
            size_t tl = strlen(tail), bl = strlen(base);
            *rel = malloc(tl + bl + 2);
            if (!*rel)
                rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
            else if (tl)
                snprintf(*rel, tl + bl + 2, "%s/%s", tail, base);
            else
                memcpy(*rel, base, bl + 1);
        }
    }
    free(copy);
    return rc;
}

/* ---- writing ---- */

static int needs_escape(const char *s)
{
    return strpbrk(s, "\\\n\r") != NULL;
}

static int put_name(FILE *f, const char *s, int escape)
{
    for (; *s; s++) {
        int r;
        if (escape && *s == '\\')
            r = fputs("\\\\", f);
        else if (escape && *s == '\n')
            r = fputs("\\n", f);
        else if (escape && *s == '\r')
            r = fputs("\\r", f);
        else
            r = fputc(*s, f);
        if (r == EOF)
            return -1;
    }
    return 0;
}

int ma_manifest_write(const char *out_path, const char *const *paths, const ma_file_digest *digests, size_t n,
                      ma_error *err)
{
    size_t len = strlen(out_path) + 32;
    char *tmp = malloc(len);
    if (!tmp)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", out_path);
    snprintf(tmp, len, "%s.tmp.%ld", out_path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        int rc = ma_error_set(err, MA_EIO, "%s: cannot create: %s", tmp, strerror(errno));
        free(tmp);
        return rc;
    }
    FILE *f = fdopen(fd, "w");
    int ok = f != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        char hex[MA_SHA256_HEX_LEN + 1];
        ma_sha256_hex(hex, digests[i].digest);
        int esc = needs_escape(paths[i]);
        ok = (!esc || fputc('\\', f) != EOF) && fprintf(f, "%s  ", hex) > 0 && put_name(f, paths[i], esc) == 0 &&
             fputc('\n', f) != EOF;
    }
    int saved = 0;
    if (ok && (fflush(f) != 0 || fsync(fd) != 0))
        ok = 0;
    if (!ok)
        saved = errno;
    if (f ? fclose(f) != 0 : close(fd) != 0) {
        if (ok)
            saved = errno;
        ok = 0;
    }
    if (ok && rename(tmp, out_path) != 0) {
        int rc = ma_error_set(err, MA_EIO, "%s: cannot rename %s into place: %s", out_path, tmp, strerror(errno));
        unlink(tmp);
        free(tmp);
        return rc;
    }
    if (!ok) {
        int rc = ma_error_set(err, MA_EIO, "%s: cannot write: %s", tmp, strerror(saved));
        unlink(tmp);
        free(tmp);
        return rc;
    }
    free(tmp);
    /* Make the rename itself durable. */
    char *dir = strdup(out_path);
    if (dir) {
        char *slash = strrchr(dir, '/');
        const char *d = slash ? (slash == dir ? "/" : (*slash = '\0', dir)) : ".";
        int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    return MA_OK;
}

/* ---- reading ---- */

int ma_manifest_path_check(const char *rel, ma_error *err)
{
    if (!*rel)
        return ma_error_set(err, MA_EFORMAT, "empty path");
    if (rel[0] == '/')
        return ma_error_set(err, MA_EFORMAT, "path '%s' is absolute", rel);
    for (const char *p = rel; *p;) {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 2 && p[0] == '.' && p[1] == '.')
            return ma_error_set(err, MA_EFORMAT, "path '%s' climbs out of the directory", rel);
        p += len;
        while (*p == '/')
            p++;
    }
    return MA_OK;
}

void ma_manifest_free(ma_manifest *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++)
        free(m->lines[i].path);
    free(m->lines);
    memset(m, 0, sizeof *m);
}

/* Parses one line (without its newline) into out; returns 0, or -1 if malformed. */
static int parse_line(ma_manifest_line *out, const char *s, size_t len)
{
    int escaped = len > 0 && s[0] == '\\';
    if (escaped) {
        s++;
        len--;
    }
    if (len < MA_SHA256_HEX_LEN + 3 || ma_sha256_parse_hex(out->sha256, s) != MA_OK || s[64] != ' ' ||
        (s[65] != ' ' && s[65] != '*'))
        return -1;
    const char *name = s + 66;
    size_t nlen = len - 66;
    if (memchr(name, '\0', nlen))
        return -1;
    char *path = malloc(nlen + 1);
    if (!path)
        return -1;
    size_t o = 0;
    for (size_t i = 0; i < nlen; i++) {
        char c = name[i];
        if (escaped && c == '\\') {
            if (++i == nlen) {
                free(path);
                return -1;
            }
            c = name[i] == '\\' ? '\\' : name[i] == 'n' ? '\n' : name[i] == 'r' ? '\r' : 0;
            if (!c) {
                free(path);
                return -1;
            }
        }
        path[o++] = c;
    }
    path[o] = '\0';
    out->path = path;
    return 0;
}

int ma_manifest_read(ma_manifest *out, const char *manifest_path, ma_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(manifest_path, "rb");
    if (!f)
        return ma_error_set(err, errno == ENOENT ? MA_EMISSING : MA_EIO, "%s: cannot open: %s", manifest_path,
                            strerror(errno));
    char *buf = NULL;
    size_t cap = 0, cap_lines = 0, lineno = 0;
    ssize_t got;
    int rc = MA_OK;
    while (rc == MA_OK && (got = getline(&buf, &cap, f)) >= 0) {
        lineno++;
        size_t len = (size_t)got;
        if (len && buf[len - 1] == '\n')
            len--;
        if (len && buf[len - 1] == '\r')
            len--;
        ma_manifest_line ln = {.line = lineno};
        if (parse_line(&ln, buf, len) != 0) {
            if (!out->n_malformed++)
                out->first_malformed = lineno;
            continue;
        }
        ma_error pe;
        if (ma_manifest_path_check(ln.path, &pe) != MA_OK) {
            rc = ma_error_set(err, MA_EFORMAT, "%s: line %zu: %s: refused", manifest_path, lineno, pe.msg);
            free(ln.path);
            break;
        }
        if (out->n == cap_lines) {
            size_t nc = cap_lines ? 2 * cap_lines : 64;
            ma_manifest_line *v = realloc(out->lines, nc * sizeof *v);
            if (!v) {
                free(ln.path);
                rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory at line %zu", manifest_path, lineno);
                break;
            }
            out->lines = v;
            cap_lines = nc;
        }
        out->lines[out->n++] = ln;
    }
    if (rc == MA_OK && ferror(f))
        rc = ma_error_set(err, MA_EIO, "%s: read error after line %zu", manifest_path, lineno);
    free(buf);
    fclose(f);
    if (rc != MA_OK)
        ma_manifest_free(out);
    return rc;
}

/* ---- provenance ---- */

static const char *const variant_names[] = {"std", "lask", "mora"};

static int variant_of(const char *s, size_t len)
{
    for (int v = 0; v < 3; v++)
        if (strlen(variant_names[v]) == len && !strncmp(s, variant_names[v], len))
            return v;
    return -1;
}

static void set_fingerprint(ma_file_provenance *p)
{
    uint8_t d[MA_SHA256_LEN];
    ma_sha256_buffer(d, p->ruleset, strlen(p->ruleset));
    ma_sha256_hex(p->fingerprint, d);
}

static void copy_ascii(char *dst, const uint8_t *src, size_t n)
{
    size_t i = 0;
    for (; i < n && src[i]; i++)
        dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
    dst[i] = '\0';
}

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static void open_provenance(ma_file_provenance *out, const char *path)
{
    static const uint8_t magic[8] = {0x89, 'M', 'I', 'L', 'L', 0x0D, 0x0A, 0x1A};
    uint8_t h[128];
    int fd;
    if (ma_file_open_regular(path, &fd, NULL, NULL) != MA_OK)
        return;
    ssize_t got = pread(fd, h, sizeof h, 0);
    close(fd);
    if (got != (ssize_t)sizeof h || memcmp(h, magic, 8) != 0 || le16(h + 8) != 1 || le16(h + 10) != 128 ||
        h[12] < 1 || h[12] > 3)
        return;
    const char *v = variant_names[h[12] - 1];
    snprintf(out->variant, sizeof out->variant, "%s", v);
    snprintf(out->format, sizeof out->format, "open");
    snprintf(out->sector, sizeof out->sector, "%s_%u_%u_%u_%u", v, h[14], h[15], h[16], h[17]);
    copy_ascii(out->producer, h + 32, 32);
    copy_ascii(out->producer_version, h + 64, 16);
    uint64_t entries = 0;
    for (int i = 7; i >= 0; i--)
        entries = entries << 8 | h[24 + i];
    out->has_entries = 1;
    out->entries = entries;
    snprintf(out->ruleset, sizeof out->ruleset, "millaudit-ruleset-1|%s|%u|open-index-%u.%u|open-values-%u", v,
             h[13], le16(h + 20), le16(h + 22), h[19]);
    set_fingerprint(out);
}

static void malom_provenance(ma_file_provenance *out, const char *base)
{
    const char *dot = strrchr(base, '.');
    if (!dot)
        return;
    const char *ext = dot + 1;
    const char *format = !strcmp(ext, "sec2") ? "malom-sec2" : !strcmp(ext, "sec") ? "malom-sec"
                         : !strcmp(ext, "secval") ? "malom-secval" : NULL;
    if (!format)
        return;
    const char *us = memchr(base, '_', (size_t)(dot - base));
    int v = variant_of(base, (size_t)((us ? us : dot) - base));
    if (v < 0)
        return;
    char sector[40] = "";
    if (!strcmp(format, "malom-secval")) {
        if (us)
            return;
    } else {
        unsigned w, b, wf, bf;
        char again[64];
        if (!us || sscanf(us, "_%u_%u_%u_%u.", &w, &b, &wf, &bf) != 4 || w > 24 || b > 24 || wf > 12 || bf > 12)
            return;
        snprintf(again, sizeof again, "%s_%u_%u_%u_%u.%s", variant_names[v], w, b, wf, bf, ext);
        if (strcmp(again, base) != 0) /* leading zeros, trailing junk */
            return;
        snprintf(sector, sizeof sector, "%s_%u_%u_%u_%u", variant_names[v], w, b, wf, bf);
    }
    snprintf(out->variant, sizeof out->variant, "%s", variant_names[v]);
    snprintf(out->format, sizeof out->format, "%s", format);
    snprintf(out->sector, sizeof out->sector, "%s", sector);
    /* Malom's rules: Morabaraba's full board is a draw (rule flag bit 0), as in the open header. */
    snprintf(out->ruleset, sizeof out->ruleset, "millaudit-ruleset-1|%s|%u|malom-index|%s", variant_names[v],
             v == 2 ? 1u : 0u, format);
    set_fingerprint(out);
}

void ma_manifest_provenance(ma_file_provenance *out, const char *path, const char *rel)
{
    memset(out, 0, sizeof *out);
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    size_t len = strlen(base);
    if (len > 4 && !strcmp(base + len - 4, ".mdb"))
        open_provenance(out, path);
    else
        malom_provenance(out, base);
}

/* ---- recording ---- */

static const char *or_null(const char *s)
{
    return *s ? s : NULL;
}

int ma_manifest_record_digests(ma_audit *a, int64_t run_id, const char *root, const char *rel,
                               const ma_file_digest *d, ma_error *err)
{
    char *path = join(root, rel);
    if (!path)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", rel);
    ma_file_provenance p;
    ma_manifest_provenance(&p, path, rel);
    free(path);
    int rc = ma_audit_manifest_begin(a, run_id, NULL, d->chunk_size, err);
    if (rc != MA_OK)
        return rc;
    const ma_audit_manifest_file f = {
        .path = rel, .size = d->size, .sha256 = d->digest, .chunk_size = d->chunk_size,
        .n_chunks = d->n_chunks, .chunks = (const uint8_t (*)[32])d->chunks,
        .variant = or_null(p.variant), .format = or_null(p.format), .sector = or_null(p.sector),
        .producer = or_null(p.producer), .producer_version = or_null(p.producer_version),
        .has_entries = p.has_entries, .entries = p.entries, .ruleset_fingerprint = or_null(p.fingerprint),
    };
    return ma_audit_manifest_file_add(a, run_id, &f, err);
}

int ma_manifest_record(ma_audit *a, int64_t run_id, const char *root, const char *const *rel, size_t n,
                       const ma_sha256_options *opt, ma_error *err)
{
    if (n == 0)
        return MA_OK;
    char **full = calloc(n, sizeof *full);
    ma_file_digest *d = calloc(n, sizeof *d);
    int rc = MA_OK;
    if (!full || !d)
        rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory for %zu files", root, n);
    for (size_t i = 0; rc == MA_OK && i < n; i++)
        if (!(full[i] = join(root, rel[i])))
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", rel[i]);
    if (rc == MA_OK)
        rc = ma_sha256_files(d, NULL, NULL, (const char *const *)full, n, opt, err);
    for (size_t i = 0; rc == MA_OK && i < n; i++)
        rc = ma_manifest_record_digests(a, run_id, root, rel[i], &d[i], err);
    for (size_t i = 0; d && i < n; i++)
        ma_file_digest_free(&d[i]);
    if (full)
        ma_manifest_paths_free(full, n);
    free(d);
    return rc;
}
