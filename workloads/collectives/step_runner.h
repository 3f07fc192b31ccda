// Runs a StepSchedule for real: the comm lane on the calling thread (the one
// that may call MPI), each collective issued and waited for in turn; the
// compute lane on a helper thread that emulates the accelerator by sleeping
// for each task's duration (the host CPU is idle while a GPU computes, and a
// sleeping thread leaves the cores to MPI's progress). Either lane waits on
// the other where the schedule says so.
#pragma once

#include <atomic>
#include <vector>

#include "harness/comm/collectives.h"
#include "workloads/collectives/step_schedule.h"

namespace iofab {

class StepRunner {
 public:
  StepRunner(Collectives& coll, const StepSchedule& schedule) : coll_(coll), schedule_(schedule) {}
  StepRunner(const StepRunner&) = delete;
  StepRunner& operator=(const StepRunner&) = delete;

  // Allocates the largest send and recv buffers the comm lane needs (untimed).
  Status prepare();
  // One step. Every rank must run the same schedule.
  Status run(StepTiming* out);

 private:
  Status issue(const StepTask& t);

  Collectives& coll_;
  const StepSchedule& schedule_;
  OwnedBuffer send_;
  OwnedBuffer recv_;
};

// warmup untimed steps, then `steps` timed ones, every rank together: a
// barrier before each, and an agreement to go on (see agreement.h).
Status run_steps(Collectives& coll, Comm& comm, const StepSchedule& schedule, int warmup, int steps,
                 const std::atomic<bool>& stop, std::vector<StepTiming>* out);

}  // namespace iofab
