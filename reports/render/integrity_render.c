/* reports/render/integrity_render: a verify run's damage in its text, JSON and JUnit, the list to
 * fetch again and the command that follows (reports/render/integrity_render.h). */
#include "reports/render/integrity_render.h"

#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "common/fileio.h"
#include "common/json_text.h"
#include "common/output.h"
#include "verifier/run/run.h"

static const char *reference_name(const ma_vrun_integrity *g)
{
    return g->source == MA_INTEGRITY_ATTESTATION ? "attestation" : "manifest";
}

void ma_render_damage_headline(const ma_vrun *r, char *buf, size_t len)
{
    const ma_vrun_integrity *g = ma_vrun_integrity_of(r);
    ma_damage_words w = {0};
    w.published = g->source != MA_INTEGRITY_NONE;
    w.files = g->n_damaged;
    w.input_damaged = g->sectors_input_damaged;
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++) {
        int s = ma_vrun_sector_at(r, i)->status;
        if (s == MA_SECTOR_DAMAGED || s == MA_SECTOR_INPUT_DAMAGED)
            continue;
        w.others++;
        w.others_verified += s == MA_SECTOR_OK;
    }
    ma_damage_headline(buf, len, &w);
}

void ma_render_discrepancy_caveat(const ma_vrun *r, char *buf, size_t len)
{
    const ma_vrun_integrity *g = ma_vrun_integrity_of(r);
    buf[0] = 0;
    if (g->n_damaged) {
        char h[400];
        ma_render_damage_headline(r, h, sizeof h);
        snprintf(buf, len, "; besides, %.380s", h);
    } else if (g->source == MA_INTEGRITY_NONE && g->undigested) {
        /* bytes without a digest of their own: a flipped byte is indistinguishable from a wrong
         * value the producer wrote */
        snprintf(buf, len, "; no manifest: damage in transit and a wrong solver look alike; a wrong value here "
                           "may be either");
    }
}

