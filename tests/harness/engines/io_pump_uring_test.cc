// A failed completion on the real io_uring path: a wrapper turns the Nth
// completion into -EIO, as a failing device would, and the pump must stop
// with the errno text after draining the ring.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "harness/engines/io_pump.h"
#include "harness/forwarding_engine.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

class FailNthCompletion final : public ForwardingEngine {
 public:
  FailNthCompletion(std::unique_ptr<Engine> inner, unsigned fail_at)
      : ForwardingEngine(std::move(inner)), fail_at_(fail_at) {}
  Status reap(unsigned min_complete, std::span<IoCompletion> out, unsigned* n) override {
    Status s = inner_->reap(min_complete, out, n);
    for (unsigned i = 0; s.ok() && i < *n; ++i) {
      if (seen_++ == fail_at_) out[i].result = -EIO;
    }
    return s;
  }

 private:
  unsigned fail_at_;
  unsigned seen_ = 0;
};

TEST(IoPumpUring, FailedCompletionFailsTheRunAndDrainsTheRing) {
  EngineOptions eo;
  eo.queue_depth = 8;
  std::unique_ptr<Engine> ring;
  Status s = make_engine("io_uring", eo, &ring);
  if (!s.ok()) GTEST_SKIP() << s.message();
  FailNthCompletion engine(std::move(ring), 20);
  TempDir dir("/var/tmp");
  int fd = open((dir.path() + "/f").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  int h = -1;
  ASSERT_TRUE(engine.add_file(fd, &h).ok());
  IoBuffers bufs;
  ASSERT_TRUE(IoBuffers::allocate(8, 65536, &bufs).ok());
  ASSERT_TRUE(engine.register_buffers(bufs.iovecs()).ok());
  IoPump pump(engine, bufs, {.slots = 8, .fixed_buffers = true, .t0_ns = now_ns()});
  uint64_t next = 0;
  s = pump.run(
      [&](unsigned, IoRequest& req) {
        if (next == 1000) return false;
        req.file = h;
        req.op = IoOp::kWrite;
        req.offset = next++ * 65536;
        req.len = 65536;
        return true;
      },
      [](unsigned, const IoRequest&) {});
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("Input/output error"), std::string::npos) << s.message();
  EXPECT_EQ(engine.in_flight(), 0u);
  EXPECT_EQ(pump.stats().ios, 20u) << "exactly the completions before the failed one count";
  close(fd);
}

}  // namespace
}  // namespace iofab::testing
