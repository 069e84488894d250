"""manifest create stops cleanly on SIGINT/SIGTERM (issue 22, item 7), also when SIGINT came in
ignored (a background job of a non-interactive shell): exit 128 + signal, no manifest and no
temporary file written, the audit run recorded as interrupted.

The signal is sent at a known point, not raced against the hashing: the test build pauses after the
first hashed chunk (MILLAUDIT_TEST_STEP=hashing, cli/test_hook.h), with the hashing pool's lock held
so no further chunk is claimed, and the pause ends only once the signal has reached the command's
handler. The file has many chunks, so most of it is still unhashed when the signal lands."""
import hashlib
import os
import signal
import sqlite3
import subprocess
import time

import pytest


def wait_for(path, proc, limit=600.0):
    """Polls for the file the rendezvous creates (bounded; a run that exits first fails the test)."""
    waited = 0.0
    while not path.exists():
        assert proc.poll() is None, ("the run ended before the rendezvous", proc.returncode, proc.stderr.read())
        assert waited < limit, "the run never reached the rendezvous"
        time.sleep(0.01)
        waited += 0.01


@pytest.mark.parametrize("sig,ignored", [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["sigint-inherited-ignored", "sigterm"])
def test_manifest_create_stops_on_signal(millaudit_planted, tmp_path, sig, ignored):
    d = tmp_path / "db"
    d.mkdir()
    (d / "big.bin").write_bytes(os.urandom(8 << 20))
    (d / "later.bin").write_bytes(os.urandom(1 << 20))
    out = tmp_path / "M.sha256"
    store = tmp_path / "a.sqlite"
    ctl = tmp_path / "ctl"
    ctl.mkdir()

    def pre():
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    env = {**os.environ, "MILLAUDIT_TEST_STEP": "hashing", "MILLAUDIT_TEST_STEP_DIR": str(ctl)}
    proc = subprocess.Popen([str(millaudit_planted.path), "manifest", "create", d, "--out", out, "--audit", store,
                             "--chunk-size", "64K", "--threads", "2"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=pre, env=env)
    wait_for(ctl / "paused", proc)  # the first chunk is hashed, the rest waits
    proc.send_signal(sig)
    rest, err = proc.communicate(timeout=300)
    assert proc.returncode == 128 + sig, (proc.returncode, err)
    assert "interrupted" in err and f"signal {int(sig)}" in err
    assert not out.exists()
    assert not [p.name for p in tmp_path.iterdir() if ".tmp" in p.name]
    assert not [p.name for p in d.iterdir() if ".tmp" in p.name]
    con = sqlite3.connect(f"file:{store}?immutable=1", uri=True)
    assert con.execute("SELECT kind, status FROM runs").fetchall() == [("manifest", "interrupted")]
    # nothing of the stopped hashing is recorded as a manifest
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for t in ("manifests", "manifest_files"):
        if t in tables:
            assert con.execute(f"SELECT count(*) FROM {t}").fetchone() == (0,), t


def test_the_same_run_without_a_signal_writes_the_manifest(millaudit_planted, tmp_path):
    """The counterpart: the rendezvous alone (resumed by the test, no signal) changes nothing, so the
    exit 130/143 above is the signal's doing."""
    d = tmp_path / "db"
    d.mkdir()
    (d / "big.bin").write_bytes(os.urandom(2 << 20))
    out = tmp_path / "M.sha256"
    ctl = tmp_path / "ctl"
    ctl.mkdir()
    env = {**os.environ, "MILLAUDIT_TEST_STEP": "hashing", "MILLAUDIT_TEST_STEP_DIR": str(ctl)}
    proc = subprocess.Popen([str(millaudit_planted.path), "manifest", "create", d, "--out", out,
                             "--chunk-size", "64K", "--threads", "2"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    wait_for(ctl / "paused", proc)
    (ctl / "resume").touch()
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert out.read_text().split() == [hashlib.sha256((d / "big.bin").read_bytes()).hexdigest(),
                                        "big.bin"]
