# restore vs fio sequential read: io_uring, O_DIRECT, 1 MiB blocks, queue
# depth 16, 2 streams (2 readers, fanout 1: each reads one 1 GiB shard front
# to back, iofab verifying every byte with xxh3 as it streams in). The
# checkpoint is written once (a --keep run); every round iofab restores it
# with `from` and fio reads the same two shard files, so both read exactly
# the same bytes and the CPU figures are the reads' alone.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
workers=2; shard_gib=1
# The reads' engine and queue depth, both sides (restore-psync-qd1.job.sh sets them).
engine="${RESTORE_ENGINE:-io_uring}"; depth="${RESTORE_QD:-16}"

cat >"$BENCH_WORK/write.json" <<JSON
{"phases": [{"kind": "checkpoint", "engine": "io_uring", "direct": true, "workers": $workers,
  "checkpoint_size": "$((workers * shard_gib))GiB", "count": 1, "gap": 0, "block_size": "1MiB", "queue_depth": 16}]}
JSON
"$IOFAB" run "$BENCH_WORK/write.json" --target "$BENCH_TARGET" --out "$BENCH_WORK/write-report.json" --quiet --keep >/dev/null
step="$(jq -r '.target.run_folder' "$BENCH_WORK/write-report.json")/checkpoint/step-1"

run_fio() {
  /usr/bin/time -f "%U %S" -o "$BENCH_WORK/fio.time" fio --ioengine="$engine" --direct=1 --rw=read --bs=1M \
    --iodepth="$depth" --group_reporting --output-format=json \
    --name=restore0 --filename="$step/shard-00000-of-00002.bin" \
    --name=restore1 --filename="$step/shard-00001-of-00002.bin" >"$BENCH_WORK/fio.json"
  echo "$(jq '.jobs[0].read.bw_bytes' "$BENCH_WORK/fio.json") $(jq '.jobs[0].read.io_bytes' "$BENCH_WORK/fio.json") $(cpu_of "$BENCH_WORK/fio.time")"
}

run_iofab() {
  cat >"$BENCH_WORK/suite.json" <<JSON
{"phases": [{"kind": "restore", "from": "$step", "engine": "$engine", "direct": true, "workers": $workers,
  "fanout": 1, "block_size": "1MiB", "queue_depth": $depth}]}
JSON
  /usr/bin/time -f "%U %S" -o "$BENCH_WORK/iofab.time" "$IOFAB" run "$BENCH_WORK/suite.json" --target "$BENCH_TARGET" \
    --out "$BENCH_WORK/iofab.json" --quiet >/dev/null
  echo "$(jq '.phases[0].result.metrics.read_bytes_per_s' "$BENCH_WORK/iofab.json") $(jq '.phases[0].result.metrics.read_bytes' "$BENCH_WORK/iofab.json") $(cpu_of "$BENCH_WORK/iofab.time") $(jq '.phases[0].result.details.verify_seconds' "$BENCH_WORK/iofab.json")"
}

compare_rounds "bytes/s"
