#include "workloads/restore/restore_phase.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "test_util.h"
#include "workloads/phase_harness.h"
#include "workloads/checkpoint/manifest.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// 2 shards of 4 MiB, on tmpfs.
json ckpt(const std::string& size = "8MiB") {
  return {{"checkpoint_size", size}, {"count", 1},       {"gap", 0},         {"workers", 2},
          {"block_size", "256KiB"},  {"queue_depth", 4}, {"engine", "psync"}};
}

json restore(json extra = json::object()) {
  json p = {{"workers", 2}, {"fanout", 3}, {"block_size", "256KiB"}, {"queue_depth", 4}};
  for (auto& [k, v] : extra.items()) p[k] = v;
  return p;
}

class RestorePhaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PhaseResult r;
    Status s = h.run("checkpoint", "checkpoint", ckpt(), &r);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  std::string step_dir() const { return h.path() + "/checkpoint/step-1"; }
  PhaseHarness h;
};

TEST_F(RestorePhaseTest, ReadsFanoutTimesTheCheckpointAndVerifiesEveryByte) {
  PhaseResult r;
  Status s = h.run("restore", "restore", restore(), &r);
  ASSERT_TRUE(s.ok()) << s.message();
  auto& m = r.metrics;
  EXPECT_EQ(m["checkpoint_bytes"], 8 << 20);
  EXPECT_EQ(m["read_bytes"], 3 * (8 << 20));
  EXPECT_EQ(m["read_write_ratio"], 3);
  EXPECT_EQ(m["verified_bytes"], 3 * (8 << 20));
  EXPECT_EQ(m["corrupt_shards"], 0);
  EXPECT_EQ(m["shards"], 2);
  EXPECT_GT(m["restore_seconds"], 0);
  EXPECT_DOUBLE_EQ(m["read_bytes_per_s"], m["read_bytes"] / m["restore_seconds"]);
  EXPECT_GT(m["verify_bytes_per_s"], 0);
  EXPECT_GT(m["latency_p99_s"], 0);
  EXPECT_EQ(m["full_read_bytes"], 3 * (8 << 20));     // checkpoint_size: full size is what was written
  EXPECT_FALSE(m.contains("restore_budget_margin"));  // only with restore_budget
  EXPECT_EQ(r.details["checkpoint"]["step"], 1);
  EXPECT_EQ(r.details["checkpoint"]["from_another_run"], false);
  EXPECT_EQ(r.details["readers"], 2);
  // tmpfs keeps its pages whatever we advise: the report must say the restore was warm.
  ASSERT_TRUE(m.contains("cache_resident_fraction"));
  EXPECT_GT(m["cache_resident_fraction"], 0.9);
  bool warned = false;
  for (const auto& w : r.warnings) warned = warned || w.find("stayed in the page cache") != std::string::npos;
  EXPECT_TRUE(warned);
  // Read only: the checkpoint is still there, untouched.
  EXPECT_TRUE(fs::exists(step_dir() + "/manifest.json"));
}

TEST_F(RestorePhaseTest, DefaultFanoutIsEight) {
  PhaseResult r;
  json p = restore();
  p.erase("fanout");
  ASSERT_TRUE(h.run("restore", "restore", p, &r).ok());
  EXPECT_EQ(r.metrics["read_write_ratio"], 8);
  EXPECT_EQ(r.details["fanout"], 8);
}

TEST_F(RestorePhaseTest, ACorruptedByteFailsThePhaseAndNamesTheShard) {
  flip_byte(step_dir() + "/shard-00001-of-00002.bin", 123457);
  PhaseResult r;
  Status s = h.run("restore", "restore", restore(), &r);
  // A verification failure is the phase failing (exit 1), with its figures; not an error (exit 3).
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_NE(r.failure.find("shard-00001-of-00002.bin: corrupt: xxh3"), std::string::npos) << r.failure;
  EXPECT_EQ(r.failure.find("shard-00000-of-00002.bin"), std::string::npos) << r.failure;
  EXPECT_EQ(r.metrics["corrupt_shards"], 1);
  ASSERT_EQ(r.details["bad_shards"].size(), 1u);
  EXPECT_EQ(r.details["bad_shards"][0]["name"], "shard-00001-of-00002.bin");
  // The good shard was still read by all its readers.
  EXPECT_EQ(r.metrics["read_bytes"], 3 * (8 << 20));
}

