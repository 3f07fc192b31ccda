// Bandwidth as nccl-tests defines it, so iofab's figures compare with
// theirs (nccl-tests doc/PERFORMANCE.md). With n ranks, a collective of S
// bytes taking t seconds: algbw = S / t, busbw = algbw * factor, where the
// factor turns algbw into what each rank's link carries under the best
// (ring) algorithm, so busbw compares with the hardware's peak whatever n is.
// Each op's S and factor are its descriptor's (coll_ops.h, ops/<op>.cc).
#pragma once

#include <optional>
#include <string_view>

namespace iofab {

struct CollOpInfo;
// An op of the op table (coll_ops.h), by identity: its row. Ops are known by their rows alone, so
// adding one is its file and its row, with no enum to extend.
using CollOp = const CollOpInfo*;

std::string_view coll_op_name(CollOp op);  // "all_reduce", "all_gather", ...
std::optional<CollOp> parse_coll_op(std::string_view name);
// The row of an op the code itself names (a step schedule's all_reduce); the name must be in the table.
CollOp coll_op(std::string_view name);

// all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all, gather, scatter (n-1)/n; broadcast, reduce,
// sendrecv 1.
double bus_factor(CollOp op, int ranks);
double algbw(double bytes, double seconds);
double busbw(CollOp op, int ranks, double bytes, double seconds);
// Bytes each rank sends for one collective of S bytes: S * bus_factor (ring algorithms).
double bus_bytes_per_rank(CollOp op, int ranks, double bytes);

}  // namespace iofab
