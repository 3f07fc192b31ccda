// compare: verdicts, directions, the noise rule, refusals and exit codes on
// crafted reports.
#include "reports/compare.h"

#include <gtest/gtest.h>

#include <cmath>

#include "reports/compare_format.h"
#include "reports/report_fixtures.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

LoadedReport load(const json& doc, const std::string& name) {
  LoadedReport r;
  Status st = read_report_json(doc, name, &r);
  EXPECT_TRUE(st.ok()) << st.message();
  return r;
}

Comparison compare(const json& base, const json& cur, CompareOptions opts = {}) {
  Comparison c;
  Status st = compare_reports(load(base, "base.json"), load(cur, "cur.json"), opts, &c);
  EXPECT_TRUE(st.ok()) << st.message();
  return c;
}

const MetricComparison& find(const Comparison& c, const std::string& phase, const std::string& metric) {
  for (const auto& m : c.metrics) {
    if (m.phase == phase && m.metric == metric) return m;
  }
  ADD_FAILURE() << "no comparison for " << phase << "/" << metric;
  static MetricComparison none;
  return none;
}

json ingest(double bw, double p99) {
  return make_report(json::array({make_phase(
      "ingest", "ingest", {{"write_bytes_per_s", bw}, {"latency_p99_s", p99}, {"write_bytes", 4e9}})}));
}

TEST(Compare, RegressionBeyondToleranceFails) {
  Comparison c = compare(ingest(1.0e9, 0.010), ingest(0.9e9, 0.010));
  const auto& m = find(c, "ingest", "write_bytes_per_s");
  EXPECT_EQ(m.verdict, MetricVerdict::kRegressed) << m.reason;
  EXPECT_NEAR(m.change, -0.10, 1e-12);
  EXPECT_NEAR(m.tolerance_abs, 0.05e9, 1);
  EXPECT_EQ(m.noise, 0);
  EXPECT_TRUE(c.failed());
  EXPECT_EQ(c.count(MetricVerdict::kRegressed), 1u);
  EXPECT_EQ(find(c, "ingest", "latency_p99_s").verdict, MetricVerdict::kUnchanged);
}

TEST(Compare, ImprovementAndSmallChangesPass) {
  Comparison c = compare(ingest(1.0e9, 0.010), ingest(1.2e9, 0.0099));
  EXPECT_EQ(find(c, "ingest", "write_bytes_per_s").verdict, MetricVerdict::kImproved);
  EXPECT_EQ(find(c, "ingest", "latency_p99_s").verdict, MetricVerdict::kUnchanged);  // -1%: inside 5%
  EXPECT_FALSE(c.failed());
  // A wider tolerance lets a 10% drop through.
  CompareOptions loose;
  loose.tolerance = 0.15;
  EXPECT_FALSE(compare(ingest(1.0e9, 0.010), ingest(0.9e9, 0.010), loose).failed());
}

TEST(Compare, DirectionPerMetric) {
  // Latency up is bad, bandwidth up is good, bytes written has no good direction.
  Comparison c = compare(ingest(1.0e9, 0.010), ingest(1.0e9, 0.012));
  EXPECT_EQ(find(c, "ingest", "latency_p99_s").verdict, MetricVerdict::kRegressed);
  c = compare(ingest(1.0e9, 0.010), ingest(1.0e9, 0.008));
  EXPECT_EQ(find(c, "ingest", "latency_p99_s").verdict, MetricVerdict::kImproved);
  json cur = ingest(1.0e9, 0.010);
  cur["phases"][0]["result"]["metrics"]["write_bytes"] = 8e9;
  c = compare(ingest(1.0e9, 0.010), cur);
  const auto& wb = find(c, "ingest", "write_bytes");
  EXPECT_EQ(wb.verdict, MetricVerdict::kNeutral);
  EXPECT_EQ(wb.better, "neither");
  EXPECT_FALSE(c.failed());
}

TEST(Compare, DirectionComesFromTheReportBeforeTheName) {
  // The report says this "_seconds" metric is better higher (a made-up budget); the report wins.
  json base = ingest(1e9, 0.01), cur = ingest(1e9, 0.01);
  for (json* d : {&base, &cur}) (*d)["phases"][0]["result"]["details"]["better"]["latency_p99_s"] = "higher";
  cur["phases"][0]["result"]["metrics"]["latency_p99_s"] = 0.008;
  EXPECT_EQ(find(compare(base, cur), "ingest", "latency_p99_s").verdict, MetricVerdict::kRegressed);
}

