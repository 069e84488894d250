"""A cluster of several nodes on this machine for the tests of the distributed recipes
(docs/distributed.md "A test cluster on one machine"), started and torn down by each test:

- a bridge in a namespace of its own (the hub) and one network namespace per machine: `ctl` (the
  login and controller machine: slurmctld, sbatch, GNU parallel) and node1..nodeN, each joined to
  the bridge by a veth pair with a private address 10.27.0.x that exists only inside these
  namespaces; nothing is routed out, so no packet leaves the machine;
- every machine also gets its own host name (a UTS namespace, so millaudit records node2 as the
  host of a run, as on a real cluster) and its own mount namespace in which BASE/node is its
  node-local disk (BASE/nodes/<name> bound there), while the rest of the file system (the test's
  temporary directory, the database, the shared OUT) is shared, like a cluster file system;
- with slurm=True: one munged (its socket a file, reachable from every namespace), slurmctld in
  `ctl`, one slurmd per node (-N <name>, its spool, pid and log on its node-local disk);
- with ssh=True: an sshd per node on its address, a host key and a client key generated for the
  test, an ssh client config (BASE/ssh/config) naming the nodes; GNU parallel uses it through
  PARALLEL_SSH, so root's own ~/.ssh is never read or written.

`kill_node(name)` SIGKILLs every process of the node's namespace (its slurmd, the task's shell and
millaudit: a node that died); `unplug(name)` sets its link down (a host that stops answering while
its processes live on). `stop()` kills every process of every namespace and deletes the namespaces;
the fixture calls it even when the test fails. Needs root, iproute2, util-linux (unshare), and the
Slurm, munge, openssh-server and parallel packages scripts/install-deps --test installs."""
import os
import pwd
import secrets
import shlex
import shutil
import signal
import subprocess
import time

NET = "10.27.0"
SLURM_TOOLS = ("munged", "slurmctld", "slurmd", "sbatch", "sinfo", "scontrol", "squeue")
SSH_TOOLS = ("sshd", "ssh", "ssh-keygen", "parallel")
BASE_TOOLS = ("ip", "nsenter", "unshare", "mount", "hostname")


def _tool(name):
    return shutil.which(name) or f"/usr/sbin/{name}"


def missing_tools(slurm=True, ssh=False):
    tools = BASE_TOOLS + (SLURM_TOOLS if slurm else ()) + (SSH_TOOLS if ssh else ())
    return [t for t in tools if not shutil.which(t) and not os.path.exists(f"/usr/sbin/{t}")]


