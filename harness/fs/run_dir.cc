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
#include <iterator>
#include <random>
#include <thread>
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

namespace {

// Whether the folder sub (an entry of parent) is where another filesystem is mounted: another device
// than its parent's, or, for a bind mount of a folder of the same filesystem (same device), the root
// of a mount as statx tells it.
bool is_mount_point(int parent, int sub) {
  struct stat ps {};
  struct stat ss {};
  if (fstat(parent, &ps) == 0 && fstat(sub, &ss) == 0 && ps.st_dev != ss.st_dev) return true;
  struct statx sx {};
  if (statx(sub, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx) != 0) return false;
  return (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) != 0 &&
         (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
}

// remove_tree_at's walk; shown: name's path below the folder the removal started in, for messages.
Status remove_tree_below(int parent, const std::string& n, const std::string& shown) {
  // Opened first, never stat'ed then opened: ranks on a shared target remove the same folders, and
  // one that went between a stat and an open was an error ("open folder X: No such file").
  int sub = openat(parent, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (sub < 0) {
    const int e = errno;
    if (e == ENOENT || e == ESTALE) return Status::Ok();  // gone already: another remover got there first
    // Not a folder (a link is never followed: ELOOP): the entry itself goes.
    if (e != ENOTDIR && e != ELOOP) return Status::FromErrno("open folder " + shown, e);
    if (unlinkat(parent, n.c_str(), 0) != 0 && errno != ENOENT && errno != ESTALE)
      return Status::FromErrno("unlink " + shown, errno);
    return Status::Ok();
  }
  if (is_mount_point(parent, sub)) {
    // A folder mounted here (a bind mount, another filesystem) is not iofab's: nothing below it goes.
    close(sub);
    return Status::IoError(shown +
                           " is a mount point (another filesystem or a bind mount): left alone with "
                           "everything below it; unmount it, then remove the rest");
  }
  DIR* d = fdopendir(sub);
  if (d == nullptr) {
    int e = errno;
    close(sub);
    return Status::FromErrno("opendir " + shown, e);
  }
  Status first;
  // Two NFS behaviours make a folder look not empty after its entries were removed, for a moment:
  // - a client may list it from its cache, without the files another client made in it since; its own
  //   removals refresh that cache (the server's answers carry the folder's new times);
  // - a file removed while still open on this client (io_uring lets go of a registered file a little
  //   after it is closed) is renamed .nfsXXXX, and the client removes it itself at the last close.
  // So the folder is listed again, a few times, waiting a little longer each time (1.6 s at most).
  constexpr int kWaitsMs[] = {0, 20, 100, 500, 1000};
  for (size_t pass = 0; pass < std::size(kWaitsMs); ++pass) {
    if (kWaitsMs[pass] > 0) std::this_thread::sleep_for(std::chrono::milliseconds(kWaitsMs[pass]));
    rewinddir(d);
    std::vector<std::string> entries;
    while (dirent* e = readdir(d)) {
      std::string_view en(e->d_name);
      if (en != "." && en != "..") entries.emplace_back(en);
    }
    first = Status::Ok();
    bool nfs_held = false;
    for (const auto& e : entries) {
      Status s = remove_tree_below(dirfd(d), e, shown + "/" + e);
      // The client's own rename of a file still open: it goes at the last close (EBUSY until then).
      if (!s.ok() && e.starts_with(".nfs")) nfs_held = true;
      if (!s.ok() && first.ok()) first = s;
    }
    const bool last = pass + 1 == std::size(kWaitsMs);
    if (nfs_held && !last) continue;
    // After a refusal below, the folder is not empty: that refusal is the error to read, not this one.
    if (!first.ok() || unlinkat(parent, n.c_str(), AT_REMOVEDIR) == 0) break;
    if (errno == ENOENT || errno == ESTALE) break;  // another remover took it first
    if (errno != ENOTEMPTY || last) {
      first = Status::FromErrno("rmdir " + shown, errno);
      break;
    }
  }
  closedir(d);
  return first;
}

}  // namespace

Status remove_tree_at(int parent, std::string_view name) {
  const std::string n(name);
  return remove_tree_below(parent, n, n);
}

Status fsync_dir(int dirfd, std::string_view what) {
  if (fsync(dirfd) != 0) return Status::FromErrno("fsync folder " + std::string(what), errno);
  return Status::Ok();
}

Status take_shared_run_lock(int dir_fd, const std::string& shown, int* lock_fd) {
  *lock_fd = openat(dir_fd, kRunLockName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (*lock_fd < 0) return Status::FromErrno("create " + shown + "/" + kRunLockName, errno);
  int rc;
  while ((rc = flock(*lock_fd, LOCK_SH)) != 0 && errno == EINTR) {
  }
  // A filesystem without flock (Lustre mounted noflock): the run goes on; clean cannot judge its folders.
  if (rc != 0 && errno != ENOSYS && errno != EOPNOTSUPP && errno != ENOLCK) {
    return Status::FromErrno("lock " + shown + "/" + kRunLockName, errno);
  }
  return Status::Ok();
}

Status mark_kept(int dir_fd, const std::string& shown) {
  const int fd = openat(dir_fd, kKeptMarkerName, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return Status::FromErrno("create " + shown + "/" + kKeptMarkerName, errno);
  close(fd);
  return Status::Ok();
}

bool is_marked_kept(int dir_fd) {
  struct stat st {};
  return fstatat(dir_fd, kKeptMarkerName, &st, AT_SYMLINK_NOFOLLOW) == 0;
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
  if (Status s = take_shared_run_lock(fd_, path_, &lock_fd_); !s.ok()) return s;
  struct stat st {};
  if (fstat(lock_fd_, &st) == 0 && st.st_nlink == 0) {
    return Status::IoError("run folder " + path_ +
                           " was removed by `iofab clean` as the run started; run again");
  }
  return Status::Ok();
}

namespace {

// Removes every entry of the folder dir_fd (path, for messages) but keep; a folder another rank removed
// already (9p answers ENOENT, NFS ESTALE) has nothing left to remove.
Status remove_entries(int dir_fd, const std::string& path, std::string_view keep) {
  DIR* d = fdopendir(dup(dir_fd));
  if (d == nullptr && (errno == ENOENT || errno == ESTALE)) return Status::Ok();
  if (d == nullptr) return Status::FromErrno("opendir " + path, errno);
  // The dup shares its read position with dir_fd; a phase that listed the folder must not hide its entries.
  rewinddir(d);
  std::vector<std::string> entries;
  while (dirent* e = readdir(d)) {
    std::string_view en(e->d_name);
    if (en != "." && en != ".." && en != keep) entries.emplace_back(en);
  }
  closedir(d);
  Status first;
  for (const auto& e : entries) {
    Status s = remove_tree_at(dir_fd, e);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

}  // namespace

Status RunDir::release() {
  if (fd_ < 0) return Status::Ok();
  Status s = remove_entries(fd_, path_, kRunLockName);
  if (lock_fd_ >= 0) close(lock_fd_);
  lock_fd_ = -1;
  return s;
}

Status RunDir::remove() {
  if (fd_ < 0) return Status::Ok();
  Status first = release();
  Status rest = remove_entries(fd_, path_, "");
  if (first.ok()) first = rest;
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
