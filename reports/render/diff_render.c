/*
 * The renderers of `millaudit diff` (include/millaudit/diff.h): a pair as text, the shard line,
 * the end of the run (messages, then the JSON document of docs/json/diff.schema.json or the text
 * total), and the JUnit report (reports/render/diff_junit.h).
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "common/fileio.h"
#include "common/json_text.h"
#include "millaudit.h"
#include "common/progress.h"
#include "indexer/position.h"
#include "reports/render/diff_junit.h"
#include "verifier/run/diff.h"

#define DIFF_SCHEMA_VERSION 2 /* v2: causes, proofs, header words */

/* ---- text ---- */

#define TURNS_SHOWN 8  /* turns of a differing position shown, best first */
#define NAMES_SHOWN 12 /* sectors named in one summary line */

/* The board as a 7x7 grid, row 7 on top; X mover, O opponent, '.' empty point. */
static void print_diagram(FILE *out, ma_board b, const char *indent)
{
    char grid[7][7];
    memset(grid, ' ', sizeof grid);
    for (int p = 0; p < MA_POINTS; p++) {
        const char *nm = ma_point_name(p);
        grid[nm[1] - '1'][nm[0] - 'a'] = (b.mover >> p & 1) ? 'X' : (b.opp >> p & 1) ? 'O' : '.';
    }
    for (int row = 6; row >= 0; row--) {
        fprintf(out, "%s%d ", indent, row + 1);
        for (int col = 0; col < 7; col++)
            fprintf(out, "%c%s", grid[row][col], col < 6 ? " " : "\n");
    }
    fprintf(out, "%s  a b c d e f g\n", indent);
}

/* "outcome 6,840, depth 644,991" (value classes with a count; draw-class only where compared). */
static void value_classes(char *buf, size_t size, const ma_diff_result *r)
{
    size_t k = 0;
    buf[0] = 0;
    for (int c = 0; c < MA_DIFF_ENCODING && k < size; c++)
        if (r->counts[c] && (c != MA_DIFF_DRAW_CLASS || r->draw_class_compared))
            k += (size_t)snprintf(buf + k, size - k, "%s%s %s", k ? ", " : "", ma_diff_class_name(c),
                                  MA_NUM(r->counts[c]));
}

/* What the side that is right proves, in words (ma_diff_example.right). */
static void print_verdict_of_position(FILE *out, const ma_diff_example *x)
{
    fprintf(out, "    A says %s, B says %s", x->text_a, x->text_b);
    if (!x->proved) {
        fprintf(out, "\n");
        return;
    }
    char wrong = x->right == 'A' ? 'B' : 'A';
    switch (x->right) {
    case 'A':
    case 'B':
        if (!strcmp(x->rules_a, x->rules_b))
            fprintf(out, ": %c is right: the turns give %s on both sides, so %c's own value is wrong\n", x->right,
                    x->rules_a, wrong);
        else
            fprintf(out, ": %c is right: its turns give %s (%c's give %s)\n", x->right,
                    x->right == 'A' ? x->rules_a : x->rules_b, wrong, x->right == 'A' ? x->rules_b : x->rules_a);
        break;
    case '2':
        fprintf(out, ": each side's value is what its own turns give: the difference comes from a successor%s%s\n",
                x->proof[0] ? ", through " : "", x->proof);
        break;
    case '0':
        fprintf(out, ": neither is what its turns give (A's give %s, B's %s)\n", x->rules_a, x->rules_b);
        break;
    default:
        fprintf(out, ": undecided, a turn's value is unknown on a side\n");
    }
    if (x->no_turn[0])
        fprintf(out, "    no turn: %s\n", x->no_turn);
    else if (x->proof[0])
        for (int i = 0; i < x->n_turns; i++)
            if (!strcmp(x->turns[i].move, x->proof))
                fprintf(out, "    proved by %s: %s in A, %s in B\n", x->proof, x->turns[i].a, x->turns[i].b);
}

