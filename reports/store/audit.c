/*
 * The SQLite audit store (reports/store/audit.h): schema creation and migration, and the writers.
 *
 * A store is recognised by PRAGMA application_id == MA_AUDIT_APPLICATION_ID and its schema version
 * by PRAGMA user_version. Migrations are an ordered table of SQL scripts; migration k turns a
 * version k-1 store into version k inside one transaction that also bumps user_version, so a store
 * is always at exactly one known version. Identification happens read-only before anything is
 * written, which is what keeps a foreign file byte-identical.
 */
#include "reports/store/audit.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "reports/store/audit_internal.h"
#include "reports/store/schema.h"

/* 'MAau': marks a SQLite file as a millaudit audit store. */
#define MA_AUDIT_APPLICATION_ID 0x4D416175

/* Migration k (1-based) creates schema version k from version k-1. Append only: a released
 * migration never changes, because stores in the field were built by it. */
static const char *const migrations[] = {
    /* v1: runs and verification results. */
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  kind TEXT NOT NULL,"
    "  tool_version TEXT NOT NULL,"
    "  git_revision TEXT NOT NULL,"
    "  host TEXT,"
    "  command_line TEXT,"
    "  database_root TEXT,"
    "  variant TEXT,"
    "  format TEXT,"
    "  started_at TEXT NOT NULL,"
    "  ended_at TEXT,"
    "  status TEXT"
    ");"
    "CREATE TABLE sector_results ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  sector TEXT NOT NULL,"
    "  file TEXT,"
    "  entries INTEGER NOT NULL,"
    "  checked INTEGER NOT NULL,"
    "  verified INTEGER NOT NULL,"
    "  within_bounds INTEGER NOT NULL,"
    "  discrepancies INTEGER NOT NULL,"
    "  seconds REAL NOT NULL,"
    "  status TEXT NOT NULL,"
    "  message TEXT,"
    "  PRIMARY KEY (run_id, sector)"
    ");"
    "CREATE TABLE sector_class_counts ("
    "  run_id INTEGER NOT NULL,"
    "  sector TEXT NOT NULL,"
    "  class TEXT NOT NULL,"
    "  count INTEGER NOT NULL,"
    "  PRIMARY KEY (run_id, sector, class),"
    "  FOREIGN KEY (run_id, sector) REFERENCES sector_results(run_id, sector) ON DELETE CASCADE"
    ");"
    "CREATE TABLE discrepancies ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  sector TEXT NOT NULL,"
    "  entry INTEGER NOT NULL,"
    "  board TEXT,"
    "  stored TEXT,"
    "  derived TEXT,"
    "  class TEXT NOT NULL"
    ");"
    "CREATE INDEX discrepancies_by_sector ON discrepancies(run_id, sector, entry);",
    /* v2: manifests (checksums/manifest.h): per-file and per-chunk SHA-256 digests and the
     * provenance the file itself states. */
    "CREATE TABLE manifests ("
    "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    "  manifest_path TEXT,"
    "  chunk_size INTEGER NOT NULL"
    ");"
    "CREATE TABLE manifest_files ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  path TEXT NOT NULL,"
    "  size INTEGER NOT NULL,"
    "  sha256 TEXT NOT NULL,"
    "  chunk_size INTEGER NOT NULL,"
    "  variant TEXT,"
    "  format TEXT,"
    "  sector TEXT,"
    "  producer TEXT,"
    "  producer_version TEXT,"
    "  entries INTEGER,"
    "  ruleset_fingerprint TEXT,"
    "  PRIMARY KEY (run_id, path)"
    ");"
    "CREATE INDEX manifest_files_by_digest ON manifest_files(sha256);"
    "CREATE TABLE manifest_chunks ("
    "  run_id INTEGER NOT NULL,"
    "  path TEXT NOT NULL,"
    "  chunk INTEGER NOT NULL,"
    "  offset INTEGER NOT NULL,"
    "  length INTEGER NOT NULL,"
    "  sha256 TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, path, chunk),"
    "  FOREIGN KEY (run_id, path) REFERENCES manifest_files(run_id, path) ON DELETE CASCADE"
    ");",
    /* v3: reproducibility (docs/reproducibility.md; writers in reports/store/runs.h): the derived-value
     * digest of each sector, outcome/depth histograms, and where an imported run came from. New
     * tables only (IF NOT EXISTS): no ALTER of a v1 table, so any v2 store migrates. */
    "CREATE TABLE IF NOT EXISTS sector_digests ("
    "  run_id INTEGER NOT NULL,"
    "  sector TEXT NOT NULL,"
    "  derived_sha256 TEXT NOT NULL,"
    "  derived_positions INTEGER NOT NULL,"
    "  PRIMARY KEY (run_id, sector),"
    "  FOREIGN KEY (run_id, sector) REFERENCES sector_results(run_id, sector) ON DELETE CASCADE"
    ");"
    "CREATE TABLE IF NOT EXISTS sector_histograms ("
    "  run_id INTEGER NOT NULL,"
    "  sector TEXT NOT NULL,"
    "  outcome TEXT NOT NULL,"
    "  depth INTEGER NOT NULL,"
    "  count INTEGER NOT NULL,"
    "  PRIMARY KEY (run_id, sector, outcome, depth),"
    "  FOREIGN KEY (run_id, sector) REFERENCES sector_results(run_id, sector) ON DELETE CASCADE"
    ");"
    "CREATE TABLE IF NOT EXISTS run_imports ("
    "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    "  source TEXT NOT NULL,"
    "  source_run_id INTEGER NOT NULL,"
    "  export_version INTEGER NOT NULL,"
    "  imported_at TEXT NOT NULL"
    ");",
    /* v4: the run engine (verifier/run/run.h, reports/store/audit_run.h): how a run was made (mode, the run
     * it resumes, the options that affect results), per sector whether the result was carried over
     * and the counts both checkers share, per row whether it is a root and what refutes the stored
     * value, the inputs each result was computed from, and every discrepancy's entry so later runs
     * can classify their parents. Columns added with ALTER are NULL in rows of older runs. */
    "ALTER TABLE runs ADD COLUMN mode TEXT;"
    "ALTER TABLE runs ADD COLUMN resumed_from INTEGER;"
    "ALTER TABLE runs ADD COLUMN options TEXT;"
    "CREATE INDEX IF NOT EXISTS runs_by_root ON runs(database_root, id);"
    "ALTER TABLE sector_results ADD COLUMN carried_from INTEGER;"
    "ALTER TABLE sector_results ADD COLUMN format TEXT;"
    "ALTER TABLE sector_results ADD COLUMN canonical INTEGER;"
    "ALTER TABLE sector_results ADD COLUMN markers INTEGER;"
    "ALTER TABLE sector_results ADD COLUMN roots INTEGER;"
    "ALTER TABLE sector_results ADD COLUMN propagated INTEGER;"
    "ALTER TABLE sector_results ADD COLUMN missing_child INTEGER;"
    "ALTER TABLE sector_results ADD COLUMN unverifiable INTEGER;"
    "ALTER TABLE sector_results ADD COLUMN bound_wins INTEGER;"
    "ALTER TABLE sector_results ADD COLUMN body_digest TEXT;"
    "ALTER TABLE discrepancies ADD COLUMN root INTEGER;"
    "ALTER TABLE discrepancies ADD COLUMN offset INTEGER;"
    "ALTER TABLE discrepancies ADD COLUMN move TEXT;"
    "ALTER TABLE discrepancies ADD COLUMN successor TEXT;"
    "ALTER TABLE discrepancies ADD COLUMN stored_outcome TEXT;"
    "ALTER TABLE discrepancies ADD COLUMN stored_depth INTEGER;"
    "ALTER TABLE discrepancies ADD COLUMN derived_outcome TEXT;"
    "ALTER TABLE discrepancies ADD COLUMN derived_depth INTEGER;"
    "ALTER TABLE discrepancies ADD COLUMN derived_bound TEXT;"
    "CREATE TABLE IF NOT EXISTS sector_inputs ("
    "  run_id INTEGER NOT NULL,"
    "  sector TEXT NOT NULL,"
    "  path TEXT NOT NULL,"
    "  sha256 TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, sector, path),"
    "  FOREIGN KEY (run_id, sector) REFERENCES sector_results(run_id, sector) ON DELETE CASCADE"
    ");"
    "CREATE TABLE IF NOT EXISTS sector_discrepancy_sets ("
    "  run_id INTEGER NOT NULL,"
    "  sector TEXT NOT NULL,"
    "  count INTEGER NOT NULL,"
    "  entries BLOB NOT NULL,"
    "  PRIMARY KEY (run_id, sector),"
    "  FOREIGN KEY (run_id, sector) REFERENCES sector_results(run_id, sector) ON DELETE CASCADE"
    ");",
    /* v5: game-level audits, opening results and graded moves (reports/store/audit_game.c). */
    ma_audit_game_migration_v5,
    /* v6: sharded runs and their merge (reports/store/audit_merge.c). */
    ma_audit_merge_migration_v6,
    /* v7: a verdict belongs to a run (reports/store/audit_run.h, docs/runs.md "Interruption and resume"):
     * an interrupted run keeps its status and names the run that continued it (continued_by)
     * instead of becoming 'resumed'; who is running a run (pid on host) and when it last committed
     * (heartbeat_at), so a live run is never claimed; the sector selection a resume must repeat;
     * the plan (every selected sector and its entries), so the sectors an interrupted run never
     * reached read as "not checked" and its totals count the whole plan. Runs marked 'resumed' by
     * older builds become what they were: interrupted, continued by the newest run resuming them. */
    "ALTER TABLE runs ADD COLUMN continued_by INTEGER;"
    "ALTER TABLE runs ADD COLUMN pid INTEGER;"
    "ALTER TABLE runs ADD COLUMN heartbeat_at TEXT;"
    "ALTER TABLE runs ADD COLUMN selection TEXT;"
    "ALTER TABLE runs ADD COLUMN planned_entries INTEGER;"
    "CREATE TABLE IF NOT EXISTS run_plan ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  sector TEXT NOT NULL,"
    "  file TEXT,"
    "  entries INTEGER NOT NULL,"
    "  PRIMARY KEY (run_id, sector)"
    ");"
    "UPDATE runs SET continued_by = (SELECT max(n.id) FROM runs n WHERE n.resumed_from = runs.id),"
    " status = 'interrupted' WHERE status = 'resumed';",
    /* v8: runs imported from signed attestations (reports/store/runs.c, docs/attestations.md): who signed
     * the run's results. A new table only, so any v7 store migrates. */
    "CREATE TABLE IF NOT EXISTS run_attestations ("
    "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    "  keyid TEXT NOT NULL,"
    "  identity TEXT,"
    "  envelope_sha256 TEXT NOT NULL"
    ");",
    /* v9: the coverage proof of a run, its inventory and plan (reports/store/audit_inventory.c). */
    ma_audit_inventory_migration_v9,
    /* v10: what a claim covers and who vouches for it: a run's scope, a shard run's seal
     * (reports/store/audit_seal.c). */
    ma_audit_seal_migration_v10,
    /* v11: a verify run's integrity phase, the damaged files (reports/store/audit_integrity.c). */
    ma_audit_integrity_migration_v11,
};
#define MA_AUDIT_SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

