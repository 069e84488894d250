/*
 * The sector picks of the inspection engines (diff, stats; their options' sectors): the command line
 * hands the engines the arguments as typed (checked once by ma_sector_arg_check,
 * include/millaudit/inspect.h) and each engine parses them into verifier/formats/sector_pick.h picks here.
 */
#ifndef MA_RUN_SECTOR_ARGS_H
#define MA_RUN_SECTOR_ARGS_H

#include <stddef.h>

#include "verifier/formats/sector_pick.h"
#include "millaudit/inspect.h"

/* Parses args[0..n_args) into picks (room for MA_SECTOR_PICKS_MAX), *n their count. Errors:
 * MA_EINVAL "sector X: ..." as ma_sector_arg_check words it. */
int ma_sector_args_parse(ma_sector_pick *picks, size_t *n, const char *const *args, size_t n_args,
                         ma_error *err);

#endif
