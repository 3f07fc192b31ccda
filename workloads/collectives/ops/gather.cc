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
namespace {

double bus_factor(int ranks) { return static_cast<double>(ranks - 1) / ranks; }

OpCounts counts(size_t elements, int ranks, size_t elt_size) {
  const size_t per = block_per_rank(elements, ranks, elt_size);
  return {per, per * ranks, per, per * ranks, per, 0};
}

Status run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.gather(send, recv, a.counts.param, a.dtype, a.root);
}

void fill(const OpArgs& a, void* send, void* recv) {
  for (size_t i = 0; i < a.counts.send; ++i) store_value(a.dtype, send, i, moved_value(a.rank, i));
  fill_sentinel(a.dtype, recv, a.counts.recv);
}

uint64_t check(const OpArgs& a, const void* recv) {
  const size_t per = a.counts.param;
  const bool root = a.rank == a.root;
  return count_wrong(a.dtype, recv, a.counts.recv,
                     [&](size_t i) { return root ? moved_value(i / per, i % per) : kSentinel; });
}

}  // namespace

CollOpInfo gather_op() { return {"gather", &bus_factor, &counts, &fill, &check, &run, false, true, false}; }

}  // namespace iofab
