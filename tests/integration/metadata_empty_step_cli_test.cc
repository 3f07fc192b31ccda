// Issue 42 item 10 through the binary: a latency check on a step that did nothing ("stonewall": "1ns")
// fails with no value, the verdict saying the phase did not measure it (before: "measured 0 s", passed).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

TEST(MetadataEmptyStepCli, ALatencyCheckOnAStepThatDidNothingFailsSayingSo) {
  TempDir dir("/dev/shm");
  TempDir target("/dev/shm");
  const std::string suite = dir.path() + "/suite.json";
  write_file(suite,
             R"({"name": "md-empty", "phases": [{"kind": "metadata", "name": "md", "files_per_rank": 20,
    "stonewall": "1ns", "steps": ["create"],
    "checks": [{"metric": "create_latency_p99_s", "op": "<=", "value": "1s"}]}]})");
  const std::string report = dir.path() + "/report.json";
  const CommandResult r = run_iofab({"run", suite, "--target", target.path(), "--out", report});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto j = nlohmann::json::parse(read_file(report));
  const auto& phase = j["phases"][0];
  EXPECT_FALSE(phase.at("result").at("metrics").contains("create_latency_p99_s")) << phase.at("result").dump();
  EXPECT_TRUE(phase["checks"][0]["value"].is_null()) << phase["checks"][0].dump();
  EXPECT_EQ(phase["checks"][0]["passed"], false);
  EXPECT_TRUE(contains(j["verdict"].dump(), "the phase did not measure create_latency_p99_s"))
      << j["verdict"].dump();
  EXPECT_TRUE(contains(r.out, "measured nothing")) << r.out;
}

}  // namespace
}  // namespace iofab::testing
