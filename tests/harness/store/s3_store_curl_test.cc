// The S3 store and the s3 engine against a real s3rver.
#include <gtest/gtest.h>

#include "harness/engines/engine.h"
#include "harness/s3/s3_ops.h"
#include "harness/store/s3_store.h"
#include "s3rver_fixture.h"
#include "workloads/checkpoint/phase_folder.h"

namespace iofab {
namespace {

using testing::S3rver;

std::shared_ptr<S3Target> target_for(const S3rver& srv) {
  auto t = std::make_shared<S3Target>();
  t->config.endpoint = srv.endpoint();
  t->config.bucket = srv.bucket();
  t->config.backoff_base_ns = 1'000'000;
  t->creds = S3Credentials{testing::kS3rverKeyId, testing::kS3rverSecret, "", "test", ""};
  t->part_size = 5 << 20;
  t->parallel_parts = 2;
  return t;
}

std::unique_ptr<S3Client> client_for(const S3Target& t) {
  std::unique_ptr<S3Client> c;
  EXPECT_TRUE(make_s3_client(t.config, t.creds, &c).ok());
  return c;
}

std::vector<std::string> keys(S3Client& c) {
  std::vector<S3Object> objs;
  EXPECT_TRUE(s3_list(c, "", &objs).ok());
  std::vector<std::string> out;
  for (auto& o : objs) out.push_back(o.key);
  return out;
}

std::string pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 7 + (i >> 10)) & 0xff);
  return s;
}

// Writes data through the engine in blocks, in order, then fsync (the commit) unless told not to.
Status write_through(Engine& e, int file, const std::string& data, uint32_t block, bool commit) {
  for (uint64_t off = 0; off < data.size(); off += block) {
    IoRequest r;
    r.file = file;
    r.op = IoOp::kWrite;
    r.buf = const_cast<char*>(data.data() + off);
    r.len = static_cast<uint32_t>(std::min<uint64_t>(block, data.size() - off));
    r.offset = off;
    IoCompletion c;
    if (e.queue(r, &c) != QueueResult::kCompleted || c.result != r.len) {
      IoCompletion out[1];
      unsigned n = 0;
      Status s = e.reap(1, out, &n);
      return s.ok() ? Status::IoError("write not completed") : s;
    }
  }
  return commit ? e.fsync(file) : Status::Ok();
}

