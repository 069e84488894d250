/* verifier/run/run_snapshot: the bytes hashed are the bytes checked (docs/runs.md). After a unit's
 * check the digest of every file its sectors read is compared with the digest the run expects of
 * it: the hash phase's, or, in a run without a store, the digest of the file's first read in the
 * run (taken from its path right before it was first opened, here too, or by its first private
 * read). A file read privately (run_unit.c) brings the digest taken as its bytes were read, the
 * very bytes the check read; a mapped one is hashed again from the very mapping the check read. A
 * sector one of whose files differs is withdrawn. */
#include "verifier/run/run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksums/sha256.h"
#include "common/fileio.h"

/* Without a store there is no hash phase: the file is hashed from its path before it is first
 * opened, so that the reader's own checks at open (the overflow table of a Malom file, the body
 * digest of an open one), the check and the snapshot after it (snapshot_node) all read bytes whose
 * change the snapshot sees. Hashing the mapping after the open would leave the open's checks on
 * bytes that may differ from the ones hashed and checked. When the path cannot be hashed (a read
 * error, a cancel) mapped_sha stays "": no digest of the mapping stands in for it, so the snapshot
 * check finds no match and withdraws every sector that read the file. */
void ma_vr_hash_before_open(ma_vrun *r, const int *which, size_t n)
{
    ma_sha256_options o;
    memset(&o, 0, sizeof o);
    o.threads = r->opt.threads > 0 ? (unsigned)r->opt.threads : 1;
    o.whole_only = 1;
    /* Each file's digest is one sequential stream: several files go one to a thread. */
    o.file_per_worker = n > 1;
    /* Without chunk digests the chunk size only sizes the read buffers (threads + 2 of them):
     * 1 MiB ones keep this hash from adding up to 64 MiB to the peak RSS of a verify. */
    o.chunk_size = 1u << 20;
    o.cancel = r->opt.cancel;
    ma_file_digest d[1 + MA_TURN_KINDS];
    int rcs[1 + MA_TURN_KINDS];
    ma_error errs[1 + MA_TURN_KINDS], e;
    const char *paths[1 + MA_TURN_KINDS] = {0};
    for (size_t k = 0; k < n; k++) {
        paths[k] = r->nodes[which[k]].dbs->path;
        r->nodes[which[k]].hashed = 1;
    }
    int rc = ma_sha256_files(d, rcs, errs, paths, n, &o, &e);
    int per_file = rc == MA_OK; /* else a file failed, or the pool did (then no file has a digest) */
    for (size_t k = 0; k < n; k++)
        per_file |= rcs[k] != MA_OK;
    for (size_t k = 0; per_file && k < n; k++) {
        if (rcs[k] != MA_OK)
            continue;
        ma_sha256_hex(r->nodes[which[k]].mapped_sha, d[k].digest);
        ma_file_digest_free(&d[k]);
    }
}

/* ma_vr_hash_before_open for node i and its successors' nodes, those present and not yet hashed, all
 * at once before the first of them is opened. */
void ma_vr_hash_node_before_open(ma_vrun *r, int i)
{
    int which[1 + MA_TURN_KINDS];
    size_t n = 0;
    for (int k = -1; k < MA_TURN_KINDS; k++) {
        int c = k < 0 ? i : r->nodes[i].succ[k];
        int seen = c < 0;
        for (size_t q = 0; q < n && !seen; q++)
            seen = which[q] == c;
        if (!seen && r->nodes[c].dbs && !r->nodes[c].hashed && !r->nodes[c].opened &&
            !r->nodes[c].read_private)
            which[n++] = c;
    }
    if (n)
        ma_vr_hash_before_open(r, which, n);
}

/* The digest a node's mapping must still have after a check read it: the hash phase's (recorded
 * as the sector inputs), or without a store the one taken before the file was first opened. */
static const char *expected_digest(const ma_vrun *r, const node *nd)
{
    return r->audit ? nd->sha256 : nd->mapped_sha;
}

/* Node m's file is withdrawn: `how` says what changed, in the message every sector that read it
 * gets (docs/runs.md, "Withdrawn"). */
static void changed_node(ma_vrun *r, int m, const char *how)
{
    node *nd = &r->nodes[m];
    nd->changed = 1;
    char shown[1100];
    ma_escape_name(nd->pub.path, shown, sizeof shown);
    snprintf(nd->changed_msg, sizeof nd->changed_msg,
             "%.600s: sector %.24s: offset 0: changed while being checked (%.200s): replaced or rewritten "
             "during the run; not verified, run again",
             shown, nd->pub.name, how);
    ma_vr_add_error(r, nd->changed_msg);
}

/* Compares node m's mapping's digest `now` with what is expected (see above), once per unit. */
static void snapshot_node(ma_vrun *r, int m, const char *now)
{
    r->nodes[m].changed = 0;
    const char *want = expected_digest(r, &r->nodes[m]);
    if (!strcmp(now, want))
        return;
    char how[128];
    snprintf(how, sizeof how, "SHA-256 %.12s... when hashed, %.12s... as read", want[0] ? want : "(none)", now);
    changed_node(r, m, how);
}

/* Node m's mapped file, whose mapping hashed as expected, is no longer the file mapped, unchanged
 * (ma_source_moved): written to during the check, even if written back before the digest above
 * was taken, which the digest cannot see. */
static void moved_node(ma_vrun *r, int m, const char *why)
{
    char how[200];
    snprintf(how, sizeof how, "%.100s since it was mapped, though its SHA-256 is again %.12s...", why,
             expected_digest(r, &r->nodes[m]));
    changed_node(r, m, how);
}

