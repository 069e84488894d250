"""The examples a team copies (ci/examples/, docs/nightly.md), checked as far as this machine can:

- GitHub Actions workflow and GitLab CI job: parsed with a YAML parser (python3-yaml), their
  structure checked (schedule, the ci/nightly step, the JUnit report and artifact paths match the
  --out directory), and the shell of their nightly step run here as written, with the paths of a
  scratch workspace and the 3-stone game instead of the 5-stone one (the Actions and GitLab
  machinery itself cannot run here: checkout, cache and upload steps are only checked for shape);
- systemd service and timer: `systemd-analyze verify` on copies whose paths point into this
  checkout (it works without a running systemd: it parses every setting and checks that ExecStart's
  program exists), `systemd-analyze calendar` on the timer's OnCalendar, and the service's
  ExecStart run with the arguments systemd would pass. systemd itself cannot start units here, so
  those arguments are derived by this test from the documented rules of systemd.exec(5) for
  Environment= and ExecStart= (quotes, \\" escapes, ${VAR} as one argument, $$ for $);
- crontab line: its five time fields checked, its command (with cron's \\% unescaped) run with
  /bin/sh as cron would.
"""
import os
import re
import shlex
import shutil
import subprocess

import pytest
import yaml

from conftest import ROOT
import junit_util

EXAMPLES = ROOT / "ci" / "examples"


def small(cmd):
    """The examples solve the 5-stone game; the tests the 3-stone one."""
    assert "--stones 5" in cmd
    return cmd.replace("--stones 5", "--stones 3")


def checkout(tmp_path, millaudit, where):
    """A millaudit 'installation' at tmp_path/where: ci/ and docs/ of this checkout, build/millaudit."""
    inst = tmp_path / where
    (inst / "build").mkdir(parents=True)
    (inst / "ci").symlink_to(ROOT / "ci")
    (inst / "docs").symlink_to(ROOT / "docs")
    (inst / "build" / "millaudit").symlink_to(millaudit.path)
    return inst


def run_shell(script, cwd, env, shell="bash"):
    proc = subprocess.run([shell, "-e", "-c", script], cwd=cwd, env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=600)
    return proc


def check_cron(expr):
    """Five fields of numbers, *, ranges, lists and steps within their bounds."""
    fields = expr.split()
    assert len(fields) == 5, expr
    bounds = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
    for field, (lo, hi) in zip(fields, bounds):
        for part in field.split(","):
            m = re.fullmatch(r"(\*|(\d+)(?:-(\d+))?)(?:/(\d+))?", part)
            assert m, f"cron field '{field}' of '{expr}'"
            for g in (m.group(2), m.group(3)):
                assert g is None or lo <= int(g) <= hi, f"cron field '{field}' out of {lo}-{hi}"


def nightly_results(results):
    """The night finished clean and its JUnit files validate."""
    summary = (results / "summary.txt").read_text()
    assert re.search(r"^result     exit 0: clean\b", summary, re.M), summary
    files = sorted(results.glob("*.junit.xml"))
    assert {f.name for f in files} >= {"verify.junit.xml", "regressions.junit.xml"}
    for f in files:
        junit_util.validate(f)
    return summary


