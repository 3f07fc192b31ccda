#!/usr/bin/env python3
"""Checkpoint from device memory, PyTorch's side: a state dict of tensors on the device, of the
sizes iofab's checkpoint wrote, saved with torch.distributed.checkpoint (one process, no process
group) or torch.save, then every file and the folder fsynced: the stall is that whole time, as a
synchronous checkpoint stalls training. Prints one JSON line.

  torch_checkpoint.py --folder DIR --bytes N [--tensor-bytes M] [--count K] [--device cuda:0]
                      [--method auto|dcp|save]
"""
import argparse
import os
import shutil
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devcommon  # noqa: E402

import torch  # noqa: E402


def state_dict(total, tensor_bytes, device):
    """fp32 tensors of tensor_bytes each (the last one the rest), on the device."""
    sd = {}
    left = total
    i = 0
    while left > 0:
        n = min(tensor_bytes, left)
        sd["layer.%04d.weight" % i] = torch.rand(max(n // 4, 1), device=device)
        left -= n
        i += 1
    return sd


def save_dcp(sd, path):
    import torch.distributed.checkpoint as dcp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "assuming the intent is to save in a single process"
        if hasattr(dcp, "save"):  # torch >= 2.2: no process group means one process
            dcp.save(sd, checkpoint_id=path)
        else:  # torch 1.13 .. 2.1
            dcp.save_state_dict(sd, storage_writer=dcp.FileSystemWriter(path), no_dist=True)


def save_torch(sd, path):
    os.makedirs(path, exist_ok=True)
    torch.save(sd, os.path.join(path, "model.pt"))


def fsync_tree(path):
    for f in devcommon.files_under(path):
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def pick(method):
    if method == "save":
        return "torch.save", save_torch
    try:
        import torch.distributed.checkpoint  # noqa: F401
        return "torch.distributed.checkpoint", save_dcp
    except ImportError:
        if method == "dcp":
            raise
        return "torch.save", save_torch


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", required=True, help="where to write (made if missing); each step removed after")
    ap.add_argument("--bytes", type=int, required=True, help="checkpoint bytes")
    ap.add_argument("--tensor-bytes", type=int, default=64 << 20)
    ap.add_argument("--count", type=int, default=2)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--method", choices=["auto", "dcp", "save"], default="auto")
    a = ap.parse_args()
    os.makedirs(a.folder, exist_ok=True)
    sd = state_dict(a.bytes, a.tensor_bytes, a.device)
    devcommon.sync_device(torch, a.device)
    name, save = pick(a.method)
    stalls = []
    written = 0
    for k in range(a.count):
        path = os.path.join(a.folder, "torch-step-%d" % k)
        start = devcommon.now()
        try:
            save(sd, path)
        except Exception as e:  # a DCP that refuses one process: torch.save, said in the output
            if name != "torch.distributed.checkpoint" or a.method == "dcp":
                raise
            name, save = "torch.save (dcp failed: %s)" % str(e).splitlines()[0][:120], save_torch
            shutil.rmtree(path, ignore_errors=True)
            start = devcommon.now()
            save(sd, path)
        fsync_tree(path)
        stalls.append(devcommon.now() - start)
        written = sum(os.path.getsize(f) for f in devcommon.files_under(path))
        shutil.rmtree(path)
    data = sum(t.numel() * t.element_size() for t in sd.values())
    devcommon.emit({
        "pair": "checkpoint", "tool": "torch", "method": name, "device": a.device, "torch": torch.__version__,
        "tensors": len(sd), "state_bytes": data, "file_bytes": written, "stall_seconds": stalls,
        "stall_seconds_max": max(stalls), "stall_seconds_mean": sum(stalls) / len(stalls),
        "stall_bytes_per_s": data / max(stalls) if max(stalls) > 0 else 0,
    })


if __name__ == "__main__":
    main()
