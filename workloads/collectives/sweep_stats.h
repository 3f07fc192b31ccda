// Per-size figures from every rank's samples. A size's time is one figure
// made from every rank's mean time (total / iters) by the sweep's time
// definition (time_across_ranks.h): by default the ranks' average, as
// nccl-tests' default `-a 1` takes it; `max` is the slowest rank's, as a
// plain MPI program that reduces its ranks' times with MPI_MAX does. Each
// iteration's time is made from the ranks' times for that iteration by the
// same definition, and p50 and p99 are taken over those. Skew shows how far
// the ranks' means spread: (slowest - fastest) / slowest.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "workloads/collectives/sweep.h"
#include "workloads/collectives/time_across_ranks.h"

namespace iofab {

struct SizeStats {
  CollOp op = nullptr;
  uint64_t size = 0;   // the sweep size asked for
  uint64_t bytes = 0;  // S
  uint64_t count = 0;
  bool in_place = false;  // send and recv in one buffer, as nccl-tests' in-place columns
  bool ran = false;       // false: too small for this op on these ranks
  TimeAcrossRanks across = TimeAcrossRanks::kAvg;
  double mean_s = 0;  // the time per call: the ranks' mean times, combined by `across`
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
// that disagree on op, size or placement across ranks are an error (false).
bool merge_sweep(const std::vector<std::vector<SizeSample>>& per_rank, TimeAcrossRanks across,
                 std::vector<SizeStats>* out);

}  // namespace iofab
