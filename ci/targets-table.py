#!/usr/bin/env python3
"""ci/targets' table: filesystem x phase from iofab JSON reports, and the checks that make ci/targets fail.

Usage: ci/targets-table.py KIND=REPORT.json ...   (KIND: gluster, xfs, btrfs or ext4)
Prints each phase's headline figure, its verdict and its verification level, then each report's path.
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
}
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


def main(args):
    problems = []
    rows = []
    phases = []
    notes = {}
    for arg in args:
        kind, _, path = arg.partition("=")
        try:
            with open(path, encoding="utf-8") as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            problems.append(f"{kind}: cannot read {path}: {e}")
            continue
        target = report.get("target", {})
        fs = target.get("fs_type", "")
        if fs != EXPECTED_FS.get(kind):
            problems.append(f"{kind}: target.fs_type is '{fs}', expected '{EXPECTED_FS.get(kind)}'")
        cells = {}
        for p in report.get("phases", []):
            name = p.get("name", "?")
            if name not in phases:
                phases.append(name)
            cells[name] = cell(p)
            if p.get("status") in ("error", "interrupted"):
                problems.append(f"{kind}: phase {name} {p.get('status')}: {p.get('reason', '')}")
            ver = p.get("verification")
            if p.get("kind") in ("ingest", "checkpoint", "restore", "train_read") and p.get("status") in (
                "passed",
                "failed",
            ):
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
        devices = ", ".join(target.get("devices", [])) or "none"
        label = f"{kind} ({fs}; {target.get('mount_source', '')}; devices: {devices})"
        rows.append((label, cells, report.get("verdict", {}).get("status", "?"), path))

    head = ["filesystem"] + phases + ["verdict"]
    table = [head] + [[label] + [cells.get(p, "-") for p in phases] + [verdict] for label, cells, verdict, _ in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    for i, r in enumerate(table):
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if i == 0:
            print("-+-".join("-" * w for w in widths))
    print()
    for (kind, direction), note in notes.items():
        print(f"{kind} ({direction}): {note}")
    print()
    for label, _, _, path in rows:
        print(f"report: {label.split(' ')[0]}: {path}")
    for p in problems:
        print(f"ci/targets: FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
