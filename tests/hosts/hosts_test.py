#!/usr/bin/env python3
"""Runs of iofab across simulated hosts (ci/hosts): `hosts_test.py IOFAB TEST_NAME`, one ctest test each
(label `hosts`, tests/CMakeLists.txt). Each test brings its hosts up and takes them down itself, and is
bounded in time; it is skipped (exit 77) when not root or when namespaces cannot be made."""

import os
import sys
import time

from hosts_fixture import SKIP, Hosts, Skip, collect, iofab_running, read_report, wait, wait_for

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SMALL = os.path.join(REPO, "tests", "hosts", "small.json")
# Where each test's hosts keep their state; under a clone in /tmp ci/hosts binds the clone into each host's own /tmp.
ROOT = os.environ.get("IOFAB_HOSTS_ROOT", os.path.join(REPO, "build", "hosts-tests"))
# A run that hangs is a failure, not a wait for ctest's timeout.
RUN_S = 90


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def run_on(h, iofab, hosts, args, name="r", extra=()):
    """Runs iofab on hosts to its end; returns (exit code, report or None, log text)."""
    report = os.path.join(h.shared, name + ".json")
    log = os.path.join(h.shared, name + ".log")
    p = h.mpirun(hosts, iofab, ["run", *args, "--out", report, "--quiet", "--no-preflight"], log, extra)
    rc = wait(p, RUN_S)
    text = open(log).read()
    expect(rc is not None, f"the run did not end within {RUN_S} s: {text}")
    j = read_report(report)
    collect(report)
    return rc, j, text


def test_default_suite_names_each_host(iofab):
    """The default suite on 2 hosts and the small one on 3 (two ranks on h1): rank_hosts and hosts name
    every rank's host."""
    with Hosts(REPO, ROOT, "names", 3) as h:
        target = os.path.join(h.shared, "t")
        os.makedirs(target)
        rc, j, log = run_on(h, iofab, ["h1", "h2"], ["--target", target, "--set", "phases.ingest.file_size=8MiB",
                                                    "--set", "phases.model_load.scale=512"], "default")
        expect(j is not None, "no report: " + log)
        expect(j["cluster"]["rank_hosts"] == ["h1", "h2"], j["cluster"]["rank_hosts"])
        expect([x["hostname"] for x in j["cluster"]["hosts"]] == ["h1", "h2"], j["cluster"]["hosts"])
        expect(rc in (0, 1), f"exit {rc}: {log}")
        rc, j, log = run_on(h, iofab, ["h1", "h1", "h2", "h3"], [SMALL, "--target", target], "three")
        expect(rc == 0 and j is not None, f"exit {rc}: {log}")
        expect(j["cluster"]["rank_hosts"] == ["h1", "h1", "h2", "h3"], j["cluster"]["rank_hosts"])
        expect({x["hostname"]: x["ranks"] for x in j["cluster"]["hosts"]} == {"h1": 2, "h2": 1, "h3": 1},
               j["cluster"]["hosts"])


def test_node_local_target_is_refused(iofab):
    """Finding 1: a target that is each host's own /tmp is refused at the start, naming the hosts that
    differ (exit 2, nothing left), instead of failing phases later and hanging to the rank timeout."""
    with Hosts(REPO, ROOT, "local", 3) as h:
        t0 = time.monotonic()
        rc, j, log = run_on(h, iofab, ["h1", "h2", "h3"], [SMALL, "--target", "/tmp", "--rank-timeout", "60s"])
        expect(rc == 2, f"exit {rc}, expected 2: {log}")
        expect(time.monotonic() - t0 < 45, "the refusal took past the start")
        expect("not the same folder on every host" in log and "h2, h3" in log, log)
        expect('target_scope: "host"' in log, "the refusal does not offer target_scope: " + log)
        expect(j is None, "a refused run wrote a report")
        for host in ("h1", "h2", "h3"):
            left = h.run_dir_count(os.path.join(os.path.dirname(h.state), "state", host, "tmp"))
            expect(left == 0, f"{host}'s /tmp keeps a run folder")


