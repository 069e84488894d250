/* checksums/published: what was published about a file, chunk lines, and the comparison
 * (checksums/published.h). */
#include "checksums/published.h"
#include "common/counts.h"

#include <stdlib.h>
#include <string.h>


static const char tag[] = "# millaudit-chunks ";

static int hex_at(uint8_t out[MA_SHA256_LEN], const char *p, const char *end)
{
    if (end - p < MA_SHA256_HEX_LEN)
        return -1;
    char buf[MA_SHA256_HEX_LEN + 1];
    memcpy(buf, p, MA_SHA256_HEX_LEN);
    buf[MA_SHA256_HEX_LEN] = 0;
    return ma_sha256_parse_hex(out, buf) == MA_OK ? 0 : -1;
}

/* A decimal number of at most 19 digits ending at a space; advances *p past the space. */
static int number_at(uint64_t *v, const char **p, const char *end)
{
    const char *q = *p;
    uint64_t x = 0;
    int digits = 0;
    while (q < end && *q >= '0' && *q <= '9' && digits < 19)
        x = x * 10 + (uint64_t)(*q++ - '0'), digits++;
    if (!digits || q >= end || *q != ' ')
        return -1;
    *v = x;
    *p = q + 1;
    return 0;
}

int ma_chunk_line_parse(ma_chunk_record *rec, const char *line, size_t len)
{
    memset(rec, 0, sizeof *rec);
    if (len && line[len - 1] == '\r')
        len--;
    size_t lt = sizeof tag - 1;
    if (len < lt || memcmp(line, tag, lt))
        return 0;
    const char *p = line + lt, *end = line + len;
    if (hex_at(rec->sha256, p, end) || p + MA_SHA256_HEX_LEN >= end || p[MA_SHA256_HEX_LEN] != ' ')
        return 0;
    p += MA_SHA256_HEX_LEN + 1;
    if (number_at(&rec->size, &p, end) || number_at(&rec->chunk_size, &p, end) || !rec->chunk_size ||
        rec->chunk_size > MA_SHA256_MAX_CHUNK)
        return 0;
    uint64_t want = rec->size / rec->chunk_size + (rec->size % rec->chunk_size != 0);
    if (end - p == 1 && *p == '-')
        return want == 0;
    /* each chunk is 64 hex digits, separated by commas */
    if (want == 0 || (uint64_t)(end - p) != want * (MA_SHA256_HEX_LEN + 1) - 1)
        return 0;
    rec->chunks = malloc((size_t)want * sizeof *rec->chunks);
    if (!rec->chunks)
        return -1;
    for (uint64_t k = 0; k < want; k++, p += MA_SHA256_HEX_LEN + 1)
        if (hex_at(rec->chunks[k], p, end) || (k + 1 < want && p[MA_SHA256_HEX_LEN] != ',')) {
            ma_chunk_record_free(rec);
            return 0;
        }
    rec->n_chunks = (size_t)want;
    return 1;
}

void ma_chunk_record_free(ma_chunk_record *rec)
{
    free(rec->chunks);
    memset(rec, 0, sizeof *rec);
}

int ma_chunk_line_write(FILE *f, const ma_file_digest *d)
{
    char hex[MA_SHA256_HEX_LEN + 1];
    ma_sha256_hex(hex, d->digest);
    if (fprintf(f, "%s%s %llu %llu ", tag, hex, (unsigned long long)d->size,
                (unsigned long long)d->chunk_size) < 0)
        return -1;
    if (!d->n_chunks)
        return fputs("-\n", f) == EOF ? -1 : 0;
    for (size_t k = 0; k < d->n_chunks; k++) {
        ma_sha256_hex(hex, d->chunks[k]);
        if (fprintf(f, "%s%s", k ? "," : "", hex) < 0)
            return -1;
    }
    return fputc('\n', f) == EOF ? -1 : 0;
}

const ma_chunk_record *ma_chunk_record_find(const ma_chunk_record *recs, size_t n,
                                            const uint8_t sha256[MA_SHA256_LEN])
{
    for (size_t i = 0; i < n; i++)
        if (!memcmp(recs[i].sha256, sha256, MA_SHA256_LEN))
            return &recs[i];
    return NULL;
}

static int chunk_differs(const uint8_t (*a)[MA_SHA256_LEN], size_t na,
                         const uint8_t (*b)[MA_SHA256_LEN], size_t nb, size_t k)
{
    return k >= na || k >= nb || memcmp(a[k], b[k], MA_SHA256_LEN) != 0;
}

