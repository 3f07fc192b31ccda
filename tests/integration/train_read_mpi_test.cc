// train_read under mpirun -np 2: the ranks' shares are disjoint and every
// sample is read exactly once per epoch across them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(MpiTrainRead, EverySampleReadOncePerEpochAcrossTwoRanks) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  const std::string report = dir.path() + "/r.json";
  // An odd count, so the shares differ by one, and a short last batch.
  write_file(suite, R"({"phases": [{"kind": "train_read", "num_samples": 1001, "sample_size": "2KiB",
      "samples_per_shard": 100, "batch_size": 16, "epochs": 3, "read_threads": 2, "direct": false}]})");
  CommandResult r =
      mpirun_iofab(2, {"run", suite, "--target", dir.path() + "/t", "--out", report, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(read_file(report));
  EXPECT_EQ(j["cluster"]["ranks"], 2);
  const json& p = j["phases"][0];
  EXPECT_EQ(p["status"], "passed");
  EXPECT_EQ(p["result"]["metrics"]["samples"], 3 * 1001);
  EXPECT_TRUE(p["result"]["details"]["every_sample_once"].get<bool>());
  ASSERT_EQ(p["result"]["details"]["epochs"].size(), 3u);
  for (const auto& e : p["result"]["details"]["epochs"]) {
    const json& ids = e["sample_ids"];
    EXPECT_EQ(ids["read"], 1001);
    EXPECT_EQ(ids["fingerprint_sum"], ids["dataset_fingerprint_sum"]) << "epoch " << e["epoch"];
    EXPECT_TRUE(ids["every_sample_once"].get<bool>());
  }
  const json& ranks = p["result"]["details"]["per_rank"];
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0]["samples"].get<double>(), 3 * 501);  // rank 0 takes positions 0, 2, ..., 1000
  EXPECT_EQ(ranks[1]["samples"].get<double>(), 3 * 500);
  EXPECT_TRUE(list_files(dir.path() + "/t").empty());
}

// Two ranks on one host share one cache folder: a sample the other rank cached in epoch 0 is a hit, so
// epoch 1 reads nothing from the source although each rank reads other samples than before. Each rank
// keeps to half of cache_size.
TEST(MpiTrainRead, TwoRanksOnOneHostShareTheCacheTier) {
  TempDir dir("/dev/shm");
  TempDir cache("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  const std::string report = dir.path() + "/r.json";
  write_file(suite, R"({"phases": [{"kind": "train_read", "num_samples": 400, "sample_size": "4KiB",
      "samples_per_shard": 100, "batch_size": 16, "epochs": 2, "read_threads": 2, "direct": false,
      "cache_dir": ")" + cache.path() +
                        R"("}]})");
  CommandResult r =
      mpirun_iofab(2, {"run", suite, "--target", dir.path() + "/t", "--out", report, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(read_file(report));
  const json& res = j["phases"][0]["result"];
  const json& epochs = res["details"]["epochs"];
  ASSERT_EQ(epochs.size(), 2u);
  EXPECT_EQ(epochs[0]["cache_tier"]["filled_samples"], 400);
  EXPECT_EQ(epochs[1]["cache_tier"]["cache_samples"], 400);
  EXPECT_EQ(epochs[1]["cache_tier"]["source_bytes"], 0);
  EXPECT_EQ(res["metrics"]["cache_hit_fraction"], 1.0);
  EXPECT_TRUE(res["details"]["every_sample_once"].get<bool>());
  EXPECT_EQ(res["details"]["cache_tier"]["source_epoch"]["source_bytes"], 400 * 4096);
  EXPECT_TRUE(list_files(cache.path()).empty()) << "the last rank out removes the run's folder";

  // cache_size 200 samples' worth per host: each of the two ranks fills at most 100.
  write_file(suite, R"({"phases": [{"kind": "train_read", "num_samples": 400, "sample_size": "4KiB",
      "samples_per_shard": 100, "batch_size": 16, "epochs": 2, "read_threads": 2, "direct": false,
      "cache_dir": ")" + cache.path() +
                        R"(", "cache_size": "800KiB", "cache_source_epoch": false}]})");
  r = mpirun_iofab(2, {"run", suite, "--target", dir.path() + "/t", "--out", report, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  j = json::parse(read_file(report));
  const json& small = j["phases"][0]["result"];
  EXPECT_EQ(small["details"]["epochs"][0]["cache_tier"]["filled_samples"], 200);
  EXPECT_EQ(small["details"]["epochs"][1]["cache_tier"]["cache_samples"], 200);
  EXPECT_EQ(small["details"]["cache_tier"]["rank_limit_bytes"], 400 * 1024);
  EXPECT_TRUE(list_files(cache.path()).empty());
}

}  // namespace
}  // namespace iofab::testing
