/* The JSON report document (docs/json/report.schema.json): verdict first, values as data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/json_text.h"
#include "reports/render/render_internal.h"


/* -1 (not recorded) is null. */
static json_t *jcount(int64_t v)
{
    return v < 0 ? json_null() : json_integer(v);
}

typedef struct jb {
    int bad;
} jb;

static json_t *put(jb *b, json_t *o, const char *key, json_t *v)
{
    if (!o || !v || json_object_set_new(o, key, v))
        b->bad = 1;
    return v;
}

static json_t *add(jb *b, json_t *arr, json_t *v)
{
    if (!arr || !v || json_array_append_new(arr, v))
        b->bad = 1;
    return v;
}

static json_t *value(jb *b, const ma_report_value *v, const char *text)
{
    json_t *o = json_object();
    put(b, o, "outcome", ma_json_store_text(v->outcome));
    put(b, o, "depth", jcount(v->depth));
    put(b, o, "bound", ma_json_store_text(v->bound));
    put(b, o, "text", ma_json_store_text(text));
    return o;
}

static json_t *verdict(jb *b, const ma_report *r)
{
    const ma_verdict *v = &r->verdict;
    json_t *o = json_object();
    put(b, o, "state", json_string(ma_verdict_state_name(v->state)));
    put(b, o, "headline", ma_json_store_text(v->headline));
    json_t *d = put(b, o, "details", json_array());
    for (int i = 0; i < v->n_details; i++)
        add(b, d, ma_json_store_text(v->details[i]));
    put(b, o, "good", json_boolean(v->good));
    put(b, o, "discrepancies_found", json_boolean(v->discrepancies));
    put(b, o, "interrupted", json_boolean(v->interrupted));
    put(b, o, "incomplete", json_boolean(v->incomplete));
    put(b, o, "damaged", json_boolean(v->damaged));
    put(b, o, "within_bounds_only", json_boolean(v->within_bounds));
    put(b, o, "unproven", json_integer(v->unproven));
    put(b, o, "not_verified", json_integer(v->not_verified));
    json_t *roots = put(b, o, "root_sectors", json_array());
    for (size_t i = 0; i < r->run.n_sectors; i++)
        if (r->sx[i].cause == MA_REPORT_ROOT)
            add(b, roots, ma_json_store_text(r->run.sectors[i].sector));
    const ma_report_box *x = &r->box;
    json_t *box = put(b, o, "box", json_object());
    const char *keys[] = {"faulty_sectors", "consequences", "first_root", "changed", "next_step"};
    const char *lines[] = {x->faulty, x->consequences, x->first_root, x->since, x->next};
    for (int i = 0; i < 5; i++)
        put(b, box, keys[i], lines[i][0] ? ma_json_store_text(lines[i]) : json_null());
    const ma_report_since *s = &r->since;
    if (s->run) {
        json_t *since = put(b, o, "since", json_object());
        put(b, since, "run", json_integer(s->run));
        put(b, since, "started_at", ma_json_store_text(s->started_at));
        put(b, since, "status", ma_json_store_text(s->status));
        put(b, since, "regressed", json_boolean(s->regressed));
        put(b, since, "verdict_worse", json_boolean(s->verdict_worse));
        put(b, since, "verdict_better", json_boolean(s->verdict_better));
        const size_t n[] = {s->n_faults, s->n_consequences, s->n_fixed, s->n_fixed_consequences, s->n_improved,
                            s->n_follows, s->n_changed};
        const char *names[] = {"faults",   "consequences", "fixed",  "fixed_consequences",
                               "improved", "follows",      "changed"};
        for (int i = 0; i < 7; i++)
            put(b, since, names[i], json_integer((json_int_t)n[i]));
    } else {
        put(b, o, "since", json_null());
    }
    return o;
}

