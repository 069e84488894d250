/*
 * millaudit/manifest.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 */
#ifndef MILLAUDIT_MANIFEST_H
#define MILLAUDIT_MANIFEST_H

#include "millaudit/types.h"

#endif
