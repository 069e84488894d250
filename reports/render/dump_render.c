/*
 * The renderers of `millaudit dump` (include/millaudit/inspect.h): the '#' header, one line per
 * position in the dump notation of docs/format.md §6, and the reports of bad entries.
 */
#include <inttypes.h>
#include <stdio.h>

#include "common/counts.h"
#include "millaudit/inspect.h"

void ma_dump_render_header(FILE *out, const ma_dump_summary *s, int with_entry)
{
    fprintf(out, "# file: %s\n", s->path);
    fprintf(out, "# variant: %s\n", ma_variant_name(s->variant));
    fprintf(out, "# sector: %s (mover %d on board %d in hand, opponent %d on board %d in hand)\n",
            s->sector_name, s->sector.w, s->sector.wf, s->sector.b, s->sector.bf);
    if (s->has_producer)
        fprintf(out, "# entries: %" PRIu64 ", producer: %s %s\n", s->entries, s->producer,
                s->producer_version);
    else
        fprintf(out, "# entries: %" PRIu64 ", format: %s\n", s->entries, ma_format_name(s->format));
    fprintf(out, "# %s<board> <outcome> <depth>\n", with_entry ? "<entry> " : "");
}

void ma_dump_render_entry(FILE *out, FILE *diag, const ma_dump_summary *s, const ma_dump_entry *d,
                          int with_entry)
{
    char board[96];
    ma_board_format(d->board, board, sizeof board);
    if (d->canonical) { /* millions of lines: no format string to parse per line */
        if (with_entry)
            fprintf(out, "%" PRIu64 " ", d->entry);
        fputs(board, out);
        putc(' ', out);
        fputs(d->value, out);
        putc('\n', out);
    }
    if (!d->report)
        return;
    if (d->canonical)
        fprintf(diag, "millaudit dump: %s: sector %s: offset %" PRIu64 ": entry %" PRIu64 " (%s): %s\n",
                s->path, s->sector_name, d->offset, d->entry, board, d->problem);
    else
        fprintf(diag, "millaudit dump: %s: sector %s: offset %" PRIu64 ": entry %" PRIu64 " %s\n",
                s->path, s->sector_name, d->offset, d->entry, d->problem);
}

void ma_dump_render_end(FILE *diag, const ma_dump_summary *s)
{
    if (s->bad)
        fprintf(diag, "millaudit dump: %s: %s among %s (%s canonical)\n", s->path,
                MA_COUNT(s->bad, "bad encoding", "bad encodings"), MA_COUNT(s->entries, "entry", "entries"),
                MA_NUM(s->canonical));
}
