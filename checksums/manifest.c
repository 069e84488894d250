/* SHA-256 manifests: listing, writing, reading, merging (contract in manifest.h). */
#include "checksums/manifest.h"
#include "checksums/published.h"

#include "common/counts.h"
#include "common/fileio.h"
#include "common/output.h"

#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


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

/* recurse 0: the top of dir only, its subdirectories never opened */
static int walk(path_list *l, const char *dir, const char *rel, int recurse, ma_error *err)
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
            if (recurse)
                rc = walk(l, dir, r, recurse, err);
        } else if (!rel && ma_manifest_is_shard_name(e->d_name, NULL, NULL)) {
            /* another shard's manifest (manifest create --shard): a manifest never lists a manifest */
        } else if (ma_manifest_is_temp_name(e->d_name)) {
            /* a half-written file of a writer (ours or the solver's): never sealed in a manifest */
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

/* Digits only, at least one, up to the end. */
static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

int ma_manifest_is_shard_name(const char *base, unsigned *index, unsigned *count)
{
    static const char pre[] = "MANIFEST.shard-", suf[] = ".sha256";
    size_t lb = strlen(base), lp = sizeof pre - 1, ls = sizeof suf - 1;
    if (lb <= lp + ls || strncmp(base, pre, lp) || strcmp(base + lb - ls, suf))
        return 0;
    char mid[64];
    if (lb - lp - ls >= sizeof mid)
        return 0;
    memcpy(mid, base + lp, lb - lp - ls);
    mid[lb - lp - ls] = '\0';
    char *of = strstr(mid, "-of-");
    if (!of)
        return 0;
    *of = '\0';
    if (!all_digits(mid) || !all_digits(of + 4) || strlen(mid) > 6 || strlen(of + 4) > 6)
        return 0;
    unsigned i = (unsigned)strtoul(mid, NULL, 10), n = (unsigned)strtoul(of + 4, NULL, 10);
    if (n < 1 || i >= n)
        return 0;
    if (index)
        *index = i;
    if (count)
        *count = n;
    return 1;
}

int ma_manifest_is_temp_name(const char *base)
{
    const char *t = strstr(base, ".tmp");
    for (; t; t = strstr(t + 1, ".tmp")) {
        const char *rest = t + 4;
        if (rest[0] == '.' && all_digits(rest + 1) && t != base)
            return 1; /* <name>.tmp.<pid>: manifest create, solve */
        if (strlen(rest) == 6 && t != base) {
            int alnum = 1;
            for (int i = 0; i < 6; i++) {
                char c = rest[i];
                alnum &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            }
            if (alnum)
                return 1; /* <name>.tmpXXXXXX: mkstemp of report --out */
        }
    }
    return 0;
}

int ma_manifest_remove_stale_temps(const char *out_path, size_t *removed, ma_error *err)
{
    *removed = 0;
    char *dir = strdup(out_path);
    if (!dir)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", out_path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : out_path;
    const char *d = slash ? (slash == dir ? "/" : (*slash = '\0', dir)) : ".";
    size_t bl = strlen(base);
    DIR *dh = opendir(d);
    if (!dh) {
        free(dir);
        return MA_OK; /* nothing to clean where nothing can be listed; writing will say why */
    }
    int rc = MA_OK;
    struct dirent *e;
    while ((e = readdir(dh)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, base, bl) || strncmp(n + bl, ".tmp.", 5) || !all_digits(n + bl + 5))
            continue;
        errno = 0;
        char *end;
        long pid = strtol(n + bl + 5, &end, 10);
        /* Only files of processes that no longer exist: a live writer's file is its own. */
        if (errno || pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char *full = join(d, n);
        if (!full) {
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", d);
            break;
        }
        struct stat st;
        if (lstat(full, &st) == 0 && S_ISREG(st.st_mode) && unlink(full) == 0)
            (*removed)++;
        free(full);
    }
    closedir(dh);
    free(dir);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_files(char ***out, size_t *n, const char *dir, const char *const *exclude, size_t n_exclude,
                      int recurse, ma_error *err)
{
    *out = NULL;
    *n = 0;
    path_list l = {0};
    int rc = walk(&l, dir, NULL, recurse, err);
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

int ma_manifest_list(char ***out, size_t *n, const char *dir, const char *const *exclude, size_t n_exclude,
                     ma_error *err)
{
    return list_files(out, n, dir, exclude, n_exclude, 1, err);
}

int ma_manifest_list_top(char ***out, size_t *n, const char *dir, const char *const *exclude, size_t n_exclude,
                         ma_error *err)
{
    return list_files(out, n, dir, exclude, n_exclude, 0, err);
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

static int write_lines(FILE *f, const char *header, const char *const *paths, const ma_file_digest *digests,
                       size_t n, int chunk_lines)
{
    int ok = !header || fprintf(f, "# %s\n", header) > 0;
    for (size_t i = 0; ok && i < n; i++) {
        if (chunk_lines && ma_chunk_line_write(f, &digests[i]) != 0)
            return 0;
        char hex[MA_SHA256_HEX_LEN + 1];
        ma_sha256_hex(hex, digests[i].digest);
        int esc = needs_escape(paths[i]);
        ok = (!esc || fputc('\\', f) != EOF) && fprintf(f, "%s  ", hex) > 0 && put_name(f, paths[i], esc) == 0 &&
             fputc('\n', f) != EOF;
    }
    return ok;
}

int ma_manifest_write_stream(FILE *f, const char *name, const char *const *paths, const ma_file_digest *digests,
                             size_t n, ma_error *err)
{
    return ma_manifest_write_stream_header(f, name, NULL, paths, digests, n, err);
}

int ma_manifest_write_stream_header(FILE *f, const char *name, const char *header, const char *const *paths,
                                    const ma_file_digest *digests, size_t n, ma_error *err)
{
    if (!write_lines(f, header, paths, digests, n, 0) || fflush(f) != 0)
        return ma_error_set(err, MA_EIO, "%s: write failed: %s", name, strerror(errno));
    return MA_OK;
}

int ma_manifest_write(const char *out_path, const char *const *paths, const ma_file_digest *digests, size_t n,
                      ma_error *err)
{
    return ma_manifest_write_header(out_path, NULL, paths, digests, n, err);
}

int ma_manifest_write_header(const char *out_path, const char *header, const char *const *paths,
                             const ma_file_digest *digests, size_t n, ma_error *err)
{
    return ma_manifest_write_chunked(out_path, NULL, out_path, header, 0, paths, digests, n, err);
}

int ma_manifest_write_chunked(const char *out_path, FILE *stream, const char *name, const char *header,
                              int chunk_lines, const char *const *paths, const ma_file_digest *digests, size_t n,
                              ma_error *err)
{
    if (!out_path) {
        if (!write_lines(stream, header, paths, digests, n, chunk_lines) || fflush(stream) != 0)
            return ma_error_set(err, MA_EIO, "%s: write failed: %s", name ? name : "(output)", strerror(errno));
        return MA_OK;
    }
    /* Built in memory, then written by common/output: a regular file atomically (<out>.tmp.<pid>,
     * fsync, rename, directory fsync), a device or FIFO written through; errors name out_path. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", out_path);
    int ok = write_lines(f, header, paths, digests, n, chunk_lines);
    if (fclose(f) != 0)
        ok = 0;
    int rc = ok && buf ? ma_output_write(out_path, buf, len, err) : ma_error_set(err, MA_ENOMEM, "%s: out of memory", out_path);
    free(buf);
    return rc;
}

/* ---- reading ---- */

int ma_manifest_path_check(const char *rel, ma_error *err)
{
    if (!*rel)
        return ma_error_set(err, MA_EFORMAT, "empty path");
    if (rel[0] == '/')
        return ma_error_set(err, MA_EFORMAT, "path '%s' is absolute", rel);
    /* ".." is refused only where it leaves the directory ("../a", "sub/../../a"), as sha256sum -c
     * reads "sub/../a.mdb" as a.mdb; the depth is counted by name, never by following links. */
    long depth = 0;
    for (const char *p = rel; *p;) {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0)
                return ma_error_set(err, MA_EFORMAT, "path '%s' climbs out of the directory", rel);
        } else if (len && !(len == 1 && p[0] == '.')) {
            depth++;
        }
        p += len;
        while (*p == '/')
            p++;
    }
    return MA_OK;
}

char *ma_manifest_path_normalise(const char *rel)
{
    size_t len = strlen(rel);
    char *out = malloc(len + 2);
    if (!out)
        return NULL;
    size_t o = 0;
    for (const char *p = rel; *p;) {
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            /* back to the end of the previous component (ma_manifest_path_check: never above) */
            while (o && out[o - 1] != '/')
                o--;
            if (o)
                o--;
        } else if (n && !(n == 1 && p[0] == '.')) {
            if (o)
                out[o++] = '/';
            memcpy(out + o, p, n);
            o += n;
        }
        p += n;
        while (*p == '/')
            p++;
    }
    if (!o)
        out[o++] = '.'; /* "./" names the directory itself, which then cannot be read as a file */
    out[o] = '\0';
    return out;
}

void ma_manifest_free(ma_manifest *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        free(m->lines[i].path);
        free(m->lines[i].name);
    }
    free(m->lines);
    free(m->malformed);
    for (size_t i = 0; i < m->n_chunk_records; i++)
        ma_chunk_record_free(&m->chunk_records[i]);
    free(m->chunk_records);
    memset(m, 0, sizeof *m);
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Unescapes name[0..n) of an escaped line (coreutils: "\\" and "\n", and "\r" as we write it) into
 * a malloc'd string; NULL if an escape is unknown or a NUL byte is present, and NULL with *oom set
 * when memory runs out (not a malformed line: the caller stops). */
static char *take_name(const char *name, size_t n, int escaped, int *oom)
{
    if (memchr(name, '\0', n))
        return NULL;
    char *path = malloc(n + 1);
    if (!path) {
        *oom = 1;
        return NULL;
    }
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (escaped && c == '\\') {
            if (++i == n) {
                free(path);
                return NULL;
            }
            c = name[i] == '\\' ? '\\' : name[i] == 'n' ? '\n' : name[i] == 'r' ? '\r' : 0;
            if (!c) {
                free(path);
                return NULL;
            }
        }
        path[o++] = c;
    }
    path[o] = '\0';
    return path;
}

/* Parses one line (without its line end) as sha256sum -c does (coreutils 9.1, split_3): leading
 * blanks skipped; an optional '\' marks an escaped name; then either the BSD form
 * "SHA256 (<name>) = <64 hex>" or "<64 hex><blank><name>" where one ' ' or '*' right after the
 * blank is the text/binary indicator. Fills out->name; returns 0, -1 if malformed, -2 out of memory. */
static int parse_line(ma_manifest_line *out, const char *s, size_t len)
{
    int oom = 0;
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    int escaped = len > 0 && s[0] == '\\';
    if (escaped)
        s++, len--;
    static const char tag[] = "SHA256 (";
    const size_t tl = sizeof tag - 1;
    if (len > tl && !memcmp(s, tag, tl)) {
        /* The name runs to the last ") = " followed by exactly the digest. */
        if (len < tl + 4 + MA_SHA256_HEX_LEN + 1)
            return -1;
        const char *hex = s + len - MA_SHA256_HEX_LEN;
        if (memcmp(hex - 4, ") = ", 4) != 0)
            return -1;
        for (int i = 0; i < MA_SHA256_HEX_LEN; i++)
            if (!is_hex(hex[i]))
                return -1;
        size_t nlen = (size_t)(hex - 4 - (s + tl));
        if (!nlen || ma_sha256_parse_hex(out->sha256, hex) != MA_OK)
            return -1;
        return (out->name = take_name(s + tl, nlen, escaped, &oom)) ? 0 : oom ? -2 : -1;
    }
    if (len < MA_SHA256_HEX_LEN + 2)
        return -1;
    for (int i = 0; i < MA_SHA256_HEX_LEN; i++)
        if (!is_hex(s[i]))
            return -1;
    if (ma_sha256_parse_hex(out->sha256, s) != MA_OK)
        return -1;
    size_t i = MA_SHA256_HEX_LEN;
    if (s[i] != ' ' && s[i] != '\t')
        return -1;
    i++;
    if (i < len && (s[i] == ' ' || s[i] == '*'))
        i++;
    if (i >= len)
        return -1;
    return (out->name = take_name(s + i, len - i, escaped, &oom)) ? 0 : oom ? -2 : -1;
}

static int note_malformed(ma_manifest *m, size_t *cap, size_t lineno)
{
    if (m->n_malformed == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        size_t *v = realloc(m->malformed, nc * sizeof *v);
        if (!v)
            return -1;
        m->malformed = v;
        *cap = nc;
    }
    if (!m->n_malformed)
        m->first_malformed = lineno;
    m->malformed[m->n_malformed++] = lineno;
    return 0;
}

/* "# millaudit manifest shard I/N" (the first comment that says so counts) */
static void parse_shard_header(ma_manifest *m, const char *line, size_t l)
{
    static const char pre[] = "# millaudit manifest shard ";
    size_t lp = sizeof pre - 1;
    char buf[32];
    if (m->shard_count || l <= lp || l - lp >= sizeof buf || strncmp(line, pre, lp))
        return;
    memcpy(buf, line + lp, l - lp);
    buf[l - lp] = '\0';
    if (buf[l - lp - 1] == '\r')
        buf[l - lp - 1] = '\0';
    char *slash = strchr(buf, '/');
    if (!slash)
        return;
    *slash = '\0';
    if (!all_digits(buf) || !all_digits(slash + 1) || strlen(buf) > 6 || strlen(slash + 1) > 6)
        return;
    unsigned i = (unsigned)strtoul(buf, NULL, 10), n = (unsigned)strtoul(slash + 1, NULL, 10);
    if (n >= 1 && i < n) {
        m->shard_index = i;
        m->shard_count = n;
        m->shard_line = 1;
    }
}

/* A "# millaudit-chunks" line is kept (checksums/published.h); any other comment, or a malformed
 * chunk line, is a comment as sha256sum reads it. Returns -1 out of memory. */
static int note_chunk_line(ma_manifest *m, const char *line, size_t l)
{
    ma_chunk_record rec;
    int got = ma_chunk_line_parse(&rec, line, l);
    if (got <= 0)
        return got;
    ma_chunk_record *v = realloc(m->chunk_records, (m->n_chunk_records + 1) * sizeof *v);
    if (!v) {
        ma_chunk_record_free(&rec);
        return -1;
    }
    m->chunk_records = v;
    v[m->n_chunk_records++] = rec;
    return 0;
}

int ma_manifest_parse(ma_manifest *out, const char *text, size_t len, const char *name, ma_error *err)
{
    memset(out, 0, sizeof *out);
    size_t cap_lines = 0, cap_bad = 0, lineno = 0;
    int rc = MA_OK;
    for (size_t pos = 0; rc == MA_OK && pos < len;) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - line) : len - pos;
        pos += l + (nl != NULL);
        lineno++;
        /* As coreutils: '#' in the first column is a comment; one CR before the LF is dropped;
         * empty lines are skipped. Neither counts as improperly formatted. */
        if (l && line[0] == '#') {
            parse_shard_header(out, line, l);
            if (note_chunk_line(out, line, l) != 0)
                rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory at line %zu", name, lineno);
            continue;
        }
        if (l && line[l - 1] == '\r')
            l--;
        if (!l)
            continue;
        ma_manifest_line ln = {.line = lineno};
        int parsed = parse_line(&ln, line, l);
        if (parsed == -2) {
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory at line %zu", name, lineno);
            break;
        }
        if (parsed != 0) {
            if (note_malformed(out, &cap_bad, lineno) != 0)
                rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory at line %zu", name, lineno);
            continue;
        }
        ma_error pe;
        if (ma_manifest_path_check(ln.name, &pe) != MA_OK) {
            char shown[256];
            ma_escape_name(pe.msg, shown, sizeof shown);
            rc = ma_error_set(err, MA_EFORMAT, "%s: line %zu: %s: refused", name, lineno, shown);
            free(ln.name);
            break;
        }
        if (!(ln.path = ma_manifest_path_normalise(ln.name))) {
            free(ln.name);
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory at line %zu", name, lineno);
            break;
        }
        if (out->n == cap_lines) {
            size_t nc = cap_lines ? 2 * cap_lines : 64;
            ma_manifest_line *v = realloc(out->lines, nc * sizeof *v);
            if (!v) {
                free(ln.path);
                free(ln.name);
                rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory at line %zu", name, lineno);
                break;
            }
            out->lines = v;
            cap_lines = nc;
        }
        out->lines[out->n++] = ln;
    }
    if (rc != MA_OK)
        ma_manifest_free(out);
    return rc;
}

