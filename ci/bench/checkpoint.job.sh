# checkpoint vs fio sequential write: io_uring, O_DIRECT, 1 MiB blocks, queue
# depth 16, 2 streams (2 writers: one 1 GiB shard each), fsync at end. iofab's
# write_bytes_per_s is the burst's bytes / (writes + fsyncs); its commit
# (manifest, fsyncs, rename) is in the stall, not in this figure.
source "$(dirname "$0")/common.sh"
workers=2; shard_gib=1

# run_fio [FIO_ARGS...]: the job, with any extra fio options.
run_fio() {
  rm -rf "$BENCH_TARGET/fio-bench"; mkdir -p "$BENCH_TARGET/fio-bench"
  /usr/bin/time -f "%U %S" -o "$BENCH_WORK/fio.time" fio --name=checkpoint --directory="$BENCH_TARGET/fio-bench" \
    --ioengine=io_uring --direct=1 --rw=write --bs=1M --iodepth=16 --size="${shard_gib}G" --numjobs="$workers" \
    --fallocate=none --end_fsync=1 --group_reporting --output-format=json "$@" >"$BENCH_WORK/fio.json"
  rm -rf "$BENCH_TARGET/fio-bench"
  echo "$(jq '.jobs[0].write.bw_bytes' "$BENCH_WORK/fio.json") $(jq '.jobs[0].write.io_bytes' "$BENCH_WORK/fio.json") $(cpu_of "$BENCH_WORK/fio.time")"
}

# fio with fresh data in every write, as iofab writes (fio's default writes one buffer over and over).
run_fio_refill() { run_fio --refill_buffers; }

run_iofab() {
  cat >"$BENCH_WORK/suite.json" <<JSON
{"phases": [{"kind": "checkpoint", "engine": "io_uring", "direct": true, "workers": $workers,
  "checkpoint_size": "$((workers * shard_gib))GiB", "count": 1, "gap": 0, "block_size": "1MiB", "queue_depth": 16}]}
JSON
  /usr/bin/time -f "%U %S" -o "$BENCH_WORK/iofab.time" "$IOFAB" run "$BENCH_WORK/suite.json" --target "$BENCH_TARGET" \
    --out "$BENCH_WORK/iofab.json" --quiet >/dev/null
  echo "$(jq '.phases[0].result.metrics.write_bytes_per_s' "$BENCH_WORK/iofab.json") $(jq '.phases[0].result.metrics.write_bytes' "$BENCH_WORK/iofab.json") $(cpu_of "$BENCH_WORK/iofab.time")"
}

compare_rounds "bytes/s"
