/* svfile: open-format sector files, written atomically with a body digest, re-read with full
 * checks. */
#include "solver/svfile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "solver/svsector.h"

static const uint8_t magic[8] = {0x89, 'M', 'I', 'L', 'L', '\r', '\n', 0x1a};
#define CHUNK_BYTES ((size_t)1 << 20)

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

uint64_t ma_svfile_header_entries(const uint8_t h[MA_SVFILE_HEADER_SIZE])
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | h[24 + i];
    return v;
}

int ma_svfile_word_valid(uint16_t w)
{
    unsigned depth = w & 0x3FFFu;
    switch (w & 0xC000u) {
    case 0x0000u: return depth == 0;
    case 0x8000u: return depth == 0;
    case 0x4000u: return depth % 2 == 0;
    default: return depth % 2 == 1;
    }
}

int ma_svfile_path(char *buf, size_t n, const char *dir, int variant, ma_sv_sector s, ma_error *err)
{
    int len = snprintf(buf, n, "%s/%s_%d_%d_%d_%d.mdb", dir, ma_svrules_variant_name(variant),
                       s.w, s.b, s.wf, s.bf);
    if (len < 0 || (size_t)len >= n)
        return ma_error_set(err, MA_EINVAL, "%s: output path too long", dir);
    return MA_OK;
}

void ma_svfile_header(uint8_t h[MA_SVFILE_HEADER_SIZE], const ma_svrules *r, ma_sv_sector s,
                      uint64_t entries, const char *producer, const char *version)
{
    memset(h, 0, MA_SVFILE_HEADER_SIZE);
    memcpy(h, magic, 8);
    put16(h + 8, 1);
    put16(h + 10, MA_SVFILE_HEADER_SIZE);
    h[12] = (uint8_t)r->variant;
    h[13] = r->variant == MA_SV_MORA ? 1 : 0;
    h[14] = (uint8_t)s.w;
    h[15] = (uint8_t)s.b;
    h[16] = (uint8_t)s.wf;
    h[17] = (uint8_t)s.bf;
    h[18] = 2;
    h[19] = 1;
    put16(h + 20, 1);
    put16(h + 22, 1);
    for (int i = 0; i < 8; i++)
        h[24 + i] = (uint8_t)(entries >> (8 * i));
    /* NUL-padded, not NUL-terminated: a name of exactly 32 (16) bytes fills the field and a
     * longer one is cut (the longest planted-bug names are). */
    size_t np = strlen(producer), nv = strlen(version);
    memcpy(h + 32, producer, np < 32 ? np : 32);
    memcpy(h + 64, version, nv < 16 ? nv : 16);
}

/* Which header byte first differs from ours, or -1. The version field (64..79) may differ; the
 * digest (80..111) is checked against the body. */
static int header_mismatch(const uint8_t *got, const uint8_t *expect)
{
    for (int i = 0; i < MA_SVFILE_HEADER_SIZE; i++) {
        if (i >= 64 && i < MA_SVFILE_DIGEST_OFFSET + MA_SVFILE_DIGEST_SIZE)
            continue;
        if (got[i] != expect[i])
            return i;
    }
    return -1;
}

static int is_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

static void sector_name(char *buf, size_t n, const uint8_t *expect)
{
    ma_sv_sector s = {expect[14], expect[15], expect[16], expect[17]};
    ma_svsector_format(buf, n, s);
}

static int corrupt(ma_error *err, const char *path, const uint8_t *expect, unsigned long long off,
                   const char *why)
{
    char name[32];
    sector_name(name, sizeof name, expect);
    return ma_error_set(err, MA_EEXIST,
                        "%s: sector %s: offset %llu: exists but is incomplete or corrupt; remove it (%s)",
                        path, name, off, why);
}

/* Opens path and checks header and size; *exists = 0 (and MA_OK) when absent. On success with
 * *exists = 1, *fd is open and hdr holds the file's header. */
static int open_checked(int *fd_out, uint8_t hdr[MA_SVFILE_HEADER_SIZE], const char *path,
                        const uint8_t *expect, int *exists, ma_error *err)
{
    *exists = 0;
    int fd = -1;
    struct stat st;
    ma_error oerr;
    int rc = ma_file_open_regular(path, &fd, &st, &oerr);
    if (rc == MA_EMISSING)
        return MA_OK;
    char name[32];
    sector_name(name, sizeof name, expect);
    if (rc == MA_EFORMAT)
        return ma_error_set(err, MA_EEXIST, "sector %s: %s; remove it", name, oerr.msg);
    if (rc != MA_OK)
        return ma_error_set(err, MA_EIO, "%s", oerr.msg);
    uint64_t want = MA_SVFILE_HEADER_SIZE + 2 * ma_svfile_header_entries(expect);
    if ((uint64_t)st.st_size != want) {
        close(fd);
        char why[96];
        snprintf(why, sizeof why, "size %lld, expected %llu", (long long)st.st_size,
                 (unsigned long long)want);
        return corrupt(err, path, expect,
                       (unsigned long long)((uint64_t)st.st_size < want ? (uint64_t)st.st_size : want),
                       why);
    }
    ssize_t got = pread(fd, hdr, MA_SVFILE_HEADER_SIZE, 0);
    int bad = got == (ssize_t)MA_SVFILE_HEADER_SIZE ? header_mismatch(hdr, expect) : 0;
    if (bad >= 0) {
        close(fd);
        if (bad >= 32 && bad < 64)
            return ma_error_set(err, MA_EEXIST,
                                "%s: sector %s: offset %d: exists but was written by another "
                                "producer ('%.32s'); remove it",
                                path, name, bad, (const char *)hdr + 32);
        return corrupt(err, path, expect, (unsigned long long)bad, "header differs");
    }
    if (is_zero(hdr + MA_SVFILE_DIGEST_OFFSET, MA_SVFILE_DIGEST_SIZE)) {
        close(fd);
        return corrupt(err, path, expect, MA_SVFILE_DIGEST_OFFSET,
                       "no body digest recorded, so it cannot be proven intact");
    }
    *exists = 1;
    *fd_out = fd;
    return MA_OK;
}

