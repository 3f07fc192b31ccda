#!/usr/bin/env python3
"""ci/device-check's summary: every check's part (parts/NAME.json) in one JSON file, and on stdout
the table docs/gpu.md keeps. Exit 0 when every check that ran passed, 1 when one failed.

  summarize.py --parts DIR --gpu 0|1 [--reason TEXT] [--device-name N] [--driver V] [--cuda V]
               [--sizes TEXT] [--seconds S] --out FILE
"""
import argparse
import json
import os
import platform
import socket
import sys


def read_parts(folder):
    parts = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(folder, name)
        try:
            with open(path) as f:
                parts[name[:-5]] = json.load(f)
        except (OSError, ValueError) as e:
            parts[name[:-5]] = {"ok": False, "error": "unreadable result: %s" % e}
    return parts


def fmt(v, unit=""):
    if v is None:
        return "-"
    if isinstance(v, float):
        if unit == "B/s":
            return "%.2f GB/s" % (v / 1e9)
        return "%.3g%s" % (v, unit)
    return "%s%s" % (v, unit)


def table(s):
    p = s["checks"]
    rows = ["| check | iofab | torch | ratio (>1: iofab better) | result |", "|---|---|---|---|---|"]

    def state(c):
        if "skipped" in c:
            return "skipped: " + c["skipped"]
        return "ok" if c.get("ok") else "FAILED: " + "; ".join(map(str, c.get("errors", [c.get("error", "")])))[:200]

    if "pair_model_load" in p:
        c = p["pair_model_load"]
        rows.append("| model load: time-to-ready | %s | %s | %s | %s |" % (
            fmt((c.get("iofab") or {}).get("ready_seconds_min"), " s"),
            fmt((c.get("torch") or {}).get("ready_seconds_min"), " s"), fmt(c.get("ratio"), "x"), state(c)))
    if "pair_checkpoint" in p:
        c = p["pair_checkpoint"]
        rows.append("| checkpoint: stall bytes/s | %s | %s | %s | %s |" % (
            fmt((c.get("iofab") or {}).get("stall_bytes_per_s_best"), "B/s"),
            fmt((c.get("torch") or {}).get("stall_bytes_per_s_best"), "B/s"), fmt(c.get("ratio"), "x"), state(c)))
    if "pair_loader" in p:
        c = p["pair_loader"]
        i, t = c.get("iofab") or {}, c.get("torch") or {}
        rows.append("| loader: samples/s (AU) | %s (%s) | %s (%s) | %s | %s |" % (
            fmt(max(i.get("samples_per_s") or [0]) or None), fmt(max(i.get("au") or [0])),
            fmt(max(t.get("samples_per_s") or [0]) or None), fmt(max(t.get("au") or [0])),
            fmt(c.get("ratio"), "x"), state(c)))
    for name, label in (("nccl", "NCCL sweep, one GPU"), ("cufile_io", "cuFile compat write/read"),
                        ("cufile_abi", "cuFile declarations vs cufile.h"), ("list", "iofab list"),
                        ("python_syntax", "pair scripts' syntax")):
        if name in p:
            rows.append("| %s | | | | %s |" % (label, state(p[name])))
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", required=True)
    ap.add_argument("--gpu", type=int, required=True)
    ap.add_argument("--reason", default="")
    ap.add_argument("--device-name", default="")
    ap.add_argument("--driver", default="")
    ap.add_argument("--cuda", default="")
    ap.add_argument("--sizes", default="")
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    checks = read_parts(a.parts)
    failed = sorted(k for k, v in checks.items() if isinstance(v, dict) and "skipped" not in v and not v.get("ok"))
    s = {
        "format": "iofab-device-check", "version": 1,
        "gpu": bool(a.gpu),
        "device": a.device_name if a.gpu else "no GPU",
        "no_gpu_reason": "" if a.gpu else a.reason,
        "driver": a.driver or None, "cuda_version": a.cuda or None,
        "host": socket.gethostname(), "kernel": platform.release(),
        "sizes": a.sizes, "seconds": a.seconds,
        "status": "failed" if failed else "passed", "failed": failed,
        "checks": checks,
    }
    s["table"] = table(s)
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(s, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, a.out)
    head = "device: %s" % (s["device"] if a.gpu else "no GPU (%s)" % a.reason)
    if a.gpu:
        head += ", driver %s, CUDA %s" % (a.driver, a.cuda)
    print(head + "; " + a.sizes + "; " + s["status"])
    print(s["table"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