static void print_position(FILE *out, const ma_diff_sector *s, const ma_diff_example *x, int quiet)
{
    char board[96];
    ma_board_format(x->board, board, sizeof board);
    char entries[64];
    if (x->entry_a == x->entry_b)
        snprintf(entries, sizeof entries, "entry %" PRIu64 " in A and B", x->entry_a);
    else
        snprintf(entries, sizeof entries, "entry %" PRIu64 " in A, %" PRIu64 " in B", x->entry_a, x->entry_b);
    fprintf(out, "  %s%s: position %s, X to move, in hand X %d, O %d (%s)\n",
            x->cause == MA_DIFF_CAUSE_ROOT ? "root " : x->cause == MA_DIFF_CAUSE_PROPAGATED ? "propagated " : "",
            ma_diff_class_name(x->cls), board, s->sector.wf, s->sector.bf, entries);
    if (x->cls == MA_DIFF_ENCODING) {
        fprintf(out, "    A holds %s, B holds %s\n", x->text_a, x->text_b);
        return;
    }
    print_verdict_of_position(out, x);
    if (x->proved && x->n_turns) {
        fprintf(out, "    %-12s %-22s %s\n", "turn", "A", "B");
        for (int i = 0; i < x->n_turns && i < TURNS_SHOWN; i++)
            fprintf(out, "    %-12s %-22s %s%s\n", x->turns[i].move, x->turns[i].a, x->turns[i].b,
                    x->turns[i].differs ? "   <- differs" : "");
        if (x->n_turns > TURNS_SHOWN)
            fprintf(out, "    ... %s more %s\n", MA_NUM((uint64_t)(x->n_turns - TURNS_SHOWN)),
                    ma_noun((uint64_t)(x->n_turns - TURNS_SHOWN), "turn", "turns"));
    }
    if (!quiet)
        print_diagram(out, x->board, "      ");
}

/* What an equal pair's bytes say, in words: identical, the same values in another format, only
 * header bytes, or other encodings of the same values. */
static void equal_words(char *buf, size_t size, const ma_diff_sector *s)
{
    const ma_diff_result *r = &s->r;
    if (s->status == MA_DIFF_IDENTICAL)
        snprintf(buf, size, "identical files (%s, same SHA-256)", ma_format_name(s->format_a));
    else if (s->format_a != s->format_b)
        snprintf(buf, size, "the same values in another format (A %s, B %s): every position is encoded differently, "
                            "as expected", ma_format_name(s->format_a), ma_format_name(s->format_b));
    else if (r->outside_entries_only)
        snprintf(buf, size, "the same values, the files differ only in their headers: %s", r->header_words);
    else if (r->counts[MA_DIFF_ENCODING])
        snprintf(buf, size, "the same values, %s other bytes (fillers, markers or counters)",
                 MA_COUNT(r->counts[MA_DIFF_ENCODING], "entry holds", "entries hold"));
    else
        snprintf(buf, size, "the same values, the same bytes in every entry");
}

static void print_root_pair(FILE *out, const ma_diff_sector *s, int quiet)
{
    const ma_diff_result *r = &s->r;
    char classes[256];
    value_classes(classes, sizeof classes, r);
    fprintf(out, "%s: values differ: %s of %s (%s)", s->name, MA_NUM(ma_diff_value_differences(r)),
            MA_COUNT(r->positions, "position", "positions"), classes);
    if (r->classified)
        fprintf(out, "; %s at the root%s", MA_NUM(r->roots + r->unknown),
                r->unknown ? " or of unknown cause (a successor could not be read)" : "");
    if (s->format_a != s->format_b)
        fprintf(out, " (A %s, B %s)", ma_format_name(s->format_a), ma_format_name(s->format_b));
    fprintf(out, "\n");
    for (size_t i = 0; i < r->n_examples; i++)
        print_position(out, s, &r->examples[i], quiet);
}

