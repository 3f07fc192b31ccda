#include "harness/fs/run_folder_hold.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "harness/fs/run_dir.h"

namespace iofab {

RunFolderHold::~RunFolderHold() {
  if (lock_fd_ >= 0) close(lock_fd_);
}

Status RunFolderHold::hold(const std::string& folder, bool keep) {
  folder_ = folder;
  const int dir = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return Status::FromErrno("open folder " + folder, errno);
  Status s = take_shared_run_lock(dir, folder, &lock_fd_);
  if (s.ok() && keep) s = mark_kept(dir, folder);
  close(dir);
  return s;
}

void RunFolderHold::release_and_remove() {
  if (lock_fd_ < 0) return;
  close(lock_fd_);
  lock_fd_ = -1;
  const int dir = open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return;
  // Taken alone only when no other rank on this host still holds it: that one removes the folder when
  // it lets go. Two letting go at once: the one that gets the lock removes it, the other finds it taken.
  const int lock = openat(dir, kRunLockName, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0) {
    // Removed while held, so nothing can take a lock on a file about to go.
    unlinkat(dir, kRunLockName, 0);
    const auto slash = folder_.rfind('/');
    const std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : folder_.substr(0, slash);
    if (const int p = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); p >= 0) {
      unlinkat(p, folder_.substr(slash + 1).c_str(), AT_REMOVEDIR);  // empty only
      close(p);
    }
  }
  if (lock >= 0) close(lock);
  close(dir);
}

}  // namespace iofab
