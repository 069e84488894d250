/*
 * Shared helpers of the libFuzzer harnesses: the input goes to a temporary file (the readers are
 * file readers that mmap), and the published .secval files are loaded once when available so
 * non-STONE_DIFF .sec2 inputs get past the sector-value step and have every entry decoded.
 *
 * MA_MALOM_SECVAL_DIR names the directory holding std/lask/mora.secval (the fixtures'
 * original-excerpt/); without it .sec2 inputs still exercise all validation, and the
 * missing-.secval path instead of entry decoding.
 */
#ifndef MA_FUZZ_COMMON_H
#define MA_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verifier/formats/malom_file.h"
#include "indexer/malom_index.h"

/* Violated invariants must be loud under the fuzzer and in replay. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);          \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Writes data to <tmpdir>/<name> (the directory is created once per process) and returns the
 * path in a static buffer (the fuzzer is single-threaded). */
static inline const char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    static char dir[64];
    static char path[256];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/malom_fuzz.XXXXXX");
        FUZZ_CHECK(mkdtemp(dir) != NULL);
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size);
    FUZZ_CHECK(fclose(f) == 0);
    return path;
}

/* Checks the shape of an error message: one line "<path>: sector <s>: offset <n>: <what>"; a
 * format error names the input file itself (a missing input names the file that is missing). */
static inline void fuzz_check_message(const ma_error *err, const char *path)
{
    FUZZ_CHECK(strchr(err->msg, '\n') == NULL && strchr(err->msg, '\r') == NULL);
    if (err->code == MA_EFORMAT)
        FUZZ_CHECK(strncmp(err->msg, path, strlen(path)) == 0);
    FUZZ_CHECK(strstr(err->msg, ": sector ") != NULL);
    FUZZ_CHECK(strstr(err->msg, ": offset ") != NULL);
}

/* Decodes and interprets every entry of an opened file; checks what must hold after open. */
static inline void fuzz_walk(const ma_malom_file *f)
{
    ma_malom_frame fr = ma_malom_file_frame(f);
    uint64_t n = ma_malom_file_entry_count(f);
    for (uint64_t h = 0; h < n; h++) {
        ma_malom_entry e;
        ma_malom_result r;
        ma_malom_file_entry(f, h, &e);
        FUZZ_CHECK(e.kind == MA_MALOM_VAL || e.kind == MA_MALOM_COUNT || e.kind == MA_MALOM_SYM);
        if (e.kind == MA_MALOM_SYM) {
            /* .sec: 0..14; .sec2 may name a non-existent op (reported by the checker) */
            FUZZ_CHECK(e.sym_op >= 0 && (ma_malom_file_format(f) == MA_MALOM_SEC2 || e.sym_op <= 14));
            FUZZ_CHECK(ma_malom_interpret(&fr, &e, &r) == MA_EFORMAT);
        } else if (ma_malom_interpret(&fr, &e, &r) == MA_OK) {
            FUZZ_CHECK(r.outcome >= -1 && r.outcome <= 1);
        }
    }
}

#endif
