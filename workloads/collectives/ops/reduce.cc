// reduce: the root ends with the reduction (sum, ...) of every rank's buffer; the others'
// recv buffers are not the op's to touch.
// nccl-tests src/reduce.cu: ReduceGetCollByteCount sends and receives the
// whole count; ReduceGetBw takes S = count x size and a bus factor of 1 (all
// of it must reach the root over the root's one link). ReduceInitData
// expects a non-root rank's recv buffer to come back as it was, and so does
// this check: the sentinel there must stay (in place, a non-root rank's
// buffer is its input, which must stay too).
#include "workloads/collectives/coll_data.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
// A named namespace, not an anonymous one: every op file defines run, check and fill, and the
// layer builds in unity batches (cmake/Unity.cmake).
namespace op_reduce {

double bus_factor(int) { return 1.0; }

OpCounts counts(size_t elements, int, size_t) { return {elements, elements, elements, elements, 0, 0}; }

Status run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.reduce(send, recv, a.counts.param, a.dtype, a.redop, a.root);
}

uint64_t check(const OpArgs& a, const void* recv) {
  const ReducePattern p = reduce_pattern(a.dtype, a.ranks, a.redop);
  const bool root = a.rank == a.root;
  return count_wrong(
      a.dtype, recv, a.counts.recv,
      [&](size_t i) {
        return root ? reduce_result(p, i) : a.in_place ? reduce_input(p, a.rank, i) : kSentinel;
      },
      root ? reduce_tolerance(a.dtype, a.redop, a.ranks) : 0);
}

}  // namespace op_reduce

CollOpInfo reduce_op() {
  return {.name = "reduce",
          .bus_factor = &op_reduce::bus_factor,
          .counts = &op_reduce::counts,
          .fill = &fill_reduction,
          .check = &op_reduce::check,
          .run = &op_reduce::run,
          .by_default = false,
          .out_of_place = true,
          .in_place = true};
}

}  // namespace iofab
