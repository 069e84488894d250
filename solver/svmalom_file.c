/* svmalom_file: Malom .sec / .sec2 writing and reading, .secval parsing (malom-format.md §5). */
#include "solver/svmalom_file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/counts.h"

ma_svm_layout ma_svm_layout_for(int kind, int stone_diff, int variant)
{
    ma_svm_layout l;
    memset(&l, 0, sizeof l);
    l.kind = kind;
    if (kind == MA_SVM_SEC) {
        l.entry_bytes = 1;
        return l;
    }
    l.stone_diff = stone_diff ? 1 : 0;
    l.entry_bytes = stone_diff ? 2 : 3;
    l.field1_bits = stone_diff ? 6 : variant == MA_SV_STD ? 12 : 14;
    return l;
}

int ma_svm_path(char *buf, size_t n, const char *dir, int variant, ma_sv_sector s, int kind,
                ma_error *err)
{
    int len = snprintf(buf, n, "%s/%s_%d_%d_%d_%d.%s", dir, ma_svrules_variant_name(variant), s.w,
                       s.b, s.wf, s.bf, kind == MA_SVM_SEC ? "sec" : "sec2");
    if (len < 0 || (size_t)len >= n)
        return ma_error_set(err, MA_EINVAL, "%s: output path too long", dir);
    return MA_OK;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int32_t get32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

void ma_svm_sec2_header(uint8_t h[MA_SVM_SEC2_HEADER], ma_svm_layout layout)
{
    memset(h, 0, MA_SVM_SEC2_HEADER);
    put32(h, 2);
    put32(h + 4, (uint32_t)layout.entry_bytes);
    put32(h + 8, (uint32_t)layout.field1_bits);
    h[12] = (uint8_t)layout.stone_diff;
}

static size_t header_size(ma_svm_layout layout)
{
    return layout.kind == MA_SVM_SEC2 ? MA_SVM_SEC2_HEADER : 0;
}

static int image_alloc(ma_svm_image *img, ma_svm_layout layout, size_t head, uint64_t count,
                       const char *name, ma_error *err)
{
    memset(img, 0, sizeof *img);
    img->layout = layout;
    img->count = count;
    img->head = head;
    snprintf(img->name, sizeof img->name, "%s", name);
    img->nbytes = head + (size_t)count * (size_t)layout.entry_bytes;
    img->bytes = malloc(img->nbytes ? img->nbytes : 1);
    if (!img->bytes)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory for %s", name,
                            MA_COUNT(count, "entry", "entries"));
    return MA_OK;
}

int ma_svm_image_init(ma_svm_image *img, ma_svm_layout layout, uint64_t count, const char *name,
                      ma_error *err)
{
    int rc = image_alloc(img, layout, header_size(layout), count, name, err);
    if (rc == MA_OK && layout.kind == MA_SVM_SEC2)
        ma_svm_sec2_header(img->bytes, layout);
    return rc;
}

int ma_svm_image_window(ma_svm_image *img, ma_svm_layout layout, uint64_t capacity,
                        const char *name, ma_error *err)
{
    return image_alloc(img, layout, 0, capacity, name, err);
}

void ma_svm_image_reset(ma_svm_image *img, uint64_t first, uint64_t count)
{
    img->first = first;
    img->next = first;
    img->count = count;
    img->novf = 0;
}

void ma_svm_image_free(ma_svm_image *img)
{
    free(img->bytes);
    free(img->ovf);
    memset(img, 0, sizeof *img);
}

static int check_order(ma_svm_image *img, uint64_t h, ma_error *err)
{
    if (h != img->next || h >= img->first + img->count)
        return ma_error_set(err, MA_EINTERNAL, "%s: entry %llu written out of order (next %llu)",
                            img->name, (unsigned long long)h, (unsigned long long)img->next);
    return MA_OK;
}

