#include "workloads/collectives/fsdp_schedule.h"

namespace iofab {

std::vector<FsdpShard> fsdp_shards(const std::vector<uint64_t>& layer_params, int ranks) {
  const uint64_t n = static_cast<uint64_t>(ranks > 0 ? ranks : 1);
  std::vector<FsdpShard> out;
  for (uint64_t p : layer_params) {
    const uint64_t shard = (p + n - 1) / n;
    out.push_back({shard * n, shard});
  }
  return out;
}

StepSchedule fsdp_step(const ModelSpec& m, const FsdpOptions& o, int ranks) {
  const int layers = m.layers;
  const auto shards = fsdp_shards(layer_params(m), ranks);
  const uint64_t pes = dtype_size(m.param_dtype);
  const uint64_t ges = dtype_size(m.grad_dtype);
  StepSchedule s;
  const auto fwd_index = [](int l) { return l; };
  const auto bwd_index = [&](int l) { return layers + (layers - 1 - l); };
  std::vector<int> ag_fwd(static_cast<size_t>(layers)), ag_bwd(static_cast<size_t>(layers));
  const auto gather = [&](int l, int after, std::vector<int>* where) {
    const FsdpShard& sh = shards[static_cast<size_t>(l)];
    (*where)[static_cast<size_t>(l)] = static_cast<int>(s.comm.size());
    s.comm.push_back(comm_task(StepTaskKind::kAllGather, l, sh.shard, m.param_dtype, sh.padded * pes, after));
  };
  const auto scatter = [&](int l) {
    const FsdpShard& sh = shards[static_cast<size_t>(l)];
    s.comm.push_back(
        comm_task(StepTaskKind::kReduceScatter, l, sh.shard, m.grad_dtype, sh.padded * ges, bwd_index(l)));
  };

  // Forward. A prefetched gather of layer l is issued as layer l-1 starts, i.e. once layer l-2 is done.
  for (int l = 0; l < layers; ++l) {
    const int waits_for = o.prefetch ? l - 2 : l - 1;
    gather(l, waits_for >= 0 ? fwd_index(waits_for) : -1, &ag_fwd);
  }
  // Backward, last layer first. Its first gathers wait for the end of forward.
  const int end_of_forward = fwd_index(layers - 1);
  gather(layers - 1, end_of_forward, &ag_bwd);
  if (o.prefetch && layers >= 2) gather(layers - 2, end_of_forward, &ag_bwd);
  for (int l = layers - 1; l >= 0; --l) {
    if (o.prefetch) {
      // BACKWARD_PRE: layer l-1's backward starts by prefetching layer l-2, ahead of layer l's
      // reduce-scatter.
      if (l - 2 >= 0) gather(l - 2, bwd_index(l), &ag_bwd);
      scatter(l);
    } else {
      scatter(l);
      if (l - 1 >= 0) gather(l - 1, bwd_index(l), &ag_bwd);
    }
  }

  for (int l = 0; l < layers; ++l) {
    s.compute.push_back(compute_task(StepTaskKind::kForward, l, o.forward_s, ag_fwd[static_cast<size_t>(l)]));
  }
  for (int l = layers - 1; l >= 0; --l) {
    s.compute.push_back(
        compute_task(StepTaskKind::kBackward, l, o.backward_s, ag_bwd[static_cast<size_t>(l)]));
  }
  return s;
}

}  // namespace iofab
