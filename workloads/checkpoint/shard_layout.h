// What a checkpoint contains: its bytes, split into shard files. Either the
// full-size model's bytes (params x bytes_per_param, budget.h) divided by
// scale into equal shards, one per writer; or a model's per-rank plan
// (tensor_plan.h), one shard per planned rank that writes, each its rank's
// bytes divided by scale.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/checkpoint/checkpoint_files.h"

namespace iofab {

// O_DIRECT alignment: every shard's size is a multiple of it where O_DIRECT may read or write it.
inline constexpr uint64_t kShardAlign = 4096;

// How a checkpoint is split over ranks x workers writers, exposed for tests and docs.
struct ShardLayout {
  uint64_t shards = 0;       // files per checkpoint
  uint64_t shard_bytes = 0;  // each (equal shards); the largest when sizes is set
  // From a model's plan: each shard's bytes, which differ as the plan's ranks do; empty: all shard_bytes.
  std::vector<uint64_t> sizes;
  // From a model's plan: the planned ranks each shard holds (one each when the run has a writer for
  // every planned rank that writes; otherwise shard i holds those ranks r with r's index among the
  // writing ranks = i modulo shards).
  std::vector<uint64_t> plan_ranks_per_shard;
  // Layouts dcp and megatron: shard i is files[i], with its name and its tensors.
  std::vector<PlannedFile> files;
  uint64_t bytes_of(uint64_t shard) const { return sizes.empty() ? shard_bytes : sizes[shard]; }
  std::string name_of(uint64_t shard) const;
  uint64_t checkpoint_bytes() const;
};
// Equal shards of ceil(full_bytes / scale / shards) rounded up to 4 KiB.
ShardLayout shard_layout(double full_bytes, double scale, int ranks, unsigned workers,
                         double writer_fraction);
// A shard per planned rank with bytes (rank_bytes: the plan's, full size), on up to ranks x workers
// writers. A shard's bytes are ceil(its ranks' bytes / scale), rounded up to 4 KiB only when align
// (O_DIRECT): at scale 1 without O_DIRECT each shard is exactly its planned rank's bytes.
ShardLayout plan_shard_layout(const std::vector<uint64_t>& rank_bytes, double scale, int ranks,
                              unsigned workers, bool align);
// A shard per planned file (checkpoint_files.h), whatever the run's writers.
ShardLayout file_shard_layout(std::vector<PlannedFile> files);

}  // namespace iofab
