// What a checkpoint contains: its bytes, split into equal shard files. The
// full-size model's bytes (params x bytes_per_param, budget.h) divided by
// scale are what a run writes, one shard per writer.
#pragma once

#include <cstdint>

namespace iofab {

// O_DIRECT alignment: every shard's size is a multiple of it.
inline constexpr uint64_t kShardAlign = 4096;

// How a checkpoint of full_bytes / scale is split over ranks x workers
// writers (writer_fraction of them write), exposed for tests and docs.
struct ShardLayout {
  uint64_t shards = 0;       // files per checkpoint
  uint64_t shard_bytes = 0;  // each, a multiple of 4 KiB (O_DIRECT)
  uint64_t checkpoint_bytes() const { return shards * shard_bytes; }
};
ShardLayout shard_layout(double full_bytes, double scale, int ranks, unsigned workers,
                         double writer_fraction);

}  // namespace iofab
