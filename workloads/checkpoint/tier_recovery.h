// Recovery from each tier of a two-tier checkpoint: after the last
// checkpoint, every rank reads back the files its writers wrote of the newest
// step, first from the local tier, then from the shared target, each with
// the file's cached pages dropped first (untimed) and every byte checked
// against the XXH3-64 the writer computed. A restart on the same node reads
// the local copy; a restart elsewhere (the node was lost) reads the shared
// one: the report gives both times, the slowest rank's.
//
// One reader thread per file, read whole in block_size reads. The restore
// phase (fan-out, engines, per-shard figures) is what measures a full restore.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/checkpoint/tier_local.h"

namespace iofab {

struct TierRecovery {
  bool measured = false;
  uint64_t step = 0;
  uint64_t local_ns = 0;   // slowest rank
  uint64_t shared_ns = 0;  // slowest rank
  uint64_t bytes = 0;      // every rank's, read from each tier
  // Per tier, the first file whose cached pages could not be dropped (tmpfs keeps them); "" when none.
  std::string local_cache_note, shared_cache_note;
};

// Collective. can: this rank committed every checkpoint (every rank must agree, or none measures).
// Reads files (what this rank wrote of step) from the local tier and from the target (ctx.store,
// below ctx.phase_name).
Status time_recovery(PhaseContext& ctx, LocalTier& tier, uint64_t step, const std::vector<WrittenFile>& files,
                     uint64_t block_size, bool can, TierRecovery* out);

}  // namespace iofab
