/* Checker-side reader of the open database format (docs/format.md §5), written from the spec only. */
#include "verifier/formats/open_file.h"

#include "checksums/sha256.h"
#include "common/counts.h"
#include "common/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const uint8_t open_magic[8] = {0x89, 'M', 'I', 'L', 'L', '\r', '\n', 0x1A};

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

void ma_open_file_name(ma_variant v, ma_sector s, char *buf, size_t len)
{
    snprintf(buf, len, "%s_%u_%u_%u_%u%s", ma_variant_name(v), s.w, s.b, s.wf, s.bf,
             MA_OPEN_SUFFIX);
}

int ma_open_file_name_parse(const char *name, ma_variant *v, ma_sector *s)
{
    size_t n = strlen(name), sl = strlen(MA_OPEN_SUFFIX);
    const char *us = strchr(name, '_');
    if (n <= sl || strcmp(name + n - sl, MA_OPEN_SUFFIX) || !us)
        return MA_EINVAL;
    char word[8], sec[32];
    size_t wl = (size_t)(us - name), secl = n - sl - wl - 1;
    if (wl >= sizeof word || secl >= sizeof sec)
        return MA_EINVAL;
    memcpy(word, name, wl);
    word[wl] = '\0';
    memcpy(sec, us + 1, secl);
    sec[secl] = '\0';
    if (ma_variant_parse(word, v, NULL) || ma_sector_parse(sec, s, NULL))
        return MA_EINVAL;
    return MA_OK;
}

int ma_open_header_identify(const uint8_t h[MA_OPEN_HEADER_SIZE], ma_open_header *out)
{
    memset(out, 0, sizeof *out);
    if (memcmp(h, open_magic, sizeof open_magic) || le16(h + 8) != MA_OPEN_FORMAT_VERSION ||
        le16(h + 10) != MA_OPEN_HEADER_SIZE || h[12] < MA_VARIANT_STD || h[12] > MA_VARIANT_MORA)
        return MA_EFORMAT;
    out->format_version = le16(h + 8);
    out->header_size = le16(h + 10);
    out->variant = (ma_variant)h[12];
    out->rule_flags = h[13];
    out->sector.w = h[14];
    out->sector.b = h[15];
    out->sector.wf = h[16];
    out->sector.bf = h[17];
    out->entry_width = h[18];
    out->value_encoding = h[19];
    out->index_scheme = le16(h + 20);
    out->index_scheme_version = le16(h + 22);
    out->entry_count = le64(h + 24);
    memcpy(out->producer, h + 32, 32);
    out->producer[32] = 0;
    memcpy(out->producer_version, h + 64, 16);
    out->producer_version[16] = 0;
    memcpy(out->body_digest, h + 80, sizeof out->body_digest);
    for (size_t i = 0; i < sizeof out->body_digest; i++)
        out->has_body_digest |= out->body_digest[i] != 0;
    return MA_OK;
}

/* The sector named in messages: the header's once the magic proved the file is ours, else the
 * file name's if it has our form, else "?". */
static void message_sector(const char *path, const uint8_t *hdr, char *buf, size_t len)
{
    ma_variant v;
    ma_sector s;
    if (hdr) {
        s.w = hdr[14];
        s.b = hdr[15];
        s.wf = hdr[16];
        s.bf = hdr[17];
        ma_sector_format(s, buf, len);
    } else if (ma_open_file_name_parse(ma_path_base(path), &v, &s) == MA_OK) {
        ma_sector_format(s, buf, len);
    } else {
        snprintf(buf, len, "?");
    }
}

#define FAIL(code, hdr, off, ...)                                                                  \
    do {                                                                                           \
        char sec_[32], what_[256];                                                                 \
        message_sector(path, (hdr), sec_, sizeof sec_);                                            \
        snprintf(what_, sizeof what_, __VA_ARGS__);                                                \
        rc = ma_error_set(err, (code), "%s: sector %s: offset %llu: %s", path, sec_,               \
                          (unsigned long long)(off), what_);                                       \
        goto out;                                                                                  \
    } while (0)

