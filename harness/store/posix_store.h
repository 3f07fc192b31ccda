// The POSIX store: a folder on a mounted filesystem (ext4, XFS, btrfs, a FUSE
// mount, a parallel filesystem). Every path is resolved below the root with
// openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so neither a ".." nor a
// symlink planted at any component can lead a write or a removal outside it
// (on kernels before 5.6, a walk one component at a time with O_NOFOLLOW).
// create() never replaces (O_EXCL); open() takes only a regular file and
// never blocks on a FIFO; commit() is rename(2); lock() is flock(2) on a
// file below the root; sync_all() is syncfs(2).
#pragma once

#include <memory>
#include <string>

#include "harness/store/store.h"

namespace iofab {

// A store rooted at the folder root_fd refers to (duplicated: the caller keeps its own);
// location names it in messages.
Status posix_store_at(int root_fd, const std::string& location, std::unique_ptr<Store>* out);
// A store rooted at the folder path; create: make the folder first (its parent must exist).
Status open_posix_store(const std::string& path, bool create, std::unique_ptr<Store>* out);

}  // namespace iofab
