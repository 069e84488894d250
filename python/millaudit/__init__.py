"""millaudit: prove a Nine Men's Morris (Lasker Morris, Morabaraba) database right, from Python.

A thin layer over libmillaudit (the C library the `millaudit` command is made of), through ctypes:
nothing is compiled at install. Every result is the document the command prints with --json,
made by the same library code, so a test of a solver can assert on exactly what `millaudit verify
--json` would say (docs/python.md):

    import millaudit
    run = millaudit.verify("out/std")            # every sector, every online CPU
    assert run.verdict == "verified", run.errors
    assert run.exit_code == 0
    pos = millaudit.probe("out/std", "a1,d1,g1/a7,d7,g7")
    assert pos["stored"]["text"] == "win 3"

Errors the command reports as a usage error or an unusable input before any result (a position
that does not parse, an option the engine refuses) raise millaudit.Error, which carries the
library's code, the exit status the command gives and the one-line message.
"""
import ctypes
import json
import os
import socket
import sys

from . import _lib

__all__ = ["Error", "Run", "ManifestCheck", "verify", "probe", "manifest_check", "runs", "version",
           "version_number"]

_L = _lib.load()

MODES = {"full": 0, "resume": 1, "incremental": 2}
INTEGRITY = {"auto": 0, "none": 1, "manifest": 2, "attestation": 3}  # ma_integrity_source (millaudit/integrity.h)
VARIANTS = {"std": 1, "lask": 2, "mora": 3}
KEEP_NONE = ctypes.c_size_t(-1).value  # MA_KEEP_NONE


class Error(Exception):
    """A failure the library reported: .code (MA_E*, negative), .name ("format", "missing", ...),
    .exit_code (the command's exit status for it) and the message."""

    def __init__(self, code, message, exit_code=None):
        super().__init__(message)
        self.code = code
        self.name = _L.ma_error_name(code).decode()
        self.exit_code = _L.ma_exit_code_for(code) if exit_code is None else exit_code
        self.message = message


def _b(text):
    return None if text is None else os.fsencode(text)


def _msg(err):
    return err.msg.decode("utf-8", "surrogateescape")


def _words(items):
    arr = (ctypes.c_char_p * max(1, len(items)))(*[_b(s) for s in items])
    return arr, len(items)


def _take_text(ptr, size):
    try:
        return ctypes.string_at(ptr, size.value).decode("utf-8", "surrogateescape")
    finally:
        _L.ma_free(ptr)


def version():
    """The version of the library loaded ("0.1.0")."""
    return _L.ma_version().decode()


def version_number():
    """MAJOR * 10000 + MINOR * 100 + PATCH of the library loaded."""
    return _L.ma_version_number()


class Run:
    """A finished verify run: the document `millaudit verify --json` prints for it.

    .verdict    "verified", "discrepancies", "incomplete", "within-bounds", "interrupted", or
                "damaged": files differ from what was published (docs/download.md), never a
                finding about the solver
    .scope      "database", or "sectors" for a run of some sectors (sectors=, shard=): its verdict
                proves them given the files they read, never the database
    .integrity  what the files were judged against before any was checked ("source": "manifest",
                "attestation", or "none": only the open files' own body digests) and the damaged
                files, each with what is wrong with it ("kind", "detail")
    .refetch    the paths, relative to the database, of the damaged files to fetch again (the
                list `verify --refetch-list` writes); [] when nothing is damaged
    .totals     the totals (entries, verified, discrepancies, classes, ...)
    .sectors    one dict per sector, children first (status, counts, rows of discrepancies)
    .errors     the one-line messages of everything that could not be used or recorded
    .exit_code  the exit status `millaudit verify` gives (0, 1, 3, 4, 5)
    .run_id     the audit run (None when not recorded)
    .document   the whole document
    """

    def __init__(self, document):
        self.document = document
        self.verdict = document["verdict"]
        self.scope = document["scope"]
        self.integrity = document["integrity"]
        self.refetch = document["next"]["refetch"]
        self.totals = document["totals"]
        self.sectors = document["sectors"]
        self.errors = document["errors"]
        self.exit_code = document["exit"]
        self.run_id = document["run_id"]

    def sector(self, name):
        """The sector "std_3_3_0_0" (or "3_3_0_0": of the run's variant); KeyError when the run has none."""
        for s in self.sectors:
            if name in (s["sector"], s["sector"].split("_", 1)[1]):
                return s
        raise KeyError(name)

    def __repr__(self):
        return f"<millaudit.Run {self.verdict}, {self.totals['entries']} entries, exit {self.exit_code}>"


