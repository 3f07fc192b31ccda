#include "workloads/checkpoint/placement.h"

namespace iofab {

WriterSlot writer_slot(int rank, int ranks, unsigned worker, const ShardLayout& l) {
  WriterSlot s;
  s.shard = static_cast<uint64_t>(worker) * static_cast<uint64_t>(ranks) + static_cast<uint64_t>(rank);
  s.active = s.shard < l.shards;
  return s;
}

}  // namespace iofab
