"""Every command answers a mistake on its command line alike (issue 23, item 3; common/options.h):
one line on stderr saying what is wrong, one hint line `try 'millaudit CMD --help'`, nothing on
stdout, exit 2. `-h` is `--help` and `millaudit help CMD` is `millaudit CMD --help` for every
command."""
import pytest

from test_cli import COMMANDS

# command words, an option that needs a value (None: the command has none), a mistyped option and
# the option it should suggest
TABLE = [
    (("solve",), "--threads", "--treads", "--threads"),
    (("stats",), "--threads", "--treads", "--threads"),
    (("dump",), None, "--with-entyr", "--with-entry"),
    (("verify",), "--threads", "--treads", "--threads"),
    (("index-check",), "--variant", "--varaint", "--variant"),
    (("manifest", "create"), "--threads", "--treads", "--threads"),
    (("manifest", "check"), "--threads", "--treads", "--threads"),
    (("report",), "--audit", "--audti", "--audit"),
    (("runs", "list"), "--audit", "--audti", "--audit"),
    (("runs", "merge"), None, "--allow-partail", "--allow-partial"),
    (("probe",), "--variant", "--varaint", "--variant"),
    (("diff",), "--threads", "--treads", "--threads"),
    (("opening",), "--variant", "--varaint", "--variant"),
    (("grade",), "--player", "--playre", "--player"),
    (("attest", "create"), "--audit", "--audti", "--audit"),
    (("attest", "verify"), "--pub", "--pbu", "--pub"),
]
IDS = [" ".join(words) for words, *_ in TABLE]


def test_the_table_covers_every_command():
    assert sorted({words[0] for words, *_ in TABLE}) == sorted(COMMANDS)


def one_error(proc, words):
    cmd = " ".join(words)
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2, proc
    assert proc.stdout == "", proc.stdout
    assert len(lines) == 2, proc.stderr
    assert lines[0].startswith(f"millaudit {cmd}: "), lines
    assert f"{cmd}: {words[0]}:" not in lines[0], "the command named twice"
    assert lines[1] == f"try 'millaudit {cmd} --help'"
    return lines[0]


WITH_VALUE = [row for row in TABLE if row[1]]


@pytest.mark.parametrize("words,needs_value,typo,meant", WITH_VALUE, ids=[" ".join(r[0]) for r in WITH_VALUE])
def test_option_without_its_value(millaudit, words, needs_value, typo, meant):
    line = one_error(millaudit.run(*words, needs_value), words)
    assert line.endswith(f"option '{needs_value}' needs a value"), line


@pytest.mark.parametrize("words,needs_value,typo,meant", TABLE, ids=IDS)
def test_mistyped_option_gets_a_suggestion(millaudit, words, needs_value, typo, meant):
    line = one_error(millaudit.run(*words, typo, "x"), words)
    assert line.endswith(f"unknown option '{typo}'; did you mean '{meant}'?"), line


@pytest.mark.parametrize("words,needs_value,typo,meant", TABLE, ids=IDS)
def test_unknown_option_far_from_any_gets_no_suggestion(millaudit, words, needs_value, typo, meant):
    line = one_error(millaudit.run(*words, "--zzzzzzzz", "x"), words)
    assert line.endswith("unknown option '--zzzzzzzz'"), line


@pytest.mark.parametrize("cmd", COMMANDS)
def test_short_h_and_help_cmd_are_the_long_help(millaudit, cmd):
    long = millaudit.run(cmd, "--help", check=0).stdout
    assert long.startswith(f"usage: millaudit {cmd}")
    assert millaudit.run(cmd, "-h", check=0).stdout == long
    assert millaudit.run("help", cmd, check=0).stdout == long


def test_help_of_an_unknown_command_suggests(millaudit):
    proc = millaudit.run("help", "verfy", check=2)
    assert proc.stderr.splitlines() == ["millaudit: unknown command 'verfy'; did you mean 'verify'?",
                                        "try 'millaudit --help'"]


@pytest.mark.parametrize("args,message", [
    (("verify", "DIR", "--threads", "x"), "millaudit verify: --threads x: not a number in 1..256"),
    (("solve", "--threads", "0"), "millaudit solve: --threads 0: not a number in 1..256"),
    (("verify", "DIR", "--quiet=1"), "millaudit verify: option '--quiet' takes no value"),
    (("verify",), "millaudit verify: no database directory given"),
    (("report",), "millaudit report: no --audit FILE given"),
])
def test_other_command_line_mistakes_are_one_line_and_the_hint(millaudit, args, message):
    proc = millaudit.run(*args, check=2)
    assert proc.stderr.splitlines()[0] == message
    assert len(proc.stderr.splitlines()) == 2