static json_t *totals(jb *b, const ma_report *r)
{
    const ma_verdict_counts *t = &r->totals;
    json_t *o = json_object();
    put(b, o, "sectors", json_integer(t->sectors));
    put(b, o, "sectors_not_checked", json_integer(t->sectors_not_checked));
    put(b, o, "entries", json_integer(t->entries));
    put(b, o, "checked", json_integer(t->checked));
    put(b, o, "verified", json_integer(t->verified));
    put(b, o, "within_bounds", json_integer(t->within_bounds));
    put(b, o, "discrepancies", json_integer(t->discrepancies));
    put(b, o, "roots", jcount(t->roots));
    put(b, o, "propagated", jcount(t->propagated));
    put(b, o, "unverifiable", jcount(t->unverifiable));
    put(b, o, "missing_child", jcount(r->total_missing_child));
    put(b, o, "canonical", jcount(r->total_canonical));
    put(b, o, "markers", jcount(r->total_markers));
    put(b, o, "bound_wins", jcount(r->total_bound_wins));
    put(b, o, "wins", jcount(r->total_wins));
    put(b, o, "draws", jcount(r->total_draws));
    put(b, o, "losses", jcount(r->total_losses));
    put(b, o, "sectors_unusable", json_integer(t->sectors_unusable));
    /* a sector's finding in runs before audit schema v11, damage since (docs/download.md) */
    int64_t bodies = t->body_mismatches;
    for (size_t i = 0; i < r->integrity.n_damaged; i++)
        bodies += r->integrity.damaged[i].kind && !strcmp(r->integrity.damaged[i].kind, "body-digest-mismatch");
    put(b, o, "body_digest_mismatches", json_integer(bodies));
    put(b, o, "not_verified", json_integer(r->verdict.not_verified));
    put(b, o, "files_damaged", json_integer(t->files_damaged));
    put(b, o, "sectors_damaged", json_integer(t->sectors_damaged));
    put(b, o, "sectors_input_damaged", json_integer(t->sectors_input_damaged));
    put(b, o, "seconds", json_real(r->total_seconds));
    put(b, o, "entries_per_second", r->total_seconds > 0 ? json_real((double)t->checked / r->total_seconds) : json_null());
    json_t *cls = put(b, o, "classes", json_object());
    for (size_t i = 0; i < r->run.n_sectors; i++)
        for (size_t k = 0; k < r->run.sectors[i].n_classes; k++) {
            const ma_run_class *c = &r->run.sectors[i].classes[k];
            if (!c->cls)
                continue;
            json_t *prev = json_object_get(cls, c->cls);
            put(b, cls, c->cls, json_integer((prev ? json_integer_value(prev) : 0) + c->count));
        }
    if (ma_report_is_diff(r)) {
        json_t *d = put(b, o, "diff", json_object());
        put(b, d, "value_differences", json_integer(t->value_differences));
        put(b, d, "encoding", json_integer(t->encoding));
        put(b, d, "only_in_a", json_integer(t->only_a));
        put(b, d, "only_in_b", json_integer(t->only_b));
    }
    return o;
}

static json_t *run_facts(jb *b, const ma_report *r)
{
    const ma_run *x = &r->run;
    json_t *o = json_object();
    put(b, o, "id", json_integer(x->id));
    put(b, o, "kind", ma_json_store_text(x->kind));
    put(b, o, "mode", ma_json_store_text(r->mode));
    put(b, o, "resumed_from", r->resumed_from ? json_integer(r->resumed_from) : json_null());
    put(b, o, "continued_by", r->continued_by ? json_integer(r->continued_by) : json_null());
    /* as recorded (canonical), or as an imported run's document had them */
    json_t *opts = ma_json_load_own(r->options, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!opts && r->options)
        opts = json_loads(r->options, 0, NULL);
    put(b, o, "options", opts ? opts : r->options ? ma_json_store_text(r->options) : json_null());
    put(b, o, "database_root", ma_json_store_text(x->database_root));
    put(b, o, "side_b", ma_report_is_diff(r) ? ma_json_store_text(r->side_b) : json_null());
    put(b, o, "variant", ma_json_store_text(x->variant));
    put(b, o, "format", ma_json_store_text(x->format));
    put(b, o, "started_at", ma_json_store_text(x->started_at));
    put(b, o, "ended_at", ma_json_store_text(x->ended_at));
    put(b, o, "recorded_status", ma_json_store_text(x->status));
    put(b, o, "tool_version", ma_json_store_text(x->tool_version));
    put(b, o, "git_revision", ma_json_store_text(x->git_revision));
    put(b, o, "host", ma_json_store_text(x->host));
    put(b, o, "command_line", ma_json_store_text(x->command_line));
    if (x->imported) {
        json_t *im = put(b, o, "imported_from", json_object());
        put(b, im, "source", ma_json_store_text(x->import_source));
        put(b, im, "source_run_id", json_integer(x->import_source_run_id));
        put(b, im, "export_version", json_integer(x->import_export_version));
        put(b, im, "imported_at", ma_json_store_text(x->imported_at));
        if (x->attested) {
            json_t *at = put(b, im, "attested_by", json_object());
            put(b, at, "keyid", ma_json_store_text(x->attest_keyid));
            put(b, at, "identity", x->attest_identity ? ma_json_store_text(x->attest_identity) : json_null());
            put(b, at, "envelope_sha256", ma_json_store_text(x->attest_envelope_sha256));
        }
    } else {
        put(b, o, "imported_from", json_null());
    }
    return o;
}

