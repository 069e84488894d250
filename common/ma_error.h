/*
 * ma_error: how library code reports failure. The public header millaudit/error.h holds the
 * codes, the exit statuses, ma_error and its functions (part of the API); this name stays for the
 * modules that include it.
 */
#ifndef MA_ERROR_H
#define MA_ERROR_H

#include "millaudit/error.h"

#endif
