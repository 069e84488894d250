/*
 * The sectors a command is asked for (`--sector S`, repeatable, or `S1,S2`): parsed once, matched
 * against a database's sectors, and afterwards asked which picks matched nothing.
 *
 * A pick is "W_B_WF_BF" (any variant) or "<variant>_W_B_WF_BF", with or without a format suffix,
 * as ma_sector_arg_parse (verifier/formats/source.h) accepts it; an empty text or an empty item of a list
 * ("", "5_4_0_0,") is a usage error like any malformed one, never "no filter".
 */
#ifndef MA_FORMATS_SECTOR_PICK_H
#define MA_FORMATS_SECTOR_PICK_H

#include <stddef.h>

#include "common/ma_error.h"
#include "indexer/position.h"

typedef struct ma_sector_pick {
    int named_variant;  /* 0: matches the sector in every variant */
    ma_variant variant;
    ma_sector sector;
    char text[40];      /* as given, for messages ("5_4_0_0", "std_5_4_0_0") */
    int matched;        /* set by ma_sector_picks_match */
} ma_sector_pick;

/* Appends the comma-separated picks of text to picks[*n..max). Errors: MA_EINVAL with the message
 * of ma_sector_arg_parse (names the item, shows the expected form), or "too many sectors" when
 * more than max in all. *n counts the picks appended before the error. */
int ma_sector_picks_parse(const char *text, ma_sector_pick *picks, size_t max, size_t *n,
                          ma_error *err);

/* Non-zero when (v, s) is picked (always when n == 0: no picks select everything); marks every
 * pick that matches. */
int ma_sector_picks_match(ma_sector_pick *picks, size_t n, ma_variant v, ma_sector s);

/* The first pick that matched nothing, or NULL. */
const ma_sector_pick *ma_sector_picks_unmatched(const ma_sector_pick *picks, size_t n);

#endif
