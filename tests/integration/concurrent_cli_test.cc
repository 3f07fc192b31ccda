// `iofab run` on a suite with a concurrent group: a loader beside async checkpoints, the checkpoint
// phase the clock. What the report must hold whatever the machine's speed.
#include <filesystem>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

std::string group_suite(bool solo) {
  return std::string(R"({"phases": [{"concurrent": [
      {"kind": "train_read", "name": "loader", "num_samples": 512, "sample_size": "4KiB",
       "samples_per_shard": 128, "batch_size": 16, "epochs": 1, "compute_per_batch": "2ms",
       "direct": false, "checks": [{"metric": "au_during_drain", "op": ">=", "value": 0}]},
      {"kind": "checkpoint", "name": "ckpt", "mode": "async", "checkpoint_size": "16MiB", "count": 3,
       "gap": "300ms", "interval": "10min", "direct": false}],
    "clock": "ckpt", "solo": )") +
         (solo ? "true" : "false") + "}]}";
}

TEST(ConcurrentCli, ALoaderBesideAsyncCheckpointsSplitsItsFiguresByTheirWindows) {
  RunFiles f("/dev/shm");
  write_file(f.suite, group_suite(true));
  CommandResult r = run_iofab({"run", f.suite, "--target", f.target, "--out", f.report});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(f.report));
  ASSERT_EQ(j["phases"].size(), 2u);
  const json& loader = j["phases"][0];
  const json& ckpt = j["phases"][1];
  EXPECT_EQ(loader["status"], "passed") << loader["reason"];
  EXPECT_EQ(ckpt["status"], "passed") << ckpt["reason"];
  const json& lr = loader["result"];
  const json& cr = ckpt["result"];
  const double checkpoints = cr["metrics"]["checkpoints"].get<double>();
  EXPECT_EQ(checkpoints, 3);
  // Every checkpoint posted its burst and its drain, and the loader saw them all.
  EXPECT_EQ(lr["details"]["windows"]["count"]["burst"].get<double>(), checkpoints);
  EXPECT_EQ(lr["details"]["windows"]["count"]["drain"].get<double>(), checkpoints);
  EXPECT_TRUE(lr["details"]["windows"]["complete"].get<bool>());
  // keep 1: each checkpoint after the first removes the one before, a window of its own.
  EXPECT_EQ(lr["details"]["windows"]["count"]["delete"].get<double>(), checkpoints - 1);
  for (const char* m : {"au_during_burst", "au_outside", "au_solo", "au_vs_solo", "sample_latency_p99_s_solo"}) {
    ASSERT_TRUE(lr["metrics"].contains(m)) << m;
    EXPECT_GE(lr["metrics"][m].get<double>(), 0) << m;
  }
  for (const char* m : {"au_during_burst", "au_outside"}) EXPECT_LE(lr["metrics"][m].get<double>(), 1.0) << m;
  // The split covers the loader's compute: every batch computes at least 2 ms, in one class or another;
  // and no class holds time the loader was not reading (no more than its epochs' wall time, when
  // windows do not overlap as a drain follows its burst).
  const json& classes = lr["details"]["windows"]["classes"];
  double active = 0, compute = 0;
  for (const auto& [k, c] : classes.items()) {
    active += c["active_seconds"].get<double>();
    compute += c["compute_seconds"].get<double>();
  }
  EXPECT_GE(compute, lr["metrics"]["epochs"].get<double>() * (512 / 16) * 0.002);
  EXPECT_LE(active, lr["metrics"]["read_seconds"].get<double>() + 1e-6);
  // The follower ran epochs until the clock ended: at least one, every sample of each verified.
  EXPECT_GE(lr["metrics"]["epochs"].get<double>(), 1);
  EXPECT_EQ(lr["details"]["follows_clock"]["epochs"], lr["metrics"]["epochs"]);
  EXPECT_EQ(lr["metrics"]["corrupt_samples"], 0);
  EXPECT_EQ(lr["details"]["concurrent"]["clock"], "ckpt");
  EXPECT_TRUE(lr["details"]["concurrent"]["solo"]["passed"].get<bool>());
  // The checkpoint beside itself alone.
  for (const char* m : {"stall_seconds_mean_solo", "stall_seconds_mean_vs_solo", "write_bytes_per_s_vs_solo"}) {
    EXPECT_TRUE(cr["metrics"].contains(m)) << m;
  }
  EXPECT_FALSE(cr["details"]["concurrent"]["follows_clock"].get<bool>());
  EXPECT_EQ(loader["checks"][0]["metric"], "au_during_drain");
  EXPECT_TRUE(loader["checks"][0]["passed"].get<bool>());
  // The console says whom each ran beside and what the windows did.
  EXPECT_TRUE(contains(r.out, "ran beside: ckpt (until ckpt, the group's clock, ended")) << r.out;
  EXPECT_TRUE(contains(r.out, "au: during burst")) << r.out;
  EXPECT_TRUE(contains(r.out, "alone: au ")) << r.out;
  EXPECT_TRUE(list_files(f.target).empty()) << "the run folder, solo folders included, is gone";
}

TEST(ConcurrentCli, SoloFalseRunsTheGroupOnlyAndSetsNoSoloFigures) {
  RunFiles f("/dev/shm");
  write_file(f.suite, group_suite(false));
  CommandResult r = run_iofab({"run", f.suite, "--target", f.target, "--out", f.report, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(f.report));
  const json& lr = j["phases"][0]["result"];
  EXPECT_FALSE(lr["metrics"].contains("au_solo"));
  EXPECT_FALSE(lr["details"]["concurrent"]["solo"]["ran"].get<bool>());
  EXPECT_TRUE(lr["metrics"].contains("au_during_drain") || lr["metrics"].contains("au_outside"));
}

TEST(ConcurrentCli, ValidateShowsWhichPhasesRunAtOnceAndWhichIsTheClock) {
  RunFiles f("/dev/shm");
  write_file(f.suite, group_suite(true));
  CommandResult r = run_iofab({"validate", f.suite});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "suite OK: 2 phases; at once: loader + ckpt")) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["phases"][0]["concurrent"]["group"], "loader + ckpt");
  EXPECT_FALSE(j["phases"][0]["concurrent"]["clock"].get<bool>());
  EXPECT_TRUE(j["phases"][1]["concurrent"]["clock"].get<bool>());
}

TEST(ConcurrentCli, AGroupOnAnObjectStoreIsRefusedBeforeAnythingIsWritten) {
  RunFiles f("/dev/shm");
  write_file(f.suite, group_suite(false));
  CommandResult r = run_iofab({"run", f.suite, "--target", "s3://bucket/prefix", "--set",
                               "s3.endpoint=http://127.0.0.1:9", "--out", f.report, "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "concurrent group loader + ckpt on an s3:// target")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(f.report));
}

}  // namespace
}  // namespace iofab::testing
