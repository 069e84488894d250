/*
 * reports/render/regressions_junit: a run's regressions (reports/store/history.h) written as a JUnit report
 * (reports/render/junit.h) for `runs regressions --junit` and the nightly pipeline.
 */
#ifndef MA_REGRESSIONS_JUNIT_H
#define MA_REGRESSIONS_JUNIT_H

#include "common/ma_error.h"
#include "reports/render/junit.h"
#include "reports/store/history.h"

/* The regressions as a JUnit report (initialised here): suite "millaudit.regressions", one case per
 * sector of either run, failing for a regression (the message names the changes and the
 * discrepancy counts, the text the class counts of both runs), passing otherwise (an improvement
 * noted in system-out), plus a case "verdict" failing when the run's verdict got worse. */
int ma_regressions_junit(const ma_regressions *r, ma_junit *j, ma_error *err);

#endif
