"""Installing millaudit: `cmake --install` (binary, manual page, bash completion), the manual page
itself (groff -ww warnings, man -l, a section per subcommand, every option), bash completion
(subcommands, options, values, sector names from a directory) and the Debian package made by CPack
(control fields, dependencies installed here, installed with dpkg into a scratch root and run).

The build tree is the directory of MILLAUDIT_BIN (scripts/test builds it); a binary outside a CMake
build tree skips these tests (and fails them under CI).
"""
import gzip
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, skip_unless

COMMANDS = ["solve", "stats", "dump", "verify", "index-check", "manifest", "report", "runs", "probe", "diff", "opening",
            "grade", "attest"]
COMPLETION = ROOT / "scripts" / "completion" / "millaudit.bash"


def need(tool):
    path = shutil.which(tool)
    skip_unless(path, f"{tool} not installed")
    return path


@pytest.fixture(scope="module")
def installed(build_dir, tmp_path_factory):
    dest = tmp_path_factory.mktemp("destdir")
    # the command and everything around it; the library for programmers is the "dev" component
    proc = subprocess.run(["cmake", "--install", str(build_dir), "--prefix", "/usr", "--component", "runtime"],
                          capture_output=True, text=True, env={**os.environ, "DESTDIR": str(dest)}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return dest


def test_dev_component_holds_the_api_and_nothing_else(build_dir, tmp_path):
    """libmillaudit-dev (issue 24): the public headers with their relative paths kept, the static
    and shared library with its soname links, millaudit.pc and the example; no binary, no
    internal header."""
    proc = subprocess.run(["cmake", "--install", str(build_dir), "--prefix", "/usr", "--component", "dev"],
                          capture_output=True, text=True, env={**os.environ, "DESTDIR": str(tmp_path)}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file() or p.is_symlink())
    headers = sorted(f for f in files if f.startswith("usr/include/"))
    public = sorted(["usr/include/millaudit/millaudit.h"]
                    + [f"usr/include/millaudit/millaudit/{p.name}" for p in (ROOT / "include" / "millaudit").glob("*.h")]
                    + [f"usr/include/millaudit/common/{n}" for n in ("ma_error.h", "progress.h", "verdict.h")])
    assert headers == public
    libs = sorted(f.rsplit("/", 1)[1] for f in files if "/lib" in f and "libmillaudit" in f)
    assert libs == ["libmillaudit.a", "libmillaudit.so", "libmillaudit.so.0", "libmillaudit.so.0.1.0"]
    assert any(f.endswith("pkgconfig/millaudit.pc") for f in files)
    assert any(f.endswith("examples/verify_one.c") for f in files)
    assert not any(f.startswith("usr/bin/") for f in files), files


def options_of(millaudit, cmd):
    text = millaudit.run(cmd, "--help").stdout
    return sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", text)) - {"--help"})


def test_the_command_list_is_complete(millaudit):
    """A new subcommand fails here until the manual page and completion (and this list) know it."""
    listed = re.findall(r"^  (\S+)\s", millaudit.run("--help", check=0).stdout, re.M)
    assert sorted(listed) == sorted(COMMANDS)


def test_install_puts_everything_in_its_place(millaudit, installed):
    binary = installed / "usr" / "bin" / "millaudit"
    assert binary.exists() and os.access(binary, os.X_OK)
    out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=True).stdout
    assert out == millaudit.run("--version", check=0).stdout
    man = installed / "usr" / "share" / "man" / "man1" / "millaudit.1.gz"
    assert gzip.decompress(man.read_bytes()).startswith(b".\\\" millaudit(1)")
    comp = installed / "usr" / "share" / "bash-completion" / "completions" / "millaudit"
    assert comp.read_bytes() == COMPLETION.read_bytes()
    assert (installed / "usr" / "share" / "doc" / "millaudit" / "json" / "report.schema.json").exists()
    # nothing else: no test programs, no static libraries, no headers
    files = sorted(str(p.relative_to(installed)) for p in installed.rglob("*") if p.is_file())
    assert all(f.startswith(("usr/bin/millaudit", "usr/share/man/", "usr/share/bash-completion/",
                             "usr/share/doc/millaudit/", "usr/share/millaudit/")) for f in files), files


