#!/usr/bin/python3
"""ci/fidelity-check's body: iofab's predictions of what the training software gets beside the real
software (Debian's python3-torch) on the same files, alternating, N rounds; prints each prediction /
real ratio per round, its median and range, and whether the median is inside the goal (+-10% quiet,
+-15% busy). Timings are figures, not assertions: it exits 0 whatever the ratios are (2 on bad usage,
1 when a side fails to run)."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def drop_caches():
    subprocess.run(["sync"], check=True)
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    except OSError as e:
        sys.exit(f"ci/fidelity-check: cannot drop the page cache ({e}): run as root")


def run_iofab(ctx, suite, keep=False):
    """Runs one suite; returns its report (the first phase's entry)."""
    path = os.path.join(ctx.scratch, "suite.json")
    with open(path, "w") as f:
        json.dump(suite, f)
    report = os.path.join(ctx.scratch, "report.json")
    cmd = [ctx.iofab, "run", path, "--target", ctx.target, "-o", report, "--quiet"]
    if keep:
        cmd.append("--keep")
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"ci/fidelity-check: iofab exited {done.returncode}: {' '.join(cmd)}\n{done.stderr}")
    with open(report) as f:
        rep = json.load(f)
    return rep


def phase_metric(rep, name):
    phase = rep["phases"][0]
    metrics = phase["result"]["metrics"]
    if name not in metrics:
        sys.exit(f"ci/fidelity-check: the report has no metric {name} (has: {', '.join(sorted(metrics))})")
    return float(metrics[name])


