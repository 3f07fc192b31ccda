// Comm: how ranks talk. The runner uses the control-plane calls (barrier,
// broadcast, gather) to start phases together and bring results to rank 0.
// Implementations: SelfComm (one rank, no MPI) and MpiComm (launched by
// mpirun or srun). The data-plane collectives for the `collectives` phase
// extend this interface in that phase's work.
//
// Thread-safety: call from the runner's thread only; every rank must make
// the same sequence of collective calls.
//
// A lost rank must never hang a run: every control-plane wait gives up after
// the rank timeout, or shortly after a stop signal (a launcher that lost a
// rank terminates the others within about a second), fails with a message
// naming the ranks that did not answer, and marks the Comm failed: no more
// collective calls are made, and the job is aborted instead of finalized.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

class Comm {
 public:
  Comm() = default;
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  virtual ~Comm() = default;

  virtual std::string_view name() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual Status barrier() = 0;
  // root's *s replaces every other rank's.
  virtual Status broadcast(std::string* s, int root) = 0;
  // On root, *all receives every rank's string in rank order; elsewhere it is cleared.
  virtual Status gather(const std::string& mine, std::vector<std::string>* all, int root) = 0;
  // Every rank receives every rank's value in rank order.
  virtual Status all_gather(double mine, std::vector<double>* all) = 0;
  // Ends every rank of the job at once; used only when a rank cannot go on.
  virtual void abort(int exit_code) = 0;
  // Collective: a Comm over the same ranks with its own message space, for a phase that runs beside
  // others in another thread (a concurrent group). It keeps this one's rank timeout and stop flag.
  virtual Status duplicate(std::unique_ptr<Comm>* /*out*/) {
    return Status::Unavailable(std::string(name()) + " cannot run phases at once");
  }

  // How long a wait for other ranks may take before they count as lost.
  void set_rank_timeout(double seconds) { rank_timeout_s_ = seconds; }
  // Once *stop is set, waits give up after grace_s more.
  void set_stop_flag(const std::atomic<bool>* stop, double grace_s) {
    stop_ = stop;
    stop_grace_s_ = grace_s;
  }
  // True after a wait gave up; lost_ranks() then names who did not answer.
  bool failed() const { return failed_; }
  const std::vector<int>& lost_ranks() const { return lost_; }
  // Ranks known dead without asking them: their process ran on this host and is
  // gone. Safe from any thread (it reads /proc, nothing the control plane changes).
  virtual std::vector<int> ranks_gone_here() const { return {}; }
  // Of the lost ranks, those whose process is known to have exited (on this host);
  // the others only stopped answering, which a rank also does while it is being stopped.
  const std::vector<int>& gone_ranks() const { return gone_; }
  // Ranks whose answer this rank (as root) could not read: alive, since they answered, but making
  // another call than this one (another suite, another iofab) or sending garbage. A wait that later
  // gives up on one of them names it as out of step, never as lost (it is not in lost_ranks()).
  void note_out_of_step(int rank) {
    if (std::find(out_of_step_.begin(), out_of_step_.end(), rank) == out_of_step_.end()) {
      out_of_step_.push_back(rank);
    }
  }
  const std::vector<int>& out_of_step_ranks() const { return out_of_step_; }
  // The end of a run that lost a rank (docs/faults.md, "Who leaves last"): under mpirun any
  // rank's exit ends the job, so the report's writer must be the last to leave.
  // The writer tells every rank it does not count as lost that the report is durable; waits
  // until they got the word or the rank timeout passes. Works after failed().
  virtual Status release_survivors() { return Status::Ok(); }
  // A rank that is not the writer waits for that word from writer: until it comes, the rank
  // timeout passes, or writer's process is known to be gone. Works after failed().
  virtual Status await_release(int /*writer*/) { return Status::Ok(); }

  // The rank that writes the report: 0, or when rank 0 is lost the lowest rank this one still
  // counts as alive. Lost: its process is known to be gone (on this host), or it stayed silent
  // for the whole rank timeout, as a dead host's ranks do (no process to see, no launcher's
  // signal: issue 30, finding 2); every survivor waits on rank 0 at the same points, so they
  // agree on it. A rank 0 that only went silent after a stop signal (being stopped, as every
  // rank is) keeps the report.
  int report_rank() const {
    const bool zero_silent = timed_out_ && std::find(lost_.begin(), lost_.end(), 0) != lost_.end();
    if (std::find(gone_.begin(), gone_.end(), 0) == gone_.end() && !zero_silent) return 0;
    for (int r = 0; r < size(); ++r) {
      if (std::find(lost_.begin(), lost_.end(), r) == lost_.end()) return r;
    }
    return 0;
  }

 protected:
  double rank_timeout_s_ = 600;
  const std::atomic<bool>* stop_ = nullptr;
  double stop_grace_s_ = 0.3;
  bool failed_ = false;
  bool timed_out_ = false;  // the failed wait gave up at the rank timeout, not after a stop signal
  std::vector<int> lost_;
  std::vector<int> gone_;
  std::vector<int> out_of_step_;
};

// One rank, no communication.
class SelfComm final : public Comm {
 public:
  std::string_view name() const override { return "self"; }
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Status barrier() override { return Status::Ok(); }
  Status broadcast(std::string*, int) override { return Status::Ok(); }
  Status gather(const std::string& mine, std::vector<std::string>* all, int) override {
    *all = {mine};
    return Status::Ok();
  }
  Status all_gather(double mine, std::vector<double>* all) override {
    *all = {mine};
    return Status::Ok();
  }
  void abort(int exit_code) override;
  Status duplicate(std::unique_ptr<Comm>* out) override {
    *out = std::make_unique<SelfComm>();
    return Status::Ok();
  }
};

// True when the environment shows a launcher (mpirun, srun) started us.
bool launched_by_mpi_launcher();
bool mpi_built();

// Creates the Comm for this process: MPI when built and launched by a
// launcher, else SelfComm. *reason says which and why. threads_at_once: the
// run will call duplicate() and use the copies from several threads (MPI is
// then started with MPI_THREAD_MULTIPLE).
Status make_world_comm(int* argc, char*** argv, bool threads_at_once, std::unique_ptr<Comm>* out,
                       std::string* reason);

}  // namespace iofab
