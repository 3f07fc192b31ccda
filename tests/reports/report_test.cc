#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/fs/atomic_file.h"
#include "harness/results/report.h"
#include "reports/console_report.h"
#include "reports/json_report.h"
#include "test_util.h"

namespace iofab {
namespace {

using nlohmann::json;
using iofab::testing::contains;
using iofab::testing::list_files;
using iofab::testing::read_file;
using iofab::testing::TempDir;
using iofab::testing::write_file;

CheckResult check(const std::string& name, double value, bool passed, bool has_value = true) {
  CheckResult c;
  c.name = name;
  c.metric = "write_bytes_per_s";
  c.op = ">=";
  c.threshold = 2e9;
  c.threshold_text = "2GB/s";
  c.value = value;
  c.has_value = has_value;
  c.passed = passed;
  return c;
}

PhaseReport phase(const std::string& name, std::vector<CheckResult> checks = {}) {
  PhaseReport p;
  p.name = name;
  p.kind = "ingest";
  p.checks = std::move(checks);
  return p;
}

// A report as the runner leaves it: one phase, two checks, metrics and details.
Report sample_report() {
  Report r;
  r.tool = {{"version", "0.1.0"}, {"git_sha", "abc123"}};
  r.run = {{"id", "20260101T000000Z-abcdef"}, {"suite", "default"}};
  r.cluster = {{"ranks", 1}};
  r.target = {{"path", "/dev/shm/x"}, {"fs_type", "tmpfs"}};
  PhaseReport p = phase("ingest", {check("write_bytes_per_s >= 2GB/s", 1.5e9, false),
                                   check("latency_p99_s <= 2s", 0.01, true)});
  p.checks[1].metric = "latency_p99_s";
  p.checks[1].op = "<=";
  p.checks[1].threshold = 2;
  p.checks[1].threshold_text = "2s";
  p.params = {{"block_size", 1048576}, {"workers", 2}};
  p.metrics = {{"write_bytes", 268435456.0},
               {"write_bytes_per_s", 1.5e9},
               {"latency_p99_s", 0.01},
               {"fsync_seconds", std::numeric_limits<double>::quiet_NaN()},
               {"write_seconds", std::numeric_limits<double>::infinity()}};
  p.details = {{"headline", json::array({"write_bytes_per_s", "write_bytes"})},
               {"units",
                {{"write_bytes_per_s", "bytes/s"}, {"write_bytes", "bytes"}, {"latency_p99_s", "s"}}}};
  p.warnings = {"buffered writes"};
  r.phases.push_back(std::move(p));
  return r;
}

// ---- finalize_verdict and exit codes -------------------------------------------

TEST(ReportVerdict, AllChecksPassing) {
  Report r;
  r.phases.push_back(phase("a", {check("c1", 3e9, true), check("c2", 1, true)}));
  r.phases.push_back(phase("b"));
  finalize_verdict(&r);
  EXPECT_EQ(r.verdict, "passed");
  EXPECT_TRUE(r.verdict_reasons.empty());
  EXPECT_EQ(r.phases[0].status, PhaseStatus::kPassed);
  EXPECT_EQ(r.phases[1].status, PhaseStatus::kPassed);
  EXPECT_EQ(exit_code_for(r), 0);
}

TEST(ReportVerdict, AFailingCheckFailsItsPhaseAndTheRun) {
  Report r;
  r.phases.push_back(phase("first", {check("ok", 3e9, true)}));
  r.phases.push_back(
      phase("second", {check("ok too", 3e9, true), check("write_bytes_per_s >= 2GB/s", 1e9, false)}));
  finalize_verdict(&r);
  EXPECT_EQ(r.phases[0].status, PhaseStatus::kPassed);
  EXPECT_EQ(r.phases[1].status, PhaseStatus::kFailed);
  EXPECT_EQ(r.verdict, "failed");
  ASSERT_EQ(r.verdict_reasons.size(), 1u);
  EXPECT_TRUE(contains(r.verdict_reasons[0], "second")) << r.verdict_reasons[0];
  EXPECT_TRUE(contains(r.verdict_reasons[0], "write_bytes_per_s >= 2GB/s")) << r.verdict_reasons[0];
  EXPECT_EQ(exit_code_for(r), 1);
}

// A restore that found a corrupt shard failed on its own: with no check, or with checks that pass, it
// stays failed (exit 1) and the reason is in the verdict.
TEST(ReportVerdict, APhaseFailedWithAReasonStaysFailedWhateverItsChecks) {
  Report r;
  PhaseReport p = phase("restore", {check("read_bytes_per_s >= 1", 3e9, true)});
  p.status = PhaseStatus::kFailed;
  p.reason = "restore failed verification: 1 of 2 shards bad";
  r.phases.push_back(std::move(p));
  finalize_verdict(&r);
  finalize_verdict(&r);
  EXPECT_EQ(r.phases[0].status, PhaseStatus::kFailed);
  EXPECT_EQ(r.verdict, "failed");
  ASSERT_EQ(r.verdict_reasons.size(), 1u);
  EXPECT_EQ(r.verdict_reasons[0], "restore: failed: restore failed verification: 1 of 2 shards bad");
  EXPECT_EQ(exit_code_for(r), 1);
}

TEST(ReportVerdict, FinalizeIsIdempotent) {
  Report r;
  r.phases.push_back(phase("p", {check("c", 1, false)}));
  finalize_verdict(&r);
  finalize_verdict(&r);
  EXPECT_EQ(r.verdict, "failed");
  EXPECT_EQ(r.verdict_reasons.size(), 1u);
}

// A check on a figure the phase did not produce (request_errors on a folder, a verification figure with
// engine null): the reason says so, not "phase failed", which blamed a phase that ran well.
TEST(ReportVerdict, ACheckWithNoValueFromAPhaseThatRanSaysTheFigureWasNotMeasured) {
  Report r;
  r.phases.push_back(phase("ingest", {check("request_errors == 0", 0, false, false)}));
  r.phases[0].checks[0].metric = "request_errors";
  finalize_verdict(&r);
  finalize_verdict(&r);
  ASSERT_EQ(r.verdict_reasons.size(), 1u);
  EXPECT_EQ(r.verdict_reasons[0],
            "ingest: check request_errors == 0 failed (no value: the phase did not measure request_errors)");
  // A phase that did not run to its end still says how it ended.
  Report e;
  PhaseReport p = phase("ingest", {check("c", 0, false, false)});
  p.status = PhaseStatus::kError;
  p.reason = "disk gone";
  e.phases.push_back(std::move(p));
  finalize_verdict(&e);
  EXPECT_TRUE(contains(e.verdict_reasons[0], "(no value: phase error)")) << e.verdict_reasons[0];
}

TEST(ReportVerdict, AnErrorPhaseMakesTheRunAnError) {
  Report r;
  r.phases.push_back(phase("a", {check("c", 1, false)}));
  PhaseReport e = phase("b", {check("d", 0, false, false)});
  e.status = PhaseStatus::kError;
  e.reason = "write r0-w0-f0: No space left on device";
  r.phases.push_back(std::move(e));
  finalize_verdict(&r);
  EXPECT_EQ(r.phases[1].status, PhaseStatus::kError);  // not turned into failed by its checks
  EXPECT_EQ(r.verdict, "error");
  bool named = false;
  for (const auto& reason : r.verdict_reasons) named = named || contains(reason, "No space left on device");
  EXPECT_TRUE(named);
  EXPECT_EQ(exit_code_for(r), 3);
}

TEST(ReportVerdict, InterruptedWinsOverEverything) {
  Report r;
  r.phases.push_back(phase("a", {check("c", 1, false)}));
  PhaseReport e = phase("b");
  e.status = PhaseStatus::kError;
  e.reason = "EIO";
  r.phases.push_back(std::move(e));
  PhaseReport i = phase("c");
  i.status = PhaseStatus::kInterrupted;
  r.phases.push_back(std::move(i));
  PhaseReport s = phase("d");
  s.status = PhaseStatus::kSkipped;
  s.reason = "no CUDA device";
  r.phases.push_back(std::move(s));
  finalize_verdict(&r);
  EXPECT_EQ(r.verdict, "interrupted");
  EXPECT_EQ(r.phases[2].status, PhaseStatus::kInterrupted);
  EXPECT_EQ(r.phases[3].status, PhaseStatus::kSkipped);
  EXPECT_EQ(exit_code_for(r), 130);
}

TEST(ReportVerdict, SkippedPhaseWithoutChecksDoesNotFailTheRun) {
  Report r;
  PhaseReport s = phase("collectives");
  s.status = PhaseStatus::kSkipped;
  s.reason = "needs >= 2 ranks";
  r.phases.push_back(std::move(s));
  finalize_verdict(&r);
  EXPECT_EQ(r.verdict, "passed");
  EXPECT_EQ(r.phases[0].status, PhaseStatus::kSkipped);
}

TEST(ReportVerdict, ExitCodes) {
  Report r;
  for (const auto& [verdict, code] : std::vector<std::pair<std::string, int>>{
           {"passed", 0}, {"failed", 1}, {"error", 3}, {"interrupted", 130}}) {
    r.verdict = verdict;
    EXPECT_EQ(exit_code_for(r), code) << verdict;
  }
}

TEST(ReportVerdict, StatusTexts) {
  EXPECT_STREQ(phase_status_text(PhaseStatus::kPassed), "passed");
  EXPECT_STREQ(phase_status_text(PhaseStatus::kFailed), "failed");
  EXPECT_STREQ(phase_status_text(PhaseStatus::kSkipped), "skipped");
  EXPECT_STREQ(phase_status_text(PhaseStatus::kError), "error");
  EXPECT_STREQ(phase_status_text(PhaseStatus::kInterrupted), "interrupted");
}

// ---- JSON ----------------------------------------------------------------------

TEST(ReportJson, HasTheDocumentedShape) {
  Report r = sample_report();
  finalize_verdict(&r);
  const json j = report_to_json(r);
  EXPECT_EQ(j["schema_version"], json(kSchemaVersion));
  EXPECT_TRUE(j["schema_version"].is_number_integer());
  EXPECT_EQ(j["tool"]["git_sha"], "abc123");
  EXPECT_EQ(j["run"]["id"], "20260101T000000Z-abcdef");
  EXPECT_EQ(j["cluster"]["ranks"], 1);
  EXPECT_EQ(j["target"]["fs_type"], "tmpfs");
  ASSERT_TRUE(j["phases"].is_array());
  ASSERT_EQ(j["phases"].size(), 1u);
  const json& p = j["phases"][0];
  EXPECT_EQ(p["name"], "ingest");
  EXPECT_EQ(p["kind"], "ingest");
  EXPECT_EQ(p["status"], "failed");
  EXPECT_TRUE(p["reason"].is_string());
  EXPECT_EQ(p["params"]["block_size"], 1048576);
  EXPECT_EQ(p["params"]["workers"], 2);
  ASSERT_TRUE(p["result"]["metrics"].is_object());
  EXPECT_DOUBLE_EQ(p["result"]["metrics"]["latency_p99_s"].get<double>(), 0.01);
  EXPECT_EQ(p["warnings"], json::array({"buffered writes"}));
  ASSERT_EQ(p["checks"].size(), 2u);
  const json& c = p["checks"][0];
  for (const char* k : {"name", "metric", "op", "threshold", "value", "passed"}) {
    EXPECT_TRUE(c.contains(k)) << k;
  }
  EXPECT_EQ(c["name"], "write_bytes_per_s >= 2GB/s");
  EXPECT_EQ(c["metric"], "write_bytes_per_s");
  EXPECT_EQ(c["op"], ">=");
  EXPECT_EQ(c["threshold"], 2000000000);
  EXPECT_EQ(c["value"], 1500000000);
  EXPECT_EQ(c["passed"], false);
  EXPECT_EQ(p["checks"][1]["passed"], true);
  EXPECT_DOUBLE_EQ(p["checks"][1]["value"].get<double>(), 0.01);
  EXPECT_EQ(j["verdict"]["status"], "failed");
  ASSERT_TRUE(j["verdict"]["reasons"].is_array());
  EXPECT_EQ(j["verdict"]["reasons"].size(), 1u);
}

TEST(ReportJson, WholeNumbersAreIntegersAndNonFiniteValuesNull) {
  const json j = report_to_json(sample_report());
  const json& m = j["phases"][0]["result"]["metrics"];
  EXPECT_TRUE(m["write_bytes"].is_number_integer());
  EXPECT_EQ(m["write_bytes"].get<int64_t>(), 268435456);
  EXPECT_TRUE(m["write_bytes_per_s"].is_number_integer());
  EXPECT_TRUE(m["latency_p99_s"].is_number_float());
  EXPECT_TRUE(m["fsync_seconds"].is_null());
  EXPECT_TRUE(m["write_seconds"].is_null());
  // The whole document serializes and reads back (NaN would not).
  const std::string text = j.dump();
  const json back = json::parse(text, nullptr, false);
  ASSERT_FALSE(back.is_discarded());
  EXPECT_EQ(back["phases"][0]["result"]["metrics"]["write_bytes"].get<int64_t>(), 268435456);
  EXPECT_EQ(back, j);
}

TEST(ReportJson, CheckValueIsNullWhenAbsentOrNonFinite) {
  Report r;
  r.phases.push_back(phase("p", {check("missing", 5, false, false),
                                 check("nan", std::numeric_limits<double>::quiet_NaN(), false),
                                 check("neg-inf", -std::numeric_limits<double>::infinity(), false),
                                 check("half", 0.5, true)}));
  const json j = report_to_json(r);
  const json& c = j["phases"][0]["checks"];
  EXPECT_TRUE(c[0]["value"].is_null());
  EXPECT_TRUE(c[1]["value"].is_null());
  EXPECT_TRUE(c[2]["value"].is_null());
  EXPECT_TRUE(c[3]["value"].is_number_float());
  EXPECT_NO_THROW((void)j.dump());
}

// ---- write_file_atomic --------------------------------------------------------------

TEST(ReportWriteAtomic, WritesAndReplacesLeavingNoTempFile) {
  TempDir dir("/dev/shm");
  const std::string path = dir.path() + "/report.json";
  Status s = write_file_atomic(path, "first");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(read_file(path), "first");
  s = write_file_atomic(path, "second, longer than the first");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(read_file(path), "second, longer than the first");
  s = write_file_atomic(path, "");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(read_file(path), "");
  EXPECT_EQ(list_files(dir.path()), std::vector<std::string>{"report.json"});
}

TEST(ReportWriteAtomic, WritesALargeText) {
  TempDir dir("/var/tmp");
  const std::string path = dir.path() + "/big.json";
  std::string text(3 << 20, 'x');
  for (size_t i = 0; i < text.size(); i += 4097) text[i] = static_cast<char>('a' + i % 26);
  ASSERT_TRUE(write_file_atomic(path, text).ok());
  EXPECT_EQ(read_file(path), text);
  EXPECT_EQ(list_files(dir.path()).size(), 1u);
}

TEST(ReportWriteAtomic, FailsCleanlyWhenTheFolderIsMissing) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/report.json", "original");
  const std::string path = dir.path() + "/missing/report.json";
  Status s = write_file_atomic(path, "new");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.code(), Status::Code::kOk);
  EXPECT_FALSE(s.message().empty());
  EXPECT_EQ(read_file(dir.path() + "/report.json"), "original");
  EXPECT_EQ(list_files(dir.path()), std::vector<std::string>{"report.json"});
}

