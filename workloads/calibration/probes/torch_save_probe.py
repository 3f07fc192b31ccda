# iofab calibration probe "torch_save": what torch.save and a safetensors-style load cost in CPU beside
# their I/O. Run by `iofab calibrate` with one argument, a JSON object: {"sizes": [bytes, ...], "tensors": N,
# "rounds": R} (all optional). Prints one JSON object on its last line, with the fitted sections
# "torch_save" and "safetensors" (workloads/calibration/torch_costs.h) and the points they come from.
#
# torch.save: a bare tensor saved into /dev/null through a file object (DCP's _write_item), so no storage
# is in it: the pickling and zip framing per record, miniz's crc32 per byte. native: a copy of the same
# bytes (what iofab's writer spends making them), so the spin is what torch costs beyond it.
# safetensors: safetensors.torch.load_file's work once the file is mapped (torch.ByteStorage.from_file,
# then per tensor storage[a:b] -> torch.asarray(uint8).view(dtype).reshape(shape), safetensors'
# bindings/python/src/lib.rs) and the copy that materializes it (clone), on a file in the page cache.
import json
import os
import statistics
import struct
import sys
import tempfile
import time

import torch


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0
    return max(0.0, my - slope * mx), max(0.0, slope)


def cpu_per(fn, n):
    t0 = time.thread_time()
    for _ in range(n):
        fn()
    return (time.thread_time() - t0) / n


def save_points(sizes, tensors, rounds):
    points = []
    with open(os.devnull, "wb") as sink:
        for size in sizes:
            t = torch.ones(size // 2, dtype=torch.bfloat16)
            n = max(3, min(tensors, (64 << 20) // max(size, 1)))
            save = statistics.median(cpu_per(lambda: torch.save(t, sink), n) for _ in range(rounds))
            copy = statistics.median(cpu_per(lambda: t.clone(), n) for _ in range(rounds))
            points.append({"bytes": size, "save_s": save, "copy_s": copy})
    return points


def safetensors_file(path, sizes):
    header, off = {}, 0
    for i, size in enumerate(sizes):
        header["t%05d" % i] = {"dtype": "BF16", "shape": [size // 2], "data_offsets": [off, off + size]}
        off += size
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"\0" * off)
    return header, 8 + len(text)


def load_points(sizes, tensors, rounds):
    points = []
    with tempfile.TemporaryDirectory() as d:
        for size in sizes:
            n = max(3, min(tensors, (64 << 20) // max(size, 1)))
            path = os.path.join(d, "m.safetensors")
            header, start = safetensors_file(path, [size] * n)
            storage = torch.ByteStorage.from_file(path, shared=False, size=os.path.getsize(path)).untyped()

            def one(name, info):
                a, b = info["data_offsets"]
                x = torch.asarray(storage[start + a:start + b], dtype=torch.uint8)
                return x.view(dtype=torch.bfloat16).reshape(info["shape"]).clone()

            items = sorted(header.items())
            for name, info in items:
                one(name, info)  # warm: every page mapped and in the cache

            def load_all():
                t0 = time.thread_time()
                for name, info in items:
                    one(name, info)
                return (time.thread_time() - t0) / n

            buf = torch.ones(size // 2, dtype=torch.bfloat16)
            copy = statistics.median(cpu_per(lambda: buf.clone(), n) for _ in range(rounds))
            points.append({"bytes": size, "load_s": statistics.median(load_all() for _ in range(rounds)),
                           "copy_s": copy})
    return points


def main():
    cfg = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    sizes = cfg.get("sizes", [64, 4096, 65536, 1 << 20, 8 << 20])
    tensors, rounds = cfg.get("tensors", 200), cfg.get("rounds", 5)
    sp = save_points(sizes, tensors, rounds)
    lp = load_points(sizes, tensors, rounds)
    xs = [p["bytes"] for p in sp]
    save_record, save_byte = fit(xs, [p["save_s"] for p in sp])
    copy_record, copy_byte = fit(xs, [p["copy_s"] for p in sp])
    load_tensor, load_byte = fit(xs, [p["load_s"] for p in lp])
    lcopy_tensor, lcopy_byte = fit(xs, [p["copy_s"] for p in lp])
    print(json.dumps({
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "torch": torch.__version__,
        "save_points": sp,
        "load_points": lp,
        "sections": {
            "torch_save": {"python": {"record_s": save_record, "byte_s": save_byte},
                           "native": {"record_s": copy_record, "byte_s": copy_byte}},
            "safetensors": {"python": {"tensor_s": load_tensor, "byte_s": load_byte},
                            "native": {"tensor_s": lcopy_tensor, "byte_s": lcopy_byte}},
        },
    }))


if __name__ == "__main__":
    main()
