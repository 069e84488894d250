/*
 * `.sec2` and legacy `.sec` readers (malom-format.md §5.1-5.3, §5.5-5.8). Contract in
 * malom_file.h. All validation happens in open, so entry reads need no error path.
 */
#include "verifier/formats/malom_file.h"

#include "checksums/private_read.h"
#include "common/counts.h"
#include "common/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "indexer/malom_index.h"

#define SEC2_HEADER 64
#define SEC2_VERSION 2
#define SEC_OVERFLOW_BYTE 179 /* legacy: value in the overflow table */
#define SEC_SYM_FIRST 180     /* legacy: markers 180..194 = op 0..14 */
#define SEC_SYM_LAST 194
#define SEC_MAX_INLINE_VAL 178
#define SEC_MAX_INLINE_COUNT 60

struct ma_malom_file {
    char *path;                 /* as given, for messages */
    ma_malom_format format;     /* .sec2 or .sec */
    ma_variant variant;
    ma_sector sector;
    char sector_text[24];       /* "W_B_WF_BF" */
    const uint8_t *map;         /* whole file, read-only; NULL for an empty file */
    ma_private_bytes priv;      /* read privately (priv.read): map is priv.data, else a mapping */
    ma_file_stamp stamp;        /* mapped and stamped: the file as it was mapped
                                 * (common/fileio.h), taken before any byte was read */
    int stamped;                /* opened with MA_HOLD_MAPPED_STAMPED */
    size_t size;                /* file length in bytes */
    uint64_t count;             /* entries = hash_count(W, B) */
    const uint8_t *entries;     /* first entry */
    int entry_size;             /* bytes per entry: 3 or 2 (.sec2), 1 (.sec) */
    int f1, f2;                 /* .sec2 field widths in bits */
    int stone_diff;             /* .sec2 header flag */
    int32_t spec;               /* .sec2 inline field-2 value meaning "see overflow table" */
    int32_t inline_max;         /* .sec2 largest inline |key2| */
    const uint8_t *overflow;    /* first overflow record (int32 index, int32 value) */
    uint32_t overflow_count;    /* records */
    ma_malom_frame frame;       /* v(S), VW, VL for interpretation */
};

static const char *variant_word(ma_variant v)
{
    switch (v) {
    case MA_VARIANT_STD: return "std";
    case MA_VARIANT_LASK: return "lask";
    case MA_VARIANT_MORA: return "mora";
    }
    return NULL;
}

static int stones_of(ma_variant v)
{
    switch (v) {
    case MA_VARIANT_STD: return 9;
    case MA_VARIANT_LASK: return 10;
    case MA_VARIANT_MORA: return 12;
    }
    return 0;
}

static int32_t rd32(const uint8_t *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return (int32_t)u;
}

static int32_t sign_extend(uint32_t x, int bits)
{
    uint32_t m = 1u << (bits - 1);
    return (int32_t)((x ^ m) - m);
}

#define FAIL(code, off, ...)                                                                       \
    do {                                                                                           \
        char what_[256];                                                                           \
        snprintf(what_, sizeof what_, __VA_ARGS__);                                                \
        rc = ma_error_set(err, code, "%s: sector %s: offset %llu: %s", path, f->sector_text,      \
                          (unsigned long long)(off), what_);                                       \
        goto fail;                                                                                 \
    } while (0)

void ma_malom_file_close(ma_malom_file *f)
{
    if (!f)
        return;
    if (f->priv.read)
        ma_private_free(&f->priv);
    else if (f->map)
        munmap((void *)f->map, f->size);
    free(f->path);
    free(f);
}

/* Allocates the handle, checks the sector, maps the file, or with private_read reads it into
 * private memory (checksums/private_read.h; a read that stops once *cancel is set). max_stones
 * bounds W+WF and B+BF. */
