# ingest vs IOR -w: each rank writes its own file of IOR_BLOCK_MIB MiB (512) in 1 MiB transfers, one at a
# time, fsync at the end inside the timing (IOR -e; iofab ingest fsync: true), fresh data in every iofab
# write (made beside the write before, FillAhead). Two IOR columns: its default (one buffer, each transfer
# only stamped with its offset) and `-l random` (every transfer's buffer filled anew, as iofab writes).
source "$(dirname "${BASH_SOURCE[0]}")/ior.sh"
BENCH_PEERS="ior ior_random"

# run_ior [IOR_ARGS...]: the write, with any extra IOR options.
run_ior() {
  mkdir -p "$BENCH_TARGET/ior-bench"
  run_ior_with -w -e -o "$BENCH_TARGET/ior-bench/f" "$@"
  rm -rf "$BENCH_TARGET/ior-bench"
}
run_ior_random() { run_ior -l random; }

run_iofab() {
  cat >"$BENCH_WORK/suite.json" <<JSON
{"phases": [{"kind": "ingest", "engine": "psync", "direct": $iofab_direct, "workers": 1, "files_per_worker": 1,
  "file_size": "${block_mib}MiB", "block_size": "1MiB", "queue_depth": 1, "fsync": true}]}
JSON
  run_iofab_suite write
}

compare_rounds "bytes/s"
