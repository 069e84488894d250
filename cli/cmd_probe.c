/*
 * millaudit probe DIR POSITION [--variant V] [--json]
 *
 * POSITION = BOARD [wf=N] [bf=N], as one argument or several:
 *   BOARD    mover stones / opponent stones in the notation of docs/format.md §6, e.g.
 *            "a1,d1/c3,e4" ("-" for none); points in any order; any symmetric image of a position
 *            gives the same answer
 *   wf=N     stones the side to move still has in hand (default 0)
 *   bf=N     stones the opponent still has in hand (default 0)
 * Prints the sector, the entry index, the stored value (Malom: outcome, depth and for .sec2 the
 * draw class A = key1 + v(S); open format: outcome and depth) and every legal turn ("d1", "d1-d2",
 * "a4xg7") with the value of the resulting position seen by the mover, best first (Malom: the §5.8
 * order of malom-format.md; open format: win < draw < loss order of verification-theory.md).
 * DIR is a Malom directory (*.sec2 / *.sec) or an open-format one (*.mdb), detected by its files.
 * With --stdin (no POSITION): one POSITION per input line, and one output line each,
 * "<board> <outcome> <depth>" as `millaudit dump` prints them (depth '-' for a draw), for comparing
 * databases position by position.
 * Exit: 0 printed; 2 usage; 3 the sector file (or a successor's) is absent or unusable.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/cli_util.h"
#include "common/ma_error.h"
#include "formats/malom_file.h"
#include "formats/open_file.h"
#include "indexer/malom_index.h"
#include "indexer/open_index.h"
#include "indexer/position.h"
#include "verifier/check.h"
#include "verifier/malom_check.h"
#include "verifier/probe.h"
#include "verifier/rules.h"

#define MAX_TURNS 2048

static void usage(FILE *o)
{
    fprintf(o, "usage: millaudit probe DIR POSITION [--variant std|lask|mora] [--json]\n"
               "  POSITION  BOARD [wf=N] [bf=N]; BOARD = mover/opponent points, e.g.\n"
               "            \"a1,d1/c3,e4 wf=7 bf=7\" (the side to move first; '-' for none)\n"
               "Prints the stored value of the position and every legal turn with its value,\n"
               "best first. DIR may hold Malom files (*.sec2, *.sec) or open-format *.mdb.\n");
}

typedef struct row {
    ma_probe_turn t;
    char text[32];
    char value[64];
    ma_malom_value mv; /* Malom: turn value in the parent frame */
    int32_t score;     /* open: ma_check_value_score of the negated successor */
    int known;
} row;

typedef struct db {
    const char *dir;
    ma_variant variant;
    int malom;
    ma_malom_format mformat;
    ma_malom_index *mix;
    ma_open_index *oix;
} db;

static int detect_variant(const char *dir, int malom, ma_malom_format *fmt, ma_variant *v, int *nvar)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int seen[4] = {0}, fmts[3] = {0};
    struct dirent *de;
    while ((de = readdir(d))) {
        ma_variant vv;
        ma_sector s;
        ma_malom_format f;
        ma_error e;
        if (malom) {
            if (ma_malom_file_name_parse(de->d_name, &vv, &s, &f, &e) == MA_OK) {
                seen[vv] = 1;
                fmts[f]++;
            }
        } else if (ma_open_file_name_parse(de->d_name, &vv, &s) == 0) {
            seen[vv] = 1;
        }
    }
    closedir(d);
    *nvar = 0;
    for (int i = 1; i <= 3; i++)
        if (seen[i]) {
            *v = (ma_variant)i;
            (*nvar)++;
        }
    *fmt = fmts[MA_MALOM_SEC] > fmts[MA_MALOM_SEC2] ? MA_MALOM_SEC : MA_MALOM_SEC2;
    return 0;
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
    for (char *tok = strtok(buf, " \t"); tok; tok = strtok(NULL, " \t")) {
        char *end;
        if (!strncmp(tok, "wf=", 3) || !strncmp(tok, "bf=", 3)) {
            long v = strtol(tok + 3, &end, 10);
            if (*end || end == tok + 3 || v < 0 || v > 24) {
                fprintf(stderr, "millaudit probe: %s: expected wf=N or bf=N, N in 0..24\n", tok);
                return -1;
            }
            *(tok[0] == 'w' ? wf : bf) = (int)v;
            continue;
        }
        if (have_board) {
            fprintf(stderr, "millaudit probe: %s: a second board (try --help)\n", tok);
            return -1;
        }
        ma_error e;
        if (ma_board_parse(tok, b, &e)) {
            fprintf(stderr, "millaudit probe: %s\n", e.msg);
            return -1;
        }
        have_board = 1;
    }
    if (!have_board) {
        fprintf(stderr, "millaudit probe: no board given (try --help)\n");
        return -1;
    }
    return 0;
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            putchar('\\');
        putchar(*s);
    }
    putchar('"');
}