def test_target_scope_host_runs_on_node_local_targets(iofab):
    """Finding 1: target_scope "host" measures each host's own target on purpose (node-local NVMe)."""
    with Hosts(REPO, ROOT, "scope", 2) as h:
        suite = os.path.join(REPO, "tests", "hosts", "node_local.json")
        rc, j, log = run_on(h, iofab, ["h1", "h2"], [suite, "--target", "/tmp"])
        expect(rc == 0 and j is not None, f"exit {rc}: {log}")
        expect(j["target"].get("scope") == "host", j["target"])
        expect(j["verdict"]["status"] == "passed", j["verdict"])
        for host in ("h1", "h2"):
            left = h.run_dir_count(os.path.join(os.path.dirname(h.state), "state", host, "tmp"))
            expect(left == 0, f"{host}'s /tmp keeps a run folder")


def kill_host_mid_checkpoint(h, iofab, hosts, victim, name, extra_args=()):
    """Runs a long checkpoint on hosts, kills host victim once its ranks write; returns (rc, report, log)."""
    target = os.path.join(h.shared, "t")
    os.makedirs(target, exist_ok=True)
    report = os.path.join(h.shared, name + ".json")
    log = os.path.join(h.shared, name + ".log")
    args = ["run", SMALL, "--target", target, "--out", report, "--quiet", "--no-preflight", "--rank-timeout", "10s",
            "--set", "phases.checkpoint.params=3e10", "--set", "phases.checkpoint.count=50",
            "--set", "phases.checkpoint.block_size=64KiB", *extra_args]
    p = h.mpirun(hosts, iofab, args, log)

    def checkpointing():
        for _root, dirs, files in os.walk(target):
            if any("ckpt" in n or "shard" in n for n in files + dirs):
                return True
        return False

    expect(wait_for(checkpointing, 60), "the checkpoint never started: " + open(log).read())
    h.kill(victim)
    # Every iofab on the surviving hosts ends (the couriers, outside the launcher's reach, included). mpirun
    # itself may wait on the dead host's daemon, which never answers (its link is down, as a dead node's):
    # that is the launcher's, so it gets a while more, then is stopped.
    ended = wait_for(lambda: not iofab_running(report), RUN_S, 0.2)
    rc = wait(p, 15)
    text = open(log).read()
    expect(ended, f"the run hung after {victim} died: {text}")
    j = read_report(report)
    collect(report)
    expect(j is not None, f"no report after {victim} died (exit {rc}): {text}")
    return rc, j, text, target


def test_lost_host_is_named_and_every_host_kept(iofab):
    """Findings 3 and 6: h2 dies mid-checkpoint; rank_hosts and hosts still list every host (a live third
    one too), the lost rank's host is named, and the report says iofab's exit code (3)."""
    with Hosts(REPO, ROOT, "lose2", 3) as h:
        rc, j, log, _ = kill_host_mid_checkpoint(h, iofab, ["h1", "h2", "h3"], "h2", "lose2")
        c = j["cluster"]
        expect(c["rank_hosts"] == ["h1", "h2", "h3"], c["rank_hosts"])
        expect([x["hostname"] for x in c["hosts"]] == ["h1", "h2", "h3"], c["hosts"])
        expect(c["lost_ranks"] == [1], c["lost_ranks"])
        expect(c.get("lost_hosts") == ["h2"], c)
        expect(j["verdict"]["status"] == "error", j["verdict"])
        expect(j["verdict"].get("exit_code") == 3, j["verdict"])


def test_launch_block_under_mpirun(iofab):
    """Finding 4: the report names its launcher and the nodes it ran on."""
    with Hosts(REPO, ROOT, "launch", 2) as h:
        target = os.path.join(h.shared, "t")
        os.makedirs(target)
        rc, j, log = run_on(h, iofab, ["h1", "h2"], [SMALL, "--target", target])
        expect(rc == 0 and j is not None, f"exit {rc}: {log}")
        launch = j["cluster"].get("launch")
        expect(launch is not None, "no cluster.launch: " + str(j["cluster"]))
        expect(launch["launcher"] == "mpirun", launch)
        expect(launch.get("nodes") == ["h1", "h2"], launch)
        expect(launch.get("tasks_per_node") == 1, launch)
        expect("job_id" in launch, launch)


