#!/usr/bin/env bash
# Model load: iofab's model_load writes Llama 3 8B's safetensors (at 1/16 of full size, about 1 GB)
# and loads them twice from a cold page cache; then safetensors.torch.load_file(..., device) loads
# the very same files twice, cold too. model_load has no GPU path (it refuses direct: true, which
# engine cufile needs), so iofab's figure is to verified host memory; torch's includes the copy to
# the device. iofab's two loads run first: a later iofab run cannot read another run's files.
. "$(dirname "$0")/lib.sh"
scale=16
((small)) && scale=512
dir="$work/model_load"
mkdir -p "$dir"
cat >"$dir/suite.json" <<JSON
{
  "name": "device-check-model-load",
  "defaults": {"workers": 1, "block_size": "1MiB", "queue_depth": 16},
  "phases": [
    {"kind": "model_load", "name": "load-1", "engine": "auto", "preset": "llama3-8b", "scale": $scale},
    {"kind": "model_load", "name": "load-2", "engine": "auto", "weights_from": "load-1"}
  ]
}
JSON
run_iofab iofab-model_load "$dir/suite.json" "$dir/target" --keep
files="$(find "$dir/target" -name '*.safetensors' -printf '%h\n' 2>/dev/null | sort -u | head -1)"
if [ -z "$files" ]; then
  echo '{"ok": false, "error": "iofab wrote no .safetensors file (its report says why)"}'
  exit 0
fi
run_torch torch-model_load torch_model_load.py --dir "$files" --device "$dev" --rounds 2
pair model_load --iofab "$stage/reports/iofab-model_load.json" --torch "$stage/reports/torch-model_load.json"
