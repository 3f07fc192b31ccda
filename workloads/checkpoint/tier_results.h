// The two-tier figures of the checkpoint phase's result: drain rate,
// recovery from each tier, and where the local tier was.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "harness/phase/phase.h"
#include "workloads/checkpoint/params.h"
#include "workloads/checkpoint/tier_recovery.h"

namespace iofab {

// What one rank's two-tier run adds to CheckpointRun (results.h).
struct TierRun {
  std::string local_folder;     // this rank's folder in local_dir
  TierRecovery recovery;        // every rank's view, the slowest rank's times
  std::string cleanup_problem;  // the local folder could not be removed: why
};

// Rank 0. drained_bytes / drain_seconds: every checkpoint's bytes and its slowest rank's drain, summed.
void fill_tier_metrics(const TierRun& t, double drained_bytes, double drain_seconds, PhaseResult* result);
// The details' "tier" object and what the stall includes, and the warnings a two-tier run gives.
void fill_tier_details(const CheckpointParams& p, const TierRun& t, PhaseResult* result);

}  // namespace iofab
