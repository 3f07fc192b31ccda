#include "workloads/collectives/coll_ops.h"

#include "workloads/collectives/coll_data.h"

namespace iofab {
namespace {

uint64_t count_wrong(DType t, const void* recv, size_t n, const auto& expected) {
  uint64_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += load_value(t, recv, i) != expected(i) ? 1 : 0;
  return wrong;
}

void fill_sentinel(DType t, void* recv, size_t n) {
  for (size_t i = 0; i < n; ++i) store_value(t, recv, i, kSentinel);
}

// all_reduce: S = the buffer.
OpCounts all_reduce_counts(size_t elements, int) { return {elements, elements, elements, elements}; }
void all_reduce_fill(const OpArgs& a, void* send, void* recv) {
  const ReducePattern p = reduce_pattern(a.dtype, a.ranks);
  for (size_t i = 0; i < a.counts.send; ++i) store_value(a.dtype, send, i, reduce_input(p, a.rank, i));
  fill_sentinel(a.dtype, recv, a.counts.recv);
}
uint64_t all_reduce_check(const OpArgs& a, const void* recv) {
  const ReducePattern p = reduce_pattern(a.dtype, a.ranks);
  return count_wrong(a.dtype, recv, a.counts.recv, [&](size_t i) { return reduce_sum(p, i); });
}
Status all_reduce_run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.all_reduce(send, recv, a.counts.param, a.dtype);
}

// all_gather: each rank sends elements/n; S = the gathered buffer.
OpCounts all_gather_counts(size_t elements, int ranks) {
  const size_t per = elements / static_cast<size_t>(ranks);
  return {per, per * ranks, per, per * ranks};
}
void all_gather_fill(const OpArgs& a, void* send, void* recv) {
  for (size_t i = 0; i < a.counts.send; ++i) store_value(a.dtype, send, i, moved_value(a.rank, i));
  fill_sentinel(a.dtype, recv, a.counts.recv);
}
uint64_t all_gather_check(const OpArgs& a, const void* recv) {
  const size_t per = a.counts.param;
  return count_wrong(a.dtype, recv, a.counts.recv, [&](size_t i) { return moved_value(i / per, i % per); });
}
Status all_gather_run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.all_gather(send, recv, a.counts.param, a.dtype);
}

// reduce_scatter: each rank receives elements/n; S = the full send buffer.
OpCounts reduce_scatter_counts(size_t elements, int ranks) {
  const size_t per = elements / static_cast<size_t>(ranks);
  return {per * ranks, per, per, per * ranks};
}
void reduce_scatter_fill(const OpArgs& a, void* send, void* recv) {
  const ReducePattern p = reduce_pattern(a.dtype, a.ranks);
  for (size_t i = 0; i < a.counts.send; ++i) store_value(a.dtype, send, i, reduce_input(p, a.rank, i));
  fill_sentinel(a.dtype, recv, a.counts.recv);
}
uint64_t reduce_scatter_check(const OpArgs& a, const void* recv) {
  const ReducePattern p = reduce_pattern(a.dtype, a.ranks);
  const size_t base = static_cast<size_t>(a.rank) * a.counts.param;
  return count_wrong(a.dtype, recv, a.counts.recv, [&](size_t i) { return reduce_sum(p, base + i); });
}
Status reduce_scatter_run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.reduce_scatter(send, recv, a.counts.param, a.dtype);
}

// broadcast: in place on recv; S = the buffer.
OpCounts broadcast_counts(size_t elements, int) { return {0, elements, elements, elements}; }
void broadcast_fill(const OpArgs& a, void*, void* recv) {
  if (a.rank != a.root) return fill_sentinel(a.dtype, recv, a.counts.recv);
  for (size_t i = 0; i < a.counts.recv; ++i) store_value(a.dtype, recv, i, moved_value(a.root, i));
}
uint64_t broadcast_check(const OpArgs& a, const void* recv) {
  return count_wrong(a.dtype, recv, a.counts.recv, [&](size_t i) { return moved_value(a.root, i); });
}
Status broadcast_run(Collectives& c, const Buffer&, const Buffer& recv, const OpArgs& a) {
  return c.broadcast(recv, a.counts.param, a.dtype, a.root);
}

// all_to_all: n blocks of elements/n each way; S = one rank's send buffer.
OpCounts all_to_all_counts(size_t elements, int ranks) {
  const size_t per = elements / static_cast<size_t>(ranks);
  return {per * ranks, per * ranks, per, per * ranks};
}
// Block p of rank r's send buffer, bound for rank p, is keyed (r, p).
uint64_t block_key(int from, int to, int ranks) { return static_cast<uint64_t>(from) * ranks + to; }
void all_to_all_fill(const OpArgs& a, void* send, void* recv) {
  const size_t per = a.counts.param;
  for (size_t i = 0; i < a.counts.send; ++i) {
    store_value(a.dtype, send, i,
                moved_value(block_key(a.rank, static_cast<int>(i / per), a.ranks), i % per));
  }
  fill_sentinel(a.dtype, recv, a.counts.recv);
}
uint64_t all_to_all_check(const OpArgs& a, const void* recv) {
  const size_t per = a.counts.param;
  return count_wrong(a.dtype, recv, a.counts.recv, [&](size_t i) {
    return moved_value(block_key(static_cast<int>(i / per), a.rank, a.ranks), i % per);
  });
}
Status all_to_all_run(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a) {
  return c.all_to_all(send, recv, a.counts.param, a.dtype);
}

}  // namespace

const std::vector<CollOpInfo>& coll_op_table() {
  static const std::vector<CollOpInfo> kTable = {
      {CollOp::kAllReduce, &all_reduce_counts, &all_reduce_fill, &all_reduce_check, &all_reduce_run},
      {CollOp::kAllGather, &all_gather_counts, &all_gather_fill, &all_gather_check, &all_gather_run},
      {CollOp::kReduceScatter, &reduce_scatter_counts, &reduce_scatter_fill, &reduce_scatter_check,
       &reduce_scatter_run},
      {CollOp::kBroadcast, &broadcast_counts, &broadcast_fill, &broadcast_check, &broadcast_run},
      {CollOp::kAllToAll, &all_to_all_counts, &all_to_all_fill, &all_to_all_check, &all_to_all_run},
  };
  return kTable;
}

const CollOpInfo* find_coll_op(CollOp op) {
  for (const auto& info : coll_op_table()) {
    if (info.op == op) return &info;
  }
  return nullptr;
}

}  // namespace iofab
