// A concurrent group under mpirun -np 2: each phase on its own communicator (MPI_THREAD_MULTIPLE),
// the follower's epochs agreed across the ranks, every sample of every epoch read once.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(MpiConcurrent, TwoRanksRunALoaderBesideCheckpointsOnTheirOwnCommunicators) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  const std::string report = dir.path() + "/r.json";
  write_file(suite, R"({"phases": [{"concurrent": [
      {"kind": "train_read", "name": "loader", "num_samples": 301, "sample_size": "4KiB",
       "samples_per_shard": 100, "batch_size": 8, "epochs": 1, "compute_per_batch": "1ms",
       "read_threads": 1, "direct": false},
      {"kind": "checkpoint", "name": "ckpt", "mode": "async", "checkpoint_size": "8MiB", "count": 2,
       "gap": "200ms", "interval": "10min", "workers": 1, "direct": false}],
    "clock": "ckpt", "solo": false}, {"kind": "ingest", "file_size": "1MiB", "direct": false}]})");
  CommandResult r = mpirun_iofab(2, {"run", suite, "--target", dir.path() + "/t", "--out", report, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(report));
  EXPECT_EQ(j["cluster"]["ranks"], 2);
  ASSERT_EQ(j["phases"].size(), 3u);
  for (const auto& p : j["phases"]) EXPECT_EQ(p["status"], "passed") << p["name"] << ": " << p["reason"];
  const json& lr = j["phases"][0]["result"];
  EXPECT_TRUE(lr["details"]["every_sample_once"].get<bool>());
  const double epochs = lr["metrics"]["epochs"].get<double>();
  EXPECT_GE(epochs, 1);
  EXPECT_EQ(lr["metrics"]["samples"].get<double>(), 301 * epochs);
  // Both ranks' checkpoints posted windows; rank 0 added the ranks' splits.
  EXPECT_EQ(lr["details"]["windows"]["count"]["drain"].get<double>(), 2 * 2);
  EXPECT_EQ(j["phases"][1]["result"]["metrics"]["checkpoints"], 2);
  EXPECT_TRUE(list_files(dir.path() + "/t").empty());
}

}  // namespace
}  // namespace iofab::testing