TEST(S3Store, NamespaceLivesUnderItsRootOnly) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto t = target_for(*srv);
  auto c = client_for(*t);
  ASSERT_TRUE(s3_upload(*c, "runs/other/keep", "x", 8 << 20, 1).ok());
  ASSERT_TRUE(s3_upload(*c, "runs/iofab-1x/not-mine", "x", 8 << 20, 1).ok());  // a sibling whose name starts alike
  std::unique_ptr<Store> st;
  ASSERT_TRUE(open_s3_store(t, "runs/iofab-1", &st).ok());
  EXPECT_EQ(st->location(), "s3://iofab-test/runs/iofab-1");
  EXPECT_FALSE(st->caps().folders);
  EXPECT_STREQ(st->caps().engine, "s3");
  uint64_t free = 0;
  Status fs = st->free_space(&free);
  EXPECT_EQ(fs.code(), Status::Code::kUnavailable);
  EXPECT_NE(fs.message().find("no free-space figure"), std::string::npos);

  std::unique_ptr<Engine> e;
  ASSERT_TRUE(make_engine("s3", EngineOptions{}, &e).ok());
  for (const char* p : {"ingest/a", "ingest/b", "top"}) {
    StoreFile f;
    ASSERT_TRUE(st->create(p, OpenOptions{}, &f).ok()) << p;
    int h = -1;
    ASSERT_TRUE(e->add_store_file(f, &h).ok());
    ASSERT_TRUE(write_through(*e, h, "data", 4, true).ok());
  }
  StoreFile again;
  EXPECT_NE(st->create("top", OpenOptions{}, &again).message().find("File exists"), std::string::npos);

  std::vector<std::string> names;
  ASSERT_TRUE(st->list("", &names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"ingest", "top"}));
  ASSERT_TRUE(st->list("ingest", &names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
  EntryInfo info;
  ASSERT_TRUE(st->stat("ingest", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kFolder);
  ASSERT_TRUE(st->stat("ingest/a", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kFile);
  EXPECT_EQ(info.size, 4u);
  ASSERT_TRUE(st->stat("nope", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kMissing);

  e.reset();
  ASSERT_TRUE(st->remove_tree("").ok());
  EXPECT_EQ(keys(*c), (std::vector<std::string>{"runs/iofab-1x/not-mine", "runs/other/keep"}));
}

TEST(S3Engine, MultipartWriteThenParallelRangedReadsBackEveryByte) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto t = target_for(*srv);
  std::unique_ptr<Store> st;
  ASSERT_TRUE(open_s3_store(t, "p/iofab-2", &st).ok());
  const std::string data = pattern((12 << 20) + 777);  // 3 parts of 5 MiB, the last short
  EngineOptions eo;
  eo.queue_depth = 4;
  std::unique_ptr<Engine> e;
  ASSERT_TRUE(make_engine("s3", eo, &e).ok());
  StoreFile f;
  ASSERT_TRUE(st->create("obj", OpenOptions{}, &f).ok());
  int h = -1;
  ASSERT_TRUE(e->add_store_file(f, &h).ok());
  ASSERT_TRUE(write_through(*e, h, data, 1 << 20, true).ok());

  StoreFile rf;
  ASSERT_TRUE(st->open("obj", OpenOptions{}, &rf).ok());
  int rh = -1;
  ASSERT_TRUE(e->add_store_file(rf, &rh).ok());
  std::string back(data.size() + 4096, '\0');
  const uint32_t block = 1 << 20;
  unsigned queued = 0;
  uint64_t got = 0;
  for (uint64_t off = 0; off < back.size(); off += block) {
    IoRequest r;
    r.file = rh;
    r.buf = back.data() + off;
    r.len = static_cast<uint32_t>(std::min<uint64_t>(block, back.size() - off));
    r.offset = off;
    r.tag = off;
    IoCompletion c;
    ASSERT_EQ(e->queue(r, &c), QueueResult::kQueued);
    ++queued;
  }
  EXPECT_EQ(e->in_flight(), queued);
  while (e->in_flight() > 0) {
    IoCompletion out[8];
    unsigned n = 0;
    ASSERT_TRUE(e->reap(1, out, &n).ok());
    for (unsigned i = 0; i < n; ++i) got += static_cast<uint64_t>(out[i].result);
  }
  EXPECT_EQ(got, data.size());  // the last block is short, the one past the end is empty
  back.resize(data.size());
  EXPECT_TRUE(back == data);
}

TEST(S3Engine, AnUploadNotCommittedIsAbortedWhenTheEngineGoes) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto t = target_for(*srv);
  auto c = client_for(*t);
  std::unique_ptr<Store> st;
  ASSERT_TRUE(open_s3_store(t, "p/iofab-3", &st).ok());
  {
    std::unique_ptr<Engine> e;
    ASSERT_TRUE(make_engine("s3", EngineOptions{}, &e).ok());
    StoreFile f;
    ASSERT_TRUE(st->create("half", OpenOptions{}, &f).ok());
    int h = -1;
    ASSERT_TRUE(e->add_store_file(f, &h).ok());
    ASSERT_TRUE(write_through(*e, h, pattern(6 << 20), 1 << 20, false).ok());  // one part sent, no commit
  }
  // No object, and no upload left to complete into one.
  EXPECT_TRUE(keys(*c).empty());
}

TEST(S3Engine, WritesOutOfOrderAreRefused) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto t = target_for(*srv);
  std::unique_ptr<Store> st;
  ASSERT_TRUE(open_s3_store(t, "p/iofab-4", &st).ok());
  std::unique_ptr<Engine> e;
  ASSERT_TRUE(make_engine("s3", EngineOptions{}, &e).ok());
  StoreFile f;
  ASSERT_TRUE(st->create("x", OpenOptions{}, &f).ok());
  int h = -1;
  ASSERT_TRUE(e->add_store_file(f, &h).ok());
  char buf[16] = {};
  IoRequest r;
  r.file = h;
  r.op = IoOp::kWrite;
  r.buf = buf;
  r.len = 16;
  r.offset = 4096;
  IoCompletion c;
  EXPECT_EQ(e->queue(r, &c), QueueResult::kQueued);
  IoCompletion out[1];
  unsigned n = 0;
  Status s = e->reap(1, out, &n);
  EXPECT_NE(s.message().find("an object is written in order"), std::string::npos) << s.message();
}

TEST(S3Engine, DescriptorEnginesRefuseAnObjectAndTheStoreNamesItsEngine) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  std::unique_ptr<Store> st;
  ASSERT_TRUE(open_s3_store(target_for(*srv), "p/iofab-5", &st).ok());
  std::string engine;
  ASSERT_TRUE(engine_for_store(*st, "auto", &engine).ok());
  EXPECT_EQ(engine, "s3");
  Status s = engine_for_store(*st, "psync", &engine);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("expected \"auto\" or \"s3\""), std::string::npos) << s.message();
  std::unique_ptr<Engine> ps;
  ASSERT_TRUE(make_engine("psync", EngineOptions{}, &ps).ok());
  StoreFile f;
  ASSERT_TRUE(st->create("x", OpenOptions{}, &f).ok());
  int h = -1;
  Status a = ps->add_store_file(f, &h);
  EXPECT_NE(a.message().find("is an object-store object"), std::string::npos) << a.message();
}

// On an object store the manifest object, written last, is the commit: a step folder without one is
// no checkpoint (restore never reads it), and the stale-step cleanup deletes just its keys.
TEST(S3Checkpoint, AStepWithoutItsManifestDoesNotExist) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto t = target_for(*srv);
  auto c = client_for(*t);
  for (const char* k : {"r/iofab-6/ck/step-1/shard-0", "r/iofab-6/ck/step-1/manifest.json", "r/iofab-6/ck/step-2/shard-0",
                        "r/iofab-6/ck/step-2/shard-1"}) {
    ASSERT_TRUE(s3_upload(*c, k, "x", 8 << 20, 1).ok()) << k;
  }
  std::unique_ptr<Store> st;
  ASSERT_TRUE(open_s3_store(t, "r/iofab-6", &st).ok());
  StepListing steps;
  ASSERT_TRUE(list_steps(*st, "ck", &steps).ok());
  EXPECT_EQ(steps.committed, std::vector<uint64_t>{1});
  EXPECT_EQ(steps.tmp, std::vector<std::string>{"step-2"});
  uint64_t removed = 0, newest = 0;
  ASSERT_TRUE(remove_stale_steps(*st, "ck", &removed, &newest).ok());
  EXPECT_EQ(removed, 1u);
  EXPECT_EQ(newest, 1u);
  EXPECT_EQ(keys(*c), (std::vector<std::string>{"r/iofab-6/ck/step-1/manifest.json", "r/iofab-6/ck/step-1/shard-0"}));
}

}  // namespace
}  // namespace iofab
