// Emulated time between a phase's I/O steps (a training job's compute, DLIO's sleep between checkpoints):
// the thread sleeps, in short slices so that a stop request ends it at once.
#pragma once

#include <atomic>

namespace iofab {

// Sleeps seconds, returning early once stop is set.
void idle_for(double seconds, const std::atomic<bool>& stop);

}  // namespace iofab
