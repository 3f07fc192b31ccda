// The I/O driver core that IoPump and InOrderReader share: an error names
// the I/O that failed, past what a short transfer of the same request had
// moved, whichever of the two drives it.
#include "harness/engines/io_driver.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "harness/fake_engine.h"
#include "harness/engines/in_order_reader.h"
#include "harness/engines/io_pump.h"

namespace iofab::testing {
namespace {

constexpr uint32_t kBlock = 4096;

IoBuffers buffers(unsigned n) {
  IoBuffers b;
  EXPECT_TRUE(IoBuffers::allocate(n, kBlock, &b).ok());
  return b;
}

// Writes blocks [0, blocks) of file f, one at a time, each filled with its number.
Status write_blocks(IoPump& pump, int f, uint64_t blocks) {
  uint64_t next = 0;
  return pump.run(
      [&](unsigned, IoRequest& req) {
        if (next == blocks) return false;
        req.file = f;
        req.op = IoOp::kWrite;
        req.offset = next * kBlock;
        req.len = kBlock;
        std::memset(req.buf, static_cast<int>(next & 0xff), kBlock);
        ++next;
        return true;
      },
      [](unsigned, const IoRequest&) {});
}

TEST(IoDriver, PumpFailureAfterAShortTransferNamesTheFailedIosOffset) {
  // At depth 1 every block goes out as a half (I/O 2b) and then its rest (I/O 2b+1): the 6th I/O is the
  // rest of block 2, 2048 bytes at 2 x 4096 + 2048.
  FakeEngine engine(1, {.short_transfers = true, .fail_at = 5, .error = ENOSPC});
  int f = 0;
  ASSERT_TRUE(engine.add_file(-1, &f).ok());
  IoBuffers bufs = buffers(1);
  IoPump pump(engine, bufs, {.slots = 1, .t0_ns = now_ns()});
  Status s = write_blocks(pump, f, 10);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("write of 2048 bytes at offset 10240: No space left on device"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(pump.stats().ios, 2u) << "blocks 0 and 1 finished, block 2 failed";
  EXPECT_EQ(engine.in_flight(), 0u);
}

TEST(IoDriver, ReaderFailureAfterAShortTransferNamesTheFailedIosOffset) {
  FakeEngine engine(1, {.short_transfers = true, .fail_at = 2 * 4 + 3});
  int f = 0;
  ASSERT_TRUE(engine.add_file(-1, &f).ok());
  IoBuffers wbufs = buffers(1);
  IoPump writer(engine, wbufs, {.slots = 1, .t0_ns = now_ns()});
  // Four blocks written as 8 I/Os; the read's 4th I/O (11th in all) is the rest of block 1.
  ASSERT_TRUE(write_blocks(writer, f, 4).ok());
  IoBuffers ring = buffers(1);
  InOrderReader reader(engine, ring, 1, false, nullptr, nullptr, now_ns(), nullptr, nullptr);
  uint64_t consumed = 0;
  Status s =
      reader.read(f, 4 * kBlock, kBlock, [&](const void*, uint32_t len, uint64_t) { consumed += len; });
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("read of 2048 bytes at offset 6144: Input/output error"), std::string::npos)
      << s.message();
  EXPECT_EQ(consumed, kBlock) << "only block 0 was whole";
  EXPECT_EQ(engine.in_flight(), 0u);
}

TEST(IoDriver, AnIoThatMovesNothingIsAnErrorAtItsOffset) {
  FakeEngine engine(2, {});
  int f = 0;
  ASSERT_TRUE(engine.add_file(-1, &f).ok());
  IoBuffers bufs = buffers(2);
  IoDriver driver(engine, 2, "moved nothing", nullptr, nullptr, now_ns(), nullptr);
  IoRequest req;
  req.file = f;
  req.op = IoOp::kRead;  // the file is empty
  req.buf = bufs.at(0);
  req.len = kBlock;
  req.offset = 3 * kBlock;
  req.tag = 0;
  driver.issue(0, req);
  EXPECT_EQ(driver.active(), 1u);
  std::vector<unsigned> finished;
  ASSERT_TRUE(driver.reap(&finished).ok());
  EXPECT_TRUE(finished.empty());
  ASSERT_TRUE(driver.failed());
  EXPECT_EQ(driver.error().code(), Status::Code::kIoError);
  EXPECT_EQ(driver.error().message(), "read at offset 12288 moved nothing");
  driver.restart();
  EXPECT_FALSE(driver.failed());
  EXPECT_EQ(driver.active(), 0u);
}

TEST(IoDriver, BusyAnswersAreQueuedAgainOldestFirst) {
  FakeEngine engine(1, {});  // one I/O at a time: the second and third are answered kBusy
  int f = 0;
  ASSERT_TRUE(engine.add_file(-1, &f).ok());
  IoBuffers bufs = buffers(3);
  IoDriver driver(engine, 3, "moved 0 bytes", nullptr, nullptr, now_ns(), nullptr);
  for (unsigned slot = 0; slot < 3; ++slot) {
    IoRequest req;
    req.file = f;
    req.op = IoOp::kWrite;
    req.buf = bufs.at(slot);
    req.len = kBlock;
    req.offset = slot * kBlock;
    req.tag = slot;
    driver.issue(slot, req);
  }
  EXPECT_TRUE(driver.busy());
  std::vector<unsigned> finished;
  while (finished.size() < 3) {
    ASSERT_TRUE(driver.reap(&finished).ok());
    driver.retry_busy();
  }
  EXPECT_EQ(finished, (std::vector<unsigned>{0, 1, 2}));
  EXPECT_FALSE(driver.busy());
  EXPECT_EQ(driver.stats().ios, 3u);
  EXPECT_EQ(driver.stats().bytes, 3u * kBlock);
}

}  // namespace
}  // namespace iofab::testing
