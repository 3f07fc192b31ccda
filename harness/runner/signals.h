// SIGINT/SIGTERM: the first one asks every worker to stop (the run then
// removes its files and writes an `interrupted` report); a second one exits
// at once. Nothing is ever written outside the run folder either way.
#pragma once

#include <atomic>

namespace iofab {

void install_stop_handlers();
std::atomic<bool>& stop_flag();
// The signal that set the flag, or 0.
int stop_signal();
// Readable from the first stop signal on (an eventfd, never drained); -1 before install_stop_handlers.
int stop_wake_fd();

}  // namespace iofab
