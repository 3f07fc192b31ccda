// Which launcher started this process, read from the environment it sets: for the report's
// cluster.launch block and comm_reason (docs/clusters.md), and to refuse an srun that gave Open MPI no
// PMIx (finding 5 of issue 30: Open MPI then fails with its own text and exit 1, a check's code).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace iofab {

// The environment, injected so tests need not change the process's own (nullptr: not set).
using LaunchEnv = std::function<const char*(const char*)>;
LaunchEnv launch_process_env();

struct Launcher {
  // "srun", "mpirun", "pmix" (another PMIx launcher: prterun, mpiexec of a PMIx MPI), "pmi" (a PMI-1/2
  // launcher: hydra's mpiexec, srun --mpi=pmi2), or "none" (one process, no launcher).
  std::string name = "none";
  // The batch system's job, when one holds the run (Slurm: its job id, also under mpirun in an
  // allocation); else the launcher's own job (Open MPI's jobid, PMIx's namespace).
  std::optional<std::string> job_id;
  std::optional<std::string> step_id;    // Slurm's step
  std::optional<std::string> node_list;  // the launcher's own text (Slurm's compressed list, "h[1-2]")
  std::optional<std::string> partition;  // Slurm's
  std::optional<std::string> scheduler;  // "slurm" when a Slurm job holds the run
};

Launcher detect_launcher(const LaunchEnv& env);

// "launched by srun (Slurm job 12, step 0)", "launched by mpirun (job 2484404225)": comm_reason.
std::string launcher_reason(const Launcher& l);

// Started by srun, but with no PMI or PMIx for Open MPI (srun without --mpi=pmix where MpiDefault is
// none): MPI_Init would fail with Open MPI's own text. Returns the refusal to print, or nullopt.
std::optional<std::string> srun_without_pmi(const LaunchEnv& env);

}  // namespace iofab