/* A path as one shell word. */
static void shell_word(char *buf, size_t len, const char *s)
{
    int plain = *s != 0;
    for (const char *p = s; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-=,:+@%", *p) != NULL;
    if (plain) {
        snprintf(buf, len, "%s", s);
        return;
    }
    size_t o = 0;
    if (o + 1 < len)
        buf[o++] = '\'';
    for (const char *p = s; *p && o + 5 < len; p++) {
        if (*p == '\'') {
            memcpy(buf + o, "'\\''", 4);
            o += 4;
        } else {
            buf[o++] = *p;
        }
    }
    if (o + 1 < len)
        buf[o++] = '\'';
    buf[o] = 0;
}

void ma_render_verify_resume_command(const ma_vrun *r, char *buf, size_t len)
{
    const ma_vrun_options *o = ma_vrun_options_of(r);
    char w[2][2200];
    shell_word(w[0], sizeof w[0], o->root);
    size_t n = (size_t)snprintf(buf, len, "millaudit verify %s", w[0]);
    if (n < len && o->integrity == MA_INTEGRITY_MANIFEST && o->manifest_path) {
        shell_word(w[0], sizeof w[0], o->manifest_path);
        n += (size_t)snprintf(buf + n, len - n, " --manifest %s", w[0]);
    } else if (n < len && o->integrity == MA_INTEGRITY_ATTESTATION && o->attestation_path && o->pub_path) {
        shell_word(w[0], sizeof w[0], o->attestation_path);
        shell_word(w[1], sizeof w[1], o->pub_path);
        n += (size_t)snprintf(buf + n, len - n, " --attestation %s --pub %s", w[0], w[1]);
    }
    shell_word(w[0], sizeof w[0], o->audit_path ? o->audit_path : "A.sqlite");
    if (n < len)
        snprintf(buf + n, len - n, " --incremental --audit %s", w[0]);
}

void ma_render_integrity_text(FILE *out, const ma_vrun *r)
{
    const ma_vrun_integrity *g = ma_vrun_integrity_of(r);
    char shown[1100];
    if (g->source == MA_INTEGRITY_NONE && !g->n_damaged)
        return; /* nothing to compare with and nothing found: the verdict says what that means */
    if (g->source == MA_INTEGRITY_NONE) {
        fprintf(out, "integrity: no manifest (%s)", g->why_none);
        if (g->body_checked)
            fprintf(out, ": %s checked against the body digest in %s header",
                    MA_COUNT(g->body_checked, "open file", "open files"), ma_noun(g->body_checked, "its", "their"));
        else
            fprintf(out, ": the files carry no digest of their own; damage cannot be told from a wrong value");
        fputc('\n', out);
    } else {
        ma_escape_name(g->reference, shown, sizeof shown);
        fprintf(out, "integrity: %s%s%s%s: ", shown, g->source == MA_INTEGRITY_ATTESTATION ? " (signed by " : "",
                g->source == MA_INTEGRITY_ATTESTATION ? (g->signer[0] ? g->signer : g->keyid) : "",
                g->source == MA_INTEGRITY_ATTESTATION ? ")" : "");
        if (!g->n_damaged)
            fprintf(out, "all %s as published\n", MA_COUNT(g->intact, "file", "files"));
        else
            fprintf(out, "%s of %s damaged, %s as published\n", MA_NUM(g->n_damaged), MA_COUNT(g->files, "file", "files"),
                    MA_NUM(g->intact));
    }
    for (size_t i = 0; i < g->n_damaged; i++) {
        ma_escape_name(g->damaged[i].path, shown, sizeof shown);
        fprintf(out, "damaged: %s: %s\n", shown, g->damaged[i].detail);
    }
    fflush(out);
}

void ma_render_verify_next_text(FILE *out, const ma_vrun *r)
{
    const ma_vrun_integrity *g = ma_vrun_integrity_of(r);
    if (!g->n_damaged)
        return;
    char shown[1100];
    if (g->refetch) {
        fprintf(out, "fetch again:");
        for (size_t i = 0; i < g->n_damaged; i++)
            if (g->damaged[i].refetch)
                fprintf(out, " %s", ma_escape_name(g->damaged[i].path, shown, sizeof shown));
        fprintf(out, " (%s; --refetch-list FILE writes them one per line)\n", MA_COUNT(g->refetch, "file", "files"));
    }
    if (g->n_damaged > g->refetch) {
        fprintf(out, "remove:");
        for (size_t i = 0; i < g->n_damaged; i++)
            if (!g->damaged[i].refetch)
                fprintf(out, " %s", ma_escape_name(g->damaged[i].path, shown, sizeof shown));
        fprintf(out, " (not part of what was published)\n");
    }
    char cmd[6000];
    ma_render_verify_resume_command(r, cmd, sizeof cmd);
    if (ma_vrun_options_of(r)->audit_path)
        fprintf(out, "then: %s (checks only the files fetched again and the sectors that read them)\n", cmd);
    else
        fprintf(out, "then: %s (this run was not recorded: that run checks everything once and records "
                     "what the runs after it carry over)\n", cmd);
}

static json_t *damaged_json(const ma_damaged_file *d, int *bad)
{
    json_t *o = json_object();
    ma_json_put(o, "path", ma_json_store_text(d->path), bad);
    ma_json_put(o, "kind", json_string(ma_damage_kind_name(d->kind)), bad);
    ma_json_put(o, "sector", d->sector[0] ? json_string(d->sector) : json_null(), bad);
    ma_json_put(o, "refetch", json_boolean(d->refetch), bad);
    ma_json_put(o, "size", d->size >= 0 ? json_integer(d->size) : json_null(), bad);
    ma_json_put(o, "published_size", d->published_size >= 0 ? json_integer(d->published_size) : json_null(), bad);
    ma_json_put(o, "chunk_size", d->chunk_size ? json_integer((json_int_t)d->chunk_size) : json_null(), bad);
    json_t *ranges = json_array();
    for (size_t k = 0; k < d->n_ranges; k++) {
        json_t *x = json_object();
        ma_json_put(x, "first_byte", json_integer((json_int_t)d->first_byte[k]), bad);
        ma_json_put(x, "last_byte", json_integer((json_int_t)d->last_byte[k]), bad);
        ma_json_push(ranges, x, bad);
    }
    ma_json_put(o, "ranges", ranges, bad);
    ma_json_put(o, "more_ranges", json_integer((json_int_t)d->more_ranges), bad);
    ma_json_put(o, "detail", ma_json_store_text(d->detail), bad);
    return o;
}

json_t *ma_render_integrity_json(const ma_vrun *r, int *bad)
{
    const ma_vrun_integrity *g = ma_vrun_integrity_of(r);
    json_t *o = json_object();
    ma_json_put(o, "source", json_string(ma_integrity_source_name(g->source)), bad);
    ma_json_put(o, "reference", g->reference && g->reference[0] ? ma_json_store_text(g->reference) : json_null(), bad);
    ma_json_put(o, "why_none", g->source == MA_INTEGRITY_NONE ? json_string(g->why_none) : json_null(), bad);
    ma_json_put(o, "signer", g->signer[0] ? ma_json_store_text(g->signer) : json_null(), bad);
    ma_json_put(o, "keyid", g->keyid[0] ? json_string(g->keyid) : json_null(), bad);
    ma_json_put(o, "files", json_integer((json_int_t)g->files), bad);
    ma_json_put(o, "intact", json_integer((json_int_t)g->intact), bad);
    ma_json_put(o, "body_checked", json_integer((json_int_t)g->body_checked), bad);
    ma_json_put(o, "sectors_damaged", json_integer((json_int_t)g->sectors_damaged), bad);
    ma_json_put(o, "sectors_input_damaged", json_integer((json_int_t)g->sectors_input_damaged), bad);
    json_t *list = json_array();
    for (size_t i = 0; i < g->n_damaged; i++)
        ma_json_push(list, damaged_json(&g->damaged[i], bad), bad);
    ma_json_put(o, "damaged", list, bad);
    if (ma_vrun_verdict_of(r) == MA_VERDICT_DAMAGED) {
        char h[400];
        ma_render_damage_headline(r, h, sizeof h);
        ma_json_put(o, "headline", json_string(h), bad);
    } else {
        ma_json_put(o, "headline", json_null(), bad);
    }
    char caveat[400];
    ma_render_discrepancy_caveat(r, caveat, sizeof caveat);
    ma_json_put(o, "caveat", caveat[0] && ma_vrun_totals_of(r)->discrepancies
                                         ? json_string(caveat + 2) /* without "; " */
                                         : json_null(), bad);
    return o;
}

json_t *ma_render_next_json(const ma_vrun *r, int *bad)
{
    const ma_vrun_integrity *g = ma_vrun_integrity_of(r);
    json_t *o = json_object(), *fetch = json_array(), *remove = json_array();
    for (size_t i = 0; i < g->n_damaged; i++)
        ma_json_push(g->damaged[i].refetch ? fetch : remove, ma_json_store_text(g->damaged[i].path), bad);
    ma_json_put(o, "refetch", fetch, bad);
    ma_json_put(o, "remove", remove, bad);
    char cmd[6000];
    ma_render_verify_resume_command(r, cmd, sizeof cmd);
    ma_json_put(o, "then", g->n_damaged ? ma_json_store_text(cmd) : json_null(), bad);
    return o;
}

int ma_render_integrity_junit(ma_junit_suite *suite, const ma_vrun *r, ma_error *err)
{
    const ma_vrun_integrity *g = ma_vrun_integrity_of(r);
    const char *cls = "millaudit.verify.integrity";
    int rc = MA_OK;
    for (size_t i = 0; rc == MA_OK && i < g->n_damaged; i++) {
        const ma_damaged_file *d = &g->damaged[i];
        char msg[700];
        snprintf(msg, sizeof msg, "damaged: %s%s", d->detail,
                 d->refetch ? "; fetch it again" : "");
        rc = ma_junit_case_add(suite, cls, d->path, -1, MA_JUNIT_ERROR, ma_damage_kind_name(d->kind), msg, NULL,
                               NULL, err);
    }
    if (rc == MA_OK && !g->n_damaged && (g->source == MA_INTEGRITY_MANIFEST || g->source == MA_INTEGRITY_ATTESTATION)) {
        char out[200];
        snprintf(out, sizeof out, "%s as published (%s)", MA_COUNT(g->intact, "file", "files"), reference_name(g));
        rc = ma_junit_case_add(suite, cls, "files", -1, MA_JUNIT_PASS, NULL, NULL, NULL, out, err);
    }
    return rc;
}

int ma_vrun_refetch_list_write(const ma_vrun *r, const char *path, ma_error *err)
{
    const ma_vrun_integrity *g = ma_vrun_integrity_of(r);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < g->n_damaged; i++)
        if (g->damaged[i].refetch) {
            /* one name per line: a name holding a line end is written escaped (\n), as a
             * manifest line would name it */
            char shown[2100];
            ma_escape_text(g->damaged[i].path, shown, sizeof shown, strpbrk(g->damaged[i].path, "\n\r") != NULL);
            fprintf(f, "%s\n", shown);
        }
    if (fclose(f) != 0) {
        free(buf);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    }
    int rc = ma_output_write(path, buf ? buf : "", len, err);
    free(buf);
    return rc;
}
