/* libFuzzer harness for the .secval reader: the input is read as each variant's file; an accepted
 * file must answer lookups consistently with the properties checked at parse time. */
#include "fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("x.secval", data, size);
    for (int v = 1; v <= 3; v++) {
        ma_malom_secval *sv = NULL;
        ma_error err;
        int rc = ma_malom_secval_open(&sv, path, (ma_variant)v, &err);
        if (rc != MA_OK) {
            FUZZ_CHECK(rc == MA_EFORMAT);
            fuzz_check_message(&err, path);
            continue;
        }
        FUZZ_CHECK(ma_malom_secval_virt_win(sv) == -ma_malom_secval_virt_loss(sv));
        for (int w = 0; w <= 12; w++)
            for (int b = 0; b <= 12; b++) {
                ma_sector s = {(uint8_t)w, (uint8_t)b, 0, 0};
                ma_malom_frame fr;
                if (ma_malom_secval_frame(sv, s, &fr, &err) == MA_OK) {
                    FUZZ_CHECK(fr.vl < fr.v && fr.v < fr.vw);
                    ma_sector back;
                    if (fr.v != 0) {
                        FUZZ_CHECK(ma_malom_secval_sector_of(sv, fr.v, &back) == MA_OK);
                        FUZZ_CHECK(back.w == s.w && back.b == s.b && back.wf == 0 && back.bf == 0);
                    }
                }
            }
        ma_malom_secval_free(sv);
    }
    return 0;
}