static int map_file(ma_malom_file **out, const char *path, ma_variant variant, ma_sector sector,
                    ma_malom_format format, int max_stones, int private_read,
                    const volatile sig_atomic_t *cancel, ma_error *err)
{
    int rc = MA_OK;
    *out = NULL;
    ma_malom_file *f = calloc(1, sizeof *f);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    f->path = strdup(path);
    if (!f->path) {
        free(f);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    }
    f->format = format;
    f->variant = variant;
    f->sector = sector;
    snprintf(f->sector_text, sizeof f->sector_text, "%u_%u_%u_%u", sector.w, sector.b, sector.wf,
             sector.bf);
    if (!variant_word(variant))
        FAIL(MA_EINVAL, 0, "unknown variant %d", (int)variant);
    if (sector.w > MA_MALOM_MAX_STONES || sector.b > MA_MALOM_MAX_STONES ||
        sector.w + sector.wf > max_stones || sector.b + sector.bf > max_stones ||
        sector.w + sector.wf < 3 || sector.b + sector.bf < 3 || sector.w + sector.b > MA_POINTS)
        FAIL(MA_EINVAL, 0, "not a sector of %s", variant_word(variant));
    f->count = ma_malom_hash_count(sector.w, sector.b);

    int fd;
    struct stat st;
    ma_error oerr;
    int orc = ma_file_open_regular(path, &fd, &st, &oerr);
    f->stamped = !orc && private_read == MA_HOLD_MAPPED_STAMPED;
    if (f->stamped && (orc = ma_file_stamp_take(fd, path, &st, &f->stamp, &oerr)) != MA_OK)
        close(fd);
    if (orc) /* keep the reason, drop the path ma_file_open_regular put in front */
        FAIL(orc, 0, "%.200s", strstr(oerr.msg, ": ") ? strstr(oerr.msg, ": ") + 2 : oerr.msg);
    f->size = (size_t)st.st_size;
    if (private_read == MA_HOLD_PRIVATE) {
        char who[4400];
        snprintf(who, sizeof who, "%.4000s: sector %s", path, f->sector_text);
        rc = ma_private_read(&f->priv, fd, who, (uint64_t)st.st_size, cancel, err);
        close(fd);
        if (rc)
            goto fail;
        f->map = f->priv.data;
        *out = f;
        return MA_OK;
    }
    if (f->size > 0) {
        void *m = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int e = errno;
            close(fd);
            FAIL(MA_EIO, 0, "cannot map: %s", strerror(e));
        }
        f->map = m;
    }
    close(fd);
    *out = f;
    return MA_OK;
fail:
    ma_malom_file_close(f);
    return rc;
}

/* Overflow table shared by both formats: n at table_off, then n records; the file must end right
 * after them. Checks sorted, unique and in-range indices. */
static int check_overflow_table(ma_malom_file *f, uint64_t table_off, ma_error *err)
{
    int rc = MA_OK;
    const char *path = f->path;
    if (f->size < table_off + 4)
        FAIL(MA_EFORMAT, f->size,
             "truncated: %s need %s before the overflow count, file has %s",
             MA_COUNT(f->count, "entry", "entries"), MA_COUNT(table_off + 4, "byte", "bytes"), MA_NUM(f->size));
    int32_t n = rd32(f->map + table_off);
    if (n < 0)
        FAIL(MA_EFORMAT, table_off, "negative overflow count %d", n);
    uint64_t expect = table_off + 4 + 8 * (uint64_t)n;
    if (f->size != expect)
        FAIL(MA_EFORMAT, f->size < expect ? f->size : expect,
             "file length %s, expected %s for %s and %s", MA_NUM(f->size), MA_NUM(expect),
             MA_COUNT(f->count, "entry", "entries"), MA_COUNT((uint64_t)n, "overflow record", "overflow records"));
    f->overflow = f->map + table_off + 4;
    f->overflow_count = (uint32_t)n;
    int64_t prev = -1;
    for (uint32_t i = 0; i < f->overflow_count; i++) {
        int32_t idx = rd32(f->overflow + 8 * (uint64_t)i);
        uint64_t off = table_off + 4 + 8 * (uint64_t)i;
        if (idx < 0 || (uint64_t)idx >= f->count)
            FAIL(MA_EFORMAT, off, "overflow record %u: index %d outside 0..%llu", i, idx,
                 (unsigned long long)(f->count - 1));
        if (idx <= prev)
            FAIL(MA_EFORMAT, off, "overflow record %u: index %d %s previous index %lld", i, idx,
                 idx == prev ? "repeats the" : "is below the", (long long)prev);
        prev = idx;
    }
    return MA_OK;
fail:
    return rc;
}

