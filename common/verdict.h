/*
 * The one verdict of the product and the command result: the public header millaudit/verdict.h
 * holds them (part of the API); this name stays for the modules that include it.
 */
#ifndef MA_COMMON_VERDICT_H
#define MA_COMMON_VERDICT_H

#include "millaudit/verdict.h"

#endif
