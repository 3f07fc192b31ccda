// all_gather: every rank ends with every rank's block, in rank order.
// nccl-tests src/all_gather.cu: AllGatherGetCollByteCount sends one block
// per rank, count/n rounded down to 16 bytes (block_per_rank), and receives
// n of those; in place, a rank sends from its own block of recv.
// AllGatherGetBw takes S = the gathered buffer and a bus factor of (n-1)/n
// (each rank receives the n-1 blocks it lacks).
#include "workloads/collectives/coll_data.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
// A named namespace, not an anonymous one: every op file defines run, check and fill, and the
// layer builds in unity batches (cmake/Unity.cmake).
namespace op_all_gather {

Status run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.all_gather(send, recv, a.counts.param, a.dtype);
}

uint64_t check(const OpArgs& a, const void* recv) {
  const size_t per = a.counts.param;
  return count_wrong(a.dtype, recv, a.counts.recv, [&](size_t i) { return moved_value(i / per, i % per); });
}

}  // namespace op_all_gather

CollOpInfo all_gather_op() {
  return {.name = "all_gather",
          .bus_factor = &split_bus_factor,
          .counts = &gathered_counts,
          .fill = &fill_own_block,
          .check = &op_all_gather::check,
          .run = &op_all_gather::run,
          .by_default = true,
          .out_of_place = true,
          .in_place = true};
}

}  // namespace iofab