def why_not(slurm=True, ssh=False):
    """None when this machine can run the test cluster, else the reason (for skip_unless)."""
    if os.geteuid() != 0:
        return "the test cluster needs root (network namespaces, daemons running as root)"
    missing = missing_tools(slurm, ssh)
    if missing:
        return f"test cluster tools absent: {', '.join(missing)} (scripts/install-deps --test installs them)"
    probe = subprocess.run(["unshare", "--net", "--uts", "--mount", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"no network namespaces here (a container without CAP_SYS_ADMIN?): {probe.stderr.strip()}"
    return None


def _run(*cmd, check=True, timeout=60, **kw):
    return subprocess.run([str(c) for c in cmd], check=check, capture_output=True, text=True, timeout=timeout, **kw)


class TestCluster:
    __test__ = False  # not a pytest test class

    def __init__(self, base, nodes=3, slurm=True, ssh=False, cpus=1):
        self.base = base
        self.names = [f"node{i + 1}" for i in range(nodes)]
        self.slurm, self.ssh, self.cpus = slurm, ssh, cpus
        tag = secrets.token_hex(3)
        self.ns = {name: f"ma27{tag}-{name}" for name in ["hub", "ctl", *self.names]}
        self.addr = {"ctl": f"{NET}.1", **{n: f"{NET}.{11 + i}" for i, n in enumerate(self.names)}}
        # the recipes seal every shard store (docs/distributed.md "Sealing"); their key is the
        # cluster's own, never the user's ~/.config/millaudit/seal.key
        self.env = dict(os.environ, MILLAUDIT_SEAL_KEY=str(base / "seal.key"))
        self.procs = []
        self.munge_pid = None
        self.created = []

    # ---- the network ----

    def _network(self):
        for name, ns in self.ns.items():
            _run("ip", "netns", "add", ns)
            self.created.append(ns)
            _run("ip", "-n", ns, "link", "set", "lo", "up")
        hub = self.ns["hub"]
        _run("ip", "-n", hub, "link", "add", "br0", "type", "bridge")
        _run("ip", "-n", hub, "link", "set", "br0", "up")
        for i, name in enumerate(["ctl", *self.names]):
            ns, port = self.ns[name], f"port{i}"
            # the pair is made inside the hub with its peer placed in the machine's namespace at once:
            # no interface ever exists in the machine's own (root) namespace
            _run("ip", "-n", hub, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns)
            _run("ip", "-n", hub, "link", "set", port, "master", "br0", "up")
            _run("ip", "-n", ns, "addr", "add", f"{self.addr[name]}/24", "dev", "eth0")
            _run("ip", "-n", ns, "link", "set", "eth0", "up")

    def exec_cmd(self, machine, *cmd):
        """The argv that runs cmd on a machine (its network namespace). nsenter, not `ip netns exec`:
        that one mounts a sysfs of its own, without /sys/fs/cgroup, which slurmd needs."""
        return ["nsenter", f"--net=/run/netns/{self.ns[machine]}", *map(str, cmd)]

    def run(self, machine, *cmd, timeout=600, env=None, check=False):
        return subprocess.run(self.exec_cmd(machine, *cmd), capture_output=True, text=True, timeout=timeout,
                              env=env or self.env, check=check)

    def _boot(self, machine, script, log):
        """Starts `script` (sh) as the machine's first process: its own host name and mount namespace,
        BASE/nodes/<machine> bound on BASE/node (its local disk)."""
        local = self.base / "nodes" / machine
        local.mkdir(parents=True, exist_ok=True)
        boot = (f"hostname {machine} && mount --bind {local} {self.base / 'node'} && "
                f"mount --make-private {self.base / 'node'} && {script}")
        out = open(local / log, "w")
        self.procs.append(subprocess.Popen(
            self.exec_cmd(machine, "unshare", "--uts", "--mount", "--propagation", "private", "sh", "-c", boot),
            env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
        out.close()

    # ---- munge and Slurm ----

    def _slurm(self):
        b = self.base
        (b / "munge").mkdir()
        os.chmod(b / "munge", 0o700)
        key = b / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o600)
        sock = b / "munge" / "munge.socket"
        _run(_tool("munged"), f"--socket={sock}", f"--key-file={key}", f"--log-file={b}/munge/munged.log",
             f"--pid-file={b}/munge/munged.pid", f"--seed-file={b}/munge/munged.seed", "--force", timeout=30)
        self.munge_pid = int((b / "munge" / "munged.pid").read_text())
        (b / "state").mkdir()
        nodes = "\n".join(f"NodeName={n} NodeAddr={self.addr[n]} CPUs={self.cpus} RealMemory=2000 State=UNKNOWN"
                          for n in self.names)
        conf = b / "slurm.conf"
        # SlurmdTimeout: a killed node is DOWN (and its task requeued) within seconds, not minutes;
        # MinJobAge: `sbatch --wait` polls every 2 s only while that is under half of it (else up
        # to every 32 s);
        # cred_expire: a requeued job waits this long before it may start again (default 120 s);
        # the partitions: "low" may be preempted (requeued) by jobs of "high"
        conf.write_text(f"""ClusterName=millaudit-cluster
SlurmctldHost=ctl({self.addr['ctl']})
AuthType=auth/munge
AuthInfo=socket={sock},cred_expire=10
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={b}/state
SlurmdSpoolDir={b}/node/spool
SlurmctldPidFile={b}/nodes/ctl/slurmctld.pid
SlurmdPidFile={b}/node/slurmd.pid
SlurmctldLogFile={b}/nodes/ctl/slurmctld.log
SlurmdLogFile={b}/node/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=5
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=5
SlurmdTimeout=6
MessageTimeout=5
KillWait=5
JobRequeue=1
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
{nodes}
PartitionName=low Nodes=ALL Default=YES MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=REQUEUE
PartitionName=high Nodes=ALL MaxTime=INFINITE State=UP PriorityTier=2 PreemptMode=OFF
""")
        self.env["SLURM_CONF"] = str(conf)
        (b / "nodes" / "ctl").mkdir(parents=True, exist_ok=True)
        self._boot("ctl", f"exec {_tool('slurmctld')} -D -i", "slurmctld.out")
        for n in self.names:
            (b / "nodes" / n / "spool").mkdir(parents=True, exist_ok=True)
            self._boot(n, f"exec {_tool('slurmd')} -D -N {n}", "slurmd.out")

    def node_states(self):
        p = self.run("ctl", "sinfo", "-h", "-N", "-o", "%N %t", timeout=30)
        return dict(line.split() for line in p.stdout.splitlines() if line.strip()) if p.returncode == 0 else {}

    # ---- sshd ----

    def _sshd(self):
        d = self.base / "ssh"
        d.mkdir()
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", d / "host_key")
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", d / "id_ed25519")
        shutil.copy(d / "id_ed25519.pub", d / "authorized_keys")
        # sshd refuses to start without its privilege separation directory (the package's service
        # creates it at boot; there is no service here)
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        hosts = []
        for n in self.names:
            cfg = d / f"sshd-{n}.conf"
            cfg.write_text(f"""ListenAddress {self.addr[n]}
Port 22
HostKey {d / 'host_key'}
AuthorizedKeysFile {d / 'authorized_keys'}
PidFile none
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
AcceptEnv MILLAUDIT_*
""")
            hosts.append(f"Host {n}\n  HostName {self.addr[n]}\n")
        (d / "config").write_text("".join(hosts) + f"""Host *
  User root
  IdentityFile {d / 'id_ed25519'}
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  BatchMode yes
  ConnectTimeout 3
  ServerAliveInterval 1
  ServerAliveCountMax 3
  SendEnv MILLAUDIT_*
""")
        self.ssh_config = d / "config"
        self.env["PARALLEL_SSH"] = f"ssh -F {d / 'config'}"
        # bash run by sshd sources the user's ~/.bashrc even for a plain command; whatever that prints
        # (a CI machine's `pyenv init` warns on stderr) reaches GNU parallel's host check and breaks
        # it. A real cluster user fixes their .bashrc; here each node hides the start files in its
        # own mount namespace, so the test machine's shell setup cannot decide the outcome. A bind
        # that fails is logged in sshd.out and does not keep sshd from starting.
        home = pwd.getpwuid(os.getuid()).pw_dir
        quiet = "; ".join(f"{{ [ ! -f {shlex.quote(f)} ] || mount --bind /dev/null {shlex.quote(f)}; }}"
                            for f in ("/etc/bash.bashrc", *(os.path.join(home, rc) for rc in
                                      (".bashrc", ".bash_profile", ".bash_login", ".profile"))))
        for n in self.names:
            self._boot(n, f"{{ {quiet}; true; }} && exec /usr/sbin/sshd -D -e -f {d / f'sshd-{n}.conf'}", "sshd.out")

    def _ssh_ready(self):
        return all(self.run("ctl", "ssh", "-F", self.ssh_config, n, "true", timeout=30).returncode == 0
                   for n in self.names)

    # ---- lifecycle ----

    def start(self, timeout=90):
        try:
            (self.base / "node").mkdir(parents=True, exist_ok=True)
            self._network()
            if self.slurm:
                self._slurm()
            if self.ssh:
                self._sshd()
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                slurm_up = not self.slurm or (
                    sorted(self.node_states().items()) == [(n, "idle") for n in self.names])
                if slurm_up and (not self.ssh or self._ssh_ready()):
                    return self
                if any(p.poll() is not None for p in self.procs):
                    break
                time.sleep(0.3)
            raise RuntimeError(f"the test cluster did not come up:\n{self.logs()}")
        except BaseException:
            self.stop()
            raise

    def logs(self, tail=1500):
        out = []
        for f in sorted((self.base / "nodes").glob("*/*")):
            if f.is_file() and f.suffix in (".log", ".out"):
                out.append(f"--- {f.relative_to(self.base)}:\n{f.read_text(errors='replace')[-tail:]}")
        return "\n".join(out)

    def pids(self, machine):
        p = _run("ip", "netns", "pids", self.ns[machine], check=False)
        return [int(x) for x in p.stdout.split()]

    def kill_node(self, machine):
        """The node dies: every process of its namespace (slurmd, sshd, the task's shell and
        millaudit) is killed at once, no signal handler runs."""
        for _ in range(20):
            pids = self.pids(machine)
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
        raise RuntimeError(f"{machine}: processes survive SIGKILL: {self.pids(machine)}")

    def unplug(self, machine):
        """The host stops answering: its link goes down; its processes live on, cut off."""
        _run("ip", "-n", self.ns[machine], "link", "set", "eth0", "down")

    def stop(self):
        if self.slurm and "SLURM_CONF" in self.env and self.ns["ctl"] in self.created:
            try:
                self.run("ctl", "scontrol", "shutdown", timeout=15)
            except subprocess.TimeoutExpired:
                pass
        for ns in reversed(self.created):
            machine = next(m for m, n in self.ns.items() if n == ns)
            try:
                self.kill_node(machine)
            except RuntimeError:
                pass
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs = []
        for ns in reversed(self.created):
            _run("ip", "netns", "del", ns, check=False)
        self.created = []
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
