#include "workloads/collectives/bus_bandwidth.h"

#include "workloads/collectives/coll_ops.h"

namespace iofab {

std::string_view coll_op_name(CollOp op) { return find_coll_op(op)->name; }

std::optional<CollOp> parse_coll_op(std::string_view name) {
  const CollOpInfo* info = find_coll_op(name);
  return info != nullptr ? std::optional<CollOp>(info->op) : std::nullopt;
}

double bus_factor(CollOp op, int ranks) { return find_coll_op(op)->bus_factor(ranks); }

double algbw(double bytes, double seconds) { return seconds > 0 ? bytes / seconds : 0.0; }

double busbw(CollOp op, int ranks, double bytes, double seconds) {
  return algbw(bytes, seconds) * bus_factor(op, ranks);
}

double bus_bytes_per_rank(CollOp op, int ranks, double bytes) { return bytes * bus_factor(op, ranks); }

}  // namespace iofab
