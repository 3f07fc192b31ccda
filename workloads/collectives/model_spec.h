// The model a training step is built from, and the bytes each rank sends
// per step by the formulas in DESIGN.md (ring algorithms, n ranks, P params):
//   DDP:  all-reduce every gradient once:            2(n-1)/n * P * grad_bytes
//   FSDP: all-gather params for forward and again for backward, reduce-scatter
//         gradients:                                  (n-1)/n * P * (2 * param_bytes + grad_bytes)
// With one dtype FSDP sends 3/2 of DDP's bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/comm/collectives.h"

namespace iofab {

struct ModelSpec {
  uint64_t params = 0;
  int layers = 1;
  DType param_dtype = DType::kBFloat16;
  DType grad_dtype = DType::kBFloat16;
};

// Parameters per layer: params / layers each, the remainder one apiece to the first layers.
std::vector<uint64_t> layer_params(const ModelSpec& m);

double ddp_bytes_per_rank_analytic(const ModelSpec& m, int ranks);
double fsdp_bytes_per_rank_analytic(const ModelSpec& m, int ranks);

}  // namespace iofab
