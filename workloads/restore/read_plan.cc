#include "workloads/restore/read_plan.h"

namespace iofab {

ReadPlan plan_reads(const Manifest& m, unsigned fanout, int rank, int ranks, unsigned workers) {
  ReadPlan plan;
  plan.tasks.resize(workers);
  const uint64_t readers = static_cast<uint64_t>(ranks) * workers;
  for (size_t s = 0; s < m.shards.size(); ++s) {
    for (uint64_t f = 0; f < fanout; ++f) {
      const uint64_t g = (s * fanout + f) % readers;
      if (static_cast<int>(g % static_cast<uint64_t>(ranks)) != rank) continue;
      plan.tasks[g / static_cast<uint64_t>(ranks)].push_back({s, false});
      plan.bytes += m.shards[s].bytes;
    }
  }
  return plan;
}

}  // namespace iofab
