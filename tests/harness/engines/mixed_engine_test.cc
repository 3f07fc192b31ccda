// MixedEngine: objects go to the object engine (here an async in-memory fake
// that takes objects), descriptors to psync; one engine for the caller, each
// file's I/O reaching the engine of its kind, and an asynchronous descriptor
// engine refused.
#include "harness/engines/mixed_engine.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

#include "harness/fake_engine.h"
#include "harness/forwarding_engine.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

// An object store's engine for the test: FakeEngine's files, handed in as objects.
class ObjectEngine final : public ForwardingEngine {
 public:
  ObjectEngine() : ForwardingEngine(std::make_unique<FakeEngine>(8, FakeEngine::Faults{})) {}
  Status add_store_file(const StoreFile& f, int* index) override {
    if (f.object() == nullptr) return Status::Invalid("objects only");
    ++objects;
    return inner_->add_file(-1, index);
  }
  int objects = 0;
};

class TestObject final : public FileObject {};

// Runs one I/O to its end through e (queued or completed at once); the bytes moved.
int64_t one_io(Engine& e, IoRequest req) {
  IoCompletion c;
  if (e.queue(req, &c) == QueueResult::kCompleted) return c.result;
  EXPECT_TRUE(e.commit().ok());
  EXPECT_EQ(e.in_flight(), 1u);
  unsigned n = 0;
  EXPECT_TRUE(e.reap(1, std::span<IoCompletion>(&c, 1), &n).ok());
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(c.tag, req.tag);
  return c.result;
}

TEST(MixedEngine, EachFileReachesTheEngineOfItsKind) {
  auto objects = std::make_unique<ObjectEngine>();
  ObjectEngine* seen = objects.get();
  std::unique_ptr<Engine> psync, mixed;
  ASSERT_TRUE(make_engine("psync", EngineOptions{}, &psync).ok());
  ASSERT_TRUE(make_mixed_engine(std::move(objects), std::move(psync), &mixed).ok());
  EXPECT_EQ(mixed->name(), "fake+psync");
  EXPECT_FALSE(mixed->caps().sync);

  TempDir dir("/dev/shm");
  const std::string path = dir.path() + "/local";
  write_file(path, "local bytes");
  StoreFile local(::open(path.c_str(), O_RDWR | O_CLOEXEC), "local");
  ASSERT_TRUE(local.is_open());
  StoreFile object(std::make_shared<TestObject>(), "object");
  int hl = -1, ho = -1;
  ASSERT_TRUE(mixed->add_store_file(local, &hl).ok());
  ASSERT_TRUE(mixed->add_store_file(object, &ho).ok());
  EXPECT_NE(hl, ho);
  EXPECT_EQ(seen->objects, 1);

  // The object: written and read back through the async engine (queued, then reaped).
  char out[] = "object bytes";
  char in[sizeof out] = {};
  EXPECT_EQ(one_io(*mixed, {ho, IoOp::kWrite, out, sizeof out, 0, -1, 7}), static_cast<int64_t>(sizeof out));
  EXPECT_EQ(one_io(*mixed, {ho, IoOp::kRead, in, sizeof in, 0, -1, 8}), static_cast<int64_t>(sizeof in));
  EXPECT_STREQ(in, "object bytes");
  // The descriptor: read by psync at once, from the file itself.
  char file_in[11] = {};
  IoCompletion c;
  EXPECT_EQ(mixed->queue({hl, IoOp::kRead, file_in, sizeof file_in, 0, -1, 9}, &c), QueueResult::kCompleted);
  EXPECT_EQ(c.result, 11);
  EXPECT_EQ(c.tag, 9u);
  EXPECT_EQ(std::string(file_in, 11), "local bytes");
  EXPECT_TRUE(mixed->fsync(hl).ok());

  // A removed file's index answers EBADF, and is given to the next file.
  ASSERT_TRUE(mixed->remove_file(hl).ok());
  EXPECT_EQ(mixed->queue({hl, IoOp::kRead, file_in, 1, 0, -1, 10}, &c), QueueResult::kCompleted);
  EXPECT_EQ(c.result, -EBADF);
  EXPECT_FALSE(mixed->remove_file(hl).ok());
  int again = -1;
  ASSERT_TRUE(mixed->add_store_file(local, &again).ok());
  EXPECT_EQ(again, hl);
}

TEST(MixedEngine, RefusesAnAsynchronousDescriptorEngine) {
  std::unique_ptr<Engine> mixed;
  Status s = make_mixed_engine(std::make_unique<ObjectEngine>(),
                               std::make_unique<FakeEngine>(4, FakeEngine::Faults{}), &mixed);
  EXPECT_EQ(s.code(), Status::Code::kInternal);
  EXPECT_NE(s.message().find("fake is asynchronous"), std::string::npos) << s.message();
  EXPECT_EQ(mixed, nullptr);
}

}  // namespace
}  // namespace iofab::testing
