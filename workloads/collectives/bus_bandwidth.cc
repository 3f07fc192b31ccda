#include "workloads/collectives/bus_bandwidth.h"

namespace iofab {

std::string_view coll_op_name(CollOp op) {
  switch (op) {
    case CollOp::kAllReduce:
      return "all_reduce";
    case CollOp::kAllGather:
      return "all_gather";
    case CollOp::kReduceScatter:
      return "reduce_scatter";
    case CollOp::kBroadcast:
      return "broadcast";
    case CollOp::kReduce:
      return "reduce";
    case CollOp::kAllToAll:
      return "all_to_all";
  }
  return "all_reduce";
}

std::optional<CollOp> parse_coll_op(std::string_view name) {
  for (CollOp op : {CollOp::kAllReduce, CollOp::kAllGather, CollOp::kReduceScatter, CollOp::kBroadcast,
                    CollOp::kReduce, CollOp::kAllToAll}) {
    if (coll_op_name(op) == name) return op;
  }
  return std::nullopt;
}

double bus_factor(CollOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollOp::kAllReduce:
      return 2.0 * (n - 1) / n;
    case CollOp::kAllGather:
    case CollOp::kReduceScatter:
    case CollOp::kAllToAll:
      return (n - 1) / n;
    case CollOp::kBroadcast:
    case CollOp::kReduce:
      return 1.0;
  }
  return 1.0;
}

double algbw(double bytes, double seconds) { return seconds > 0 ? bytes / seconds : 0.0; }

double busbw(CollOp op, int ranks, double bytes, double seconds) {
  return algbw(bytes, seconds) * bus_factor(op, ranks);
}

double bus_bytes_per_rank(CollOp op, int ranks, double bytes) { return bytes * bus_factor(op, ranks); }

}  // namespace iofab
