#include "workloads/checkpoint/placement.h"

namespace iofab {

std::vector<uint64_t> writer_shards(int rank, int ranks, unsigned workers, unsigned worker, const ShardLayout& l) {
  const uint64_t writers = static_cast<uint64_t>(ranks) * workers;
  std::vector<uint64_t> out;
  for (uint64_t s = static_cast<uint64_t>(worker) * static_cast<uint64_t>(ranks) + static_cast<uint64_t>(rank);
       s < l.shards; s += writers) {
    out.push_back(s);
  }
  return out;
}

}  // namespace iofab