TEST(ReportWriteAtomic, FailsCleanlyWhenThePathIsAFolder) {
  TempDir dir("/dev/shm");
  const std::string path = dir.path() + "/out";
  ASSERT_EQ(mkdir(path.c_str(), 0755), 0);
  write_file(path + "/inside", "keep");
  Status s = write_file_atomic(path, "new");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(read_file(path + "/inside"), "keep");
  // The temp file is cleaned up after the failed rename.
  EXPECT_EQ(list_files(dir.path()), std::vector<std::string>{"out/inside"});
}

TEST(ReportWriteAtomic, ReplacesASymlinkInsteadOfWritingThroughIt) {
  TempDir dir("/dev/shm");
  TempDir outside("/dev/shm");
  write_file(outside.path() + "/victim", "original");
  const std::string path = dir.path() + "/report.json";
  ASSERT_EQ(symlink((outside.path() + "/victim").c_str(), path.c_str()), 0);
  ASSERT_TRUE(write_file_atomic(path, "report").ok());
  EXPECT_EQ(read_file(outside.path() + "/victim"), "original");
  EXPECT_EQ(read_file(path), "report");
}

// ---- console -----------------------------------------------------------------------

TEST(ReportConsole, SummaryShowsPhasesChecksAndVerdict) {
  Report r = sample_report();
  finalize_verdict(&r);
  std::ostringstream out;
  write_console_summary(r, out);
  const std::string text = out.str();
  EXPECT_TRUE(contains(text, "[FAILED] ingest (ingest)")) << text;
  EXPECT_TRUE(contains(text, "FAIL  write_bytes_per_s >= 2GB/s")) << text;
  EXPECT_TRUE(contains(text, "pass  latency_p99_s <= 2s")) << text;
  EXPECT_TRUE(contains(text, "GB/s")) << text;  // headline rate in people's units
  EXPECT_TRUE(contains(text, "write_bytes = ")) << text;
  EXPECT_TRUE(contains(text, "warning: buffered writes")) << text;
  EXPECT_TRUE(contains(text, "verdict: failed (1/2 checks passed)")) << text;
  EXPECT_TRUE(contains(text, "  - ingest: check write_bytes_per_s >= 2GB/s failed")) << text;
}

