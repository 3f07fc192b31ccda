// The memory object store (tests/harness/mem_object_store/): the Store contract through the Store and
// Engine interfaces (store_conformance_test.cc's TEST_Ps, on its own engine "mem"), what makes it an object
// store and not a folder (an object exists from its commit on, written in order, no rename, no lock), and
// that iofab itself knows neither its engine nor its kind of target.
#include "harness/mem_object_store/mem_object_store.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "harness/engines/engine.h"
#include "harness/mem_object_store/mem_object_engine.h"
#include "harness/mem_object_store/mem_target.h"
#include "harness/store_conformance.h"

namespace iofab::testing {
namespace {

// The store with its engine added for as long as the test holds it (StoreUnderTest::keep).
Status open_mem_for(const std::string& test, StoreUnderTest* out, std::string* /*skip*/) {
  out->keep = std::make_shared<mem::MemEngineAdded>();
  mem::forget_mem_buckets();
  return mem::open_mem_object_store(mem::mem_bucket("conformance"), "runs/" + test, &out->store);
}

INSTANTIATE_TEST_SUITE_P(MemObjectStore, StoreConformance, ::testing::Values(StoreParam{"mem", open_mem_for}),
                         [](const ::testing::TestParamInfo<StoreParam>& p) { return p.param.name; });

class MemObjectStore : public ::testing::Test {
 protected:
  void SetUp() override {
    mem::forget_mem_buckets();
    ASSERT_TRUE(mem::open_mem_object_store(mem::mem_bucket("b"), "runs/r", &store_).ok());
    ASSERT_TRUE(make_engine("mem", EngineOptions{}, &engine_).ok());
  }
  // A write of text at offset to file index h; the completion's result.
  int64_t write(int h, const std::string& text, uint64_t offset) {
    std::string copy = text;
    IoCompletion c;
    const IoRequest req{.file = h,
                        .op = IoOp::kWrite,
                        .buf = copy.data(),
                        .len = static_cast<uint32_t>(copy.size()),
                        .offset = offset};
    EXPECT_EQ(engine_->queue(req, &c), QueueResult::kCompleted) << "a synchronous engine";
    return c.result;
  }
  EntryKind kind_of(const std::string& path) {
    EntryInfo info;
    EXPECT_TRUE(store_->stat(path, &info).ok());
    return info.kind;
  }

  mem::MemEngineAdded added_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(MemObjectStore, AnObjectExistsOnlyFromItsCommitAndWhole) {
  StoreFile f;
  ASSERT_TRUE(store_->create("d/a", {}, &f).ok());
  int h = -1;
  ASSERT_TRUE(engine_->add_store_file(f, &h).ok());
  EXPECT_EQ(write(h, "hello ", 0), 6);
  EXPECT_EQ(write(h, "world", 6), 5);
  // Written, not committed: no listing, stat or open sees it, and the bucket holds nothing.
  EXPECT_EQ(kind_of("d/a"), EntryKind::kMissing);
  EXPECT_EQ(kind_of("d"), EntryKind::kMissing) << "a prefix exists once an object is below it";
  StoreFile r;
  EXPECT_FALSE(store_->open("d/a", {}, &r).ok());
  EXPECT_EQ(mem::mem_bucket("b")->puts(), 0u);
  ASSERT_TRUE(engine_->fsync(h).ok());
  EXPECT_EQ(kind_of("d/a"), EntryKind::kFile);
  EXPECT_EQ(kind_of("d"), EntryKind::kFolder);
  const mem::MemObject o = mem::mem_bucket("b")->get("runs/r/d/a");
  ASSERT_NE(o.bytes, nullptr);
  EXPECT_EQ(*o.bytes, "hello world");
  EXPECT_EQ(mem::mem_bucket("b")->puts(), 1u) << "one put a commit";
  EXPECT_EQ(write(h, "!", 11), -EBADF) << "a committed object takes no more writes";
}

TEST_F(MemObjectStore, WritesComeInOrderAndAnUncommittedUploadLeavesNothing) {
  StoreFile f;
  ASSERT_TRUE(store_->create("a", {}, &f).ok());
  int h = -1;
  ASSERT_TRUE(engine_->add_store_file(f, &h).ok());
  EXPECT_EQ(write(h, "abc", 0), 3);
  EXPECT_EQ(write(h, "x", 5), -EINVAL) << "an object has no offsets to write at";
  ASSERT_TRUE(engine_->remove_file(h).ok());
  engine_.reset();
  EXPECT_EQ(kind_of("a"), EntryKind::kMissing);
  EXPECT_TRUE(mem::mem_bucket("b")->list("").empty());
}

TEST_F(MemObjectStore, ItsCapsSayObjectStoreAndOnlyItsOwnEngineReachesIt) {
  const StoreCaps c = store_->caps();
  EXPECT_FALSE(c.folders);
  EXPECT_FALSE(c.atomic_commit);
  EXPECT_FALSE(c.locks);
  EXPECT_FALSE(c.free_space);
  EXPECT_TRUE(c.commit_per_file);
  EXPECT_STREQ(c.engine, "mem");
  std::string name;
  ASSERT_TRUE(engine_for_store(*store_, "auto", &name).ok());
  EXPECT_EQ(name, "mem");
  const Status psync = engine_for_store(*store_, "psync", &name);
  EXPECT_EQ(psync.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(psync.message().find("expected \"auto\" or \"mem\""), std::string::npos) << psync.message();
  // A descriptor engine given one of its objects refuses it, naming it.
  StoreFile f;
  ASSERT_TRUE(store_->create("a", {}, &f).ok());
  std::unique_ptr<Engine> ps;
  ASSERT_TRUE(make_engine("psync", EngineOptions{}, &ps).ok());
  int h = -1;
  EXPECT_NE(ps->add_store_file(f, &h).message().find("object-store object"), std::string::npos);
}

// Test-only: without a test adding them, iofab has no "mem" engine and no mem:// kind (such a target string
// is a folder's name, as it always was).
TEST(MemObjectStoreIsTestOnly, IofabItselfKnowsNeitherItsEngineNorItsKind) {
  EXPECT_FALSE(is_engine_name("mem"));
  std::unique_ptr<Engine> e;
  EXPECT_EQ(make_engine("mem", EngineOptions{}, &e).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(run_target_kind("mem://bench/runs").name, "folder");
  {
    mem::MemEngineAdded added;
    EXPECT_TRUE(is_engine_name("mem"));
    EXPECT_EQ(run_target_kind("mem://bench/runs", mem::kinds_with_mem()).name, "mem");
    EXPECT_EQ(run_target_kind("/var/tmp/x", mem::kinds_with_mem()).name, "folder");
  }
  EXPECT_FALSE(is_engine_name("mem")) << "gone with its handle";
}

}  // namespace
}  // namespace iofab::testing
