/*
 * The checker's rules (verifier/check/rules.h) for every sector of one variant, prepared on first use.
 *
 * Game-level searches (the opening proof, the graded players) walk positions across many sectors;
 * a rulebook keeps one initialised ma_vrules per sector so the search never re-initialises rules
 * per node. Not thread-safe: ma_rulebook_get may initialise an entry. The returned rules stay
 * valid until ma_rulebook_free.
 */
#ifndef MA_VERIFIER_RULEBOOK_H
#define MA_VERIFIER_RULEBOOK_H

#include "common/ma_error.h"
#include "indexer/position.h"
#include "verifier/check/rules.h"

typedef struct ma_rulebook ma_rulebook;

/* MA_EINVAL for an unknown variant, MA_ENOMEM. */
int ma_rulebook_create(ma_rulebook **out, ma_variant v, ma_error *err);
void ma_rulebook_free(ma_rulebook *rb);
ma_variant ma_rulebook_variant(const ma_rulebook *rb);

/* The rules of sector s; NULL with err set (MA_EINVAL) when s is not a valid sector of the
 * variant, or MA_ENOMEM. */
const ma_vrules *ma_rulebook_get(ma_rulebook *rb, ma_sector s, ma_error *err);

#endif
