#!/usr/bin/python3
"""A safetensors load as `safetensors.torch.load_file` does it, then every tensor copied once: the
reference side of model_load's `safetensors_ready_seconds`. safetensors is not a Debian package, so its
loading logic is reproduced from its source (bindings/python/src/lib.rs: the file as
torch.ByteStorage.from_file(shared=False), a private mapping; the 8-byte header length and the JSON
header; per tensor, in sorted-name order, storage[a:b] as uint8, viewed as its dtype and reshaped), from
a cold cache (each file's pages dropped first). Prints one JSON object: seconds (from the first file's
mapping to the last tensor copied), tensors, bytes."""
import argparse
import json
import os
import struct
import time

import torch

DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32, "F64": torch.float64,
          "I8": torch.int8, "U8": torch.uint8, "I16": torch.int16, "I32": torch.int32, "I64": torch.int64,
          "BOOL": torch.bool}


def model_files(folder):
    with open(os.path.join(folder, "model.safetensors.index.json")) as f:
        index = json.load(f)
    return [os.path.join(folder, n) for n in sorted(set(index["weight_map"].values()))]


def drop_pages(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def load_file(path):
    """The file's tensors as views of a private mapping (safe_open, then get_tensor for every key)."""
    storage = torch.ByteStorage.from_file(path, shared=False, size=os.path.getsize(path)).untyped()
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    header.pop("__metadata__", None)
    out = {}
    for name in sorted(header):
        info = header[name]
        a, b = info["data_offsets"]
        t = torch.asarray(storage[8 + n + a:8 + n + b], dtype=torch.uint8)
        out[name] = t.view(dtype=DTYPES[info["dtype"]]).reshape(info["shape"])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", help="a model's folder: model.safetensors.index.json and its files")
    args = ap.parse_args()
    files = model_files(args.folder)
    for path in files:
        drop_pages(path)
    start = time.perf_counter()
    tensors, nbytes = 0, 0
    for path in files:
        for t in load_file(path).values():
            c = t.clone()
            tensors += 1
            nbytes += c.numel() * c.element_size()
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "tensors": tensors, "bytes": nbytes}))


if __name__ == "__main__":
    main()
