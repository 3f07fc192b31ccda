// Run folders left on a target by runs that died (SIGKILL, a lost node): the
// iofab-<run id>/ folders directly under the target whose run lock
// (kRunLockName) no live process holds. `iofab clean` removes them and
// `iofab list` mentions them. Folders of runs with --keep are marked kept
// (kKeptMarkerName) and left unless asked. Nothing else under the target is ever touched:
// only names of the run-folder form, only real folders (a symlink of that name
// is neither followed nor removed), and never a folder whose lock is held.
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

struct StaleRunDir {
  std::string name;     // iofab-<run id>
  uint64_t bytes = 0;   // allocated below it (du's count); 0 unless sizes were asked for
  time_t modified = 0;  // the folder's mtime
  bool kept = false;    // marked kept (kKeptMarkerName): its run had --keep
};

// The stale run folders under target, by name. sizes: also walk each one
// for its size (as long as its files are many).
Status find_stale_run_dirs(const std::string& target, bool sizes, std::vector<StaleRunDir>* out);

// Removes target/name when it is still a stale run folder: it takes the run
// lock exclusively for the removal, so a run cannot start using it meanwhile.
// A folder marked kept goes only with include_kept. Nothing on another
// filesystem mounted below it goes (remove_tree_at).
Status remove_stale_run_dir(const std::string& target, const std::string& name, bool include_kept);

// For a run's own helper after the run's process died: removes the run folder
// at path (target/iofab-<run id>) once no process holds its run lock, trying
// until wait has passed. Other ranks of the run may still be in it, finishing
// or being killed by the launcher; while one holds the lock, the folder is
// theirs. *removed: whether it went (a folder already gone counts).
Status remove_run_dir_once_released(const std::string& path, std::chrono::milliseconds wait, bool* removed);

}  // namespace iofab
