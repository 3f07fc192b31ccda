#include "workloads/collectives/ddp_schedule.h"

#include <algorithm>

namespace iofab {

std::vector<DdpBucket> ddp_buckets(const std::vector<uint64_t>& layer_params, DType grad_dtype,
                                   uint64_t first_bucket_cap, uint64_t bucket_cap) {
  const uint64_t es = dtype_size(grad_dtype);
  const uint64_t first_cap = std::max<uint64_t>(1, first_bucket_cap / es);
  const uint64_t cap = std::max<uint64_t>(1, bucket_cap / es);
  std::vector<DdpBucket> out;
  DdpBucket cur;
  bool open = false;
  for (int l = static_cast<int>(layer_params.size()) - 1; l >= 0; --l) {
    uint64_t left = layer_params[static_cast<size_t>(l)];
    while (left > 0) {
      if (!open) {
        cur = DdpBucket{0, l, l};
        open = true;
      }
      const uint64_t limit = out.empty() ? first_cap : cap;
      const uint64_t take = std::min(left, limit - cur.elements);
      cur.elements += take;
      cur.ready_layer = l;
      left -= take;
      if (cur.elements == limit) {
        out.push_back(cur);
        open = false;
      }
    }
  }
  if (open) out.push_back(cur);
  return out;
}

StepSchedule ddp_step(const ModelSpec& m, const DdpOptions& o, std::vector<DdpBucket>* buckets_out) {
  const int layers = m.layers;
  StepSchedule s;
  for (int l = 0; l < layers; ++l) s.compute.push_back(compute_task(StepTaskKind::kForward, l, o.forward_s));
  for (int l = layers - 1; l >= 0; --l)
    s.compute.push_back(compute_task(StepTaskKind::kBackward, l, o.backward_s));
  const auto bwd_index = [&](int l) { return layers + (layers - 1 - l); };
  const auto buckets = ddp_buckets(layer_params(m), m.grad_dtype, o.first_bucket_cap, o.bucket_cap);
  const uint64_t es = dtype_size(m.grad_dtype);
  for (const auto& b : buckets) {
    s.comm.push_back(comm_task(StepTaskKind::kAllReduce, b.ready_layer, b.elements, m.grad_dtype,
                               b.elements * es, bwd_index(b.ready_layer)));
  }
  if (buckets_out != nullptr) *buckets_out = buckets;
  return s;
}

}  // namespace iofab
