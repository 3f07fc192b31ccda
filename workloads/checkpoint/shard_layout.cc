#include "workloads/checkpoint/shard_layout.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "workloads/checkpoint/folder_layout.h"

namespace iofab {

uint64_t ShardLayout::checkpoint_bytes() const {
  if (sizes.empty()) return shards * shard_bytes;
  return std::accumulate(sizes.begin(), sizes.end(), uint64_t{0});
}

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

ShardLayout plan_shard_layout(const std::vector<uint64_t>& rank_bytes, double scale, int ranks,
                              unsigned workers, bool align) {
  std::vector<uint64_t> writing;
  for (uint64_t b : rank_bytes) {
    if (b > 0) writing.push_back(b);
  }
  ShardLayout l;
  const uint64_t writers = static_cast<uint64_t>(ranks) * workers;
  l.shards = std::max<uint64_t>(1, std::min<uint64_t>(writers, writing.size()));
  std::vector<uint64_t> full(l.shards, 0);
  l.plan_ranks_per_shard.assign(l.shards, 0);
  for (size_t i = 0; i < writing.size(); ++i) {
    full[i % l.shards] += writing[i];
    ++l.plan_ranks_per_shard[i % l.shards];
  }
  l.sizes.resize(l.shards);
  for (uint64_t s = 0; s < l.shards; ++s) {
    // Exact at scale 1 (a double holds every byte count below 2^53, and the plan's stay far below).
    const double scaled =
        scale == 1 ? static_cast<double>(full[s]) : std::ceil(static_cast<double>(full[s]) / scale);
    uint64_t bytes = std::max<uint64_t>(1, static_cast<uint64_t>(scaled));
    if (align) bytes = (bytes + kShardAlign - 1) / kShardAlign * kShardAlign;
    l.sizes[s] = bytes;
  }
  l.shard_bytes = *std::max_element(l.sizes.begin(), l.sizes.end());
  return l;
}

std::string ShardLayout::name_of(uint64_t shard) const {
  return files.empty() ? shard_file_name(shard, shards) : files[shard].path;
}

ShardLayout file_shard_layout(std::vector<PlannedFile> files) {
  ShardLayout l;
  l.shards = files.size();
  for (const PlannedFile& f : files) {
    l.sizes.push_back(f.bytes);
    l.shard_bytes = std::max(l.shard_bytes, f.bytes);
  }
  l.files = std::move(files);
  return l;
}

}  // namespace iofab