static void print_pair_line(FILE *out, const ma_diff_sector *s)
{
    char shown[1100], words[400];
    switch (s->status) {
    case MA_DIFF_ONLY_A:
    case MA_DIFF_ONLY_B:
        ma_escape_name(s->a ? s->path_a : s->path_b, shown, sizeof shown);
        fprintf(out, "%s: only in %s (%s)\n", s->name, s->status == MA_DIFF_ONLY_A ? "A" : "B", shown);
        return;
    case MA_DIFF_UNUSABLE:
        fprintf(out, "%s: unusable: %s\n", s->name, s->message);
        return;
    case MA_DIFF_DIFFERS:
        fprintf(out, "%s: values differ in %s, only as a consequence of %s\n", s->name,
                MA_COUNT(ma_diff_value_differences(&s->r), "position", "positions"), s->because);
        return;
    case MA_DIFF_PENDING:
        fprintf(out, "%s: not compared\n", s->name);
        return;
    default:
        equal_words(words, sizeof words, s);
        fprintf(out, "%s: equal: %s\n", s->name, words);
    }
}

void ma_diff_render_pair_text(FILE *out, const ma_diff_sector *s, int quiet)
{
    if (s->status == MA_DIFF_DIFFERS && s->cause != MA_DIFF_CAUSE_PROPAGATED)
        print_root_pair(out, s, quiet);
    else
        print_pair_line(out, s);
}

/* Equal pairs in one line per kind of sameness: "6 sectors equal: the same values, the files
 * differ only in their headers: producer ... (std_0_0_4_4, ...)". */
static void print_equal_summary(FILE *out, const ma_diff_report *r, char *done)
{
    char words[400], other[400];
    memset(done, 0, r->n);
    for (size_t i = 0; i < r->n; i++) {
        const ma_diff_sector *s = &r->pairs[i];
        if (done[i] || (s->status != MA_DIFF_IDENTICAL && s->status != MA_DIFF_EQUAL))
            continue;
        equal_words(words, sizeof words, s);
        size_t group = 0;
        for (size_t j = i; j < r->n; j++) {
            const ma_diff_sector *t = &r->pairs[j];
            if (done[j] || (t->status != MA_DIFF_IDENTICAL && t->status != MA_DIFF_EQUAL))
                continue;
            equal_words(other, sizeof other, t);
            group += !strcmp(words, other);
        }
        fprintf(out, "%s equal: %s (", MA_COUNT(group, "sector", "sectors"), words);
        for (size_t j = i, shown = 0; j < r->n; j++) {
            const ma_diff_sector *t = &r->pairs[j];
            if (done[j] || (t->status != MA_DIFF_IDENTICAL && t->status != MA_DIFF_EQUAL))
                continue;
            equal_words(other, sizeof other, t);
            if (strcmp(words, other))
                continue;
            done[j] = 1;
            if (shown < NAMES_SHOWN)
                fprintf(out, "%s%s", shown ? ", " : "", t->name);
            else if (shown == NAMES_SHOWN)
                fprintf(out, ", ...");
            shown++;
        }
        fprintf(out, ")\n");
    }
}

/* The consequences in one line per set of causes. */
static void print_consequences(FILE *out, const ma_diff_report *r, char *done)
{
    memset(done, 0, r->n);
    for (size_t i = 0; i < r->n; i++) {
        const ma_diff_sector *s = &r->pairs[i];
        if (done[i] || s->status != MA_DIFF_DIFFERS || s->cause != MA_DIFF_CAUSE_PROPAGATED)
            continue;
        size_t group = 0;
        for (size_t j = i; j < r->n; j++)
            group += !done[j] && r->pairs[j].status == MA_DIFF_DIFFERS &&
                     r->pairs[j].cause == MA_DIFF_CAUSE_PROPAGATED && !strcmp(r->pairs[j].because, s->because);
        fprintf(out, "%s only as a consequence of %s (%s with its own successors):",
                MA_COUNT(group, "sector differs", "sectors differ"), s->because,
                ma_noun(group, "it agrees", "each agrees"));
        for (size_t j = i, shown = 0; j < r->n; j++) {
            const ma_diff_sector *t = &r->pairs[j];
            if (done[j] || t->status != MA_DIFF_DIFFERS || t->cause != MA_DIFF_CAUSE_PROPAGATED ||
                strcmp(t->because, s->because))
                continue;
            done[j] = 1;
            if (shown < NAMES_SHOWN)
                fprintf(out, "%s %s (%s)", shown ? "," : "", t->name, MA_NUM(ma_diff_value_differences(&t->r)));
            else if (shown == NAMES_SHOWN)
                fprintf(out, ", ...");
            shown++;
        }
        fprintf(out, "\n");
    }
}

