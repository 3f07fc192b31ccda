#include "harness/fs/stale_run_dirs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "harness/fs/run_dir.h"

namespace iofab {

namespace {

// Names of the entries of the folder fd (which stays open).
Status entries_of(int fd, const std::string& what, std::vector<std::string>* out) {
  const int d_fd = dup(fd);
  if (d_fd < 0) return Status::FromErrno("dup", errno);
  DIR* d = fdopendir(d_fd);
  if (d == nullptr) {
    const int e = errno;
    close(d_fd);
    return Status::FromErrno("read folder " + what, e);
  }
  rewinddir(d);
  while (dirent* e = readdir(d)) {
    std::string_view n(e->d_name);
    if (n != "." && n != "..") out->emplace_back(n);
  }
  closedir(d);
  return Status::Ok();
}

// Allocated bytes below the folder fd, never following a symlink; unreadable parts count 0.
uint64_t tree_bytes(int fd) {
  std::vector<std::string> names;
  if (!entries_of(fd, "", &names).ok()) return 0;
  uint64_t total = 0;
  for (const auto& n : names) {
    struct stat st {};
    if (fstatat(fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    total += static_cast<uint64_t>(st.st_blocks) * 512;
    if (!S_ISDIR(st.st_mode)) continue;
    struct stat here {};
    // Another filesystem mounted below is not the run's (du -x): clean leaves it too.
    if (fstat(fd, &here) != 0 || here.st_dev != st.st_dev) continue;
    const int sub = openat(fd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) continue;
    total += tree_bytes(sub);
    close(sub);
  }
  return total;
}

// Opens target/name as a run folder (a real folder, no symlink) and takes its
// run lock exclusively without waiting. *stale false: a live run holds it.
// create_lock: make the lock file when missing (a folder from before run locks,
// or from a run killed before it took its lock), so the removal holds it.
Status lock_run_dir(int target_fd, const std::string& name, bool create_lock, int* dir_fd, int* lock_fd,
                    bool* stale) {
  *stale = false;
  *dir_fd = openat(target_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (*dir_fd < 0) return Status::FromErrno("open run folder " + name, errno);
  *lock_fd =
      openat(*dir_fd, kRunLockName, O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create_lock ? O_CREAT : 0), 0644);
  if (*lock_fd < 0) {
    if (errno != ENOENT) return Status::FromErrno("open " + name + "/" + kRunLockName, errno);
    *stale = true;  // no lock file: no run holds it (a run makes it before writing anything)
    return Status::Ok();
  }
  if (flock(*lock_fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) return Status::Ok();
    return Status::FromErrno("lock " + name + "/" + kRunLockName, errno);
  }
  *stale = true;
  return Status::Ok();
}

void close_fd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

}  // namespace

Status find_stale_run_dirs(const std::string& target, bool sizes, std::vector<StaleRunDir>* out) {
  out->clear();
  const int target_fd = open(target.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (target_fd < 0) return Status::FromErrno("open target " + target, errno);
  std::vector<std::string> names;
  Status st = entries_of(target_fd, target, &names);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    if (!st.ok()) break;
    if (!is_run_dir_name(n)) continue;
    struct stat s {};
    if (fstatat(target_fd, n.c_str(), &s, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(s.st_mode)) continue;
    int dir_fd = -1, lock_fd = -1;
    bool stale = false;
    Status l = lock_run_dir(target_fd, n, false, &dir_fd, &lock_fd, &stale);
    if (l.ok() && stale)
      out->push_back({n, sizes ? tree_bytes(dir_fd) : 0, s.st_mtime, is_marked_kept(dir_fd)});
    // Unreadable folders are skipped, not fatal: they are not ours to judge.
    close_fd(&lock_fd);
    close_fd(&dir_fd);
  }
  close(target_fd);
  return st;
}

Status remove_stale_run_dir(const std::string& target, const std::string& name, bool include_kept) {
  if (!is_run_dir_name(name)) return Status::Invalid(name + " is not a run folder's name");
  const int target_fd = open(target.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (target_fd < 0) return Status::FromErrno("open target " + target, errno);
  int dir_fd = -1, lock_fd = -1;
  bool stale = false;
  Status st = lock_run_dir(target_fd, name, true, &dir_fd, &lock_fd, &stale);
  if (st.ok() && !stale) st = Status::IoError(target + "/" + name + " belongs to a live run now; left alone");
  if (st.ok() && !include_kept && is_marked_kept(dir_fd)) {
    st = Status::IoError(target + "/" + name + " was kept (--keep); left alone (--include-kept removes it)");
  }
  // The lock stays held (lock_fd open) while the tree goes, lock file included.
  if (st.ok()) st = remove_tree_at(target_fd, name);
  close_fd(&lock_fd);
  close_fd(&dir_fd);
  close(target_fd);
  return st;
}

Status remove_run_dir_once_released(const std::string& path, std::chrono::milliseconds wait, bool* removed) {
  *removed = false;
  const auto slash = path.rfind('/');
  const std::string target = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (!is_run_dir_name(name)) return Status::Invalid(name + " is not a run folder's name");
  const int target_fd = open(target.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (target_fd < 0) return Status::FromErrno("open target " + target, errno);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  Status st;
  for (;;) {
    struct stat s {};
    if (fstatat(target_fd, name.c_str(), &s, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) {
      *removed = true;  // a surviving rank removed it already
      break;
    }
    int dir_fd = -1, lock_fd = -1;
    bool stale = false;
    st = lock_run_dir(target_fd, name, true, &dir_fd, &lock_fd, &stale);
    if (st.ok() && stale) {
      st = remove_tree_at(target_fd, name);  // the lock stays held while the tree goes
      *removed = st.ok();
    }
    close_fd(&lock_fd);
    close_fd(&dir_fd);
    if (*removed || !st.ok() || std::chrono::steady_clock::now() >= deadline) break;
    // A rank of the run still holds the lock: it is being stopped, or it runs on.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  close(target_fd);
  return st;
}

}  // namespace iofab
