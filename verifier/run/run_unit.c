/* verifier/run/run_unit: phases check and classify of a verify run, one unit at a time
 * (docs/runs.md "Phases"). Each sector of the unit not carried over has its file and its
 * successors' files opened (several at once), is checked by the sector unit
 * (verifier/run/run_sector.h), and keeps its discrepancy set; then the files the unit read are
 * hashed again (run_snapshot.c), every discrepancy is classified root or propagated against the
 * successors' sets, the rows and the derived-value digest are made, and the unit is committed
 * (run_record.c). */
#include "verifier/run/run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "verifier/check/walk.h"
#include "verifier/run/shard.h"

size_t ma_vr_unit_files(const ma_vrun *r, size_t first, size_t last, int to_check, int *which)
{
    size_t m = 0;
    for (size_t p = first; p < last; p++) {
        int idx = r->order[p];
        const node *sn = &r->nodes[idx];
        if (to_check && (sn->done || ma_vr_status_damaged(sn->pub.status)))
            continue;
        for (int k = -1; k < MA_TURN_KINDS; k++) {
            int c = k < 0 ? idx : sn->succ[k];
            int seen = c < 0 || !r->nodes[c].dbs;
            for (size_t q = 0; q < m && !seen; q++)
                seen = which[q] == c;
            if (!seen)
                which[m++] = c;
        }
    }
    return m;
}

int ma_vr_unit_private(const ma_vrun *r, size_t first, size_t last, int to_check, int *which, size_t *m)
{
    *m = ma_vr_unit_files(r, first, last, to_check, which);
    uint64_t total = 0;
    for (size_t k = 0; k < *m; k++)
        total += ma_shard_file_bytes(r->nodes[which[k]].dbs);
    /* the walk's copy budget, so that no unit holds more than a check within it would copy */
    uint64_t budget = r->hooks.lower_private_budget ? r->hooks.private_budget : r->resident_budget;
    return total <= budget;
}

/* The bytes hashed are the bytes checked, by construction (docs/runs.md): when the files the
 * unit's checks read total at most the run's resident_budget (whatever their size below it: a unit
 * under one 2 MiB page too), each is read once into private memory, hashed as it is read, and
 * every check, the snapshot and the rows read those bytes. A file a previous unit left mapped is
 * released and read again. Over the budget (or without memory for the list) the files are
 * mapped, and hashed again after the check (run_snapshot.c). */
static void read_unit_privately(ma_vrun *r, size_t first, size_t last)
{
    int *which = malloc((last - first) * (1 + MA_TURN_KINDS) * sizeof *which);
    if (!which)
        return;
    size_t m;
    int priv = ma_vr_unit_private(r, first, last, 1, which, &m);
    for (size_t k = 0; priv && k < m; k++) {
        node *nd = &r->nodes[which[k]];
        nd->read_private = 1;
        ma_database_release(r->db, nd->pub.variant, nd->pub.sector); /* mapped by an earlier unit */
        ma_database_read_privately(r->db, nd->pub.variant, nd->pub.sector, 1);
    }
    free(which);
}

void ma_vr_unit_release(ma_vrun *r, size_t first)
{
    int unit = r->unit_of_pos[first];
    for (size_t i = 0; i < r->n_nodes; i++) {
        node *nd = &r->nodes[i];
        if (nd->last_use == unit || nd->read_private)
            ma_database_release(r->db, nd->pub.variant, nd->pub.sector);
        if (nd->read_private)
            ma_database_read_privately(r->db, nd->pub.variant, nd->pub.sector, 0);
        nd->read_private = 0;
    }
}

/* Opens node i's file and its successors' (those present, hashed, audited or read privately, and
 * not open) several at once: each open reads its whole file, in time the check's other threads
 * would wait. node_source then takes them from the database's cache. */
static void open_node_sources(ma_vrun *r, int i)
{
    ma_variant v[1 + MA_TURN_KINDS];
    ma_sector s[1 + MA_TURN_KINDS];
    size_t n = 0;
    for (int k = -1; k < MA_TURN_KINDS; k++) {
        int c = k < 0 ? i : r->nodes[i].succ[k];
        if (c < 0)
            continue;
        const node *nd = &r->nodes[c];
        /* hashed first: the bytes the reader checks at open are the ones hashed (a private read
         * hashes them itself); one open already is left alone by ma_database_open_sources */
        if (nd->dbs && (r->audit || nd->hashed || nd->read_private)) {
            v[n] = nd->pub.variant;
            s[n++] = nd->pub.sector;
        }
    }
    ma_database_open_sources(r->db, v, s, n, r->opt.threads > 0 ? (unsigned)r->opt.threads : 1);
}

/* The opened source of node i, or NULL (absent or unusable: the reason is recorded once; or out of
 * memory: *stop and err say so, and the run stops, the file not blamed). */
