/*
 * The one verdict of the product and the command result: the public header millaudit/verdict.h
 * holds them (part of the API); this name stays for the modules that include it.
 */
#ifndef MA_COMMON_VERDICT_H
#define MA_COMMON_VERDICT_H

#include <stddef.h>

#include "millaudit/verdict.h"

/* Not part of the public API: the words of an interrupted run's progress, the same in verify's
 * verdict, report and runs list: "interrupted: K of N sectors checked", or, when some of the K were
 * carried over from an earlier run (--incremental, --resume), "interrupted: K of N sectors done
 * (C checked, R carried over)": a carried-over result was not checked by this run. Into buf (len
 * bytes). */
void ma_verdict_interrupted_words(char *buf, size_t len, long long reached, long long planned, long long carried);

#endif
