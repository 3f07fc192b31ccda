// The checkpoint phase's params as the suite gave them (parse_checkpoint
// reads and checks them); every part of the phase reads this one value.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/engines/data_fill.h"
#include "harness/phase/io_params.h"
#include "harness/store/store.h"
#include "workloads/calibration/calibration.h"
#include "workloads/calibration/torch_costs.h"
#include "workloads/checkpoint/budget.h"
#include "workloads/checkpoint/checkpoint_files.h"
#include "workloads/checkpoint/model_spec.h"

namespace iofab {

// The I/O params (engine, direct, workers, block size, queue depth, series interval) are the shared
// reader's (read_io_params), with this phase's defaults.
struct CheckpointParams : IoParams {
  CheckpointParams() : IoParams{.block_size = 1ULL << 20, .queue_depth = 16} {}

  double writer_fraction = 1;
  double params = 0;  // 0: the size came from checkpoint_size
  double bytes_per_param = kDefaultBytesPerParam;
  double full_bytes = 0;
  // `model` or `preset`: the model, and its plan's bytes for every planned rank (full size), which
  // the shards follow (shard_layout.h); full_bytes is their sum.
  std::optional<TransformerSpec> model;
  std::vector<uint64_t> plan_rank_bytes;
  // With a model: how its files are named and laid out (checkpoint_files.h), who writes replicated
  // state, and (dcp) how many files each rank writes, one per writer thread.
  CheckpointLayoutKind layout = CheckpointLayoutKind::kShards;
  // commit: how a step becomes a checkpoint (folder_layout.h); kMegatron only with layout megatron, its
  // default there.
  CommitMode commit = CommitMode::kDurable;
  ReplicaWriter replica_writer = ReplicaWriter::kFirst;
  unsigned threads = 1;
  // dcp: record_order "state_dict" (DCP without CUDA, PyTorch 1.13's writer, async_save): the plan's
  // order; else smallest first (_OverlappingCpuLoader with CUDA). framing "none": records back to back,
  // without torch.save's framing.
  bool state_dict_order = false;
  bool raw_records = false;
  uint64_t dcp_metadata_bytes = 0;  // dcp with torch's framing: DCP's pickled .metadata (dcp_metadata.h)
  // dcp with torch's framing, torch_save: torch.save's CPU beyond iofab's own (the calibration's
  // torch_save section, spun by each writer before each file's bytes); serialize false: none.
  bool serialize = false;
  TorchCosts serialize_costs;
  Calibration calibration;
  bool costs_from_file = false;
  std::shared_ptr<const std::vector<PlannedFile>> files;  // dcp, megatron: planned once, at parse
  double scale = 1;
  unsigned count = 3;
  double interval_s = 3600;
  double gap_s = 2;
  bool async = false;
  unsigned keep = 1;
  double budget_fraction = kDefaultBudgetFraction;
  uint64_t seed = 1;
  Reducibility reduce;  // compressibility and dedup; off by default (the default data, DataStream)
  // tier: two (tier_local.h, tier_drain.h): each checkpoint is written to local_dir, the stall, and
  // drained to the target in the background.
  bool two_tier = false;
  std::string local_dir;  // absolute; set with two_tier only
};

// Whether the shards go straight into the step's folder: dcp's files, and Megatron's own save.
inline bool writes_in_place(const CheckpointParams& p) {
  return writes_in_place(p.layout) || p.commit == CommitMode::kMegatron;
}

// Whether a writer leaves its files unsynced for make_step_durable: Megatron's save on a filesystem (an
// object's upload is complete only at its close, which the engine's fsync makes).
inline bool defers_sync(const CheckpointParams& p, const Store& store) {
  return p.commit == CommitMode::kMegatron && !store.caps().commit_per_file;
}

}  // namespace iofab
