"""A single-node Slurm cluster on localhost for the tests, from Debian's slurmctld, slurmd and munge:
munged with its key, socket, pid, log and seed in a private directory (the default /run/munge does
not exist without systemd), Slurm pointed at that socket (AuthInfo=socket=...), state and spool
directories under the test's temporary directory, ProctrackType=proctrack/linuxproc and
TaskPlugin=task/none (no cgroups needed), MinJobAge=4 so `sbatch --wait` returns within seconds.
Every client command needs SLURM_CONF, which `env` carries. Start-up takes about a second; stop()
shuts the daemons down (scontrol shutdown, then the saved PIDs)."""
import os
import shutil
import signal
import socket
import subprocess
import time

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "sinfo", "scontrol")


def missing_tools():
    return [t for t in DAEMONS if not shutil.which(t) and not os.path.exists(f"/usr/sbin/{t}")]


def _tool(name):
    return shutil.which(name) or f"/usr/sbin/{name}"


def _free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


class Cluster:
    def __init__(self, base):
        self.base = base
        self.procs = []
        self.munge_pid = None
        # the recipes seal every shard store with the cluster's own key (docs/distributed.md "Sealing")
        self.env = dict(os.environ, MILLAUDIT_SEAL_KEY=str(base / "seal.key"))

    def start(self, timeout=60):
        b = self.base
        for d in ("munge", "state", "spool", "log"):
            (b / d).mkdir(parents=True, exist_ok=True)
        os.chmod(b / "munge", 0o700)
        key = b / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o600)
        sock = b / "munge" / "munge.socket"
        subprocess.run([_tool("munged"), f"--socket={sock}", f"--key-file={key}", f"--log-file={b}/munge/munged.log",
                        f"--pid-file={b}/munge/munged.pid", f"--seed-file={b}/munge/munged.seed", "--force"],
                       check=True, capture_output=True, timeout=30)
        self.munge_pid = int((b / "munge" / "munged.pid").read_text())
        ctld_port, slurmd_port = _free_ports(2)
        conf = b / "slurm.conf"
        conf.write_text(f"""ClusterName=millaudit-test
SlurmctldHost=localhost
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
StateSaveLocation={b}/state
SlurmdSpoolDir={b}/spool
SlurmctldPidFile={b}/slurmctld.pid
SlurmdPidFile={b}/slurmd.pid
SlurmctldLogFile={b}/log/slurmctld.log
SlurmdLogFile={b}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=4
NodeName=localhost CPUs={os.cpu_count() or 1} RealMemory=2000 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
""")
        self.env["SLURM_CONF"] = str(conf)
        for cmd, log in (([_tool("slurmctld"), "-D", "-i"], "slurmctld.out"),
                         ([_tool("slurmd"), "-D", "-N", "localhost"], "slurmd.out")):
            with open(b / "log" / log, "w") as out:
                self.procs.append(subprocess.Popen(cmd, env=self.env, stdout=out, stderr=subprocess.STDOUT))
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            p = subprocess.run([_tool("sinfo"), "-h", "-o", "%t"], env=self.env, capture_output=True, text=True)
            if p.returncode == 0 and p.stdout.strip() == "idle":
                return self
            if any(pr.poll() is not None for pr in self.procs):
                break
            time.sleep(0.2)
        logs = "\n".join(f"{f.name}:\n{f.read_text()[-2000:]}" for f in sorted((b / "log").iterdir()))
        self.stop()
        raise RuntimeError(f"the test Slurm cluster did not come up:\n{logs}")

    def stop(self):
        if "SLURM_CONF" in self.env:
            subprocess.run([_tool("scontrol"), "shutdown"], env=self.env, capture_output=True, timeout=30)
        for p in self.procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs = []
        if self.munge_pid:
            try:
                os.kill(self.munge_pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            for _ in range(50):
                try:
                    os.kill(self.munge_pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            self.munge_pid = None
