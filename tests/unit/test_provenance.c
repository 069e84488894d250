/* Unit tests for verifier/formats/provenance: what an open header and Malom file names state, and what
 * states nothing (docs/manifest.md "Provenance"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verifier/formats/provenance.h"
#include "support.h"

static void test_open_header(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_test_provenance_XXXXXX";
    assert_non_null(mkdtemp(dir));
    uint8_t h[128] = {0x89, 'M', 'I', 'L', 'L', 0x0D, 0x0A, 0x1A, 1, 0, 128, 0, 3, 1, 4, 3, 2, 1, 2, 1, 1, 0, 1, 0};
    h[24] = 0x10;
    h[25] = 0x27; /* 10000 entries */
    /* printable ASCII is kept, space and '~' included; a control byte and DEL show as '?' */
    memcpy(h + 32, "some \x01producer~\x7f", 16);
    memcpy(h + 64, "9.9", 3);
    char path[128];
    snprintf(path, sizeof path, "%s/mora_4_3_2_1.mdb", dir);
    ma_test_spit(path, h, sizeof h);
    ma_file_provenance p;
    ma_file_provenance_read(&p, path, "sub/mora_4_3_2_1.mdb");
    assert_string_equal(p.format, "open");
    assert_string_equal(p.variant, "mora");
    assert_string_equal(p.sector, "mora_4_3_2_1");
    assert_string_equal(p.producer, "some ?producer~?");
    assert_string_equal(p.producer_version, "9.9");
    assert_true(p.has_entries);
    assert_int_equal(p.entries, 10000);
    assert_string_equal(p.ruleset, "millaudit-ruleset-1|mora|1|open-index-1.1|open-values-1");

    /* the header is read, not validated: an impossible entry width still states what it says */
    h[18] = 9;
    ma_test_spit(path, h, sizeof h);
    ma_file_provenance_read(&p, path, "mora_4_3_2_1.mdb");
    assert_string_equal(p.format, "open");
    /* but a header that is not ours states nothing */
    static const int broken[][2] = {{0, 0}, {8, 2}, {10, 64}, {12, 0}, {12, 4}};
    for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
        uint8_t b[128];
        memcpy(b, h, sizeof b);
        b[broken[i][0]] = (uint8_t)broken[i][1];
        ma_test_spit(path, b, sizeof b);
        ma_file_provenance_read(&p, path, "mora_4_3_2_1.mdb");
        assert_string_equal(p.format, "");
        assert_string_equal(p.ruleset, "");
        assert_false(p.has_entries);
    }
    ma_test_spit(path, h, 100); /* short */
    ma_file_provenance_read(&p, path, "mora_4_3_2_1.mdb");
    assert_string_equal(p.format, "");
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0); /* never opened for reading: no hang */
    ma_file_provenance_read(&p, path, "mora_4_3_2_1.mdb");
    assert_string_equal(p.format, "");
    ma_file_provenance_read(&p, "/nonexistent", "x/std_3_3_0_0.mdb");
    assert_string_equal(p.format, "");
    ma_test_tmpdir_remove(dir);
}

static void test_malom_names(void **state)
{
    (void)state;
    ma_file_provenance p;
    ma_file_provenance_read(&p, "/nonexistent", "db/lask_1_2_9_8.sec2");
    assert_string_equal(p.format, "malom-sec2");
    assert_string_equal(p.variant, "lask");
    assert_string_equal(p.sector, "lask_1_2_9_8");
    assert_string_equal(p.ruleset, "millaudit-ruleset-1|lask|0|malom-index|malom-sec2");
    assert_false(p.has_entries);
    ma_file_provenance_read(&p, "/nonexistent", "std_9_9_0_0.sec");
    assert_string_equal(p.format, "malom-sec");
    ma_file_provenance_read(&p, "/nonexistent", "mora_3_3_0_0.sec");
    assert_string_equal(p.ruleset, "millaudit-ruleset-1|mora|1|malom-index|malom-sec");
    ma_file_provenance_read(&p, "/nonexistent", "mora.secval");
    assert_string_equal(p.format, "malom-secval");
    assert_string_equal(p.variant, "mora");
    assert_string_equal(p.sector, "");
    const char *unknown[] = {"std_09_9_0_0.sec2", "xyz_1_1_1_1.sec2", "std_1_1_1.sec2",
                             "std_1_1_1_1.sec2.bak", "notes.txt", "std_1_1_1_1.sec3", "std_1.secval",
                             "STD.secval", "std_3_3_13_0.sec", "std_25_1_0_0.sec", ".secval"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        ma_file_provenance_read(&p, "/nonexistent", unknown[i]);
        assert_string_equal(p.format, "");
        assert_string_equal(p.variant, "");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_header),
        cmocka_unit_test(test_malom_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
