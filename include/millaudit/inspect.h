/*
 * millaudit/inspect.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 */
#ifndef MILLAUDIT_INSPECT_H
#define MILLAUDIT_INSPECT_H

#include <stdio.h>

#include "common/verdict.h"
#include "millaudit/types.h"

/* The sectors a command is asked for (`--sector S`, repeatable, or `S1,S2`): checks one argument
 * as the engines will read it ("W_B_WF_BF" or "<variant>_W_B_WF_BF", comma-separated), adding its
 * picks to *n_picks. MA_EINVAL with a message naming the item, or "too many sectors" past
 * MA_SECTOR_PICKS_MAX picks in all. */
#define MA_SECTOR_PICKS_MAX 256
MA_API int ma_sector_arg_check(const char *text, size_t *n_picks, ma_error *err);


#endif
