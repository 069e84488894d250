/*
 * The renderers of `millaudit probe` (include/millaudit/inspect.h): the text and the JSON document
 * of docs/json/probe.schema.json.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "common/json_text.h"
#include "reports/store/report.h"
#include "millaudit.h"
#include "verifier/run/probe.h"

#define PROBE_SCHEMA_VERSION 2 /* v2: no_turn, rules, agrees */

static json_t *value_json(const ma_probe_value *pv, int *bad)
{
    json_t *o = json_object();
    ma_json_put(o, "known", json_boolean(pv->known), bad);
    ma_json_put(o, "outcome", pv->known ? json_string(ma_outcome_name(pv->value.outcome))
                                                : json_null(), bad);
    if (pv->known && pv->value.outcome != MA_OUTCOME_DRAW)
        ma_json_put(o, "depth", json_integer(pv->value.depth), bad);
    if (pv->known && pv->has_draw_class)
        ma_json_put(o, "draw_class", json_integer(pv->draw_class), bad);
    if (pv->has_keys) {
        ma_json_put(o, "key1", json_integer(pv->key1), bad);
        ma_json_put(o, "key2", json_integer(pv->key2), bad);
    }
    ma_json_put(o, "text", ma_json_store_text(pv->text), bad);
    if (!pv->known)
        ma_json_put(o, "why", ma_json_store_text(pv->why), bad);
    return o;
}

/* The document as text, NULL when a part of it could not be built (out of memory). */
static char *json_text(const ma_probe_result *r, int exit_code)
{
    int ok = 0, *bad = &ok;
    char board[96], sec[16];
    ma_board_format(r->board, board, sizeof board);
    ma_sector_format(r->sector, sec, sizeof sec);
    json_t *doc = json_object();
    ma_json_put(doc, "schema_version", json_integer(PROBE_SCHEMA_VERSION), bad);
    ma_json_put(doc, "command", json_string("probe"), bad);
    ma_json_put(doc, "format", json_string(ma_format_name(r->format)), bad);
    ma_json_put(doc, "variant", json_string(ma_variant_name(r->variant)), bad);
    ma_json_put(doc, "sector", json_string(sec), bad);
    ma_json_put(doc, "board", json_string(board), bad);
    ma_json_put(doc, "entry", json_integer((json_int_t)r->entry), bad);
    ma_json_put(doc, "offset", json_integer((json_int_t)r->offset), bad);
    json_t *stored = value_json(&r->value, bad);
    ma_json_put(stored, "text", ma_json_store_text(r->stored_text), bad);
    ma_json_put(doc, "stored", stored, bad);
    json_t *turns = json_array();
    for (int i = 0; i < r->n_rows; i++) {
        json_t *t = json_object();
        ma_json_put(t, "turn", json_string(r->rows[i].move), bad);
        ma_json_put(t, "value", value_json(&r->rows[i].v, bad), bad);
        ma_json_push(turns, t, bad);
    }
    ma_json_put(doc, "turns", turns, bad);
    ma_json_put(doc, "no_turn", r->no_turn[0] ? json_string(r->no_turn) : json_null(), bad);
    ma_json_put(doc, "rules", value_json(&r->rules, bad), bad);
    ma_json_put(doc, "agrees", r->agrees < 0 ? json_null() : json_boolean(r->agrees), bad);
    json_t *errs = json_array();
    for (int i = 0; i < r->n_unusable; i++)
        ma_json_push(errs, ma_json_store_text(r->unusable[i]), bad);
    ma_json_put(doc, "errors", errs, bad);
    ma_json_put(doc, "exit", json_integer(exit_code), bad);
    char *text = *bad ? NULL : ma_json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return text;
}

static void print_text(FILE *out, const ma_probe_result *r, const char *root)
{
    char board[96];
    ma_board_format(r->board, board, sizeof board);
    fprintf(out, "position %s (mover / opponent), sector %s, %s\n", board, r->name,
           ma_format_name(r->format));
    fprintf(out, "entry %llu: %s\n", (unsigned long long)r->entry, r->stored_text);
    if (r->n_rows) {
        fprintf(out, "%s, best first (value for the side to move):\n", MA_COUNT((uint64_t)r->n_rows, "turn", "turns"));
        for (int i = 0; i < r->n_rows; i++) {
            const ma_probe_value *v = &r->rows[i].v;
            if (v->known)
                fprintf(out, "  %-12s %s\n", r->rows[i].move, v->text);
            else
                fprintf(out, "  %-12s unknown (%s)\n", r->rows[i].move, v->why);
        }
    } else {
        fprintf(out, "no turn: %s (%s)\n", r->no_turn, r->rules.text);
    }
    /* the checker's local rule at this one position: the stored value must be the best turn's */
    char sector[48], dir[1200];
    snprintf(sector, sizeof sector, "%s", r->name);
    ma_report_shell_word(dir, sizeof dir, root[0] ? root : "DIR");
    if (r->agrees == 1)
        fprintf(out, "stored %s: %s\n", r->rules.text,
                r->n_rows ? "the value of the best turn, as the rules require" : "what the rules give");
    else if (r->agrees == 0)
        fprintf(out, "!! stored %s, but %s %s: the stored value is wrong here (a discrepancy; millaudit verify "
                     "%s --sector %s checks the whole sector)\n",
                r->value.text, r->n_rows ? "the best turn gives" : "the rules give", r->rules.text, dir, sector);
    else if (!r->rules.known)
        fprintf(out, "stored value not checked: %s\n", r->rules.why);
}

int ma_probe_render(FILE *out, FILE *diag, const ma_probe_report *rep, int json)
{
    const ma_probe_result *r = &rep->r;
    char *doc = json ? json_text(r, ma_result_exit_code(rep->result)) : NULL;
    if (json && !doc)
        return MA_ENOMEM; /* nothing written: never a document with a member missing */
    for (int i = 0; i < r->n_unusable; i++) {
        char words[1100];
        fprintf(diag, "millaudit probe: %s\n", ma_render_option_words(r->unusable[i], words, sizeof words));
    }
    if (doc)
        fprintf(out, "%s\n", doc);
    else
        print_text(out, r, rep->root);
    free(doc);
    return MA_OK;
}

int ma_probe_render_json_buffer(char **out, size_t *len, const ma_probe_report *rep, ma_error *err)
{
    char *doc = json_text(&rep->r, ma_result_exit_code(rep->result));
    size_t n = doc ? strlen(doc) : 0;
    *out = doc ? realloc(doc, n + 2) : NULL;
    if (!*out) {
        free(doc);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    memcpy(*out + n, "\n", 2); /* as printed: the document and its newline */
    if (len)
        *len = n + 1;
    return MA_OK;
}
