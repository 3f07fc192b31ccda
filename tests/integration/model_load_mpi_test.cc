// model_load across ranks under mpirun: every rank's replicas load every file, the files written once
// (spread over the ranks) and read again by a later phase with engine mmap; nothing is left behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(MpiModelLoad, TwoRanksOfTwoReplicasEachLoadEveryByte) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json", R"({
    "defaults": {"workers": 2, "block_size": "64KiB", "queue_depth": 4},
    "phases": [
      {"kind": "model_load", "name": "load", "engine": "psync", "max_shard_size": "1MB",
       "model": {"layers": 2, "hidden": 256, "ffn": 512, "vocab": 1000, "heads": 4, "kv_heads": 2}},
      {"kind": "model_load", "name": "load-mmap", "engine": "mmap", "madvise": "sequential",
       "weights_from": "load"}
    ]})");
  const std::string report = dir.path() + "/r.json";
  CommandResult r =
      mpirun_iofab(2, {"run", dir.path() + "/s.json", "--target", dir.path() + "/t", "--out", report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(read_file(report));
  EXPECT_EQ(j["cluster"]["ranks"], 2);
  for (int i = 0; i < 2; ++i) {
    const json& m = j["phases"][i]["result"]["metrics"];
    EXPECT_EQ(j["phases"][i]["status"], "passed") << i;
    EXPECT_EQ(m["replicas"], 4) << i;
    EXPECT_EQ(m["read_bytes"], 4 * m["model_bytes"].get<double>()) << i;
    EXPECT_EQ(m["corrupt_files"], 0) << i;
    EXPECT_LE(m["ready_seconds_min"].get<double>(), m["ready_seconds_max"].get<double>()) << i;
    const json& per_rank = j["phases"][i]["result"]["details"]["per_rank"];
    ASSERT_EQ(per_rank.size(), 2u) << i;
    for (const json& pr : per_rank) {
      EXPECT_EQ(pr["bytes"], 2 * m["model_bytes"].get<double>()) << i;
      ASSERT_EQ(pr["ready_seconds"].size(), 2u);
    }
  }
  EXPECT_EQ(j["phases"][1]["result"]["metrics"]["verified_bytes"],
            j["phases"][0]["result"]["metrics"]["verified_bytes"]);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path() + "/t"));
}

}  // namespace
}  // namespace iofab::testing
