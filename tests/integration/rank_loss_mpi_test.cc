// A rank killed mid-phase under mpirun: the run must end (never hang), and
// rank 0, or the lowest survivor when 0 is lost, must leave a valid report that names
// the lost rank.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// The pid of the iofab process whose environment says it is rank `rank` and whose command line holds `marker`.
pid_t find_rank_pid(int rank, const std::string& marker) {
  DIR* d = opendir("/proc");
  if (d == nullptr) return -1;
  pid_t found = -1;
  while (dirent* e = readdir(d)) {
    const std::string pid = e->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = read_file("/proc/" + pid + "/cmdline");
    if (cmdline.find(marker) == std::string::npos || cmdline.find("iofab") == std::string::npos) continue;
    std::string env = read_file("/proc/" + pid + "/environ");
    if (env.find("OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + std::string(1, '\0')) != std::string::npos) {
      found = static_cast<pid_t>(std::stoi(pid));
    }
  }
  closedir(d);
  return found;
}

// Runs a long 3-rank ingest, kills rank `victim` once it writes, and returns the report
// (discarded JSON when none was written). The run must end on its own within 60 s.
json kill_rank_mid_ingest(int victim_rank, const std::string& dir) {
  const std::string report = dir + "/r.json";
  const std::string target = dir + "/t";
  const std::string log = dir + "/log";
  pid_t launcher = fork();
  EXPECT_GE(launcher, 0);
  if (launcher == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(IOFAB_MPIEXEC, IOFAB_MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-x", "ASAN_OPTIONS=detect_leaks=0",
          "-np", "3", IOFAB_BINARY, "run", "--target", target.c_str(), "--out", report.c_str(), "--quiet", "--set",
          "phases.ingest.file_size=8GiB", "--set", "phases.ingest.block_size=64KiB", "--set",
          "phases.ingest.queue_depth=1", "--no-preflight", static_cast<char*>(nullptr));
    _exit(127);
  }
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

  // The whole job must end on its own: poll for up to 60 s, then fail as a hang.
  int status = 0;
  bool ended = false;
  for (int i = 0; i < 600 && !ended; ++i) {
    ended = waitpid(launcher, &status, WNOHANG) == launcher;
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!ended) {
    kill(launcher, SIGKILL);
    waitpid(launcher, &status, 0);
  }
  EXPECT_TRUE(ended) << "the run hung after a rank was killed: " << read_file(log);
  EXPECT_NE(status, 0);
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

// Resident memory of the iofab rank `rank` whose command line holds marker, in bytes; 0 if none.
uint64_t rank_rss(int rank, const std::string& marker) {
  const pid_t pid = find_rank_pid(rank, marker);
  if (pid <= 0) return 0;
  const std::string status = read_file("/proc/" + std::to_string(pid) + "/status");
  const auto at = status.find("VmRSS:");
  return at == std::string::npos ? 0 : std::stoull(status.substr(at + 6)) * 1024;
}

// A node lost in the middle of an all_reduce: the survivors are stuck inside MPI's
// blocking call when mpirun asks them to stop, and kills them a second later. Rank 0
// must still leave a report naming the lost rank.
TEST(RankLoss, KilledRankInsideACollectiveStillLeavesAReport) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json", target = dir.path() + "/t", report = dir.path() + "/r.json",
                    log = dir.path() + "/log";
  write_file(suite, R"({"phases": [{"kind": "collectives", "name": "collectives", "mode": "sweep",
      "min_bytes": "64MiB", "max_bytes": "64MiB", "iters": 100000, "warmup": 1, "ops": ["all_reduce"]}]})");
  pid_t launcher = fork();
  ASSERT_GE(launcher, 0);
  if (launcher == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(IOFAB_MPIEXEC, IOFAB_MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-x", "ASAN_OPTIONS=detect_leaks=0",
          "-np", "3", IOFAB_BINARY, "run", suite.c_str(), "--target", target.c_str(), "--out", report.c_str(),
          "--quiet", static_cast<char*>(nullptr));
    _exit(127);
  }
  bool sweeping = false;
  for (int i = 0; i < 600 && !sweeping; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sweeping = rank_rss(2, report) > (128ULL << 20) && rank_rss(0, report) > (128ULL << 20);
  }
  ASSERT_TRUE(sweeping) << read_file(log);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const pid_t victim = find_rank_pid(2, report);
  ASSERT_GT(victim, 0);
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  int status = 0;
  bool ended = false;
  for (int i = 0; i < 600 && !ended; ++i) {
    ended = waitpid(launcher, &status, WNOHANG) == launcher;
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!ended) {
    kill(launcher, SIGKILL);
    waitpid(launcher, &status, 0);
  }
  ASSERT_TRUE(ended) << "the run hung after a rank was killed: " << read_file(log);
  json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "no valid report; log: " << read_file(log);
  EXPECT_EQ(j["verdict"]["status"], "error");
  EXPECT_EQ(j["cluster"]["lost_ranks"], json::array({2}));
  EXPECT_EQ(j["phases"][0]["status"], "error");
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("lost rank 2"), std::string::npos)
      << j["phases"][0]["reason"];
}

}  // namespace
}  // namespace iofab::testing
