// Phase `rdma`: fabric bring-up with verbs, as perftest measures it. RDMA
// WRITE, READ and SEND between rank pairs (or every rank to rank 0): bytes/s
// and message rate over a size sweep, and ping-pong latency percentiles, on
// host memory or CUDA memory (GPUDirect RDMA). Queue pair addresses travel
// over the control plane. Skips, on every rank alike, with the reason where
// there is no device, no active port, no GPU, or one rank.
#pragma once

#include <memory>
#include <vector>

#include "harness/phase/phase.h"

namespace iofab {

class ParamReader;

std::unique_ptr<Phase> parse_rdma(ParamReader& r);
const std::vector<MetricInfo>& rdma_metrics();

}  // namespace iofab