def test_cache_tier_device_per_host(iofab):
    """Finding 7: cache_tier names each host's device, not only rank 0's."""
    with Hosts(REPO, ROOT, "tier", 2) as h:
        target = os.path.join(h.shared, "t")
        os.makedirs(target)
        rc, j, log = run_on(h, iofab, ["h1", "h2"], [os.path.join(REPO, "tests", "hosts", "tier.json"),
                                                     "--target", target])
        expect(j is not None, f"exit {rc}: {log}")
        phase = [p for p in j["phases"] if p["kind"] == "train_read"][0]
        expect(phase["status"] == "passed", f"{phase['status']}: {phase.get('reason')}: {log}")
        tier = phase["result"]["details"].get("cache_tier")
        expect(tier is not None, "no cache_tier")
        per_host = tier.get("devices")
        expect(isinstance(per_host, list) and sorted(d["host"] for d in per_host) == ["h1", "h2"], tier)


def test_rank_zero_host_dies(iofab):
    """Finding 2: rank 0's host dies mid-checkpoint; the lowest surviving rank writes the report on its
    own host, naming the lost host, and removes the run folder."""
    with Hosts(REPO, ROOT, "lose1", 3) as h:
        rc, j, log, target = kill_host_mid_checkpoint(h, iofab, ["h1", "h2", "h3"], "h1", "lose1")
        c = j["cluster"]
        expect(c["report_rank"] == 1, c)
        expect(0 in c["lost_ranks"], c)
        expect("h1" in c.get("lost_hosts", []), c)
        expect(c["rank_hosts"] == ["h1", "h2", "h3"], c["rank_hosts"])
        expect(j["verdict"]["status"] == "error", j["verdict"])
        expect(wait_for(lambda: h.run_dir_count(target) == 0, 40), "the run folder stays: " + str(os.listdir(target)))


def slurm_run(h, argv, name):
    """Runs a Slurm command on the login node to its end; returns (exit code, report or None, log text)."""
    report = os.path.join(h.shared, name + ".json")
    log = os.path.join(h.shared, name + ".log")
    rc = wait(h.slurm([a.replace("REPORT", report) for a in argv], log), RUN_S)
    text = open(log).read()
    expect(rc is not None, f"{argv[0]} did not end within {RUN_S} s: {text}")
    j = read_report(report)
    collect(report)
    return rc, j, text


def test_srun_pmix_names_the_slurm_job(iofab):
    """Finding 4 under Slurm: srun --mpi=pmix on 2 nodes; the launch block names the job, step and nodes.
    Then the same from an sbatch script."""
    with Hosts(REPO, ROOT, "srun", 2) as h:
        h.slurm_up()
        target = os.path.join(h.shared, "t")
        os.makedirs(target)
        run = [iofab, "run", SMALL, "--target", target, "--out", "REPORT", "--quiet", "--no-preflight"]
        rc, j, log = slurm_run(h, ["srun", "-N", "2", "--ntasks-per-node", "1", "--mpi=pmix", *run], "srun")
        expect(rc == 0 and j is not None, f"exit {rc}: {log}")
        launch = j["cluster"].get("launch") or {}
        expect(launch.get("launcher") == "srun" and launch.get("scheduler") == "slurm", launch)
        expect(launch.get("job_id") and launch.get("step_id") == "0", launch)
        expect(launch.get("node_list") == "h[1-2]" and launch.get("nodes") == ["h1", "h2"], launch)
        expect(launch.get("partition") == "sim", launch)
        expect(j["cluster"]["comm_reason"] == f"launched by srun (Slurm job {launch['job_id']}, step 0)",
               j["cluster"]["comm_reason"])
        script = os.path.join(h.shared, "job.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\n" + " ".join(["srun", "--mpi=pmix", *run]).replace(
                "REPORT", os.path.join(h.shared, "sbatch.json")) + "\n")
        rc, j, log = slurm_run(h, ["sbatch", "--wait", "-N", "2", "--ntasks-per-node", "1", "-o",
                                   os.path.join(h.shared, "job.out"), script], "sbatch")
        expect(rc == 0 and j is not None, f"exit {rc}: {log}")
        job = log.split("Submitted batch job")[-1].split()[0] if "Submitted batch job" in log else None
        launch = j["cluster"]["launch"]
        expect(job is not None and launch.get("job_id") == job, f"{launch} vs {log}")
        expect(launch.get("nodes") == ["h1", "h2"], launch)


