#include "workloads/checkpoint/shard_layout.h"

#include <algorithm>
#include <cmath>

namespace iofab {

ShardLayout shard_layout(double full_bytes, double scale, int ranks, unsigned workers,
                         double writer_fraction) {
  ShardLayout l;
  const double writers = static_cast<double>(ranks) * workers * writer_fraction;
  l.shards = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(writers)));
  l.shards = std::min<uint64_t>(l.shards, static_cast<uint64_t>(ranks) * workers);
  const double per_shard = std::ceil(full_bytes / scale / static_cast<double>(l.shards));
  const auto bytes = static_cast<uint64_t>(std::max(1.0, per_shard));
  l.shard_bytes = (bytes + kShardAlign - 1) / kShardAlign * kShardAlign;
  return l;
}

}  // namespace iofab
