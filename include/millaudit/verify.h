/*
 * millaudit/verify.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 */
#ifndef MILLAUDIT_VERIFY_H
#define MILLAUDIT_VERIFY_H

#include "millaudit/types.h"

#endif
