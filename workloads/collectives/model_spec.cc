#include "workloads/collectives/model_spec.h"

namespace iofab {

std::vector<uint64_t> layer_params(const ModelSpec& m) {
  const uint64_t layers = static_cast<uint64_t>(m.layers > 0 ? m.layers : 1);
  std::vector<uint64_t> out(layers, m.params / layers);
  for (uint64_t i = 0; i < m.params % layers; ++i) ++out[i];
  return out;
}

double ddp_bytes_per_rank_analytic(const ModelSpec& m, int ranks) {
  const double n = ranks;
  return 2.0 * (n - 1) / n * static_cast<double>(m.params) * static_cast<double>(dtype_size(m.grad_dtype));
}

double fsdp_bytes_per_rank_analytic(const ModelSpec& m, int ranks) {
  const double n = ranks;
  return (n - 1) / n * static_cast<double>(m.params) *
         static_cast<double>(2 * dtype_size(m.param_dtype) + dtype_size(m.grad_dtype));
}

}  // namespace iofab
