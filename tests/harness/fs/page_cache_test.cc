// The page-cache helpers on a real filesystem: what was read is resident,
// and after a drop it is not (where the kernel honours the advice).
#include "harness/fs/page_cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace iofab::testing {
namespace {

constexpr size_t kSize = 4 << 20;

int write_and_read_back(const std::string& path) {
  write_file(path, std::string(kSize, 'x'));
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fd;
  std::vector<char> buf(1 << 20);
  while (read(fd, buf.data(), buf.size()) > 0) {
  }
  return fd;
}

TEST(PageCache, ReadFileIsResidentAndDroppedFileIsNot) {
  TempDir dir("/var/tmp");
  int fd = write_and_read_back(dir.path() + "/f");
  ASSERT_GE(fd, 0);
  uint64_t resident = 0;
  ASSERT_TRUE(resident_bytes(fd, kSize, &resident).ok());
  EXPECT_GE(resident, kSize * 9 / 10) << "a file just read should be in the page cache";

  Status s = drop_cached_pages(fd);
  if (!s.ok()) {
    close(fd);
    GTEST_SKIP() << "the kernel refused the drop: " << s.message();
  }
  ASSERT_TRUE(resident_bytes(fd, kSize, &resident).ok());
  close(fd);
  if (resident > kSize / 10) {
    GTEST_SKIP() << "the drop was accepted but " << resident << " bytes stayed resident";
  }
  EXPECT_LE(resident, kSize / 10);
}

TEST(PageCache, TmpfsPagesStayResidentAndEmptyFilesHaveNone) {
  TempDir dir("/dev/shm");
  int fd = write_and_read_back(dir.path() + "/f");
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(drop_cached_pages(fd).ok());
  uint64_t resident = 0;
  ASSERT_TRUE(resident_bytes(fd, kSize, &resident).ok());
  EXPECT_EQ(resident, kSize) << "tmpfs holds its data in the page cache: nothing to drop";
  ASSERT_TRUE(resident_bytes(fd, 0, &resident).ok());
  EXPECT_EQ(resident, 0u);
  close(fd);
}

}  // namespace
}  // namespace iofab::testing
