"""The distributed recipes under the faults of a real cluster (docs/distributed.md "Faults"), on a
cluster of several nodes built on this machine for each test and torn down after it, also when it
fails (tests/integration/cluster.py: network namespaces, one slurmctld, a slurmd per node, munge;
sshd per node for GNU parallel):

- a node dies (its slurmd, the task's shell and millaudit killed at once) while its array task
  runs: Slurm requeues the task on another node, which resumes the shard from the shared store
  (or, with node-local stores, starts it again cleanly); the merge equals a single run;
- a task's time limit comes while a sector is being checked: Slurm's warning signal stops verify
  cleanly (143, the sector committed), the task requeues itself and resumes; the merge equals a
  single run;
- a task is preempted by a job of a higher partition: Slurm's SIGTERM stops verify cleanly, Slurm
  requeues the task, it resumes; the merge equals a single run;
- a host of GNU parallel stops answering mid-run (its link set down, its task left running): the
  rerun refuses to take over the run it left while that run may live, then, told the host is down
  (--stale-after 0), finishes only the shards without a finished run; the merge equals a single run.

The database is the 4-stone standard game with one planted fault (found: exit 1 as the single run).
The stop points are the test build's hooks (cli/test_hook.h, millaudit-planted): a task pauses after
checking a known sector, so the node is killed, the signal arrives and the link goes down at one
known point of the run, not at a time that races the run's speed. Needs root and the packages
scripts/install-deps --test installs; skips with the reason without them, fails under CI."""
import shutil
import subprocess
import tempfile
import time
import pathlib

import pytest

from conftest import skip_unless

from cluster import TestCluster, why_not
from merge_util import ROOT, assert_same_run, plant_fault, sql

SUBMIT = ROOT / "ci" / "slurm" / "millaudit-slurm"
PARALLEL = ROOT / "ci" / "parallel" / "millaudit-parallel"
FINISHED = ("ok", "discrepancies")


def _cluster(**kw):
    why = why_not(slurm=kw.get("slurm", True), ssh=kw.get("ssh", False))
    skip_unless(why is None, why)
    # a short base path: munge's socket path must fit a sockaddr_un (108 bytes)
    base = pathlib.Path(tempfile.mkdtemp(prefix="ma27-", dir="/tmp"))
    c = TestCluster(base, **kw).start()
    return c


@pytest.fixture
def slurm_cluster():
    c = _cluster(nodes=3, slurm=True)
    yield c
    c.stop()
    shutil.rmtree(c.base, ignore_errors=True)


@pytest.fixture
def ssh_cluster():
    c = _cluster(nodes=3, slurm=False, ssh=True)
    yield c
    c.stop()
    shutil.rmtree(c.base, ignore_errors=True)


@pytest.fixture(scope="module")
def game4(millaudit, tmp_path_factory):
    db = tmp_path_factory.mktemp("g4") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "4", "--out", db, "--quiet", check=0)
    plant_fault(millaudit, db)
    return db


@pytest.fixture(scope="module")
def single(millaudit, game4, tmp_path_factory):
    store = tmp_path_factory.mktemp("single") / "single.sqlite"
    millaudit.run("verify", game4, "--audit", store, "--quiet", "--threads", "2", check=1)
    return store


def check_order(millaudit, game4, shard, n, tmp_path):
    """The sectors of shard I/N in the order a run checks and commits them (children first)."""
    store = tmp_path / f"order-{shard}-of-{n}.sqlite"
    millaudit.run("verify", game4, "--shard", f"{shard}/{n}", "--audit", store, "--quiet", "--threads", "1")
    return [r[0] for r in sql(store, "SELECT sector FROM sector_results ORDER BY rowid")]


def finished_status(single, sectors):
    """The status a finished run of these sectors records: "discrepancies" when the single run found
    one in any of them (the planted fault), else "ok". Known from the plan, never read from the run."""
    faulty = {r[0] for r in sql(single, "SELECT sector FROM sector_results WHERE discrepancies > 0")}
    assert faulty, "the single run found no planted fault"
    return "discrepancies" if faulty & set(sectors) else "ok"


