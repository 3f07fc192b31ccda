"""Simulated hosts for the `hosts` tests: ci/hosts up N before a test, down after it (on success, failure,
an exception, SIGINT or SIGTERM). Each test has its own state folder, so tests can run at once.

Runs are started by mpirun on the login node `head` through ci/hosts' rsh agent; every rank runs the iofab
under test (the build folder is on this machine's filesystem, which every simulated host sees)."""

import os
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from run_fixture import SKIP, Skip, collect as collect_as, read_report, wait_for  # noqa: E402,F401


# A run folder's name (harness/fs/run_dir.cc, is_run_dir_name): iofab-20261121T211400Z-3f9a2c.
RUN_DIR = re.compile(r"^iofab-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}$")


class Hosts:
    def __init__(self, repo, root, name, count):
        self.script = os.path.join(repo, "ci", "hosts")
        self.state = os.path.join(root, name, "state")
        # A folder every host sees at the same path (this machine's filesystem): the shared target and the
        # reports. Each host's /tmp is its own.
        self.shared = os.path.join(root, name, "shared")
        self.count = count

    def _hosts(self, *args, check=True, **kw):
        return subprocess.run([self.script, "--state", self.state, *args], check=check, **kw)

    def __enter__(self):
        # A folder left by an earlier run that was killed: take down whatever it still holds.
        self._hosts("down", check=False)
        shutil.rmtree(self.shared, ignore_errors=True)
        os.makedirs(self.shared)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._on_signal)
        r = self._hosts("up", str(self.count), check=False, capture_output=True, text=True)
        if r.returncode == SKIP:
            raise Skip(r.stderr.strip())
        if r.returncode != 0:
            raise RuntimeError("ci/hosts up failed: " + r.stderr)
        return self

    def _on_signal(self, signum, _frame):
        self.down()
        sys.exit(128 + signum)

    def down(self):
        self._hosts("down", check=False)

    def __exit__(self, *_exc):
        self.down()
        shutil.rmtree(os.path.dirname(self.shared), ignore_errors=True)
        return False

    def mpirun_args(self):
        return self._hosts("mpirun-args", capture_output=True, text=True).stdout.split()

    def start(self, argv, log):
        """Starts argv on the login node; returns the Popen (its stdout and stderr to log)."""
        out = open(log, "w")
        return subprocess.Popen([self.script, "--state", self.state, "exec", "head", *argv],
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def mpirun(self, hosts, iofab, iofab_args, log, extra=()):
        """mpirun of iofab on hosts (a list, one rank each: ["h1", "h2", "h1"] puts two on h1)."""
        slots = {}
        for h in hosts:
            slots[h] = slots.get(h, 0) + 1
        argv = ["mpirun", *self.mpirun_args(), "--host", ",".join(f"{h}:{n}" for h, n in slots.items()),
                "--map-by", "node" if len(set(hosts)) == len(hosts) else "slot", "-np", str(len(hosts)),
                *extra, iofab, *iofab_args]
        return self.start(argv, log)

    def slurm_up(self):
        """A Slurm cluster on the hosts (ci/hosts slurm-up): skipped when Slurm is not installed."""
        r = self._hosts("slurm-up", check=False, capture_output=True, text=True)
        if r.returncode == SKIP:
            raise Skip(r.stderr.strip())
        if r.returncode != 0:
            raise RuntimeError("ci/hosts slurm-up failed: " + r.stderr)
        self.slurm_env = self._hosts("slurm-env", capture_output=True, text=True).stdout.strip()

    def slurm(self, argv, log):
        """A Slurm command (srun, sbatch) on the login node."""
        return self.start(["env", self.slurm_env, *argv], log)

    def kill(self, host):
        """A node failure: its link down, every process on it killed."""
        self._hosts("kill", host)

    def run_dir_count(self, folder):
        """Run folders (iofab-<run id>) in folder; a clone under /tmp (/tmp/iofab-clone-x, which ci/hosts binds
        into each host's /tmp at its own path) is not one."""
        if not os.path.isdir(folder):
            return 0
        return len([e for e in os.listdir(folder) if RUN_DIR.match(e)])


def wait(proc, seconds):
    """The exit code, or None when the process did not end in time (then it is killed with its group)."""
    try:
        return proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return None


def iofab_running(marker):
    """True while a process of the run whose command line holds marker (its report path) is alive."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X") and args and os.path.basename(args[0]) == b"iofab" and marker.encode() in args:
            return True
    return False


def collect(report_path):
    """A report for the schema check, named after this test's process (hosts tests run at once)."""
    collect_as(report_path, f"hosts-{os.getpid()}-{os.path.basename(report_path)}")
