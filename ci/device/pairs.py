#!/usr/bin/env python3
"""One pair's result from iofab's reports and torch's JSON lines, as one JSON object on stdout.

  pairs.py model_load|checkpoint|loader --iofab REPORT... --torch LINE...

Each ratio is oriented so that above 1 means iofab did better (less time, more bytes or samples a
second) on the same work; the best round of each side is compared. Stdlib only."""
import argparse
import json
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"_error": "%s: %s" % (path, e)}


def phases(report):
    return report.get("phases", []) if isinstance(report, dict) else []


def metric(phase, name):
    return ((phase.get("result") or {}).get("metrics") or {}).get(name)


def ratio(num, den):
    return num / den if num and den else None


def problems(reports, torches):
    out = [r["_error"] for r in reports + torches if "_error" in r]
    for r in reports:
        for p in phases(r):
            if p.get("status") != "passed":
                out.append("iofab phase %s: %s (%s)" % (p.get("name"), p.get("status"), p.get("reason", "")))
    return out


def model_load(reports, torches):
    loads = [p for r in reports for p in phases(r) if p.get("kind") == "model_load"]
    ready = [metric(p, "ready_seconds_max") for p in loads if metric(p, "ready_seconds_max")]
    t = torches[0] if torches else {}
    t_best = t.get("ready_seconds_min")
    i_best = min(ready) if ready else None
    return {
        "iofab": {"ready_seconds": ready, "ready_seconds_min": i_best, "engine": "auto (io_uring where the kernel allows it)",
                  "into": "host memory, every byte verified (model_load has no GPU path)"},
        "torch": {k: t.get(k) for k in ("loader", "device", "ready_seconds", "ready_seconds_min", "bytes", "files",
                                        "cold_cache")},
        "ratio": ratio(t_best, i_best), "ratio_of": "torch ready_seconds / iofab ready_seconds (best of 2 each)",
    }


def checkpoint(reports, torches):
    ck = [p for r in reports for p in phases(r) if p.get("kind") == "checkpoint"]
    i_rate = [metric(p, "stall_bytes_per_s") for p in ck if metric(p, "stall_bytes_per_s")]
    i_stall = [metric(p, "stall_seconds_max") for p in ck if metric(p, "stall_seconds_max")]
    t_rate = [t.get("stall_bytes_per_s") for t in torches if t.get("stall_bytes_per_s")]
    t_stall = [t.get("stall_seconds_max") for t in torches if t.get("stall_seconds_max")]
    return {
        "iofab": {"stall_seconds": i_stall, "stall_bytes_per_s_best": max(i_rate) if i_rate else None,
                  "source": "host memory (checkpoint has no device-memory source)"},
        "torch": {"stall_seconds": t_stall, "stall_bytes_per_s_best": max(t_rate) if t_rate else None,
                  "method": torches[0].get("method") if torches else None,
                  "device": torches[0].get("device") if torches else None},
        "ratio": ratio(max(i_rate) if i_rate else None, max(t_rate) if t_rate else None),
        "ratio_of": "iofab stall_bytes_per_s / torch's (best of 2 rounds each)",
    }


def loader(reports, torches):
    tr = [p for r in reports for p in phases(r) if p.get("kind") == "train_read"]
    i_sps = [metric(p, "samples_per_s") for p in tr if metric(p, "samples_per_s")]
    i_au = [metric(p, "au") for p in tr if metric(p, "au") is not None]
    to_gpu = [((p.get("result") or {}).get("details") or {}).get("to_gpu") for p in tr]
    t_sps = [t.get("samples_per_s") for t in torches if t.get("samples_per_s")]
    t_au = [t.get("au") for t in torches if t.get("au") is not None]
    return {
        "iofab": {"samples_per_s": i_sps, "au": i_au, "to_gpu": to_gpu[0] if to_gpu else None},
        "torch": {"samples_per_s": t_sps, "au": t_au, "device": torches[0].get("device") if torches else None,
                  "workers": torches[0].get("workers") if torches else None},
        "ratio": ratio(max(i_sps) if i_sps else None, max(t_sps) if t_sps else None),
        "ratio_of": "iofab samples_per_s / torch's (best of 2 rounds each)",
        "au_ratio": ratio(max(i_au) if i_au else None, max(t_au) if t_au else None),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=["model_load", "checkpoint", "loader"])
    ap.add_argument("--iofab", nargs="+", required=True)
    ap.add_argument("--torch", nargs="+", required=True)
    a = ap.parse_args()
    reports = [load(p) for p in a.iofab]
    torches = [load(p) for p in a.torch]
    out = {"model_load": model_load, "checkpoint": checkpoint, "loader": loader}[a.kind](reports, torches)
    bad = problems(reports, torches)
    out["ok"] = not bad and out["ratio"] is not None
    if bad:
        out["errors"] = bad
    elif out["ratio"] is None:
        out["errors"] = ["a figure is missing from a report"]
    json.dump(out, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
