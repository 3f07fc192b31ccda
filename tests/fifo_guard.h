// Bounds a test that reads a FIFO: if the code under test blocks in open() or
// read() of the FIFO (the bug), the guard, after a generous deadline, opens
// the FIFO's write end without blocking and closes it again, over and over,
// so the reader sees EOF and the test ends (and fails on fired()) instead of
// hanging ctest.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace iofab::testing {

class FifoGuard {
 public:
  explicit FifoGuard(std::string fifo, std::chrono::seconds deadline = std::chrono::seconds(30))
      : fifo_(std::move(fifo)), thread_([this, deadline] { watch(deadline); }) {}
  ~FifoGuard() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  FifoGuard(const FifoGuard&) = delete;
  FifoGuard& operator=(const FifoGuard&) = delete;
  // True when the code under test had to be unblocked: it waited on the FIFO.
  bool fired() const { return fired_.load(); }

 private:
  void watch(std::chrono::seconds deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_for(lock, deadline, [this] { return done_; })) return;
    while (!done_) {
      const int fd = open(fifo_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);  // fails while no reader waits
      if (fd >= 0) {
        fired_ = true;
        close(fd);
      }
      cv_.wait_for(lock, std::chrono::milliseconds(20), [this] { return done_; });
    }
  }

  std::string fifo_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> fired_{false};
  std::thread thread_;
};

}  // namespace iofab::testing
