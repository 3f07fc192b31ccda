#!/usr/bin/env bash
# ctest DeviceCheck.WithoutAGpuSaysSoAndExitsZero: ci/device-check on a machine whose nvidia-smi lists
# no GPU (a stand-in first on PATH, so the outcome does not depend on this machine): it exits 0, writes
# its three files, and the summary is valid JSON that says "no GPU", skips the GPU checks with that
# reason, and passes the checks that need none; where torch imports, the three pairs ran on the CPU
# and each has a ratio. Without --out or OUT it refuses with exit 2 and writes nothing.
#   device_check_test.sh IOFAB_BINARY
set -uo pipefail
iofab="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "No devices were found"\nexit 6\n' >"$tmp/bin/nvidia-smi"
chmod +x "$tmp/bin/nvidia-smi"

(unset OUT; PATH="$tmp/bin:$PATH" bash "$root/ci/device-check" --iofab "$iofab" >"$tmp/usage.log" 2>&1)
rc=$?
[ "$rc" -eq 2 ] || fail "without --out or OUT: exit $rc, expected 2"
grep -q 'set OUT or pass --out' "$tmp/usage.log" || fail "the usage error does not say what to give"

OUT="$tmp/out" PATH="$tmp/bin:$PATH" bash "$root/ci/device-check" --iofab "$iofab" --target "$tmp" \
  >"$tmp/run.log" 2>&1
rc=$?
cat "$tmp/run.log"
[ "$rc" -eq 0 ] || fail "ci/device-check exited $rc without a GPU, expected 0"
for f in device-check-summary.json device-check.log device-check-files.tar.gz; do
  [ -s "$tmp/out/$f" ] || fail "$f missing or empty under OUT"
done
[ "$(ls "$tmp/out" | wc -l)" -eq 3 ] || fail "OUT holds more than the three files: $(ls "$tmp/out")"
ls "$tmp" | grep -q '^iofab-device-check\.' && fail "the work folder was left under --target"

python3 - "$tmp/out/device-check-summary.json" <<'PY' || exit 1
import json, subprocess, sys
s = json.load(open(sys.argv[1]))
def need(cond, what):
    if not cond:
        sys.exit("FAIL: " + what + "\n" + json.dumps(s, indent=1)[:4000])
need(s["format"] == "iofab-device-check", "format")
need(s["gpu"] is False and s["device"] == "no GPU", "the summary says no GPU")
need(s["no_gpu_reason"].startswith("no GPU: nvidia-smi lists no device"), "the reason names nvidia-smi")
need(s["status"] == "passed" and s["failed"] == [], "every check that ran passed")
c = s["checks"]
need(c["list"].get("ok") is True, "iofab list ran")
need(c["python_syntax"].get("ok") is True, "the pair scripts compile")
for gpu_only in ("cufile_io", "nccl"):
    need(c[gpu_only].get("skipped", "").startswith("no GPU"), gpu_only + " skipped with the reason")
need("skipped" in c["cufile_abi"] or c["cufile_abi"].get("ok") is True, "the cuFile declarations check")
torch = subprocess.run([sys.executable, "-c", "import torch"]).returncode == 0 or \
        subprocess.run(["/usr/bin/python3", "-c", "import torch"]).returncode == 0
if torch:
    for pair in ("pair_model_load", "pair_checkpoint", "pair_loader"):
        need(c[pair].get("ok") is True and c[pair]["ratio"] > 0, pair + " ran on the CPU with a ratio")
    need(c["pair_loader"]["torch"]["device"] == "cpu", "the pairs ran on the CPU")
else:
    need("skipped" in c["pairs"], "the pairs skipped without torch")
need("| model load" in s["table"] or not torch, "the table")
print("summary ok: no GPU, %d checks" % len(c))
PY
echo "PASS"
