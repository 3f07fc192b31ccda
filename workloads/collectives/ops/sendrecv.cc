// sendrecv: every rank sends its buffer to rank + 1 and receives rank - 1's,
// around the ring, all at once.
// nccl-tests src/sendrecv.cu: SendRecvGetCollByteCount sends and receives
// the whole count; SendRecvGetBw takes S = count x size and a bus factor of
// 1 (each rank's link carries the whole buffer each way). Out of place only,
// as nccl-tests checks it.
#include "workloads/collectives/coll_data.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
// A named namespace, not an anonymous one: every op file defines run, check and fill, and the
// layer builds in unity batches (cmake/Unity.cmake).
namespace op_sendrecv {

double bus_factor(int) { return 1.0; }

OpCounts counts(size_t elements, int, size_t) { return {elements, elements, elements, elements, 0, 0}; }

Status run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.send_recv(send, recv, a.counts.param, a.dtype);
}

void fill(const OpArgs& a, void* send, void* recv) {
  for (size_t i = 0; i < a.counts.send; ++i) store_value(a.dtype, send, i, moved_value(a.rank, i));
  fill_sentinel(a.dtype, recv, a.counts.recv);
}

uint64_t check(const OpArgs& a, const void* recv) {
  const int from = (a.rank - 1 + a.ranks) % a.ranks;
  return count_wrong(a.dtype, recv, a.counts.recv, [&](size_t i) { return moved_value(from, i); });
}

}  // namespace op_sendrecv

CollOpInfo sendrecv_op() {
  return {.name = "sendrecv",
          .bus_factor = &op_sendrecv::bus_factor,
          .counts = &op_sendrecv::counts,
          .fill = &op_sendrecv::fill,
          .check = &op_sendrecv::check,
          .run = &op_sendrecv::run,
          .by_default = false,
          .out_of_place = true,
          .in_place = false};
}

}  // namespace iofab
