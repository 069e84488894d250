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
        "values-agree",  "values-differ", "recorded",      "partial",       "damaged"};
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
    default: return MA_EXIT_BAD_INPUT; /* damaged too: the files must be fetched again */
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

void ma_damage_headline(char *buf, size_t len, const ma_damage_words *w)
{
    const char *from = w->published ? "what was published" : w->files == 1 ? "what its producer wrote"
                                                                            : "what their producer wrote";
    char others[128] = "";
    if (!w->others)
        ; /* every sector is damaged or reads a damaged file */
    else if (w->others == 1)
        snprintf(others, sizeof others, "the other sector %s", w->others_verified ? "verified" : "not verified");
    else if (w->others_verified == w->others)
        snprintf(others, sizeof others, "the other %s verified", MA_COUNT(w->others, "sector", "sectors"));
    else
        snprintf(others, sizeof others, "of the other %s, %s verified", MA_COUNT(w->others, "sector", "sectors"),
                 MA_NUM(w->others_verified));
    char input[128] = "";
    if (w->input_damaged)
        snprintf(input, sizeof input, "; %s not checked (%s a damaged file)",
                 MA_COUNT(w->input_damaged, "sector", "sectors"), w->input_damaged == 1 ? "it reads" : "they read");
    snprintf(buf, len, "damaged: %s %s from %s%s%s%s", MA_COUNT(w->files, "file", "files"),
             ma_noun(w->files, "differs", "differ"), from, others[0] ? "; " : "", others, input);
}

void ma_unproven_phrase(char *buf, size_t len, unsigned long long within_bounds, unsigned long long not_verified)
{
    if (within_bounds && not_verified)
        snprintf(buf, len, "%s only within bounds, %s not verified", MA_COUNT(within_bounds, "entry", "entries"),
                 MA_NUM(not_verified));
    else if (within_bounds)
        snprintf(buf, len, "%s only within bounds", MA_COUNT(within_bounds, "entry", "entries"));
    else if (not_verified)
        snprintf(buf, len, "%s not verified", MA_COUNT(not_verified, "entry", "entries"));
    else if (len)
        buf[0] = 0;
}