def wait_paused(ctl, proc, cluster, what):
    """Waits until a task reached the hook's step (ctl/paused); fails with the logs if the run ended
    before, or never got there (a guard against a hang, not a measure of speed)."""
    end = time.monotonic() + 600
    while not (ctl / "paused").exists():
        if proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"{what} ended before its task paused:\n{out}\n{err}\n{cluster.logs()}")
        assert time.monotonic() < end, f"{what}: no task reached the step in 10 minutes\n{cluster.logs()}"
        time.sleep(0.05)


def shard_runs(store):
    return sql(store, "SELECT id, mode, status, host, resumed_from, ended_at IS NOT NULL FROM runs"
                      " WHERE kind = 'verify' ORDER BY id")


def logs_of(out):
    return "\n".join(f"--- {f.name}:\n{f.read_text()[-2500:]}" for f in sorted((out / "logs").glob("*.out")))


@pytest.mark.parametrize("placement", ["shared", "local"])
def test_a_node_killed_under_its_array_task_is_survived(millaudit, millaudit_planted, game4, single, tmp_path,
                                                        slurm_cluster, placement):
    c, n, victim = slurm_cluster, 6, 5
    # shard 5 holds 16 small sectors; its task pauses after checking the last, the others committed
    order = check_order(millaudit, game4, victim, n, tmp_path)
    assert len(order) > 2
    out, ctl = tmp_path / "out", tmp_path / "ctl"
    ctl.mkdir()
    env = dict(c.env, MILLAUDIT_TEST_STEP=f"checked:{order[-1]}", MILLAUDIT_TEST_STEP_DIR=str(ctl))
    args = [SUBMIT, game4, "--shards", n, "--out", out, "--millaudit", millaudit_planted.path, "--wait"]
    if placement == "local":
        args += ["--local-store", c.base / "node" / "scratch"]  # each node's own disk
    proc = subprocess.Popen(c.exec_cmd("ctl", *args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        wait_paused(ctl, proc, c, "the array")
        # the task's node: the host its run recorded (on the node-local disk, or in OUT)
        if placement == "shared":
            store = out / f"shard-{victim}-of-{n}.sqlite"
        else:
            store = next((c.base / "nodes").glob(f"node*/scratch/millaudit-*/shard-{victim}-of-{n}.sqlite"))
        first = shard_runs(store)
        assert len(first) == 1 and first[0][5] == 0, first  # a full run in progress
        dead = first[0][3]
        before = sql(store, "SELECT count(*) FROM sector_results")[0][0]
        assert 0 < before < len(order)
        c.kill_node(dead)
        # the requeued attempt checks that sector again and must not pause there
        (ctl / "resume").touch()
        stdout, stderr = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    logs = f"{stdout}\n{stderr}\n{logs_of(out)}\n{c.logs()}"
    assert proc.returncode == 1, logs  # discrepancies: the planted fault, as in the single run
    assert "verdict: discrepancies found" in stdout, logs
    assert c.node_states()[dead].startswith("down"), c.node_states()
    assert_same_run(single, out / "merged.sqlite")
    assert sql(out / "merged.sqlite", "SELECT count(*), min(shard_count) FROM run_shards") == [(n, n)]
    runs = shard_runs(out / f"shard-{victim}-of-{n}.sqlite")
    log = (out / "logs" / f"shard-{victim}.out").read_text()
    if placement == "shared":
        # the requeued task resumed the dead node's run on another node: its sectors carried over
        # (the resume closes the run it took over as interrupted)
        want = finished_status(single, order)
        assert [(r[1], r[2], r[4]) for r in runs] == [("full", "interrupted", None), ("resume", want, 1)], runs
        assert runs[0][3] == dead and runs[1][3] != dead, runs
        assert f"its run was left on {dead}, which Slurm reports down" in log, log
    else:
        # nothing was gathered from the dead node: the shard started again cleanly elsewhere; the
        # dead node's disk still holds its unfinished store, which no merge sees
        assert [(r[1], r[2], r[4], r[5]) for r in runs] == [("full", finished_status(single, order), None, 1)], runs
        assert runs[0][3] != dead, runs
        assert f"store gathered from {runs[0][3]}:" in log, log
        assert shard_runs(store)[0][3] == dead and shard_runs(store)[0][5] == 0
    # every other shard ran once
    for i in range(n - 1):
        assert len(shard_runs(out / f"shard-{i}-of-{n}.sqlite")) == 1


def test_a_time_limit_stops_commits_requeues_and_resumes(millaudit, millaudit_planted, game4, single, tmp_path,
                                                         slurm_cluster):
    c, n, slow = slurm_cluster, 3, 2
    # shard 2 holds 23 sectors; the one in the middle "needs longer than the limit": its task
    # pauses after checking it until a stop signal comes (the hook's pause ends on SIGTERM)
    order = check_order(millaudit, game4, slow, n, tmp_path)
    sector = order[len(order) // 2]
    out, ctl = tmp_path / "out", tmp_path / "ctl"
    ctl.mkdir()
    env = dict(c.env, MILLAUDIT_TEST_STEP=f"checked:{sector}", MILLAUDIT_TEST_STEP_DIR=str(ctl))
    # a limit of one minute (Slurm's unit), the warning 10 s before it: Slurm sends it at its first
    # time-limit check after 20 s (it checks every 30 s, warning that much earlier)
    proc = subprocess.run(c.exec_cmd("ctl", SUBMIT, game4, "--shards", n, "--out", out, "--millaudit",
                                     millaudit_planted.path, "--time", "1", "--signal-before", "10", "--wait"),
                          env=env, capture_output=True, text=True, timeout=600)
    logs = f"{proc.stdout}\n{proc.stderr}\n{logs_of(out)}\n{c.logs()}"
    assert proc.returncode == 1, logs
    assert (ctl / "paused").exists(), logs
    store = out / f"shard-{slow}-of-{n}.sqlite"
    runs = shard_runs(store)
    # the first attempt stopped cleanly (interrupted, ended) with the slow sector committed; the
    # requeued attempt resumed it and finished
    assert [(r[1], r[2], r[4], r[5]) for r in runs] == [("full", "interrupted", None, 1),
                                                        ("resume", finished_status(single, order), 1, 1)], runs
    committed = [r[0] for r in sql(store, "SELECT sector FROM sector_results WHERE run_id = 1 ORDER BY rowid")]
    assert committed[-1] == sector and len(committed) < len(order), committed
    log = (out / "logs" / f"shard-{slow}.out").read_text()
    assert "the time limit is near (SIGUSR1)" in log and "verify exited 143" in log, log
    assert "requeueing job" in log and "resuming it" in log, log
    assert_same_run(single, out / "merged.sqlite")
    for i in range(n):
        if i != slow:
            assert len(shard_runs(out / f"shard-{i}-of-{n}.sqlite")) == 1


def test_a_preempted_task_stops_cleanly_and_resumes(millaudit, millaudit_planted, game4, single, tmp_path,
                                                    slurm_cluster):
    c, n, slow = slurm_cluster, 3, 2
    order = check_order(millaudit, game4, slow, n, tmp_path)
    sector = order[len(order) // 2]
    out, ctl = tmp_path / "out", tmp_path / "ctl"
    ctl.mkdir()
    env = dict(c.env, MILLAUDIT_TEST_STEP=f"checked:{sector}", MILLAUDIT_TEST_STEP_DIR=str(ctl))
    # the array runs in the partition "low", whose jobs a job of "high" preempts (PreemptMode=REQUEUE)
    proc = subprocess.Popen(c.exec_cmd("ctl", SUBMIT, game4, "--shards", n, "--out", out, "--millaudit",
                                       millaudit_planted.path, "--partition", "low", "--wait"),
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_paused(ctl, proc, c, "the array")
        store = out / f"shard-{slow}-of-{n}.sqlite"
        host = shard_runs(store)[0][3]
        # a job of the higher partition needs that node's only CPU: Slurm preempts the shard's task
        # (SIGTERM to every process of it, then requeues it)
        high = c.run("ctl", "sbatch", "--parsable", "--partition", "high", "--nodelist", host, "--mem", "64M",
                     "--output", "/dev/null", "--wrap", "true")
        assert high.returncode == 0, high.stderr
        stdout, stderr = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    logs = f"{stdout}\n{stderr}\n{logs_of(out)}\n{c.logs()}"
    assert proc.returncode == 1, logs
    runs = shard_runs(store)
    assert [(r[1], r[2], r[4], r[5]) for r in runs][0] == ("full", "interrupted", None, 1), runs
    assert [(r[1], r[2], r[4], r[5]) for r in runs][1:] == [("resume", finished_status(single, order), 1, 1)], runs
    committed = [r[0] for r in sql(store, "SELECT sector FROM sector_results WHERE run_id = 1 ORDER BY rowid")]
    assert committed[-1] == sector, committed  # the sector being checked when the signal came
    log = (out / "logs" / f"shard-{slow}.out").read_text()
    assert "stopped by SIGTERM" in log and "verify exited 143" in log and "resuming it" in log, log
    assert_same_run(single, out / "merged.sqlite")


def test_a_parallel_host_that_stops_answering_is_rerun_only_where_missing(millaudit, millaudit_planted, game4,
                                                                           single, tmp_path, ssh_cluster):
    c, n, victim = ssh_cluster, 6, 5
    order = check_order(millaudit, game4, victim, n, tmp_path)
    out, ctl = tmp_path / "out", tmp_path / "ctl"
    ctl.mkdir()
    hosts = tmp_path / "hosts"
    hosts.write_text("".join(f"1/{name}\n" for name in c.names))  # one job at a time on each host
    args = [PARALLEL, game4, "--shards", n, "--out", out, "--sshloginfile", hosts, "--millaudit",
            millaudit_planted.path]
    # the hook's variables reach the hosts through ssh (SendEnv/AcceptEnv MILLAUDIT_*)
    env = dict(c.env, MILLAUDIT_TEST_STEP=f"checked:{order[-1]}", MILLAUDIT_TEST_STEP_DIR=str(ctl))
    proc = subprocess.Popen(c.exec_cmd("ctl", *args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        wait_paused(ctl, proc, c, "the parallel run")
        store = out / f"shard-{victim}-of-{n}.sqlite"
        gone = shard_runs(store)[0][3]
        c.unplug(gone)  # its task stays paused, cut off: it never commits again
        stdout, stderr = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    logs = f"{stdout}\n{stderr}\n{logs_of(out)}"
    assert proc.returncode == 3, logs  # the merge is incomplete: a shard is unfinished or missing
    stores = [out / f"shard-{i}-of-{n}.sqlite" for i in range(n)]

    def finished():
        return {i for i, s in enumerate(stores) if s.exists() and any(r[2] in FINISHED for r in shard_runs(s))}
    done = finished()
    assert victim not in done and len(done) < n, logs

    # the rerun on the hosts that answer: the run the lost host left may still be alive there, so
    # it is not taken over (exit 3 for that shard), the other missing shards finish
    rerun = c.run("ctl", *args, env=c.env)
    logs = f"{rerun.stdout}\n{rerun.stderr}\n{logs_of(out)}"
    assert rerun.returncode == 3, logs
    assert f"is still in progress (on {gone}" in (out / "logs" / f"shard-{victim}.out").read_text(), logs
    assert finished() == set(range(n)) - {victim}, logs
    # told that host is down, the rerun takes its run over and finishes only that shard
    rerun = c.run("ctl", *args, "--stale-after", "0", env=c.env)
    logs = f"{rerun.stdout}\n{rerun.stderr}\n{logs_of(out)}"
    assert rerun.returncode == 1, logs
    assert f"merged {n} shards of {n}" in rerun.stdout, logs
    assert_same_run(single, out / "merged.sqlite")
    for i in range(n):
        runs = shard_runs(stores[i])
        if i == victim:
            assert [(r[1], r[4]) for r in runs] == [("full", None), ("resume", 1)], runs
            assert runs[0][3] == gone and runs[1][3] != gone, runs
        else:
            assert len(runs) == 1, (i, runs)  # a finished shard is never checked again
            assert "not checked again" in (out / "logs" / f"shard-{i}.out").read_text()
