// A DDP step as PyTorch's DistributedDataParallel runs it: forward sends
// nothing; gradients are all-reduced in buckets filled in reverse layer
// order (the order backward produces them), the first bucket capped at
// first_bucket_cap (1 MiB) so communication starts early, the rest at
// bucket_cap (25 MiB). A bucket's all-reduce starts once the backward of
// the last layer in it is done, overlapping the backward of earlier layers;
// buckets go out in order.
//
// One difference, on purpose: PyTorch never splits a tensor, so its buckets
// overshoot the cap by up to one tensor; a layer here is a run of gradient
// bytes that is cut at the cap, as if made of many small tensors.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/collectives/model_spec.h"
#include "workloads/collectives/step_schedule.h"

namespace iofab {

struct DdpOptions {
  uint64_t bucket_cap = 25ULL << 20;       // bytes
  uint64_t first_bucket_cap = 1ULL << 20;  // bytes
  double forward_s = 0;                    // per layer
  double backward_s = 0;                   // per layer
};

struct DdpBucket {
  uint64_t elements = 0;
  int first_layer = 0;  // the highest layer with gradients in it (filled first)
  int ready_layer = 0;  // the lowest: the bucket is ready when its backward is done
};

std::vector<DdpBucket> ddp_buckets(const std::vector<uint64_t>& layer_params, DType grad_dtype,
                                   uint64_t first_bucket_cap, uint64_t bucket_cap);

// Compute lane: forward 0..L-1, then backward L-1..0. Comm lane: one all-reduce per bucket.
StepSchedule ddp_step(const ModelSpec& m, const DdpOptions& o, std::vector<DdpBucket>* buckets = nullptr);

}  // namespace iofab