static const ma_source *node_source(ma_vrun *r, int i, int *present, int *stop, ma_error *err)
{
    node *nd = &r->nodes[i];
    *present = nd->dbs != NULL;
    if (!nd->dbs)
        return NULL;
    /* Once only, before the first open: a retry after a failed hash would take its digest after
     * the reader's checks at open, the very order ma_vr_hash_before_open exists to avoid. */
    if (!r->audit && !nd->hashed && !nd->opened && !nd->read_private)
        ma_vr_hash_before_open(r, &i, 1);
    nd->opened = 1;
    const ma_source *src;
    ma_error e;
    if (ma_database_source(r->db, nd->pub.variant, nd->pub.sector, &src, &e)) {
        /* a signal that stopped a private read stops the run (the unit is not checked) */
        if (e.code == MA_ENOMEM || e.code == MA_EINTERNAL || e.code == MA_ECANCELED) {
            *stop = e.code;
            *err = e;
        } else {
            ma_vr_add_error(r, e.msg);
        }
        return NULL;
    }
    /* Without a store, the digest of the first read of the file in this run is the one every
     * later read of it must have (a later unit's private read, a mapping's re-hash). */
    const char *read_sha = ma_source_private_sha256(src);
    if (read_sha && !r->audit && !nd->hashed) {
        snprintf(nd->mapped_sha, sizeof nd->mapped_sha, "%s", read_sha);
        nd->hashed = 1;
    }
    if (r->hooks.on_step)
        r->hooks.on_step(r->hooks.step_ctx, "opened", nd->pub.name);
    return src;
}

static int check_node(ma_vrun *r, int i, ma_rs_result *res, ma_rs_input *in, ma_error *err)
{
    node *nd = &r->nodes[i];
    memset(res, 0, sizeof *res);
    memset(in, 0, sizeof *in);
    res->out = &nd->pub;
    if (!r->audit)
        ma_vr_hash_node_before_open(r, i);
    open_node_sources(r, i);
    int present, stop = MA_OK;
    const ma_source *src = node_source(r, i, &present, &stop, err);
    if (stop)
        return stop;
    if (!src) {
        nd->pub.status = MA_SECTOR_UNUSABLE;
        if (!present) {
            char shown[1100];
            ma_escape_name(nd->pub.path, shown, sizeof shown);
            snprintf(nd->pub.message, sizeof nd->pub.message,
                     "%.900s: sector %s: sector file absent", shown, nd->pub.name);
            ma_vr_add_error(r, nd->pub.message);
        } else {
            /* the reader's message, already among the errors */
            const ma_db_unusable *u = NULL;
            for (size_t k = ma_database_unusable_count(r->db); k-- > 0;)
                if (!strcmp(ma_database_unusable(r->db, k)->path, nd->dbs->path)) {
                    u = ma_database_unusable(r->db, k);
                    break;
                }
            snprintf(nd->pub.message, sizeof nd->pub.message, "%s", u ? u->message : "unusable");
        }
        return MA_OK;
    }
    in->db = r->db;
    in->src = src;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        int c = nd->succ[k];
        if (c < 0)
            continue;
        in->child_path[k] = r->nodes[c].pub.path;
        if (c == i) {
            in->child_present[k] = 1;
            continue; /* the checkers read a self-loop from the sector's own file */
        }
        in->child[k] = node_source(r, c, &in->child_present[k], &stop, err);
        if (stop)
            return stop;
    }
    in->threads = r->opt.threads;
    in->full_board_draw = r->opt.full_board_draw;
    in->progress = r->opt.progress;
    in->cancel = r->opt.cancel;
    in->resident_budget = r->resident_budget;
    if (r->opt.progress) {
        char label[96];
        snprintf(label, sizeof label, "verify %s", nd->pub.name);
        ma_progress_set_label(r->opt.progress, label);
    }
    return ma_rs_check(res, in, err);
}