struct ma_audit {
    sqlite3 *db;          /* the connection */
    char *path;           /* for messages */
    int readonly;         /* opened with ma_audit_open_readonly */
    sqlite3_stmt *run_begin;
    sqlite3_stmt *run_end;
    sqlite3_stmt *sector_insert;
    sqlite3_stmt *class_insert;
    sqlite3_stmt *discrepancy_insert;
};

int ma_audit_schema_version(void)
{
    return MA_AUDIT_SCHEMA_VERSION;
}

sqlite3 *ma_audit_db(ma_audit *a)
{
    return a->db;
}

const char *ma_audit_path(const ma_audit *a)
{
    return a->path;
}

int ma_audit_sqlite_error(ma_audit *a, int code, const char *what, ma_error *err)
{
    return ma_error_set(err, code, "%s: %s: %s", a->path, what, sqlite3_errmsg(a->db));
}

static int exec(ma_audit *a, const char *sql, const char *what, ma_error *err)
{
    if (sqlite3_exec(a->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, what, err);
    return MA_OK;
}

int ma_audit_tx_begin(ma_audit *a, ma_error *err)
{
    /* IMMEDIATE takes the write lock up front, so a busy store fails here (after the busy
     * timeout) rather than halfway through a call. */
    return exec(a, "BEGIN IMMEDIATE", "begin transaction", err);
}

int ma_audit_tx_commit(ma_audit *a, ma_error *err)
{
    int rc = exec(a, "COMMIT", "commit", err);
    if (rc != MA_OK)
        ma_audit_tx_rollback(a);
    return rc;
}

void ma_audit_tx_rollback(ma_audit *a)
{
    if (!sqlite3_get_autocommit(a->db))
        sqlite3_exec(a->db, "ROLLBACK", NULL, NULL, NULL);
}

/* The error of a failed SQLite call on the store, classified: a file that only looks like SQLite
 * (NOTADB, CORRUPT) is malformed input; anything else (a full disk while SQLite creates its -shm
 * side file, a read error, a lock held too long) is the operating system refusing, and says so
 * with the OS's own words where SQLite recorded them. */
static int sqlite_failure(ma_audit *a, int rc, const char *what, ma_error *err)
{
    int primary = rc & 0xff;
    if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT)
        return ma_error_set(err, MA_EFORMAT, "%s: not a usable SQLite database (%s): %s", a->path, what,
                            sqlite3_errmsg(a->db));
    int os = sqlite3_system_errno(a->db);
    if (os)
        return ma_error_set(err, MA_EIO, "%s: %s: %s (%s)", a->path, what, sqlite3_errmsg(a->db), strerror(os));
    return ma_error_set(err, MA_EIO, "%s: %s: %s", a->path, what, sqlite3_errmsg(a->db));
}

