// The checkpoint phase's result: every rank sends rank 0 what it measured;
// rank 0 judges each checkpoint against the budget (the slowest rank's stall,
// projected to full size) and fills the metrics, details and warnings.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "harness/stats/io_tally.h"
#include "workloads/checkpoint/bursts.h"
#include "workloads/checkpoint/commit.h"
#include "workloads/checkpoint/params.h"
#include "workloads/checkpoint/shard_layout.h"
#include "workloads/checkpoint/tier_results.h"

namespace iofab {

// What one rank's run of the phase measured.
struct CheckpointRun {
  IoTally tally;                      // every writer's, merged
  std::vector<LocalCheckpoint> done;  // committed checkpoints, this rank's view
  std::vector<CommitRecord> commits;  // rank 0
  uint64_t overruns = 0;              // async, two tiers: checkpoints due while the previous one drained
  uint64_t stale_removed = 0;         // rank 0: step-N.tmp/ folders an earlier run left
  Status worst;                       // this rank's outcome
  TierRun tier;                       // two tiers: drain and recovery (tier_results.h)
};

// The largest rank's bytes / the mean over every rank (1: balanced).
double rank_skew(const std::vector<uint64_t>& rank_bytes);

// Collective. Returns mine.worst on ranks other than 0; on rank 0 the
// phase's outcome (every rank's errors, a drain overrun) with result filled.
Status report_checkpoints(PhaseContext& ctx, const CheckpointParams& p, const ShardLayout& l,
                          const CheckpointRun& mine, PhaseResult* result);

}  // namespace iofab
