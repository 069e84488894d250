"""What a verify run established, read from its audit store field by field, so a merged run of shard
stores can be compared with a single process's run of the same database (docs/distributed.md)."""
import pathlib
import sqlite3
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
INJECT = ROOT / "scripts" / "inject_fault.py"

# per table, the columns compared (timing, provenance and run ids are not results)
QUERIES = {
    "run": "SELECT kind, database_root, variant, format, status, options, tool_version FROM runs WHERE id = ?",
    "sectors": "SELECT sector, file, entries, checked, verified, within_bounds, discrepancies, status, message,"
               " format, canonical, markers, roots, propagated, missing_child, unverifiable, bound_wins, body_digest"
               " FROM sector_results WHERE run_id = ? ORDER BY sector",
    "classes": "SELECT sector, class, count FROM sector_class_counts WHERE run_id = ? ORDER BY sector, class",
    # in recorded order within each sector: roots first, then by entry
    "rows": "SELECT sector, entry, board, stored, derived, class, root, offset, move, successor, stored_outcome,"
            " stored_depth, derived_outcome, derived_depth, derived_bound FROM discrepancies WHERE run_id = ?"
            " ORDER BY sector, id",
    "digests": "SELECT sector, derived_sha256, derived_positions FROM sector_digests WHERE run_id = ? ORDER BY sector",
    "histograms": "SELECT sector, outcome, depth, count FROM sector_histograms WHERE run_id = ?"
                  " ORDER BY sector, outcome, depth",
    "inputs": "SELECT sector, path, sha256 FROM sector_inputs WHERE run_id = ? ORDER BY sector, path",
    "sets": "SELECT sector, count, entries, fixed_count, fixed_entries FROM sector_discrepancy_sets"
            " WHERE run_id = ? ORDER BY sector",
    "manifest": "SELECT path, size, sha256, chunk_size, variant, format, sector FROM manifest_files"
                " WHERE run_id = ? ORDER BY path",
    "chunks": "SELECT path, chunk, offset, length, sha256 FROM manifest_chunks WHERE run_id = ? ORDER BY path, chunk",
}


def sql(store, query, *args):
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return con.execute(query, args).fetchall()
    finally:
        con.close()


def newest_run(store):
    return sql(store, "SELECT max(id) FROM runs")[0][0]


def established(store, run_id=None):
    """Every compared table of a run (default: the store's newest)."""
    run_id = run_id or newest_run(store)
    return {name: sql(store, q, run_id) for name, q in QUERIES.items()}


def assert_same_run(single, merged):
    """The merged run equals the single run field by field; says which table and rows differ."""
    a, b = established(single), established(merged)
    for name in QUERIES:
        if a[name] != b[name]:
            only_a = [r for r in a[name] if r not in b[name]][:5]
            only_b = [r for r in b[name] if r not in a[name]][:5]
            raise AssertionError(f"{name} differ: single only {only_a}, merged only {only_b}"
                                 + ("" if only_a or only_b else " (same rows, other order)"))


def first_long_loss(path):
    """The first entry of an open-format file holding a loss of depth >= 4 (a depth that can be
    made two plies shorter and stay well-formed)."""
    data = path.read_bytes()
    for e in range((len(data) - 128) // 2):
        word = data[128 + 2 * e] | data[129 + 2 * e] << 8
        if word >> 14 == 1 and (word & 0x3FFF) >= 4:
            return e
    raise AssertionError(f"{path}: no loss of depth >= 4")


def plant_fault(millaudit, db, sector="std_4_4_0_0"):
    """One planted fault (scripts/inject_fault.py, resealed: the producer's wrong value, not damage):
    a loss of `sector` two plies too short. In the
    4-stone game the parents of std_4_4_0_0 are in other shards than it (std_3_4_1_0), so the
    fault propagates across shards."""
    path = db / f"{sector}.mdb"
    subprocess.run(["python3", str(INJECT), str(path), "--entry", str(first_long_loss(path)), "--depth-delta", "-1",
                    "--reseal"],
                   check=True, capture_output=True, env={"MILLAUDIT_BIN": str(millaudit.path), "PATH": "/usr/bin:/bin"})


def plant_draw_as_loss(millaudit, path, entry):
    """A second kind of planted fault (resealed, as plant_fault): the draw at `entry` stored as a loss
    in 2, a root discrepancy of a wrong outcome."""
    subprocess.run(["python3", str(INJECT), str(path), "--entry", str(entry), "--outcome", "loss", "--depth", "2",
                    "--reseal"],
                   check=True, capture_output=True, env={"MILLAUDIT_BIN": str(millaudit.path), "PATH": "/usr/bin:/bin"})


def last_draw(path):
    """The last entry of an open-format file holding a draw."""
    data = path.read_bytes()
    for e in reversed(range((len(data) - 128) // 2)):
        if data[129 + 2 * e] >> 6 == 2:
            return e
    raise AssertionError(f"{path}: no draw")


def shard_roots(stores):
    """Roots the shards recorded, each with only its own view of the successor sets."""
    return sum(sql(s, "SELECT coalesce(sum(roots), 0) FROM sector_results WHERE run_id = "
                      "(SELECT max(id) FROM runs)")[0][0] for s in stores)
