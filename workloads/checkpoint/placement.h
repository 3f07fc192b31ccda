// Who writes what: the shards of a checkpoint placed over ranks x workers.
// Shard s is written by rank s % ranks, worker s / ranks: the writers spread
// over ranks first, as one data-parallel replica spans nodes. With
// writer_fraction < 1 the workers past the last shard stay idle.
#pragma once

#include <cstdint>

#include "workloads/checkpoint/shard_layout.h"

namespace iofab {

struct WriterSlot {
  uint64_t shard = 0;   // the shard this worker writes when active
  bool active = false;  // false: no shard is left for this worker
};

WriterSlot writer_slot(int rank, int ranks, unsigned worker, const ShardLayout& l);

}  // namespace iofab
