// The loader's timeline split by a group's windows, on timelines whose split is worked out by hand.
#include "workloads/train_read/train_windows.h"

#include <gtest/gtest.h>

#include "harness/comm/wire.h"

namespace iofab {
namespace {

// One epoch active over [0, 100); compute [0, 40) and [50, 100); samples ending at 15, 35, 55 and 90.
LoaderMarks sample_marks() {
  LoaderMarks m;
  m.active = {{0, 100}};
  m.busy = {{0, 40}, {50, 100}};
  m.add_sample(15, 1000);
  m.add_sample(35, 2000);
  m.add_sample(55, 3000);
  m.add_sample(90, 4000);
  return m;
}

TEST(TrainWindows, SplitsActiveAndComputeTimeAndSamplesByWindowKind) {
  // A burst over [10, 20) and a drain over [30, 60).
  const WindowSplit s =
      split_by_windows(sample_marks(), {{"burst", 10, 20}, {"drain", 30, 60}}, true);
  ASSERT_TRUE(s.present);
  EXPECT_EQ(s.windows.at("burst"), 1u);
  EXPECT_EQ(s.windows.at("drain"), 1u);
  const WindowClass& burst = s.classes.at("burst");
  EXPECT_EQ(burst.active_ns, 10u);
  EXPECT_EQ(burst.busy_ns, 10u);
  EXPECT_EQ(burst.latency.count(), 1u);  // the sample that ended at 15
  const WindowClass& drain = s.classes.at("drain");
  EXPECT_EQ(drain.active_ns, 30u);
  EXPECT_EQ(drain.busy_ns, 20u);  // [30, 40) and [50, 60): idle over [40, 50)
  EXPECT_EQ(drain.latency.count(), 2u);  // 35 and 55
  const WindowClass& outside = s.classes.at("outside");
  EXPECT_EQ(outside.active_ns, 60u);
  EXPECT_EQ(outside.busy_ns, 60u);
  EXPECT_EQ(outside.latency.count(), 1u);  // 90
  EXPECT_EQ(outside.latency.max(), 4000u);
}

TEST(TrainWindows, ReportsAuAndLatencyPerClassAsMetrics) {
  WindowSplit s = split_by_windows(sample_marks(), {{"burst", 10, 20}, {"drain", 30, 60}}, true);
  PhaseResult r;
  report_window_split(s, &r);
  EXPECT_DOUBLE_EQ(r.metrics.at("au_during_burst"), 1.0);
  EXPECT_NEAR(r.metrics.at("au_during_drain"), 20.0 / 30.0, 1e-12);
  EXPECT_DOUBLE_EQ(r.metrics.at("au_outside"), 1.0);
  EXPECT_NEAR(r.metrics.at("sample_latency_p99_outside_s"), 4000e-9, 4000e-9 * 0.01);
  EXPECT_EQ(r.details["windows"]["count"]["drain"], 1);
  EXPECT_EQ(r.details["windows"]["classes"]["drain"]["samples"], 2);
  EXPECT_TRUE(r.warnings.empty());
  // Every metric it sets is in the table the suite's checks are validated against.
  for (const auto& [name, v] : r.metrics) {
    bool listed = false;
    for (const auto& m : window_metric_infos()) listed = listed || m.name == name;
    EXPECT_TRUE(listed) << name;
  }
}

TEST(TrainWindows, OverlappingWindowsOfAKindCountOnceAndOutsideIsTheRest) {
  LoaderMarks m;
  m.active = {{0, 100}};
  m.busy = {{0, 100}};
  const WindowSplit s = split_by_windows(m, {{"drain", 10, 50}, {"drain", 30, 70}}, true);
  EXPECT_EQ(s.windows.at("drain"), 2u);
  EXPECT_EQ(s.classes.at("drain").active_ns, 60u);
  EXPECT_EQ(s.classes.at("outside").active_ns, 40u);
}

TEST(TrainWindows, NoWindowsLeavesEverythingOutsideAndSetsNoDuringMetric) {
  const WindowSplit s = split_by_windows(sample_marks(), {}, true);
  PhaseResult r;
  report_window_split(s, &r);
  EXPECT_EQ(r.metrics.count("au_during_drain"), 0u);
  EXPECT_NEAR(r.metrics.at("au_outside"), 0.9, 1e-12);
  EXPECT_EQ(s.classes.at("outside").latency.count(), 4u);
}

TEST(TrainWindows, RanksMergeBySummingAndSurviveTheWire) {
  const WindowSplit a = split_by_windows(sample_marks(), {{"drain", 30, 60}}, true);
  WindowSplit b = split_by_windows(sample_marks(), {{"drain", 30, 60}}, false);
  WindowSplit back;
  ASSERT_TRUE(from_wire(to_wire(b), &back).ok());
  EXPECT_FALSE(back.complete);
  EXPECT_EQ(back.classes.at("drain").busy_ns, 20u);
  WindowSplit merged;
  merged.merge(a);
  merged.merge(back);
  EXPECT_TRUE(merged.present);
  EXPECT_FALSE(merged.complete);
  EXPECT_EQ(merged.windows.at("drain"), 2u);
  EXPECT_EQ(merged.classes.at("drain").active_ns, 60u);
  EXPECT_EQ(merged.classes.at("drain").latency.count(), 4u);
  PhaseResult r;
  report_window_split(merged, &r);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("stopped before"), std::string::npos);
  EXPECT_FALSE(from_wire(nlohmann::json{{"present", true}}, &back).ok());
}

TEST(TrainWindows, SamplesPastTheCapAreCountedNotKept) {
  LoaderMarks m;
  m.samples.resize(LoaderMarks::kMaxSamples);
  m.add_sample(1, 1);
  m.add_sample(2, 2);
  EXPECT_EQ(m.samples.size(), LoaderMarks::kMaxSamples);
  EXPECT_EQ(m.dropped_samples, 2u);
}

TEST(TrainWindows, APhaseThatRanAloneReportsNothing) {
  PhaseResult r;
  report_window_split(WindowSplit{}, &r);
  EXPECT_TRUE(r.metrics.empty());
  EXPECT_FALSE(r.details.contains("windows"));
}

}  // namespace
}  // namespace iofab
