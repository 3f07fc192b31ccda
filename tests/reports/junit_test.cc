// JUnit XML: well-formed, with the elements and attributes the JUnit schema
// requires (testsuites > testsuite[name, tests, failures, errors] >
// testcase[name, classname, time], failure[message]), and failures that
// carry the measured value and the threshold.
#include <gtest/gtest.h>
#include <unistd.h>

#include "reports/junit_report.h"
#include "reports/report_fixtures.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// Checks the XML with a real parser: python3's xml.etree where it exists,
// else xmllint for well-formedness; "" when neither is installed.
constexpr const char* kSchemaCheck = R"PY(
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
total = 0
for s in root:
    if s.tag != "testsuite":
        continue
    for a in ("name", "tests", "failures", "errors"):
        assert a in s.attrib, "testsuite lacks " + a
    cases = s.findall("testcase")
    assert int(s.get("tests")) == len(cases), "tests count"
    assert int(s.get("failures")) == len([c for c in cases if c.find("failure") is not None]), "failures count"
    assert int(s.get("errors")) == len([c for c in cases if c.find("error") is not None]), "errors count"
    for c in cases:
        for a in ("name", "classname", "time"):
            assert a in c.attrib, "testcase lacks " + a
        float(c.get("time"))
        for f in c.findall("failure") + c.findall("error"):
            assert f.get("message"), "failure without message"
    total += len(cases)
assert int(root.get("tests")) == total, "total tests"
print("OK", total)
)PY";

std::string validate(const std::string& xml) {
  TempDir dir("/dev/shm");
  const std::string file = dir.path() + "/junit.xml", script = dir.path() + "/check.py";
  write_file(file, xml);
  write_file(script, kSchemaCheck);
  if (run_command({"/usr/bin/env", "python3", "-c", "import xml.etree.ElementTree"}).exit_code == 0) {
    CommandResult r = run_command({"/usr/bin/env", "python3", script, file});
    return r.exit_code == 0 ? "OK" : r.err + r.out;
  }
  if (access("/usr/bin/xmllint", X_OK) == 0) {
    CommandResult r = run_command({"/usr/bin/xmllint", "--noout", file});
    return r.exit_code == 0 ? "OK" : r.err;
  }
  return "";
}

Report run_report() {
  Report r;
  r.run = {{"start_time", "2024-05-01T12:00:00Z"}, {"suite", {{"name", "nightly <&> \"q\""}}}};
  r.cluster = {{"hosts", json::array({{{"hostname", "node-1"}}})}};
  PhaseReport p;
  p.name = "ingest";
  p.kind = "ingest";
  p.seconds = 3.25;
  p.metrics = {{"write_bytes_per_s", 2e8}};
  p.details = {{"units", {{"write_bytes_per_s", "bytes/s"}}}};
  p.warnings = {"buffered <writes>"};
  CheckResult ok{"latency ok", "latency_p99_s", "<=", 2, "2s", 0.01, true, true};
  CheckResult bad{"write_bytes_per_s >= 1GB/s", "write_bytes_per_s", ">=", 1e9, "1GB/s", 2e8, true, false};
  p.checks = {ok, bad};
  r.phases.push_back(p);
  PhaseReport e;
  e.name = "restore";
  e.kind = "restore";
  e.status = PhaseStatus::kError;
  e.reason = "read shard 3: Input/output error";
  e.checks = {{"restore fast", "restore_seconds", "<=", 60, "1min", 0, false, false}};
  r.phases.push_back(e);
  PhaseReport s;
  s.name = "gpu";
  s.kind = "collectives";
  s.status = PhaseStatus::kSkipped;
  s.reason = "needs >= 2 ranks";
  r.phases.push_back(s);
  finalize_verdict(&r);
  return r;
}

TEST(Junit, RunHasTheRequiredFieldsAndParses) {
  const std::string xml = junit_for_run(run_report());
  const std::string v = validate(xml);
  if (v.empty()) {
    // Neither python3 nor xmllint: a structural check instead.
    EXPECT_EQ(xml.rfind("<?xml", 0), 0u);
  } else {
    EXPECT_EQ(v.substr(0, 2), "OK") << v << "\n" << xml;
  }
  EXPECT_NE(
      xml.find(
          "<testsuites name=\"iofab run nightly &lt;&amp;&gt; &quot;q&quot;\" tests=\"6\" failures=\"2\" "
          "errors=\"1\" skipped=\"1\""),
      std::string::npos)
      << xml;
  EXPECT_NE(
      xml.find(
          "<testsuite name=\"ingest\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"3.250\" "
          "timestamp=\"2024-05-01T12:00:00\" hostname=\"node-1\""),
      std::string::npos)
      << xml;
  EXPECT_NE(
      xml.find("<testcase name=\"latency ok\" classname=\"iofab.nightly &lt;&amp;&gt; &quot;q&quot;.ingest\" "
               "time=\"0.000\">"),
      std::string::npos)
      << xml;
  // The failure carries the measured value and the threshold, for people and raw.
  EXPECT_NE(
      xml.find(
          "<failure message=\"write_bytes_per_s measured 200 MB/s (200000000), threshold &gt;= 1.00 GB/s "
          "(1000000000, as written: 1GB/s)\" type=\"check failed\">"),
      std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<error message=\"error: read shard 3: Input/output error\" type=\"error\">"),
            std::string::npos);
  EXPECT_NE(xml.find("measured nothing (phase error)"), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"skipped: needs &gt;= 2 ranks\"/>"), std::string::npos);
  EXPECT_NE(xml.find("warning: buffered &lt;writes&gt;"), std::string::npos);
}

TEST(Junit, CompareHasACasePerMetricAndParses) {
  json base = make_report(json::array({make_phase(
      "ingest", "ingest", {{"write_bytes_per_s", 1e9}, {"latency_p99_s", 0.01}, {"fsync_seconds", 0.2}})}));
  json cur = base;
  auto& m = cur["phases"][0]["result"]["metrics"];
  m["write_bytes_per_s"] = 8e8;
  m.erase("fsync_seconds");
  m["ios"] = 1000;
  LoadedReport b, c;
  ASSERT_TRUE(read_report_json(base, "base.json", &b).ok());
  ASSERT_TRUE(read_report_json(cur, "cur.json", &c).ok());
  Comparison cmp;
  ASSERT_TRUE(compare_reports(b, c, {}, &cmp).ok());
  const std::string xml = junit_for_compare(cmp, c.report);
  const std::string v = validate(xml);
  if (!v.empty()) {
    EXPECT_EQ(v.substr(0, 2), "OK") << v << "\n" << xml;
  }
  EXPECT_NE(
      xml.find("<testsuites name=\"iofab compare\" tests=\"4\" failures=\"2\" errors=\"0\" skipped=\"1\""),
      std::string::npos)
      << xml;
  EXPECT_NE(
      xml.find("<testcase name=\"write_bytes_per_s\" classname=\"iofab.compare.ingest\" time=\"0.000\">"),
      std::string::npos);
  EXPECT_NE(
      xml.find(
          "<failure message=\"write_bytes_per_s regressed: measured 800 MB/s (800000000), threshold &gt;= "
          "950 MB/s (950000000)"),
      std::string::npos)
      << xml;
  EXPECT_NE(xml.find("type=\"missing\""), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"nothing to compare with: not in the baseline\"/>"),
            std::string::npos);
}

}  // namespace
}  // namespace iofab::testing
