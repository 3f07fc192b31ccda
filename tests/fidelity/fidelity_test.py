#!/usr/bin/python3
"""What iofab's profiles of the training software do, against the real software on the same files,
counted rather than timed: `fidelity_test.py IOFAB TEST_NAME`, one ctest test each (label `fidelity`,
tests/CMakeLists.txt). Skipped (exit 77) where /usr/bin/python3 has no torch or there is no strace.
ci/fidelity-check compares the timings; these tests compare what the two sides do."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, HERE)
from run_fixture import SKIP, collect  # noqa: E402
from strace_sessions import per_sample_signatures, reading_threads_only, sessions, strace_cmd  # noqa: E402

FIDELITY = os.path.join(REPO, "ci", "fidelity")
PY = "/usr/bin/python3"


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def run(cmd, what, ok=(0,), env=None):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    expect(done.returncode in ok, f"{what} exited {done.returncode}: {' '.join(cmd)}\n{done.stderr[-4000:]}")
    return done


def iofab_run(iofab, work, suite, name, keep=False, prefix=None):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(suite, f)
    report = os.path.join(work, name + "-report.json")
    cmd = [iofab, "run", path, "--target", work, "-o", report, "--quiet"] + (["--keep"] if keep else [])
    env = None
    if prefix:
        cmd = strace_cmd(prefix, cmd)
        # An ASan build's LeakSanitizer cannot run under ptrace (it aborts the run): leaks are not what a
        # traced run checks.
        asan = os.environ.get("ASAN_OPTIONS", "")
        env = dict(os.environ, ASAN_OPTIONS=(asan + ":" if asan else "") + "detect_leaks=0")
    run(cmd, "iofab run " + name, env=env)
    collect(report, "fidelity-" + name + ".json")
    with open(report) as f:
        return json.load(f)


LOADER = {"samples": 96, "size": 16384, "batch": 8, "workers": 2}


def test_loader_reads_each_sample_as_the_real_dataloader(iofab, work):
    """On one dataset, the pytorch profile and the real DataLoader (map-style Dataset reading each file
    whole, 2 workers, batch 8, one epoch) read every sample the same way: the same syscalls between its
    open and its close, the same read sizes and results, one read in flight per worker, as many threads
    (processes on the real side) reading samples as workers."""
    data = os.path.join(work, "dataset")
    phase = {"kind": "train_read", "name": "loader", "layout": "files", "num_samples": LOADER["samples"],
             "sample_size": LOADER["size"], "batch_size": LOADER["batch"], "epochs": 1, "loader": "pytorch",
             "num_workers": LOADER["workers"], "prefetch_factor": 2, "drop_cache": "never",
             "dataset_dir": data}
    iofab_run(iofab, work, {"phases": [phase]}, "generate")  # the dataset, kept in dataset_dir
    wanted = lambda p: p.startswith(os.path.join(data, "data") + "/") and os.path.isfile(p)  # noqa: E731
    logs = os.path.join(work, "strace")
    os.makedirs(logs)
    rep = iofab_run(iofab, work, {"phases": [dict(phase, storage_ceiling=False)]}, "profile",
                    prefix=os.path.join(logs, "iofab"))
    run(strace_cmd(os.path.join(logs, "real"),
                   [PY, os.path.join(FIDELITY, "real_loader.py"), "--root", data, "--batch", str(LOADER["batch"]),
                    "--workers", str(LOADER["workers"]), "--epochs", "1"]), "the real DataLoader")
    size_of = os.path.getsize
    # iofab's own check that the kept dataset is whole (an open and a stat of each file on the main thread,
    # untimed, before the phase measures) is not the loader's: only threads that read samples count.
    ours = reading_threads_only(sessions(os.path.join(logs, "iofab"), wanted))
    theirs = reading_threads_only(sessions(os.path.join(logs, "real"), wanted))
    expect(len(theirs) == LOADER["samples"], f"the real loader read {len(theirs)} samples, not {LOADER['samples']}")
    expect(len(ours) == LOADER["samples"], f"the profile read {len(ours)} samples, not {LOADER['samples']}")
    a, b = per_sample_signatures(ours, size_of), per_sample_signatures(theirs, size_of)
    expect(a == b, f"per sample, the profile did {dict(a)}; the real DataLoader {dict(b)}")
    threads_ours = {t for _, t, _ in ours}
    threads_theirs = {t for _, t, _ in theirs}
    expect(len(threads_ours) == len(threads_theirs) == LOADER["workers"],
           f"threads reading samples: profile {len(threads_ours)}, real {len(threads_theirs)}, "
           f"workers {LOADER['workers']}")
    expect(rep["phases"][0]["status"] == "passed", rep["phases"][0].get("reason"))


def step_folder(rep, phase):
    """The newest committed step folder of a kept checkpoint phase."""
    root = os.path.join(rep["target"]["run_folder"], phase)
    steps = sorted((d for d in os.listdir(root) if d.startswith("step-") and not d.endswith(".tmp")),
                   key=lambda d: int(d.split("-")[1]))
    expect(steps, f"no committed step folder in {root}: {os.listdir(root)}")
    return os.path.join(root, steps[-1])


def files_in(folder, leave_out=()):
    return {n: os.path.getsize(os.path.join(folder, n)) for n in sorted(os.listdir(folder)) if n not in leave_out}


# A small Llama 3 8B checkpoint: 1,164 tensors, weights bf16 and optimizer state fp32, some left with an
# odd size by the scale (uint8 tensors on both sides).
CKPT = {"kind": "checkpoint", "name": "ckpt", "preset": "llama3-8b", "scale": 40000, "count": 1, "gap": 0,
        "mode": "sync"}


def real_writer(work, manifest, writer):
    out = os.path.join(work, "real-" + writer)
    done = run([PY, os.path.join(FIDELITY, "real_checkpoint.py"), "--manifest", manifest, "--writer", writer,
                "--out", out], "the real " + writer)
    return json.loads(done.stdout.strip().splitlines()[-1])["files"]


def test_torch_save_writes_the_bytes_torch_save_writes(iofab, work):
    """layout torch_save writes rank_0.pt of the very size torch.save writes for the same tensors (names,
    dtypes, sizes, order from iofab's manifest): the zip framing, data.pkl and the central directory."""
    rep = iofab_run(iofab, work, {"defaults": {"workers": 1}, "phases": [dict(CKPT, layout="torch_save")]},
                    "torch-save", keep=True)
    step = step_folder(rep, "ckpt")
    ours = files_in(step, leave_out=("manifest.json",))
    theirs = real_writer(work, os.path.join(step, "manifest.json"), "torch_save")
    expect(ours == theirs, f"iofab wrote {ours}; torch.save {theirs}")


def test_dcp_writes_the_files_dcp_writes(iofab, work):
    """layout dcp (one rank, one thread, the state dict's order) writes the files DCP's FileSystemWriter
    writes for the same tensors, each of the same size: __0_0.distcp with every record torch.saved, and
    .metadata of the pickled metadata's size."""
    phase = dict(CKPT, layout="dcp", record_order="state_dict")
    rep = iofab_run(iofab, work, {"defaults": {"workers": 1}, "phases": [phase]}, "dcp", keep=True)
    step = step_folder(rep, "ckpt")
    ours = files_in(step)
    theirs = real_writer(work, os.path.join(step, ".metadata"), "dcp")
    expect(ours == theirs, f"iofab wrote {ours}; DCP's writer {theirs}")


def test_safetensors_ready_copies_what_load_file_copies(iofab, work):
    """model_load's safetensors ready materializes, per replica, every tensor load_file gives and every
    byte of them, on the same files."""
    phase = {"kind": "model_load", "name": "load", "preset": "llama3-8b", "scale": 4096, "engine": "mmap",
             "workers": 1}
    rep = iofab_run(iofab, work, {"phases": [phase]}, "model-load", keep=True)
    details = rep["phases"][0]["result"]["details"]["safetensors"]
    folder = next(root for root, _, names in os.walk(os.path.join(rep["target"]["run_folder"], "load"))
                  if "model.safetensors.index.json" in names)
    done = run([PY, os.path.join(FIDELITY, "real_safetensors_load.py"), folder], "the load_file reproduction")
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    ours = {"tensors": details["tensors_per_replica"], "bytes": details["bytes_copied_per_replica"]}
    expect(ours == {"tensors": theirs["tensors"], "bytes": theirs["bytes"]},
           f"iofab materialized {ours}; load_file and a copy each {theirs}")
    expect("safetensors_ready_seconds_max" in rep["phases"][0]["result"]["metrics"], "no safetensors_ready_seconds_max")


TESTS = {name[len("test_"):]: fn for name, fn in globals().items() if name.startswith("test_")}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in TESTS:
        print(f"usage: fidelity_test.py IOFAB TEST ({', '.join(TESTS)})", file=sys.stderr)
        return 2
    if subprocess.run([PY, "-c", "import torch"], capture_output=True).returncode != 0:
        print("skipped: /usr/bin/python3 has no torch (apt-get install python3-torch)")
        return SKIP
    if shutil.which("strace") is None:
        print("skipped: no strace")
        return SKIP
    work = tempfile.mkdtemp(prefix="iofab-fidelity-", dir="/var/tmp")
    try:
        TESTS[sys.argv[2]](os.path.abspath(sys.argv[1]), work)
    except Failure as e:
        print(f"FAILED: {e}")
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
