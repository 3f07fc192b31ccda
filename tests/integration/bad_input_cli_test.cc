// Hostile input through the iofab binary: deep JSON, repeated keys, special
// files and file names that are not UTF-8 must end in a clear error (exit 2)
// or a correct result, never a crash, an abort or a hang.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "fifo_guard.h"
#include "harness/core/utf8.h"
#include "reports/report_fixtures.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// 60,000 levels: what crashed the describing and copying code with SIGSEGV.
std::string deep_array() { return std::string(60000, '[') + std::string(60000, ']'); }

std::string valid_report_text() {
  return make_report(json::array({make_phase("ingest", "ingest", {{"write_bytes_per_s", 1e9}})})).dump(1);
}

TEST(BadInputCli, DeepJsonInASuiteOrASetValueIsRefused) {
  TempDir d;
  const std::string suite = d.path() + "/deep.json";
  write_file(suite, "{\"phases\": [{\"kind\": \"ingest\", \"x\": " + deep_array() + "}]}");
  CommandResult r = run_iofab({"validate", suite});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(suite + ": nested deeper than 64 levels"), std::string::npos) << r.err;
  r = run_iofab({"validate", "default", "--set", "defaults.workers=" + deep_array()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--set defaults.workers: nested deeper than 64 levels"), std::string::npos) << r.err;
}

TEST(BadInputCli, DeepJsonInAReportIsRefusedByCompareAndReport) {
  TempDir d;
  const std::string good = d.path() + "/good.json", deep = d.path() + "/deep.json";
  write_file(good, valid_report_text());
  json doc = json::parse(valid_report_text());
  doc.erase("warnings");
  std::string text = doc.dump();
  text.insert(text.rfind('}'), ", \"warnings\": " + deep_array());
  write_file(deep, text);
  CommandResult r = run_iofab({"compare", good, deep});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(deep + ": nested deeper than 64 levels"), std::string::npos) << r.err;
  r = run_iofab({"report", good, deep, "-o", d.path() + "/page.html"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(deep + ": nested deeper than 64 levels"), std::string::npos) << r.err;
}

TEST(BadInputCli, ARepeatedKeyIsRefusedNamingIt) {
  TempDir d;
  const std::string suite = d.path() + "/dup.json";
  write_file(suite, R"({"phases": [{"kind": "ingest", "block_size": "1MiB", "block_size": "4MiB"}]})");
  CommandResult r = run_iofab({"validate", suite});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("phases[0]: the key \"block_size\" appears twice"), std::string::npos) << r.err;
  r = run_iofab({"validate", "default", "--set", R"(defaults.x={"a": 1, "a": 2})"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--set defaults.x: the top level: the key \"a\" appears twice"), std::string::npos)
      << r.err;
  // A report read back: refused too (iofab never writes one).
  const std::string good = d.path() + "/good.json", dup = d.path() + "/dup-report.json";
  write_file(good, valid_report_text());
  std::string text = valid_report_text();
  text.insert(text.find('{') + 1, "\"schema_version\": 2, ");
  write_file(dup, text);
  r = run_iofab({"compare", good, dup});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the key \"schema_version\" appears twice"), std::string::npos) << r.err;
}

TEST(BadInputCli, AFifoOrADeviceAsAnInputFileIsRefusedAtOnce) {
  TempDir d;
  const std::string fifo = d.path() + "/suite.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  CommandResult r;
  {
    FifoGuard guard(fifo);
    r = run_iofab({"validate", fifo});
    EXPECT_FALSE(guard.fired()) << "iofab validate blocked opening the FIFO";
  }
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(fifo + ": a FIFO (named pipe), expected a regular file"), std::string::npos) << r.err;
  {
    const std::string good = d.path() + "/good.json";
    write_file(good, valid_report_text());
    FifoGuard guard(fifo);
    r = run_iofab({"compare", good, fifo});
    EXPECT_FALSE(guard.fired()) << "iofab compare blocked opening the FIFO";
  }
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("a FIFO (named pipe)"), std::string::npos) << r.err;
  // /dev/null, not /dev/zero: a regression must fail, not eat the machine's memory.
  r = run_iofab({"validate", "/dev/null"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("/dev/null: a character device, expected a regular file"), std::string::npos) << r.err;
  r = run_iofab({"validate", d.path()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(d.path() + ": a folder, expected a regular file"), std::string::npos) << r.err;
}

TEST(BadInputCli, AFileNameThatIsNotUtf8StillGivesWellFormedOutput) {
  TempDir d;
  const std::string base = d.path() + "/base.json", cur = d.path() + "/cur-\xff\xfe.json";
  write_file(base, valid_report_text());
  write_file(cur, valid_report_text());
  const std::string junit = d.path() + "/j.xml", out = d.path() + "/c.json", md = d.path() + "/c.md";
  CommandResult r = run_iofab({"compare", base, cur, "--junit", junit, "--out", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string xml = read_file(junit);
  EXPECT_EQ(valid_utf8(xml), xml) << "the JUnit XML is not UTF-8";
  EXPECT_NE(xml.find("cur-\xEF\xBF\xBD\xEF\xBF\xBD.json"), std::string::npos) << xml;
  EXPECT_FALSE(json::parse(read_file(out), nullptr, false).is_discarded());
  r = run_iofab({"compare", base, cur, "--out", md});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(valid_utf8(read_file(md)), read_file(md));
  const std::string page = d.path() + "/page.html";
  r = run_iofab({"report", base, cur, "-o", page});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(valid_utf8(read_file(page)), read_file(page)) << "the page is not UTF-8";
}

}  // namespace
}  // namespace iofab::testing