TEST(ReportConsole, PassingRunAndPhaseReasons) {
  Report r;
  r.phases.push_back(phase("ingest", {check("c", 3e9, true)}));
  PhaseReport s = phase("gpu");
  s.kind = "collectives";
  s.status = PhaseStatus::kSkipped;
  s.reason = "no CUDA device";
  r.phases.push_back(std::move(s));
  PhaseReport m = phase("lost", {check("never measured", 0, false, false)});
  m.status = PhaseStatus::kError;
  m.reason = "rank 1 lost";
  r.phases.push_back(std::move(m));
  finalize_verdict(&r);
  std::ostringstream out;
  write_console_summary(r, out);
  const std::string text = out.str();
  EXPECT_TRUE(contains(text, "[PASSED] ingest (ingest)")) << text;
  EXPECT_TRUE(contains(text, "[SKIPPED] gpu (collectives): no CUDA device")) << text;
  EXPECT_TRUE(contains(text, "[ERROR] lost (ingest): rank 1 lost")) << text;
  EXPECT_TRUE(contains(text, "(measured nothing)")) << text;
  EXPECT_TRUE(contains(text, "verdict: error (1/2 checks passed)")) << text;
}

// The runner puts collective busbw beside the verbs ceiling (workloads/rdma/fabric_ceiling.h).
TEST(ReportConsole, RdmaPhaseShowsCollectivesAgainstTheVerbsCeiling) {
  Report r;
  PhaseReport p = phase("fabric");
  p.kind = "rdma";
  p.details["collectives_vs_verbs"] = nlohmann::json::array(
      {{{"collectives_phase", "nccl"}, {"op", "all_reduce"}, {"busbw_max", 20e9}, {"rdma_phase", "fabric"},
        {"write_bytes_per_s_max", 25e9}, {"ratio", 0.8}},
       "not a record"});
  r.phases.push_back(std::move(p));
  finalize_verdict(&r);
  std::ostringstream out;
  write_console_summary(r, out);
  EXPECT_TRUE(contains(out.str(), "nccl all_reduce busbw 20.0 GB/s = 0.80 x this RDMA WRITE 25.0 GB/s")) << out.str();
}