def _vrun_options(root, sectors, threads, max_rows, full_board_draw, allow_bounds, audit, mode, resume_run,
                  shard, keep):
    o = _lib.VrunOptions()
    o.root = _b(os.fspath(root))
    if sectors:
        arr, n = _words([sectors] if isinstance(sectors, str) else list(sectors))
        keep.append(arr)
        o.sectors, o.n_sectors = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p)), n
    o.threads = threads
    o.max_rows = KEEP_NONE if max_rows == 0 else (max_rows or 0)
    o.full_board_draw = 0 if full_board_draw is None else (1 if full_board_draw else -1)
    o.allow_bounds = int(bool(allow_bounds))
    o.audit_path = _b(None if audit is None else os.fspath(audit))
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
    o.mode = MODES[mode]
    o.resume_run = resume_run
    if shard is not None:
        o.shard_index, o.shard_count = shard
    # the provenance a recorded run keeps: this host and this process's command line
    o.host = _b(socket.gethostname())
    o.command_line = _b(" ".join([sys.executable or "python3", *sys.argv]))
    return o


def verify(root, *, sectors=None, threads=0, max_rows=None, full_board_draw=None, allow_bounds=False,
           audit=None, mode="full", resume_run=0, shard=None, seal_key=None, manifest=None, attestation=None,
           pub=None, no_manifest=False):
    """Verifies the database at root (a directory or one sector file), as `millaudit verify ROOT
    --json` does, and returns its Run.

    sectors          a name or a list ("3_3_0_0", "std_3_3_0_0", "3_3_0_0,2_3_1_0"); None: every sector
    threads          worker threads; 0: every online CPU
    max_rows         discrepancy rows kept per sector; None: 1000; 0: none (the counts stay exact)
    full_board_draw  Malom: a full Morabaraba board is a draw; None: the default (yes)
    allow_bounds     Malom excerpts: within-bounds entries are accepted (exit 0)
    audit            record the run in this SQLite store
    mode             "full", "resume" (continue the last unfinished run, or resume_run) or
                     "incremental" (check only what changed since the store's last result)
    shard            (index, count): check one shard of the partition
    seal_key         a key file (an Ed25519 private key in PEM, or an HMAC secret): the run seals its
                     store when it ends, as `verify --shard I/N --seal-key K` does (needs audit)
    manifest         the manifest every file is judged against first (default: ROOT/MANIFEST.sha256
                     when it is there; docs/download.md)
    attestation, pub a signed release instead: its file digests, trusted when its signature
                     verifies with the public key pub
    no_manifest      judge the files against nothing published (open files: their body digests)

    A run that finds discrepancies or cannot use a file is a result, not an exception (its verdict
    and exit_code say so); options the engine refuses raise Error (exit_code 2, as the command's
    usage error)."""
    keep = []
    opt = _vrun_options(root, sectors, threads, max_rows, full_board_draw, allow_bounds, audit, mode, resume_run,
                        shard, keep)
    if sum(x is not None and x is not False for x in (manifest, attestation, no_manifest or None)) > 1:
        raise ValueError("manifest, attestation and no_manifest exclude each other: one reference for the files")
    if (attestation is None) != (pub is None):
        raise ValueError("attestation needs pub, the publisher's public key, and pub an attestation")
    if manifest is not None:
        opt.integrity, opt.manifest_path = INTEGRITY["manifest"], _b(os.fspath(manifest))
    elif attestation is not None:
        opt.integrity = INTEGRITY["attestation"]
        opt.attestation_path, opt.pub_path = _b(os.fspath(attestation)), _b(os.fspath(pub))
    elif no_manifest:
        opt.integrity = INTEGRITY["none"]
    err = _lib.Error()
    key = ctypes.c_void_p()
    if seal_key is not None:
        rc = _L.ma_seal_key_load(ctypes.byref(key), _b(os.fspath(seal_key)), ctypes.byref(err))
        if rc:
            raise Error(rc, _msg(err))
        opt.seal_key = key
    run = ctypes.c_void_p()
    try:
        rc = _L.ma_vrun_create(ctypes.byref(run), ctypes.byref(opt), ctypes.byref(err))
        if rc:
            raise Error(rc, _msg(err), exit_code=2 if rc == -1 else None)
        return _execute(run, err)
    finally:
        _L.ma_vrun_free(run)
        _L.ma_seal_key_free(key)