/* A and B named at the top, as a reader asks first which is which. */
static void print_sides(FILE *out, const ma_diff_report *r)
{
    const char *paths[2] = {r->path_a, r->path_b};
    const ma_database *dbs[2] = {r->a, r->b};
    for (int k = 0; k < 2; k++) {
        char shown[1100];
        ma_escape_name(paths[k], shown, sizeof shown);
        fprintf(out, "%c  %s", k ? 'B' : 'A', shown);
        if (dbs[k])
            fprintf(out, " (%s format, %s)", ma_format_name(ma_database_format(dbs[k])),
                    MA_COUNT(ma_database_count(dbs[k]), "sector file", "sector files"));
        fprintf(out, "\n");
    }
}

void ma_diff_render_plan_text(FILE *out, const ma_diff_report *r)
{
    if (r->shard_count)
        fprintf(out, "shard %u/%u: %s of %s\n", r->shard_index, r->shard_count, MA_NUM(r->n),
                MA_COUNT(r->n_planned, "sector pair", "sector pairs"));
}

/* Every pair, root differences first: by default one line per differing pair (its positions for
 * a pair that differs at the root), the consequences and the equal pairs in summary lines; with
 * all, one line for every pair. */
static void print_pairs(FILE *out, const ma_diff_report *r, unsigned flags, char *done)
{
    int quiet = flags & MA_DIFF_TEXT_QUIET;
    for (size_t i = 0; i < r->n; i++) {
        const ma_diff_sector *s = &r->pairs[i];
        if (s->status == MA_DIFF_DIFFERS && s->cause != MA_DIFF_CAUSE_PROPAGATED)
            print_root_pair(out, s, quiet);
    }
    for (size_t i = 0; i < r->n; i++) {
        int st = r->pairs[i].status;
        if (st == MA_DIFF_ONLY_A || st == MA_DIFF_ONLY_B || st == MA_DIFF_UNUSABLE || st == MA_DIFF_PENDING)
            print_pair_line(out, &r->pairs[i]);
    }
    if (flags & MA_DIFF_TEXT_ALL) {
        for (size_t i = 0; i < r->n; i++) {
            const ma_diff_sector *s = &r->pairs[i];
            if ((s->status == MA_DIFF_DIFFERS && s->cause == MA_DIFF_CAUSE_PROPAGATED) ||
                s->status == MA_DIFF_EQUAL || s->status == MA_DIFF_IDENTICAL)
                print_pair_line(out, s);
        }
        return;
    }
    print_consequences(out, r, done);
    if (!quiet)
        print_equal_summary(out, r, done);
}

/* ---- JSON (docs/json/diff.schema.json) ---- */

static json_t *count(uint64_t n)
{
    return json_integer((json_int_t)n);
}

static json_t *value_json(const ma_stored *v, const char *text, int *bad)
{
    json_t *o = json_object();
    const char *outcome = v->kind == MA_STORED_BAD    ? "bad"
                          : v->kind == MA_STORED_NONE ? (v->marker >= 0 ? "marker" : "none")
                                                      : ma_outcome_name(v->value.outcome);
    ma_json_put(o, "outcome", json_string(outcome), bad);
    if (v->kind == MA_STORED_VALUE && v->value.outcome != MA_OUTCOME_DRAW)
        ma_json_put(o, "depth", json_integer(v->value.depth), bad);
    if (v->kind == MA_STORED_VALUE && v->value.outcome == MA_OUTCOME_DRAW && v->has_draw_class)
        ma_json_put(o, "draw_class", json_integer(v->draw_class), bad);
    if (v->marker >= 0)
        ma_json_put(o, "marker", json_integer(v->marker), bad);
    ma_json_put(o, "text", ma_json_store_text(text), bad);
    return o;
}

static json_t *classes_json(const uint64_t counts[MA_DIFF_CLASSES], int *bad)
{
    json_t *o = json_object();
    for (int k = 0; k < MA_DIFF_CLASSES; k++)
        ma_json_put(o, ma_diff_class_name(k), count(counts[k]), bad);
    return o;
}

