// mmap: the shared conformance suite (engines_test.cc) on tmpfs and the disk, buffered only (it refuses
// O_DIRECT), with and without a madvise hint; what only mmap has: the refusal of direct, a file that grows
// after its first read, every hint reading the same bytes; and the suite params that pick it (madvise on
// read phases, direct refused with it).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/engine_conformance.h"
#include "harness/engines/engine.h"
#include "harness/phase/io_params.h"
#include "harness/phase/params.h"

namespace iofab::testing {
namespace {

std::vector<EngineCase> buffered_cases() {
  std::vector<EngineCase> cases;
  for (const EngineCase& c : engine_matrix("mmap", 4, false)) {
    if (!c.direct) cases.push_back(c);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Mmap, EngineConformance, ::testing::ValuesIn(buffered_cases()), engine_case_name);

TEST(MmapEngine, IsSynchronousAndRefusesDirectNamingTheField) {
  std::unique_ptr<Engine> engine;
  ASSERT_TRUE(make_engine("mmap", EngineOptions{}, &engine).ok());
  EXPECT_EQ(engine->name(), "mmap");
  EXPECT_TRUE(engine->caps().sync);
  EXPECT_TRUE(engine->caps().moves_data);
  EXPECT_FALSE(engine->caps().needs_aligned_buffers);
  EngineOptions direct;
  direct.direct = true;
  engine.reset();
  const Status st = make_engine("mmap", direct, &engine);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("direct: true"), std::string::npos) << st.message();
  EXPECT_EQ(engine, nullptr);
  EXPECT_FALSE(engine_takes_direct("mmap"));
  EXPECT_TRUE(engine_takes_map_advice("mmap"));
  EXPECT_TRUE(engine_takes_direct("psync"));
  EXPECT_TRUE(engine_takes_direct("auto"));
  EXPECT_FALSE(engine_takes_map_advice("psync"));
  EXPECT_FALSE(engine_takes_map_advice("auto"));
}

TEST(MmapEngine, AdviceNamesRoundTrip) {
  ASSERT_EQ(map_advice_names().size(), 5u);
  for (std::string_view name : map_advice_names()) {
    MapAdvice a = MapAdvice::kNone;
    ASSERT_TRUE(parse_map_advice(name, &a)) << name;
    EXPECT_EQ(map_advice_name(a), name);
  }
  EXPECT_FALSE(parse_map_advice("dontneed", nullptr));
  EXPECT_FALSE(parse_map_advice("", nullptr));
}

// A file written by another handle, read through the engine with every hint, then grown and read again:
// the mapping follows the file's size.
class MmapFileTest : public ::testing::TestWithParam<MapAdvice> {
 protected:
  void SetUp() override {
    EngineOptions opts;
    opts.map_advice = GetParam();
    const Status st = make_engine("mmap", opts, &engine_);
    if (st.code() == Status::Code::kUnavailable) GTEST_SKIP() << st.message();
    ASSERT_TRUE(st.ok()) << st.message();
    fd_ = open((dir_.path() + "/data").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd_, 0) << std::strerror(errno);
    ASSERT_TRUE(engine_->add_file(fd_, &file_).ok());
  }
  void TearDown() override {
    engine_.reset();
    if (fd_ >= 0) close(fd_);
  }

  void append(const std::string& bytes) {
    ASSERT_EQ(pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(size_)),
              static_cast<ssize_t>(bytes.size()));
    size_ += bytes.size();
  }

  int64_t read_at(uint64_t offset, uint32_t len, std::string* got) {
    got->assign(len, '\0');
    IoRequest req;
    req.file = file_;
    req.buf = got->data();
    req.len = len;
    req.offset = offset;
    IoCompletion c;
    EXPECT_EQ(engine_->queue(req, &c), QueueResult::kCompleted);
    if (c.result > 0) got->resize(static_cast<size_t>(c.result));
    return c.result;
  }

