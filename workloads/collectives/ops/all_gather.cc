// all_gather: every rank ends with every rank's block, in rank order.
// nccl-tests src/all_gather.cu: AllGatherGetCollByteCount sends count/n per
// rank and receives n of those; AllGatherGetBw takes S = the gathered
// buffer and a bus factor of (n-1)/n (each rank receives the n-1 blocks it
// lacks). Later nccl-tests round each block further down (to 4 elements,
// then to 16 bytes); iofab keeps count/n, as before, which gives the same S
// for every power-of-two size of 16 bytes or more per rank on a power-of-two
// number of ranks.
#include "workloads/collectives/coll_data.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
namespace {

double bus_factor(int ranks) { return static_cast<double>(ranks - 1) / ranks; }

OpCounts counts(size_t elements, int ranks) {
  const size_t per = elements / static_cast<size_t>(ranks);
  return {per, per * ranks, per, per * ranks};
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
  return {"all_gather", &bus_factor, &counts, &fill, &check, &run, true};
}

}  // namespace iofab
