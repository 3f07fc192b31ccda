// reduce_scatter: rank r ends with the reduction (sum, ...) of every rank's r-th block.
// nccl-tests src/reduce_scatter.cu: ReduceScatterGetCollByteCount sends n
// blocks of count/n rounded down to 16 bytes (block_per_rank) and receives
// one; in place, a rank's result lands in its own block of the send buffer.
// ReduceScatterGetBw takes S = the whole send buffer and a bus factor of
// (n-1)/n.
#include "workloads/collectives/coll_data.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
namespace {

double bus_factor(int ranks) { return static_cast<double>(ranks - 1) / ranks; }

OpCounts counts(size_t elements, int ranks, size_t elt_size) {
  const size_t per = block_per_rank(elements, ranks, elt_size);
  return {per * ranks, per, per, per * ranks, 0, per};
}

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

}  // namespace

CollOpInfo reduce_scatter_op() {
  return {"reduce_scatter", &bus_factor, &counts, &fill_reduction, &check, &run, true, true, true};
}

}  // namespace iofab