static json_t *sector(jb *b, const ma_report *r, size_t i)
{
    const ma_run_sector *s = &r->run.sectors[i];
    const ma_report_sector *x = &r->sx[i];
    json_t *o = json_object();
    put(b, o, "sector", ma_json_store_text(s->sector));
    put(b, o, "file", ma_json_store_text(s->file));
    put(b, o, "format", ma_json_store_text(x->format));
    put(b, o, "state", json_string(ma_verdict_state_name((ma_verdict_state)x->state)));
    put(b, o, "recorded_status", ma_json_store_text(s->status));
    put(b, o, "message", ma_json_store_text(s->message));
    put(b, o, "carried_from", x->carried_from ? json_integer(x->carried_from) : json_null());
    put(b, o, "entries", json_integer(s->entries));
    put(b, o, "checked", json_integer(s->checked));
    put(b, o, "verified", json_integer(s->verified));
    put(b, o, "within_bounds", json_integer(s->within_bounds));
    put(b, o, "discrepancies", json_integer(s->discrepancies));
    put(b, o, "roots", jcount(x->roots));
    put(b, o, "propagated", jcount(x->propagated));
    put(b, o, "missing_child", jcount(x->missing_child));
    put(b, o, "unverifiable", jcount(x->unverifiable));
    put(b, o, "canonical", jcount(x->canonical));
    put(b, o, "markers", jcount(x->markers));
    put(b, o, "bound_wins", jcount(x->bound_wins));
    put(b, o, "seconds", json_real(s->seconds));
    put(b, o, "entries_per_second", s->seconds > 0 ? json_real((double)s->checked / s->seconds) : json_null());
    put(b, o, "mover_in_hand", x->mover_in_hand >= 0 ? json_integer(x->mover_in_hand) : json_null());
    put(b, o, "opponent_in_hand", x->opponent_in_hand >= 0 ? json_integer(x->opponent_in_hand) : json_null());
    json_t *cls = put(b, o, "classes", json_object());
    for (size_t k = 0; k < s->n_classes; k++)
        if (s->classes[k].cls)
            put(b, cls, s->classes[k].cls, json_integer(s->classes[k].count));
    json_t *h = put(b, o, "histogram", json_array());
    for (size_t k = 0; k < s->n_bins; k++) {
        json_t *bin = add(b, h, json_object());
        put(b, bin, "outcome", ma_json_store_text(s->bins[k].outcome));
        put(b, bin, "depth", json_integer(s->bins[k].depth));
        put(b, bin, "count", json_integer(s->bins[k].count));
    }
    put(b, o, "wins", jcount(x->wins));
    put(b, o, "draws", jcount(x->draws));
    put(b, o, "losses", jcount(x->losses));
    put(b, o, "body_digest", ma_json_store_text(x->body_digest));
    put(b, o, "derived_sha256", ma_json_store_text(s->derived_sha256));
    put(b, o, "derived_positions", s->has_derived_positions ? json_integer(s->derived_positions) : json_null());
    put(b, o, "cause", x->cause == MA_REPORT_ROOT          ? json_string("root")
                       : x->cause == MA_REPORT_CONSEQUENCE ? json_string("consequence")
                                                           : json_null());
    json_t *because = put(b, o, "consequence_of", json_array());
    for (const char *p = x->because; p && *p;) {
        size_t len = strcspn(p, ",");
        char *name = strndup(p, len);
        add(b, because, ma_json_store_text(name));
        free(name);
        p += len;
        p += strspn(p, ", ");
    }
    return o;
}

static json_t *discrepancy(jb *b, const ma_report *r, size_t i)
{
    const ma_run_discrepancy *d = &r->run.disc[i];
    const ma_report_disc *x = &r->dx[i];
    int diff = ma_report_is_diff(r);
    json_t *o = json_object();
    put(b, o, "sector", ma_json_store_text(d->sector));
    put(b, o, "entry", json_integer(d->entry));
    put(b, o, "offset", jcount(x->offset));
    put(b, o, "class", ma_json_store_text(d->cls));
    put(b, o, "root", x->root < 0 ? json_null() : json_boolean(x->root));
    put(b, o, "board", ma_json_store_text(d->board));
    int mover, opp;
    ma_report_in_hand(d->sector, &mover, &opp);
    put(b, o, "side_to_move", json_string("X"));
    put(b, o, "mover_in_hand", mover >= 0 ? json_integer(mover) : json_null());
    put(b, o, "opponent_in_hand", opp >= 0 ? json_integer(opp) : json_null());
    put(b, o, diff ? "a" : "stored", value(b, &x->stored, d->stored));
    put(b, o, diff ? "b" : "derived", value(b, &x->derived, d->derived));
    put(b, o, "move", ma_json_store_text(x->move));
    put(b, o, "successor", ma_json_store_text(x->successor));
    return o;
}