/* Reads everything from fd (a regular file, a pipe or a terminal) into a malloc'd buffer. */
static int slurp_fd(int fd, const char *name, char **out, size_t *len, ma_error *err)
{
    size_t n = 0, cap = 0;
    char *buf = NULL;
    for (;;) {
        if (n == cap) {
            if (cap >= MA_MANIFEST_MAX_BYTES) {
                free(buf);
                return ma_error_set(err, MA_EFORMAT, "%s: offset %zu: larger than %d MiB, not a manifest", name, n,
                                    (int)(MA_MANIFEST_MAX_BYTES >> 20));
            }
            cap = cap ? 2 * cap : 65536;
            char *p = realloc(buf, cap);
            if (!p) {
                free(buf);
                return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
            }
            buf = p;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            return ma_error_set(err, MA_EIO, "%s: offset %zu: cannot read: %s", name, n, strerror(e));
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    *out = buf;
    *len = n;
    return MA_OK;
}

int ma_manifest_read(ma_manifest *out, const char *manifest_path, ma_error *err)
{
    memset(out, 0, sizeof *out);
    const int is_stdin = !strcmp(manifest_path, "-");
    char shown[512];
    ma_escape_name(is_stdin ? "(standard input)" : manifest_path, shown, sizeof shown);
    int fd;
    int rc = ma_file_open_stream(manifest_path, &fd, err);
    if (rc != MA_OK)
        return rc;
    char *text = NULL;
    size_t len = 0;
    rc = slurp_fd(fd, shown, &text, &len, err);
    if (!is_stdin)
        close(fd);
    if (rc == MA_OK)
        rc = ma_manifest_parse(out, text ? text : "", len, shown, err);
    free(text);
    return rc;
}

int ma_manifest_looks_like(const char *path)
{
    if (!strcmp(path, "-"))
        return 0;
    int fd = -1;
    ma_error err;
    struct stat st;
    if (ma_file_open_regular(path, &fd, &st, &err) != MA_OK)
        return 0;
    char head[68];
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    if (n == 0)
        return 1;
    if (n < 1)
        return 0;
    if (head[0] == '#')
        return 1;
    size_t off = head[0] == '\\';
    if ((size_t)n < off + 65)
        return 0;
    for (size_t i = off; i < off + 64; i++)
        if (!strchr("0123456789abcdefABCDEF", head[i]))
            return 0;
    return head[off + 64] == ' ';
}

/* ---- the files of a merged manifest ---- */

int ma_manifest_merged_sizes(uint64_t *sizes, const char *root, const ma_manifest_merged *m, ma_error *err)
{
    int rc = MA_OK;
    for (size_t i = 0; rc == MA_OK && i < m->n; i++) {
        char *path = join(root, m->paths[i]);
        struct stat st;
        if (!path)
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", m->paths[i]);
        else if (stat(path, &st) != 0)
            rc = ma_error_set(err, errno == ENOENT || errno == ENOTDIR ? MA_EMISSING : MA_EIO,
                              "%s: %s (listed in the merged manifest; a recorded merge takes its size from %s)", path,
                              strerror(errno), root);
        else if (!S_ISREG(st.st_mode))
            rc = ma_error_set(err, MA_EFORMAT, "%s: not a regular file (listed in the merged manifest)", path);
        else
            sizes[i] = (uint64_t)st.st_size;
        free(path);
    }
    return rc;
}

/* ---- merging shard manifests ---- */

void ma_manifest_shard_header(char *buf, size_t len, unsigned index, unsigned count)
{
    snprintf(buf, len, "millaudit manifest shard %u/%u", index, count);
}

typedef struct merge_item {
    const char *path;
    const uint8_t *sha256;
    size_t source;
} merge_item;

static int cmp_item(const void *a, const void *b)
{
    const merge_item *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    if (c)
        return c;
    return x->source < y->source ? -1 : x->source > y->source;
}

void ma_manifest_merged_free(ma_manifest_merged *m)
{
    if (m->paths)
        ma_manifest_paths_free(m->paths, m->n);
    free(m->digests);
    free(m->missing);
    memset(m, 0, sizeof *m);
}

int ma_manifest_merge(ma_manifest_merged *out, const ma_manifest *const *in, const char *const *names, size_t n_in,
                      int allow_partial, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (!n_in)
        return ma_error_set(err, MA_EINVAL, "manifest merge: no manifest given");
    /* a lost line would drop a file from the merge without a word */
    for (size_t k = 0; k < n_in; k++)
        if (in[k]->n_malformed)
            return ma_error_set(err, MA_EFORMAT, "%s: line %zu is not a manifest line: nothing merged", names[k],
                                in[k]->first_malformed);
    size_t first = n_in;
    for (size_t k = 0; k < n_in; k++) {
        if (!in[k]->shard_count)
            continue;
        if (first == n_in) {
            first = k;
            out->shard_count = in[k]->shard_count;
        } else if (in[k]->shard_count != out->shard_count) {
            return ma_error_set(err, MA_EFORMAT,
                                "manifests of different partitions: %s is shard %u/%u, %s is shard %u/%u", names[first],
                                in[first]->shard_index, in[first]->shard_count, names[k], in[k]->shard_index,
                                in[k]->shard_count);
        }
        for (size_t j = 0; j < k; j++)
            if (in[j]->shard_count && in[j]->shard_index == in[k]->shard_index)
                return ma_error_set(err, MA_EFORMAT, "shard %u/%u given twice: %s and %s", in[k]->shard_index,
                                    in[k]->shard_count, names[j], names[k]);
    }
    if (out->shard_count) {
        if (!(out->missing = calloc(out->shard_count, sizeof *out->missing)))
            return ma_error_set(err, MA_ENOMEM, "manifest merge: out of memory");
        for (unsigned s = 0; s < out->shard_count; s++) {
            int have = 0;
            for (size_t k = 0; k < n_in && !have; k++)
                have = in[k]->shard_count && in[k]->shard_index == s;
            if (!have)
                out->missing[out->n_missing++] = s;
        }
    }
    size_t total = 0;
    for (size_t k = 0; k < n_in; k++)
        total += in[k]->n;
    merge_item *items = calloc(total ? total : 1, sizeof *items);
    if (!items) {
        ma_manifest_merged_free(out);
        return ma_error_set(err, MA_ENOMEM, "manifest merge: out of memory");
    }
    size_t t = 0;
    for (size_t k = 0; k < n_in; k++)
        for (size_t i = 0; i < in[k]->n; i++)
            items[t++] = (merge_item){in[k]->lines[i].path, in[k]->lines[i].sha256, k};
    qsort(items, total, sizeof *items, cmp_item);
    size_t unique = 0;
    for (size_t i = 0; i < total; i++) {
        if (i && !strcmp(items[i].path, items[i - 1].path)) {
            /* the group's first line is the reference: every other must agree with it */
            size_t g = i - 1;
            while (g && !strcmp(items[g - 1].path, items[i].path))
                g--;
            if (memcmp(items[g].sha256, items[i].sha256, MA_SHA256_LEN)) {
                char ha[MA_SHA256_HEX_LEN + 1], hb[MA_SHA256_HEX_LEN + 1], shown[1100];
                ma_sha256_hex(ha, items[g].sha256);
                ma_sha256_hex(hb, items[i].sha256);
                ma_escape_name(items[i].path, shown, sizeof shown);
                int rc = ma_error_set(err, MA_EFORMAT, "%s: different digests: %s says %s, %s says %s",
                                      shown, names[items[g].source], ha, names[items[i].source], hb);
                free(items);
                ma_manifest_merged_free(out);
                return rc;
            }
            continue;
        }
        unique++;
    }
    /* a conflict is worth more than a missing shard: it is checked first */
    if (out->n_missing && !allow_partial) {
        free(items);
        char list[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < out->n_missing && used < sizeof list - 16; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%u", i ? ", " : "", out->missing[i]);
        unsigned count = out->shard_count;
        size_t nm = out->n_missing;
        ma_manifest_merged_free(out);
        return ma_error_set(err, MA_EFORMAT,
                            "%s of %s missing (%s %s of %u): nothing merged; allow_partial merges "
                            "the shards given",
                            MA_NUM(nm), MA_COUNT(count, "shard", "shards"), ma_noun(nm, "shard", "shards"), list, count);
    }
    out->paths = calloc(unique ? unique : 1, sizeof *out->paths);
    out->digests = calloc(unique ? unique : 1, sizeof *out->digests);
    int rc = out->paths && out->digests ? MA_OK : MA_ENOMEM;
    for (size_t i = 0; rc == MA_OK && i < total; i++) {
        if (i && !strcmp(items[i].path, items[i - 1].path))
            continue;
        if (!(out->paths[out->n] = strdup(items[i].path))) {
            rc = MA_ENOMEM;
            break;
        }
        memcpy(out->digests[out->n].digest, items[i].sha256, MA_SHA256_LEN);
        out->n++;
    }
    free(items);
    if (rc) {
        ma_manifest_merged_free(out);
        return ma_error_set(err, MA_ENOMEM, "manifest merge: out of memory");
    }
    return MA_OK;
}