static int add_overflow(ma_svm_image *img, uint64_t h, int32_t value, ma_error *err)
{
    if (img->novf == img->ovf_cap) {
        size_t cap = img->ovf_cap ? 2 * img->ovf_cap : 256;
        int32_t *n = realloc(img->ovf, cap * 2 * sizeof *n);
        if (!n)
            return ma_error_set(err, MA_ENOMEM, "%s: out of memory for the overflow table",
                                img->name);
        img->ovf = n;
        img->ovf_cap = cap;
    }
    img->ovf[2 * img->novf] = (int32_t)h;
    img->ovf[2 * img->novf + 1] = value;
    img->novf++;
    return MA_OK;
}

/* A .sec2 entry (§5.2); the index is consumed only when the entry is written. */
static int put_raw2(ma_svm_image *img, uint64_t h, int key1, int key2, ma_error *err)
{
    int rc = check_order(img, h, err);
    if (rc != MA_OK)
        return rc;
    int f1 = img->layout.field1_bits, f2 = 8 * img->layout.entry_bytes - f1;
    int k1max = (1 << (f1 - 1)) - 1, k2max = (1 << (f2 - 1)) - 1;
    if (key1 < -k1max - 1 || key1 > k1max)
        return ma_error_set(err, MA_EINTERNAL, "%s: entry %llu: key1 %d does not fit %d bits",
                            img->name, (unsigned long long)h, key1, f1);
    int inline2 = key2;
    /* §5.2: the writer moves key2 to the overflow table exactly when |key2| exceeds the inline
     * maximum, and stores SPEC (the most negative field-2 value) inline. */
    if (key2 > k2max || key2 < -k2max) {
        rc = add_overflow(img, h, key2, err);
        if (rc != MA_OK)
            return rc;
        inline2 = -k2max - 1;
    }
    uint32_t raw = ((uint32_t)key1 & ((1u << f1) - 1)) |
                   ((uint32_t)inline2 & ((1u << f2) - 1)) << f1;
    uint8_t *p = img->bytes + img->head + (h - img->first) * (uint64_t)img->layout.entry_bytes;
    for (int i = 0; i < img->layout.entry_bytes; i++)
        p[i] = (uint8_t)(raw >> (8 * i));
    img->next++;
    return MA_OK;
}

/* A .sec byte (§5.7), with an overflow record when ovf is set. */
static int put_byte(ma_svm_image *img, uint64_t h, int byte, int ovf, int32_t value, ma_error *err)
{
    int rc = check_order(img, h, err);
    if (rc == MA_OK && ovf)
        rc = add_overflow(img, h, value, err);
    if (rc != MA_OK)
        return rc;
    img->bytes[img->head + (h - img->first)] = (uint8_t)byte;
    img->next++;
    return MA_OK;
}

int ma_svm_put_marker(ma_svm_image *img, uint64_t h, int op, ma_error *err)
{
    if (op < 0 || op > 14)
        return ma_error_set(err, MA_EINTERNAL, "%s: entry %llu: marker op %d out of range",
                            img->name, (unsigned long long)h, op);
    if (img->layout.kind == MA_SVM_SEC)
        return put_byte(img, h, MA_SVM_SEC_MARKER0 + op, 0, 0, err);
    return put_raw2(img, h, 0, -op - 1, err);
}

int ma_svm_put_sec_depth(ma_svm_image *img, uint64_t h, int plies, ma_error *err)
{
    if (img->layout.kind != MA_SVM_SEC || plies < 0)
        return ma_error_set(err, MA_EINTERNAL, "%s: entry %llu: bad .sec depth %d", img->name,
                            (unsigned long long)h, plies);
    if (plies <= MA_SVM_SEC_MAX_INLINE)
        return put_byte(img, h, plies, 0, 0, err);
    return put_byte(img, h, MA_SVM_SEC_OVERFLOW, 1, plies, err);
}

int ma_svm_put_count(ma_svm_image *img, uint64_t h, int counter, ma_error *err)
{
    if (counter < 0)
        return ma_error_set(err, MA_EINTERNAL, "%s: entry %llu: negative counter", img->name,
                            (unsigned long long)h);
    if (img->layout.kind == MA_SVM_SEC2)
        return put_raw2(img, h, 0, counter, err);
    if (counter <= MA_SVM_SEC_MAX_COUNTER)
        return put_byte(img, h, MA_SVM_SEC_COUNT0 - counter, 0, 0, err);
    return put_byte(img, h, MA_SVM_SEC_OVERFLOW, 1, -counter, err);
}

