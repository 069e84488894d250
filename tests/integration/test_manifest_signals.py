"""manifest create stops cleanly on SIGINT/SIGTERM (issue 22, item 7), also when SIGINT came in
ignored (a background job of a non-interactive shell): exit 128 + signal, no manifest and no
temporary file written, the audit run recorded as interrupted. The hashing is made long with
--chunk-size 1; the signal is sent once the progress display shows the hashing under way."""
import os
import signal
import sqlite3
import subprocess

import pytest


@pytest.mark.parametrize("sig,ignored", [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["sigint-inherited-ignored", "sigterm"])
def test_manifest_create_stops_on_signal(millaudit, tmp_path, sig, ignored):
    d = tmp_path / "db"
    d.mkdir()
    (d / "big.bin").write_bytes(os.urandom(8 << 20))
    out = tmp_path / "M.sha256"
    store = tmp_path / "a.sqlite"

    def pre():
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    env = {**os.environ, "MILLAUDIT_PROGRESS": "plain", "MILLAUDIT_PROGRESS_INTERVAL": "1"}
    proc = subprocess.Popen([str(millaudit.path), "manifest", "create", d, "--out", out, "--audit", store,
                             "--chunk-size", "1", "--threads", "2"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=pre, env=env)
    first = proc.stderr.readline()  # the first progress line: the hashing is under way
    assert first, "no progress line"
    proc.send_signal(sig)
    rest, err = proc.communicate(timeout=300)
    assert proc.returncode == 128 + sig, (proc.returncode, first, err)
    assert "interrupted" in err
    assert not out.exists()
    assert not [p.name for p in tmp_path.iterdir() if ".tmp" in p.name]
    con = sqlite3.connect(f"file:{store}?immutable=1", uri=True)
    assert con.execute("SELECT kind, status FROM runs").fetchall() == [("manifest", "interrupted")]
