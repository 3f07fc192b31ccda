// all_to_all: block p of rank r's send buffer lands in block r of rank p's.
// nccl-tests src/alltoall.cu: AlltoAllGetCollByteCount sends and receives n
// blocks of count/n rounded down to 16 bytes (block_per_rank);
// AlltoAllGetBw takes S = one rank's whole send buffer and a bus factor of
// (n-1)/n (the block a rank keeps never crosses a link). Out of place only:
// nccl-tests does not check its in-place run (NCCL has no in-place
// all-to-all), so iofab does not time one.
#include "workloads/collectives/coll_data.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
// A named namespace, not an anonymous one: every op file defines run, check and fill, and the
// layer builds in unity batches (cmake/Unity.cmake).
namespace op_all_to_all {

OpCounts counts(size_t elements, int ranks, size_t elt_size) {
  const size_t per = block_per_rank(elements, ranks, elt_size);
  return {per * ranks, per * ranks, per, per * ranks, 0, 0};
}

Status run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.all_to_all(send, recv, a.counts.param, a.dtype);
}

// Block p of rank r's send buffer, bound for rank p, is keyed (r, p).
uint64_t block_key(int from, int to, int ranks) { return static_cast<uint64_t>(from) * ranks + to; }

void fill(const OpArgs& a, void* send, void* recv) {
  const size_t per = a.counts.param;
  for (size_t i = 0; i < a.counts.send; ++i) {
    store_value(a.dtype, send, i,
                moved_value(block_key(a.rank, static_cast<int>(i / per), a.ranks), i % per));
  }
  fill_sentinel(a.dtype, recv, a.counts.recv);
}

uint64_t check(const OpArgs& a, const void* recv) {
  const size_t per = a.counts.param;
  return count_wrong(a.dtype, recv, a.counts.recv, [&](size_t i) {
    return moved_value(block_key(static_cast<int>(i / per), a.rank, a.ranks), i % per);
  });
}

}  // namespace op_all_to_all

CollOpInfo all_to_all_op() {
  return {.name = "all_to_all",
          .bus_factor = &split_bus_factor,
          .counts = &op_all_to_all::counts,
          .fill = &op_all_to_all::fill,
          .check = &op_all_to_all::check,
          .run = &op_all_to_all::run,
          .by_default = true,
          .out_of_place = true,
          .in_place = false};
}

}  // namespace iofab