TEST_F(RestorePhaseTest, ADeletedShardFailsThePhaseAndNamesTheShard) {
  fs::remove(step_dir() + "/shard-00000-of-00002.bin");
  PhaseResult r;
  Status s = h.run("restore", "restore", restore(), &r);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_NE(r.failure.find("shard-00000-of-00002.bin: missing"), std::string::npos) << r.failure;
  EXPECT_EQ(r.metrics["corrupt_shards"], 1);
  EXPECT_EQ(r.metrics["read_bytes"], 3 * (4 << 20));  // only the other shard was read
}

TEST_F(RestorePhaseTest, ATruncatedShardIsShort) {
  fs::resize_file(step_dir() + "/shard-00001-of-00002.bin", 4096);
  PhaseResult r;
  Status s = h.run("restore", "restore", restore(), &r);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_NE(r.failure.find("shard-00001-of-00002.bin: short: 4096 bytes, the manifest says 4194304"),
            std::string::npos)
      << r.failure;
  EXPECT_EQ(r.metrics["corrupt_shards"], 1);
}

TEST_F(RestorePhaseTest, ABrokenManifestNamesTheField) {
  json j = json::parse(read_file(step_dir() + "/manifest.json"));
  j["shards"][0]["xxh3"] = "not-a-hash";
  fs::remove(step_dir() + "/manifest.json");
  write_file(step_dir() + "/manifest.json", j.dump());
  PhaseResult r;
  Status s = h.run("restore", "restore", restore(), &r);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("manifest.shards[0].xxh3"), std::string::npos) << s.message();
}

TEST_F(RestorePhaseTest, RestoreBudgetProjectsToFullSize) {
  PhaseResult r;
  ASSERT_TRUE(h.run("restore", "restore", restore({{"restore_budget", "1000h"}}), &r).ok());
  auto& m = r.metrics;
  EXPECT_EQ(m["allowed_restore_seconds"], 3.6e6);
  EXPECT_DOUBLE_EQ(m["required_read_bytes_per_s"], 3 * (8 << 20) / 3.6e6);
  EXPECT_DOUBLE_EQ(m["projected_restore_seconds"], m["full_read_bytes"] / m["read_bytes_per_s"]);
  EXPECT_DOUBLE_EQ(m["restore_budget_margin"], 3.6e6 / m["projected_restore_seconds"]);
  EXPECT_EQ(r.details["restore_budget"]["passed"], true);
  PhaseResult tight;
  ASSERT_TRUE(h.run("restore", "again", restore({{"restore_budget", "1ns"}}), &tight).ok());
  EXPECT_LT(tight.metrics["restore_budget_margin"], 1);
}

TEST_F(RestorePhaseTest, FindsTheNearestEarlierCheckpointOrTheNamedOne) {
  PhaseResult later;
  ASSERT_TRUE(h.run("checkpoint", "later", ckpt("4MiB"), &later).ok());
  PhaseResult r;
  ASSERT_TRUE(h.run("restore", "restore", restore({{"fanout", 1}}), &r).ok());
  EXPECT_EQ(r.metrics["checkpoint_bytes"], 4 << 20);  // "later" committed last
  EXPECT_EQ(r.details["checkpoint"]["written_by_phase"], "later");
  PhaseResult named;
  ASSERT_TRUE(
      h.run("restore", "restore2", restore({{"fanout", 1}, {"checkpoint", "checkpoint"}}), &named).ok());
  EXPECT_EQ(named.metrics["checkpoint_bytes"], 8 << 20);
  PhaseResult none;
  Status s = h.run("restore", "restore3", restore({{"checkpoint", "nosuch"}}), &none);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no folder for phase \"nosuch\""), std::string::npos) << s.message();
}

