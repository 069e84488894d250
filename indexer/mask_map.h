/*
 * A map of 24-point masks that distributes over union: the image of a set of points is the union
 * of the images of its points. Symmetry ops, renumberings and (for one op onto a representative)
 * the §4.3/§4.4 compress step of an opponent mask are such maps. It is kept as one table per byte
 * of the mask, so applying it costs three loads and two ORs whatever the map.
 *
 * Contract: build from the image of every single point (any 32-bit values; images of distinct
 * points may overlap, they are ORed); apply to any mask, of which only bits 0..23 count.
 * 3 KiB per map. Header-only: the maps are applied in the checkers' innermost loops.
 */
#ifndef MA_MASK_MAP_H
#define MA_MASK_MAP_H

#include <stdint.h>

typedef struct ma_mask_map {
    uint32_t byte[3][256]; /* byte[j][x]: the image of the points 8j + (bits of x) */
} ma_mask_map;

/* Fills map from image_of_point[p], p < 24. Each entry is its lower bits' entry plus one point:
 * 768 ORs. */
static inline void ma_mask_map_build(ma_mask_map *map, const uint32_t image_of_point[24])
{
    for (int j = 0; j < 3; j++) {
        map->byte[j][0] = 0;
        for (uint32_t x = 1; x < 256; x++)
            map->byte[j][x] = map->byte[j][x & (x - 1)] | image_of_point[8 * j + __builtin_ctz(x)];
    }
}

static inline uint32_t ma_mask_map_apply(const ma_mask_map *map, uint32_t mask)
{
    return map->byte[0][mask & 0xFFu] | map->byte[1][(mask >> 8) & 0xFFu] |
           map->byte[2][(mask >> 16) & 0xFFu];
}

#endif
