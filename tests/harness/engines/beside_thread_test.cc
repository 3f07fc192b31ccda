#include "harness/engines/beside_thread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace iofab::testing {
namespace {

// Waits up to 10 s for flag: a bound for a broken build, never reached by a working one.
bool eventually(const std::atomic<bool>& flag) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!flag.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  return flag.load();
}

TEST(BesideThread, JobsRunInTheOrderPostedOneAtATimeOffTheCallersThread) {
  BesideThread beside;
  std::vector<int> order;  // written by the jobs only, read after wait()
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  std::atomic<bool> on_caller{false};
  const auto caller = std::this_thread::get_id();
  for (int i = 0; i < 200; ++i) {
    beside.post([&, i] {
      const int now = running.fetch_add(1) + 1;
      most.store(std::max(most.load(), now));
      if (std::this_thread::get_id() == caller) on_caller.store(true);
      order.push_back(i);
      running.fetch_sub(1);
    });
  }
  beside.wait();
  ASSERT_EQ(order.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
  EXPECT_EQ(most.load(), 1);
  EXPECT_FALSE(on_caller.load());
}

// post() returns while its job still runs (the work beside the I/O), and wait() does not return before.
TEST(BesideThread, PostReturnsWhileTheJobRunsAndWaitWaitsForIt) {
  BesideThread beside;
  std::atomic<bool> posted{false};
  std::atomic<bool> saw_post{false};
  std::atomic<bool> finished{false};
  beside.post([&] {
    saw_post.store(eventually(posted));  // only the caller, after post returned, sets it
    finished.store(true);
  });
  posted.store(true);
  beside.wait();
  EXPECT_TRUE(saw_post.load());
  EXPECT_TRUE(finished.load());
  EXPECT_GT(beside.busy_ns(), 0u);
}

// The destructor waits for the last job: what it touches may be freed right after.
TEST(BesideThread, TheLastJobEndsBeforeTheThreadIsGone) {
  std::atomic<int> done{0};
  {
    BesideThread beside;
    for (int i = 0; i < 3; ++i) beside.post([&] { done.fetch_add(1); });
  }
  EXPECT_EQ(done.load(), 3);
}

}  // namespace
}  // namespace iofab::testing
