// docs/report.schema.json is the report's published schema: a real validator (python3-jsonschema, JSON
// Schema 2020-12) accepts what iofab writes and refuses a field the schema does not know, so the schema
// cannot drift from the writer. Every report the tests' runs write is validated after them too
// (ReportSchema.EveryReportTheTestsWrote, tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "reports/html_fixture.h"
#include "reports/json_report.h"
#include "reports/report_fixtures.h"
#include "reports/report_reader.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

const std::string kSchema = std::string(IOFAB_SOURCE_DIR) + "/docs/report.schema.json";
const std::string kValidate = std::string(IOFAB_SOURCE_DIR) + "/tests/validate_reports.sh";

// The validator's verdict on doc as iofab would write it.
CommandResult validate(const json& doc) {
  TempDir d;
  write_file(d.path() + "/r.json", doc.dump(2));
  return run_command({kValidate, kSchema, d.path() + "/r.json"});
}

// The fixture report through the reader and the writer: the shape `iofab run` writes.
json written(const json& doc) {
  LoadedReport r;
  Status st = read_report_json(doc, "r.json", &r);
  EXPECT_TRUE(st.ok()) << st.message();
  return json::parse(render_json_report(r.report));
}

#define SKIP_WITHOUT_VALIDATOR(result) \
  if ((result).exit_code == 77) GTEST_SKIP() << (result).out << " (ci/setup installs python3-jsonschema)"

TEST(ReportSchema, TheSchemaIsValid2020_12AndAcceptsAWrittenReport) {
  json doc = written(full_report("node-a", 1.0));
  doc["target"]["endpoint_source"] = "AWS_ENDPOINT_URL";
  doc["run"]["repeat"] = {{"count", 3}, {"completed", 3}, {"warmup", nullptr}, {"runs", json::array()}};
  const CommandResult r = validate(doc);
  SKIP_WITHOUT_VALIDATOR(r);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "1 report(s) checked")) << r.out;
}

TEST(ReportSchema, AFieldTheSchemaDoesNotKnowFailsNamingWhere) {
  const json good = written(full_report("node-a", 1.0));
  struct Case {
    json::json_pointer at;
    std::string path;  // as the validator prints it
  };
  const Case cases[] = {
      {json::json_pointer("/surprise"), "(top)"},
      {json::json_pointer("/target/surprise"), "[\"target\"]"},
      {json::json_pointer("/run/surprise"), "[\"run\"]"},
      {json::json_pointer("/cluster/hosts/0/surprise"), "[\"cluster\"][\"hosts\"][0]"},
      {json::json_pointer("/phases/0/surprise"), "[\"phases\"][0]"},
      {json::json_pointer("/phases/0/checks/0/surprise"), "[\"phases\"][0][\"checks\"][0]"},
      {json::json_pointer("/verdict/surprise"), "[\"verdict\"]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.at.to_string());
    json doc = good;
    doc[c.at] = 1;
    const CommandResult r = validate(doc);
    SKIP_WITHOUT_VALIDATOR(r);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(
        contains(r.out, c.path + ": Additional properties are not allowed ('surprise' was unexpected)"))
        << r.out;
  }
  // A wrong type and a status outside the list fail too.
  json doc = good;
  doc["phases"][0]["status"] = "fine";
  doc["phases"][0]["result"]["metrics"]["write_bytes"] = "4GB";
  const CommandResult r = validate(doc);
  SKIP_WITHOUT_VALIDATOR(r);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "[\"phases\"][0][\"status\"]")) << r.out;
  EXPECT_TRUE(contains(r.out, "[\"write_bytes\"]: '4GB' is not of type")) << r.out;
}

TEST(ReportSchema, ARealRunsReportValidates) {
  TempDir d;
  const std::string suite = d.path() + "/suite.json";
  write_file(suite, R"({"name": "schema", "phases": [{"kind": "ingest", "name": "ingest", "workers": 1,
    "files_per_worker": 1, "file_size": "1MiB", "block_size": "256KiB", "direct": false,
    "checks": [{"metric": "write_bytes", "op": ">=", "value": 1}]}]})");
  const CommandResult run =
      run_iofab({"run", suite, "--target", d.path() + "/t", "--out", d.path() + "/r.json", "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const CommandResult r = run_command({kValidate, kSchema, d.path() + "/r.json"});
  SKIP_WITHOUT_VALIDATOR(r);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// Every phase kind that ran reports its untimed setup beside its wall time, and the report still validates.
TEST(ReportSchema, EveryPhaseThatRanCarriesItsSetupSeconds) {
  TempDir d;
  const std::string suite = d.path() + "/suite.json";
  write_file(suite, R"({"name": "setup", "phases": [
    {"kind": "ingest", "name": "ingest", "workers": 1, "files_per_worker": 2, "file_size": "1MiB",
     "block_size": "256KiB", "direct": false},
    {"kind": "checkpoint", "name": "checkpoint", "checkpoint_size": "8MiB", "count": 1, "gap": 0,
     "workers": 2, "block_size": "256KiB", "direct": false},
    {"kind": "restore", "name": "restore", "workers": 2, "block_size": "256KiB", "direct": false},
    {"kind": "train_read", "name": "train_read", "num_samples": 256, "sample_size": "4KiB",
     "samples_per_shard": 64, "batch_size": 16, "epochs": 1},
    {"kind": "prepare", "name": "prepare", "num_samples": 60, "sample_size": "6KiB", "shard_size": "64KiB",
     "block_size": "16KiB"},
    {"kind": "model_load", "name": "model_load", "model": {"layers": 2, "hidden": 256, "ffn": 512,
     "vocab": 1000, "heads": 4, "kv_heads": 2}, "max_shard_size": "1MB", "block_size": "64KiB"},
    {"kind": "metadata", "name": "metadata", "files_per_rank": 20},
    {"kind": "collectives", "name": "collectives"}]})");
  const std::string out = d.path() + "/r.json";
  const CommandResult run = run_iofab({"run", suite, "--target", d.path() + "/t", "--out", out, "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = json::parse(read_file(out));
  for (const json& p : report["phases"]) {
    SCOPED_TRACE(p["name"].dump());
    if (p["status"] == "skipped") {  // collectives on one rank: no window, no setup
      EXPECT_FALSE(p.contains("setup_seconds"));
      continue;
    }
    ASSERT_TRUE(p.contains("setup_seconds") && p["setup_seconds"].is_number());
    EXPECT_GE(p["setup_seconds"].get<double>(), 0);
    EXPECT_LE(p["setup_seconds"].get<double>(), p["seconds"].get<double>());
  }
  const CommandResult r = run_command({kValidate, kSchema, out});
  SKIP_WITHOUT_VALIDATOR(r);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

}  // namespace
}  // namespace iofab::testing
