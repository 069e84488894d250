/*
 * millaudit probe DIR POSITION [--variant V] [--json]   /   probe DIR --stdin [--variant V]
 *
 * Options and rendering only: the position's sector, entry, stored value and the value of every
 * turn come from run/probe.h, which reads DIR through formats/source.h (open or Malom).
 * POSITION = BOARD [wf=N] [bf=N], as one argument or several (docs/malom-verification.md).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/ma_error.h"
#include "common/options.h"
#include "run/dump.h"
#include "run/probe.h"

#define PROBE_SCHEMA_VERSION 1

static void usage(FILE *o)
{
    fprintf(o, "usage: millaudit probe DIR POSITION [--variant std|lask|mora] [--json] [--no-digest-check]\n"
               "       millaudit probe DIR --stdin [--variant std|lask|mora]\n"
               "  POSITION  BOARD [wf=N] [bf=N]; BOARD = mover/opponent points, e.g.\n"
               "            \"a1,d1/c3,e4 wf=7 bf=7\" (the side to move first; '-' for none)\n"
               "Prints the stored value of the position and every legal turn with its value,\n"
               "best first. DIR may hold Malom files (*.sec2, *.sec) or open-format *.mdb.\n"
               "--stdin: one POSITION per line, one '<board> <outcome> <depth>' line each.\n"
               "--no-digest-check: read open-format files whose body fails the SHA-256 in their\n"
               "header (refused by default: exit 3 naming offset 80).\n"
               "exit: 0 printed, 1 the position's entry holds no value, 2 usage, 3 the sector\n"
               "file absent or unusable (or a successor's file unusable)\n");
}

static int parse_position(char **args, int n, ma_board *b, int *wf, int *bf)
{
    char buf[1024] = "";
    for (int i = 0; i < n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof buf - l, "%s%s", i ? " " : "", args[i]);
    }
    *wf = *bf = 0;
    int have_board = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *end;
        if (!strncmp(tok, "wf=", 3) || !strncmp(tok, "bf=", 3)) {
            long v = strtol(tok + 3, &end, 10);
            if (*end || end == tok + 3 || v < 0 || v > 24) {
                ma_opt_error("probe", "%s: expected wf=N or bf=N, N in 0..24", tok);
                return -1;
            }
            *(tok[0] == 'w' ? wf : bf) = (int)v;
            continue;
        }
        if (have_board) {
            ma_opt_error("probe", "%s: a second board", tok);
            return -1;
        }
        ma_error e;
        if (ma_board_parse(tok, b, &e)) {
            ma_opt_error("probe", "%s", e.msg);
            return -1;
        }
        have_board = 1;
    }
    if (!have_board) {
        ma_opt_error("probe", "no board given");
        return -1;
    }
    return 0;
}

/* The exit status of a failed probe: a position the variant does not have is the user's (2). */
static int fail(int rc, const ma_error *err)
{
    fprintf(stderr, "millaudit probe: %s\n", err->msg);
    return rc == MA_EINVAL ? MA_EXIT_USAGE : ma_exit_code_for(rc);
}

/* --stdin: the stored values of many positions, one dump line each. */
static int probe_batch(ma_database *db, ma_variant v)
{
    char line[1024];
    int status = MA_EXIT_OK;
    while (status == MA_EXIT_OK && fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        char *arg = line;
        ma_board pos;
        int wf, bf;
        if (parse_position(&arg, 1, &pos, &wf, &bf)) {
            status = MA_EXIT_USAGE;
            break;
        }
        const ma_source *src;
        uint64_t entry;
        ma_stored st;
        ma_error err;
        int rc = ma_probe_lookup(db, v, pos, wf, bf, &src, &entry, &st, &err);
        if (rc) {
            status = fail(rc, &err);
            break;
        }
        char board[96], val[96];
        ma_board_format(pos, board, sizeof board);
        ma_dump_value(src, &st, val, sizeof val);
        printf("%s %s\n", board, val);
    }
    if (fflush(stdout))
        status = MA_EXIT_IO;
    return status;
}

/* ---- rendering ---- */

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
    json_object_set_new(o, "text", ma_cli_json_text(pv->text));
    if (!pv->known)
        json_object_set_new(o, "why", ma_cli_json_text(pv->why));
    return o;
}

static void print_json(const ma_probe_result *r, int exit_code)
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
    json_object_set_new(stored, "text", ma_cli_json_text(r->stored_text));
    json_object_set_new(doc, "stored", stored);
    json_t *turns = json_array();
    for (int i = 0; i < r->n_rows; i++) {
        json_t *t = json_object();
        json_object_set_new(t, "turn", json_string(r->rows[i].move));
        json_object_set_new(t, "value", value_json(&r->rows[i].v));
        json_array_append_new(turns, t);
    }
    json_object_set_new(doc, "turns", turns);
    json_t *errs = json_array();
    for (int i = 0; i < r->n_unusable; i++)
        json_array_append_new(errs, ma_cli_json_text(r->unusable[i]));
    json_object_set_new(doc, "errors", errs);
    json_object_set_new(doc, "exit", json_integer(exit_code));
    json_dumpf(doc, stdout, JSON_COMPACT);
    fputc('\n', stdout);
    json_decref(doc);
}

