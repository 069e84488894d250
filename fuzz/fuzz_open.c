/* libFuzzer harness for the open-format reader (verifier/formats/open_file.c, docs/format.md §5): the input
 * is written as a sector file and mapped with and without the file-name check. An accepted file
 * must be exactly what the header promises (length 128 + 2 * entry count, the index's entry count,
 * a valid sector); every value word is decoded; a refused one gets a one-line message naming the
 * file, a sector and an offset inside the file. */
#include "fuzz/fuzz_common.h"

#include "verifier/formats/open_file.h"
#include "indexer/open_index.h"

static ma_open_index *ix;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ix) {
        ma_error e;
        FUZZ_CHECK(ma_open_index_create(&ix, &e) == MA_OK);
    }
    /* Named as the header's variant and sector say (when they are plausible), so the file-name
     * check passes for good headers; then once more under a name no header can match. */
    static const char *const variants[] = {"std", "lask", "mora"};
    char name[64] = "x.mdb";
    if (size >= 18 && data[12] >= 1 && data[12] <= 3 && data[14] <= 24 && data[15] <= 24 && data[16] <= 12 &&
        data[17] <= 12)
        snprintf(name, sizeof name, "%s_%u_%u_%u_%u.mdb", variants[data[12] - 1], data[14], data[15], data[16],
                 data[17]);
    for (int pass = 0; pass < 3; pass++) {
        const int expect_name = pass > 0;
        const char *path = fuzz_write(pass < 2 ? name : "std_03_3_0_0.mdb", data, size);
        ma_open_file f;
        ma_error err;
        ma_error_clear(&err);
        int rc = ma_open_file_map(&f, path, ix, expect_name, &err);
        if (rc != MA_OK) {
            FUZZ_CHECK(rc == MA_EFORMAT);
            FUZZ_CHECK(err.code == rc);
            fuzz_check_message(&err, path);
            /* the offset named lies within the file (or at its end, for a truncation) */
            const char *o = strstr(err.msg, ": offset ");
            FUZZ_CHECK(o != NULL);
            FUZZ_CHECK(strtoull(o + 9, NULL, 10) <= (unsigned long long)size);
            continue;
        }
        const ma_open_header *h = &f.header;
        FUZZ_CHECK(h->format_version == MA_OPEN_FORMAT_VERSION && h->header_size == MA_OPEN_HEADER_SIZE);
        FUZZ_CHECK(ma_sector_valid(h->variant, h->sector));
        FUZZ_CHECK(h->entry_count == ma_open_index_entry_count(ix, h->sector.w, h->sector.b));
        FUZZ_CHECK(f.map_size == size && size == MA_OPEN_HEADER_SIZE + 2 * h->entry_count);
        FUZZ_CHECK(strlen(h->producer) <= 32 && strlen(h->producer_version) <= 16);
        uint64_t decoded = 0;
        for (uint64_t e = 0; e < h->entry_count; e++) {
            ma_value v;
            uint16_t w = ma_open_file_word(&f, e);
            FUZZ_CHECK(w == (uint16_t)(data[128 + 2 * e] | data[129 + 2 * e] << 8));
            if (ma_open_value_decode(w, &v) == 0) {
                decoded++;
                FUZZ_CHECK(ma_open_value_encode(v) == w);
            }
        }
        (void)decoded;
        ma_open_file_close(&f);
        FUZZ_CHECK(f.map == NULL);
    }
    return 0;
}
