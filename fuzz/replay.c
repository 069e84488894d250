/*
 * Replays files through one libFuzzer harness without libFuzzer: `replay_<reader> FILE...` calls
 * LLVMFuzzerInitialize (if the harness has one) and LLVMFuzzerTestOneInput on every file. Built
 * with any C compiler and the ASan/UBSan libraries by tests/integration/test_malom_fuzz_corpus.py,
 * so the committed corpus is checked without clang.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "%s: cannot open\n", argv[i]);
            return 2;
        }
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
        if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
            fprintf(stderr, "%s: cannot read\n", argv[i]);
            return 2;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, (size_t)n);
        free(buf);
    }
    printf("replayed %d files\n", argc - 1);
    return 0;
}