/* Malom lookup of one board of a sector: canonical entry; 0 or an MA_E* code with err. */
static int malom_lookup(const db *d, ma_sector s, ma_board b, ma_malom_file **cache, ma_sector *cached,
                        int *have, ma_malom_entry *e, uint64_t *idx, ma_malom_frame *fr, ma_error *err)
{
    if (!*have || !ma_sector_equal(*cached, s)) {
        if (*have) {
            ma_malom_file_close(*cache);
            *have = 0;
        }
        char sec[16], path[4400];
        ma_sector_format(s, sec, sizeof sec);
        snprintf(path, sizeof path, "%s/%s_%s%s", d->dir, ma_variant_name(d->variant), sec,
                 d->mformat == MA_MALOM_SEC ? ".sec" : ".sec2");
        int rc = ma_malom_index_prepare(d->mix, s.w, err);
        if (!rc && access(path, F_OK) != 0)
            rc = ma_error_set(err, MA_EMISSING, "%s: sector %s: offset 0: file absent", path, sec);
        if (!rc)
            rc = ma_malom_file_open(cache, path, NULL, err);
        if (rc)
            return rc;
        *cached = s;
        *have = 1;
    }
    *idx = ma_malom_index_rank(d->mix, b, NULL);
    ma_malom_file_entry(*cache, *idx, e);
    *fr = ma_malom_file_frame(*cache);
    return MA_OK;
}

static int open_lookup(const db *d, ma_sector s, ma_board b, ma_open_file *f, ma_sector *cached,
                       int *have, ma_value *v, uint64_t *idx, ma_error *err)
{
    if (!*have || !ma_sector_equal(*cached, s)) {
        if (*have) {
            ma_open_file_close(f);
            *have = 0;
        }
        char name[64], path[4400], sec[16];
        ma_open_file_name(d->variant, s, name, sizeof name);
        ma_sector_format(s, sec, sizeof sec);
        snprintf(path, sizeof path, "%s/%s", d->dir, name);
        int rc = ma_open_index_prepare(d->oix, s.w, err);
        if (!rc && access(path, F_OK) != 0)
            rc = ma_error_set(err, MA_EMISSING, "%s: sector %s: offset 0: file absent", path, sec);
        if (!rc)
            rc = ma_open_file_map(f, path, d->oix, 1, err);
        if (rc)
            return rc;
        *cached = s;
        *have = 1;
    }
    *idx = ma_open_index_rank(d->oix, b, NULL);
    uint16_t w = ma_open_file_word(f, *idx);
    if (ma_open_value_decode(w, v) || v->outcome == MA_OUTCOME_NONE) {
        char sec[16];
        ma_sector_format(s, sec, sizeof sec);
        return ma_error_set(err, MA_EFORMAT, "%s: sector %s: offset %llu: bad entry 0x%04x", f->path,
                            sec, (unsigned long long)ma_open_file_offset(*idx), w);
    }
    return MA_OK;
}

