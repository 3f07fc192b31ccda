// The data a checked collective moves: every value is a small integer, exact
// in every dtype, so a result is compared exactly and a wrong element is a
// wrong element, never a rounding question. Values depend on the sending
// rank and the index, so a block that lands in the wrong place is caught.
#pragma once

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

// Elements of recv[0, n) that differ from expected(i).
template <typename Expected>
uint64_t count_wrong(DType t, const void* recv, size_t n, const Expected& expected) {
  uint64_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += load_value(t, recv, i) != expected(i) ? 1 : 0;
  return wrong;
}

// A value that is moved, not summed: an integer in [0, 250] by (key, index).
double moved_value(uint64_t key, uint64_t i);

// Inputs to a sum over `ranks` ranks: f(i) + (rank == i mod ranks), with
// f(i) in [0, spread] and spread chosen so that every partial sum, in any
// order, stays an integer the dtype holds exactly (bfloat16: <= 256,
// float16: <= 2048, float32: <= 2^24).
struct ReducePattern {
  int ranks = 1;
  int spread = 0;
};
ReducePattern reduce_pattern(DType t, int ranks);
double reduce_input(const ReducePattern& p, int rank, uint64_t i);
double reduce_sum(const ReducePattern& p, uint64_t i);  // the sum over every rank

// A reduction's buffers before a checked run (all_reduce, reduce_scatter, reduce): this rank's inputs
// in send, the sentinel in recv.
void fill_reduction(const OpArgs& a, void* send, void* recv);

}  // namespace iofab
