/* verifier/run/run_hash: phase hash of a verify run with a store (docs/runs.md "Phases", "The
 * coverage proof"). Every file the run will read (sector files, successor files) and every
 * sector file of the inventory is hashed once, in one batch; a .sec2 database's <variant>.secval
 * is hashed by the source layer from the very bytes it parses (hash_secvals). The digests become
 * the run's manifest, the inventory (with the files discovery could not use) and each selected
 * sector's inputs, which a later carry-over compares. */
#include "verifier/run/run_internal.h"
#include "common/fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checksums/sha256.h"
#include "reports/store/audit_inventory.h"
#include "verifier/run/manifest_record.h"

/* The inventory's files (docs/runs.md "The coverage proof"): every sector file with its size and
 * the SHA-256 of its bytes, every file discovery could not use. Every sector file's index in
 * r->inv.files goes into need_sha: the caller hashes them in the same batch as the files the run
 * reads, so no file is hashed twice. Not the body digest an open header claims: a body rewritten
 * under a stale header would keep the claim, and shards planned before and after the change would
 * look planned from one database. */
static int inventory_files(ma_vrun *r, size_t *need_sha, size_t *n_need, ma_error *err)
{
    *n_need = 0;
    int rc = MA_OK;
    for (size_t i = 0; rc == MA_OK && i < ma_database_count(r->db); i++) {
        const ma_db_sector *s = ma_database_sector(r->db, i);
        ma_inventory_file f;
        memset(&f, 0, sizeof f);
        snprintf(f.name, sizeof f.name, "%.255s", s->file[0] ? s->file : ma_path_base(s->path));
        snprintf(f.sector, sizeof f.sector, "%s", s->name);
        struct stat st;
        if (stat(s->path, &st) == 0)
            f.size = (uint64_t)st.st_size;
        snprintf(f.digest, sizeof f.digest, "sha256:!"); /* replaced by the hash below */
        need_sha[(*n_need)++] = r->inv.n_files;
        rc = ma_inventory_add_file(&r->inv, &f, err);
    }
    for (size_t i = 0; rc == MA_OK && i < ma_database_unusable_count(r->db); i++) {
        const ma_db_unusable *u = ma_database_unusable(r->db, i);
        ma_inventory_file f;
        memset(&f, 0, sizeof f);
        snprintf(f.name, sizeof f.name, "%.255s", ma_path_base(u->path));
        int listed = 0; /* a sector file discovery found unusable (a dangling link) is listed once */
        for (size_t k = 0; k < r->inv.n_files && !listed; k++)
            listed = !strcmp(r->inv.files[k].name, f.name);
        if (listed)
            continue;
        struct stat st;
        if (stat(u->path, &st) == 0)
            f.size = (uint64_t)st.st_size;
        snprintf(f.digest, sizeof f.digest, "unusable");
        rc = ma_inventory_add_file(&r->inv, &f, err);
    }
    return rc;
}

/* Each selected sector's inputs: its file, its successors' files (or their absence), and the file
 * per variant its format reads it with (a .sec2's sector values); sorted by name so equal inputs
 * compare equal. */
static int sector_inputs(ma_vrun *r, ma_error *err)
{
    for (size_t i = 0; i < r->n_order; i++) {
        node *nd = &r->nodes[r->order[i]];
        ma_vrun_input *in = calloc(MA_TURN_KINDS + 2, sizeof *in);
        if (!in)
            return ma_error_set(err, MA_ENOMEM, "out of memory");
        size_t k = 0;
        int members[MA_TURN_KINDS + 1];
        int nm = 0;
        members[nm++] = r->order[i];
        for (int t = 0; t < MA_TURN_KINDS; t++) {
            int c = nd->succ[t], dup = 0;
            for (int j = 0; j < nm; j++)
                dup |= members[j] == c;
            if (c >= 0 && !dup)
                members[nm++] = c;
        }
        for (int j = 0; j < nm; j++) {
            const node *m = &r->nodes[members[j]];
            const char *slash = strrchr(m->pub.path, '/');
            snprintf(in[k].path, sizeof in[k].path, "%.255s", slash ? slash + 1 : m->pub.path);
            snprintf(in[k].sha256, sizeof in[k].sha256, "%s", m->dbs ? m->sha256 : "");
            k++;
        }
        if (ma_database_variant_file(r->db, nd->pub.variant, in[k].path, sizeof in[k].path)) {
            snprintf(in[k].sha256, sizeof in[k].sha256, "%s", r->secval_sha[nd->pub.variant]);
            k++;
        }
        for (size_t a = 1; a < k; a++) /* insertion sort by path: at most six inputs */
            for (size_t b = a; b > 0 && strcmp(in[b - 1].path, in[b].path) > 0; b--) {
                ma_vrun_input t = in[b - 1];
                in[b - 1] = in[b];
                in[b] = t;
            }
        nd->pub.inputs = in;
        nd->pub.n_inputs = k;
    }
    return MA_OK;
}

