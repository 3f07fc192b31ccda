// A rank killed mid-phase under mpirun: the run must end (never hang), and
// rank 0, or the lowest survivor when 0 is lost, must leave a valid report that names
// the lost rank.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// Runs a long 3-rank ingest, kills rank `victim` once it writes, and returns the report
// (discarded JSON when none was written). The run must end on its own within 60 s.
json kill_rank_mid_ingest(int victim_rank, const std::string& dir) {
  const std::string report = dir + "/r.json";
  const std::string target = dir + "/t";
  const std::string log = dir + "/log";
  const pid_t launcher = start_mpirun_iofab(3, {"run", "--target", target, "--out", report, "--quiet", "--set",
                                                "phases.ingest.file_size=8GiB", "--set",
                                                "phases.ingest.block_size=64KiB", "--set",
                                                "phases.ingest.queue_depth=1", "--no-preflight"},
                                            log);
  EXPECT_GT(launcher, 0);
  // Wait until the victim writes, then kill it as a node failure would.
  const std::string prefix = "r" + std::to_string(victim_rank) + "-";
  pid_t victim = -1;
  for (int i = 0; i < 400 && victim < 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    bool writing = false;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(target, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      writing = writing || it->path().filename().string().rfind(prefix, 0) == 0;
    }
    if (writing) victim = find_rank_pid(victim_rank, report);
  }
  EXPECT_GT(victim, 0) << "rank " << victim_rank << " never started writing: " << read_file(log);
  if (victim > 0) {
    EXPECT_EQ(kill(victim, SIGKILL), 0);
  }

  // The whole job must end on its own within 60 s, else it is a hang.
  int status = 0;
  const bool ended = wait_for_exit(launcher, std::chrono::seconds(60), &status);
  EXPECT_TRUE(ended) << "the run hung after a rank was killed: " << read_file(log);
  EXPECT_NE(status, 0);
  // mpirun kills the survivors a second after its SIGTERM; the report courier, outside its
  // reach, may still be renaming the report into place.
  EXPECT_TRUE(wait_until_no_process(report, std::chrono::seconds(60)));
  kill_every_process(report);
  json j = json::parse(read_file(report), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "no valid report; log: " << read_file(log);
  return j;
}

TEST(RankLoss, KilledRankIsNamedInTheReportAndTheRunEnds) {
  TempDir dir("/var/tmp");
  json j = kill_rank_mid_ingest(1, dir.path());
  if (j.is_discarded()) return;
  EXPECT_EQ(j["verdict"]["status"], "error");
  EXPECT_EQ(j["cluster"]["lost_ranks"], json::array({1}));
  EXPECT_EQ(j["cluster"]["report_rank"], 0);
  EXPECT_EQ(j["phases"][0]["status"], "error");
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("lost rank 1"), std::string::npos)
      << j["phases"][0]["reason"];
}

// Rank 0 gathers the results and writes the report; when it is the one lost, the lowest
// survivor must write it instead.
TEST(RankLoss, KilledRankZeroLeavesTheReportToTheLowestSurvivor) {
  TempDir dir("/var/tmp");
  json j = kill_rank_mid_ingest(0, dir.path());
  if (j.is_discarded()) return;
  EXPECT_EQ(j["verdict"]["status"], "error");
  EXPECT_EQ(j["cluster"]["lost_ranks"], json::array({0}));
  EXPECT_EQ(j["cluster"]["report_rank"], 1);
  EXPECT_EQ(j["cluster"]["ranks"], 3);
  EXPECT_EQ(j["phases"][0]["status"], "error");
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("lost rank 0"), std::string::npos)
      << j["phases"][0]["reason"];
}

