// Reading reports back: what the runner writes reads back the same; every
// bad input is an error naming the file, the JSON path and the expected form.
#include "reports/report_reader.h"

#include <gtest/gtest.h>

#include "reports/json_report.h"
#include "reports/report_fixtures.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

std::string error_of(const json& doc) {
  LoadedReport r;
  Status st = read_report_json(doc, "r.json", &r);
  EXPECT_FALSE(st.ok()) << "accepted: " << doc.dump();
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  return st.message();
}

json good() {
  json p = make_phase("ingest", "ingest", {{"write_bytes_per_s", 1e9}, {"latency_p99_s", 0.01}});
  add_check(&p, "bw", "write_bytes_per_s", ">=", 5e8, 1e9, true);
  return make_report(json::array({p, make_phase("train", "train_read", {{"au", 0.93}})}));
}

TEST(ReportReader, WhatTheWriterWritesReadsBack) {
  Report r;
  r.run = {{"id", "x"}, {"suite", {{"name", "s"}, {"sha256", "ab"}, {"sets", json::array()}}}};
  PhaseReport p;
  p.name = "ingest";
  p.kind = "ingest";
  p.metrics = {{"write_bytes_per_s", 1.5e9}, {"latency_p99_s", 0.002}};
  p.details = {{"units", {{"write_bytes_per_s", "bytes/s"}}}, {"better", {{"write_bytes_per_s", "higher"}}}};
  CheckResult c;
  c.name = "bw";
  c.metric = "write_bytes_per_s";
  c.op = ">=";
  c.threshold = 1e9;
  c.value = 1.5e9;
  c.has_value = true;
  c.passed = true;
  p.checks.push_back(c);
  CheckResult nv = c;
  nv.name = "no value";
  nv.has_value = false;
  nv.passed = false;
  p.checks.push_back(nv);
  r.phases.push_back(p);
  PhaseReport skipped;
  skipped.name = "gpu";
  skipped.kind = "collectives";
  skipped.status = PhaseStatus::kSkipped;
  skipped.reason = "no CUDA device";
  r.phases.push_back(skipped);
  finalize_verdict(&r);

  LoadedReport back;
  Status st = read_report_json(report_to_json(r), "mem", &back);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(back.schema_version, kSchemaVersion);
  ASSERT_EQ(back.report.phases.size(), 2u);
  const PhaseReport& b = back.report.phases[0];
  EXPECT_EQ(*metric_value(b, "write_bytes_per_s"), 1.5e9);
  EXPECT_EQ(metric_unit(b, "write_bytes_per_s"), "bytes/s");
  EXPECT_EQ(metric_better(b, "write_bytes_per_s"), "higher");
  ASSERT_EQ(b.checks.size(), 2u);
  EXPECT_TRUE(b.checks[0].has_value);
  EXPECT_EQ(b.checks[0].value, 1.5e9);
  EXPECT_FALSE(b.checks[1].has_value);
  EXPECT_EQ(back.report.phases[1].status, PhaseStatus::kSkipped);
  EXPECT_EQ(back.report.phases[1].reason, "no CUDA device");
  EXPECT_EQ(back.report.verdict, "failed");
}

TEST(ReportReader, FixtureIsValid) {
  LoadedReport r;
  Status st = read_report_json(good(), "r.json", &r);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(r.report.phases[1].kind, "train_read");
}

