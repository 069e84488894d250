/* verifier/run/run_integrity: phase integrity of a verify run (docs/runs.md "Phases",
 * docs/download.md). Right after discovery, every file is compared with what was published
 * (verifier/run/integrity.h); after the plan each sector whose own file is damaged is "damaged"
 * and each sector that reads a damaged file (a successor sector's, its .secval) "input-damaged":
 * neither is checked, so damage never reads as a discrepancy of the solver. The digests the
 * integrity phase took are the ones the read snapshot compares the checked bytes with, so what
 * was judged intact is what was checked. */
#include "verifier/run/run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fileio.h"
#include "reports/store/audit_integrity.h"

/* The file name a node's sector is read from (its file, or the one it would have). */
static const char *node_file(const node *nd)
{
    return nd->dbs && nd->dbs->file[0] ? nd->dbs->file : ma_path_base(nd->pub.path);
}

/* Which sector (or .secval) a damaged file is, from the database's names. */
static void name_damage(const ma_vrun *r, ma_damaged_file *d)
{
    for (size_t i = 0; i < ma_database_count(r->db); i++) {
        const ma_db_sector *s = ma_database_sector(r->db, i);
        if (!strcmp(s->file[0] ? s->file : ma_path_base(s->path), d->path)) {
            snprintf(d->sector, sizeof d->sector, "%s", s->name);
            return;
        }
    }
    for (size_t i = 0; i < r->n_nodes; i++)
        if (!strcmp(node_file(&r->nodes[i]), d->path)) {
            snprintf(d->sector, sizeof d->sector, "%s", r->nodes[i].pub.name);
            return;
        }
    const char *dot = strrchr(d->path, '.');
    char v[16];
    ma_variant var;
    if (dot && !strcmp(dot, ".secval") && !strchr(d->path, '/') && (size_t)(dot - d->path) < sizeof v) {
        snprintf(v, sizeof v, "%.*s", (int)(dot - d->path), d->path);
        if (ma_variant_parse(v, &var, NULL) == MA_OK)
            d->secval_variant = (int)var;
    }
}

/* The file per variant every sector of it is read with (a .sec2 database's <variant>.secval) is
 * read into memory once and parsed from those bytes (ma_database_secval_digest): it is loaded now,
 * right after it was judged, and bytes that are not the ones judged (the file replaced in between)
 * are damage, so a run never checks against a .secval other than the one it judged as published. */
static int judge_variant_files(ma_vrun *r, ma_error *err)
{
    unsigned seen = 0;
    for (size_t i = 0; i < ma_database_count(r->db); i++) {
        ma_variant v = ma_database_sector(r->db, i)->variant;
        char name[64];
        if ((seen >> v & 1) || !ma_database_variant_file(r->db, v, name, sizeof name))
            continue;
        seen |= 1u << v;
        const ma_file_digest *judged = ma_integrity_digest(&r->integ, name), *loaded = NULL;
        ma_error e;
        if (!judged || ma_database_secval_digest(r->db, v, &loaded, &e) != MA_OK || !loaded ||
            !memcmp(judged->digest, loaded->digest, sizeof judged->digest))
            continue; /* not judged (no reference lists it), unreadable now (the sectors say so), or the same */
        ma_damaged_file d;
        memset(&d, 0, sizeof d);
        snprintf(d.path, sizeof d.path, "%s", name);
        d.kind = MA_DAMAGE_CONTENT;
        d.refetch = 1;
        d.size = d.published_size = -1;
        snprintf(d.detail, sizeof d.detail, "content differs: changed after it was judged against the reference "
                                            "(the bytes read are not the ones judged)");
        if (ma_integrity_add(&r->integ, &d, err))
            return err->code;
        if (r->integ.pub.intact)
            r->integ.pub.intact--; /* judged intact a moment ago */
    }
    return MA_OK;
}

