// The collectives a sweep runs, nccl-tests style: each op is a descriptor
// (nccl-tests' struct testColl: name, byte counts, init data, bandwidth,
// run) in a file of its own under ops/, and one row of the op table in
// coll_ops.cc. The sweep driver, the bandwidth figures, the suite's `ops`
// and the report's names all read the table, and know nothing of any op's
// details. Adding an op: ops/<op>.cc and its table row (plus its call on
// Collectives, harness/comm/collectives.h, when the backends lack one: a new
// library call is each backend's to make).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "harness/comm/collectives.h"
#include "harness/core/status.h"
#include "workloads/collectives/bus_bandwidth.h"

namespace iofab {

struct OpCounts {
  size_t send = 0;   // elements in the send buffer (0: the op runs in place on recv)
  size_t recv = 0;   // elements in the recv buffer
  size_t param = 0;  // the count the call takes
  size_t bus = 0;    // S in elements, as nccl-tests counts it; 0: the size is too small for this op
  // In place, send and recv lie in the recv buffer, at rank x these (elements; nccl-tests'
  // sendInplaceOffset and recvInplaceOffset): all_gather sends from its own block, reduce_scatter
  // leaves its result in its own block.
  size_t send_in_place = 0;
  size_t recv_in_place = 0;
};

// nccl-tests' block per rank for the ops that split a buffer over the ranks (all_gather,
// reduce_scatter, all_to_all, gather, scatter): count / ranks, rounded down to a whole number of
// 16 bytes, (count/nranks) & -(16/eltSize). At 3 ranks and 1 KiB of float32 that is 84 elements,
// 1008 bytes in all.
size_t block_per_rank(size_t elements, int ranks, size_t elt_size);

// The bus factor of those ops, (n-1)/n: S is the whole split buffer, and the block a rank keeps
// (or the root keeps) never crosses a link.
double split_bus_factor(int ranks);
// Their counts, in blocks of block_per_rank: one block sent and n received, in place sending from
// the rank's own block of recv (all_gather, gather); n blocks sent and one received, in place
// leaving it in the rank's own block of send (reduce_scatter, scatter).
OpCounts gathered_counts(size_t elements, int ranks, size_t elt_size);
OpCounts scattered_counts(size_t elements, int ranks, size_t elt_size);

// Elements of the recv buffer an in-place run spans on any rank: its send and its recv, at their
// in-place offsets.
size_t in_place_extent(const OpCounts& c, int ranks);

struct OpArgs {
  OpCounts counts;
  DType dtype = DType::kFloat32;
  int rank = 0;
  int ranks = 1;
  int root = 0;               // broadcast, reduce, gather, scatter
  bool in_place = false;      // send and recv lie in one buffer (OpCounts' in-place offsets)
  RedOp redop = RedOp::kSum;  // all_reduce, reduce_scatter, reduce
};

// A row's address is the op's identity (CollOp).
struct CollOpInfo {
  std::string_view name;  // "all_reduce": the suite's `ops` and the report's metric names
  // busbw / algbw on `ranks` ranks: what each rank's link carries per byte of S under the best (ring)
  // algorithm (nccl-tests' <Op>GetBw and doc/PERFORMANCE.md).
  double (*bus_factor)(int ranks);
  // Counts for a sweep size of `elements` (bytes / dtype size) of elt_size bytes each, as
  // nccl-tests' <Op>GetCollByteCount rounds them.
  OpCounts (*counts)(size_t elements, int ranks, size_t elt_size);
  // Fills this rank's host buffers for a checked run; outputs start as kSentinel.
  void (*fill)(const OpArgs& a, void* send, void* recv);
  // Elements of this rank's recv that differ from what the op must leave there.
  uint64_t (*check)(const OpArgs& a, const void* recv);
  Status (*run)(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a);
  // Swept when a suite names no `ops`. Ops added after the first five are not, so a suite's report
  // keeps the figures it had.
  bool by_default;
  // The placements the op runs in. Both for the ops whose libraries take either (nccl-tests times
  // both for every op; iofab leaves out a placement no backend runs, or whose result nccl-tests
  // does not check).
  bool out_of_place = true;
  bool in_place = false;
};

// all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, reduce, gather, scatter, sendrecv.
const std::vector<CollOpInfo>& coll_op_table();
// The row named name; null when the table has none.
const CollOpInfo* find_coll_op(std::string_view name);

}  // namespace iofab
