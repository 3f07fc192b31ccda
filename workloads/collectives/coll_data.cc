#include "workloads/collectives/coll_data.h"

#include <algorithm>

#include "harness/comm/half_float.h"

namespace iofab {

void store_value(DType t, void* base, size_t i, double v) {
  switch (t) {
    case DType::kFloat32:
      static_cast<float*>(base)[i] = static_cast<float>(v);
      return;
    case DType::kInt32:
      static_cast<int32_t*>(base)[i] = static_cast<int32_t>(v);
      return;
    case DType::kFloat16:
      static_cast<uint16_t*>(base)[i] = float_to_fp16(static_cast<float>(v));
      return;
    case DType::kBFloat16:
      static_cast<uint16_t*>(base)[i] = float_to_bf16(static_cast<float>(v));
      return;
  }
}

double load_value(DType t, const void* base, size_t i) {
  switch (t) {
    case DType::kFloat32:
      return static_cast<const float*>(base)[i];
    case DType::kInt32:
      return static_cast<const int32_t*>(base)[i];
    case DType::kFloat16:
      return fp16_to_float(static_cast<const uint16_t*>(base)[i]);
    case DType::kBFloat16:
      return bf16_to_float(static_cast<const uint16_t*>(base)[i]);
  }
  return 0;
}

void fill_sentinel(DType t, void* recv, size_t n) {
  for (size_t i = 0; i < n; ++i) store_value(t, recv, i, kSentinel);
}

double moved_value(uint64_t key, uint64_t i) {
  return static_cast<double>((i * 7 + (i >> 8) * 3 + key * 13) % 251);
}

namespace {

// The largest integer below which every integer is exact in t.
double exact_limit(DType t) {
  switch (t) {
    case DType::kBFloat16:
      return 256;
    case DType::kFloat16:
      return 2048;
    case DType::kFloat32:
      return 16777216;
    case DType::kInt32:
      return 2147483647;
  }
  return 256;
}

int spread_value(uint64_t i, int spread) {
  const uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ static_cast<uint32_t>(i >> 32);
  return static_cast<int>((h >> 16) % static_cast<uint32_t>(spread + 1));
}

}  // namespace

ReducePattern reduce_pattern(DType t, int ranks) {
  // n * spread + 1 <= limit keeps every partial sum exact.
  const double room = (exact_limit(t) - 1) / std::max(ranks, 1);
  return {ranks, static_cast<int>(std::clamp(room, 0.0, 3.0))};
}

double reduce_input(const ReducePattern& p, int rank, uint64_t i) {
  return spread_value(i, p.spread) +
         (static_cast<uint64_t>(rank) == i % static_cast<uint64_t>(p.ranks) ? 1 : 0);
}

double reduce_sum(const ReducePattern& p, uint64_t i) {
  return static_cast<double>(p.ranks) * spread_value(i, p.spread) + 1;
}

void fill_reduction(const OpArgs& a, void* send, void* recv) {
  const ReducePattern p = reduce_pattern(a.dtype, a.ranks);
  for (size_t i = 0; i < a.counts.send; ++i) store_value(a.dtype, send, i, reduce_input(p, a.rank, i));
  fill_sentinel(a.dtype, recv, a.counts.recv);
}

}  // namespace iofab
