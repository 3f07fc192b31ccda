// The engine conformance suite (see engine_conformance.h), instantiated for
// psync and null, plus the engine table and the null engine's async contract.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <set>

#include "harness/engine_conformance.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"

namespace iofab::testing {

void EngineConformance::SetUp() {
  const EngineCase& c = GetParam();
  opts_.queue_depth = c.queue_depth;
  opts_.direct = c.direct;
  opts_.fixed_buffers = c.fixed;
  opts_.fixed_files = c.fixed;
  Status st = make_engine(c.engine, opts_, &engine_);
  if (st.code() == Status::Code::kUnavailable) GTEST_SKIP() << st.message();
  ASSERT_TRUE(st.ok()) << st.message();

  dir_ = std::make_unique<TempDir>(c.base);
  fd_ = open_scratch("data", O_RDWR | O_CREAT);
  if (fd_ == -EINVAL && c.direct) {
    GTEST_SKIP() << "O_DIRECT is not supported on " << c.base << " (open: EINVAL)";
  }
  ASSERT_GE(fd_, 0) << std::strerror(-fd_);
  st = engine_->add_file(fd_, &file_);
  ASSERT_TRUE(st.ok()) << st.message();

  st = IoBuffers::allocate(c.queue_depth, kBlock, &bufs_);
  ASSERT_TRUE(st.ok()) << st.message();
  st = engine_->register_buffers(bufs_.iovecs());
  ASSERT_TRUE(st.ok()) << st.message();
}

void EngineConformance::TearDown() {
  engine_.reset();  // the contract: the engine goes before the fds it was given
  for (int fd : fds_to_close_) close(fd);
}

int EngineConformance::open_scratch(const std::string& name, int flags) {
  if (GetParam().direct) flags |= O_DIRECT;
  const int fd = open((dir_->path() + "/" + name).c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) return -errno;
  fds_to_close_.push_back(fd);
  return fd;
}

std::vector<unsigned char> EngineConformance::expected(uint64_t block) const {
  std::vector<unsigned char> b(kBlock);
  data_.fill(b.data(), b.size(), block * kBlock);
  return b;
}

void EngineConformance::run(int file, const std::vector<Op>& ops) {
  struct Slot {
    size_t op = 0;
    uint32_t done = 0;
  };
  const unsigned depth = opts_.queue_depth;
  std::vector<Slot> slots(depth);
  std::vector<unsigned> free_slots;
  for (unsigned s = depth; s > 0; --s) free_slots.push_back(s - 1);
  std::vector<unsigned> ready;  // slots whose I/O is to be (re)queued
  results_.assign(ops.size(), 0);
  read_image_.assign(kBlocks * kBlock, 0);
  size_t next = 0;
  size_t finished = 0;

  auto finish = [&](unsigned s, int64_t result) {
    const Op& op = ops[slots[s].op];
    results_[slots[s].op] = result;
    if (op.op == IoOp::kRead && result > 0) {
      std::memcpy(read_image_.data() + op.block * kBlock, bufs_.at(s), static_cast<size_t>(result));
    }
    free_slots.push_back(s);
    ++finished;
  };
  auto on_completion = [&](const IoCompletion& c) {
    ASSERT_LT(c.tag, depth);
    const auto s = static_cast<unsigned>(c.tag);
    Slot& slot = slots[s];
    if (c.result < 0) {
      finish(s, c.result);
    } else if (c.result == 0 || slot.done + c.result >= kBlock) {
      finish(s, slot.done + c.result);
    } else {
      slot.done += static_cast<uint32_t>(c.result);  // short: the caller resubmits the rest
      ready.push_back(s);
    }
  };

  while (finished < ops.size()) {
    while (next < ops.size() && !free_slots.empty()) {
      const unsigned s = free_slots.back();
      free_slots.pop_back();
      slots[s] = Slot{next, 0};
      if (ops[next].op == IoOp::kWrite) {
        data_.fill(bufs_.at(s), kBlock, ops[next].block * kBlock);
      } else {
        std::memset(bufs_.at(s), 0xee, kBlock);
      }
      ++next;
      ready.push_back(s);
    }
    bool busy = false;
    while (!ready.empty()) {
      const unsigned s = ready.back();
      const Slot& slot = slots[s];
      IoRequest req;
      req.file = file;
      req.op = ops[slot.op].op;
      req.buf = static_cast<char*>(bufs_.at(s)) + slot.done;
      req.len = kBlock - slot.done;
      req.offset = ops[slot.op].block * kBlock + slot.done;
      req.buf_index = static_cast<int>(s);
      req.tag = s;
      IoCompletion c;
      const QueueResult r = engine_->queue(req, &c);
      if (r == QueueResult::kBusy) {
        busy = true;
        break;
      }
      ready.pop_back();
      if (r == QueueResult::kCompleted) on_completion(c);
      if (HasFatalFailure()) return;
    }
    Status st = engine_->commit();
    ASSERT_TRUE(st.ok()) << st.message();
    if (engine_->in_flight() > 0) {
      IoCompletion done[16];
      unsigned n = 0;
      st = engine_->reap(1, done, &n);
      ASSERT_TRUE(st.ok()) << st.message();
      ASSERT_GT(n, 0u) << "reap(min_complete=1) returned nothing";
      for (unsigned i = 0; i < n; ++i) {
        on_completion(done[i]);
        if (HasFatalFailure()) return;
      }
    } else {
      ASSERT_FALSE(busy) << "queue() answered kBusy with nothing in flight";
    }
  }
}

namespace {

std::vector<unsigned char> file_bytes(const std::string& path) {
  const std::string s = read_file(path);
  return std::vector<unsigned char>(s.begin(), s.end());
}

TEST_P(EngineConformance, WritesDistinctBlocksAndReadsThemBack) {
  std::vector<Op> writes;
  std::vector<Op> reads;
  for (uint64_t i = 0; i < kBlocks; ++i) {
    writes.push_back(Op{IoOp::kWrite, i * 37 % kBlocks});  // out of order, every block once
    reads.push_back(Op{IoOp::kRead, i * 13 % kBlocks});
  }
  run(file_, writes);
  ASSERT_FALSE(HasFatalFailure());
  for (size_t i = 0; i < writes.size(); ++i) {
    EXPECT_EQ(results_[i], kBlock) << "write of block " << writes[i].block;
  }
  Status st = engine_->fsync(file_);
  ASSERT_TRUE(st.ok()) << st.message();

  const bool moves_data = engine_->caps().moves_data;
  if (moves_data) {
    // Checked apart from the engine's own reads, so a symmetric bug cannot hide.
    const std::vector<unsigned char> on_disk = file_bytes(dir_->path() + "/data");
    ASSERT_EQ(on_disk.size(), kBlocks * kBlock);
    for (uint64_t b = 0; b < kBlocks; ++b) {
      ASSERT_TRUE(std::equal(on_disk.begin() + static_cast<ptrdiff_t>(b * kBlock),
                             on_disk.begin() + static_cast<ptrdiff_t>((b + 1) * kBlock), expected(b).begin()))
          << "block " << b << " on disk";
    }
  }

  run(file_, reads);
  ASSERT_FALSE(HasFatalFailure());
  for (size_t i = 0; i < reads.size(); ++i) {
    EXPECT_EQ(results_[i], kBlock) << "read of block " << reads[i].block;
  }
  if (moves_data) {
    for (uint64_t b = 0; b < kBlocks; ++b) {
      ASSERT_EQ(std::memcmp(read_image_.data() + b * kBlock, expected(b).data(), kBlock), 0) << "block " << b;
    }
  }
}

TEST_P(EngineConformance, ShortReadAtEof) {
  if (!engine_->caps().moves_data) GTEST_SKIP() << engine_->name() << " moves no data, so knows no EOF";
  // Aligned for O_DIRECT; not for buffered, where any size must work.
  const uint32_t tail = GetParam().direct ? 4096 : 1000;
  ASSERT_EQ(ftruncate(fd_, kBlock + tail), 0) << std::strerror(errno);
  run(file_, {Op{IoOp::kRead, 1}, Op{IoOp::kRead, 2}, Op{IoOp::kRead, 0}});
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(results_[0], tail) << "read across EOF";
  EXPECT_EQ(results_[1], 0) << "read past EOF";
  EXPECT_EQ(results_[2], kBlock) << "read before EOF";
}

TEST_P(EngineConformance, WriteToReadOnlyFileFailsWithEbadf) {
  if (!engine_->caps().moves_data) GTEST_SKIP() << engine_->name() << " never touches the file";
  const int fd = open_scratch("read-only", O_RDONLY | O_CREAT);
  ASSERT_GE(fd, 0) << std::strerror(-fd);
  int file = -1;
  ASSERT_TRUE(engine_->add_file(fd, &file).ok());
  run(file, {Op{IoOp::kWrite, 0}});
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(results_[0], -EBADF);
}

TEST_P(EngineConformance, UnknownFileIndexFailsWithEbadf) {
  run(file_ + 1000, {Op{IoOp::kRead, 0}, Op{IoOp::kWrite, 1}});
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(results_[0], -EBADF);
  EXPECT_EQ(results_[1], -EBADF);
}

TEST_P(EngineConformance, QueueAnswersBusyAtQueueDepth) {
  ASSERT_EQ(ftruncate(fd_, kBlocks * kBlock), 0) << std::strerror(errno);
  const unsigned depth = opts_.queue_depth;
  auto request = [&](unsigned i) {
    IoRequest req;
    req.file = file_;
    req.op = IoOp::kRead;
    req.buf = bufs_.at(i % depth);
    req.len = kBlock;
    req.offset = uint64_t{i} * kBlock;
    req.buf_index = static_cast<int>(i % depth);
    req.tag = 100 + i;
    return req;
  };
  IoCompletion c;
  if (engine_->caps().sync) {
    for (unsigned i = 0; i <= depth; ++i) {
      ASSERT_EQ(engine_->queue(request(i), &c), QueueResult::kCompleted);
      EXPECT_EQ(c.tag, 100 + i);
      EXPECT_EQ(c.result, kBlock);
      EXPECT_EQ(engine_->in_flight(), 0u);
    }
    return;
  }
  for (unsigned i = 0; i < depth; ++i) ASSERT_EQ(engine_->queue(request(i), &c), QueueResult::kQueued) << i;
  EXPECT_EQ(engine_->in_flight(), depth);
  EXPECT_EQ(engine_->queue(request(depth), &c), QueueResult::kBusy);
  ASSERT_TRUE(engine_->commit().ok());
  std::set<uint64_t> tags;
  std::vector<IoCompletion> done(depth);
  while (tags.size() < depth) {
    unsigned n = 0;
    const auto want = static_cast<unsigned>(depth - tags.size());
    Status st = engine_->reap(want, done, &n);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_GT(n, 0u);
    for (unsigned i = 0; i < n; ++i) {
      EXPECT_EQ(done[i].result, kBlock);
      EXPECT_TRUE(tags.insert(done[i].tag).second) << "tag " << done[i].tag << " reaped twice";
    }
  }
  EXPECT_EQ(*tags.begin(), 100u);
  EXPECT_EQ(*tags.rbegin(), 100u + depth - 1);
  EXPECT_EQ(engine_->in_flight(), 0u);
}

TEST_P(EngineConformance, ReapWithNothingInFlightReturnsAtOnce) {
  IoCompletion done[4];
  unsigned n = 99;
  // min_complete above what is in flight must not wait forever.
  Status st = engine_->reap(1, done, &n);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(n, 0u);
  st = engine_->reap(0, done, &n);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(n, 0u);
}

TEST_P(EngineConformance, FsyncAfterWritesAndOnUnknownFile) {
  run(file_, {Op{IoOp::kWrite, 0}, Op{IoOp::kWrite, 1}});
  ASSERT_FALSE(HasFatalFailure());
  Status st = engine_->fsync(file_);
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_FALSE(engine_->fsync(file_ + 1000).ok());
}

TEST_P(EngineConformance, RemovedFileIndexIsGoneAndReusable) {
  const int fd2 = open_scratch("second", O_RDWR | O_CREAT);
  ASSERT_GE(fd2, 0);
  int file2 = -1;
  ASSERT_TRUE(engine_->add_file(fd2, &file2).ok());
  EXPECT_NE(file2, file_);
  ASSERT_TRUE(engine_->remove_file(file2).ok());
  EXPECT_FALSE(engine_->remove_file(file2).ok());
  run(file2, {Op{IoOp::kRead, 0}});
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(results_[0], -EBADF);

  const int fd3 = open_scratch("third", O_RDWR | O_CREAT);
  ASSERT_GE(fd3, 0);
  int file3 = -1;
  ASSERT_TRUE(engine_->add_file(fd3, &file3).ok());
  run(file3, {Op{IoOp::kWrite, 0}});
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(results_[0], kBlock);
  if (engine_->caps().moves_data) {
    EXPECT_EQ(file_bytes(dir_->path() + "/third"), expected(0));
    EXPECT_EQ(file_bytes(dir_->path() + "/second").size(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Psync, EngineConformance, ::testing::ValuesIn(engine_matrix("psync", 4, false)),
                         engine_case_name);
INSTANTIATE_TEST_SUITE_P(Null, EngineConformance,
                         ::testing::Values(EngineCase{"null", "/dev/shm", false, 4, true}), engine_case_name);

// --- the engine table ---

TEST(EngineTable, ListsEveryEngineOnce) {
  const std::vector<EngineInfo> engines = list_engines();
  std::set<std::string> names;
  for (const EngineInfo& e : engines) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name << " listed twice";
    EXPECT_FALSE(e.description.empty()) << e.name;
    EXPECT_TRUE(is_engine_name(e.name)) << e.name;
    if (!e.usable) {
      EXPECT_FALSE(e.reason.empty()) << e.name;
    }
    if (e.name == "psync" || e.name == "null" || e.name == "mmap") {
      EXPECT_TRUE(e.built && e.usable) << e.name;
    }
    if (e.name == "io_uring") {
#ifdef IOFAB_HAVE_URING
      EXPECT_TRUE(e.built);
#else
      EXPECT_FALSE(e.built);
      EXPECT_FALSE(e.usable);
#endif
    }
    if (e.name == "s3") {
#ifdef IOFAB_HAVE_CURL
      EXPECT_TRUE(e.built && e.usable);
#else
      EXPECT_FALSE(e.built);
      EXPECT_FALSE(e.usable);
#endif
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"cufile", "io_uring", "mmap", "null", "psync", "s3"}));
  EXPECT_FALSE(is_engine_name("aio"));
  EXPECT_FALSE(is_engine_name(""));
}

TEST(EngineTable, MakeEngineRejectsUnknownNamesAndZeroDepth) {
  std::unique_ptr<Engine> engine;
  Status st = make_engine("aio", EngineOptions{}, &engine);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("psync"), std::string::npos) << st.message();
  EXPECT_EQ(engine, nullptr);
  EngineOptions zero;
  zero.queue_depth = 0;
  EXPECT_EQ(make_engine("null", zero, &engine).code(), Status::Code::kInvalidArgument);
}

TEST(EngineTable, MakesEachUsableEngineWithItsName) {
  for (const EngineInfo& info : list_engines()) {
    std::unique_ptr<Engine> engine;
    Status st = make_engine(info.name, EngineOptions{}, &engine);
    if (!info.usable) {
      EXPECT_EQ(st.code(), Status::Code::kUnavailable) << info.name;
      EXPECT_NE(st.message().find(info.reason), std::string::npos) << st.message();
      continue;
    }
    ASSERT_TRUE(st.ok()) << info.name << ": " << st.message();
    EXPECT_EQ(engine->name(), info.name);
  }
}

TEST(PsyncEngine, IsSyncAndNeedsAlignmentOnlyForDirect) {
  std::unique_ptr<Engine> engine;
  EngineOptions opts;
  ASSERT_TRUE(make_engine("psync", opts, &engine).ok());
  EXPECT_TRUE(engine->caps().sync);
  EXPECT_TRUE(engine->caps().moves_data);
  EXPECT_FALSE(engine->caps().needs_aligned_buffers);
  opts.direct = true;
  ASSERT_TRUE(make_engine("psync", opts, &engine).ok());
  EXPECT_TRUE(engine->caps().needs_aligned_buffers);
}

// --- I/O buffers ---

TEST(IoBuffers, AllocatesPageAlignedRoundedBuffersAndMoves) {
  IoBuffers bufs;
  Status st = IoBuffers::allocate(3, 5000, &bufs);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(bufs.count(), 3u);
  EXPECT_EQ(bufs.size(), 8192u);
  for (size_t i = 0; i < bufs.count(); ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(bufs.at(i)) % IoBuffers::kAlignment, 0u);
    EXPECT_EQ(bufs.iovecs()[i].iov_len, 8192u);
    std::memset(bufs.at(i), static_cast<int>(i), bufs.size());  // writable end to end
  }
  void* first = bufs.at(0);
  IoBuffers moved(std::move(bufs));
  EXPECT_EQ(moved.at(0), first);
  EXPECT_EQ(bufs.count(), 0u);  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  IoBuffers assigned;
  ASSERT_TRUE(IoBuffers::allocate(1, 1, &assigned).ok());
  assigned = std::move(moved);  // frees assigned's own mapping first (ASan would see a leak)
  EXPECT_EQ(assigned.at(0), first);
  EXPECT_EQ(static_cast<unsigned char*>(assigned.at(2))[8191], 2);
}

TEST(IoBuffers, RefusesEmptyAndOverflowingRequests) {
  IoBuffers bufs;
  EXPECT_EQ(IoBuffers::allocate(0, 4096, &bufs).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(IoBuffers::allocate(4, 0, &bufs).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(IoBuffers::allocate(SIZE_MAX / 4096, 8192, &bufs).code(), Status::Code::kInvalidArgument);
  EXPECT_FALSE(IoBuffers::allocate(1, SIZE_MAX / 2, &bufs).ok());  // mmap says ENOMEM
}

// --- the null engine's async contract ---

TEST(NullEngine, QueuesToDepthThenBusyAndReapsInOrderWithFullLength) {
  EngineOptions opts;
  opts.queue_depth = 3;
  std::unique_ptr<Engine> engine;
  ASSERT_TRUE(make_engine("null", opts, &engine).ok());
  EXPECT_FALSE(engine->caps().sync);
  EXPECT_FALSE(engine->caps().moves_data);
  int file = -1;
  ASSERT_TRUE(engine->add_file(0, &file).ok());  // never touched: any open fd will do

  IoCompletion c;
  IoRequest req;
  req.file = file;
  for (uint64_t round = 0; round < 2; ++round) {
    for (unsigned i = 0; i < 3; ++i) {
      req.len = 1000 + i;
      req.tag = round * 10 + i;
      ASSERT_EQ(engine->queue(req, &c), QueueResult::kQueued);
    }
    EXPECT_EQ(engine->queue(req, &c), QueueResult::kBusy);
    EXPECT_EQ(engine->in_flight(), 3u);
    ASSERT_TRUE(engine->commit().ok());
    IoCompletion done[2];
    unsigned n = 0;
    ASSERT_TRUE(engine->reap(1, done, &n).ok());  // out holds only 2: the third stays
    ASSERT_EQ(n, 2u);
    EXPECT_EQ(done[0].tag, round * 10);
    EXPECT_EQ(done[0].result, 1000);
    EXPECT_EQ(done[1].tag, round * 10 + 1);
    EXPECT_EQ(engine->in_flight(), 1u);
    ASSERT_TRUE(engine->reap(0, done, &n).ok());
    ASSERT_EQ(n, 1u);
    EXPECT_EQ(done[0].tag, round * 10 + 2);
    EXPECT_EQ(done[0].result, 1002);
    EXPECT_EQ(engine->in_flight(), 0u);
  }
}

}  // namespace
}  // namespace iofab::testing