TEST(Compare, NameRulesForReportsWithoutBetter) {
  const json metrics = {{"stall_seconds_max", 10.0}, {"busbw.all_reduce.max", 5e9},
                        {"wrong_elements", 0},       {"au", 0.95},
                        {"samples_per_s", 1000.0},   {"checkpoints", 3}};
  json base = make_report(json::array({make_phase("p", "checkpoint", metrics, false)}));
  json cur = base;
  auto& m = cur["phases"][0]["result"]["metrics"];
  m["stall_seconds_max"] = 12.0;
  m["busbw.all_reduce.max"] = 4e9;
  m["wrong_elements"] = 7;
  m["au"] = 0.80;
  m["samples_per_s"] = 1200.0;
  m["checkpoints"] = 5;
  Comparison c = compare(base, cur);
  EXPECT_EQ(find(c, "p", "stall_seconds_max").better, "lower");
  EXPECT_EQ(find(c, "p", "stall_seconds_max").verdict, MetricVerdict::kRegressed);
  EXPECT_EQ(find(c, "p", "busbw.all_reduce.max").better, "higher");
  EXPECT_EQ(find(c, "p", "busbw.all_reduce.max").verdict, MetricVerdict::kRegressed);
  // From 0 any bad move is a regression: there is no relative tolerance around zero.
  EXPECT_EQ(find(c, "p", "wrong_elements").verdict, MetricVerdict::kRegressed);
  EXPECT_TRUE(std::isinf(find(c, "p", "wrong_elements").change));
  EXPECT_EQ(find(c, "p", "au").verdict, MetricVerdict::kRegressed);
  EXPECT_EQ(find(c, "p", "samples_per_s").verdict, MetricVerdict::kImproved);
  EXPECT_EQ(find(c, "p", "checkpoints").verdict, MetricVerdict::kNeutral);
}

TEST(Compare, FamiliesInBetterMapMatchSweepMetrics) {
  json base =
      make_report(json::array({make_phase("coll", "collectives", {{"busbw.all_gather.65536", 2e9}})}));
  json cur = base;
  cur["phases"][0]["result"]["metrics"]["busbw.all_gather.65536"] = 1e9;
  const Comparison c = compare(base, cur);
  const auto& m = find(c, "coll", "busbw.all_gather.65536");
  EXPECT_EQ(m.unit, "bytes/s");
  EXPECT_EQ(m.verdict, MetricVerdict::kRegressed);
}

TEST(Compare, ChangeInsideTheRunsSpreadIsNoise) {
  json base = ingest(0, 0.01), cur = ingest(0, 0.01);
  set_repeated(&base["phases"][0], "write_bytes_per_s", {1.0e9, 1.2e9, 0.8e9});  // mean 1.0e9, stdev 0.2e9
  set_repeated(&cur["phases"][0], "write_bytes_per_s", {0.9e9, 1.1e9, 0.7e9});   // mean 0.9e9: -10%
  Comparison c = compare(base, cur);
  const auto& m = find(c, "ingest", "write_bytes_per_s");
  EXPECT_EQ(m.verdict, MetricVerdict::kWithinNoise) << m.reason;
  // 2 x sqrt(0.2e9^2/3 + 0.2e9^2/3)
  EXPECT_NEAR(m.noise, 2 * std::sqrt(2 * 0.04e18 / 3), 1e3);
  EXPECT_EQ(m.baseline_runs, 3u);
  EXPECT_EQ(m.current_runs, 3u);
  EXPECT_FALSE(c.failed());

  // The same -10% with tight runs is a regression.
  set_repeated(&base["phases"][0], "write_bytes_per_s", {1.0e9, 1.001e9, 0.999e9});
  set_repeated(&cur["phases"][0], "write_bytes_per_s", {0.9e9, 0.901e9, 0.899e9});
  c = compare(base, cur);
  EXPECT_EQ(find(c, "ingest", "write_bytes_per_s").verdict, MetricVerdict::kRegressed);
  EXPECT_TRUE(c.failed());
}

