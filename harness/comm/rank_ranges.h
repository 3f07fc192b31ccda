// Ranks as a person reads them in a message.
#pragma once

#include <string>
#include <vector>

namespace iofab {

// "0-3, 7, 9-10": ranks in order, runs of consecutive ranks as ranges (16,384 ranks stay one line).
std::string rank_ranges(const std::vector<int>& ranks);

}  // namespace iofab