static json_t *format_json(ma_format f)
{
    return f ? json_string(ma_format_name(f)) : json_null();
}

/* The proof of a value difference (ma_diff_example: turns on both sides, which side is right), or
 * null when the example was not proved. */
static json_t *proof_json(const ma_diff_example *x, int *bad)
{
    if (!x->proved)
        return json_null();
    json_t *o = json_object(), *turns = json_array();
    for (int i = 0; i < x->n_turns; i++) {
        json_t *t = json_object();
        ma_json_put(t, "turn", json_string(x->turns[i].move), bad);
        ma_json_put(t, "a", json_string(x->turns[i].a), bad);
        ma_json_put(t, "b", json_string(x->turns[i].b), bad);
        ma_json_put(t, "differs", json_boolean(x->turns[i].differs), bad);
        ma_json_push(turns, t, bad);
    }
    ma_json_put(o, "turns", turns, bad);
    ma_json_put(o, "no_turn", x->no_turn[0] ? json_string(x->no_turn) : json_null(), bad);
    ma_json_put(o, "rules_a", json_string(x->rules_a), bad);
    ma_json_put(o, "rules_b", json_string(x->rules_b), bad);
    ma_json_put(o, "a_agrees", x->agrees_a < 0 ? json_null() : json_boolean(x->agrees_a), bad);
    ma_json_put(o, "b_agrees", x->agrees_b < 0 ? json_null() : json_boolean(x->agrees_b), bad);
    const char *right = x->right == 'A' ? "A" : x->right == 'B' ? "B" : x->right == '2' ? "both" : x->right == '0' ? "neither" : NULL;
    ma_json_put(o, "right", right ? json_string(right) : json_null(), bad);
    ma_json_put(o, "turn", x->proof[0] ? json_string(x->proof) : json_null(), bad);
    return o;
}

static json_t *sector_json(const ma_diff_sector *s, int *bad)
{
    json_t *o = json_object();
    ma_json_put(o, "sector", json_string(s->name), bad);
    ma_json_put(o, "variant", json_string(ma_variant_name(s->variant)), bad);
    ma_json_put(o, "status", json_string(ma_diff_status_name(s->status)), bad);
    ma_json_put(o, "file_a", s->path_a ? ma_json_store_text(s->path_a) : json_null(), bad);
    ma_json_put(o, "file_b", s->path_b ? ma_json_store_text(s->path_b) : json_null(), bad);
    ma_json_put(o, "format_a", format_json(s->format_a), bad);
    ma_json_put(o, "format_b", format_json(s->format_b), bad);
    ma_json_put(o, "message", s->message[0] ? ma_json_store_text(s->message) : json_null(), bad);
    if (s->status != MA_DIFF_IDENTICAL && s->status != MA_DIFF_EQUAL && s->status != MA_DIFF_DIFFERS)
        return o;
    const ma_diff_result *r = &s->r;
    ma_json_put(o, "draw_class_compared", json_boolean(r->draw_class_compared), bad);
    ma_json_put(o, "positions", count(r->positions), bad);
    ma_json_put(o, "differences", classes_json(r->counts, bad), bad);
    json_t *ex = json_array();
    for (size_t i = 0; i < r->n_examples; i++) {
        const ma_diff_example *x = &r->examples[i];
        char board[96];
        ma_board_format(x->board, board, sizeof board);
        json_t *e = json_object();
        ma_json_put(e, "class", json_string(ma_diff_class_name(x->cls)), bad);
        ma_json_put(e, "board", json_string(board), bad);
        ma_json_put(e, "entry_a", count(x->entry_a), bad);
        ma_json_put(e, "entry_b", count(x->entry_b), bad);
        ma_json_put(e, "offset_a", count(x->offset_a), bad);
        ma_json_put(e, "offset_b", count(x->offset_b), bad);
        ma_json_put(e, "a", value_json(&x->a, x->text_a, bad), bad);
        ma_json_put(e, "b", value_json(&x->b, x->text_b, bad), bad);
        ma_json_put(e, "cause", x->cause == MA_DIFF_CAUSE_ROOT         ? json_string("root")
                                        : x->cause == MA_DIFF_CAUSE_PROPAGATED ? json_string("propagated")
                                                                               : json_null(), bad);
        ma_json_put(e, "proof", proof_json(x, bad), bad);
        ma_json_push(ex, e, bad);
    }
    ma_json_put(o, "examples", ex, bad);
    ma_json_put(o, "header", r->outside_entries_only ? json_string(r->header_words) : json_null(), bad);
    ma_json_put(o, "roots", r->classified ? count(r->roots + r->unknown) : json_null(), bad);
    ma_json_put(o, "propagated", r->classified ? count(r->propagated) : json_null(), bad);
    ma_json_put(o, "cause", s->status != MA_DIFF_DIFFERS                ? json_null()
                                    : s->cause == MA_DIFF_CAUSE_PROPAGATED ? json_string("consequence")
                                                                            : json_string("root"), bad);
    json_t *because = json_array();
    for (const char *p = s->cause == MA_DIFF_CAUSE_PROPAGATED ? s->because : ""; *p;) {
        size_t len = strcspn(p, ",");
        ma_json_push(because, json_stringn(p, len), bad);
        p += len;
        p += strspn(p, ", ");
    }
    ma_json_put(o, "consequence_of", because, bad);
    ma_json_put(o, "seconds", json_real(r->seconds), bad);
    return o;
}

