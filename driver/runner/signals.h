// SIGINT, SIGTERM and SIGHUP: the first one asks every worker to stop (the run
// then removes its files and writes an `interrupted` report); another one that
// comes kRepeatSignalWindowNs or more after it exits at once. Signals within
// that window are one request: GNU timeout sends its signal to the child and
// then to its process group, the child again. Nothing is ever written outside
// the run folder either way.
#pragma once

#include <atomic>
#include <cstdint>

namespace iofab {

// A second signal sooner than this after the first is the same stop request.
constexpr int64_t kRepeatSignalWindowNs = 1'000'000'000;

// Idempotent; also ignores SIGPIPE (a console gone after a hangup must not kill the cleanup).
void install_stop_handlers();
std::atomic<bool>& stop_flag();
// The signal that set the flag, or 0.
int stop_signal();
// Readable from the first stop signal on (an eventfd, never drained); -1 before install_stop_handlers.
int stop_wake_fd();

}  // namespace iofab
