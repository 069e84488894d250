"""Control characters of a path never reach stderr raw (issue 22, item 4): a database directory
named with a newline and ESC, holding a sector whose body digest fails, a sector whose successor
file is absent and a successor file that is unusable. Every message (the body-digest one, the
successor one, the readers' own) shows them escaped as \\n and \\x1b, like every other message."""
import os
import shutil

import pytest


@pytest.fixture(scope="module")
def game(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("esc") / "std3"
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", out, "--quiet", check=0)
    return out


def weird_copy(game, tmp_path):
    d = tmp_path / "db\n\x1b[31mred"
    shutil.copytree(game, d)
    return d


def assert_escaped(stderr):
    assert stderr, "expected messages"
    assert "\x1b" not in stderr and "\r" not in stderr
    for line in stderr.splitlines():
        assert line.startswith("millaudit"), f"a message broken over lines: {line!r}"
    assert "db\\n\\x1b[31mred" in stderr


def test_body_digest_and_absent_successor_messages_are_escaped(millaudit, game, tmp_path):
    d = weird_copy(game, tmp_path)
    (d / "std_2_3_1_0.mdb").unlink()              # the successor of std_2_2_1_1: absent
    p = d / "std_1_1_2_2.mdb"
    b = bytearray(p.read_bytes())
    b[-1] ^= 1                                    # a body byte: the body digest fails
    p.write_bytes(bytes(b))
    # a body digest mismatch is damage (docs/download.md): exit 3, named with the escaped path
    proc = millaudit.run("verify", d, "--quiet", check=3)
    assert "successor sector file std_2_3_1_0.mdb (absent)" in proc.stderr
    assert "std_1_1_2_2.mdb: damaged: body differs from the SHA-256 its header records" in proc.stderr
    assert_escaped(proc.stderr)


def test_unusable_successor_and_reader_messages_are_escaped(millaudit, game, tmp_path):
    d = weird_copy(game, tmp_path)
    p = d / "std_2_3_1_0.mdb"
    p.write_bytes(p.read_bytes()[:50])            # truncated header: the reader refuses it
    proc = millaudit.run("verify", d, "--quiet")
    assert proc.returncode == 3, proc.stderr
    assert "(unusable)" in proc.stderr
    assert_escaped(proc.stderr)
    proc = millaudit.run("dump", p)
    assert proc.returncode == 3
    assert_escaped(proc.stderr)
