/*
 * millaudit/game.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 */
#ifndef MILLAUDIT_GAME_H
#define MILLAUDIT_GAME_H

#include "millaudit/types.h"

#endif
