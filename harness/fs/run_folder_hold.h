// A run-named folder a live run uses outside its target: train_read's cache
// folder in cache_dir and a two-tier checkpoint's folder in local_dir, both
// <dir>/iofab-<run id>/. Held the way every rank holds the run folder, by a
// shared flock on its kRunLockName, so `iofab clean` on that dir sees a live
// run's folder and leaves it; marked kept (kKeptMarkerName) under --keep, so
// clean leaves it afterwards too.
#pragma once

#include <string>

#include "harness/core/status.h"

namespace iofab {

class RunFolderHold {
 public:
  RunFolderHold() = default;
  RunFolderHold(const RunFolderHold&) = delete;
  RunFolderHold& operator=(const RunFolderHold&) = delete;
  // Lets go of the lock; removes nothing.
  ~RunFolderHold();

  // Takes the shared lock in folder (made when missing); keep: also marks it kept.
  Status hold(const std::string& folder, bool keep);
  // Lets go of the lock; the last process of the run to let go (no other holds it) removes the lock
  // file and then the folder, if that leaves it empty. Whatever else stays is the caller's to remove first.
  void release_and_remove();

 private:
  std::string folder_;
  int lock_fd_ = -1;
};

}  // namespace iofab
