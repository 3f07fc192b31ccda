// The data a checked collective moves: every value is a small integer, exact
// in every dtype, so a result is compared exactly and a wrong element is a
// wrong element, never a rounding question. Values depend on the sending
// rank and the index, so a block that lands in the wrong place is caught.
// The float8 types hold few integers (e4m3 up to 16, e5m2 up to 8): moved
// values are compared as the dtype stores them, and reductions keep to the
// exact range. An average on floats may be a sum of each rank's share
// (NCCL's premultiplied sum), so avg results compare within the dtype's
// rounding.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "harness/comm/collectives.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {

// Stored in recv before a run: no collective here ever produces it.
inline constexpr double kSentinel = -1.0;

void store_value(DType t, void* base, size_t i, double v);
double load_value(DType t, const void* base, size_t i);

// Stores kSentinel in the first n elements of recv.
void fill_sentinel(DType t, void* recv, size_t n);

// v as the dtype stores it.
double as_stored(DType t, double v);

// Elements of recv[0, n) that differ from expected(i) as the dtype stores it (by more than
// tolerance, relative, when one is given).
template <typename Expected>
uint64_t count_wrong(DType t, const void* recv, size_t n, const Expected& expected, double tolerance = 0) {
  uint64_t wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    const double got = load_value(t, recv, i), want = as_stored(t, expected(i));
    wrong += (tolerance > 0 ? std::fabs(got - want) > tolerance * std::fabs(want) : got != want) ? 1 : 0;
  }
  return wrong;
}

// A value that is moved, not summed: an integer in [0, 250] by (key, index).
double moved_value(uint64_t key, uint64_t i);

// Inputs to a reduction over `ranks` ranks, with f(i) in [0, spread] and
// spread chosen so that every partial result, in any order, stays an integer
// the dtype holds exactly (float8_e5m2: <= 8, float8_e4m3: <= 16, bfloat16:
// <= 256, float16: <= 2048, float32: <= 2^24):
//   sum, min, max: f(i) + (rank == i mod ranks): n f + 1, f, f + 1;
//   prod: f(i) + 1 on rank i mod ranks, 1 elsewhere: f + 1;
//   avg: f(i) + ranks on rank i mod ranks, f(i) elsewhere: f + 1.
struct ReducePattern {
  int ranks = 1;
  int spread = 0;
  RedOp op = RedOp::kSum;
};
ReducePattern reduce_pattern(DType t, int ranks, RedOp op = RedOp::kSum);
double reduce_input(const ReducePattern& p, int rank, uint64_t i);
double reduce_result(const ReducePattern& p, uint64_t i);  // over every rank
// The relative error a reduction's check allows: 0 (exact) but for avg on a float type.
double reduce_tolerance(DType t, RedOp op, int ranks);

// A reduction's buffers before a checked run (all_reduce, reduce_scatter, reduce): this rank's inputs
// (for a.redop) in send, the sentinel in recv.
void fill_reduction(const OpArgs& a, void* send, void* recv);

// The buffers of an op that moves each rank's own block (all_gather, gather): send holds this
// rank's values, recv the sentinel.
void fill_own_block(const OpArgs& a, void* send, void* recv);

}  // namespace iofab
