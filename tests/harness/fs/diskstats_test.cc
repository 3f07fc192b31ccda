// /proc/diskstats: the target's device is found, its read counter moves by
// at least what an O_DIRECT read asked for, and differences saturate.
#include "harness/fs/diskstats.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

#include "harness/fs/target.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

TEST(Diskstats, TargetDeviceCountsDirectReads) {
  TempDir dir("/var/tmp");
  TargetInfo info;
  ASSERT_TRUE(describe_target(dir.path(), &info).ok());
  if (info.block_device.empty()) {
    GTEST_SKIP() << dir.path() << " is on " << info.device << ", not a block device";
  }
  auto before = read_disk_counters(info.block_device);
  ASSERT_TRUE(before.has_value()) << info.block_device << " not in /proc/diskstats";

  constexpr size_t kSize = 8 << 20;
  const std::string path = dir.path() + "/f";
  write_file(path, std::string(kSize, 'y'));
  int fd = open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "no O_DIRECT on " << dir.path();
  fdatasync(fd);
  void* buf = nullptr;
  ASSERT_EQ(posix_memalign(&buf, 4096, 1 << 20), 0);
  before = read_disk_counters(info.block_device);
  size_t got = 0;
  ssize_t n;
  while ((n = read(fd, buf, 1 << 20)) > 0) got += static_cast<size_t>(n);
  close(fd);
  free(buf);
  ASSERT_EQ(got, kSize);
  auto after = read_disk_counters(info.block_device);
  ASSERT_TRUE(after.has_value());
  const DiskCounters d = *after - *before;
  EXPECT_GE(d.read_bytes, kSize) << "O_DIRECT reads must reach the device";
  EXPECT_GE(d.reads, 1u);
}

TEST(Diskstats, UnknownDevicesAndCounterResets) {
  EXPECT_FALSE(read_disk_counters("").has_value());
  EXPECT_FALSE(read_disk_counters("no-such-device-iofab").has_value());
  const DiskCounters a{100, 200, 3, 4};
  const DiskCounters b{150, 100, 1, 9};
  const DiskCounters d = a - b;
  EXPECT_EQ(d.read_bytes, 0u) << "a reset counter must not wrap around";
  EXPECT_EQ(d.write_bytes, 100u);
  EXPECT_EQ(d.reads, 2u);
  EXPECT_EQ(d.writes, 0u);
}

}  // namespace
}  // namespace iofab::testing
