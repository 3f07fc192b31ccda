// io_uring: the shared conformance suite (engines_test.cc) with and without
// registered files and buffers, plus what only io_uring has: fsync ordered on
// the ring, the fixed file table, fixed buffers. Built only with liburing.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <vector>

#include "harness/engine_conformance.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"

namespace iofab::testing {
namespace {

INSTANTIATE_TEST_SUITE_P(IoUring, EngineConformance, ::testing::ValuesIn(engine_matrix("io_uring", 8, true)),
                         engine_case_name);
INSTANTIATE_TEST_SUITE_P(IoUringDepth1, EngineConformance,
                         ::testing::Values(EngineCase{"io_uring", "/var/tmp", false, 1, true}),
                         engine_case_name);

// Makes an io_uring engine, or says why the test cannot run here.
class IoUringTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kLen = 4096;

  void make(EngineOptions opts) {
    opts_ = opts;
    Status st = make_engine("io_uring", opts, &engine_);
    if (st.code() == Status::Code::kUnavailable) GTEST_SKIP() << st.message();
    ASSERT_TRUE(st.ok()) << st.message();
  }

  // An engine of queue depth depth with one file, "data", added as *file (its fd *fd).
  void make_with_file(unsigned depth, int* fd, int* file) {
    EngineOptions opts;
    opts.queue_depth = depth;
    make(opts);
    if (IsSkipped() || HasFatalFailure()) return;
    *fd = open_file("data");
    ASSERT_GE(*fd, 0);
    ASSERT_TRUE(engine_->add_file(*fd, file).ok());
  }

  int open_file(const std::string& name) {
    const int fd = open((dir_.path() + "/" + name).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) fds_.push_back(fd);
    return fd;
  }

  void TearDown() override {
    engine_.reset();
    for (int fd : fds_) close(fd);
  }

  // Reaps until count completions arrived; returns them.
  std::vector<IoCompletion> reap_all(unsigned count) {
    std::vector<IoCompletion> all;
    std::vector<IoCompletion> done(count);
    while (all.size() < count) {
      unsigned n = 0;
      Status st = engine_->reap(static_cast<unsigned>(count - all.size()), done, &n);
      EXPECT_TRUE(st.ok()) << st.message();
      if (!st.ok() || n == 0) break;
      all.insert(all.end(), done.begin(), done.begin() + n);
    }
    return all;
  }

  TempDir dir_{"/var/tmp"};
  EngineOptions opts_;
  std::unique_ptr<Engine> engine_;
  std::vector<int> fds_;
};

TEST_F(IoUringTest, IsAsyncAndListedAsBuilt) {
  make(EngineOptions{});
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_FALSE(engine_->caps().sync);
  EXPECT_TRUE(engine_->caps().moves_data);
  bool listed = false;
  for (const EngineInfo& e : list_engines()) {
    if (e.name == "io_uring") listed = e.built && e.usable;
  }
  EXPECT_TRUE(listed);
}

TEST_F(IoUringTest, FsyncWaitsForWritesInFlightAndKeepsTheirCompletions) {
  int fd = -1, file = -1;
  make_with_file(8, &fd, &file);
  if (IsSkipped() || HasFatalFailure()) return;
  IoBuffers bufs;
  ASSERT_TRUE(IoBuffers::allocate(8, kLen, &bufs).ok());
  ASSERT_TRUE(engine_->register_buffers(bufs.iovecs()).ok());
  const DataStream data(5);
  for (unsigned i = 0; i < 8; ++i) {
    data.fill(bufs.at(i), kLen, uint64_t{i} * kLen);
    IoRequest req{file, IoOp::kWrite, bufs.at(i), kLen, uint64_t{i} * kLen, static_cast<int>(i), 50 + i};
    IoCompletion c;
    ASSERT_EQ(engine_->queue(req, &c), QueueResult::kQueued);
  }
  // Submitted and not reaped: the fsync must wait for them (IOSQE_IO_DRAIN).
  ASSERT_TRUE(engine_->commit().ok());
  Status st = engine_->fsync(file);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(engine_->in_flight(), 8u);
  EXPECT_EQ(lseek(fd, 0, SEEK_END),
            static_cast<off_t>(8 * kLen));  // every write landed before the fsync returned

  std::vector<IoCompletion> all = reap_all(8);
  ASSERT_EQ(all.size(), 8u);
  std::set<uint64_t> tags;
  for (const IoCompletion& c : all) {
    EXPECT_EQ(c.result, kLen);
    tags.insert(c.tag);
  }
  EXPECT_EQ(tags.size(), 8u);
  EXPECT_EQ(engine_->in_flight(), 0u);
}

TEST_F(IoUringTest, FsyncWithStagedWritesCoversThem) {
  int fd = -1, file = -1;
  make_with_file(4, &fd, &file);
  if (IsSkipped() || HasFatalFailure()) return;
  IoBuffers bufs;
  ASSERT_TRUE(IoBuffers::allocate(4, kLen, &bufs).ok());
  for (unsigned i = 0; i < 4; ++i) {
    IoRequest req{file, IoOp::kWrite, bufs.at(i), kLen, uint64_t{i} * kLen, -1, i};
    IoCompletion c;
    ASSERT_EQ(engine_->queue(req, &c), QueueResult::kQueued);
  }
  // No commit: the SQ is full (depth 4 rounds to 4 entries), so fsync must submit first.
  ASSERT_TRUE(engine_->fsync(file).ok());
  EXPECT_EQ(lseek(fd, 0, SEEK_END), static_cast<off_t>(4 * kLen));
  EXPECT_EQ(reap_all(4).size(), 4u);
}

TEST_F(IoUringTest, FixedFileTableHasMaxFilesSlots) {
  EngineOptions opts;
  opts.max_files = 2;
  make(opts);
  if (IsSkipped() || HasFatalFailure()) return;
  int a = -1, b = -1, c = -1;
  ASSERT_TRUE(engine_->add_file(open_file("a"), &a).ok());
  ASSERT_TRUE(engine_->add_file(open_file("b"), &b).ok());
  Status st = engine_->add_file(open_file("c"), &c);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("max_files=2"), std::string::npos) << st.message();
  ASSERT_TRUE(engine_->remove_file(a).ok());
  ASSERT_TRUE(engine_->add_file(fds_.back(), &c).ok());
  EXPECT_EQ(c, a);
}

