#include "harness/engines/in_order_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "harness/fake_engine.h"

namespace iofab::testing {
namespace {

constexpr uint32_t kBlock = 4096;

// An in-memory read-only engine that completes I/Os newest first, so reads
// finish out of order the way a multi-queue device may finish them; on
// request it also moves only half of each request at first, answers kBusy
// now and then, or fails the Nth I/O.
class ReversingEngine final : public Engine {
 public:
  struct Faults {
    bool short_transfers = false;
    unsigned busy_every = 0;
    long fail_at = -1;
  };
  explicit ReversingEngine(std::vector<char> file) : file_(std::move(file)) {}
  ReversingEngine(std::vector<char> file, Faults f) : file_(std::move(file)), f_(f) {}
  std::string_view name() const override { return "reversing"; }
  EngineCaps caps() const override { return {false, false, true}; }
  Status add_file(int, int* index) override {
    *index = 0;
    return Status::Ok();
  }
  Status remove_file(int) override { return Status::Ok(); }
  Status register_buffers(std::span<const iovec>) override { return Status::Ok(); }
  QueueResult queue(const IoRequest& req, IoCompletion*) override {
    if (f_.busy_every != 0 && ++calls_ % f_.busy_every == 0) return QueueResult::kBusy;
    if (static_cast<long>(queued_++) == f_.fail_at) {
      staged_.push_back({req.tag, -EIO});
      return QueueResult::kQueued;
    }
    uint64_t n = req.offset >= file_.size() ? 0 : std::min<uint64_t>(req.len, file_.size() - req.offset);
    if (f_.short_transfers && n > 1 && req.len == kBlock) n /= 2;  // whole blocks come back in two parts
    std::memcpy(req.buf, file_.data() + req.offset, n);
    staged_.push_back({req.tag, static_cast<int64_t>(n)});
    max_in_flight = std::max(max_in_flight, static_cast<unsigned>(staged_.size()));
    return QueueResult::kQueued;
  }
  Status commit() override { return Status::Ok(); }
  Status reap(unsigned, std::span<IoCompletion> out, unsigned* n) override {
    *n = 0;
    while (!staged_.empty() && *n < out.size()) {
      out[(*n)++] = staged_.back();
      staged_.pop_back();
    }
    reaps++;
    return Status::Ok();
  }
  unsigned in_flight() const override { return static_cast<unsigned>(staged_.size()); }
  Status fsync(int) override { return Status::Ok(); }
  unsigned reaps = 0;
  unsigned max_in_flight = 0;

