/*
 * verifier/run/run_internal: the state one verify run (verifier/run/run.h) shares between the files
 * that hold its phases, and the functions each phase offers the others. One file per part, in the
 * order a run goes through them (docs/runs.md "Phases"):
 *
 *   run.c           the handle: create, the phases in order (ma_vrun_execute), free, accessors; the
 *                   run's error list and the names of discrepancy classes and sector statuses;
 *   run_integrity.c integrity: every file against what was published, before any value is read;
 *                   the sectors whose file, or a file they read, is damaged are not checked;
 *   run_plan.c      plan: the sectors selected, their successor sectors, units children first, the
 *                   plan the coverage proof records;
 *   run_hash.c      hash: the run's manifest, the inventory of every file and each sector's inputs;
 *   run_carry.c     carry: results of an earlier run whose inputs hash as recorded;
 *   run_unit.c      check and classify: one unit of sectors, from opening their files to their rows;
 *   run_snapshot.c  the bytes hashed are the bytes checked: the hash before a file's first open
 *                   (runs without a store) and the re-hash of every file a unit read;
 *   run_record.c    record: the run's start in the store and each unit's commit;
 *   run_finish.c    finish: sectors never reached, totals, the verdict and the run's end.
 *
 * Internal to those files: nothing else includes this header.
 */
#ifndef MA_VERIFIER_RUN_INTERNAL_H
#define MA_VERIFIER_RUN_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "reports/store/audit.h"
#include "verifier/run/integrity.h"
#include "verifier/run/inventory.h"
#include "verifier/run/run.h"
#include "verifier/run/run_sector.h"

/* A sector the run knows: one to check, or the successor of one. */
typedef struct node {
    ma_vrun_sector pub;
    const ma_db_sector *dbs;      /* NULL: the database has no such file */
    int selected;
    int succ[MA_TURN_KINDS];      /* node of each turn kind's successor sector, -1 none */
    int unit;                     /* selected nodes: their unit */
    int last_use;                 /* the last unit that reads this node's file */
    int done;                     /* checked or carried over in this run: set is valid */
    uint64_t *set;                /* every discrepancy entry, sorted */
    size_t n_set;
    uint64_t *fixed;              /* the entries of set that are roots by rule (to record) */
    size_t n_fixed;
    size_t n_stored_rows;         /* rows to record: pub.n_rows, or more for a shard run whose
                                   * classification a merge may change (docs/distributed.md) */
    char sha256[65];              /* when hashed; "" if absent */
    uint64_t planned_entries;     /* selected nodes: entries of the file, as planned */
    char mapped_sha[65];          /* runs without a store: the digest of the file before it was
                                   * first opened (hash_before_open; "" while not opened, or when
                                   * the path could not be hashed) */
    int opened;                   /* node_source got it from the reader once */
    int hashed;                   /* hash_before_open (alone or with a unit's other files) ran for it,
                                   * whatever it found, and never runs again */
    int read_private;             /* the current unit reads this node's file privately
                                   * (run_unit.c: ma_database_read_privately) */
    int seen_unit;                /* the last unit whose snapshot check hashed this node, -1 none */
    int changed;                  /* that check found its mapping differs from the digest expected */
    char changed_msg[1024];
    int t_index, t_low, t_on;     /* Tarjan */
} node;

