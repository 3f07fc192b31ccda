#!/usr/bin/env bash
# cuFile in compat mode: a generated cufile.json (allow_compat_mode true, logging TRACE), pointed at
# by CUFILE_ENV_PATH_JSON; iofab writes a checkpoint with engine cufile (direct: true), restores it
# with cufile (every byte verified) and reads a dataset with cufile from 2 reader threads (each an
# engine of its own on the same shard descriptors). NVIDIA's own cufile.h builds a second,
# iofab-free probe (cufile_probe.cc) where a compiler is here. On failure cuFile's log is printed.
. "$(dirname "$0")/lib.sh"
dir="$work/cufile"
mkdir -p "$dir/log" "$dir/target"
cat >"$dir/cufile.json" <<JSON
{
  "logging": {"dir": "$dir/log", "level": "TRACE"},
  "properties": {"allow_compat_mode": true, "use_poll_mode": false, "max_direct_io_size_kb": 16384}
}
JSON
export CUFILE_ENV_PATH_JSON="$dir/cufile.json" CUFILE_LOGFILE_PATH="$dir/log/cufile.log"
cat >"$dir/suite.json" <<JSON
{
  "name": "device-check-cufile",
  "defaults": {"workers": 1, "direct": true, "engine": "cufile", "block_size": "4MiB", "queue_depth": 1},
  "phases": [
    {"kind": "checkpoint", "name": "ckpt-cufile", "checkpoint_size": "256MiB", "count": 1, "gap": "0s"},
    {"kind": "restore", "name": "restore-cufile", "checkpoint": "ckpt-cufile", "fanout": 1},
    {"kind": "train_read", "name": "read-cufile", "layout": "shards", "num_samples": 256,
     "sample_size": "64KiB", "samples_per_shard": 64, "read_threads": 2, "epochs": 1, "batch_size": 16}
  ]
}
JSON
(cd "$dir/log" && run_iofab iofab-cufile "$dir/suite.json" "$dir/target")
# The iofab-free probe, built against NVIDIA's header (nvcc, or a host compiler with the toolkit).
probe='{"skipped": "no cufile.h or no compiler here"}'
header="$(ls /usr/local/cuda/include/cufile.h 2>/dev/null; "$py" -c 'import glob,nvidia,os; print("\n".join(glob.glob(os.path.join(p,"cufile","include","cufile.h")) for p in nvidia.__path__))' 2>/dev/null)"
header="$(echo "$header" | grep -m1 cufile.h)"
lib="$(echo "${LD_LIBRARY_PATH:-}" | tr ':' '\n' | while read -r d; do ls "$d"/libcufile.so* 2>/dev/null; done | head -1)"
cc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
if [ -n "$header" ] && [ -n "$lib" ] && [ -x "$cc" ]; then
  if "$cc" -std=c++17 -o "$dir/cufile_probe" "$here/cufile_probe.cc" -I"$(dirname "$header")" \
      -I/usr/local/cuda/include "$lib" -lcudart >"$dir/probe-build.log" 2>&1; then
    probe="$(cd "$dir/log" && "$dir/cufile_probe" "$dir/target/probe.bin" 2>>"$dir/probe-build.log")"
    [ -n "$probe" ] || probe='{"ok": false, "note": "the probe printed nothing (crashed?)"}'
  else
    probe="{\"skipped\": \"the probe did not build\", \"log\": $(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()[-1500:]))' "$dir/probe-build.log")}"
  fi
fi
mkdir -p "$stage/reports/cufile-log"
cp -r "$dir/log/." "$stage/reports/cufile-log/" 2>/dev/null
cp "$dir/cufile.json" "$stage/reports/cufile-log/cufile.json"
# NVIDIA's own cufile.json where the node has one: the keys iofab reads (properties.allow_compat_mode,
# force_compat_mode, use_pci_p2pdma) are checked against it by eye (docs/gpu.md).
for f in /etc/cufile.json /usr/local/cuda*/gds/cufile.json; do
  [ -f "$f" ] && cp "$f" "$stage/reports/cufile-log/nvidia-$(echo "$f" | tr '/' '_')"
done
"$py" - "$stage/reports/iofab-cufile.json" "$dir/log" "$probe" <<'PY'
import glob, json, os, sys
report, logdir, probe = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    probe = json.loads(probe)
except ValueError:
    probe = {"ok": False, "raw": probe[-500:]}
try:
    r = json.load(open(report))
    phases = [{"name": p.get("name"), "status": p.get("status"), "reason": p.get("reason", ""),
               "engine_mode": ((p.get("result") or {}).get("details") or {}).get("engine_mode")}
              for p in r.get("phases", [])]
except (OSError, ValueError) as e:
    phases = [{"name": "all", "status": "error", "reason": "no report: %s" % e}]
ok = all(p["status"] == "passed" for p in phases)
out = {"ok": ok, "phases": phases, "probe": probe}
if not ok or not probe.get("ok", True):
    tail = []
    for f in sorted(glob.glob(os.path.join(logdir, "**", "*.log"), recursive=True)):
        with open(f, errors="replace") as fh:
            lines = fh.read().splitlines()
        tail += ["== %s" % os.path.basename(f)] + [l for l in lines if "ERROR" in l or "WARN" in l][-20:] + lines[-20:]
    out["cufile_log_tail"] = tail[-80:] or ["(cuFile wrote no log)"]
    sys.stderr.write("cuFile's log:\n" + "\n".join(out["cufile_log_tail"]) + "\n")
print(json.dumps(out, sort_keys=True))
PY
