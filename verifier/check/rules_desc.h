/*
 * rules_desc: a canonical text description of a variant's rules as the checker plays them, and
 * its SHA-256 (the rules fingerprint of attestations, docs/attestations.md).
 *
 * The description is not written by hand: every line is read off the checker's own rules
 * (verifier/check/rules.h), by initialising them for probe sectors and asking them questions (which
 * points are adjacent, which lines are mills, from how many stones a side flies, at how few it has
 * lost, what a mill may remove, what a full board means). So a change to the checker's rules
 * changes the fingerprint, and two builds with the same rules give the same bytes.
 *
 * Format (ASCII, one "key value" line each, '\n'-terminated, in this order):
 *   millaudit-rules 1
 *   variant <std|lask|mora>
 *   stones <per side>
 *   points 24
 *   edges <a1-d1 ...: every adjacent pair, lower open point number first, sorted>
 *   mills <a1-d1-g1 ...: every mill line, points ascending, lines in the checker's order>
 *   placement <before-movement|mixed-with-movement>
 *   flying <n>            a side with at most n stones (board + hand) flies
 *   loss-below <n>        a side reduced to fewer than n stones (board + hand) has lost
 *   removal <k> <protected-in-mills-unless-all|any>   stones removed per mill-closing turn
 *   removal-without-target <turn-not-allowed|turn-allowed>
 *   no-turn loss
 *   full-board <draw|none>
 * The first line versions the description itself.
 */
#ifndef MA_VERIFIER_RULES_DESC_H
#define MA_VERIFIER_RULES_DESC_H

#include <stddef.h>

#include "common/ma_error.h"
#include "indexer/position.h"

#define MA_RULES_DESC_MAX 4096

/* Writes the description of v into buf (size len, at least MA_RULES_DESC_MAX). MA_EINVAL for an
 * unknown variant; MA_EINTERNAL if the checker's rules answer a probe impossibly. */
int ma_rules_describe(ma_variant v, char *buf, size_t len, ma_error *err);

/* The lowercase hex SHA-256 of the description (65 bytes with the NUL). */
int ma_rules_fingerprint(ma_variant v, char hex[65], ma_error *err);

#endif