static int32_t overflow_value(const ma_malom_file *f, uint64_t index)
{
    uint32_t lo = 0, hi = f->overflow_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int32_t idx = rd32(f->overflow + 8 * (uint64_t)mid);
        if ((uint64_t)idx == index)
            return rd32(f->overflow + 8 * (uint64_t)mid + 4);
        if ((uint64_t)idx < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0; /* unreachable after a successful open: every overflow marker has its record */
}

static void sec2_inline(const ma_malom_file *f, uint64_t index, int32_t *k1, int32_t *k2)
{
    const uint8_t *p = f->entries + index * (uint64_t)f->entry_size;
    uint32_t raw = (uint32_t)p[0] | (uint32_t)p[1] << 8;
    if (f->entry_size == 3)
        raw |= (uint32_t)p[2] << 16;
    *k1 = sign_extend(raw & ((1u << f->f1) - 1u), f->f1);
    *k2 = sign_extend(raw >> f->f1, f->f2);
}

uint64_t ma_malom_file_entry_offset(const ma_malom_file *f, uint64_t index)
{
    return (uint64_t)(f->entries - f->map) + index * (uint64_t)f->entry_size;
}

/* The first index at or after i whose entry says "see the overflow table" (.sec: byte 179; .sec2:
 * field 2 = spec), or f->count. A real file has a handful of such entries among millions, and the
 * scan runs before the check's threads start: so blocks of entries are tested without a branch per
 * entry (memchr for bytes; a loop the compiler vectorizes for 2- and 3-byte words), and only a
 * block that holds one is walked entry by entry. */
static uint64_t next_overflow_entry(const ma_malom_file *f, uint64_t i)
{
    if (f->entry_size == 1) {
        const void *hit =
            i < f->count ? memchr(f->entries + i, SEC_OVERFLOW_BYTE, (size_t)(f->count - i)) : NULL;
        return hit ? (uint64_t)((const uint8_t *)hit - f->entries) : f->count;
    }
    /* sign_extend(raw >> f1, f2) == spec exactly when field 2's bits are spec's low f2 bits */
    const uint32_t field2 = ((1u << f->f2) - 1u) << f->f1;
    const uint32_t want = ((uint32_t)f->spec << f->f1) & field2;
    const uint64_t size = (uint64_t)f->entry_size;
    enum { BLOCK = 512 };
    while (i < f->count) {
        uint64_t end = f->count - i > BLOCK ? i + BLOCK : f->count;
        const uint8_t *p = f->entries + i * size;
        unsigned any = 0;
        if (size == 2) {
            for (uint64_t k = 0; k < end - i; k++)
                any |= (((uint32_t)p[2 * k] | (uint32_t)p[2 * k + 1] << 8) & field2) == want;
        } else {
            /* One 4-byte load per entry (field2 masks the next entry's byte off), except for the
             * file's last entry, whose fourth byte may lie past the entries: three loads and
             * shifts per entry made this scan, serial before the check, cost 2% of a check. */
            uint64_t n = end - i - (end == f->count);
            for (uint64_t k = 0; k < n; k++)
                any |= ((uint32_t)rd32(p + 3 * k) & field2) == want; /* one load (GCC, Clang) */
            for (uint64_t k = n; k < end - i; k++)
                any |= (((uint32_t)p[3 * k] | (uint32_t)p[3 * k + 1] << 8 |
                         (uint32_t)p[3 * k + 2] << 16) & field2) == want;
        }
        for (uint64_t k = i; any && k < end; k++) {
            int32_t k1, k2;
            sec2_inline(f, k, &k1, &k2);
            if (k2 == f->spec)
                return k;
        }
        i = end;
    }
    return f->count;
}

/* The entries that say "overflow" merged with the overflow table (sorted and in range, see
 * check_overflow_table): every such entry has a record and every record such an entry, and an
 * overflowed value must not fit inline. Errors come in index order, as one pass would find them. */
static int overflow_scan(ma_malom_file *f, ma_error *err)
{
    int rc = MA_OK;
    const char *path = f->path;
    const int sec = f->entry_size == 1;
    const uint64_t table = (uint64_t)(f->overflow - f->map);
    uint32_t j = 0;
    int64_t next = f->overflow_count ? rd32(f->overflow) : -1;
    for (uint64_t i = 0;;) {
        uint64_t at = next_overflow_entry(f, i);
        if (next >= 0 && (uint64_t)next < at) {
            int32_t k1, k2;
            if (sec)
                FAIL(MA_EFORMAT, table + 8 * (uint64_t)j,
                     "overflow record %u: entry %lld is byte %u, not 179", j, (long long)next,
                     f->entries[next]);
            sec2_inline(f, (uint64_t)next, &k1, &k2);
            FAIL(MA_EFORMAT, table + 8 * (uint64_t)j,
                 "overflow record %u: entry %lld does not say overflow (field 2 = %d)", j,
                 (long long)next, k2);
        }
        if (at == f->count)
            break;
        if (next != (int64_t)at)
            FAIL(MA_EFORMAT, ma_malom_file_entry_offset(f, at),
                 sec ? "entry %llu: byte 179 but the overflow table has no record for it"
                     : "entry %llu: field 2 says overflow but the table has no record for it",
                 (unsigned long long)at);
        uint64_t roff = table + 8 * (uint64_t)j + 4;
        int32_t v = rd32(f->overflow + 8 * (uint64_t)j + 4);
        if (!sec && v >= -f->inline_max && v <= f->inline_max)
            FAIL(MA_EFORMAT, roff, "overflow record %u: value %d fits inline (|value| <= %d)", j, v,
                 f->inline_max);
        if (sec && v >= 0 && v <= SEC_MAX_INLINE_VAL)
            FAIL(MA_EFORMAT, roff, "overflow record %u: value %d fits inline (<= %d)", j, v,
                 SEC_MAX_INLINE_VAL);
        if (sec && v < 0 && -(int64_t)v <= SEC_MAX_INLINE_COUNT)
            FAIL(MA_EFORMAT, roff, "overflow record %u: counter %lld fits inline (<= %d)", j,
                 -(long long)v, SEC_MAX_INLINE_COUNT);
        /* A .sec2 marker naming an op >= 15 (no such symmetry) is left to the checker: it is a
         * wrong marker at that entry (symmetry-inconsistency), not a reason to distrust the file. */
        j++;
        next = j < f->overflow_count ? rd32(f->overflow + 8 * (uint64_t)j) : -1;
        i = at + 1;
    }
    return MA_OK;
fail:
    return rc;
}

/* Reads <dir>/<variant>.secval beside path into *owned and fills frame. */
static int frame_from_beside(ma_malom_file *f, ma_error *err)
{
    const char *path = f->path;
    int rc = MA_OK;
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    char sv_path[4096];
    if (dirlen + 16 > sizeof sv_path)
        FAIL(MA_EINVAL, 0, "path too long");
    snprintf(sv_path, sizeof sv_path, "%.*s%s.secval", (int)dirlen, path, variant_word(f->variant));
    if (access(sv_path, F_OK) != 0)
        FAIL(MA_EMISSING, 0, "not a STONE_DIFF file, so it needs %.180s, which is absent", sv_path);
    ma_malom_secval *sv;
    rc = ma_malom_secval_open(&sv, sv_path, f->variant, err);
    if (rc)
        return rc;
    rc = ma_malom_secval_frame(sv, f->sector, &f->frame, err);
    ma_malom_secval_free(sv);
    return rc;
fail:
    return rc;
}

/* no_values: NULL to read <variant>.secval beside the file when values is NULL and the file needs
 * them, else the reason it may not (ma_malom_file_open_sec2_given). */
static int open_sec2(ma_malom_file **out, const char *path, ma_variant variant, ma_sector sector,
                     const ma_malom_secval *values, const char *no_values, int private_read,
                     const volatile sig_atomic_t *cancel, ma_error *err)
{
    ma_malom_file *f;
    int rc = map_file(&f, path, variant, sector, MA_MALOM_SEC2, stones_of(variant), private_read,
                      cancel, err);
    if (rc)
        return rc;
    const uint8_t *h = f->map;
    if (f->size < SEC2_HEADER)
        FAIL(MA_EFORMAT, f->size, "truncated header: %s of %s", MA_NUM(f->size), MA_COUNT(SEC2_HEADER, "byte", "bytes"));
    int32_t version = rd32(h), esize = rd32(h + 4), f1 = rd32(h + 8);
    uint8_t flag = h[12];
    if (version != SEC2_VERSION)
        FAIL(MA_EFORMAT, 0, "format version %d, expected %d", version, SEC2_VERSION);
    if (esize != 2 && esize != 3)
        FAIL(MA_EFORMAT, 4, "eval_struct_size %d, expected 2 or 3", esize);
    if (flag > 1)
        FAIL(MA_EFORMAT, 12, "stone_diff_flag %u, expected 0 or 1", flag);
    int want_size = flag ? 2 : 3;
    int want_f1 = flag ? 6 : (variant == MA_VARIANT_STD ? 12 : 14);
    int other_f1 = !flag ? 6 : (variant == MA_VARIANT_STD ? 12 : 14);
    /* Both layout fields agree with the other build: the flag is the field that is wrong. */
    if ((esize != want_size || f1 != want_f1) && esize == (flag ? 3 : 2) && f1 == other_f1)
        FAIL(MA_EFORMAT, 12, "stone_diff_flag %u, but eval_struct_size %d and field2_offset %d are "
             "the %s%s layout", flag, esize, f1, variant_word(variant),
             flag ? "" : " STONE_DIFF");
    if (esize != want_size)
        FAIL(MA_EFORMAT, 4, "eval_struct_size %d, but %s files have %d", esize,
             flag ? "STONE_DIFF" : "non-STONE_DIFF", want_size);
    if (f1 != want_f1)
        FAIL(MA_EFORMAT, 8, "field2_offset %d, expected %d for %s%s", f1, want_f1,
             variant_word(variant), flag ? " STONE_DIFF" : "");
    for (int i = 13; i < SEC2_HEADER; i++)
        if (h[i] != 0)
            FAIL(MA_EFORMAT, (uint64_t)i, "reserved header byte is %u, expected 0", h[i]);
    f->entry_size = esize;
    f->f1 = f1;
    f->f2 = 8 * esize - f1;
    f->stone_diff = flag;
    f->spec = -(int32_t)(1u << (f->f2 - 1));
    f->inline_max = (int32_t)(1u << (f->f2 - 1)) - 1;
    f->entries = f->map + SEC2_HEADER;
    rc = check_overflow_table(f, SEC2_HEADER + (uint64_t)esize * f->count, err);
    if (rc)
        goto fail;
    rc = overflow_scan(f, err);
    if (rc)
        goto fail;
    if (flag) {
        f->frame = ma_malom_stonediff_frame(variant, sector);
    } else if (values) {
        if (ma_malom_secval_variant(values) != variant)
            FAIL(MA_EINVAL, 0, "sector values given are for another variant");
        rc = ma_malom_secval_frame(values, sector, &f->frame, err);
    } else if (no_values) {
        FAIL(MA_EMISSING, 0, "not a STONE_DIFF file, so it needs its sector values: %s", no_values);
    } else {
        rc = frame_from_beside(f, err);
    }
    if (rc)
        goto fail;
    *out = f;
    return MA_OK;
fail:
    ma_malom_file_close(f);
    return rc;
}

int ma_malom_file_open_sec2(ma_malom_file **out, const char *path, ma_variant variant,
                            ma_sector sector, const ma_malom_secval *values, ma_error *err)
{
    return open_sec2(out, path, variant, sector, values, NULL, 0, NULL, err);
}

int ma_malom_file_open_sec2_given(ma_malom_file **out, const char *path, ma_variant variant, ma_sector sector,
                                  const ma_malom_secval *values, const char *no_values, ma_error *err)
{
    return open_sec2(out, path, variant, sector, values, no_values ? no_values : "none given", 0, NULL,
                     err);
}

static int open_sec(ma_malom_file **out, const char *path, ma_variant variant, ma_sector sector,
                    int private_read, const volatile sig_atomic_t *cancel, ma_error *err)
{
    ma_malom_file *f;
    /* Legacy files also hold the extended solution, where every variant has 12 stones (§3.3). */
    int rc = map_file(&f, path, variant, sector, MA_MALOM_SEC, MA_MALOM_MAX_STONES, private_read,
                      cancel, err);
    if (rc)
        return rc;
    f->entry_size = 1;
    f->entries = f->map;
    f->frame.v = 0;
    f->frame.vw = 1;
    f->frame.vl = -1;
    rc = check_overflow_table(f, f->count, err);
    if (!rc)
        rc = overflow_scan(f, err);
    if (rc) {
        ma_malom_file_close(f);
        return rc;
    }
    *out = f;
    return MA_OK;
}

int ma_malom_file_open_sec(ma_malom_file **out, const char *path, ma_variant variant,
                           ma_sector sector, ma_error *err)
{
    return open_sec(out, path, variant, sector, 0, NULL, err);
}

int ma_malom_file_open_read(ma_malom_file **out, const char *path, ma_malom_format format,
                            ma_variant variant, ma_sector sector, const ma_malom_secval *values,
                            const char *no_values, int private_read,
                            const volatile sig_atomic_t *cancel, ma_error *err)
{
    if (format == MA_MALOM_SEC)
        return open_sec(out, path, variant, sector, private_read, cancel, err);
    return open_sec2(out, path, variant, sector, values, no_values ? no_values : "none given",
                     private_read, cancel, err);
}

int ma_malom_file_name_parse(const char *path, ma_variant *variant, ma_sector *sector,
                             ma_malom_format *format, ma_error *err)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char word[8];
    unsigned v[4];
    int used = 0;
    if (sscanf(base, "%7[a-z]_%u_%u_%u_%u%n", word, &v[0], &v[1], &v[2], &v[3], &used) != 5)
        return ma_error_set(err, MA_EINVAL, "%s: not a Malom sector file name "
                            "(<variant>_<W>_<B>_<WF>_<BF>.sec2 or .sec)", path);
    const char *ext = base + used;
    static const ma_variant all[3] = {MA_VARIANT_STD, MA_VARIANT_LASK, MA_VARIANT_MORA};
    int found = 0;
    for (int i = 0; i < 3; i++)
        if (strcmp(word, variant_word(all[i])) == 0) {
            *variant = all[i];
            found = 1;
        }
    if (!found)
        return ma_error_set(err, MA_EINVAL, "%s: unknown variant \"%s\" (std, lask, mora)", path, word);
    for (int i = 0; i < 4; i++)
        if (v[i] > 24)
            return ma_error_set(err, MA_EINVAL, "%s: stone count %u in the name exceeds 24", path, v[i]);
    if (strcmp(ext, ".sec2") == 0)
        *format = MA_MALOM_SEC2;
    else if (strcmp(ext, ".sec") == 0)
        *format = MA_MALOM_SEC;
    else
        return ma_error_set(err, MA_EINVAL, "%s: extension must be .sec2 or .sec", path);
    sector->w = (uint8_t)v[0];
    sector->b = (uint8_t)v[1];
    sector->wf = (uint8_t)v[2];
    sector->bf = (uint8_t)v[3];
    return MA_OK;
}

