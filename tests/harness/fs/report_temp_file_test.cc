// Issue 42 item 12: the report's temporary file is created with O_EXCL, so a file already at the
// temporary name (left by a crash, or a hard link planted to another file) is never written through.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "harness/fs/atomic_file.h"
#include "test_util.h"

namespace iofab {
namespace {

using testing::read_file;
using testing::TempDir;
using testing::write_file;

TEST(ReportTempFile, AFileAtTheTempNameIsNeverWrittenThrough) {
  TempDir dir("/dev/shm");
  const std::string victim = dir.path() + "/victim";
  write_file(victim, "original");
  const std::string path = dir.path() + "/report.json";
  // What the temp name was: PATH.tmp.PID. A hard link there shares the victim's bytes.
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  ASSERT_EQ(link(victim.c_str(), tmp.c_str()), 0);
  const Status s = write_file_atomic(path, "report");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(read_file(victim), "original");
  EXPECT_EQ(read_file(path), "report");
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_nlink, 1u);             // a file of its own, not the victim's inode
  EXPECT_EQ(read_file(tmp), "original");  // left as it was: not iofab's to remove
}

}  // namespace
}  // namespace iofab
