// Bad input through the iofab binary: suites that could only fail after earlier phases wrote, option values
// that make a healthy run fail, and `plan` values past what any suite takes. Each exits 2 naming what is
// wrong, before anything is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

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
