// reduce_scatter: rank r ends with the reduction (sum, ...) of every rank's r-th block.
// nccl-tests src/reduce_scatter.cu: ReduceScatterGetCollByteCount sends n
// blocks of count/n rounded down to 16 bytes (block_per_rank) and receives
// one; in place, a rank's result lands in its own block of the send buffer.
// ReduceScatterGetBw takes S = the whole send buffer and a bus factor of
// (n-1)/n.
#include "workloads/collectives/coll_data.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
// A named namespace, not an anonymous one: every op file defines run, check and fill, and the
// layer builds in unity batches (cmake/Unity.cmake).
namespace op_reduce_scatter {

Status run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.reduce_scatter(send, recv, a.counts.param, a.dtype, a.redop);
}

uint64_t check(const OpArgs& a, const void* recv) {
  const ReducePattern p = reduce_pattern(a.dtype, a.ranks, a.redop);
  const size_t base = static_cast<size_t>(a.rank) * a.counts.param;
  return count_wrong(
      a.dtype, recv, a.counts.recv, [&](size_t i) { return reduce_result(p, base + i); },
      reduce_tolerance(a.dtype, a.redop, a.ranks));
}

}  // namespace op_reduce_scatter

CollOpInfo reduce_scatter_op() {
  return {.name = "reduce_scatter",
          .bus_factor = &split_bus_factor,
          .counts = &scattered_counts,
          .fill = &fill_reduction,
          .check = &op_reduce_scatter::check,
          .run = &op_reduce_scatter::run,
          .by_default = true,
          .out_of_place = true,
          .in_place = true};
}

}  // namespace iofab
