// Ctrl-C on mpirun in the middle of a long collectives sweep: mpirun forwards
// the signal and kills the ranks about a second later, so the ranks must agree
// to stop within that second and rank 0 must write an `interrupted` report.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(MpiInterrupt, CtrlCOnMpirunMidSweepWritesAnInterruptedReport) {
  const RunFiles f("/dev/shm");
  const std::string &target = f.target, &report = f.report, &log = f.log;
  // One size, 64 MiB, many times over: minutes of work, so the signal lands inside the size.
  const pid_t launcher = start_long_sweep(f, 2, "64MiB", "collectives");
  ASSERT_GT(launcher, 0);
  // Both ranks hold their 64 MiB send and receive buffers once the sweep runs.
  const bool sweeping = wait_until_ranks_in_run({0, 1}, report, target, 128ULL << 20);
  ASSERT_TRUE(sweeping) << read_file(log);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(launcher, SIGINT), 0);
  int status = 0;
  const bool ended = wait_for_exit(launcher, std::chrono::seconds(30), &status);
  ASSERT_TRUE(ended) << "mpirun did not end after Ctrl-C: " << read_file(log);
  // A rank mpirun killed may have left the last report write to its courier.
  EXPECT_TRUE(wait_until_no_process(report, std::chrono::seconds(60)));
  kill_every_process(report);
  json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "no valid report: " << read_file(log);
  EXPECT_EQ(j["verdict"]["status"], "interrupted");
  EXPECT_EQ(j["phases"][0]["status"], "interrupted") << j["phases"][0]["reason"];
  std::error_code ec;
  EXPECT_TRUE(std::filesystem::is_empty(target, ec)) << "run folder left behind";
}

// The launcher's SIGKILL lands before the writer has built its report (a loaded node, a second after a
// loss): the report courier writes the report as it stood when the phase began, and removes the run
// folder once no rank holds it.
TEST(MpiInterrupt, RanksKilledMidPhaseLeaveTheCouriersFallbackReport) {
  const RunFiles f("/dev/shm");
  const std::string &target = f.target, &report = f.report, &log = f.log;
  const pid_t launcher = start_long_sweep(f, 2, "64MiB", "sweep");
  ASSERT_GT(launcher, 0);
  // In the phase, not only in the run folder: the courier holds a fallback from the phase's start on.
  // Killed before it (under load, the run folder came a while before the phase), nothing is to be
  // written. Both ranks hold their 64 MiB send and receive buffers once the sweep runs.
  const bool running = wait_until_ranks_in_run({0, 1}, report, target, 128ULL << 20);
  ASSERT_TRUE(running) << read_file(log);
  const pid_t r0 = find_rank_pid(0, report), r1 = find_rank_pid(1, report);
  ASSERT_GT(r0, 0);
  ASSERT_GT(r1, 0);
  ASSERT_EQ(kill(r1, SIGKILL), 0);
  ASSERT_EQ(kill(r0, SIGKILL), 0);
  int status = 0;
  ASSERT_TRUE(wait_for_exit(launcher, std::chrono::seconds(60), &status)) << read_file(log);
  EXPECT_TRUE(wait_until_no_process(report, std::chrono::seconds(60)));
  kill_every_process(report);
  json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "no valid report: " << read_file(log);
  EXPECT_EQ(j["verdict"]["status"], "interrupted");
  ASSERT_EQ(j["phases"].size(), 1u);
  EXPECT_EQ(j["phases"][0]["name"], "sweep");
  EXPECT_EQ(j["phases"][0]["status"], "interrupted");
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("cut short"), std::string::npos);
  EXPECT_NE(j.dump().find("written by the report courier"), std::string::npos);
  std::error_code ec;
  EXPECT_TRUE(std::filesystem::is_empty(target, ec)) << "run folder left behind";
}

}  // namespace
}  // namespace iofab::testing
