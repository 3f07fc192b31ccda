// MLPerf Storage's run rules on a repeated run (mlcommons/storage Rules.md 2.1.17, 2.1.18, 3.4.2/4.4.2,
// 4.7.1): the arithmetic on hand-made series, then `iofab run --repeat` of an mlperf-* suite.
#include "driver/runner/mlperf_run_rules.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

const MlperfRunRule* find_rule(const std::vector<MlperfRunRule>& rules, const std::string& name) {
  for (const MlperfRunRule& r : rules) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

// A warm-up and five runs of 100 s, each 10 s after the last: every rule met.
RepeatSeries six_runs(double gap_s) {
  RepeatSeries s;
  s.warmup = true;
  s.logs_apart = true;
  for (int k = 0; k < 6; ++k) s.runs.push_back({k * (100 + gap_s), k * (100 + gap_s) + 100});
  return s;
}

TEST(MlperfRunRules, AWarmUpAndFiveCloseRunsPass) {
  const std::vector<MlperfRunRule> rules = mlperf_run_rules(six_runs(10));
  ASSERT_EQ(rules.size(), 3u);  // no checkpoint read back: no write-to-read rule
  for (const MlperfRunRule& r : rules) EXPECT_TRUE(r.passed) << r.name;
  EXPECT_EQ(find_rule(rules, "runTimestamps")->measured, 5);
  EXPECT_DOUBLE_EQ(find_rule(rules, "runTimestampGap")->measured, 0.1);  // 10 s after a 100 s run
}

TEST(MlperfRunRules, AGapAsLongAsARunFails) {
  // 100 s runs 100 s apart: the rule wants the gap shorter than the run (gap / run < 1).
  const MlperfRunRule* gap = nullptr;
  const std::vector<MlperfRunRule> rules = mlperf_run_rules(six_runs(100));
  gap = find_rule(rules, "runTimestampGap");
  ASSERT_NE(gap, nullptr);
  EXPECT_FALSE(gap->passed);
  EXPECT_DOUBLE_EQ(gap->measured, 1.0);
}

TEST(MlperfRunRules, FewerRunsNoWarmUpAndSharedFilesystemFail) {
  RepeatSeries s = six_runs(0);
  s.warmup = false;  // six measured runs, but no warm-up
  s.logs_apart = false;
  std::vector<MlperfRunRule> rules = mlperf_run_rules(s);
  EXPECT_FALSE(find_rule(rules, "runTimestamps")->passed);
  EXPECT_EQ(find_rule(rules, "runTimestamps")->measured, 6);
  EXPECT_FALSE(find_rule(rules, "mlpstorageFilesystemCheck")->passed);
  s = six_runs(0);
  s.runs.resize(5);      // a warm-up and only four runs
  s.logs_apart.reset();  // unknown is not proof
  rules = mlperf_run_rules(s);
  EXPECT_FALSE(find_rule(rules, "runTimestamps")->passed);
  EXPECT_EQ(find_rule(rules, "runTimestamps")->measured, 4);
  EXPECT_FALSE(find_rule(rules, "mlpstorageFilesystemCheck")->passed);
  EXPECT_EQ(find_rule(rules, "mlpstorageFilesystemCheck")->measured, -1);
}

TEST(MlperfRunRules, ReadBackWithin30SecondsOfTheWrites) {
  RepeatSeries s = six_runs(1);
  s.write_read_gaps_s = {2.5, 30.0, 4};
  std::vector<MlperfRunRule> rules = mlperf_run_rules(s);
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_TRUE(find_rule(rules, "checkpointCacheFlushValidation")->passed);  // at most 30 s
  EXPECT_EQ(find_rule(rules, "checkpointCacheFlushValidation")->measured, 30.0);
  s.write_read_gaps_s.push_back(30.5);
  rules = mlperf_run_rules(s);
  EXPECT_FALSE(find_rule(rules, "checkpointCacheFlushValidation")->passed);
}

TEST(MlperfRunRules, WriteReadGapIsWhatLiesBetweenAWriteAndItsReadBack) {
  // checkpoint, a 7 s phase, then a restore whose setup (locate, plan, cache drop) took 1.5 s: 8.5 s.
  Report r;
  const auto phase = [](const char* kind, double seconds, std::optional<double> setup) {
    PhaseReport p;
    p.name = kind;
    p.kind = kind;
    p.seconds = seconds;
    p.setup_seconds = setup;
    return p;
  };
  const PhaseReport w = phase("checkpoint", 20, std::nullopt);
  const PhaseReport other = phase("train_read", 7, 0.5);
  const PhaseReport rd = phase("restore", 30, 1.5);
  r.phases = {w, other, rd};
  EXPECT_DOUBLE_EQ(write_read_gap_seconds(r), 8.5);
  r.phases = {w, rd};
  EXPECT_DOUBLE_EQ(write_read_gap_seconds(r), 1.5);
  r.phases = {rd};
  EXPECT_DOUBLE_EQ(write_read_gap_seconds(r), 0);
}

TEST(MlperfRunRules, FailedRuleFailsTheVerdictWithItsReason) {
  Report r;
  r.run = {{"suite", {{"name", "mlperf-x"}}}};
  EXPECT_TRUE(is_mlperf_suite(r));
  RepeatSeries s = six_runs(200);
  apply_mlperf_run_rules(mlperf_run_rules(s), &r);
  EXPECT_EQ(r.verdict, "failed");
  ASSERT_EQ(r.verdict_reasons.size(), 1u);
  EXPECT_NE(r.verdict_reasons[0].find("runTimestampGap"), std::string::npos) << r.verdict_reasons[0];
  EXPECT_EQ(r.run["repeat"]["mlperf_rules"].size(), 3u);
  r.run["suite"]["name"] = "lab";
  EXPECT_FALSE(is_mlperf_suite(r));
}

// End to end: an mlperf-* suite run twice without a warm-up, its report beside its data on tmpfs: the
// report names every rule, and the two that fail fail the run.
TEST(MlperfRunRules, RepeatOfAnMlperfSuiteRecordsTheRules) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json", report = dir.path() + "/r.json";
  write_file(suite, R"({"name": "mlperf-tiny", "phases": [{"kind": "ingest", "direct": false, "workers": 1,
                        "files_per_worker": 1, "file_size": "64KiB", "block_size": "64KiB"}]})");
  CommandResult r = run_iofab(
      {"run", suite, "--target", dir.path() + "/t", "--out", report, "--repeat", "2", "--no-warmup"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const json j = json::parse(read_file(report));
  const json& rules = j["run"]["repeat"]["mlperf_rules"];
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0]["name"], "runTimestamps");
  EXPECT_EQ(rules[0]["passed"], false);
  EXPECT_EQ(rules[0]["measured"], 2);
  EXPECT_EQ(rules[2]["name"], "mlpstorageFilesystemCheck");
  EXPECT_EQ(rules[2]["passed"], false);  // the report and the data share /dev/shm
  EXPECT_EQ(rules[2]["measured"], 0);
  EXPECT_EQ(j["verdict"]["status"], "failed");
  // The console names each rule with its verdict, after the repeat's figures.
  EXPECT_NE(r.out.find("FAIL  runTimestamps (2.1.17)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pass  runTimestampGap (2.1.18)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace iofab::testing
