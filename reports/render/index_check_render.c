/* The renderers of `millaudit index-check` (include/millaudit/inspect.h). */
#include <inttypes.h>
#include <stdio.h>

#include "common/counts.h"
#include "millaudit/inspect.h"

void ma_index_check_render_start(FILE *out, const ma_index_check_report *r)
{
    fprintf(out, "index-check %s: sym16-colex v1\n", r->label);
}

void ma_index_check_render_file(FILE *out, const ma_index_check_report *r)
{
    char sec[16];
    ma_sector_format(r->sector, sec, sizeof sec);
    fprintf(out, "  file                %s: header %s %s, %s, %s\n", r->file, ma_variant_name(r->variant), sec,
            MA_COUNT(r->file_entries, "entry", "entries"), MA_COUNT(r->file_bad, "bad encoding", "bad encodings"));
}

void ma_index_check_render_failure(FILE *out, const ma_index_check_report *r,
                                   const ma_index_check_failure *f)
{
    char board[80];
    ma_board_format(f->board, board, sizeof board);
    fprintf(out, "FAIL %s: entry %" PRIu64 ": board %s: %s%s%s\n", r->label, f->entry, board,
            f->file ? f->file : "", f->file ? ": " : "", f->what);
}

void ma_index_check_render_end(FILE *out, const ma_index_check_report *r)
{
    if (!r->counts_agree)
        fprintf(out, "FAIL %s: orbit sizes of canonical entries sum to %" PRIu64 ", raw placements %"
                PRIu64 " (expected %" PRIu64 ")\n", r->label, r->orbit_sum, r->placements,
                r->expected_placements);
    fprintf(out, "  entries             %" PRIu64 "\n", r->entries);
    fprintf(out, "  representatives     %" PRIu64 "\n", r->representatives);
    fprintf(out, "  canonical entries   %" PRIu64 "\n", r->canonical);
    fprintf(out, "  non-canonical       %" PRIu64 "\n", r->entries - r->canonical);
    fprintf(out, "  raw placements      %" PRIu64 " (sum of orbit sizes %" PRIu64 ")\n", r->placements,
            r->orbit_sum);
    if (r->failures)
        fprintf(out, "result: FAILED, %s%s\n", MA_COUNT(r->failures, "failure", "failures"),
                r->shown > MA_INDEX_CHECK_SHOWN ? " (first ones shown)" : "");
    else
        fprintf(out, "result: ok\n");
}