TEST(ReportConsole, APhasesSetupIsShownBesideItsWallTime) {
  Report r;
  PhaseReport p;
  p.name = "ingest";
  p.kind = "ingest";
  p.seconds = 4;
  p.setup_seconds = 1.5;
  r.phases.push_back(p);
  PhaseReport none = p;
  none.name = "other";
  none.setup_seconds.reset();
  r.phases.push_back(none);
  finalize_verdict(&r);
  std::ostringstream out;
  write_console_summary(r, out);
  const std::string text = out.str();
  EXPECT_TRUE(contains(
      text, "setup (untimed) = " + format_metric_value(1.5, "s") + " of " + format_metric_value(4, "s")))
      << text;
  EXPECT_EQ(text.find("setup (untimed)"), text.rfind("setup (untimed)")) << text;  // not for "other"
}

TEST(ReportConsole, FormatsMetricValuesByUnit) {
  EXPECT_EQ(format_metric_value(0.925, "fraction"), "92.5%");
  EXPECT_TRUE(contains(format_metric_value(2.5e9, "bytes/s"), "GB/s"));
  EXPECT_TRUE(contains(format_metric_value(1073741824.0, "bytes"), "GiB"));
  EXPECT_EQ(format_metric_value(1234, "count"), "1234");
}

}  // namespace
}  // namespace iofab