/* Offsets of the sector fields (§5.1): variant 12, W 14, B 15, WF 16, BF 17. Messages name the
 * offset of the field that is wrong, not the start of the sector. */
static uint64_t impossible_field(ma_variant v, ma_sector s)
{
    int n = ma_variant_stones(v);
    if (s.w > MA_POINTS)
        return 14;
    if (s.b > MA_POINTS)
        return 15;
    if (s.wf > MA_POINTS)
        return 16;
    if (s.bf > MA_POINTS)
        return 17;
    /* A bound on a pair: blame the stones in hand when they alone exceed what is left. */
    if (s.w + s.wf > n || s.w + s.wf < 3)
        return s.w > n ? 14 : 16;
    if (s.b + s.bf > n || s.b + s.bf < 3)
        return s.b > n ? 15 : 17;
    return 14; /* W + B > 24 */
}

/* The header field that disagrees with the file name (its first one when several do). */
static uint64_t name_field(const char *name, const ma_open_header *hd)
{
    ma_variant v;
    ma_sector s;
    if (ma_open_file_name_parse(name, &v, &s) != MA_OK || v != hd->variant)
        return 12;
    if (s.w != hd->sector.w)
        return 14;
    if (s.b != hd->sector.b)
        return 15;
    if (s.wf != hd->sector.wf)
        return 16;
    if (s.bf != hd->sector.bf)
        return 17;
    return 12;
}