def sbatch_example():
    """The batch script docs/clusters.md shows, as written there."""
    text = open(os.path.join(REPO, "docs", "clusters.md")).read()
    block = text.split("<!-- sbatch example:")[1].split("```sh\n")[1].split("```")[0]
    expect(block.startswith("#!/bin/sh") and "srun --mpi=pmix iofab run" in block, block)
    return block


def test_sbatch_log_shows_progress(iofab):
    """Issue 46: the sbatch script of docs/clusters.md, run as written (its paths and interval replaced):
    the job's log (stderr in a file) shows plain progress lines while the run goes, no terminal codes."""
    with Hosts(REPO, ROOT, "sbatch", 2) as h:
        h.slurm_up()
        target = os.path.join(h.shared, "t")
        os.makedirs(target)
        job_log = os.path.join(h.shared, "job-%j.log")
        script = os.path.join(h.shared, "job.sh")
        text = (sbatch_example().replace("iofab run", iofab + " run").replace("suite.json", SMALL)
                .replace("/lustre/bench", target).replace("iofab-%j.log", job_log)
                .replace("iofab-$SLURM_JOB_ID.json", "REPORT").replace("--progress-every 1min",
                                                                      "--progress-every 30ms --no-preflight"))
        with open(script, "w") as f:
            f.write(text.replace("REPORT", os.path.join(h.shared, "sbatch.json")))
        rc, j, log = slurm_run(h, ["sbatch", "--wait", script], "sbatch")
        expect(rc == 0 and j is not None, f"exit {rc}: {log}")
        job = log.split("Submitted batch job")[-1].split()[0]
        out = open(job_log.replace("%j", job)).read()
        lines = [x for x in out.splitlines() if " so far, " in x]
        expect(lines, "no progress line in the job's log: " + out)
        expect(all(x.split()[1] in ("ingest", "checkpoint", "restore") and " of " in x for x in lines), lines)
        expect("\x1b" not in out and "\r" not in out, "terminal control codes in the log: " + repr(out))
        print("\n".join(lines[:3]))


def test_srun_without_pmix_is_refused(iofab):
    """Finding 5: srun without --mpi=pmix (MpiDefault none) ends with iofab's word and exit 2, not Open MPI's
    text and exit 1."""
    with Hosts(REPO, ROOT, "nopmix", 2) as h:
        h.slurm_up()
        target = os.path.join(h.shared, "t")
        os.makedirs(target)
        rc, j, log = slurm_run(h, ["srun", "-N", "2", "--ntasks-per-node", "1", iofab, "run", SMALL, "--target",
                                   target, "--out", "REPORT", "--quiet"], "nopmix")
        expect(rc == 2, f"exit {rc}, expected 2: {log}")
        expect("launched by srun without PMIx: use srun --mpi=pmix" in log, log)
        expect(j is None, "a refused run wrote a report")


TESTS = {name[len("test_"):]: f for name, f in globals().items() if name.startswith("test_")}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in TESTS:
        print("usage: hosts_test.py IOFAB TEST (" + ", ".join(TESTS) + ")", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("skipped: the hosts tests need root (network, UTS and mount namespaces)")
        return SKIP
    try:
        TESTS[sys.argv[2]](os.path.abspath(sys.argv[1]))
    except Skip as s:
        print("skipped:", s)
        return SKIP
    except Failure as f:
        print("FAILED:", f)
        return 1
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
