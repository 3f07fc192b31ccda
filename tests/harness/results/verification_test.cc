// The verification level: bytes are "storage" only when the target's block devices moved them, "client"
// only when the NFS client sent them over the wire, and everything else says why it is unverified.
#include "harness/results/verification.h"

#include <gtest/gtest.h>

namespace iofab::testing {
namespace {

const TargetKind kLoop{"xfs", "block", "loop3"};

TEST(Verification, DeviceThatMovedTheBytesVerifiesTheFigure) {
  CountedBytes c;
  c.device_seen = true;
  c.device_read = 100e6;
  Verification v = judge_verification("read", 100e6, c, kLoop);
  EXPECT_EQ(v.level, kLevelStorage);
  EXPECT_EQ(v.direction, "read");
  EXPECT_EQ(*v.counted_bytes, 100e6);
  EXPECT_EQ(v.source, "/proc/diskstats: loop3");
  EXPECT_EQ(v.note, "verified: loop3 read 100% of the phase's bytes (/proc/diskstats)");
}

TEST(Verification, DeviceThatMovedTooFewBytesMeansThePageCacheServedThem) {
  CountedBytes c;
  c.device_seen = true;
  c.device_read = 10e6;
  c.device_write = 500e6;  // the other direction proves nothing about reads
  Verification v = judge_verification("read", 100e6, c, kLoop);
  EXPECT_EQ(v.level, kLevelUnverified);
  EXPECT_EQ(v.note.rfind("unverified: page cache not excluded (loop3 read only 10%", 0), 0u) << v.note;
  // Just under the line is still unverified; at it, verified.
  c.device_read = 89e6;
  EXPECT_EQ(judge_verification("read", 100e6, c, kLoop).level, kLevelUnverified);
  c.device_write = 90e6;
  EXPECT_EQ(judge_verification("write", 100e6, c, kLoop).level, kLevelStorage);
}

TEST(Verification, NothingMovedIsNotVerified) {
  CountedBytes c;
  c.device_seen = true;
  EXPECT_EQ(judge_verification("write", 0, c, kLoop).level, kLevelUnverified);
}

TEST(Verification, NfsClientCountersGiveTheClientLevel) {
  CountedBytes c;
  c.client_seen = true;
  c.client_write = 64e6;
  const TargetKind nfs{"nfs4", "network", ""};
  Verification v = judge_verification("write", 64e6, c, nfs);
  EXPECT_EQ(v.level, kLevelClient);
  EXPECT_EQ(v.source, "/proc/self/mountstats");
  EXPECT_NE(v.note.find("server's cache is not excluded"), std::string::npos) << v.note;
  v = judge_verification("read", 64e6, c, nfs);  // nothing fetched: the client cache served the reads
  EXPECT_EQ(v.level, kLevelUnverified);
  EXPECT_EQ(v.note.rfind("unverified: client cache not excluded", 0), 0u) << v.note;
}

TEST(Verification, FuseNetworkAndMemoryTargetsSayWhyTheyAreUnverified) {
  const CountedBytes none;
  Verification v = judge_verification("read", 1e6, none, {"fuse.glusterfs", "fuse", ""});
  EXPECT_EQ(v.level, kLevelUnverified);
  EXPECT_FALSE(v.counted_bytes.has_value());
  EXPECT_EQ(v.note.rfind("unverified: client cache not excluded (fuse.glusterfs is a FUSE mount", 0), 0u)
      << v.note;
  v = judge_verification("read", 1e6, none, {"lustre", "network", ""});
  EXPECT_EQ(v.note.rfind("unverified: client cache not excluded (lustre", 0), 0u) << v.note;
  v = judge_verification("write", 1e6, none, {"tmpfs", "memory", ""});
  EXPECT_EQ(v.note, "unverified: tmpfs is memory; there is no storage behind it");
}

}  // namespace
}  // namespace iofab::testing
