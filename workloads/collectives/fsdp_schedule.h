// An FSDP FULL_SHARD step as PyTorch's FullyShardedDataParallel runs it,
// one FSDP unit per layer, every rank holding 1/n of each layer's
// parameters (each layer padded to a multiple of n elements, as FSDP's flat
// parameter is):
//   forward,  per layer: all-gather its parameters, compute, free them;
//   backward, per layer (last first): all-gather its parameters again,
//             compute, reduce-scatter its gradients (overlapping the
//             backward of the layers before it).
// With prefetch (PyTorch's forward_prefetch and BACKWARD_PRE), the next
// layer's all-gather is issued before the current layer computes, and in
// backward ahead of the current layer's reduce-scatter; without it, each
// all-gather waits until the layer before it has computed.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/collectives/model_spec.h"
#include "workloads/collectives/step_schedule.h"

namespace iofab {

struct FsdpOptions {
  bool prefetch = true;
  double forward_s = 0;   // per layer
  double backward_s = 0;  // per layer
};

struct FsdpShard {
  uint64_t padded = 0;  // the layer's elements rounded up to a multiple of n
  uint64_t shard = 0;   // padded / n: what each rank holds
};

std::vector<FsdpShard> fsdp_shards(const std::vector<uint64_t>& layer_params, int ranks);

// Compute lane: forward 0..L-1, then backward L-1..0. Comm lane: all-gathers and reduce-scatters.
StepSchedule fsdp_step(const ModelSpec& m, const FsdpOptions& o, int ranks);

}  // namespace iofab