int ma_vr_integrity(ma_vrun *r, ma_error *err)
{
    r->phase = "integrity";
    struct stat st;
    int one_file = stat(r->opt.root, &st) == 0 && !S_ISDIR(st.st_mode);
    const char *dir = ma_database_dir(r->db);
    size_t n_db = ma_database_count(r->db);
    const char **open_files = calloc(n_db + 1, sizeof *open_files);
    if (!open_files)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    size_t n_open = 0;
    for (size_t i = 0; ma_format_self_digest(ma_database_format(r->db)) && i < n_db; i++) {
        const ma_db_sector *s = ma_database_sector(r->db, i);
        open_files[n_open++] = s->file[0] ? s->file : ma_path_base(s->path);
    }
    const char *exclude[8];
    size_t n_ex = 0;
    if (r->opt.audit_path)
        exclude[n_ex++] = r->opt.audit_path;
    for (size_t i = 0; i < r->opt.n_integrity_exclude && n_ex < 8; i++)
        exclude[n_ex++] = r->opt.integrity_exclude[i];
    ma_integrity_options o = {0};
    o.dir = dir;
    o.only = one_file ? ma_path_base(r->opt.root) : NULL;
    o.source = r->opt.integrity;
    o.manifest = r->opt.manifest_path;
    o.attestation = r->opt.attestation_path;
    o.pub = r->opt.pub_path;
    o.exclude = exclude;
    o.n_exclude = n_ex;
    o.open_files = open_files;
    o.n_open_files = n_open;
    o.threads = r->opt.threads > 0 ? (unsigned)r->opt.threads : 1;
    o.progress = r->opt.progress;
    o.cancel = r->opt.cancel;
    int rc = ma_integrity_check(&r->integ, &o, err);
    free(open_files);
    if (rc == MA_OK && !ma_format_self_digest(ma_database_format(r->db)))
        r->integ.pub.undigested += n_db; /* Malom files carry no digest of their own */
    if (rc == MA_OK && r->hooks.on_step)
        r->hooks.on_step(r->hooks.step_ctx, "judged", NULL);
    if (rc == MA_OK)
        rc = judge_variant_files(r, err);
    if (r->opt.progress)
        ma_progress_set_label(r->opt.progress, "verify");
    return rc;
}

/* Whether a sector of this status was left unchecked because of damage. */
int ma_vr_status_damaged(int status)
{
    return status == MA_SECTOR_DAMAGED || status == MA_SECTOR_INPUT_DAMAGED;
}

static const ma_damaged_file *secval_damage(const ma_vrun *r, ma_variant v)
{
    for (size_t i = 0; i < r->integ.pub.n_damaged; i++)
        if (r->integ.damaged[i].secval_variant == (int)v)
            return &r->integ.damaged[i];
    return NULL;
}

/* Sets node i "damaged" or "input-damaged" when its file or a file it reads is damaged (as the
 * damaged list stands now). Returns 1 when it did. */
int ma_vr_integrity_precheck(ma_vrun *r, int i)
{
    node *nd = &r->nodes[i];
    if (ma_vr_status_damaged(nd->pub.status))
        return 1;
    const ma_damaged_file *own = ma_integrity_damage(&r->integ, node_file(nd));
    const ma_damaged_file *input = NULL;
    const char *input_file = NULL;
    for (int k = 0; !own && !input && k < MA_TURN_KINDS; k++) {
        int c = nd->succ[k];
        if (c >= 0 && c != i && (input = ma_integrity_damage(&r->integ, node_file(&r->nodes[c]))))
            input_file = node_file(&r->nodes[c]);
    }
    char variant_file[64];
    if (!own && !input && ma_database_variant_file(r->db, nd->pub.variant, variant_file, sizeof variant_file) &&
        (input = secval_damage(r, nd->pub.variant)))
        input_file = input->path;
    if (!own && !input)
        return 0;
    ma_vrun_sector *p = &nd->pub;
    p->status = own ? MA_SECTOR_DAMAGED : MA_SECTOR_INPUT_DAMAGED;
    p->entries = nd->planned_entries;
    p->checked = p->canonical = p->markers = p->verified = 0;
    p->within_bounds = p->bound_wins = p->missing_child = p->unverifiable = 0;
    p->discrepancies = p->roots = p->propagated = 0;
    memset(p->by_class, 0, sizeof p->by_class);
    p->body_digest = -1;
    /* the sector's file is named by its row; the damaged file itself is among the run's errors */
    if (own)
        snprintf(p->message, sizeof p->message, "damaged, not checked: %.500s", own->detail);
    else
        snprintf(p->message, sizeof p->message, "not checked: input damaged: it reads %.500s (%.30s)", input_file,
                 ma_damage_kind_name(input->kind));
    return 1;
}

void ma_vr_integrity_mark(ma_vrun *r)
{
    for (size_t i = 0; i < r->integ.pub.n_damaged; i++) {
        ma_damaged_file *d = &r->integ.damaged[i];
        name_damage(r, d);
        char path[4600], shown[1100], line[1800];
        snprintf(path, sizeof path, "%.4000s/%.500s", ma_database_dir(r->db), d->path);
        ma_escape_name(path, shown, sizeof shown);
        snprintf(line, sizeof line, "%s: damaged: %s", shown, d->detail);
        ma_vr_add_error(r, line);
    }
    for (size_t i = 0; i < r->n_order; i++)
        ma_vr_integrity_precheck(r, r->order[i]);
    if (r->audit)
        return;
    /* without a store the digest judged intact is the one the read snapshot expects of the
     * mapping (the hash before the first open, run_snapshot.c): no file is hashed twice */
    for (size_t i = 0; i < r->n_nodes; i++) {
        node *nd = &r->nodes[i];
        const ma_file_digest *d = nd->dbs ? ma_integrity_digest(&r->integ, node_file(nd)) : NULL;
        if (!d)
            continue;
        ma_sha256_hex(nd->mapped_sha, d->digest);
        nd->hashed = 1;
    }
}

