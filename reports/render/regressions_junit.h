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
 * sector of either run, failing for a root regression (a one-line message: the sector, why, the
 * changes, both runs' status, counts, roots and classes), passing otherwise: an improvement noted
 * in system-out, a consequence (history.h) naming the root sectors that cause it, so one bug fails
 * one case per sector that holds it. A case "verdict" fails when the run's verdict got worse and
 * no sector case failed (a worse verdict that no sector explains, e.g. an interrupted run). */
int ma_regressions_junit(const ma_regressions *r, ma_junit *j, ma_error *err);

#endif
