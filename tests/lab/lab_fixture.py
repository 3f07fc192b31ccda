"""The lab for the `lab` tests: guests with their own kernels (ci/lab, docs/lab.md). One lab serves every lab
test: ctest's fixture `lab` brings it up first (the test Lab.up) and takes it down last (Lab.down), whatever
the tests did; each test also takes it down on SIGINT or SIGTERM. Runs start from vm1 with mpirun, which
reaches the other guests over ssh; reports come back through the lab's shared folder (9p, /lab/shared in
every guest, STATE/shared here)."""

import json
import os
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from run_fixture import SKIP, Skip, collect as collect_as, read_report, wait_for  # noqa: E402,F401

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


class Lab:
    def __init__(self):
        self.script = os.path.join(REPO, "ci", "lab")
        self.state = os.environ.get("IOFAB_LAB_STATE", os.path.join(REPO, "build", "lab"))
        self.shared = os.path.join(self.state, "shared")

    def lab(self, *args, check=True, timeout=None, **kw):
        return subprocess.run([self.script, *args], check=check, timeout=timeout,
                              env={**os.environ, "IOFAB_LAB_STATE": self.state}, **kw)

    def down(self):
        self.lab("down", check=False)

    def take_down_on_signals(self):
        def on_signal(signum, _frame):
            self.down()
            sys.exit(128 + signum)

        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, on_signal)

    def require_up(self):
        """Skips the test when the lab is not up (Lab.up skipped: no qemu, no root)."""
        if not os.path.exists(os.path.join(self.state, "guests")):
            raise Skip("the lab is not up (Lab.up skipped or failed)")
        self.take_down_on_signals()

    def accel(self):
        with open(os.path.join(self.state, "accel")) as f:
            return f.read().strip()

    def ssh(self, host, command, timeout):
        """command through sh on host; returns (exit code or None when it outlasted timeout, output)."""
        try:
            r = self.lab("ssh", host, command, check=False, timeout=timeout, capture_output=True, text=True)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            return None, out
        return r.returncode, r.stdout + r.stderr

    def fresh_dir(self, name):
        """An empty folder in the shared folder; its path in the guests."""
        path = os.path.join(self.shared, name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        os.chmod(path, 0o777)
        return "/lab/shared/" + name

    def run_iofab(self, iofab, hosts, args, name, timeout):
        """iofab run on hosts (a list, a rank each: ["vm1", "vm1"] puts two on vm1), started by mpirun in vm1;
        the report lands in the shared folder. Returns (exit code or None, report or None, console)."""
        out = self.fresh_dir(name)
        slots = {}
        for h in hosts:
            slots[h] = slots.get(h, 0) + 1
        mapping = "node" if len(slots) == len(hosts) else "slot"
        cmd = (f"mpirun --allow-run-as-root -H {','.join(f'{h}:{n}' for h, n in slots.items())} "
               f"--map-by {mapping} -np {len(hosts)} {iofab} run {' '.join(args)} "
               f"--out {out}/report.json --quiet")
        rc, text = self.ssh("vm1", cmd, timeout)
        path = os.path.join(self.shared, name, "report.json")
        report = None
        if os.path.exists(path):
            with open(path) as f:
                report = json.load(f)
            collect(path, name)
        return rc, report, text


def collect(report_path, name):
    """A report for the schema check, as lab-NAME.json."""
    collect_as(report_path, f"lab-{name}.json")


def phase(report, name):
    for p in report.get("phases", []):
        if p.get("name") == name:
            return p
    raise Failure(f"the report has no phase {name}: {[p.get('name') for p in report.get('phases', [])]}")
