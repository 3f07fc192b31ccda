// Every phase under mpirun -np 64 on this host (oversubscribed, the null engine, tiny sizes): the
// report must be valid JSON with every phase run (rdma skipped without a device, saying so), and
// every place that keeps per-rank details must name each of the 64 ranks exactly once.
// The runs at 1,024+ ranks are on paper (docs/scale.md) and in benches/rank_merge_bench.cc.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

constexpr int kRanks = 64;

// Tiny on purpose: 64 processes share this host's cores, so each phase moves a few KiB per rank, through
// one 4 KiB buffer (a 1 MiB block at depth 16 would be 1 GiB of buffers over 64 ranks). The null engine
// moves no bytes, so checkpoint and restore use psync: a restore verifies what the checkpoint wrote.
constexpr const char* kEveryPhase = R"({"defaults": {"engine": "null", "direct": false, "workers": 1,
                                                    "block_size": "4KiB", "queue_depth": 1},
  "phases": [
    {"kind": "ingest", "name": "ingest", "file_size": "4KiB", "files_per_worker": 1},
    {"kind": "checkpoint", "name": "checkpoint", "engine": "psync", "checkpoint_size": "256KiB", "count": 1,
     "interval": "1h", "gap": "10ms"},
    {"kind": "restore", "name": "restore", "engine": "psync", "drop_cache": false},
    {"kind": "train_read", "name": "train_read", "num_samples": 256, "sample_size": "1KiB",
     "samples_per_shard": 64, "batch_size": 2, "epochs": 1, "read_threads": 1, "drop_cache": "never"},
    {"kind": "collectives", "name": "collectives", "mode": "sweep", "min_bytes": "1KiB",
     "max_bytes": "4KiB", "factor": 4, "iters": 2, "warmup": 1, "ops": ["all_reduce", "all_gather"]},
    {"kind": "rdma", "name": "rdma"},
    {"kind": "prepare", "name": "prepare", "engine": "psync", "num_samples": 128, "sample_size": "1KiB",
     "readers": 1, "transformers": 1, "writers": 1, "queue_depth": 2, "shard_size": "4KiB", "level": 1},
    {"kind": "model_load", "name": "model_load", "engine": "psync", "max_shard_size": "1MB",
     "model": {"layers": 1, "hidden": 64, "ffn": 128, "vocab": 256, "heads": 2, "kv_heads": 1}}]})";

// The ranks a per-rank list names ("rank" of each entry), failing the test on a duplicate.
std::set<int> ranks_named(const json& per_rank, const std::string& where) {
  std::set<int> seen;
  for (const auto& e : per_rank) {
    const int r = e.at("rank").get<int>();
    EXPECT_TRUE(seen.insert(r).second) << where << " names rank " << r << " twice";
  }
  return seen;
}

std::set<int> every_rank() {
  std::set<int> all;
  for (int r = 0; r < kRanks; ++r) all.insert(r);
  return all;
}

TEST(ScaleMpi, SixtyFourRanksRunEveryPhaseAndTheReportNamesEachRank) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json", report = dir.path() + "/r.json";
  write_file(suite, kEveryPhase);
  CommandResult r =
      mpirun_iofab(kRanks, {"run", suite, "--target", dir.path() + "/t", "--out", report, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "the report is not JSON";
  EXPECT_EQ(j["verdict"]["status"], "passed") << j["verdict"];
  EXPECT_EQ(j["cluster"]["ranks"], kRanks);
  EXPECT_EQ(j["cluster"]["comm"], "mpi");
  EXPECT_TRUE(j["cluster"]["lost_ranks"].empty());
  // Every rank's host, in rank order, and the hosts' rank counts add up to every rank.
  ASSERT_EQ(j["cluster"]["rank_hosts"].size(), static_cast<size_t>(kRanks));
  for (const auto& h : j["cluster"]["rank_hosts"]) EXPECT_FALSE(h.get<std::string>().empty());
  int host_ranks = 0;
  for (const auto& h : j["cluster"]["hosts"]) host_ranks += h["ranks"].get<int>();
  EXPECT_EQ(host_ranks, kRanks);

  ASSERT_EQ(j["phases"].size(), 8u);
  std::set<std::string> with_per_rank;
  for (const auto& p : j["phases"]) {
    const std::string name = p["name"];
    if (name == "rdma") {
      // No RDMA device on a CI host: skipped, and the reason says so (not "needs >= 2 ranks").
      if (p["status"] == "skipped") {
        EXPECT_TRUE(contains(p["reason"].get<std::string>(), "RDMA")) << p["reason"];
        continue;
      }
    }
    EXPECT_EQ(p["status"], "passed") << name << ": " << p["reason"];
    const json& details = p["result"]["details"];
    if (details.contains("per_rank")) {
      with_per_rank.insert(name);
      EXPECT_EQ(ranks_named(details["per_rank"], name + ".per_rank"), every_rank()) << name;
    }
  }
  // The storage phases each keep a per-rank list.
  for (const char* name : {"ingest", "checkpoint", "restore", "train_read", "prepare", "model_load"}) {
    EXPECT_TRUE(with_per_rank.count(name)) << name << " has no details.per_rank";
  }
  // ingest: 64 ranks x one 4 KiB file, counted by rank 0.
  EXPECT_EQ(j["phases"][0]["result"]["metrics"]["write_bytes"].get<double>(), kRanks * 4096.0);
  // The sweep ran on every rank.
  EXPECT_EQ(j["phases"][4]["result"]["details"]["sweep"]["ranks"], kRanks);
  EXPECT_TRUE(list_files(dir.path() + "/t").empty());
}

}  // namespace
}  // namespace iofab::testing