def test_install_puts_the_ci_tools_on_path(installed, tmp_path):
    """ci/ is needed on every host of docs/nightly.md and docs/distributed.md (issue 23): the nightly
    pipeline and the Slurm and GNU parallel recipes are installed on PATH, the sbatch files and the
    CI examples under share/millaudit/, and each tool answers --help with its usage and exit 0."""
    bindir = installed / "usr" / "bin"
    for tool, first in (("millaudit-nightly", "usage: ci/nightly"), ("millaudit-slurm", "millaudit-slurm"),
                        ("millaudit-parallel", "millaudit-parallel")):
        path = bindir / tool
        assert path.exists() and os.access(path, os.X_OK), tool
        proc = subprocess.run([str(path), "--help"], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and first in proc.stdout and proc.stderr == "", (tool, proc)
    share = installed / "usr" / "share" / "millaudit"
    for f in ("slurm/millaudit-shard.sbatch", "slurm/millaudit-merge.sbatch", "examples/crontab",
              "examples/millaudit-nightly.service"):
        assert (share / f).exists(), f
    # the installed recipe finds its sbatch files in share/millaudit/slurm (a dry run prints the commands)
    (tmp_path / "db").mkdir()
    proc = subprocess.run([str(bindir / "millaudit-slurm"), str(tmp_path / "db"), "--shards", "2", "--out",
                           str(tmp_path / "out"), "--dry-run", "--mem", "1G", "--millaudit", str(bindir / "millaudit")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "/usr/bin/../share/millaudit/slurm/millaudit-shard.sbatch" in proc.stdout, proc.stdout


def test_help_and_manual_name_the_ci_tools(millaudit, manual):
    text = millaudit.run("--help", check=0).stdout
    for tool in ("millaudit-nightly", "millaudit-slurm", "millaudit-parallel"):
        assert tool in text
        assert tool in manual.replace("\u2010", "-"), tool  # man may print a hyphen as U+2010


def test_manual_page_has_no_groff_warnings(build_dir):
    need("groff")
    page = build_dir / "man" / "millaudit.1"
    proc = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", str(page)], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert "@MA_VERSION@" not in page.read_text()


@pytest.fixture(scope="module")
def manual(build_dir):
    need("man")
    proc = subprocess.run(["man", "-l", str(build_dir / "man" / "millaudit.1")], capture_output=True, text=True,
                          env={**os.environ, "MANWIDTH": "100", "MAN_KEEP_FORMATTING": "", "PAGER": "cat"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_manual_page_reads_as_a_manual(manual, millaudit):
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "PROGRESS", "EXIT STATUS", "ENVIRONMENT",
                    "EXAMPLES", "SEE ALSO"):
        assert re.search(rf"^{section}$", manual, re.M), section
    version = millaudit.run("--version", check=0).stdout.split()[1]
    assert f"millaudit {version}" in manual
    for cmd in COMMANDS:  # a section per subcommand
        assert re.search(rf"^   {re.escape(cmd)}\b", manual, re.M), cmd
    for code in ("0", "1", "2", "3", "4", "5"):
        assert re.search(rf"^       {code}\s", manual, re.M), code
    assert "every 10 seconds" in manual  # the plain progress interval, as common/progress.h has it


@pytest.mark.parametrize("cmd", COMMANDS)
def test_manual_page_names_every_option(manual, millaudit, cmd):
    for opt in options_of(millaudit, cmd):
        if opt == "--plant-bug":
            continue  # for tests only
        assert opt in manual, f"{cmd} {opt} is missing from millaudit(1)"


def complete(line, cwd):
    """What bash completion offers at the end of line (as if TAB were pressed there)."""
    need("bash")
    script = f"""
source {COMPLETION}
line={line!r}
read -ra COMP_WORDS <<< "$line"
[[ $line == *' ' ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
COMP_LINE=$line
COMP_POINT=${{#line}}
_millaudit
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    proc = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True, cwd=cwd,
                          timeout=30)
    assert proc.returncode == 0, proc.stderr
    return [w for w in proc.stdout.splitlines() if w]


def test_completion_of_subcommands_and_values(tmp_path):
    assert sorted(complete("millaudit ", tmp_path)) == sorted(COMMANDS + ["-V", "--version", "--help"])
    assert complete("millaudit ver", tmp_path) == ["verify"]
    assert complete("millaudit re", tmp_path) == ["report"]
    assert complete("millaudit report --format ", tmp_path) == ["text", "md", "json", "html"]
    assert complete("millaudit solve --variant l", tmp_path) == ["lask"]
    assert complete("millaudit manifest c", tmp_path) == ["create", "check"]
    assert complete("millaudit runs ", tmp_path) == ["export", "import", "compare", "list", "regressions", "merge"]
    assert complete("millaudit verify DIR --full-board-draw ", tmp_path) == ["yes", "no"]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_completion_offers_every_option(millaudit, tmp_path, cmd):
    offered = set(complete(f"millaudit {cmd} --", tmp_path))
    missing = [o for o in options_of(millaudit, cmd) if o not in offered]
    assert not missing, f"{cmd}: {missing} not completed"


def test_completion_of_sector_names_from_the_directory(tmp_path):
    db = tmp_path / "db_dir"
    db.mkdir()
    for name in ("std_3_3_0_0.mdb", "std_2_3_1_0.mdb", "lask_1_2_9_8.sec2", "std_4_3_0_0.sec", "notes.txt",
                 "std_3_3_0_0.mdb.tmp.123", "MANIFEST.sha256"):
        (db / name).write_bytes(b"")
    other = tmp_path / "other"
    other.mkdir()
    (other / "mora_1_1_11_11.mdb").write_bytes(b"")
    got = complete("millaudit verify db_dir --sector ", tmp_path)
    assert got == ["lask_1_2_9_8", "std_2_3_1_0", "std_3_3_0_0", "std_4_3_0_0"]
    assert complete("millaudit verify db_dir --sector std_3", tmp_path) == ["std_3_3_0_0"]
    assert complete("millaudit diff db_dir other --sector ", tmp_path) == [
        "lask_1_2_9_8", "mora_1_1_11_11", "std_2_3_1_0", "std_3_3_0_0", "std_4_3_0_0"]
    assert complete("millaudit solve --variant std --out other --sector ", tmp_path) == ["mora_1_1_11_11"]
    # an option's argument is not a database directory
    assert complete("millaudit verify --audit db_dir --sector ", tmp_path) == []
    assert complete("millaudit verify db_dir/std_3_3_0_0.mdb --sector s", tmp_path) == [
        "std_2_3_1_0", "std_3_3_0_0", "std_4_3_0_0"]


@pytest.fixture(scope="module")
def deb(build_dir, tmp_path_factory):
    need("cpack")
    need("dpkg-deb")
    out = tmp_path_factory.mktemp("deb")
    proc = subprocess.run(["cpack", "-G", "DEB", "-B", str(out), "--config", str(build_dir / "CPackConfig.cmake")],
                          capture_output=True, text=True, cwd=build_dir, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    debs = list(out.glob("millaudit_*.deb"))
    assert len(debs) == 1, list(out.iterdir())
    assert len(list(out.glob("libmillaudit-dev_*.deb"))) == 1, list(out.iterdir())
    return debs[0]


def test_dev_deb_holds_the_api(deb):
    dev = next(deb.parent.glob("libmillaudit-dev_*.deb"))
    fields = dict(re.findall(r"^([A-Za-z-]+): (.*)$", subprocess.run(["dpkg-deb", "-f", str(dev)], capture_output=True,
                                                                      text=True, check=True).stdout, re.M))
    assert fields["Package"] == "libmillaudit-dev" and fields["Section"] == "libdevel"
    listing = subprocess.run(["dpkg-deb", "-c", str(dev)], capture_output=True, text=True, check=True).stdout
    for path in ("./usr/include/millaudit/millaudit.h", "./usr/include/millaudit/common/verdict.h",
                 "./usr/lib/pkgconfig/millaudit.pc", "./usr/lib/libmillaudit.a"):
        assert re.search(rf" {re.escape(path)}$", listing, re.M), path
    assert re.search(r" \./usr/lib/libmillaudit\.so\.0 -> libmillaudit\.so\.0\.1\.0$", listing, re.M), listing
    assert "./usr/bin/" not in listing


def test_deb_control_and_contents(deb, millaudit):
    control = subprocess.run(["dpkg-deb", "-f", str(deb)], capture_output=True, text=True, check=True).stdout
    fields = dict(re.findall(r"^([A-Za-z-]+): (.*)$", control, re.M))
    version = millaudit.run("--version", check=0).stdout.split()[1]
    assert fields["Package"] == "millaudit" and fields["Version"] == version
    assert fields["Architecture"] == subprocess.run(["dpkg", "--print-architecture"], capture_output=True,
                                                    text=True).stdout.strip()
    depends = [d.split()[0] for d in fields["Depends"].split(", ")]
    assert {"libsqlite3-0", "libssl3", "libjansson4"} <= set(depends), depends
    for pkg in depends:  # what the package needs is here (a fresh Debian 12 gets it from apt)
        st = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", pkg], capture_output=True, text=True).stdout
        assert "install ok installed" in st, pkg
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    for path in ("./usr/bin/millaudit", "./usr/share/man/man1/millaudit.1.gz",
                 "./usr/share/bash-completion/completions/millaudit", "./usr/bin/millaudit-nightly",
                 "./usr/bin/millaudit-slurm", "./usr/bin/millaudit-parallel",
                 "./usr/share/millaudit/slurm/millaudit-shard.sbatch"):
        assert re.search(rf" {re.escape(path)}$", listing, re.M), path


def test_deb_installs_with_dpkg_and_runs(deb, millaudit, tmp_path):
    """dpkg -i into a scratch root with its own package database (the machine's is not touched),
    then the installed binary runs; apt resolves the package's dependencies on this machine."""
    need("dpkg")
    root = tmp_path / "root"
    for d in ("var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"):
        (root / d).mkdir(parents=True)
    (root / "var/lib/dpkg/status").write_text("")
    proc = subprocess.run(["dpkg", f"--root={root}", "--force-depends", "--force-not-root", "--log=/dev/null",
                           "-i", str(deb)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    status = subprocess.run(["dpkg", f"--root={root}", "-s", "millaudit"], capture_output=True, text=True).stdout
    assert "Status: install ok installed" in status
    out = subprocess.run([str(root / "usr" / "bin" / "millaudit"), "--version"], capture_output=True, text=True,
                         check=True).stdout
    assert out == millaudit.run("--version", check=0).stdout
    if shutil.which("apt-get"):
        sim = subprocess.run(["apt-get", "-s", "-q", "--no-install-recommends", "install", str(deb)],
                             capture_output=True, text=True, timeout=120)
        if sim.returncode == 0:
            installs = re.findall(r"^Inst (\S+)", sim.stdout, re.M)
            assert installs in (["millaudit"], []), sim.stdout[-1500:]
