// What a checkpoint in a torch layout (dcp, torch_save) says of torch's framing and serialization cost in
// its report: details.layout.framing, record_order, torch_framing_bytes, dcp_metadata_bytes and
// details.serialization (the calibration's costs, their source, the spin a checkpoint holds).
#pragma once

#include "harness/phase/phase.h"
#include "workloads/checkpoint/params.h"
#include "workloads/checkpoint/shard_layout.h"

namespace iofab {

void describe_torch_layout(const CheckpointParams& p, const ShardLayout& l, PhaseResult* result);

}  // namespace iofab