def test_github_actions_workflow(millaudit, tmp_path):
    doc = yaml.safe_load((EXAMPLES / "github-actions.yml").read_text())
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads the key `on` as true
    check_cron(on["schedule"][0]["cron"])
    job = doc["jobs"]["nightly"]
    steps = {s["name"]: s for s in job["steps"]}
    run = steps["Nightly consistency check"]["run"]
    assert "millaudit/ci/nightly" in run
    words = shlex.split(run.replace("\\\n", " "))
    store = words[words.index("--store") + 1]
    out = words[words.index("--out") + 1]
    ws = "${{ github.workspace }}"
    assert job["env"]["NIGHTLY_DIR"] == f"{ws}/nightly"
    assert out == "$NIGHTLY_DIR/results" and store == "$NIGHTLY_DIR/history.sqlite"
    # what is kept, cached and shown is what ci/nightly writes
    assert steps["Keep the results"]["with"]["path"].rstrip("/") == "nightly/results"
    assert steps["Keep the results"]["if"] == "always()"
    assert steps["Show the JUnit reports"]["with"]["report_paths"] == "nightly/results/*.junit.xml"
    assert steps["Restore the history store"]["with"]["path"] == "nightly/history.sqlite"
    assert steps["Save the history store"]["with"]["path"] == "nightly/history.sqlite"
    # the nightly step, run here as written, twice (the second night compares with the first)
    ws_dir = tmp_path / "ws"
    checkout(ws_dir, millaudit, "millaudit")
    env = {k: small(v) if k == "SOLVER_CMD" else v.replace(ws, str(ws_dir)) for k, v in job["env"].items()}
    for night in (1, 2):
        proc = run_shell(run, ws_dir, env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = nightly_results(ws_dir / "nightly" / "results")
    assert "baseline   run 1 " in summary
    # the summary step, run here as written: the night's Markdown report on the run's page, within a
    # job summary's and a pull-request comment's 65,536 characters
    step = steps["Summary of the night"]
    assert step["if"] == "always()" and "$GITHUB_STEP_SUMMARY" in step["run"]
    page = tmp_path / "step-summary.md"
    proc = run_shell(step["run"], ws_dir, {**env, "GITHUB_STEP_SUMMARY": str(page)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = page.read_text()
    assert text == (ws_dir / "nightly" / "results" / "report.md").read_text()
    assert text.startswith("# millaudit report: run 2 (verify)\n") and len(text) <= 65536
    assert "> **Verdict: fully verified: " in text


def test_weekly_mutation_run_workflow(tmp_path):
    """The weekly mutation run (ci/examples/github-actions-mutation.yml): its shape, and its quick step
    run here as written. The whole run (hours) is not: scripts/mutate --check proves every mutant
    still applies, and the full run's own figures are in docs/verifier.md."""
    doc = yaml.safe_load((EXAMPLES / "github-actions-mutation.yml").read_text())
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads the key `on` as true
    cron = on["schedule"][0]["cron"]
    check_cron(cron)
    minute, hour, dom, month, dow = cron.split()
    assert dom == month == "*" and dow.isdigit(), f"weekly: one day of the week, every week: {cron}"
    job = doc["jobs"]["mutation"]
    steps = {s["name"]: s for s in job["steps"]}
    assert steps["Check out the fixtures"]["with"]["path"] == "shared"  # ../shared beside the tree
    assert steps["Check out millaudit"]["with"]["path"] == "millaudit"
    assert "scripts/install-deps --test" in steps["Install the dependencies"]["run"]
    full = steps["Mutation run"]["run"]
    words = shlex.split(full.split("\n")[1].split("|")[0])
    assert words[0] == "millaudit/scripts/mutate" and "--only" not in words and "--check" not in words
    assert "pipefail" in full  # tee must not hide a surviving mutant's exit 1
    assert steps["Keep the figures"]["if"] == "always()"
    assert steps["Keep the figures"]["with"]["path"] == full.split("tee ")[1].strip()
    # the quick step, as written, in a checkout laid out as the job lays it out
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "millaudit").symlink_to(ROOT)
    proc = run_shell(steps["Every mutant still applies"]["run"], ws, {})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    n = sum(1 for line in (ROOT / "scripts" / "mutations.txt").read_text().splitlines() if line.startswith("=== "))
    assert f"{n} mutants: {n} apply, 0 stale" in proc.stdout


def test_weekly_generated_mutants_jobs():
    """The full generated set in the weekly workflow: one coverage map, the parts of --shard I/N
    covering 1..N exactly, each part fed the map and keeping its report, and a summary that reads
    every part's report and runs whether or not a part failed."""
    doc = yaml.safe_load((EXAMPLES / "github-actions-mutation.yml").read_text())
    jobs = doc["jobs"]
    cov_steps = {s["name"]: s for s in jobs["coverage"]["steps"]}
    words = shlex.split(cov_steps["Coverage map"]["run"])
    assert words[:4] == ["millaudit/scripts/mutate", "--generate", "--coverage-only", "--jobs"]
    workdir = words[words.index("--workdir") + 1]
    assert workdir == "$RUNNER_TEMP/mutate"
    assert cov_steps["Keep the coverage map"]["with"]["path"] == "${{ runner.temp }}/mutate/coverage.json"
    gen = jobs["generated"]
    assert gen["needs"] == "coverage" and gen["strategy"]["fail-fast"] is False
    parts = gen["strategy"]["matrix"]["part"]
    steps = {s["name"]: s for s in gen["steps"]}
    assert steps["Fetch the coverage map"]["with"]["name"] == cov_steps["Keep the coverage map"]["with"]["name"]
    assert steps["Fetch the coverage map"]["with"]["path"] == "${{ runner.temp }}/mutate"
    run = steps["Generated mutants"]["run"]
    assert "pipefail" in run
    words = shlex.split(run.split("\n")[1].split("|")[0])
    assert words[:2] == ["millaudit/scripts/mutate", "--generate"] and "--sample" not in words
    shard = words[words.index("--shard") + 1]
    n = int(shard.split("/")[1])
    assert shard == "${{ matrix.part }}/%d" % n and parts == list(range(1, n + 1))
    assert words[words.index("--workdir") + 1] == workdir
    assert words[words.index("--report") + 1] == "generated-${{ matrix.part }}.jsonl"
    assert steps["Keep the report"]["if"] == "always()"
    assert steps["Keep the report"]["with"]["path"] == "generated-${{ matrix.part }}.*"
    summary = jobs["generated-summary"]
    assert summary["needs"] == "generated" and summary["if"] == "always()"
    s_steps = {s["name"]: s for s in summary["steps"]}
    fetch = s_steps["Fetch the reports"]["with"]
    assert fetch["pattern"] == "millaudit-generated-*-${{ github.run_id }}" and fetch["merge-multiple"] is True
    assert steps["Keep the report"]["with"]["name"] == "millaudit-generated-${{ matrix.part }}-${{ github.run_id }}"
    line = s_steps["Kill rate per file and the survivors"]["run"]
    assert "pipefail" in line
    assert "millaudit/scripts/mutate --summary " + fetch["path"] + "/generated-*.jsonl" in line


def test_gitlab_ci_job(millaudit, tmp_path):
    doc = yaml.safe_load((EXAMPLES / "gitlab-ci.yml").read_text())
    job = doc["millaudit-nightly"]
    assert any("schedule" in r["if"] for r in job["rules"])
    assert job["artifacts"]["when"] == "always"
    assert job["artifacts"]["reports"]["junit"] == "results/*.junit.xml"
    assert job["artifacts"]["paths"] == ["results/"]
    script = "\n".join(job["script"])
    words = shlex.split(script)
    assert words[0] == "millaudit/ci/nightly"
    assert words[words.index("--out") + 1] == "results"
    assert words[words.index("--store") + 1] == "$NIGHTLY_DIR/history.sqlite"
    # the job's script, as written; before_script (clone and build) is what this suite already did
    project = tmp_path / "project"
    checkout(project, millaudit, "millaudit")
    env = {k: str(v) for k, v in job["variables"].items()}
    env["SOLVER_CMD"] = small(env["SOLVER_CMD"])
    env["NIGHTLY_DIR"] = str(tmp_path / "srv")
    env["CI_PROJECT_DIR"] = str(project)
    env["MILLAUDIT"] = env["MILLAUDIT"].replace("$CI_PROJECT_DIR", str(project))
    proc = run_shell(script, project, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    nightly_results(project / "results")


def unit_settings(text):
    """(section, key) -> [values] of a systemd unit file (repeated keys kept in order)."""
    out, section = {}, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, value = line.split("=", 1)
        out.setdefault((section, key.strip()), []).append(value.strip())
    return out


def systemd_environment(values):
    """Environment= lines as systemd.exec(5) reads them: whitespace-separated assignments, each
    optionally in double quotes with C-style escapes (\\" and \\\\); no $ expansion."""
    env = {}
    for value in values:
        for word in re.findall(r'"(?:\\.|[^"\\])*"|\S+', value):
            if word.startswith('"'):
                word = re.sub(r"\\(.)", r"\1", word[1:-1])
            k, v = word.split("=", 1)
            env[k] = v
    return env


def systemd_argv(exec_start, env):
    """ExecStart= words as systemd.exec(5) splits them: ${VAR} alone is exactly one argument,
    $$ is a literal $; the example uses nothing else (no quotes, no $VAR splitting)."""
    argv = []
    for word in exec_start.split():
        m = re.fullmatch(r"\$\{(\w+)\}", word)
        argv.append(env.get(m.group(1), "") if m else word.replace("$$", "$"))
    for w in argv:  # anything else would need rules this parser does not implement
        assert "$" not in w or w in env.values(), argv
    return argv


def test_systemd_service_and_timer(millaudit, tmp_path):
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze missing: scripts/install-deps --test installs systemd"
    inst = checkout(tmp_path, millaudit, "opt/millaudit")
    state = tmp_path / "var" / "lib" / "millaudit"
    state.mkdir(parents=True)
    units = tmp_path / "units"
    units.mkdir()
    for name in ("millaudit-nightly.service", "millaudit-nightly.timer"):
        text = (EXAMPLES / name).read_text()
        (units / name).write_text(text.replace("/opt/millaudit", str(inst)).replace("/var/lib/millaudit", str(state)))
    proc = subprocess.run([analyze, "verify", str(units / "millaudit-nightly.service"),
                           str(units / "millaudit-nightly.timer")], capture_output=True, text=True,
                          env={**os.environ, "SYSTEMD_LOG_LEVEL": "notice"})
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == "", proc.stdout + proc.stderr
    # a broken copy is refused, so the verification above means something
    broken = units / "broken.service"
    broken.write_text((units / "millaudit-nightly.service").read_text().replace(str(inst / "ci" / "nightly"),
                                                                                 str(inst / "ci" / "missing")))
    assert subprocess.run([analyze, "verify", str(broken)], capture_output=True, text=True).returncode != 0
    timer = unit_settings((units / "millaudit-nightly.timer").read_text())
    assert timer[("Timer", "Unit")] == ["millaudit-nightly.service"]
    assert timer[("Install", "WantedBy")] == ["timers.target"]
    proc = subprocess.run([analyze, "calendar", timer[("Timer", "OnCalendar")][0]], capture_output=True, text=True)
    assert proc.returncode == 0 and "Next elapse:" in proc.stdout, proc.stdout + proc.stderr
    # ExecStart runs ci/nightly; run it with the arguments systemd would pass
    svc = unit_settings((units / "millaudit-nightly.service").read_text())
    env = systemd_environment(svc[("Service", "Environment")])
    argv = systemd_argv(svc[("Service", "ExecStart")][0], env)
    assert argv[0] == str(inst / "ci" / "nightly")
    assert env["SOLVER_CMD"].endswith('--out "$OUT" --quiet')
    argv[argv.index("--solver-cmd") + 1] = small(argv[argv.index("--solver-cmd") + 1])
    cwd = svc[("Service", "WorkingDirectory")][0]
    proc = subprocess.run(argv, cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    nightly_results(state / "results")
    assert (state / "history.sqlite").exists()


def test_crontab_line(millaudit, tmp_path):
    lines = [ln for ln in (EXAMPLES / "crontab").read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    assert len(lines) == 1
    fields = lines[0].split(None, 5)
    check_cron(" ".join(fields[:5]))
    command = fields[5]
    assert "/opt/millaudit/ci/nightly" in command
    assert "%" not in command.replace("\\%", ""), "cron ends the command at an unescaped %"
    inst = checkout(tmp_path, millaudit, "opt/millaudit")
    state = tmp_path / "var" / "lib" / "millaudit"
    state.mkdir(parents=True)
    command = small(command.replace("\\%", "%").replace("/opt/millaudit", str(inst))
                    .replace("/var/lib/millaudit", str(state)))
    proc = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, timeout=600,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})  # cron's sparse environment
    assert proc.returncode == 0, proc.stdout + proc.stderr + (state / "nightly.log").read_text()
    days = list((state / "results").iterdir())
    assert len(days) == 1 and re.fullmatch(r"\d{4}-\d{2}-\d{2}", days[0].name)
    nightly_results(days[0])
    assert "result     exit 0" in (state / "nightly.log").read_text()
