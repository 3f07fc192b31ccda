// Two-tier checkpoints on two ranks: each rank writes and commits its part in
// its own local folder, drains it, and rank 0 commits the step on the target
// once both parts are there; recovery reads both ranks' parts from each tier.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(MpiCheckpointTier, EachRankDrainsItsPartAndRankZeroCommitsTheStep) {
  TempDir dir("/dev/shm");
  const std::string local = dir.path() + "/local";
  write_file(dir.path() + "/s.json", R"({
    "defaults": {"engine": "psync", "workers": 1, "block_size": "256KiB", "queue_depth": 4},
    "phases": [{"kind": "checkpoint", "checkpoint_size": "8MiB", "count": 1, "gap": 0,
                "tier": "two", "local_dir": ")" +
                                         local + R"("}]})");
  const std::string report = dir.path() + "/r.json";
  CommandResult r = mpirun_iofab(
      2, {"run", dir.path() + "/s.json", "--target", dir.path() + "/t", "--out", report, "-q", "--keep"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(report));
  const json& m = j["phases"][0]["result"]["metrics"];
  EXPECT_EQ(m["checkpoints"], 1);
  EXPECT_EQ(m["shards"], 2);
  EXPECT_EQ(m["recovery_bytes"], 8 << 20);  // both ranks' parts, from each tier
  EXPECT_GT(m["recovery_shared_seconds"], 0);
  // The target's step lists both ranks' shards; each rank's local folder holds its own, committed.
  const std::string run_folder = j["target"]["run_folder"].get<std::string>();
  const json manifest = json::parse(read_file(run_folder + "/checkpoint/step-1/manifest.json"));
  ASSERT_EQ(manifest["shards"].size(), 2u);
  EXPECT_EQ(manifest["shards"][0]["rank"], 0);
  EXPECT_EQ(manifest["shards"][1]["rank"], 1);
  const std::string local_run = local + "/" + fs::path(run_folder).filename().string() + "/checkpoint";
  for (int rank : {0, 1}) {
    const std::string step = local_run + "/rank-" + std::to_string(rank) + "/step-1";
    const json part = json::parse(read_file(step + "/manifest.json"));
    ASSERT_EQ(part["shards"].size(), 1u) << step;
    EXPECT_EQ(part["shards"][0]["rank"], rank);
    EXPECT_EQ(part["shards"][0]["xxh3"], manifest["shards"][rank]["xxh3"]);
  }

  // Without --keep nothing stays in local_dir.
  r = mpirun_iofab(2, {"run", dir.path() + "/s.json", "--target", dir.path() + "/t", "--out", report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(local)) left.push_back(e.path().filename().string());
  // The first run's folder, kept; the second left none.
  EXPECT_EQ(left, std::vector<std::string>{fs::path(run_folder).filename().string()});
}

}  // namespace
}  // namespace iofab::testing