int ma_svm_put_sec2(ma_svm_image *img, uint64_t h, int key1, int key2, ma_error *err)
{
    if (img->layout.kind != MA_SVM_SEC2 || key1 == 0)
        return ma_error_set(err, MA_EINTERNAL, "%s: entry %llu: a value needs key1 != 0 in a .sec2",
                            img->name, (unsigned long long)h);
    return put_raw2(img, h, key1, key2, err);
}

/* The overflow table: the record count, then (index, value) pairs. NULL when out of memory. */
static uint8_t *trailer(const int32_t *ovf, size_t novf, size_t *n)
{
    *n = 4 + 8 * novf;
    uint8_t *t = malloc(*n);
    if (!t)
        return NULL;
    put32(t, (uint32_t)novf);
    for (size_t i = 0; i < novf; i++) {
        put32(t + 4 + 8 * i, (uint32_t)ovf[2 * i]);
        put32(t + 8 + 8 * i, (uint32_t)ovf[2 * i + 1]);
    }
    return t;
}

static void sync_dir(const char *path)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    int dfd = open(dirname(dir), O_RDONLY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
}

int ma_svm_write_atomic(const char *path, const void *a, size_t na, const void *b, size_t nb,
                        ma_error *err)
{
    char tmp[4200];
    int len = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (len < 0 || (size_t)len >= sizeof tmp)
        return ma_error_set(err, MA_EINVAL, "%s: output path too long", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return ma_error_set(err, MA_EIO, "%s: cannot create: %s", tmp, strerror(errno));
    int failed = 0;
    const void *parts[2] = {a, b};
    size_t sizes[2] = {na, nb};
    for (int i = 0; i < 2 && !failed; i++) {
        const uint8_t *p = parts[i];
        size_t n = sizes[i];
        while (n && !failed) {
            ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                failed = 1;
                break;
            }
            p += w;
            n -= (size_t)w;
        }
    }
    if (!failed)
        failed = fsync(fd) != 0;
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
    sync_dir(path);
    return MA_OK;
}

int ma_svm_image_write(const ma_svm_image *img, const char *path, ma_error *err)
{
    if (img->first != 0 || img->next != img->count)
        return ma_error_set(err, MA_EINTERNAL, "%s: only %s of %s entries were filled",
                            img->name, MA_NUM(img->next), MA_NUM(img->count));
    size_t ntrail;
    uint8_t *trail = trailer(img->ovf, img->novf, &ntrail);
    if (!trail)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", img->name);
    int rc = ma_svm_write_atomic(path, img->bytes, img->nbytes, trail, ntrail, err);
    free(trail);
    return rc;
}

