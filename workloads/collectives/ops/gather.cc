// gather: the root ends with every rank's block, in rank order; the others'
// recv buffers are not the op's to touch.
// nccl-tests src/gather.cu: GatherGetCollByteCount sends one block per rank,
// count/n rounded down to 16 bytes (block_per_rank), and the root receives n
// of those; GatherGetBw takes S = the gathered buffer and a bus factor of
// (n-1)/n (the root receives the n-1 blocks it lacks). Out of place only:
// MPI_Gather takes MPI_IN_PLACE at the root alone.
#include "workloads/collectives/coll_data.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
// A named namespace, not an anonymous one: every op file defines run, check and fill, and the
// layer builds in unity batches (cmake/Unity.cmake).
namespace op_gather {

Status run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.gather(send, recv, a.counts.param, a.dtype, a.root);
}

uint64_t check(const OpArgs& a, const void* recv) {
  const size_t per = a.counts.param;
  const bool root = a.rank == a.root;
  return count_wrong(a.dtype, recv, a.counts.recv,
                     [&](size_t i) { return root ? moved_value(i / per, i % per) : kSentinel; });
}

}  // namespace op_gather

CollOpInfo gather_op() {
  return {.name = "gather",
          .bus_factor = &split_bus_factor,
          .counts = &gathered_counts,
          .fill = &fill_own_block,
          .check = &op_gather::check,
          .run = &op_gather::run,
          .by_default = false,
          .out_of_place = true,
          .in_place = false};
}

}  // namespace iofab