/* The file per variant of the database's format (a .sec2 database's <variant>.secval): its digest
 * is the source layer's, of the very bytes every sector of the variant is read with (read and
 * parsed once, now: verifier/formats/source.h), never a hash of the path that a file replaced
 * before the parse would escape. In the run's manifest, its inventory, and each sector's inputs of
 * the variant. */
static int hash_secvals(ma_vrun *r, ma_error *err)
{
    for (int v = 1; v <= 3; v++) {
        r->secval_sha[v][0] = 0;
        const ma_file_digest *d = NULL;
        ma_error e;
        ma_inventory_file f;
        memset(&f, 0, sizeof f);
        if (!ma_database_variant_file(r->db, (ma_variant)v, f.name, sizeof f.name) ||
            !ma_database_has_secval(r->db, (ma_variant)v))
            continue;
        if (ma_database_secval_digest(r->db, (ma_variant)v, &d, &e) != MA_OK || !d) {
            /* "!": never equal to a digest; the sectors of the variant will be unusable too */
            snprintf(r->secval_sha[v], sizeof r->secval_sha[v], "!");
            ma_vr_add_error(r, e.msg);
            continue;
        }
        ma_sha256_hex(r->secval_sha[v], d->digest);
        f.size = d->size;
        snprintf(f.digest, sizeof f.digest, "sha256:%s", r->secval_sha[v]);
        if (ma_inventory_add_file(&r->inv, &f, err))
            return MA_ENOMEM;
        if (r->audit && ma_manifest_record_digests(r->audit, r->run_id, ma_database_dir(r->db), f.name, d, &e))
            ma_vr_record_failure(r, &e);
    }
    return MA_OK;
}

/* A file the hash phase could not read, in the one-line form every bad input gets: the file, the
 * sector, the offset ("<path>: sector S: offset N: <what>"). The hash's own message names the path
 * and, for a failed read, the offset ("<path>: offset N: ..."); it knows no sectors. The check will
 * find a file it reads unusable too, but an inventory file it only hashes has this line alone. */
static void hash_error(ma_vrun *r, const char *msg, const char *path, const char *sector)
{
    size_t lp = strlen(path);
    const char *rest = !strncmp(msg, path, lp) && !strncmp(msg + lp, ": ", 2) ? msg + lp + 2 : msg;
    const char *u = strchr(sector, '_'); /* "std_3_3_0_0" -> "3_3_0_0", as the readers name it */
    char line[1024];
    snprintf(line, sizeof line, "%s: sector %s: %s%s", path, u ? u + 1 : sector,
             strncmp(rest, "offset ", 7) ? "offset 0: " : "", rest);
    ma_vr_add_error(r, line);
}

