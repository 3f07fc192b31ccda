// The model_load phase's params as the suite gave them (parse_model_load reads and checks them); every
// part of the phase reads this one value.
#pragma once

#include <cstdint>
#include <string>

#include "harness/phase/io_params.h"
#include "workloads/calibration/calibration.h"
#include "workloads/calibration/torch_costs.h"
#include "workloads/checkpoint/model_spec.h"
#include "workloads/model_load/model_files.h"

namespace iofab {

// The I/O params are the shared reader's (read_io_params, with madvise), with this phase's defaults.
struct ModelLoadParams : IoParams {
  ModelLoadParams() : IoParams{.block_size = 1ULL << 20, .queue_depth = 8} {}

  TransformerSpec model;                             // preset and model: the weights' architecture and dtype
  double scale = 1;                                  // each tensor keeps 1/scale of its rows
  uint64_t max_shard_bytes = kDefaultMaxShardBytes;  // at full size, as save_pretrained splits
  uint64_t seed = 1;
  // An earlier model_load phase of this run whose files this one reads instead of writing its own (so
  // engines compare on the very same files); empty: this phase writes them.
  std::string weights_from;
  double ready_budget_s = 0;  // 0: no budget
  bool drop_cache = true;
  ModelFiles files;  // what this phase writes (planned when parsed; empty with weights_from)
  // After the verified read, every replica loads the files again, cold, as safetensors' load_file then a
  // copy of each tensor (safetensors_ready.h), spinning the calibration's safetensors costs beyond the copy.
  bool safetensors_ready = true;
  TorchCosts safetensors_costs;
  Calibration calibration;
  bool costs_from_file = false;
};

}  // namespace iofab
