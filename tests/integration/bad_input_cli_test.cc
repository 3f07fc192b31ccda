// Bad input through the iofab binary. Hostile input (deep JSON, repeated keys, special files and file names
// that are not UTF-8) must end in a clear error (exit 2) or a correct result, never a crash, an abort or a
// hang; well-formed input that could only fail later is refused before anything is written.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
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

// Bad input that is well-formed: suites that could only fail after earlier phases wrote, option values that
// make a healthy run fail, and `plan` values past what any suite takes. Each exits 2 naming what is wrong,
// before anything is written.

// The ingest phase would write first; the restore of a checkpoint that runs after it can only fail.
TEST(CliBadInput, ValidateAndRunRefuseARestoreOfACheckpointThatRunsLater) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  write_file(suite, R"({"phases": [{"kind": "ingest", "file_size": "1MiB"},
    {"kind": "restore", "checkpoint": "ckpt"},
    {"kind": "checkpoint", "name": "ckpt", "checkpoint_size": "1MiB", "count": 1}]})");
  CommandResult r = run_iofab({"validate", suite});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("phases[1].checkpoint: phase \"ckpt\" runs after restore"), std::string::npos) << r.err;
  r = run_iofab({"run", suite, "--target", dir.path() + "/t", "--out", dir.path() + "/r.json", "-q"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("phases[1].checkpoint"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/t"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/r.json"));
}

TEST(CliBadInput, ValidateRefusesAPhaseNameTooLongForAFileName) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json",
             R"({"phases": [{"kind": "ingest", "name": ")" + std::string(300, 'x') + R"("}]})");
  CommandResult r = run_iofab({"validate", dir.path() + "/s.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("phases[0].name: expected a name of letters, digits, '_' and '-', at most 255"),
            std::string::npos)
      << r.err;
}

// 1ms made a healthy rank "lost", with an empty reason on every phase.
TEST(CliBadInput, RankTimeoutBelowOneSecondIsRefused) {
  TempDir dir("/dev/shm");
  for (const char* bad : {"1ms", "0.5", "0s", "1e300s", "soon"}) {
    CommandResult r = run_iofab({"run", "--target", dir.path(), "--rank-timeout", bad, "-q"});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--rank-timeout: expected a duration from 1s to 7 days"), std::string::npos)
        << bad << ": " << r.err;
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "ingest", "engine": "psync", "file_size": "1MiB"}]})");
  CommandResult r = run_iofab({"run", dir.path() + "/s.json", "--target", dir.path(), "--rank-timeout", "1s",
                               "--out", dir.path() + "/r.json", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(CliBadInput, RunHelpListsNoPreflight) {
  CommandResult r = run_iofab({"run", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--no-preflight"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("for fault tests"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1s to 7 days"), std::string::npos) << r.out;
}

// 0.5, 1e-300 and 1e30 parameters printed "inf bytes" and JSON nulls, exit 0.
TEST(CliBadInput, PlanTakesTheSameRangesAsSuites) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c :
       {Case{{"--params", "0.5"}, "--params: expected a parameter count like 175e9 from 1 to 1e+15"},
        Case{{"--params", "1e-300"}, "--params"}, Case{{"--params", "1e30"}, "--params"},
        Case{{"--params", "1e9", "--bytes-per-param", "1e300"}, "--bytes-per-param"},
        Case{{"--params", "1e9", "--interval", "1e-300"}, "--interval: expected a duration"},
        Case{{"--params", "1e9", "--interval", "100000h"}, "1ms to 365 days"},
        Case{{"--params", "1e9", "--budget-fraction", "1e-300"}, "--budget-fraction"},
        Case{{"--params", "1e9", "--fanout", "1e9"}, "--fanout"},
        Case{{"--params", "1e9", "--writer-fraction", "1e-300"}, "--writer-fraction"},
        Case{{"--params", "1e9", "--restore-budget", "1e-300"}, "--restore-budget"}}) {
    std::vector<std::string> args{"plan"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    CommandResult r = run_iofab(args);
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.out;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.says << ": " << r.err;
  }
  // The extremes a suite takes still give finite figures.
  CommandResult r = run_iofab({"plan", "--params", "1e15", "--bytes-per-param", "1e6", "--interval", "1ms",
                               "--budget-fraction", "1e-6", "--fanout", "65536", "--gpus", "1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("null"), std::string::npos) << r.out;
  r = run_iofab({"plan", "--params", "1e15", "--bytes-per-param", "1e6", "--interval", "1ms",
                 "--budget-fraction", "1e-6", "--fanout", "65536", "--gpus", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("inf"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("n/a"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace iofab::testing