def _execute(run, err):
    """The Run of a created run, executed."""
    rc = _L.ma_vrun_execute(run, ctypes.byref(err))
    if rc == -1:  # MA_EINVAL: an option value the run refused (a sector, a resume)
        raise Error(rc, _msg(err), exit_code=2)
    result = _L.ma_vrun_result(run, rc)
    errors = [_L.ma_vrun_error(run, i).decode("utf-8", "surrogateescape")
              for i in range(_L.ma_vrun_error_count(run))]
    # the run's error is usually the last one it listed (an unusable root): said once
    if rc and rc != -8 and (not errors or errors[-1] != _msg(err)):
        errors.append(_msg(err))
    arr, n = _words(errors)
    buf, size = ctypes.c_void_p(), ctypes.c_size_t()
    status = _L.ma_result_exit_code(result)
    if _L.ma_render_verify_json_buffer(ctypes.byref(buf), ctypes.byref(size), run, arr, n, status,
                                       ctypes.byref(err)):
        raise Error(err.code, _msg(err))
    return Run(json.loads(_take_text(buf, size)))


def probe(root, position, *, variant=None, no_digest_check=False):
    """The stored value of one position and the value of every turn, best first: the document
    `millaudit probe ROOT POSITION --json` prints (docs/json/probe.schema.json), as a dict.

    position   "BOARD [wf=N] [bf=N]" (mover / opponent: "a1,d1,g1/a7,d7,g7"), or its words as a list
    variant    "std", "lask" or "mora" when the database holds several

    Raises Error for a position that does not parse or is no position of the database (exit_code
    2) and for a sector file that cannot be used (exit_code 3)."""
    words = position.split() if isinstance(position, str) else list(position)
    arr, n = _words(words)
    o = _lib.ProbeOptions()
    o.root = _b(os.fspath(root))
    o.no_digest_check = int(bool(no_digest_check))
    if variant is not None:
        if variant not in VARIANTS:
            raise ValueError(f"variant {variant!r}: expected one of {', '.join(VARIANTS)}")
        o.have_variant, o.variant = 1, VARIANTS[variant]
    o.position = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p))
    o.n_position = n
    err = _lib.Error()
    rep = ctypes.c_void_p()
    rc = _L.ma_probe_run(ctypes.byref(rep), ctypes.byref(o), ctypes.byref(err))
    try:
        if rc:
            raise Error(rc, _msg(err), exit_code=_L.ma_result_exit_code(_L.ma_probe_failure_result(rc)))
        buf, size = ctypes.c_void_p(), ctypes.c_size_t()
        if _L.ma_probe_render_json_buffer(ctypes.byref(buf), ctypes.byref(size), rep, ctypes.byref(err)):
            raise Error(err.code, _msg(err))
        return json.loads(_take_text(buf, size))
    finally:
        _L.ma_probe_report_free(rep)


class ManifestCheck:
    """What `millaudit manifest check` found.

    .verdict    "verified" (every listed file OK, nothing extra) or "discrepancies"
    .files      [(name, status)], status "OK", "FAILED", "FAILED open or read", "MISSING" or
                "not in manifest", in the command's order
    .counts     {"ok": n, "failed": n, "unreadable": n, "missing": n, "extra": n, "malformed": n}
    .text       the command's standard output, line for line
    .exit_code  the exit status the command gives
    """

    STATUS = ("OK", "FAILED", "FAILED open or read", "MISSING", "not in manifest")

    def __init__(self, verdict, files, counts, text, exit_code):
        self.verdict, self.files, self.counts, self.text, self.exit_code = verdict, files, counts, text, exit_code

    def __repr__(self):
        return f"<millaudit.ManifestCheck {self.verdict}, {len(self.files)} files, exit {self.exit_code}>"


