/* The colex tables of colex.h. */
#include "indexer/colex.h"

/* Pascal's triangle, C(n, k) for n <= 23 and k <= 24 (0 where k > n). Its own: the binomials of
 * open_index.c and malom_index.c sit above this module (they rank through it). */
typedef struct {
    uint32_t c[24][25];
} binomials;

static void pascal(binomials *b)
{
    for (int n = 0; n < 24; n++)
        for (int k = 0; k < 25; k++)
            b->c[n][k] = k == 0 ? 1 : n == 0 ? 0 : b->c[n - 1][k - 1] + b->c[n - 1][k];
}

/* One row: row[y] is the sum of C(base + q, j + i) over the members q of y, i the member's
 * 1-based place in y. Built from y without its highest member h, whose place is popcount(y): every
 * other member keeps its place, so each entry is one addition (the build is on every index
 * object's creation, before any thread of a check starts). */
static void part_row(uint32_t row[1u << 12], const binomials *b, int base, int j)
{
    row[0] = 0;
    for (uint32_t y = 1; y < (1u << 12); y++) {
        int h = 31 - __builtin_clz(y);
        row[y] = row[y ^ (1u << h)] + b->c[base + h][j + __builtin_popcount(y)];
    }
}

void ma_colex_build(ma_colex *t)
{
    binomials b;
    pascal(&b);
    part_row(t->lo, &b, 0, 0);
    for (int j = 0; j < MA_COLEX_HI_ROWS; j++)
        part_row(t->hi[j], &b, 12, j);
}
