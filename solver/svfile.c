/* svfile: open-format sector files, written atomically, re-read with full header checks. */
#include "solver/svfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "solver/svsector.h"

static const uint8_t magic[8] = {0x89, 'M', 'I', 'L', 'L', '\r', '\n', 0x1a};

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

/* Which header byte first differs from ours, or -1. The version field (64..79) may differ. */
static int header_mismatch(const uint8_t *got, const uint8_t *expect)
{
    for (int i = 0; i < MA_SVFILE_HEADER_SIZE; i++) {
        if (i >= 64 && i < 80)
            continue;
        if (got[i] != expect[i])
            return i;
    }
    return -1;
}

static int open_checked(int *fd_out, const char *path, const uint8_t *expect, int *exists,
                        ma_error *err)
{
    *exists = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        if (errno == ENOENT)
            return MA_OK;
        return ma_error_set(err, MA_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    char name[32];
    ma_sv_sector s = {expect[14], expect[15], expect[16], expect[17]};
    ma_svsector_format(name, sizeof name, s);
    struct stat st;
    uint8_t h[MA_SVFILE_HEADER_SIZE];
    uint64_t want = MA_SVFILE_HEADER_SIZE + 2 * ma_svfile_header_entries(expect);
    if (fstat(fd, &st) != 0) {
        close(fd);
        return ma_error_set(err, MA_EIO, "%s: cannot stat: %s", path, strerror(errno));
    }
    if ((uint64_t)st.st_size != want) {
        close(fd);
        return ma_error_set(err, MA_EEXIST,
                            "%s: sector %s: offset %lld: exists but is incomplete or corrupt; "
                            "remove it (size %lld, expected %llu)",
                            path, name, (long long)(st.st_size < (off_t)want ? st.st_size : (off_t)want),
                            (long long)st.st_size, (unsigned long long)want);
    }
    ssize_t got = pread(fd, h, sizeof h, 0);
    int bad = got == (ssize_t)sizeof h ? header_mismatch(h, expect) : 0;
    if (bad >= 0) {
        close(fd);
        if (bad >= 32 && bad < 64)
            return ma_error_set(err, MA_EEXIST,
                                "%s: sector %s: offset %d: exists but was written by another "
                                "producer ('%.32s'); remove it",
                                path, name, bad, (const char *)h + 32);
        return ma_error_set(err, MA_EEXIST,
                            "%s: sector %s: offset %d: exists but is incomplete or corrupt; remove it",
                            path, name, bad);
    }
    *exists = 1;
    *fd_out = fd;
    return MA_OK;
}

int ma_svfile_probe(int *exists, const char *path, const uint8_t expect[MA_SVFILE_HEADER_SIZE],
                    ma_error *err)
{
    int fd = -1;
    int rc = open_checked(&fd, path, expect, exists, err);
    if (fd >= 0)
        close(fd);
    return rc;
}

int ma_svfile_read(uint16_t *vals, const char *path, const uint8_t expect[MA_SVFILE_HEADER_SIZE],
                   ma_error *err)
{
    int fd = -1, exists = 0;
    int rc = open_checked(&fd, path, expect, &exists, err);
    if (rc != MA_OK)
        return rc;
    if (!exists)
        return ma_error_set(err, MA_EMISSING, "%s: missing child sector file (solve it first, or use --with-deps)", path);
    uint64_t n = ma_svfile_header_entries(expect);
    uint8_t *p = (uint8_t *)vals;
    uint64_t left = 2 * n, off = MA_SVFILE_HEADER_SIZE;
    while (left) {
        ssize_t got = pread(fd, p, left > (1u << 30) ? (1u << 30) : left, (off_t)off);
        if (got <= 0) {
            close(fd);
            return ma_error_set(err, MA_EIO, "%s: offset %llu: read failed: %s", path,
                                (unsigned long long)off, got < 0 ? strerror(errno) : "short file");
        }
        p += got;
        off += (uint64_t)got;
        left -= (uint64_t)got;
    }
    close(fd);
    /* The body is little-endian; convert in place on big-endian hosts. */
    for (uint64_t i = 0; i < n && ((const uint8_t *)&(uint16_t){1})[0] == 0; i++) {
        uint8_t *q = (uint8_t *)&vals[i];
        vals[i] = (uint16_t)(q[0] | q[1] << 8);
    }
    return MA_OK;
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

int ma_svfile_write(const char *path, const uint8_t header[MA_SVFILE_HEADER_SIZE],
                    const uint16_t *vals, ma_error *err)
{
    char tmp[4200];
    int len = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (len < 0 || (size_t)len >= sizeof tmp)
        return ma_error_set(err, MA_EINVAL, "%s: output path too long", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return ma_error_set(err, MA_EIO, "%s: cannot create: %s", tmp, strerror(errno));
    uint64_t n = ma_svfile_header_entries(header);
    int failed = write_all(fd, header, MA_SVFILE_HEADER_SIZE);
    /* Convert to little-endian in chunks so big-endian hosts write the same bytes. */
    uint8_t buf[1 << 16];
    for (uint64_t i = 0; i < n && !failed;) {
        size_t k = 0;
        for (; k < sizeof buf / 2 && i < n; k++, i++)
            put16(buf + 2 * k, vals[i]);
        failed = write_all(fd, buf, 2 * k);
    }
    if (!failed)
        failed = fsync(fd);
    int saved = errno;
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
        return ma_error_set(err, MA_EIO, "%s: cannot write: %s", path, strerror(saved));
    }
    /* Make the rename itself durable. */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    int dfd = open(dirname(dir), O_RDONLY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return MA_OK;
}
