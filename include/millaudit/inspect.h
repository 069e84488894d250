/*
 * millaudit/inspect.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 */
#ifndef MILLAUDIT_INSPECT_H
#define MILLAUDIT_INSPECT_H

#include "millaudit/types.h"

#endif
