// scatter: rank r ends with block r of the root's send buffer.
// nccl-tests src/scatter.cu: ScatterGetCollByteCount has the root send n
// blocks of count/n rounded down to 16 bytes (block_per_rank) and every rank
// receive one; ScatterGetBw takes S = the root's whole send buffer and a bus
// factor of (n-1)/n (the block the root keeps never crosses a link). Out of
// place only: MPI_Scatter takes MPI_IN_PLACE at the root alone.
#include "workloads/collectives/coll_data.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
// A named namespace, not an anonymous one: every op file defines run, check and fill, and the
// layer builds in unity batches (cmake/Unity.cmake).
namespace op_scatter {

Status run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.scatter(send, recv, a.counts.param, a.dtype, a.root);
}

// Only the root's send buffer is read; block p of it is keyed p, the rank it goes to.
void fill(const OpArgs& a, void* send, void* recv) {
  const size_t per = a.counts.param;
  for (size_t i = 0; i < a.counts.send; ++i) {
    store_value(a.dtype, send, i, a.rank == a.root ? moved_value(i / per, i % per) : kSentinel);
  }
  fill_sentinel(a.dtype, recv, a.counts.recv);
}

uint64_t check(const OpArgs& a, const void* recv) {
  return count_wrong(a.dtype, recv, a.counts.recv, [&](size_t i) { return moved_value(a.rank, i); });
}

}  // namespace op_scatter

CollOpInfo scatter_op() {
  return {.name = "scatter",
          .bus_factor = &split_bus_factor,
          .counts = &scattered_counts,
          .fill = &op_scatter::fill,
          .check = &op_scatter::check,
          .run = &op_scatter::run,
          .by_default = false,
          .out_of_place = true,
          .in_place = false};
}

}  // namespace iofab
