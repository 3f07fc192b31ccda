#include "driver/runner/stop_watchdog.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>

namespace iofab {

StopWatchdog::StopWatchdog(const std::atomic<bool>& stop, int wake_fd, double patience_s,
                           std::function<void()> fire)
    : stop_(stop), wake_fd_(wake_fd), patience_s_(patience_s), fire_(std::move(fire)) {
  if (wake_fd_ >= 0) disarm_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  thread_ = std::thread([this] { loop(); });
}

StopWatchdog::~StopWatchdog() {
  disarm();
  thread_.join();
  if (disarm_fd_ >= 0) close(disarm_fd_);
}

void StopWatchdog::disarm() {
  std::lock_guard<std::mutex> lock(mu_);  // waits for a fire() in progress
  armed_ = false;
  cv_.notify_all();
  if (disarm_fd_ >= 0) {
    const uint64_t one = 1;
    ssize_t n = write(disarm_fd_, &one, sizeof one);
    (void)n;
  }
}

// Returns when the stop flag is set or the watchdog is disarmed; mu_ is not held.
void StopWatchdog::wait_for_stop() {
  if (wake_fd_ < 0 || disarm_fd_ < 0) {
    // The stop flag is set by a signal handler, which cannot notify a condition variable: poll it.
    constexpr auto kPoll = std::chrono::milliseconds(10);
    std::unique_lock<std::mutex> lock(mu_);
    while (armed_ && !stop_.load()) {
      cv_.wait_for(lock, kPoll);
      wakeups_.fetch_add(1);
    }
    return;
  }
  pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {disarm_fd_, POLLIN, 0}};
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!armed_ || stop_.load()) return;
    }
    // Both fds stay readable once written (never drained), so a wake-up between the check above
    // and this poll is not lost. The timeout only guards a stop flag set without the fd written.
    const int n = poll(fds, 2, 1000);
    if (n < 0 && errno != EINTR) return;
    wakeups_.fetch_add(1);
  }
}

void StopWatchdog::loop() {
  using clock = std::chrono::steady_clock;
  wait_for_stop();
  std::unique_lock<std::mutex> lock(mu_);
  const auto deadline =
      clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(patience_s_));
  while (armed_ && clock::now() < deadline) cv_.wait_until(lock, deadline);
  if (!armed_) return;
  fired_.store(true);
  fire_();  // under the lock: disarm() waits for it
}

}  // namespace iofab
