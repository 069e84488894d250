/* verifier/formats/value: names of the normalised value type. */
#include "verifier/formats/value.h"

#include <stdio.h>

void ma_value_format(ma_value v, char *buf, size_t len)
{
    switch (v.outcome) {
    case MA_OUTCOME_WIN: snprintf(buf, len, "win %u", v.depth); break;
    case MA_OUTCOME_LOSS: snprintf(buf, len, "loss %u", v.depth); break;
    case MA_OUTCOME_DRAW: snprintf(buf, len, "draw"); break;
    default: snprintf(buf, len, "none"); break;
    }
}

const char *ma_outcome_name(ma_outcome o)
{
    switch (o) {
    case MA_OUTCOME_WIN: return "win";
    case MA_OUTCOME_LOSS: return "loss";
    case MA_OUTCOME_DRAW: return "draw";
    default: return "none";
    }
}