/* --stdin: stored values of many positions, one line each. */
static int probe_batch(db *d, int have_variant)
{
    ma_variant found = MA_VARIANT_STD;
    int nvar = 0;
    d->malom = ma_cli_malom_database(d->dir);
    if (detect_variant(d->dir, d->malom, &d->mformat, &found, &nvar)) {
        fprintf(stderr, "millaudit probe: %s: sector ?: offset 0: cannot open directory\n", d->dir);
        return MA_EXIT_BAD_INPUT;
    }
    if (!have_variant)
        d->variant = found;
    ma_error err;
    ma_error_clear(&err);
    if (d->malom ? ma_malom_index_create(&d->mix, &err) : ma_open_index_create(&d->oix, &err)) {
        fprintf(stderr, "millaudit probe: %s\n", err.msg);
        return MA_EXIT_INTERNAL;
    }
    /* One open file per sector seen, kept for the whole run. */
    enum { MAXF = 64 };
    ma_malom_file *mf[MAXF];
    ma_open_file *of[MAXF];
    ma_sector fsec[MAXF];
    int have[MAXF], nf = 0, status = MA_EXIT_OK;
    char line[1024];
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
        ma_sector s = {(uint8_t)__builtin_popcount(pos.mover), (uint8_t)__builtin_popcount(pos.opp),
                       (uint8_t)wf, (uint8_t)bf};
        int k = 0;
        while (k < nf && !ma_sector_equal(fsec[k], s))
            k++;
        if (k == nf) {
            if (nf == MAXF) {
                fprintf(stderr, "millaudit probe: more than %d sectors in one batch\n", MAXF);
                status = MA_EXIT_USAGE;
                break;
            }
            have[k] = 0;
            fsec[k] = s;
            mf[k] = NULL;
            of[k] = calloc(1, sizeof *of[k]);
            nf++;
        }
        char board[96], val[64];
        ma_board_format(pos, board, sizeof board);
        uint64_t idx;
        int rc;
        ma_sector cached = s;
        if (d->malom) {
            ma_malom_entry e;
            ma_malom_frame fr;
            ma_malom_result res;
            rc = malom_lookup(d, s, pos, &mf[k], &cached, &have[k], &e, &idx, &fr, &err);
            if (!rc && (e.kind == MA_MALOM_SYM || ma_malom_interpret(&fr, &e, &res)))
                snprintf(val, sizeof val, "bad key1=%d,key2=%d", (int)e.key1, (int)e.key2);
            else if (!rc && res.outcome == MA_MALOM_DRAW)
                snprintf(val, sizeof val, "draw -");
            else if (!rc)
                snprintf(val, sizeof val, "%s %d", res.outcome == MA_MALOM_WIN ? "win" : "loss",
                         (int)res.depth);
        } else {
            ma_value v;
            rc = of[k] ? open_lookup(d, s, pos, of[k], &cached, &have[k], &v, &idx, &err) : MA_ENOMEM;
            if (!rc && v.outcome == MA_OUTCOME_DRAW)
                snprintf(val, sizeof val, "draw -");
            else if (!rc)
                snprintf(val, sizeof val, "%s %u", v.outcome == MA_OUTCOME_WIN ? "win" : "loss",
                         (unsigned)v.depth);
        }
        if (rc) {
            fprintf(stderr, "millaudit probe: %s\n", err.msg);
            status = ma_exit_code_for(rc);
            break;
        }
        printf("%s %s\n", board, val);
    }
    for (int k = 0; k < nf; k++) {
        if (have[k] && d->malom)
            ma_malom_file_close(mf[k]);
        if (have[k] && !d->malom)
            ma_open_file_close(of[k]);
        free(of[k]);
    }
    if (d->mix)
        ma_malom_index_free(d->mix);
    if (d->oix)
        ma_open_index_free(d->oix);
    if (fflush(stdout))
        status = MA_EXIT_IO;
    return status;
}

static int cmp_malom_rows(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->known != y->known)
        return y->known - x->known;
    int c = ma_malom_value_cmp(y->mv, x->mv);
    return c ? c : strcmp(x->text, y->text);
}

static int cmp_open_rows(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->known != y->known)
        return y->known - x->known;
    if (x->score != y->score)
        return y->score > x->score ? 1 : -1;
    return strcmp(x->text, y->text);
}