static int write_all(int fd, const uint8_t *p, size_t n, uint64_t off)
{
    while (n) {
        ssize_t w = pwrite(fd, p, n > (1u << 30) ? (1u << 30) : n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return 0;
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return 1;
}

int ma_svm_out_open(ma_svm_out *o, const char *path, ma_svm_layout layout, uint64_t count,
                    ma_error *err)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->layout = layout;
    o->count = count;
    int len = snprintf(o->path, sizeof o->path, "%s", path);
    int len2 = snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
    if (len < 0 || (size_t)len >= sizeof o->path || len2 < 0 || (size_t)len2 >= sizeof o->tmp)
        return ma_error_set(err, MA_EINVAL, "%s: output path too long", path);
    o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (o->fd < 0)
        return ma_error_set(err, MA_EIO, "%s: cannot create: %s", o->tmp, strerror(errno));
    if (layout.kind == MA_SVM_SEC2) {
        uint8_t h[MA_SVM_SEC2_HEADER];
        ma_svm_sec2_header(h, layout);
        if (!write_all(o->fd, h, sizeof h, 0)) {
            int saved = errno;
            ma_svm_out_abort(o);
            return ma_error_set(err, MA_EIO, "%s: cannot write: %s", path, strerror(saved));
        }
    }
    return MA_OK;
}

int ma_svm_out_put(ma_svm_out *o, const ma_svm_image *win, ma_error *err)
{
    if (win->next != win->first + win->count || win->first + win->count > o->count)
        return ma_error_set(err, MA_EINTERNAL, "%s: window of %s at %s not filled",
                            win->name, MA_COUNT(win->count, "entry", "entries"), MA_NUM(win->first));
    uint64_t s = (uint64_t)o->layout.entry_bytes;
    if (!write_all(o->fd, win->bytes + win->head, (size_t)(win->count * s),
                   header_size(o->layout) + win->first * s))
        return ma_error_set(err, MA_EIO, "%s: cannot write: %s", o->path, strerror(errno));
    return MA_OK;
}

int ma_svm_out_close(ma_svm_out *o, const int32_t *ovf, size_t novf, ma_error *err)
{
    size_t ntrail;
    uint8_t *trail = trailer(ovf, novf, &ntrail);
    if (!trail) {
        ma_svm_out_abort(o);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", o->path);
    }
    uint64_t end = header_size(o->layout) + o->count * (uint64_t)o->layout.entry_bytes;
    int failed = !write_all(o->fd, trail, ntrail, end) || fsync(o->fd) != 0;
    int saved = errno;
    free(trail);
    if (close(o->fd) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    o->fd = -1;
    if (!failed && rename(o->tmp, o->path) != 0) {
        failed = 1;
        saved = errno;
    }
    if (failed) {
        unlink(o->tmp);
        return ma_error_set(err, MA_EIO, "%s: cannot write: %s", o->path, strerror(saved));
    }
    sync_dir(o->path);
    return MA_OK;
}

void ma_svm_out_abort(ma_svm_out *o)
{
    if (o->fd >= 0) {
        close(o->fd);
        unlink(o->tmp);
    }
    o->fd = -1;
}

int ma_svm_probe(int *exists, const char *path, ma_sv_sector s, ma_svm_layout layout,
                 uint64_t count, ma_error *err)
{
    *exists = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        if (errno == ENOENT)
            return MA_OK;
        return ma_error_set(err, MA_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return ma_error_set(err, MA_EIO, "%s: cannot stat: %s", path, strerror(errno));
    }
    uint64_t body = header_size(layout) + count * (uint64_t)layout.entry_bytes;
    uint8_t h[MA_SVM_SEC2_HEADER], expect[MA_SVM_SEC2_HEADER], nb[4];
    long long bad = -1;
    if ((uint64_t)st.st_size < body + 4) {
        bad = (long long)st.st_size;
    } else if (pread(fd, nb, 4, (off_t)body) != 4) {
        bad = (long long)body;
    } else {
        int32_t n = get32(nb);
        if (n < 0 || (uint64_t)st.st_size != body + 4 + 8 * (uint64_t)n)
            bad = (long long)body;
    }
    if (bad < 0 && layout.kind == MA_SVM_SEC2) {
        ma_svm_sec2_header(expect, layout);
        if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h) {
            bad = 0;
        } else {
            for (int i = 0; i < MA_SVM_SEC2_HEADER && bad < 0; i++)
                if (h[i] != expect[i])
                    bad = i;
        }
    }
    close(fd);
    if (bad >= 0)
        return ma_error_set(err, MA_EEXIST,
                            "%s: sector %d_%d_%d_%d: offset %lld: exists but is incomplete, "
                            "corrupt or of another layout; remove it",
                            path, s.w, s.b, s.wf, s.bf, bad);
    *exists = 1;
    return MA_OK;
}

int ma_svm_reader_open(ma_svm_reader *r, const char *path, ma_sv_sector s, ma_svm_layout layout,
                       uint64_t count, ma_error *err)
{
    memset(r, 0, sizeof *r);
    r->layout = layout;
    r->count = count;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        if (errno == ENOENT)
            return ma_error_set(err, MA_EMISSING, "%s: sector %d_%d_%d_%d: offset 0: missing child "
                                "sector file", path, s.w, s.b, s.wf, s.bf);
        return ma_error_set(err, MA_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return ma_error_set(err, MA_EIO, "%s: cannot stat: %s", path, strerror(errno));
    }
    r->len = (size_t)st.st_size;
    r->data = malloc(r->len ? r->len : 1);
    if (!r->data) {
        close(fd);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory reading %s", path, MA_COUNT(r->len, "byte", "bytes"));
    }
    size_t off = 0;
    while (off < r->len) {
        ssize_t got = pread(fd, r->data + off, r->len - off, (off_t)off);
        if (got <= 0) {
            close(fd);
            ma_svm_reader_close(r);
            return ma_error_set(err, MA_EIO, "%s: offset %zu: read failed", path, off);
        }
        off += (size_t)got;
    }
    close(fd);
    uint64_t body = header_size(layout) + count * (uint64_t)layout.entry_bytes;
    long long bad = -1;
    const char *what = "";
    if (layout.kind == MA_SVM_SEC2) {
        uint8_t expect[MA_SVM_SEC2_HEADER];
        ma_svm_sec2_header(expect, layout);
        for (int i = 0; i < MA_SVM_SEC2_HEADER && bad < 0; i++)
            if (i >= (int)r->len || r->data[i] != expect[i]) {
                bad = i;
                what = "header is not the expected one";
            }
    }
    if (bad < 0 && r->len < body + 4) {
        bad = (long long)r->len;
        what = "file too short";
    }
    if (bad < 0) {
        int32_t n = get32(r->data + body);
        if (n < 0 || r->len != body + 4 + 8 * (uint64_t)n) {
            bad = (long long)body;
            what = "length does not match the overflow count";
        } else {
            r->novf = (uint64_t)n;
            r->ovf = r->data + body + 4;
            for (uint64_t i = 0; i < r->novf && bad < 0; i++) {
                int32_t idx = get32(r->ovf + 8 * i);
                if (idx < 0 || (uint64_t)idx >= count ||
                    (i && idx <= get32(r->ovf + 8 * (i - 1)))) {
                    bad = (long long)(body + 4 + 8 * i);
                    what = "overflow record out of order or range";
                }
            }
        }
    }
    if (bad >= 0) {
        ma_svm_reader_close(r);
        return ma_error_set(err, MA_EFORMAT, "%s: sector %d_%d_%d_%d: offset %lld: %s", path, s.w,
                            s.b, s.wf, s.bf, bad, what);
    }
    r->body = r->data + header_size(layout);
    return MA_OK;
}

void ma_svm_reader_close(ma_svm_reader *r)
{
    free(r->data);
    memset(r, 0, sizeof *r);
}

int ma_svm_reader_get(const ma_svm_reader *r, uint64_t h, int *key1, int *key2)
{
    int s = r->layout.entry_bytes, f1 = r->layout.field1_bits, f2 = 8 * s - f1;
    const uint8_t *p = r->body + h * (uint64_t)s;
    uint32_t raw = 0;
    for (int i = 0; i < s; i++)
        raw |= (uint32_t)p[i] << (8 * i);
    int k1 = (int)(raw & ((1u << f1) - 1)), k2 = (int)(raw >> f1);
    if (k1 >= 1 << (f1 - 1))
        k1 -= 1 << f1;
    if (k2 >= 1 << (f2 - 1))
        k2 -= 1 << f2;
    if (k2 == -(1 << (f2 - 1))) {
        uint64_t lo = 0, hi = r->novf;
        while (lo < hi) {
            uint64_t mid = (lo + hi) / 2;
            int32_t idx = get32(r->ovf + 8 * mid);
            if ((uint64_t)idx == h) {
                k2 = get32(r->ovf + 8 * mid + 4);
                break;
            }
            if ((uint64_t)idx < h)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo >= hi)
            return MA_EFORMAT;
    }
    *key1 = k1;
    *key2 = k2;
    return MA_OK;
}

/* ---- .secval ------------------------------------------------------------------------------- */

struct lexer {
    const char *text, *p;
};

static int next_int(struct lexer *lx, long *v)
{
    while (*lx->p && isspace((unsigned char)*lx->p))
        lx->p++;
    char *end;
    errno = 0;
    *v = strtol(lx->p, &end, 10);
    if (end == lx->p || errno || *v < -1000000000L || *v > 1000000000L)
        return 0;
    lx->p = end;
    return 1;
}

static int expect_label(struct lexer *lx, const char *label)
{
    while (*lx->p && isspace((unsigned char)*lx->p))
        lx->p++;
    size_t n = strlen(label);
    if (strncmp(lx->p, label, n))
        return 0;
    lx->p += n;
    return 1;
}

int ma_svm_secval_read(ma_svm_secval *sv, const char *path, ma_error *err)
{
    memset(sv, 0, sizeof *sv);
    FILE *f = fopen(path, "rb");
    if (!f)
        return ma_error_set(err, errno == ENOENT ? MA_EMISSING : MA_EIO, "%s: cannot open: %s",
                            path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *n = realloc(text, cap);
            if (!n) {
                free(text);
                fclose(f);
                return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
            }
            text = n;
        }
        size_t got = fread(text + len, 1, 4096, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    text[len] = '\0';
    struct lexer lx = {text, text};
    long vl, vw, n;
    int rc = MA_OK;
    if (!expect_label(&lx, "virt_loss_val:") || !next_int(&lx, &vl) ||
        !expect_label(&lx, "virt_win_val:") || !next_int(&lx, &vw) || !next_int(&lx, &n) ||
        n < 0 || n > 100000) {
        rc = ma_error_set(err, MA_EFORMAT, "%s: offset %ld: malformed .secval header", path,
                          (long)(lx.p - text));
    } else {
        sv->virt_loss = (int)vl;
        sv->virt_win = (int)vw;
        sv->sectors = malloc((size_t)(n ? n : 1) * sizeof *sv->sectors);
        sv->values = malloc((size_t)(n ? n : 1) * sizeof *sv->values);
        if (!sv->sectors || !sv->values)
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
        for (long i = 0; i < n && rc == MA_OK; i++) {
            long q[5];
            for (int j = 0; j < 5 && rc == MA_OK; j++)
                if (!next_int(&lx, &q[j]) || (j < 4 && (q[j] < 0 || q[j] > 24)))
                    rc = ma_error_set(err, MA_EFORMAT, "%s: offset %ld: malformed sector line %ld",
                                      path, (long)(lx.p - text), i + 1);
            if (rc == MA_OK) {
                ma_sv_sector s = {(int)q[0], (int)q[1], (int)q[2], (int)q[3]};
                sv->sectors[i] = s;
                sv->values[i] = (int)q[4];
                sv->n++;
            }
        }
        if (rc == MA_OK && (sv->virt_win <= 0 || sv->virt_loss != -sv->virt_win))
            rc = ma_error_set(err, MA_EFORMAT, "%s: offset 0: virt_win_val %d, virt_loss_val %d: "
                              "expected v and -v", path, sv->virt_win, sv->virt_loss);
    }
    free(text);
    if (rc != MA_OK)
        ma_svm_secval_free(sv);
    return rc;
}

void ma_svm_secval_free(ma_svm_secval *sv)
{
    free(sv->sectors);
    free(sv->values);
    memset(sv, 0, sizeof *sv);
}

int ma_svm_secval_get(const ma_svm_secval *sv, ma_sv_sector s, int *value, ma_error *err)
{
    for (int i = 0; i < sv->n; i++)
        if (ma_svrules_sector_eq(sv->sectors[i], s)) {
            *value = sv->values[i];
            return MA_OK;
        }
    return ma_error_set(err, MA_EMISSING, ".secval: sector %d_%d_%d_%d not listed", s.w, s.b, s.wf,
                        s.bf);
}
