#include "workloads/collectives/bus_bandwidth.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "workloads/collectives/coll_ops.h"

namespace iofab {

std::string_view coll_op_name(CollOp op) { return op != nullptr ? op->name : "(no op)"; }

std::optional<CollOp> parse_coll_op(std::string_view name) {
  const CollOpInfo* info = find_coll_op(name);
  return info != nullptr ? std::optional<CollOp>(info) : std::nullopt;
}

CollOp coll_op(std::string_view name) {
  const CollOpInfo* info = find_coll_op(name);
  if (info == nullptr) {
    // A name written in iofab's own code that the table lacks: a build that can only give wrong figures.
    std::fprintf(stderr, "iofab: internal error: no collective op \"%s\" in the op table\n",
                 std::string(name).c_str());
    std::abort();
  }
  return info;
}

double bus_factor(CollOp op, int ranks) { return op->bus_factor(ranks); }

double algbw(double bytes, double seconds) { return seconds > 0 ? bytes / seconds : 0.0; }

double busbw(CollOp op, int ranks, double bytes, double seconds) {
  return algbw(bytes, seconds) * bus_factor(op, ranks);
}

double bus_bytes_per_rank(CollOp op, int ranks, double bytes) { return bytes * bus_factor(op, ranks); }

}  // namespace iofab
