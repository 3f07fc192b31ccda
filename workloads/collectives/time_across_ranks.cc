#include "workloads/collectives/time_across_ranks.h"

#include <algorithm>
#include <numeric>

namespace iofab {

namespace {
constexpr TimeAcrossRanks kAll[] = {TimeAcrossRanks::kRank0, TimeAcrossRanks::kAvg, TimeAcrossRanks::kMin,
                                    TimeAcrossRanks::kMax};
}  // namespace

std::string_view time_across_ranks_name(TimeAcrossRanks t) {
  switch (t) {
    case TimeAcrossRanks::kRank0:
      return "rank0";
    case TimeAcrossRanks::kAvg:
      return "avg";
    case TimeAcrossRanks::kMin:
      return "min";
    case TimeAcrossRanks::kMax:
      return "max";
  }
  return "avg";
}

std::optional<TimeAcrossRanks> parse_time_across_ranks(std::string_view name) {
  for (TimeAcrossRanks t : kAll) {
    if (time_across_ranks_name(t) == name) return t;
  }
  return std::nullopt;
}

std::string_view time_across_ranks_meaning(TimeAcrossRanks t) {
  switch (t) {
    case TimeAcrossRanks::kRank0:
      return "rank0: rank 0's time (nccl-tests -a 0)";
    case TimeAcrossRanks::kAvg:
      return "avg: the mean of the ranks' times (nccl-tests -a 1, its default)";
    case TimeAcrossRanks::kMin:
      return "min: the fastest rank's time (nccl-tests -a 2)";
    case TimeAcrossRanks::kMax:
      return "max: the slowest rank's time (nccl-tests -a 3)";
  }
  return "";
}

double combine_across_ranks(TimeAcrossRanks t, const std::vector<double>& times) {
  if (times.empty()) return 0;
  switch (t) {
    case TimeAcrossRanks::kRank0:
      return times.front();
    case TimeAcrossRanks::kAvg:
      return std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
    case TimeAcrossRanks::kMin:
      return *std::min_element(times.begin(), times.end());
    case TimeAcrossRanks::kMax:
      return *std::max_element(times.begin(), times.end());
  }
  return 0;
}

}  // namespace iofab