TEST_F(IoUringTest, UnfixedFilesHaveNoTableLimit) {
  EngineOptions opts;
  opts.max_files = 1;
  opts.fixed_files = false;
  make(opts);
  if (IsSkipped() || HasFatalFailure()) return;
  for (const char* name : {"a", "b", "c"}) {
    int index = -1;
    EXPECT_TRUE(engine_->add_file(open_file(name), &index).ok()) << name;
  }
}

TEST_F(IoUringTest, FixedBuffersAreUsedWhenRegisteredAndIgnoredWhenOff) {
  for (bool fixed : {true, false}) {
    SCOPED_TRACE(fixed ? "fixed_buffers" : "no fixed_buffers");
    EngineOptions opts;
    opts.fixed_buffers = fixed;
    make(opts);
    if (IsSkipped() || HasFatalFailure()) return;
    const int fd = open_file(fixed ? "f" : "u");
    ASSERT_EQ(ftruncate(fd, kLen), 0);
    int file = -1;
    ASSERT_TRUE(engine_->add_file(fd, &file).ok());
    IoBuffers bufs;
    ASSERT_TRUE(IoBuffers::allocate(2, kLen, &bufs).ok());
    ASSERT_TRUE(engine_->register_buffers(bufs.iovecs().first(1)).ok());
    // Slot 1 was never registered: the kernel refuses it only on the fixed path.
    IoRequest req{file, IoOp::kRead, bufs.at(1), kLen, 0, 1, 7};
    IoCompletion c;
    ASSERT_EQ(engine_->queue(req, &c), QueueResult::kQueued);
    std::vector<IoCompletion> all = reap_all(1);
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].result, fixed ? int64_t{-EFAULT} : int64_t{kLen});
    // Registering again replaces the set.
    ASSERT_TRUE(engine_->register_buffers(bufs.iovecs()).ok());
    ASSERT_EQ(engine_->queue(req, &c), QueueResult::kQueued);
    all = reap_all(1);
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].result, kLen);
    engine_.reset();
  }
}

TEST_F(IoUringTest, RegisterBuffersRefusedWithIoInFlight) {
  make(EngineOptions{});
  if (IsSkipped() || HasFatalFailure()) return;
  const int fd = open_file("data");
  int file = -1;
  ASSERT_TRUE(engine_->add_file(fd, &file).ok());
  IoBuffers bufs;
  ASSERT_TRUE(IoBuffers::allocate(1, kLen, &bufs).ok());
  IoRequest req{file, IoOp::kWrite, bufs.at(0), kLen, 0, -1, 1};
  IoCompletion c;
  ASSERT_EQ(engine_->queue(req, &c), QueueResult::kQueued);
  EXPECT_FALSE(engine_->register_buffers(bufs.iovecs()).ok());
  EXPECT_EQ(reap_all(1).size(), 1u);
}

}  // namespace
}  // namespace iofab::testing
