// Which one time a size's figures use when every rank timed the same
// collective: nccl-tests' `-a` choices, by the same numbers. nccl-tests
// averages the ranks' times by default (`-a 1`); a plain MPI program often
// takes the slowest rank's (`-a 3`). Figures under different definitions
// differ most where the ranks' clocks see different waits (small sizes, few
// iterations, oversubscribed cores), so the report names the definition.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace iofab {

enum class TimeAcrossRanks {
  kRank0 = 0,  // nccl-tests -a 0: rank 0's own time
  kAvg = 1,    // -a 1 (nccl-tests' default): the mean of the ranks' times
  kMin = 2,    // -a 2: the fastest rank's
  kMax = 3,    // -a 3: the slowest rank's
};

std::string_view time_across_ranks_name(TimeAcrossRanks t);  // "rank0", "avg", "min", "max"
std::optional<TimeAcrossRanks> parse_time_across_ranks(std::string_view name);
// "avg (the mean of the ranks' times; nccl-tests -a 1)": for reports and the bench's output.
std::string_view time_across_ranks_meaning(TimeAcrossRanks t);

// One time from each rank's (times[r]); 0 for no ranks.
double combine_across_ranks(TimeAcrossRanks t, const std::vector<double>& times);

}  // namespace iofab
