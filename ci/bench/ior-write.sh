# ingest vs IOR -w: each rank writes its own file of IOR_BLOCK_MIB MiB (512) in 1 MiB transfers, one at a
# time, fsync at the end inside the timing (IOR -e; iofab ingest fsync: true), fresh data in every iofab
# write (made beside the write before, FillAhead), IOR's one buffer filled once.
source "$(dirname "${BASH_SOURCE[0]}")/ior.sh"

run_ior() {
  mkdir -p "$BENCH_TARGET/ior-bench"
  run_ior_with -w -e -o "$BENCH_TARGET/ior-bench/f"
  rm -rf "$BENCH_TARGET/ior-bench"
}

run_iofab() {
  cat >"$BENCH_WORK/suite.json" <<JSON
{"phases": [{"kind": "ingest", "engine": "psync", "direct": $iofab_direct, "workers": 1, "files_per_worker": 1,
  "file_size": "${block_mib}MiB", "block_size": "1MiB", "queue_depth": 1, "fsync": true}]}
JSON
  run_iofab_suite write
}

compare_rounds "bytes/s"
