#!/usr/bin/env python3
"""Model load, PyTorch's side: safetensors.torch.load_file(path, device=...) over every
.safetensors file iofab's model_load wrote, from a cold page cache; time-to-ready is from the
start to the last tensor on the device. Prints one JSON line.

  torch_model_load.py --dir FOLDER [--device cuda:0] [--rounds N]
"""
import argparse
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devcommon  # noqa: E402

import torch  # noqa: E402

try:
    from safetensors.torch import load_file as st_load_file
except ImportError:  # only where the safetensors package is missing (a CPU check, not the GPU image)
    st_load_file = None

DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32, "F64": torch.float64,
          "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
          "BOOL": torch.bool}


def fallback_load_file(path, device):
    """The safetensors format read with the stdlib, for machines without the package: header length
    (8 bytes, little endian), the JSON header, then each tensor's bytes at its data_offsets."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = bytearray(f.read())
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        t = torch.frombuffer(data[start:end], dtype=torch.uint8) if end > start else torch.empty(0, dtype=torch.uint8)
        out[name] = t.view(DTYPES[meta["dtype"]]).reshape(meta["shape"]).to(device)
    return out


def load_round(files, device):
    loader = st_load_file or fallback_load_file
    dropped = devcommon.drop_cache(files)
    start = devcommon.now()
    tensors = 0
    nbytes = 0
    for path in files:
        sd = loader(path, device=device)
        tensors += len(sd)
        nbytes += sum(t.numel() * t.element_size() for t in sd.values())
    devcommon.sync_device(torch, device)
    return devcommon.now() - start, tensors, nbytes, dropped


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True, help="folder holding the .safetensors files")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    files = devcommon.files_under(a.dir, ".safetensors")
    if not files:
        sys.exit("torch_model_load.py: no .safetensors file under " + a.dir)
    times = []
    for _ in range(a.rounds):
        seconds, tensors, nbytes, dropped = load_round(files, a.device)
        times.append(seconds)
    devcommon.emit({
        "pair": "model_load", "tool": "torch", "device": a.device,
        "loader": "safetensors.torch.load_file" if st_load_file else "stdlib reader (no safetensors package)",
        "torch": torch.__version__, "files": len(files), "tensors": tensors, "bytes": nbytes,
        "cold_cache": dropped, "ready_seconds": times, "ready_seconds_min": min(times),
        "bytes_per_s": nbytes / min(times) if min(times) > 0 else 0,
    })


if __name__ == "__main__":
    main()
