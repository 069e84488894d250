/*
 * millaudit/store.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 */
#ifndef MILLAUDIT_STORE_H
#define MILLAUDIT_STORE_H

#include "millaudit/types.h"

#endif