struct ma_vrun {
    ma_vrun_options opt;          /* as given, with the defaults filled in */
    ma_vrun_test_hooks hooks;     /* test builds only (ma_vrun_set_test_hooks) */
    /* What a unit may hold in private memory and copies: ma_check_resident_budget of the memory
     * available when the run was created (ma_vrun_create); MA_WALK_RESIDENT_BUDGET in a plan's run
     * (run_peak.c), which plans for a host with room for it wherever it is computed. */
    uint64_t resident_budget;
    int executed;                 /* ma_vrun_execute ran: a run does its work once */
    const char *phase;
    ma_database *db;
    char root[PATH_MAX + 1];      /* realpath of the root, as recorded */
    node *nodes;
    size_t n_nodes, cap_nodes;
    int *order;                   /* selected nodes, children first */
    size_t n_order;
    int *unit_of_pos;             /* unit index of order[i] */
    size_t n_units;
    char secval_sha[4][65];       /* per variant; "" absent */
    int whole;                    /* every sector of the database selected */
    ma_vrun_totals totals;
    char **errors;
    size_t n_errors;
    ma_audit *audit;
    int64_t run_id, resumed_from;
    int record_failed;
    ma_verdict_state verdict;
    int started;
    double t0, seconds;
    char options[192];
    char *selection;              /* "all" or "sectors:" and the selected names (docs/runs.md) */
    uint64_t planned_entries;
    int t_counter;
    int *t_stack;
    size_t t_sp;
    ma_inventory inv;             /* what the run was planned from (recorded runs, docs/runs.md) */
    ma_integrity integ;           /* what the integrity phase found (run_integrity.c) */
    size_t integ_recorded;        /* damaged files recorded in the store so far */
    size_t n_domain;              /* sectors the plan partitioned (the whole database or the picks) */
};

/* ---- run.c ---- */

/* Adds a line to the run's errors, once however many sectors meet it. */
void ma_vr_add_error(ma_vrun *r, const char *msg);
/* Records a failure to write the store: the run goes on, the exit status will say 4. */
void ma_vr_record_failure(ma_vrun *r, const ma_error *e);
/* The class (ma_disc_class) and sector status a store's name stands for; -1 and
 * MA_SECTOR_UNUSABLE for a name not known. */
int ma_vr_disc_class_parse(const char *name);
int ma_vr_sector_status_parse(const char *s);

/* ---- run_integrity.c ---- */

/* Phase integrity: every file judged (verifier/run/integrity.h) into r->integ. Errors: the
 * reference is missing or unusable (MA_EMISSING / MA_EFORMAT), MA_ECANCELED, MA_ENOMEM. */
int ma_vr_integrity(ma_vrun *r, ma_error *err);
/* After the plan: every selected sector whose file, or a file it reads, is damaged is marked
 * (MA_SECTOR_DAMAGED / MA_SECTOR_INPUT_DAMAGED); without a store, the judged digests become the
 * digests the read snapshot expects. */
void ma_vr_integrity_mark(ma_vrun *r);
/* After the hash phase (runs with a store): a file whose digest changed since it was judged is
 * expected to hash as judged, so the sectors that read it are withdrawn. */
void ma_vr_integrity_bind(ma_vrun *r);
/* Marks node i as ma_vr_integrity_mark does, from the damaged list as it stands now; 1 if it is. */
int ma_vr_integrity_precheck(ma_vrun *r, int i);
/* After node i's check: a body its check found not matching its digest makes the file damaged
 * and the sector "damaged" (its result dropped). 1 if so, 0 if not, -1 out of memory. */
int ma_vr_integrity_after_check(ma_vrun *r, int i, ma_error *err);
/* Counts the damaged and input-damaged sectors of the run into r->integ.pub. */
void ma_vr_integrity_count(ma_vrun *r);
/* Records r->integ in the store (runs with a store, once begun): at the start and again at the end,
 * with what the check found. A failure makes the record incomplete. */
void ma_vr_integrity_record(ma_vrun *r);
/* MA_SECTOR_DAMAGED or MA_SECTOR_INPUT_DAMAGED. */
int ma_vr_status_damaged(int status);

/* ---- run_plan.c ---- */

/* Phase plan: the nodes, the selection, the units children first (r->order, r->unit_of_pos), the
 * plan of the inventory and what the run sets out to check. MA_EINVAL for a --sector that names
 * no valid sector. */
int ma_vr_plan(ma_vrun *r, ma_error *err);
/* The entries a node's sector holds as planned (ma_format_planned_entries: from an open file's
 * size, or Malom's index; 0 for an open file that is absent). */
uint64_t ma_vr_entries_estimate(const node *nd, ma_format f);

/* ---- run_hash.c ---- */