int ma_malom_file_open(ma_malom_file **out, const char *path, const ma_malom_secval *values,
                       ma_error *err)
{
    ma_variant variant;
    ma_sector sector;
    ma_malom_format format;
    int rc = ma_malom_file_name_parse(path, &variant, &sector, &format, err);
    if (rc)
        return rc;
    if (format == MA_MALOM_SEC2)
        return ma_malom_file_open_sec2(out, path, variant, sector, values, err);
    return ma_malom_file_open_sec(out, path, variant, sector, err);
}

ma_malom_format ma_malom_file_format(const ma_malom_file *f) { return f->format; }
ma_variant ma_malom_file_variant(const ma_malom_file *f) { return f->variant; }
ma_sector ma_malom_file_sector(const ma_malom_file *f) { return f->sector; }
uint64_t ma_malom_file_entry_count(const ma_malom_file *f) { return f->count; }
const uint8_t *ma_malom_file_bytes(const ma_malom_file *f, size_t *size)
{
    *size = f->size;
    return f->map;
}
const char *ma_malom_file_private_sha256(const ma_malom_file *f)
{
    return f->priv.read ? f->priv.sha256 : NULL;
}

const ma_file_stamp *ma_malom_file_stamp(const ma_malom_file *f)
{
    return f->stamped ? &f->stamp : NULL;
}
ma_malom_frame ma_malom_file_frame(const ma_malom_file *f) { return f->frame; }
uint32_t ma_malom_file_overflow_count(const ma_malom_file *f) { return f->overflow_count; }
int ma_malom_file_stone_diff(const ma_malom_file *f) { return f->stone_diff; }
int ma_malom_file_entry_size(const ma_malom_file *f) { return f->entry_size; }

