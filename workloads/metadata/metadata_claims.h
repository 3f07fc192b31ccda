// The create step with a stonewall (mdtest's -W, IO500's rule): a rank's workers claim the next file in
// turn, so the files made are always the first n of the rank's, until the stonewall fires; ranks then
// agree on the most files any rank made and every rank makes up to it (the wear-out), so later steps
// find the same count on every rank.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "harness/comm/comm.h"
#include "harness/core/status.h"
#include "workloads/metadata/metadata_tally.h"

namespace iofab {

using MdItemOp = std::function<Status(unsigned worker, uint64_t item)>;

// Runs op on items [first, last) with `workers` threads, each claiming the next item, until the items run
// out, an op fails (that worker stops), stop is set, or (deadline_ns not 0) now_ns() reaches deadline_ns
// before a claim. Every claimed item is done, so the items done are [first, *next). Counts and latencies go
// to out (not its ns).
Status run_claimed_items(const std::atomic<bool>& stop, unsigned workers, uint64_t first, uint64_t last,
                         uint64_t deadline_ns, const MdItemOp& op, MdTally* out, uint64_t* next);

// The create step of files_per_rank files (a ceiling) on this rank with a stonewall of `seconds`: out gets
// the step's figures (its time: the start to the wear-out's end, as mdtest times it) and out->stonewall
// this rank's count at the stonewall; *made: the files every rank made.
Status create_until_stonewall(Comm& comm, const std::atomic<bool>& stop, unsigned workers,
                              uint64_t files_per_rank, double seconds, const MdItemOp& create, MdTally* out,
                              uint64_t* made);

}  // namespace iofab