static int query_int(ma_audit *a, const char *sql, int64_t *out, ma_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(a->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *out = sqlite3_column_int64(st, 0);
            rc = SQLITE_OK;
        }
    }
    if (rc != SQLITE_OK) {
        int code = sqlite_failure(a, rc, "cannot read the store", err);
        sqlite3_finalize(st);
        return code;
    }
    sqlite3_finalize(st);
    return MA_OK;
}

/* Checks what a file on disk is before SQLite sees it: a non-empty file must carry the SQLite
 * magic, and a new file needs a directory we can write into. *exists tells which case applies. */
static int precheck(const char *path, int readonly, int *exists, ma_error *err)
{
    struct stat st;
    *exists = 0;
    if (stat(path, &st) == 0) {
        *exists = 1;
        if (!S_ISREG(st.st_mode))
            return ma_error_set(err, MA_EFORMAT, "%s: not a regular file", path);
        if (st.st_size == 0) {
            /* SQLite treats an empty file as an empty database, so a writer may make a store of
             * it; a reader must not, and an empty file holds no run to read. */
            if (readonly)
                return ma_error_set(err, MA_EFORMAT, "%s: offset 0: empty file, not an audit store", path);
            return MA_OK;
        }
        FILE *f = fopen(path, "rb");
        if (!f)
            return ma_error_set(err, MA_EIO, "%s: cannot open: %s", path, strerror(errno));
        static const char magic[16] = "SQLite format 3";
        char head[16] = {0};
        size_t got = fread(head, 1, sizeof head, f);
        fclose(f);
        if (got != sizeof head || memcmp(head, magic, sizeof magic) != 0)
            return ma_error_set(err, MA_EFORMAT, "%s: offset 0: not a SQLite database (no SQLite header)",
                                path);
        if (!readonly && access(path, W_OK) != 0)
            return ma_error_set(err, MA_EIO, "%s: not writable: %s", path, strerror(errno));
        return MA_OK;
    }
    if (errno != ENOENT)
        return ma_error_set(err, MA_EIO, "%s: cannot access: %s", path, strerror(errno));
    if (readonly)
        return ma_error_set(err, MA_EMISSING, "%s: audit store does not exist", path);
    /* The directory must exist and be writable: SQLite's own message would not name the path. */
    char *dir = strdup(path);
    if (!dir)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    char *slash = strrchr(dir, '/');
    const char *d = ".";
    if (slash == dir)
        d = "/";
    else if (slash) {
        *slash = '\0';
        d = dir;
    }
    int rc = MA_OK;
    struct stat ds;
    if (stat(d, &ds) != 0)
        rc = ma_error_set(err, MA_EIO, "%s: directory %s: %s", path, d, strerror(errno));
    else if (!S_ISDIR(ds.st_mode))
        rc = ma_error_set(err, MA_EIO, "%s: %s is not a directory", path, d);
    else if (access(d, W_OK | X_OK) != 0)
        rc = ma_error_set(err, MA_EIO, "%s: directory %s not writable: %s", path, d, strerror(errno));
    free(dir);
    return rc;
}

