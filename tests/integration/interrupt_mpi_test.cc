// Ctrl-C on mpirun in the middle of a long collectives sweep: mpirun forwards
// the signal and kills the ranks about a second later, so the ranks must agree
// to stop within that second and rank 0 must write an `interrupted` report.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// Resident memory of the iofab rank `rank` whose command line holds marker, in bytes; 0 if none.
uint64_t rank_rss(int rank, const std::string& marker) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = read_file("/proc/" + pid + "/cmdline");
    if (cmdline.find(marker) == std::string::npos || cmdline.find("iofab") == std::string::npos) continue;
    const std::string env = read_file("/proc/" + pid + "/environ");
    if (env.find("OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + std::string(1, '\0')) == std::string::npos) continue;
    const std::string status = read_file("/proc/" + pid + "/status");
    const auto at = status.find("VmRSS:");
    if (at != std::string::npos) return std::stoull(status.substr(at + 6)) * 1024;
  }
  return 0;
}

TEST(MpiInterrupt, CtrlCOnMpirunMidSweepWritesAnInterruptedReport) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json", target = dir.path() + "/t", report = dir.path() + "/r.json",
                    log = dir.path() + "/log";
  // One size, 64 MiB, many times over: minutes of work, so the signal lands inside the size.
  write_file(suite, R"({"phases": [{"kind": "collectives", "name": "collectives", "mode": "sweep",
      "min_bytes": "64MiB", "max_bytes": "64MiB", "iters": 100000, "warmup": 1, "ops": ["all_reduce"]}]})");
  pid_t launcher = fork();
  ASSERT_GE(launcher, 0);
  if (launcher == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(IOFAB_MPIEXEC, IOFAB_MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-x", "ASAN_OPTIONS=detect_leaks=0",
          "-np", "2", IOFAB_BINARY, "run", suite.c_str(), "--target", target.c_str(), "--out", report.c_str(),
          "--quiet", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Both ranks hold their 64 MiB send and receive buffers once the sweep runs.
  bool sweeping = false;
  for (int i = 0; i < 600 && !sweeping; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sweeping = rank_rss(0, report) > (128ULL << 20) && rank_rss(1, report) > (128ULL << 20);
  }
  ASSERT_TRUE(sweeping) << read_file(log);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(launcher, SIGINT), 0);
  int status = 0;
  bool ended = false;
  for (int i = 0; i < 300 && !ended; ++i) {
    ended = waitpid(launcher, &status, WNOHANG) == launcher;
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!ended) {
    kill(launcher, SIGKILL);
    waitpid(launcher, &status, 0);
  }
  ASSERT_TRUE(ended) << "mpirun did not end after Ctrl-C: " << read_file(log);
  json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "no valid report: " << read_file(log);
  EXPECT_EQ(j["verdict"]["status"], "interrupted");
  EXPECT_EQ(j["phases"][0]["status"], "interrupted") << j["phases"][0]["reason"];
  std::error_code ec;
  EXPECT_TRUE(std::filesystem::is_empty(target, ec)) << "run folder left behind";
}

}  // namespace
}  // namespace iofab::testing
