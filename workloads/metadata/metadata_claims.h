// The create step with a stonewall (mdtest's -W, IO500's rule): a rank's workers claim the next file in
// turn, so the files made are always the first n of the rank's, until the stonewall fires; ranks then
// agree on the most files any rank made and every rank makes up to it (the wear-out), so later steps
// find the same count on every rank.
#pragma once

#include <atomic>
#include <cstdint>

#include "harness/comm/comm.h"
#include "harness/core/status.h"
#include "workloads/metadata/metadata_tally.h"
#include "workloads/metadata/metadata_workers.h"

namespace iofab {

// The create step of files_per_rank files (a ceiling) on this rank with a stonewall of `seconds`: out gets
// the step's figures (its time: the start to the wear-out's end, as mdtest times it) and out->stonewall
// this rank's count at the stonewall; *made: the files every rank made.
Status create_until_stonewall(Comm& comm, const std::atomic<bool>& stop, unsigned workers,
                              uint64_t files_per_rank, double seconds, const MdItemOp& create, MdTally* out,
                              uint64_t* made);

}  // namespace iofab
