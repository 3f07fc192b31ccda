// Repeated runs folded into one report: statistics, means, checks on the
// means, phase status across runs, every run recorded.
#include "reports/repeat_stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace iofab {
namespace {

using nlohmann::json;

Report one_run(const std::string& id, double bw, PhaseStatus status = PhaseStatus::kPassed,
               const std::string& reason = "") {
  Report r;
  r.run = {{"id", id}, {"start_time", "2024-05-01T12:00:00Z"}, {"duration_s", 2.0}};
  PhaseReport p;
  p.name = "ingest";
  p.kind = "ingest";
  p.status = status;
  p.reason = reason;
  p.seconds = 1.0;
  if (status == PhaseStatus::kPassed) p.metrics = {{"write_bytes_per_s", bw}, {"write_bytes", 4096}};
  p.details = {{"units", {{"write_bytes_per_s", "bytes/s"}}}, {"run", id}};
  CheckResult c;
  c.name = "bw";
  c.metric = "write_bytes_per_s";
  c.op = ">=";
  c.threshold = 1.0e9;
  c.has_value = status == PhaseStatus::kPassed;
  c.value = c.has_value ? bw : 0;
  c.passed = c.has_value && bw >= 1.0e9;
  p.checks.push_back(c);
  r.phases.push_back(p);
  finalize_verdict(&r);
  return r;
}

TEST(RepeatStats, SampleStatistics) {
  const MetricStats s = compute_stats({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_NEAR(s.stdev, std::sqrt(32.0 / 7), 1e-12);  // n - 1
  EXPECT_NEAR(s.cv, std::sqrt(32.0 / 7) / 5, 1e-12);
  EXPECT_EQ(s.min, 2);
  EXPECT_EQ(s.max, 9);
  const MetricStats one = compute_stats({3});
  EXPECT_EQ(one.stdev, 0);
  EXPECT_EQ(one.cv, 0);
  EXPECT_EQ(compute_stats({0, 0}).cv, 0);  // no division by a zero mean
}

TEST(RepeatStats, MeansChecksOnMeansAndEveryRun) {
  // 0.9 and 1.3 GB/s: the first run alone fails the check, the mean (1.1) passes it.
  const std::vector<Report> runs = {one_run("r1", 0.9e9), one_run("r2", 1.3e9)};
  const Report warm = one_run("w", 0.1e9);
  Report r = aggregate_repeats(runs, &warm, 2);
  ASSERT_EQ(r.phases.size(), 1u);
  const PhaseReport& p = r.phases[0];
  EXPECT_DOUBLE_EQ(p.metrics["write_bytes_per_s"].get<double>(), 1.1e9);
  EXPECT_TRUE(p.checks[0].passed);
  EXPECT_DOUBLE_EQ(p.checks[0].value, 1.1e9);
  EXPECT_EQ(r.verdict, "passed");
  auto s = repeat_stats_of(p, "write_bytes_per_s");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->n, 2u);
  EXPECT_EQ(s->values, (std::vector<double>{0.9e9, 1.3e9}));
  EXPECT_EQ(p.details["run"], "r2");  // the other details are the last run's
  EXPECT_EQ(r.run["id"], "r1");
  EXPECT_DOUBLE_EQ(r.run["duration_s"].get<double>(), 4.0);
  EXPECT_EQ(r.run["repeat"]["warmup"]["id"], "w");
  ASSERT_EQ(r.run["repeat"]["runs"].size(), 2u);
  EXPECT_EQ(r.run["repeat"]["runs"][0]["phases"][0]["checks"][0]["passed"], false);
  EXPECT_EQ(r.run["repeat"]["runs"][1]["verdict"], "passed");
}

TEST(RepeatStats, AnErrorInAnyRunMakesThePhaseError) {
  const std::vector<Report> runs = {one_run("r1", 1.2e9), one_run("r2", 0, PhaseStatus::kError, "EIO"),
                                    one_run("r3", 1.4e9)};
  Report r = aggregate_repeats(runs, nullptr, 3);
  const PhaseReport& p = r.phases[0];
  EXPECT_EQ(p.status, PhaseStatus::kError);
  EXPECT_EQ(p.reason, "run 2: EIO");
  // Means over the runs that produced the metric. As for a single errored run, the check carries
  // what was measured and fails: a phase that did not pass never passes a check.
  EXPECT_DOUBLE_EQ(p.metrics["write_bytes_per_s"].get<double>(), 1.3e9);
  EXPECT_EQ(repeat_stats_of(p, "write_bytes_per_s")->n, 2u);
  EXPECT_TRUE(p.checks[0].has_value);
  EXPECT_DOUBLE_EQ(p.checks[0].value, 1.3e9);
  EXPECT_FALSE(p.checks[0].passed);
  EXPECT_EQ(r.verdict, "error");
  EXPECT_TRUE(r.run["repeat"]["warmup"].is_null());
}

}  // namespace
}  // namespace iofab
