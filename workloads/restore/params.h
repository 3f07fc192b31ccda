// The restore phase's params as the suite gave them (parse_restore reads and
// checks them); every part of the phase reads this one value.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "harness/phase/io_params.h"
#include "workloads/checkpoint/budget.h"

namespace iofab {

// The I/O params are the shared reader's (read_io_params), with this phase's defaults.
struct RestoreParams : IoParams {
  RestoreParams() : IoParams{.block_size = 1ULL << 20, .queue_depth = 16} {}

  unsigned fanout = kDefaultFanout;
  std::string checkpoint;  // an earlier checkpoint phase of this run
  std::string from;        // or a step-N/ folder (or a checkpoint phase's folder) elsewhere
  double restore_budget_s = 0;
  bool drop_cache = true;
  // Read the newest `steps` checkpoints, oldest first, each from a cold cache (MLPerf Storage's
  // write-then-read cycle reads back every checkpoint it wrote).
  unsigned steps = 1;
  // Idle between two of those reads (DLIO's time_between_checkpoints: its reads are spaced as its writes).
  double gap_s = 0;
  // read: tensors. Every rank of the job loads its tensors from the checkpoint's records (slice_plan.h)
  // instead of whole files `fanout` times; with reshard_to's parallelism (its JSON, over the saved
  // model's), and only the model's weights when weights_only.
  bool tensors = false;
  bool weights_only = false;
  std::optional<nlohmann::json> reshard_to;
  std::string reshard_to_path;  // "phases[2].reshard_to", for its errors at run time
};

}  // namespace iofab
