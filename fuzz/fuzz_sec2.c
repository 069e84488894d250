/* libFuzzer harness for the .sec2 reader: the input is opened as several small sectors of each
 * variant, with and without sector values, and every entry of an accepted file is decoded. */
#include "fuzz/fuzz_common.h"

static ma_malom_secval *values[4]; /* by ma_variant, NULL when not available */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = getenv("MA_MALOM_SECVAL_DIR");
    static const char *const names[4] = {NULL, "std", "lask", "mora"};
    for (int v = 1; v <= 3 && dir; v++) {
        char path[512];
        ma_error err;
        snprintf(path, sizeof path, "%s/%s.secval", dir, names[v]);
        if (ma_malom_secval_open(&values[v], path, (ma_variant)v, &err) != MA_OK)
            values[v] = NULL;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct {
        ma_variant v;
        ma_sector s;
    } tries[] = {{MA_VARIANT_STD, {0, 0, 9, 9}},   {MA_VARIANT_STD, {0, 1, 9, 8}},
                 {MA_VARIANT_STD, {1, 1, 8, 8}},   {MA_VARIANT_STD, {1, 2, 8, 7}},
                 {MA_VARIANT_STD, {2, 2, 7, 7}},   {MA_VARIANT_LASK, {0, 0, 10, 10}},
                 {MA_VARIANT_LASK, {1, 1, 9, 9}},  {MA_VARIANT_MORA, {0, 1, 12, 11}},
                 {MA_VARIANT_MORA, {1, 2, 11, 10}}};
    const char *path = fuzz_write("x_1_1_8_8.sec2", data, size);
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        for (int with_values = 0; with_values < 2; with_values++) {
            ma_malom_file *f = NULL;
            ma_error err;
            int rc = ma_malom_file_open_sec2(&f, path, tries[i].v, tries[i].s,
                                             with_values ? values[tries[i].v] : NULL, &err);
            if (rc == MA_OK) {
                FUZZ_CHECK(ma_malom_file_entry_count(f) == ma_malom_hash_count(tries[i].s.w, tries[i].s.b));
                fuzz_walk(f);
                ma_malom_file_close(f);
            } else {
                FUZZ_CHECK(rc == MA_EFORMAT || rc == MA_EMISSING);
                fuzz_check_message(&err, path);
            }
        }
    }
    return 0;
}
