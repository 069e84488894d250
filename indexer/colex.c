/* The colex tables of colex.h. */
#include "indexer/colex.h"

#include "indexer/open_index.h" /* ma_open_binomial: 0 where k > n */

/* The sum of C(base + q, j + i) over the members q of y, i the member's 1-based place in y. */
static uint32_t part(uint32_t y, int base, int j)
{
    uint32_t sum = 0;
    int i = 0;
    for (int q = 0; q < 12; q++)
        if (y >> q & 1u)
            sum += (uint32_t)ma_open_binomial(base + q, j + ++i);
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
