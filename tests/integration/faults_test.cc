// Faults: a full filesystem and failing syscalls. Each must fail only the
// phase it hits, with the errno text, leave no files, and still produce a
// valid report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(Faults, PreflightRefusesASmallFilesystemBeforeWriting) {
  SmallTmpfs fs;
  if (!fs.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  TempDir out("/dev/shm");
  CommandResult r = run_iofab({"run", "--target", fs.path(), "--out", out.path() + "/r.json", "--set",
                               "defaults.direct=false"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("preflight"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("67108864 bytes free"), std::string::npos) << r.err;  // names the free bytes
  EXPECT_TRUE(list_files(fs.path()).empty());
  EXPECT_FALSE(std::filesystem::exists(out.path() + "/r.json"));
}

// Each phase alone fits, but the checkpoint stays on the target for the restore and the
// train_read dataset comes on top of it: the peak is their sum. 128 MiB of tmpfs leaves
// 64 MiB after the preflight's fixed margin.
TEST(Faults, PreflightCountsWhatEarlierPhasesLeaveOnTheTarget) {
  SmallTmpfs fs("128m");
  if (!fs.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  TempDir out("/dev/shm");
  const std::string suite = out.path() + "/s.json";
  // 1e6 params x 14 bytes = 14 MB a checkpoint: 28 MB at its peak, 14 MB left for restore;
  // the dataset is 3584 x 16 KiB = 56 MiB.
  write_file(suite, R"({"defaults": {"direct": false},
    "phases": [{"kind": "checkpoint", "params": 1e6, "count": 2, "gap": "0s"},
               {"kind": "train_read", "num_samples": 3584, "sample_size": "16KiB", "epochs": 1},
               {"kind": "restore", "fanout": 1}]})");
  CommandResult r = run_iofab({"run", suite, "--target", fs.path(), "--out", out.path() + "/r.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("for phase train_read (with 14000128 bytes that earlier phases leave"), std::string::npos)
      << r.err;
  EXPECT_TRUE(list_files(fs.path()).empty());

  // A smaller dataset fits beside the checkpoint, and the run goes through.
  r = run_iofab({"run", suite, "--target", fs.path(), "--out", out.path() + "/r.json", "--quiet", "--set",
                 "phases.train_read.num_samples=256"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A restore of another run's checkpoint writes nothing on its target: the preflight's fixed margin must
// not refuse it on a target with less free space than the margin (16 MiB here).
TEST(Faults, ASuiteThatWritesNothingPassesThePreflightOnAnAlmostFullTarget) {
  SmallTmpfs fs("16m");
  if (!fs.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  TempDir work("/dev/shm");
  write_file(work.path() + "/c.json", R"({"phases": [{"kind": "checkpoint", "engine": "psync",
    "checkpoint_size": "1MiB", "count": 1, "gap": 0}]})");
  CommandResult r = run_iofab({"run", work.path() + "/c.json", "--target", work.path(), "--out",
                               work.path() + "/c-report.json", "-q", "--keep"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string step =
      json::parse(read_file(work.path() + "/c-report.json"))["target"]["run_folder"].get<std::string>() +
      "/checkpoint/step-1";
  write_file(work.path() + "/r.json", R"({"phases": [{"kind": "restore", "engine": "psync", "fanout": 1,
    "from": ")" + step + R"("}]})");
  r = run_iofab({"run", work.path() + "/r.json", "--target", fs.path(), "--out", work.path() + "/r-report.json",
                 "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("preflight"), std::string::npos) << r.err;
}

TEST(Faults, EnospcMidWriteFailsThePhaseAndLaterPhasesStillRun) {
  SmallTmpfs fs;
  if (!fs.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  TempDir out("/dev/shm");
  const std::string suite = out.path() + "/s.json";
  write_file(suite, R"({"defaults": {"direct": false, "block_size": "1MiB", "queue_depth": 4},
    "phases": [
      {"kind": "ingest", "name": "too_big", "workers": 2, "file_size": "48MiB"},
      {"kind": "ingest", "name": "fits", "file_size": "8MiB",
       "checks": [{"metric": "write_bytes", "op": "==", "value": "8MiB"}]}]})");
  const std::string report = out.path() + "/r.json";
  CommandResult r = run_iofab({"run", suite, "--target", fs.path(), "--out", report, "--no-preflight", "--quiet"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  json j = json::parse(read_file(report));
  EXPECT_EQ(j["verdict"]["status"], "error");
  EXPECT_EQ(j["phases"][0]["status"], "error");
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("No space left on device"), std::string::npos)
      << j["phases"][0]["reason"];
  EXPECT_EQ(j["phases"][1]["status"], "passed") << j["phases"][1]["reason"];
  EXPECT_EQ(j["phases"][1]["checks"][0]["passed"], true);
  EXPECT_TRUE(list_files(fs.path()).empty()) << "files left on the full filesystem";
}

TEST(Faults, EioOnPwriteFailsThePhaseWithTheErrnoText) {
  const std::string strace = "/usr/bin/strace";
  if (access(strace.c_str(), X_OK) != 0) GTEST_SKIP() << "strace not installed (apt-get install strace)";
  TempDir dir("/var/tmp");
  const std::string report = dir.path() + "/r.json";
  const std::string target = dir.path() + "/t";
  // The 5th pwrite64 of any thread fails with EIO, as a dying disk would answer.
  CommandResult r = run_command({strace, "-f", "-o", "/dev/null", "-e", "trace=pwrite64", "-e",
                                 "inject=pwrite64:error=EIO:when=5",
                                 // LeakSanitizer cannot run under ptrace; ASan's other checks stay on.
                                 "/usr/bin/env", "ASAN_OPTIONS=detect_leaks=0", IOFAB_BINARY, "run", "--target", target, "--out",
                                 report, "--quiet", "--set", "defaults.engine=psync", "--set",
                                 "phases.ingest.file_size=8MiB"});
  if (r.exit_code != 3 && r.err.find("PTRACE") != std::string::npos) GTEST_SKIP() << "ptrace refused: " << r.err;
  EXPECT_EQ(r.exit_code, 3) << r.err;
  json j = json::parse(read_file(report));
  EXPECT_EQ(j["phases"][0]["status"], "error");
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("Input/output error"), std::string::npos)
      << j["phases"][0]["reason"];
  EXPECT_TRUE(list_files(target).empty());
}

// EIO on reads, mid-phase: the 5th pread64 of any thread fails. Only the phase that reads
// fails, with the errno text; the phase before it (which only writes) passes, and nothing is left.
struct ReadFault {
  const char* name;
  const char* suite;
  int reading_phase;
};

class EioOnRead : public ::testing::TestWithParam<ReadFault> {};

TEST_P(EioOnRead, FailsTheReadingPhaseWithTheErrnoText) {
  const std::string strace = "/usr/bin/strace";
  if (access(strace.c_str(), X_OK) != 0) GTEST_SKIP() << "strace not installed (apt-get install strace)";
  TempDir dir("/var/tmp");
  const std::string suite = dir.path() + "/s.json", report = dir.path() + "/r.json", target = dir.path() + "/t";
  write_file(suite, GetParam().suite);
  CommandResult r = run_command({strace, "-f", "-o", "/dev/null", "-e", "trace=pread64", "-e",
                                 "inject=pread64:error=EIO:when=5", "/usr/bin/env", "ASAN_OPTIONS=detect_leaks=0",
                                 IOFAB_BINARY, "run", suite, "--target", target, "--out", report, "--quiet"});
  if (r.exit_code != 3 && r.err.find("PTRACE") != std::string::npos) GTEST_SKIP() << "ptrace refused: " << r.err;
  EXPECT_EQ(r.exit_code, 3) << r.err;
  json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.err;
  const int k = GetParam().reading_phase;
  for (int before = 0; before < k; ++before) EXPECT_EQ(j["phases"][before]["status"], "passed") << before;
  EXPECT_EQ(j["phases"][k]["status"], "error");
  EXPECT_NE(j["phases"][k]["reason"].get<std::string>().find("Input/output error"), std::string::npos)
      << j["phases"][k]["reason"];
  EXPECT_EQ(j["verdict"]["status"], "error");
  EXPECT_TRUE(list_files(target).empty());
}

INSTANTIATE_TEST_SUITE_P(
    Phases, EioOnRead,
    ::testing::Values(
        ReadFault{"restore", R"({"defaults": {"engine": "psync", "direct": true, "workers": 2, "block_size": "1MiB"},
          "phases": [{"kind": "checkpoint", "params": 1e6, "count": 1, "gap": "0s"},
                     {"kind": "restore", "fanout": 2}]})", 1},
        ReadFault{"train_read", R"({"defaults": {"engine": "psync", "direct": true},
          "phases": [{"kind": "train_read", "layout": "shards", "num_samples": 512, "sample_size": "16KiB",
                      "samples_per_shard": 128, "epochs": 2}]})", 0}),
    [](const auto& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace iofab::testing
