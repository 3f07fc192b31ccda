// The small pieces several layers share (issue 44, item 6): join and ends_with (harness/core/text.h), the
// per-worker data seed (harness/core/mix.h), find_phase (harness/results/find_phase.h), and the latency
// metrics every storage phase writes (harness/phase/io_details.h).
#include <gtest/gtest.h>

#include "harness/core/mix.h"
#include "harness/core/text.h"
#include "harness/phase/io_details.h"
#include "harness/results/find_phase.h"

namespace iofab {
namespace {

TEST(SharedHelpers, JoinAndEndsWith) {
  EXPECT_EQ(join({}, ", "), "");
  EXPECT_EQ(join({"a"}, ", "), "a");
  EXPECT_EQ(join({"a", "b", "c"}, "\n"), "a\nb\nc");
  EXPECT_TRUE(ends_with("report.json", ".json"));
  EXPECT_FALSE(ends_with("json", ".json"));
}

// The seed is what ingest's files and the checkpoint's shards hold: it must never change.
TEST(SharedHelpers, TheWorkerDataSeedIsPinned) {
  EXPECT_EQ(worker_data_seed(0, 0, 0), 17u);
  EXPECT_EQ(worker_data_seed(42, 3, 5), 42u * 1000003u + 3u * 4099u + 5u + 17u);
  EXPECT_NE(worker_data_seed(1, 0, 1), worker_data_seed(1, 1, 0));
}

TEST(SharedHelpers, FindPhaseByName) {
  Report r;
  r.phases.resize(2);
  r.phases[0].name = "ingest";
  r.phases[1].name = "checkpoint";
  EXPECT_EQ(find_phase(r, "checkpoint"), &r.phases[1]);
  EXPECT_EQ(find_phase(r, "restore"), nullptr);
}

TEST(SharedHelpers, LatencyMetricsShortAndFull) {
  Histogram h;
  for (uint64_t ns = 1; ns <= 1000; ++ns) h.record(ns * 1000);
  std::map<std::string, double> m;
  put_latency_metrics(h, "create_latency_", LatencyMetrics::kShort, &m);
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.count("create_latency_p90_s"), 0u);
  EXPECT_DOUBLE_EQ(m.at("create_latency_max_s"), static_cast<double>(h.max()) * 1e-9);
  EXPECT_DOUBLE_EQ(m.at("create_latency_p50_s"), static_cast<double>(h.percentile(0.5)) * 1e-9);
  m.clear();
  put_latency_metrics(h, "latency_", LatencyMetrics::kFull, &m);
  EXPECT_EQ(m.size(), 5u);
  EXPECT_DOUBLE_EQ(m.at("latency_p999_s"), static_cast<double>(h.percentile(0.999)) * 1e-9);
  EXPECT_LT(m.at("latency_p50_s"), m.at("latency_p99_s"));
}

}  // namespace
}  // namespace iofab
