// A metadata step's worker threads: each runs an op per item, timing it into its own tally, and stops at
// its first failure or when the phase is told to stop. Two ways to hand out the items: a fixed share each
// (run_split_items), or the next unclaimed one (run_claimed_items, for the stonewall's create).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "harness/core/status.h"
#include "workloads/metadata/metadata_tally.h"

namespace iofab {

using MdItemOp = std::function<Status(unsigned worker, uint64_t item)>;

// Runs op on items [0, n) with `workers` threads, worker w on the w-th of `workers` equal shares in order,
// until its share is done, an op fails (that worker stops) or stop is set. Counts, latencies and the
// step's wall time (added to out->ns) go to out.
Status run_split_items(const std::atomic<bool>& stop, unsigned workers, uint64_t n, const MdItemOp& op,
                       MdTally* out);

// Runs op on items [first, last) with `workers` threads, each claiming the next item, until the items run
// out, an op fails (that worker stops), stop is set, or (deadline_ns not 0) now_ns() reaches deadline_ns
// before a claim. Every claimed item is done, so the items done are [first, *next). Counts and latencies go
// to out (not its ns).
Status run_claimed_items(const std::atomic<bool>& stop, unsigned workers, uint64_t first, uint64_t last,
                         uint64_t deadline_ns, const MdItemOp& op, MdTally* out, uint64_t* next);

}  // namespace iofab
