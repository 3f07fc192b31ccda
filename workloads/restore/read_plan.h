// Who reads what on restore: every shard is read `fanout` times (the
// data-parallel replicas that load the same shard), spread over all
// readers (ranks x workers). Shard s's f-th read goes to reader
// (s * fanout + f) mod (ranks x workers); reader g is rank g % ranks,
// worker g / ranks, so the replicas of one shard land on different ranks
// when there are enough.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "workloads/checkpoint/manifest.h"

namespace iofab {

// One read of one shard by one reader.
struct Task {
  size_t shard = 0;
  bool skip = false;  // found missing or of the wrong size before reading
};

struct ReadPlan {
  std::vector<std::vector<Task>> tasks;  // per worker of this rank, in the order it reads them
  uint64_t bytes = 0;                    // this rank reads, all workers
};

ReadPlan plan_reads(const Manifest& m, unsigned fanout, int rank, int ranks, unsigned workers);

}  // namespace iofab
