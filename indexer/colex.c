/* The colex tables of colex.h. */
#include "indexer/colex.h"

/* C(n, k) for 0 <= n <= 23, k >= 1; 0 where k > n (no k-subset of n points). Its own: the
 * binomials of open_index.c and malom_index.c sit above this module (they rank through it). */
static uint32_t choose(int n, int k)
{
    if (k > n)
        return 0;
    uint64_t r = 1;
    for (int i = 1; i <= k; i++)
        r = r * (uint64_t)(n - k + i) / (uint64_t)i;
    return (uint32_t)r;
}

/* The sum of C(base + q, j + i) over the members q of y, i the member's 1-based place in y. */
static uint32_t part(uint32_t y, int base, int j)
{
    uint32_t sum = 0;
    int i = 0;
    for (int q = 0; q < 12; q++)
        if (y >> q & 1u)
            sum += choose(base + q, j + ++i);
    return sum;
}

void ma_colex_build(ma_colex *t)
{
    for (uint32_t x = 0; x < (1u << 12); x++)
        t->lo[x] = part(x, 0, 0);
    for (int j = 0; j < MA_COLEX_HI_ROWS; j++)
        for (uint32_t y = 0; y < (1u << 12); y++)
            t->hi[j][y] = part(y, 12, j);
}
