#!/usr/bin/env bash
# Loader to the device: train_read with to_gpu over a dataset of shards (4096 samples of 128 KiB,
# 512 MiB), 4 read threads, batches of 32, 10 ms of emulated compute per batch, 2 epochs, cold cache
# every epoch; then torch's DataLoader (num_workers 4, pin_memory, .to(device, non_blocking=True),
# the same sleep per batch) over the same shard files; alternating, two rounds (iofab's first
# round also generates the dataset, outside its read figures).
. "$(dirname "$0")/lib.sh"
n=4096 size=$((128 << 10)) per=1024 threads=4 batch=32 compute=0.010
((small)) && n=512 size=$((64 << 10)) per=128 threads=2 batch=16 compute=0.002
to_gpu=false
((gpu)) && to_gpu=true
dir="$work/loader"
mkdir -p "$dir/dataset"
cat >"$dir/suite.json" <<JSON
{
  "name": "device-check-loader",
  "phases": [
    {"kind": "train_read", "name": "loader", "layout": "shards", "num_samples": $n, "sample_size": $size,
     "samples_per_shard": $per, "dataset_dir": "$dir/dataset", "read_threads": $threads,
     "batch_size": $batch, "epochs": 2, "compute_per_batch": "${compute}s", "drop_cache": "every_epoch",
     "to_gpu": $to_gpu}
  ]
}
JSON
for round in 1 2; do
  run_iofab "iofab-loader-$round" "$dir/suite.json" "$dir/target"
  run_torch "torch-loader-$round" torch_loader.py --data "$dir/dataset/data" --num-samples $n \
    --sample-size $size --samples-per-shard $per --batch-size $batch --workers $threads --epochs 2 \
    --compute $compute --device "$dev"
done
pair loader --iofab "$stage/reports/iofab-loader-1.json" "$stage/reports/iofab-loader-2.json" \
  --torch "$stage/reports/torch-loader-1.json" "$stage/reports/torch-loader-2.json"
