#!/usr/bin/env bash
# The cufile engine's hand-written declarations (harness/engines/cufile_abi.h) compiled against the
# cufile.h this machine has (the CUDA toolkit's, or the cufile wheel's) with static_asserts on every
# size, offset and value (harness/engines/cufile_abi_check.h). Prints one JSON object.
#   cufile_abi.sh STAGE
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
stage="$1"
py="${IOFAB_DC_PYTHON:-python3}"
js() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
dirs=(/usr/local/cuda/include /usr/local/cuda/targets/*/include)
wheel="$("$py" -c 'import glob,nvidia,os; print("\n".join(d for p in nvidia.__path__ for d in glob.glob(os.path.join(p,"*","include"))))' 2>/dev/null)"
[ -n "$wheel" ] && mapfile -t -O "${#dirs[@]}" dirs <<<"$wheel"
header=""
incs=()
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  incs+=("-I$d")
  [ -z "$header" ] && [ -f "$d/cufile.h" ] && header="$d/cufile.h"
done
if [ -z "$header" ]; then
  echo '{"skipped": "no cufile.h on this machine (not in /usr/local/cuda nor a cufile wheel): the declarations were read against the header text instead (docs/gpu.md)"}'
  exit 0
fi
cxx=""
for c in "${CXX:-}" c++ g++ clang++; do
  if [ -n "$c" ] && command -v "$c" >/dev/null; then cxx="$c"; break; fi
done
if [ -z "$cxx" ]; then
  echo "{\"skipped\": \"no C++ compiler here\", \"header\": $(js "$header")}"
  exit 0
fi
tu="$stage/cufile_abi_check.cc"
printf '#include <cufile.h>\n#include "harness/engines/cufile_abi_check.h"\n' >"$tu"
if err="$("$cxx" -std=c++20 -fsyntax-only -I"$(dirname "$header")" "${incs[@]}" -I"$root" "$tu" 2>&1)"; then
  echo "{\"ok\": true, \"header\": $(js "$header"), \"compiler\": $(js "$cxx"), \"note\": \"every size, offset and value matches\"}"
else
  echo "{\"ok\": false, \"header\": $(js "$header"), \"compiler\": $(js "$cxx"), \"errors\": $(js "$(echo "$err" | grep -E 'error' | head -20)")}"
fi