static json_t *database_json(const char *given, const ma_database *db, int *bad)
{
    json_t *o = json_object();
    ma_json_put(o, "root", ma_json_store_text(given), bad);
    ma_json_put(o, "format", db ? format_json(ma_database_format(db)) : json_null(), bad);
    json_t *vars = json_array();
    for (int v = MA_VARIANT_STD; db && v <= MA_VARIANT_MORA; v++)
        if (ma_database_variants(db) & (1u << v))
            ma_json_push(vars, json_string(ma_variant_name((ma_variant)v)), bad);
    ma_json_put(o, "variants", vars, bad);
    return o;
}

static json_t *options_json(const ma_diff_report *r, int *bad)
{
    json_t *o = json_object();
    ma_json_put(o, "threads", json_integer(r->compare.threads), bad);
    ma_json_put(o, "limit", count(r->compare.limit), bad);
    ma_json_put(o, "full", json_boolean(r->compare.full), bad);
    if (r->shard_count) {
        json_t *sh = json_object();
        ma_json_put(sh, "index", json_integer(r->shard_index), bad);
        ma_json_put(sh, "count", json_integer(r->shard_count), bad);
        ma_json_put(o, "shard", sh, bad);
    }
    return o;
}

static json_t *totals_json(const ma_diff_report *r, int *bad)
{
    json_t *tot = json_object();
    ma_json_put(tot, "sectors", count(r->n), bad);
    for (int k = MA_DIFF_IDENTICAL; k < MA_DIFF_STATUSES; k++)
        ma_json_put(tot, ma_diff_status_name((ma_diff_status)k), count(r->by_status[k]), bad);
    ma_json_put(tot, "positions", count(r->positions), bad);
    ma_json_put(tot, "differences", classes_json(r->counts, bad), bad);
    uint64_t roots = 0, consequences = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->pairs[i].status == MA_DIFF_DIFFERS)
            r->pairs[i].cause == MA_DIFF_CAUSE_PROPAGATED ? consequences++ : roots++;
    ma_json_put(tot, "root_sectors", count(roots), bad);
    ma_json_put(tot, "consequence_sectors", count(consequences), bad);
    ma_json_put(tot, "values_agree",
                        json_boolean(!r->by_status[MA_DIFF_DIFFERS] && !r->by_status[MA_DIFF_ONLY_A] &&
                                     !r->by_status[MA_DIFF_ONLY_B] && !r->by_status[MA_DIFF_UNUSABLE]), bad);
    return tot;
}

