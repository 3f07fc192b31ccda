// The restore phase's result: every rank sends rank 0 what its readers
// measured and found; rank 0 merges it (disk counters once per host), judges
// the restore against restore_budget at full size and fills the metrics,
// details and warnings. A bad shard fails the phase by name: `failed` when
// the checkpoint is wrong, an error when a shard could not be read.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/restore/checkpoint_source.h"
#include "workloads/restore/params.h"
#include "workloads/restore/reader.h"

namespace iofab {

// read: tensors: what the job loaded, the same on every rank.
struct TensorRestore {
  TransformerSpec target;      // the parallelism it loaded with
  uint64_t tensor_bytes = 0;   // every rank's pieces, in bytes as written (scaled)
  uint64_t slices = 0;         // reads of records or parts of them, every rank's
  uint64_t partial_slices = 0; // of those, inside a record
};

// One checkpoint read back (steps: N reads N).
struct RestorePass {
  uint64_t step = 0;
  double seconds = 0;  // first read's start to the slowest rank's end (rank 0's view after a barrier)
  uint64_t checkpoint_bytes = 0;
  double own_seconds = 0;  // this rank's readers alone, before the barrier: what DLIO times on rank 0
};

// Collective. readers: ranks x workers; passes: each checkpoint read, oldest first; tensors: read: tensors' shape, else null; device_read_bytes:
// what this host's disk read during the restore, when known; local: this rank's outcome.
// Returns local on ranks other than 0; on rank 0 the phase's outcome.
Status report_restore(PhaseContext& ctx, const RestoreParams& p, const LocatedCheckpoint& cp,
                      uint64_t readers, const std::vector<Reader>& rds, const TensorRestore* tensors,
                      const std::vector<RestorePass>& passes, std::optional<uint64_t> device_read_bytes,
                      const Status& local, PhaseResult* result);

}  // namespace iofab
