// Issue 42 item 10: a metadata step that did no operations (a stonewall shorter than the first create)
// measured no rate and no latency: those figures are left out with a warning naming the step, never
// reported as 0 s, and a check on them fails saying the phase did not measure them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "workloads/phase_harness.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

bool has_warning(const PhaseResult& r, const std::string& part) {
  for (const std::string& w : r.warnings)
    if (contains(w, part)) return true;
  return false;
}

TEST(MetadataEmptyStep, AStepWithNoOperationsHasNoRateOrLatencyAndAWarning) {
  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("metadata", "md",
                   {{"files_per_rank", 50}, {"stonewall", "1ns"}, {"steps", {"create", "stat"}}}, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(r.metrics.at("files"), 0);  // the stonewall fired before the first create
  for (const char* step : {"create", "stat"}) {
    const std::string n(step);
    EXPECT_EQ(r.metrics.at(n + "_ops"), 0) << step;  // a count of nothing is measured: 0
    for (const char* figure : {"_ops_per_s", "_latency_p50_s", "_latency_p99_s", "_latency_max_s"})
      EXPECT_EQ(r.metrics.count(n + figure), 0u) << n + figure << " reported for a step that did nothing";
  }
  EXPECT_EQ(r.metrics.count("stonewall_ops_per_s"), 0u);
  EXPECT_TRUE(has_warning(r, "create, stat: no operations")) << (r.warnings.empty() ? "" : r.warnings[0]);
  EXPECT_TRUE(list_files(h.path()).empty());
}

TEST(MetadataEmptyStep, AStepThatDidWorkKeepsEveryFigure) {
  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("metadata", "md", {{"files_per_rank", 5}, {"steps", {"create"}}}, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.metrics.count("create_latency_p99_s"), 1u);
  EXPECT_EQ(r.metrics.count("create_ops_per_s"), 1u);
  EXPECT_FALSE(has_warning(r, "no operations"));
}

}  // namespace
}  // namespace iofab::testing
