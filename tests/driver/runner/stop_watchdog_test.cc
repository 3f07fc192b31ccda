// The stop watchdog writes the report when the runner is stuck after a stop
// signal; it must fire once, only after a stop, and never after disarm().
#include "driver/runner/stop_watchdog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <sys/eventfd.h>
#include <unistd.h>

namespace iofab {
namespace {

bool wait_for(const std::atomic<int>& n, int want, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (n.load() < want && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return n.load() >= want;
}

TEST(StopWatchdog, FiresOnceAfterAStopAndThePatience) {
  std::atomic<bool> stop{false};
  std::atomic<int> fired{0};
  StopWatchdog dog(stop, -1, 0.05, [&] { fired.fetch_add(1); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(fired.load(), 0) << "no stop signal, no report";
  stop.store(true);
  ASSERT_TRUE(wait_for(fired, 1, std::chrono::seconds(10)));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(fired.load(), 1);
  EXPECT_TRUE(dog.fired());
}

TEST(StopWatchdog, DisarmedBeforeThePatienceNeverFires) {
  std::atomic<bool> stop{false};
  std::atomic<int> fired{0};
  {
    StopWatchdog dog(stop, -1, 30, [&] { fired.fetch_add(1); });
    stop.store(true);
    dog.disarm();
    EXPECT_FALSE(dog.fired());
  }  // the destructor must not wait out the 30 s either
  EXPECT_EQ(fired.load(), 0);
}

TEST(StopWatchdog, DisarmWaitsForAFireInProgress) {
  std::atomic<bool> stop{true};
  std::atomic<int> started{0};
  std::atomic<bool> finished{false};
  StopWatchdog dog(stop, -1, 0, [&] {
    started.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    finished.store(true);
  });
  ASSERT_TRUE(wait_for(started, 1, std::chrono::seconds(10)));
  dog.disarm();  // the report being written must be whole before the runner writes its own
  EXPECT_TRUE(finished.load());
}

// The stop's wake-up fd, as the signal handler writes it (signals.cc).
class WakeFd {
 public:
  WakeFd() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~WakeFd() { close(fd_); }
  int fd() const { return fd_; }
  void ring() const {
    const uint64_t one = 1;
    ASSERT_EQ(write(fd_, &one, sizeof one), static_cast<ssize_t>(sizeof one));
  }

 private:
  int fd_;
};

TEST(StopWatchdog, WithAWakeFdItSleepsUntilTheStopAndThenFires) {
  WakeFd wake;
  ASSERT_GE(wake.fd(), 0);
  std::atomic<bool> stop{false};
  std::atomic<int> fired{0};
  StopWatchdog dog(stop, wake.fd(), 0.05, [&] { fired.fetch_add(1); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Polling the flag every 10 ms (the path without a wake fd) would have woken ~30 times by now.
  EXPECT_LT(dog.wakeups(), 3u) << "the watchdog woke while nothing happened";
  EXPECT_EQ(fired.load(), 0);
  stop.store(true);  // as the handler does: the flag, then the fd
  wake.ring();
  ASSERT_TRUE(wait_for(fired, 1, std::chrono::seconds(10)));
  EXPECT_EQ(fired.load(), 1);
}

TEST(StopWatchdog, DisarmedWhileAsleepOnTheWakeFdNeverFires) {
  WakeFd wake;
  std::atomic<bool> stop{false};
  std::atomic<int> fired{0};
  const auto t0 = std::chrono::steady_clock::now();
  {
    StopWatchdog dog(stop, wake.fd(), 30, [&] { fired.fetch_add(1); });
    dog.disarm();
  }  // joins the thread: it leaves poll() on the disarm, not after the 30 s of patience
  EXPECT_EQ(fired.load(), 0);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);
}

}  // namespace
}  // namespace iofab
