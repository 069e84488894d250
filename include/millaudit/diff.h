/*
 * millaudit/diff.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 */
#ifndef MILLAUDIT_DIFF_H
#define MILLAUDIT_DIFF_H

#include "millaudit/types.h"

#endif
