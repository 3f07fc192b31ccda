// Ranks go on together or stop together: before each size of a sweep and
// each training step, every rank says whether it can go on (no error, no
// stop signal), so no rank is ever left waiting in a collective that the
// others will not join.
#pragma once

#include <atomic>

#include "harness/comm/comm.h"
#include "harness/core/status.h"

namespace iofab {

// Ok when every rank can go on; this rank's own error first, then another
// rank's failure, then Interrupted when any rank saw the stop flag. With
// `slowest`, the same round also carries each rank's *slowest (>= 0), and on
// Ok it becomes the largest of them, so every rank leaves with one value.
Status agree_to_continue(Comm& comm, const Status& mine, const std::atomic<bool>& stop,
                         double* slowest = nullptr);

}  // namespace iofab
