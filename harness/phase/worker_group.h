// Runs a phase's workers on this rank: each worker's setup (open files,
// allocate and fill buffers) is untimed; then every rank meets at a barrier,
// takes the common phase start t0, and the timed bodies run in parallel.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/core/status.h"

namespace iofab {

struct WorkerRun {
  uint64_t t0_ns = 0;                 // CLOCK_MONOTONIC at the phase start
  std::vector<Status> statuses;       // per worker: setup's failure, else body's result
  // The first failure: errors before interruptions, so a real error is never hidden by Ctrl-C.
  Status first_error() const;
};

// setup(i) runs first on every worker; if any fails, no body runs. body(i, t0) runs
// after the barrier. Bodies must watch the stop flag themselves.
Status run_workers(Comm& comm, unsigned workers, const std::function<Status(unsigned)>& setup,
                   const std::function<Status(unsigned, uint64_t)>& body, WorkerRun* out);

}  // namespace iofab