int ma_render_json(char **out, const ma_report *r, ma_error *err)
{
    *out = NULL;
    jb b = {0};
    json_t *doc = json_object();
    if (!doc)
        return ma_error_set(err, MA_ENOMEM, "report: out of memory");
    put(&b, doc, "schema_version", json_integer(MA_REPORT_SCHEMA_VERSION));
    put(&b, doc, "format", json_string(MA_REPORT_FORMAT));
    put(&b, doc, "verdict", verdict(&b, r));
    put(&b, doc, "integrity", ma_render_report_integrity_json(r, &b.bad));
    put(&b, doc, "sector", r->only ? ma_json_store_text(r->only) : json_null());
    put(&b, doc, "run", run_facts(&b, r));
    put(&b, doc, "totals", totals(&b, r));
    json_t *secs = put(&b, doc, "sectors", json_array());
    for (size_t i = 0; i < r->run.n_sectors; i++)
        if (ma_render_sector_shown(r, i))
            add(&b, secs, sector(&b, r, i));
    json_t *ds = put(&b, doc, "discrepancies", json_array());
    for (size_t i = 0; i < r->run.n_disc; i++)
        if (!r->only || (r->run.disc[i].sector && !strcmp(r->run.disc[i].sector, r->only)))
            add(&b, ds, discrepancy(&b, r, i));
    json_t *h = put(&b, doc, "history", json_array());
    for (size_t i = 0; i < r->n_history; i++) {
        const ma_report_history *x = &r->history[i];
        json_t *o = add(&b, h, json_object());
        put(&b, o, "id", json_integer(x->id));
        put(&b, o, "started_at", ma_json_store_text(x->started_at));
        put(&b, o, "ended_at", ma_json_store_text(x->ended_at));
        put(&b, o, "mode", ma_json_store_text(x->mode));
        put(&b, o, "state", json_string(ma_verdict_state_name(x->state)));
        put(&b, o, "recorded_status", ma_json_store_text(x->status));
        put(&b, o, "sectors", json_integer(x->sectors));
        put(&b, o, "entries", json_integer(x->entries));
        put(&b, o, "verified", json_integer(x->verified));
        put(&b, o, "within_bounds", json_integer(x->within_bounds));
        put(&b, o, "discrepancies", json_integer(x->discrepancies));
        put(&b, o, "carried", json_integer(x->carried));
        put(&b, o, "seconds", json_real(x->seconds));
    }
    if (r->run.has_manifest || r->run.n_files) {
        json_t *m = put(&b, doc, "manifest", json_object());
        put(&b, m, "manifest_path", ma_json_store_text(r->run.manifest_path));
        put(&b, m, "chunk_size", json_integer(r->run.manifest_chunk_size));
        json_t *files = put(&b, m, "files", json_array());
        for (size_t i = 0; i < r->run.n_files; i++) {
            const ma_run_file *f = &r->run.files[i];
            json_t *o = add(&b, files, json_object());
            put(&b, o, "path", ma_json_store_text(f->path));
            put(&b, o, "size", json_integer(f->size));
            put(&b, o, "sha256", ma_json_store_text(f->sha256));
            put(&b, o, "sector", ma_json_store_text(f->sector));
            put(&b, o, "format", ma_json_store_text(f->format));
            put(&b, o, "variant", ma_json_store_text(f->variant));
            put(&b, o, "chunks", json_integer((json_int_t)f->n_chunks));
        }
    } else {
        put(&b, doc, "manifest", json_null());
    }
    char *text = b.bad ? NULL : ma_json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(doc);
    if (!text)
        return ma_error_set(err, MA_ENOMEM, "report: out of memory");
    size_t n = strlen(text);
    char *withnl = realloc(text, n + 2);
    if (!withnl) {
        free(text);
        return ma_error_set(err, MA_ENOMEM, "report: out of memory");
    }
    memcpy(withnl + n, "\n", 2);
    *out = withnl;
    return MA_OK;
}
