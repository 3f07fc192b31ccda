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

}  // namespace
}  // namespace iofab::testing