  TempDir dir_{"/var/tmp"};
  std::unique_ptr<Engine> engine_;
  int fd_ = -1;
  int file_ = -1;
  uint64_t size_ = 0;
};

TEST_P(MmapFileTest, ReadsWhatAnotherHandleWroteAndFollowsTheFileAsItGrows) {
  std::string first(3 * 4096 + 100, 'a');
  for (size_t i = 0; i < first.size(); ++i) first[i] = static_cast<char>('a' + i % 26);
  append(first);
  std::string got;
  EXPECT_EQ(read_at(0, 4096, &got), 4096);
  EXPECT_EQ(got, first.substr(0, 4096));
  EXPECT_EQ(read_at(4000, 8192, &got), 8192);  // across pages, unaligned
  EXPECT_EQ(got, first.substr(4000, 8192));
  EXPECT_EQ(read_at(3 * 4096, 4096, &got), 100);  // the short count at the end
  EXPECT_EQ(got, first.substr(3 * 4096));

  const std::string more(5000, 'z');
  append(more);  // after the first mapping
  EXPECT_EQ(read_at(3 * 4096, 8192, &got), 5100);
  EXPECT_EQ(got, first.substr(3 * 4096) + more);
  EXPECT_EQ(read_at(size_, 10, &got), 0);

  // Unmapped when removed: the index is gone.
  ASSERT_TRUE(engine_->remove_file(file_).ok());
  EXPECT_EQ(read_at(0, 10, &got), -EBADF);
  file_ = -1;
}

TEST_P(MmapFileTest, AnEmptyFileReadsAsItsEnd) {
  std::string got;
  EXPECT_EQ(read_at(0, 4096, &got), 0);
}

INSTANTIATE_TEST_SUITE_P(EveryHint, MmapFileTest,
                         ::testing::Values(MapAdvice::kNone, MapAdvice::kSequential, MapAdvice::kRandom,
                                           MapAdvice::kWillNeed, MapAdvice::kHugePage),
                         [](const ::testing::TestParamInfo<MapAdvice>& hint) {
                           return std::string(map_advice_name(hint.param));
                         });

// --- the params that choose it ---

using nlohmann::json;

TEST(MmapParams, ReadPhasesTakeMadviseWithEngineMmap) {
  const json obj = {{"engine", "mmap"}, {"madvise", "sequential"}};
  ParamReader r(obj, "phases[1]");
  const IoParams p = read_io_params(r, {.reads = true});
  EXPECT_TRUE(r.finish().ok()) << r.finish().message();
  EXPECT_EQ(p.madvise, MapAdvice::kSequential);
  EXPECT_EQ(r.resolved()["madvise"], "sequential");
}

TEST(MmapParams, MadviseDefaultsToNoneAndIsUnknownToAWritingPhase) {
  const json none = {{"engine", "mmap"}};
  ParamReader r(none, "phases[0]");
  EXPECT_EQ(read_io_params(r, {.reads = true}).madvise, MapAdvice::kNone);
  EXPECT_TRUE(r.finish().ok());

  const json writer = {{"engine", "psync"}, {"madvise", "random"}};
  ParamReader w(writer, "phases[0]");
  (void)read_io_params(w, {});
  const Status st = w.finish();
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("phases[0].madvise"), std::string::npos) << st.message();
}

TEST(MmapParams, AnUnknownHintIsRefusedListingTheHints) {
  const json obj = {{"engine", "mmap"}, {"madvise", "dontneed"}};
  ParamReader r(obj, "phases[3]");
  (void)read_io_params(r, {.reads = true});
  ASSERT_EQ(r.errors().size(), 1u);
  EXPECT_EQ(
      r.errors()[0],
      "phases[3].madvise: expected one of \"none\" \"sequential\" \"random\" \"willneed\" \"hugepage\", got "
      "\"dontneed\"");
}

TEST(MmapParams, AHintWithAnEngineThatMapsNothingIsRefused) {
  for (const char* engine : {"psync", "auto"}) {
    const json obj = {{"engine", engine}, {"madvise", "willneed"}};
    ParamReader r(obj, "phases[0]");
    (void)read_io_params(r, {.reads = true});
    ASSERT_EQ(r.errors().size(), 1u) << engine;
    EXPECT_EQ(r.errors()[0].rfind("phases[0].madvise: ", 0), 0u) << r.errors()[0];
    EXPECT_NE(r.errors()[0].find("engine: mmap"), std::string::npos) << r.errors()[0];
  }
}

TEST(MmapParams, DirectWithEngineMmapIsRefusedNamingDirect) {
  const json obj = {{"engine", "mmap"}, {"direct", true}};
  ParamReader r(obj, "phases[2]");
  (void)read_io_params(r, {.reads = true});
  ASSERT_EQ(r.errors().size(), 1u);
  EXPECT_EQ(r.errors()[0].rfind("phases[2].direct: engine mmap ", 0), 0u) << r.errors()[0];
  EXPECT_NE(r.errors()[0].find("set direct: false"), std::string::npos) << r.errors()[0];
}

}  // namespace
}  // namespace iofab::testing
