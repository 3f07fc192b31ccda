// Phase `checkpoint`: periodic model checkpoints. `count` bursts, one shard
// file per writer (ranks x workers x writer_fraction), idle compute gaps
// between bursts, a durable commit per checkpoint (step-N.tmp/, fsync every
// shard, manifest with every shard's xxh3, fsync, rename to step-N/, fsync
// the parent), the newest `keep` left in place for a following restore
// phase. The report judges the stall against the 5% budget at full size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/phase/phase.h"

namespace iofab {

class ParamReader;

std::unique_ptr<Phase> parse_checkpoint(ParamReader& r);
const std::vector<MetricInfo>& checkpoint_metrics();

// How a checkpoint of full_bytes / scale is split over ranks x workers
// writers (writer_fraction of them write), exposed for tests and docs.
struct ShardLayout {
  uint64_t shards = 0;       // files per checkpoint
  uint64_t shard_bytes = 0;  // each, a multiple of 4 KiB (O_DIRECT)
  uint64_t checkpoint_bytes() const { return shards * shard_bytes; }
};
ShardLayout shard_layout(double full_bytes, double scale, int ranks, unsigned workers,
                         double writer_fraction);
// Shard s is written by rank s % ranks, worker s / ranks: the writers spread
// over ranks first, as one data-parallel replica spans nodes.
std::string shard_file_name(uint64_t shard, uint64_t shards);

}  // namespace iofab