/* Node nd's mapping could not be hashed again (out of memory): it counts as changed, with a message
 * that blames memory, not the file. */
static void not_hashed(node *nd)
{
    nd->changed = 1;
    snprintf(nd->changed_msg, sizeof nd->changed_msg, "sector %s: not hashed again after the check: out of memory",
             nd->pub.name);
}

/* Hashes, once per unit, the mapping of every node the unit's checked sectors read (their own and
 * their successors'), several at once: each digest is one sequential stream. A node absent or
 * unusable was not read and is not compared. Without memory to hash, every such node counts as
 * changed (no sector of the unit is then verified on bytes not hashed again) and -1 says the run
 * must stop: the file is not blamed, memory is. The hashed mappings' pages are then dropped
 * (ma_source_drop_pages): a file a later unit reads again is not resident in between, so a run's
 * memory is its largest unit's, not the sum of the files still open. Returns 0 or -1. */
static int snapshot_unit(ma_vrun *r, size_t first, size_t n, const int *checked)
{
    int unit = r->unit_of_pos[first];
    size_t cap = n * (1 + MA_TURN_KINDS), m = 0;
    int *which = malloc(cap * sizeof *which);
    const void **data = calloc(cap, sizeof *data);
    size_t *len = calloc(cap, sizeof *len);
    uint8_t (*dg)[MA_SHA256_LEN] = malloc(cap * sizeof *dg);
    const ma_source **srcs = malloc(cap * sizeof *srcs);
    ma_error e;
    int ok = which && data && len && dg && srcs;
    for (size_t i = 0; i < n; i++) {
        if (!checked[i])
            continue;
        int idx = r->order[first + i];
        for (int k = -1; k < MA_TURN_KINDS; k++) {
            int c = k < 0 ? idx : r->nodes[idx].succ[k];
            if (c < 0 || r->nodes[c].seen_unit == unit)
                continue;
            node *nd = &r->nodes[c];
            nd->seen_unit = unit;
            nd->changed = 0;
            const ma_source *src;
            if (!nd->dbs || ma_database_source(r->db, nd->pub.variant, nd->pub.sector, &src, NULL))
                continue; /* absent or unusable: nothing was read from it */
            /* read privately: the digest taken as its bytes were read is theirs, and they are
             * all the check read; nothing to hash again, nothing to drop (freed after the unit) */
            const char *read_sha = ma_source_private_sha256(src);
            if (read_sha) {
                snapshot_node(r, c, read_sha);
                continue;
            }
            if (!ok) {
                not_hashed(nd);
                continue;
            }
            which[m] = c;
            srcs[m] = src;
            data[m] = ma_source_bytes(src, &len[m]);
            m++;
        }
    }
    if (ok && ma_sha256_buffers(dg, data, len, m, r->opt.threads > 0 ? (unsigned)r->opt.threads : 1,
                                &e) != MA_OK)
        ok = 0;
    for (size_t k = 0; k < m; k++) {
        char now[65], why[120];
        if (ok)
            ma_sha256_hex(now, dg[k]);
        if (ok)
            snapshot_node(r, which[k], now);
        else
            not_hashed(&r->nodes[which[k]]);
        /* after the digest: a write up to its end shows */
        if (ok && !r->nodes[which[k]].changed && ma_source_moved(srcs[k], why, sizeof why))
            moved_node(r, which[k], why);
        ma_source_drop_pages(srcs[k]);
    }
    free(srcs);
    free(which);
    free(data);
    free(len);
    free(dg);
    return ok ? 0 : -1;
}

/* The bytes hashed are the bytes checked: after the check of a unit, every file its sectors read
 * (their own and their successors') is hashed again from the mapping the check read. A sector one
 * of whose inputs differs from its expected digest is withdrawn: "unusable", its counts and
 * discrepancy set dropped, so it is never "verified" and never carried over (docs/runs.md).
 * Returns MA_OK, or MA_ENOMEM with err set when the files could not be hashed again (the unit's
 * sectors withdrawn all the same). */
int ma_vr_snapshot_check(ma_vrun *r, size_t first, size_t n, int *checked, ma_rs_result *res, ma_error *err)
{
    int oom = snapshot_unit(r, first, n, checked);
    for (size_t i = 0; i < n; i++) {
        if (!checked[i])
            continue;
        int idx = r->order[first + i];
        node *nd = &r->nodes[idx];
        const char *why = NULL;
        if (nd->changed)
            why = nd->changed_msg;
        for (int k = 0; k < MA_TURN_KINDS; k++) {
            int c = nd->succ[k];
            if (c < 0 || c == idx)
                continue;
            if (!why && r->nodes[c].changed)
                why = r->nodes[c].changed_msg;
        }
        if (!why)
            continue;
        ma_vrun_sector *p = &nd->pub;
        p->status = MA_SECTOR_UNUSABLE;
        p->entries = p->checked = p->canonical = p->markers = p->verified = 0;
        p->within_bounds = p->bound_wins = p->missing_child = p->unverifiable = 0;
        p->discrepancies = p->roots = p->propagated = 0;
        memset(p->by_class, 0, sizeof p->by_class);
        p->body_digest = -1;
        snprintf(p->message, sizeof p->message, "%s", why);
        ma_vr_forget_check(r, idx, &checked[i], &res[i]);
    }
    return oom ? ma_error_set(err, MA_ENOMEM, "out of memory hashing the files read again") : MA_OK;
}
