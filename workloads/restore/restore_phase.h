// Phase `restore`: restart after a failure. Every rank's workers read a
// committed checkpoint back, each shard by `fanout` readers (data-parallel
// replicas loading the same shard), cold (O_DIRECT, or pages dropped and
// residency measured), verifying every byte against the manifest's xxh3 as
// it streams in. A missing, short or corrupt shard fails the phase by name.
// The checkpoint is an earlier checkpoint phase's in this run, or `from`, a
// step-N/ folder another run left (read only, never written or removed).
//
// The phase's parts, one file each in this folder:
//   checkpoint_source  finding the checkpoint and opening its files (every namespace call)
//   read_plan          who reads what (fanout over ranks and workers)
//   reader             reading and verifying the shards
//   results            the report
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "harness/phase/phase.h"

namespace iofab {

class ParamReader;

std::unique_ptr<Phase> parse_restore(ParamReader& r);
const std::vector<MetricInfo>& restore_metrics();
// What the phase verifies in the bytes it reads: not measured with engine null (PhaseKind::verify_metrics).
inline constexpr std::string_view kRestoreVerifyMetrics[] = {"corrupt_shards", "verified_bytes",
                                                             "verify_bytes_per_s"};

}  // namespace iofab