void ma_malom_file_view(const ma_malom_file *f, ma_malom_view *v)
{
    v->entries = f->entries;
    v->entry_size = f->entry_size;
    v->f1 = f->f1;
    v->f2 = f->f2;
    v->spec = f->spec;
}

static void classify(ma_malom_entry *e)
{
    if (e->key1 != 0) {
        e->kind = MA_MALOM_VAL;
        e->sym_op = -1;
    } else if (e->key2 < 0) {
        e->kind = MA_MALOM_SYM;
        e->sym_op = -e->key2 - 1;
    } else {
        e->kind = MA_MALOM_COUNT;
        e->sym_op = -1;
    }
}

void ma_malom_file_entry(const ma_malom_file *f, uint64_t index, ma_malom_entry *out)
{
    if (f->format == MA_MALOM_SEC2) {
        sec2_inline(f, index, &out->key1, &out->key2);
        if (out->key2 == f->spec)
            out->key2 = overflow_value(f, index);
        classify(out);
        return;
    }
    uint8_t e = f->entries[index];
    if (e <= SEC_MAX_INLINE_VAL) {
        out->key1 = (e & 1) ? 1 : -1;
        out->key2 = e;
    } else if (e == SEC_OVERFLOW_BYTE) {
        int32_t v = overflow_value(f, index);
        /* value >= 0: a depth; value < 0: a counter -value (a Count, key1 = 0) */
        out->key1 = v >= 0 ? ((v & 1) ? 1 : -1) : 0;
        out->key2 = v >= 0 ? v : (int32_t)(-(int64_t)v > INT32_MAX ? INT32_MAX : -(int64_t)v);
    } else if (e <= SEC_SYM_LAST) {
        out->key1 = 0;
        out->key2 = -(int32_t)(e - SEC_SYM_FIRST) - 1;
    } else {
        out->key1 = 0;
        out->key2 = 255 - e;
    }
    classify(out);
}

