// iofab on real filesystems of the kinds its users bring, set up by ci/target-fs: a GlusterFS volume
// over FUSE (shared: two ranks write one folder; the durable commit, the free-space preflight and the
// page-cache drop on FUSE), XFS and btrfs on loop devices (the devices behind the target, bytes proved
// from /proc/diskstats), and ramfs, which refuses O_DIRECT at open. Each test skips with ci/target-fs's
// reason where this machine cannot mount (not root, glusterd or mkfs missing, no loop device).
#include "real_fs.h"

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

#define REQUIRE_MOUNTED(fs)                              \
  do {                                                   \
    if (!(fs).mounted()) GTEST_SKIP() << (fs).why_not(); \
  } while (0)

// Small: each storage phase runs, on a few MiB, so the test stays quick on a loaded machine.
constexpr const char* kStorageSuite = R"({"defaults": {"engine": "auto", "direct": true, "workers": 2},
  "phases": [
    {"kind": "ingest", "name": "ingest", "files_per_worker": 1, "file_size": "4MiB", "block_size": "1MiB",
     "queue_depth": 4},
    {"kind": "checkpoint", "name": "checkpoint", "params": 1e8, "scale": 128, "count": 2, "gap": "10ms",
     "block_size": "1MiB", "queue_depth": 4},
    {"kind": "restore", "name": "restore", "fanout": 2, "block_size": "1MiB", "queue_depth": 4},
    {"kind": "train_read", "name": "train_read", "direct": false, "drop_cache": "every_epoch",
     "num_samples": 256, "sample_size": "16KiB", "samples_per_shard": 64, "batch_size": 16, "epochs": 2}
  ]})";

const json& phase(const json& report, const std::string& name) {
  for (const auto& p : report["phases"]) {
    if (p["name"] == name) return p;
  }
  static const json kNone;
  ADD_FAILURE() << "no phase " << name;
  return kNone;
}

