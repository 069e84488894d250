"""Progress as users know it (common/progress.h): on a terminal one self-updating line for the whole
run; in a pipe plain lines without a carriage return; nothing with --quiet.

The terminal is a real pseudo-terminal (python's pty module) given to the binary as stderr.
MILLAUDIT_PROGRESS_INTERVAL=0 draws at every update of the run (common/progress.h), so how many
displays a run gets is a count of its updates, never a race with its speed.
"""
import os
import pty
import re
import select
import struct
import subprocess
import fcntl
import termios

import pytest

FAST = {"MILLAUDIT_PROGRESS_INTERVAL": "0"}


def run_on_pty(argv, env, cols=100):
    """Runs argv with stderr on a fresh pty of `cols` columns; returns (exit status, bytes of stderr)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                            env={**os.environ, **env})
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            proc.kill()
            raise AssertionError("no output and no exit within 120 s")
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=60), b"".join(chunks)


def clean_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("MILLAUDIT_PROGRESS")}
    return env


@pytest.fixture(scope="module")
def game(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("prog") / "std3"
    out.mkdir()
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", out, "--quiet", check=0)
    return out


def test_solve_on_a_terminal_draws_one_line_in_place(millaudit, tmp_path):
    status, raw = run_on_pty([str(millaudit.path), "solve", "--variant", "std", "--stones", "3", "--out",
                              str(tmp_path)], FAST, cols=100)
    assert status == 0
    text = raw.decode()
    assert "\r" in text and "\033[K" in text
    # the pty turns "\n" into "\r\n"; a redraw is "\r<line>\033[K" with no newline in between
    draws = re.findall(r"\r([^\r\n\033]*)\033\[K", text)
    assert len(draws) >= 2, text[:500]
    for d in draws:
        assert len(d) <= 99, d  # cut to the terminal width minus one column: never wraps
    # one display for the whole run: the total is every entry of the game (264,399 for std 3 stones)
    assert all("/264,399 entries" in d for d in draws if d), draws[:3]
    last = draws[-1]
    assert re.match(r"264,399/264,399 entries 100%  \S+ entries/s  \d+:\d\d:\d\d total  solve", last), last
    assert text.rstrip("\r\n").endswith("\033[K") or "\033[K\r\n" in text
    assert any(" ETA  solve std_" in d for d in draws)
    assert text.count("total  solve") == 1


def test_verify_on_a_terminal_ends_the_line_with_a_newline(millaudit, game):
    status, raw = run_on_pty([str(millaudit.path), "verify", str(game)], FAST, cols=80)
    assert status == 0
    text = raw.decode()
    draws = re.findall(r"\r([^\r\n\033]*)\033\[K", text)
    assert draws and all(len(d) <= 79 for d in draws)
    assert "\033[K\r\n" in text  # the final line stays on screen


def test_narrow_terminal_cuts_the_label_not_the_figures(millaudit, tmp_path):
    status, raw = run_on_pty([str(millaudit.path), "solve", "--variant", "std", "--stones", "3", "--out",
                              str(tmp_path)], FAST, cols=40)
    assert status == 0
    draws = [d for d in re.findall(r"\r([^\r\n\033]*)\033\[K", raw.decode()) if d]
    assert draws and all(len(d) <= 39 for d in draws)
    assert all(re.match(r"[\d,]+/264,399 entries", d) for d in draws)


def test_pipe_gets_plain_lines_and_no_carriage_return(millaudit, tmp_path):
    proc = subprocess.run([str(millaudit.path), "solve", "--variant", "std", "--stones", "3", "--out", str(tmp_path)],
                          capture_output=True, env={**clean_env(), **FAST}, timeout=300)
    assert proc.returncode == 0
    assert b"\r" not in proc.stderr and b"\033" not in proc.stderr
    lines = proc.stderr.decode().splitlines()
    assert len(lines) >= 2
    for line in lines:
        assert re.match(r"solve std_\S+( \(\+twin\))?( retrograde)?: [\d,]+/264,399 entries \(\d+%\), [\d,]+ entries/s, "
                        r"(ETA|took) \d+ s( \(done\))?$", line), line
    assert lines[-1].startswith("solve ") and "264,399/264,399 entries (100%)" in lines[-1]
    assert lines[-1].endswith("(done)")


def test_malom_export_names_the_solve_after_reading_children(millaudit, tmp_path):
    """Writing .sec2, a component first reads its children's files under their own label
    ("read std_3_3_0_0.sec2"); the solve that follows is named as the solve again, not left under
    the last child's name (the 7-stone run showed "read std_6_6_0_0.sec2" for 26 minutes of solve)."""
    proc = subprocess.run([str(millaudit.path), "solve", "--variant", "std", "--sector", "4_4_0_0", "--with-deps",
                           "--format", "malom-sec2", "--out", str(tmp_path)],
                          capture_output=True, env={**clean_env(), **FAST}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    labels = [re.sub(r": [\d,]+/[\d,]+ entries.*$", "", line) for line in proc.stderr.decode().splitlines()]
    # the two components with children: the twin pair (child 3_3) and 4_4 (children 3_4, 4_3)
    assert "solve std_4_3_0_0 (+twin)" in labels and "solve std_4_4_0_0" in labels, sorted(set(labels))
    last_read = max((i for i, lab in enumerate(labels) if lab.startswith("read ")), default=-1)
    assert any(lab.startswith("solve std_4_4_0_0") for lab in labels[last_read + 1:])


def test_pipe_interval_keeps_a_run_shorter_than_it_silent(millaudit, game):
    """A plain line comes only once per interval (10 s by default, tests/unit/test_progress.c): a run
    shorter than the interval prints none. The interval is set to a day, so the run is shorter than
    it at any speed; the same run with interval 0 prints lines, so the silence is the interval's."""
    proc = subprocess.run([str(millaudit.path), "verify", str(game)], capture_output=True,
                          env={**clean_env(), "MILLAUDIT_PROGRESS_INTERVAL": "86400"}, timeout=300)
    assert proc.returncode == 0
    assert b"\r" not in proc.stderr and b"entries/s" not in proc.stderr
    proc = subprocess.run([str(millaudit.path), "verify", str(game)], capture_output=True,
                          env={**clean_env(), **FAST}, timeout=300)
    assert proc.returncode == 0
    assert b"\r" not in proc.stderr and b"entries/s" in proc.stderr


@pytest.mark.parametrize("where", ["pty", "pipe"])
def test_quiet_prints_no_progress(millaudit, tmp_path, where):
    argv = [str(millaudit.path), "solve", "--variant", "std", "--stones", "3", "--out", str(tmp_path), "--quiet"]
    if where == "pty":
        status, raw = run_on_pty(argv, FAST)
    else:
        proc = subprocess.run(argv, capture_output=True, env={**clean_env(), **FAST}, timeout=300)
        status, raw = proc.returncode, proc.stderr
    assert status == 0
    assert raw == b""


def test_environment_can_ask_for_plain_lines_on_a_terminal(millaudit, tmp_path):
    status, raw = run_on_pty([str(millaudit.path), "solve", "--variant", "std", "--stones", "3", "--out",
                              str(tmp_path)], {**FAST, "MILLAUDIT_PROGRESS": "plain"})
    assert status == 0
    assert b"\033" not in raw
    assert raw.replace(b"\r\n", b"\n").count(b"\r") == 0
    assert b"entries/s" in raw