/* Streams the body of an open, header-checked file: checks every word's encoding, hashes it, and
 * copies it to vals when vals is non-NULL. */
static int check_body(int fd, const char *path, const uint8_t *hdr, const uint8_t *expect,
                      uint16_t *vals, int check_encoding, ma_error *err)
{
    uint64_t n = ma_svfile_header_entries(expect);
    uint8_t *buf = malloc(CHUNK_BYTES);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!buf || !md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
        free(buf);
        EVP_MD_CTX_free(md);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory reading the body", path);
    }
    int rc = MA_OK;
    uint64_t left = 2 * n, off = MA_SVFILE_HEADER_SIZE, e = 0;
    while (left && rc == MA_OK) {
        size_t want = left > CHUNK_BYTES ? CHUNK_BYTES : (size_t)left;
        size_t have = 0;
        while (have < want) {
            ssize_t got = pread(fd, buf + have, want - have, (off_t)(off + have));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                rc = ma_error_set(err, MA_EIO, "%s: offset %llu: read failed: %s", path,
                                  (unsigned long long)(off + have), got < 0 ? strerror(errno) : "short file");
                break;
            }
            have += (size_t)got;
        }
        if (rc != MA_OK)
            break;
        for (size_t i = 0; i < want; i += 2, e++) {
            uint16_t v = (uint16_t)(buf[i] | buf[i + 1] << 8);
            if (check_encoding && !ma_svfile_word_valid(v)) {
                char why[64];
                snprintf(why, sizeof why, "entry %llu holds 0x%04x, not a valid value word",
                         (unsigned long long)e, v);
                rc = corrupt(err, path, expect, (unsigned long long)(off + i), why);
                break;
            }
            if (vals)
                vals[e] = v;
        }
        EVP_DigestUpdate(md, buf, want);
        off += want;
        left -= want;
    }
    uint8_t digest[EVP_MAX_MD_SIZE];
    unsigned dlen = 0;
    if (rc == MA_OK && (EVP_DigestFinal_ex(md, digest, &dlen) != 1 || dlen != MA_SVFILE_DIGEST_SIZE))
        rc = ma_error_set(err, MA_EINTERNAL, "%s: SHA-256 failed", path);
    if (rc == MA_OK && memcmp(digest, hdr + MA_SVFILE_DIGEST_OFFSET, MA_SVFILE_DIGEST_SIZE))
        rc = corrupt(err, path, expect, MA_SVFILE_DIGEST_OFFSET,
                     "the body's SHA-256 differs from the digest in the header");
    EVP_MD_CTX_free(md);
    free(buf);
    return rc;
}

