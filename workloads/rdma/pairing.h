// Who talks to whom. `pairs`: ranks 0-1, 2-3, ...; with an odd number of
// ranks the last one has no partner and idles. `all_to_one`: every rank > 0
// to rank 0 at once (incast on rank 0's link). In each link the initiator
// posts the work and measures; the target serves (answers ping-pongs,
// receives sends) and measures nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "workloads/rdma/rdma_spec.h"

namespace iofab {

struct RdmaLink {
  int initiator = 0;
  int target = 0;
  bool operator==(const RdmaLink&) const = default;
};

std::vector<RdmaLink> rdma_links(RdmaPattern pattern, int ranks);

struct RdmaRole {
  std::optional<RdmaLink> initiates;  // at most one per rank in both patterns
  std::vector<RdmaLink> serves;
  bool idle() const { return !initiates && serves.empty(); }
};

RdmaRole rdma_role(const std::vector<RdmaLink>& links, int rank);

// One line per idle rank, for the report's warnings: "rank 4 has no partner
// in pattern pairs (5 ranks): it idles". Empty when every rank takes part.
std::vector<std::string> idle_rank_notes(RdmaPattern pattern, int ranks);

}  // namespace iofab
