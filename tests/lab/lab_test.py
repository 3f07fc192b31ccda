#!/usr/bin/env python3
"""Runs of iofab on the lab's guests (ci/lab): `lab_test.py IOFAB TEST_NAME`, one ctest test each (label
`lab`, tests/CMakeLists.txt). `up` and `down` are the fixture's ends; every other test needs the lab up and
is skipped (exit 77) when it is not (no root, no qemu). Each run is bounded in time: a hang is a failure."""

import sys
import time

from lab_fixture import SKIP, Failure, Lab, Skip, expect, phase

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
    expect(rc == 0, f"exit {rc}: {log}")
    expect(j["cluster"]["rank_hosts"] == ["vm1", "vm2"], j["cluster"]["rank_hosts"])
    p = phase(j, "rdma_host")
    expect(p.get("status") == "ok", f"rdma_host: {p.get('status')} {p.get('reason', '')}")
    m = p["metrics"]
    for op in ("write", "read", "send"):
        expect(m.get(f"{op}_bytes_per_s.max", 0) > 0, f"no {op} bandwidth: {sorted(m)[:20]}")
        expect(m.get(f"{op}_latency_p50_s", 0) > 0, f"no {op} latency")
    dev = p["details"]["device"]
    print("rdma_host device:", dev)
    expect(dev.get("name") == "rxe0", f"device {dev}")
    expect("RoCE v2" in str(dev.get("gid_type", "")) or "v2" in str(dev), f"not a RoCE v2 GID: {dev}")
    # The GID it chose is built from the guest's IPv4 address (::ffff:10.214.0.1K).
    expect("10.214.0." in str(dev.get("gid", "")) or "0a:d6" in str(dev.get("gid", "")).lower() or
           ":0ad6:" in str(dev.get("gid", "")).lower(), f"the GID is not the guest's IPv4 one: {dev}")
    expect("collectives_vs_verbs" in p["details"], "no verbs ceiling beside the collectives")
    incast = phase(j, "rdma_incast")
    expect(incast.get("status") == "ok", f"rdma_incast: {incast.get('status')} {incast.get('reason', '')}")


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
