// broadcast: the root's buffer replaces every other rank's, in place (as
// nccl-tests' in-place run, so the sweep needs no send buffer for it). Its
// only run is in place: MPI_Bcast has one buffer, so an out-of-place
// broadcast on MPI would be a copy and a broadcast, not what nccl-tests
// times.
// nccl-tests src/broadcast.cu: BroadcastGetCollByteCount moves the whole
// count; BroadcastGetBw takes S = the buffer and a bus factor of 1 (all of
// it leaves the root over the root's one link).
#include "workloads/collectives/coll_data.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
// A named namespace, not an anonymous one: every op file defines run, check and fill, and the
// layer builds in unity batches (cmake/Unity.cmake).
namespace op_broadcast {

double bus_factor(int) { return 1.0; }

OpCounts counts(size_t elements, int, size_t) { return {0, elements, elements, elements, 0, 0}; }

Status run(Collectives& c, const Buffer&, const Buffer& recv, const OpArgs& a) {
  return c.broadcast(recv, a.counts.param, a.dtype, a.root);
}

void fill(const OpArgs& a, void*, void* recv) {
  if (a.rank != a.root) return fill_sentinel(a.dtype, recv, a.counts.recv);
  for (size_t i = 0; i < a.counts.recv; ++i) store_value(a.dtype, recv, i, moved_value(a.root, i));
}

uint64_t check(const OpArgs& a, const void* recv) {
  return count_wrong(a.dtype, recv, a.counts.recv, [&](size_t i) { return moved_value(a.root, i); });
}

}  // namespace op_broadcast

CollOpInfo broadcast_op() {
  return {.name = "broadcast",
          .bus_factor = &op_broadcast::bus_factor,
          .counts = &op_broadcast::counts,
          .fill = &op_broadcast::fill,
          .check = &op_broadcast::check,
          .run = &op_broadcast::run,
          .by_default = true,
          .out_of_place = false,
          .in_place = true};
}

}  // namespace iofab
