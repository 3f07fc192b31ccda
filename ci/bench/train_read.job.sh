# train_read vs fio random reads on the same file: one shard holding every
# sample, io_uring, O_DIRECT, queue depth 32, one reader, no compute.
#   4 KiB samples:   iofab samples/s vs fio IOPS   (fio --rw=randread --bs=4k --iodepth=32 --direct=1)
#   128 KiB samples: iofab bytes/s   vs fio bytes/s (the same with --bs=128k)
# iofab generates each dataset once (dataset_dir, reused every round), and fio
# reads that dataset's shard, so both read exactly the same bytes.
source "$(dirname "$0")/common.sh"

# make_dataset NAME SAMPLE_SIZE NUM_SAMPLES: generates $BENCH_TARGET/iofab-NAME (removed on exit).
make_dataset() {
  cat >"$BENCH_WORK/gen.json" <<JSON
{"phases": [{"kind": "train_read", "layout": "shards", "num_samples": $3, "samples_per_shard": $3,
  "sample_size": "$2", "dataset_dir": "$BENCH_TARGET/iofab-$1", "engine": "null", "epochs": 1, "batch_size": 256}]}
JSON
  "$IOFAB" run "$BENCH_WORK/gen.json" --target "$BENCH_TARGET" --out "$BENCH_WORK/gen-report.json" --quiet >/dev/null
}

run_fio() {
  /usr/bin/time -f "%U %S" -o "$BENCH_WORK/fio.time" fio --name=train_read --filename="$shard" \
    --ioengine=io_uring --direct=1 --rw=randread --bs="$bs" --iodepth=32 --numjobs=1 --size="$size" \
    --group_reporting --output-format=json >"$BENCH_WORK/fio.json"
  if [ "$metric" = iops ]; then
    echo "$(jq '.jobs[0].read.iops' "$BENCH_WORK/fio.json") $(jq '.jobs[0].read.total_ios' "$BENCH_WORK/fio.json") $(cpu_of "$BENCH_WORK/fio.time")"
  else
    echo "$(jq '.jobs[0].read.bw_bytes' "$BENCH_WORK/fio.json") $(jq '.jobs[0].read.io_bytes' "$BENCH_WORK/fio.json") $(cpu_of "$BENCH_WORK/fio.time")"
  fi
}

run_iofab() {
  cat >"$BENCH_WORK/suite.json" <<JSON
{"phases": [{"kind": "train_read", "layout": "shards", "num_samples": $samples, "samples_per_shard": $samples,
  "sample_size": "$bs_iofab", "dataset_dir": "$dataset", "engine": "io_uring", "direct": true, "read_threads": 1,
  "queue_depth": 32, "batch_size": 256, "prefetch": 8, "compute_per_batch": "0s", "epochs": 1, "drop_cache": "never"}]}
JSON
  /usr/bin/time -f "%U %S" -o "$BENCH_WORK/iofab.time" "$IOFAB" run "$BENCH_WORK/suite.json" --target "$BENCH_TARGET" \
    --out "$BENCH_WORK/iofab.json" --quiet >/dev/null
  if [ "$metric" = iops ]; then
    echo "$(jq '.phases[0].result.metrics.samples_per_s' "$BENCH_WORK/iofab.json") $(jq '.phases[0].result.metrics.samples' "$BENCH_WORK/iofab.json") $(cpu_of "$BENCH_WORK/iofab.time")"
  else
    echo "$(jq '.phases[0].result.metrics.read_bytes_per_s' "$BENCH_WORK/iofab.json") $(jq '.phases[0].result.metrics.read_bytes' "$BENCH_WORK/iofab.json") $(cpu_of "$BENCH_WORK/iofab.time")"
  fi
}

# 4 KiB samples, 1 GiB: samples/s against IOPS.
samples=262144; bs=4k; bs_iofab=4KiB; size=1G; metric=iops
dataset="$BENCH_TARGET/iofab-train-4k"; shard="$dataset/data/shard-000000"
make_dataset train-4k "$bs_iofab" "$samples"
echo "-- 4 KiB samples, queue depth 32 (iofab samples/s vs fio IOPS)"
compare_rounds "samples/s"

# 128 KiB samples, 2 GiB: bytes/s against bytes/s.
samples=16384; bs=128k; bs_iofab=128KiB; size=2G; metric=bw
dataset="$BENCH_TARGET/iofab-train-128k"; shard="$dataset/data/shard-000000"
make_dataset train-128k "$bs_iofab" "$samples"
echo "-- 128 KiB samples, queue depth 32 (bytes/s)"
compare_rounds "bytes/s"