def test_an_invalid_sector_names_the_command_once(millaudit, tmp_path):
    (tmp_path / "db").mkdir()
    proc = millaudit.run("verify", tmp_path / "db", "--sector", "9_9_9_9", check=2)
    assert proc.stderr.startswith("millaudit verify: --sector 9_9_9_9: "), proc.stderr
    assert "verify: verify:" not in proc.stderr


@pytest.fixture
def paths(tmp_path, millaudit):
    """A missing path, a regular file, a manifest and an empty directory, each given to verify."""
    db = tmp_path / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "3", "--out", db, "--quiet", check=0)
    millaudit.run("manifest", "create", db, "--out", tmp_path / "MANIFEST.sha256", "--quiet", check=0)
    (tmp_path / "notes.txt").write_text("x\n")
    (tmp_path / "empty").mkdir()
    return tmp_path


# exit 3: unusable input; a path through a regular file (ENOTDIR) is an I/O error, exit 4
@pytest.mark.parametrize("name,code", [("missing", 3), ("notes.txt", 3), ("MANIFEST.sha256", 3),
                                       ("db/std_3_3_0_0.mdb/x", 4)])
def test_an_unusable_database_is_said_once(millaudit, paths, name, code):
    """Issue 23 item 4: the error of an unusable root was printed twice."""
    proc = millaudit.run("verify", paths / name)
    assert proc.returncode == code, proc
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"millaudit verify: {paths / name}: "), proc.stderr
    if name.endswith(".sha256"):
        assert lines[0].endswith("; a manifest is checked with 'millaudit manifest check'")


def test_an_empty_directory_says_nothing_was_checked(millaudit, paths):
    proc = millaudit.run("verify", paths / "empty", check=3)
    assert proc.stdout.splitlines()[-1] == "verdict: incomplete: nothing was checked: no usable sector file"
    assert len(proc.stderr.splitlines()) == 1


def test_diff_says_when_sectors_differ_only_in_header_bytes(millaudit, paths):
    """Issue 23 item 6: 'encoding 26' alone alarms where only header bytes differ."""
    import shutil
    other = shutil.copytree(paths / "db", paths / "other")
    f = other / "std_3_3_0_0.mdb"
    data = bytearray(f.read_bytes())
    data[32:64] = b"another-producer".ljust(32, b"\0")  # the producer name (docs/format.md 5.1)
    f.write_bytes(bytes(data))
    proc = millaudit.run("diff", paths / "db", other, check=0)
    # said in words since issue 45: which header field differs, and that the values agree
    assert ("1 sector equal: the same values, the files differ only in their headers: producer millaudit-solver "
            "vs another-producer (std_3_3_0_0)") in proc.stdout.splitlines()
    total = proc.stdout.splitlines()[-1]
    assert "1 sector differs only in their headers" in total and total.endswith(": values agree"), total
    assert "encoding 1" not in proc.stdout


@pytest.mark.parametrize("words,option,value,bounds", [
    (("solve",), "--threads", "0", "1..256"),
    (("stats", "DIR"), "--threads", "x", "1..64"),
    (("verify", "DIR"), "--max-rows", "-1", "0..1000000000"),
    (("manifest", "create", "DIR"), "--threads", "1x", "1..256"),
    (("manifest", "check", "M"), "--threads", " 2", "1..256"),
    (("diff", "A", "B"), "--threads", "65", "1..64"),
    (("opening", "DIR"), "--stones", "2", "3..12"),
    (("grade", "DIR"), "--games", "0", "1..10000000"),
    (("grade", "DIR"), "--stones", "2", "3..12"),
    (("attest", "verify", "FILE"), "--threads", "0", "1..1024"),
])
def test_one_number_parser_for_every_command(millaudit, words, option, value, bounds):
    """Every command reads a number option alike and says so alike (common/options.h ma_opt_long)."""
    cmd = " ".join(w for w in words if w.islower() or "-" in w)
    proc = millaudit.run(*words, option, value, check=2)
    assert proc.stderr.splitlines() == [f"millaudit {cmd}: {option} {value}: not a number in {bounds}",
                                        f"try 'millaudit {cmd} --help'"], proc.stderr
