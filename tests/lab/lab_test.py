#!/usr/bin/env python3
"""Runs of iofab on the lab's guests (ci/lab): `lab_test.py IOFAB TEST_NAME`, one ctest test each (label
`lab`, tests/CMakeLists.txt). `up` and `down` are the fixture's ends; every other test needs the lab up and
is skipped (exit 77) when it is not (no root, no qemu). Each run is bounded in time: a hang is a failure."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

from lab_fixture import REPO, SKIP, Failure, Lab, Skip, collect, expect, phase, read_report, wait_for

# Under emulation (tcg) on two shared cores; with KVM these take seconds.
RUN_S = 420


def test_up(lab, _iofab):
    lab.down()  # whatever an earlier run that was killed left
    t0 = time.monotonic()
    r = lab.lab("up", "2", check=False, capture_output=True, text=True)
    print(r.stdout + r.stderr)
    if r.returncode == SKIP:
        raise Skip(r.stderr.strip())
    expect(r.returncode == 0, f"ci/lab up failed ({r.returncode})")
    print(f"lab up in {time.monotonic() - t0:.0f} s, accel {lab.accel()}")
    for host in ("vm1", "vm2"):
        rc, out = lab.ssh(host, "uname -r; cat /sys/class/infiniband/rxe0/ports/1/state", 60)
        print(host, out.strip())
        expect(rc == 0 and "ACTIVE" in out, f"{host} has no active rxe0: {out}")


def test_down(lab, _iofab):
    lab.down()


def test_rdma_over_rxe(lab, iofab):
    """The rdma phases between two guests over Soft-RoCE: write, read and send on rxe0 with a RoCE v2 GID,
    latency, and the verbs ceiling beside the collectives run on the same ranks."""
    lab.require_up()
    rc, j, log = lab.run_iofab(iofab, ["vm1", "vm2"], ["lab-fabric", "--target", "/lab/shared/rdma"], "rdma",
                               RUN_S)
    expect(rc is not None, f"the run did not end within {RUN_S} s: {log}")
    expect(j is not None, f"no report (exit {rc}): {log}")
    expect("left_behind" not in j["target"], f"the run folder was left behind: {j['target']}")
    expect(rc == 0, f"exit {rc}: {log}")
    expect(j["cluster"]["rank_hosts"] == ["vm1", "vm2"], j["cluster"]["rank_hosts"])
    p = phase(j, "rdma_host")
    expect(p.get("status") == "passed", f"rdma_host: {p.get('status')} {p.get('reason', '')}")
    m = p["result"]["metrics"]
    for op in ("write", "read", "send"):
        expect(m.get(f"{op}_bytes_per_s.max", 0) > 0, f"no {op} bandwidth: {sorted(m)[:20]}")
        expect(m.get(f"{op}_latency_p50_s", 0) > 0, f"no {op} latency")
    details = p["result"]["details"]
    for rank, dev in enumerate(details["fabric"]):
        print(f"rank {rank}: {dev['device']} port {dev['port']} GID {dev['gid_index']} {dev['gid']} "
              f"({dev['gid_type']}, {dev['link_layer']}, MTU {dev['mtu']})")
        expect(dev["device"] == "rxe0" and dev["link_layer"] == "Ethernet", f"rank {rank}: {dev}")
        # The GID it chose: RoCE v2, built from the guest's IPv4 address (::ffff:10.214.0.1K).
        expect(dev["gid_type"] == "RoCE v2", f"rank {rank}: not a RoCE v2 GID: {dev}")
        expect(dev["gid"] == ipv4_mapped_gid(f"10.214.0.{11 + rank}"),
               f"rank {rank}: not its IPv4 GID: {dev}")
    ratios = {r["op"]: r["ratio"] for r in details["collectives_vs_verbs"]}
    print("collectives / verbs:", ratios)
    expect("all_reduce" in ratios and ratios["all_reduce"] > 0,
           f"no verbs ceiling beside collectives: {ratios}")
    incast = phase(j, "rdma_incast")
    expect(incast.get("status") == "passed",
           f"rdma_incast: {incast.get('status')} {incast.get('reason', '')}")
    expect(incast["result"]["metrics"].get("write_bytes_per_s.max", 0) > 0, "incast moved nothing")


def ipv4_mapped_gid(addr):
    """The RoCE v2 GID of an IPv4 address as the report spells it: ::ffff:a.b.c.d in 8 groups of 4 digits."""
    a, b, c, d = (int(x) for x in addr.split("."))
    return "0000:0000:0000:0000:0000:ffff:" + f"{a:02x}{b:02x}:{c:02x}{d:02x}"


# The phases whose bytes go to the target; each must be verified by the NFS client's own counters.
STORAGE_PHASES = ("ingest", "checkpoint", "restore", "train_read", "prepare", "model_load")


def nfs_mount(lab, vers):
    """vm1's /export mounted at /mnt/nfs on both guests with NFS version vers."""
    for host in ("vm1", "vm2"):
        rc, out = lab.ssh(host, f"mkdir -p /mnt/nfs && mount -t nfs -o vers={vers},hard vm1:/export /mnt/nfs "
                          "&& grep ' /mnt/nfs ' /proc/mounts", 120)
        expect(rc == 0, f"mount of NFS v{vers} on {host} failed: {out}")
        print(host, out.strip())