int ma_vr_hash_inputs(ma_vrun *r, ma_error *err)
{
    r->phase = "hash";
    size_t n_db = ma_database_count(r->db), n_need = 0;
    size_t *need_sha = calloc(n_db + 1, sizeof *need_sha);
    if (!need_sha)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    int irc = inventory_files(r, need_sha, &n_need, err);
    if (irc) {
        free(need_sha);
        return irc;
    }
    const char **paths = calloc(r->n_nodes + n_need + 4, sizeof *paths);
    int *which = calloc(r->n_nodes + n_need + 4, sizeof *which);
    if (!paths || !which) {
        free(paths);
        free(which);
        free(need_sha);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < r->n_nodes; i++)
        if (r->nodes[i].dbs && r->nodes[i].last_use >= 0) {
            which[n] = (int)i;
            paths[n++] = r->nodes[i].dbs->path;
        }
    /* inventory files the run does not read but must hash: which = -10 - k, k into need_sha */
    for (size_t k = 0; k < n_need; k++) {
        const ma_inventory_file *f = &r->inv.files[need_sha[k]];
        const ma_db_sector *s = NULL;
        for (size_t i = 0; i < n_db && !s; i++)
            if (!strcmp(ma_database_sector(r->db, i)->name, f->sector))
                s = ma_database_sector(r->db, i);
        int read = 0;
        for (size_t i = 0; i < n && !read; i++)
            read = s && !strcmp(paths[i], s->path);
        if (s && !read) {
            which[n] = -10 - (int)k;
            paths[n++] = s->path;
        }
    }
    ma_file_digest *d = calloc(n ? n : 1, sizeof *d);
    int *rcs = calloc(n ? n : 1, sizeof *rcs);
    ma_error *errs = calloc(n ? n : 1, sizeof *errs);
    int rc = d && rcs && errs ? MA_OK : ma_error_set(err, MA_ENOMEM, "out of memory");
    if (rc == MA_OK && n) {
        ma_sha256_options o = {0};
        o.threads = (unsigned)r->opt.threads;
        if (r->opt.progress)
            ma_progress_set_label(r->opt.progress, "hashing the files read");
        int hrc = ma_sha256_files(d, rcs, errs, paths, n, &o, err);
        if (hrc == MA_ENOMEM || hrc == MA_EINTERNAL)
            rc = hrc;
    }
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        /* "!" for a file that is there but could not be read: never equal to a digest, and never
         * to the "" of an absent file */
        char hex[65] = "!";
        if (rcs[i] == MA_OK)
            ma_sha256_hex(hex, d[i].digest);
        else
            hash_error(r, errs[i].msg, paths[i],
                       which[i] >= 0 ? r->nodes[which[i]].dbs->name
                                     : r->inv.files[need_sha[-10 - which[i]]].sector);
        if (which[i] <= -10) {
            /* only for the inventory: hashed, never read by this run, so not in its manifest */
            snprintf(r->inv.files[need_sha[-10 - which[i]]].digest, sizeof r->inv.files[0].digest, "sha256:%s", hex);
            continue;
        }
        snprintf(r->nodes[which[i]].sha256, sizeof r->nodes[which[i]].sha256, "%s", hex);
        for (size_t k = 0; k < n_need; k++) /* a file read and in need of its SHA-256: the same one */
            if (!strcmp(r->inv.files[need_sha[k]].name, ma_path_base(paths[i])))
                snprintf(r->inv.files[need_sha[k]].digest, sizeof r->inv.files[0].digest, "sha256:%s", hex);
        if (rcs[i] == MA_OK && r->audit) {
            const char *slash = strrchr(paths[i], '/');
            ma_error e;
            if (ma_manifest_record_digests(r->audit, r->run_id, ma_database_dir(r->db),
                                           slash ? slash + 1 : paths[i], &d[i], &e))
                ma_vr_record_failure(r, &e);
        }
    }
    for (size_t i = 0; d && i < n; i++)
        ma_file_digest_free(&d[i]);
    free(d);
    free(rcs);
    free(errs);
    free(paths);
    free(which);
    free(need_sha);
    if (rc == MA_OK)
        rc = hash_secvals(r, err);
    if (rc)
        return rc;
    /* a run whose inventory could not be digested stops: a record without its digests would be
     * refused only later, by runs merge, after this run said "verified" */
    if (ma_inventory_seal(&r->inv))
        return ma_error_set(err, MA_ENOMEM, "inventory: out of memory");
    if (r->audit) {
        ma_error e;
        if (ma_audit_inventory_write(r->audit, r->run_id, &r->inv, 0, &e))
            ma_vr_record_failure(r, &e);
    }
    return sector_inputs(r, err);
}
