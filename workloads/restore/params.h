// The restore phase's params as the suite gave them (parse_restore reads and
// checks them); every part of the phase reads this one value.
#pragma once

#include <cstdint>
#include <string>

#include "workloads/checkpoint/budget.h"

namespace iofab {

struct RestoreParams {
  std::string engine = "auto";
  bool direct = false;
  unsigned workers = 1;
  unsigned fanout = kDefaultFanout;
  std::string checkpoint;  // an earlier checkpoint phase of this run
  std::string from;        // or a step-N/ folder (or a checkpoint phase's folder) elsewhere
  double restore_budget_s = 0;
  bool drop_cache = true;
  uint64_t block_size = 1ULL << 20;
  unsigned queue_depth = 16;
  uint64_t series_interval_ns = 100'000'000;
};

}  // namespace iofab
