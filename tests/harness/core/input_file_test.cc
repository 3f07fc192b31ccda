#include "harness/core/input_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fifo_guard.h"
#include "harness/fs/run_dir.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

TEST(InputFile, ReadsARegularFileWhole) {
  TempDir d;
  write_file(d.path() + "/a.json", "{\"x\": 1}");
  std::string text;
  Status s = read_input_file(d.path() + "/a.json", 1024, &text);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(text, "{\"x\": 1}");
}

TEST(InputFile, AFifoIsRefusedAtOnceNamingIt) {
  TempDir d;
  const std::string fifo = d.path() + "/suite.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  FifoGuard guard(fifo);
  std::string text;
  Status s = read_input_file(fifo, 1024, &text);
  EXPECT_FALSE(guard.fired()) << "the read blocked on the FIFO";
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), fifo + ": a FIFO (named pipe), expected a regular file");
}

TEST(InputFile, DevicesAndFoldersAreRefusedNamingWhatTheyAre) {
  TempDir d;
  std::string text;
  EXPECT_EQ(read_input_file("/dev/zero", 1024, &text).message(),
            "/dev/zero: a character device, expected a regular file");
  EXPECT_EQ(read_input_file(d.path(), 1024, &text).message(),
            d.path() + ": a folder, expected a regular file");
  EXPECT_EQ(read_input_file(d.path() + "/none", 1024, &text).code(), Status::Code::kIoError);
}

TEST(InputFile, MoreThanTheLimitIsRefusedNamingTheLimit) {
  TempDir d;
  write_file(d.path() + "/big", std::string(2049, 'x'));
  std::string text;
  Status s = read_input_file(d.path() + "/big", 2048, &text);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("larger than 2 KiB"), std::string::npos) << s.message();
  ASSERT_TRUE(read_input_file(d.path() + "/big", 2049, &text).ok());
  EXPECT_EQ(text.size(), 2049u);
}

TEST(InputFile, AFileWhoseSizeFstatDoesNotKnowStopsAtTheLimit) {
  // procfs files report size 0 and can be longer than any limit we pass.
  std::string text;
  Status s = read_input_file("/proc/self/maps", 16, &text);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.message();
  EXPECT_NE(s.message().find("larger than 16 bytes"), std::string::npos) << s.message();
}

TEST(InputFile, NoFollowRefusesASymlink) {
  TempDir d;
  write_file(d.path() + "/real", "x");
  ASSERT_EQ(symlink("real", (d.path() + "/link").c_str()), 0);
  const int dirfd = open(d.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dirfd, 0);
  std::string text;
  Status s = read_input_file_at(dirfd, "link", 1024, O_NOFOLLOW, &text);
  EXPECT_EQ(s.message(), "link: a symbolic link, expected a regular file");
  EXPECT_TRUE(read_input_file_at(dirfd, "link", 1024, 0, &text).ok());
  close(dirfd);
}

TEST(InputFile, OpenFileAtForReadingRefusesAFifoWithoutBlocking) {
  // Restore shards and train_read data files open through open_file_at.
  TempDir d;
  ASSERT_EQ(mkfifo((d.path() + "/shard.bin").c_str(), 0600), 0);
  const int dirfd = open(d.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dirfd, 0);
  FifoGuard guard(d.path() + "/shard.bin");
  int fd = -1;
  Status s = open_file_at(dirfd, "shard.bin", O_RDONLY, &fd);
  EXPECT_FALSE(guard.fired()) << "open blocked on the FIFO";
  EXPECT_EQ(s.message(), "open shard.bin: a FIFO (named pipe), expected a regular file");
  EXPECT_EQ(fd, -1);
  // A regular file still opens, blocking mode restored for the engines.
  write_file(d.path() + "/ok.bin", "data");
  ASSERT_TRUE(open_file_at(dirfd, "ok.bin", O_RDONLY, &fd).ok());
  EXPECT_EQ(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
  close(fd);
  close(dirfd);
}

}  // namespace
}  // namespace iofab::testing
