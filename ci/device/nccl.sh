#!/usr/bin/env bash
# NCCL on one GPU: a collectives sweep on the nccl backend with its data check. With one rank the bus
# factor of all-reduce (2(n-1)/n), all-gather and reduce-scatter ((n-1)/n) is 0, so their busbw is 0
# and the report's details.sweep.bus_factor says so; broadcast's is 1; algbw is the GPU's own copies.
. "$(dirname "$0")/lib.sh"
dir="$work/nccl"
mkdir -p "$dir"
cat >"$dir/suite.json" <<JSON
{
  "name": "device-check-nccl",
  "phases": [
    {"kind": "collectives", "name": "nccl", "mode": "sweep", "backend": "nccl",
     "ops": ["all_reduce", "all_gather", "reduce_scatter", "broadcast"],
     "min_bytes": "1KiB", "max_bytes": "64MiB", "factor": 4, "iters": 5, "warmup": 2, "check": true}
  ]
}
JSON
run_iofab iofab-nccl "$dir/suite.json" "$dir"
"$py" - "$stage/reports/iofab-nccl.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print(json.dumps({"ok": False, "error": "no report: %s" % e})); sys.exit(0)
p = r["phases"][0]
m = (p.get("result") or {}).get("metrics") or {}
backend = (((p.get("result") or {}).get("details") or {}).get("backend") or {})
busbw = {k: v for k, v in m.items() if k.startswith("busbw.") and k.endswith(".max")}
algbw = {k: v for k, v in m.items() if k.startswith("algbw.") and k.endswith(".max")}
factors = (((p.get("result") or {}).get("details") or {}).get("sweep") or {}).get("bus_factor") or {}
zero = [op for op in ("all_reduce", "all_gather", "reduce_scatter")]
ok = (p.get("status") == "passed" and backend.get("name") == "nccl" and m.get("wrong_elements") == 0
      and all(factors.get(op) == 0 and m.get("busbw.%s.max" % op) == 0 for op in zero))
print(json.dumps({"ok": ok, "status": p.get("status"), "reason": p.get("reason", ""),
                  "backend": backend, "wrong_elements": m.get("wrong_elements"), "busbw_max": busbw,
                  "algbw_max": algbw, "bus_factor": factors}, sort_keys=True))
PY
