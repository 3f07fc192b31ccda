// --live across ranks under mpirun: every rank's counters reach rank 0 each interval over the Comm's
// duplicate (docs/live.md), so the stream counts the whole cluster's bytes and agrees with the report.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(MpiLive, TwoRanksStreamTheClustersBytes) {
  TempDir d("/dev/shm");
  const std::string suite = d.path() + "/s.json", live = d.path() + "/live.jsonl",
                    report = d.path() + "/r.json";
  write_file(suite, R"({"phases": [{"kind": "ingest", "name": "ingest", "workers": 1, "files_per_worker": 8,
      "file_size": "4MiB", "block_size": "1MiB", "direct": false, "engine": "psync"}]})");
  CommandResult r = mpirun_iofab(2, {"run", suite, "--target", d.path() + "/t", "--out", report, "--live",
                                     live, "--live-interval", "20ms", "--progress-every", "20ms"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(report));
  std::vector<json> lines;
  std::istringstream in(read_file(live));
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  ASSERT_GE(lines.size(), 2u);
  const json& fin = lines.back();
  const json& last = lines[lines.size() - 2];
  EXPECT_EQ(fin["type"], "final");
  EXPECT_EQ(fin["metrics"], j["phases"][0]["result"]["metrics"]);
  EXPECT_EQ(last["ranks"], 2);
  EXPECT_EQ(last["ranks_reporting"], 2) << "both ranks' counters reached rank 0";
  EXPECT_EQ(last["bytes"], 2 * 8 * (4 << 20));
  EXPECT_EQ(last["bytes"], j["phases"][0]["result"]["metrics"]["write_bytes"]);
  EXPECT_EQ(last["ops"], 2 * 8 * 4);
  EXPECT_EQ(r.err.find('\033'), std::string::npos) << r.err;
}

// iofab has no knob to slow a rank; the test throttles rank 1 itself: stopped 9 ms of every 10 (SIGSTOP,
// SIGCONT) for the whole run, it moves its bytes at about a tenth of rank 0's pace, so the stream must name
// it among the lagging ranks (its share below the others' median over 2).
TEST(MpiLive, AThrottledRankIsNamedAsLagging) {
  RunFiles f("/dev/shm");
  const std::string live = f.dir.path() + "/live.jsonl";
  write_file(f.suite,
             R"({"phases": [{"kind": "ingest", "name": "ingest", "workers": 1, "files_per_worker": 256,
      "file_size": "4MiB", "block_size": "1MiB", "direct": false, "engine": "psync"}]})");
  // 1 GiB a rank: long enough that the throttle, not the ranks' start or a busy machine's scheduling
  // (stress-ng beside CI's load_sensitive runs: 64 files a rank were done in 0.4 s), sets their pace.
  const pid_t launcher = start_mpirun_iofab(2,
                                            {"run", f.suite, "--target", f.target, "--out", f.report,
                                             "--live", live, "--live-interval", "10ms", "-q"},
                                            f.log);
  ASSERT_TRUE(wait_until_ranks_in_run({0, 1}, f.suite, f.target)) << read_file(f.log);
  const pid_t slow = find_rank_pid(1, f.suite);
  ASSERT_GT(slow, 0);
  int status = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (waitpid(launcher, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < until) {
    kill(slow, SIGSTOP);
    std::this_thread::sleep_for(std::chrono::milliseconds(9));
    kill(slow, SIGCONT);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  kill(slow, SIGCONT);
  ASSERT_TRUE(wait_for_exit(launcher, std::chrono::seconds(60), &status)) << read_file(f.log);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_file(f.log);
  kill_every_process(f.suite);
  bool named = false;
  std::istringstream in(read_file(live));
  for (std::string line; std::getline(in, line);) {
    const json j = json::parse(line);
    if (j["type"] != "interval") continue;
    // Past 30% of the phase's bytes: rank 0 at 40% or more, so not a start some milliseconds late.
    if (j["bytes"].get<double>() < 0.3 * j["planned_bytes"].get<double>()) continue;
    for (const json& l : j["lagging_ranks"]) named = named || l["rank"] == 1;
  }
  EXPECT_TRUE(named) << read_file(live);
}

}  // namespace
}  // namespace iofab::testing