void ma_vr_integrity_bind(ma_vrun *r)
{
    /* The hash phase hashed the files again: one that changed since the integrity phase judged it
     * must not be checked as if it were the file judged. Expecting the judged digest of its
     * mapping makes the read snapshot withdraw every sector that reads it. */
    for (size_t i = 0; i < r->n_nodes; i++) {
        node *nd = &r->nodes[i];
        const ma_file_digest *d = nd->dbs ? ma_integrity_digest(&r->integ, node_file(nd)) : NULL;
        char hex[65];
        if (d && nd->sha256[0] && (ma_sha256_hex(hex, d->digest), strcmp(hex, nd->sha256)))
            snprintf(nd->sha256, sizeof nd->sha256, "%s", hex);
    }
}

int ma_vr_integrity_after_check(ma_vrun *r, int i, ma_error *err)
{
    node *nd = &r->nodes[i];
    if (nd->pub.body_digest != 0)
        return 0;
    /* the integrity phase found the body intact, the check's own hash of the mapping does not:
     * bytes rewritten in between, damage all the same */
    ma_damaged_file d;
    memset(&d, 0, sizeof d);
    snprintf(d.path, sizeof d.path, "%.1000s", node_file(nd));
    snprintf(d.sector, sizeof d.sector, "%s", nd->pub.name);
    d.kind = MA_DAMAGE_BODY_DIGEST;
    d.refetch = 1;
    d.size = d.published_size = -1;
    snprintf(d.detail, sizeof d.detail,
             "body differs from the SHA-256 its header records (offset 80): not the bytes its producer wrote");
    if (ma_integrity_add(&r->integ, &d, err))
        return -1;
    ma_vr_add_error(r, nd->pub.message[0] ? nd->pub.message : d.detail);
    free(nd->set);
    nd->set = NULL;
    nd->n_set = 0;
    nd->done = 0;
    ma_vr_integrity_precheck(r, i);
    return 1;
}

void ma_vr_integrity_count(ma_vrun *r)
{
    ma_vrun_integrity *g = &r->integ.pub;
    g->sectors_damaged = g->sectors_input_damaged = 0;
    for (size_t i = 0; i < r->n_order; i++) {
        int s = r->nodes[r->order[i]].pub.status;
        g->sectors_damaged += s == MA_SECTOR_DAMAGED;
        g->sectors_input_damaged += s == MA_SECTOR_INPUT_DAMAGED;
    }
}

void ma_vr_integrity_record(ma_vrun *r)
{
    if (!r->audit || !r->started)
        return;
    const ma_vrun_integrity *g = &r->integ.pub;
    ma_audit_integrity rec = {0};
    rec.source = (char *)ma_integrity_source_name(g->source);
    rec.reference = g->reference && g->reference[0] ? (char *)g->reference : NULL;
    rec.signer = g->signer[0] ? (char *)g->signer : NULL;
    rec.keyid = g->keyid[0] ? (char *)g->keyid : NULL;
    rec.files = (int64_t)g->files;
    rec.intact = (int64_t)g->intact;
    rec.body_checked = (int64_t)g->body_checked;
    ma_audit_damage *rows = calloc(g->n_damaged + 1, sizeof *rows);
    char (*ranges)[8 * 44] = calloc(g->n_damaged + 1, sizeof *ranges);
    ma_error e;
    if (!rows || !ranges) {
        free(rows);
        free(ranges);
        ma_error_set(&e, MA_ENOMEM, "%s: out of memory", r->opt.audit_path);
        ma_vr_record_failure(r, &e);
        return;
    }
    for (size_t i = 0; i < g->n_damaged; i++) {
        const ma_damaged_file *d = &g->damaged[i];
        ma_audit_damage *w = &rows[i];
        w->path = (char *)d->path;
        w->kind = (char *)ma_damage_kind_name(d->kind);
        w->sector = d->sector[0] ? (char *)d->sector : NULL;
        w->refetch = d->refetch;
        w->size = d->size;
        w->published_size = d->published_size;
        w->chunk_size = d->chunk_size ? (int64_t)d->chunk_size : -1;
        size_t o = 0;
        for (size_t k = 0; k < d->n_ranges && o < sizeof ranges[i]; k++)
            o += (size_t)snprintf(ranges[i] + o, sizeof ranges[i] - o, "%s%llu-%llu", k ? "," : "",
                                  (unsigned long long)d->first_byte[k], (unsigned long long)d->last_byte[k]);
        w->ranges = d->n_ranges ? ranges[i] : NULL;
        w->detail = (char *)d->detail;
    }
    rec.damaged = rows;
    rec.n_damaged = g->n_damaged;
    if (ma_audit_integrity_write(r->audit, r->run_id, &rec, &e))
        ma_vr_record_failure(r, &e);
    else
        r->integ_recorded = g->n_damaged;
    free(rows);
    free(ranges);
}

const ma_vrun_integrity *ma_vrun_integrity_of(const ma_vrun *r)
{
    return &r->integ.pub;
}
