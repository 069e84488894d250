/* Unit tests for indexer/mask_map: a map built from the images of single points maps every mask
 * to the union of its points' images, for permutations, overlapping images and empty ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "indexer/mask_map.h"
#include "support.h"

static uint32_t union_of_images(const uint32_t image[24], uint32_t mask)
{
    uint32_t r = 0;
    for (int p = 0; p < 24; p++)
        if (mask >> p & 1u)
            r |= image[p];
    return r;
}

/* Random images (some empty, some overlapping, some with bits above 23) and random masks,
 * including the empty and the full mask and masks with bits above 23 (ignored). */
static void test_apply_is_the_union_of_point_images(void **state)
{
    (void)state;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    ma_mask_map *map = malloc(sizeof *map);
    assert_non_null(map);
    for (int round = 0; round < 200; round++) {
        uint32_t image[24];
        for (int p = 0; p < 24; p++) {
            uint32_t r = (uint32_t)ma_test_next_random(&x);
            image[p] = round % 3 == 0 ? 1u << (r % 24) : round % 3 == 1 ? r & r >> 7 : r;
            if (r % 11 == 0)
                image[p] = 0;
        }
        ma_mask_map_build(map, image);
        assert_int_equal(ma_mask_map_apply(map, 0), 0);
        assert_int_equal(ma_mask_map_apply(map, 0xFFFFFFu), union_of_images(image, 0xFFFFFFu));
        for (int t = 0; t < 500; t++) {
            uint32_t mask = (uint32_t)ma_test_next_random(&x);
            assert_int_equal(ma_mask_map_apply(map, mask), union_of_images(image, mask & 0xFFFFFFu));
        }
    }
    free(map);
}

/* The map of a permutation of the points (a symmetry op) is that permutation on every mask of
 * one point. */
static void test_permutation_maps_each_point(void **state)
{
    (void)state;
    uint32_t image[24];
    for (int p = 0; p < 24; p++)
        image[p] = 1u << ((p * 5 + 3) % 24);
    ma_mask_map map;
    ma_mask_map_build(&map, image);
    for (int p = 0; p < 24; p++)
        assert_int_equal(ma_mask_map_apply(&map, 1u << p), 1u << ((p * 5 + 3) % 24));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apply_is_the_union_of_point_images),
        cmocka_unit_test(test_permutation_maps_each_point),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
