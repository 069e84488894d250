/*
 * Sectors that give every kind of turn, for the tests of the checkers' generator and its
 * destination rows (test_fused_turns, test_turn_masks): moving, flying, a mill that wins at once,
 * placing, and Lasker's placing beside moving. A sector a variant does not have is skipped by the
 * test (ma_vrules_init refuses it).
 */
#ifndef MA_TEST_TURN_SECTORS_H
#define MA_TEST_TURN_SECTORS_H

#include "indexer/position.h"

static const ma_sector ma_test_turn_sectors[] = {
    {4, 4, 0, 0}, /* moving */
    {5, 6, 0, 0},
    {3, 5, 0, 0}, /* flying */
    {5, 3, 0, 0}, /* a mill wins */
    {2, 3, 5, 5}, /* placing */
    {6, 6, 2, 1},
    {3, 3, 4, 4}, /* Lasker: placing and moving */
    {8, 8, 0, 0},
};
#define MA_TEST_TURN_SECTORS (sizeof ma_test_turn_sectors / sizeof *ma_test_turn_sectors)

#endif
