# The real writers, for tests/workloads/checkpoint/torch_framing_test.cc: given tensors (name, element bytes, numel)
# in a state dict's order, writes them with torch.save(dict, "<dir>/rank_0.pt") and with PyTorch's
# distributed checkpoint (FileSystemWriter, one file a rank) into <dir>/dcp, and prints on its last line
# where every tensor's bytes lie in each file and the files' sizes. Run as /usr/bin/python3 (Debian's
# python3-torch 1.13.1).
import dataclasses
import io
import json
import os
import struct
import sys
import zipfile

# torch 1.13's distributed checkpoint does not import on Python 3.11 (a dataclass field's default is an
# unhashable dataclass): give torch.distributed's dataclasses a hash as they are defined.
_dataclass = dataclasses.dataclass


def _hashable_dataclass(cls=None, **kw):
    def wrap(c):
        if (c.__module__.startswith("torch.distributed") and not kw.get("frozen")
                and "unsafe_hash" not in kw and "__hash__" not in c.__dict__):
            return _dataclass(c, unsafe_hash=True, **kw)
        return _dataclass(c, **kw)
    return wrap if cls is None else wrap(cls)


dataclasses.dataclass = _hashable_dataclass

import torch  # noqa: E402

DTYPES = {1: torch.uint8, 2: torch.bfloat16, 4: torch.float32, 8: torch.float64}


def data_starts(blob):
    """Where each zip entry's data starts in blob (a torch.save archive)."""
    out = {}
    for info in zipfile.ZipFile(io.BytesIO(blob)).infolist():
        n, e = struct.unpack("<HH", blob[info.header_offset + 26:info.header_offset + 30])
        out[info.filename] = info.header_offset + 30 + n + e
    return out


def main():
    cfg = json.loads(sys.argv[1])
    out_dir = cfg["dir"]
    sd = {name: torch.zeros(numel, dtype=DTYPES[eb]) for name, eb, numel in cfg["tensors"]}
    path = os.path.join(out_dir, "rank_0.pt")
    torch.save(sd, path)
    blob = open(path, "rb").read()
    starts = data_starts(blob)
    result = {"torch_save": {"bytes": len(blob),
                             "offsets": {name: starts["rank_0/data/%d" % i] for i, name in enumerate(sd)}}}
    from torch.distributed._shard.checkpoint import FileSystemWriter, save_state_dict
    dcp = os.path.join(out_dir, "dcp")
    save_state_dict(sd, FileSystemWriter(dcp, single_file_per_rank=True), no_dist=True)
    import pickle
    md = pickle.load(open(os.path.join(dcp, ".metadata"), "rb"))
    distcp = open(os.path.join(dcp, "__0_0.distcp"), "rb").read()
    offsets = {}
    for index, info in md.storage_data.items():
        record = distcp[info.offset:info.offset + info.length]
        offsets[index.fqn] = info.offset + data_starts(record)["archive/data/0"]
    result["dcp"] = {"distcp_bytes": len(distcp), "metadata_bytes": os.path.getsize(os.path.join(dcp, ".metadata")),
                     "files": sorted(os.listdir(dcp)), "offsets": offsets,
                     "order": [index.fqn for index, _ in sorted(md.storage_data.items(), key=lambda kv: kv[1].offset)]}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
