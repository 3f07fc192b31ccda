// RunDir: the only place a run writes, <target>/iofab-<run id>/. Every file
// and folder below it is opened relative to a folder fd with O_NOFOLLOW, so
// a symlink planted inside can never lead a write or a removal outside.
#pragma once

#include <string>
#include <string_view>

#include "harness/core/status.h"

namespace iofab {

// Opens name under dirfd: no symlink followed, close-on-exec. For writing,
// the file must not exist yet (O_CREAT|O_EXCL), so nothing is overwritten.
// For reading, only a regular file opens, without blocking (a FIFO planted as
// a shard or data file fails at once instead of hanging the worker).
Status open_file_at(int dirfd, std::string_view name, int flags, int* fd);
// mkdirat + open with O_DIRECTORY|O_NOFOLLOW; an existing folder is reused.
Status make_dir_at(int dirfd, std::string_view name, int* fd);
// Removes name under dirfd and everything below it, never following a
// symlink (a link is removed, not its target). Missing is not an error. Never
// enters another filesystem: a mount point below (a bind mount, another
// device) is left whole, and the error names its path.
Status remove_tree_at(int parent, std::string_view name);
// fsync of a folder so renames and creations in it are durable.
Status fsync_dir(int dirfd, std::string_view what);

// Inside each run folder: the file every rank of a live run holds a shared
// flock on for the run's life. `iofab clean` takes it exclusively, so a folder
// whose lock it gets belongs to no live process (the kernel drops a flock when
// its holder dies, SIGKILL included).
constexpr const char* kRunLockName = "iofab-run.lock";

// Inside a run folder (or a run-named cache_dir / local_dir folder) whose run
// has --keep: `iofab clean` leaves it (a kept checkpoint is what restore's
// `from` reads) unless asked with --include-kept.
constexpr const char* kKeptMarkerName = "iofab-kept";

// Opens (makes when missing) kRunLockName in the folder dir_fd (shown: its
// path, for messages) and takes the shared lock on it; *lock_fd holds it. On a
// filesystem without flock the run goes on unlocked.
Status take_shared_run_lock(int dir_fd, const std::string& shown, int* lock_fd);
// Marks the folder dir_fd kept (kKeptMarkerName); an existing mark is fine.
Status mark_kept(int dir_fd, const std::string& shown);
// Whether the folder dir_fd is marked kept.
bool is_marked_kept(int dir_fd);

// True for a run folder's name: "iofab-" + a run id (new_run_id's form).
bool is_run_dir_name(std::string_view name);

class RunDir {
 public:
  RunDir() = default;
  RunDir(const RunDir&) = delete;
  RunDir& operator=(const RunDir&) = delete;
  ~RunDir();

  // Creates (or, on ranks other than the creator, opens) <target>/iofab-<id>/
  // and takes the run's shared lock in it (kRunLockName).
  Status open(const std::string& target, const std::string& run_id, bool create);

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }

  // Marks the folder kept (--keep), for `iofab clean`.
  Status mark_kept() { return iofab::mark_kept(fd_, path_); }

  // Removes everything below the run folder but the lock file, and lets the
  // lock go: the first half of a removal shared by many ranks. Every rank
  // closes what it holds in the folder before any removes the lock file: on
  // NFS a file still open on a client is renamed (.nfsXXXX), not removed, and
  // the folder could not go (docs/lab.md).
  Status release();
  // Removes everything below the run folder, then the folder itself when
  // empty (other ranks may still be removing theirs); the lock is let go first
  // (release()). A folder already gone is no error.
  Status remove();

 private:
  int target_fd_ = -1;
  int fd_ = -1;
  int lock_fd_ = -1;
  std::string name_;
  std::string path_;
};

// A new run id: UTC time plus a random suffix, e.g. 20261121T211400Z-3f9a2c.
std::string new_run_id();

}  // namespace iofab
