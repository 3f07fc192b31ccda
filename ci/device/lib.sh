# Shared by ci/device/*.sh (sourced, never run): the environment ci/device-check exports, and running
# iofab with its report kept for the summary. Each script prints its one JSON result on stdout.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$IOFAB_DC_ROOT"
stage="$IOFAB_DC_STAGE"
work="$IOFAB_DC_WORK"
dev="$IOFAB_DC_DEVICE"
small="$IOFAB_DC_SMALL"
gpu="$IOFAB_DC_GPU"
iofab="$IOFAB_DC_IOFAB"
py="$IOFAB_DC_PYTHON"

say() { echo "  [$(basename "$0" .sh)] $*" >&2; }

# run_iofab NAME SUITE TARGET [ARGS...]: the report lands in $stage/reports/NAME.json, the console
# output in NAME.log; iofab's exit code is returned (0 passed, 1 failed checks, 3 error).
run_iofab() {
  local name="$1" suite="$2" tgt="$3"
  shift 3
  mkdir -p "$tgt"
  "$iofab" run "$suite" --target "$tgt" --out "$stage/reports/$name.json" --quiet "$@" \
    >"$stage/reports/$name.log" 2>&1
  local rc=$?
  say "iofab $name: exit $rc"
  ((rc == 0)) || tail -5 "$stage/reports/$name.log" >&2
  return $rc
}

# run_torch NAME SCRIPT ARGS...: the script's JSON line lands in $stage/reports/NAME.json.
run_torch() {
  local name="$1" script="$2"
  shift 2
  "$py" "$here/$script" "$@" >"$stage/reports/$name.json" 2>"$stage/reports/$name.err"
  local rc=$?
  say "torch $name: exit $rc"
  ((rc == 0)) || tail -5 "$stage/reports/$name.err" >&2
  return $rc
}

# pair KIND ARGS...: the pair's result from the reports (ci/device/pairs.py).
pair() { "$py" "$here/pairs.py" "$@"; }