/* Validates the 128 header bytes h of a file of `size` bytes (§5.1, §5.2) and fills f->header. */
static int check_header(ma_open_file *f, const char *path, const uint8_t *h, uint64_t size,
                        ma_open_index *ix, int expect_name, ma_error *err)
{
    int rc = MA_OK;
    ma_open_header *hd = &f->header;
    memset(hd, 0, sizeof *hd);
    if (memcmp(h, open_magic, sizeof open_magic))
        FAIL(MA_EFORMAT, NULL, 0, "bad magic (not a millaudit open-format file)");
    hd->format_version = le16(h + 8);
    if (hd->format_version != MA_OPEN_FORMAT_VERSION)
        FAIL(MA_EFORMAT, h, 8, "format version %u, expected %u", hd->format_version,
             MA_OPEN_FORMAT_VERSION);
    hd->header_size = le16(h + 10);
    if (hd->header_size != MA_OPEN_HEADER_SIZE)
        FAIL(MA_EFORMAT, h, 10, "header size %u, expected %u", hd->header_size, MA_OPEN_HEADER_SIZE);
    if (h[12] < MA_VARIANT_STD || h[12] > MA_VARIANT_MORA)
        FAIL(MA_EFORMAT, h, 12, "unknown variant %u (expected 1 std, 2 lask, 3 mora)", h[12]);
    hd->variant = (ma_variant)h[12];
    hd->rule_flags = h[13];
    uint8_t want_flags = hd->variant == MA_VARIANT_MORA ? 1 : 0;
    if (hd->rule_flags != want_flags)
        FAIL(MA_EFORMAT, h, 13, "rule flags 0x%02x, expected 0x%02x for %s", hd->rule_flags,
             want_flags, ma_variant_name(hd->variant));
    hd->sector.w = h[14];
    hd->sector.b = h[15];
    hd->sector.wf = h[16];
    hd->sector.bf = h[17];
    if (hd->sector.w > MA_POINTS || hd->sector.b > MA_POINTS || hd->sector.wf > MA_POINTS ||
        hd->sector.bf > MA_POINTS || !ma_sector_valid(hd->variant, hd->sector))
        FAIL(MA_EFORMAT, h, impossible_field(hd->variant, hd->sector), "sector impossible for %s",
             ma_variant_name(hd->variant));
    if (expect_name) {
        char want[64];
        ma_open_file_name(hd->variant, hd->sector, want, sizeof want);
        if (strcmp(ma_path_base(path), want))
            FAIL(MA_EFORMAT, h, name_field(ma_path_base(path), hd), "header says %s, file name disagrees",
                 want);
    }
    hd->entry_width = h[18];
    if (hd->entry_width != 2)
        FAIL(MA_EFORMAT, h, 18, "entry width %u, expected 2", hd->entry_width);
    hd->value_encoding = h[19];
    if (hd->value_encoding != 1)
        FAIL(MA_EFORMAT, h, 19, "value encoding %u, expected 1", hd->value_encoding);
    hd->index_scheme = le16(h + 20);
    if (hd->index_scheme != 1)
        FAIL(MA_EFORMAT, h, 20, "index scheme %u, expected 1 (sym16-colex)", hd->index_scheme);
    hd->index_scheme_version = le16(h + 22);
    if (hd->index_scheme_version != 1)
        FAIL(MA_EFORMAT, h, 22, "index scheme version %u, expected 1", hd->index_scheme_version);
    hd->entry_count = le64(h + 24);
    int prc = ma_open_index_prepare(ix, hd->sector.w, err);
    if (prc) {
        rc = prc;
        goto out;
    }
    uint64_t want_count = ma_open_index_entry_count(ix, hd->sector.w, hd->sector.b);
    if (hd->entry_count != want_count)
        FAIL(MA_EFORMAT, h, 24, "entry count %llu, expected %llu",
             (unsigned long long)hd->entry_count, (unsigned long long)want_count);
    memcpy(hd->producer, h + 32, 32);
    hd->producer[32] = '\0';
    memcpy(hd->producer_version, h + 64, 16);
    hd->producer_version[16] = '\0';
    /* bytes 80..111: SHA-256 of the body, or all zero when the producer recorded none (§5.1) */
    memcpy(hd->body_digest, h + 80, sizeof hd->body_digest);
    hd->has_body_digest = 0;
    for (int i = 80; i < 112; i++)
        hd->has_body_digest |= h[i] != 0;
    for (int i = 112; i < MA_OPEN_HEADER_SIZE; i++)
        if (h[i])
            FAIL(MA_EFORMAT, h, i, "reserved byte is 0x%02x, must be 0", h[i]);
    /* entry_count is bounded by the index (< 2^32), so this cannot overflow. */
    uint64_t want_size = MA_OPEN_HEADER_SIZE + 2 * hd->entry_count;
    if (size < want_size)
        FAIL(MA_EFORMAT, h, size, "truncated body: file has %s, expected %s",
             MA_COUNT(size, "byte", "bytes"), MA_NUM(want_size));
    if (size > want_size)
        FAIL(MA_EFORMAT, h, want_size, "%s after the last entry",
             MA_COUNT(size - want_size, "trailing byte", "trailing bytes"));
out:
    return rc;
}

/* ma_open_file_map, or with private_read MA_HOLD_PRIVATE ma_open_file_read (stopped once *cancel
 * is set), or with MA_HOLD_MAPPED_STAMPED ma_open_file_map_stamped. */
