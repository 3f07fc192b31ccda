// The checkpoint phase's params as the suite gave them (parse_checkpoint
// reads and checks them); every part of the phase reads this one value.
#pragma once

#include <cstdint>
#include <string>

#include "workloads/checkpoint/budget.h"

namespace iofab {

struct CheckpointParams {
  std::string engine = "auto";
  bool direct = false;
  unsigned workers = 1;
  double writer_fraction = 1;
  double params = 0;  // 0: the size came from checkpoint_size
  double bytes_per_param = kDefaultBytesPerParam;
  double full_bytes = 0;
  double scale = 1;
  unsigned count = 3;
  double interval_s = 3600;
  double gap_s = 2;
  bool async = false;
  unsigned keep = 1;
  double budget_fraction = kDefaultBudgetFraction;
  uint64_t block_size = 1ULL << 20;
  unsigned queue_depth = 16;
  uint64_t seed = 1;
  uint64_t series_interval_ns = 100'000'000;
};

}  // namespace iofab