int ma_svfile_probe(int *exists, const char *path, const uint8_t expect[MA_SVFILE_HEADER_SIZE],
                    int check_encoding, ma_error *err)
{
    int fd = -1;
    uint8_t hdr[MA_SVFILE_HEADER_SIZE];
    int rc = open_checked(&fd, hdr, path, expect, exists, err);
    if (rc == MA_OK && *exists) {
        rc = check_body(fd, path, hdr, expect, NULL, check_encoding, err);
        if (rc != MA_OK)
            *exists = 0;
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

int ma_svfile_read(uint16_t *vals, const char *path, const uint8_t expect[MA_SVFILE_HEADER_SIZE],
                   int check_encoding, ma_error *err)
{
    int fd = -1, exists = 0;
    uint8_t hdr[MA_SVFILE_HEADER_SIZE];
    int rc = open_checked(&fd, hdr, path, expect, &exists, err);
    if (rc != MA_OK)
        return rc;
    if (!exists)
        return ma_error_set(err, MA_EMISSING,
                            "%s: missing child sector file (solve it first, or use --with-deps)", path);
    rc = check_body(fd, path, hdr, expect, vals, check_encoding, err);
    close(fd);
    return rc;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

void ma_svfile_body_digest(const uint16_t *vals, uint64_t n, uint8_t out[MA_SVFILE_DIGEST_SIZE])
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    uint8_t buf[1 << 12];
    unsigned dlen = 0;
    EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    for (uint64_t i = 0; i < n;) {
        size_t k = 0;
        for (; k < sizeof buf / 2 && i < n; k++, i++)
            put16(buf + 2 * k, vals[i]);
        EVP_DigestUpdate(md, buf, 2 * k);
    }
    EVP_DigestFinal_ex(md, out, &dlen);
    EVP_MD_CTX_free(md);
}

int ma_svfile_write(const char *path, const uint8_t header[MA_SVFILE_HEADER_SIZE],
                    const uint16_t *vals, const atomic_int *cancel, ma_error *err)
{
    char tmp[4200];
    int len = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (len < 0 || (size_t)len >= sizeof tmp)
        return ma_error_set(err, MA_EINVAL, "%s: output path too long", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return ma_error_set(err, MA_EIO, "%s: cannot create: %s", tmp, strerror(errno));
    uint8_t h[MA_SVFILE_HEADER_SIZE];
    memcpy(h, header, sizeof h);
    uint64_t n = ma_svfile_header_entries(header);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    uint8_t *buf = malloc(CHUNK_BYTES);
    int failed = !md || !buf || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1;
    int saved = failed ? ENOMEM : 0, canceled = 0;
    /* The header goes first with the digest still zero and is rewritten once the body is hashed. */
    if (!failed && (failed = write_all(fd, h, sizeof h)) != 0)
        saved = errno;
    /* Little-endian in chunks, so big-endian hosts write the same bytes. */
    for (uint64_t i = 0; i < n && !failed;) {
        if (cancel && atomic_load(cancel)) {
            failed = canceled = 1;
            break;
        }
        size_t k = 0;
        for (; k < CHUNK_BYTES / 2 && i < n; k++, i++)
            put16(buf + 2 * k, vals[i]);
        EVP_DigestUpdate(md, buf, 2 * k);
        if ((failed = write_all(fd, buf, 2 * k)) != 0)
            saved = errno;
    }
    unsigned dlen = 0;
    if (!failed) {
        EVP_DigestFinal_ex(md, h + MA_SVFILE_DIGEST_OFFSET, &dlen);
        if (pwrite(fd, h, sizeof h, 0) != (ssize_t)sizeof h) {
            failed = 1;
            saved = errno ? errno : EIO;
        }
    }
    EVP_MD_CTX_free(md);
    free(buf);
    if (!failed && fsync(fd) != 0) {
        failed = 1;
        saved = errno;
    }
    if (close(fd) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (!failed && rename(tmp, path) != 0) {
        failed = 1;
        saved = errno;
    }
    if (failed) {
        unlink(tmp);
        if (canceled)
            return ma_error_set(err, MA_ECANCELED, "%s: interrupted; nothing written", path);
        return ma_error_set(err, MA_EIO, "%s: cannot write: %s", path, strerror(saved));
    }
    /* Make the rename itself durable. */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    int dfd = open(dirname(dir), O_RDONLY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return MA_OK;
}

/* "<variant>_<W>_<B>_<WF>_<BF>.mdb.tmp.<pid>" -> pid, or -1. */
static long stale_pid(const char *name)
{
    const char *variants[] = {"std_", "lask_", "mora_"};
    const char *p = NULL;
    for (int i = 0; i < 3 && !p; i++)
        if (!strncmp(name, variants[i], strlen(variants[i])))
            p = name + strlen(variants[i]);
    if (!p)
        return -1;
    for (int field = 0; field < 4; field++) {
        if (!isdigit((unsigned char)*p))
            return -1;
        while (isdigit((unsigned char)*p))
            p++;
        if (field < 3 && *p++ != '_')
            return -1;
    }
    if (strncmp(p, ".mdb.tmp.", 9))
        return -1;
    p += 9;
    if (!isdigit((unsigned char)*p))
        return -1;
    char *end;
    long pid = strtol(p, &end, 10);
    return *end == '\0' && pid > 0 ? pid : -1;
}

int ma_svfile_remove_stale(const char *dir, int *removed, char *first, size_t first_size,
                           ma_error *err)
{
    *removed = 0;
    if (first_size)
        first[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return ma_error_set(err, MA_EIO, "%s: cannot list the output directory: %s", dir,
                            strerror(errno));
    struct dirent *de;
    int rc = MA_OK;
    while ((de = readdir(d)) != NULL) {
        long pid = stale_pid(de->d_name);
        if (pid < 0 || pid == (long)getpid())
            continue;
        /* ESRCH: no such process, so nobody can still be writing it. EPERM means alive. */
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (unlink(path) != 0) {
            if (errno == ENOENT)
                continue; /* another run removed it first */
            rc = ma_error_set(err, MA_EIO, "%s: cannot remove stale temporary file: %s", path,
                              strerror(errno));
            break;
        }
        if (!*removed && first_size)
            snprintf(first, first_size, "%s", de->d_name);
        (*removed)++;
    }
    closedir(d);
    return rc;
}