def run_real(script, *args):
    done = subprocess.run([PY, os.path.join(HERE, script), *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"ci/fidelity-check: {script} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_dir(rep):
    return rep["target"]["run_folder"]


# ---- the cases: each has a setup (once) and two sides, each returning the compared figure -------------

def loader_case(samples, size, batch):
    def suite(ctx):
        return {"phases": [{"kind": "train_read", "name": "loader", "layout": "files", "num_samples": samples,
                            "sample_size": size, "batch_size": batch, "epochs": 2, "loader": "pytorch",
                            "num_workers": 2, "prefetch_factor": 2, "drop_cache": "first_epoch",
                            "dataset_dir": ctx.case_dir}]}

    def setup(ctx):
        run_iofab(ctx, suite(ctx))

    def iofab(ctx):
        rep = run_iofab(ctx, suite(ctx))
        return phase_metric(rep, "samples_per_s"), phase_metric(rep, "storage_ceiling_samples_per_s")

    def real(ctx):
        out = run_real("real_loader.py", "--root", ctx.case_dir, "--batch", str(batch), "--workers", "2",
                       "--prefetch", "2", "--epochs", "2")
        return out["samples_per_s"]

    return {"setup": setup, "iofab": iofab, "real": real, "unit": "samples/s", "higher_is_better": True}


CKPT_SCALE = 450  # llama3-8b's checkpoint at 14 bytes a parameter, scaled to about 250 MB


def checkpoint_case(layout):
    writer = {"torch_save": "torch_save", "dcp": "dcp"}[layout]

    def suite():
        return {"defaults": {"workers": 1}, "phases": [
            dict({"kind": "checkpoint", "name": "ckpt", "preset": "llama3-8b", "layout": layout,
                  "scale": CKPT_SCALE, "count": 1, "gap": 0, "mode": "sync"},
                 # DCP without CUDA (the real side here) writes in the state dict's order.
                 **({"record_order": "state_dict"} if layout == "dcp" else {}))]}

    def setup(ctx):
        rep = run_iofab(ctx, suite(), keep=True)
        folder = os.path.join(run_dir(rep), "ckpt")
        for root, _, names in os.walk(folder):
            for n in names:
                if n in (".metadata", "manifest.json"):
                    shutil.copy(os.path.join(root, n), os.path.join(ctx.case_dir, "manifest.json"))
        shutil.rmtree(run_dir(rep))

    def iofab(ctx):
        rep = run_iofab(ctx, suite())
        return phase_metric(rep, "stall_seconds_max"), None

    def real(ctx):
        out_dir = os.path.join(ctx.case_dir, "real")
        shutil.rmtree(out_dir, ignore_errors=True)
        # --warmup: one untimed save first, as a training job's checkpoint is not its process's first.
        out = run_real("real_checkpoint.py", "--manifest", os.path.join(ctx.case_dir, "manifest.json"),
                       "--writer", writer, "--out", out_dir, "--warmup")
        shutil.rmtree(out_dir)
        return out["seconds"]

    return {"setup": setup, "iofab": iofab, "real": real, "unit": "s (stall)", "higher_is_better": False}


def model_load_case():
    def suite():
        return {"phases": [{"kind": "model_load", "name": "load", "preset": "llama3-8b", "scale": 64,
                            "engine": "mmap", "workers": 1}]}

    def setup(ctx):
        rep = run_iofab(ctx, suite(), keep=True)
        for root, _, names in os.walk(os.path.join(run_dir(rep), "load")):
            if "model.safetensors.index.json" in names:
                shutil.move(root, os.path.join(ctx.case_dir, "model"))
                break
        shutil.rmtree(run_dir(rep))

    def iofab(ctx):
        rep = run_iofab(ctx, suite())
        return phase_metric(rep, "safetensors_ready_seconds_max"), phase_metric(rep, "ready_seconds_max")

    def real(ctx):
        return run_real("real_safetensors_load.py", os.path.join(ctx.case_dir, "model"))["seconds"]

    return {"setup": setup, "iofab": iofab, "real": real, "unit": "s (ready)", "higher_is_better": False}


CASES = {
    "loader-16k": lambda: loader_case(8192, "16KiB", 32),
    "loader-1m": lambda: loader_case(256, "1MiB", 8),
    "checkpoint-torch-save": lambda: checkpoint_case("torch_save"),
    "checkpoint-dcp": lambda: checkpoint_case("dcp"),
    "model-load": model_load_case,
}


class Ctx:
    pass


def fmt(x):
    return f"{x:.3f}" if x < 10 else f"{x:,.0f}"


def run_case(name, case, ctx, rounds, goal):
    ctx.case_dir = os.path.join(ctx.scratch, name)
    os.makedirs(ctx.case_dir, exist_ok=True)
    case["setup"](ctx)
    ratios, preds, reals, extras = [], [], [], []
    for r in range(rounds):
        sides = ["iofab", "real"] if r % 2 == 0 else ["real", "iofab"]
        got = {}
        for side in sides:
            drop_caches()
            got[side] = case[side](ctx)
        pred, extra = got["iofab"]
        preds.append(pred)
        reals.append(got["real"])
        ratios.append(pred / got["real"])
        if extra is not None:
            extras.append(extra / got["real"])
        print(f"  round {r + 1}: iofab {fmt(pred)} {case['unit']}, real {fmt(got['real'])}, "
              f"iofab/real {ratios[-1]:.3f}" + (f", iofab's own path / real {extras[-1]:.3f}" if extras else ""),
              flush=True)
    med = statistics.median(ratios)
    inside = abs(med - 1) <= goal
    print(f"{name}: iofab {fmt(statistics.median(preds))}, real {fmt(statistics.median(reals))} {case['unit']}; "
          f"iofab/real median {med:.3f} ({min(ratios):.3f}-{max(ratios):.3f}), {rounds} rounds: "
          f"{'within' if inside else 'OUTSIDE'} +-{goal * 100:.0f}%"
          + (f"; storage ceiling (iofab's own path) / real {statistics.median(extras):.2f}" if extras else ""),
          flush=True)
    shutil.rmtree(ctx.case_dir, ignore_errors=True)
    return inside


def main():
    ap = argparse.ArgumentParser(prog="ci/fidelity-check")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", action="append", choices=sorted(CASES))
    ap.add_argument("--target", default="/var/tmp/iofab-fidelity")
    ap.add_argument("--iofab", default=os.path.join(HERE, "..", "..", "build", "default", "iofab"))
    ap.add_argument("--busy", action="store_true", help="the machine is busy: the goal is +-15%% (else +-10%%)")
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds: expected a whole number >= 1")
    try:
        import torch  # noqa: F401  (the real side's dependency)
    except ImportError:
        print("ci/fidelity-check: skipped: /usr/bin/python3 has no torch (apt-get install python3-torch)")
        return 0
    ctx = Ctx()
    ctx.iofab = os.path.abspath(args.iofab)
    os.makedirs(args.target, exist_ok=True)
    ctx.target = os.path.abspath(args.target)
    ctx.scratch = tempfile.mkdtemp(prefix="fidelity-", dir=ctx.target)
    goal = 0.15 if args.busy else 0.10
    try:
        for name in args.only or list(CASES):
            print(f"== {name}", flush=True)
            run_case(name, CASES[name](), ctx, args.rounds, goal)
    finally:
        shutil.rmtree(ctx.scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
