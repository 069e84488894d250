/*
 * Rendering one audit run (reports/store/report.h: ma_report) for people: text, Markdown, JSON, HTML
 * (docs/report.md).
 *
 * Every format opens with the verdict (fully verified / verified within bounds only / discrepancies
 * found / incomplete / interrupted; for diff runs values agree / values differ), then the run facts,
 * the per-sector table with a total row, the discrepancies with each board drawn (coordinates,
 * stones in hand, side to move, the refuting move), the outcome/depth histograms where recorded,
 * the history of the same database root, and in an appendix the manifest of the bytes checked (or,
 * loudly, that none was recorded) and the derived-value digests. Diff runs use diff's words: A and
 * B named with their paths, "A says" / "B says".
 *
 * HTML is one self-contained file: inline CSS and SVG charts, no scripts, no external references;
 * every string from the store is escaped. JSON is the report document of
 * docs/json/report.schema.json ("format": "millaudit-report", "schema_version": 1).
 *
 * Output goes to a malloc'd buffer; ma_render_write_atomic puts a buffer in a file by writing a
 * temporary file beside it and renaming it, so the file is either absent/old or complete.
 */
#ifndef MA_RENDER_H
#define MA_RENDER_H

#include <stddef.h>

#include "common/ma_error.h"
#include "millaudit/store.h" /* ma_render_format, ma_render_report, ma_render_write_atomic: public */
#include "reports/store/report.h"

#define MA_REPORT_SCHEMA_VERSION 3 /* v2: verdict box, causes, report --sector; v3: integrity, damaged files */
#define MA_REPORT_FORMAT "millaudit-report"

/* Draws a board in the notation of docs/format.md §6 ("a1,d1/c3", '-' for a side without stones)
 * as 13 lines of 13 characters plus a file-letter line ("  a b c d e f g"), each line prefixed with
 * its rank digit and a space: 14 lines, '\n'-terminated, into buf. Points are '+', mover stones 'X',
 * opponent stones 'O'. MA_EINVAL when the text is not a board (unknown point, a point twice);
 * MA_EINVAL also when buf is smaller than MA_RENDER_BOARD_SIZE. */
#define MA_RENDER_BOARD_SIZE (14 * 16 + 1)
int ma_render_board_text(char *buf, size_t size, const char *board, ma_error *err);

/* Escapes s for HTML text and attribute values (& < > " ') into a malloc'd string; NULL -> "". */
char *ma_render_html_escape(const char *s);


#endif
