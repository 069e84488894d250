/* libFuzzer harness for the legacy .sec reader: the input is opened as several small sectors and
 * every entry of an accepted file is decoded. */
#include "fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ma_sector tries[] = {{0, 0, 9, 9}, {0, 1, 9, 8}, {1, 1, 8, 8}, {1, 2, 8, 7},
                                      {2, 2, 7, 7}, {1, 3, 7, 6}};
    const char *path = fuzz_write("x_1_1_8_8.sec", data, size);
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        ma_malom_file *f = NULL;
        ma_error err;
        int rc = ma_malom_file_open_sec(&f, path, MA_VARIANT_STD, tries[i], &err);
        if (rc == MA_OK) {
            FUZZ_CHECK(ma_malom_file_entry_count(f) == ma_malom_hash_count(tries[i].w, tries[i].b));
            fuzz_walk(f);
            ma_malom_file_close(f);
        } else {
            FUZZ_CHECK(rc == MA_EFORMAT);
            fuzz_check_message(&err, path);
        }
    }
    return 0;
}
