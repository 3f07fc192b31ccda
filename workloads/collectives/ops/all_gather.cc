// all_gather: every rank ends with every rank's block, in rank order.
// nccl-tests src/all_gather.cu: AllGatherGetCollByteCount sends one block
// per rank, count/n rounded down to 16 bytes (block_per_rank), and receives
// n of those; in place, a rank sends from its own block of recv.
// AllGatherGetBw takes S = the gathered buffer and a bus factor of (n-1)/n
// (each rank receives the n-1 blocks it lacks).
#include "workloads/collectives/coll_data.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
namespace {

double bus_factor(int ranks) { return static_cast<double>(ranks - 1) / ranks; }

OpCounts counts(size_t elements, int ranks, size_t elt_size) {
  const size_t per = block_per_rank(elements, ranks, elt_size);
  return {per, per * ranks, per, per * ranks, per, 0};
}

Status run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.all_gather(send, recv, a.counts.param, a.dtype);
}

void fill(const OpArgs& a, void* send, void* recv) {
  for (size_t i = 0; i < a.counts.send; ++i) store_value(a.dtype, send, i, moved_value(a.rank, i));
  fill_sentinel(a.dtype, recv, a.counts.recv);
}

uint64_t check(const OpArgs& a, const void* recv) {
  const size_t per = a.counts.param;
  return count_wrong(a.dtype, recv, a.counts.recv, [&](size_t i) { return moved_value(i / per, i % per); });
}

}  // namespace

CollOpInfo all_gather_op() {
  return {"all_gather", &bus_factor, &counts, &fill, &check, &run, true, true, true};
}

}  // namespace iofab
