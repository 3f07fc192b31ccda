#include "harness/comm/comm.h"

#include <unistd.h>

#include <cstdlib>

#include "harness/comm/launcher.h"

namespace iofab {

#ifdef IOFAB_HAVE_MPI
Status make_mpi_comm(int* argc, char*** argv, bool threads_at_once, std::unique_ptr<Comm>* out);
#endif

void SelfComm::abort(int exit_code) { _exit(exit_code); }

bool launched_by_mpi_launcher() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_SIZE"}) {
    if (std::getenv(var) != nullptr) return true;
  }
  // srun sets SLURM_PROCID for each task; sbatch alone sets SLURM_JOB_ID only.
  return std::getenv("SLURM_PROCID") != nullptr && std::getenv("SLURM_STEP_ID") != nullptr &&
         std::getenv("SLURM_NTASKS") != nullptr && std::string_view(std::getenv("SLURM_NTASKS")) != "1";
}

bool mpi_built() {
#ifdef IOFAB_HAVE_MPI
  return true;
#else
  return false;
#endif
}

Status make_world_comm(int* argc, char*** argv, bool threads_at_once, std::unique_ptr<Comm>* out,
                       std::string* reason) {
  if (launched_by_mpi_launcher()) {
    // Open MPI would fail in MPI_Init with its own text and exit 1, a failed check's code: bad input.
    if (const auto refused = srun_without_pmi(launch_process_env())) return Status::Invalid(*refused);
#ifdef IOFAB_HAVE_MPI
    *reason = launcher_reason(detect_launcher(launch_process_env()));
    return make_mpi_comm(argc, argv, threads_at_once, out);
#else
    (void)argc;
    (void)argv;
    (void)threads_at_once;
    return Status::Unavailable("launched by an MPI launcher, but this iofab was built without MPI");
#endif
  }
  (void)argc;
  (void)argv;
  (void)threads_at_once;
  *reason = "not launched by mpirun or srun: one rank";
  *out = std::make_unique<SelfComm>();
  return Status::Ok();
}

}  // namespace iofab
