// Who writes what: the shards of a checkpoint placed over ranks x workers.
// Shard s is written by writer s mod (ranks x workers); writer g is rank
// g % ranks, worker g / ranks: the writers spread over ranks first, as one
// data-parallel replica spans nodes. With more shards than writers (a
// model's files, planned for more ranks than the run has), a writer writes
// several, one after the other; with fewer (writer_fraction < 1), the
// workers past the last shard stay idle.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/checkpoint/shard_layout.h"

namespace iofab {

// The shards worker of rank writes, in order; empty: it stays idle.
std::vector<uint64_t> writer_shards(int rank, int ranks, unsigned workers, unsigned worker, const ShardLayout& l);

}  // namespace iofab