 private:
  std::vector<char> file_;
  Faults f_{};
  unsigned long calls_ = 0;
  unsigned long queued_ = 0;
  std::vector<IoCompletion> staged_;
};

std::vector<char> pattern(size_t n) {
  std::vector<char> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>((i * 7 + i / 4096) & 0xff);
  return v;
}

IoBuffers ring(unsigned n) {
  IoBuffers b;
  EXPECT_TRUE(IoBuffers::allocate(n, kBlock, &b).ok());
  return b;
}

// Reads the whole file and returns what consume() saw, checking the order.
std::vector<char> read_all(InOrderReader& r, int file, uint64_t size, Status* st) {
  std::vector<char> got;
  uint64_t expect_off = 0;
  *st = r.read(file, size, kBlock, [&](const void* data, uint32_t len, uint64_t off) {
    EXPECT_EQ(off, expect_off);
    expect_off += len;
    got.insert(got.end(), static_cast<const char*>(data), static_cast<const char*>(data) + len);
  });
  return got;
}

TEST(InOrderReader, HandsBlocksOverInFileOrderWhenCompletionsAreReversed) {
  const auto data = pattern(37 * kBlock + 123);  // a short last block too
  ReversingEngine engine(data);
  IoBuffers bufs = ring(8);
  Histogram lat;
  TimeSeries series(1'000'000);
  std::atomic<uint64_t> progress{0};
  InOrderReader r(engine, bufs, 8, false, &lat, &series, now_ns(), &progress, nullptr);
  Status st;
  auto got = read_all(r, 0, data.size(), &st);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(got, data);
  EXPECT_EQ(r.stats().bytes, data.size());
  EXPECT_EQ(r.stats().ios, 38u);
  EXPECT_EQ(lat.count(), 38u);
  EXPECT_EQ(progress.load(), data.size());
  // Completions really came back out of order, 8 at a time.
  EXPECT_LT(engine.reaps, 38u);
}

TEST(InOrderReader, ARingLargerThanTheDepthKeepsTheDepthInFlight) {
  const auto data = pattern(64 * kBlock);
  ReversingEngine engine(data);
  IoBuffers bufs = ring(8);
  InOrderReader r(engine, bufs, 4, false, nullptr, nullptr, now_ns(), nullptr, nullptr);
  Status st;
  EXPECT_EQ(read_all(r, 0, data.size(), &st), data);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(engine.max_in_flight, 4u);  // never more than the depth, though 8 slots exist
}

// A consumer that hashes on another thread (restore's BackgroundXxh3) keeps using the last block until it
// is handed the next: with hold_last that block's slot is never read into meanwhile. (Without it, at depth
// 1 with a ring of 2, block 2 lands in block 0's slot before block 1 is handed over.)
TEST(InOrderReader, HoldLastNeverReadsIntoTheBlockLastHandedOver) {
  const auto data = pattern(16 * kBlock);
  for (unsigned depth : {1u, 2u, 4u}) {
    ReversingEngine engine(data);
    IoBuffers bufs = ring(2 * depth);
    InOrderReader r(engine, bufs, depth, false, nullptr, nullptr, now_ns(), nullptr, nullptr);
    r.hold_last(true);
    const char* held = nullptr;
    std::vector<char> held_copy;
    uint64_t blocks = 0;
    Status st = r.read(0, data.size(), kBlock, [&](const void* d, uint32_t len, uint64_t) {
      if (held != nullptr) {
        EXPECT_EQ(std::memcmp(held, held_copy.data(), held_copy.size()), 0)
            << "depth " << depth << ": block " << blocks - 1 << " was read over while held";
      }
      held = static_cast<const char*>(d);
      held_copy.assign(held, held + len);
      ++blocks;
    });
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(blocks, 16u);
    EXPECT_EQ(engine.max_in_flight, depth) << "the depth is kept";
  }
  // The held block needs a buffer beyond the depth.
  ReversingEngine engine(data);
  IoBuffers bufs = ring(2);
  InOrderReader r(engine, bufs, 2, false, nullptr, nullptr, now_ns(), nullptr, nullptr);
  r.hold_last(true);
  Status st;
  read_all(r, 0, data.size(), &st);
  EXPECT_EQ(st.code(), Status::Code::kInternal) << st.message();
}

TEST(InOrderReader, ShortTransfersAndBusyAnswersStillDeliverEveryByteOnce) {
  const auto data = pattern(50 * kBlock);
  ReversingEngine engine(data, {.short_transfers = true, .busy_every = 3});
  IoBuffers bufs = ring(4);
  InOrderReader r(engine, bufs, 4, false, nullptr, nullptr, now_ns(), nullptr, nullptr);
  Status st;
  auto got = read_all(r, 0, data.size(), &st);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(got, data);
  EXPECT_EQ(r.stats().bytes, data.size());
  EXPECT_EQ(r.stats().ios, 50u);
}

TEST(InOrderReader, WorksWithTheFifoFakeAndASynchronousEngine) {
  // The project's fake engine completes in order; psync completes inside queue().
  FakeEngine fake(4, {});
  int f = 0;
  ASSERT_TRUE(fake.add_file(-1, &f).ok());
  const auto data = pattern(9 * kBlock);
  {
    IoBuffers wb = ring(4);
    IoPump pump(fake, wb, {.slots = 4, .t0_ns = now_ns()});
    uint64_t off = 0;
    ASSERT_TRUE(pump.run(
                        [&](unsigned, IoRequest& req) {
                          if (off >= data.size()) return false;
                          req.file = f;
                          req.op = IoOp::kWrite;
                          req.offset = off;
                          req.len = kBlock;
                          std::memcpy(req.buf, data.data() + off, kBlock);
                          off += kBlock;
                          return true;
                        },
                        [](unsigned, const IoRequest&) {})
                    .ok());
  }
  IoBuffers bufs = ring(4);
  InOrderReader r(fake, bufs, 4, false, nullptr, nullptr, now_ns(), nullptr, nullptr);
  Status st;
  EXPECT_EQ(read_all(r, f, data.size(), &st), data);
  EXPECT_TRUE(st.ok()) << st.message();
}

TEST(InOrderReader, AnErrorStopsAndNamesTheOffset) {
  ReversingEngine engine(pattern(20 * kBlock), {.fail_at = 5});
  IoBuffers bufs = ring(4);
  InOrderReader r(engine, bufs, 4, false, nullptr, nullptr, now_ns(), nullptr, nullptr);
  Status st;
  auto got = read_all(r, 0, 20 * kBlock, &st);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("offset " + std::to_string(5 * kBlock)), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("Input/output error"), std::string::npos) << st.message();
  EXPECT_LE(got.size(), 5u * kBlock);  // nothing at or after the failed block is handed over
  EXPECT_EQ(engine.in_flight(), 0u);   // drained before returning
}

TEST(InOrderReader, AFileShorterThanExpectedIsAnError) {
  ReversingEngine engine(pattern(3 * kBlock));
  IoBuffers bufs = ring(4);
  InOrderReader r(engine, bufs, 4, false, nullptr, nullptr, now_ns(), nullptr, nullptr);
  Status st;
  read_all(r, 0, 5 * kBlock, &st);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("ends early"), std::string::npos) << st.message();
}

TEST(InOrderReader, StopFlagInterrupts) {
  ReversingEngine engine(pattern(64 * kBlock));
  IoBuffers bufs = ring(4);
  std::atomic<bool> stop{true};
  InOrderReader r(engine, bufs, 4, false, nullptr, nullptr, now_ns(), nullptr, &stop);
  Status st;
  read_all(r, 0, 64 * kBlock, &st);
  EXPECT_EQ(st.code(), Status::Code::kInterrupted);
}

}  // namespace
}  // namespace iofab::testing
