#!/usr/bin/env python3
"""ci/targets' table: filesystem x phase from iofab JSON reports, and the checks that make ci/targets fail.

Usage: ci/targets-table.py KIND=REPORT.json ...   (KIND: gluster, xfs, btrfs or ext4; a kind may come with
several reports, its runs of several suites: their phases go in one row)
Prints each phase's headline figure, its verdict and its verification level, then a table of the metadata
phases' rates, ops/s per sub-step (IO500's mdtest-easy and mdtest-hard), then each report's path.
Exits 1 when a report is unreadable, a phase ended in an error, the report does not name the filesystem
it ran on, or a storage phase's verification level is not the one its filesystem allows: the block
devices behind XFS, btrfs and ext4 on loop devices must prove every byte ("storage"); a GlusterFS FUSE
mount has nothing to count, so its figures must say "unverified: client cache not excluded".
"""
import json
import sys

EXPECTED_FS = {"gluster": "fuse.glusterfs", "xfs": "xfs", "btrfs": "btrfs", "ext4": "ext4"}
EXPECTED_LEVEL = {"gluster": "unverified", "xfs": "storage", "btrfs": "storage", "ext4": "storage"}
# The figure a person looks at first, per phase kind: (metric, how to print it).
HEADLINE = {
    "ingest": ("write_bytes_per_s", lambda v: f"{v / 1e6:.0f} MB/s"),
    "checkpoint": ("budget_margin", lambda v: f"margin {v:.2f}"),
    "restore": ("read_bytes_per_s", lambda v: f"{v / 1e6:.0f} MB/s"),
    "train_read": ("au", lambda v: f"AU {v:.2f}"),
    "prepare": ("input_bytes_per_s", lambda v: f"{v / 1e6:.0f} MB/s in"),
    "model_load": ("ready_seconds_max", lambda v: f"ready {v:.2f} s"),
    "collectives": ("busbw.all_reduce.max", lambda v: f"{v / 1e9:.2f} GB/s"),
    "metadata": ("create_ops_per_s", lambda v: f"create {v:.3g}/s"),
}
# The metadata phase's sub-steps, in run order, and IO500's stonewall rate of its create step.
MD_STEPS = ["mkdir", "create", "stonewall", "stat", "open", "read", "list", "rename", "remove", "rmdir"]
SHORT_LEVEL = {"storage": "verified", "client": "client-verified", "unverified": "UNVERIFIED"}


def cell(phase):
    status = phase.get("status", "?")
    if status in ("skipped", "error", "interrupted"):
        return status
    metric, fmt = HEADLINE.get(phase.get("kind"), (None, None))
    value = phase.get("result", {}).get("metrics", {}).get(metric) if metric else None
    text = fmt(value) if isinstance(value, (int, float)) else "-"
    text += " " + status
    ver = phase.get("verification")
    if ver:
        text += " [" + SHORT_LEVEL.get(ver.get("level"), "?") + "]"
    return text


def read_reports(args, problems):
    """KIND=PATH arguments -> [(kind, [(path, report), ...])], in the order the kinds first come."""
    kinds = {}
    for arg in args:
        kind, _, path = arg.partition("=")
        try:
            with open(path, encoding="utf-8") as f:
                kinds.setdefault(kind, []).append((path, json.load(f)))
        except (OSError, ValueError) as e:
            problems.append(f"{kind}: cannot read {path}: {e}")
            kinds.setdefault(kind, [])
    return list(kinds.items())


def check_phase(kind, p, problems, notes):
    name = p.get("name", "?")
    if p.get("status") in ("error", "interrupted"):
        problems.append(f"{kind}: phase {name} {p.get('status')}: {p.get('reason', '')}")
    ver = p.get("verification")
    if p.get("kind") not in ("ingest", "checkpoint", "restore", "train_read") or p.get("status") not in (
        "passed",
        "failed",
    ):
        return
    if not ver:
        problems.append(f"{kind}: phase {name} has no verification level")
    elif ver.get("level") != EXPECTED_LEVEL[kind]:
        problems.append(
            f"{kind}: phase {name}: verification '{ver.get('level')}', expected "
            f"'{EXPECTED_LEVEL[kind]}': {ver.get('note', '')}"
        )
    elif kind == "gluster" and "client cache not excluded" not in ver.get("note", ""):
        problems.append(f"{kind}: phase {name}: note does not say the client cache: {ver.get('note')}")
    notes.setdefault((kind, ver.get("direction", "")), ver.get("note", ""))


def md_rates(p):
    """A metadata phase's ops/s per sub-step that ran: {step: rate}."""
    metrics = p.get("result", {}).get("metrics", {})
    return {s: metrics[s + "_ops_per_s"] for s in MD_STEPS if isinstance(metrics.get(s + "_ops_per_s"), (int, float))}


def print_table(head, table):
    table = [head] + table
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    for i, r in enumerate(table):
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if i == 0:
            print("-+-".join("-" * w for w in widths))


def main(args):
    problems = []
    rows = []
    phases = []
    md_columns = []
    notes = {}
    for kind, reports in read_reports(args, problems):
        cells, md, verdicts, fs, target = {}, {}, [], "", {}
        for path, report in reports:
            target = report.get("target", {})
            fs = target.get("fs_type", "")
            if fs != EXPECTED_FS.get(kind):
                problems.append(f"{kind}: {path}: target.fs_type is '{fs}', expected '{EXPECTED_FS.get(kind)}'")
            verdicts.append(report.get("verdict", {}).get("status", "?"))
            for p in report.get("phases", []):
                name = p.get("name", "?")
                if name not in phases:
                    phases.append(name)
                cells[name] = cell(p)
                check_phase(kind, p, problems, notes)
                for step, rate in md_rates(p).items():
                    col = f"{name} {step}"
                    if col not in md_columns:
                        md_columns.append(col)
                    md[col] = f"{rate:.3g}"
        devices = ", ".join(target.get("devices", [])) or "none"
        label = f"{kind} ({fs}; {target.get('mount_source', '')}; devices: {devices})"
        verdict = "failed" if "failed" in verdicts else (verdicts[0] if verdicts else "?")
        rows.append((label, cells, md, verdict, [path for path, _ in reports]))

    print_table(["filesystem"] + phases + ["verdict"],
                [[label] + [cells.get(p, "-") for p in phases] + [v] for label, cells, _, v, _ in rows])
    if md_columns:
        print()
        print("metadata, ops/s per sub-step (stonewall: files made until the stonewall / its time):")
        print_table(["filesystem"] + md_columns,
                    [[label.split(" ")[0]] + [md.get(c, "-") for c in md_columns] for label, _, md, _, _ in rows])
    print()
    for (kind, direction), note in notes.items():
        print(f"{kind} ({direction}): {note}")
    print()
    for label, _, _, _, paths in rows:
        for path in paths:
            print(f"report: {label.split(' ')[0]}: {path}")
    for p in problems:
        print(f"ci/targets: FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