TEST(ReportReader, ErrorsNameThePathAndTheExpectedForm) {
  EXPECT_NE(error_of(json::array()).find("r.json: expected an iofab report"), std::string::npos);

  json d = good();
  d.erase("schema_version");
  EXPECT_NE(error_of(d).find("schema_version: expected a whole number >= 1, but it is missing"),
            std::string::npos);

  d = good();
  d["phases"][1]["result"]["metrics"]["au"] = "fast";
  EXPECT_NE(error_of(d).find("phases[1].result.metrics[\"au\"]: expected a number or null, got \"fast\""),
            std::string::npos)
      << error_of(d);

  d = good();
  d["phases"][0]["checks"][0]["passed"] = 1;
  EXPECT_NE(error_of(d).find("phases[0].checks[0].passed: expected true or false, got 1"), std::string::npos);

  d = good();
  d["phases"][0]["checks"][0]["op"] = "=>";
  EXPECT_NE(error_of(d).find("phases[0].checks[0].op: expected one of"), std::string::npos);

  d = good();
  d["phases"][0]["status"] = "ok";
  EXPECT_NE(error_of(d).find("phases[0].status: expected one of \"passed\""), std::string::npos);

  d = good();
  d["phases"][1]["name"] = "ingest";
  EXPECT_NE(error_of(d).find("phases[1].name: expected a name no other phase has"), std::string::npos);

  d = good();
  d["phases"][0]["result"]["details"]["better"]["latency_p99_s"] = "up";
  EXPECT_NE(
      error_of(d).find("phases[0].result.details.better[\"latency_p99_s\"]: expected one of \"higher\""),
      std::string::npos)
      << error_of(d);

  d = good();
  d["phases"][0]["result"]["details"]["repeat"] = {
      {"stats", {{"write_bytes_per_s", {{"mean", 1}, {"stdev", -1}, {"n", 0}, {"values", {1, "x"}}}}}}};
  const std::string e = error_of(d);
  EXPECT_NE(e.find("details.repeat.stats[\"write_bytes_per_s\"].stdev: expected a number >= 0"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find(".n: expected a whole number >= 1"), std::string::npos) << e;
  EXPECT_NE(e.find(".values[1]: expected a number"), std::string::npos) << e;

  d = good();
  d["verdict"] = "passed";
  EXPECT_NE(error_of(d).find("verdict: expected an object, got \"passed\""), std::string::npos);

  d = good();
  d["phases"][0].erase("result");
  EXPECT_NE(error_of(d).find("phases[0].result: expected an object, but it is missing"), std::string::npos);
}

TEST(ReportReader, EveryProblemIsListedAtOnce) {
  json d = good();
  d["phases"][0]["kind"] = 3;
  d["phases"][1]["seconds"] = -2;
  d["run"]["suite"]["sets"] = {"a", 4};
  const std::string e = error_of(d);
  EXPECT_NE(e.find("phases[0].kind: expected a string, got 3"), std::string::npos) << e;
  EXPECT_NE(e.find("phases[1].seconds: expected a number >= 0"), std::string::npos) << e;
  EXPECT_NE(e.find("run.suite.sets[1]: expected a string"), std::string::npos) << e;
}

// phases[].setup_seconds: read back as written, absent from older reports, a negative one refused by its
// path.
TEST(ReportReader, SetupSecondsReadsBackAndANegativeOneIsRefused) {
  Report r;
  PhaseReport p;
  p.name = "ingest";
  p.kind = "ingest";
  p.seconds = 3.5;
  p.setup_seconds = 1.25;
  r.phases.push_back(p);
  finalize_verdict(&r);
  const json written = report_to_json(r);
  EXPECT_EQ(written["phases"][0]["setup_seconds"], 1.25);
  LoadedReport back;
  Status st = read_report_json(written, "mem", &back);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_TRUE(back.report.phases[0].setup_seconds.has_value());
  EXPECT_EQ(*back.report.phases[0].setup_seconds, 1.25);

  LoadedReport older;
  ASSERT_TRUE(read_report_json(good(), "r.json", &older).ok());
  EXPECT_FALSE(older.report.phases[0].setup_seconds.has_value());

  json d = good();
  d["phases"][0]["setup_seconds"] = -1;
  const std::string e = error_of(d);
  EXPECT_NE(e.find("phases[0].setup_seconds: expected a number >= 0"), std::string::npos) << e;
  d["phases"][0]["setup_seconds"] = "2s";
  EXPECT_NE(error_of(d).find("phases[0].setup_seconds"), std::string::npos);
}

TEST(ReportReader, FilesThatAreNotReports) {
  TempDir dir("/dev/shm");
  LoadedReport r;
  Status st = read_report_file(dir.path() + "/nope.json", &r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("nope.json"), std::string::npos);
  EXPECT_NE(st.message().find("No such file"), std::string::npos) << st.message();
  st = read_report_file(dir.path(), &r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("a folder, expected a regular file"), std::string::npos) << st.message();
  write_file(dir.path() + "/bad.json", "{\"schema_version\": 1,\n  \"phases\": [}");
  st = read_report_file(dir.path() + "/bad.json", &r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("bad.json: not valid JSON: parse error at line 2"), std::string::npos)
      << st.message();
}

TEST(ReportReader, CliExitsTwoNamingTheFileAndPath) {
  TempDir dir("/dev/shm");
  json d = good();
  d["phases"][0]["result"]["metrics"]["latency_p99_s"] = json::array();
  write_file(dir.path() + "/bad.json", d.dump());
  write_file(dir.path() + "/good.json", good().dump());
  CommandResult r = run_iofab({"compare", dir.path() + "/good.json", dir.path() + "/bad.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.json: not a valid iofab report"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("phases[0].result.metrics[\"latency_p99_s\"]"), std::string::npos) << r.err;
  r = run_iofab(
      {"report", dir.path() + "/good.json", dir.path() + "/bad.json", "-o", dir.path() + "/p.html"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;
}

TEST(ReportReader, FamiliesAndNameFallbacks) {
  json units = {{"busbw.*", "bytes/s"}, {"busbw.all_reduce.max", "ratio"}};
  EXPECT_EQ(find_by_metric(units, "busbw.all_reduce.1024")->get<std::string>(), "bytes/s");
  EXPECT_EQ(find_by_metric(units, "busbw.all_reduce.max")->get<std::string>(), "ratio");
  EXPECT_EQ(find_by_metric(units, "busbw"), nullptr);
  EXPECT_EQ(direction_from_name("read_bytes_per_s"), "higher");
  EXPECT_EQ(direction_from_name("budget_margin"), "higher");
  EXPECT_EQ(direction_from_name("sample_latency_p99_s"), "lower");
  EXPECT_EQ(direction_from_name("exposed_comm_fraction.fsdp"), "lower");
  EXPECT_EQ(direction_from_name("corrupt_shards"), "lower");
  EXPECT_EQ(direction_from_name("checkpoint_bytes"), "neither");
  EXPECT_TRUE(natural_less("busbw.all_reduce.65536", "busbw.all_reduce.1048576"));
  EXPECT_FALSE(natural_less("busbw.all_reduce.1048576", "busbw.all_reduce.65536"));
}

}  // namespace
}  // namespace iofab::testing