/* The document as text, NULL when a part of it could not be built (out of memory). */
static char *json_text(const ma_diff_report *r, const char *const *errors, size_t n_errors)
{
    int ok = 0, *bad = &ok;
    json_t *doc = json_object();
    ma_json_put(doc, "schema_version", json_integer(DIFF_SCHEMA_VERSION), bad);
    ma_json_put(doc, "command", json_string("diff"), bad);
    ma_json_put(doc, "a", database_json(r->path_a, r->a, bad), bad);
    ma_json_put(doc, "b", database_json(r->path_b, r->b, bad), bad);
    ma_json_put(doc, "options", options_json(r, bad), bad);
    json_t *secs = json_array();
    for (size_t i = 0; i < r->n; i++)
        ma_json_push(secs, sector_json(&r->pairs[i], bad), bad);
    ma_json_put(doc, "sectors", secs, bad);
    ma_json_put(doc, "totals", totals_json(r, bad), bad);
    json_t *errs = json_array();
    for (size_t i = 0; i < n_errors; i++)
        ma_json_push(errs, ma_json_store_text(errors[i]), bad);
    ma_json_put(doc, "errors", errs, bad);
    ma_json_put(doc, "exit", json_integer(ma_result_exit_code(r->result)), bad);
    char *text = *bad ? NULL : ma_json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return text;
}

/* ---- the end of the run ---- */

static void print_total(FILE *out, const ma_diff_report *r, size_t n_errors)
{
    const uint64_t *t = r->by_status, *c = r->counts;
    uint64_t roots = 0, consequences = 0, header = 0, other_format = 0, encodings = 0;
    for (size_t i = 0; i < r->n; i++) {
        const ma_diff_sector *s = &r->pairs[i];
        if (s->status == MA_DIFF_DIFFERS)
            s->cause == MA_DIFF_CAUSE_PROPAGATED ? consequences++ : roots++;
        if (s->r.outside_entries_only)
            header++;
        else if (s->format_a != s->format_b)
            other_format += s->r.counts[MA_DIFF_ENCODING];
        else
            encodings += s->r.counts[MA_DIFF_ENCODING];
    }
    uint64_t values = c[MA_DIFF_OUTCOME] + c[MA_DIFF_DEPTH] + c[MA_DIFF_DRAW_CLASS];
    fprintf(out, "total: %s: ", MA_COUNT(r->n, "sector", "sectors"));
    if (t[MA_DIFF_DIFFERS])
        fprintf(out, "%s at the root, %s only as a consequence, ", MA_COUNT(roots, "differs", "differ"),
                MA_NUM(consequences));
    fprintf(out, "%s equal (%s identical)", MA_NUM(t[MA_DIFF_EQUAL] + t[MA_DIFF_IDENTICAL]), MA_NUM(t[MA_DIFF_IDENTICAL]));
    if (t[MA_DIFF_ONLY_A] || t[MA_DIFF_ONLY_B])
        fprintf(out, ", %s only in A, %s only in B", MA_NUM(t[MA_DIFF_ONLY_A]), MA_NUM(t[MA_DIFF_ONLY_B]));
    if (t[MA_DIFF_UNUSABLE])
        fprintf(out, ", %s unusable", MA_NUM(t[MA_DIFF_UNUSABLE]));
    fprintf(out, "\n       %s compared, %s %s in value", MA_COUNT(r->positions, "position", "positions"),
            MA_NUM(values), ma_noun(values, "differs", "differ"));
    if (values) {
        fprintf(out, " (outcome %s, depth %s", MA_NUM(c[MA_DIFF_OUTCOME]), MA_NUM(c[MA_DIFF_DEPTH]));
        if (c[MA_DIFF_DRAW_CLASS])
            fprintf(out, ", draw class %s", MA_NUM(c[MA_DIFF_DRAW_CLASS]));
        fprintf(out, ")");
    }
    /* encodings in words: another format is expected, a header is what a producer writes */
    if (other_format)
        fprintf(out, "; %s stored in another format (expected)", MA_COUNT(other_format, "position", "positions"));
    if (header)
        fprintf(out, "; %s only in their headers", MA_COUNT(header, "sector differs", "sectors differ"));
    if (encodings)
        fprintf(out, "; %s other bytes for the same value", MA_COUNT(encodings, "entry holds", "entries hold"));
    fprintf(out, ": %s\n",
            t[MA_DIFF_DIFFERS]                                           ? "values differ"
            : t[MA_DIFF_ONLY_A] || t[MA_DIFF_ONLY_B]                     ? "databases differ (sectors on one side only)"
            : t[MA_DIFF_UNUSABLE] || n_errors                           ? "incomplete (unusable files)"
                                                                        : "values agree");
}

