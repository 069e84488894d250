/*
 * The renderers of `millaudit probe` (include/millaudit/inspect.h): the text and the JSON document
 * of docs/json/probe.schema.json.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/counts.h"
#include "common/json_text.h"
#include "reports/store/report.h"
#include "millaudit.h"
#include "verifier/run/probe.h"

#define PROBE_SCHEMA_VERSION 2 /* v2: no_turn, rules, agrees */

static json_t *value_json(const ma_probe_value *pv)
{
    json_t *o = json_object();
    json_object_set_new(o, "known", json_boolean(pv->known));
    json_object_set_new(o, "outcome", pv->known ? json_string(ma_outcome_name(pv->value.outcome))
                                                : json_null());
    if (pv->known && pv->value.outcome != MA_OUTCOME_DRAW)
        json_object_set_new(o, "depth", json_integer(pv->value.depth));
    if (pv->known && pv->has_draw_class)
        json_object_set_new(o, "draw_class", json_integer(pv->draw_class));
    if (pv->has_keys) {
        json_object_set_new(o, "key1", json_integer(pv->key1));
        json_object_set_new(o, "key2", json_integer(pv->key2));
    }
    json_object_set_new(o, "text", ma_json_store_text(pv->text));
    if (!pv->known)
        json_object_set_new(o, "why", ma_json_store_text(pv->why));
    return o;
}

static void print_json(FILE *out, const ma_probe_result *r, int exit_code)
{
    char board[96], sec[16];
    ma_board_format(r->board, board, sizeof board);
    ma_sector_format(r->sector, sec, sizeof sec);
    json_t *doc = json_object();
    json_object_set_new(doc, "schema_version", json_integer(PROBE_SCHEMA_VERSION));
    json_object_set_new(doc, "command", json_string("probe"));
    json_object_set_new(doc, "format", json_string(ma_format_name(r->format)));
    json_object_set_new(doc, "variant", json_string(ma_variant_name(r->variant)));
    json_object_set_new(doc, "sector", json_string(sec));
    json_object_set_new(doc, "board", json_string(board));
    json_object_set_new(doc, "entry", json_integer((json_int_t)r->entry));
    json_object_set_new(doc, "offset", json_integer((json_int_t)r->offset));
    json_t *stored = value_json(&r->value);
    json_object_set_new(stored, "text", ma_json_store_text(r->stored_text));
    json_object_set_new(doc, "stored", stored);
    json_t *turns = json_array();
    for (int i = 0; i < r->n_rows; i++) {
        json_t *t = json_object();
        json_object_set_new(t, "turn", json_string(r->rows[i].move));
        json_object_set_new(t, "value", value_json(&r->rows[i].v));
        json_array_append_new(turns, t);
    }
    json_object_set_new(doc, "turns", turns);
    json_object_set_new(doc, "no_turn", r->no_turn[0] ? json_string(r->no_turn) : json_null());
    json_object_set_new(doc, "rules", value_json(&r->rules));
    json_object_set_new(doc, "agrees", r->agrees < 0 ? json_null() : json_boolean(r->agrees));
    json_t *errs = json_array();
    for (int i = 0; i < r->n_unusable; i++)
        json_array_append_new(errs, ma_json_store_text(r->unusable[i]));
    json_object_set_new(doc, "errors", errs);
    json_object_set_new(doc, "exit", json_integer(exit_code));
    json_dumpf(doc, out, JSON_COMPACT);
    fputc('\n', out);
    json_decref(doc);
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

void ma_probe_render(FILE *out, FILE *diag, const ma_probe_report *rep, int json)
{
    const ma_probe_result *r = &rep->r;
    for (int i = 0; i < r->n_unusable; i++) {
        char words[1100];
        fprintf(diag, "millaudit probe: %s\n", ma_render_option_words(r->unusable[i], words, sizeof words));
    }
    if (json)
        print_json(out, r, ma_result_exit_code(rep->result));
    else
        print_text(out, r, rep->root);
}

int ma_probe_render_json_buffer(char **out, size_t *len, const ma_probe_report *rep, ma_error *err)
{
    size_t n = 0;
    *out = NULL;
    FILE *f = open_memstream(out, &n);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    print_json(f, &rep->r, ma_result_exit_code(rep->result));
    if (fclose(f) || !*out) {
        free(*out);
        *out = NULL;
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    if (len)
        *len = n;
    return MA_OK;
}
