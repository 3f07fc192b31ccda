#include "harness/engines/fill_ahead.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace iofab::testing {
namespace {

constexpr size_t kBlock = 4096;

// Waits up to 10 s for count to reach n: a bound for a broken build, never reached by a working one.
bool eventually_at_least(const std::atomic<uint64_t>& count, uint64_t n) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (count.load() < n && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  return count.load() >= n;
}

bool all_bytes(const void* buf, unsigned char v) {
  const auto* p = static_cast<const unsigned char*>(buf);
  for (size_t i = 0; i < kBlock; ++i) {
    if (p[i] != v) return false;
  }
  return true;
}

// A synchronous writer's loop: take block i, "write" it. The write of block i waits until block i + 1 is
// made, which only a generator beside the write lets happen (made between two writes, it would wait
// forever); the bytes written are block i's, in the buffer of its turn, unchanged by the next block's make.
TEST(FillAhead, TheNextBlockIsMadeWhileTheCurrentOneIsWritten) {
  IoBuffers ring;
  ASSERT_TRUE(IoBuffers::allocate(2, kBlock, &ring).ok());
  BesideThread beside;
  std::atomic<uint64_t> made{0};  // blocks made so far (they are made in order)
  std::vector<uint64_t> order;    // written by make only, read after wait()
  constexpr uint64_t kBlocks = 20;
  {
    FillAhead ahead(ring, beside, [&](uint64_t i, void* buf) {
      std::memset(buf, static_cast<int>(i + 1), kBlock);
      order.push_back(i);
      made.fetch_add(1);
    });
    for (uint64_t i = 0; i < kBlocks; ++i) {
      IoRequest req;
      const bool more = i + 1 < kBlocks;
      ahead.take(i, more, req);
      ASSERT_EQ(req.buf_index, static_cast<int>(i % 2));
      ASSERT_EQ(req.buf, ring.at(i % 2));
      ASSERT_TRUE(all_bytes(req.buf, static_cast<unsigned char>(i + 1))) << "block " << i;
      if (more) {
        ASSERT_TRUE(eventually_at_least(made, i + 2))
            << "block " << i + 1 << " was not made during write " << i;
      }
      // The write still sees its own bytes after the next block was made.
      ASSERT_TRUE(all_bytes(req.buf, static_cast<unsigned char>(i + 1))) << "block " << i;
    }
    ahead.wait();
  }
  ASSERT_EQ(order.size(), kBlocks);  // no block past the last one is made
  for (uint64_t i = 0; i < kBlocks; ++i) EXPECT_EQ(order[i], i);
}

}  // namespace
}  // namespace iofab::testing