def manifest_check(manifest, *, dir=None, audit=None, ignore_missing=False, ignore_extra=False, strict=False,
                   threads=0):
    """Checks the files a SHA-256 manifest lists (and finds unlisted ones), as `millaudit manifest
    check MANIFEST` does. dir: where its paths are relative to (None: the manifest's directory);
    audit: a store with the files' chunk digests, to pin a FAILED file to the bytes that changed.
    Raises Error for a manifest that cannot be read (exit_code 3)."""
    o = _lib.ManifestCheckOptions()
    o.manifest = _b(os.fspath(manifest))
    o.dir = _b(None if dir is None else os.fspath(dir))
    o.audit_path = _b(None if audit is None else os.fspath(audit))
    o.ignore_missing, o.ignore_extra, o.strict = int(ignore_missing), int(ignore_extra), int(strict)
    o.threads = threads
    err = _lib.Error()
    c = ctypes.c_void_p()
    rc = _L.ma_manifest_check_run(ctypes.byref(c), ctypes.byref(o), ctypes.byref(err))
    try:
        if rc:
            raise Error(rc, _msg(err))
        s = _L.ma_manifest_check_summary_of(c).contents
        files = []
        for i in range(_L.ma_manifest_check_files(c)):
            f = _L.ma_manifest_check_file(c, i).contents
            files.append((f.name.decode("utf-8", "surrogateescape"), ManifestCheck.STATUS[f.status]))
        counts = {k: getattr(s, k) for k in ("ok", "failed", "unreadable", "missing", "extra", "malformed")}
        text = _lib.capture(lambda out: _L.ma_manifest_check_print_files(out, None, c, 0))
        verdict = _L.ma_verdict_state_name(s.verdict).decode()
        exit_code = _L.ma_result_exit_code(_L.ma_result_of_verdict(s.verdict, 0))
        return ManifestCheck(verdict, files, counts, text, exit_code)
    finally:
        _L.ma_manifest_check_free(c)


def runs(store, *, kind=None, root=None, last=0):
    """The runs of an audit store, oldest first: the "runs" of `millaudit runs list --audit STORE
    --json` (docs/json/runs-list.schema.json), each a dict with its id, kind, status, totals.
    kind: "verify", "manifest", "diff", ... (None: all); root: only runs of this database root as
    recorded (absolute); last: only the newest `last`. The store is opened read-only and never
    written. Raises Error for a store that is absent or no audit store (exit_code 3)."""
    err = _lib.Error()
    a = ctypes.c_void_p()
    rc = _L.ma_audit_open_readonly(ctypes.byref(a), _b(os.fspath(store)), ctypes.byref(err))
    if rc:
        raise Error(rc, _msg(err), exit_code=_L.ma_result_exit_code(_L.ma_store_input_result(rc)))
    lst = ctypes.c_void_p()
    try:
        f = _lib.RunsFilter(_b(kind), _b(root), last)
        rc = _L.ma_runs_list(ctypes.byref(lst), a, ctypes.byref(f), ctypes.byref(err))
        if rc:
            raise Error(rc, _msg(err), exit_code=_L.ma_result_exit_code(_L.ma_store_input_result(rc)))
        buf = ctypes.c_void_p()
        if _L.ma_render_runs_list(ctypes.byref(buf), lst, _b(os.fspath(store)), 1, ctypes.byref(err)):
            raise Error(err.code, _msg(err))
        text = ctypes.string_at(buf).decode("utf-8", "surrogateescape")
        _L.ma_free(buf)
        return json.loads(text)["runs"]
    finally:
        _L.ma_run_list_free(lst)
        _L.ma_audit_free(a)
