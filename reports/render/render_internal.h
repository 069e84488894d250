/*
 * Shared by the renderers of reports/render/ (render.c: text and Markdown, render_html.c, render_json.c,
 * render_charts.c), defined in render_internal.c, which calls none of them (no circle: dispatch
 * stays in render.c). Not part of the public API.
 *
 * The one rule that keeps hostile store strings harmless: every string that comes from the store
 * goes through ma_out_str, which escapes it for the output format (text: control characters as
 * '?'; Markdown: also | ` * _ [ ] \ < escaped; HTML: entities, control characters as '?').
 * ma_out_printf is for numbers and literal markup only.
 */
#ifndef MA_RENDER_INTERNAL_H
#define MA_RENDER_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "common/ma_error.h"
#include "reports/render/render.h"
#include "reports/store/report.h"

#define MA_RENDER_MAX_BOARDS 50 /* discrepancies drawn as boards; the rest are listed as rows */

typedef struct ma_out {
    FILE *f;
    int oom;
    ma_render_format fmt;
} ma_out;

/* s escaped for o->fmt; NULL prints as "-" (HTML: an en dash). */
void ma_out_str(ma_out *o, const char *s);
/* At most max bytes of s (then "..."), escaped. */
void ma_out_strn(ma_out *o, const char *s, size_t max);
void ma_out_printf(ma_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "1,234,567"; -1 (not recorded) as "-". */
const char *ma_fmt_count(char *buf, size_t n, int64_t v);
/* entries per second, "1.23M/s" style; "-" when seconds is 0. */
const char *ma_fmt_rate(char *buf, size_t n, int64_t entries, double seconds);

/* The board of docs/format.md §6 on a 13x13 grid; grid[row][col] = 'X' mover, 'O' opponent, 0. */
extern const char *const ma_render_board_template[13];
int ma_render_board_grid(const char *board, char grid[13][13], ma_error *err);

/* A move in a1..g7 notation: "place g7", "d2-d3", "d2-d3xa1", "place g7xa1" (also "g7" for a
 * placement). Points as "a1" strings, "" when absent. */
typedef struct ma_move {
    int kind;            /* 0: not a move; 1: placement; 2: move or jump */
    char from[3], to[3]; /* placement: to only */
    char capture[3];     /* removed opponent stone, "" if none */
} ma_move;
int ma_render_move_parse(const char *text, ma_move *m);

/* "verified", "within bounds", "discrepancies", ... for a sector or run state, in the words of the
 * run's kind (diff: "values agree" / "values differ"). */
const char *ma_state_words(ma_verdict_state s);
/* CSS class for a state: "good", "warn", "bad", "grey". */
const char *ma_state_class(ma_verdict_state s);

/* Diff runs speak of A and B, verify runs of stored and derived values. */
int ma_report_is_diff(const ma_report *r);

/* The order discrepancy rows are shown in: roots first (the faults to fix), then rows whose kind
 * was not recorded, then propagated ones, each group in recorded order (sector, entry). Returns a
 * malloc'd array of r->run.n_disc indexes into r->run.disc, or NULL (o->oom set) when out of memory
 * or when there are none. */
size_t *ma_render_disc_order(ma_out *o, const ma_report *r);

/* The run's variant, or when it covers several (recorded as NULL or "-") their names from the
 * sectors: "std, lask, mora". Into buf; returns it. */
const char *ma_render_variants(const ma_report *r, char *buf, size_t n);

/* The facts of a report's Run section, in the order every format shows them; a fact whose name is
 * NULL does not apply to this run (no second side, no mode, no options). variants (n bytes) holds
 * the variant list the facts point into. */
typedef struct ma_render_fact {
    const char *name, *value;
} ma_render_fact;
#define MA_RENDER_RUN_FACTS 14
void ma_render_run_facts(const ma_report *r, char *variants, size_t n, ma_render_fact f[MA_RENDER_RUN_FACTS]);

/* Where a sector's row goes: 0 it holds root discrepancies, 1 other discrepancies (diff: values
 * differ), 2 not proven whole (within bounds, incomplete, unusable, interrupted), 3 fine. */
int ma_render_sector_rank(const ma_report *r, size_t i);
/* The order sector rows are shown in: by rank, then as recorded (by name), so the faulty sectors
 * come first. A malloc'd array of r->run.n_sectors indexes, or NULL (o->oom set) when out of
 * memory or when there are none. */
size_t *ma_render_sector_order(ma_out *o, const ma_report *r);

/* The recorded rows of each sector, for showing them sector by sector (issue 45: rows capped per
 * sector, so one sector's thousand rows cannot bury the others): idx holds indexes into
 * r->run.disc grouped by sector, roots first, then rows whose kind was not recorded, then
 * propagated ones, each group in recorded order; rows of sector i are idx[start[i] ..
 * start[i] + count[i]). ma_render_rows_of returns 0, or -1 (o->oom set) when out of memory. */
typedef struct ma_render_rows {
    size_t *idx, *start, *count;
} ma_render_rows;
int ma_render_rows_of(ma_out *o, const ma_report *r, ma_render_rows *out);
void ma_render_rows_free(ma_render_rows *rows);

/* Rows shown per sector (the rest are counted, with the command that lists them), and boards
 * drawn, of a report of the whole run; a report of one sector (ma_report.only) shows all its rows. */
#define MA_RENDER_ROWS_PER_SECTOR 10
#define MA_RENDER_BOARDS_PER_SECTOR 2

/* Is sector i shown (every sector, or the one ma_report.only names)? */
int ma_render_sector_shown(const ma_report *r, size_t i);

/* The outcome/depth histogram of the shown sectors, of one variant (the sector names' part before
 * '_') or of all when variant is NULL, folded into wins[d] and losses[d] for depths 0 .. cap - 1
 * (deeper bins are left out; both arrays zeroed by the caller), with the draws, the largest count
 * of a depth and the deepest depth folded (-1 when none). Returns 1 when any bin was recorded, so
 * a run without histograms says so rather than drawing an empty one. */
typedef struct ma_render_depths {
    int64_t draws, max;
    int maxd;
} ma_render_depths;
int ma_render_depth_bins(const ma_report *r, const char *variant, int64_t *wins, int64_t *losses, int cap,
                         ma_render_depths *out);

/* "millaudit report --audit STORE --run N --sector S" into buf, words quoted for a shell. */
void ma_render_sector_command(char *buf, size_t size, const ma_report *r, const char *sector);

/* The shards a merged run was made of, in o's format (nothing for other runs). */
void ma_render_shards(ma_out *o, const ma_report *r);

/* The Markdown budget (docs/report.md "Formats"): a GitHub comment or job summary holds 65,536
 * characters; the text and Markdown renderer (render_text.c) lists less at each of
 * MA_RENDER_LEVELS levels (0: everything, the verdict box always whole). */
#define MA_RENDER_MD_MAX 65536
#define MA_RENDER_LEVELS 4
void ma_render_text(ma_out *o, const ma_report *r, int md, int level);

/* The renderers render.c dispatches to (render_html.c, render_json.c). */
void ma_render_html(ma_out *o, const ma_report *r);
int ma_render_json(char **out, const ma_report *r, ma_error *err);

/* Charts (render_charts.c), inline SVG; each prints a <figure> or a short "not recorded" note. */
void ma_chart_proof(ma_out *o, const ma_report *r);     /* per sector: verified / bounds / discrepant */
void ma_chart_wdl(ma_out *o, const ma_report *r);       /* per sector: wins / draws / losses */
void ma_chart_depths(ma_out *o, const ma_report *r);    /* depth histogram, log scale, wins and losses apart */
void ma_chart_time(ma_out *o, const ma_report *r);      /* per sector seconds and entries/s */
void ma_chart_map(ma_out *o, const ma_report *r);       /* where discrepancies sit: sector x entry range */
void ma_chart_history(ma_out *o, const ma_report *r);   /* runs of the same database root */
/* The board as SVG with coordinates, stones in hand, side to move and the refuting move. */
void ma_svg_board(ma_out *o, const char *board, int mover_in_hand, int opponent_in_hand, const char *move);


/* A recorded run's damaged files (reports/store/audit_integrity.h), in every format right after
 * the verdict (docs/report.md, docs/download.md): what the files were judged against and, per
 * damaged file, what is wrong with it and whether to fetch it again or remove it. Nothing for a
 * run that recorded no integrity phase, or one that found nothing and had no reference. Defined in
 * reports/render/report_integrity.c (not in render_internal.c). */
void ma_render_report_integrity(ma_out *o, const ma_report *r);
/* The "integrity" member of the report document, a jansson object (json_t *); null when the run
 * recorded none. */
struct json_t;
struct json_t *ma_render_report_integrity_json(const ma_report *r, int *bad);

#endif
