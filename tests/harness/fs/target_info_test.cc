// What the report says it measured against: the filesystem, the mount source, the block devices behind
// the target, and how the target reaches its storage; and the NFS client's counters in mountstats.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/fs/mountstats.h"
#include "harness/fs/target.h"
#include "harness/fs/target_counters.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

TEST(TargetInfo, AccessFollowsTheFilesystemType) {
  EXPECT_EQ(access_for_fs_type("fuse.glusterfs"), "fuse");
  EXPECT_EQ(access_for_fs_type("fuse"), "fuse");
  EXPECT_EQ(access_for_fs_type("fuseblk"), "fuse");
  for (const char* t : {"nfs", "nfs4", "lustre", "gpfs", "glusterfs", "wekafs", "ceph", "beegfs"}) {
    EXPECT_EQ(access_for_fs_type(t), "network") << t;
  }
  EXPECT_EQ(access_for_fs_type("tmpfs"), "memory");
  EXPECT_EQ(access_for_fs_type("overlay"), "other");
}

TEST(TargetInfo, TmpfsHasNoDeviceAndIsMemory) {
  TempDir dir("/dev/shm");
  TargetInfo info;
  ASSERT_TRUE(describe_target(dir.path(), &info).ok());
  EXPECT_EQ(info.fs_type, "tmpfs");
  EXPECT_EQ(info.mount_source, info.device);
  EXPECT_TRUE(info.devices.empty());
  EXPECT_EQ(info.access, "memory");
  EXPECT_FALSE(sample_target_counters(info).device_seen);
  const nlohmann::json j = to_json(info);
  EXPECT_EQ(j["mount_source"], info.mount_source);
  EXPECT_TRUE(j["devices"].is_array());
  EXPECT_EQ(j["access"], "memory");
}

// Where the disk under /var/tmp is a block device diskstats counts, the target lists it.
TEST(TargetInfo, DiskTargetListsTheDeviceDiskstatsCounts) {
  TempDir dir("/var/tmp");
  TargetInfo info;
  ASSERT_TRUE(describe_target(dir.path(), &info).ok());
  if (info.devices.empty()) GTEST_SKIP() << "/var/tmp (" << info.fs_type << ") has no block device here";
  EXPECT_EQ(info.access, "block");
  EXPECT_EQ(info.block_device, info.devices[0]);
  EXPECT_TRUE(sample_target_counters(info).device_seen);
}

TEST(TargetInfo, ListSaysWhatCanProveTheBytesBeforeARun) {
  CommandResult r = run_iofab({"list", "--target", "/dev/shm"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("access memory: nothing counts its bytes: figures will be marked unverified"),
            std::string::npos)
      << r.out;
  r = run_iofab({"list", "--target", "/dev/shm", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["target"]["devices"], nlohmann::json::array());
  EXPECT_EQ(j["target"]["mount_source"], "tmpfs");
}

constexpr const char* kMountstats =
    "device proc mounted on /proc with fstype proc\n"
    "device srv:/export mounted on /mnt/other with fstype nfs4 statvers=1.1\n"
    "\tbytes:\t1 2 3 4 5 6 7 8\n"
    "device srv:/data mounted on /mnt/my\\040data with fstype nfs4 statvers=1.1\n"
    "\topts:\trw,vers=4.2\n"
    "\tbytes:\t100 200 300 400 4096 8192 1 2\n"
    "device srv:/x mounted on /mnt/x with fstype nfs statvers=1.1\n";

TEST(Mountstats, ServerBytesOfTheNamedNfsMount) {
  auto c = parse_client_counters(kMountstats, "/mnt/my data");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->server_read_bytes, 4096u);
  EXPECT_EQ(c->server_write_bytes, 8192u);
  c = parse_client_counters(kMountstats, "/mnt/other");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->server_read_bytes, 5u);
}

TEST(Mountstats, NoCountersForAnAbsentNonNfsOrTruncatedMount) {
  EXPECT_FALSE(parse_client_counters(kMountstats, "/mnt/none").has_value());
  EXPECT_FALSE(parse_client_counters(kMountstats, "/proc").has_value());
  EXPECT_FALSE(parse_client_counters(kMountstats, "/mnt/x").has_value());  // no bytes line
  EXPECT_FALSE(parse_client_counters("device a mounted on /m with fstype nfs\n\tbytes:\t1 2 3\n", "/m"));
}

// The per-op section as a Linux 6.1 NFS v4.2 client writes it (fields: ops, transmissions, timeouts, bytes
// sent, bytes received, queue, rtt, execute, errors), two mounts after one another.
constexpr const char* kPerOp =
    "device srv:/a mounted on /mnt/a with fstype nfs4 statvers=1.1\n"
    "\tbytes:\t1 2 0 0 3 4 0 0\n"
    "\tper-op statistics\n"
    "\t        NULL: 1 1 0 44 24 0 0 0 0\n"
    "\t     GETATTR: 120 120 0 21760 26880 2 45 51 0\n"
    "\t      LOOKUP: 33 33 0 6120 3360 0 12 14 3\n"
    "\t      REMOVE: 7 7 0 1344 1064 0 3 3 0\n"
    "device srv:/b mounted on /mnt/b with fstype nfs statvers=1.1\n"
    "\tper-op statistics\n"
    "\t      CREATE: 9 9 0 0 0 0 0 0 0\n"
    "device tmpfs mounted on /tmp with fstype tmpfs\n";

TEST(Mountstats, PerOpCountsOfTheNamedNfsMountOnly) {
  auto a = parse_nfs_op_counts(kPerOp, "/mnt/a");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ((*a)["GETATTR"], 120u);
  EXPECT_EQ((*a)["LOOKUP"], 33u);
  EXPECT_EQ((*a)["REMOVE"], 7u);
  EXPECT_EQ(a->count("CREATE"), 0u);  // the next mount's
  auto b = parse_nfs_op_counts(kPerOp, "/mnt/b");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ((*b)["CREATE"], 9u);
  EXPECT_FALSE(parse_nfs_op_counts(kPerOp, "/tmp").has_value());
  EXPECT_FALSE(parse_nfs_op_counts(kPerOp, "/mnt/none").has_value());
}

TEST(TargetCounters, DifferenceSaturatesAndNeedsBothSamples) {
  TargetCounters a, b;
  a.device_seen = b.device_seen = true;
  a.device_read_bytes = 10;
  b.device_read_bytes = 30;
  a.device_write_bytes = 50;
  b.device_write_bytes = 20;
  TargetCounters d = a - b;
  EXPECT_TRUE(d.device_seen);
  EXPECT_EQ(d.device_read_bytes, 0u);
  EXPECT_EQ(d.device_write_bytes, 30u);
  b.device_seen = false;
  EXPECT_FALSE((a - b).device_seen);
}

}  // namespace
}  // namespace iofab::testing
