// Per-size figures from every rank's samples, as nccl-tests reports them:
// a collective takes as long as its slowest rank, so the mean time is the
// slowest rank's mean, and each iteration's time is the slowest rank's time
// for that iteration, from which p50 and p99 are taken. Skew shows how far
// the ranks' means spread: (slowest - fastest) / slowest.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "workloads/collectives/sweep.h"

namespace iofab {

struct SizeStats {
  CollOp op = nullptr;
  uint64_t size = 0;   // the sweep size asked for
  uint64_t bytes = 0;  // S
  uint64_t count = 0;
  bool ran = false;  // false: too small for this op on these ranks
  double mean_s = 0;
  double p50_s = 0;
  double p99_s = 0;
  double algbw = 0;  // bytes/s
  double busbw = 0;  // bytes/s
  bool checked = false;
  uint64_t wrong = 0;  // summed over ranks
  double skew = 0;     // fraction
  std::vector<double> rank_mean_s;

  nlohmann::json to_json() const;
};

// Nearest-rank percentile (p in 0..1) of v; 0 for an empty v.
double percentile(std::vector<double> v, double p);

// per_rank[r]: rank r's samples, in the same order on every rank. Samples
// that disagree on op or size across ranks are an error (false).
bool merge_sweep(const std::vector<std::vector<SizeSample>>& per_rank, std::vector<SizeStats>* out);

}  // namespace iofab
