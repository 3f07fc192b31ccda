// Phase `collectives`: gradient sync on this fabric. Sweeps like nccl-tests
// (algbw and busbw per op and size, results checked), and a DDP step
// (bucketed all-reduce overlapping backward) beside an FSDP step (all-gather
// forward and backward, reduce-scatter gradients), each emulated from a
// model's parameters: bytes, time, and how much of it training waits for.
// Over MPI on host memory, or NCCL with one GPU per rank.
#pragma once

#include <memory>
#include <vector>

#include "harness/phase/phase.h"

namespace iofab {

class ParamReader;

std::unique_ptr<Phase> parse_collectives(ParamReader& r);
const std::vector<MetricInfo>& collectives_metrics();

}  // namespace iofab
