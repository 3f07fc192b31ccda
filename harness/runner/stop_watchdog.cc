#include "harness/runner/stop_watchdog.h"

#include <chrono>

namespace iofab {

StopWatchdog::StopWatchdog(const std::atomic<bool>& stop, double patience_s, std::function<void()> fire)
    : stop_(stop), patience_s_(patience_s), fire_(std::move(fire)) {
  thread_ = std::thread([this] { loop(); });
}

StopWatchdog::~StopWatchdog() {
  disarm();
  thread_.join();
}

void StopWatchdog::disarm() {
  std::lock_guard<std::mutex> lock(mu_);  // waits for a fire() in progress
  armed_ = false;
  cv_.notify_all();
}

void StopWatchdog::loop() {
  using clock = std::chrono::steady_clock;
  // The stop flag is set by a signal handler, which cannot notify: poll it.
  constexpr auto kPoll = std::chrono::milliseconds(10);
  std::unique_lock<std::mutex> lock(mu_);
  while (armed_ && !stop_.load()) cv_.wait_for(lock, kPoll);
  const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                           std::chrono::duration<double>(patience_s_));
  while (armed_ && clock::now() < deadline) cv_.wait_until(lock, deadline);
  if (!armed_) return;
  fired_.store(true);
  fire_();  // under the lock: disarm() waits for it
}

}  // namespace iofab
