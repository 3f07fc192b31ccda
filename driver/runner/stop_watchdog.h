// StopWatchdog: writes the report itself when a stop signal came and the
// runner does not get back to writing it in time. MPI's and NCCL's blocking
// collectives cannot be interrupted from outside: a rank lost in the middle
// of one leaves the others inside the call when the launcher asks them to
// stop, and the launcher kills them about a second later. The control plane
// never blocks, so this only matters inside a data-plane call.
//
// It sleeps in poll() on the stop's wake-up fd (signals.h) until a stop or
// disarm(): a thread that woke every few milliseconds to read the flag took
// about 3% of rank 0's core from a busy-polling MPI collective (measured with
// ci/bench-vs-mpi; docs/phases/collectives.md).
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
  // Calls fire once, patience_s after *stop is first seen set, unless disarmed before. wake_fd
  // becomes readable when stop is set (stop_wake_fd()); with -1 the flag is polled every 10 ms.
  StopWatchdog(const std::atomic<bool>& stop, int wake_fd, double patience_s, std::function<void()> fire);
  StopWatchdog(const StopWatchdog&) = delete;
  StopWatchdog& operator=(const StopWatchdog&) = delete;
  ~StopWatchdog();

  void disarm();
  bool fired() const { return fired_.load(); }
  // How many times the thread woke before the stop (a test of the no-polling claim).
  uint64_t wakeups() const { return wakeups_.load(); }

 private:
  void loop();
  void wait_for_stop();

  const std::atomic<bool>& stop_;
  const int wake_fd_;
  const double patience_s_;
  std::function<void()> fire_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = true;
  int disarm_fd_ = -1;  // an eventfd disarm() writes, so a poll() on wake_fd_ ends at once
  std::atomic<bool> fired_{false};
  std::atomic<uint64_t> wakeups_{0};
  std::thread thread_;
};

}  // namespace iofab
