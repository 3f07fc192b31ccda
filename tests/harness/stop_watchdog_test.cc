// The stop watchdog writes the report when the runner is stuck after a stop
// signal; it must fire once, only after a stop, and never after disarm().
#include "harness/runner/stop_watchdog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

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
  StopWatchdog dog(stop, 0.05, [&] { fired.fetch_add(1); });
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
    StopWatchdog dog(stop, 30, [&] { fired.fetch_add(1); });
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
  StopWatchdog dog(stop, 0, [&] {
    started.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    finished.store(true);
  });
  ASSERT_TRUE(wait_for(started, 1, std::chrono::seconds(10)));
  dog.disarm();  // the report being written must be whole before the runner writes its own
  EXPECT_TRUE(finished.load());
}

}  // namespace
}  // namespace iofab