/* Decides, reading only, whether the open database is ours and at which version. A database with
 * no schema objects and no identity is a fresh store (version 0, *fresh set). */
static int identify(ma_audit *a, int64_t *version, int *fresh, ma_error *err)
{
    int64_t app_id = 0, objects = 0;
    *fresh = 0;
    int rc = query_int(a, "PRAGMA application_id", &app_id, err);
    if (rc == MA_OK)
        rc = query_int(a, "PRAGMA user_version", version, err);
    if (rc == MA_OK)
        rc = query_int(a, "SELECT count(*) FROM sqlite_schema", &objects, err);
    if (rc != MA_OK)
        return rc;
    if (app_id == 0 && *version == 0 && objects == 0) {
        *fresh = 1;
        return MA_OK;
    }
    if (app_id != MA_AUDIT_APPLICATION_ID)
        return ma_error_set(err, MA_EFORMAT,
                            "%s: not a millaudit audit store (SQLite database with application_id %lld, "
                            "%lld schema objects)", a->path, (long long)app_id, (long long)objects);
    if (*version < 1)
        return ma_error_set(err, MA_EFORMAT, "%s: audit store has no schema version", a->path);
    if (*version > MA_AUDIT_SCHEMA_VERSION)
        return ma_error_set(err, MA_EFORMAT,
                            "%s: audit store schema version %lld is newer than this build knows (%d)",
                            a->path, (long long)*version, MA_AUDIT_SCHEMA_VERSION);
    return MA_OK;
}

/* Runs one migration script statement by statement. An ALTER TABLE ... ADD COLUMN of a column
 * that already exists is skipped: stores assembled by hand (or by tests) from newer tables must
 * still migrate, and the column they have is the one the migration would add. */
static int run_migration(ma_audit *a, const char *sql)
{
    const char *next = sql;
    while (next && *next) {
        sqlite3_stmt *st = NULL;
        const char *tail = NULL;
        if (sqlite3_prepare_v2(a->db, next, -1, &st, &tail) != SQLITE_OK) {
            if (strncmp(sqlite3_errmsg(a->db), "duplicate column name", 21) != 0)
                return SQLITE_ERROR;
            /* prepare fails before tail is set: skip to the statement's end ourselves */
            const char *semi = strchr(next, ';');
            next = semi ? semi + 1 : NULL;
            continue;
        }
        next = tail;
        if (!st)
            continue; /* whitespace or a comment */
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE && rc != SQLITE_ROW)
            return rc;
    }
    return SQLITE_OK;
}

