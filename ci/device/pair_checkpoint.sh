#!/usr/bin/env bash
# Checkpoint: iofab's checkpoint (sync, one writer: one GPU) of 1 GiB, against torch's DCP save (or
# torch.save) of a state dict of fp32 tensors of 64 MiB on the device, 1 GiB in all, to the same
# folder, fsynced; alternating, two rounds. iofab's checkpoint writes from host memory: it has no
# device-memory source (engine cufile copies host to device, then writes, the other way round).
. "$(dirname "$0")/lib.sh"
bytes=$((1 << 30))
tensor=$((64 << 20))
((small)) && bytes=$((32 << 20)) && tensor=$((4 << 20))
dir="$work/checkpoint"
mkdir -p "$dir"
cat >"$dir/suite.json" <<JSON
{
  "name": "device-check-checkpoint",
  "defaults": {"workers": 1},
  "phases": [
    {"kind": "checkpoint", "name": "ckpt", "checkpoint_size": $bytes, "count": 1, "gap": "0s",
     "mode": "sync", "block_size": "4MiB", "queue_depth": 16}
  ]
}
JSON
for round in 1 2; do
  run_iofab "iofab-checkpoint-$round" "$dir/suite.json" "$dir"
  run_torch "torch-checkpoint-$round" torch_checkpoint.py --folder "$dir" --bytes "$bytes" \
    --tensor-bytes "$tensor" --count 1 --device "$dev"
done
pair checkpoint --iofab "$stage/reports/iofab-checkpoint-1.json" "$stage/reports/iofab-checkpoint-2.json" \
  --torch "$stage/reports/torch-checkpoint-1.json" "$stage/reports/torch-checkpoint-2.json"
