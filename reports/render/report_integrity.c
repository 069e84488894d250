/* reports/render/report_integrity: a recorded run's damage in text, Markdown, HTML and JSON
 * (declared in reports/render/render_internal.h). Every string from the store goes through
 * ma_out_str. */
#include <string.h>

#include <jansson.h>

#include "reports/render/render_internal.h"

#include "common/counts.h"
#include "common/json_text.h"

static void header(ma_out *o, const ma_audit_integrity *g)
{
    int none = !g->source || !strcmp(g->source, "none");
    if (none) {
        ma_out_printf(o, "no manifest: %s checked against the body digest in %s header",
                      MA_COUNT(g->body_checked, "open file", "open files"), ma_noun(g->body_checked, "its", "their"));
        return;
    }
    ma_out_str(o, g->reference);
    if (g->signer || g->keyid) {
        ma_out_printf(o, " (signed by ");
        ma_out_str(o, g->signer ? g->signer : g->keyid);
        ma_out_printf(o, ")");
    }
    if (!g->n_damaged)
        ma_out_printf(o, ": all %s as published", MA_COUNT(g->intact, "file", "files"));
    else
        ma_out_printf(o, ": %s of %s damaged, %s as published", MA_NUM(g->n_damaged), MA_COUNT(g->files, "file", "files"),
                      MA_NUM(g->intact));
}

void ma_render_report_integrity(ma_out *o, const ma_report *r)
{
    const ma_audit_integrity *g = &r->integrity;
    if (!g->recorded || (!g->n_damaged && (!g->source || !strcmp(g->source, "none"))))
        return;
    if (o->fmt == MA_RENDER_HTML) {
        ma_out_printf(o, "<section id=\"integrity\" class=\"integrity %s\">\n<h2>Integrity</h2>\n<p>",
                      g->n_damaged ? "bad" : "good");
        header(o, g);
        ma_out_printf(o, "</p>\n");
        if (g->n_damaged) {
            ma_out_printf(o, "<table><tr><th>file</th><th>what is wrong</th><th>sector</th><th>do</th></tr>\n");
            for (size_t i = 0; i < g->n_damaged; i++) {
                const ma_audit_damage *d = &g->damaged[i];
                ma_out_printf(o, "<tr class=\"damaged\" data-kind=\"");
                ma_out_str(o, d->kind);
                ma_out_printf(o, "\"><td>");
                ma_out_str(o, d->path);
                ma_out_printf(o, "</td><td>");
                ma_out_str(o, d->detail);
                ma_out_printf(o, "</td><td>");
                ma_out_str(o, d->sector);
                ma_out_printf(o, "</td><td>%s</td></tr>\n", d->refetch ? "fetch again" : "remove");
            }
            ma_out_printf(o, "</table>\n");
        }
        ma_out_printf(o, "</section>\n");
        return;
    }
    int md = o->fmt == MA_RENDER_MD;
    ma_out_printf(o, md ? "\n## Integrity\n\n" : "\nIntegrity\n  ");
    header(o, g);
    ma_out_printf(o, md ? "\n\n" : "\n");
    if (md && g->n_damaged)
        ma_out_printf(o, "| file | what is wrong | sector | do |\n|---|---|---|---|\n");
    for (size_t i = 0; i < g->n_damaged; i++) {
        const ma_audit_damage *d = &g->damaged[i];
        ma_out_printf(o, md ? "| " : "  damaged: ");
        ma_out_str(o, d->path);
        ma_out_printf(o, md ? " | " : ": ");
        ma_out_str(o, d->detail);
        if (md) {
            ma_out_printf(o, " | ");
            ma_out_str(o, d->sector);
            ma_out_printf(o, " | %s |\n", d->refetch ? "fetch again" : "remove");
        } else {
            ma_out_printf(o, " (%s)\n", d->refetch ? "fetch again" : "remove");
        }
    }
}

json_t *ma_render_report_integrity_json(const ma_report *r, int *bad)
{
    const ma_audit_integrity *g = &r->integrity;
    if (!g->recorded)
        return json_null();
    json_t *o = json_object(), *list = json_array(), *fetch = json_array(), *remove = json_array();
    ma_json_put(o, "source", ma_json_store_text(g->source), bad);
    ma_json_put(o, "reference", ma_json_store_text(g->reference), bad);
    ma_json_put(o, "signer", ma_json_store_text(g->signer), bad);
    ma_json_put(o, "keyid", ma_json_store_text(g->keyid), bad);
    ma_json_put(o, "files", json_integer(g->files), bad);
    ma_json_put(o, "intact", json_integer(g->intact), bad);
    ma_json_put(o, "body_checked", json_integer(g->body_checked), bad);
    for (size_t i = 0; i < g->n_damaged; i++) {
        const ma_audit_damage *d = &g->damaged[i];
        json_t *x = json_object();
        ma_json_put(x, "path", ma_json_store_text(d->path), bad);
        ma_json_put(x, "kind", ma_json_store_text(d->kind), bad);
        ma_json_put(x, "sector", ma_json_store_text(d->sector), bad);
        ma_json_put(x, "refetch", json_boolean(d->refetch), bad);
        ma_json_put(x, "size", d->size >= 0 ? json_integer(d->size) : json_null(), bad);
        ma_json_put(x, "published_size", d->published_size >= 0 ? json_integer(d->published_size) : json_null(), bad);
        ma_json_put(x, "chunk_size", d->chunk_size > 0 ? json_integer(d->chunk_size) : json_null(), bad);
        ma_json_put(x, "ranges", ma_json_store_text(d->ranges), bad);
        ma_json_put(x, "detail", ma_json_store_text(d->detail), bad);
        ma_json_push(list, x, bad);
        ma_json_push(d->refetch ? fetch : remove, ma_json_store_text(d->path), bad);
    }
    ma_json_put(o, "damaged", list, bad);
    ma_json_put(o, "refetch", fetch, bad);
    ma_json_put(o, "remove", remove, bad);
    return o;
}