// A node lost in the middle of an all_reduce: the survivors are stuck inside MPI's
// blocking call when mpirun asks them to stop, and kills them a second later. Rank 0
// must still leave a report naming the lost rank.
TEST(RankLoss, KilledRankInsideACollectiveStillLeavesAReport) {
  const RunFiles f("/dev/shm");
  const std::string &target = f.target, &report = f.report, &log = f.log;
  const pid_t launcher = start_long_sweep(f, 3, "64MiB", "collectives");
  ASSERT_GT(launcher, 0);
  // In the run (the run folder open, so the stop handlers are set) with the 64 MiB buffers allocated.
  const bool sweeping = wait_until_ranks_in_run({2, 0}, report, target, 128ULL << 20);
  ASSERT_TRUE(sweeping) << read_file(log);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const pid_t victim = find_rank_pid(2, report);
  ASSERT_GT(victim, 0);
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  int status = 0;
  const bool ended = wait_for_exit(launcher, std::chrono::seconds(60), &status);
  ASSERT_TRUE(ended) << "the run hung after a rank was killed: " << read_file(log);
  EXPECT_TRUE(wait_until_no_process(report, std::chrono::seconds(60)));
  kill_every_process(report);
  json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "no valid report; log: " << read_file(log);
  EXPECT_EQ(j["verdict"]["status"], "error");
  EXPECT_EQ(j["cluster"]["lost_ranks"], json::array({2}));
  EXPECT_EQ(j["phases"][0]["status"], "error");
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("lost rank 2"), std::string::npos)
      << j["phases"][0]["reason"];
}

// A rank that hangs (stopped, not dead) is lost only by the rank timeout, and no launcher
// ends the job: the survivors leave on their own, and under mpirun the first to leave
// ends everyone. The writer must be the last to leave, however long the report takes:
// each rename of rank 0's report is held 3 s (strace), longer than any fixed wait allowed.
TEST(RankLoss, HungRankTimesOutAndTheOthersWaitForTheWritersReport) {
  if (std::system("command -v strace >/dev/null 2>&1") != 0) GTEST_SKIP() << "strace is not installed";
  TempDir dir("/var/tmp");
  const std::string suite = dir.path() + "/s.json", target = dir.path() + "/t", report = dir.path() + "/r.json",
                    log = dir.path() + "/log";
  // Three small checkpoints 2 s apart: ranks agree at every commit, so a rank stopped after
  // the first one is missed at the next agreement, while the others have little to write.
  write_file(suite, R"({"phases": [{"kind": "checkpoint", "name": "ckpt", "checkpoint_size": "24MiB",
      "count": 3, "gap": "2s", "workers": 1, "block_size": "1MiB", "engine": "psync"}]})");
  const std::vector<std::string> args{"run", suite, "--target", target, "--out", report, "--quiet",
                                      "--rank-timeout", "8s", "--no-preflight"};
  std::vector<std::string> line{"-np", "1", "strace", "-f", "-qq", "-o", "/dev/null", "-e",
                                "trace=rename,renameat,renameat2", "-e",
                                "inject=rename,renameat,renameat2:delay_enter=3000000", IOFAB_BINARY};
  line.insert(line.end(), args.begin(), args.end());
  line.insert(line.end(), {":", "-np", "2", IOFAB_BINARY});
  line.insert(line.end(), args.begin(), args.end());
  const pid_t launcher = start_mpirun(line, log);
  ASSERT_GT(launcher, 0);
  // Stop rank 2 once the first checkpoint is committed: a hung node, which no launcher notices.
  pid_t victim = -1;
  for (int i = 0; i < 2400 && victim < 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    bool committed = false;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(target, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      committed = committed || it->path().string().ends_with("/step-1/manifest.json");
    }
    if (committed) victim = find_rank_pid(2, report);
  }
  ASSERT_GT(victim, 0) << "the first checkpoint was never committed: " << read_file(log);
  ASSERT_EQ(kill(victim, SIGSTOP), 0);
  int status = 0;
  const bool ended = wait_for_exit(launcher, std::chrono::seconds(120), &status);
  kill(victim, SIGKILL);  // never leave a stopped rank behind, whatever happened
  EXPECT_TRUE(ended) << "the run hung after a rank stopped answering: " << read_file(log);
  EXPECT_TRUE(wait_until_no_process(report, std::chrono::seconds(60)));
  kill_every_process(report);
  json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "no valid report; log: " << read_file(log);
  EXPECT_EQ(j["verdict"]["status"], "error");
  EXPECT_EQ(j["cluster"]["report_rank"], 0);
  EXPECT_EQ(j["cluster"]["lost_ranks"], json::array({2}));
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("rank 2"), std::string::npos)
      << j["phases"][0]["reason"];
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("rank timeout"), std::string::npos)
      << j["phases"][0]["reason"];
}

}  // namespace
}  // namespace iofab::testing
