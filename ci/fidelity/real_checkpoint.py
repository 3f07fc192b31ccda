#!/usr/bin/python3
"""The real checkpoint writers on the tensors of an iofab checkpoint: torch.save of the state dict into one
file (as `torch.save(model.state_dict(), path)`), or PyTorch Distributed Checkpoint's FileSystemWriter
(each record torch.saved into a .distcp file, fsynced, the pickled .metadata renamed last). The tensors
are the records of an iofab manifest (their names, sizes and order), so both sides write the same state.
Prints one JSON object: seconds (the save, durable: the file and its folder fsynced), files and bytes."""
import argparse
import json
import os
import shutil
import time

import torch


def records(manifest_path):
    """(name, bytes, element bytes) of every record in an iofab checkpoint manifest (.metadata or
    manifest.json), in the files' order. A record is [tensor, key, file offset, bytes, tensor offset,
    tensor bytes, weights]: weights are bf16 (2 bytes an element), optimizer state fp32 (4)."""
    with open(manifest_path) as f:
        m = json.loads(f.read())
    out = []
    for shard in m["shards"]:
        for r in shard.get("records", []):
            out.append((r[0], int(r[3]), 2 if r[6] else 4))
    if not out:
        raise SystemExit(f"real_checkpoint: {manifest_path} lists no records (a checkpoint from a model?)")
    return out


def state_dict(recs):
    """The records as tensors: numel = bytes / element bytes, or a uint8 tensor of its bytes where a scale
    left an odd size (as iofab's torch_framing plans them)."""
    dtypes = {2: torch.bfloat16, 4: torch.float32}
    sd = {}
    for name, nbytes, eb in recs:
        if nbytes % eb:
            sd[name] = torch.ones(nbytes, dtype=torch.uint8)
        else:
            sd[name] = torch.ones(nbytes // eb, dtype=dtypes[eb])
    return sd


def fsync_path(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_torch(sd, out_dir):
    path = os.path.join(out_dir, "rank_0.pt")
    start = time.perf_counter()
    torch.save(sd, path)  # by path, as a training script saves: torch's own file writer
    fsync_path(path)
    fsync_path(out_dir)
    return time.perf_counter() - start


def lenient_dataclass_defaults():
    """Debian's torch 1.13 under Python 3.11: sharded_tensor/metadata.py declares a dataclass field whose
    default is another dataclass instance, which Python 3.11 refuses ("mutable default ... use
    default_factory"), so _shard.checkpoint cannot be imported. PyTorch later made that default a
    default_factory; this does the same at import time, leaving DCP's code otherwise as shipped."""
    import copy
    import dataclasses
    strict = dataclasses._get_field

    def get_field(cls, name, type_, *rest):
        try:
            return strict(cls, name, type_, *rest)
        except ValueError as e:
            if "mutable default" not in str(e):
                raise
            default = cls.__dict__[name]
            setattr(cls, name, dataclasses.field(default_factory=lambda: copy.copy(default)))
            return strict(cls, name, type_, *rest)

    dataclasses._get_field = get_field


def dcp_module():
    """PyTorch 2.x's torch.distributed.checkpoint; PyTorch 1.13 (Debian's) has it as _shard.checkpoint."""
    try:
        import torch.distributed.checkpoint as dcp
    except ImportError:
        lenient_dataclass_defaults()
        import torch.distributed._shard.checkpoint as dcp
    return dcp


def save_dcp(sd, out_dir):
    dcp = dcp_module()
    # One file a rank, as DCP writes by default since PyTorch 2.0 (1.13 defaulted to one file a tensor).
    writer = dcp.FileSystemWriter(out_dir, single_file_per_rank=True)
    start = time.perf_counter()
    if hasattr(dcp, "save"):
        dcp.save(sd, storage_writer=writer, no_dist=True)
    else:
        dcp.save_state_dict(sd, storage_writer=writer, no_dist=True)
    fsync_path(out_dir)
    return time.perf_counter() - start


def listing(out_dir):
    files = {}
    for name in sorted(os.listdir(out_dir)):
        files[name] = os.path.getsize(os.path.join(out_dir, name))
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--writer", choices=["torch_save", "dcp"], required=True)
    ap.add_argument("--out", required=True, help="an empty folder to write into")
    ap.add_argument("--warmup", action="store_true", help="save once, untimed, before the timed save")
    args = ap.parse_args()
    sd = state_dict(records(args.manifest))
    save = save_torch if args.writer == "torch_save" else save_dcp
    if args.warmup:
        # A training job's checkpoint is seldom its process's first large write: the first pays one-time
        # costs (fresh memory for the page cache, torch's first archive) that later saves do not.
        warm = os.path.join(args.out, "warmup")
        os.makedirs(warm, exist_ok=True)
        save(sd, warm)
        shutil.rmtree(warm)
    os.makedirs(args.out, exist_ok=True)
    os.sync()  # the state dict's making is not the save's: nothing of it left to write back
    seconds = save(sd, args.out)
    files = listing(args.out)
    print(json.dumps({"seconds": seconds, "files": files, "bytes": sum(files.values())}))


if __name__ == "__main__":
    main()
