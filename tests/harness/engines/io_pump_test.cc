#include "harness/engines/io_pump.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "harness/fake_engine.h"

namespace iofab::testing {
namespace {

constexpr uint32_t kBlock = 4096;

struct Writer {
  uint64_t blocks;
  uint64_t next_block = 0;
  int file = 0;
  bool operator()(unsigned, IoRequest& req) {
    if (next_block == blocks) return false;
    req.file = file;
    req.op = IoOp::kWrite;
    req.offset = next_block * kBlock;
    req.len = kBlock;
    // Each block carries its own number, so misplaced or lost data shows.
    std::memset(req.buf, static_cast<int>(next_block & 0xff), kBlock);
    ++next_block;
    return true;
  }
};

IoBuffers buffers(unsigned n) {
  IoBuffers b;
  EXPECT_TRUE(IoBuffers::allocate(n, kBlock, &b).ok());
  return b;
}

TEST(IoPump, WritesEveryBlockOnceAtDepth) {
  FakeEngine engine(8, {});
  int f = 0;
  ASSERT_TRUE(engine.add_file(-1, &f).ok());
  IoBuffers bufs = buffers(8);
  Histogram lat;
  TimeSeries series(1'000'000);
  std::atomic<uint64_t> progress{0};
  IoPump pump(engine, bufs,
              {.slots = 8, .latency = &lat, .series = &series, .t0_ns = now_ns(), .progress = &progress});
  uint64_t done = 0;
  Status s = pump.run(Writer{100}, [&](unsigned, const IoRequest& r) {
    EXPECT_EQ(r.len, kBlock);
    ++done;
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(done, 100u);
  EXPECT_EQ(pump.stats().bytes, 100u * kBlock);
  EXPECT_EQ(lat.count(), 100u);
  EXPECT_EQ(progress.load(), 100u * kBlock);
  uint64_t series_total = 0;
  for (auto b : series.bytes()) series_total += b;
  EXPECT_EQ(series_total, 100u * kBlock);
  ASSERT_EQ(engine.file(f).size(), 100u * kBlock);
  for (uint64_t b = 0; b < 100; ++b)
    EXPECT_EQ(engine.file(f)[b * kBlock + 17], static_cast<char>(b & 0xff)) << b;
}

// A reap that brings the whole queue back (I/Os submitted together complete together) is handed to done()
// a few at a time, each few's slots refilled and submitted before the next are handled: the device is not
// left idle while the pump works through a queue's worth of completions. (Before: done() saw all 16, with
// nothing submitted, before any was refilled, and the queue ran full then empty.)
TEST(IoPump, RefillsAndSubmitsWhileHandingBackALargeReap) {
  constexpr unsigned kDepth = 16;
  FakeEngine engine(kDepth, {});
  int f = 0;
  ASSERT_TRUE(engine.add_file(-1, &f).ok());
  IoBuffers bufs = buffers(kDepth);
  IoPump pump(engine, bufs, {.slots = kDepth});
  unsigned most_submitted = 0;
  uint64_t done = 0;
  Status s = pump.run(Writer{200}, [&](unsigned, const IoRequest&) {
    most_submitted = std::max(most_submitted, engine.submitted());
    ++done;
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(done, 200u);
  EXPECT_GE(most_submitted, kDepth - IoPump::kRefillEvery)
      << "while the last completions of a reap were handed over, the refilled slots were not yet submitted";
  ASSERT_EQ(engine.file(f).size(), 200u * kBlock);
  for (uint64_t b = 0; b < 200; ++b)
    EXPECT_EQ(engine.file(f)[b * kBlock + 17], static_cast<char>(b & 0xff)) << b;
}

// An asynchronous engine that completes some I/O inside queue() (the s3 engine's writes): what a refill
// between two handed-back completions completes at once is handed back too, so every I/O is counted once
// and none is left when the run ends. (Seen: a checkpoint to S3 recorded fewer bytes than it wrote.)
TEST(IoPump, CompletionsAtQueueTimeDuringARefillAreAllHandedBack) {
  FakeEngine engine(8, {.at_once = true});
  int f = 0;
  ASSERT_TRUE(engine.add_file(-1, &f).ok());
  IoBuffers bufs = buffers(8);
  IoPump pump(engine, bufs, {.slots = 8});
  uint64_t done = 0;
  Status s = pump.run(Writer{101}, [&](unsigned, const IoRequest&) { ++done; });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(done, 101u);
  EXPECT_EQ(pump.stats().ios, 101u);
  EXPECT_EQ(pump.stats().bytes, 101u * kBlock);
  ASSERT_EQ(engine.file(f).size(), 101u * kBlock);
  for (uint64_t b = 0; b < 101; ++b)
    EXPECT_EQ(engine.file(f)[b * kBlock + 17], static_cast<char>(b & 0xff)) << b;
}

TEST(IoPump, ShortTransfersAreCompletedNotCountedTwice) {
  FakeEngine engine(4, {.short_transfers = true});
  int f = 0;
  ASSERT_TRUE(engine.add_file(-1, &f).ok());
  IoBuffers bufs = buffers(4);
  Histogram lat;
  IoPump pump(engine, bufs, {.slots = 4, .latency = &lat, .t0_ns = now_ns()});
  Status s = pump.run(Writer{20}, [](unsigned, const IoRequest&) {});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(pump.stats().ios, 20u);
  EXPECT_EQ(pump.stats().bytes, 20u * kBlock);
  EXPECT_EQ(lat.count(), 20u);
  for (uint64_t b = 0; b < 20; ++b) {
    EXPECT_EQ(engine.file(f)[b * kBlock + kBlock - 1], static_cast<char>(b & 0xff)) << "tail of block " << b;
  }
}

TEST(IoPump, FailedCompletionStopsWithErrnoTextAndDrains) {
  FakeEngine engine(8, {.fail_at = 30, .error = ENOSPC});
  int f = 0;
  ASSERT_TRUE(engine.add_file(-1, &f).ok());
  IoBuffers bufs = buffers(8);
  IoPump pump(engine, bufs, {.slots = 8, .t0_ns = now_ns()});
  Status s = pump.run(Writer{1000}, [](unsigned, const IoRequest&) {});
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("No space left on device"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("offset"), std::string::npos) << s.message();
  EXPECT_EQ(engine.in_flight(), 0u) << "in-flight I/O must be drained before returning";
  EXPECT_LT(pump.stats().ios, 1000u);
}

TEST(IoPump, BusyAnswersAreRetried) {
  FakeEngine engine(4, {.busy_every = 3});
  int f = 0;
  ASSERT_TRUE(engine.add_file(-1, &f).ok());
  IoBuffers bufs = buffers(4);
  IoPump pump(engine, bufs, {.slots = 4, .t0_ns = now_ns()});
  Status s = pump.run(Writer{50}, [](unsigned, const IoRequest&) {});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(pump.stats().ios, 50u);
  for (uint64_t b = 0; b < 50; ++b) EXPECT_EQ(engine.file(f)[b * kBlock], static_cast<char>(b & 0xff)) << b;
}

TEST(IoPump, StopFlagEndsTheRunAsInterrupted) {
  FakeEngine engine(4, {});
  int f = 0;
  ASSERT_TRUE(engine.add_file(-1, &f).ok());
  IoBuffers bufs = buffers(4);
  std::atomic<bool> stop{false};
  IoPump pump(engine, bufs, {.slots = 4, .t0_ns = now_ns(), .stop = &stop});
  uint64_t done = 0;
  Status s = pump.run(Writer{1'000'000}, [&](unsigned, const IoRequest&) {
    if (++done == 10) stop.store(true);
  });
  EXPECT_EQ(s.code(), Status::Code::kInterrupted);
  EXPECT_LT(done, 100u);
  EXPECT_EQ(engine.in_flight(), 0u);
}

TEST(IoPump, ReadsBackShortAtEndOfFileIsAnError) {
  FakeEngine engine(2, {});
  int f = 0;
  ASSERT_TRUE(engine.add_file(-1, &f).ok());
  IoBuffers bufs = buffers(2);
  IoPump writer(engine, bufs, {.slots = 2, .t0_ns = now_ns()});
  ASSERT_TRUE(writer.run(Writer{2}, [](unsigned, const IoRequest&) {}).ok());
  IoPump reader(engine, bufs, {.slots = 2, .t0_ns = now_ns()});
  uint64_t next = 0;
  Status s = reader.run(
      [&](unsigned, IoRequest& req) {
        if (next == 3) return false;  // one block past the end
        req.file = f;
        req.op = IoOp::kRead;
        req.offset = next++ * kBlock;
        req.len = kBlock;
        return true;
      },
      [](unsigned, const IoRequest&) {});
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("moved 0 bytes"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace iofab::testing
