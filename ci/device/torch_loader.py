#!/usr/bin/env python3
"""Loader to the device, PyTorch's side: a map-style Dataset over iofab's shard files (fixed-size
samples back to back), a DataLoader with shuffle, num_workers = iofab's read_threads,
pin_memory=True, every batch .to(device, non_blocking=True), then the emulated compute (a sleep of
--compute seconds per batch, as iofab's train_read emulates it). The page cache is dropped before
every epoch (iofab's drop_cache: every_epoch). AU = compute time / epoch wall time, each epoch's
first batch excluded, as iofab counts it. Prints one JSON line.

  torch_loader.py --data DIR --num-samples N --sample-size S --samples-per-shard K
                  [--batch-size B] [--workers W] [--epochs E] [--compute SECONDS] [--device cuda:0]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devcommon  # noqa: E402

import torch  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402


class Shards(Dataset):
    """Sample i: shard i // K, at (i % K) x sample_size; each worker opens the shards once."""

    def __init__(self, paths, num_samples, sample_size, per_shard):
        self.paths, self.n, self.size, self.per_shard = paths, num_samples, sample_size, per_shard
        self.fds = None

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.fds is None:
            self.fds = [os.open(p, os.O_RDONLY) for p in self.paths]
        data = os.pread(self.fds[i // self.per_shard], self.size, (i % self.per_shard) * self.size)
        if len(data) != self.size:
            raise IOError("sample %d: read %d of %d bytes" % (i, len(data), self.size))
        return torch.frombuffer(bytearray(data), dtype=torch.uint8)


def epoch(loader, device, compute):
    """One pass: (samples, wall seconds, compute seconds counted, wall seconds counted)."""
    cuda = str(device).startswith("cuda")
    start = devcommon.now()
    counted_from = None
    samples = 0
    computed = 0.0
    for batch in loader:
        if cuda:
            batch = batch.to(device, non_blocking=True)
        samples += batch.shape[0]
        if counted_from is None:  # the first batch is the pipeline's fill: not counted, as in iofab
            time.sleep(compute)
            counted_from = devcommon.now()
            continue
        t = devcommon.now()
        time.sleep(compute)
        computed += devcommon.now() - t
    devcommon.sync_device(torch, device)
    end = devcommon.now()
    return samples, end - start, computed, end - (counted_from or end)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="folder of the shard files (the dataset's data/)")
    ap.add_argument("--num-samples", type=int, required=True)
    ap.add_argument("--sample-size", type=int, required=True)
    ap.add_argument("--samples-per-shard", type=int, required=True)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--compute", type=float, default=0.0, help="seconds of emulated compute per batch")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    paths = devcommon.files_under(a.data)
    need = (a.num_samples + a.samples_per_shard - 1) // a.samples_per_shard
    if len(paths) != need:
        sys.exit("torch_loader.py: %d files under %s, expected %d shards" % (len(paths), a.data, need))
    g = torch.Generator()
    g.manual_seed(a.seed)
    loader = DataLoader(Shards(paths, a.num_samples, a.sample_size, a.samples_per_shard),
                        batch_size=a.batch_size, shuffle=True, generator=g, num_workers=a.workers,
                        pin_memory=str(a.device).startswith("cuda"), persistent_workers=a.workers > 0)
    total, wall, computed, counted = 0, 0.0, 0.0, 0.0
    cold = True
    for _ in range(a.epochs):
        cold = devcommon.drop_cache(paths) and cold
        s, w, c, cw = epoch(loader, a.device, a.compute)
        total, wall, computed, counted = total + s, wall + w, computed + c, counted + cw
    devcommon.emit({
        "pair": "loader", "tool": "torch", "device": a.device, "torch": torch.__version__,
        "workers": a.workers, "batch_size": a.batch_size, "epochs": a.epochs, "compute_per_batch_s": a.compute,
        "cold_cache": cold, "samples": total, "read_seconds": wall,
        "samples_per_s": total / wall if wall > 0 else 0,
        "read_bytes_per_s": total * a.sample_size / wall if wall > 0 else 0,
        "au": computed / counted if counted > 0 else 0,
    })


if __name__ == "__main__":
    main()
