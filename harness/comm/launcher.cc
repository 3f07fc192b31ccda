#include "harness/comm/launcher.h"

#include <cstdlib>

namespace iofab {
namespace {

std::optional<std::string> var(const LaunchEnv& env, const char* name) {
  const char* v = env(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

bool has(const LaunchEnv& env, const char* name) { return var(env, name).has_value(); }

}  // namespace

LaunchEnv launch_process_env() {
  return [](const char* name) { return static_cast<const char*>(std::getenv(name)); };
}

Launcher detect_launcher(const LaunchEnv& env) {
  Launcher l;
  // srun sets a step and a task id for each task it starts; sbatch's batch script has a job only.
  const bool srun_task = has(env, "SLURM_STEP_ID") && has(env, "SLURM_PROCID");
  if (srun_task && !has(env, "OMPI_COMM_WORLD_SIZE")) {
    l.name = "srun";
  } else if (has(env, "OMPI_COMM_WORLD_SIZE")) {
    l.name = "mpirun";
  } else if (has(env, "PMIX_RANK")) {
    l.name = "pmix";
  } else if (has(env, "PMI_RANK") || has(env, "PMI_SIZE")) {
    l.name = "pmi";
  }
  if (has(env, "SLURM_JOB_ID")) {
    l.scheduler = "slurm";
    l.job_id = var(env, "SLURM_JOB_ID");
    l.partition = var(env, "SLURM_JOB_PARTITION");
    if (l.name == "srun") {
      l.step_id = var(env, "SLURM_STEP_ID");
      l.node_list = var(env, "SLURM_STEP_NODELIST");
    }
    if (!l.node_list) l.node_list = var(env, "SLURM_JOB_NODELIST");
  } else if (l.name == "mpirun") {
    l.job_id = var(env, "OMPI_MCA_ess_base_jobid");
    if (!l.job_id) l.job_id = var(env, "PMIX_NAMESPACE");
  } else if (l.name == "pmix") {
    l.job_id = var(env, "PMIX_NAMESPACE");
  }
  return l;
}

std::string launcher_reason(const Launcher& l) {
  if (l.name == "none") return "not launched by mpirun or srun: one rank";
  std::string out = "launched by " + l.name;
  if (l.scheduler && l.job_id) {
    out += " (Slurm job " + *l.job_id + (l.step_id ? ", step " + *l.step_id : "") + ")";
  } else if (l.job_id) {
    out += " (job " + *l.job_id + ")";
  }
  return out;
}

std::optional<std::string> srun_without_pmi(const LaunchEnv& env) {
  if (!has(env, "SLURM_STEP_ID") || !has(env, "SLURM_PROCID")) return std::nullopt;
  // A step of one task runs as one rank: nothing to wire up.
  if (const auto n = var(env, "SLURM_STEP_NUM_TASKS"); n && *n == "1") return std::nullopt;
  // srun --mpi=pmix sets PMIX_*; --mpi=pmi2 sets PMI_FD or PMI_RANK; mpirun inside a step sets OMPI_*.
  for (const char* v : {"PMIX_RANK", "PMIX_NAMESPACE", "PMI_FD", "PMI_RANK", "OMPI_COMM_WORLD_SIZE"}) {
    if (has(env, v)) return std::nullopt;
  }
  const std::string mpi = var(env, "SLURM_MPI_TYPE").value_or("none");
  return "launched by srun without PMIx: use srun --mpi=pmix (or MpiDefault=pmix in slurm.conf); this step's "
         "MPI plugin is \"" +
         mpi + "\", which gives Open MPI no way to find the other ranks";
}

}  // namespace iofab
