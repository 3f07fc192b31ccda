// all_reduce: every rank ends with the reduction (sum, ...) of every rank's buffer.
// nccl-tests src/all_reduce.cu: AllReduceGetCollByteCount sends and receives
// the whole count; AllReduceGetBw takes S = count x size and a bus factor of
// 2(n-1)/n (a reduce-scatter then an all-gather, each (n-1)/n).
#include "workloads/collectives/coll_data.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
// A named namespace, not an anonymous one: every op file defines run, check and fill, and the
// layer builds in unity batches (cmake/Unity.cmake).
namespace op_all_reduce {

double bus_factor(int ranks) { return 2.0 * (ranks - 1) / ranks; }

OpCounts counts(size_t elements, int, size_t) { return {elements, elements, elements, elements, 0, 0}; }

Status run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.all_reduce(send, recv, a.counts.param, a.dtype, a.redop);
}

uint64_t check(const OpArgs& a, const void* recv) {
  const ReducePattern p = reduce_pattern(a.dtype, a.ranks, a.redop);
  return count_wrong(
      a.dtype, recv, a.counts.recv, [&](size_t i) { return reduce_result(p, i); },
      reduce_tolerance(a.dtype, a.redop, a.ranks));
}

}  // namespace op_all_reduce

CollOpInfo all_reduce_op() {
  return {.name = "all_reduce",
          .bus_factor = &op_all_reduce::bus_factor,
          .counts = &op_all_reduce::counts,
          .fill = &fill_reduction,
          .check = &op_all_reduce::check,
          .run = &op_all_reduce::run,
          .by_default = true,
          .out_of_place = true,
          .in_place = true};
}

}  // namespace iofab