def nfs_umount(lab):
    for host in ("vm1", "vm2"):
        lab.ssh(host, "umount /mnt/nfs 2>/dev/null; umount -l /mnt/nfs 2>/dev/null; true", 60)


def suite_on_nfs(lab, iofab, vers):
    """The lab suite on NFS vers from both guests: every phase ran on both hosts and every storage phase is
    verified through mountstats (what the NFS client sent or fetched, not what a page cache served)."""
    lab.require_up()
    nfs_mount(lab, vers)
    try:
        name = "nfs" + vers.replace(".", "")
        lab.ssh("vm1", f"rm -rf /mnt/nfs/{name} && mkdir -p /mnt/nfs/{name}", 60)
        args = ["lab", "--target", f"/mnt/nfs/{name}"]
        rc, j, log = lab.run_iofab(iofab, ["vm1", "vm2"], args, name, RUN_S)
    finally:
        nfs_umount(lab)
    expect(rc is not None, f"the run did not end within {RUN_S} s: {log}")
    expect(j is not None, f"no report (exit {rc}): {log}")
    expect("left_behind" not in j["target"], f"the run folder was left behind: {j['target']}")
    expect(j["cluster"]["rank_hosts"] == ["vm1", "vm2"], j["cluster"]["rank_hosts"])
    print("target:", {k: v for k, v in j.get("target", {}).items() if not isinstance(v, (list, dict))})
    for p in j["phases"]:
        v = p.get("verification", {})
        print(f"{p['name']}: {p.get('status')} {v.get('level')} {v.get('note', '')}")
    for name in STORAGE_PHASES:
        p = phase(j, name)
        expect(p.get("status") == "passed", f"{name}: {p.get('status')} {p.get('reason', '')}")
        v = p.get("verification", {})
        expect(v.get("level") == "client" and v.get("source") == "/proc/self/mountstats",
               f"{name} is not verified by mountstats: {v}")
    md = phase(j, "metadata")
    expect(md.get("status") == "passed" and md["result"]["metrics"].get("errors") == 0,
           f"metadata across the NFS clients: {md.get('status')} {md.get('reason', '')}")
    expect(phase(j, "collectives").get("status") == "passed", "collectives did not run across the guests")
    expect(rc == 0, f"exit {rc}: {log}")
    return j


def test_suite_on_nfs3(lab, iofab):
    suite_on_nfs(lab, iofab, "3")