/* Refuses a store whose pages are damaged, before the first write. PRAGMA quick_check reads every
 * page once and checks each b-tree's structure, cell contents and free list: O(file size), about
 * 1 s for a 550 MB store of 5 million discrepancy rows in the page cache (integrity_check, which
 * also cross-checks every index against its table, took 4.5 to 5.7 s on the same store). Anything
 * cheaper would skip pages, and a garbage page in a table the command does not touch is exactly
 * the case that must not be written into (docs/audit-schema.md, "Corrupt stores"). The argument 1
 * stops at the first problem, so a badly damaged store is refused quickly. */
static int check_intact(ma_audit *a, ma_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(a->db, "PRAGMA quick_check(1)", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int code = MA_OK;
    if (rc == SQLITE_ROW) {
        const char *verdict = (const char *)sqlite3_column_text(st, 0);
        if (!verdict || strcmp(verdict, "ok") != 0)
            code = ma_error_set(err, MA_EFORMAT,
                                "%s: corrupt audit store (PRAGMA quick_check: %s); refused, nothing written",
                                a->path, verdict ? verdict : "no verdict");
    } else {
        code = sqlite_failure(a, rc, "PRAGMA quick_check", err);
        if (code == MA_EFORMAT)
            code = ma_error_set(err, MA_EFORMAT, "%s: corrupt audit store (PRAGMA quick_check: %s); refused, "
                                "nothing written", a->path, sqlite3_errmsg(a->db));
    }
    sqlite3_finalize(st);
    return code;
}

/* A store of an older schema is read through a private copy migrated in memory or a temporary
 * file (SQLite's "" database), so a reader can read it without writing to it: the file itself is
 * never changed by a reader. */
static int snapshot(ma_audit *a, ma_error *err)
{
    sqlite3 *copy = NULL;
    if (sqlite3_open_v2("", &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        sqlite3_close(copy);
        return ma_error_set(err, MA_EIO, "%s: cannot open a temporary copy to read an older schema", a->path);
    }
    sqlite3_backup *b = sqlite3_backup_init(copy, "main", a->db, "main");
    int rc = b ? sqlite3_backup_step(b, -1) : sqlite3_errcode(copy);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        int code = sqlite_failure(a, rc, "copy an older schema for reading", err);
        sqlite3_close(copy);
        return code;
    }
    sqlite3_close(a->db);
    a->db = copy;
    sqlite3_extended_result_codes(a->db, 0);
    return MA_OK;
}

static int migrate(ma_audit *a, int64_t from, ma_error *err)
{
    for (int v = (int)from + 1; v <= MA_AUDIT_SCHEMA_VERSION; v++) {
        int rc = ma_audit_tx_begin(a, err);
        if (rc != MA_OK)
            return rc;
        /* Re-read inside the write lock: another process may have migrated meanwhile. */
        int64_t now = 0;
        rc = query_int(a, "PRAGMA user_version", &now, err);
        if (rc == MA_OK && now >= v) {
            ma_audit_tx_rollback(a);
            continue;
        }
        char pragmas[128];
        snprintf(pragmas, sizeof pragmas, "PRAGMA application_id=%d; PRAGMA user_version=%d;",
                 MA_AUDIT_APPLICATION_ID, v);
        int mrc = rc == MA_OK ? run_migration(a, migrations[v - 1]) : SQLITE_OK;
        /* SQLITE_ERROR: the migration's SQL does not fit the tables (a user_version edited
         * below the tables' schema, a table of that name already there): the store is not what
         * its version says, unusable input; anything else (full disk, I/O) an output failure. */
        if (mrc == SQLITE_ERROR)
            rc = ma_error_set(err, MA_EFORMAT,
                              "%s: audit store tables do not match its schema version %d (migration to "
                              "version %d: %s); refused", a->path, v - 1, v, sqlite3_errmsg(a->db));
        else if (mrc != SQLITE_OK)
            rc = ma_error_set(err, MA_EIO, "%s: migration to schema version %d: %s", a->path, v,
                              sqlite3_errmsg(a->db));
        if (rc == MA_OK)
            rc = exec(a, pragmas, "set schema version", err);
        if (rc != MA_OK) {
            ma_audit_tx_rollback(a);
            return rc;
        }
        rc = ma_audit_tx_commit(a, err);
        if (rc != MA_OK)
            return rc;
    }
    return MA_OK;
}

static int prepare(ma_audit *a, sqlite3_stmt **st, const char *sql, ma_error *err)
{
    if (sqlite3_prepare_v3(a->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EINTERNAL, "prepare statement", err);
    return MA_OK;
}

/* Opens path read-only as immutable (file: URI, every byte but unreserved ones and '/'
 * percent-encoded, ?immutable=1): SQLite then takes no lock and creates no side file. Right only
 * when no write-ahead log or journal holds data the file lacks. */
static int open_immutable(const char *path, sqlite3 **out)
{
    size_t n = strlen(path);
    char *uri = malloc(3 * n + 32);
    if (!uri)
        return MA_ENOMEM;
    char *o = uri + sprintf(uri, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
            *o++ = (char)*p;
        else
            o += sprintf(o, "%%%02X", *p);
    }
    strcpy(o, "?immutable=1");
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        sqlite3_close(db);
        return MA_EIO;
    }
    *out = db;
    return MA_OK;
}

/* Whether <path><suffix> exists and is not empty (an empty -wal holds nothing). */
static int side_file_holds_data(const char *path, const char *suffix)
{
    char name[PATH_MAX + 16];
    snprintf(name, sizeof name, "%s%s", path, suffix);
    struct stat st;
    return stat(name, &st) == 0 && st.st_size > 0;
}

/* Whether a side file exists at all: then a writer may be at work (a WAL writer keeps -wal and
 * -shm while it has the store open) and the store is read through SQLite's locks. */
static int side_files_exist(const char *path)
{
    static const char *const side[] = {"-wal", "-shm", "-journal"};
    for (int i = 0; i < 3; i++) {
        char name[PATH_MAX + 16];
        snprintf(name, sizeof name, "%s%s", path, side[i]);
        struct stat st;
        if (lstat(name, &st) == 0)
            return 1;
    }
    return 0;
}

/* A reader of a WAL store needs SQLite's -shm side file; on a full disk (or where it cannot be
 * set up) the first read fails with an I/O error although the store is healthy. When no write-ahead
 * log holds data (no -wal file, or an empty one), the store file alone is the whole database and
 * is read as immutable, which needs no side file. With a non-empty -wal the I/O error stands:
 * reading the file alone would miss committed rows. */
static int reopen_immutable(ma_audit *a)
{
    if (side_file_holds_data(a->path, "-wal"))
        return MA_EIO;
    sqlite3 *db = NULL;
    if (open_immutable(a->path, &db) != MA_OK)
        return MA_EIO;
    sqlite3_close(a->db);
    a->db = db;
    sqlite3_extended_result_codes(a->db, 0);
    return MA_OK;
}

static int open_common(ma_audit **out, const char *path, int readonly, ma_error *err)
{
    *out = NULL;
    if (!path || !*path)
        return ma_error_set(err, MA_EINVAL, "audit store: empty path");
    int exists = 0;
    int rc = precheck(path, readonly, &exists, err);
    if (rc != MA_OK)
        return rc;
    ma_audit *a = calloc(1, sizeof *a);
    if (!a || !(a->path = strdup(path))) {
        free(a);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    }
    a->readonly = readonly;
    int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (exists ? 0 : SQLITE_OPEN_CREATE);
    /* A reader of a store with no side file opens it immutable: a read-only open of a WAL store
     * would create -wal and -shm beside it (and leave them), also beside a store it then refuses.
     * No side file means no writer has it open and no log holds rows the file lacks. */
    if (readonly && !side_files_exist(path) && open_immutable(path, &a->db) == MA_OK) {
        /* opened */
    } else if (sqlite3_open_v2(path, &a->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        int os = a->db ? sqlite3_system_errno(a->db) : 0;
        rc = ma_error_set(err, MA_EIO, "%s: cannot open: %s%s%s%s", path,
                          a->db ? sqlite3_errmsg(a->db) : "out of memory", os ? " (" : "", os ? strerror(os) : "",
                          os ? ")" : "");
        ma_audit_close(a);
        return rc;
    }
    sqlite3_extended_result_codes(a->db, 0);
    sqlite3_busy_timeout(a->db, 10000);

    int64_t version = 0;
    int fresh = 0;
    rc = identify(a, &version, &fresh, err);
    if (rc == MA_EIO && readonly && reopen_immutable(a) == MA_OK)
        rc = identify(a, &version, &fresh, err);
    if (rc == MA_OK && readonly && version < MA_AUDIT_SCHEMA_VERSION) {
        rc = snapshot(a, err);
        if (rc == MA_OK)
            rc = migrate(a, version, err);
    }
    if (rc == MA_OK && !readonly && !fresh)
        rc = check_intact(a, err);
    if (rc == MA_OK)
        rc = exec(a, "PRAGMA foreign_keys=ON", "enable foreign keys", err);
    if (rc == MA_OK && !readonly) {
        /* Only now, with the file known to be ours and intact, or empty, may anything be written. */
        /* Migrations first, each one transaction that rolls back whole: a store whose tables do
         * not fit its version is refused byte for byte unchanged; only then the switch to WAL,
         * which rewrites the header. */
        int64_t dummy;
        rc = migrate(a, version, err);
        if (rc == MA_OK)
            rc = query_int(a, "PRAGMA journal_mode=WAL", &dummy, err);
        if (rc == MA_OK)
            rc = prepare(a, &a->run_begin,
                         "INSERT INTO runs (kind, tool_version, git_revision, host, command_line,"
                         " database_root, variant, format, started_at)"
                         " VALUES (?,?,?,?,?,?,?,?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))", err);
        if (rc == MA_OK)
            rc = prepare(a, &a->run_end,
                         "UPDATE runs SET ended_at = strftime('%Y-%m-%dT%H:%M:%fZ','now'), status = ?"
                         " WHERE id = ?", err);
        if (rc == MA_OK)
            rc = prepare(a, &a->sector_insert,
                         "INSERT INTO sector_results (run_id, sector, file, entries, checked, verified,"
                         " within_bounds, discrepancies, seconds, status, message)"
                         " VALUES (?,?,?,?,?,?,?,?,?,?,?)", err);
        if (rc == MA_OK)
            rc = prepare(a, &a->class_insert,
                         "INSERT INTO sector_class_counts (run_id, sector, class, count) VALUES (?,?,?,?)",
                         err);
        if (rc == MA_OK)
            rc = prepare(a, &a->discrepancy_insert,
                         "INSERT INTO discrepancies (run_id, sector, entry, board, stored, derived, class)"
                         " VALUES (?,?,?,?,?,?,?)", err);
    }
    if (rc != MA_OK) {
        ma_audit_close(a);
        return rc;
    }
    *out = a;
    return MA_OK;
}

int ma_audit_open(ma_audit **out, const char *path, ma_error *err)
{
    return open_common(out, path, 0, err);
}

int ma_audit_open_readonly(ma_audit **out, const char *path, ma_error *err)
{
    return open_common(out, path, 1, err);
}

void ma_audit_close(ma_audit *a) { ma_audit_free(a); }

void ma_audit_free(ma_audit *a)
{
    if (!a)
        return;
    sqlite3_finalize(a->run_begin);
    sqlite3_finalize(a->run_end);
    sqlite3_finalize(a->sector_insert);
    sqlite3_finalize(a->class_insert);
    sqlite3_finalize(a->discrepancy_insert);
    sqlite3_close(a->db);
    free(a->path);
    free(a);
}

int ma_audit_writable(ma_audit *a, ma_error *err)
{
    if (a->readonly)
        return ma_error_set(err, MA_EINVAL, "%s: audit store opened read-only", a->path);
    return MA_OK;
}

int ma_audit_bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

int ma_audit_bind_u64(ma_audit *a, sqlite3_stmt *st, int i, uint64_t v, const char *what, ma_error *err)
{
    /* SQLite integers are signed 64-bit; a count beyond that is a caller bug, not data. */
    if (v > (uint64_t)INT64_MAX)
        return ma_error_set(err, MA_EINVAL, "%s: %s %llu does not fit a SQLite integer", a->path, what,
                            (unsigned long long)v);
    sqlite3_bind_int64(st, i, (sqlite3_int64)v);
    return MA_OK;
}

int ma_sqlite_has_column(sqlite3 *db, const char *table, const char *column)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
    int yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

/* Runs a bound statement to completion and resets it for reuse. */
int ma_audit_step_done(ma_audit *a, sqlite3_stmt *st, const char *what, ma_error *err)
{
    int rc = sqlite3_step(st);
    int code = MA_OK;
    if (rc != SQLITE_DONE)
        code = ma_audit_sqlite_error(a, rc == SQLITE_CONSTRAINT ? MA_EINVAL : MA_EIO, what, err);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return code;
}

int ma_audit_run_begin(ma_audit *a, const ma_run_info *info, int64_t *run_id, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc != MA_OK)
        return rc;
    if (!info || !info->kind || !*info->kind)
        return ma_error_set(err, MA_EINVAL, "%s: run without a kind", a->path);
    sqlite3_stmt *st = a->run_begin;
    ma_audit_bind_text(st, 1, info->kind);
    ma_audit_bind_text(st, 2, info->tool_version ? info->tool_version : "unknown");
    ma_audit_bind_text(st, 3, info->git_revision ? info->git_revision : "unknown");
    ma_audit_bind_text(st, 4, info->host);
    ma_audit_bind_text(st, 5, info->command_line);
    ma_audit_bind_text(st, 6, info->database_root);
    ma_audit_bind_text(st, 7, info->variant);
    ma_audit_bind_text(st, 8, info->format);
    /* A single INSERT is its own transaction in autocommit mode. */
    rc = ma_audit_step_done(a, st, "record run start", err);
    if (rc == MA_OK)
        *run_id = sqlite3_last_insert_rowid(a->db);
    return rc;
}

int ma_audit_run_end(ma_audit *a, int64_t run_id, const char *status, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc != MA_OK)
        return rc;
    if (!status || !*status)
        return ma_error_set(err, MA_EINVAL, "%s: run %lld: end without a status", a->path, (long long)run_id);
    sqlite3_bind_text(a->run_end, 1, status, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(a->run_end, 2, run_id);
    rc = ma_audit_step_done(a, a->run_end, "record run end", err);
    if (rc == MA_OK && sqlite3_changes(a->db) != 1)
        rc = ma_error_set(err, MA_EINVAL, "%s: run %lld does not exist", a->path, (long long)run_id);
    return rc;
}

int ma_audit_sector_record(ma_audit *a, int64_t run_id, const ma_sector_result *r, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc != MA_OK)
        return rc;
    if (!r || !r->sector || !r->status || (r->n_classes && !r->classes))
        return ma_error_set(err, MA_EINVAL, "%s: run %lld: incomplete sector result", a->path,
                            (long long)run_id);
    rc = ma_audit_tx_begin(a, err);
    if (rc != MA_OK)
        return rc;
    sqlite3_stmt *st = a->sector_insert;
    sqlite3_bind_int64(st, 1, run_id);
    ma_audit_bind_text(st, 2, r->sector);
    ma_audit_bind_text(st, 3, r->file);
    if ((rc = ma_audit_bind_u64(a, st, 4, r->entries, "entries", err)) == MA_OK &&
        (rc = ma_audit_bind_u64(a, st, 5, r->checked, "checked", err)) == MA_OK &&
        (rc = ma_audit_bind_u64(a, st, 6, r->verified, "verified", err)) == MA_OK &&
        (rc = ma_audit_bind_u64(a, st, 7, r->within_bounds, "within_bounds", err)) == MA_OK &&
        (rc = ma_audit_bind_u64(a, st, 8, r->discrepancies, "discrepancies", err)) == MA_OK) {
        sqlite3_bind_double(st, 9, r->seconds);
        ma_audit_bind_text(st, 10, r->status);
        ma_audit_bind_text(st, 11, r->message);
        char what[160];
        snprintf(what, sizeof what, "run %lld: sector %s: record result", (long long)run_id, r->sector);
        rc = ma_audit_step_done(a, st, what, err);
    } else {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
    for (size_t i = 0; rc == MA_OK && i < r->n_classes; i++) {
        sqlite3_stmt *cs = a->class_insert;
        if (!r->classes[i].cls) {
            rc = ma_error_set(err, MA_EINVAL, "%s: sector %s: class count %zu without a class name",
                              a->path, r->sector, i);
            break;
        }
        sqlite3_bind_int64(cs, 1, run_id);
        ma_audit_bind_text(cs, 2, r->sector);
        ma_audit_bind_text(cs, 3, r->classes[i].cls);
        rc = ma_audit_bind_u64(a, cs, 4, r->classes[i].count, "class count", err);
        if (rc == MA_OK) {
            char what[200];
            snprintf(what, sizeof what, "run %lld: sector %s: class %s: record count", (long long)run_id,
                     r->sector, r->classes[i].cls);
            rc = ma_audit_step_done(a, cs, what, err);
        } else {
            sqlite3_reset(cs);
            sqlite3_clear_bindings(cs);
        }
    }
    if (rc != MA_OK) {
        ma_audit_tx_rollback(a);
        return rc;
    }
    return ma_audit_tx_commit(a, err);
}

int ma_audit_discrepancies_add(ma_audit *a, int64_t run_id, const ma_discrepancy *rows, size_t n,
                               ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc != MA_OK)
        return rc;
    if (n == 0)
        return MA_OK;
    if (!rows)
        return ma_error_set(err, MA_EINVAL, "%s: run %lld: no discrepancy rows", a->path, (long long)run_id);
    rc = ma_audit_tx_begin(a, err);
    if (rc != MA_OK)
        return rc;
    sqlite3_stmt *st = a->discrepancy_insert;
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        const ma_discrepancy *d = &rows[i];
        if (!d->sector || !d->cls) {
            rc = ma_error_set(err, MA_EINVAL, "%s: run %lld: discrepancy row %zu without sector or class",
                              a->path, (long long)run_id, i);
            break;
        }
        sqlite3_bind_int64(st, 1, run_id);
        ma_audit_bind_text(st, 2, d->sector);
        rc = ma_audit_bind_u64(a, st, 3, d->entry, "entry", err);
        if (rc != MA_OK) {
            sqlite3_reset(st);
            sqlite3_clear_bindings(st);
            break;
        }
        ma_audit_bind_text(st, 4, d->board);
        ma_audit_bind_text(st, 5, d->stored);
        ma_audit_bind_text(st, 6, d->derived);
        ma_audit_bind_text(st, 7, d->cls);
        char what[200];
        snprintf(what, sizeof what, "run %lld: sector %s: entry %llu: record discrepancy", (long long)run_id,
                 d->sector, (unsigned long long)d->entry);
        rc = ma_audit_step_done(a, st, what, err);
    }
    if (rc != MA_OK) {
        ma_audit_tx_rollback(a);
        return rc;
    }
    return ma_audit_tx_commit(a, err);
}
