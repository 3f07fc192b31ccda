"""What a program does to each file it reads, from `strace -ff` logs (one file a thread or process): the
syscalls between a file's openat and its close on the same thread (a "session"), by name, and its reads as
(bytes asked, bytes returned). Two programs that read the same files the same way have the same sessions,
whatever their threads, timings and the rest of what they do (a stat by path outside a session, a
manifest, a report)."""

import collections
import os
import re

# A finished call: name(args) = result; strace -y shows a descriptor as 5</path>.
CALL = re.compile(r"^(?:\d+\.\d+\s+)?(\w+)\((.*)\)\s+=\s+(-?\d+)(?:<([^>]*)>)?")
FD_ARG = re.compile(r"^(-?\d+)<([^>]*)>")
TRACED = "openat,newfstatat,fstat,statx,lseek,ioctl,read,pread64,readv,preadv,preadv2,fadvise64,close,mmap"


def strace_cmd(prefix, argv):
    """The command that runs argv under strace, one log per thread at prefix.<tid>."""
    return ["strace", "-ff", "-y", "-qq", "-s", "0", "-e", "trace=" + TRACED, "-o", prefix, *argv]


def _sessions_of_thread(path, wanted):
    """The finished sessions in one thread's log, on files for which wanted(path) is true."""
    open_now = {}  # fd -> [path, Counter of calls, list of reads]
    done = []
    with open(path, errors="replace") as f:
        for line in f:
            m = CALL.match(line.strip())
            if not m:
                continue
            name, args, result, result_path = m.group(1), m.group(2), int(m.group(3)), m.group(4)
            if name == "openat":
                if result >= 0 and result_path and wanted(result_path):
                    open_now[result] = [result_path, collections.Counter({"openat": 1}), []]
                continue
            fd = FD_ARG.match(args)
            if not fd or int(fd.group(1)) not in open_now:
                continue
            s = open_now[int(fd.group(1))]
            s[1][name] += 1
            if name in ("read", "pread64"):
                asked = int(args.rsplit(",", 2 if name == "pread64" else 1)[1 if name == "pread64" else -1])
                s[2].append((asked, result))
            if name == "close":
                done.append(open_now.pop(int(fd.group(1))))
    return done


def sessions(prefix, wanted):
    """Every session in the logs prefix.*: a list of (path, thread log, signature) where the signature is
    (sorted call counts, reads in order)."""
    folder, base = os.path.split(prefix)
    out = []
    for name in sorted(os.listdir(folder)):
        if not name.startswith(base + "."):
            continue
        for path, calls, reads in _sessions_of_thread(os.path.join(folder, name), wanted):
            out.append((path, name, (tuple(sorted(calls.items())), tuple(reads))))
    return out


def reading_threads_only(found):
    """The sessions of the threads that read some file: leaves out a thread that only opens and stats
    (iofab's untimed check, before it measures, that a kept dataset's every file is there at its size)."""
    readers = {t for _, t, (calls, _) in found if any(name in ("read", "pread64") for name, _ in calls)}
    return [s for s in found if s[1] in readers]


def per_sample_signatures(found, size_of):
    """The signatures with each read's sizes written relative to the file's size (so files of one size
    compare), counted: Counter of signature -> sessions."""
    c = collections.Counter()
    for path, _, (calls, reads) in found:
        size = size_of(path)
        rel = tuple((f"size{asked - size:+d}" if abs(asked - size) <= 64 else str(asked),
                     f"size{got - size:+d}" if got > 0 else "0") for asked, got in reads)
        c[(calls, rel)] += 1
    return c
