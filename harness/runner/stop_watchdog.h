// StopWatchdog: writes the report itself when a stop signal came and the
// runner does not get back to writing it in time. MPI's and NCCL's blocking
// collectives cannot be interrupted from outside: a rank lost in the middle
// of one leaves the others inside the call when the launcher asks them to
// stop, and the launcher kills them about a second later. The control plane
// never blocks, so this only matters inside a data-plane call.
//
// Thread-safety: fire() runs on the watchdog's thread; disarm() (from the
// runner's thread) waits for a fire() in progress and forbids later ones, so
// the two never write the report at the same time.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace iofab {

class StopWatchdog {
 public:
  // Calls fire once, patience_s after *stop is first seen set, unless disarmed before.
  StopWatchdog(const std::atomic<bool>& stop, double patience_s, std::function<void()> fire);
  StopWatchdog(const StopWatchdog&) = delete;
  StopWatchdog& operator=(const StopWatchdog&) = delete;
  ~StopWatchdog();

  void disarm();
  bool fired() const { return fired_.load(); }

 private:
  void loop();

  const std::atomic<bool>& stop_;
  const double patience_s_;
  std::function<void()> fire_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = true;
  std::atomic<bool> fired_{false};
  std::thread thread_;
};

}  // namespace iofab