static void print_text(const ma_probe_result *r)
{
    char board[96];
    ma_board_format(r->board, board, sizeof board);
    printf("position %s (mover / opponent), sector %s, %s\n", board, r->name,
           ma_format_name(r->format));
    printf("entry %llu: %s\n", (unsigned long long)r->entry, r->stored_text);
    printf("%d turn%s, best first (value for the side to move):\n", r->n_rows,
           r->n_rows == 1 ? "" : "s");
    for (int i = 0; i < r->n_rows; i++) {
        const ma_probe_value *v = &r->rows[i].v;
        if (v->known)
            printf("  %-12s %s\n", r->rows[i].move, v->text);
        else
            printf("  %-12s unknown (%s)\n", r->rows[i].move, v->why);
    }
}

int ma_cmd_probe(int argc, char **argv)
{
    int json = 0, have_variant = 0, batch = 0;
    ma_variant variant = MA_VARIANT_STD;
    ma_error err;
    ma_database_options dbo = {0};
    /* Options by hand, not getopt: a board such as "-/b4" (no mover stone) starts with '-'. */
    char **pos_args = calloc((size_t)argc + 1, sizeof *pos_args);
    int npos = 0;
    if (!pos_args)
        return MA_EXIT_INTERNAL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (!strcmp(a, "--variant") && i + 1 == argc) {
            free(pos_args);
            return ma_opt_error("probe", "option '--variant' needs a value");
        }
        if (!strcmp(a, "--variant") && i + 1 < argc)
            val = argv[++i];
        else if (!strncmp(a, "--variant=", 10))
            val = a + 10;
        if (val) {
            if (ma_variant_parse(val, &variant, &err)) {
                free(pos_args);
                return ma_opt_error("probe", "%s", err.msg);
            }
            have_variant = 1;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--no-digest-check")) {
            dbo.no_digest_check = 1;
        } else if (!strcmp(a, "--stdin")) {
            batch = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            free(pos_args);
            return MA_EXIT_OK;
        } else if (a[0] == '-' && (a[1] == '-' || a[1] == 0 || a[1] != '/')) {
            static const struct option known[] = {{"variant", required_argument, NULL, 'v'},
                                                  {"json", no_argument, NULL, 'j'},
                                                  {"stdin", no_argument, NULL, 'i'},
                                                  {"help", no_argument, NULL, 'h'},
                                                  {NULL, 0, NULL, 0}};
            free(pos_args);
            return ma_opt_unknown("probe", a, known);
        } else {
            pos_args[npos++] = argv[i];
        }
    }
    ma_board pos;
    int wf = 0, bf = 0;
    if (batch ? npos != 1 : npos < 2) {
        free(pos_args);
        return ma_opt_error("probe", batch ? "--stdin takes one database DIR"
                                           : npos ? "no POSITION given" : "no database DIR and POSITION given");
    }
    if (!batch && parse_position(pos_args + 1, npos - 1, &pos, &wf, &bf)) {
        free(pos_args);
        return MA_EXIT_USAGE;
    }
    ma_database *db;
    int rc = ma_database_open(&db, pos_args[0], &dbo, &err);
    free(pos_args);
    if (rc)
        return fail(rc, &err);
    if (!have_variant) {
        unsigned vars = ma_database_variants(db);
        if (vars & (vars - 1)) {
            fprintf(stderr, "millaudit probe: %s holds several variants: give --variant\n",
                    ma_database_root(db));
            ma_database_close(db);
            return MA_EXIT_USAGE;
        }
        for (int v = MA_VARIANT_STD; v <= MA_VARIANT_MORA; v++)
            if (vars == 1u << v)
                variant = (ma_variant)v;
    }
    int status;
    if (batch) {
        status = probe_batch(db, variant);
    } else {
        ma_probe_result r;
        rc = ma_probe_position(&r, db, variant, pos, wf, bf, &err);
        if (rc) {
            status = fail(rc, &err);
        } else {
            for (int i = 0; i < r.n_unusable; i++)
                fprintf(stderr, "millaudit probe: %s\n", r.unusable[i]);
            /* 1 over 3, as verify: a defect found outweighs a successor that could not be read */
            status = !r.value.known ? MA_EXIT_MISMATCH : r.n_unusable ? MA_EXIT_BAD_INPUT : MA_EXIT_OK;
            if (json)
                print_json(&r, status);
            else
                print_text(&r);
            if (fflush(stdout))
                status = MA_EXIT_IO;
            ma_probe_result_free(&r);
        }
    }
    ma_database_close(db);
    return status;
}