def test_suite_on_nfs42(lab, iofab):
    """As on v3, on NFS v4.2; and the restore that read the checkpoint back twice, once through each guest's
    own page cache, is verified: the bytes crossed the wire both times (fan-out across page caches)."""
    j = suite_on_nfs(lab, iofab, "4.2")
    r = phase(j, "restore")
    v = r["verification"]
    expect(v.get("counted_bytes", 0) >= 0.9 * v.get("phase_bytes", 1), f"restore read less than it said: {v}")


def test_restore_across_page_caches(lab, iofab):
    """A checkpoint read back twice through the page cache (direct: false) on NFS v4.2: from two guests each
    read comes through its own page cache, so the client fetched every byte and the figure is verified; the
    same run with both ranks on vm1 shares one page cache, and is (rightly) unverified."""
    lab.require_up()
    suite = os.path.join(lab.shared, "restore.json")
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "restore.json"), suite)
    nfs_mount(lab, "4.2")
    try:
        lab.ssh("vm1", "rm -rf /mnt/nfs/restore && mkdir -p /mnt/nfs/restore", 60)
        args = ["/lab/shared/restore.json", "--target", "/mnt/nfs/restore"]
        rc, two, log = lab.run_iofab(iofab, ["vm1", "vm2"], args, "restore2", RUN_S)
        expect(rc == 0 and two is not None, f"two guests: exit {rc}: {log}")
        rc, one, log = lab.run_iofab(iofab, ["vm1", "vm1"], args, "restore1", RUN_S)
        expect(rc == 0 and one is not None, f"one guest: exit {rc}: {log}")
    finally:
        nfs_umount(lab)
    expect(two["cluster"]["rank_hosts"] == ["vm1", "vm2"], two["cluster"]["rank_hosts"])
    expect(one["cluster"]["rank_hosts"] == ["vm1", "vm1"], one["cluster"]["rank_hosts"])
    # Two ranks on one NFS client: each lets go of the run folder's lock before either removes it, or the
    # client renames the open lock (.nfsXXXX) and the folder stays (docs/lab.md, docs/faults.md).
    for name, j in (("two guests", two), ("one guest", one)):
        expect("left_behind" not in j["target"], f"{name}: the run folder was left behind: {j['target']}")
    v2, v1 = phase(two, "restore")["verification"], phase(one, "restore")["verification"]
    print("two guests:", v2["note"])
    print("one guest: ", v1["note"])
    expect(v2["level"] == "client" and v2["counted_bytes"] >= 0.9 * v2["phase_bytes"],
           f"the restore from two page caches is not verified: {v2}")
    expect(v1["level"] == "unverified" and v1["counted_bytes"] < 0.9 * v1["phase_bytes"],
           f"a restore through one shared page cache claims the wire: {v1}")


def test_suite_on_iscsi(lab, iofab):
    """The lab suite from vm2 on the XFS it made on vm1's iSCSI LUN (ci/lab up logs in): every storage phase
    is verified by that disk's own counters (/proc/diskstats of the disk the login gave)."""
    lab.require_up()
    rc, out = lab.ssh("vm2", "grep ' /mnt/iscsi ' /proc/mounts && cat /sys/block/sda/device/model && "
                      "rm -rf /mnt/iscsi/lab && mkdir /mnt/iscsi/lab", 60)
    expect(rc == 0 and "xfs" in out, f"vm2 has no XFS on the iSCSI disk: {out}")
    print(out.strip())
    report = lab.fresh_dir("iscsi") + "/report.json"
    rc, log = lab.ssh("vm2", f"{iofab} run lab --target /mnt/iscsi/lab --out {report} --quiet", RUN_S)
    expect(rc is not None, f"the run did not end within {RUN_S} s: {log}")
    path = os.path.join(lab.shared, "iscsi", "report.json")
    expect(os.path.exists(path), f"no report (exit {rc}): {log}")
    with open(path) as f:
        j = json.load(f)
    collect(path, "iscsi")
    print("target:", j["target"].get("fs_type"), j["target"].get("devices"))
    expect(j["target"].get("fs_type") == "xfs", f"the target is not the XFS: {j['target']}")
    for name in STORAGE_PHASES:
        p = phase(j, name)
        v = p.get("verification", {})
        print(f"{name}: {p.get('status')} {v.get('note', '')}")
        expect(p.get("status") == "passed", f"{name}: {p.get('status')} {p.get('reason', '')}")
        expect(v.get("level") == "storage" and v.get("source") == "/proc/diskstats: sda",
               f"{name} is not verified by the iSCSI disk's counters: {v}")
    expect(rc == 0, f"exit {rc}: {log}")


