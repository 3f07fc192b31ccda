#include "harness/fs/run_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <vector>

#include "harness/core/input_file.h"

namespace iofab {

Status open_file_at(int dirfd, std::string_view name, int flags, int* fd) {
  std::string n(name);
  if ((flags & O_ACCMODE) == O_RDONLY) {
    Status s = open_regular_file_at(dirfd, name, (flags & ~O_ACCMODE) | O_NOFOLLOW, fd);
    return s.ok() ? s : Status::FromCode(s.code(), "open " + s.message());
  }
  flags |= O_CREAT | O_EXCL;
  int f = openat(dirfd, n.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (f < 0) return Status::FromErrno("open " + n, errno);
  *fd = f;
  return Status::Ok();
}

Status make_dir_at(int dirfd, std::string_view name, int* fd) {
  std::string n(name);
  if (mkdirat(dirfd, n.c_str(), 0755) != 0 && errno != EEXIST) return Status::FromErrno("mkdir " + n, errno);
  int f = openat(dirfd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (f < 0) return Status::FromErrno("open folder " + n, errno);
  *fd = f;
  return Status::Ok();
}

Status remove_tree_at(int parent, std::string_view name) {
  std::string n(name);
  // Opened first, never stat'ed then opened: ranks on a shared target remove the same folders, and
  // one that went between a stat and an open was an error ("open folder X: No such file").
  int sub = openat(parent, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (sub < 0) {
    const int e = errno;
    if (e == ENOENT) return Status::Ok();  // gone already: another remover got there first
    // Not a folder (a link is never followed: ELOOP): the entry itself goes.
    if (e != ENOTDIR && e != ELOOP) return Status::FromErrno("open folder " + n, e);
    if (unlinkat(parent, n.c_str(), 0) != 0 && errno != ENOENT) return Status::FromErrno("unlink " + n, errno);
    return Status::Ok();
  }
  DIR* d = fdopendir(sub);
  if (d == nullptr) {
    int e = errno;
    close(sub);
    return Status::FromErrno("opendir " + n, e);
  }
  std::vector<std::string> entries;
  while (dirent* e = readdir(d)) {
    std::string_view en(e->d_name);
    if (en != "." && en != "..") entries.emplace_back(en);
  }
  Status first;
  for (const auto& e : entries) {
    Status s = remove_tree_at(dirfd(d), e);
    if (!s.ok() && first.ok()) first = s;
  }
  closedir(d);
  if (unlinkat(parent, n.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT && first.ok()) {
    first = Status::FromErrno("rmdir " + n, errno);
  }
  return first;
}

Status fsync_dir(int dirfd, std::string_view what) {
  if (fsync(dirfd) != 0) return Status::FromErrno("fsync folder " + std::string(what), errno);
  return Status::Ok();
}

bool is_run_dir_name(std::string_view name) {
  // iofab-20261121T211400Z-3f9a2c
  constexpr std::string_view kPrefix = "iofab-";
  constexpr std::string_view kId = "ddddddddTddddddZ-xxxxxx";  // d: a digit, x: a lowercase hex digit
  if (name.size() != kPrefix.size() + kId.size() || name.substr(0, kPrefix.size()) != kPrefix) return false;
  name.remove_prefix(kPrefix.size());
  for (size_t i = 0; i < kId.size(); ++i) {
    const char c = name[i];
    const bool ok = kId[i] == 'd'   ? (c >= '0' && c <= '9')
                    : kId[i] == 'x' ? ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))
                                    : c == kId[i];
    if (!ok) return false;
  }
  return true;
}

RunDir::~RunDir() {
  if (lock_fd_ >= 0) close(lock_fd_);
  if (fd_ >= 0) close(fd_);
  if (target_fd_ >= 0) close(target_fd_);
}

Status RunDir::open(const std::string& target, const std::string& run_id, bool create) {
  name_ = "iofab-" + run_id;
  path_ = target + "/" + name_;
  target_fd_ = ::open(target.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (target_fd_ < 0) return Status::FromErrno("open target " + target, errno);
  if (create && mkdirat(target_fd_, name_.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::FromErrno("create run folder " + path_, errno);
  }
  fd_ = openat(target_fd_, name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0) {
    // Another rank on a node-local target: make our own copy of the folder.
    if (errno == ENOENT && mkdirat(target_fd_, name_.c_str(), 0755) == 0) {
      fd_ = openat(target_fd_, name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd_ < 0) return Status::FromErrno("open run folder " + path_, errno);
  }
  // Shared: every rank of this run may hold it at once; only `iofab clean` (and `iofab list`, for a moment,
  // to test it) takes it alone, so waiting for it is short.
  lock_fd_ = openat(fd_, kRunLockName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) return Status::FromErrno("create " + path_ + "/" + kRunLockName, errno);
  int rc;
  while ((rc = flock(lock_fd_, LOCK_SH)) != 0 && errno == EINTR) {
  }
  // A filesystem without flock (Lustre mounted noflock): the run goes on; clean cannot judge its folders.
  if (rc != 0 && errno != ENOSYS && errno != EOPNOTSUPP && errno != ENOLCK) {
    return Status::FromErrno("lock " + path_ + "/" + kRunLockName, errno);
  }
  struct stat st {};
  if (fstat(lock_fd_, &st) == 0 && st.st_nlink == 0) {
    return Status::IoError("run folder " + path_ + " was removed by `iofab clean` as the run started; run again");
  }
  return Status::Ok();
}

Status RunDir::remove() {
  if (fd_ < 0) return Status::Ok();
  Status first;
  DIR* d = fdopendir(dup(fd_));
  if (d == nullptr) return Status::FromErrno("opendir " + path_, errno);
  // The dup shares its read position with fd_; a phase that listed the folder must not hide its entries.
  rewinddir(d);
  std::vector<std::string> entries;
  while (dirent* e = readdir(d)) {
    std::string_view en(e->d_name);
    if (en != "." && en != "..") entries.emplace_back(en);
  }
  closedir(d);
  for (const auto& e : entries) {
    Status s = remove_tree_at(fd_, e);
    if (!s.ok() && first.ok()) first = s;
  }
  close(fd_);
  fd_ = -1;
  if (unlinkat(target_fd_, name_.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT && errno != ENOTEMPTY &&
      first.ok()) {
    first = Status::FromErrno("rmdir " + path_, errno);
  }
  return first;
}

std::string new_run_id() {
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  std::random_device rd;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%06x", rd() & 0xffffffu);
  return std::string(stamp) + "-" + suffix;
}

}  // namespace iofab
