#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>

#include "harness/fs/run_dir.h"
#include "harness/fs/target.h"
#include "test_util.h"

namespace iofab {
namespace {

using iofab::testing::contains;
using iofab::testing::list_files;
using iofab::testing::read_file;
using iofab::testing::TempDir;
using iofab::testing::write_file;

bool exists_nofollow(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

bool is_dir(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_symlink(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

void expect_refused(const std::string& path, const std::string& why) {
  TargetInfo info;
  Status s = check_target(path, &info);
  ASSERT_FALSE(s.ok()) << path << " was accepted";
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(contains(s.message(), path)) << s.message();
  if (!why.empty()) {
    EXPECT_TRUE(contains(s.message(), why)) << s.message();
  }
}

// ---- check_target ---------------------------------------------------------------

TEST(FsSafetyTarget, RefusesACharacterDevice) { expect_refused("/dev/null", "character device"); }

TEST(FsSafetyTarget, RefusesASymlinkToACharacterDevice) {
  TempDir dir("/dev/shm");
  const std::string link = dir.path() + "/null-link";
  ASSERT_EQ(symlink("/dev/null", link.c_str()), 0);
  expect_refused(link, "device");
}

TEST(FsSafetyTarget, RefusesABlockDevice) {
  std::string dev;
  for (const char* candidate : {"/dev/vda", "/dev/loop0", "/dev/sda", "/dev/nvme0n1"}) {
    struct stat st {};
    if (stat(candidate, &st) == 0 && S_ISBLK(st.st_mode)) {
      dev = candidate;
      break;
    }
  }
  if (dev.empty()) GTEST_SKIP() << "no block device node (/dev/vda, /dev/loop0, /dev/sda, /dev/nvme0n1) here";
  expect_refused(dev, "block device");
}

TEST(FsSafetyTarget, RefusesARegularFile) {
  TempDir dir("/dev/shm");
  const std::string file = dir.path() + "/plain";
  write_file(file, "keep me");
  expect_refused(file, "not a folder");
  EXPECT_EQ(read_file(file), "keep me");
}

TEST(FsSafetyTarget, RefusesAPathWhoseParentIsMissingAndCreatesNothing) {
  TempDir dir("/dev/shm");
  const std::string path = dir.path() + "/missing/child";
  expect_refused(path, "does not exist");
  EXPECT_FALSE(exists_nofollow(dir.path() + "/missing"));
  EXPECT_FALSE(exists_nofollow(path));
}

TEST(FsSafetyTarget, RefusesAnEmptyPath) {
  TargetInfo info;
  Status s = check_target("", &info);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(contains(s.message(), "target")) << s.message();
}

TEST(FsSafetyTarget, RefusesAnUnwritableFolderForNonRoot) {
  if (geteuid() == 0) {
    GTEST_SKIP() << "running as root: permission bits do not stop root (see the read-only mount test)";
  }
  TempDir dir("/dev/shm");
  const std::string ro = dir.path() + "/ro";
  ASSERT_EQ(mkdir(ro.c_str(), 0555), 0);
  expect_refused(ro, "not writable");
  chmod(ro.c_str(), 0755);
}

// Unmounts on scope exit.
struct MountGuard {
  std::string dir;
  bool mounted = false;
  ~MountGuard() {
    if (mounted) umount2(dir.c_str(), MNT_DETACH);
  }
};

TEST(FsSafetyTarget, RefusesAReadOnlyMount) {
  TempDir dir("/var/tmp");
  MountGuard guard{dir.path() + "/ro-mount"};
  ASSERT_EQ(mkdir(guard.dir.c_str(), 0755), 0);
  if (mount("tmpfs", guard.dir.c_str(), "tmpfs", MS_RDONLY, "size=1m") != 0) {
    GTEST_SKIP() << "cannot mount a read-only tmpfs here: " << std::strerror(errno);
  }
  guard.mounted = true;
  expect_refused(guard.dir, "read-only");
  // A missing last component under the read-only mount is refused too, not created.
  const std::string child = guard.dir + "/child";
  TargetInfo info;
  Status s = check_target(child, &info);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(contains(s.message(), child)) << s.message();
}

TEST(FsSafetyTarget, CreatesAMissingLastComponent) {
  TempDir dir("/dev/shm");
  const std::string path = dir.path() + "/new-target";
  TargetInfo info;
  Status s = check_target(path, &info);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(is_dir(path));
  EXPECT_EQ(info.path, path);  // absolute already, no symlinks: realpath is the same
  // A trailing slash works as well.
  const std::string slashed = dir.path() + "/other/";
  TargetInfo info2;
  ASSERT_TRUE(check_target(slashed, &info2).ok());
  EXPECT_TRUE(is_dir(dir.path() + "/other"));
}

TEST(FsSafetyTarget, DescribesTmpfs) {
  TempDir dir("/dev/shm");
  TargetInfo info;
  Status s = check_target(dir.path(), &info);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(info.fs_type, "tmpfs");
  EXPECT_EQ(info.mount_point, "/dev/shm");
  EXPECT_GT(info.free_bytes, 0u);
  EXPECT_GE(info.total_bytes, info.free_bytes);
  EXPECT_FALSE(info.read_only);
  EXPECT_FALSE(info.mount_options.empty());
  const nlohmann::json j = to_json(info);
  EXPECT_EQ(j["fs_type"], "tmpfs");
  EXPECT_EQ(j["path"], info.path);
  EXPECT_EQ(j["free_bytes"].get<uint64_t>(), info.free_bytes);
}

TEST(FsSafetyTarget, DescribesTheDisk) {
  TempDir dir("/var/tmp");
  TargetInfo info;
  Status s = check_target(dir.path(), &info);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(info.fs_type.empty());
  EXPECT_FALSE(info.mount_point.empty());
  EXPECT_FALSE(info.device.empty());
  EXPECT_GT(info.free_bytes, 0u);
  EXPECT_GE(info.total_bytes, info.free_bytes);
  EXPECT_EQ(info.path, dir.path());
}

TEST(FsSafetyTarget, ResolvesSymlinksInThePath) {
  TempDir dir("/dev/shm");
  const std::string real = dir.path() + "/real";
  const std::string link = dir.path() + "/link";
  ASSERT_EQ(mkdir(real.c_str(), 0755), 0);
  ASSERT_EQ(symlink(real.c_str(), link.c_str()), 0);
  TargetInfo info;
  ASSERT_TRUE(check_target(link, &info).ok());
  EXPECT_EQ(info.path, real);
}

// ---- RunDir ------------------------------------------------------------------------

TEST(FsSafetyRunDir, OpenCreatesTheRunFolder) {
  TempDir dir("/dev/shm");
  RunDir rd;
  Status s = rd.open(dir.path(), "20260101T000000Z-abcdef", true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(rd.name(), "iofab-20260101T000000Z-abcdef");
  EXPECT_EQ(rd.path(), dir.path() + "/iofab-20260101T000000Z-abcdef");
  EXPECT_TRUE(is_dir(rd.path()));
  EXPECT_GE(rd.fd(), 0);
  // A second opener (another rank) finds the same folder.
  RunDir other;
  ASSERT_TRUE(other.open(dir.path(), "20260101T000000Z-abcdef", false).ok());
  int fd = -1;
  ASSERT_TRUE(open_file_at(other.fd(), "from-other", O_WRONLY, &fd).ok());
  close(fd);
  EXPECT_TRUE(exists_nofollow(rd.path() + "/from-other"));
}

// A live run's folder is marked by its lock, which `iofab clean` cannot take.
TEST(FsSafetyRunDir, ALiveRunHoldsItsLockSharedWithItsOtherRanks) {
  TempDir dir("/dev/shm");
  const std::string lock = dir.path() + "/iofab-20260101T000000Z-abcdef/" + kRunLockName;
  {
    RunDir rd, other_rank;
    ASSERT_TRUE(rd.open(dir.path(), "20260101T000000Z-abcdef", true).ok());
    ASSERT_TRUE(other_rank.open(dir.path(), "20260101T000000Z-abcdef", false).ok()) << "shared by every rank";
    const int fd = open(lock.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    EXPECT_NE(flock(fd, LOCK_EX | LOCK_NB), 0) << "clean must not get it while the run lives";
    close(fd);
  }
  // The run is gone: the lock is free.
  const int fd = open(lock.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  close(fd);
}

TEST(FsSafetyRunDir, RunFolderNamesHaveTheRunIdsForm) {
  EXPECT_TRUE(is_run_dir_name("iofab-" + new_run_id()));
  EXPECT_TRUE(is_run_dir_name("iofab-20261121T211400Z-3f9a2c"));
  for (const char* n :
       {"iofab-", "iofab-data", "iofab-report-20261121T211400Z-3f9a2c.json", "iofab-20261121T211400Z-3f9a2",
        "iofab-20261121T211400Z-3f9a2cc", "iofab-20261121T211400Z-3F9A2C", "iofab-2026112xT211400Z-3f9a2c",
        "xofab-20261121T211400Z-3f9a2c", "iofab-dataset.json"}) {
    EXPECT_FALSE(is_run_dir_name(n)) << n;
  }
}

TEST(FsSafetyRunDir, OpenFailsOnAMissingTarget) {
  TempDir dir("/dev/shm");
  RunDir rd;
  EXPECT_FALSE(rd.open(dir.path() + "/absent", "x", true).ok());
}

TEST(FsSafetyRunDir, OpenRefusesARunFolderThatIsASymlink) {
  TempDir dir("/dev/shm");
  TempDir outside("/dev/shm");
  const std::string link = dir.path() + "/iofab-planted";
  ASSERT_EQ(symlink(outside.path().c_str(), link.c_str()), 0);
  RunDir rd;
  Status s = rd.open(dir.path(), "planted", true);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(is_symlink(link));
}

TEST(FsSafetyRunDir, RemoveRemovesEverythingBelowIncludingNestedFolders) {
  TempDir dir("/dev/shm");
  RunDir rd;
  ASSERT_TRUE(rd.open(dir.path(), "nested", true).ok());
  int a = -1, b = -1, f = -1;
  ASSERT_TRUE(make_dir_at(rd.fd(), "a", &a).ok());
  ASSERT_TRUE(make_dir_at(a, "b", &b).ok());
  ASSERT_TRUE(open_file_at(b, "deep", O_WRONLY, &f).ok());
  ASSERT_EQ(write(f, "x", 1), 1);
  close(f);
  close(b);
  close(a);
  write_file(rd.path() + "/top", "y");
  ASSERT_EQ(mkdir((rd.path() + "/empty").c_str(), 0755), 0);
  EXPECT_EQ(list_files(rd.path()).size(), 3u) << "deep, top and the run lock";

  const std::string run_path = rd.path();
  Status s = rd.remove();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(exists_nofollow(run_path));
  EXPECT_TRUE(is_dir(dir.path()));   // the target itself stays
  EXPECT_EQ(rd.fd(), -1);
  EXPECT_TRUE(rd.remove().ok());     // a second remove is harmless
}

// The lab found it on NFS: a rank removed the lock file while another rank on the same client still held
// it open, the client renamed it (.nfsXXXX) and the folder could not go. Every rank first lets go of what
// it holds (release: its files and its lock) and only then, after a barrier, removes the rest.
TEST(FsSafetyRunDir, ReleaseLetsTheLockGoAndLeavesOnlyTheLockFileForTheRemoval) {
  TempDir dir("/dev/shm");
  RunDir rd, other_rank;
  ASSERT_TRUE(rd.open(dir.path(), "20260101T000000Z-abcdef", true).ok());
  ASSERT_TRUE(other_rank.open(dir.path(), "20260101T000000Z-abcdef", false).ok());
  write_file(rd.path() + "/data", "x");
  const std::string run_path = rd.path();
  const std::string lock = run_path + "/" + kRunLockName;
  ASSERT_TRUE(rd.release().ok());
  ASSERT_TRUE(other_rank.release().ok());
  // Nothing but the lock file is left, and no rank holds it: clean's exclusive lock is free at once.
  EXPECT_EQ(list_files(run_path), std::vector<std::string>{kRunLockName});
  const int fd = open(lock.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0) << "a rank still holds the lock after release()";
  close(fd);
  // Then every rank removes: the first takes the folder, the second finds it gone, neither fails.
  Status s = rd.remove();
  ASSERT_TRUE(s.ok()) << s.message();
  s = other_rank.remove();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(exists_nofollow(run_path));
}

TEST(FsSafetyRunDir, RemoveRemovesAPlantedSymlinkButNotWhatItPointsTo) {
  TempDir dir("/dev/shm");
  TempDir outside("/dev/shm");
  ASSERT_EQ(mkdir((outside.path() + "/sub").c_str(), 0755), 0);
  write_file(outside.path() + "/precious", "do not delete");
  write_file(outside.path() + "/sub/also", "nor this");
  RunDir rd;
  ASSERT_TRUE(rd.open(dir.path(), "links", true).ok());
  ASSERT_EQ(symlink(outside.path().c_str(), (rd.path() + "/to-dir").c_str()), 0);
  ASSERT_EQ(symlink((outside.path() + "/precious").c_str(), (rd.path() + "/to-file").c_str()), 0);
  ASSERT_EQ(mkdir((rd.path() + "/inner").c_str(), 0755), 0);
  ASSERT_EQ(symlink((outside.path() + "/sub").c_str(), (rd.path() + "/inner/to-sub").c_str()), 0);

  const std::string run_path = rd.path();
  Status s = rd.remove();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(exists_nofollow(run_path + "/to-dir"));
  EXPECT_FALSE(exists_nofollow(run_path));
  EXPECT_EQ(read_file(outside.path() + "/precious"), "do not delete");
  EXPECT_EQ(read_file(outside.path() + "/sub/also"), "nor this");
  EXPECT_EQ(list_files(outside.path()).size(), 2u);
}

TEST(FsSafetyRunDir, RemoveTreeAtNeverFollowsALink) {
  TempDir dir("/dev/shm");
  TempDir outside("/dev/shm");
  write_file(outside.path() + "/precious", "keep");
  ASSERT_EQ(symlink(outside.path().c_str(), (dir.path() + "/link").c_str()), 0);
  int fd = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(remove_tree_at(fd, "link").ok());
  EXPECT_TRUE(remove_tree_at(fd, "never-existed").ok());
  close(fd);
  EXPECT_FALSE(exists_nofollow(dir.path() + "/link"));
  EXPECT_EQ(read_file(outside.path() + "/precious"), "keep");
}

// Ranks on a shared target remove the same folders at once (each rank's run folder removal, a
// phase's): an entry the other remover took first is gone, never an error.
TEST(FsSafetyRunDir, TwoRemoversOfOneTreeBothSucceed) {
  TempDir dir("/dev/shm");
  int fd = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  for (int round = 0; round < 30; ++round) {
    ASSERT_EQ(mkdir((dir.path() + "/tree").c_str(), 0755), 0);
    for (int d = 0; d < 16; ++d) {
      const std::string sub = dir.path() + "/tree/d" + std::to_string(d);
      ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
      for (int f = 0; f < 16; ++f) write_file(sub + "/f" + std::to_string(f), "x");
      ASSERT_EQ(mkdir((sub + "/inner").c_str(), 0755), 0);
    }
    Status a, b;
    std::thread other([&] { b = remove_tree_at(fd, "tree"); });
    a = remove_tree_at(fd, "tree");
    other.join();
    ASSERT_TRUE(a.ok()) << "round " << round << ": " << a.message();
    ASSERT_TRUE(b.ok()) << "round " << round << ": " << b.message();
    ASSERT_FALSE(exists_nofollow(dir.path() + "/tree"));
  }
  close(fd);
}

TEST(FsSafetyRunDir, OpenFileAtDoesNotFollowASymlink) {
  TempDir dir("/dev/shm");
  TempDir outside("/dev/shm");
  const std::string target_file = outside.path() + "/victim";
  write_file(target_file, "original");
  RunDir rd;
  ASSERT_TRUE(rd.open(dir.path(), "nofollow", true).ok());
  ASSERT_EQ(symlink(target_file.c_str(), (rd.path() + "/victim").c_str()), 0);

  int fd = -1;
  Status r = open_file_at(rd.fd(), "victim", O_RDONLY, &fd);
  EXPECT_FALSE(r.ok());
  // Reads go through the regular-file check, which names what it found.
  EXPECT_TRUE(contains(r.message(), "a symbolic link, expected a regular file")) << r.message();
  EXPECT_TRUE(contains(r.message(), "victim")) << r.message();
  EXPECT_EQ(fd, -1);

  for (int flags : {O_WRONLY, O_RDWR, O_WRONLY | O_TRUNC}) {
    Status w = open_file_at(rd.fd(), "victim", flags, &fd);
    EXPECT_FALSE(w.ok()) << "flags " << flags;
    EXPECT_EQ(fd, -1);
  }
  EXPECT_EQ(read_file(target_file), "original");
  EXPECT_TRUE(is_symlink(rd.path() + "/victim"));
  EXPECT_TRUE(rd.remove().ok());
  EXPECT_EQ(read_file(target_file), "original");
}

TEST(FsSafetyRunDir, OpenFileAtForWritingRefusesAnExistingFile) {
  TempDir dir("/dev/shm");
  RunDir rd;
  ASSERT_TRUE(rd.open(dir.path(), "excl", true).ok());
  write_file(rd.path() + "/exists", "old data");
  int fd = -1;
  Status s = open_file_at(rd.fd(), "exists", O_WRONLY | O_TRUNC, &fd);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message(), std::strerror(EEXIST))) << s.message();
  EXPECT_EQ(read_file(rd.path() + "/exists"), "old data");

  // Reading an existing file is fine, and a new file can be written.
  ASSERT_TRUE(open_file_at(rd.fd(), "exists", O_RDONLY, &fd).ok());
  EXPECT_GE(fd, 0);
  EXPECT_NE(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
  close(fd);
  fd = -1;
  ASSERT_TRUE(open_file_at(rd.fd(), "fresh", O_WRONLY, &fd).ok());
  ASSERT_EQ(write(fd, "new", 3), 3);
  close(fd);
  EXPECT_EQ(read_file(rd.path() + "/fresh"), "new");
}

TEST(FsSafetyRunDir, MakeDirAtRefusesASymlinkedFolder) {
  TempDir dir("/dev/shm");
  TempDir outside("/dev/shm");
  RunDir rd;
  ASSERT_TRUE(rd.open(dir.path(), "mkdir", true).ok());
  ASSERT_EQ(symlink(outside.path().c_str(), (rd.path() + "/phase").c_str()), 0);
  int fd = -1;
  EXPECT_FALSE(make_dir_at(rd.fd(), "phase", &fd).ok());
  EXPECT_EQ(fd, -1);
  // An existing real folder is reused.
  int a = -1, b = -1;
  ASSERT_TRUE(make_dir_at(rd.fd(), "real", &a).ok());
  ASSERT_TRUE(make_dir_at(rd.fd(), "real", &b).ok());
  close(a);
  close(b);
  EXPECT_TRUE(list_files(outside.path()).empty());
}

TEST(FsSafetyRunId, FormatAndUniqueness) {
  const std::regex re(R"(^\d{8}T\d{6}Z-[0-9a-f]{6}$)");
  const std::string a = new_run_id();
  const std::string b = new_run_id();
  EXPECT_TRUE(std::regex_match(a, re)) << a;
  EXPECT_TRUE(std::regex_match(b, re)) << b;
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace iofab
