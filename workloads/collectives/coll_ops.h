// The collectives a sweep runs, nccl-tests style: each op is a row of
// functions (element counts for a size, fill, check, run) and the sweep
// driver knows nothing of any op's details.
#pragma once

#include <cstddef>
#include <cstdint>
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
};

struct OpArgs {
  OpCounts counts;
  DType dtype = DType::kFloat32;
  int rank = 0;
  int ranks = 1;
  int root = 0;  // broadcast
};

struct CollOpInfo {
  CollOp op;
  // Counts for a sweep size of `elements` (bytes / dtype size), as nccl-tests rounds them.
  OpCounts (*counts)(size_t elements, int ranks);
  // Fills this rank's host buffers for a checked run; outputs start as kSentinel.
  void (*fill)(const OpArgs& a, void* send, void* recv);
  // Elements of this rank's recv that differ from what the op must produce.
  uint64_t (*check)(const OpArgs& a, const void* recv);
  Status (*run)(Collectives& c, const Buffer& send, const Buffer& recv, const OpArgs& a);
};

// all_reduce, all_gather, reduce_scatter, broadcast, all_to_all.
const std::vector<CollOpInfo>& coll_op_table();
const CollOpInfo* find_coll_op(CollOp op);

}  // namespace iofab
