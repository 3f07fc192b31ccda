#!/usr/bin/env python3
"""ci/targets-table.py on made-up reports: a filesystem's runs of several suites (the default suite, IO500's
mdtest-easy and mdtest-hard) go in one row, the metadata phases' rates per sub-step in a table of their own,
and a metadata phase that ended in an error fails the table (exit 1).

Usage: targets_table_test.py CASE   (CASE: rates_per_sub_step, an_error_fails)
"""
import json
import os
import subprocess
import sys
import tempfile

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ci", "targets-table.py")
TARGET = {"fs_type": "ext4", "mount_source": "/dev/loop0", "devices": ["loop0"]}


def write(folder, name, phases):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"target": TARGET, "verdict": {"status": "passed"}, "phases": phases}, f)
    return path


def md_phase(name, rates, status="passed"):
    metrics = {f"{step}_ops_per_s": rate for step, rate in rates.items()}
    return {"name": name, "kind": "metadata", "status": status, "result": {"metrics": metrics}}


def run(args):
    return subprocess.run([sys.executable, TABLE] + args, capture_output=True, text=True, check=False)


def rates_per_sub_step(folder):
    default = write(folder, "ext4.json", [{"name": "collectives", "kind": "collectives", "status": "passed",
                                           "result": {"metrics": {"busbw.all_reduce.max": 5e9}}}])
    easy = write(folder, "ext4-easy.json",
                 [md_phase("mdtest-easy", {"create": 31000, "stonewall": 29000, "stat": 1.7e6, "remove": 64000})])
    hard = write(folder, "ext4-hard.json", [md_phase("mdtest-hard", {"create": 12000, "read": 45000})])
    r = run([f"ext4={default}", f"ext4={easy}", f"ext4={hard}"])
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    head = next(i for i, l in enumerate(lines) if l.startswith("filesystem") and "mdtest-easy create" in l)
    cols = [c.strip() for c in lines[head].split("|")]
    row = [c.strip() for c in lines[head + 2].split("|")]
    got = dict(zip(cols, row))
    expected = {"filesystem": "ext4", "mdtest-easy create": "3.1e+04", "mdtest-easy stonewall": "2.9e+04",
                "mdtest-easy stat": "1.7e+06", "mdtest-easy remove": "6.4e+04", "mdtest-hard create": "1.2e+04",
                "mdtest-hard read": "4.5e+04"}
    assert got == expected, f"{got} != {expected}\n{r.stdout}"
    # The three reports' phases are one row of the first table, and each report is listed.
    assert sum(1 for l in lines if l.startswith("ext4 (ext4;")) == 1, r.stdout
    assert sum(1 for l in lines if l.startswith("report: ext4:")) == 3, r.stdout


def an_error_fails(folder):
    bad = write(folder, "ext4-easy.json", [dict(md_phase("mdtest-easy", {}, "error"), reason="open md/x: EACCES")])
    r = run([f"ext4={bad}"])
    assert r.returncode == 1, r.stdout + r.stderr
    assert "phase mdtest-easy error: open md/x: EACCES" in r.stderr, r.stderr


if __name__ == "__main__":
    cases = {"rates_per_sub_step": rates_per_sub_step, "an_error_fails": an_error_fails}
    with tempfile.TemporaryDirectory() as d:
        cases[sys.argv[1]](d)
    print("ok")