TEST(Compare, OneRepeatedSideLendsItsSpreadToTheOther) {
  json base = ingest(0, 0.01);
  set_repeated(&base["phases"][0], "write_bytes_per_s", {1.0e9, 1.2e9, 0.8e9});
  json cur = ingest(0.9e9, 0.01);  // a single run
  const Comparison c = compare(base, cur);
  const auto& m = find(c, "ingest", "write_bytes_per_s");
  EXPECT_EQ(m.current_runs, 1u);
  EXPECT_NEAR(m.noise, 2 * std::sqrt(0.04e18 / 3 + 0.04e18 / 1), 1e3);
  EXPECT_EQ(m.verdict, MetricVerdict::kWithinNoise);
}

TEST(Compare, MissingMetricsAreListedAndFail) {
  json cur = ingest(1.0e9, 0.01);
  cur["phases"][0]["result"]["metrics"].erase("latency_p99_s");
  cur["phases"][0]["result"]["metrics"]["fsync_seconds"] = 0.5;
  Comparison c = compare(ingest(1.0e9, 0.01), cur);
  const auto& gone = find(c, "ingest", "latency_p99_s");
  EXPECT_EQ(gone.verdict, MetricVerdict::kMissing);
  EXPECT_TRUE(gone.baseline.has_value());
  EXPECT_FALSE(gone.current.has_value());
  EXPECT_NE(gone.reason.find("not in the current report"), std::string::npos) << gone.reason;
  EXPECT_EQ(find(c, "ingest", "fsync_seconds").verdict, MetricVerdict::kNew);
  EXPECT_TRUE(c.failed());
  std::ostringstream text;
  write_comparison_text(c, text);
  EXPECT_NE(text.str().find("MISSING"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("1 missing"), std::string::npos) << text.str();
}

TEST(Compare, PhaseMissingOnOneSideIsListed) {
  json base = ingest(1e9, 0.01);
  base["phases"].push_back(make_phase("restore", "restore", {{"restore_seconds", 30.0}}));
  json cur = ingest(1e9, 0.01);
  cur["phases"][0]["status"] = "error";
  cur["phases"][0]["reason"] = "write: No space left on device";
  cur["phases"][0]["result"]["metrics"] = json::object();
  Comparison c = compare(base, cur);
  ASSERT_EQ(c.phases_only_in_baseline.size(), 1u);
  EXPECT_EQ(c.phases_only_in_baseline[0], "restore");
  EXPECT_EQ(find(c, "restore", "restore_seconds").verdict, MetricVerdict::kMissing);
  const auto& bw = find(c, "ingest", "write_bytes_per_s");
  EXPECT_EQ(bw.verdict, MetricVerdict::kMissing);
  EXPECT_NE(bw.reason.find("No space left"), std::string::npos) << bw.reason;
}

TEST(Compare, SchemaMismatchIsRefusedUnlessForced) {
  json cur = ingest(0.5e9, 0.01);
  cur["schema_version"] = 2;
  Comparison c;
  Status st = compare_reports(load(ingest(1e9, 0.01), "base.json"), load(cur, "cur.json"), {}, &c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("different report schema versions: baseline 1, current 2"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("--force"), std::string::npos);
  CompareOptions force;
  force.force = true;
  st = compare_reports(load(ingest(1e9, 0.01), "base.json"), load(cur, "cur.json"), force, &c);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes[0].find("schema"), std::string::npos);
  EXPECT_TRUE(c.failed());  // forced, the regression is still found
}

TEST(Compare, DifferentSuitesAreRefusedUnlessForced) {
  json cur = ingest(1e9, 0.01);
  cur["run"]["suite"]["sha256"] = std::string(64, 'f');
  cur["run"]["suite"]["name"] = "other";
  Comparison c;
  Status st = compare_reports(load(ingest(1e9, 0.01), "base.json"), load(cur, "cur.json"), {}, &c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("different suites"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("\"other\""), std::string::npos) << st.message();
  json sets = ingest(1e9, 0.01);
  sets["run"]["suite"]["sets"] = json::array({"phases.ingest.block_size=4MiB"});
  st = compare_reports(load(ingest(1e9, 0.01), "base.json"), load(sets, "cur.json"), {}, &c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("different --set overrides"), std::string::npos) << st.message();
  CompareOptions force;
  force.force = true;
  EXPECT_TRUE(compare_reports(load(ingest(1e9, 0.01), "base.json"), load(cur, "cur.json"), force, &c).ok());
  EXPECT_FALSE(c.failed());
}

TEST(Compare, MetricGlobsFilterOnNameOrPhaseSlashName) {
  json base = ingest(1e9, 0.01), cur = ingest(0.5e9, 0.05);
  CompareOptions only_latency;
  only_latency.metric_globs = {"latency_*"};
  Comparison c = compare(base, cur, only_latency);
  ASSERT_EQ(c.metrics.size(), 1u);
  EXPECT_EQ(c.metrics[0].metric, "latency_p99_s");
  CompareOptions qualified;
  qualified.metric_globs = {"ingest/write_*"};
  c = compare(base, cur, qualified);
  ASSERT_EQ(c.metrics.size(), 2u);  // write_bytes_per_s, write_bytes
  CompareOptions none;
  none.metric_globs = {"no_such_*"};
  Status st = compare_reports(load(base, "b"), load(cur, "c"), none, &c);
  ASSERT_FALSE(st.ok());  // a typo in a CI glob must not pass silently
  EXPECT_NE(st.message().find("no_such_*"), std::string::npos);
}

TEST(Compare, ToleranceParsing) {
  EXPECT_DOUBLE_EQ(*parse_tolerance("5%"), 0.05);
  EXPECT_DOUBLE_EQ(*parse_tolerance("0.05"), 0.05);
  EXPECT_DOUBLE_EQ(*parse_tolerance("150%"), 1.5);
  EXPECT_DOUBLE_EQ(*parse_tolerance("0"), 0.0);
  EXPECT_FALSE(parse_tolerance("5"));  // 500%? Far more likely a forgotten '%'
  EXPECT_FALSE(parse_tolerance("-1%"));
  EXPECT_FALSE(parse_tolerance("fast"));
}

TEST(Compare, OutputsAgree) {
  Comparison c = compare(ingest(1.0e9, 0.010), ingest(0.9e9, 0.010));
  json j = comparison_to_json(c);
  EXPECT_EQ(j["verdict"], "failed");
  EXPECT_EQ(j["counts"]["REGRESSED"], 1);
  const std::string md = comparison_to_markdown(c);
  EXPECT_NE(md.find("| ingest | write\\_bytes\\_per\\_s |"), std::string::npos) << md;
  EXPECT_NE(md.find("**REGRESSED**"), std::string::npos) << md;
}

// The CLI's exit codes: 0 no regression, 1 regression or missing, 2 refused or bad input.
TEST(CompareCli, ExitCodes) {
  TempDir dir("/dev/shm");
  const std::string base = dir.path() + "/base.json", reg = dir.path() + "/reg.json",
                    better = dir.path() + "/better.json", schema = dir.path() + "/schema.json",
                    missing = dir.path() + "/missing.json";
  write_file(base, ingest(1.0e9, 0.01).dump());
  write_file(reg, ingest(0.8e9, 0.01).dump());
  write_file(better, ingest(1.3e9, 0.008).dump());
  json s = ingest(1.0e9, 0.01);
  s["schema_version"] = 7;
  write_file(schema, s.dump());
  json m = ingest(1.0e9, 0.01);
  m["phases"][0]["result"]["metrics"].erase("latency_p99_s");
  write_file(missing, m.dump());

  CommandResult r = run_iofab({"compare", base, better});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = run_iofab({"compare", base, reg});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("REGRESSED"), std::string::npos) << r.out;
  r = run_iofab({"compare", base, reg, "--tolerance", "25%"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = run_iofab({"compare", base, missing});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("latency_p99_s"), std::string::npos) << r.out;
  r = run_iofab({"compare", base, schema});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("schema versions"), std::string::npos) << r.err;
  r = run_iofab({"compare", base, schema, "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = run_iofab({"compare", base, reg, "--tolerance", "5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--tolerance"), std::string::npos) << r.err;
  r = run_iofab({"compare", base, reg, "--metric", "latency_*"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // the regressed bandwidth is filtered out
  r = run_iofab({"compare", "--metric", "write_bytes_per_s", base, reg});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // options before the files work too

  const std::string out_json = dir.path() + "/cmp.json", junit = dir.path() + "/cmp.xml";
  r = run_iofab({"compare", base, reg, "--out", out_json, "--junit", junit});
  EXPECT_EQ(r.exit_code, 1);
  json j = json::parse(read_file(out_json));
  EXPECT_EQ(j["verdict"], "failed");
  EXPECT_NE(read_file(junit).find("<failure"), std::string::npos);
}

// An interrupted current run held partial figures that the compare called "improved", 0 regressed, exit 0.
TEST(Compare, AnInterruptedCurrentPhaseFailsAndItsFiguresAreNeverImproved) {
  json cur = ingest(2.0e9, 0.005);  // better on paper
  cur["phases"][0]["status"] = "interrupted";
  cur["phases"][0]["reason"] = "interrupted by signal 2";
  Comparison c = compare(ingest(1.0e9, 0.010), cur);
  EXPECT_TRUE(c.failed());
  ASSERT_EQ(c.unusable_phases.size(), 1u);
  EXPECT_EQ(c.unusable_phases[0], "current: phase ingest interrupted: interrupted by signal 2");
  EXPECT_EQ(c.count(MetricVerdict::kImproved), 0u);
  EXPECT_EQ(find(c, "ingest", "write_bytes_per_s").verdict, MetricVerdict::kUnusable);
  std::ostringstream text;
  write_comparison_text(c, text);
  EXPECT_NE(text.str().find("not comparable (fails the compare): current: phase ingest interrupted"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find(": FAILED"), std::string::npos) << text.str();
  EXPECT_EQ(comparison_to_json(c)["verdict"], "failed");
}

TEST(Compare, ABaselineThatDidNotRunToAVerdictFailsToo) {
  for (const char* status : {"error", "interrupted", "skipped"}) {
    SCOPED_TRACE(status);
    json base = ingest(1.0e9, 0.010);
    base["phases"][0]["status"] = status;
    Comparison c = compare(base, ingest(1.0e9, 0.010));
    EXPECT_TRUE(c.failed());
    ASSERT_EQ(c.unusable_phases.size(), 1u);
    EXPECT_EQ(c.unusable_phases[0], std::string("baseline: phase ingest ") + status);
  }
}

// collectives on one rank is skipped in both runs: nothing measured on either side, nothing lost.
TEST(Compare, APhaseSkippedInBothReportsIsOnlyNoted) {
  json base = ingest(1.0e9, 0.010);
  json skipped = make_phase("collectives", "collectives", json::object());
  skipped["status"] = "skipped";
  skipped["reason"] = "needs >= 2 ranks";
  base["phases"].push_back(skipped);
  json cur = base;
  Comparison c = compare(base, cur);
  EXPECT_FALSE(c.failed());
  EXPECT_TRUE(c.unusable_phases.empty());
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes.back().find("phase collectives skipped in both reports"), std::string::npos) << c.notes.back();
}

// Every phase skipped on both sides: "0 regressed, passed" was a gate that could never fail.
TEST(Compare, NothingComparedIsRefusedAsWithAMetricGlobThatMatchesNothing) {
  json skipped = make_phase("collectives", "collectives", json::object());
  skipped["status"] = "skipped";
  skipped["reason"] = "needs >= 2 ranks";
  json base = make_report(json::array({skipped}));
  Comparison c;
  Status st = compare_reports(load(base, "base.json"), load(base, "cur.json"), {}, &c);
  ASSERT_EQ(st.code(), Status::Code::kInvalidArgument) << st.message();
  EXPECT_NE(st.message().find("nothing was compared: no metric has a value in both base.json and cur.json "
                              "(skipped in both: collectives)"),
            std::string::npos)
      << st.message();
  // Only new metrics (the baseline measured nothing): nothing compared either.
  json empty = make_report(json::array({make_phase("ingest", "ingest", json::object())}));
  st = compare_reports(load(empty, "base.json"), load(ingest(1e9, 0.01), "cur.json"), {}, &c);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << st.message();
  TempDir dir;
  write_file(dir.path() + "/a.json", base.dump());
  write_file(dir.path() + "/b.json", base.dump());
  CommandResult r = run_iofab({"compare", dir.path() + "/a.json", dir.path() + "/b.json"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("nothing was compared"), std::string::npos) << r.err;
}

TEST(Compare, CliExitsOneForAnInterruptedCurrentRun) {
  TempDir dir;
  json cur = ingest(2.0e9, 0.005);
  cur["phases"][0]["status"] = "interrupted";
  cur["verdict"] = {{"status", "interrupted"}, {"reasons", {"ingest: interrupted"}}};
  write_file(dir.path() + "/base.json", ingest(1.0e9, 0.010).dump());
  write_file(dir.path() + "/cur.json", cur.dump());
  CommandResult r = run_iofab({"compare", dir.path() + "/base.json", dir.path() + "/cur.json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("current: phase ingest interrupted"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 0 improved,"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace iofab::testing