int ma_malom_interpret(const ma_malom_frame *frame, const ma_malom_entry *e, ma_malom_result *out)
{
    if (e->kind == MA_MALOM_SYM)
        return MA_EFORMAT;
    int64_t a = (int64_t)e->key1 + frame->v;
    out->draw_class = (int32_t)(a > INT32_MAX ? INT32_MAX : a < INT32_MIN ? INT32_MIN : a);
    if (a == frame->vw) {
        out->outcome = MA_MALOM_WIN;
        out->depth = e->key2;
        return (e->key2 >= 1 && (e->key2 & 1)) ? MA_OK : MA_EFORMAT;
    }
    if (a == frame->vl) {
        out->outcome = MA_MALOM_LOSS;
        out->depth = e->key2;
        return (e->key2 >= 0 && !(e->key2 & 1)) ? MA_OK : MA_EFORMAT;
    }
    out->outcome = MA_MALOM_DRAW;
    out->depth = -1;
    return MA_OK;
}

static int32_t clamp32(int64_t x)
{
    return (int32_t)(x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x);
}

ma_malom_value ma_malom_turn_value(ma_malom_value child, int32_t v_child, int32_t v_parent)
{
    int64_t cor = (int64_t)v_child + v_parent;
    int64_t k1 = (int64_t)child.key1 + cor;
    int sign = (k1 > 0) == (child.key1 > 0) ? 1 : -1;
    ma_malom_value m = {0, 0};
    if (k1 == 0 || child.key1 == 0) {
        /* k2' = 0: sign(k1' * k1) is 0 */
        if (k1 != 0) {
            m.key1 = clamp32(-k1);
            m.key2 = 1;
        }
        return m;
    }
    m.key1 = clamp32(-k1);
    m.key2 = clamp32((int64_t)sign * child.key2 + 1);
    return m;
}

ma_malom_value ma_malom_win_in_one(const ma_malom_frame *parent)
{
    ma_malom_value m = {clamp32((int64_t)parent->vw - parent->v), 1};
    return m;
}

ma_malom_value ma_malom_no_turn(const ma_malom_frame *parent)
{
    ma_malom_value m = {clamp32((int64_t)parent->vl - parent->v), 0};
    return m;
}

int ma_malom_value_cmp(ma_malom_value a, ma_malom_value b)
{
    if (a.key1 != b.key1)
        return a.key1 < b.key1 ? -1 : 1;
    if (a.key1 == 0 || a.key2 == b.key2)
        return 0;
    if (a.key1 < 0)
        return a.key2 < b.key2 ? -1 : 1;
    return a.key2 > b.key2 ? -1 : 1;
}