int ma_cmd_probe(int argc, char **argv)
{
    static const struct option opts[] = {{"variant", required_argument, NULL, 'v'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"stdin", no_argument, NULL, 'S'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int json = 0, c, have_variant = 0, batch = 0;
    db d;
    memset(&d, 0, sizeof d);
    ma_error err;
    ma_error_clear(&err);
    /* Options by hand, not getopt: a board such as "-/b4" (no mover stone) starts with '-'. */
    char **pos_args = calloc((size_t)argc + 1, sizeof *pos_args);
    int npos = 0;
    if (!pos_args)
        return MA_EXIT_INTERNAL;
    (void)opts;
    (void)c;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (!strcmp(a, "--variant") && i + 1 < argc)
            val = argv[++i];
        else if (!strncmp(a, "--variant=", 10))
            val = a + 10;
        if (val) {
            if (ma_variant_parse(val, &d.variant, &err)) {
                fprintf(stderr, "millaudit probe: %s\n", err.msg);
                free(pos_args);
                return MA_EXIT_USAGE;
            }
            have_variant = 1;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--stdin")) {
            batch = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            free(pos_args);
            return MA_EXIT_OK;
        } else if (a[0] == '-' && (a[1] == '-' || a[1] == 0 || a[1] != '/')) {
            fprintf(stderr, "millaudit probe: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            free(pos_args);
            return MA_EXIT_USAGE;
        } else {
            pos_args[npos++] = argv[i];
        }
    }
    if (npos < 2 && !(batch && npos == 1)) {
        usage(stderr);
        free(pos_args);
        return MA_EXIT_USAGE;
    }
    argv = pos_args;
    argc = npos;
    optind = 0;
    d.dir = argv[optind];
    if (batch) {
        free(pos_args);
        return probe_batch(&d, have_variant);
    }
    ma_board pos;
    int wf, bf;
    int bad_position = parse_position(argv + optind + 1, argc - optind - 1, &pos, &wf, &bf);
    free(pos_args);
    if (bad_position)
        return MA_EXIT_USAGE;
    d.malom = ma_cli_malom_database(d.dir);
    ma_variant found = MA_VARIANT_STD;
    int nvar = 0;
    if (detect_variant(d.dir, d.malom, &d.mformat, &found, &nvar)) {
        fprintf(stderr, "millaudit probe: %s: sector ?: offset 0: cannot open directory\n", d.dir);
        return MA_EXIT_BAD_INPUT;
    }
    if (!have_variant) {
        if (nvar > 1) {
            fprintf(stderr, "millaudit probe: %s holds several variants: give --variant\n", d.dir);
            return MA_EXIT_USAGE;
        }
        d.variant = found;
    }
    ma_sector s = {(uint8_t)__builtin_popcount(pos.mover), (uint8_t)__builtin_popcount(pos.opp),
                   (uint8_t)wf, (uint8_t)bf};
    char sec[16];
    ma_sector_format(s, sec, sizeof sec);
    if (!ma_sector_valid(d.variant, s)) {
        fprintf(stderr, "millaudit probe: sector %s is not a sector of %s (stones on board + in hand)\n",
                sec, ma_variant_name(d.variant));
        return MA_EXIT_USAGE;
    }
    ma_vrules rules;
    if (ma_vrules_init(&rules, d.variant, s, &err)) {
        fprintf(stderr, "millaudit probe: %s\n", err.msg);
        return MA_EXIT_USAGE;
    }
    int status = MA_EXIT_OK;
    row *rows = calloc(MAX_TURNS, sizeof *rows);
    ma_probe_turn *turns = calloc(MAX_TURNS, sizeof *turns);
    int n = 0;
    if (!rows || !turns || ma_probe_turns(&rules, pos, turns, MAX_TURNS, &n, &err)) {
        fprintf(stderr, "millaudit probe: %s\n", err.msg[0] ? err.msg : "out of memory");
        free(rows);
        free(turns);
        return MA_EXIT_INTERNAL;
    }
    char stored[96] = "?", board_txt[96];
    uint64_t index = 0;
    ma_board_format(pos, board_txt, sizeof board_txt);
    ma_malom_file *mf = NULL, *mchild = NULL;
    ma_open_file of, ochild;
    int have_f = 0, have_c = 0;
    ma_sector fs = s, cs = s;
    if (d.malom) {
        if (ma_malom_index_create(&d.mix, &err)) {
            status = MA_EXIT_INTERNAL;
            goto out;
        }
        ma_malom_entry e;
        ma_malom_frame fr;
        int rc = malom_lookup(&d, s, pos, &mf, &fs, &have_f, &e, &index, &fr, &err);
        if (rc) {
            fprintf(stderr, "millaudit probe: %s\n", err.msg);
            status = ma_exit_code_for(rc);
            goto out;
        }
        ma_malom_result res;
        if (e.kind == MA_MALOM_SYM || ma_malom_interpret(&fr, &e, &res)) {
            snprintf(stored, sizeof stored, "not a value (key1 %d, key2 %d)", (int)e.key1, (int)e.key2);
        } else {
            ma_malom_value v = {e.key1, e.key2};
            ma_mcheck_format_value(&fr, d.mformat == MA_MALOM_SEC, v, stored, sizeof stored);
            size_t l = strlen(stored);
            snprintf(stored + l, sizeof stored - l, " (key1 %d, key2 %d)", (int)e.key1, (int)e.key2);
        }
        for (int i = 0; i < n; i++) {
            row *r = &rows[i];
            r->t = turns[i];
            ma_probe_turn_format(&turns[i], r->text, sizeof r->text);
            if (turns[i].immediate_win) {
                r->mv = ma_malom_win_in_one(&fr);
                r->known = 1;
            } else {
                ma_malom_entry ce;
                ma_malom_frame cfr;
                uint64_t cidx;
                ma_sector target = rules.succ[turns[i].kind];
                ma_error e2;
                if (ma_sector_equal(target, s))
                    rc = malom_lookup(&d, s, turns[i].succ, &mf, &fs, &have_f, &ce, &cidx, &cfr, &e2);
                else
                    rc = malom_lookup(&d, target, turns[i].succ, &mchild, &cs, &have_c, &ce, &cidx,
                                      &cfr, &e2);
                if (rc || ce.kind == MA_MALOM_SYM) {
                    snprintf(r->value, sizeof r->value, "unknown (%s)",
                             rc ? "successor sector absent" : "successor entry is a marker");
                    continue;
                }
                ma_malom_value cv = {ce.key1, ce.key2};
                r->mv = ma_malom_turn_value(cv, cfr.v, fr.v);
                r->known = 1;
            }
            ma_mcheck_format_value(&fr, d.mformat == MA_MALOM_SEC, r->mv, r->value, sizeof r->value);
        }
        qsort(rows, (size_t)n, sizeof *rows, cmp_malom_rows);
    } else {
        if (ma_open_index_create(&d.oix, &err)) {
            status = MA_EXIT_INTERNAL;
            goto out;
        }
        ma_value v;
        int rc = open_lookup(&d, s, pos, &of, &fs, &have_f, &v, &index, &err);
        if (rc) {
            fprintf(stderr, "millaudit probe: %s\n", err.msg);
            status = ma_exit_code_for(rc);
            goto out;
        }
        ma_value_format(v, stored, sizeof stored);
        for (int i = 0; i < n; i++) {
            row *r = &rows[i];
            r->t = turns[i];
            ma_probe_turn_format(&turns[i], r->text, sizeof r->text);
            ma_value mv;
            if (turns[i].immediate_win) {
                mv.outcome = MA_OUTCOME_WIN;
                mv.depth = 1;
            } else {
                ma_value cv;
                uint64_t cidx;
                ma_sector target = rules.succ[turns[i].kind];
                ma_error e2;
                if (ma_sector_equal(target, s))
                    rc = open_lookup(&d, s, turns[i].succ, &of, &fs, &have_f, &cv, &cidx, &e2);
                else
                    rc = open_lookup(&d, target, turns[i].succ, &ochild, &cs, &have_c, &cv, &cidx, &e2);
                if (rc) {
                    snprintf(r->value, sizeof r->value, "unknown (successor sector absent)");
                    continue;
                }
                mv = ma_check_value_negate(cv);
            }
            r->score = ma_check_value_score(mv);
            r->known = 1;
            ma_value_format(mv, r->value, sizeof r->value);
        }
        qsort(rows, (size_t)n, sizeof *rows, cmp_open_rows);
    }
    {
        const char *fmt = !d.malom ? "open" : d.mformat == MA_MALOM_SEC ? "malom-sec" : "malom-sec2";
        if (json) {
            printf("{\"format\":\"%s\",\"variant\":\"%s\",\"sector\":\"%s\",\"board\":", fmt,
                   ma_variant_name(d.variant), sec);
            json_str(board_txt);
            printf(",\"entry\":%llu,\"stored\":", (unsigned long long)index);
            json_str(stored);
            printf(",\"turns\":[");
            for (int i = 0; i < n; i++) {
                printf("%s{\"turn\":", i ? "," : "");
                json_str(rows[i].text);
                printf(",\"value\":");
                json_str(rows[i].value);
                printf(",\"known\":%s}", rows[i].known ? "true" : "false");
            }
            printf("]}\n");
        } else {
            printf("position %s (%s), sector %s_%s, %s\n", board_txt,
                   "mover / opponent", ma_variant_name(d.variant), sec, fmt);
            printf("entry %llu: %s\n", (unsigned long long)index, stored);
            printf("%d turn%s, best first (value for the side to move):\n", n, n == 1 ? "" : "s");
            for (int i = 0; i < n; i++)
                printf("  %-12s %s\n", rows[i].text, rows[i].value);
        }
    }
out:
    if (have_f) {
        if (d.malom)
            ma_malom_file_close(mf);
        else
            ma_open_file_close(&of);
    }
    if (have_c) {
        if (d.malom)
            ma_malom_file_close(mchild);
        else
            ma_open_file_close(&ochild);
    }
    if (d.mix)
        ma_malom_index_free(d.mix);
    if (d.oix)
        ma_open_index_free(d.oix);
    free(rows);
    free(turns);
    return status;
}
