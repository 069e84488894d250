"""Installing millaudit: `cmake --install` (binary, manual page, bash completion; the library's
components), the manual page itself (groff -ww warnings, man -l, a section per subcommand, every
option), bash completion (subcommands, options, values, sector names from a directory) and the four
Debian packages made by CPack (issue 46: millaudit, libmillaudit0, libmillaudit-dev,
python3-millaudit): control fields, lintian clean of errors, dependencies installed here, installed
with dpkg into a scratch root, and installed for real on a clean root (an overlay of this system
with the source and build trees hidden) where the command, a C and a C++ program built with
pkg-config and the Python module each verify a game.

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


def component_files(build_dir, dest, component):
    proc = subprocess.run(["cmake", "--install", str(build_dir), "--prefix", "/usr", "--component", component],
                          capture_output=True, text=True, env={**os.environ, "DESTDIR": str(dest)}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file() or p.is_symlink())


PUBLIC_HEADERS = ["millaudit.h"] + [f"millaudit/{n}.h" for n in (
    "diff", "error", "game", "inspect", "integrity", "manifest", "progress", "store", "types", "verdict", "verify",
    "version")]


def test_library_components_hold_the_api_and_nothing_else(build_dir, tmp_path):
    """lib: the shared library and its soname link alone (libmillaudit0); dev: the public headers
    (millaudit.h and millaudit/, nothing of common/), the static library, the linker name, the two
    .pc files and the examples; python: the module. No binary, no internal header anywhere."""
    lib = component_files(build_dir, tmp_path / "lib", "lib")
    assert [f for f in lib if "/doc/" not in f] == ["usr/lib/libmillaudit.so.0", "usr/lib/libmillaudit.so.0.1.0"]
    dev = component_files(build_dir, tmp_path / "dev", "dev")
    assert sorted(f for f in dev if f.startswith("usr/include/")) == [f"usr/include/{h}" for h in PUBLIC_HEADERS]
    assert sorted(f.rsplit("/", 1)[1] for f in dev if "/lib/" in f and "libmillaudit" in f) == [
        "libmillaudit.a", "libmillaudit.so"]
    assert {f.rsplit("/", 1)[1] for f in dev if "pkgconfig" in f} == {"millaudit.pc", "millaudit-static.pc"}
    assert {f.rsplit("/", 1)[1] for f in dev if "/examples/" in f} == {"verify_one.c", "verify_probe.cpp"}
    python = component_files(build_dir, tmp_path / "py", "python")
    assert [f for f in python if "/doc/" not in f] == [
        f"usr/lib/python3/dist-packages/millaudit/{n}" for n in ("__init__.py", "_config.py", "_lib.py")]
    for files, package in ((lib, "libmillaudit0"), (dev, "libmillaudit-dev"), (python, "python3-millaudit")):
        assert {f for f in files if "/doc/" in f and "/examples/" not in f} == {
            f"usr/share/doc/{package}/copyright", f"usr/share/doc/{package}/changelog.gz"}
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
    assert sorted(complete("millaudit ", tmp_path)) == sorted(COMMANDS + ["help", "-V", "--version", "--help"])
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


PACKAGES = ("millaudit", "libmillaudit0", "libmillaudit-dev", "python3-millaudit")


@pytest.fixture(scope="module")
def debs(build_dir, tmp_path_factory):
    need("cpack")
    need("dpkg-deb")
    out = tmp_path_factory.mktemp("deb")
    proc = subprocess.run(["cpack", "-G", "DEB", "-B", str(out), "--config", str(build_dir / "CPackConfig.cmake")],
                          capture_output=True, text=True, cwd=build_dir, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    found = {}
    for name in PACKAGES:
        files = list(out.glob(f"{name}_*.deb"))
        assert len(files) == 1, (name, list(out.iterdir()))
        found[name] = files[0]
    assert len(list(out.glob("*.deb"))) == len(PACKAGES)
    return found


def control(deb):
    text = subprocess.run(["dpkg-deb", "-f", str(deb)], capture_output=True, text=True, check=True).stdout
    return dict(re.findall(r"^([A-Za-z-]+): (.*)$", text, re.M))


def listing(deb):
    return subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout


def control_file(deb, name):
    tar = subprocess.run(["dpkg-deb", "--ctrl-tarfile", str(deb)], capture_output=True, check=True).stdout
    proc = subprocess.run(["tar", "xO", f"./{name}"], input=tar, capture_output=True)
    return proc.stdout.decode() if proc.returncode == 0 else None


def test_library_packages_control_and_contents(debs, millaudit):
    version = millaudit.run("--version", check=0).stdout.split()[1]
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
    lib = control(debs["libmillaudit0"])
    assert (lib["Package"], lib["Version"], lib["Section"], lib["Architecture"]) == (
        "libmillaudit0", version, "libs", arch)
    depends = [d.split()[0] for d in lib["Depends"].split(", ")]  # dpkg-shlibdeps of the library
    assert {"libc6", "libsqlite3-0", "libssl3", "libjansson4", "libxml2"} <= set(depends), depends
    files = listing(debs["libmillaudit0"])
    assert re.search(r" \./usr/lib/libmillaudit\.so\.0 -> libmillaudit\.so\.0\.1\.0$", files, re.M), files
    assert "./usr/include/" not in files and not re.search(r"libmillaudit\.(a|so)$", files, re.M)
    # a program built against 0.1.0 asks for exactly it (0.y may change the ABI); ldconfig by trigger
    assert control_file(debs["libmillaudit0"], "shlibs") == f"libmillaudit 0 libmillaudit0 (= {version})\n"
    assert control_file(debs["libmillaudit0"], "triggers") == "activate-noawait ldconfig\n"

    dev = control(debs["libmillaudit-dev"])
    assert (dev["Package"], dev["Section"]) == ("libmillaudit-dev", "libdevel")
    assert dev["Depends"].split(", ") == [f"libmillaudit0 (= {version})", "libsqlite3-dev", "libjansson-dev",
                                          "libxml2-dev", "libssl-dev"]
    files = listing(debs["libmillaudit-dev"])
    for path in ("./usr/include/millaudit.h", "./usr/include/millaudit/verify.h", "./usr/include/millaudit/version.h",
                 "./usr/lib/pkgconfig/millaudit.pc", "./usr/lib/pkgconfig/millaudit-static.pc",
                 "./usr/lib/libmillaudit.a", "./usr/share/doc/libmillaudit-dev/examples/verify_probe.cpp"):
        assert re.search(rf" {re.escape(path)}$", files, re.M), path
    assert re.search(r" \./usr/lib/libmillaudit\.so -> libmillaudit\.so\.0$", files, re.M), files
    assert "libmillaudit.so.0.1.0" not in files.replace("-> libmillaudit.so.0.1.0", "")
    assert "./usr/bin/" not in files and "common/" not in files

    py = control(debs["python3-millaudit"])
    assert (py["Package"], py["Section"], py["Architecture"]) == ("python3-millaudit", "python", "all")
    assert py["Depends"].split(", ") == ["python3", f"libmillaudit0 (= {version})"]
    assert "./usr/lib/python3/dist-packages/millaudit/__init__.py" in listing(debs["python3-millaudit"])


def test_deb_control_and_contents(debs, millaudit):
    deb = debs["millaudit"]
    fields = control(deb)
    version = millaudit.run("--version", check=0).stdout.split()[1]
    assert fields["Package"] == "millaudit" and fields["Version"] == version
    assert fields["Architecture"] == subprocess.run(["dpkg", "--print-architecture"], capture_output=True,
                                                    text=True).stdout.strip()
    depends = [d.split()[0] for d in fields["Depends"].split(", ")]
    assert {"libsqlite3-0", "libssl3", "libjansson4"} <= set(depends), depends
    assert "libmillaudit0" not in depends  # the command links the library statically
    files = listing(deb)
    for path in ("./usr/bin/millaudit", "./usr/share/man/man1/millaudit.1.gz",
                 "./usr/share/bash-completion/completions/millaudit", "./usr/bin/millaudit-nightly",
                 "./usr/bin/millaudit-slurm", "./usr/bin/millaudit-parallel",
                 "./usr/share/millaudit/slurm/millaudit-shard.sbatch", "./usr/share/doc/millaudit/copyright",
                 "./usr/share/doc/millaudit/changelog.gz", "./usr/share/doc/millaudit/CHANGES.md"):
        assert re.search(rf" {re.escape(path)}$", files, re.M), path
    for name, deb in debs.items():  # what each package needs is here (a fresh Debian 12 gets it from apt)
        for dep in control(deb).get("Depends", "").split(", "):
            pkg = dep.split()[0]
            if pkg in PACKAGES:
                continue
            st = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", pkg], capture_output=True, text=True).stdout
            assert "install ok installed" in st, (name, pkg)


def test_packages_are_lintian_clean_of_errors(debs):
    need("lintian")
    proc = subprocess.run(["lintian", "--no-tag-display-limit", *map(str, debs.values())], capture_output=True,
                          text=True, timeout=600)
    tags = [line for line in proc.stdout.splitlines() if re.match(r"^[EW]: ", line)]
    errors = [line for line in tags if line.startswith("E: ")]
    assert errors == [], "\n".join(tags)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_debs_install_with_dpkg_into_a_fresh_root_and_run(debs, millaudit, std3_games, tmp_path):
    """dpkg -i of the four packages into a scratch root with its own package database (the
    machine's is not touched): the installed command runs, and the installed Python module loads
    the installed library beside it and verifies a game; apt resolves every dependency here."""
    need("dpkg")
    root = tmp_path / "root"
    for d in ("var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"):
        (root / d).mkdir(parents=True)
    (root / "var/lib/dpkg/status").write_text("")
    proc = subprocess.run(["dpkg", f"--root={root}", "--force-depends", "--force-not-root", "--force-script-chrootless",
                           "--log=/dev/null", "-i", *map(str, debs.values())],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for name in PACKAGES:
        status = subprocess.run(["dpkg", f"--root={root}", "-s", name], capture_output=True, text=True).stdout
        assert "Status: install ok installed" in status, name
    out = subprocess.run([str(root / "usr" / "bin" / "millaudit"), "--version"], capture_output=True, text=True,
                         check=True).stdout
    assert out == millaudit.run("--version", check=0).stdout
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "MILLAUDIT_LIBRARY")}
    env["PYTHONPATH"] = str(root / "usr/lib/python3/dist-packages")
    proc = subprocess.run(["/usr/bin/python3", "-c", "import millaudit; r = millaudit.verify(__import__('sys').argv[1]);"
                           " print(r.verdict, r.exit_code, millaudit._L._name)", str(std3_games / "db")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    verdict, code, lib = proc.stdout.split()
    assert (verdict, code) == ("verified", "0")
    assert os.path.realpath(lib) == os.path.realpath(root / "usr/lib/libmillaudit.so.0")
    if shutil.which("apt-get"):
        sim = subprocess.run(["apt-get", "-s", "-q", "--no-install-recommends", "install", *map(str, debs.values())],
                             capture_output=True, text=True, timeout=120)
        if sim.returncode == 0:
            installs = sorted(re.findall(r"^Inst (\S+)", sim.stdout, re.M))
            assert installs in (sorted(PACKAGES), []), sim.stdout[-1500:]


CLEAN_ROOT_SCRIPT = r"""
set -eu
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
unset LD_LIBRARY_PATH PYTHONPATH MILLAUDIT_LIBRARY PKG_CONFIG_PATH
test ! -e /work/main  # the trees are hidden: nothing but the packages
dpkg -i /debs/*.deb >/debs/dpkg.log 2>&1
for p in millaudit libmillaudit0 libmillaudit-dev python3-millaudit; do
  dpkg-query -W -f '${Package} ${Status}
' "$p"
done
millaudit --version
millaudit solve --variant std --stones 3 --out /tmp/g --quiet >/dev/null
millaudit verify /tmp/g --quiet >/dev/null && echo "command: verified"
ex=/usr/share/doc/libmillaudit-dev/examples
cc -std=c99 -Wall -Werror $ex/verify_one.c $(pkg-config --cflags --libs millaudit) -o /tmp/verify_one
readlink -f "$(ldd /tmp/verify_one | awk '/libmillaudit/ {print $3}')"
/tmp/verify_one /tmp/g
c++ -std=c++17 -Wall -Werror $ex/verify_probe.cpp $(pkg-config --cflags --libs millaudit) -o /tmp/verify_probe
/tmp/verify_probe /tmp/g a1,d1,g1/a7,d7,g7 | sed -n '1p;/^position/p;$p'
cc -std=c99 $ex/verify_one.c $(pkg-config --cflags --libs millaudit-static) -o /tmp/verify_one_static
ldd /tmp/verify_one_static | grep -c libmillaudit || true
python3 -c 'import millaudit; r = millaudit.verify("/tmp/g"); p = millaudit.probe("/tmp/g", "a1,d1,g1/a7,d7,g7");
print("python:", r.verdict, r.exit_code, p["stored"]["text"], millaudit._L._name)'
dpkg -r python3-millaudit libmillaudit-dev millaudit libmillaudit0 >>/debs/dpkg.log 2>&1
python3 -c 'import millaudit' 2>/dev/null || echo "removed: no module"
test ! -e /usr/lib/libmillaudit.so.0 && echo "removed: no library"
"""


def test_debs_install_and_run_on_a_clean_root(debs, millaudit, tmp_path):
    """The four packages installed for real by dpkg (dependencies checked against the installed
    system, maintainer scripts and triggers run) on an overlay of this Debian system whose source
    and build trees, /tmp and /root are hidden, then used as a user would: the command solves and
    verifies a game; a C and a C++ program built with pkg-config alone link the installed library
    through the loader's default path (and statically through millaudit-static); the system's
    python3 imports the module with no PYTHONPATH; removing the packages takes it all away."""
    need("unshare")
    need("chroot")
    skip_unless(os.geteuid() == 0, "a clean-root install needs root (mount, chroot, dpkg)")
    skip_unless(subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0,
                "unshare -m refused: no mount namespace for the clean root")
    upper, work, merged, debdir = (tmp_path / n for n in ("upper", "work", "merged", "debs"))
    for d in (upper, work, merged, debdir):
        d.mkdir()
    for deb in debs.values():
        shutil.copy(deb, debdir)
    (debdir / "test.sh").write_text(CLEAN_ROOT_SCRIPT)
    m = str(merged)
    setup = f"""set -e
mount -t overlay overlay -o lowerdir=/,upperdir={upper},workdir={work} {m}
mount -t proc proc {m}/proc
mount --rbind /dev {m}/dev
for d in /work /tmp /root /home; do [ -d "{m}$d" ] && mount -t tmpfs tmpfs "{m}$d"; done
mkdir -p {m}/debs && mount --bind {debdir} {m}/debs
exec chroot {m} /bin/sh /debs/test.sh
"""
    proc = subprocess.run(["unshare", "-m", "--propagation", "private", "--fork", "/bin/sh", "-c", setup],
                          capture_output=True, text=True, timeout=600)
    log = (debdir / "dpkg.log").read_text() if (debdir / "dpkg.log").exists() else ""
    skip_unless(not re.search(r"mount: .*(permission denied|not permitted)", proc.stderr, re.I),
                f"the clean root cannot be mounted here: {proc.stderr.strip()[-300:]}")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:] + log[-3000:]
    assert proc.stdout.splitlines() == [
        *(f"{p} install ok installed" for p in PACKAGES),
        millaudit.run("--version", check=0).stdout.strip(),
        "command: verified",
        "/usr/lib/libmillaudit.so.0.1.0",
        "/tmp/g: verified (entries 264399, verified 264399, discrepancies 0)",
        "verdict verified", "position a1,d1,g1/a7,d7,g7 sector std_3_3_0_0 entry 1329: win 3", "exit 0",
        "0",
        "python: verified 0 win 3 /usr/lib/libmillaudit.so.0",
        "removed: no module", "removed: no library"], proc.stdout + proc.stderr
