/*
 * Rendering a grade run (docs/grading.md §5): the share of optimal, depth-lost and blunder moves
 * overall and by phase, by stones (side to move v opponent, stones on the board plus in hand) and
 * by the value of the position (draws; wins and losses grouped by depth in blocks of 10 plies),
 * each share with its 95 % Wilson interval and the number of moves it is taken over.
 *
 * Text for terminals, JSON (docs/json/grade.schema.json) and one self-contained HTML file (inline
 * CSS and SVG bar charts; no script, no external resource). Everything comes from the tally and
 * the run's facts, so a run read back from the audit store renders the same as the live one.
 */
#ifndef MA_GRADE_REPORT_H
#define MA_GRADE_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "millaudit/game.h" /* ma_grade_report_info, ma_grade_tally, ma_grading */
#include "reports/store/audit_game.h"

#define MA_GRADE_JSON_SCHEMA_VERSION 1

void ma_grade_report_text(FILE *out, const ma_grade_report_info *info, const ma_grade_tally *t);
/* The JSON document (new reference). */
json_t *ma_grade_report_json(const ma_grade_report_info *info, const ma_grade_tally *t, int *bad);
/* Writes the HTML document. Returns 0, or -1 when writing failed (errno set). */
int ma_grade_report_html(FILE *out, const ma_grade_report_info *info, const ma_grade_tally *t);

#endif