/* Phase hash (runs with a store): every file the run reads and every sector file of the
 * inventory hashed once, recorded as the run's manifest and inventory; each selected sector's
 * inputs. */
int ma_vr_hash_inputs(ma_vrun *r, ma_error *err);

/* ---- run_carry.c ---- */

/* Phase carry (--resume, --incremental): the sectors whose inputs hash as recorded with an
 * earlier result take that result (marked done). */
int ma_vr_carry(ma_vrun *r, ma_error *err);

/* ---- run_unit.c ---- */

/* Checks, classifies and records the unit of the sectors order[first..last), skipping those
 * carried over; reports each sector through opt.on_sector. */
int ma_vr_run_unit(ma_vrun *r, size_t first, size_t last, ma_error *err);

/* The files the sectors order[first..last) read, each once: their own and their successors'
 * (present ones), into which[] (room for (last - first) * (1 + MA_TURN_KINDS)). With to_check,
 * only the sectors the unit will check (not carried over, not damaged). Returns their number. */
size_t ma_vr_unit_files(const ma_vrun *r, size_t first, size_t last, int to_check, int *which);
/* Non-zero when the unit's files (ma_vr_unit_files, into which[] and *m) total at most the
 * run's resident_budget (or the test build's lower budget, ma_vrun_test_hooks), from 0 bytes up:
 * then run_unit.c reads them privately, and the plan (run_peak.c) counts them so. The one rule
 * both follow; unlike the walk's copies (ma_walk_within_budget) it has no lower bound. */
int ma_vr_unit_private(const ma_vrun *r, size_t first, size_t last, int to_check, int *which, size_t *m);
/* After the unit whose sectors are order[first..last): releases every file no later unit reads
 * and every file the unit read privately (its memory is freed; a later unit reads it again). */
void ma_vr_unit_release(ma_vrun *r, size_t first);

/* ---- run_snapshot.c ---- */

/* Runs without a store: hashes the files of nodes which[0..n) from their paths, before they are
 * first opened (node->mapped_sha; node->hashed set whatever it found). */
void ma_vr_hash_before_open(ma_vrun *r, const int *which, size_t n);
/* ma_vr_hash_before_open for node i and its successors' nodes, those present and not yet hashed. */
void ma_vr_hash_node_before_open(ma_vrun *r, int i);
/* After the check of the unit's sectors order[first..first+n) (checked[i] set for those checked):
 * withdraws every sector one of whose files changed (see run_snapshot.c). Returns MA_OK, or
 * MA_ENOMEM when the files could not be hashed again (the sectors are withdrawn all the same). */
int ma_vr_snapshot_check(ma_vrun *r, size_t first, size_t n, int *checked, ma_rs_result *res, ma_error *err);
/* Forgets the check of node idx within its unit (run_unit.c): its discrepancy set, its done mark,
 * *checked and *res (freed and zeroed), so the unit's classify and record phases pass it over. */
void ma_vr_forget_check(ma_vrun *r, size_t idx, int *checked, ma_rs_result *res);

/* ---- run_record.c ---- */

/* Keeps the entries of res that are roots by rule in nd->fixed, for the record. */
int ma_vr_record_fixed(node *nd, const ma_rs_result *res, ma_error *err);
/* Commits the sectors of one unit (nodes members[0..n)) in one transaction. */
int ma_vr_commit_unit(ma_vrun *r, const int *members, size_t n, ma_error *err);
/* Opens the store and records the start of the run (with what the plan knows). */
int ma_vr_begin_record(ma_vrun *r, ma_error *err);

/* ---- run_finish.c ---- */

/* A shard run whose part of a non-empty plan is no sector (verified: its merge covers the plan). */
int ma_vr_empty_shard(const ma_vrun *r);
/* The end of a run whose command line held: sectors never reached become "not checked", the
 * totals, the verdict, the run's end in the store, its seconds. rc is the outcome of the phases;
 * returns the run's result (MA_OK for a recorded run whose root was unusable). */
int ma_vr_finish(ma_vrun *r, int rc);

#endif