TEST(RealFsGluster, TwoRanksShareOneFolderCommitRestoreAndDropCacheOnFuse) {
  RealFs fs("gluster");
  REQUIRE_MOUNTED(fs);
  TempDir dir("/var/tmp");
  write_file(dir.path() + "/s.json", kStorageSuite);
  CommandResult r = mpirun_iofab(
      2, {"run", dir.path() + "/s.json", "--target", fs.path(), "--out", dir.path() + "/r.json", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(dir.path() + "/r.json"));

  // What it measured against.
  EXPECT_EQ(j["target"]["fs_type"], "fuse.glusterfs");
  EXPECT_EQ(j["target"]["access"], "fuse");
  EXPECT_EQ(j["target"]["devices"], json::array());
  EXPECT_NE(j["target"]["mount_source"].get<std::string>().find(":/iofab"), std::string::npos);
  EXPECT_NE(j["target"]["mount_options"].get<std::string>().find("user_id="), std::string::npos);

  for (const char* name : {"ingest", "checkpoint", "restore", "train_read"}) {
    const json& p = phase(j, name);
    EXPECT_EQ(p["status"], "passed") << name << ": " << p["reason"];
    // Nothing on FUSE proves where the bytes came from.
    EXPECT_EQ(p["verification"]["level"], "unverified") << name;
    EXPECT_EQ(p["verification"]["note"].get<std::string>().rfind("unverified: client cache not excluded", 0),
              0u)
        << p["verification"];
  }
  // O_DIRECT was asked for and the FUSE mount took it (the runner's probe opened a file with it).
  EXPECT_EQ(phase(j, "ingest")["params"]["direct"], true);
  // Both ranks' shards went into each step folder and were committed (fsync, rename of step-N.tmp)...
  const json& ck = phase(j, "checkpoint")["result"]["metrics"];
  EXPECT_EQ(ck["checkpoints"], 2);
  EXPECT_GE(ck["shards"].get<int>(), 2);
  // ... and every rank read them back, every byte verified.
  const json& rs = phase(j, "restore")["result"]["metrics"];
  EXPECT_EQ(rs["corrupt_shards"], 0);
  EXPECT_GT(rs["read_bytes"].get<double>(), 0);
  // The kernel's page cache of a FUSE file drops as a local one does.
  for (const auto& e : phase(j, "train_read")["result"]["details"]["epochs"]) {
    EXPECT_EQ(e["cache_dropped"], true);
    EXPECT_EQ(e["cache_drop_error"], "") << e;
  }
  // The shared run folder is gone, whichever rank removed what.
  EXPECT_TRUE(list_files(fs.path()).empty());
}

TEST(RealFsGluster, FreeSpacePreflightReadsTheFuseMountsStatvfs) {
  RealFs fs("gluster");
  REQUIRE_MOUNTED(fs);
  TempDir dir("/var/tmp");
  write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "ingest", "file_size": "1PiB", "workers": 1,
    "files_per_worker": 1}]})");
  CommandResult r = run_iofab({"run", dir.path() + "/s.json", "--target", fs.path(), "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("preflight: target " + fs.path() + " has "), std::string::npos) << r.err;
  // statvfs answered through FUSE: the free space is the bricks', not zero.
  EXPECT_EQ(r.err.find(" has 0 bytes free"), std::string::npos) << r.err;
  EXPECT_TRUE(list_files(fs.path()).empty());
}

void expect_verified_on_loop(const std::string& kind) {
  RealFs fs(kind);
  REQUIRE_MOUNTED(fs);
  TempDir dir("/var/tmp");
  write_file(dir.path() + "/s.json", kStorageSuite);
  CommandResult r = run_iofab({"run", dir.path() + "/s.json", "--target", fs.path(), "--out",
                               dir.path() + "/r.json", "--quiet", "--set", "phases.train_read.direct=true"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(dir.path() + "/r.json"));
  EXPECT_EQ(j["target"]["fs_type"], kind);
  EXPECT_EQ(j["target"]["access"], "block");
  ASSERT_EQ(j["target"]["devices"].size(), 1u) << j["target"];
  const std::string dev = j["target"]["devices"][0];
  EXPECT_EQ(dev.rfind("loop", 0), 0u) << dev;
  for (const char* name : {"ingest", "checkpoint", "restore", "train_read"}) {
    const json& v = phase(j, name)["verification"];
    EXPECT_EQ(v["level"], "storage") << name << ": " << v;
    EXPECT_EQ(v["source"], "/proc/diskstats: " + dev);
    EXPECT_GE(v["counted_bytes"].get<double>(), 0.9 * v["phase_bytes"].get<double>()) << v;
  }
}

TEST(RealFsLoop, XfsListsItsLoopDeviceAndProvesTheBytes) { expect_verified_on_loop("xfs"); }

// btrfs's st_dev is an anonymous device: the device is found from the mount source.
TEST(RealFsLoop, BtrfsListsItsLoopDeviceAndProvesTheBytes) { expect_verified_on_loop("btrfs"); }

TEST(RealFsDirect, FilesystemRefusingODirectIsAClearErrorNotBufferedIo) {
  TempDir dir("/var/tmp");
  const std::string mnt = dir.path() + "/ramfs";
  ASSERT_EQ(::mkdir(mnt.c_str(), 0755), 0);
  if (mount("ramfs", mnt.c_str(), "ramfs", 0, nullptr) != 0)
    GTEST_SKIP() << "cannot mount a ramfs here (needs root)";
  write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "ingest", "direct": true, "engine": "psync",
    "file_size": "1MiB", "workers": 1, "files_per_worker": 1}]})");
  // ramfs reports no free space: the preflight is off so the O_DIRECT refusal is what stops the run.
  CommandResult r = run_iofab({"run", dir.path() + "/s.json", "--target", mnt, "--no-preflight", "--quiet",
                               "--out", dir.path() + "/r.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("(ramfs from ramfs) refuses O_DIRECT: open returned EINVAL; phase ingest asks"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Run buffered with --set phases.ingest.direct=false (the figures"), std::string::npos)
      << r.err;
  EXPECT_TRUE(list_files(mnt).empty());
  // Buffered, as the error suggests: it runs, and the report says the figure is memory's.
  r = run_iofab({"run", dir.path() + "/s.json", "--target", mnt, "--no-preflight", "--quiet", "--out",
                 dir.path() + "/r.json", "--set", "phases.ingest.direct=false"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(read_file(dir.path() + "/r.json"));
  EXPECT_EQ(j["phases"][0]["verification"]["note"],
            "unverified: ramfs is memory; there is no storage behind it");
  umount2(mnt.c_str(), MNT_DETACH);
}

}  // namespace
}  // namespace iofab::testing
