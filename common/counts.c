/* Numbers and nouns as every output writes them (common/counts.h). */
#include "common/counts.h"

#include <stdio.h>

char *ma_num(char *buf, size_t size, uint64_t n)
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
    size_t k = 0;
    for (int i = 0; i < len && k + 1 < size; i++) {
        if (i && (len - i) % 3 == 0) {
            if (k + 2 >= size)
                break;
            buf[k++] = ',';
        }
        buf[k++] = digits[i];
    }
    if (size)
        buf[k] = 0;
    return buf;
}

const char *ma_noun(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

char *ma_count(char *buf, size_t size, uint64_t n, const char *one, const char *many)
{
    char num[MA_NUM_SIZE];
    snprintf(buf, size, "%s %s", ma_num(num, sizeof num, n), ma_noun(n, one, many));
    return buf;
}
