// One run of a train_read phase on one rank, in named steps: the dataset's folder, rank 0's decision to
// reuse or generate it, the cache tier, the generation, the loader, the epochs, the teardown, and on rank 0
// the summary of every rank's report (train_read_results.h).
#pragma once

#include "harness/phase/phase.h"
#include "workloads/train_read/train_read_phase.h"

namespace iofab {

// make: the engine factory injected (tests); empty: the store's own or the one the params name.
Status run_train_read(const TrainReadParams& params, const EngineFactory& make, PhaseContext& ctx,
                      PhaseResult* result);

}  // namespace iofab