int ma_diff_render_end(FILE *out, FILE *diag, const ma_diff_report *r, unsigned flags)
{
    /* the memory the end needs is taken before a line is written: out of memory writes nothing,
     * never a total without the lines it sums up */
    size_t n_a = r->a ? ma_database_unusable_count(r->a) : 0;
    size_t n_b = r->b ? ma_database_unusable_count(r->b) : 0, n_errors = 0;
    const char **errors = calloc(n_a + n_b + r->n + 1, sizeof *errors);
    char *done = calloc(r->n ? r->n : 1, 1); /* the pairs a summary line has named */
    if (!errors || !done) {
        free(errors);
        free(done);
        return MA_ENOMEM;
    }
    /* every file either database could not use, in A then B, discovery order; then the failure */
    for (size_t i = 0; i < n_a; i++)
        errors[n_errors++] = ma_database_unusable(r->a, i)->message;
    for (size_t i = 0; i < n_b; i++)
        errors[n_errors++] = ma_database_unusable(r->b, i)->message;
    /* a file discovery found usable that the comparison could not read (its hash failed): named
     * here too, as exit 3 promises; a reader's failure is in its database's list already */
    for (size_t i = 0, known = n_errors; i < r->n; i++) {
        const ma_diff_sector *s = &r->pairs[i];
        int listed = s->status != MA_DIFF_UNUSABLE;
        for (size_t k = 0; k < known && !listed; k++)
            listed = !strcmp(errors[k], s->message);
        if (!listed)
            errors[n_errors++] = s->message;
    }
    if (r->fatal)
        errors[n_errors++] = r->failure.msg;
    char *doc = flags & MA_DIFF_TEXT_JSON ? json_text(r, errors, n_errors) : NULL;
    if ((flags & MA_DIFF_TEXT_JSON) && !doc) {
        free(errors);
        free(done);
        return MA_ENOMEM;
    }
    for (int i = 0; i < r->n_notices; i++)
        fprintf(diag, "millaudit diff: %s\n", r->notices[i]);
    for (size_t i = 0; i < n_errors; i++) {
        char words[1100];
        fprintf(diag, "millaudit diff: %s\n", ma_render_option_words(errors[i], words, sizeof words));
    }
    if (doc) {
        fputs(doc, out);
        fputc('\n', out);
        free(doc);
    } else if (!r->fatal) {
        print_sides(out, r);
        ma_diff_render_plan_text(out, r);
        print_pairs(out, r, flags, done);
        print_total(out, r, n_errors);
    }
    free(errors);
    free(done);
    return MA_OK;
}

/* The JUnit report (reports/render/diff_junit.h); pairs still pending were not compared. */
int ma_diff_render_junit(const ma_diff_report *r, const char *path, ma_error *err)
{
    ma_diff_junit_pair *jp = calloc(r->n ? r->n : 1, sizeof *jp);
    if (!jp)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < r->n; i++) {
        const ma_diff_sector *s = &r->pairs[i];
        int compared = s->status == MA_DIFF_IDENTICAL || s->status == MA_DIFF_EQUAL ||
                       s->status == MA_DIFF_DIFFERS;
        jp[i] = (ma_diff_junit_pair){s->name, ma_variant_name(s->variant),
                                     s->status == MA_DIFF_PENDING ? NULL : ma_diff_status_name(s->status),
                                     s->path_a, s->path_b,
                                     s->status == MA_DIFF_UNUSABLE ? s->message : NULL,
                                     compared ? &s->r : NULL,
                                     s->status == MA_DIFF_DIFFERS && s->cause == MA_DIFF_CAUSE_PROPAGATED ? s->because
                                                                                                        : NULL};
    }
    int rc = ma_diff_junit_write(path, r->path_a, r->path_b, jp, r->n,
                                 r->fatal ? r->failure.msg : NULL, err);
    free(jp);
    return rc;
}

