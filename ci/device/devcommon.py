"""Helpers the PyTorch side of ci/device-check shares: stdlib only."""
import json
import os
import sys
import time


def drop_cache(paths):
    """Evicts the files' pages from the page cache (as iofab's drop_cache does), so reads are cold.

    Returns False where a file's pages could not be dropped (dirty pages are written first)."""
    ok = True
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError:
            ok = False
        finally:
            os.close(fd)
    return ok


def files_under(folder, suffix=""):
    out = []
    for root, _, names in os.walk(folder):
        out.extend(os.path.join(root, n) for n in names if n.endswith(suffix))
    return sorted(out)


def sync_device(torch, device):
    if str(device).startswith("cuda"):
        torch.cuda.synchronize(device)


def now():
    return time.perf_counter()


def emit(figures):
    """The script's one result: a JSON line on stdout."""
    sys.stdout.write(json.dumps(figures, sort_keys=True) + "\n")
    sys.stdout.flush()