static int open_file(ma_open_file *f, const char *path, ma_open_index *ix, int expect_name,
                     int private_read, const volatile sig_atomic_t *cancel, ma_error *err)
{
    int rc = MA_OK;
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    int fd = -1;
    void *map = MAP_FAILED;
    struct stat st = {0};
    ma_error oerr;
    int orc = ma_file_open_regular(path, &fd, &st, &oerr);
    /* mapped: stamped before any byte is read, so a write during the mapping's use shows */
    if (!orc && private_read == MA_HOLD_MAPPED_STAMPED)
        orc = ma_file_stamp_take(fd, path, &st, &f->stamp, &oerr);
    if (orc) /* the reason without the path ma_file_open_regular put in front */
        FAIL(orc == MA_EFORMAT ? MA_EFORMAT : orc == MA_EMISSING ? MA_EMISSING : MA_EIO, NULL, 0, "%.200s",
             strstr(oerr.msg, ": ") ? strstr(oerr.msg, ": ") + 2 : oerr.msg);
    if (st.st_size == 0)
        FAIL(MA_EFORMAT, NULL, 0, "empty file");
    if ((uint64_t)st.st_size < MA_OPEN_HEADER_SIZE)
        FAIL(MA_EFORMAT, NULL, (uint64_t)st.st_size, "truncated header: %s, expected %s",
             MA_COUNT((uint64_t)st.st_size, "byte", "bytes"), MA_NUM(MA_OPEN_HEADER_SIZE));
    if (private_read == MA_HOLD_PRIVATE) {
        char sec[32], who[4400];
        message_sector(path, NULL, sec, sizeof sec);
        snprintf(who, sizeof who, "%.4000s: sector %s", path, sec);
        rc = ma_private_read(&f->priv, fd, who, (uint64_t)st.st_size, cancel, err);
        if (rc)
            goto out;
        rc = check_header(f, path, f->priv.data, (uint64_t)st.st_size, ix, expect_name, err);
        if (rc) {
            ma_private_free(&f->priv);
            goto out;
        }
        f->map = f->priv.data;
        f->map_size = f->priv.size;
        f->body = f->priv.data + MA_OPEN_HEADER_SIZE;
        goto out;
    }
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED)
        FAIL(MA_EIO, NULL, 0, "cannot map: %s", strerror(errno));
    rc = check_header(f, path, map, (uint64_t)st.st_size, ix, expect_name, err);
    if (rc)
        goto out;
    f->map = map;
    f->map_size = (size_t)st.st_size;
    f->body = (const uint8_t *)map + MA_OPEN_HEADER_SIZE;
    map = MAP_FAILED;
out:
    if (map != MAP_FAILED)
        munmap(map, (size_t)st.st_size);
    if (fd >= 0)
        close(fd);
    return rc;
}

int ma_open_file_map(ma_open_file *f, const char *path, ma_open_index *ix, int expect_name,
                     ma_error *err)
{
    return open_file(f, path, ix, expect_name, MA_HOLD_MAPPED, NULL, err);
}

int ma_open_file_map_stamped(ma_open_file *f, const char *path, ma_open_index *ix, int expect_name,
                             ma_error *err)
{
    return open_file(f, path, ix, expect_name, MA_HOLD_MAPPED_STAMPED, NULL, err);
}

int ma_open_file_read(ma_open_file *f, const char *path, ma_open_index *ix, int expect_name,
                      const volatile sig_atomic_t *cancel, ma_error *err)
{
    return open_file(f, path, ix, expect_name, MA_HOLD_PRIVATE, cancel, err);
}

void ma_open_file_close(ma_open_file *f)
{
    if (f->priv.read)
        ma_private_free(&f->priv);
    else if (f->map)
        munmap((void *)f->map, f->map_size);
    f->map = NULL;
    f->body = NULL;
    f->map_size = 0;
}

int ma_open_value_decode(uint16_t word, ma_value *v)
{
    v->outcome = (ma_outcome)(word >> 14);
    v->depth = word & 0x3FFF;
    switch (v->outcome) {
    case MA_OUTCOME_NONE:
    case MA_OUTCOME_DRAW: return v->depth == 0 ? 0 : -1;
    case MA_OUTCOME_LOSS: return (v->depth & 1) == 0 ? 0 : -1;
    case MA_OUTCOME_WIN: return (v->depth & 1) == 1 ? 0 : -1;
    }
    return -1;
}

uint16_t ma_open_value_encode(ma_value v)
{
    return (uint16_t)(((unsigned)v.outcome & 3u) << 14 | (v.depth & 0x3FFFu));
}


int ma_open_file_body_digest_ok(const ma_open_file *f)
{
    if (!f->header.has_body_digest)
        return -1;
    uint8_t d[MA_SHA256_LEN];
    ma_sha256_buffer(d, f->body, (size_t)(2 * f->header.entry_count));
    return memcmp(d, f->header.body_digest, sizeof d) == 0;
}
