// The prepare phase on two ranks under mpirun: each rank prepares its half of the raw files, and rank 0's
// report counts both halves.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(MpiPrepare, TwoRanksPrepareDisjointHalvesThatCoverTheDataset) {
  TempDir dir("/var/tmp");
  const std::string report = dir.path() + "/r.json", suite = dir.path() + "/s.json";
  write_file(suite,
             R"({"phases": [{"kind": "prepare", "name": "prep", "num_samples": 301, "sample_size": "8KiB",
      "readers": 2, "transformers": 1, "writers": 1, "shard_size": "256KiB",
      "engine": "psync", "level": 1}]})");
  CommandResult r =
      mpirun_iofab(2, {"run", suite, "--target", dir.path() + "/t", "--out", report, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(report));
  EXPECT_EQ(j["cluster"]["ranks"], 2);
  const json& res = j["phases"][0]["result"];
  const json& m = res["metrics"];
  EXPECT_EQ(m["input_samples"], 301);
  EXPECT_EQ(m["input_bytes"], 301 * 8192);
  EXPECT_EQ(m["corrupt_samples"], 0);
  const json& per_rank = res["details"]["per_rank"];
  ASSERT_EQ(per_rank.size(), 2u);
  EXPECT_EQ(per_rank[0]["samples"], 151);  // files 0, 2, 4, ...
  EXPECT_EQ(per_rank[1]["samples"], 150);
  EXPECT_GE(per_rank[0]["shards"].get<int>(), 1);
  EXPECT_GE(per_rank[1]["shards"].get<int>(), 1);
  EXPECT_EQ(res["details"]["stages"]["read"]["threads"], 4);  // 2 readers on each of 2 ranks
  for (const json& rank : per_rank) EXPECT_TRUE(rank["bound_by"].is_string()) << rank.dump();
  EXPECT_TRUE(list_files(dir.path() + "/t").empty());
}

}  // namespace
}  // namespace iofab::testing
