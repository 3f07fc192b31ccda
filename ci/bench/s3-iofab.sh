# iofab's side of ci/bench-vs-awscli (sourced there; uses its variables): the same object count, size
# and parallelism as the awscli runs, against the same server. iofab writes its own data (incompressible,
# never deduplicated), not awscli's files: the same sizes, other bytes.
iofab_suite() {  # $1: "put" or "get"
  local phases
  if [ "$1" = put ]; then
    phases='{"kind": "ingest", "name": "put", "workers": '"$parallel"', "files_per_worker": '"$((objects / parallel))"',
             "file_size": "'"$size_mib"'MiB", "block_size": "4MiB", "queue_depth": 4}'
  else
    # A checkpoint of the same objects (not timed here), then its restore: each shard read once.
    phases='{"kind": "checkpoint", "name": "upload", "checkpoint_size": "'"$((objects * size_mib))"'MiB",
             "workers": '"$parallel"', "count": 1, "gap": 0, "block_size": "4MiB", "queue_depth": 4},
            {"kind": "restore", "name": "get", "fanout": 1, "workers": '"$parallel"', "block_size": "64MiB",
             "queue_depth": 1}'
  fi
  cat <<SUITE
{"name": "bench-vs-awscli-$1", "target": "s3://bench/iofab", "telemetry_interval": "250ms",
 "s3": {"endpoint": "$endpoint", "region": "us-east-1", "addressing": "path", "part_size": "64MiB",
        "parallel_parts": 1, "connections": 1},
 "phases": [$phases]}
SUITE
}

iofab_put() {
  iofab_suite put >"$work/put.json"
  timed "$IOFAB" run "$work/put.json" -q --out "$work/put-report.json"
}

# The restore phase's own wall time (the upload before it is not counted), and iofab's CPU during it from
# the phase's telemetry (process_cpu_cores x each sample's seconds).
iofab_get() {
  iofab_suite get >"$work/get.json"
  if ! "$IOFAB" run "$work/get.json" -q --out "$work/get-report.json" >"$work/get.log" 2>&1; then
    echo "iofab get failed:" >&2
    tail -20 "$work/get.log" >&2
    [ -f "$work/get-report.json" ] && jq -r '.phases[] | "\(.name): \(.status) \(.reason)"' "$work/get-report.json" >&2
    return 1
  fi
  jq -r '.phases[] | select(.name == "get") |
         "\(.seconds) \([.result.details.telemetry.hosts[0].samples[] | .process_cpu_cores * .seconds] | add)"' \
    "$work/get-report.json" | awk '{printf "%.3f %.3f\n", $1, $2}'
}
