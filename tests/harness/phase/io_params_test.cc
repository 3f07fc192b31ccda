// The one reader of a storage phase's I/O params: engine names come from the
// engine table, and every message is the one the phase parsers gave before.
#include "harness/phase/io_params.h"

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "harness/engines/engine.h"
#include "harness/phase/params.h"
#include "driver/suite/suite.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(IoParams, AbsentParamsGiveTheDefaultsAndTheFormsQueueDepth) {
  const json obj = json::object();
  ParamReader r(obj, "phases[0]");
  const IoParams p = read_io_params(r, {.queue_depth = 16});
  EXPECT_EQ(p.engine, "auto");
  EXPECT_FALSE(p.direct);
  EXPECT_EQ(p.workers, 1u);
  EXPECT_EQ(p.block_size, 1u << 20);
  EXPECT_EQ(p.queue_depth, 16u);
  EXPECT_EQ(p.series_interval_ns, 100'000'000u);
  EXPECT_TRUE(r.finish().ok());
  for (const char* k : {"engine", "direct", "workers", "block_size", "queue_depth", "series_interval"}) {
    EXPECT_TRUE(r.resolved().contains(k)) << k;
  }
}

TEST(IoParams, EveryEngineInTheTableAndAutoAreAccepted) {
  std::vector<std::string> names = {"auto"};
  for (const EngineInfo& e : list_engines()) names.push_back(e.name);
  for (const std::string& name : names) {
    const json obj = {{"engine", name}};
    ParamReader r(obj, "phases[0]");
    EXPECT_EQ(read_io_params(r, {}).engine, name);
    EXPECT_TRUE(r.finish().ok()) << name;
    EXPECT_EQ(r.resolved()["engine"], json(name));
  }
}

TEST(IoParams, AnUnknownEngineIsRefusedNamingTheFieldAndListingTheEngines) {
  const json obj = {{"engine", "xfs"}};
  ParamReader r(obj, "phases[2]");
  EXPECT_EQ(read_io_params(r, {}).engine, "auto");
  ASSERT_EQ(r.errors().size(), 1u);
  std::string expected = "phases[2].engine: expected one of \"auto\"";
  for (const EngineInfo& e : list_engines()) expected += " \"" + e.name + "\"";
  EXPECT_EQ(r.errors()[0], expected + ", got \"xfs\"");
  EXPECT_EQ(r.finish().code(), Status::Code::kInvalidArgument);
}

TEST(IoParams, AnEngineThatIsNotAStringIsRefusedLikeAnUnknownName) {
  const json obj = {{"engine", 3}};
  ParamReader r(obj, "phases[0]");
  read_io_params(r, {});
  ASSERT_EQ(r.errors().size(), 1u);
  EXPECT_EQ(r.errors()[0].rfind("phases[0].engine: expected one of \"auto\" \"psync\"", 0), 0u)
      << r.errors()[0];
  EXPECT_NE(r.errors()[0].find(", got 3"), std::string::npos) << r.errors()[0];
}

TEST(IoParams, AFormWithoutBlockSizeLeavesBlockSizeAnUnknownParameter) {
  const json obj = {{"block_size", "1MiB"}, {"queue_depth", 4}};
  ParamReader r(obj, "phases[0]");
  const IoParams p = read_io_params(r, {.queue_depth = 8, .has_block_size = false});
  EXPECT_EQ(p.block_size, 0u);
  EXPECT_EQ(p.queue_depth, 4u);
  Status st = r.finish();
  EXPECT_NE(st.message().find("phases[0].block_size: unknown parameter"), std::string::npos) << st.message();
}

TEST(IoParams, DirectNeedsABlockSizeAlignedTo4KiB) {
  const json obj = {{"direct", true}, {"block_size", "6000"}};
  ParamReader r(obj, "phases[0]");
  read_io_params(r, {});
  ASSERT_EQ(r.errors().size(), 1u);
  EXPECT_EQ(r.errors()[0],
            "phases[0].block_size: must be a multiple of 4KiB when direct is true (O_DIRECT alignment)");
  const json buffered = {{"direct", false}, {"block_size", "6000"}};
  ParamReader b(buffered, "phases[0]");
  EXPECT_EQ(read_io_params(b, {}).block_size, 6000u);
  EXPECT_TRUE(b.errors().empty());
}

TEST(IoParams, OutOfRangeValuesKeepTheirMessages) {
  const json obj = {{"workers", 0}, {"queue_depth", 5000}, {"block_size", 100}, {"series_interval", "2h"}};
  ParamReader r(obj, "phases[0]");
  read_io_params(r, {});
  ASSERT_EQ(r.errors().size(), 4u);
  EXPECT_EQ(r.errors()[0], "phases[0].workers: expected an integer in [1, 1024], got 0");
  EXPECT_EQ(r.errors()[1].rfind("phases[0].block_size: expected a size from 512 to 268435456 bytes", 0), 0u)
      << r.errors()[1];
  EXPECT_EQ(r.errors()[2], "phases[0].queue_depth: expected an integer in [1, 4096], got 5000");
  EXPECT_EQ(r.errors()[3],
            "phases[0].series_interval: expected a duration in [0.001, 3600] seconds, got \"2h\"");
}

// The phases that read their I/O params with it give today's message for an unknown engine, and a suite
// that has one is refused (exit 2) before anything runs.
TEST(IoParams, IngestAndTrainReadRefuseAnUnknownEngineInTheSuite) {
  for (const char* kind : {"ingest", "train_read"}) {
    Suite s;
    const std::string text = std::string(R"({"phases": [{"kind": ")") + kind + R"(", "engine": "xfs"}]})";
    Status st = parse_suite(text, "test.json", {}, &s);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << kind;
    EXPECT_NE(
        st.message().find(
            R"(phases[0].engine: expected one of "auto" "psync" "io_uring" "cufile" "s3" "mmap" "null", got "xfs")"),
        std::string::npos)
        << kind << ": " << st.message();
  }
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "train_read", "engine": "spdk"}]})");
  CommandResult r = run_iofab({"validate", dir.path() + "/s.json"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("phases[0].engine: expected one of"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace iofab::testing
