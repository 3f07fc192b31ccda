#include "workloads/collectives/coll_data.h"

#include <algorithm>

#include "harness/comm/fp8_float.h"
#include "harness/comm/half_float.h"

namespace iofab {

void store_value(DType t, void* base, size_t i, double v) {
  switch (t) {
    case DType::kFloat32:
      static_cast<float*>(base)[i] = static_cast<float>(v);
      return;
    case DType::kFloat64:
      static_cast<double*>(base)[i] = v;
      return;
    case DType::kInt32:
      static_cast<int32_t*>(base)[i] = static_cast<int32_t>(v);
      return;
    case DType::kInt64:
      static_cast<int64_t*>(base)[i] = static_cast<int64_t>(v);
      return;
    case DType::kFloat16:
      static_cast<uint16_t*>(base)[i] = float_to_fp16(static_cast<float>(v));
      return;
    case DType::kBFloat16:
      static_cast<uint16_t*>(base)[i] = float_to_bf16(static_cast<float>(v));
      return;
    case DType::kFloat8E4M3:
      static_cast<uint8_t*>(base)[i] = float_to_fp8_e4m3(static_cast<float>(v));
      return;
    case DType::kFloat8E5M2:
      static_cast<uint8_t*>(base)[i] = float_to_fp8_e5m2(static_cast<float>(v));
      return;
  }
}

double load_value(DType t, const void* base, size_t i) {
  switch (t) {
    case DType::kFloat32:
      return static_cast<const float*>(base)[i];
    case DType::kFloat64:
      return static_cast<const double*>(base)[i];
    case DType::kInt32:
      return static_cast<const int32_t*>(base)[i];
    case DType::kInt64:
      return static_cast<double>(static_cast<const int64_t*>(base)[i]);
    case DType::kFloat16:
      return fp16_to_float(static_cast<const uint16_t*>(base)[i]);
    case DType::kBFloat16:
      return bf16_to_float(static_cast<const uint16_t*>(base)[i]);
    case DType::kFloat8E4M3:
      return fp8_e4m3_to_float(static_cast<const uint8_t*>(base)[i]);
    case DType::kFloat8E5M2:
      return fp8_e5m2_to_float(static_cast<const uint8_t*>(base)[i]);
  }
  return 0;
}

double as_stored(DType t, double v) {
  unsigned char cell[8] = {};
  store_value(t, cell, 0, v);
  return load_value(t, cell, 0);
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
    case DType::kFloat8E5M2:
      return 8;
    case DType::kFloat8E4M3:
      return 16;
    case DType::kBFloat16:
      return 256;
    case DType::kFloat16:
      return 2048;
    case DType::kFloat32:
      return 16777216;
    case DType::kInt32:
      return 2147483647;
    case DType::kFloat64:
    case DType::kInt64:
      return 9007199254740992;  // 2^53: the checks compute in double
  }
  return 256;
}

int spread_value(uint64_t i, int spread) {
  const uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ static_cast<uint32_t>(i >> 32);
  return static_cast<int>((h >> 16) % static_cast<uint32_t>(spread + 1));
}

bool owns(const ReducePattern& p, int rank, uint64_t i) {
  return static_cast<uint64_t>(rank) == i % static_cast<uint64_t>(p.ranks);
}

}  // namespace

ReducePattern reduce_pattern(DType t, int ranks, RedOp op) {
  // The largest partial result stays within the exact range: sum n * spread + 1, avg n * (spread + 1),
  // prod, min and max spread + 1.
  const double limit = exact_limit(t) - 1;
  const double n = std::max(ranks, 1);
  const double room = op == RedOp::kSum ? limit / n : op == RedOp::kAvg ? limit / n - 1 : limit - 1;
  return {ranks, static_cast<int>(std::clamp(room, 0.0, 3.0)), op};
}

double reduce_input(const ReducePattern& p, int rank, uint64_t i) {
  const double f = spread_value(i, p.spread);
  const bool mine = owns(p, rank, i);
  switch (p.op) {
    case RedOp::kProd:
      return mine ? f + 1 : 1;
    case RedOp::kAvg:
      return mine ? f + p.ranks : f;
    case RedOp::kSum:
    case RedOp::kMin:
    case RedOp::kMax:
      return f + (mine ? 1 : 0);
  }
  return f;
}

double reduce_result(const ReducePattern& p, uint64_t i) {
  const double f = spread_value(i, p.spread);
  switch (p.op) {
    case RedOp::kSum:
      return p.ranks * f + 1;
    case RedOp::kMin:
      return p.ranks > 1 ? f : f + 1;
    case RedOp::kMax:
    case RedOp::kProd:
    case RedOp::kAvg:
      return f + 1;
  }
  return f;
}

double reduce_tolerance(DType t, RedOp op, int ranks) {
  if (op != RedOp::kAvg) return 0;
  // Each rank's share f/n rounds once, and the sum of n shares once per step.
  const double n = std::max(ranks, 1);
  switch (t) {
    case DType::kFloat64:
      return 4 * n * 1.2e-16;
    case DType::kFloat32:
      return 4 * n * 6e-8;
    case DType::kFloat16:
      return 4 * n * 4.9e-4;
    case DType::kBFloat16:
      return 4 * n * 3.9e-3;
    case DType::kFloat8E4M3:
      return 4 * n * 6.25e-2;
    case DType::kFloat8E5M2:
      return 4 * n * 0.125;
    case DType::kInt32:
    case DType::kInt64:
      return 0;
  }
  return 0;
}

void fill_reduction(const OpArgs& a, void* send, void* recv) {
  const ReducePattern p = reduce_pattern(a.dtype, a.ranks, a.redop);
  for (size_t i = 0; i < a.counts.send; ++i) store_value(a.dtype, send, i, reduce_input(p, a.rank, i));
  fill_sentinel(a.dtype, recv, a.counts.recv);
}

void fill_own_block(const OpArgs& a, void* send, void* recv) {
  for (size_t i = 0; i < a.counts.send; ++i) store_value(a.dtype, send, i, moved_value(a.rank, i));
  fill_sentinel(a.dtype, recv, a.counts.recv);
}

}  // namespace iofab
