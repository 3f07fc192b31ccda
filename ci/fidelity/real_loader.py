#!/usr/bin/python3
"""The real PyTorch DataLoader over an iofab files-layout dataset: the reference side of ci/fidelity-check
and of the fidelity tests. A map-style Dataset whose item is one file read whole, as a user's simplest
loader is (open, read, a uint8 tensor over a bytearray copy), default collate, shuffled batches.
Prints one JSON object: samples, seconds (from the loader's iterator made to the last batch taken), and
samples_per_s. Run with Debian's /usr/bin/python3 (python3-torch)."""
import argparse
import json
import os
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


class FileDataset(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        with open(self.paths[i], "rb") as f:
            data = f.read()
        return torch.frombuffer(bytearray(data), dtype=torch.uint8)


def sample_files(root):
    """The dataset's sample files, in a stable order: every file under root/data."""
    data = os.path.join(root, "data")
    paths = []
    for folder, _, names in os.walk(data):
        paths.extend(os.path.join(folder, n) for n in names)
    if not paths:
        sys.exit(f"real_loader: no sample files under {data}")
    return sorted(paths)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True, help="an iofab dataset folder (layout files)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--prefetch", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--persistent", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    dataset = FileDataset(sample_files(args.root))
    extra = {"prefetch_factor": args.prefetch} if args.workers > 0 else {}
    loader = DataLoader(dataset, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                        persistent_workers=args.persistent and args.workers > 0, **extra)
    samples = 0
    start = time.perf_counter()
    for _ in range(args.epochs):
        for batch in loader:
            samples += batch.shape[0]
    seconds = time.perf_counter() - start
    print(json.dumps({"samples": samples, "seconds": seconds, "samples_per_s": samples / seconds}))


if __name__ == "__main__":
    main()
