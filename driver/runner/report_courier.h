// ReportCourier: a helper process that makes the report durable even when the
// launcher kills this rank before the write is done.
//
// Under mpirun, a lost rank makes the launcher send SIGTERM to every survivor
// and SIGKILL one second later (Open MPI's odls_base_sigkill_timeout),
// whatever they are doing. On a loaded node the report's write, fsync and
// rename can take longer than that. The courier is forked before MPI starts
// (no threads, no MPI state to copy), leaves the launcher's process group
// (setsid), so the launcher's signals do not reach it, and writes every
// report handed to it with write_file_atomic, in order. A report handed over
// whole is written even if this rank dies a moment later; one cut off
// mid-handover is dropped, and the previous one stays in place.
//
// Slurm's srun ends a step by its cgroup, which the courier cannot leave:
// there it only takes the fsync out of the rank's critical path.
//
// Thread-safety: deliver() may be called from any thread; calls are serialised.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "harness/core/status.h"

namespace iofab {

class ReportCourier {
 public:
  // Forks the courier. Call before MPI_Init and before any thread starts.
  static Status start(std::unique_ptr<ReportCourier>* out);
  ReportCourier(const ReportCourier&) = delete;
  ReportCourier& operator=(const ReportCourier&) = delete;
  // Closes the pipe: the courier finishes the write in hand, then exits. Does not wait for it.
  ~ReportCourier();

  // Hands text over for path and waits for the courier's answer: Ok once the
  // file is renamed into place and its folder synced, else the courier's error.
  // If the courier is gone, writes the file itself.
  Status deliver(const std::string& path, const std::string& text);

  // The run's cleanup, when the launcher kills this rank before it is done: if
  // this rank goes (its end of the socket closes) before cancel_removal(), the
  // courier removes run_folder after its last report, once no rank of the run
  // holds its run lock (the others may still be in it; it waits for them up
  // to 30 s, then leaves it to them). Only a folder named like a run folder,
  // never through a symlink (remove_run_dir_once_released).
  Status remove_if_gone(const std::string& run_folder);
  Status cancel_removal();

  // The report as it would stand if this rank died now, for the courier to
  // write at path should the rank go before its next deliver(). A mpirun that
  // lost a rank or got a Ctrl-C kills the ranks about a second later; on a
  // loaded node that can fall before the real report is built. The fallback
  // never replaces a report of the same run (run.id) that another rank wrote.
  Status leave_fallback(const std::string& path, const std::string& text);

  pid_t pid() const { return pid_; }

 private:
  ReportCourier(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  // Sends one message and waits for its answer; false when the courier is gone.
  bool exchange(uint32_t kind, const std::string& path, const std::string& text, Status* answer);

  pid_t pid_;
  int fd_;  // this rank's end of a socket pair with the courier
  bool broken_ = false;
  std::mutex mu_;
};

}  // namespace iofab