int ma_vr_run_unit(ma_vrun *r, size_t first, size_t last, ma_error *err)
{
    size_t n = last - first;
    ma_rs_result *res = calloc(n, sizeof *res);
    ma_rs_input *in = calloc(n, sizeof *in);
    int *members = calloc(n, sizeof *members);
    int *checked = calloc(n, sizeof *checked);
    if (!res || !in || !members || !checked) {
        free(res);
        free(in);
        free(members);
        free(checked);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    int rc = MA_OK;
    size_t n_checked = 0;
    r->phase = "check";
    read_unit_privately(r, first, last);
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        int idx = r->order[first + i];
        if (r->nodes[idx].done)
            continue; /* carried over */
        if (ma_vr_integrity_precheck(r, idx))
            continue; /* its file or one it reads is damaged: not checked (run_integrity.c) */
        rc = check_node(r, idx, &res[i], &in[i], err);
        if (rc == MA_OK && r->nodes[idx].pub.status != MA_SECTOR_UNUSABLE) {
            checked[i] = 1;
            node *nd = &r->nodes[idx];
            nd->set = res[i].entries; /* the discrepancy set now belongs to the node */
            nd->n_set = res[i].n_items;
            res[i].entries = NULL;
            nd->done = 1;
            if (nd->pub.message[0] &&
                (nd->pub.status == MA_SECTOR_INCOMPLETE || nd->pub.body_digest == 0 ||
                 (nd->pub.status == MA_SECTOR_WITHIN_BOUNDS && !r->opt.allow_bounds)))
                ma_vr_add_error(r, nd->pub.message);
        }
        if (rc == MA_OK && r->hooks.on_step)
            r->hooks.on_step(r->hooks.step_ctx, "checked", r->nodes[idx].pub.name);
    }
    if (rc == MA_OK)
        rc = ma_vr_snapshot_check(r, first, n, checked, res, err);
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        int idx = r->order[first + i];
        int got = checked[i] ? ma_vr_integrity_after_check(r, idx, err) : 0;
        if (got < 0)
            rc = err->code;
        if (got > 0)
            ma_vr_forget_check(r, idx, &checked[i], &res[i]);
        /* a twin checked before its twin's file was found damaged read that file */
        if (checked[i] && ma_vr_integrity_precheck(r, idx))
            ma_vr_forget_check(r, idx, &checked[i], &res[i]);
    }
    r->phase = "classify";
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        if (!checked[i])
            continue;
        node *nd = &r->nodes[r->order[first + i]];
        ma_entry_set sets[MA_TURN_KINDS];
        const ma_entry_set *child[MA_TURN_KINDS] = {NULL, NULL, NULL, NULL};
        for (int k = 0; k < MA_TURN_KINDS; k++) {
            int c = nd->succ[k];
            if (c >= 0 && r->nodes[c].done) {
                sets[k] = (ma_entry_set){r->nodes[c].set, r->nodes[c].n_set};
                child[k] = &sets[k];
            }
        }
        res[i].entries = nd->set; /* the own set, borrowed back for self-loops */
        rc = ma_rs_classify(&res[i], &in[i], child, err);
        res[i].entries = NULL;
        if (rc == MA_OK)
            rc = ma_vr_record_fixed(nd, &res[i], err);
        /* A shard does not know the discrepancy sets of successor sectors another shard checks: a
         * merge may turn some of its roots into propagated ones. Keeping the first max_rows of
         * each kind lets the merge pick the rows a single run would keep (docs/distributed.md). */
        int local = 0;
        for (int k = 0; k < MA_TURN_KINDS; k++) {
            int c = nd->succ[k];
            local |= r->opt.shard_count > 1 && c >= 0 && !r->nodes[c].done && r->nodes[c].dbs;
        }
        size_t m = r->opt.max_rows;
        if (rc == MA_OK && local && nd->pub.roots) {
            rc = ma_rs_rows_split(&res[i], &in[i], 2 * m, m, m, err);
            nd->n_stored_rows = nd->pub.n_rows;
            if (nd->pub.n_rows > m)
                nd->pub.n_rows = m; /* what the run itself reports: its first max_rows */
        } else if (rc == MA_OK) {
            rc = ma_rs_rows(&res[i], &in[i], m, err);
        }
        if (rc == MA_OK && r->audit && !nd->pub.missing_child && !nd->pub.unverifiable &&
            !nd->pub.within_bounds)
            rc = ma_rs_digest(&res[i], &in[i], err);
        if (rc == MA_OK)
            members[n_checked++] = r->order[first + i];
    }
    for (size_t i = 0; i < n; i++) {
        int idx = r->order[first + i];
        if (!checked[i] && !r->nodes[idx].done && rc == MA_OK)
            members[n_checked++] = idx; /* unusable sectors are recorded too */
        ma_rs_result_free(&res[i]);
    }
    r->phase = "record";
    if (rc == MA_OK && r->audit && n_checked && !r->record_failed) {
        ma_error e;
        if (ma_vr_commit_unit(r, members, n_checked, &e))
            ma_vr_record_failure(r, &e);
    }
    for (size_t i = 0; rc == MA_OK && r->opt.on_sector && i < n; i++)
        r->opt.on_sector(r->opt.on_sector_ctx, &r->nodes[r->order[first + i]].pub);
    free(res);
    free(in);
    free(members);
    free(checked);
    return rc;
}

void ma_vr_forget_check(ma_vrun *r, size_t idx, int *checked, ma_rs_result *res)
{
    node *nd = &r->nodes[idx];
    free(nd->set);
    nd->set = NULL;
    nd->n_set = 0;
    nd->done = 0;
    *checked = 0;
    ma_rs_result_free(res);
    memset(res, 0, sizeof *res);
}
