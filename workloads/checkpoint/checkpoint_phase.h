// Phase `checkpoint`: periodic model checkpoints. `count` bursts, one shard
// file per writer (ranks x workers x writer_fraction), idle compute gaps
// between bursts, a durable commit per checkpoint (step-N.tmp/, fsync every
// shard, manifest with every shard's xxh3, fsync, rename to step-N/, fsync
// the parent), the newest `keep` left in place for a following restore
// phase. The report judges the stall against the 5% budget at full size.
//
// The phase's parts, one file each in this folder:
//   shard_layout   what a checkpoint contains (bytes, shards)
//   folder_layout  where it goes (folder and file names); manifest, xxh3: its record
//   placement      who writes what (shards over ranks and workers)
//   writer         how bytes get out (engine, staging copy, drain)
//   phase_folder   the commit protocol on the target (every namespace call)
//   commit         the commit across ranks; bursts: the checkpoints in order
//   budget         the 5% rule's formulas; results: the report
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "harness/phase/phase.h"

namespace iofab {

class ParamReader;

std::unique_ptr<Phase> parse_checkpoint(ParamReader& r);
const std::vector<MetricInfo>& checkpoint_metrics();
// The metrics a concurrent group sets beside the same phase run alone.
std::span<const std::string_view> checkpoint_solo_metrics();

}  // namespace iofab
