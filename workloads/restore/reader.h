// The restore's readers and what they verify: each reader (one worker of one
// rank) first checks its shards against the manifest (present, a regular
// file, of the listed size) and drops their cached pages, untimed; then it
// reads them through its Engine in order, hashing every block as it streams
// in and comparing the shard's XXH3-64 with the manifest's. A shard that
// fails is named in Reader::bad with the reason.
//
// Thread-safety: one Reader is used by one worker thread.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"
#include "harness/phase/bad_file.h"
#include "harness/phase/phase.h"
#include "harness/stats/io_tally.h"
#include "workloads/checkpoint/background_xxh3.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/restore/checkpoint_source.h"
#include "workloads/restore/params.h"
#include "workloads/restore/read_plan.h"
#include "workloads/restore/slice_plan.h"

namespace iofab {

using BadShard = BadFile;

struct Reader {
  std::unique_ptr<Engine> engine;
  IoBuffers ring;
  std::vector<Task> tasks;          // read: files
  std::vector<SliceRead> slices;    // read: tensors (slice_plan.h)
  std::set<size_t> skipped_shards;  // of the slices' shards, those found bad before reading
  IoTally tally;
  // Verification beside the reads, one block behind (made by setup_reader when the engine moves data).
  std::unique_ptr<BackgroundXxh3> hasher;
  uint64_t verify_ns = 0;
  uint64_t verified_bytes = 0;
  uint64_t checked_bytes = 0;   // bytes whose residency was measured
  uint64_t resident_bytes = 0;  // of those, in the page cache after the drop
  std::string drop_problem;
  std::vector<BadShard> bad;
};

// Untimed: checks rd's shards (the files its tasks or slices read) in the step folder (a bad one is skipped),
// makes the engine and its ring of buffers.
Status setup_reader(const RestoreParams& p, const StepFolder& step, const Manifest& m, Reader* rd);
// Timed from t0: reads and verifies rd's shards. Returns an error only when
// reading cannot go on; a bad shard goes to rd->bad.
Status read_shards(const RestoreParams& p, const PhaseContext& ctx, const StepFolder& step, const Manifest& m,
                   uint64_t t0, Reader* rd);

}  // namespace iofab