def test_guest_powered_off_mid_checkpoint(lab, iofab):
    """vm2 loses its power (its qemu killed) while both guests write a checkpoint to NFS: rank 0 on vm1 still
    writes the report, naming the lost rank and its host, with iofab's exit code for a lost rank (3). Runs
    last (DEPENDS in tests/CMakeLists.txt): the lab has one guest less after it."""
    lab.require_up()
    shutil.copy(os.path.join(REPO, "tests", "hosts", "small.json"), os.path.join(lab.shared, "small.json"))
    nfs_mount(lab, "4.2")
    lab.ssh("vm1", "rm -rf /mnt/nfs/poweroff && mkdir -p /mnt/nfs/poweroff", 60)
    out = lab.fresh_dir("poweroff")
    cmd = (f"mpirun --allow-run-as-root -H vm1:1,vm2:1 --map-by node -np 2 {iofab} run "
           f"/lab/shared/small.json --target /mnt/nfs/poweroff --out {out}/report.json --quiet "
           "--rank-timeout 20s --no-preflight --set phases.checkpoint.params=1e10 "
           "--set phases.checkpoint.count=50 --set phases.checkpoint.block_size=64KiB")
    log = open(os.path.join(lab.shared, "poweroff.log"), "w")
    p = subprocess.Popen([lab.script, "ssh", "vm1", cmd], stdout=log, stderr=subprocess.STDOUT,
                         env={**os.environ, "IOFAB_LAB_STATE": lab.state}, start_new_session=True)
    try:
        def checkpointing():
            expect(p.poll() is None, "the run ended before vm2 lost its power: " + open(log.name).read())
            rc, out = lab.ssh("vm1", "find /export/poweroff -name '*ckpt*' -o -name '*shard*' | head -1", 30)
            return rc == 0 and out.strip() != ""

        expect(wait_for(checkpointing, RUN_S, 2), "the checkpoint never started")
        lab.lab("poweroff", "vm2")
        path = os.path.join(lab.shared, "poweroff", "report.json")
        expect(wait_for(lambda: read_report(path) is not None, RUN_S, 1), f"no report within {RUN_S} s "
               "after vm2 lost its power: " + open(log.name).read())
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        log.close()
    j = read_report(path)
    collect(path, "poweroff")
    c = j["cluster"]
    print("rank_hosts", c["rank_hosts"], "lost_ranks", c.get("lost_ranks"), "lost_hosts", c.get("lost_hosts"),
          "verdict", j["verdict"].get("status"), j["verdict"].get("exit_code"))
    expect(c["rank_hosts"] == ["vm1", "vm2"], c["rank_hosts"])
    expect(c.get("lost_ranks") == [1] and c.get("lost_hosts") == ["vm2"], c)
    expect(j["verdict"]["status"] == "error" and j["verdict"].get("exit_code") == 3, j["verdict"])


TESTS = {name[len("test_"):]: f for name, f in globals().items() if name.startswith("test_")}


def main():
    iofab, name = sys.argv[1], sys.argv[2]
    lab = Lab()
    t0 = time.monotonic()
    try:
        TESTS[name](lab, iofab)
    except Skip as e:
        print(f"skipped: {e}")
        return SKIP
    except Failure as e:
        print(f"FAILED: {e}")
        return 1
    print(f"{name}: passed in {time.monotonic() - t0:.0f} s (accel {lab.accel() if name != 'down' else '-'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