size_t ma_chunk_ranges_differing(const uint8_t (*a)[MA_SHA256_LEN], size_t na,
                                 const uint8_t (*b)[MA_SHA256_LEN], size_t nb, ma_chunk_range *out,
                                 size_t max)
{
    size_t n = na > nb ? na : nb, found = 0;
    for (size_t k = 0; k < n;) {
        if (!chunk_differs(a, na, b, nb, k)) {
            k++;
            continue;
        }
        size_t first = k;
        while (k < n && chunk_differs(a, na, b, nb, k))
            k++;
        if (found < max)
            out[found] = (ma_chunk_range){first, k};
        found++;
    }
    return found;
}

void ma_published_compare(const ma_published_file *pub, const ma_file_digest *now, int now_rc,
                          ma_published_diff *out)
{
    memset(out, 0, sizeof *out);
    out->published_size = pub->size;
    out->size = -1;
    if (now_rc == MA_EMISSING) {
        out->status = MA_PUBLISHED_MISSING;
        return;
    }
    if (now_rc != MA_OK) {
        out->status = MA_PUBLISHED_UNREADABLE;
        return;
    }
    out->size = (int64_t)now->size;
    if (!memcmp(now->digest, pub->sha256, MA_SHA256_LEN)) {
        out->status = MA_PUBLISHED_INTACT;
        return;
    }
    out->status = pub->size >= 0 && pub->size != (int64_t)now->size ? MA_PUBLISHED_SIZE_DIFFERS
                                                                    : MA_PUBLISHED_CONTENT_DIFFERS;
    if (!pub->chunk_size || !now->chunks || now->chunk_size != pub->chunk_size)
        return; /* where is not known: no chunk digests of this granularity on one side */
    ma_chunk_range r[MA_PUBLISHED_MAX_RANGES];
    size_t found = ma_chunk_ranges_differing((const uint8_t(*)[MA_SHA256_LEN])now->chunks, now->n_chunks, pub->chunks,
                                             pub->n_chunks, r,
                                             MA_PUBLISHED_MAX_RANGES);
    uint64_t c = pub->chunk_size, end_all = now->size;
    if (pub->size > (int64_t)end_all)
        end_all = (uint64_t)pub->size;
    out->chunk_size = c;
    out->n_ranges = found < MA_PUBLISHED_MAX_RANGES ? found : MA_PUBLISHED_MAX_RANGES;
    out->more_ranges = found - out->n_ranges;
    for (size_t i = 0; i < out->n_ranges; i++) {
        uint64_t hi = (uint64_t)r[i].end * c;
        out->first_byte[i] = (uint64_t)r[i].first * c;
        out->last_byte[i] = (hi > end_all ? end_all : hi) - 1;
    }
}

/* "16 MiB", "64 KiB", "1000 bytes". */
static void chunk_words(char *buf, size_t len, uint64_t c)
{
    if (c >= 1048576 && c % 1048576 == 0)
        snprintf(buf, len, "%llu MiB", (unsigned long long)(c / 1048576));
    else if (c >= 1024 && c % 1024 == 0)
        snprintf(buf, len, "%llu KiB", (unsigned long long)(c / 1024));
    else
        snprintf(buf, len, "%s", MA_COUNT(c, "byte", "bytes"));
}

void ma_published_describe(const ma_published_diff *d, char *buf, size_t len)
{
    char a[32], b[32], cw[32];
    switch (d->status) {
    case MA_PUBLISHED_INTACT: snprintf(buf, len, "intact"); return;
    case MA_PUBLISHED_MISSING: snprintf(buf, len, "missing"); return;
    case MA_PUBLISHED_UNREADABLE: snprintf(buf, len, "unreadable"); return;
    case MA_PUBLISHED_SIZE_DIFFERS:
        ma_num(a, sizeof a, (uint64_t)d->size);
        ma_num(b, sizeof b, (uint64_t)d->published_size);
        snprintf(buf, len, "size differs: %s bytes, published %s (%s)", a, b,
                 d->size < d->published_size ? "truncated" : "extended");
        return;
    case MA_PUBLISHED_CONTENT_DIFFERS: break;
    }
    if (!d->n_ranges) {
        snprintf(buf, len, "content differs (no chunk digests published: where is not known)");
        return;
    }
    size_t o = (size_t)snprintf(buf, len, "content differs at bytes ");
    for (size_t i = 0; i < d->n_ranges && o < len; i++) {
        ma_num(a, sizeof a, d->first_byte[i]);
        ma_num(b, sizeof b, d->last_byte[i]);
        o += (size_t)snprintf(buf + o, len - o, "%s%s-%s", i ? ", " : "", a, b);
    }
    chunk_words(cw, sizeof cw, d->chunk_size);
    if (o < len && d->more_ranges)
        o += (size_t)snprintf(buf + o, len - o, " and %zu more ranges", d->more_ranges);
    if (o < len)
        snprintf(buf + o, len - o, " (%s chunks)", cw);
}
