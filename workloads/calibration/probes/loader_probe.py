# iofab calibration probe "loader": what torch.utils.data.DataLoader costs in CPU beside its I/O, on files
# iofab made (warm in the page cache, so the storage is out of it). Run by `iofab calibrate` with one
# argument, a JSON object: {"sets": [{"size": bytes, "dir": folder of files of that size}], "batch": B,
# "workers": W, "rounds": R}. Prints one JSON object on its last line. Costs are CPU seconds
# (thread or process CPU time, so a busy machine stretches the wall time, not the figures).
import json
import os
import resource
import statistics
import sys
import time

import torch
from torch.multiprocessing.reductions import ForkingPickler
from torch.utils.data import DataLoader, Dataset
from torch.utils.data._utils import collate as collate_mod
from torch.utils.data._utils import fetch as fetch_mod
from torch.utils.data._utils import worker as worker_mod


class FileDataset(Dataset):
    """The map-style dataset the train_read profile models: one file per sample, read whole."""

    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        with open(self.paths[i], "rb") as f:
            return torch.frombuffer(bytearray(f.read()), dtype=torch.uint8)


def batches_of(n, batch):
    order = torch.randperm(n).tolist()
    return [order[i:i + batch] for i in range(0, n, batch)]


def getitem_cost(ds, batch):
    """Per sample: the worker's fetch (dataset[i] for each index of a batch), no collate."""
    fetcher = fetch_mod._MapDatasetFetcher(ds, True, lambda x: x, False)
    spent = 0
    for idx in batches_of(len(ds), batch):
        t0 = time.thread_time_ns()
        fetcher.fetch(idx)
        spent += time.thread_time_ns() - t0
    return spent * 1e-9 / len(ds)


def collate_cost(ds, batch):
    """Per batch, in a worker: default_collate into shared memory, then the result pickled for the main
    process (ForkingPickler, the fd shared); the main process's unpickling is timed apart."""
    saved = worker_mod._worker_info
    worker_mod._worker_info = worker_mod.WorkerInfo(id=0, num_workers=1, seed=0, dataset=ds)
    work, main, n = 0, 0, 0
    try:
        for idx in batches_of(len(ds), batch)[:64]:
            samples = [ds[i] for i in idx]
            t0 = time.thread_time_ns()
            data = collate_mod.default_collate(samples)
            buf = ForkingPickler.dumps((0, data))
            t1 = time.thread_time_ns()
            del data
            got = ForkingPickler.loads(buf)
            main += time.thread_time_ns() - t1
            del got
            work += t1 - t0
            n += 1
    finally:
        worker_mod._worker_info = saved
    return work * 1e-9 / n, main * 1e-9 / n


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def real_run(ds, batch, workers):
    """The real DataLoader, shuffled, with workers: the main process's CPU per batch after the first
    batch, the workers' CPU per sample, and samples/s (wall, for the record)."""
    loader = DataLoader(ds, batch_size=batch, shuffle=True, num_workers=workers)
    c0 = children_cpu()
    w0 = time.perf_counter()
    it = iter(loader)
    next(it)
    p0 = time.process_time()
    rest = 0
    for _ in it:
        rest += 1
    main = (time.process_time() - p0) / max(rest, 1)
    wall = time.perf_counter() - w0
    del it
    return main, (children_cpu() - c0) / len(ds), len(ds) / wall


def worker_start(ds, trials=5):
    """One worker's start, in CPU seconds (a busy machine stretches its wall time, not this): a
    DataLoader of one sample and one worker, the main process's CPU from iter() to the first batch (the
    fork) plus the worker's own (its rusage once joined), less the sample's fetch."""
    spans = []
    for _ in range(trials):
        loader = DataLoader(ds, batch_size=1, num_workers=1, sampler=[0])
        c0 = children_cpu()
        p0 = time.process_time()
        it = iter(loader)
        next(it)
        p1 = time.process_time()
        del it  # joins the worker, so its CPU shows in RUSAGE_CHILDREN
        spans.append(p1 - p0 + children_cpu() - c0)
    return statistics.median(spans)


def main():
    cfg = json.loads(sys.argv[1])
    batch, workers, rounds = cfg["batch"], cfg["workers"], cfg.get("rounds", 3)
    torch.set_num_threads(1)
    points = []
    for s in cfg["sets"]:
        paths = sorted(os.path.join(s["dir"], n) for n in os.listdir(s["dir"]))
        ds = FileDataset(paths)
        for i in range(len(ds)):
            ds[i]  # warm: the page cache holds every file
        getitem = statistics.median(getitem_cost(ds, batch) for _ in range(rounds))
        collate = [collate_cost(ds, batch) for _ in range(rounds)]
        runs = [real_run(ds, batch, workers) for _ in range(rounds)]
        points.append({
            "size": s["size"],
            "batch": batch,
            "batch_bytes": s["size"] * batch,
            "getitem_s": getitem,
            "collate_s": statistics.median(c[0] for c in collate),
            "unpickle_s": statistics.median(c[1] for c in collate),
            "main_batch_s": statistics.median(r[0] for r in runs),
            "worker_cpu_per_sample_s": statistics.median(r[1] for r in runs),
            "samples_per_s": statistics.median(r[2] for r in runs),
        })
    first = cfg["sets"][0]
    ds = FileDataset(sorted(os.path.join(first["dir"], n) for n in os.listdir(first["dir"])))
    print(json.dumps({
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "torch": torch.__version__,
        "points": points,
        "worker_start_s": max(0.0, worker_start(ds) - points[0]["getitem_s"] - points[0]["collate_s"]),
    }))


if __name__ == "__main__":
    main()