TEST(RestorePhase, WithoutACheckpointSaysSo) {
  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("restore", "restore", restore(), &r);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no checkpoint to restore"), std::string::npos) << s.message();
  // An interrupted checkpoint's .tmp is not a checkpoint either.
  fs::create_directories(h.path() + "/ckpt/step-1.tmp");
  s = h.run("restore", "restore", restore({{"checkpoint", "ckpt"}}), &r);
  EXPECT_NE(s.message().find("only step-1.tmp, which never committed"), std::string::npos) << s.message();
}

TEST(RestorePhase, FromAFolderAnotherRunLeftReadOnly) {
  PhaseHarness other;  // the earlier --keep run
  PhaseResult w;
  ASSERT_TRUE(other.run("checkpoint", "ckpt", ckpt(), &w, /*keep=*/true).ok());
  const std::string step = other.path() + "/ckpt/step-1";
  const std::string shard = step + "/shard-00000-of-00002.bin";
  const auto mtime = fs::last_write_time(shard);
  const std::string before = read_file(shard);

  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("restore", "restore", restore({{"from", step}}), &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.metrics["read_bytes"], 3 * (8 << 20));
  EXPECT_EQ(r.details["checkpoint"]["from_another_run"], true);
  EXPECT_EQ(r.details["checkpoint"]["folder"], step);
  // The phase folder works too: its newest step.
  PhaseResult r2;
  ASSERT_TRUE(h.run("restore", "restore2", restore({{"from", other.path() + "/ckpt"}}), &r2).ok());
  EXPECT_EQ(r2.details["checkpoint"]["folder"], step);
  EXPECT_EQ(fs::last_write_time(shard), mtime);
  EXPECT_EQ(read_file(shard), before);
  EXPECT_TRUE(fs::exists(step + "/manifest.json"));

  s = h.run("restore", "restore3", restore({{"from", h.path() + "/nowhere"}}), &r2);
  EXPECT_NE(s.message().find("from: cannot open"), std::string::npos) << s.message();
}

TEST(RestorePhase, BadParamsNameTheKey) {
  struct Case {
    json params;
    std::string says;
  };
  for (const Case& c :
       {Case{{{"from", "relative/step-1"}}, "phases[0].from: expected an absolute folder path"},
        Case{{{"from", "/a"}, {"checkpoint", "b"}}, "phases[0].from: give either"},
        Case{{{"checkpoint", "../x"}}, "phases[0].checkpoint"}, Case{{{"fanout", 0}}, "phases[0].fanout"},
        Case{{{"restore_budget", "soon"}}, "phases[0].restore_budget"},
        Case{{{"direct", true}, {"block_size", 512}}, "phases[0].block_size"}}) {
    std::string errors;
    EXPECT_EQ(PhaseHarness::parse("restore", c.params, &errors), nullptr) << c.params.dump();
    EXPECT_NE(errors.find(c.says), std::string::npos) << c.params.dump() << ": " << errors;
  }
  auto p = PhaseHarness::parse("restore", json::object());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->planned_bytes(8), 0u);  // reads only
}

TEST(RestorePhase, DirectReadsOnTheDiskAreColdAndCountedByTheDevice) {
  PhaseHarness h("/var/tmp");
  PhaseResult w;
  json c = ckpt();
  c["direct"] = true;
  ASSERT_TRUE(h.run("checkpoint", "checkpoint", c, &w).ok());
  PhaseResult r;
  Status s = h.run("restore", "restore", restore({{"direct", true}, {"engine", "auto"}}), &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.metrics["read_bytes"], 3 * (8 << 20));
  EXPECT_FALSE(r.metrics.contains("cache_resident_fraction"));  // O_DIRECT bypasses the cache
  EXPECT_TRUE(r.warnings.empty());
  if (!r.metrics.contains("device_read_bytes")) GTEST_SKIP() << "no block device under /var/tmp";
  // The device read at least what O_DIRECT asked for (other I/O on the disk may add to it).
  EXPECT_GE(r.metrics["device_read_bytes"], 3 * (8 << 20));
}

}  // namespace
}  // namespace iofab::testing
