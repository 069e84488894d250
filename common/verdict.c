/* common/verdict: the one verdict, its words and its exit status (common/verdict.h). */
#include "common/verdict.h"
#include "common/counts.h"

#include <stdio.h>
#include <string.h>

#include "common/ma_error.h"

const char *ma_verdict_state_name(ma_verdict_state s)
{
    static const char *const names[MA_VERDICT_STATES] = {
        "verified",      "within-bounds", "incomplete",    "interrupted", "discrepancies",
        "values-agree",  "values-differ", "recorded",      "partial"};
    return (unsigned)s < MA_VERDICT_STATES ? names[s] : "unknown";
}

const char *ma_verdict_status(ma_verdict_state s)
{
    return s == MA_VERDICT_VERIFIED ? "ok" : ma_verdict_state_name(s);
}

int ma_verdict_exit_code(ma_verdict_state s, unsigned flags)
{
    switch (s) {
    case MA_VERDICT_VERIFIED:
    case MA_VERDICT_AGREE:
    case MA_VERDICT_RECORDED: return MA_EXIT_OK;
    case MA_VERDICT_WITHIN_BOUNDS: return flags & MA_VERDICT_ALLOW_BOUNDS ? MA_EXIT_OK : MA_EXIT_BAD_INPUT;
    case MA_VERDICT_DISCREPANCIES:
    case MA_VERDICT_DIFFER: return MA_EXIT_MISMATCH;
    case MA_VERDICT_PARTIAL: return MA_EXIT_PARTIAL;
    default: return MA_EXIT_BAD_INPUT;
    }
}

void ma_verdict_interrupted_words(char *buf, size_t len, long long reached, long long planned, long long carried)
{
    if (carried > 0 && carried <= reached)
        snprintf(buf, len, "interrupted: %s of %s done (%s checked, %s carried over)", MA_NUM(reached),
                 MA_COUNT(planned, "sector", "sectors"), MA_NUM(reached - carried), MA_NUM(carried));
    else
        snprintf(buf, len, "interrupted: %s of %s checked", MA_NUM(reached), MA_COUNT(planned, "sector", "sectors"));
}

/* Results above 0: bit 12 marks a verdict (flags in bits 8..11, the state below), bit 13 a signal. */
#define RESULT_VERDICT 0x1000
#define RESULT_SIGNAL 0x2000

int ma_result_of_verdict(ma_verdict_state v, unsigned flags)
{
    return RESULT_VERDICT | (int)((flags & 0xF) << 8) | ((int)v & 0xFF);
}

int ma_result_of_signal(int signo) { return RESULT_SIGNAL | (signo & 0x7F); }

int ma_result_of_unusable(int code)
{
    return ma_exit_code_for(code) == MA_EXIT_BAD_INPUT ? code : MA_EFORMAT;
}

int ma_result_exit_code(int result)
{
    if (result <= 0)
        return ma_exit_code_for(result);
    if (result & RESULT_SIGNAL)
        return 128 + (result & 0x7F);
    if (result & RESULT_VERDICT)
        return ma_verdict_exit_code((ma_verdict_state)(result & 0xFF), (unsigned)(result >> 8) & 0xF);
    return MA_EXIT_INTERNAL;
}
